/*
 * test_recorder_stats_profile.c - the recorder's stats profile mode
 * (etkit/recorder.h "STATS MODE"): a latency sketch per key instead of
 * every profiling event.
 *
 * Each dump is verified with etkit's verifier and decoded with flatc and
 * the ETDump schema (rt_finish_check); the sketches are read back from the
 * decoded allocator names (base64) and compared with the exact durations
 * the scripted clock produced.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/latency_dump.h"
#include "etkit/sketch.h"
#include "recorder_testutil.h"

#define ARENA_BYTES (2u << 20)
static uint64_t arena[ARENA_BYTES / 8];

/* A clock whose k-th read returns the k-th timestamp of `ts`; begins and
 * ends alternate, so event i lasts ts[2i+1] - ts[2i]. */
typedef struct script_clock {
  const uint64_t *ts;
  size_t n, at;
} script_clock_t;

static uint64_t script_read(void *ctx) {
  script_clock_t *c = ctx;
  return c->at < c->n ? c->ts[c->at++] : c->ts[c->n - 1] + c->at++;
}

static uint32_t lcg_state = 12345u;
static uint32_t lcg(void) {
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return lcg_state >> 8;
}

/* A duration between 10 us and ~1 ms, log-spread (ticks = ns). */
static uint64_t draw(void) {
  double u = (double)(lcg() & 0xFFFFu) / 65536.0;
  double v = 10000.0;
  for (int i = 0; i < 20; i++)
    if (u * 20.0 > i) v *= 1.2589; /* 10^(2/20): two decades */
  return (uint64_t)v + (lcg() & 255u);
}

static etk_recorder_t *make_stats(script_clock_t *clk, uint32_t keys,
                                  double error, size_t bytes) {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec = NULL;
  etk_recorder_config_init(&cfg);
  cfg.clock = script_read;
  cfg.clock_ctx = clk;
  cfg.profile_mode = ETK_PROFILE_MODE_STATS;
  cfg.stats_keys = keys;
  cfg.stats_error = error;
  cfg.max_strings = 256;
  if (etk_recorder_init(&rec, arena, bytes, &cfg) != ETK_OK) return NULL;
  return rec;
}

/* `runs` executions of `ops` operators (instruction ids 0..ops-1) in an
 * "Execute" block after one "Default" load block, durations from `dur`
 * (runs x ops, row-major); the timestamps go to ts. */
static int record_runs(etk_recorder_t *rec, script_clock_t *clk, uint64_t *ts,
                       const uint64_t *dur, int runs, int ops) {
  uint64_t t = 1000;
  etk_recorder_name_t op, load;
  etk_recorder_scope_t s;
  int rc = ETK_OK;
  for (int i = 0; i < runs * ops; i++) {
    ts[2 * i] = t;
    ts[2 * i + 1] = t + dur[i];
    t += dur[i] + 7;
  }
  clk->ts = ts;
  clk->n = (size_t)runs * ops * 2;
  clk->at = 0;
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  load = etk_recorder_intern(rec, "Program::load_method");
  if (etk_recorder_begin_block(rec, "Default") != ETK_OK) return -1;
  (void)load;
  for (int r = 0; r < runs; r++) {
    if (etk_recorder_begin_block(rec, "Execute") != ETK_OK) return -1;
    for (int i = 0; i < ops; i++) {
      int status;
      etk_recorder_set_chain_debug_handle(rec, 0, (uint32_t)i);
      s = etk_recorder_begin(rec, op);
      status = etk_recorder_end(rec, &s);
      if (status != ETK_OK && rc == ETK_OK) rc = status;
    }
    etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET,
                                        ETK_DEBUG_HANDLE_UNSET);
  }
  return rc;
}

/* Decodes "r=R,e=E,s=BASE64" into its parts and the sketch. */
static int parse_entry(const char *text, unsigned *run, unsigned *event,
                       etk_sketch_t *s) {
  static uint8_t bytes[ETK_SKETCH_MAX_BYTES];
  size_t n = 0;
  const char *p;
  if (sscanf(text, "r=%u,e=%u,", run, event) != 2) return 0;
  p = strstr(text, ",s=");
  if (p == NULL || etk_base64_decode(p + 3, strlen(p + 3), bytes, sizeof bytes,
                                     &n) != ETK_OK)
    return 0;
  return etk_sketch_deserialize(s, bytes, n, NULL) == ETK_OK;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t dur[10000 * 4];
static uint64_t ts[2 * 10000 * 4];

ETK_TEST(stats_dump_holds_one_event_per_key_and_the_sketches) {
  script_clock_t clk = {0};
  json_t *j = NULL;
  etk_recorder_t *rec;
  int runs = 200, ops = 3;
  for (int i = 0; i < runs * ops; i++) dur[i] = draw();
  rec = make_stats(&clk, 16, 0.0, ARENA_BYTES);
  REQUIRE(rec != NULL);
  CHECK(etk_recorder_profile_mode(rec) == ETK_PROFILE_MODE_STATS);
  CHECK_EQ_INT(record_runs(rec, &clk, ts, dur, runs, ops), ETK_OK);
  CHECK_EQ_INT((int)etk_recorder_block_count(rec), 2);
  CHECK(etk_recorder_latency_table(rec)->entries == 3u);
  REQUIRE(rt_finish_check(rec, &j));
  if (j == NULL) return; /* flatc absent: the verifier passed */
  /* Default, Execute (3 representatives), the sketches RunData */
  CHECK_EQ_INT((int)rt_json_len(j, "run_data"), 3);
  CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"), "Execute");
  CHECK_EQ_INT((int)rt_json_len(j, "run_data/1/events"), 3);
  CHECK(!rt_json_has(j, "run_data/2/events"));
  CHECK(strncmp(rt_json_str(j, "run_data/2/name"),
                "etkit:latency_sketches=version=1,keys=3,refused=0", 60) == 0);
  CHECK_EQ_INT((int)rt_json_len(j, "run_data/2/allocators"), 3);
  for (int k = 0; k < ops; k++) {
    char path[96];
    unsigned run, event;
    etk_sketch_t s;
    uint64_t exact[200];
    double p50;
    snprintf(path, sizeof path, "run_data/2/allocators/%d/name", k);
    REQUIRE(parse_entry(rt_json_str(j, path), &run, &event, &s));
    CHECK_EQ_INT((int)run, 1);
    CHECK_EQ_INT((int)event, k);
    snprintf(path, sizeof path, "run_data/1/events/%d/profile_event", k);
    {
      char p2[128];
      snprintf(p2, sizeof p2, "%s/instruction_id", path);
      CHECK_EQ_INT((int)rt_json_int(j, p2, -9), k);
      snprintf(p2, sizeof p2, "%s/name", path);
      CHECK_EQ_STR(rt_json_str(j, p2), "OPERATOR_CALL");
      snprintf(p2, sizeof p2, "%s/start_time", path);
      CHECK_EQ_INT((int)rt_json_int(j, p2, -9), 0);
      snprintf(p2, sizeof p2, "%s/end_time", path);
      REQUIRE(etk_sketch_quantile(&s, 0.5, &p50) == ETK_OK);
      CHECK(rt_json_int(j, p2, -9) == (long long)(p50 + 0.5));
    }
    CHECK(etk_sketch_count(&s) == (uint64_t)runs);
    for (int r = 0; r < runs; r++) exact[r] = dur[r * ops + k];
    qsort(exact, (size_t)runs, sizeof exact[0], cmp_u64);
    CHECK(etk_sketch_min(&s) == (double)exact[0]);
    CHECK(etk_sketch_max(&s) == (double)exact[runs - 1]);
    {
      static const double qs[] = {0.1, 0.5, 0.9, 0.99, 0.999};
      double bound = etk_sketch_error_bound(&s);
      CHECK(bound <= 0.0201);
      for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
        double est, truth = (double)exact[(size_t)(qs[q] * (runs - 1))];
        REQUIRE(etk_sketch_quantile(&s, qs[q], &est) == ETK_OK);
        CHECK(est >= truth * (1 - bound) - 1e-9 &&
              est <= truth * (1 + bound) + 1e-9);
      }
    }
  }
  json_decref(j);
}

/* The size of a stats dump of `runs` runs of 4 operators, and its output
 * reservation; durations repeat a fixed cycle so that every run count
 * fills the same buckets. */
static size_t stats_size(int runs, size_t *bound) {
  script_clock_t clk = {0};
  const uint8_t *data;
  size_t len = 0;
  etk_recorder_t *rec = make_stats(&clk, 8, 0.0, ARENA_BYTES);
  if (rec == NULL) return 0;
  for (int i = 0; i < runs * 4; i++)
    dur[i] = 20000u + 1000u * (uint64_t)((i / 4) % 10) + 5000u * (i % 4);
  if (record_runs(rec, &clk, ts, dur, runs, 4) != ETK_OK) return 0;
  *bound = etk_recorder_output_bound(rec);
  if (etk_recorder_finish(rec, &data, &len) != ETK_OK) return 0;
  {
    json_t *j = NULL;
    if (!rt_check_dump(data, len, &j)) return 0;
    json_decref(j);
  }
  return len;
}

ETK_TEST(stats_dump_size_does_not_grow_with_runs) {
  size_t b10 = 0, b1000 = 0, b10000 = 0;
  size_t s10 = stats_size(10, &b10);
  size_t s1000 = stats_size(1000, &b1000);
  size_t s10000 = stats_size(10000, &b10000);
  printf("# stats dump: 10 runs %zu B, 1000 runs %zu B, 10000 runs %zu B\n",
         s10, s1000, s10000);
  REQUIRE(s10 > 0 && s1000 > 0 && s10000 > 0);
  /* the same buckets: only the LEB128 counts widen (at most 2 bytes per
   * bucket, 10 buckets, 4 keys, base64: 4/3) */
  CHECK(s1000 >= s10 && s1000 - s10 <= 4u * 10u * 2u * 4u / 3u + 16u);
  CHECK(s10000 >= s1000 && s10000 - s1000 <= 4u * 10u * 2u * 4u / 3u + 16u);
  /* and the memory it needs is the same */
  CHECK(b10 == b1000 && b1000 == b10000);
}

ETK_TEST(full_table_drops_new_keys_and_says_so) {
  script_clock_t clk = {0};
  json_t *j = NULL;
  etk_recorder_t *rec;
  int runs = 5, ops = 3;
  for (int i = 0; i < runs * ops; i++) dur[i] = 1000 + (uint64_t)i;
  rec = make_stats(&clk, 2, 0.0, ARENA_BYTES);
  REQUIRE(rec != NULL);
  /* instruction 2 finds no slot in any run */
  CHECK_EQ_INT(record_runs(rec, &clk, ts, dur, runs, ops), ETK_E_FULL);
  CHECK(etk_recorder_dropped(rec) == (uint32_t)runs);
  CHECK(etk_recorder_latency_table(rec)->refused == (uint64_t)runs);
  REQUIRE(rt_finish_check(rec, &j));
  if (j == NULL) return;
  CHECK_EQ_INT((int)rt_json_len(j, "run_data"), 4);
  CHECK_EQ_INT((int)rt_json_len(j, "run_data/1/events"), 2);
  CHECK_EQ_STR(rt_json_str(j, "run_data/2/name"),
               "etkit:latency_sketches=version=1,keys=2,refused=5");
  CHECK_EQ_STR(rt_json_str(j, "run_data/3/name"), "etkit:dropped_events=5");
  json_decref(j);
}

ETK_TEST(arena_too_small_for_a_key_drops_it_without_latching) {
  script_clock_t clk = {0};
  etk_recorder_t *rec;
  etk_recorder_config_t cfg;
  size_t need;
  int runs = 4, ops = 3;
  for (int i = 0; i < runs * ops; i++) dur[i] = 500 + (uint64_t)i;
  etk_recorder_config_init(&cfg);
  cfg.profile_mode = ETK_PROFILE_MODE_STATS;
  cfg.stats_keys = 3;
  cfg.max_strings = 256;
  {
    etk_recorder_workload_t w;
    memset(&w, 0, sizeof w);
    w.blocks = 2;
    w.strings = 4;
    w.string_bytes = 64;
    need = etk_recorder_estimate_size(&cfg, &w);
  }
  REQUIRE(need > 0);
  /* the estimate holds all three keys */
  rec = make_stats(&clk, 3, 0.0, need);
  REQUIRE(rec != NULL);
  CHECK_EQ_INT(record_runs(rec, &clk, ts, dur, runs, ops), ETK_OK);
  CHECK(etk_recorder_dropped(rec) == 0);
  {
    json_t *j = NULL;
    REQUIRE(rt_finish_check(rec, &j));
    json_decref(j);
  }
  /* smaller arenas: the first one whose last key does not fit drops that
   * key's durations only; the others go on being measured */
  for (size_t size = need; size > need / 2; size -= 64) {
    const etk_latency_table_t *t;
    rec = make_stats(&clk, 3, 0.0, size);
    REQUIRE(rec != NULL);
    (void)record_runs(rec, &clk, ts, dur, runs, ops);
    t = etk_recorder_latency_table(rec);
    if (t->entries == 3u) {
      CHECK(etk_recorder_dropped(rec) == 0);
      continue;
    }
    CHECK(t->entries == 2u);
    CHECK(etk_recorder_dropped(rec) == (uint32_t)runs);
    CHECK(etk_sketch_count(&t->slots[1].sketch) == (uint64_t)runs);
    {
      json_t *j = NULL;
      REQUIRE(rt_finish_check(rec, &j));
      json_decref(j);
    }
    printf("# the third key needs the arena's last %zu bytes\n", need - size);
    return;
  }
  CHECK(!"no arena size refused the third key");
}

ETK_TEST(delegate_events_and_debug_values_in_stats_mode) {
  script_clock_t clk = {0};
  json_t *j = NULL;
  etk_recorder_t *rec;
  static uint64_t t[64];
  for (size_t i = 0; i < 64; i++) t[i] = 100 + 10 * i + (i % 2 ? i : 0);
  rec = make_stats(&clk, 8, 0.02, ARENA_BYTES);
  REQUIRE(rec != NULL);
  clk.ts = t;
  clk.n = 64;
  for (int r = 0; r < 3; r++) {
    etk_recorder_scope_t s;
    etk_recorder_value_t v = etk_value_int(r);
    CHECK_EQ_INT(etk_recorder_begin_block(rec, "Execute"), ETK_OK);
    s = etk_recorder_begin_delegate(rec, NULL, 7);
    CHECK_EQ_INT(etk_recorder_end_delegate(rec, &s, "md", 2), ETK_OK);
    s = etk_recorder_begin_delegate(rec, "xnn_conv", ETK_DELEGATE_ID_UNSET);
    CHECK_EQ_INT(etk_recorder_end_delegate(rec, &s, NULL, 0), ETK_OK);
    CHECK_EQ_INT(etk_recorder_log_delegate(rec, NULL, 7, 10, 30, NULL, 0),
                 ETK_OK);
    /* a debug value is recorded as in full mode */
    CHECK_EQ_INT(
        etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT),
        ETK_OK);
    /* allocators in a continued block are refused */
    if (r > 0)
      CHECK_EQ_INT(etk_recorder_track_allocator(rec, "a", NULL),
                   ETK_E_INVALID_STATE);
  }
  CHECK(etk_recorder_latency_table(rec)->entries == 2u);
  CHECK(etk_sketch_count(&etk_recorder_latency_table(rec)->slots[0].sketch) ==
        6u);
  REQUIRE(rt_finish_check(rec, &j));
  if (j == NULL) return;
  /* 3 debug events, then 2 representatives */
  CHECK_EQ_INT((int)rt_json_len(j, "run_data/0/events"), 5);
  CHECK(rt_json_has(j, "run_data/0/events/2/debug_event"));
  CHECK_EQ_INT(
      (int)rt_json_int(
          j, "run_data/0/events/3/profile_event/delegate_debug_id_int", -9),
      7);
  CHECK_EQ_STR(
      rt_json_str(j, "run_data/0/events/4/profile_event/delegate_debug_id_str"),
      "xnn_conv");
  CHECK(rt_json_has(
      j, "run_data/0/events/4/profile_event/delegate_debug_metadata"));
  json_decref(j);
}

ETK_TEST(fresh_dump_forgets_the_sketches_and_full_mode_is_unchanged) {
  script_clock_t clk = {0};
  etk_recorder_t *rec;
  const uint8_t *data;
  size_t len;
  for (int i = 0; i < 40; i++) dur[i] = 100 + (uint64_t)i;
  rec = make_stats(&clk, 8, 0.0, ARENA_BYTES);
  REQUIRE(rec != NULL);
  CHECK_EQ_INT(record_runs(rec, &clk, ts, dur, 10, 4), ETK_OK);
  CHECK_EQ_INT(etk_recorder_finish(rec, &data, &len), ETK_OK);
  CHECK_EQ_INT(record_runs(rec, &clk, ts, dur, 1, 2), ETK_OK);
  CHECK(etk_recorder_latency_table(rec)->entries == 2u);
  CHECK(etk_sketch_count(&etk_recorder_latency_table(rec)->slots[0].sketch) ==
        1u);
  {
    json_t *j = NULL;
    REQUIRE(rt_finish_check(rec, &j));
    json_decref(j);
  }
  /* a ring cannot discard from a stats recorder */
  CHECK_EQ_INT(etk_recorder_discard_oldest(rec, 1, 0), ETK_E_INVALID_STATE);
  {
    etk_recorder_config_t cfg;
    etk_recorder_t *bad = NULL;
    etk_recorder_config_init(&cfg);
    cfg.profile_mode = 7;
    CHECK_EQ_INT(etk_recorder_init(&bad, arena, sizeof arena, &cfg),
                 ETK_E_INVALID_ARGUMENT);
    cfg.profile_mode = ETK_PROFILE_MODE_STATS;
    cfg.stats_error = 0.5;
    CHECK_EQ_INT(etk_recorder_init(&bad, arena, sizeof arena, &cfg),
                 ETK_E_INVALID_ARGUMENT);
    cfg.profile_mode = ETK_PROFILE_MODE_FULL;
    CHECK_EQ_INT(etk_recorder_init(&bad, arena, sizeof arena, &cfg), ETK_OK);
    CHECK(etk_recorder_latency_table(bad) == NULL);
    CHECK(etk_recorder_profile_mode(bad) == ETK_PROFILE_MODE_FULL);
  }
}

ETK_TEST_MAIN()
