/*
 * etkit/run_series.h - the per-run series of an ETDump's event blocks:
 * every Method::execute run in order, instead of one merged set of
 * percentiles (`etkit inspect --runs`, docs/store.md "Run series").
 *
 * For each block: the duration of each run (its Method::execute event, or
 * the sum of its events when there is none), warm-up detection, drift,
 * outliers, and for LLM runs the phases warm-up, prefill and decode with
 * the time per decode token and its growth as the KV cache grows.
 * Percentiles are given per phase, never over mixed phases.
 *
 * RULES (robust statistics: median and MAD = 1.4826 x median |d - median|)
 *   - reference: the median and MAD of the block's second half of runs;
 *   - warm-up: the leading runs longer than reference + max(3 MAD, 5 %),
 *     at most half of the runs;
 *   - LLM mode (options.prompt_tokens > 0, or a block name containing
 *     "prefill", "decode", "llm" or "token"): of the leading long runs the
 *     last is the prefill (one call over the whole prompt) and the others
 *     warm-up; with no long leading run and prompt_tokens N, the first N
 *     runs are a token-by-token prefill; every later run is a decode step;
 *   - outliers: steady (or decode) runs with |d - median| > 3.5 MAD;
 *   - drift: least-squares slope of the steady (decode) runs without
 *     outliers, per 100 runs, in ms and in % of their median;
 *   - ms per decode token: the decode steps' median; its growth: their
 *     slope per 100 tokens.
 */
#ifndef ETKIT_RUN_SERIES_H
#define ETKIT_RUN_SERIES_H

#include <stddef.h>

#include "etkit/inspector_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etk_run_phase {
  ETK_RUN_WARMUP = 0,
  ETK_RUN_STEADY, /* a model that is not an LLM: every run after warm-up */
  ETK_RUN_PREFILL,
  ETK_RUN_DECODE,
  ETK_RUN_PHASE_COUNT
} etk_run_phase_t;

/* "warmup", "steady", "prefill", "decode". */
const char *etk_run_phase_name(etk_run_phase_t phase);

typedef struct etk_run_series_options {
  size_t prompt_tokens; /* 0 = unknown (LLM mode only by block name) */
} etk_run_series_options_t;

typedef struct etk_run_phase_stats {
  size_t runs, first, last; /* run positions in the block */
  etk_stats_t stats;        /* of the phase's durations only */
} etk_run_phase_stats_t;

typedef struct etk_run_series_block {
  const char *name;       /* block name (inspector memory) */
  size_t count;           /* runs */
  double *durations;      /* count durations, run order (target units) */
  unsigned char *phase;   /* count etk_run_phase_t */
  unsigned char *outlier; /* count 0/1 */
  int llm;
  size_t warmup_runs, outliers;
  double drift_per_100, drift_pct_per_100;   /* NaN with < 3 runs */
  double ms_per_token, token_growth_per_100; /* LLM decode; else NaN */
  double prefill_per_prompt_token;           /* NaN without prompt_tokens */
  etk_run_phase_stats_t phases[ETK_RUN_PHASE_COUNT];
} etk_run_series_block_t;

typedef struct etk_run_series {
  etk_run_series_block_t *blocks;
  size_t count;
} etk_run_series_t;

/* Builds the series of every block of `insp` with at least one run that
 * has a duration.  `options` may be NULL.  Free with
 * etk_run_series_free().  ETK_E_NO_MEMORY. */
int etk_run_series_build(const etk_inspector_t *insp,
                         const etk_run_series_options_t *options,
                         etk_run_series_t *out, etk_error_t *err);

void etk_run_series_free(etk_run_series_t *s);

/* Renders the series: TABLE/CSV/TSV one row per (block, phase) with its
 * percentiles and the block's warm-up, outliers, drift and token figures;
 * JSON an object {"blocks": [{..., "phases": [...], "runs": [{"duration",
 * "phase", "outlier"}]}]}. */
int etk_run_series_render(const etk_run_series_t *s,
                          etk_inspect_format_t format, etk_render_sink_t *sink,
                          etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif
