/*
 * graph_page.c - an ETRecord graph with an ETDump's per-node figures as a
 * graph view page (etk_graph_view_write_graph): picks the overlay's value
 * per node, the change from run set A to run set B for `against`, the
 * unit, the legend's words and the tooltip's figure lines, then hands the
 * description to the writer.
 *
 * Values: time = median (p50) per run (as the A/B view and `etkit diff`),
 * share = % of Method::execute, count = runs (all from
 * etk_graph_node_figures_t), error = MSE and snr = SNR (present only where
 * the figures compared float values; +inf SNR for identical ones is a
 * value), memory = output bytes (from the graph's TensorMeta, no ETDump).
 * A node no event reached keeps has_value false: the page draws it as "no
 * event", never as 0.  Times and sizes are shown in one unit per page,
 * chosen from the largest value (s/ms/µs/ns, B/KiB/MiB/GiB), as the report
 * chooses a column's.  The change of `against` is etk_graph_figures_compare()
 * of all dumps of A against all dumps of B (the Hodges-Lehmann shift over
 * the baseline median, with significance); a change that is not
 * significant is kept for the tooltip but drawn neutral (faint), and is no
 * value for the node data.  A partition's own value is the DELEGATE_CALL
 * time around it; modules sum (time, share, size) or take the worst
 * (error, SNR) of what they hold.
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

/* One run's figure for an overlay; NaN when absent.  Time is the median
 * (p50) per run, as the A/B view and `etkit diff` use. */
static double figure(const etk_graph_node_figures_t *f, overlay_kind_t k) {
  if (!f->reached) return NAN;
  switch (k) {
    case OV_TIME:
      return f->p50;
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

/* The unit values are shown in, chosen for the whole legend as the report
 * chooses a column's: time in s, ms, µs or ns (the one in which the
 * largest value is at least 1), bytes in B, KiB, MiB or GiB.  `factor`
 * turns a figure into that unit. */
typedef struct display {
  double factor;
  const char *unit;
} display_t;

static double largest(const double *v, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(v[i]) && fabs(v[i]) > m) m = fabs(v[i]);
  return m;
}

static display_t time_display(const char *unit, double top) {
  display_t d = {1.0, unit};
  double sec = etk_seconds_per_unit(unit);
  if (sec > 0) {
    double per_second = 1;
    d.unit = etk_duration_unit(top > 0 ? top * sec : sec, &per_second);
    d.factor = sec * per_second;
  }
  return d;
}

static display_t bytes_display(double top) {
  static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  display_t d = {1.0, names[0]};
  for (int k = 1; k < 5 && top >= 1024.0; k++) {
    top /= 1024.0;
    d.factor /= 1024.0;
    d.unit = names[k];
  }
  return d;
}

static const char *run_unit(const etk_graph_view_page_t *p) {
  return p->a && p->a->time_unit ? p->a->time_unit : "ms";
}

static void legend_words(overlay_kind_t k, bool change, const char **name,
                         int *better) {
  const char *n = NULL;
  int b = -1;
  switch (k) {
    case OV_TIME:
      n = change ? "p50 time" : "median (p50) time per run";
      break;
    case OV_SHARE:
      n = "share of Method::execute";
      break;
    case OV_COUNT:
      n = "runs";
      b = 0;
      break;
    case OV_ERROR:
      n = "numerical error (MSE)";
      break;
    case OV_SNR:
      n = "SNR";
      b = 1;
      break;
    case OV_MEMORY:
      n = "output size";
      b = 0;
      break;
    default:
      break;
  }
  if (change) b = -1;
  if (name) *name = n;
  if (better) *better = b;
}

/* The figures of both sides, for etk_graph_figures_compare(). */
static int gather(const etk_graph_figures_t *first,
                  const etk_graph_figures_t *const *more, size_t count,
                  const etk_graph_figures_t ***out) {
  *out = malloc((count + 1) * sizeof **out);
  if (!*out) return ETK_E_NO_MEMORY;
  (*out)[0] = first;
  for (size_t i = 0; i < count; i++) (*out)[i + 1] = more ? more[i] : NULL;
  return ETK_OK;
}

int etk_graph_view_changes(const etk_graph_t *g, const etk_graph_view_page_t *p,
                           double *values, bool *has_value, bool *significant,
                           etk_error_t *err) {
  if (!g || !p || !p->a || !p->b || !values || !has_value)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, 0,
                         "graph view changes: both runs are needed");
  size_t n = etk_graph_node_count(g);
  const etk_graph_figures_t **a = NULL, **b = NULL;
  etk_graph_node_change_t *ch = calloc(n + 1, sizeof *ch);
  int rc = ch ? gather(p->a, p->more_a, p->more_a_count, &a) : ETK_E_NO_MEMORY;
  if (rc == ETK_OK) rc = gather(p->b, p->more_b, p->more_b_count, &b);
  if (rc != ETK_OK) {
    rc = etk_error_set(err, rc, 0, "graph view changes");
  } else {
    rc = etk_graph_figures_compare(a, p->more_a_count + 1, b,
                                   p->more_b_count + 1, NULL, ch, err);
  }
  for (size_t i = 0; rc == ETK_OK && i < n; i++) {
    values[i] = ch[i].compared ? ch[i].delta : NAN;
    has_value[i] = ch[i].compared && isfinite(ch[i].delta);
    if (significant) significant[i] = ch[i].significant;
  }
  free(ch);
  free(a);
  free(b);
  return rc;
}

/* The overlay's values in display units; *d receives the unit. */
static int overlay_values(const etk_graph_t *g, const etk_graph_view_page_t *p,
                          overlay_kind_t k, double *values, bool *has_value,
                          bool *significant, display_t *d, etk_error_t *err) {
  size_t n = etk_graph_node_count(g);
  d->factor = 1;
  d->unit = NULL;
  if (k == OV_MEMORY) {
    etk_graph_view_output_bytes(g, values, has_value);
    *d = bytes_display(largest(values, n));
  } else if (with_change(p, k)) {
    return etk_graph_view_changes(g, p, values, has_value, significant, err);
  } else {
    for (size_t i = 0; i < n; i++) {
      double v =
          p->a && i < p->a->node_count ? figure(&p->a->nodes[i], k) : NAN;
      values[i] = v;
      has_value[i] = !isnan(v);
    }
    if (k == OV_TIME) *d = time_display(run_unit(p), largest(values, n));
    if (k == OV_SHARE) d->unit = "%";
    if (k == OV_SNR) d->unit = "dB";
  }
  for (size_t i = 0; i < n; i++)
    if (has_value[i]) values[i] *= d->factor;
  return ETK_OK;
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
  bool *sig = change ? calloc(n + 1, sizeof *sig) : NULL;
  if (change && !sig)
    return etk_error_set(err, ETK_E_NO_MEMORY, 0, "graph view values");
  display_t d;
  rc = overlay_values(g, p, k, values, has_value, sig, &d, err);
  /* a change that is not significant is no value for other tools */
  for (size_t i = 0; sig && i < n; i++)
    if (!sig[i]) has_value[i] = false;
  free(sig);
  legend_words(k, change, name, NULL);
  if (unit) *unit = change ? NULL : d.unit;
  return rc;
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
 * page's escaping shows a newline as the two characters \\n); times in
 * the unit of `t`. */
static char *figure_text(const etk_graph_view_page_t *p, size_t i,
                         const display_t *t,
                         const etk_graph_node_change_t *change) {
  text_buf_t buf = {.len = 0};
  const etk_graph_figures_t *runs[2] = {p->a, p->b};
  for (int r = 0; r < 2; r++) {
    const etk_graph_figures_t *f = runs[r];
    if (!f || i >= f->node_count) continue;
    const etk_graph_node_figures_t *x = &f->nodes[i];
    const char *who = p->b ? (r ? "B: " : "A: ") : "";
    if (!x->reached) {
      append(&buf, "%sno event | ", who);
      continue;
    }
    if (isfinite(x->avg))
      append(&buf, "%sp50 %.3g %s, avg %.3g %s, %llu run%s | ", who,
             x->p50 * t->factor, t->unit, x->avg * t->factor, t->unit,
             (unsigned long long)x->count, x->count == 1 ? "" : "s");
    if (isfinite(x->share))
      append(&buf, "%s%.3g %% of Method::execute | ", who, x->share);
    if (x->shared) append(&buf, "%sits event covers other nodes too | ", who);
    if (isfinite(x->call_p50))
      append(&buf, "%sits DELEGATE_CALL: p50 %.3g %s | ", who,
             x->call_p50 * t->factor, t->unit);
    if (x->has_error)
      append(&buf, "%sMSE %.3g, SNR %.3g dB, max abs diff %.3g | ", who, x->mse,
             x->snr, x->max_abs);
    if (x->int_compared)
      append(&buf,
             "%sinteger output: %llu of %llu elements differ (exact match, "
             "not in MSE/SNR) | ",
             who, (unsigned long long)x->int_mismatches,
             (unsigned long long)x->int_compared);
  }
  if (change && change->compared)
    append(&buf,
           "change of the medians %+.3g %% [%+.3g, %+.3g] (q %.2g): %s | ",
           change->delta * 100, change->ci_low * 100, change->ci_high * 100,
           change->q_value,
           change->significant ? "significant" : "not significant");
  size_t len = buf.len;
  while (len >= 3 && memcmp(buf.data + len - 3, " | ", 3) == 0) len -= 3;
  if (!len) return NULL;
  char *s = malloc(len + 1);
  if (s) {
    memcpy(s, buf.data, len);
    s[len] = 0;
  }
  return s;
}

/* How a closed group sums up its inside. */
static etk_graph_view_aggregate_t aggregate_of(overlay_kind_t k, bool change) {
  if (change) return ETK_GRAPH_VIEW_AGG_NONE;
  switch (k) {
    case OV_TIME:
    case OV_SHARE:
    case OV_MEMORY:
      return ETK_GRAPH_VIEW_AGG_SUM;
    case OV_ERROR:
    case OV_COUNT:
      return ETK_GRAPH_VIEW_AGG_MAX;
    case OV_SNR:
      return ETK_GRAPH_VIEW_AGG_MIN;
    default:
      return ETK_GRAPH_VIEW_AGG_NONE;
  }
}

typedef struct page_arrays {
  double *values, *ab, *calls;
  bool *flags, *sig;
  char **figs;
  etk_graph_node_change_t *changes;
} page_arrays_t;

static void arrays_free(page_arrays_t *a, size_t n) {
  if (a->figs)
    for (size_t i = 0; i < n; i++) free(a->figs[i]);
  free(a->figs);
  free(a->values);
  free(a->ab);
  free(a->calls);
  free(a->flags);
  free(a->sig);
  free(a->changes);
}

/* The change's statistics per node, for the tooltips. */
static int node_changes(const etk_graph_view_page_t *p, size_t n,
                        page_arrays_t *a, etk_error_t *err) {
  const etk_graph_figures_t **sa = NULL, **sb = NULL;
  int rc = gather(p->a, p->more_a, p->more_a_count, &sa);
  if (rc == ETK_OK) rc = gather(p->b, p->more_b, p->more_b_count, &sb);
  if (rc == ETK_OK)
    rc = etk_graph_figures_compare(sa, p->more_a_count + 1, sb,
                                   p->more_b_count + 1, NULL, a->changes, err);
  else
    rc = etk_error_set(err, rc, 0, "graph view page");
  free(sa);
  free(sb);
  (void)n;
  return rc;
}

int etk_graph_view_write_graph(const etk_graph_t *g,
                               const etk_graph_view_page_t *p,
                               etk_render_sink_t *sink, etk_error_t *err) {
  if (!g || !p || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, 0, "graph view page");
  size_t n = etk_graph_node_count(g);
  page_arrays_t a = {.values = calloc(n + 1, sizeof *a.values),
                     .ab = calloc(2 * n + 1, sizeof *a.ab),
                     .calls = calloc(n + 1, sizeof *a.calls),
                     .flags = calloc(3 * n + 1, sizeof *a.flags),
                     .sig = calloc(n + 1, sizeof *a.sig),
                     .figs = calloc(n + 1, sizeof *a.figs),
                     .changes = calloc(n + 1, sizeof *a.changes)};
  etk_graph_view_options_t o = p->view;
  etk_graph_view_build_t b;
  memset(&b, 0, sizeof b);
  int rc = ETK_OK;
  if (!a.values || !a.ab || !a.calls || !a.flags || !a.sig || !a.figs ||
      !a.changes) {
    rc = etk_error_set(err, ETK_E_NO_MEMORY, 0, "graph view page");
    goto done;
  }
  overlay_kind_t k = OV_TIME; /* parse() sets it on success */
  if ((rc = parse(p, &k, err)) != ETK_OK) goto done;
  bool change = with_change(p, k);
  display_t d;
  rc = overlay_values(g, p, k, a.values, a.flags, a.sig, &d, err);
  if (rc == ETK_OK && change) rc = node_changes(p, n, &a, err);
  if (rc != ETK_OK) goto done;
  legend_words(k, change, &o.value_name, &o.better);
  o.unit = change ? NULL : d.unit;
  o.aggregate = aggregate_of(k, change);
  etk_graph_view_values_t v = {.value = a.values, .has_value = a.flags};
  if (k == OV_NONE) v.value = NULL;
  o.against = change;
  if (k == OV_MEMORY && !o.missing_label) o.missing_label = "no size recorded";
  if ((k == OV_ERROR || k == OV_SNR) && !o.missing_label)
    o.missing_label = "not compared";
  /* times in the tooltips: the legend's unit for a time overlay, else
   * one chosen for the run's own times */
  double top = 0;
  for (size_t i = 0; p->a && i < n; i++)
    if (isfinite(p->a->nodes[i].p50) && p->a->nodes[i].p50 > top)
      top = p->a->nodes[i].p50;
  display_t t = k == OV_TIME && !change ? d : time_display(run_unit(p), top);
  if (change) {
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
      a.ab[i] = a.changes[i].baseline * t.factor;
      a.ab[n + i] = a.changes[i].candidate * t.factor;
      a.flags[n + i] = isfinite(a.ab[i]);
      a.flags[2 * n + i] = isfinite(a.ab[n + i]);
      a.sig[i] = !a.changes[i].significant;
      shown += a.changes[i].significant;
    }
    v.a = a.ab;
    v.b = a.ab + n;
    v.has_a = a.flags + n;
    v.has_b = a.flags + 2 * n;
    v.faint = a.sig;
    o.unit = t.unit; /* of the medians A and B in the tooltip */
    o.legend_note =
        shown ? "coloured: significant changes only (q \xE2\x89\xA4 "
                "0.05, interval excluding 0, |change| \xE2\x89\xA5 2 %)"
              : "no significant change (q \xE2\x89\xA4 0.05, "
                "interval excluding 0, |change| \xE2\x89\xA5 2 %)";
  }
  if (p->a) {
    for (size_t i = 0; i < n; i++) {
      a.figs[i] = figure_text(p, i, &t, change ? &a.changes[i] : NULL);
      a.calls[i] = k == OV_TIME && !change && i < p->a->node_count
                       ? p->a->nodes[i].call_p50 * d.factor
                       : NAN;
    }
    v.figures = (const char *const *)a.figs;
    v.call_value = a.calls;
  }
  rc = etk_graph_view_from_graph(g, &v, &b, err);
  if (rc == ETK_OK) rc = etk_graph_view_write_html(&b.view, &o, sink, err);
done:
  etk_graph_view_build_free(&b);
  arrays_free(&a, n);
  return rc;
}
