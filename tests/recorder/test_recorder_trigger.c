/*
 * test_recorder_trigger.c - the flight recorder (etkit/trigger.h): runs with
 * known durations through a fake clock, so that every firing is decided
 * in advance: the ring keeps exactly the newest K runs, a trigger fires at
 * the run whose condition holds and at no other, limit, spacing and
 * keep-after are respected to the run, NaN and manual triggers fire, and
 * each snapshot verifies, decodes with flatc and says what fired where.
 */
#include <stdio.h>
#include <string.h>

#include "etkit/sketch.h"
#include "etkit/trigger.h"
#include "recorder_testutil.h"

static uint64_t arena[256 * 1024 / 8];
static uint8_t debug_buf[64 * 1024];
static uint64_t now; /* the fake clock */
static etk_sketch_t sketches[2];

static uint64_t fake_clock(void *ctx) {
  (void)ctx;
  return now;
}

#define MAX_SNAPS 8
typedef struct snaps {
  uint8_t data[MAX_SNAPS][32768];
  size_t len[MAX_SNAPS];
  int count;
} snaps_t;
static snaps_t snaps;

static int keep_snapshot(void *ctx, const void *data, size_t len) {
  snaps_t *s = ctx;
  if (s->count == MAX_SNAPS || len > sizeof s->data[0]) return -1;
  memcpy(s->data[s->count], data, len);
  s->len[s->count++] = len;
  return 0;
}

typedef struct fixture {
  etk_recorder_t *rec;
  etk_flight_t flight;
  etk_recorder_name_t exec, conv, relu;
} fixture_t;

static int setup(fixture_t *fx, uint32_t keep_runs, uint32_t keep_after,
                 uint32_t limit, uint32_t spacing, const char *const *exprs) {
  etk_recorder_config_t cfg;
  etk_flight_config_t fc;
  memset(fx, 0, sizeof *fx);
  memset(&snaps, 0, sizeof snaps);
  now = 1000;
  etk_recorder_config_init(&cfg);
  cfg.clock = fake_clock;
  if (etk_recorder_init(&fx->rec, arena, sizeof arena, &cfg) != ETK_OK)
    return 0;
  if (etk_recorder_set_debug_buffer(fx->rec, debug_buf, sizeof debug_buf))
    return 0;
  fx->exec = etk_recorder_intern(fx->rec, "Method::execute");
  fx->conv = etk_recorder_intern(fx->rec, "aten.convolution.default");
  fx->relu = etk_recorder_intern(fx->rec, "aten.relu.default");
  etk_flight_config_init(&fc);
  fc.keep_runs = keep_runs;
  fc.keep_after = keep_after;
  fc.trigger_limit = limit;
  fc.trigger_spacing = spacing;
  fc.write = keep_snapshot;
  fc.write_ctx = &snaps;
  fc.sketches = sketches;
  fc.sketch_count = 2;
  if (etk_flight_init(&fx->flight, fx->rec, &fc) != ETK_OK) return 0;
  for (size_t i = 0; exprs && exprs[i]; i++) {
    etk_trigger_t t;
    const char *why;
    if (etk_trigger_parse(exprs[i], &t, &why) != ETK_OK) return 0;
    if (etk_flight_add_trigger(&fx->flight, &t) != ETK_OK) return 0;
  }
  return 1;
}

/* One run: Method::execute around a convolution and a relu.  The relu
 * lasts 100 + run ns, so a dump's relu durations name the runs it holds. */
static void one_run(fixture_t *fx, unsigned run, uint64_t conv_ns,
                    uint64_t exec_extra_ns) {
  etk_recorder_begin_block(fx->rec, "Execute");
  etk_recorder_scope_t e = etk_recorder_begin(fx->rec, fx->exec);
  now += 10;
  etk_recorder_scope_t c = etk_recorder_begin(fx->rec, fx->conv);
  now += conv_ns;
  etk_recorder_end(fx->rec, &c);
  etk_recorder_scope_t r = etk_recorder_begin(fx->rec, fx->relu);
  now += 100 + run;
  etk_recorder_end(fx->rec, &r);
  now += 10 + exec_extra_ns;
  etk_recorder_end(fx->rec, &e);
  now += 1000;
}

/* The runs a dump holds (from the relu durations), in order; returns how
 * many Execute blocks it has; *marker the trigger marker's name or NULL. */
static size_t runs_of(json_t *dump, long long *runs, size_t cap,
                      const char **marker) {
  size_t n = 0, blocks = rt_json_len(dump, "run_data");
  *marker = NULL;
  for (size_t b = 0; b < blocks; b++) {
    char path[96];
    snprintf(path, sizeof path, "run_data/%zu/name", b);
    const char *name = rt_json_str(dump, path);
    if (name && strncmp(name, "etkit:trigger=", 14) == 0) *marker = name;
    snprintf(path, sizeof path, "run_data/%zu/events", b);
    size_t events = rt_json_len(dump, path);
    for (size_t e = 0; e < events; e++) {
      char p2[128];
      snprintf(p2, sizeof p2, "run_data/%zu/events/%zu/profile_event/name", b,
               e);
      const char *ev = rt_json_str(dump, p2);
      if (!ev || strcmp(ev, "aten.relu.default") != 0) continue;
      snprintf(p2, sizeof p2,
               "run_data/%zu/events/%zu/profile_event/start_time", b, e);
      long long s = rt_json_int(dump, p2, -1);
      snprintf(p2, sizeof p2, "run_data/%zu/events/%zu/profile_event/end_time",
               b, e);
      long long t = rt_json_int(dump, p2, -1);
      if (n < cap) runs[n] = t - s - 100;
      n++;
    }
  }
  return n;
}

/* Verifies snapshot i, decodes it and checks its runs and marker. */
static void check_snapshot(int i, const long long *want, size_t want_n,
                           const char *marker_prefix) {
  json_t *dump = NULL;
  long long got[32];
  const char *marker;
  CHECK(rt_check_dump(snaps.data[i], snaps.len[i], &dump));
  if (!dump) return; /* flatc absent: verified only */
  size_t n = runs_of(dump, got, 32, &marker);
  CHECK_EQ_INT(n, want_n);
  for (size_t k = 0; k < n && k < want_n; k++) CHECK_EQ_INT(got[k], want[k]);
  CHECK(marker != NULL);
  if (marker) {
    CHECK(strncmp(marker, marker_prefix, strlen(marker_prefix)) == 0);
    if (strncmp(marker, marker_prefix, strlen(marker_prefix)) != 0)
      printf("# marker: %s\n", marker);
  }
  json_decref(dump);
}

ETK_TEST(ring_keeps_exactly_the_newest_runs) {
  fixture_t fx;
  REQUIRE(setup(&fx, 3, 0, 0, 0, NULL));
  for (unsigned run = 0; run < 10; run++) {
    one_run(&fx, run, 50, 0);
    CHECK_EQ_INT(etk_flight_run_end(&fx.flight), ETK_OK);
    CHECK_EQ_INT(etk_recorder_block_count(fx.rec), run < 3 ? run + 1 : 3);
  }
  CHECK_EQ_INT(etk_flight_finish(&fx.flight), ETK_OK);
  CHECK_EQ_INT(snaps.count, 0);
  json_t *dump = NULL;
  REQUIRE(rt_finish_check(fx.rec, &dump));
  CHECK_EQ_INT(etk_recorder_dropped(fx.rec), 0);
  if (dump) {
    long long got[16];
    const char *marker;
    CHECK_EQ_INT(runs_of(dump, got, 16, &marker), 3);
    CHECK_EQ_INT(got[0], 7);
    CHECK_EQ_INT(got[1], 8);
    CHECK_EQ_INT(got[2], 9);
    CHECK(marker == NULL);
    json_decref(dump);
  }
}

ETK_TEST(slow_run_fires_once_with_runs_before_and_after) {
  static const char *const exprs[] = {"Method::execute>2ms", NULL};
  fixture_t fx;
  REQUIRE(setup(&fx, 3, 1, 0, 0, exprs));
  for (unsigned run = 0; run < 10; run++) {
    /* Method::execute lasts about 1.9 ms except in run 4 (2.1 ms) */
    one_run(&fx, run, 50, run == 4 ? 2100000 : 1900000);
    CHECK_EQ_INT(etk_flight_run_end(&fx.flight), ETK_OK);
    CHECK_EQ_INT(snaps.count, run < 5 ? 0 : 1);
  }
  CHECK_EQ_INT(etk_flight_finish(&fx.flight), ETK_OK);
  REQUIRE(snaps.count == 1);
  static const long long want[] = {2, 3, 4, 5};
  check_snapshot(0, want, 4,
                 "etkit:trigger=run=4,snapshot=0,after=1,value_ns=2100");
  /* recording went on: the final dump is the newest 3 runs */
  json_t *dump = NULL;
  REQUIRE(rt_finish_check(fx.rec, &dump));
  if (dump) {
    long long got[16];
    const char *marker;
    CHECK_EQ_INT(runs_of(dump, got, 16, &marker), 3);
    CHECK_EQ_INT(got[0], 7);
    CHECK(marker == NULL);
    json_decref(dump);
  }
}

ETK_TEST(operator_glob_and_exact_keep_after) {
  static const char *const exprs[] = {"aten.convolution*>0.5ms", NULL};
  fixture_t fx;
  REQUIRE(setup(&fx, 2, 3, 0, 0, exprs));
  for (unsigned run = 0; run < 12; run++) {
    /* the convolution: 0.5 ms exactly (not above) except run 6 */
    one_run(&fx, run, run == 6 ? 500001 : 500000, 0);
    CHECK_EQ_INT(etk_flight_run_end(&fx.flight), ETK_OK);
    /* taken after exactly 3 more runs (run 9) */
    CHECK_EQ_INT(snaps.count, run < 9 ? 0 : 1);
  }
  CHECK_EQ_INT(etk_flight_finish(&fx.flight), ETK_OK);
  REQUIRE(snaps.count == 1);
  static const long long want[] = {5, 6, 7, 8, 9};
  check_snapshot(0, want, 5, "etkit:trigger=run=6,snapshot=0,after=3");
  json_t *dump = NULL;
  REQUIRE(rt_check_dump(snaps.data[0], snaps.len[0], &dump));
  if (dump) {
    const char *m = NULL;
    long long got[16];
    runs_of(dump, got, 16, &m);
    CHECK(m && strstr(m,
                      ",event=aten.convolution.default,"
                      "expr=aten.convolution*>0.5ms") != NULL);
    json_decref(dump);
  }
}

ETK_TEST(limit_and_spacing) {
  static const char *const exprs[] = {"Method::execute>0.1us", NULL};
  fixture_t fx;
  REQUIRE(setup(&fx, 2, 0, 3, 4, exprs));
  for (unsigned run = 0; run < 20; run++) {
    one_run(&fx, run, 50, 0); /* every run is above 100 ns */
    CHECK_EQ_INT(etk_flight_run_end(&fx.flight), ETK_OK);
  }
  /* fired at 0, 4, 8; then the limit: 20 - 3 firings suppressed */
  REQUIRE(snaps.count == 3);
  CHECK_EQ_INT(fx.flight.snapshots, 3);
  CHECK_EQ_INT(fx.flight.suppressed, 17);
  static const long long w0[] = {0}, w1[] = {3, 4}, w2[] = {7, 8};
  check_snapshot(0, w0, 1, "etkit:trigger=run=0,snapshot=0,after=0");
  check_snapshot(1, w1, 2, "etkit:trigger=run=4,snapshot=1,after=0");
  check_snapshot(2, w2, 2, "etkit:trigger=run=8,snapshot=2,after=0");
  CHECK_EQ_INT(etk_flight_finish(&fx.flight), ETK_OK);
}

ETK_TEST(firing_while_waiting_is_suppressed_and_finish_writes_pending) {
  static const char *const exprs[] = {"Method::execute>1us", NULL};
  fixture_t fx;
  REQUIRE(setup(&fx, 1, 5, 0, 0, exprs));
  for (unsigned run = 0; run < 3; run++) {
    one_run(&fx, run, 50, 2000);
    CHECK_EQ_INT(etk_flight_run_end(&fx.flight), ETK_OK);
  }
  CHECK_EQ_INT(snaps.count, 0);
  CHECK_EQ_INT(fx.flight.suppressed, 2);
  CHECK_EQ_INT(etk_flight_finish(&fx.flight), ETK_OK);
  REQUIRE(snaps.count == 1);
  static const long long want[] = {0, 1, 2};
  check_snapshot(0, want, 3, "etkit:trigger=run=0,snapshot=0,after=2");
}

/* Whether snapshot i holds the bytes of `text` (a marker found without
 * flatc, which prints a logged infinity as "inf", not JSON). */
static int snapshot_has(int i, const char *text) {
  size_t n = strlen(text);
  for (size_t k = 0; k + n <= snaps.len[i]; k++)
    if (memcmp(snaps.data[i] + k, text, n) == 0) return 1;
  return 0;
}

ETK_TEST(nan_in_a_logged_tensor_or_double) {
  static const char *const exprs[] = {"nan", NULL};
  fixture_t fx;
  REQUIRE(setup(&fx, 2, 0, 0, 0, exprs));
  static const int64_t sizes[1] = {4};
  for (unsigned run = 0; run < 8; run++) {
    float data[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    volatile float zero = 0.0f;
    if (run == 3) data[2] = zero / zero;
    one_run(&fx, run, 50, 0);
    etk_recorder_tensor_t t = rt_tensor(6, 1, sizes, data, sizeof data);
    etk_recorder_value_t v = etk_value_tensor(&t);
    CHECK_EQ_INT(etk_recorder_log_value(fx.rec, &v, ETK_LOGGED_PROGRAM_OUTPUT),
                 ETK_OK);
    if (run == 6) {
      volatile double big = 1e308;
      etk_recorder_value_t d = etk_value_double(big * 10.0);
      CHECK_EQ_INT(
          etk_recorder_log_value(fx.rec, &d, ETK_LOGGED_INTERMEDIATE_OUTPUT),
          ETK_OK);
    }
    CHECK_EQ_INT(etk_flight_run_end(&fx.flight), ETK_OK);
    CHECK_EQ_INT(snaps.count, run < 3 ? 0 : run < 6 ? 1 : 2);
  }
  static const long long w0[] = {2, 3};
  check_snapshot(0, w0, 2, "etkit:trigger=run=3,snapshot=0,after=0");
  /* flatc prints the logged infinity as "inf", which is not JSON: the
   * second snapshot is verified and its marker found in the bytes */
  CHECK_EQ_INT(rt_verify(snaps.data[1], snaps.len[1], NULL), ETK_OK);
  CHECK(snapshot_has(1, "etkit:trigger=run=6,snapshot=1,after=0"));
  CHECK_EQ_INT(etk_flight_finish(&fx.flight), ETK_OK);
}

ETK_TEST(nan_in_a_stats_vector) {
  /* at ETK_DEBUG_LEVEL_STATS the trigger reads the STATS counts
   * (inf_count of the float tensor at run 4); the integer tensor and the
   * empty one (no data: logged as it is) never fire */
  static const char *const exprs[] = {"nan", NULL};
  fixture_t fx;
  REQUIRE(setup(&fx, 2, 0, 0, 0, exprs));
  etk_recorder_set_debug_level(fx.rec, ETK_DEBUG_LEVEL_STATS);
  static const int64_t sizes[1] = {4}, empty[1] = {0};
  for (unsigned run = 0; run < 6; run++) {
    float data[4] = {1.0f, -2.0f, 3.0f, 4.0f};
    int32_t ints[4] = {7, 8, 9, 10};
    volatile float big = 3e38f;
    if (run == 4) data[1] = big * 10.0f;
    one_run(&fx, run, 50, 0);
    etk_recorder_tensor_t t[3] = {rt_tensor(6, 1, sizes, data, sizeof data),
                                  rt_tensor(3, 1, sizes, ints, sizeof ints),
                                  rt_tensor(6, 1, empty, NULL, 0)};
    etk_recorder_value_t v = etk_value_tensor_list(t, 3);
    CHECK_EQ_INT(etk_recorder_log_value(fx.rec, &v, ETK_LOGGED_PROGRAM_OUTPUT),
                 ETK_OK);
    CHECK_EQ_INT(etk_flight_run_end(&fx.flight), ETK_OK);
    CHECK_EQ_INT(snaps.count, run < 4 ? 0 : 1);
  }
  CHECK_EQ_INT(rt_verify(snaps.data[0], snaps.len[0], NULL), ETK_OK);
  CHECK(snapshot_has(0, "etkit:trigger=run=4,snapshot=0,after=0"));
  CHECK_EQ_INT(etk_flight_finish(&fx.flight), ETK_OK);
}

ETK_TEST(manual_and_mismatch) {
  static const char *const exprs[] = {"manual", "mismatch", NULL};
  fixture_t fx;
  REQUIRE(setup(&fx, 1, 0, 0, 0, exprs));
  for (unsigned run = 0; run < 6; run++) {
    one_run(&fx, run, 50, 0);
    if (run == 2) CHECK_EQ_INT(etk_recorder_trigger(fx.rec), ETK_OK);
    if (run == 4) CHECK_EQ_INT(etk_flight_fire(&fx.flight, "mismatch"), ETK_OK);
    CHECK_EQ_INT(etk_flight_run_end(&fx.flight), ETK_OK);
  }
  CHECK_EQ_INT(etk_flight_fire(&fx.flight, "nan"), ETK_E_NOT_FOUND);
  REQUIRE(snaps.count == 2);
  static const long long w0[] = {2}, w1[] = {4};
  check_snapshot(0, w0, 1, "etkit:trigger=run=2,snapshot=0,after=0");
  check_snapshot(1, w1, 1, "etkit:trigger=run=4,snapshot=1,after=0");
  json_t *dump = NULL;
  if (rt_check_dump(snaps.data[1], snaps.len[1], &dump) && dump) {
    const char *m;
    long long got[4];
    runs_of(dump, got, 4, &m);
    CHECK(m && strstr(m, "expr=mismatch") != NULL);
    json_decref(dump);
  }
  CHECK_EQ_INT(etk_flight_finish(&fx.flight), ETK_OK);
  CHECK_EQ_INT(etk_recorder_trigger(fx.rec), ETK_E_INVALID_STATE);
}

ETK_TEST(p99_from_the_sketch_after_min_samples) {
  static const char *const exprs[] = {"Method::execute>3*p99", NULL};
  fixture_t fx;
  REQUIRE(setup(&fx, 2, 0, 0, 0, exprs));
  for (unsigned run = 0; run < 200; run++) {
    /* ~1 us runs (spread over 64 ns); 5 us at run 50 (too early: fewer than
     * 100 durations seen), 3.5 us at run 150 (above 3 x p99 ~ 3.2 us), 3
     * us at run 170 (below) */
    uint64_t extra = (run * 37u) % 64u;
    if (run == 50) extra = 4000;
    if (run == 150) extra = 2500;
    if (run == 170) extra = 1900;
    one_run(&fx, run, 700, extra);
    CHECK_EQ_INT(etk_flight_run_end(&fx.flight), ETK_OK);
    CHECK_EQ_INT(snaps.count, run < 150 ? 0 : 1);
  }
  REQUIRE(snaps.count == 1);
  static const long long want[] = {149, 150};
  check_snapshot(0, want, 2, "etkit:trigger=run=150,snapshot=0,after=0");
  CHECK_EQ_INT(etk_flight_finish(&fx.flight), ETK_OK);
}

ETK_TEST(parse_good_and_bad) {
  etk_trigger_t t;
  const char *why = NULL;
  CHECK_EQ_INT(etk_trigger_parse("Method::execute>2ms", &t, &why), ETK_OK);
  CHECK_EQ_INT(t.kind, ETK_TRIGGER_DURATION);
  CHECK(t.threshold_ns == 2e6);
  CHECK_EQ_INT(t.pattern_len, 15);
  CHECK_EQ_INT(etk_trigger_parse("aten.conv*>0.5ms", &t, &why), ETK_OK);
  CHECK(t.threshold_ns == 5e5);
  CHECK_EQ_INT(etk_trigger_parse("x>250\xC2\xB5s", &t, &why), ETK_OK);
  CHECK(t.threshold_ns == 250e3);
  CHECK_EQ_INT(etk_trigger_parse("x>1.5s", &t, &why), ETK_OK);
  CHECK(t.threshold_ns == 1.5e9);
  CHECK_EQ_INT(etk_trigger_parse("x>700ns", &t, &why), ETK_OK);
  CHECK(t.threshold_ns == 700.0);
  CHECK_EQ_INT(etk_trigger_parse("Method::execute>3*p99", &t, &why), ETK_OK);
  CHECK_EQ_INT(t.kind, ETK_TRIGGER_P99);
  CHECK(t.factor == 3.0);
  CHECK_EQ_INT(etk_trigger_parse("nan", &t, &why), ETK_OK);
  CHECK_EQ_INT(t.kind, ETK_TRIGGER_NAN);
  static const char *const bad[] = {
      "",     "nope",    ">2ms",      "x>",      "x>2",  "x>2parsecs",
      "x>ms", "x>0*p99", "x>abc*p99", "a b>2ms", "x>1e", NULL};
  for (int i = 0; bad[i]; i++) {
    why = NULL;
    CHECK_EQ_INT(etk_trigger_parse(bad[i], &t, &why), ETK_E_INVALID_ARGUMENT);
    CHECK(why != NULL && why[0] != '\0');
  }
  char longer[100];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  CHECK_EQ_INT(etk_trigger_parse(longer, &t, &why), ETK_E_LIMIT);
}

ETK_TEST_MAIN()
