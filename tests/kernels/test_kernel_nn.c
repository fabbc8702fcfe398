/*
 * test_kernel_nn.c - convolution, pooling, normalisation and matrix
 * products against naive references.  The references are written in a
 * different form from the kernels on purpose: convolution scatters each
 * input element into the outputs it touches (the kernel gathers), pooling
 * enumerates explicit windows from PyTorch's formulas, matmul loops i-k-j.
 */
#include <math.h>

#include "etk_test.h"
#include "kernel_harness.h"

static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};

static double pseudo(int k) {
  return sin(k * 1.37 + 0.3) * 2.0;
}

/* ------------------------------------------------------------ conv */

typedef struct conv_case {
  int n, cin, h, w, cout, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool bias, transposed;
  int oph, opw; /* output padding (transposed) */
} conv_case_t;

static void conv_out_size(const conv_case_t *c, int *oh, int *ow) {
  if (!c->transposed) {
    *oh = (c->h + 2 * c->ph - c->dh * (c->kh - 1) - 1) / c->sh + 1;
    *ow = (c->w + 2 * c->pw - c->dw * (c->kw - 1) - 1) / c->sw + 1;
  } else {
    *oh = (c->h - 1) * c->sh - 2 * c->ph + c->dh * (c->kh - 1) + c->oph + 1;
    *ow = (c->w - 1) * c->sw - 2 * c->pw + c->dw * (c->kw - 1) + c->opw + 1;
  }
}

/* Scatter form: every (input element, weight element) pair adds into the
 * output element it maps to. */
static void conv_ref(const conv_case_t *c, const double *x, const double *wt,
                     const double *b, double *y) {
  int oh, ow;
  int cin_g = c->cin / c->groups, cout_g = c->cout / c->groups;
  conv_out_size(c, &oh, &ow);
  for (int n = 0; n < c->n; n++)
    for (int oc = 0; oc < c->cout; oc++)
      for (int i = 0; i < oh * ow; i++)
        y[(n * c->cout + oc) * oh * ow + i] = c->bias ? b[oc] : 0;
  for (int n = 0; n < c->n; n++)
    for (int ic = 0; ic < c->cin; ic++)
      for (int ih = 0; ih < c->h; ih++)
        for (int iw = 0; iw < c->w; iw++) {
          double xv = x[((n * c->cin + ic) * c->h + ih) * c->w + iw];
          int g = ic / cin_g;
          for (int ocg = 0; ocg < cout_g; ocg++) {
            int oc = g * cout_g + ocg;
            for (int kh = 0; kh < c->kh; kh++)
              for (int kw = 0; kw < c->kw; kw++) {
                int yh, yw;
                double wv;
                if (!c->transposed) {
                  /* ih = yh*s - p + k*d  =>  yh = (ih + p - k*d) / s */
                  int th = ih + c->ph - kh * c->dh,
                      tw = iw + c->pw - kw * c->dw;
                  if (th < 0 || tw < 0 || th % c->sh || tw % c->sw) continue;
                  yh = th / c->sh;
                  yw = tw / c->sw;
                  wv = wt[((oc * cin_g + (ic % cin_g)) * c->kh + kh) * c->kw +
                          kw];
                } else {
                  yh = ih * c->sh - c->ph + kh * c->dh;
                  yw = iw * c->sw - c->pw + kw * c->dw;
                  wv = wt[((ic * cout_g + ocg) * c->kh + kh) * c->kw + kw];
                }
                if (yh < 0 || yw < 0 || yh >= oh || yw >= ow) continue;
                y[((n * c->cout + oc) * oh + yh) * ow + yw] += xv * wv;
              }
          }
        }
}

/* Runs one conv case with the given dim orders (NULL = contiguous) and
 * compares with conv_ref; returns the max abs error. */
static double run_conv(const conv_case_t *c, const uint8_t *in_order,
                       const uint8_t *out_order) {
  static float x_d[4096], w_d[4096], b_d[64], y_d[8192];
  static double x_v[4096], w_v[4096], b_v[64], want[8192];
  kt_env_t e;
  int oh, ow, x, w, b, y, st, pd, dl, tr, op, g;
  int32_t xs[4] = {c->n, c->cin, c->h, c->w}, ys[4], bs[1] = {c->cout};
  int32_t ws[4];
  int64_t stride[2] = {c->sh, c->sw}, pad[2] = {c->ph, c->pw},
          dil[2] = {c->dh, c->dw}, opad[2] = {c->oph, c->opw};
  int rc;
  conv_out_size(c, &oh, &ow);
  if (!c->transposed) {
    ws[0] = c->cout;
    ws[1] = c->cin / c->groups;
  } else {
    ws[0] = c->cin;
    ws[1] = c->cout / c->groups;
  }
  ws[2] = c->kh;
  ws[3] = c->kw;
  ys[0] = c->n;
  ys[1] = c->cout;
  ys[2] = oh;
  ys[3] = ow;
  for (int k = 0; k < 4096; k++) {
    x_v[k] = pseudo(k);
    w_v[k] = pseudo(k + 1000) * 0.5;
  }
  for (int k = 0; k < 64; k++) b_v[k] = k * 0.25 - 1;
  kt_init(&e);
  x = kt_tensor(&e, ETK_FLOAT, 4, xs, in_order, x_d, sizeof x_d);
  w = kt_tensor(&e, ETK_FLOAT, 4, ws, NULL, w_d, sizeof w_d);
  b = c->bias ? kt_tensor(&e, ETK_FLOAT, 1, bs, NULL, b_d, sizeof b_d)
              : kt_none(&e);
  y = kt_tensor(&e, ETK_FLOAT, 4, ys, out_order, y_d, sizeof y_d);
  kt_fill(&e, x, x_v);
  kt_fill(&e, w, w_v);
  if (c->bias) kt_fill(&e, b, b_v);
  st = kt_int_list(&e, 2, stride);
  pd = kt_int_list(&e, 2, pad);
  dl = kt_int_list(&e, 2, dil);
  op = kt_int_list(&e, 2, opad);
  tr = kt_bool(&e, c->transposed);
  g = kt_int(&e, c->groups);
  rc = kt_call(&e, "aten::convolution.out",
               KT_ARGS(x, w, b, st, pd, dl, tr, op, g, y, y));
  if (rc != ETK_OK) {
    printf("# conv failed: %s\n", e.ctx.message);
    return INFINITY;
  }
  conv_ref(c, x_v, w_v, b_v, want);
  return kt_max_err(&e, y, want, (int64_t)c->n * c->cout * oh * ow);
}

ETK_TEST(conv2d_hand_worked) {
  /* 1x1x3x3 input 1..9, 2x2 kernel of ones, bias 0.5: window sums + 0.5 */
  kt_env_t e;
  int32_t xs[4] = {1, 1, 3, 3}, ws[4] = {1, 1, 2, 2}, ys[4] = {1, 1, 2, 2},
          bs[1] = {1};
  float x_d[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w_d[4] = {1, 1, 1, 1},
        b_d[1] = {0.5f};
  float y_d[4];
  int64_t one[1] = {1}, zero[1] = {0};
  int x, w, b, y, st, pd, dl, op, tr, g;
  kt_init(&e);
  x = kt_tensor(&e, ETK_FLOAT, 4, xs, NULL, x_d, sizeof x_d);
  w = kt_tensor(&e, ETK_FLOAT, 4, ws, NULL, w_d, sizeof w_d);
  b = kt_tensor(&e, ETK_FLOAT, 1, bs, NULL, b_d, sizeof b_d);
  y = kt_tensor(&e, ETK_FLOAT, 4, ys, NULL, y_d, sizeof y_d);
  st = kt_int_list(&e, 1, one); /* single-item lists apply to both dims */
  pd = kt_int_list(&e, 1, zero);
  dl = kt_int_list(&e, 1, one);
  op = kt_int_list(&e, 1, zero);
  tr = kt_bool(&e, false);
  g = kt_int(&e, 1);
  REQUIRE(kt_call(&e, "aten::convolution.out",
                  KT_ARGS(x, w, b, st, pd, dl, tr, op, g, y, y)) == ETK_OK);
  CHECK(y_d[0] == 12.5f && y_d[1] == 16.5f && y_d[2] == 24.5f &&
        y_d[3] == 28.5f);
}

ETK_TEST(conv2d_against_reference) {
  conv_case_t plain = {2, 3, 7, 6, 4, 3,    3,     1, 1,
                       0, 0, 1, 1, 1, true, false, 0, 0};
  conv_case_t strided = {1, 2, 9, 8, 3, 3,    2,     2, 3,
                         1, 1, 1, 1, 1, true, false, 0, 0};
  conv_case_t dilated = {1, 2, 9, 9, 2, 3,     3,     1, 2,
                         2, 1, 2, 3, 1, false, false, 0, 0};
  conv_case_t grouped = {2, 4, 6, 5, 6, 3,    3,     1, 1,
                         1, 1, 1, 1, 2, true, false, 0, 0};
  conv_case_t depthwise = {1, 4, 6, 6, 4, 3,    3,     2, 2,
                           1, 1, 1, 1, 4, true, false, 0, 0};
  conv_case_t pointwise = {1, 5, 4, 4, 3, 1,    1,     1, 1,
                           0, 0, 1, 1, 1, true, false, 0, 0};
  CHECK(run_conv(&plain, NULL, NULL) < 1e-5);
  CHECK(run_conv(&strided, NULL, NULL) < 1e-5);
  CHECK(run_conv(&dilated, NULL, NULL) < 1e-5);
  CHECK(run_conv(&grouped, NULL, NULL) < 1e-5);
  CHECK(run_conv(&depthwise, NULL, NULL) < 1e-5);
  CHECK(run_conv(&pointwise, NULL, NULL) < 1e-5);
  /* channels-last input, output, and both */
  CHECK(run_conv(&grouped, kChannelsLast, NULL) < 1e-5);
  CHECK(run_conv(&strided, NULL, kChannelsLast) < 1e-5);
  CHECK(run_conv(&depthwise, kChannelsLast, kChannelsLast) < 1e-5);
}

ETK_TEST(conv_transposed_against_reference) {
  conv_case_t t1 = {1, 3, 4, 5, 2, 3, 3, 2, 2, 1, 0, 1, 1, 1, true, true, 1, 0};
  conv_case_t t2 = {2, 4, 3, 3, 6, 2,     3,    1, 2,
                    0, 1, 2, 1, 2, false, true, 0, 1};
  CHECK(run_conv(&t1, NULL, NULL) < 1e-5);
  CHECK(run_conv(&t2, kChannelsLast, NULL) < 1e-5);
}

ETK_TEST(conv1d_and_optional_bias_placeholder) {
  /* [1, 2, 5] input, weight [1, 2, 2], stride 2, padding 1 */
  kt_env_t e;
  int32_t xs[3] = {1, 2, 5}, ws[3] = {1, 2, 2}, ys[3] = {1, 1, 3}, es[1] = {0};
  float x_d[10] = {1, 2, 3, 4, 5, 10, 20, 30, 40, 50},
        w_d[4] = {1, -1, 0.5f, 2};
  float y_d[3];
  int64_t two[1] = {2}, one[1] = {1}, zero[1] = {0};
  int x, w, b, y;
  kt_init(&e);
  x = kt_tensor(&e, ETK_FLOAT, 3, xs, NULL, x_d, sizeof x_d);
  w = kt_tensor(&e, ETK_FLOAT, 3, ws, NULL, w_d, sizeof w_d);
  /* the emitter writes a missing optional tensor as an empty BYTE tensor */
  b = kt_tensor(&e, ETK_BYTE, 1, es, NULL, NULL, 0);
  y = kt_tensor(&e, ETK_FLOAT, 3, ys, NULL, y_d, sizeof y_d);
  REQUIRE(kt_call(&e, "aten::convolution.out",
                  KT_ARGS(x, w, b, kt_int_list(&e, 1, two),
                          kt_int_list(&e, 1, one), kt_int_list(&e, 1, one),
                          kt_bool(&e, false), kt_int_list(&e, 1, zero),
                          kt_int(&e, 1), y, y)) == ETK_OK);
  /* out[o] = sum_c sum_k x[c][2o - 1 + k] * w[c][k] */
  CHECK(y_d[0] == -1 * 1 + 2 * 10); /* k=1 only */
  CHECK(y_d[1] == 2 * 1 - 3 * 1 + 20 * 0.5f + 30 * 2);
  CHECK(y_d[2] == 4 * 1 - 5 * 1 + 40 * 0.5f + 50 * 2);
}

ETK_TEST(conv_errors) {
  kt_env_t e;
  int32_t xs[4] = {1, 3, 4, 4}, ws[4] = {2, 3, 3, 3}, ys[4] = {1, 2, 2, 2},
          bs[1] = {3};
  float x_d[48], w_d[54], y_d[8], b_d[3];
  int64_t one[2] = {1, 1}, zero[2] = {0, 0};
  int x, w, y, b, st, pd, dl, op, tr, g;
  kt_init(&e);
  x = kt_tensor(&e, ETK_FLOAT, 4, xs, NULL, x_d, sizeof x_d);
  w = kt_tensor(&e, ETK_FLOAT, 4, ws, NULL, w_d, sizeof w_d);
  y = kt_tensor(&e, ETK_FLOAT, 4, ys, NULL, y_d, sizeof y_d);
  b = kt_tensor(&e, ETK_FLOAT, 1, bs, NULL, b_d, sizeof b_d);
  st = kt_int_list(&e, 2, one);
  pd = kt_int_list(&e, 2, zero);
  dl = kt_int_list(&e, 2, one);
  op = kt_int_list(&e, 2, zero);
  tr = kt_bool(&e, false);
  g = kt_int(&e, 2);
  CHECK_EQ_INT(kt_call(&e, "aten::convolution.out",
                       KT_ARGS(x, w, b, st, pd, dl, tr, op, g, y, y)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "input channels 3 not divisible by groups 2"));
  g = kt_int(&e, 1);
  CHECK_EQ_INT(kt_call(&e, "aten::convolution.out",
                       KT_ARGS(x, w, b, st, pd, dl, tr, op, g, y, y)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "bias must be 1-D with 2 elements"));
  b = kt_none(&e);
  REQUIRE(kt_call(&e, "aten::convolution.out",
                  KT_ARGS(x, w, b, st, pd, dl, tr, op, g, y, y)) == ETK_OK);
  {
    int64_t big[2] = {2, 5};
    int k5 = kt_int_list(&e, 2, big);
    CHECK_EQ_INT(kt_call(&e, "aten::convolution.out",
                         KT_ARGS(x, w, b, st, pd, k5, tr, op, g, y, y)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "kernel larger than the padded input"));
  }
  {
    int64_t bad[3] = {1, 1, 1};
    int l3 = kt_int_list(&e, 3, bad);
    CHECK_EQ_INT(kt_call(&e, "aten::convolution.out",
                         KT_ARGS(x, w, b, l3, pd, dl, tr, op, g, y, y)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "stride must have 1 or 2 items, got 3"));
  }
}

/* ------------------------------------------------------------ pooling */

static int pool_size(int in, int k, int p, int s, int d, bool ceil_mode) {
  int num = in + 2 * p - d * (k - 1) - 1;
  int o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) o--;
  return o;
}

ETK_TEST(max_pool_with_indices_reference) {
  struct {
    int h, w, k, s, p, d;
    bool ceil;
    const uint8_t *order;
  } cases[] = {
      {6, 6, 2, 2, 0, 1, false, NULL},
      {7, 5, 3, 2, 1, 1, true, NULL},
      {8, 7, 3, 2, 1, 2, false, kChannelsLast},
      {5, 5, 2, 2, 0, 1, true, kChannelsLast},
  };
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    kt_env_t e;
    int n = 2, c = 3, h = cases[ci].h, w = cases[ci].w, k = cases[ci].k;
    int s = cases[ci].s, p = cases[ci].p, d = cases[ci].d;
    int oh = pool_size(h, k, p, s, d, cases[ci].ceil);
    int ow = pool_size(w, k, p, s, d, cases[ci].ceil);
    int32_t xs[4] = {n, c, h, w}, ys[4] = {n, c, oh, ow};
    static float x_d[2048], y_d[2048];
    static int64_t i_d[2048];
    static double x_v[2048], want[2048], want_i[2048];
    int64_t kk[1] = {k}, ss[1] = {s}, pp[1] = {p}, dd[1] = {d};
    int x, y, ix;
    for (int q = 0; q < n * c * h * w; q++)
      x_v[q] = (q * 37 % 23) - 11; /* ties */
    kt_init(&e);
    x = kt_tensor_from(&e, ETK_FLOAT, 4, xs, cases[ci].order, x_d, sizeof x_d,
                       x_v);
    y = kt_tensor(&e, ETK_FLOAT, 4, ys, cases[ci].order, y_d, sizeof y_d);
    ix = kt_tensor(&e, ETK_LONG, 4, ys, NULL, i_d, sizeof i_d);
    REQUIRE(kt_call(&e, "aten::max_pool2d_with_indices.out",
                    KT_ARGS(x, kt_int_list(&e, 1, kk), kt_int_list(&e, 1, ss),
                            kt_int_list(&e, 1, pp), kt_int_list(&e, 1, dd),
                            kt_bool(&e, cases[ci].ceil), y, ix, y, ix)) ==
            ETK_OK);
    for (int a = 0; a < n * c; a++)
      for (int i = 0; i < oh; i++)
        for (int j = 0; j < ow; j++) {
          double best = -INFINITY;
          int at = -1;
          for (int u = 0; u < k; u++)
            for (int v = 0; v < k; v++) {
              int hh = i * s - p + u * d, ww = j * s - p + v * d;
              if (hh < 0 || ww < 0 || hh >= h || ww >= w) continue;
              if (at < 0 || x_v[a * h * w + hh * w + ww] > best) {
                best = x_v[a * h * w + hh * w + ww];
                at = hh * w + ww;
              }
            }
          want[(a * oh + i) * ow + j] = best;
          want_i[(a * oh + i) * ow + j] = at;
        }
    CHECK(kt_max_err(&e, y, want, n * c * oh * ow) == 0.0);
    CHECK(kt_max_err(&e, ix, want_i, n * c * oh * ow) == 0.0);
  }
}

/* aten::max_pool2d_with_indices.out of x with kernel 2, dilation 1 and no
 * ceil mode, stride[0..stride_count) and padding pad[0], into (y, indices). */
static int max_pool_kernel2(kt_env_t *e, int x, size_t stride_count,
                            const int64_t *stride, const int64_t *pad, int y,
                            int indices) {
  static const int64_t kernel[1] = {2}, dilation[1] = {1};
  return kt_call(e, "aten::max_pool2d_with_indices.out",
                 KT_ARGS(x, kt_int_list(e, 1, kernel),
                         kt_int_list(e, stride_count, stride),
                         kt_int_list(e, 1, pad), kt_int_list(e, 1, dilation),
                         kt_bool(e, false), y, indices, y, indices));
}

ETK_TEST(max_pool_hand_worked_and_errors) {
  kt_env_t e;
  int32_t xs[3] = {1, 2, 3}, ys[3] = {1, 1, 2};
  float x_d[6] = {1, 5, 2, 4, 3, NAN}, y_d[2];
  int64_t i_d[2], k1[1] = {1}, p0[1] = {0}, p2[1] = {2}, empty[1];
  int x, y, ix;
  kt_init(&e);
  /* 3-D input [C=1, H=2, W=3], kernel 2, stride 1 */
  x = kt_tensor(&e, ETK_FLOAT, 3, xs, NULL, x_d, sizeof x_d);
  y = kt_tensor(&e, ETK_FLOAT, 3, ys, NULL, y_d, sizeof y_d);
  ix = kt_tensor(&e, ETK_LONG, 3, ys, NULL, i_d, sizeof i_d);
  REQUIRE(max_pool_kernel2(&e, x, 1, k1, p0, y, ix) == ETK_OK);
  CHECK(y_d[0] == 5 && i_d[0] == 1);
  CHECK(isnan(y_d[1]) && i_d[1] == 5); /* NaN wins */
  /* empty stride list means stride = kernel size */
  {
    int32_t ys2[3] = {1, 1, 1};
    int y2 = kt_tensor(&e, ETK_FLOAT, 3, ys2, NULL, y_d, sizeof y_d);
    int i2 = kt_tensor(&e, ETK_LONG, 3, ys2, NULL, i_d, sizeof i_d);
    REQUIRE(max_pool_kernel2(&e, x, 0, empty, p0, y2, i2) == ETK_OK);
    CHECK(y_d[0] == 5 && i_d[0] == 1);
  }
  CHECK_EQ_INT(max_pool_kernel2(&e, x, 1, k1, p2, y, ix),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "padding must be at most half the kernel size"));
  /* indices must be int64 */
  {
    int bad = kt_tensor(&e, ETK_INT, 3, ys, NULL, i_d, sizeof i_d);
    CHECK_EQ_INT(max_pool_kernel2(&e, x, 1, k1, p0, y, bad), ETK_E_UNSUPPORTED);
    CHECK(kt_msg_has(&e, "dtype INT not supported for indices"));
  }
}

ETK_TEST(avg_pool_reference) {
  struct {
    int h, w, k, s, p;
    bool ceil, include_pad;
    int divisor;
    const uint8_t *order;
  } cases[] = {
      {6, 6, 2, 2, 0, false, true, 0, NULL},
      {5, 7, 3, 2, 1, false, true, 0, NULL},
      {5, 7, 3, 2, 1, false, false, 0, kChannelsLast},
      {5, 5, 2, 2, 1, true, true, 0, NULL},
      {5, 5, 2, 2, 1, true, false, 0, NULL},
      {6, 5, 3, 3, 1, true, true, 7, kChannelsLast},
  };
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    kt_env_t e;
    int n = 1, c = 2, h = cases[ci].h, w = cases[ci].w, k = cases[ci].k;
    int s = cases[ci].s, p = cases[ci].p;
    int oh = pool_size(h, k, p, s, 1, cases[ci].ceil);
    int ow = pool_size(w, k, p, s, 1, cases[ci].ceil);
    int32_t xs[4] = {n, c, h, w}, ys[4] = {n, c, oh, ow};
    float x_d[512], y_d[512];
    double x_v[512], want[512];
    int64_t kk[2] = {k, k}, ss[2] = {s, s}, pp[2] = {p, p};
    int x, y, div;
    for (int q = 0; q < n * c * h * w; q++) x_v[q] = pseudo(q);
    kt_init(&e);
    x = kt_tensor_from(&e, ETK_FLOAT, 4, xs, cases[ci].order, x_d, sizeof x_d,
                       x_v);
    y = kt_tensor(&e, ETK_FLOAT, 4, ys, NULL, y_d, sizeof y_d);
    div = cases[ci].divisor ? kt_int(&e, cases[ci].divisor) : kt_none(&e);
    REQUIRE(kt_call(&e, "aten::avg_pool2d.out",
                    KT_ARGS(x, kt_int_list(&e, 2, kk), kt_int_list(&e, 2, ss),
                            kt_int_list(&e, 2, pp), kt_bool(&e, cases[ci].ceil),
                            kt_bool(&e, cases[ci].include_pad), div, y, y)) ==
            ETK_OK);
    for (int a = 0; a < n * c; a++)
      for (int i = 0; i < oh; i++)
        for (int j = 0; j < ow; j++) {
          /* count window cells: real ones, and padded ones within [-p, h+p) */
          double sum = 0;
          int real = 0, padded = 0;
          for (int u = 0; u < k; u++)
            for (int v = 0; v < k; v++) {
              int hh = i * s - p + u, ww = j * s - p + v;
              if (hh < h + p && ww < w + p) padded++;
              if (hh < 0 || ww < 0 || hh >= h || ww >= w) continue;
              real++;
              sum += x_v[a * h * w + hh * w + ww];
            }
          want[(a * oh + i) * ow + j] =
              cases[ci].divisor ? sum / cases[ci].divisor
                                : sum / (cases[ci].include_pad ? padded : real);
        }
    if (kt_max_err(&e, y, want, n * c * oh * ow) >= 1e-6)
      printf("# case %zu\n", ci);
    CHECK(kt_max_err(&e, y, want, n * c * oh * ow) < 1e-6);
  }
}

ETK_TEST(adaptive_avg_pool_reference) {
  kt_env_t e;
  int32_t xs[4] = {1, 2, 5, 7}, ys[4] = {1, 2, 3, 4}, gs[4] = {1, 2, 1, 1};
  float x_d[70], y_d[24], g_d[2];
  double x_v[70], want[24], gwant[2] = {0, 0};
  int64_t osz[2] = {3, 4}, one[2] = {1, 1};
  int x, y, gy;
  for (int q = 0; q < 70; q++) x_v[q] = pseudo(q);
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 4, xs, kChannelsLast, x_d, sizeof x_d, x_v);
  y = kt_tensor(&e, ETK_FLOAT, 4, ys, NULL, y_d, sizeof y_d);
  gy = kt_tensor(&e, ETK_FLOAT, 4, gs, NULL, g_d, sizeof g_d);
  REQUIRE(kt_call(&e, "aten::_adaptive_avg_pool2d.out",
                  KT_ARGS(x, kt_int_list(&e, 2, osz), y, y)) == ETK_OK);
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++) {
        int h0 = (int)floor(i * 5.0 / 3), h1 = (int)ceil((i + 1) * 5.0 / 3);
        int w0 = (int)floor(j * 7.0 / 4), w1 = (int)ceil((j + 1) * 7.0 / 4);
        double sum = 0;
        for (int hh = h0; hh < h1; hh++)
          for (int ww = w0; ww < w1; ww++) sum += x_v[c * 35 + hh * 7 + ww];
        want[(c * 3 + i) * 4 + j] = sum / ((h1 - h0) * (w1 - w0));
      }
  CHECK(kt_max_err(&e, y, want, 24) < 1e-6);
  /* global pooling is the mean of each channel */
  REQUIRE(kt_call(&e, "aten::adaptive_avg_pool2d.out",
                  KT_ARGS(x, kt_int_list(&e, 2, one), gy, gy)) == ETK_OK);
  for (int q = 0; q < 70; q++) gwant[q / 35] += x_v[q] / 35;
  CHECK(kt_max_err(&e, gy, gwant, 2) < 1e-6);
}

/* ------------------------------------------------------------ norms */

ETK_TEST(layer_norm_reference) {
  kt_env_t e;
  int32_t xs[3] = {2, 3, 4}, ms[3] = {2, 1, 1}, ws[2] = {3, 4};
  uint8_t order[3] = {1, 2, 0};
  float x_d[24], y_d[24], m_d[2], r_d[2], w_d[12], b_d[12];
  double x_v[24], w_v[12], b_v[12], want[24], mean_want[2], rstd_want[2];
  int64_t nshape[2] = {3, 4};
  int x, y, m, r, w, b;
  for (int q = 0; q < 24; q++) x_v[q] = pseudo(q) * (q < 12 ? 1 : 10);
  for (int q = 0; q < 12; q++) {
    w_v[q] = 1 + 0.1 * q;
    b_v[q] = -0.05 * q;
  }
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 3, xs, order, x_d, sizeof x_d, x_v);
  y = kt_tensor(&e, ETK_FLOAT, 3, xs, NULL, y_d, sizeof y_d);
  m = kt_tensor(&e, ETK_FLOAT, 3, ms, NULL, m_d, sizeof m_d);
  r = kt_tensor(&e, ETK_FLOAT, 3, ms, NULL, r_d, sizeof r_d);
  w = kt_tensor_from(&e, ETK_FLOAT, 2, ws, NULL, w_d, sizeof w_d, w_v);
  b = kt_tensor_from(&e, ETK_FLOAT, 2, ws, NULL, b_d, sizeof b_d, b_v);
  REQUIRE(kt_call(&e, "aten::native_layer_norm.out",
                  KT_ARGS(x, kt_int_list(&e, 2, nshape), w, b,
                          kt_double(&e, 1e-5), y, m, r, y, m, r)) == ETK_OK);
  for (int row = 0; row < 2; row++) {
    /* E[x^2] - E[x]^2 form, differently from the kernel's two passes */
    double s = 0, s2 = 0;
    for (int q = 0; q < 12; q++) {
      s += x_v[row * 12 + q];
      s2 += x_v[row * 12 + q] * x_v[row * 12 + q];
    }
    mean_want[row] = s / 12;
    rstd_want[row] = 1 / sqrt(s2 / 12 - mean_want[row] * mean_want[row] + 1e-5);
    for (int q = 0; q < 12; q++)
      want[row * 12 + q] =
          (x_v[row * 12 + q] - mean_want[row]) * rstd_want[row] * w_v[q] +
          b_v[q];
  }
  CHECK(kt_max_err(&e, y, want, 24) < 1e-5);
  CHECK(kt_max_err(&e, m, mean_want, 2) < 1e-5);
  CHECK(kt_max_err(&e, r, rstd_want, 2) < 1e-4);
  /* normalized_shape that does not match the input */
  {
    int64_t bad[2] = {4, 3};
    CHECK_EQ_INT(kt_call(&e, "aten::native_layer_norm.out",
                         KT_ARGS(x, kt_int_list(&e, 2, bad), w, b,
                                 kt_double(&e, 1e-5), y, m, r, y, m, r)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(
        &e, "normalized_shape [4, 3] does not match the trailing dims"));
  }
  /* no weight or bias, one normalised dim: stats shape [2, 3, 1] */
  {
    int32_t ms2[3] = {2, 3, 1};
    float m2[6], r2[6];
    int64_t last[1] = {4};
    int mm = kt_tensor(&e, ETK_FLOAT, 3, ms2, NULL, m2, sizeof m2);
    int rr = kt_tensor(&e, ETK_FLOAT, 3, ms2, NULL, r2, sizeof r2);
    int none = kt_none(&e);
    REQUIRE(kt_call(&e, "aten::native_layer_norm.out",
                    KT_ARGS(x, kt_int_list(&e, 1, last), none, none,
                            kt_double(&e, 0.0), y, mm, rr, y, mm, rr)) ==
            ETK_OK);
    for (int row = 0; row < 6; row++) {
      double s = 0, sq = 0;
      for (int q = 0; q < 4; q++) s += x_v[row * 4 + q];
      for (int q = 0; q < 4; q++) sq += pow(x_v[row * 4 + q] - s / 4, 2);
      for (int q = 0; q < 4; q++)
        want[row * 4 + q] = (x_v[row * 4 + q] - s / 4) / sqrt(sq / 4);
      CHECK(fabs(m2[row] - s / 4) < 1e-5);
    }
    CHECK(kt_max_err(&e, y, want, 24) < 1e-5);
  }
}

ETK_TEST(batch_norm_no_training_reference) {
  kt_env_t e;
  int32_t xs[4] = {2, 3, 2, 2}, cs[1] = {3}, es[1] = {0};
  float x_d[24], y_d[24], mu[3] = {0.5f, -1, 2}, var[3] = {1, 4, 0.25f};
  float w_d[3] = {1, 2, -1}, b_d[3] = {0, 0.5f, 1};
  double x_v[24], want[24];
  int x, y, rm, rv, w, b, mo, io;
  for (int q = 0; q < 24; q++) x_v[q] = pseudo(q);
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 4, xs, kChannelsLast, x_d, sizeof x_d, x_v);
  y = kt_tensor(&e, ETK_FLOAT, 4, xs, kChannelsLast, y_d, sizeof y_d);
  rm = kt_tensor(&e, ETK_FLOAT, 1, cs, NULL, mu, sizeof mu);
  rv = kt_tensor(&e, ETK_FLOAT, 1, cs, NULL, var, sizeof var);
  w = kt_tensor(&e, ETK_FLOAT, 1, cs, NULL, w_d, sizeof w_d);
  b = kt_tensor(&e, ETK_FLOAT, 1, cs, NULL, b_d, sizeof b_d);
  mo = kt_tensor(&e, ETK_FLOAT, 1, es, NULL, NULL, 0);
  io = kt_tensor(&e, ETK_FLOAT, 1, es, NULL, NULL, 0);
  REQUIRE(kt_call(&e, "aten::_native_batch_norm_legit_no_training.out",
                  KT_ARGS(x, w, b, rm, rv, kt_double(&e, 0.1),
                          kt_double(&e, 1e-5), y, mo, io, y, mo, io)) ==
          ETK_OK);
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 3; c++)
      for (int q = 0; q < 4; q++) {
        int at = (n * 3 + c) * 4 + q;
        want[at] = (x_v[at] - mu[c]) / sqrt(var[c] + 1e-5) * w_d[c] + b_d[c];
      }
  CHECK(kt_max_err(&e, y, want, 24) < 1e-5);
  /* running stats of the wrong length */
  {
    int32_t s2[1] = {2};
    int bad = kt_tensor(&e, ETK_FLOAT, 1, s2, NULL, mu, sizeof mu);
    CHECK_EQ_INT(kt_call(&e, "aten::_native_batch_norm_legit_no_training.out",
                         KT_ARGS(x, w, b, bad, rv, kt_double(&e, 0.1),
                                 kt_double(&e, 1e-5), y, mo, io, y, mo, io)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "running_mean must be 1-D with 3 elements"));
  }
}

/* ------------------------------------------------------------ matmul */

static void matmul_ref(int n, int k, int p, const double *a, const double *b,
                       double *c) {
  for (int i = 0; i < n * p; i++) c[i] = 0;
  for (int i = 0; i < n; i++)
    for (int t = 0; t < k; t++)
      for (int j = 0; j < p; j++) c[i * p + j] += a[i * k + t] * b[t * p + j];
}

ETK_TEST(mm_bmm_addmm_linear) {
  kt_env_t e;
  int32_t as[2] = {3, 4}, bs[2] = {4, 5}, cs[2] = {3, 5};
  uint8_t tr[2] = {1, 0};
  float a_d[12], b_d[20], c_d[15];
  double a_v[12], b_v[20], want[15];
  int a, b, c;
  for (int q = 0; q < 12; q++) a_v[q] = pseudo(q);
  for (int q = 0; q < 20; q++) b_v[q] = pseudo(q + 50);
  kt_init(&e);
  a = kt_tensor(&e, ETK_FLOAT, 2, as, NULL, a_d, sizeof a_d);
  b = kt_tensor(&e, ETK_FLOAT, 2, bs, tr, b_d, sizeof b_d); /* column-major */
  c = kt_tensor(&e, ETK_FLOAT, 2, cs, NULL, c_d, sizeof c_d);
  kt_fill(&e, a, a_v);
  kt_fill(&e, b, b_v);
  REQUIRE(kt_call(&e, "aten::mm.out", KT_ARGS(a, b, c, c)) == ETK_OK);
  matmul_ref(3, 4, 5, a_v, b_v, want);
  CHECK(kt_max_err(&e, c, want, 15) < 1e-5);
  /* addmm: beta * self[5] (broadcast over rows) + alpha * a @ b */
  {
    int32_t ds[1] = {5};
    float d_d[5] = {1, 2, 3, 4, 5};
    int d = kt_tensor(&e, ETK_FLOAT, 1, ds, NULL, d_d, sizeof d_d);
    double want2[15];
    REQUIRE(kt_call(&e, "aten::addmm.out",
                    KT_ARGS(d, a, b, kt_double(&e, 0.5), kt_int(&e, 2), c,
                            c)) == ETK_OK);
    for (int i = 0; i < 15; i++) want2[i] = 0.5 * d_d[i % 5] + 2 * want[i];
    CHECK(kt_max_err(&e, c, want2, 15) < 1e-5);
    /* beta = 0 ignores self entirely, NaN included */
    d_d[0] = NAN;
    REQUIRE(kt_call(&e, "aten::addmm.out",
                    KT_ARGS(d, a, b, kt_int(&e, 0), kt_int(&e, 1), c, c)) ==
            ETK_OK);
    CHECK(kt_max_err(&e, c, want, 15) < 1e-5);
  }
  CHECK_EQ_INT(kt_call(&e, "aten::mm.out", KT_ARGS(a, a, c, c)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "inner dimensions differ (4 vs 3)"));
  /* bmm over 2 batches of [2,3] @ [3,2] */
  {
    int32_t xs[3] = {2, 2, 3}, ys[3] = {2, 3, 2}, zs[3] = {2, 2, 2};
    float x_d[12], y_d[12], z_d[8];
    double x_v[12], y_v[12], zw[8];
    int x, y, z;
    for (int q = 0; q < 12; q++) {
      x_v[q] = q - 6;
      y_v[q] = (q % 4) * 0.5;
    }
    x = kt_tensor_from(&e, ETK_FLOAT, 3, xs, NULL, x_d, sizeof x_d, x_v);
    y = kt_tensor_from(&e, ETK_FLOAT, 3, ys, NULL, y_d, sizeof y_d, y_v);
    z = kt_tensor(&e, ETK_FLOAT, 3, zs, NULL, z_d, sizeof z_d);
    REQUIRE(kt_call(&e, "aten::bmm.out", KT_ARGS(x, y, z, z)) == ETK_OK);
    matmul_ref(2, 3, 2, x_v, y_v, zw);
    matmul_ref(2, 3, 2, x_v + 6, y_v + 6, zw + 4);
    CHECK(kt_max_err(&e, z, zw, 8) < 1e-6);
  }
  /* linear: input [2,2,4] @ weight[3,4]^T + bias[3] */
  {
    int32_t is[3] = {2, 2, 4}, ws[2] = {3, 4}, bsz[1] = {3}, os[3] = {2, 2, 3};
    uint8_t io[3] = {1, 2, 0};
    float i_d[16], w_d[12], bb[3] = {0.5f, -1, 2}, o_d[12];
    double i_v[16], w_v[12], wt_v[12], ow[12];
    int in, w, bias, out;
    for (int q = 0; q < 16; q++) i_v[q] = pseudo(q + 7);
    for (int q = 0; q < 12; q++) w_v[q] = pseudo(q + 90);
    for (int r = 0; r < 3; r++)
      for (int t = 0; t < 4; t++) wt_v[t * 3 + r] = w_v[r * 4 + t];
    in = kt_tensor_from(&e, ETK_FLOAT, 3, is, io, i_d, sizeof i_d, i_v);
    w = kt_tensor_from(&e, ETK_FLOAT, 2, ws, NULL, w_d, sizeof w_d, w_v);
    bias = kt_tensor(&e, ETK_FLOAT, 1, bsz, NULL, bb, sizeof bb);
    out = kt_tensor(&e, ETK_FLOAT, 3, os, NULL, o_d, sizeof o_d);
    REQUIRE(kt_call(&e, "aten::linear.out", KT_ARGS(in, w, bias, out, out)) ==
            ETK_OK);
    matmul_ref(4, 4, 3, i_v, wt_v, ow);
    for (int q = 0; q < 12; q++) ow[q] += bb[q % 3];
    CHECK(kt_max_err(&e, out, ow, 12) < 1e-5);
  }
}

ETK_TEST(matmul_empty) {
  kt_env_t e;
  int32_t as[2] = {2, 0}, bs[2] = {0, 3}, cs[2] = {2, 3};
  float c_d[6] = {9, 9, 9, 9, 9, 9};
  double zeros[6] = {0};
  int a, b, c;
  kt_init(&e);
  a = kt_tensor(&e, ETK_FLOAT, 2, as, NULL, NULL, 0);
  b = kt_tensor(&e, ETK_FLOAT, 2, bs, NULL, NULL, 0);
  c = kt_tensor(&e, ETK_FLOAT, 2, cs, NULL, c_d, sizeof c_d);
  REQUIRE(kt_call(&e, "aten::mm.out", KT_ARGS(a, b, c, c)) == ETK_OK);
  CHECK(kt_max_err(&e, c, zeros, 6) == 0.0);
}

ETK_TEST_MAIN()
