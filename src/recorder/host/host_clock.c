/*
 * host_clock.c - the recorder's default time source on hosts.
 *
 * PURPOSE
 *   etk_recorder_host_clock() returns CLOCK_MONOTONIC in nanoseconds, the
 *   same unit as upstream's POSIX PAL, so the Inspector's default
 *   source_time_scale (ns) is right.  This is the only file of the recorder
 *   that calls the OS; it compiles to nothing unless ETK_RECORDER_HOST is 1
 *   (CMake sets it for host builds; an MCU build supplies its own clock
 *   through etk_recorder_config_t.clock and can leave this file out).
 *
 * INVARIANTS
 *   Monotonic, never fails visibly: if clock_gettime fails the last value
 *   is not remembered and 0 is returned (events then show zero times rather
 *   than garbage).
 */
#if defined(ETK_RECORDER_HOST) && ETK_RECORDER_HOST
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 199309L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#include <time.h>

#include "etkit/recorder.h"

uint64_t etk_recorder_host_clock(void *ctx) {
  struct timespec ts;
  (void)ctx;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#else
/* ISO C forbids an empty translation unit. */
typedef int etk_recorder_host_clock_unused_t;
#endif
