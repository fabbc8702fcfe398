/*
 * model_explorer.c - Model Explorer's graph JSON and node-data JSON
 * (google-ai-edge/model-explorer, graph_builder.py and
 * node_data_builder.py) for an etk_graph_t.
 *
 * The node ids are those Model Explorer's own PyTorch adapter gives the
 * program after torch deserialises it: FX node names.  Deserialising
 * turns a node whose outputs are several Arguments, or one list Argument,
 * into the node plus one getitem node per produced value, named after the
 * value; this writer emits those getitem nodes too (right after their
 * producer), so that ids, edges and users match what the adapter draws.
 * Edges follow the adapter's rules: one per distinct source in first-use
 * order, sourceNodeOutputId = the target's position among the source's
 * users, targetNodeInputId = the source's position.  The namespace is the
 * adapter's ("inputs" for placeholders, "<class>_<last path component>"
 * per nn_module_stack entry, joined with '/'), under "<backend>_<k>" for
 * nodes of delegate partition k.
 *
 * Output goes through the render library's JSON writer into a memory
 * sink; the *_write_* functions then write the bytes atomically.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"
#include "internal.h"

void etk_graph_me_options_default(etk_graph_me_options_t *opts) {
  memset(opts, 0, sizeof *opts);
  opts->nested_graphs = true;
}

static bool has_getitems(const etk_graph_node_t *n) {
  return graph_node_has_getitems(n);
}

/* The ME node id a value comes from: its getitem node or its producer. */
static const char *source_id(const etk_graph_t *g, size_t v) {
  const etk_graph_value_t *val = &g->values[v];
  return has_getitems(&g->nodes[val->producer]) ? val->name
                                                : g->nodes[val->producer].name;
}

/* Position of `target` among the ME users of a source: a getitem value's
 * users, or a producer's (its getitem nodes when it has some). */
static size_t position_in(const size_t *sorted, size_t n, size_t target) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && sorted[lo] == target ? lo : 0;
}

/* Position of `target` among the ME users of a source: a getitem value's
 * users, or a producer's (its getitem nodes when it has some).  Users are
 * in node order, so a binary search finds it. */
static size_t user_position(const etk_graph_t *g, size_t v, size_t target) {
  const etk_graph_value_t *val = &g->values[v];
  const etk_graph_node_t *p = &g->nodes[val->producer];
  if (has_getitems(p)) return position_in(val->users, val->user_count, target);
  return position_in(p->users, p->user_count, target);
}

static void write_label(etk_json_t *j, const etk_graph_node_t *n) {
  if (n->kind == ETK_GRAPH_NODE_PLACEHOLDER) {
    etk_json_kv_cstring(j, "label", n->name);
    return;
  }
  /* the op without its overload: "aten.convolution" */
  const char *op = n->op ? n->op : "";
  const char *last = strrchr(op, '.');
  const char *first = strchr(op, '.');
  size_t len = last && last != first ? (size_t)(last - op) : strlen(op);
  etk_json_key(j, "label");
  etk_json_string(j, op, len);
}

static void write_namespace(const etk_graph_t *g, etk_json_t *j,
                            const etk_graph_node_t *n) {
  etk_render_sink_t *s = j->sink;
  etk_json_key(j, "namespace");
  if (n->kind == ETK_GRAPH_NODE_PLACEHOLDER) {
    etk_json_cstring(j, "inputs");
    return;
  }
  etk_render_sink_t text;
  etk_render_sink_init_memory(&text);
  if (n->partition != ETK_GRAPH_NONE) {
    const etk_graph_partition_t *p = &g->partitions[n->partition];
    etk_render_printf(&text, "%s_%zu", *p->backend ? p->backend : "delegate",
                      n->partition);
  }
  const etk_etrecord_node_t *r = n->record;
  for (size_t k = 0; r && k < r->module_count; k++) {
    const etk_etrecord_module_entry_t *m = &r->modules[k];
    if (text.bytes) etk_render_putc(&text, '/');
    etk_render_puts(&text, m->type ? m->type : "");
    const char *path = m->path ? m->path : "";
    if (*path) {
      const char *dot = strrchr(path, '.');
      etk_render_putc(&text, '_');
      etk_render_puts(&text, dot ? dot + 1 : path);
    }
  }
  size_t len;
  char *ns = etk_render_sink_take(&text, &len);
  etk_json_string(j, ns ? ns : "", ns ? len : 0);
  free(ns);
  if (text.status != ETK_OK && s->status == ETK_OK) s->status = text.status;
}

static void write_attr(etk_json_t *j, const char *key, const char *value) {
  etk_json_begin_object(j);
  etk_json_kv_cstring(j, "key", key);
  etk_json_kv_cstring(j, "value", value ? value : "");
  etk_json_end_object(j);
}

static void write_attrs(const etk_graph_t *g, etk_json_t *j,
                        const etk_graph_node_t *n, size_t index) {
  etk_json_key(j, "attrs");
  etk_json_begin_array(j);
  char buf[1024];
  for (size_t k = 0; k < n->arg_count && n->kind == ETK_GRAPH_NODE_CALL; k++) {
    etk_graph_arg_format(g, &n->args[k], buf, sizeof buf);
    write_attr(j, n->args[k].name, buf);
  }
  if (n->kind == ETK_GRAPH_NODE_CALL) {
    write_attr(j, "target", n->target);
    write_attr(j, "op", n->op);
  }
  if (n->debug_handle_count) {
    size_t len = 0;
    buf[0] = 0;
    for (size_t k = 0; k < n->debug_handle_count && len < 900; k++)
      len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld",
                              k ? ", " : "", (long long)n->debug_handles[k]);
    write_attr(j, "debug_handle", buf);
  }
  if (*n->module_path) write_attr(j, "module", n->module_path);
  if (*n->source) write_attr(j, "source", n->source);
  if (n->partition != ETK_GRAPH_NONE) {
    write_attr(j, "delegate", g->partitions[n->partition].backend);
    write_attr(j, "partition", g->partitions[n->partition].name);
  }
  const etk_graph_graph_t *G = &g->graphs[n->graph];
  for (size_t k = 0; k < G->input_spec_count; k++)
    if (G->input_specs[k].node == index) {
      write_attr(j, "input_kind",
                 etk_graph_input_kind_name(G->input_specs[k].kind));
      if (G->input_specs[k].target)
        write_attr(j, "target", G->input_specs[k].target);
    }
  etk_json_end_array(j);
}

static void write_value_meta(const etk_graph_t *g, etk_json_t *j, size_t v,
                             size_t id) {
  const etk_graph_value_t *val = &g->values[v];
  char idbuf[32], shape[1024];
  snprintf(idbuf, sizeof idbuf, "%zu", id);
  etk_json_begin_object(j);
  etk_json_kv_cstring(j, "id", idbuf);
  etk_json_key(j, "attrs");
  etk_json_begin_array(j);
  if (val->has_meta && val->kind == ETK_GRAPH_VALUE_TENSOR) {
    char text[1100];
    etk_graph_value_shape(g, v, shape, sizeof shape);
    snprintf(text, sizeof text, "%s%s",
             graph_torch_dtype_name(val->meta.dtype, val->meta.serde_dtype),
             shape);
    write_attr(j, "tensor_shape", text);
  }
  write_attr(j, "tensor_name", val->name);
  etk_json_end_array(j);
  etk_json_end_object(j);
}

/* The values an argument names, in order (recursing into items). */
static bool collect_values(const etk_graph_arg_t *arg, size_t **vals,
                           size_t *count, size_t *cap) {
  for (size_t k = 0; arg->items && k < arg->count; k++)
    if (!collect_values(&arg->items[k], vals, count, cap)) return false;
  for (size_t k = 0; arg->values && k < arg->count; k++) {
    if (arg->values[k] == ETK_GRAPH_NONE) continue;
    if (!ETK_VEC_RESERVE(*vals, *cap, *count + 1)) return false;
    (*vals)[(*count)++] = arg->values[k];
  }
  return true;
}

/* A source of an edge: a getitem value (odd keys) or a producer node. */
typedef struct source_ref {
  size_t key, pos;
} source_ref_t;

static int cmp_source(const void *a, const void *b) {
  const source_ref_t *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

static size_t source_key(const etk_graph_t *g, size_t v) {
  size_t producer = g->values[v].producer;
  return has_getitems(&g->nodes[producer]) ? v * 2 + 1 : producer * 2;
}

/* incomingEdges of a node: one per distinct ME source, first-use order
 * (the order of FX's all_input_nodes).  Duplicates are found by sorting
 * (source, position), so a node with many inputs costs O(k log k). */
static void write_edges(const etk_graph_t *g, etk_json_t *j, size_t index) {
  const etk_graph_node_t *n = &g->nodes[index];
  size_t *vals = NULL, count = 0, cap = 0;
  bool ok = true;
  for (size_t a = 0; a < n->arg_count && ok; a++)
    ok = collect_values(&n->args[a], &vals, &count, &cap);
  source_ref_t *refs = ok && count ? malloc(count * sizeof *refs) : NULL;
  bool *first = ok && count ? calloc(count, sizeof *first) : NULL;
  if (count && (!refs || !first)) ok = false;
  if (!ok && j->sink->status == ETK_OK) j->sink->status = ETK_E_NO_MEMORY;
  for (size_t k = 0; ok && k < count; k++)
    refs[k] = (source_ref_t){source_key(g, vals[k]), k};
  if (ok && count) qsort(refs, count, sizeof *refs, cmp_source);
  for (size_t k = 0; ok && k < count; k++)
    first[refs[k].pos] = k == 0 || refs[k].key != refs[k - 1].key;
  etk_json_key(j, "incomingEdges");
  etk_json_begin_array(j);
  size_t input = 0;
  for (size_t k = 0; ok && k < count; k++) {
    if (!first[k]) continue;
    char out_id[32], in_id[32];
    snprintf(out_id, sizeof out_id, "%zu", user_position(g, vals[k], index));
    snprintf(in_id, sizeof in_id, "%zu", input++);
    etk_json_begin_object(j);
    etk_json_kv_cstring(j, "sourceNodeId", source_id(g, vals[k]));
    etk_json_kv_cstring(j, "sourceNodeOutputId", out_id);
    etk_json_kv_cstring(j, "targetNodeInputId", in_id);
    etk_json_end_object(j);
  }
  etk_json_end_array(j);
  free(refs);
  free(first);
  free(vals);
}

static void write_inputs_meta(etk_json_t *j, const etk_graph_node_t *n) {
  etk_json_key(j, "inputsMetadata");
  etk_json_begin_array(j);
  size_t input = 0;
  for (size_t a = 0; a < n->arg_count; a++) {
    const etk_graph_arg_t *arg = &n->args[a];
    bool any = false;
    for (size_t k = 0; arg->values && k < arg->count; k++)
      any = any || arg->values[k] != ETK_GRAPH_NONE;
    if (!any || !*arg->name) continue;
    char id[32];
    snprintf(id, sizeof id, "%zu", input++);
    etk_json_begin_object(j);
    etk_json_kv_cstring(j, "id", id);
    etk_json_key(j, "attrs");
    etk_json_begin_array(j);
    write_attr(j, "__tensor_tag", arg->name);
    etk_json_end_array(j);
    etk_json_end_object(j);
  }
  etk_json_end_array(j);
}

static void write_node(const etk_graph_t *g, etk_json_t *j, size_t index,
                       const char *subgraph_prefix) {
  const etk_graph_node_t *n = &g->nodes[index];
  etk_json_begin_object(j);
  etk_json_kv_cstring(j, "id", n->name);
  write_label(j, n);
  write_namespace(g, j, n);
  if (subgraph_prefix) {
    etk_json_key(j, "subgraphIds");
    etk_json_begin_array(j);
    /* the graphs it owns follow it, deeper; each ends with its output
     * node, whose parent is this node */
    for (size_t k = index + 1;
         k < g->node_count && g->nodes[k].depth > n->depth; k++)
      if (g->nodes[k].kind == ETK_GRAPH_NODE_OUTPUT &&
          g->nodes[k].parent == index) {
        char id[600];
        snprintf(id, sizeof id, "%.300s/%.280s", subgraph_prefix,
                 g->graphs[g->nodes[k].graph].name);
        etk_json_cstring(j, id);
      }
    etk_json_end_array(j);
  }
  write_attrs(g, j, n, index);
  write_edges(g, j, index);
  etk_json_key(j, "outputsMetadata");
  etk_json_begin_array(j);
  for (size_t k = 0; k < n->output_value_count; k++)
    write_value_meta(g, j, n->output_values[k], k);
  etk_json_end_array(j);
  write_inputs_meta(j, n);
  etk_json_end_object(j);
  if (!has_getitems(n)) return;
  for (size_t k = 0; k < n->output_value_count; k++) {
    size_t v = n->output_values[k];
    char id[32];
    etk_json_begin_object(j);
    etk_json_kv_cstring(j, "id", g->values[v].name);
    etk_json_kv_cstring(j, "label", "getitem");
    write_namespace(g, j, n);
    etk_json_key(j, "attrs");
    etk_json_begin_array(j);
    snprintf(id, sizeof id, "%zu", k);
    write_attr(j, "index", id);
    etk_json_end_array(j);
    etk_json_key(j, "incomingEdges");
    etk_json_begin_array(j);
    etk_json_begin_object(j);
    etk_json_kv_cstring(j, "sourceNodeId", n->name);
    snprintf(id, sizeof id, "%zu", k);
    etk_json_kv_cstring(j, "sourceNodeOutputId", id);
    etk_json_kv_cstring(j, "targetNodeInputId", "0");
    etk_json_end_object(j);
    etk_json_end_array(j);
    etk_json_key(j, "outputsMetadata");
    etk_json_begin_array(j);
    write_value_meta(g, j, v, 0);
    etk_json_end_array(j);
    etk_json_end_object(j);
  }
}

static void write_graph(const etk_graph_t *g, etk_json_t *j, size_t gi,
                        const char *top_id, bool nested) {
  char id[600];
  if (gi == 0)
    snprintf(id, sizeof id, "%s", top_id);
  else
    snprintf(id, sizeof id, "%.300s/%.280s", top_id, g->graphs[gi].name);
  etk_json_begin_object(j);
  etk_json_kv_cstring(j, "id", id);
  etk_json_key(j, "nodes");
  etk_json_begin_array(j);
  const etk_graph_graph_t *G = &g->graphs[gi];
  for (size_t i = G->first_node; i < G->end_node; i++)
    if (g->nodes[i].graph == gi) write_node(g, j, i, nested ? top_id : NULL);
  etk_json_end_array(j);
  etk_json_end_object(j);
}

static int finish(etk_render_sink_t *s, etk_json_t *j, char **out,
                  size_t *out_len, etk_error_t *err) {
  int rc = j->status != ETK_OK ? j->status : etk_render_sink_flush(s);
  if (rc == ETK_OK) {
    *out = etk_render_sink_take(s, out_len);
    if (!*out) rc = ETK_E_NO_MEMORY;
  }
  etk_render_sink_free(s);
  if (rc != ETK_OK)
    return etk_error_set(err, rc == ETK_E_NO_MEMORY ? rc : ETK_E_INTERNAL,
                         ETK_NO_OFFSET, "cannot write Model Explorer JSON");
  return ETK_OK;
}

int etk_graph_model_explorer_json(const etk_graph_t *g,
                                  const etk_graph_me_options_t *opts,
                                  char **out, size_t *out_len,
                                  etk_error_t *err) {
  if (!g || !out || !out_len)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_model_explorer_json: NULL argument");
  *out = NULL;
  *out_len = 0;
  etk_graph_me_options_t defaults;
  etk_graph_me_options_default(&defaults);
  if (!opts) opts = &defaults;
  const char *top_id = opts->graph_id ? opts->graph_id : "graph";
  etk_render_sink_t *s = malloc(sizeof *s);
  if (!s)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_render_sink_init_memory(s);
  etk_json_t j;
  etk_json_init(&j, s, opts->indent);
  etk_json_begin_object(&j);
  etk_json_kv_cstring(&j, "label", opts->label ? opts->label : "etkit");
  etk_json_key(&j, "graphs");
  etk_json_begin_array(&j);
  size_t graphs = opts->nested_graphs ? g->graph_count : 1;
  for (size_t gi = 0; gi < graphs; gi++)
    write_graph(g, &j, gi, top_id, opts->nested_graphs && g->graph_count > 1);
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  int rc = finish(s, &j, out, out_len, err);
  free(s);
  return rc;
}

/* Writes a finished text (when rc is ETK_OK) to `path` atomically and
 * frees it.  A NULL path is ETK_E_INVALID_ARGUMENT (the callers then make
 * no text). */
static int write_whole(const char *path, int rc, char *buf, size_t len,
                       etk_error_t *err) {
  if (!path)
    rc = etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET, "NULL path");
  else if (rc == ETK_OK)
    rc = etk_write_file(path, buf, len, err);
  free(buf);
  return rc;
}

int etk_graph_write_model_explorer(const etk_graph_t *g,
                                   const etk_graph_me_options_t *opts,
                                   const char *path, etk_error_t *err) {
  char *buf = NULL;
  size_t len = 0;
  int rc =
      path ? etk_graph_model_explorer_json(g, opts, &buf, &len, err) : ETK_OK;
  return write_whole(path, rc, buf, len, err);
}

/* ------------------------------------------------------------- node data */

int etk_graph_node_data_json(const etk_graph_t *g,
                             const etk_graph_node_data_t *data, int indent,
                             char **out, size_t *out_len, etk_error_t *err) {
  if (!g || !data || !out || !out_len || (data->node_count && !data->values))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_node_data_json: NULL argument");
  *out = NULL;
  *out_len = 0;
  if (data->node_count != g->node_count)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "node data for %zu nodes, but the graph has %zu",
                         data->node_count, g->node_count);
  static const etk_graph_me_stop_t kDefault[2] = {{0.0, "#ffffff"},
                                                  {1.0, "#d7191c"}};
  const etk_graph_me_stop_t *stops = data->gradient ? data->gradient : kDefault;
  size_t stop_count = data->gradient ? data->gradient_count : 2;
  etk_render_sink_t *s = malloc(sizeof *s);
  if (!s)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_render_sink_init_memory(s);
  etk_json_t j;
  etk_json_init(&j, s, indent);
  etk_json_begin_object(&j);
  etk_json_key(&j, data->graph_id ? data->graph_id : "graph");
  etk_json_begin_object(&j);
  etk_json_key(&j, "results");
  etk_json_begin_object(&j);
  for (size_t i = 0; i < g->node_count; i++) {
    double v = data->values[i];
    bool present = data->has_value ? data->has_value[i] : !isnan(v);
    if (!present || !isfinite(v) || g->nodes[i].graph != 0) continue;
    etk_json_key(&j, g->nodes[i].name);
    etk_json_begin_object(&j);
    etk_json_kv_double(&j, "value", v);
    etk_json_end_object(&j);
  }
  etk_json_end_object(&j);
  etk_json_key(&j, "gradient");
  etk_json_begin_array(&j);
  for (size_t k = 0; k < stop_count; k++) {
    etk_json_begin_object(&j);
    etk_json_kv_double(&j, "stop", stops[k].stop);
    etk_json_kv_cstring(&j, "bgColor", stops[k].bg_color);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  if (data->unit) etk_json_kv_cstring(&j, "unit", data->unit);
  etk_json_end_object(&j);
  etk_json_end_object(&j);
  int rc = finish(s, &j, out, out_len, err);
  free(s);
  return rc;
}

int etk_graph_write_node_data(const etk_graph_t *g,
                              const etk_graph_node_data_t *data,
                              const char *path, etk_error_t *err) {
  char *buf = NULL;
  size_t len = 0;
  int rc =
      path ? etk_graph_node_data_json(g, data, 2, &buf, &len, err) : ETK_OK;
  return write_whole(path, rc, buf, len, err);
}
