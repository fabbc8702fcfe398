/*
 * test_etrecord_hostile.c - malformed and hostile ETRecords: each must give
 * exactly one clear error (the formatted etk_error_t line is pinned), never
 * a crash or an allocation driven by a lying header.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "fixture.h"

#define MARKER_MEMBER \
  { .name = "ETRECORD_V0", .text = "" }

static void expect_open(const fixture_member_t *m, size_t n,
                        const etk_etrecord_limits_t *limits, int code,
                        const char *line) {
  etk_etrecord_t *rec = (etk_etrecord_t *)1;
  char got[512];
  int rc = fixture_open(m, n, limits, &rec, got, sizeof got);
  if (rc != code || strcmp(got, line) != 0)
    printf("# got %s: %s\n", etk_status_name(rc), got);
  CHECK_EQ_INT(rc, code);
  CHECK_EQ_STR(got, line);
  if (rc == ETK_OK)
    etk_etrecord_close(rec);
  else
    CHECK(rec == NULL);
}

/* One member beside the marker, and the error opening must give. */
typedef struct member_case {
  const char *name, *text;
  int code;
  const char *line;
} member_case_t;

static void expect_member_cases(const member_case_t *cases, size_t count) {
  for (size_t k = 0; k < count; k++) {
    fixture_member_t m[] = {
        MARKER_MEMBER,
        {.name = cases[k].name, .text = cases[k].text},
    };
    expect_open(m, 2, NULL, cases[k].code, cases[k].line);
  }
}

/* Opens fine, then loading the forward edge program fails as given. */
static void expect_program(const char *json,
                           const etk_etrecord_limits_t *limits, int code,
                           const char *line) {
  fixture_member_t m[] = {
      MARKER_MEMBER,
      {.name = "edge_dialect_exported_program/forward", .text = json},
  };
  etk_etrecord_t *rec;
  char got[512];
  REQUIRE(fixture_open(m, 2, limits, &rec, got, sizeof got) == ETK_OK);
  const etk_etrecord_program_t *p = (const etk_etrecord_program_t *)1;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_etrecord_edge_program_load(rec, NULL, &p, &err);
  const char *text = fixture_error_line(&err);
  if (rc != code || strcmp(text, line) != 0)
    printf("# got %s: %s\n", etk_status_name(rc), text);
  CHECK_EQ_INT(rc, code);
  CHECK_EQ_STR(text, line);
  CHECK(p == NULL);
  /* a failed parse is not cached: the second try fails the same way */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_edge_program_load(rec, NULL, &p, &err), code);
  etk_etrecord_close(rec);
}

/* A forward program's JSON and the error loading it must give. */
typedef struct program_case {
  const char *json;
  int code;
  const char *line;
} program_case_t;

static void expect_program_cases(const program_case_t *cases, size_t count) {
  for (size_t k = 0; k < count; k++)
    expect_program(cases[k].json, NULL, cases[k].code, cases[k].line);
}

ETK_TEST(not_a_zip) {
  const char text[] = "this is plain text, and certainly not a ZIP archive";
  etk_etrecord_t *rec;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_open_memory(text, sizeof text, NULL, &rec, &err),
               ETK_E_BAD_IDENTIFIER);
  CHECK(rec == NULL);
  CHECK_EQ_STR(fixture_error_line(&err),
               "ETRecord: opening: not a ZIP archive (no end of central "
               "directory; truncated?)");
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_open_memory("PK", 2, NULL, &rec, &err),
               ETK_E_BAD_IDENTIFIER);
  CHECK_EQ_STR(fixture_error_line(&err),
               "ETRecord: not a ZIP archive (2 bytes)");
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_open_memory(NULL, 0, NULL, &rec, &err),
               ETK_E_BAD_IDENTIFIER);
  CHECK_EQ_INT(etk_etrecord_open_memory(NULL, 5, NULL, &rec, NULL),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_etrecord_open_memory(text, 5, NULL, NULL, NULL),
               ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(missing_file_names_the_path) {
  etk_etrecord_t *rec;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(
      etk_etrecord_open_file("/nonexistent/etrecord.bin", NULL, &rec, &err),
      ETK_E_IO);
  CHECK_EQ_STR(fixture_error_line(&err),
               "/nonexistent/etrecord.bin: cannot open input file: No such "
               "file or directory");
  /* archive-level errors name the file instead of "ETRecord" */
  const char *path = etk_test_temp_path("not-a-zip.bin");
  FILE *f = fopen(path, "wb");
  REQUIRE(f != NULL);
  fputs("0123456789012345678901234567890123456789", f);
  fclose(f);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_open_file(path, NULL, &rec, &err),
               ETK_E_BAD_IDENTIFIER);
  CHECK_EQ_STR(err.where, path);
  remove(path);
}

ETK_TEST(missing_marker) {
  fixture_member_t m[] = {
      {.name = "debug_handle_map", .text = "{}"},
      {.name = "ETRECORD_V1", .text = ""},
  };
  expect_open(m, 2, NULL, ETK_E_BAD_IDENTIFIER,
              "ETRecord: no ETRECORD_V0 member: this ZIP archive is not an "
              "ETRecord");
}

ETK_TEST(truncated_and_corrupt_archives) {
  fixture_member_t m[] = {
      MARKER_MEMBER,
      {.name = "debug_handle_map",
       .text = "{\"forward\": {\"0\": 1, \"1\": 2, \"2\": 3, \"3\": 4, \"4\": "
               "5, \"5\": 6, \"6\": 7, \"7\": 8}}",
       .deflate = true},
  };
  size_t len;
  uint8_t *zip = fixture_zip(m, 2, &len);
  REQUIRE(zip != NULL);
  etk_etrecord_t *rec;
  etk_error_t err;
  /* every truncation fails cleanly */
  for (size_t cut = 0; cut < len; cut++) {
    etk_error_clear(&err);
    int rc = etk_etrecord_open_memory(zip, cut, NULL, &rec, &err);
    CHECK(rc != ETK_OK);
    CHECK(rec == NULL);
    CHECK(err.code == rc);
  }
  /* flipping bits of the deflated map: CRC or inflate error, never a crash */
  size_t data_at = 0;
  for (size_t i = 0; i + 16 < len; i++)
    if (memcmp(zip + i, "debug_handle_map", 16) == 0) {
      data_at = i + 16;
      break;
    }
  REQUIRE(data_at > 0);
  zip[data_at + 3] ^= 0x55;
  etk_error_clear(&err);
  int rc = etk_etrecord_open_memory(zip, len, NULL, &rec, &err);
  CHECK(rc == ETK_E_FORMAT);
  CHECK_EQ_STR(err.where, "debug_handle_map");
  free(zip);
}

ETK_TEST(zip_bomb_declared_size) {
  size_t big = (size_t)32 << 20;
  char *zeros = calloc(1, big);
  REQUIRE(zeros != NULL);
  fixture_member_t m[] = {
      MARKER_MEMBER,
      {.name = "reference_outputs", .data = zeros, .len = big, .deflate = true},
  };
  etk_etrecord_limits_t lim;
  etk_etrecord_limits_default(&lim);
  /* by default the ratio alone refuses it, before anything is inflated
   * (the compressed size depends on the zlib build: match around it) */
  {
    etk_etrecord_t *rec = NULL;
    char got[512];
    CHECK_EQ_INT(fixture_open(m, 2, &lim, &rec, got, sizeof got), ETK_E_LIMIT);
    CHECK(rec == NULL);
    CHECK(strncmp(got,
                  "reference_outputs: member declares 33554432 uncompressed "
                  "bytes from ",
                  68) == 0);
    CHECK(strstr(got,
                 " compressed ones (over 100:1): refusing a possible zip "
                 "bomb") != NULL);
  }
  /* the total and per-member limits, with the ratio bound off */
  lim.max_compression_ratio = 0;
  lim.max_total_bytes = (uint64_t)8 << 20;
  expect_open(m, 2, &lim, ETK_E_LIMIT,
              "reference_outputs: members declare more than 8388608 "
              "uncompressed bytes in total (this one 33554432): refusing a "
              "possible zip bomb");
  /* under the total limit, but over the per-member limit when read */
  lim.max_total_bytes = (uint64_t)64 << 20;
  lim.max_member_bytes = (uint64_t)1 << 20;
  etk_etrecord_t *rec;
  REQUIRE(fixture_open(m, 2, &lim, &rec, NULL, 0) == ETK_OK);
  const uint8_t *data;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(
      etk_etrecord_member_read(rec, "reference_outputs", &data, &len, &err),
      ETK_E_LIMIT);
  CHECK_EQ_STR(fixture_error_line(&err),
               "reference_outputs: member of 33554432 bytes is over the limit "
               "of 1048576");
  etk_etrecord_close(rec);
  free(zeros);
}

ETK_TEST(zip_bomb_lying_size) {
  /* A deflated map declaring 2 bytes that inflates to 1 MiB. */
  size_t big = (size_t)1 << 20;
  char *text = malloc(big + 1);
  REQUIRE(text != NULL);
  memset(text, ' ', big);
  text[0] = '{';
  text[big - 1] = '}';
  text[big] = 0;
  fixture_member_t m[] = {
      MARKER_MEMBER,
      {.name = "debug_handle_map", .text = text, .deflate = true},
  };
  size_t len;
  uint8_t *zip = fixture_zip(m, 2, &len);
  free(text);
  REQUIRE(zip != NULL);
  REQUIRE(fixture_patch_size(zip, len, "debug_handle_map", 2));
  etk_etrecord_t *rec;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_open_memory(zip, len, NULL, &rec, &err),
               ETK_E_FORMAT);
  CHECK_EQ_STR(fixture_error_line(&err),
               "debug_handle_map: member holds more data than the 2 bytes it "
               "declares");
  free(zip);
}

ETK_TEST(too_many_members) {
  fixture_member_t m[] = {
      MARKER_MEMBER,
      {.name = "a", .text = ""},
      {.name = "b", .text = ""},
      {.name = "c", .text = ""},
  };
  etk_etrecord_limits_t lim;
  etk_etrecord_limits_default(&lim);
  lim.max_members = 3;
  expect_open(m, 4, &lim, ETK_E_LIMIT,
              "ETRecord: 4 ZIP entries, over the limit of 3");
  lim.max_members = 4;
  expect_open(m, 4, &lim, ETK_OK, "ok");
}

ETK_TEST(json_too_deep) {
  size_t depth = 600;
  char *text = malloc(2 * depth + 1);
  REQUIRE(text != NULL);
  memset(text, '[', depth);
  memset(text + depth, ']', depth);
  text[2 * depth] = 0;
  fixture_member_t m[] = {
      MARKER_MEMBER,
      {.name = "debug_handle_map", .text = text},
  };
  expect_open(m, 2, NULL, ETK_E_TOO_DEEP,
              "debug_handle_map: JSON nesting deeper than 512 levels (line 1, "
              "column 513)");
  free(text);
}

ETK_TEST(json_bad_utf8) {
  static const program_case_t cases[] = {
      {"{\"graph_module\": {\"graph\": {\"nodes\": [\n"
       "  {\"name\": \"caf\xc3\xa9\", \"target\": \"x\xff\"}]}}}",
       ETK_E_BAD_UTF8,
       "edge_dialect_exported_program/forward: invalid UTF-8 byte "
       "0xff (line 2, column 32)"},
      /* overlong encoding and a UTF-16 surrogate are invalid too */
      {"{\"a\": \"\xc0\xaf\"}", ETK_E_BAD_UTF8,
       "edge_dialect_exported_program/forward: invalid UTF-8 byte "
       "0xc0 (line 1, column 8)"},
      {"{\"a\": \"\xed\xa0\x80\"}", ETK_E_BAD_UTF8,
       "edge_dialect_exported_program/forward: invalid UTF-8 byte "
       "0xed (line 1, column 8)"},
  };
  expect_program_cases(cases, sizeof cases / sizeof cases[0]);
}

ETK_TEST(json_truncated_and_malformed) {
  static const member_case_t cases[] = {
      {"debug_handle_map", "{\"forward\": {\"0\": 1", ETK_E_TRUNCATED,
       "debug_handle_map: invalid JSON: '}' expected near end of file "
       "(line 1, column 20)"},
      {"debug_handle_map", "{\"forward\": {\"0\": 1,}}", ETK_E_FORMAT,
       "debug_handle_map: invalid JSON: string or '}' expected near '}' "
       "(line 1, column 21)"},
      {"debug_handle_map", "", ETK_E_TRUNCATED,
       "debug_handle_map: empty JSON document (line 1, column 1)"},
      /* positions after rewritten Python tokens still point into the
       * original */
      {"debug_handle_map",
       "{\"forward\": {\"0\": [Infinity, NaN, -Infinity, "
       "99999999999999999999, x]}}",
       ETK_E_FORMAT,
       "debug_handle_map: invalid JSON: invalid token near 'x' (line 1, "
       "column 68)"},
      {"debug_handle_map", "{\"forward\": Infinit}", ETK_E_FORMAT,
       "debug_handle_map: invalid JSON: invalid token near 'Infinit' "
       "(line 1, column 13)"},
  };
  expect_member_cases(cases, sizeof cases / sizeof cases[0]);
}

ETK_TEST(json_string_too_long) {
  etk_etrecord_limits_t lim;
  etk_etrecord_limits_default(&lim);
  lim.max_string_bytes = 16;
  expect_program(
      "{\"graph_module\": {\"graph\": {\"nodes\": []}},\n"
      " \"note\": \"this string is longer than sixteen bytes\"}",
      &lim, ETK_E_LIMIT,
      "edge_dialect_exported_program/forward: JSON string of 40 "
      "bytes is over the limit of 16 (line 2, column 10)");
}

ETK_TEST(maps_with_wrong_shapes) {
  static const member_case_t cases[] = {
      {"debug_handle_map", "{\"forward\": {\"x1\": 1}}", ETK_E_FORMAT,
       "debug_handle_map: method 'forward': key 'x1' is not an "
       "instruction id"},
      {"debug_handle_map", "{\"forward\": {\"01\": 1}}", ETK_E_FORMAT,
       "debug_handle_map: method 'forward': key '01' is not an "
       "instruction id"},
      {"debug_handle_map", "{\"forward\": {\"1\": \"7\"}}", ETK_E_FORMAT,
       "debug_handle_map: method 'forward', instruction 1: expected a "
       "debug handle or a list of them"},
      {"debug_handle_map", "{\"forward\": {\"1\": [1, 2.5]}}", ETK_E_FORMAT,
       "debug_handle_map: method 'forward', instruction 1: expected a "
       "debug handle or a list of them"},
      {"debug_handle_map", "[1, 2]", ETK_E_FORMAT,
       "debug_handle_map: expected a JSON object keyed by method name"},
      {"debug_handle_map", "{\"forward\": 3, \"decode\": {}}", ETK_E_FORMAT,
       "debug_handle_map: method 'forward': expected an object keyed by "
       "instruction id"},
      {"delegate_map", "{\"forward\": {\"1\": {\"name\": 5}}}", ETK_E_FORMAT,
       "delegate_map: method 'forward', instruction 1: \"name\" is not "
       "a string"},
      {"delegate_map",
       "{\"forward\": {\"1\": {\"delegate_map\": {\"a\": \"b\"}}}}",
       ETK_E_FORMAT,
       "delegate_map: method 'forward', delegate id 'a': expected a "
       "list of debug handles"},
      {"instruction_id_to_num_outs_map", "{\"forward\": {\"1\": [2]}}",
       ETK_E_FORMAT,
       "instruction_id_to_num_outs_map: method 'forward', instruction "
       "1: expected an integer"},
      {"instruction_id_to_num_outs_map", "{\"forward\": {\"1\": -1}}",
       ETK_E_FORMAT,
       "instruction_id_to_num_outs_map: method 'forward', instruction "
       "1: num_outs -1 is outside 0..1048576"},
      {"instruction_id_to_num_outs_map",
       "{\"forward\": {\"1\": 9223372036854775807}}", ETK_E_FORMAT,
       "instruction_id_to_num_outs_map: method 'forward', instruction "
       "1: num_outs 9223372036854775807 is outside 0..1048576"},
      {"export_graph_id", "\"140\"", ETK_E_FORMAT,
       "export_graph_id: expected a JSON integer"},
  };
  expect_member_cases(cases, sizeof cases / sizeof cases[0]);
}

ETK_TEST(programs_with_wrong_shapes) {
  static const program_case_t shapes[] = {
      {"{\"graph_module\": {}}", ETK_E_MISSING_FIELD,
       "edge_dialect_exported_program/forward: no graph_module.graph "
       "object: not a serialised ExportedProgram"},
      {"[1, 2, 3]", ETK_E_FORMAT,
       "edge_dialect_exported_program/forward: expected a JSON object "
       "(a serialised ExportedProgram)"},
      {"{\"graph_module\": {\"graph\": {\"nodes\": {}}}}", ETK_E_FORMAT,
       "edge_dialect_exported_program/forward: \"nodes\" of a graph "
       "at depth 0 is not a list"},
      {"{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"x\"}, "
       "7]}}}",
       ETK_E_FORMAT,
       "edge_dialect_exported_program/forward: graph node 1 is not an "
       "object"},
  };
  expect_program_cases(shapes, sizeof shapes / sizeof shapes[0]);
  /* node fields: missing, mistyped, NUL bytes (upstream raises on each) */
  static const struct {
    const char *node, *line;
  } fields[] = {
      {"{}", "graph node 0: required field \"target\" is missing"},
      {"{\"target\": null}",
       "graph node 0: field \"target\" is null, not a string"},
      {"{\"target\": 5}",
       "graph node 0: field \"target\" is an integer, not a string"},
      {"{\"target\": \"a\\u0000b\"}",
       "graph node 0: field \"target\" contains a NUL byte"},
      {"{\"target\": \"t\", \"name\": null}",
       "graph node 0: field \"name\" is null, not a string"},
      {"{\"target\": \"t\", \"name\": [\"n\"]}",
       "graph node 0: field \"name\" is a list, not a string"},
      {"{\"target\": \"t\", \"name\": \"x\\u0000\"}",
       "graph node 0: field \"name\" contains a NUL byte"},
      {"{\"target\": \"t\", \"inputs\": {}}",
       "graph node 0: field \"inputs\" is an object, not a list"},
      {"{\"target\": \"t\", \"outputs\": \"o\"}",
       "graph node 0: field \"outputs\" is a string, not a list"},
      {"{\"target\": \"t\", \"metadata\": [1]}",
       "graph node 0: field \"metadata\" is a list, not an object"},
      {"{\"target\": \"t\", \"metadata\": {\"stack_trace\": null}}",
       "graph node 0: metadata \"stack_trace\" is null, not a string"},
      {"{\"target\": \"t\", \"metadata\": {\"k\": \"\\u0000\"}}",
       "graph node 0: metadata \"k\" contains a NUL byte"},
  };
  for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
    char json[256], line[256];
    snprintf(json, sizeof json,
             "{\"graph_module\": {\"graph\": {\"nodes\": [%s]}}}",
             fields[k].node);
    snprintf(line, sizeof line, "edge_dialect_exported_program/forward: %s",
             fields[k].line);
    expect_program(json, NULL, ETK_E_FORMAT, line);
  }
  /* a broken lowered module names the delegate node */
  expect_program(
      "{\"graph_module\": {\"graph\": {\"nodes\": [{\"name\": \"d0\", "
      "\"target\": \"torch.ops.higher_order.executorch_call_delegate\", "
      "\"inputs\": [{\"name\": \"lowered_module_0\", \"arg\": {\"as_string\": "
      "\"{\\\"backend_id\\\": \\\"X\\\", \\\"original_module\\\": \"}}]}]}}}",
      NULL, ETK_E_TRUNCATED,
      "edge_dialect_exported_program/forward: in the lowered module of node "
      "'d0': invalid JSON: unexpected token near end of file (line 1, column "
      "40)");
}

static char *nested_as_graph(int levels) {
  /* levels nested cond graphs, each holding one node */
  size_t cap = 256 + (size_t)levels * 256;
  char *s = malloc(cap);
  if (!s) return NULL;
  size_t n = (size_t)snprintf(s, cap, "{\"graph_module\": {\"graph\": ");
  for (int i = 0; i < levels; i++)
    n += (size_t)snprintf(s + n, cap - n,
                          "{\"nodes\": [{\"name\": \"c%d\", \"target\": "
                          "\"torch.ops.higher_order.cond\", \"inputs\": "
                          "[{\"name\": \"t\", \"arg\": {\"as_graph\": "
                          "{\"name\": \"g\", \"graph\": ",
                          i);
  n += (size_t)snprintf(s + n, cap - n, "{\"nodes\": []}");
  for (int i = 0; i < levels; i++)
    n += (size_t)snprintf(s + n, cap - n, "}}}]}]}");
  snprintf(s + n, cap - n, "}}");
  return s;
}

ETK_TEST(graph_nesting_and_node_limits) {
  etk_etrecord_limits_t lim;
  etk_etrecord_limits_default(&lim);
  lim.max_graph_depth = 3;
  char *s = nested_as_graph(4);
  REQUIRE(s != NULL);
  expect_program(s, &lim, ETK_E_TOO_DEEP,
                 "edge_dialect_exported_program/forward: graphs nested deeper "
                 "than 3 levels");
  free(s);
  s = nested_as_graph(3);
  REQUIRE(s != NULL);
  fixture_member_t m[] = {
      MARKER_MEMBER,
      {.name = "edge_dialect_exported_program/forward", .text = s},
  };
  etk_etrecord_t *rec;
  REQUIRE(fixture_open(m, 2, &lim, &rec, NULL, 0) == ETK_OK);
  const etk_etrecord_program_t *p;
  REQUIRE(etk_etrecord_edge_program_load(rec, NULL, &p, NULL) == ETK_OK);
  CHECK_EQ_INT(p->node_count, 3);
  CHECK_EQ_INT(p->nodes[2].depth, 2);
  CHECK_EQ_U64(p->nodes[2].parent, 1);
  etk_etrecord_close(rec);
  lim.max_nodes = 2;
  expect_program(s, &lim, ETK_E_LIMIT,
                 "edge_dialect_exported_program/forward: more than 2 nodes");
  free(s);
}

ETK_TEST_MAIN()
