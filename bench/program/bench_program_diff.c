/*
 * bench_program_diff.c - how fast `etkit diff A.pte B.pte` compares
 * constant data: two programs built with etk_program_builder, each with
 * 32 float constants of 4 MiB (128 MiB in all), loaded, then diffed with
 * etk_program_diff_build (the library call the CLI makes) in three cases:
 * identical constants, one element in 100 changed in every tensor, and
 * every element changed.  Loading is not timed.  Output: "<name> <value>
 * <unit>" (GB/s = constant bytes of one side per second of wall time,
 * and of process CPU time: the machine may be shared).
 *
 *   bench_program_diff           32 tensors of 4 MiB
 *   bench_program_diff --quick   8 tensors of 1 MiB
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "etkit/program.h"
#include "etkit/program_tools.h"

static uint8_t *build(size_t tensors, size_t floats, int change_every,
                      size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  float *data = malloc(floats * sizeof *data);
  if (!b || !data) return NULL;
  int32_t sz[1] = {(int32_t)floats};
  for (size_t t = 0; t < tensors; t++) {
    for (size_t i = 0; i < floats; i++) {
      data[i] = (float)((i * 31 + t * 7) % 1000) * 0.001f;
      if (change_every && i % (size_t)change_every == 0) data[i] += 0.5f;
    }
    etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, sz, NULL,
                                   ETK_BUILDER_CONSTANT, data);
  }
  free(data);
  uint8_t *pte = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_program_builder_finish(b, &pte, len, &err) != ETK_OK) pte = NULL;
  etk_program_builder_free(b);
  return pte;
}

static etk_program_t *load(const uint8_t *pte, size_t len) {
  etk_program_t *p = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  return etk_program_load(pte, len, NULL, &p, &err) == ETK_OK ? p : NULL;
}

static int run(const char *label, const etk_program_t *a,
               const etk_program_t *b) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_diff_t d;
  double best = 1e30, best_cpu = 1e30;
  uint64_t bytes = 0;
  size_t tensors = 0;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = bench_wall_seconds(), c0 = bench_cpu_seconds();
    if (etk_program_diff_build(a, b, &d, &err) != ETK_OK) return 1;
    double w = bench_wall_seconds() - t0, c = bench_cpu_seconds() - c0;
    if (w < best) best = w;
    if (c < best_cpu) best_cpu = c;
    bytes = d.constant_bytes;
    tensors = d.tensor_count;
    etk_program_diff_free(&d);
  }
  printf("program_diff_%s_ms %.2f ms\n", label, best * 1e3);
  printf("program_diff_%s_constant_mb %.1f MB\n", label, (double)bytes / 1e6);
  printf("program_diff_%s_differing_tensors %zu tensors\n", label, tensors);
  printf("program_diff_%s_gb_per_s %.2f GB/s\n", label,
         (double)bytes / best / 1e9);
  printf("program_diff_%s_cpu_gb_per_s %.2f GB/s\n", label,
         (double)bytes / best_cpu / 1e9);
  return 0;
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  size_t tensors = quick ? 8 : 32, floats = (quick ? 1u : 4u) << 18;
  size_t la, lb, lc;
  uint8_t *pa = build(tensors, floats, 0, &la);
  uint8_t *pb = build(tensors, floats, 100, &lb);
  uint8_t *pc = build(tensors, floats, 1, &lc);
  etk_program_t *a = pa ? load(pa, la) : NULL, *a2 = pa ? load(pa, la) : NULL;
  etk_program_t *b = pb ? load(pb, lb) : NULL, *c = pc ? load(pc, lc) : NULL;
  if (!a || !a2 || !b || !c) {
    fprintf(stderr, "bench_program_diff: cannot build the programs\n");
    return 1;
  }
  int rc = run("identical", a, a2) || run("one_in_100", a, b) ||
           run("all_changed", a, c);
  etk_program_free(a);
  etk_program_free(a2);
  etk_program_free(b);
  etk_program_free(c);
  free(pa);
  free(pb);
  free(pc);
  return rc;
}
