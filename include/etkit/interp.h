/*
 * etkit/interp.h - the ETRecord's graph run as a program (library
 * etkit_interp, above etkit_graph and etkit_kernels): the AOT reference of
 * numerical debugging, computed in C without torch.
 *
 * etk_interp_run() takes a loaded graph (etkit/graph.h), feeds its
 * placeholders (weights from the state dict and constants; user inputs
 * from the record's representative inputs, or the caller's tensors) and
 * runs every call_function node of the top graph in order with etkit's
 * portable kernels (etkit/kernels.h).  An ATen or edge-dialect op is mapped
 * onto the kernel of its out variant (aten.convolution.default and
 * edge aten.convolution.default -> aten::convolution.out; view ops onto
 * their _copy kernels) with the op's schema defaults for arguments the
 * serializer left out.  Each node's outputs are kept, in the dtype and
 * shape the graph's TensorMeta records, and can be looked up by node or by
 * debug handle.
 *
 * Nothing is guessed: an op without a kernel is reported on its node
 * ("unsupported op aten.x.y"), a kernel that refuses its arguments
 * reports its own message, and every node that uses a value such a node
 * should have produced is marked ETK_INTERP_NO_REFERENCE (naming the
 * first node that failed upstream).  The run itself fails only for what
 * makes every node meaningless: missing representative inputs (the
 * message says how to add them), a user input of the wrong shape or dtype,
 * a weight the state dict lacks, or the memory limit.
 *
 * Memory: every output tensor is allocated once and kept (numerical
 * debugging compares all of them); their total is bounded by
 * opts.max_memory, checked before each allocation with overflow-checked
 * sizes taken from the graph, never from data.  Host only (heap).
 */
#ifndef ETKIT_INTERP_H
#define ETKIT_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/graph.h"
#include "etkit/kernels.h"
#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tensor handed to or from the interpreter: C-contiguous little-endian
 * elements of an etk_scalar_type code. */
typedef struct etk_interp_tensor {
  int32_t dtype; /* etk_scalar_type code (float32 = 6) */
  uint32_t dim;
  const int64_t *sizes; /* dim entries (NULL when dim is 0) */
  const void *data;     /* nbytes bytes */
  uint64_t nbytes;      /* numel * element size */
} etk_interp_tensor_t;

typedef struct etk_interp_options {
  /* Bound on the bytes of all tensors the run allocates (outputs kept for
   * comparison, scratch outputs); 0 = 2 GiB. */
  uint64_t max_memory;
  /* User inputs: NULL = case `input_case` of the record's
   * representative inputs.  Otherwise input_count tensors, one per user
   * input of the graph in order, checked against its TensorMeta. */
  const etk_interp_tensor_t *inputs;
  size_t input_count;
  int64_t input_case; /* representative-inputs case (0 = the first) */
  /* Where user inputs come from when `inputs` is NULL:
   * ETK_GRAPH_REPRESENTATIVE_INPUTS (default) or ETK_GRAPH_EXAMPLE_INPUTS */
  etk_graph_recording_t recording;
} etk_interp_options_t;

/* Fills *opts with the defaults.  `opts` must not be NULL. */
void etk_interp_options_default(etk_interp_options_t *opts);

typedef enum etk_interp_status {
  ETK_INTERP_OK = 0,      /* ran; outputs hold the reference */
  ETK_INTERP_UNSUPPORTED, /* no kernel for the op (or its form) */
  ETK_INTERP_FAILED,      /* the kernel or the interpreter refused it */
  ETK_INTERP_NO_REFERENCE /* an input has no value (upstream failure) */
} etk_interp_status_t;

/* "ok", "unsupported", "failed", "no reference"; never NULL. */
const char *etk_interp_status_name(etk_interp_status_t status);

/* The result of one call_function node of the top graph. */
typedef struct etk_interp_node {
  size_t node;        /* index in etk_graph_nodes() */
  const char *name;   /* FX node name */
  const char *op;     /* "aten.convolution.default" */
  const char *kernel; /* the kernel run ("aten::convolution.out"), or NULL */
  const int64_t *debug_handles; /* the node's, from the graph */
  size_t debug_handle_count;
  etk_interp_status_t status;
  const char *message; /* why not OK ("" when OK) */
  /* The node's outputs (status OK), in the order of its output values. */
  const etk_interp_tensor_t *outputs;
  size_t output_count;
  /* true when the node returns a list or tuple (as_tensors outputs:
   * upstream keeps such outputs as a list); false for one tensor */
  bool output_is_list;
} etk_interp_node_t;

typedef struct etk_interp etk_interp_t;

/* Runs the top graph of `g` (borrowed; must outlive the result) into a
 * new result *out (free with etk_interp_free()).  Errors (the run as a
 * whole; per-node problems are node statuses, not errors):
 *   ETK_E_INVALID_ARGUMENT  NULL g/out; caller inputs of the wrong count,
 *                           shape or dtype (the message names the input
 *                           and both shapes);
 *   ETK_E_NOT_FOUND         no representative inputs (the message says
 *                           how to add them), a weight missing from the
 *                           state dict;
 *   ETK_E_LIMIT             outputs that need more than max_memory, or
 *                           shapes whose byte counts overflow;
 *   ETK_E_NO_MEMORY, and the graph's decoding errors.
 * *out is NULL on failure. */
int etk_interp_run(etk_graph_t *g, const etk_interp_options_t *opts,
                   etk_interp_t **out, etk_error_t *err);

/* Frees the result and its tensors.  NULL is a no-op. */
void etk_interp_free(etk_interp_t *r);

/* The call nodes of the top graph, in graph order (never NULL unless the
 * count is 0). */
size_t etk_interp_node_count(const etk_interp_t *r);
const etk_interp_node_t *etk_interp_nodes(const etk_interp_t *r);

/* The result of graph node `node` (an etk_graph_nodes() index), or NULL
 * when it is not a call node of the top graph. */
const etk_interp_node_t *etk_interp_node_for(const etk_interp_t *r,
                                             size_t node);

/* How many nodes have `status`. */
size_t etk_interp_status_count(const etk_interp_t *r,
                               etk_interp_status_t status);

/* Bytes the run allocated (inputs borrowed from the graph not counted). */
uint64_t etk_interp_memory_used(const etk_interp_t *r);

/* 1 when the interpreter has a mapping for op `op` ("aten.relu.default",
 * as etk_graph_node_t.op spells it), else 0. */
int etk_interp_op_supported(const char *op);

/* The ops the interpreter maps, in its table's (sorted) order: the name
 * of row i, or NULL past the last row. */
const char *etk_interp_op_name(size_t i);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_INTERP_H */
