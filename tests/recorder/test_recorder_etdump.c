/*
 * test_recorder_etdump.c - upstream's devtools/etdump/tests/etdump_test.cpp,
 * mirrored test by test on the C recorder.
 *
 * Upstream runs every test on a dynamic and a static ETDumpGen; here every
 * test runs with the output built in the arena (mode 0) and with a separate
 * output buffer (mode 1): the case wrappers ETK_TEST_EACH_MODE,
 * ETK_TEST_IN_BLOCK (a fresh recorder inside "test_block") and
 * ETK_TEST_EACH_SINK (also each of the three data sinks) run the body once
 * per mode.  Where upstream expects an abort (ET_EXPECT_DEATH)
 * we assert the error code and that nothing was recorded.  Every finished
 * dump goes through etkit's verifier and is decoded by flatc; the checks
 * read flatc's JSON (logical content, defaults filled in).
 */
#include <stdio.h>
#include <string.h>

#include "recorder_testutil.h"

#define ARENA_BYTES (512u * 1024u)
static uint64_t arena[ARENA_BYTES / 8];
static uint8_t output_buf[256u * 1024u];
static rt_clock_t clk;

static etk_recorder_t *make(int mode) {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec = NULL;
  memset(&clk, 0, sizeof clk);
  clk.now = 1000;
  etk_recorder_config_init(&cfg);
  cfg.clock = rt_clock_read;
  cfg.clock_ctx = &clk;
  if (mode == 1) {
    cfg.output = output_buf;
    cfg.output_capacity = sizeof output_buf;
    if (etk_recorder_init(&rec, arena, ARENA_BYTES / 2, &cfg) != ETK_OK)
      return NULL;
  } else if (etk_recorder_init(&rec, arena, ARENA_BYTES, &cfg) != ETK_OK) {
    return NULL;
  }
  return rec;
}

/* A case run once per mode: the body sees `mode` (0 or 1). */
#define ETK_TEST_EACH_MODE(case_name)        \
  static void case_name##_in_mode(int mode); \
  ETK_TEST(case_name) {                      \
    for (int mode = 0; mode < 2; mode++) {   \
      case_name##_in_mode(mode);             \
      release_dump();                        \
    }                                        \
  }                                          \
  static void case_name##_in_mode(int mode)

/* make(mode) with the block "test_block" begun, as upstream's tests do. */
static etk_recorder_t *make_in_block(int mode) {
  etk_recorder_t *rec = make(mode);
  if (rec != NULL && etk_recorder_begin_block(rec, "test_block") != ETK_OK)
    return NULL;
  return rec;
}

/* A case run on a fresh recorder in each mode: the body sees `rec`, inside
 * the block "test_block". */
#define ETK_TEST_IN_BLOCK(case_name)                     \
  static void case_name##_in_block(etk_recorder_t *rec); \
  ETK_TEST(case_name) {                                  \
    for (int mode = 0; mode < 2; mode++) {               \
      etk_recorder_t *rec = make_in_block(mode);         \
      REQUIRE(rec != NULL);                              \
      case_name##_in_block(rec);                         \
      release_dump();                                    \
    }                                                    \
  }                                                      \
  static void case_name##_in_block(etk_recorder_t *rec)

/* One profiling event "test_event" (instruction 1), begun and ended. */
static void record_test_event(etk_recorder_t *rec) {
  etk_recorder_scope_t s = etk_recorder_begin_named(rec, "test_event", 0, 1);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
}

/* The decoded dump of the running case: FINISH_OR_SKIP sets it; the next
 * FINISH_OR_SKIP, or the case's wrapper once the case returns, releases it
 * (also when a REQUIRE ended the case early). */
static json_t *finished_dump;

static void release_dump(void) {
  json_decref(finished_dump);
  finished_dump = NULL;
}

/* finish + verify + decode into `json`; skips the case when flatc is absent
 * (after the verifier ran). */
#define FINISH_OR_SKIP(rec, json)                \
  release_dump();                                \
  REQUIRE(rt_finish_check(rec, &finished_dump)); \
  json_t *json = finished_dump;                  \
  if (json == NULL) ETK_SKIP("flatc not available")

/* Version 0, one run_data entry per block begun, the first "test_block". */
static void check_dump_blocks(json_t *json, etk_recorder_t *rec) {
  CHECK_EQ_INT(rt_json_int(json, "version", -1), 0);
  CHECK_EQ_U64(rt_json_len(json, "run_data"), etk_recorder_block_count(rec));
  CHECK_EQ_STR(rt_json_str(json, "run_data/0/name"), "test_block");
}

/* prefix + rest, for rt_json_* (one static buffer: use it at once). */
static const char *json_path(const char *prefix, const char *rest) {
  static char path[256];
  snprintf(path, sizeof path, "%s%s", prefix, rest);
  return path;
}

static const float ones6[6] = {1, 1, 1, 1, 1, 1};
static const int64_t size_3x2[2] = {3, 2};

ETK_TEST_IN_BLOCK(single_profile_event) {
  for (int j = 0; j < 2048; j++) record_test_event(rec);
  {
    FINISH_OR_SKIP(rec, json);
    check_dump_blocks(json, rec);
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/events"), 2048);
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/events/2047/profile_event/name"),
                 "test_event");
    CHECK_EQ_INT(
        rt_json_int(json, "run_data/0/events/5/profile_event/instruction_id",
                    9),
        1);
  }
}

ETK_TEST_IN_BLOCK(multiple_profile_event) {
  etk_recorder_scope_t s1, s2;
  s1 = etk_recorder_begin_named(rec, "test_event_1", 0, 1);
  s2 = etk_recorder_begin_named(rec, "test_event_2", 0, 2);
  CHECK_EQ_INT(etk_recorder_end(rec, &s2), ETK_OK);
  CHECK_EQ_INT(etk_recorder_end(rec, &s1), ETK_OK);
  {
    FINISH_OR_SKIP(rec, json);
    /* appended at END time: the inner event comes first */
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/events/0/profile_event/name"),
                 "test_event_2");
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/events/1/profile_event/name"),
                 "test_event_1");
    CHECK_EQ_INT(
        rt_json_int(json, "run_data/0/events/0/profile_event/instruction_id",
                    0),
        2);
    CHECK(rt_json_int(json, "run_data/0/events/1/profile_event/start_time", 0) <
          rt_json_int(json, "run_data/0/events/0/profile_event/start_time", 0));
  }
}

ETK_TEST_EACH_MODE(empty_blocks) {
  etk_recorder_t *rec = make(mode);
  etk_recorder_scope_t s;
  REQUIRE(rec != NULL);
  CHECK_EQ_INT(etk_recorder_begin_block(rec, "test_block"), ETK_OK);
  CHECK_EQ_INT(etk_recorder_begin_block(rec, "test_block_1"), ETK_OK);
  CHECK_EQ_INT(etk_recorder_begin_block(rec, "test_block_2"), ETK_OK);
  s = etk_recorder_begin_named(rec, "test_event_1", 0, 1);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  {
    FINISH_OR_SKIP(rec, json);
    CHECK_EQ_U64(rt_json_len(json, "run_data"), 3);
    /* a block without events has no events field at all */
    CHECK(!rt_json_has(json, "run_data/0/events"));
    CHECK(!rt_json_has(json, "run_data/1/events"));
    CHECK_EQ_U64(rt_json_len(json, "run_data/2/events"), 1);
  }
}

ETK_TEST_IN_BLOCK(add_allocators) {
  etk_recorder_stats_t st;
  uint32_t id = 99;
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "test_allocator", &id),
               ETK_OK);
  CHECK_EQ_INT(id, 1);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "test_allocator_1", &id),
               ETK_OK);
  CHECK_EQ_INT(id, 2);
  record_test_event(rec);
  /* upstream aborts: "before any events are added" */
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "test_allocator", &id),
               ETK_E_INVALID_STATE);
  CHECK_EQ_INT(id, 0);
  etk_recorder_stats(rec, &st);
  CHECK_EQ_INT(st.allocators, 2);
  CHECK_EQ_INT(st.dropped_allocators, 0);
  {
    FINISH_OR_SKIP(rec, json);
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/allocators"), 2);
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/allocators/1/name"),
                 "test_allocator_1");
  }
}

ETK_TEST_IN_BLOCK(allocation_events) {
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, 1, 64), ETK_OK);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, 2, 128), ETK_OK);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, 1, 64), ETK_OK);
  record_test_event(rec);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, 2, 128), ETK_OK);
  {
    FINISH_OR_SKIP(rec, json);
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/events"), 5);
    CHECK(!rt_json_has(json, "run_data/0/allocators"));
    CHECK_EQ_INT(
        rt_json_int(json, "run_data/0/events/1/allocation_event/allocator_id",
                    0),
        2);
    CHECK_EQ_INT(
        rt_json_int(json,
                    "run_data/0/events/1/allocation_event/allocation_size", 0),
        128);
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/events/3/profile_event/name"),
                 "test_event");
    CHECK_EQ_INT(
        rt_json_int(json,
                    "run_data/0/events/4/allocation_event/allocation_size", 0),
        128);
  }
}

/* The three sink kinds of upstream's tests: j == 0 set_debug_buffer, 1 a
 * buffer sink, 2 a file sink. */
typedef struct sinks {
  uint8_t mem[2048];
  etk_buffer_sink_t buffer;
  etk_file_sink_t file;
  const char *path;
  char path_buf[512];
} sinks_t;

static void sinks_use(etk_recorder_t *rec, sinks_t *k, int j) {
  etk_data_sink_t ds;
  k->path = NULL;
  if (j == 0) {
    etk_recorder_set_debug_buffer(rec, k->mem, sizeof k->mem);
  } else if (j == 1) {
    etk_buffer_sink_init(&k->buffer, k->mem, sizeof k->mem, 64);
    ds = etk_buffer_sink_as_data_sink(&k->buffer);
    etk_recorder_set_data_sink(rec, &ds);
  } else {
    snprintf(k->path_buf, sizeof k->path_buf, "%s",
             etk_test_temp_path("debug.bin"));
    k->path = k->path_buf;
    etk_file_sink_open(&k->file, k->path);
    ds = etk_file_sink_as_data_sink(&k->file);
    etk_recorder_set_data_sink(rec, &ds);
  }
}

static void sinks_done(sinks_t *k) {
  if (k->path != NULL) {
    etk_file_sink_close(&k->file);
    remove(k->path);
  }
}

/* A case run for each mode and each sink kind j, with the sinks k: the
 * body sees `rec`, a fresh recorder inside the block "test_block". */
#define ETK_TEST_EACH_SINK(case_name)                                        \
  static void case_name##_with_sink(etk_recorder_t *rec, int j, sinks_t *k); \
  ETK_TEST(case_name) {                                                      \
    static sinks_t k;                                                        \
    for (int mode = 0; mode < 2; mode++)                                     \
      for (int j = 0; j < 3; j++) {                                          \
        etk_recorder_t *rec = make_in_block(mode);                           \
        REQUIRE(rec != NULL);                                                \
        k.path = NULL;                                                       \
        case_name##_with_sink(rec, j, &k);                                   \
        release_dump();                                                      \
        sinks_done(&k);                                                      \
      }                                                                      \
  }                                                                          \
  static void case_name##_with_sink(etk_recorder_t *rec, int j, sinks_t *k)

ETK_TEST_EACH_SINK(debug_event) {
  etk_recorder_tensor_t t =
      rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, size_3x2, ones6, sizeof ones6);
  etk_recorder_value_t v;
  v = etk_value_int(5);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  v = etk_value_double(1.5);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  v = etk_value_bool(1);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  /* upstream aborts: "failed to write tensor to debug buffer" */
  v = etk_value_tensor(&t);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 0);
  sinks_use(rec, k, j);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  {
    FINISH_OR_SKIP(rec, json);
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/events"), 6);
    CHECK_EQ_INT(rt_json_int(json,
                             "run_data/0/events/0/debug_event/debug_entry/"
                             "int_value/int_val",
                             0),
                 5);
    CHECK_EQ_STR(
        rt_json_str(json, "run_data/0/events/1/debug_event/debug_entry/val"),
        "Double");
    CHECK(json_real_value(rt_json(json,
                                  "run_data/0/events/1/debug_event/"
                                  "debug_entry/double_value/double_val")) ==
          1.5);
    CHECK_EQ_INT(rt_json_int(json,
                             "run_data/0/events/3/debug_event/debug_entry/"
                             "bool_value/bool_val",
                             0),
                 1);
    /* scalars never carry output; the tensor's bytes are in the sink */
    CHECK(!rt_json_has(json,
                       "run_data/0/events/2/debug_event/debug_entry/output"));
    CHECK(!rt_json_has(json,
                       "run_data/0/events/4/debug_event/debug_entry/output"));
    CHECK_EQ_INT(rt_json_int(json,
                             "run_data/0/events/5/debug_event/debug_entry/"
                             "output/bool_val",
                             0),
                 1);
    /* unset chain is stored in the ulong field as 2^64-1 */
    CHECK_EQ_STR(
        rt_json_str(json, "run_data/0/events/0/debug_event/chain_index"),
        "2^64-1");
    CHECK_EQ_INT(
        rt_json_int(json, "run_data/0/events/0/debug_event/instruction_id", -7),
        0);
    {
      long long off0 = rt_json_int(
          json, "run_data/0/events/4/debug_event/debug_entry/tensor/offset",
          -9);
      long long off1 = rt_json_int(
          json, "run_data/0/events/5/debug_event/debug_entry/tensor/offset",
          -9);
      CHECK(off0 >= 0 && off1 > off0);
      if (j != 2) {
        CHECK(memcmp(k->mem + off0, ones6, sizeof ones6) == 0);
        CHECK(((uintptr_t)(k->mem + off1)) % 64 == 0);
      } else {
        CHECK_EQ_INT(off0, 0);
        CHECK_EQ_INT(off1, (long long)sizeof ones6);
      }
    }
  }
}

ETK_TEST_EACH_SINK(debug_event_tensor_list) {
  static const int32_t ints[6] = {1, 1, 1, 1, 1, 1};
  etk_recorder_tensor_t ts[2];
  etk_recorder_value_t v;
  ts[0] = rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, size_3x2, ints, sizeof ints);
  ts[0].scalar_type = ETK_SCALAR_TYPE_INT;
  ts[1] = ts[0];
  sinks_use(rec, k, j);
  v = etk_value_tensor_list(ts, 2);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  {
    FINISH_OR_SKIP(rec, json);
    const char *list =
        "run_data/0/events/0/debug_event/debug_entry/tensor_list/tensors";
    CHECK_EQ_STR(
        rt_json_str(json, "run_data/0/events/0/debug_event/debug_entry/val"),
        "TensorList");
    CHECK_EQ_U64(rt_json_len(json, list), 2);
    CHECK_EQ_STR(rt_json_str(json, json_path(list, "/1/scalar_type")), "INT");
    CHECK(rt_json_int(json, json_path(list, "/1/offset"), -1) > 0);
  }
}

ETK_TEST_EACH_SINK(verify_logging) {
  etk_recorder_tensor_t t =
      rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, size_3x2, ones6, sizeof ones6);
  etk_recorder_value_t v = etk_value_tensor(&t);
  sinks_use(rec, k, j);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  {
    FINISH_OR_SKIP(rec, json);
    const char *e0 = "run_data/0/events/0/debug_event/debug_entry";
    CHECK_EQ_U64(rt_json_len(json, "run_data"), 1);
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/events"), 2);
    CHECK(rt_json_has(json, json_path(e0, "/tensor")));
    CHECK(!rt_json_has(json, json_path(e0, "/output")));
    CHECK_EQ_STR(rt_json_str(json, json_path(e0, "/tensor/scalar_type")),
                 "FLOAT");
    CHECK_EQ_INT(rt_json_int(json, json_path(e0, "/tensor/sizes/0"), 0), 3);
    CHECK_EQ_INT(rt_json_int(json, json_path(e0, "/tensor/sizes/1"), 0), 2);
    CHECK_EQ_INT(rt_json_int(json, json_path(e0, "/tensor/strides/0"), 0), 2);
    CHECK_EQ_INT(
        rt_json_int(json,
                    "run_data/0/events/1/debug_event/debug_entry/output/"
                    "bool_val",
                    0),
        1);
  }
}

ETK_TEST_IN_BLOCK(multiple_blocks_with_events) {
  uint32_t a0, a1;
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "test_allocator_0", &a0), 0);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "test_allocator_1", &a1), 0);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, a0, 64), ETK_OK);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, a1, 128), ETK_OK);
  record_test_event(rec);
  REQUIRE(etk_recorder_begin_block(rec, "test_block_1") == ETK_OK);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "test_allocator_0", &a0), 0);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "test_allocator_1", &a1), 0);
  CHECK_EQ_INT(a0, 1);
  CHECK_EQ_INT(a1, 2);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, a0, 64), ETK_OK);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, a0, 128), ETK_OK);
  record_test_event(rec);
  {
    FINISH_OR_SKIP(rec, json);
    check_dump_blocks(json, rec);
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/allocators"), 2);
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/allocators/0/name"),
                 "test_allocator_0");
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/events"), 3);
    CHECK_EQ_INT(
        rt_json_int(json,
                    "run_data/0/events/0/allocation_event/allocation_size", 0),
        64);
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/events/2/profile_event/name"),
                 "test_event");
    CHECK_EQ_STR(rt_json_str(json, "run_data/1/allocators/1/name"),
                 "test_allocator_1");
  }
}

ETK_TEST_IN_BLOCK(verify_data) {
  etk_recorder_scope_t s;
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "single prof allocator", NULL),
               ETK_OK);
  record_test_event(rec);
  s = etk_recorder_begin_named(rec, "test_event2", 0, 1);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  {
    FINISH_OR_SKIP(rec, json);
    CHECK_EQ_U64(rt_json_len(json, "run_data"), etk_recorder_block_count(rec));
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/name"), "test_block");
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/events/0/profile_event/name"),
                 "test_event");
    CHECK_EQ_INT(
        rt_json_int(json, "run_data/0/events/0/profile_event/chain_index", 9),
        0);
    CHECK_EQ_STR(rt_json_str(json, "run_data/0/allocators/0/name"),
                 "single prof allocator");
  }
}

ETK_TEST_EACH_SINK(log_delegate_intermediate_output) {
  static const float ones20[20] = {0}, ones42[42] = {0};
  static const int64_t s54[2] = {5, 4}, s76[2] = {7, 6};
  etk_recorder_tensor_t t =
      rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, size_3x2, ones6, sizeof ones6);
  etk_recorder_tensor_t list[2];
  etk_recorder_value_t vt, vl, vi, vd, vb;
  list[0] = rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, s54, ones20, sizeof ones20);
  list[1] = rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, s76, ones42, sizeof ones42);
  vt = etk_value_tensor(&t);
  vl = etk_value_tensor_list(list, 2);
  vi = etk_value_int(10);
  vd = etk_value_double(29.82);
  vb = etk_value_bool(1);
  /* upstream aborts when no sink is set */
  CHECK_EQ_INT(etk_recorder_log_delegate_value(rec, "test_event_tensor",
                                               ETK_DELEGATE_ID_UNSET, &vt),
               ETK_E_INVALID_STATE);
  sinks_use(rec, k, j);
  {
    /* both or neither id: InvalidArgument, for every overload; then one
     * event per overload */
    const etk_recorder_value_t vd2 = etk_value_double(20.75);
    const struct {
      const char *name;
      int32_t index;
      const etk_recorder_value_t *value;
      int status;
    } calls[] = {
        {"test_event_tensor", 2589, &vt, ETK_E_INVALID_ARGUMENT},
        {NULL, ETK_DELEGATE_ID_UNSET, &vl, ETK_E_INVALID_ARGUMENT},
        {"test_event_tensor", 2589, &vi, ETK_E_INVALID_ARGUMENT},
        {"test_event_tensor", 2589, &vd, ETK_E_INVALID_ARGUMENT},
        {NULL, ETK_DELEGATE_ID_UNSET, &vb, ETK_E_INVALID_ARGUMENT},
        {"test_event_tensor", ETK_DELEGATE_ID_UNSET, &vt, ETK_OK},
        {"test_event_tensorlist", ETK_DELEGATE_ID_UNSET, &vl, ETK_OK},
        {"test_event_tensorlist", ETK_DELEGATE_ID_UNSET, &vi, ETK_OK},
        {"test_event_tensorlist", ETK_DELEGATE_ID_UNSET, &vd2, ETK_OK},
        {"test_event_tensorlist", ETK_DELEGATE_ID_UNSET, &vb, ETK_OK},
    };
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++)
      CHECK_EQ_INT(etk_recorder_log_delegate_value(
                       rec, calls[c].name, calls[c].index, calls[c].value),
                   calls[c].status);
  }
  {
    FINISH_OR_SKIP(rec, json);
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/events"), 5);
    CHECK_EQ_STR(rt_json_str(json,
                             "run_data/0/events/0/debug_event/"
                             "delegate_debug_id_str"),
                 "test_event_tensor");
    CHECK_EQ_STR(rt_json_str(json,
                             "run_data/0/events/4/debug_event/"
                             "delegate_debug_id_str"),
                 "test_event_tensorlist");
    CHECK_EQ_INT(rt_json_int(json,
                             "run_data/0/events/4/debug_event/"
                             "delegate_debug_id_int",
                             0),
                 -1);
    CHECK(json_real_value(rt_json(json,
                                  "run_data/0/events/3/debug_event/"
                                  "debug_entry/double_value/double_val")) ==
          20.75);
    CHECK_EQ_U64(rt_json_len(json,
                             "run_data/0/events/1/debug_event/debug_entry/"
                             "tensor_list/tensors"),
                 2);
    /* delegate outputs never carry the program-output flag */
    CHECK(!rt_json_has(json,
                       "run_data/0/events/0/debug_event/debug_entry/output"));
  }
}

ETK_TEST_EACH_SINK(verify_delegate_intermediate_logging) {
  static const float z12[12] = {0}, z30[30] = {0};
  static const int64_t s34[2] = {3, 4}, s56[2] = {5, 6};
  etk_recorder_tensor_t a =
      rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, s34, z12, sizeof z12);
  etk_recorder_tensor_t b =
      rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, s56, z30, sizeof z30);
  etk_recorder_value_t va = etk_value_tensor(&a), vb = etk_value_tensor(&b);
  sinks_use(rec, k, j);
  CHECK_EQ_INT(etk_recorder_log_delegate_value(rec, NULL, 257, &va), ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_delegate_value(rec, NULL, 258, &vb), ETK_OK);
  {
    FINISH_OR_SKIP(rec, json);
    const char *e0 = "run_data/0/events/0/debug_event";
    const char *e1 = "run_data/0/events/1/debug_event";
    CHECK_EQ_U64(rt_json_len(json, "run_data"), 1);
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/events"), 2);
    CHECK_EQ_STR(
        rt_json_str(json, json_path(e0, "/debug_entry/tensor/scalar_type")),
        "FLOAT");
    CHECK_EQ_INT(
        rt_json_int(json, json_path(e0, "/debug_entry/tensor/sizes/1"), 0), 4);
    CHECK_EQ_INT(
        rt_json_int(json, json_path(e1, "/debug_entry/tensor/sizes/0"), 0), 5);
    CHECK_EQ_INT(
        rt_json_int(json, json_path(e1, "/debug_entry/tensor/sizes/1"), 0), 6);
    CHECK(!rt_json_has(json, json_path(e1, "/delegate_debug_id_str")));
    CHECK_EQ_INT(rt_json_int(json, json_path(e1, "/delegate_debug_id_int"), 0),
                 258);
  }
}

ETK_TEST_IN_BLOCK(log_delegate_events) {
  static const char metadata[] = "test_metadata";
  etk_recorder_scope_t entry, bad;
  CHECK_EQ_INT(etk_recorder_log_delegate(rec, NULL, 276, 1, 2, NULL, 0), 0);
  CHECK_EQ_INT(etk_recorder_log_delegate(rec, NULL, 278, 1, 2, metadata,
                                         sizeof metadata),
               ETK_OK);
  entry = etk_recorder_begin_delegate(rec, "test_event", ETK_DELEGATE_ID_UNSET);
  CHECK(entry.kind == ETK_SCOPE_DELEGATE_STR);
  CHECK_EQ_INT(
      etk_recorder_end_delegate(rec, &entry, metadata, sizeof metadata),
      ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_delegate(rec, "test_event",
                                         ETK_DELEGATE_ID_UNSET, 1, 2, NULL, 0),
               ETK_OK);
  CHECK_EQ_INT(
      etk_recorder_log_delegate(rec, "test_event", ETK_DELEGATE_ID_UNSET, 1, 2,
                                metadata, sizeof metadata),
      ETK_OK);
  /* the three upstream aborts, as error codes that record nothing */
  bad = etk_recorder_begin_delegate(rec, "test_event", 1);
  CHECK_EQ_INT(bad.kind, ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_end_delegate(rec, &bad, NULL, 0),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_log_delegate(rec, "test_event", 1, 1, 2, NULL, 0),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_end(rec, &entry), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 0);
  {
    FINISH_OR_SKIP(rec, json);
    const char *ev = "run_data/0/events";
    CHECK_EQ_U64(rt_json_len(json, ev), 5);
    CHECK(!rt_json_has(
        json, json_path(ev, "/0/profile_event/delegate_debug_id_str")));
    CHECK_EQ_INT(
        rt_json_int(json,
                    json_path(ev, "/0/profile_event/delegate_debug_id_int"), 0),
        276);
    /* always written, even when empty */
    CHECK(rt_json_has(
        json, json_path(ev, "/0/profile_event/delegate_debug_metadata")));
    CHECK_EQ_U64(
        rt_json_len(json,
                    json_path(ev, "/0/profile_event/delegate_debug_metadata")),
        0);
    CHECK_EQ_INT(
        rt_json_int(json,
                    json_path(ev, "/1/profile_event/delegate_debug_id_int"), 0),
        278);
    CHECK_EQ_U64(
        rt_json_len(json,
                    json_path(ev, "/1/profile_event/delegate_debug_metadata")),
        sizeof metadata);
    {
      json_t *md = rt_json(
          json, json_path(ev, "/1/profile_event/delegate_debug_metadata"));
      char text[sizeof metadata];
      for (size_t i = 0; i < sizeof metadata; i++)
        text[i] = (char)json_integer_value(json_array_get(md, i));
      CHECK(memcmp(text, metadata, sizeof metadata) == 0);
    }
    CHECK_EQ_STR(
        rt_json_str(json,
                    json_path(ev, "/2/profile_event/delegate_debug_id_str")),
        "test_event");
    CHECK_EQ_INT(
        rt_json_int(json,
                    json_path(ev, "/2/profile_event/delegate_debug_id_int"), 0),
        -1);
    CHECK_EQ_INT(
        rt_json_int(json, json_path(ev, "/3/profile_event/start_time"), 0), 1);
    CHECK_EQ_INT(
        rt_json_int(json, json_path(ev, "/3/profile_event/end_time"), 0), 2);
    CHECK(!rt_json_has(json, json_path(ev, "/4/profile_event/name")));
  }
}

ETK_TEST_EACH_MODE(write_after_finish) {
  etk_recorder_t *rec = make(mode);
  REQUIRE(rec != NULL);
  for (int j = 0; j < 2; j++) {
    REQUIRE(etk_recorder_begin_block(rec, "test_block") == ETK_OK);
    record_test_event(rec);
    {
      FINISH_OR_SKIP(rec, json);
      check_dump_blocks(json, rec);
      /* a fresh dump each round: one block, not the previous ones too */
      CHECK_EQ_U64(rt_json_len(json, "run_data"), 1);
    }
  }
}

/* check_log_with_filter of upstream: regex "filtered.*" becomes the glob
 * "filtered*"; the range is [1, 10).  A dump whose block got nothing is the
 * same size as one that never logged; a logged value makes it bigger. */
static void check_log_with_filter(const char *name, int32_t index,
                                  int use_tensor, int expected_log,
                                  int expected_ok) {
  static const float z20[20] = {0}, z42[42] = {0};
  static const int64_t s54[2] = {5, 4}, s76[2] = {7, 6};
  size_t empty_size = 0;
  for (int mode = 0; mode < 2; mode++) {
    etk_recorder_t *rec;
    etk_filter_t filter;
    static uint8_t debug[2048];
    const uint8_t *out;
    size_t len;
    int status;
    /* the size of an empty dump with this block */
    rec = make_in_block(mode);
    REQUIRE(rec != NULL);
    REQUIRE(etk_recorder_finish(rec, &out, &len) == ETK_OK);
    empty_size = len;

    rec = make(mode);
    REQUIRE(rec != NULL);
    etk_filter_init(&filter);
    CHECK_EQ_INT(etk_filter_add_pattern(&filter, "filtered*"), ETK_OK);
    CHECK_EQ_INT(etk_filter_set_range(&filter, 1, 10), ETK_OK);
    etk_recorder_set_filter(rec, &filter);
    REQUIRE(etk_recorder_begin_block(rec, "test_block") == ETK_OK);
    CHECK_EQ_INT(etk_recorder_set_debug_buffer(rec, debug, sizeof debug),
                 ETK_OK);
    if (use_tensor) {
      etk_recorder_tensor_t t =
          rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, size_3x2, ones6, sizeof ones6);
      etk_recorder_value_t v = etk_value_tensor(&t);
      status = etk_recorder_log_delegate_value(rec, name, index, &v);
    } else {
      etk_recorder_tensor_t ts[2];
      etk_recorder_value_t v;
      ts[0] = rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, s54, z20, sizeof z20);
      ts[1] = rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, s76, z42, sizeof z42);
      v = etk_value_tensor_list(ts, 2);
      status = etk_recorder_log_delegate_value(rec, name, index, &v);
    }
    if (expected_ok)
      CHECK_EQ_INT(status, expected_log ? ETK_OK : ETK_RECORDER_FILTERED);
    else
      CHECK_EQ_INT(status, ETK_E_INVALID_ARGUMENT);
    REQUIRE(etk_recorder_finish(rec, &out, &len) == ETK_OK);
    CHECK_EQ_INT(rt_verify(out, len, NULL), ETK_OK);
    if (expected_log)
      CHECK(len != empty_size);
    else
      CHECK_EQ_U64(len, empty_size);
  }
}

ETK_TEST(log_with_regex_and_unset_delegate_debug_id_on_tensor) {
  check_log_with_filter("filtered_event", ETK_DELEGATE_ID_UNSET, 1, 0, 1);
}

ETK_TEST(log_with_regex_and_unset_delegate_debug_id_on_tensor_list) {
  /* upstream's variant logs a single tensor; this one really logs a list */
  check_log_with_filter("filtered_event", ETK_DELEGATE_ID_UNSET, 0, 0, 1);
}

ETK_TEST(log_with_nullptr_and_in_range) {
  check_log_with_filter(NULL, 5, 1, 0, 1);
}

ETK_TEST(log_with_non_matching_regex_and_out_of_range) {
  check_log_with_filter("unfiltered_event", ETK_DELEGATE_ID_UNSET, 1, 1, 1);
}

ETK_TEST(log_with_nullptr_and_out_of_range) {
  check_log_with_filter(NULL, 20, 1, 1, 1);
}

ETK_TEST(log_with_regex_and_in_range) {
  check_log_with_filter("filtered_event", 5, 1, 0, 0);
}

ETK_TEST(log_with_nullptr_and_unset_debug_handle) {
  check_log_with_filter(NULL, ETK_DELEGATE_ID_UNSET, 1, 0, 0);
}

ETK_TEST(allocator_overrun_does_not_abort) {
  /* upstream: a 300 KiB static buffer and 100k events abort with
   * "ETDump .* out of memory".  Here: the events that fit are kept, the
   * rest is counted, and the dump is valid. */
  static uint64_t small[300u * 1024u / 8u];
  rt_clock_t c;
  etk_recorder_t *rec;
  etk_recorder_name_t name;
  uint32_t accepted = 0;
  memset(&c, 0, sizeof c);
  rec = rt_make(small, sizeof small, &c);
  REQUIRE(rec != NULL);
  name = etk_recorder_intern(rec, "test_event");
  REQUIRE(etk_recorder_begin_block(rec, "test_block") == ETK_OK);
  for (int j = 0; j < 100000; j++) {
    etk_recorder_scope_t s = etk_recorder_begin_at(rec, name, 0, 1);
    if (etk_recorder_end(rec, &s) == ETK_OK) accepted++;
  }
  CHECK(accepted > 3000);
  CHECK_EQ_U64(etk_recorder_dropped(rec), 100000u - accepted);
  {
    FINISH_OR_SKIP(rec, json);
    char marker[64];
    snprintf(marker, sizeof marker, "etkit:dropped_events=%u",
             100000u - accepted);
    CHECK_EQ_U64(rt_json_len(json, "run_data"), 2);
    CHECK_EQ_U64(rt_json_len(json, "run_data/0/events"), accepted);
    CHECK_EQ_STR(rt_json_str(json, "run_data/1/name"), marker);
    CHECK(!rt_json_has(json, "run_data/1/events"));
    release_dump();
  }
}

ETK_TEST_MAIN()
