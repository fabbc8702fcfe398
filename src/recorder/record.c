/*
 * record.c - the ETDump recorder's recording side: context set-up, string
 * interning, the upstream EventTracer state machine and the hot path.
 *
 * PURPOSE
 *   Record everything upstream's ETDumpGen records, on a device, with zero
 *   heap and no OS, at a few nanoseconds per event, and never abort.  The
 *   FlatBuffer is built once, by finish.c; here we only append compact
 *   records and keep a worst-case budget of what finish will need.
 *
 * DATA LAYOUT (one caller arena, offsets from the context start)
 *
 *   [struct etk_recorder][u16 hash slots][rec_string_t x max_strings]
 *   [records ...-> records_end]   free   [<- strings_low ... string bytes]
 *
 *   Records grow up, interned strings grow down.  At finish the free space
 *   between them holds, in order, the finish scratch (4-byte refs: one per
 *   block, one per item of the largest block, one per tensor of the largest
 *   tensor list) and then the FlatBuffer, which the builder writes from the
 *   end of that space backwards.  With a separate output buffer
 *   (config.output) the FlatBuffer goes there instead and only the scratch
 *   uses the free space.
 *
 * BUDGET
 *   Every record, before it is accepted, is charged with:
 *     - its own bytes (32 per profile event, see recorder_internal.h);
 *     - the scratch it adds at finish;
 *     - the worst-case bytes of its tables, vectors and first use of each
 *       string in this dump (output_base);
 *     - vtables: the builder shares a vtable between tables of the same
 *       shape while it remembers it; its cache holds ETK_FB_VTABLE_CACHE
 *       vtables and only evicts when full.  So while a dump uses at most
 *       that many distinct shapes, each shape's vtable is written at most
 *       once (vtables_shared); beyond that we fall back to one vtable per
 *       table (vtables_all).  Both sums are kept; the larger regime is used.
 *   The invariant, checked before every commit and after every intern:
 *
 *     records_end + scratch_bytes + (shared output ? reserved : 0)
 *         <= strings_low,           reserved <= output_capacity otherwise,
 *
 *   where reserved = output_base + vtables.  finish.c then cannot run out of
 *   space, and checks that it did not (ETK_E_INTERNAL otherwise).
 *
 * FULL
 *   When a record does not fit (or a by-name call cannot intern its name),
 *   the recorder latches `full`: that record and every later one is dropped
 *   and counted until the next fresh dump, so the output is exactly the
 *   prefix that fitted plus the "etkit:dropped_events=N" marker block.
 *   Tensor bytes go to the data sink only after the record is known to fit;
 *   a sink failure drops that one debug event (counted) without latching.
 *
 * STATE MACHINE (upstream ETDumpGen, doc section 3.2), without aborts:
 *   INIT --block--> BLOCK --allocator--> ALLOCATORS --event--> EVENTS
 *   any event in BLOCK/ALLOCATORS moves to EVENTS (and marks the block's
 *   events vector as present); allocators after that, and events in INIT or
 *   DONE, are ETK_E_INVALID_STATE.  finish moves to DONE; a block in DONE
 *   starts a fresh dump (dump_reset).
 */
#include <string.h>

#include "etkit/checked.h"
#include "etkit/tensor_stats.h"
#include "recorder_internal.h"

/* ------------------------------------------------------------ helpers */

/* The last n (1..7) bytes of a string as one little word (no read past
 * the end). */
static uint64_t tail_word(const char *s, size_t n) {
  uint64_t w = 0;
  for (size_t i = 0; i < n; i++) w |= (uint64_t)(uint8_t)s[i] << (8u * i);
  return w;
}

/* Hash of the string table: eight bytes per multiply (a byte-at-a-time
 * hash is one multiply of latency per byte, most of a by-name event's
 * cost).  Only ever compared within one process: the words' byte order
 * does not matter. */
static uint32_t hash_bytes(const char *s, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, sizeof w);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 29;
    s += 8;
    n -= 8;
  }
  if (n != 0) {
    h = (h ^ tail_word(s, n)) * 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 29;
  }
  h *= 0xFF51AFD7ED558CCDull;
  return (uint32_t)(h >> 32);
}

/* memcmp(a, b, n) == 0 without a library call for the short names the
 * table holds: eight bytes at a time. */
static int bytes_equal(const char *a, const char *b, size_t n) {
  while (n >= 8) {
    uint64_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    if (x != y) return 0;
    a += 8;
    b += 8;
    n -= 8;
  }
  return n == 0 || tail_word(a, n) == tail_word(b, n);
}

static uint16_t *rec_slots(const etk_recorder_t *rec) {
  return (uint16_t *)(void *)(rec_base(rec) + rec->slots_offset);
}

/* The output reservation: one vtable per shape while the builder's cache
 * can hold them all, else one per table (see BUDGET above). */
static uint32_t output_reserved_for(uint32_t base, uint32_t shape_count,
                                    uint32_t all, uint32_t shared) {
  return base + (shape_count > ETK_FB_VTABLE_CACHE ? all : shared);
}

static uint32_t output_reserved(const etk_recorder_t *rec) {
  return output_reserved_for(rec->output_base, rec->shape_count,
                             rec->vtables_all, rec->vtables_shared);
}

/* Lowest offset the string pool may grow down to. */
static uint64_t pool_floor(const etk_recorder_t *rec) {
  uint64_t floor = (uint64_t)rec->records_end + rec->scratch_bytes;
  if (rec->output == NULL) floor += output_reserved(rec);
  return floor;
}

uint32_t rec_output_reserved(const etk_recorder_t *rec) {
  return output_reserved(rec);
}

uint64_t rec_pool_floor(const etk_recorder_t *rec) {
  return pool_floor(rec);
}

/* Recomputes the fast path's view of the budget (see arena_room): the
 * arena and output bytes still free.  Called after every change of the
 * reservation or of the string pool. */
static void rooms_refresh(etk_recorder_t *rec) {
  uint64_t floor = pool_floor(rec);
  rec->arena_room =
      floor < rec->strings_low ? (uint32_t)(rec->strings_low - floor) : 0u;
  if (rec->output == NULL) {
    rec->output_room = UINT32_MAX;
  } else {
    uint32_t reserved = output_reserved(rec);
    rec->output_room =
        reserved < rec->output_capacity ? rec->output_capacity - reserved : 0u;
  }
}

/* Recomputes what one profile event of each variant costs and which
 * variants need no new shape.  These depend only on the set of shapes used
 * (and the output buffer, fixed at init), so they are refreshed only when
 * that set changes: once per shape per dump, not once per record. */
static void profile_costs_refresh(etk_recorder_t *rec) {
  int conservative = rec->shape_count > ETK_FB_VTABLE_CACHE;
  rec->profile_ready = 0;
  for (unsigned v = 0; v < 4; v++) {
    unsigned shape = SH_PROFILE + v;
    uint32_t out = rec_table_bound(shape) + rec_event_out(SH_EVENT_PROFILE) +
                   (conservative ? rec_shape_vtable(shape) +
                                       rec_shape_vtable(SH_EVENT_PROFILE)
                                 : 0u);
    rec->profile_arena_cost[v] =
        (uint32_t)sizeof(rec_profile_t) + (rec->output == NULL ? out : 0u);
    rec->profile_output_cost[v] = rec->output == NULL ? 0u : out;
    rec->profile_output_add[v] =
        rec_table_bound(shape) + rec_event_out(SH_EVENT_PROFILE);
    rec->profile_vtables_add[v] =
        rec_shape_vtable(shape) + rec_shape_vtable(SH_EVENT_PROFILE);
    if ((rec->shapes >> shape) & (rec->shapes >> SH_EVENT_PROFILE) & 1u)
      rec->profile_ready |= (uint8_t)(1u << v);
  }
}

static void count_up(uint32_t *counter) {
  if (*counter != UINT32_MAX) (*counter)++;
}

static int drop_event(etk_recorder_t *rec) {
  count_up(&rec->dropped_events);
  return ETK_E_FULL;
}

void rec_count_drop(etk_recorder_t *rec) {
  count_up(&rec->dropped_events);
}

/* Starts a fresh dump: forgets the records and every per-dump counter, and
 * reserves what every dump needs (header, root, dropped marker). */
static void dump_reset(etk_recorder_t *rec) {
  rec_budget_reset(rec);
  rec_set_state(rec, REC_STATE_INIT);
  rec->full = 0;
  rec->full_names = 0;
  rec->debug_full = 0;
  rec->block_record = 0;
  rec->dropped_events = 0;
  rec->dropped_blocks = 0;
  rec->dropped_allocators = 0;
  rec->last_output_len = 0;
  rec->stats_detached = 0;
  if (rec->stats) etk_latency_table_clear(&rec->latency);
}

/* Forgets the records, their reservation (what every dump needs stays
 * reserved: header, root, dropped marker) and the tallies of them, and
 * starts a new string generation, so that names are charged again when
 * next referenced. */
void rec_budget_reset(etk_recorder_t *rec) {
  rec->records_end = rec->records_begin;
  rec->block_count = 0;
  rec->event_count = 0;
  rec->allocator_count = 0;
  rec->block_events = 0;
  rec->block_allocators = 0;
  rec->max_items = 0;
  rec->max_list = 0;
  rec->scratch_bytes = rec_fixed_scratch();
  rec->output_base = rec_fixed_out();
  if (rec->calibrated) {
    rec->scratch_bytes += 4u;
    rec->output_base += rec_calibration_out();
  }
  rec->shapes = SHAPE_BIT(SH_ETDUMP) | SHAPE_BIT(SH_RUN_DATA);
  rec->shape_count = 2;
  rec->vtables_all =
      rec_shape_vtable(SH_ETDUMP) + rec_shape_vtable(SH_RUN_DATA);
  rec->vtables_shared = rec->vtables_all;
  rec->stats_record = 0; /* rec_stats_charge_again reserves it again */
  if (rec->note_reserved) {
    rec->scratch_bytes += 4u;
    rec->output_base += rec_note_out();
  }
  rec->stats_marker = 0; /* charged again with the next STATS record */
  if (++rec->gen == 0) {
    /* 2^32 dumps: clear the marks so that no stale gen can match */
    rec_string_t *e = rec_strings(rec);
    for (uint32_t i = 0; i < rec->string_count; i++) e[i].gen = 0;
    rec->gen = 1;
  }
  rooms_refresh(rec);
  profile_costs_refresh(rec);
}

/* ------------------------------------------------------------ budget */

typedef struct rec_plan {
  uint32_t output_base;
  uint32_t vtables_all;
  uint32_t vtables_shared;
  uint64_t shapes;
  uint32_t shape_count;
} rec_plan_t;

static void cost_clear(rec_cost_t *c) {
  memset(c, 0, sizeof *c);
}

/* Whether `c` fits.  On success fills *plan with the new budget (commit it
 * with budget_commit after the record is written).  Pure: changes nothing. */
static int budget_check(const etk_recorder_t *rec, const rec_cost_t *c,
                        rec_plan_t *plan) {
  uint64_t fresh = c->shapes & ~rec->shapes;
  uint64_t out = (uint64_t)rec->output_base + c->output;
  uint64_t reserved, used;
  plan->shapes = rec->shapes | c->shapes;
  plan->shape_count = rec->shape_count;
  plan->vtables_shared = rec->vtables_shared;
  for (unsigned s = 0; fresh != 0; s++, fresh >>= 1) {
    if (fresh & 1u) {
      plan->shape_count++;
      plan->vtables_shared += rec_shape_vtable(s);
    }
  }
  for (int i = 0; i < 2; i++) {
    etk_recorder_name_t id = c->names[i];
    if (id == 0 || (i == 1 && id == c->names[0])) continue;
    if (rec_string(rec, id)->gen != rec->gen)
      out += rec_string_bound(rec_string(rec, id)->len);
  }
  if (out > 0x7FFFFFFFu) return 0;
  plan->output_base = (uint32_t)out;
  plan->vtables_all = rec->vtables_all + c->vtables;
  reserved = output_reserved_for(plan->output_base, plan->shape_count,
                                 plan->vtables_all, plan->vtables_shared);
  used =
      (uint64_t)rec->records_end + c->records + rec->scratch_bytes + c->scratch;
  if (rec->output == NULL)
    used += reserved;
  else if (reserved > rec->output_capacity)
    return 0;
  return used <= rec->strings_low;
}

static void budget_commit(etk_recorder_t *rec, const rec_cost_t *c,
                          const rec_plan_t *plan) {
  int new_shapes = plan->shapes != rec->shapes;
  rec->records_end += c->records;
  rec->scratch_bytes += c->scratch;
  rec->output_base = plan->output_base;
  rec->vtables_all = plan->vtables_all;
  rec->vtables_shared = plan->vtables_shared;
  rec->shapes = plan->shapes;
  rec->shape_count = plan->shape_count;
  for (int i = 0; i < 2; i++)
    if (c->names[i] != 0) rec_string(rec, c->names[i])->gen = rec->gen;
  rooms_refresh(rec);
  if (new_shapes) profile_costs_refresh(rec);
}

/* budget_check + budget_commit, latching `full` on failure. */
static int budget_take(etk_recorder_t *rec, const rec_cost_t *c) {
  rec_plan_t plan;
  if (!budget_check(rec, c, &plan)) {
    rec_set_full(rec);
    return ETK_E_FULL;
  }
  budget_commit(rec, c, &plan);
  return ETK_OK;
}

int rec_budget_take(etk_recorder_t *rec, const rec_cost_t *c) {
  return budget_take(rec, c);
}

int rec_budget_try(etk_recorder_t *rec, const rec_cost_t *c) {
  rec_plan_t plan;
  if (!budget_check(rec, c, &plan)) return ETK_E_FULL;
  budget_commit(rec, c, &plan);
  return ETK_OK;
}

static void note_item(etk_recorder_t *rec, uint32_t items) {
  if (items > rec->max_items) rec->max_items = items;
}

static rec_block_t load_block(const etk_recorder_t *rec) {
  rec_block_t b;
  memcpy(&b, rec_base(rec) + rec->block_record, sizeof b);
  return b;
}

static void store_block(etk_recorder_t *rec, const rec_block_t *b) {
  memcpy(rec_base(rec) + rec->block_record, b, sizeof *b);
}

/* upstream check_ready_to_add_events. */
static int events_open(etk_recorder_t *rec) {
  if (rec->state == REC_STATE_EVENTS) return ETK_OK;
  if (rec->state != REC_STATE_BLOCK && rec->state != REC_STATE_ALLOCATORS)
    return ETK_E_INVALID_STATE;
  rec_set_state(rec, REC_STATE_EVENTS);
  if (!rec->full && rec->block_record != 0) {
    /* the block's RunData gains an events vector: a new shape maybe */
    rec_block_t b = load_block(rec);
    rec_cost_t c;
    cost_clear(&c);
    b.flags |= BLOCK_EVENTS_OPEN;
    c.shapes = SHAPE_BIT(rec_run_data_shape(b.flags, b.allocators));
    if (budget_take(rec, &c) == ETK_OK) store_block(rec, &b);
  }
  return ETK_OK;
}

/* ------------------------------------------------------------ strings */

static int intern_status(etk_recorder_t *rec, const char *s, size_t n,
                         etk_recorder_name_t *out) {
  uint32_t hash, slot;
  uint16_t *slots;
  rec_string_t *e;
  *out = 0;
  if (rec == NULL || (s == NULL && n != 0)) return ETK_E_INVALID_ARGUMENT;
  if (rec->state == REC_STATE_IN_SINK) return ETK_E_INVALID_STATE;
  if (n > 0x7FFFFFFFu) return ETK_E_INVALID_ARGUMENT;
  hash = hash_bytes(s, n);
  slots = rec_slots(rec);
  e = rec_strings(rec);
  for (slot = hash & rec->hash_mask;; slot = (slot + 1u) & rec->hash_mask) {
    uint16_t id = slots[slot];
    if (id == 0) break;
    if (e[id - 1u].hash == hash && e[id - 1u].len == n &&
        bytes_equal((const char *)rec_base(rec) + e[id - 1u].offset, s, n)) {
      *out = id;
      return ETK_OK;
    }
  }
  /* only new text needs checking: what the table holds is valid */
  if (!etk_fb_utf8_valid(s, n)) return ETK_E_INVALID_ARGUMENT;
  if (rec->string_count >= rec->max_strings) return ETK_E_FULL;
  if ((uint64_t)rec->strings_low < pool_floor(rec) + n + 1u) return ETK_E_FULL;
  rec->strings_low -= (uint32_t)n + 1u;
  if (n) memcpy(rec_base(rec) + rec->strings_low, s, n);
  rec_base(rec)[rec->strings_low + n] = 0;
  e += rec->string_count;
  e->offset = rec->strings_low;
  e->len = (uint32_t)n;
  e->hash = hash;
  e->gen = 0;
  e->ref = 0;
  rec->string_count++;
  slots[slot] = (uint16_t)rec->string_count;
  *out = rec->string_count;
  rooms_refresh(rec);
  return ETK_OK;
}

etk_recorder_name_t etk_recorder_intern_n(etk_recorder_t *rec, const char *s,
                                          size_t n) {
  etk_recorder_name_t id;
  intern_status(rec, s, n, &id);
  return id;
}

etk_recorder_name_t etk_recorder_intern(etk_recorder_t *rec, const char *s) {
  if (s == NULL) return 0;
  return etk_recorder_intern_n(rec, s, strlen(s));
}

/* Interning for by-name event calls: failing for lack of space is a drop,
 * so it latches `full` (stop and count). */
static int intern_for_event(etk_recorder_t *rec, const char *s,
                            etk_recorder_name_t *out) {
  int status = intern_status(rec, s, strlen(s), out);
  if (status == ETK_E_FULL) {
    rec_set_full(rec);
    /* the count is checked first: at the limit, that was the cause */
    rec->full_names = rec->string_count >= rec->max_strings;
  }
  return status;
}

const char *etk_recorder_name_string(const etk_recorder_t *rec,
                                     etk_recorder_name_t id, size_t *len) {
  if (len != NULL) *len = 0;
  if (rec == NULL || id == 0 || id > rec->string_count) return NULL;
  if (len != NULL) *len = rec_string(rec, id)->len;
  return (const char *)rec_base(rec) + rec_string(rec, id)->offset;
}

/* ------------------------------------------------------------ set-up */

void etk_recorder_config_init(etk_recorder_config_t *cfg) {
  if (cfg == NULL) return;
  memset(cfg, 0, sizeof *cfg);
}

int etk_recorder_init(etk_recorder_t **out, void *mem, size_t size,
                      const etk_recorder_config_t *cfg) {
  etk_recorder_config_t defaults;
  rec_layout_t layout;
  etk_recorder_t *rec;
  uint64_t latency_offset = 0;
  uint32_t keys = 0;
  size_t pad;
  int status;
  if (out == NULL) return ETK_E_INVALID_ARGUMENT;
  *out = NULL;
  if (mem == NULL) return ETK_E_INVALID_ARGUMENT;
  if (cfg == NULL) {
    etk_recorder_config_init(&defaults);
    cfg = &defaults;
  }
  if (cfg->output != NULL && cfg->output_capacity == 0)
    return ETK_E_INVALID_ARGUMENT;
  if (cfg->profile_mode != ETK_PROFILE_MODE_FULL &&
      cfg->profile_mode != ETK_PROFILE_MODE_STATS)
    return ETK_E_INVALID_ARGUMENT;
#if !ETK_RECORDER_HOST
  if (cfg->clock == NULL) return ETK_E_INVALID_ARGUMENT;
#endif
  status = rec_layout_for(cfg->max_strings, &layout);
  if (status != ETK_OK) return status;
  if (cfg->profile_mode == ETK_PROFILE_MODE_STATS) {
    etk_sketch_t probe;
    keys = cfg->stats_keys ? cfg->stats_keys : ETK_RECORDER_DEFAULT_STATS_KEYS;
    if (keys > ETK_LATENCY_MAX_KEYS ||
        etk_sketch_init(&probe, cfg->stats_error) != ETK_OK)
      return ETK_E_INVALID_ARGUMENT;
    latency_offset = layout.records_begin;
    layout.records_begin += rec_round8((uint32_t)etk_latency_table_size(keys));
  }
  pad = (size_t)(0u - (uintptr_t)mem) & 7u;
  if (size < pad) return ETK_E_NO_MEMORY;
  size -= pad;
  if (size > 0x7FFFFFF0u) size = 0x7FFFFFF0u; /* builder limit: 2 GiB */
  if (layout.records_begin > size) return ETK_E_NO_MEMORY;

  rec = (etk_recorder_t *)(void *)((uint8_t *)mem + pad);
  memset(rec, 0, (size_t)layout.entries_offset);
  rec->arena_size = (uint32_t)size;
  rec->slots_offset = (uint32_t)layout.slots_offset;
  rec->entries_offset = (uint32_t)layout.entries_offset;
  rec->hash_mask = layout.hash_slots - 1u;
  rec->max_strings =
      cfg->max_strings ? cfg->max_strings : ETK_RECORDER_DEFAULT_MAX_STRINGS;
  rec->records_begin = (uint32_t)layout.records_begin;
  rec->strings_low = rec->arena_size;
  if (cfg->output != NULL) {
    rec->output = (uint8_t *)cfg->output;
    rec->output_capacity = cfg->output_capacity > 0x7FFFFFF0u
                               ? 0x7FFFFFF0u
                               : (uint32_t)cfg->output_capacity;
  }
  rec->clock = cfg->clock;
  rec->clock_ctx = cfg->clock_ctx;
#if ETK_RECORDER_HOST
  if (rec->clock == NULL) rec->clock = etk_recorder_host_clock;
#endif
  rec->debug_level = ETK_DEBUG_LEVEL_NONE;
  rec->profiling_level = ETK_PROFILING_ALL_EVENTS;
  rec->chain = ETK_CHAIN_UNSET;
  rec->debug_handle = ETK_DEBUG_HANDLE_UNSET;
  rec->bundled_input_index = ETK_BUNDLED_INPUT_INDEX_UNSET;
  rec->gen = 0;
  if (latency_offset != 0) {
    rec->stats = 1;
    (void)etk_latency_table_init(&rec->latency, rec_base(rec) + latency_offset,
                                 etk_latency_table_size(keys), keys,
                                 cfg->stats_error);
  }
  dump_reset(rec);
  if (pool_floor(rec) > rec->strings_low) return ETK_E_NO_MEMORY;
  if (rec->output != NULL && output_reserved(rec) > rec->output_capacity)
    return ETK_E_NO_MEMORY;
  *out = rec;
  return ETK_OK;
}

/* ------------------------------------------------------------ blocks */

/* A block that does not fit: its events will be dropped too (the recorder
 * is latched full), but the state machine moves on as upstream's would. */
static int block_dropped(etk_recorder_t *rec) {
  rec_set_state(rec, REC_STATE_BLOCK);
  rec->block_record = 0;
  rec->block_events = 0;
  rec->block_allocators = 0;
  count_up(&rec->dropped_blocks);
  return ETK_E_FULL;
}

/* Stats mode: a block begun again continues its record (stats.c). */
static int stats_continue_block(etk_recorder_t *rec, uint32_t at, int last) {
  rec->block_record = at;
  rec->stats_detached = (uint8_t)!last;
  if (!last) {
    rec->block_events = 0;
    rec->block_allocators = 0;
  }
  rec_set_state(rec, REC_STATE_ALLOCATORS);
  return events_open(rec);
}

int etk_recorder_begin_block_id(etk_recorder_t *rec, etk_recorder_name_t name) {
  rec_block_t b;
  rec_cost_t c;
  if (rec == NULL) return ETK_E_INVALID_ARGUMENT;
  if (rec->state == REC_STATE_IN_SINK) return ETK_E_INVALID_STATE;
  if (name == 0 || name > rec->string_count) return ETK_E_INVALID_ARGUMENT;
  if (rec->state == REC_STATE_DONE) dump_reset(rec);
  if (rec->stats && rec->state != REC_STATE_INIT) {
    int last;
    uint32_t at = rec_stats_find_block(rec, name, &last);
    if (at != 0) return stats_continue_block(rec, at, last);
  }
  rec->stats_detached = 0;
  if (rec->full) return block_dropped(rec);
  memset(&b, 0, sizeof b);
  b.kind = REC_BLOCK;
  b.name = name;
  b.bundled_input_index = rec->bundled_input_index;
  if (rec->bundled_input_index != ETK_BUNDLED_INPUT_INDEX_UNSET)
    b.flags |= BLOCK_HAS_BUNDLED;
  rec_block_cost(b.flags, 0, name, &c);
  if (budget_take(rec, &c) != ETK_OK) return block_dropped(rec);
  rec_set_state(rec, REC_STATE_BLOCK);
  rec->block_events = 0;
  rec->block_allocators = 0;
  rec->block_record = rec->records_end - (uint32_t)sizeof b;
  store_block(rec, &b);
  rec->block_count++;
  return ETK_OK;
}

int etk_recorder_begin_block(etk_recorder_t *rec, const char *name) {
  etk_recorder_name_t id;
  int status;
  if (rec == NULL || name == NULL) return ETK_E_INVALID_ARGUMENT;
  if (rec->state == REC_STATE_IN_SINK) return ETK_E_INVALID_STATE;
  if (rec->state == REC_STATE_DONE) dump_reset(rec);
  if (rec->full && !rec->stats) return block_dropped(rec);
  status = intern_for_event(rec, name, &id);
  if (status == ETK_E_FULL) return block_dropped(rec);
  if (status != ETK_OK) return status;
  return etk_recorder_begin_block_id(rec, id);
}

size_t etk_recorder_block_count(const etk_recorder_t *rec) {
  return rec != NULL ? rec->block_count : 0;
}

/* ------------------------------------------------------------ profiling */

static etk_recorder_scope_t scope_error(int status) {
  etk_recorder_scope_t s;
  s.start = 0;
  s.name = 0;
  s.chain = ETK_CHAIN_UNSET;
  s.debug_handle = ETK_DEBUG_HANDLE_UNSET;
  s.delegate_index = ETK_DELEGATE_ID_UNSET;
  s.kind = status;
  s.serial = 0;
  return s;
}

/* A serial for a scope being begun, remembered as open (0 when
 * ETK_RECORDER_TRACKED_SCOPES scopes are open already: untracked).  Open
 * serials form a stack (most recent last) so that the usual end, of the
 * innermost scope, is one comparison (scope_close_top). */
static inline uint32_t scope_track(etk_recorder_t *rec) {
  uint32_t n = rec->open_count;
  uint32_t serial = ++rec->next_serial;           /* also when untracked: see
                                                   * scope_last_tracked */
  if (serial == 0) serial = rec->next_serial = 1; /* after 2^32 scopes */
  if (n >= ETK_RECORDER_TRACKED_SCOPES) return 0;
  rec->open_serials[n] = serial;
  rec->open_count = n + 1u;
  return serial;
}

/* The serial scope_track just gave: the innermost open serial when it is
 * the latest one handed out, else 0 (the scope was not tracked). */
static inline uint32_t scope_last_tracked(const etk_recorder_t *rec) {
  uint32_t n = rec->open_count;
  return n != 0 && rec->open_serials[n - 1u] == rec->next_serial
             ? rec->next_serial
             : 0u;
}

/* Forgets open scope `serial` when it is the innermost open scope (the
 * hot path's case); 0 otherwise, and nothing changes. */
static inline int scope_close_top(etk_recorder_t *rec, uint32_t serial) {
  uint32_t n = rec->open_count;
  if (n == 0 || rec->open_serials[n - 1u] != serial || serial == 0) return 0;
  rec->open_count = n - 1u;
  return 1;
}

/* Forgets open scope `serial` (0: untracked, always fine).  ETK_OK, or
 * ETK_E_INVALID_STATE when it is not open: ended already, or begun by
 * another recorder. */
static int scope_close(etk_recorder_t *rec, uint32_t serial) {
  uint32_t i;
  if (serial == 0) return ETK_OK;
  for (i = rec->open_count; i-- > 0;) {
    if (rec->open_serials[i] == serial) {
      rec->open_count--;
      for (; i < rec->open_count; i++)
        rec->open_serials[i] = rec->open_serials[i + 1];
      return ETK_OK;
    }
  }
  return ETK_E_INVALID_STATE;
}

etk_recorder_scope_t etk_recorder_begin(etk_recorder_t *rec,
                                        etk_recorder_name_t name) {
  etk_recorder_scope_t s;
  uint64_t start;
  if (rec == NULL) return scope_error(ETK_E_INVALID_ARGUMENT);
  (void)scope_track(rec);
  start = rec->clock(rec->clock_ctx);
  /* Everything else is read after the clock, from the recorder, so that
   * little lives in registers across the call (the clock does not change
   * the chain, the handle or the open scopes) */
  s.start = start;
  s.name = name;
  s.chain = rec->chain;
  s.debug_handle = rec->debug_handle;
  s.delegate_index = ETK_DELEGATE_ID_UNSET;
  s.kind = ETK_SCOPE_PLAIN;
  s.serial = scope_last_tracked(rec);
  return s;
}

etk_recorder_mark_t etk_recorder_begin_mark(etk_recorder_t *rec) {
  etk_recorder_mark_t m;
  if (rec == NULL) {
    m.start = 0;
    m.serial = 0;
    return m;
  }
  (void)scope_track(rec);
  m.start = rec->clock(rec->clock_ctx);
  m.serial = scope_last_tracked(rec);
  return m;
}

etk_recorder_scope_t etk_recorder_begin_at(etk_recorder_t *rec,
                                           etk_recorder_name_t name,
                                           int32_t chain,
                                           uint32_t debug_handle) {
  etk_recorder_scope_t s;
  if (rec == NULL) return scope_error(ETK_E_INVALID_ARGUMENT);
  s.name = name;
  if (chain == ETK_CHAIN_UNSET) {
    s.chain = rec->chain;
    s.debug_handle = rec->debug_handle;
  } else {
    s.chain = chain;
    s.debug_handle = debug_handle;
  }
  s.delegate_index = ETK_DELEGATE_ID_UNSET;
  s.kind = ETK_SCOPE_PLAIN;
  s.serial = scope_track(rec);
  s.start = rec->clock(rec->clock_ctx);
  return s;
}

etk_recorder_scope_t etk_recorder_begin_named(etk_recorder_t *rec,
                                              const char *name, int32_t chain,
                                              uint32_t debug_handle) {
  etk_recorder_name_t id = 0;
  if (rec == NULL) return scope_error(ETK_E_INVALID_ARGUMENT);
  if (name != NULL) {
    int status;
    if (rec->full) return scope_error(ETK_E_FULL);
    status = intern_for_event(rec, name, &id);
    if (status != ETK_OK) return scope_error(status);
  }
  return etk_recorder_begin_at(rec, id, chain, debug_handle);
}

/* Appends a ProfileEvent record: the slow, general path (state changes,
 * first use of a shape or name in this dump, full). */
static int append_profile_slow(etk_recorder_t *rec, etk_recorder_name_t name,
                               int32_t chain, uint32_t instruction,
                               uint64_t start, uint64_t end) {
  rec_profile_t r;
  rec_cost_t c;
  if (rec->state != REC_STATE_EVENTS) {
    int status = events_open(rec);
    if (status != ETK_OK) return status;
  }
  /* stats mode never sets `hot`: every end comes here (stats.c) */
  if (rec->stats)
    return rec_stats_add(rec, name, chain, instruction, ETK_DELEGATE_ID_UNSET,
                         start, end);
  if (rec->full) return drop_event(rec);
  rec->hot = 1; /* EVENTS and not full: later events may take the fast path */
  if (name > rec->string_count) return ETK_E_INVALID_ARGUMENT;
  rec_profile_cost(rec, name, chain, &c);
  if (budget_take(rec, &c) != ETK_OK) return drop_event(rec);
  memset(&r, 0, sizeof r);
  r.kind = REC_PROFILE;
  r.chain = chain;
  r.name = name;
  r.instruction = instruction;
  r.start = start;
  r.end = end;
  memcpy(rec_base(rec) + rec->records_end - sizeof r, &r, sizeof r);
  if (++rec->block_events > rec->max_items) rec->max_items = rec->block_events;
  rec->event_count++;
  return ETK_OK;
}

/* The hot path of etk_recorder_end: the steady state of a block (events
 * open, not full, the event's shapes and name already reserved in this
 * dump, room left) costs two room checks, a 32-byte record and a few
 * counters; no FlatBuffers work.  Returns 0, having changed nothing, in
 * every other case: append_profile_slow decides those (a full recorder
 * included: it repeats the budget check and latches `full`).  The caller
 * has checked `hot` (events open, not full, no sink callback running). */
static inline int append_profile_fast(etk_recorder_t *rec,
                                      etk_recorder_name_t name, int32_t chain,
                                      uint32_t instruction, uint64_t start,
                                      uint64_t end) {
  unsigned variant = (name != 0 ? 1u : 0u) + (chain != 0 ? 2u : 0u);
  uint32_t scratch, arena_need, output_need;
  uint8_t *p;
  if (name > rec->string_count || !((rec->profile_ready >> variant) & 1u) ||
      (name != 0 && rec_string(rec, name)->gen != rec->gen))
    return 0;
  scratch = rec->block_events >= rec->max_items ? 4u : 0u;
  arena_need = rec->profile_arena_cost[variant] + scratch;
  output_need = rec->profile_output_cost[variant];
  if (arena_need > rec->arena_room || output_need > rec->output_room) return 0;
  rec->arena_room -= arena_need;
  rec->output_room -= output_need;
  rec->output_base += rec->profile_output_add[variant];
  rec->vtables_all += rec->profile_vtables_add[variant];
  rec->scratch_bytes += scratch;
  p = rec_base(rec) + rec->records_end;
  rec->records_end += (uint32_t)sizeof(rec_profile_t);
  {
    /* Field by field straight into the arena: assembling the record on the
     * stack and copying it costs a store-forwarding stall per event. */
    static const uint8_t head[4] = {REC_PROFILE, 0, 0, 0};
    memcpy(p + offsetof(rec_profile_t, kind), head, sizeof head);
    memcpy(p + offsetof(rec_profile_t, chain), &chain, sizeof chain);
    memcpy(p + offsetof(rec_profile_t, name), &name, sizeof name);
    memcpy(p + offsetof(rec_profile_t, instruction), &instruction,
           sizeof instruction);
    memcpy(p + offsetof(rec_profile_t, start), &start, sizeof start);
    memcpy(p + offsetof(rec_profile_t, end), &end, sizeof end);
  }
  if (++rec->block_events > rec->max_items) rec->max_items = rec->block_events;
  rec->event_count++;
  return 1;
}

/* Appends a ProfileEvent record, by the fast path when it can. */
static int append_profile(etk_recorder_t *rec, etk_recorder_name_t name,
                          int32_t chain, uint32_t instruction, uint64_t start,
                          uint64_t end) {
  if (rec->hot &&
      append_profile_fast(rec, name, chain, instruction, start, end))
    return ETK_OK;
  return append_profile_slow(rec, name, chain, instruction, start, end);
}

/* Ends of scopes that are not plain: errors carried from begin, skipped
 * op scopes, delegate scopes given to the plain end. */
static int end_unusual(etk_recorder_t *rec, const etk_recorder_scope_t *s) {
  if (s->kind == ETK_SCOPE_SKIPPED) return ETK_OK;
  if (s->kind == ETK_E_FULL) return drop_event(rec);
  if (s->kind < 0) return s->kind;
  return ETK_E_INVALID_ARGUMENT;
}

/* The end of a plain scope off the hot path: the misuse checks in full
 * (a call from inside a sink callback, a scope not open: ended already,
 * untracked, or begun by another recorder), then the append. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int
end_checked(etk_recorder_t *rec, etk_recorder_name_t name, int32_t chain,
            uint32_t debug_handle, uint64_t start, uint32_t serial,
            uint64_t end) {
  int status;
  if (rec->state == REC_STATE_IN_SINK) return ETK_E_INVALID_STATE;
  status = scope_close(rec, serial);
  if (status != ETK_OK) return status;
  return append_profile(rec, name, chain, debug_handle, start, end);
}

/* The end of a plain scope given by its fields, the clock read. */
static inline int end_plain(etk_recorder_t *rec, etk_recorder_name_t name,
                            int32_t chain, uint32_t debug_handle,
                            uint64_t start, uint32_t serial, uint64_t end) {
  /* `hot` is never set while a sink callback runs (write_tensors clears
   * it), so together with the innermost-scope test it stands for both
   * misuse checks; anything else takes end_checked */
  if (!rec->hot || !scope_close_top(rec, serial))
    return end_checked(rec, name, chain, debug_handle, start, serial, end);
  if (append_profile_fast(rec, name, chain, debug_handle, start, end))
    return ETK_OK;
  return append_profile_slow(rec, name, chain, debug_handle, start, end);
}

int etk_recorder_end(etk_recorder_t *rec, const etk_recorder_scope_t *scope) {
  uint64_t end;
  if (rec == NULL || scope == NULL) return ETK_E_INVALID_ARGUMENT;
  end = rec->clock(rec->clock_ctx);
  if (scope->kind != ETK_SCOPE_PLAIN) return end_unusual(rec, scope);
  return end_plain(rec, scope->name, scope->chain, scope->debug_handle,
                   scope->start, scope->serial, end);
}

int etk_recorder_end_mark(etk_recorder_t *rec, etk_recorder_name_t name,
                          int32_t chain, uint32_t debug_handle,
                          etk_recorder_mark_t mark) {
  uint64_t end;
  if (rec == NULL) return ETK_E_INVALID_ARGUMENT;
  end = rec->clock(rec->clock_ctx);
  return end_plain(rec, name, chain, debug_handle, mark.start, mark.serial,
                   end);
}

etk_recorder_scope_t etk_recorder_begin_op(etk_recorder_t *rec,
                                           etk_recorder_name_t name) {
  if (rec == NULL || rec->profiling_level < ETK_PROFILING_ALL_EVENTS)
    return scope_error(ETK_SCOPE_SKIPPED);
  return etk_recorder_begin(rec, name);
}

int etk_recorder_end_op(etk_recorder_t *rec,
                        const etk_recorder_scope_t *scope) {
  if (rec == NULL) return ETK_OK;
  if (scope == NULL) return ETK_E_INVALID_ARGUMENT;
  if (scope->kind == ETK_SCOPE_SKIPPED) return ETK_OK;
  if (rec->profiling_level < ETK_PROFILING_ALL_EVENTS) {
    if (rec->state != REC_STATE_IN_SINK) (void)scope_close(rec, scope->serial);
    return ETK_OK;
  }
  return etk_recorder_end(rec, scope);
}

void etk_recorder_set_chain_debug_handle(etk_recorder_t *rec, int32_t chain,
                                         uint32_t debug_handle) {
  if (rec == NULL) return;
  rec->chain = chain;
  rec->debug_handle = debug_handle;
}

int32_t etk_recorder_current_chain(const etk_recorder_t *rec) {
  return rec != NULL ? rec->chain : ETK_CHAIN_UNSET;
}

uint32_t etk_recorder_current_debug_handle(const etk_recorder_t *rec) {
  return rec != NULL ? rec->debug_handle : ETK_DEBUG_HANDLE_UNSET;
}

/* ------------------------------------------------------------ delegates */

static int delegate_ids_valid(const char *name, int32_t index) {
  return (name == NULL) != (index == ETK_DELEGATE_ID_UNSET);
}

etk_recorder_scope_t etk_recorder_begin_delegate(etk_recorder_t *rec,
                                                 const char *name,
                                                 int32_t delegate_index) {
  etk_recorder_scope_t s;
  int status;
  if (rec == NULL) return scope_error(ETK_E_INVALID_ARGUMENT);
  if (!delegate_ids_valid(name, delegate_index))
    return scope_error(ETK_E_INVALID_ARGUMENT);
  status = events_open(rec);
  if (status != ETK_OK) return scope_error(status);
  s.name = 0;
  if (name != NULL) {
    if (rec->full && !rec->stats) return scope_error(ETK_E_FULL);
    status = intern_for_event(rec, name, &s.name);
    if (status != ETK_OK) return scope_error(status);
  }
  s.kind = name != NULL ? ETK_SCOPE_DELEGATE_STR : ETK_SCOPE_DELEGATE_INT;
  s.delegate_index = delegate_index;
  s.chain = rec->chain;
  s.debug_handle = rec->debug_handle;
  s.serial = scope_track(rec);
  s.start = rec->clock(rec->clock_ctx);
  return s;
}

static int append_delegate(etk_recorder_t *rec, int is_str, uint32_t id,
                           uint64_t start, uint64_t end, const void *metadata,
                           size_t len) {
  rec_delegate_t r;
  rec_cost_t c;
  uint32_t offset;
  int status = events_open(rec);
  if (status != ETK_OK) return status;
  if (is_str && (id == 0 || id > rec->string_count))
    return ETK_E_INVALID_ARGUMENT;
  if (rec->stats)
    return rec_stats_add(rec, is_str ? id : 0, rec->chain, rec->debug_handle,
                         is_str ? REC_STATS_DELEGATE_STR : (int64_t)(int32_t)id,
                         start, end);
  if (rec->full) return drop_event(rec);
  rec_delegate_cost(rec, is_str, id, rec->chain, (uint32_t)len, &c);
  if (budget_take(rec, &c) != ETK_OK) return drop_event(rec);
  offset = rec->records_end - c.records;
  memset(&r, 0, sizeof r);
  r.kind = REC_DELEGATE;
  r.flags = is_str ? DELEGATE_ID_STR : 0;
  r.metadata_len = (uint16_t)len;
  r.chain = rec->chain;
  r.instruction = rec->debug_handle;
  r.id = id;
  r.start = start;
  r.end = end;
  memcpy(rec_base(rec) + offset, &r, sizeof r);
  if (len) memcpy(rec_base(rec) + offset + sizeof r, metadata, len);
  memset(rec_base(rec) + offset + sizeof r + len, 0,
         rec_round8((uint32_t)len) - len);
  rec->block_events++;
  note_item(rec, rec->block_events);
  rec->event_count++;
  return ETK_OK;
}

int etk_recorder_end_delegate(etk_recorder_t *rec,
                              const etk_recorder_scope_t *scope,
                              const void *metadata, size_t len) {
  uint64_t end;
  int status;
  if (rec == NULL || scope == NULL) return ETK_E_INVALID_ARGUMENT;
  end = rec->clock(rec->clock_ctx);
  if (scope->kind < 0) return end_unusual(rec, scope);
  if (scope->kind != ETK_SCOPE_DELEGATE_INT &&
      scope->kind != ETK_SCOPE_DELEGATE_STR)
    return ETK_E_INVALID_ARGUMENT;
  if (metadata == NULL && len != 0) return ETK_E_INVALID_ARGUMENT;
  if (len > ETK_RECORDER_MAX_METADATA) return ETK_E_LIMIT;
  if (rec->state == REC_STATE_IN_SINK) return ETK_E_INVALID_STATE;
  status = scope_close(rec, scope->serial);
  if (status != ETK_OK) return status;
  if (scope->kind == ETK_SCOPE_DELEGATE_STR)
    return append_delegate(rec, 1, scope->name, scope->start, end, metadata,
                           len);
  return append_delegate(rec, 0, (uint32_t)scope->delegate_index, scope->start,
                         end, metadata, len);
}

int etk_recorder_log_delegate(etk_recorder_t *rec, const char *name,
                              int32_t delegate_index, uint64_t start,
                              uint64_t end, const void *metadata, size_t len) {
  etk_recorder_name_t id = 0;
  int status;
  if (rec == NULL) return ETK_E_INVALID_ARGUMENT;
  if (!delegate_ids_valid(name, delegate_index)) return ETK_E_INVALID_ARGUMENT;
  if (metadata == NULL && len != 0) return ETK_E_INVALID_ARGUMENT;
  if (len > ETK_RECORDER_MAX_METADATA) return ETK_E_LIMIT;
  status = events_open(rec);
  if (status != ETK_OK) return status;
  if (rec->full && !rec->stats) return drop_event(rec);
  if (name != NULL) {
    status = intern_for_event(rec, name, &id);
    if (status == ETK_E_FULL) return drop_event(rec);
    if (status != ETK_OK) return status;
    return append_delegate(rec, 1, id, start, end, metadata, len);
  }
  return append_delegate(rec, 0, (uint32_t)delegate_index, start, end, metadata,
                         len);
}

/* ------------------------------------------------------------ allocations */

int etk_recorder_track_allocator(etk_recorder_t *rec, const char *name,
                                 uint32_t *id) {
  rec_allocator_t r;
  rec_cost_t c;
  rec_block_t b;
  etk_recorder_name_t name_id;
  int status;
  if (id != NULL) *id = 0;
  if (rec == NULL || name == NULL) return ETK_E_INVALID_ARGUMENT;
  if (rec->state != REC_STATE_BLOCK && rec->state != REC_STATE_ALLOCATORS)
    return ETK_E_INVALID_STATE;
  rec_set_state(rec, REC_STATE_ALLOCATORS);
  if (rec->full) {
    count_up(&rec->dropped_allocators);
    return ETK_E_FULL;
  }
  status = intern_for_event(rec, name, &name_id);
  if (status == ETK_E_FULL) {
    count_up(&rec->dropped_allocators);
    return ETK_E_FULL;
  }
  if (status != ETK_OK) return status;
  b = load_block(rec);
  rec_allocator_cost(rec, name_id, &c);
  c.shapes |= SHAPE_BIT(rec_run_data_shape(b.flags, b.allocators + 1u));
  if (budget_take(rec, &c) != ETK_OK) {
    count_up(&rec->dropped_allocators);
    return ETK_E_FULL;
  }
  memset(&r, 0, sizeof r);
  r.kind = REC_ALLOCATOR;
  r.name = name_id;
  memcpy(rec_base(rec) + rec->records_end - sizeof r, &r, sizeof r);
  b.allocators++;
  store_block(rec, &b);
  rec->block_allocators++;
  note_item(rec, rec->block_allocators);
  rec->allocator_count++;
  if (id != NULL) *id = rec->block_allocators;
  return ETK_OK;
}

int etk_recorder_track_allocation(etk_recorder_t *rec, uint32_t allocator_id,
                                  uint64_t size) {
  rec_allocation_t r;
  rec_cost_t c;
  int status;
  if (rec == NULL) return ETK_E_INVALID_ARGUMENT;
  status = events_open(rec);
  if (status != ETK_OK) return status;
  if (rec->full || rec->stats_detached) return drop_event(rec);
  rec_allocation_cost(rec, &c);
  if (budget_take(rec, &c) != ETK_OK) return drop_event(rec);
  memset(&r, 0, sizeof r);
  r.kind = REC_ALLOCATION;
  r.allocator_id = allocator_id;
  r.size = size;
  memcpy(rec_base(rec) + rec->records_end - sizeof r, &r, sizeof r);
  rec->block_events++;
  note_item(rec, rec->block_events);
  rec->event_count++;
  return ETK_OK;
}

/* ------------------------------------------------------------ debug events */

/* Upstream's get_flatbuffer_scalar_type: the dtypes ETDump accepts. */
static int scalar_type_supported(int32_t t) {
  switch (t) {
    case 0:  /* BYTE */
    case 1:  /* CHAR */
    case 2:  /* SHORT */
    case 3:  /* INT */
    case 4:  /* LONG */
    case 6:  /* FLOAT */
    case 7:  /* DOUBLE */
    case 11: /* BOOL */
    case 22: /* BITS16 */
    case 27: /* UINT16 */
      return 1;
    default:
      return 0;
  }
}

/* Bytes of one element of a supported scalar type. */
static uint64_t element_size(int32_t t) {
  switch (t) {
    case 2:  /* SHORT */
    case 22: /* BITS16 */
    case 27: /* UINT16 */
      return 2;
    case 3: /* INT */
    case 6: /* FLOAT */
      return 4;
    case 4: /* LONG */
    case 7: /* DOUBLE */
      return 8;
    default: /* BYTE, CHAR, BOOL */
      return 1;
  }
}

static int tensor_valid(const etk_recorder_tensor_t *t) {
  uint64_t bytes;
  if (!scalar_type_supported(t->scalar_type)) return ETK_E_INVALID_ARGUMENT;
  if (t->dim > ETK_RECORDER_MAX_DIMS) return ETK_E_LIMIT;
  if (t->dim != 0 && t->sizes == NULL) return ETK_E_INVALID_ARGUMENT;
  if (t->nbytes != 0 && t->data == NULL) return ETK_E_INVALID_ARGUMENT;
  /* nbytes must be what the reader will inflate: prod(sizes) x element
   * (0 is "no data": offset -1, whatever the shape, as upstream logs a
   * tensor without storage) */
  if (t->nbytes == 0) return ETK_OK;
  bytes = element_size(t->scalar_type);
  for (uint32_t d = 0; d < t->dim; d++) {
    uint64_t n = (uint64_t)t->sizes[d];
    if (t->sizes[d] < 0) return ETK_E_INVALID_ARGUMENT;
    /* both factors below 2^32 cannot overflow: no division on the usual
     * path; the checked product only for large sizes */
    if ((bytes | n) >> 32 == 0)
      bytes *= n;
    else if (etk_checked_mul_u64(bytes, n, &bytes) != ETK_OK)
      return ETK_E_INVALID_ARGUMENT;
  }
  if (bytes != (uint64_t)t->nbytes) return ETK_E_INVALID_ARGUMENT;
  return ETK_OK;
}

/* Checks a value completely before anything is written; *needs_sink is set
 * when a tensor has bytes. */
static int value_valid(const etk_recorder_value_t *v, int *needs_sink) {
  *needs_sink = 0;
  switch (v->kind) {
    case ETK_RECORDER_VALUE_INT:
    case ETK_RECORDER_VALUE_BOOL:
    case ETK_RECORDER_VALUE_DOUBLE:
      return ETK_OK;
    case ETK_RECORDER_VALUE_TENSOR:
    case ETK_RECORDER_VALUE_TENSOR_LIST: {
      size_t n = v->kind == ETK_RECORDER_VALUE_TENSOR ? 1u : v->tensor_count;
      if (v->tensors == NULL && n != 0) return ETK_E_INVALID_ARGUMENT;
      if (n > 0xFFFFFFu) return ETK_E_LIMIT;
      for (size_t i = 0; i < n; i++) {
        int status = tensor_valid(&v->tensors[i]);
        if (status != ETK_OK) return status;
        if (v->tensors[i].nbytes != 0) *needs_sink = 1;
      }
      return ETK_OK;
    }
    default:
      return ETK_E_INVALID_ARGUMENT;
  }
}

static int have_sink(const etk_recorder_t *rec) {
  return rec->has_debug_buffer || rec->sink.write != NULL;
}

static int sink_write(etk_recorder_t *rec, const void *data, size_t len,
                      uint64_t *offset) {
  if (rec->has_debug_buffer)
    return etk_buffer_sink_write(&rec->debug_buffer, data, len, offset);
  if (rec->sink.write == NULL) return ETK_E_INVALID_STATE;
  return rec->sink.write(rec->sink.ctx, data, len, offset);
}

/* The cost of a DebugEvent (shape debug_shape) of a value of `kind`
 * holding `count` tensors with `dims` dimensions in all into c, which the
 * caller cleared: record bytes, output and vtable bounds, shapes and
 * scratch.  *is_output is cleared for scalars (upstream never flags them).
 * Returns 0 when a bound passes 2^31 - 1 (the event is then dropped). */
static inline int debug_cost(const etk_recorder_t *rec, int kind,
                             uint64_t count, uint64_t dims,
                             unsigned debug_shape, int *is_output,
                             rec_cost_t *c) {
  uint64_t size = sizeof(rec_debug_t), output, vtables;
  output = rec_table_bound(debug_shape) + rec_event_out(SH_EVENT_DEBUG);
  vtables = rec_shape_vtable(debug_shape) + rec_shape_vtable(SH_EVENT_DEBUG);
  c->shapes = SHAPE_BIT(debug_shape) | SHAPE_BIT(SH_EVENT_DEBUG);
  switch (kind) {
    case ETK_RECORDER_VALUE_INT:
    case ETK_RECORDER_VALUE_DOUBLE:
    case ETK_RECORDER_VALUE_BOOL: {
      unsigned value_shape = kind == ETK_RECORDER_VALUE_INT ? SH_VALUE_INT
                             : kind == ETK_RECORDER_VALUE_DOUBLE
                                 ? SH_VALUE_DOUBLE
                                 : SH_VALUE_BOOL;
      unsigned payload = kind == ETK_RECORDER_VALUE_INT      ? SH_INT
                         : kind == ETK_RECORDER_VALUE_DOUBLE ? SH_DOUBLE
                                                             : SH_BOOL;
      *is_output = 0; /* upstream never flags scalars */
      output += rec_table_bound(value_shape) + rec_table_bound(payload);
      vtables += rec_shape_vtable(value_shape) + rec_shape_vtable(payload);
      c->shapes |= SHAPE_BIT(value_shape) | SHAPE_BIT(payload);
      break;
    }
    default: {
      int list = kind == ETK_RECORDER_VALUE_TENSOR_LIST;
      unsigned value_shape =
          list ? (*is_output ? SH_VALUE_LIST_OUT : SH_VALUE_LIST)
               : (*is_output ? SH_VALUE_TENSOR_OUT : SH_VALUE_TENSOR);
      output += rec_table_bound(value_shape);
      vtables += rec_shape_vtable(value_shape);
      c->shapes |= SHAPE_BIT(value_shape);
      if (count) c->shapes |= SHAPE_BIT(SH_TENSOR);
      /* a tensor's bounds are linear in its dims (rec_tensor_out) */
      output += count * rec_tensor_out(0) + 16u * dims;
      vtables += count * rec_shape_vtable(SH_TENSOR);
      size += count * sizeof(rec_tensor_t) + 16u * dims;
      if (list) {
        output += rec_table_bound(SH_TENSOR_LIST) +
                  rec_vector_bound(4u * (uint32_t)count, 4);
        vtables += rec_shape_vtable(SH_TENSOR_LIST);
        c->shapes |= SHAPE_BIT(SH_TENSOR_LIST);
        if (count > rec->max_list)
          c->scratch += 4u * (uint32_t)(count - rec->max_list);
      }
      if (*is_output) {
        output += rec_table_bound(SH_BOOL);
        vtables += rec_shape_vtable(SH_BOOL);
        c->shapes |= SHAPE_BIT(SH_BOOL);
      }
      break;
    }
  }
  if (size > 0x7FFFFFFFu || output > 0x7FFFFFFFu || vtables > 0x7FFFFFFFu)
    return 0;
  c->records = (uint32_t)size;
  c->output = (uint32_t)output;
  c->vtables = (uint32_t)vtables;
  return 1;
}

int rec_debug_cost(const etk_recorder_t *rec, int kind, uint64_t count,
                   uint64_t dims, unsigned debug_shape, int *is_output,
                   rec_cost_t *c) {
  return debug_cost(rec, kind, count, dims, debug_shape, is_output, c);
}

/* Writes the `count` tensors of v: their bytes to the sink, their headers
 * (rec_tensor_t, sizes, strides) into the record area from `at`, which
 * the event's plan reserves but does not yet own.  On a sink failure the
 * event is counted as dropped and the sink's status returned. */
static int write_tensors(etk_recorder_t *rec, const etk_recorder_value_t *v,
                         size_t count, uint32_t at, int stats) {
  size_t sink_used = rec->debug_buffer.used;
  for (size_t i = 0; i < count; i++) {
    etk_recorder_tensor_t t_stats;
    const etk_recorder_tensor_t *t = &v->tensors[i];
    rec_tensor_t h;
    uint64_t sink_offset = 0;
    double st[ETK_TENSOR_STATS_COUNT];
    if (stats && t->nbytes != 0) {
      /* ETK_DEBUG_LEVEL_STATS: the tensor's 13 STATS values go to the sink
       * in place of its bytes (debug_stats.c); its type was checked */
      static const int64_t stats_sizes[1] = {ETK_TENSOR_STATS_COUNT};
      static const int64_t stats_strides[1] = {1};
      (void)etk_tensor_stats_compute(t->scalar_type, t->data,
                                     t->nbytes / element_size(t->scalar_type),
                                     st);
      t_stats.scalar_type = 7; /* DOUBLE */
      t_stats.dim = 1;
      t_stats.sizes = stats_sizes;
      t_stats.strides = stats_strides;
      t_stats.data = st;
      t_stats.nbytes = sizeof st;
      t = &t_stats;
    }
    h.scalar_type = t->scalar_type;
    h.dim = t->dim;
    if (t->nbytes == 0) {
      h.offset = -1;
    } else {
      int status;
      if (rec->has_debug_buffer) {
        /* our own buffer: no callback, nothing can re-enter */
        status = etk_buffer_sink_write(&rec->debug_buffer, t->data, t->nbytes,
                                       &sink_offset);
      } else {
        uint8_t state = rec->state, hot = rec->hot;
        /* the callback may call back into the recorder: refuse it all
         * while this event owns reserved space (recorder.h) */
        rec->state = REC_STATE_IN_SINK;
        rec->hot = 0;
        status = sink_write(rec, t->data, t->nbytes, &sink_offset);
        rec->state = state;
        rec->hot = hot;
      }
      if (status == ETK_OK && sink_offset > (uint64_t)INT64_MAX)
        status = ETK_E_OVERFLOW; /* -1 would read as "no data" */
      if (status != ETK_OK) {
        /* our own buffer can forget the list's earlier tensors */
        if (rec->has_debug_buffer) {
          rec->debug_buffer.used = sink_used;
          if (status == ETK_E_FULL) rec->debug_full = 1;
        }
        count_up(&rec->dropped_events);
        return status;
      }
      h.offset = (int64_t)sink_offset;
    }
    memcpy(rec_base(rec) + at, &h, sizeof h);
    at += (uint32_t)sizeof h;
    if (t->dim) memcpy(rec_base(rec) + at, t->sizes, 8u * t->dim);
    at += 8u * t->dim;
    if (t->strides != NULL) {
      if (t->dim) memcpy(rec_base(rec) + at, t->strides, 8u * t->dim);
    } else {
      /* contiguous strides, in elements (wrapping, never UB) */
      uint64_t stride = 1;
      for (uint32_t d = t->dim; d-- > 0;) {
        int64_t s = (int64_t)stride;
        memcpy(rec_base(rec) + at + 8u * d, &s, sizeof s);
        stride *= t->sizes[d] > 0 ? (uint64_t)t->sizes[d] : 1u;
      }
    }
    at += 8u * t->dim;
  }
  return ETK_OK;
}

/* Appends a DebugEvent record.  flags: DEBUG_OUTPUT, DEBUG_DELEGATE_INT
 * (id = int id), DEBUG_DELEGATE_STR (id = name). */
static int append_debug(etk_recorder_t *rec, const etk_recorder_value_t *v,
                        uint8_t flags, uint32_t id) {
  rec_debug_t r;
  rec_cost_t c;
  rec_plan_t plan;
  unsigned id_kind = (flags & DEBUG_DELEGATE_STR)   ? 2u
                     : (flags & DEBUG_DELEGATE_INT) ? 1u
                                                    : 0u;
  unsigned debug_shape = rec_debug_shape(rec->chain, id_kind);
  int is_output = (flags & DEBUG_OUTPUT) != 0;
  size_t count = 0;
  uint64_t dims = 0;
  uint32_t offset;
  int status = events_open(rec);
  if (status != ETK_OK) return status;
  if (rec->full || rec->stats_detached) return drop_event(rec);

  if (v->kind == ETK_RECORDER_VALUE_TENSOR ||
      v->kind == ETK_RECORDER_VALUE_TENSOR_LIST) {
    count = v->kind == ETK_RECORDER_VALUE_TENSOR ? 1u : v->tensor_count;
    for (size_t i = 0; i < count; i++) {
      /* a STATS vector has one dimension */
      int reduce =
          rec->debug_level == ETK_DEBUG_LEVEL_STATS && v->tensors[i].nbytes;
      dims += reduce ? 1u : v->tensors[i].dim;
      if (reduce) flags |= DEBUG_STATS;
    }
  }
  cost_clear(&c);
  if (!debug_cost(rec, v->kind, count, dims, debug_shape, &is_output, &c))
    return drop_event(rec);
  c.scratch += rec_item_scratch(rec, rec->block_events);
  c.names[0] = id_kind == 2u ? id : 0;
  if (flags & DEBUG_STATS) rec_stats_marker_cost(rec, &c);
  if (!budget_check(rec, &c, &plan)) {
    rec_set_full(rec);
    return drop_event(rec);
  }

  /* It fits: write the tensors, then the record in front of them. */
  offset = rec->records_end;
  status = write_tensors(rec, v, count, offset + (uint32_t)sizeof r,
                         (flags & DEBUG_STATS) != 0);
  if (status != ETK_OK) return status;
  memset(&r, 0, sizeof r);
  r.kind = REC_DEBUG;
  r.value_kind = (uint8_t)v->kind;
  r.flags = (uint8_t)(flags & ~(is_output ? 0u : DEBUG_OUTPUT));
  r.size = c.records;
  r.chain = rec->chain;
  r.instruction = rec->debug_handle;
  r.delegate_id = id;
  r.tensor_count = (uint32_t)count;
  if (v->kind == ETK_RECORDER_VALUE_INT)
    r.value.i = v->int_value;
  else if (v->kind == ETK_RECORDER_VALUE_DOUBLE)
    r.value.d = v->double_value;
  else if (v->kind == ETK_RECORDER_VALUE_BOOL)
    r.value.u = v->bool_value != 0;
  memcpy(rec_base(rec) + offset, &r, sizeof r);
  budget_commit(rec, &c, &plan);
  if (flags & DEBUG_STATS) rec->stats_marker = 1;
  if (v->kind == ETK_RECORDER_VALUE_TENSOR_LIST && count > rec->max_list)
    rec->max_list = (uint32_t)count;
  rec->block_events++;
  note_item(rec, rec->block_events);
  rec->event_count++;
  return ETK_OK;
}

int etk_recorder_log_value(etk_recorder_t *rec, const etk_recorder_value_t *v,
                           etk_logged_type_t type) {
  int needs_sink, status;
  if (rec == NULL || v == NULL) return ETK_E_INVALID_ARGUMENT;
  if (type != ETK_LOGGED_INTERMEDIATE_OUTPUT &&
      type != ETK_LOGGED_PROGRAM_OUTPUT)
    return ETK_E_INVALID_ARGUMENT;
  status = value_valid(v, &needs_sink);
  if (status != ETK_OK) return status;
  if (rec->state != REC_STATE_BLOCK && rec->state != REC_STATE_ALLOCATORS &&
      rec->state != REC_STATE_EVENTS)
    return ETK_E_INVALID_STATE;
  if (needs_sink && !have_sink(rec) && !rec->full) return ETK_E_INVALID_STATE;
  return append_debug(rec, v,
                      type == ETK_LOGGED_PROGRAM_OUTPUT ? DEBUG_OUTPUT : 0u, 0);
}

int etk_recorder_should_log(const etk_recorder_t *rec, etk_logged_type_t type) {
  if (rec == NULL) return 0;
  if (type == ETK_LOGGED_PROGRAM_OUTPUT)
    return rec->debug_level >= ETK_DEBUG_LEVEL_PROGRAM_OUTPUTS;
  return rec->debug_level >= ETK_DEBUG_LEVEL_INTERMEDIATE_OUTPUTS;
}

int etk_recorder_log_delegate_value(etk_recorder_t *rec, const char *name,
                                    int32_t delegate_index,
                                    const etk_recorder_value_t *v) {
  etk_recorder_name_t id = 0;
  int needs_sink, status;
  if (rec == NULL || v == NULL) return ETK_E_INVALID_ARGUMENT;
  if (!delegate_ids_valid(name, delegate_index)) return ETK_E_INVALID_ARGUMENT;
  status = value_valid(v, &needs_sink);
  if (status != ETK_OK) return status;
  if (rec->filter != NULL) {
    int drop = 0;
    status = etk_filter_check(rec->filter, name, delegate_index, &drop);
    if (status != ETK_OK) return status;
    if (drop) return ETK_RECORDER_FILTERED;
  }
  if (rec->state != REC_STATE_BLOCK && rec->state != REC_STATE_ALLOCATORS &&
      rec->state != REC_STATE_EVENTS)
    return ETK_E_INVALID_STATE;
  if (needs_sink && !have_sink(rec) && !rec->full) return ETK_E_INVALID_STATE;
  if (name != NULL) {
    status = events_open(rec);
    if (status != ETK_OK) return status;
    if (rec->full) return drop_event(rec);
    status = intern_for_event(rec, name, &id);
    if (status == ETK_E_FULL) return drop_event(rec);
    if (status != ETK_OK) return status;
    return append_debug(rec, v, DEBUG_DELEGATE_STR, id);
  }
  return append_debug(rec, v, DEBUG_DELEGATE_INT, (uint32_t)delegate_index);
}
