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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/torch.h"
#include "call.h"
#include "state.h"

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
    if (interp_tensor_shape(&r->values[v].t, in.dtype, in.dim, in.sizes,
                            &bytes) != ETK_OK ||
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
  return r ? interp_node_result(r, node) : NULL;
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
