/*
 * test_significance.c - the noise-aware comparison (etkit/significance.h)
 * against values computed independently (significance_reference.h, made by
 * make_significance_reference.py with numpy and the Python standard
 * library; case 0 is also checked by hand below), and its behaviour on
 * generated noisy timings: a planted 10 % regression among 200 operators is
 * the only change reported, and A/A comparisons report (almost) nothing.
 */
#include <math.h>

#include "etk_test.h"
#include "etkit/significance.h"
#include "etkit/status.h"
#include "significance_reference.h"
#include "store_dumps.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int close_to(double a, double b) {
  return fabs(a - b) <= 1e-9 * (fabs(b) > 1.0 ? fabs(b) : 1.0);
}

static void check_ref(const double *x, size_t nx, const double *y, size_t ny,
                      const double *e) {
  etk_shift_t s;
  REQUIRE(etk_shift_estimate(x, nx, y, ny, 0.95, &s) == ETK_OK);
  CHECK(close_to(s.u, e[0]));
  CHECK(close_to(s.p_value, e[1]));
  CHECK(close_to(s.shift, e[2]));
  CHECK(close_to(s.ci_low, e[3]));
  CHECK(close_to(s.ci_high, e[4]));
  CHECK(close_to(s.baseline, e[5]));
  CHECK(close_to(s.candidate, e[6]));
}

ETK_TEST(reference_values) {
  check_ref(ref0_x, N(ref0_x), ref0_y, N(ref0_y), ref0_expect);
  check_ref(ref1_x, N(ref1_x), ref1_y, N(ref1_y), ref1_expect);
  check_ref(ref2_x, N(ref2_x), ref2_y, N(ref2_y), ref2_expect);
  check_ref(ref3_x, N(ref3_x), ref3_y, N(ref3_y), ref3_expect);
}

/* 1..5 against 6..10 by hand: every candidate beats every baseline, U = 25,
 * mu = 12.5, var = 25/12 x 11, z = 12 / 4.787 = 2.507, p = 0.0122; the 25
 * differences are 1 (once), 2 (twice), ... 9 (once): median 5, and with
 * k = floor(12.5 - 1.96 x 4.787) = 3 the interval is [3, 7]. */
ETK_TEST(hand_checked_case) {
  etk_shift_t s;
  REQUIRE(etk_shift_estimate(ref0_x, 5, ref0_y, 5, 0.95, &s) == ETK_OK);
  CHECK(s.u == 25.0);
  CHECK(fabs(s.p_value - 0.0122) < 1e-4);
  CHECK(s.shift == 5.0 && s.ci_low == 3.0 && s.ci_high == 7.0);
  CHECK(fabs(etk_normal_quantile_two_sided(0.95) - 1.959964) < 1e-6);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The shift and interval are exact order statistics: the same as sorting
 * all nx * ny differences, here with many ties (values rounded to 0.01). */
ETK_TEST(order_statistics_match_sorting) {
  enum { NX = 301, NY = 400 };
  static double x[NX], y[NY], d[NX * NY];
  uint64_t st = 42;
  for (size_t i = 0; i < NX; i++)
    x[i] = round(100 * (1.0 + 0.1 * store_dump_gauss(&st))) / 100;
  for (size_t j = 0; j < NY; j++)
    y[j] = round(100 * (1.03 + 0.1 * store_dump_gauss(&st))) / 100;
  size_t n = 0;
  for (size_t j = 0; j < NY; j++)
    for (size_t i = 0; i < NX; i++) d[n++] = y[j] - x[i];
  qsort(d, n, sizeof *d, cmp_d);
  etk_shift_t s;
  REQUIRE(etk_shift_estimate(x, NX, y, NY, 0.9, &s) == ETK_OK);
  CHECK(s.shift == 0.5 * (d[n / 2 - 1] + d[n / 2]));
  double z = etk_normal_quantile_two_sided(0.9);
  size_t k =
      (size_t)floor((double)n / 2 - z * sqrt((double)n * (NX + NY + 1) / 12.0));
  CHECK(s.ci_low == d[k]);
  CHECK(s.ci_high == d[n - 1 - k]);
}

ETK_TEST(benjamini_hochberg) {
  double q[N(ref_bh_p)];
  REQUIRE(etk_fdr_bh(ref_bh_p, N(ref_bh_p), q) == ETK_OK);
  for (size_t i = 0; i < N(ref_bh_p); i++)
    CHECK(isnan(ref_bh_q[i]) ? isnan(q[i]) : close_to(q[i], ref_bh_q[i]));
}

ETK_TEST(edge_cases) {
  double a[3] = {1.0, 1.0, 1.0}, nan_only[2] = {NAN, NAN};
  etk_shift_t s;
  REQUIRE(etk_shift_estimate(a, 3, a, 3, 0.95, &s) == ETK_OK);
  CHECK(s.p_value == 1.0 && s.shift == 0.0); /* all tied: nothing known */
  CHECK(etk_shift_estimate(a, 3, nan_only, 2, 0.95, &s) ==
        ETK_E_INVALID_ARGUMENT);
  CHECK(etk_shift_estimate(a, 0, a, 3, 0.95, &s) == ETK_E_INVALID_ARGUMENT);
  CHECK(etk_shift_estimate(a, 3, a, 3, 1.5, &s) == ETK_E_INVALID_ARGUMENT);
  etk_shift_t big = {0};
  big.baseline = 10.0;
  big.shift = 0.1; /* 1 %: below the 2 % threshold however sure */
  big.ci_low = 0.09;
  big.ci_high = 0.11;
  int sig = 1;
  CHECK(etk_change_classify(&big, 1e-9, NULL, &sig, NULL, NULL, NULL) ==
        ETK_CHANGE_SAME);
  CHECK(sig == 0);
}

/* `ops` operators, n samples per side: log-normal noise (sigma) with 2 %
 * of samples 3x slower (outliers), operator `slow` 10 % slower in the
 * candidate, compared through etk_pooled_compare (the engine of `etkit store
 * compare`).  Returns the number of other operators reported; *found says
 * whether `slow` was reported as slower. */
static size_t flagged(uint64_t seed, size_t ops, size_t n, double sigma,
                      int slow, int *found) {
  etk_pooled_t *pool = etk_pooled_new();
  uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
  *found = 0;
  for (size_t o = 0; o < ops; o++) {
    double base = 0.01 + 0.0005 * (double)o;
    for (size_t i = 0; i < n; i++) {
      double x = base * exp(sigma * store_dump_gauss(&st));
      double y = base * exp(sigma * store_dump_gauss(&st)) *
                 ((int)o == slow ? 1.10 : 1.0);
      if (store_dump_gauss(&st) > 2.054) x *= 3.0; /* ~2 % outliers */
      if (store_dump_gauss(&st) > 2.054) y *= 3.0;
      etk_pooled_add(pool, 0, &o, sizeof o, x, NULL);
      etk_pooled_add(pool, 1, &o, sizeof o, y, NULL);
    }
  }
  etk_pooled_change_t *ch = NULL;
  size_t count = 0, others = 0;
  if (etk_pooled_compare(pool, NULL, &ch, &count) != ETK_OK || count != ops)
    others = ops; /* fails the callers' checks */
  for (size_t i = 0; i < count; i++) {
    if (!ch[i].significant) continue;
    if ((int)ch[i].id == slow && ch[i].direction == ETK_CHANGE_SLOWER)
      *found = 1;
    else
      others++;
  }
  free(ch);
  etk_pooled_free(pool);
  return others;
}

ETK_TEST(planted_regression_found_alone) {
  for (uint64_t seed = 1; seed <= 5; seed++) {
    int found = 0;
    size_t others = flagged(seed, 200, 30, 0.05, 17, &found);
    CHECK(found);
    CHECK_EQ_INT(others, 0);
  }
}

/* A/A: the same distribution on both sides; the documented figure
 * (docs/store.md) is printed here. */
ETK_TEST(aa_false_positive_rate) {
  size_t trials = 40, ops = 200, total = 0;
  for (uint64_t seed = 100; seed < 100 + trials; seed++) {
    int found;
    total += flagged(seed, ops, 30, 0.05, -1, &found);
  }
  double rate = (double)total / (double)(trials * ops);
  printf("# A/A: %zu of %zu operator comparisons flagged (rate %.5f)\n", total,
         trials * ops, rate);
  CHECK(rate < 0.001);
}

/* A 10-ns timer: baseline 12x300, 10x310, 2x320 (median 305), candidate
 * 2x300, 59x310, 57x320 (median 310).  The Hodges-Lehmann shift snaps to
 * one step (+10, +3.3 %) with a tiny p, yet the medians differ by half a
 * step: quantisation, which `store compare` used to flag as slower. */
static int timer_case(const etk_change_rule_t *rule) {
  static const int counts[2][3] = {{12, 10, 2}, {2, 59, 57}};
  etk_pooled_t *pool = etk_pooled_new();
  int key = 1;
  for (int side = 0; side < 2; side++)
    for (int v = 0; v < 3; v++)
      for (int i = 0; i < counts[side][v]; i++)
        etk_pooled_add(pool, side, &key, sizeof key, 300.0 + 10.0 * v, NULL);
  etk_pooled_change_t *ch = NULL;
  size_t count = 0;
  int sig = -1;
  if (etk_pooled_compare(pool, rule, &ch, &count) == ETK_OK && count == 1)
    sig = ch[0].significant;
  free(ch);
  etk_pooled_free(pool);
  return sig;
}

ETK_TEST(timer_steps_are_not_changes) {
  etk_change_rule_t rule;
  etk_change_rule_init(&rule);
  CHECK_EQ_INT(timer_case(&rule), 0); /* the step is detected: 10 */
  CHECK_EQ_INT(timer_case(NULL), 0);
  rule.resolution = -1; /* off: the old rule flags it */
  CHECK_EQ_INT(timer_case(&rule), 1);
  rule.resolution = 1; /* a 1-ns timer: 5 ns is a change */
  CHECK_EQ_INT(timer_case(&rule), 1);
  rule.min_delta = 20; /* an absolute floor above the shift */
  CHECK_EQ_INT(timer_case(&rule), 0);
}

ETK_TEST_MAIN()
