/*
 * bench_compensation.c - does compensation give back an untraced run's
 * Method::execute?  One "<name> <value> <unit>" line per figure:
 *
 *   compensation_<prog>_method_only      median Method::execute of a run
 *                                        traced at method level (us)
 *   compensation_<prog>_raw_overhead     full trace's median against it (%)
 *   compensation_<prog>_residual         compensated full trace's median
 *                                        against it (%, signed)
 *   compensation_<prog>_residual_lo, _hi the lowest and highest of the rounds'
 *   compensation_<prog>_residual_batch   the same with the calibration's
 *                                        batch pair for every run (not each
 *                                        run's own, etkit/compensation.h),
 *                                        and its _lo, _hi
 *   compensation_<prog>_events           events inside one Method::execute
 *   compensation_<prog>_in_situ_event    what one of them added to it (ns):
 *                                        the raw overhead per event
 *   calibration_pair, _inner, _clock,    the recorder's figures (ns)
 *   calibration_skipped, _tensor, _tensor_kib
 *
 * Programs: "demo" (the demo CNN with its delegated part, ~10 us) and
 * "adds" (200 aten::add.out on one float: the worst case, tracing costs
 * as much as the kernels).  RUNS executions each of the full trace and the
 * method-level trace alternate, so that drift of the shared machine hits
 * both; each side's figure is the median of its RUNS Method::execute
 * events, read back from its ETDump (the recorder's own times, as etkit
 * inspect reads them).  argv[1] (optional) is RUNS (default 31); the
 * whole comparison is repeated ROUNDS times and the median round printed.
 * `--parts demo|adds` runs the same comparison's pieces once for
 * callgrind_residual.sh (instruction counts: the deterministic stand-in
 * for a board).  `--write-adds PATH` writes the 200-add chain as a .pte
 * (board_residual.py runs it on the emulated boards).  Nothing here is a
 * test.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_model/demo_model.h"
#include "etkit/compensation.h"
#include "etkit/program.h"
#include "etkit/recorder.h"
#include "etkit/recorder_calibration.h"
#include "etkit/runtime.h"

#define MAX_RUNS 1001
#define ROUNDS 5
#define WARMUP 5

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static etk_recorder_t *recorder_new(int all, void **arena) {
  size_t size = (size_t)64 << 20;
  etk_recorder_t *r = NULL;
  etk_recorder_config_t cfg;
  etk_recorder_config_init(&cfg);
  cfg.max_strings = 256;
  /* fresh memory, as etkit run's arena (src/runtime/host/trace_alloc.c):
   * its pages are mapped at first touch, by the calibration */
  *arena = aligned_alloc(64, size);
  if (!*arena || etk_recorder_init(&r, *arena, size, &cfg) != ETK_OK)
    return NULL;
  etk_recorder_set_profiling_level(
      r, all ? ETK_PROFILING_ALL_EVENTS : ETK_PROFILING_METHOD_ONLY);
  return r;
}

/* The 200-add chain as a .pte (etk_program_builder_finish's bytes). */
static int adds_bytes(uint8_t **d, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int32_t sz[1] = {1};
  int x = etk_program_builder_add_tensor(b, ETK_FLOAT, 1, sz, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int o = etk_program_builder_add_tensor(b, ETK_FLOAT, 1, sz, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int alpha = etk_program_builder_add_int(b, 1);
  int add = etk_program_builder_add_operator(b, "aten::add", "out");
  int32_t args[5] = {x, o, alpha, o, o};
  for (int k = 0; k < 200; k++)
    etk_program_builder_kernel_call(b, add, args, 5);
  etk_program_builder_set_inputs(b, &x, 1);
  etk_program_builder_set_outputs(b, &o, 1);
  int rc = etk_program_builder_finish(b, d, len, NULL);
  etk_program_builder_free(b);
  return rc;
}

static etk_program_t *build_adds(void) {
  uint8_t *d;
  size_t len;
  etk_program_t *p = NULL;
  if (adds_bytes(&d, &len) == ETK_OK) {
    etk_program_load(d, len, NULL, &p, NULL);
    free(d);
  }
  return p;
}

/* --write-adds PATH: the chain for a board run (board_residual.py). */
static int write_adds(const char *path) {
  uint8_t *d;
  size_t len;
  FILE *f;
  if (adds_bytes(&d, &len) != ETK_OK) return 1;
  f = fopen(path, "wb");
  int rc = !f || fwrite(d, 1, len, f) != len;
  if (f && fclose(f)) rc = 1;
  free(d);
  if (rc) fprintf(stderr, "bench_compensation: cannot write %s\n", path);
  return rc;
}

static etk_program_t *build_demo(void) {
  uint8_t *pte;
  size_t len;
  etk_program_t *p = NULL;
  if (etk_demo_model_build(&pte, &len, NULL) != ETK_OK) return NULL;
  etk_program_load(pte, len, NULL, &p, NULL);
  free(pte);
  return p;
}

/* A method on `rec` with every float input filled (ones, or the demo's
 * ramp: any values do). */
static etk_method_t *prepare(etk_program_t *p, etk_recorder_t *rec, float *x,
                             size_t n) {
  etk_method_t *m;
  if (etk_method_load_alloc(p, "forward", rec, &m, NULL) != ETK_OK) return NULL;
  etk_tensor_t t = *etk_method_input(m, 0)->u.tensor;
  if (t.nbytes > n * sizeof *x) return NULL;
  t.data = x;
  etk_value_t v = {ETK_VALUE_TENSOR, {.tensor = &t}};
  if (etk_method_set_input(m, 0, &v, NULL) != ETK_OK) return NULL;
  return m;
}

/* Method::execute durations (ticks) of a dump, raw (compensate 0),
 * compensated as the marker says (1: each run's own pair when it says
 * adjacent=1) or with the marker's batch pair only (2); returns their
 * count, *inside the events one contains (the first). */
static size_t execute_times(etk_recorder_t *rec, int compensate, double *out,
                            size_t cap, size_t *inside,
                            etk_calibration_t *cal_out) {
  const uint8_t *data;
  size_t len, n = 0;
  etk_etdump_t *d;
  if (etk_recorder_finish(rec, &data, &len) != ETK_OK ||
      etk_etdump_open_memory(data, len, NULL, &d, NULL) != ETK_OK)
    return 0;
  size_t events = etk_etdump_event_count(d);
  double *sub = calloc(events ? events : 1, sizeof *sub);
  etk_calibration_t cal;
  memset(&cal, 0, sizeof cal);
  if (compensate && etk_calibration_find(d, &cal)) {
    etk_calibration_t use = cal;
    if (compensate == 2) use.adjacent = 0;
    etk_compensation_compute(d, &use, sub, NULL);
  }
  if (cal_out) *cal_out = cal;
  for (size_t i = 0; i < events && n < cap; i++) {
    etk_etdump_event_t e;
    etk_etdump_event_get(d, i, &e);
    if (e.kind != ETK_ETDUMP_EVENT_PROFILE || !e.name.data ||
        strcmp(e.name.data, "Method::execute") != 0)
      continue;
    if (n == 0 && inside) {
      etk_etdump_run_t run;
      etk_etdump_run_get(d, e.run, &run);
      *inside = run.event_count - 1;
    }
    out[n++] = (double)(e.end_time - e.start_time) - sub[i];
  }
  free(sub);
  etk_etdump_close(d);
  return n;
}

typedef struct figures {
  double method_only, raw_overhead, residual, residual_batch;
  size_t events;
} figures_t;

static int compare_round(etk_program_t *p, size_t runs, figures_t *f,
                         etk_calibration_t *cal) {
  static float x[4096];
  static double full_raw[MAX_RUNS], full_comp[MAX_RUNS], meth[MAX_RUNS],
      full_batch[MAX_RUNS];
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) x[i] = 1.0f;
  void *a1, *a2;
  etk_recorder_t *full = recorder_new(1, &a1), *only = recorder_new(0, &a2);
  etk_method_t *mf = full ? prepare(p, full, x, 4096) : NULL;
  etk_method_t *mm = only ? prepare(p, only, x, 4096) : NULL;
  int rc = -1;
  if (!mf || !mm || etk_method_calibrate(full, NULL, 0, 0, NULL) != ETK_OK)
    goto out;
  for (int w = 0; w < WARMUP; w++)
    if (etk_method_execute(mf, NULL) || etk_method_execute(mm, NULL)) goto out;
  /* a fresh dump of the measured runs only */
  (void)etk_recorder_finish(full, NULL, NULL);
  (void)etk_recorder_finish(only, NULL, NULL);
  for (size_t r = 0; r < runs; r++) {
    /* alternate which side goes first, so neither always runs warm */
    etk_method_t *first = r % 2 ? mm : mf, *second = r % 2 ? mf : mm;
    if (etk_method_execute(first, NULL) || etk_method_execute(second, NULL))
      goto out;
  }
  size_t n1 = execute_times(full, 0, full_raw, runs, &f->events, NULL);
  /* finish again rebuilds the same dump: read it compensated */
  size_t n2 = execute_times(full, 1, full_comp, runs, NULL, cal);
  size_t n3 = execute_times(only, 0, meth, runs, NULL, NULL);
  size_t n4 = execute_times(full, 2, full_batch, runs, NULL, NULL);
  if (n1 != runs || n2 != runs || n3 != runs || n4 != runs) goto out;
  double base = median(meth, runs);
  f->method_only = base;
  f->raw_overhead = 100.0 * (median(full_raw, runs) - base) / base;
  f->residual = 100.0 * (median(full_comp, runs) - base) / base;
  f->residual_batch = 100.0 * (median(full_batch, runs) - base) / base;
  rc = 0;
out:
  etk_method_free(mf);
  etk_method_free(mm);
  free(a1);
  free(a2);
  return rc;
}

static int report(const char *name, etk_program_t *p, size_t runs,
                  etk_calibration_t *cal) {
  figures_t f[ROUNDS];
  double residual[ROUNDS], batch[ROUNDS];
  for (int k = 0; k < ROUNDS; k++) {
    if (compare_round(p, runs, &f[k], cal)) {
      fprintf(stderr, "bench_compensation: %s: a run failed\n", name);
      return 1;
    }
    residual[k] = f[k].residual;
    batch[k] = f[k].residual_batch;
  }
  /* the round whose residual is the median one */
  double mid = median(residual, ROUNDS);
  int k = 0;
  while (k < ROUNDS - 1 && f[k].residual != mid) k++;
  printf("compensation_%s_method_only %.3f us\n", name, f[k].method_only / 1e3);
  printf("compensation_%s_raw_overhead %.2f %%\n", name, f[k].raw_overhead);
  printf("compensation_%s_residual %.2f %%\n", name, f[k].residual);
  /* the rounds' spread: the shared machine's state moves the residual */
  printf("compensation_%s_residual_lo %.2f %%\n", name, residual[0]);
  printf("compensation_%s_residual_hi %.2f %%\n", name, residual[ROUNDS - 1]);
  /* the same rounds with the calibration's batch pair for every run */
  double batch_mid = median(batch, ROUNDS);
  printf("compensation_%s_residual_batch %.2f %%\n", name, batch_mid);
  printf("compensation_%s_residual_batch_lo %.2f %%\n", name, batch[0]);
  printf("compensation_%s_residual_batch_hi %.2f %%\n", name,
         batch[ROUNDS - 1]);
  printf("compensation_%s_events %zu events\n", name, f[k].events);
  /* what one event cost inside Method::execute, against the calibration's
   * pair - skipped (calibration_pair, calibration_skipped) */
  printf("compensation_%s_in_situ_event %.3f ns\n", name,
         f[k].events ? f[k].method_only * f[k].raw_overhead / 100.0 /
                           (double)f[k].events
                     : 0.0);
  return 0;
}

/* ---------------------------------------------- --parts (callgrind) */

/* What calibrate.c times, with instruction counts instead of a clock:
 * callgrind_residual.sh reads each function's inclusive instructions. */
#define PART_WORK_STEPS 64u
__attribute__((noinline)) static uint32_t part_busy(uint32_t x) {
  for (uint32_t k = 0; k < PART_WORK_STEPS; k++) x = x * 1664525u + 1013904223u;
  return x;
}

__attribute__((noinline)) static uint32_t part_pairs_around_work(
    etk_recorder_t *r, uint32_t k) {
  etk_recorder_name_t a = etk_recorder_intern(r, "OPERATOR_CALL");
  etk_recorder_name_t b = etk_recorder_intern(r, "aten::calibration.out");
  uint32_t x = 1;
  for (uint32_t i = 0; i < k; i++) {
    etk_recorder_scope_t sa = etk_recorder_begin_op(r, a);
    etk_recorder_scope_t sb = etk_recorder_begin_op(r, b);
    x = part_busy(x);
    (void)etk_recorder_end_op(r, &sb);
    (void)etk_recorder_end_op(r, &sa);
  }
  return x;
}

/* The same hooks skipped: a recorder at method level, as a method-level
 * run calls them. */
__attribute__((noinline)) static uint32_t part_skipped_around_work(
    etk_recorder_t *r, uint32_t k) {
  etk_recorder_name_t a = etk_recorder_intern(r, "OPERATOR_CALL");
  uint32_t x = 3;
  for (uint32_t i = 0; i < k; i++) {
    etk_recorder_scope_t sa = etk_recorder_begin_op(r, a);
    etk_recorder_scope_t sb = etk_recorder_begin_op(r, a);
    x = part_busy(x);
    (void)etk_recorder_end_op(r, &sb);
    (void)etk_recorder_end_op(r, &sa);
  }
  return x;
}

__attribute__((noinline)) static uint32_t part_work_only(uint32_t k) {
  uint32_t x = 1;
  for (uint32_t i = 0; i < k; i++) x = part_busy(x);
  return x;
}

__attribute__((noinline)) static int part_full_runs(etk_method_t *m, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (etk_method_execute(m, NULL)) return 1;
  return 0;
}

__attribute__((noinline)) static int part_method_runs(etk_method_t *m,
                                                      size_t n) {
  /* differs from part_full_runs, so no pass folds the two */
  for (size_t i = n; i-- > 0;)
    if (etk_method_execute(m, NULL)) return 1;
  return 0;
}

/* Runs the parts for `prog` (demo or adds); prints the events per run. */
static int parts(etk_program_t *p, size_t runs) {
  static float x[4096];
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) x[i] = 1.0f;
  void *a1, *a2, *a3;
  etk_recorder_t *full = recorder_new(1, &a1), *only = recorder_new(0, &a2);
  etk_recorder_t *cal = recorder_new(1, &a3);
  etk_method_t *mf = full ? prepare(p, full, x, 4096) : NULL;
  etk_method_t *mm = only ? prepare(p, only, x, 4096) : NULL;
  if (!mf || !mm || !cal || etk_recorder_begin_block(cal, "c") != ETK_OK)
    return 1;
  /* warm: the first runs intern names and use new table shapes */
  if (part_full_runs(mf, 2) || part_method_runs(mm, 2)) return 1;
  (void)part_pairs_around_work(cal, 2);
  static double t[MAX_RUNS];
  size_t events = 0;
  execute_times(full, 0, t, MAX_RUNS, &events, NULL);
  (void)etk_recorder_finish(only, NULL, NULL);
  volatile uint32_t sink = part_pairs_around_work(cal, 1000);
  sink += part_skipped_around_work(only, 1000);
  sink += part_work_only(1000);
  (void)sink;
  if (part_full_runs(mf, runs) || part_method_runs(mm, runs)) return 1;
  printf("parts_events %zu events\n", events);
  printf("parts_runs %zu runs\n", runs);
  printf("parts_pairs %u pairs\n", 2000u);
  etk_method_free(mf);
  etk_method_free(mm);
  free(a1);
  free(a2);
  free(a3);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "--write-adds") == 0)
    return write_adds(argv[2]);
  if (argc > 2 && strcmp(argv[1], "--parts") == 0) {
    etk_program_t *p =
        strcmp(argv[2], "demo") == 0 ? build_demo() : build_adds();
    int rc = p ? parts(p, 31) : 1;
    etk_program_free(p);
    return rc;
  }
  size_t runs = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 31;
  if (runs == 0 || runs > MAX_RUNS) {
    fprintf(stderr, "bench_compensation: RUNS must be 1..%d\n", MAX_RUNS);
    return 2;
  }
  etk_program_t *demo = build_demo(), *adds = build_adds();
  if (!demo || !adds) {
    fprintf(stderr, "bench_compensation: cannot build the programs\n");
    return 1;
  }
  etk_calibration_t cal;
  memset(&cal, 0, sizeof cal);
  int rc = report("demo", demo, runs, &cal) || report("adds", adds, runs, &cal);
  if (rc == 0) {
    printf("calibration_pair %.3f ns\n", cal.pair);
    printf("calibration_inner %.3f ns\n", cal.inner);
    printf("calibration_clock %.3f ns\n", cal.clock);
    printf("calibration_skipped %.3f ns\n", cal.skipped);
    printf("calibration_tensor %.3f ns\n", cal.tensor);
    printf("calibration_tensor_kib %.3f ns\n", cal.tensor_kib);
  }
  etk_program_free(demo);
  etk_program_free(adds);
  return rc;
}
