/*
 * bench_trigger.c - the flight recorder's figures (docs/triggers.md):
 *   ring_trigger_ns_per_run   etk_flight_run_end per run: 2 duration
 *                             triggers (an exact name and a glob) over a run
 *                             of Method::execute + 40 operator events, ring
 *                             of 8 runs (evaluation and the ring's trim)
 *   ring_trigger_ns_per_event the same divided by the run's 41 events
 *   trigger_eval_ns_per_run   evaluation alone (no ring), and per event
 *   ring_dump_bytes_runs_N    the ETDump of a ring --keep-runs 8 after N runs
 *   full_dump_bytes_runs_N    the same runs kept in full (no ring)
 * Prints "<name> <value> <unit>" lines.  Deterministic clock (+1 per read)
 * for the sizes; the host clock for the times.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etkit/trigger.h"

#define OPS 40
static uint64_t ticks;
static uint64_t step_clock(void *ctx) {
  (void)ctx;
  return ticks += 1000;
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct bench {
  etk_recorder_t *rec;
  etk_flight_t flight;
  etk_recorder_name_t exec, ops[OPS];
} bench_t;

static void one_run(bench_t *b) {
  etk_recorder_begin_block(b->rec, "Execute");
  etk_recorder_scope_t e = etk_recorder_begin(b->rec, b->exec);
  for (int i = 0; i < OPS; i++) {
    etk_recorder_set_chain_debug_handle(b->rec, 0, (uint32_t)i);
    etk_recorder_scope_t s = etk_recorder_begin(b->rec, b->ops[i]);
    etk_recorder_end(b->rec, &s);
  }
  etk_recorder_set_chain_debug_handle(b->rec, ETK_CHAIN_UNSET,
                                      ETK_DEBUG_HANDLE_UNSET);
  etk_recorder_end(b->rec, &e);
}

static int setup(bench_t *b, void *arena, size_t size, uint32_t keep,
                 int triggers) {
  etk_recorder_config_t cfg;
  etk_flight_config_t fc;
  etk_recorder_config_init(&cfg);
  cfg.clock = step_clock;
  cfg.max_strings = 128;
  if (etk_recorder_init(&b->rec, arena, size, &cfg) != ETK_OK) return 0;
  b->exec = etk_recorder_intern(b->rec, "Method::execute");
  for (int i = 0; i < OPS; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s_%d.out",
             i % 2 ? "native_call_relu" : "aten.convolution", i);
    b->ops[i] = etk_recorder_intern(b->rec, name);
  }
  etk_flight_config_init(&fc);
  fc.keep_runs = keep;
  if (etk_flight_init(&b->flight, b->rec, &fc) != ETK_OK) return 0;
  if (triggers) {
    static const char *const exprs[] = {"Method::execute>1s",
                                        "aten.convolution*>1s"};
    for (int i = 0; i < 2; i++) {
      etk_trigger_t t;
      if (etk_trigger_parse(exprs[i], &t, NULL) != ETK_OK ||
          etk_flight_add_trigger(&b->flight, &t) != ETK_OK)
        return 0;
    }
  }
  return 1;
}

int main(void) {
  size_t size = 64u << 20;
  void *arena = malloc(size);
  bench_t b;
  if (!arena) return 1;
  /* cost per run: ring of 8, 2 triggers */
  if (!setup(&b, arena, size, 8, 1)) return 1;
  for (int i = 0; i < 1000; i++) {
    one_run(&b);
    etk_flight_run_end(&b.flight);
  }
  double best = 1e30;
  for (int rep = 0; rep < 5; rep++) {
    double spent = 0;
    for (int i = 0; i < 20000; i++) {
      one_run(&b);
      double t0 = now_ns();
      etk_flight_run_end(&b.flight);
      spent += now_ns() - t0;
    }
    if (spent / 20000 < best) best = spent / 20000;
  }
  printf("ring_trigger_ns_per_run %.0f ns\n", best);
  printf("ring_trigger_ns_per_event %.1f ns\n", best / (OPS + 1));
  /* evaluation alone: no ring (nothing discarded), 2000 runs */
  best = 1e30;
  for (int rep = 0; rep < 5; rep++) {
    double spent = 0;
    if (!setup(&b, arena, size, 0, 1)) return 1;
    for (int i = 0; i < 2000; i++) {
      one_run(&b);
      double t0 = now_ns();
      etk_flight_run_end(&b.flight);
      spent += now_ns() - t0;
    }
    if (spent / 2000 < best) best = spent / 2000;
  }
  printf("trigger_eval_ns_per_run %.0f ns\n", best);
  printf("trigger_eval_ns_per_event %.1f ns\n", best / (OPS + 1));
  /* dump size against runs */
  static const unsigned counts[] = {10, 100, 1000, 10000};
  for (int ring = 1; ring >= 0; ring--)
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
      const uint8_t *data;
      size_t len;
      if (!setup(&b, arena, size, ring ? 8 : 0, 1)) return 1;
      for (unsigned r = 0; r < counts[k]; r++) {
        one_run(&b);
        etk_flight_run_end(&b.flight);
      }
      etk_flight_finish(&b.flight);
      if (etk_recorder_finish(b.rec, &data, &len) != ETK_OK) return 1;
      printf("%s_dump_bytes_runs_%u %zu bytes%s\n", ring ? "ring" : "full",
             counts[k], len,
             etk_recorder_dropped(b.rec) ? " (dropped events)" : "");
    }
  free(arena);
  return 0;
}
