/*
 * etkit/graph_view.h - a model graph as one self-contained HTML page: the
 * nodes laid out top to bottom by Graphviz (libgvc, "dot"), the module
 * hierarchy as nested collapsible boxes, delegated partitions boxed and
 * labelled with their backend, nodes coloured by one overlay value with a
 * legend, tooltips, a search box and pan/zoom (docs/graph-view.md).
 *
 * The library knows nothing about ETRecords or ETDumps: callers describe
 * the graph with plain arrays (etk_graph_view_t) and say what the value
 * means (etk_graph_view_options_t).  The page has no network access and
 * needs no server; every text from the description is HTML-escaped.
 *
 * Layout: each group (module or partition) is laid out on its own with its
 * direct nodes and its child groups as boxes of their laid-out size, from
 * the innermost group out, and the top level last.  An edge is drawn in
 * the innermost group holding both of its ends, between the two items of
 * that group that contain them.  Many small dot layouts instead of one
 * big one keep a 5,000-node graph in seconds (one dot layout of it takes
 * minutes); the figures are in docs/graph-view.md.
 *
 * Example: two nodes, one edge, coloured by time.
 *
 *   etk_graph_view_node_t nodes[2] = {
 *       {.name = "x", .op = "placeholder", .group = ETK_GRAPH_VIEW_NONE},
 *       {.name = "mul", .op = "aten.mul.Tensor", .group = ETK_GRAPH_VIEW_NONE,
 *        .has_value = true, .value = 0.25}};
 *   etk_graph_view_edge_t edges[1] = {{0, 1}};
 *   etk_graph_view_t g = {nodes, 2, edges, 1, NULL, 0};
 *   etk_graph_view_options_t o;
 *   etk_graph_view_options_init(&o);
 *   o.value_name = "avg time";
 *   o.unit = "ms";
 *   etk_render_sink_t sink;
 *   etk_render_sink_init_file(&sink, fp);
 *   int rc = etk_graph_view_write_html(&g, &o, &sink, &err);
 *   if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
 */
#ifndef ETKIT_GRAPH_VIEW_H
#define ETKIT_GRAPH_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "etkit/common.h"
#include "etkit/graph.h"
#include "etkit/link.h"
#include "etkit/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "No group" (a top-level node or group). */
#define ETK_GRAPH_VIEW_NONE ((size_t)-1)

/* Limits of a description: more is refused with ETK_E_LIMIT. */
#define ETK_GRAPH_VIEW_MAX_NODES 1000000u
#define ETK_GRAPH_VIEW_MAX_EDGES 4000000u
#define ETK_GRAPH_VIEW_MAX_DEPTH 256u

typedef enum etk_graph_view_group_kind {
  ETK_GRAPH_VIEW_MODULE = 0,   /* an nn.Module of the module hierarchy */
  ETK_GRAPH_VIEW_PARTITION = 1 /* a delegated partition; label = backend */
} etk_graph_view_group_kind_t;

/* A box around nodes.  Strings are borrowed for the call. */
typedef struct etk_graph_view_group {
  const char *label;  /* drawn in the box's header (e.g. "layers.0" or
                         "XnnpackBackend"); NULL = "" */
  const char *detail; /* tooltip text (module class, full path); may be NULL */
  size_t parent;      /* index of the enclosing group, which must come
                         before this one, or ETK_GRAPH_VIEW_NONE */
  etk_graph_view_group_kind_t kind;
  /* The group's own value, shown on its closed cover and coloured like a
   * node (a partition's DELEGATE_CALL time); without it, the options'
   * `aggregate` of what it holds. */
  bool has_value;
  double value;
} etk_graph_view_group_t;

/* A node.  Strings are borrowed for the call; NULL reads as absent. */
typedef struct etk_graph_view_node {
  const char *name;    /* FX node name: unique, non-empty; data-node="" */
  const char *op;      /* op type ("aten.mul.Tensor") */
  const char *label;   /* drawn text; NULL = op without "aten." / ".default" */
  const char *module;  /* module path, for the tooltip */
  const char *source;  /* "file:line", for the tooltip */
  const char *shape;   /* output shape(s), for the tooltip */
  const char *figures; /* more tooltip lines (" | "-separated), may be NULL */
  const char *args;    /* argument lines (" | "-separated; a program's
                          constants and literals), may be NULL */
  size_t group;        /* innermost group or ETK_GRAPH_VIEW_NONE */
  bool has_value;      /* false: "no event" (drawn hatched, no data-value) */
  double value;        /* the overlay value (the change, with `against`) */
  bool has_a, has_b;   /* `against`: the two runs' values for the tooltip */
  double a, b;
  bool io;    /* a graph input or output: drawn plain, never "no event" */
  bool faint; /* `against`: the change is not significant: drawn neutral
                 (its value stays in data-value and the tooltip) */
} etk_graph_view_node_t;

/* A data edge from node `from` to node `to` (indices into the nodes). */
typedef struct etk_graph_view_edge {
  size_t from, to;
} etk_graph_view_edge_t;

typedef struct etk_graph_view {
  const etk_graph_view_node_t *nodes;
  size_t node_count;
  const etk_graph_view_edge_t *edges;
  size_t edge_count;
  const etk_graph_view_group_t *groups;
  size_t group_count;
} etk_graph_view_t;

typedef enum etk_graph_view_aggregate {
  ETK_GRAPH_VIEW_AGG_NONE = 0,
  ETK_GRAPH_VIEW_AGG_SUM,
  ETK_GRAPH_VIEW_AGG_MAX,
  ETK_GRAPH_VIEW_AGG_MIN
} etk_graph_view_aggregate_t;

typedef struct etk_graph_view_options {
  const char *title;      /* page title; default "etkit graph" */
  const char *subtitle;   /* one line under it (files, method); may be NULL */
  const char *note;       /* a warning line shown above the graph; may be
                             NULL */
  const char *value_name; /* what the value is ("p50 time"); NULL = no
                             overlay (an uncoloured graph, no legend) */
  const char *unit;       /* appended to numbers ("ms", "%"); with
                             `against`, to the two runs' values only (the
                             change is a percentage); may be NULL */
  /* The value is the change from run A to run B, a fraction (0.1 = +10 %):
   * a diverging colour scale centred on 0, and the tooltip shows `a` and
   * `b` with label_a and label_b (default "A" and "B"). */
  bool against;
  const char *label_a, *label_b;
  /* Words for a node without a value (legend and tooltip); NULL = "no
   * event". */
  const char *missing_label;
  /* A graph of more nodes than this opens with its top-level groups
   * closed (0 = 300). */
  size_t collapse_above;
  /* Writes a <section> to embed into another page (the HTML report)
   * instead of a whole document. */
  bool fragment;
  /* Which end of the scale is better, said in the legend: -1 lower
   * (time, error), +1 higher (SNR: its colours run the other way, dark =
   * low), 0 neither.  With `against`, lower (faster) is better. */
  int better;
  /* A closed group's value when it has none of its own: the sum, the
   * largest or the smallest of its nodes' and child groups' values. */
  etk_graph_view_aggregate_t aggregate;
  /* One more line of legend text (the A/B rule); may be NULL. */
  const char *legend_note;
} etk_graph_view_options_t;

/* Sets every option to its default. */
void etk_graph_view_options_init(etk_graph_view_options_t *o);

/* Checks the description: node names non-empty and unique, edges and
 * groups in range, each group's parent before it, no node edge cycle, no
 * nesting deeper than ETK_GRAPH_VIEW_MAX_DEPTH, sizes within the limits.
 * Errors (with a message naming the node or edge): ETK_E_INVALID_ARGUMENT
 * (NULL `g`, or arrays NULL with a non-zero count), ETK_E_FORMAT,
 * ETK_E_LIMIT, ETK_E_NO_MEMORY.  `err` may be NULL. */
int etk_graph_view_check(const etk_graph_view_t *g, etk_error_t *err);

/* Checks the description (etk_graph_view_check), lays it out and writes
 * the page (or, with o->fragment, the section) to `sink`.  Nothing is
 * written when the check or the layout fails.  `o` NULL = defaults.  The
 * sink is not flushed.  Errors: those of the check, ETK_E_INTERNAL when
 * Graphviz fails, the sink's ETK_E_IO / ETK_E_NO_MEMORY.  Cost: about a
 * millisecond of layout per group; memory linear in the graph. */
int etk_graph_view_write_html(const etk_graph_view_t *g,
                              const etk_graph_view_options_t *o,
                              etk_render_sink_t *sink, etk_error_t *err);

/* ---------------------------------------------- from an ETRecord graph
 *
 * The description of an etk_graph_t (etkit/graph.h): every call_function
 * node of every graph, the top graph's user inputs (all its placeholders
 * when the program has no signature) and its output node.  Groups: the
 * nn_module_stack paths (one group per module path, nested as the stack
 * nests; the root module is not a group), each delegate partition (label
 * = backend id) placed in the innermost module holding all its nodes and
 * holding them with their inner modules and the executorch_call_delegate
 * node, and each control-flow graph (label = its name) inside its owner's
 * group.  data-node is the FX node name; a nested graph's node whose name
 * is already taken is named "<graph name>/<node name>".  Edges: a drawn
 * node's inputs that are drawn. */

/* Per graph node (arrays of etk_graph_node_count() entries, borrowed for
 * the call); any pointer may be NULL. */
typedef struct etk_graph_view_values {
  const double *value;   /* the overlay value; NULL = no overlay */
  const bool *has_value; /* NULL = every node with a finite value has one */
  const double *a, *b;   /* `against`: both runs' values for the tooltip */
  const bool *has_a, *has_b;
  const char *const *figures; /* tooltip lines per node (or NULL entries) */
  const bool *faint;          /* `against`: not significant (NULL = none) */
  /* Per node, the time of the DELEGATE_CALL event around it (NaN when
   * none): a partition group's own value is its nodes' (NULL = none). */
  const double *call_value;
} etk_graph_view_values_t;

typedef struct etk_graph_view_build {
  etk_graph_view_t view;
  size_t *graph_node; /* per view node: its index in the etk_graph_t */
  /* owned storage (private) */
  etk_graph_view_node_t *nodes_;
  etk_graph_view_edge_t *edges_;
  etk_graph_view_group_t *groups_;
  char **strings_;
  size_t string_count_, string_cap_;
} etk_graph_view_build_t;

/* Builds the description of `g` with the per-node values `v` (NULL = no
 * overlay) into *out (free with etk_graph_view_build_free(), also after a
 * failure).  The view borrows `g`'s strings: `g` must outlive *out.
 * Errors: ETK_E_INVALID_ARGUMENT, ETK_E_NO_MEMORY. */
int etk_graph_view_from_graph(const etk_graph_t *g,
                              const etk_graph_view_values_t *v,
                              etk_graph_view_build_t *out, etk_error_t *err);

/* Frees what etk_graph_view_from_graph() made (NULL or zeroed: no-op). */
void etk_graph_view_build_free(etk_graph_view_build_t *b);

/* The "memory" overlay: bytes of each node's output tensors (numel times
 * element size, from the TensorMeta of its output values) into values[]
 * and has_value[] (caller arrays of etk_graph_node_count() entries);
 * has_value false for a node without any sized output. */
void etk_graph_view_output_bytes(const etk_graph_t *g, double *values,
                                 bool *has_value);

/* ------------------------------------------- an ETRecord graph's page
 *
 * What `etkit graph --html`, the HTML report and the Python Inspector
 * draw: an ETRecord graph coloured by one overlay of an ETDump's per-node
 * figures (etkit/link.h, etk_graph_figures_compute()). */

typedef struct etk_graph_view_page {
  /* "time" (median (p50) per run, the default), "share" (% of
   * Method::execute), "count" (runs), "error" (MSE, needs figures
   * computed with a debug buffer: against a second run's values or the
   * ETRecord's reference outputs), "snr", or "memory" (output bytes, from
   * the graph alone); NULL = "time" with figures, else no colour. */
  const char *overlay;
  const etk_graph_figures_t *a; /* the run's figures, or NULL */
  /* Run B (`--against`): colour = the significant changes from A to B
   * of the node's time (etk_graph_figures_compare; time, share and count
   * overlays), both medians in the tooltip.  Ignored for
   * error/snr/memory.  NULL = none. */
  const etk_graph_figures_t *b;
  /* More dumps of each side, pooled with `a` and `b` for the A/B test
   * (etk_graph_figures_compare: every run of every dump one sample);
   * NULL entries are skipped. */
  const etk_graph_figures_t *const *more_a, *const *more_b;
  size_t more_a_count, more_b_count;
  /* title, subtitle, note, labels, fragment, collapse_above; value_name,
   * unit and against are set from the overlay */
  etk_graph_view_options_t view;
} etk_graph_view_page_t;

/* Sets the defaults (no figures, overlay NULL). */
void etk_graph_view_page_init(etk_graph_view_page_t *p);

/* True when overlay `overlay` (a name etk_graph_view_overlay_check()
 * accepts) compares a debug buffer's values ("error", "mse", "snr");
 * false for the others, NULL and unknown names. */
bool etk_graph_view_overlay_numerical(const char *overlay);

/* The overlay that run figures `a` (NULL allowed) support best, for a
 * page whose user chose none: "error" when they hold numerical error
 * (computed with a debug buffer), "time" when they reached any node,
 * else NULL (no colour).  A static string; never fails. */
const char *etk_graph_view_overlay_for(const etk_graph_figures_t *a);

/* Checks an overlay name; ETK_OK, or ETK_E_NOT_FOUND with a message
 * listing the names. */
int etk_graph_view_overlay_check(const char *overlay, etk_error_t *err);

/* The overlay's value per graph node (values[] and has_value[]: caller
 * arrays of etk_graph_node_count() entries), as the page colours them, in
 * the page's unit: has_value false for a node no event reached (never 0)
 * and, with `b`, for a change that is not significant.  *name and *unit
 * (may be NULL) receive the legend's words ("µs", "KiB", "dB", "%"; NULL
 * for counts, MSE and changes).  Errors: ETK_E_INVALID_ARGUMENT,
 * ETK_E_NOT_FOUND (overlay name), ETK_E_NO_MEMORY. */
int etk_graph_view_values(const etk_graph_t *g, const etk_graph_view_page_t *p,
                          double *values, bool *has_value, const char **name,
                          const char **unit, etk_error_t *err);

/* The A/B change per node as the page colours it (etk_graph_figures_compare
 * of a and more_a against b and more_b): values[] the change (0.1 = +10 %)
 * where both sides have samples, significant[] whether it is significant.
 * ETK_E_INVALID_ARGUMENT without both sides, ETK_E_NO_MEMORY. */
int etk_graph_view_changes(const etk_graph_t *g, const etk_graph_view_page_t *p,
                           double *values, bool *has_value, bool *significant,
                           etk_error_t *err);

/* Builds the description of `g` with `p`'s overlay and writes the page
 * (etk_graph_view_write_html).  Errors: those of the calls it makes. */
int etk_graph_view_write_graph(const etk_graph_t *g,
                               const etk_graph_view_page_t *p,
                               etk_render_sink_t *sink, etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_GRAPH_VIEW_H */
