/*
 * recorder_internal.h - what record.c (recording) and finish.c (building
 * the FlatBuffer) share: the context layout, the record formats, the table
 * "shapes" and the worst-case output cost of each record.
 *
 * Not a public header: an MCU build copies it along with the .c files.
 */
#ifndef ETKIT_RECORDER_INTERNAL_H
#define ETKIT_RECORDER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "etkit/flatbuf.h"
#include "etkit/recorder.h"
#include "etkit/recorder_calibration.h"
#include "etkit/sketch.h"

/* ------------------------------------------------------------ state */

enum {
  REC_STATE_INIT = 0,   /* no block yet */
  REC_STATE_BLOCK,      /* block begun, nothing else (BlockCreated) */
  REC_STATE_ALLOCATORS, /* allocators being added (AddingAllocators) */
  REC_STATE_EVENTS,     /* events being added (AddingEvents) */
  REC_STATE_DONE,       /* finished */
  REC_STATE_IN_SINK     /* a data sink's write callback is running: every
                         * recording call fails with ETK_E_INVALID_STATE
                         * until it returns (the event being written owns
                         * reserved space the call could overwrite) */
};

/* One interned string.  `gen` is the dump generation in which the string's
 * output bytes were last reserved; `ref` is its builder ref during finish. */
typedef struct rec_string {
  uint32_t offset; /* from the context start; text is NUL-terminated */
  uint32_t len;
  uint32_t hash;
  uint32_t gen;
  uint32_t ref;
} rec_string_t;

struct etk_recorder {
  uint32_t arena_size; /* bytes from the context start to the arena end */

  /* string table: u16 slots (0 = empty, else id) then rec_string_t[] */
  uint32_t slots_offset;
  uint32_t entries_offset;
  uint32_t hash_mask; /* slot count - 1 */
  uint32_t max_strings;
  uint32_t string_count;

  /* arena regions: [records_begin, records_end) grows up, the string pool
   * [strings_low, arena_size) grows down, the rest is free */
  uint32_t records_begin;
  uint32_t records_end;
  uint32_t strings_low;

  /* separate output buffer (NULL: build in the arena's free space) */
  uint8_t *output;
  uint32_t output_capacity;

  /* reservation (see record.c "BUDGET") */
  uint32_t scratch_bytes;  /* finish scratch: block refs, items, list refs */
  uint32_t output_base;    /* worst-case output bytes except vtables */
  uint32_t vtables_all;    /* one vtable per table emitted */
  uint32_t vtables_shared; /* one vtable per distinct shape used */
  uint64_t shapes;         /* bit s: shape s used in this dump */
  uint32_t shape_count;
  /* Fast-path view of the budget (kept equal to what budget_check
   * computes; refreshed by rooms_refresh after every slow-path change):
   * arena bytes still free and, with a separate output buffer, output
   * bytes still free (UINT32_MAX when the output shares the arena). */
  uint32_t arena_room;
  uint32_t output_room;
  /* per profile variant (name?, chain?): arena and output bytes one event
   * costs (the output part is charged to the arena when they share it;
   * vtables included in the conservative regime) */
  uint32_t profile_arena_cost[4];
  uint32_t profile_output_cost[4];
  /* per profile variant: what one event adds to output_base and to
   * vtables_all (constants, kept here so the fast path reads no table) */
  uint32_t profile_output_add[4];
  uint32_t profile_vtables_add[4];

  etk_recorder_clock_fn clock;
  void *clock_ctx;

  uint8_t state;
  uint8_t full;       /* stop-and-count latch */
  uint8_t full_names; /* the latch was set by a name the table had no room
                       * for (max_strings): discarding events cannot help */
  uint8_t debug_full; /* a tensor found the own debug buffer full: a ring's
                       * discard may make room there (ring.c) */
  uint8_t hot;        /* 1 only while state == EVENTS and !full: the fast path's
                       * single check; cleared by every state or latch change */
  uint8_t profile_ready; /* bit v: profile variant v needs no new shape */
  uint8_t debug_level;
  uint8_t profiling_level;
  uint32_t gen; /* dump generation, never 0 */

  uint32_t block_record; /* offset of the current block record, 0 = none */
  uint32_t block_count;
  uint32_t event_count;
  uint32_t allocator_count;
  uint32_t block_events;     /* events in the current block */
  uint32_t block_allocators; /* allocators in the current block */
  uint32_t max_items;        /* most allocators or events in one block */
  uint32_t max_list;         /* most tensors in one tensor list */

  int32_t chain;
  uint32_t debug_handle;
  int32_t bundled_input_index;

  uint32_t dropped_events;
  uint32_t dropped_blocks;
  uint32_t dropped_allocators;

  const etk_filter_t *filter;
  etk_data_sink_t sink;
  etk_buffer_sink_t debug_buffer; /* for etk_recorder_set_debug_buffer */
  int has_debug_buffer;

  uint32_t last_output_len;

  /* Open scopes, for refusing a second end of the same scope: serials of
   * scopes begun and not yet ended (most recent last).  A scope begun
   * while the list is full gets serial 0 and is not tracked. */
  uint32_t next_serial;
  uint32_t open_count;
  uint32_t open_serials[ETK_RECORDER_TRACKED_SCOPES];

  /* Self-measurement (calibrate.c): written by finish as a marker block
   * when `calibrated`; its output is reserved by rec_budget_reset. */
  uint8_t calibrated;
  etk_recorder_calibration_t calibration;
  /* Flight recorder (trigger.c): the attached one (borrowed, for
   * etk_recorder_trigger) and the snapshot note finish writes as an
   * event-less RunData while note_len != 0; its output is reserved by
   * rec_budget_reset while note_reserved. */
  struct etk_flight *flight;
  const char *note;
  uint32_t note_len;
  uint8_t note_reserved;
  /* ETK_DEBUG_LEVEL_STATS: a record of this dump holds a STATS vector, so
   * finish writes the ETK_TENSOR_STATS_MARKER RunData (its output was
   * charged with that record; rec_budget_reset clears it). */
  uint8_t stats_marker;

  /* Stats profile mode (stats.c): the latency table (slots in the arena
   * between the string entries and the records), whether the current
   * block is a continued one that is not the dump's last block (records
   * other than sketches are then refused), and whether the sketches
   * RunData is reserved in this dump. */
  uint8_t stats;
  uint8_t stats_detached;
  uint8_t stats_record;
  etk_latency_table_t latency;
};

static inline void rec_set_state(etk_recorder_t *rec, uint8_t state) {
  rec->state = state;
  rec->hot = 0;
}

static inline void rec_set_full(etk_recorder_t *rec) {
  rec->full = 1;
  rec->full_names = 0;
  rec->hot = 0;
}

static inline uint8_t *rec_base(const etk_recorder_t *rec) {
  return (uint8_t *)(uintptr_t)rec;
}

static inline rec_string_t *rec_strings(const etk_recorder_t *rec) {
  return (rec_string_t *)(void *)(rec_base(rec) + rec->entries_offset);
}

/* Entry of id (1-based).  The caller checks 1 <= id <= string_count. */
static inline rec_string_t *rec_string(const etk_recorder_t *rec,
                                       etk_recorder_name_t id) {
  return rec_strings(rec) + (id - 1u);
}

/* ------------------------------------------------------------ records
 *
 * Records are appended in call order (events in END order, as upstream).
 * Every record starts with its kind byte, is a multiple of 8 bytes and is
 * copied in and out with memcpy (the arena is plain caller bytes). */
enum {
  REC_BLOCK = 1,
  REC_ALLOCATOR = 2,
  REC_PROFILE = 3,
  REC_DELEGATE = 4,
  REC_ALLOCATION = 5,
  REC_DEBUG = 6
};

/* block flags */
#define BLOCK_HAS_BUNDLED 1u
#define BLOCK_EVENTS_OPEN 2u

typedef struct rec_block {
  uint8_t kind;
  uint8_t flags;
  uint16_t unused;
  etk_recorder_name_t name;
  int32_t bundled_input_index;
  uint32_t allocators; /* allocator records that follow */
  uint32_t unused2[2];
} rec_block_t; /* 24 bytes */

typedef struct rec_allocator {
  uint8_t kind;
  uint8_t unused[3];
  etk_recorder_name_t name;
} rec_allocator_t; /* 8 bytes */

/* chain comes before name on purpose: in the scope they are in the other
 * order, so the compiler cannot merge the two 4-byte copies into one 8-byte
 * load, which would not be forwarded from begin's two 4-byte stores (a
 * stall of ~10 cycles on the hot path). */
typedef struct rec_profile {
  uint8_t kind;
  uint8_t unused[3];
  int32_t chain;
  etk_recorder_name_t name; /* 0 = none */
  uint32_t instruction;
  uint64_t start;
  uint64_t end;
} rec_profile_t; /* 32 bytes: one operator event */

#define DELEGATE_ID_STR 1u
typedef struct rec_delegate {
  uint8_t kind;
  uint8_t flags;         /* DELEGATE_ID_STR: id is a name */
  uint16_t metadata_len; /* metadata bytes follow, padded to 8 */
  int32_t chain;
  uint32_t instruction;
  uint32_t id; /* int32 id or name */
  uint64_t start;
  uint64_t end;
} rec_delegate_t; /* 32 bytes + metadata */

typedef struct rec_allocation {
  uint8_t kind;
  uint8_t unused[3];
  uint32_t allocator_id;
  uint64_t size;
} rec_allocation_t; /* 16 bytes */

#define DEBUG_OUTPUT 1u
#define DEBUG_DELEGATE_INT 2u
#define DEBUG_DELEGATE_STR 4u
#define DEBUG_STATS 8u /* its tensors with data are STATS vectors */
typedef struct rec_debug {
  uint8_t kind;
  uint8_t value_kind; /* etk_value_kind_t */
  uint8_t flags;
  uint8_t unused;
  uint32_t size; /* whole record, tensors included */
  int32_t chain;
  uint32_t instruction;
  uint32_t delegate_id; /* int32 id or name */
  uint32_t tensor_count;
  union {
    int64_t i;
    double d;
    uint64_t u;
  } value;
} rec_debug_t; /* 32 bytes, then tensor_count x (rec_tensor_t + 2*dim i64) */

typedef struct rec_tensor {
  int32_t scalar_type;
  uint32_t dim;
  int64_t offset; /* in the data sink, -1 for an empty tensor */
} rec_tensor_t;   /* 16 bytes, then sizes[dim], strides[dim] */

static inline uint32_t rec_round8(uint32_t n) {
  return (n + 7u) & ~7u;
}

/* Size of the record at `p` (kind byte first). */
static inline uint32_t rec_record_size(const uint8_t *p) {
  switch (p[0]) {
    case REC_BLOCK:
      return (uint32_t)sizeof(rec_block_t);
    case REC_ALLOCATOR:
      return (uint32_t)sizeof(rec_allocator_t);
    case REC_PROFILE:
      return (uint32_t)sizeof(rec_profile_t);
    case REC_DELEGATE: {
      uint16_t n;
      memcpy(&n, p + 2, sizeof n);
      return (uint32_t)sizeof(rec_delegate_t) + rec_round8(n);
    }
    case REC_ALLOCATION:
      return (uint32_t)sizeof(rec_allocation_t);
    case REC_DEBUG: {
      uint32_t n;
      memcpy(&n, p + 4, sizeof n);
      return n;
    }
    default:
      return 0;
  }
}

/* ------------------------------------------------------------ shapes
 *
 * A "shape" is one table type with one set of fields added in one order.
 * Every table of a shape has the same vtable, so the builder's vtable cache
 * shares it.  finish.c writes exactly these shapes; the tables below give,
 * for each, the field bytes D (fields packed in write order, each at the
 * next multiple of its size), the table alignment A and the vtable bytes.
 * Scalars equal to their default that do not change the decoded content
 * are forced (start/end times, instruction ids, allocation fields, tensor
 * dtype/offset, Int/Bool/Double values) so that shapes do not multiply. */
enum {
  SH_ETDUMP = 0,
  SH_RUN_DATA = 1, /* + BUNDLED(1) + ALLOCATORS(2) + EVENTS(4): 8 */
  SH_ALLOCATOR = 9,
  SH_EVENT_PROFILE = 10,
  SH_EVENT_ALLOCATION = 11,
  SH_EVENT_DEBUG = 12,
  SH_PROFILE = 13,  /* + NAME(1) + CHAIN(2): 4 */
  SH_DELEGATE = 17, /* + STR(1) + CHAIN(2): 4 */
  SH_ALLOCATION = 21,
  SH_DEBUG = 22, /* + CHAIN(1) + 2*(0 none, 1 int, 2 str): 6 */
  SH_VALUE_TENSOR = 28,
  SH_VALUE_TENSOR_OUT = 29,
  SH_VALUE_LIST = 30,
  SH_VALUE_LIST_OUT = 31,
  SH_VALUE_INT = 32,
  SH_VALUE_DOUBLE = 33,
  SH_VALUE_BOOL = 34,
  SH_TENSOR = 35,
  SH_TENSOR_LIST = 36,
  SH_INT = 37,
  SH_DOUBLE = 38,
  SH_BOOL = 39,
  SH_COUNT = 40
};

#define SH_RUN_DATA_BUNDLED 1u
#define SH_RUN_DATA_ALLOCATORS 2u
#define SH_RUN_DATA_EVENTS 4u

typedef struct rec_shape_info {
  uint8_t data_bytes; /* D */
  uint8_t align;      /* A */
  uint8_t vtable;     /* 4 + 2 * (highest id + 1) */
} rec_shape_info_t;

/* D (field bytes), A (alignment), vtable bytes of every shape finish.c
 * writes; the comment gives the write order, which fixes D. */
static const rec_shape_info_t rec_shape_table[SH_COUNT] = {
    {4, 4, 8}, /* ETDump: run_data */
    /* RunData: name [bundled] [allocators] [events] */
    {4, 4, 6},
    {8, 4, 8},
    {8, 4, 10},
    {12, 4, 10},
    {8, 4, 12},
    {12, 4, 12},
    {12, 4, 12},
    {16, 4, 12},
    {4, 4, 6},  /* Allocator: name */
    {4, 4, 6},  /* Event: profile_event */
    {4, 4, 8},  /* Event: allocation_event */
    {4, 4, 10}, /* Event: debug_event */
    /* ProfileEvent: start end [chain] instruction [name] */
    {20, 8, 20},
    {24, 8, 20},
    {24, 8, 20},
    {28, 8, 20},
    /* ProfileEvent (delegate): start end [chain] instruction id metadata */
    {28, 8, 20},
    {28, 8, 20},
    {32, 8, 20},
    {32, 8, 20},
    {12, 8, 8}, /* AllocationEvent: size allocator_id */
    /* DebugEvent: [chain] instruction [id] debug_entry */
    {8, 4, 10},
    {16, 8, 10},
    {12, 4, 12},
    {20, 8, 12},
    {12, 4, 14},
    {20, 8, 14},
    {8, 4, 8},   /* Value: val tensor */
    {12, 4, 20}, /* Value: val tensor output */
    {8, 4, 10},  /* Value: val tensor_list */
    {12, 4, 20}, /* Value: val tensor_list output */
    {8, 4, 12},  /* Value: val int_value */
    {5, 4, 16},  /* Value: double_value val */
    {5, 4, 18},  /* Value: bool_value val */
    {24, 8, 12}, /* Tensor: scalar_type sizes strides offset */
    {4, 4, 6},   /* TensorList: tensors */
    {8, 8, 6},   /* Int: int_val */
    {8, 8, 6},   /* Double: double_val */
    {1, 4, 6},   /* Bool: bool_val */
};

/* Worst-case bytes of one table of shape s, vtable excluded:
 * [soffset 4][D][pad < A]. */
static inline uint32_t rec_table_bound(unsigned s) {
  return 4u + rec_shape_table[s].data_bytes + rec_shape_table[s].align - 1u;
}

static inline uint32_t rec_shape_vtable(unsigned s) {
  return rec_shape_table[s].vtable;
}

static inline unsigned rec_profile_shape(int has_name, int32_t chain) {
  return SH_PROFILE + (has_name ? 1u : 0u) + (chain != 0 ? 2u : 0u);
}
static inline unsigned rec_delegate_shape(int is_str, int32_t chain) {
  return SH_DELEGATE + (is_str ? 1u : 0u) + (chain != 0 ? 2u : 0u);
}
/* id_kind: 0 none, 1 int, 2 str */
static inline unsigned rec_debug_shape(int32_t chain, unsigned id_kind) {
  return SH_DEBUG + (chain != 0 ? 1u : 0u) + 2u * id_kind;
}

/* ------------------------------------------------------------ costs
 *
 * Worst-case output bytes of objects other than tables (the builder's
 * layout, src/flatbuf/builder.c): a string is [u32 n][n][NUL][pad<4];
 * a vector [u32 count][elements][pad < max(align, 4)]. */
static inline uint32_t rec_string_bound(uint32_t len) {
  return len + 8u;
}
static inline uint32_t rec_vector_bound(uint32_t bytes, uint32_t align) {
  return 4u + bytes + (align < 4u ? 4u : align) - 1u;
}

/* Header [size][root]["ED00"][pad < 8] plus the builder's end trim (< 8). */
#define REC_HEADER_BOUND (12u + 7u + 7u)
/* Longest dropped marker name: "etkit:dropped_events=" + 10 digits +
 * ",blocks=" + 10 digits + ",allocators=" + 10 digits. */
#define REC_MARKER_MAX 72u

/* Longest calibration marker name (calibrate.c): "etkit:calibration=" and
 * seven ",key=" parts of at most 16 digits and a point (179 bytes), then
 * ",adjacent=1" (190). */
#define REC_CALIB_MAX 200u

/* Output of the calibration marker: its name, RunData and run_data slot
 * (plus 4 bytes of finish scratch, charged with it). */
static inline uint32_t rec_calibration_out(void) {
  return rec_string_bound(REC_CALIB_MAX) + rec_table_bound(SH_RUN_DATA) + 4u;
}

/* Writes the calibration marker's RunData (calibrate.c); 0 if none. */
etk_fb_ref_t rec_calibration_emit(etk_recorder_t *rec, etk_fb_builder_t *b);

/* Longest snapshot note (trigger.c; ETK_FLIGHT_NOTE_MAX) and its output:
 * its name, RunData and run_data slot (plus 4 bytes of finish scratch). */
#define REC_NOTE_MAX 192u
static inline uint32_t rec_note_out(void) {
  return rec_string_bound(REC_NOTE_MAX) + rec_table_bound(SH_RUN_DATA) + 4u;
}

/* Output of the STATS marker (ETK_TENSOR_STATS_MARKER): its name, RunData
 * and run_data slot (plus 4 bytes of finish scratch, charged with it). */
uint32_t rec_stats_marker_out(void);

/* Writes the STATS marker's RunData (record.c). */
etk_fb_ref_t rec_stats_marker_emit(etk_fb_builder_t *b);
/* Stats mode (stats.c).  The sketches RunData's name
 * "etkit:latency_sketches=version=1,keys=K,error=E" is at most
 * REC_SKETCHES_NAME_MAX bytes; one sketch's allocator name
 * "r=R,e=E,s=BASE64" at most REC_SKETCH_TEXT_MAX. */
#define REC_SKETCHES_PREFIX "etkit:latency_sketches="
#define REC_SKETCHES_NAME_MAX 96u
#define REC_SKETCH_TEXT_MAX \
  (8u + 2u * 10u + 4u * ((ETK_SKETCH_MAX_BYTES + 2u) / 3u))
/* Delegate ids in latency keys: a string id keys with its name and this
 * delegate_id; a plain event has ETK_DELEGATE_ID_UNSET. */
#define REC_STATS_DELEGATE_STR ((int64_t)INT32_MIN - 1)
/* The record of the block named `name` in this dump, 0 if none; *last
 * says whether it is the dump's last block (stats.c). */
uint32_t rec_stats_find_block(const etk_recorder_t *rec,
                              etk_recorder_name_t name, int *last);

/* One tensor: sizes + strides vectors and the Tensor table. */
static inline uint32_t rec_tensor_out(uint32_t dim) {
  return 2u * rec_vector_bound(8u * dim, 8u) + rec_table_bound(SH_TENSOR);
}

/* Output of everything of a dump that does not depend on the records:
 * header, ETDump table, run_data vector header, the dropped marker (always
 * reserved) and its run_data slot. */
static inline uint32_t rec_fixed_out(void) {
  return REC_HEADER_BOUND + rec_table_bound(SH_ETDUMP) +
         rec_vector_bound(0, 4) + rec_table_bound(SH_RUN_DATA) + 4u +
         rec_string_bound(REC_MARKER_MAX);
}

/* A block: RunData (largest shape), its run_data slot, the events and
 * allocators vector headers. */
static inline uint32_t rec_block_out(void) {
  return rec_table_bound(SH_RUN_DATA + 7u) + 4u + 2u * rec_vector_bound(0, 4);
}

/* Scratch every dump needs at finish: the builder itself (kept in the arena
 * so that finish uses little stack) and the dropped marker's run_data ref. */
static inline uint32_t rec_fixed_scratch(void) {
  return rec_round8((uint32_t)sizeof(etk_fb_builder_t)) + 4u;
}

/* Event wrapper + events-vector slot. */
static inline uint32_t rec_event_out(unsigned event_shape) {
  return rec_table_bound(event_shape) + 4u;
}

/* ------------------------------------------------------------ budget
 *
 * What a record is charged (record.c "BUDGET"): the append functions and
 * ring.c (which charges kept records again after discarding the oldest)
 * use the same helpers.  The *_cost helpers fill c completely. */
typedef struct rec_cost {
  uint32_t records; /* bytes appended to the records area */
  uint32_t scratch; /* finish scratch growth */
  uint32_t output;  /* output bytes other than vtables and strings */
  uint32_t vtables; /* vtable bytes if none were shared */
  uint64_t shapes;  /* shapes the record's tables use */
  etk_recorder_name_t names[2]; /* strings referenced (0 = none) */
} rec_cost_t;

#define SHAPE_BIT(s) ((uint64_t)1 << (s))

/* Scratch for one more event (or allocator) in the current block. */
static inline uint32_t rec_item_scratch(const etk_recorder_t *rec,
                                        uint32_t items) {
  return items + 1u > rec->max_items ? 4u : 0u;
}

static inline unsigned rec_run_data_shape(uint8_t flags, uint32_t allocators) {
  unsigned s = SH_RUN_DATA;
  if (flags & BLOCK_HAS_BUNDLED) s += SH_RUN_DATA_BUNDLED;
  if (allocators) s += SH_RUN_DATA_ALLOCATORS;
  if (flags & BLOCK_EVENTS_OPEN) s += SH_RUN_DATA_EVENTS;
  return s;
}

static inline void rec_block_cost(uint8_t flags, uint32_t allocators,
                                  etk_recorder_name_t name, rec_cost_t *c) {
  memset(c, 0, sizeof *c);
  c->records = (uint32_t)sizeof(rec_block_t);
  c->scratch = 4u;
  c->output = rec_block_out();
  c->vtables = rec_shape_vtable(SH_RUN_DATA + 7u);
  c->shapes = SHAPE_BIT(rec_run_data_shape(flags, allocators));
  c->names[0] = name;
}

static inline void rec_allocator_cost(const etk_recorder_t *rec,
                                      etk_recorder_name_t name, rec_cost_t *c) {
  memset(c, 0, sizeof *c);
  c->records = (uint32_t)sizeof(rec_allocator_t);
  c->scratch = rec_item_scratch(rec, rec->block_allocators);
  c->output = rec_table_bound(SH_ALLOCATOR) + 4u;
  c->vtables = rec_shape_vtable(SH_ALLOCATOR);
  c->shapes = SHAPE_BIT(SH_ALLOCATOR);
  c->names[0] = name;
}

static inline void rec_profile_cost(const etk_recorder_t *rec,
                                    etk_recorder_name_t name, int32_t chain,
                                    rec_cost_t *c) {
  unsigned shape = rec_profile_shape(name != 0, chain);
  memset(c, 0, sizeof *c);
  c->records = (uint32_t)sizeof(rec_profile_t);
  c->scratch = rec_item_scratch(rec, rec->block_events);
  c->output = rec_table_bound(shape) + rec_event_out(SH_EVENT_PROFILE);
  c->vtables = rec_shape_vtable(shape) + rec_shape_vtable(SH_EVENT_PROFILE);
  c->shapes = SHAPE_BIT(shape) | SHAPE_BIT(SH_EVENT_PROFILE);
  c->names[0] = name;
}

static inline void rec_delegate_cost(const etk_recorder_t *rec, int is_str,
                                     uint32_t id, int32_t chain, uint32_t len,
                                     rec_cost_t *c) {
  unsigned shape = rec_delegate_shape(is_str, chain);
  memset(c, 0, sizeof *c);
  c->records = (uint32_t)sizeof(rec_delegate_t) + rec_round8(len);
  c->scratch = rec_item_scratch(rec, rec->block_events);
  c->output = rec_table_bound(shape) + rec_event_out(SH_EVENT_PROFILE) +
              rec_vector_bound(len, 1);
  c->vtables = rec_shape_vtable(shape) + rec_shape_vtable(SH_EVENT_PROFILE);
  c->shapes = SHAPE_BIT(shape) | SHAPE_BIT(SH_EVENT_PROFILE);
  c->names[0] = is_str ? id : 0;
}

static inline void rec_allocation_cost(const etk_recorder_t *rec,
                                       rec_cost_t *c) {
  memset(c, 0, sizeof *c);
  c->records = (uint32_t)sizeof(rec_allocation_t);
  c->scratch = rec_item_scratch(rec, rec->block_events);
  c->output =
      rec_table_bound(SH_ALLOCATION) + rec_event_out(SH_EVENT_ALLOCATION);
  c->vtables =
      rec_shape_vtable(SH_ALLOCATION) + rec_shape_vtable(SH_EVENT_ALLOCATION);
  c->shapes = SHAPE_BIT(SH_ALLOCATION) | SHAPE_BIT(SH_EVENT_ALLOCATION);
}

/* Adds the STATS marker's output and scratch to c when the dump does not
 * hold it yet (record.c, ring.c: the caller sets rec->stats_marker once
 * the record's cost is taken). */
void rec_stats_marker_cost(const etk_recorder_t *rec, rec_cost_t *c);

/* c must be cleared by the caller; 0 when a bound passes 2^31 - 1. */
int rec_debug_cost(const etk_recorder_t *rec, int kind, uint64_t count,
                   uint64_t dims, unsigned debug_shape, int *is_output,
                   rec_cost_t *c);
/* Takes c from the budget: ETK_OK, or ETK_E_FULL (latches `full`). */
int rec_budget_take(etk_recorder_t *rec, const rec_cost_t *c);
/* Forgets every record's reservation (records_end back to the start) and
 * the tallies of the records (blocks, events, allocators, the current
 * block's, the largest list), and starts a new string generation; the
 * state, the drop counters and the current block are the caller's. */
void rec_budget_reset(etk_recorder_t *rec);
uint32_t rec_output_reserved(const etk_recorder_t *rec);
/* Charges every record in [records_begin, end) again and recounts them
 * (ring.c): ETK_OK or ETK_E_INTERNAL. */
int rec_charge_again(etk_recorder_t *rec, uint32_t end);
/* Moves the bytes the kept debug records refer to, in the recorder's own
 * debug buffer, to its front and rewrites their offsets (ring.c). */
void rec_compact_debug_buffer(etk_recorder_t *rec);
uint64_t rec_pool_floor(const etk_recorder_t *rec);

/* ------------------------------------------------------------ layout */

/* Arena layout of a config: offsets of the slots, entries, records. */
typedef struct rec_layout {
  uint32_t hash_slots;
  uint64_t slots_offset, entries_offset, records_begin;
} rec_layout_t;

/* Fills *l for a recorder of max_strings interned strings (0: the
 * default).  ETK_OK, or ETK_E_LIMIT beyond ETK_RECORDER_MAX_STRINGS
 * (sizing.c). */
int rec_layout_for(uint32_t max_strings, rec_layout_t *l);

/* ------------------------------------------------------------ stats */

/* The stats-mode path of a profiling event: adds end - start to the key's
 * sketch (a new key charged first).  ETK_OK or ETK_E_FULL (counted). */
int rec_stats_add(etk_recorder_t *rec, etk_recorder_name_t name, int32_t chain,
                  uint32_t instruction, int64_t delegate_id, uint64_t start,
                  uint64_t end);
/* What a new key of the current dump costs (first key: the sketches
 * RunData too).  Fills c completely. */
void rec_stats_key_cost(const etk_recorder_t *rec, etk_recorder_name_t name,
                        int32_t chain, int64_t delegate_id, rec_cost_t *c);
/* Charges every key of the table again (after rec_budget_reset by a
 * fresh charge of the records): ETK_OK or ETK_E_INTERNAL. */
int rec_stats_charge_again(etk_recorder_t *rec);
/* Budget check and commit without latching `full` (record.c). */
int rec_budget_try(etk_recorder_t *rec, const rec_cost_t *c);
/* Counts one dropped event (saturating). */
void rec_count_drop(etk_recorder_t *rec);

#endif /* ETKIT_RECORDER_INTERNAL_H */
