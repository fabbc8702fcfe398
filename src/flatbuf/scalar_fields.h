/*
 * scalar_fields.h - the scalar field types of FlatBuffers tables, one line
 * each, so that the builder's etk_fb_add_<name> and the accessors'
 * etk_fb_get_<name> (declared one by one in etkit/flatbuf.h) are each
 * written once.
 *
 * X(name, C type, bits, family): a field is stored as `bits` little-endian
 * bits.  INT fields convert to and from the unsigned type of that width
 * (two's complement, as FlatBuffers stores them); FLOAT fields move their
 * IEEE-754 bits unchanged (memcpy), so NaN payloads and -0.0 survive.
 * bool is not listed: it is a u8 holding 0 or 1, with its own adder.
 */
#ifndef ETKIT_FLATBUF_SCALAR_FIELDS_H
#define ETKIT_FLATBUF_SCALAR_FIELDS_H

#define ETK_FB_SCALAR_FIELDS(X) \
  X(u8, uint8_t, 8, INT)        \
  X(i8, int8_t, 8, INT)         \
  X(u16, uint16_t, 16, INT)     \
  X(i16, int16_t, 16, INT)      \
  X(u32, uint32_t, 32, INT)     \
  X(i32, int32_t, 32, INT)      \
  X(u64, uint64_t, 64, INT)     \
  X(i64, int64_t, 64, INT)      \
  X(f32, float, 32, FLOAT)      \
  X(f64, double, 64, FLOAT)

/* Value `v` to its stored bits `raw`, and back. */
#define ETK_FB_TO_BITS_INT(v, raw) ((raw) = (v))
#define ETK_FB_TO_BITS_FLOAT(v, raw) memcpy(&(raw), &(v), sizeof(raw))
#define ETK_FB_FROM_BITS_INT(raw, v) ((v) = (raw))
#define ETK_FB_FROM_BITS_FLOAT(raw, v) memcpy(&(v), &(raw), sizeof(v))

#endif /* ETKIT_FLATBUF_SCALAR_FIELDS_H */
