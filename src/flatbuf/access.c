/*
 * access.c - unchecked FlatBuffers accessors (see etkit/flatbuf.h).
 *
 * PURPOSE
 *   Read fields of a buffer that etk_fb_verify() accepted.  These functions
 *   do no bounds checks at all: the verifier already proved that every
 *   offset, vtable entry, string and vector reachable through the schema lies
 *   inside the buffer.  Using them on unverified bytes, or reading a field
 *   with a kind other than its schema kind, is undefined.
 *
 * DATA LAYOUT
 *   A table is named by (buf, pos): pos is the table's offset from the start
 *   of the buffer.  pos 0 is never a table (the root uoffset or size prefix
 *   lives there), so pos 0 means "absent"; every accessor accepts an absent
 *   table and answers "absent / default", which lets callers chain lookups
 *   through optional sub-tables without testing each step.
 *
 *   Loads go through etk_fb_load_*() (byte-wise little-endian), so the
 *   buffer's address need not be aligned and the host's endianness does not
 *   matter for reading.
 *
 * INVARIANTS
 *   - Never writes; never allocates.
 *   - A vtable entry beyond the vtable's size means "field absent" (older
 *     writers, or trimmed vtables), exactly as for an entry holding 0.
 */
#include <string.h>

#include "etkit/flatbuf.h"
#include "scalar_fields.h"

uint16_t etk_fb_load_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

uint32_t etk_fb_load_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

uint64_t etk_fb_load_u64(const uint8_t *p) {
  return (uint64_t)etk_fb_load_u32(p) | (uint64_t)etk_fb_load_u32(p + 4) << 32;
}

/* Offset of field `id` from the buffer start, or 0 if absent. */
static uint32_t field_pos(etk_fb_table_t t, unsigned id) {
  uint32_t vt, vtable_size;
  if (t.buf == NULL || t.pos == 0) return 0;
  vt = t.pos - etk_fb_load_u32(t.buf + t.pos); /* pos - soffset, mod 2^32 */
  vtable_size = etk_fb_load_u16(t.buf + vt);
  if (vtable_size < 4u || id >= (vtable_size - 4u) / 2u) return 0;
  {
    uint32_t off = etk_fb_load_u16(t.buf + vt + 4u + 2u * id);
    return off ? t.pos + off : 0;
  }
}

/* Target of the uoffset at `pos`. */
static uint32_t follow(const uint8_t *buf, uint32_t pos) {
  return pos + etk_fb_load_u32(buf + pos);
}

etk_fb_table_t etk_fb_root(const uint8_t *buf, uint32_t root_table) {
  etk_fb_table_t t;
  t.buf = buf;
  t.pos = root_table;
  return t;
}

int etk_fb_has(etk_fb_table_t t, unsigned id) {
  return field_pos(t, id) != 0;
}

/* Loads of each stored width. */
#define LOAD_BITS_8(p) (*(p))
#define LOAD_BITS_16(p) etk_fb_load_u16(p)
#define LOAD_BITS_32(p) etk_fb_load_u32(p)
#define LOAD_BITS_64(p) etk_fb_load_u64(p)

/* etk_fb_get_u8 ... etk_fb_get_f64 */
#define DEFINE_GET(name, ctype, bits, family)                         \
  ctype etk_fb_get_##name(etk_fb_table_t t, unsigned id, ctype def) { \
    uint32_t p = field_pos(t, id);                                    \
    uint##bits##_t raw;                                               \
    ctype v;                                                          \
    if (!p) return def;                                               \
    raw = LOAD_BITS_##bits(t.buf + p);                                \
    ETK_FB_FROM_BITS_##family(raw, v);                                \
    return v;                                                         \
  }
ETK_FB_SCALAR_FIELDS(DEFINE_GET)
#undef DEFINE_GET

const uint8_t *etk_fb_get_struct(etk_fb_table_t t, unsigned id) {
  uint32_t p = field_pos(t, id);
  return p ? t.buf + p : NULL;
}

etk_fb_table_t etk_fb_get_table(etk_fb_table_t t, unsigned id) {
  uint32_t p = field_pos(t, id);
  etk_fb_table_t sub;
  sub.buf = t.buf;
  sub.pos = p ? follow(t.buf, p) : 0;
  return sub;
}

int etk_fb_table_present(etk_fb_table_t t) {
  return t.buf != NULL && t.pos != 0;
}

static etk_fb_string_t string_at(const uint8_t *buf, uint32_t s) {
  etk_fb_string_t str;
  str.len = etk_fb_load_u32(buf + s);
  str.data = (const char *)(buf + s + 4u);
  return str;
}

etk_fb_string_t etk_fb_get_string(etk_fb_table_t t, unsigned id) {
  uint32_t p = field_pos(t, id);
  if (!p) {
    etk_fb_string_t none = {NULL, 0};
    return none;
  }
  return string_at(t.buf, follow(t.buf, p));
}

etk_fb_vector_t etk_fb_get_vector(etk_fb_table_t t, unsigned id) {
  uint32_t p = field_pos(t, id);
  etk_fb_vector_t v = {NULL, 0, 0};
  if (p) {
    uint32_t at = follow(t.buf, p);
    v.count = etk_fb_load_u32(t.buf + at);
    v.pos = at + 4u;
    v.data = t.buf + v.pos;
  }
  return v;
}

etk_fb_table_t etk_fb_vector_table(const uint8_t *buf, etk_fb_vector_t v,
                                   uint32_t i) {
  etk_fb_table_t t;
  t.buf = buf;
  t.pos = follow(buf, v.pos + 4u * i);
  return t;
}

etk_fb_string_t etk_fb_vector_string(const uint8_t *buf, etk_fb_vector_t v,
                                     uint32_t i) {
  return string_at(buf, follow(buf, v.pos + 4u * i));
}
