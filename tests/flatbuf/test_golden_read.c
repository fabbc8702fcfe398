/*
 * test_golden_read.c - upstream's real ETDumps (../shared/conformance, read
 * in place) pass our verifier and read back, through our accessors, to the
 * same logical content flatc sees.
 *
 * The tutorial dump is compared field by field with etdump_tutorial.json
 * (upstream's own flatc decoding) and spot-checked against the facts in
 * docs etdump-recorder.md 2.3; the golden_*.etdp files are compared with
 * flatc's decoding made at test time (skipped without flatc) and
 * spot-checked against the scenario each was written for.
 */
#include <stdlib.h>

#include "etk_test.h"
#include "etkit/schema.h"
#include "flatc_run.h"
#include "schema_json_check.h"

static const etk_fb_verify_options_t etdump_options = {
    .ident = ETK_ETDUMP_FILE_IDENTIFIER, .size_prefixed = 1};

/* A conformance ETDump that passed the verifier, and its root table. */
typedef struct golden {
  unsigned char *bytes;
  size_t len;
  etk_fb_table_t root;
} golden_t;

/* Loads and verifies the conformance file `name` into *g (the caller frees
 * g->bytes).  0 when the case cannot go on: the file is absent (the case is
 * marked skipped) or cannot be read or verified (marked failed, after a
 * "# ..." line). */
static int load_verified(const char *name, golden_t *g) {
  const char *path = etk_test_conformance_path(name);
  if (!path) {
    printf("# skip: %s absent\n", name);
    etk_test_skipped_ = 1;
    return 0;
  }
  g->bytes = etk_test_read_file(path, &g->len);
  if (!g->bytes) {
    printf("# %s: cannot be read\n", name);
    etk_test_failed_ = 1;
    return 0;
  }
  uint32_t root_pos = 0;
  etk_fb_verify_error_t err;
  int rc = etk_fb_verify(g->bytes, g->len, &etk_etdump_schema, &etdump_options,
                         &root_pos, &err);
  if (rc != ETK_OK) {
    printf("# %s: %s at %u (%s.%s)\n", name, etk_status_name(rc),
           (unsigned)err.offset, err.table ? err.table : "-",
           err.field ? err.field : "-");
    free(g->bytes);
    etk_test_failed_ = 1;
    return 0;
  }
  g->root = etk_fb_root(g->bytes, root_pos);
  return 1;
}

/* The first RunData of the dump. */
static etk_fb_table_t first_run(const golden_t *g) {
  return etk_fb_vector_table(
      g->bytes, etk_fb_get_vector(g->root, ETK_ETDUMP_RUN_DATA), 0);
}

static etk_fb_table_t profile_event_at(etk_fb_table_t run, uint32_t i) {
  etk_fb_vector_t events = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
  etk_fb_table_t event = etk_fb_vector_table(run.buf, events, i);
  return etk_fb_get_table(event, ETK_ETDUMP_EVENT_PROFILE_EVENT);
}

ETK_TEST(tutorial_matches_upstream_json) {
  if (!etk_test_conformance_path("etdump_tutorial.etdp") ||
      !etk_test_conformance_path("etdump_tutorial.json"))
    ETK_SKIP("conformance files absent");
  golden_t g;
  if (!load_verified("etdump_tutorial.etdp", &g)) return;
  CHECK_EQ_U64(g.len, 2320);
  json_node_t *json =
      schema_json_load(etk_test_conformance_path("etdump_tutorial.json"));
  REQUIRE(json != NULL);
  CHECK_EQ_INT(schema_json_check(g.root, &etk_etdump_schema, json, "ETDump"),
               0);
  json_free(json);
  free(g.bytes);
}

ETK_TEST(tutorial_spot_values) {
  golden_t g;
  if (!load_verified("etdump_tutorial.etdp", &g)) return;
  CHECK(!etk_fb_has(g.root, ETK_ETDUMP_VERSION));
  CHECK_EQ_U64(etk_fb_get_u32(g.root, ETK_ETDUMP_VERSION, 0), 0);
  etk_fb_vector_t runs = etk_fb_get_vector(g.root, ETK_ETDUMP_RUN_DATA);
  REQUIRE(runs.count == 2);
  etk_fb_table_t run0 = etk_fb_vector_table(g.bytes, runs, 0);
  etk_fb_table_t run1 = etk_fb_vector_table(g.bytes, runs, 1);
  CHECK_EQ_STR(etk_fb_get_string(run0, ETK_ETDUMP_RUN_DATA_NAME).data,
               "Default");
  CHECK_EQ_STR(etk_fb_get_string(run1, ETK_ETDUMP_RUN_DATA_NAME).data,
               "Execute");
  CHECK_EQ_INT(etk_fb_get_i32(run0, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX,
                              ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX_DEFAULT),
               -1);
  CHECK(etk_fb_get_vector(run0, ETK_ETDUMP_RUN_DATA_ALLOCATORS).data == NULL);
  CHECK_EQ_INT(etk_fb_get_vector(run0, ETK_ETDUMP_RUN_DATA_EVENTS).count, 2);
  CHECK_EQ_INT(etk_fb_get_vector(run1, ETK_ETDUMP_RUN_DATA_EVENTS).count, 29);

  etk_fb_table_t init = profile_event_at(run0, 0);
  CHECK_EQ_STR(etk_fb_get_string(init, ETK_ETDUMP_PROFILE_EVENT_NAME).data,
               "Method::init");
  CHECK_EQ_INT(etk_fb_get_i32(init, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0),
               -1);
  CHECK_EQ_INT(
      etk_fb_get_i32(init, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, -1), 0);
  CHECK_EQ_U64(etk_fb_get_u64(init, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 0),
               399054);
  CHECK_EQ_U64(etk_fb_get_u64(init, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 0),
               421538);

  int operator_calls = 0;
  for (uint32_t i = 0; i < 28; i++) {
    etk_fb_table_t e = profile_event_at(run1, i);
    etk_fb_string_t name = etk_fb_get_string(e, ETK_ETDUMP_PROFILE_EVENT_NAME);
    /* pairs native_call_X, OPERATOR_CALL with instruction i/2, chain 0 */
    CHECK_EQ_INT(etk_fb_get_i32(e, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, -1),
                 (int)(i / 2));
    CHECK(!etk_fb_has(e, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX));
    if (name.data && strcmp(name.data, "OPERATOR_CALL") == 0) operator_calls++;
    CHECK(i % 2 == 1 || strncmp(name.data, "native_call_", 12) == 0);
  }
  CHECK_EQ_INT(operator_calls, 14);
  etk_fb_table_t exec = profile_event_at(run1, 28);
  CHECK_EQ_STR(etk_fb_get_string(exec, ETK_ETDUMP_PROFILE_EVENT_NAME).data,
               "Method::execute");
  CHECK_EQ_U64(etk_fb_get_u64(exec, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 0),
               425313);
  CHECK_EQ_U64(etk_fb_get_u64(exec, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 0),
               2324134);
  free(g.bytes);
}

/* Compares a golden file with flatc's decoding of it. */
static void check_against_flatc(const char *name) {
  golden_t g;
  if (!load_verified(name, &g)) return;
  if (!flatc_path()) {
    free(g.bytes);
    ETK_SKIP("flatc not found");
  }
  for (int defaults = 0; defaults <= 1; defaults++) {
    const char *json_path = flatc_binary_to_json(g.bytes, g.len, defaults);
    REQUIRE(json_path != NULL);
    json_node_t *json = schema_json_load(json_path);
    REQUIRE(json != NULL);
    CHECK_EQ_INT(schema_json_check(g.root, &etk_etdump_schema, json, name), 0);
    json_free(json);
  }
  free(g.bytes);
}

ETK_TEST(golden_empty_block_matches_flatc) {
  check_against_flatc("golden_empty_block.etdp");
}
ETK_TEST(golden_allocators_matches_flatc) {
  check_against_flatc("golden_allocators.etdp");
}
ETK_TEST(golden_debug_events_matches_flatc) {
  check_against_flatc("golden_debug_events.etdp");
}
ETK_TEST(golden_delegate_events_matches_flatc) {
  check_against_flatc("golden_delegate_events.etdp");
}
ETK_TEST(tutorial_matches_flatc) {
  check_against_flatc("etdump_tutorial.etdp");
}

ETK_TEST(golden_empty_block_spot_values) {
  golden_t g;
  if (!load_verified("golden_empty_block.etdp", &g)) return;
  CHECK_EQ_U64(g.len, 68);
  etk_fb_vector_t runs = etk_fb_get_vector(g.root, ETK_ETDUMP_RUN_DATA);
  REQUIRE(runs.count == 1);
  etk_fb_table_t run = etk_fb_vector_table(g.bytes, runs, 0);
  CHECK_EQ_STR(etk_fb_get_string(run, ETK_ETDUMP_RUN_DATA_NAME).data,
               "test_block");
  /* a block that never had an event has no events field at all */
  CHECK(!etk_fb_has(run, ETK_ETDUMP_RUN_DATA_EVENTS));
  CHECK(etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS).data == NULL);
  free(g.bytes);
}

ETK_TEST(golden_allocators_spot_values) {
  golden_t g;
  if (!load_verified("golden_allocators.etdp", &g)) return;
  etk_fb_table_t run = first_run(&g);
  etk_fb_vector_t allocators =
      etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_ALLOCATORS);
  REQUIRE(allocators.count == 2);
  CHECK_EQ_STR(etk_fb_get_string(etk_fb_vector_table(g.bytes, allocators, 1),
                                 ETK_ETDUMP_ALLOCATOR_NAME)
                   .data,
               "test_allocator_1");
  etk_fb_vector_t events = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
  REQUIRE(events.count == 3);
  etk_fb_table_t alloc =
      etk_fb_get_table(etk_fb_vector_table(g.bytes, events, 1),
                       ETK_ETDUMP_EVENT_ALLOCATION_EVENT);
  CHECK_EQ_INT(
      etk_fb_get_i32(alloc, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID, 0), 2);
  CHECK_EQ_U64(
      etk_fb_get_u64(alloc, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE, 0),
      128);
  CHECK(!etk_fb_table_present(
      etk_fb_get_table(etk_fb_vector_table(g.bytes, events, 1),
                       ETK_ETDUMP_EVENT_PROFILE_EVENT)));
  free(g.bytes);
}

ETK_TEST(golden_debug_events_spot_values) {
  golden_t g;
  if (!load_verified("golden_debug_events.etdp", &g)) return;
  etk_fb_table_t run = first_run(&g);
  etk_fb_vector_t events = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
  REQUIRE(events.count == 4);
  etk_fb_table_t out = etk_fb_get_table(etk_fb_vector_table(g.bytes, events, 2),
                                        ETK_ETDUMP_EVENT_DEBUG_EVENT);
  CHECK_EQ_U64(etk_fb_get_u64(out, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX, 0),
               UINT64_MAX);
  etk_fb_table_t value =
      etk_fb_get_table(out, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY);
  CHECK_EQ_INT(etk_fb_get_i8(value, ETK_ETDUMP_VALUE_VAL, 0),
               ETK_ETDUMP_VALUE_TYPE_TENSOR);
  CHECK_EQ_INT(etk_fb_get_u8(etk_fb_get_table(value, ETK_ETDUMP_VALUE_OUTPUT),
                             ETK_ETDUMP_BOOL_BOOL_VAL, 0),
               1);
  etk_fb_table_t tensor = etk_fb_get_table(value, ETK_ETDUMP_VALUE_TENSOR);
  CHECK_EQ_INT(etk_fb_get_i8(tensor, ETK_ETDUMP_TENSOR_SCALAR_TYPE, 0),
               ETK_SCALAR_TYPE_FLOAT);
  CHECK_EQ_INT(etk_fb_get_i64(tensor, ETK_ETDUMP_TENSOR_OFFSET, 0), 64);
  etk_fb_vector_t sizes = etk_fb_get_vector(tensor, ETK_ETDUMP_TENSOR_SIZES);
  REQUIRE(sizes.count == 2);
  CHECK_EQ_INT((int64_t)etk_fb_load_u64(sizes.data), 3);
  CHECK_EQ_INT((int64_t)etk_fb_load_u64(sizes.data + 8), 2);
  etk_fb_table_t int_event = etk_fb_get_table(
      etk_fb_vector_table(g.bytes, events, 1), ETK_ETDUMP_EVENT_DEBUG_EVENT);
  etk_fb_table_t int_value = etk_fb_get_table(
      etk_fb_get_table(int_event, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY),
      ETK_ETDUMP_VALUE_INT_VALUE);
  CHECK_EQ_INT(etk_fb_get_i64(int_value, ETK_ETDUMP_INT_INT_VAL, 0), 5);
  free(g.bytes);
}

ETK_TEST(golden_delegate_events_spot_values) {
  golden_t g;
  if (!load_verified("golden_delegate_events.etdp", &g)) return;
  etk_fb_table_t run = first_run(&g);
  etk_fb_table_t e0 = profile_event_at(run, 0), e1 = profile_event_at(run, 1),
                 e2 = profile_event_at(run, 2);
  CHECK_EQ_INT(
      etk_fb_get_i32(e0, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, -1),
      276);
  etk_fb_vector_t meta0 =
      etk_fb_get_vector(e0, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA);
  CHECK(meta0.data != NULL); /* present but empty */
  CHECK_EQ_INT(meta0.count, 0);
  etk_fb_vector_t meta1 =
      etk_fb_get_vector(e1, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA);
  REQUIRE(meta1.count == 14);
  CHECK_EQ_MEM(meta1.data, "test_metadata", 14);
  CHECK_EQ_STR(
      etk_fb_get_string(e2, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR)
          .data,
      "test_event");
  CHECK_EQ_INT(
      etk_fb_get_i32(e2, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, -1),
      -1);
  free(g.bytes);
}

ETK_TEST_MAIN()
