/*
 * partitions.c - which nodes were delegated, and the debug-handle index.
 *
 * Two sources, in this order:
 *
 *   1. Lowered modules inside the graph: each LOWERED graph (the original
 *      program of an executorch_call_delegate node's lowered module) is a
 *      partition made of its call nodes, with the delegate call itself as
 *      `call_node` (which belongs to it too).
 *   2. The method's delegate_map: an ETRecord made by
 *      to_edge_transform_and_lower keeps the edge program from before
 *      partitioning, so a delegate is only visible in the maps.  Each
 *      delegate_map entry (one DelegateCall instruction) gives debug
 *      handles: those of its delegate ids, plus the debug_handle_map list
 *      of the same instruction.  The call nodes of the top graph that are
 *      in no partition yet and carry one of these handles form a
 *      partition named "<backend>#<instruction>".  An entry that matches
 *      a lowered module of step 1 (a shared handle) only gives that
 *      partition its instruction id.
 *
 * The handle index lists every call node once per debug handle, sorted
 * by (handle, node index), for etk_graph_nodes_for_handle().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct handle_ref {
  int64_t handle;
  size_t node;
} handle_ref_t;

static int cmp_ref(const void *a, const void *b) {
  const handle_ref_t *x = a, *y = b;
  if (x->handle != y->handle) return x->handle < y->handle ? -1 : 1;
  return (x->node > y->node) - (x->node < y->node);
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int build_handle_index(etk_graph_t *g) {
  size_t n = 0;
  for (size_t i = 0; i < g->node_count; i++)
    n += g->nodes[i].debug_handle_count;
  if (n == 0) return ETK_OK;
  handle_ref_t *refs = malloc(n * sizeof *refs);
  g->handle_keys = malloc(n * sizeof *g->handle_keys);
  g->handle_nodes = malloc(n * sizeof *g->handle_nodes);
  if (!refs || !g->handle_keys || !g->handle_nodes) {
    free(refs);
    return ETK_E_NO_MEMORY;
  }
  size_t k = 0;
  for (size_t i = 0; i < g->node_count; i++)
    for (size_t h = 0; h < g->nodes[i].debug_handle_count; h++)
      refs[k++] = (handle_ref_t){g->nodes[i].debug_handles[h], i};
  qsort(refs, n, sizeof *refs, cmp_ref);
  size_t m = 0; /* a node listing one handle twice is kept once */
  for (size_t i = 0; i < n; i++) {
    if (m && refs[i].handle == g->handle_keys[m - 1] &&
        refs[i].node == g->handle_nodes[m - 1])
      continue;
    g->handle_keys[m] = refs[i].handle;
    g->handle_nodes[m] = refs[i].node;
    m++;
  }
  g->handle_count = m;
  free(refs);
  return ETK_OK;
}

/* Sorted unique handles of a node list, in the arena. */
static int node_handles(etk_graph_t *g, const size_t *nodes, size_t count,
                        const int64_t **out, size_t *out_count) {
  size_t n = 0;
  for (size_t k = 0; k < count; k++) n += g->nodes[nodes[k]].debug_handle_count;
  *out = NULL;
  *out_count = 0;
  if (n == 0) return ETK_OK;
  int64_t *h = etk_arena_array(&g->arena, n, sizeof *h);
  if (!h) return ETK_E_NO_MEMORY;
  size_t m = 0;
  for (size_t k = 0; k < count; k++) {
    const etk_graph_node_t *node = &g->nodes[nodes[k]];
    for (size_t j = 0; j < node->debug_handle_count; j++)
      h[m++] = node->debug_handles[j];
  }
  qsort(h, m, sizeof *h, cmp_i64);
  size_t u = 0;
  for (size_t k = 0; k < m; k++)
    if (u == 0 || h[u - 1] != h[k]) h[u++] = h[k];
  *out = h;
  *out_count = u;
  return ETK_OK;
}

static bool has_handle(const int64_t *sorted, size_t n, int64_t h) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < h)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && sorted[lo] == h;
}

static etk_graph_partition_t *new_partition(etk_graph_t *g, size_t *cap) {
  if (!ETK_VEC_RESERVE(g->partitions, *cap, g->partition_count + 1))
    return NULL;
  etk_graph_partition_t *p = &g->partitions[g->partition_count++];
  memset(p, 0, sizeof *p);
  p->call_node = p->graph = ETK_GRAPH_NONE;
  p->instruction_id = -1;
  p->backend = p->name = "";
  return p;
}

static int lowered_partitions(etk_graph_t *g, size_t *cap) {
  for (size_t gi = 0; gi < g->graph_count; gi++) {
    const etk_graph_graph_t *G = &g->graphs[gi];
    if (G->kind != ETK_GRAPH_GRAPH_LOWERED) continue;
    size_t count = 0;
    for (size_t i = G->first_node; i < G->end_node; i++)
      if (g->nodes[i].kind == ETK_GRAPH_NODE_CALL) count++;
    size_t *nodes =
        count ? etk_arena_array(&g->arena, count, sizeof *nodes) : NULL;
    if (count && !nodes) return ETK_E_NO_MEMORY;
    size_t pi = g->partition_count;
    etk_graph_partition_t *p = new_partition(g, cap);
    if (!p) return ETK_E_NO_MEMORY;
    p->backend = G->backend ? G->backend : "";
    p->name = G->name;
    p->call_node = G->owner;
    p->graph = gi;
    size_t k = 0;
    for (size_t i = G->first_node; i < G->end_node; i++)
      if (g->nodes[i].kind == ETK_GRAPH_NODE_CALL) {
        nodes[k++] = i;
        if (g->nodes[i].partition == ETK_GRAPH_NONE) g->nodes[i].partition = pi;
      }
    if (G->owner != ETK_GRAPH_NONE &&
        g->nodes[G->owner].partition == ETK_GRAPH_NONE)
      g->nodes[G->owner].partition = pi;
    p->nodes = nodes;
    p->node_count = count;
    int rc = node_handles(g, nodes, count, &p->debug_handles,
                          &p->debug_handle_count);
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}

/* The handles a delegate_map entry names, sorted and unique (malloc'd). */
static int entry_handles(const etk_etrecord_method_maps_t *maps,
                         const etk_etrecord_delegate_entry_t *e, int64_t **out,
                         size_t *count) {
  const etk_etrecord_handle_entry_t *he =
      etk_etrecord_maps_handles(maps, e->instruction_id);
  size_t n = he ? he->handle_count : 0;
  for (size_t k = 0; k < e->id_count; k++) n += e->ids[k].handle_count;
  *out = NULL;
  *count = 0;
  if (n == 0) return ETK_OK;
  int64_t *h = malloc(n * sizeof *h);
  if (!h) return ETK_E_NO_MEMORY;
  size_t m = 0;
  for (size_t k = 0; he && k < he->handle_count; k++) h[m++] = he->handles[k];
  for (size_t k = 0; k < e->id_count; k++)
    for (size_t j = 0; j < e->ids[k].handle_count; j++)
      h[m++] = e->ids[k].handles[j];
  qsort(h, m, sizeof *h, cmp_i64);
  size_t u = 0;
  for (size_t k = 0; k < m; k++)
    if (u == 0 || h[u - 1] != h[k]) h[u++] = h[k];
  *out = h;
  *count = u;
  return ETK_OK;
}

static int map_partition(etk_graph_t *g, size_t *cap,
                         const etk_etrecord_delegate_entry_t *e,
                         const int64_t *handles, size_t hcount) {
  /* a lowered module with a shared handle: only its instruction id */
  for (size_t p = 0; p < g->partition_count; p++) {
    etk_graph_partition_t *part = &g->partitions[p];
    if (part->graph == ETK_GRAPH_NONE || part->instruction_id >= 0) continue;
    for (size_t k = 0; k < part->debug_handle_count; k++)
      if (has_handle(handles, hcount, part->debug_handles[k])) {
        part->instruction_id = e->instruction_id;
        return ETK_OK;
      }
  }
  /* the top graph's unassigned call nodes with one of the handles, found
   * through the handle index (sorted, unique after the sort below) */
  size_t total = 0;
  for (size_t h = 0; h < hcount; h++)
    total += etk_graph_nodes_for_handle(g, handles[h], NULL);
  if (total == 0) return ETK_OK;
  size_t *nodes = etk_arena_array(&g->arena, total, sizeof *nodes);
  if (!nodes) return ETK_E_NO_MEMORY;
  size_t k = 0;
  for (size_t h = 0; h < hcount; h++) {
    const size_t *found;
    size_t c = etk_graph_nodes_for_handle(g, handles[h], &found);
    for (size_t i = 0; i < c; i++) {
      const etk_graph_node_t *n = &g->nodes[found[i]];
      if (n->kind == ETK_GRAPH_NODE_CALL && n->graph == 0 &&
          n->partition == ETK_GRAPH_NONE)
        nodes[k++] = found[i];
    }
  }
  qsort(nodes, k, sizeof *nodes, cmp_size);
  size_t u = 0;
  for (size_t i = 0; i < k; i++)
    if (u == 0 || nodes[u - 1] != nodes[i]) nodes[u++] = nodes[i];
  k = u;
  if (k == 0) return ETK_OK;
  size_t pi = g->partition_count;
  etk_graph_partition_t *p = new_partition(g, cap);
  if (!p) return ETK_E_NO_MEMORY;
  const char *backend = e->backend_name ? e->backend_name : "";
  char name[160];
  snprintf(name, sizeof name, "%.120s#%lld", *backend ? backend : "delegate",
           (long long)e->instruction_id);
  p->backend = backend;
  p->name = etk_arena_strdup(&g->arena, name);
  if (!p->name) return ETK_E_NO_MEMORY;
  p->instruction_id = e->instruction_id;
  for (size_t i = 0; i < k; i++) g->nodes[nodes[i]].partition = pi;
  p->nodes = nodes;
  p->node_count = k;
  return node_handles(g, nodes, k, &p->debug_handles, &p->debug_handle_count);
}

int graph_partitions(etk_graph_t *g, etk_error_t *err) {
  size_t cap = 0;
  int rc = build_handle_index(g);
  if (rc == ETK_OK) rc = lowered_partitions(g, &cap);
  const etk_etrecord_method_maps_t *maps =
      etk_etrecord_maps_find(g->rec, g->method);
  for (size_t d = 0; rc == ETK_OK && maps && d < maps->delegate_count; d++) {
    int64_t *handles;
    size_t hcount;
    rc = entry_handles(maps, &maps->delegates[d], &handles, &hcount);
    if (rc == ETK_OK && hcount)
      rc = map_partition(g, &cap, &maps->delegates[d], handles, hcount);
    free(handles);
  }
  if (rc != ETK_OK)
    return etk_error_set_where(err, g->prog->ref.member, rc,
                               "out of memory assigning partitions");
  return ETK_OK;
}

size_t etk_graph_nodes_for_handle(const etk_graph_t *g, int64_t handle,
                                  const size_t **nodes) {
  if (nodes) *nodes = NULL;
  if (!g) return 0;
  size_t lo = 0, hi = g->handle_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->handle_keys[mid] < handle)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < g->handle_count && g->handle_keys[end] == handle) end++;
  if (end == lo) return 0;
  if (nodes) *nodes = &g->handle_nodes[lo];
  return end - lo;
}
