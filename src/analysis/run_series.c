/*
 * run_series.c - the per-run series of each event block
 * (etkit/run_series.h): durations in run order, then phases, outliers,
 * drift and LLM token figures by the rules the header states.
 *
 * DATA LAYOUT
 *   Per block three malloc'd arrays of `count` entries (durations, phase,
 *   outlier flag), filled from the block's Method::execute event (sample k
 *   is merged run k) or, when the block has none, the per-run sum of its
 *   events whose sample count equals the block's run count.
 *
 * INVARIANTS
 *   - Every statistic uses the median and the MAD, so one slow run cannot
 *     move the reference it is judged against.
 *   - Phases partition the runs in order: warm-up, then prefill, then
 *     decode (LLM) or steady; percentiles are per phase.
 */
#include "etkit/run_series.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median and MAD (scaled to sigma) of v[0..n), using scratch[n]. */
static void median_mad(const double *v, size_t n, double *scratch, double *med,
                       double *mad) {
  *med = *mad = NAN;
  if (n == 0) return;
  memcpy(scratch, v, n * sizeof *v);
  qsort(scratch, n, sizeof *scratch, cmp_double);
  double m =
      (n % 2) ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
  for (size_t i = 0; i < n; i++) scratch[i] = fabs(v[i] - m);
  qsort(scratch, n, sizeof *scratch, cmp_double);
  double d =
      (n % 2) ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
  *med = m;
  *mad = 1.4826 * d;
}

const char *etk_run_phase_name(etk_run_phase_t phase) {
  static const char *const names[] = {"warmup", "steady", "prefill", "decode"};
  return (unsigned)phase < ETK_RUN_PHASE_COUNT ? names[phase] : "?";
}

/* The block's durations, run order; *n runs (0 when nothing is timed). */
static double *block_durations(const etk_inspector_t *insp,
                               const etk_inspector_block_t *blk, size_t *n) {
  *n = 0;
  size_t runs = blk->run_count;
  double *d = calloc(runs ? runs : 1, sizeof *d);
  if (!d) return NULL;
  size_t method = SIZE_MAX;
  for (size_t i = 0; i < blk->event_count && method == SIZE_MAX; i++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get_basic(insp, blk->first_event + i, &ev) ==
            ETK_OK &&
        strcmp(ev.name, "Method::execute") == 0 && ev.sample_count == runs)
      method = blk->first_event + i;
  }
  for (size_t i = 0; i < blk->event_count; i++) {
    size_t e = blk->first_event + i;
    etk_inspector_event_t ev;
    if (method != SIZE_MAX && e != method) continue;
    if (etk_inspector_event_get_basic(insp, e, &ev) != ETK_OK ||
        ev.sample_count != runs)
      continue;
    for (size_t k = 0; k < runs; k++) {
      etk_inspector_sample_t s;
      if (etk_inspector_event_sample(insp, e, k, &s) == ETK_OK &&
          s.duration == s.duration)
        d[k] += s.duration;
    }
    *n = runs;
  }
  return d;
}

static int is_llm_name(const char *name) {
  static const char *const words[] = {"prefill", "decode", "llm", "token"};
  for (size_t i = 0; i < 4; i++)
    if (strstr(name, words[i])) return 1;
  return 0;
}

/* Least-squares slope of the runs of `phase` (outliers left out) against
 * their position, per 100 positions; NaN with fewer than 3 points. */
static double slope_per_100(const etk_run_series_block_t *b, int phase) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0;
  for (size_t i = 0; i < b->count; i++) {
    if (b->phase[i] != phase || b->outlier[i]) continue;
    double x = (double)i, y = b->durations[i];
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    m++;
  }
  double den = m * sxx - sx * sx;
  if (m < 3 || den == 0.0) return NAN;
  return 100.0 * (m * sxy - sx * sy) / den;
}

static void assign_phases(etk_run_series_block_t *b, size_t prompt_tokens,
                          double *scratch) {
  size_t n = b->count, half = n / 2;
  double med, mad;
  median_mad(b->durations + half, n - half, scratch, &med, &mad);
  double limit = med + fmax(3.0 * mad, 0.05 * fabs(med));
  size_t lead = 0;
  while (lead < half && b->durations[lead] > limit) lead++;
  size_t warm = lead, prefill = 0;
  if (b->llm && lead > 0) {
    warm = lead - 1;
    prefill = 1;
  } else if (b->llm && prompt_tokens > 0) {
    prefill = prompt_tokens < n - warm ? prompt_tokens : n - warm;
  }
  int rest = b->llm ? ETK_RUN_DECODE : ETK_RUN_STEADY;
  for (size_t i = 0; i < n; i++)
    b->phase[i] = i < warm             ? ETK_RUN_WARMUP
                  : i < warm + prefill ? ETK_RUN_PREFILL
                                       : (unsigned char)rest;
  b->warmup_runs = warm;
  /* outliers among the steady/decode runs */
  size_t m = 0;
  for (size_t i = warm + prefill; i < n; i++)
    scratch[n + m++] = b->durations[i];
  median_mad(scratch + n, m, scratch, &med, &mad);
  for (size_t i = warm + prefill; i < n && mad > 0; i++)
    if (fabs(b->durations[i] - med) > 3.5 * mad) {
      b->outlier[i] = 1;
      b->outliers++;
    }
  b->drift_per_100 = slope_per_100(b, rest);
  b->drift_pct_per_100 = b->drift_per_100 / med * 100.0;
  b->ms_per_token = b->llm ? med : NAN;
  b->token_growth_per_100 = b->llm ? b->drift_per_100 : NAN;
  b->prefill_per_prompt_token = NAN;
  if (b->llm && prefill && prompt_tokens) {
    double total = 0;
    for (size_t i = warm; i < warm + prefill; i++) total += b->durations[i];
    b->prefill_per_prompt_token = total / (double)prompt_tokens;
  }
}

static void phase_stats(etk_run_series_block_t *b, double *scratch) {
  for (int p = 0; p < ETK_RUN_PHASE_COUNT; p++) {
    etk_run_phase_stats_t *ps = &b->phases[p];
    size_t m = 0;
    for (size_t i = 0; i < b->count; i++) {
      if (b->phase[i] != p) continue;
      if (m == 0) ps->first = i;
      ps->last = i;
      scratch[b->count + m++] = b->durations[i];
    }
    ps->runs = m;
    if (m) etk_stats_compute(scratch + b->count, m, scratch, &ps->stats);
  }
}

void etk_run_series_free(etk_run_series_t *s) {
  if (!s) return;
  for (size_t i = 0; i < s->count; i++) {
    free(s->blocks[i].durations);
    free(s->blocks[i].phase);
    free(s->blocks[i].outlier);
  }
  free(s->blocks);
  memset(s, 0, sizeof *s);
}

int etk_run_series_build(const etk_inspector_t *insp,
                         const etk_run_series_options_t *options,
                         etk_run_series_t *out, etk_error_t *err) {
  if (!insp || !out) return ETK_E_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  size_t nb = etk_inspector_block_count(insp);
  size_t tokens = options ? options->prompt_tokens : 0;
  out->blocks = calloc(nb ? nb : 1, sizeof *out->blocks);
  if (!out->blocks) goto oom;
  for (size_t i = 0; i < nb; i++) {
    etk_inspector_block_t blk;
    if (etk_inspector_block_get(insp, i, &blk) != ETK_OK) continue;
    etk_run_series_block_t *b = &out->blocks[out->count];
    size_t n;
    b->durations = block_durations(insp, &blk, &n);
    if (!b->durations) goto oom;
    if (n == 0) {
      free(b->durations);
      b->durations = NULL;
      continue;
    }
    out->count++;
    b->name = blk.name;
    b->count = n;
    b->llm = tokens > 0 || is_llm_name(blk.name);
    b->phase = calloc(n, 1);
    b->outlier = calloc(n, 1);
    double *scratch = malloc(2 * n * sizeof *scratch);
    if (!b->phase || !b->outlier || !scratch) {
      free(scratch);
      goto oom;
    }
    assign_phases(b, tokens, scratch);
    phase_stats(b, scratch);
    free(scratch);
  }
  return ETK_OK;
oom:
  etk_run_series_free(out);
  return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
}
