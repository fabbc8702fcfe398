/*
 * interp.c - the run of a graph: placeholders fed from weights and inputs,
 * call nodes run in graph order (call.c runs one), results kept per node.
 *
 * Data layout: one interp_value_t per graph value (index = the graph's
 * value index) holds the tensor that value has during the run: borrowed
 * from the graph for placeholders (weights and recorded inputs stay in the
 * graph's cache, never copied) or from the caller's inputs, malloc'd for
 * node outputs.  One etk_interp_node_t per call node of the top graph, in
 * node order, points at its outputs' public views (etk_interp_tensor_t).
 *
 * Invariants: a value has a tensor only when every node it depends on ran;
 * `used` is the sum of the bytes of the tensors the run allocated and never
 * exceeds max_memory (each allocation is checked first, with sizes from
 * the graph's TensorMeta multiplied with overflow checks); shapes are
 * those of the TensorMeta, and dims beyond ETK_MAX_DIMS or sizes beyond
 * int32 are refused before anything is allocated.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/checked.h"
#include "etkit/torch.h"
#include "interp_internal.h"

#define DEFAULT_MAX_MEMORY (2ull << 30)

void etk_interp_options_default(etk_interp_options_t *opts) {
  memset(opts, 0, sizeof *opts);
  opts->recording = ETK_GRAPH_REPRESENTATIVE_INPUTS;
}

const char *etk_interp_status_name(etk_interp_status_t status) {
  switch (status) {
    case ETK_INTERP_OK:
      return "ok";
    case ETK_INTERP_UNSUPPORTED:
      return "unsupported";
    case ETK_INTERP_FAILED:
      return "failed";
    case ETK_INTERP_NO_REFERENCE:
      return "no reference";
  }
  return "unknown";
}

void interp_node_message(etk_interp_t *r, size_t k, etk_interp_status_t st,
                         const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  free(r->messages[k]);
  r->messages[k] = malloc(strlen(buf) + 1);
  if (r->messages[k]) memcpy(r->messages[k], buf, strlen(buf) + 1);
  r->nodes[k].message = r->messages[k] ? r->messages[k] : "out of memory";
  r->nodes[k].status = st;
}

void interp_value_publish(interp_value_t *iv) {
  for (int32_t d = 0; d < iv->t.dim; d++) iv->sizes[d] = iv->t.sizes[d];
  iv->out.dtype = iv->t.scalar_type;
  iv->out.dim = (uint32_t)iv->t.dim;
  iv->out.sizes = iv->sizes;
  iv->out.data = iv->t.data;
  iv->out.nbytes = iv->t.nbytes;
}

/* Fills t (contiguous) with dtype and sizes; ETK_E_LIMIT when they do not
 * fit a kernel tensor, with *bytes = numel * element size. */
static int tensor_shape(etk_tensor_t *t, int32_t dtype, uint32_t dim,
                        const int64_t *sizes, uint64_t *bytes) {
  size_t es = etk_scalar_type_size(dtype);
  uint64_t n = 1;
  if (dim > ETK_MAX_DIMS || es == 0) return ETK_E_LIMIT;
  memset(t, 0, sizeof *t);
  t->scalar_type = dtype;
  t->dim = (int32_t)dim;
  for (uint32_t d = 0; d < dim; d++) {
    if (sizes[d] < 0 || sizes[d] > INT32_MAX) return ETK_E_LIMIT;
    if (etk_checked_mul_u64(n, (uint64_t)sizes[d], &n)) return ETK_E_LIMIT;
    t->sizes[d] = (int32_t)sizes[d];
    t->dim_order[d] = (uint8_t)d;
  }
  if (etk_checked_mul_u64(n, es, bytes) || *bytes > SIZE_MAX / 2)
    return ETK_E_LIMIT;
  etk_tensor_update_strides(t);
  t->nbytes = (size_t)*bytes;
  t->capacity_bytes = (size_t)*bytes;
  return ETK_OK;
}

int interp_value_alloc(etk_interp_t *r, size_t v, const char **why) {
  const etk_graph_value_t *gv = &r->gvalues[v];
  interp_value_t *iv = &r->values[v];
  uint64_t bytes = 0;
  *why = NULL;
  if (gv->kind != ETK_GRAPH_VALUE_TENSOR || !gv->has_meta ||
      gv->meta.has_symbolic || gv->meta.dtype < 0) {
    *why = "has no static shape and dtype in the graph";
    return ETK_E_FORMAT;
  }
  if (tensor_shape(&iv->t, gv->meta.dtype, gv->meta.dim, gv->meta.sizes,
                   &bytes) != ETK_OK) {
    *why = "has a shape or dtype a kernel tensor cannot hold";
    return ETK_E_FORMAT;
  }
  if (bytes > r->max_memory - r->used) return ETK_E_LIMIT;
  iv->t.data = calloc(1, bytes ? (size_t)bytes : 1);
  if (!iv->t.data) return ETK_E_NO_MEMORY;
  r->used += bytes;
  iv->owned = true;
  return ETK_OK;
}

void interp_value_drop(etk_interp_t *r, size_t v) {
  interp_value_t *iv = &r->values[v];
  if (iv->owned) {
    free(iv->t.data);
    r->used -= iv->t.capacity_bytes;
  }
  iv->t.data = NULL;
  iv->owned = false;
  iv->has = false;
}

static void shape_text(char *buf, size_t cap, uint32_t dim,
                       const int64_t *sizes, int32_t dtype) {
  size_t at = 0;
  at += (size_t)snprintf(buf, cap, "[");
  for (uint32_t d = 0; d < dim && at < cap; d++)
    at += (size_t)snprintf(buf + at, cap - at, "%s%lld", d ? ", " : "",
                           (long long)sizes[d]);
  if (at < cap)
    snprintf(buf + at, cap - at, "] %s",
             etk_torch_dtype_name(dtype) ? etk_torch_dtype_name(dtype) : "?");
}

/* Checks a user input against the placeholder's TensorMeta. */
static int check_input(const etk_graph_value_t *gv, const char *name,
                       size_t index, const etk_interp_tensor_t *in,
                       etk_error_t *err) {
  char got[160], want[160];
  bool same;
  if (!gv->has_meta || gv->meta.has_symbolic) return ETK_OK;
  same = in->dtype == gv->meta.dtype && in->dim == gv->meta.dim;
  for (uint32_t d = 0; same && d < in->dim; d++)
    same = in->sizes[d] == gv->meta.sizes[d];
  if (same) return ETK_OK;
  shape_text(got, sizeof got, in->dim, in->sizes, in->dtype);
  shape_text(want, sizeof want, gv->meta.dim, gv->meta.sizes, gv->meta.dtype);
  return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                       "input %zu ('%s') is %s, the graph expects %s", index,
                       name, got, want);
}

/* The user-input index of placeholder p, or ETK_GRAPH_NONE for weights. */
static size_t user_index(const etk_graph_graph_t *top, size_t p,
                         size_t position) {
  if (top->input_spec_count == 0) return position;
  for (size_t s = 0; s < top->input_spec_count; s++)
    if (top->input_specs[s].node == p)
      return top->input_specs[s].kind == ETK_GRAPH_INPUT_USER
                 ? top->input_specs[s].user_index
                 : ETK_GRAPH_NONE;
  return ETK_GRAPH_NONE;
}

/* Gives every placeholder of the top graph its tensor. */
static int feed_placeholders(etk_interp_t *r, const etk_interp_options_t *o,
                             etk_error_t *err) {
  const etk_graph_graph_t *top = &etk_graph_graphs(r->g)[0];
  for (size_t k = 0; k < top->placeholder_count; k++) {
    size_t p = top->placeholders[k], ui = user_index(top, p, k), v;
    const etk_graph_node_t *pn = &r->gnodes[p];
    etk_interp_tensor_t in;
    etk_graph_tensor_t gt;
    uint64_t bytes;
    int rc;
    if (pn->output_value_count != 1) continue; /* not a tensor input */
    v = pn->output_values[0];
    if (r->gvalues[v].kind != ETK_GRAPH_VALUE_TENSOR) continue;
    if (o->inputs && ui != ETK_GRAPH_NONE) {
      if (ui >= o->input_count)
        return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                             "%zu inputs given, the graph has more user "
                             "inputs (input %zu is '%s')",
                             o->input_count, ui, pn->name);
      in = o->inputs[ui];
    } else {
      rc = etk_graph_placeholder_tensor(r->g, p, o->recording, o->input_case,
                                        &gt, err);
      if (rc != ETK_OK) return rc;
      if (gt.dtype < 0)
        return etk_error_set(err, ETK_E_FORMAT, ETK_NO_OFFSET,
                             "placeholder '%s' is not fed a tensor", pn->name);
      in.dtype = gt.dtype;
      in.dim = gt.dim;
      in.sizes = gt.sizes;
      in.data = gt.data;
      in.nbytes = gt.nbytes;
    }
    if (ui != ETK_GRAPH_NONE &&
        (rc = check_input(&r->gvalues[v], pn->name, ui, &in, err)) != ETK_OK)
      return rc;
    if (tensor_shape(&r->values[v].t, in.dtype, in.dim, in.sizes, &bytes) !=
            ETK_OK ||
        bytes != in.nbytes || (bytes && !in.data))
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "the tensor of '%s' has a bad shape, dtype or "
                           "byte count",
                           pn->name);
    r->values[v].t.data = (void *)(uintptr_t)in.data; /* never written */
    r->values[v].has = true;
    interp_value_publish(&r->values[v]);
  }
  return ETK_OK;
}

/* Allocates the per-value and per-node arrays. */
static int interp_new(etk_graph_t *g, const etk_interp_options_t *o,
                      etk_interp_t **out) {
  etk_interp_t *r = calloc(1, sizeof *r);
  const etk_graph_graph_t *top;
  if (!r) return ETK_E_NO_MEMORY;
  *out = r;
  r->g = g;
  r->gnodes = etk_graph_nodes(g);
  r->gvalues = etk_graph_values(g);
  r->value_count = etk_graph_value_count(g);
  r->gnode_count = etk_graph_node_count(g);
  r->max_memory = o->max_memory ? o->max_memory : DEFAULT_MAX_MEMORY;
  top = etk_graph_graph_count(g) ? &etk_graph_graphs(g)[0] : NULL;
  r->node_count = top ? top->call_count : 0;
  r->values = calloc(r->value_count + 1, sizeof *r->values);
  r->nodes = calloc(r->node_count + 1, sizeof *r->nodes);
  r->messages = calloc(r->node_count + 1, sizeof *r->messages);
  r->outs = calloc(r->node_count + 1, sizeof *r->outs);
  r->node_index = malloc((r->gnode_count + 1) * sizeof *r->node_index);
  if (!r->values || !r->nodes || !r->messages || !r->outs || !r->node_index)
    return ETK_E_NO_MEMORY;
  for (size_t v = 0; v < r->value_count; v++)
    r->values[v].failed_node = ETK_GRAPH_NONE;
  for (size_t n = 0, k = 0; n < r->gnode_count; n++) {
    const etk_graph_node_t *gn = &r->gnodes[n];
    r->node_index[n] = ETK_GRAPH_NONE;
    if (gn->graph != 0 || gn->kind != ETK_GRAPH_NODE_CALL || k >= r->node_count)
      continue;
    r->node_index[n] = k;
    r->nodes[k].node = n;
    r->nodes[k].name = gn->name;
    r->nodes[k].op = gn->op;
    r->nodes[k].debug_handles = gn->debug_handles;
    r->nodes[k].debug_handle_count = gn->debug_handle_count;
    r->nodes[k].message = "";
    k++;
  }
  return ETK_OK;
}

int etk_interp_run(etk_graph_t *g, const etk_interp_options_t *opts,
                   etk_interp_t **out, etk_error_t *err) {
  etk_interp_options_t defaults;
  etk_interp_t *r = NULL;
  int rc;
  if (!g || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  if (!opts) {
    etk_interp_options_default(&defaults);
    opts = &defaults;
  }
  rc = interp_new(g, opts, &r);
  if (rc != ETK_OK) {
    etk_interp_free(r);
    return etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  }
  rc = feed_placeholders(r, opts, err);
  for (size_t k = 0; rc == ETK_OK && k < r->node_count; k++)
    rc = interp_call(r, k, err);
  if (rc != ETK_OK) {
    etk_error_where(err, "interpreter");
    etk_interp_free(r);
    return rc;
  }
  *out = r;
  return ETK_OK;
}

void etk_interp_free(etk_interp_t *r) {
  if (!r) return;
  for (size_t v = 0; r->values && v < r->value_count; v++)
    if (r->values[v].owned) free(r->values[v].t.data);
  for (size_t k = 0; k < r->node_count; k++) {
    if (r->messages) free(r->messages[k]);
    if (r->outs) free(r->outs[k]);
  }
  free(r->values);
  free(r->nodes);
  free(r->messages);
  free(r->outs);
  free(r->node_index);
  free(r);
}

size_t etk_interp_node_count(const etk_interp_t *r) {
  return r ? r->node_count : 0;
}

const etk_interp_node_t *etk_interp_nodes(const etk_interp_t *r) {
  return r ? r->nodes : NULL;
}

const etk_interp_node_t *etk_interp_node_for(const etk_interp_t *r,
                                             size_t node) {
  if (!r || node >= r->gnode_count || r->node_index[node] == ETK_GRAPH_NONE)
    return NULL;
  return &r->nodes[r->node_index[node]];
}

size_t etk_interp_status_count(const etk_interp_t *r,
                               etk_interp_status_t status) {
  size_t n = 0;
  for (size_t k = 0; r && k < r->node_count; k++)
    n += r->nodes[k].status == status;
  return n;
}

uint64_t etk_interp_memory_used(const etk_interp_t *r) {
  return r ? r->used : 0;
}
