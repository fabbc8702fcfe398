/*
 * test_recorder_calibration.c - etk_recorder_calibrate and the
 * "etkit:calibration=..." marker.
 *
 * With the counting clock (each read returns the previous value + 1) every
 * figure is known from the recorder's construction: a clock read costs one
 * tick, a begin_op/end_op pair reads the clock twice (2 ticks seen from
 * outside, 1 tick between its own reads), and a tensor log reads no clock
 * at all (0).  The host clock gives plausible figures only.  On Linux the
 * calibration must leave recording without first-touch page faults (a
 * fresh mapping as the arena, the faults counted by getrusage).  Every dump is
 * verified and decoded with flatc against upstream's schema.
 */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#endif
#include <stdio.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <sys/resource.h>
#endif

#include "etkit/recorder_calibration.h"
#include "recorder_testutil.h"

static uint64_t arena[64u * 1024u / 8u];
static uint64_t scratch[32u * 1024u / 8u];

static const char counted_marker[] =
    "etkit:calibration=pair=2.000,inner=1.000,clock=1.000,tensor=0.000,"
    "tensor_kib=0.000,skipped=0.000,reps=31";

/* One Execute block with two operator events. */
static void record_two_ops(etk_recorder_t *rec) {
  etk_recorder_name_t op = etk_recorder_intern(rec, "OPERATOR_CALL");
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  for (int i = 0; i < 2; i++) {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  }
}

ETK_TEST(counting_clock_gives_the_constructed_figures) {
  rt_clock_t c;
  memset(&c, 0, sizeof c);
  c.step = 1;
  etk_recorder_t *rec = rt_make(arena, sizeof arena, &c);
  REQUIRE(rec != NULL);
  etk_recorder_calibration_t cal;
  REQUIRE(etk_recorder_calibrate(rec, scratch, sizeof scratch, 0, &cal) ==
          ETK_OK);
  CHECK_EQ_U64(cal.clock_mt, 1000);
  CHECK_EQ_U64(cal.pair_mt, 2000);
  CHECK_EQ_U64(cal.inner_mt, 1000);
  CHECK_EQ_U64(cal.tensor_mt, 0);
  CHECK_EQ_U64(cal.tensor_kib_mt, 0);
  CHECK_EQ_U64(cal.skipped_mt, 0); /* a skipped hook reads no clock */
  CHECK_EQ_INT(cal.repetitions, ETK_RECORDER_CALIBRATION_DEFAULT_REPS);
  etk_recorder_calibration_t got;
  CHECK_EQ_INT(etk_recorder_get_calibration(rec, &got), 1);
  CHECK_EQ_U64(got.pair_mt, 2000);
  /* the recorder itself recorded nothing */
  etk_recorder_stats_t st;
  etk_recorder_stats(rec, &st);
  CHECK_EQ_INT(st.events, 0);
  CHECK_EQ_INT(st.blocks, 0);

  record_two_ops(rec);
  json_t *j = NULL;
  REQUIRE(rt_finish_check(rec, &j));
  if (j) {
    CHECK_EQ_U64(rt_json_len(j, "run_data"), 2);
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 2);
    CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"), counted_marker);
    CHECK(!rt_json_has(j, "run_data/1/events")); /* upstream skips it */
    json_decref(j);
  }
}

ETK_TEST(arena_free_space_is_the_default_scratch) {
  rt_clock_t c;
  memset(&c, 0, sizeof c);
  c.step = 1;
  etk_recorder_t *rec = rt_make(arena, sizeof arena, &c);
  REQUIRE(rec != NULL);
  record_two_ops(rec);
  etk_recorder_calibration_t cal;
  REQUIRE(etk_recorder_calibrate(rec, NULL, 0, 5, &cal) == ETK_OK);
  CHECK_EQ_U64(cal.pair_mt, 2000);
  CHECK_EQ_INT(cal.repetitions, 5);
  /* the block's events survive the measurement in the arena */
  json_t *j = NULL;
  REQUIRE(rt_finish_check(rec, &j));
  if (j) {
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 2);
    CHECK_EQ_STR(rt_json_str(j, "run_data/0/events/1/profile_event/name"),
                 "OPERATOR_CALL");
    CHECK(strstr(rt_json_str(j, "run_data/1/name"), ",reps=5") != NULL);
    json_decref(j);
  }
}

ETK_TEST(marker_kept_across_fresh_dumps_and_before_dropped_marker) {
  static uint64_t small[6u * 1024u / 8u];
  rt_clock_t c;
  memset(&c, 0, sizeof c);
  c.step = 1;
  etk_recorder_t *rec = rt_make(small, sizeof small, &c);
  REQUIRE(rec != NULL);
  REQUIRE(etk_recorder_calibrate(rec, scratch, sizeof scratch, 0, NULL) ==
          ETK_OK);
  record_two_ops(rec);
  json_t *j = NULL;
  REQUIRE(rt_finish_check(rec, &j));
  json_decref(j);
  /* a fresh dump filled until events drop: both markers, dropped last */
  etk_recorder_name_t op = etk_recorder_intern(rec, "OPERATOR_CALL");
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  int dropped = 0;
  for (int i = 0; i < 1000; i++) {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    if (etk_recorder_end(rec, &s) == ETK_E_FULL) dropped++;
  }
  CHECK(dropped > 0);
  j = NULL;
  REQUIRE(rt_finish_check(rec, &j));
  if (j) {
    char want[64];
    snprintf(want, sizeof want, "etkit:dropped_events=%d", dropped);
    CHECK_EQ_U64(rt_json_len(j, "run_data"), 3);
    CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"), counted_marker);
    CHECK_EQ_STR(rt_json_str(j, "run_data/2/name"), want);
    json_decref(j);
  }
}

ETK_TEST(host_clock_figures_are_plausible) {
  etk_recorder_t *rec = NULL;
  REQUIRE(etk_recorder_init(&rec, arena, sizeof arena, NULL) == ETK_OK);
  etk_recorder_calibration_t cal;
  REQUIRE(etk_recorder_calibrate(rec, scratch, sizeof scratch, 101, &cal) ==
          ETK_OK);
  /* ns: a pair costs more than nothing and less than 100 us; it holds at
   * least the two clock reads of its own, minus rounding */
  CHECK(cal.pair_mt > 0);
  CHECK(cal.pair_mt < 100000000u);
  CHECK(cal.clock_mt < 100000000u);
  CHECK(cal.inner_mt <= cal.pair_mt + 1000u);
  CHECK(cal.tensor_mt + cal.tensor_kib_mt > 0);
  CHECK_EQ_INT(cal.repetitions, 101);
}

ETK_TEST(refusals) {
  rt_clock_t c;
  memset(&c, 0, sizeof c);
  etk_recorder_t *rec = rt_make(arena, sizeof arena, &c);
  REQUIRE(rec != NULL);
  etk_recorder_calibration_t cal;
  memset(&cal, 0, sizeof cal);
  CHECK_EQ_INT(etk_recorder_calibrate(NULL, scratch, sizeof scratch, 0, NULL),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(
      etk_recorder_calibrate(rec, scratch, sizeof scratch,
                             ETK_RECORDER_CALIBRATION_MAX_REPS + 1, NULL),
      ETK_E_INVALID_ARGUMENT);
  size_t need = etk_recorder_calibration_scratch_size(0);
  CHECK(need > 0 && need <= sizeof scratch);
  CHECK_EQ_INT(etk_recorder_calibrate(rec, scratch, need / 2, 0, NULL),
               ETK_E_NO_MEMORY);
  CHECK_EQ_INT(etk_recorder_get_calibration(rec, NULL), 0);
  CHECK_EQ_INT(etk_recorder_set_calibration(rec, NULL), ETK_E_INVALID_ARGUMENT);
  /* a value beyond the bound is clamped, so the marker's bound holds */
  cal.pair_mt = UINT64_MAX;
  CHECK_EQ_INT(etk_recorder_set_calibration(rec, &cal), ETK_OK);
  CHECK_EQ_INT(etk_recorder_get_calibration(rec, &cal), 1);
  CHECK_EQ_U64(cal.pair_mt, ETK_RECORDER_CALIBRATION_MAX_VALUE);
  record_two_ops(rec);
  json_t *j = NULL;
  REQUIRE(rt_finish_check(rec, &j));
  if (j) {
    CHECK(strncmp(rt_json_str(j, "run_data/1/name"),
                  "etkit:calibration=pair=999999999999.999,", 40) == 0);
    json_decref(j);
  }
}

/* A runtime's "adjacent wrappers" ends the marker; the longest marker (every
 * figure at its bound, adjacent=1) still fits its bound. */
ETK_TEST(adjacent_wrappers_in_the_longest_marker) {
  rt_clock_t c = {0};
  etk_recorder_t *rec = rt_make(arena, sizeof arena, &c);
  REQUIRE(rec != NULL);
  etk_recorder_calibration_t cal = {
      .pair_mt = UINT64_MAX,
      .inner_mt = UINT64_MAX,
      .clock_mt = UINT64_MAX,
      .tensor_mt = UINT64_MAX,
      .tensor_kib_mt = UINT64_MAX,
      .skipped_mt = UINT64_MAX,
      .repetitions = ETK_RECORDER_CALIBRATION_MAX_REPS,
      .adjacent_wrappers = 7}; /* any non-zero: stored as 1 */
  CHECK_EQ_INT(etk_recorder_set_calibration(rec, &cal), ETK_OK);
  CHECK_EQ_INT(etk_recorder_get_calibration(rec, &cal), 1);
  CHECK_EQ_INT(cal.adjacent_wrappers, 1);
  record_two_ops(rec);
  json_t *j = NULL;
  REQUIRE(rt_finish_check(rec, &j));
  if (j) {
    const char *name = rt_json_str(j, "run_data/1/name");
    size_t n = name ? strlen(name) : 0;
    CHECK(n > 11 && strcmp(name + n - 11, ",adjacent=1") == 0);
    json_decref(j);
  }
  /* etk_recorder_calibrate's own figures say nothing of wrappers */
  REQUIRE(etk_recorder_calibrate(rec, scratch, sizeof scratch, 0, &cal) ==
          ETK_OK);
  CHECK_EQ_INT(cal.adjacent_wrappers, 0);
}

ETK_TEST(no_room_refuses_without_latching) {
  static uint64_t tiny[4u * 1024u / 8u];
  rt_clock_t c;
  memset(&c, 0, sizeof c);
  etk_recorder_t *rec = rt_make(tiny, sizeof tiny, &c);
  REQUIRE(rec != NULL);
  etk_recorder_name_t op = etk_recorder_intern(rec, "OPERATOR_CALL");
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  int kept = 0;
  for (;;) { /* fill exactly to the brim */
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    if (etk_recorder_end(rec, &s) != ETK_OK) break;
    kept++;
  }
  REQUIRE(kept > 0);
  /* a new recorder with one event less of room: the marker does not fit */
  rec = rt_make(tiny, sizeof tiny, &c);
  REQUIRE(rec != NULL);
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  for (int i = 0; i < kept; i++) {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  }
  etk_recorder_calibration_t cal;
  memset(&cal, 0, sizeof cal);
  CHECK_EQ_INT(etk_recorder_set_calibration(rec, &cal), ETK_E_FULL);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 0);
  json_t *j = NULL;
  REQUIRE(rt_finish_check(rec, &j));
  if (j) {
    CHECK_EQ_U64(rt_json_len(j, "run_data"), 1);
    json_decref(j);
  }
}

#if defined(__linux__)
static long minor_faults(void) {
  struct rusage u;
  return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : -1;
}

/* Profile records recorded into a fresh mapping after a calibration on
 * separate scratch: the calibration has mapped every page they write, so
 * the 16384 records (512 KiB, 128 pages) take no page fault.  Before it
 * touched the arena, each new page of records faulted (about 128). */
ETK_TEST(calibration_leaves_recording_without_page_faults) {
  const size_t size = (size_t)4 << 20;
  const uint32_t events = 16384;
  void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mem != MAP_FAILED);
#ifdef MADV_NOHUGEPAGE
  (void)madvise(mem, size, MADV_NOHUGEPAGE); /* a fault per 4 KiB page */
#endif
  rt_clock_t c;
  memset(&c, 0, sizeof c);
  c.step = 1;
  etk_recorder_t *rec = rt_make(mem, size, &c);
  REQUIRE(rec != NULL);
  etk_recorder_name_t op = etk_recorder_intern(rec, "OPERATOR_CALL");
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  REQUIRE(etk_recorder_calibrate(rec, scratch, sizeof scratch, 5, NULL) ==
          ETK_OK);
  long before = minor_faults();
  int failed = 0;
  for (uint32_t i = 0; i < events; i++) {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    failed |= etk_recorder_end(rec, &s) != ETK_OK;
  }
  long after = minor_faults();
  CHECK(!failed);
  CHECK(before >= 0 && after >= 0);
  /* a few for the rest of the process (none expected) */
  CHECK(after - before <= 4);
  if (after - before > 4)
    fprintf(stderr, "  %ld page faults while recording %u events\n",
            after - before, events);
  /* the dump still holds every record */
  json_t *j = NULL;
  REQUIRE(rt_finish_check(rec, &j));
  if (j) {
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), events);
    json_decref(j);
  }
  munmap(mem, size);
}
#endif

ETK_TEST_MAIN()
