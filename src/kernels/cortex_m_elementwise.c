/*
 * cortex_m_elementwise.c - the int8 element-wise kernels of upstream's
 * Cortex-M backend: cortex_m::quantized_add, quantized_mul, quantized_div,
 * quantized_activation, minimum, maximum and softmax (all `.out`).
 *
 *   add (arm_elementwise_add_s8): each input (x - zero_point) << 20 is
 *     requantized by its own multiplier/shift, the sum requantized by the
 *     output's, plus output_zero_point, clamped to the activation range;
 *   mul (arm_elementwise_mul_s8): (a - zp_a) * (b - zp_b) requantized,
 *     plus output_zero_point, clamped to int8;
 *   div (upstream's own loop): round((a - zp_a) / (b - zp_b) * scale) in
 *     float, half away from zero as std::round, plus output_zero_point,
 *     0 for a zero divisor; int8 or int16;
 *   activation: out = lut[x + 128] (a 256-entry int8 table);
 *   minimum/maximum: of the raw int8 values;
 *   softmax (arm_softmax_s8): CMSIS-NN's fixed-point exp, sum and
 *     reciprocal along one dim, output zero point -128, scale 1/256.
 * Binary ops broadcast NumPy-style (upstream's exporter only emits equal
 * shapes and per-channel operands, both special cases).  Every tensor is
 * walked through its own dim order's strides.
 */
#include "cortex_m.h"
#include "kernel_list.h"

/* out, a, b walked together over out's shape (a and b broadcast). */
typedef struct cm_binary {
  etk_tensor_t *a, *b, *out;
  etk_view_t va, vb, vo;
  etk_walk_t w;
} cm_binary_t;

/* Checks dtypes (in `allowed`), sizes out to the broadcast shape and
 * starts the walk. */
static int binary_setup(etk_op_t *op, cm_binary_t *c, uint32_t allowed) {
  int64_t as[ETK_MAX_DIMS], bs[ETK_MAX_DIMS], osz[ETK_MAX_DIMS];
  int64_t strides[3][ETK_MAX_DIMS];
  int32_t odim;
  int rc;
  if ((rc = etk_op_check_dtype(op, c->a, "self", allowed)) ||
      (rc = etk_op_check_same_dtype(op, c->a, "self", c->b, "other")) ||
      (rc = etk_op_check_same_dtype(op, c->a, "self", c->out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  etk_tensor_sizes64(c->a, as);
  etk_tensor_sizes64(c->b, bs);
  if ((rc = etk_op_broadcast_shape(op, c->a->dim, as, c->b->dim, bs, &odim,
                                   osz)) ||
      (rc = etk_op_resize(op, c->out, "out", odim, osz)))
    return rc;
  etk_view_init(&c->va, c->a);
  etk_view_init(&c->vb, c->b);
  etk_view_init(&c->vo, c->out);
  memcpy(strides[0], c->vo.strides, sizeof strides[0]);
  etk_view_broadcast_strides(&c->va, odim, osz, strides[1]);
  etk_view_broadcast_strides(&c->vb, odim, osz, strides[2]);
  etk_walk_init(&c->w, odim, osz, 3, strides, NULL);
  return ETK_OK;
}

/* Calls fn(ctx, a, b) for every output element and stores its result. */
typedef int32_t (*binary_fn)(const void *ctx, int32_t a, int32_t b);
static void binary_run(cm_binary_t *c, binary_fn fn, const void *ctx) {
  const int8_t *a = c->a->data, *b = c->b->data;
  int8_t *o = c->out->data;
  if (etk_tensor_numel(c->out) == 0) return;
  for (int64_t r = 0; r < c->w.rows; r++, etk_walk_next_row(&c->w))
    for (int64_t j = 0; j < c->w.inner; j++)
      o[c->w.off[0] + j * c->w.inner_stride[0]] =
          (int8_t)fn(ctx, a[c->w.off[1] + j * c->w.inner_stride[1]],
                     b[c->w.off[2] + j * c->w.inner_stride[2]]);
}

typedef struct add_params {
  int32_t zp[3], mult[3], shift[3], act_min, act_max;
} add_params_t;

static int32_t add_one(const void *ctx, int32_t a, int32_t b) {
  const add_params_t *p = ctx;
  int32_t x = etk_cm_requantize(etk_cm_shl32(a - p->zp[0], 20), p->mult[0],
                                p->shift[0]);
  int32_t y = etk_cm_requantize(etk_cm_shl32(b - p->zp[1], 20), p->mult[1],
                                p->shift[1]);
  int32_t s =
      etk_cm_requantize(etk_cm_wrap32((int64_t)x + y), p->mult[2], p->shift[2]);
  return etk_cm_clamp(etk_cm_wrap32((int64_t)s + p->zp[2]), p->act_min,
                      p->act_max);
}

/* quantized_add.out(Tensor self, int self_zero_point, int self_multiplier,
 *   int self_shift, Tensor other, int other_zero_point,
 *   int other_multiplier, int other_shift, int output_zero_point,
 *   int output_multiplier, int output_shift, int activation_min,
 *   int activation_max, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_quantized_add_out, "cortex_m::quantized_add.out") {
  cm_binary_t c;
  add_params_t p;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 15)) ||
      (rc = etk_op_tensor(op, 0, "self", &c.a)) ||
      (rc = etk_op_tensor(op, 4, "other", &c.b)) ||
      (rc = etk_op_tensor(op, 13, "out", &c.out)))
    return rc;
  for (int k = 0; k < 3; k++) {
    size_t at = k == 2 ? 8 : (size_t)k * 4 + 1;
    if ((rc = etk_cm_int32(op, at, "zero_point", &p.zp[k])) ||
        (rc = etk_cm_int32(op, at + 1, "multiplier", &p.mult[k])) ||
        (rc = etk_cm_shift(op, at + 2, "shift", &p.shift[k])))
      return rc;
    if (p.zp[k] < -32768 || p.zp[k] > 32767)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "zero point %d is out of range", (int)p.zp[k]);
  }
  if ((rc = etk_cm_int32(op, 11, "activation_min", &p.act_min)) ||
      (rc = etk_cm_int32(op, 12, "activation_max", &p.act_max)) ||
      (rc = binary_setup(op, &c, ETK_DTYPE_BIT(ETK_CHAR))) || op->checking)
    return rc;
  binary_run(&c, add_one, &p);
  return ETK_OK;
}

typedef struct mul_params {
  int32_t zp_a, zp_b, zp_out, mult, shift;
} mul_params_t;

static int32_t mul_one(const void *ctx, int32_t a, int32_t b) {
  const mul_params_t *p = ctx;
  int32_t m =
      etk_cm_requantize((a - p->zp_a) * (b - p->zp_b), p->mult, p->shift);
  return etk_cm_clamp(etk_cm_wrap32((int64_t)m + p->zp_out), -128, 127);
}

/* quantized_mul.out(Tensor self, int self_zero_point, Tensor other,
 *   int other_zero_point, int output_zero_point, int output_multiplier,
 *   int output_shift, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_quantized_mul_out, "cortex_m::quantized_mul.out") {
  cm_binary_t c;
  mul_params_t p;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 9)) ||
      (rc = etk_op_tensor(op, 0, "self", &c.a)) ||
      (rc = etk_cm_int32(op, 1, "self_zero_point", &p.zp_a)) ||
      (rc = etk_op_tensor(op, 2, "other", &c.b)) ||
      (rc = etk_cm_int32(op, 3, "other_zero_point", &p.zp_b)) ||
      (rc = etk_cm_int32(op, 4, "output_zero_point", &p.zp_out)) ||
      (rc = etk_cm_int32(op, 5, "output_multiplier", &p.mult)) ||
      (rc = etk_cm_shift(op, 6, "output_shift", &p.shift)) ||
      (rc = etk_op_tensor(op, 7, "out", &c.out)))
    return rc;
  if (p.zp_a < -255 || p.zp_a > 255 || p.zp_b < -255 || p.zp_b > 255)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "zero points must be in [-255, 255]");
  if ((rc = binary_setup(op, &c, ETK_DTYPE_BIT(ETK_CHAR))) || op->checking)
    return rc;
  binary_run(&c, mul_one, &p);
  return ETK_OK;
}

/* quantized_div.out(Tensor self, int self_zero_point, Tensor other,
 *   int other_zero_point, int output_zero_point, float output_scale, *,
 *   Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_quantized_div_out, "cortex_m::quantized_div.out") {
  cm_binary_t c;
  int32_t zp_a, zp_b, zp_out;
  double scale;
  float lo, hi;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 8)) ||
      (rc = etk_op_tensor(op, 0, "self", &c.a)) ||
      (rc = etk_cm_int32(op, 1, "self_zero_point", &zp_a)) ||
      (rc = etk_op_tensor(op, 2, "other", &c.b)) ||
      (rc = etk_cm_int32(op, 3, "other_zero_point", &zp_b)) ||
      (rc = etk_cm_int32(op, 4, "output_zero_point", &zp_out)) ||
      (rc = etk_op_double(op, 5, "output_scale", &scale)) ||
      (rc = etk_op_tensor(op, 6, "out", &c.out)) ||
      (rc = binary_setup(op, &c,
                         ETK_DTYPE_BIT(ETK_CHAR) | ETK_DTYPE_BIT(ETK_SHORT))) ||
      op->checking)
    return rc;
  lo = c.out->scalar_type == ETK_CHAR ? -128.0f : -32768.0f;
  hi = c.out->scalar_type == ETK_CHAR ? 127.0f : 32767.0f;
  if (etk_tensor_numel(c.out) == 0) return ETK_OK;
  for (int64_t r = 0; r < c.w.rows; r++, etk_walk_next_row(&c.w))
    for (int64_t j = 0; j < c.w.inner; j++) {
      int64_t n = etk_load_i64(c.a->scalar_type, c.a->data,
                               c.w.off[1] + j * c.w.inner_stride[1]) -
                  zp_a;
      int64_t d = etk_load_i64(c.b->scalar_type, c.b->data,
                               c.w.off[2] + j * c.w.inner_stride[2]) -
                  zp_b;
      float q = d != 0 ? (float)n / (float)d : 0.0f;
      float v = roundf(q * (float)scale) + (float)zp_out;
      v = v < lo ? lo : v > hi ? hi : v;
      if (v != v) v = 0.0f;
      etk_store_i64(c.out->scalar_type, c.out->data,
                    c.w.off[0] + j * c.w.inner_stride[0], (int64_t)v);
    }
  return ETK_OK;
}

static int32_t min_one(const void *ctx, int32_t a, int32_t b) {
  (void)ctx;
  return a < b ? a : b;
}

static int32_t max_one(const void *ctx, int32_t a, int32_t b) {
  (void)ctx;
  return a > b ? a : b;
}

/* minimum.out / maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) */
static int min_max(etk_op_t *op, binary_fn fn) {
  cm_binary_t c;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 4)) ||
      (rc = etk_op_tensor(op, 0, "self", &c.a)) ||
      (rc = etk_op_tensor(op, 1, "other", &c.b)) ||
      (rc = etk_op_tensor(op, 2, "out", &c.out)) ||
      (rc = binary_setup(op, &c, ETK_DTYPE_BIT(ETK_CHAR))) || op->checking)
    return rc;
  binary_run(&c, fn, NULL);
  return ETK_OK;
}

ETK_KERNEL_DEFINE(cm_minimum_out, "cortex_m::minimum.out") {
  return min_max(op, min_one);
}

ETK_KERNEL_DEFINE(cm_maximum_out, "cortex_m::maximum.out") {
  return min_max(op, max_one);
}

/* quantized_activation.out(Tensor input, Tensor lut, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_quantized_activation_out,
                  "cortex_m::quantized_activation.out") {
  etk_tensor_t *in, *lut, *out;
  etk_view_t vi, vo;
  const etk_view_t *views[2] = {&vo, &vi};
  etk_walk_t w;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 4)) ||
      (rc = etk_op_tensor(op, 0, "input", &in)) ||
      (rc = etk_op_tensor(op, 1, "lut", &lut)) ||
      (rc = etk_op_tensor(op, 2, "out", &out)) ||
      (rc = etk_cm_check_int8(op, in, "input")) ||
      (rc = etk_cm_check_int8(op, lut, "lut")) ||
      (rc = etk_cm_check_int8(op, out, "out")) || op->checking)
    return rc;
  if (etk_tensor_numel(lut) != 256 || !etk_tensor_is_contiguous(lut))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "lut must have 256 entries, got %lld",
                       (long long)etk_tensor_numel(lut));
  if ((rc = etk_op_resize_like(op, out, "out", in))) return rc;
  if (etk_tensor_numel(out) == 0) return ETK_OK;
  etk_view_init(&vi, in);
  etk_view_init(&vo, out);
  etk_walk_init_views(&w, 2, views, -1);
  for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w))
    for (int64_t j = 0; j < w.inner; j++) {
      int32_t x = ((const int8_t *)in->data)[w.off[1] + j * w.inner_stride[1]];
      ((int8_t *)out->data)[w.off[0] + j * w.inner_stride[0]] =
          ((const int8_t *)lut->data)[x + 128];
    }
  return ETK_OK;
}

static int count_leading_zeros(uint32_t v) {
  int n = 0;
  if (v == 0) return 32;
  while (!(v & 0x80000000u)) {
    v <<= 1;
    n++;
  }
  return n;
}

typedef struct softmax_params {
  int32_t mult, shift, diff_min;
} softmax_params_t;

/* exp(diff) in Q0.31 for diff = x - max <= 0 */
static int32_t softmax_exp(const softmax_params_t *p, int32_t diff) {
  int32_t scaled = etk_cm_wrap32((int64_t)diff * ((int64_t)1 << p->shift));
  return etk_cm_exp_on_negative(etk_cm_dhm(scaled, p->mult));
}

/* One row of n values at x[k * xs], into y[k * ys]; false when the row is
 * too long for CMSIS-NN's 12-bit accumulation. */
static bool softmax_row(const softmax_params_t *p, const int8_t *x, int64_t xs,
                        int8_t *y, int64_t ys, int64_t n) {
  int32_t max = x[0], sum = 0, scale;
  int headroom, bits;
  for (int64_t k = 1; k < n; k++)
    if (x[k * xs] > max) max = x[k * xs];
  for (int64_t k = 0; k < n; k++) {
    int32_t diff = x[k * xs] - max;
    if (diff >= p->diff_min)
      sum = etk_cm_wrap32((int64_t)sum +
                          etk_cm_div_pow2(softmax_exp(p, diff), 12));
  }
  headroom = count_leading_zeros((uint32_t)sum);
  bits = 12 - headroom + 23;
  if (bits > 31 || bits < 0) return false;
  scale = etk_cm_one_over_one_plus_x(etk_cm_wrap32(
      (int64_t)(sum > 0 ? (uint32_t)sum << headroom : 0u) - 0x80000000ll));
  for (int64_t k = 0; k < n; k++) {
    int32_t diff = x[k * xs] - max, res = -128;
    if (diff >= p->diff_min)
      res =
          etk_cm_div_pow2(etk_cm_dhm(scale, softmax_exp(p, diff)), bits) - 128;
    y[k * ys] = (int8_t)etk_cm_clamp(res, -128, 127);
  }
  return true;
}

/* softmax.out(Tensor input, int dim, int input_zero_point,
 *   int output_zero_point, int input_multiplier, int input_shift,
 *   int diff_min, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_softmax_out, "cortex_m::softmax.out") {
  etk_tensor_t *in, *out;
  softmax_params_t p;
  int32_t in_zp, out_zp, axis;
  int64_t dim;
  etk_view_t vi, vo;
  const etk_view_t *views[2] = {&vo, &vi};
  etk_walk_t w;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 9)) ||
      (rc = etk_op_tensor(op, 0, "input", &in)) ||
      (rc = etk_op_int(op, 1, "dim", &dim)) ||
      (rc = etk_cm_int32(op, 2, "input_zero_point", &in_zp)) ||
      (rc = etk_cm_int32(op, 3, "output_zero_point", &out_zp)) ||
      (rc = etk_cm_int32(op, 4, "input_multiplier", &p.mult)) ||
      (rc = etk_cm_shift(op, 5, "input_shift", &p.shift)) ||
      (rc = etk_cm_int32(op, 6, "diff_min", &p.diff_min)) ||
      (rc = etk_op_tensor(op, 7, "out", &out)) ||
      (rc = etk_cm_check_int8(op, in, "input")) ||
      (rc = etk_cm_check_int8(op, out, "out")) || op->checking)
    return rc;
  if (out_zp != -128 || p.shift < 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "output_zero_point must be -128 and input_shift >= 0 "
                       "(got %d and %d)",
                       (int)out_zp, (int)p.shift);
  if ((rc = etk_op_wrap_dim(op, dim, in->dim, "dim", &axis)) ||
      (rc = etk_op_resize_like(op, out, "out", in)))
    return rc;
  if (etk_tensor_numel(out) == 0) return ETK_OK;
  etk_view_init(&vi, in);
  etk_view_init(&vo, out);
  etk_walk_init_views(&w, 2, views, in->dim ? axis : -1);
  for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w))
    if (!softmax_row(&p, (const int8_t *)in->data + w.off[1], w.inner_stride[1],
                     (int8_t *)out->data + w.off[0], w.inner_stride[0],
                     w.inner))
      return etk_op_fail(op, ETK_E_UNSUPPORTED,
                         "a row of %lld values overflows the fixed-point sum",
                         (long long)w.inner);
  return ETK_OK;
}
