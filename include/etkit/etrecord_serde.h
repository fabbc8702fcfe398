/*
 * etkit/etrecord_serde.h - the structured parts of a serialised
 * ExportedProgram as the ETRecord reader keeps them (library
 * etkit_etrecord; included by etkit/etrecord.h): every node's arguments
 * and outputs as typed values, each graph's inputs, outputs, TensorMeta
 * and signature, and the nesting of graphs.  The spec is PyTorch's export
 * serde schema (torch/_export/serde/schema.py); both union spellings
 * (2023's all-tags objects and the single-key objects since 2024-07) read
 * the same.
 *
 * These arrays hang off etk_etrecord_program_t (graphs) and
 * etk_etrecord_node_t (input_args, output_args, debug_handles); they live
 * as long as the record.  Values are referred to by name here; the graph
 * library (etkit/graph.h) resolves names to producers and users.
 */
#ifndef ETKIT_ETRECORD_SERDE_H
#define ETKIT_ETRECORD_SERDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds of a serde Argument, in the order of etk_graph_arg_kind_t. */
typedef enum etk_etrecord_arg_kind {
  ETK_ETRECORD_ARG_UNKNOWN = 0,
  ETK_ETRECORD_ARG_NONE,
  ETK_ETRECORD_ARG_TENSOR,
  ETK_ETRECORD_ARG_TENSORS,
  ETK_ETRECORD_ARG_OPTIONAL_TENSOR,
  ETK_ETRECORD_ARG_OPTIONAL_TENSORS,
  ETK_ETRECORD_ARG_INT,
  ETK_ETRECORD_ARG_INTS,
  ETK_ETRECORD_ARG_FLOAT,
  ETK_ETRECORD_ARG_FLOATS,
  ETK_ETRECORD_ARG_BOOL,
  ETK_ETRECORD_ARG_BOOLS,
  ETK_ETRECORD_ARG_STRING,
  ETK_ETRECORD_ARG_STRINGS,
  ETK_ETRECORD_ARG_SCALAR_TYPE,
  ETK_ETRECORD_ARG_MEMORY_FORMAT,
  ETK_ETRECORD_ARG_LAYOUT,
  ETK_ETRECORD_ARG_DEVICE,
  ETK_ETRECORD_ARG_SYM_INT,
  ETK_ETRECORD_ARG_SYM_INTS,
  ETK_ETRECORD_ARG_SYM_BOOL,
  ETK_ETRECORD_ARG_SYM_BOOLS,
  ETK_ETRECORD_ARG_SYM_FLOAT,
  ETK_ETRECORD_ARG_SYM_FLOATS,
  ETK_ETRECORD_ARG_GRAPH,
  ETK_ETRECORD_ARG_CUSTOM_OBJ,
  ETK_ETRECORD_ARG_OPERATOR,
  ETK_ETRECORD_ARG_COMPLEX,
  ETK_ETRECORD_ARG_INT_LISTS,
  ETK_ETRECORD_ARG_NESTED_TENSORS,
  ETK_ETRECORD_ARG_STRING_TO_ARGUMENT,
  ETK_ETRECORD_ARG_TOKEN
} etk_etrecord_arg_kind_t;

/* One Argument (or NamedArgument).  Scalars use i / f / s; lists use
 * count and the arrays; `names[k]` is the name of the value element k
 * refers to (tensors, symbols, custom objects, tokens), NULL for elements
 * that name none (None, constants).  Kinds and fields:
 *   NONE; TENSOR, OPTIONAL_TENSOR, CUSTOM_OBJ (s = class_fqn), TOKEN:
 *   count 1 (0 for a None optional tensor), names[0];
 *   TENSORS, OPTIONAL_TENSORS: names[]; INT, BOOL, MEMORY_FORMAT,
 *   LAYOUT, SCALAR_TYPE (serde ScalarType): i; FLOAT: f; STRING,
 *   OPERATOR: s; DEVICE: s (type), i (index, -1 when absent); INTS,
 *   BOOLS: ints[]; FLOATS: floats[]; STRINGS: strings[]; SYM_INT /
 *   SYM_BOOL / SYM_FLOAT: names[0] (a symbol) or i / f (a constant),
 *   count 1; SYM_INTS / SYM_BOOLS / SYM_FLOATS: names[k] or ints[k] /
 *   floats[k]; GRAPH: s (its name), graph (index in the program's
 *   graphs); COMPLEX: floats[0..2); INT_LISTS, NESTED_TENSORS,
 *   STRING_TO_ARGUMENT: items[] (keys in items[k].name). */
typedef struct etk_etrecord_arg {
  const char *name; /* NamedArgument name ("self"); "" for Arguments */
  const char *tag;  /* the serde tag as written ("as_tensor") */
  etk_etrecord_arg_kind_t kind;
  bool keyword; /* NamedArgument.kind == 2 (KEYWORD) */
  int64_t i;
  double f;
  const char *s;
  size_t count;
  const char *const *names;
  const int64_t *ints;
  const double *floats;
  const char *const *strings;
  const struct etk_etrecord_arg *items;
  size_t graph;
} etk_etrecord_arg_t;

/* One TensorMeta of a graph's tensor_values (2023's {"meta": ...} wrapper
 * unwrapped).  Symbolic sizes and strides are -1 with their expression in
 * size_exprs / stride_exprs (NULL arrays when every entry is a constant). */
typedef struct etk_etrecord_tensor_meta {
  const char *name;
  int32_t dtype; /* serde ScalarType (FLOAT = 7) */
  uint32_t dim;
  const int64_t *sizes;
  const char *const *size_exprs;
  bool has_strides;
  const int64_t *strides;
  const char *const *stride_exprs;
  int64_t storage_offset;
  bool requires_grad;
  const char *device; /* "cpu", "cuda:0", "" when absent */
  int32_t layout;     /* serde Layout, 0 when absent */
  bool malformed;     /* a field had the wrong type or more than 64
                         dimensions: only `name` is meaningful */
} etk_etrecord_tensor_meta_t;

/* One InputSpec or OutputSpec of a GraphSignature. */
typedef struct etk_etrecord_spec {
  const char *tag;        /* "user_input", "parameter", "buffer_mutation" */
  etk_etrecord_arg_t arg; /* its arg (a TensorArgument reads as TENSOR, a
                             TokenArgument as TOKEN); constant_input: NONE
                             with the name in arg.names[0] */
  const char *target;     /* parameter_name, buffer_name, ... or NULL */
  bool persistent;        /* buffer: "persistent" (true when absent) */
  const etk_etrecord_arg_t *constant; /* constant_input: its value */
} etk_etrecord_spec_t;

typedef enum etk_etrecord_graph_kind {
  ETK_ETRECORD_GRAPH_TOP = 0,      /* graph_module.graph */
  ETK_ETRECORD_GRAPH_CONTROL_FLOW, /* an as_graph argument */
  ETK_ETRECORD_GRAPH_LOWERED       /* a lowered module's original program */
} etk_etrecord_graph_kind_t;

/* Custom objects of a graph's custom_obj_values. */
typedef struct etk_etrecord_custom_obj {
  const char *name;
  const char *class_fqn;
} etk_etrecord_custom_obj_t;

/* One graph of a program: the top graph (index 0) or a nested one, in the
 * order the walk meets them.  Its nodes are the program's nodes whose
 * `graph` field is its index. */
typedef struct etk_etrecord_graph {
  etk_etrecord_graph_kind_t kind;
  const char *name; /* "", the GraphArgument name, or the lowered
                       module's argument name */
  size_t owner;     /* the node owning it, ETK_ETRECORD_NO_PARENT at top */
  uint32_t depth;
  const char *backend;              /* LOWERED: backend_id, else NULL */
  const etk_etrecord_arg_t *inputs; /* graph.inputs */
  size_t input_count;
  const etk_etrecord_arg_t *outputs; /* graph.outputs */
  size_t output_count;
  const etk_etrecord_tensor_meta_t *tensor_values; /* JSON order */
  size_t tensor_value_count;
  const etk_etrecord_custom_obj_t *custom_objs;
  size_t custom_obj_count;
  const char *const *sym_names; /* keys of sym_int/bool/float_values */
  const etk_etrecord_arg_kind_t *sym_kinds; /* SYM_INT, SYM_BOOL, SYM_FLOAT */
  size_t sym_count;
  bool has_signature; /* TOP and LOWERED programs with graph_module.
                         signature */
  const etk_etrecord_spec_t *input_specs;
  size_t input_spec_count;
  const etk_etrecord_spec_t *output_specs;
  size_t output_spec_count;
} etk_etrecord_graph_t;

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_ETRECORD_SERDE_H */
