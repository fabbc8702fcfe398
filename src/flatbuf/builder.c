/*
 * builder.c - the no-heap FlatBuffers builder (see etkit/flatbuf.h).
 *
 * PURPOSE
 *   Serialise FlatBuffers into memory the caller owns, on a microcontroller
 *   as well as on a host: no malloc, no OS, only memcpy/memset/memcmp.  The
 *   ETDump recorder is the main user; the layout rules follow
 *   docs etdump-recorder.md section 4.5 so that, fed the same call sequence
 *   as upstream's flatcc-based writer, we produce the same bytes.
 *
 * DATA LAYOUT
 *   The buffer fills from its end towards its start.  `used` is the distance
 *   from the end to the lowest byte written so far (the "front"); a new
 *   object of n bytes is written at end - used - n and `used` grows by n.
 *   An object is named by its ref = `used` just after it was written, i.e.
 *   the distance from the end to its first byte.  Refs stay valid because
 *   nothing already written ever moves.
 *
 *     string    [u32 len][bytes][NUL][0..3 zero pad]            4-aligned
 *     vector    [u32 count][elements][zero pad]   elements max(align,4)-aligned
 *     vtable    [u16 vtable bytes][u16 table bytes][u16 field pos]...
 *     table     [i32 soffset = table - vtable][fields][zero pad]
 *                 the field area (after the soffset) is aligned to the
 *                 table's largest scalar, at least 4
 *     header    [u32 size if prefixed][u32 root][4-byte ident][zero pad]
 *
 *   Offsets stored in the buffer (uoffsets) are "target - own address", and
 *   with back-to-front building the target always lies at a higher address,
 *   so they are positive.  In ref terms: value = ref(holder) - ref(target).
 *
 *   A table is assembled in b->data (fields packed in the order they are
 *   added, each at the next multiple of its size) and copied out by
 *   etk_fb_table_end(), which first emits its vtable unless an identical one
 *   in the same hash bucket was emitted before (flatcc's sharing rule).
 *
 * INVARIANTS
 *   - used <= cap, and used is always even (all objects have even sizes and
 *     start at even distances), so vtables are at least 2-aligned.
 *   - Every byte in [end - used, end) was written by us (pads are zeroed),
 *     so a rollback followed by new objects never exposes stale bytes.
 *   - Before writing anything, an operation checks that all of its bytes fit;
 *     on failure it writes nothing and records ETK_E_NO_MEMORY.  Hence a
 *     failed build never corrupts what was built before the failure.
 *   - Errors are sticky: once status != ETK_OK every call is a no-op that
 *     returns 0, until reset or rollback.
 *   - Alignment is relative to the END; the header pad makes the final
 *     `used` a multiple of max_align, so it holds relative to the start too.
 */
#include <string.h>

#include "etkit/flatbuf.h"
#include "scalar_fields.h"

/* Finished buffers are at least this aligned in memory (see init). */
#define ETK_FB_END_ALIGN 8u
/* Largest capacity accepted; keeps every sum below in 32 bits. */
#define ETK_FB_MAX_CAPACITY 0x80000000u
/* Largest element/struct alignment accepted. */
#define ETK_FB_MAX_ALIGN 64u

/* flatcc's vtable hash (docs etdump-recorder.md 4.5 step 3). */
#define ETK_FB_HASH_SEED 0x2F693B52u
#define ETK_FB_HASH_MULTIPLIER 2654435761u

static void store_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void store_u32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static int is_power_of_two(size_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

/* Records the first error; later ones are ignored. */
static void builder_fail(etk_fb_builder_t *b, int status) {
  if (b->status == ETK_OK) b->status = status;
}

/* Pad bytes needed before an object of n bytes so that its start is a
 * multiple of `align` from the end (align is a power of two). */
static uint32_t pad_for(uint32_t used, uint32_t n, uint32_t align) {
  return (0u - used - n) & (align - 1u);
}

static void raise_align(etk_fb_builder_t *b, uint32_t align) {
  if (align > b->max_align) b->max_align = align;
}

/* Pointer to the first byte of a region of n bytes just below the front, or
 * NULL (and ETK_E_NO_MEMORY) if it does not fit.  Does not move the front. */
static uint8_t *front_reserve(etk_fb_builder_t *b, uint64_t n) {
  if (n > (uint64_t)(b->cap - b->used)) {
    builder_fail(b, ETK_E_NO_MEMORY);
    return NULL;
  }
  return b->buf + (b->cap - b->used - (uint32_t)n);
}

/* Common gate of every building call. */
static int builder_usable(etk_fb_builder_t *b) {
  if (b == NULL) return 0;
  if (b->status != ETK_OK) return 0;
  if (b->finished) {
    builder_fail(b, ETK_E_INVALID_STATE);
    return 0;
  }
  return 1;
}

/* A ref can be stored only if it names an object already written. */
static int ref_valid(const etk_fb_builder_t *b, etk_fb_ref_t ref) {
  return ref != 0 && ref <= b->used;
}

int etk_fb_builder_init(etk_fb_builder_t *b, void *buf, size_t cap) {
  if (b == NULL) return ETK_E_INVALID_ARGUMENT;
  memset(b, 0, sizeof *b);
  b->max_align = 1;
  if (buf == NULL || cap > ETK_FB_MAX_CAPACITY) {
    b->status = ETK_E_INVALID_ARGUMENT;
    return b->status;
  }
  b->buf = (uint8_t *)buf;
  {
    /* Trim so that buf + cap is 8-aligned in memory. */
    uintptr_t end = (uintptr_t)b->buf + cap;
    size_t trim = (size_t)(end & (ETK_FB_END_ALIGN - 1u));
    cap = trim <= cap ? cap - trim : 0;
  }
  b->cap = (uint32_t)cap;
  return ETK_OK;
}

void etk_fb_builder_reset(etk_fb_builder_t *b) {
  if (b == NULL) return;
  b->used = 0;
  b->max_align = 1;
  b->status = b->buf != NULL ? ETK_OK : ETK_E_INVALID_ARGUMENT;
  b->table_open = 0;
  b->vtable_count = 0;
  b->finished = 0;
}

int etk_fb_builder_status(const etk_fb_builder_t *b) {
  return b != NULL ? b->status : ETK_E_INVALID_ARGUMENT;
}

size_t etk_fb_builder_size(const etk_fb_builder_t *b) {
  return b != NULL ? b->used : 0;
}

size_t etk_fb_builder_available(const etk_fb_builder_t *b) {
  return b != NULL ? (size_t)(b->cap - b->used) : 0;
}

etk_fb_builder_mark_t etk_fb_builder_mark(const etk_fb_builder_t *b) {
  etk_fb_builder_mark_t m;
  m.used = b != NULL ? b->used : 0;
  m.max_align = b != NULL ? b->max_align : 1;
  m.status = b != NULL ? b->status : ETK_E_INVALID_ARGUMENT;
  return m;
}

void etk_fb_builder_rollback(etk_fb_builder_t *b, etk_fb_builder_mark_t mark) {
  if (b == NULL || mark.used > b->used || b->finished) return;
  b->used = mark.used;
  b->max_align = mark.max_align;
  b->status = mark.status;
  b->table_open = 0;
  /* Forget cached vtables that were rolled back.  Survivors are copied out
   * first (oldest to newest) because compacting a ring in place would
   * overwrite entries not yet read. */
  {
    uint32_t refs[ETK_FB_VTABLE_CACHE];
    uint8_t buckets[ETK_FB_VTABLE_CACHE];
    uint32_t kept = 0, n = b->vtable_count < ETK_FB_VTABLE_CACHE
                               ? b->vtable_count
                               : ETK_FB_VTABLE_CACHE;
    uint32_t first = b->vtable_count - n;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t slot = (first + i) % ETK_FB_VTABLE_CACHE;
      if (b->vtable_refs[slot] <= b->used) {
        refs[kept] = b->vtable_refs[slot];
        buckets[kept] = b->vtable_buckets[slot];
        kept++;
      }
    }
    memcpy(b->vtable_refs, refs, kept * sizeof refs[0]);
    memcpy(b->vtable_buckets, buckets, kept);
    b->vtable_count = kept;
  }
}

/* ------------------------------------------------------------ strings */

etk_fb_ref_t etk_fb_create_string(etk_fb_builder_t *b, const char *s,
                                  size_t n) {
  if (!builder_usable(b)) return 0;
  if (b->table_open) {
    builder_fail(b, ETK_E_INVALID_STATE);
    return 0;
  }
  if (s == NULL && n != 0) {
    builder_fail(b, ETK_E_INVALID_ARGUMENT);
    return 0;
  }
  if (n > ETK_FB_MAX_CAPACITY) {
    builder_fail(b, ETK_E_NO_MEMORY);
    return 0;
  }
  {
    uint32_t len = (uint32_t)n;
    /* NUL + pad so that the length field lands 4-aligned. */
    uint32_t tail = pad_for(b->used, len + 1u, 4u) + 1u;
    uint8_t *p = front_reserve(b, (uint64_t)4 + len + tail);
    if (p == NULL) return 0;
    store_u32(p, len);
    if (len) memcpy(p + 4, s, len);
    memset(p + 4 + len, 0, tail);
    b->used += 4u + len + tail;
    raise_align(b, 4u);
    return b->used;
  }
}

/* ------------------------------------------------------------ vectors */

etk_fb_ref_t etk_fb_create_vector(etk_fb_builder_t *b, const void *elems,
                                  size_t count, size_t elem_size,
                                  size_t elem_align) {
  if (!builder_usable(b)) return 0;
  if (b->table_open) {
    builder_fail(b, ETK_E_INVALID_STATE);
    return 0;
  }
  if ((elems == NULL && count != 0) || elem_size == 0 ||
      !is_power_of_two(elem_align) || elem_align > ETK_FB_MAX_ALIGN) {
    builder_fail(b, ETK_E_INVALID_ARGUMENT);
    return 0;
  }
  if (count > ETK_FB_MAX_CAPACITY / elem_size) {
    builder_fail(b, ETK_E_NO_MEMORY);
    return 0;
  }
  {
    uint32_t bytes = (uint32_t)(count * elem_size);
    uint32_t align = elem_align < 4u ? 4u : (uint32_t)elem_align;
    uint32_t tail = pad_for(b->used, bytes, align);
    uint8_t *p = front_reserve(b, (uint64_t)4 + bytes + tail);
    if (p == NULL) return 0;
    store_u32(p, (uint32_t)count);
    if (bytes) memcpy(p + 4, elems, bytes);
    memset(p + 4 + bytes, 0, tail);
    b->used += 4u + bytes + tail;
    raise_align(b, align);
    return b->used;
  }
}

/* Shared by the two offset-vector entry points: exactly one of refs/get is
 * used.  All refs are validated before anything is written. */
static etk_fb_ref_t create_offset_vector(etk_fb_builder_t *b,
                                         const etk_fb_ref_t *refs, size_t count,
                                         etk_fb_ref_t (*get)(void *, size_t),
                                         void *ctx) {
  if (!builder_usable(b)) return 0;
  if (b->table_open) {
    builder_fail(b, ETK_E_INVALID_STATE);
    return 0;
  }
  if ((refs == NULL && get == NULL && count != 0)) {
    builder_fail(b, ETK_E_INVALID_ARGUMENT);
    return 0;
  }
  if (count > ETK_FB_MAX_CAPACITY / 4u) {
    builder_fail(b, ETK_E_NO_MEMORY);
    return 0;
  }
  for (size_t i = 0; i < count; i++) {
    etk_fb_ref_t r = refs != NULL ? refs[i] : get(ctx, i);
    if (!ref_valid(b, r)) {
      builder_fail(b, ETK_E_INVALID_ARGUMENT);
      return 0;
    }
  }
  {
    uint32_t bytes = (uint32_t)count * 4u;
    uint32_t tail = pad_for(b->used, bytes, 4u);
    uint8_t *p = front_reserve(b, (uint64_t)4 + bytes + tail);
    if (p == NULL) return 0;
    uint32_t vector_ref = b->used + 4u + bytes + tail;
    store_u32(p, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
      etk_fb_ref_t r = refs != NULL ? refs[i] : get(ctx, i);
      /* element i sits at ref vector_ref - 4 - 4i */
      store_u32(p + 4 + 4 * i, vector_ref - 4u - 4u * (uint32_t)i - r);
    }
    memset(p + 4 + bytes, 0, tail);
    b->used = vector_ref;
    raise_align(b, 4u);
    return b->used;
  }
}

etk_fb_ref_t etk_fb_create_offset_vector(etk_fb_builder_t *b,
                                         const etk_fb_ref_t *refs,
                                         size_t count) {
  return create_offset_vector(b, refs, count, NULL, NULL);
}

etk_fb_ref_t etk_fb_create_offset_vector_cb(etk_fb_builder_t *b, size_t count,
                                            etk_fb_ref_t (*get)(void *ctx,
                                                                size_t i),
                                            void *ctx) {
  if (get == NULL && count != 0) {
    if (builder_usable(b)) builder_fail(b, ETK_E_INVALID_ARGUMENT);
    return 0;
  }
  return create_offset_vector(b, NULL, count, get, ctx);
}

/* ------------------------------------------------------------ tables */

int etk_fb_table_start(etk_fb_builder_t *b) {
  if (!builder_usable(b)) return b != NULL ? b->status : ETK_E_INVALID_ARGUMENT;
  if (b->table_open) {
    builder_fail(b, ETK_E_INVALID_STATE);
    return b->status;
  }
  b->table_open = 1;
  b->field_count = 0;
  b->table_bytes = 0;
  b->table_align = 4;
  b->write_count = 0;
  memset(b->fields, 0, sizeof b->fields);
  return ETK_OK;
}

/* Reserves room for field `id` of `size` bytes aligned to `align` in the
 * table under construction and returns its position in b->data, or -1. */
static int field_place(etk_fb_builder_t *b, unsigned id, size_t size,
                       size_t align, int is_ref) {
  if (!builder_usable(b)) return -1;
  if (!b->table_open) {
    builder_fail(b, ETK_E_INVALID_STATE);
    return -1;
  }
  if (id >= ETK_FB_MAX_FIELDS) {
    builder_fail(b, ETK_E_LIMIT);
    return -1;
  }
  if (b->fields[id].size != 0) {
    builder_fail(b, ETK_E_INVALID_ARGUMENT);
    return -1;
  }
  {
    size_t pos = ((size_t)b->table_bytes + align - 1u) & ~(align - 1u);
    if (size > ETK_FB_MAX_TABLE_BYTES || pos > ETK_FB_MAX_TABLE_BYTES - size) {
      builder_fail(b, ETK_E_LIMIT);
      return -1;
    }
    /* zero the alignment gap: it becomes part of the table bytes */
    memset(b->data + b->table_bytes, 0, pos - b->table_bytes);
    b->fields[id].position = (uint16_t)(pos + 4u);
    b->fields[id].size = (uint8_t)size;
    b->fields[id].is_ref = (uint8_t)is_ref;
    b->write_order[b->write_count++] = (uint8_t)id;
    b->table_bytes = (uint16_t)(pos + size);
    if (id + 1u > b->field_count) b->field_count = (uint16_t)(id + 1u);
    if (!is_ref && align > b->table_align) b->table_align = (uint16_t)align;
    return (int)pos;
  }
}

/* Little-endian scalar of `size` bytes taken from the low bytes of v. */
static void add_scalar_bits(etk_fb_builder_t *b, unsigned id, uint64_t v,
                            size_t size) {
  int pos = field_place(b, id, size, size, 0);
  if (pos < 0) return;
  for (size_t i = 0; i < size; i++)
    b->data[(size_t)pos + i] = (uint8_t)(v >> (8 * i));
}

/* Whether a value equal to its default should be skipped.  Also validates
 * the call so that a skipped field still reports misuse. */
static int skip_default(etk_fb_builder_t *b, unsigned id, int is_default,
                        int flags) {
  if (!builder_usable(b)) return 1;
  if (!b->table_open) {
    builder_fail(b, ETK_E_INVALID_STATE);
    return 1;
  }
  if (id >= ETK_FB_MAX_FIELDS) {
    builder_fail(b, ETK_E_LIMIT);
    return 1;
  }
  return is_default && !(flags & ETK_FB_FORCE);
}

void etk_fb_add_bool(etk_fb_builder_t *b, unsigned id, int v, int def,
                     int flags) {
  int value = v != 0, default_value = def != 0;
  if (skip_default(b, id, value == default_value, flags)) return;
  add_scalar_bits(b, id, (uint64_t)value, 1);
}

/* etk_fb_add_u8 ... etk_fb_add_f64.  Floats are compared with == like
 * flatcc does: -0.0 equals a 0.0 default and is skipped, NaN never equals
 * anything and is always written. */
#define DEFINE_ADD(name, ctype, bits, family)                                  \
  void etk_fb_add_##name(etk_fb_builder_t *b, unsigned id, ctype v, ctype def, \
                         int flags) {                                          \
    uint##bits##_t raw;                                                        \
    if (skip_default(b, id, v == def, flags)) return;                          \
    ETK_FB_TO_BITS_##family(v, raw);                                           \
    add_scalar_bits(b, id, raw, (bits) / 8);                                   \
  }
ETK_FB_SCALAR_FIELDS(DEFINE_ADD)
#undef DEFINE_ADD

void etk_fb_add_ref(etk_fb_builder_t *b, unsigned id, etk_fb_ref_t ref) {
  int pos;
  if (ref == 0) return;
  if (!builder_usable(b)) return;
  if (!ref_valid(b, ref)) {
    builder_fail(b, ETK_E_INVALID_ARGUMENT);
    return;
  }
  pos = field_place(b, id, 4, 4, 1);
  if (pos < 0) return;
  /* the target's ref for now; turned into a uoffset by etk_fb_table_end */
  store_u32(b->data + pos, ref);
}

void etk_fb_add_struct(etk_fb_builder_t *b, unsigned id, const void *data,
                       size_t size, size_t align) {
  int pos;
  if (!builder_usable(b)) return;
  if (data == NULL || size == 0 || size > 255 || !is_power_of_two(align) ||
      align > ETK_FB_MAX_ALIGN) {
    builder_fail(b, ETK_E_INVALID_ARGUMENT);
    return;
  }
  pos = field_place(b, id, size, align, 0);
  if (pos < 0) return;
  memcpy(b->data + pos, data, size);
}

/* The vtable of the open table in wire format; returns its byte size. */
static uint32_t vtable_encode(const etk_fb_builder_t *b,
                              uint8_t out[4 + 2 * ETK_FB_MAX_FIELDS]) {
  uint32_t n = b->field_count;
  store_u16(out, (uint16_t)(4u + 2u * n));
  store_u16(out + 2, (uint16_t)(4u + b->table_bytes));
  for (uint32_t id = 0; id < n; id++)
    store_u16(out + 4 + 2 * id,
              b->fields[id].size ? b->fields[id].position : 0);
  return 4u + 2u * n;
}

static uint32_t hash_step(uint32_t h, uint32_t a, uint32_t c) {
  h = (a ^ h) * ETK_FB_HASH_MULTIPLIER;
  return (h ^ c) * ETK_FB_HASH_MULTIPLIER;
}

/* Bucket (0..63) of the open table's vtable, computed the way flatcc does,
 * so that we share vtables exactly when upstream's writer does. */
static uint8_t vtable_bucket(const etk_fb_builder_t *b, uint32_t vtable_size) {
  uint32_t h = ETK_FB_HASH_SEED;
  for (uint32_t i = 0; i < b->write_count; i++) {
    unsigned id = b->write_order[i];
    h = hash_step(h, id, b->fields[id].size);
  }
  h = hash_step(h, vtable_size, 4u + b->table_bytes);
  return (uint8_t)(h >> 26);
}

/* Ref of an identical cached vtable in the same bucket, or 0. */
static uint32_t vtable_find(const etk_fb_builder_t *b, const uint8_t *vtable,
                            uint32_t size, uint8_t bucket) {
  uint32_t n = b->vtable_count < ETK_FB_VTABLE_CACHE ? b->vtable_count
                                                     : ETK_FB_VTABLE_CACHE;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t ref = b->vtable_refs[i];
    if (b->vtable_buckets[i] != bucket || ref > b->used || ref < size) continue;
    if (memcmp(b->buf + (b->cap - ref), vtable, size) == 0) return ref;
  }
  return 0;
}

etk_fb_ref_t etk_fb_table_end(etk_fb_builder_t *b) {
  uint8_t vtable[4 + 2 * ETK_FB_MAX_FIELDS];
  if (!builder_usable(b)) {
    if (b != NULL) b->table_open = 0;
    return 0;
  }
  if (!b->table_open) {
    builder_fail(b, ETK_E_INVALID_STATE);
    return 0;
  }
  b->table_open = 0;
  {
    uint32_t vtable_size = vtable_encode(b, vtable);
    uint8_t bucket = vtable_bucket(b, vtable_size);
    uint32_t vtable_ref = vtable_find(b, vtable, vtable_size, bucket);
    uint32_t emit = vtable_ref ? 0u : vtable_size;
    uint32_t data_bytes = b->table_bytes;
    uint32_t align = b->table_align;
    uint32_t tail = pad_for(b->used + emit, data_bytes, align);
    uint32_t total = emit + tail + data_bytes + 4u;
    uint8_t *p = front_reserve(b, total);
    uint32_t table_ref;
    if (p == NULL) return 0;
    /* p .. p+total: [soffset][data][tail][vtable if emitted] */
    table_ref = b->used + total;
    if (emit) {
      memcpy(p + total - emit, vtable, emit);
      vtable_ref = b->used + emit;
      {
        uint32_t slot = b->vtable_count % ETK_FB_VTABLE_CACHE;
        b->vtable_refs[slot] = vtable_ref;
        b->vtable_buckets[slot] = bucket;
        b->vtable_count++;
      }
    }
    /* soffset = table address - vtable address = vtable_ref - table_ref */
    store_u32(p, (uint32_t)vtable_ref - table_ref);
    memcpy(p + 4, b->data, data_bytes);
    memset(p + 4 + data_bytes, 0, tail);
    for (unsigned id = 0; id < b->field_count; id++) {
      const etk_fb_field_slot_t *f = &b->fields[id];
      if (f->size == 0 || !f->is_ref) continue;
      {
        uint8_t *field = p + f->position;
        uint32_t target = (uint32_t)field[0] | (uint32_t)field[1] << 8 |
                          (uint32_t)field[2] << 16 | (uint32_t)field[3] << 24;
        uint32_t field_ref = table_ref - f->position;
        store_u32(field, field_ref - target);
      }
    }
    b->used = table_ref;
    raise_align(b, align);
    return table_ref;
  }
}

/* ------------------------------------------------------------ finish */

int etk_fb_finish(etk_fb_builder_t *b, etk_fb_ref_t root, const char *ident,
                  int size_prefixed, const uint8_t **out, size_t *len) {
  if (out != NULL) *out = NULL;
  if (len != NULL) *len = 0;
  if (b == NULL) return ETK_E_INVALID_ARGUMENT;
  if (!builder_usable(b)) return b->status;
  if (b->table_open) {
    builder_fail(b, ETK_E_INVALID_STATE);
    return b->status;
  }
  if (!ref_valid(b, root) || out == NULL || len == NULL) {
    builder_fail(b, ETK_E_INVALID_ARGUMENT);
    return b->status;
  }
  {
    uint32_t header = (size_prefixed ? 4u : 0u) + 4u + (ident ? 4u : 0u);
    uint32_t align = b->max_align < 4u ? 4u : b->max_align;
    uint32_t tail = pad_for(b->used, header, align);
    uint8_t *p = front_reserve(b, (uint64_t)header + tail);
    uint32_t start, root_field;
    if (p == NULL) return b->status;
    start = b->used + header + tail;
    root_field = size_prefixed ? 4u : 0u;
    if (size_prefixed) store_u32(p, start - 4u);
    /* root uoffset is relative to its own position */
    store_u32(p + root_field, (start - root) - root_field);
    if (ident) memcpy(p + root_field + 4, ident, 4);
    memset(p + header, 0, tail);
    b->used = start;
    b->finished = 1;
    *out = p;
    *len = start;
    return ETK_OK;
  }
}
