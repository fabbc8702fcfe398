/*
 * transformer_graph.h - a generated transformer-like graph description for
 * the graph view's benchmark and tests: an embedding, then decoder layers
 * (layer norm, q/k/v projections, attention, output projection, residual
 * add, layer norm, MLP with a delegated partition every fourth layer,
 * residual add) until the node count is reached, nested at most four
 * modules deep.  Values are deterministic; every tenth node has none.
 */
#ifndef TRANSFORMER_GRAPH_H
#define TRANSFORMER_GRAPH_H

#include <stddef.h>

#include "etkit/graph_view.h"

typedef struct transformer_graph {
  etk_graph_view_t view;
  etk_graph_view_node_t *nodes;
  etk_graph_view_edge_t *edges;
  etk_graph_view_group_t *groups;
  char **strings; /* every string the description points at */
  size_t string_count;
} transformer_graph_t;

/* Builds a graph of exactly `nodes` nodes (at least 2).  `against`: the
 * values are changes between -0.5 and +0.5 with a and b set.  Returns 0,
 * or -1 when out of memory. */
int transformer_graph_make(size_t nodes, int against, transformer_graph_t *t);
void transformer_graph_free(transformer_graph_t *t);

#endif
