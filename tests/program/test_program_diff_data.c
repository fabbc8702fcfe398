/*
 * test_program_diff_data.c - the float32 statistics of `etkit diff A.pte
 * B.pte` (etk_program_diff_data) against a plain element-by-element
 * reference written here: the count of differing elements and of NaNs,
 * max |a-b|, the sequential double sum behind the mean, and the max
 * relative difference |a-b| / max(|a|, |b|) with its update rule, all
 * compared bit for bit.  The buffers mix dense and sparse changes, NaNs,
 * infinities, signed zeros, subnormals and lengths that are not whole
 * blocks, so every path of the block loop is taken.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/program_tools.h"
#include "etkit/scalar_type.h"

typedef struct ref {
  uint64_t differing, nan;
  double max_abs, mean_abs, max_rel;
} ref_t;

static ref_t reference(const float *a, const float *b, size_t n) {
  ref_t r = {0};
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    if (memcmp(&a[i], &b[i], 4) == 0) continue;
    r.differing++;
    double x = a[i], y = b[i];
    if (isnan(x) || isnan(y)) {
      r.nan++;
      continue;
    }
    double d = fabs(x - y);
    sum += d;
    if (d > r.max_abs) r.max_abs = d;
    double m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
    if (m > 0 && d > r.max_rel * m) r.max_rel = d / m;
  }
  uint64_t finite = r.differing - r.nan;
  r.mean_abs = finite ? sum / (double)finite : 0;
  return r;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

/* A value for element i: ordinary numbers mostly, special ones sometimes. */
static float value(void) {
  switch (next() % 16) {
    case 0:
      return NAN;
    case 1:
      return (next() & 1) ? INFINITY : -INFINITY;
    case 2:
      return (next() & 1) ? 0.0f : -0.0f;
    case 3:
      return 1e-40f * (float)(next() % 100); /* subnormal */
    case 4:
      return 3e38f;
    default:
      return ((float)(next() % 20001) - 10000.0f) * 1e-3f;
  }
}

static int same(double x, double y) {
  return memcmp(&x, &y, sizeof x) == 0;
}

static void check_case(const float *a, const float *b, size_t n) {
  etk_program_diff_tensor_t t;
  memset(&t, 0, sizeof t);
  etk_program_diff_data(ETK_SCALAR_TYPE_FLOAT, (const uint8_t *)a, n * 4,
                        (const uint8_t *)b, n * 4, &t);
  ref_t r = reference(a, b, n);
  CHECK_EQ_INT(t.elements, n);
  CHECK_EQ_INT(t.differing, r.differing);
  CHECK_EQ_INT(t.nan, r.nan);
  CHECK(same(t.max_abs, r.max_abs));
  CHECK(same(t.mean_abs, r.mean_abs));
  CHECK(same(t.max_rel, r.max_rel));
}

ETK_TEST(float32_statistics_match_the_reference_bit_for_bit) {
  enum { N = 5000 };
  float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  REQUIRE(a && b);
  /* change rates from every element to one in 500; lengths around the
   * 4-element and 64-element steps */
  static const unsigned every[] = {1, 2, 3, 7, 9, 64, 100, 500};
  static const size_t lengths[] = {1, 3, 4, 5, 63, 64, 65, 130, 1000, N};
  for (size_t e = 0; e < sizeof every / sizeof every[0]; e++) {
    for (size_t i = 0; i < N; i++) {
      a[i] = value();
      b[i] = next() % every[e] == 0 ? value() : a[i];
    }
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
      check_case(a, b, lengths[l]);
  }
  /* no special values at all: the dense path with a growing max_rel */
  for (size_t i = 0; i < N; i++) {
    a[i] = (float)(i % 977) * 0.25f + 1.0f;
    b[i] = a[i] + (float)(i % 13) * 0.01f + 0.001f;
  }
  check_case(a, b, N);
  /* every element changed, magnitudes from 2^-60 to 2^60: the double sum
   * rounds, so only the element order gives the reference's mean */
  for (size_t i = 0; i < N; i++) {
    a[i] = ldexpf((float)(next() % 1000 + 1), (int)(next() % 120) - 60);
    b[i] = ldexpf((float)(next() % 1000 + 1), (int)(next() % 120) - 60);
  }
  for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
    check_case(a, b, lengths[l]);
  /* identical buffers */
  check_case(a, a, N);
  free(a);
  free(b);
}

ETK_TEST(known_figures) {
  /* 1 vs 3: |a-b| = 2, rel 2/3; -1 vs 1: 2, rel 2; NaN counted apart */
  const float a[] = {1.0f, -1.0f, NAN, 5.0f};
  const float b[] = {3.0f, 1.0f, 0.0f, 5.0f};
  etk_program_diff_tensor_t t;
  memset(&t, 0, sizeof t);
  etk_program_diff_data(ETK_SCALAR_TYPE_FLOAT, (const uint8_t *)a, sizeof a,
                        (const uint8_t *)b, sizeof b, &t);
  CHECK_EQ_INT(t.elements, 4);
  CHECK_EQ_INT(t.differing, 3);
  CHECK_EQ_INT(t.nan, 1);
  CHECK(t.max_abs == 2.0);
  CHECK(t.mean_abs == 2.0);
  CHECK(t.max_rel == 2.0);
}

ETK_TEST_MAIN()
