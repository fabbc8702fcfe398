/*
 * test_etrecord_read.c - reading ETRecords: the upstream toy sample (2023
 * layout), hand-made records of both JSON dialects and every member
 * layout, multi-method and deflated records, Python's Infinity/NaN tokens,
 * full int64 integers, nested graphs, the three maps, and the text
 * helpers (stack traces, module stacks, targets).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "fixture.h"

/* ------------------------------------------------------------ the sample */

ETK_TEST(toy_sample_reads) {
  ETK_CONFORMANCE_PATH(path, "etrecord_toy_mul.bin");
  etk_etrecord_t *rec;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_etrecord_open_file(path, NULL, &rec, &err) == ETK_OK);

  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  CHECK_EQ_INT(info.layout, ETK_ETRECORD_LAYOUT_2023_09);
  CHECK_EQ_INT(info.member_count, 7);
  CHECK_EQ_INT(info.program_count, 2);
  CHECK_EQ_INT(info.method_count, 0); /* both maps are {} */
  CHECK_EQ_INT(info.features, ETK_ETRECORD_HAS_DEBUG_HANDLE_MAP |
                                  ETK_ETRECORD_HAS_DELEGATE_MAP);
  CHECK_EQ_STR(etk_etrecord_member_at(rec, 0)->name, "ETRECORD_V0");
  const etk_etrecord_member_t *sd =
      etk_etrecord_member_find(rec, "edge_dialect_exported_program_state_dict");
  REQUIRE(sd != NULL);
  CHECK_EQ_INT(sd->kind, ETK_ETRECORD_MEMBER_STATE_DICT);
  CHECK_EQ_INT(sd->compression, 0);
  const uint8_t *blob;
  size_t blob_len;
  REQUIRE(etk_etrecord_member_read(rec, sd->name, &blob, &blob_len, &err) ==
          ETK_OK);
  CHECK_EQ_INT(blob_len, 864);
  CHECK_EQ_INT(etk_etrecord_blob_kind(blob, blob_len),
               ETK_ETRECORD_BLOB_TORCH_ZIP);
  CHECK(etk_etrecord_member_read(rec, "reference_outputs", &blob, &blob_len,
                                 NULL) == ETK_E_NOT_FOUND);

  const etk_etrecord_program_t *edge;
  REQUIRE(etk_etrecord_edge_program_load(rec, NULL, &edge, &err) == ETK_OK);
  CHECK_EQ_STR(edge->ref.member, "edge_dialect_exported_program");
  CHECK_EQ_STR(edge->ref.method, "forward");
  CHECK_EQ_INT(edge->ref.kind, ETK_ETRECORD_PROGRAM_EDGE);
  CHECK_EQ_INT(edge->dialect, ETK_ETRECORD_DIALECT_ALL_TAGS);
  CHECK_EQ_INT(edge->schema_major, 1);
  CHECK_EQ_INT(edge->schema_minor, -1);
  char version[16];
  CHECK_EQ_INT(
      etk_etrecord_program_schema_version(edge, version, sizeof version), 1);
  CHECK_EQ_STR(version, "1");
  REQUIRE(edge->input_count == 2 && edge->output_count == 1);
  CHECK_EQ_STR(edge->inputs[0], "arg0_1");
  CHECK_EQ_STR(edge->inputs[1], "arg1_1");
  CHECK_EQ_STR(edge->outputs[0], "aten_mul_tensor");
  REQUIRE(edge->node_count == 1);
  const etk_etrecord_node_t *n = &edge->nodes[0];
  CHECK_EQ_STR(n->name, "aten_mul_tensor"); /* 2023 nodes have no name */
  CHECK_EQ_STR(n->target, "executorch.exir.dialects.edge.ops.aten.mul.Tensor");
  CHECK_EQ_STR(n->op, "aten.mul.Tensor");
  CHECK(n->has_debug_handle);
  CHECK_EQ_INT(n->debug_handle, 2);
  CHECK(n->nn_module_stack == NULL);
  CHECK_EQ_INT(n->module_count, 0);
  REQUIRE(n->source_fn_count == 1);
  CHECK_EQ_STR(n->source_fns[0].name, "mul");
  CHECK_EQ_STR(n->source_fns[0].fn, "_operator.mul");
  CHECK_EQ_STR(n->args, "self=arg0_1, other=arg1_1");
  CHECK_EQ_INT(n->depth, 0);
  CHECK_EQ_U64(n->parent, ETK_ETRECORD_NO_PARENT);
  CHECK_EQ_INT(n->metadata_count, 3);
  REQUIRE(n->stack_trace != NULL);
  etk_etrecord_frame_t f;
  REQUIRE(etk_etrecord_stack_trace_user_frame(
              n->stack_trace, strlen(n->stack_trace), &f) == ETK_OK);
  CHECK_EQ_INT(f.line, 18);
  CHECK(f.file.len > 8 &&
        memcmp(f.file.ptr + f.file.len - 8, "model.py", 8) == 0);
  CHECK(f.function.len == 7 && memcmp(f.function.ptr, "forward", 7) == 0);
  CHECK(f.code.len == 20 &&
        memcmp(f.code.ptr, "return input * other", 20) == 0);
  char buf[256];
  etk_etrecord_node_source(n, false, buf, sizeof buf);
  CHECK_EQ_STR(buf, "model.py:18");
  const etk_etrecord_node_t *const *by_handle;
  CHECK_EQ_INT(etk_etrecord_program_nodes_for_handle(edge, 2, &by_handle), 1);
  CHECK(by_handle && by_handle[0] == n);
  CHECK_EQ_INT(etk_etrecord_program_nodes_for_handle(edge, 3, &by_handle), 0);

  const etk_etrecord_program_t *aten;
  REQUIRE(etk_etrecord_graph_load(rec, "aten_dialect_output", &aten, &err) ==
          ETK_OK);
  CHECK_EQ_STR(aten->ref.member, "aten_dialect_output/forward");
  CHECK_EQ_INT(aten->ref.kind, ETK_ETRECORD_PROGRAM_EXTRA);
  REQUIRE(aten->node_count == 1);
  CHECK_EQ_STR(aten->nodes[0].op, "aten.mul.Tensor");
  CHECK(!aten->nodes[0].has_debug_handle);
  const etk_etrecord_program_t *again;
  REQUIRE(etk_etrecord_graph_load(rec, "edge_dialect_graph_module", &again,
                                  &err) == ETK_OK);
  CHECK(again == edge); /* cached */
  CHECK(etk_etrecord_graph_load(rec, "exported_program", &again, NULL) ==
        ETK_E_NOT_FOUND);
  CHECK(etk_etrecord_edge_program_load(rec, "decode", &again, NULL) ==
        ETK_E_NOT_FOUND);
  etk_etrecord_close(rec);
}

/* ------------------------------------------------- the 2023 JSON dialect */

#define OLD_TAIL                                                            \
  "\"as_int\": null, \"as_ints\": null, \"as_float\": null, "               \
  "\"as_floats\": null, \"as_string\": null, \"as_strings\": null, "        \
  "\"as_sym_int\": null, \"as_sym_ints\": null, \"as_scalar_type\": null, " \
  "\"as_memory_format\": null, \"as_layout\": null, \"as_device\": null, "  \
  "\"as_bool\": null, \"as_bools\": null, \"as_sym_bool\": null, "          \
  "\"as_sym_bools\": null, \"as_graph\": null, "                            \
  "\"as_optional_tensors\": null, \"as_custom_obj\": null"
#define OLD_TENSOR(n)                                  \
  "{\"as_none\": null, \"as_tensor\": {\"name\": \"" n \
  "\"}, "                                              \
  "\"as_tensors\": null, " OLD_TAIL "}"
#define OLD_TENSORS(a, b)                                                     \
  "{\"as_none\": null, \"as_tensor\": null, \"as_tensors\": [{\"name\": \"" a \
  "\"}, {\"name\": \"" b "\"}], " OLD_TAIL "}"

static const char kOldProgram[] =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [" OLD_TENSOR("x") "], "
    "\"outputs\": [" OLD_TENSOR("getitem_1") "], "
    "\"nodes\": ["
    "{\"target\": \"executorch.exir.dialects.edge.ops.aten.split.Tensor\", "
    "\"inputs\": [{\"name\": \"self\", \"arg\": " OLD_TENSOR("x") "}], "
    "\"outputs\": [" OLD_TENSORS("getitem", "getitem_1") "], "
    "\"metadata\": {\"debug_handle\": \"1\", \"nn_module_stack\": "
    "\"L__self__,,toy.Split\"}}, "
    "{\"target\": \"executorch.exir.dialects.edge.ops.aten.relu.default\", "
    "\"inputs\": [{\"name\": \"self\", \"arg\": " OLD_TENSOR("getitem") "}], "
    "\"outputs\": [" OLD_TENSOR("aten_relu_default") "], "
    "\"metadata\": {\"debug_handle\": \"2\"}}], "
    "\"tensor_values\": {}, \"sym_int_values\": {}, \"sym_bool_values\": {}, "
    "\"is_single_tensor_return\": false, \"constants\": null}, "
    "\"signature\": {}, \"module_call_graph\": []}, "
    "\"opset_version\": {\"aten\": 10}, \"range_constraints\": {}, "
    "\"equality_constraints\": [], \"schema_version\": 1, "
    "\"example_inputs\": null}";

ETK_TEST(old_dialect_hand_made) {
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program", .text = kOldProgram},
      {.name = "edge_dialect_exported_program_state_dict", .text = ""},
      {.name = "debug_handle_map",
       .text = "{\"forward\": {\"0\": 1, \"1\": 2}}"},
      {.name = "delegate_map", .text = "{}"},
  };
  etk_etrecord_t *rec = fixture_open_ok(m, 5);
  REQUIRE(rec != NULL);
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  CHECK_EQ_INT(info.layout, ETK_ETRECORD_LAYOUT_2023_09);
  CHECK_EQ_INT(info.method_count, 1);
  const etk_etrecord_program_t *p;
  REQUIRE(etk_etrecord_edge_program_load(rec, "forward", &p, NULL) == ETK_OK);
  CHECK_EQ_INT(p->dialect, ETK_ETRECORD_DIALECT_ALL_TAGS);
  REQUIRE(p->node_count == 2);
  CHECK_EQ_STR(p->nodes[0].name, "getitem"); /* first of as_tensors */
  REQUIRE(p->nodes[0].output_count == 2);
  CHECK_EQ_STR(p->nodes[0].outputs[1], "getitem_1");
  CHECK_EQ_STR(p->nodes[0].op, "aten.split.Tensor");
  REQUIRE(p->nodes[0].module_count == 1);
  CHECK_EQ_STR(p->nodes[0].modules[0].type, "toy.Split");
  CHECK_EQ_STR(p->nodes[0].modules[0].normalized, "");
  CHECK_EQ_STR(p->nodes[1].name, "aten_relu_default");
  CHECK_EQ_INT(p->nodes[1].debug_handle, 2);
  CHECK_EQ_STR(p->nodes[1].args, "self=getitem");
  etk_etrecord_close(rec);
}

/* ------------------------------------------- the current dialect, methods */

static const char kForward[] =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}], "
    "\"outputs\": [{\"as_tensor\": {\"name\": \"aten_linear_default\"}}], "
    "\"nodes\": [{\"name\": \"aten_linear_default\", "
    "\"target\": \"executorch.exir.dialects.edge.ops.aten.linear.default\", "
    "\"inputs\": [{\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": "
    "\"x\"}}}, {\"name\": \"weight\", \"arg\": {\"as_tensor\": {\"name\": "
    "\"p_fc_weight\"}}}, {\"name\": \"bias\", \"arg\": {\"as_none\": []}}], "
    "\"outputs\": [{\"as_tensor\": {\"name\": \"aten_linear_default\"}}], "
    "\"metadata\": {\"stack_trace\": \"  File \\\"/home/u/model.py\\\", line "
    "12, in forward\\n    return self.fc(x)\\n  File \\\"/usr/lib/python3/"
    "site-packages/torch/nn/modules/linear.py\\\", line 125, in forward\\n   "
    " return F.linear(input, self.weight, self.bias)\\n\", "
    "\"nn_module_stack\": \"L__self__,,model.Net;L__self___fc,L['self'].fc,"
    "torch.nn.modules.linear.Linear\", \"source_fn_stack\": "
    "\"fc,torch.nn.modules.linear.Linear\", \"torch_fn\": "
    "\"linear_1;builtin_function_or_method.linear\", "
    "\"debug_handle\": \"1\"}}], "
    "\"tensor_values\": {}, \"sym_int_values\": {}, \"sym_bool_values\": {}, "
    "\"is_single_tensor_return\": false, \"custom_obj_values\": {}}, "
    "\"signature\": {\"input_specs\": [], \"output_specs\": []}, "
    "\"module_call_graph\": [{\"fqn\": \"\"}]}, "
    "\"opset_version\": {\"aten\": 10}, \"range_constraints\": {}, "
    "\"schema_version\": {\"major\": 5, \"minor\": 4}, \"dialect\": \"\", "
    "\"verifiers\": [\"EDGE\"]}";

static const char kDecode[] =
    "{\"graph_module\": {\"graph\": {\"inputs\": [], \"outputs\": [], "
    "\"nodes\": [{\"name\": \"aten_add_tensor\", \"target\": "
    "\"executorch.exir.dialects.edge.ops.aten.add.Tensor\", \"inputs\": [], "
    "\"outputs\": [{\"as_tensor\": {\"name\": \"aten_add_tensor\"}}], "
    "\"metadata\": {\"debug_handle\": \"5\"}}]}}, "
    "\"schema_version\": {\"major\": 5, \"minor\": 4}, \"verifiers\": "
    "[\"EDGE\"]}";

ETK_TEST(current_dialect_multi_method_deflated) {
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "exported_program", .text = kDecode, .deflate = true},
      {.name = "exported_program_state_dict", .text = ""},
      {.name = "exported_program_constants", .text = ""},
      {.name = "exported_program_example_inputs", .text = ""},
      {.name = "edge_dialect_exported_program/forward",
       .text = kForward,
       .deflate = true},
      {.name = "edge_dialect_exported_program/forward_state_dict", .text = ""},
      {.name = "edge_dialect_exported_program/decode", .text = kDecode},
      {.name = "debug_handle_map",
       .text = "{\"forward\": {\"0\": 1}, \"decode\": {\"0\": 5}}",
       .deflate = true},
      {.name = "delegate_map", .text = "{\"forward\": {}, \"decode\": {}}"},
      {.name = "instruction_id_to_num_outs_map",
       .text = "{\"forward\": {}, \"decode\": {}}"},
      {.name = "export_graph_id", .text = "140245120539360"},
      {.name = "reference_outputs", .data = "\x80\x04]\x94.", .len = 5},
  };
  etk_etrecord_t *rec = fixture_open_ok(m, sizeof m / sizeof m[0]);
  REQUIRE(rec != NULL);
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  CHECK_EQ_INT(info.layout, ETK_ETRECORD_LAYOUT_2026_02);
  CHECK_EQ_INT(info.method_count, 2);
  CHECK_EQ_INT(info.export_graph_id, 140245120539360LL);
  CHECK(info.features & ETK_ETRECORD_HAS_EXPORTED_PROGRAM);
  CHECK(info.features & ETK_ETRECORD_HAS_REFERENCE_OUTPUTS);
  CHECK(info.features & ETK_ETRECORD_HAS_NUM_OUTS_MAP);
  CHECK_EQ_INT(etk_etrecord_member_find(rec, "exported_program")->compression,
               8);
  CHECK_EQ_INT(etk_etrecord_member_find(rec, "exported_program")->kind,
               ETK_ETRECORD_MEMBER_PROGRAM);
  CHECK_EQ_INT(etk_etrecord_member_find(rec, "export_graph_id")->kind,
               ETK_ETRECORD_MEMBER_EXPORT_GRAPH_ID);
  const uint8_t *blob;
  size_t blob_len;
  REQUIRE(etk_etrecord_member_read(rec, "reference_outputs", &blob, &blob_len,
                                   NULL) == ETK_OK);
  CHECK_EQ_INT(etk_etrecord_blob_kind(blob, blob_len),
               ETK_ETRECORD_BLOB_PICKLE);

  const etk_etrecord_program_t *fwd, *dec, *dflt, *ep;
  REQUIRE(etk_etrecord_edge_program_load(rec, "forward", &fwd, NULL) == ETK_OK);
  REQUIRE(etk_etrecord_edge_program_load(rec, "decode", &dec, NULL) == ETK_OK);
  REQUIRE(etk_etrecord_edge_program_load(rec, NULL, &dflt, NULL) == ETK_OK);
  CHECK(dflt == fwd);
  CHECK_EQ_STR(dec->ref.method, "decode");
  CHECK_EQ_STR(dec->ref.module, "edge_dialect_exported_program");
  REQUIRE(etk_etrecord_graph_load(rec, "exported_program", &ep, NULL) ==
          ETK_OK);
  CHECK_EQ_INT(ep->ref.kind, ETK_ETRECORD_PROGRAM_EXPORTED);
  CHECK_EQ_STR(ep->ref.method, "");

  CHECK_EQ_INT(fwd->dialect, ETK_ETRECORD_DIALECT_SINGLE_KEY);
  CHECK_EQ_INT(fwd->schema_major, 5);
  CHECK_EQ_INT(fwd->schema_minor, 4);
  char version[16];
  CHECK_EQ_INT(
      etk_etrecord_program_schema_version(fwd, version, sizeof version), 3);
  CHECK_EQ_STR(version, "5.4");
  CHECK_EQ_INT(etk_etrecord_program_schema_version(fwd, version, 2), 3);
  CHECK_EQ_STR(version, "5");
  CHECK_EQ_STR(fwd->verifiers, "EDGE");
  REQUIRE(fwd->node_count == 1);
  const etk_etrecord_node_t *n = &fwd->nodes[0];
  CHECK_EQ_STR(n->name, "aten_linear_default");
  CHECK_EQ_STR(n->op, "aten.linear.default");
  CHECK_EQ_STR(n->args, "input=x, weight=p_fc_weight, bias=None");
  CHECK_EQ_STR(n->torch_fn, "linear_1;builtin_function_or_method.linear");
  REQUIRE(n->module_count == 2);
  CHECK_EQ_STR(n->modules[1].key, "L__self___fc");
  CHECK_EQ_STR(n->modules[1].path, "L['self'].fc");
  CHECK_EQ_STR(n->modules[1].normalized, "fc");
  CHECK_EQ_STR(n->modules[1].type, "torch.nn.modules.linear.Linear");
  char buf[256];
  etk_etrecord_node_module_path(n, true, buf, sizeof buf);
  CHECK_EQ_STR(buf, "fc (Linear)");
  etk_etrecord_node_module_path(n, false, buf, sizeof buf);
  CHECK_EQ_STR(buf, "fc");
  /* the torch frame is skipped: the user's line is the innermost user frame */
  etk_etrecord_node_source(n, false, buf, sizeof buf);
  CHECK_EQ_STR(buf, "model.py:12");
  etk_etrecord_node_source(n, true, buf, sizeof buf);
  CHECK_EQ_STR(buf, "/home/u/model.py:12");
  CHECK(etk_etrecord_node_in_module(n, "self___f",
                                    ETK_ETRECORD_MODULE_SUBSTRING));
  CHECK(!etk_etrecord_node_in_module(n, "f", ETK_ETRECORD_MODULE_EXACT_PATH));
  CHECK(etk_etrecord_node_in_module(n, "fc", ETK_ETRECORD_MODULE_EXACT_PATH));
  CHECK(etk_etrecord_node_in_module(n, "L['self'].fc",
                                    ETK_ETRECORD_MODULE_EXACT_PATH));

  const etk_etrecord_method_maps_t *mm = etk_etrecord_maps_find(rec, "decode");
  REQUIRE(mm != NULL);
  const etk_etrecord_handle_entry_t *h = etk_etrecord_maps_handles(mm, 0);
  REQUIRE(h != NULL && h->handle_count == 1);
  CHECK_EQ_INT(h->handles[0], 5);
  CHECK(!h->is_list);
  CHECK(mm->in_debug_handle_map && mm->in_delegate_map && mm->in_num_outs_map);
  CHECK(etk_etrecord_maps_find(rec, NULL) ==
        etk_etrecord_maps_find(rec, "forward"));
  etk_etrecord_close(rec);
}

ETK_TEST(layout_detection) {
  fixture_member_t v2024[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program", .text = kDecode},
      {.name = "edge_dialect_exported_program_constants", .text = ""},
      {.name = "debug_handle_map", .text = "{}"},
  };
  fixture_member_t v2023[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "program_buffer", .data = "\0\0\0\0ET12", .len = 8},
      {.name = "et_dialect_graph_module/forward", .text = kDecode},
      {.name = "debug_handle_map", .text = "{}"},
  };
  fixture_member_t none[] = {{.name = "ETRECORD_V0", .text = ""}};
  etk_etrecord_t *rec;
  etk_etrecord_info_t info;
  REQUIRE(fixture_open(v2024, 4, NULL, &rec, NULL, 0) == ETK_OK);
  etk_etrecord_info_get(rec, &info);
  CHECK_EQ_INT(info.layout, ETK_ETRECORD_LAYOUT_2024_07);
  etk_etrecord_close(rec);
  REQUIRE(fixture_open(v2023, 4, NULL, &rec, NULL, 0) == ETK_OK);
  etk_etrecord_info_get(rec, &info);
  CHECK_EQ_INT(info.layout, ETK_ETRECORD_LAYOUT_2023_07);
  CHECK(info.features & ETK_ETRECORD_HAS_PROGRAM_BUFFER);
  REQUIRE(info.program_count == 1);
  CHECK_EQ_INT(etk_etrecord_program_at(rec, 0)->kind,
               ETK_ETRECORD_PROGRAM_ET_DIALECT);
  CHECK(etk_etrecord_program_at(rec, 1) == NULL);
  etk_etrecord_close(rec);
  REQUIRE(fixture_open(none, 1, NULL, &rec, NULL, 0) == ETK_OK);
  etk_etrecord_info_get(rec, &info);
  CHECK_EQ_INT(info.layout, ETK_ETRECORD_LAYOUT_UNKNOWN);
  CHECK_EQ_INT(info.program_count, 0);
  CHECK_EQ_STR(etk_etrecord_layout_name(info.layout),
               "unknown (no edge program)");
  etk_etrecord_close(rec);
}

/* ----------------------------------------- Python tokens and big integers */

static const char kSpecials[] =
    "{\"graph_module\": {\"graph\": {\"inputs\": [], \"outputs\": [], "
    "\"nodes\": [{\"name\": \"aten_clamp_default\", \"target\": "
    "\"executorch.exir.dialects.edge.ops.aten.clamp.default\", \"inputs\": ["
    "{\"name\": \"min\", \"arg\": {\"as_float\": -Infinity}}, "
    "{\"name\": \"max\", \"arg\": {\"as_float\": Infinity}}, "
    "{\"name\": \"eps\", \"arg\": {\"as_float\": NaN}}, "
    "{\"name\": \"end\", \"arg\": {\"as_ints\": [9223372036854775807, "
    "-9223372036854775808, 0]}}, "
    "{\"name\": \"label\", \"arg\": {\"as_string\": \"Infinity NaN\"}}], "
    "\"outputs\": [{\"as_tensor\": {\"name\": \"aten_clamp_default\"}}], "
    "\"metadata\": {\"debug_handle\": \"9223372036854775807\"}}]}}, "
    "\"range_constraints\": {\"s0\": {\"min_val\": 2, \"max_val\": Infinity}, "
    "\"s1\": {\"min_val\": -Infinity, \"max_val\": 18446744073709551615}}, "
    "\"schema_version\": {\"major\": 5, \"minor\": 4}}";

ETK_TEST(python_tokens_and_int64) {
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program/forward", .text = kSpecials},
      {.name = "debug_handle_map",
       .text = "{\"forward\": {\"0\": 9223372036854775807, "
               "\"1\": [-9223372036854775808]}}"},
      {.name = "export_graph_id", .text = "9223372036854775807"},
  };
  etk_etrecord_t *rec = fixture_open_ok(m, 4);
  REQUIRE(rec != NULL);
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  CHECK_EQ_INT(info.export_graph_id, INT64_MAX);
  const etk_etrecord_method_maps_t *mm = etk_etrecord_maps_find(rec, "forward");
  REQUIRE(mm && mm->handle_count == 2);
  CHECK_EQ_INT(mm->handles[0].handles[0], INT64_MAX);
  CHECK_EQ_INT(mm->handles[1].handles[0], INT64_MIN);
  CHECK(mm->handles[1].is_list);
  const etk_etrecord_program_t *p;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_etrecord_edge_program_load(rec, NULL, &p, &err) == ETK_OK);
  REQUIRE(p->node_count == 1);
  CHECK_EQ_STR(p->nodes[0].args,
               "min=-inf, max=inf, eps=nan, end=[9223372036854775807, "
               "-9223372036854775808, 0], label='Infinity NaN'");
  CHECK_EQ_INT(p->nodes[0].debug_handle, INT64_MAX);
  etk_etrecord_close(rec);
}

/* ----------------------------------------------------------- nested graphs */

static char *escape_json(const char *s) {
  size_t n = strlen(s);
  char *out = malloc(2 * n + 1), *o = out;
  if (!out) return NULL;
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') *o++ = '\\';
    *o++ = *s;
  }
  *o = 0;
  return out;
}

static const char kLowered[] =
    "{\"backend_id\": \"XnnpackBackend\", \"processed_bytes\": \"AAAA\", "
    "\"compile_specs\": [], \"original_module\": {\"graph_module\": "
    "{\"graph\": "
    "{\"inputs\": [], \"outputs\": [], \"nodes\": ["
    "{\"name\": \"aten_mm_default\", \"target\": "
    "\"executorch.exir.dialects.edge.ops.aten.mm.default\", \"inputs\": [], "
    "\"outputs\": [], \"metadata\": {\"debug_handle\": \"8\", "
    "\"nn_module_stack\": \"L__self___fc,fc,torch.nn.Linear\"}}, "
    "{\"name\": \"aten_relu_default\", \"target\": "
    "\"executorch.exir.dialects.edge.ops.aten.relu.default\", \"inputs\": [], "
    "\"outputs\": [], \"metadata\": {\"debug_handle\": \"9\"}}]}}}, "
    "\"original_state_dict\": \"\", \"original_constants\": \"\"}";

static const char kNestedFmt[] =
    "{\"graph_module\": {\"graph\": {\"inputs\": [], \"outputs\": [], "
    "\"nodes\": ["
    "{\"name\": \"executorch_call_delegate\", \"target\": "
    "\"torch.ops.higher_order.executorch_call_delegate\", \"inputs\": ["
    "{\"name\": \"lowered_module_0\", \"arg\": {\"as_string\": \"%s\"}}, "
    "{\"name\": \"delegate_arg_1\", \"arg\": {\"as_tensor\": {\"name\": "
    "\"x\"}}}], \"outputs\": [{\"as_tensors\": [{\"name\": \"getitem\"}]}], "
    "\"metadata\": {\"debug_handle\": \"7\"}}, "
    "{\"name\": \"cond\", \"target\": \"torch.ops.higher_order.cond\", "
    "\"inputs\": [{\"name\": \"pred\", \"arg\": {\"as_tensor\": {\"name\": "
    "\"p\"}}}, {\"name\": \"true_fn\", \"arg\": {\"as_graph\": {\"name\": "
    "\"true_graph_0\", \"graph\": {\"inputs\": [], \"outputs\": [], \"nodes\": "
    "[{\"name\": \"aten_sin_default\", \"target\": "
    "\"executorch.exir.dialects.edge.ops.aten.sin.default\", \"inputs\": [], "
    "\"outputs\": [], \"metadata\": {\"debug_handle\": \"11\"}}, "
    "{\"name\": \"getitem_2\", \"target\": \"_operator.getitem\", "
    "\"inputs\": [], \"outputs\": [], \"metadata\": {\"debug_handle\": "
    "\"11\"}}]}}}}], \"outputs\": [{\"as_tensor\": {\"name\": \"cond\"}}], "
    "\"metadata\": {\"debug_handle\": \"10\"}}, "
    "{\"name\": \"aten_sub_tensor\", \"target\": "
    "\"executorch.exir.dialects.edge.ops.aten.sub.Tensor\", \"inputs\": [], "
    "\"outputs\": [], \"metadata\": {\"debug_handle\": \"11\"}}]}}}";

ETK_TEST(nested_graphs_and_lowered_modules) {
  char *inner = escape_json(kLowered);
  REQUIRE(inner != NULL);
  size_t n = sizeof kNestedFmt + strlen(inner);
  char *program = malloc(n);
  REQUIRE(program != NULL);
  snprintf(program, n, kNestedFmt, inner);
  free(inner);
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program/forward", .text = program},
  };
  etk_etrecord_t *rec = fixture_open_ok(m, 2);
  free(program);
  REQUIRE(rec != NULL);
  const etk_etrecord_program_t *p;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_etrecord_edge_program_load(rec, NULL, &p, &err);
  if (rc != ETK_OK) printf("# %s\n", fixture_error_line(&err));
  REQUIRE(rc == ETK_OK);
  REQUIRE(p->node_count == 7);
  const char *names[] = {"executorch_call_delegate", "aten_mm_default",
                         "aten_relu_default",        "cond",
                         "aten_sin_default",         "getitem_2",
                         "aten_sub_tensor"};
  const unsigned depth[] = {0, 1, 1, 0, 1, 1, 0};
  const size_t parent[] = {ETK_ETRECORD_NO_PARENT, 0, 0,
                           ETK_ETRECORD_NO_PARENT, 3, 3,
                           ETK_ETRECORD_NO_PARENT};
  for (size_t i = 0; i < 7; i++) {
    CHECK_EQ_STR(p->nodes[i].name, names[i]);
    CHECK_EQ_INT(p->nodes[i].depth, depth[i]);
    CHECK_EQ_U64(p->nodes[i].parent, parent[i]);
  }
  CHECK_EQ_STR(p->nodes[0].op, "executorch_call_delegate");
  CHECK_EQ_STR(p->nodes[0].delegate_backend, "XnnpackBackend");
  CHECK_EQ_STR(p->nodes[0].args, "lowered_module_0=<json>, delegate_arg_1=x");
  CHECK_EQ_STR(p->nodes[3].args, "pred=p, true_fn=<graph true_graph_0>");
  CHECK_EQ_STR(p->nodes[5].op, "getitem");
  CHECK(p->nodes[3].delegate_backend == NULL);
  REQUIRE(p->nodes[1].module_count == 1);
  CHECK_EQ_STR(p->nodes[1].modules[0].normalized, "fc");
  /* handle 11: the nested sin and the top-level sub; getitem is left out */
  const etk_etrecord_node_t *const *hn;
  REQUIRE(etk_etrecord_program_nodes_for_handle(p, 11, &hn) == 2);
  CHECK_EQ_STR(hn[0]->name, "aten_sin_default");
  CHECK_EQ_STR(hn[1]->name, "aten_sub_tensor");
  REQUIRE(etk_etrecord_program_nodes_for_handle(p, 8, &hn) == 1);
  CHECK_EQ_STR(hn[0]->name, "aten_mm_default");
  CHECK_EQ_INT(etk_etrecord_program_nodes_for_handle(p, 8, NULL), 1);
  etk_etrecord_close(rec);
}

/* ------------------------------------------------------------------- maps */

ETK_TEST(maps_every_shape) {
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "debug_handle_map",
       .text =
           "{\"forward\": {\"3\": [4, 5], \"1\": 2, \"2\": null, \"0\": []}}"},
      {.name = "delegate_map",
       .text = "{\"forward\": {\"3\": {\"name\": \"QnnBackend\", "
               "\"delegate_map\": null}, \"5\": {\"delegate_map\": {\"b\": 7, "
               "\"a\": [8, 9]}}, \"6\": {\"name\": null}}}"},
      {.name = "instruction_id_to_num_outs_map",
       .text = "{\"forward\": {\"3\": 3}}"},
  };
  etk_etrecord_t *rec = fixture_open_ok(m, 4);
  REQUIRE(rec != NULL);
  const etk_etrecord_method_maps_t *mm = etk_etrecord_maps_at(rec, 0);
  REQUIRE(mm != NULL && etk_etrecord_maps_at(rec, 1) == NULL);
  CHECK_EQ_STR(mm->method, "forward");
  REQUIRE(mm->handle_count == 4);
  for (size_t i = 0; i < 4; i++) CHECK_EQ_INT(mm->handles[i].instruction_id, i);
  CHECK(mm->handles[0].is_list && mm->handles[0].handle_count == 0);
  CHECK(!mm->handles[1].is_list && mm->handles[1].handles[0] == 2);
  CHECK(mm->handles[2].is_null);
  CHECK(mm->handles[3].is_list && mm->handles[3].handle_count == 2);
  CHECK(etk_etrecord_maps_handles(mm, 4) == NULL);
  CHECK(etk_etrecord_maps_handles(NULL, 0) == NULL);
  CHECK_EQ_INT(etk_etrecord_maps_num_outputs(mm, 3, 1), 3);
  CHECK_EQ_INT(etk_etrecord_maps_num_outputs(mm, 1, 1), 1);
  const etk_etrecord_delegate_entry_t *d3 = etk_etrecord_maps_delegate(mm, 3);
  const etk_etrecord_delegate_entry_t *d5 = etk_etrecord_maps_delegate(mm, 5);
  const etk_etrecord_delegate_entry_t *d6 = etk_etrecord_maps_delegate(mm, 6);
  REQUIRE(d3 && d5 && d6);
  CHECK_EQ_STR(d3->backend_name, "QnnBackend");
  CHECK(!d3->has_id_map);
  CHECK_EQ_STR(d5->backend_name, ""); /* absent: upstream's default "" */
  CHECK(d6->backend_name == NULL);    /* null: None */
  REQUIRE(d5->has_id_map && d5->id_count == 2);
  CHECK_EQ_STR(d5->ids[0].id, "b"); /* JSON order kept */
  CHECK_EQ_INT(d5->ids[0].handle_count, 1);
  CHECK_EQ_INT(d5->ids[1].handles[1], 9);
  etk_etrecord_close(rec);

  /* a flat map (no method level) is filed under forward */
  fixture_member_t flat[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "debug_handle_map", .text = "{\"0\": 1, \"1\": [2, 3]}"},
      {.name = "instruction_id_to_num_outs_map", .text = "{\"1\": 2}"},
  };
  REQUIRE(fixture_open(flat, 3, NULL, &rec, NULL, 0) == ETK_OK);
  mm = etk_etrecord_maps_find(rec, "forward");
  REQUIRE(mm && mm->handle_count == 2);
  CHECK_EQ_INT(etk_etrecord_maps_num_outputs(mm, 1, 1), 2);
  etk_etrecord_close(rec);
}

/* ------------------------------------------------------------ text helpers */

ETK_TEST(stack_trace_split) {
  const char *t =
      "  File \"/a/b.py\", line 3, in outer\n"
      "    y = f(x)\n"
      "garbage line\n"
      "  File \"C:\\w\\m.py\", line 7, in f\n"
      "  File \"/odd\", line 9\", line 12, in <lambda>\n"
      "    return x\r\n";
  etk_etrecord_frame_t fr[4];
  size_t n = 0;
  REQUIRE(etk_etrecord_stack_trace_split(t, strlen(t), fr, 4, &n) == ETK_OK);
  REQUIRE(n == 3);
  CHECK(fr[0].file.len == 7 && memcmp(fr[0].file.ptr, "/a/b.py", 7) == 0);
  CHECK_EQ_INT(fr[0].line, 3);
  CHECK(fr[0].code.len == 8 && memcmp(fr[0].code.ptr, "y = f(x)", 8) == 0);
  CHECK_EQ_INT(fr[1].code.len, 0); /* followed by another frame */
  /* greedy file, like the emitter's regex */
  CHECK(fr[2].file.len == 13 &&
        memcmp(fr[2].file.ptr, "/odd\", line 9\", l", 4) == 0);
  CHECK_EQ_INT(fr[2].line, 12);
  CHECK(fr[2].function.len == 8 &&
        memcmp(fr[2].function.ptr, "<lambda>", 8) == 0);
  CHECK(fr[2].code.len == 8 && memcmp(fr[2].code.ptr, "return x", 8) == 0);
  /* counting only */
  CHECK(etk_etrecord_stack_trace_split(t, strlen(t), NULL, 0, &n) == ETK_OK);
  CHECK_EQ_INT(n, 3);
  CHECK(etk_etrecord_stack_trace_split(NULL, 3, NULL, 0, &n) ==
        ETK_E_INVALID_ARGUMENT);
  etk_etrecord_frame_t f;
  CHECK(etk_etrecord_stack_trace_user_frame("no frames", 9, &f) ==
        ETK_E_NOT_FOUND);
  const char *lib = "  File \"/x/dist-packages/torch/a.py\", line 1, in g\n";
  REQUIRE(etk_etrecord_stack_trace_user_frame(lib, strlen(lib), &f) == ETK_OK);
  CHECK_EQ_INT(f.line, 1); /* only library frames: the last one */
  const char *bad =
      "  File \"/x.py\", line , in g\n  File \"/y.py\" line 2, in h\n";
  CHECK(etk_etrecord_stack_trace_split(bad, strlen(bad), NULL, 0, &n) ==
        ETK_OK);
  CHECK_EQ_INT(n, 0);
}

ETK_TEST(module_stack_split_and_paths) {
  const char *s =
      "L__self__,,toy.Model;L__self___layers_0,getattr(L['self']"
      ".layers, '0'),torch.nn.modules.linear.Linear";
  etk_etrecord_module_span_t e[2];
  size_t n = 0;
  REQUIRE(etk_etrecord_module_stack_split(s, strlen(s), e, 2, &n) == ETK_OK);
  REQUIRE(n == 2);
  CHECK(e[0].path.len == 0);
  CHECK(e[1].path.len == 30);
  CHECK(e[1].type.len == 30);
  CHECK(etk_etrecord_module_stack_split("a,b", 3, e, 2, &n) == ETK_E_FORMAT);
  CHECK_EQ_INT(n, 0);
  CHECK(etk_etrecord_module_stack_split("a,b,c;", 6, e, 2, &n) == ETK_E_FORMAT);
  CHECK_EQ_INT(n, 1);
  CHECK(etk_etrecord_module_stack_split("", 0, e, 2, &n) == ETK_OK);
  CHECK_EQ_INT(n, 0);

  static const struct {
    const char *in, *out;
  } cases[] = {
      {"L['self']", ""},
      {"L['self'].layer1", "layer1"},
      {"getattr(L['self'].layers, '0').fc", "layers.0.fc"},
      {"getattr(getattr(L['self'].a, '1'), \"2\")", "a.1.2"},
      {"L__self___fc", "fc"},
      {"L__self__", ""},
      {"self.encoder.block", "encoder.block"},
      {"layers[0].attn", "layers.0.attn"},
      {"L['self']['blocks'][3]", "blocks.3"},
      {"layer1.0.conv", "layer1.0.conv"},
      {"", ""},
      {"weird path!", "weird path!"},
      {"getattr(L['self'].x, 0)", "getattr(L['self'].x, 0)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[64];
    size_t len = etk_etrecord_module_path_normalize(
        cases[i].in, strlen(cases[i].in), out, sizeof out);
    CHECK_EQ_STR(out, cases[i].out);
    CHECK_EQ_INT(len, strlen(cases[i].out));
  }
  char tiny[4];
  CHECK_EQ_INT(etk_etrecord_module_path_normalize("L['self'].layer1", 16, tiny,
                                                  sizeof tiny),
               6);
  CHECK_EQ_STR(tiny, "lay");
  CHECK_EQ_INT(etk_etrecord_module_path_normalize("abc", 3, NULL, 0), 3);
}

ETK_TEST(targets_and_op_names) {
  static const struct {
    const char *target, *op;
  } ops[] = {
      {"executorch.exir.dialects.edge.ops.aten.convolution.default",
       "aten.convolution.default"},
      {"executorch.exir.dialects.backend.ops.quant.add.default",
       "quant.add.default"},
      {"torch.ops.higher_order.executorch_call_delegate",
       "executorch_call_delegate"},
      {"torch.ops.aten.mul.Tensor", "aten.mul.Tensor"},
      {"memory.alloc", "alloc"},
      {"executorch.exir.memory.view", "view"},
      {"_operator.getitem", "getitem"},
      {"my.custom.fn", "my.custom.fn"},
      {"torch.ops.", "torch.ops."},
  };
  char buf[128];
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    etk_etrecord_op_from_target(ops[i].target, buf, sizeof buf);
    CHECK_EQ_STR(buf, ops[i].op);
  }
  static const struct {
    const char *op, *target;
  } edge[] = {
      {"aten::mul.Tensor", "executorch.exir.dialects.edge.ops.aten.mul.Tensor"},
      {"aten::relu", "executorch.exir.dialects.edge.ops.aten.relu.default"},
      {"aten.add.Tensor", "executorch.exir.dialects.edge.ops.aten.add.Tensor"},
      {"aten.sub", "executorch.exir.dialects.edge.ops.aten.sub.default"},
      {"mm", "executorch.exir.dialects.edge.ops.aten.mm.default"},
      {"executorch.exir.dialects.edge.ops.aten.mm.default",
       "executorch.exir.dialects.edge.ops.aten.mm.default"},
  };
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
    size_t n = etk_etrecord_edge_target(edge[i].op, buf, sizeof buf);
    CHECK_EQ_STR(buf, edge[i].target);
    CHECK_EQ_INT(n, strlen(edge[i].target));
  }
}

ETK_TEST_MAIN()
