/*
 * test_store_latency.c - stats-mode dumps in the store (schema version 4):
 * `etk_store_latency` merges the sketches of the selected runs into
 * exactly the sketch of all their durations, and keeps them apart by
 * operator.
 *
 * Two stats-mode dumps of the same "program" are recorded with a scripted
 * clock (known durations, one of them a thousand times slower on one operator,
 * as a second device would be), stored with different tags, and read back
 * merged; the expected figures come from one sketch fed every duration.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/recorder.h"
#include "etkit/sketch.h"
#include "etkit/store.h"

static uint64_t arena[(1u << 20) / 8];
static uint64_t ts[2 * 4 * 600];

typedef struct clk {
  size_t at;
} clk_t;

static uint64_t read_clock(void *ctx) {
  clk_t *c = ctx;
  return ts[c->at++];
}

/* `runs` runs of 2 operators; durations of op 1 scaled by `slow`; every
 * duration goes to all[*n]. */
static size_t record(uint32_t seed, int runs, uint64_t slow, double *all,
                     size_t *n, uint8_t *out, size_t cap) {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec;
  clk_t c = {0};
  uint64_t t = 1000;
  const uint8_t *data;
  size_t len;
  etk_recorder_config_init(&cfg);
  cfg.clock = read_clock;
  cfg.clock_ctx = &c;
  cfg.profile_mode = ETK_PROFILE_MODE_STATS;
  cfg.stats_keys = 8;
  for (int i = 0; i < runs * 2; i++) {
    uint64_t d;
    seed = seed * 1103515245u + 12345u;
    d = 20000u + (seed >> 16) % 30000u;
    if (i % 2) d *= slow;
    ts[2 * i] = t;
    ts[2 * i + 1] = t + d;
    t += d + 3;
    if (i % 2) all[(*n)++] = (double)d;
  }
  if (etk_recorder_init(&rec, arena, sizeof arena, &cfg) != ETK_OK) return 0;
  etk_recorder_name_t op = etk_recorder_intern(rec, "OPERATOR_CALL");
  (void)etk_recorder_begin_block(rec, "Default");
  for (int r = 0; r < runs; r++) {
    (void)etk_recorder_begin_block(rec, "Execute");
    for (uint32_t i = 0; i < 2; i++) {
      etk_recorder_set_chain_debug_handle(rec, 0, i);
      etk_recorder_scope_t s = etk_recorder_begin(rec, op);
      if (etk_recorder_end(rec, &s) != ETK_OK) return 0;
    }
  }
  if (etk_recorder_finish(rec, &data, &len) != ETK_OK || len > cap) return 0;
  memcpy(out, data, len);
  return len;
}

static uint8_t dump_a[65536], dump_b[65536];
static double all[1200];

ETK_TEST(store_merges_sketches_exactly_across_runs_and_devices) {
  size_t n = 0, la, lb;
  double scratch[1200];
  size_t nb_start;
  etk_store_t *st = NULL;
  etk_error_t err;
  etk_store_table_t t;
  etk_store_tag_t tag_a = {"device", "a"}, tag_b = {"device", "b"};
  etk_store_add_options_t o;
  etk_store_add_result_t res;
  etk_sketch_t expect;
  etk_error_clear(&err);
  la = record(7, 400, 1, all, &n, dump_a, sizeof dump_a);
  nb_start = n;
  lb = record(99, 600, 1000, all, &n, dump_b, sizeof dump_b);
  REQUIRE(la > 0 && lb > 0);
  REQUIRE(etk_store_open(etk_test_temp_path("latency.db"), ETK_STORE_CREATE,
                         &st, &err) == ETK_OK);
  etk_store_add_options_init(&o);
  o.tags = &tag_a;
  o.tag_count = 1;
  REQUIRE(etk_store_add_memory(st, dump_a, la, &o, &res, &err) == ETK_OK);
  o.tags = &tag_b;
  REQUIRE(etk_store_add_memory(st, dump_b, lb, &o, &res, &err) == ETK_OK);

  /* both runs: op 1's sketch is the sketch of its 1000 durations */
  REQUIRE(etk_store_latency(st, NULL, NULL, &t, &err) == ETK_OK);
  REQUIRE(t.rows == 2 && t.cols == 13);
  {
    const etk_cell_t *row = &t.cells[1 * t.cols];
    static const double qs[5] = {0.10, 0.50, 0.90, 0.99, 0.999};
    etk_sketch_init(&expect, 0.0);
    for (size_t i = 0; i < n; i++) etk_sketch_add(&expect, all[i]);
    CHECK(row[1].i == 1);
    CHECK(row[2].i == 2);
    CHECK(row[3].i == (int64_t)n);
    CHECK(row[4].f == etk_sketch_min(&expect) / 1e6);
    CHECK(row[11].f == etk_sketch_max(&expect) / 1e6);
    CHECK(fabs(row[10].f - etk_sketch_sum(&expect) / n / 1e6) <
          1e-12 * row[10].f);
    for (int q = 0; q < 5; q++) {
      double v, truth;
      REQUIRE(etk_sketch_quantile(&expect, qs[q], &v) == ETK_OK);
      CHECK(row[5 + q].f == v / 1e6); /* merged == fed with every value */
      /* and within the bound of the exact quantile */
      memcpy(scratch, all, n * sizeof *all);
      for (size_t i = 1; i < n; i++) /* insertion sort: n is small */
        for (size_t j = i; j > 0 && scratch[j - 1] > scratch[j]; j--) {
          double x = scratch[j];
          scratch[j] = scratch[j - 1];
          scratch[j - 1] = x;
        }
      truth = scratch[(size_t)(qs[q] * (double)(n - 1))];
      CHECK(fabs(v - truth) <= row[12].f * truth + 1e-9);
    }
    /* two devices 1000x apart: wider than two decades, the bound grows */
    CHECK(row[12].f > 0.01);
  }
  etk_store_table_free(&t);

  /* one device only */
  {
    etk_store_where_t w = {&tag_b, 1};
    REQUIRE(etk_store_latency(st, "OPERATOR_CALL", &w, &t, &err) == ETK_OK);
    REQUIRE(t.rows == 2);
    CHECK(t.cells[1 * t.cols + 3].i == (int64_t)(n - nb_start));
    CHECK(t.cells[1 * t.cols + 2].i == 1);
    etk_store_table_free(&t);
  }
  /* a name no run has: no row */
  REQUIRE(etk_store_latency(st, "no_such_op", NULL, &t, &err) == ETK_OK);
  CHECK(t.rows == 0);
  etk_store_table_free(&t);
  etk_store_close(st);
}

ETK_TEST_MAIN()
