/*
 * build.c - from the ETRecord reader's program (etk_etrecord_program_t
 * with its typed arguments and graphs, etkit/etrecord_serde.h) to the
 * graph object of etkit/graph.h: explicit placeholder and output nodes,
 * values with producers and users, edges, TensorMeta and signatures.
 *
 * Two passes over the program:
 *
 *   1. emit: graphs are emitted recursively in the reader's walk order
 *      (a graph's placeholders, then each of its call nodes followed by
 *      the graphs that node owns, then its output node).  Every name a
 *      node produces becomes a value of the node's graph; a name produced
 *      twice, or two nodes of one graph with one name, is an error.
 *      Arguments are converted to etk_graph_arg_t with room for the value
 *      ids, which are still unknown.
 *   2. resolve: in node order, every name an argument uses is looked up in
 *      the node's graph.  A tensor (or custom object, token) that nothing
 *      produces is an error unless ETK_GRAPH_LENIENT_MISSING; a symbol
 *      that nothing produces is a free symbol (no value).  A value whose
 *      producer is not an earlier node is an error (a cycle, or nodes out
 *      of order): so every edge points backwards and the node array is a
 *      topological order.  The (value, user) and (producer, consumer)
 *      pairs collected on the way become the users arrays (counting sort).
 *
 * Graph indices equal the reader's graph indices (one graph record per
 * etk_etrecord_graph_t, same order).  Node and value indices are the
 * positions in the arrays built here.  Everything lands in g->arena;
 * temporaries are malloc'd and freed before returning.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

_Static_assert((int)ETK_GRAPH_ARG_TOKEN == (int)ETK_ETRECORD_ARG_TOKEN,
               "argument kinds of graph.h and etrecord_serde.h must match");
_Static_assert((int)ETK_GRAPH_ARG_GRAPH == (int)ETK_ETRECORD_ARG_GRAPH,
               "argument kinds of graph.h and etrecord_serde.h must match");

typedef struct pair {
  size_t a, b;
} pair_t;

typedef struct builder {
  etk_graph_t *g;
  const etk_etrecord_program_t *p;
  unsigned flags;
  etk_error_t *err;
  const char *member;
  size_t node_cap, value_cap;
  /* CSR: direct reader nodes of each graph; graphs owned by each node */
  size_t *graph_start, *graph_list;
  size_t *owned_start, *owned_list;
  size_t *node_of_record; /* reader node -> graph node */
  /* resolve pass */
  pair_t *value_users;
  size_t value_user_count, value_user_cap;
  pair_t *node_users;
  size_t node_user_count, node_user_cap;
} builder_t;

static int oom(builder_t *b) {
  return etk_error_set_where(b->err, b->member, ETK_E_NO_MEMORY,
                             "out of memory building the graph");
}

static int bad(builder_t *b, int code, const char *fmt, ...)
    ETK_PRINTF_LIKE(3, 4);
static int bad(builder_t *b, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  etk_error_vset(b->err, code, ETK_NO_OFFSET, b->member, fmt, ap);
  va_end(ap);
  return code;
}

/* ------------------------------------------------------------- arguments */

static int convert_arg(builder_t *b, const etk_etrecord_arg_t *in,
                       etk_graph_arg_t *out) {
  memset(out, 0, sizeof *out);
  out->name = in->name ? in->name : "";
  out->kind = (etk_graph_arg_kind_t)in->kind;
  out->tag = in->tag ? in->tag : "";
  out->keyword = in->keyword;
  out->i = in->i;
  out->f = in->f;
  out->s = in->s;
  out->dtype = in->kind == ETK_ETRECORD_ARG_SCALAR_TYPE
                   ? graph_dtype_from_serde(in->i)
                   : -1;
  out->count = in->count;
  out->value_names = in->names;
  out->ints = in->ints;
  out->floats = in->floats;
  out->strings = in->strings;
  out->graph = in->graph;
  if (in->names && in->count) {
    size_t *values = etk_arena_array(&b->g->arena, in->count, sizeof *values);
    if (!values) return oom(b);
    for (size_t k = 0; k < in->count; k++) values[k] = ETK_GRAPH_NONE;
    out->values = values;
  }
  if (in->items && in->count) {
    etk_graph_arg_t *items =
        etk_arena_array(&b->g->arena, in->count, sizeof *items);
    if (!items) return oom(b);
    for (size_t k = 0; k < in->count; k++) {
      int rc = convert_arg(b, &in->items[k], &items[k]);
      if (rc != ETK_OK) return rc;
    }
    out->items = items;
  }
  return ETK_OK;
}

static int convert_args(builder_t *b, const etk_etrecord_arg_t *in, size_t n,
                        const etk_graph_arg_t **out) {
  *out = NULL;
  if (n == 0) return ETK_OK;
  etk_graph_arg_t *args = etk_arena_array(&b->g->arena, n, sizeof *args);
  if (!args) return oom(b);
  for (size_t k = 0; k < n; k++) {
    int rc = convert_arg(b, &in[k], &args[k]);
    if (rc != ETK_OK) return rc;
  }
  *out = args;
  return ETK_OK;
}

static etk_graph_value_kind_t value_kind_of(etk_graph_arg_kind_t kind) {
  switch (kind) {
    case ETK_GRAPH_ARG_SYM_INT:
    case ETK_GRAPH_ARG_SYM_INTS:
      return ETK_GRAPH_VALUE_SYM_INT;
    case ETK_GRAPH_ARG_SYM_BOOL:
    case ETK_GRAPH_ARG_SYM_BOOLS:
      return ETK_GRAPH_VALUE_SYM_BOOL;
    case ETK_GRAPH_ARG_SYM_FLOAT:
    case ETK_GRAPH_ARG_SYM_FLOATS:
      return ETK_GRAPH_VALUE_SYM_FLOAT;
    case ETK_GRAPH_ARG_CUSTOM_OBJ:
      return ETK_GRAPH_VALUE_CUSTOM_OBJ;
    case ETK_GRAPH_ARG_TOKEN:
      return ETK_GRAPH_VALUE_TOKEN;
    default:
      return ETK_GRAPH_VALUE_TENSOR;
  }
}

/* Whether a name that nothing produces is an error for this kind. */
static bool strict_kind(etk_graph_arg_kind_t kind) {
  switch (kind) {
    case ETK_GRAPH_ARG_TENSOR:
    case ETK_GRAPH_ARG_TENSORS:
    case ETK_GRAPH_ARG_OPTIONAL_TENSOR:
    case ETK_GRAPH_ARG_OPTIONAL_TENSORS:
    case ETK_GRAPH_ARG_NESTED_TENSORS:
    case ETK_GRAPH_ARG_TOKEN:
      return true;
    default:
      return false;
  }
}

/* --------------------------------------------------------------- pass 1 */

static etk_graph_node_t *new_node(builder_t *b, size_t *index) {
  etk_graph_t *g = b->g;
  if (g->node_count >= SIZE_MAX / 2) return NULL;
  if (!ETK_VEC_RESERVE(g->nodes, b->node_cap, g->node_count + 1)) return NULL;
  *index = g->node_count++;
  etk_graph_node_t *n = &g->nodes[*index];
  memset(n, 0, sizeof *n);
  n->parent = ETK_GRAPH_NONE;
  n->partition = ETK_GRAPH_NONE;
  n->module_path = n->module_type = n->source = "";
  return n;
}

/* Registers the values an output argument produces (recursively), in
 * order, appending their ids to *ids. */
static int produce(builder_t *b, size_t node, const etk_graph_arg_t *arg,
                   size_t **ids, size_t *count, size_t *cap) {
  etk_graph_t *g = b->g;
  for (size_t k = 0; arg->items && k < arg->count; k++) {
    int rc = produce(b, node, &arg->items[k], ids, count, cap);
    if (rc != ETK_OK) return rc;
  }
  for (size_t k = 0; arg->value_names && k < arg->count; k++) {
    const char *name = arg->value_names[k];
    if (!name) continue;
    size_t graph = g->nodes[node].graph;
    if (!ETK_VEC_RESERVE(g->values, b->value_cap, g->value_count + 1))
      return oom(b);
    size_t vi = g->value_count;
    bool is_new;
    int rc = graph_name_add(&g->value_names, &g->value_of_id,
                            &g->value_of_id_cap, graph, name, vi, &is_new);
    if (rc != ETK_OK)
      return rc == ETK_E_LIMIT ? bad(b, rc, "too many values") : oom(b);
    if (!is_new) {
      size_t other =
          graph_name_find(&g->value_names, g->value_of_id, graph, name);
      return bad(b, ETK_E_FORMAT,
                 "value '%.200s' is produced twice: by node '%.200s' and by "
                 "node '%.200s'",
                 name, g->nodes[g->values[other].producer].name,
                 g->nodes[node].name);
    }
    g->value_count++;
    etk_graph_value_t *v = &g->values[vi];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->kind = value_kind_of(arg->kind);
    v->graph = graph;
    v->producer = node;
    v->output_index = (uint32_t)*count;
    if (v->kind == ETK_GRAPH_VALUE_CUSTOM_OBJ) v->class_fqn = arg->s;
    if (!ETK_VEC_RESERVE(*ids, *cap, *count + 1)) return oom(b);
    (*ids)[(*count)++] = vi;
  }
  return ETK_OK;
}

static int finish_outputs(builder_t *b, size_t node) {
  etk_graph_node_t *n = &b->g->nodes[node];
  size_t *ids = NULL, count = 0, cap = 0;
  const etk_graph_arg_t *outs = n->outputs;
  size_t out_count = n->output_count;
  int rc = ETK_OK;
  for (size_t k = 0; k < out_count && rc == ETK_OK; k++)
    rc = produce(b, node, &outs[k], &ids, &count, &cap);
  if (rc == ETK_OK && count) {
    size_t *a = etk_arena_array(&b->g->arena, count, sizeof *a);
    if (!a) {
      rc = oom(b);
    } else {
      memcpy(a, ids, count * sizeof *a);
      b->g->nodes[node].output_values = a;
      b->g->nodes[node].output_value_count = count;
    }
  }
  free(ids);
  return rc;
}

static int name_node(builder_t *b, size_t node, const char *name) {
  etk_graph_t *g = b->g;
  bool is_new;
  int rc = graph_name_add(&g->node_names, &g->node_of_id, &g->node_of_id_cap,
                          g->nodes[node].graph, name, node, &is_new);
  if (rc != ETK_OK) return oom(b);
  if (!is_new)
    return bad(b, ETK_E_FORMAT,
               "two nodes of graph %zu are named '%.200s' (nodes %zu and %zu)",
               g->nodes[node].graph, name,
               graph_name_find(&g->node_names, g->node_of_id,
                               g->nodes[node].graph, name),
               node);
  g->nodes[node].name = name;
  return ETK_OK;
}

static int emit_placeholder(builder_t *b, size_t gi,
                            const etk_etrecord_arg_t *in, size_t k) {
  size_t index;
  etk_graph_node_t *n = new_node(b, &index);
  if (!n) return oom(b);
  n->kind = ETK_GRAPH_NODE_PLACEHOLDER;
  n->target = n->op = "placeholder";
  n->graph = gi;
  n->depth = b->p->graphs[gi].depth;
  n->parent = b->g->graphs[gi].owner;
  etk_graph_arg_t *out = etk_arena_array(&b->g->arena, 1, sizeof *out);
  if (!out) return oom(b);
  int rc = convert_arg(b, in, out);
  if (rc != ETK_OK) return rc;
  n = &b->g->nodes[index];
  n->outputs = out;
  n->output_count = 1;
  const char *name =
      in->count && in->names && in->names[0] ? in->names[0] : NULL;
  if (!name) {
    char buf[40];
    snprintf(buf, sizeof buf, "arg%zu", k);
    name = etk_arena_strdup(&b->g->arena, buf);
    if (!name) return oom(b);
  }
  rc = name_node(b, index, name);
  return rc != ETK_OK ? rc : finish_outputs(b, index);
}

static void node_origin(builder_t *b, etk_graph_node_t *n,
                        const etk_etrecord_node_t *r) {
  if (r->module_count) {
    const etk_etrecord_module_entry_t *m = &r->modules[r->module_count - 1];
    n->module_path = m->normalized ? m->normalized : "";
    const char *dot = m->type ? strrchr(m->type, '.') : NULL;
    n->module_type = dot ? dot + 1 : (m->type ? m->type : "");
  }
  if (r->stack_trace) {
    char buf[512];
    size_t len = etk_etrecord_node_source(r, false, buf, sizeof buf);
    if (len >= sizeof buf) len = sizeof buf - 1;
    char *s = etk_arena_strndup(&b->g->arena, buf, len);
    if (s) n->source = s;
  }
}

static int emit_graph(builder_t *b, size_t gi);

static int emit_call(builder_t *b, size_t ri, size_t gi) {
  const etk_etrecord_node_t *r = &b->p->nodes[ri];
  size_t index;
  etk_graph_node_t *n = new_node(b, &index);
  if (!n) return oom(b);
  b->node_of_record[ri] = index;
  n->kind = ETK_GRAPH_NODE_CALL;
  n->target = r->target;
  n->op = r->op;
  n->graph = gi;
  n->depth = r->depth;
  n->parent = r->parent == ETK_ETRECORD_NO_PARENT
                  ? ETK_GRAPH_NONE
                  : b->node_of_record[r->parent];
  n->record = r;
  n->debug_handles = r->debug_handles;
  n->debug_handle_count = r->debug_handle_count;
  if (!r->debug_handle_count && r->has_debug_handle) {
    n->debug_handles = &r->debug_handle;
    n->debug_handle_count = 1;
  }
  node_origin(b, n, r);
  const etk_graph_arg_t *args, *outs;
  int rc = convert_args(b, r->input_args, r->input_arg_count, &args);
  if (rc == ETK_OK)
    rc = convert_args(b, r->output_args, r->output_arg_count, &outs);
  if (rc != ETK_OK) return rc;
  n = &b->g->nodes[index];
  n->args = args;
  n->arg_count = r->input_arg_count;
  n->outputs = outs;
  n->output_count = r->output_arg_count;
  const char *name = r->name;
  if (!name || !*name) {
    char buf[48];
    snprintf(buf, sizeof buf, "node_%zu", ri);
    name = etk_arena_strdup(&b->g->arena, buf);
    if (!name) return oom(b);
  }
  rc = name_node(b, index, name);
  if (rc == ETK_OK) rc = finish_outputs(b, index);
  for (size_t k = b->owned_start[ri];
       rc == ETK_OK && k < b->owned_start[ri + 1]; k++)
    rc = emit_graph(b, b->owned_list[k]);
  return rc;
}

static int emit_output(builder_t *b, size_t gi) {
  const etk_etrecord_graph_t *rg = &b->p->graphs[gi];
  size_t index;
  etk_graph_node_t *n = new_node(b, &index);
  if (!n) return oom(b);
  n->kind = ETK_GRAPH_NODE_OUTPUT;
  n->target = n->op = "output";
  n->graph = gi;
  n->depth = rg->depth;
  n->parent = b->g->graphs[gi].owner;
  const etk_graph_arg_t *args;
  int rc = convert_args(b, rg->outputs, rg->output_count, &args);
  if (rc != ETK_OK) return rc;
  n = &b->g->nodes[index];
  n->args = args;
  n->arg_count = rg->output_count;
  /* FX renames the output node when a node took "output" already */
  char name[48] = "output";
  for (unsigned k = 1; graph_name_find(&b->g->node_names, b->g->node_of_id, gi,
                                       name) != ETK_GRAPH_NONE;
       k++)
    snprintf(name, sizeof name, "output_%u", k);
  char *copy = etk_arena_strdup(&b->g->arena, name);
  if (!copy) return oom(b);
  b->g->graphs[gi].output_node = index;
  return name_node(b, index, copy);
}

static int emit_graph(builder_t *b, size_t gi) {
  etk_graph_t *g = b->g;
  const etk_etrecord_graph_t *rg = &b->p->graphs[gi];
  etk_graph_graph_t *G = &g->graphs[gi];
  G->kind = (etk_graph_graph_kind_t)rg->kind;
  G->name = rg->name ? rg->name : "";
  G->owner = rg->owner == ETK_ETRECORD_NO_PARENT ? ETK_GRAPH_NONE
                                                 : b->node_of_record[rg->owner];
  G->depth = rg->depth;
  G->backend = rg->backend;
  G->first_node = g->node_count;
  int rc = ETK_OK;
  if (rg->input_count) {
    size_t *ph = etk_arena_array(&g->arena, rg->input_count, sizeof *ph);
    if (!ph) return oom(b);
    for (size_t k = 0; k < rg->input_count && rc == ETK_OK; k++) {
      ph[k] = g->node_count;
      rc = emit_placeholder(b, gi, &rg->inputs[k], k);
    }
    g->graphs[gi].placeholders = ph;
    g->graphs[gi].placeholder_count = rg->input_count;
  }
  size_t calls = 0;
  for (size_t k = b->graph_start[gi];
       rc == ETK_OK && k < b->graph_start[gi + 1]; k++, calls++)
    rc = emit_call(b, b->graph_list[k], gi);
  if (rc == ETK_OK) rc = emit_output(b, gi);
  g->graphs[gi].call_count = calls;
  g->graphs[gi].end_node = g->node_count;
  return rc;
}

/* CSR of graph -> its direct reader nodes and node -> graphs it owns. */
static int index_program(builder_t *b) {
  const etk_etrecord_program_t *p = b->p;
  size_t gc = p->graph_count, nc = p->node_count;
  b->graph_start = calloc(gc + 1, sizeof *b->graph_start);
  b->graph_list = calloc(nc ? nc : 1, sizeof *b->graph_list);
  b->owned_start = calloc(nc + 1, sizeof *b->owned_start);
  b->owned_list = calloc(gc ? gc : 1, sizeof *b->owned_list);
  b->node_of_record = calloc(nc ? nc : 1, sizeof *b->node_of_record);
  if (!b->graph_start || !b->graph_list || !b->owned_start || !b->owned_list ||
      !b->node_of_record)
    return oom(b);
  for (size_t i = 0; i < nc; i++) {
    if (p->nodes[i].graph >= gc)
      return bad(b, ETK_E_FORMAT, "node %zu names no graph", i);
    b->graph_start[p->nodes[i].graph + 1]++;
  }
  for (size_t k = 1; k < gc; k++) {
    size_t owner = p->graphs[k].owner;
    if (owner >= nc || owner == ETK_ETRECORD_NO_PARENT)
      return bad(b, ETK_E_FORMAT, "nested graph %zu has no owner node", k);
    b->owned_start[owner + 1]++;
  }
  for (size_t k = 0; k < gc; k++) b->graph_start[k + 1] += b->graph_start[k];
  for (size_t k = 0; k < nc; k++) b->owned_start[k + 1] += b->owned_start[k];
  size_t *fill = calloc((gc > nc ? gc : nc) + 1, sizeof *fill);
  if (!fill) return oom(b);
  for (size_t i = 0; i < nc; i++) {
    size_t gi = p->nodes[i].graph;
    b->graph_list[b->graph_start[gi] + fill[gi]++] = i;
  }
  memset(fill, 0, ((gc > nc ? gc : nc) + 1) * sizeof *fill);
  for (size_t k = 1; k < gc; k++) {
    size_t owner = p->graphs[k].owner;
    b->owned_list[b->owned_start[owner] + fill[owner]++] = k;
  }
  free(fill);
  return ETK_OK;
}

/* --------------------------------------------------------------- pass 2 */

static int resolve_arg(builder_t *b, size_t node, etk_graph_arg_t *arg,
                       size_t *stamp, size_t **inputs, size_t *count,
                       size_t *cap) {
  etk_graph_t *g = b->g;
  for (size_t k = 0; arg->items && k < arg->count; k++) {
    int rc = resolve_arg(b, node, (etk_graph_arg_t *)&arg->items[k], stamp,
                         inputs, count, cap);
    if (rc != ETK_OK) return rc;
  }
  for (size_t k = 0; arg->value_names && k < arg->count; k++) {
    const char *name = arg->value_names[k];
    if (!name) continue;
    size_t graph = g->nodes[node].graph;
    size_t v = graph_name_find(&g->value_names, g->value_of_id, graph, name);
    if (v == ETK_GRAPH_NONE) {
      if (!strict_kind(arg->kind) || (b->flags & ETK_GRAPH_LENIENT_MISSING))
        continue;
      return bad(b, ETK_E_FORMAT,
                 "node '%.200s' (argument '%.100s') uses '%.200s', which no "
                 "node or input of its graph produces",
                 g->nodes[node].name, arg->name, name);
    }
    size_t producer = g->values[v].producer;
    if (producer >= node)
      return bad(b, ETK_E_FORMAT,
                 "node '%.200s' uses '%.200s' before node '%.200s' produces "
                 "it: the graph has a cycle or its nodes are out of order",
                 g->nodes[node].name, name, g->nodes[producer].name);
    ((size_t *)arg->values)[k] = v;
    if (!ETK_VEC_RESERVE(b->value_users, b->value_user_cap,
                         b->value_user_count + 1))
      return oom(b);
    b->value_users[b->value_user_count++] = (pair_t){v, node};
    if (stamp[producer] != node + 1) {
      stamp[producer] = node + 1;
      if (!ETK_VEC_RESERVE(*inputs, *cap, *count + 1) ||
          !ETK_VEC_RESERVE(b->node_users, b->node_user_cap,
                           b->node_user_count + 1))
        return oom(b);
      (*inputs)[(*count)++] = producer;
      b->node_users[b->node_user_count++] = (pair_t){producer, node};
    }
  }
  return ETK_OK;
}

/* Pairs (a, b) in b order -> per-a arrays of unique b, in b order. */
static int users_csr(builder_t *b, const pair_t *pairs, size_t n, size_t groups,
                     size_t **start_out, size_t **list_out) {
  size_t *start = calloc(groups + 1, sizeof *start);
  size_t *list = etk_arena_array(&b->g->arena, n ? n : 1, sizeof *list);
  size_t *last = malloc((groups ? groups : 1) * sizeof *last);
  if (!start || !list || !last) {
    free(start);
    free(last);
    return oom(b);
  }
  for (size_t k = 0; k < groups; k++) last[k] = ETK_GRAPH_NONE;
  for (size_t k = 0; k < n; k++)
    if (last[pairs[k].a] != pairs[k].b) {
      last[pairs[k].a] = pairs[k].b;
      start[pairs[k].a + 1]++;
    }
  for (size_t k = 0; k < groups; k++) start[k + 1] += start[k];
  for (size_t k = 0; k < groups; k++) last[k] = ETK_GRAPH_NONE;
  size_t *fill = calloc(groups ? groups : 1, sizeof *fill);
  if (!fill) {
    free(start);
    free(last);
    return oom(b);
  }
  for (size_t k = 0; k < n; k++)
    if (last[pairs[k].a] != pairs[k].b) {
      last[pairs[k].a] = pairs[k].b;
      list[start[pairs[k].a] + fill[pairs[k].a]++] = pairs[k].b;
    }
  free(fill);
  free(last);
  *start_out = start;
  *list_out = list;
  return ETK_OK;
}

static int resolve(builder_t *b) {
  etk_graph_t *g = b->g;
  size_t *stamp = calloc(g->node_count ? g->node_count : 1, sizeof *stamp);
  if (!stamp) return oom(b);
  size_t *inputs = NULL, cap = 0;
  int rc = ETK_OK;
  for (size_t i = 0; i < g->node_count && rc == ETK_OK; i++) {
    etk_graph_node_t *n = &g->nodes[i];
    size_t count = 0;
    for (size_t k = 0; k < n->arg_count && rc == ETK_OK; k++)
      rc = resolve_arg(b, i, (etk_graph_arg_t *)&n->args[k], stamp, &inputs,
                       &count, &cap);
    if (rc == ETK_OK && count) {
      size_t *a = etk_arena_array(&g->arena, count, sizeof *a);
      if (!a) {
        rc = oom(b);
        break;
      }
      memcpy(a, inputs, count * sizeof *a);
      g->nodes[i].inputs = a;
      g->nodes[i].input_count = count;
    }
  }
  free(inputs);
  free(stamp);
  if (rc != ETK_OK) return rc;
  size_t *start, *list;
  rc = users_csr(b, b->value_users, b->value_user_count, g->value_count, &start,
                 &list);
  if (rc != ETK_OK) return rc;
  for (size_t v = 0; v < g->value_count; v++) {
    g->values[v].users = start[v + 1] > start[v] ? list + start[v] : NULL;
    g->values[v].user_count = start[v + 1] - start[v];
  }
  free(start);
  rc = users_csr(b, b->node_users, b->node_user_count, g->node_count, &start,
                 &list);
  if (rc != ETK_OK) return rc;
  for (size_t i = 0; i < g->node_count; i++) {
    g->nodes[i].users = start[i + 1] > start[i] ? list + start[i] : NULL;
    g->nodes[i].user_count = start[i + 1] - start[i];
  }
  free(start);
  return ETK_OK;
}

/* ------------------------------------------------- tensor meta, signature */

static int attach_meta(builder_t *b, size_t gi,
                       const etk_etrecord_tensor_meta_t *m) {
  etk_graph_t *g = b->g;
  size_t v = graph_name_find(&g->value_names, g->value_of_id, gi, m->name);
  if (v == ETK_GRAPH_NONE) return ETK_OK; /* describes nothing we use */
  if (m->malformed)
    return bad(b, ETK_E_FORMAT,
               "tensor_values['%.200s'] is not a valid TensorMeta (dtype, "
               "sizes and strides as lists of at most 64 SymInts)",
               m->name);
  etk_graph_tensor_meta_t *t = &g->values[v].meta;
  t->serde_dtype = m->dtype;
  t->dtype = graph_dtype_from_serde(m->dtype);
  t->dim = m->dim;
  t->sizes = m->sizes;
  t->size_exprs = m->size_exprs;
  t->strides = m->has_strides ? m->strides : NULL;
  t->storage_offset = m->storage_offset;
  t->requires_grad = m->requires_grad;
  t->device = m->device ? m->device : "";
  t->layout = m->layout;
  uint64_t numel = 1;
  for (uint32_t k = 0; k < m->dim; k++) {
    int64_t s = m->sizes[k];
    bool symbolic = m->size_exprs && m->size_exprs[k];
    if (symbolic) {
      t->has_symbolic = true;
      continue;
    }
    if (s < 0)
      return bad(b, ETK_E_LIMIT, "tensor '%.200s' has a negative size %" PRId64,
                 m->name, s);
    if (s != 0 && numel > (uint64_t)INT64_MAX / (uint64_t)s)
      return bad(b, ETK_E_LIMIT,
                 "the sizes of tensor '%.200s' multiply beyond int64", m->name);
    numel *= (uint64_t)s;
  }
  for (uint32_t k = 0; m->has_strides && k < m->dim; k++)
    if (m->stride_exprs && m->stride_exprs[k]) t->has_symbolic = true;
  t->numel = t->has_symbolic ? 0 : numel;
  g->values[v].has_meta = true;
  return ETK_OK;
}

/* Kinds by upstream's tag (the names etk_graph_*_kind_name() give). */
static etk_graph_input_kind_t input_kind(const char *tag) {
  for (int k = 1; k <= (int)ETK_GRAPH_INPUT_CONSTANT; k++)
    if (strcmp(etk_graph_input_kind_name((etk_graph_input_kind_t)k), tag) == 0)
      return (etk_graph_input_kind_t)k;
  return ETK_GRAPH_INPUT_UNKNOWN;
}

static etk_graph_output_kind_t output_kind(const char *tag) {
  for (int k = 1; k <= (int)ETK_GRAPH_OUTPUT_PARAMETER_MUTATION; k++)
    if (strcmp(etk_graph_output_kind_name((etk_graph_output_kind_t)k), tag) ==
        0)
      return (etk_graph_output_kind_t)k;
  return ETK_GRAPH_OUTPUT_UNKNOWN;
}

static int signature(builder_t *b, size_t gi) {
  etk_graph_t *g = b->g;
  const etk_etrecord_graph_t *rg = &b->p->graphs[gi];
  if (!rg->has_signature) return ETK_OK;
  size_t ni = rg->input_spec_count, no = rg->output_spec_count;
  etk_graph_input_spec_t *in =
      ni ? etk_arena_array(&g->arena, ni, sizeof *in) : NULL;
  etk_graph_output_spec_t *out =
      no ? etk_arena_array(&g->arena, no, sizeof *out) : NULL;
  if ((ni && !in) || (no && !out)) return oom(b);
  size_t user = 0;
  for (size_t k = 0; k < ni; k++) {
    const etk_etrecord_spec_t *sp = &rg->input_specs[k];
    etk_graph_input_spec_t *s = &in[k];
    s->kind = input_kind(sp->tag);
    s->name = sp->arg.count && sp->arg.names && sp->arg.names[0]
                  ? sp->arg.names[0]
                  : "";
    s->target = sp->target;
    s->persistent = sp->persistent;
    s->value =
        *s->name ? graph_name_find(&g->value_names, g->value_of_id, gi, s->name)
                 : ETK_GRAPH_NONE;
    s->node = graph_name_find(&g->node_names, g->node_of_id, gi, s->name);
    if (s->node != ETK_GRAPH_NONE &&
        g->nodes[s->node].kind != ETK_GRAPH_NODE_PLACEHOLDER)
      s->node = ETK_GRAPH_NONE;
    s->user_index = s->kind == ETK_GRAPH_INPUT_USER ? user++ : ETK_GRAPH_NONE;
    if (sp->constant) {
      etk_graph_arg_t *c = etk_arena_array(&g->arena, 1, sizeof *c);
      if (!c) return oom(b);
      int rc = convert_arg(b, sp->constant, c);
      if (rc != ETK_OK) return rc;
      s->constant = c;
    }
  }
  user = 0;
  for (size_t k = 0; k < no; k++) {
    const etk_etrecord_spec_t *sp = &rg->output_specs[k];
    etk_graph_output_spec_t *s = &out[k];
    s->kind = output_kind(sp->tag);
    s->name = sp->arg.count && sp->arg.names && sp->arg.names[0]
                  ? sp->arg.names[0]
                  : "";
    s->target = sp->target;
    s->value =
        *s->name ? graph_name_find(&g->value_names, g->value_of_id, gi, s->name)
                 : ETK_GRAPH_NONE;
    etk_graph_arg_t *a = etk_arena_array(&g->arena, 1, sizeof *a);
    if (!a) return oom(b);
    int rc = convert_arg(b, &sp->arg, a);
    if (rc != ETK_OK) return rc;
    if (a->values && a->count && s->value != ETK_GRAPH_NONE)
      ((size_t *)a->values)[0] = s->value;
    s->arg = a;
    s->user_index = s->kind == ETK_GRAPH_OUTPUT_USER ? user++ : ETK_GRAPH_NONE;
  }
  g->graphs[gi].input_specs = in;
  g->graphs[gi].input_spec_count = ni;
  g->graphs[gi].output_specs = out;
  g->graphs[gi].output_spec_count = no;
  return ETK_OK;
}

/* ------------------------------------------------------------------ entry */

int graph_build(etk_graph_t *g, unsigned flags, etk_error_t *err) {
  builder_t b;
  memset(&b, 0, sizeof b);
  b.g = g;
  b.p = g->prog;
  b.flags = flags;
  b.err = err;
  b.member = g->prog->ref.member;
  int rc = ETK_OK;
  if (b.p->graph_count == 0)
    return bad(&b, ETK_E_FORMAT, "the program has no graph");
  g->graph_count = b.p->graph_count;
  g->graphs = etk_arena_array(&g->arena, g->graph_count, sizeof *g->graphs);
  if (!g->graphs) return oom(&b);
  for (size_t k = 0; k < g->graph_count; k++)
    g->graphs[k].owner = g->graphs[k].output_node = ETK_GRAPH_NONE;
  rc = index_program(&b);
  if (rc == ETK_OK) rc = emit_graph(&b, 0);
  if (rc == ETK_OK) rc = resolve(&b);
  for (size_t gi = 0; rc == ETK_OK && gi < g->graph_count; gi++) {
    const etk_etrecord_graph_t *rg = &b.p->graphs[gi];
    for (size_t k = 0; rc == ETK_OK && k < rg->tensor_value_count; k++)
      rc = attach_meta(&b, gi, &rg->tensor_values[k]);
    if (rc == ETK_OK) rc = signature(&b, gi);
  }
  free(b.graph_start);
  free(b.graph_list);
  free(b.owned_start);
  free(b.owned_list);
  free(b.node_of_record);
  free(b.value_users);
  free(b.node_users);
  return rc;
}
