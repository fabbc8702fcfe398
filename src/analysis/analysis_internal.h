/*
 * analysis_internal.h - helpers shared by the analysis files of
 * src/inspector/ (op_summary.c, diff.c, memory.c, trace_export.c,
 * html_report.c).  Not installed; they use only the public Inspector API.
 */
#ifndef ETKIT_INSPECTOR_ANALYSIS_INTERNAL_H
#define ETKIT_INSPECTOR_ANALYSIS_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"
#include "etkit/analysis.h"

/* An interning map from byte strings to dense ids 0, 1, 2, ... in
 * first-insertion order: common's hash table (common/hash.h) under the
 * names the analyses use. */
typedef etk_hash_t ana_intern_t;

static inline void ana_intern_init(ana_intern_t *m) {
  etk_hash_init(m);
}
static inline void ana_intern_free(ana_intern_t *m) {
  etk_hash_free(m);
}
/* Finds or adds `key`; *id receives its id; returns ETK_OK, or
 * ETK_E_NO_MEMORY / ETK_E_LIMIT (2^32 - 1 keys). *is_new may be NULL. */
static inline int ana_intern_put(ana_intern_t *m, const void *key, size_t len,
                                 uint32_t *id, int *is_new) {
  bool added = false;
  int rc = etk_hash_put(m, key, len, id, &added);
  if (is_new) *is_new = added;
  return rc;
}
/* Id of `key` or UINT32_MAX when absent. */
static inline uint32_t ana_intern_find(const ana_intern_t *m, const void *key,
                                       size_t len) {
  return etk_hash_find(m, key, len);
}
/* The stored key of an id (NUL-terminated copy). */
static inline const char *ana_intern_key(const ana_intern_t *m, uint32_t id,
                                         size_t *len) {
  return etk_hash_key(m, id, len);
}

/* 1 when s[0..n) equals the C string `lit`. */
int ana_is_name(const char *s, size_t n, const char *lit);

/* The report's "Recorder cost" section (report_calibration.c): nothing
 * for a dump without the recorder's calibration. */
void ana_report_calibration(etk_inspector_t *insp, etk_render_sink_t *s,
                            const char *unit);

/* ---------------------------------------------------- timed profile events */

/* Flags of an ana_item_t. */
#define ANA_ITEM_DELEGATED 1u   /* has a delegate id */
#define ANA_ITEM_WRAPPED 2u     /* end < start: 32-bit counter wrap */
#define ANA_ITEM_MISSING_END 4u /* end 0, start not: never closed */
#define ANA_ITEM_INVALID 8u     /* end < start beyond 32 bits */
#define ANA_ITEM_OVERLAP 16u    /* does not nest on its track (trace) */
#define ANA_ITEM_NO_DURATION (ANA_ITEM_MISSING_END | ANA_ITEM_INVALID)

/* One profile event of a run on a timeline (24 bytes). */
typedef struct ana_item {
  uint64_t s, e; /* unwrapped ticks; e == s without a duration */
  uint32_t ev;   /* ETDump event index (UINT32_MAX: a synthetic item) */
  uint8_t flags; /* ANA_ITEM_* */
} ana_item_t;

/* The profile events of `run` in file order as items, 32-bit wraps
 * unwrapped (rules in trace_export.c), into a growing array (items,
 * cap; one spare slot is always left for a synthetic item).  *n receives
 * the count, *lo and *hi the tick bounds (0 when *n is 0).  ETK_E_NO_MEMORY. */
int ana_run_items(const etk_etdump_t *dump, const etk_etdump_run_t *run,
                  ana_item_t **items, size_t *cap, size_t *n, uint64_t *lo,
                  uint64_t *hi);

/* What ana_op_roles_build() adds up per block for the diff's totals: over
 * the events its walk gives the role OPERATOR, in block order, the sums
 * of their avg, p50 and compared metric and their count.  `exact` is 0
 * when the block has wrapping DELEGATE_CALLs: roles and delegate signs
 * then change after the walk, and the caller must sum by itself. */
typedef struct ana_op_sums {
  double avg, p50, value;
  size_t count;
  int exact;
} ana_op_sums_t;

/* etk_op_summary_build() without the operator rows: event roles,
 * delegate signs and block method times only (what `diff` needs), without
 * the per-operator-type keys and rows that cost some 120 bytes per event
 * on a dump of distinct operators, nor the per-event averages.  Row
 * queries then see no operator rows, the block totals (operators,
 * delegate overhead) stay 0 and etk_op_summary_event_avg() is NaN.
 * `sums` (NULL: not wanted) receives one ana_op_sums_t per block, the
 * value being `metric` of each event's statistics. */
int ana_op_roles_build(etk_inspector_t *insp, etk_diff_metric_t metric,
                       ana_op_sums_t *sums, etk_op_summary_t **out,
                       etk_error_t *err);

/* The statistic `metric` names (avg when unknown). */
static inline double ana_stats_metric(const etk_stats_t *st,
                                      etk_diff_metric_t metric) {
  switch (metric) {
    case ETK_DIFF_METRIC_P50:
      return st->p50;
    case ETK_DIFF_METRIC_P10:
      return st->p10;
    case ETK_DIFF_METRIC_P90:
      return st->p90;
    case ETK_DIFF_METRIC_MIN:
      return st->min;
    case ETK_DIFF_METRIC_MAX:
      return st->max;
    default:
      return st->avg;
  }
}

/* How event `event` enters its block's delegate overhead: +1 for a
 * wrapping DELEGATE_CALL, -1 for a delegated op inside one, else 0.  The
 * delegate overhead of any per-event statistic is the signed sum. */
int ana_op_delegate_sign(const etk_op_summary_t *s, size_t event);

/* The diff (diff.c) as its renderer (diff_render.c) reads it: row i as
 * the public row (values, delta and change), the compared metric and the
 * unit of the durations. */
etk_diff_row_t ana_diff_row(const etk_diff_t *d, size_t i);
/* Parts of a row ana_diff_row_read() reads besides the values (kind,
 * match, events, counts, statistics, delta and change, always read):
 * ANA_ROW_TEXTS the block, names and instruction ids, ANA_ROW_TYPE (with
 * TEXTS) the operator type.  A row read without texts has "" for block
 * and name. */
#define ANA_ROW_TEXTS 1
#define ANA_ROW_TYPE 2
etk_diff_row_t ana_diff_row_read(const etk_diff_t *d, size_t i, int parts);
etk_diff_metric_t ana_diff_metric(const etk_diff_t *d);

/* Raises max[0..7) to the |values| of row r's duration columns: avg A,
 * avg B, p50 A, p50 B, value A, value B, delta (NaN never raises). */
static inline void ana_column_max_add(double max[7], const etk_diff_row_t *r) {
  const double x[7] = {r->avg_a,   r->avg_b,   r->p50_a, r->p50_b,
                       r->value_a, r->value_b, r->delta};
  for (int c = 0; c < 7; c++)
    if (fabs(x[c]) > max[c]) max[c] = fabs(x[c]);
}
/* The largest values (as ana_column_max_add) over every operator row. */
const double *ana_diff_operator_max(const etk_diff_t *d);
etk_time_scale_t ana_diff_unit(const etk_diff_t *d);

/* Sort class of a diff row's match: 0 total, 1 matched, 2 new, 3
 * missing. */
static inline int ana_diff_match_class(int match) {
  if (match == ETK_DIFF_MATCH_TOTAL) return 0;
  if (match == ETK_DIFF_MATCH_NEW) return 2;
  if (match == ETK_DIFF_MATCH_MISSING) return 3;
  return 1;
}

/* qsort order for items: start ascending, end descending, later file
 * position first (a parent ends after its children, so it is appended
 * after them and must come first). */
int ana_item_compare(const void *a, const void *b);

#endif
