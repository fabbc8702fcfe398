/*
 * bench_clock.h - the seconds clocks the inspector and analysis benchmarks
 * time their cases with: wall time (CLOCK_MONOTONIC) and this process's
 * CPU time (CLOCK_PROCESS_CPUTIME_ID).  Include after defining
 * _POSIX_C_SOURCE or _GNU_SOURCE.
 */
#ifndef ETKIT_BENCH_CLOCK_H
#define ETKIT_BENCH_CLOCK_H

#include <time.h>

/* Seconds on clock `id` (from an arbitrary start). */
static inline double bench_clock_seconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall-clock seconds. */
static inline double bench_wall_seconds(void) {
  return bench_clock_seconds(CLOCK_MONOTONIC);
}

/* CPU seconds this process has used. */
static inline double bench_cpu_seconds(void) {
  return bench_clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

#endif
