/*
 * scalar_type.c - names and element sizes of executorch_flatbuffer.ScalarType,
 * the tensor element type shared by the ETDump and program schemas, and the
 * one conversion of HALF and BFLOAT16 elements to float.
 *
 * One table indexed by the code holds both facts, so a new type is one line.
 * Codes outside the table or with a NULL entry are the reserved gaps of the
 * enum (8-10, 18-21) and answer "invalid" ("UNKNOWN" / size 0).  The names
 * are the schema's spelling, which is what flatc prints in JSON; the
 * NumPy names ("float32") are what the numerics views and the tensor JSON
 * print, and also mark the plain numeric types those tools can read.
 * etk_scalar_type_read is the one reader of a single element as a double.
 */
#include <string.h>

#include "etkit/scalar_type.h"

typedef struct scalar_type_info {
  const char *name;
  uint8_t size;
  const char *numpy_name; /* NULL: NumPy has no such dtype */
} scalar_type_info_t;

static const scalar_type_info_t scalar_types[] = {
    [ETK_SCALAR_TYPE_BYTE] = {"BYTE", 1, "uint8"},
    [ETK_SCALAR_TYPE_CHAR] = {"CHAR", 1, "int8"},
    [ETK_SCALAR_TYPE_SHORT] = {"SHORT", 2, "int16"},
    [ETK_SCALAR_TYPE_INT] = {"INT", 4, "int32"},
    [ETK_SCALAR_TYPE_LONG] = {"LONG", 8, "int64"},
    [ETK_SCALAR_TYPE_HALF] = {"HALF", 2, "float16"},
    [ETK_SCALAR_TYPE_FLOAT] = {"FLOAT", 4, "float32"},
    [ETK_SCALAR_TYPE_DOUBLE] = {"DOUBLE", 8, "float64"},
    [ETK_SCALAR_TYPE_BOOL] = {"BOOL", 1, "bool"},
    [ETK_SCALAR_TYPE_QINT8] = {"QINT8", 1, NULL},
    [ETK_SCALAR_TYPE_QUINT8] = {"QUINT8", 1, NULL},
    [ETK_SCALAR_TYPE_QINT32] = {"QINT32", 4, NULL},
    [ETK_SCALAR_TYPE_BFLOAT16] = {"BFLOAT16", 2, "bfloat16"},
    [ETK_SCALAR_TYPE_QUINT4X2] = {"QUINT4X2", 1, NULL},
    [ETK_SCALAR_TYPE_QUINT2X4] = {"QUINT2X4", 1, NULL},
    [ETK_SCALAR_TYPE_BITS16] = {"BITS16", 2, "uint16"},
    [ETK_SCALAR_TYPE_FLOAT8E5M2] = {"FLOAT8E5M2", 1, NULL},
    [ETK_SCALAR_TYPE_FLOAT8E4M3FN] = {"FLOAT8E4M3FN", 1, NULL},
    [ETK_SCALAR_TYPE_FLOAT8E5M2FNUZ] = {"FLOAT8E5M2FNUZ", 1, NULL},
    [ETK_SCALAR_TYPE_FLOAT8E4M3FNUZ] = {"FLOAT8E4M3FNUZ", 1, NULL},
    [ETK_SCALAR_TYPE_UINT16] = {"UINT16", 2, "uint16"},
    [ETK_SCALAR_TYPE_UINT32] = {"UINT32", 4, "uint32"},
    [ETK_SCALAR_TYPE_UINT64] = {"UINT64", 8, "uint64"},
};

#define SCALAR_TYPE_COUNT (sizeof scalar_types / sizeof scalar_types[0])

int etk_scalar_type_valid(int code) {
  return code >= 0 && (size_t)code < SCALAR_TYPE_COUNT &&
         scalar_types[code].name != NULL;
}

const char *etk_scalar_type_name(int code) {
  return etk_scalar_type_valid(code) ? scalar_types[code].name : "UNKNOWN";
}

size_t etk_scalar_type_size(int code) {
  return etk_scalar_type_valid(code) ? scalar_types[code].size : 0;
}

const char *etk_scalar_type_numpy_name(int code) {
  return etk_scalar_type_valid(code) ? scalar_types[code].numpy_name : NULL;
}

float etk_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0) {
    /* zero and subnormals: mant * 2^-24, exact in float */
    float f = (float)mant * (1.0f / 16777216.0f);
    return sign ? -f : f;
  }
  uint32_t bits =
      sign | (exp == 31 ? 0x7F800000u : (exp + 112) << 23) | (mant << 13);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

float etk_bfloat16_to_float(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* memcpy keeps the reads alignment-free; the 64-bit integers go through one
 * rounding to double, every other type is exact in double. */
#define READ_AS(type)        \
  do {                       \
    type v;                  \
    memcpy(&v, p, sizeof v); \
    *value = (double)v;      \
    return 1;                \
  } while (0)

int etk_scalar_type_read(int code, const void *p, double *value) {
  uint16_t bits;
  switch (code) {
    case ETK_SCALAR_TYPE_BYTE:
    case ETK_SCALAR_TYPE_QUINT8:
      READ_AS(uint8_t);
    case ETK_SCALAR_TYPE_CHAR:
    case ETK_SCALAR_TYPE_QINT8:
      READ_AS(int8_t);
    case ETK_SCALAR_TYPE_BOOL:
      *value = *(const uint8_t *)p != 0;
      return 1;
    case ETK_SCALAR_TYPE_SHORT:
      READ_AS(int16_t);
    case ETK_SCALAR_TYPE_BITS16:
    case ETK_SCALAR_TYPE_UINT16:
      READ_AS(uint16_t);
    case ETK_SCALAR_TYPE_HALF:
    case ETK_SCALAR_TYPE_BFLOAT16:
      memcpy(&bits, p, 2);
      *value = code == ETK_SCALAR_TYPE_HALF ? etk_half_to_float(bits)
                                            : etk_bfloat16_to_float(bits);
      return 1;
    case ETK_SCALAR_TYPE_INT:
    case ETK_SCALAR_TYPE_QINT32:
      READ_AS(int32_t);
    case ETK_SCALAR_TYPE_UINT32:
      READ_AS(uint32_t);
    case ETK_SCALAR_TYPE_FLOAT:
      READ_AS(float);
    case ETK_SCALAR_TYPE_LONG:
      READ_AS(int64_t);
    case ETK_SCALAR_TYPE_UINT64:
      READ_AS(uint64_t);
    case ETK_SCALAR_TYPE_DOUBLE:
      READ_AS(double);
    default:
      return 0;
  }
}

#undef READ_AS
