/*
 * scalar_type.c - names and element sizes of executorch_flatbuffer.ScalarType,
 * the tensor element type shared by the ETDump and program schemas, and the
 * one conversion of HALF and BFLOAT16 elements to float.
 *
 * One table indexed by the code holds both facts, so a new type is one line.
 * Codes outside the table or with a NULL entry are the reserved gaps of the
 * enum (8-10, 18-21) and answer "invalid" ("UNKNOWN" / size 0).  The names
 * are the schema's spelling, which is what flatc prints in JSON.
 */
#include <string.h>

#include "etkit/scalar_type.h"

typedef struct scalar_type_info {
  const char *name;
  uint8_t size;
} scalar_type_info_t;

static const scalar_type_info_t scalar_types[] = {
    [ETK_SCALAR_TYPE_BYTE] = {"BYTE", 1},
    [ETK_SCALAR_TYPE_CHAR] = {"CHAR", 1},
    [ETK_SCALAR_TYPE_SHORT] = {"SHORT", 2},
    [ETK_SCALAR_TYPE_INT] = {"INT", 4},
    [ETK_SCALAR_TYPE_LONG] = {"LONG", 8},
    [ETK_SCALAR_TYPE_HALF] = {"HALF", 2},
    [ETK_SCALAR_TYPE_FLOAT] = {"FLOAT", 4},
    [ETK_SCALAR_TYPE_DOUBLE] = {"DOUBLE", 8},
    [ETK_SCALAR_TYPE_BOOL] = {"BOOL", 1},
    [ETK_SCALAR_TYPE_QINT8] = {"QINT8", 1},
    [ETK_SCALAR_TYPE_QUINT8] = {"QUINT8", 1},
    [ETK_SCALAR_TYPE_QINT32] = {"QINT32", 4},
    [ETK_SCALAR_TYPE_BFLOAT16] = {"BFLOAT16", 2},
    [ETK_SCALAR_TYPE_QUINT4X2] = {"QUINT4X2", 1},
    [ETK_SCALAR_TYPE_QUINT2X4] = {"QUINT2X4", 1},
    [ETK_SCALAR_TYPE_BITS16] = {"BITS16", 2},
    [ETK_SCALAR_TYPE_FLOAT8E5M2] = {"FLOAT8E5M2", 1},
    [ETK_SCALAR_TYPE_FLOAT8E4M3FN] = {"FLOAT8E4M3FN", 1},
    [ETK_SCALAR_TYPE_FLOAT8E5M2FNUZ] = {"FLOAT8E5M2FNUZ", 1},
    [ETK_SCALAR_TYPE_FLOAT8E4M3FNUZ] = {"FLOAT8E4M3FNUZ", 1},
    [ETK_SCALAR_TYPE_UINT16] = {"UINT16", 2},
    [ETK_SCALAR_TYPE_UINT32] = {"UINT32", 4},
    [ETK_SCALAR_TYPE_UINT64] = {"UINT64", 8},
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
