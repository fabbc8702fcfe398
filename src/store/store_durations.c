/*
 * store_durations.c - one set of durations read from stored operator rows,
 * whichever way each run was recorded, summarised the same way: what
 * `trend` shows per run and `compare` per side.
 *
 * A full run's operator row holds every raw sample (packed.c, ms); a
 * stats-mode run's row holds one sample (its key's median) and a latency
 * sketch (latency_sketches, schema version 4, source ticks at the row's
 * ticks_per_ms).  A row with a sketch contributes its sketch, never its
 * representative sample; a row without one contributes its samples.
 *
 * SUMMARY
 *   - No sketch among the rows: exact figures from the samples (sorted in
 *     place): median (= p50), p90 and p99 interpolated between the sorted
 *     samples at rank q (n - 1), numpy's default, so the median is the
 *     middle value or the mean of the two middle ones; bound 0.
 *   - At least one sketch: every sample of the sketch-less rows is added
 *     to the merged sketch (ms x ticks_per_ms), so nothing is left out;
 *     count, min, max and sum exact, median = p50 and p90/p99 the sketch's
 *     (the same rank definition, etkit/sketch.h), each within `bound`
 *     (etk_sketch_error_bound, relative).
 *   Sketches of different tick rates or relative errors do not merge
 *   (ETK_E_MISMATCH): a sketch cannot be re-binned exactly.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

void store_durations_clear(store_durations_t *d) {
  d->ms.count = 0;
  d->sketches = 0;
  d->ticks_per_ms = 0;
}

void store_durations_free(store_durations_t *d) {
  free(d->ms.items);
  memset(d, 0, sizeof *d);
}

int store_read_sketch(const store_row_t *row, int col, store_bytes_t *scratch,
                      etk_sketch_t *out) {
  const store_engine_ops_t *o = row->ops;
  if (o->is_null(row, col) || o->is_null(row, col + 1)) return 0;
  double tpm = o->get_real(row, col);
  int rc = o->get_blob(row, col + 1, scratch);
  if (rc) return rc == ETK_E_NO_MEMORY ? -ETK_E_NO_MEMORY : -ETK_E_FORMAT;
  size_t used = 0;
  if (!(tpm > 0) || !isfinite(tpm) ||
      etk_sketch_deserialize(out, scratch->data, scratch->len, &used) !=
          ETK_OK ||
      used != scratch->len)
    return -ETK_E_FORMAT;
  return 1;
}

int store_durations_merge(store_durations_t *d, const etk_sketch_t *s,
                          double ticks_per_ms) {
  if (d->sketches == 0) {
    d->sketch = *s;
    d->ticks_per_ms = ticks_per_ms;
  } else if (d->ticks_per_ms != ticks_per_ms ||
             etk_sketch_merge(&d->sketch, s) != ETK_OK) {
    return ETK_E_MISMATCH;
  }
  d->sketches++;
  return ETK_OK;
}

int store_durations_row(store_durations_t *d, const store_row_t *row,
                        int samples_col, int sketch_col, store_samples_t *s,
                        store_bytes_t *scratch) {
  etk_sketch_t sk;
  int has =
      sketch_col < 0 ? 0 : store_read_sketch(row, sketch_col, scratch, &sk);
  if (has < 0) return -has;
  if (has)
    return store_durations_merge(d, &sk, row->ops->get_real(row, sketch_col));
  int rc = store_read_samples(row, samples_col, s);
  if (rc) return rc;
  return store_samples_append(s, &d->ms) ? ETK_OK : ETK_E_NO_MEMORY;
}

/* The q-quantile of sorted values, interpolated between the two at rank
 * q (n - 1) (numpy's default; the median for q = 0.5). */
static double rank_quantile(const double *sorted, size_t n, double q) {
  if (n == 0) return NAN;
  double pos = q * (double)(n - 1);
  size_t lo = (size_t)pos;
  if (lo + 1 >= n) return sorted[n - 1];
  return sorted[lo] + (pos - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

void store_durations_summary(store_durations_t *d, store_quantiles_t *out) {
  memset(out, 0, sizeof *out);
  if (d->sketches == 0) {
    store_summary_t s;
    store_summarize(d->ms.items, d->ms.count, &s);
    out->count = s.count;
    out->median = s.median;
    out->mean = s.mean;
    out->min = s.min;
    out->max = s.max;
    out->sum = s.sum;
    out->p50 = rank_quantile(d->ms.items, d->ms.count, 0.50);
    out->p90 = rank_quantile(d->ms.items, d->ms.count, 0.90);
    out->p99 = rank_quantile(d->ms.items, d->ms.count, 0.99);
    return;
  }
  etk_sketch_t *k = &d->sketch;
  double tpm = d->ticks_per_ms;
  for (size_t i = 0; i < d->ms.count; i++)
    (void)etk_sketch_add(k, d->ms.items[i] * tpm);
  d->ms.count = 0; /* now in the sketch: a second summary adds nothing */
  uint64_t n = etk_sketch_count(k);
  out->from_sketch = 1;
  out->count = (size_t)n;
  out->bound = etk_sketch_error_bound(k);
  out->median = out->p50 = out->p90 = out->p99 = NAN;
  out->min = out->max = out->mean = out->sum = NAN;
  if (n == 0) return;
  out->min = etk_sketch_min(k) / tpm;
  out->max = etk_sketch_max(k) / tpm;
  out->sum = etk_sketch_sum(k) / tpm;
  out->mean = out->sum / (double)n;
  double v;
  if (etk_sketch_quantile(k, 0.50, &v) == ETK_OK)
    out->median = out->p50 = v / tpm;
  if (etk_sketch_quantile(k, 0.90, &v) == ETK_OK) out->p90 = v / tpm;
  if (etk_sketch_quantile(k, 0.99, &v) == ETK_OK) out->p99 = v / tpm;
}

int store_durations_error(int rc, etk_error_t *err) {
  if (rc == ETK_E_MISMATCH)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "latency sketches of different tick rates or "
                         "relative errors (runs of other timers or "
                         "--stats-error) cannot be merged: select runs of "
                         "one kind");
  if (rc == ETK_E_FORMAT)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "damaged samples or latency sketch in the store");
  return store_samples_error(rc, err);
}
