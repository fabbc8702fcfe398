/*
 * numerics_fixtures.c - see numerics_fixtures.h.
 */
#include "numerics_fixtures.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../etdump/etdump_writer.h"
#include "etkit/etrecord.h"
#include "etkit/schema.h"

void nf_dump_free(nf_dump_t *d) {
  free(d->etdp);
  free(d->buf);
  memset(d, 0, sizeof *d);
}

/* A debug buffer that places each tensor at the next 64-byte boundary, as
 * upstream's BufferDataSink does. */
typedef struct dbuf {
  uint8_t data[4096];
  size_t len;
} dbuf_t;

static int64_t put(dbuf_t *b, const void *p, size_t n) {
  size_t at = (b->len + 63) & ~(size_t)63;
  if (at + n > sizeof b->data) return -1;
  memset(b->data + b->len, 0, at - b->len);
  memcpy(b->data + at, p, n);
  b->len = at + n;
  return (int64_t)at;
}

static etw_tensor_t f32(dbuf_t *b, const float *v, const int64_t *sizes,
                        uint32_t dim, size_t n) {
  etw_tensor_t t = {ETK_SCALAR_TYPE_FLOAT, sizes, dim, NULL, put(b, v, n * 4)};
  return t;
}

static etw_tensor_t i64(dbuf_t *b, const int64_t *v, const int64_t *sizes,
                        uint32_t dim, size_t n) {
  etw_tensor_t t = {ETK_SCALAR_TYPE_LONG, sizes, dim, NULL, put(b, v, n * 8)};
  return t;
}

static void profile(etw_t *w, const char *name, int32_t iid, uint64_t t) {
  etw_profile(w, &(etw_profile_t){.name = name,
                                  .iid = iid,
                                  .dint = ETW_NO_ID,
                                  .start = t,
                                  .end = t + 100});
}

static void tensor_event(etw_t *w, int32_t iid, const char *dstr,
                         etw_tensor_t t, int output) {
  etw_debug(w, &(etw_debug_t){.chain = output ? UINT64_MAX : 0,
                              .iid = output ? -1 : iid,
                              .dint = ETW_NO_ID,
                              .dstr = dstr,
                              .kind = ETW_VALUE_TENSOR,
                              .tensor = t,
                              .output = output ? 1 : -1});
}

static int finish(etw_t *w, dbuf_t *b, nf_dump_t *out) {
  size_t len;
  const uint8_t *bytes = etw_finish(w, &len);
  if (!bytes) return -1;
  out->etdp = malloc(len);
  out->buf = malloc(b->len ? b->len : 1);
  if (!out->etdp || !out->buf) return -1;
  memcpy(out->etdp, bytes, len);
  memcpy(out->buf, b->data, b->len);
  out->etdp_len = len;
  out->buf_len = b->len;
  return 0;
}

int nf_ab_dump(int side, nf_dump_t *out) {
  memset(out, 0, sizeof *out);
  static dbuf_t b;
  memset(&b, 0, sizeof b);
  etw_t *w = etw_new(1 << 16);
  if (!w) return -1;
  static const int64_t s22[2] = {2, 2}, s4[1] = {4}, s2[1] = {2}, s1[1] = {1};
  static const int64_t s3[1] = {3};
  static const float conv[2][4] = {{1, 2, 3, 4}, {1.5f, 2, 2.5f, 4}};
  static const float relu[4] = {0, 2, 0, 4};
  static const float lin[2][2] = {{0.5f, -0.5f}, {0.5f, -0.25f}};
  static const float pool[2][2] = {{3, 4}, {3, 4.5f}};
  /* max_pool's indices: one of two differs in B (an exact comparison) */
  static const int64_t idx[2][2] = {{1, 3}, {1, 2}};
  static const float ones[2] = {1, 1}, two[1] = {2}, nine[1] = {9};
  static const float three[3] = {1, 2, 3}, four[4] = {1, 2, 3, 4};
  static const float zeros[2] = {0, 0};
  static const float outv[2][2] = {{1, 2}, {1, 2.5f}};
  etw_run_begin(w, "Execute", -1);
  profile(w, "Method::execute", -1, 1000);
  profile(w, "native_call_convolution.out", 0, 1100);
  profile(w, "OPERATOR_CALL", 0, 1100);
  tensor_event(w, 0, NULL, f32(&b, conv[side], s22, 2, 4), 0);
  profile(w, "native_call_relu.out", 1, 1200);
  tensor_event(w, 1, NULL, f32(&b, relu, s4, 1, 4), 0);
  profile(w, "DELEGATE_CALL", 2, 1300);
  tensor_event(w, 2, "linear #0", f32(&b, lin[side], s2, 1, 2), 0);
  profile(w, "native_call_max_pool2d_with_indices.out", 3, 1400);
  tensor_event(w, 3, NULL, f32(&b, pool[side], s2, 1, 2), 0);
  tensor_event(w, 3, NULL, i64(&b, idx[side], s2, 1, 2), 0);
  profile(w, "native_call_split.out", 4, 1500);
  etw_tensor_t list[2] = {f32(&b, ones, s2, 1, 2), f32(&b, two, s1, 1, 1)};
  etw_debug(w, &(etw_debug_t){.chain = 0,
                              .iid = 4,
                              .dint = ETW_NO_ID,
                              .kind = ETW_VALUE_TENSOR_LIST,
                              .tensors = list,
                              .tensor_count = side ? 1 : 2,
                              .output = -1});
  if (side == 0)
    etw_debug(w, &(etw_debug_t){.chain = 0,
                                .iid = 5,
                                .dint = ETW_NO_ID,
                                .kind = ETW_VALUE_INT,
                                .int_value = 7,
                                .output = -1});
  else
    tensor_event(w, 6, NULL, f32(&b, nine, s1, 1, 1), 0);
  tensor_event(w, 7, NULL,
               side ? f32(&b, four, s4, 1, 4) : f32(&b, three, s3, 1, 3), 0);
  tensor_event(w, 8, NULL, f32(&b, zeros, s2, 1, 2), 0);
  tensor_event(w, -1, NULL, f32(&b, outv[side], s2, 1, 2), 1);
  etw_run_end(w);
  int rc = finish(w, &b, out);
  etw_free(w);
  return rc;
}

int nf_compare_dump(nf_dump_t *out) {
  memset(out, 0, sizeof *out);
  static dbuf_t b;
  memset(&b, 0, sizeof b);
  etw_t *w = etw_new(1 << 16);
  if (!w) return -1;
  static const int64_t s4[1] = {4}, s3[1] = {3};
  static const float run[4] = {1, 2.5f, 3, 3.5f};
  static const int64_t ints[3] = {1, 2, 3};
  for (int bii = -1; bii <= 0; bii++) {
    etw_run_begin(w, "Execute", bii);
    profile(w, "Method::execute", -1, 1000);
    tensor_event(w, -1, NULL, f32(&b, run, s4, 1, 4), 1);
    tensor_event(w, -1, NULL, i64(&b, ints, s3, 1, 3), 1);
    etw_run_end(w);
  }
  int rc = finish(w, &b, out);
  etw_free(w);
  return rc;
}

/* ------------------------------------------------------------ ETRecords */

static int write_record(etk_etrecord_method_desc_t *m,
                        const etk_etrecord_references_desc_t *refs,
                        uint8_t **out, size_t *len) {
  etk_etrecord_desc_t desc;
  memset(&desc, 0, sizeof desc);
  desc.methods = m;
  desc.method_count = 1;
  desc.references = refs;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_etrecord_write_memory(&desc, out, len, &err);
  if (rc != ETK_OK) {
    char line[512];
    fprintf(stderr, "%s\n", etk_error_format(&err, line, sizeof line));
  }
  return rc == ETK_OK ? 0 : -1;
}

int nf_ab_etrecord(uint8_t **out, size_t *len) {
  static const char *const names[9] = {"aten_convolution_default",
                                       "aten_relu_default",
                                       "aten_linear_default",
                                       "aten_max_pool2d_with_indices_default",
                                       "aten_split_with_sizes_copy_default",
                                       "aten_sym_size_int",
                                       "aten_add_tensor",
                                       "aten_mul_tensor",
                                       "aten_zeros_like_default"};
  static const char *const ops[9] = {"aten::convolution",
                                     "aten::relu",
                                     "aten::linear",
                                     "aten::max_pool2d_with_indices",
                                     "aten::split_with_sizes_copy",
                                     "aten::sym_size.int",
                                     "aten::add.Tensor",
                                     "aten::mul.Tensor",
                                     "aten::zeros_like"};
  static char targets[9][128];
  static etk_etrecord_node_desc_t nodes[9];
  static etk_etrecord_input_desc_t inputs[9];
  static const char *outs[9][1];
  static int64_t h[9];
  static etk_etrecord_handle_desc_t handles[9];
  memset(nodes, 0, sizeof nodes);
  for (int k = 0; k < 9; k++) {
    etk_etrecord_edge_target(ops[k], targets[k], sizeof targets[k]);
    inputs[k] = (etk_etrecord_input_desc_t){"self", k ? names[k - 1] : "x"};
    outs[k][0] = names[k];
    nodes[k].name = names[k];
    nodes[k].target = targets[k];
    nodes[k].debug_handle = k + 1;
    nodes[k].inputs = &inputs[k];
    nodes[k].input_count = 1;
    nodes[k].outputs = outs[k];
    nodes[k].output_count = 1;
    h[k] = k + 1;
    handles[k] = (etk_etrecord_handle_desc_t){k, &h[k], 1, k == 2};
  }
  static const etk_etrecord_delegate_id_desc_t ids[1] = {
      {"linear #0", &h[2], 1}};
  static const etk_etrecord_delegate_desc_t delegates[1] = {
      {2, "XnnpackBackend", ids, 1, 1}};
  static const char *graph_in[1] = {"x"};
  etk_etrecord_method_desc_t m;
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.nodes = nodes;
  m.node_count = 9;
  m.graph_inputs = graph_in;
  m.graph_input_count = 1;
  m.graph_outputs = outs[8];
  m.graph_output_count = 1;
  m.handles = handles;
  m.handle_count = 9;
  m.delegates = delegates;
  m.delegate_count = 1;
  return write_record(&m, NULL, out, len);
}

/* with_refs: etkit's torch.save references; legacy: a raw pickle as
 * reference_outputs, as records written before 2026-03 hold. */
static int compare_record(bool with_refs, bool legacy, uint8_t **out,
                          size_t *len) {
  static const char *const outs[1] = {"aten_relu_default"};
  static const char *const graph_in[1] = {"x"};
  static const etk_etrecord_input_desc_t in[1] = {{"self", "x"}};
  static etk_etrecord_node_desc_t node;
  memset(&node, 0, sizeof node);
  node.name = "aten_relu_default";
  node.target = "executorch.exir.dialects.edge.ops.aten.relu.default";
  node.debug_handle = 1;
  node.inputs = in;
  node.input_count = 1;
  node.outputs = outs;
  node.output_count = 1;
  etk_etrecord_method_desc_t m;
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.nodes = &node;
  m.node_count = 1;
  m.graph_inputs = graph_in;
  m.graph_input_count = 1;
  m.graph_outputs = outs;
  m.graph_output_count = 1;
  static const float case0[4] = {2, 2, 2, 2}, case1[4] = {1, 2, 3, 4};
  static const int64_t ints[3] = {1, 2, 3};
  static const int64_t s4[1] = {4}, s3[1] = {3};
  static const etk_torch_tensor_desc_t o0[2] = {{6, 1, s4, case0, 16},
                                                {4, 1, s3, ints, 24}};
  static const etk_torch_tensor_desc_t o1[2] = {{6, 1, s4, case1, 16},
                                                {4, 1, s3, ints, 24}};
  static const etk_etrecord_case_desc_t cases[2] = {{o0, 2}, {o1, 2}};
  static const etk_etrecord_reference_desc_t ref = {"forward", cases, 2};
  static const etk_etrecord_references_desc_t refs = {&ref, 1, NULL, 0};
  static const uint8_t raw[] = {0x80, 0x04, '}', 'q', 0x00, '.'};
  static const etk_etrecord_blob_desc_t blob = {"reference_outputs", raw,
                                                sizeof raw};
  etk_etrecord_desc_t desc;
  memset(&desc, 0, sizeof desc);
  desc.methods = &m;
  desc.method_count = 1;
  desc.references = with_refs ? &refs : NULL;
  desc.extra_members = legacy ? &blob : NULL;
  desc.extra_member_count = legacy ? 1 : 0;
  return etk_etrecord_write_memory(&desc, out, len, NULL) == ETK_OK ? 0 : -1;
}

int nf_compare_etrecord(uint8_t **out, size_t *len) {
  return compare_record(true, false, out, len);
}

static int save(const char *dir, const char *name, const uint8_t *p, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return etw_write_file(path, p, n);
}

int nf_write_all(const char *dir) {
  nf_dump_t d;
  int rc = 0;
  for (int side = 0; side < 2 && !rc; side++) {
    rc = nf_ab_dump(side, &d);
    if (!rc) rc = save(dir, side ? "b.etdp" : "a.etdp", d.etdp, d.etdp_len);
    if (!rc) rc = save(dir, side ? "b.bin" : "a.bin", d.buf, d.buf_len);
    nf_dump_free(&d);
  }
  if (!rc) rc = nf_compare_dump(&d);
  if (!rc) rc = save(dir, "compare.etdp", d.etdp, d.etdp_len);
  if (!rc) rc = save(dir, "compare.bin", d.buf, d.buf_len);
  nf_dump_free(&d);
  uint8_t *zip = NULL;
  size_t len = 0;
  if (!rc) rc = nf_ab_etrecord(&zip, &len);
  if (!rc) rc = save(dir, "ab.etrecord", zip, len);
  free(zip);
  zip = NULL;
  if (!rc) rc = nf_compare_etrecord(&zip, &len);
  if (!rc) rc = save(dir, "compare.etrecord", zip, len);
  free(zip);
  zip = NULL;
  if (!rc) rc = compare_record(false, false, &zip, &len);
  if (!rc) rc = save(dir, "compare_norefs.etrecord", zip, len);
  free(zip);
  zip = NULL;
  if (!rc) rc = compare_record(false, true, &zip, &len);
  if (!rc) rc = save(dir, "compare_legacy.etrecord", zip, len);
  free(zip);
  return rc;
}
