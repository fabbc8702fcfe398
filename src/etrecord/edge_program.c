/*
 * edge_program.c - from a serialised ExportedProgram (torch.export JSON) to the
 * flat node list of etk_etrecord_program_t.
 *
 * The JSON is walked once, graph_module.graph first.  For each node the
 * walker keeps what the developer tools use (name, target, op type, debug
 * handle, stack trace, module stack, source_fn stack, every metadata
 * string, an argument summary, output names) and, through serde.c, the
 * typed arguments and outputs of each node and, per graph, its inputs,
 * outputs, tensor_values and signature (etkit/etrecord_serde.h); it drops
 * the rest (sympy ranges, module call graphs).  Each graph walked gets a
 * record in `graphs` (index 0 the top graph) and every node the index of
 * its graph.  Nested graphs are followed: an
 * "as_graph" argument (control flow) and the original_module inside the
 * JSON string argument of an executorch_call_delegate node (a lowered
 * module).  Their nodes follow the owning node in the list, with depth and
 * parent set; limits->max_graph_depth bounds the recursion and
 * limits->max_nodes the list.
 *
 * Both union spellings are read by union_pick(): an object with one key is
 * the current form; an object with several keys is the 2023 form, where
 * the chosen tag is the one member that is not null.  The first union
 * seen decides the program's reported dialect.
 *
 * Ownership: strings are copied out of jansson into the program's own
 * arena; the node array is malloc'd and grows while walking, so the walker
 * refers to nodes by index, never by pointer, across a nested walk.  After
 * the walk a handle index (node pointers sorted by debug handle, then node
 * order) is built for etk_etrecord_program_nodes_for_handle().
 *
 * Structural problems (a node that is not an object, "nodes" that is not a
 * list) are ETK_E_FORMAT errors naming the member and the node; jansson
 * keeps no positions for parsed values, so only syntax errors carry a
 * line and column.  Unknown keys are ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define EDGE_NAME "edge_dialect_exported_program"
#define ARGS_SUMMARY_CAP 480
#define MAX_GRAPH_DEPTH_CAP 64

typedef struct name_vec {
  const char **v;
  size_t n, cap;
  bool failed;
} name_vec_t;

static void names_push(name_vec_t *nv, const char *s) {
  if (nv->failed) return;
  if (!ETK_VEC_RESERVE(nv->v, nv->cap, nv->n + 1)) {
    nv->failed = true;
    return;
  }
  nv->v[nv->n++] = s;
}

typedef struct walker {
  etk_etrecord_t *rec;
  etr_program_t *prog;
  const char *member;
  etk_etrecord_node_t *nodes;
  size_t count, cap;
  etk_error_t *err;
  etk_etrecord_graph_t *graphs; /* malloc'd, grows during the walk */
  size_t graph_count, graph_cap;
  /* lazy: the top graph's nodes and tensor_values are read from the
   * member's text one element at a time (json_lazy.c); lazy_retry: text
   * the scanner or jansson refused there, parse the whole member */
  const char *text;
  etr_json_span_t nodes_span, values_span;
  bool lazy, has_values, lazy_retry;
} walker_t;

static int oom(walker_t *w) {
  etk_error_where(w->err, w->member);
  return etk_error_set(w->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                       "out of memory reading the program");
}

static int format_error(walker_t *w, const char *fmt, ...)
    ETK_PRINTF_LIKE(2, 3);
static int format_error(walker_t *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  etk_error_vset(w->err, ETK_E_FORMAT, ETK_NO_OFFSET, w->member, fmt, ap);
  va_end(ap);
  return ETK_E_FORMAT;
}

/* Picks the chosen member of a union in either spelling (serde.c). */
static bool union_pick(walker_t *w, json_t *u, const char **tag, json_t **val) {
  return etr_union_pick(u, &w->prog->pub.dialect, tag, val);
}

/* "null", "an integer", ... for messages about mistyped fields. */
static const char *json_kind_name(const json_t *v) {
  switch (json_typeof(v)) {
    case JSON_OBJECT:
      return "an object";
    case JSON_ARRAY:
      return "a list";
    case JSON_STRING:
      return "a string";
    case JSON_INTEGER:
      return "an integer";
    case JSON_REAL:
      return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
      return "a boolean";
    default:
      return "null";
  }
}

static const char *obj_string(json_t *obj, const char *key) {
  json_t *v = json_object_get(obj, key);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The member of a SymInt or SymBool union `u` (a symbol's name or a
 * constant), NULL when `u` is no union; *name is the symbol's name when the
 * member is a string, else NULL. */
static json_t *sym_member(walker_t *w, json_t *u, const char **name) {
  const char *tag;
  json_t *v;
  *name = NULL;
  if (!union_pick(w, u, &tag, &v)) return NULL;
  if (json_is_string(v)) *name = json_string_value(v);
  return v;
}

/* Names of the values an Argument refers to (tensors, sym ints, custom
 * objects, graphs), in order. */
static void arg_names(walker_t *w, json_t *arg, name_vec_t *out) {
  const char *tag;
  json_t *v;
  if (!union_pick(w, arg, &tag, &v)) return;
  if (strcmp(tag, "as_tensor") == 0 || strcmp(tag, "as_custom_obj") == 0 ||
      strcmp(tag, "as_graph") == 0) {
    const char *n = obj_string(v, "name");
    if (n) names_push(out, n);
  } else if (strcmp(tag, "as_tensors") == 0) {
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
      const char *n = obj_string(e, "name");
      if (n) names_push(out, n);
    }
  } else if (strcmp(tag, "as_sym_int") == 0 ||
             strcmp(tag, "as_sym_bool") == 0) {
    const char *n;
    sym_member(w, v, &n);
    if (n) names_push(out, n);
  } else if (strcmp(tag, "as_sym_ints") == 0 ||
             strcmp(tag, "as_sym_bools") == 0 ||
             strcmp(tag, "as_optional_tensors") == 0) {
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
      const char *t2;
      json_t *v2;
      if (!union_pick(w, e, &t2, &v2)) continue;
      if (json_is_string(v2))
        names_push(out, json_string_value(v2));
      else if (json_is_object(v2) && obj_string(v2, "name"))
        names_push(out, obj_string(v2, "name"));
    }
  }
}

static const char *serde_dtype_name(json_int_t d) {
  static const char *const names[] = {
      "unknown",     "uint8",        "int8",    "int16",    "int32",
      "int64",       "float16",      "float32", "float64",  "complex32",
      "complex64",   "complex128",   "bool",    "bfloat16", "uint16",
      "float8_e5m2", "float8_e4m3fn"};
  if (d >= 0 && (size_t)d < sizeof names / sizeof names[0]) return names[d];
  return NULL;
}

static void add_number(etr_text_t *t, json_t *v) {
  int special = etr_json_special(v);
  if (special == 1)
    etr_text_adds(t, "inf");
  else if (special == -1)
    etr_text_adds(t, "-inf");
  else if (special == 2)
    etr_text_adds(t, "nan");
  else if (json_is_integer(v))
    etr_text_addf(t, "%lld", (long long)json_integer_value(v));
  else if (json_is_real(v))
    etr_text_addf(t, "%g", json_real_value(v));
  else if (json_is_true(v))
    etr_text_adds(t, "True");
  else if (json_is_false(v))
    etr_text_adds(t, "False");
  else
    etr_text_adds(t, "?");
}

static void add_quoted(etr_text_t *t, const char *s, size_t n) {
  size_t show = n > 40 ? 40 : n;
  etr_text_add(t, "'", 1);
  for (size_t i = 0; i < show; i++) {
    char c = s[i];
    etr_text_add(t, (unsigned char)c < 0x20 ? "?" : &c, 1);
  }
  if (show < n) etr_text_adds(t, "...");
  etr_text_add(t, "'", 1);
}

static void add_list(walker_t *w, etr_text_t *t, json_t *arr, int kind) {
  etr_text_add(t, "[", 1);
  size_t i;
  json_t *e;
  json_array_foreach(arr, i, e) {
    if (i) etr_text_adds(t, ", ");
    if (kind == 0) {
      add_number(t, e);
    } else if (kind == 1) {
      const char *n = obj_string(e, "name");
      etr_text_adds(t, n ? n : "?");
    } else if (kind == 2) {
      if (json_is_string(e))
        add_quoted(t, json_string_value(e), json_string_length(e));
    } else {
      const char *tag;
      json_t *v;
      if (!union_pick(w, e, &tag, &v))
        etr_text_adds(t, "?");
      else if (strcmp(tag, "as_none") == 0)
        etr_text_adds(t, "None");
      else if (json_is_string(v))
        etr_text_adds(t, json_string_value(v));
      else if (json_is_object(v) && obj_string(v, "name"))
        etr_text_adds(t, obj_string(v, "name"));
      else
        add_number(t, v);
    }
  }
  etr_text_add(t, "]", 1);
}

/* Appends a short rendering of an Argument ("x", "[1, 2]", "None"...). */
static void add_arg(walker_t *w, etr_text_t *t, json_t *arg) {
  const char *tag;
  json_t *v;
  if (!union_pick(w, arg, &tag, &v)) {
    etr_text_adds(t, "?");
    return;
  }
  if (strcmp(tag, "as_none") == 0) {
    etr_text_adds(t, "None");
  } else if (strcmp(tag, "as_tensor") == 0 ||
             strcmp(tag, "as_custom_obj") == 0) {
    const char *n = obj_string(v, "name");
    etr_text_adds(t, n ? n : "?");
  } else if (strcmp(tag, "as_graph") == 0) {
    const char *n = obj_string(v, "name");
    etr_text_addf(t, "<graph %s>", n ? n : "?");
  } else if (strcmp(tag, "as_tensors") == 0) {
    add_list(w, t, v, 1);
  } else if (strcmp(tag, "as_int") == 0 || strcmp(tag, "as_float") == 0 ||
             strcmp(tag, "as_bool") == 0 ||
             strcmp(tag, "as_memory_format") == 0 ||
             strcmp(tag, "as_layout") == 0) {
    add_number(t, v);
  } else if (strcmp(tag, "as_ints") == 0 || strcmp(tag, "as_floats") == 0 ||
             strcmp(tag, "as_bools") == 0) {
    add_list(w, t, v, 0);
  } else if (strcmp(tag, "as_string") == 0 || strcmp(tag, "as_operator") == 0) {
    if (!json_is_string(v)) {
      etr_text_adds(t, "?");
    } else {
      const char *s = json_string_value(v);
      size_t n = json_string_length(v);
      size_t k = 0;
      while (k < n && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t')) k++;
      if (n > 40 && k < n && s[k] == '{')
        etr_text_adds(t, "<json>");
      else
        add_quoted(t, s, n);
    }
  } else if (strcmp(tag, "as_strings") == 0) {
    add_list(w, t, v, 2);
  } else if (strcmp(tag, "as_scalar_type") == 0) {
    const char *n =
        json_is_integer(v) ? serde_dtype_name(json_integer_value(v)) : NULL;
    if (n)
      etr_text_adds(t, n);
    else
      add_number(t, v);
  } else if (strcmp(tag, "as_device") == 0) {
    const char *ty = obj_string(v, "type");
    json_t *idx = json_object_get(v, "index");
    etr_text_adds(t, ty ? ty : "?");
    if (json_is_integer(idx))
      etr_text_addf(t, ":%lld", (long long)json_integer_value(idx));
  } else if (strcmp(tag, "as_sym_int") == 0 ||
             strcmp(tag, "as_sym_bool") == 0) {
    const char *n;
    json_t *m = sym_member(w, v, &n);
    if (n)
      etr_text_adds(t, n);
    else if (m)
      add_number(t, m);
  } else if (strcmp(tag, "as_sym_ints") == 0 ||
             strcmp(tag, "as_sym_bools") == 0 ||
             strcmp(tag, "as_optional_tensors") == 0) {
    add_list(w, t, v, 3);
  } else {
    etr_text_addf(t, "<%s>", tag);
  }
}

static const char **names_to_arena(walker_t *w, name_vec_t *nv, bool *ok) {
  *ok = !nv->failed;
  if (!*ok || nv->n == 0) return NULL;
  const char **a = etr_arena_calloc(&w->prog->arena, nv->n, sizeof *a);
  if (!a) {
    *ok = false;
    return NULL;
  }
  for (size_t i = 0; i < nv->n; i++) {
    a[i] = etr_arena_strdup(&w->prog->arena, nv->v[i]);
    if (!a[i]) {
      *ok = false;
      return NULL;
    }
  }
  return a;
}

/* Where a graph comes from, for its etk_etrecord_graph_t record. */
typedef struct graph_origin {
  etk_etrecord_graph_kind_t kind;
  const char *name;    /* "" at top */
  const char *backend; /* lowered modules */
  json_t *signature;   /* graph_module.signature, or NULL */
} graph_origin_t;

static int walk_graph(walker_t *w, json_t *graph, uint32_t depth, size_t parent,
                      const graph_origin_t *origin);

/* Parses a delegate's lowered module (a JSON document inside a string) and
 * walks its original module.  `index` is the delegate node. */
static int walk_lowered_module(walker_t *w, size_t index, const char *arg_name,
                               const char *text, size_t len, uint32_t depth) {
  char context[160];
  snprintf(context, sizeof context, "in the lowered module of node '%.80s'",
           w->nodes[index].name);
  json_t *lm;
  int rc = etr_json_parse(text, len, &w->rec->limits, w->member, context, &lm,
                          w->err);
  if (rc != ETK_OK) return rc;
  const char *backend = obj_string(lm, "backend_id");
  if (backend) {
    w->nodes[index].delegate_backend =
        etr_arena_strdup(&w->prog->arena, backend);
    if (!w->nodes[index].delegate_backend) rc = oom(w);
  }
  json_t *om = json_object_get(lm, "original_module");
  json_t *gm = json_object_get(om, "graph_module");
  json_t *g = json_object_get(gm, "graph");
  graph_origin_t origin = {ETK_ETRECORD_GRAPH_LOWERED, arg_name,
                           w->nodes[index].delegate_backend,
                           json_object_get(gm, "signature")};
  if (rc == ETK_OK && json_is_object(g))
    rc = walk_graph(w, g, depth + 1, index, &origin);
  json_decref(lm);
  return rc;
}

static bool is_delegate_op(const char *op) {
  return strcmp(op, "executorch_call_delegate") == 0;
}

/* The node's metadata as key/value text (strings and integers), with the
 * fields the linker reads picked out, and its module and source-function
 * stacks decoded (a stack that does not decode keeps only its raw text). */
static int node_metadata(walker_t *w, etk_etrecord_node_t *n, json_t *meta) {
  etr_arena_t *arena = &w->prog->arena;
  if (json_is_object(meta) && json_object_size(meta)) {
    size_t m = json_object_size(meta);
    etk_etrecord_metadata_t *kv = etr_arena_calloc(arena, m, sizeof *kv);
    if (!kv) return oom(w);
    size_t k = 0;
    const char *key;
    json_t *v;
    json_object_foreach(meta, key, v) {
      char num[32];
      const char *value;
      size_t value_len;
      if (json_is_string(v)) {
        value = json_string_value(v);
        value_len = json_string_length(v);
      } else if (json_is_integer(v)) {
        value_len = (size_t)snprintf(num, sizeof num, "%lld",
                                     (long long)json_integer_value(v));
        value = num;
      } else {
        continue;
      }
      kv[k].key = etr_arena_strdup(arena, key);
      kv[k].value = etr_arena_strndup(arena, value, value_len);
      if (!kv[k].key || !kv[k].value) return oom(w);
      if (strcmp(key, "debug_handle") == 0) {
        int64_t h;
        if (etr_parse_int64(kv[k].value, strlen(kv[k].value), &h)) {
          n->has_debug_handle = true;
          n->debug_handle = h;
        }
      } else if (strcmp(key, "stack_trace") == 0) {
        n->stack_trace = kv[k].value;
      } else if (strcmp(key, "nn_module_stack") == 0) {
        n->nn_module_stack = kv[k].value;
      } else if (strcmp(key, "source_fn_stack") == 0) {
        n->source_fn_stack = kv[k].value;
      } else if (strcmp(key, "torch_fn") == 0) {
        n->torch_fn = kv[k].value;
      } else if (strcmp(key, "from_node") == 0) {
        n->from_node = kv[k].value;
      }
      k++;
    }
    n->metadata = kv;
    n->metadata_count = k;
  }
  /* A stack that does not decode keeps only its raw text. */
  if (n->nn_module_stack) {
    etk_etrecord_module_entry_t *mods;
    size_t count;
    int drc = etr_module_stack_decode(arena, n->nn_module_stack, &mods, &count);
    if (drc == ETK_E_NO_MEMORY) return oom(w);
    if (drc == ETK_OK) {
      n->modules = mods;
      n->module_count = count;
    }
  }
  if (n->source_fn_stack) {
    etk_etrecord_source_fn_t *fns;
    size_t count;
    int drc =
        etr_source_fn_stack_decode(arena, n->source_fn_stack, &fns, &count);
    if (drc == ETK_E_NO_MEMORY) return oom(w);
    if (drc == ETK_OK) {
      n->source_fns = fns;
      n->source_fn_count = count;
    }
  }
  return ETK_OK;
}

/* The node's argument summary ("name=value, ...", capped) and, for a
 * delegate call, the lowered module's JSON text (*lowered, borrowed from
 * `inputs`). */
static int node_args(walker_t *w, etk_etrecord_node_t *n, json_t *inputs,
                     const char **lowered, size_t *lowered_len,
                     const char **lowered_name) {
  etr_arena_t *arena = &w->prog->arena;
  size_t i;
  json_t *e;
  etr_text_t args;
  etr_text_init(&args, ARGS_SUMMARY_CAP);
  json_array_foreach(inputs, i, e) {
    if (i) etr_text_adds(&args, ", ");
    const char *arg_name = obj_string(e, "name");
    json_t *arg = json_object_get(e, "arg");
    if (arg_name) {
      etr_text_adds(&args, arg_name);
      etr_text_add(&args, "=", 1);
    }
    add_arg(w, &args, arg);
    const char *tag;
    json_t *v;
    if (!*lowered && is_delegate_op(n->op) && union_pick(w, arg, &tag, &v) &&
        strcmp(tag, "as_string") == 0 && json_is_string(v)) {
      const char *s = json_string_value(v);
      size_t len = json_string_length(v);
      size_t k = 0;
      while (k < len && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t')) k++;
      if (k < len && s[k] == '{') {
        *lowered = s;
        *lowered_len = len;
        *lowered_name = arg_name ? arg_name : "";
      }
    }
  }
  if (args.cut) {
    args.cut = false;
    etr_text_adds(&args, "...");
  }
  n->args = etr_arena_strdup(arena, args.buf ? args.buf : "");
  bool args_failed = args.failed;
  etr_text_free(&args);
  if (args_failed || !n->args) return oom(w);
  return ETK_OK;
}

/* A string field `key` of graph node `position`: fails when it is present
 * but not a string or holds a NUL byte, and (when `required`) when it is
 * missing.  Upstream's deserializer raises on each of these. */
static int node_string_field(walker_t *w, json_t *node, size_t position,
                             const char *key, bool required) {
  json_t *v = json_object_get(node, key);
  if (!v) {
    if (!required) return ETK_OK;
    return format_error(w, "graph node %zu: required field \"%s\" is missing",
                        position, key);
  }
  if (!json_is_string(v))
    return format_error(w, "graph node %zu: field \"%s\" is %s, not a string",
                        position, key, json_kind_name(v));
  if (strlen(json_string_value(v)) != json_string_length(v))
    return format_error(w, "graph node %zu: field \"%s\" contains a NUL byte",
                        position, key);
  return ETK_OK;
}

/* The node's own fields, checked before any is used: target (a string),
 * name (a string when present), inputs and outputs (lists when present),
 * metadata (an object of strings or integers when present). */
static int check_node_fields(walker_t *w, json_t *node, size_t position) {
  int rc;
  if ((rc = node_string_field(w, node, position, "target", true)) ||
      (rc = node_string_field(w, node, position, "name", false)))
    return rc;
  static const char *const lists[2] = {"inputs", "outputs"};
  for (int k = 0; k < 2; k++) {
    json_t *v = json_object_get(node, lists[k]);
    if (v && !json_is_array(v))
      return format_error(w, "graph node %zu: field \"%s\" is %s, not a list",
                          position, lists[k], json_kind_name(v));
  }
  json_t *meta = json_object_get(node, "metadata");
  if (meta && !json_is_object(meta) && !json_is_null(meta))
    return format_error(w,
                        "graph node %zu: field \"metadata\" is %s, not an "
                        "object",
                        position, json_kind_name(meta));
  const char *key;
  json_t *v;
  json_object_foreach(meta, key, v) {
    if (!json_is_string(v) && !json_is_integer(v))
      return format_error(w,
                          "graph node %zu: metadata \"%s\" is %s, not a "
                          "string",
                          position, key, json_kind_name(v));
    if (json_is_string(v) &&
        strlen(json_string_value(v)) != json_string_length(v))
      return format_error(w,
                          "graph node %zu: metadata \"%s\" contains a NUL "
                          "byte",
                          position, key);
  }
  return ETK_OK;
}

/* The node's typed arguments, outputs and debug handles
 * (etkit/etrecord_serde.h). */
static int node_structure(walker_t *w, etk_etrecord_node_t *n, json_t *inputs,
                          json_t *outputs) {
  etr_serde_t s = {&w->prog->arena, &w->prog->pub.dialect, false};
  etk_etrecord_arg_t *args;
  size_t count;
  if (etr_serde_args(&s, inputs, true, &args, &count) != 0) return oom(w);
  n->input_args = args;
  n->input_arg_count = count;
  if (etr_serde_args(&s, outputs, false, &args, &count) != 0) return oom(w);
  n->output_args = args;
  n->output_arg_count = count;
  for (size_t k = 0; k < n->metadata_count; k++) {
    if (strcmp(n->metadata[k].key, "debug_handle") != 0) continue;
    int64_t *handles;
    int rc = etr_serde_debug_handles(&w->prog->arena, n->metadata[k].value,
                                     &handles, &count);
    if (rc == ETK_E_NO_MEMORY) return oom(w);
    if (rc == ETK_OK && count) {
      n->debug_handles = handles;
      n->debug_handle_count = count;
      if (!n->has_debug_handle) {
        n->has_debug_handle = true;
        n->debug_handle = handles[0];
      }
    }
  }
  return ETK_OK;
}

static int walk_node(walker_t *w, json_t *node, size_t position, uint32_t depth,
                     size_t parent, size_t graph) {
  if (!json_is_object(node))
    return format_error(w, "graph node %zu is not an object", position);
  int frc = check_node_fields(w, node, position);
  if (frc != ETK_OK) return frc;
  if (w->count >= w->rec->limits.max_nodes) {
    etk_error_where(w->err, w->member);
    return etk_error_set(w->err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "more than %llu nodes",
                         (unsigned long long)w->rec->limits.max_nodes);
  }
  if (!ETK_VEC_RESERVE(w->nodes, w->cap, w->count + 1)) return oom(w);
  size_t index = w->count++;
  etk_etrecord_node_t *n = &w->nodes[index];
  memset(n, 0, sizeof *n);
  n->depth = depth;
  n->parent = parent;
  n->graph = graph;
  etr_arena_t *arena = &w->prog->arena;

  /* outputs (also the 2023 name) */
  name_vec_t outs = {0};
  json_t *outputs = json_object_get(node, "outputs");
  size_t i;
  json_t *e;
  json_array_foreach(outputs, i, e) arg_names(w, e, &outs);
  bool ok;
  n->outputs = names_to_arena(w, &outs, &ok);
  n->output_count = ok ? outs.n : 0;
  free(outs.v);
  if (!ok) return oom(w);

  const char *name = obj_string(node, "name");
  if (!name) name = n->output_count ? n->outputs[0] : "";
  const char *target = obj_string(node, "target");
  n->name = etr_arena_strdup(arena, name);
  n->target = etr_arena_strdup(arena, target ? target : "");
  if (!n->name || !n->target) return oom(w);
  size_t op_len = etk_etrecord_op_from_target(n->target, NULL, 0);
  char *op = etr_arena_alloc(arena, op_len + 1);
  if (!op) return oom(w);
  etk_etrecord_op_from_target(n->target, op, op_len + 1);
  n->op = op;

  int rc = node_metadata(w, n, json_object_get(node, "metadata"));
  if (rc != ETK_OK) return rc;
  json_t *inputs = json_object_get(node, "inputs");
  const char *lowered = NULL, *lowered_name = "";
  size_t lowered_len = 0;
  rc = node_args(w, n, inputs, &lowered, &lowered_len, &lowered_name);
  if (rc == ETK_OK) rc = node_structure(w, n, inputs, outputs);
  if (rc != ETK_OK) return rc;
  etk_etrecord_arg_t *args = (etk_etrecord_arg_t *)n->input_args;

  /* nested graphs: `n` may move from here on */
  if (lowered)
    rc = walk_lowered_module(w, index, lowered_name, lowered, lowered_len,
                             depth);
  json_array_foreach(inputs, i, e) {
    if (rc != ETK_OK) break;
    const char *tag;
    json_t *v;
    if (union_pick(w, json_object_get(e, "arg"), &tag, &v) &&
        strcmp(tag, "as_graph") == 0) {
      json_t *g = json_object_get(v, "graph");
      const char *gname = obj_string(v, "name");
      graph_origin_t origin = {ETK_ETRECORD_GRAPH_CONTROL_FLOW,
                               gname ? gname : "", NULL, NULL};
      if (args && args[i].kind == ETK_ETRECORD_ARG_GRAPH)
        args[i].graph = w->graph_count;
      if (json_is_object(g)) rc = walk_graph(w, g, depth + 1, index, &origin);
    }
  }
  return rc;
}

/* The top graph's tensor_values and nodes from their text spans, one
 * element's tree at a time. */
static int walk_top_lazy(walker_t *w, etr_serde_t *s, size_t gi) {
  etk_etrecord_limits_t *lim = &w->rec->limits;
  if (w->has_values) {
    int vrc = etr_serde_tensor_values_lazy(s, w->text, w->values_span, lim,
                                           w->member, &w->graphs[gi]);
    if (vrc < 0) return oom(w);
    if (vrc > 0) {
      w->lazy_retry = true;
      return ETK_E_FORMAT;
    }
  }
  etr_json_iter_t it;
  etr_json_span_t v;
  size_t i = 0;
  etr_json_iter_init(w->text, w->nodes_span, '[', &it);
  while (etr_json_next(w->text, &it, NULL, &v)) {
    json_t *node;
    if (etr_json_parse(w->text + v.start, v.end - v.start, lim, w->member, NULL,
                       &node, NULL) != ETK_OK) {
      w->lazy_retry = true;
      return ETK_E_FORMAT;
    }
    int rc = walk_node(w, node, i++, 0, ETK_ETRECORD_NO_PARENT, gi);
    json_decref(node);
    if (rc != ETK_OK) return rc;
  }
  if (it.bad) {
    w->lazy_retry = true;
    return ETK_E_FORMAT;
  }
  return ETK_OK;
}

static int walk_graph(walker_t *w, json_t *graph, uint32_t depth, size_t parent,
                      const graph_origin_t *origin) {
  uint32_t max_depth = w->rec->limits.max_graph_depth;
  if (max_depth > MAX_GRAPH_DEPTH_CAP) max_depth = MAX_GRAPH_DEPTH_CAP;
  if (depth > max_depth) {
    etk_error_where(w->err, w->member);
    return etk_error_set(w->err, ETK_E_TOO_DEEP, ETK_NO_OFFSET,
                         "graphs nested deeper than %u levels",
                         (unsigned)max_depth);
  }
  if (!ETK_VEC_RESERVE(w->graphs, w->graph_cap, w->graph_count + 1))
    return oom(w);
  size_t gi = w->graph_count++;
  etk_etrecord_graph_t *g = &w->graphs[gi];
  memset(g, 0, sizeof *g);
  g->kind = origin->kind;
  g->owner = parent;
  g->depth = depth;
  g->name = etr_arena_strdup(&w->prog->arena, origin->name);
  g->backend = origin->backend;
  if (!g->name) return oom(w);
  etr_serde_t s = {&w->prog->arena, &w->prog->pub.dialect, false};
  if (etr_serde_graph(&s, graph, origin->signature, g) != 0) return oom(w);
  if (w->lazy && gi == 0) return walk_top_lazy(w, &s, gi);
  json_t *nodes = json_object_get(graph, "nodes");
  if (!nodes) return ETK_OK;
  if (!json_is_array(nodes))
    return format_error(w, "\"nodes\" of a graph at depth %u is not a list",
                        (unsigned)depth);
  size_t i;
  json_t *node;
  json_array_foreach(nodes, i, node) {
    int rc = walk_node(w, node, i, depth, parent, gi);
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}

static int cmp_handle_ref(const void *a, const void *b) {
  const etr_handle_ref_t *x = a, *y = b;
  if (x->handle != y->handle) return x->handle < y->handle ? -1 : 1;
  return (x->node > y->node) - (x->node < y->node);
}

static int build_index(walker_t *w) {
  etr_program_t *p = w->prog;
  size_t n = 0;
  for (size_t i = 0; i < w->count; i++) {
    const etk_etrecord_node_t *node = &w->nodes[i];
    if (node->has_debug_handle && strcmp(node->op, "getitem") != 0 &&
        strcmp(node->op, "alloc") != 0)
      n++;
  }
  if (n == 0) return ETK_OK;
  etr_handle_ref_t *refs = malloc(n * sizeof *refs);
  p->index_handles = etr_arena_calloc(&p->arena, n, sizeof(int64_t));
  p->index_nodes = etr_arena_calloc(&p->arena, n, sizeof(*p->index_nodes));
  if (!refs || !p->index_handles || !p->index_nodes) {
    free(refs);
    return oom(w);
  }
  size_t k = 0;
  for (size_t i = 0; i < w->count; i++) {
    const etk_etrecord_node_t *node = &w->nodes[i];
    if (node->has_debug_handle && strcmp(node->op, "getitem") != 0 &&
        strcmp(node->op, "alloc") != 0) {
      refs[k].handle = node->debug_handle;
      refs[k].node = i;
      k++;
    }
  }
  qsort(refs, n, sizeof *refs, cmp_handle_ref);
  for (size_t i = 0; i < n; i++) {
    p->index_handles[i] = refs[i].handle;
    p->index_nodes[i] = &w->nodes[refs[i].node];
  }
  p->index_count = n;
  free(refs);
  return ETK_OK;
}

static int graph_values(walker_t *w, json_t *list, const char *const **out,
                        size_t *count) {
  name_vec_t nv = {0};
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e) arg_names(w, e, &nv);
  bool ok;
  *out = names_to_arena(w, &nv, &ok);
  *count = ok ? nv.n : 0;
  free(nv.v);
  return ok ? ETK_OK : oom(w);
}

void etr_program_free(etr_program_t *prog) {
  if (!prog) return;
  free(prog->nodes);
  free(prog->graphs);
  etr_arena_free(&prog->arena);
  free(prog);
}

/* Members from this size on are read lazily (walk_top_lazy). */
#define LAZY_MIN_BYTES ((size_t)1 << 16)

/* For a big member: the document with the top graph's nodes and
 * tensor_values left out (as [] and {}), parsed into *root, and their spans
 * in *lz.  false: parse the whole member instead (a small member, or text
 * the scanner or jansson refuses: the whole parse then reports it). */
static bool lazy_root(etk_etrecord_t *rec, const etr_member_t *m,
                      const char *member, walker_t *lz, json_t **root) {
  const char *t = (const char *)m->data;
  size_t len = m->len;
  etr_json_span_t r, gm, g, *a = &lz->nodes_span, *b = &lz->values_span;
  if (len < LAZY_MIN_BYTES ||
      etr_json_check(t, len, &rec->limits, member, NULL) != ETK_OK ||
      !etr_json_root(t, len, &r) ||
      !etr_json_member(t, r, "graph_module", &gm) ||
      !etr_json_member(t, gm, "graph", &g) ||
      !etr_json_member(t, g, "nodes", a) || t[a->start] != '[')
    return false;
  lz->has_values =
      etr_json_member(t, g, "tensor_values", b) && t[b->start] == '{';
  if (!lz->has_values) *b = (etr_json_span_t){a->end, a->end};
  if (b->start < a->start) {
    a = &lz->values_span;
    b = &lz->nodes_span;
  }
  size_t cut = (a->end - a->start) + (b->end - b->start), n = 0;
  char *sk = malloc(len - cut + 5);
  if (!sk) return false;
  memcpy(sk, t, a->start);
  n = a->start;
  memcpy(sk + n, t[a->start] == '[' ? "[]" : "{}", 2);
  n += 2;
  memcpy(sk + n, t + a->end, b->start - a->end);
  n += b->start - a->end;
  if (b->end > b->start) {
    memcpy(sk + n, t[b->start] == '[' ? "[]" : "{}", 2);
    n += 2;
  }
  memcpy(sk + n, t + b->end, len - b->end);
  n += len - b->end;
  bool ok =
      etr_json_parse(sk, n, &rec->limits, member, NULL, root, NULL) == ETK_OK;
  free(sk);
  lz->text = t;
  lz->lazy = ok;
  return ok;
}

static int parse_root(etk_etrecord_t *rec, const etr_program_slot_t *slot,
                      json_t *root, walker_t *lz, etr_program_t **out,
                      etk_error_t *err);
static int parse_member(etk_etrecord_t *rec, const etr_program_slot_t *slot,
                        etr_member_t *m, etr_program_t **out, etk_error_t *err);

int etr_program_parse(etk_etrecord_t *rec, const etr_program_slot_t *slot,
                      etr_program_t **out, etk_error_t *err) {
  *out = NULL;
  const char *member = slot->ref.member;
  const etk_etrecord_member_t *pub = etk_etrecord_member_find(rec, member);
  if (!pub) {
    return etk_error_set_where(err, member, ETK_E_NOT_FOUND, "no such member");
  }
  etr_member_t *m = (etr_member_t *)(void *)pub; /* pub is the first field */
  bool cached = m->loaded; /* someone may hold its bytes: keep them */
  int rc = etr_member_load(rec, m, err);
  if (rc != ETK_OK) return rc;
  rc = parse_member(rec, slot, m, out, err);
  if (!cached) etr_member_unload(m); /* the program owns copies */
  return rc;
}

static int parse_member(etk_etrecord_t *rec, const etr_program_slot_t *slot,
                        etr_member_t *m, etr_program_t **out,
                        etk_error_t *err) {
  const char *member = slot->ref.member;
  const etk_etrecord_member_t *pub = &m->pub;
  json_t *root;
  int rc;
  walker_t lz;
  memset(&lz, 0, sizeof lz);
  if (lazy_root(rec, m, member, &lz, &root)) {
    rc = parse_root(rec, slot, root, &lz, out, err);
    if (rc == ETK_OK || !lz.lazy_retry) return rc;
    memset(&lz, 0, sizeof lz);
  }
  rc = etr_member_load_json(rec, pub, member, &root, err);
  if (rc != ETK_OK) return rc;
  return parse_root(rec, slot, root, &lz, out, err);
}

/* The program of a parsed member (root is consumed); lz: lazy spans or
 * all zero. */
static int parse_root(etk_etrecord_t *rec, const etr_program_slot_t *slot,
                      json_t *root, walker_t *lz, etr_program_t **out,
                      etk_error_t *err) {
  const char *member = slot->ref.member;
  int rc = ETK_OK;
  etr_program_t *prog = calloc(1, sizeof *prog);
  walker_t w = *lz;
  w.rec = rec;
  w.prog = prog;
  w.member = member;
  w.err = err;
  if (!prog) {
    json_decref(root);
    return oom(&w);
  }
  prog->pub.ref = slot->ref;
  prog->pub.schema_minor = -1;
  json_t *gm = json_object_get(root, "graph_module");
  json_t *graph = json_object_get(gm, "graph");
  if (!json_is_object(root)) {
    rc = format_error(&w,
                      "expected a JSON object (a serialised ExportedProgram)");
  } else if (!json_is_object(graph)) {
    etk_error_where(err, member);
    rc = etk_error_set(err, ETK_E_MISSING_FIELD, ETK_NO_OFFSET,
                       "no graph_module.graph object: not a serialised "
                       "ExportedProgram");
  }
  if (rc == ETK_OK) {
    json_t *sv = json_object_get(root, "schema_version");
    if (json_is_integer(sv)) {
      prog->pub.schema_major = json_integer_value(sv);
    } else if (json_is_object(sv)) {
      json_t *major = json_object_get(sv, "major");
      json_t *minor = json_object_get(sv, "minor");
      if (json_is_integer(major))
        prog->pub.schema_major = json_integer_value(major);
      if (json_is_integer(minor))
        prog->pub.schema_minor = json_integer_value(minor);
    }
    etr_text_t ver;
    etr_text_init(&ver, 256);
    json_t *verifiers = json_object_get(root, "verifiers");
    size_t i;
    json_t *e;
    json_array_foreach(verifiers, i, e) {
      if (!json_is_string(e)) continue;
      if (ver.len) etr_text_add(&ver, ",", 1);
      etr_text_adds(&ver, json_string_value(e));
    }
    if (ver.len == 0 && obj_string(root, "dialect"))
      etr_text_adds(&ver, obj_string(root, "dialect"));
    prog->pub.verifiers =
        etr_arena_strdup(&prog->arena, ver.buf ? ver.buf : "");
    bool failed = ver.failed || !prog->pub.verifiers;
    etr_text_free(&ver);
    if (failed) rc = oom(&w);
  }
  if (rc == ETK_OK)
    rc = graph_values(&w, json_object_get(graph, "inputs"), &prog->pub.inputs,
                      &prog->pub.input_count);
  if (rc == ETK_OK)
    rc = graph_values(&w, json_object_get(graph, "outputs"), &prog->pub.outputs,
                      &prog->pub.output_count);
  graph_origin_t top = {ETK_ETRECORD_GRAPH_TOP, "", NULL,
                        json_object_get(gm, "signature")};
  if (rc == ETK_OK) rc = walk_graph(&w, graph, 0, ETK_ETRECORD_NO_PARENT, &top);
  json_decref(root);
  prog->nodes = w.nodes;
  prog->pub.nodes = w.nodes;
  prog->pub.node_count = w.count;
  prog->graphs = w.graphs;
  prog->pub.graphs = w.graphs;
  prog->pub.graph_count = w.graph_count;
  lz->lazy_retry = w.lazy_retry;
  if (rc == ETK_OK) rc = build_index(&w);
  if (rc != ETK_OK) {
    etr_program_free(prog);
    return rc;
  }
  *out = prog;
  return ETK_OK;
}

/* ------------------------------------------------------------ public API */

int etk_etrecord_program_load(etk_etrecord_t *rec, size_t index,
                              const etk_etrecord_program_t **out,
                              etk_error_t *err) {
  if (!rec || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  if (index >= rec->program_count)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "no program %zu (the record has %zu)", index,
                         rec->program_count);
  etr_program_slot_t *slot = &rec->programs[index];
  if (!slot->loaded) {
    int rc = etr_program_parse(rec, slot, &slot->loaded, err);
    if (rc != ETK_OK) return rc;
  }
  *out = &slot->loaded->pub;
  return ETK_OK;
}

static size_t find_program(const etk_etrecord_t *rec, const char *member) {
  for (size_t i = 0; i < rec->program_count; i++)
    if (strcmp(rec->programs[i].ref.member, member) == 0) return i;
  return SIZE_MAX;
}

static size_t find_edge(const etk_etrecord_t *rec, const char *method) {
  size_t found = SIZE_MAX, edges = 0, only = SIZE_MAX;
  for (size_t i = 0; i < rec->program_count; i++) {
    const etk_etrecord_program_ref_t *r = &rec->programs[i].ref;
    if (r->kind != ETK_ETRECORD_PROGRAM_EDGE) continue;
    edges++;
    only = i;
    const char *want = method ? method : "forward";
    bool suffixed = strchr(r->member, '/') != NULL;
    if (strcmp(r->method, want) == 0 && (suffixed || found == SIZE_MAX))
      found = i; /* a suffixed program wins over the bare one */
  }
  if (found == SIZE_MAX && !method && edges == 1) found = only;
  return found;
}

int etk_etrecord_edge_program_load(etk_etrecord_t *rec, const char *method,
                                   const etk_etrecord_program_t **out,
                                   etk_error_t *err) {
  if (!rec || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  size_t i = find_edge(rec, method);
  if (i == SIZE_MAX) {
    char list[160];
    etk_name_list_t names;
    etk_name_list_init(&names, list, sizeof list);
    for (size_t k = 0; k < rec->program_count; k++)
      if (rec->programs[k].ref.kind == ETK_ETRECORD_PROGRAM_EDGE)
        etk_name_list_add(&names, rec->programs[k].ref.method,
                          rec->programs[k].ref.method
                              ? strlen(rec->programs[k].ref.method)
                              : 0);
    return etk_error_set_where(err, EDGE_NAME, ETK_E_NOT_FOUND,
                               "no edge-dialect program for method '%.64s' "
                               "(methods: %s)",
                               method ? method : "forward",
                               etk_name_list_text(&names));
  }
  return etk_etrecord_program_load(rec, i, out, err);
}

int etk_etrecord_graph_load(etk_etrecord_t *rec, const char *name,
                            const etk_etrecord_program_t **out,
                            etk_error_t *err) {
  if (!rec || !name || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  size_t i = find_program(rec, name);
  if (i == SIZE_MAX) {
    size_t n = strlen(name);
    char *with = malloc(n + sizeof "/forward");
    if (!with)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    memcpy(with, name, n);
    memcpy(with + n, "/forward", sizeof "/forward");
    i = find_program(rec, with);
    free(with);
  }
  if (i == SIZE_MAX && (strcmp(name, EDGE_NAME) == 0 ||
                        strcmp(name, "edge_dialect_graph_module") == 0))
    i = find_edge(rec, "forward");
  if (i == SIZE_MAX) {
    return etk_error_set_where(err, name, ETK_E_NOT_FOUND,
                               "no such graph in the ETRecord (tried '%s' and "
                               "'%s/forward')",
                               name, name);
  }
  return etk_etrecord_program_load(rec, i, out, err);
}

size_t etk_etrecord_program_nodes_for_handle(
    const etk_etrecord_program_t *prog, int64_t handle,
    const etk_etrecord_node_t *const **nodes) {
  if (nodes) *nodes = NULL;
  if (!prog) return 0;
  const etr_program_t *p = (const etr_program_t *)(const void *)prog;
  size_t lo = 0, hi = p->index_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->index_handles[mid] < handle)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < p->index_count && p->index_handles[end] == handle) end++;
  if (end == lo) return 0;
  if (nodes) *nodes = &p->index_nodes[lo];
  return end - lo;
}
