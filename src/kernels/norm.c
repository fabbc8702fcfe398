/*
 * norm.c - normalisation layers: native_layer_norm.out,
 * _native_batch_norm_legit_no_training.out (inference batch norm) and
 * native_group_norm.out.
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
 * Group norm splits the C channels of an (N, C, *) input into `group`
 * groups and normalises each (n, group) block of C/group * HxW elements
 * like a layer norm row (biased variance), then applies the per-channel
 * weight and bias; mean and rstd come out as (N, group).  It needs the
 * contiguous (default) dim order for input and out, which is what the
 * interpreter and the runtime's memory plans give it.
 *
 * Layout: rows and the elements within them are walked by multi-index
 * through each tensor's own strides, so any dim order works for input and
 * out (ExecuTorch's portable kernels require the default order here; this
 * one does not).  Statistics accumulate in double.
 */
#include "kernel_list.h"
#include "kernel_util.h"

/* Both norms: input is FLOAT and the five other tensors (the last two,
 * weight and bias, optional: NULL when absent) have its dtype. */
static int norm_check_dtypes(etk_op_t *op, const etk_tensor_t *in,
                             const etk_tensor_t *const *same,
                             const char *const *names) {
  int rc;
  if ((rc = etk_op_check_dtype(op, in, "input", ETK_DTYPES_FLOAT))) return rc;
  for (int k = 0; k < 5; k++)
    if (same[k] &&
        (rc = etk_op_check_same_dtype(op, in, "input", same[k], names[k])))
      return rc;
  return ETK_OK;
}

/* The views and walk strides of one layer norm: rows over the leading dims
 * (input, out, mean, rstd offsets) and elements over the normalised dims
 * (input, out, weight, bias offsets). */
typedef struct layer_norm_plan {
  etk_view_t vi, vo, vm, vr, vw, vb;
  int32_t lead, m;
  int64_t count; /* elements per row */
  const int64_t *norm_shape;
  int64_t rstr[4][ETK_MAX_DIMS], estr[4][ETK_MAX_DIMS];
  bool has_weight, has_bias;
  double eps;
} layer_norm_plan_t;

/* Checks normalized_shape (m dims) against the input's trailing dims and
 * the shapes of weight and bias. */
static int layer_norm_check_shapes(etk_op_t *op, const etk_tensor_t *in,
                                   const etk_tensor_t *wt,
                                   const etk_tensor_t *bias,
                                   const int64_t *norm_shape, size_t m) {
  int32_t lead;
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
  return ETK_OK;
}

/* Views of the six tensors and the strides of both walks. */
static void layer_norm_plan(layer_norm_plan_t *p, const etk_tensor_t *in,
                            const etk_tensor_t *const *others) {
  memset(&p->vw, 0, sizeof p->vw);
  memset(&p->vb, 0, sizeof p->vb);
  etk_view_init(&p->vi, in);
  etk_view_init(&p->vo, others[0]);
  etk_view_init(&p->vm, others[1]);
  etk_view_init(&p->vr, others[2]);
  if (p->has_weight) etk_view_init(&p->vw, others[3]);
  if (p->has_bias) etk_view_init(&p->vb, others[4]);
  for (int32_t d = 0; d < p->lead; d++) {
    p->rstr[0][d] = p->vi.strides[d];
    p->rstr[1][d] = p->vo.strides[d];
    p->rstr[2][d] = p->vm.strides[d];
    p->rstr[3][d] = p->vr.strides[d];
  }
  for (int32_t k = 0; k < p->m; k++) {
    int32_t d = p->lead + k;
    p->estr[0][k] = p->vi.strides[d];
    p->estr[1][k] = p->vo.strides[d];
    p->estr[2][k] = p->has_weight ? p->vw.strides[k] : 0;
    p->estr[3][k] = p->has_bias ? p->vb.strides[k] : 0;
  }
}

/* Input element j of the current row of element walk e. */
static double layer_norm_x(const layer_norm_plan_t *p, const etk_walk_t *e,
                           int64_t j) {
  return ((const float *)p->vi.data)[e->off[0] + j * e->inner_stride[0]];
}

/* One row starting at offsets base (input, out): mean, rstd, then the
 * normalised values; returns mean and rstd for the statistics outputs. */
static void layer_norm_row(const layer_norm_plan_t *p, const int64_t *base,
                           double *mean_out, double *rstd_out) {
  double sum = 0.0, sq = 0.0, mean, rstd;
  int64_t estr[4][ETK_MAX_DIMS];
  etk_walk_t e;
  memcpy(estr, p->estr, sizeof estr);
  etk_walk_init(&e, p->m, p->norm_shape, 4, estr, base);
  for (int64_t er = 0; er < e.rows; er++, etk_walk_next_row(&e))
    for (int64_t j = 0; j < e.inner; j++) sum += layer_norm_x(p, &e, j);
  mean = sum / (double)p->count;
  etk_walk_init(&e, p->m, p->norm_shape, 4, estr, base);
  for (int64_t er = 0; er < e.rows; er++, etk_walk_next_row(&e))
    for (int64_t j = 0; j < e.inner; j++) {
      double dx = layer_norm_x(p, &e, j) - mean;
      sq += dx * dx;
    }
  rstd = 1.0 / sqrt(sq / (double)p->count + p->eps);
  etk_walk_init(&e, p->m, p->norm_shape, 4, estr, base);
  for (int64_t er = 0; er < e.rows; er++, etk_walk_next_row(&e))
    for (int64_t j = 0; j < e.inner; j++) {
      double y = (layer_norm_x(p, &e, j) - mean) * rstd;
      if (p->has_weight)
        y *= ((const float *)p->vw.data)[e.off[2] + j * e.inner_stride[2]];
      if (p->has_bias)
        y += ((const float *)p->vb.data)[e.off[3] + j * e.inner_stride[3]];
      ((float *)p->vo.data)[e.off[1] + j * e.inner_stride[1]] = (float)y;
    }
  *mean_out = mean;
  *rstd_out = rstd;
}

/* Walks the rows of a planned layer norm. */
static void layer_norm_compute(layer_norm_plan_t *p) {
  etk_walk_t rows;
  etk_walk_init(&rows, p->lead, p->vi.sizes, 4, p->rstr, NULL);
  for (int64_t r = 0; r < rows.rows; r++, etk_walk_next_row(&rows))
    for (int64_t rj = 0; rj < rows.inner; rj++) {
      int64_t base[4] = {rows.off[0] + rj * rows.inner_stride[0],
                         rows.off[1] + rj * rows.inner_stride[1], 0, 0};
      int64_t moff = rows.off[2] + rj * rows.inner_stride[2];
      int64_t roff = rows.off[3] + rj * rows.inner_stride[3];
      double mean = 0.0, rstd = NAN;
      if (p->count != 0) layer_norm_row(p, base, &mean, &rstd);
      etk_store_f64(p->vm.dtype, p->vm.data, moff, mean);
      etk_store_f64(p->vr.dtype, p->vr.data, roff, rstd);
    }
}

/* native_layer_norm.out(Tensor input, SymInt[] normalized_shape,
 *   Tensor? weight, Tensor? bias, float eps, *, Tensor(a!) out,
 *   Tensor(b!) mean_out, Tensor(c!) rstd_out) */
ETK_KERNEL_DEFINE(native_layer_norm_out, "aten::native_layer_norm.out") {
  etk_tensor_t *in, *wt, *bias, *out, *mean_t, *rstd_t;
  int64_t norm_shape[ETK_MAX_DIMS], stat_sz[ETK_MAX_DIMS];
  size_t m;
  double eps;
  layer_norm_plan_t p;
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_TENSOR("input", &in),        ETK_ARG_LATER("normalized_shape"),
      ETK_ARG_TENSOR_OPT("weight", &wt),   ETK_ARG_TENSOR_OPT("bias", &bias),
      ETK_ARG_DOUBLE("eps", &eps),         ETK_ARG_TENSOR("out", &out),
      ETK_ARG_TENSOR("mean_out", &mean_t), ETK_ARG_TENSOR("rstd_out", &rstd_t),
  };
  if ((rc = etk_op_read_args(op, 11, args, ETK_ARG_COUNT(args)))) return rc;
  {
    const etk_tensor_t *same[5] = {out, mean_t, rstd_t, wt, bias};
    const char *names[5] = {"out", "mean_out", "rstd_out", "weight", "bias"};
    if ((rc = norm_check_dtypes(op, in, same, names))) return rc;
  }
  if (op->checking) return ETK_OK;
  if ((rc = etk_op_int_list(op, 1, "normalized_shape", norm_shape, ETK_MAX_DIMS,
                            &m)))
    return rc;
  if ((rc = layer_norm_check_shapes(op, in, wt, bias, norm_shape, m)))
    return rc;
  memset(&p, 0, sizeof p);
  p.m = (int32_t)m;
  p.lead = in->dim - p.m;
  if ((rc = etk_op_resize_like(op, out, "out", in))) return rc;
  etk_tensor_sizes64(in, stat_sz);
  for (int32_t d = p.lead; d < in->dim; d++) stat_sz[d] = 1;
  if ((rc = etk_op_resize(op, mean_t, "mean_out", in->dim, stat_sz)) ||
      (rc = etk_op_resize(op, rstd_t, "rstd_out", in->dim, stat_sz)))
    return rc;
  {
    const etk_tensor_t *others[5] = {out, mean_t, rstd_t, wt, bias};
    p.count = etk_sizes_numel(p.m, norm_shape);
    p.norm_shape = norm_shape;
    p.has_weight = wt != NULL;
    p.has_bias = bias != NULL;
    p.eps = eps;
    layer_norm_plan(&p, in, others);
    layer_norm_compute(&p);
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
  const etk_arg_t args[] = {ETK_ARG_TENSOR("input", &in),
                            ETK_ARG_TENSOR_OPT("weight", &wt),
                            ETK_ARG_TENSOR_OPT("bias", &bias),
                            ETK_ARG_TENSOR("running_mean", &rmean),
                            ETK_ARG_TENSOR("running_var", &rvar),
                            ETK_ARG_DOUBLE("momentum", &momentum),
                            ETK_ARG_DOUBLE("eps", &eps),
                            ETK_ARG_TENSOR("out", &out),
                            ETK_ARG_TENSOR("mean_out", &mean_t),
                            ETK_ARG_TENSOR("invstd_out", &invstd_t)};
  if ((rc = etk_op_read_args(op, 13, args, ETK_ARG_COUNT(args)))) return rc;
  {
    const etk_tensor_t *same[5] = {out, rmean, rvar, wt, bias};
    const char *names[5] = {"out", "running_mean", "running_var", "weight",
                            "bias"};
    if ((rc = norm_check_dtypes(op, in, same, names))) return rc;
  }
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
    const etk_view_t *views[2] = {&vi, &vo};
    etk_walk_t w;
    etk_view_init(&vi, in);
    etk_view_init(&vo, out);
    etk_view_init(&vm, rmean);
    etk_view_init(&vv, rvar);
    if (wt) etk_view_init(&vw, wt);
    if (bias) etk_view_init(&vb, bias);
    /* channel innermost: each row is one (n, spatial) position across C */
    etk_walk_init_views(&w, 2, views, 1);
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

/* Normalises the contiguous (n, g) blocks of group norm (FLOAT). */
static void group_norm_compute(const float *x, float *y, float *mean_o,
                               float *rstd_o, const etk_view_t *vw,
                               const etk_view_t *vb, int64_t n, int64_t c,
                               int64_t hxw, int64_t group, double eps) {
  int64_t cpg = c / group, block = cpg * hxw;
  for (int64_t b = 0; b < n * group; b++) {
    const float *xb = x + b * block;
    float *yb = y + b * block;
    double sum = 0.0, sq = 0.0, mean, rstd;
    for (int64_t k = 0; k < block; k++) sum += xb[k];
    mean = block ? sum / (double)block : 0.0;
    for (int64_t k = 0; k < block; k++) sq += (xb[k] - mean) * (xb[k] - mean);
    rstd = 1.0 / sqrt((block ? sq / (double)block : 0.0) + eps);
    mean_o[b] = (float)mean;
    rstd_o[b] = (float)rstd;
    for (int64_t ch = 0; ch < cpg; ch++) {
      int64_t cc = (b % group) * cpg + ch;
      double w = vw ? ((const float *)vw->data)[cc * vw->strides[0]] : 1.0;
      double bb = vb ? ((const float *)vb->data)[cc * vb->strides[0]] : 0.0;
      for (int64_t k = 0; k < hxw; k++) {
        int64_t at = ch * hxw + k;
        yb[at] = (float)((xb[at] - mean) * rstd * w + bb);
      }
    }
  }
}

/* native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias,
 *   SymInt N, SymInt C, SymInt HxW, int group, float eps, *,
 *   Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) */
ETK_KERNEL_DEFINE(native_group_norm_out, "aten::native_group_norm.out") {
  etk_tensor_t *in, *wt, *bias, *out, *mean_t, *rstd_t;
  int64_t n, c, hxw, group, stat[2];
  double eps;
  int rc;
  const etk_arg_t args[] = {ETK_ARG_TENSOR("input", &in),
                            ETK_ARG_TENSOR_OPT("weight", &wt),
                            ETK_ARG_TENSOR_OPT("bias", &bias),
                            ETK_ARG_INT("N", &n),
                            ETK_ARG_INT("C", &c),
                            ETK_ARG_INT("HxW", &hxw),
                            ETK_ARG_INT("group", &group),
                            ETK_ARG_DOUBLE("eps", &eps),
                            ETK_ARG_TENSOR("out", &out),
                            ETK_ARG_TENSOR("mean_out", &mean_t),
                            ETK_ARG_TENSOR("rstd_out", &rstd_t)};
  if ((rc = etk_op_read_args(op, 14, args, ETK_ARG_COUNT(args)))) return rc;
  {
    const etk_tensor_t *same[5] = {out, mean_t, rstd_t, wt, bias};
    const char *names[5] = {"out", "mean_out", "rstd_out", "weight", "bias"};
    if ((rc = norm_check_dtypes(op, in, same, names))) return rc;
  }
  if (op->checking) return ETK_OK;
  if (in->dim < 2 || group <= 0 || n < 0 || c <= 0 || hxw < 0 ||
      c % group != 0 || n != in->sizes[0] || c != in->sizes[1] ||
      (n > 0 && etk_tensor_numel(in) / (n * c) != hxw))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input of %d dims does not match N=%lld C=%lld "
                       "HxW=%lld group=%lld",
                       (int)in->dim, (long long)n, (long long)c, (long long)hxw,
                       (long long)group);
  if (!etk_tensor_is_contiguous(in) || !etk_tensor_is_contiguous(out))
    return etk_op_fail(op, ETK_E_UNSUPPORTED,
                       "input and out must use the default dim order");
  {
    const etk_tensor_t *per_channel[2] = {wt, bias};
    for (int k = 0; k < 2; k++)
      if (per_channel[k] &&
          (per_channel[k]->dim != 1 || per_channel[k]->sizes[0] != c))
        return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                           "%s must be 1-D with %lld elements",
                           k ? "bias" : "weight", (long long)c);
  }
  stat[0] = n;
  stat[1] = group;
  if ((rc = etk_op_resize_like(op, out, "out", in)) ||
      (rc = etk_op_resize(op, mean_t, "mean_out", 2, stat)) ||
      (rc = etk_op_resize(op, rstd_t, "rstd_out", 2, stat)))
    return rc;
  {
    etk_view_t vw, vb;
    if (wt) etk_view_init(&vw, wt);
    if (bias) etk_view_init(&vb, bias);
    group_norm_compute(in->data, out->data, mean_t->data, rstd_t->data,
                       wt ? &vw : NULL, bias ? &vb : NULL, n, c, hxw, group,
                       eps);
  }
  return ETK_OK;
}
