/*
 * corpus_gen.c - writes the seed corpus of etrecord_fuzz into a directory:
 *
 *   etrecord_corpus_gen fuzz/etrecord/corpus
 *
 * Two kinds of seeds, matching the two input forms of the target:
 *   zip-*    whole ETRecord archives: one written by the etkit writer (two
 *            methods, delegates), and hand-made ones in the 2023 dialect,
 *            with deflated members, with a lowered module, with Python's
 *            Infinity/NaN tokens;
 *   json-*   NUL-separated member texts (debug_handle_map, the forward
 *            program, delegate_map, num-outs map, ...) that the target
 *            zips itself, so mutations reach the JSON code past the CRCs.
 *   damaged  a zip bomb, graph nodes with mistyped or NUL-holding fields,
 *            negative and huge num_outs (write_damaged_seeds).
 * The files are deterministic (fixed time stamps); the archives are built
 * with the ETRecord tests' fixture (tests/etrecord/fixture.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/etrecord.h"
#include "fixture.h"

static int write_bytes(const char *dir, const char *name, const void *data,
                       size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len) {
    if (f) fclose(f);
    fprintf(stderr, "cannot write %s\n", path);
    return 1;
  }
  return fclose(f) != 0;
}

static int write_zip(const char *dir, const char *file,
                     const fixture_member_t *members, size_t count) {
  size_t len = 0;
  uint8_t *zip = fixture_zip(members, count, &len);
  int rc = zip ? write_bytes(dir, file, zip, len) : 1;
  free(zip);
  return rc;
}

static const char kOld[] =
    "{\"graph_module\": {\"graph\": {\"inputs\": [{\"as_none\": null, "
    "\"as_tensor\": {\"name\": \"x\"}, \"as_int\": null}], \"outputs\": [], "
    "\"nodes\": [{\"target\": \"executorch.exir.dialects.edge.ops.aten.mul."
    "Tensor\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_none\": null, "
    "\"as_tensor\": {\"name\": \"x\"}, \"as_int\": null}}], \"outputs\": "
    "[{\"as_none\": null, \"as_tensor\": {\"name\": \"aten_mul_tensor\"}, "
    "\"as_int\": null}], \"metadata\": {\"stack_trace\": \"  File "
    "\\\"m.py\\\", "
    "line 18, in forward\\n    return x * x\\n\", \"source_fn_stack\": "
    "\"mul,_operator.mul\", \"debug_handle\": \"2\"}}]}}, \"schema_version\": "
    "1}";

static const char kNew[] =
    "{\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": "
    "\"x\"}}], \"outputs\": [{\"as_tensor\": {\"name\": \"y\"}}], \"nodes\": ["
    "{\"name\": \"d\", \"target\": \"torch.ops.higher_order."
    "executorch_call_delegate\", \"inputs\": [{\"name\": \"lowered_module_0\", "
    "\"arg\": {\"as_string\": \"{\\\"backend_id\\\": \\\"B\\\", "
    "\\\"original_module\\\": {\\\"graph_module\\\": {\\\"graph\\\": "
    "{\\\"nodes\\\": [{\\\"name\\\": \\\"mm\\\", \\\"target\\\": "
    "\\\"torch.ops.aten.mm.default\\\", \\\"metadata\\\": "
    "{\\\"debug_handle\\\": \\\"8\\\"}}]}}}}\"}}, {\"name\": \"c\", \"arg\": "
    "{\"as_float\": -Infinity}}], \"outputs\": [{\"as_tensor\": {\"name\": "
    "\"y\"}}], \"metadata\": {\"nn_module_stack\": \"L__self__,,M;"
    "L__self___fc,getattr(L['self'].layers, '0'),torch.nn.Linear\", "
    "\"debug_handle\": \"7\"}}, {\"name\": \"cond\", \"target\": "
    "\"torch.ops.higher_order.cond\", \"inputs\": [{\"name\": \"t\", \"arg\": "
    "{\"as_graph\": {\"name\": \"g\", \"graph\": {\"nodes\": [{\"name\": "
    "\"sin\", \"target\": \"torch.ops.aten.sin.default\", \"metadata\": "
    "{\"debug_handle\": \"9\"}}]}}}}], \"metadata\": {}}]}}, "
    "\"range_constraints\": {\"s0\": {\"min_val\": NaN, \"max_val\": "
    "Infinity}}, \"schema_version\": {\"major\": 5, \"minor\": 4}}";

static const char kHandles[] = "{\"forward\": {\"0\": 7, \"1\": [8, 9]}}";
static const char kDelegates[] =
    "{\"forward\": {\"1\": {\"name\": \"B\", \"delegate_map\": {\"0\": [8], "
    "\"1\": [9], \"10\": [8, 9], \"fc\": [9]}}}}";
static const char kNumOuts[] = "{\"forward\": {\"1\": 2}}";

static int write_chunks(const char *dir, const char *file,
                        const char *const *texts, size_t n) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += strlen(texts[i]) + 1;
  char *buf = malloc(total);
  if (!buf) return 1;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(texts[i]);
    memcpy(buf + at, texts[i], len);
    at += len;
    if (i + 1 < n) buf[at++] = 0;
  }
  int rc = write_bytes(dir, file, buf, at);
  free(buf);
  return rc;
}

static int write_writer_seed(const char *dir) {
  static const etk_etrecord_module_desc_t mods[] = {
      {"L__self__", "", "toy.Net"}, {"L__self___fc", "fc", "torch.nn.Linear"}};
  static const etk_etrecord_input_desc_t in[] = {{"self", "x"}};
  static const char *const outs[] = {"aten_relu_default"};
  static const char *const gin[] = {"x"};
  etk_etrecord_node_desc_t nodes[] = {
      {.name = "aten_relu_default",
       .target = "executorch.exir.dialects.edge.ops.aten.relu.default",
       .debug_handle = 1,
       .stack_trace =
           "  File \"net.py\", line 3, in forward\n    return r(x)\n",
       .module_stack = mods,
       .module_stack_count = 2,
       .inputs = in,
       .input_count = 1,
       .outputs = outs,
       .output_count = 1}};
  static const int64_t h1[] = {1};
  static const etk_etrecord_handle_desc_t handles[] = {{0, h1, 1, false},
                                                       {1, h1, 1, true}};
  static const etk_etrecord_delegate_id_desc_t ids[] = {{"0", h1, 1}};
  static const etk_etrecord_delegate_desc_t dels[] = {{1, "B", ids, 1, 2}};
  etk_etrecord_method_desc_t methods[] = {{.name = "forward",
                                           .nodes = nodes,
                                           .node_count = 1,
                                           .graph_inputs = gin,
                                           .graph_input_count = 1,
                                           .graph_outputs = outs,
                                           .graph_output_count = 1,
                                           .handles = handles,
                                           .handle_count = 2,
                                           .delegates = dels,
                                           .delegate_count = 1},
                                          {.name = "decode"}};
  etk_etrecord_desc_t desc = {.methods = methods, .method_count = 2};
  uint8_t *data;
  size_t len;
  if (etk_etrecord_write_memory(&desc, &data, &len, NULL) != ETK_OK) return 1;
  int rc = write_bytes(dir, "zip-writer", data, len);
  free(data);
  return rc;
}

/* Damaged seeds, each refused with one line: a deflated 8 MiB member
 * (a zip bomb over the 100:1 ratio, about 8 KB on disk), graph nodes
 * whose target is null, whose name holds a NUL byte or is a list,
 * metadata that is not an object, and num_outs maps with a negative and
 * a huge count. */
static int write_damaged_seeds(const char *dir) {
  size_t big = (size_t)8 << 20;
  char *spaces = malloc(big + 1);
  if (!spaces) return 1;
  memset(spaces, ' ', big);
  spaces[0] = '{';
  spaces[big - 1] = '}';
  spaces[big] = 0;
  fixture_member_t bomb[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "debug_handle_map", .text = spaces, .deflate = true}};
  int bad = write_zip(dir, "zip-bomb", bomb, 2);
  free(spaces);
  const char *nodes[] = {
      "{\"forward\": {\"0\": 1}}",
      "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": null}, "
      "{\"target\": \"t\", \"name\": \"a\\u0000b\"}, {\"target\": "
      "\"t\", \"name\": [1]}, {\"target\": \"t\", \"metadata\": [1]}]}}}",
      "{}", "{\"forward\": {\"1\": -1, \"2\": 9223372036854775807}}"};
  bad |= write_chunks(dir, "json-damaged", nodes, 4);
  fixture_member_t outs[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program/forward", .text = kNew},
      {.name = "instruction_id_to_num_outs_map",
       .text = "{\"forward\": {\"1\": -5}}"}};
  bad |= write_zip(dir, "zip-negative-num-outs", outs, 3);
  return bad;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  int bad = write_writer_seed(dir);
  fixture_member_t old[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program", .text = kOld},
      {.name = "debug_handle_map", .text = "{}"},
      {.name = "delegate_map", .text = "{}"}};
  bad |= write_zip(dir, "zip-2023", old, 4);
  fixture_member_t cur[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program/forward",
       .text = kNew,
       .deflate = true},
      {.name = "debug_handle_map", .text = kHandles, .deflate = true},
      {.name = "delegate_map", .text = kDelegates},
      {.name = "instruction_id_to_num_outs_map", .text = kNumOuts},
      {.name = "export_graph_id", .text = "140245120539360"},
      {.name = "aten_dialect_output/forward", .text = kOld}};
  bad |= write_zip(dir, "zip-current", cur, 7);
  const char *chunks[] = {kHandles, kNew, kDelegates,
                          kNumOuts, kOld, "9223372036854775807"};
  bad |= write_chunks(dir, "json-current", chunks, 6);
  const char *flat[] = {"{\"0\": 1, \"1\": [2, 3], \"2\": null}", kOld,
                        "{\"0\": {\"name\": \"X\", \"delegate_map\": "
                        "null}}",
                        "{\"1\": 1}"};
  bad |= write_chunks(dir, "json-flat", flat, 4);
  const char *tokens[] = {
      "{\"forward\": {\"0\": [Infinity, -Infinity, NaN, "
      "18446744073709551616]}}"};
  bad |= write_chunks(dir, "json-tokens", tokens, 1);
  bad |= write_damaged_seeds(dir);
  return bad ? 1 : 0;
}
