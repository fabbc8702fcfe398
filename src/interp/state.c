/*
 * state.c - the run's state shared by the runner (interp.c) and the call
 * of one node (call.c): tensors allocated for graph values against the
 * run's memory bound, their public views, and each node's status and
 * message.
 *
 * Data layout: r->values[v] (interp_value_t) holds value v's kernel tensor
 * and its public view; r->messages[k] the malloc'd message of result k,
 * which r->nodes[k].message points at.  Invariant: r->used is the sum of
 * the capacity of every tensor the run owns and never exceeds
 * r->max_memory, because each allocation is checked against it first with
 * sizes multiplied under overflow checks.  The leaf of the library: it
 * uses no other file of src/interp (state.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/checked.h"
#include "state.h"

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

int interp_tensor_shape(etk_tensor_t *t, int32_t dtype, uint32_t dim,
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
  if (interp_tensor_shape(&iv->t, gv->meta.dtype, gv->meta.dim, gv->meta.sizes,
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

const etk_interp_node_t *interp_node_result(const etk_interp_t *r,
                                            size_t node) {
  if (node >= r->gnode_count || r->node_index[node] == ETK_GRAPH_NONE)
    return NULL;
  return &r->nodes[r->node_index[node]];
}
