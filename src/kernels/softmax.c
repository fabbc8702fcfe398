/*
 * softmax.c - softmax and log-softmax along one dim (_softmax.out,
 * _log_softmax.out and the softmax.int_out / log_softmax.int_out forms).
 *
 * Each line along `dim` is normalised independently:
 *   softmax(x)_i     = exp(x_i - m) / sum_j exp(x_j - m)
 *   log_softmax(x)_i = x_i - m - log(sum_j exp(x_j - m))
 * with m the line's maximum, which keeps exp() from overflowing and does not
 * change the result.  A NaN anywhere in a line makes the whole line NaN, as
 * in PyTorch.  Sums are accumulated in double.
 *
 * Layout: the walk moves `dim` innermost for both tensors and uses each
 * tensor's own strides, so in and out may have different dim orders.  A
 * 0-dim tensor is one line of one element (dim must be 0 or -1).
 */
#include "kernel_list.h"
#include "kernel_util.h"

static int softmax_run(etk_op_t *op, bool log_form, bool has_dtype_arg) {
  etk_tensor_t *in, *out;
  int64_t dim;
  int32_t axis;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 5))) return rc;
  if ((rc = etk_op_tensor(op, 0, "self", &in))) return rc;
  if ((rc = etk_op_int(op, 1, "dim", &dim))) return rc;
  if (has_dtype_arg) {
    int64_t dtype;
    bool present;
    if ((rc = etk_op_int_opt(op, 2, "dtype", &dtype, &present))) return rc;
    if ((rc = etk_op_tensor(op, 3, "out", &out))) return rc;
    if (present && dtype != out->scalar_type)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "dtype %s does not match out dtype %s",
                         etk_scalar_type_name((int)dtype),
                         etk_scalar_type_name(out->scalar_type));
  } else {
    bool half_to_float;
    if ((rc = etk_op_bool(op, 2, "half_to_float", &half_to_float))) return rc;
    if ((rc = etk_op_tensor(op, 3, "out", &out))) return rc;
    if (half_to_float)
      return etk_op_fail(op, ETK_E_UNSUPPORTED,
                         "half_to_float is only meaningful for HALF input");
  }
  if ((rc = etk_op_check_dtype(op, in, "self",
                               ETK_DTYPES_FLOAT | ETK_DTYPE_BIT(ETK_DOUBLE))))
    return rc;
  if ((rc = etk_op_check_dtype(op, out, "out",
                               ETK_DTYPES_FLOAT | ETK_DTYPE_BIT(ETK_DOUBLE))))
    return rc;
  if (!has_dtype_arg &&
      (rc = etk_op_check_same_dtype(op, in, "self", out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = etk_op_wrap_dim(op, dim, in->dim, "dim", &axis))) return rc;
  if ((rc = etk_op_resize_like(op, out, "out", in))) return rc;
  {
    etk_view_t vi, vo;
    const etk_view_t *views[2] = {&vi, &vo};
    etk_walk_t w;
    etk_view_init(&vi, in);
    etk_view_init(&vo, out);
    etk_walk_init_views(&w, 2, views, axis);
    for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w)) {
      double m = -INFINITY, sum = 0.0, shift;
      for (int64_t j = 0; j < w.inner; j++) {
        double x =
            etk_load_f64(vi.dtype, vi.data, w.off[0] + j * w.inner_stride[0]);
        if (x != x || x > m) m = x;
        if (m != m) break;
      }
      /* a line of -inf would give (-inf) - (-inf) = NaN; PyTorch's result
       * there is NaN too, so no special case beyond letting it through */
      for (int64_t j = 0; j < w.inner; j++)
        sum += exp(
            etk_load_f64(vi.dtype, vi.data, w.off[0] + j * w.inner_stride[0]) -
            m);
      shift = m + log(sum);
      for (int64_t j = 0; j < w.inner; j++) {
        double x =
            etk_load_f64(vi.dtype, vi.data, w.off[0] + j * w.inner_stride[0]);
        double y = log_form ? x - shift : exp(x - m) / sum;
        etk_store_f64(vo.dtype, vo.data, w.off[1] + j * w.inner_stride[1], y);
      }
    }
  }
  return ETK_OK;
}

/* _softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(softmax_internal_out, "aten::_softmax.out") {
  return softmax_run(op, false, false);
}
/* _log_softmax.out(Tensor self, int dim, bool half_to_float, *, out) */
ETK_KERNEL_DEFINE(log_softmax_internal_out, "aten::_log_softmax.out") {
  return softmax_run(op, true, false);
}
/* softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, out) */
ETK_KERNEL_DEFINE(softmax_int_out, "aten::softmax.int_out") {
  return softmax_run(op, false, true);
}
/* log_softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, out) */
ETK_KERNEL_DEFINE(log_softmax_int_out, "aten::log_softmax.int_out") {
  return softmax_run(op, true, true);
}
