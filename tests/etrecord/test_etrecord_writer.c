/*
 * test_etrecord_writer.c - the ETRecord writer: a description written and
 * read back gives the same content; the archive has the current layout
 * (ETRECORD_V0 first, everything stored, zero-length companions, Python
 * json.dumps spacing); bad descriptions are refused with a clear error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "etk_test.h"
#include "fixture.h"

static const etk_etrecord_module_desc_t kMods[] = {
    {"L__self__", "", "toy.Net"},
    {"L__self___layers_0", "getattr(L['self'].layers, '0')",
     "torch.nn.modules.linear.Linear"}};
static const etk_etrecord_input_desc_t kLinearIn[] = {{"input", "x"},
                                                      {NULL, "w"}};
static const char *const kLinearOut[] = {"aten_linear_default"};
static const char *const kReluOut[] = {"aten_relu_default"};
static const etk_etrecord_input_desc_t kReluIn[] = {
    {"self", "aten_linear_default"}};
static const char *const kGraphIn[] = {"x", "w"};
static const int64_t kSizes[] = {2, 3};
static const etk_etrecord_tensor_desc_t kTensors[] = {{"x", 7, kSizes, 2},
                                                      {"w", 7, kSizes, 2}};
static const int64_t kH1[] = {1}, kH12[] = {1, 2}, kH2[] = {2};
static const etk_etrecord_handle_desc_t kHandles[] = {{0, kH1, 1, false},
                                                      {1, kH12, 2, true}};
static const etk_etrecord_delegate_id_desc_t kIds[] = {{"fc", kH1, 1},
                                                       {"0", kH2, 1}};
static const etk_etrecord_delegate_desc_t kDelegates[] = {
    {1, "XnnpackBackend", kIds, 2, 2}};

static etk_etrecord_node_desc_t forward_nodes[2];
static etk_etrecord_method_desc_t methods[2];

static etk_etrecord_desc_t make_desc(void) {
  memset(forward_nodes, 0, sizeof forward_nodes);
  forward_nodes[0] = (etk_etrecord_node_desc_t){
      .name = "aten_linear_default",
      .target = "executorch.exir.dialects.edge.ops.aten.linear.default",
      .debug_handle = 1,
      .stack_trace =
          "  File \"/src/net.py\", line 9, in forward\n"
          "    return self.layers[0](x) \xe2\x9c\x93\n",
      .module_stack = kMods,
      .module_stack_count = 2,
      .source_fn_stack = "layers_0,torch.nn.modules.linear.Linear",
      .inputs = kLinearIn,
      .input_count = 2,
      .outputs = kLinearOut,
      .output_count = 1};
  forward_nodes[1] = (etk_etrecord_node_desc_t){
      .name = "aten_relu_default",
      .target = "executorch.exir.dialects.edge.ops.aten.relu.default",
      .debug_handle = 2,
      .inputs = kReluIn,
      .input_count = 1,
      .outputs = kReluOut,
      .output_count = 1};
  memset(methods, 0, sizeof methods);
  methods[0] = (etk_etrecord_method_desc_t){.name = "forward",
                                            .nodes = forward_nodes,
                                            .node_count = 2,
                                            .graph_inputs = kGraphIn,
                                            .graph_input_count = 2,
                                            .graph_outputs = kReluOut,
                                            .graph_output_count = 1,
                                            .tensors = kTensors,
                                            .tensor_count = 2,
                                            .handles = kHandles,
                                            .handle_count = 2,
                                            .delegates = kDelegates,
                                            .delegate_count = 1};
  methods[1] = (etk_etrecord_method_desc_t){.name = "init"};
  etk_etrecord_desc_t d = {.methods = methods, .method_count = 2};
  return d;
}

/* The members of the record round_trip writes: names in order, all
 * stored, zero-length companions, the blob as given, and the maps' JSON
 * with Python json.dumps spacing. */
static void check_written_members(etk_etrecord_t *rec, const uint8_t *blob,
                                  size_t blob_len) {
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  size_t count = info.member_count;
  const char *names[] = {"ETRECORD_V0",
                         "edge_dialect_exported_program/forward",
                         "edge_dialect_exported_program/forward_state_dict",
                         "edge_dialect_exported_program/forward_constants",
                         "edge_dialect_exported_program/forward_example_inputs",
                         "edge_dialect_exported_program/init",
                         "edge_dialect_exported_program/init_state_dict",
                         "edge_dialect_exported_program/init_constants",
                         "edge_dialect_exported_program/init_example_inputs",
                         "debug_handle_map",
                         "delegate_map",
                         "instruction_id_to_num_outs_map",
                         "reference_outputs"};
  REQUIRE(count == sizeof names / sizeof names[0]);
  for (size_t i = 0; i < count; i++) {
    const etk_etrecord_member_t *m = etk_etrecord_member_at(rec, i);
    CHECK_EQ_STR(m->name, names[i]);
    CHECK_EQ_INT(m->compression, 0);
    if (strstr(m->name, "_state_dict") || strstr(m->name, "_constants") ||
        strstr(m->name, "_example_inputs") || i == 0)
      CHECK_EQ_INT(m->size, 0);
  }
  const uint8_t *data;
  size_t n;
  REQUIRE(etk_etrecord_member_read(rec, "reference_outputs", &data, &n, NULL) ==
          ETK_OK);
  CHECK(n == blob_len && memcmp(data, blob, n) == 0);
  /* Python json.dumps spacing */
  REQUIRE(etk_etrecord_member_read(rec, "debug_handle_map", &data, &n, NULL) ==
          ETK_OK);
  CHECK_EQ_STR((const char *)data,
               "{\"forward\": {\"0\": 1, \"1\": [1, 2]}, \"init\": {}}");
  REQUIRE(etk_etrecord_member_read(rec, "delegate_map", &data, &n, NULL) ==
          ETK_OK);
  CHECK_EQ_STR((const char *)data,
               "{\"forward\": {\"1\": {\"name\": \"XnnpackBackend\", "
               "\"delegate_map\": {\"fc\": [1], \"0\": [2]}}}, \"init\": {}}");
  REQUIRE(etk_etrecord_member_read(rec, "instruction_id_to_num_outs_map", &data,
                                   &n, NULL) == ETK_OK);
  CHECK_EQ_STR((const char *)data, "{\"forward\": {\"1\": 2}, \"init\": {}}");
  REQUIRE(etk_etrecord_member_read(rec, "edge_dialect_exported_program/forward",
                                   &data, &n, NULL) == ETK_OK);
  CHECK(strncmp((const char *)data,
                "{\"graph_module\": {\"graph\": {\"inputs\": "
                "[{\"as_tensor\": {\"name\": \"x\"}}",
                60) == 0);
  CHECK(strstr((const char *)data, "\\u2713") != NULL); /* ensure_ascii */
  CHECK(strstr((const char *)data,
               "\"schema_version\": {\"major\": 5, "
               "\"minor\": 4}") != NULL);
  CHECK(strstr((const char *)data,
               "\"tensor_values\": {\"x\": {\"dtype\": 7, "
               "\"sizes\": [{\"as_int\": 2}, {\"as_int\": "
               "3}], \"requires_grad\": false, \"device\": "
               "{\"type\": \"cpu\"}, \"strides\": "
               "[{\"as_int\": 3}, {\"as_int\": 1}]") != NULL);
}

/* The maps read back. */
static void check_written_maps(etk_etrecord_t *rec) {
  const etk_etrecord_method_maps_t *mm = etk_etrecord_maps_find(rec, "forward");
  REQUIRE(mm && mm->handle_count == 2 && mm->delegate_count == 1 &&
          mm->num_outs_count == 1);
  CHECK(!mm->handles[0].is_list && mm->handles[0].handles[0] == 1);
  CHECK(mm->handles[1].is_list && mm->handles[1].handle_count == 2);
  CHECK_EQ_STR(mm->delegates[0].backend_name, "XnnpackBackend");
  REQUIRE(mm->delegates[0].id_count == 2);
  CHECK_EQ_STR(mm->delegates[0].ids[0].id, "fc");
  CHECK_EQ_INT(etk_etrecord_maps_num_outputs(mm, 1, 1), 2);
  const etk_etrecord_method_maps_t *mi = etk_etrecord_maps_find(rec, "init");
  REQUIRE(mi != NULL);
  CHECK(mi->in_debug_handle_map && mi->handle_count == 0);
}

/* The program reads back node for node. */
static void check_written_program(etk_etrecord_t *rec) {
  etk_error_t err;
  etk_error_clear(&err);
  const etk_etrecord_program_t *p;
  REQUIRE(etk_etrecord_edge_program_load(rec, "forward", &p, &err) == ETK_OK);
  CHECK_EQ_INT(p->dialect, ETK_ETRECORD_DIALECT_SINGLE_KEY);
  CHECK_EQ_STR(p->verifiers, "EDGE");
  REQUIRE(p->input_count == 2 && p->output_count == 1);
  CHECK_EQ_STR(p->inputs[1], "w");
  CHECK_EQ_STR(p->outputs[0], "aten_relu_default");
  REQUIRE(p->node_count == 2);
  for (size_t i = 0; i < 2; i++) {
    const etk_etrecord_node_t *got = &p->nodes[i];
    const etk_etrecord_node_desc_t *want = &forward_nodes[i];
    CHECK_EQ_STR(got->name, want->name);
    CHECK_EQ_STR(got->target, want->target);
    CHECK(got->has_debug_handle);
    CHECK_EQ_INT(got->debug_handle, want->debug_handle);
    if (want->stack_trace)
      CHECK_EQ_STR(got->stack_trace, want->stack_trace);
    else
      CHECK(got->stack_trace == NULL);
    CHECK_EQ_INT(got->module_count, want->module_stack_count);
    for (size_t k = 0; k < got->module_count && k < want->module_stack_count;
         k++) {
      CHECK_EQ_STR(got->modules[k].key, want->module_stack[k].key);
      CHECK_EQ_STR(got->modules[k].path, want->module_stack[k].path);
      CHECK_EQ_STR(got->modules[k].type, want->module_stack[k].type);
    }
    REQUIRE(got->output_count == 1);
    CHECK_EQ_STR(got->outputs[0], want->outputs[0]);
  }
  CHECK_EQ_STR(p->nodes[0].args, "input=x, arg1=w");
  CHECK_EQ_STR(p->nodes[0].modules[1].normalized, "layers.0");
  REQUIRE(p->nodes[0].source_fn_count == 1);
  CHECK_EQ_STR(p->nodes[0].source_fns[0].name, "layers_0");
  char buf[128];
  etk_etrecord_node_source(&p->nodes[0], false, buf, sizeof buf);
  CHECK_EQ_STR(buf, "net.py:9");
  const etk_etrecord_program_t *init;
  REQUIRE(etk_etrecord_edge_program_load(rec, "init", &init, &err) == ETK_OK);
  CHECK_EQ_INT(init->node_count, 0);
}

/* The linker sees what was written. */
static void check_written_links(etk_etrecord_t *rec) {
  etk_etrecord_linker_t *l;
  REQUIRE(etk_etrecord_linker_create(rec, 0, &l, NULL) == ETK_OK);
  etk_etrecord_event_ref_t ev = {.name = "fc",
                                 .chain_index = 0,
                                 .instruction_id = 1,
                                 .has_instruction_id = true,
                                 .delegate_debug_id_int = -1,
                                 .delegate_debug_id_str = "fc"};
  etk_etrecord_event_link_t out;
  REQUIRE(etk_etrecord_linker_resolve(l, &ev, &out, NULL) == ETK_OK);
  CHECK_EQ_INT(out.num_outputs, 2);
  REQUIRE(out.node_count == 1);
  CHECK_EQ_STR(out.nodes[0]->op, "aten.linear.default");
  CHECK(etk_etrecord_link_in_module(&out, "layers.0",
                                    ETK_ETRECORD_MODULE_EXACT_PATH));
  etk_etrecord_linker_destroy(l);
}

/* libzip agrees on the container details. */
static void check_written_container(const uint8_t *zip, size_t len) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(zip, len, 0, &ze);
  zip_t *za =
      src ? zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze) : NULL;
  REQUIRE(za != NULL);
  zip_uint8_t opsys;
  zip_uint32_t attr;
  REQUIRE(zip_file_get_external_attributes(za, 0, 0, &opsys, &attr) == 0);
  CHECK_EQ_INT(opsys, ZIP_OPSYS_UNIX);
  CHECK_EQ_INT(attr, 0600u << 16);
  zip_discard(za);
  zip_error_fini(&ze);
}

ETK_TEST(round_trip) {
  static const uint8_t blob[] = {0x80, 0x02, '}', 'q', 0x00, '.'};
  etk_etrecord_blob_desc_t extra = {"reference_outputs", blob, sizeof blob};
  etk_etrecord_desc_t desc = make_desc();
  desc.extra_members = &extra;
  desc.extra_member_count = 1;
  uint8_t *zip;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_etrecord_write_memory(&desc, &zip, &len, &err);
  if (rc != ETK_OK) printf("# %s\n", fixture_error_line(&err));
  REQUIRE(rc == ETK_OK);

  etk_etrecord_t *rec;
  REQUIRE(etk_etrecord_open_memory(zip, len, NULL, &rec, &err) == ETK_OK);
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  CHECK_EQ_INT(info.layout, ETK_ETRECORD_LAYOUT_2026_02);
  CHECK_EQ_INT(info.method_count, 2);
  check_written_members(rec, blob, sizeof blob);
  check_written_maps(rec);
  check_written_program(rec);
  check_written_links(rec);
  etk_etrecord_close(rec);
  check_written_container(zip, len);
  free(zip);
}

ETK_TEST(write_file_is_atomic_and_readable) {
  etk_etrecord_desc_t desc = make_desc();
  const char *path = etk_test_temp_path("written.etrecord");
  char saved[4096];
  snprintf(saved, sizeof saved, "%s", path);
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_etrecord_write_file(&desc, saved, &err) == ETK_OK);
  etk_etrecord_t *rec;
  REQUIRE(etk_etrecord_open_file(saved, NULL, &rec, &err) == ETK_OK);
  const etk_etrecord_program_t *p;
  CHECK(etk_etrecord_edge_program_load(rec, NULL, &p, NULL) == ETK_OK);
  etk_etrecord_close(rec);
  /* the same description gives the same bytes (fixed time stamps) */
  uint8_t *a, *b;
  size_t la, lb;
  REQUIRE(etk_etrecord_write_memory(&desc, &a, &la, NULL) == ETK_OK);
  REQUIRE(etk_etrecord_write_memory(&desc, &b, &lb, NULL) == ETK_OK);
  CHECK(la == lb && memcmp(a, b, la) == 0);
  free(a);
  free(b);
  /* a failing write leaves no file behind */
  methods[0].name = "bad/name";
  char missing[4200];
  snprintf(missing, sizeof missing, "%s.never", saved);
  CHECK(etk_etrecord_write_file(&desc, missing, NULL) ==
        ETK_E_INVALID_ARGUMENT);
  FILE *f = fopen(missing, "rb");
  CHECK(f == NULL);
  if (f) fclose(f);
  remove(saved);
}

static void expect_refused(etk_etrecord_desc_t *desc, int code,
                           const char *line) {
  uint8_t *out = (uint8_t *)1;
  size_t len = 7;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_etrecord_write_memory(desc, &out, &len, &err);
  const char *text = fixture_error_line(&err);
  if (rc != code || strcmp(text, line) != 0)
    printf("# got %s: %s\n", etk_status_name(rc), text);
  CHECK_EQ_INT(rc, code);
  CHECK_EQ_STR(text, line);
  CHECK(out == NULL && len == 0);
}

ETK_TEST(bad_descriptions) {
  etk_etrecord_desc_t desc = make_desc();
  desc.method_count = 0;
  expect_refused(&desc, ETK_E_INVALID_ARGUMENT,
                 "ETRecord writer: no method to write");
  desc = make_desc();
  methods[1].name = "forward";
  expect_refused(&desc, ETK_E_INVALID_ARGUMENT,
                 "ETRecord writer: method 'forward' given twice");
  desc = make_desc();
  forward_nodes[1].name = "aten_linear_default";
  expect_refused(&desc, ETK_E_INVALID_ARGUMENT,
                 "ETRecord writer: method 'forward': node name "
                 "'aten_linear_default' used twice");
  desc = make_desc();
  forward_nodes[1].stack_trace = "bad \xff byte";
  expect_refused(&desc, ETK_E_BAD_UTF8,
                 "ETRecord writer: method 'forward', node 1 "
                 "('aten_relu_default'): stack_trace is not valid UTF-8");
  desc = make_desc();
  forward_nodes[0].target = NULL;
  expect_refused(&desc, ETK_E_INVALID_ARGUMENT,
                 "ETRecord writer: method 'forward', node 0 "
                 "('aten_linear_default'): target is NULL");
  desc = make_desc();
  static const etk_etrecord_module_desc_t bad_path[] = {{"k", "a,b", "T"}};
  forward_nodes[0].module_stack = bad_path;
  forward_nodes[0].module_stack_count = 1;
  expect_refused(&desc, ETK_E_INVALID_ARGUMENT,
                 "ETRecord writer: method 'forward', node 0 "
                 "('aten_linear_default'): module path 'a,b' has a ',' outside "
                 "() or []");
  desc = make_desc();
  static const etk_etrecord_module_desc_t bad_key[] = {{"k;x", "a", "T"}};
  forward_nodes[0].module_stack = bad_key;
  expect_refused(&desc, ETK_E_INVALID_ARGUMENT,
                 "ETRecord writer: method 'forward', node 0 "
                 "('aten_linear_default'): module entry 'k;x' has ',', ';' or "
                 "brackets where torch's \"key,path,type\" encoding cannot "
                 "hold them");
  desc = make_desc();
  static const etk_etrecord_handle_desc_t dup[] = {{0, kH1, 1, false},
                                                   {0, kH2, 1, false}};
  methods[0].handles = dup;
  expect_refused(&desc, ETK_E_INVALID_ARGUMENT,
                 "ETRecord writer: method 'forward': instruction 0 appears "
                 "twice in the debug handles");
  desc = make_desc();
  static const etk_etrecord_handle_desc_t two[] = {{0, kH12, 2, false}};
  methods[0].handles = two;
  methods[0].handle_count = 1;
  expect_refused(&desc, ETK_E_INVALID_ARGUMENT,
                 "ETRecord writer: method 'forward', instruction 0: a single "
                 "handle needs handle_count 1");
  desc = make_desc();
  etk_etrecord_blob_desc_t clash = {"debug_handle_map", "x", 1};
  desc.extra_members = &clash;
  desc.extra_member_count = 1;
  expect_refused(&desc, ETK_E_INVALID_ARGUMENT,
                 "ETRecord writer: extra member 'debug_handle_map' would clash "
                 "with a member the writer writes");
  CHECK(etk_etrecord_write_memory(NULL, NULL, NULL, NULL) ==
        ETK_E_INVALID_ARGUMENT);
}

ETK_TEST_MAIN()
