/*
 * tensor_stats.c - upstream's STATS vector in fixed memory
 * (etkit/tensor_stats.h).
 *
 * Pass 1 reads every element once (cast to float32, as upstream's graph
 * does) for the sums, extremes and counts.  p99_abs: the float32 |x|
 * patterns (sign cleared) order like the magnitudes, NaN patterns above
 * infinity's, which is torch.topk's order.  The k-th largest pattern is
 * found digit by digit from the top byte: each pass counts, among the
 * elements whose higher digits match the prefix found so far, how many
 * have each value of the next digit, then walks the counts from 255 down.
 */
#include "etkit/tensor_stats.h"

#include <string.h>

#include "etkit/scalar_type.h"

static const char *const stat_names[ETK_TENSOR_STATS_COUNT] = {
    "min",       "max",        "mean",    "abs_max", "abs_mean",
    "std",       "rms",        "l1_norm", "l2_norm", "nan_count",
    "inf_count", "zero_count", "p99_abs"};

const char *etk_tensor_stat_name(unsigned i) {
  return i < ETK_TENSOR_STATS_COUNT ? stat_names[i] : NULL;
}

static float element(int32_t type, const uint8_t *base, size_t size, size_t i) {
  double d = 0.0;
  etk_scalar_type_read(type, base + i * size, &d);
  /* beyond float's range the cast is undefined in C: give the infinity
   * that IEEE rounding (and upstream's float32 cast) gives */
  if (d >= 3.4028236692093846e38 || d <= -3.4028236692093846e38) {
    float inf = 1e30f * 1e30f;
    return d > 0 ? inf : -inf;
  }
  return (float)d;
}

static uint32_t magnitude_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b & 0x7fffffffu;
}

static double nan_value(void) {
  uint64_t b = 0x7ff8000000000000ull;
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

/* sqrt by Newton's iteration from a power-of-two guess (no libm). */
static double square_root(double x) {
  if (!(x > 0.0) || x - x != 0.0)
    return x == 0.0 ? 0.0 : x; /* 0, NaN and +inf are their own roots */
  double g = 1.0;
  while (g * g < x) g *= 2.0;
  while (g * g > 4.0 * x) g *= 0.5;
  for (int i = 0; i < 60; i++) {
    double n = 0.5 * (g + x / g);
    if (n == g) break;
    g = n;
  }
  return g;
}

etk_status_t etk_tensor_stats_compute(int32_t scalar_type, const void *data,
                                      size_t numel,
                                      double out[ETK_TENSOR_STATS_COUNT]) {
  if (out == NULL || (data == NULL && numel > 0)) return ETK_E_INVALID_ARGUMENT;
  double probe;
  static const uint8_t zeros[8] = {0};
  if (!etk_scalar_type_read(scalar_type, zeros, &probe))
    return ETK_E_UNSUPPORTED;
  size_t size = etk_scalar_type_size(scalar_type);
  const uint8_t *p = data;
  double nan = nan_value();
  double mn = 0, mx = 0, amax = 0, sum = 0, asum = 0, sq = 0;
  uint64_t nans = 0, infs = 0, zero = 0;
  for (size_t i = 0; i < numel; i++) {
    double x = element(scalar_type, p, size, i);
    if (x != x) {
      nans++;
      continue;
    }
    double a = x < 0 ? -x : x;
    if (a - a != 0.0) infs++;
    if (x == 0.0) zero++;
    if (i == nans || x < mn) mn = x; /* first non-NaN element, or smaller */
    if (i == nans || x > mx) mx = x;
    if (a > amax) amax = a;
    sum += x;
    asum += a;
    sq += x * x;
  }
  for (unsigned i = 0; i < ETK_TENSOR_STATS_COUNT; i++) out[i] = nan;
  out[ETK_STAT_NAN_COUNT] = (double)nans;
  out[ETK_STAT_INF_COUNT] = (double)infs;
  out[ETK_STAT_ZERO_COUNT] = (double)zero;
  if (numel == 0) return ETK_OK;
  double n = (double)numel;
  if (nans == 0) {
    double mean = sum / n, msq = sq / n, var = msq - mean * mean;
    out[ETK_STAT_MIN] = mn;
    out[ETK_STAT_MAX] = mx;
    out[ETK_STAT_MEAN] = mean;
    out[ETK_STAT_ABS_MAX] = amax;
    out[ETK_STAT_ABS_MEAN] = asum / n;
    out[ETK_STAT_STD] = square_root(var < 0 ? -var : var);
    out[ETK_STAT_RMS] = square_root(msq);
    out[ETK_STAT_L1_NORM] = asum;
    out[ETK_STAT_L2_NORM] = square_root(sq);
  }
  /* p99_abs: the k-th largest magnitude pattern, k = ceil(n / 100) */
  uint64_t k = (numel + 99u) / 100u;
  uint32_t prefix = 0, mask = 0;
  uint32_t counts[256];
  for (int digit = 3; digit >= 0; digit--) {
    unsigned shift = 8u * (unsigned)digit;
    memset(counts, 0, sizeof counts);
    for (size_t i = 0; i < numel; i++) {
      uint32_t b = magnitude_bits(element(scalar_type, p, size, i));
      if ((b & mask) == prefix) counts[(b >> shift) & 0xffu]++;
    }
    int v = 255;
    while (v > 0 && counts[v] < k) {
      k -= counts[v];
      v--;
    }
    prefix |= (uint32_t)v << shift;
    mask |= 0xffu << shift;
  }
  float f;
  memcpy(&f, &prefix, sizeof f);
  out[ETK_STAT_P99_ABS] = f;
  return ETK_OK;
}
