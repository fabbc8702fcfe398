/*
 * test_recorder_stats.c - the recorder's STATS debug level
 * (ETK_DEBUG_LEVEL_STATS): every logged tensor with data becomes its
 * 13-value STATS vector (DOUBLE, sizes [13]) in the debug buffer, the
 * buffer grows by a fixed amount per tensor whatever the tensor's size,
 * the dump carries the ETK_TENSOR_STATS_MARKER RunData (and only when a
 * STATS vector was logged), flatc decodes it with upstream's schema, the
 * sizing estimate holds it and a ring keeps the marker.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "etkit/tensor_stats.h"
#include "recorder_testutil.h"

static uint64_t arena[256 * 1024 / 8];
static uint8_t debug_buf[64 * 1024] __attribute__((aligned(64)));
static float big[20000];

static etk_recorder_t *make(rt_clock_t *clk, etk_debug_level_t level) {
  memset(clk, 0, sizeof *clk);
  etk_recorder_t *rec = rt_make(arena, sizeof arena, clk);
  if (!rec) return NULL;
  etk_recorder_set_debug_level(rec, level);
  if (etk_recorder_set_debug_buffer(rec, debug_buf, sizeof debug_buf))
    return NULL;
  return rec;
}

/* Index of the RunData named `name` in a decoded dump, or -1. */
static long run_named(json_t *dump, const char *name) {
  size_t n = rt_json_len(dump, "run_data");
  for (size_t b = 0; b < n; b++) {
    char path[64];
    snprintf(path, sizeof path, "run_data/%zu/name", b);
    const char *s = rt_json_str(dump, path);
    if (s && strcmp(s, name) == 0) return (long)b;
  }
  return -1;
}

/* Whether the finished bytes hold the marker's text. */
static int has_marker_bytes(etk_recorder_t *rec) {
  const uint8_t *data;
  size_t len;
  static const char m[] = ETK_TENSOR_STATS_MARKER;
  if (etk_recorder_finish(rec, &data, &len) != ETK_OK) return -1;
  for (size_t i = 0; i + sizeof m - 1 <= len; i++)
    if (memcmp(data + i, m, sizeof m - 1) == 0) return 1;
  return 0;
}

/* Logs tensor t for instruction iid; returns the debug buffer's use. */
static size_t log_tensor(etk_recorder_t *rec, uint32_t iid,
                         etk_recorder_tensor_t t, etk_logged_type_t type) {
  etk_recorder_value_t v = etk_value_tensor(&t);
  etk_recorder_set_chain_debug_handle(rec, 0, iid);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, type), ETK_OK);
  return etk_recorder_debug_buffer_used(rec);
}

ETK_TEST(tensors_become_stats_vectors_with_the_marker) {
  rt_clock_t clk;
  etk_recorder_t *rec = make(&clk, ETK_DEBUG_LEVEL_STATS);
  REQUIRE(rec != NULL);
  /* a 2x3 float tensor, a 20000-element one, an int tensor and a scalar */
  static const int64_t s23[2] = {2, 3}, sbig[1] = {20000}, s4[1] = {4};
  float small[6] = {-3.0f, 0.0f, 1.5f, 2.0f, -0.25f, 7.0f};
  int32_t ints[4] = {-5, 0, 9, 2};
  for (size_t i = 0; i < 20000; i++) big[i] = (float)i * 0.5f - 3000.0f;
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  size_t after_small =
      log_tensor(rec, 1, rt_tensor(6, 2, s23, small, sizeof small),
                 ETK_LOGGED_INTERMEDIATE_OUTPUT);
  size_t after_big = log_tensor(rec, 2, rt_tensor(6, 1, sbig, big, sizeof big),
                                ETK_LOGGED_INTERMEDIATE_OUTPUT);
  log_tensor(rec, 2, rt_tensor(3, 1, s4, ints, sizeof ints),
             ETK_LOGGED_PROGRAM_OUTPUT);
  etk_recorder_value_t v4 = etk_value_int(42);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v4, ETK_LOGGED_INTERMEDIATE_OUTPUT),
               ETK_OK);
  /* 104 bytes per tensor, 64-aligned: the 80 KB tensor costs the same as
   * the 24-byte one */
  CHECK_EQ_INT(after_small, 104);
  CHECK_EQ_INT(after_big, 128 + 104);
  CHECK_EQ_INT(etk_recorder_debug_buffer_used(rec), 256 + 104);

  /* the values in the buffer are the STATS of each tensor */
  double want[ETK_TENSOR_STATS_COUNT], got[ETK_TENSOR_STATS_COUNT];
  REQUIRE(etk_tensor_stats_compute(6, small, 6, want) == ETK_OK);
  memcpy(got, debug_buf, sizeof got);
  CHECK_EQ_MEM(got, want, sizeof got);
  CHECK(got[ETK_STAT_MIN] == -3.0 && got[ETK_STAT_MAX] == 7.0);
  CHECK(got[ETK_STAT_ZERO_COUNT] == 1.0 && got[ETK_STAT_P99_ABS] == 7.0);
  REQUIRE(etk_tensor_stats_compute(6, big, 20000, want) == ETK_OK);
  memcpy(got, debug_buf + 128, sizeof got);
  CHECK_EQ_MEM(got, want, sizeof got);
  REQUIRE(etk_tensor_stats_compute(3, ints, 4, want) == ETK_OK);
  memcpy(got, debug_buf + 256, sizeof got);
  CHECK_EQ_MEM(got, want, sizeof got);
  CHECK(got[ETK_STAT_MIN] == -5.0 && got[ETK_STAT_L1_NORM] == 16.0);

  json_t *dump = NULL;
  REQUIRE(rt_finish_check(rec, &dump));
  if (!dump) return; /* flatc absent: verified only */
  long m = run_named(dump, ETK_TENSOR_STATS_MARKER);
  CHECK_EQ_INT(m, 1); /* after the Execute block */
  char path[96];
  snprintf(path, sizeof path, "run_data/%ld/events", m);
  CHECK(!rt_json_has(dump, path)); /* event-less: upstream skips it */
  CHECK_EQ_INT(rt_json_len(dump, "run_data/0/events"), 4);
  for (int e = 0; e < 3; e++) {
    snprintf(path, sizeof path,
             "run_data/0/events/%d/debug_event/debug_entry/tensor/scalar_type",
             e);
    CHECK_EQ_STR(rt_json_str(dump, path), "DOUBLE");
    snprintf(path, sizeof path,
             "run_data/0/events/%d/debug_event/debug_entry/tensor/sizes/0", e);
    CHECK_EQ_INT(rt_json_int(dump, path, -1), 13);
    snprintf(path, sizeof path,
             "run_data/0/events/%d/debug_event/debug_entry/tensor/offset", e);
    CHECK_EQ_INT(rt_json_int(dump, path, -1), 128 * e);
  }
  CHECK_EQ_INT(rt_json_int(dump,
                           "run_data/0/events/3/debug_event/debug_entry/"
                           "int_value/int_val",
                           -1),
               42);
  json_decref(dump);
}

ETK_TEST(lists_and_tensors_without_data) {
  rt_clock_t clk;
  etk_recorder_t *rec = make(&clk, ETK_DEBUG_LEVEL_STATS);
  REQUIRE(rec != NULL);
  static const int64_t s3[1] = {3}, s22[2] = {2, 2}, s0[1] = {0};
  double a[3] = {1.0, -2.0, 4.0};
  uint8_t b[4] = {0, 1, 1, 0};
  etk_recorder_tensor_t ts[4] = {
      rt_tensor(7, 1, s3, a, sizeof a), rt_tensor(11, 2, s22, b, sizeof b),
      rt_tensor(6, 2, s22, NULL, 0), /* no data: kept as it is */
      rt_tensor(6, 1, s0, NULL, 0)};
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  etk_recorder_value_t v = etk_value_tensor_list(ts, 4);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  double want[ETK_TENSOR_STATS_COUNT];
  REQUIRE(etk_tensor_stats_compute(7, a, 3, want) == ETK_OK);
  CHECK_EQ_MEM(debug_buf, want, sizeof want);
  REQUIRE(etk_tensor_stats_compute(11, b, 4, want) == ETK_OK);
  CHECK_EQ_MEM(debug_buf + 128, want, sizeof want);
  CHECK_EQ_INT(etk_recorder_debug_buffer_used(rec), 128 + 104);
  json_t *dump = NULL;
  REQUIRE(rt_finish_check(rec, &dump));
  if (!dump) return;
  const char *base = "run_data/0/events/0/debug_event/debug_entry/tensor_list";
  char path[160];
  snprintf(path, sizeof path, "%s/tensors/1/sizes/0", base);
  CHECK_EQ_INT(rt_json_int(dump, path, -1), 13);
  snprintf(path, sizeof path, "%s/tensors/2/sizes", base);
  CHECK_EQ_INT(rt_json_len(dump, path), 2); /* the data-less tensor */
  snprintf(path, sizeof path, "%s/tensors/2/offset", base);
  CHECK_EQ_INT(rt_json_int(dump, path, 0), -1);
  snprintf(path, sizeof path, "%s/tensors/2/scalar_type", base);
  CHECK_EQ_STR(rt_json_str(dump, path), "FLOAT");
  CHECK(run_named(dump, ETK_TENSOR_STATS_MARKER) >= 0);
  json_decref(dump);
}

ETK_TEST(marker_only_with_a_stats_vector) {
  rt_clock_t clk;
  static const int64_t s2[1] = {2};
  float x[2] = {1.0f, 2.0f};
  etk_recorder_tensor_t t = rt_tensor(6, 1, s2, x, sizeof x);
  etk_recorder_value_t tv = etk_value_tensor(&t), dv = etk_value_double(0.5);
  /* intermediates: bytes, no marker */
  etk_recorder_t *rec = make(&clk, ETK_DEBUG_LEVEL_INTERMEDIATE_OUTPUTS);
  REQUIRE(rec != NULL);
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &tv, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  CHECK_EQ_INT(etk_recorder_debug_buffer_used(rec), sizeof x);
  CHECK_EQ_INT(has_marker_bytes(rec), 0);
  /* stats with only scalars: no marker */
  rec = make(&clk, ETK_DEBUG_LEVEL_STATS);
  REQUIRE(rec != NULL);
  CHECK_EQ_INT(etk_recorder_debug_level(rec), ETK_DEBUG_LEVEL_STATS);
  CHECK(etk_recorder_should_log(rec, ETK_LOGGED_INTERMEDIATE_OUTPUT));
  CHECK(etk_recorder_should_log(rec, ETK_LOGGED_PROGRAM_OUTPUT));
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &dv, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  CHECK_EQ_INT(has_marker_bytes(rec), 0);
  /* a fresh dump with a tensor gets it; the next fresh dump without one
   * does not */
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &tv, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  CHECK_EQ_INT(has_marker_bytes(rec), 1);
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &dv, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  CHECK_EQ_INT(has_marker_bytes(rec), 0);
}

ETK_TEST(estimate_holds_stats_dumps_exactly) {
  /* a recorder sized by the estimate for n STATS tensors (one dimension
   * each) records them all; the marker is part of the estimate */
  static const int64_t s[3] = {4, 5, 6};
  static float data[120];
  for (unsigned n = 1; n <= 40; n += 13) {
    etk_recorder_workload_t w;
    etk_recorder_config_t cfg;
    memset(&w, 0, sizeof w);
    w.blocks = 1;
    w.debug_tensors = n;
    w.tensor_dims = n;
    w.strings = 1;
    w.string_bytes = 7;
    w.tensor_stats = 1;
    etk_recorder_config_init(&cfg);
    size_t size = etk_recorder_estimate_size(&cfg, &w);
    w.tensor_stats = 0;
    CHECK(etk_recorder_estimate_size(&cfg, &w) < size);
    REQUIRE(size > 0 && size <= sizeof arena);
    rt_clock_t clk;
    memset(&clk, 0, sizeof clk);
    etk_recorder_t *rec = rt_make(arena, size, &clk);
    REQUIRE(rec != NULL);
    etk_recorder_set_debug_level(rec, ETK_DEBUG_LEVEL_STATS);
    REQUIRE(etk_recorder_set_debug_buffer(rec, debug_buf, sizeof debug_buf) ==
            ETK_OK);
    REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
    for (unsigned i = 0; i < n; i++) {
      etk_recorder_tensor_t t = rt_tensor(6, 3, s, data, sizeof data);
      etk_recorder_value_t v = etk_value_tensor(&t);
      CHECK_EQ_INT(
          etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT),
          ETK_OK);
    }
    CHECK_EQ_INT(etk_recorder_dropped(rec), 0);
    CHECK_EQ_INT(has_marker_bytes(rec), 1);
  }
}

ETK_TEST(ring_keeps_the_marker) {
  /* a small arena filled with operator events after one STATS tensor:
   * discarding the oldest (the first operator event) keeps the tensor's
   * record, and the rebuilt budget still holds the marker */
  static uint64_t small_arena[4096 / 8];
  rt_clock_t clk;
  memset(&clk, 0, sizeof clk);
  etk_recorder_t *rec = rt_make(small_arena, sizeof small_arena, &clk);
  REQUIRE(rec != NULL);
  etk_recorder_set_debug_level(rec, ETK_DEBUG_LEVEL_STATS);
  REQUIRE(etk_recorder_set_debug_buffer(rec, debug_buf, sizeof debug_buf) ==
          ETK_OK);
  static const int64_t s2[1] = {2};
  float x[2] = {1.0f, -1.0f};
  etk_recorder_name_t op = etk_recorder_intern(rec, "OPERATOR_CALL");
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  etk_recorder_scope_t sc = etk_recorder_begin(rec, op);
  CHECK_EQ_INT(etk_recorder_end(rec, &sc), ETK_OK);
  etk_recorder_tensor_t t = rt_tensor(6, 1, s2, x, sizeof x);
  etk_recorder_value_t v = etk_value_tensor(&t);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  int status = ETK_OK, n = 0;
  while (status == ETK_OK && n < 10000) {
    sc = etk_recorder_begin(rec, op);
    status = etk_recorder_end(rec, &sc);
    n++;
  }
  REQUIRE(status == ETK_E_FULL);
  CHECK_EQ_INT(etk_recorder_discard_oldest(rec, 1, 1), ETK_OK);
  json_t *dump = NULL;
  REQUIRE(rt_finish_check(rec, &dump));
  if (!dump) return;
  CHECK(run_named(dump, ETK_TENSOR_STATS_MARKER) >= 0);
  CHECK_EQ_STR(rt_json_str(dump,
                           "run_data/0/events/0/debug_event/debug_entry/"
                           "tensor/scalar_type"),
               "DOUBLE");
  CHECK_EQ_INT(rt_json_len(dump, "run_data/0/events"), n - 1 + 1);
  json_decref(dump);
}

ETK_TEST_MAIN()
