/*
 * graph_fuzz.c - libFuzzer target for the ETRecord graph object
 * (etkit/graph.h): the typed serde decoding of the ETRecord reader, the
 * graph build and its checks (missing values, duplicates, cycles,
 * shapes), partitions, weights and recordings, and the Model Explorer
 * writers.
 *
 * Two input forms, as in fuzz/etrecord:
 *   - input starting with "PK": opened as an ETRecord archive as is;
 *   - anything else: split on NUL bytes into up to three member texts (the
 *     forward edge program, debug_handle_map, delegate_map), zipped with
 *     correct CRCs next to an ETRECORD_V0 marker, then opened.
 * Every graph that loads (the edge program, the ATen names) is walked:
 * every argument formatted, every value's shape written, every
 * placeholder's weight and recorded tensor asked for, both Model Explorer
 * files written in memory.  Tight limits keep each run small.  Errors are
 * expected; a crash, sanitizer report or leak is a bug.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/graph.h"
#include "fixture.h"

static const char *const kNames[] = {
    "edge_dialect_exported_program/forward",
    "debug_handle_map",
    "delegate_map",
};
#define MAX_CHUNKS (sizeof kNames / sizeof kNames[0])

static uint8_t *zip_chunks(const uint8_t *data, size_t size, size_t *out_len) {
  return fixture_zip_chunks(data, size, kNames, MAX_CHUNKS, out_len);
}

static void walk_graph(etk_graph_t *g) {
  char buf[256];
  const etk_graph_node_t *n = etk_graph_nodes(g);
  for (size_t i = 0; i < etk_graph_node_count(g); i++) {
    for (size_t k = 0; k < n[i].arg_count; k++)
      etk_graph_arg_format(g, &n[i].args[k], buf, sizeof buf);
    for (size_t k = 0; k < n[i].output_count; k++)
      etk_graph_arg_format(g, &n[i].outputs[k], buf, sizeof buf);
    for (size_t k = 0; k < n[i].debug_handle_count; k++)
      etk_graph_nodes_for_handle(g, n[i].debug_handles[k], NULL);
    etk_graph_find_node(g, n[i].graph, n[i].name);
    if (n[i].kind == ETK_GRAPH_NODE_PLACEHOLDER) {
      etk_graph_tensor_t t;
      etk_graph_weight(g, i, &t, NULL);
      etk_graph_placeholder_tensor(g, i, ETK_GRAPH_EXAMPLE_INPUTS, 0, &t, NULL);
    }
  }
  for (size_t v = 0; v < etk_graph_value_count(g); v++)
    etk_graph_value_shape(g, v, buf, sizeof buf);
  const etk_graph_tensor_t *items;
  size_t count;
  etk_graph_recorded(g, ETK_GRAPH_REPRESENTATIVE_INPUTS, 0, &items, &count,
                     NULL);
  etk_graph_recorded(g, ETK_GRAPH_REFERENCE_OUTPUTS, -1, &items, &count, NULL);
  char *js;
  size_t len;
  if (etk_graph_model_explorer_json(g, NULL, &js, &len, NULL) == ETK_OK)
    free(js);
  size_t nodes = etk_graph_node_count(g);
  double *values = malloc((nodes ? nodes : 1) * sizeof *values);
  if (values) {
    for (size_t i = 0; i < nodes; i++) values[i] = i % 3 ? (double)i : NAN;
    etk_graph_node_data_t nd = {values, NULL, nodes, NULL, 0, NULL, NULL};
    if (etk_graph_node_data_json(g, &nd, 1, &js, &len, NULL) == ETK_OK)
      free(js);
    free(values);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  etk_etrecord_limits_t lim;
  fixture_fuzz_limits(&lim);

  uint8_t *zip = NULL;
  size_t zip_len = size;
  const uint8_t *bytes = data;
  if (size < 2 || data[0] != 'P' || data[1] != 'K') {
    zip = zip_chunks(data, size, &zip_len);
    if (!zip) return 0;
    bytes = zip;
  }
  etk_etrecord_t *rec;
  if (etk_etrecord_open_memory(bytes, zip_len, &lim, &rec, NULL) == ETK_OK) {
    static const char *const graphs[] = {NULL, "exported_program",
                                         "aten_dialect_output"};
    for (size_t k = 0; k < sizeof graphs / sizeof graphs[0]; k++) {
      etk_graph_options_t o;
      etk_graph_options_default(&o);
      o.graph_name = graphs[k];
      for (unsigned flags = 0; flags < 2; flags++) {
        o.flags = flags;
        etk_graph_t *g;
        if (etk_graph_load(rec, &o, &g, NULL) != ETK_OK) continue;
        walk_graph(g);
        etk_graph_free(g);
      }
    }
    etk_etrecord_close(rec);
  }
  free(zip);
  return 0;
}
