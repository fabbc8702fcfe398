/*
 * fill_ops.c - tensors made from a single value: full.out, zeros.out,
 * ones.out, full_like.out, fill.Scalar_out and scalar_tensor.out.
 *
 * The output's size comes from the `size` argument (or from `self` for the
 * *_like/fill forms) and must match the planned output (etk_tensor_resize).
 * The value is converted to the output dtype the way PyTorch's fill does:
 * a Double into an integer tensor truncates toward zero, anything into a
 * bool tensor becomes `value != 0`.  Any basic dtype is supported; filling
 * goes through the output's own strides, although with a single value the
 * dim order cannot matter for the result.
 */
#include "kernel_list.h"
#include "kernel_util.h"

static int fill_sized(etk_op_t *op, etk_tensor_t *out, int32_t dim,
                      const int64_t *size, const etk_scalar_t *value) {
  etk_view_t vo;
  int rc;
  for (int32_t d = 0; d < dim; d++)
    if (size[d] < 0)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "size %lld at dim %d is negative", (long long)size[d],
                         (int)d);
  if ((rc = etk_op_resize(op, out, "out", dim, size))) return rc;
  etk_view_init(&vo, out);
  etk_view_fill(&vo, value);
  return ETK_OK;
}

/* Checks out's dtype, then (once past the checking pass) fills it with the
 * shape of the size list at argument 0 (full, zeros, ones). */
static int fill_to_size(etk_op_t *op, etk_tensor_t *out,
                        const etk_scalar_t *value) {
  int64_t size[ETK_MAX_DIMS];
  size_t n;
  int rc;
  if ((rc = etk_op_check_dtype(op, out, "out", ETK_DTYPES_BASIC)) ||
      op->checking)
    return rc;
  if ((rc = etk_op_int_list(op, 0, "size", size, ETK_MAX_DIMS, &n))) return rc;
  return fill_sized(op, out, (int32_t)n, size, value);
}

/* full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(full_out, "aten::full.out") {
  etk_tensor_t *out;
  etk_scalar_t value;
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_LATER("size"),
      ETK_ARG_SCALAR("fill_value", &value),
      ETK_ARG_TENSOR("out", &out),
  };
  if ((rc = etk_op_read_args(op, 4, args, ETK_ARG_COUNT(args)))) return rc;
  return fill_to_size(op, out, &value);
}

static int zeros_or_ones(etk_op_t *op, int64_t v) {
  etk_tensor_t *out;
  etk_scalar_t value;
  int rc;
  const etk_arg_t args[] = {ETK_ARG_LATER("size"), ETK_ARG_TENSOR("out", &out)};
  memset(&value, 0, sizeof value);
  value.i = v;
  value.d = (double)v;
  if ((rc = etk_op_read_args(op, 3, args, ETK_ARG_COUNT(args)))) return rc;
  return fill_to_size(op, out, &value);
}

/* zeros.out(SymInt[] size, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(zeros_out, "aten::zeros.out") {
  return zeros_or_ones(op, 0);
}
/* ones.out(SymInt[] size, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(ones_out, "aten::ones.out") {
  return zeros_or_ones(op, 1);
}

/* Fills `out` shaped like self: self at 0, value at 1, out at out_at. */
static int fill_like(etk_op_t *op, size_t nargs, size_t out_at) {
  etk_tensor_t *in, *out;
  int64_t size[ETK_MAX_DIMS];
  etk_scalar_t value;
  int rc;
  const etk_arg_t args[] = {ETK_ARG_TENSOR("self", &in),
                            ETK_ARG_SCALAR("value", &value)};
  if ((rc = etk_op_read_args(op, nargs, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = etk_op_tensor(op, out_at, "out", &out))) return rc;
  if ((rc = etk_op_check_dtype(op, out, "out", ETK_DTYPES_BASIC)) ||
      op->checking)
    return rc;
  etk_tensor_sizes64(in, size);
  return fill_sized(op, out, in->dim, size, &value);
}

/* full_like.out(Tensor self, Scalar fill_value, *,
 *   MemoryFormat? memory_format=None, Tensor(a!) out) */
ETK_KERNEL_DEFINE(full_like_out, "aten::full_like.out") {
  return fill_like(op, 5, 3);
}
/* fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(fill_scalar_out, "aten::fill.Scalar_out") {
  return fill_like(op, 4, 2);
}

/* scalar_tensor.out(Scalar s, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(scalar_tensor_out, "aten::scalar_tensor.out") {
  etk_tensor_t *out;
  etk_scalar_t value;
  int rc;
  const etk_arg_t args[] = {ETK_ARG_SCALAR("s", &value),
                            ETK_ARG_TENSOR("out", &out)};
  if ((rc = etk_op_read_args(op, 3, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = etk_op_check_dtype(op, out, "out", ETK_DTYPES_BASIC)) ||
      op->checking)
    return rc;
  return fill_sized(op, out, 0, NULL, &value);
}
