/*
 * norm.c - normalisation layers: native_layer_norm.out and
 * _native_batch_norm_legit_no_training.out (inference batch norm).
 *
 * Layer norm normalises each "row" - the trailing dims named by
 * normalized_shape - to zero mean and unit variance:
 *   mean = sum(x) / N,  var = sum((x - mean)^2) / N  (biased, two passes),
 *   rstd = 1 / sqrt(var + eps),  y = (x - mean) * rstd * weight + bias.
 * mean_out and rstd_out keep the input's rank with the normalised dims set
 * to 1, as in PyTorch and ExecuTorch.  A row of zero elements gives mean 0
 * and rstd NaN (ExecuTorch's convention).
 *
 * Batch norm without training uses the running statistics per channel
 * (dim 1): y = (x - running_mean[c]) / sqrt(running_var[c] + eps) * w[c] +
 * b[c].  Its mean/invstd outputs are empty ([0]) in this overload.
 *
 * Layout: rows and the elements within them are walked by multi-index
 * through each tensor's own strides, so any dim order works for input and
 * out (ExecuTorch's portable kernels require the default order here; this
 * one does not).  Statistics accumulate in double.
 */
#include "kernel_list.h"
#include "kernel_util.h"

/* native_layer_norm.out(Tensor input, SymInt[] normalized_shape,
 *   Tensor? weight, Tensor? bias, float eps, *, Tensor(a!) out,
 *   Tensor(b!) mean_out, Tensor(c!) rstd_out) */
ETK_KERNEL_DEFINE(native_layer_norm_out, "aten::native_layer_norm.out") {
  etk_tensor_t *in, *wt, *bias, *out, *mean_t, *rstd_t;
  int64_t norm_shape[ETK_MAX_DIMS], stat_sz[ETK_MAX_DIMS];
  size_t m;
  double eps;
  int32_t lead;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 11))) return rc;
  if ((rc = etk_op_tensor(op, 0, "input", &in))) return rc;
  if ((rc = etk_op_tensor_opt(op, 2, "weight", &wt))) return rc;
  if ((rc = etk_op_tensor_opt(op, 3, "bias", &bias))) return rc;
  if ((rc = etk_op_double(op, 4, "eps", &eps))) return rc;
  if ((rc = etk_op_tensor(op, 5, "out", &out))) return rc;
  if ((rc = etk_op_tensor(op, 6, "mean_out", &mean_t))) return rc;
  if ((rc = etk_op_tensor(op, 7, "rstd_out", &rstd_t))) return rc;
  if ((rc = etk_op_check_dtype(op, in, "input", ETK_DTYPES_FLOAT))) return rc;
  if ((rc = etk_op_check_same_dtype(op, in, "input", out, "out")) ||
      (rc = etk_op_check_same_dtype(op, in, "input", mean_t, "mean_out")) ||
      (rc = etk_op_check_same_dtype(op, in, "input", rstd_t, "rstd_out")) ||
      (wt && (rc = etk_op_check_same_dtype(op, in, "input", wt, "weight"))) ||
      (bias && (rc = etk_op_check_same_dtype(op, in, "input", bias, "bias"))))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = etk_op_int_list(op, 1, "normalized_shape", norm_shape, ETK_MAX_DIMS,
                            &m)))
    return rc;
  if (m < 1 || (int32_t)m > in->dim)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "normalized_shape has %zu dims, input has %d", m,
                       (int)in->dim);
  lead = in->dim - (int32_t)m;
  for (size_t k = 0; k < m; k++)
    if (in->sizes[lead + (int32_t)k] != norm_shape[k]) {
      char a[96], b[96];
      int64_t isz[ETK_MAX_DIMS];
      etk_tensor_sizes64(in, isz);
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "normalized_shape %s does not match the trailing dims "
                         "of input %s",
                         etk_sizes_format(a, sizeof a, (int32_t)m, norm_shape),
                         etk_sizes_format(b, sizeof b, in->dim, isz));
    }
  for (int pass = 0; pass < 2; pass++) {
    const etk_tensor_t *t = pass ? bias : wt;
    bool ok = true;
    if (!t) continue;
    ok = t->dim == (int32_t)m;
    for (size_t k = 0; ok && k < m; k++) ok = t->sizes[k] == norm_shape[k];
    if (!ok)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "%s must have shape normalized_shape",
                         pass ? "bias" : "weight");
  }
  if ((rc = etk_op_resize_like(op, out, "out", in))) return rc;
  etk_tensor_sizes64(in, stat_sz);
  for (int32_t d = lead; d < in->dim; d++) stat_sz[d] = 1;
  if ((rc = etk_op_resize(op, mean_t, "mean_out", in->dim, stat_sz)) ||
      (rc = etk_op_resize(op, rstd_t, "rstd_out", in->dim, stat_sz)))
    return rc;
  {
    etk_view_t vi, vo, vm, vr, vw, vb;
    int64_t rstr[4][ETK_MAX_DIMS], estr[4][ETK_MAX_DIMS];
    int64_t count = etk_sizes_numel((int32_t)m, norm_shape);
    etk_walk_t rows;
    etk_view_init(&vi, in);
    etk_view_init(&vo, out);
    etk_view_init(&vm, mean_t);
    etk_view_init(&vr, rstd_t);
    memset(&vw, 0, sizeof vw);
    memset(&vb, 0, sizeof vb);
    if (wt) etk_view_init(&vw, wt);
    if (bias) etk_view_init(&vb, bias);
    /* row walk over the leading dims: input, out, mean, rstd offsets */
    for (int32_t d = 0; d < lead; d++) {
      rstr[0][d] = vi.strides[d];
      rstr[1][d] = vo.strides[d];
      rstr[2][d] = vm.strides[d];
      rstr[3][d] = vr.strides[d];
    }
    /* element walk over the normalised dims: input, out, weight, bias */
    for (size_t k = 0; k < m; k++) {
      int32_t d = lead + (int32_t)k;
      estr[0][k] = vi.strides[d];
      estr[1][k] = vo.strides[d];
      estr[2][k] = wt ? vw.strides[k] : 0;
      estr[3][k] = bias ? vb.strides[k] : 0;
    }
    etk_walk_init(&rows, lead, vi.sizes, 4, rstr, NULL);
    for (int64_t r = 0; r < rows.rows; r++, etk_walk_next_row(&rows))
      for (int64_t rj = 0; rj < rows.inner; rj++) {
        int64_t base[4] = {rows.off[0] + rj * rows.inner_stride[0],
                           rows.off[1] + rj * rows.inner_stride[1], 0, 0};
        int64_t moff = rows.off[2] + rj * rows.inner_stride[2];
        int64_t roff = rows.off[3] + rj * rows.inner_stride[3];
        double sum = 0.0, sq = 0.0, mean, rstd;
        etk_walk_t e;
        if (count == 0) {
          etk_store_f64(vm.dtype, vm.data, moff, 0.0);
          etk_store_f64(vr.dtype, vr.data, roff, NAN);
          continue;
        }
        etk_walk_init(&e, (int32_t)m, norm_shape, 4, estr, base);
        for (int64_t er = 0; er < e.rows; er++, etk_walk_next_row(&e))
          for (int64_t j = 0; j < e.inner; j++)
            sum += ((const float *)vi.data)[e.off[0] + j * e.inner_stride[0]];
        mean = sum / (double)count;
        etk_walk_init(&e, (int32_t)m, norm_shape, 4, estr, base);
        for (int64_t er = 0; er < e.rows; er++, etk_walk_next_row(&e))
          for (int64_t j = 0; j < e.inner; j++) {
            double dx =
                ((const float *)vi.data)[e.off[0] + j * e.inner_stride[0]] -
                mean;
            sq += dx * dx;
          }
        rstd = 1.0 / sqrt(sq / (double)count + eps);
        etk_walk_init(&e, (int32_t)m, norm_shape, 4, estr, base);
        for (int64_t er = 0; er < e.rows; er++, etk_walk_next_row(&e))
          for (int64_t j = 0; j < e.inner; j++) {
            double x =
                ((const float *)vi.data)[e.off[0] + j * e.inner_stride[0]];
            double y = (x - mean) * rstd;
            if (wt)
              y *= ((const float *)vw.data)[e.off[2] + j * e.inner_stride[2]];
            if (bias)
              y += ((const float *)vb.data)[e.off[3] + j * e.inner_stride[3]];
            ((float *)vo.data)[e.off[1] + j * e.inner_stride[1]] = (float)y;
          }
        etk_store_f64(vm.dtype, vm.data, moff, mean);
        etk_store_f64(vr.dtype, vr.data, roff, rstd);
      }
  }
  return ETK_OK;
}

/* _native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight,
 *   Tensor? bias, Tensor running_mean, Tensor running_var, float momentum,
 *   float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) */
ETK_KERNEL_DEFINE(native_batch_norm_legit_no_training_out,
                  "aten::_native_batch_norm_legit_no_training.out") {
  etk_tensor_t *in, *wt, *bias, *rmean, *rvar, *out, *mean_t, *invstd_t;
  double momentum, eps;
  int64_t c_count;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 13))) return rc;
  if ((rc = etk_op_tensor(op, 0, "input", &in))) return rc;
  if ((rc = etk_op_tensor_opt(op, 1, "weight", &wt))) return rc;
  if ((rc = etk_op_tensor_opt(op, 2, "bias", &bias))) return rc;
  if ((rc = etk_op_tensor(op, 3, "running_mean", &rmean))) return rc;
  if ((rc = etk_op_tensor(op, 4, "running_var", &rvar))) return rc;
  if ((rc = etk_op_double(op, 5, "momentum", &momentum))) return rc;
  if ((rc = etk_op_double(op, 6, "eps", &eps))) return rc;
  if ((rc = etk_op_tensor(op, 7, "out", &out))) return rc;
  if ((rc = etk_op_tensor(op, 8, "mean_out", &mean_t))) return rc;
  if ((rc = etk_op_tensor(op, 9, "invstd_out", &invstd_t))) return rc;
  if ((rc = etk_op_check_dtype(op, in, "input", ETK_DTYPES_FLOAT))) return rc;
  if ((rc = etk_op_check_same_dtype(op, in, "input", out, "out")) ||
      (rc = etk_op_check_same_dtype(op, in, "input", rmean, "running_mean")) ||
      (rc = etk_op_check_same_dtype(op, in, "input", rvar, "running_var")) ||
      (wt && (rc = etk_op_check_same_dtype(op, in, "input", wt, "weight"))) ||
      (bias && (rc = etk_op_check_same_dtype(op, in, "input", bias, "bias"))))
    return rc;
  if (op->checking) return ETK_OK;
  (void)momentum;
  if (in->dim < 2)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input must have at least 2 dims (N, C, ...), got %d",
                       (int)in->dim);
  c_count = in->sizes[1];
  {
    const etk_tensor_t *per_channel[4] = {rmean, rvar, wt, bias};
    const char *names[4] = {"running_mean", "running_var", "weight", "bias"};
    for (int k = 0; k < 4; k++) {
      const etk_tensor_t *t = per_channel[k];
      if (t && (t->dim != 1 || t->sizes[0] != c_count))
        return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                           "%s must be 1-D with %lld elements", names[k],
                           (long long)c_count);
    }
  }
  if ((rc = etk_op_resize_like(op, out, "out", in))) return rc;
  {
    int64_t empty[1] = {0};
    if ((rc = etk_op_resize(op, mean_t, "mean_out", 1, empty)) ||
        (rc = etk_op_resize(op, invstd_t, "invstd_out", 1, empty)))
      return rc;
  }
  {
    etk_view_t vi, vo, vm, vv, vw, vb;
    int64_t strides[2][ETK_MAX_DIMS];
    etk_walk_t w;
    etk_view_init(&vi, in);
    etk_view_init(&vo, out);
    etk_view_init(&vm, rmean);
    etk_view_init(&vv, rvar);
    if (wt) etk_view_init(&vw, wt);
    if (bias) etk_view_init(&vb, bias);
    memcpy(strides[0], vi.strides, sizeof strides[0]);
    memcpy(strides[1], vo.strides, sizeof strides[1]);
    /* channel innermost: each row is one (n, spatial) position across C */
    etk_walk_init_axis(&w, vi.dim, vi.sizes, 2, strides, 1);
    for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w))
      for (int64_t c = 0; c < w.inner; c++) {
        double mean = ((const float *)vm.data)[c * vm.strides[0]];
        double var = ((const float *)vv.data)[c * vv.strides[0]];
        double scale = 1.0 / sqrt(var + eps);
        double x = ((const float *)vi.data)[w.off[0] + c * w.inner_stride[0]];
        double y = (x - mean) * scale;
        if (wt) y *= ((const float *)vw.data)[c * vw.strides[0]];
        if (bias) y += ((const float *)vb.data)[c * vb.strides[0]];
        ((float *)vo.data)[w.off[1] + c * w.inner_stride[1]] = (float)y;
      }
  }
  return ETK_OK;
}
