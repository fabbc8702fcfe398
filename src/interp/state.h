/*
 * state.h - private to etkit_interp: the run's state (struct etk_interp,
 * one interp_value_t per graph value) and the functions on it (state.c),
 * used by the runner (interp.c) and the node call (call.c).  Every
 * pointer argument is not NULL; nothing here takes ownership.
 */
#ifndef ETKIT_INTERP_STATE_H
#define ETKIT_INTERP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/interp.h"

/* One graph value's state during a run. */
typedef struct interp_value {
  bool has;       /* holds a tensor */
  bool owned;     /* data was allocated by the run */
  etk_tensor_t t; /* the kernel view (data, sizes, dim order) */
  int64_t sizes[ETK_MAX_DIMS];
  etk_interp_tensor_t out; /* the public view */
  size_t failed_node;      /* when !has: the graph node that should have made
                              it (ETK_GRAPH_NONE for placeholders) */
} interp_value_t;

struct etk_interp {
  etk_graph_t *g;
  const etk_graph_node_t *gnodes;
  const etk_graph_value_t *gvalues;
  size_t value_count;
  interp_value_t *values;
  etk_interp_node_t *nodes;
  size_t node_count;
  size_t *node_index; /* graph node -> nodes[] index, or ETK_GRAPH_NONE */
  size_t gnode_count;
  uint64_t used, max_memory;
  char **messages;            /* per result: malloc'd message or NULL */
  etk_interp_tensor_t **outs; /* per result: malloc'd output views */
};

/* Fills t (contiguous) with dtype and sizes; ETK_E_LIMIT when they do not
 * fit a kernel tensor, with *bytes = numel * element size. */
int interp_tensor_shape(etk_tensor_t *t, int32_t dtype, uint32_t dim,
                        const int64_t *sizes, uint64_t *bytes);

/* Allocates a tensor for graph value `v` from its TensorMeta (dtype and
 * static sizes), counted against the run's memory bound.  Returns ETK_OK,
 * ETK_E_LIMIT (bound or overflow; the run stops), or ETK_E_FORMAT with
 * *why set (no usable meta: the node fails). */
int interp_value_alloc(etk_interp_t *r, size_t v, const char **why);

/* Frees the data of value v when the run owns it and forgets it. */
void interp_value_drop(etk_interp_t *r, size_t v);

/* Sets the public view of value v from its kernel tensor. */
void interp_value_publish(interp_value_t *iv);

/* Stores a malloc'd copy of the formatted message for result k. */
void interp_node_message(etk_interp_t *r, size_t k, etk_interp_status_t st,
                         const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The result of graph node `node`, or NULL when it is no call node of the
 * top graph (or out of range).  Borrowed from r. */
const etk_interp_node_t *interp_node_result(const etk_interp_t *r, size_t node);

#endif /* ETKIT_INTERP_STATE_H */
