/*
 * cortex_m_pool.c - the int8 pooling and data-movement kernels of upstream's
 * Cortex-M backend: cortex_m::quantized_avg_pool2d, quantized_max_pool2d,
 * pad and transpose (all `.out`), as CMSIS-NN's arm_avgpool_s8,
 * arm_max_pool_s8, arm_pad_s8 and arm_transpose_s8 compute them.
 *
 * Average pooling sums the window's int8 values that lie inside the input
 * (padding is not counted) and divides by their count rounding half away
 * from zero ((sum +- count/2) / count in C's truncating division); its
 * zero_point, multiplier and shift arguments are not read by CMSIS-NN's
 * kernel and are not read here.  Max pooling takes the window's largest
 * value and clamps it to the activation range; input and output zero
 * points must be equal (the op is a max of raw values), dilation 1 and no
 * ceil mode, as upstream's kernel requires.
 *
 * pad's pre_pad/post_pad lists are in CMSIS-NN's physical order (N, H, W,
 * C for a channels-last tensor, else the logical order right-aligned to
 * four dims), exactly as upstream's exporter writes them; the kernel maps
 * them back to logical dims with upstream's rule for "channels last" (a
 * 4-D tensor with dim order 0,2,3,1, or C = 1, or H = W = 1).
 *
 * All tensors are read and written through their own dim order's strides.
 */
#include "cortex_m.h"
#include "kernel_list.h"

typedef struct cm_pool {
  etk_tensor_t *in, *out;
  int64_t k[2], s[2], p[2], is[4], os[4];
  int32_t act_min, act_max;
} cm_pool_t;

/* upstream's pooling_output_size (ceil mode drops a last window that
 * would start in the padding). */
static int64_t pool_size(int64_t in, int64_t k, int64_t s, int64_t p,
                         bool ceil_mode) {
  int64_t num = in + 2 * p - k, o;
  if (num < 0) return -1;
  o = num / s + 1;
  if (ceil_mode && num % s != 0) o++;
  if (ceil_mode && (o - 1) * s >= in + p) o--;
  return o;
}

/* Reads kernel_size, stride, padding (args 1..3), sizes out and takes the
 * strides. */
static int pool_setup(etk_op_t *op, cm_pool_t *g, bool ceil_mode) {
  int64_t osz[4];
  int rc;
  if ((rc = etk_cm_pair(op, 1, "kernel_size", 1, g->k)) ||
      (rc = etk_cm_pair(op, 2, "stride", 1, g->s)) ||
      (rc = etk_cm_pair(op, 3, "padding", 0, g->p)))
    return rc;
  if (g->in->dim != 4)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input must be 4-D, got %d dims", (int)g->in->dim);
  if (g->p[0] >= g->k[0] || g->p[1] >= g->k[1])
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "padding must be smaller than the kernel");
  osz[0] = g->in->sizes[0];
  osz[1] = g->in->sizes[1];
  osz[2] = pool_size(g->in->sizes[2], g->k[0], g->s[0], g->p[0], ceil_mode);
  osz[3] = pool_size(g->in->sizes[3], g->k[1], g->s[1], g->p[1], ceil_mode);
  if (osz[2] < 1 || osz[3] < 1)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "the kernel is larger than the padded input");
  if ((rc = etk_op_resize(op, g->out, "out", 4, osz))) return rc;
  etk_tensor_dense_strides(g->in, g->is);
  etk_tensor_dense_strides(g->out, g->os);
  return ETK_OK;
}

/* Average (max_pool false) or maximum of one window. */
static int32_t pool_window(const cm_pool_t *g, int64_t n, int64_t c, int64_t y,
                           int64_t x, bool max_pool) {
  const int8_t *in = g->in->data;
  int32_t sum = 0, count = 0, best = INT32_MIN;
  for (int64_t iy = y * g->s[0] - g->p[0]; iy < y * g->s[0] - g->p[0] + g->k[0];
       iy++)
    for (int64_t ix = x * g->s[1] - g->p[1];
         ix < x * g->s[1] - g->p[1] + g->k[1]; ix++) {
      int32_t v;
      if (iy < 0 || ix < 0 || iy >= g->in->sizes[2] || ix >= g->in->sizes[3])
        continue;
      v = in[n * g->is[0] + c * g->is[1] + iy * g->is[2] + ix * g->is[3]];
      sum += v;
      count++;
      if (v > best) best = v;
    }
  if (max_pool || count == 0) return best;
  return (sum > 0 ? sum + count / 2 : sum - count / 2) / count;
}

static void pool_run(const cm_pool_t *g, bool max_pool) {
  for (int64_t n = 0; n < g->out->sizes[0]; n++)
    for (int64_t c = 0; c < g->out->sizes[1]; c++)
      for (int64_t y = 0; y < g->out->sizes[2]; y++)
        for (int64_t x = 0; x < g->out->sizes[3]; x++) {
          int32_t v = pool_window(g, n, c, y, x, max_pool);
          ((int8_t *)g->out->data)[n * g->os[0] + c * g->os[1] + y * g->os[2] +
                                   x * g->os[3]] =
              (int8_t)etk_cm_clamp(v, g->act_min, g->act_max);
        }
}

/* quantized_avg_pool2d.out(Tensor input, int[] kernel_size, int[] stride,
 *   int[] padding, bool ceil_mode, int zero_point, int multiplier,
 *   int shift, Tensor scratch, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_quantized_avg_pool2d_out,
                  "cortex_m::quantized_avg_pool2d.out") {
  cm_pool_t g;
  bool ceil_mode;
  int64_t unused;
  int rc;
  memset(&g, 0, sizeof g);
  if ((rc = etk_op_expect_nargs(op, 11)) ||
      (rc = etk_op_tensor(op, 0, "input", &g.in)) ||
      (rc = etk_op_bool(op, 4, "ceil_mode", &ceil_mode)) ||
      (rc = etk_op_int(op, 5, "zero_point", &unused)) ||
      (rc = etk_op_int(op, 6, "multiplier", &unused)) ||
      (rc = etk_op_int(op, 7, "shift", &unused)) ||
      (rc = etk_op_tensor(op, 9, "out", &g.out)) ||
      (rc = etk_cm_check_int8(op, g.in, "input")) ||
      (rc = etk_cm_check_int8(op, g.out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = pool_setup(op, &g, ceil_mode))) return rc;
  g.act_min = -128;
  g.act_max = 127;
  pool_run(&g, false);
  return ETK_OK;
}

/* quantized_max_pool2d.out(Tensor input, int[] kernel_size, int[] stride,
 *   int[] padding, int[] dilation, bool ceil_mode, int input_zero_point,
 *   int output_zero_point, int activation_min, int activation_max, *,
 *   Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_quantized_max_pool2d_out,
                  "cortex_m::quantized_max_pool2d.out") {
  cm_pool_t g;
  bool ceil_mode;
  int64_t dil[2], in_zp, out_zp;
  int rc;
  memset(&g, 0, sizeof g);
  if ((rc = etk_op_expect_nargs(op, 12)) ||
      (rc = etk_op_tensor(op, 0, "input", &g.in)) ||
      (rc = etk_op_bool(op, 5, "ceil_mode", &ceil_mode)) ||
      (rc = etk_op_int(op, 6, "input_zero_point", &in_zp)) ||
      (rc = etk_op_int(op, 7, "output_zero_point", &out_zp)) ||
      (rc = etk_cm_int32(op, 8, "activation_min", &g.act_min)) ||
      (rc = etk_cm_int32(op, 9, "activation_max", &g.act_max)) ||
      (rc = etk_op_tensor(op, 10, "out", &g.out)) ||
      (rc = etk_cm_check_int8(op, g.in, "input")) ||
      (rc = etk_cm_check_int8(op, g.out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = etk_cm_pair(op, 4, "dilation", 1, dil))) return rc;
  if (dil[0] != 1 || dil[1] != 1 || ceil_mode)
    return etk_op_fail(op, ETK_E_UNSUPPORTED,
                       "only dilation 1 without ceil_mode is supported");
  if (in_zp != out_zp)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input_zero_point %lld and output_zero_point %lld "
                       "must be equal",
                       (long long)in_zp, (long long)out_zp);
  if ((rc = pool_setup(op, &g, false))) return rc;
  pool_run(&g, true);
  return ETK_OK;
}

/* upstream's is_channels_last_tensor */
static bool cm_channels_last(const etk_tensor_t *t) {
  static const uint8_t order[4] = {0, 2, 3, 1};
  if (t->dim != 4) return false;
  if (t->sizes[1] == 1 || (t->sizes[2] == 1 && t->sizes[3] == 1)) return true;
  return memcmp(t->dim_order, order, 4) == 0;
}

/* An odometer step over `dim` sizes; false after the last index. */
static bool next_index(int32_t dim, const int64_t *sizes, int64_t *idx) {
  for (int32_t d = dim - 1; d >= 0; d--) {
    if (++idx[d] < sizes[d]) return true;
    idx[d] = 0;
  }
  return false;
}

/* pad.out(Tensor input, int[] pre_pad, int[] post_pad, int pad_value, *,
 *   Tensor(a!) out) */
ETK_KERNEL_DEFINE(cm_pad_out, "cortex_m::pad.out") {
  static const int inv_nhwc[4] = {0, 3, 1, 2};
  etk_tensor_t *in, *out;
  int64_t pre_p[ETK_MAX_DIMS], post_p[ETK_MAX_DIMS], pre[4], osz[4];
  int64_t is[4], os[4], idx[4] = {0, 0, 0, 0}, value;
  size_t npre, npost;
  int32_t r;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 6)) ||
      (rc = etk_op_tensor(op, 0, "input", &in)) ||
      (rc = etk_op_int(op, 3, "pad_value", &value)) ||
      (rc = etk_op_tensor(op, 4, "out", &out)) ||
      (rc = etk_cm_check_int8(op, in, "input")) ||
      (rc = etk_cm_check_int8(op, out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = etk_op_int_list(op, 1, "pre_pad", pre_p, ETK_MAX_DIMS, &npre)) ||
      (rc = etk_op_int_list(op, 2, "post_pad", post_p, ETK_MAX_DIMS, &npost)))
    return rc;
  r = in->dim;
  if (r < 1 || r > 4 || npre != 4 || npost != 4 || value < -128 || value > 127)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "needs a 1-D to 4-D input, 4-item pre_pad and post_pad "
                       "and an int8 pad_value");
  for (int32_t d = 0; d < r; d++) {
    int src = cm_channels_last(in) ? inv_nhwc[d] : 4 - r + d;
    if (pre_p[src] < 0 || post_p[src] < 0 ||
        pre_p[src] + post_p[src] > INT32_MAX - in->sizes[d])
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "padding must be >= 0 and keep sizes in int32");
    pre[d] = pre_p[src];
    osz[d] = in->sizes[d] + pre_p[src] + post_p[src];
  }
  if ((rc = etk_op_resize(op, out, "out", r, osz))) return rc;
  if (etk_tensor_numel(out) == 0) return ETK_OK;
  etk_tensor_dense_strides(in, is);
  etk_tensor_dense_strides(out, os);
  do {
    int64_t at = 0, from = 0;
    bool inside = true;
    for (int32_t d = 0; d < r; d++) {
      int64_t src = idx[d] - pre[d];
      at += idx[d] * os[d];
      if (src < 0 || src >= in->sizes[d]) inside = false;
      from += src * is[d];
    }
    ((int8_t *)out->data)[at] =
        inside ? ((const int8_t *)in->data)[from] : (int8_t)value;
  } while (next_index(r, osz, idx));
  return ETK_OK;
}

/* transpose.out(Tensor input, int[] perm, *, Tensor(a!) out):
 * out[j] = input[i] with i[perm[d]] = j[d] (out = input.permute(perm)). */
ETK_KERNEL_DEFINE(cm_transpose_out, "cortex_m::transpose.out") {
  etk_tensor_t *in, *out;
  int64_t perm[ETK_MAX_DIMS], osz[ETK_MAX_DIMS];
  etk_view_t vi, vp, vo;
  size_t n;
  unsigned seen = 0;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 4)) ||
      (rc = etk_op_tensor(op, 0, "input", &in)) ||
      (rc = etk_op_tensor(op, 2, "out", &out)) ||
      (rc = etk_cm_check_int8(op, in, "input")) ||
      (rc = etk_cm_check_int8(op, out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = etk_op_int_list(op, 1, "perm", perm, ETK_MAX_DIMS, &n))) return rc;
  if (in->dim < 1 || in->dim > 4 || n != (size_t)in->dim)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "perm must have one item per dim of a 1-D to 4-D input");
  for (size_t d = 0; d < n; d++) {
    if (perm[d] < 0 || perm[d] >= in->dim || (seen & (1u << perm[d])))
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "perm is not a permutation of the input's dims");
    seen |= 1u << perm[d];
    osz[d] = in->sizes[perm[d]];
  }
  if ((rc = etk_op_resize(op, out, "out", in->dim, osz))) return rc;
  etk_view_init(&vi, in);
  vp = vi;
  for (size_t d = 0; d < n; d++) {
    vp.sizes[d] = vi.sizes[perm[d]];
    vp.strides[d] = vi.strides[perm[d]];
  }
  etk_view_init(&vo, out);
  etk_view_copy(&vo, &vp);
  return ETK_OK;
}
