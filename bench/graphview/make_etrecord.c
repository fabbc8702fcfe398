/*
 * make_etrecord.c - the benchmark's generated transformer-like graph
 * (transformer_graph.c) written as an ETRecord with etkit's ETRecord
 * writer, so that `etkit graph --html` can be timed on it end to end:
 *
 *   bench_graph_etrecord NODES OUT.etrecord
 *
 * Each node becomes an edge-dialect node with a debug handle, an
 * nn_module_stack (the full dotted path of each enclosing module group;
 * partition groups are not modules), its producers as inputs, one output
 * value with a TensorMeta, and a stack-trace line.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/etrecord_writer.h"
#include "transformer_graph.h"

#define MAX_DEPTH 24

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: bench_graph_etrecord NODES OUT.etrecord\n");
    return 2;
  }
  transformer_graph_t t;
  if (transformer_graph_make((size_t)strtoull(argv[1], NULL, 10), 0, &t) != 0)
    return 1;
  size_t n = t.view.node_count, ng = t.view.group_count;
  char **paths = calloc(ng + 1, sizeof *paths),
       **keys = calloc(ng + 1, sizeof *keys);
  etk_etrecord_node_desc_t *nodes = calloc(n, sizeof *nodes);
  etk_etrecord_module_desc_t *mods = calloc(n * (MAX_DEPTH + 1), sizeof *mods);
  etk_etrecord_input_desc_t *ins = calloc(t.view.edge_count + 1, sizeof *ins);
  etk_etrecord_tensor_desc_t *tens = calloc(n, sizeof *tens);
  etk_etrecord_handle_desc_t *handles = calloc(n, sizeof *handles);
  int64_t *ids = calloc(n, sizeof *ids), sizes[3] = {1, 128, 256};
  char **traces = calloc(n, sizeof *traces);
  if (!paths || !keys || !nodes || !mods || !ins || !tens || !handles || !ids ||
      !traces)
    return 1;
  for (size_t g = 0; g < ng; g++) {
    const etk_graph_view_group_t *gr = &t.groups[g];
    size_t p = gr->parent;
    while (p != ETK_GRAPH_VIEW_NONE &&
           t.groups[p].kind != ETK_GRAPH_VIEW_MODULE)
      p = t.groups[p].parent;
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s%s",
             p == ETK_GRAPH_VIEW_NONE ? "" : paths[p],
             p == ETK_GRAPH_VIEW_NONE ? "" : ".", gr->label);
    paths[g] = strdup(buf);
    for (char *c = buf; *c; c++)
      if (*c == '.') *c = '_';
    char key[600];
    snprintf(key, sizeof key, "L__self___%s", buf);
    keys[g] = strdup(key);
  }
  size_t in_used = 0, next_edge = 0;
  for (size_t i = 0; i < n; i++) {
    const etk_graph_view_node_t *v = &t.nodes[i];
    etk_etrecord_module_desc_t *m = &mods[i * (MAX_DEPTH + 1)];
    size_t chain[MAX_DEPTH], depth = 0;
    for (size_t g = v->group; g != ETK_GRAPH_VIEW_NONE && depth < MAX_DEPTH;
         g = t.groups[g].parent)
      if (t.groups[g].kind == ETK_GRAPH_VIEW_MODULE) chain[depth++] = g;
    m[0] = (etk_etrecord_module_desc_t){"L__self__", "", "bench.Transformer"};
    for (size_t k = 0; k < depth; k++) {
      size_t g = chain[depth - 1 - k];
      m[k + 1] = (etk_etrecord_module_desc_t){keys[g], paths[g], "bench.Block"};
    }
    nodes[i].name = v->name;
    char target[200];
    snprintf(target, sizeof target, "executorch.exir.dialects.edge.ops.%s",
             v->op);
    nodes[i].target = strdup(target);
    nodes[i].debug_handle = (int64_t)i + 1;
    char trace[200];
    snprintf(trace, sizeof trace,
             "  File \"model.py\", line %zu, in forward\n"
             "    x = layer(x)\n",
             10 + i % 97);
    traces[i] = strdup(trace);
    nodes[i].stack_trace = traces[i];
    nodes[i].module_stack = m;
    nodes[i].module_stack_count = depth + 1;
    nodes[i].inputs = &ins[in_used];
    /* the generator appends a node's incoming edges when it adds the node */
    for (; next_edge < t.view.edge_count && t.edges[next_edge].to == i;
         next_edge++) {
      ins[in_used++] = (etk_etrecord_input_desc_t){
          NULL, t.nodes[t.edges[next_edge].from].name};
      nodes[i].input_count++;
    }
    nodes[i].outputs = &v->name;
    nodes[i].output_count = 1;
    tens[i] = (etk_etrecord_tensor_desc_t){v->name, 7, sizes, 3};
    ids[i] = (int64_t)i + 1;
    handles[i] = (etk_etrecord_handle_desc_t){(int64_t)i, &ids[i], 1, false};
  }
  /* node 0 is the graph input: feed it from a placeholder */
  const char *graph_in[] = {"tokens"};
  etk_etrecord_input_desc_t first = {"input", "tokens"};
  nodes[0].inputs = &first;
  nodes[0].input_count = 1;
  const char *graph_out[] = {t.nodes[n - 1].name};
  etk_etrecord_method_desc_t method = {.name = "forward",
                                       .nodes = nodes,
                                       .node_count = n,
                                       .graph_inputs = graph_in,
                                       .graph_input_count = 1,
                                       .graph_outputs = graph_out,
                                       .graph_output_count = 1,
                                       .tensors = tens,
                                       .tensor_count = n,
                                       .handles = handles,
                                       .handle_count = n};
  etk_etrecord_desc_t desc = {.methods = &method, .method_count = 1};
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_etrecord_write_file(&desc, argv[2], &err);
  if (rc != ETK_OK) fprintf(stderr, "bench_graph_etrecord: %s\n", err.message);
  for (size_t i = 0; i < n; i++) {
    free((char *)nodes[i].target);
    free(traces[i]);
  }
  for (size_t g = 0; g < ng; g++) {
    free(paths[g]);
    free(keys[g]);
  }
  free(paths);
  free(keys);
  free(nodes);
  free(mods);
  free(ins);
  free(tens);
  free(handles);
  free(ids);
  free(traces);
  transformer_graph_free(&t);
  return rc == ETK_OK ? 0 : 1;
}
