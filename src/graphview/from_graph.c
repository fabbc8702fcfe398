/*
 * from_graph.c - an ETRecord graph (etkit/graph.h) as a graph view
 * description (etk_graph_view_from_graph), and the "memory" overlay.
 *
 * Which nodes are drawn and how groups are made is documented in
 * etkit/graph_view.h.  Groups are found by a string key: the scope
 * ("" for the top graph's modules, "p<k>" inside partition k, "g<k>"
 * inside control-flow graph k) and the module path; a module group is
 * created on first use, its parent (the previous stack entry) always
 * first, so groups come parents first as the writer requires.  A
 * partition's group goes into the innermost module group that all its
 * nodes share (the common prefix of their module stacks, computed in a
 * first pass); inside it, the nodes' remaining stack entries make module
 * groups of the partition's own scope.
 *
 * Strings built here (qualified names, module text, shapes) are malloc'd
 * one by one and listed in strings_, freed together.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "etkit/scalar_type.h"
#include "etkit/status.h"
#include "graph_view_internal.h"

typedef struct builder {
  const etk_graph_t *g;
  const etk_graph_node_t *gn;
  etk_graph_view_build_t *b;
  etk_hash_t group_keys; /* key -> group id (same order as groups_) */
  etk_hash_t names;      /* drawn node names */
  size_t *node_group;    /* per graph node: its view group or NONE */
  size_t *part_of;       /* per graph node: its partition or NONE */
  size_t *part_common;   /* per partition: shared module entries */
  size_t *part_group;    /* per partition: its group, or NONE until made */
  size_t *graph_group;   /* per graph: its control-flow group or NONE */
  int failed;
} builder_t;

static char *keep(builder_t *c, char *s) {
  etk_graph_view_build_t *b = c->b;
  if (!s) {
    c->failed = 1;
    return NULL;
  }
  if (b->string_count_ == b->string_cap_) {
    size_t cap = b->string_cap_ ? 2 * b->string_cap_ : 256;
    char **more = realloc(b->strings_, cap * sizeof *more);
    if (!more) {
      free(s);
      c->failed = 1;
      return NULL;
    }
    b->strings_ = more;
    b->string_cap_ = cap;
  }
  b->strings_[b->string_count_++] = s;
  return s;
}

static char *text(builder_t *c, const char *a, const char *sep, const char *z) {
  size_t la = strlen(a), ls = strlen(sep), lz = strlen(z);
  char *s = malloc(la + ls + lz + 1);
  if (s) {
    memcpy(s, a, la);
    memcpy(s + la, sep, ls);
    memcpy(s + la + ls, z, lz + 1);
  }
  return keep(c, s);
}

static const etk_etrecord_module_entry_t *modules(const etk_graph_node_t *n,
                                                  size_t *count) {
  *count = n->record ? n->record->module_count : 0;
  return n->record ? n->record->modules : NULL;
}

/* Finds or adds the group `key` (parent first). */
static size_t group_for(builder_t *c, const char *key, size_t parent,
                        const char *label, const char *detail,
                        etk_graph_view_group_kind_t kind) {
  uint32_t id;
  bool is_new = false;
  if (etk_hash_put(&c->group_keys, key, strlen(key), &id, &is_new) != ETK_OK) {
    c->failed = 1;
    return ETK_GRAPH_VIEW_NONE;
  }
  if (is_new)
    c->b->groups_[c->b->view.group_count++] = (etk_graph_view_group_t){
        .label = label, .detail = detail, .parent = parent, .kind = kind};
  return id;
}

/* The module groups of entries [from, count) of a stack, under `parent`,
 * in `scope`; returns the innermost. */
static size_t module_chain(builder_t *c, const char *scope,
                           const etk_etrecord_module_entry_t *m, size_t from,
                           size_t count, size_t parent) {
  const char *parent_path = "";
  for (size_t k = 0; k < from && k < count; k++)
    if (m[k].path && m[k].path[0]) parent_path = m[k].path;
  for (size_t k = from; k < count && !c->failed; k++) {
    const char *path = m[k].path ? m[k].path : "";
    if (!path[0]) continue; /* the root module */
    char key[600];
    snprintf(key, sizeof key, "%s\x1f%s", scope, path);
    size_t pl = strlen(parent_path);
    const char *label = path;
    if (pl && strncmp(path, parent_path, pl) == 0 && path[pl] == '.')
      label = path + pl + 1;
    const char *type = m[k].type ? m[k].type : "";
    const char *dot = strrchr(type, '.');
    char *detail = text(c, path, " (", dot ? dot + 1 : type);
    detail = detail ? text(c, detail, ")", "") : NULL;
    parent = group_for(c, key, parent, label, detail, ETK_GRAPH_VIEW_MODULE);
    parent_path = path;
  }
  return parent;
}

/* Common stack prefix of each partition's nodes and call node. */
static void partition_prefixes(builder_t *c) {
  const etk_graph_partition_t *parts = etk_graph_partitions(c->g);
  for (size_t p = 0; p < etk_graph_partition_count(c->g); p++) {
    const etk_etrecord_module_entry_t *ref = NULL;
    size_t common = 0;
    bool first = true;
    for (size_t k = 0; k <= parts[p].node_count; k++) {
      size_t i =
          k < parts[p].node_count ? parts[p].nodes[k] : parts[p].call_node;
      if (i == ETK_GRAPH_NONE || i >= etk_graph_node_count(c->g)) continue;
      c->part_of[i] = p;
      size_t n;
      const etk_etrecord_module_entry_t *m = modules(&c->gn[i], &n);
      if (first) {
        ref = m;
        common = n;
        first = false;
        continue;
      }
      size_t j = 0;
      while (j < common && j < n && ref[j].path && m[j].path &&
             strcmp(ref[j].path, m[j].path) == 0)
        j++;
      common = j;
    }
    c->part_common[p] = common;
  }
}

static size_t partition_group(builder_t *c, size_t p, size_t node) {
  if (c->part_group[p] != ETK_GRAPH_VIEW_NONE) return c->part_group[p];
  const etk_graph_partition_t *part = &etk_graph_partitions(c->g)[p];
  size_t n;
  const etk_etrecord_module_entry_t *m = modules(&c->gn[node], &n);
  size_t outer =
      module_chain(c, "", m, 0, c->part_common[p] < n ? c->part_common[p] : n,
                   ETK_GRAPH_VIEW_NONE);
  char key[64];
  snprintf(key, sizeof key, "p%zu", p);
  const char *backend =
      part->backend && part->backend[0] ? part->backend : "delegate";
  char *detail = text(c, backend, " partition ", part->name ? part->name : "");
  c->part_group[p] =
      group_for(c, key, outer, backend, detail, ETK_GRAPH_VIEW_PARTITION);
  return c->part_group[p];
}

static size_t node_group(builder_t *c, size_t i) {
  const etk_graph_node_t *n = &c->gn[i];
  size_t count;
  const etk_etrecord_module_entry_t *m = modules(n, &count);
  size_t p = c->part_of[i];
  if (p != ETK_GRAPH_NONE) {
    char scope[32];
    snprintf(scope, sizeof scope, "p%zu", p);
    size_t pg = partition_group(c, p, i);
    return module_chain(c, scope, m, c->part_common[p], count, pg);
  }
  if (n->graph != 0 && n->graph < etk_graph_graph_count(c->g)) {
    size_t gg = c->graph_group[n->graph];
    if (gg == ETK_GRAPH_VIEW_NONE) {
      const etk_graph_graph_t *sub = &etk_graph_graphs(c->g)[n->graph];
      size_t owner = sub->owner;
      size_t parent =
          owner != ETK_GRAPH_NONE && owner < etk_graph_node_count(c->g)
              ? c->node_group[owner]
              : ETK_GRAPH_VIEW_NONE;
      char key[64];
      snprintf(key, sizeof key, "g%zu", n->graph);
      gg = c->graph_group[n->graph] = group_for(
          c, key, parent, sub->name && sub->name[0] ? sub->name : "subgraph",
          NULL, ETK_GRAPH_VIEW_MODULE);
    }
    char scope[32];
    snprintf(scope, sizeof scope, "g%zu", n->graph);
    return module_chain(c, scope, m, 0, count, gg);
  }
  return module_chain(c, "", m, 0, count, ETK_GRAPH_VIEW_NONE);
}

static bool drawn(const etk_graph_t *g, const etk_graph_node_t *n, size_t i) {
  if (n->kind == ETK_GRAPH_NODE_CALL) return true;
  if (n->graph != 0) return false;
  if (n->kind == ETK_GRAPH_NODE_OUTPUT) return true;
  const etk_graph_graph_t *top = &etk_graph_graphs(g)[0];
  if (top->input_spec_count == 0) return true;
  for (size_t k = 0; k < top->input_spec_count; k++)
    if (top->input_specs[k].node == i)
      return top->input_specs[k].kind == ETK_GRAPH_INPUT_USER;
  return false;
}

static const char *shape_text(builder_t *c, const etk_graph_node_t *n) {
  char buf[256];
  size_t len = 0;
  buf[0] = 0;
  for (size_t k = 0; k < n->output_value_count && len + 4 < sizeof buf; k++) {
    char one[160];
    etk_graph_value_shape(c->g, n->output_values[k], one, sizeof one);
    if (!one[0]) continue;
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
                            len ? ", " : "", one);
  }
  if (len >= sizeof buf) len = sizeof buf - 1;
  return buf[0] ? text(c, buf, "", "") : NULL;
}

/* data-node: the FX name, qualified when a nested node's name is taken. */
static const char *unique_name(builder_t *c, const etk_graph_node_t *n) {
  const char *name = n->name && n->name[0] ? n->name : "node";
  uint32_t id;
  bool is_new = false;
  const char *try = name;
  for (unsigned k = 0; !c->failed; k++) {
    if (etk_hash_put(&c->names, try, strlen(try), &id, &is_new) != ETK_OK) {
      c->failed = 1;
      break;
    }
    if (is_new) return try;
    char suffix[32];
    const etk_graph_graph_t *sub = &etk_graph_graphs(c->g)[n->graph];
    if (k == 0 && n->graph != 0 && sub->name && sub->name[0]) {
      try = text(c, sub->name, "/", name);
    } else {
      snprintf(suffix, sizeof suffix, "#%u", k + 1);
      try = text(c, name, "", suffix);
    }
    if (!try) break;
  }
  return NULL;
}

static void fill_node(builder_t *c, size_t i, const etk_graph_view_values_t *v,
                      etk_graph_view_node_t *out) {
  const etk_graph_node_t *n = &c->gn[i];
  memset(out, 0, sizeof *out);
  out->name = unique_name(c, n);
  out->op = n->op;
  if (n->kind == ETK_GRAPH_NODE_PLACEHOLDER) out->label = "input";
  if (n->kind == ETK_GRAPH_NODE_OUTPUT) out->label = "output";
  out->io =
      n->kind == ETK_GRAPH_NODE_PLACEHOLDER || n->kind == ETK_GRAPH_NODE_OUTPUT;
  if (n->module_path && n->module_path[0]) {
    out->module = n->module_path;
    if (n->module_type && n->module_type[0]) {
      char *t = text(c, n->module_path, " (", n->module_type);
      out->module = t ? text(c, t, ")", "") : NULL;
    }
  }
  out->source = n->source && n->source[0] ? n->source : NULL;
  out->shape = shape_text(c, n);
  out->group = c->node_group[i];
  /* a program's graph: its folded constants and literals */
  char *args = etk_graph_program(c->g) ? gv_program_args(c->g, i) : NULL;
  if (args) out->args = keep(c, args);
  char *label = etk_graph_program(c->g) ? gv_program_label(c->g, i) : NULL;
  if (label) out->label = keep(c, label);
  if (!v) return;
  if (v->value) {
    out->value = v->value[i];
    /* +inf is a value (the SNR of identical outputs), NaN is none */
    out->has_value =
        (v->has_value ? v->has_value[i] : true) && !isnan(v->value[i]);
  }
  if (v->faint) out->faint = v->faint[i];
  if (v->a) {
    out->a = v->a[i];
    out->has_a = (v->has_a ? v->has_a[i] : true) && isfinite(v->a[i]);
  }
  if (v->b) {
    out->b = v->b[i];
    out->has_b = (v->has_b ? v->has_b[i] : true) && isfinite(v->b[i]);
  }
  if (v->figures) out->figures = v->figures[i];
}

static int build(builder_t *c, const etk_graph_view_values_t *v) {
  const etk_graph_t *g = c->g;
  etk_graph_view_build_t *b = c->b;
  size_t n = etk_graph_node_count(g), parts = etk_graph_partition_count(g);
  size_t graphs = etk_graph_graph_count(g), edges = 0;
  for (size_t i = 0; i < n; i++) edges += c->gn[i].input_count;
  b->nodes_ = calloc(n + 1, sizeof *b->nodes_);
  b->graph_node = calloc(n + 1, sizeof *b->graph_node);
  b->edges_ = calloc(edges + 1, sizeof *b->edges_);
  /* at most one group per stack entry of each node, per partition and
   * per graph */
  size_t group_cap = parts + graphs + 1;
  for (size_t i = 0; i < n; i++)
    group_cap += c->gn[i].record ? c->gn[i].record->module_count : 0;
  b->groups_ = calloc(group_cap, sizeof *b->groups_);
  c->node_group = malloc((n + 1) * sizeof *c->node_group);
  c->part_of = malloc((n + 1) * sizeof *c->part_of);
  c->part_common = calloc(parts + 1, sizeof *c->part_common);
  c->part_group = malloc((parts + 1) * sizeof *c->part_group);
  c->graph_group = malloc((graphs + 1) * sizeof *c->graph_group);
  size_t *view_index = malloc((n + 1) * sizeof *view_index);
  if (!b->nodes_ || !b->graph_node || !b->edges_ || !b->groups_ ||
      !c->node_group || !c->part_of || !c->part_common || !c->part_group ||
      !c->graph_group || !view_index) {
    free(view_index);
    return ETK_E_NO_MEMORY;
  }
  for (size_t i = 0; i < n; i++) {
    c->node_group[i] = ETK_GRAPH_VIEW_NONE;
    c->part_of[i] = c->gn[i].partition;
    view_index[i] = ETK_GRAPH_VIEW_NONE;
  }
  for (size_t p = 0; p < parts; p++) c->part_group[p] = ETK_GRAPH_VIEW_NONE;
  for (size_t k = 0; k < graphs; k++) c->graph_group[k] = ETK_GRAPH_VIEW_NONE;
  partition_prefixes(c);
  /* top-graph names first, so they keep their FX names */
  for (int pass = 0; pass < 2 && !c->failed; pass++)
    for (size_t i = 0; i < n && !c->failed; i++) {
      const etk_graph_node_t *node = &c->gn[i];
      if ((node->graph == 0) != (pass == 0) || !drawn(g, node, i)) continue;
      c->node_group[i] = node_group(c, i);
      size_t k = b->view.node_count++;
      view_index[i] = k;
      b->graph_node[k] = i;
      fill_node(c, i, v, &b->nodes_[k]);
    }
  /* a partition's own value: the DELEGATE_CALL around its nodes */
  for (size_t i = 0; v && v->call_value && i < n; i++) {
    size_t part = c->part_of[i];
    if (part == ETK_GRAPH_NONE || part >= parts || isnan(v->call_value[i]) ||
        c->part_group[part] == ETK_GRAPH_VIEW_NONE)
      continue;
    etk_graph_view_group_t *gr = &b->groups_[c->part_group[part]];
    if (!gr->has_value) {
      gr->has_value = true;
      gr->value = v->call_value[i];
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (view_index[i] == ETK_GRAPH_VIEW_NONE) continue;
    for (size_t k = 0; k < c->gn[i].input_count; k++) {
      size_t from = c->gn[i].inputs[k];
      if (from < n && view_index[from] != ETK_GRAPH_VIEW_NONE && from != i)
        b->edges_[b->view.edge_count++] =
            (etk_graph_view_edge_t){view_index[from], view_index[i]};
    }
  }
  free(view_index);
  b->view.nodes = b->nodes_;
  b->view.edges = b->edges_;
  b->view.groups = b->groups_;
  return c->failed ? ETK_E_NO_MEMORY : ETK_OK;
}

int etk_graph_view_from_graph(const etk_graph_t *g,
                              const etk_graph_view_values_t *v,
                              etk_graph_view_build_t *out, etk_error_t *err) {
  if (!out) return etk_error_set(err, ETK_E_INVALID_ARGUMENT, 0, "no output");
  memset(out, 0, sizeof *out);
  if (!g) return etk_error_set(err, ETK_E_INVALID_ARGUMENT, 0, "no graph");
  builder_t c = {.g = g, .gn = etk_graph_nodes(g), .b = out};
  etk_hash_init(&c.group_keys);
  etk_hash_init(&c.names);
  int rc = build(&c, v);
  etk_hash_free(&c.group_keys);
  etk_hash_free(&c.names);
  free(c.node_group);
  free(c.part_of);
  free(c.part_common);
  free(c.part_group);
  free(c.graph_group);
  if (rc != ETK_OK) {
    etk_graph_view_build_free(out);
    return etk_error_set(err, rc, 0, "graph view of the ETRecord graph");
  }
  return ETK_OK;
}

void etk_graph_view_build_free(etk_graph_view_build_t *b) {
  if (!b) return;
  for (size_t i = 0; i < b->string_count_; i++) free(b->strings_[i]);
  free(b->strings_);
  free(b->nodes_);
  free(b->edges_);
  free(b->groups_);
  free(b->graph_node);
  memset(b, 0, sizeof *b);
}

void etk_graph_view_output_bytes(const etk_graph_t *g, double *values,
                                 bool *has_value) {
  const etk_graph_node_t *nodes = etk_graph_nodes(g);
  const etk_graph_value_t *vals = etk_graph_values(g);
  size_t nv = etk_graph_value_count(g);
  for (size_t i = 0; i < etk_graph_node_count(g); i++) {
    double bytes = 0;
    bool any = false;
    for (size_t k = 0; k < nodes[i].output_value_count; k++) {
      size_t id = nodes[i].output_values[k];
      if (id >= nv || !vals[id].has_meta ||
          vals[id].kind != ETK_GRAPH_VALUE_TENSOR || vals[id].meta.has_symbolic)
        continue;
      size_t es = etk_scalar_type_size(vals[id].meta.dtype);
      if (!es) continue;
      bytes += (double)vals[id].meta.numel * (double)es;
      any = true;
    }
    values[i] = any ? bytes : NAN;
    has_value[i] = any;
  }
}
