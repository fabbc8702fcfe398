/*
 * cortex_m_conv.c - the int8 convolutions and matrix products of upstream's
 * Cortex-M backend, as CMSIS-NN computes them: cortex_m::quantized_conv2d,
 * quantized_depthwise_conv2d, quantized_transpose_conv2d, quantized_linear
 * and quantized_batch_matmul (all `.out`).
 *
 * Each output is an int32 accumulator requantized with CMSIS-NN's
 * arithmetic (cortex_m.h):
 *   acc = bias[o] + sum (x + input_offset) * w      (padding adds nothing)
 *   y   = clamp(requantize(acc, mult[o], shift[o]) + output_offset,
 *               activation_min, activation_max)
 * Activations are [N, C, H, W] by their sizes and usually channels-last in
 * memory (dim order 0, 2, 3, 1); the kernels read and write every tensor
 * through the strides of its own dim order, so any layout gives the same
 * values.  Weight layouts are the backend's: conv and transpose conv OHWI,
 * depthwise 1HWO (output channel = input channel * depth_multiplier + m),
 * linear [out_features, in_features].
 *
 * The `scratch` tensors the exporter plans for CMSIS-NN's im2col buffers
 * are accepted and not used: these loops need no buffer, so the kernels
 * run in the memory the program plans and allocate nothing.
 */
#include "cortex_m.h"
#include "kernel_list.h"

/* Everything a convolution reads, in CMSIS-NN's terms. */
typedef struct cm_conv {
  etk_tensor_t *in, *w, *bias, *mult, *shift, *out;
  int64_t stride[2], pad[2], dil[2], outpad[2];
  int32_t in_off, out_off, act_min, act_max;
  int64_t ch_mult;
  int64_t is[4], ws[4], os[4]; /* strides of in, w, out (logical dims) */
} cm_conv_t;

/* Reads input, weight, bias, stride, padding, [output_padding,] dilation,
 * [depth_multiplier,] offsets, tables, activation range and out (the
 * bracketed ones for transpose and depthwise convolutions). */
static int conv_read(etk_op_t *op, cm_conv_t *c, size_t nargs, bool dw,
                     bool transpose) {
  size_t k = transpose ? 7 : 6; /* index of the first int after the lists */
  int64_t cm = 1;
  int rc;
  memset(c, 0, sizeof *c);
  if ((rc = etk_op_expect_nargs(op, nargs)) ||
      (rc = etk_op_tensor(op, 0, "input", &c->in)) ||
      (rc = etk_op_tensor(op, 1, "weight", &c->w)) ||
      (rc = etk_op_tensor_opt(op, 2, "bias", &c->bias)) ||
      (rc = etk_op_tensor(op, nargs - 2, "out", &c->out)))
    return rc;
  if (dw && (rc = etk_op_int(op, k++, "depth_multiplier", &cm))) return rc;
  if ((rc = etk_cm_int32(op, k, "input_offset", &c->in_off)) ||
      (rc = etk_cm_int32(op, k + 1, "output_offset", &c->out_off)) ||
      (rc = etk_op_tensor(op, k + 2, "requantize_multipliers", &c->mult)) ||
      (rc = etk_op_tensor(op, k + 3, "requantize_shifts", &c->shift)) ||
      (rc = etk_cm_int32(op, k + 4, "activation_min", &c->act_min)) ||
      (rc = etk_cm_int32(op, k + 5, "activation_max", &c->act_max)))
    return rc;
  if ((rc = etk_cm_check_int8(op, c->in, "input")) ||
      (rc = etk_cm_check_int8(op, c->w, "weight")) ||
      (rc = etk_cm_check_int8(op, c->out, "out")) ||
      (c->bias &&
       (rc = etk_op_check_dtype(op, c->bias, "bias", ETK_DTYPE_BIT(ETK_INT)))))
    return rc;
  if ((rc = etk_op_check_dtype(op, c->mult, "requantize_multipliers",
                               ETK_DTYPE_BIT(ETK_INT))) ||
      (rc = etk_op_check_dtype(op, c->shift, "requantize_shifts",
                               ETK_DTYPE_BIT(ETK_INT))))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = etk_cm_pair(op, 3, "stride", 1, c->stride)) ||
      (rc = etk_cm_pair(op, 4, "padding", 0, c->pad)) ||
      (transpose &&
       (rc = etk_cm_pair(op, 5, "output_padding", 0, c->outpad))) ||
      (rc = etk_cm_pair(op, transpose ? 6 : 5, "dilation", 1, c->dil)))
    return rc;
  if (c->in->dim != 4 || c->w->dim != 4)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input and weight must be 4-D, got %d and %d dims",
                       (int)c->in->dim, (int)c->w->dim);
  if (cm < 1 || cm > INT32_MAX)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "depth_multiplier %lld must be >= 1", (long long)cm);
  if (c->act_min > c->act_max)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "activation_min %d is above activation_max %d",
                       (int)c->act_min, (int)c->act_max);
  c->ch_mult = cm;
  etk_tensor_dense_strides(c->in, c->is);
  etk_tensor_dense_strides(c->w, c->ws);
  return ETK_OK;
}

/* Output size of a convolution (or transposed convolution) along one axis;
 * -1 when it would not be positive. */
static int64_t conv_out_size(const cm_conv_t *c, int axis, int64_t in,
                             int64_t k, bool transpose) {
  int64_t s = c->stride[axis], p = c->pad[axis], d = c->dil[axis];
  int64_t o = transpose
                  ? (in - 1) * s - 2 * p + d * (k - 1) + c->outpad[axis] + 1
                  : (in + 2 * p - d * (k - 1) - 1) / s + 1;
  if (!transpose && in + 2 * p - d * (k - 1) - 1 < 0) return -1;
  return o >= 1 ? o : -1;
}

/* Resizes out to [N, oc, oh, ow], checks the tables and the bias, and
 * takes out's strides. */
static int conv_finish(etk_op_t *op, cm_conv_t *c, int64_t oc, int64_t kh,
                       int64_t kw, bool transpose) {
  int64_t sizes[4];
  int rc;
  sizes[0] = c->in->sizes[0];
  sizes[1] = oc;
  sizes[2] = conv_out_size(c, 0, c->in->sizes[2], kh, transpose);
  sizes[3] = conv_out_size(c, 1, c->in->sizes[3], kw, transpose);
  if (sizes[2] < 0 || sizes[3] < 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "the %lldx%lld kernel leaves no output of the %dx%d "
                       "input",
                       (long long)kh, (long long)kw, (int)c->in->sizes[2],
                       (int)c->in->sizes[3]);
  if ((rc = etk_op_resize(op, c->out, "out", 4, sizes)) ||
      (rc = etk_cm_requant_tables(op, c->mult, c->shift, oc)))
    return rc;
  if (c->bias && etk_tensor_numel(c->bias) != oc)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "bias has %lld items for %lld output channels",
                       (long long)etk_tensor_numel(c->bias), (long long)oc);
  etk_tensor_dense_strides(c->out, c->os);
  return ETK_OK;
}

/* Requantizes acc for output channel o and stores it at out offset `at`. */
static void conv_store(const cm_conv_t *c, int64_t o, int64_t at, int32_t acc) {
  int32_t y = etk_cm_requantize(acc, etk_cm_i32_at(c->mult, o),
                                etk_cm_i32_at(c->shift, o));
  y = etk_cm_clamp(etk_cm_wrap32((int64_t)y + c->out_off), c->act_min,
                   c->act_max);
  ((int8_t *)c->out->data)[at] = (int8_t)y;
}

static int32_t conv_bias(const cm_conv_t *c, int64_t o) {
  return c->bias ? etk_cm_i32_at(c->bias, o) : 0;
}

/* acc + sum over n of (x[k * xs] + off) * w[k * ws]: the inner product
 * over input channels, in native-width strides (the kernel's hot loop;
 * tensor extents fit memory, so ptrdiff_t holds them). */
static uint32_t dot(uint32_t acc, const int8_t *x, ptrdiff_t xs,
                    const int8_t *w, ptrdiff_t ws, int64_t n, int32_t off) {
  for (int64_t k = 0; k < n; k++, x += xs, w += ws)
    acc = etk_cm_mac(acc, *x, off, *w);
  return acc;
}

/* One output of a (grouped) convolution: channels [g*kin, (g+1)*kin). */
static int32_t conv_point(const cm_conv_t *c, int64_t n, int64_t o, int64_t y,
                          int64_t x, int64_t first) {
  const int8_t *in = c->in->data, *w = c->w->data;
  int64_t kh = c->w->sizes[1], kw = c->w->sizes[2], kin = c->w->sizes[3];
  int64_t h = c->in->sizes[2], wd = c->in->sizes[3];
  uint32_t acc = (uint32_t)conv_bias(c, o);
  for (int64_t i = 0; i < kh; i++) {
    int64_t iy = y * c->stride[0] - c->pad[0] + i * c->dil[0];
    if (iy < 0 || iy >= h) continue;
    for (int64_t j = 0; j < kw; j++) {
      int64_t ix = x * c->stride[1] - c->pad[1] + j * c->dil[1];
      const int8_t *px, *pw;
      if (ix < 0 || ix >= wd) continue;
      px = in + n * c->is[0] + first * c->is[1] + iy * c->is[2] + ix * c->is[3];
      pw = w + o * c->ws[0] + i * c->ws[1] + j * c->ws[2];
      acc = dot(acc, px, (ptrdiff_t)c->is[1], pw, (ptrdiff_t)c->ws[3], kin,
                c->in_off);
    }
  }
  return etk_cm_acc(acc);
}

/* quantized_conv2d.out(Tensor input, Tensor weight, Tensor? bias,
 *   int[] stride, int[] padding, int[] dilation, int input_offset,
 *   int output_offset, Tensor requantize_multipliers,
 *   Tensor requantize_shifts, int activation_min, int activation_max,
 *   Tensor scratch, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_quantized_conv2d_out, "cortex_m::quantized_conv2d.out") {
  cm_conv_t c;
  int64_t oc, groups, per_group;
  int rc;
  if ((rc = conv_read(op, &c, 15, false, false)) || op->checking) return rc;
  oc = c.w->sizes[0];
  if (c.w->sizes[3] < 1 || c.in->sizes[1] % c.w->sizes[3] != 0 ||
      oc % (c.in->sizes[1] / c.w->sizes[3]) != 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "weight [%d, %d, %d, %d] (OHWI) does not fit %d input "
                       "channels",
                       (int)c.w->sizes[0], (int)c.w->sizes[1],
                       (int)c.w->sizes[2], (int)c.w->sizes[3],
                       (int)c.in->sizes[1]);
  groups = c.in->sizes[1] / c.w->sizes[3];
  per_group = oc / groups;
  if ((rc = conv_finish(op, &c, oc, c.w->sizes[1], c.w->sizes[2], false)))
    return rc;
  for (int64_t n = 0; n < c.out->sizes[0]; n++)
    for (int64_t y = 0; y < c.out->sizes[2]; y++)
      for (int64_t x = 0; x < c.out->sizes[3]; x++)
        for (int64_t o = 0; o < oc; o++) {
          int64_t first = (o / per_group) * c.w->sizes[3];
          conv_store(&c, o,
                     n * c.os[0] + o * c.os[1] + y * c.os[2] + x * c.os[3],
                     conv_point(&c, n, o, y, x, first));
        }
  return ETK_OK;
}

/* One output of a depthwise convolution (output channel o). */
static int32_t dw_point(const cm_conv_t *c, int64_t n, int64_t o, int64_t y,
                        int64_t x) {
  const int8_t *in = c->in->data, *w = c->w->data;
  int64_t kh = c->w->sizes[1], kw = c->w->sizes[2], ci = o / c->ch_mult;
  uint32_t acc = (uint32_t)conv_bias(c, o);
  for (int64_t i = 0; i < kh; i++) {
    int64_t iy = y * c->stride[0] - c->pad[0] + i * c->dil[0];
    if (iy < 0 || iy >= c->in->sizes[2]) continue;
    for (int64_t j = 0; j < kw; j++) {
      int64_t ix = x * c->stride[1] - c->pad[1] + j * c->dil[1];
      if (ix < 0 || ix >= c->in->sizes[3]) continue;
      acc = etk_cm_mac(
          acc, in[n * c->is[0] + ci * c->is[1] + iy * c->is[2] + ix * c->is[3]],
          c->in_off, w[i * c->ws[1] + j * c->ws[2] + o * c->ws[3]]);
    }
  }
  return etk_cm_acc(acc);
}

/* quantized_depthwise_conv2d.out(Tensor input, Tensor weight, Tensor? bias,
 *   int[] stride, int[] padding, int[] dilation, int depth_multiplier,
 *   int input_offset, int output_offset, Tensor requantize_multipliers,
 *   Tensor requantize_shifts, int activation_min, int activation_max,
 *   Tensor scratch, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_quantized_depthwise_conv2d_out,
                  "cortex_m::quantized_depthwise_conv2d.out") {
  cm_conv_t c;
  int64_t oc;
  int rc;
  if ((rc = conv_read(op, &c, 16, true, false)) || op->checking) return rc;
  oc = c.w->sizes[3];
  if (c.w->sizes[0] != 1 || oc != c.in->sizes[1] * c.ch_mult)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "weight [%d, %d, %d, %d] (1HWO) does not give %d input "
                       "channels x depth_multiplier %lld",
                       (int)c.w->sizes[0], (int)c.w->sizes[1],
                       (int)c.w->sizes[2], (int)c.w->sizes[3],
                       (int)c.in->sizes[1], (long long)c.ch_mult);
  if ((rc = conv_finish(op, &c, oc, c.w->sizes[1], c.w->sizes[2], false)))
    return rc;
  for (int64_t n = 0; n < c.out->sizes[0]; n++)
    for (int64_t y = 0; y < c.out->sizes[2]; y++)
      for (int64_t x = 0; x < c.out->sizes[3]; x++)
        for (int64_t o = 0; o < oc; o++)
          conv_store(&c, o,
                     n * c.os[0] + o * c.os[1] + y * c.os[2] + x * c.os[3],
                     dw_point(&c, n, o, y, x));
  return ETK_OK;
}

/* One output of a transposed convolution: the inputs (iy, ix) and taps
 * (i, j) with y = iy * stride - pad + i * dilation (likewise x). */
static int32_t tconv_point(const cm_conv_t *c, int64_t n, int64_t o, int64_t y,
                           int64_t x) {
  const int8_t *in = c->in->data, *w = c->w->data;
  int64_t kh = c->w->sizes[1], kw = c->w->sizes[2], kin = c->w->sizes[3];
  uint32_t acc = (uint32_t)conv_bias(c, o);
  for (int64_t i = 0; i < kh; i++) {
    int64_t ty = y + c->pad[0] - i * c->dil[0], iy = ty / c->stride[0];
    if (ty < 0 || ty % c->stride[0] != 0 || iy >= c->in->sizes[2]) continue;
    for (int64_t j = 0; j < kw; j++) {
      int64_t tx = x + c->pad[1] - j * c->dil[1], ix = tx / c->stride[1];
      const int8_t *px, *pw;
      if (tx < 0 || tx % c->stride[1] != 0 || ix >= c->in->sizes[3]) continue;
      px = in + n * c->is[0] + iy * c->is[2] + ix * c->is[3];
      pw = w + o * c->ws[0] + i * c->ws[1] + j * c->ws[2];
      acc = dot(acc, px, (ptrdiff_t)c->is[1], pw, (ptrdiff_t)c->ws[3], kin,
                c->in_off);
    }
  }
  return etk_cm_acc(acc);
}

/* quantized_transpose_conv2d.out(Tensor input, Tensor weight, Tensor? bias,
 *   int[] stride, int[] padding, int[] output_padding, int[] dilation,
 *   int input_offset, int output_offset, Tensor requantize_multipliers,
 *   Tensor requantize_shifts, int activation_min, int activation_max,
 *   Tensor scratch, Tensor output_scratch, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_quantized_transpose_conv2d_out,
                  "cortex_m::quantized_transpose_conv2d.out") {
  cm_conv_t c;
  int64_t oc;
  int rc;
  if ((rc = conv_read(op, &c, 17, false, true)) || op->checking) return rc;
  oc = c.w->sizes[0];
  if (c.w->sizes[3] != c.in->sizes[1])
    return etk_op_fail(op, ETK_E_UNSUPPORTED,
                       "weight [%d, %d, %d, %d] (OHWI) must take all %d input "
                       "channels (groups are not supported)",
                       (int)c.w->sizes[0], (int)c.w->sizes[1],
                       (int)c.w->sizes[2], (int)c.w->sizes[3],
                       (int)c.in->sizes[1]);
  if ((rc = conv_finish(op, &c, oc, c.w->sizes[1], c.w->sizes[2], true)))
    return rc;
  for (int64_t n = 0; n < c.out->sizes[0]; n++)
    for (int64_t y = 0; y < c.out->sizes[2]; y++)
      for (int64_t x = 0; x < c.out->sizes[3]; x++)
        for (int64_t o = 0; o < oc; o++)
          conv_store(&c, o,
                     n * c.os[0] + o * c.os[1] + y * c.os[2] + x * c.os[3],
                     tconv_point(&c, n, o, y, x));
  return ETK_OK;
}

/* quantized_linear.out(Tensor input, Tensor weights, Tensor? bias,
 *   Tensor? kernel_sum, int input_offset, int filter_offset,
 *   int output_offset, int[] requantize_multipliers,
 *   int[] requantize_shifts, int activation_max, int activation_min, *,
 *   Tensor(a!) out)
 * With kernel_sum (the MVE form): acc = x.w + filter_offset * sum(x) +
 * kernel_sum[o]; without: acc = (x + input_offset).(w + filter_offset) +
 * bias[o].  One multiplier and shift (the lists' first items). */
ETK_KERNEL_DEFINE(cm_quantized_linear_out, "cortex_m::quantized_linear.out") {
  etk_tensor_t *in, *w, *bias, *ksum, *out;
  int32_t in_off, f_off, out_off, amax, amin, mult, shift;
  int64_t mults[1], shifts[1], osz[ETK_MAX_DIMS], is[ETK_MAX_DIMS];
  int64_t ws[2], os[ETK_MAX_DIMS], k, m, rows;
  size_t nm, ns;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 13)) ||
      (rc = etk_op_tensor(op, 0, "input", &in)) ||
      (rc = etk_op_tensor(op, 1, "weights", &w)) ||
      (rc = etk_op_tensor_opt(op, 2, "bias", &bias)) ||
      (rc = etk_op_tensor_opt(op, 3, "kernel_sum", &ksum)) ||
      (rc = etk_cm_int32(op, 4, "input_offset", &in_off)) ||
      (rc = etk_cm_int32(op, 5, "filter_offset", &f_off)) ||
      (rc = etk_cm_int32(op, 6, "output_offset", &out_off)) ||
      (rc = etk_cm_int32(op, 9, "activation_max", &amax)) ||
      (rc = etk_cm_int32(op, 10, "activation_min", &amin)) ||
      (rc = etk_op_tensor(op, 11, "out", &out)) ||
      (rc = etk_cm_check_int8(op, in, "input")) ||
      (rc = etk_cm_check_int8(op, w, "weights")) ||
      (rc = etk_cm_check_int8(op, out, "out")) ||
      (bias &&
       (rc = etk_op_check_dtype(op, bias, "bias", ETK_DTYPE_BIT(ETK_INT)))) ||
      (ksum && (rc = etk_op_check_dtype(op, ksum, "kernel_sum",
                                        ETK_DTYPE_BIT(ETK_INT)))))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = etk_op_int_list(op, 7, "requantize_multipliers", mults, 1, &nm)) ||
      (rc = etk_op_int_list(op, 8, "requantize_shifts", shifts, 1, &ns)))
    return rc;
  if (nm != 1 || ns != 1 || mults[0] < INT32_MIN || mults[0] > INT32_MAX ||
      shifts[0] < -31 || shifts[0] > 31)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "requantize_multipliers and requantize_shifts need one "
                       "int32 item each (shift in [-31, 31])");
  mult = (int32_t)mults[0];
  shift = (int32_t)shifts[0];
  if (in->dim < 1 || w->dim != 2 || w->sizes[1] != in->sizes[in->dim - 1])
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "weights must be [out_features, %d]",
                       in->dim ? (int)in->sizes[in->dim - 1] : 0);
  k = w->sizes[1];
  m = w->sizes[0];
  if ((bias && etk_tensor_numel(bias) != m) ||
      (ksum && etk_tensor_numel(ksum) != m))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "bias and kernel_sum need %lld items", (long long)m);
  for (int32_t d = 0; d < in->dim; d++) osz[d] = in->sizes[d];
  osz[in->dim - 1] = m;
  if ((rc = etk_op_resize(op, out, "out", in->dim, osz))) return rc;
  etk_tensor_dense_strides(in, is);
  etk_tensor_dense_strides(w, ws);
  etk_tensor_dense_strides(out, os);
  rows = k ? etk_tensor_numel(in) / k : etk_tensor_numel(out) / (m ? m : 1);
  for (int64_t r = 0; r < rows; r++) {
    /* row r's offsets: its index over the leading dims, row-major */
    int64_t ib = 0, ob = 0, rem = r;
    for (int32_t d = in->dim - 2; d >= 0; d--) {
      ib += (rem % in->sizes[d]) * is[d];
      ob += (rem % in->sizes[d]) * os[d];
      rem /= in->sizes[d];
    }
    for (int64_t o = 0; o < m; o++) {
      const int8_t *x = (const int8_t *)in->data + ib;
      const int8_t *wr = (const int8_t *)w->data + o * ws[0];
      uint32_t acc = 0, xsum = 0;
      int32_t y;
      ptrdiff_t xs = (ptrdiff_t)is[in->dim - 1], wst = (ptrdiff_t)ws[1];
      if (ksum || f_off == 0)
        acc = dot(0, x, xs, wr, wst, k, ksum ? 0 : in_off);
      for (int64_t j = 0; ksum && j < k; j++) xsum += (uint32_t)x[j * xs];
      for (int64_t j = 0; !ksum && f_off != 0 && j < k; j++)
        acc = etk_cm_mac(acc, x[j * xs], in_off,
                         etk_cm_wrap32((int64_t)wr[j * wst] + f_off));
      acc += ksum ? (uint32_t)f_off * xsum + (uint32_t)etk_cm_i32_at(ksum, o)
                  : (bias ? (uint32_t)etk_cm_i32_at(bias, o) : 0u);
      y = etk_cm_requantize(etk_cm_acc(acc), mult, shift);
      y = etk_cm_clamp(etk_cm_wrap32((int64_t)y + out_off), amin, amax);
      ((int8_t *)out->data)[ob + o * os[out->dim - 1]] = (int8_t)y;
    }
  }
  return ETK_OK;
}

/* quantized_batch_matmul.out(Tensor lhs, int lhs_zero_point,
 *   Tensor rhs_transposed, int rhs_zero_point, int output_zero_point,
 *   int output_multiplier, int output_shift, Tensor scratch, *,
 *   Tensor(a!) out)
 * lhs [B, M, K], rhs_transposed [B, N, K], out [B, M, N]; the "zero
 * points" are CMSIS-NN's offsets (added), the result clamped to int8. */
ETK_KERNEL_DEFINE(cm_quantized_batch_matmul_out,
                  "cortex_m::quantized_batch_matmul.out") {
  etk_tensor_t *a, *b, *out;
  int32_t a_off, b_off, out_off, mult, shift;
  int64_t osz[3], as[3], bs[3], os[3];
  int rc;
  if ((rc = etk_op_expect_nargs(op, 10)) ||
      (rc = etk_op_tensor(op, 0, "lhs", &a)) ||
      (rc = etk_cm_int32(op, 1, "lhs_zero_point", &a_off)) ||
      (rc = etk_op_tensor(op, 2, "rhs_transposed", &b)) ||
      (rc = etk_cm_int32(op, 3, "rhs_zero_point", &b_off)) ||
      (rc = etk_cm_int32(op, 4, "output_zero_point", &out_off)) ||
      (rc = etk_cm_int32(op, 5, "output_multiplier", &mult)) ||
      (rc = etk_cm_shift(op, 6, "output_shift", &shift)) ||
      (rc = etk_op_tensor(op, 8, "out", &out)) ||
      (rc = etk_cm_check_int8(op, a, "lhs")) ||
      (rc = etk_cm_check_int8(op, b, "rhs_transposed")) ||
      (rc = etk_cm_check_int8(op, out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  if (a->dim != 3 || b->dim != 3 || a->sizes[0] != b->sizes[0] ||
      a->sizes[2] != b->sizes[2])
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "lhs [B, M, K] and rhs_transposed [B, N, K] disagree");
  osz[0] = a->sizes[0];
  osz[1] = a->sizes[1];
  osz[2] = b->sizes[1];
  if ((rc = etk_op_resize(op, out, "out", 3, osz))) return rc;
  etk_tensor_dense_strides(a, as);
  etk_tensor_dense_strides(b, bs);
  etk_tensor_dense_strides(out, os);
  for (int64_t n = 0; n < osz[0]; n++)
    for (int64_t i = 0; i < osz[1]; i++)
      for (int64_t j = 0; j < osz[2]; j++) {
        const int8_t *pa = (const int8_t *)a->data + n * as[0] + i * as[1];
        const int8_t *pb = (const int8_t *)b->data + n * bs[0] + j * bs[1];
        uint32_t acc = 0;
        int32_t y;
        for (int64_t k = 0; k < a->sizes[2]; k++)
          acc = etk_cm_mac(acc, pa[k * as[2]], a_off,
                           etk_cm_wrap32((int64_t)pb[k * bs[2]] + b_off));
        y = etk_cm_requantize(etk_cm_acc(acc), mult, shift);
        y = etk_cm_clamp(etk_cm_wrap32((int64_t)y + out_off), -128, 127);
        ((int8_t *)out->data)[n * os[0] + i * os[1] + j * os[2]] = (int8_t)y;
      }
  return ETK_OK;
}
