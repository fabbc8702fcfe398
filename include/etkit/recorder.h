/*
 * etkit/recorder.h - the portable ETDump recorder: an on-device event tracer
 * that writes upstream-compatible ETDump files (.etdp) without touching the
 * heap, the OS, or aborting.
 *
 * Portable C99 (also builds as C11), no heap, no OS.  The only host-specific
 * pieces are the monotonic clock (etk_recorder_host_clock) and the FILE*
 * data sink (etk_file_sink_*); they are compiled only when
 * ETK_RECORDER_HOST is defined to 1 (CMake does so for host builds).  See
 * docs/porting.md for the files an MCU build copies and the sizing formula,
 * docs/recorder.md for the design.
 *
 * WHAT IT RECORDS
 *   Everything upstream's EventTracer (ExecuTorch ETDumpGen) records: event
 *   blocks (RunData) with names, profiling scopes (name, chain index,
 *   instruction id = debug handle), delegate profiling events with int or
 *   string ids and metadata bytes, allocators and allocations, debug events
 *   (tensors, tensor lists, ints, doubles, bools as intermediate or program
 *   outputs), delegate intermediate outputs (with an optional name/range
 *   filter), the bundled input index (written, unlike upstream: bug B1).
 *
 * HOW
 *   The recorder lives in ONE caller-provided memory block (the arena),
 *   zstd style: size it with etk_recorder_estimate_size(), then
 *   etk_recorder_init() places the context at its start.  The hot path
 *   appends fixed-size records (32 bytes per operator event) and reserves,
 *   per record, the worst-case number of bytes its FlatBuffer encoding can
 *   take.  Nothing is serialised until etk_recorder_finish(), which builds
 *   the size-prefixed "ED00" buffer in one pass, sharing repeated strings.
 *   Because every record's output is reserved when it is recorded, finish
 *   always fits.  When a record does not fit (arena, string table or output
 *   space exhausted) it is dropped and counted, and so is everything after
 *   it until the next fresh dump ("stop and count"): the output is valid and
 *   holds exactly the records accepted before the limit, plus a trailing
 *   RunData named "etkit:dropped_events=N" with no events (upstream's
 *   Inspector skips runs without events; etkit's reader reports it).
 *
 * ERRORS
 *   Every call that can fail returns ETK_OK (0) or a negative ETK_E_* code
 *   (etkit/status.h).  Misuse that upstream punishes with an abort returns
 *   an error instead and records nothing:
 *     ETK_E_INVALID_ARGUMENT  NULL pointers, both or neither delegate id,
 *                             a delegate scope ended with etk_recorder_end,
 *                             an unsupported tensor dtype, a bad name id;
 *     ETK_E_INVALID_STATE     an event before the first block or after
 *                             finish, an allocator after events, a tensor
 *                             with bytes but no data sink;
 *     ETK_E_FULL              the item did not fit; it was dropped and
 *                             counted (etk_recorder_dropped());
 *     ETK_E_LIMIT             a compile-time limit (dims, metadata length).
 *
 * THREADS
 *   A recorder is not thread-safe; use one per thread or core.  Nothing is
 *   global, so several recorders may coexist.
 *
 * EXAMPLE (an ExecuTorch-style run)
 *
 *   static uint64_t arena[64 * 1024 / 8];          // any 8-aligned memory
 *   etk_recorder_config_t cfg;
 *   etk_recorder_config_init(&cfg);
 *   cfg.clock = my_cycle_counter;                   // or NULL on a host
 *   etk_recorder_t *rec;
 *   if (etk_recorder_init(&rec, arena, sizeof arena, &cfg) != ETK_OK) ...;
 *   etk_recorder_name_t op = etk_recorder_intern(rec, "OPERATOR_CALL");
 *
 *   etk_recorder_begin_block(rec, "Execute");
 *   for (uint32_t i = 0; i < n_instructions; i++) {
 *     etk_recorder_set_chain_debug_handle(rec, 0, i);
 *     etk_recorder_scope_t s = etk_recorder_begin(rec, op);
 *     run_kernel(i);
 *     etk_recorder_end(rec, &s);
 *   }
 *   etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET,
 *                                       ETK_DEBUG_HANDLE_UNSET);
 *   const uint8_t *etdp; size_t len;
 *   if (etk_recorder_finish(rec, &etdp, &len) == ETK_OK)
 *     send_to_host(etdp, len);                 // a valid size-prefixed ETDump
 */
#ifndef ETKIT_RECORDER_H
#define ETKIT_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- config */

/* Most dimensions a logged tensor may have (sizes and strides). */
#ifndef ETK_RECORDER_MAX_DIMS
#define ETK_RECORDER_MAX_DIMS 32
#endif
/* Most bytes of delegate debug metadata per delegate event. */
#ifndef ETK_RECORDER_MAX_METADATA
#define ETK_RECORDER_MAX_METADATA 65535
#endif
/* Scopes open at once whose ends are checked for being second ends (see
 * etk_recorder_end); scopes begun beyond this many are not tracked. */
#ifndef ETK_RECORDER_TRACKED_SCOPES
#define ETK_RECORDER_TRACKED_SCOPES 64
#endif
/* Interned-string slots when the config leaves max_strings at 0. */
#ifndef ETK_RECORDER_DEFAULT_MAX_STRINGS
#define ETK_RECORDER_DEFAULT_MAX_STRINGS 64
#endif
/* Most interned strings a recorder can be configured for. */
#define ETK_RECORDER_MAX_STRINGS 32767
/* Bytes of glob patterns an etk_filter_t holds (NULs included). */
#ifndef ETK_FILTER_PATTERN_BYTES
#define ETK_FILTER_PATTERN_BYTES 256
#endif

/* Upstream's "unset" sentinels (runtime/core/event_tracer.h). */
#define ETK_CHAIN_UNSET (-1)
#define ETK_DEBUG_HANDLE_UNSET 0u
#define ETK_DELEGATE_ID_UNSET (-1)
#define ETK_BUNDLED_INPUT_INDEX_UNSET (-1)

/* Positive (non-error) result of the delegate logging calls: the filter
 * dropped the value and nothing was recorded (upstream returns false). */
#define ETK_RECORDER_FILTERED 1

/* Alignment of etk_recorder_set_debug_buffer() and the default of
 * etk_buffer_sink_init() callers usually pass (upstream's BufferDataSink). */
#define ETK_BUFFER_SINK_DEFAULT_ALIGNMENT 64u

/* ---------------------------------------------------------------- types */

/* The recorder context.  Opaque: it lives at the start of the arena given
 * to etk_recorder_init() and holds no pointers except to caller memory (the
 * arena itself, the optional output buffer, sink and clock contexts). */
typedef struct etk_recorder etk_recorder_t;

/* An interned string: 1..etk_recorder_stats().strings; 0 means "no name". */
typedef uint32_t etk_recorder_name_t;

/* Time source.  Returns raw ticks (ns, us, cycles: ETDump stores them as
 * they are and the Inspector is told the unit).  Must be cheap and must not
 * call back into the recorder.  `ctx` is the config's clock_ctx. */
typedef uint64_t (*etk_recorder_clock_fn)(void *ctx);

/* Byte stream writer (UART, RTT, file...): write all `len` bytes or fail.
 * Returns 0 on success, a negative value on failure. */
typedef int (*etk_write_fn)(void *ctx, const void *data, size_t len);

/* Debug level, ordered (upstream EventTracerDebugLogLevel).  Only consulted
 * by etk_recorder_should_log(); the log calls themselves never check it,
 * exactly like upstream's log_evalue. */
typedef enum etk_debug_level {
  ETK_DEBUG_LEVEL_NONE = 0, /* default */
  ETK_DEBUG_LEVEL_PROGRAM_OUTPUTS = 1,
  ETK_DEBUG_LEVEL_INTERMEDIATE_OUTPUTS = 2,
  /* etkit's: logs what INTERMEDIATE_OUTPUTS logs, but every tensor that
   * has data is recorded as its STATS vector (etkit/tensor_stats.h: 13
   * DOUBLE values, sizes [13]) instead of its bytes, and the dump gets the
   * event-less RunData ETK_TENSOR_STATS_MARKER (docs/compatibility.md)
   * so readers know.  Unlike the other levels it IS consulted by the log
   * calls.  Tensors without data (nbytes 0) are logged as they are. */
  ETK_DEBUG_LEVEL_STATS = 3
} etk_debug_level_t;

/* Profiling level, ordered (upstream EventTracerProfilingLevel).  Only
 * consulted by etk_recorder_begin_op()/etk_recorder_end_op(). */
typedef enum etk_profiling_level {
  ETK_PROFILING_METHOD_ONLY = 0,
  ETK_PROFILING_ALL_EVENTS = 1 /* default */
} etk_profiling_level_t;

/* Whether a logged value is an intermediate or a program output (upstream
 * LoggedEValueType; the values are upstream's). */
typedef enum etk_logged_type {
  ETK_LOGGED_INTERMEDIATE_OUTPUT = 0,
  ETK_LOGGED_PROGRAM_OUTPUT = 1
} etk_logged_type_t;

typedef struct etk_recorder_config {
  /* Time source; NULL selects etk_recorder_host_clock on host builds
   * (ETK_RECORDER_HOST) and is ETK_E_INVALID_ARGUMENT elsewhere. */
  etk_recorder_clock_fn clock;
  void *clock_ctx; /* passed to clock; may be NULL */
  /* Interned-string slots (0 = ETK_RECORDER_DEFAULT_MAX_STRINGS).  Each
   * slot costs about 24 bytes of arena (entry + hash slots); the strings'
   * bytes come from the arena too. */
  uint32_t max_strings;
  /* Optional separate output buffer for etk_recorder_finish() (borrowed;
   * must outlive the recorder).  NULL: the ETDump is built in the arena's
   * free space and the arena must also hold the worst-case output. */
  void *output;
  size_t output_capacity;
  /* Profile mode (etk_profile_mode_t, 0 = ETK_PROFILE_MODE_FULL).  STATS
   * keeps, instead of every profiling event, one latency sketch per key
   * (block, event name, chain and instruction, delegate id) in a table of
   * `stats_keys` keys (0 = ETK_RECORDER_DEFAULT_STATS_KEYS) placed in the
   * arena, at `stats_error` relative error (0 = 1%; see etkit/sketch.h):
   * the dump's size no longer grows with the number of runs.  See
   * "STATS MODE" below. */
  int profile_mode;
  uint32_t stats_keys;
  double stats_error;
} etk_recorder_config_t;

/* Profile modes (etk_recorder_config_t.profile_mode). */
typedef enum etk_profile_mode {
  ETK_PROFILE_MODE_FULL = 0, /* every event (upstream's behaviour) */
  ETK_PROFILE_MODE_STATS = 1 /* a latency sketch per key */
} etk_profile_mode_t;

/* Latency-table keys of a STATS recorder when stats_keys is 0. */
#ifndef ETK_RECORDER_DEFAULT_STATS_KEYS
#define ETK_RECORDER_DEFAULT_STATS_KEYS 64u
#endif

/* STATS MODE
 *   Each profiling event (etk_recorder_end, end_delegate, log_delegate)
 *   adds its duration (end - start ticks) to the sketch of its key and
 *   appends nothing.  A block begun again under the name of a block of the
 *   current dump continues that block (no new RunData): its events open,
 *   allocators are refused (ETK_E_INVALID_STATE); allocation and debug
 *   events are appended to it as in FULL mode while it is the dump's last
 *   block, and dropped and counted otherwise.  A new key costs its
 *   worst-case output at once (about 1.9 KiB); a key that finds no slot
 *   or no room is refused: its durations are dropped and counted in the
 *   "etkit:dropped_events=N" marker, never latching the recorder (known
 *   keys go on being measured).  finish writes, for each block, one
 *   ProfileEvent per key after its recorded events (start_time 0, end_time
 *   the median duration in ticks, the key's name, chain, instruction and
 *   delegate id, empty delegate metadata), then, after every block, one
 *   RunData named "etkit:latency_sketches=version=1,keys=K,error=E" with no
 *   events whose allocators are the sketches, one per key, each named
 *   "r=R,e=E,s=BASE64": R the RunData index and E the event index of the
 *   key's ProfileEvent, BASE64 (RFC 4648, padded) the sketch's bytes
 *   (etk_sketch_serialize).  Upstream's Inspector skips the sketches
 *   (no events) and shows the medians (docs/compatibility.md). */

/* The profile mode a recorder was made with (FULL for NULL). */
etk_profile_mode_t etk_recorder_profile_mode(const etk_recorder_t *rec);

/* A STATS recorder's latency table (read-only; NULL for NULL or FULL). */
const struct etk_latency_table *etk_recorder_latency_table(
    const etk_recorder_t *rec);

/* A tensor to log (a view: nothing is retained after the call). */
typedef struct etk_recorder_tensor {
  int32_t scalar_type;    /* ETDump ScalarType code (FLOAT = 6, ...) */
  uint32_t dim;           /* 0..ETK_RECORDER_MAX_DIMS */
  const int64_t *sizes;   /* dim entries; NULL only when dim == 0 */
  const int64_t *strides; /* dim entries, or NULL for contiguous strides */
  const void *data;       /* nbytes bytes; NULL only when nbytes == 0 */
  size_t nbytes;          /* bytes copied to the data sink (0: offset -1) */
} etk_recorder_tensor_t;

/* A value to log, in the spirit of ExecuTorch's EValue.  `kind` uses the
 * ETDump ValueType codes; build one with the etk_value_*() helpers. */
typedef enum etk_value_kind {
  ETK_RECORDER_VALUE_INT = 1,
  ETK_RECORDER_VALUE_BOOL = 2,
  ETK_RECORDER_VALUE_DOUBLE = 4,
  ETK_RECORDER_VALUE_TENSOR = 5,
  ETK_RECORDER_VALUE_TENSOR_LIST = 6
} etk_value_kind_t;

typedef struct etk_recorder_value {
  int kind;                             /* etk_value_kind_t */
  int64_t int_value;                    /* ETK_RECORDER_VALUE_INT */
  double double_value;                  /* ETK_RECORDER_VALUE_DOUBLE */
  int bool_value;                       /* ETK_RECORDER_VALUE_BOOL (0/1) */
  const etk_recorder_tensor_t *tensors; /* TENSOR: 1 entry; LIST: count */
  size_t tensor_count;
} etk_recorder_value_t;

static inline etk_recorder_value_t etk_value_int(int64_t v) {
  etk_recorder_value_t x = {ETK_RECORDER_VALUE_INT, 0, 0.0, 0, NULL, 0};
  x.int_value = v;
  return x;
}
static inline etk_recorder_value_t etk_value_double(double v) {
  etk_recorder_value_t x = {ETK_RECORDER_VALUE_DOUBLE, 0, 0.0, 0, NULL, 0};
  x.double_value = v;
  return x;
}
static inline etk_recorder_value_t etk_value_bool(int v) {
  etk_recorder_value_t x = {ETK_RECORDER_VALUE_BOOL, 0, 0.0, 0, NULL, 0};
  x.bool_value = v != 0;
  return x;
}
static inline etk_recorder_value_t etk_value_tensor(
    const etk_recorder_tensor_t *t) {
  etk_recorder_value_t x = {ETK_RECORDER_VALUE_TENSOR, 0, 0.0, 0, NULL, 1};
  x.tensors = t;
  return x;
}
static inline etk_recorder_value_t etk_value_tensor_list(
    const etk_recorder_tensor_t *ts, size_t count) {
  etk_recorder_value_t x = {ETK_RECORDER_VALUE_TENSOR_LIST, 0, 0.0, 0, NULL, 0};
  x.tensors = ts;
  x.tensor_count = count;
  return x;
}

/* The token a begin call returns and the matching end call consumes
 * (upstream EventTracerEntry).  Plain data: copy it, keep it on the stack.
 * A negative `kind` is the error the begin call met; the end call returns
 * it (and counts a drop for ETK_E_FULL). */
typedef struct etk_recorder_scope {
  uint64_t start;           /* ticks at begin */
  etk_recorder_name_t name; /* name, or the string delegate id */
  int32_t chain;            /* chain index at begin */
  uint32_t debug_handle;    /* instruction id at begin */
  int32_t delegate_index;   /* integer delegate id, or -1 */
  int32_t kind;             /* etk_recorder_scope_kind_t or ETK_E_* (< 0) */
  uint32_t serial;          /* identifies the open scope; 0 = untracked */
} etk_recorder_scope_t;

typedef enum etk_recorder_scope_kind {
  ETK_SCOPE_PLAIN = 1,        /* from begin / begin_at / begin_named / op */
  ETK_SCOPE_DELEGATE_INT = 2, /* from begin_delegate with an integer id */
  ETK_SCOPE_DELEGATE_STR = 3, /* from begin_delegate with a string id */
  ETK_SCOPE_SKIPPED = 4       /* begin_op under ETK_PROFILING_METHOD_ONLY */
} etk_recorder_scope_kind_t;

/* What a dump will need, for etk_recorder_estimate_size().  Counts are per
 * dump (between two fresh starts). */
typedef struct etk_recorder_workload {
  uint32_t blocks;                  /* event blocks (RunData) */
  uint32_t max_block_events;        /* most events in one block (0 = all) */
  uint32_t profile_events;          /* begin/end pairs */
  uint32_t delegate_events;         /* delegate profiling events */
  uint32_t delegate_metadata_bytes; /* their metadata, in total */
  uint32_t allocators;
  uint32_t allocation_events;
  uint32_t debug_scalars;      /* int / double / bool debug events */
  uint32_t debug_tensors;      /* tensor debug events */
  uint32_t debug_tensor_lists; /* tensor-list debug events */
  uint32_t list_tensors;       /* tensors inside those lists, in total */
  uint32_t tensor_dims;        /* dimensions of all logged tensors */
  uint32_t strings;            /* distinct names (blocks, events, ids) */
  uint32_t string_bytes;       /* their total length */
  uint32_t tensor_stats;       /* nonzero: tensors are logged as STATS vectors
                                * (ETK_DEBUG_LEVEL_STATS; count them with one
                                * dimension each); reserves the marker */
} etk_recorder_workload_t;

typedef struct etk_recorder_stats {
  uint32_t blocks; /* blocks in the current dump */
  uint32_t events; /* events recorded in the current dump */
  uint32_t allocators;
  uint32_t dropped_events; /* events dropped (full) in the current dump */
  uint32_t dropped_blocks;
  uint32_t dropped_allocators;
  uint32_t strings;         /* interned strings (persist across dumps) */
  size_t string_bytes;      /* arena bytes of interned strings */
  size_t record_bytes;      /* arena bytes of records */
  size_t output_reserved;   /* worst-case bytes finish will write */
  size_t scratch_bytes;     /* arena bytes finish borrows */
  size_t arena_free;        /* arena bytes still unused */
  size_t output_free;       /* separate output buffer bytes unused */
  uint32_t vtable_shapes;   /* distinct table shapes used */
  int vtables_conservative; /* 1: more shapes than the builder caches */
  size_t last_output_bytes; /* size of the last finished ETDump */
} etk_recorder_stats_t;

/* ------------------------------------------------- setup and life cycle */

/* Fills `cfg` with defaults (no clock = host clock, default string slots,
 * output in the arena).  `cfg` must not be NULL. */
void etk_recorder_config_init(etk_recorder_config_t *cfg);

/* Arena bytes that hold `w` without dropping anything, for `cfg` (NULL =
 * defaults).  Includes the context, the string table, records, the finish
 * scratch and, unless cfg->output is set, the worst-case output.  Exact
 * upper bound as long as a dump uses at most ETK_FB_VTABLE_CACHE distinct
 * table shapes (true for any ExecuTorch-style run; see docs/porting.md).
 * `w` NULL counts an empty workload.  Returns 0 on arithmetic overflow. */
size_t etk_recorder_estimate_size(const etk_recorder_config_t *cfg,
                                  const etk_recorder_workload_t *w);

/* Worst-case bytes etk_recorder_finish() writes for `w` (the minimum
 * cfg->output_capacity for a separate output buffer).  0 on overflow. */
size_t etk_recorder_estimate_output_size(const etk_recorder_workload_t *w);

/* Places a recorder at the start of mem[0..size) (aligned up to 8 bytes
 * internally) and sets *out to it.  `mem` is borrowed for the recorder's
 * whole life; nothing else is ever allocated.  `cfg` is copied (NULL =
 * defaults).  Errors: ETK_E_INVALID_ARGUMENT (NULL out/mem, bad config, no
 * clock on a non-host build), ETK_E_NO_MEMORY (too small even for an empty
 * dump), ETK_E_LIMIT (max_strings > ETK_RECORDER_MAX_STRINGS).  Memory
 * beyond 2 GiB (arena or output buffer) is left unused.  On error *out is
 * NULL.  Cost: clears the context and string table only. */
int etk_recorder_init(etk_recorder_t **out, void *mem, size_t size,
                      const etk_recorder_config_t *cfg);

/* Default clock on hosts: CLOCK_MONOTONIC in nanoseconds (ctx unused).
 * Defined only when the library is built with ETK_RECORDER_HOST=1. */
uint64_t etk_recorder_host_clock(void *ctx);

/* The optional fast host clock: the CPU's cycle counter (x86 TSC, Arm
 * CNTVCT_EL0) converted to CLOCK_MONOTONIC nanoseconds, so dumps keep the
 * default ns time scale.  Calibrate once, then pass it as the clock:
 *
 *   etk_recorder_cycle_clock_t cc;
 *   if (etk_recorder_cycle_clock_init(&cc) == ETK_OK) {
 *     cfg.clock = etk_recorder_cycle_clock;
 *     cfg.clock_ctx = &cc;   // must outlive the recorder
 *   }                        // else keep the default clock_gettime
 *
 * Plain data; read-only after init (threads may share it). */
typedef struct etk_recorder_cycle_clock {
  uint64_t base_ticks;       /* counter value at calibration */
  uint64_t base_ns;          /* CLOCK_MONOTONIC (ns) at that moment */
  uint64_t mult;             /* nanoseconds per tick, times 2^32 */
  uint64_t ticks_per_second; /* measured (x86) or architected (Arm) */
} etk_recorder_cycle_clock_t;

/* Calibrates `c`.  Returns ETK_OK, ETK_E_INVALID_ARGUMENT (NULL) or
 * ETK_E_UNSUPPORTED where no counter is known to tick at a constant rate
 * (x86 without the invariant-TSC CPUID bit - Linux's constant_tsc and
 * nonstop_tsc flags -, other architectures): keep etk_recorder_host_clock
 * there.  Cost: about 10 ms on x86 (the rate is measured against
 * CLOCK_MONOTONIC, good to about 1e-5), nothing on Arm (CNTFRQ_EL0).
 * Defined only when the library is built with ETK_RECORDER_HOST=1. */
int etk_recorder_cycle_clock_init(etk_recorder_cycle_clock_t *c);

/* Reads the counter and converts it: one counter read, two multiplies.
 * `ctx` is the etk_recorder_cycle_clock_t; NULL or an uncalibrated one
 * falls back to etk_recorder_host_clock. */
uint64_t etk_recorder_cycle_clock(void *ctx);

/* Interns `s` (NUL-terminated) and returns its id, or 0 when `rec` or `s`
 * is NULL, `s` is not valid UTF-8, or the string table or arena is full.
 * The bytes are copied once into the arena; interning the same text again
 * returns the same id without copying.  Ids stay valid for the recorder's
 * whole life (they survive finish and fresh dumps).  A failure here is not
 * an event: nothing is counted as dropped.  Cost: one hash and lookup. */
etk_recorder_name_t etk_recorder_intern(etk_recorder_t *rec, const char *s);

/* Same for `n` bytes at `s` (no NUL needed; `s` may be NULL if n == 0). */
etk_recorder_name_t etk_recorder_intern_n(etk_recorder_t *rec, const char *s,
                                          size_t n);

/* The text of an interned id (NUL-terminated, inside the arena) and its
 * length in *len (optional); NULL for id 0 or an unknown id. */
const char *etk_recorder_name_string(const etk_recorder_t *rec,
                                     etk_recorder_name_t id, size_t *len);

/* ------------------------------------------------------------- blocks */

/* Starts a new event block (RunData; upstream create_event_block).  After a
 * finish, the first new block starts a fresh dump: records, counters and
 * the dropped count are cleared, while interned names, chain/handle,
 * levels, filter and data sink are kept.  `name` is interned.  The current
 * bundled input index (if set) is written into the block.  Errors:
 * ETK_E_INVALID_ARGUMENT (NULL), ETK_E_FULL (dropped: the events up to the
 * next block that fits are dropped too). */
int etk_recorder_begin_block(etk_recorder_t *rec, const char *name);
int etk_recorder_begin_block_id(etk_recorder_t *rec, etk_recorder_name_t name);

/* Number of blocks in the current dump (upstream get_num_blocks). */
size_t etk_recorder_block_count(const etk_recorder_t *rec);

/* --------------------------------------------------------- profiling */

/* Starts a profiling scope named `name` (0 = no name) with the current
 * chain index and debug handle, then reads the clock.  Nothing is recorded
 * until the matching end.  Hot path: no lookups, no checks beyond NULL; the
 * returned scope is plain data.  `rec` NULL gives a scope whose end
 * returns ETK_E_INVALID_ARGUMENT. */
etk_recorder_scope_t etk_recorder_begin(etk_recorder_t *rec,
                                        etk_recorder_name_t name);

/* Upstream start_profiling(name, chain_id, debug_handle): chain == -1
 * takes the current chain AND handle, otherwise both arguments are used. */
etk_recorder_scope_t etk_recorder_begin_at(etk_recorder_t *rec,
                                           etk_recorder_name_t name,
                                           int32_t chain,
                                           uint32_t debug_handle);

/* By-name compatibility form of begin_at: interns `name` on the fly (NULL
 * = no name).  Costs a hash lookup; an unknown name copies it once.  When
 * the name cannot be interned the scope carries the error (ETK_E_FULL:
 * the end counts a drop; ETK_E_INVALID_ARGUMENT: bad UTF-8). */
etk_recorder_scope_t etk_recorder_begin_named(etk_recorder_t *rec,
                                              const char *name, int32_t chain,
                                              uint32_t debug_handle);

/* Ends a scope from begin/begin_at/begin_named: reads the clock first, then
 * appends a ProfileEvent (start, end, the scope's chain and instruction id,
 * name).  Events are in end order, so children come before parents.
 * Returns ETK_OK, ETK_E_INVALID_ARGUMENT (NULL, delegate scope, unknown
 * name id), ETK_E_INVALID_STATE (no block yet / after finish / called from
 * a data sink's write callback / the scope was already ended, or was begun
 * by another recorder: nothing is recorded), ETK_E_FULL (dropped and
 * counted) or the error carried by the scope.  Ending a scope twice is
 * detected for the ETK_RECORDER_TRACKED_SCOPES most recently begun open
 * scopes (a copy of an ended scope counts as ended).  Hot path: one clock
 * read, a bounds check, a 32-byte record; no FlatBuffers work. */
int etk_recorder_end(etk_recorder_t *rec, const etk_recorder_scope_t *scope);

/* A plain scope for a wrapper that carries the scope's other fields (name,
 * chain, debug handle) in its own token, such as the C++ adapter's
 * EventTracerEntry: begin_mark opens it (tracked for the second-end check,
 * like etk_recorder_begin) and reads the clock; end_mark is exactly
 * etk_recorder_end of the scope {start, name, chain, debug_handle, serial}
 * (same checks, same errors, same hot path), with everything passed in
 * registers.  A NULL `rec` gives {0, 0}, and end_mark returns
 * ETK_E_INVALID_ARGUMENT. */
typedef struct etk_recorder_mark {
  uint64_t start;  /* ticks at begin */
  uint32_t serial; /* identifies the open scope; 0 = untracked */
} etk_recorder_mark_t;

etk_recorder_mark_t etk_recorder_begin_mark(etk_recorder_t *rec);
int etk_recorder_end_mark(etk_recorder_t *rec, etk_recorder_name_t name,
                          int32_t chain, uint32_t debug_handle,
                          etk_recorder_mark_t mark);

/* Operator scopes (upstream EventTracerProfileOpScope): like begin/end but
 * only recorded when the profiling level is ETK_PROFILING_ALL_EVENTS, both
 * at begin and at end.  NULL `rec` is allowed (nothing happens, end_op
 * returns ETK_OK), like upstream's hooks with no tracer. */
etk_recorder_scope_t etk_recorder_begin_op(etk_recorder_t *rec,
                                           etk_recorder_name_t name);
int etk_recorder_end_op(etk_recorder_t *rec, const etk_recorder_scope_t *scope);

/* Current chain index and debug handle (upstream set_chain_debug_handle;
 * the instruction scope sets (chain, instruction) and resets to
 * (ETK_CHAIN_UNSET, ETK_DEBUG_HANDLE_UNSET)).  NULL `rec` is ignored. */
void etk_recorder_set_chain_debug_handle(etk_recorder_t *rec, int32_t chain,
                                         uint32_t debug_handle);
int32_t etk_recorder_current_chain(const etk_recorder_t *rec);
uint32_t etk_recorder_current_debug_handle(const etk_recorder_t *rec);

/* -------------------------------------------------------- delegates */

/* Upstream start_profiling_delegate: exactly one of `name` (string id,
 * interned) and `delegate_index` (integer id, else ETK_DELEGATE_ID_UNSET)
 * must be given.  Opens the block's events (no allocator may follow). The
 * chain and instruction written are the ones current at END time, as
 * upstream does.  Errors are carried in the scope. */
etk_recorder_scope_t etk_recorder_begin_delegate(etk_recorder_t *rec,
                                                 const char *name,
                                                 int32_t delegate_index);

/* Upstream end_profiling_delegate: appends a ProfileEvent with the delegate
 * id and `metadata` (len bytes, copied; NULL only when len == 0; an empty
 * vector is still written).  Errors: ETK_E_INVALID_ARGUMENT (NULL, a plain
 * scope), ETK_E_LIMIT (len > ETK_RECORDER_MAX_METADATA), ETK_E_FULL, or the
 * scope's error. */
int etk_recorder_end_delegate(etk_recorder_t *rec,
                              const etk_recorder_scope_t *scope,
                              const void *metadata, size_t len);

/* Upstream log_profiling_delegate: a delegate event with caller-supplied
 * times (e.g. a backend logging its ops after the graph ran).  Same id
 * rule, metadata rule and errors as above. */
int etk_recorder_log_delegate(etk_recorder_t *rec, const char *name,
                              int32_t delegate_index, uint64_t start,
                              uint64_t end, const void *metadata, size_t len);

/* ------------------------------------------------------- allocations */

/* Upstream track_allocator: only right after a block starts, before any
 * event (else ETK_E_INVALID_STATE).  *id (optional) receives the 1-based
 * allocator id.  `name` must not be NULL. */
int etk_recorder_track_allocator(etk_recorder_t *rec, const char *name,
                                 uint32_t *id);

/* Upstream track_allocation: an AllocationEvent {allocator id, size}.  The
 * id is not validated (upstream does not either). */
int etk_recorder_track_allocation(etk_recorder_t *rec, uint32_t allocator_id,
                                  uint64_t size);

/* ------------------------------------------------------- debug events */

/* Upstream log_evalue: a DebugEvent with the current chain (stored as
 * uint64, so unset is 2^64-1) and instruction id.  Tensor bytes go to the
 * data sink first (nbytes == 0: offset -1, no sink needed); the record
 * keeps dtype, sizes, strides and the sink offset.  `type` ==
 * ETK_LOGGED_PROGRAM_OUTPUT marks tensors and tensor lists with
 * output=Bool(true) (never scalars, like upstream).  The debug level is NOT
 * checked (see etk_recorder_should_log).  Everything is validated before
 * anything is written: an unsupported dtype (only BYTE, CHAR, SHORT, INT,
 * LONG, FLOAT, DOUBLE, BOOL, BITS16, UINT16 are, as upstream) is
 * ETK_E_INVALID_ARGUMENT, and so is a tensor whose nbytes is neither 0
 * (no data) nor prod(sizes) x element size (a negative size, or a product
 * that overflows, included): the reader would inflate the wrong bytes; no
 * sink
 * for a non-empty tensor is ETK_E_INVALID_STATE; a sink error (ETK_E_FULL
 * when a buffer sink is full) or a sink offset above INT64_MAX
 * (ETK_E_OVERFLOW) drops this event only and counts it. */
int etk_recorder_log_value(etk_recorder_t *rec, const etk_recorder_value_t *v,
                           etk_logged_type_t type);

/* Upstream event_tracer_log_evalue / _output hooks: 1 when the debug level
 * allows logging a value of this type, else 0 (also for NULL `rec`). */
int etk_recorder_should_log(const etk_recorder_t *rec, etk_logged_type_t type);

/* Upstream log_intermediate_output_delegate (all five overloads): same id
 * rule as begin_delegate (violations: ETK_E_INVALID_ARGUMENT).  If a filter
 * is set it is asked first; when it drops the value the call returns
 * ETK_RECORDER_FILTERED and records nothing.  The debug level is not
 * checked.  Otherwise like etk_recorder_log_value with the delegate id
 * added and never an output flag. */
int etk_recorder_log_delegate_value(etk_recorder_t *rec, const char *name,
                                    int32_t delegate_index,
                                    const etk_recorder_value_t *v);

/* ------------------------------------------------------- settings */

void etk_recorder_set_debug_level(etk_recorder_t *rec, etk_debug_level_t l);
etk_debug_level_t etk_recorder_debug_level(const etk_recorder_t *rec);
void etk_recorder_set_profiling_level(etk_recorder_t *rec,
                                      etk_profiling_level_t l);
etk_profiling_level_t etk_recorder_profiling_level(const etk_recorder_t *rec);

/* Bundled input index written into blocks begun after this call (-1 =
 * unset, not written).  Upstream intends this but never writes it (B1). */
void etk_recorder_set_bundled_input_index(etk_recorder_t *rec, int32_t index);
int32_t etk_recorder_bundled_input_index(const etk_recorder_t *rec);

/* ------------------------------------------------------- finish */

/* Builds the size-prefixed ETDump ("ED00"; version 0 absent; one RunData per
 * block, plus the dropped marker if anything was dropped) into the output
 * buffer of the config, or the arena's free space, and points *data and *len
 * (both optional) at it.  The bytes stay valid until the next recording
 * call.  Never fails for lack of space (it was reserved).  Moves the
 * recorder to the finished state: events are refused until the next block,
 * which starts a fresh dump.  Calling finish again rebuilds the same dump
 * (no stale data, unlike upstream's static mode: B3).  Errors:
 * ETK_E_INVALID_ARGUMENT (NULL rec), ETK_E_INVALID_STATE (no block was ever
 * begun and nothing dropped), ETK_E_INTERNAL (a reservation bug; the dump
 * is not produced).  Cost: one pass over the records. */
int etk_recorder_finish(etk_recorder_t *rec, const uint8_t **data, size_t *len);

/* Same, then hands the finished bytes to `write(ctx, data, len)` in one
 * call.  A write failure returns ETK_E_IO (the dump stays finished and can
 * be written again with another finish). */
int etk_recorder_finish_stream(etk_recorder_t *rec, etk_write_fn write,
                               void *ctx);

/* Events dropped in the current dump (0 for NULL). */
uint32_t etk_recorder_dropped(const etk_recorder_t *rec);

/* Adds `events` to the dropped-events count of the current dump
 * (saturating at UINT32_MAX), so that the "etkit:dropped_events=N" marker
 * also counts events a wrapper discarded on its own
 * (etk_recorder_discard_oldest counts its own).  NULL does nothing. */
void etk_recorder_count_dropped(etk_recorder_t *rec, uint32_t events);

/* Ring support: discards the `events` oldest events of the current dump
 * (all of them when it holds fewer; at least one), counts them as dropped
 * (the "etkit:dropped_events=N" marker) and clears the stop-and-count
 * latch, so that recording goes on with the newest events.  Blocks whose
 * events are all discarded go too, except the current one; the block of
 * the oldest kept event keeps its name, bundled index and allocators.
 * When the current block itself was dropped (the recorder was full when
 * it began), the last kept block becomes current again with its events
 * open: events go into it, allocators are refused until the next block.
 * `refund` != 0 takes back the drop counted for the call that just
 * failed with ETK_E_FULL, for a caller that repeats it (an event's drop,
 * or a block's when that call began a block).  The space freed
 * is the records' own and the output they had reserved, and in the
 * recorder's own debug buffer (etk_recorder_set_debug_buffer) the bytes of
 * the discarded tensors: the kept ones are moved to its front and their
 * offsets rewritten, so a ring whose debug buffer fills first keeps the
 * newest tensors too.  Never interned names (a name table that is full
 * stays full).  So when the call failed
 * because the name table was full (max_strings names), nothing is
 * discarded: the latch is cleared (later calls with known names are
 * recorded), the failed call stays dropped and counted, and the return is
 * ETK_E_LIMIT ("do not repeat the call"); a ring thus keeps at least what
 * a stopped recorder keeps.  Errors:
 * ETK_E_INVALID_ARGUMENT (NULL), ETK_E_INVALID_STATE (neither the records
 * nor the own debug buffer are full - a data sink that is full is not
 * helped by discarding records -,
 * no block, no event to discard, or called from a data sink's write
 * callback), ETK_E_INTERNAL (a reservation bug; the records are then
 * forgotten and the recorder waits for a block, as before the first
 * one).  Cost: one
 * pass over the records (a memmove and their costs charged again), so
 * discard many at once: a ring that discards an eighth of its events
 * when full costs about eight record copies per event. */
int etk_recorder_discard_oldest(etk_recorder_t *rec, uint32_t events,
                                int refund);

/* Worst-case bytes the next finish writes (its reservation). */
size_t etk_recorder_output_bound(const etk_recorder_t *rec);

/* Fills *out with counters (zeroes for NULL rec).  `out` must not be NULL. */
void etk_recorder_stats(const etk_recorder_t *rec, etk_recorder_stats_t *out);

/* ------------------------------------------------------- data sinks */

/* Where tensor bytes go (upstream DataSinkBase).  `write` copies len bytes
 * and stores the offset the reader will find them at in *offset; len 0
 * writes nothing and reports the current offset.  Returns ETK_OK or an
 * ETK_E_* code (ETK_E_FULL when out of space).  The struct is copied by
 * etk_recorder_set_data_sink; `ctx` is borrowed.
 *
 * Re-entrancy: while `write` runs, the recorder is mid-event.  Every
 * recording call made from inside it on the same recorder (begin_block,
 * end, end_delegate, log_*, track_*, intern, finish, set_debug_buffer)
 * returns ETK_E_INVALID_STATE (intern returns 0, set_data_sink does
 * nothing) and records nothing, so the dump is never corrupted; the event
 * being logged completes normally once `write` returns.
 *
 * Offsets: an offset above INT64_MAX (all ones included: the reader takes
 * -1 for "no data") cannot be stored; the event is dropped and counted and
 * the log call returns ETK_E_OVERFLOW. */
typedef int (*etk_data_sink_write_fn)(void *ctx, const void *data, size_t len,
                                      uint64_t *offset);
typedef struct etk_data_sink {
  etk_data_sink_write_fn write;
  void *ctx;
} etk_data_sink_t;

/* Uses `sink` (copied; NULL removes the sink) for tensor bytes.  The sink
 * is kept across finish and fresh dumps (upstream forgets it). */
void etk_recorder_set_data_sink(etk_recorder_t *rec,
                                const etk_data_sink_t *sink);

/* Upstream set_debug_buffer: tensor bytes go to buf[0..cap) through a
 * recorder-owned buffer sink with 64-byte alignment (addresses, like
 * upstream).  Errors: ETK_E_INVALID_ARGUMENT (NULL rec, NULL buf with
 * cap > 0). */
int etk_recorder_set_debug_buffer(etk_recorder_t *rec, void *buf, size_t cap);

/* Bytes of the recorder-owned debug buffer used so far (0 if none). */
size_t etk_recorder_debug_buffer_used(const etk_recorder_t *rec);

/* ------------------------------------------------------- filter */

/* Filter for delegate intermediate outputs (upstream ETDumpFilter, with
 * glob patterns instead of RE2 regexes: `*` any run, `?` one byte,
 * `[abc]`/`[a-z]`/`[!x]` a class, `\x` a literal x; the WHOLE name must
 * match).  Self-contained (patterns are copied inside), no pointers. */
typedef struct etk_filter {
  char patterns[ETK_FILTER_PATTERN_BYTES]; /* NUL-separated */
  uint32_t used;                           /* bytes of `patterns` used */
  uint32_t count;                          /* number of patterns */
  uint64_t range_start, range_end;         /* [start, end); 0,0 = unset */
} etk_filter_t;

/* Empty filter: drops every name and every index (upstream semantics). */
void etk_filter_init(etk_filter_t *f);

/* Adds a pattern; patterns are ORed.  Errors: ETK_E_INVALID_ARGUMENT (NULL,
 * unterminated `[`, trailing `\`), ETK_E_LIMIT (no room left). */
int etk_filter_add_pattern(etk_filter_t *f, const char *glob);

/* Replaces the range with [start, end); start >= end is
 * ETK_E_INVALID_ARGUMENT and keeps the old range. */
int etk_filter_set_range(etk_filter_t *f, uint64_t start, uint64_t end);

/* Upstream filter(name, index): exactly one of `name` and `delegate_index`
 * (!= -1) must be given (else ETK_E_INVALID_ARGUMENT).  *drop = 1 when the
 * name fully matches a pattern (or there are none), or the index lies in the
 * range (or none is set).  Negative indexes other than -1 compare as huge
 * unsigned numbers (upstream's size_t comparison), so they are kept. */
int etk_filter_check(const etk_filter_t *f, const char *name,
                     int32_t delegate_index, int *drop);

/* 1 if `text` fully matches the glob `pattern` (syntax above), else 0.
 * Linear memory, O(len(pattern) * len(text)) time. */
int etk_glob_match(const char *pattern, const char *text);

/* Asks `f` (borrowed; NULL removes it) before each delegate output log. */
void etk_recorder_set_filter(etk_recorder_t *rec, const etk_filter_t *f);

#ifdef __cplusplus
}
#endif

/* the ready-made sinks (buffer, stream, file) */
#include "etkit/data_sinks.h"

#endif /* ETKIT_RECORDER_H */
