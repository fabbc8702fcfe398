/*
 * graph_page.c - an ETRecord graph with an ETDump's per-node figures as a
 * graph view page (etk_graph_view_write_graph): picks the overlay's value
 * per node, the change from run A to run B for `against`, and the
 * tooltip's figure lines, then hands the description to the writer.
 *
 * Values: time = avg per run, share = % of Method::execute, count = runs
 * (all from etk_graph_node_figures_t), error = MSE and snr = SNR (present
 * only where the figures compared values), memory = output bytes (from
 * the graph's TensorMeta, no ETDump).  A node no event reached keeps
 * has_value false: the page draws it as "no event", never as 0.  The
 * change of `against` is (B - A) / A of the median-based figure (p50 for
 * time, as `etkit diff`), defined only where both runs reached the node
 * and A is above 0.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/status.h"
#include "graph_view_internal.h"

typedef enum overlay_kind {
  OV_NONE,
  OV_TIME,
  OV_SHARE,
  OV_COUNT,
  OV_ERROR,
  OV_SNR,
  OV_MEMORY
} overlay_kind_t;

static const struct {
  const char *name;
  overlay_kind_t kind;
} overlays[] = {{"time", OV_TIME},    {"share", OV_SHARE}, {"count", OV_COUNT},
                {"error", OV_ERROR},  {"mse", OV_ERROR},   {"snr", OV_SNR},
                {"memory", OV_MEMORY}};

static int parse(const etk_graph_view_page_t *p, overlay_kind_t *out,
                 etk_error_t *err) {
  if (!p->overlay) {
    *out = p->a ? OV_TIME : OV_NONE;
    return ETK_OK;
  }
  for (size_t i = 0; i < sizeof overlays / sizeof overlays[0]; i++)
    if (strcmp(p->overlay, overlays[i].name) == 0) {
      *out = overlays[i].kind;
      return ETK_OK;
    }
  return etk_error_set(err, ETK_E_NOT_FOUND, 0,
                       "unknown overlay '%s' (time, share, count, error, "
                       "snr, memory)",
                       p->overlay);
}

void etk_graph_view_page_init(etk_graph_view_page_t *p) {
  memset(p, 0, sizeof *p);
  etk_graph_view_options_init(&p->view);
}

bool etk_graph_view_overlay_numerical(const char *overlay) {
  etk_graph_view_page_t p;
  etk_graph_view_page_init(&p);
  p.overlay = overlay;
  overlay_kind_t k = OV_NONE;
  return overlay && parse(&p, &k, NULL) == ETK_OK &&
         (k == OV_ERROR || k == OV_SNR);
}

const char *etk_graph_view_overlay_for(const etk_graph_figures_t *a) {
  if (!a || !a->linked) return NULL;
  return a->has_error ? "error" : "time";
}

int etk_graph_view_overlay_check(const char *overlay, etk_error_t *err) {
  etk_graph_view_page_t p;
  etk_graph_view_page_init(&p);
  p.overlay = overlay;
  overlay_kind_t k = OV_TIME; /* parse() sets it on success */
  return parse(&p, &k, err);
}

/* One run's figure for a timing overlay; NaN when absent. */
static double figure(const etk_graph_node_figures_t *f, overlay_kind_t k,
                     bool median) {
  if (!f->reached) return NAN;
  switch (k) {
    case OV_TIME:
      return median ? f->p50 : f->avg;
    case OV_SHARE:
      return f->share;
    case OV_COUNT:
      return f->count ? (double)f->count : NAN;
    case OV_ERROR:
      return f->has_error ? f->mse : NAN;
    case OV_SNR:
      return f->has_error ? f->snr : NAN;
    default:
      return NAN;
  }
}

static bool with_change(const etk_graph_view_page_t *p, overlay_kind_t k) {
  return p->a && p->b && (k == OV_TIME || k == OV_SHARE || k == OV_COUNT);
}

static void legend_words(overlay_kind_t k, bool change, const char *unit,
                         const char **name, const char **unit_out) {
  const char *n = NULL, *u = NULL;
  switch (k) {
    case OV_TIME:
      n = change ? "p50 time" : "avg time per run";
      u = unit;
      break;
    case OV_SHARE:
      n = "share of Method::execute";
      u = "%";
      break;
    case OV_COUNT:
      n = "runs";
      break;
    case OV_ERROR:
      n = "numerical error (MSE)";
      break;
    case OV_SNR:
      n = "SNR";
      u = "dB";
      break;
    case OV_MEMORY:
      n = "output size";
      u = "bytes";
      break;
    default:
      break;
  }
  if (name) *name = n;
  if (unit_out) *unit_out = u;
}

int etk_graph_view_values(const etk_graph_t *g, const etk_graph_view_page_t *p,
                          double *values, bool *has_value, const char **name,
                          const char **unit, etk_error_t *err) {
  if (!g || !p || !values || !has_value)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, 0, "graph view values");
  overlay_kind_t k = OV_TIME; /* parse() sets it on success */
  int rc = parse(p, &k, err);
  if (rc != ETK_OK) return rc;
  size_t n = etk_graph_node_count(g);
  bool change = with_change(p, k);
  legend_words(k, change, p->a && p->a->time_unit ? p->a->time_unit : "ms",
               name, unit);
  if (k == OV_MEMORY) {
    etk_graph_view_output_bytes(g, values, has_value);
    return ETK_OK;
  }
  for (size_t i = 0; i < n; i++) {
    double v = NAN;
    if (p->a && i < p->a->node_count) {
      if (change && i < p->b->node_count) {
        double a = figure(&p->a->nodes[i], k, true);
        double b = figure(&p->b->nodes[i], k, true);
        v = a > 0 && isfinite(b) ? (b - a) / a : NAN;
      } else {
        v = figure(&p->a->nodes[i], k, false);
      }
    }
    values[i] = v;
    has_value[i] = isfinite(v);
  }
  return ETK_OK;
}

/* Appends to a fixed buffer; the text is cut at its end, never overrun. */
typedef struct text_buf {
  char data[512];
  size_t len;
} text_buf_t;

static void append(text_buf_t *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void append(text_buf_t *t, const char *fmt, ...) {
  if (t->len + 1 >= sizeof t->data) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->data + t->len, sizeof t->data - t->len, fmt, ap);
  va_end(ap);
  if (n > 0) t->len += (size_t)n;
  if (t->len >= sizeof t->data) t->len = sizeof t->data - 1;
}

/* The tooltip's lines of figures for node i, separated by " | " (the
 * page's escaping shows a newline as the two characters \\n). */
static char *figure_text(const etk_graph_view_page_t *p, size_t i,
                         const char *unit) {
  text_buf_t t = {.len = 0};
  const etk_graph_figures_t *runs[2] = {p->a, p->b};
  for (int r = 0; r < 2; r++) {
    const etk_graph_figures_t *f = runs[r];
    if (!f || i >= f->node_count) continue;
    const etk_graph_node_figures_t *x = &f->nodes[i];
    const char *who = p->b ? (r ? "B: " : "A: ") : "";
    if (!x->reached) {
      append(&t, "%sno event | ", who);
      continue;
    }
    if (isfinite(x->avg))
      append(&t, "%savg %.4g %s, p50 %.4g %s, %llu run%s | ", who, x->avg, unit,
             x->p50, unit, (unsigned long long)x->count,
             x->count == 1 ? "" : "s");
    if (isfinite(x->share))
      append(&t, "%s%.3g %% of Method::execute | ", who, x->share);
    if (x->shared) append(&t, "%sits event covers other nodes too | ", who);
    if (x->has_error)
      append(&t, "%sMSE %.4g, SNR %.4g dB, max abs diff %.4g | ", who, x->mse,
             x->snr, x->max_abs);
  }
  size_t len = t.len;
  while (len >= 3 && memcmp(t.data + len - 3, " | ", 3) == 0) len -= 3;
  if (!len) return NULL;
  char *s = malloc(len + 1);
  if (s) {
    memcpy(s, t.data, len);
    s[len] = 0;
  }
  return s;
}

int etk_graph_view_write_graph(const etk_graph_t *g,
                               const etk_graph_view_page_t *p,
                               etk_render_sink_t *sink, etk_error_t *err) {
  if (!g || !p || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, 0, "graph view page");
  size_t n = etk_graph_node_count(g);
  double *values = calloc(n + 1, sizeof *values);
  double *ab = calloc(2 * n + 1, sizeof *ab);
  bool *flags = calloc(3 * n + 1, sizeof *flags);
  char **figs = calloc(n + 1, sizeof *figs);
  etk_graph_view_options_t o = p->view;
  etk_graph_view_build_t b;
  memset(&b, 0, sizeof b);
  int rc = ETK_OK;
  if (!values || !ab || !flags || !figs) {
    rc = etk_error_set(err, ETK_E_NO_MEMORY, 0, "graph view page");
    goto done;
  }
  overlay_kind_t k = OV_TIME; /* parse() sets it on success */
  if ((rc = parse(p, &k, err)) != ETK_OK) goto done;
  rc = etk_graph_view_values(g, p, values, flags, &o.value_name, &o.unit, err);
  if (rc != ETK_OK) goto done;
  etk_graph_view_values_t v = {.value = values, .has_value = flags};
  if (k == OV_NONE) v.value = NULL;
  o.against = with_change(p, k);
  if (k == OV_MEMORY && !o.missing_label) o.missing_label = "no size recorded";
  if ((k == OV_ERROR || k == OV_SNR) && !o.missing_label)
    o.missing_label = "not compared";
  if (o.against) {
    for (size_t i = 0; i < n; i++) {
      ab[i] = figure(&p->a->nodes[i], k, true);
      ab[n + i] = i < p->b->node_count ? figure(&p->b->nodes[i], k, true) : NAN;
      flags[n + i] = isfinite(ab[i]);
      flags[2 * n + i] = isfinite(ab[n + i]);
    }
    v.a = ab;
    v.b = ab + n;
    v.has_a = flags + n;
    v.has_b = flags + 2 * n;
  }
  if (p->a) {
    const char *unit = p->a->time_unit ? p->a->time_unit : "ms";
    for (size_t i = 0; i < n; i++) figs[i] = figure_text(p, i, unit);
    v.figures = (const char *const *)figs;
  }
  rc = etk_graph_view_from_graph(g, &v, &b, err);
  if (rc == ETK_OK) rc = etk_graph_view_write_html(&b.view, &o, sink, err);
done:
  etk_graph_view_build_free(&b);
  if (figs)
    for (size_t i = 0; i < n; i++) free(figs[i]);
  free(figs);
  free(values);
  free(ab);
  free(flags);
  return rc;
}
