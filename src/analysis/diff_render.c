/*
 * diff_render.c - the A/B comparison of diff.c as a table (two fancy
 * grids: totals per block, then operators), TSV/CSV (one table) or JSON.
 *
 * LAYOUT
 *   The rows a rendering shows are listed once (totals first, operator
 *   rows below the thresholds counted as hidden), then each format walks
 *   that list.  The tables are frames whose rows come from a view: one
 *   call per row and pass of the renderer (etk_render_table_rows,
 *   etk_render_delimited_rows) builds the row's cells from the public row
 *   (ana_diff_row).  Durations of the
 *   table are in one readable unit per table (A, B and delta compared in
 *   the same unit), with 3 significant digits (a value
 *   repeated along a row, as a one-run event's statistics are, is rounded
 *   once).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

void etk_diff_render_options_init(etk_diff_render_options_t *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->json_indent = 2;
}

/* ------------------------------------------------------- rendering */

static int row_hidden(const etk_diff_row_t *r,
                      const etk_diff_render_options_t *o) {
  if (r->kind != ETK_DIFF_ROW_OPERATOR || ana_diff_match_class(r->match) != 1)
    return 0;
  if (o->threshold_pct > 0 && !(fabs(r->change_pct) >= o->threshold_pct) &&
      r->change_pct == r->change_pct)
    return 1;
  if (o->threshold_pct > 0 && r->change_pct != r->change_pct && r->delta == 0)
    return 1;
  if (o->min_delta > 0 && fabs(r->delta) < o->min_delta) return 1;
  return 0;
}

typedef struct view {
  const etk_diff_t *d;
  const uint32_t *rows; /* visible row indices (NULL: rows first ..) */
  size_t first, n;
  int totals;   /* table: the totals table */
  int single;   /* tsv/csv: one table with every column */
  int compact;  /* table operators: compact_columns, names cut */
  char iid[48]; /* compact: the iid cell of the last row built */
  /* table: durations of column c (10..16) in a readable unit: value *
   * scale[c], rounded to 3 digits (scale 0: raw target units) */
  double scale[18];
  const char *unit[18];
  uint32_t shown;       /* bit k: column k of the single table is shown */
  etk_cell_t *base;     /* the row array slot[] points into */
  etk_cell_t *slot[18]; /* column k of the single table: its cell in a
                           row, or &spare when not shown */
  etk_cell_t spare;     /* where the cells not shown are built */
  etk_strbuf_t text;    /* "name -> name_b" of the last row built */
} view_t;

/* The largest |value| of each duration column of a table's rows (see
 * ana_column_max_add). */
typedef struct column_max {
  double max[7];
} column_max_t;

/* One readable unit for every duration column of a table whose largest
 * values are `m`: A, B and their delta are one compared quantity, and
 * avg beside p50 reads wrong when the two are in different units. */
static void view_units(view_t *v, const char *unit, const column_max_t *m) {
  double sec = etk_seconds_per_unit(unit), largest = 0;
  for (int c = 0; c < 7; c++)
    if (m->max[c] > largest) largest = m->max[c];
  double per_second = 0;
  const char *shown =
      sec > 0 ? etk_duration_unit(largest * sec, &per_second) : unit;
  for (int c = 10; c <= 16; c++) {
    v->unit[c] = shown;
    v->scale[c] = sec > 0 ? sec * per_second : 0;
  }
}

/* A duration cell: in the column's unit when it has one. */
static void cell_dur(const view_t *v, int c, etk_cell_t *out, double x) {
  if (x != x)
    etk_cell_set_none(out);
  else if (v->scale[c] > 0)
    etk_cell_set_float(out, etk_duration_round(x * v->scale[c]));
  else
    etk_cell_set_float(out, x);
}

static void cell_num(etk_cell_t *c, double v) {
  if (v != v)
    etk_cell_set_none(c);
  else
    etk_cell_set_float(c, v);
}

static const char *kind_name(int kind) {
  switch (kind) {
    case ETK_DIFF_ROW_METHOD:
      return "method";
    case ETK_DIFF_ROW_OPERATORS_TOTAL:
      return "operators_total";
    case ETK_DIFF_ROW_FRAMEWORK_OVERHEAD:
      return "framework_overhead";
    case ETK_DIFF_ROW_DELEGATE_OVERHEAD:
      return "delegate_overhead";
    default:
      return "operator";
  }
}

/* Columns of the tables, as columns of the single table (tsv/csv): table
 * totals: block, row, count A, count B, A, B, delta, change %.  table
 * operators: block, event, iid A, iid B, match, count A, count B, avg A,
 * avg B, p50 A, p50 B, delta, change %.  single: block, kind, event,
 * event_b, op_type, iid A, iid B, match, count A, count B, avg A, avg B,
 * p50 A, p50 B, value A, value B, delta, change %. */
static const int totals_columns[] = {0, 2, 8, 9, 14, 15, 16, 17};
static const int operator_columns[] = {0,  2,  5,  6,  7,  8, 9,
                                       10, 11, 12, 13, 16, 17};
/* operators, not wide: block, event, iid ("A" or "A/B" when they differ),
 * match, n A, n B, value A, value B (the compared metric), delta, change %. */
static const int compact_columns[] = {0, 2, 5, 7, 8, 9, 14, 15, 16, 17};
#define COMPACT_COLUMNS (sizeof compact_columns / sizeof *compact_columns)
/* Code points of an event name in the compact table. */
#define COMPACT_NAME_MAX 28

/* The column of the single table that column `col` of the view shows. */
static int view_column(const view_t *v, size_t col) {
  return v->single    ? (int)col
         : v->totals  ? totals_columns[col]
         : v->compact ? compact_columns[col]
                      : operator_columns[col];
}

/* Whether a name of `len` bytes has at most COMPACT_NAME_MAX code points
 * (then the compact table shows it as it is). */
static int fits_compact(const char *s, size_t len) {
  if (len <= COMPACT_NAME_MAX) return 1;
  size_t points = 0;
  for (size_t i = 0; i < len; i++)
    if ((((unsigned char)s[i] & 0xc0u) != 0x80u) && ++points > COMPACT_NAME_MAX)
      return 0;
  return 1;
}

/* Writes x in decimal at out (room for 20 characters); returns its length. */
static size_t put_int(char *out, int64_t x) {
  char tmp[24];
  size_t n = 0, len = 0;
  uint64_t u = x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
  do {
    tmp[n++] = (char)('0' + u % 10u);
    u /= 10u;
  } while (u);
  if (x < 0) out[len++] = '-';
  while (n) out[len++] = tmp[--n];
  return len;
}

/* etk_duration_round(x), without its pow() for the zeros an unchanged
 * row has (delta, change): round(0 * 10^d) / 10^d is +0 for +-0. */
static inline double round_dur(double x) {
  return x == 0 ? 0.0 : etk_duration_round(x);
}

/* Text cells of a row: block, kind, event, event_b, op_type, match. */
static int view_texts(view_t *v, const etk_diff_row_t *r, etk_cell_t **c,
                      uint32_t shown) {
  etk_cell_set_text(c[0], r->block, strlen(r->block));
  if (shown & (1u << 1))
    etk_cell_set_text(c[1], kind_name(r->kind), strlen(kind_name(r->kind)));
  size_t name_len = strlen(r->name);
  if (!v->single &&
      (r->name_b || (v->compact && !fits_compact(r->name, name_len)))) {
    /* appended, not printed: this runs twice per row of a 1M-event diff */
    etk_strbuf_clear(&v->text);
    etk_strbuf_append(&v->text, r->name, name_len);
    if (r->name_b) {
      etk_strbuf_append(&v->text, " -> ", 4);
      etk_strbuf_appends(&v->text, r->name_b);
    }
    if (v->compact) etk_strbuf_cut(&v->text, COMPACT_NAME_MAX);
    if (v->text.failed) return ETK_E_NO_MEMORY;
    etk_cell_set_text(c[2], v->text.data, v->text.len);
  } else {
    etk_cell_set_text(c[2], r->name, name_len);
  }
  if (!r->name_b)
    etk_cell_set_none(c[3]);
  else if (shown & (1u << 3))
    etk_cell_set_text(c[3], r->name_b, strlen(r->name_b));
  if (!r->op_type)
    etk_cell_set_none(c[4]);
  else if (shown & (1u << 4))
    etk_cell_set_text(c[4], r->op_type, strlen(r->op_type));
  const char *m = etk_diff_match_name((etk_diff_match_t)r->match);
  etk_cell_set_text(c[7], m, strlen(m));
  return ETK_OK;
}

/* The cells of row `row` that the view shows (bit k of `shown`: column k
 * of the single table) into *c[k]. */
static int view_row(view_t *v, size_t row, etk_cell_t **c, uint32_t shown) {
  const size_t i = v->rows ? v->rows[row] : v->first + row;
  /* the operator type is only shown by the single table */
  const etk_diff_row_t rr = ana_diff_row_read(
                           v->d, i,
                           ANA_ROW_TEXTS | (v->single ? ANA_ROW_TYPE : 0)),
                       *r = &rr;
  int rc = view_texts(v, r, c, shown);
  for (int k = 0; k < 2; k++) {
    if ((k ? r->event_b : r->event_a) == SIZE_MAX)
      etk_cell_set_none(c[5 + k]);
    else
      etk_cell_set_int(c[5 + k], k ? r->instruction_id_b : r->instruction_id_a);
    double value = k ? r->value_b : r->value_a;
    if (value != value || r->kind == ETK_DIFF_ROW_FRAMEWORK_OVERHEAD)
      etk_cell_set_none(c[8 + k]);
    else
      etk_cell_set_int(c[8 + k], (int64_t)(k ? r->count_b : r->count_a));
  }
  if (v->compact) {
    /* one id is an int cell, as the table prints the text "12" (no
     * formatting and no parsing back per row); two differing ids are the
     * text "A/B" */
    int has_a = r->event_a != SIZE_MAX, has_b = r->event_b != SIZE_MAX;
    if (has_a && has_b && r->instruction_id_a != r->instruction_id_b) {
      size_t n = put_int(v->iid, r->instruction_id_a);
      v->iid[n++] = '/';
      n += put_int(v->iid + n, r->instruction_id_b);
      etk_cell_set_text(c[5], v->iid, n);
    } else if (has_a || has_b) {
      etk_cell_set_int(c[5], has_a ? r->instruction_id_a : r->instruction_id_b);
    } else {
      etk_cell_set_none(c[5]);
    }
  }
  const double durations[7] = {r->avg_a,   r->avg_b,   r->p50_a, r->p50_b,
                               r->value_a, r->value_b, r->delta};
  /* one-run events repeat a value along the row: rounded once */
  uint64_t last_in = 0; /* bits: -0.0 is not 0.0 */
  double last_out = (double)NAN;
  for (int k = 0; k < 7; k++) {
    double x = durations[k];
    if (!(shown & (1u << (10 + k)))) continue;
    if (x != x || v->scale[10 + k] <= 0) {
      cell_dur(v, 10 + k, c[10 + k], x);
      continue;
    }
    double y = x * v->scale[10 + k];
    uint64_t bits;
    memcpy(&bits, &y, sizeof bits);
    if (bits != last_in || last_out != last_out) {
      last_in = bits;
      last_out = round_dur(y);
    }
    etk_cell_set_float(c[10 + k], last_out);
  }
  cell_num(c[17], v->single ? r->change_pct : round_dur(r->change_pct));
  return rc;
}

/* The frames' row callback: the cells of row `row` that the view shows. */
static int view_cells(void *ctx, size_t row, etk_cell_t *cells) {
  view_t *v = ctx;
  if (cells != v->base) { /* the renderer keeps one array: set up once */
    size_t ncols = v->single    ? 18
                   : v->totals  ? 8
                   : v->compact ? COMPACT_COLUMNS
                                : 13;
    v->shown = 0;
    for (int k = 0; k < 18; k++) v->slot[k] = &v->spare;
    for (size_t k = 0; k < ncols; k++) {
      v->shown |= 1u << view_column(v, k);
      v->slot[view_column(v, k)] = &cells[k];
    }
    v->base = cells;
  }
  return view_row(v, row, v->slot, v->shown);
}

static void json_row(etk_json_t *j, const etk_diff_row_t *r) {
  etk_json_begin_object(j);
  etk_json_kv_cstring(j, "block", r->block);
  etk_json_kv_uint(j, "block_occurrence", r->block_occurrence);
  etk_json_kv_cstring(j, "kind", kind_name(r->kind));
  etk_json_kv_cstring(j, "match",
                      etk_diff_match_name((etk_diff_match_t)r->match));
  etk_json_kv_cstring(j, "name", r->name);
  etk_json_kv_cstring(j, "name_b", r->name_b);
  etk_json_kv_cstring(j, "op_type", r->op_type);
  etk_json_key(j, "instruction_id_a");
  if (r->event_a == SIZE_MAX)
    etk_json_null(j);
  else
    etk_json_int(j, r->instruction_id_a);
  etk_json_key(j, "instruction_id_b");
  if (r->event_b == SIZE_MAX)
    etk_json_null(j);
  else
    etk_json_int(j, r->instruction_id_b);
  etk_json_kv_uint(j, "count_a", r->count_a);
  etk_json_kv_uint(j, "count_b", r->count_b);
  etk_json_kv_double(j, "avg_a", r->avg_a);
  etk_json_kv_double(j, "avg_b", r->avg_b);
  etk_json_kv_double(j, "p50_a", r->p50_a);
  etk_json_kv_double(j, "p50_b", r->p50_b);
  etk_json_kv_double(j, "value_a", r->value_a);
  etk_json_kv_double(j, "value_b", r->value_b);
  etk_json_kv_double(j, "delta", r->delta);
  etk_json_kv_double(j, "change_pct", r->change_pct);
  etk_json_end_object(j);
}

/* `key`: an array of the rows vis[from .. to) (from .. to when vis is
 * NULL). */
static void json_rows(etk_json_t *j, const char *key, const etk_diff_t *d,
                      const uint32_t *vis, size_t from, size_t to) {
  etk_json_key(j, key);
  etk_json_begin_array(j);
  for (size_t i = from; i < to; i++) {
    const etk_diff_row_t r = ana_diff_row(d, vis ? vis[i] : i);
    json_row(j, &r);
  }
  etk_json_end_array(j);
}

/* The rows a rendering shows: totals first (vis[0 .. totals)), then the
 * operators; `hidden` counts the operator rows below the thresholds. */
typedef struct visible {
  /* vis: row indices (the build checked that they fit), NULL when no row
   * is hidden (then row k is the k-th shown); count of them, totals of
   * them are total rows; the largest values of each table's columns */
  uint32_t *vis;
  size_t count, totals, hidden;
  column_max_t max_totals, max_operators;
  const char *la, *lb, *unit, *metric;
} visible_t;

static int render_json(const etk_diff_t *d, const etk_diff_render_options_t *o,
                       const visible_t *w, etk_render_sink_t *sink) {
  const uint32_t *vis = w->vis;
  const size_t ntot = w->totals, nvis = w->count;
  etk_json_t j;
  etk_json_init(&j, sink, o->json_indent);
  etk_json_begin_object(&j);
  const char *const heads[4][2] = {{"a", w->la},
                                   {"b", w->lb},
                                   {"metric", w->metric},
                                   {"time_unit", w->unit}};
  for (int i = 0; i < 4; i++) {
    etk_json_key(&j, heads[i][0]);
    etk_json_cstring(&j, heads[i][1]);
  }
  etk_json_kv_double(&j, "threshold_pct", o->threshold_pct);
  etk_json_kv_double(&j, "min_delta", o->min_delta);
  etk_json_kv_uint(&j, "hidden_rows", w->hidden);
  json_rows(&j, "totals", d, vis, 0, ntot);
  json_rows(&j, "operators", d, vis, ntot, nvis);
  etk_json_end_object(&j);
  return etk_json_finish(&j);
}

static int render_table(const etk_diff_t *d, const etk_diff_render_options_t *o,
                        const visible_t *w, etk_render_sink_t *sink,
                        etk_error_t *err) {
  const uint32_t *vis = w->vis;
  size_t ntot = w->totals, nvis = w->count;
  const char *unit = w->unit, *metric = w->metric;
  int rc = ETK_OK;
  char h[13][64];
  const char *hp[13];
  etk_render_puts(sink, "A: ");
  etk_render_puts(sink, w->la);
  etk_render_puts(sink, "\nB: ");
  etk_render_puts(sink, w->lb);
  etk_render_printf(sink,
                    "\ncompared: %s; delta (\xce\x94) = B - A; change "
                    "(\xce\x94 %%) = delta / A; "
                    "durations in one unit per table\n\n",
                    metric);
  view_t v = {.d = d, .rows = vis, .n = ntot, .totals = 1};
  view_units(&v, unit, &w->max_totals);
  snprintf(h[0], sizeof h[0], "block");
  snprintf(h[1], sizeof h[1], "total");
  snprintf(h[2], sizeof h[2], "count A");
  snprintf(h[3], sizeof h[3], "count B");
  snprintf(h[4], sizeof h[4], "%s A (%s)", metric, v.unit[14]);
  snprintf(h[5], sizeof h[5], "%s B (%s)", metric, v.unit[15]);
  snprintf(h[6], sizeof h[6], "delta (%s)", v.unit[16]);
  snprintf(h[7], sizeof h[7], "change %%");
  for (int i = 0; i < 8; i++) hp[i] = h[i];
  if (ntot) {
    etk_render_puts(sink, "totals per block:\n");
    etk_frame_t f = {ntot, 8, hp, NULL, &v, 0};
    rc = etk_render_table_rows(&f, view_cells, sink, err);
  }
  etk_strbuf_free(&v.text);
  if (rc == ETK_OK) {
    static const char *const names[13] = {
        "block", "event", "iid A", "iid B", "match", "count A", "count B",
        "avg A", "avg B", "p50 A", "p50 B", "delta", "change %"};
    view_t vo = {.d = d,
                 .rows = vis ? vis + ntot : NULL,
                 .first = ntot,
                 .n = nvis - ntot};
    view_units(&vo, unit, &w->max_operators);
    static const int col_of[13] = {0, 0, 0, 0, 0, 0, 0, 10, 11, 12, 13, 16, 0};
    for (int i = 0; i < 13; i++) {
      if (i >= 7 && i <= 11)
        snprintf(h[i], sizeof h[i], "%s (%s)", names[i], vo.unit[col_of[i]]);
      else
        snprintf(h[i], sizeof h[i], "%s", names[i]);
      hp[i] = h[i];
    }
    if (ana_diff_metric(d) != ETK_DIFF_METRIC_AVG)
      snprintf(h[11], sizeof h[11], "delta %s (%s)", metric, vo.unit[16]);
    if (!o->wide) {
      /* the compared metric only, short headers (the line above names
       * the metric; --wide shows avg and p50 both) */
      static const char *const short_names[COMPACT_COLUMNS] = {
          "block", "event", "iid", "match",    "n A",
          "n B",   "A",     "B",   "\xce\x94", "\xce\x94 %"};
      vo.compact = 1;
      for (size_t i = 0; i < COMPACT_COLUMNS; i++) {
        if (i >= 6 && i <= 8)
          snprintf(h[i], sizeof h[i], "%s (%s)", short_names[i],
                   vo.unit[compact_columns[i]]);
        else
          snprintf(h[i], sizeof h[i], "%s", short_names[i]);
        hp[i] = h[i];
      }
    }
    etk_render_puts(sink, ntot ? "\noperators:\n" : "operators:\n");
    etk_frame_t f = {
        nvis - ntot, o->wide ? 13 : COMPACT_COLUMNS, hp, NULL, &vo, 0};
    rc = etk_render_table_rows(&f, view_cells, sink, err);
    etk_strbuf_free(&vo.text);
  }
  if (rc == ETK_OK && w->hidden) {
    etk_render_printf(sink, "%zu operator row(s) hidden: |change| below ",
                      w->hidden);
    char num[ETK_FORMAT_DOUBLE_MAX];
    etk_format_double_g(o->threshold_pct, num);
    etk_render_printf(sink, "%s %%", num);
    if (o->min_delta > 0) {
      etk_format_double_g(o->min_delta, num);
      etk_render_printf(sink, " or |delta| below %s %s", num, unit);
    }
    etk_render_puts(sink, "\n");
  }
  return rc;
}

static int render_delimited(const etk_diff_t *d,
                            const etk_diff_render_options_t *o,
                            const visible_t *w, etk_render_sink_t *sink,
                            etk_error_t *err) {
  const char *unit = w->unit;
  static const char *const names[18] = {"block",
                                        "kind",
                                        "event",
                                        "event_b",
                                        "op_type",
                                        "instruction_id_a",
                                        "instruction_id_b",
                                        "match",
                                        "count_a",
                                        "count_b",
                                        "avg_a",
                                        "avg_b",
                                        "p50_a",
                                        "p50_b",
                                        "value_a",
                                        "value_b",
                                        "delta",
                                        "change_pct"};
  char h[18][64];
  const char *hp[18];
  for (int i = 0; i < 18; i++) {
    if ((i >= 10 && i <= 16))
      snprintf(h[i], sizeof h[i], "%s (%s)", names[i], unit);
    else
      snprintf(h[i], sizeof h[i], "%s", names[i]);
    hp[i] = h[i];
  }
  view_t v = {.d = d, .rows = w->vis, .n = w->count, .single = 1};
  etk_frame_t f = {w->count, 18, hp, NULL, &v, 0};
  int rc = etk_render_delimited_rows(
      &f, view_cells, o->format == ETK_INSPECT_FORMAT_CSV ? ',' : '\t', sink,
      err);
  etk_strbuf_free(&v.text);
  return rc;
}

/* The rows shown and each table's largest values.  Without thresholds
 * every row is shown: only the total rows (first, few) are read, and the
 * operators' largest values are the diff's own; else every row is read
 * once, and the list of shown rows is made at the first hidden one.
 * ETK_E_NO_MEMORY. */
static int list_rows(const etk_diff_t *d, const etk_diff_render_options_t *o,
                     visible_t *w) {
  const size_t nrows = etk_diff_row_count(d);
  if (!(o->threshold_pct > 0) && !(o->min_delta > 0)) {
    for (; w->totals < nrows; w->totals++) {
      const etk_diff_row_t r = ana_diff_row_read(d, w->totals, 0);
      if (r.match != ETK_DIFF_MATCH_TOTAL) break;
      ana_column_max_add(w->max_totals.max, &r);
    }
    memcpy(w->max_operators.max, ana_diff_operator_max(d),
           sizeof w->max_operators.max);
    w->count = nrows;
    return ETK_OK;
  }
  for (size_t i = 0; i < nrows; i++) {
    const etk_diff_row_t r = ana_diff_row_read(d, i, 0);
    if (row_hidden(&r, o)) {
      if (!w->vis) { /* every row before this one is shown */
        if (!(w->vis = malloc(nrows * sizeof *w->vis))) return ETK_E_NO_MEMORY;
        for (size_t k = 0; k < w->count; k++) w->vis[k] = (uint32_t)k;
      }
      w->hidden++;
      continue;
    }
    if (r.match == ETK_DIFF_MATCH_TOTAL) {
      w->totals++;
      ana_column_max_add(w->max_totals.max, &r);
    } else {
      ana_column_max_add(w->max_operators.max, &r);
    }
    if (w->vis) w->vis[w->count] = (uint32_t)i;
    w->count++;
  }
  return ETK_OK;
}

int etk_diff_render(const etk_diff_t *d, const etk_diff_render_options_t *o,
                    etk_render_sink_t *sink, etk_error_t *err) {
  etk_diff_render_options_t defaults;
  etk_diff_render_options_init(&defaults);
  if (!o) o = &defaults;
  if (!d || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_diff_render: NULL argument");
  visible_t w;
  memset(&w, 0, sizeof w);
  w.la = o->label_a ? o->label_a : "A";
  w.lb = o->label_b ? o->label_b : "B";
  w.unit = etk_time_scale_name(ana_diff_unit(d));
  w.metric = etk_diff_metric_name(ana_diff_metric(d));
  int rc = list_rows(d, o, &w);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  if (o->format == ETK_INSPECT_FORMAT_JSON)
    rc = render_json(d, o, &w, sink);
  else if (o->format == ETK_INSPECT_FORMAT_TABLE)
    rc = render_table(d, o, &w, sink, err);
  else
    rc = render_delimited(d, o, &w, sink, err);
  free(w.vis);
  if (rc == ETK_OK && sink->status != ETK_OK) rc = sink->status;
  if (rc != ETK_OK) {
    if (err && err->code != ETK_OK) return err->code;
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "rendering the diff failed: %s", etk_strerror(rc));
  }
  return ETK_OK;
}
