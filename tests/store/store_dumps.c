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
#include <string.h>

#include "etdump_writer.h"
#include "etkit/recorder.h"

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

/* The scripted clock: the time the generator sets before each call. */
static uint64_t scripted_now(void *ctx) {
  return *(const uint64_t *)ctx;
}

uint8_t *store_stats_dump_make(const store_dump_spec_t *spec, int op,
                               double *durations, size_t *len) {
  size_t arena_size = (spec->ops + 8) * 4096 + (1u << 20);
  void *arena = malloc(arena_size);
  uint8_t *copy = NULL;
  uint64_t now = 0;
  etk_recorder_config_t cfg;
  etk_recorder_t *rec;
  const uint8_t *data;
  if (!arena) return NULL;
  etk_recorder_config_init(&cfg);
  cfg.clock = scripted_now;
  cfg.clock_ctx = &now;
  cfg.profile_mode = ETK_PROFILE_MODE_STATS;
  cfg.stats_keys = (uint32_t)spec->ops + 8;
  if (etk_recorder_init(&rec, arena, arena_size, &cfg) != ETK_OK) {
    free(arena);
    return NULL;
  }
  /* the durations of store_dump_make_named, drawn in the same order */
  uint64_t rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)spec->seed * 2654435761u);
  if (!rng) rng = 1;
  uint64_t t = 1000 + spec->seed;
  char name[32];
  etk_recorder_name_t method = etk_recorder_intern(rec, "Method::execute");
  int ok = 1;
  for (size_t r = 0; ok && r < spec->runs; r++) {
    ok = etk_recorder_begin_block(rec, "Execute") == ETK_OK;
    etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET,
                                        ETK_DEBUG_HANDLE_UNSET);
    now = t;
    etk_recorder_scope_t whole = etk_recorder_begin(rec, method);
    for (size_t i = 0; ok && i < spec->ops; i++) {
      double base = 10000.0 + 500.0 * (double)i;
      if ((int)i == spec->slow_op) base *= spec->slow_factor;
      double d = base * exp(spec->noise * store_dump_gauss(&rng));
      uint64_t dur = (uint64_t)(d < 1.0 ? 1.0 : d);
      if (durations && (int)i == op) durations[r] = (double)dur;
      snprintf(name, sizeof name, "op_%03zu", i);
      etk_recorder_set_chain_debug_handle(rec, 0, (uint32_t)i);
      now = t;
      etk_recorder_scope_t s =
          etk_recorder_begin(rec, etk_recorder_intern(rec, name));
      now = t + dur;
      ok = etk_recorder_end(rec, &s) == ETK_OK;
      t += dur + 5;
    }
    etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET,
                                        ETK_DEBUG_HANDLE_UNSET);
    now = t;
    ok = ok && etk_recorder_end(rec, &whole) == ETK_OK;
    t += 100;
  }
  if (ok && etk_recorder_finish(rec, &data, len) == ETK_OK &&
      (copy = malloc(*len)) != NULL)
    memcpy(copy, data, *len);
  free(arena);
  return copy;
}
