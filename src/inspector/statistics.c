/*
 * statistics.c - PerfData statistics, bit-identical to numpy and Python.
 *
 * PURPOSE
 *   Upstream's PerfData computes p10/p50/p90 with numpy.percentile (default
 *   "linear" method), avg with numpy.mean and min/max with Python builtins.
 *   Tables compare digits, so the last bit matters: the recipes below
 *   reproduce numpy's exact operation order (docs inspector.md 5.2).
 *
 * RECIPES
 *   percentile(a sorted ascending, p): q = p / 100.0, v = (n - 1) * q;
 *     v >= n - 1 -> a[n-1]; else i = floor(v), g = v - i, d = a[i+1] - a[i],
 *     result = a[i+1] - d * (1 - g) when g >= 0.5, else a[i] + d * g
 *     (numpy's _lerp, which interpolates from the nearer end).
 *   mean: numpy's add.reduce starts from the identity 0.0 and adds the
 *     pairwise sum: n < 8 a plain loop from 0.0; n <= 128 eight interleaved
 *     accumulators seeded with a[0..7], combined ((r0+r1)+(r2+r3)) +
 *     ((r4+r5)+(r6+r7)), then the tail; above 128 the array is split at
 *     n/2 rounded down to a multiple of 8 and both halves summed
 *     recursively.  Then the sum is divided by n.
 *   min/max: Python's builtins keep the first element unless a later one is
 *     strictly smaller/larger.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/inspector_core.h"
#include "inspector_internal.h"

static double pairwise_sum(const double *a, size_t n) {
  if (n < 8) {
    double res = 0.;
    for (size_t i = 0; i < n; i++) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; j++) r[j] = a[j];
    size_t i;
    for (i = 8; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; j++) r[j] += a[i + j];
    double res =
        ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double etk_stats_mean(const double *raw, size_t n) {
  if (!raw || n == 0) return (double)NAN;
  double sum = 0.0;
  sum += pairwise_sum(raw, n);
  return sum / (double)n;
}

double etk_stats_percentile_sorted(const double *a, size_t n, double p) {
  if (n == 0) return (double)NAN;
  double q = p / 100.0;
  double v = (double)(n - 1) * q;
  if (v >= (double)(n - 1)) return a[n - 1];
  double fi = floor(v);
  size_t i = (size_t)fi;
  double g = v - fi;
  double lo = a[i], hi = a[i + 1];
  double d = hi - lo;
  return g >= 0.5 ? hi - d * (1.0 - g) : lo + d * g;
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  int an = a != a, bn = b != b;
  if (an || bn) return an - bn; /* NaN last, as numpy sorts */
  return (a > b) - (a < b);
}

/* ---------------------------------------------------- selection */

/* Rearranges a[lo..hi) so that a[k] holds the value sorting would put
 * there, with nothing larger before it and nothing smaller after it
 * (quickselect, median of three; after too many rounds the rest is sorted,
 * so no input makes it quadratic).  Only for arrays without NaN, where `<`
 * is a total order: then equal values have equal bits (the caller also
 * excludes -0.0), so the values at every rank are exactly sorting's. */
static void select_rank(double *a, size_t lo, size_t hi, size_t k) {
  unsigned rounds = 0;
  while (hi - lo > 16) {
    if (++rounds > 64) {
      qsort(a + lo, hi - lo, sizeof *a, cmp_double);
      return;
    }
    size_t mid = lo + (hi - lo) / 2;
    double x = a[lo], y = a[mid], z = a[hi - 1];
    double pivot =
        x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
    /* Hoare partition: [lo, j] <= pivot <= [j + 1, hi) */
    size_t i = lo, j = hi - 1;
    for (;;) {
      while (a[i] < pivot) i++;
      while (pivot < a[j]) j--;
      if (i >= j) break;
      double t = a[i];
      a[i] = a[j];
      a[j] = t;
      i++;
      j--;
    }
    if (k <= j)
      hi = j + 1;
    else
      lo = j + 1;
  }
  /* insertion sort of the small rest */
  for (size_t i = lo + 1; i < hi; i++) {
    double v = a[i];
    size_t m = i;
    while (m > lo && v < a[m - 1]) {
      a[m] = a[m - 1];
      m--;
    }
    a[m] = v;
  }
}

static double min_of(const double *a, size_t lo, size_t hi) {
  double m = a[lo];
  for (size_t i = lo + 1; i < hi; i++)
    if (a[i] < m) m = a[i];
  return m;
}

/* numpy's linear percentile from the two values around rank v (see
 * etk_stats_percentile_sorted). */
static double lerp_ranks(double v, double lo, double hi) {
  double g = v - floor(v);
  double d = hi - lo;
  return g >= 0.5 ? hi - d * (1.0 - g) : lo + d * g;
}

/* p10, p50 and p90 of a (n > 1, unsorted, no NaN, no -0.0) in expected
 * O(n): the ranks each needs are selected, from the middle outwards. */
static void percentiles_by_selection(double *a, size_t n, double out[3]) {
  static const double ps[3] = {10, 50, 90};
  size_t idx[3];
  double v[3];
  for (int t = 0; t < 3; t++) {
    v[t] = (double)(n - 1) * (ps[t] / 100.0);
    idx[t] = v[t] >= (double)(n - 1) ? n - 1 : (size_t)floor(v[t]);
  }
  select_rank(a, 0, n, idx[1]);
  if (idx[0] < idx[1]) select_rank(a, 0, idx[1], idx[0]);
  if (idx[2] > idx[1]) select_rank(a, idx[1] + 1, n, idx[2]);
  /* now a[idx[t]] is rank idx[t], and everything after a selected rank
   * is >= it, so rank idx + 1 is the smallest value after it up to the
   * next selected rank (or the end) */
  for (int t = 0; t < 3; t++) {
    size_t i = idx[t];
    if (v[t] >= (double)(n - 1)) { /* the last rank: the maximum */
      out[t] = a[0];
      for (size_t m = 1; m < n; m++)
        if (a[m] > out[t]) out[t] = a[m];
      continue;
    }
    size_t end = n;
    for (int u = 0; u < 3; u++)
      if (idx[u] > i && idx[u] < end) end = idx[u] + 1;
    out[t] = lerp_ranks(v[t], a[i], min_of(a, i + 1, end));
  }
}

void insp_stats_single(double d, etk_stats_t *out) {
  out->count = 1;
  out->p10 = out->p50 = out->p90 = out->min = out->max = d;
  out->avg = (0.0 + (0.0 + d)) / 1.0; /* etk_stats_mean: 0.0 + sum */
}

int etk_stats_compute(const double *raw, size_t n, double *scratch,
                      etk_stats_t *out) {
  if (!raw || !scratch || !out || n == 0) return ETK_E_INVALID_ARGUMENT;
  if (n == 1) { /* the recipes below reduced to one value (a single run) */
    insp_stats_single(raw[0], out);
    scratch[0] = raw[0];
    return ETK_OK;
  }
  memcpy(scratch, raw, n * sizeof *raw);
  int sorted = 1, plain = 1; /* plain: no NaN and no -0.0 */
  for (size_t i = 1; i < n && sorted; i++)
    if (!(scratch[i - 1] <= scratch[i])) sorted = 0;
  out->count = n;
  if (!sorted && n > 32) {
    for (size_t i = 0; i < n && plain; i++)
      plain =
          scratch[i] == scratch[i] && !(scratch[i] == 0 && signbit(scratch[i]));
    if (plain) {
      double p[3];
      percentiles_by_selection(scratch, n, p);
      out->p10 = p[0];
      out->p50 = p[1];
      out->p90 = p[2];
    }
  }
  if (sorted || n <= 32 || !plain) {
    if (!sorted) qsort(scratch, n, sizeof *scratch, cmp_double);
    out->p10 = etk_stats_percentile_sorted(scratch, n, 10);
    out->p50 = etk_stats_percentile_sorted(scratch, n, 50);
    out->p90 = etk_stats_percentile_sorted(scratch, n, 90);
  }
  out->avg = etk_stats_mean(raw, n);
  double mn = raw[0], mx = raw[0];
  for (size_t i = 1; i < n; i++) {
    if (raw[i] < mn) mn = raw[i];
    if (raw[i] > mx) mx = raw[i];
  }
  out->min = mn;
  out->max = mx;
  return ETK_OK;
}
