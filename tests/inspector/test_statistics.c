/*
 * test_statistics.c - PerfData statistics bit-identical to numpy.
 *
 * HOW THE EXPECTED VALUES WERE DERIVED
 *   Independently of etkit, with numpy 1.24.2 (Debian's python3-numpy, the
 *   version the inspector notes were verified with):
 *     a = [float((i * 2654435761 + seed) % 1000003 + 1) / 7000.0
 *          for i in range(n)]
 *     np.percentile(a, 10), np.percentile(a, 50), np.percentile(a, 90),
 *     np.mean(a)
 *   printed as the hex bit patterns below.  The sizes cover numpy's three
 *   summation regimes (n < 8, 8 <= n <= 128 with eight accumulators, n >
 *   128 split recursively).  The test regenerates `a` with the same
 *   IEEE operations and needs no Python.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/inspector.h"
#include "test_helpers.h"

static const struct {
  size_t n;
  uint64_t seed;
  uint64_t p10, p50, p90, mean;
} cases[] = {
    {1, 1, 0x3f32b97d835d548eull, 0x3f32b97d835d548eull, 0x3f32b97d835d548eull,
     0x3f32b97d835d548eull},
    {2, 2, 0x40187286ef16e10cull, 0x403e8eb851eb851full, 0x404b80677408a8feull,
     0x403e8eb851eb851full},
    {3, 3, 0x402872617c1bda51ull, 0x404e8eaef52cc370ull, 0x405b8062c5a94826ull,
     0x404e8eaef52cc370ull},
    {5, 4, 0x403031d50cee8114ull, 0x404e8eb3a38c2447ull, 0x405c7e8bd9616d21ull,
     0x405045808e4e86b3ull},
    {7, 5, 0x4027d41205bc01a5ull, 0x404e8eb851eb851full, 0x405b76802572fb08ull,
     0x404e726c95f6b8a8ull},
    {8, 6, 0x402bccbfb15b5740ull, 0x4051c2bf577a9662ull, 0x406005f35c64e0eeull,
     0x4051c2bf577a9662ull},
    {9, 7, 0x402fc56d5cfaacdaull, 0x404e8ec1aeaa46cdull, 0x405f8cd5b1b53800ull,
     0x405176a83231378full},
    {16, 8, 0x40337851eb851eb8ull, 0x4051aa01c163c451ull, 0x406078a7ef9db22dull,
     0x40529b5e5ab277f4ull},
    {17, 9, 0x40338c29e56f3c54ull, 0x40540ca2ab72653bull, 0x40603b993fb8d8bdull,
     0x405349832875fe09ull},
    {100, 10, 0x4030af568ae9b4c0ull, 0x4052cac788a17fdaull,
     0x4060cd9efbba7c2bull, 0x4052c92384a6e1fcull},
    {127, 11, 0x402f5bc3d8e996cbull, 0x40528083126e978dull,
     0x40608ac6d4dffe21ull, 0x405281d162fe28c9ull},
    {128, 12, 0x402f8373ccbdd202ull, 0x405267c325281510ull,
     0x4060884e2cd26ad9ull, 0x40527468488ec65dull},
    {129, 13, 0x402fab23c0920d3aull, 0x40528087c0cdf865ull,
     0x406085d584c4d791ull, 0x4052858669aa7950ull},
    {200, 14, 0x402e46af6d0319edull, 0x4051d33a38c24476ull,
     0x40600791866845bfull, 0x4051e38f32378ab1ull},
    {1000, 15, 0x402dd719383b7356ull, 0x40520c83126e978dull,
     0x40601ea95720b5a1ull, 0x4051f6a57cddfd39ull},
    {4097, 16, 0x402cdba5e353f7cfull, 0x4051e87058f11430ull,
     0x406015087c0cdf87ull, 0x4051e479667e1301ull},
};

static uint64_t bits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

ETK_TEST(percentiles_and_mean_match_numpy_bit_for_bit) {
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t n = cases[c].n;
    double *a = malloc(n * sizeof *a), *scratch = malloc(n * sizeof *a);
    REQUIRE(a && scratch);
    for (size_t i = 0; i < n; i++)
      a[i] = (double)((i * 2654435761ull + cases[c].seed) % 1000003ull + 1) /
             7000.0;
    etk_stats_t st;
    REQUIRE(etk_stats_compute(a, n, scratch, &st) == ETK_OK);
    CHECK_EQ_U64(bits(st.p10), cases[c].p10);
    CHECK_EQ_U64(bits(st.p50), cases[c].p50);
    CHECK_EQ_U64(bits(st.p90), cases[c].p90);
    CHECK_EQ_U64(bits(st.avg), cases[c].mean);
    /* min/max are elements (Python builtins) */
    double mn = a[0], mx = a[0];
    for (size_t i = 1; i < n; i++) {
      if (a[i] < mn) mn = a[i];
      if (a[i] > mx) mx = a[i];
    }
    CHECK(st.min == mn && st.max == mx);
    free(a);
    free(scratch);
  }
}

ETK_TEST(appendix_b_statistics) {
  /* notes Appendix B: raw [0.01, 0.02, 0.04] -> p10 0.012, p50 0.02,
   * p90 0.036000000000000004, avg 0.023333333333333334 */
  const double raw[3] = {0.01, 0.02, 0.04};
  double scratch[3];
  etk_stats_t st;
  REQUIRE(etk_stats_compute(raw, 3, scratch, &st) == ETK_OK);
  CHECK(th_stats_repr_is(&st, "0.012", "0.02", "0.036000000000000004",
                         "0.023333333333333334"));
}

ETK_TEST(median_equals_statistics_median) {
  /* upstream test_perf_data: p50 == statistics.median (odd and even n);
   * statistics.median of an even list averages the middle pair, which
   * numpy's interpolation at g = 0.5 reproduces: lo + (hi - lo) * 0.5 vs
   * (lo + hi) / 2 agree for these values (checked by hand). */
  const double odd[5] = {5, 1, 4, 2, 3}, even[4] = {4, 1, 3, 2};
  double s[5];
  etk_stats_t st;
  etk_stats_compute(odd, 5, s, &st);
  CHECK(st.p50 == 3.0);
  etk_stats_compute(even, 4, s, &st);
  CHECK(st.p50 == 2.5);
}

static int cmp_asc(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* etk_stats_compute selects the ranks it needs instead of sorting large
 * inputs; the result must be bit-identical to sorting first (the recipe
 * numpy's values above were checked against). */
ETK_TEST(selection_equals_sorting) {
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  static const size_t sizes[] = {33,  34,  40,  64,   99,   100,
                                 101, 255, 256, 1000, 4099, 20000};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    size_t n = sizes[si];
    double *a = malloc(n * sizeof *a), *sorted = malloc(n * sizeof *a),
           *scratch = malloc(n * sizeof *a);
    REQUIRE(a && sorted && scratch);
    for (int shape = 0; shape < 7; shape++) {
      for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        switch (shape) {
          case 0:
            a[i] = (double)(rng % 1000003) / 7000.0;
            break; /* random */
          case 1:
            a[i] = (double)(rng % 5);
            break; /* few values */
          case 2:
            a[i] = (double)(n - i);
            break; /* descending */
          case 3:
            a[i] = 1.5;
            break; /* all equal */
          case 4:
            a[i] = (double)(i % 2 ? i : n - i) * 1e-6;
            break; /* zigzag */
          case 5:
            a[i] = i == n / 2 ? -1.0 : (double)i;
            break; /* one out of place */
          default:
            a[i] = (double)(rng % 3) * 0.1 - 0.1;
            break; /* negatives, +0 */
        }
      }
      memcpy(sorted, a, n * sizeof *a);
      qsort(sorted, n, sizeof *sorted, cmp_asc);
      etk_stats_t st;
      REQUIRE(etk_stats_compute(a, n, scratch, &st) == ETK_OK);
      CHECK_EQ_U64(bits(st.p10),
                   bits(etk_stats_percentile_sorted(sorted, n, 10)));
      CHECK_EQ_U64(bits(st.p50),
                   bits(etk_stats_percentile_sorted(sorted, n, 50)));
      CHECK_EQ_U64(bits(st.p90),
                   bits(etk_stats_percentile_sorted(sorted, n, 90)));
      CHECK(st.min == sorted[0] && st.max == sorted[n - 1]);
    }
    free(a);
    free(sorted);
    free(scratch);
  }
}

ETK_TEST(nan_and_negative_zero_sort_as_before) {
  /* NaN sorts last (as numpy) and -0.0 keeps its place among equal zeros:
   * such inputs take the sorting path */
  double a[40], s[40], want[40];
  for (int i = 0; i < 40; i++) a[i] = (double)(39 - i);
  a[3] = (double)NAN; /* 36 becomes NaN: sorted 0..35, 37, 38, 39, NaN */
  for (int i = 0; i < 36; i++) want[i] = i;
  want[36] = 37;
  want[37] = 38;
  want[38] = 39;
  want[39] = (double)NAN;
  etk_stats_t st;
  REQUIRE(etk_stats_compute(a, 40, s, &st) == ETK_OK);
  CHECK_EQ_U64(bits(st.p10), bits(etk_stats_percentile_sorted(want, 40, 10)));
  CHECK_EQ_U64(bits(st.p90), bits(etk_stats_percentile_sorted(want, 40, 90)));
  for (int i = 0; i < 40; i++) a[i] = i % 2 ? 0.0 : -0.0;
  a[0] = 1.0; /* not sorted */
  REQUIRE(etk_stats_compute(a, 40, s, &st) == ETK_OK);
  CHECK(st.p50 == 0.0 && st.p90 == 0.0);
}

ETK_TEST(one_value_takes_the_general_recipes) {
  static const double vals[] = {0.25, -0.0, 0.0, 1e300, -3.5};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    double s;
    etk_stats_t st;
    REQUIRE(etk_stats_compute(&vals[i], 1, &s, &st) == ETK_OK);
    CHECK_EQ_U64(bits(st.avg), bits(etk_stats_mean(&vals[i], 1)));
    CHECK_EQ_U64(bits(st.p50),
                 bits(etk_stats_percentile_sorted(&vals[i], 1, 50)));
    CHECK_EQ_U64(bits(st.p10), bits(vals[i]));
    CHECK_EQ_U64(bits(st.max), bits(vals[i]));
  }
}

ETK_TEST(bad_arguments) {
  double x = 1, s;
  etk_stats_t st;
  CHECK_EQ_INT(etk_stats_compute(&x, 0, &s, &st), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_stats_compute(NULL, 1, &s, &st), ETK_E_INVALID_ARGUMENT);
  CHECK(isnan(etk_stats_mean(&x, 0)));
}

ETK_TEST_MAIN()
