/*
 * writer.c - writing an ETRecord for programs etkit built itself.
 *
 * Output layout (the current one, artifacts notes 1.2 and 4.1.12):
 *   ETRECORD_V0                               empty, first
 *   edge_dialect_exported_program/<method>    ExportedProgram JSON
 *   edge_dialect_exported_program/<method>_state_dict      empty
 *   edge_dialect_exported_program/<method>_constants       empty
 *   edge_dialect_exported_program/<method>_example_inputs  empty
 *   ... one group per method ...
 *   debug_handle_map, delegate_map, instruction_id_to_num_outs_map
 *   reference_outputs, representative_inputs   torch.save archives, when
 *                                              desc->references asks
 *                                              (torch_writer.c)
 *   extra members, as given
 * Every member is STORED with Unix 0600 attributes, like Python's zipfile.
 *
 * The program JSON uses the single-key union spelling and schema 5.4;
 * field order follows the Python dataclasses, and spacing follows
 * json.dumps (", " and ": "), which jansson's non-compact, unindented
 * output matches.  Python can load such a program only as far as the
 * artifacts notes 4.2 allow (no parameters, targets that resolve to real
 * operators, tensor metadata given for every value).
 *
 * Two passes: validate() checks the whole description first (NULLs,
 * UTF-8, duplicate names, module-stack entries that would not split back
 * into the same three parts), so the JSON building pass can only fail for
 * lack of memory.  The builder keeps a sticky `failed` flag instead of
 * checking every jansson call (jansson's *_new setters release the value
 * on failure, so nothing leaks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define EDGE_NAME "edge_dialect_exported_program"
#define DEFAULT_MTIME 1704110400 /* 2024-01-01 12:00 UTC */

/* ------------------------------------------------------------ validation */

typedef struct checker {
  etk_error_t *err;
  int rc;
} checker_t;

static int bad(checker_t *c, int code, const char *fmt, ...)
    ETK_PRINTF_LIKE(3, 4);
static int bad(checker_t *c, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = etk_error_vkeep(&c->rc, c->err, code, "ETRecord writer", fmt, ap);
  va_end(ap);
  return rc;
}

static bool utf8_ok(const char *s) {
  size_t n = strlen(s);
  return etk_utf8_check(s, n) == n;
}

/* Checks a required (or optional) string field. */
static bool text_ok(checker_t *c, const char *s, bool required,
                    const char *what, const char *ctx) {
  if (!s) {
    if (required) bad(c, ETK_E_INVALID_ARGUMENT, "%s: %s is NULL", ctx, what);
    return !required;
  }
  if (required && !*s) {
    bad(c, ETK_E_INVALID_ARGUMENT, "%s: %s is empty", ctx, what);
    return false;
  }
  if (!utf8_ok(s)) {
    bad(c, ETK_E_BAD_UTF8, "%s: %s is not valid UTF-8", ctx, what);
    return false;
  }
  return true;
}

static int cmp_str_ptr(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Reports the first duplicate among names[0..n) (sorted in place). */
static const char *duplicate_name(const char **names, size_t n) {
  qsort(names, n, sizeof *names, cmp_str_ptr);
  for (size_t i = 1; i < n; i++)
    if (strcmp(names[i - 1], names[i]) == 0) return names[i];
  return NULL;
}

static bool duplicate_id(int64_t *ids, size_t n, int64_t *dup) {
  qsort(ids, n, sizeof *ids, cmp_i64);
  for (size_t i = 1; i < n; i++)
    if (ids[i - 1] == ids[i]) {
      *dup = ids[i];
      return true;
    }
  return false;
}

static void check_module_entry(checker_t *c,
                               const etk_etrecord_module_desc_t *m,
                               const char *ctx) {
  if (!text_ok(c, m->key, true, "module key", ctx) ||
      !text_ok(c, m->path, false, "module path", ctx) ||
      !text_ok(c, m->type, true, "module type", ctx))
    return;
  const char *path = m->path ? m->path : "";
  if (strpbrk(m->key, ",;()[]") || strpbrk(m->type, ",;()[]") ||
      strchr(path, ';')) {
    bad(c, ETK_E_INVALID_ARGUMENT,
        "%s: module entry '%s' has ',', ';' or brackets where torch's "
        "\"key,path,type\" encoding cannot hold them",
        ctx, m->key);
    return;
  }
  /* The path may hold commas inside () or [] only: check that the entry
   * splits back into the same three parts. */
  size_t kl = strlen(m->key), pl = strlen(path), tl = strlen(m->type);
  char *entry = malloc(kl + pl + tl + 3);
  if (!entry) {
    bad(c, ETK_E_NO_MEMORY, "out of memory");
    return;
  }
  snprintf(entry, kl + pl + tl + 3, "%s,%s,%s", m->key, path, m->type);
  etk_etrecord_module_span_t span;
  size_t count = 0;
  int rc = etk_etrecord_module_stack_split(entry, kl + pl + tl + 2, &span, 1,
                                           &count);
  bool same = rc == ETK_OK && count == 1 && span.path.len == pl;
  free(entry);
  if (!same)
    bad(c, ETK_E_INVALID_ARGUMENT,
        "%s: module path '%s' has a ',' outside () or []", ctx, path);
}

/* One node argument: its name, and the fields its kind reads. */
static void check_input(checker_t *c, const etk_etrecord_arg_desc_t *in,
                        const char *nctx) {
  text_ok(c, in->arg, false, "input argument name", nctx);
  switch (in->kind) {
    case ETK_ETRECORD_IN_TENSOR:
      text_ok(c, in->tensor, true, "input tensor", nctx);
      return;
    case ETK_ETRECORD_IN_STRING:
      text_ok(c, in->s, true, "string argument", nctx);
      return;
    case ETK_ETRECORD_IN_INTS:
    case ETK_ETRECORD_IN_FLOATS:
    case ETK_ETRECORD_IN_TENSORS:
    case ETK_ETRECORD_IN_OPT_TENSORS: {
      const void *items =
          in->kind == ETK_ETRECORD_IN_INTS     ? (const void *)in->ints
          : in->kind == ETK_ETRECORD_IN_FLOATS ? (const void *)in->floats
                                               : (const void *)in->tensors;
      if (in->count && !items)
        bad(c, ETK_E_INVALID_ARGUMENT, "%s: a list argument is NULL", nctx);
      for (size_t k = 0; k < in->count && in->kind == ETK_ETRECORD_IN_TENSORS &&
                         c->rc == ETK_OK;
           k++)
        text_ok(c, in->tensors[k], true, "list tensor", nctx);
      for (size_t k = 0;
           k < in->count && in->kind == ETK_ETRECORD_IN_OPT_TENSORS &&
           c->rc == ETK_OK;
           k++)
        text_ok(c, in->tensors[k], false, "list tensor", nctx);
      return;
    }
    case ETK_ETRECORD_IN_NONE:
    case ETK_ETRECORD_IN_INT:
    case ETK_ETRECORD_IN_FLOAT:
    case ETK_ETRECORD_IN_BOOL:
    case ETK_ETRECORD_IN_SCALAR_TYPE:
    case ETK_ETRECORD_IN_MEMORY_FORMAT:
      return;
  }
  bad(c, ETK_E_INVALID_ARGUMENT, "%s: unknown argument kind %d", nctx,
      (int)in->kind);
}

/* The weights of a method: placeholder names, keys and tensors present. */
static void check_weights(checker_t *c, const etk_etrecord_method_desc_t *m,
                          const char *ctx) {
  if (m->weight_count && !m->weights) {
    bad(c, ETK_E_INVALID_ARGUMENT, "%s: weights is NULL", ctx);
    return;
  }
  for (size_t i = 0; i < m->weight_count && c->rc == ETK_OK; i++) {
    text_ok(c, m->weights[i].placeholder, true, "weight placeholder", ctx);
    text_ok(c, m->weights[i].key, true, "weight key", ctx);
    if (!m->weights[i].tensor)
      bad(c, ETK_E_INVALID_ARGUMENT, "%s: weight %zu has no tensor", ctx, i);
  }
}

static void check_method(checker_t *c, const etk_etrecord_method_desc_t *m,
                         size_t mi) {
  char ctx[200];
  snprintf(ctx, sizeof ctx, "method %zu", mi);
  if (!text_ok(c, m->name, true, "name", ctx)) return;
  if (strchr(m->name, '/')) {
    bad(c, ETK_E_INVALID_ARGUMENT, "method '%s': name contains '/'", m->name);
    return;
  }
  snprintf(ctx, sizeof ctx, "method '%.60s'", m->name);
  if ((m->node_count && !m->nodes) ||
      (m->graph_input_count && !m->graph_inputs) ||
      (m->graph_output_count && !m->graph_outputs) ||
      (m->tensor_count && !m->tensors) || (m->handle_count && !m->handles) ||
      (m->delegate_count && !m->delegates)) {
    bad(c, ETK_E_INVALID_ARGUMENT,
        "%s: an array is NULL but its count is not 0", ctx);
    return;
  }
  for (size_t i = 0; i < m->graph_input_count; i++)
    text_ok(c, m->graph_inputs[i], true, "graph input", ctx);
  check_weights(c, m, ctx);
  for (size_t i = 0; i < m->graph_output_count; i++)
    text_ok(c, m->graph_outputs[i], true, "graph output", ctx);
  for (size_t i = 0; i < m->tensor_count && c->rc == ETK_OK; i++) {
    const etk_etrecord_tensor_desc_t *t = &m->tensors[i];
    text_ok(c, t->name, true, "tensor name", ctx);
    if (t->dim && !t->sizes)
      bad(c, ETK_E_INVALID_ARGUMENT, "%s: tensor %zu has no sizes", ctx, i);
  }
  if (c->rc != ETK_OK) return;

  const char **names =
      malloc((m->node_count ? m->node_count : 1) * sizeof *names);
  if (!names) {
    bad(c, ETK_E_NO_MEMORY, "out of memory");
    return;
  }
  for (size_t i = 0; i < m->node_count && c->rc == ETK_OK; i++) {
    const etk_etrecord_node_desc_t *n = &m->nodes[i];
    char nctx[300];
    snprintf(nctx, sizeof nctx, "%s, node %zu", ctx, i);
    if (!text_ok(c, n->name, true, "name", nctx)) break;
    snprintf(nctx, sizeof nctx, "%s, node %zu ('%.60s')", ctx, i, n->name);
    names[i] = n->name;
    text_ok(c, n->target, true, "target", nctx);
    text_ok(c, n->stack_trace, false, "stack_trace", nctx);
    text_ok(c, n->source_fn_stack, false, "source_fn_stack", nctx);
    if (n->debug_handle < 0)
      bad(c, ETK_E_INVALID_ARGUMENT, "%s: negative debug handle", nctx);
    if ((n->module_stack_count && !n->module_stack) ||
        (n->input_count && !n->inputs) || (n->output_count && !n->outputs))
      bad(c, ETK_E_INVALID_ARGUMENT,
          "%s: an array is NULL but its count is not 0", nctx);
    for (size_t k = 0; k < n->module_stack_count && c->rc == ETK_OK; k++)
      check_module_entry(c, &n->module_stack[k], nctx);
    for (size_t k = 0; k < n->input_count && !n->args && c->rc == ETK_OK; k++) {
      text_ok(c, n->inputs[k].arg, false, "input argument name", nctx);
      text_ok(c, n->inputs[k].tensor, true, "input tensor", nctx);
    }
    if (n->arg_count && !n->args)
      bad(c, ETK_E_INVALID_ARGUMENT, "%s: args is NULL", nctx);
    for (size_t k = 0; k < n->arg_count && n->args && c->rc == ETK_OK; k++)
      check_input(c, &n->args[k], nctx);
    for (size_t k = 0; k < n->output_count && c->rc == ETK_OK; k++)
      text_ok(c, n->outputs[k], true, "output", nctx);
  }
  if (c->rc == ETK_OK && m->node_count) {
    const char *dup = duplicate_name(names, m->node_count);
    if (dup)
      bad(c, ETK_E_INVALID_ARGUMENT, "%s: node name '%s' used twice", ctx, dup);
  }
  free(names);
  if (c->rc != ETK_OK) return;

  size_t nids = m->handle_count + m->delegate_count;
  int64_t *ids = malloc((nids ? nids : 1) * sizeof *ids);
  if (!ids) {
    bad(c, ETK_E_NO_MEMORY, "out of memory");
    return;
  }
  for (size_t i = 0; i < m->handle_count; i++) {
    const etk_etrecord_handle_desc_t *h = &m->handles[i];
    ids[i] = h->instruction_id;
    if (h->instruction_id < 0)
      bad(c, ETK_E_INVALID_ARGUMENT, "%s: negative instruction id", ctx);
    if (h->handle_count && !h->handles)
      bad(c, ETK_E_INVALID_ARGUMENT, "%s, instruction %lld: handles is NULL",
          ctx, (long long)h->instruction_id);
    if (!h->is_list && h->handle_count != 1)
      bad(c, ETK_E_INVALID_ARGUMENT,
          "%s, instruction %lld: a single handle needs handle_count 1", ctx,
          (long long)h->instruction_id);
  }
  int64_t dup;
  if (c->rc == ETK_OK && duplicate_id(ids, m->handle_count, &dup))
    bad(c, ETK_E_INVALID_ARGUMENT,
        "%s: instruction %lld appears twice in the debug handles", ctx,
        (long long)dup);
  for (size_t i = 0; i < m->delegate_count && c->rc == ETK_OK; i++) {
    const etk_etrecord_delegate_desc_t *d = &m->delegates[i];
    ids[i] = d->instruction_id;
    char dctx[300];
    snprintf(dctx, sizeof dctx, "%s, delegate at instruction %lld", ctx,
             (long long)d->instruction_id);
    if (d->instruction_id < 0)
      bad(c, ETK_E_INVALID_ARGUMENT, "%s: negative instruction id", dctx);
    text_ok(c, d->backend_name, false, "backend name", dctx);
    if (d->id_count && !d->ids)
      bad(c, ETK_E_INVALID_ARGUMENT, "%s: ids is NULL", dctx);
    for (size_t k = 0; k < d->id_count && c->rc == ETK_OK; k++) {
      if (!text_ok(c, d->ids[k].id, false, "delegate id", dctx) ||
          !d->ids[k].id)
        bad(c, ETK_E_INVALID_ARGUMENT, "%s: delegate id %zu is NULL", dctx, k);
      else if (d->ids[k].handle_count && !d->ids[k].handles)
        bad(c, ETK_E_INVALID_ARGUMENT, "%s: handles of id '%s' is NULL", dctx,
            d->ids[k].id);
      for (size_t j = 0; j < k && c->rc == ETK_OK; j++)
        if (strcmp(d->ids[j].id, d->ids[k].id) == 0)
          bad(c, ETK_E_INVALID_ARGUMENT, "%s: delegate id '%s' used twice",
              dctx, d->ids[k].id);
    }
  }
  if (c->rc == ETK_OK && duplicate_id(ids, m->delegate_count, &dup))
    bad(c, ETK_E_INVALID_ARGUMENT,
        "%s: instruction %lld has two delegate entries", ctx, (long long)dup);
  free(ids);
}

static const char *const kReserved[] = {"ETRECORD_V0",
                                        "exported_program",
                                        "export_graph_id",
                                        EDGE_NAME,
                                        "et_dialect_graph_module",
                                        "debug_handle_map",
                                        "delegate_map",
                                        "instruction_id_to_num_outs_map"};

static int validate(const etk_etrecord_desc_t *desc, etk_error_t *err) {
  checker_t c = {err, ETK_OK};
  if (!desc->methods || desc->method_count == 0)
    return bad(&c, ETK_E_INVALID_ARGUMENT, "no method to write");
  if (desc->extra_member_count && !desc->extra_members)
    return bad(&c, ETK_E_INVALID_ARGUMENT, "extra_members is NULL");
  for (size_t i = 0; i < desc->method_count && c.rc == ETK_OK; i++)
    check_method(&c, &desc->methods[i], i);
  for (size_t i = 0; i < desc->method_count && c.rc == ETK_OK; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(desc->methods[i].name, desc->methods[j].name) == 0)
        return bad(&c, ETK_E_INVALID_ARGUMENT, "method '%s' given twice",
                   desc->methods[i].name);
  for (size_t i = 0; i < desc->extra_member_count && c.rc == ETK_OK; i++) {
    const etk_etrecord_blob_desc_t *b = &desc->extra_members[i];
    char ctx[64];
    snprintf(ctx, sizeof ctx, "extra member %zu", i);
    if (!text_ok(&c, b->name, true, "name", ctx)) break;
    if (b->len && !b->data)
      return bad(&c, ETK_E_INVALID_ARGUMENT, "extra member '%s': data is NULL",
                 b->name);
    for (size_t k = 0; k < sizeof kReserved / sizeof kReserved[0]; k++)
      if (strcmp(b->name, kReserved[k]) == 0 ||
          (k == 3 && strncmp(b->name, EDGE_NAME, strlen(EDGE_NAME)) == 0))
        return bad(&c, ETK_E_INVALID_ARGUMENT,
                   "extra member '%s' would clash with a member the writer "
                   "writes",
                   b->name);
    for (size_t j = 0; j < i; j++)
      if (strcmp(b->name, desc->extra_members[j].name) == 0)
        return bad(&c, ETK_E_INVALID_ARGUMENT, "extra member '%s' given twice",
                   b->name);
    if (desc->references && (strcmp(b->name, "reference_outputs") == 0 ||
                             strcmp(b->name, "representative_inputs") == 0))
      return bad(&c, ETK_E_INVALID_ARGUMENT,
                 "extra member '%s' would clash with the references the "
                 "writer writes",
                 b->name);
  }
  return c.rc;
}

/* ---------------------------------------------------------- JSON building */

typedef struct builder {
  bool failed;
} builder_t;

static json_t *jb_check(builder_t *b, json_t *v) {
  if (!v) b->failed = true;
  return v;
}

static void jb_set(builder_t *b, json_t *obj, const char *key, json_t *v) {
  if (!v) {
    b->failed = true;
    return;
  }
  if (!obj || json_object_set_new(obj, key, v) != 0) {
    if (!obj) json_decref(v);
    b->failed = true;
  }
}

static void jb_push(builder_t *b, json_t *arr, json_t *v) {
  if (!v) {
    b->failed = true;
    return;
  }
  if (!arr || json_array_append_new(arr, v) != 0) {
    if (!arr) json_decref(v);
    b->failed = true;
  }
}

/* {"<tag>": {"name": name}} */
static json_t *tagged_name(builder_t *b, const char *tag, const char *name) {
  json_t *inner = jb_check(b, json_object());
  jb_set(b, inner, "name", json_string(name));
  json_t *outer = jb_check(b, json_object());
  jb_set(b, outer, tag, inner);
  return outer;
}

static json_t *sym_int(builder_t *b, int64_t v) {
  json_t *o = jb_check(b, json_object());
  jb_set(b, o, "as_int", json_integer(v));
  return o;
}

static json_t *tensor_meta(builder_t *b, const etk_etrecord_tensor_desc_t *t) {
  json_t *meta = jb_check(b, json_object());
  jb_set(b, meta, "dtype", json_integer(t->dtype));
  json_t *sizes = jb_check(b, json_array());
  json_t *strides = jb_check(b, json_array());
  int64_t stride = 1;
  int64_t *st = calloc(t->dim ? t->dim : 1, sizeof *st);
  if (!st) b->failed = true;
  for (size_t i = t->dim; st && i-- > 0;) {
    st[i] = stride;
    int64_t s = t->sizes[i] > 0 ? t->sizes[i] : 1;
    stride = stride > INT64_MAX / s ? INT64_MAX : stride * s;
  }
  for (size_t i = 0; i < t->dim && st; i++) {
    jb_push(b, sizes, sym_int(b, t->sizes[i]));
    jb_push(b, strides, sym_int(b, st[i]));
  }
  free(st);
  jb_set(b, meta, "sizes", sizes);
  jb_set(b, meta, "requires_grad", json_false());
  json_t *device = jb_check(b, json_object());
  jb_set(b, device, "type", json_string("cpu"));
  jb_set(b, meta, "device", device);
  jb_set(b, meta, "strides", strides);
  jb_set(b, meta, "storage_offset", sym_int(b, 0));
  jb_set(b, meta, "layout", json_integer(7)); /* Strided */
  return meta;
}

static char *module_stack_text(const etk_etrecord_node_desc_t *n) {
  etr_text_t t;
  etr_text_init(&t, 0);
  for (size_t i = 0; i < n->module_stack_count; i++) {
    const etk_etrecord_module_desc_t *m = &n->module_stack[i];
    if (i) etr_text_add(&t, ";", 1);
    etr_text_addf(&t, "%s,%s,%s", m->key, m->path ? m->path : "", m->type);
  }
  if (t.failed) {
    etr_text_free(&t);
    return NULL;
  }
  if (!t.buf) return calloc(1, 1);
  return t.buf;
}

/* A list of tensor references ({"name": x}, or as_none for a NULL item of
 * an optional list: serde's OptionalTensorArgument). */
static json_t *tensor_refs_json(builder_t *b, const etk_etrecord_arg_desc_t *in,
                                bool optional) {
  json_t *arr = jb_check(b, json_array());
  for (size_t k = 0; k < in->count; k++) {
    json_t *item = jb_check(b, json_object());
    if (!optional) {
      jb_set(b, item, "name", json_string(in->tensors[k]));
    } else if (in->tensors[k]) {
      json_t *ref = jb_check(b, json_object());
      jb_set(b, ref, "name", json_string(in->tensors[k]));
      jb_set(b, item, "as_tensor", ref);
    } else {
      jb_set(b, item, "as_none", json_array());
    }
    jb_push(b, arr, item);
  }
  return arr;
}

/* The serde Argument of one node input: {"as_<kind>": value}. */
static json_t *arg_json(builder_t *b, const etk_etrecord_arg_desc_t *in) {
  json_t *o = jb_check(b, json_object());
  json_t *arr;
  switch (in->kind) {
    case ETK_ETRECORD_IN_TENSOR:
      json_decref(o);
      return tagged_name(b, "as_tensor", in->tensor);
    case ETK_ETRECORD_IN_NONE:
      jb_set(b, o, "as_none", json_array());
      break;
    case ETK_ETRECORD_IN_INT:
      jb_set(b, o, "as_int", json_integer(in->i));
      break;
    case ETK_ETRECORD_IN_FLOAT:
      jb_set(b, o, "as_float", json_real(in->f));
      break;
    case ETK_ETRECORD_IN_BOOL:
      jb_set(b, o, "as_bool", json_boolean(in->i != 0));
      break;
    case ETK_ETRECORD_IN_INTS:
      arr = jb_check(b, json_array());
      for (size_t k = 0; k < in->count; k++)
        jb_push(b, arr, json_integer(in->ints[k]));
      jb_set(b, o, "as_ints", arr);
      break;
    case ETK_ETRECORD_IN_FLOATS:
      arr = jb_check(b, json_array());
      for (size_t k = 0; k < in->count; k++)
        jb_push(b, arr, json_real(in->floats[k]));
      jb_set(b, o, "as_floats", arr);
      break;
    case ETK_ETRECORD_IN_STRING:
      jb_set(b, o, "as_string", json_string(in->s));
      break;
    case ETK_ETRECORD_IN_TENSORS:
      jb_set(b, o, "as_tensors", tensor_refs_json(b, in, false));
      break;
    case ETK_ETRECORD_IN_OPT_TENSORS:
      jb_set(b, o, "as_optional_tensors", tensor_refs_json(b, in, true));
      break;
    case ETK_ETRECORD_IN_SCALAR_TYPE:
      jb_set(b, o, "as_scalar_type", json_integer(in->i));
      break;
    case ETK_ETRECORD_IN_MEMORY_FORMAT:
      jb_set(b, o, "as_memory_format", json_integer(in->i));
      break;
  }
  return o;
}

static json_t *node_json(builder_t *b, const etk_etrecord_node_desc_t *n) {
  json_t *node = jb_check(b, json_object());
  jb_set(b, node, "name", json_string(n->name));
  jb_set(b, node, "target", json_string(n->target));
  json_t *inputs = jb_check(b, json_array());
  size_t count = n->args ? n->arg_count : n->input_count;
  for (size_t i = 0; i < count; i++) {
    char arg[32];
    const char *arg_name = n->args ? n->args[i].arg : n->inputs[i].arg;
    if (!arg_name) {
      snprintf(arg, sizeof arg, "arg%zu", i);
      arg_name = arg;
    }
    json_t *named = jb_check(b, json_object());
    jb_set(b, named, "name", json_string(arg_name));
    if (n->args) {
      jb_set(b, named, "arg", arg_json(b, &n->args[i]));
      jb_set(b, named, "kind", json_integer(n->args[i].keyword ? 2 : 1));
    } else {
      jb_set(b, named, "arg", tagged_name(b, "as_tensor", n->inputs[i].tensor));
    }
    jb_push(b, inputs, named);
  }
  jb_set(b, node, "inputs", inputs);
  json_t *outputs = jb_check(b, json_array());
  if (n->outputs_as_list && n->output_count) {
    json_t *list = jb_check(b, json_array());
    for (size_t i = 0; i < n->output_count; i++) {
      json_t *item = jb_check(b, json_object());
      jb_set(b, item, "name", json_string(n->outputs[i]));
      jb_push(b, list, item);
    }
    json_t *o = jb_check(b, json_object());
    jb_set(b, o, "as_tensors", list);
    jb_push(b, outputs, o);
  }
  for (size_t i = 0; i < n->output_count && !n->outputs_as_list; i++)
    jb_push(b, outputs, tagged_name(b, "as_tensor", n->outputs[i]));
  if (n->output_count == 0) {
    json_t *none = jb_check(b, json_object());
    jb_set(b, none, "as_none", json_array());
    jb_push(b, outputs, none);
  }
  jb_set(b, node, "outputs", outputs);
  json_t *meta = jb_check(b, json_object());
  if (n->stack_trace)
    jb_set(b, meta, "stack_trace", json_string(n->stack_trace));
  if (n->module_stack_count) {
    char *text = module_stack_text(n);
    if (!text) b->failed = true;
    if (text) jb_set(b, meta, "nn_module_stack", json_string(text));
    free(text);
  }
  if (n->source_fn_stack)
    jb_set(b, meta, "source_fn_stack", json_string(n->source_fn_stack));
  if (n->debug_handle > 0) {
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)n->debug_handle);
    jb_set(b, meta, "debug_handle", json_string(num));
  }
  jb_set(b, node, "metadata", meta);
  return node;
}

/* The graph's inputs or outputs (`kind` "user_input" or "user_output"):
 * *names receives the list of tensor arguments, *specs the signature's
 * specs naming them. */
static void io_json(builder_t *b, const char *const *tensors, size_t count,
                    const char *kind, json_t **names, json_t **specs) {
  *names = jb_check(b, json_array());
  *specs = jb_check(b, json_array());
  for (size_t i = 0; i < count; i++) {
    jb_push(b, *names, tagged_name(b, "as_tensor", tensors[i]));
    json_t *user = jb_check(b, json_object());
    jb_set(b, user, "arg", tagged_name(b, "as_tensor", tensors[i]));
    json_t *spec = jb_check(b, json_object());
    jb_set(b, spec, kind, user);
    jb_push(b, *specs, spec);
  }
}

/* Prepends the weights to the graph inputs and their specs: a parameter
 * or buffer spec naming the state-dict key. */
static void weights_json(builder_t *b, const etk_etrecord_method_desc_t *m,
                         json_t *inputs, json_t *specs) {
  for (size_t i = m->weight_count; i-- > 0;) {
    const etk_etrecord_weight_desc_t *w = &m->weights[i];
    json_t *inner = jb_check(b, json_object());
    json_t *spec = jb_check(b, json_object());
    json_t *ref = jb_check(b, json_object()); /* a TensorArgument */
    jb_set(b, ref, "name", json_string(w->placeholder));
    jb_set(b, inner, "arg", ref);
    if (w->buffer) {
      jb_set(b, inner, "buffer_name", json_string(w->key));
      jb_set(b, inner, "persistent", json_true());
    } else {
      jb_set(b, inner, "parameter_name", json_string(w->key));
    }
    jb_set(b, spec, w->buffer ? "buffer" : "parameter", inner);
    if (json_array_insert_new(inputs, 0,
                              tagged_name(b, "as_tensor", w->placeholder)) ||
        json_array_insert_new(specs, 0, spec))
      b->failed = true;
  }
}

static json_t *program_json(builder_t *b, const etk_etrecord_method_desc_t *m) {
  json_t *graph = jb_check(b, json_object());
  json_t *inputs, *input_specs, *outputs, *output_specs;
  io_json(b, m->graph_inputs, m->graph_input_count, "user_input", &inputs,
          &input_specs);
  if (inputs && input_specs) weights_json(b, m, inputs, input_specs);
  io_json(b, m->graph_outputs, m->graph_output_count, "user_output", &outputs,
          &output_specs);
  json_t *nodes = jb_check(b, json_array());
  for (size_t i = 0; i < m->node_count && !b->failed; i++)
    jb_push(b, nodes, node_json(b, &m->nodes[i]));
  json_t *tensors = jb_check(b, json_object());
  for (size_t i = 0; i < m->tensor_count; i++)
    jb_set(b, tensors, m->tensors[i].name, tensor_meta(b, &m->tensors[i]));
  jb_set(b, graph, "inputs", inputs);
  jb_set(b, graph, "outputs", outputs);
  jb_set(b, graph, "nodes", nodes);
  jb_set(b, graph, "tensor_values", tensors);
  jb_set(b, graph, "sym_int_values", json_object());
  jb_set(b, graph, "sym_bool_values", json_object());
  jb_set(b, graph, "is_single_tensor_return", json_false());
  jb_set(b, graph, "custom_obj_values", json_object());

  json_t *signature = jb_check(b, json_object());
  jb_set(b, signature, "input_specs", input_specs);
  jb_set(b, signature, "output_specs", output_specs);
  json_t *call = jb_check(b, json_object());
  jb_set(b, call, "fqn", json_string(""));
  json_t *call_graph = jb_check(b, json_array());
  jb_push(b, call_graph, call);
  json_t *gm = jb_check(b, json_object());
  jb_set(b, gm, "graph", graph);
  jb_set(b, gm, "signature", signature);
  jb_set(b, gm, "module_call_graph", call_graph);

  json_t *root = jb_check(b, json_object());
  jb_set(b, root, "graph_module", gm);
  json_t *opset = jb_check(b, json_object());
  jb_set(b, opset, "aten", json_integer(10));
  jb_set(b, root, "opset_version", opset);
  jb_set(b, root, "range_constraints", json_object());
  json_t *version = jb_check(b, json_object());
  jb_set(b, version, "major", json_integer(5));
  jb_set(b, version, "minor", json_integer(4));
  jb_set(b, root, "schema_version", version);
  jb_set(b, root, "dialect", json_string(""));
  json_t *verifiers = jb_check(b, json_array());
  jb_push(b, verifiers, json_string("EDGE"));
  jb_set(b, root, "verifiers", verifiers);
  return root;
}

static json_t *int_list_json(builder_t *b, const int64_t *v, size_t n) {
  json_t *arr = jb_check(b, json_array());
  for (size_t i = 0; i < n; i++) jb_push(b, arr, json_integer(v[i]));
  return arr;
}

static void maps_json(builder_t *b, const etk_etrecord_desc_t *desc,
                      json_t **handles, json_t **delegates, json_t **num_outs) {
  *handles = jb_check(b, json_object());
  *delegates = jb_check(b, json_object());
  *num_outs = jb_check(b, json_object());
  for (size_t mi = 0; mi < desc->method_count; mi++) {
    const etk_etrecord_method_desc_t *m = &desc->methods[mi];
    json_t *h = jb_check(b, json_object());
    json_t *d = jb_check(b, json_object());
    json_t *o = jb_check(b, json_object());
    char key[32];
    for (size_t i = 0; i < m->handle_count; i++) {
      const etk_etrecord_handle_desc_t *e = &m->handles[i];
      snprintf(key, sizeof key, "%lld", (long long)e->instruction_id);
      jb_set(b, h, key,
             e->is_list ? int_list_json(b, e->handles, e->handle_count)
                        : json_integer(e->handles[0]));
    }
    for (size_t i = 0; i < m->delegate_count; i++) {
      const etk_etrecord_delegate_desc_t *e = &m->delegates[i];
      snprintf(key, sizeof key, "%lld", (long long)e->instruction_id);
      json_t *entry = jb_check(b, json_object());
      jb_set(b, entry, "name",
             json_string(e->backend_name ? e->backend_name : ""));
      json_t *ids = jb_check(b, json_object());
      for (size_t k = 0; k < e->id_count; k++)
        jb_set(b, ids, e->ids[k].id,
               int_list_json(b, e->ids[k].handles, e->ids[k].handle_count));
      jb_set(b, entry, "delegate_map", ids);
      jb_set(b, d, key, entry);
      if (e->num_outputs > 0) jb_set(b, o, key, json_integer(e->num_outputs));
    }
    jb_set(b, *handles, m->name, h);
    jb_set(b, *delegates, m->name, d);
    jb_set(b, *num_outs, m->name, o);
  }
}

/* ---------------------------------------------------------------- zipping */

typedef struct member_out {
  char *name; /* malloc'd */
  char *data; /* malloc'd JSON text, or NULL (borrowed / empty) */
  const void *bytes;
  size_t len;
} member_out_t;

typedef struct members {
  member_out_t *v;
  size_t n, cap;
} members_t;

static bool members_add(members_t *ms, const char *name, char *owned,
                        const void *bytes, size_t len) {
  if (!ETK_VEC_RESERVE(ms->v, ms->cap, ms->n + 1)) {
    free(owned);
    return false;
  }
  size_t nl = strlen(name);
  char *copy = malloc(nl + 1);
  if (!copy) {
    free(owned);
    return false;
  }
  memcpy(copy, name, nl + 1);
  member_out_t *m = &ms->v[ms->n++];
  m->name = copy;
  m->data = owned;
  m->bytes = owned ? owned : bytes;
  m->len = owned && !len ? strlen(owned) : len; /* owned text or bytes */
  return true;
}

static void members_free(members_t *ms) {
  for (size_t i = 0; i < ms->n; i++) {
    free(ms->v[i].name);
    free(ms->v[i].data); /* jansson's json_dumps uses malloc */
  }
  free(ms->v);
}

static int zip_all(const members_t *ms, int64_t mtime, uint8_t **out,
                   size_t *out_len, etk_error_t *err) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &ze);
  zip_t *za =
      src ? zip_open_from_source(src, ZIP_CREATE | ZIP_TRUNCATE, &ze) : NULL;
  if (!za) {
    if (src) zip_source_free(src);
    zip_error_fini(&ze);
    return etk_error_set(err, ETK_E_INTERNAL, ETK_NO_OFFSET,
                         "libzip cannot create an archive in memory");
  }
  zip_error_fini(&ze);
  zip_source_keep(src);
  const char *failed = NULL;
  for (size_t i = 0; i < ms->n && !failed; i++) {
    const member_out_t *m = &ms->v[i];
    zip_source_t *s =
        zip_source_buffer(za, m->len ? m->bytes : NULL, m->len, 0);
    zip_int64_t idx = s ? zip_file_add(za, m->name, s, ZIP_FL_ENC_UTF_8) : -1;
    if (idx < 0) {
      if (s) zip_source_free(s);
      failed = m->name;
      break;
    }
    if (zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0) != 0 ||
        zip_file_set_mtime(za, (zip_uint64_t)idx, (time_t)mtime, 0) != 0 ||
        zip_file_set_external_attributes(za, (zip_uint64_t)idx, 0,
                                         ZIP_OPSYS_UNIX, 0600u << 16) != 0)
      failed = m->name;
  }
  if (failed || zip_close(za) != 0) {
    const char *why = zip_strerror(za);
    etk_error_set(err, ETK_E_INTERNAL, ETK_NO_OFFSET,
                  "libzip failed writing '%s': %s", failed ? failed : "archive",
                  why);
    zip_discard(za);
    zip_source_free(src);
    return ETK_E_INTERNAL;
  }
  int rc = ETK_OK;
  if (zip_source_open(src) != 0) {
    zip_source_free(src);
    return etk_error_set(err, ETK_E_INTERNAL, ETK_NO_OFFSET,
                         "libzip cannot reopen the archive");
  }
  zip_int64_t size = -1;
  if (zip_source_seek(src, 0, SEEK_END) == 0) size = zip_source_tell(src);
  uint8_t *buf = NULL;
  if (size < 0 || zip_source_seek(src, 0, SEEK_SET) != 0) {
    rc = etk_error_set(err, ETK_E_INTERNAL, ETK_NO_OFFSET,
                       "libzip cannot size the archive");
  } else if (!(buf = malloc((size_t)size ? (size_t)size : 1))) {
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                       "out of memory copying the archive");
  } else if (zip_source_read(src, buf, (zip_uint64_t)size) != size) {
    rc = etk_error_set(err, ETK_E_INTERNAL, ETK_NO_OFFSET,
                       "libzip cannot read the archive back");
  }
  zip_source_close(src);
  zip_source_free(src);
  if (rc != ETK_OK) {
    free(buf);
    return rc;
  }
  *out = buf;
  *out_len = (size_t)size;
  return ETK_OK;
}

/* ---------------------------------------------------------------- public */

static char *dump(builder_t *b, json_t *root) {
  char *text = NULL;
  if (!b->failed && root) text = json_dumps(root, JSON_ENSURE_ASCII);
  if (!text) b->failed = true;
  json_decref(root);
  return text;
}

int etk_etrecord_write_memory(const etk_etrecord_desc_t *desc, uint8_t **out,
                              size_t *out_len, etk_error_t *err) {
  if (!desc || !out || !out_len)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  *out_len = 0;
  int rc = validate(desc, err);
  if (rc != ETK_OK) return rc;

  members_t ms = {0};
  builder_t b = {false};
  bool ok = members_add(&ms, "ETRECORD_V0", NULL, NULL, 0);
  for (size_t i = 0; i < desc->method_count && ok; i++) {
    const etk_etrecord_method_desc_t *m = &desc->methods[i];
    size_t base_len = strlen(EDGE_NAME) + 1 + strlen(m->name);
    char *name = malloc(base_len + sizeof "_example_inputs");
    if (!name) {
      ok = false;
      break;
    }
    snprintf(name, base_len + 1, "%s/%s", EDGE_NAME, m->name);
    char *json = dump(&b, program_json(&b, m));
    ok = json && members_add(&ms, name, json, NULL, 0);
    static const char *const suffixes[] = {"_state_dict", "_constants",
                                           "_example_inputs"};
    for (size_t k = 0; k < 3 && ok; k++) {
      uint8_t *sd = NULL;
      size_t sd_len = 0;
      snprintf(name + base_len, sizeof "_example_inputs", "%s", suffixes[k]);
      if (k == 0 && m->weight_count) {
        rc = etr_write_state_dict(m->weights, m->weight_count, &sd, &sd_len,
                                  err);
        if (rc != ETK_OK) {
          free(name);
          members_free(&ms);
          return rc;
        }
      }
      ok = members_add(&ms, name, (char *)sd, NULL, sd_len);
    }
    free(name);
  }
  if (ok) {
    json_t *h, *d, *o;
    maps_json(&b, desc, &h, &d, &o);
    char *hs = dump(&b, h), *ds = dump(&b, d), *os = dump(&b, o);
    if (!hs || !ds || !os) {
      free(hs);
      free(ds);
      free(os);
      ok = false;
    } else {
      /* members_add() takes ownership of its text, even on failure. */
      ok = members_add(&ms, "debug_handle_map", hs, NULL, 0);
      if (ok)
        ok = members_add(&ms, "delegate_map", ds, NULL, 0);
      else
        free(ds);
      if (ok)
        ok = members_add(&ms, "instruction_id_to_num_outs_map", os, NULL, 0);
      else
        free(os);
    }
  }
  /* reference outputs / representative inputs: torch.save archives,
   * borrowed by the member list until the archive is written */
  uint8_t *ref_out = NULL, *ref_in = NULL;
  size_t ref_out_len = 0, ref_in_len = 0;
  if (ok && !b.failed && desc->references) {
    rc = etr_write_references(desc->references, &ref_out, &ref_out_len, &ref_in,
                              &ref_in_len, err);
    if (rc != ETK_OK) {
      members_free(&ms);
      return rc;
    }
    if (ref_out)
      ok = members_add(&ms, "reference_outputs", NULL, ref_out, ref_out_len);
    if (ok && ref_in)
      ok = members_add(&ms, "representative_inputs", NULL, ref_in, ref_in_len);
  }
  for (size_t i = 0; i < desc->extra_member_count && ok; i++)
    ok = members_add(&ms, desc->extra_members[i].name, NULL,
                     desc->extra_members[i].data, desc->extra_members[i].len);
  if (!ok || b.failed) {
    members_free(&ms);
    free(ref_out);
    free(ref_in);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory building the ETRecord");
  }
  rc = zip_all(&ms, desc->mtime ? desc->mtime : DEFAULT_MTIME, out, out_len,
               err);
  members_free(&ms);
  free(ref_out);
  free(ref_in);
  return rc;
}

int etk_etrecord_write_file(const etk_etrecord_desc_t *desc, const char *path,
                            etk_error_t *err) {
  if (!path)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL path");
  uint8_t *data;
  size_t len;
  int rc = etk_etrecord_write_memory(desc, &data, &len, err);
  if (rc != ETK_OK) return rc;
  rc = etk_write_file(path, data, len, err);
  free(data);
  return rc;
}
