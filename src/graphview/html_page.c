/*
 * html_page.c - writes a laid-out graph view as HTML: a header, a tool
 * bar (search, fit, open/close all, the legend) and one inline SVG.
 *
 * SVG structure (what the script and the tests rely on):
 *   <g class="gv-vp">                     the pan/zoom viewport
 *     <g class="gg [part] [closed]" data-group="label" data-cw="closed
 *        width" transform=...>     (sizes: the layout's, every group open;
 *                                    the script shrinks closed ones)
 *       <rect class="gb"/> box   <rect class="gh"/> header (click)
 *       <text class="gl"/> label <g class="gi"> the inside (a unit) </g>
 *       <rect class="gc"/><text class="gct"/> the cover of a closed group
 *   A large graph's closed top-level groups carry data-lazy="k" instead of
 *   their inside, which follows the SVG in <template data-lazy="k">.
 *     <path class="ge"/>                  edges of this unit
 *     <g class="gn" data-node="NAME" [data-value="V"] data-op ...>
 * Each node is written exactly once (in the SVG or in a template).  A node
 * without a value is drawn hatched ("no event") and has no data-value.  Every
 * text from the description goes through etk_html_text(), in attributes and
 * content.
 *
 * Colours: the value is scaled between the smallest and largest value of
 * the graph (sequential, light to dark red; dark = the worse end, so an
 * SNR, where higher is better, runs the other way), or with `against`
 * between -max|change| and +max|change| of the significant changes
 * (diverging, blue = faster/smaller, red = larger; a change that is not
 * significant is drawn neutral); the legend shows the same gradient with
 * the numbers at its ends and says which end is better.  When every value
 * is the same there is no scale: one neutral colour, "all equal" in the
 * legend.  Graph inputs and outputs are drawn plain, never "no event".
 * A group's value (its own, or the options' aggregate of its inside) is
 * written on its closed cover, in its colour.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/status.h"
#include "graph_view_internal.h"

#define STOPS 5
static const unsigned char seq_stops[STOPS][3] = {{255, 245, 214},
                                                  {253, 212, 158},
                                                  {252, 141, 89},
                                                  {215, 48, 31},
                                                  {127, 0, 0}};
static const unsigned char div_stops[STOPS][3] = {{33, 102, 172},
                                                  {146, 197, 222},
                                                  {247, 247, 247},
                                                  {244, 165, 130},
                                                  {178, 24, 43}};

typedef struct page {
  const etk_graph_view_t *g;
  const etk_graph_view_options_t *o;
  const gv_layout_t *l;
  etk_render_sink_t *sink;
  double lo, hi; /* colour scale ends (finite values) */
  size_t valued, unvalued;
  size_t close_above;
  double *group_value; /* per group: its value, NaN when none */
} page_t;

#define NEUTRAL "#c9d6e3" /* every value equal: no scale */
#define FAINT "#f7f7f7"   /* `against`: a change that is not significant */

static bool all_equal(const page_t *p) {
  return p->valued && !p->o->against && !(p->hi > p->lo);
}

static void colour_at(const page_t *p, double v, char out[8], bool *dark) {
  *dark = false;
  if (!(p->hi > p->lo) && !p->o->against) {
    snprintf(out, 8, "%s", NEUTRAL);
    return;
  }
  double t = p->hi > p->lo                  ? (v - p->lo) / (p->hi - p->lo)
             : p->o->against && isfinite(v) ? 0.5
                                            : 1.0;
  if (isinf(v)) t = v > 0 ? 1.0 : 0.0;
  if (!(t >= 0)) t = 0;
  if (t > 1) t = 1;
  if (p->o->better > 0 && !p->o->against) t = 1 - t; /* high = good = light */
  const unsigned char(*stops)[3] = p->o->against ? div_stops : seq_stops;
  double x = t * (STOPS - 1);
  int i = (int)x;
  if (i >= STOPS - 1) i = STOPS - 2;
  double f = x - i;
  int rgb[3];
  for (int k = 0; k < 3; k++)
    rgb[k] = (int)lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]));
  snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 255, rgb[1] & 255, rgb[2] & 255);
  *dark = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] < 120;
}

/* The value as shown: "12.5 ms", or a change "+12.3 %". */
static void format_value(const page_t *p, double v, bool change, char *out,
                         size_t size) {
  const char *u = p->o->unit ? p->o->unit : "";
  if (change)
    snprintf(out, size, "%+.3g %%", v * 100.0);
  else if (isinf(v))
    snprintf(out, size, "%s\xE2\x88\x9E%s%s", v < 0 ? "-" : "", u[0] ? " " : "",
             u);
  else
    snprintf(out, size, "%.3g%s%s", v, u[0] ? " " : "", u);
}

static void attr(page_t *p, const char *name, const char *value) {
  if (!value || !value[0]) return;
  etk_render_printf(p->sink, " %s=\"", name);
  etk_html_texts(p->sink, value);
  etk_render_putc(p->sink, '"');
}

static void write_node(page_t *p, size_t i) {
  const etk_graph_view_node_t *n = &p->g->nodes[i];
  const gv_box_t *b = &p->l->node_box[i];
  bool overlay = p->o->value_name != NULL;
  bool valued = overlay && n->has_value && !isnan(n->value);
  bool faint = valued && p->o->against && n->faint;
  etk_render_puts(p->sink, valued || !overlay || n->io ? "<g class=\"gn"
                                                       : "<g class=\"gn nv");
  etk_render_puts(p->sink, faint ? " ns\"" : n->io ? " io\"" : "\"");
  attr(p, "data-node", n->name);
  char buf[64];
  if (valued) {
    if (isinf(n->value))
      snprintf(buf, sizeof buf, "%sInfinity", n->value < 0 ? "-" : "");
    else
      snprintf(buf, sizeof buf, "%.12g", n->value);
    attr(p, "data-value", buf);
    format_value(p, n->value, p->o->against, buf, sizeof buf);
    attr(p, "data-fmt", buf);
  }
  attr(p, "data-op", n->op);
  attr(p, "data-module", n->module);
  attr(p, "data-src", n->source);
  attr(p, "data-shape", n->shape);
  attr(p, "data-fig", n->figures);
  attr(p, "data-args", n->args);
  if (p->o->against) {
    if (n->has_a) format_value(p, n->a, false, buf, sizeof buf);
    attr(p, "data-fa", n->has_a ? buf : NULL);
    if (n->has_b) format_value(p, n->b, false, buf, sizeof buf);
    attr(p, "data-fb", n->has_b ? buf : NULL);
  }
  etk_render_printf(p->sink, " transform=\"translate(%.1f,%.1f)\">", b->x,
                    b->y);
  char fill[8] = "#eef2f7";
  bool dark = false;
  if (valued && !faint) colour_at(p, n->value, fill, &dark);
  if (faint) snprintf(fill, sizeof fill, "%s", FAINT);
  etk_render_printf(
      p->sink, "<rect width=\"%.1f\" height=\"%.1f\" rx=\"4\" fill=\"%s\"/>",
      b->w, b->h, overlay && !valued && !n->io ? "url(#gv-hatch)" : fill);
  char text[4 * GV_LABEL_CHARS + 8];
  gv_node_text(n, text, sizeof text);
  const char *colour = dark ? " fill=\"#fff\"" : "";
  etk_render_printf(p->sink, "<text x=\"8\" y=\"15\"%s>", colour);
  etk_html_texts(p->sink, text);
  etk_render_printf(p->sink, "</text><text class=\"nm\" x=\"8\" y=\"28\"%s>",
                    colour);
  etk_graph_view_node_t named = {.label = n->name};
  gv_node_text(&named, text, sizeof text);
  etk_html_texts(p->sink, text);
  etk_render_puts(p->sink, "</text></g>\n");
}

static void write_path(page_t *p, const gv_edge_path_t *e) {
  if (e->count < 5) return;
  const double *pt = &p->l->points[2 * e->first];
  etk_render_printf(p->sink, "<path class=\"ge\" d=\"M%.1f %.1f", pt[0], pt[1]);
  for (size_t i = 1; i + 1 < e->count; i++)
    etk_render_printf(p->sink, "%s%.1f %.1f", i % 3 == 1 ? "C" : " ", pt[2 * i],
                      pt[2 * i + 1]);
  size_t last = e->count - 1;
  etk_render_printf(p->sink, "L%.1f %.1f\"/>\n", pt[2 * last],
                    pt[2 * last + 1]);
}

static void write_unit(page_t *p, size_t u);

static bool starts_closed(const page_t *p, size_t gi) {
  return p->g->node_count > p->close_above &&
         (p->g->groups[gi].parent == ETK_GRAPH_VIEW_NONE ||
          p->l->node_total[gi + 1] > p->close_above);
}

/* A closed top-level group of a large graph: its inside is written later,
 * in a <template> (see write_lazy), and only built when opened. */
static bool is_lazy(const page_t *p, size_t gi) {
  return starts_closed(p, gi) && p->g->groups[gi].parent == ETK_GRAPH_VIEW_NONE;
}

static void write_inside(page_t *p, size_t gi) {
  etk_render_printf(p->sink,
                    "<g class=\"gi\" transform=\"translate(%.1f,%.1f)\">\n",
                    GV_PAD, GV_HEADER);
  write_unit(p, gi + 1);
  etk_render_puts(p->sink, "</g>");
}

static void write_group(page_t *p, size_t gi) {
  const etk_graph_view_group_t *gr = &p->g->groups[gi];
  const gv_box_t *b = &p->l->group_box[gi];
  size_t total = p->l->node_total[gi + 1];
  etk_render_printf(p->sink, "<g class=\"gg%s%s\"",
                    gr->kind == ETK_GRAPH_VIEW_PARTITION ? " part" : "",
                    starts_closed(p, gi) ? " closed" : "");
  attr(p, "data-group", gr->label ? gr->label : "");
  if (!isnan(p->group_value[gi])) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.12g", p->group_value[gi]);
    attr(p, "data-gvalue", buf);
  }
  etk_render_printf(p->sink, " data-cw=\"%.1f\"", p->l->closed_w[gi]);
  if (is_lazy(p, gi)) etk_render_printf(p->sink, " data-lazy=\"%zu\"", gi);
  etk_render_printf(p->sink, " transform=\"translate(%.1f,%.1f)\"><title>",
                    b->x, b->y);
  etk_html_texts(p->sink, gr->detail ? gr->detail : gr->label);
  etk_render_printf(
      p->sink,
      "</title><rect class=\"gb\" width=\"%.1f\" height=\"%.1f\" "
      "rx=\"6\"/><rect class=\"gh\" width=\"%.1f\" height=\"%.1f\" "
      "rx=\"6\"/><text class=\"gl\" x=\"8\" y=\"15\">",
      b->w, b->h, b->w, GV_HEADER);
  if (gr->kind == ETK_GRAPH_VIEW_PARTITION)
    etk_render_puts(p->sink, "delegated to ");
  etk_html_texts(p->sink, gr->label);
  etk_render_printf(p->sink, " (%zu)</text>", total);
  if (!is_lazy(p, gi)) write_inside(p, gi);
  double gv = p->group_value[gi];
  char fill[8] = "", value[64] = "";
  bool dark = false;
  if (!isnan(gv)) {
    colour_at(p, gv, fill, &dark);
    format_value(p, gv, p->o->against, value, sizeof value);
  }
  etk_render_printf(p->sink,
                    "<rect class=\"gc\" y=\"%.1f\" width=\"%.1f\" "
                    "height=\"%.1f\" rx=\"4\"",
                    GV_HEADER, b->w, b->h - GV_HEADER);
  if (fill[0]) etk_render_printf(p->sink, " style=\"fill:%s\"", fill);
  etk_render_printf(p->sink, "/><text class=\"gct\" x=\"10\" y=\"%.1f\"%s>",
                    GV_HEADER + 18.0, dark ? " style=\"fill:#fff\"" : "");
  etk_render_printf(p->sink, "%zu node%s", total, total == 1 ? "" : "s");
  if (value[0]) {
    etk_render_puts(p->sink, " \xC2\xB7 ");
    etk_html_texts(p->sink, value);
  }
  etk_render_puts(p->sink, " \xE2\x96\xB8</text></g>\n");
}

/* The insides of lazy groups, after the SVG: one inert <template> each
 * (wrapped in <svg> so that its elements are SVG ones).  The browser
 * parses them without styling or laying them out, which is most of the
 * cost of a large page; the script moves one into its group when the
 * group opens or a search finds a node in it. */
static void write_lazy(page_t *p) {
  const gv_layout_t *l = p->l;
  for (size_t k = l->group_start[0]; k < l->group_start[1]; k++) {
    size_t gi = l->group_ids[k];
    if (!is_lazy(p, gi)) continue;
    etk_render_printf(p->sink,
                      "<template class=\"gv-lazy\" data-lazy=\"%zu\"><svg "
                      "xmlns=\"http://www.w3.org/2000/svg\">",
                      gi);
    write_inside(p, gi);
    etk_render_puts(p->sink, "</svg></template>\n");
  }
}

static void write_unit(page_t *p, size_t u) {
  const gv_layout_t *l = p->l;
  for (size_t k = l->group_start[u]; k < l->group_start[u + 1]; k++)
    write_group(p, l->group_ids[k]);
  for (size_t k = l->path_start[u]; k < l->path_start[u + 1]; k++)
    write_path(p, &l->paths[l->path_ids[k]]);
  for (size_t k = l->node_start[u]; k < l->node_start[u + 1]; k++)
    write_node(p, l->node_ids[k]);
}

static void write_gradient(page_t *p) {
  const unsigned char(*stops)[3] = p->o->against ? div_stops : seq_stops;
  etk_render_puts(p->sink,
                  "<span class=\"gv-grad\" style=\"background:"
                  "linear-gradient(to right");
  bool reversed = p->o->better > 0 && !p->o->against;
  for (int k = 0; k < STOPS; k++) {
    int i = reversed ? STOPS - 1 - k : k;
    etk_render_printf(p->sink, ",#%02x%02x%02x", stops[i][0], stops[i][1],
                      stops[i][2]);
  }
  etk_render_puts(p->sink, ")\"></span>");
}

static void write_legend(page_t *p) {
  etk_render_puts(p->sink, "<span class=\"gv-legend\">");
  if (p->o->value_name) {
    etk_render_puts(p->sink, "<b>");
    if (p->o->against) etk_render_puts(p->sink, "change of ");
    etk_html_texts(p->sink, p->o->value_name);
    etk_render_puts(p->sink, "</b>");
    if (p->o->unit && p->o->unit[0] && !p->o->against) {
      etk_render_puts(p->sink, " <span class=\"gv-unit\">(");
      etk_html_texts(p->sink, p->o->unit);
      etk_render_puts(p->sink, ")</span>");
    }
    char lo[64] = "", hi[64] = "";
    if (p->valued && (!p->o->against || p->hi > 0)) {
      format_value(p, p->lo, p->o->against, lo, sizeof lo);
      format_value(p, p->hi, p->o->against, hi, sizeof hi);
    }
    if (all_equal(p)) {
      etk_render_printf(p->sink,
                        "<span class=\"gv-eq\"><span class=\"gv-sw\" "
                        "style=\"background:%s\"></span> all equal: ",
                        NEUTRAL);
      etk_html_texts(p->sink, lo);
      etk_render_puts(p->sink, "</span>");
    } else {
      etk_render_puts(p->sink, "<span class=\"gv-lo\">");
      etk_html_texts(p->sink, lo);
      etk_render_puts(p->sink, "</span>");
      write_gradient(p);
      etk_render_puts(p->sink, "<span class=\"gv-hi\">");
      etk_html_texts(p->sink, hi);
      etk_render_puts(p->sink, "</span>");
    }
    if (p->o->better)
      etk_render_printf(p->sink,
                        "<span class=\"gv-better\">%s is better</span>",
                        p->o->better > 0 ? "higher" : "lower");
    if (p->o->legend_note) {
      etk_render_puts(p->sink, "<span class=\"gv-rule\">");
      etk_html_texts(p->sink, p->o->legend_note);
      etk_render_puts(p->sink, "</span>");
    }
    etk_render_puts(p->sink, "<span><span class=\"gv-sw noev\"></span> ");
    etk_html_texts(p->sink,
                   p->o->missing_label ? p->o->missing_label : "no event");
    etk_render_printf(p->sink, " (%zu)</span>", p->unvalued);
  }
  bool parts = false;
  for (size_t i = 0; i < p->g->group_count; i++)
    if (p->g->groups[i].kind == ETK_GRAPH_VIEW_PARTITION) parts = true;
  if (parts)
    etk_render_puts(p->sink,
                    "<span><span class=\"gv-sw part\"></span> "
                    "delegated partition</span>");
  etk_render_puts(p->sink, "</span>");
}

static void write_section(page_t *p) {
  const etk_graph_view_options_t *o = p->o;
  etk_render_puts(p->sink, "<section class=\"gv\"");
  attr(p, "data-vname", o->value_name);
  attr(p, "data-unit", o->against ? NULL : o->unit);
  attr(p, "data-missing", o->missing_label ? o->missing_label : "no event");
  attr(p, "data-la", o->label_a ? o->label_a : "A");
  attr(p, "data-lb", o->label_b ? o->label_b : "B");
  etk_render_printf(p->sink, " data-nodes=\"%zu\"><h2>", p->g->node_count);
  etk_html_texts(p->sink, o->title ? o->title : "etkit graph");
  etk_render_puts(p->sink, "</h2>");
  if (o->subtitle) {
    etk_render_puts(p->sink, "<p class=\"gv-sub\">");
    etk_html_texts(p->sink, o->subtitle);
    etk_render_puts(p->sink, "</p>");
  }
  if (o->note) {
    etk_render_puts(p->sink, "<p class=\"gv-note\">");
    etk_html_texts(p->sink, o->note);
    etk_render_puts(p->sink, "</p>");
  }
  if (p->l->plain_units)
    etk_render_printf(p->sink,
                      "<p class=\"gv-note gv-plain\">%zu box%s of more than "
                      "%u items (the largest: %zu) laid out in plain rows "
                      "(each item ranked by its longest path from an input) "
                      "instead of by Graphviz, which is too slow and too "
                      "deeply recursive for so many; a graph exported with "
                      "its module hierarchy is drawn in nested boxes.</p>",
                      p->l->plain_units, p->l->plain_units == 1 ? "" : "es",
                      (unsigned)GV_DOT_MAX_ITEMS, p->l->plain_items);
  etk_render_puts(p->sink,
                  "<div class=\"gv-bar\"><input class=\"gv-q\" type=\"search\" "
                  "placeholder=\"search node name or op type\">"
                  "<span class=\"gv-count\"></span>"
                  "<button data-act=\"fit\">fit</button>"
                  "<button data-act=\"open\">open all</button>"
                  "<button data-act=\"close\">close all</button>");
  write_legend(p);
  double w = p->l->unit_w[0], h = p->l->unit_h[0];
  etk_render_printf(p->sink,
                    "</div><div class=\"gv-stage\"><svg class=\"gv-svg\" "
                    "xmlns=\"http://www.w3.org/2000/svg\" data-w=\"%.1f\" "
                    "data-h=\"%.1f\"><defs><marker id=\"gv-arrow\" "
                    "viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
                    "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
                    "<path d=\"M0 0L10 5L0 10z\" fill=\"#8c959f\"/></marker>"
                    "<pattern id=\"gv-hatch\" width=\"6\" height=\"6\" "
                    "patternUnits=\"userSpaceOnUse\" "
                    "patternTransform=\"rotate(45)\"><rect width=\"6\" "
                    "height=\"6\" fill=\"#eeeeee\"/><rect width=\"2\" "
                    "height=\"6\" fill=\"#bbbbbb\"/></pattern></defs>"
                    "<g class=\"gv-vp\">\n",
                    w > 1 ? w : 1, h > 1 ? h : 1);
  write_unit(p, 0);
  etk_render_puts(p->sink, "</g></svg><div class=\"gv-tip\"></div></div>");
  write_lazy(p);
  etk_render_puts(p->sink, "</section>\n");
}

static double combine(etk_graph_view_aggregate_t how, double acc, double v) {
  if (isnan(v)) return acc;
  if (isnan(acc)) return v;
  switch (how) {
    case ETK_GRAPH_VIEW_AGG_SUM:
      return acc + v;
    case ETK_GRAPH_VIEW_AGG_MAX:
      return v > acc ? v : acc;
    case ETK_GRAPH_VIEW_AGG_MIN:
      return v < acc ? v : acc;
    default:
      return acc;
  }
}

/* Each group's value: its own, else the aggregate of its direct nodes and
 * its child groups' values (groups come parents first, so a walk from the
 * last group up finishes every child before its parent). */
static void group_values(const etk_graph_view_t *g,
                         const etk_graph_view_options_t *o, double *out) {
  etk_graph_view_aggregate_t how = o->value_name ? o->aggregate : 0;
  for (size_t k = 0; k < g->group_count; k++) out[k] = NAN;
  if (!o->value_name) return;
  for (size_t i = 0; how && i < g->node_count; i++) {
    const etk_graph_view_node_t *n = &g->nodes[i];
    if (n->group < g->group_count && n->has_value)
      out[n->group] = combine(how, out[n->group], n->value);
  }
  for (size_t k = g->group_count; k-- > 0;) {
    const etk_graph_view_group_t *gr = &g->groups[k];
    if (gr->has_value) out[k] = gr->value;
    if (how && gr->parent < g->group_count && gr->parent < k)
      out[gr->parent] = combine(how, out[gr->parent], out[k]);
  }
}

void etk_graph_view_options_init(etk_graph_view_options_t *o) {
  memset(o, 0, sizeof *o);
}

int etk_graph_view_write_html(const etk_graph_view_t *g,
                              const etk_graph_view_options_t *o,
                              etk_render_sink_t *sink, etk_error_t *err) {
  etk_graph_view_options_t defaults;
  etk_graph_view_options_init(&defaults);
  if (!o) o = &defaults;
  if (!sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, 0, "no output sink");
  int rc = etk_graph_view_check(g, err);
  if (rc != ETK_OK) return rc;
  gv_layout_t l;
  rc = gv_layout_run(g, &l, err);
  if (rc != ETK_OK) return rc;
  page_t p = {
      .g = g, .o = o, .l = &l, .sink = sink, .lo = INFINITY, .hi = -INFINITY};
  p.close_above = o->collapse_above ? o->collapse_above : 300;
  double only_inf = NAN; /* an infinite value, if all are */
  for (size_t i = 0; i < g->node_count; i++) {
    const etk_graph_view_node_t *n = &g->nodes[i];
    if (!n->has_value || isnan(n->value)) {
      if (!n->io) p.unvalued++;
      continue;
    }
    p.valued++;
    if (isinf(n->value) && !o->against) only_inf = n->value;
    if (!isfinite(n->value) || (o->against && n->faint)) continue;
    double v = o->against ? fabs(n->value) : n->value;
    if (o->against) {
      if (v > p.hi) p.hi = v;
    } else {
      if (v < p.lo) p.lo = v;
      if (v > p.hi) p.hi = v;
    }
  }
  if (o->against) p.lo = p.hi > 0 ? -p.hi : 0;
  if (!(p.hi >= p.lo)) /* no finite value: infinite SNRs only, or none */
    p.lo = p.hi = isnan(only_inf) ? 0 : only_inf;
  if (o->against && !(p.hi > 0)) p.hi = p.lo = 0;
  p.group_value = malloc((g->group_count + 1) * sizeof *p.group_value);
  if (!p.group_value) {
    gv_layout_free(&l);
    return etk_error_set(err, ETK_E_NO_MEMORY, 0, "graph view page");
  }
  group_values(g, o, p.group_value);
  if (!o->fragment) {
    etk_render_puts(sink,
                    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                    "charset=\"utf-8\"><meta name=\"viewport\" "
                    "content=\"width=device-width\"><title>");
    etk_html_texts(sink, o->title ? o->title : "etkit graph");
    etk_render_puts(sink, "</title><style>\nbody{margin:12px}\n");
  } else {
    etk_render_puts(sink, "<style>\n");
  }
  etk_render_puts(sink, gv_page_style);
  etk_render_puts(sink, o->fragment ? "</style>\n" : "</style></head><body>\n");
  write_section(&p);
  etk_render_puts(sink, "<script>\n");
  etk_render_puts(sink, gv_page_script); /* longer than a printf */
  etk_render_puts(sink, "</script>\n");
  if (!o->fragment) etk_render_puts(sink, "</body></html>\n");
  gv_layout_free(&l);
  free(p.group_value);
  return ETK_OK;
}
