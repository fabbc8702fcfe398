/*
 * transformer_graph.c - see transformer_graph.h.  Strings are strdup'd and
 * listed in t->strings so one free releases them; the arrays are sized for
 * the requested node count up front (each node adds at most 3 edges and
 * at most one group).
 */
#define _POSIX_C_SOURCE 200809L
#include "transformer_graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/common.h"

typedef struct builder {
  transformer_graph_t *t;
  size_t cap, against;
  unsigned seed;
  int failed;
} builder_t;

static char *text(builder_t *b, const char *fmt, ...) ETK_PRINTF_LIKE(2, 3);
static char *text(builder_t *b, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *s = strdup(buf);
  if (!s) {
    b->failed = 1;
    return NULL;
  }
  b->t->strings[b->t->string_count++] = s;
  return s;
}

static size_t group(builder_t *b, size_t parent, const char *label,
                    etk_graph_view_group_kind_t kind) {
  transformer_graph_t *t = b->t;
  size_t i = t->view.group_count++;
  t->groups[i] = (etk_graph_view_group_t){
      .label = text(b, "%s", label), .parent = parent, .kind = kind};
  return i;
}

static unsigned next(builder_t *b) {
  b->seed = b->seed * 1103515245u + 12345u;
  return (b->seed >> 8) & 0xFFFF;
}

/* Adds a node fed by up to two earlier nodes; returns its index or the
 * last index when the graph is full. */
static size_t node(builder_t *b, const char *op, const char *name, size_t grp,
                   size_t in1, size_t in2) {
  transformer_graph_t *t = b->t;
  if (t->view.node_count >= b->cap) return b->cap - 1;
  size_t i = t->view.node_count++;
  etk_graph_view_node_t *n = &t->nodes[i];
  memset(n, 0, sizeof *n);
  n->name = text(b, "%s_%zu", name, i);
  n->op = text(b, "aten.%s.default", op);
  n->group = grp;
  n->module = grp == ETK_GRAPH_VIEW_NONE ? NULL : t->groups[grp].label;
  n->source = text(b, "model.py:%zu", 10 + i % 97);
  n->shape = text(b, "[1, 128, %u]", 64u << (i % 3));
  n->has_value = i % 10 != 3;
  double v = (double)(next(b) % 1000) / 1000.0;
  if (b->against) {
    n->has_a = n->has_b = n->has_value;
    n->a = 0.05 + v;
    n->b = n->a * (0.5 + (double)(next(b) % 1000) / 1000.0);
    n->value = (n->b - n->a) / n->a;
  } else {
    n->value = 0.001 + v * v;
  }
  if (in1 != ETK_GRAPH_VIEW_NONE && in1 < i)
    t->edges[t->view.edge_count++] = (etk_graph_view_edge_t){in1, i};
  if (in2 != ETK_GRAPH_VIEW_NONE && in2 < i && in2 != in1)
    t->edges[t->view.edge_count++] = (etk_graph_view_edge_t){in2, i};
  return i;
}

static size_t linear(builder_t *b, const char *name, size_t grp, size_t in) {
  size_t w =
      node(b, "t", "permute", grp, ETK_GRAPH_VIEW_NONE, ETK_GRAPH_VIEW_NONE);
  size_t mm = node(b, "addmm", name, grp, in, w);
  return node(b, "view", "view", grp, mm, ETK_GRAPH_VIEW_NONE);
}

static size_t layer(builder_t *b, size_t l, size_t x) {
  char path[64];
  snprintf(path, sizeof path, "layers.%zu", l);
  size_t lg = group(b, ETK_GRAPH_VIEW_NONE, path, ETK_GRAPH_VIEW_MODULE);
  size_t n1 = group(b, lg, "ln1", ETK_GRAPH_VIEW_MODULE);
  size_t h =
      node(b, "native_layer_norm", "layer_norm", n1, x, ETK_GRAPH_VIEW_NONE);
  size_t at = group(b, lg, "attn", ETK_GRAPH_VIEW_MODULE);
  size_t q = linear(b, "q_proj", group(b, at, "q_proj", 0), h);
  size_t k = linear(b, "k_proj", group(b, at, "k_proj", 0), h);
  size_t v = linear(b, "v_proj", group(b, at, "v_proj", 0), h);
  size_t s = node(b, "bmm", "scores", at, q, k);
  size_t d = node(b, "div", "scale", at, s, ETK_GRAPH_VIEW_NONE);
  size_t sm = node(b, "_softmax", "softmax", at, d, ETK_GRAPH_VIEW_NONE);
  size_t av = node(b, "bmm", "context", at, sm, v);
  size_t o = linear(b, "o_proj", group(b, at, "o_proj", 0), av);
  size_t r = node(b, "add", "residual", lg, x, o);
  size_t n2 = group(b, lg, "ln2", ETK_GRAPH_VIEW_MODULE);
  size_t h2 =
      node(b, "native_layer_norm", "layer_norm", n2, r, ETK_GRAPH_VIEW_NONE);
  size_t mg = group(b, lg, "mlp", ETK_GRAPH_VIEW_MODULE);
  size_t inner = l % 4 == 3
                     ? group(b, mg, "XnnpackBackend", ETK_GRAPH_VIEW_PARTITION)
                     : mg;
  size_t f1 = linear(b, "fc1", inner, h2);
  size_t g = node(b, "gelu", "gelu", inner, f1, ETK_GRAPH_VIEW_NONE);
  size_t f2 = linear(b, "fc2", inner, g);
  return node(b, "add", "residual", lg, r, f2);
}

int transformer_graph_make(size_t nodes, int against, transformer_graph_t *t) {
  memset(t, 0, sizeof *t);
  if (nodes < 2) nodes = 2;
  t->nodes = calloc(nodes, sizeof *t->nodes);
  t->edges = calloc(2 * nodes, sizeof *t->edges);
  t->groups = calloc(nodes, sizeof *t->groups);
  t->strings = calloc(5 * nodes + 16, sizeof *t->strings);
  if (!t->nodes || !t->edges || !t->groups || !t->strings) {
    transformer_graph_free(t);
    return -1;
  }
  t->view.nodes = t->nodes;
  t->view.edges = t->edges;
  t->view.groups = t->groups;
  builder_t b = {t, nodes, (size_t)against, 7u, 0};
  size_t x = node(&b, "placeholder", "tokens", ETK_GRAPH_VIEW_NONE,
                  ETK_GRAPH_VIEW_NONE, ETK_GRAPH_VIEW_NONE);
  size_t eg = group(&b, ETK_GRAPH_VIEW_NONE, "embed", 0);
  x = node(&b, "embedding", "embedding", eg, x, ETK_GRAPH_VIEW_NONE);
  for (size_t l = 0; t->view.node_count + 40 <= nodes; l++) x = layer(&b, l, x);
  while (t->view.node_count < nodes)
    x = node(&b, "clone", "output", ETK_GRAPH_VIEW_NONE, x,
             ETK_GRAPH_VIEW_NONE);
  if (b.failed) {
    transformer_graph_free(t);
    return -1;
  }
  return 0;
}

void transformer_graph_free(transformer_graph_t *t) {
  for (size_t i = 0; i < t->string_count; i++) free(t->strings[i]);
  free(t->strings);
  free(t->nodes);
  free(t->edges);
  free(t->groups);
  memset(t, 0, sizeof *t);
}
