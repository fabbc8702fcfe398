/*
 * etkit/significance.h - noise-aware A/B comparison of two sets of timings:
 * is the candidate really slower or faster than the baseline, by how much,
 * and how sure are we?
 *
 * One comparison (etk_shift_estimate) gives, for baseline samples X and
 * candidate samples Y:
 *   - the medians of X and Y (robust point estimates of each side);
 *   - the Hodges-Lehmann shift: the median of all differences y_j - x_i,
 *     the robust estimate of "how much slower Y is than X";
 *   - the distribution-free confidence interval of that shift obtained by
 *     inverting the Mann-Whitney test: with the N = nx*ny differences sorted
 *     ascending, D[k] .. D[N-1-k] with k = floor(N/2 - z*sqrt(N(nx+ny+1)/12))
 *     and z the two-sided normal quantile of the confidence;
 *   - the Mann-Whitney U statistic of Y and its two-sided p-value from the
 *     normal approximation with tie correction and continuity correction
 *     (what scipy.stats.mannwhitneyu(method="asymptotic") returns).
 * Many comparisons at once (one per operator) are controlled with
 * Benjamini-Hochberg (etk_fdr_bh), and etk_change_classify applies the
 * rule "a change is reported only when it is significant AND larger than a
 * threshold", which is what keeps run-to-run noise from being reported.
 *
 * Cost: O((nx+ny) log(nx+ny)) for the test; the shift and its interval
 * are exact order statistics of the nx*ny differences, found without
 * forming them in O((nx+ny) x 64) time on typical data and O(nx+ny)
 * memory, so 10^5 samples a side cost milliseconds.
 *
 * Everything is pure computation on caller arrays: no I/O, thread-safe.
 */
#ifndef ETKIT_SIGNIFICANCE_H
#define ETKIT_SIGNIFICANCE_H

#include <stddef.h>

#include "etkit/inspector_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etk_shift {
  size_t n_baseline, n_candidate; /* samples used (NaN dropped) */
  double baseline, candidate;     /* medians */
  double shift;                   /* Hodges-Lehmann: median(y - x) */
  double ci_low, ci_high;         /* interval of the shift */
  double u;                       /* Mann-Whitney U of the candidate */
  double z;                       /* its normal score (0 when all tied) */
  double p_value;                 /* two-sided, in [0, 1] */
} etk_shift_t;

/* Compares candidate[0..nc) with baseline[0..nb) at `confidence` (in
 * (0, 1), e.g. 0.95).  NaN samples are ignored.  Neither array is
 * modified; NULL is allowed only with a count of 0.  Errors:
 * ETK_E_INVALID_ARGUMENT (a side with no finite sample, confidence out of
 * range), ETK_E_NO_MEMORY.  With one sample per side the interval is
 * [shift, shift] and p is 1. */
int etk_shift_estimate(const double *baseline, size_t nb,
                       const double *candidate, size_t nc, double confidence,
                       etk_shift_t *out);

/* Benjamini-Hochberg adjusted p-values (q-values): q[i] =
 * min over p[j] >= p[i] of p[j] * n / rank(j), capped at 1.  A NaN p
 * gives a NaN q and does not count in n.  p and q may be the same array.
 * ETK_E_INVALID_ARGUMENT (NULL with n > 0), ETK_E_NO_MEMORY. */
int etk_fdr_bh(const double *p, size_t n, double *q);

/* Two-sided normal quantile: the z with P(|Z| > z) = 1 - confidence. */
double etk_normal_quantile_two_sided(double confidence);

/* The rule for reporting a change. */
typedef struct etk_change_rule {
  double confidence; /* of the shift's interval (0.95) */
  double alpha;      /* false-discovery rate for the q-values (0.05) */
  double min_pct;    /* smallest |shift| reported, % of baseline (2.0) */
  double min_delta;  /* smallest |shift| reported, in the samples' unit (0) */
  /* the timer's step in the samples' unit: a change whose medians differ
   * by less than one step is quantisation, not a change.  0 (default):
   * etk_pooled_compare takes each key's smallest gap between distinct
   * samples (10 for a 10-ns timer); a negative value turns it off. */
  double resolution;
} etk_change_rule_t;

/* Fills the defaults shown above. */
void etk_change_rule_init(etk_change_rule_t *rule);

typedef enum etk_change_direction {
  ETK_CHANGE_SAME = 0,
  ETK_CHANGE_SLOWER,
  ETK_CHANGE_FASTER
} etk_change_direction_t;

/* "same", "slower", "faster". */
const char *etk_change_direction_name(etk_change_direction_t d);

/* The one rule of every --fail-above gate (`etkit diff A... --vs B...`,
 * `etkit store compare`): 1 when a change is significant, a slow-down, and
 * larger than pct percent of its baseline; else 0 (a NaN delta never
 * fails). */
int etk_change_fails(int significant, etk_change_direction_t direction,
                     double delta_pct, double pct);

/* Applies the rule to one comparison and its q-value: significant when
 * q <= alpha, the interval excludes 0, |shift| is at least min_pct % of
 * the baseline median (an interval entirely inside the threshold is noise
 * however small its p) and at least min_delta, and (resolution > 0) the
 * medians differ by at least one timer step.  *delta_pct, *ci_low_pct,
 * *ci_high_pct (each may be NULL) receive the shift and its interval in % of
 * the baseline median (NaN when that median is 0).  Returns the direction (SAME
 * when not significant); *significant (may be NULL) receives 0/1. */
etk_change_direction_t etk_change_classify(const etk_shift_t *s, double q,
                                           const etk_change_rule_t *rule,
                                           int *significant, double *delta_pct,
                                           double *ci_low_pct,
                                           double *ci_high_pct);

/* ------------------------------------------------ pooled comparisons
 *
 * Many comparisons at once, as `etkit store compare` and `etkit diff A...
 * --vs B...` make them: samples arrive one by one with a key (an
 * operator's identity, any bytes) and a side (0 baseline, 1 candidate);
 * etk_pooled_compare then runs etk_shift_estimate for every key present on
 * both sides, Benjamini-Hochberg over all of them, and the rule. */

typedef struct etk_pooled etk_pooled_t;

/* A new, empty pool (NULL when out of memory). */
etk_pooled_t *etk_pooled_new(void);
void etk_pooled_free(etk_pooled_t *p);

/* Adds one sample (NaN is ignored by the comparison) for key[0..len) on
 * `side` (0 or 1).  *id (may be NULL) receives the key's dense id (first
 * insertion order).  ETK_E_NO_MEMORY, ETK_E_INVALID_ARGUMENT. */
int etk_pooled_add(etk_pooled_t *p, int side, const void *key, size_t len,
                   double sample, size_t *id);

/* Keys added so far, and key `id` (NUL-terminated, owned by the pool). */
size_t etk_pooled_count(const etk_pooled_t *p);
const char *etk_pooled_key(const etk_pooled_t *p, size_t id, size_t *len);
/* Samples of key `id` on `side`. */
size_t etk_pooled_samples(const etk_pooled_t *p, size_t id, int side);

/* One key compared. */
typedef struct etk_pooled_change {
  size_t id;         /* the key's id */
  etk_shift_t shift; /* medians, shift, interval, U, p */
  double q_value;    /* Benjamini-Hochberg over all compared keys */
  double delta_pct, ci_low_pct, ci_high_pct; /* % of the baseline median */
  int significant;
  etk_change_direction_t direction;
} etk_pooled_change_t;

/* Compares every key with samples on both sides under `rule` (NULL =
 * defaults).  *out (malloc'd, free() it) lists them significant first
 * (largest slow-down first), then by |delta|, then by id; *count their
 * number.  ETK_E_NO_MEMORY. */
int etk_pooled_compare(const etk_pooled_t *p, const etk_change_rule_t *rule,
                       etk_pooled_change_t **out, size_t *count);

/* ------------------------------------------------ sets of dumps
 *
 * `etkit diff A1 A2 ... --vs B1 B2 ...`: every timed event of the A dumps
 * against the B dumps, keyed by (block name, event name, instruction id),
 * all samples of a side pooled, compared with etk_pooled_compare. */

typedef struct etk_dump_comparison {
  etk_pooled_t *pool; /* keys "block\x1fname\x1finstruction id" */
  etk_pooled_change_t *changes;
  size_t count;
  /* per pool key id: the op types ("a,b") and module path of the first
   * dump that linked the event to an ETRecord (NULL when none did) */
  char **op_types, **modules;
  size_t described;
} etk_dump_comparison_t;

/* Compares a[0..na) (baseline) with b[0..nb) (candidate); `rule` may be
 * NULL.  The inspectors are only read.  ETK_E_INVALID_ARGUMENT (an empty
 * side), ETK_E_NO_MEMORY.  Free with etk_dump_comparison_free(). */
int etk_dump_comparison_build(etk_inspector_t *const *a, size_t na,
                              etk_inspector_t *const *b, size_t nb,
                              const etk_change_rule_t *rule,
                              etk_dump_comparison_t *out, etk_error_t *err);

void etk_dump_comparison_free(etk_dump_comparison_t *c);

/* Table/TSV/CSV/JSON rows: block, name, instruction_id, baseline,
 * candidate (medians), delta_pct, ci_low, ci_high, p_value, q_value,
 * significant, direction, baseline_samples, candidate_samples, op_type,
 * module (None unless the dumps were linked to an ETRecord). */
int etk_dump_comparison_render(const etk_dump_comparison_t *c,
                               etk_inspect_format_t format,
                               etk_render_sink_t *sink, etk_error_t *err);

/* 1 when a significant slow-down is larger than pct percent. */
int etk_dump_comparison_fails(const etk_dump_comparison_t *c, double pct);

#ifdef __cplusplus
}
#endif

#endif
