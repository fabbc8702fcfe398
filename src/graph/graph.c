/*
 * graph.c - loading and reading an etk_graph_t: choosing the program,
 * running the build (build.c) and partition (partitions.c) passes, the
 * accessors, and the text forms of arguments and shapes.
 *
 * A graph is immutable once loaded except for the weight and recording
 * caches (weights.c).  Lookups by name go through the two hash tables
 * built in build.c, keyed by (graph index, name).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void etk_graph_options_default(etk_graph_options_t *opts) {
  memset(opts, 0, sizeof *opts);
}

/* The method a graph answers for: the requested one, the edge program's
 * method, or "forward". */
static const char *pick_method(const etk_graph_options_t *o,
                               const etk_etrecord_program_t *p) {
  if (o->method) return o->method;
  if (p->ref.kind == ETK_ETRECORD_PROGRAM_EDGE && p->ref.method &&
      *p->ref.method)
    return p->ref.method;
  return "forward";
}

/* Appends "; the ETRecord has: a, b" (its program members) to a
 * not-found message. */
static void list_programs(const etk_etrecord_t *rec, etk_error_t *e) {
  size_t len = strlen(e->message);
  const char *sep = "; the ETRecord has: ";
  const etk_etrecord_program_ref_t *p;
  for (size_t i = 0; (p = etk_etrecord_program_at(rec, i)) != NULL; i++) {
    int n = snprintf(e->message + len, sizeof e->message - len, "%s%s", sep,
                     p->member);
    if (n < 0 || (size_t)n >= sizeof e->message - len) break;
    len += (size_t)n;
    sep = ", ";
  }
  if (*sep == ';')
    snprintf(e->message + len, sizeof e->message - len,
             "; the ETRecord has no program");
}

int etk_graph_load(etk_etrecord_t *rec, const etk_graph_options_t *opts,
                   etk_graph_t **out, etk_error_t *err) {
  if (out) *out = NULL;
  if (!rec || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_load: NULL argument");
  etk_graph_options_t defaults;
  etk_graph_options_default(&defaults);
  if (!opts) opts = &defaults;
  const etk_etrecord_program_t *prog;
  etk_error_t local;
  etk_error_clear(&local);
  int rc =
      opts->graph_name
          ? etk_etrecord_graph_load(rec, opts->graph_name, &prog, &local)
          : etk_etrecord_edge_program_load(rec, opts->method, &prog, &local);
  if (rc == ETK_E_NOT_FOUND) list_programs(rec, &local);
  if (rc != ETK_OK) {
    if (err && err->code == ETK_OK) *err = local;
    return rc;
  }
  etk_graph_t *g = calloc(1, sizeof *g);
  if (!g)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  g->rec = rec;
  g->prog = prog;
  g->method = etk_arena_strdup(&g->arena, pick_method(opts, prog));
  if (!g->method)
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (rc == ETK_OK) rc = graph_build(g, opts->flags, err);
  if (rc == ETK_OK) rc = graph_partitions(g, err);
  if (rc != ETK_OK) {
    etk_graph_free(g);
    return rc;
  }
  *out = g;
  return ETK_OK;
}

void etk_graph_free(etk_graph_t *g) {
  if (!g) return;
  graph_weights_free(g);
  free(g->nodes);
  free(g->values);
  free(g->node_of_id);
  free(g->value_of_id);
  free(g->handle_keys);
  free(g->handle_nodes);
  free(g->partitions);
  etk_hash_free(&g->node_names);
  etk_hash_free(&g->value_names);
  etk_arena_free(&g->arena);
  free(g);
}

void etk_graph_info_get(const etk_graph_t *g, etk_graph_info_t *info) {
  memset(info, 0, sizeof *info);
  /* a program's graph (etk_graph_from_program) has no ETRecord member */
  info->member = g->prog ? g->prog->ref.member : "";
  info->method = g->method;
  info->program_kind = g->prog ? g->prog->ref.kind : ETK_ETRECORD_PROGRAM_EDGE;
  info->verifiers = g->prog && g->prog->verifiers ? g->prog->verifiers : "";
  info->node_count = g->node_count;
  info->value_count = g->value_count;
  info->graph_count = g->graph_count;
  info->partition_count = g->partition_count;
  for (size_t i = 0; i < g->node_count; i++)
    if (g->nodes[i].kind == ETK_GRAPH_NODE_CALL) {
      info->call_count++;
      if (g->nodes[i].graph == 0) info->top_call_count++;
    }
  for (size_t v = 0; v < g->value_count; v++)
    if (g->values[v].has_meta) info->tensor_meta_count++;
}

size_t etk_graph_node_count(const etk_graph_t *g) {
  return g ? g->node_count : 0;
}
const etk_graph_node_t *etk_graph_nodes(const etk_graph_t *g) {
  return g ? g->nodes : NULL;
}
size_t etk_graph_value_count(const etk_graph_t *g) {
  return g ? g->value_count : 0;
}
const etk_graph_value_t *etk_graph_values(const etk_graph_t *g) {
  return g ? g->values : NULL;
}
size_t etk_graph_graph_count(const etk_graph_t *g) {
  return g ? g->graph_count : 0;
}
const etk_graph_graph_t *etk_graph_graphs(const etk_graph_t *g) {
  return g ? g->graphs : NULL;
}
size_t etk_graph_partition_count(const etk_graph_t *g) {
  return g ? g->partition_count : 0;
}
const etk_graph_partition_t *etk_graph_partitions(const etk_graph_t *g) {
  return g ? g->partitions : NULL;
}
etk_etrecord_t *etk_graph_record(const etk_graph_t *g) {
  return g ? g->rec : NULL;
}

size_t etk_graph_find_node(const etk_graph_t *g, size_t graph,
                           const char *name) {
  if (!g || !name) return ETK_GRAPH_NONE;
  return graph_name_find(&g->node_names, g->node_of_id, graph, name);
}

size_t etk_graph_find_value(const etk_graph_t *g, size_t graph,
                            const char *name) {
  if (!g || !name) return ETK_GRAPH_NONE;
  return graph_name_find(&g->value_names, g->value_of_id, graph, name);
}

/* ------------------------------------------------------------ text forms */

typedef struct text_out {
  char *out;
  size_t size, len;
} text_out_t;

static void put(text_out_t *t, const char *s, size_t n) {
  if (t->len < t->size) {
    size_t room = t->size - t->len - 1;
    memcpy(t->out + t->len, s, n < room ? n : room);
    t->out[t->len + (n < room ? n : room)] = 0;
  }
  t->len += n;
}

static void puts_(text_out_t *t, const char *s) {
  put(t, s, strlen(s));
}

static void putf(text_out_t *t, const char *fmt, ...) ETK_PRINTF_LIKE(2, 3);
static void putf(text_out_t *t, const char *fmt, ...) {
  char buf[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) put(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void put_float(text_out_t *t, double f) {
  if (f != f)
    puts_(t, "nan");
  else if (f > 1.7976931348623157e308)
    puts_(t, "inf");
  else if (f < -1.7976931348623157e308)
    puts_(t, "-inf");
  else
    putf(t, "%.17g", f);
}

static void put_element(text_out_t *t, const etk_graph_arg_t *a, size_t k) {
  if (a->value_names && a->value_names[k]) {
    puts_(t, a->value_names[k]);
  } else if (a->kind == ETK_GRAPH_ARG_OPTIONAL_TENSORS) {
    puts_(t, "None");
  } else if (a->kind == ETK_GRAPH_ARG_FLOATS ||
             a->kind == ETK_GRAPH_ARG_SYM_FLOATS) {
    put_float(t, a->floats ? a->floats[k] : 0);
  } else if (a->kind == ETK_GRAPH_ARG_BOOLS ||
             a->kind == ETK_GRAPH_ARG_SYM_BOOLS) {
    puts_(t, a->ints && a->ints[k] ? "True" : "False");
  } else if (a->kind == ETK_GRAPH_ARG_STRINGS) {
    putf(t, "'%.40s'", a->strings ? a->strings[k] : "");
  } else if (a->ints) {
    putf(t, "%" PRId64, a->ints[k]);
  } else {
    puts_(t, "None");
  }
}

static void format_arg(text_out_t *t, const etk_graph_arg_t *a) {
  switch (a->kind) {
    case ETK_GRAPH_ARG_NONE:
      puts_(t, "None");
      return;
    case ETK_GRAPH_ARG_INT:
    case ETK_GRAPH_ARG_MEMORY_FORMAT:
    case ETK_GRAPH_ARG_LAYOUT:
      putf(t, "%" PRId64, a->i);
      return;
    case ETK_GRAPH_ARG_BOOL:
      puts_(t, a->i ? "True" : "False");
      return;
    case ETK_GRAPH_ARG_FLOAT:
      put_float(t, a->f);
      return;
    case ETK_GRAPH_ARG_STRING:
    case ETK_GRAPH_ARG_OPERATOR:
      if (a->s && strlen(a->s) > 60)
        putf(t, "'%.57s...'", a->s);
      else
        putf(t, "'%s'", a->s ? a->s : "");
      return;
    case ETK_GRAPH_ARG_SCALAR_TYPE: {
      const char *n = graph_torch_dtype_name(a->dtype, (int32_t)a->i);
      puts_(t, n);
      return;
    }
    case ETK_GRAPH_ARG_DEVICE:
      puts_(t, a->s ? a->s : "?");
      if (a->i >= 0) putf(t, ":%" PRId64, a->i);
      return;
    case ETK_GRAPH_ARG_GRAPH:
      putf(t, "<graph %.60s>", a->s ? a->s : "?");
      return;
    case ETK_GRAPH_ARG_COMPLEX:
      put_float(t, a->floats ? a->floats[0] : 0);
      puts_(t, "+");
      put_float(t, a->floats ? a->floats[1] : 0);
      puts_(t, "j");
      return;
    case ETK_GRAPH_ARG_TENSOR:
    case ETK_GRAPH_ARG_CUSTOM_OBJ:
    case ETK_GRAPH_ARG_TOKEN:
    case ETK_GRAPH_ARG_OPTIONAL_TENSOR:
    case ETK_GRAPH_ARG_SYM_INT:
    case ETK_GRAPH_ARG_SYM_BOOL:
    case ETK_GRAPH_ARG_SYM_FLOAT:
      if (a->value_names && a->count && a->value_names[0])
        puts_(t, a->value_names[0]);
      else if (a->kind == ETK_GRAPH_ARG_SYM_FLOAT)
        put_float(t, a->f);
      else if (a->kind == ETK_GRAPH_ARG_SYM_INT)
        putf(t, "%" PRId64, a->i);
      else if (a->kind == ETK_GRAPH_ARG_SYM_BOOL)
        puts_(t, a->i ? "True" : "False");
      else
        puts_(t, "None");
      return;
    case ETK_GRAPH_ARG_INT_LISTS:
    case ETK_GRAPH_ARG_NESTED_TENSORS:
    case ETK_GRAPH_ARG_STRING_TO_ARGUMENT: {
      bool dict = a->kind == ETK_GRAPH_ARG_STRING_TO_ARGUMENT;
      puts_(t, dict ? "{" : "[");
      for (size_t k = 0; a->items && k < a->count; k++) {
        if (k) puts_(t, ", ");
        if (dict) putf(t, "'%.40s': ", a->items[k].name);
        format_arg(t, &a->items[k]);
      }
      puts_(t, dict ? "}" : "]");
      return;
    }
    case ETK_GRAPH_ARG_UNKNOWN:
      putf(t, "<%.40s>", a->tag && *a->tag ? a->tag : "unknown");
      return;
    default: /* the flat lists */
      puts_(t, "[");
      for (size_t k = 0; k < a->count; k++) {
        if (k) puts_(t, ", ");
        put_element(t, a, k);
      }
      puts_(t, "]");
      return;
  }
}

size_t etk_graph_arg_format(const etk_graph_t *g, const etk_graph_arg_t *arg,
                            char *out, size_t out_size) {
  (void)g;
  text_out_t t = {out, out ? out_size : 0, 0};
  if (out && out_size) out[0] = 0;
  format_arg(&t, arg);
  return t.len;
}

size_t etk_graph_value_shape(const etk_graph_t *g, size_t value, char *out,
                             size_t out_size) {
  text_out_t t = {out, out ? out_size : 0, 0};
  if (out && out_size) out[0] = 0;
  if (!g || value >= g->value_count || !g->values[value].has_meta) return 0;
  const etk_graph_tensor_meta_t *m = &g->values[value].meta;
  puts_(&t, "[");
  for (uint32_t k = 0; k < m->dim; k++) {
    if (k) puts_(&t, ", ");
    if (m->size_exprs && m->size_exprs[k])
      puts_(&t, m->size_exprs[k]);
    else
      putf(&t, "%" PRId64, m->sizes[k]);
  }
  puts_(&t, "]");
  return t.len;
}
