/*
 * bench_runtime.c - executor figures, one "<name> <value> <unit>" line
 * each (scripts/run-bench.sh collects them):
 *
 *   executor_dispatch_per_instruction   a chain of MoveCalls: the executor's
 *                                       own cost per instruction (no kernel)
 *   kernel_call_per_instruction         a chain of aten::add.out on one
 *                                       float: dispatch plus a tiny kernel
 *   tracing_added_per_instruction       extra cost per kernel instruction
 *                                       with the recorder at "all events"
 *                                       (OPERATOR_CALL + native_call events)
 *   tracing_added_per_move_instruction  the same for a MoveCall (one
 *                                       MOVE_CALL event per instruction)
 *   tracing_method_only_per_instruction extra cost per kernel instruction
 *                                       with "method only" profiling
 *   method_load                         etk_method_load_alloc of the
 *                                       1000-instruction program
 *
 * Each figure is the median of several timed batches (the minimum is too
 * optimistic on a shared machine, the mean too noisy).  Nothing here is a
 * test: timings never fail the build.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etkit/program.h"
#include "etkit/recorder.h"
#include "etkit/runtime.h"

#define N_INSTR 1000
#define BATCHES 15
#define RUNS_PER_BATCH 50

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A recorder in a 64 MiB arena (returned in *arena_out for free()). */
static etk_recorder_t *recorder_new(int profile_all, void **arena_out) {
  size_t size = (size_t)64 << 20;
  void *arena = aligned_alloc(64, size);
  etk_recorder_t *r = NULL;
  etk_recorder_config_t cfg;
  etk_recorder_config_init(&cfg);
  cfg.max_strings = 256;
  if (!arena || etk_recorder_init(&r, arena, size, &cfg) != ETK_OK) {
    free(arena);
    return NULL;
  }
  etk_recorder_set_profiling_level(
      r, profile_all ? ETK_PROFILING_ALL_EVENTS : ETK_PROFILING_METHOD_ONLY);
  *arena_out = arena;
  return r;
}

static etk_program_t *build(int kernels) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int32_t sz[1] = {1};
  int x = etk_program_builder_add_tensor(b, ETK_FLOAT, 1, sz, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int o = etk_program_builder_add_tensor(b, ETK_FLOAT, 1, sz, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int alpha = etk_program_builder_add_int(b, 1);
  int i0 = etk_program_builder_add_int(b, 0),
      i1 = etk_program_builder_add_int(b, 0);
  int add = etk_program_builder_add_operator(b, "aten::add", "out");
  int32_t args[5] = {x, o, alpha, o, o};
  for (int k = 0; k < N_INSTR; k++) {
    if (kernels)
      etk_program_builder_kernel_call(b, add, args, 5);
    else
      etk_program_builder_move_call(b, k & 1 ? i0 : i1, k & 1 ? i1 : i0);
  }
  etk_program_builder_set_inputs(b, &x, 1);
  etk_program_builder_set_outputs(b, &o, 1);
  uint8_t *d;
  size_t len;
  etk_program_t *p = NULL;
  if (etk_program_builder_finish(b, &d, &len, NULL) == ETK_OK) {
    etk_program_load(d, len, NULL, &p, NULL);
    free(d);
  }
  etk_program_builder_free(b);
  return p;
}

static etk_method_t *prepare(etk_program_t *p, etk_recorder_t *rec, float *x) {
  etk_method_t *m;
  if (etk_method_load_alloc(p, "forward", rec, &m, NULL) != ETK_OK) return NULL;
  etk_tensor_t t = *etk_method_input(m, 0)->u.tensor;
  memset(t.dim_order, 0, sizeof t.dim_order);
  t.data = x;
  t.nbytes = sizeof *x;
  etk_value_t v = {ETK_VALUE_TENSOR, {.tensor = &t}};
  etk_method_set_input(m, 0, &v, NULL);
  for (int warm = 0; warm < 5; warm++) etk_method_execute(m, NULL);
  return m;
}

static double batch(etk_method_t *m, etk_recorder_t *rec) {
  /* Finishing lets the next block start a fresh dump, so the arena never
   * fills up between timed batches. */
  if (rec) (void)etk_recorder_finish(rec, NULL, NULL);
  double t0 = now_ns();
  for (int r = 0; r < RUNS_PER_BATCH; r++)
    if (etk_method_execute(m, NULL) != ETK_OK) return -1;
  return (now_ns() - t0) / ((double)RUNS_PER_BATCH * N_INSTR);
}

/* ns per instruction of `p` untraced (*base) and the median added cost of
 * tracing into `rec`, measured in alternating batches so that drift of the
 * shared machine hits both sides alike. */
static int measure(etk_program_t *p, etk_recorder_t *rec, double *base,
                   double *added) {
  float x = 1.0f;
  etk_method_t *plain = prepare(p, NULL, &x);
  etk_method_t *traced = rec ? prepare(p, rec, &x) : NULL;
  if (!plain || (rec && !traced)) return -1;
  double b[BATCHES], d[BATCHES];
  for (int i = 0; i < BATCHES; i++) {
    b[i] = batch(plain, NULL);
    d[i] = traced ? batch(traced, rec) - b[i] : 0;
  }
  qsort(b, BATCHES, sizeof b[0], cmp_double);
  qsort(d, BATCHES, sizeof d[0], cmp_double);
  *base = b[BATCHES / 2];
  *added = d[BATCHES / 2];
  etk_method_free(plain);
  etk_method_free(traced);
  return 0;
}

int main(void) {
  etk_program_t *moves = build(0), *adds = build(1);
  if (!moves || !adds) {
    fprintf(stderr, "bench_runtime: cannot build the programs\n");
    return 1;
  }
  void *arena_all, *arena_method;
  etk_recorder_t *all = recorder_new(1, &arena_all);
  etk_recorder_t *method = recorder_new(0, &arena_method);
  double dispatch, plain, traced_move, traced, method_only, unused;
  if (!all || !method || measure(moves, all, &dispatch, &traced_move) ||
      measure(adds, all, &plain, &traced) ||
      measure(adds, method, &unused, &method_only)) {
    fprintf(stderr, "bench_runtime: a run failed\n");
    return 1;
  }
  double loads[BATCHES];
  for (int bt = 0; bt < BATCHES; bt++) {
    etk_method_t *m;
    double t0 = now_ns();
    etk_method_load_alloc(adds, "forward", NULL, &m, NULL);
    loads[bt] = now_ns() - t0;
    etk_method_free(m);
  }
  qsort(loads, BATCHES, sizeof loads[0], cmp_double);
  printf("executor_dispatch_per_instruction %.1f ns\n", dispatch);
  printf("kernel_call_per_instruction %.1f ns\n", plain);
  printf("tracing_added_per_instruction %.1f ns\n", traced);
  printf("tracing_added_per_move_instruction %.1f ns\n", traced_move);
  printf("tracing_method_only_per_instruction %.1f ns\n", method_only);
  printf("method_load %.1f us\n", loads[BATCHES / 2] / 1e3);
  free(arena_all);
  free(arena_method);
  etk_program_free(moves);
  etk_program_free(adds);
  return 0;
}
