/*
 * test_numerics.c - src/inspector/numerics.c: upstream's comparator tests
 * (l1/mse/snr_comparator_test.py, inspector notes 8.3 and 11.4),
 * compare_results values and text (8.4), value inflation (8.1), and the A/B
 * comparison on the fixtures of numerics_fixtures.h.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/inspector.h"
#include "etkit/schema.h"
#include "numerics_fixtures.h"

static etk_numerics_tensor_t f64(const double *v, uint32_t dim,
                                 const int64_t *sizes, size_t n) {
  etk_numerics_tensor_t t = {ETK_SCALAR_TYPE_DOUBLE, dim, sizes, NULL, 0, v,
                             n * sizeof *v};
  return t;
}

static double cmp(etk_numerics_metric_t m, etk_numerics_tensor_t a,
                  etk_numerics_tensor_t b) {
  double out = -12345;
  int rc = etk_numerics_compare(&a, &b, m, 0, &out, NULL);
  if (rc != ETK_OK) printf("# compare failed: %s\n", etk_strerror(rc));
  return out;
}

static const int64_t k4[1] = {4}, k2[1] = {2}, k22[2] = {2, 2}, k3[1] = {3},
                     k1[1] = {1};

/* upstream's L1 and MSE comparator cases: a pair of tensors of one shape and
 * the distance the metric gives them (NaN counts as 0, as upstream). */
typedef struct {
  etk_numerics_metric_t metric;
  uint32_t dim; /* 0: a scalar */
  const int64_t *sizes;
  size_t count;
  double a[4], b[4];
  double expected;
} comparator_case_t;

static const comparator_case_t comparator_cases[] = {
    {ETK_NUMERICS_L1, 1, k4, 4, {1, 2, 3, 4}, {1, 2, 3, 4}, 0.0},
    {ETK_NUMERICS_L1, 0, NULL, 1, {1}, {2}, 1.0},
    {ETK_NUMERICS_L1, 1, k4, 4, {3, 2, -1, NAN}, {NAN, 0, -3, 1}, 8.0},
    {ETK_NUMERICS_L1, 2, k22, 4, {4, 9, 6, 4}, {1, 2, 3, 5}, 14.0},
    /* upstream's example: AOT [1,2,3] vs runtime [2,1,4] -> 3.0 */
    {ETK_NUMERICS_L1, 1, k3, 3, {1, 2, 3}, {2, 1, 4}, 3.0},
    {ETK_NUMERICS_MSE, 1, k4, 4, {1, 2, 3, 4}, {1, 2, 3, 4}, 0.0},
    {ETK_NUMERICS_MSE, 0, NULL, 1, {10}, {2}, 64.0},
    {ETK_NUMERICS_MSE, 1, k4, 4, {3, 1, -3, NAN}, {NAN, 0, -3, 2}, 3.5},
    {ETK_NUMERICS_MSE, 2, k22, 4, {4, 9, 6, 4}, {1, 2, 3, 10}, 25.75},
};

/* Runs every case of one metric; returns how many there were. */
static size_t check_comparator_cases(etk_numerics_metric_t metric) {
  size_t ran = 0;
  for (size_t i = 0; i < sizeof comparator_cases / sizeof *comparator_cases;
       i++) {
    const comparator_case_t *c = &comparator_cases[i];
    if (c->metric != metric) continue;
    double got = cmp(metric, f64(c->a, c->dim, c->sizes, c->count),
                     f64(c->b, c->dim, c->sizes, c->count));
    if (got != c->expected)
      printf("# case %zu: got %.17g, want %.17g\n", i, got, c->expected);
    CHECK(got == c->expected);
    ran++;
  }
  return ran;
}

ETK_TEST(l1_comparator) {
  CHECK(check_comparator_cases(ETK_NUMERICS_L1) == 5);
}

ETK_TEST(mse_comparator) {
  CHECK(check_comparator_cases(ETK_NUMERICS_MSE) == 4);
}

ETK_TEST(snr_comparator) {
  static const double x[4] = {1, 2, 3, 4};
  CHECK(isinf(cmp(ETK_NUMERICS_SNR, f64(x, 1, k4, 4), f64(x, 1, k4, 4))));
  static const double one = 1, two = 2;
  CHECK(cmp(ETK_NUMERICS_SNR, f64(&one, 0, NULL, 1), f64(&two, 0, NULL, 1)) ==
        0.0);
  static const double a[2] = {NAN, 1}, b[2] = {0, 1};
  double v = cmp(ETK_NUMERICS_SNR, f64(a, 1, k2, 2), f64(b, 1, k2, 2));
  CHECK(isinf(v) && v > 0);
  static const double m1[4] = {4, 9, 6, 4}, m2[4] = {1, 2, 3, 5};
  CHECK(fabs(cmp(ETK_NUMERICS_SNR, f64(m1, 2, k22, 4), f64(m2, 2, k22, 4)) -
             10.0 * log10(37.25 / 17.0)) < 1e-12);
  static const double z[2] = {0, 0}, nz[2] = {0, 1};
  CHECK(isnan(cmp(ETK_NUMERICS_SNR, f64(z, 1, k2, 2), f64(z, 1, k2, 2))));
  v = cmp(ETK_NUMERICS_SNR, f64(z, 1, k2, 2), f64(nz, 1, k2, 2));
  CHECK(isinf(v) && v < 0);
}

ETK_TEST(shape_rules_and_nan_to_num) {
  static const double x3[3] = {1, 2, 3}, x4[4] = {1, 2, 3, 4}, one = 1;
  etk_numerics_tensor_t a = f64(x3, 1, k3, 3), b = f64(x4, 1, k4, 4);
  double out;
  etk_error_t err;
  etk_error_clear(&err);
  for (int m = ETK_NUMERICS_L1; m <= ETK_NUMERICS_SNR; m++) {
    CHECK_EQ_INT(
        etk_numerics_compare(&a, &b, (etk_numerics_metric_t)m, 0, &out, NULL),
        ETK_E_MISMATCH);
  }
  CHECK_EQ_INT(etk_numerics_compare(&a, &b, ETK_NUMERICS_MSE, 0, &out, &err),
               ETK_E_MISMATCH);
  CHECK_EQ_STR(err.message, "shapes [3] and [4] cannot be broadcast");
  /* [3] vs [1] broadcasts silently, as upstream (quirk) */
  etk_numerics_tensor_t c = f64(&one, 1, k1, 1);
  CHECK_EQ_INT(etk_numerics_compare(&a, &c, ETK_NUMERICS_L1, 0, &out, NULL),
               ETK_OK);
  CHECK(out == 3.0); /* |1-1| + |2-1| + |3-1| */
  CHECK_EQ_INT(etk_numerics_compare(&a, &c, ETK_NUMERICS_L1,
                                    ETK_NUMERICS_NO_BROADCAST, &out, NULL),
               ETK_E_MISMATCH);
  /* infinities are kept without a NaN, clamped with one */
  static const double inf2[2] = {INFINITY, 1}, fin[2] = {0, 1};
  CHECK(isinf(cmp(ETK_NUMERICS_L1, f64(inf2, 1, k2, 2), f64(fin, 1, k2, 2))));
  static const double infnan[2] = {INFINITY, NAN};
  CHECK(cmp(ETK_NUMERICS_L1, f64(infnan, 1, k2, 2), f64(fin, 1, k2, 2)) ==
        DBL_MAX + 1.0);
  /* other dtypes are read as float64 */
  static const int32_t ints[3] = {1, 2, 3};
  static const uint16_t halves[3] = {0x3c00, 0x4000, 0x4200}; /* 1 2 3 */
  etk_numerics_tensor_t ti = {ETK_SCALAR_TYPE_INT, 1, k3, NULL, 0, ints, 12};
  etk_numerics_tensor_t th = {ETK_SCALAR_TYPE_HALF, 1, k3, NULL, 0, halves, 6};
  CHECK(cmp(ETK_NUMERICS_MSE, ti, th) == 0.0);
  /* a strided view (every other element) */
  static const double wide[6] = {1, 9, 2, 9, 3, 9};
  static const int64_t st2[1] = {2};
  etk_numerics_tensor_t sv = {ETK_SCALAR_TYPE_DOUBLE, 1, k3, st2, 0, wide, 48};
  CHECK(cmp(ETK_NUMERICS_MAX_ABS, sv, a) == 0.0);
  CHECK(fabs(cmp(ETK_NUMERICS_COSINE, sv, a) - 1.0) < 1e-15);
  /* bounds are checked */
  sv.data_len = 39; /* element 4 ends at byte 40 */
  CHECK_EQ_INT(etk_numerics_compare(&sv, &a, ETK_NUMERICS_MSE, 0, &out, NULL),
               ETK_E_BAD_OFFSET);
  etk_numerics_tensor_t q = a;
  q.scalar_type = ETK_SCALAR_TYPE_QINT8;
  CHECK_EQ_INT(etk_numerics_compare(&q, &a, ETK_NUMERICS_MSE, 0, &out, NULL),
               ETK_E_UNSUPPORTED);
  etk_numerics_metric_t m;
  CHECK(etk_numerics_metric_parse(" mse\n", &m) == ETK_OK &&
        m == ETK_NUMERICS_MSE);
  CHECK(etk_numerics_metric_parse("Snr", &m) == ETK_OK &&
        m == ETK_NUMERICS_SNR);
  CHECK_EQ_INT(etk_numerics_metric_parse("L2", &m), ETK_E_INVALID_ARGUMENT);
}

/* ------------------------------------------------ compare_results */

static double cr(const float *ref, const float *run, size_t n,
                 etk_compare_metric_t m) {
  int64_t s[1] = {(int64_t)n};
  etk_numerics_tensor_t a = {ETK_SCALAR_TYPE_FLOAT, 1, s, NULL, 0, ref, n * 4};
  etk_numerics_tensor_t b = {ETK_SCALAR_TYPE_FLOAT, 1, s, NULL, 0, run, n * 4};
  double out = -12345;
  CHECK_EQ_INT(etk_compare_results_value(&a, &b, m, &out, NULL), ETK_OK);
  return out;
}

ETK_TEST(compare_results_values) {
  static const float run[4] = {1, 2.5f, 3, 3.5f};
  static const float c0[4] = {2, 2, 2, 2}, c1[4] = {1, 2, 3, 4};
  /* float32 arithmetic, Python round(x, 2) with ties to even */
  CHECK(cr(c0, run, 4, ETK_COMPARE_SNR) == 5.51);
  CHECK(cr(c0, run, 4, ETK_COMPARE_MSE) == 1.12); /* 1.125 */
  CHECK(cr(c0, run, 4, ETK_COMPARE_COSINE_SIMILARITY) == 0.94);
  CHECK(cr(c1, run, 4, ETK_COMPARE_SNR) == 17.78);
  CHECK(cr(c1, run, 4, ETK_COMPARE_MSE) == 0.12); /* 0.125 */
  CHECK(cr(c1, run, 4, ETK_COMPARE_COSINE_SIMILARITY) == 0.99);
  CHECK(isinf(cr(c1, c1, 4, ETK_COMPARE_SNR)));
  /* upstream's test_compare_results: near-identical tensors */
  float a[64], b[64];
  for (int i = 0; i < 64; i++) {
    a[i] = (float)sin(i * 0.3);
    b[i] = a[i] + (i % 2 ? 1e-3f : -1e-3f);
  }
  CHECK(cr(a, b, 64, ETK_COMPARE_MSE) < 0.5);
  CHECK(cr(a, b, 64, ETK_COMPARE_SNR) > 30);
  CHECK(cr(a, b, 64, ETK_COMPARE_COSINE_SIMILARITY) == 1.0);
  /* test_compare_results_uint8 */
  uint8_t u[8] = {10, 20, 30, 40, 50, 60, 70, 80}, v[8];
  for (int i = 0; i < 8; i++) v[i] = (uint8_t)(u[i] + (i == 3));
  int64_t s8[1] = {8};
  etk_numerics_tensor_t tu = {ETK_SCALAR_TYPE_BYTE, 1, s8, NULL, 0, u, 8};
  etk_numerics_tensor_t tv = {ETK_SCALAR_TYPE_BYTE, 1, s8, NULL, 0, v, 8};
  double out;
  CHECK(etk_compare_results_value(&tu, &tv, ETK_COMPARE_MSE, &out, NULL) ==
            ETK_OK &&
        out < 0.5);
  CHECK(etk_compare_results_value(&tu, &tv, ETK_COMPARE_SNR, &out, NULL) ==
            ETK_OK &&
        out > 30);
  CHECK(etk_compare_results_value(&tu, &tv, ETK_COMPARE_COSINE_SIMILARITY, &out,
                                  NULL) == ETK_OK &&
        out == 1.0);
  /* cosine needs equal shapes; mse broadcasts */
  int64_t s1[1] = {1};
  etk_numerics_tensor_t one = {ETK_SCALAR_TYPE_BYTE, 1, s1, NULL, 0, u, 1};
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_compare_results_value(
                   &tu, &one, ETK_COMPARE_COSINE_SIMILARITY, &out, &err),
               ETK_E_MISMATCH);
  CHECK_EQ_STR(err.message, "Input tensors must have the same shape");
  CHECK_EQ_INT(
      etk_compare_results_value(&tu, &one, ETK_COMPARE_MSE, &out, NULL),
      ETK_OK);
}

ETK_TEST(compare_results_text) {
  char num[64];
  etk_compare_format_value(INFINITY, num, sizeof num);
  CHECK_EQ_STR(num, "     inf");
  etk_compare_format_value(-INFINITY, num, sizeof num);
  CHECK_EQ_STR(num, "    -inf");
  etk_compare_format_value(-NAN, num, sizeof num);
  CHECK_EQ_STR(num, "     nan");
  etk_compare_format_value(-0.0, num, sizeof num);
  CHECK_EQ_STR(num, "-0.00000");
  etk_compare_format_value(12345.67, num, sizeof num);
  CHECK_EQ_STR(num, "12345.67000");
  static const float run[4] = {1, 2.5f, 3, 3.5f}, ref[4] = {1, 2, 3, 4};
  static const int64_t s[1] = {4};
  etk_numerics_tensor_t a = {ETK_SCALAR_TYPE_FLOAT, 1, s, NULL, 0, ref, 16};
  etk_numerics_tensor_t b = {ETK_SCALAR_TYPE_FLOAT, 1, s, NULL, 0, run, 16};
  etk_compare_pair_t pairs[2] = {{&a, &b}, {&a, NULL}};
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  double values[6];
  CHECK_EQ_INT(etk_compare_results_write(pairs, 2, 0, &sink, values, NULL),
               ETK_OK);
  size_t len;
  char *text = etk_render_sink_take(&sink, &len);
  CHECK_EQ_STR(text,
               "snr\n--------------------\n0    17.78000\n1        None\n\n\n"
               "mse\n--------------------\n0     0.12000\n1        None\n\n\n"
               "cosine_similarity\n--------------------\n0     0.99000\n"
               "1        None\n\n\n");
  free(text);
  CHECK(values[0] == 17.78 && values[2] == 0.12 && values[4] == 0.99);
  CHECK(isnan(values[1]));
  /* only mse; an error stops after the metrics already printed */
  int64_t s3[1] = {3};
  etk_numerics_tensor_t c = {ETK_SCALAR_TYPE_FLOAT, 1, s3, NULL, 0, ref, 12};
  etk_compare_pair_t bad[1] = {{&a, &c}};
  etk_render_sink_init_memory(&sink);
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_compare_results_write(bad, 1, 0, &sink, NULL, &err),
               ETK_E_MISMATCH);
  CHECK_EQ_STR(err.message,
               "snr of output 0: shapes [4] and [3] cannot be "
               "broadcast");
  text = etk_render_sink_take(&sink, &len);
  CHECK(text && len == 0);
  free(text);
  etk_render_sink_init_memory(&sink);
  CHECK_EQ_INT(etk_compare_results_write(pairs, 1, 1u << ETK_COMPARE_MSE, &sink,
                                         NULL, NULL),
               ETK_OK);
  text = etk_render_sink_take(&sink, &len);
  CHECK_EQ_STR(text, "mse\n--------------------\n0     0.12000\n\n\n");
  free(text);
}

/* ------------------------------------------------ logged values, A/B */

static etk_inspector_t *open_dump(const nf_dump_t *d) {
  etk_inspector_t *insp = NULL;
  etk_inspector_options_t o;
  etk_inspector_options_init(&o);
  o.etdump.copy = 1;
  if (etk_inspector_open_memory(d->etdp, d->etdp_len, &o, &insp, NULL) !=
      ETK_OK)
    return NULL;
  return insp;
}

ETK_TEST(debug_values_inflate_like_upstream) {
  nf_dump_t d;
  REQUIRE(nf_ab_dump(0, &d) == 0);
  etk_inspector_t *insp = open_dump(&d);
  REQUIRE(insp);
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  size_t n = etk_etdump_event_count(dump), tensors = 0, lists = 0, scalars = 0;
  for (size_t e = 0; e < n; e++) {
    etk_etdump_event_t ev;
    etk_etdump_event_get(dump, e, &ev);
    if (ev.kind != ETK_ETDUMP_EVENT_DEBUG) continue;
    etk_numerics_value_t v;
    etk_error_t err;
    etk_error_clear(&err);
    int rc = etk_numerics_debug_value(dump, d.buf, d.buf_len, e, 0, &v, &err);
    REQUIRE(rc == ETK_OK);
    if (v.kind == ETK_NUMERICS_VALUE_TENSOR) {
      tensors++;
      etk_numerics_tensor_t view;
      CHECK(etk_numerics_value_view(&v, &view));
      CHECK_EQ_INT(etk_numerics_tensor_check(&view, NULL, NULL), ETK_OK);
      if (v.list_count) lists++;
      if (ev.instruction_id == 0) {
        CHECK(v.dim == 2 && v.sizes[0] == 2 && v.sizes[1] == 2);
        float x[4];
        memcpy(x, v.data, 16);
        CHECK(x[0] == 1 && x[3] == 4);
      }
      /* without a buffer a non-empty tensor is an error (upstream: zeros) */
      CHECK_EQ_INT(etk_numerics_debug_value(dump, NULL, 0, e, 0, &v, NULL),
                   ETK_E_BAD_OFFSET);
      /* a buffer that is too short */
      CHECK_EQ_INT(etk_numerics_debug_value(dump, d.buf, 70, e, 0, &v, NULL),
                   ev.instruction_id == 0 ? ETK_OK : ETK_E_BAD_OFFSET);
    } else if (v.kind == ETK_NUMERICS_VALUE_SCALAR) {
      scalars++;
      CHECK(v.scalar == 7);
      etk_numerics_tensor_t view;
      CHECK(etk_numerics_value_view(&v, &view) && view.dim == 0);
    }
    if (v.list_count == 2) {
      etk_numerics_value_t item;
      CHECK_EQ_INT(
          etk_numerics_debug_value(dump, d.buf, d.buf_len, e, 1, &item, NULL),
          ETK_OK);
      CHECK(item.kind == ETK_NUMERICS_VALUE_TENSOR && item.sizes[0] == 1);
      CHECK_EQ_INT(
          etk_numerics_debug_value(dump, d.buf, d.buf_len, e, ~0u, &item, NULL),
          ETK_OK);
      CHECK(item.kind == ETK_NUMERICS_VALUE_TENSOR_LIST);
      CHECK_EQ_INT(
          etk_numerics_debug_value(dump, d.buf, d.buf_len, e, 2, &item, NULL),
          ETK_E_INVALID_ARGUMENT);
    }
  }
  CHECK_EQ_INT(tensors, 9); /* A logs no iid 6 */
  CHECK_EQ_INT(lists, 1);
  CHECK_EQ_INT(scalars, 1);
  etk_inspector_close(insp);
  nf_dump_free(&d);
}

typedef struct want_row {
  const char *name;
  int32_t iid;
  uint32_t out;
  int32_t item;
  int status;
  double mse, snr, max_abs, cosine;
} want_row_t;

ETK_TEST(ab_rows_sorted_by_instruction) {
  nf_dump_t da, db;
  REQUIRE(nf_ab_dump(0, &da) == 0 && nf_ab_dump(1, &db) == 0);
  etk_inspector_t *a = open_dump(&da), *b = open_dump(&db);
  REQUIRE(a && b);
  etk_numerics_ab_t *ab = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_numerics_ab_build(a, da.buf, da.buf_len, b, db.buf, db.buf_len,
                                NULL, &ab, &err) == ETK_OK);
  const double N = NAN, I = INFINITY;
  const want_row_t want[] = {
      {"native_call_convolution.out", 0, 0, -1, ETK_NUMERICS_MATCHED, 0.125,
       10 * log10(7.5 / 0.125), 0.5, 0.9917790736823157},
      {"native_call_relu.out", 1, 0, -1, ETK_NUMERICS_MATCHED, 0, I, 0, 1},
      {"linear #0", 2, 0, -1, ETK_NUMERICS_MATCHED, 0.03125,
       10 * log10(0.25 / 0.03125), 0.25, 0.9486832980505138},
      {"native_call_max_pool2d_with_indices.out", 3, 0, -1,
       ETK_NUMERICS_MATCHED, 0.125, 20, 0.5, 0.9984603532054123},
      {"native_call_max_pool2d_with_indices.out", 3, 1, -1,
       ETK_NUMERICS_MATCHED, N, N, 1, N}, /* int64: exact, 1 of 2 differs */
      {"native_call_split.out", 4, 0, 0, ETK_NUMERICS_MATCHED, 0, I, 0, 1},
      {"native_call_split.out", 4, 0, 1, ETK_NUMERICS_ONLY_A, N, N, N, N},
      {"", 5, 0, -1, ETK_NUMERICS_ONLY_A, N, N, N, N},
      {"", 6, 0, -1, ETK_NUMERICS_ONLY_B, N, N, N, N},
      {"", 7, 0, -1, ETK_NUMERICS_SHAPE_MISMATCH, N, N, N, N},
      {"", 8, 0, -1, ETK_NUMERICS_MATCHED, 0, N, 0, N},
      {"output", -1, 0, -1, ETK_NUMERICS_MATCHED, 0.125,
       10 * log10(2.5 / 0.125), 0.5, 0.9965457582448796},
  };
  size_t nw = sizeof want / sizeof want[0];
  CHECK_EQ_INT(etk_numerics_ab_row_count(ab), nw);
  for (size_t i = 0; i < nw && i < etk_numerics_ab_row_count(ab); i++) {
    etk_numerics_row_t r;
    REQUIRE(etk_numerics_ab_row_get(ab, i, &r) == ETK_OK);
    CHECK_EQ_STR(r.name, want[i].name);
    CHECK_EQ_STR(r.block, "Execute");
    CHECK_EQ_INT(r.instruction_id, want[i].iid);
    CHECK_EQ_INT(r.output_index, want[i].out);
    CHECK_EQ_INT(r.list_item, want[i].item);
    CHECK_EQ_INT(r.status, want[i].status);
    const double got[4] = {r.mse, r.snr, r.max_abs, r.cosine};
    const double exp[4] = {want[i].mse, want[i].snr, want[i].max_abs,
                           want[i].cosine};
    for (int k = 0; k < 4; k++) {
      bool ok = isnan(exp[k]) ? isnan(got[k])
                : isinf(exp[k])
                    ? got[k] == exp[k]
                    : fabs(got[k] - exp[k]) <= 1e-12 * fabs(exp[k]) + 1e-15;
      if (!ok)
        printf("# row %zu metric %d: %.17g != %.17g\n", i, k, got[k], exp[k]);
      CHECK(ok);
    }
  }
  etk_numerics_row_t r;
  for (size_t i = 0; i < etk_numerics_ab_row_count(ab); i++) {
    etk_numerics_ab_row_get(ab, i, &r);
    /* only the int64 indices are compared exactly */
    CHECK_EQ_INT(r.exact, i == 4);
    CHECK_EQ_INT(r.mismatches, i == 4 ? 1 : 0);
  }
  etk_numerics_ab_row_get(ab, 2, &r);
  CHECK_EQ_STR(r.delegate_debug_id_str, "linear #0");
  etk_numerics_ab_row_get(ab, 9, &r);
  CHECK_EQ_STR(r.shape_a, "[3]");
  CHECK_EQ_STR(r.shape_b, "[4]");
  etk_numerics_ab_row_get(ab, 4, &r);
  CHECK_EQ_STR(r.dtype_a, "int64");
  etk_numerics_ab_row_get(ab, 7, &r);
  CHECK_EQ_STR(r.dtype_a, "int");
  CHECK(r.dtype_b == NULL && r.event_b == UINT32_MAX);
  CHECK_EQ_INT(etk_numerics_ab_unpaired_blocks(ab, 0), 0);
  CHECK_EQ_INT(etk_numerics_ab_set_op_types(ab, 0, "aten.convolution.default"),
               ETK_OK);
  etk_numerics_ab_row_get(ab, 0, &r);
  CHECK_EQ_STR(r.op_types, "aten.convolution.default");
  etk_numerics_ab_free(ab);

  /* leaving program outputs out; a side whose buffer is too short */
  etk_numerics_ab_options_t o = {1};
  REQUIRE(etk_numerics_ab_build(a, da.buf, da.buf_len, b, db.buf, db.buf_len,
                                &o, &ab, NULL) == ETK_OK);
  CHECK_EQ_INT(etk_numerics_ab_row_count(ab), nw - 1);
  etk_numerics_ab_free(ab);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_numerics_ab_build(a, da.buf, da.buf_len, b, db.buf, 64, NULL,
                                     &ab, &err),
               ETK_E_BAD_OFFSET);
  CHECK(ab == NULL);
  CHECK_EQ_STR(err.where, "B");
  CHECK(strncmp(err.message, "ETDump event ", 13) == 0);
  etk_inspector_close(a);
  etk_inspector_close(b);
  nf_dump_free(&da);
  nf_dump_free(&db);
}

static int64_t outputs_of_3(void *ctx, const char *block, int32_t iid) {
  (void)ctx;
  (void)block;
  return iid == 3 ? 1 : 0; /* instruction 3 as a delegate call, 1 output */
}

ETK_TEST(integer_values_exact_and_delegate_arguments) {
  CHECK(etk_numerics_is_exact_type(ETK_SCALAR_TYPE_LONG));
  CHECK(etk_numerics_is_exact_type(ETK_SCALAR_TYPE_BOOL));
  CHECK(etk_numerics_is_exact_type(ETK_SCALAR_TYPE_INT));
  CHECK(!etk_numerics_is_exact_type(ETK_SCALAR_TYPE_CHAR)); /* int8 */
  CHECK(!etk_numerics_is_exact_type(ETK_SCALAR_TYPE_BYTE));
  CHECK(!etk_numerics_is_exact_type(ETK_SCALAR_TYPE_FLOAT));

  /* int64 compared as integers: 2^60 and 2^60 + 1 are equal as doubles */
  static const int64_t x[4] = {1, 2, (int64_t)1 << 60, 4},
                       y[4] = {1, 5, ((int64_t)1 << 60) + 1, 4};
  static const int64_t s4[1] = {4}, s22[2] = {2, 2}, tr[2] = {1, 2};
  etk_numerics_tensor_t a = {ETK_SCALAR_TYPE_LONG, 1, s4, NULL, 0, x, sizeof x};
  etk_numerics_tensor_t b = {ETK_SCALAR_TYPE_LONG, 1, s4, NULL, 0, y, sizeof y};
  uint64_t bad = 99, n = 0;
  REQUIRE(etk_numerics_count_mismatches(&a, &b, &bad, &n, NULL) == ETK_OK);
  CHECK_EQ_INT(bad, 2);
  CHECK_EQ_INT(n, 4);
  REQUIRE(etk_numerics_count_mismatches(&a, &a, &bad, NULL, NULL) == ETK_OK);
  CHECK_EQ_INT(bad, 0);
  /* a transposed view of x against x read in that order */
  static const int64_t xt[4] = {1, (int64_t)1 << 60, 2, 4};
  etk_numerics_tensor_t at = {ETK_SCALAR_TYPE_LONG, 2, s22, tr, 0, x, sizeof x};
  etk_numerics_tensor_t bt = {
      ETK_SCALAR_TYPE_LONG, 2, s22, NULL, 0, xt, sizeof xt};
  REQUIRE(etk_numerics_count_mismatches(&at, &bt, &bad, NULL, NULL) == ETK_OK);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(etk_numerics_count_mismatches(&a, &at, &bad, NULL, NULL),
               ETK_E_MISMATCH);

  /* the fixtures: max_pool's int64 indices are an exact row */
  nf_dump_t da, db;
  REQUIRE(nf_ab_dump(0, &da) == 0 && nf_ab_dump(1, &db) == 0);
  etk_inspector_t *ia = open_dump(&da), *ib = open_dump(&db);
  REQUIRE(ia && ib);
  etk_numerics_ab_t *ab = NULL;
  REQUIRE(etk_numerics_ab_build(ia, da.buf, da.buf_len, ib, db.buf, db.buf_len,
                                NULL, &ab, NULL) == ETK_OK);
  etk_numerics_row_t r;
  size_t idx = SIZE_MAX;
  for (size_t i = 0; i < etk_numerics_ab_row_count(ab); i++) {
    etk_numerics_ab_row_get(ab, i, &r);
    if (r.dtype_a && strcmp(r.dtype_a, "int64") == 0) idx = i;
  }
  REQUIRE(idx != SIZE_MAX);
  etk_numerics_ab_row_get(ab, idx, &r);
  CHECK(r.exact);
  CHECK_EQ_INT(r.mismatches, 1); /* {1, 3} against {1, 2} */
  CHECK(isnan(r.mse) && isnan(r.snr));
  CHECK(!etk_numerics_is_exact_dtype("int8"));
  CHECK(etk_numerics_is_exact_dtype("int64"));
  /* instruction 3 as a delegate call with one output: value 0 is an
   * argument, value 1 (the last) its output */
  CHECK_EQ_INT(etk_numerics_ab_mark_arguments(ab, outputs_of_3, NULL), 1);
  etk_numerics_ab_row_get(ab, idx - 1, &r);
  CHECK_EQ_INT(r.instruction_id, 3);
  CHECK_EQ_INT(r.status, ETK_NUMERICS_ARGUMENT);
  etk_numerics_ab_row_get(ab, idx, &r);
  CHECK_EQ_INT(r.status, ETK_NUMERICS_MATCHED);
  /* without a callback only DELEGATE_CALL events count: none here */
  etk_numerics_ab_free(ab);
  REQUIRE(etk_numerics_ab_build(ia, da.buf, da.buf_len, ib, db.buf, db.buf_len,
                                NULL, &ab, NULL) == ETK_OK);
  CHECK_EQ_INT(etk_numerics_ab_mark_arguments(ab, NULL, NULL), 0);
  etk_numerics_ab_free(ab);
  etk_inspector_close(ia);
  etk_inspector_close(ib);
  nf_dump_free(&da);
  nf_dump_free(&db);
}

ETK_TEST_MAIN()
