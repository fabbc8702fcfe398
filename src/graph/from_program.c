/*
 * from_program.c - a program (.pte) alone as the graph object of
 * etkit/graph.h: one call node per KernelCall / DelegateCall instruction,
 * the method's inputs as placeholders, its outputs as the output node,
 * values as the edges between them, constants folded (docs/graph-view.md,
 * "a program alone").
 *
 * One pass over the chains in instruction order.  `current[v]` is the
 * graph value program value v holds at this point of the walk (NONE while
 * nothing wrote it, and for constants): an argument read by an
 * instruction takes the current value, an out argument makes a new graph
 * value ("v12", then "v12.1" when written again), so every edge points to
 * an earlier node and the node array is a topological order, the
 * invariant the ETRecord graph has.  A folded MoveCall makes its target
 * continue the source's current value.
 *
 * Node and value arrays are malloc'd as the ETRecord builder's are
 * (etk_graph_free() frees them); everything else (arguments, edges, the
 * instruction maps) lives in the graph's arena.  The pairs (value, user)
 * and (producer, consumer) collected on the way become the users arrays
 * at the end (counting sort).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/program.h"
#include "etkit/program_schema.h"
#include "etkit/scalar_type.h"
#include "internal.h"

typedef struct use {
  size_t from, to; /* value -> user node, or producer -> consumer node */
} use_t;

typedef struct pbuild {
  etk_graph_t *g;
  const etk_program_plan_t *plan;
  unsigned flags;
  etk_error_t *err;
  size_t *current;  /* per program value: its graph value or NONE */
  uint32_t *writes; /* per program value: how often it was written */
  size_t value_cap;
  ETK_VEC(use_t) value_users;
  ETK_VEC(use_t) node_inputs;
  /* planned memory (memory id, offset) -> the last graph value written
   * there, for the views the emitter turned into shared memory */
  etk_hash_t placed;
  size_t *placed_value;
  size_t placed_cap;
} pbuild_t;

static int oom(pbuild_t *b) {
  return etk_error_set(b->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                       "out of memory building the program's graph");
}

void etk_graph_program_options_default(etk_graph_program_options_t *opts) {
  memset(opts, 0, sizeof *opts);
}

const etk_graph_program_t *etk_graph_program(const etk_graph_t *g) {
  return g ? g->program : NULL;
}

size_t etk_graph_instruction_node(const etk_graph_t *g, int64_t chain,
                                  int64_t instruction) {
  const etk_graph_program_t *p = etk_graph_program(g);
  if (!p || chain < 0 || (uint64_t)chain >= p->chain_count || instruction < 0)
    return ETK_GRAPH_NONE;
  size_t first = p->chain_first[chain], end = p->chain_first[chain + 1];
  if ((uint64_t)instruction >= end - first) return ETK_GRAPH_NONE;
  return p->instruction_node[first + (size_t)instruction];
}

/* A tensor whose data the program carries (or a .ptd file does): folded
 * into its users' arguments, never a value of the graph. */
static bool is_constant(const etk_program_value_t *v) {
  if (v->tag != ETK_PTE_KT_TENSOR || !v->u.tensor) return false;
  const etk_program_tensor_t *t = v->u.tensor;
  return t->external || (t->data_buffer_idx > 0 && !t->planned);
}

/* The key of a planned tensor's place. */
static size_t place_key(const etk_program_tensor_t *t, uint8_t key[12]) {
  memcpy(key, &t->memory_id, 4);
  memcpy(key + 4, &t->memory_offset, 8);
  return 12;
}

static const etk_program_tensor_t *planned_tensor(const pbuild_t *b,
                                                  uint32_t pv) {
  const etk_program_value_t *v = &b->plan->values[pv];
  if (v->tag != ETK_PTE_KT_TENSOR || !v->u.tensor || !v->u.tensor->planned)
    return NULL;
  return v->u.tensor;
}

/* Program value pv's graph value.  A planned tensor that nothing wrote and
 * that has no initial data, placed where a tensor of the same dtype and
 * size was last written, is that tensor: the emitter removes view_copy
 * and similar ops by planning their output onto their input. */
static size_t current_of(pbuild_t *b, uint32_t pv) {
  if (b->current[pv] != ETK_GRAPH_NONE) return b->current[pv];
  const etk_program_tensor_t *t = planned_tensor(b, pv);
  if (!t || t->data) return ETK_GRAPH_NONE;
  uint8_t key[12];
  uint32_t id = etk_hash_find(&b->placed, key, place_key(t, key));
  if (id == ETK_HASH_NONE) return ETK_GRAPH_NONE;
  size_t v = b->placed_value[id];
  const etk_graph_value_t *gv = &b->g->values[v];
  if (!gv->has_meta || gv->meta.dtype != t->scalar_type ||
      gv->meta.numel * etk_scalar_type_size(t->scalar_type) != t->nbytes)
    return ETK_GRAPH_NONE;
  b->current[pv] = v;
  return v;
}

/* Remembers where graph value v (program value pv) was written. */
static int place(pbuild_t *b, uint32_t pv, size_t v) {
  const etk_program_tensor_t *t = planned_tensor(b, pv);
  if (!t) return ETK_OK;
  uint8_t key[12];
  uint32_t id;
  bool is_new;
  if (!ETK_VEC_RESERVE(b->placed_value, b->placed_cap,
                       etk_hash_count(&b->placed) + 1) ||
      etk_hash_put(&b->placed, key, place_key(t, key), &id, &is_new) != ETK_OK)
    return oom(b);
  b->placed_value[id] = v;
  return ETK_OK;
}

static etk_graph_value_kind_t kind_of(int32_t tag) {
  switch (tag) {
    case ETK_PTE_KT_INT:
      return ETK_GRAPH_VALUE_SYM_INT;
    case ETK_PTE_KT_BOOL:
      return ETK_GRAPH_VALUE_SYM_BOOL;
    case ETK_PTE_KT_DOUBLE:
      return ETK_GRAPH_VALUE_SYM_FLOAT;
    default:
      return ETK_GRAPH_VALUE_TENSOR;
  }
}

/* The TensorMeta of a program tensor (contiguous strides from its dim
 * order). */
static int tensor_meta(pbuild_t *b, const etk_program_tensor_t *t,
                       etk_graph_tensor_meta_t *m) {
  etk_arena_t *a = &b->g->arena;
  memset(m, 0, sizeof *m);
  m->serde_dtype = -1;
  m->dtype = t->scalar_type;
  m->dim = t->dim;
  int64_t *sizes = etk_arena_array(a, t->dim ? t->dim : 1, sizeof *sizes);
  int64_t *strides = etk_arena_array(a, t->dim ? t->dim : 1, sizeof *strides);
  if (!sizes || !strides) return oom(b);
  uint64_t numel = 1;
  for (uint32_t k = 0; k < t->dim; k++) {
    sizes[k] = t->sizes[k];
    numel *= (uint64_t)t->sizes[k];
  }
  /* dim_order lists the dimensions outermost first */
  int64_t stride = 1;
  for (uint32_t k = t->dim; k-- > 0;) {
    uint32_t d = t->dim_order ? t->dim_order[k] : k;
    if (d >= t->dim) d = k;
    strides[d] = stride;
    stride *= t->sizes[d] > 0 ? t->sizes[d] : 1;
  }
  m->sizes = sizes;
  m->strides = strides;
  m->storage_offset = t->storage_offset;
  m->numel = numel;
  m->requires_grad = t->requires_grad;
  m->device = "cpu";
  m->layout = 7; /* Strided */
  return ETK_OK;
}

/* A new graph value for program value `pv`, produced by `node` as its
 * output `index`; it becomes the current value of pv. */
static int new_value(pbuild_t *b, uint32_t pv, size_t node, uint32_t index,
                     size_t *out) {
  etk_graph_t *g = b->g;
  if (g->value_count >= ETK_GRAPH_PROGRAM_MAX_NODES)
    return etk_error_set(b->err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "the program's graph has more than %u values",
                         ETK_GRAPH_PROGRAM_MAX_NODES);
  if (!ETK_VEC_RESERVE(g->values, b->value_cap, g->value_count + 1))
    return oom(b);
  char name[48];
  if (b->writes[pv])
    snprintf(name, sizeof name, "v%" PRIu32 ".%" PRIu32, pv, b->writes[pv]);
  else
    snprintf(name, sizeof name, "v%" PRIu32, pv);
  b->writes[pv]++;
  size_t id = g->value_count;
  etk_graph_value_t *v = &g->values[id];
  memset(v, 0, sizeof *v);
  const etk_program_value_t *src = &b->plan->values[pv];
  v->name = etk_arena_strdup(&g->arena, name);
  if (!v->name) return oom(b);
  v->kind = kind_of(src->tag);
  v->graph = 0;
  v->producer = node;
  v->output_index = index;
  if (src->tag == ETK_PTE_KT_TENSOR && src->u.tensor) {
    int rc = tensor_meta(b, src->u.tensor, &v->meta);
    if (rc != ETK_OK) return rc;
    v->has_meta = true;
  }
  bool is_new;
  int rc = graph_name_add(&g->value_names, &g->value_of_id, &g->value_of_id_cap,
                          0, v->name, id, &is_new);
  if (rc != ETK_OK) return oom(b);
  g->value_count++;
  b->current[pv] = id;
  *out = id;
  return place(b, pv, id);
}

/* The name a value argument shows: the current value's, or "v<pv>" for a
 * constant or a value nothing wrote yet. */
static const char *value_name(pbuild_t *b, uint32_t pv) {
  size_t cur = current_of(b, pv);
  if (cur != ETK_GRAPH_NONE) return b->g->values[cur].name;
  char name[24];
  snprintf(name, sizeof name, "v%" PRIu32, pv);
  return etk_arena_strdup(&b->g->arena, name);
}

/* Records that `node` reads program value pv (when it holds a value;
 * `node` NONE: an out argument naming what was written, no edge). */
static int use(pbuild_t *b, size_t node, uint32_t pv, size_t *value) {
  size_t cur = current_of(b, pv);
  *value = cur;
  if (cur == ETK_GRAPH_NONE || node == ETK_GRAPH_NONE) return ETK_OK;
  use_t vu = {cur, node}, nu = {b->g->values[cur].producer, node};
  if (!ETK_VEC_PUSH(b->value_users, vu) || !ETK_VEC_PUSH(b->node_inputs, nu))
    return oom(b);
  return ETK_OK;
}

/* Room for `count` value references of an argument. */
static int arg_values(pbuild_t *b, etk_graph_arg_t *a, size_t count,
                      size_t **values, const char ***names) {
  etk_arena_t *ar = &b->g->arena;
  *values = etk_arena_array(ar, count ? count : 1, sizeof **values);
  *names = etk_arena_array(ar, count ? count : 1, sizeof **names);
  if (!*values || !*names) return oom(b);
  a->count = count;
  a->values = *values;
  a->value_names = *names;
  return ETK_OK;
}

/* Argument `k` (program value pv) of `node` as an input: tensors name their
 * values, produced scalars too, the rest are literals. */
static int input_arg(pbuild_t *b, size_t node, uint32_t k, uint32_t pv,
                     etk_graph_arg_t *a) {
  const etk_program_plan_t *plan = b->plan;
  const etk_program_value_t *v = &plan->values[pv];
  etk_arena_t *ar = &b->g->arena;
  char name[24];
  snprintf(name, sizeof name, "arg%" PRIu32, k);
  memset(a, 0, sizeof *a);
  a->name = etk_arena_strdup(ar, name);
  a->graph = ETK_GRAPH_NONE;
  if (!a->name) return oom(b);
  size_t *vals;
  const char **names;
  int rc = ETK_OK;
  bool produced = current_of(b, pv) != ETK_GRAPH_NONE;
  switch (v->tag) {
    case ETK_PTE_KT_TENSOR:
    case ETK_PTE_KT_INT:
    case ETK_PTE_KT_BOOL:
    case ETK_PTE_KT_DOUBLE:
      if (v->tag != ETK_PTE_KT_TENSOR && !produced) {
        a->kind = v->tag == ETK_PTE_KT_INT    ? ETK_GRAPH_ARG_INT
                  : v->tag == ETK_PTE_KT_BOOL ? ETK_GRAPH_ARG_BOOL
                                              : ETK_GRAPH_ARG_FLOAT;
        /* only the union member of the tag is read */
        if (v->tag == ETK_PTE_KT_INT) a->i = v->u.i;
        if (v->tag == ETK_PTE_KT_BOOL) a->i = v->u.b;
        if (v->tag == ETK_PTE_KT_DOUBLE) a->f = v->u.d;
        break;
      }
      a->kind = v->tag == ETK_PTE_KT_TENSOR ? ETK_GRAPH_ARG_TENSOR
                : v->tag == ETK_PTE_KT_INT  ? ETK_GRAPH_ARG_SYM_INT
                : v->tag == ETK_PTE_KT_BOOL ? ETK_GRAPH_ARG_SYM_BOOL
                                            : ETK_GRAPH_ARG_SYM_FLOAT;
      if ((rc = arg_values(b, a, 1, &vals, &names)) != ETK_OK) break;
      names[0] = value_name(b, pv);
      if (!names[0]) return oom(b);
      rc = use(b, node, pv, &vals[0]);
      break;
    case ETK_PTE_KT_TENSOR_LIST:
    case ETK_PTE_KT_OPTIONAL_TENSOR_LIST: {
      uint32_t n = v->u.tensor_list.count;
      a->kind = v->tag == ETK_PTE_KT_TENSOR_LIST
                    ? ETK_GRAPH_ARG_TENSORS
                    : ETK_GRAPH_ARG_OPTIONAL_TENSORS;
      if ((rc = arg_values(b, a, n, &vals, &names)) != ETK_OK) break;
      for (uint32_t e = 0; e < n && rc == ETK_OK; e++) {
        int32_t item = v->u.tensor_list.items[e];
        vals[e] = ETK_GRAPH_NONE;
        names[e] = NULL; /* None */
        if (item < 0 || (uint32_t)item >= plan->value_count) continue;
        names[e] = value_name(b, (uint32_t)item);
        if (!names[e]) return oom(b);
        rc = use(b, node, (uint32_t)item, &vals[e]);
      }
      break;
    }
    case ETK_PTE_KT_INT_LIST: {
      uint32_t n = v->u.int_list.count;
      int64_t *ints = etk_arena_array(ar, n ? n : 1, sizeof *ints);
      if (!ints) return oom(b);
      a->kind = ETK_GRAPH_ARG_INTS;
      a->count = n;
      a->ints = ints;
      for (uint32_t e = 0; e < n; e++) {
        int64_t item = v->u.int_list.items[e];
        ints[e] = item >= 0 && (uint64_t)item < plan->value_count &&
                          plan->values[item].tag == ETK_PTE_KT_INT
                      ? plan->values[item].u.i
                      : 0;
      }
      break;
    }
    case ETK_PTE_KT_DOUBLE_LIST:
      a->kind = ETK_GRAPH_ARG_FLOATS;
      a->count = v->u.double_list.count;
      a->floats = v->u.double_list.items;
      break;
    case ETK_PTE_KT_BOOL_LIST: {
      uint32_t n = v->u.bool_list.count;
      int64_t *ints = etk_arena_array(ar, n ? n : 1, sizeof *ints);
      if (!ints) return oom(b);
      for (uint32_t e = 0; e < n; e++) ints[e] = v->u.bool_list.items[e] != 0;
      a->kind = ETK_GRAPH_ARG_BOOLS;
      a->count = n;
      a->ints = ints;
      break;
    }
    case ETK_PTE_KT_STRING:
      a->kind = ETK_GRAPH_ARG_STRING;
      a->s = etk_arena_strndup(ar, v->u.string.data, v->u.string.len);
      if (!a->s) return oom(b);
      break;
    default:
      a->kind = ETK_GRAPH_ARG_NONE;
      break;
  }
  return rc;
}

/* Program values argument pv writes: the tensor, or a list's elements. */
static uint32_t written(const etk_program_plan_t *plan, uint32_t pv,
                        const int32_t **items) {
  const etk_program_value_t *v = &plan->values[pv];
  if (v->tag == ETK_PTE_KT_TENSOR_LIST ||
      v->tag == ETK_PTE_KT_OPTIONAL_TENSOR_LIST) {
    *items = v->u.tensor_list.items;
    return v->u.tensor_list.count;
  }
  *items = NULL;
  return v->tag == ETK_PTE_KT_NULL || v->tag == ETK_PTE_KT_NONE ? 0 : 1;
}

/* Makes the values a node writes (arguments [first, first + count) of
 * args) and its outputs: one argument per out argument, naming them. */
static int write_outputs(pbuild_t *b, size_t node, const int32_t *args,
                         uint32_t first, uint32_t count) {
  etk_graph_node_t *n = &b->g->nodes[node];
  etk_arena_t *ar = &b->g->arena;
  size_t total = 0;
  for (uint32_t k = 0; k < count; k++) {
    const int32_t *items;
    total += written(b->plan, (uint32_t)args[first + k], &items);
  }
  etk_graph_arg_t *outs = etk_arena_array(ar, count ? count : 1, sizeof *outs);
  size_t *flat = etk_arena_array(ar, total ? total : 1, sizeof *flat);
  if (!outs || !flat) return oom(b);
  size_t at = 0;
  for (uint32_t k = 0; k < count; k++) {
    uint32_t pv = (uint32_t)args[first + k];
    const int32_t *items;
    uint32_t w = written(b->plan, pv, &items);
    etk_graph_arg_t *a = &outs[k];
    memset(a, 0, sizeof *a);
    a->name = "";
    a->graph = ETK_GRAPH_NONE;
    int32_t tag = b->plan->values[pv].tag;
    a->kind = items                      ? ETK_GRAPH_ARG_TENSORS
              : tag == ETK_PTE_KT_INT    ? ETK_GRAPH_ARG_SYM_INT
              : tag == ETK_PTE_KT_BOOL   ? ETK_GRAPH_ARG_SYM_BOOL
              : tag == ETK_PTE_KT_DOUBLE ? ETK_GRAPH_ARG_SYM_FLOAT
              : w                        ? ETK_GRAPH_ARG_TENSOR
                                         : ETK_GRAPH_ARG_NONE;
    size_t *vals;
    const char **names;
    int rc = arg_values(b, a, w, &vals, &names);
    for (uint32_t e = 0; e < w && rc == ETK_OK; e++) {
      int32_t target = items ? items[e] : (int32_t)pv;
      vals[e] = ETK_GRAPH_NONE;
      names[e] = NULL;
      if (target < 0 || (uint32_t)target >= b->plan->value_count) continue;
      rc = new_value(b, (uint32_t)target, node, (uint32_t)at, &vals[e]);
      if (rc == ETK_OK) {
        names[e] = b->g->values[vals[e]].name;
        flat[at++] = vals[e];
      }
    }
    if (rc != ETK_OK) return rc;
  }
  n->outputs = outs;
  n->output_count = count;
  n->output_values = flat;
  n->output_value_count = at;
  return ETK_OK;
}

/* A DelegateCall's outputs: its trailing tensor arguments that nothing has
 * written yet (the emitter passes inputs and constants first, outputs
 * last). */
static void delegate_outputs(const pbuild_t *b, const int32_t *args, uint32_t n,
                             uint32_t *first, uint32_t *count) {
  uint32_t k = n;
  while (k > 0) {
    uint32_t pv = (uint32_t)args[k - 1];
    const etk_program_value_t *v = &b->plan->values[pv];
    const int32_t *items;
    uint32_t w = written(b->plan, pv, &items);
    bool fresh = v->tag == ETK_PTE_KT_TENSOR || items;
    for (uint32_t e = 0; fresh && e < w; e++) {
      int32_t t = items ? items[e] : (int32_t)pv;
      fresh = t >= 0 && (uint32_t)t < b->plan->value_count &&
              b->current[t] == ETK_GRAPH_NONE &&
              !is_constant(&b->plan->values[t]);
    }
    if (!fresh) break;
    k--;
  }
  *first = k;
  *count = n - k;
}

/* "file:line" of the innermost frame of instruction i's stack trace. */
static const char *instruction_source(pbuild_t *b,
                                      const etk_program_chain_t *chain,
                                      uint32_t i) {
  if (!chain->stacktrace || i >= chain->stacktrace_count) return "";
  const etk_program_frame_list_t *fl = &chain->stacktrace[i];
  for (uint32_t k = fl->count; k-- > 0;) {
    const etk_program_frame_t *f = &fl->frames[k];
    if (!f->filename || !f->filename[0]) continue;
    const char *base = strrchr(f->filename, '/');
    char text[320];
    snprintf(text, sizeof text, "%.280s:%" PRId32,
             base ? base + 1 : f->filename, f->lineno);
    const char *s = etk_arena_strdup(&b->g->arena, text);
    return s ? s : "";
  }
  return "";
}

static etk_graph_node_t *new_node(pbuild_t *b, etk_graph_node_kind_t kind,
                                  const char *name, size_t *index) {
  etk_graph_t *g = b->g;
  *index = g->node_count;
  etk_graph_node_t *n = &g->nodes[g->node_count];
  memset(n, 0, sizeof *n);
  n->kind = kind;
  n->name = etk_arena_strdup(&g->arena, name);
  n->graph = 0;
  n->parent = ETK_GRAPH_NONE;
  n->partition = ETK_GRAPH_NONE;
  n->module_path = n->module_type = n->source = "";
  bool is_new;
  if (!n->name ||
      graph_name_add(&g->node_names, &g->node_of_id, &g->node_of_id_cap, 0,
                     n->name, *index, &is_new) != ETK_OK) {
    oom(b);
    return NULL;
  }
  g->node_count++;
  return n;
}

/* The op of an operator: "aten::add.out" -> "aten.add.out". */
static const char *operator_op(pbuild_t *b, const etk_program_operator_t *o) {
  const char *full = o->full_name ? o->full_name : o->name;
  size_t len = strlen(full);
  char *op = etk_arena_alloc(&b->g->arena, len + 1);
  if (!op) return NULL;
  size_t w = 0;
  for (size_t r = 0; r < len; r++) {
    if (full[r] == ':' && full[r + 1] == ':') {
      op[w++] = '.';
      r++;
    } else {
      op[w++] = full[r];
    }
  }
  op[w] = 0;
  return op;
}

/* One instruction as a node (or folded: a move continues its source). */
static int instruction(pbuild_t *b, uint32_t c, uint32_t i, size_t *slot) {
  const etk_program_chain_t *chain = &b->plan->chains[c];
  const etk_program_instruction_t *ins = &chain->instructions[i];
  bool all = b->flags & ETK_GRAPH_PROGRAM_ALL_INSTRUCTIONS;
  *slot = ETK_GRAPH_NONE;
  bool call = ins->kind == ETK_INSTR_KERNEL_CALL ||
              ins->kind == ETK_INSTR_DELEGATE_CALL;
  if (!call && !all) {
    if (ins->kind == ETK_INSTR_MOVE_CALL)
      b->current[ins->index2] = b->current[ins->index];
    return ETK_OK;
  }
  char name[48];
  if (c == 0)
    snprintf(name, sizeof name, "#%" PRIu32, i);
  else
    snprintf(name, sizeof name, "#%" PRIu32 ".%" PRIu32, c, i);
  size_t node;
  etk_graph_node_t *n = new_node(b, ETK_GRAPH_NODE_CALL, name, &node);
  if (!n) return ETK_E_NO_MEMORY;
  *slot = node;
  n->source = instruction_source(b, chain, i);
  /* the arguments: a call's value indices; a move's (from, to); a free's
   * value; a jump's condition */
  int32_t one[2] = {ins->index, ins->index2};
  const int32_t *args = ins->args;
  uint32_t nargs = ins->arg_count, first = 0, count = 0;
  switch (ins->kind) {
    case ETK_INSTR_KERNEL_CALL: {
      const etk_program_operator_t *o = &b->plan->operators[ins->index];
      n->target = o->full_name ? o->full_name : o->name;
      n->op = operator_op(b, o);
      etk_program_call_outputs(args, nargs, &first, &count);
      break;
    }
    case ETK_INSTR_DELEGATE_CALL: {
      const etk_program_delegate_t *d = &b->plan->delegates[ins->index];
      n->target = d->id ? d->id : "";
      n->op = "executorch_call_delegate";
      delegate_outputs(b, args, nargs, &first, &count);
      break;
    }
    case ETK_INSTR_MOVE_CALL:
      n->target = n->op = "move";
      args = one;
      nargs = 1; /* reads `from`; writes `to` below */
      break;
    case ETK_INSTR_FREE_CALL:
      n->target = n->op = "free";
      args = one;
      nargs = 1;
      break;
    default:
      n->target = n->op = "jump_false";
      args = one;
      nargs = 1;
      break;
  }
  if (!n->op) return oom(b);
  uint32_t reads = count ? first : nargs;
  etk_graph_arg_t *in =
      etk_arena_array(&b->g->arena, nargs ? nargs : 1, sizeof *in);
  if (!in) return oom(b);
  int rc = ETK_OK;
  for (uint32_t k = 0; k < reads && rc == ETK_OK; k++)
    rc = input_arg(b, node, k, (uint32_t)args[k], &in[k]);
  if (rc == ETK_OK && ins->kind == ETK_INSTR_MOVE_CALL) {
    rc = write_outputs(b, node, one, 1, 1);
  } else if (rc == ETK_OK && count) {
    rc = write_outputs(b, node, args, first, count);
  }
  /* out arguments (and an .out overload's repeated returns) name the
   * values just written */
  for (uint32_t k = reads; k < nargs && rc == ETK_OK; k++)
    rc = input_arg(b, ETK_GRAPH_NONE, k, (uint32_t)args[k], &in[k]);
  n = &b->g->nodes[node];
  n->args = in;
  n->arg_count = nargs;
  return rc;
}

/* Users and inputs from the collected pairs (unique, in order); in the
 * `to` grouping the values are node indices below `groups`. */
static int csr(pbuild_t *b, use_t *pairs, size_t count, size_t groups,
               bool by_from, size_t **start_out, size_t **list_out) {
  etk_arena_t *ar = &b->g->arena;
  size_t *start = etk_arena_array(ar, groups + 1, sizeof *start);
  size_t *list = etk_arena_array(ar, count ? count : 1, sizeof *list);
  size_t *fill = calloc(groups + 1, sizeof *fill);
  /* duplicates: grouped by `from`, a group's values come in increasing
   * order (pairs are appended in node order), so a duplicate is the last
   * entry; grouped by `to` (a node's inputs, appended together), a stamp
   * per value marks those the current node already has */
  size_t *stamp = by_from ? NULL : calloc(groups + 1, sizeof *stamp);
  if (!start || !list || !fill || (!by_from && !stamp)) {
    free(fill);
    free(stamp);
    return oom(b);
  }
  for (size_t k = 0; k < count; k++)
    start[(by_from ? pairs[k].from : pairs[k].to) + 1]++;
  for (size_t gi = 0; gi < groups; gi++) start[gi + 1] += start[gi];
  for (size_t k = 0; k < count; k++) {
    size_t key = by_from ? pairs[k].from : pairs[k].to;
    size_t val = by_from ? pairs[k].to : pairs[k].from;
    size_t s = start[key], e = s + fill[key];
    bool seen;
    if (by_from) {
      seen = e > s && list[e - 1] == val;
    } else {
      seen = stamp[val] == key + 1;
      stamp[val] = key + 1;
    }
    if (!seen) list[start[key] + fill[key]++] = val;
  }
  free(stamp);
  /* compact out the duplicates' room: each group keeps fill[] entries */
  size_t w = 0;
  for (size_t gi = 0; gi < groups; gi++) {
    size_t s = start[gi];
    start[gi] = w;
    memmove(&list[w], &list[s], fill[gi] * sizeof *list);
    w += fill[gi];
  }
  start[groups] = w;
  free(fill);
  *start_out = start;
  *list_out = list;
  return ETK_OK;
}

/* Pairs are appended in node order, so each group's entries come in
 * first-use order for inputs; users are sorted by node already. */
static int edges(pbuild_t *b) {
  etk_graph_t *g = b->g;
  size_t *start, *list;
  int rc = csr(b, b->value_users.items, b->value_users.count, g->value_count,
               true, &start, &list);
  for (size_t v = 0; rc == ETK_OK && v < g->value_count; v++) {
    g->values[v].users = &list[start[v]];
    g->values[v].user_count = start[v + 1] - start[v];
  }
  if (rc == ETK_OK)
    rc = csr(b, b->node_inputs.items, b->node_inputs.count, g->node_count,
             false, &start, &list);
  for (size_t i = 0; rc == ETK_OK && i < g->node_count; i++) {
    g->nodes[i].inputs = &list[start[i]];
    g->nodes[i].input_count = start[i + 1] - start[i];
  }
  if (rc == ETK_OK)
    rc = csr(b, b->node_inputs.items, b->node_inputs.count, g->node_count, true,
             &start, &list);
  for (size_t i = 0; rc == ETK_OK && i < g->node_count; i++) {
    g->nodes[i].users = &list[start[i]];
    g->nodes[i].user_count = start[i + 1] - start[i];
  }
  return rc;
}

static int placeholders(pbuild_t *b, etk_graph_graph_t *top) {
  const etk_program_plan_t *plan = b->plan;
  size_t *ph = etk_arena_array(&b->g->arena, plan->input_count + 1, sizeof *ph);
  if (!ph) return oom(b);
  for (uint32_t k = 0; k < plan->input_count; k++) {
    char name[32];
    snprintf(name, sizeof name, "input%" PRIu32, k);
    size_t node;
    etk_graph_node_t *n = new_node(b, ETK_GRAPH_NODE_PLACEHOLDER, name, &node);
    if (!n) return ETK_E_NO_MEMORY;
    n->target = n->op = "placeholder";
    ph[k] = node;
    int32_t pv = plan->inputs[k];
    int rc = write_outputs(b, node, &pv, 0, 1);
    if (rc != ETK_OK) return rc;
  }
  top->placeholders = ph;
  top->placeholder_count = plan->input_count;
  return ETK_OK;
}

static int output_node(pbuild_t *b, etk_graph_graph_t *top) {
  const etk_program_plan_t *plan = b->plan;
  size_t node;
  etk_graph_node_t *n = new_node(b, ETK_GRAPH_NODE_OUTPUT, "output", &node);
  if (!n) return ETK_E_NO_MEMORY;
  n->target = n->op = "output";
  etk_graph_arg_t *in =
      etk_arena_array(&b->g->arena, plan->output_count + 1, sizeof *in);
  if (!in) return oom(b);
  int rc = ETK_OK;
  for (uint32_t k = 0; k < plan->output_count && rc == ETK_OK; k++)
    rc = input_arg(b, node, k, (uint32_t)plan->outputs[k], &in[k]);
  n = &b->g->nodes[node];
  n->args = in;
  n->arg_count = plan->output_count;
  top->output_node = node;
  return rc;
}

/* One partition per DelegateCall node. */
static int delegate_partitions(pbuild_t *b) {
  etk_graph_t *g = b->g;
  etk_graph_program_t *p = g->program;
  size_t count = 0;
  for (size_t i = 0; i < g->node_count; i++)
    count += g->nodes[i].kind == ETK_GRAPH_NODE_CALL &&
             strcmp(g->nodes[i].op, "executorch_call_delegate") == 0;
  g->partitions = calloc(count + 1, sizeof *g->partitions);
  if (!g->partitions) return oom(b);
  for (size_t i = 0; i < g->node_count; i++) {
    etk_graph_node_t *n = &g->nodes[i];
    if (n->kind != ETK_GRAPH_NODE_CALL ||
        strcmp(n->op, "executorch_call_delegate") != 0)
      continue;
    etk_graph_partition_t *part = &g->partitions[g->partition_count];
    size_t *self = etk_arena_array(&g->arena, 1, sizeof *self);
    char name[320];
    if (p->node_chain[i] == 0)
      snprintf(name, sizeof name, "%.256s#%" PRId64, n->target,
               p->node_instruction[i]);
    else
      snprintf(name, sizeof name, "%.256s#%" PRId32 ".%" PRId64, n->target,
               p->node_chain[i], p->node_instruction[i]);
    part->name = etk_arena_strdup(&g->arena, name);
    if (!self || !part->name) return oom(b);
    self[0] = i;
    part->backend = n->target;
    part->call_node = i;
    part->graph = ETK_GRAPH_NONE;
    part->instruction_id = p->node_instruction[i];
    part->nodes = self;
    part->node_count = 1;
    n->partition = g->partition_count++;
  }
  return ETK_OK;
}

static int build(pbuild_t *b) {
  etk_graph_t *g = b->g;
  const etk_program_plan_t *plan = b->plan;
  etk_arena_t *ar = &g->arena;
  size_t total = 0;
  for (uint32_t c = 0; c < plan->chain_count; c++)
    total += plan->chains[c].instruction_count;
  size_t max_nodes = (size_t)plan->input_count + total + 1;
  if (max_nodes > ETK_GRAPH_PROGRAM_MAX_NODES)
    return etk_error_set(b->err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "method '%s' has %zu instructions: more than the "
                         "graph's %u nodes",
                         plan->name, total, ETK_GRAPH_PROGRAM_MAX_NODES);
  etk_graph_program_t *p = etk_arena_array(ar, 1, sizeof *p);
  size_t *chain_first =
      etk_arena_array(ar, plan->chain_count + 1, sizeof *chain_first);
  size_t *instruction_node =
      etk_arena_array(ar, total ? total : 1, sizeof *instruction_node);
  int32_t *node_chain = etk_arena_array(ar, max_nodes, sizeof *node_chain);
  int64_t *node_instruction =
      etk_arena_array(ar, max_nodes, sizeof *node_instruction);
  g->graphs = etk_arena_array(ar, 1, sizeof *g->graphs);
  g->nodes = calloc(max_nodes, sizeof *g->nodes);
  b->current = malloc((plan->value_count + 1) * sizeof *b->current);
  b->writes = calloc(plan->value_count + 1, sizeof *b->writes);
  if (!p || !chain_first || !instruction_node || !node_chain ||
      !node_instruction || !g->graphs || !g->nodes || !b->current || !b->writes)
    return oom(b);
  for (uint32_t v = 0; v < plan->value_count; v++)
    b->current[v] = ETK_GRAPH_NONE;
  for (size_t i = 0; i < max_nodes; i++) {
    node_chain[i] = -1;
    node_instruction[i] = -1;
  }
  p->plan = plan;
  p->chain_count = plan->chain_count;
  p->chain_first = chain_first;
  p->instruction_node = instruction_node;
  p->node_chain = node_chain;
  p->node_instruction = node_instruction;
  g->program = p;
  g->graph_count = 1;
  etk_graph_graph_t *top = &g->graphs[0];
  top->kind = ETK_GRAPH_GRAPH_TOP;
  top->name = "";
  top->owner = ETK_GRAPH_NONE;
  int rc = placeholders(b, top);
  size_t at = 0;
  for (uint32_t c = 0; rc == ETK_OK && c < plan->chain_count; c++) {
    chain_first[c] = at;
    for (uint32_t i = 0; rc == ETK_OK && i < plan->chains[c].instruction_count;
         i++) {
      size_t node;
      rc = instruction(b, c, i, &node);
      instruction_node[at++] = node;
      if (rc == ETK_OK && node != ETK_GRAPH_NONE) {
        node_chain[node] = (int32_t)c;
        node_instruction[node] = i;
        top->call_count++;
      }
    }
  }
  chain_first[plan->chain_count] = at;
  if (rc == ETK_OK) rc = output_node(b, top);
  if (rc == ETK_OK) rc = edges(b);
  if (rc == ETK_OK) rc = delegate_partitions(b);
  top->first_node = 0;
  top->end_node = g->node_count;
  return rc;
}

int etk_graph_from_program(const etk_program_t *program,
                           const etk_graph_program_options_t *opts,
                           etk_graph_t **out, etk_error_t *err) {
  if (out) *out = NULL;
  if (!program || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_from_program: NULL argument");
  etk_graph_program_options_t defaults;
  etk_graph_program_options_default(&defaults);
  if (!opts) opts = &defaults;
  const etk_program_plan_t *plan =
      etk_program_find_plan(program, opts->method ? opts->method : "forward");
  if (!plan && !opts->method) plan = etk_program_find_plan(program, NULL);
  if (!plan) {
    char names[256] = "";
    size_t len = 0;
    for (uint32_t k = 0; k < program->plan_count && len < sizeof names; k++)
      len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                              k ? ", " : "", program->plans[k].name);
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "the program has no method '%s' (it has: %s)",
                         opts->method, program->plan_count ? names : "none");
  }
  etk_graph_t *g = calloc(1, sizeof *g);
  if (!g)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  pbuild_t b = {.g = g, .plan = plan, .flags = opts->flags, .err = err};
  g->method = etk_arena_strdup(&g->arena, plan->name);
  int rc = g->method ? build(&b) : oom(&b);
  if (rc == ETK_OK) {
    g->program->program = program;
    g->program->bundled = opts->bundled;
  }
  free(b.current);
  free(b.writes);
  ETK_VEC_FREE(b.value_users);
  ETK_VEC_FREE(b.node_inputs);
  etk_hash_free(&b.placed);
  free(b.placed_value);
  if (rc != ETK_OK) {
    etk_graph_free(g);
    return rc;
  }
  *out = g;
  return ETK_OK;
}
