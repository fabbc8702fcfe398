/*
 * html_report.c - one self-contained HTML page about an ETDump: the facts
 * of the file, the operator-type summary per block, a timeline of the
 * first run of each block (inline SVG), the events with their statistics
 * and the memory report.  What people otherwise assemble from console
 * prints, CSVs and screenshots, as a file that can be mailed, attached to
 * a CI run or opened offline.
 *
 * SELF-CONTAINED AND SAFE
 *   No external stylesheet, font, image or script: one <style> block
 *   and inline SVG, so the page renders identically offline and cannot
 *   phone home.  The one script is the optional graph section's
 *   (o->graph_section, the graph view's pan/zoom and tooltips), inline
 *   too.  Every string that comes from a file (names, run names,
 *   delegate ids, metadata, ETRecord op types, paths) goes through
 *   etk_html_text(); the only unescaped text is our own markup and
 *   numbers.
 *
 * TIMELINE
 *   The first run of each block, drawn from the raw ticks (ana_run_items:
 *   same unwrapping as the trace export).  Slices are stacked by nesting
 *   depth (a stack of open ends; a slice that does not nest goes one level
 *   deeper than its predecessor); delegated events get their own lanes
 *   below.  At most max_timeline_events slices are drawn (the longest
 *   ones), and the page says how many were left out.  Each slice carries a
 *   <title> tooltip with name, start and duration.
 *
 * SIZE
 *   The events table is capped (max_event_rows) so a million-event dump
 *   still gives a page a browser opens; the cap is stated on the page.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "common/vec.h"
#include "etkit/memory_plan.h"

void etk_report_options_init(etk_report_options_t *o) {
  if (o) memset(o, 0, sizeof *o);
}

static const char css[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
    "margin:0;color:#1d2330;background:#fafbfc}"
    "header{background:#243447;color:#fff;padding:16px 28px}"
    "header h1{margin:0;font-size:22px}header p{margin:4px 0 0;opacity:.8}"
    "nav{padding:8px 28px;background:#e8edf3;font-size:13px}"
    "nav a{margin-right:16px;color:#243447}"
    "main{padding:8px 28px 40px}"
    "h2{margin:28px 0 8px;border-bottom:2px solid #d5dde6;padding-bottom:4px}"
    "h3{margin:18px 0 6px;font-size:15px}"
    "table{border-collapse:collapse;margin:6px "
    "0;background:#fff;font-size:13px}"
    "th,td{border:1px solid #d5dde6;padding:3px 8px;text-align:left;"
    "vertical-align:top}"
    "th{background:#eef2f6;font-weight:600}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums;white-space:nowrap}"
    "table.facts th{width:220px}"
    ".warn{background:#fff3cd;border:1px solid #e0c36a;padding:8px 12px;"
    "margin:12px 0;border-radius:4px}"
    ".note{color:#5a6575;font-size:12px;margin:4px 0}"
    ".bar{background:#e3e8ee;width:160px;height:10px;display:inline-block;"
    "vertical-align:middle}"
    ".bar span{display:block;height:10px;background:#4f7cac}"
    "svg{background:#fff;border:1px solid #d5dde6;display:block;margin:6px 0}"
    "svg text{font:11px system-ui,sans-serif}"
    ".legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 "
    "12px;"
    "vertical-align:middle}"
    ".scroll{overflow-x:auto}"
    "main{max-width:1300px}svg{max-width:100%;height:auto}"
    "td.op{word-break:break-word;max-width:360px}"
    ".sw{display:inline-block;width:10px;height:10px;margin-right:6px;"
    "vertical-align:middle;border-radius:2px}"
    "footer{color:#5a6575;font-size:12px;padding:12px 28px}";

/* Colours by operator type: the type's key (etk_op_type_from_name() of the
 * event name, or the linked op type, without "aten." and overload
 * suffixes: "native_call_convolution.out", "convolution #0" and
 * "aten.convolution.default" all give "convolution") hashed into a
 * palette, so one type has one colour in the summary, the legends and
 * every timeline. */
static const char *const palette[] = {
    "#4f7cac", "#e07b39", "#3f9e6e", "#b5487a", "#8a6bbf", "#c9a227",
    "#2a9bb0", "#d05353", "#6b8e23", "#a0522d", "#5c6bc0", "#00897b"};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])

static size_t op_key(const char *name, size_t len, const char **key) {
  size_t n;
  const char *t = etk_op_type_from_name(name, len, &n);
  if (n > 5 && memcmp(t, "aten.", 5) == 0) {
    t += 5;
    n -= 5;
  }
  const char *dot = memchr(t, '.', n);
  if (dot) n = (size_t)(dot - t);
  *key = t;
  return n;
}

static const char *op_color(const char *name, size_t len) {
  const char *k;
  size_t n = op_key(name, len, &k);
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)k[i]) * 16777619u;
  return palette[h % PALETTE_SIZE];
}

/* Wrappers and the method in greys; operators (delegated ones too) in the
 * colour of their type; `label` is the slice's name.  0 for a wrapper. */
static const char *slice_color(const etk_etdump_event_t *e, const char *label,
                               size_t label_len, int *is_operator) {
  const char *n = e->name.data;
  size_t len = e->name.len;
  *is_operator = 0;
  if (n && ana_is_name(n, len, "OPERATOR_CALL")) return "#c3ced9";
  if (n && ana_is_name(n, len, "DELEGATE_CALL")) return "#a3927f";
  if (n && ((len > 8 && memcmp(n, "Method::", 8) == 0) ||
            (len > 9 && memcmp(n, "Program::", 9) == 0)))
    return "#7a8799";
  *is_operator = 1;
  return op_color(label, label_len);
}

typedef struct report {
  etk_inspector_t *insp;
  const etk_etdump_t *dump;
  const etk_report_options_t *o;
  etk_render_sink_t *s;
  etk_op_summary_t *sum;
  etk_memory_report_t *mem;
  const char *unit;
  double factor;       /* raw ticks / factor = target units */
  double sec_per_unit; /* seconds per target unit (0: cycles) */
  ana_item_t *items;
  size_t nitems, cap;
  uint32_t *depth;
  size_t depth_cap;
  etk_strbuf_t tmp;
} report_t;

static void put_num(etk_render_sink_t *s, double v) {
  char num[ETK_FORMAT_DOUBLE_MAX];
  if (v != v) {
    etk_render_puts(s, "&ndash;");
    return;
  }
  etk_render_put(s, num, etk_format_double_g(v, num));
}

/* A readable unit for a column of durations whose largest magnitude is
 * `max` target units: its name and *scale (column units per target unit).
 * Cycles stay cycles. */
static const char *col_unit(const report_t *r, double max, double *scale) {
  if (!(r->sec_per_unit > 0)) {
    *scale = 1;
    return r->unit;
  }
  double per_second;
  const char *u = etk_duration_unit(max * r->sec_per_unit, &per_second);
  *scale = r->sec_per_unit * per_second;
  return u;
}

/* A duration in column units (few digits), or a dash. */
static void put_dur(etk_render_sink_t *s, double v, double scale) {
  char num[ETK_FORMAT_DOUBLE_MAX];
  if (v != v) {
    etk_render_puts(s, "&ndash;");
    return;
  }
  etk_render_put(s, num, etk_format_duration_in(v, scale, num));
}

/* A duration with its own unit ("12.3 µs"). */
static void put_dur_auto(const report_t *r, double v) {
  double scale;
  const char *u = col_unit(r, v, &scale);
  put_dur(r->s, v, scale);
  etk_render_printf(r->s, " %s", u);
}

static void put_uint(etk_render_sink_t *s, uint64_t v) {
  char num[24];
  etk_render_put(s, num, etk_format_uint(v, num));
}

/* A fixed-precision coordinate for SVG attributes. */
static void put_coord(etk_render_sink_t *s, double v) {
  if (v != v || v < -1e9 || v > 1e9) v = 0;
  etk_render_printf(s, "%.1f", v);
}

/* Table cells: <td class="n"> for numbers, <td> for text (NULL: empty),
 * and the percentage bar (clamped to 0..100; NaN draws none). */
static void uint_cell(etk_render_sink_t *s, uint64_t v) {
  etk_render_puts(s, "<td class=\"n\">");
  put_uint(s, v);
  etk_render_puts(s, "</td>");
}

static void num_cell(etk_render_sink_t *s, double v) {
  etk_render_puts(s, "<td class=\"n\">");
  put_num(s, v);
  etk_render_puts(s, "</td>");
}

static void dur_cell(etk_render_sink_t *s, double v, double scale) {
  etk_render_puts(s, "<td class=\"n\">");
  put_dur(s, v, scale);
  etk_render_puts(s, "</td>");
}

static void text_cell(etk_render_sink_t *s, const char *text) {
  etk_render_puts(s, "<td>");
  if (text) etk_html_texts(s, text);
  etk_render_puts(s, "</td>");
}

static void bar_cell(etk_render_sink_t *s, double pct) {
  etk_render_puts(s, "<td><span class=\"bar\"><span style=\"width:");
  put_coord(s, pct == pct ? (pct < 0 ? 0 : pct > 100 ? 100 : pct) : 0);
  etk_render_puts(s, "%\"></span></span></td>");
}

static void fact_row(report_t *r, const char *key, const char *value) {
  etk_render_puts(r->s, "<tr><th>");
  etk_html_texts(r->s, key);
  etk_render_puts(r->s, "</th><td>");
  etk_html_texts(r->s, value);
  etk_render_puts(r->s, "</td></tr>\n");
}

static void fact_uint(report_t *r, const char *key, uint64_t v) {
  etk_render_puts(r->s, "<tr><th>");
  etk_html_texts(r->s, key);
  etk_render_puts(r->s, "</th><td class=\"n\" style=\"text-align:left\">");
  put_uint(r->s, v);
  etk_render_puts(r->s, "</td></tr>\n");
}

static void block_title(report_t *r, size_t b, const char *tag) {
  etk_inspector_block_t blk;
  etk_inspector_block_get(r->insp, b, &blk);
  etk_render_printf(r->s, "<%s>block %zu: ", tag, b);
  if (blk.name_present)
    etk_html_text(r->s, blk.name, blk.name_len);
  else
    etk_render_puts(r->s, "<i>(no name)</i>");
  etk_render_printf(
      r->s, " <span class=\"note\">(%zu run%s, %zu event%s)</span></%s>\n",
      blk.run_count, blk.run_count == 1 ? "" : "s", blk.event_count,
      blk.event_count == 1 ? "" : "s", tag);
}

/* ------------------------------------------------------- sections */

static void section_facts(report_t *r, const etk_dropped_marker_t *dropped) {
  etk_render_sink_t *s = r->s;
  const etk_report_options_t *o = r->o;
  etk_render_puts(
      s, "<section id=\"file\"><h2>File</h2>\n<table class=\"facts\">\n");
  if (o->etdump_path) fact_row(r, "ETDump", o->etdump_path);
  if (o->etdump_bytes) fact_uint(r, "size (bytes)", o->etdump_bytes);
  fact_uint(r, "ETDump version", etk_etdump_version(r->dump));
  fact_uint(r, "runs (RunData)", etk_etdump_run_count(r->dump));
  fact_uint(r, "event blocks", etk_inspector_block_count(r->insp));
  etk_etdump_columns_t cols;
  etk_etdump_columns(r->dump, &cols);
  uint64_t kinds[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < cols.count; i++)
    kinds[cols.flags[i] & ETK_ETDUMP_KIND_MASK]++;
  fact_uint(r, "profile events", kinds[ETK_ETDUMP_EVENT_PROFILE]);
  fact_uint(r, "debug events", kinds[ETK_ETDUMP_EVENT_DEBUG]);
  fact_uint(r, "allocation events", kinds[ETK_ETDUMP_EVENT_ALLOCATION]);
  fact_uint(r, "Inspector events", etk_inspector_event_count(r->insp));
  etk_strbuf_clear(&r->tmp);
  etk_strbuf_printf(
      &r->tmp, "%s -> %s",
      etk_time_scale_name(etk_inspector_source_time_scale(r->insp)), r->unit);
  fact_row(r, "time scale (source -> shown)", r->tmp.data ? r->tmp.data : "");
  if (o->etrecord_path) fact_row(r, "ETRecord", o->etrecord_path);
  if (o->etrecord_note) fact_row(r, "ETRecord link", o->etrecord_note);
  if (etk_inspector_debug_mismatch_count(r->insp))
    fact_uint(r, "debug values differing between merged runs",
              etk_inspector_debug_mismatch_count(r->insp));
  fact_row(r, "dropped events (recorder)",
           dropped->present ? "see the warning below" : "none reported");
  etk_render_puts(s, "</table>\n");
  if (dropped->present) {
    etk_render_puts(
        s,
        "<div class=\"warn\"><b>Incomplete recording.</b> The recorder's "
        "buffer filled: ");
    put_uint(s, dropped->events);
    etk_render_puts(s, " event(s)");
    if (dropped->blocks) {
      etk_render_puts(s, ", ");
      put_uint(s, dropped->blocks);
      etk_render_puts(s, " block(s)");
    }
    if (dropped->allocators) {
      etk_render_puts(s, ", ");
      put_uint(s, dropped->allocators);
      etk_render_puts(s, " allocator(s)");
    }
    etk_render_puts(s, " were dropped (marker run ");
    put_uint(s, dropped->run);
    etk_render_puts(s,
                    "). Everything below describes only what was recorded "
                    "before the buffer filled; give the recorder a larger "
                    "buffer to see the rest.</div>\n");
  }
  etk_render_puts(s, "</section>\n");
}

static void section_summary(report_t *r) {
  etk_render_sink_t *s = r->s;
  etk_render_puts(
      s,
      "<section id=\"summary\"><h2>Operator types per block</h2>\n"
      "<p class=\"note\">Per run: each event contributes its average. "
      "Wrappers are not counted twice (OPERATOR_CALL, "
      "Method::execute, Program::load_method, DELEGATE_CALL around "
      "delegated per-op events); delegate overhead = those DELEGATE_CALLs "
      "minus the delegated events inside them (backend time); framework "
      "overhead = method time minus the operators' total and the delegate "
      "overhead.</p>\n");
  size_t nb = etk_inspector_block_count(r->insp);
  for (size_t b = 0; b < nb; b++) {
    etk_op_summary_block_t ob;
    etk_op_summary_block_get(r->sum, b, &ob);
    block_title(r, b, "h3");
    if (ob.row_count == 0) {
      etk_render_puts(s, "<p class=\"note\">no timed events</p>\n");
      continue;
    }
    double max_total = 0, max_avg = 0, ts, as;
    for (size_t k = 0; k < ob.row_count; k++) {
      etk_op_summary_row_t row;
      etk_op_summary_row_get(r->sum, ob.first_row + k, &row);
      if (fabs(row.total) > max_total) max_total = fabs(row.total);
      if (fabs(row.avg) > max_avg) max_avg = fabs(row.avg);
    }
    const char *tu = col_unit(r, max_total, &ts),
               *au = col_unit(r, max_avg, &as);
    etk_render_printf(
        s,
        "<table><thead><tr><th>operator type</th><th>count</th>"
        "<th>total (%s)</th><th>avg (%s)</th><th>%% of method</th>"
        "<th></th></tr></thead>\n<tbody>\n",
        tu, au);
    /* operator rows come first, largest total first: keep the top ones,
     * fold the rest into one line, always keep the two closing rows */
    size_t cap = r->o->max_summary_rows ? r->o->max_summary_rows : 50;
    size_t nops = 0;
    for (size_t k = 0; k < ob.row_count; k++) {
      etk_op_summary_row_t row;
      etk_op_summary_row_get(r->sum, ob.first_row + k, &row);
      nops += row.kind == ETK_OP_ROW_OPERATOR;
    }
    for (size_t k = 0; k < ob.row_count; k++) {
      etk_op_summary_row_t row;
      etk_op_summary_row_get(r->sum, ob.first_row + k, &row);
      if (row.kind == ETK_OP_ROW_OPERATOR && k >= cap) {
        if (k == cap) {
          double rest = 0;
          uint64_t calls = 0;
          for (size_t j = cap; j < nops; j++) {
            etk_op_summary_row_t o2;
            etk_op_summary_row_get(r->sum, ob.first_row + j, &o2);
            rest += o2.total;
            calls += o2.count;
          }
          etk_render_printf(s, "<tr><td><i>%zu more operator types</i></td>",
                            nops - cap);
          uint_cell(s, calls);
          dur_cell(s, rest, ts);
          etk_render_puts(s, "<td></td>");
          num_cell(s, ob.method_time == ob.method_time && ob.method_time != 0
                          ? rest / ob.method_time * 100.0
                          : (double)NAN);
          etk_render_puts(s, "<td></td></tr>\n");
        }
        continue;
      }
      if (row.kind == ETK_OP_ROW_OPERATOR)
        etk_render_printf(s,
                          "<tr><td><span class=\"sw\" style=\"background:%s\">"
                          "</span>",
                          op_color(row.op_type, row.op_type_len));
      else
        etk_render_puts(s, "<tr><td><i>");
      etk_html_text(s, row.op_type, row.op_type_len);
      etk_render_puts(s,
                      row.kind == ETK_OP_ROW_OPERATOR ? "</td>" : "</i></td>");
      if (row.kind != ETK_OP_ROW_FRAMEWORK_OVERHEAD)
        uint_cell(s, row.count);
      else
        etk_render_puts(s, "<td class=\"n\"></td>");
      dur_cell(s, row.total, ts);
      dur_cell(s, row.avg, as);
      dur_cell(s, row.percent, 1);
      if (row.percent == row.percent)
        bar_cell(s, row.percent);
      else
        etk_render_puts(s, "<td></td>");
      etk_render_puts(s, "</tr>\n");
    }
    etk_render_puts(s, "</tbody></table>\n");
  }
  etk_render_puts(s, "</section>\n");
}

/* The module tree of each block (the module view of `etkit inspect
 * --by-module`): total and self time per nn.Module, nested. */
static int section_modules(report_t *r) {
  etk_render_sink_t *s = r->s;
  etk_inspector_module_row_t *rows = NULL;
  size_t n = 0;
  int rc = etk_inspector_module_rows(r->insp, &rows, &n, NULL);
  if (rc != ETK_OK) return rc;
  etk_render_puts(s, "<section id=\"modules\"><h2>Modules</h2>\n");
  if (n == 0)
    etk_render_puts(s,
                    "<p class=\"note\">No operator is linked to an "
                    "nn.Module: give the ETRecord (--etrecord_path) for time "
                    "per module.</p>\n");
  else
    etk_render_puts(s,
                    "<p class=\"note\">Per run; total = the module and "
                    "everything below it, self = its own operators; the "
                    "same numbers as <code>etkit inspect --by-module</code>."
                    "</p>\n");
  for (size_t i = 0; i < n;) {
    size_t b = rows[i].block, end = i;
    double root = rows[i].total, ts;
    while (end < n && rows[end].block == b) end++;
    const char *tu = col_unit(r, root, &ts);
    block_title(r, b, "h3");
    etk_render_printf(s,
                      "<table><thead><tr><th>module</th><th>type</th>"
                      "<th>operators</th><th>total (%s)</th><th>self (%s)</th>"
                      "<th>%% of block</th><th></th></tr></thead>\n<tbody>\n",
                      tu, tu);
    for (; i < end; i++) {
      const etk_inspector_module_row_t *m = &rows[i];
      double pct = root > 0 ? m->total / root * 100.0 : (double)NAN;
      etk_render_printf(s, "<tr><td style=\"padding-left:%upx\">",
                        8 + 18 * m->depth);
      etk_html_texts(s, m->path ? m->path : "");
      etk_render_puts(s, "</td><td>");
      if (m->type) {
        const char *dot = strrchr(m->type, '.');
        etk_html_texts(s, dot ? dot + 1 : m->type);
      }
      etk_render_puts(s, "</td>");
      uint_cell(s, m->count);
      dur_cell(s, m->total, ts);
      dur_cell(s, m->self, ts);
      dur_cell(s, pct, 1);
      bar_cell(s, pct);
      etk_render_puts(s, "</tr>\n");
    }
    etk_render_puts(s, "</tbody></table>\n");
  }
  free(rows);
  etk_render_puts(s, "</section>\n");
  return ETK_OK;
}

/* Program outputs against reference outputs (compare_results). */
static void section_numerics(report_t *r) {
  etk_render_sink_t *s = r->s;
  const etk_report_options_t *o = r->o;
  if (!o->comparison_count) return;
  etk_render_puts(s,
                  "<section id=\"numerics\"><h2>Numerics</h2>\n"
                  "<p class=\"note\">Program outputs against ");
  etk_html_texts(s, o->comparison_reference ? o->comparison_reference
                                            : "the reference outputs");
  etk_render_puts(s,
                  " (upstream's compare_results: SNR in dB, higher is "
                  "better; MSE; cosine similarity, 1 is identical).</p>\n"
                  "<table><thead><tr><th>block</th><th>output</th>"
                  "<th>snr (dB)</th><th>mse</th><th>cosine</th></tr></thead>"
                  "\n<tbody>\n");
  for (size_t i = 0; i < o->comparison_count; i++) {
    const etk_report_comparison_t *c = &o->comparisons[i];
    etk_render_puts(s, "<tr>");
    uint_cell(s, c->block);
    uint_cell(s, c->output);
    num_cell(s, c->snr);
    num_cell(s, c->mse);
    num_cell(s, c->cosine);
    etk_render_puts(s, "</tr>\n");
  }
  etk_render_puts(s, "</tbody></table>\n</section>\n");
}

/* Ticks at 1, 2 or 5 x 10^k target units, about 8 across. */
static double nice_step(double span) {
  if (!(span > 0)) return 1;
  double raw = span / 8;
  double p = pow(10, floor(log10(raw)));
  double m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static int cmp_by_duration(const void *pa, const void *pb) {
  const ana_item_t *a = pa, *b = pb;
  uint64_t da = a->e - a->s, db = b->e - b->s;
  if (da != db) return da > db ? -1 : 1;
  return (a->ev > b->ev) - (a->ev < b->ev);
}

/* The legend of a block's timelines: operator types drawn, in order. */
#define LEGEND_MAX 24
typedef struct legend {
  const char *key[LEGEND_MAX];
  size_t len[LEGEND_MAX];
  size_t count, more;
} legend_t;

static void legend_add(legend_t *l, const char *name, size_t len) {
  const char *k;
  size_t n = op_key(name, len, &k);
  for (size_t i = 0; i < l->count; i++)
    if (l->len[i] == n && memcmp(l->key[i], k, n) == 0) return;
  if (l->count == LEGEND_MAX) {
    l->more++;
    return;
  }
  l->key[l->count] = k;
  l->len[l->count++] = n;
}

static void legend_print(report_t *r, const legend_t *l) {
  etk_render_puts(r->s, "<p class=\"legend note\">");
  for (size_t i = 0; i < l->count; i++) {
    etk_render_printf(r->s, "<span style=\"background:%s\"></span>",
                      op_color(l->key[i], l->len[i]));
    etk_html_text(r->s, l->key[i], l->len[i]);
  }
  if (l->more) etk_render_printf(r->s, " and %zu more types", l->more);
  etk_render_puts(r->s,
                  "<span style=\"background:#7a8799\"></span>method"
                  "<span style=\"background:#c3ced9\"></span>OPERATOR_CALL"
                  "<span style=\"background:#a3927f\"></span>DELEGATE_CALL"
                  "</p>\n");
}

/* The slices of run `run` of the dump in r->items[0..*n) (the longest
 * max_timeline_events ones, in start order) with their lanes in r->depth;
 * *total counts the timed slices, *no_dur those without an end. */
static int timeline_items(report_t *r, uint32_t run_index, size_t *n,
                          size_t *total, size_t *no_dur, uint32_t max_depth[2],
                          uint64_t *lo, uint64_t *hi) {
  etk_etdump_run_t run;
  etk_etdump_run_get(r->dump, run_index, &run);
  int rc = ana_run_items(r->dump, &run, &r->items, &r->cap, &r->nitems, lo, hi);
  if (rc != ETK_OK) return rc;
  size_t m = 0;
  *no_dur = 0;
  for (size_t k = 0; k < r->nitems; k++) {
    if (r->items[k].flags & ANA_ITEM_NO_DURATION)
      (*no_dur)++;
    else
      r->items[m++] = r->items[k];
  }
  size_t limit = r->o->max_timeline_events ? r->o->max_timeline_events : 2000;
  *total = m;
  if (m > limit) {
    qsort(r->items, m, sizeof *r->items, cmp_by_duration);
    m = limit;
  }
  qsort(r->items, m, sizeof *r->items, ana_item_compare);
  *n = m;
  *lo = UINT64_MAX;
  *hi = 0;
  for (size_t k = 0; k < m; k++) {
    if (r->items[k].s < *lo) *lo = r->items[k].s;
    if (r->items[k].e > *hi) *hi = r->items[k].e;
  }
  if (!ETK_VEC_RESERVE(r->depth, r->depth_cap, m)) return ETK_E_NO_MEMORY;
  /* lanes: nesting depth per track, with a small stack of open ends; a
   * slice that does not nest goes one lane below the one it overlaps */
  uint64_t stack[2][64];
  size_t sn[2] = {0, 0};
  max_depth[0] = max_depth[1] = 0;
  for (size_t k = 0; k < m; k++) {
    const ana_item_t *it = &r->items[k];
    int t = (it->flags & ANA_ITEM_DELEGATED) ? 1 : 0;
    while (sn[t] && stack[t][sn[t] - 1] <= it->s) sn[t]--;
    uint32_t d = (uint32_t)sn[t];
    if (sn[t] < 64)
      stack[t][sn[t]++] = it->e;
    else
      d = 63;
    r->depth[k] = d;
    if (d + 1 > max_depth[t]) max_depth[t] = d + 1;
  }
  return ETK_OK;
}

/* The time axis: ticks at 1, 2 or 5 x 10^k in a readable unit. */
static void timeline_axis(report_t *r, double span, double left, double scale,
                          double width, double height) {
  etk_render_sink_t *s = r->s;
  double span_units = span / r->factor, cs;
  double step = nice_step(span_units);
  const char *cu = col_unit(r, span_units, &cs);
  for (int k = 0; k <= 20; k++) {
    double v = step * k;
    if (v > span_units * 1.0001) break;
    double xx = left + v * r->factor * scale;
    etk_render_puts(s, "<line x1=\"");
    put_coord(s, xx);
    etk_render_puts(s, "\" y1=\"14\" x2=\"");
    put_coord(s, xx);
    etk_render_puts(s, "\" y2=\"");
    put_coord(s, height);
    /* a label too close to the right edge would be cut: line only */
    if (xx > width - 70) {
      etk_render_puts(s, "\" stroke=\"#e3e8ee\"/>\n");
      continue;
    }
    etk_render_puts(s, "\" stroke=\"#e3e8ee\"/><text x=\"");
    put_coord(s, xx + 2);
    etk_render_puts(s, "\" y=\"11\" fill=\"#5a6575\">");
    put_dur(s, v, cs);
    etk_render_printf(s, " %s</text>\n", cu);
  }
}

/* One slice with its tooltip and (when wide enough) its clipped label. */
static void timeline_slice(report_t *r, const ana_item_t *it, uint64_t lo,
                           double x0, double w, double y, double lane,
                           legend_t *legend) {
  etk_render_sink_t *s = r->s;
  etk_etdump_event_t e;
  etk_etdump_event_get(r->dump, it->ev, &e);
  etk_strbuf_clear(&r->tmp);
  if (e.name.data && e.name.len)
    etk_strbuf_append(&r->tmp, e.name.data, e.name.len);
  else if (e.delegate_debug_id_str.data && e.delegate_debug_id_str.len)
    etk_strbuf_append(&r->tmp, e.delegate_debug_id_str.data,
                      e.delegate_debug_id_str.len);
  else
    etk_strbuf_printf(&r->tmp, "%d", (int)e.delegate_debug_id_int);
  const char *label = r->tmp.data ? r->tmp.data : "";
  int is_op;
  const char *color = slice_color(&e, label, r->tmp.len, &is_op);
  if (is_op)
    legend_add(legend, e.name.data && e.name.len ? e.name.data : label,
               e.name.data && e.name.len ? e.name.len : r->tmp.len);
  etk_render_puts(s, "<g><title>");
  etk_html_text(s, label, r->tmp.len);
  etk_render_puts(s, " | start ");
  put_dur_auto(r, (double)(it->s - lo) / r->factor);
  etk_render_puts(s, " | duration ");
  put_dur_auto(r, (double)(it->e - it->s) / r->factor);
  if (e.instruction_id != -1)
    etk_render_printf(s, " | instruction %d", (int)e.instruction_id);
  if (it->flags & ANA_ITEM_WRAPPED) etk_render_puts(s, " | 32-bit tick wrap");
  etk_render_puts(s, "</title><rect x=\"");
  put_coord(s, x0);
  etk_render_puts(s, "\" y=\"");
  put_coord(s, y);
  etk_render_puts(s, "\" width=\"");
  put_coord(s, w);
  etk_render_printf(s,
                    "\" height=\"%.0f\" fill=\"%s\" stroke=\"#fff\" "
                    "stroke-width=\"0.5\"/>",
                    lane - 2, color);
  if (w > 40) {
    /* a label clipped to about the slice width (7 px per character) */
    size_t maxc = (size_t)(w / 7), len = r->tmp.len, cut = 0, chars = 0;
    while (cut < len && chars < maxc) {
      cut++;
      while (cut < len && ((unsigned char)label[cut] & 0xC0) == 0x80) cut++;
      chars++;
    }
    etk_render_puts(s, "<text x=\"");
    put_coord(s, x0 + 3);
    etk_render_puts(s, "\" y=\"");
    put_coord(s, y + lane - 6);
    etk_render_puts(s, "\" fill=\"#fff\">");
    etk_html_text(s, label, cut);
    etk_render_puts(s, "</text>");
  }
  etk_render_puts(s, "</g>\n");
}

/* The timeline of run `k` of block `b`. */
static int timeline_run(report_t *r, size_t b, size_t k, legend_t *legend) {
  etk_render_sink_t *s = r->s;
  etk_inspector_block_t blk;
  etk_inspector_block_get(r->insp, b, &blk);
  size_t n, total, no_dur;
  uint32_t max_depth[2];
  uint64_t lo, hi;
  int rc =
      timeline_items(r, blk.runs[k], &n, &total, &no_dur, max_depth, &lo, &hi);
  if (rc != ETK_OK) return rc;
  if (n == 0) {
    etk_render_printf(s, "<p class=\"note\">no timed events in run %zu</p>\n",
                      (size_t)blk.runs[k]);
    return ETK_OK;
  }
  const double width = 1200, left = 10, right = 10, lane = 18, axis = 22;
  double span = (double)(hi - lo);
  if (!(span > 0)) span = 1;
  double scale = (width - left - right) / span;
  double top_deleg = axis + lane * max_depth[0] + (max_depth[1] ? 10 : 0);
  double height = top_deleg + lane * max_depth[1] + 6;
  etk_render_printf(
      s,
      "<svg role=\"img\" xmlns=\"http://www.w3.org/2000/svg\" "
      "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
      width, height, width, height);
  timeline_axis(r, span, left, scale, width, height);
  for (size_t j = 0; j < n; j++) {
    const ana_item_t *it = &r->items[j];
    int deleg = (it->flags & ANA_ITEM_DELEGATED) != 0;
    double w = (double)(it->e - it->s) * scale;
    timeline_slice(
        r, it, lo, left + (double)(it->s - lo) * scale, w < 0.5 ? 0.5 : w,
        (deleg ? top_deleg : axis) + lane * r->depth[j], lane, legend);
  }
  etk_render_puts(s, "</svg>\n<p class=\"note\">run ");
  put_uint(s, blk.runs[k]);
  etk_render_puts(s, " (");
  put_dur_auto(r, span / r->factor);
  etk_render_printf(s, "); %zu slice%s drawn", n, n == 1 ? "" : "s");
  if (total > n) etk_render_printf(s, " (the %zu longest of %zu)", n, total);
  if (no_dur)
    etk_render_printf(s, "; %zu event%s without an end time not drawn", no_dur,
                      no_dur == 1 ? "" : "s");
  if (max_depth[1]) etk_render_puts(s, "; delegated events in the lower lanes");
  etk_render_puts(s, ".</p>\n");
  return r->tmp.failed ? ETK_E_NO_MEMORY : ETK_OK;
}

/* Every run of a block (at most TIMELINE_RUNS drawn), then the legend. */
#define TIMELINE_RUNS 16
static int timeline_block(report_t *r, size_t b) {
  etk_inspector_block_t blk;
  etk_inspector_block_get(r->insp, b, &blk);
  block_title(r, b, "h3");
  if (blk.run_count == 0) {
    etk_render_puts(r->s, "<p class=\"note\">no runs</p>\n");
    return ETK_OK;
  }
  legend_t legend;
  memset(&legend, 0, sizeof legend);
  size_t runs = blk.run_count < TIMELINE_RUNS ? blk.run_count : TIMELINE_RUNS;
  int rc = ETK_OK;
  for (size_t k = 0; k < runs && rc == ETK_OK; k++)
    rc = timeline_run(r, b, k, &legend);
  if (blk.run_count > runs)
    etk_render_printf(r->s,
                      "<p class=\"note\">%zu more runs not drawn (the events "
                      "table has the statistics of all %zu).</p>\n",
                      blk.run_count - runs, blk.run_count);
  legend_print(r, &legend);
  return rc;
}

static int section_timeline(report_t *r) {
  etk_render_puts(r->s,
                  "<section id=\"timeline\"><h2>Timeline (every run)</h2>\n"
                  "<p class=\"note\">Nesting goes downwards; colours are "
                  "operator types (legend under each block); hover a slice "
                  "for details.</p>\n");
  size_t nb = etk_inspector_block_count(r->insp);
  int rc = ETK_OK;
  for (size_t b = 0; b < nb && rc == ETK_OK; b++) rc = timeline_block(r, b);
  etk_render_puts(r->s, "</section>\n");
  return rc;
}

/* Events table as a frame. */
typedef struct events_view {
  report_t *r;
  size_t *rows;
  double scale[4]; /* column units per target unit: avg, p50, min, max */
  etk_stats_t st;
  size_t st_row;
  int st_ok;
} events_view_t;

static int events_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                       etk_strbuf_t *scratch) {
  events_view_t *v = ctx;
  size_t e = v->rows[row];
  etk_inspector_event_t ev;
  etk_inspector_event_get(v->r->insp, e, &ev);
  if (v->st_row != row) {
    v->st_ok = etk_inspector_event_stats(v->r->insp, e, &v->st) == ETK_OK;
    v->st_row = row;
  }
  double stat[4] = {v->st.avg, v->st.p50, v->st.min, v->st.max};
  switch (col) {
    case 0:
      etk_cell_set_int(out, (int64_t)ev.block);
      break;
    case 1:
      etk_strbuf_append(scratch, ev.name, ev.name_len);
      etk_cell_set_text(out, scratch->data ? scratch->data : "", scratch->len);
      break;
    case 2:
      if (ev.instruction_id == -1)
        etk_cell_set_none(out);
      else
        etk_cell_set_int(out, ev.instruction_id);
      break;
    case 3: {
      etk_inspector_event_link_t l;
      etk_inspector_event_link(v->r->insp, e, &l);
      if (ev.is_delegated_op) {
        etk_strbuf_appends(scratch, l.delegate_backend_name
                                        ? l.delegate_backend_name
                                        : "delegated");
        etk_cell_set_text(out, scratch->data, scratch->len);
      } else {
        etk_cell_set_none(out);
      }
      break;
    }
    case 4: {
      etk_inspector_event_link_t l;
      etk_inspector_event_link(v->r->insp, e, &l);
      for (size_t k = 0; k < l.op_type_count && k < 8; k++) {
        if (k) etk_strbuf_appends(scratch, ", ");
        etk_strbuf_appends(scratch, l.op_types[k] ? l.op_types[k] : "");
      }
      if (l.op_type_count > 8)
        etk_strbuf_printf(scratch, " ... (%zu)", l.op_type_count);
      if (scratch->len)
        etk_cell_set_text(out, scratch->data, scratch->len);
      else
        etk_cell_set_none(out);
      break;
    }
    case 5: {
      static const char *const roles[] = {
          "operator",      "wrapper (OPERATOR_CALL)", "method",
          "method (load)", "wrapper (DELEGATE_CALL)", "no timings"};
      int role = etk_op_summary_event_role(v->r->sum, e);
      const char *t = (unsigned)role < 6 ? roles[role] : "";
      etk_cell_set_text(out, t, strlen(t));
      break;
    }
    default:
      if (!v->st_ok)
        etk_cell_set_none(out);
      else if (col == 6)
        etk_cell_set_int(out, (int64_t)v->st.count);
      else
        etk_cell_set_float(
            out, etk_duration_round(stat[col - 7] * v->scale[col - 7]));
      break;
  }
  return scratch->failed ? ETK_E_NO_MEMORY : ETK_OK;
}

static int section_events(report_t *r) {
  etk_render_sink_t *s = r->s;
  size_t total = etk_inspector_event_count(r->insp);
  size_t cap = r->o->max_event_rows ? r->o->max_event_rows : 5000;
  size_t n = total < cap ? total : cap;
  etk_render_puts(s, "<section id=\"events\"><h2>Events</h2>\n");
  if (total == 0) {
    etk_render_puts(s, "<p class=\"note\">no events</p></section>\n");
    return ETK_OK;
  }
  size_t *rows = malloc(n * sizeof *rows);
  if (!rows) return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < n; i++) rows[i] = i;
  events_view_t v;
  memset(&v, 0, sizeof v);
  v.r = r;
  v.rows = rows;
  v.st_row = SIZE_MAX;
  /* one readable unit for the four statistics (one quantity), from their
   * largest value */
  double max = 0;
  for (size_t i = 0; i < n; i++) {
    etk_stats_t st;
    if (etk_inspector_event_stats(r->insp, rows[i], &st) != ETK_OK) continue;
    double x[4] = {st.avg, st.p50, st.min, st.max};
    for (int c = 0; c < 4; c++)
      if (fabs(x[c]) > max) max = fabs(x[c]);
  }
  char h[4][40];
  const char *headers[11] = {"block",    "event",    "instruction",
                             "delegate", "op types", "counted as",
                             "runs"};
  static const char *const stat_names[4] = {"avg", "p50", "min", "max"};
  for (int i = 0; i < 4; i++) {
    const char *u = col_unit(r, max, &v.scale[i]);
    snprintf(h[i], sizeof h[i], "%s (%s)", stat_names[i], u);
    headers[7 + i] = h[i];
  }
  etk_frame_t f = {n, 11, headers, events_cell, &v, 0};
  etk_render_puts(s, "<div class=\"scroll\">");
  int rc = etk_render_html_table(&f, "events", s, NULL);
  etk_render_puts(s, "</div>\n");
  free(rows);
  if (total > n)
    etk_render_printf(s,
                      "<p class=\"note\">first %zu of %zu events shown "
                      "(raise the cap with --max-rows).</p>\n",
                      n, total);
  etk_render_puts(s, "</section>\n");
  return rc;
}

/* The memory map of the program's plan (etkit/memory_plan.h). */
static int section_memory_plan(report_t *r) {
  if (!r->o->memory_plan) return ETK_OK;
  etk_render_puts(r->s, "<section id=\"memory-plan\"><h2>Memory plan</h2>\n");
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_memory_plan_render_html_body(r->o->memory_plan, r->s, &err);
  etk_render_puts(r->s, "</section>\n");
  return rc;
}

static void section_memory(report_t *r) {
  etk_render_sink_t *s = r->s;
  etk_render_puts(s, "<section id=\"memory\"><h2>Memory</h2>\n");
  size_t na = etk_memory_report_allocator_count(r->mem);
  if (na == 0) {
    etk_render_puts(s,
                    "<p class=\"note\">No allocation events in this ETDump "
                    "(the runtime logs them only when allocators are "
                    "tracked).</p></section>\n");
    return;
  }
  etk_render_puts(
      s,
      "<p class=\"note\">Allocation events carry no address, free or "
      "time: bytes are <b>cumulative</b> within a run, so a run's "
      "total is its high-water mark as far as the dump can tell.</p>\n"
      "<table><thead><tr><th>block</th><th>allocator</th><th>id</th>"
      "<th>runs</th><th>allocations</th><th>total bytes</th>"
      "<th>peak bytes / run</th><th>largest</th><th></th></tr></thead>"
      "\n<tbody>\n");
  uint64_t max_peak = 1;
  for (size_t i = 0; i < na; i++) {
    etk_memory_allocator_t a;
    etk_memory_report_allocator_get(r->mem, i, &a);
    if (a.peak_bytes > max_peak) max_peak = a.peak_bytes;
  }
  for (size_t i = 0; i < na; i++) {
    etk_memory_allocator_t a;
    etk_memory_report_allocator_get(r->mem, i, &a);
    etk_render_puts(s, "<tr>");
    text_cell(s, a.block_name);
    if (a.name)
      text_cell(s, a.name);
    else
      etk_render_puts(s, "<td><i>unknown</i></td>");
    etk_render_printf(s, "<td class=\"n\">%d</td><td class=\"n\">",
                      (int)a.allocator_id);
    put_uint(s, a.runs_with_allocations);
    etk_render_puts(s, " / ");
    put_uint(s, a.runs);
    etk_render_puts(s, "</td>");
    uint_cell(s, a.count);
    uint_cell(s, a.total_bytes);
    uint_cell(s, a.peak_bytes);
    uint_cell(s, a.largest_bytes);
    bar_cell(s, 100.0 * (double)a.peak_bytes / (double)max_peak);
    etk_render_puts(s, "</tr>\n");
  }
  etk_render_puts(s, "</tbody></table>\n");
  size_t nt = etk_memory_report_largest_count(r->mem);
  if (nt) {
    etk_render_puts(
        s,
        "<h3>Largest allocations</h3>\n<table><thead><tr><th>bytes</th>"
        "<th>block</th><th>run</th><th>allocator</th>"
        "<th>allocator bytes before</th><th>next event to end</th>"
        "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < nt; i++) {
      etk_memory_allocation_t t;
      etk_memory_allocator_t a;
      etk_memory_report_largest_get(r->mem, i, &t);
      etk_memory_report_allocator_get(r->mem, t.allocator, &a);
      etk_render_puts(s, "<tr>");
      uint_cell(s, t.bytes);
      text_cell(s, a.block_name);
      uint_cell(s, t.run);
      if (a.name)
        text_cell(s, a.name);
      else
        etk_render_printf(s, "<td><i>#%d</i></td>", (int)a.allocator_id);
      uint_cell(s, t.offset_in_run);
      text_cell(s, t.next_event);
      etk_render_puts(s, "</tr>\n");
    }
    etk_render_puts(s, "</tbody></table>\n");
  }
  etk_render_puts(s, "</section>\n");
}

/* ------------------------------------------------------- entry point */

/* The nav bar: a link to each section the page has, in the page's order
 * (etk_report_write_html writes them in this order). */
static void write_nav(report_t *r) {
  static const struct {
    const char *id, *label;
  } sections[] = {{"file", "file"},
                  {"summary", "operator types"},
                  {"graph", "graph"},
                  {"numerics", "numerics"},
                  {"modules", "modules"},
                  {"timeline", "timeline"},
                  {"events", "events"},
                  {"memory", "memory"},
                  {"memory-plan", "memory plan"}};
  etk_render_puts(r->s, "<nav>");
  for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
    const char *id = sections[i].id;
    if (strcmp(id, "numerics") == 0 && !r->o->comparison_count) continue;
    if (strcmp(id, "memory-plan") == 0 && !r->o->memory_plan) continue;
    if (strcmp(id, "graph") == 0 && !r->o->graph_section) continue;
    etk_render_printf(r->s, "<a href=\"#%s\">%s</a>", id, sections[i].label);
  }
  etk_render_puts(r->s, "</nav>\n<main>\n");
}

int etk_report_write_html(etk_inspector_t *insp,
                          const etk_report_options_t *options,
                          etk_render_sink_t *sink, etk_error_t *err) {
  etk_report_options_t defaults;
  etk_report_options_init(&defaults);
  const etk_report_options_t *o = options ? options : &defaults;
  if (!insp || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_report_write_html: NULL argument");
  report_t r;
  memset(&r, 0, sizeof r);
  r.insp = insp;
  r.dump = etk_inspector_etdump(insp);
  r.o = o;
  r.s = sink;
  r.unit = etk_time_scale_name(etk_inspector_target_time_scale(insp));
  r.factor = etk_inspector_scale_factor(insp);
  if (!(r.factor > 0)) r.factor = 1;
  r.sec_per_unit = etk_seconds_per_unit(r.unit);
  etk_strbuf_init(&r.tmp);
  int rc = etk_op_summary_build(insp, &r.sum, err);
  if (rc == ETK_OK)
    rc = etk_memory_report_build(insp, o->top_allocations, &r.mem, err);
  if (rc == ETK_OK) {
    const char *title = o->title ? o->title : "etkit report";
    etk_dropped_marker_t dropped;
    etk_dropped_marker_find(r.dump, &dropped);
    etk_render_puts(sink,
                    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                    "<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width\">\n"
                    "<title>");
    etk_html_texts(sink, title);
    etk_render_puts(sink, "</title>\n<style>");
    etk_render_puts(sink, css);
    if (o->memory_plan) etk_render_puts(sink, etk_memory_plan_html_style());
    etk_render_puts(sink, "</style>\n</head>\n<body>\n<header><h1>");
    etk_html_texts(sink, title);
    etk_render_puts(sink, "</h1><p>");
    if (o->etdump_path)
      etk_html_texts(sink, o->etdump_path);
    else
      etk_render_puts(sink, "ETDump");
    etk_render_puts(sink, "</p></header>\n");
    write_nav(&r);
    section_facts(&r, &dropped);
    section_summary(&r);
    ana_report_calibration(insp, sink, r.unit);
    if (o->graph_section) {
      etk_render_puts(sink, "<section id=\"graph\">\n");
      rc = o->graph_section(o->graph_section_ctx, sink, err);
      etk_render_puts(sink, "</section>\n");
    }
    if (rc == ETK_OK) section_numerics(&r);
    if (rc == ETK_OK) rc = section_modules(&r);
    if (rc == ETK_OK) rc = section_timeline(&r);
    if (rc == ETK_OK) rc = section_events(&r);
    if (rc == ETK_OK) section_memory(&r);
    if (rc == ETK_OK) rc = section_memory_plan(&r);
    if (rc == ETK_OK) {
      etk_render_puts(sink, "</main>\n<footer>");
      if (o->generator) {
        etk_render_puts(sink, "generated by ");
        etk_html_texts(sink, o->generator);
      }
      etk_render_puts(sink, "</footer>\n</body>\n</html>\n");
    }
  }
  if (rc == ETK_OK && r.tmp.failed) rc = ETK_E_NO_MEMORY;
  if (rc == ETK_OK && sink->status != ETK_OK) rc = sink->status;
  etk_op_summary_free(r.sum);
  etk_memory_report_free(r.mem);
  free(r.items);
  free(r.depth);
  etk_strbuf_free(&r.tmp);
  if (rc != ETK_OK) {
    if (err && err->code != ETK_OK) return err->code;
    return etk_error_set(err, rc, ETK_NO_OFFSET, "report: %s",
                         etk_strerror(rc));
  }
  return ETK_OK;
}
