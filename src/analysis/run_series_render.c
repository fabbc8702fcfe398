/*
 * run_series_render.c - etk_run_series_render: the run series as the box
 * table, TSV/CSV (one row per block and phase present) or JSON (every run).
 *
 * DATA LAYOUT
 *   The rows are (block, phase) pairs with at least one run, found by a
 *   walk over the blocks; the frame's cell callback maps a row number back
 *   to its pair through a small index array built first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/run_series.h"

static const char *const headers[] = {"block",
                                      "phase",
                                      "runs",
                                      "first_run",
                                      "p10",
                                      "p50",
                                      "p90",
                                      "avg",
                                      "min",
                                      "max",
                                      "warmup_runs",
                                      "outliers",
                                      "drift_per_100_runs",
                                      "drift_pct_per_100_runs",
                                      "ms_per_decode_token",
                                      "decode_growth_per_100_tokens"};
#define COLS 16

typedef struct row_ref {
  size_t block;
  int phase;
} row_ref_t;

typedef struct frame_ctx {
  const etk_run_series_t *s;
  row_ref_t *rows;
} frame_ctx_t;

static void set_num(etk_cell_t *c, double v) {
  if (isnan(v))
    etk_cell_set_none(c);
  else
    etk_cell_set_float(c, v);
}

static int cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                etk_strbuf_t *scratch) {
  const frame_ctx_t *f = ctx;
  (void)scratch;
  const etk_run_series_block_t *b = &f->s->blocks[f->rows[row].block];
  const etk_run_phase_stats_t *p = &b->phases[f->rows[row].phase];
  const char *phase = etk_run_phase_name((etk_run_phase_t)f->rows[row].phase);
  double v[] = {
      p->stats.p10,           p->stats.p50,        p->stats.p90,
      p->stats.avg,           p->stats.min,        p->stats.max,
      (double)b->warmup_runs, (double)b->outliers, b->drift_per_100,
      b->drift_pct_per_100,   b->ms_per_token,     b->token_growth_per_100};
  switch (col) {
    case 0:
      etk_cell_set_text(out, b->name, strlen(b->name));
      break;
    case 1:
      etk_cell_set_text(out, phase, strlen(phase));
      break;
    case 2:
      etk_cell_set_int(out, (int64_t)p->runs);
      break;
    case 3:
      etk_cell_set_int(out, (int64_t)p->first);
      break;
    case 10:
    case 11:
      etk_cell_set_int(out, (int64_t)v[col - 4]);
      break;
    default:
      set_num(out, v[col - 4]);
      break;
  }
  return ETK_OK;
}

static void json_num(etk_json_t *j, const char *key, double v) {
  etk_json_key(j, key);
  if (isfinite(v))
    etk_json_double(j, v);
  else
    etk_json_cstring(j, NULL);
}

static void json_block(etk_json_t *j, const etk_run_series_block_t *b) {
  etk_json_begin_object(j);
  etk_json_key(j, "name");
  etk_json_cstring(j, b->name);
  etk_json_key(j, "llm");
  etk_json_bool(j, b->llm);
  etk_json_key(j, "warmup_runs");
  etk_json_uint(j, b->warmup_runs);
  etk_json_key(j, "outliers");
  etk_json_uint(j, b->outliers);
  json_num(j, "drift_per_100_runs", b->drift_per_100);
  json_num(j, "drift_pct_per_100_runs", b->drift_pct_per_100);
  json_num(j, "ms_per_decode_token", b->ms_per_token);
  json_num(j, "decode_growth_per_100_tokens", b->token_growth_per_100);
  json_num(j, "prefill_per_prompt_token", b->prefill_per_prompt_token);
  etk_json_key(j, "phases");
  etk_json_begin_array(j);
  for (int p = 0; p < ETK_RUN_PHASE_COUNT; p++) {
    const etk_run_phase_stats_t *ps = &b->phases[p];
    if (!ps->runs) continue;
    etk_json_begin_object(j);
    etk_json_key(j, "phase");
    etk_json_cstring(j, etk_run_phase_name((etk_run_phase_t)p));
    etk_json_key(j, "runs");
    etk_json_uint(j, ps->runs);
    etk_json_key(j, "first_run");
    etk_json_uint(j, ps->first);
    json_num(j, "p10", ps->stats.p10);
    json_num(j, "p50", ps->stats.p50);
    json_num(j, "p90", ps->stats.p90);
    json_num(j, "avg", ps->stats.avg);
    etk_json_end_object(j);
  }
  etk_json_end_array(j);
  etk_json_key(j, "runs");
  etk_json_begin_array(j);
  for (size_t i = 0; i < b->count; i++) {
    etk_json_begin_object(j);
    json_num(j, "duration", b->durations[i]);
    etk_json_key(j, "phase");
    etk_json_cstring(j, etk_run_phase_name((etk_run_phase_t)b->phase[i]));
    etk_json_key(j, "outlier");
    etk_json_bool(j, b->outlier[i]);
    etk_json_end_object(j);
  }
  etk_json_end_array(j);
  etk_json_end_object(j);
}

int etk_run_series_render(const etk_run_series_t *s,
                          etk_inspect_format_t format, etk_render_sink_t *sink,
                          etk_error_t *err) {
  if (!s || !sink) return ETK_E_INVALID_ARGUMENT;
  if (format == ETK_INSPECT_FORMAT_JSON) {
    etk_json_t j;
    etk_json_init(&j, sink, 2);
    etk_json_begin_object(&j);
    etk_json_key(&j, "blocks");
    etk_json_begin_array(&j);
    for (size_t i = 0; i < s->count; i++) json_block(&j, &s->blocks[i]);
    etk_json_end_array(&j);
    etk_json_end_object(&j);
    etk_render_putc(sink, '\n');
    return ETK_OK;
  }
  frame_ctx_t f = {s, malloc((s->count ? s->count : 1) * ETK_RUN_PHASE_COUNT *
                             sizeof(row_ref_t))};
  if (!f.rows)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  size_t rows = 0;
  for (size_t i = 0; i < s->count; i++)
    for (int p = 0; p < ETK_RUN_PHASE_COUNT; p++)
      if (s->blocks[i].phases[p].runs) {
        f.rows[rows].block = i;
        f.rows[rows++].phase = p;
      }
  etk_frame_t frame = {rows, COLS, headers, cell, &f, 0};
  int rc;
  if (format == ETK_INSPECT_FORMAT_TABLE)
    rc = etk_render_table(&frame, sink, err);
  else
    rc = etk_render_delimited(
        &frame, format == ETK_INSPECT_FORMAT_TSV ? '\t' : ',', sink, err);
  free(f.rows);
  return rc;
}
