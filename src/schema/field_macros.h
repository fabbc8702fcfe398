/*
 * field_macros.h - shorthand for the descriptor tables of program_schema.c
 * and bundled_program_schema.c (private to src/schema).
 */
#ifndef ETKIT_SCHEMA_FIELD_MACROS_H
#define ETKIT_SCHEMA_FIELD_MACROS_H

#include <stdint.h>

#include "etkit/flatbuf.h"

#define COUNT_OF(a) ((uint16_t)(sizeof(a) / sizeof((a)[0])))

/* Field constructors (designated initialisers: fields not named are 0).
 * Sizes are in bytes; every scalar default of these schemas is 0. */
#define F_INT(n, i, sz, sgn) \
  { .name = n, .id = i, .kind = ETK_FB_SCALAR, .size = sz, .is_signed = sgn }
#define F_REAL(n, i, sz) \
  { .name = n, .id = i, .kind = ETK_FB_SCALAR, .size = sz, .is_real = 1 }
#define F_STRING(n, i) \
  { .name = n, .id = i, .kind = ETK_FB_STRING }
#define F_TABLE(n, i, t) \
  { .name = n, .id = i, .kind = ETK_FB_TABLE, .table = &(t) }
#define F_VEC_INT(n, i, sz, sgn)                               \
  {                                                            \
    .name = n, .id = i, .kind = ETK_FB_VEC_SCALAR, .size = sz, \
    .is_signed = sgn                                           \
  }
#define F_VEC_REAL(n, i, sz) \
  { .name = n, .id = i, .kind = ETK_FB_VEC_SCALAR, .size = sz, .is_real = 1 }
#define F_VEC_TABLE(n, i, t) \
  { .name = n, .id = i, .kind = ETK_FB_VEC_TABLE, .table = &(t) }
#define F_UNION_TYPE(n, i, cnt)                               \
  {                                                           \
    .name = n, .id = i, .kind = ETK_FB_UNION_TYPE, .size = 1, \
    .union_count = cnt                                        \
  }
#define F_UNION(n, i, cnt, tabs)                                  \
  {                                                               \
    .name = n, .id = i, .kind = ETK_FB_UNION, .union_count = cnt, \
    .union_tables = tabs                                          \
  }
#define TABLE(var, name, fields) \
  const etk_fb_table_desc_t var = {name, COUNT_OF(fields), fields}

#endif
