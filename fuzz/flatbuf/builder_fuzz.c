/*
 * builder_fuzz.c - libFuzzer target: the builder and the verifier agree.
 *
 * The input drives a random ETDump: which fields are present, their values,
 * string and vector lengths, the order fields are added (so every packing
 * and alignment path is taken) and the capacity of the caller's buffer
 * (allocated at exactly that size, so ASan sees any write outside it).
 * Each RunData is built under a rollback mark and dropped when it does not
 * fit, the way a recorder would.
 *
 * Properties checked (abort() on violation):
 *   - the build ends with ETK_OK or ETK_E_NO_MEMORY, nothing else;
 *   - a finished buffer passes etk_fb_verify against the ETDump schema;
 *   - reading it back gives the same totals (non-default scalar bits,
 *     string lengths, vector sizes, tables) as were written;
 *   - building the same content again in a roomy buffer gives the same
 *     bytes (the output does not depend on the capacity).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/schema.h"
#include "fuzz_scalar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct cursor {
  const uint8_t *data;
  size_t size, pos;
} cursor_t;

static uint8_t take(cursor_t *c) {
  return c->pos < c->size ? c->data[c->pos++] : 0;
}

static uint64_t take_bits(cursor_t *c, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; i++) v |= (uint64_t)take(c) << (8 * i);
  return v;
}

/* A valid value of a 1-byte enum: the n-th set bit of its mask. */
static uint8_t enum_value(uint64_t mask, uint8_t pick) {
  unsigned count = 0;
  for (unsigned v = 0; v < 64; v++) count += (mask >> v) & 1u;
  pick = (uint8_t)(pick % count);
  for (unsigned v = 0; v < 64; v++)
    if (((mask >> v) & 1u) && pick-- == 0) return (uint8_t)v;
  return 0;
}

static uint64_t default_bits(const etk_fb_field_desc_t *f) {
  uint64_t bits = (uint64_t)f->default_int;
  if (f->size < 8) bits &= ((uint64_t)1 << (8 * f->size)) - 1u;
  return bits; /* ETDump's float defaults are 0.0, whose bits are 0 */
}

static etk_fb_ref_t build_table(etk_fb_builder_t *b,
                                const etk_fb_table_desc_t *d, cursor_t *c,
                                int depth, uint64_t *sum);

static etk_fb_ref_t build_child(etk_fb_builder_t *b,
                                const etk_fb_field_desc_t *f, cursor_t *c,
                                int depth, uint64_t *sum) {
  switch (f->kind) {
    case ETK_FB_STRING: {
      char text[48];
      size_t n = take(c) % sizeof text;
      for (size_t i = 0; i < n; i++) text[i] = (char)take(c);
      *sum += n + 1;
      return etk_fb_create_string(b, text, n);
    }
    case ETK_FB_TABLE:
      return build_table(b, f->table, c, depth + 1, sum);
    case ETK_FB_VEC_SCALAR: {
      uint8_t elems[16 * 8];
      size_t n = take(c) % 16;
      for (size_t i = 0; i < n * f->size; i++) elems[i] = take(c);
      *sum += n * f->size + 1;
      return etk_fb_create_vector(b, elems, n, f->size, f->size);
    }
    case ETK_FB_VEC_TABLE: {
      etk_fb_ref_t refs[4];
      size_t n = 0, want = take(c) % 4;
      for (size_t i = 0; i < want; i++) {
        etk_fb_ref_t r = build_table(b, f->table, c, depth + 1, sum);
        if (r) refs[n++] = r;
      }
      *sum += 1;
      return etk_fb_create_offset_vector(b, refs, n);
    }
    default:
      return 0;
  }
}

/* Builds a random table of `d`; 0 when too deep (then nothing is counted). */
static etk_fb_ref_t build_table(etk_fb_builder_t *b,
                                const etk_fb_table_desc_t *d, cursor_t *c,
                                int depth, uint64_t *sum) {
  etk_fb_ref_t refs[16] = {0};
  uint64_t local = 0;
  uint8_t present = take(c), order = take(c);
  if (depth > 5 || d->field_count > 16) return 0;
  for (uint16_t i = 0; i < d->field_count; i++) {
    const etk_fb_field_desc_t *f = &d->fields[i];
    if (f->kind == ETK_FB_SCALAR || !((present >> (i % 8)) & 1u)) continue;
    refs[i] = build_child(b, f, c, depth, &local);
  }
  etk_fb_table_start(b);
  for (uint16_t k = 0; k < d->field_count; k++) {
    /* fields in a rotated order chosen by the input */
    uint16_t i = (uint16_t)((k + order) % d->field_count);
    const etk_fb_field_desc_t *f = &d->fields[i];
    if (f->kind != ETK_FB_SCALAR) {
      etk_fb_add_ref(b, f->id, refs[i]);
      continue;
    }
    if (!((present >> (i % 8)) & 1u)) continue;
    uint64_t bits = f->enum_mask ? enum_value(f->enum_mask, take(c))
                                 : take_bits(c, f->size);
    if (f->size == 1 && !f->enum_mask && !f->is_signed) bits &= 1u; /* bool */
    uint64_t def = default_bits(f);
    int force = take(c) & 1;
    switch (f->size) {
      case 1:
        etk_fb_add_u8(b, f->id, (uint8_t)bits, (uint8_t)def, force);
        break;
      case 2:
        etk_fb_add_u16(b, f->id, (uint16_t)bits, (uint16_t)def, force);
        break;
      case 4:
        etk_fb_add_u32(b, f->id, (uint32_t)bits, (uint32_t)def, force);
        break;
      default:
        etk_fb_add_u64(b, f->id, bits, def, force);
        break;
    }
    if (bits != def || force)
      local += bits; /* a skipped default adds nothing */
  }
  etk_fb_ref_t ref = etk_fb_table_end(b);
  *sum += local + 1;
  return ref;
}

/* The same totals, read back through the accessors. */
static uint64_t read_table(etk_fb_table_t t, const etk_fb_table_desc_t *d) {
  uint64_t sum = 1;
  for (uint16_t i = 0; i < d->field_count; i++) {
    const etk_fb_field_desc_t *f = &d->fields[i];
    switch (f->kind) {
      case ETK_FB_SCALAR:
        if (etk_fb_has(t, f->id)) sum += fuzz_scalar_bits(t, f);
        break;
      case ETK_FB_STRING: {
        etk_fb_string_t s = etk_fb_get_string(t, f->id);
        if (s.data) sum += s.len + 1;
        break;
      }
      case ETK_FB_TABLE: {
        etk_fb_table_t sub = etk_fb_get_table(t, f->id);
        if (etk_fb_table_present(sub)) sum += read_table(sub, f->table);
        break;
      }
      case ETK_FB_VEC_SCALAR: {
        etk_fb_vector_t v = etk_fb_get_vector(t, f->id);
        if (v.data) sum += (uint64_t)v.count * f->size + 1;
        break;
      }
      case ETK_FB_VEC_TABLE: {
        etk_fb_vector_t v = etk_fb_get_vector(t, f->id);
        if (v.data) sum += 1;
        for (uint32_t k = 0; k < v.count; k++)
          sum += read_table(etk_fb_vector_table(t.buf, v, k), f->table);
        break;
      }
      default:
        break;
    }
  }
  return sum;
}

/* Builds a whole ETDump; returns the finish status. */
static int build_dump(etk_fb_builder_t *b, cursor_t *c, uint64_t *sum,
                      const uint8_t **out, size_t *len) {
  etk_fb_ref_t runs[8];
  size_t n = 0, want = take(c) % 8;
  for (size_t i = 0; i < want; i++) {
    etk_fb_builder_mark_t m = etk_fb_builder_mark(b);
    uint64_t run_sum = 0;
    etk_fb_ref_t r =
        build_table(b, &etk_etdump_run_data_schema, c, 1, &run_sum);
    if (etk_fb_builder_status(b) != ETK_OK) {
      etk_fb_builder_rollback(b, m); /* drop the block that did not fit */
      continue;
    }
    runs[n++] = r;
    *sum += run_sum;
  }
  etk_fb_ref_t vec = etk_fb_create_offset_vector(b, runs, n);
  uint32_t version = (uint32_t)take_bits(c, 4) & 3u;
  etk_fb_table_start(b);
  etk_fb_add_u32(b, ETK_ETDUMP_VERSION, version, 0, 0);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA, vec);
  etk_fb_ref_t root = etk_fb_table_end(b);
  *sum += 1 + 1 + version; /* root table, run_data vector, version */
  return etk_fb_finish(b, root, ETK_ETDUMP_FILE_IDENTIFIER, take(c) & 1, out,
                       len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cursor_t c = {data, size, 0};
  size_t cap = 8 + (size_t)take_bits(&c, 2) % 4096;
  uint8_t *mem = malloc(cap);
  if (!mem) return 0;
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, cap);
  size_t start = c.pos;
  uint64_t written = 0;
  const uint8_t *out = NULL;
  size_t len = 0;
  int rc = build_dump(&b, &c, &written, &out, &len);
  if (rc != ETK_OK && rc != ETK_E_NO_MEMORY) abort();
  if (rc == ETK_OK) {
    int prefixed = len >= 4 && etk_fb_load_u32(out) == len - 4;
    etk_fb_verify_options_t opt = {0};
    opt.size_prefixed = prefixed;
    uint32_t root = 0;
    if (etk_fb_verify(out, len, &etk_etdump_schema, &opt, &root, NULL) !=
        ETK_OK)
      abort();
    if (read_table(etk_fb_root(out, root), &etk_etdump_schema) != written)
      abort();
    /* same input, roomy buffer: same bytes unless a block was dropped in
     * the small one (then the roomy build keeps it) */
    static _Alignas(8) uint8_t roomy[1 << 16];
    etk_fb_builder_t b2;
    etk_fb_builder_init(&b2, roomy, sizeof roomy);
    cursor_t c2 = {data, size, start};
    uint64_t written2 = 0;
    const uint8_t *out2;
    size_t len2;
    if (build_dump(&b2, &c2, &written2, &out2, &len2) != ETK_OK) abort();
    if (written2 == written && (len2 != len || memcmp(out, out2, len) != 0))
      abort();
  }
  free(mem);
  return 0;
}
