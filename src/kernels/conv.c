/*
 * conv.c - aten::convolution.out: 1-D and 2-D convolution, grouped and
 * depthwise, with stride, padding, dilation and optional bias, plus the
 * transposed ("deconvolution") form with output_padding.
 *
 * Data layout: input [N, C_in, H, W] (or [N, C_in, L] for 1-D, handled as
 * H = 1), weight [C_out, C_in/groups, kH, kW] for the direct form and
 * [C_in, C_out/groups, kH, kW] for the transposed form, bias [C_out], out
 * [N, C_out, OH, OW].  Every access goes through the tensor's own strides
 * (derived from its dim_order), so channels-last inputs, weights and outputs
 * need no repacking and no scratch memory.
 *
 * Both forms are computed as a gather: each output element sums its
 * receptive field directly, in double, starting from the bias.  The
 * common case - a direct convolution with unit width stride, input rows
 * and output planes contiguous - instead accumulates whole output rows in
 * float, one weight at a time (out_row += w * in_row, a loop the compiler
 * vectorises), as PyTorch's CPU kernels accumulate in float: results
 * differ from the double gather in the last bits only.  For the
 * transposed form an input position contributes to output oh when
 * oh + pad - kh * dilation is a non-negative multiple of the stride; the
 * gather avoids zero-filling and scattering into the output.
 *
 * Output sizes follow PyTorch:
 *   direct:     (H + 2p - d(k-1) - 1) / s + 1          (floor)
 *   transposed: (H - 1)s - 2p + d(k-1) + output_padding + 1
 * and a computed size below 1 is an error, as is a channel count that the
 * groups do not divide.
 */
#include "kernel_list.h"
#include "kernel_util.h"

/* A conv argument list (stride, padding, ...) of 1 or `spatial` items. */
static int read_pair(etk_op_t *op, size_t i, const char *what, int spatial,
                     int64_t min, int64_t *out) {
  int64_t items[ETK_MAX_DIMS];
  size_t n;
  int rc = etk_op_int_list(op, i, what, items, ETK_MAX_DIMS, &n);
  if (rc) return rc;
  if (n != 1 && n != (size_t)spatial)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "%s must have 1 or %d items, got %zu", what, spatial, n);
  for (int k = 0; k < spatial; k++) {
    out[k] = items[n == 1 ? 0 : k];
    if (out[k] < min)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "%s must be >= %lld, got %lld", what, (long long)min,
                         (long long)out[k]);
  }
  return ETK_OK;
}

/* in + 2 * pad - dil * (k - 1) - 1 (the direct form's span before the
 * stride), in checked arithmetic: stride, padding and dilation come from the
 * program file. */
static int direct_span(int64_t in, int64_t pad, int64_t dil, int64_t k,
                       int64_t *out) {
  int64_t twice_pad, reach, span;
  if (etk_checked_mul_i64(pad, 2, &twice_pad) ||
      etk_checked_mul_i64(dil, k - 1, &reach) ||
      etk_checked_add_i64(in, twice_pad, &span) ||
      etk_checked_sub_i64(span, reach, &span) ||
      etk_checked_sub_i64(span, 1, out))
    return ETK_E_OVERFLOW;
  return ETK_OK;
}

/* (in - 1) * stride - 2 * pad + dil * (k - 1) + output_padding + 1, the
 * transposed form's output size, in checked arithmetic. */
static int transposed_size(int64_t in, int64_t stride, int64_t pad, int64_t dil,
                           int64_t k, int64_t opad, int64_t *out) {
  int64_t size, twice_pad, reach;
  if (etk_checked_mul_i64(in - 1, stride, &size) ||
      etk_checked_mul_i64(pad, 2, &twice_pad) ||
      etk_checked_mul_i64(dil, k - 1, &reach) ||
      etk_checked_sub_i64(size, twice_pad, &size) ||
      etk_checked_add_i64(size, reach, &size) ||
      etk_checked_add_i64(size, opad, &size) ||
      etk_checked_add_i64(size, 1, out))
    return ETK_E_OVERFLOW;
  return ETK_OK;
}

typedef struct conv_geom {
  int64_t n, cin, h, w; /* input */
  int64_t cout, kh, kw; /* weight */
  int64_t oh, ow;       /* output */
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t groups;
  /* strides of the 4-D views (1-D tensors get a unit H dim) */
  int64_t is[4], ws[4], os[4];
} conv_geom_t;

/* Strides of a 3-D or 4-D view as 4-D [n, c, h, w]. */
static void strides4(const etk_view_t *v, int64_t *s) {
  if (v->dim == 4) {
    memcpy(s, v->strides, 4 * sizeof *s);
  } else {
    s[0] = v->strides[0];
    s[1] = v->strides[1];
    s[2] = 0;
    s[3] = v->strides[2];
  }
}

static void conv_direct(const conv_geom_t *g, const float *in, const float *wt,
                        const float *bias, int64_t bias_stride, float *out) {
  int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t oc = 0; oc < g->cout; oc++) {
      int64_t grp = oc / cout_g;
      const float *wo = wt + oc * g->ws[0];
      const float *ib = in + n * g->is[0] + grp * cin_g * g->is[1];
      for (int64_t oh = 0; oh < g->oh; oh++)
        for (int64_t ow = 0; ow < g->ow; ow++) {
          double acc = bias ? bias[oc * bias_stride] : 0.0;
          for (int64_t ic = 0; ic < cin_g; ic++)
            for (int64_t kh = 0; kh < g->kh; kh++) {
              int64_t ih = oh * g->sh - g->ph + kh * g->dh;
              if (ih < 0 || ih >= g->h) continue;
              for (int64_t kw = 0; kw < g->kw; kw++) {
                int64_t iw = ow * g->sw - g->pw + kw * g->dw;
                if (iw < 0 || iw >= g->w) continue;
                acc +=
                    (double)ib[ic * g->is[1] + ih * g->is[2] + iw * g->is[3]] *
                    wo[ic * g->ws[1] + kh * g->ws[2] + kw * g->ws[3]];
              }
            }
          out[n * g->os[0] + oc * g->os[1] + oh * g->os[2] + ow * g->os[3]] =
              (float)acc;
        }
    }
}

/* conv_direct for unit width stride, contiguous input rows (is[3] == 1)
 * and contiguous output planes (os[3] == 1, os[2] == ow): rows of the
 * output plane accumulate w * input row, one weight at a time. */
static void conv_direct_rows(const conv_geom_t *g, const float *in,
                             const float *wt, const float *bias,
                             int64_t bias_stride, float *out) {
  int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t oc = 0; oc < g->cout; oc++) {
      const float *wo = wt + oc * g->ws[0];
      const float *ib = in + n * g->is[0] + (oc / cout_g) * cin_g * g->is[1];
      float *plane = out + n * g->os[0] + oc * g->os[1];
      float b = bias ? bias[oc * bias_stride] : 0.0f;
      for (int64_t k = 0; k < g->oh * g->ow; k++) plane[k] = b;
      for (int64_t ic = 0; ic < cin_g; ic++)
        for (int64_t kh = 0; kh < g->kh; kh++)
          for (int64_t kw = 0; kw < g->kw; kw++) {
            float w = wo[ic * g->ws[1] + kh * g->ws[2] + kw * g->ws[3]];
            int64_t shift = kw * g->dw - g->pw; /* iw = ow + shift */
            int64_t lo = shift < 0 ? -shift : 0;
            int64_t hi = g->w - shift < g->ow ? g->w - shift : g->ow;
            for (int64_t oh = 0; oh < g->oh; oh++) {
              int64_t ih = oh * g->sh - g->ph + kh * g->dh;
              const float *irow;
              float *orow = plane + oh * g->ow;
              if (ih < 0 || ih >= g->h) continue;
              irow = ib + ic * g->is[1] + ih * g->is[2] + shift;
              for (int64_t ow = lo; ow < hi; ow++) orow[ow] += w * irow[ow];
            }
          }
    }
}

static void conv_transposed(const conv_geom_t *g, const float *in,
                            const float *wt, const float *bias,
                            int64_t bias_stride, float *out) {
  int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t oc = 0; oc < g->cout; oc++) {
      int64_t grp = oc / cout_g, ocg = oc % cout_g;
      for (int64_t oh = 0; oh < g->oh; oh++)
        for (int64_t ow = 0; ow < g->ow; ow++) {
          double acc = bias ? bias[oc * bias_stride] : 0.0;
          for (int64_t icg = 0; icg < cin_g; icg++) {
            int64_t ic = grp * cin_g + icg;
            for (int64_t kh = 0; kh < g->kh; kh++) {
              int64_t th = oh + g->ph - kh * g->dh, ih;
              if (th < 0 || th % g->sh != 0) continue;
              ih = th / g->sh;
              if (ih >= g->h) continue;
              for (int64_t kw = 0; kw < g->kw; kw++) {
                int64_t tw = ow + g->pw - kw * g->dw, iw;
                if (tw < 0 || tw % g->sw != 0) continue;
                iw = tw / g->sw;
                if (iw >= g->w) continue;
                acc += (double)in[n * g->is[0] + ic * g->is[1] + ih * g->is[2] +
                                  iw * g->is[3]] *
                       wt[ic * g->ws[0] + ocg * g->ws[1] + kh * g->ws[2] +
                          kw * g->ws[3]];
              }
            }
          }
          out[n * g->os[0] + oc * g->os[1] + oh * g->os[2] + ow * g->os[3]] =
              (float)acc;
        }
    }
}

/* The direct form's output size, after checking its channel counts. */
static int conv_direct_geom(etk_op_t *op, const etk_tensor_t *wt,
                            conv_geom_t *g) {
  int64_t span_h, span_w;
  g->cout = wt->sizes[0];
  if (g->cout % g->groups != 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "output channels %lld not divisible by groups %lld",
                       (long long)g->cout, (long long)g->groups);
  if (wt->sizes[1] != g->cin / g->groups)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "weight has %d input channels per group, expected %lld",
                       (int)wt->sizes[1], (long long)(g->cin / g->groups));
  if (direct_span(g->h, g->ph, g->dh, g->kh, &span_h) != ETK_OK ||
      direct_span(g->w, g->pw, g->dw, g->kw, &span_w) != ETK_OK)
    return etk_op_fail(op, ETK_E_OVERFLOW,
                       "padding or dilation too large (the output size "
                       "overflows)");
  /* PyTorch rejects a kernel larger than the padded input rather than
   * producing an empty output */
  if (span_h < 0 || span_w < 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "kernel larger than the padded input");
  g->oh = span_h / g->sh + 1;
  g->ow = span_w / g->sw + 1;
  return ETK_OK;
}

/* The transposed form's output size (opad: output_padding of H and W),
 * after checking its channel counts. */
static int conv_transposed_geom(etk_op_t *op, const etk_tensor_t *wt,
                                const int64_t *opad, conv_geom_t *g) {
  if (wt->sizes[0] != g->cin)
    return etk_op_fail(
        op, ETK_E_INVALID_ARGUMENT,
        "transposed weight has %d input channels, input has %lld",
        (int)wt->sizes[0], (long long)g->cin);
  g->cout = wt->sizes[1] * g->groups;
  if ((opad[0] >= g->sh && opad[0] >= g->dh) ||
      (opad[1] >= g->sw && opad[1] >= g->dw))
    return etk_op_fail(
        op, ETK_E_INVALID_ARGUMENT,
        "output_padding must be smaller than stride or dilation");
  if (transposed_size(g->h, g->sh, g->ph, g->dh, g->kh, opad[0], &g->oh) !=
          ETK_OK ||
      transposed_size(g->w, g->sw, g->pw, g->dw, g->kw, opad[1], &g->ow) !=
          ETK_OK)
    return etk_op_fail(op, ETK_E_OVERFLOW,
                       "stride, padding or dilation too large (the output "
                       "size overflows)");
  if (g->oh < 1 || g->ow < 1)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "computed output size is below 1");
  return ETK_OK;
}

/* Checks the ranks, reads the list arguments (stride, padding, dilation,
 * output_padding) and fills g from them, groups and the shapes, including
 * the output size of the direct or transposed form. */
static int conv_geometry(etk_op_t *op, const etk_tensor_t *in,
                         const etk_tensor_t *wt, int64_t groups,
                         bool transposed, conv_geom_t *g) {
  int64_t stride[2], pad[2], dil[2], opad[2], opad_hw[2];
  int spatial, rc;
  if (in->dim != 3 && in->dim != 4)
    return etk_op_fail(op, ETK_E_UNSUPPORTED,
                       "input must be 3-D or 4-D (1-D or 2-D convolution), got "
                       "%d dims",
                       (int)in->dim);
  if (wt->dim != in->dim)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "weight has %d dims, input has %d", (int)wt->dim,
                       (int)in->dim);
  spatial = in->dim - 2;
  if ((rc = read_pair(op, 3, "stride", spatial, 1, stride))) return rc;
  if ((rc = read_pair(op, 4, "padding", spatial, 0, pad))) return rc;
  if ((rc = read_pair(op, 5, "dilation", spatial, 1, dil))) return rc;
  if ((rc = read_pair(op, 7, "output_padding", spatial, 0, opad))) return rc;
  if (groups < 1)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "groups must be >= 1, got %lld", (long long)groups);

  memset(g, 0, sizeof *g);
  g->groups = groups;
  g->n = in->sizes[0];
  g->cin = in->sizes[1];
  g->h = spatial == 2 ? in->sizes[2] : 1;
  g->w = in->sizes[in->dim - 1];
  g->kh = spatial == 2 ? wt->sizes[2] : 1;
  g->kw = wt->sizes[wt->dim - 1];
  g->sh = spatial == 2 ? stride[0] : 1;
  g->sw = stride[spatial - 1];
  g->ph = spatial == 2 ? pad[0] : 0;
  g->pw = pad[spatial - 1];
  g->dh = spatial == 2 ? dil[0] : 1;
  g->dw = dil[spatial - 1];
  if (g->kh < 1 || g->kw < 1)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "weight has an empty kernel");
  if (g->cin % groups != 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input channels %lld not divisible by groups %lld",
                       (long long)g->cin, (long long)groups);
  if (!transposed) return conv_direct_geom(op, wt, g);
  /* a 1-D convolution has no H padding to add (its H is the unit dim) */
  opad_hw[0] = spatial == 2 ? opad[0] : 0;
  opad_hw[1] = opad[spatial - 1];
  return conv_transposed_geom(op, wt, opad_hw, g);
}

/* Runs the direct or transposed form once g is complete and out sized. */
static void conv_compute(conv_geom_t *g, const etk_tensor_t *in,
                         const etk_tensor_t *wt, const etk_tensor_t *bias,
                         const etk_tensor_t *out, bool transposed) {
  etk_view_t vi, vw, vo, vb;
  const float *bias_data = NULL;
  int64_t bias_stride = 0;
  etk_view_init(&vi, in);
  etk_view_init(&vw, wt);
  etk_view_init(&vo, out);
  strides4(&vi, g->is);
  strides4(&vw, g->ws);
  strides4(&vo, g->os);
  if (bias) {
    etk_view_init(&vb, bias);
    bias_data = (const float *)vb.data;
    bias_stride = vb.strides[0];
  }
  if (transposed)
    conv_transposed(g, (const float *)vi.data, (const float *)vw.data,
                    bias_data, bias_stride, (float *)vo.data);
  else if (g->sw == 1 && g->is[3] == 1 && g->os[3] == 1 && g->os[2] == g->ow)
    conv_direct_rows(g, (const float *)vi.data, (const float *)vw.data,
                     bias_data, bias_stride, (float *)vo.data);
  else
    conv_direct(g, (const float *)vi.data, (const float *)vw.data, bias_data,
                bias_stride, (float *)vo.data);
}

/* convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
 *   SymInt[] padding, SymInt[] dilation, bool transposed,
 *   SymInt[] output_padding, SymInt groups, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(convolution_out, "aten::convolution.out") {
  etk_tensor_t *in, *wt, *bias, *out;
  bool transposed;
  int64_t groups;
  int rc;
  conv_geom_t g;
  const etk_arg_t args[] = {ETK_ARG_TENSOR("input", &in),
                            ETK_ARG_TENSOR("weight", &wt),
                            ETK_ARG_TENSOR_OPT("bias", &bias),
                            ETK_ARG_LATER("stride"),
                            ETK_ARG_LATER("padding"),
                            ETK_ARG_LATER("dilation"),
                            ETK_ARG_BOOL("transposed", &transposed),
                            ETK_ARG_LATER("output_padding"),
                            ETK_ARG_INT("groups", &groups),
                            ETK_ARG_TENSOR("out", &out)};
  if ((rc = etk_op_read_args(op, 11, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = etk_op_check_dtype(op, in, "input", ETK_DTYPES_FLOAT))) return rc;
  if ((rc = etk_op_check_dtype(op, wt, "weight", ETK_DTYPES_FLOAT))) return rc;
  if (bias && (rc = etk_op_check_dtype(op, bias, "bias", ETK_DTYPES_FLOAT)))
    return rc;
  if ((rc = etk_op_check_dtype(op, out, "out", ETK_DTYPES_FLOAT))) return rc;
  if (op->checking) return ETK_OK;

  if ((rc = conv_geometry(op, in, wt, groups, transposed, &g))) return rc;
  if (bias && (bias->dim != 1 || bias->sizes[0] != g.cout))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "bias must be 1-D with %lld elements",
                       (long long)g.cout);
  {
    int64_t osz[4] = {g.n, g.cout, g.oh, g.ow};
    if (in->dim == 3) osz[2] = g.ow;
    if ((rc = etk_op_resize(op, out, "out", in->dim, osz))) return rc;
  }
  if (g.n == 0 || g.cout == 0) return ETK_OK;
  conv_compute(&g, in, wt, bias, out, transposed);
  return ETK_OK;
}
