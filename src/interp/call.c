/*
 * call.c - one call node of the graph run on its kernel.
 *
 * The node's NamedArguments are matched by name against the op's schema
 * (op_table.c); an argument the serializer left out takes the schema's
 * default.  Each becomes an etk_value_t in a per-call value table (the
 * frame), laid out as the kernels expect from a program: int lists boxed
 * (items are indices of Int values of the frame), tensor lists as indices
 * of Tensor values of the frame.  Tensor arguments point at the run's
 * values (interp_value_t.t; kernels never write their inputs).  Then come
 * the outs: one tensor per output value of the node, allocated from its
 * TensorMeta with a static shape (so a kernel that computes another shape
 * fails its resize instead of writing a different tensor), repeated as
 * the returns; or one tensor-list out for split-like ops.  Scratch outs a
 * kernel needs but the node does not return (aten.layer_norm's mean and
 * rstd) are dynamic tensors freed after the call.
 *
 * Frame sizes are fixed (FRAME_VALUES values, FRAME_INTS list slots); a
 * node that needs more fails with a message rather than growing them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "op_table.h"
#include "state.h"

#define FRAME_VALUES 512
#define FRAME_INTS 2048
#define SCHEMA_MAX 16
#define FRAME_SCRATCH 4

typedef struct schema_arg {
  char name[32];
  char kind[8];
  const char *def; /* NULL: required */
  size_t def_len;
  bool must; /* "!v": the value must equal the default */
} schema_arg_t;

typedef struct frame {
  etk_value_t vals[FRAME_VALUES];
  size_t nvals;
  int64_t ints[FRAME_INTS];
  size_t nints;
  etk_tensor_t scratch[FRAME_SCRATCH];
  size_t nscratch;
  etk_value_t *args[FRAME_VALUES];
  size_t nargs;
  int schema_val[SCHEMA_MAX]; /* schema arg -> frame value, -1 = X */
} frame_t;

/* Why an argument could not be made. */
typedef enum arg_fail {
  ARG_OK = 0,
  ARG_BAD,          /* malformed for its kind: the node fails */
  ARG_NO_REFERENCE, /* a tensor without a value */
  ARG_UNSUPPORTED,  /* a "must" default not met */
  ARG_FULL          /* the frame is full */
} arg_fail_t;

typedef struct call_state {
  etk_interp_t *r;
  size_t k;
  const etk_graph_node_t *gn;
  const interp_op_t *op;
  frame_t *f;
  size_t missing_value; /* ARG_NO_REFERENCE: the value without a tensor */
  char why[160];
} call_state_t;

static int parse_schema(const char *schema, schema_arg_t *out, size_t *n) {
  *n = 0;
  while (*schema) {
    size_t len = strcspn(schema, " "), name_len = strcspn(schema, ":");
    const char *eq;
    schema_arg_t *a;
    if (*n >= SCHEMA_MAX || name_len >= len || name_len >= sizeof a->name)
      return -1;
    a = &out[(*n)++];
    memset(a, 0, sizeof *a);
    memcpy(a->name, schema, name_len);
    eq = memchr(schema, '=', len);
    {
      size_t kl = (size_t)((eq ? eq : schema + len) - schema) - name_len - 1;
      if (kl >= sizeof a->kind) return -1;
      memcpy(a->kind, schema + name_len + 1, kl);
    }
    if (eq) {
      a->def = eq + 1;
      a->def_len = (size_t)(schema + len - a->def);
      if (a->def_len && a->def[0] == '!') {
        a->must = true;
        a->def++;
        a->def_len--;
      }
    }
    schema += len;
    while (*schema == ' ') schema++;
  }
  return 0;
}

static int new_val(frame_t *f, etk_value_tag_t tag) {
  if (f->nvals >= FRAME_VALUES) return -1;
  memset(&f->vals[f->nvals], 0, sizeof f->vals[0]);
  f->vals[f->nvals].tag = tag;
  return (int)f->nvals++;
}

static const etk_graph_arg_t *find_arg(const etk_graph_node_t *gn,
                                       const char *name) {
  for (size_t i = 0; i < gn->arg_count; i++)
    if (gn->args[i].name && strcmp(gn->args[i].name, name) == 0)
      return &gn->args[i];
  return NULL;
}

/* A Tensor value of the frame for graph value v. */
static int tensor_val(call_state_t *cs, size_t v, arg_fail_t *fail) {
  etk_interp_t *r = cs->r;
  int idx;
  if (v == ETK_GRAPH_NONE || v >= r->value_count) {
    snprintf(cs->why, sizeof cs->why, "an argument names a missing value");
    *fail = ARG_BAD;
    return -1;
  }
  if (!r->values[v].has) {
    cs->missing_value = v;
    *fail = ARG_NO_REFERENCE;
    return -1;
  }
  if ((idx = new_val(cs->f, ETK_VALUE_TENSOR)) < 0) {
    *fail = ARG_FULL;
    return -1;
  }
  cs->f->vals[idx].u.tensor = &r->values[v].t;
  return idx;
}

/* A boxed int list of the frame from `n` numbers. */
static int int_list_val(frame_t *f, const int64_t *nums, size_t n) {
  int idx;
  if (f->nints + 2 * n > FRAME_INTS || f->nvals + n + 1 > FRAME_VALUES)
    return -1;
  idx = new_val(f, ETK_VALUE_INT_LIST);
  f->vals[idx].u.int_list.items = &f->ints[f->nints];
  f->vals[idx].u.int_list.count = n;
  for (size_t k = 0; k < n; k++) {
    int iv = new_val(f, ETK_VALUE_INT);
    f->vals[iv].u.i = nums[k];
    f->ints[f->nints + k] = iv;
  }
  f->nints += n;
  f->vals[idx].u.int_list.scratch = &f->ints[f->nints];
  f->nints += n;
  return idx;
}

/* A default written in the schema, as the value of `a`'s kind. */
static int default_val(call_state_t *cs, const schema_arg_t *a,
                       arg_fail_t *fail) {
  frame_t *f = cs->f;
  char text[64];
  const char *k = a->kind;
  int idx = -1;
  snprintf(text, sizeof text, "%.*s", (int)a->def_len, a->def);
  if (strcmp(text, "None") == 0) {
    idx = new_val(f, ETK_VALUE_NONE);
  } else if (k[0] == 'L') {
    int64_t nums[ETK_MAX_DIMS];
    size_t n = 0;
    for (char *p = text; *p && *p != '[' && n < ETK_MAX_DIMS;) {
      nums[n++] = strtoll(p, &p, 10);
      if (*p == ',') p++;
    }
    idx = int_list_val(f, nums, n);
  } else if (k[0] == 'B') {
    if ((idx = new_val(f, ETK_VALUE_BOOL)) >= 0)
      f->vals[idx].u.b = text[0] == '1';
  } else if (k[0] == 'D' || (k[0] == 'S' && strpbrk(text, ".e"))) {
    if ((idx = new_val(f, ETK_VALUE_DOUBLE)) >= 0)
      f->vals[idx].u.d = strtod(text, NULL);
  } else if (k[0] == 'I' || k[0] == 'S') {
    if ((idx = new_val(f, ETK_VALUE_INT)) >= 0)
      f->vals[idx].u.i = strtoll(text, NULL, 10);
  } else if (strncmp(k, "str", 3) == 0) {
    if ((idx = new_val(f, ETK_VALUE_STRING)) >= 0) {
      f->vals[idx].u.string.data = a->def;
      f->vals[idx].u.string.len = a->def_len;
    }
  } else {
    snprintf(cs->why, sizeof cs->why, "bad default for '%.31s'", a->name);
    *fail = ARG_BAD;
    return -1;
  }
  if (idx < 0) *fail = ARG_FULL;
  return idx;
}

/* A tensor list (optional items allowed when `optional`). */
static int tensor_list_val(call_state_t *cs, const etk_graph_arg_t *g,
                           bool optional, arg_fail_t *fail) {
  frame_t *f = cs->f;
  size_t base = f->nints;
  int idx;
  if (f->nints + g->count > FRAME_INTS) {
    *fail = ARG_FULL;
    return -1;
  }
  f->nints += g->count;
  for (size_t k = 0; k < g->count; k++) {
    size_t v = g->values ? g->values[k] : ETK_GRAPH_NONE;
    int t;
    if (v == ETK_GRAPH_NONE && optional &&
        !(g->value_names && g->value_names[k])) {
      f->ints[base + k] = -1;
      continue;
    }
    if ((t = tensor_val(cs, v, fail)) < 0) return -1;
    f->ints[base + k] = t;
  }
  idx = new_val(
      f, optional ? ETK_VALUE_OPTIONAL_TENSOR_LIST : ETK_VALUE_TENSOR_LIST);
  if (idx < 0) {
    *fail = ARG_FULL;
    return -1;
  }
  f->vals[idx].u.tensor_list.items = &f->ints[base];
  f->vals[idx].u.tensor_list.count = g->count;
  return idx;
}

/* A schema kind in words, for messages. */
static const char *kind_words(const char *k) {
  static const char *const table[][2] = {{"T", "a tensor"},
                                         {"T?", "a tensor or None"},
                                         {"TL", "a tensor list"},
                                         {"OTL", "a list of optional tensors"},
                                         {"I", "an int"},
                                         {"I?", "an int or None"},
                                         {"D", "a float"},
                                         {"D?", "a float or None"},
                                         {"B", "a bool"},
                                         {"S", "a scalar"},
                                         {"S?", "a scalar or None"},
                                         {"L", "an int list"},
                                         {"L?", "an int list or None"},
                                         {"str", "a string"},
                                         {"str?", "a string or None"},
                                         {"dtype", "a dtype"},
                                         {"dtype?", "a dtype or None"}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i][0], k) == 0) return table[i][1];
  return k;
}

/* The frame value of one present argument `g` for schema argument `a`. */
static int arg_val(call_state_t *cs, const schema_arg_t *a,
                   const etk_graph_arg_t *g, arg_fail_t *fail) {
  frame_t *f = cs->f;
  const char *k = a->kind;
  bool opt = strchr(k, '?') != NULL;
  int idx = -1;
  if (g->kind == ETK_GRAPH_ARG_NONE && (opt || strcmp(k, "mf?") == 0))
    idx = new_val(f, ETK_VALUE_NONE);
  else if (strcmp(k, "mf?") == 0)
    idx = new_val(f, ETK_VALUE_NONE); /* memory formats: contiguous */
  else if (k[0] == 'T' && k[1] != 'L')
    return (g->kind == ETK_GRAPH_ARG_TENSOR ||
            g->kind == ETK_GRAPH_ARG_OPTIONAL_TENSOR) &&
                   g->values
               ? tensor_val(cs, g->values[0], fail)
               : (*fail = ARG_BAD, -1);
  else if (strcmp(k, "TL") == 0 || strcmp(k, "OTL") == 0)
    return (g->kind == ETK_GRAPH_ARG_TENSORS ||
            g->kind == ETK_GRAPH_ARG_OPTIONAL_TENSORS)
               ? tensor_list_val(cs, g, k[0] == 'O', fail)
               : (*fail = ARG_BAD, -1);
  else if (k[0] == 'L' && (g->kind == ETK_GRAPH_ARG_INTS ||
                           g->kind == ETK_GRAPH_ARG_SYM_INTS)) {
    for (size_t j = 0; j < g->count; j++)
      if (g->values && g->values[j] != ETK_GRAPH_NONE) {
        snprintf(cs->why, sizeof cs->why, "'%.31s' has a symbolic size",
                 a->name);
        *fail = ARG_BAD;
        return -1;
      }
    idx = int_list_val(f, g->ints, g->count);
  } else if ((k[0] == 'I' || k[0] == 'S' || k[0] == 'D') &&
             (g->kind == ETK_GRAPH_ARG_INT ||
              (g->kind == ETK_GRAPH_ARG_SYM_INT &&
               (!g->values || g->values[0] == ETK_GRAPH_NONE)))) {
    if (k[0] == 'D') {
      if ((idx = new_val(f, ETK_VALUE_DOUBLE)) >= 0)
        f->vals[idx].u.d = (double)g->i;
    } else if ((idx = new_val(f, ETK_VALUE_INT)) >= 0) {
      f->vals[idx].u.i = g->i;
    }
  } else if ((k[0] == 'D' || k[0] == 'S') && g->kind == ETK_GRAPH_ARG_FLOAT) {
    if ((idx = new_val(f, ETK_VALUE_DOUBLE)) >= 0) f->vals[idx].u.d = g->f;
  } else if ((k[0] == 'B' || k[0] == 'S') && g->kind == ETK_GRAPH_ARG_BOOL) {
    if ((idx = new_val(f, ETK_VALUE_BOOL)) >= 0) f->vals[idx].u.b = g->i != 0;
  } else if (strncmp(k, "str", 3) == 0 && g->kind == ETK_GRAPH_ARG_STRING &&
             g->s) {
    if ((idx = new_val(f, ETK_VALUE_STRING)) >= 0) {
      f->vals[idx].u.string.data = g->s;
      f->vals[idx].u.string.len = strlen(g->s);
    }
  } else if (strncmp(k, "dtype", 5) == 0 &&
             g->kind == ETK_GRAPH_ARG_SCALAR_TYPE && g->dtype >= 0) {
    if ((idx = new_val(f, ETK_VALUE_INT)) >= 0) f->vals[idx].u.i = g->dtype;
  } else {
    snprintf(cs->why, sizeof cs->why, "argument '%.31s' is %.24s, expected %s",
             a->name, etk_graph_arg_kind_name(g->kind), kind_words(k));
    *fail = ARG_BAD;
    return -1;
  }
  if (idx < 0) *fail = ARG_FULL;
  return idx;
}

/* Fills f->schema_val for every schema argument. */
static arg_fail_t read_args(call_state_t *cs, const schema_arg_t *sa,
                            size_t n) {
  for (size_t i = 0; i < n; i++) {
    const etk_graph_arg_t *g = find_arg(cs->gn, sa[i].name);
    arg_fail_t fail = ARG_OK;
    int idx;
    cs->f->schema_val[i] = -1;
    if (strcmp(sa[i].kind, "X") == 0) continue;
    if (sa[i].must && g) {
      long long want = strtoll(sa[i].def, NULL, 10);
      if ((g->kind != ETK_GRAPH_ARG_BOOL && g->kind != ETK_GRAPH_ARG_INT) ||
          g->i != want) {
        snprintf(cs->why, sizeof cs->why, "%.60s with %.31s other than %lld",
                 cs->gn->op, sa[i].name, want);
        return ARG_UNSUPPORTED;
      }
    }
    if (!g && !sa[i].def) {
      snprintf(cs->why, sizeof cs->why,
               "argument '%.31s' is missing and has no default", sa[i].name);
      return ARG_BAD;
    }
    if (sa[i].must) continue; /* checked above; not a kernel argument */
    idx = g ? arg_val(cs, &sa[i], g, &fail) : default_val(cs, &sa[i], &fail);
    if (idx < 0) {
      if (fail == ARG_BAD && !cs->why[0])
        snprintf(cs->why, sizeof cs->why, "argument '%.31s' is malformed",
                 sa[i].name);
      return fail;
    }
    cs->f->schema_val[i] = idx;
  }
  return ARG_OK;
}

/* Appends the kernel's leading arguments (kargs or every schema arg). */
static arg_fail_t push_kernel_args(call_state_t *cs, const schema_arg_t *sa,
                                   size_t n) {
  frame_t *f = cs->f;
  const char *p = cs->op->kargs;
  if (!p) {
    for (size_t i = 0; i < n; i++)
      if (f->schema_val[i] >= 0)
        f->args[f->nargs++] = &f->vals[f->schema_val[i]];
    return ARG_OK;
  }
  while (*p) {
    size_t len = strcspn(p, " ");
    int idx = -1;
    if (p[0] == '#') {
      schema_arg_t lit;
      arg_fail_t fail = ARG_OK;
      memset(&lit, 0, sizeof lit);
      lit.kind[0] = p[1] == 'N' ? 'I' : p[1];
      lit.def = p[1] == 'N' ? "None" : p + 2;
      lit.def_len = p[1] == 'N' ? 4 : len - 2;
      idx = default_val(cs, &lit, &fail);
    } else {
      for (size_t i = 0; i < n; i++)
        if (strlen(sa[i].name) == len && memcmp(sa[i].name, p, len) == 0)
          idx = f->schema_val[i];
    }
    if (idx < 0) {
      snprintf(cs->why, sizeof cs->why, "kernel argument '%.*s' unavailable",
               (int)len, p);
      return ARG_BAD;
    }
    f->args[f->nargs++] = &f->vals[idx];
    p += len;
    while (*p == ' ') p++;
  }
  return ARG_OK;
}

/* Allocates the node's outputs and scratch outs and appends them. */
static int push_outs(call_state_t *cs, etk_error_t *err) {
  etk_interp_t *r = cs->r;
  frame_t *f = cs->f;
  const etk_graph_node_t *gn = cs->gn;
  size_t first = f->nvals;
  if (gn->output_value_count == 0 ||
      gn->output_value_count + FRAME_SCRATCH + f->nvals + 1 > FRAME_VALUES) {
    snprintf(cs->why, sizeof cs->why, "the node has no tensor outputs");
    return ETK_E_FORMAT;
  }
  for (size_t o = 0; o < gn->output_value_count; o++) {
    size_t v = gn->output_values[o];
    const char *why = NULL;
    int rc = interp_value_alloc(r, v, &why);
    if (rc == ETK_E_FORMAT) {
      snprintf(cs->why, sizeof cs->why, "output '%s' %s", r->gvalues[v].name,
               why);
      for (size_t d = 0; d < o; d++) interp_value_drop(r, gn->output_values[d]);
      return rc;
    }
    if (rc != ETK_OK) {
      for (size_t d = 0; d < o; d++) interp_value_drop(r, gn->output_values[d]);
      return etk_error_set(
          err, rc, ETK_NO_OFFSET,
          rc == ETK_E_LIMIT
              ? "node '%s': its outputs need more than the memory limit "
                "(%llu bytes in use of %llu)"
              : "node '%s': out of memory",
          gn->name, (unsigned long long)r->used,
          (unsigned long long)r->max_memory);
    }
    f->vals[new_val(f, ETK_VALUE_TENSOR)].u.tensor = &r->values[v].t;
  }
  if (cs->op->out_kind == INTERP_OUT_LIST) {
    int idx;
    size_t base = f->nints;
    if (f->nints + gn->output_value_count > FRAME_INTS) return ETK_E_FORMAT;
    for (size_t o = 0; o < gn->output_value_count; o++)
      f->ints[f->nints++] = (int64_t)(first + o);
    idx = new_val(f, ETK_VALUE_TENSOR_LIST);
    f->vals[idx].u.tensor_list.items = &f->ints[base];
    f->vals[idx].u.tensor_list.count = gn->output_value_count;
    f->args[f->nargs++] = &f->vals[idx];
    return ETK_OK;
  }
  {
    size_t nouts = gn->output_value_count;
    const etk_tensor_t *t0 = &r->values[gn->output_values[0]].t;
    for (int s = 0; s < cs->op->scratch && s < FRAME_SCRATCH; s++) {
      etk_tensor_t *t = &f->scratch[f->nscratch++];
      int32_t dt =
          cs->op->scratch_dtype >= 0 ? cs->op->scratch_dtype : t0->scalar_type;
      size_t bytes = t0->nbytes /
                     (etk_scalar_type_size(t0->scalar_type)
                          ? etk_scalar_type_size(t0->scalar_type)
                          : 1) *
                     etk_scalar_type_size(dt);
      *t = *t0;
      t->scalar_type = dt;
      t->shape_dynamism = 2;
      t->capacity_bytes = bytes;
      etk_tensor_update_strides(t);
      if (bytes > r->max_memory - r->used ||
          !(t->data = calloc(1, bytes ? bytes : 1))) {
        f->nscratch--;
        return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                             "node '%s': scratch outputs exceed the memory "
                             "limit",
                             gn->name);
      }
      r->used += bytes;
      f->vals[new_val(f, ETK_VALUE_TENSOR)].u.tensor = t;
    }
    nouts += (size_t)cs->op->scratch;
    for (size_t o = 0; o < nouts; o++)
      f->args[f->nargs++] = &f->vals[first + o];
    for (size_t o = 0; o < nouts; o++)
      f->args[f->nargs++] = &f->vals[first + o];
  }
  return ETK_OK;
}

/* Marks the node's outputs as without value, failing at `root`. */
static void mark_outputs_missing(etk_interp_t *r, const etk_graph_node_t *gn,
                                 size_t root) {
  for (size_t o = 0; o < gn->output_value_count; o++) {
    size_t v = gn->output_values[o];
    if (v < r->value_count) {
      interp_value_drop(r, v);
      r->values[v].failed_node = root;
    }
  }
}

static void free_scratch(etk_interp_t *r, frame_t *f) {
  for (size_t s = 0; s < f->nscratch; s++) {
    free(f->scratch[s].data);
    r->used -= f->scratch[s].capacity_bytes;
  }
  f->nscratch = 0;
}

/* The node did not run: its status, message and missing outputs. */
static void node_not_run(call_state_t *cs, arg_fail_t fail) {
  etk_interp_t *r = cs->r;
  size_t root = cs->gn - r->gnodes;
  if (fail == ARG_NO_REFERENCE) {
    size_t v = cs->missing_value, src = r->values[v].failed_node;
    const etk_interp_node_t *why =
        src != ETK_GRAPH_NONE ? interp_node_result(r, src) : NULL;
    root = src != ETK_GRAPH_NONE ? src : root;
    interp_node_message(r, cs->k, ETK_INTERP_NO_REFERENCE,
                        "no reference: input '%s' comes from '%s' (%s)",
                        r->gvalues[v].name, why ? why->name : "?",
                        why ? why->message : "not run");
  } else if (fail == ARG_UNSUPPORTED) {
    interp_node_message(r, cs->k, ETK_INTERP_UNSUPPORTED, "unsupported: %s",
                        cs->why);
  } else if (fail == ARG_FULL) {
    interp_node_message(r, cs->k, ETK_INTERP_FAILED,
                        "too many arguments for the interpreter");
  } else {
    interp_node_message(r, cs->k, ETK_INTERP_FAILED, "%s", cs->why);
  }
  mark_outputs_missing(r, cs->gn, root);
}

/* Copies the output views into the node's result. */
static int publish(etk_interp_t *r, size_t k, const etk_graph_node_t *gn) {
  etk_interp_node_t *res = &r->nodes[k];
  etk_interp_tensor_t *outs = calloc(gn->output_value_count + 1, sizeof *outs);
  if (!outs) return ETK_E_NO_MEMORY;
  for (size_t o = 0; o < gn->output_value_count; o++) {
    interp_value_t *iv = &r->values[gn->output_values[o]];
    iv->has = true;
    interp_value_publish(iv);
    outs[o] = iv->out;
  }
  r->outs[k] = outs;
  res->outputs = outs;
  res->output_count = gn->output_value_count;
  res->output_is_list = gn->output_count == 1 && gn->outputs &&
                        gn->outputs[0].kind == ETK_GRAPH_ARG_TENSORS;
  res->status = ETK_INTERP_OK;
  res->message = "";
  return ETK_OK;
}

int interp_call(etk_interp_t *r, size_t k, etk_error_t *err) {
  const etk_graph_node_t *gn = &r->gnodes[r->nodes[k].node];
  schema_arg_t sa[SCHEMA_MAX];
  size_t ns = 0;
  call_state_t cs;
  const etk_kernel_entry_t *ke;
  arg_fail_t fail;
  int rc;
  memset(&cs, 0, sizeof cs);
  cs.r = r;
  cs.k = k;
  cs.gn = gn;
  cs.op = interp_op_find(gn->op);
  if (!cs.op || !(ke = etk_kernel_find(cs.op->kernel))) {
    interp_node_message(r, k, ETK_INTERP_UNSUPPORTED, "unsupported op %s",
                        gn->op ? gn->op : "?");
    mark_outputs_missing(r, gn, r->nodes[k].node);
    return ETK_OK;
  }
  r->nodes[k].kernel = cs.op->kernel;
  if (parse_schema(cs.op->schema, sa, &ns) != 0) {
    interp_node_message(r, k, ETK_INTERP_FAILED, "bad schema for %s", gn->op);
    mark_outputs_missing(r, gn, r->nodes[k].node);
    return ETK_OK;
  }
  cs.f = calloc(1, sizeof *cs.f);
  if (!cs.f)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  fail = read_args(&cs, sa, ns);
  if (fail == ARG_OK) fail = push_kernel_args(&cs, sa, ns);
  if (fail != ARG_OK) {
    node_not_run(&cs, fail);
    free(cs.f);
    return ETK_OK;
  }
  rc = push_outs(&cs, err);
  if (rc == ETK_OK) {
    etk_kernel_context_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.values = cs.f->vals;
    ctx.value_count = cs.f->nvals;
    rc = ke->check ? ke->check(&ctx, cs.f->args, cs.f->nargs) : ETK_OK;
    if (rc == ETK_OK) rc = ke->fn(&ctx, cs.f->args, cs.f->nargs);
    free_scratch(r, cs.f);
    if (rc == ETK_OK) {
      rc = publish(r, k, gn);
      free(cs.f);
      return rc == ETK_OK
                 ? ETK_OK
                 : etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
    }
    snprintf(cs.why, sizeof cs.why, "%s", ctx.message);
    rc = ETK_E_FORMAT; /* the kernel refused: the node fails */
  } else {
    free_scratch(r, cs.f);
  }
  free(cs.f);
  if (rc != ETK_E_FORMAT) return rc; /* run-level: memory */
  node_not_run(&cs, ARG_BAD);
  return ETK_OK;
}
