/*
 * report.c - etk_store_report: one self-contained page (HTML with inline
 * SVG, no network) or a Markdown summary for a CI comment, comparing two
 * sets of runs of a store.
 *
 * CONTENT, IN ORDER
 *   1. the regressions (and improvements): every significant change of
 *      etk_store_compare with operator, instruction, module, source line,
 *      medians, delta and its interval, q;
 *   2. trend plots: each method's Method::execute and the top operators
 *      (largest significant changes first, then largest |delta|): a point
 *      per run (its median), the baseline runs then the candidate runs;
 *   3. the run series of the newest candidate run: Method::execute of each
 *      execution in order (warm-up and drift show there).
 *   Markdown keeps 1 and lists 2 as numbers (a CI comment has no SVG).
 *
 * SVG
 *   Plots are a 640 x 240 box: a polyline with a dot per point per series
 *   (one point is still drawn), y ticks with the unit in the y title, x
 *   ticks labelled with run ids (or execution index), the legend in a row
 *   above the plot with each item as wide as its text; every text is
 *   escaped (etk_html_texts), nothing is fetched.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#define TOP_OPERATORS 5
#define PLOT_W 640.0 /* the whole SVG */
#define PLOT_H 240.0
#define PLOT_LEFT 70.0 /* room for the y ticks and the y title */
#define PLOT_TOP 28.0  /* the legend's row */
#define PLOT_RIGHT 14.0
#define PLOT_BOTTOM 44.0 /* x ticks and the x title */

typedef struct series {
  const double *y;
  size_t n, x0; /* points x0 .. x0 + n - 1 on the x axis */
  const char *color, *label;
} series_t;

/* The axes of a plot: titles, and the label of each x position (run ids;
 * NULL: the position itself). */
typedef struct axes {
  const char *x_title, *y_title;
  const int64_t *x_labels;
} axes_t;

/* Legend items in a row above the plot, each as wide as its text (about
 * 6.6 px a character at 11 px): they never overlap. */
static void svg_legend(etk_render_sink_t *s, const series_t *sv, size_t ns) {
  double x = PLOT_LEFT;
  for (size_t k = 0; k < ns; k++) {
    etk_render_printf(s,
                      "<line x1=\"%.1f\" y1=\"14\" x2=\"%.1f\" y2=\"14\" "
                      "stroke=\"%s\" stroke-width=\"2\"/><circle cx=\"%.1f\" "
                      "cy=\"14\" r=\"3\" fill=\"%s\"/><text x=\"%.1f\" "
                      "y=\"18\" font-size=\"11\">",
                      x, x + 18, sv[k].color, x + 9, sv[k].color, x + 24);
    etk_html_texts(s, sv[k].label);
    etk_render_puts(s, "</text>\n");
    x += 24 + 6.6 * (double)strlen(sv[k].label) + 18;
  }
}

/* The y ticks (lowest, middle, highest value) and the x ticks (at most
 * about 12 labels), with the axis titles. */
static void svg_axes(etk_render_sink_t *s, const axes_t *ax, double lo,
                     double hi, size_t maxn, double w, double h) {
  for (int i = 0; i <= 2; i++) {
    double v = lo + (hi - lo) * i / 2.0;
    double y = PLOT_TOP + h * (1.0 - i / 2.0);
    etk_render_printf(s,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                      "y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%.1f\" "
                      "y=\"%.1f\" font-size=\"10\" "
                      "text-anchor=\"end\">%.4g</text>\n",
                      PLOT_LEFT, y, PLOT_LEFT + w, y, PLOT_LEFT - 4, y + 3, v);
  }
  size_t step = maxn > 12 ? (maxn + 11) / 12 : 1;
  for (size_t i = 0; i < maxn; i += step) {
    double x =
        PLOT_LEFT + (maxn > 1 ? w * (double)i / (double)(maxn - 1) : w / 2);
    long long label = ax->x_labels ? (long long)ax->x_labels[i] : (long long)i;
    etk_render_printf(s,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                      "y2=\"%.1f\" stroke=\"#999\"/><text x=\"%.1f\" "
                      "y=\"%.1f\" font-size=\"10\" "
                      "text-anchor=\"middle\">%lld</text>\n",
                      x, PLOT_TOP + h, x, PLOT_TOP + h + 4, x,
                      PLOT_TOP + h + 15, label);
  }
  etk_render_printf(s,
                    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                    "text-anchor=\"middle\">",
                    PLOT_LEFT + w / 2, PLOT_H - 6);
  etk_html_texts(s, ax->x_title);
  etk_render_printf(s,
                    "</text>\n<text transform=\"translate(14,%.1f) "
                    "rotate(-90)\" font-size=\"11\" "
                    "text-anchor=\"middle\">",
                    PLOT_TOP + h / 2);
  etk_html_texts(s, ax->y_title);
  etk_render_puts(s, "</text>\n");
}

static void svg_plot(etk_render_sink_t *s, const char *title, const axes_t *ax,
                     const series_t *sv, size_t ns) {
  double lo = INFINITY, hi = -INFINITY;
  size_t maxn = 1;
  for (size_t k = 0; k < ns; k++) {
    if (sv[k].x0 + sv[k].n > maxn) maxn = sv[k].x0 + sv[k].n;
    for (size_t i = 0; i < sv[k].n; i++)
      if (isfinite(sv[k].y[i])) {
        lo = fmin(lo, sv[k].y[i]);
        hi = fmax(hi, sv[k].y[i]);
      }
  }
  etk_render_puts(s, "<figure><figcaption>");
  etk_html_texts(s, title);
  etk_render_puts(s, "</figcaption>\n");
  if (!(lo <= hi)) {
    etk_render_puts(s, "<p>no samples</p></figure>\n");
    return;
  }
  if (hi == lo) { /* one value: centre it */
    double d = lo != 0 ? fabs(lo) * 0.05 : 1e-9;
    lo -= d;
    hi += d;
  }
  double w = PLOT_W - PLOT_LEFT - PLOT_RIGHT;
  double h = PLOT_H - PLOT_TOP - PLOT_BOTTOM;
  etk_render_printf(s,
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
                    "height=\"%g\" role=\"img\" font-family=\"sans-serif\">"
                    "\n<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" "
                    "fill=\"none\" stroke=\"#bbb\"/>\n",
                    PLOT_W, PLOT_H, PLOT_LEFT, PLOT_TOP, w, h);
  svg_axes(s, ax, lo, hi, maxn, w, h);
  svg_legend(s, sv, ns);
  for (size_t k = 0; k < ns; k++) {
    etk_render_printf(s,
                      "<polyline class=\"series\" fill=\"none\" "
                      "stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                      sv[k].color);
    etk_strbuf_t dots = {0};
    for (size_t i = 0; i < sv[k].n; i++) {
      if (!isfinite(sv[k].y[i])) continue;
      double at = (double)(sv[k].x0 + i);
      double x = PLOT_LEFT + (maxn > 1 ? w * at / (double)(maxn - 1) : w / 2);
      double y = PLOT_TOP + h * (1.0 - (sv[k].y[i] - lo) / (hi - lo));
      etk_render_printf(s, "%.1f,%.1f ", x, y);
      etk_strbuf_printf(&dots,
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
                        "fill=\"%s\"/>",
                        x, y, sv[k].color);
    }
    etk_render_puts(s, "\"/>\n");
    if (dots.data) etk_render_puts(s, dots.data);
    etk_render_puts(s, "\n");
    etk_strbuf_free(&dots);
  }
  etk_render_puts(s, "</svg></figure>\n");
}

/* Column `col` (a float column) of a table as an array (NaN for None). */
static double *column(const etk_store_table_t *t, size_t col) {
  double *v = malloc((t->rows ? t->rows : 1) * sizeof *v);
  for (size_t r = 0; v && r < t->rows; r++) {
    const etk_cell_t *c = &t->cells[r * t->cols + col];
    v[r] = c->kind == ETK_CELL_FLOAT ? c->f : NAN;
  }
  return v;
}

typedef struct report {
  etk_store_t *st;
  const etk_store_where_t *base, *cand;
  const etk_store_comparison_t *cmp;
  int markdown;
  etk_render_sink_t *s;
  etk_error_t *err;
} report_t;

/* A Markdown cell or list item: the characters Markdown would read as
 * markup are escaped, line breaks become spaces. */
static void md_cell(etk_render_sink_t *s, const char *text) {
  for (const char *p = text ? text : ""; *p; p++) {
    if (strchr("|`<*_[]\\#", *p)) etk_render_putc(s, '\\');
    etk_render_putc(s, *p == '\n' ? ' ' : *p);
  }
}

/* Trend of one operator or method on both sides, as a plot or a line. */
static int trend_both(report_t *r, etk_store_trend_kind_t kind,
                      const char *name, const char *title) {
  etk_store_table_t t[2];
  int rc = etk_store_trend(r->st, kind, name, r->base, &t[0], r->err);
  if (rc) return rc;
  if ((rc = etk_store_trend(r->st, kind, name, r->cand, &t[1], r->err))) {
    etk_store_table_free(&t[0]);
    return rc;
  }
  double *y[2] = {column(&t[0], 4), column(&t[1], 4)};
  size_t n = t[0].rows + t[1].rows;
  int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
  for (size_t i = 0; ids && i < n; i++) /* baseline runs, then candidate */
    ids[i] = i < t[0].rows ? t[0].cells[i * t[0].cols].i
                           : t[1].cells[(i - t[0].rows) * t[1].cols].i;
  if (y[0] && y[1] && ids && !r->markdown) {
    series_t sv[2] = {
        {y[0], t[0].rows, 0, "#1f77b4", "baseline runs (median of each)"},
        {y[1], t[1].rows, t[0].rows, "#d62728",
         "candidate runs (median of each)"}};
    axes_t ax = {"run id (baseline runs, then candidate runs)", "median (ms)",
                 ids};
    svg_plot(r->s, title, &ax, sv, 2);
  } else if (y[0] && y[1]) {
    etk_render_puts(r->s, "- "); /* a name is text, never Markdown */
    md_cell(r->s, title);
    etk_render_printf(r->s, ": %zu baseline runs, %zu candidate runs\n",
                      t[0].rows, t[1].rows);
  }
  free(ids);
  free(y[0]);
  free(y[1]);
  etk_store_table_free(&t[0]);
  etk_store_table_free(&t[1]);
  return ETK_OK;
}

static void change_row(report_t *r, const etk_store_change_t *c) {
  char nums[160], q[16];
  /* a change compared from latency sketches has no q: its bounds decided */
  snprintf(q, sizeof q, c->from_sketch ? "sketch" : "%.2g", c->q_value);
  snprintf(nums, sizeof nums, "%.4g|%.4g|%+.1f %% [%+.1f, %+.1f]|%s",
           c->shift.baseline, c->shift.candidate, c->delta_pct, c->ci_low_pct,
           c->ci_high_pct, q);
  const char *text[4] = {c->name, c->module, c->source, c->method};
  if (r->markdown) {
    etk_render_puts(r->s, "| ");
    for (int i = 0; i < 4; i++) {
      md_cell(r->s, text[i]);
      etk_render_puts(r->s, " | ");
    }
    for (char *p = nums; *p; p++)
      if (*p == '|')
        etk_render_puts(r->s, " | ");
      else
        etk_render_putc(r->s, *p);
    etk_render_puts(r->s, " |\n");
    return;
  }
  etk_render_printf(r->s, "<tr class=\"%s\">",
                    etk_change_direction_name(c->direction));
  for (int i = 0; i < 4; i++) {
    etk_render_puts(r->s, "<td>");
    etk_html_texts(r->s, text[i] ? text[i] : "");
    etk_render_puts(r->s, "</td>");
  }
  etk_render_puts(r->s, "<td>");
  for (char *p = nums; *p; p++)
    if (*p == '|')
      etk_render_puts(r->s, "</td><td>");
    else
      etk_html_text(r->s, p, 1);
  etk_render_puts(r->s, "</td></tr>\n");
}

static void changes_section(report_t *r) {
  static const char *const head[] = {
      "operator",    "module",       "source",          "method",
      "baseline ms", "candidate ms", "delta [95 % CI]", "q"};
  size_t n = 0;
  for (size_t i = 0; i < r->cmp->count; i++)
    n += r->cmp->changes[i].significant;
  etk_render_printf(r->s,
                    r->markdown ? "\n### Changes (%zu significant of %zu "
                                  "operators)\n\n"
                                : "<h2>Changes (%zu significant of %zu "
                                  "operators)</h2>\n",
                    n, r->cmp->count);
  if (n == 0) {
    etk_render_puts(r->s, r->markdown ? "No significant change.\n"
                                      : "<p>No significant change.</p>\n");
    return;
  }
  etk_render_puts(r->s, r->markdown ? "|" : "<table><tr>");
  for (int i = 0; i < 8; i++)
    etk_render_printf(r->s, r->markdown ? " %s |" : "<th>%s</th>", head[i]);
  etk_render_puts(
      r->s, r->markdown ? "\n|---|---|---|---|---|---|---|---|\n" : "</tr>\n");
  for (size_t i = 0; i < r->cmp->count; i++)
    if (r->cmp->changes[i].significant) change_row(r, &r->cmp->changes[i]);
  if (!r->markdown) etk_render_puts(r->s, "</table>\n");
}

/* One Method::execute sample: its execution, operator and duration. */
typedef struct exec_item {
  int64_t execution, op;
  double duration;
} exec_item_t;

typedef struct exec_ctx {
  exec_item_t *items;
  size_t count, cap;
  store_samples_t s;
  int failed;
} exec_ctx_t;

static int exec_row(void *ctx, const store_row_t *row) {
  exec_ctx_t *c = ctx;
  int rc = store_read_samples(row, 1, &c->s);
  if (rc) return c->failed = rc;
  for (size_t i = 0; i < c->s.count; i++) {
    if (isnan(c->s.durations[i])) continue;
    if (!store_grow((void **)&c->items, &c->cap, c->count, sizeof *c->items))
      return c->failed = ETK_E_NO_MEMORY;
    exec_item_t it = {c->s.executions[i], row->ops->get_int(row, 0),
                      c->s.durations[i]};
    c->items[c->count++] = it;
  }
  return 0;
}

/* Execution order, then operator order. */
static int by_execution(const void *a, const void *b) {
  const exec_item_t *x = a, *y = b;
  if (x->execution != y->execution) return x->execution < y->execution ? -1 : 1;
  return (x->op > y->op) - (x->op < y->op);
}

/* Method::execute of every execution of the newest candidate run. */
static int run_series(report_t *r) {
  store_sql_t sql = {0};
  etk_strbuf_appends(&sql.text,
                     "SELECT o.op, o.durations, o.executions FROM operators o "
                     "WHERE o.name = 'Method::execute' AND o.run_id = (SELECT "
                     "max(r.id) FROM runs r WHERE 1 = 1");
  int rc = store_where_sql(r->st, r->cand, &sql, r->err);
  etk_strbuf_appends(&sql.text, ")");
  exec_ctx_t c;
  memset(&c, 0, sizeof c);
  if (rc == ETK_OK)
    rc = store_q(r->st, sql.text.data, sql.params, sql.count, exec_row, &c,
                 r->err);
  store_sql_free(&sql);
  if (c.failed) rc = store_samples_error(c.failed, r->err);
  double *v = rc == ETK_OK ? malloc((c.count ? c.count : 1) * sizeof *v) : NULL;
  if (rc == ETK_OK && !v) rc = store_samples_error(ETK_E_NO_MEMORY, r->err);
  if (rc == ETK_OK) {
    if (c.count) qsort(c.items, c.count, sizeof *c.items, by_execution);
    for (size_t i = 0; i < c.count; i++) v[i] = c.items[i].duration;
  }
  if (rc == ETK_OK && !r->markdown) {
    etk_render_puts(r->s, "<h2>Run series of the newest candidate run</h2>\n");
    series_t sv = {v, c.count, 0, "#2ca02c", "Method::execute per execution"};
    axes_t ax = {"execution", "Method::execute (ms)", NULL};
    svg_plot(r->s, "Method::execute, in execution order", &ax, &sv, 1);
  }
  free(v);
  free(c.items);
  store_samples_free(&c.s);
  return rc;
}

static int trends_section(report_t *r) {
  etk_render_puts(r->s, r->markdown ? "\n### Trends\n\n" : "<h2>Trends</h2>\n");
  int rc = ETK_OK;
  for (size_t i = 0; rc == ETK_OK && i < r->cmp->count; i++)
    if (strcmp(r->cmp->changes[i].name, "Method::execute") == 0)
      rc = trend_both(r, ETK_STORE_TREND_METHOD, r->cmp->changes[i].method,
                      r->cmp->changes[i].method);
  size_t shown = 0;
  for (size_t i = 0; rc == ETK_OK && i < r->cmp->count && shown < TOP_OPERATORS;
       i++) {
    const char *name = r->cmp->changes[i].name;
    /* operators only: Method::init, Program::load_method are not */
    if (strncmp(name, "Method::", 8) == 0 || strncmp(name, "Program::", 9) == 0)
      continue;
    rc = trend_both(r, ETK_STORE_TREND_OP, name, name);
    shown++;
  }
  return rc;
}

static const char *const css =
    "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:"
    "collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}"
    "tr.slower td{background:#fde0e0}tr.faster td{background:#e0f5e0}"
    "figure{margin:1em 0}</style>\n";

int etk_store_report(etk_store_t *st, const etk_store_where_t *baseline,
                     const etk_store_where_t *candidate,
                     const etk_change_rule_t *rule,
                     etk_store_report_format_t format, etk_render_sink_t *sink,
                     etk_error_t *err) {
  if (!st || !sink) return ETK_E_INVALID_ARGUMENT;
  etk_store_comparison_t cmp;
  int rc = etk_store_compare(st, baseline, candidate, NULL, rule, &cmp, err);
  if (rc) return rc;
  report_t r = {
      st,   baseline, candidate, &cmp, format == ETK_STORE_REPORT_MARKDOWN,
      sink, err};
  if (r.markdown)
    etk_render_printf(sink,
                      "## etkit store report\n\n%zu baseline runs, %zu "
                      "candidate runs.\n",
                      cmp.baseline_runs, cmp.candidate_runs);
  else
    etk_render_printf(sink,
                      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                      "<title>etkit store report</title>\n%s</head><body>\n"
                      "<h1>etkit store report</h1>\n<p>%zu baseline runs, "
                      "%zu candidate runs.</p>\n",
                      css, cmp.baseline_runs, cmp.candidate_runs);
  changes_section(&r);
  rc = trends_section(&r);
  if (rc == ETK_OK) rc = run_series(&r);
  if (!r.markdown) etk_render_puts(sink, "</body></html>\n");
  etk_store_comparison_free(&cmp);
  return rc;
}
