/*
 * interp_internal.h - private to etkit_interp: the op table (op_table.c)
 * and the argument schema the runner (interp.c, call.c) reads.
 */
#ifndef ETKIT_INTERP_INTERNAL_H
#define ETKIT_INTERP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/interp.h"

/* How a node's outputs reach the kernel. */
typedef enum interp_out_kind {
  INTERP_OUT_TENSORS = 0, /* out_count tensors, repeated as the returns */
  INTERP_OUT_LIST         /* one tensor-list out argument, no returns */
} interp_out_kind_t;

/* One op of the graph mapped onto a kernel.
 *   schema: the op's arguments in schema order, "name:kind[=default]"
 *     separated by spaces.  kinds: T tensor, T? optional tensor, TL tensor
 *     list, OTL optional tensor list, I int, I? optional int, D float,
 *     D? optional float, B bool, S scalar, S? optional scalar, L int list,
 *     L? optional int list, str / str? string, dtype / dtype? ScalarType,
 *     mf? memory format (passed as None), X any (not passed).  A default
 *     is a number, 0/1 for bools, "a,b" for lists ("[]" empty), "None",
 *     or a word for strings; a default written "!v" must hold (any other
 *     value makes the node unsupported: training-mode batch norm ...).
 *   kargs: the kernel's arguments before its outs, names of schema
 *     arguments separated by spaces, or "#B0" / "#N" / "#L0,0" literals;
 *     NULL = every schema argument but the X ones, in order.
 *   outs / scratch: the node's tensor outputs and how many extra
 *     ("scratch") outs the kernel writes that the node does not return
 *     (e.g. aten.layer_norm has 1 output, native_layer_norm.out 3);
 *     scratch_dtype -1 = the first output's dtype. */
typedef struct interp_op {
  const char *op;
  const char *kernel;
  const char *schema;
  const char *kargs;
  interp_out_kind_t out_kind;
  int scratch;
  int scratch_dtype;
} interp_op_t;

/* The entry for `op` ("aten.add.Tensor"), or NULL. */
const interp_op_t *interp_op_find(const char *op);

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

/* Allocates a tensor for graph value `v` from its TensorMeta (dtype and
 * static sizes), counted against the run's memory bound.  Returns ETK_OK,
 * ETK_E_LIMIT (bound or overflow; the run stops), or ETK_E_FORMAT with
 * *why set (no usable meta: the node fails). */
int interp_value_alloc(etk_interp_t *r, size_t v, const char **why);

/* Frees the data of value v when the run owns it and forgets it. */
void interp_value_drop(etk_interp_t *r, size_t v);

/* Sets the public view of value v from its kernel tensor. */
void interp_value_publish(interp_value_t *iv);

/* Runs one call node of the top graph into r->nodes[k].  Returns ETK_OK
 * (the node's status says how it went) or a run-level error (ETK_E_LIMIT,
 * ETK_E_NO_MEMORY) with *err set. */
int interp_call(etk_interp_t *r, size_t k, etk_error_t *err);

/* Stores a malloc'd copy of the formatted message for result k. */
void interp_node_message(etk_interp_t *r, size_t k, etk_interp_status_t st,
                         const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* ETKIT_INTERP_INTERNAL_H */
