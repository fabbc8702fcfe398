/*
 * etkit/scalar_type.h - executorch_flatbuffer.ScalarType, the tensor element
 * type shared by the ETDump and program schemas (library etkit_core; one
 * table, src/core/scalar_type.c, gives names and sizes).  Portable C99.
 */
#ifndef ETKIT_SCALAR_TYPE_H
#define ETKIT_SCALAR_TYPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* executorch_flatbuffer.ScalarType (a signed byte on the wire).  Values not
 * listed (8-10, 18-21, negative, > 29) are invalid and rejected by the
 * verifier wherever the field is described as this enum. */
typedef enum etk_scalar_type {
  ETK_SCALAR_TYPE_BYTE = 0,
  ETK_SCALAR_TYPE_CHAR = 1,
  ETK_SCALAR_TYPE_SHORT = 2,
  ETK_SCALAR_TYPE_INT = 3,
  ETK_SCALAR_TYPE_LONG = 4,
  ETK_SCALAR_TYPE_HALF = 5,
  ETK_SCALAR_TYPE_FLOAT = 6,
  ETK_SCALAR_TYPE_DOUBLE = 7,
  ETK_SCALAR_TYPE_BOOL = 11,
  ETK_SCALAR_TYPE_QINT8 = 12,
  ETK_SCALAR_TYPE_QUINT8 = 13,
  ETK_SCALAR_TYPE_QINT32 = 14,
  ETK_SCALAR_TYPE_BFLOAT16 = 15,
  ETK_SCALAR_TYPE_QUINT4X2 = 16,
  ETK_SCALAR_TYPE_QUINT2X4 = 17,
  ETK_SCALAR_TYPE_BITS16 = 22,
  ETK_SCALAR_TYPE_FLOAT8E5M2 = 23,
  ETK_SCALAR_TYPE_FLOAT8E4M3FN = 24,
  ETK_SCALAR_TYPE_FLOAT8E5M2FNUZ = 25,
  ETK_SCALAR_TYPE_FLOAT8E4M3FNUZ = 26,
  ETK_SCALAR_TYPE_UINT16 = 27,
  ETK_SCALAR_TYPE_UINT32 = 28,
  ETK_SCALAR_TYPE_UINT64 = 29
} etk_scalar_type_t;

/* Bit v set <=> ScalarType v is valid (an etk_fb_field_desc_t enum_mask). */
#define ETK_SCALAR_TYPE_ENUM_MASK \
  ((uint64_t)0xFFu | ((uint64_t)0x7Fu << 11) | ((uint64_t)0xFFu << 22))

/* 1 if `code` is a ScalarType of the schema, else 0. */
int etk_scalar_type_valid(int code);

/* Schema name of a ScalarType ("FLOAT", "QUINT4X2"), exactly as flatc prints
 * it in JSON; "UNKNOWN" for an invalid code (never NULL, so it can be
 * printed directly).  Static string. */
const char *etk_scalar_type_name(int code);

/* Bytes per element of a ScalarType (BOOL 1, HALF 2, QUINT4X2 1 per packed
 * byte, ...); 0 for an invalid code. */
size_t etk_scalar_type_size(int code);

/* NumPy dtype name of a plain numeric ScalarType ("uint8", "float32",
 * "bfloat16"; BITS16 and UINT16 both "uint16"), or NULL for a quantized,
 * float8 or invalid code.  Static string. */
const char *etk_scalar_type_numpy_name(int code);

/* The float value of an IEEE half (HALF) or of a bfloat16 (BFLOAT16), bit
 * exact: every half and bfloat16 value is a float, NaN payloads and signs
 * are kept. */
float etk_half_to_float(uint16_t h);
float etk_bfloat16_to_float(uint16_t b);

/* Reads the element at `p` (any alignment, host byte order) of ScalarType
 * `code` into *value as a double: HALF and BFLOAT16 converted exactly, LONG
 * and UINT64 rounded to nearest, QINT8, QUINT8 and QINT32 as their stored
 * integers.  Returns 1, or 0 (leaving *value alone) for a type with no
 * single numeric reading (QUINT4X2, QUINT2X4, the float8 types, an invalid
 * code).  Reads etk_scalar_type_size(code) bytes. */
int etk_scalar_type_read(int code, const void *p, double *value);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_SCALAR_TYPE_H */
