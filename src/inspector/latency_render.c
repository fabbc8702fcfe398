/*
 * latency_render.c - `etkit inspect` of a stats-mode ETDump: one row per
 * latency key (etkit/latency_dump.h) with its exact count, min, avg and
 * max and its p10, p50, p90, p99 and p99.9 within the sketch's error
 * bound, in the inspector's target time scale.
 *
 * Table, TSV and CSV go through etk_frame (the renderers of the events
 * table); JSON is {"source_time_scale", "target_time_scale",
 * "scale_factor", "latency_sketches": {"keys", "refused"}, "events": [...]}
 * with the same columns per event, "count" among them.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/inspector_core.h"
#include "etkit/latency_dump.h"
#include "etkit/render.h"
#include "inspector_internal.h"

static const double quantiles[5] = {0.10, 0.50, 0.90, 0.99, 0.999};
static const char *const quantile_names[5] = {"p10", "p50", "p90", "p99",
                                              "p99.9"};

enum {
  COL_BLOCK,
  COL_NAME,
  COL_INSTRUCTION,
  COL_DELEGATE,
  COL_COUNT,
  COL_MIN,
  COL_Q0, /* five quantiles */
  COL_AVG = COL_Q0 + 5,
  COL_MAX,
  COL_BOUND,
  COL_COUNT_ALL
};

int etk_inspector_latency_rows(const etk_inspector_t *insp,
                               const etk_latency_dump_info_t *info,
                               size_t index, etk_inspector_latency_row_t *out,
                               etk_error_t *err) {
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  double scale = etk_inspector_scale_factor(insp);
  etk_latency_key_t key;
  etk_etdump_event_t ev;
  etk_etdump_run_t run;
  int rc = etk_latency_dump_key(dump, info, index, &key, err);
  if (rc != ETK_OK) return rc;
  memset(out, 0, sizeof *out);
  (void)etk_etdump_event_get(dump, key.event, &ev);
  (void)etk_etdump_run_get(dump, key.run, &run);
  out->run = key.run;
  out->event = key.event;
  out->block_name = run.name.data;
  {
    /* named as the events table names it (insp_event_name: a delegate's
     * event by its debug identifier, an integer one as text) */
    insp_event_t sig =
        insp_event_of(&insp->cols, (uint32_t)key.event, INSP_NONE);
    size_t len = 0;
    const char *name = insp_event_name(insp, &sig, out->delegate_id_text, &len);
    if (name == out->delegate_id_text) out->delegate_id_text[len] = '\0';
    out->event_name = len ? name : ev.name.data;
  }
  out->instruction_id = ev.instruction_id;
  out->delegate_debug_id_int = ev.delegate_debug_id_int;
  out->delegate_debug_id_str = ev.delegate_debug_id_str.data;
  out->count = etk_sketch_count(&key.sketch);
  if (!(scale > 0)) scale = 1.0;
  out->min = etk_sketch_min(&key.sketch) / scale;
  out->max = etk_sketch_max(&key.sketch) / scale;
  out->avg = out->count
                 ? etk_sketch_sum(&key.sketch) / (double)out->count / scale
                 : 0.0;
  for (int q = 0; q < 5; q++) {
    double v = 0;
    (void)etk_sketch_quantile(&key.sketch, quantiles[q], &v);
    out->quantile[q] = v / scale;
  }
  out->error_bound = etk_sketch_error_bound(&key.sketch);
  out->sketch = key.sketch;
  return ETK_OK;
}

static void set_str(etk_cell_t *c, const char *s) {
  if (s == NULL)
    etk_cell_set_none(c);
  else
    etk_cell_set_text(c, s, strlen(s));
}

static int row_cells(void *ctx, size_t r, etk_cell_t *cells) {
  const etk_inspector_latency_row_t *row =
      &((const etk_inspector_latency_row_t *)ctx)[r];
  set_str(&cells[COL_BLOCK], row->block_name);
  set_str(&cells[COL_NAME], row->event_name);
  etk_cell_set_int(&cells[COL_INSTRUCTION], row->instruction_id);
  if (row->delegate_debug_id_str != NULL)
    set_str(&cells[COL_DELEGATE], row->delegate_debug_id_str);
  else if (row->delegate_debug_id_int != -1)
    etk_cell_set_int(&cells[COL_DELEGATE], row->delegate_debug_id_int);
  else
    etk_cell_set_none(&cells[COL_DELEGATE]);
  etk_cell_set_int(&cells[COL_COUNT], (int64_t)row->count);
  etk_cell_set_float(&cells[COL_MIN], row->min);
  for (int q = 0; q < 5; q++)
    etk_cell_set_float(&cells[COL_Q0 + q], row->quantile[q]);
  etk_cell_set_float(&cells[COL_AVG], row->avg);
  etk_cell_set_float(&cells[COL_MAX], row->max);
  etk_cell_set_float(&cells[COL_BOUND], row->error_bound);
  return ETK_OK;
}

static int cell_of(void *ctx, size_t r, size_t col, etk_cell_t *out,
                   etk_strbuf_t *scratch) {
  etk_cell_t cells[COL_COUNT_ALL];
  (void)scratch;
  row_cells(ctx, r, cells);
  *out = cells[col];
  return ETK_OK;
}

static void headers(char text[COL_COUNT_ALL][32], const char *unit, int units) {
  static const char *const fixed[COL_COUNT_ALL] = {"event_block_name",
                                                   "event_name",
                                                   "instruction_id",
                                                   "delegate_debug_identifier",
                                                   "count",
                                                   "min",
                                                   "",
                                                   "",
                                                   "",
                                                   "",
                                                   "",
                                                   "avg",
                                                   "max",
                                                   "error_bound"};
  for (int c = 0; c < COL_COUNT_ALL; c++) {
    const char *base =
        c >= COL_Q0 && c < COL_Q0 + 5 ? quantile_names[c - COL_Q0] : fixed[c];
    int timed = c == COL_MIN || c == COL_AVG || c == COL_MAX ||
                (c >= COL_Q0 && c < COL_Q0 + 5);
    size_t n = strlen(base);
    memcpy(text[c], base, n + 1);
    if (timed && units) {
      size_t u = strlen(unit);
      if (n + u + 3 < 32) {
        text[c][n] = ' ';
        text[c][n + 1] = '(';
        memcpy(text[c] + n + 2, unit, u);
        text[c][n + 2 + u] = ')';
        text[c][n + 3 + u] = 0;
      }
    }
  }
}

int etk_inspector_render_latency(etk_inspector_t *insp,
                                 const etk_inspector_render_options_t *ro,
                                 etk_render_sink_t *sink, etk_error_t *err) {
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  etk_latency_dump_info_t info;
  etk_inspector_latency_row_t *rows;
  char text[COL_COUNT_ALL][32];
  const char *hdr[COL_COUNT_ALL];
  const char *unit = etk_time_scale_name(etk_inspector_target_time_scale(insp));
  int rc = ETK_OK;
  if (!etk_latency_dump_find(dump, &info))
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET, "%s",
                         "no latency sketches (not a stats-mode dump)");
  rows = calloc(info.keys ? info.keys : 1, sizeof *rows);
  if (rows == NULL)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "%s",
                         "out of memory");
  for (size_t k = 0; k < info.keys && rc == ETK_OK; k++)
    rc = etk_inspector_latency_rows(insp, &info, k, &rows[k], err);
  if (rc == ETK_OK && ro->format == ETK_INSPECT_FORMAT_JSON) {
    etk_json_t j;
    headers(text, unit, ro->include_units);
    etk_json_init(&j, sink, ro->json_indent);
    etk_json_begin_object(&j);
    etk_json_key(&j, "source_time_scale");
    {
      const char *s =
          etk_time_scale_name(etk_inspector_source_time_scale(insp));
      etk_json_string(&j, s, strlen(s));
    }
    etk_json_key(&j, "target_time_scale");
    etk_json_string(&j, unit, strlen(unit));
    etk_json_kv_double(&j, "scale_factor", etk_inspector_scale_factor(insp));
    etk_json_key(&j, "latency_sketches");
    etk_json_begin_object(&j);
    etk_json_kv_uint(&j, "keys", info.keys);
    etk_json_kv_uint(&j, "refused", info.refused);
    etk_json_end_object(&j);
    etk_json_key(&j, "events");
    etk_json_begin_array(&j);
    for (size_t k = 0; k < info.keys; k++) {
      const etk_inspector_latency_row_t *r = &rows[k];
      etk_json_begin_object(&j);
      etk_json_kv_uint(&j, "event_block_index", r->run);
      etk_json_key(&j, "event_block_name");
      if (r->block_name)
        etk_json_string(&j, r->block_name, strlen(r->block_name));
      else
        etk_json_null(&j);
      etk_json_key(&j, "event_name");
      if (r->event_name)
        etk_json_string(&j, r->event_name, strlen(r->event_name));
      else
        etk_json_null(&j);
      etk_json_kv_int(&j, "instruction_id", r->instruction_id);
      etk_json_key(&j, "delegate_debug_identifier");
      if (r->delegate_debug_id_str)
        etk_json_string(&j, r->delegate_debug_id_str,
                        strlen(r->delegate_debug_id_str));
      else if (r->delegate_debug_id_int != -1)
        etk_json_int(&j, r->delegate_debug_id_int);
      else
        etk_json_null(&j);
      etk_json_kv_uint(&j, "count", r->count);
      etk_json_kv_double(&j, text[COL_MIN], r->min);
      for (int q = 0; q < 5; q++)
        etk_json_kv_double(&j, text[COL_Q0 + q], r->quantile[q]);
      etk_json_kv_double(&j, text[COL_AVG], r->avg);
      etk_json_kv_double(&j, text[COL_MAX], r->max);
      etk_json_kv_double(&j, "error_bound", r->error_bound);
      etk_json_end_object(&j);
    }
    etk_json_end_array(&j);
    etk_json_end_object(&j);
    rc = etk_json_finish_or_error(&j, err);
  } else if (rc == ETK_OK) {
    etk_frame_t f;
    headers(text, unit, ro->include_units);
    for (int c = 0; c < COL_COUNT_ALL; c++) hdr[c] = text[c];
    f.rows = info.keys;
    f.cols = COL_COUNT_ALL;
    f.headers = hdr;
    f.cell = cell_of;
    f.ctx = rows;
    f.show_index = 1;
    if (ro->format == ETK_INSPECT_FORMAT_TABLE)
      rc = etk_render_table_rows(&f, row_cells, sink, err);
    else
      rc = etk_render_delimited_rows(
          &f, row_cells, ro->format == ETK_INSPECT_FORMAT_CSV ? ',' : '\t',
          sink, err);
  }
  free(rows);
  return rc;
}
