/*
 * significance.c - the noise-aware comparison of two sets of timings
 * (etkit/significance.h): Hodges-Lehmann shift, its Mann-Whitney interval,
 * the Mann-Whitney U test with tie and continuity corrections, and
 * Benjamini-Hochberg.
 *
 * DATA LAYOUT
 *   Each comparison copies the finite samples of both sides into one
 *   malloc'd block and sorts each side.  The ranks of the U test come from
 *   one merge of the two sorted sides (tie groups get their average rank,
 *   and sum(t^3 - t) over groups feeds the variance correction).  The
 *   shift and its interval are order statistics of the nx * ny differences
 *   y_j - x_i, found without forming them: bisection on the value with a
 *   two-pointer count of the differences below it (O(nx + ny) per step).
 *
 * INVARIANTS
 *   - Every statistic is computed from the samples as given (no outlier
 *     removal): robustness comes from ranks and medians, not from
 *     discarding data.
 *   - p is clipped to [0, 1]; with every value tied the variance is 0 and
 *     p is 1 (nothing can be concluded), never NaN.
 *   - The order statistics are exact elements of the set of differences,
 *     the values sorting all of them would give.
 */
#include "etkit/significance.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/status.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Copies the finite values of src[0..n) into dst; returns their number. */
static size_t copy_finite(const double *src, size_t n, double *dst) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(src[i])) dst[k++] = src[i];
  return k;
}

static double median_sorted(const double *v, size_t n) {
  return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double etk_normal_quantile_two_sided(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) return NAN;
  /* P(|Z| > z) = erfc(z / sqrt 2): decreasing in z, so bisect. */
  double lo = 0.0, hi = 40.0, target = 1.0 - confidence;
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi);
    if (erfc(mid / sqrt(2.0)) > target)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* Mann-Whitney U of y against x (both sorted), with the tie-corrected
 * normal approximation. */
static void mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
                         etk_shift_t *out) {
  double rank_y = 0.0, ties = 0.0;
  size_t i = 0, j = 0, pos = 0; /* pos: values placed so far */
  while (i < nx || j < ny) {
    double v = (j >= ny || (i < nx && x[i] <= y[j])) ? x[i] : y[j];
    size_t cx = 0, cy = 0;
    while (i < nx && x[i] == v) i++, cx++;
    while (j < ny && y[j] == v) j++, cy++;
    double t = (double)(cx + cy);
    /* ranks pos+1 .. pos+t, average (2 pos + t + 1) / 2 */
    rank_y += (double)cy * ((double)pos + (t + 1.0) / 2.0);
    ties += t * t * t - t;
    pos += cx + cy;
  }
  double n1 = (double)nx, n2 = (double)ny, n = n1 + n2;
  out->u = rank_y - n2 * (n2 + 1.0) / 2.0;
  double mu = n1 * n2 / 2.0;
  double var = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
  if (!(var > 0.0)) {
    out->z = 0.0;
    out->p_value = 1.0;
    return;
  }
  double dev = fabs(out->u - mu) - 0.5;
  double z = dev / sqrt(var);
  out->z = out->u >= mu ? z : -z;
  double p = erfc(z / sqrt(2.0));
  out->p_value = p > 1.0 ? 1.0 : (p < 0.0 ? 0.0 : p);
}

/* Number of differences y_j - x_i <= t (x, y ascending): for each x_i
 * the y_j <= x_i + t form a prefix that only grows with i. */
static uint64_t count_at_most(const double *x, size_t nx, const double *y,
                              size_t ny, double t) {
  uint64_t count = 0;
  size_t j = 0;
  for (size_t i = 0; i < nx; i++) {
    while (j < ny && y[j] - x[i] <= t) j++;
    count += j;
  }
  return count;
}

/* The largest difference y_j - x_i that is <= t (one exists). */
static double largest_at_most(const double *x, size_t nx, const double *y,
                              size_t ny, double t) {
  double best = -INFINITY;
  size_t j = 0;
  for (size_t i = 0; i < nx; i++) { /* as in count_at_most */
    while (j < ny && y[j] - x[i] <= t) j++;
    if (j && y[j - 1] - x[i] > best) best = y[j - 1] - x[i];
  }
  return best;
}

/* The k-th smallest (0-based) of the nx * ny differences, exactly, without
 * forming them: bisect the value range until no double lies between the
 * bounds, keeping count(<= lo) <= k < count(<= hi), then take the largest
 * difference <= hi. */
static double kth_difference(const double *x, size_t nx, const double *y,
                             size_t ny, uint64_t k) {
  double lo = y[0] - x[nx - 1], hi = y[ny - 1] - x[0];
  if (count_at_most(x, nx, y, ny, lo) > k) return lo;
  for (int it = 0; it < 2100; it++) {
    double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (count_at_most(x, nx, y, ny, mid) > k)
      hi = mid;
    else
      lo = mid;
  }
  return largest_at_most(x, nx, y, ny, hi);
}

static void hodges_lehmann(const double *x, size_t nx, const double *y,
                           size_t ny, double confidence, etk_shift_t *out) {
  uint64_t pairs = (uint64_t)nx * ny;
  out->shift = kth_difference(x, nx, y, ny, pairs / 2);
  if (pairs % 2 == 0)
    out->shift =
        0.5 * (out->shift + kth_difference(x, nx, y, ny, pairs / 2 - 1));
  double z = etk_normal_quantile_two_sided(confidence);
  double n = (double)pairs;
  double c = floor(n / 2.0 - z * sqrt(n * ((double)(nx + ny) + 1.0) / 12.0));
  uint64_t lo = c > 0.0 ? (uint64_t)c : 0;
  if (lo > (pairs - 1) / 2) lo = (pairs - 1) / 2;
  out->ci_low = kth_difference(x, nx, y, ny, lo);
  out->ci_high = kth_difference(x, nx, y, ny, pairs - 1 - lo);
}

int etk_shift_estimate(const double *baseline, size_t nb,
                       const double *candidate, size_t nc, double confidence,
                       etk_shift_t *out) {
  if (!out || (!baseline && nb) || (!candidate && nc) ||
      !(confidence > 0.0 && confidence < 1.0))
    return ETK_E_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (nb == 0 || nc == 0 || nb > SIZE_MAX / sizeof(double) / 2 - nc)
    return ETK_E_INVALID_ARGUMENT;
  double *x = malloc((nb + nc) * sizeof *x);
  if (!x) return ETK_E_NO_MEMORY;
  size_t nx = copy_finite(baseline, nb, x);
  double *y = x + nx;
  size_t ny = copy_finite(candidate, nc, y);
  if (nx == 0 || ny == 0) {
    free(x);
    return ETK_E_INVALID_ARGUMENT;
  }
  qsort(x, nx, sizeof *x, cmp_double);
  qsort(y, ny, sizeof *y, cmp_double);
  out->n_baseline = nx;
  out->n_candidate = ny;
  out->baseline = median_sorted(x, nx);
  out->candidate = median_sorted(y, ny);
  mann_whitney(x, nx, y, ny, out);
  hodges_lehmann(x, nx, y, ny, confidence, out);
  free(x);
  return ETK_OK;
}

typedef struct ranked {
  double p;
  size_t index;
} ranked_t;

static int cmp_ranked(const void *a, const void *b) {
  const ranked_t *x = a, *y = b;
  if (x->p != y->p) return (x->p > y->p) - (x->p < y->p);
  return (x->index > y->index) - (x->index < y->index);
}

int etk_fdr_bh(const double *p, size_t n, double *q) {
  if (n == 0) return ETK_OK;
  if (!p || !q) return ETK_E_INVALID_ARGUMENT;
  if (n > SIZE_MAX / sizeof(ranked_t)) return ETK_E_NO_MEMORY;
  ranked_t *r = malloc(n * sizeof *r);
  if (!r) return ETK_E_NO_MEMORY;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (isnan(p[i])) continue;
    r[m].p = p[i];
    r[m].index = i;
    m++;
  }
  for (size_t i = 0; i < n; i++)
    if (isnan(p[i])) q[i] = NAN;
  qsort(r, m, sizeof *r, cmp_ranked);
  double running = 1.0;
  for (size_t k = m; k-- > 0;) {
    double v = r[k].p * (double)m / (double)(k + 1);
    if (v < running) running = v;
    q[r[k].index] = running;
  }
  free(r);
  return ETK_OK;
}

void etk_change_rule_init(etk_change_rule_t *rule) {
  if (!rule) return;
  rule->confidence = 0.95;
  rule->alpha = 0.05;
  rule->min_pct = 2.0;
  rule->min_delta = 0.0;
  rule->resolution = 0.0;
}

int etk_change_fails(int significant, etk_change_direction_t direction,
                     double delta_pct, double pct) {
  return significant && direction == ETK_CHANGE_SLOWER && delta_pct > pct;
}

const char *etk_change_direction_name(etk_change_direction_t d) {
  switch (d) {
    case ETK_CHANGE_SLOWER:
      return "slower";
    case ETK_CHANGE_FASTER:
      return "faster";
    default:
      return "same";
  }
}

etk_change_direction_t etk_change_classify(const etk_shift_t *s, double q,
                                           const etk_change_rule_t *rule,
                                           int *significant, double *delta_pct,
                                           double *ci_low_pct,
                                           double *ci_high_pct) {
  etk_change_rule_t def;
  if (!rule) {
    etk_change_rule_init(&def);
    rule = &def;
  }
  double base = s ? s->baseline : NAN;
  double scale = base != 0.0 ? 100.0 / fabs(base) : NAN;
  double d = s ? s->shift * scale : NAN;
  if (delta_pct) *delta_pct = d;
  if (ci_low_pct) *ci_low_pct = s ? s->ci_low * scale : NAN;
  if (ci_high_pct) *ci_high_pct = s ? s->ci_high * scale : NAN;
  int sig = s && q <= rule->alpha && (s->ci_low > 0.0 || s->ci_high < 0.0) &&
            fabs(d) >= rule->min_pct && fabs(s->shift) >= rule->min_delta &&
            !(rule->resolution > 0 &&
              fabs(s->candidate - s->baseline) < rule->resolution);
  if (significant) *significant = sig;
  if (!sig) return ETK_CHANGE_SAME;
  return s->shift > 0.0 ? ETK_CHANGE_SLOWER : ETK_CHANGE_FASTER;
}
