/*
 * test_etrecord_big.c - programs too big to hold as one JSON tree: the top
 * graph's nodes and tensor_values read one element at a time give the
 * same program as the whole-document parse (forced here by spelling the
 * "nodes" key with an escape, which the element scanner does not follow),
 * and the memory bound of a parse (max_json_memory_ratio) refuses JSON
 * that would take more than its share, with one clear error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "fixture.h"

#define NODES 3000
#ifndef RATIO
#define RATIO 16
#endif

/* A forward program of NODES relu nodes (well past the 64 KiB from which
 * the element reader is used), their tensor_values (one key written with
 * an escape, one value with Python's Infinity inside a node), and
 * `nodes_key` as the key of the node list. */
static char *program_json(const char *nodes_key) {
  size_t cap = (size_t)NODES * 600 + 4096, n = 0;
  char *s = malloc(cap);
  if (!s) return NULL;
  n += (size_t)snprintf(s + n, cap - n,
                        "{\"graph_module\": {\"graph\": {\"inputs\": "
                        "[{\"as_tensor\": {\"name\": \"x\"}}], \"%s\": [",
                        nodes_key);
  for (int k = 0; k < NODES; k++)
    n += (size_t)snprintf(
        s + n, cap - n,
        "%s{\"name\": \"relu_%d\", \"target\": "
        "\"executorch.exir.dialects.edge.ops.aten.relu.default\", "
        "\"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": "
        "{\"name\": \"%s%d\"}}}%s], \"outputs\": [{\"as_tensor\": {\"name\": "
        "\"relu_%d\"}}], \"metadata\": {\"debug_handle\": \"%d\"}}",
        k ? ", " : "", k, k ? "relu_" : "x", k ? k - 1 : 0,
        k == 7 ? ", {\"name\": \"alpha\", \"arg\": {\"as_float\": Infinity}}"
               : "",
        k, k + 1);
  n += (size_t)snprintf(s + n, cap - n, "], \"tensor_values\": {");
  for (int k = 0; k < NODES; k++)
    n += (size_t)snprintf(s + n, cap - n,
                          "%s\"%s%d\": {\"dtype\": 7, \"sizes\": [{\"as_int\": "
                          "%d}, {\"as_int\": 4}], \"strides\": [{\"as_int\": "
                          "4}, {\"as_int\": 1}], \"storage_offset\": "
                          "{\"as_int\": 0}}",
                          k ? ", " : "", k == 5 ? "relu_\\u0035_" : "relu_", k,
                          k % 9 + 1);
  n += (size_t)snprintf(s + n, cap - n,
                        "}, \"outputs\": [{\"as_tensor\": {\"name\": "
                        "\"relu_%d\"}}]}}, \"schema_version\": {\"major\": "
                        "5, \"minor\": 4}}",
                        NODES - 1);
  return s;
}

static etk_etrecord_t *open_program(const char *json,
                                    const etk_etrecord_limits_t *lim) {
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program/forward", .text = json},
  };
  etk_etrecord_t *rec = NULL;
  char line[512];
  if (fixture_open(m, 2, lim, &rec, line, sizeof line) != ETK_OK)
    printf("# %s\n", line);
  return rec;
}

static void same_meta(const etk_etrecord_tensor_meta_t *a,
                      const etk_etrecord_tensor_meta_t *b) {
  CHECK_EQ_STR(a->name, b->name);
  CHECK_EQ_INT(a->dtype, b->dtype);
  CHECK_EQ_INT(a->dim, b->dim);
  for (uint32_t d = 0; d < a->dim && d < b->dim; d++) {
    CHECK_EQ_INT(a->sizes[d], b->sizes[d]);
    CHECK_EQ_INT(a->strides[d], b->strides[d]);
  }
}

ETK_TEST(element_reader_equals_whole_parse) {
  char *lazy_json = program_json("nodes");
  char *whole_json = program_json("\\u006eodes"); /* the same key */
  REQUIRE(lazy_json && whole_json);
  REQUIRE(strlen(lazy_json) > ((size_t)1 << 16));
  etk_etrecord_t *ra = open_program(lazy_json, NULL);
  etk_etrecord_t *rb = open_program(whole_json, NULL);
  REQUIRE(ra && rb);
  const etk_etrecord_program_t *a, *b;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_etrecord_edge_program_load(ra, NULL, &a, &err) == ETK_OK);
  REQUIRE(etk_etrecord_edge_program_load(rb, NULL, &b, &err) == ETK_OK);
  CHECK_EQ_U64(a->node_count, NODES);
  CHECK_EQ_U64(b->node_count, NODES);
  for (size_t k = 0; k < a->node_count && k < b->node_count; k++) {
    CHECK_EQ_STR(a->nodes[k].name, b->nodes[k].name);
    CHECK_EQ_STR(a->nodes[k].op, b->nodes[k].op);
    CHECK_EQ_STR(a->nodes[k].args, b->nodes[k].args);
    CHECK_EQ_U64(a->nodes[k].debug_handle_count,
                 b->nodes[k].debug_handle_count);
    CHECK_EQ_U64(a->nodes[k].input_arg_count, b->nodes[k].input_arg_count);
  }
  /* the Infinity of node 7 came through the element's own rewrite */
  REQUIRE(a->nodes[7].input_arg_count == 2);
  CHECK(isinf(a->nodes[7].input_args[1].f));
  CHECK_EQ_INT(a->nodes[NODES - 1].debug_handles[0], NODES);
  REQUIRE(a->graph_count >= 1 && b->graph_count >= 1);
  const etk_etrecord_graph_t *ga = &a->graphs[0], *gb = &b->graphs[0];
  CHECK_EQ_U64(ga->tensor_value_count, NODES);
  CHECK_EQ_U64(gb->tensor_value_count, NODES);
  for (size_t k = 0; k < ga->tensor_value_count && k < gb->tensor_value_count;
       k++)
    same_meta(&ga->tensor_values[k], &gb->tensor_values[k]);
  CHECK_EQ_STR(ga->tensor_values[5].name, "relu_5_5"); /* \u0035 decoded */
  CHECK_EQ_INT(ga->tensor_values[10].sizes[0], 2);
  CHECK_EQ_U64(a->input_count, 1);
  CHECK_EQ_U64(a->output_count, 1);
  etk_etrecord_close(ra);
  etk_etrecord_close(rb);
  free(lazy_json);
  free(whole_json);
}

/* A node with a syntax error deep in the list: the whole-document parse
 * reports it with its line and column, as for a small member. */
ETK_TEST(element_syntax_error_reported_from_whole_document) {
  char *s = program_json("nodes");
  REQUIRE(s);
  char *bad = strstr(s, "\"relu_2000\", \"target\"");
  REQUIRE(bad);
  bad[11] = ';'; /* "relu_2000"; "target" */
  etk_etrecord_t *rec = open_program(s, NULL);
  REQUIRE(rec);
  const etk_etrecord_program_t *p;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_edge_program_load(rec, NULL, &p, &err),
               ETK_E_FORMAT);
  const char *line = fixture_error_line(&err);
  CHECK(strstr(line, "edge_dialect_exported_program/forward") != NULL);
  CHECK(strstr(line, "invalid JSON") != NULL);
  CHECK(err.line == 1 && err.column > 1000);
  etk_etrecord_close(rec);
  free(s);
}

/* JSON whose tree takes far more than its text (empty objects: 3 bytes of
 * text, a few hundred of jansson's memory each). */
static char *empty_objects(size_t count) {
  char *s = malloc(count * 3 + 128);
  if (!s) return NULL;
  size_t n = (size_t)sprintf(s,
                             "{\"graph_module\": {\"graph\": {\"nodes\": "
                             "[], \"x\": [");
  for (size_t k = 0; k < count; k++) {
    memcpy(s + n, k ? ",{}" : "{}", k ? 3 : 2);
    n += k ? 3 : 2;
  }
  strcpy(s + n, "]}}}");
  return s;
}

ETK_TEST(json_memory_bound) {
  char *s = empty_objects(400000);
  REQUIRE(s);
  etk_etrecord_t *rec = open_program(s, NULL);
  REQUIRE(rec);
  const etk_etrecord_program_t *p;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_edge_program_load(rec, NULL, &p, &err),
               ETK_E_LIMIT);
  char want[256];
  snprintf(want, sizeof want,
           "edge_dialect_exported_program/forward: parsing %zu bytes of JSON "
           "takes more than %zu bytes of memory (limit: 32 times the text, "
           "max_json_memory_ratio)",
           strlen(s), 32 * strlen(s));
  CHECK_EQ_STR(fixture_error_line(&err), want);
  etk_etrecord_close(rec);
  /* without the bound the same text loads */
  etk_etrecord_limits_t lim;
  etk_etrecord_limits_default(&lim);
  lim.max_json_memory_ratio = 0;
  rec = open_program(s, &lim);
  REQUIRE(rec);
  CHECK_EQ_INT(etk_etrecord_edge_program_load(rec, NULL, &p, NULL), ETK_OK);
  etk_etrecord_close(rec);
  /* and an ordinary program stays far inside the default bound */
  etk_etrecord_limits_default(&lim);
  lim.max_json_memory_ratio = RATIO;
  char *ok = program_json("\\u006eodes");
  REQUIRE(ok);
  rec = open_program(ok, &lim);
  REQUIRE(rec);
  CHECK_EQ_INT(etk_etrecord_edge_program_load(rec, NULL, &p, NULL), ETK_OK);
  etk_etrecord_close(rec);
  free(ok);
  free(s);
}

ETK_TEST_MAIN()
