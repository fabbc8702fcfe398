/*
 * test_etrecord_link.c - linking runtime events to ETRecord handles and
 * nodes: the resolution example of the inspector notes (Appendix D, checked
 * against upstream's Inspector), the find_total_for_module matching, the
 * flags that turn upstream's quirks off, and multi-method records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "fixture.h"

/* Appendix D: maps exactly as written there; graph nodes 7 add.Tensor,
 * 8 mm, 9 relu, 11 sub (two nodes), 20 mul. */
static const char kHandles[] =
    "{\"forward\":{\"0\":7,\"1\":[8,9,11],\"2\":[20]}}";
static const char kDelegates[] =
    "{\"forward\":{\"1\":{\"name\":\"XnnpackBackend\",\"delegate_map\":"
    "{\"0\":[8],\"1\":[9],\"10\":[11],\"fc\":[8,9]}}}}";
static const char kNumOuts[] = "{\"forward\":{\"1\":2}}";

#define NODE(name, op, handle, stack)                           \
  "{\"name\": \"" name                                          \
  "\", \"target\": "                                            \
  "\"executorch.exir.dialects.edge.ops.aten." op                \
  "\", \"inputs\": [], "                                        \
  "\"outputs\": [], \"metadata\": {\"debug_handle\": \"" handle \
  "\", "                                                        \
  "\"stack_trace\": \"  File \\\"m.py\\\", line " handle        \
  ", in forward\\n\", "                                         \
  "\"nn_module_stack\": \"" stack "\"}}"

static const char kProgram[] =
    "{\"graph_module\": {\"graph\": {\"inputs\": [], \"outputs\": [], "
    "\"nodes\": [" NODE("aten_add_tensor", "add.Tensor", "7",
                        "L__self__,,M;L__self___aten_add,aten_add,Add") ", "
    NODE("aten_mm_default", "mm.default", "8",
         "L__self__,,M;L__self___aten_mm,aten_mm,Mm") ", "
    NODE("aten_relu_default", "relu.default", "9",
         "L__self__,,M;L__self___aten_relu,aten_relu,Relu") ", "
    NODE("aten_sub_tensor", "sub.Tensor", "11",
         "L__self__,,M;L__self___aten_sub,aten_sub,Sub") ", "
    NODE("aten_sub_tensor_1", "sub.Tensor", "11",
         "L__self__,,M;L__self___aten_sub_dup,aten_sub_dup,Sub") ", "
    NODE("aten_mul_tensor", "mul.Tensor", "20",
         "L__self__,,M;L__self___aten_mul,aten_mul,Mul") "]}}}";

static etk_etrecord_t *open_appendix_d(void) {
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program/forward", .text = kProgram},
      {.name = "debug_handle_map", .text = kHandles},
      {.name = "delegate_map", .text = kDelegates},
      {.name = "instruction_id_to_num_outs_map", .text = kNumOuts},
  };
  return fixture_open_ok(m, 5);
}

static etk_etrecord_event_ref_t event(const char *name, int32_t chain,
                                      int64_t iid, int64_t id_int,
                                      const char *id_str) {
  etk_etrecord_event_ref_t ev = {.method = NULL,
                                 .name = name,
                                 .chain_index = chain,
                                 .instruction_id = iid,
                                 .has_instruction_id = true,
                                 .delegate_debug_id_int = id_int,
                                 .delegate_debug_id_str = id_str};
  return ev;
}

/* "7" / "[8, 9]" / "None" as upstream prints debug_handles */
static const char *handles_text(const etk_etrecord_event_link_t *l) {
  static char buf[256];
  if (!l->has_debug_handles) return "None";
  size_t n = 0;
  buf[0] = 0;
  if (l->debug_handles_is_list) n += (size_t)snprintf(buf, sizeof buf, "[");
  for (size_t i = 0; i < l->debug_handle_count; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%lld", i ? ", " : "",
                          (long long)l->debug_handles[i]);
  if (l->debug_handles_is_list) snprintf(buf + n, sizeof buf - n, "]");
  return buf;
}

static const char *op_types_text(const etk_etrecord_event_link_t *l) {
  static char buf[256];
  size_t n = (size_t)snprintf(buf, sizeof buf, "[");
  for (size_t i = 0; i < l->node_count; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "",
                          l->nodes[i]->op);
  snprintf(buf + n, sizeof buf - n, "]");
  return buf;
}

typedef struct expected {
  etk_etrecord_event_ref_t ev;
  const char *handles;
  const char *op_types;
  int64_t num_outputs;
  const char *backend; /* NULL = None */
  bool warning;
  bool in_mm; /* counted by find_total_for_module("L__self___aten_mm") */
} expected_t;

ETK_TEST(appendix_d_resolution) {
  etk_etrecord_t *rec = open_appendix_d();
  REQUIRE(rec != NULL);
  etk_etrecord_linker_t *l;
  REQUIRE(etk_etrecord_linker_create(rec, 0, &l, NULL) == ETK_OK);
  const expected_t cases[] = {
      {event("Method::init", -1, 0, -1, NULL), "7", "[]", 1, NULL, false,
       false},
      {event("Method::execute", -1, 0, -1, NULL), "7", "[]", 1, NULL, false,
       false},
      {event("native_call_add.out", 0, 0, -1, NULL), "7", "[aten.add.Tensor]",
       1, NULL, false, false},
      {event("OPERATOR_CALL", 0, 0, -1, NULL), "7", "[aten.add.Tensor]", 1,
       NULL, false, false},
      {event("10", 0, 1, 10, NULL), "[11]",
       "[aten.sub.Tensor, aten.sub.Tensor]", 2, "XnnpackBackend", false, false},
      {event("3", 0, 1, 3, NULL), "None", "[]", 2, "XnnpackBackend", false,
       false},
      {event("fc", 0, 1, -1, "fc"), "[8, 9]",
       "[aten.mm.default, aten.relu.default]", 2, "XnnpackBackend", false,
       true},
      {event("xx", 0, 1, -1, "xx"), "None", "[]", 2, "XnnpackBackend", false,
       false},
      {event("DELEGATE_CALL", 0, 1, -1, NULL), "[8, 9, 11]",
       "[aten.mm.default, aten.relu.default, aten.sub.Tensor, aten.sub.Tensor]",
       2, "XnnpackBackend", false, true},
      {event("0", 0, 2, 0, NULL), "[20]", "[aten.mul.Tensor]", 1, NULL, true,
       false},
      {event("DELEGATE_CALL", 0, 2, -1, NULL), "[20]", "[aten.mul.Tensor]", 1,
       NULL, false, false},
      {event("native_call_x", 0, 5, -1, NULL), "None", "[]", 1, NULL, false,
       false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const expected_t *c = &cases[i];
    etk_etrecord_event_link_t out;
    etk_error_t err;
    etk_error_clear(&err);
    REQUIRE(etk_etrecord_linker_resolve(l, &c->ev, &out, &err) == ETK_OK);
    printf("# case %zu (%s)\n", i, c->ev.name);
    CHECK_EQ_STR(handles_text(&out), c->handles);
    CHECK_EQ_STR(op_types_text(&out), c->op_types);
    CHECK_EQ_INT(out.num_outputs, c->num_outputs);
    if (c->backend)
      CHECK_EQ_STR(out.delegate_backend_name, c->backend);
    else
      CHECK(out.delegate_backend_name == NULL);
    CHECK_EQ_INT(out.no_delegate_mapping, c->warning);
    CHECK_EQ_INT(etk_etrecord_link_in_module(&out, "L__self___aten_mm",
                                             ETK_ETRECORD_MODULE_SUBSTRING),
                 c->in_mm);
  }
  /* two sub nodes share handle 11: op_types has both, stack traces both
   * names; a substring query matches the duplicate's key too */
  etk_etrecord_event_ref_t ev = event("10", 0, 1, 10, NULL);
  etk_etrecord_event_link_t out;
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  REQUIRE(out.unique_node_count == 2);
  CHECK_EQ_STR(out.unique_nodes[0]->name, "aten_sub_tensor");
  CHECK_EQ_STR(out.unique_nodes[1]->name, "aten_sub_tensor_1");
  CHECK_EQ_STR(out.unique_nodes[0]->stack_trace,
               "  File \"m.py\", line 11, in forward\n");
  CHECK(etk_etrecord_link_in_module(&out, "aten_sub",
                                    ETK_ETRECORD_MODULE_SUBSTRING));
  CHECK(etk_etrecord_link_in_module(&out, "aten_sub_dup",
                                    ETK_ETRECORD_MODULE_EXACT_PATH));
  CHECK(!etk_etrecord_link_in_module(&out, "aten_su",
                                     ETK_ETRECORD_MODULE_EXACT_PATH));
  /* no instruction id: nothing at all */
  ev.has_instruction_id = false;
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK(!out.has_debug_handles);
  CHECK_EQ_INT(out.num_outputs, 1);
  CHECK(out.delegate_backend_name == NULL);
  etk_etrecord_linker_destroy(l);
  etk_etrecord_close(rec);
}

ETK_TEST(delegate_id_resolution_rules) {
  etk_etrecord_t *rec = open_appendix_d();
  REQUIRE(rec != NULL);
  const etk_etrecord_delegate_entry_t *d =
      etk_etrecord_maps_delegate(etk_etrecord_maps_find(rec, "forward"), 1);
  REQUIRE(d != NULL);
  const int64_t *h;
  size_t n;
  /* int ids: exact key, then every key inside str(id), last one wins */
  REQUIRE(etk_etrecord_delegate_resolve(d, 10, NULL, 0, &h, &n) == ETK_OK);
  CHECK(n == 1 && h[0] == 11);
  REQUIRE(etk_etrecord_delegate_resolve(d, 12, NULL, 0, &h, &n) == ETK_OK);
  CHECK(n == 1 && h[0] == 9); /* "1" is inside "12" */
  REQUIRE(etk_etrecord_delegate_resolve(d, 100, NULL, 0, &h, &n) == ETK_OK);
  CHECK(n == 1 && h[0] == 11); /* "0", "1", "10" all inside; "10" is last */
  CHECK(etk_etrecord_delegate_resolve(d, 12, NULL,
                                      ETK_ETRECORD_DELEGATE_ID_EXACT, &h,
                                      &n) == ETK_E_NOT_FOUND);
  CHECK(etk_etrecord_delegate_resolve(d, 3, NULL, 0, &h, &n) ==
        ETK_E_NOT_FOUND);
  /* string ids: exact first, else substring keys */
  REQUIRE(etk_etrecord_delegate_resolve(d, -1, "fc", 0, &h, &n) == ETK_OK);
  CHECK(n == 2 && h[0] == 8 && h[1] == 9);
  REQUIRE(etk_etrecord_delegate_resolve(d, -1, "fc_out", 0, &h, &n) == ETK_OK);
  CHECK(n == 2);
  CHECK(etk_etrecord_delegate_resolve(d, -1, "fc_out",
                                      ETK_ETRECORD_DELEGATE_ID_EXACT, &h,
                                      &n) == ETK_E_NOT_FOUND);
  CHECK(etk_etrecord_delegate_resolve(d, -1, "", 0, &h, &n) ==
        ETK_E_INVALID_ARGUMENT);
  CHECK(etk_etrecord_delegate_resolve(NULL, 1, NULL, 0, &h, &n) ==
        ETK_E_INVALID_ARGUMENT);
  etk_etrecord_close(rec);
}

ETK_TEST(linker_flags) {
  etk_etrecord_t *rec = open_appendix_d();
  REQUIRE(rec != NULL);
  etk_etrecord_linker_t *l;
  REQUIRE(etk_etrecord_linker_create(rec,
                                     ETK_ETRECORD_LINK_INSTRUCTIONS_ONLY |
                                         ETK_ETRECORD_LINK_EXACT_DELEGATE_IDS,
                                     &l, NULL) == ETK_OK);
  etk_etrecord_event_link_t out;
  etk_etrecord_event_ref_t ev = event("Method::execute", -1, 0, -1, NULL);
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK(!out.has_debug_handles);
  ev = event("12", 0, 1, 12, NULL);
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK(!out.has_debug_handles);
  CHECK_EQ_STR(out.delegate_backend_name, "XnnpackBackend");
  etk_etrecord_linker_destroy(l);

  /* the default keeps upstream's substring match */
  REQUIRE(etk_etrecord_linker_create(rec, 0, &l, NULL) == ETK_OK);
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK_EQ_STR(handles_text(&out), "[9]");
  /* another method has no maps: nothing; FORWARD_ONLY maps it to forward */
  ev = event("native_call_add.out", 0, 0, -1, NULL);
  ev.method = "decode";
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK(!out.has_debug_handles);
  etk_etrecord_linker_destroy(l);
  REQUIRE(etk_etrecord_linker_create(rec, ETK_ETRECORD_LINK_FORWARD_ONLY, &l,
                                     NULL) == ETK_OK);
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK_EQ_STR(handles_text(&out), "7");
  CHECK_EQ_STR(op_types_text(&out), "[aten.add.Tensor]");
  etk_etrecord_linker_destroy(l);
  CHECK(etk_etrecord_linker_create(NULL, 0, &l, NULL) ==
        ETK_E_INVALID_ARGUMENT);
  etk_etrecord_close(rec);
}

/* Two methods, each with its own program and maps; forward's graph has a
 * lowered module whose nested nodes carry the delegate's handles. */
ETK_TEST(multi_method_and_nested_nodes) {
  static const char fwd[] =
      "{\"graph_module\": {\"graph\": {\"nodes\": ["
      "{\"name\": \"executorch_call_delegate\", \"target\": "
      "\"torch.ops.higher_order.executorch_call_delegate\", \"inputs\": ["
      "{\"name\": \"lowered_module_0\", \"arg\": {\"as_string\": "
      "\"{\\\"backend_id\\\": \\\"VulkanBackend\\\", \\\"original_module\\\": "
      "{\\\"graph_module\\\": {\\\"graph\\\": {\\\"nodes\\\": [{\\\"name\\\": "
      "\\\"aten_conv\\\", \\\"target\\\": \\\"executorch.exir.dialects.edge."
      "ops.aten.convolution.default\\\", \\\"metadata\\\": "
      "{\\\"debug_handle\\\": \\\"3\\\"}}]}}}}\"}}]}]}}}";
  static const char dec[] =
      "{\"graph_module\": {\"graph\": {\"nodes\": [{\"name\": \"aten_add\", "
      "\"target\": \"executorch.exir.dialects.edge.ops.aten.add.Tensor\", "
      "\"metadata\": {\"debug_handle\": \"3\"}}]}}}";
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program/forward", .text = fwd},
      {.name = "edge_dialect_exported_program/decode", .text = dec},
      {.name = "debug_handle_map",
       .text = "{\"forward\": {\"0\": [3]}, \"decode\": {\"4\": 3}}"},
      {.name = "delegate_map",
       .text = "{\"forward\": {\"0\": {\"name\": \"VulkanBackend\", "
               "\"delegate_map\": {}}}}"},
  };
  etk_etrecord_t *rec = fixture_open_ok(m, 5);
  REQUIRE(rec != NULL);
  etk_etrecord_linker_t *l;
  REQUIRE(etk_etrecord_linker_create(rec, 0, &l, NULL) == ETK_OK);
  etk_etrecord_event_link_t out;
  etk_etrecord_event_ref_t ev = event("DELEGATE_CALL", 0, 0, -1, NULL);
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK_EQ_STR(handles_text(&out), "[3]");
  CHECK_EQ_STR(out.delegate_backend_name, "VulkanBackend");
  CHECK_EQ_STR(op_types_text(&out), "[aten.convolution.default]");
  ev.method = "decode";
  ev.instruction_id = 4;
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK_EQ_STR(handles_text(&out), "3");
  CHECK(out.delegate_backend_name == NULL);
  CHECK_EQ_STR(op_types_text(&out), "[aten.add.Tensor]");
  etk_etrecord_linker_destroy(l);
  /* upstream only sees the top graph */
  REQUIRE(etk_etrecord_linker_create(rec, ETK_ETRECORD_LINK_TOP_GRAPH_ONLY, &l,
                                     NULL) == ETK_OK);
  ev.method = "forward";
  ev.instruction_id = 0;
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK_EQ_STR(handles_text(&out), "[3]");
  CHECK_EQ_STR(op_types_text(&out), "[]");
  etk_etrecord_linker_destroy(l);
  etk_etrecord_close(rec);
}

ETK_TEST(linker_reports_broken_programs) {
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program", .text = "{\"graph_module\": ["},
      {.name = "debug_handle_map", .text = "{\"forward\": {\"0\": 1}}"},
  };
  etk_etrecord_t *rec;
  REQUIRE(fixture_open(m, 3, NULL, &rec, NULL, 0) == ETK_OK);
  etk_etrecord_linker_t *l;
  REQUIRE(etk_etrecord_linker_create(rec, 0, &l, NULL) == ETK_OK);
  etk_etrecord_event_link_t out;
  etk_etrecord_event_ref_t ev = event("OPERATOR_CALL", 0, 0, -1, NULL);
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_linker_resolve(l, &ev, &out, &err),
               ETK_E_TRUNCATED);
  CHECK_EQ_STR(err.where, "edge_dialect_exported_program");
  etk_etrecord_linker_destroy(l);
  etk_etrecord_close(rec);
}

ETK_TEST_MAIN()
