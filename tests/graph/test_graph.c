/*
 * test_graph.c - the ETRecord graph object (etkit/graph.h) on the
 * hand-written serde program of tests/graph/fixtures, on edited (damaged)
 * copies of it, on upstream's sample ETRecord and on ETRecords written by
 * etkit's own writer: node counts, edges, arguments, shapes, signature,
 * nested graphs, partitions, weights and recorded tensors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/graph.h"
#include "graph_fixture.h"

static size_t node_named(const etk_graph_t *g, const char *name) {
  return etk_graph_find_node(g, 0, name);
}

static const etk_graph_arg_t *arg_named(const etk_graph_node_t *n,
                                        const char *name) {
  for (size_t k = 0; k < n->arg_count; k++)
    if (strcmp(n->args[k].name, name) == 0) return &n->args[k];
  return NULL;
}

static etk_graph_t *load_full(etk_etrecord_t **rec) {
  etk_graph_t *g;
  char line[512];
  int rc = graph_fixture_load(NULL, 0, rec, &g, line, sizeof line);
  if (rc != ETK_OK) printf("# load: %s\n", line);
  return g;
}

ETK_TEST(nodes_values_and_edges) {
  etk_etrecord_t *rec;
  etk_graph_t *g = load_full(&rec);
  REQUIRE(g);
  etk_graph_info_t info;
  etk_graph_info_get(g, &info);
  CHECK_EQ_STR(info.member, "edge_dialect_exported_program/forward");
  CHECK_EQ_STR(info.method, "forward");
  CHECK_EQ_INT(info.graph_count, 4); /* top, lowered module, two branches */
  CHECK_EQ_INT(info.top_call_count, 11);
  CHECK_EQ_INT(info.call_count, 14);
  /* per graph: placeholders + calls + output; 5+11+1, 1+1+1 three times */
  CHECK_EQ_INT(info.node_count, 17 + 3 * 3);
  const etk_graph_node_t *n = etk_graph_nodes(g);
  const etk_graph_value_t *v = etk_graph_values(g);
  CHECK_EQ_INT(n[0].kind, ETK_GRAPH_NODE_PLACEHOLDER);
  CHECK_EQ_STR(n[0].name, "p_conv_weight");
  CHECK_EQ_STR(n[3].name, "x");
  CHECK_EQ_INT(n[etk_graph_node_count(g) - 1].kind, ETK_GRAPH_NODE_OUTPUT);
  CHECK_EQ_STR(n[etk_graph_node_count(g) - 1].name, "output");
  /* every edge points backwards, users mirror inputs */
  for (size_t i = 0; i < etk_graph_node_count(g); i++)
    for (size_t k = 0; k < n[i].input_count; k++) {
      size_t p = n[i].inputs[k];
      CHECK(p < i);
      bool found = false;
      for (size_t u = 0; u < n[p].user_count; u++) found |= n[p].users[u] == i;
      CHECK(found);
    }
  /* the multi-output split: two values, used out of order by cat */
  size_t split = node_named(g, "aten_split_with_sizes_copy_default");
  size_t cat = node_named(g, "aten_cat_default");
  REQUIRE(split != ETK_GRAPH_NONE && cat != ETK_GRAPH_NONE);
  CHECK_EQ_INT(n[split].output_value_count, 2);
  size_t g0 = etk_graph_find_value(g, 0, "getitem");
  size_t g1 = etk_graph_find_value(g, 0, "getitem_1");
  REQUIRE(g0 != ETK_GRAPH_NONE && g1 != ETK_GRAPH_NONE);
  CHECK_EQ_INT(v[g0].output_index, 0);
  CHECK_EQ_INT(v[g1].output_index, 1);
  CHECK_EQ_INT(v[g0].producer, split);
  CHECK_EQ_INT(n[cat].input_count, 1);
  CHECK_EQ_INT(n[cat].inputs[0], split);
  const etk_graph_arg_t *tensors = arg_named(&n[cat], "tensors");
  REQUIRE(tensors);
  CHECK_EQ_INT(tensors->kind, ETK_GRAPH_ARG_TENSORS);
  CHECK_EQ_INT(tensors->count, 2);
  CHECK_EQ_INT(tensors->values[0], g1);
  CHECK_EQ_INT(tensors->values[1], g0);
  /* x feeds the convolution and sym_size */
  size_t x = etk_graph_find_value(g, 0, "x");
  REQUIRE(x != ETK_GRAPH_NONE);
  CHECK_EQ_INT(v[x].user_count, 2);
  CHECK_EQ_INT(v[x].users[0], node_named(g, "aten_convolution_default"));
  CHECK_EQ_INT(v[x].users[1], node_named(g, "sym_size_int"));
  /* debug handles: a list, and one handle shared by two nodes */
  CHECK_EQ_INT(n[split].debug_handle_count, 2);
  CHECK_EQ_INT(n[split].debug_handles[1], 4);
  const size_t *by_handle;
  CHECK_EQ_INT(etk_graph_nodes_for_handle(g, 6, &by_handle), 2);
  CHECK_EQ_INT(by_handle[0], node_named(g, "aten_mul_tensor"));
  CHECK_EQ_INT(etk_graph_nodes_for_handle(g, 999, NULL), 0);
  /* origin */
  size_t conv = node_named(g, "aten_convolution_default");
  CHECK_EQ_STR(n[conv].module_path, "conv");
  CHECK_EQ_STR(n[conv].module_type, "Conv2d");
  CHECK_EQ_STR(n[conv].source, "toy.py:11");
  CHECK_EQ_STR(n[conv].op, "aten.convolution.default");
  CHECK(n[conv].record != NULL);
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST(structured_arguments) {
  etk_etrecord_t *rec;
  etk_graph_t *g = load_full(&rec);
  REQUIRE(g);
  const etk_graph_node_t *n = etk_graph_nodes(g);
  const etk_graph_node_t *conv = &n[node_named(g, "aten_convolution_default")];
  CHECK_EQ_INT(conv->arg_count, 9);
  CHECK_EQ_INT(arg_named(conv, "bias")->kind, ETK_GRAPH_ARG_NONE);
  const etk_graph_arg_t *stride = arg_named(conv, "stride");
  CHECK_EQ_INT(stride->kind, ETK_GRAPH_ARG_INTS);
  CHECK_EQ_INT(stride->count, 2);
  CHECK_EQ_INT(stride->ints[1], 1);
  CHECK_EQ_INT(arg_named(conv, "transposed")->kind, ETK_GRAPH_ARG_BOOL);
  CHECK_EQ_INT(arg_named(conv, "groups")->i, 1);
  const etk_graph_node_t *add = &n[node_named(g, "aten_add_tensor")];
  const etk_graph_arg_t *alpha = arg_named(add, "alpha");
  CHECK_EQ_INT(alpha->kind, ETK_GRAPH_ARG_FLOAT);
  CHECK(alpha->keyword);
  CHECK(alpha->f == 1.0);
  CHECK(!arg_named(add, "self")->keyword);
  const etk_graph_node_t *to = &n[node_named(g, "aten__to_copy_default")];
  CHECK_EQ_INT(arg_named(to, "dtype")->kind, ETK_GRAPH_ARG_SCALAR_TYPE);
  CHECK_EQ_INT(arg_named(to, "dtype")->dtype, 6); /* float32 */
  CHECK_EQ_INT(arg_named(to, "layout")->i, 7);
  CHECK_EQ_INT(arg_named(to, "memory_format")->kind,
               ETK_GRAPH_ARG_MEMORY_FORMAT);
  char text[128];
  etk_graph_arg_format(g, arg_named(to, "device"), text, sizeof text);
  CHECK_EQ_STR(text, "cpu:0");
  etk_graph_arg_format(g, arg_named(to, "dtype"), text, sizeof text);
  CHECK_EQ_STR(text, "torch.float32");
  const etk_graph_node_t *ix = &n[node_named(g, "aten_index_tensor")];
  const etk_graph_arg_t *indices = arg_named(ix, "indices");
  CHECK_EQ_INT(indices->kind, ETK_GRAPH_ARG_OPTIONAL_TENSORS);
  CHECK_EQ_INT(indices->values[0], ETK_GRAPH_NONE);
  CHECK_EQ_INT(indices->values[1], etk_graph_find_value(g, 0, "idx"));
  etk_graph_arg_format(g, indices, text, sizeof text);
  CHECK_EQ_STR(text, "[None, idx]");
  const etk_graph_node_t *view = &n[node_named(g, "aten_view_copy_default")];
  const etk_graph_arg_t *size = arg_named(view, "size");
  CHECK_EQ_INT(size->kind, ETK_GRAPH_ARG_SYM_INTS);
  size_t sym = etk_graph_find_value(g, 0, "sym_size_int");
  REQUIRE(sym != ETK_GRAPH_NONE);
  CHECK_EQ_INT(etk_graph_values(g)[sym].kind, ETK_GRAPH_VALUE_SYM_INT);
  CHECK_EQ_INT(size->values[0], sym);
  CHECK_EQ_INT(size->values[1], ETK_GRAPH_NONE);
  CHECK_EQ_INT(size->ints[1], -1);
  etk_graph_arg_format(g, size, text, sizeof text);
  CHECK_EQ_STR(text, "[sym_size_int, -1]");
  /* the output node takes the graph outputs */
  const etk_graph_node_t *out = &n[etk_graph_graphs(g)[0].output_node];
  CHECK_EQ_INT(out->arg_count, 3);
  CHECK_EQ_INT(out->input_count, 3);
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST(shapes_and_dtypes) {
  etk_etrecord_t *rec;
  etk_graph_t *g = load_full(&rec);
  REQUIRE(g);
  const etk_graph_value_t *v = etk_graph_values(g);
  size_t conv = etk_graph_find_value(g, 0, "aten_convolution_default");
  REQUIRE(conv != ETK_GRAPH_NONE);
  CHECK(v[conv].has_meta);
  CHECK_EQ_INT(v[conv].meta.dim, 4);
  CHECK_EQ_INT(v[conv].meta.sizes[1], 2);
  CHECK_EQ_INT(v[conv].meta.strides[0], 2);
  CHECK_EQ_U64(v[conv].meta.numel, 2);
  CHECK_EQ_INT(v[conv].meta.serde_dtype, 7);
  CHECK_EQ_INT(v[conv].meta.dtype, 6);
  CHECK_EQ_STR(v[conv].meta.device, "cpu");
  size_t idx = etk_graph_find_value(g, 0, "idx");
  CHECK_EQ_INT(v[idx].meta.dtype, 4); /* serde LONG -> int64 */
  char shape[64];
  size_t view = etk_graph_find_value(g, 0, "aten_view_copy_default");
  CHECK(v[view].meta.has_symbolic);
  etk_graph_value_shape(g, view, shape, sizeof shape);
  CHECK_EQ_STR(shape, "[s0, 2]");
  etk_graph_value_shape(g, conv, shape, sizeof shape);
  CHECK_EQ_STR(shape, "[1, 2, 1, 1]");
  etk_graph_info_t info;
  etk_graph_info_get(g, &info);
  CHECK(info.tensor_meta_count >= 16);
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST(signature) {
  etk_etrecord_t *rec;
  etk_graph_t *g = load_full(&rec);
  REQUIRE(g);
  const etk_graph_graph_t *top = &etk_graph_graphs(g)[0];
  REQUIRE(top->input_spec_count == 5);
  const etk_graph_input_spec_t *in = top->input_specs;
  CHECK_EQ_INT(in[0].kind, ETK_GRAPH_INPUT_PARAMETER);
  CHECK_EQ_STR(in[0].target, "conv.weight");
  CHECK_EQ_INT(in[0].node, 0);
  CHECK_EQ_INT(in[1].kind, ETK_GRAPH_INPUT_BUFFER);
  CHECK(in[1].persistent);
  CHECK_EQ_STR(in[1].target, "bn.running_mean");
  CHECK_EQ_INT(in[2].kind, ETK_GRAPH_INPUT_TENSOR_CONSTANT);
  CHECK_EQ_INT(in[3].kind, ETK_GRAPH_INPUT_USER);
  CHECK_EQ_INT(in[3].user_index, 0);
  CHECK_EQ_INT(in[4].user_index, 1);
  CHECK_EQ_INT(in[0].user_index, ETK_GRAPH_NONE);
  CHECK_EQ_STR(etk_graph_input_kind_name(in[2].kind), "tensor_constant");
  REQUIRE(top->output_spec_count == 3);
  const etk_graph_output_spec_t *out = top->output_specs;
  CHECK_EQ_INT(out[0].kind, ETK_GRAPH_OUTPUT_BUFFER_MUTATION);
  CHECK_EQ_STR(out[0].target, "bn.running_mean");
  CHECK_EQ_INT(out[0].value, etk_graph_find_value(g, 0, "aten_add_tensor"));
  CHECK_EQ_INT(out[1].kind, ETK_GRAPH_OUTPUT_USER);
  CHECK_EQ_INT(out[2].user_index, 1);
  CHECK_EQ_STR(etk_graph_output_kind_name(out[0].kind), "buffer_mutation");
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST(nested_graphs_and_partitions) {
  etk_etrecord_t *rec;
  etk_graph_t *g = load_full(&rec);
  REQUIRE(g);
  const etk_graph_graph_t *gr = etk_graph_graphs(g);
  const etk_graph_node_t *n = etk_graph_nodes(g);
  size_t call = node_named(g, "executorch_call_delegate");
  size_t cond = node_named(g, "cond");
  REQUIRE(call != ETK_GRAPH_NONE && cond != ETK_GRAPH_NONE);
  CHECK_EQ_INT(gr[1].kind, ETK_GRAPH_GRAPH_LOWERED);
  CHECK_EQ_STR(gr[1].name, "lowered_module_0");
  CHECK_EQ_STR(gr[1].backend, "XnnpackBackend");
  CHECK_EQ_INT(gr[1].owner, call);
  CHECK_EQ_INT(gr[1].first_node, call + 1);
  CHECK_EQ_INT(gr[1].input_spec_count, 1);
  CHECK_EQ_INT(gr[2].kind, ETK_GRAPH_GRAPH_CONTROL_FLOW);
  CHECK_EQ_STR(gr[2].name, "true_graph_0");
  CHECK_EQ_STR(gr[3].name, "false_graph_0");
  CHECK_EQ_INT(gr[3].owner, cond);
  /* the as_graph argument points at its graph */
  CHECK_EQ_INT(arg_named(&n[cond], "false_fn")->graph, 3);
  /* names are per graph: both branches have "arg0_1" and "output" */
  size_t a2 = etk_graph_find_node(g, 2, "arg0_1");
  size_t a3 = etk_graph_find_node(g, 3, "arg0_1");
  CHECK(a2 != ETK_GRAPH_NONE && a3 != ETK_GRAPH_NONE && a2 != a3);
  CHECK_EQ_INT(n[a3].depth, 1);
  CHECK_EQ_INT(n[a3].parent, cond);
  size_t relu = etk_graph_find_node(g, 1, "aten_relu_default");
  REQUIRE(relu != ETK_GRAPH_NONE);
  CHECK_EQ_INT(n[relu].inputs[0], gr[1].placeholders[0]);
  /* partitions: the lowered module, then the map-only OtherBackend */
  REQUIRE(etk_graph_partition_count(g) == 2);
  const etk_graph_partition_t *p = etk_graph_partitions(g);
  CHECK_EQ_STR(p[0].backend, "XnnpackBackend");
  CHECK_EQ_INT(p[0].call_node, call);
  CHECK_EQ_INT(p[0].graph, 1);
  CHECK_EQ_INT(p[0].instruction_id, 9);
  CHECK_EQ_INT(p[0].node_count, 1);
  CHECK_EQ_INT(p[0].nodes[0], relu);
  CHECK_EQ_INT(n[call].partition, 0);
  CHECK_EQ_INT(n[relu].partition, 0);
  CHECK_EQ_STR(p[1].backend, "OtherBackend");
  CHECK_EQ_STR(p[1].name, "OtherBackend#12");
  CHECK_EQ_INT(p[1].call_node, ETK_GRAPH_NONE);
  CHECK_EQ_INT(p[1].node_count, 3); /* cat (5), mul and _to_copy (6) */
  CHECK_EQ_INT(n[node_named(g, "aten_mul_tensor")].partition, 1);
  CHECK_EQ_INT(n[node_named(g, "aten_add_tensor")].partition, ETK_GRAPH_NONE);
  CHECK_EQ_INT(p[1].debug_handle_count, 2);
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

static bool floats_equal(const etk_graph_tensor_t *t, const float *want,
                         size_t n) {
  return t->dtype == 6 && t->numel == n && t->nbytes == n * 4 &&
         memcmp(t->data, want, n * 4) == 0;
}

ETK_TEST(weights_and_recordings) {
  etk_etrecord_t *rec;
  etk_graph_t *g = load_full(&rec);
  REQUIRE(g);
  etk_error_t err;
  etk_error_clear(&err);
  etk_graph_tensor_t t;
  CHECK_EQ_INT(etk_graph_state_tensor(g, "conv.weight", &t, &err), ETK_OK);
  CHECK(floats_equal(&t, graph_fixture_conv_weight, 2));
  CHECK_EQ_INT(t.dim, 4);
  CHECK_EQ_INT(t.sizes[0], 2);
  /* placeholders: parameter, buffer, constant, user input */
  CHECK_EQ_INT(etk_graph_weight(g, 0, &t, &err), ETK_OK);
  CHECK(floats_equal(&t, graph_fixture_conv_weight, 2));
  CHECK_EQ_INT(etk_graph_weight(g, 1, &t, &err), ETK_OK);
  CHECK(floats_equal(&t, graph_fixture_bn_mean, 2));
  CHECK_EQ_INT(etk_graph_weight(g, 2, &t, &err), ETK_OK);
  CHECK(floats_equal(&t, graph_fixture_lifted, 1));
  CHECK_EQ_INT(etk_graph_weight(g, 3, &t, &err), ETK_E_INVALID_ARGUMENT);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_graph_placeholder_tensor(
                   g, 3, ETK_GRAPH_REPRESENTATIVE_INPUTS, 0, &t, &err),
               ETK_OK);
  CHECK(floats_equal(&t, graph_fixture_x, 1));
  CHECK_EQ_INT(
      etk_graph_placeholder_tensor(g, 0, ETK_GRAPH_EXAMPLE_INPUTS, 0, &t, &err),
      ETK_OK);
  CHECK(floats_equal(&t, graph_fixture_conv_weight, 2));
  /* idx is user input 1 but the recording holds one tensor */
  CHECK_EQ_INT(
      etk_graph_placeholder_tensor(g, 4, ETK_GRAPH_EXAMPLE_INPUTS, 0, &t, &err),
      ETK_E_NOT_FOUND);
  etk_error_clear(&err);
  const etk_graph_tensor_t *items;
  size_t count;
  CHECK_EQ_INT(
      etk_graph_recorded(g, ETK_GRAPH_EXAMPLE_INPUTS, 0, &items, &count, &err),
      ETK_OK);
  CHECK_EQ_INT(count, 1);
  CHECK_EQ_INT(etk_graph_recorded(g, ETK_GRAPH_REFERENCE_OUTPUTS, -1, &items,
                                  &count, &err),
               ETK_OK);
  REQUIRE(count == 1);
  CHECK(floats_equal(&items[0], graph_fixture_reference, 2));
  CHECK_EQ_INT(etk_graph_recorded_case_count(g, ETK_GRAPH_REFERENCE_OUTPUTS),
               1);
  CHECK_EQ_INT(
      etk_graph_recorded_case_count(g, ETK_GRAPH_REPRESENTATIVE_INPUTS), 1);
  CHECK_EQ_INT(etk_graph_recorded(g, ETK_GRAPH_REFERENCE_OUTPUTS, 3, &items,
                                  &count, &err),
               ETK_E_NOT_FOUND);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_graph_state_tensor(g, "no.such", &t, &err), ETK_E_NOT_FOUND);
  CHECK_CONTAINS(err.message, "no.such");
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

/* Loads an edited copy of the fixture and checks the error. */
static void expect_error(const char *from, const char *to, int code,
                         const char *text) {
  char *prog = graph_fixture_edit(graph_fixture_program(), from, to);
  if (!prog) {
    CHECK(prog != NULL);
    return;
  }
  etk_etrecord_t *rec;
  etk_graph_t *g;
  char line[512];
  int rc = graph_fixture_load(prog, 0, &rec, &g, line, sizeof line);
  free(prog);
  CHECK_EQ_INT(rc, code);
  CHECK(g == NULL);
  if (rc != ETK_OK) {
    if (!strstr(line, text)) printf("# error line: %s\n", line);
    CHECK(strstr(line, text) != NULL);
  }
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST(damaged_graphs_give_clear_errors) {
  /* an edge naming a value nothing produces */
  expect_error("[{\"name\":\"getitem_1\"},{\"name\":\"getitem\"}]",
               "[{\"name\":\"nowhere\"},{\"name\":\"getitem\"}]", ETK_E_FORMAT,
               "uses 'nowhere', which no node or input");
  /* a cycle: the convolution takes the cat's output */
  expect_error("{\"name\":\"input\",\"arg\":{\"as_tensor\":{\"name\":\"x\"}}",
               "{\"name\":\"input\",\"arg\":{\"as_tensor\":{\"name\":"
               "\"aten_cat_default\"}}",
               ETK_E_FORMAT, "cycle");
  /* two nodes with one name */
  expect_error("\"name\":\"aten_add_tensor\",\"target\"",
               "\"name\":\"aten_convolution_default\",\"target\"", ETK_E_FORMAT,
               "are named 'aten_convolution_default'");
  /* a value produced twice */
  expect_error(
      "[{\"as_tensors\":[{\"name\":\"getitem\"},{\"name\":"
      "\"getitem_1\"}]}]",
      "[{\"as_tensors\":[{\"name\":\"getitem\"},{\"name\":"
      "\"getitem\"}]}]",
      ETK_E_FORMAT, "produced twice");
  /* a malformed TensorMeta */
  expect_error("\"dtype\":7", "\"dtype\":\"float\"", ETK_E_FORMAT,
               "not a valid TensorMeta");
  /* sizes whose product overflows int64 */
  expect_error(
      "\"p_conv_weight\":{\"dtype\":7,\"sizes\":[{\"as_int\":2},"
      "{\"as_int\":1}",
      "\"p_conv_weight\":{\"dtype\":7,\"sizes\":[{\"as_int\":"
      "4611686018427387904},{\"as_int\":8}",
      ETK_E_LIMIT, "multiply beyond int64");
}

ETK_TEST(lenient_missing_values) {
  char *prog = graph_fixture_edit(
      graph_fixture_program(),
      "{\"name\":\"other\",\"arg\":{\"as_tensor\":{\"name\":"
      "\"c_lifted_tensor_0\"}}",
      "{\"name\":\"other\",\"arg\":{\"as_tensor\":{\"name\":\"gone\"}}");
  REQUIRE(prog);
  etk_etrecord_t *rec;
  etk_graph_t *g;
  char line[512];
  CHECK_EQ_INT(graph_fixture_load(prog, 0, &rec, &g, line, sizeof line),
               ETK_E_FORMAT);
  etk_etrecord_close(rec);
  CHECK_EQ_INT(graph_fixture_load(prog, ETK_GRAPH_LENIENT_MISSING, &rec, &g,
                                  line, sizeof line),
               ETK_OK);
  free(prog);
  REQUIRE(g);
  const etk_graph_node_t *mul =
      &etk_graph_nodes(g)[node_named(g, "aten_mul_tensor")];
  const etk_graph_arg_t *other = arg_named(mul, "other");
  CHECK_EQ_INT(other->values[0], ETK_GRAPH_NONE);
  CHECK_EQ_STR(other->value_names[0], "gone");
  CHECK_EQ_INT(mul->input_count, 1);
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST(upstream_sample_2023_layout) {
  ETK_CONFORMANCE_PATH(path, "etrecord_toy_mul.bin");
  etk_etrecord_t *rec;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_etrecord_open_file(path, NULL, &rec, &err) == ETK_OK);
  etk_graph_t *g;
  REQUIRE(etk_graph_load(rec, NULL, &g, &err) == ETK_OK);
  const etk_graph_node_t *n = etk_graph_nodes(g);
  CHECK_EQ_INT(etk_graph_node_count(g), 4);
  CHECK_EQ_STR(n[0].name, "arg0_1");
  CHECK_EQ_STR(n[2].name, "aten_mul_tensor");
  CHECK_EQ_INT(n[2].input_count, 2);
  CHECK_EQ_INT(n[2].debug_handles[0], 2);
  CHECK_EQ_STR(n[2].source, "model.py:18");
  char shape[32];
  etk_graph_value_shape(g, n[2].output_values[0], shape, sizeof shape);
  CHECK_EQ_STR(shape, "[3, 2]");
  const etk_graph_graph_t *top = &etk_graph_graphs(g)[0];
  CHECK_EQ_INT(top->input_spec_count, 2);
  CHECK_EQ_INT(top->input_specs[1].kind, ETK_GRAPH_INPUT_USER);
  CHECK_EQ_INT(etk_graph_partition_count(g), 0);
  etk_graph_free(g);
  /* the old layout's ATen graph: nodes without names take their output's */
  etk_graph_options_t o;
  etk_graph_options_default(&o);
  o.graph_name = "aten_dialect_output";
  REQUIRE(etk_graph_load(rec, &o, &g, &err) == ETK_OK);
  CHECK_EQ_STR(etk_graph_nodes(g)[2].name, "mul");
  CHECK_EQ_INT(etk_graph_nodes(g)[2].debug_handle_count, 0);
  etk_graph_free(g);
  o.graph_name = "exported_program";
  CHECK_EQ_INT(etk_graph_load(rec, &o, &g, &err), ETK_E_NOT_FOUND);
  CHECK_CONTAINS(err.message, "the ETRecord has: aten_dialect_output/forward",
                 "edge_dialect_exported_program");
  etk_etrecord_close(rec);
}

ETK_TEST(writer_records_and_map_partitions) {
  etk_etrecord_input_desc_t in1[] = {{"self", "x"}};
  etk_etrecord_input_desc_t in2[] = {{"self", "aten_relu_default"},
                                     {"other", "x"}};
  const char *o1[] = {"aten_relu_default"}, *o2[] = {"aten_add_tensor"};
  etk_etrecord_node_desc_t nodes[] = {
      {.name = "aten_relu_default",
       .target = "executorch.exir.dialects.edge.ops.aten.relu.default",
       .debug_handle = 1,
       .inputs = in1,
       .input_count = 1,
       .outputs = o1,
       .output_count = 1},
      {.name = "aten_add_tensor",
       .target = "executorch.exir.dialects.edge.ops.aten.add.Tensor",
       .debug_handle = 2,
       .inputs = in2,
       .input_count = 2,
       .outputs = o2,
       .output_count = 1}};
  int64_t h1[] = {1}, h2[] = {2};
  etk_etrecord_handle_desc_t handles[] = {{0, h1, 1, false}, {1, h2, 1, true}};
  etk_etrecord_delegate_id_desc_t ids[] = {{"0", h2, 1}};
  etk_etrecord_delegate_desc_t dels[] = {{1, "MyBackend", ids, 1, 1}};
  const char *graph_in[] = {"x"};
  int64_t sizes[] = {4};
  etk_etrecord_tensor_desc_t tensors[] = {{"x", 7, sizes, 1},
                                          {"aten_add_tensor", 7, sizes, 1}};
  etk_etrecord_method_desc_t m = {.name = "forward",
                                  .nodes = nodes,
                                  .node_count = 2,
                                  .graph_inputs = graph_in,
                                  .graph_input_count = 1,
                                  .graph_outputs = o2,
                                  .graph_output_count = 1,
                                  .tensors = tensors,
                                  .tensor_count = 2,
                                  .handles = handles,
                                  .handle_count = 2,
                                  .delegates = dels,
                                  .delegate_count = 1};
  etk_etrecord_desc_t desc = {.methods = &m, .method_count = 1};
  etk_etrecord_t *rec;
  etk_graph_t *g;
  char line[256];
  REQUIRE(graph_fixture_load_desc(&desc, &rec, &g, line, sizeof line) ==
          ETK_OK);
  CHECK_EQ_INT(etk_graph_node_count(g), 4);
  const etk_graph_node_t *n = etk_graph_nodes(g);
  CHECK_EQ_INT(n[2].input_count, 2);
  CHECK_EQ_INT(n[2].inputs[0], 1);
  CHECK_EQ_INT(n[2].inputs[1], 0);
  REQUIRE(etk_graph_partition_count(g) == 1);
  CHECK_EQ_STR(etk_graph_partitions(g)[0].backend, "MyBackend");
  CHECK_EQ_INT(etk_graph_partitions(g)[0].nodes[0], 2);
  CHECK_EQ_INT(n[1].partition, ETK_GRAPH_NONE);
  char shape[16];
  etk_graph_value_shape(g, n[2].output_values[0], shape, sizeof shape);
  CHECK_EQ_STR(shape, "[4]");
  /* the writer stores empty weights: asking for one says so */
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_graph_state_tensor(g, "w", &(etk_graph_tensor_t){0}, &err),
               ETK_E_NOT_FOUND);
  etk_error_clear(&err);
  CHECK_EQ_INT(
      etk_graph_recorded(g, ETK_GRAPH_REPRESENTATIVE_INPUTS, 0,
                         &(const etk_graph_tensor_t *){0}, &(size_t){0}, &err),
      ETK_E_NOT_FOUND);
  CHECK_CONTAINS(err.message, "update_representative_inputs");
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST(model_explorer_json) {
  etk_etrecord_t *rec;
  etk_graph_t *g = load_full(&rec);
  REQUIRE(g);
  char *js;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_graph_model_explorer_json(g, NULL, &js, &len, &err) == ETK_OK);
  CHECK_EQ_INT(strlen(js), len);
  CHECK_CONTAINS(js, "\"graphs\":[{\"id\":\"graph\"",
                 "{\"id\":\"p_conv_weight\",\"label\":\"p_conv_weight\","
                 "\"namespace\":\"inputs\"",
                 "\"id\":\"aten_convolution_default\",\"label\":\"aten."
                 "convolution\",\"namespace\":\"toy.Model/torch.nn.modules."
                 "conv.Conv2d_conv\"",
                 "{\"id\":\"getitem_1\",\"label\":\"getitem\"",
                 "{\"sourceNodeId\":\"getitem_1\",\"sourceNodeOutputId\":\"0\","
                 "\"targetNodeInputId\":\"0\"}",
                 "\"namespace\":\"OtherBackend_1\"",
                 "\"value\":\"torch.float32[1, 2, 1, 1]\"",
                 "\"subgraphIds\":[\"graph/lowered_module_0\"]",
                 "{\"id\":\"graph/false_graph_0\"");
  free(js);
  /* node data: unreached nodes are left out, never 0 */
  size_t count = etk_graph_node_count(g);
  double *values = calloc(count, sizeof *values);
  bool *has = calloc(count, sizeof *has);
  REQUIRE(values && has);
  size_t conv = node_named(g, "aten_convolution_default");
  values[conv] = 1.25;
  has[conv] = true;
  etk_graph_node_data_t nd = {values, has, count, NULL, 0, NULL, NULL};
  REQUIRE(etk_graph_node_data_json(g, &nd, 0, &js, &len, &err) == ETK_OK);
  CHECK_EQ_STR(js,
               "{\"graph\":{\"results\":{\"aten_convolution_default\":{"
               "\"value\":1.25}},\"gradient\":[{\"stop\":0.0,\"bgColor\":"
               "\"#ffffff\"},{\"stop\":1.0,\"bgColor\":\"#d7191c\"}]}}");
  free(js);
  nd.node_count = 3;
  CHECK_EQ_INT(etk_graph_node_data_json(g, &nd, 0, &js, &len, &err),
               ETK_E_INVALID_ARGUMENT);
  /* the file writers refuse a NULL path before making any text */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_graph_write_node_data(g, &nd, NULL, &err),
               ETK_E_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "NULL path") != NULL);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_graph_write_model_explorer(g, NULL, NULL, &err),
               ETK_E_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "NULL path") != NULL);
  free(values);
  free(has);
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST_MAIN()
