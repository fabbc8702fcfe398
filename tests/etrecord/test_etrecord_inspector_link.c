/*
 * test_etrecord_inspector_link.c - filling an Inspector's links from an
 * ETRecord, end to end: the upstream tutorial ETDump (a small CNN, 14
 * instructions) opened by the inspector, an ETRecord written by etkit for
 * the same 14 instructions, etk_etrecord_inspector_link(), and what the
 * inspector then reports and renders; a record with a second graph (a
 * graph_map entry) linked through it (upstream's reference_graph_name).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/etrecord.h"
#include "etkit/etrecord_writer.h"
#include "etkit/inspector.h"
#include "etkit/link.h"
#include "etkit/render.h"

static const char *const kOps[14] = {
    "convolution.default",  "relu.default",  "max_pool2d_with_indices.default",
    "convolution.default",  "relu.default",  "max_pool2d_with_indices.default",
    "permute_copy.default", "addmm.default", "relu.default",
    "permute_copy.default", "addmm.default", "relu.default",
    "permute_copy.default", "addmm.default"};

static char names[14][64], targets[14][128], traces[14][96];
static etk_etrecord_node_desc_t nodes[14];
static etk_etrecord_handle_desc_t handles[14];
static int64_t handle_values[14];
static const etk_etrecord_module_desc_t kConv1[] = {
    {"L__self__", "", "Net"},
    {"L__self___conv1", "L['self'].conv1", "torch.nn.Conv2d"}};

static uint8_t *write_record(size_t *len) {
  for (int i = 0; i < 14; i++) {
    snprintf(names[i], sizeof names[i], "aten_%.*s_%d",
             (int)strcspn(kOps[i], "."), kOps[i], i);
    snprintf(targets[i], sizeof targets[i],
             "executorch.exir.dialects.edge.ops.aten.%s", kOps[i]);
    snprintf(traces[i], sizeof traces[i],
             "  File \"/src/cnn.py\", line %d, in forward\n    x = f(x)\n",
             20 + i);
    handle_values[i] = i + 1;
    nodes[i] = (etk_etrecord_node_desc_t){.name = names[i],
                                          .target = targets[i],
                                          .debug_handle = i + 1,
                                          .stack_trace = traces[i]};
    handles[i] = (etk_etrecord_handle_desc_t){i, &handle_values[i], 1, false};
  }
  nodes[0].module_stack = kConv1;
  nodes[0].module_stack_count = 2;
  etk_etrecord_method_desc_t m = {.name = "forward",
                                  .nodes = nodes,
                                  .node_count = 14,
                                  .handles = handles,
                                  .handle_count = 14};
  etk_etrecord_desc_t desc = {.methods = &m, .method_count = 1};
  uint8_t *out = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_etrecord_write_memory(&desc, &out, len, &err) != ETK_OK) return NULL;
  return out;
}

static size_t find_event(etk_inspector_t *insp, const char *name, int32_t iid) {
  for (size_t i = 0; i < etk_inspector_event_count(insp); i++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(insp, i, &ev) == ETK_OK &&
        strcmp(ev.name, name) == 0 && ev.instruction_id == iid)
      return i;
  }
  return SIZE_MAX;
}

/* The record a writer makes, opened (NULL on failure). */
static etk_etrecord_t *open_written(uint8_t *(*write)(size_t *)) {
  size_t len;
  uint8_t *zip = write(&len);
  etk_etrecord_t *rec = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (zip && etk_etrecord_open_memory(zip, len, NULL, &rec, &err) != ETK_OK)
    rec = NULL;
  free(zip);
  return rec;
}

ETK_TEST(tutorial_etdump_gets_linked) {
  ETK_CONFORMANCE_PATH(path, "etdump_tutorial.etdp");
  etk_etrecord_t *rec = open_written(write_record);
  REQUIRE(rec != NULL);
  etk_error_t err;
  etk_error_clear(&err);
  etk_inspector_options_t opt;
  etk_inspector_options_init(&opt);
  etk_inspector_t *insp;
  REQUIRE(etk_inspector_open_path(path, &opt, &insp, &err) == ETK_OK);

  etk_etrecord_link_summary_t sum;
  REQUIRE(etk_etrecord_inspector_link(rec, insp, NULL, 0, &sum, &err) ==
          ETK_OK);
  CHECK_EQ_INT(sum.events, etk_inspector_event_count(insp));
  /* every event has an instruction id in the map (framework events get
   * instruction 0's handle, as upstream); only the 28 operator events get
   * nodes */
  CHECK_EQ_INT(sum.linked, sum.events);
  CHECK_EQ_INT(sum.with_nodes, 28);
  CHECK_EQ_INT(sum.no_delegate_mapping, 0);

  size_t conv = find_event(insp, "native_call_convolution.out", 0);
  REQUIRE(conv != SIZE_MAX);
  etk_inspector_event_link_t l;
  REQUIRE(etk_inspector_event_link(insp, conv, &l) == ETK_OK);
  CHECK(l.has_debug_handles && !l.debug_handles_is_list);
  REQUIRE(l.debug_handle_count == 1);
  CHECK_EQ_INT(l.debug_handles[0], 1);
  CHECK_EQ_INT(l.num_outputs, 1);
  CHECK(l.delegate_backend_name == NULL);
  REQUIRE(l.op_type_count == 1);
  CHECK_EQ_STR(l.op_types[0], "aten.convolution.default");
  REQUIRE(l.node_count == 1);
  CHECK_EQ_STR(l.nodes[0].name, "aten_convolution_0_");
  CHECK_EQ_STR(l.nodes[0].stack_trace,
               "  File \"/src/cnn.py\", line 20, in forward\n    x = f(x)\n");
  CHECK_EQ_STR(
      l.nodes[0].module_hierarchy,
      "L__self__,,Net;L__self___conv1,L['self'].conv1,torch.nn.Conv2d");

  size_t addmm = find_event(insp, "OPERATOR_CALL", 13);
  REQUIRE(addmm != SIZE_MAX);
  REQUIRE(etk_inspector_event_link(insp, addmm, &l) == ETK_OK);
  REQUIRE(l.op_type_count == 1);
  CHECK_EQ_STR(l.op_types[0], "aten.addmm.default");
  CHECK(l.nodes[0].module_hierarchy == NULL);

  size_t exec = find_event(insp, "Method::execute", 0);
  REQUIRE(exec != SIZE_MAX);
  REQUIRE(etk_inspector_event_link(insp, exec, &l) == ETK_OK);
  CHECK(l.has_debug_handles);
  CHECK_EQ_INT(l.op_type_count, 0);

  /* the rendered TSV now carries the op types */
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  etk_inspector_render_options_t ro;
  etk_inspector_render_options_init(&ro);
  ro.format = ETK_INSPECT_FORMAT_TSV;
  REQUIRE(etk_inspector_render(insp, &ro, &sink, &err) == ETK_OK);
  REQUIRE(etk_render_sink_flush(&sink) == ETK_OK);
  size_t tsv_len;
  char *tsv = etk_render_sink_take(&sink, &tsv_len);
  REQUIRE(tsv != NULL);
  CHECK_CONTAINS(tsv, "native_call_convolution.out\t",
                 "['aten.convolution.default']",
                 "['aten.max_pool2d_with_indices.default']");
  free(tsv);
  etk_inspector_close(insp);

  /* framework events get nothing with INSTRUCTIONS_ONLY */
  REQUIRE(etk_inspector_open_path(path, &opt, &insp, &err) == ETK_OK);
  REQUIRE(etk_etrecord_inspector_link(rec, insp, "forward",
                                      ETK_ETRECORD_LINK_INSTRUCTIONS_ONLY, &sum,
                                      &err) == ETK_OK);
  CHECK_EQ_INT(sum.linked, 28);
  exec = find_event(insp, "Method::execute", 0);
  REQUIRE(etk_inspector_event_link(insp, exec, &l) == ETK_OK);
  CHECK(!l.has_debug_handles);
  /* a method the record does not have links nothing */
  REQUIRE(etk_etrecord_inspector_link(rec, insp, "decode", 0, &sum, &err) ==
          ETK_OK);
  CHECK_EQ_INT(sum.linked, 0);
  CHECK(etk_etrecord_inspector_link(NULL, insp, NULL, 0, NULL, NULL) ==
        ETK_E_INVALID_ARGUMENT);
  etk_inspector_close(insp);
  etk_etrecord_close(rec);
}

/* The record of write_record() plus a graph_map entry "encoder/forward"
 * whose nodes carry handles 1..4 only, with other names and ops: the edge
 * program of a second method written by etkit, copied under that name. */
static uint8_t *write_two_graphs(size_t *len) {
  static char enc_names[4][32], enc_traces[4][96];
  static etk_etrecord_node_desc_t enc[4];
  for (int i = 0; i < 4; i++) {
    snprintf(enc_names[i], sizeof enc_names[i], "encoder_mul_%d", i);
    snprintf(enc_traces[i], sizeof enc_traces[i],
             "  File \"/src/enc.py\", line %d, in forward\n    y = x * x\n",
             40 + i);
    enc[i] = (etk_etrecord_node_desc_t){
        .name = enc_names[i],
        .target = "executorch.exir.dialects.edge.ops.aten.mul.Tensor",
        .debug_handle = i + 1,
        .stack_trace = enc_traces[i]};
  }
  size_t first_len;
  uint8_t *first = write_record(&first_len);
  if (!first) return NULL;
  free(first); /* write_record() filled nodes[] and handles[] */
  etk_etrecord_method_desc_t m[2] = {
      {.name = "forward",
       .nodes = nodes,
       .node_count = 14,
       .handles = handles,
       .handle_count = 14},
      {.name = "encoder", .nodes = enc, .node_count = 4}};
  etk_etrecord_desc_t desc = {.methods = m, .method_count = 2};
  uint8_t *both = NULL, *out = NULL;
  size_t both_len;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_etrecord_write_memory(&desc, &both, &both_len, &err) != ETK_OK)
    return NULL;
  etk_etrecord_t *rec;
  const uint8_t *json;
  size_t json_len;
  if (etk_etrecord_open_memory(both, both_len, NULL, &rec, &err) != ETK_OK) {
    free(both);
    return NULL;
  }
  int rc = etk_etrecord_member_read(
      rec, "edge_dialect_exported_program/encoder", &json, &json_len, &err);
  etk_etrecord_blob_desc_t extra = {"encoder/forward", json, json_len};
  desc.method_count = 1;
  desc.extra_members = &extra;
  desc.extra_member_count = 1;
  if (rc == ETK_OK) rc = etk_etrecord_write_memory(&desc, &out, len, &err);
  etk_etrecord_close(rec);
  free(both);
  return rc == ETK_OK ? out : NULL;
}

ETK_TEST(reference_graph_gives_the_nodes) {
  ETK_CONFORMANCE_PATH(path, "etdump_tutorial.etdp");
  etk_etrecord_t *rec = open_written(write_two_graphs);
  REQUIRE(rec != NULL);
  etk_error_t err;
  etk_error_clear(&err);
  etk_inspector_options_t opt;
  etk_inspector_options_init(&opt);
  /* default, "edge_dialect_graph_module" and the graph by its two names */
  const char *const graphs[] = {NULL, "edge_dialect_graph_module",
                                "encoder/forward", "encoder"};
  for (int k = 0; k < 4; k++) {
    etk_inspector_t *insp;
    REQUIRE(etk_inspector_open_path(path, &opt, &insp, &err) == ETK_OK);
    etk_link_policy_t p;
    etk_link_policy_init(&p);
    p.reference_graph = graphs[k];
    etk_etrecord_link_summary_t sum;
    REQUIRE(etk_etrecord_link_with_policy(rec, insp, &p, &sum, &err) == ETK_OK);
    /* the maps are forward's either way */
    CHECK_EQ_INT(sum.linked, 28);
    etk_inspector_event_link_t l;
    size_t conv = find_event(insp, "native_call_convolution.out", 0);
    size_t addmm = find_event(insp, "OPERATOR_CALL", 13);
    REQUIRE(conv != SIZE_MAX && addmm != SIZE_MAX);
    REQUIRE(etk_inspector_event_link(insp, conv, &l) == ETK_OK);
    REQUIRE(l.debug_handle_count == 1 && l.op_type_count == 1);
    CHECK_EQ_INT(l.debug_handles[0], 1);
    if (k < 2) {
      CHECK_EQ_INT(sum.with_nodes, 28);
      CHECK_EQ_STR(l.op_types[0], "aten.convolution.default");
      CHECK_EQ_STR(l.nodes[0].name, "aten_convolution_0_");
    } else {
      /* handles 1..4 name encoder nodes: instructions 0..3, twice each
       * (native_call and OPERATOR_CALL events) */
      CHECK_EQ_INT(sum.with_nodes, 8);
      CHECK_EQ_STR(l.op_types[0], "aten.mul.Tensor");
      REQUIRE(l.node_count == 1);
      CHECK_EQ_STR(l.nodes[0].name, "encoder_mul_0_");
      CHECK_CONTAINS(l.nodes[0].stack_trace, "/src/enc.py\", line 40");
    }
    REQUIRE(etk_inspector_event_link(insp, addmm, &l) == ETK_OK);
    CHECK_EQ_INT(l.debug_handles[0], 14);
    CHECK_EQ_INT(l.op_type_count, k < 2 ? 1 : 0);
    etk_inspector_close(insp);
  }

  /* a graph the record lacks: an error naming the graphs, nothing linked */
  etk_inspector_t *insp;
  REQUIRE(etk_inspector_open_path(path, &opt, &insp, &err) == ETK_OK);
  etk_link_policy_t p;
  etk_link_policy_init(&p);
  p.reference_graph = "decoder";
  p.record_name = "model.etrecord";
  etk_error_clear(&err);
  CHECK(etk_etrecord_link_with_policy(rec, insp, &p, NULL, &err) ==
        ETK_E_NOT_FOUND);
  CHECK_CONTAINS(err.message,
                 "reference graph 'decoder' is not in the ETRecord (graphs: "
                 "edge_dialect_graph_module, encoder/forward)");
  CHECK_CONTAINS(err.where, "model.etrecord");
  etk_inspector_event_link_t l;
  size_t conv = find_event(insp, "native_call_convolution.out", 0);
  REQUIRE(etk_inspector_event_link(insp, conv, &l) == ETK_OK);
  CHECK(!l.has_debug_handles);

  /* the linker directly: set, then back to the edge program */
  etk_etrecord_linker_t *linker;
  REQUIRE(etk_etrecord_linker_create(rec, 0, &linker, &err) == ETK_OK);
  CHECK(etk_etrecord_linker_set_graph(linker, "nope", &err) == ETK_E_NOT_FOUND);
  CHECK(etk_etrecord_linker_set_graph(NULL, "encoder", &err) ==
        ETK_E_INVALID_ARGUMENT);
  etk_etrecord_event_ref_t ref = {.name = "OPERATOR_CALL",
                                  .chain_index = 0,
                                  .instruction_id = 2,
                                  .has_instruction_id = true,
                                  .delegate_debug_id_int = -1};
  etk_etrecord_event_link_t el;
  REQUIRE(etk_etrecord_linker_set_graph(linker, "encoder", &err) == ETK_OK);
  REQUIRE(etk_etrecord_linker_resolve(linker, &ref, &el, &err) == ETK_OK);
  REQUIRE(el.node_count == 1);
  CHECK_EQ_STR(el.nodes[0]->name, "encoder_mul_2");
  REQUIRE(etk_etrecord_linker_set_graph(linker, NULL, &err) == ETK_OK);
  REQUIRE(etk_etrecord_linker_resolve(linker, &ref, &el, &err) == ETK_OK);
  REQUIRE(el.node_count == 1);
  CHECK_EQ_STR(el.nodes[0]->name, "aten_max_pool2d_with_indices_2");
  etk_etrecord_linker_destroy(linker);
  etk_inspector_close(insp);
  etk_etrecord_close(rec);
}

ETK_TEST_MAIN()
