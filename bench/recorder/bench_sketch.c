/*
 * bench_sketch.c - figures of the latency sketch (etkit/sketch.h): insert
 * cost (doubles, and integer ticks by etk_sketch_add_ticks), serialised bytes
 * of an operator whose times spread over two decades, and the measured worst
 * relative error over 12 quantiles on five distributions against the sorted
 * values (rank floor(q * (n - 1))), with the bound each sketch reports.  Prints
 * "<name> <value> <unit>".
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "etkit/sketch.h"

#define N 1000000
static double values[N];
static uint64_t state = 0x9e3779b97f4a7c15ull;

static double uniform(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return ((double)(state >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void) {
  return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}
static double lognormal(void) {
  return 2e5 * exp(0.5 * normal());
}
static double bimodal(void) {
  return uniform() < 0.7 ? 5e4 * exp(0.05 * normal())
                         : 4e5 * exp(0.05 * normal());
}
static double heavy_tail(void) {
  return 1e4 / pow(uniform(), 1.0 / 1.2);
}
static double ties(void) {
  return (double)(1000 * (1 + (int)(uniform() * 5)));
}
static double eight_decades(void) {
  return 1e3 * pow(1e8, uniform());
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void error_on(const char *name, double (*gen)(void)) {
  etk_sketch_t s;
  etk_sketch_init(&s, 0.01);
  for (size_t i = 0; i < N; i++) {
    values[i] = gen();
    etk_sketch_add(&s, values[i]);
  }
  qsort(values, N, sizeof values[0], cmp);
  static const double qs[] = {0.001, 0.01, 0.1,   0.25,   0.5,  0.75,
                              0.9,   0.99, 0.999, 0.9999, 0.37, 0.63};
  double worst = 0.0;
  for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
    double est, truth = values[(size_t)(qs[i] * (double)(N - 1))];
    etk_sketch_quantile(&s, qs[i], &est);
    double e = fabs(est - truth) / truth;
    if (e > worst) worst = e;
  }
  printf("sketch_error_%s %.3f %%\n", name, 100.0 * worst);
  printf("sketch_bound_%s %.3f %%\n", name, 100.0 * etk_sketch_error_bound(&s));
  printf("sketch_bytes_%s %zu B\n", name, etk_sketch_serialized_size(&s));
}

static uint64_t ticks[N];

/* Best of 7 of the mean insert time of values[] (or ticks[]) into s. */
static double insert_ns(etk_sketch_t *s, int as_ticks) {
  double best = 1e30;
  for (int rep = 0; rep < 7; rep++) {
    etk_sketch_init(s, 0.01);
    double t0 = now_ns();
    if (as_ticks)
      for (size_t i = 0; i < N; i++) etk_sketch_add_ticks(s, ticks[i]);
    else
      for (size_t i = 0; i < N; i++) etk_sketch_add(s, values[i]);
    double t = (now_ns() - t0) / N;
    if (t < best) best = t;
  }
  return best;
}

int main(void) {
  etk_sketch_t s;
  etk_sketch_init(&s, 0.01);
  for (size_t i = 0; i < N; i++) values[i] = 1e4 * pow(100.0, uniform());
  printf("sketch_insert %.2f ns\n", insert_ns(&s, 0));
  printf("sketch_struct %zu B\n", sizeof(etk_sketch_t));
  printf("sketch_bytes_two_decades %zu B\n", etk_sketch_serialized_size(&s));
  printf("sketch_bound_two_decades %.3f %%\n",
         100.0 * etk_sketch_error_bound(&s));
  /* the same values as integer ticks, by etk_sketch_add_ticks (what the
   * recorder's stats mode calls) */
  for (size_t i = 0; i < N; i++) ticks[i] = (uint64_t)values[i];
  printf("sketch_insert_ticks %.2f ns\n", insert_ns(&s, 1));
  error_on("lognormal", lognormal);
  error_on("bimodal", bimodal);
  error_on("heavy_tail", heavy_tail);
  error_on("ties", ties);
  error_on("eight_decades", eight_decades);
  return 0;
}
