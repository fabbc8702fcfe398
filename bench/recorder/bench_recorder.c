/*
 * bench_recorder.c - what the recorder costs: time per begin+end pair (with
 * a trivial counter clock, with the default host clock and with the
 * calibrated cycle-counter clock where the CPU has one), the by-name
 * compatibility path, a small tensor log, finish per event, RAM and output
 * bytes per operator event.  One line per figure: "<name> <value> <unit>".
 * "excl_clock" subtracts the cost of the counter clock's two calls, timed
 * separately, from the pair measured with that clock.
 *
 * Each timing is the best of several rounds (the least disturbed by other
 * work on the machine); rounds record 20,000 OPERATOR_CALL events into one
 * block, finish (not timed), and start a fresh dump.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etkit/recorder.h"

#define EVENTS 20000u
#define ROUNDS 60

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t counter_clock(void *ctx) {
  return ++*(uint64_t *)ctx;
}

static uint64_t arena[8u * 1024u * 1024u / 8u];
static uint64_t ticks;

static etk_recorder_cycle_clock_t cycle_clock;

/* host_clock: 0 the counter clock, 1 the default (clock_gettime), 2 the
 * calibrated cycle-counter clock */
static etk_recorder_t *make(int host_clock) {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec = NULL;
  etk_recorder_config_init(&cfg);
  if (!host_clock) {
    cfg.clock = counter_clock;
    cfg.clock_ctx = &ticks;
  } else if (host_clock == 2) {
    cfg.clock = etk_recorder_cycle_clock;
    cfg.clock_ctx = &cycle_clock;
  }
  if (etk_recorder_init(&rec, arena, sizeof arena, &cfg) != ETK_OK) {
    fprintf(stderr, "bench_recorder: init failed\n");
    exit(1);
  }
  return rec;
}

/* Best per-pair time over ROUNDS rounds of EVENTS pairs. */
static double time_pairs(etk_recorder_t *rec, int by_name) {
  etk_recorder_name_t op = etk_recorder_intern(rec, "OPERATOR_CALL");
  double best = 1e30;
  for (int r = 0; r < ROUNDS; r++) {
    uint64_t t0, t1;
    const uint8_t *out;
    size_t len;
    if (etk_recorder_begin_block(rec, "Execute") != ETK_OK) {
      fprintf(stderr, "bench_recorder: begin_block failed\n");
      exit(1);
    }
    etk_recorder_set_chain_debug_handle(rec, 0, 3);
    t0 = now_ns();
    if (by_name) {
      for (uint32_t i = 0; i < EVENTS; i++) {
        etk_recorder_scope_t s =
            etk_recorder_begin_named(rec, "OPERATOR_CALL", -1, 0);
        etk_recorder_end(rec, &s);
      }
    } else {
      for (uint32_t i = 0; i < EVENTS; i++) {
        etk_recorder_scope_t s = etk_recorder_begin(rec, op);
        etk_recorder_end(rec, &s);
      }
    }
    t1 = now_ns();
    if (etk_recorder_dropped(rec) != 0) {
      fprintf(stderr, "bench_recorder: events dropped\n");
      exit(1);
    }
    etk_recorder_finish(rec, &out, &len);
    if ((double)(t1 - t0) / EVENTS < best) best = (double)(t1 - t0) / EVENTS;
  }
  return best;
}

static double time_clock_calls(void) {
  /* two indirect calls of the counter clock, as a pair makes */
  volatile uint64_t sink = 0;
  uint64_t (*volatile fn)(void *) = counter_clock;
  double best = 1e30;
  for (int r = 0; r < ROUNDS; r++) {
    uint64_t t0 = now_ns();
    for (uint32_t i = 0; i < EVENTS; i++) {
      sink += fn(&ticks);
      sink += fn(&ticks);
    }
    {
      double per = (double)(now_ns() - t0) / EVENTS;
      if (per < best) best = per;
    }
  }
  (void)sink;
  return best;
}

int main(void) {
  etk_recorder_t *rec;
  etk_recorder_stats_t st0, st1;
  etk_recorder_name_t op;
  const uint8_t *out;
  size_t len_empty, len_full;
  double pair, pair_host, pair_name, clock_calls, finish_ns, tensor_ns;

  rec = make(0);
  pair = time_pairs(rec, 0);
  pair_name = time_pairs(rec, 1);
  clock_calls = time_clock_calls();
  rec = make(1);
  pair_host = time_pairs(rec, 0);
  int have_cycles = etk_recorder_cycle_clock_init(&cycle_clock) == ETK_OK;
  double pair_cycles = 0;
  if (have_cycles) {
    rec = make(2);
    pair_cycles = time_pairs(rec, 0);
  }

  /* memory and output per operator event, and finish cost */
  rec = make(0);
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  etk_recorder_begin_block(rec, "Execute");
  etk_recorder_finish(rec, &out, &len_empty);
  etk_recorder_begin_block(rec, "Execute");
  etk_recorder_stats(rec, &st0);
  for (uint32_t i = 0; i < EVENTS; i++) {
    etk_recorder_scope_t s;
    etk_recorder_set_chain_debug_handle(rec, 0, i % 14u);
    s = etk_recorder_begin(rec, op);
    etk_recorder_end(rec, &s);
  }
  etk_recorder_stats(rec, &st1);
  {
    double best = 1e30;
    for (int r = 0; r < 20; r++) {
      uint64_t t0 = now_ns();
      etk_recorder_finish(rec, &out, &len_full);
      {
        double per = (double)(now_ns() - t0) / EVENTS;
        if (per < best) best = per;
      }
    }
    finish_ns = best;
  }

  /* a 16-float tensor into a debug buffer */
  {
    static uint8_t debug[EVENTS * 128u];
    static const float data[16] = {0};
    static const int64_t sizes[2] = {4, 4};
    etk_recorder_tensor_t t;
    etk_recorder_value_t v;
    double best = 1e30;
    memset(&t, 0, sizeof t);
    t.scalar_type = 6;
    t.dim = 2;
    t.sizes = sizes;
    t.data = data;
    t.nbytes = sizeof data;
    v = etk_value_tensor(&t);
    for (int r = 0; r < 10; r++) {
      uint64_t t0;
      etk_recorder_begin_block(rec, "Execute");
      etk_recorder_set_debug_buffer(rec, debug, sizeof debug);
      t0 = now_ns();
      for (uint32_t i = 0; i < EVENTS; i++) etk_recorder_log_value(rec, &v, 0);
      {
        double per = (double)(now_ns() - t0) / EVENTS;
        if (per < best) best = per;
      }
      if (etk_recorder_dropped(rec) != 0) {
        fprintf(stderr, "bench_recorder: tensor events dropped\n");
        exit(1);
      }
      etk_recorder_finish(rec, &out, &len_full);
    }
    tensor_ns = best;
  }

  /* The pair with a trivial counter clock, then the same minus what the
   * two calls of that clock cost on their own (an estimate: the calls can
   * overlap other work inside the pair). */
  printf("recorder_pair_counter_clock %.2f ns\n", pair);
  printf("recorder_counter_clock_two_calls %.2f ns\n", clock_calls);
  printf("recorder_pair_excl_clock %.2f ns\n", pair - clock_calls);
  printf("recorder_pair_default_clock %.2f ns\n", pair_host);
  if (have_cycles) {
    printf("recorder_pair_cycle_clock %.2f ns\n", pair_cycles);
    printf("recorder_cycle_clock_rate %.0f Hz\n",
           (double)cycle_clock.ticks_per_second);
  } else {
    printf("recorder_pair_cycle_clock unsupported (no invariant counter)\n");
  }
  printf("recorder_pair_by_name %.2f ns\n", pair_name);
  printf("recorder_log_tensor_64B %.2f ns\n", tensor_ns);
  printf("recorder_ram_per_event %.2f B\n",
         (double)(st1.record_bytes - st0.record_bytes) / EVENTS);
  printf("recorder_arena_per_event %.2f B\n",
         (double)((st1.record_bytes - st0.record_bytes) +
                  (st1.output_reserved - st0.output_reserved) +
                  (st1.scratch_bytes - st0.scratch_bytes)) /
             EVENTS);
  {
    /* the last finish above was of the tensor dump; redo the op dump */
    rec = make(0);
    op = etk_recorder_intern(rec, "OPERATOR_CALL");
    etk_recorder_begin_block(rec, "Execute");
    for (uint32_t i = 0; i < EVENTS; i++) {
      etk_recorder_scope_t s;
      etk_recorder_set_chain_debug_handle(rec, 0, i % 14u);
      s = etk_recorder_begin(rec, op);
      etk_recorder_end(rec, &s);
    }
    etk_recorder_finish(rec, &out, &len_full);
  }
  printf("recorder_file_bytes_per_op_event %.2f B\n",
         (double)(len_full - len_empty) / EVENTS);
  printf("upstream_file_bytes_per_op_event 60 B\n");
  printf("recorder_finish_per_event %.2f ns\n", finish_ns);
  return 0;
}
