/*
 * finish.c - turns the recorder's records into one size-prefixed ETDump
 * FlatBuffer ("ED00"), in a single pass, in memory reserved in advance.
 *
 * PURPOSE
 *   The hot path only appends compact records; this file is the one place
 *   that knows the ETDump schema's tables, field ids, presence rules and
 *   write orders.  It is called rarely (once per dump), so it favours
 *   clarity over speed.
 *
 * DATA LAYOUT (scratch, at the start of the arena's free space)
 *
 *   [etk_fb_builder_t][u32 block refs x (blocks + 1)][u32 items x max_items]
 *   [u32 list refs x max_list] [ FlatBuffer, built back to front ... ]
 *
 *   Keeping the builder itself in the arena keeps the stack use of finish
 *   small (an MCU thread may have a 1 KiB stack).  "items" holds the refs of
 *   the current block's allocators, then of its events, for the two offset
 *   vectors; "list refs" those of one tensor list's tensors.
 *
 * WHAT IS WRITTEN (doc etdump-recorder.md 4.3; field ids in etkit/schema.h)
 *   - ETDump {run_data}; version 0 is the default and stays absent.
 *   - RunData {name, bundled_input_index if set (upstream never writes it,
 *     bug B1), allocators if any, events if the block's events were ever
 *     opened (possibly empty)}; then, if anything was dropped, a last
 *     RunData named "etkit:dropped_events=N[,blocks=M][,allocators=K]" with
 *     no events (upstream's Inspector skips runs without events); before
 *     it, when a record holds a STATS vector, the RunData named
 *     ETK_TENSOR_STATS_MARKER (debug_stats.c), when the recorder holds a
 *     calibration, the RunData
 *     "etkit:calibration=..." (calibrate.c), also without events, and,
 *     in a flight-recorder snapshot, the RunData "etkit:trigger=..."
 *     (trigger.c), also without events.
 *   - Stats mode (stats.c): each block's RunData ends with one
 *     ProfileEvent per latency key of the block (start 0, end the median),
 *     and after the blocks comes "etkit:latency_sketches=..." whose
 *     Allocators carry the sketches (etkit/recorder.h "STATS MODE").
 *   - ProfileEvent: start_time, end_time, chain_index (skipped when 0),
 *     instruction_id (always), name (if any); delegate events add
 *     delegate_debug_id_int or _str and always delegate_debug_metadata.
 *   - AllocationEvent: allocation_size, allocator_id.
 *   - DebugEvent: chain_index as uint64 (unset chain -1 -> 2^64-1; skipped
 *     when 0), instruction_id, delegate id if any, debug_entry = Value
 *     {val, tensor | tensor_list | int_value | double_value | bool_value,
 *     output = Bool(true) for program-output tensors and lists}; Tensor
 *     {scalar_type, sizes, strides, offset}.
 *   Scalars that upstream would skip when they equal the schema default but
 *   that carry no presence meaning (times, ids, sizes, dtype BYTE, offset 0,
 *   int/bool/double payloads) are written anyway (ETK_FB_FORCE): readers
 *   see the same values, and the set of table shapes stays small, which is
 *   what lets record.c bound the vtable bytes (recorder_internal.h).
 *   Every repeated string (names, ids) is written once and shared.
 *
 * INVARIANTS
 *   - Records are only read; a second finish rebuilds the same bytes.
 *   - The builder's region is at least the reservation; the result must
 *     not exceed it (checked: ETK_E_INTERNAL otherwise, so tests and the
 *     fuzzer catch any reservation bug).
 */
#include <string.h>

#include "etkit/schema.h"
#include "recorder_internal.h"

typedef struct finish_ctx {
  etk_recorder_t *rec;
  etk_fb_builder_t *b;
  uint32_t *block_refs;
  uint32_t *items;
  uint32_t *list;
  /* stats mode: per key, the RunData and event index of its
   * representative ProfileEvent; the serialisation and text buffers */
  uint32_t *where;
  uint8_t *sketch_bytes;
  char *text;
  uint32_t run_index; /* RunData index of the block being closed */
} finish_ctx_t;

static etk_fb_ref_t name_ref(finish_ctx_t *f, etk_recorder_name_t id) {
  rec_string_t *e;
  if (id == 0 || id > f->rec->string_count) return 0;
  e = rec_string(f->rec, id);
  if (e->ref == 0)
    e->ref = etk_fb_create_string(
        f->b, (const char *)rec_base(f->rec) + e->offset, e->len);
  return e->ref;
}

static etk_fb_ref_t event_wrap(finish_ctx_t *f, unsigned field,
                               etk_fb_ref_t sub) {
  etk_fb_table_start(f->b);
  etk_fb_add_ref(f->b, field, sub);
  return etk_fb_table_end(f->b);
}

/* The fields operator and delegate ProfileEvents share, in the order both
 * write them. */
static void add_profile_fields(etk_fb_builder_t *b, uint64_t start,
                               uint64_t end, int32_t chain,
                               uint32_t instruction) {
  etk_fb_add_u64(b, ETK_ETDUMP_PROFILE_EVENT_START_TIME, start, 0,
                 ETK_FB_FORCE);
  etk_fb_add_u64(b, ETK_ETDUMP_PROFILE_EVENT_END_TIME, end, 0, ETK_FB_FORCE);
  etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, chain,
                 ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX_DEFAULT, 0);
  etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID,
                 (int32_t)instruction,
                 ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID_DEFAULT, ETK_FB_FORCE);
}

static etk_fb_ref_t emit_profile(finish_ctx_t *f, const uint8_t *p) {
  rec_profile_t r;
  etk_fb_ref_t name, pe;
  etk_fb_builder_t *b = f->b;
  memcpy(&r, p, sizeof r);
  name = name_ref(f, r.name);
  etk_fb_table_start(b);
  add_profile_fields(b, r.start, r.end, r.chain, r.instruction);
  if (name != 0) etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_NAME, name);
  pe = etk_fb_table_end(b);
  return event_wrap(f, ETK_ETDUMP_EVENT_PROFILE_EVENT, pe);
}

static etk_fb_ref_t emit_delegate(finish_ctx_t *f, const uint8_t *p) {
  rec_delegate_t r;
  etk_fb_ref_t id_str = 0, metadata, pe;
  etk_fb_builder_t *b = f->b;
  memcpy(&r, p, sizeof r);
  if (r.flags & DELEGATE_ID_STR) id_str = name_ref(f, r.id);
  metadata = etk_fb_create_vector(b, p + sizeof r, r.metadata_len, 1, 1);
  etk_fb_table_start(b);
  add_profile_fields(b, r.start, r.end, r.chain, r.instruction);
  if (r.flags & DELEGATE_ID_STR)
    etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR, id_str);
  else
    etk_fb_add_i32(
        b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, (int32_t)r.id,
        ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT_DEFAULT, ETK_FB_FORCE);
  etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA, metadata);
  pe = etk_fb_table_end(b);
  return event_wrap(f, ETK_ETDUMP_EVENT_PROFILE_EVENT, pe);
}

static etk_fb_ref_t emit_allocation(finish_ctx_t *f, const uint8_t *p) {
  rec_allocation_t r;
  etk_fb_ref_t ae;
  etk_fb_builder_t *b = f->b;
  memcpy(&r, p, sizeof r);
  /* flatcc's generated create puts the largest field first: size, then id */
  etk_fb_table_start(b);
  etk_fb_add_u64(b, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE, r.size, 0,
                 ETK_FB_FORCE);
  etk_fb_add_i32(b, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID,
                 (int32_t)r.allocator_id, 0, ETK_FB_FORCE);
  ae = etk_fb_table_end(b);
  return event_wrap(f, ETK_ETDUMP_EVENT_ALLOCATION_EVENT, ae);
}

/* One Tensor table from a rec_tensor_t at p; *next gets the byte after it. */
static etk_fb_ref_t emit_tensor(finish_ctx_t *f, const uint8_t *p,
                                const uint8_t **next) {
  rec_tensor_t h;
  etk_fb_ref_t sizes, strides;
  etk_fb_builder_t *b = f->b;
  memcpy(&h, p, sizeof h);
  p += sizeof h;
  sizes = etk_fb_create_vector(b, p, h.dim, 8, 8);
  strides = etk_fb_create_vector(b, p + 8u * h.dim, h.dim, 8, 8);
  *next = p + 16u * h.dim;
  etk_fb_table_start(b);
  etk_fb_add_i8(b, ETK_ETDUMP_TENSOR_SCALAR_TYPE, (int8_t)h.scalar_type, 0,
                ETK_FB_FORCE);
  etk_fb_add_ref(b, ETK_ETDUMP_TENSOR_SIZES, sizes);
  etk_fb_add_ref(b, ETK_ETDUMP_TENSOR_STRIDES, strides);
  etk_fb_add_i64(b, ETK_ETDUMP_TENSOR_OFFSET, h.offset, 0, ETK_FB_FORCE);
  return etk_fb_table_end(b);
}

static etk_fb_ref_t bool_table(etk_fb_builder_t *b, int v) {
  etk_fb_table_start(b);
  etk_fb_add_bool(b, ETK_ETDUMP_BOOL_BOOL_VAL, v, 0, ETK_FB_FORCE);
  return etk_fb_table_end(b);
}

static etk_fb_ref_t emit_value(finish_ctx_t *f, const rec_debug_t *r,
                               const uint8_t *p) {
  etk_fb_builder_t *b = f->b;
  etk_fb_ref_t payload, output = 0;
  switch (r->value_kind) {
    case ETK_RECORDER_VALUE_INT:
      etk_fb_table_start(b);
      etk_fb_add_i64(b, ETK_ETDUMP_INT_INT_VAL, r->value.i, 0, ETK_FB_FORCE);
      payload = etk_fb_table_end(b);
      etk_fb_table_start(b);
      etk_fb_add_i8(b, ETK_ETDUMP_VALUE_VAL, ETK_ETDUMP_VALUE_TYPE_INT, 0, 0);
      etk_fb_add_ref(b, ETK_ETDUMP_VALUE_INT_VALUE, payload);
      return etk_fb_table_end(b);
    case ETK_RECORDER_VALUE_DOUBLE:
      etk_fb_table_start(b);
      etk_fb_add_f64(b, ETK_ETDUMP_DOUBLE_DOUBLE_VAL, r->value.d, 0.0,
                     ETK_FB_FORCE);
      payload = etk_fb_table_end(b);
      etk_fb_table_start(b);
      etk_fb_add_ref(b, ETK_ETDUMP_VALUE_DOUBLE_VALUE, payload);
      etk_fb_add_i8(b, ETK_ETDUMP_VALUE_VAL, ETK_ETDUMP_VALUE_TYPE_DOUBLE, 0,
                    0);
      return etk_fb_table_end(b);
    case ETK_RECORDER_VALUE_BOOL:
      payload = bool_table(b, r->value.u != 0);
      etk_fb_table_start(b);
      etk_fb_add_ref(b, ETK_ETDUMP_VALUE_BOOL_VALUE, payload);
      etk_fb_add_i8(b, ETK_ETDUMP_VALUE_VAL, ETK_ETDUMP_VALUE_TYPE_BOOL, 0, 0);
      return etk_fb_table_end(b);
    case ETK_RECORDER_VALUE_TENSOR:
      payload = emit_tensor(f, p, &p);
      if (r->flags & DEBUG_OUTPUT) output = bool_table(b, 1);
      etk_fb_table_start(b);
      etk_fb_add_i8(b, ETK_ETDUMP_VALUE_VAL, ETK_ETDUMP_VALUE_TYPE_TENSOR, 0,
                    0);
      etk_fb_add_ref(b, ETK_ETDUMP_VALUE_TENSOR, payload);
      if (output) etk_fb_add_ref(b, ETK_ETDUMP_VALUE_OUTPUT, output);
      return etk_fb_table_end(b);
    default: { /* ETK_RECORDER_VALUE_TENSOR_LIST */
      etk_fb_ref_t vec;
      for (uint32_t i = 0; i < r->tensor_count; i++)
        f->list[i] = emit_tensor(f, p, &p);
      vec = etk_fb_create_offset_vector(b, f->list, r->tensor_count);
      etk_fb_table_start(b);
      etk_fb_add_ref(b, ETK_ETDUMP_TENSOR_LIST_TENSORS, vec);
      payload = etk_fb_table_end(b);
      if (r->flags & DEBUG_OUTPUT) output = bool_table(b, 1);
      etk_fb_table_start(b);
      etk_fb_add_i8(b, ETK_ETDUMP_VALUE_VAL, ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST,
                    0, 0);
      etk_fb_add_ref(b, ETK_ETDUMP_VALUE_TENSOR_LIST, payload);
      if (output) etk_fb_add_ref(b, ETK_ETDUMP_VALUE_OUTPUT, output);
      return etk_fb_table_end(b);
    }
  }
}

static etk_fb_ref_t emit_debug(finish_ctx_t *f, const uint8_t *p) {
  rec_debug_t r;
  etk_fb_ref_t id_str = 0, value, de;
  etk_fb_builder_t *b = f->b;
  memcpy(&r, p, sizeof r);
  if (r.flags & DEBUG_DELEGATE_STR) id_str = name_ref(f, r.delegate_id);
  value = emit_value(f, &r, p + sizeof r);
  etk_fb_table_start(b);
  /* ulong chain: the int32 chain sign-extended, so unset -1 is 2^64-1 */
  etk_fb_add_u64(b, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX,
                 (uint64_t)(int64_t)r.chain,
                 ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX_DEFAULT, 0);
  etk_fb_add_i32(b, ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID,
                 (int32_t)r.instruction,
                 ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID_DEFAULT, ETK_FB_FORCE);
  if (r.flags & DEBUG_DELEGATE_INT)
    etk_fb_add_i32(
        b, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT, (int32_t)r.delegate_id,
        ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT_DEFAULT, ETK_FB_FORCE);
  if (r.flags & DEBUG_DELEGATE_STR)
    etk_fb_add_ref(b, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR, id_str);
  etk_fb_add_ref(b, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY, value);
  de = etk_fb_table_end(b);
  return event_wrap(f, ETK_ETDUMP_EVENT_DEBUG_EVENT, de);
}

/* Decimal text of v at out (no NUL); returns the length. */
static size_t format_u32(char *out, uint32_t v) {
  char tmp[10];
  size_t n = 0, i;
  do {
    tmp[n++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0);
  for (i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

static size_t append_text(char *out, size_t at, const char *s) {
  size_t n = strlen(s);
  memcpy(out + at, s, n);
  return at + n;
}

/* The dropped marker's name (<= REC_MARKER_MAX bytes). */
static size_t marker_name(const etk_recorder_t *rec, char *out) {
  size_t n = append_text(out, 0, "etkit:dropped_events=");
  n += format_u32(out + n, rec->dropped_events);
  if (rec->dropped_blocks) {
    n = append_text(out, n, ",blocks=");
    n += format_u32(out + n, rec->dropped_blocks);
  }
  if (rec->dropped_allocators) {
    n = append_text(out, n, ",allocators=");
    n += format_u32(out + n, rec->dropped_allocators);
  }
  return n;
}

/* ------------------------------------------------------------ stats mode */

/* A key's representative ProfileEvent: start 0, end the median duration
 * (ticks), the key's chain, instruction, name or delegate id; the shapes
 * are those rec_stats_key_cost charged. */
static etk_fb_ref_t emit_representative(finish_ctx_t *f,
                                        const etk_latency_entry_t *e) {
  etk_fb_builder_t *b = f->b;
  int32_t chain = (int32_t)(e->block >> 16) - 1;
  double p50 = 0.0;
  uint64_t end;
  etk_fb_ref_t pe;
  (void)etk_sketch_quantile(&e->sketch, 0.5, &p50);
  end = !(p50 > 0.0)                    ? 0u
        : p50 >= 18446744073709549568.0 ? UINT64_MAX
                                        : (uint64_t)(p50 + 0.5);
  if (e->delegate_id == ETK_DELEGATE_ID_UNSET) {
    etk_fb_ref_t name = name_ref(f, e->name);
    etk_fb_table_start(b);
    add_profile_fields(b, 0, end, chain, e->instruction);
    if (name != 0) etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_NAME, name);
    pe = etk_fb_table_end(b);
  } else {
    static const uint8_t none[1] = {0};
    int is_str = e->delegate_id == REC_STATS_DELEGATE_STR;
    etk_fb_ref_t id_str = is_str ? name_ref(f, e->name) : 0;
    etk_fb_ref_t metadata = etk_fb_create_vector(b, none, 0, 1, 1);
    etk_fb_table_start(b);
    add_profile_fields(b, 0, end, chain, e->instruction);
    if (is_str)
      etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR, id_str);
    else
      etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT,
                     (int32_t)e->delegate_id,
                     ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT_DEFAULT,
                     ETK_FB_FORCE);
    etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA,
                   metadata);
    pe = etk_fb_table_end(b);
  }
  return event_wrap(f, ETK_ETDUMP_EVENT_PROFILE_EVENT, pe);
}

/* Appends the representatives of the keys of block `name` to the items
 * (from *events on) and notes where each went. */
static void stats_block_events(finish_ctx_t *f, etk_recorder_name_t name,
                               uint32_t *events) {
  const etk_latency_table_t *t = &f->rec->latency;
  for (uint32_t i = 0; i < t->entries; i++) {
    const etk_latency_entry_t *e = &t->slots[i];
    if ((e->block & 0xFFFFu) != name || f->where[2u * i] != UINT32_MAX)
      continue;
    f->where[2u * i] = f->run_index;
    f->where[2u * i + 1u] = *events;
    f->items[(*events)++] = emit_representative(f, e);
  }
}

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* RFC 4648 base64 (padded) of in[0..n) at out; returns the length. */
static size_t base64(char *out, const uint8_t *in, size_t n) {
  size_t o = 0, i = 0;
  for (; i + 3u <= n; i += 3u) {
    uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1u] << 8 | in[i + 2u];
    out[o++] = b64[v >> 18];
    out[o++] = b64[(v >> 12) & 63u];
    out[o++] = b64[(v >> 6) & 63u];
    out[o++] = b64[v & 63u];
  }
  if (i < n) {
    uint32_t v = (uint32_t)in[i] << 16;
    if (i + 1u < n) v |= (uint32_t)in[i + 1u] << 8;
    out[o++] = b64[v >> 18];
    out[o++] = b64[(v >> 12) & 63u];
    out[o++] = i + 1u < n ? b64[(v >> 6) & 63u] : '=';
    out[o++] = '=';
  }
  return o;
}

/* The RunData "etkit:latency_sketches=..." (no events; one Allocator per
 * key named "r=R,e=E,s=BASE64"). */
static etk_fb_ref_t emit_sketches(finish_ctx_t *f) {
  const etk_latency_table_t *t = &f->rec->latency;
  etk_fb_builder_t *b = f->b;
  etk_fb_ref_t vec, name;
  uint32_t n = 0;
  size_t len;
  for (uint32_t i = 0; i < t->entries; i++) {
    size_t bytes = 0;
    etk_fb_ref_t text;
    if (f->where[2u * i] == UINT32_MAX) continue; /* NEVER: no block */
    (void)etk_sketch_serialize(&t->slots[i].sketch, f->sketch_bytes,
                               ETK_SKETCH_MAX_BYTES, &bytes);
    len = append_text(f->text, 0, "r=");
    len += format_u32(f->text + len, f->where[2u * i]);
    len = append_text(f->text, len, ",e=");
    len += format_u32(f->text + len, f->where[2u * i + 1u]);
    len = append_text(f->text, len, ",s=");
    len += base64(f->text + len, f->sketch_bytes, bytes);
    text = etk_fb_create_string(b, f->text, len);
    etk_fb_table_start(b);
    etk_fb_add_ref(b, ETK_ETDUMP_ALLOCATOR_NAME, text);
    f->items[n++] = etk_fb_table_end(b);
  }
  vec = etk_fb_create_offset_vector(b, f->items, n);
  len = append_text(f->text, 0, REC_SKETCHES_PREFIX "version=1,keys=");
  len += format_u32(f->text + len, n);
  len = append_text(f->text, len, ",refused=");
  len +=
      format_u32(f->text + len,
                 t->refused > UINT32_MAX ? UINT32_MAX : (uint32_t)t->refused);
  name = etk_fb_create_string(b, f->text, len);
  etk_fb_table_start(b);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_NAME, name);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_ALLOCATORS, vec);
  return etk_fb_table_end(b);
}

typedef struct open_block {
  int open;
  rec_block_t rec;
  uint32_t allocators, events;
  etk_fb_ref_t allocators_vec;
} open_block_t;

static void allocators_close(finish_ctx_t *f, open_block_t *ob) {
  if (ob->allocators != 0 && ob->allocators_vec == 0)
    ob->allocators_vec =
        etk_fb_create_offset_vector(f->b, f->items, ob->allocators);
}

static etk_fb_ref_t block_close(finish_ctx_t *f, open_block_t *ob) {
  etk_fb_builder_t *b = f->b;
  etk_fb_ref_t name, events = 0;
  allocators_close(f, ob);
  if (f->rec->stats && (ob->rec.flags & BLOCK_EVENTS_OPEN))
    stats_block_events(f, ob->rec.name, &ob->events);
  if (ob->rec.flags & BLOCK_EVENTS_OPEN)
    events = etk_fb_create_offset_vector(b, f->items, ob->events);
  name = name_ref(f, ob->rec.name);
  etk_fb_table_start(b);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_NAME, name);
  if (ob->rec.flags & BLOCK_HAS_BUNDLED)
    etk_fb_add_i32(
        b, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX, ob->rec.bundled_input_index,
        ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX_DEFAULT, ETK_FB_FORCE);
  if (ob->allocators_vec != 0)
    etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_ALLOCATORS, ob->allocators_vec);
  if (events != 0) etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_EVENTS, events);
  ob->open = 0;
  return etk_fb_table_end(b);
}

int etk_recorder_finish(etk_recorder_t *rec, const uint8_t **data,
                        size_t *len) {
  finish_ctx_t f;
  open_block_t ob;
  uint8_t *base, *region;
  uint32_t region_size, scratch_at, blocks = 0, at;
  etk_fb_ref_t root, run_data;
  const uint8_t *out = NULL;
  size_t out_len = 0;
  int status;
  if (data != NULL) *data = NULL;
  if (len != NULL) *len = 0;
  if (rec == NULL) return ETK_E_INVALID_ARGUMENT;
  if (rec->state == REC_STATE_INIT || rec->state == REC_STATE_IN_SINK)
    return ETK_E_INVALID_STATE;
  base = rec_base(rec);

  /* scratch right after the records (8-aligned: records are) */
  scratch_at = rec->records_end;
  f.rec = rec;
  f.b = (etk_fb_builder_t *)(void *)(base + scratch_at);
  f.block_refs = (uint32_t *)(void *)(base + scratch_at +
                                      rec_round8((uint32_t)sizeof *f.b));
  f.items = f.block_refs + rec->block_count + 1u + rec->calibrated +
            rec->note_reserved + rec->stats_marker + rec->stats_record;
  f.list = f.items + rec->max_items + (rec->stats ? rec->latency.entries : 0u);
  f.where = f.list + rec->max_list;
  f.sketch_bytes = NULL;
  f.text = NULL;
  f.run_index = 0;
  if (rec->stats_record) {
    f.sketch_bytes = (uint8_t *)(f.where + 2u * rec->latency.entries);
    f.text = (char *)f.sketch_bytes + rec_round8(ETK_SKETCH_MAX_BYTES);
    for (uint32_t i = 0; i < 2u * rec->latency.entries; i++)
      f.where[i] = UINT32_MAX;
  }
  if (rec->output != NULL) {
    region = rec->output;
    region_size = rec->output_capacity;
  } else {
    region = base + scratch_at + rec->scratch_bytes;
    region_size = rec->strings_low - (scratch_at + rec->scratch_bytes);
  }
  status = etk_fb_builder_init(f.b, region, region_size);
  if (status != ETK_OK) return ETK_E_INTERNAL;
  for (uint32_t i = 0; i < rec->string_count; i++) rec_strings(rec)[i].ref = 0;

  memset(&ob, 0, sizeof ob);
  for (at = rec->records_begin; at < rec->records_end;) {
    const uint8_t *p = base + at;
    uint32_t size = rec_record_size(p);
    if (size == 0 || size > rec->records_end - at) return ETK_E_INTERNAL;
    switch (p[0]) {
      case REC_BLOCK:
        f.run_index = blocks;
        if (ob.open) f.block_refs[blocks++] = block_close(&f, &ob);
        memset(&ob, 0, sizeof ob);
        memcpy(&ob.rec, p, sizeof ob.rec);
        ob.open = 1;
        break;
      case REC_ALLOCATOR: {
        rec_allocator_t r;
        etk_fb_ref_t name;
        memcpy(&r, p, sizeof r);
        name = name_ref(&f, r.name);
        etk_fb_table_start(f.b);
        etk_fb_add_ref(f.b, ETK_ETDUMP_ALLOCATOR_NAME, name);
        f.items[ob.allocators++] = etk_fb_table_end(f.b);
        break;
      }
      default: {
        etk_fb_ref_t ev;
        allocators_close(&f, &ob);
        switch (p[0]) {
          case REC_PROFILE:
            ev = emit_profile(&f, p);
            break;
          case REC_DELEGATE:
            ev = emit_delegate(&f, p);
            break;
          case REC_ALLOCATION:
            ev = emit_allocation(&f, p);
            break;
          case REC_DEBUG:
            ev = emit_debug(&f, p);
            break;
          default:
            return ETK_E_INTERNAL;
        }
        f.items[ob.events++] = ev;
        break;
      }
    }
    at += size;
  }
  f.run_index = blocks;
  if (ob.open) f.block_refs[blocks++] = block_close(&f, &ob);
  if (rec->stats_marker) f.block_refs[blocks++] = rec_stats_marker_emit(f.b);
  if (rec->stats_record) f.block_refs[blocks++] = emit_sketches(&f);
  if (rec->calibrated) f.block_refs[blocks++] = rec_calibration_emit(rec, f.b);
  if (rec->note_reserved && rec->note_len != 0) {
    /* a flight-recorder snapshot says why it was taken (trigger.c) */
    etk_fb_ref_t name = etk_fb_create_string(
        f.b, rec->note,
        rec->note_len > REC_NOTE_MAX ? REC_NOTE_MAX : rec->note_len);
    etk_fb_table_start(f.b);
    etk_fb_add_ref(f.b, ETK_ETDUMP_RUN_DATA_NAME, name);
    f.block_refs[blocks++] = etk_fb_table_end(f.b);
  }
  if (rec->dropped_events || rec->dropped_blocks || rec->dropped_allocators) {
    char text[REC_MARKER_MAX];
    size_t n = marker_name(rec, text);
    etk_fb_ref_t name = etk_fb_create_string(f.b, text, n);
    etk_fb_table_start(f.b);
    etk_fb_add_ref(f.b, ETK_ETDUMP_RUN_DATA_NAME, name);
    f.block_refs[blocks++] = etk_fb_table_end(f.b);
  }
  run_data = etk_fb_create_offset_vector(f.b, f.block_refs, blocks);
  etk_fb_table_start(f.b);
  etk_fb_add_ref(f.b, ETK_ETDUMP_RUN_DATA, run_data);
  root = etk_fb_table_end(f.b);
  status = etk_fb_finish(f.b, root, ETK_ETDUMP_FILE_IDENTIFIER,
                         ETK_FB_SIZE_PREFIXED, &out, &out_len);
  if (status != ETK_OK) return ETK_E_INTERNAL;
  /* NEVER: the reservation is an upper bound of what was just written */
  if (out_len > etk_recorder_output_bound(rec)) return ETK_E_INTERNAL;
  rec_set_state(rec, REC_STATE_DONE);
  rec->last_output_len = (uint32_t)out_len;
  if (data != NULL) *data = out;
  if (len != NULL) *len = out_len;
  return ETK_OK;
}

int etk_recorder_finish_stream(etk_recorder_t *rec, etk_write_fn write,
                               void *ctx) {
  const uint8_t *data;
  size_t len;
  int status;
  if (rec == NULL || write == NULL) return ETK_E_INVALID_ARGUMENT;
  status = etk_recorder_finish(rec, &data, &len);
  if (status != ETK_OK) return status;
  return write(ctx, data, len) == 0 ? ETK_OK : ETK_E_IO;
}
