/*
 * quant_ops.c - per-tensor affine quantization as the quantizer's
 * decomposed ops define it: quantized_decomposed::quantize_per_tensor.out
 * and quantized_decomposed::dequantize_per_tensor.out.
 *
 * Upstream's Cortex-M backend has its own pair, cortex_m::quantize_per_tensor
 * and cortex_m::dequantize_per_tensor (same schemas): the same formulas
 * with the reciprocal taken in float, 1.0f / (float)scale, as its kernel
 * does, on FLOAT and int8/int16 tensors only.
 *
 * quantize: q = clamp(round_half_even(x * inv_scale) + zero_point,
 * quant_min, quant_max), with inv_scale = 1 / scale rounded to float and
 * the product taken in float, exactly as PyTorch's decomposition
 * (`torch.round(input * (1.0 / scale))`) and ExecuTorch's portable kernel
 * compute it; the result is stored in out's integer dtype.
 * dequantize: x = (q - zero_point) * scale in float, into a FLOAT out.
 *
 * Layout: one walk over input and out with their own strides (any dim
 * order).  Inputs: FLOAT (or DOUBLE) for quantize; BYTE, CHAR, SHORT or
 * INT for dequantize; out's dtype must be the `dtype` argument (quantize)
 * or FLOAT/DOUBLE (dequantize).  quant_min <= quant_max is required.
 */
#include "kernel_list.h"
#include "kernel_util.h"

#define QUANT_INT_DTYPES                               \
  (ETK_DTYPE_BIT(ETK_BYTE) | ETK_DTYPE_BIT(ETK_CHAR) | \
   ETK_DTYPE_BIT(ETK_SHORT) | ETK_DTYPE_BIT(ETK_INT) | \
   ETK_DTYPE_BIT(ETK_BITS16) | ETK_DTYPE_BIT(ETK_UINT16))

typedef struct quant_params {
  double scale;
  int64_t zero_point, qmin, qmax, dtype;
} quant_params_t;

/* Reads scale, zero_point, quant_min, quant_max and dtype (args 1..5). */
static int quant_read(etk_op_t *op, quant_params_t *q) {
  int rc;
  if ((rc = etk_op_double(op, 1, "scale", &q->scale)) ||
      (rc = etk_op_int(op, 2, "zero_point", &q->zero_point)) ||
      (rc = etk_op_int(op, 3, "quant_min", &q->qmin)) ||
      (rc = etk_op_int(op, 4, "quant_max", &q->qmax)) ||
      (rc = etk_op_int(op, 5, "dtype", &q->dtype)))
    return rc;
  if (q->qmin > q->qmax)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "quant_min %lld is above quant_max %lld",
                       (long long)q->qmin, (long long)q->qmax);
  return ETK_OK;
}

/* The walk over in and out (operand 0 out, 1 in), after resizing out. */
static int quant_walk(etk_op_t *op, etk_tensor_t *in, etk_tensor_t *out,
                      etk_view_t *vi, etk_view_t *vo, etk_walk_t *w) {
  const etk_view_t *views[2] = {vo, vi};
  int rc = etk_op_resize_like(op, out, "out", in);
  if (rc) return rc;
  etk_view_init(vi, in);
  etk_view_init(vo, out);
  etk_walk_init_views(w, 2, views, -1);
  return ETK_OK;
}

static int64_t load_quant(int dtype, const void *data, int64_t off) {
  if (dtype == ETK_BITS16 || dtype == ETK_UINT16)
    return ((const uint16_t *)data)[off];
  return etk_load_i64(dtype, data, off);
}

/* quantize_per_tensor.out(Tensor input, float scale, int zero_point,
 *   int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
 * `cmsis`: upstream's Cortex-M kernel, which takes the reciprocal in float
 * (1.0f / (float)scale) and accepts FLOAT input and CHAR/SHORT out only. */
static int quantize_body(etk_op_t *op, bool cmsis) {
  etk_tensor_t *in, *out;
  quant_params_t q;
  etk_view_t vi, vo;
  etk_walk_t w;
  float inv;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 8)) ||
      (rc = etk_op_tensor(op, 0, "input", &in)) ||
      (rc = etk_op_tensor(op, 6, "out", &out)) || (rc = quant_read(op, &q)))
    return rc;
  if ((rc = etk_op_check_dtype(op, in, "input",
                               ETK_DTYPE_BIT(ETK_FLOAT) |
                                   (cmsis ? 0u : ETK_DTYPE_BIT(ETK_DOUBLE)))) ||
      (rc = etk_op_check_dtype(
           op, out, "out",
           cmsis ? ETK_DTYPE_BIT(ETK_CHAR) | ETK_DTYPE_BIT(ETK_SHORT)
                 : QUANT_INT_DTYPES)))
    return rc;
  if (out->scalar_type != q.dtype)
    return etk_op_fail(
        op, ETK_E_INVALID_ARGUMENT, "out dtype %s differs from dtype %lld",
        etk_scalar_type_name(out->scalar_type), (long long)q.dtype);
  if (op->checking) return ETK_OK;
  if ((rc = quant_walk(op, in, out, &vi, &vo, &w))) return rc;
  inv = cmsis ? 1.0f / (float)q.scale : (float)(1.0 / q.scale);
  for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w))
    for (int64_t j = 0; j < w.inner; j++) {
      float x = (float)etk_load_f64(vi.dtype, vi.data,
                                    w.off[1] + j * w.inner_stride[1]);
      float prod = x * inv;
      double v = (double)nearbyintf(prod);
      int64_t qv;
      if (v != v) v = 0.0;
      v += (double)q.zero_point;
      if (v < (double)q.qmin) v = (double)q.qmin;
      if (v > (double)q.qmax) v = (double)q.qmax;
      qv = (int64_t)v;
      if (vo.dtype == ETK_BITS16 || vo.dtype == ETK_UINT16)
        ((uint16_t *)vo.data)[w.off[0] + j * w.inner_stride[0]] = (uint16_t)qv;
      else
        etk_store_i64(vo.dtype, vo.data, w.off[0] + j * w.inner_stride[0], qv);
    }
  return ETK_OK;
}

ETK_KERNEL_DEFINE(quantize_per_tensor_out,
                  "quantized_decomposed::quantize_per_tensor.out") {
  return quantize_body(op, false);
}

ETK_KERNEL_DEFINE(cm_quantize_per_tensor_out,
                  "cortex_m::quantize_per_tensor.out") {
  return quantize_body(op, true);
}

/* dequantize_per_tensor.out(Tensor input, float scale, int zero_point,
 *   int quant_min, int quant_max, ScalarType dtype, *,
 *   [ScalarType? out_dtype=None,] Tensor(a!) out) */
static int dequantize_body(etk_op_t *op, bool cmsis) {
  etk_tensor_t *in, *out;
  quant_params_t q;
  etk_view_t vi, vo;
  etk_walk_t w;
  size_t out_at = op->nargs == 9 && !cmsis ? 7 : 6;
  float scale;
  int rc;
  if (op->nargs != 8 && (op->nargs != 9 || cmsis))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "expected 8 or 9 arguments, got %zu", op->nargs);
  if ((rc = etk_op_tensor(op, 0, "input", &in)) ||
      (rc = etk_op_tensor(op, out_at, "out", &out)) ||
      (rc = quant_read(op, &q)))
    return rc;
  if ((rc = etk_op_check_dtype(
           op, in, "input",
           cmsis ? ETK_DTYPE_BIT(ETK_CHAR) | ETK_DTYPE_BIT(ETK_SHORT)
                 : QUANT_INT_DTYPES)) ||
      (rc = etk_op_check_dtype(op, out, "out",
                               ETK_DTYPE_BIT(ETK_FLOAT) |
                                   (cmsis ? 0u : ETK_DTYPE_BIT(ETK_DOUBLE)))))
    return rc;
  if (in->scalar_type != q.dtype)
    return etk_op_fail(
        op, ETK_E_INVALID_ARGUMENT, "input dtype %s differs from dtype %lld",
        etk_scalar_type_name(in->scalar_type), (long long)q.dtype);
  if (op->checking) return ETK_OK;
  if ((rc = quant_walk(op, in, out, &vi, &vo, &w))) return rc;
  scale = (float)q.scale;
  for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w))
    for (int64_t j = 0; j < w.inner; j++) {
      int64_t v =
          load_quant(vi.dtype, vi.data, w.off[1] + j * w.inner_stride[1]);
      float d = (float)(v - q.zero_point) * scale;
      etk_store_f64(vo.dtype, vo.data, w.off[0] + j * w.inner_stride[0], d);
    }
  return ETK_OK;
}

ETK_KERNEL_DEFINE(dequantize_per_tensor_out,
                  "quantized_decomposed::dequantize_per_tensor.out") {
  return dequantize_body(op, false);
}

ETK_KERNEL_DEFINE(cm_dequantize_per_tensor_out,
                  "cortex_m::dequantize_per_tensor.out") {
  return dequantize_body(op, true);
}
