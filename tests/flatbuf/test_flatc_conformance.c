/*
 * test_flatc_conformance.c - flatc (Debian flatbuffers-compiler) and etkit
 * agree on ETDump bytes, in both directions.
 *
 * (a) our builder -> flatc: each fixture in fixtures/ (hand-written JSON
 *     setting every ETDump table and field between them) is encoded with
 *     etkit's builder (schema_json_build), verified by our verifier, decoded
 *     by `flatc --json`, and flatc's JSON must match what our accessors read,
 *     which must match the fixture.
 * (b) flatc -> our reader: each fixture is encoded by `flatc -b
 *     --size-prefixed`; our verifier must accept it and our accessors must
 *     read back the fixture's values.
 * Spot checks with literal values guard against the two directions sharing
 * a mistake (e.g. a descriptor naming the wrong field).  Also checks that
 * the comparison itself notices differences.
 */
#include <stdlib.h>

#include "etk_test.h"
#include "etkit/schema.h"
#include "flatc_run.h"
#include "schema_json_build.h"
#include "schema_json_check.h"

static const char *const fixtures[] = {
    "etdump_every_field.json", "etdump_blocks.json", "etdump_empty_root.json"};

static const char *fixture_path(const char *name) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/tests/flatbuf/fixtures/%s", ETKIT_SOURCE_DIR,
           name);
  return path;
}

static const etk_fb_verify_options_t etdump_options = {
    .ident = ETK_ETDUMP_FILE_IDENTIFIER, .size_prefixed = 1};

static int verify_etdump(const uint8_t *bytes, size_t len,
                         etk_fb_table_t *root) {
  uint32_t pos = 0;
  etk_fb_verify_error_t err;
  int rc = etk_fb_verify(bytes, len, &etk_etdump_schema, &etdump_options, &pos,
                         &err);
  if (rc != ETK_OK)
    printf("# verify: %s at %u (%s.%s)\n", etk_status_name(rc),
           (unsigned)err.offset, err.table ? err.table : "-",
           err.field ? err.field : "-");
  *root = etk_fb_root(bytes, pos);
  return rc;
}

/* Literal expectations on etdump_every_field.json, read with accessors. */
static void spot_check_every_field(etk_fb_table_t root) {
  const uint8_t *buf = root.buf;
  CHECK_EQ_U64(etk_fb_get_u32(root, ETK_ETDUMP_VERSION, 0), 3);
  etk_fb_vector_t runs = etk_fb_get_vector(root, ETK_ETDUMP_RUN_DATA);
  REQUIRE(runs.count == 4);
  etk_fb_table_t run = etk_fb_vector_table(buf, runs, 0);
  CHECK_EQ_INT(etk_fb_get_i32(run, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX, -1),
               2);
  etk_fb_vector_t allocators =
      etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_ALLOCATORS);
  REQUIRE(allocators.count == 2);
  etk_fb_string_t empty = etk_fb_get_string(
      etk_fb_vector_table(buf, allocators, 1), ETK_ETDUMP_ALLOCATOR_NAME);
  CHECK(empty.data != NULL);
  CHECK_EQ_INT(empty.len, 0);
  etk_fb_vector_t events = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
  REQUIRE(events.count == 11);
  etk_fb_table_t pe = etk_fb_get_table(etk_fb_vector_table(buf, events, 0),
                                       ETK_ETDUMP_EVENT_PROFILE_EVENT);
  CHECK_EQ_INT(etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0), -1);
  CHECK_EQ_INT(etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, -1),
               7);
  CHECK_EQ_INT(
      etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, -1),
      12);
  CHECK_EQ_STR(
      etk_fb_get_string(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR)
          .data,
      "delegate.op #1");
  etk_fb_vector_t meta =
      etk_fb_get_vector(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA);
  REQUIRE(meta.count == 5);
  CHECK_EQ_MEM(meta.data, "\x00\x01\x7f\x80\xff", 5);
  CHECK_EQ_U64(etk_fb_get_u64(pe, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 0),
               UINT64_MAX);
  CHECK_EQ_U64(etk_fb_get_u64(pe, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 0), 42);
  etk_fb_table_t ae = etk_fb_get_table(etk_fb_vector_table(buf, events, 1),
                                       ETK_ETDUMP_EVENT_ALLOCATION_EVENT);
  CHECK_EQ_INT(etk_fb_get_i32(ae, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID, 0),
               INT32_MIN);
  CHECK_EQ_U64(
      etk_fb_get_u64(ae, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE, 0), 4096);
  etk_fb_table_t de = etk_fb_get_table(etk_fb_vector_table(buf, events, 2),
                                       ETK_ETDUMP_EVENT_DEBUG_EVENT);
  CHECK_EQ_U64(etk_fb_get_u64(de, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX, 0),
               UINT64_MAX);
  CHECK_EQ_STR(etk_fb_get_string(de, ETK_ETDUMP_DEBUG_EVENT_NAME).data, "conv");
  CHECK_EQ_STR(
      etk_fb_get_string(de, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR).data,
      "dbg");
  CHECK_EQ_INT(
      etk_fb_get_i32(de, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT, -1), 5);
  etk_fb_table_t value =
      etk_fb_get_table(de, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY);
  CHECK_EQ_INT(etk_fb_get_i8(value, ETK_ETDUMP_VALUE_VAL, 0),
               ETK_ETDUMP_VALUE_TYPE_TENSOR);
  etk_fb_table_t tensor = etk_fb_get_table(value, ETK_ETDUMP_VALUE_TENSOR);
  CHECK_EQ_INT(etk_fb_get_i8(tensor, ETK_ETDUMP_TENSOR_SCALAR_TYPE, 0),
               ETK_SCALAR_TYPE_FLOAT);
  CHECK_EQ_INT(etk_fb_get_i64(tensor, ETK_ETDUMP_TENSOR_OFFSET, 0), 128);
  etk_fb_vector_t strides =
      etk_fb_get_vector(tensor, ETK_ETDUMP_TENSOR_STRIDES);
  REQUIRE(strides.count == 2);
  CHECK_EQ_U64(etk_fb_load_u64(strides.data), 3);
  /* the TensorList event */
  etk_fb_table_t list = etk_fb_get_table(
      etk_fb_get_table(etk_fb_get_table(etk_fb_vector_table(buf, events, 3),
                                        ETK_ETDUMP_EVENT_DEBUG_EVENT),
                       ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY),
      ETK_ETDUMP_VALUE_TENSOR_LIST);
  etk_fb_vector_t tensors =
      etk_fb_get_vector(list, ETK_ETDUMP_TENSOR_LIST_TENSORS);
  REQUIRE(tensors.count == 3);
  etk_fb_table_t t0 = etk_fb_vector_table(buf, tensors, 0);
  CHECK_EQ_INT(etk_fb_get_i8(t0, ETK_ETDUMP_TENSOR_SCALAR_TYPE, 0),
               ETK_SCALAR_TYPE_UINT64);
  CHECK_EQ_INT(etk_fb_get_i64(t0, ETK_ETDUMP_TENSOR_OFFSET, 0), -1);
  CHECK(etk_fb_get_vector(t0, ETK_ETDUMP_TENSOR_SIZES).data != NULL);
  CHECK_EQ_INT(etk_fb_get_vector(t0, ETK_ETDUMP_TENSOR_SIZES).count, 0);
  /* Float and Double members */
  etk_fb_table_t fv = etk_fb_get_table(
      etk_fb_get_table(etk_fb_get_table(etk_fb_vector_table(buf, events, 5),
                                        ETK_ETDUMP_EVENT_DEBUG_EVENT),
                       ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY),
      ETK_ETDUMP_VALUE_FLOAT_VALUE);
  CHECK(etk_fb_get_f32(fv, ETK_ETDUMP_FLOAT_FLOAT_VAL, 0) == 1.5f);
  /* the odd third block name: multibyte UTF-8, escapes and an embedded NUL */
  etk_fb_string_t odd = etk_fb_get_string(etk_fb_vector_table(buf, runs, 2),
                                          ETK_ETDUMP_RUN_DATA_NAME);
  static const char expected[] =
      "text: \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 tab\t quote\" backslash\\ "
      "nul\0end";
  CHECK_EQ_U64(odd.len, sizeof expected - 1);
  CHECK(odd.data && memcmp(odd.data, expected, sizeof expected - 1) == 0);
  CHECK(etk_fb_utf8_valid(odd.data, odd.len));
  /* the empty fourth block: no fields at all */
  etk_fb_table_t bare = etk_fb_vector_table(buf, runs, 3);
  CHECK(etk_fb_get_string(bare, ETK_ETDUMP_RUN_DATA_NAME).data == NULL);
  CHECK(etk_fb_get_vector(bare, ETK_ETDUMP_RUN_DATA_EVENTS).data == NULL);
}

/* (a) */
ETK_TEST(our_builder_decoded_by_flatc) {
  if (!flatc_path()) ETK_SKIP("flatc not found");
  for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
    json_node_t *fixture = schema_json_load(fixture_path(fixtures[i]));
    REQUIRE(fixture != NULL);
    static _Alignas(8) uint8_t mem[65536];
    etk_fb_builder_t b;
    etk_fb_builder_init(&b, mem, sizeof mem);
    etk_fb_ref_t root_ref = schema_json_build(&b, &etk_etdump_schema, fixture);
    const uint8_t *out;
    size_t len;
    REQUIRE(etk_fb_finish(&b, root_ref, ETK_ETDUMP_FILE_IDENTIFIER,
                          ETK_FB_SIZE_PREFIXED, &out, &len) == ETK_OK);
    etk_fb_table_t root;
    REQUIRE(verify_etdump(out, len, &root) == ETK_OK);
    CHECK_EQ_INT(
        schema_json_check(root, &etk_etdump_schema, fixture, fixtures[i]), 0);
    for (int defaults = 0; defaults <= 1; defaults++) {
      const char *json_path = flatc_binary_to_json(out, len, defaults);
      REQUIRE(json_path != NULL);
      json_node_t *decoded = schema_json_load(json_path);
      REQUIRE(decoded != NULL);
      CHECK_EQ_INT(
          schema_json_check(root, &etk_etdump_schema, decoded, fixtures[i]), 0);
      if (i == 0) {
        /* flatc's own view, literally */
        const json_node_t *run0 = json_at(json_get(decoded, "run_data"), 0);
        const json_node_t *pe =
            json_get(json_at(json_get(run0, "events"), 0), "profile_event");
        CHECK_EQ_STR(json_get(pe, "start_time")->text, "18446744073709551615");
        CHECK_EQ_STR(json_get(pe, "name")->text, "OPERATOR_CALL");
        const json_node_t *de =
            json_get(json_at(json_get(run0, "events"), 2), "debug_event");
        CHECK_EQ_STR(json_get(json_get(json_get(de, "debug_entry"), "tensor"),
                              "scalar_type")
                         ->text,
                     "FLOAT");
        if (defaults) /* absent scalars printed with their schema default */
          CHECK_EQ_STR(json_get(json_at(json_get(decoded, "run_data"), 1),
                                "bundled_input_index")
                           ->text,
                       "-1");
      }
      json_free(decoded);
    }
    if (i == 0) spot_check_every_field(root);
    json_free(fixture);
  }
}

/* (b) */
ETK_TEST(flatc_encoded_read_by_us) {
  if (!flatc_path()) ETK_SKIP("flatc not found");
  for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
    size_t len = 0;
    uint8_t *bytes = flatc_json_to_binary(fixture_path(fixtures[i]), &len);
    REQUIRE(bytes != NULL);
    etk_fb_table_t root;
    REQUIRE(verify_etdump(bytes, len, &root) == ETK_OK);
    json_node_t *fixture = schema_json_load(fixture_path(fixtures[i]));
    REQUIRE(fixture != NULL);
    CHECK_EQ_INT(
        schema_json_check(root, &etk_etdump_schema, fixture, fixtures[i]), 0);
    if (i == 0) spot_check_every_field(root);
    json_free(fixture);
    free(bytes);
  }
}

/* The comparison used above must notice differences, or the tests above
 * would prove nothing. */
ETK_TEST(json_check_notices_differences) {
  if (!etk_test_conformance_path("golden_allocators.etdp")) ETK_SKIP("absent");
  size_t len;
  unsigned char *bytes = etk_test_read_file(
      etk_test_conformance_path("golden_allocators.etdp"), &len);
  REQUIRE(bytes != NULL);
  etk_fb_table_t root;
  REQUIRE(verify_etdump(bytes, len, &root) == ETK_OK);
  static const char *const wrong[] = {
      "{}",                                           /* run_data absent */
      "{\"version\": 1, \"run_data\": []}",           /* scalar, count */
      "{\"run_data\": [{\"name\": \"test_blocK\"}]}", /* string */
      "{\"bogus\": 1}",                               /* unknown field */
  };
  for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
    json_node_t *j = json_parse(wrong[i], strlen(wrong[i]), NULL);
    REQUIRE(j != NULL);
    CHECK(schema_json_check(root, &etk_etdump_schema, j, "wrong") > 0);
    json_free(j);
  }
  free(bytes);
}

ETK_TEST_MAIN()
