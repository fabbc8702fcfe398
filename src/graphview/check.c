/*
 * check.c - validation of a graph description before anything is laid
 * out or written (etk_graph_view_check).
 *
 * A description comes from files (an ETRecord's graph), so it is checked
 * like input: every index in range, node names non-empty and unique (the
 * page finds nodes by data-node), each group's parent listed before it
 * (so the group tree has no loop and can be walked parents-first), nesting
 * no deeper than ETK_GRAPH_VIEW_MAX_DEPTH, and no cycle among the edges
 * (Kahn's algorithm: a node left with incoming edges after every source
 * is peeled sits on a cycle, and the message names one such node).
 * Memory: one hash of the names and three arrays of node_count + 1 words.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "etkit/graph_view.h"
#include "etkit/status.h"

static int check_groups(const etk_graph_view_t *g, etk_error_t *err) {
  if (g->group_count > ETK_GRAPH_VIEW_MAX_NODES)
    return etk_error_set(err, ETK_E_LIMIT, 0, "%zu groups (at most %u)",
                         g->group_count, ETK_GRAPH_VIEW_MAX_NODES);
  size_t *depth = malloc((g->group_count + 1) * sizeof *depth);
  if (!depth) return etk_error_set(err, ETK_E_NO_MEMORY, 0, "group depths");
  int rc = ETK_OK;
  for (size_t i = 0; i < g->group_count && rc == ETK_OK; i++) {
    size_t p = g->groups[i].parent;
    if (p != ETK_GRAPH_VIEW_NONE && p >= i)
      rc = etk_error_set(err, ETK_E_FORMAT, 0,
                         "group %zu ('%s') names parent %zu, which does not "
                         "come before it",
                         i, g->groups[i].label ? g->groups[i].label : "", p);
    else
      depth[i] = p == ETK_GRAPH_VIEW_NONE ? 1 : depth[p] + 1;
    if (rc == ETK_OK && depth[i] > ETK_GRAPH_VIEW_MAX_DEPTH)
      rc = etk_error_set(err, ETK_E_LIMIT, 0,
                         "groups nested %zu deep (at most %u)", depth[i],
                         ETK_GRAPH_VIEW_MAX_DEPTH);
  }
  free(depth);
  return rc;
}

static int check_names(const etk_graph_view_t *g, etk_error_t *err) {
  etk_hash_t names;
  etk_hash_init(&names);
  int rc = ETK_OK;
  for (size_t i = 0; i < g->node_count && rc == ETK_OK; i++) {
    const etk_graph_view_node_t *n = &g->nodes[i];
    if (!n->name || !n->name[0]) {
      rc = etk_error_set(err, ETK_E_FORMAT, 0, "node %zu has no name", i);
      break;
    }
    if (n->group != ETK_GRAPH_VIEW_NONE && n->group >= g->group_count) {
      rc = etk_error_set(err, ETK_E_FORMAT, 0,
                         "node '%s' names group %zu of %zu", n->name, n->group,
                         g->group_count);
      break;
    }
    bool is_new = false;
    uint32_t id;
    rc = etk_hash_put(&names, n->name, strlen(n->name), &id, &is_new);
    if (rc != ETK_OK)
      rc = etk_error_set(err, rc, 0, "node names");
    else if (!is_new)
      rc = etk_error_set(err, ETK_E_FORMAT, 0, "duplicate node name '%s'",
                         n->name);
  }
  etk_hash_free(&names);
  return rc;
}

/* Kahn's algorithm over the edges (already in range). */
static int check_acyclic(const etk_graph_view_t *g, etk_error_t *err) {
  size_t n = g->node_count;
  size_t *indeg = calloc(n + 1, sizeof *indeg);
  size_t *start = calloc(n + 2, sizeof *start);
  size_t *out = malloc((g->edge_count + 1) * sizeof *out);
  size_t *queue = malloc((n + 1) * sizeof *queue);
  int rc = ETK_OK;
  if (!indeg || !start || !out || !queue) {
    rc = etk_error_set(err, ETK_E_NO_MEMORY, 0, "edge check");
    goto done;
  }
  for (size_t e = 0; e < g->edge_count; e++) {
    start[g->edges[e].from + 2]++;
    indeg[g->edges[e].to]++;
  }
  for (size_t i = 2; i < n + 2; i++) start[i] += start[i - 1];
  for (size_t e = 0; e < g->edge_count; e++)
    out[start[g->edges[e].from + 1]++] = g->edges[e].to;
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n; i++)
    if (!indeg[i]) queue[tail++] = i;
  while (head < tail) {
    size_t v = queue[head++];
    for (size_t k = start[v]; k < start[v + 1]; k++)
      if (--indeg[out[k]] == 0) queue[tail++] = out[k];
  }
  if (tail < n) {
    size_t on_cycle = 0;
    while (!indeg[on_cycle]) on_cycle++;
    rc = etk_error_set(err, ETK_E_FORMAT, 0,
                       "the edges form a cycle through node '%s'",
                       g->nodes[on_cycle].name);
  }
done:
  free(indeg);
  free(start);
  free(out);
  free(queue);
  return rc;
}

int etk_graph_view_check(const etk_graph_view_t *g, etk_error_t *err) {
  if (!g || (!g->nodes && g->node_count) || (!g->edges && g->edge_count) ||
      (!g->groups && g->group_count))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, 0,
                         "graph description missing");
  if (g->node_count > ETK_GRAPH_VIEW_MAX_NODES)
    return etk_error_set(err, ETK_E_LIMIT, 0, "%zu nodes (at most %u)",
                         g->node_count, ETK_GRAPH_VIEW_MAX_NODES);
  if (g->edge_count > ETK_GRAPH_VIEW_MAX_EDGES)
    return etk_error_set(err, ETK_E_LIMIT, 0, "%zu edges (at most %u)",
                         g->edge_count, ETK_GRAPH_VIEW_MAX_EDGES);
  int rc = check_groups(g, err);
  if (rc == ETK_OK) rc = check_names(g, err);
  if (rc != ETK_OK) return rc;
  for (size_t e = 0; e < g->edge_count; e++) {
    const etk_graph_view_edge_t *d = &g->edges[e];
    if (d->from >= g->node_count || d->to >= g->node_count)
      return etk_error_set(
          err, ETK_E_FORMAT, 0, "edge %zu names node %zu of %zu", e,
          d->from >= g->node_count ? d->from : d->to, g->node_count);
    if (d->from == d->to)
      return etk_error_set(err, ETK_E_FORMAT, 0,
                           "edge %zu joins node '%s' to itself", e,
                           g->nodes[d->from].name);
  }
  return check_acyclic(g, err);
}
