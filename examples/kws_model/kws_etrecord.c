/*
 * kws_etrecord.c - the ETRecord of the KWS-shaped program (kws_model.c): its
 * graph as an edge program of cortex_m:: nodes, so `etkit numerics --gap`
 * can run the graph in the interpreter and compare every node with a traced
 * run of the program.
 *
 * Seventeen nodes, debug handles 1..17: the sixteen instructions in order,
 * plus the view that turns the pooled [1, 64, 1, 1] into the linear layer's
 * [1, 64] (handle 15), which the program does through its memory plan and
 * so has no instruction.  The weights are the program's constants
 * (etk_kws_model_layers), in the state dict as parameters; the
 * representative input is the program's reference input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/etrecord_writer.h"
#include "etkit/scalar_type.h"
#include "kws_model.h"

#define NODES 17
#define MAX_ARGS 14
#define WEIGHTS (ETK_KWS_MODEL_LAYERS * 4)
#define SERDE_CHAR 2
#define SERDE_INT 4
#define SERDE_FLOAT 7

typedef struct kws_graph {
  etk_kws_layer_t layers[ETK_KWS_MODEL_LAYERS];
  char names[NODES][64], targets[NODES][128];
  char wnames[WEIGHTS][32], wkeys[WEIGHTS][32];
  const char *outs[NODES][1];
  etk_etrecord_node_desc_t nodes[NODES];
  etk_etrecord_arg_desc_t args[NODES][MAX_ARGS];
  size_t nargs[NODES];
  etk_etrecord_tensor_desc_t metas[NODES + WEIGHTS + 1];
  int64_t wdims[WEIGHTS][4], one[WEIGHTS][1];
  etk_torch_tensor_desc_t wt[WEIGHTS];
  etk_etrecord_weight_desc_t weights[WEIGHTS];
  int64_t mult;
  int node, layer;
} kws_graph_t;

static const int64_t kOnes[2] = {1, 1}, kTwos[2] = {2, 2}, kPad1[2] = {5, 1};
static const int64_t kZeros[4] = {0, 0, 0, 0}, kOrder[4] = {0, 2, 3, 1};
static const int64_t kWin[2] = {24, 5}, kFlat[2] = {1, 64}, kShift[1] = {-10};
static const int64_t kAct[4] = {1, 64, 25, 5}, kIn[4] = {1, 1, 49, 10};
static const int64_t kPooled[4] = {1, 64, 1, 1}, kLogits[2] = {1, 12};

static etk_etrecord_arg_desc_t *arg(kws_graph_t *g, const char *name) {
  etk_etrecord_arg_desc_t *a = &g->args[g->node][g->nargs[g->node]++];
  memset(a, 0, sizeof *a);
  a->arg = name;
  return a;
}
static void a_tensor(kws_graph_t *g, const char *name, const char *t) {
  arg(g, name)->tensor = t;
}
static void a_int(kws_graph_t *g, const char *name, int64_t v,
                  etk_etrecord_input_kind_t kind) {
  etk_etrecord_arg_desc_t *a = arg(g, name);
  a->kind = kind;
  a->i = v;
}
static void a_float(kws_graph_t *g, const char *name, double v) {
  etk_etrecord_arg_desc_t *a = arg(g, name);
  a->kind = ETK_ETRECORD_IN_FLOAT;
  a->f = v;
}
static void a_ints(kws_graph_t *g, const char *name, const int64_t *v,
                   size_t n) {
  etk_etrecord_arg_desc_t *a = arg(g, name);
  a->kind = ETK_ETRECORD_IN_INTS;
  a->ints = v;
  a->count = n;
}
#define I(g, n, v) a_int(g, n, v, ETK_ETRECORD_IN_INT)

/* Starts node `op` ("cortex_m.pad.default") whose output has `sizes`;
 * returns the previous node's output name (the graph is a chain). */
static const char *node(kws_graph_t *g, const char *op, int dtype,
                        const int64_t *sizes, size_t dim) {
  int k = g->node;
  const char *prev = k ? g->names[k - 1] : "x";
  snprintf(g->names[k], sizeof g->names[k], "node_%d", k + 1);
  etk_etrecord_edge_target(op, g->targets[k], sizeof g->targets[k]);
  g->outs[k][0] = g->names[k];
  g->nodes[k].name = g->names[k];
  g->nodes[k].target = g->targets[k];
  g->nodes[k].debug_handle = k + 1;
  g->nodes[k].args = g->args[k];
  g->nodes[k].outputs = g->outs[k];
  g->nodes[k].output_count = 1;
  g->metas[k] = (etk_etrecord_tensor_desc_t){g->names[k], dtype, sizes, dim};
  return prev;
}

static void end_node(kws_graph_t *g) {
  g->nodes[g->node].arg_count = g->nargs[g->node];
  g->node++;
}

/* The four parameters of the next layer: weight, bias, mult, shift. */
static void layer_params(kws_graph_t *g, const char **p) {
  static const char *const what[4] = {"weight", "bias", "mult", "shift"};
  etk_kws_layer_t *l = &g->layers[g->layer];
  for (int j = 0; j < 4; j++) {
    int w = g->layer * 4 + j;
    const void *data = j == 0   ? (const void *)l->w
                       : j == 1 ? (const void *)l->bias
                       : j == 2 ? (const void *)l->mult
                                : (const void *)l->shift;
    uint32_t dim = j == 0 ? l->wdim : 1;
    snprintf(g->wnames[w], sizeof g->wnames[w], "p_l%d_%s", g->layer, what[j]);
    snprintf(g->wkeys[w], sizeof g->wkeys[w], "l%d.%s", g->layer, what[j]);
    for (uint32_t d = 0; d < 4; d++) g->wdims[w][d] = l->wsizes[d];
    g->one[w][0] = (int64_t)l->nout;
    g->wt[w] = (etk_torch_tensor_desc_t){
        j == 0 ? ETK_SCALAR_TYPE_CHAR : ETK_SCALAR_TYPE_INT, dim,
        j == 0 ? g->wdims[w] : g->one[w], data,
        j == 0 ? l->n : l->nout * sizeof(int32_t)};
    g->weights[w] = (etk_etrecord_weight_desc_t){g->wnames[w], g->wkeys[w],
                                                 false, &g->wt[w]};
    g->metas[NODES + w] = (etk_etrecord_tensor_desc_t){
        g->wnames[w], j == 0 ? SERDE_CHAR : SERDE_INT, g->wt[w].sizes, dim};
    p[j] = g->wnames[w];
  }
  g->layer++;
}

static void conv_node(kws_graph_t *g, bool depthwise, bool first) {
  const char *p[4];
  const char *prev =
      node(g,
           depthwise ? "cortex_m.quantized_depthwise_conv2d.default"
                     : "cortex_m.quantized_conv2d.default",
           SERDE_CHAR, kAct, 4);
  layer_params(g, p);
  a_tensor(g, "input", prev);
  a_tensor(g, "weight", p[0]);
  a_tensor(g, "bias", p[1]);
  a_ints(g, "stride", first ? kTwos : kOnes, 2);
  a_ints(g, "padding", first ? kPad1 : depthwise ? kOnes : kZeros, 2);
  a_ints(g, "dilation", kOnes, 2);
  if (depthwise) I(g, "depth_multiplier", first ? 64 : 1);
  I(g, "input_offset", first ? -68 : 128);
  I(g, "output_offset", -128);
  a_tensor(g, "requantize_multipliers", p[2]);
  a_tensor(g, "requantize_shifts", p[3]);
  I(g, "activation_min", -128);
  I(g, "activation_max", 127);
  end_node(g);
}

static void quant_node(kws_graph_t *g, bool quantize) {
  const char *prev = node(g,
                          quantize ? "cortex_m.quantize_per_tensor.default"
                                   : "cortex_m.dequantize_per_tensor.default",
                          quantize ? SERDE_CHAR : SERDE_FLOAT,
                          quantize ? kIn : kLogits, quantize ? 4 : 2);
  a_tensor(g, "input", prev);
  a_float(g, "scale", quantize ? 2.822781801224 : 0.154293164611);
  I(g, "zero_point", quantize ? 68 : 23);
  I(g, "quant_min", -128);
  I(g, "quant_max", 127);
  a_int(g, "dtype", SERDE_CHAR, ETK_ETRECORD_IN_SCALAR_TYPE);
  end_node(g);
}

static void clone_node(kws_graph_t *g) {
  const char *prev =
      node(g, "dim_order_ops._clone_dim_order.default", SERDE_CHAR, kAct, 4);
  a_tensor(g, "self", prev);
  a_int(g, "non_blocking", 0, ETK_ETRECORD_IN_BOOL);
  a_ints(g, "dim_order", kOrder, 4);
  end_node(g);
}

/* pad, pooling, view, linear */
static void head_nodes(kws_graph_t *g) {
  const char *p[4],
      *prev = node(g, "cortex_m.pad.default", SERDE_CHAR, kAct, 4);
  a_tensor(g, "input", prev);
  a_ints(g, "pre_pad", kZeros, 4);
  a_ints(g, "post_pad", kZeros, 4);
  I(g, "pad_value", -128);
  end_node(g);
  prev =
      node(g, "cortex_m.quantized_avg_pool2d.default", SERDE_CHAR, kPooled, 4);
  a_tensor(g, "input", prev);
  a_ints(g, "kernel_size", kWin, 2);
  a_ints(g, "stride", kWin, 2);
  a_ints(g, "padding", kZeros, 2);
  a_int(g, "ceil_mode", 0, ETK_ETRECORD_IN_BOOL);
  I(g, "zero_point", -128);
  I(g, "multiplier", 2077939072);
  I(g, "shift", -4);
  end_node(g);
  prev = node(g, "aten.view_copy.default", SERDE_CHAR, kFlat, 2);
  a_tensor(g, "self", prev);
  a_ints(g, "size", kFlat, 2);
  end_node(g);
  prev = node(g, "cortex_m.quantized_linear.default", SERDE_CHAR, kLogits, 2);
  layer_params(g, p);
  g->mult = g->layers[ETK_KWS_MODEL_LAYERS - 1].mult[0];
  a_tensor(g, "input", prev);
  a_tensor(g, "weights", p[0]);
  a_tensor(g, "bias", p[1]);
  arg(g, "kernel_sum")->kind = ETK_ETRECORD_IN_NONE;
  I(g, "input_offset", 128);
  I(g, "filter_offset", 0);
  I(g, "output_offset", 23);
  a_ints(g, "requantize_multipliers", &g->mult, 1);
  a_ints(g, "requantize_shifts", kShift, 1);
  I(g, "activation_max", 127);
  I(g, "activation_min", -128);
  end_node(g);
}

int etk_kws_model_write_etrecord(const char *path, etk_error_t *err) {
  /* instruction -> debug handle; the view (handle 15) has no instruction */
  static const int64_t h[NODES] = {1,  2,  3,  4,  5,  6,  7,  8, 9,
                                   10, 11, 12, 13, 14, 15, 16, 17};
  etk_etrecord_handle_desc_t handles[16];
  kws_graph_t *g = calloc(1, sizeof *g);
  float x[ETK_KWS_MODEL_INPUT_ELEMENTS];
  etk_etrecord_method_desc_t m;
  etk_etrecord_desc_t desc;
  etk_torch_tensor_desc_t in_desc = {ETK_SCALAR_TYPE_FLOAT, 4, kIn, x,
                                     sizeof x};
  etk_etrecord_references_desc_t refs = {NULL, 0, &in_desc, 1};
  const char *graph_in[1] = {"x"};
  const char *graph_out[1];
  int rc;
  if (!g)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_kws_model_layers(g->layers);
  etk_kws_model_fill_input(x, ETK_KWS_MODEL_INPUT_ELEMENTS);
  quant_node(g, true);
  conv_node(g, true, true);
  clone_node(g);
  for (int b = 0; b < 4; b++) {
    conv_node(g, true, false);
    conv_node(g, false, false);
  }
  clone_node(g);
  head_nodes(g);
  quant_node(g, false);
  for (int i = 0; i < 16; i++)
    handles[i] =
        (etk_etrecord_handle_desc_t){i, &h[i < 14 ? i : i + 1], 1, false};
  g->metas[NODES + WEIGHTS] =
      (etk_etrecord_tensor_desc_t){"x", SERDE_FLOAT, kIn, 4};
  graph_out[0] = g->names[NODES - 1];
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.nodes = g->nodes;
  m.node_count = NODES;
  m.graph_inputs = graph_in;
  m.graph_input_count = 1;
  m.graph_outputs = graph_out;
  m.graph_output_count = 1;
  m.tensors = g->metas;
  m.tensor_count = NODES + WEIGHTS + 1;
  m.weights = g->weights;
  m.weight_count = WEIGHTS;
  m.handles = handles;
  m.handle_count = 16;
  memset(&desc, 0, sizeof desc);
  desc.methods = &m;
  desc.method_count = 1;
  desc.references = &refs;
  rc = etk_etrecord_write_file(&desc, path, err);
  free(g);
  return rc;
}
