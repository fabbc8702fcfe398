/*
 * delegation.c - how much of a program was delegated, as upstream's
 * devtools/backend_debug/delegation_info.py counts it
 * (get_delegation_info over the edge program's graph module):
 *
 *   - every call_function node of the top graph whose op type is not
 *     executorch_call_delegate is a non-delegated occurrence (the getitems
 *     of a delegate call's outputs are);
 *   - every lowered module of the top graph is a delegated subgraph, and
 *     each call_function node of its original program's own graph a
 *     delegated occurrence;
 *   - the op type is the FX node name without a "_<digits>" suffix
 *     (upstream's re.sub(r"_[\d]+$", "", name)); the getitem nodes torch's
 *     deserialisation adds after a multi-output node count as well (named
 *     after the values they stand for, as FX names them).
 *
 * Beyond upstream: per backend, its subgraphs and delegated nodes.
 * Op types are sorted by name (upstream's DataFrame is sorted by op_type).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

bool graph_node_has_getitems(const etk_graph_node_t *n) {
  if (n->kind != ETK_GRAPH_NODE_CALL || n->output_value_count == 0)
    return false;
  if (n->output_count > 1) return true;
  switch (n->outputs[0].kind) {
    case ETK_GRAPH_ARG_TENSORS:
    case ETK_GRAPH_ARG_OPTIONAL_TENSORS:
    case ETK_GRAPH_ARG_SYM_INTS:
    case ETK_GRAPH_ARG_SYM_BOOLS:
    case ETK_GRAPH_ARG_SYM_FLOATS:
    case ETK_GRAPH_ARG_NESTED_TENSORS:
      return true;
    default:
      return false;
  }
}

/* Length of `name` without a trailing "_<digits>". */
static size_t op_type_len(const char *name) {
  size_t n = strlen(name), k = n;
  while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') k--;
  return k < n && k > 0 && name[k - 1] == '_' ? k - 1 : n;
}

typedef struct tally {
  etk_graph_delegation_t *d;
  size_t cap_ops, cap_backends;
  int failed;
} tally_t;

static void count(tally_t *t, const char *name, bool delegated) {
  if (t->failed || !name) return;
  size_t len = op_type_len(name);
  etk_graph_delegation_t *d = t->d;
  size_t i = 0;
  while (i < d->op_count && (strlen(d->ops[i].op_type) != len ||
                             memcmp(d->ops[i].op_type, name, len) != 0))
    i++;
  if (i == d->op_count) {
    if (d->op_count == t->cap_ops) {
      size_t cap = t->cap_ops ? 2 * t->cap_ops : 16;
      etk_graph_delegation_op_t *grown = realloc(d->ops, cap * sizeof *grown);
      if (!grown) {
        t->failed = 1;
        return;
      }
      d->ops = grown;
      t->cap_ops = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
      t->failed = 1;
      return;
    }
    memcpy(copy, name, len);
    copy[len] = '\0';
    memset(&d->ops[i], 0, sizeof d->ops[i]);
    d->ops[i].op_type = copy;
    d->op_count++;
  }
  if (delegated) {
    d->ops[i].delegated++;
    d->num_delegated_nodes++;
  } else {
    d->ops[i].non_delegated++;
    d->num_non_delegated_nodes++;
  }
}

/* A node and the getitem nodes deserialisation adds after it. */
static void count_node(tally_t *t, const etk_graph_t *g,
                       const etk_graph_node_t *n, bool delegated,
                       bool skip_self) {
  if (!skip_self) count(t, n->name, delegated);
  if (!graph_node_has_getitems(n)) return;
  for (size_t k = 0; k < n->output_value_count; k++)
    count(t, g->values[n->output_values[k]].name, delegated);
}

static etk_graph_delegation_backend_t *backend_of(tally_t *t,
                                                  const char *name) {
  etk_graph_delegation_t *d = t->d;
  name = name ? name : "";
  for (size_t i = 0; i < d->backend_count; i++)
    if (strcmp(d->backends[i].backend, name) == 0) return &d->backends[i];
  if (d->backend_count == t->cap_backends) {
    size_t cap = t->cap_backends ? 2 * t->cap_backends : 4;
    etk_graph_delegation_backend_t *grown =
        realloc(d->backends, cap * sizeof *grown);
    if (!grown) return NULL;
    d->backends = grown;
    t->cap_backends = cap;
  }
  etk_graph_delegation_backend_t *b = &d->backends[d->backend_count++];
  memset(b, 0, sizeof *b);
  b->backend = name;
  return b;
}

static int cmp_op(const void *x, const void *y) {
  const etk_graph_delegation_op_t *a = x, *b = y;
  return strcmp(a->op_type, b->op_type);
}

int etk_graph_delegation_build(const etk_graph_t *g,
                               etk_graph_delegation_t *out, etk_error_t *err) {
  memset(out, 0, sizeof *out);
  tally_t t = {out, 0, 0, 0};
  for (size_t i = 0; i < g->node_count; i++) {
    const etk_graph_node_t *n = &g->nodes[i];
    if (n->graph != 0 || n->kind != ETK_GRAPH_NODE_CALL) continue;
    /* a delegate call is no occurrence; its getitems are */
    size_t len = op_type_len(n->name);
    bool call = len == strlen("executorch_call_delegate") &&
                memcmp(n->name, "executorch_call_delegate", len) == 0;
    count_node(&t, g, n, false, call);
  }
  for (size_t k = 0; k < g->graph_count && !t.failed; k++) {
    const etk_graph_graph_t *sub = &g->graphs[k];
    if (sub->kind != ETK_GRAPH_GRAPH_LOWERED || sub->owner == ETK_GRAPH_NONE ||
        g->nodes[sub->owner].graph != 0)
      continue;
    out->num_delegated_subgraphs++;
    size_t before = out->num_delegated_nodes;
    for (size_t i = sub->first_node; i < sub->end_node; i++) {
      const etk_graph_node_t *n = &g->nodes[i];
      if (n->graph == k && n->kind == ETK_GRAPH_NODE_CALL)
        count_node(&t, g, n, true, false);
    }
    etk_graph_delegation_backend_t *b = backend_of(&t, sub->backend);
    if (!b) t.failed = 1;
    if (b) {
      b->subgraphs++;
      b->delegated_nodes += out->num_delegated_nodes - before;
    }
  }
  if (t.failed) {
    etk_graph_delegation_free(out);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory counting delegated nodes");
  }
  if (out->op_count > 1)
    qsort(out->ops, out->op_count, sizeof *out->ops, cmp_op);
  return ETK_OK;
}

void etk_graph_delegation_free(etk_graph_delegation_t *d) {
  if (!d) return;
  for (size_t i = 0; i < d->op_count; i++) free((char *)d->ops[i].op_type);
  free(d->ops);
  free(d->backends);
  memset(d, 0, sizeof *d);
}
