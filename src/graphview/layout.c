/*
 * layout.c - places every node, group box and edge of a graph view with
 * Graphviz's "dot" layout (libgvc), one small layout per group.
 *
 * Why per group: dot's crossing minimisation and network-simplex
 * placement grow much faster than linearly; one layout of a 5,000-node
 * transformer graph took minutes (docs/graph-view.md), while a group holds
 * tens of items.  So each unit (the top level, or one group) is laid out
 * alone, with its direct nodes as fixed-size boxes and its child groups as
 * boxes of their own finished size; units are done children first
 * (groups list parents before children, so in reverse order), the top
 * level last.  The result is a nested drawing of the graph with every
 * group open.  A closed group shrinks to its header and cover
 * (closed_w x GV_CLOSED_H); the page's script then compacts each unit
 * around it (page_assets.c): the strips of the unit that only the open
 * group covered are cut out, so dot's order, ranks and routes stay and
 * nothing overlaps.
 *
 * Edges: an edge u -> v is drawn in the innermost unit holding both ends,
 * between that unit's two items containing u and v (found by walking the
 * deeper end up, one group at a time).  Several edges between the same two
 * items are drawn once.  Points come out of dot with y up; they are
 * flipped to y down and shifted so that each unit's content starts at 0.
 *
 * Memory: arrays linear in nodes + groups + drawn edges; one Graphviz
 * graph alive at a time, in one Graphviz context kept for the process.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gvc.h>

#include "common/hash.h"
#include "etkit/status.h"
#include "graph_view_internal.h"

typedef struct pair_edge {
  size_t unit, from, to; /* items: node i, or node_count + group */
} pair_edge_t;

typedef struct layout_ctx {
  const etk_graph_view_t *g;
  gv_layout_t *l;
  GVC_t *gvc;
  pair_edge_t *pairs;
  size_t pair_count;
  size_t *pair_start, *pair_ids; /* pairs per unit, CSR */
  size_t *item_local; /* per item: its index among its unit's items */
} layout_ctx_t;

void gv_node_text(const etk_graph_view_node_t *n, char *out, size_t size) {
  const char *s = n->label;
  size_t len;
  if (!s) {
    s = n->op && n->op[0] ? n->op : n->name;
    if (strncmp(s, "aten.", 5) == 0) s += 5;
    len = strlen(s);
    if (len > 8 && strcmp(s + len - 8, ".default") == 0) len -= 8;
  } else {
    len = strlen(s);
  }
  size_t o = 0, chars = 0;
  for (size_t i = 0; i < len && o + 4 < size; i++) {
    if (((unsigned char)s[i] & 0xC0) != 0x80 && chars++ == GV_LABEL_CHARS) {
      if (o + 4 < size) memcpy(out + o, "\xE2\x80\xA6", 3), o += 3;
      break;
    }
    out[o++] = s[i];
  }
  /* never end inside a UTF-8 sequence */
  while (o > 0 && ((unsigned char)out[o - 1] & 0xC0) == 0x80 &&
         !(o >= 3 && memcmp(out + o - 3, "\xE2\x80\xA6", 3) == 0)) {
    size_t k = o;
    while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80) k--;
    if (k == 0) break;
    unsigned char lead = (unsigned char)out[k - 1];
    size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (o - (k - 1) >= want) break;
    o = k - 1;
  }
  out[o] = 0;
}

static size_t text_chars(const char *s) {
  size_t n = 0;
  for (; s && *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) n++;
  return n;
}

static double node_width(const etk_graph_view_node_t *n) {
  char text[4 * GV_LABEL_CHARS + 8];
  gv_node_text(n, text, sizeof text);
  size_t chars = text_chars(text), name = text_chars(n->name);
  if (name > GV_LABEL_CHARS) name = GV_LABEL_CHARS + 1;
  if (name > chars) chars = name;
  double w = GV_CHAR_W * (double)chars + 16.0;
  return w < 48.0 ? 48.0 : w;
}

static size_t unit_depth(const etk_graph_view_t *g, size_t unit) {
  size_t d = 0;
  while (unit) {
    d++;
    unit = gv_unit_of(g->groups[unit - 1].parent);
  }
  return d;
}

/* Children of each unit as CSR arrays; node totals per unit. */
static int build_children(layout_ctx_t *c) {
  const etk_graph_view_t *g = c->g;
  gv_layout_t *l = c->l;
  size_t units = l->unit_count;
  l->node_start = calloc(units + 2, sizeof(size_t));
  l->group_start = calloc(units + 2, sizeof(size_t));
  l->node_ids = malloc((g->node_count + 1) * sizeof(size_t));
  l->group_ids = malloc((g->group_count + 1) * sizeof(size_t));
  l->node_total = calloc(units, sizeof(size_t));
  if (!l->node_start || !l->group_start || !l->node_ids || !l->group_ids ||
      !l->node_total)
    return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < g->node_count; i++)
    l->node_start[gv_unit_of(g->nodes[i].group) + 2]++;
  for (size_t i = 0; i < g->group_count; i++)
    l->group_start[gv_unit_of(g->groups[i].parent) + 2]++;
  for (size_t u = 2; u < units + 2; u++) {
    l->node_start[u] += l->node_start[u - 1];
    l->group_start[u] += l->group_start[u - 1];
  }
  for (size_t i = 0; i < g->node_count; i++)
    l->node_ids[l->node_start[gv_unit_of(g->nodes[i].group) + 1]++] = i;
  for (size_t i = 0; i < g->group_count; i++)
    l->group_ids[l->group_start[gv_unit_of(g->groups[i].parent) + 1]++] = i;
  c->item_local = malloc((g->node_count + g->group_count + 1) * sizeof(size_t));
  if (!c->item_local) return ETK_E_NO_MEMORY;
  for (size_t u = 0; u < units; u++) {
    size_t nodes = l->node_start[u + 1] - l->node_start[u];
    for (size_t k = l->node_start[u]; k < l->node_start[u + 1]; k++)
      c->item_local[l->node_ids[k]] = k - l->node_start[u];
    for (size_t k = l->group_start[u]; k < l->group_start[u + 1]; k++)
      c->item_local[g->node_count + l->group_ids[k]] =
          nodes + k - l->group_start[u];
  }
  for (size_t i = 0; i < g->node_count; i++)
    l->node_total[gv_unit_of(g->nodes[i].group)]++;
  for (size_t i = g->group_count; i-- > 0;)
    l->node_total[gv_unit_of(g->groups[i].parent)] += l->node_total[i + 1];
  return ETK_OK;
}

/* Each edge's unit and items, duplicates dropped; then CSR per unit. */
static int build_pairs(layout_ctx_t *c) {
  const etk_graph_view_t *g = c->g;
  size_t *depth = malloc(c->l->unit_count * sizeof *depth);
  c->pairs = malloc((g->edge_count + 1) * sizeof *c->pairs);
  c->pair_start = calloc(c->l->unit_count + 2, sizeof(size_t));
  c->pair_ids = malloc((g->edge_count + 1) * sizeof(size_t));
  etk_hash_t seen;
  etk_hash_init(&seen);
  int rc = ETK_OK;
  if (!depth || !c->pairs || !c->pair_start || !c->pair_ids) {
    rc = ETK_E_NO_MEMORY;
    goto done;
  }
  for (size_t u = 0; u < c->l->unit_count; u++) depth[u] = unit_depth(g, u);
  for (size_t e = 0; e < g->edge_count; e++) {
    size_t a = g->edges[e].from, b = g->edges[e].to;
    size_t ua = gv_unit_of(g->nodes[a].group),
           ub = gv_unit_of(g->nodes[b].group);
    while (ua != ub) {
      if (depth[ua] >= depth[ub]) {
        a = g->node_count + (ua - 1);
        ua = gv_unit_of(g->groups[ua - 1].parent);
      } else {
        b = g->node_count + (ub - 1);
        ub = gv_unit_of(g->groups[ub - 1].parent);
      }
    }
    size_t key[2] = {a, b};
    uint32_t id;
    bool is_new = false;
    rc = etk_hash_put(&seen, key, sizeof key, &id, &is_new);
    if (rc != ETK_OK) goto done;
    if (!is_new) continue;
    c->pairs[c->pair_count++] = (pair_edge_t){ua, a, b};
    c->pair_start[ua + 2]++;
  }
  for (size_t u = 2; u < c->l->unit_count + 2; u++)
    c->pair_start[u] += c->pair_start[u - 1];
  for (size_t p = 0; p < c->pair_count; p++)
    c->pair_ids[c->pair_start[c->pairs[p].unit + 1]++] = p;
done:
  etk_hash_free(&seen);
  free(depth);
  return rc;
}

static void set_size(Agnode_t *n, Agsym_t *ws, Agsym_t *hs, double w,
                     double h) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.4f", w / 72.0);
  agxset(n, ws, buf);
  snprintf(buf, sizeof buf, "%.4f", h / 72.0);
  agxset(n, hs, buf);
}

static int add_points(gv_layout_t *l, size_t want, size_t *cap) {
  if (l->point_count + want <= *cap) return ETK_OK;
  size_t n = *cap ? *cap : 1024;
  while (n < l->point_count + want) n *= 2;
  double *p = realloc(l->points, 2 * n * sizeof *p);
  if (!p) return ETK_E_NO_MEMORY;
  l->points = p;
  *cap = n;
  return ETK_OK;
}

/* Reads the laid-out unit back: item boxes, unit size, edge points. */
static int read_unit(layout_ctx_t *c, size_t u, Agraph_t *G, Agnode_t **items,
                     size_t item_count, Agedge_t **edges, size_t *point_cap) {
  const etk_graph_view_t *g = c->g;
  gv_layout_t *l = c->l;
  boxf bb = GD_bb(G);
  double x0 = bb.LL.x, top = bb.UR.y;
  l->unit_w[u] = bb.UR.x - bb.LL.x;
  l->unit_h[u] = bb.UR.y - bb.LL.y;
  size_t nodes = l->node_start[u + 1] - l->node_start[u];
  for (size_t k = 0; k < item_count; k++) {
    pointf p = ND_coord(items[k]);
    double w = ND_width(items[k]) * 72.0, h = ND_height(items[k]) * 72.0;
    gv_box_t box = {p.x - x0 - w / 2, top - p.y - h / 2, w, h};
    if (k < nodes)
      l->node_box[l->node_ids[l->node_start[u] + k]] = box;
    else
      l->group_box[l->group_ids[l->group_start[u] + k - nodes]] = box;
  }
  (void)g;
  for (size_t k = c->pair_start[u]; k < c->pair_start[u + 1]; k++) {
    Agedge_t *e = edges[k - c->pair_start[u]];
    gv_edge_path_t *path = &l->paths[l->path_count];
    path->unit = u;
    path->first = l->point_count;
    path->count = 0;
    l->path_ids[k] = l->path_count++;
    if (!e || !ED_spl(e) || ED_spl(e)->size < 1) continue;
    bezier bz = ED_spl(e)->list[0];
    size_t size = bz.size > 0 ? (size_t)bz.size : 0;
    if (size == 0) continue;
    if (add_points(l, size + 1, point_cap) != ETK_OK) return ETK_E_NO_MEMORY;
    for (size_t i = 0; i < size; i++) {
      l->points[2 * l->point_count] = bz.list[i].x - x0;
      l->points[2 * l->point_count + 1] = top - bz.list[i].y;
      l->point_count++;
    }
    pointf tip = bz.eflag ? bz.ep : bz.list[size - 1];
    l->points[2 * l->point_count] = tip.x - x0;
    l->points[2 * l->point_count + 1] = top - tip.y;
    l->point_count++;
    path->count = size + 1;
  }
  return ETK_OK;
}

/* Moves everything unit u holds right by dx and widens it by 2 dx: a
 * group whose header is wider than its inside shows the inside centred
 * under the header, not at its left edge. */
static void center_unit(layout_ctx_t *c, size_t u, double dx) {
  gv_layout_t *l = c->l;
  for (size_t k = l->node_start[u]; k < l->node_start[u + 1]; k++)
    l->node_box[l->node_ids[k]].x += dx;
  for (size_t k = l->group_start[u]; k < l->group_start[u + 1]; k++)
    l->group_box[l->group_ids[k]].x += dx;
  for (size_t k = c->pair_start[u]; k < c->pair_start[u + 1]; k++) {
    const gv_edge_path_t *path = &l->paths[l->path_ids[k]];
    for (size_t q = 0; q < path->count; q++)
      l->points[2 * (path->first + q)] += dx;
  }
  l->unit_w[u] += 2 * dx;
}

/* Width of a group's header text: "[delegated to ]LABEL (N)" (bold for
 * partitions, so a little wider per character). */
static double group_label_width(const etk_graph_view_group_t *gr,
                                size_t total) {
  bool part = gr->kind == ETK_GRAPH_VIEW_PARTITION;
  size_t chars = text_chars(gr->label) + (part ? 13 : 0) + 3;
  for (; total >= 10; total /= 10) chars++;
  return (part ? 7.8 : GV_CHAR_W) * (double)(chars + 1) + 2 * GV_PAD;
}

/* Width of a closed group: its header text, and its cover's "N nodes"
 * text, at most the open width. */
static double closed_width(double open_w, double label_w, size_t total) {
  size_t chars = 9; /* " nodes >" and a margin */
  for (; total >= 10; total /= 10) chars++;
  double w = GV_CHAR_W * (double)(chars + 1) + 2 * GV_PAD;
  if (w < label_w) w = label_w;
  return w < open_w ? w : open_w;
}

/* The plain layered layout of a unit too large for dot: each item's rank
 * is its longest path from a source (Kahn's order; an item left in a cycle
 * starts a new source, lowest index first), items of one rank side by side
 * in index order, the rows centred; each edge one cubic curve from the
 * bottom of its source to the top of its target.  Linear in items and
 * edges, no recursion. */
static int plain_unit(layout_ctx_t *c, size_t u, size_t items, const double *w,
                      const double *h, size_t *point_cap) {
  gv_layout_t *l = c->l;
  size_t np = c->pair_start[u + 1] - c->pair_start[u];
  size_t *rank = calloc(items, sizeof *rank),
         *indeg = calloc(items, sizeof *indeg);
  size_t *out_start = calloc(items + 2, sizeof *out_start);
  size_t *out = malloc((np + 1) * sizeof *out),
         *queue = malloc(items * sizeof *queue);
  double *row_w = NULL, *row_h = NULL, *row_x = NULL, *row_y = NULL;
  int rc = ETK_E_NO_MEMORY;
  if (!rank || !indeg || !out_start || !out || !queue) goto done;
  const pair_edge_t *pairs = c->pairs;
  const size_t *ids = c->pair_ids + c->pair_start[u];
  for (size_t k = 0; k < np; k++) {
    out_start[c->item_local[pairs[ids[k]].from] + 2]++;
    indeg[c->item_local[pairs[ids[k]].to]]++;
  }
  for (size_t k = 2; k < items + 2; k++) out_start[k] += out_start[k - 1];
  for (size_t k = 0; k < np; k++)
    out[out_start[c->item_local[pairs[ids[k]].from] + 1]++] =
        c->item_local[pairs[ids[k]].to];
  size_t head = 0, tail = 0, next = 0, ranks = 1;
  bool *done_item = calloc(items, sizeof *done_item);
  if (!done_item) goto done;
  for (size_t k = 0; k < items; k++)
    if (!indeg[k]) queue[tail++] = k, done_item[k] = true;
  while (head < items) {
    if (head == tail) { /* a cycle: its lowest item starts again */
      while (done_item[next]) next++;
      queue[tail++] = next;
      done_item[next] = true;
    }
    size_t v = queue[head++];
    if (rank[v] + 1 > ranks) ranks = rank[v] + 1;
    for (size_t e = out_start[v]; e < out_start[v + 1]; e++) {
      size_t t = out[e];
      if (done_item[t]) continue;
      if (rank[t] < rank[v] + 1) rank[t] = rank[v] + 1;
      if (--indeg[t] == 0) queue[tail++] = t, done_item[t] = true;
    }
  }
  free(done_item);
  row_w = calloc(ranks, sizeof *row_w);
  row_h = calloc(ranks, sizeof *row_h);
  row_x = calloc(ranks, sizeof *row_x);
  row_y = calloc(ranks + 1, sizeof *row_y);
  if (!row_w || !row_h || !row_x || !row_y) goto done;
  const double gap_x = 13, gap_y = 20;
  for (size_t k = 0; k < items; k++) {
    row_w[rank[k]] += (row_w[rank[k]] > 0 ? gap_x : 0) + w[k];
    if (h[k] > row_h[rank[k]]) row_h[rank[k]] = h[k];
  }
  double width = 0;
  for (size_t r = 0; r < ranks; r++) {
    if (row_w[r] > width) width = row_w[r];
    row_y[r + 1] = row_y[r] + row_h[r] + (r + 1 < ranks ? gap_y : 0);
  }
  for (size_t r = 0; r < ranks; r++) row_x[r] = (width - row_w[r]) / 2;
  size_t nodes = l->node_start[u + 1] - l->node_start[u];
  gv_box_t *box = malloc(items * sizeof *box);
  if (!box) goto done;
  for (size_t k = 0; k < items; k++) {
    size_t r = rank[k];
    box[k] = (gv_box_t){row_x[r], row_y[r] + (row_h[r] - h[k]) / 2, w[k], h[k]};
    row_x[r] += w[k] + gap_x;
    if (k < nodes)
      l->node_box[l->node_ids[l->node_start[u] + k]] = box[k];
    else
      l->group_box[l->group_ids[l->group_start[u] + k - nodes]] = box[k];
  }
  l->unit_w[u] = width;
  l->unit_h[u] = row_y[ranks];
  rc = ETK_OK;
  for (size_t k = 0; k < np && rc == ETK_OK; k++) {
    const gv_box_t *a = &box[c->item_local[pairs[ids[k]].from]];
    const gv_box_t *b = &box[c->item_local[pairs[ids[k]].to]];
    gv_edge_path_t *path = &l->paths[l->path_count];
    l->path_ids[c->pair_start[u] + k] = l->path_count++;
    if ((rc = add_points(l, 5, point_cap)) != ETK_OK) break;
    double x1 = a->x + a->w / 2, y1 = a->y + a->h;
    double x2 = b->x + b->w / 2, y2 = b->y, dy = (y2 - y1) / 2;
    if (dy < 10) dy = 10;
    double pts[10] = {x1, y1, x1, y1 + dy, x2, y2 - dy, x2, y2 - 6, x2, y2};
    *path = (gv_edge_path_t){u, l->point_count, 5};
    memcpy(&l->points[2 * l->point_count], pts, sizeof pts);
    l->point_count += 5;
  }
  free(box);
  l->plain_units++;
  if (items > l->plain_items) l->plain_items = items;
done:
  free(rank);
  free(indeg);
  free(out_start);
  free(out);
  free(queue);
  free(row_w);
  free(row_h);
  free(row_x);
  free(row_y);
  return rc;
}

/* Item sizes of unit u, then its plain layout. */
static int plain_layout(layout_ctx_t *c, size_t u, size_t nodes, size_t items,
                        size_t *point_cap) {
  double *w = malloc(2 * items * sizeof *w);
  if (!w) return ETK_E_NO_MEMORY;
  for (size_t k = 0; k < items; k++) {
    if (k < nodes) {
      w[k] = node_width(&c->g->nodes[c->l->node_ids[c->l->node_start[u] + k]]);
      w[items + k] = GV_NODE_H;
    } else {
      const gv_box_t *b =
          &c->l->group_box[c->l->group_ids[c->l->group_start[u] + k - nodes]];
      w[k] = b->w;
      w[items + k] = b->h;
    }
  }
  int rc = plain_unit(c, u, items, w, w + items, point_cap);
  free(w);
  return rc;
}

/* Lays out unit u (its children are done). */
static int layout_unit(layout_ctx_t *c, size_t u, size_t *point_cap) {
  const etk_graph_view_t *g = c->g;
  gv_layout_t *l = c->l;
  size_t nodes = l->node_start[u + 1] - l->node_start[u];
  size_t groups = l->group_start[u + 1] - l->group_start[u];
  size_t items = nodes + groups,
         npairs = c->pair_start[u + 1] - c->pair_start[u];
  if (items == 0) {
    l->unit_w[u] = 40;
    l->unit_h[u] = 10;
    return ETK_OK;
  }
  if (items > GV_DOT_MAX_ITEMS)
    return plain_layout(c, u, nodes, items, point_cap);
  Agnode_t **nv = malloc(items * sizeof *nv);
  Agedge_t **ev = malloc((npairs + 1) * sizeof *ev);
  Agraph_t *G = agopen("unit", Agdirected, NULL);
  int rc = ETK_OK;
  if (!nv || !ev || !G) {
    rc = ETK_E_NO_MEMORY;
    goto done;
  }
  agattr(G, AGRAPH, "rankdir", "TB");
  agattr(G, AGRAPH, "nodesep", "0.18");
  agattr(G, AGRAPH, "ranksep", "0.28");
  if (items > 150) {
    /* bound the crossing-minimisation and placement passes */
    agattr(G, AGRAPH, "mclimit", "0.3");
    agattr(G, AGRAPH, "nslimit", "3");
    agattr(G, AGRAPH, "nslimit1", "3");
  }
  agattr(G, AGNODE, "shape", "box");
  agattr(G, AGNODE, "fixedsize", "true");
  agattr(G, AGNODE, "label", "");
  Agsym_t *ws = agattr(G, AGNODE, "width", "1");
  Agsym_t *hs = agattr(G, AGNODE, "height", "0.5");
  char name[32];
  for (size_t k = 0; k < items; k++) {
    snprintf(name, sizeof name, "i%zu", k);
    nv[k] = agnode(G, name, 1);
    if (!nv[k]) {
      rc = ETK_E_NO_MEMORY;
      goto done;
    }
    if (k < nodes) {
      const etk_graph_view_node_t *n =
          &g->nodes[l->node_ids[l->node_start[u] + k]];
      set_size(nv[k], ws, hs, node_width(n), GV_NODE_H);
    } else {
      size_t gi = l->group_ids[l->group_start[u] + k - nodes];
      gv_box_t *b = &l->group_box[gi];
      set_size(nv[k], ws, hs, b->w, b->h);
    }
  }
  for (size_t k = 0; k < npairs; k++) {
    const pair_edge_t *p = &c->pairs[c->pair_ids[c->pair_start[u] + k]];
    ev[k] = agedge(G, nv[c->item_local[p->from]], nv[c->item_local[p->to]],
                   NULL, 1);
  }
  if (gvLayout(c->gvc, G, "dot") != 0) {
    rc = ETK_E_INTERNAL;
    goto done;
  }
  rc = read_unit(c, u, G, nv, items, ev, point_cap);
  gvFreeLayout(c->gvc, G);
done:
  if (G) agclose(G);
  free(nv);
  free(ev);
  return rc;
}

/* One Graphviz context for the process: made on first use (loading the
 * layout plugins once) and kept, never freed; Graphviz 2.43 loses a few
 * kilobytes in every context it frees.  Graphviz is not thread-safe, and
 * neither is this library's layout. */
static GVC_t *shared_context(void) {
  static GVC_t *gvc;
  if (!gvc) {
    agseterr(AGERR); /* Graphviz warnings are not the user's business */
    gvc = gvContext();
  }
  return gvc;
}

void gv_layout_free(gv_layout_t *l) {
  free(l->node_box);
  free(l->group_box);
  free(l->closed_w);
  free(l->unit_w);
  free(l->unit_h);
  free(l->node_total);
  free(l->points);
  free(l->paths);
  free(l->node_start);
  free(l->node_ids);
  free(l->group_start);
  free(l->group_ids);
  free(l->path_start);
  free(l->path_ids);
  memset(l, 0, sizeof *l);
}

int gv_layout_run(const etk_graph_view_t *g, gv_layout_t *l, etk_error_t *err) {
  memset(l, 0, sizeof *l);
  layout_ctx_t c = {.g = g, .l = l};
  l->unit_count = g->group_count + 1;
  l->node_box = calloc(g->node_count + 1, sizeof *l->node_box);
  l->group_box = calloc(g->group_count + 1, sizeof *l->group_box);
  l->closed_w = calloc(g->group_count + 1, sizeof *l->closed_w);
  l->unit_w = calloc(l->unit_count, sizeof *l->unit_w);
  l->unit_h = calloc(l->unit_count, sizeof *l->unit_h);
  int rc = ETK_E_NO_MEMORY;
  if (!l->node_box || !l->group_box || !l->closed_w || !l->unit_w || !l->unit_h)
    goto done;
  rc = build_children(&c);
  if (rc == ETK_OK) rc = build_pairs(&c);
  if (rc != ETK_OK) goto done;
  l->paths = calloc(c.pair_count + 1, sizeof *l->paths);
  l->path_ids = malloc((c.pair_count + 1) * sizeof *l->path_ids);
  l->path_start = c.pair_start; /* pairs and paths share their order */
  c.pair_start = NULL;
  if (!l->paths || !l->path_ids) {
    rc = ETK_E_NO_MEMORY;
    goto done;
  }
  c.pair_start = l->path_start;
  c.gvc = shared_context();
  if (!c.gvc) {
    rc = ETK_E_INTERNAL;
    goto done;
  }
  size_t point_cap = 0;
  for (size_t u = l->unit_count; u-- > 0 && rc == ETK_OK;) {
    rc = layout_unit(&c, u, &point_cap);
    if (rc == ETK_OK && u > 0) {
      const etk_graph_view_group_t *gr = &g->groups[u - 1];
      double w = l->unit_w[u] + 2 * GV_PAD,
             lw = group_label_width(gr, l->node_total[u]);
      if (w < lw) center_unit(&c, u, (lw - w) / 2);
      l->group_box[u - 1].w = w < lw ? lw : w;
      l->group_box[u - 1].h = l->unit_h[u] + GV_HEADER + GV_PAD;
      l->closed_w[u - 1] =
          closed_width(l->group_box[u - 1].w, lw, l->node_total[u]);
    }
  }
done:
  if (c.pair_start == l->path_start) c.pair_start = NULL;
  free(c.pairs);
  free(c.pair_start);
  free(c.pair_ids);
  free(c.item_local);
  if (rc != ETK_OK) {
    gv_layout_free(l);
    return etk_error_set(err, rc, 0,
                         rc == ETK_E_INTERNAL ? "Graphviz could not lay out "
                                                "the graph"
                                              : "graph layout");
  }
  return ETK_OK;
}
