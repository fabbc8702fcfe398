/*
 * demo_model.c - a small CNN built in C, and the ETRecord that explains it.
 *
 * This is the model of `etkit demo`, written as an example to copy: it
 * shows how to make a program (.pte) without Python, with the program
 * builder of etkit/program.h, and how to write the ETRecord that lets the
 * inspector name the graph node, module and source line behind every event
 * of an ETDump.
 *
 * The program, method "forward", input x of shape [1, 1, 8, 8]:
 *
 *   convolution 3x3 (4 channels) -> relu -> max-pool 2x2
 *   -> [delegate: convolution 3x3 (8 channels) -> relu]
 *   -> max-pool 2x2 -> permute -> view [1, 32] -> addmm (fc, 10 outputs)
 *
 * The operators are those of upstream's devtools tutorial model.  The
 * bracketed part is lowered to EtkitMicroBackend, the example delegate:
 * its payload is a small graph (build_payload) whose ops carry string debug
 * ids ("convolution #0", "relu #1") as upstream's XNNPACK delegate does;
 * the ETRecord's delegate map turns them back into graph nodes.
 *
 * Building a program takes three kinds of value: tensors (planned, whose
 * memory the runtime plans, or constant, whose data the .pte holds), scalar
 * and list arguments, and operators; then one call per instruction lists
 * the value indices of its arguments, out arguments last, in the order of
 * the operator's schema.  The ETRecord mirrors it: one graph node per
 * operator with the debug handle the runtime reports for its instruction,
 * the module it came from and a stack trace, plus the instruction -> handle
 * map.  To build your own model, change the values and calls of
 * etk_demo_model_build and the node table of etk_demo_model_write_etrecord
 * together: node k has debug handle k + 1.
 *
 * Invariants: the weights are a fixed pseudo-random sequence, so every
 * build gives the same bytes; nothing here keeps state between calls.
 */
#include "demo_model.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/backend_micro.h"
#include "etkit/etrecord_writer.h"

/* The weights: a linear congruential sequence from a fixed seed, so every
 * build gives the same model.  A real model would load trained values. */
static float next_weight(uint32_t *state, float scale) {
  *state = *state * 1664525u + 1013904223u;
  return ((float)(*state >> 8) / 16777216.0f - 0.5f) * scale;
}

static float *weights(uint32_t *state, size_t n, float scale) {
  float *w = malloc(n * sizeof *w);
  if (w)
    for (size_t k = 0; k < n; k++) w[k] = next_weight(state, scale);
  return w;
}

/* The delegated part: conv(in, w, b) -> relu -> out, as an
 * EtkitMicroBackend payload.  DelegateCall args: [in, w, b, out].  The ops'
 * debug ids are the keys of the ETRecord's delegate map
 * (etk_demo_model_write_etrecord). */
#define DELEGATE_ID_CONV "convolution #0"
#define DELEGATE_ID_RELU "relu #1"

static int build_payload(uint8_t *buf, size_t cap, size_t *len) {
  etk_micro_graph_t g;
  etk_micro_graph_init(&g, buf, cap);
  int in = etk_micro_graph_arg(&g, 0), w = etk_micro_graph_arg(&g, 1);
  int b = etk_micro_graph_arg(&g, 2), out = etk_micro_graph_arg(&g, 3);
  int one = etk_micro_graph_int(&g, 1), zero = etk_micro_graph_int(&g, 0);
  uint16_t ones[2] = {(uint16_t)one, (uint16_t)one};
  uint16_t zeros[2] = {(uint16_t)zero, (uint16_t)zero};
  int stride = etk_micro_graph_int_list(&g, ones, 2);
  int pad = etk_micro_graph_int_list(&g, ones, 2);
  int dil = etk_micro_graph_int_list(&g, ones, 2);
  int opad = etk_micro_graph_int_list(&g, zeros, 2);
  int transposed = etk_micro_graph_bool(&g, false);
  int32_t tsz[4] = {1, 8, 4, 4};
  int tmp = etk_micro_graph_tensor(&g, ETK_FLOAT, 4, tsz);
  uint16_t conv_args[11] = {(uint16_t)in,         (uint16_t)w,    (uint16_t)b,
                            (uint16_t)stride,     (uint16_t)pad,  (uint16_t)dil,
                            (uint16_t)transposed, (uint16_t)opad, (uint16_t)one,
                            (uint16_t)tmp,        (uint16_t)tmp};
  static const char meta[] = "conv2d 3x3 pad 1";
  etk_micro_graph_op(&g, "aten::convolution.out", DELEGATE_ID_CONV, -1, meta,
                     (uint16_t)(sizeof meta - 1), conv_args, 11, 1);
  uint16_t relu_args[3] = {(uint16_t)tmp, (uint16_t)out, (uint16_t)out};
  etk_micro_graph_op(&g, "aten::relu.out", DELEGATE_ID_RELU, -1, NULL, 0,
                     relu_args, 3, 1);
  return etk_micro_graph_finish(&g, len);
}

/* A planned (activation) tensor of `dim` sizes. */
static int planned(etk_program_builder_t *b, int scalar_type, uint32_t dim,
                   const int32_t *sizes) {
  return etk_program_builder_add_tensor(b, scalar_type, dim, sizes, NULL,
                                        ETK_BUILDER_PLANNED, NULL);
}

/* A constant tensor of `dim` sizes holding `data`. */
static int constant(etk_program_builder_t *b, int scalar_type, uint32_t dim,
                    const int32_t *sizes, const float *data) {
  return etk_program_builder_add_tensor(b, scalar_type, dim, sizes, NULL,
                                        ETK_BUILDER_CONSTANT, data);
}

int etk_demo_model_build(uint8_t **pte, size_t *len, etk_error_t *err) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  if (!b)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  uint32_t seed = 12345u;
  float *w1 = weights(&seed, 4 * 1 * 3 * 3, 0.8f);
  float *b1 = weights(&seed, 4, 0.2f);
  float *w2 = weights(&seed, 8 * 4 * 3 * 3, 0.4f);
  float *b2 = weights(&seed, 8, 0.2f);
  float *w3 = weights(&seed, 32 * 10, 0.3f); /* fc, stored [in, out] */
  float *b3 = weights(&seed, 10, 0.1f);
  int rc = ETK_E_NO_MEMORY;
  uint8_t payload[1024];
  size_t payload_len = 0;
  if (!w1 || !b1 || !w2 || !b2 || !w3 || !b3) goto out;
  rc = build_payload(payload, sizeof payload, &payload_len);
  if (rc != ETK_OK) {
    etk_error_set(err, rc, ETK_NO_OFFSET, "cannot build the delegate payload");
    goto out;
  }
  const int32_t s_in[4] = {1, 1, 8, 8}, s_w1[4] = {4, 1, 3, 3}, s_b1[1] = {4};
  const int32_t s_c1[4] = {1, 4, 8, 8}, s_p1[4] = {1, 4, 4, 4};
  const int32_t s_w2[4] = {8, 4, 3, 3}, s_b2[1] = {8}, s_d[4] = {1, 8, 4, 4};
  const int32_t s_p2[4] = {1, 8, 2, 2}, s_t[4] = {1, 2, 2, 8};
  const int32_t s_v[2] = {1, 32}, s_w3[2] = {32, 10}, s_b3[1] = {10};
  const int32_t s_o[2] = {1, 10};
  int x = planned(b, ETK_FLOAT, 4, s_in);
  int cw1 = constant(b, ETK_FLOAT, 4, s_w1, w1);
  int cb1 = constant(b, ETK_FLOAT, 1, s_b1, b1);
  const int64_t one2[2] = {1, 1}, zero2[2] = {0, 0}, two2[2] = {2, 2};
  int stride = etk_program_builder_add_int_list(b, one2, 2);
  int pad = etk_program_builder_add_int_list(b, one2, 2);
  int dil = etk_program_builder_add_int_list(b, one2, 2);
  int opad = etk_program_builder_add_int_list(b, zero2, 2);
  int transposed = etk_program_builder_add_bool(b, false);
  int groups = etk_program_builder_add_int(b, 1);
  int c1 = planned(b, ETK_FLOAT, 4, s_c1);
  int r1 = planned(b, ETK_FLOAT, 4, s_c1);
  int kernel = etk_program_builder_add_int_list(b, two2, 2);
  int pstride = etk_program_builder_add_int_list(b, two2, 2);
  int ppad = etk_program_builder_add_int_list(b, zero2, 2);
  int pdil = etk_program_builder_add_int_list(b, one2, 2);
  int ceil = etk_program_builder_add_bool(b, false);
  int p1 = planned(b, ETK_FLOAT, 4, s_p1);
  int i1 = planned(b, ETK_LONG, 4, s_p1);
  int cw2 = constant(b, ETK_FLOAT, 4, s_w2, w2);
  int cb2 = constant(b, ETK_FLOAT, 1, s_b2, b2);
  int d = planned(b, ETK_FLOAT, 4, s_d);
  int p2 = planned(b, ETK_FLOAT, 4, s_p2);
  int i2 = planned(b, ETK_LONG, 4, s_p2);
  const int64_t perm[4] = {0, 2, 3, 1}, view[2] = {1, 32};
  int dims = etk_program_builder_add_int_list(b, perm, 4);
  int t = planned(b, ETK_FLOAT, 4, s_t);
  int size = etk_program_builder_add_int_list(b, view, 2);
  int v = planned(b, ETK_FLOAT, 2, s_v);
  int cw3 = constant(b, ETK_FLOAT, 2, s_w3, w3);
  int cb3 = constant(b, ETK_FLOAT, 1, s_b3, b3);
  int beta = etk_program_builder_add_int(b, 1), alpha = beta;
  int out = planned(b, ETK_FLOAT, 2, s_o);
  int op_conv = etk_program_builder_add_operator(b, "aten::convolution", "out");
  int op_relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  int op_pool = etk_program_builder_add_operator(
      b, "aten::max_pool2d_with_indices", "out");
  int op_perm =
      etk_program_builder_add_operator(b, "aten::permute_copy", "out");
  int op_view = etk_program_builder_add_operator(b, "aten::view_copy", "out");
  int op_addmm = etk_program_builder_add_operator(b, "aten::addmm", "out");
  const char *spec_keys[1] = {"origin"};
  const uint8_t spec_value[] = "etkit demo";
  const uint8_t *spec_values[1] = {spec_value};
  const uint32_t spec_lens[1] = {sizeof spec_value - 1};
  int del = etk_program_builder_add_delegate(b, ETK_MICRO_BACKEND_ID, payload,
                                             payload_len, spec_keys,
                                             spec_values, spec_lens, 1);
  int32_t a0[] = {x,          cw1,  cb1,    stride, pad, dil,
                  transposed, opad, groups, c1,     c1};
  etk_program_builder_kernel_call(b, op_conv, a0, 11);
  int32_t a1[] = {c1, r1, r1};
  etk_program_builder_kernel_call(b, op_relu, a1, 3);
  int32_t a2[] = {r1, kernel, pstride, ppad, pdil, ceil, p1, i1, p1, i1};
  etk_program_builder_kernel_call(b, op_pool, a2, 10);
  int32_t a3[] = {p1, cw2, cb2, d};
  etk_program_builder_delegate_call(b, del, a3, 4);
  int32_t a4[] = {d, kernel, pstride, ppad, pdil, ceil, p2, i2, p2, i2};
  etk_program_builder_kernel_call(b, op_pool, a4, 10);
  int32_t a5[] = {p2, dims, t, t};
  etk_program_builder_kernel_call(b, op_perm, a5, 4);
  int32_t a6[] = {t, size, v, v};
  etk_program_builder_kernel_call(b, op_view, a6, 4);
  int32_t a7[] = {cb3, v, cw3, beta, alpha, out, out};
  etk_program_builder_kernel_call(b, op_addmm, a7, 7);
  int32_t inputs[] = {x}, outputs[] = {out};
  etk_program_builder_set_inputs(b, inputs, 1);
  etk_program_builder_set_outputs(b, outputs, 1);
  rc = etk_program_builder_finish(b, pte, len, err);
out:
  if (rc == ETK_E_NO_MEMORY && !*pte)
    etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  free(w1);
  free(b1);
  free(w2);
  free(b2);
  free(w3);
  free(b3);
  etk_program_builder_free(b);
  return rc;
}

/* The demo's weights in build order (the same sequence as
 * etk_demo_model_build draws): conv1, conv2 and fc weights and biases. */
typedef struct demo_weights {
  float *w[6];
} demo_weights_t;

static const size_t kWeightCounts[6] = {4 * 1 * 3 * 3, 4, 8 * 4 * 3 * 3, 8,
                                        32 * 10,       10};
static const float kWeightScales[6] = {0.8f, 0.2f, 0.4f, 0.2f, 0.3f, 0.1f};

static bool demo_weights_make(demo_weights_t *dw) {
  uint32_t seed = 12345u;
  bool ok = true;
  for (int k = 0; k < 6; k++) {
    dw->w[k] = weights(&seed, kWeightCounts[k], kWeightScales[k]);
    ok = ok && dw->w[k];
  }
  return ok;
}

static void demo_weights_free(demo_weights_t *dw) {
  for (int k = 0; k < 6; k++) free(dw->w[k]);
}

/* One node argument of the demo graph. */
static etk_etrecord_arg_desc_t arg_tensor(const char *name, const char *t) {
  etk_etrecord_arg_desc_t a;
  memset(&a, 0, sizeof a);
  a.arg = name;
  a.tensor = t;
  return a;
}

static etk_etrecord_arg_desc_t arg_ints(const char *name, const int64_t *v,
                                        size_t n) {
  etk_etrecord_arg_desc_t a;
  memset(&a, 0, sizeof a);
  a.arg = name;
  a.kind = ETK_ETRECORD_IN_INTS;
  a.ints = v;
  a.count = n;
  return a;
}

static etk_etrecord_arg_desc_t arg_scalar(const char *name,
                                          etk_etrecord_input_kind_t kind,
                                          int64_t i) {
  etk_etrecord_arg_desc_t a;
  memset(&a, 0, sizeof a);
  a.arg = name;
  a.kind = kind;
  a.i = i;
  return a;
}

enum { DEMO_NODES = 9, DEMO_MAX_ARGS = 9 };

/* The graph's node arguments, in schema order (defaults written out, as
 * export does for the arguments a module passes). */
static void demo_node_args(etk_etrecord_arg_desc_t (*a)[DEMO_MAX_ARGS],
                           size_t *count, const char *const *names) {
  static const int64_t one2[2] = {1, 1}, zero2[2] = {0, 0}, two2[2] = {2, 2};
  static const int64_t perm[4] = {0, 2, 3, 1}, view[2] = {1, 32};
  static const char *const conv_w[2] = {"p_conv1_weight", "p_conv2_weight"};
  static const char *const conv_b[2] = {"p_conv1_bias", "p_conv2_bias"};
  for (int c = 0; c < 2; c++) {
    int k = 3 * c; /* conv nodes 0 and 3, relu 1 and 4, pool 2 and 5 */
    a[k][0] = arg_tensor("input", k == 0 ? "x" : names[k - 1]);
    a[k][1] = arg_tensor("weight", conv_w[c]);
    a[k][2] = arg_tensor("bias", conv_b[c]);
    a[k][3] = arg_ints("stride", one2, 2);
    a[k][4] = arg_ints("padding", one2, 2);
    a[k][5] = arg_ints("dilation", one2, 2);
    a[k][6] = arg_scalar("transposed", ETK_ETRECORD_IN_BOOL, 0);
    a[k][7] = arg_ints("output_padding", zero2, 2);
    a[k][8] = arg_scalar("groups", ETK_ETRECORD_IN_INT, 1);
    count[k] = 9;
    a[k + 1][0] = arg_tensor("self", names[k]);
    count[k + 1] = 1;
    a[k + 2][0] = arg_tensor("self", names[k + 1]);
    a[k + 2][1] = arg_ints("kernel_size", two2, 2);
    a[k + 2][2] = arg_ints("stride", two2, 2);
    a[k + 2][3] = arg_ints("padding", zero2, 2);
    a[k + 2][4] = arg_ints("dilation", one2, 2);
    a[k + 2][5] = arg_scalar("ceil_mode", ETK_ETRECORD_IN_BOOL, 0);
    count[k + 2] = 6;
  }
  a[6][0] = arg_tensor("self", names[5]);
  a[6][1] = arg_ints("dims", perm, 4);
  count[6] = 2;
  a[7][0] = arg_tensor("self", names[6]);
  a[7][1] = arg_ints("size", view, 2);
  count[7] = 2;
  a[8][0] = arg_tensor("self", "p_fc_bias");
  a[8][1] = arg_tensor("mat1", names[7]);
  a[8][2] = arg_tensor("mat2", "p_fc_weight");
  count[8] = 3;
}

/* Fills the method: nodes, TensorMeta of every value, weights. */
typedef struct demo_graph {
  char targets[DEMO_NODES][128];
  etk_etrecord_node_desc_t nodes[DEMO_NODES];
  etk_etrecord_arg_desc_t args[DEMO_NODES][DEMO_MAX_ARGS];
  size_t arg_count[DEMO_NODES];
  etk_etrecord_module_desc_t stacks[DEMO_NODES][2];
  const char *outs[DEMO_NODES][1];
  etk_etrecord_tensor_desc_t metas[DEMO_NODES + 7];
  etk_torch_tensor_desc_t wt[6];
  int64_t wdims[6][4];
  etk_etrecord_weight_desc_t weights[6];
} demo_graph_t;

static const char *const kNames[DEMO_NODES] = {
    "aten_convolution_default",  "aten_relu_default",
    "aten_max_pool2d_default",   "aten_convolution_default_1",
    "aten_relu_default_1",       "aten_max_pool2d_default_1",
    "aten_permute_copy_default", "aten_view_copy_default",
    "aten_addmm_default"};

static void demo_graph_nodes(demo_graph_t *g) {
  static const char *const ops[DEMO_NODES] = {
      "aten::convolution",  "aten::relu",      "aten::max_pool2d",
      "aten::convolution",  "aten::relu",      "aten::max_pool2d",
      "aten::permute_copy", "aten::view_copy", "aten::addmm"};
  static const char *const modules[][3] = {
      {"L__self___conv1", "conv1", "torch.nn.modules.conv.Conv2d"},
      {"L__self___relu1", "relu1", "torch.nn.modules.activation.ReLU"},
      {"L__self___pool1", "pool1", "torch.nn.modules.pooling.MaxPool2d"},
      {"L__self___conv2", "conv2", "torch.nn.modules.conv.Conv2d"},
      {"L__self___relu2", "relu2", "torch.nn.modules.activation.ReLU"},
      {"L__self___pool2", "pool2", "torch.nn.modules.pooling.MaxPool2d"},
      {"", "", ""},
      {"", "", ""},
      {"L__self___fc", "fc", "torch.nn.modules.linear.Linear"}};
  /* the source line of each node, naming the module that runs it */
  static const char *const traces[DEMO_NODES] = {
      "  File \"demo_model.py\", line 20, in forward\n    x = self.conv1(x)\n",
      "  File \"demo_model.py\", line 21, in forward\n    x = self.relu1(x)\n",
      "  File \"demo_model.py\", line 22, in forward\n    x = self.pool1(x)\n",
      "  File \"demo_model.py\", line 23, in forward\n    x = self.conv2(x)\n",
      "  File \"demo_model.py\", line 24, in forward\n    x = self.relu2(x)\n",
      "  File \"demo_model.py\", line 25, in forward\n    x = self.pool2(x)\n",
      "  File \"demo_model.py\", line 26, in forward\n"
      "    x = x.permute(0, 2, 3, 1)\n",
      "  File \"demo_model.py\", line 27, in forward\n"
      "    x = x.reshape(1, 32)\n",
      "  File \"demo_model.py\", line 28, in forward\n"
      "    return self.fc(x)\n"};
  demo_node_args(g->args, g->arg_count, kNames);
  for (int k = 0; k < DEMO_NODES; k++) {
    char op[96];
    snprintf(op, sizeof op, "%s.default", ops[k]);
    etk_etrecord_edge_target(op, g->targets[k], sizeof g->targets[k]);
    g->stacks[k][0] =
        (etk_etrecord_module_desc_t){"L__self__", "", "demo.Model"};
    g->stacks[k][1] = (etk_etrecord_module_desc_t){modules[k][0], modules[k][1],
                                                   modules[k][2]};
    g->outs[k][0] = kNames[k];
    g->nodes[k].name = kNames[k];
    g->nodes[k].target = g->targets[k];
    g->nodes[k].debug_handle = k + 1;
    g->nodes[k].stack_trace = traces[k];
    g->nodes[k].module_stack = g->stacks[k];
    g->nodes[k].module_stack_count = modules[k][0][0] ? 2 : 1;
    g->nodes[k].args = g->args[k];
    g->nodes[k].arg_count = g->arg_count[k];
    g->nodes[k].outputs = g->outs[k];
    g->nodes[k].output_count = 1;
  }
}

/* TensorMeta of every value and the weights (state-dict tensors). */
static void demo_graph_values(demo_graph_t *g, const demo_weights_t *dw) {
  static const int64_t sizes[DEMO_NODES][4] = {
      {1, 4, 8, 8}, {1, 4, 8, 8}, {1, 4, 4, 4}, {1, 8, 4, 4}, {1, 8, 4, 4},
      {1, 8, 2, 2}, {1, 2, 2, 8}, {1, 32},      {1, 10}};
  static const size_t dims[DEMO_NODES] = {4, 4, 4, 4, 4, 4, 4, 2, 2};
  static const int64_t wsizes[6][4] = {{4, 1, 3, 3}, {4},      {8, 4, 3, 3},
                                       {8},          {32, 10}, {10}};
  static const uint32_t wdim[6] = {4, 1, 4, 1, 2, 1};
  static const char *const keys[6] = {"conv1.weight", "conv1.bias",
                                      "conv2.weight", "conv2.bias",
                                      "fc.weight",    "fc.bias"};
  static const char *const params[6] = {"p_conv1_weight", "p_conv1_bias",
                                        "p_conv2_weight", "p_conv2_bias",
                                        "p_fc_weight",    "p_fc_bias"};
  static const int64_t in_sizes[4] = {1, 1, 8, 8};
  const int serde_float = 7;
  for (int k = 0; k < DEMO_NODES; k++)
    g->metas[k] =
        (etk_etrecord_tensor_desc_t){kNames[k], serde_float, sizes[k], dims[k]};
  for (int k = 0; k < 6; k++) {
    memcpy(g->wdims[k], wsizes[k], sizeof g->wdims[k]);
    g->wt[k] =
        (etk_torch_tensor_desc_t){ETK_SCALAR_TYPE_FLOAT, wdim[k], g->wdims[k],
                                  dw->w[k], kWeightCounts[k] * sizeof(float)};
    g->weights[k] =
        (etk_etrecord_weight_desc_t){params[k], keys[k], false, &g->wt[k]};
    g->metas[DEMO_NODES + k] = (etk_etrecord_tensor_desc_t){
        params[k], serde_float, g->wdims[k], wdim[k]};
  }
  g->metas[DEMO_NODES + 6] =
      (etk_etrecord_tensor_desc_t){"x", serde_float, in_sizes, 4};
}

/* Describes a bundled tensor for the ETRecord writer (sizes into `dims`). */
static etk_torch_tensor_desc_t torch_desc(const etk_tensor_data_t *t,
                                          int64_t *dims) {
  for (uint32_t k = 0; k < t->dim; k++) dims[k] = t->sizes[k];
  etk_torch_tensor_desc_t d = {t->scalar_type, t->dim, dims, t->data,
                               t->nbytes};
  return d;
}

/* The ETRecord: the whole graph as export serialises it (each node with
 * its arguments, debug handle, module stack and stack trace; TensorMeta of
 * every value; the weights as parameters in the state dict), the
 * instruction -> handle map and the delegate map of instruction 3, and the
 * bundled test case's input and expected output as representative_inputs
 * and reference_outputs, so `etkit numerics --gap` and Python's
 * calculate_numeric_gap run the graph on the very input the demo runs. */
int etk_demo_model_write_etrecord(const char *path,
                                  const etk_tensor_data_t *input,
                                  const etk_tensor_data_t *expected,
                                  etk_error_t *err) {
  demo_weights_t dw;
  demo_graph_t *g = calloc(1, sizeof *g);
  int rc;
  memset(&dw, 0, sizeof dw);
  if (!g || !demo_weights_make(&dw)) {
    free(g);
    demo_weights_free(&dw);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  demo_graph_nodes(g);
  demo_graph_values(g, &dw);
  /* instruction -> handles (instruction 3 is the delegate call) */
  static const int64_t h[DEMO_NODES] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  etk_etrecord_handle_desc_t handles[] = {
      {0, &h[0], 1, false}, {1, &h[1], 1, false}, {2, &h[2], 1, false},
      {3, &h[3], 2, true},  {4, &h[5], 1, false}, {5, &h[6], 1, false},
      {6, &h[7], 1, false}, {7, &h[8], 1, false}};
  etk_etrecord_delegate_id_desc_t ids[] = {{DELEGATE_ID_CONV, &h[3], 1},
                                           {DELEGATE_ID_RELU, &h[4], 1}};
  etk_etrecord_delegate_desc_t delegates[] = {
      {3, ETK_MICRO_BACKEND_ID, ids, 2, 1}};
  const char *graph_in[] = {"x"};
  const char *graph_out[] = {kNames[DEMO_NODES - 1]};
  etk_etrecord_method_desc_t m;
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.nodes = g->nodes;
  m.node_count = DEMO_NODES;
  m.graph_inputs = graph_in;
  m.graph_input_count = 1;
  m.graph_outputs = graph_out;
  m.graph_output_count = 1;
  m.tensors = g->metas;
  m.tensor_count = DEMO_NODES + 7;
  m.weights = g->weights;
  m.weight_count = 6;
  m.handles = handles;
  m.handle_count = sizeof handles / sizeof handles[0];
  m.delegates = delegates;
  m.delegate_count = 1;
  int64_t in_dims[ETK_MAX_DIMS], out_dims[ETK_MAX_DIMS];
  etk_torch_tensor_desc_t in_desc = torch_desc(input, in_dims);
  etk_torch_tensor_desc_t out_desc = torch_desc(expected, out_dims);
  etk_etrecord_case_desc_t case0 = {&out_desc, 1};
  etk_etrecord_reference_desc_t ref = {"forward", &case0, 1};
  etk_etrecord_references_desc_t refs = {&ref, 1, &in_desc, 1};
  etk_etrecord_desc_t desc;
  memset(&desc, 0, sizeof desc);
  desc.methods = &m;
  desc.method_count = 1;
  desc.references = &refs;
  rc = etk_etrecord_write_file(&desc, path, err);
  demo_weights_free(&dw);
  free(g);
  return rc;
}

void etk_demo_model_fill_input(float *x, size_t n) {
  for (size_t k = 0; k < n; k++) x[k] = (float)((int)((k * 7) % 17) - 8) / 8.0f;
}
