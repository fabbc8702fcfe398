/*
 * graph_view_internal.h - what the layout hands to the page writer
 * (private to src/graphview/).
 *
 * A "unit" is one laid-out box: unit 0 is the whole graph, unit g + 1 is
 * group g.  Each unit's items (its direct nodes and child groups) have
 * positions in the unit's own frame, y down, origin at the top-left of its
 * content; a child group's box is placed at (x, y) in its parent's frame
 * and its content starts at (GV_PAD, GV_HEADER) inside the box.  Edges
 * belong to the unit where both ends meet, in that unit's frame.
 */
#ifndef GRAPH_VIEW_INTERNAL_H
#define GRAPH_VIEW_INTERNAL_H

#include <stddef.h>

#include "etkit/graph_view.h"

/* Box geometry in CSS pixels (= Graphviz points). */
#define GV_PAD 10.0
#define GV_HEADER 22.0
#define GV_NODE_H 34.0
#define GV_CHAR_W 7.0
#define GV_LABEL_CHARS 26 /* drawn label text is cut to this many */
#define GV_CLOSED_H 50.0  /* a closed group: its header and its cover */

typedef struct gv_box {
  double x, y, w, h; /* top-left corner and size, in the owner's frame */
} gv_box_t;

typedef struct gv_edge_path {
  size_t unit;  /* the unit whose frame the points are in */
  size_t first; /* index of its first point in layout.points (x, y pairs) */
  size_t count; /* points: 1 + 3k Bezier points, then the arrow tip */
} gv_edge_path_t;

typedef struct gv_layout {
  size_t unit_count;       /* group_count + 1 */
  gv_box_t *node_box;      /* per node, in its unit's frame */
  gv_box_t *group_box;     /* per group, in its parent unit's frame */
  double *closed_w;        /* per group: its width when closed (its header
                              text and cover fit; at most group_box.w) */
  double *unit_w, *unit_h; /* content size per unit */
  size_t *node_total;      /* per unit: nodes inside, at any depth */
  double *points;          /* x, y pairs */
  size_t point_count;
  gv_edge_path_t *paths;
  size_t path_count;
  /* children per unit, CSR: unit u's nodes are node_ids[node_start[u] ..
   * node_start[u + 1]), its child groups group_ids[...] likewise */
  size_t *node_start, *node_ids;
  size_t *group_start, *group_ids;
  size_t *path_start, *path_ids; /* edges drawn in unit u */
  /* units of more than GV_DOT_MAX_ITEMS items, placed by layout.c's own
   * layered layout instead of dot, and the largest such unit's items */
  size_t plain_units, plain_items;
} gv_layout_t;

/* dot's ranking recurses once per rank and its placement grows faster
 * than linearly: a flat 10,000-node chain took 3.8 s and 60,000 overflowed
 * an 8 MiB stack.  A unit with more items is laid out by layout.c's
 * plain layered layout (linear, no recursion). */
#define GV_DOT_MAX_ITEMS 2500

/* Unit of a node or group's parent: 0 for the top level, else group + 1. */
static inline size_t gv_unit_of(size_t group) {
  return group == ETK_GRAPH_VIEW_NONE ? 0 : group + 1;
}

/* The drawn text of a node (its label, or the op shortened), at most
 * GV_LABEL_CHARS code points plus an ellipsis, into `out`. */
/* The argument lines of node i of a program's graph (program_args.c):
 * malloc'd, " | "-separated; NULL for other nodes and graphs, or out of
 * memory. */
char *gv_program_args(const etk_graph_t *g, size_t i);

/* The drawn label of node i of a program's graph: the operator without
 * its namespace and its ".out" overload ("quantized_conv2d"), "delegate"
 * for a delegate call; malloc'd, NULL otherwise. */
char *gv_program_label(const etk_graph_t *g, size_t i);

void gv_node_text(const etk_graph_view_node_t *n, char *out, size_t size);

/* Lays the (checked) graph out.  ETK_E_NO_MEMORY, ETK_E_INTERNAL. */
int gv_layout_run(const etk_graph_view_t *g, gv_layout_t *l, etk_error_t *err);
void gv_layout_free(gv_layout_t *l);

/* The page's script and style (page_assets.c). */
extern const char gv_page_style[];
extern const char gv_page_script[];

#endif /* GRAPH_VIEW_INTERNAL_H */
