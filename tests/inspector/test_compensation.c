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

#define P 10.0   /* pair */
#define T 3.0    /* tensor, fixed part */
#define K 2048.0 /* tensor, per KiB: 2 ticks per byte */
#define MARKER                                                          \
  "etkit:calibration=pair=10.000,inner=4.000,clock=2.000,tensor=3.000," \
  "tensor_kib=2048.000,reps=31"

ETK_TEST(parse_marker) {
  etk_calibration_t c;
  CHECK(etk_calibration_parse(MARKER, strlen(MARKER), &c));
  CHECK(c.present);
  CHECK(c.pair == P && c.inner == 4 && c.clock == 2 && c.tensor == T &&
        c.tensor_kib == K);
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

ETK_TEST_MAIN()
