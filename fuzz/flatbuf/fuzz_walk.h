/*
 * fuzz_walk.h - reading every field a verified table describes, shared by
 * the verifier fuzz target and the verifier's corruption sweeps
 * (tests/flatbuf/test_verify.c).  Both run under the sanitizers, which turn
 * any read outside what the verifier accepted into a failure: the walk is
 * what proves that "verified" really means "safe to read".
 */
#ifndef ETK_FUZZ_WALK_H
#define ETK_FUZZ_WALK_H

#include <stdint.h>

#include "etkit/schema.h"
#include "fuzz_scalar.h"

/* Deepest nesting walked; the verifier's own default limit is lower. */
#define FUZZ_WALK_MAX_DEPTH 80

/* Reads every field of t that d describes (scalars at their size, strings
 * with their terminating NUL and UTF-8 check, union members, vectors and
 * nested tables); returns a checksum so the reads are not optimised away. */
static inline uint64_t fuzz_walk_table(etk_fb_table_t t,
                                       const etk_fb_table_desc_t *d,
                                       int depth) {
  uint64_t sum = 0;
  if (!etk_fb_table_present(t) || depth > FUZZ_WALK_MAX_DEPTH) return 0;
  for (uint16_t i = 0; i < d->field_count; i++) {
    const etk_fb_field_desc_t *f = &d->fields[i];
    switch (f->kind) {
      case ETK_FB_SCALAR:
        sum += fuzz_scalar_bits(t, f);
        break;
      case ETK_FB_UNION_TYPE:
        sum += etk_fb_get_u8(t, f->id, 0);
        break;
      case ETK_FB_STRING: {
        etk_fb_string_t s = etk_fb_get_string(t, f->id);
        if (s.data)
          sum += s.len + (uint8_t)s.data[s.len] +
                 (uint64_t)etk_fb_utf8_valid(s.data, s.len);
        break;
      }
      case ETK_FB_TABLE:
        sum += fuzz_walk_table(etk_fb_get_table(t, f->id), f->table, depth + 1);
        break;
      case ETK_FB_UNION: {
        uint8_t type = etk_fb_get_u8(t, f->id - 1u, 0);
        if (type)
          sum += fuzz_walk_table(etk_fb_get_table(t, f->id),
                                 f->union_tables[type], depth + 1);
        break;
      }
      case ETK_FB_VEC_SCALAR: {
        etk_fb_vector_t v = etk_fb_get_vector(t, f->id);
        for (uint64_t k = 0; k < (uint64_t)v.count * f->size; k++)
          sum += v.data[k];
        break;
      }
      case ETK_FB_VEC_TABLE: {
        etk_fb_vector_t v = etk_fb_get_vector(t, f->id);
        for (uint32_t k = 0; k < v.count; k++)
          sum += fuzz_walk_table(etk_fb_vector_table(t.buf, v, k), f->table,
                                 depth + 1);
        break;
      }
      case ETK_FB_VEC_STRING: {
        etk_fb_vector_t v = etk_fb_get_vector(t, f->id);
        for (uint32_t k = 0; k < v.count; k++)
          sum += etk_fb_vector_string(t.buf, v, k).len;
        break;
      }
      default:
        break;
    }
  }
  return sum;
}

#endif
