/*
 * serde.c - the typed side of a serialised ExportedProgram: Arguments,
 * TensorMeta, graph signatures and the debug-handle metadata, decoded from
 * the jansson tree that edge_program.c walks (etkit/etrecord_serde.h).
 *
 * Everything is copied into the program's arena, so the jansson tree can
 * be dropped after the walk.  The decoders are tolerant by design: a
 * union whose tag is unknown becomes ETK_ETRECORD_ARG_UNKNOWN (its tag
 * kept), a field of the wrong type leaves the value at 0 / NULL, a
 * TensorMeta that does not decode is flagged `malformed`.  Judging such
 * things is the graph library's business (etkit/graph.h): the ETRecord
 * reader must keep reading every file it read before.  The only failures
 * are ETK_E_NO_MEMORY (reported by the caller) and nothing else.
 *
 * Both union spellings go through etr_union_pick(): a single-key object,
 * or 2023's object holding every tag with null for all but the chosen one.
 * Recursion (as_string_to_argument, as_nested_tensors, as_int_lists) is
 * bounded by the JSON depth limit the parser already enforced.
 *
 * Sizes: every array is sized by the JSON list it comes from, so
 * allocations are bounded by the member's real size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define META_MAX_DIMS 64

bool etr_union_pick(json_t *u, etk_etrecord_dialect_t *dialect,
                    const char **tag, json_t **val) {
  if (!json_is_object(u) || json_object_size(u) == 0) return false;
  if (dialect && *dialect == ETK_ETRECORD_DIALECT_UNKNOWN)
    *dialect = json_object_size(u) == 1 ? ETK_ETRECORD_DIALECT_SINGLE_KEY
                                        : ETK_ETRECORD_DIALECT_ALL_TAGS;
  const char *key;
  json_t *v;
  if (json_object_size(u) == 1) {
    json_object_foreach(u, key, v) {
      *tag = key;
      *val = v;
      return true;
    }
  }
  json_object_foreach(u, key, v) {
    if (!json_is_null(v)) {
      *tag = key;
      *val = v;
      return true;
    }
  }
  return false;
}

static const struct {
  const char *tag;
  etk_etrecord_arg_kind_t kind;
} kArgTags[] = {
    {"as_none", ETK_ETRECORD_ARG_NONE},
    {"as_tensor", ETK_ETRECORD_ARG_TENSOR},
    {"as_tensors", ETK_ETRECORD_ARG_TENSORS},
    {"as_optional_tensor", ETK_ETRECORD_ARG_OPTIONAL_TENSOR},
    {"as_optional_tensors", ETK_ETRECORD_ARG_OPTIONAL_TENSORS},
    {"as_int", ETK_ETRECORD_ARG_INT},
    {"as_ints", ETK_ETRECORD_ARG_INTS},
    {"as_float", ETK_ETRECORD_ARG_FLOAT},
    {"as_floats", ETK_ETRECORD_ARG_FLOATS},
    {"as_bool", ETK_ETRECORD_ARG_BOOL},
    {"as_bools", ETK_ETRECORD_ARG_BOOLS},
    {"as_string", ETK_ETRECORD_ARG_STRING},
    {"as_strings", ETK_ETRECORD_ARG_STRINGS},
    {"as_scalar_type", ETK_ETRECORD_ARG_SCALAR_TYPE},
    {"as_memory_format", ETK_ETRECORD_ARG_MEMORY_FORMAT},
    {"as_layout", ETK_ETRECORD_ARG_LAYOUT},
    {"as_device", ETK_ETRECORD_ARG_DEVICE},
    {"as_sym_int", ETK_ETRECORD_ARG_SYM_INT},
    {"as_sym_ints", ETK_ETRECORD_ARG_SYM_INTS},
    {"as_sym_bool", ETK_ETRECORD_ARG_SYM_BOOL},
    {"as_sym_bools", ETK_ETRECORD_ARG_SYM_BOOLS},
    {"as_sym_float", ETK_ETRECORD_ARG_SYM_FLOAT},
    {"as_sym_floats", ETK_ETRECORD_ARG_SYM_FLOATS},
    {"as_graph", ETK_ETRECORD_ARG_GRAPH},
    {"as_custom_obj", ETK_ETRECORD_ARG_CUSTOM_OBJ},
    {"as_operator", ETK_ETRECORD_ARG_OPERATOR},
    {"as_complex", ETK_ETRECORD_ARG_COMPLEX},
    {"as_int_lists", ETK_ETRECORD_ARG_INT_LISTS},
    {"as_nested_tensors", ETK_ETRECORD_ARG_NESTED_TENSORS},
    {"as_string_to_argument", ETK_ETRECORD_ARG_STRING_TO_ARGUMENT},
};

static etk_etrecord_arg_kind_t kind_of_tag(const char *tag) {
  for (size_t i = 0; i < sizeof kArgTags / sizeof kArgTags[0]; i++)
    if (strcmp(kArgTags[i].tag, tag) == 0) return kArgTags[i].kind;
  return ETK_ETRECORD_ARG_UNKNOWN;
}

/* A JSON number (or Python's Infinity/NaN sentinel) as a double. */
static double number_of(const json_t *v) {
  int special = etr_json_special(v);
  if (special == 1) return 1.0 / 0.0;
  if (special == -1) return -1.0 / 0.0;
  if (special == 2) return 0.0 / 0.0;
  if (json_is_integer(v)) return (double)json_integer_value(v);
  if (json_is_real(v)) return json_real_value(v);
  if (json_is_true(v)) return 1;
  return 0;
}

static int64_t int_of(const json_t *v) {
  if (json_is_integer(v)) return json_integer_value(v);
  if (json_is_true(v)) return 1;
  return 0;
}

static const char *str_dup(etr_serde_t *s, const json_t *v) {
  if (!json_is_string(v)) return NULL;
  const char *r =
      etr_arena_strndup(s->arena, json_string_value(v), json_string_length(v));
  if (!r) s->failed = true;
  return r;
}

static const char *obj_str_dup(etr_serde_t *s, json_t *obj, const char *key) {
  return str_dup(s, json_object_get(obj, key));
}

static void *arena_array(etr_serde_t *s, size_t count, size_t size) {
  if (count == 0) return NULL;
  void *p = etr_arena_calloc(s->arena, count, size);
  if (!p) s->failed = true;
  return p;
}

/* One element of a list of SymIntArgument-like unions (or of
 * OptionalTensorArgument): a name, a constant, or None. */
static void sym_element(etr_serde_t *s, json_t *e, const char **name,
                        int64_t *iv, double *fv) {
  const char *tag;
  json_t *v;
  if (!etr_union_pick(e, s->dialect, &tag, &v)) return;
  if (json_is_string(v)) {
    *name = str_dup(s, v);
  } else if (json_is_object(v)) {
    *name = obj_str_dup(s, v, "name");
  } else if (strcmp(tag, "as_none") != 0) {
    *iv = int_of(v);
    *fv = number_of(v);
  }
}

static void fill_list(etr_serde_t *s, etk_etrecord_arg_t *a, json_t *v,
                      uint32_t depth);

int etr_serde_arg(etr_serde_t *s, json_t *u, const char *name, bool keyword,
                  etk_etrecord_arg_t *a, uint32_t depth) {
  memset(a, 0, sizeof *a);
  a->graph = SIZE_MAX;
  a->name = name ? etr_arena_strdup(s->arena, name) : "";
  a->keyword = keyword;
  a->tag = "";
  if (!a->name) s->failed = true;
  const char *tag;
  json_t *v;
  if (!etr_union_pick(u, s->dialect, &tag, &v)) return s->failed ? -1 : 0;
  a->tag = etr_arena_strdup(s->arena, tag);
  if (!a->tag) s->failed = true;
  a->kind = kind_of_tag(tag);
  switch (a->kind) {
    case ETK_ETRECORD_ARG_NONE:
    case ETK_ETRECORD_ARG_UNKNOWN:
      break;
    case ETK_ETRECORD_ARG_TENSOR:
    case ETK_ETRECORD_ARG_CUSTOM_OBJ:
    case ETK_ETRECORD_ARG_TOKEN: {
      const char *n = obj_str_dup(s, v, "name");
      if (!n) {
        a->kind = ETK_ETRECORD_ARG_UNKNOWN; /* malformed: no name */
        break;
      }
      const char **names = arena_array(s, 1, sizeof *names);
      if (names) names[0] = n;
      a->names = names;
      a->count = 1;
      if (a->kind == ETK_ETRECORD_ARG_CUSTOM_OBJ)
        a->s = obj_str_dup(s, v, "class_fqn");
      break;
    }
    case ETK_ETRECORD_ARG_OPTIONAL_TENSOR:
    case ETK_ETRECORD_ARG_SYM_INT:
    case ETK_ETRECORD_ARG_SYM_BOOL:
    case ETK_ETRECORD_ARG_SYM_FLOAT: {
      const char *n = NULL;
      sym_element(s, v, &n, &a->i, &a->f);
      const char **names = arena_array(s, 1, sizeof *names);
      if (names) names[0] = n;
      a->names = names;
      a->count = n || a->kind != ETK_ETRECORD_ARG_OPTIONAL_TENSOR ? 1 : 0;
      break;
    }
    case ETK_ETRECORD_ARG_INT:
    case ETK_ETRECORD_ARG_BOOL:
    case ETK_ETRECORD_ARG_SCALAR_TYPE:
    case ETK_ETRECORD_ARG_MEMORY_FORMAT:
    case ETK_ETRECORD_ARG_LAYOUT:
      if (!json_is_integer(v) && !json_is_boolean(v))
        a->kind = ETK_ETRECORD_ARG_UNKNOWN;
      a->i = int_of(v);
      a->f = (double)a->i;
      break;
    case ETK_ETRECORD_ARG_FLOAT:
      if (!json_is_number(v) && !etr_json_special(v))
        a->kind = ETK_ETRECORD_ARG_UNKNOWN;
      a->f = number_of(v);
      break;
    case ETK_ETRECORD_ARG_STRING:
    case ETK_ETRECORD_ARG_OPERATOR:
      a->s = str_dup(s, v);
      if (!a->s) a->kind = ETK_ETRECORD_ARG_UNKNOWN;
      break;
    case ETK_ETRECORD_ARG_DEVICE: {
      a->s = obj_str_dup(s, v, "type");
      json_t *idx = json_object_get(v, "index");
      a->i = json_is_integer(idx) ? json_integer_value(idx) : -1;
      if (!a->s) a->kind = ETK_ETRECORD_ARG_UNKNOWN;
      break;
    }
    case ETK_ETRECORD_ARG_GRAPH:
      a->s = obj_str_dup(s, v, "name");
      if (!a->s) a->kind = ETK_ETRECORD_ARG_UNKNOWN;
      break;
    case ETK_ETRECORD_ARG_COMPLEX: {
      double *f = arena_array(s, 2, sizeof *f);
      if (f) {
        f[0] = number_of(json_object_get(v, "real"));
        f[1] = number_of(json_object_get(v, "imag"));
      }
      a->floats = f;
      a->count = 2;
      break;
    }
    default:
      fill_list(s, a, v, depth);
      break;
  }
  return s->failed ? -1 : 0;
}

/* The list kinds. */
static void fill_list(etr_serde_t *s, etk_etrecord_arg_t *a, json_t *v,
                      uint32_t depth) {
  if (a->kind == ETK_ETRECORD_ARG_STRING_TO_ARGUMENT) {
    if (!json_is_object(v)) {
      a->kind = ETK_ETRECORD_ARG_UNKNOWN;
      return;
    }
    size_t n = json_object_size(v), k = 0;
    etk_etrecord_arg_t *items = arena_array(s, n, sizeof *items);
    const char *key;
    json_t *e;
    json_object_foreach(v, key, e) {
      if (!items || s->failed) break;
      etr_serde_arg(s, e, key, false, &items[k++], depth + 1);
    }
    a->items = items;
    a->count = k;
    return;
  }
  if (!json_is_array(v)) {
    a->kind = ETK_ETRECORD_ARG_UNKNOWN;
    return;
  }
  size_t n = json_array_size(v);
  a->count = n;
  if (n == 0) return;
  switch (a->kind) {
    case ETK_ETRECORD_ARG_INTS:
    case ETK_ETRECORD_ARG_BOOLS: {
      int64_t *ints = arena_array(s, n, sizeof *ints);
      for (size_t k = 0; ints && k < n; k++)
        ints[k] = int_of(json_array_get(v, k));
      a->ints = ints;
      break;
    }
    case ETK_ETRECORD_ARG_FLOATS: {
      double *f = arena_array(s, n, sizeof *f);
      for (size_t k = 0; f && k < n; k++)
        f[k] = number_of(json_array_get(v, k));
      a->floats = f;
      break;
    }
    case ETK_ETRECORD_ARG_STRINGS: {
      const char **strs = arena_array(s, n, sizeof *strs);
      for (size_t k = 0; strs && k < n; k++) {
        strs[k] = str_dup(s, json_array_get(v, k));
        if (!strs[k]) strs[k] = "";
      }
      a->strings = strs;
      break;
    }
    case ETK_ETRECORD_ARG_TENSORS: {
      const char **names = arena_array(s, n, sizeof *names);
      for (size_t k = 0; names && k < n; k++)
        names[k] = obj_str_dup(s, json_array_get(v, k), "name");
      a->names = names;
      break;
    }
    case ETK_ETRECORD_ARG_INT_LISTS:
    case ETK_ETRECORD_ARG_NESTED_TENSORS: {
      etk_etrecord_arg_t *items = arena_array(s, n, sizeof *items);
      for (size_t k = 0; items && k < n && !s->failed; k++) {
        etk_etrecord_arg_t *it = &items[k];
        memset(it, 0, sizeof *it);
        it->name = "";
        it->graph = SIZE_MAX;
        it->kind = a->kind == ETK_ETRECORD_ARG_INT_LISTS
                       ? ETK_ETRECORD_ARG_INTS
                       : ETK_ETRECORD_ARG_TENSORS;
        it->tag = it->kind == ETK_ETRECORD_ARG_INTS ? "as_ints" : "as_tensors";
        fill_list(s, it, json_array_get(v, k), depth + 1);
      }
      a->items = items;
      break;
    }
    default: { /* OPTIONAL_TENSORS and SYM_*S: per-element unions */
      const char **names = arena_array(s, n, sizeof *names);
      int64_t *ints = arena_array(s, n, sizeof *ints);
      double *f = arena_array(s, n, sizeof *f);
      for (size_t k = 0; names && ints && f && k < n; k++)
        sym_element(s, json_array_get(v, k), &names[k], &ints[k], &f[k]);
      a->names = names;
      a->ints = ints;
      a->floats = f;
      break;
    }
  }
}

int etr_serde_args(etr_serde_t *s, json_t *list, bool named,
                   etk_etrecord_arg_t **out, size_t *count) {
  *out = NULL;
  *count = 0;
  if (!json_is_array(list) || json_array_size(list) == 0) return 0;
  size_t n = json_array_size(list);
  etk_etrecord_arg_t *args = arena_array(s, n, sizeof *args);
  if (!args) return -1;
  for (size_t k = 0; k < n; k++) {
    json_t *e = json_array_get(list, k);
    if (named) {
      json_t *kind = json_object_get(e, "kind");
      bool keyword = json_is_integer(kind) && json_integer_value(kind) == 2;
      const char *nm = json_string_value(json_object_get(e, "name"));
      etr_serde_arg(s, json_object_get(e, "arg"), nm ? nm : "", keyword,
                    &args[k], 0);
    } else {
      etr_serde_arg(s, e, "", false, &args[k], 0);
    }
    if (s->failed) return -1;
  }
  *out = args;
  *count = n;
  return 0;
}

/* ------------------------------------------------------------ TensorMeta */

/* A SymInt (union, or a bare int in 2023's storage_offset): *value, or -1
 * and *expr for an expression.  False when it is neither. */
static bool sym_int_value(etr_serde_t *s, json_t *u, int64_t *value,
                          const char **expr) {
  *expr = NULL;
  if (json_is_integer(u)) {
    *value = json_integer_value(u);
    return true;
  }
  const char *tag;
  json_t *v;
  if (!etr_union_pick(u, s->dialect, &tag, &v)) return false;
  if (json_is_integer(v)) {
    *value = json_integer_value(v);
    return true;
  }
  *value = -1;
  if (json_is_string(v)) {
    *expr = str_dup(s, v);
  } else if (json_is_object(v)) {
    *expr = obj_str_dup(s, v, "expr_str");
  }
  return *expr != NULL;
}

/* sizes or strides: a list of SymInts into *vals (and *exprs when one is
 * symbolic).  False when malformed. */
static bool sym_list(etr_serde_t *s, json_t *list, uint32_t *dim,
                     const int64_t **vals, const char *const **exprs) {
  if (!json_is_array(list)) return false;
  size_t n = json_array_size(list);
  if (n > META_MAX_DIMS) return false;
  *dim = (uint32_t)n;
  int64_t *v = arena_array(s, n, sizeof *v);
  const char **e = NULL;
  if (n && !v) return false;
  for (size_t k = 0; k < n; k++) {
    const char *expr;
    if (!sym_int_value(s, json_array_get(list, k), &v[k], &expr)) return false;
    if (expr) {
      if (!e) e = arena_array(s, n, sizeof *e);
      if (!e) return false;
      e[k] = expr;
    }
  }
  *vals = v;
  *exprs = e;
  return true;
}

static void tensor_meta(etr_serde_t *s, const char *name, json_t *m,
                        etk_etrecord_tensor_meta_t *t) {
  memset(t, 0, sizeof *t);
  t->name = etr_arena_strdup(s->arena, name);
  t->device = "";
  if (!t->name) s->failed = true;
  json_t *inner = json_object_get(m, "meta"); /* 2023 wrapper */
  if (json_is_object(inner) && !json_object_get(m, "dtype")) m = inner;
  json_t *dtype = json_object_get(m, "dtype");
  if (!json_is_object(m) || !json_is_integer(dtype)) {
    t->malformed = true;
    return;
  }
  t->dtype = (int32_t)json_integer_value(dtype);
  if (!sym_list(s, json_object_get(m, "sizes"), &t->dim, &t->sizes,
                &t->size_exprs)) {
    t->malformed = true;
    return;
  }
  json_t *strides = json_object_get(m, "strides");
  if (strides && !json_is_null(strides)) {
    uint32_t sdim = 0;
    if (!sym_list(s, strides, &sdim, &t->strides, &t->stride_exprs) ||
        sdim != t->dim) {
      t->malformed = true;
      return;
    }
    t->has_strides = true;
  }
  json_t *off = json_object_get(m, "storage_offset");
  const char *expr;
  if (off && !sym_int_value(s, off, &t->storage_offset, &expr))
    t->storage_offset = 0;
  t->requires_grad = json_is_true(json_object_get(m, "requires_grad"));
  json_t *dev = json_object_get(m, "device");
  const char *type = json_string_value(json_object_get(dev, "type"));
  json_t *idx = json_object_get(dev, "index");
  if (type) {
    char buf[96];
    if (json_is_integer(idx))
      snprintf(buf, sizeof buf, "%.60s:%lld", type,
               (long long)json_integer_value(idx));
    else
      snprintf(buf, sizeof buf, "%.60s", type);
    t->device = etr_arena_strdup(s->arena, buf);
    if (!t->device) s->failed = true;
  }
  json_t *layout = json_object_get(m, "layout");
  if (json_is_integer(layout)) t->layout = (int32_t)json_integer_value(layout);
}

/* ------------------------------------------------------------- signature */

/* The name-bearing field of each spec tag (NULL: no target). */
static const char *spec_target_key(const char *tag) {
  static const char *const pairs[][2] = {
      {"parameter", "parameter_name"},
      {"buffer", "buffer_name"},
      {"tensor_constant", "tensor_constant_name"},
      {"custom_obj", "custom_obj_name"},
      {"buffer_mutation", "buffer_name"},
      {"gradient_to_parameter", "parameter_name"},
      {"gradient_to_user_input", "user_input_name"},
      {"user_input_mutation", "user_input_name"},
      {"parameter_mutation", "parameter_name"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (strcmp(pairs[i][0], tag) == 0) return pairs[i][1];
  return NULL;
}

/* A spec's `arg`: an Argument union for user_input/user_output, else a
 * bare TensorArgument / TokenArgument / CustomObjArgument object. */
static void spec_arg(etr_serde_t *s, const char *tag, json_t *arg,
                     etk_etrecord_arg_t *a) {
  if (strcmp(tag, "user_input") == 0 || strcmp(tag, "user_output") == 0) {
    etr_serde_arg(s, arg, "", false, a, 0);
    return;
  }
  memset(a, 0, sizeof *a);
  a->name = "";
  a->graph = SIZE_MAX;
  a->kind = strcmp(tag, "token") == 0        ? ETK_ETRECORD_ARG_TOKEN
            : strcmp(tag, "custom_obj") == 0 ? ETK_ETRECORD_ARG_CUSTOM_OBJ
                                             : ETK_ETRECORD_ARG_TENSOR;
  a->tag = a->kind == ETK_ETRECORD_ARG_TOKEN        ? "as_token"
           : a->kind == ETK_ETRECORD_ARG_CUSTOM_OBJ ? "as_custom_obj"
                                                    : "as_tensor";
  const char *n = obj_str_dup(s, arg, "name");
  if (!n) {
    a->kind = ETK_ETRECORD_ARG_UNKNOWN;
    return;
  }
  const char **names = arena_array(s, 1, sizeof *names);
  if (names) names[0] = n;
  a->names = names;
  a->count = 1;
  if (a->kind == ETK_ETRECORD_ARG_CUSTOM_OBJ)
    a->s = obj_str_dup(s, arg, "class_fqn");
}

static void spec_decode(etr_serde_t *s, json_t *u, etk_etrecord_spec_t *sp) {
  memset(sp, 0, sizeof *sp);
  sp->tag = "";
  sp->arg.name = "";
  sp->arg.tag = "";
  sp->arg.graph = SIZE_MAX;
  const char *tag;
  json_t *v;
  if (!etr_union_pick(u, s->dialect, &tag, &v)) return;
  sp->tag = etr_arena_strdup(s->arena, tag);
  if (!sp->tag) {
    s->failed = true;
    return;
  }
  if (strcmp(tag, "constant_input") == 0) {
    etk_etrecord_arg_t *c = arena_array(s, 1, sizeof *c);
    if (!c) return;
    etr_serde_arg(s, json_object_get(v, "value"), "", false, c, 0);
    sp->constant = c;
    const char **names = arena_array(s, 1, sizeof *names);
    if (names) names[0] = obj_str_dup(s, v, "name");
    sp->arg.kind = ETK_ETRECORD_ARG_NONE;
    sp->arg.names = names;
    sp->arg.count = names && names[0] ? 1 : 0;
    sp->target = names ? names[0] : NULL;
    return;
  }
  spec_arg(s, tag, json_object_get(v, "arg"), &sp->arg);
  const char *key = spec_target_key(tag);
  if (key) sp->target = obj_str_dup(s, v, key);
  json_t *persistent = json_object_get(v, "persistent");
  sp->persistent = !json_is_false(persistent);
}

static void specs_decode(etr_serde_t *s, json_t *list,
                         const etk_etrecord_spec_t **out, size_t *count) {
  *out = NULL;
  *count = 0;
  if (!json_is_array(list)) return;
  size_t n = json_array_size(list);
  etk_etrecord_spec_t *specs = arena_array(s, n, sizeof *specs);
  if (!specs) return;
  for (size_t k = 0; k < n && !s->failed; k++)
    spec_decode(s, json_array_get(list, k), &specs[k]);
  *out = specs;
  *count = n;
}

/* ----------------------------------------------------------------- graphs */

static void sym_values(etr_serde_t *s, json_t *graph, etk_etrecord_graph_t *g) {
  static const struct {
    const char *key;
    etk_etrecord_arg_kind_t kind;
  } maps[3] = {{"sym_int_values", ETK_ETRECORD_ARG_SYM_INT},
               {"sym_bool_values", ETK_ETRECORD_ARG_SYM_BOOL},
               {"sym_float_values", ETK_ETRECORD_ARG_SYM_FLOAT}};
  size_t n = 0;
  for (int m = 0; m < 3; m++) {
    json_t *o = json_object_get(graph, maps[m].key);
    if (json_is_object(o)) n += json_object_size(o);
  }
  const char **names = arena_array(s, n, sizeof *names);
  etk_etrecord_arg_kind_t *kinds = arena_array(s, n, sizeof *kinds);
  if (n && (!names || !kinds)) return;
  size_t k = 0;
  for (int m = 0; m < 3; m++) {
    const char *key;
    json_t *v;
    json_t *o = json_object_get(graph, maps[m].key);
    if (!json_is_object(o)) continue;
    json_object_foreach(o, key, v) {
      names[k] = etr_arena_strdup(s->arena, key);
      if (!names[k]) s->failed = true;
      kinds[k++] = maps[m].kind;
    }
  }
  g->sym_names = names;
  g->sym_kinds = kinds;
  g->sym_count = k;
}

int etr_serde_graph(etr_serde_t *s, json_t *graph, json_t *signature,
                    etk_etrecord_graph_t *g) {
  etk_etrecord_arg_t *args;
  size_t count;
  if (etr_serde_args(s, json_object_get(graph, "inputs"), false, &args,
                     &count) != 0)
    return -1;
  g->inputs = args;
  g->input_count = count;
  if (etr_serde_args(s, json_object_get(graph, "outputs"), false, &args,
                     &count) != 0)
    return -1;
  g->outputs = args;
  g->output_count = count;

  json_t *tv = json_object_get(graph, "tensor_values");
  if (json_is_object(tv) && json_object_size(tv)) {
    size_t n = json_object_size(tv), k = 0;
    etk_etrecord_tensor_meta_t *metas = arena_array(s, n, sizeof *metas);
    if (!metas) return -1;
    const char *key;
    json_t *v;
    json_object_foreach(tv, key, v) {
      if (k >= n || s->failed) break;
      tensor_meta(s, key, v, &metas[k++]);
    }
    g->tensor_values = metas;
    g->tensor_value_count = k;
  }
  json_t *co = json_object_get(graph, "custom_obj_values");
  if (json_is_object(co) && json_object_size(co)) {
    size_t n = json_object_size(co), k = 0;
    etk_etrecord_custom_obj_t *objs = arena_array(s, n, sizeof *objs);
    if (!objs) return -1;
    const char *key;
    json_t *v;
    json_object_foreach(co, key, v) {
      if (k >= n) break;
      objs[k].name = etr_arena_strdup(s->arena, key);
      objs[k].class_fqn = obj_str_dup(s, v, "class_fqn");
      if (!objs[k].name) s->failed = true;
      k++;
    }
    g->custom_objs = objs;
    g->custom_obj_count = k;
  }
  sym_values(s, graph, g);
  if (json_is_object(signature)) {
    g->has_signature = true;
    specs_decode(s, json_object_get(signature, "input_specs"), &g->input_specs,
                 &g->input_spec_count);
    specs_decode(s, json_object_get(signature, "output_specs"),
                 &g->output_specs, &g->output_spec_count);
  }
  return s->failed ? -1 : 0;
}

/* One key token (quotes included) as a NUL-terminated string: copied
 * when it has no escapes, else decoded by jansson.  malloc'd; NULL with
 * *bad set when jansson refuses it. */
static char *key_text(const char *t, etr_json_span_t k,
                      const etk_etrecord_limits_t *limits, const char *where,
                      bool *bad) {
  size_t n = k.end - k.start - 2;
  const char *body = t + k.start + 1;
  if (!memchr(body, '\\', n)) {
    char *c = malloc(n + 1);
    if (c) {
      memcpy(c, body, n);
      c[n] = 0;
    }
    return c;
  }
  json_t *v;
  if (etr_json_parse(t + k.start, k.end - k.start, limits, where, NULL, &v,
                     NULL) != ETK_OK ||
      !json_is_string(v)) {
    if (v) json_decref(v);
    *bad = true;
    return NULL;
  }
  size_t len = json_string_length(v);
  char *c = malloc(len + 1);
  if (c) memcpy(c, json_string_value(v), len + 1);
  json_decref(v);
  return c;
}

int etr_serde_tensor_values_lazy(etr_serde_t *s, const char *text,
                                 etr_json_span_t span,
                                 const etk_etrecord_limits_t *limits,
                                 const char *where, etk_etrecord_graph_t *g) {
  etr_json_iter_t it;
  etr_json_span_t k, v;
  size_t n = 0, at = 0;
  if (!etr_json_iter_init(text, span, '{', &it)) return 1;
  while (etr_json_next(text, &it, &k, &v)) n++;
  if (it.bad) return 1;
  if (!n) return 0;
  etk_etrecord_tensor_meta_t *metas = arena_array(s, n, sizeof *metas);
  if (!metas) return -1;
  etr_json_iter_init(text, span, '{', &it);
  while (at < n && etr_json_next(text, &it, &k, &v)) {
    bool bad = false;
    json_t *m = NULL;
    char *key = key_text(text, k, limits, where, &bad);
    if (key && etr_json_parse(text + v.start, v.end - v.start, limits, where,
                              NULL, &m, NULL) != ETK_OK)
      bad = true;
    if (key && m) tensor_meta(s, key, m, &metas[at++]);
    free(key);
    if (m) json_decref(m);
    if (bad) return 1;
    if (!key || s->failed) return -1;
  }
  g->tensor_values = metas;
  g->tensor_value_count = at;
  return 0;
}

/* ------------------------------------------------------- debug handles */

int etr_serde_debug_handles(etr_arena_t *arena, const char *text, int64_t **out,
                            size_t *count) {
  *out = NULL;
  *count = 0;
  size_t len = strlen(text), n = 0;
  for (size_t i = 0; i < len; i++)
    if (text[i] >= '0' && text[i] <= '9' &&
        (i == 0 || text[i - 1] < '0' || text[i - 1] > '9'))
      n++;
  if (n == 0) return ETK_OK;
  /* Only "7", "[7, 8]", "(7, 8)", "(7,)" and the like: digits, one
   * optional minus sign each, commas, spaces and one pair of brackets. */
  size_t i = 0, k = 0;
  while (i < len && text[i] == ' ') i++;
  char close = 0;
  if (i < len && (text[i] == '[' || text[i] == '(')) {
    close = text[i] == '[' ? ']' : ')';
    i++;
  }
  int64_t *vals = etr_arena_calloc(arena, n, sizeof *vals);
  if (!vals) return ETK_E_NO_MEMORY;
  for (;;) {
    while (i < len && text[i] == ' ') i++;
    if (i < len && close && text[i] == close) {
      i++;
      break;
    }
    size_t start = i;
    if (i < len && text[i] == '-') i++;
    while (i < len && text[i] >= '0' && text[i] <= '9') i++;
    if (k >= n || !etr_parse_int64(text + start, i - start, &vals[k]))
      return ETK_E_FORMAT;
    k++;
    while (i < len && text[i] == ' ') i++;
    if (i < len && text[i] == ',') {
      i++;
      continue;
    }
    if (close) {
      if (i < len && text[i] == close) {
        i++;
        break;
      }
      return ETK_E_FORMAT;
    }
    break;
  }
  while (i < len && text[i] == ' ') i++;
  if (i != len || k == 0) return ETK_E_FORMAT;
  *out = vals;
  *count = k;
  return ETK_OK;
}
