/*
 * calibrate.c - the recorder measures what recording costs, on the target,
 * with its own clock hook, and carries the figures into the dump.
 *
 * PURPOSE
 *   Every recorded event adds its own cost to the duration of each event
 *   around it (Method::execute, a DELEGATE_CALL, ...).  A reader can take
 *   that cost back out only if it knows it, and it differs per target,
 *   clock and build: so the recorder measures it where it runs
 *   (etkit/recorder_calibration.h) and finish writes it as an event-less
 *   RunData "etkit:calibration=..." that upstream's Inspector skips.
 *
 * METHOD
 *   A scratch recorder is set up in caller memory (or the arena's free
 *   space: [pool floor, strings_low) is never used by the recorder until a
 *   record claims it) with the same clock hook.  Each figure is the median
 *   of `repetitions` batches; a batch times BATCH_EVENTS (or BATCH_LOGS)
 *   operations between two clock reads and divides, after taking off one
 *   clock read (the part of the two bracketing reads inside the window).
 *   The first batch of each kind runs once untimed (caches, branch
 *   predictors).  Before measuring, every 4 KiB page of what recording
 *   will write (the arena past the records, the debug buffer's free part)
 *   is touched once: on a host a fresh arena (malloc without memset, as
 *   etkit run's) otherwise takes a first-touch page fault every 128
 *   profile records, part of each run's cost that no batch on scratch
 *   memory sees (see prefault_recording).  The scratch recorder is set up
 * afresh for every batch, and one untimed pair of the batch's shape puts its
 * names and shape on the fast path, as a run's events after the first are.
 *
 * SCRATCH LAYOUT (8-aligned)
 *   [u64 samples x reps][u64 inner samples x reps][source bytes LARGE_BYTES]
 *   [tensor sink SINK_BYTES][scratch recorder arena]
 *
 * INVARIANTS
 *   The measured recorder's records, budget and settings are never touched
 *   by the measurement; only etk_recorder_set_calibration changes it (one
 *   reservation, taken without latching the stop-and-count state).
 */
#include <string.h>

#include "etkit/schema.h"
#include "recorder_internal.h"

#define BATCH_EVENTS 16u /* begin/end pairs and clock reads per batch */
#define BATCH_LOGS 4u    /* tensor logs per batch */
#define WORK_STEPS 64u   /* multiply-adds of the work a timed pair brackets */
#define SMALL_BYTES 16u  /* the tensor whose log cost is the fixed part */
#define LARGE_BYTES 1024u
#define SINK_BYTES                                                         \
  ((BATCH_LOGS + 1u) * (LARGE_BYTES + ETK_BUFFER_SINK_DEFAULT_ALIGNMENT) + \
   ETK_BUFFER_SINK_DEFAULT_ALIGNMENT)
#define PREFIX "etkit:calibration="

/* ------------------------------------------------------------ sizing */

static void scratch_workload(etk_recorder_config_t *cfg,
                             etk_recorder_workload_t *w) {
  etk_recorder_config_init(cfg);
  cfg->max_strings = 4;
  memset(w, 0, sizeof *w);
  w->blocks = 1;
  w->profile_events = BATCH_EVENTS + 2u; /* + the warm-up pair */
  w->debug_tensors = BATCH_LOGS + 1u;
  w->tensor_dims = BATCH_LOGS + 1u;
  w->strings = 3;
  w->string_bytes = 48;
}

static size_t scratch_recorder_size(void) {
  etk_recorder_config_t cfg;
  etk_recorder_workload_t w;
  scratch_workload(&cfg, &w);
  return etk_recorder_estimate_size(&cfg, &w);
}

size_t etk_recorder_calibration_scratch_size(uint32_t repetitions) {
  if (repetitions == 0) repetitions = ETK_RECORDER_CALIBRATION_DEFAULT_REPS;
  if (repetitions > ETK_RECORDER_CALIBRATION_MAX_REPS) return 0;
  return 16u * (size_t)repetitions + LARGE_BYTES + SINK_BYTES +
         scratch_recorder_size() + 8u;
}

/* ------------------------------------------------------------ pre-faulting */

#define PAGE_BYTES 4096u /* the smallest page a host uses */
/* At most this much of each region is touched: a huge arena reserved "to
 * be safe" is not committed whole by calibrating (its first 64 MiB, some
 * 500,000 events, are; faults past them stay in the runs' figures). */
#define PREFAULT_MAX_BYTES (64u * 1024u * 1024u)

/* Reads and writes back one byte of every PAGE_BYTES page of [lo, hi):
 * the bytes stay as they are, but an operating system maps each page now
 * rather than at the record that first writes it.  On an MCU (no paging)
 * it costs one load and store per 4 KiB and changes nothing. */
static void touch_pages(uint8_t *lo, uint8_t *hi) {
  volatile uint8_t *p = lo;
  if ((uintptr_t)hi - (uintptr_t)lo > PREFAULT_MAX_BYTES)
    hi = lo + PREFAULT_MAX_BYTES;
  while ((uintptr_t)p < (uintptr_t)hi) {
    *p = *p;
    p = (volatile uint8_t *)(((uintptr_t)p | (PAGE_BYTES - 1u)) + 1u);
  }
}

/* The memory recording writes after the calibration: the arena from the
 * end of the records to the string pool (records, then the output finish
 * builds there) and the free part of the debug buffer.  A first-touch
 * fault costs a few microseconds on a virtual host: one per 128 records
 * of 32 bytes was 18 ns per event (+13 %) in a run of 200 adds, beyond
 * what the batches measure (docs/inspector.md).  The caller's scratch is
 * touched by the measurement itself. */
static void prefault_recording(etk_recorder_t *rec) {
  uint8_t *base = rec_base(rec);
  if (rec->records_end < rec->strings_low)
    touch_pages(base + rec->records_end, base + rec->strings_low);
  if (rec->has_debug_buffer && rec->debug_buffer.buf != NULL &&
      rec->debug_buffer.used < rec->debug_buffer.capacity)
    touch_pages(rec->debug_buffer.buf + rec->debug_buffer.used,
                rec->debug_buffer.buf + rec->debug_buffer.capacity);
}

/* ------------------------------------------------------------ measuring */

typedef struct calib {
  etk_recorder_clock_fn clock;
  void *clock_ctx;
  uint8_t *arena; /* scratch recorder */
  size_t arena_size;
  uint8_t *sink;
  const uint8_t *source;
  uint64_t *samples, *inner;
  uint32_t reps;
  uint64_t clock_mt;
} calib_t;

static uint64_t median(uint64_t *v, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) { /* insertion sort: n is small */
    uint64_t x = v[i];
    uint32_t j = i;
    while (j > 0 && v[j - 1] > x) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
  return n % 2u ? v[n / 2u] : v[n / 2u - 1u] / 2u + v[n / 2u] / 2u;
}

/* Milli-ticks per operation of a window of `ticks` around `ops`
 * operations, one clock read taken off. */
static uint64_t per_op(uint64_t ticks, uint64_t clock_mt, uint32_t ops) {
  uint64_t mt = ticks * 1000u;
  mt = mt > clock_mt ? mt - clock_mt : 0u;
  return mt / ops;
}

/* A fresh scratch recorder with one block begun; NULL if it cannot be. */
static etk_recorder_t *scratch_open(const calib_t *c,
                                    etk_recorder_name_t *name) {
  etk_recorder_config_t cfg;
  etk_recorder_workload_t w;
  etk_recorder_t *t;
  scratch_workload(&cfg, &w);
  cfg.clock = c->clock;
  cfg.clock_ctx = c->clock_ctx;
  if (etk_recorder_init(&t, c->arena, c->arena_size, &cfg) != ETK_OK)
    return NULL;
  *name = etk_recorder_intern(t, "aten::calibration.out");
  if (*name == 0 || etk_recorder_begin_block(t, "calibration") != ETK_OK)
    return NULL;
  etk_recorder_set_chain_debug_handle(t, 0, 1);
  return t;
}

/* One untimed pair, `outer` around `inner`, the shape the batch times: a
 * dump's first event of a name or shape takes the slow path (the shape's
 * vtable is charged), every later one the fast path that a run's events
 * take.  Warming only `inner` left the batch's first `outer` on the slow
 * path: one slow event per batch, about 7% too much per event (the
 * residual of docs/inspector.md's first figures). */
static int scratch_warm(etk_recorder_t *t, etk_recorder_name_t outer,
                        etk_recorder_name_t inner) {
  etk_recorder_scope_t a = etk_recorder_begin_op(t, outer);
  etk_recorder_scope_t b = etk_recorder_begin_op(t, inner);
  int rc = etk_recorder_end_op(t, &b);
  return etk_recorder_end_op(t, &a) != ETK_OK ? ETK_E_INTERNAL : rc;
}

static int measure_clock(calib_t *c) {
  for (uint32_t r = 0; r <= c->reps; r++) {
    uint64_t t0 = c->clock(c->clock_ctx), t1;
    for (uint32_t k = 0; k < BATCH_EVENTS; k++) (void)c->clock(c->clock_ctx);
    t1 = c->clock(c->clock_ctx);
    /* the window holds the reads and about one more (the brackets' parts) */
    if (r > 0) c->samples[r - 1] = (t1 - t0) * 1000u / (BATCH_EVENTS + 1u);
  }
  c->clock_mt = median(c->samples, c->reps);
  return ETK_OK;
}

/* A fixed piece of work standing in for a kernel.  An event's clock reads
 * overlap with the work next to them on an out-of-order core, so the
 * events are timed the way the runtime records a kernel call (an
 * OPERATOR_CALL around the kernel's own event around the kernel) and the
 * work alone is taken off. */
static uint32_t busy(uint32_t x) {
  for (uint32_t k = 0; k < WORK_STEPS; k++) x = x * 1664525u + 1013904223u;
  return x;
}

/* Sum of the recorded durations of the scratch recorder's events named
 * `name`, the first (the warm-up event) skipped. */
static uint64_t recorded_ticks(const etk_recorder_t *t,
                               etk_recorder_name_t name) {
  const uint8_t *base = rec_base(t);
  uint64_t sum = 0;
  int first = 1;
  for (uint32_t at = t->records_begin; at < t->records_end;) {
    uint32_t size = rec_record_size(base + at);
    if (size == 0) break;
    if (base[at] == REC_PROFILE) {
      rec_profile_t p;
      memcpy(&p, base + at, sizeof p);
      if (!first && p.name == name) sum += p.end - p.start;
      first = 0;
    }
    at += size;
  }
  return sum;
}

/* BATCH_EVENTS / 2 pairs of op events, `outer` around `inner`, around the
 * busy work, then the same work alone: both durations in milli-ticks. */
static void nested_batch(calib_t *c, etk_recorder_t *t,
                         etk_recorder_name_t outer, etk_recorder_name_t inner,
                         volatile uint32_t *sink, uint64_t *with,
                         uint64_t *without) {
  uint64_t t0, t1, t2, t3, x = *sink;
  t0 = c->clock(c->clock_ctx);
  for (uint32_t k = 0; k < BATCH_EVENTS / 2u; k++) {
    etk_recorder_scope_t a = etk_recorder_begin_op(t, outer);
    etk_recorder_scope_t b = etk_recorder_begin_op(t, inner);
    x = busy((uint32_t)x);
    (void)etk_recorder_end_op(t, &b);
    (void)etk_recorder_end_op(t, &a);
  }
  t1 = c->clock(c->clock_ctx);
  t2 = c->clock(c->clock_ctx);
  for (uint32_t k = 0; k < BATCH_EVENTS / 2u; k++) x = busy((uint32_t)x);
  t3 = c->clock(c->clock_ctx);
  *sink = (uint32_t)x;
  *with = (t1 - t0) * 1000u;
  *without = (t3 - t2) * 1000u;
}

/* Milli-ticks per event of the runtime's hooks when the profiling level
 * skips them (a method-level run still calls them): begin_op/end_op pairs
 * at ETK_PROFILING_METHOD_ONLY around the same work, the work taken off. */
static int measure_skipped(calib_t *c, uint64_t *skipped) {
  volatile uint32_t sink = 1;
  for (uint32_t r = 0; r <= c->reps; r++) {
    etk_recorder_name_t name;
    etk_recorder_t *t = scratch_open(c, &name);
    if (t == NULL) return ETK_E_NO_MEMORY;
    etk_recorder_set_profiling_level(t, ETK_PROFILING_METHOD_ONLY);
    uint64_t with, without;
    nested_batch(c, t, name, name, &sink, &with, &without);
    if (r > 0) {
      c->samples[r - 1] = with > without ? (with - without) / BATCH_EVENTS : 0;
    }
  }
  *skipped = median(c->samples, c->reps);
  return ETK_OK;
}

static int measure_pairs(calib_t *c, uint64_t *pair, uint64_t *inner) {
  volatile uint32_t sink = 1;
  for (uint32_t r = 0; r <= c->reps; r++) {
    etk_recorder_name_t outer, name;
    etk_recorder_t *t = scratch_open(c, &name);
    if (t == NULL) return ETK_E_NO_MEMORY;
    outer = etk_recorder_intern(t, "OPERATOR_CALL");
    if (outer == 0 || scratch_warm(t, outer, name) != ETK_OK)
      return ETK_E_NO_MEMORY;
    uint64_t with, without;
    nested_batch(c, t, outer, name, &sink, &with, &without);
    if (t->event_count != BATCH_EVENTS + 2u) return ETK_E_INTERNAL;
    if (r > 0) {
      uint64_t recorded = recorded_ticks(t, name) * 1000u;
      /* the work alone, without the brackets' clock read */
      uint64_t work = without > c->clock_mt ? without - c->clock_mt : 0;
      c->samples[r - 1] = with > without ? (with - without) / BATCH_EVENTS : 0;
      c->inner[r - 1] =
          recorded > work ? (recorded - work) / (BATCH_EVENTS / 2u) : 0;
    }
  }
  *pair = median(c->samples, c->reps);
  *inner = median(c->inner, c->reps);
  return ETK_OK;
}

static int measure_logs(calib_t *c, uint32_t bytes, uint64_t *out) {
  int64_t size = (int64_t)bytes;
  etk_recorder_tensor_t tensor;
  etk_recorder_value_t v;
  memset(&tensor, 0, sizeof tensor);
  tensor.scalar_type = 0; /* BYTE */
  tensor.dim = 1;
  tensor.sizes = &size;
  tensor.data = c->source;
  tensor.nbytes = bytes;
  v = etk_value_tensor(&tensor);
  for (uint32_t r = 0; r <= c->reps; r++) {
    etk_recorder_name_t name;
    etk_recorder_t *t = scratch_open(c, &name);
    uint64_t t0, t1;
    if (t == NULL ||
        etk_recorder_set_debug_buffer(t, c->sink, SINK_BYTES) != ETK_OK ||
        etk_recorder_log_value(t, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT) != ETK_OK)
      return ETK_E_NO_MEMORY;
    t0 = c->clock(c->clock_ctx);
    for (uint32_t k = 0; k < BATCH_LOGS; k++)
      (void)etk_recorder_log_value(t, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
    t1 = c->clock(c->clock_ctx);
    if (t->event_count != BATCH_LOGS + 1u) return ETK_E_INTERNAL;
    if (r > 0) c->samples[r - 1] = per_op(t1 - t0, c->clock_mt, BATCH_LOGS);
  }
  *out = median(c->samples, c->reps);
  return ETK_OK;
}

/* Lays the scratch out; ETK_E_NO_MEMORY when it is too small. */
static int calib_layout(calib_t *c, uint8_t *mem, size_t size) {
  size_t pad = (size_t)(0u - (uintptr_t)mem) & 7u, need;
  need = etk_recorder_calibration_scratch_size(c->reps);
  if (mem == NULL || size < pad || size - pad < need) return ETK_E_NO_MEMORY;
  mem += pad;
  c->samples = (uint64_t *)(void *)mem;
  c->inner = c->samples + c->reps;
  c->source = mem + 16u * (size_t)c->reps;
  memset(mem + 16u * (size_t)c->reps, 0, LARGE_BYTES);
  c->sink = mem + 16u * (size_t)c->reps + LARGE_BYTES;
  c->arena = c->sink + SINK_BYTES;
  c->arena_size = size - pad - 16u * (size_t)c->reps - LARGE_BYTES - SINK_BYTES;
  return ETK_OK;
}

int etk_recorder_calibrate(etk_recorder_t *rec, void *scratch,
                           size_t scratch_size, uint32_t repetitions,
                           etk_recorder_calibration_t *out) {
  etk_recorder_calibration_t cal;
  calib_t c;
  uint64_t small_mt, large_mt;
  int status;
  if (rec == NULL || repetitions > ETK_RECORDER_CALIBRATION_MAX_REPS)
    return ETK_E_INVALID_ARGUMENT;
  if (rec->state == REC_STATE_IN_SINK) return ETK_E_INVALID_STATE;
  memset(&c, 0, sizeof c);
  c.clock = rec->clock;
  c.clock_ctx = rec->clock_ctx;
  c.reps = repetitions ? repetitions : ETK_RECORDER_CALIBRATION_DEFAULT_REPS;
  prefault_recording(rec);
  if (scratch == NULL) { /* the arena's free space */
    uint64_t floor = rec_pool_floor(rec);
    if (floor >= rec->strings_low) return ETK_E_NO_MEMORY;
    scratch = rec_base(rec) + floor;
    scratch_size = (size_t)(rec->strings_low - floor);
  }
  status = calib_layout(&c, (uint8_t *)scratch, scratch_size);
  if (status == ETK_OK) status = measure_clock(&c);
  memset(&cal, 0, sizeof cal);
  cal.clock_mt = c.clock_mt;
  cal.repetitions = c.reps;
  if (status == ETK_OK) status = measure_pairs(&c, &cal.pair_mt, &cal.inner_mt);
  if (status == ETK_OK) status = measure_skipped(&c, &cal.skipped_mt);
  if (status == ETK_OK) status = measure_logs(&c, SMALL_BYTES, &small_mt);
  if (status == ETK_OK) status = measure_logs(&c, LARGE_BYTES, &large_mt);
  if (status != ETK_OK) return status;
  /* the fixed part: the small log less its bytes at the per-byte rate */
  cal.tensor_kib_mt = large_mt > small_mt ? (large_mt - small_mt) * 1024u /
                                                (LARGE_BYTES - SMALL_BYTES)
                                          : 0u;
  cal.tensor_mt = small_mt - cal.tensor_kib_mt * SMALL_BYTES / 1024u;
  status = etk_recorder_set_calibration(rec, &cal);
  if (status == ETK_OK && out != NULL) *out = cal;
  return status;
}

/* ------------------------------------------------------------ storing */

static uint64_t clamp_mt(uint64_t v) {
  return v > ETK_RECORDER_CALIBRATION_MAX_VALUE
             ? ETK_RECORDER_CALIBRATION_MAX_VALUE
             : v;
}

int etk_recorder_set_calibration(etk_recorder_t *rec,
                                 const etk_recorder_calibration_t *cal) {
  if (rec == NULL || cal == NULL) return ETK_E_INVALID_ARGUMENT;
  if (rec->state == REC_STATE_IN_SINK) return ETK_E_INVALID_STATE;
  if (!rec->calibrated) {
    /* the same charge rec_budget_reset adds for a calibrated recorder,
     * checked first so that a refusal latches nothing */
    uint32_t out = rec_calibration_out();
    int fits = rec->output == NULL
                   ? rec->arena_room >= out + 4u
                   : rec->arena_room >= 4u && rec->output_room >= out;
    rec_cost_t cost;
    if (!fits) return ETK_E_FULL;
    memset(&cost, 0, sizeof cost);
    cost.scratch = 4u;
    cost.output = out;
    if (rec_budget_take(rec, &cost) != ETK_OK) return ETK_E_INTERNAL;
    rec->calibrated = 1;
  }
  rec->calibration = *cal;
  rec->calibration.pair_mt = clamp_mt(cal->pair_mt);
  rec->calibration.inner_mt = clamp_mt(cal->inner_mt);
  rec->calibration.clock_mt = clamp_mt(cal->clock_mt);
  rec->calibration.tensor_mt = clamp_mt(cal->tensor_mt);
  rec->calibration.tensor_kib_mt = clamp_mt(cal->tensor_kib_mt);
  rec->calibration.skipped_mt = clamp_mt(cal->skipped_mt);
  rec->calibration.adjacent_wrappers = cal->adjacent_wrappers ? 1u : 0u;
  return ETK_OK;
}

int etk_recorder_get_calibration(const etk_recorder_t *rec,
                                 etk_recorder_calibration_t *out) {
  if (rec == NULL || !rec->calibrated) return 0;
  if (out != NULL) *out = rec->calibration;
  return 1;
}

/* ------------------------------------------------------------ the marker */

/* Decimal digits of v at out (no NUL); returns the length. */
static size_t put_u64(char *out, uint64_t v) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[n++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v != 0);
  for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

/* ",key=" (or "key=" first) then milli-ticks as ticks with 3 decimals. */
static size_t put_field(char *out, size_t at, const char *key, uint64_t mt,
                        int decimals) {
  size_t k = strlen(key);
  if (at > sizeof PREFIX - 1) out[at++] = ',';
  memcpy(out + at, key, k);
  at += k;
  out[at++] = '=';
  if (!decimals) return at + put_u64(out + at, mt);
  at += put_u64(out + at, mt / 1000u);
  out[at++] = '.';
  out[at++] = (char)('0' + (int)(mt / 100u % 10u));
  out[at++] = (char)('0' + (int)(mt / 10u % 10u));
  out[at++] = (char)('0' + (int)(mt % 10u));
  return at;
}

etk_fb_ref_t rec_calibration_emit(etk_recorder_t *rec, etk_fb_builder_t *b) {
  char text[REC_CALIB_MAX];
  const etk_recorder_calibration_t *c = &rec->calibration;
  size_t n = sizeof PREFIX - 1;
  etk_fb_ref_t name;
  memcpy(text, PREFIX, n);
  n = put_field(text, n, "pair", c->pair_mt, 1);
  n = put_field(text, n, "inner", c->inner_mt, 1);
  n = put_field(text, n, "clock", c->clock_mt, 1);
  n = put_field(text, n, "tensor", c->tensor_mt, 1);
  n = put_field(text, n, "tensor_kib", c->tensor_kib_mt, 1);
  n = put_field(text, n, "skipped", c->skipped_mt, 1);
  n = put_field(text, n, "reps", c->repetitions, 0);
  if (c->adjacent_wrappers) n = put_field(text, n, "adjacent", 1u, 0);
  name = etk_fb_create_string(b, text, n);
  etk_fb_table_start(b);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_NAME, name);
  return etk_fb_table_end(b);
}
