/*
 * host_clock.c - the recorder's time sources on hosts.
 *
 * PURPOSE
 *   etk_recorder_host_clock() returns CLOCK_MONOTONIC in nanoseconds, the
 *   same unit as upstream's POSIX PAL, so the Inspector's default
 *   source_time_scale (ns) is right.  etk_recorder_cycle_clock() is the
 *   optional fast clock: it reads the CPU's cycle counter (x86 TSC through
 *   rdtsc, Arm's CNTVCT_EL0) and converts it to the same CLOCK_MONOTONIC
 *   nanoseconds with one multiply, so a traced begin/end pair costs two
 *   counter reads instead of two clock_gettime calls, and the dump stays
 *   in nanoseconds: upstream's Inspector and etkit read it unchanged.
 *   This is the only file of the recorder that calls the OS; it compiles
 *   to nothing unless ETK_RECORDER_HOST is 1 (CMake sets it for host
 *   builds; an MCU build supplies its own clock through
 *   etk_recorder_config_t.clock and can leave this file out).
 *
 * CONVERSION
 *   ns = base_ns + (ticks - base_ticks) * mult / 2^32, with mult the
 *   nanoseconds per tick times 2^32.  Written as hi * mult + (lo * mult
 *   >> 32) for the high and low 32 bits of the tick delta, which is the
 *   exact floor of the product without 128-bit arithmetic and cannot
 *   overflow for centuries of ticks.  The conversion is monotonic in the
 *   ticks, so ordering is preserved exactly.
 *
 * CALIBRATION
 *   Arm: CNTFRQ_EL0 states the counter's rate; nothing is measured.
 *   x86: the TSC counts at a constant rate only where the CPU says so
 *   (CPUID 0x80000007 EDX bit 8, "invariant TSC", which Linux reports as
 *   the constant_tsc and nonstop_tsc flags); without it init refuses and
 *   callers keep clock_gettime.  The rate is measured against
 *   CLOCK_MONOTONIC over about 10 ms; each end is the tightest of 32
 *   clock readings bracketed by two counter reads (a reading the
 *   scheduler interrupted is never used), so the rate is good to about
 *   1e-5: a 10 s run drifts some 100 us from CLOCK_MONOTONIC, durations
 *   are right to that ratio.
 *
 * INVARIANTS
 *   Monotonic, never fails visibly: if clock_gettime fails the last value
 *   is not remembered and 0 is returned (events then show zero times rather
 *   than garbage).  etk_recorder_cycle_clock() with a NULL or uncalibrated
 *   context falls back to the host clock.
 */
#if defined(ETK_RECORDER_HOST) && ETK_RECORDER_HOST
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 199309L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#include <string.h>
#include <time.h>

#include "etkit/recorder.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define ETK_CYCLE_COUNTER 1
static uint64_t read_counter(void) {
  return (uint64_t)__rdtsc();
}
static int counter_is_stable(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return 0;
  if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return 0;
  return (d >> 8) & 1u; /* invariant TSC */
}
static uint64_t counter_rate(void) {
  return 0;
} /* measured */
#elif defined(__aarch64__)
#define ETK_CYCLE_COUNTER 1
static uint64_t read_counter(void) {
  uint64_t v;
  __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
  return v;
}
static int counter_is_stable(void) {
  return 1;
} /* architected timer */
static uint64_t counter_rate(void) {
  uint64_t f;
  __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
  return f;
}
#else
#define ETK_CYCLE_COUNTER 0
#endif

static int monotonic_ns(uint64_t *out) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  *out = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return 1;
}

uint64_t etk_recorder_host_clock(void *ctx) {
  uint64_t ns;
  (void)ctx;
  return monotonic_ns(&ns) ? ns : 0;
}

#if ETK_CYCLE_COUNTER
/* One (counter, CLOCK_MONOTONIC) pair: the clock read between two counter
 * reads, paired with their midpoint; of 32 tries the tightest bracket is
 * kept, so that a try the scheduler interrupted cannot skew it. */
static int sample_pair(uint64_t *ticks, uint64_t *ns) {
  uint64_t best = UINT64_MAX;
  *ticks = 0;
  *ns = 0;
  for (int i = 0; i < 32; i++) {
    uint64_t n, a = read_counter();
    int ok = monotonic_ns(&n);
    uint64_t b = read_counter();
    if (!ok) return 0;
    if (b - a < best) {
      best = b - a;
      *ticks = a + (b - a) / 2;
      *ns = n;
    }
  }
  return 1;
}
#endif

int etk_recorder_cycle_clock_init(etk_recorder_cycle_clock_t *c) {
  if (!c) return ETK_E_INVALID_ARGUMENT;
  memset(c, 0, sizeof *c);
#if ETK_CYCLE_COUNTER
  if (!counter_is_stable()) return ETK_E_UNSUPPORTED;
  /* zero-initialised: the loop below assigns t1/n1 before reading them,
   * but -O3 cannot always see that sample_pair() sets both on success. */
  uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
  if (!sample_pair(&t0, &n0)) return ETK_E_UNSUPPORTED;
  uint64_t rate = counter_rate();
  if (rate == 0) {
    do {
      if (!sample_pair(&t1, &n1)) return ETK_E_UNSUPPORTED;
    } while (n1 - n0 < 10000000u);
    if (t1 <= t0) return ETK_E_UNSUPPORTED;
    /* ticks per second, rounded */
    rate = (uint64_t)((double)(t1 - t0) * 1e9 / (double)(n1 - n0) + 0.5);
  }
  if (rate < 1000000u) return ETK_E_UNSUPPORTED; /* slower than 1 MHz */
  c->ticks_per_second = rate;
  c->mult = (uint64_t)(4294967296.0 * 1e9 / (double)rate + 0.5);
  c->base_ticks = t0;
  c->base_ns = n0;
  return ETK_OK;
#else
  return ETK_E_UNSUPPORTED;
#endif
}

uint64_t etk_recorder_cycle_clock(void *ctx) {
#if ETK_CYCLE_COUNTER
  const etk_recorder_cycle_clock_t *c = (const etk_recorder_cycle_clock_t *)ctx;
  if (c && c->mult) {
    uint64_t d = read_counter() - c->base_ticks;
    return c->base_ns + (d >> 32) * c->mult +
           (((d & 0xFFFFFFFFu) * c->mult) >> 32);
  }
#endif
  return etk_recorder_host_clock(ctx);
}
#else
/* ISO C forbids an empty translation unit. */
typedef int etk_recorder_host_clock_unused_t;
#endif
