/*
 * etkit/etrecord_writer.h - the ETRecord writer (library etkit_etrecord):
 * describing programs etkit built itself and writing them as an ETRecord
 * zip, with reference outputs and representative inputs as torch.save
 * members.  Included by etkit/etrecord.h.
 */
#ifndef ETKIT_ETRECORD_WRITER_H
#define ETKIT_ETRECORD_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ writing */

typedef struct etk_torch_tensor_desc etk_torch_tensor_desc_t;

/* The writer describes programs that etkit built itself.  Everything is
 * borrowed for the duration of the write call only.  Example (one method,
 * one node, instruction 0 runs it):
 *
 *     etk_etrecord_module_desc_t mods[] = {
 *         {"L__self__", "", "toy.Model"},
 *         {"L__self___mul", "mul", "toy.Mul"}};
 *     etk_etrecord_input_desc_t in[] = {{"self", "x"}, {"other", "y"}};
 *     const char *outs[] = {"aten_mul_tensor"};
 *     etk_etrecord_node_desc_t nodes[] = {{
 *         .name = "aten_mul_tensor",
 *         .target = "executorch.exir.dialects.edge.ops.aten.mul.Tensor",
 *         .debug_handle = 1,
 *         .stack_trace = "  File \"toy.py\", line 3, in forward\n"
 *                        "    return x * y\n",
 *         .module_stack = mods, .module_stack_count = 2,
 *         .inputs = in, .input_count = 2,
 *         .outputs = outs, .output_count = 1}};
 *     int64_t h1[] = {1};
 *     etk_etrecord_handle_desc_t handles[] = {{0, h1, 1, false}};
 *     const char *graph_in[] = {"x", "y"};
 *     etk_etrecord_method_desc_t m = {
 *         .name = "forward", .nodes = nodes, .node_count = 1,
 *         .graph_inputs = graph_in, .graph_input_count = 2,
 *         .graph_outputs = outs, .graph_output_count = 1,
 *         .handles = handles, .handle_count = 1};
 *     etk_etrecord_desc_t desc = {.methods = &m, .method_count = 1};
 *     etk_error_t err;
 *     etk_error_clear(&err);
 *     int rc = etk_etrecord_write_file(&desc, "model.etrecord", &err);
 */

/* One nn_module_stack entry, outermost first.  key and type must not
 * contain ',' or ';'; path must not contain ';' nor ',' outside () or []. */
typedef struct etk_etrecord_module_desc {
  const char *key;  /* unique module-call id, e.g. "L__self___fc" */
  const char *path; /* access path, e.g. "fc" ("" for the root) */
  const char *type; /* qualified class name, e.g. "torch.nn.Linear" */
} etk_etrecord_module_desc_t;

/* The kind of a node argument (export serde's Argument tags); the zero
 * value is a tensor. */
typedef enum etk_etrecord_input_kind {
  ETK_ETRECORD_IN_TENSOR = 0,   /* as_tensor: `tensor` */
  ETK_ETRECORD_IN_NONE,         /* as_none */
  ETK_ETRECORD_IN_INT,          /* as_int: i */
  ETK_ETRECORD_IN_FLOAT,        /* as_float: f */
  ETK_ETRECORD_IN_BOOL,         /* as_bool: i (0/1) */
  ETK_ETRECORD_IN_INTS,         /* as_ints: ints[0..count) */
  ETK_ETRECORD_IN_FLOATS,       /* as_floats: floats[0..count) */
  ETK_ETRECORD_IN_STRING,       /* as_string: s */
  ETK_ETRECORD_IN_TENSORS,      /* as_tensors: tensors[0..count) */
  ETK_ETRECORD_IN_OPT_TENSORS,  /* as_optional_tensors: NULL items = None */
  ETK_ETRECORD_IN_SCALAR_TYPE,  /* as_scalar_type: i (serde numbering,
                                    FLOAT = 7) */
  ETK_ETRECORD_IN_MEMORY_FORMAT /* as_memory_format: i (serde numbering) */
} etk_etrecord_input_kind_t;

/* One tensor input of a node: schema argument name and value name. */
typedef struct etk_etrecord_input_desc {
  const char *arg;    /* schema argument name ("self"); NULL = "arg<i>" */
  const char *tensor; /* value name (a graph input or another node's output) */
} etk_etrecord_input_desc_t;

/* One argument of any kind: schema argument name and its value (the
 * structured form of etk_etrecord_input_desc_t).  Arguments are written
 * in the order given (schema order; defaults may be left out as export's
 * serializer does). */
typedef struct etk_etrecord_arg_desc {
  const char *arg;    /* schema argument name ("self"); NULL = "arg<i>" */
  const char *tensor; /* TENSOR: value name (a graph input or another
                         node's output) */
  etk_etrecord_input_kind_t kind;
  bool keyword; /* written with kind KEYWORD (2) instead of POSITIONAL */
  int64_t i;
  double f;
  const char *s;
  const int64_t *ints;
  const double *floats;
  const char *const *tensors; /* TENSORS / OPT_TENSORS value names */
  size_t count;
} etk_etrecord_arg_desc_t;

typedef struct etk_etrecord_node_desc {
  const char *name;   /* unique within the method; required */
  const char *target; /* full target string (see etk_etrecord_edge_target()) */
  int64_t debug_handle;    /* > 0; 0 = none (no "debug_handle" metadata) */
  const char *stack_trace; /* Python-style frames, or NULL */
  const etk_etrecord_module_desc_t *module_stack; /* may be NULL */
  size_t module_stack_count;
  const char *source_fn_stack; /* raw "name,fn;..." or NULL */
  const etk_etrecord_input_desc_t *inputs;
  size_t input_count;
  /* Arguments of any kind (NULL = `inputs`, tensors only): when set,
   * `inputs` is ignored. */
  const etk_etrecord_arg_desc_t *args;
  size_t arg_count;
  const char *const *outputs; /* output value names (at least one is
                                 usual; none writes an as_none output) */
  size_t output_count;
  /* true: the outputs are written as one as_tensors list (multi-output
   * ops such as native_layer_norm or split); false: one as_tensor each */
  bool outputs_as_list;
} etk_etrecord_node_desc_t;

/* A weight of a method: a graph input fed from the state dict.  The
 * writer lists weights before the user inputs (torch.export's order) in
 * the graph inputs and the signature, and stores the tensors in the
 * method's "_state_dict" member (a torch.save dict key -> tensor). */
typedef struct etk_etrecord_weight_desc {
  const char *placeholder; /* the graph input's value name ("p_conv_weight") */
  const char *key;         /* its state-dict key ("conv.weight") */
  bool buffer;             /* true: a buffer (persistent); false: parameter */
  const struct etk_torch_tensor_desc *tensor; /* the weight's values */
} etk_etrecord_weight_desc_t;

/* Optional TensorMeta of a value (makes the JSON loadable by upstream). */
typedef struct etk_etrecord_tensor_desc {
  const char *name;
  int32_t dtype;        /* export-serde numbering: FLOAT = 7, LONG = 5 ... */
  const int64_t *sizes; /* contiguous strides are written */
  size_t dim;
} etk_etrecord_tensor_desc_t;

/* debug_handle_map entry: one handle (is_list false, count 1) or a list. */
typedef struct etk_etrecord_handle_desc {
  int64_t instruction_id;
  const int64_t *handles;
  size_t handle_count;
  bool is_list;
} etk_etrecord_handle_desc_t;

typedef struct etk_etrecord_delegate_id_desc {
  const char *id; /* the backend's debug id, as a string */
  const int64_t *handles;
  size_t handle_count;
} etk_etrecord_delegate_id_desc_t;

typedef struct etk_etrecord_delegate_desc {
  int64_t instruction_id; /* of the DelegateCall */
  const char *backend_name;
  const etk_etrecord_delegate_id_desc_t *ids; /* NULL/0: "delegate_map": {} */
  size_t id_count;
  int64_t num_outputs; /* > 0 adds an instruction_id_to_num_outs_map entry */
} etk_etrecord_delegate_desc_t;

typedef struct etk_etrecord_method_desc {
  const char *name; /* "forward"; no '/' */
  const etk_etrecord_node_desc_t *nodes;
  size_t node_count;
  const char *const *graph_inputs;
  size_t graph_input_count;
  const char *const *graph_outputs;
  size_t graph_output_count;
  const etk_etrecord_tensor_desc_t *tensors; /* optional */
  size_t tensor_count;
  const etk_etrecord_handle_desc_t *handles;
  size_t handle_count;
  const etk_etrecord_delegate_desc_t *delegates;
  size_t delegate_count;
  /* Weights (may be NULL/0): graph inputs before graph_inputs, with
   * parameter / buffer input specs and a written "_state_dict". */
  const etk_etrecord_weight_desc_t *weights;
  size_t weight_count;
} etk_etrecord_method_desc_t;

/* A raw member copied as is (e.g. reference_outputs from another record). */
typedef struct etk_etrecord_blob_desc {
  const char *name;
  const void *data; /* may be NULL when len is 0 */
  size_t len;
} etk_etrecord_blob_desc_t;

typedef struct etk_etrecord_desc {
  const etk_etrecord_method_desc_t *methods; /* at least one */
  size_t method_count;
  const etk_etrecord_blob_desc_t *extra_members; /* optional */
  size_t extra_member_count;
  int64_t mtime; /* member time stamps, seconds since 1970; 0 = a fixed
                    date (2024-01-01) for reproducible files */
  /* Optional reference outputs / representative inputs, written as
   * torch.save archives (see etk_etrecord_references_desc_t below); NULL =
   * none.  Then extra members may not be named "reference_outputs" /
   * "representative_inputs". */
  const struct etk_etrecord_references_desc *references;
} etk_etrecord_desc_t;

/* Writes an ETRecord in the current layout into a malloc'd buffer:
 * ETRECORD_V0 first, then per method "edge_dialect_exported_program/<m>"
 * (single-key JSON, schema 5.4, verifiers ["EDGE"]) with its
 * _state_dict (the weights as a torch.save dict, zero-length without
 * weights), and zero-length _constants and _example_inputs members, then
 * debug_handle_map, delegate_map and instruction_id_to_num_outs_map
 * (Python json.dumps spacing), then reference_outputs and
 * representative_inputs when desc->references asks for them (torch.save
 * archives, see etk_etrecord_references_desc_t), then the extra members;
 * all STORED.
 * Caller frees *out with free().  Errors: ETK_E_INVALID_ARGUMENT (NULL
 * pointers, no method, duplicate or malformed names, bad module entries),
 * ETK_E_BAD_UTF8 (a string is not UTF-8), ETK_E_NO_MEMORY, ETK_E_INTERNAL
 * (libzip failure); err->message names the method/node/field. */
int etk_etrecord_write_memory(const etk_etrecord_desc_t *desc, uint8_t **out,
                              size_t *out_len, etk_error_t *err);

/* Same, written atomically to `path` (temporary file, then rename). */
int etk_etrecord_write_file(const etk_etrecord_desc_t *desc, const char *path,
                            etk_error_t *err);

/* Writes the edge target of an operator name into out (snprintf-style):
 * "aten::mul.Tensor" or "aten.mul.Tensor" ->
 * "executorch.exir.dialects.edge.ops.aten.mul.Tensor"; a name without an
 * overload gets ".default".  `op` must not be NULL. */
size_t etk_etrecord_edge_target(const char *op, char *out, size_t out_size);

/* One tensor given to the ETRecord writer: C-contiguous little-endian
 * elements of a dtype of etk_torch_dtype_name(). */
struct etk_torch_tensor_desc {
  int32_t dtype;
  uint32_t dim;
  const int64_t *sizes; /* may be NULL when dim is 0 */
  const void *data;     /* nbytes bytes (may be NULL when nbytes is 0) */
  uint64_t nbytes;      /* must equal numel * element size */
};

/* The expected outputs of one test case. */
typedef struct etk_etrecord_case_desc {
  const etk_torch_tensor_desc_t *outputs;
  size_t output_count;
} etk_etrecord_case_desc_t;

/* reference_outputs[method] = [case 0 outputs, case 1 outputs, ...]. */
typedef struct etk_etrecord_reference_desc {
  const char *method;
  const etk_etrecord_case_desc_t *cases;
  size_t case_count;
} etk_etrecord_reference_desc_t;

/* Reference outputs and representative inputs for the ETRecord writer:
 * set etk_etrecord_desc_t.references to one of these.  The writer stores
 * "reference_outputs" as a torch.save archive of {method: [[tensor, ...],
 * ...]} (lists, like a BundledProgram's expected outputs) when
 * method_count > 0, and "representative_inputs" as a torch.save archive
 * of [tensor, ...] when input_count > 0. */
typedef struct etk_etrecord_references_desc {
  const etk_etrecord_reference_desc_t *methods;
  size_t method_count;
  const etk_torch_tensor_desc_t *inputs;
  size_t input_count;
} etk_etrecord_references_desc_t;

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_ETRECORD_WRITER_H */
