/*
 * store_dumps.c - noisy synthetic ETDumps (see store_dumps.h), written with
 * the tests' ETDump writer (tests/etdump/etdump_writer.h).  Operator i has
 * a base time of 10 + 0.5 i microseconds; every sample is base x
 * exp(noise x N(0, 1)) (x slow_factor for the slowed operator), in
 * nanosecond ticks, so the Inspector reads milliseconds.
 */
#include "store_dumps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "etdump_writer.h"

static uint64_t next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

double store_dump_gauss(uint64_t *state) {
  double u1 = ((double)(next(state) >> 11) + 0.5) / 9007199254740992.0;
  double u2 = ((double)(next(state) >> 11) + 0.5) / 9007199254740992.0;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

uint8_t *store_dump_make(const store_dump_spec_t *spec, size_t *len) {
  return store_dump_make_named(spec, NULL, len);
}

uint8_t *store_dump_make_named(const store_dump_spec_t *spec,
                               const char *prefix, size_t *len) {
  size_t cap = (spec->ops + 2) * spec->runs * 96 + 65536;
  etw_t *w = etw_new(cap);
  if (!w) return NULL;
  uint64_t rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)spec->seed * 2654435761u);
  if (!rng) rng = 1;
  uint64_t t = 1000 + spec->seed;
  char name[32];
  for (size_t r = 0; r < spec->runs; r++) {
    etw_run_begin(w, "Execute", -1);
    uint64_t start = t;
    for (size_t i = 0; i < spec->ops; i++) {
      double base = 10000.0 + 500.0 * (double)i;
      if ((int)i == spec->slow_op) base *= spec->slow_factor;
      double d = base * exp(spec->noise * store_dump_gauss(&rng));
      uint64_t dur = (uint64_t)(d < 1.0 ? 1.0 : d);
      snprintf(name, sizeof name, "%s%03zu", prefix ? prefix : "op_", i);
      etw_profile_simple(w, name, 0, (int32_t)i, t, t + dur);
      t += dur + 5;
    }
    etw_profile_simple(w, "Method::execute", -1, 0, start, t);
    t += 100;
    etw_run_end(w);
  }
  return etw_finish_copy(w, len);
}
