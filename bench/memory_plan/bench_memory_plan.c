/*
 * bench_memory_plan.c - how fast the memory plan of a large program is
 * read and analysed (etk_memory_plan_open: verifier, lifetimes, peaks by
 * sorted events, overlap sweep) and written as a Chrome trace and an HTML
 * map (to a counting sink).
 *
 * The program: N instructions, N + 1 planned tensors of 256 bytes, tensor
 * k written by instruction k - 1 and read by instruction k, every 8th one
 * also read four instructions later (a residual), offsets rotating over 8
 * slots so that storage is reused all along (a valid plan).
 *
 * With --wide: N tensors with pseudo-random lifetimes of up to N/2
 * instructions (about N/4 live at once), each at its own place (valid, no
 * reuse); instruction i references the tensors that start or end at i.
 * This is the hard case for the overlap check (a live set of ~25,000);
 * only the analysis is timed (a trace would hold ~N * N/4 events).
 *
 * Output: "<name> <value> <unit>", wall and process-CPU time.
 *
 *   bench_memory_plan [--wide] [N]      N = 100000 by default
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etkit/memory_plan.h"
#include "etkit/program.h"

static double now(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int build(uint32_t n, uint8_t **out, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int add = etk_program_builder_add_operator(b, "aten::add", "out");
  int alpha = etk_program_builder_add_int(b, 1);
  int32_t size = 64;
  int *values = malloc(((size_t)n + 1) * sizeof *values);
  if (!values) return ETK_E_NO_MEMORY;
  for (uint32_t k = 0; k <= n; k++) {
    values[k] = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, &size,
                                               NULL, ETK_BUILDER_PLANNED, NULL);
    etk_program_builder_place_tensor(b, values[k], 1, 256u * (k % 8));
  }
  for (uint32_t i = 0; i < n; i++) {
    /* out = in + residual: the residual is tensor i - 4 when i % 8 == 4 */
    int in = values[i], res = (i % 8 == 4) ? values[i - 4] : values[i];
    int32_t args[5] = {in, res, alpha, values[i + 1], values[i + 1]};
    etk_program_builder_kernel_call(b, add, args, 5);
  }
  etk_program_builder_set_inputs(b, &values[0], 1);
  etk_program_builder_set_outputs(b, &values[n], 1);
  int rc = etk_program_builder_finish(b, out, len, NULL);
  etk_program_builder_free(b);
  free(values);
  return rc;
}

/* The --wide program (see the top of the file). */
static int build_wide(uint32_t n, uint8_t **out, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int op = etk_program_builder_add_operator(b, "aten::cat", "out");
  int32_t size = 64;
  uint32_t *first = malloc((size_t)n * sizeof *first);
  uint32_t *last = malloc((size_t)n * sizeof *last);
  uint32_t *count = calloc((size_t)n + 1, sizeof *count);
  int32_t *args = NULL;
  if (!first || !last || !count) return ETK_E_NO_MEMORY;
  uint64_t x = 88172645463325252ull;
  for (uint32_t k = 0; k < n; k++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    first[k] = (uint32_t)(x % n);
    uint32_t span = (uint32_t)((x >> 32) % (n / 2 + 1));
    last[k] = first[k] + span < n ? first[k] + span : n - 1;
    int v = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, &size, NULL,
                                           ETK_BUILDER_PLANNED, NULL);
    etk_program_builder_place_tensor(b, v, 1, 256ull * k);
    count[first[k]]++;
    if (last[k] != first[k]) count[last[k]]++;
  }
  /* args of instruction i: offsets into one array by counting sort */
  uint32_t *start = calloc((size_t)n + 1, sizeof *start);
  args = malloc((2 * (size_t)n + 1) * sizeof *args);
  if (!start || !args) return ETK_E_NO_MEMORY;
  for (uint32_t i = 0; i < n; i++) start[i + 1] = start[i] + count[i];
  for (uint32_t k = 0; k < n; k++) {
    args[start[first[k]]++] = (int32_t)k;
    if (last[k] != first[k]) args[start[last[k]]++] = (int32_t)k;
  }
  for (uint32_t i = 0, at = 0; i < n; at += count[i], i++)
    etk_program_builder_kernel_call(b, op, args + at, count[i]);
  int rc = etk_program_builder_finish(b, out, len, NULL);
  etk_program_builder_free(b);
  free(first);
  free(last);
  free(count);
  free(start);
  free(args);
  return rc;
}

int main(int argc, char **argv) {
  int wide = argc > 1 && strcmp(argv[1], "--wide") == 0;
  if (wide) argc--, argv++;
  uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100000;
  uint8_t *pte = NULL;
  size_t len = 0;
  if (n < 8 ||
      (wide ? build_wide(n, &pte, &len) : build(n, &pte, &len)) != ETK_OK) {
    fprintf(stderr, "bench_memory_plan: cannot build the program\n");
    return 1;
  }
  printf("program_bytes %zu bytes\ninstructions %u count\n", len, n);
  double w = now(CLOCK_MONOTONIC), c = now(CLOCK_PROCESS_CPUTIME_ID);
  etk_memory_plan_t *plan = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_memory_plan_open(pte, len, NULL, &plan, &err) != ETK_OK) {
    fprintf(stderr, "bench_memory_plan: %s\n", err.message);
    return 1;
  }
  printf("analyse_wall %.1f ms\nanalyse_cpu %.1f ms\n",
         1e3 * (now(CLOCK_MONOTONIC) - w),
         1e3 * (now(CLOCK_PROCESS_CPUTIME_ID) - c));
  printf("tensors %zu count\npeak_bytes %llu bytes\noverlaps %llu count\n",
         plan->tensor_count, (unsigned long long)plan->buffers[0].peak_bytes,
         (unsigned long long)plan->overlap_total);
  etk_render_sink_t sink;
  if (wide) { /* the trace would hold ~N * N/4 events: not measured */
    etk_memory_plan_free(plan);
    free(pte);
    return 0;
  }
  w = now(CLOCK_MONOTONIC);
  etk_render_sink_init(&sink, NULL, NULL);
  etk_memory_plan_render_trace(plan, 0, &sink, NULL);
  printf("trace_wall %.1f ms\ntrace_bytes %llu bytes\n",
         1e3 * (now(CLOCK_MONOTONIC) - w), (unsigned long long)sink.bytes);
  w = now(CLOCK_MONOTONIC);
  etk_render_sink_init(&sink, NULL, NULL);
  etk_memory_plan_render_html(plan, &sink, NULL);
  printf("html_wall %.1f ms\nhtml_bytes %llu bytes\n",
         1e3 * (now(CLOCK_MONOTONIC) - w), (unsigned long long)sink.bytes);
  etk_memory_plan_free(plan);
  free(pte);
  return 0;
}
