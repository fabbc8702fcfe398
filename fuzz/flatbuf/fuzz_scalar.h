/*
 * fuzz_scalar.h - what the two FlatBuffers fuzz targets share: reading a
 * scalar field of any size as its unsigned bits, so that a walk over a
 * verified table touches every byte the schema says it may read.
 */
#ifndef ETK_FUZZ_SCALAR_H
#define ETK_FUZZ_SCALAR_H

#include <stdint.h>

#include "etkit/schema.h"

/* Field f of table t (0 when absent) as the unsigned value of its size. */
static inline uint64_t fuzz_scalar_bits(etk_fb_table_t t,
                                        const etk_fb_field_desc_t *f) {
  switch (f->size) {
    case 1:
      return etk_fb_get_u8(t, f->id, 0);
    case 2:
      return etk_fb_get_u16(t, f->id, 0);
    case 4:
      return etk_fb_get_u32(t, f->id, 0);
    default:
      return etk_fb_get_u64(t, f->id, 0);
  }
}

#endif
