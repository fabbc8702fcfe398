/*
 * test_recorder_conformance.c - the recorder against upstream's real files.
 *
 * 1. Golden replay: each upstream ETDump in ../shared/conformance/ (made by
 *    upstream's flatcc writer) is decoded by flatc, its call sequence is
 *    replayed through the recorder API, and our dump, decoded by flatc the
 *    same way, must be the SAME JSON (logical equality with defaults filled
 *    in, the compatibility level upstream's own Inspector relies on).
 * 2. Field presence, read back with etkit's accessors: the rules readers
 *    depend on (instruction_id always written, chain_index 0 skipped,
 *    delegate metadata always written, unset DebugEvent chain = 2^64-1,
 *    version absent, bundled_input_index present only when set, empty vs
 *    absent events).
 * 3. Sharing: our file for the tutorial run is smaller than upstream's, and
 *    each repeated name is stored once.
 */
#include <stdio.h>
#include <string.h>

#include "recorder_testutil.h"

static uint64_t arena[256u * 1024u / 8u];

static void replay_golden(const char *name) {
  const char *path = etk_test_conformance_path(name);
  unsigned char *golden;
  size_t golden_len;
  json_t *want, *got;
  rt_clock_t c;
  etk_recorder_t *rec;
  const uint8_t *out;
  size_t len;
  int status;
  if (path == NULL) ETK_SKIP("conformance file absent");
  if (!rt_have_flatc()) ETK_SKIP("flatc not available");
  golden = etk_test_read_file(path, &golden_len);
  REQUIRE(golden != NULL);
  /* upstream's bytes pass our verifier too */
  CHECK_EQ_INT(rt_verify(golden, golden_len, NULL), ETK_OK);
  want = rt_flatc_decode_file(path);
  REQUIRE(want != NULL);
  memset(&c, 0, sizeof c);
  rec = rt_make(arena, sizeof arena, &c);
  REQUIRE(rec != NULL);
  status = rt_replay(rec, &c, want);
  CHECK_EQ_INT(status, ETK_OK);
  REQUIRE(etk_recorder_finish(rec, &out, &len) == ETK_OK);
  CHECK_EQ_INT(rt_verify(out, len, NULL), ETK_OK);
  got = rt_flatc_decode(out, len);
  REQUIRE(got != NULL);
  if (!json_equal(want, got)) {
    char *a = json_dumps(want, JSON_COMPACT),
         *b = json_dumps(got, JSON_COMPACT);
    printf("# want %.600s\n# got  %.600s\n", a, b);
    free(a);
    free(b);
    CHECK(0);
  }
  printf("# %s: upstream %zu bytes, etkit %zu bytes\n", name, golden_len, len);
  json_decref(want);
  json_decref(got);
  free(golden);
}

ETK_TEST(golden_tutorial) {
  replay_golden("etdump_tutorial.etdp");
}
ETK_TEST(golden_empty_block) {
  replay_golden("golden_empty_block.etdp");
}
ETK_TEST(golden_allocators) {
  replay_golden("golden_allocators.etdp");
}
ETK_TEST(golden_debug_events) {
  replay_golden("golden_debug_events.etdp");
}
ETK_TEST(golden_delegate_events) {
  replay_golden("golden_delegate_events.etdp");
}

/* Every member of `a` is in `b` with the same value (b may have more keys:
 * scalars that --defaults-json adds). */
static int json_subset(json_t *a, json_t *b) {
  if (json_is_object(a)) {
    const char *key;
    json_t *value;
    if (!json_is_object(b)) return 0;
    json_object_foreach(a, key, value) {
      if (!json_subset(value, json_object_get(b, key))) return 0;
    }
    return 1;
  }
  if (json_is_array(a)) {
    if (!json_is_array(b) || json_array_size(a) != json_array_size(b)) return 0;
    for (size_t i = 0; i < json_array_size(a); i++)
      if (!json_subset(json_array_get(a, i), json_array_get(b, i))) return 0;
    return 1;
  }
  return json_equal(a, b);
}

ETK_TEST(tutorial_json_matches_shipped_decoding) {
  /* the flatc decoding shipped with the tutorial (made without
   * --defaults-json) agrees with a fresh one, so the replay above compares
   * against what upstream's tools see */
  char etdp[1024], jpath[1024];
  const char *p;
  json_t *fresh, *shipped;
  json_error_t err;
  unsigned char *text;
  size_t n;
  /* the harness returns one static buffer: copy each path */
  if ((p = etk_test_conformance_path("etdump_tutorial.etdp")) == NULL)
    ETK_SKIP("conformance file absent");
  snprintf(etdp, sizeof etdp, "%s", p);
  if ((p = etk_test_conformance_path("etdump_tutorial.json")) == NULL)
    ETK_SKIP("conformance file absent");
  snprintf(jpath, sizeof jpath, "%s", p);
  if (!rt_have_flatc()) ETK_SKIP("flatc not available");
  fresh = rt_flatc_decode_file(etdp);
  REQUIRE(fresh != NULL);
  text = etk_test_read_file(jpath, &n);
  REQUIRE(text != NULL);
  shipped = json_loadb((const char *)text, n, 0, &err);
  free(text);
  REQUIRE(shipped != NULL);
  CHECK_EQ_U64(json_array_size(json_object_get(shipped, "run_data")),
               json_array_size(json_object_get(fresh, "run_data")));
  CHECK(json_subset(shipped, fresh));
  json_decref(fresh);
  json_decref(shipped);
}

/* ---------------------------------------------------------------- presence */

static etk_fb_table_t event_sub(const uint8_t *buf, etk_fb_table_t run,
                                uint32_t i, unsigned field) {
  etk_fb_vector_t events = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
  etk_fb_table_t ev = etk_fb_vector_table(buf, events, i);
  return etk_fb_get_table(ev, field);
}

ETK_TEST(field_presence_rules) {
  static uint8_t debug[256];
  static const float data[2] = {1, 2};
  static const int64_t sizes[1] = {2};
  rt_clock_t c;
  etk_recorder_t *rec;
  etk_recorder_scope_t s;
  etk_recorder_tensor_t t;
  etk_recorder_value_t v;
  const uint8_t *out;
  size_t len;
  uint32_t root;
  etk_fb_table_t dump, run0, run1, pe, de, val, ten;
  etk_fb_vector_t runs;
  memset(&c, 0, sizeof c);
  rec = rt_make(arena, sizeof arena, &c);
  REQUIRE(rec != NULL);
  REQUIRE(etk_recorder_begin_block(rec, "Default") == ETK_OK);
  /* event 0: outside any instruction (chain -1, handle 0) */
  s = etk_recorder_begin_named(rec, "Method::init", -1, 0);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  /* event 1: instruction 0 of chain 0 */
  etk_recorder_set_chain_debug_handle(rec, 0, 0);
  s = etk_recorder_begin_named(rec, "OPERATOR_CALL", -1, 0);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  /* event 2: delegate, empty metadata */
  CHECK_EQ_INT(etk_recorder_log_delegate(rec, NULL, 3, 5, 6, NULL, 0), ETK_OK);
  /* event 3: tensor with no bytes, outside instructions */
  etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET, 0);
  t = rt_tensor(ETK_SCALAR_TYPE_BYTE, 1, sizes, NULL, 0);
  v = etk_value_tensor(&t);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  /* event 4: tensor in chain 0, instruction 7 */
  etk_recorder_set_debug_buffer(rec, debug, sizeof debug);
  etk_recorder_set_chain_debug_handle(rec, 0, 7);
  t.scalar_type = ETK_SCALAR_TYPE_FLOAT;
  t.data = data;
  t.nbytes = sizeof data;
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  /* block 1: bundled input index set, events opened but empty */
  etk_recorder_set_bundled_input_index(rec, 2);
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  s = etk_recorder_begin_delegate(rec, NULL, 9); /* opens the events */
  CHECK_EQ_INT(s.kind, ETK_SCOPE_DELEGATE_INT);
  REQUIRE(etk_recorder_finish(rec, &out, &len) == ETK_OK);
  REQUIRE(rt_verify(out, len, &root) == ETK_OK);

  dump = etk_fb_root(out, root);
  CHECK(!etk_fb_has(dump, ETK_ETDUMP_VERSION));
  runs = etk_fb_get_vector(dump, ETK_ETDUMP_RUN_DATA);
  REQUIRE(runs.count == 2);
  run0 = etk_fb_vector_table(out, runs, 0);
  run1 = etk_fb_vector_table(out, runs, 1);
  CHECK(!etk_fb_has(run0, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX));
  CHECK(!etk_fb_has(run0, ETK_ETDUMP_RUN_DATA_ALLOCATORS));
  /* B1 fixed: the index is written */
  CHECK(etk_fb_has(run1, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX));
  CHECK_EQ_INT(
      etk_fb_get_i32(run1, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX, -1), 2);
  CHECK(etk_fb_has(run1, ETK_ETDUMP_RUN_DATA_EVENTS));
  CHECK_EQ_INT(etk_fb_get_vector(run1, ETK_ETDUMP_RUN_DATA_EVENTS).count, 0);

  pe = event_sub(out, run0, 0, ETK_ETDUMP_EVENT_PROFILE_EVENT);
  CHECK(etk_fb_has(pe, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX));
  CHECK_EQ_INT(etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0), -1);
  CHECK(etk_fb_has(pe, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID));
  CHECK_EQ_INT(etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, -1),
               0);
  CHECK(!etk_fb_has(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA));
  CHECK(!etk_fb_has(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT));

  pe = event_sub(out, run0, 1, ETK_ETDUMP_EVENT_PROFILE_EVENT);
  CHECK(!etk_fb_has(pe, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX)); /* 0 skipped */
  CHECK(etk_fb_has(pe, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID));
  CHECK_EQ_STR(etk_fb_get_string(pe, ETK_ETDUMP_PROFILE_EVENT_NAME).data,
               "OPERATOR_CALL");

  pe = event_sub(out, run0, 2, ETK_ETDUMP_EVENT_PROFILE_EVENT);
  CHECK(etk_fb_has(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA));
  CHECK_EQ_INT(
      etk_fb_get_vector(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA)
          .count,
      0);
  CHECK_EQ_INT(
      etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, -1),
      3);
  CHECK(!etk_fb_has(pe, ETK_ETDUMP_PROFILE_EVENT_NAME));
  CHECK_EQ_U64(etk_fb_get_u64(pe, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 0), 5);

  de = event_sub(out, run0, 3, ETK_ETDUMP_EVENT_DEBUG_EVENT);
  CHECK_EQ_U64(etk_fb_get_u64(de, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX, 0),
               UINT64_MAX);
  CHECK(etk_fb_has(de, ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID));
  CHECK(!etk_fb_has(de, ETK_ETDUMP_DEBUG_EVENT_NAME));
  val = etk_fb_get_table(de, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY);
  CHECK_EQ_INT(etk_fb_get_i8(val, ETK_ETDUMP_VALUE_VAL, 0),
               ETK_ETDUMP_VALUE_TYPE_TENSOR);
  CHECK(!etk_fb_has(val, ETK_ETDUMP_VALUE_OUTPUT));
  ten = etk_fb_get_table(val, ETK_ETDUMP_VALUE_TENSOR);
  CHECK_EQ_INT(etk_fb_get_i64(ten, ETK_ETDUMP_TENSOR_OFFSET, 0), -1);
  CHECK_EQ_INT(etk_fb_get_vector(ten, ETK_ETDUMP_TENSOR_STRIDES).count, 1);

  de = event_sub(out, run0, 4, ETK_ETDUMP_EVENT_DEBUG_EVENT);
  CHECK(!etk_fb_has(de, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX));
  CHECK_EQ_INT(etk_fb_get_i32(de, ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID, -1),
               7);
  ten =
      etk_fb_get_table(etk_fb_get_table(de, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY),
                       ETK_ETDUMP_VALUE_TENSOR);
  CHECK_EQ_INT(etk_fb_get_i8(ten, ETK_ETDUMP_TENSOR_SCALAR_TYPE, 0),
               ETK_SCALAR_TYPE_FLOAT);
  CHECK(memcmp(debug + etk_fb_get_i64(ten, ETK_ETDUMP_TENSOR_OFFSET, 0), data,
               sizeof data) == 0);
}

/* ---------------------------------------------------------------- sharing */

static size_t count_occurrences(const uint8_t *buf, size_t len,
                                const char *needle) {
  size_t n = strlen(needle), count = 0;
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(buf + i, needle, n) == 0) count++;
  return count;
}

ETK_TEST(tutorial_smaller_than_upstream_and_strings_shared) {
  const char *path = etk_test_conformance_path("etdump_tutorial.etdp");
  json_t *want;
  rt_clock_t c;
  etk_recorder_t *rec;
  const uint8_t *out;
  size_t len, golden_len;
  unsigned char *golden;
  if (path == NULL) ETK_SKIP("conformance file absent");
  if (!rt_have_flatc()) ETK_SKIP("flatc not available");
  golden = etk_test_read_file(path, &golden_len);
  REQUIRE(golden != NULL);
  want = rt_flatc_decode_file(path);
  REQUIRE(want != NULL);
  memset(&c, 0, sizeof c);
  rec = rt_make(arena, sizeof arena, &c);
  REQUIRE(rec != NULL);
  REQUIRE(rt_replay(rec, &c, want) == ETK_OK);
  REQUIRE(etk_recorder_finish(rec, &out, &len) == ETK_OK);
  CHECK_EQ_U64(count_occurrences(golden, golden_len, "OPERATOR_CALL"), 14);
  CHECK_EQ_U64(count_occurrences(out, len, "OPERATOR_CALL"), 1);
  CHECK(len < golden_len);
  printf("# tutorial: upstream %zu B, etkit %zu B\n", golden_len, len);
  json_decref(want);
  free(golden);
}

ETK_TEST_MAIN()
