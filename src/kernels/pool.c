/*
 * pool.c - 2-D pooling: max_pool2d_with_indices.out, avg_pool2d.out and
 * adaptive average pooling (_adaptive_avg_pool2d.out, adaptive_avg_pool2d.out).
 *
 * Inputs are [C, H, W] or [N, C, H, W] in any dim order (accessed through
 * their strides; a 3-D input is walked as N = 1).  Outputs have the same
 * rank with H, W replaced by the pooled sizes and are written through their
 * own strides.
 *
 * Output size (max and avg, PyTorch's pooling_output_shape):
 *   o = floor_or_ceil((H + 2p - d(k-1) - 1) / s) + 1, and in ceil mode the
 *   last window is dropped when it would start inside the right padding,
 *   i.e. when (o-1)s >= H + p.
 * Padding may be at most half the kernel; every computed size must be >= 1.
 *
 * Max pooling takes NaN as the maximum (a NaN in a window wins, as in
 * PyTorch, whose index is then the last NaN's) and reports indices as int64
 * flat positions h * W + w within the input plane, the first maximum on ties.
 * Average pooling divides by divisor_override when given, else by the window
 * size clipped to the padded input (count_include_pad) or to the real input
 * (not counting padding).  Adaptive windows are [floor(o*H/OH),
 * ceil((o+1)*H/OH)).
 */
#include "kernel_list.h"
#include "kernel_util.h"

typedef struct pool_geom {
  int64_t n, c, h, w, oh, ow;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t is[4], os[4], xs[4]; /* input, out, indices strides as 4-D */
  /* average pooling's divisor rule */
  bool count_include_pad, has_divisor;
  int64_t divisor;
  etk_view_t in; /* set by pool_run */
} pool_geom_t;

/* The value of output (oh, ow) of the plane starting at input offset
 * `ibase`; max pooling also sets *index (its flat input position). */
typedef double (*pool_window_fn)(const pool_geom_t *g, int64_t ibase,
                                 int64_t oh, int64_t ow, int64_t *index);

static void pool_strides4(const etk_view_t *v, int64_t *s) {
  if (v->dim == 4) {
    memcpy(s, v->strides, 4 * sizeof *s);
  } else {
    s[0] = 0;
    memcpy(s + 1, v->strides, 3 * sizeof *s);
  }
}

/* Element offset of [n, c, h, w] under 4-D strides s. */
static int64_t pool_at(const int64_t *s, int64_t n, int64_t c, int64_t h,
                       int64_t w) {
  return n * s[0] + c * s[1] + h * s[2] + w * s[3];
}

/* self is Float or Double and out has its dtype (all pooling kernels). */
static int pool_check_dtypes(etk_op_t *op, etk_tensor_t *in,
                             etk_tensor_t *out) {
  int rc;
  if ((rc = etk_op_check_dtype(op, in, "self",
                               ETK_DTYPES_FLOAT | ETK_DTYPE_BIT(ETK_DOUBLE))))
    return rc;
  return etk_op_check_same_dtype(op, in, "self", out, "out");
}

/* Clears g and fills n, c, h, w from a 3-D or 4-D input. */
static int pool_input_geom(etk_op_t *op, const etk_tensor_t *in,
                           pool_geom_t *g) {
  if (in->dim != 3 && in->dim != 4)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input must be 3-D or 4-D, got %d dims", (int)in->dim);
  memset(g, 0, sizeof *g);
  g->n = in->dim == 4 ? in->sizes[0] : 1;
  g->c = in->sizes[in->dim - 3];
  g->h = in->sizes[in->dim - 2];
  g->w = in->sizes[in->dim - 1];
  return ETK_OK;
}

/* Resizes out (and indices when given) to the input's shape with H, W
 * replaced by g's oh, ow. */
static int pool_resize(etk_op_t *op, const etk_tensor_t *in, etk_tensor_t *out,
                       etk_tensor_t *indices, const pool_geom_t *g) {
  int64_t osz[4];
  int rc;
  for (int32_t i = 0; i < in->dim; i++) osz[i] = in->sizes[i];
  osz[in->dim - 2] = g->oh;
  osz[in->dim - 1] = g->ow;
  if ((rc = etk_op_resize(op, out, "out", in->dim, osz))) return rc;
  if (indices && (rc = etk_op_resize(op, indices, "indices", in->dim, osz)))
    return rc;
  return ETK_OK;
}

/* kernel_size/stride/padding/dilation: 1 or 2 items (stride may be empty,
 * meaning the kernel size). */
static int read_pool_pair(etk_op_t *op, size_t i, const char *what, int64_t min,
                          bool empty_ok, int64_t *out) {
  int64_t items[ETK_MAX_DIMS];
  size_t n;
  int rc = etk_op_int_list(op, i, what, items, ETK_MAX_DIMS, &n);
  if (rc) return rc;
  if (n == 0 && empty_ok) {
    out[0] = out[1] = -1;
    return ETK_OK;
  }
  if (n != 1 && n != 2)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "%s must have 1 or 2 items, got %zu", what, n);
  out[0] = items[0];
  out[1] = items[n - 1];
  if (out[0] < min || out[1] < min)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "%s must be >= %lld", what,
                       (long long)min);
  return ETK_OK;
}

/* kernel_size, stride and padding, arguments 1 to 3 of max and avg pooling */
static int read_pool_window(etk_op_t *op, int64_t *k, int64_t *s, int64_t *p) {
  int rc;
  if ((rc = read_pool_pair(op, 1, "kernel_size", 1, false, k))) return rc;
  if ((rc = read_pool_pair(op, 2, "stride", 1, true, s))) return rc;
  return read_pool_pair(op, 3, "padding", 0, false, p);
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

/* The pooled size into *out, in checked arithmetic (kernel, stride,
 * padding and dilation come from the program file). */
static int pooled_size(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d,
                       bool ceil_mode, int64_t *out) {
  int64_t twice_pad, reach, span, o, last, right;
  if (etk_checked_mul_i64(p, 2, &twice_pad) ||
      etk_checked_mul_i64(d, k - 1, &reach) ||
      etk_checked_add_i64(in, twice_pad, &span) ||
      etk_checked_sub_i64(span, reach, &span) ||
      etk_checked_sub_i64(span, 1, &span) ||
      etk_checked_add_i64(span, ceil_mode ? s - 1 : 0, &span))
    return ETK_E_OVERFLOW;
  o = floor_div(span, s) + 1;
  if (ceil_mode) {
    if (etk_checked_mul_i64(o - 1, s, &last) ||
        etk_checked_add_i64(in, p, &right))
      return ETK_E_OVERFLOW;
    if (last >= right) o--;
  }
  *out = o;
  return ETK_OK;
}

/* Shared front half of max and avg pooling: input, window arguments,
 * output geometry and resize of `out` (and `indices` when given). */
static int pool_setup(etk_op_t *op, etk_tensor_t *in, etk_tensor_t *out,
                      etk_tensor_t *indices, const int64_t *k,
                      const int64_t *s_in, const int64_t *p, const int64_t *d,
                      bool ceil_mode, pool_geom_t *g) {
  int64_t s[2] = {s_in[0] < 0 ? k[0] : s_in[0], s_in[0] < 0 ? k[1] : s_in[1]};
  int rc;
  if ((rc = pool_input_geom(op, in, g))) return rc;
  g->kh = k[0];
  g->kw = k[1];
  g->sh = s[0];
  g->sw = s[1];
  g->ph = p[0];
  g->pw = p[1];
  g->dh = d[0];
  g->dw = d[1];
  if (g->ph > g->kh / 2 || g->pw > g->kw / 2)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "padding must be at most half the kernel size");
  if (g->h == 0 || g->w == 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input has an empty spatial dim");
  if (pooled_size(g->h, g->kh, g->ph, g->sh, g->dh, ceil_mode, &g->oh) ||
      pooled_size(g->w, g->kw, g->pw, g->sw, g->dw, ceil_mode, &g->ow))
    return etk_op_fail(op, ETK_E_OVERFLOW,
                       "kernel size, stride, padding or dilation too large "
                       "(the output size overflows)");
  if (g->oh < 1 || g->ow < 1)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "output size %lldx%lld is too small", (long long)g->oh,
                       (long long)g->ow);
  return pool_resize(op, in, out, indices, g);
}

/* Runs `window` for every output element once g is complete and out (and
 * indices, when given) sized. */
static void pool_run(pool_geom_t *g, const etk_tensor_t *in,
                     const etk_tensor_t *out, const etk_tensor_t *indices,
                     pool_window_fn window) {
  etk_view_t vo, vx;
  etk_view_init(&g->in, in);
  etk_view_init(&vo, out);
  pool_strides4(&g->in, g->is);
  pool_strides4(&vo, g->os);
  if (indices) {
    etk_view_init(&vx, indices);
    pool_strides4(&vx, g->xs);
  }
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t c = 0; c < g->c; c++) {
      int64_t ibase = n * g->is[0] + c * g->is[1];
      for (int64_t oh = 0; oh < g->oh; oh++)
        for (int64_t ow = 0; ow < g->ow; ow++) {
          int64_t index = -1;
          double v = window(g, ibase, oh, ow, &index);
          etk_store_f64(vo.dtype, vo.data, pool_at(g->os, n, c, oh, ow), v);
          if (indices)
            ((int64_t *)vx.data)[pool_at(g->xs, n, c, oh, ow)] = index;
        }
    }
}

/* Input element (ih, iw) of the plane at ibase. */
static double pool_load(const pool_geom_t *g, int64_t ibase, int64_t ih,
                        int64_t iw) {
  return etk_load_f64(g->in.dtype, g->in.data,
                      ibase + ih * g->is[2] + iw * g->is[3]);
}

static double max_window(const pool_geom_t *g, int64_t ibase, int64_t oh,
                         int64_t ow, int64_t *index) {
  double best = -INFINITY;
  int64_t best_at = -1;
  for (int64_t kh = 0; kh < g->kh; kh++) {
    int64_t ih = oh * g->sh - g->ph + kh * g->dh;
    if (ih < 0 || ih >= g->h) continue;
    for (int64_t kw = 0; kw < g->kw; kw++) {
      int64_t iw = ow * g->sw - g->pw + kw * g->dw;
      double v;
      if (iw < 0 || iw >= g->w) continue;
      v = pool_load(g, ibase, ih, iw);
      /* the first in-bounds element seeds the index even if it is -inf;
       * any NaN takes over, the last one winning, as in PyTorch's CPU
       * kernel */
      if (best_at < 0 || v > best || v != v) {
        best = v;
        best_at = ih * g->w + iw;
      }
    }
  }
  *index = best_at;
  return best;
}

static double avg_window(const pool_geom_t *g, int64_t ibase, int64_t oh,
                         int64_t ow, int64_t *index) {
  int64_t h0 = oh * g->sh - g->ph, w0 = ow * g->sw - g->pw;
  int64_t h1 = h0 + g->kh, w1 = w0 + g->kw;
  int64_t padded_count, real_count;
  double sum = 0.0;
  (void)index;
  /* the window clipped to the padded input ... */
  if (h1 > g->h + g->ph) h1 = g->h + g->ph;
  if (w1 > g->w + g->pw) w1 = g->w + g->pw;
  padded_count = (h1 - h0) * (w1 - w0);
  /* ... and to the real input */
  if (h0 < 0) h0 = 0;
  if (w0 < 0) w0 = 0;
  if (h1 > g->h) h1 = g->h;
  if (w1 > g->w) w1 = g->w;
  real_count = (h1 - h0) * (w1 - w0);
  for (int64_t ih = h0; ih < h1; ih++)
    for (int64_t iw = w0; iw < w1; iw++) sum += pool_load(g, ibase, ih, iw);
  if (h0 >= h1 || w0 >= w1) return 0.0;
  if (g->has_divisor) return sum / (double)g->divisor;
  return sum / (double)(g->count_include_pad ? padded_count : real_count);
}

/* Adaptive windows: [floor(o*H/OH), ceil((o+1)*H/OH)) in each dim. */
static double adaptive_window(const pool_geom_t *g, int64_t ibase, int64_t oh,
                              int64_t ow, int64_t *index) {
  int64_t h0 = (oh * g->h) / g->oh;
  int64_t h1 = ((oh + 1) * g->h + g->oh - 1) / g->oh;
  int64_t w0 = (ow * g->w) / g->ow;
  int64_t w1 = ((ow + 1) * g->w + g->ow - 1) / g->ow;
  double sum = 0.0;
  (void)index;
  for (int64_t ih = h0; ih < h1; ih++)
    for (int64_t iw = w0; iw < w1; iw++) sum += pool_load(g, ibase, ih, iw);
  return sum / (double)((h1 - h0) * (w1 - w0));
}

/* max_pool2d_with_indices.out(Tensor self, int[2] kernel_size,
 *   int[2] stride=[], int[2] padding=0, int[2] dilation=1,
 *   bool ceil_mode=False, *, Tensor(a!) out, Tensor(b!) indices) */
ETK_KERNEL_DEFINE(max_pool2d_with_indices_out,
                  "aten::max_pool2d_with_indices.out") {
  etk_tensor_t *in, *out, *indices;
  int64_t k[2], s[2], p[2], d[2];
  bool ceil_mode;
  pool_geom_t g;
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_TENSOR("self", &in), ETK_ARG_LATER("kernel_size"),
      ETK_ARG_LATER("stride"),     ETK_ARG_LATER("padding"),
      ETK_ARG_LATER("dilation"),   ETK_ARG_LATER("ceil_mode"),
      ETK_ARG_TENSOR("out", &out), ETK_ARG_TENSOR("indices", &indices),
  };
  if ((rc = etk_op_read_args(op, 10, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = pool_check_dtypes(op, in, out))) return rc;
  if ((rc =
           etk_op_check_dtype(op, indices, "indices", ETK_DTYPE_BIT(ETK_LONG))))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = read_pool_window(op, k, s, p))) return rc;
  if ((rc = read_pool_pair(op, 4, "dilation", 1, false, d))) return rc;
  if ((rc = etk_op_bool(op, 5, "ceil_mode", &ceil_mode))) return rc;
  if ((rc = pool_setup(op, in, out, indices, k, s, p, d, ceil_mode, &g)))
    return rc;
  pool_run(&g, in, out, indices, max_window);
  return ETK_OK;
}

/* avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[],
 *   int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True,
 *   int? divisor_override=None, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(avg_pool2d_out, "aten::avg_pool2d.out") {
  etk_tensor_t *in, *out;
  int64_t k[2], s[2], p[2], d[2] = {1, 1}, divisor;
  bool ceil_mode, count_include_pad, has_divisor;
  pool_geom_t g;
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_TENSOR("self", &in),       ETK_ARG_LATER("kernel_size"),
      ETK_ARG_LATER("stride"),           ETK_ARG_LATER("padding"),
      ETK_ARG_LATER("ceil_mode"),        ETK_ARG_LATER("count_include_pad"),
      ETK_ARG_LATER("divisor_override"), ETK_ARG_TENSOR("out", &out),
  };
  if ((rc = etk_op_read_args(op, 9, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = pool_check_dtypes(op, in, out))) return rc;
  if (op->checking) return ETK_OK;
  if ((rc = read_pool_window(op, k, s, p))) return rc;
  if ((rc = etk_op_bool(op, 4, "ceil_mode", &ceil_mode))) return rc;
  if ((rc = etk_op_bool(op, 5, "count_include_pad", &count_include_pad)))
    return rc;
  if ((rc = etk_op_int_opt(op, 6, "divisor_override", &divisor, &has_divisor)))
    return rc;
  if (has_divisor && divisor == 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "divisor_override must be non-zero");
  if ((rc = pool_setup(op, in, out, NULL, k, s, p, d, ceil_mode, &g)))
    return rc;
  g.count_include_pad = count_include_pad;
  g.has_divisor = has_divisor;
  g.divisor = divisor;
  pool_run(&g, in, out, NULL, avg_window);
  return ETK_OK;
}

/* _adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, out) */
static int adaptive_avg_pool2d(etk_op_t *op) {
  etk_tensor_t *in, *out;
  int64_t osz_arg[2];
  pool_geom_t g;
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_TENSOR("self", &in),
      ETK_ARG_LATER("output_size"),
      ETK_ARG_TENSOR("out", &out),
  };
  if ((rc = etk_op_read_args(op, 4, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = pool_check_dtypes(op, in, out))) return rc;
  if (op->checking) return ETK_OK;
  if ((rc = read_pool_pair(op, 1, "output_size", 0, false, osz_arg))) return rc;
  if ((rc = pool_input_geom(op, in, &g))) return rc;
  g.oh = osz_arg[0];
  g.ow = osz_arg[1];
  if ((g.h == 0 || g.w == 0) && g.oh * g.ow > 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input has an empty spatial dim");
  if ((rc = pool_resize(op, in, out, NULL, &g))) return rc;
  pool_run(&g, in, out, NULL, adaptive_window);
  return ETK_OK;
}

ETK_KERNEL_DEFINE(adaptive_avg_pool2d_internal_out,
                  "aten::_adaptive_avg_pool2d.out") {
  return adaptive_avg_pool2d(op);
}
/* adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, out) */
ETK_KERNEL_DEFINE(adaptive_avg_pool2d_out, "aten::adaptive_avg_pool2d.out") {
  return adaptive_avg_pool2d(op);
}
