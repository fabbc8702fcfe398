/*
 * kws_model.c - a program shaped like upstream's Arduino KeywordSpotting
 * example (examples/arduino/examples/KeywordSpotting/model.pte), built with
 * the program builder so CI and the firmware tests have one without
 * upstream's file.
 *
 * The sixteen instructions, on int8 activations in channels-last memory:
 *
 *   cortex_m::quantize_per_tensor        float [1,1,49,10] -> int8
 *   cortex_m::quantized_depthwise_conv2d 10x4, stride 2, padding (5, 1),
 *                                        depth multiplier 64 -> [1,64,25,5]
 *   dim_order_ops::_clone_dim_order      (channels-last -> channels-last)
 *   4 x (quantized_depthwise_conv2d 3x3 + quantized_conv2d 1x1, 64 ch)
 *   dim_order_ops::_clone_dim_order
 *   cortex_m::pad                        (all zero, as the exporter leaves it)
 *   cortex_m::quantized_avg_pool2d       24x5 -> [1,64,1,1]
 *   cortex_m::quantized_linear           [1,64] -> [1,12], bias form
 *   cortex_m::dequantize_per_tensor      -> float [1,12]
 *
 * The memory plan copies upstream's: one planned buffer of 16,000 bytes at
 * full use, activations ping-ponging between offsets 0 and 8,000, CMSIS-NN
 * scratch tensors (empty, or 256 bytes for the pooling) planned in it, and
 * the pooled [1, 64, 1, 1] value read by the linear layer as a [1, 64]
 * tensor at the same offset, with no instruction in between.  Quantization
 * parameters are upstream's (input scale 2.8228, zero point 68; output
 * 0.1543, 23); weights, biases and multipliers come from a fixed linear
 * congruential sequence, so every build gives the same bytes.
 *
 * examples/kws_model/make_expected.py draws the same sequences and runs
 * the same instructions in numpy with CMSIS-NN's integer formulas; its
 * input.npy / expected_*.npy are what the host and the device must give.
 */
#include "kws_model.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/program.h"

#define CH 64
#define BLOCKS 4
#define T_BYTE 0
#define T_CHAR 1

/* The fixed sequence (as make_expected.py's Lcg). */
static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s;
}

void etk_kws_model_fill_input(float *x, size_t n) {
  uint32_t s = 2024u;
  for (size_t k = 0; k < n; k++)
    x[k] = ((float)(lcg(&s) >> 8) / 16777216.0f - 0.5f) * 200.0f;
}

/* The builder and the values every instruction shares. */
typedef struct kws {
  etk_program_builder_t *b;
  uint32_t seed;
  int op_dw, op_conv, op_clone;
  int one2, zero2, off128, off_m128, amin, amax, dw_cm1;
  int next_layer;
  etk_kws_layer_t layer; /* the one being added */
} kws_t;

static const uint8_t CHANNELS_LAST[4] = {0, 2, 3, 1};

/* A planned tensor at `offset` of buffer 1. */
static int planned(kws_t *k, int type, uint32_t dim, const int32_t *sizes,
                   const uint8_t *order, uint64_t offset) {
  int v = etk_program_builder_add_tensor(k->b, type, dim, sizes, order,
                                         ETK_BUILDER_PLANNED, NULL);
  if (v >= 0) etk_program_builder_place_tensor(k->b, v, 1, offset);
  return v;
}

static int activation(kws_t *k, uint64_t offset) {
  static const int32_t sizes[4] = {1, CH, 25, 5};
  return planned(k, T_CHAR, 4, sizes, CHANNELS_LAST, offset);
}

static int constant(kws_t *k, int type, uint32_t dim, const int32_t *sizes,
                    const void *data) {
  return etk_program_builder_add_tensor(k->b, type, dim, sizes, NULL,
                                        ETK_BUILDER_CONSTANT, data);
}

/* The ten layers in program order: weight sizes (and rank), bias span,
 * shift.  Layer 0 is the 10x4 depthwise convolution, 1..8 alternate 3x3
 * depthwise and 1x1 pointwise, 9 is the linear layer. */
typedef struct layer_spec {
  int32_t wsizes[4];
  uint32_t wdim;
  size_t nout;
  int32_t span, shift;
} layer_spec_t;
#define DW3 \
  { {1, 3, 3, CH}, 4, CH, 200, -6 }
#define PW1 \
  { {CH, 1, 1, CH}, 4, CH, 200, -8 }
static const layer_spec_t kLayers[ETK_KWS_MODEL_LAYERS] = {
    {{1, 10, 4, CH}, 4, CH, 200, -6},  DW3, PW1, DW3, PW1, DW3, PW1, DW3, PW1,
    {{12, CH, 1, 1}, 2, 12, 5000, -10}};

/* Draws layer `idx`: its weights, then nout biases in [-span, span] and
 * nout multipliers (shifts all the spec's). */
static void draw(uint32_t *seed, int idx, etk_kws_layer_t *l) {
  const layer_spec_t *sp = &kLayers[idx];
  memcpy(l->wsizes, sp->wsizes, sizeof l->wsizes);
  l->wdim = sp->wdim;
  l->nout = sp->nout;
  l->n = (size_t)sp->wsizes[0] * (size_t)sp->wsizes[1] * (size_t)sp->wsizes[2] *
         (size_t)sp->wsizes[3];
  for (size_t i = 0; i < l->n; i++)
    l->w[i] = (int8_t)((int32_t)(lcg(seed) >> 24) - 128);
  for (size_t i = 0; i < l->nout; i++)
    l->bias[i] =
        (int32_t)((lcg(seed) >> 16) % (uint32_t)(2 * sp->span + 1)) - sp->span;
  for (size_t i = 0; i < l->nout; i++) {
    l->mult[i] = (int32_t)((1u << 30) + (lcg(seed) >> 2));
    l->shift[i] = sp->shift;
  }
}

void etk_kws_model_layers(etk_kws_layer_t *layers) {
  uint32_t seed = 29u;
  for (int k = 0; k < ETK_KWS_MODEL_LAYERS; k++) draw(&seed, k, &layers[k]);
}

/* Draws the next layer and adds its four constant tensors (weights,
 * biases, multipliers, shifts) into vals. */
static void draw_layer(kws_t *k, int *vals) {
  etk_kws_layer_t *l = &k->layer;
  int32_t one[1];
  draw(&k->seed, k->next_layer++, l);
  one[0] = (int32_t)l->nout;
  vals[0] = constant(k, T_CHAR, l->wdim, l->wsizes, l->w);
  vals[1] = constant(k, ETK_BUILDER_INT, 1, one, l->bias);
  vals[2] = constant(k, ETK_BUILDER_INT, 1, one, l->mult);
  vals[3] = constant(k, ETK_BUILDER_INT, 1, one, l->shift);
}

/* depthwise (cm = channel multiplier value) or pointwise convolution from
 * `in` to a new activation at `out_off`; returns the output value. */
static int conv_layer(kws_t *k, int in, bool depthwise, int stride, int pad,
                      int cm, int in_off, uint64_t scratch_off,
                      uint64_t out_off) {
  static const int32_t empty[1] = {0};
  int c[4], out, scratch;
  draw_layer(k, c);
  scratch = planned(k, T_BYTE, 1, empty, NULL, scratch_off);
  out = activation(k, out_off);
  if (depthwise) {
    int32_t args[16] = {in,      c[0],    c[1],        stride, pad,  k->one2,
                        cm,      in_off,  k->off_m128, c[2],   c[3], k->amin,
                        k->amax, scratch, out,         out};
    etk_program_builder_kernel_call(k->b, k->op_dw, args, 16);
  } else {
    int32_t args[15] = {in,      c[0],    c[1],        stride, pad,
                        k->one2, in_off,  k->off_m128, c[2],   c[3],
                        k->amin, k->amax, scratch,     out,    out};
    etk_program_builder_kernel_call(k->b, k->op_conv, args, 15);
  }
  return out;
}

static int clone_to(kws_t *k, int in, uint64_t out_off) {
  static const int64_t order[4] = {0, 2, 3, 1};
  int out = activation(k, out_off);
  int32_t args[5] = {in, etk_program_builder_add_bool(k->b, false),
                     etk_program_builder_add_int_list(k->b, order, 4), out,
                     out};
  etk_program_builder_kernel_call(k->b, k->op_clone, args, 5);
  return out;
}

/* quantize, the first depthwise convolution and the four blocks; returns
 * the last block's output (at offset 0). */
static int build_features(kws_t *k, int32_t *input) {
  static const int32_t in_sizes[4] = {1, 1, 49, 10};
  static const uint8_t in_order[4] = {0, 2, 1, 3}; /* as upstream's */
  static const int64_t two2[2] = {2, 2}, pad1[2] = {5, 1}, ones[2] = {1, 1};
  etk_program_builder_t *b = k->b;
  int x = planned(k, ETK_BUILDER_FLOAT, 4, in_sizes, in_order, 0);
  int q = planned(k, T_CHAR, 4, in_sizes, in_order, 1968);
  int op_q = etk_program_builder_add_operator(
      b, "cortex_m::quantize_per_tensor", "out");
  int32_t qargs[8] = {x,
                      etk_program_builder_add_double(b, 2.822781801224),
                      etk_program_builder_add_int(b, 68),
                      k->amin,
                      k->amax,
                      etk_program_builder_add_int(b, T_CHAR),
                      q,
                      q};
  int h, stride1 = etk_program_builder_add_int_list(b, ones, 2);
  etk_program_builder_kernel_call(b, op_q, qargs, 8);
  h = conv_layer(k, q, true, etk_program_builder_add_int_list(b, two2, 2),
                 etk_program_builder_add_int_list(b, pad1, 2),
                 etk_program_builder_add_int(b, CH),
                 etk_program_builder_add_int(b, -68), 2464, 8000);
  h = clone_to(k, h, 0);
  for (int blk = 0; blk < BLOCKS; blk++) {
    h = conv_layer(k, h, true, stride1, stride1, k->dw_cm1, k->off128, 8000,
                   8000);
    h = conv_layer(k, h, false, stride1, k->zero2, k->dw_cm1, k->off128, 8000,
                   0);
  }
  *input = x;
  return h;
}

/* clone, pad, pooling, linear and dequantize; returns the output value. */
static int build_head(kws_t *k, int h) {
  static const int64_t zeros4[4] = {0, 0, 0, 0}, win[2] = {24, 5};
  static const int32_t pooled[4] = {1, CH, 1, 1}, flat[2] = {1, CH};
  static const int32_t logits_sz[2] = {1, 12}, scratch_sz[1] = {256};
  etk_program_builder_t *b = k->b;
  int c[4], lin_in, logits, out, p, pool_out, pool_scratch;
  int64_t mult, shift = -10;
  int op_pad = etk_program_builder_add_operator(b, "cortex_m::pad", "out");
  int op_avg = etk_program_builder_add_operator(
      b, "cortex_m::quantized_avg_pool2d", "out");
  int op_lin =
      etk_program_builder_add_operator(b, "cortex_m::quantized_linear", "out");
  int op_dq = etk_program_builder_add_operator(
      b, "cortex_m::dequantize_per_tensor", "out");
  h = clone_to(k, h, 8000);
  p = activation(k, 0);
  {
    int z = etk_program_builder_add_int_list(b, zeros4, 4);
    int32_t args[6] = {
        h, z, etk_program_builder_add_int_list(b, zeros4, 4), k->amin, p, p};
    etk_program_builder_kernel_call(b, op_pad, args, 6);
  }
  pool_scratch = planned(k, T_BYTE, 1, scratch_sz, NULL, 8000);
  pool_out = planned(k, T_CHAR, 4, pooled, CHANNELS_LAST, 8256);
  {
    int kw = etk_program_builder_add_int_list(b, win, 2);
    int32_t args[11] = {p,
                        kw,
                        etk_program_builder_add_int_list(b, win, 2),
                        k->zero2,
                        etk_program_builder_add_bool(b, false),
                        k->amin,
                        etk_program_builder_add_int(b, 2077939072),
                        etk_program_builder_add_int(b, -4),
                        pool_scratch,
                        pool_out,
                        pool_out};
    etk_program_builder_kernel_call(b, op_avg, args, 11);
  }
  lin_in = planned(k, T_CHAR, 2, flat, NULL, 8256); /* the same bytes */
  logits = planned(k, T_CHAR, 2, logits_sz, NULL, 48);
  draw_layer(k, c);
  mult = k->layer.mult[0];
  {
    int32_t args[13] = {lin_in,
                        c[0],
                        c[1],
                        etk_program_builder_add_null(b),
                        k->off128,
                        etk_program_builder_add_int(b, 0),
                        etk_program_builder_add_int(b, 23),
                        etk_program_builder_add_int_list(b, &mult, 1),
                        etk_program_builder_add_int_list(b, &shift, 1),
                        k->amax,
                        k->amin,
                        logits,
                        logits};
    etk_program_builder_kernel_call(b, op_lin, args, 13);
  }
  out = planned(k, ETK_BUILDER_FLOAT, 2, logits_sz, NULL, 0);
  {
    int32_t args[8] = {logits,
                       etk_program_builder_add_double(b, 0.154293164611),
                       etk_program_builder_add_int(b, 23),
                       k->amin,
                       k->amax,
                       etk_program_builder_add_int(b, T_CHAR),
                       out,
                       out};
    etk_program_builder_kernel_call(b, op_dq, args, 8);
  }
  return out;
}

int etk_kws_model_build(uint8_t **pte, size_t *len, etk_error_t *err) {
  static const int64_t ones[2] = {1, 1}, zeros[2] = {0, 0};
  kws_t *k = calloc(1, sizeof *k);
  int32_t input, output;
  int rc;
  *pte = NULL;
  if (!k || !(k->b = etk_program_builder_new("forward"))) {
    free(k);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  k->seed = 29u;
  k->op_dw = etk_program_builder_add_operator(
      k->b, "cortex_m::quantized_depthwise_conv2d", "out");
  k->op_conv = etk_program_builder_add_operator(
      k->b, "cortex_m::quantized_conv2d", "out");
  k->op_clone = etk_program_builder_add_operator(
      k->b, "dim_order_ops::_clone_dim_order", "out");
  k->one2 = etk_program_builder_add_int_list(k->b, ones, 2);
  k->zero2 = etk_program_builder_add_int_list(k->b, zeros, 2);
  k->dw_cm1 = etk_program_builder_add_int(k->b, 1);
  k->off128 = etk_program_builder_add_int(k->b, 128);
  k->off_m128 = etk_program_builder_add_int(k->b, -128);
  k->amin = k->off_m128;
  k->amax = etk_program_builder_add_int(k->b, 127);
  output = build_head(k, build_features(k, &input));
  etk_program_builder_set_inputs(k->b, &input, 1);
  etk_program_builder_set_outputs(k->b, &output, 1);
  rc = etk_program_builder_finish(k->b, pte, len, err);
  etk_program_builder_free(k->b);
  free(k);
  return rc;
}
