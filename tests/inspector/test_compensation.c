/*
 * test_compensation.c - the calibration marker's parser and the
 * compensation arithmetic (etkit/compensation.h) on hand-built dumps whose
 * nesting is known: every expected value is written as the sum of the
 * costs of the events the construction put inside an event (P per profile
 * event, T + bytes x K / 1024 per logged tensor), never as a number read
 * off an output.  Then the Inspector with options.compensate, and a dump
 * without marker.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../etdump/etdump_writer.h"
#include "etk_test.h"
#include "etkit/compensation.h"
#include "etkit/inspector_core.h"

#define P 9.0    /* pair less skipped */
#define T 3.0    /* tensor, fixed part */
#define K 2048.0 /* tensor, per KiB: 2 ticks per byte */
#define MARKER                                                          \
  "etkit:calibration=pair=10.000,inner=4.000,clock=2.000,tensor=3.000," \
  "tensor_kib=2048.000,skipped=1.000,reps=31"

ETK_TEST(parse_marker) {
  etk_calibration_t c;
  CHECK(etk_calibration_parse(MARKER, strlen(MARKER), &c));
  CHECK(c.present);
  CHECK(c.pair == 10 && c.skipped == 1 && c.inner == 4 && c.clock == 2 &&
        c.tensor == T && c.tensor_kib == K);
  CHECK_EQ_U64(c.repetitions, 31);
  /* unknown keys are skipped; only pair is required */
  const char *later = "etkit:calibration=pair=1.5,future=7";
  CHECK(etk_calibration_parse(later, strlen(later), &c) && c.pair == 1.5);
  const char *bad[] = {"etkit:calibration=",
                       "etkit:calibration=inner=1.000",
                       "etkit:calibration=pair=",
                       "etkit:calibration=pair=1..0",
                       "etkit:calibration=pair=-1",
                       "etkit:calibration=pair=1,",
                       "etkit:calibration=pair=1;clock=2",
                       "etkit:dropped_events=3",
                       "Execute"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK(!etk_calibration_parse(bad[i], strlen(bad[i]), NULL));
}

/* Event indices of the constructed dump. */
enum {
  E_A,       /* native_call [100, 200] */
  E_OP_A,    /* OPERATOR_CALL [95, 205] around it */
  E_TENSOR,  /* a 4x4 float tensor logged after it (at 205) */
  E_D1,      /* delegate event [310, 350] */
  E_D2,      /* delegate event [350, 390], touching d1 */
  E_DELEG,   /* DELEGATE_CALL [300, 400] */
  E_EXEC,    /* Method::execute [90, 500] */
  E_X,       /* run 2: [10, 20] */
  E_Y,       /* run 2: [10, 20] again, recorded later: the parent */
  E_SCALAR,  /* run 3: an int logged before any event ended */
  E_INNER,   /* run 3: [52, 58] */
  E_OUTER,   /* run 3: [50, 60] */
  E_WRAPPED, /* run 3: end < start: costs and contains nothing */
  E_COUNT
};

static uint8_t *build(int with_marker, size_t *len) {
  static const int64_t sizes[2] = {4, 4};
  etw_t *w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "native_call_add.out", 0, 0, 100, 200);
  etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 95, 205);
  etw_debug_t t = etw_tensor_debug(0, 6 /* FLOAT */, sizes, 2, 0);
  etw_debug(w, &t);
  etw_profile_delegated(w, 1, 0, NULL, NULL, 0, 310, 350);
  etw_profile_delegated(w, 1, 1, NULL, NULL, 0, 350, 390);
  etw_profile_simple(w, "DELEGATE_CALL", 0, 1, 300, 400);
  etw_profile_simple(w, "Method::execute", 0, -1, 90, 500);
  etw_run_end(w);
  etw_run_begin(w, "Other", -1);
  etw_profile_simple(w, "x", 0, 0, 10, 20);
  etw_profile_simple(w, "y", 0, 1, 10, 20);
  etw_run_end(w);
  etw_run_begin(w, "Third", -1);
  etw_debug_t s;
  memset(&s, 0, sizeof s);
  s.iid = 0;
  s.dint = -1;
  s.kind = ETW_VALUE_INT;
  s.int_value = 5;
  s.output = -1;
  etw_debug(w, &s);
  etw_profile_simple(w, "inner", 0, 0, 52, 58);
  etw_profile_simple(w, "outer", 0, 1, 50, 60);
  etw_profile_simple(w, "wrapped", 0, 2, 59, 51);
  etw_run_end(w);
  if (with_marker) {
    etw_run_begin(w, MARKER, -1);
    etw_run_without_events(w);
    etw_run_end(w);
  }
  return etw_finish_copy(w, len);
}

ETK_TEST(arithmetic_of_a_known_nesting) {
  size_t len;
  uint8_t *bytes = build(1, &len);
  REQUIRE(bytes != NULL);
  etk_etdump_t *d;
  REQUIRE(etk_etdump_open_memory(bytes, len, NULL, &d, NULL) == ETK_OK);
  REQUIRE(etk_etdump_event_count(d) == E_COUNT);
  etk_calibration_t cal;
  REQUIRE(etk_calibration_find(d, &cal));
  CHECK_EQ_INT(cal.run, 3);
  double out[E_COUNT];
  REQUIRE(etk_compensation_compute(d, &cal, out, NULL) == ETK_OK);
  const double tensor = T + 64.0 * K / 1024.0; /* 16 floats */
  CHECK(out[E_A] == 0);
  CHECK(out[E_OP_A] == P);
  CHECK(out[E_TENSOR] == 0);
  CHECK(out[E_D1] == 0 && out[E_D2] == 0);
  CHECK(out[E_DELEG] == 2 * P);
  /* everything of the run is inside Method::execute: 5 profile events
   * and the tensor */
  CHECK(out[E_EXEC] == 5 * P + tensor);
  CHECK(out[E_X] == 0);
  CHECK(out[E_Y] == P);
  /* the scalar goes to the run's earliest start: inside outer only */
  CHECK(out[E_INNER] == 0);
  CHECK(out[E_OUTER] == P + T);
  CHECK(out[E_WRAPPED] == 0);
  etk_etdump_close(d);
  free(bytes);
}

/* The Inspector's durations with and without compensation. */
static double execute_duration(etk_inspector_t *insp) {
  for (size_t i = 0; i < etk_inspector_event_count(insp); i++) {
    etk_inspector_event_t e;
    if (etk_inspector_event_get_basic(insp, i, &e) == ETK_OK && e.name &&
        strcmp(e.name, "Method::execute") == 0) {
      double raw[4];
      size_t n = 0;
      if (etk_inspector_event_durations(insp, i, raw, &n) == ETK_OK && n == 1)
        return raw[0];
    }
  }
  return NAN;
}

ETK_TEST(inspector_option) {
  size_t len, plain_len;
  uint8_t *bytes = build(1, &len), *plain = build(0, &plain_len);
  REQUIRE(bytes && plain);
  etk_inspector_options_t o;
  etk_inspector_options_init(&o);
  o.target_time_scale = ETK_TIME_NS;
  etk_inspector_t *raw, *comp, *given;
  REQUIRE(etk_inspector_open_memory(bytes, len, &o, &raw, NULL) == ETK_OK);
  o.compensate = 1;
  REQUIRE(etk_inspector_open_memory(bytes, len, &o, &comp, NULL) == ETK_OK);
  CHECK(execute_duration(raw) == 410.0);
  CHECK(execute_duration(comp) == 410.0 - (5 * P + T + 64.0 * K / 1024.0));
  /* no marker: refused, unless the cost of an event is given */
  etk_error_t err;
  memset(&err, 0, sizeof err);
  CHECK_EQ_INT(etk_inspector_open_memory(plain, plain_len, &o, &given, &err),
               ETK_E_NOT_FOUND);
  o.event_cost_ns = 7.0;
  REQUIRE(etk_inspector_open_memory(plain, plain_len, &o, &given, NULL) ==
          ETK_OK);
  CHECK(execute_duration(given) == 410.0 - 5 * 7.0); /* tensors cost 0 */
  etk_inspector_close(given);
  /* in us ticks, 7 ns are 0.007 ticks */
  o.source_time_scale = ETK_TIME_US;
  o.target_time_scale = ETK_TIME_US;
  REQUIRE(etk_inspector_open_memory(plain, plain_len, &o, &given, NULL) ==
          ETK_OK);
  CHECK(fabs(execute_duration(given) - (410.0 - 5 * 0.007)) < 1e-9);
  etk_inspector_close(given);
  etk_inspector_close(raw);
  etk_inspector_close(comp);
  free(bytes);
  free(plain);
}

/* ---------------------------------------------------- a run's own pair */

/* One kernel call at `at`: OPERATOR_CALL [at, at + 800] around its kernel
 * event, the two gaps adding up to `gap`; `extra` puts a second event in
 * the wrapper.  Returns the profile events written. */
static uint64_t gap_divisor = 1; /* a coarser clock's gaps */

static int kernel_call(etw_t *w, uint64_t at, uint64_t gap, int extra) {
  gap /= gap_divisor;
  uint64_t head = gap / 2, tail = gap - head;
  etw_profile_simple(w, "native_call_add.out", 0, 0, at + head,
                     at + 800 - tail - (extra ? 20 : 0));
  if (extra)
    etw_profile_simple(w, "native_call_mul.out", 0, 0, at + 800 - tail - 10,
                       at + 800 - tail);
  etw_profile_simple(w, "OPERATOR_CALL", 0, 0, at, at + 800);
  return extra ? 3 : 2;
}

/* Method::execute around kernel calls of the given gaps (extra: which call
 * holds two events, -1 none); *inside gets the events written inside. */
static void run_of_calls(etw_t *w, const uint64_t *gaps, int n, int extra,
                         int *inside) {
  etw_run_begin(w, "Execute", -1);
  *inside = 0;
  for (int k = 0; k < n; k++)
    *inside += kernel_call(w, 1000 + 1000 * (uint64_t)k, gaps[k], k == extra);
  etw_profile_simple(w, "Method::execute", 0, -1, 0, 1000 + 1000 * (uint64_t)n);
  etw_run_end(w);
}

enum { OWN, FEW, SHARED, FAR, OWN_RUNS };

/* The four runs below, then `marker`. */
static uint8_t *build_calls(const char *marker, int inside[OWN_RUNS],
                            size_t *len) {
  static const uint64_t own[5] = {120, 123, 121, 160, 122}; /* median 122 */
  static const uint64_t few[3] = {120, 121, 122};
  static const uint64_t far[4] = {500, 500, 500, 500};
  etw_t *w = etw_new(1 << 16);
  run_of_calls(w, own, 5, -1, &inside[OWN]);   /* its own pair: 122 */
  run_of_calls(w, few, 3, -1, &inside[FEW]);   /* too few calls */
  run_of_calls(w, own, 4, 1, &inside[SHARED]); /* one holds two: 3 count */
  run_of_calls(w, far, 4, -1, &inside[FAR]);   /* 5x the marker's: refused */
  etw_run_begin(w, marker, -1);
  etw_run_without_events(w);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

/* Compensation of each run's Method::execute and of its first wrapper. */
static void execute_costs(const char *marker, double exec[OWN_RUNS],
                          double first_call[OWN_RUNS], int inside[OWN_RUNS]) {
  size_t len;
  uint8_t *bytes = build_calls(marker, inside, &len);
  etk_etdump_t *d = NULL;
  etk_calibration_t cal;
  double out[64];
  memset(out, 0, sizeof out);
  if (!bytes || etk_etdump_open_memory(bytes, len, NULL, &d, NULL) != ETK_OK ||
      etk_etdump_event_count(d) > 64 || !etk_calibration_find(d, &cal) ||
      etk_compensation_compute(d, &cal, out, NULL) != ETK_OK) {
    for (int r = 0; r < OWN_RUNS; r++) exec[r] = first_call[r] = NAN;
  } else {
    int run = 0, seen_call = 0;
    for (size_t i = 0; i < etk_etdump_event_count(d); i++) {
      etk_etdump_event_t e;
      etk_etdump_event_get(d, i, &e);
      if (e.kind != ETK_ETDUMP_EVENT_PROFILE) continue;
      if (strcmp(e.name.data, "OPERATOR_CALL") == 0 && !seen_call) {
        first_call[run] = out[i];
        seen_call = 1;
      } else if (strcmp(e.name.data, "Method::execute") == 0) {
        exec[run++] = out[i];
        seen_call = 0;
      }
    }
  }
  etk_etdump_close(d);
  free(bytes);
}

#define ADJ_MARKER "etkit:calibration=pair=100.000,skipped=1.000,reps=31"

ETK_TEST(each_run_measures_its_own_pair) {
  etk_calibration_t c;
  const char *m = ADJ_MARKER ",adjacent=1";
  CHECK(etk_calibration_parse(m, strlen(m), &c) && c.adjacent);
  CHECK(etk_calibration_parse(ADJ_MARKER, strlen(ADJ_MARKER), &c) &&
        !c.adjacent);
  double exec[OWN_RUNS], call[OWN_RUNS];
  int inside[OWN_RUNS];
  execute_costs(ADJ_MARKER ",adjacent=1", exec, call, inside);
  /* the median gap less skipped, for every event of the run */
  CHECK_EQ_INT(inside[OWN], 10);
  CHECK(exec[OWN] == 10 * (122.0 - 1.0));
  CHECK(call[OWN] == 122.0 - 1.0);
  /* the others keep the marker's pair */
  CHECK(exec[FEW] == inside[FEW] * 99.0);
  CHECK_EQ_INT(inside[SHARED], 9);
  CHECK(exec[SHARED] == 9 * 99.0);
  CHECK(exec[FAR] == inside[FAR] * 99.0);
  /* the pairs charged per run, and their summary over the runs */
  size_t len;
  uint8_t *bytes = build_calls(ADJ_MARKER ",adjacent=1", inside, &len);
  etk_etdump_t *d = NULL;
  REQUIRE(bytes &&
          etk_etdump_open_memory(bytes, len, NULL, &d, NULL) == ETK_OK);
  REQUIRE(etk_calibration_find(d, &c));
  double pairs[OWN_RUNS + 1];
  uint8_t own[OWN_RUNS + 1];
  REQUIRE(etk_etdump_run_count(d) == OWN_RUNS + 1); /* and the marker */
  REQUIRE(etk_compensation_run_pairs(d, &c, pairs, own, NULL) == ETK_OK);
  CHECK(own[OWN] == 1 && pairs[OWN] == 122.0);
  for (int r = FEW; r <= OWN_RUNS; r++) CHECK(own[r] == 0 && pairs[r] == 100.0);
  etk_own_pairs_t sum;
  REQUIRE(etk_compensation_own_pairs(d, &c, &sum, NULL) == ETK_OK);
  CHECK(sum.runs == OWN_RUNS && sum.own == 1);
  CHECK(sum.min == 122.0 && sum.median == 122.0 && sum.max == 122.0);
  etk_etdump_close(d);
  free(bytes);
  /* without adjacent=1 every run does */
  execute_costs(ADJ_MARKER, exec, call, inside);
  CHECK(exec[OWN] == 10 * 99.0);
  CHECK(call[OWN] == 99.0);
  /* nor with a clock too coarse for a gap (pair under 16 ticks): gaps of
   * 15 against a pair of 12 */
  gap_divisor = 8;
  execute_costs("etkit:calibration=pair=12.000,skipped=1.000,adjacent=1", exec,
                call, inside);
  CHECK(exec[OWN] == 10 * 11.0);
  execute_costs("etkit:calibration=pair=16.000,skipped=1.000,adjacent=1", exec,
                call, inside);
  CHECK(exec[OWN] == 10 * 14.0); /* 16 ticks: fine enough */
  gap_divisor = 1;
}

ETK_TEST_MAIN()
