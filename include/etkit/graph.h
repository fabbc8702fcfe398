/*
 * etkit/graph.h - the ETRecord's graph as one complete object (library
 * etkit_graph, above etkit_etrecord): nodes, values, edges, shapes, the
 * graph signature, delegate partitions, the weights and the recorded
 * inputs and outputs, and Model Explorer files made from it.
 *
 * THE OBJECT
 *   etk_graph_load() reads one serialised ExportedProgram of an ETRecord
 *   (PyTorch's export serde schema, torch/_export/serde/schema.py) once
 *   and completely, through the ETRecord reader (etkit/etrecord.h), and
 *   checks it as a graph: every tensor an argument names is produced
 *   before it is used, no name is produced twice, no node is named twice,
 *   sizes stay within the record's limits.  Everything below is then
 *   plain arrays:
 *
 *     nodes    every node of the program, in file order, with the
 *              placeholders and the output node of each (sub)graph made
 *              explicit as FX has them: per graph, its placeholders
 *              first, then its call_function nodes (each followed by the
 *              graphs nested in it, depth-first), then its output node.
 *              Invariant: every input edge of a node points to an earlier
 *              node of the same (sub)graph, so the array is a
 *              topological order and can be run front to back.
 *     values   every named value (tensors, symbolic ints/bools/floats,
 *              custom objects, tokens): who produces it, who uses it,
 *              and its TensorMeta (dtype, sizes, strides) when the
 *              program's tensor_values has one.
 *     graphs   the top graph (index 0) and every nested graph: control
 *              flow branches (as_graph arguments) and the original graph
 *              of a lowered module under an executorch_call_delegate
 *              node; each with its signature when it has one.
 *     partitions  delegated parts: one per lowered module found in the
 *              graph, and one per delegate_map entry of the method whose
 *              debug handles name nodes of the graph (an ETRecord made
 *              by to_edge_transform_and_lower records the edge program
 *              before partitioning, so the maps are the only trace).
 *
 *   Node, value, graph and partition references are indices into these
 *   arrays; ETK_GRAPH_NONE means "none".
 *
 *     etk_etrecord_t *rec;  etk_graph_t *g;  etk_error_t err;
 *     etk_error_clear(&err);
 *     if (etk_etrecord_open_file(path, NULL, &rec, &err) != ETK_OK ||
 *         etk_graph_load(rec, NULL, &g, &err) != ETK_OK) { ...report err... }
 *     const etk_graph_node_t *nodes = etk_graph_nodes(g);
 *     for (size_t i = 0; i < etk_graph_node_count(g); i++)
 *       if (nodes[i].kind == ETK_GRAPH_NODE_CALL && nodes[i].graph == 0)
 *         printf("%s %s\n", nodes[i].name, nodes[i].op);
 *     etk_graph_free(g);
 *     etk_etrecord_close(rec);
 *
 * WEIGHTS AND RECORDED TENSORS
 *   The tensors of "<program>_state_dict" and "<program>_constants"
 *   (parameters, buffers, lifted constants), "<program>_example_inputs",
 *   and the record's "representative_inputs" and "reference_outputs" are
 *   decoded on first use (torch.save archives, etkit/torch.h) and handed
 *   out as etk_graph_tensor_t: dtype, shape and C-contiguous bytes.
 *
 * MODEL EXPLORER
 *   etk_graph_write_model_explorer() writes Model Explorer's graph JSON
 *   (a GraphCollection of google-ai-edge/model-explorer graph_builder.py)
 *   and etk_graph_write_node_data() its node-data JSON
 *   (node_data_builder.py), with node ids equal to the FX node names
 *   that Model Explorer's own PyTorch adapter uses.
 *
 * WITH AN ETDUMP
 *   Per-node figures (time, share of Method::execute, runs, numerical
 *   error) come from joining a graph with an Inspector, which this
 *   library does not see: etk_graph_figures_compute() in etkit/link.h.
 *   Its etk_graph_figures_overlay() gives the values that
 *   etk_graph_node_data_t below takes.
 *
 * MEMORY AND OWNERSHIP
 *   A graph borrows its record: `rec` must outlive it.  Every pointer a
 *   graph hands out stays valid until etk_graph_free().  Strings are
 *   NUL-terminated UTF-8.  A graph is not thread-safe while weights or
 *   recorded tensors are loaded for the first time (they are cached);
 *   after that, reading is.
 *
 * Host only (heap; stdio only in the *_file writers).
 */
#ifndef ETKIT_GRAPH_H
#define ETKIT_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/etrecord.h"
#include "etkit/status.h"
#include "etkit/torch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "No node / value / graph / partition". */
#define ETK_GRAPH_NONE SIZE_MAX

/* ================================================================ loading */

typedef struct etk_graph etk_graph_t;

typedef struct etk_graph_options {
  /* Which program: NULL = the edge-dialect program of `method` (upstream's
   * default reference graph).  Otherwise any name etk_etrecord_graph_load()
   * accepts: "edge_dialect_exported_program", "exported_program" (the
   * ATen program), "aten_dialect_output" (the old layout's graph-map
   * module; "/forward" is appended), or an exact member name. */
  const char *graph_name;
  /* The method: NULL = "forward", or the only edge program when there is
   * exactly one.  Selects the edge program (when graph_name is NULL) and
   * the debug_handle_map / delegate_map entries used for partitions. */
  const char *method;
  /* 0 = etkit's checks; ETK_GRAPH_LENIENT_* bits relax them. */
  unsigned flags;
} etk_graph_options_t;

/* Tensor arguments naming a value no node produces become value-less edges
 * (value ETK_GRAPH_NONE) instead of an error. */
#define ETK_GRAPH_LENIENT_MISSING 0x1u

/* Fills *opts with the defaults (all NULL/0).  `opts` must not be NULL. */
void etk_graph_options_default(etk_graph_options_t *opts);

/* Loads the graph of `rec` chosen by `opts` (NULL = defaults) into a new
 * object *out (free with etk_graph_free()).  `rec` is borrowed and must
 * outlive the graph.  Reads the program JSON once (through the record's
 * cache), builds values and edges, checks the graph, and assigns
 * partitions; weights are read later, on demand.  Errors (err->where
 * names the member, the message the node and value):
 *   ETK_E_INVALID_ARGUMENT  NULL rec/out;
 *   ETK_E_NOT_FOUND         no such program (the message lists what the
 *                           record has);
 *   ETK_E_FORMAT            a tensor named by an argument that no node or
 *                           placeholder of its graph produces; a value
 *                           produced twice; two nodes of one graph with
 *                           one name; a node using a value produced later
 *                           (a cycle, or nodes out of order); a
 *                           malformed TensorMeta or signature;
 *   ETK_E_LIMIT             more nodes, values or tensor dimensions than
 *                           the record's limits allow (max_nodes; at most
 *                           64 dimensions; sizes and strides must be
 *                           >= 0 and their products fit int64);
 *   the program's load errors (etk_etrecord_program_load()) and
 *   ETK_E_NO_MEMORY.  *out is NULL on failure. */
int etk_graph_load(etk_etrecord_t *rec, const etk_graph_options_t *opts,
                   etk_graph_t **out, etk_error_t *err);

/* Frees the graph and everything it handed out (tensors included).  The
 * record is not closed.  NULL is a no-op. */
void etk_graph_free(etk_graph_t *g);

/* ============================================================== arguments */

/* The kinds of a serde Argument (schema.py `Argument`), TOKEN for the
 * TokenArgument of signatures, and UNKNOWN for a tag this reader does not
 * know (kept by name in etk_graph_arg_t.tag). */
typedef enum etk_graph_arg_kind {
  ETK_GRAPH_ARG_UNKNOWN = 0,
  ETK_GRAPH_ARG_NONE,               /* as_none */
  ETK_GRAPH_ARG_TENSOR,             /* as_tensor: values[0] */
  ETK_GRAPH_ARG_TENSORS,            /* as_tensors: values[0..count) */
  ETK_GRAPH_ARG_OPTIONAL_TENSOR,    /* as_optional_tensor: values[0] or NONE */
  ETK_GRAPH_ARG_OPTIONAL_TENSORS,   /* as_optional_tensors: NONE = None */
  ETK_GRAPH_ARG_INT,                /* as_int: i */
  ETK_GRAPH_ARG_INTS,               /* as_ints: ints[0..count) */
  ETK_GRAPH_ARG_FLOAT,              /* as_float: f */
  ETK_GRAPH_ARG_FLOATS,             /* as_floats: floats[0..count) */
  ETK_GRAPH_ARG_BOOL,               /* as_bool: i (0/1) */
  ETK_GRAPH_ARG_BOOLS,              /* as_bools: ints[] (0/1) */
  ETK_GRAPH_ARG_STRING,             /* as_string: s */
  ETK_GRAPH_ARG_STRINGS,            /* as_strings: strings[] */
  ETK_GRAPH_ARG_SCALAR_TYPE,        /* as_scalar_type: i (serde ScalarType),
                                       dtype (etk_scalar_type code or -1) */
  ETK_GRAPH_ARG_MEMORY_FORMAT,      /* as_memory_format: i (serde enum) */
  ETK_GRAPH_ARG_LAYOUT,             /* as_layout: i (serde enum, 7 Strided) */
  ETK_GRAPH_ARG_DEVICE,             /* as_device: s type, i index (-1: none) */
  ETK_GRAPH_ARG_SYM_INT,            /* as_sym_int: values[0] + s (a symbol's
                                       name) or i (a constant) */
  ETK_GRAPH_ARG_SYM_INTS,           /* as_sym_ints: per element values[k] and
                                       strings[k] (symbol) or ints[k] */
  ETK_GRAPH_ARG_SYM_BOOL,           /* as_sym_bool: like SYM_INT, i 0/1 */
  ETK_GRAPH_ARG_SYM_BOOLS,          /* as_sym_bools: like SYM_INTS */
  ETK_GRAPH_ARG_SYM_FLOAT,          /* as_sym_float: like SYM_INT, f */
  ETK_GRAPH_ARG_SYM_FLOATS,         /* as_sym_floats: like SYM_INTS, floats[] */
  ETK_GRAPH_ARG_GRAPH,              /* as_graph: s (its name), graph */
  ETK_GRAPH_ARG_CUSTOM_OBJ,         /* as_custom_obj: values[0], s class_fqn */
  ETK_GRAPH_ARG_OPERATOR,           /* as_operator: s */
  ETK_GRAPH_ARG_COMPLEX,            /* as_complex: floats[0] real, [1] imag */
  ETK_GRAPH_ARG_INT_LISTS,          /* as_int_lists: items[] of INTS */
  ETK_GRAPH_ARG_NESTED_TENSORS,     /* as_nested_tensors: items[] of TENSORS */
  ETK_GRAPH_ARG_STRING_TO_ARGUMENT, /* as_string_to_argument: items[], each
                                       with its key in `name` */
  ETK_GRAPH_ARG_TOKEN /* a TokenArgument (signatures): values[0] */
} etk_graph_arg_kind_t;

/* Upstream's name of a kind ("as_tensor", ...; "unknown"); never NULL. */
const char *etk_graph_arg_kind_name(etk_graph_arg_kind_t kind);

/* One argument: a NamedArgument of a node's inputs (`name` is the schema
 * argument name: "self", "other", "lowered_module_0", ...), or an
 * Argument of a node's outputs / a graph's inputs and outputs (`name` "").
 * Which fields hold the value depends on `kind` (see above); unused
 * pointers are NULL and unused numbers 0.  In `values`, an element that
 * names no value (None in an optional list, a constant in a sym list) is
 * ETK_GRAPH_NONE; `value_names[k]` keeps the name as written (NULL for
 * such elements) even when the value was not found (lenient loads). */
typedef struct etk_graph_arg {
  const char *name;
  etk_graph_arg_kind_t kind;
  const char *tag; /* the serde tag as written ("as_tensor", ...) */
  bool keyword;    /* NamedArgument.kind == KEYWORD (2): a kwarg */
  int64_t i;
  double f;
  const char *s;
  int32_t dtype; /* SCALAR_TYPE: etk_scalar_type code, -1 unknown */
  size_t count;  /* elements of list kinds (1 for TENSOR, SYM_*, ...) */
  const size_t *values;
  const char *const *value_names;
  const int64_t *ints;
  const double *floats;
  const char *const *strings;
  const struct etk_graph_arg *items; /* INT_LISTS, NESTED_TENSORS,
                                        STRING_TO_ARGUMENT */
  size_t graph;                      /* GRAPH: the nested graph's index */
} etk_graph_arg_t;

/* ================================================================= values */

typedef enum etk_graph_value_kind {
  ETK_GRAPH_VALUE_TENSOR = 0,
  ETK_GRAPH_VALUE_SYM_INT,
  ETK_GRAPH_VALUE_SYM_BOOL,
  ETK_GRAPH_VALUE_SYM_FLOAT,
  ETK_GRAPH_VALUE_CUSTOM_OBJ,
  ETK_GRAPH_VALUE_TOKEN
} etk_graph_value_kind_t;

/* A TensorMeta (schema.py) of graph.tensor_values. */
typedef struct etk_graph_tensor_meta {
  int32_t serde_dtype; /* schema.py ScalarType (FLOAT = 7) */
  int32_t dtype;       /* etk_scalar_type code (float32 = 6), -1 unknown */
  uint32_t dim;
  const int64_t *sizes;          /* dim entries; -1 where symbolic */
  const char *const *size_exprs; /* NULL, or per dim NULL / "s0" ... */
  const int64_t *strides;        /* dim entries; -1 where symbolic; NULL when
                                    the meta had none (2023 layout) */
  int64_t storage_offset;
  uint64_t numel;    /* product of sizes (0 when any is symbolic
                        and has_symbolic is set) */
  bool has_symbolic; /* some size or stride is an expression */
  bool requires_grad;
  const char *device; /* "cpu", "cuda:0"; "" when absent */
  int32_t layout;     /* serde Layout (7 = Strided), 0 when absent */
} etk_graph_tensor_meta_t;

typedef struct etk_graph_value {
  const char *name;
  etk_graph_value_kind_t kind;
  size_t graph;          /* the graph it lives in */
  size_t producer;       /* the node that produces it (a placeholder for
                            graph inputs) */
  uint32_t output_index; /* its position in the producer's output_values */
  const size_t *users;   /* nodes that take it, unique, in node order */
  size_t user_count;
  bool has_meta;                /* tensor_values (or sym values) describes it */
  etk_graph_tensor_meta_t meta; /* when has_meta and kind is TENSOR */
  const char *class_fqn;        /* CUSTOM_OBJ, or NULL */
} etk_graph_value_t;

/* ================================================================== nodes */

typedef enum etk_graph_node_kind {
  ETK_GRAPH_NODE_PLACEHOLDER = 0, /* a graph input */
  ETK_GRAPH_NODE_CALL,            /* a call_function node */
  ETK_GRAPH_NODE_OUTPUT           /* the graph's output node */
} etk_graph_node_kind_t;

typedef struct etk_graph_node {
  etk_graph_node_kind_t kind;
  /* FX node name: the node's "name" (the first output's name in 2023
   * files), the input value's name for placeholders, "output" for the
   * output node.  Unique within its graph. */
  const char *name;
  /* Full target ("executorch.exir.dialects.edge.ops.aten.mul.Tensor");
   * "placeholder" / "output" for the pseudo nodes. */
  const char *target;
  /* The Inspector's op type ("aten.mul.Tensor", "executorch_call_delegate",
   * "getitem"); "placeholder" / "output" for the pseudo nodes. */
  const char *op;
  size_t graph;   /* index of the graph it belongs to */
  uint32_t depth; /* that graph's nesting depth (0 = top) */
  size_t parent;  /* the node owning that graph, or ETK_GRAPH_NONE */

  /* Debug handles from metadata "debug_handle" (an int, or a list of them
   * in newer files); none for pseudo nodes and ATen programs. */
  const int64_t *debug_handles;
  size_t debug_handle_count;

  /* Inputs: a call's NamedArguments in file order (positional, then
   * keyword ones, as serialised); an output node's graph outputs; none
   * for placeholders. */
  const etk_graph_arg_t *args;
  size_t arg_count;
  /* Outputs as serialised (a call's Arguments: one as_tensor, an
   * as_tensors list for multi-output ops whose getitems were folded in,
   * as_none, ...); a placeholder's graph input Argument. */
  const etk_graph_arg_t *outputs;
  size_t output_count;
  /* The values it produces, flattened in order; a value's output_index is
   * its position here (for `outputs` = [as_tensors [a, b]], a is 0, b 1:
   * getitem index = output_index). */
  const size_t *output_values;
  size_t output_value_count;

  /* Edges: producer nodes of the values its arguments name (unique, in
   * first-use order) and the nodes that use its values (unique, in node
   * order).  Producers are always earlier nodes. */
  const size_t *inputs;
  size_t input_count;
  const size_t *users;
  size_t user_count;

  /* Where it came from ("" when unknown): the innermost nn_module_stack
   * entry's dotted path ("layer1.0.conv") and the last component of its
   * class ("Conv2d"), and "file:line" of the innermost user frame of the
   * stack trace (the file's base name). */
  const char *module_path;
  const char *module_type;
  const char *source;

  size_t partition; /* the delegate partition it belongs to, or NONE */
  /* The ETRecord reader's node (metadata, raw stacks, decoded module
   * stack, source_fn_stack, from_node), NULL for pseudo nodes. */
  const etk_etrecord_node_t *record;
} etk_graph_node_t;

/* ============================================================= signature */

typedef enum etk_graph_input_kind {
  ETK_GRAPH_INPUT_UNKNOWN = 0,     /* the program has no signature for it */
  ETK_GRAPH_INPUT_USER,            /* user_input */
  ETK_GRAPH_INPUT_PARAMETER,       /* parameter: target = parameter_name */
  ETK_GRAPH_INPUT_BUFFER,          /* buffer: target = buffer_name */
  ETK_GRAPH_INPUT_TENSOR_CONSTANT, /* tensor_constant: target = name */
  ETK_GRAPH_INPUT_CUSTOM_OBJ,      /* custom_obj: target = custom_obj_name */
  ETK_GRAPH_INPUT_TOKEN,           /* token */
  ETK_GRAPH_INPUT_CONSTANT         /* constant_input: target = name, constant
                                      in `constant` */
} etk_graph_input_kind_t;

typedef enum etk_graph_output_kind {
  ETK_GRAPH_OUTPUT_UNKNOWN = 0,
  ETK_GRAPH_OUTPUT_USER,                   /* user_output */
  ETK_GRAPH_OUTPUT_LOSS,                   /* loss_output */
  ETK_GRAPH_OUTPUT_BUFFER_MUTATION,        /* target = buffer_name */
  ETK_GRAPH_OUTPUT_GRADIENT_TO_PARAMETER,  /* target = parameter_name */
  ETK_GRAPH_OUTPUT_GRADIENT_TO_USER_INPUT, /* target = user_input_name */
  ETK_GRAPH_OUTPUT_USER_INPUT_MUTATION,    /* target = user_input_name */
  ETK_GRAPH_OUTPUT_TOKEN,
  ETK_GRAPH_OUTPUT_PARAMETER_MUTATION /* target = parameter_name */
} etk_graph_output_kind_t;

/* Upstream's tags ("user_input", "buffer_mutation", ...; "unknown"). */
const char *etk_graph_input_kind_name(etk_graph_input_kind_t kind);
const char *etk_graph_output_kind_name(etk_graph_output_kind_t kind);

typedef struct etk_graph_input_spec {
  etk_graph_input_kind_t kind;
  size_t node;        /* its placeholder (ETK_GRAPH_NONE for a
                         constant_input without one) */
  size_t value;       /* the placeholder's value, or NONE */
  const char *name;   /* the argument's name as the signature writes it */
  const char *target; /* state-dict / constants key, or NULL (user) */
  bool persistent;    /* BUFFER: in the state dict (else in constants) */
  const etk_graph_arg_t *constant; /* CONSTANT: the value, else NULL */
  size_t user_index; /* USER: position among user inputs, else NONE */
} etk_graph_input_spec_t;

typedef struct etk_graph_output_spec {
  etk_graph_output_kind_t kind;
  size_t value;       /* the output value, or NONE (a constant output) */
  const char *name;   /* the argument's name as written, or "" */
  const char *target; /* mutated / gradient target, or NULL */
  const etk_graph_arg_t *arg; /* the Argument as written */
  size_t user_index;          /* USER: position among user outputs, else NONE */
} etk_graph_output_spec_t;

/* ================================================================= graphs */

typedef enum etk_graph_graph_kind {
  ETK_GRAPH_GRAPH_TOP = 0,      /* the program's graph (index 0) */
  ETK_GRAPH_GRAPH_CONTROL_FLOW, /* an as_graph argument (cond, map, ...) */
  ETK_GRAPH_GRAPH_LOWERED       /* a lowered module's original program */
} etk_graph_graph_kind_t;

typedef struct etk_graph_graph {
  etk_graph_graph_kind_t kind;
  const char *name; /* "" (top), the GraphArgument name ("true_graph_0"),
                       or the lowered module's argument name
                       ("lowered_module_0") */
  size_t owner;     /* the node whose argument it is, or NONE (top) */
  uint32_t depth;
  const char *backend; /* LOWERED: backend_id, else NULL */
  /* Nodes [first_node, end_node): its own and those of graphs nested in
   * it; placeholders first, its output node last. */
  size_t first_node, end_node;
  const size_t *placeholders; /* its input nodes, in order */
  size_t placeholder_count;
  size_t output_node;
  size_t call_count; /* its own call_function nodes */
  /* Signature (top graph and lowered programs; none for control flow):
   * one spec per graph input / output in order.  An older program
   * without a signature has input_spec_count 0. */
  const etk_graph_input_spec_t *input_specs;
  size_t input_spec_count;
  const etk_graph_output_spec_t *output_specs;
  size_t output_spec_count;
} etk_graph_graph_t;

/* ============================================================= partitions */

typedef struct etk_graph_partition {
  const char *backend;    /* backend id ("XnnpackBackend"); "" unnamed */
  const char *name;       /* "lowered_module_0", or "<backend>#<instr>"
                             for a partition known from the maps only */
  size_t call_node;       /* its executorch_call_delegate node, or NONE */
  size_t graph;           /* LOWERED graph holding its original nodes, or
                             NONE */
  int64_t instruction_id; /* DelegateCall instruction (delegate_map), or
                             -1 */
  const size_t *nodes;    /* its call_function nodes, in node order: the
                             nested graph's, or the top graph's whose
                             debug handles the maps give the delegate */
  size_t node_count;
  const int64_t *debug_handles; /* sorted, unique */
  size_t debug_handle_count;
} etk_graph_partition_t;

/* ================================================================ access */

/* What was loaded. */
typedef struct etk_graph_info {
  const char *member; /* archive member of the program */
  const char *method; /* the method the maps were read for */
  etk_etrecord_program_kind_t program_kind;
  const char *verifiers; /* "EDGE", "ATEN", ... or "" */
  size_t node_count, value_count, graph_count, partition_count;
  size_t call_count;        /* call_function nodes of all graphs */
  size_t top_call_count;    /* call_function nodes of graph 0 */
  size_t tensor_meta_count; /* values with a TensorMeta */
} etk_graph_info_t;

/* Fills *info.  Both pointers must not be NULL. */
void etk_graph_info_get(const etk_graph_t *g, etk_graph_info_t *info);

/* The arrays (never NULL for a loaded graph unless the count is 0). */
size_t etk_graph_node_count(const etk_graph_t *g);
const etk_graph_node_t *etk_graph_nodes(const etk_graph_t *g);
size_t etk_graph_value_count(const etk_graph_t *g);
const etk_graph_value_t *etk_graph_values(const etk_graph_t *g);
size_t etk_graph_graph_count(const etk_graph_t *g);
const etk_graph_graph_t *etk_graph_graphs(const etk_graph_t *g);
size_t etk_graph_partition_count(const etk_graph_t *g);
const etk_graph_partition_t *etk_graph_partitions(const etk_graph_t *g);

/* The record the graph was loaded from (borrowed). */
etk_etrecord_t *etk_graph_record(const etk_graph_t *g);

/* Index of the node named `name` in graph `graph` (0 = top), or
 * ETK_GRAPH_NONE.  Hashed: O(1).  NULL arguments give NONE. */
size_t etk_graph_find_node(const etk_graph_t *g, size_t graph,
                           const char *name);

/* Index of the value named `name` in graph `graph`, or ETK_GRAPH_NONE. */
size_t etk_graph_find_value(const etk_graph_t *g, size_t graph,
                            const char *name);

/* Call nodes (all graphs, node order) carrying debug handle `handle`,
 * through *nodes (owned by the graph); returns the count (0, *nodes NULL
 * when none).  `nodes` may be NULL to count. */
size_t etk_graph_nodes_for_handle(const etk_graph_t *g, int64_t handle,
                                  const size_t **nodes);

/* Writes a one-line rendering of an argument ("x", "[1, 2]", "None",
 * "float32", "cpu") into out (snprintf-style return value; out may be
 * NULL when out_size is 0).  `g` and `arg` must not be NULL. */
size_t etk_graph_arg_format(const etk_graph_t *g, const etk_graph_arg_t *arg,
                            char *out, size_t out_size);

/* Writes a value's shape as "[1, 3, 224, 224]" ("[s0, 3]" for symbolic
 * sizes, "[]" for a scalar, "" without meta), snprintf-style. */
size_t etk_graph_value_shape(const etk_graph_t *g, size_t value, char *out,
                             size_t out_size);

/* ======================================================== from a program
 *
 * A program (.pte) alone, without its ETRecord, as the same graph object
 * (src/graph/from_program.c): what Netron draws.  One call node per
 * KernelCall and DelegateCall instruction of the method's chains, in
 * instruction order; the method's inputs as placeholders ("input0", ...)
 * and its outputs as the output node ("output"); values are the
 * program's values as instructions write them: a value written again
 * (a re-used slot, a loop, a MoveCall's target) is a new graph value
 * ("v12", then "v12.1", ...), so the graph stays a DAG in instruction
 * order.  Call nodes:
 *   name    "#I" (instruction I of chain 0), "#C.I" in chain C > 0;
 *   op      the operator with '.' for "::" ("aten.convolution.out",
 *           "cortex_m.quantized_add.out"), or "executorch_call_delegate";
 *   target  the operator's full name ("aten::convolution.out"), or the
 *           delegate's backend id;
 *   args    every argument of the instruction in order, named "arg0",
 *           "arg1", ...: tensors and tensor lists name their values (an
 *           Int/Double/Bool that an earlier instruction or an input
 *           produced is a SYM_* argument naming its value), other
 *           scalars and lists are literals;
 *   outputs a KernelCall's out arguments (etk_program_call_outputs());
 *           a DelegateCall's trailing arguments that nothing has written
 *           yet (its inputs and constants come first, its outputs last);
 *   source  "file:line" of the instruction's innermost stack frame when
 *           the exporter recorded stack traces.
 * Constants (constant data, or in a .ptd file) are folded: no node, no
 * value; the argument naming one has value ETK_GRAPH_NONE and its name
 * ("v3").  A planned tensor read before anything wrote it, without
 * initial data, placed where a tensor of the same dtype and size was last
 * written, is that tensor (the emitter plans a removed view_copy's output
 * onto its input); other values read unwritten are value-less too.  Each
 * DelegateCall is a partition of its node (backend id, name
 * "<backend>#<instruction>", instruction_id).  No debug handles, modules,
 * weights or recordings (ETK_E_NOT_FOUND; a bundled program's expected
 * outputs are its reference outputs); an ETDump joins by instruction id
 * (etk_graph_figures_compute(), etkit/link.h).  docs/graph-view.md.
 *
 *     if (etk_program_load_file(path, NULL, &p, &err) != ETK_OK ||
 *         etk_graph_from_program(p, NULL, &g, &err) != ETK_OK) { ... }
 *     ... etk_graph_free(g); etk_program_free(p);
 */

/* MoveCall, FreeCall and JumpFalseCall instructions are nodes too (op
 * "move", "free", "jump_false"); by default a move is folded (its target
 * continues the source's value) and frees and jumps are left out. */
#define ETK_GRAPH_PROGRAM_ALL_INSTRUCTIONS 0x1u

struct etk_bundled_program;
typedef struct etk_graph_program_options {
  const char *method; /* NULL = "forward", else the first plan */
  unsigned flags;     /* ETK_GRAPH_PROGRAM_* */
  /* The bundled program `program` is the program of (borrowed, or NULL):
   * the expected outputs of its test cases for the method are the graph's
   * ETK_GRAPH_REFERENCE_OUTPUTS (case k = test case k; index -1 the
   * last), so the numerical error of the outputs needs no second run. */
  const struct etk_bundled_program *bundled;
} etk_graph_program_options_t;

/* Fills *opts with the defaults (NULL, 0).  `opts` must not be NULL. */
void etk_graph_program_options_default(etk_graph_program_options_t *opts);

/* Builds the instruction graph of one method of `program` (borrowed: it
 * must outlive the graph) into *out (free with etk_graph_free()).
 * Errors: ETK_E_INVALID_ARGUMENT (NULL program/out), ETK_E_NOT_FOUND (no
 * such method: the message lists the program's), ETK_E_LIMIT (more than
 * ETK_GRAPH_PROGRAM_MAX_NODES nodes or values), ETK_E_NO_MEMORY.  *out
 * is NULL on failure.  Cost: linear in instructions and arguments. */
#define ETK_GRAPH_PROGRAM_MAX_NODES 4000000u
struct etk_program;
int etk_graph_from_program(const struct etk_program *program,
                           const etk_graph_program_options_t *opts,
                           etk_graph_t **out, etk_error_t *err);

/* What a program's graph was built from, and its instruction <-> node
 * maps (owned by the graph). */
typedef struct etk_graph_program {
  const struct etk_program *program;
  const struct etk_program_plan *plan;       /* the method */
  const struct etk_bundled_program *bundled; /* or NULL */
  uint32_t chain_count;
  /* Instruction I of chain C is entry chain_first[C] + I of
   * instruction_node (chain_count + 1 entries, the last the total). */
  const size_t *chain_first;
  const size_t *instruction_node; /* its node, or ETK_GRAPH_NONE (folded) */
  /* Per graph node: its chain and instruction, -1 for the placeholders
   * and the output node. */
  const int32_t *node_chain;
  const int64_t *node_instruction;
} etk_graph_program_t;

/* The program a graph was built from, or NULL for an ETRecord's graph
 * (and for NULL). */
const etk_graph_program_t *etk_graph_program(const etk_graph_t *g);

/* The node of instruction `instruction` of chain `chain`, or
 * ETK_GRAPH_NONE (out of range, folded, an ETRecord's graph). */
size_t etk_graph_instruction_node(const etk_graph_t *g, int64_t chain,
                                  int64_t instruction);

/* ================================================= weights and recordings */

/* One decoded tensor (or a non-tensor leaf of a recorded list). */
typedef struct etk_graph_tensor {
  const etk_pickle_value_t *value; /* the decoded leaf (kind TENSOR for a
                                      tensor; INT, FLOAT, BOOL, NONE ...) */
  int32_t dtype; /* etk_scalar_type code (float32 = 6); -1 when not
                    a tensor */
  uint32_t dim;
  const int64_t *sizes; /* dim entries */
  uint64_t numel;
  size_t element_size;
  const void *data; /* numel * element_size C-contiguous bytes
                       (copied when the stored tensor was strided) */
  uint64_t nbytes;
} etk_graph_tensor_t;

/* Where recorded tensors come from. */
typedef enum etk_graph_recording {
  ETK_GRAPH_REPRESENTATIVE_INPUTS = 0, /* "representative_inputs" */
  ETK_GRAPH_EXAMPLE_INPUTS,            /* "<program>_example_inputs"
                                          (args, then kwargs values) */
  ETK_GRAPH_REFERENCE_OUTPUTS          /* "reference_outputs"[method] */
} etk_graph_recording_t;

/* The tensor of a state-dict or constants key ("conv.weight",
 * "_lifted_tensor_constant0"): "<program>_state_dict" first, then
 * "<program>_constants".  Decodes both members on first use (cached).
 * Errors: ETK_E_NOT_FOUND (no such key; no such member), ETK_E_FORMAT
 * (the key's value is not a tensor), the torch archive's errors naming
 * the member, ETK_E_NO_MEMORY.  `g`, `key`, `out` must not be NULL. */
int etk_graph_state_tensor(etk_graph_t *g, const char *key,
                           etk_graph_tensor_t *out, etk_error_t *err);

/* The weight behind a placeholder of the top graph (or of a lowered
 * graph: its own state dict is not in the ETRecord, ETK_E_NOT_FOUND):
 * its input spec's target for PARAMETER, BUFFER and TENSOR_CONSTANT
 * inputs.  ETK_E_INVALID_ARGUMENT when `node` is not such a placeholder;
 * otherwise as etk_graph_state_tensor(). */
int etk_graph_weight(etk_graph_t *g, size_t node, etk_graph_tensor_t *out,
                     etk_error_t *err);

/* The recorded tensors of one case, leaves flattened depth-first through
 * lists, tuples and dict values, through *items (owned by the graph, valid
 * until free) and *count.  Cases: REPRESENTATIVE_INPUTS is a list of
 * inputs (one case) or a list of lists/tuples (one case each);
 * EXAMPLE_INPUTS has one case (0); REFERENCE_OUTPUTS[method] has one per
 * test case, and `index` -1 picks the last like the Inspector does.
 * Errors: ETK_E_NOT_FOUND (no such member or case; the message says how
 * many there are, and for missing representative inputs how to add them),
 * ETK_E_UNSUPPORTED (a legacy raw pickle), the torch archive's errors. */
int etk_graph_recorded(etk_graph_t *g, etk_graph_recording_t which,
                       int64_t index, const etk_graph_tensor_t **items,
                       size_t *count, etk_error_t *err);

/* Number of cases of a recording (0 when absent or undecodable; decoding
 * errors are left for etk_graph_recorded()). */
size_t etk_graph_recorded_case_count(etk_graph_t *g,
                                     etk_graph_recording_t which);

/* The tensor a placeholder of the top graph starts with: its weight for
 * parameters, buffers and constants; for the k-th user input, item k of
 * case `index` of `which` (REPRESENTATIVE_INPUTS or EXAMPLE_INPUTS).
 * Errors as etk_graph_weight() and etk_graph_recorded(); ETK_E_NOT_FOUND
 * when the case has fewer items than user inputs. */
int etk_graph_placeholder_tensor(etk_graph_t *g, size_t node,
                                 etk_graph_recording_t which, int64_t index,
                                 etk_graph_tensor_t *out, etk_error_t *err);

/* ========================================================== Model Explorer */

typedef struct etk_graph_me_options {
  const char *label;    /* GraphCollection label (NULL = "etkit") */
  const char *graph_id; /* id of the top graph (NULL = "graph", the id
                           Model Explorer's PyTorch adapter gives) */
  /* true: the nodes of nested graphs (lowered modules, control flow) are
   * written as extra graphs with ids "<graph_id>/<graph name>", linked
   * from their owner with subgraphIds; false: only the top graph */
  bool nested_graphs;
  int indent; /* 0 = compact one-line JSON */
} etk_graph_me_options_t;

/* Fills *opts with the defaults (NULL strings, nested_graphs true, indent
 * 0).  `opts` must not be NULL. */
void etk_graph_me_options_default(etk_graph_me_options_t *opts);

/* Writes Model Explorer's graph JSON for `g` into a malloc'd buffer
 * *out / *out_len (NUL-terminated, free()).  Layout: {"label": L,
 * "graphs": [{"id": graph_id, "nodes": [...]}, ...]} (a GraphCollection).
 * The nodes are those Model Explorer's PyTorch adapter draws for the
 * deserialised program, with the same ids: one per FX node, "id" = its
 * name (placeholders by their input name, "output" for the output node),
 * plus one "getitem" node per element of a multi-output node's
 * as_tensors output, with the value's name as id (the getitem node FX
 * makes when it deserialises).  Fields:
 *   "label"      the op without overload ("aten.convolution"), the
 *                placeholder's name, "output", "getitem";
 *   "namespace"  "inputs" for placeholders; else the nn_module_stack
 *                entries joined with '/', each "<class>_<last path
 *                component>" (the adapter's rule), under
 *                "<backend>_<k>/" for nodes of delegate partition k;
 *   "attrs"      the arguments by schema name (their one-line text),
 *                then target, op, debug_handle, module, source, and
 *                the input spec's kind and target for placeholders;
 *   "incomingEdges"  per distinct producer in first-use order:
 *                sourceNodeId, sourceNodeOutputId (the adapter's rule:
 *                this node's position among the producer's users),
 *                targetNodeInputId (the producer's position);
 *   "outputsMetadata" per output value: id = its output index, attrs
 *                "tensor_shape" ("torch.float32[1, 3]", the adapter's
 *                text) and "tensor_name" (the value's name).
 * Errors: ETK_E_INVALID_ARGUMENT, ETK_E_NO_MEMORY. */
int etk_graph_model_explorer_json(const etk_graph_t *g,
                                  const etk_graph_me_options_t *opts,
                                  char **out, size_t *out_len,
                                  etk_error_t *err);

/* Same, written to `path` atomically (a temporary name, then renamed);
 * ETK_E_IO naming the path. */
int etk_graph_write_model_explorer(const etk_graph_t *g,
                                   const etk_graph_me_options_t *opts,
                                   const char *path, etk_error_t *err);

/* One colour stop of a node-data gradient (GradientItem). */
typedef struct etk_graph_me_stop {
  double stop;          /* 0..1 */
  const char *bg_color; /* "#aabb00" or a colour name */
} etk_graph_me_stop_t;

/* Per-node values for Model Explorer's node data: values[i] belongs to
 * node i of the graph; nodes with has_value[i] false (no event reached
 * them) are left out of "results", never written as 0. */
typedef struct etk_graph_node_data {
  const double *values;  /* node_count entries */
  const bool *has_value; /* node_count entries; NULL = all present unless
                            the value is NaN */
  size_t node_count;     /* must equal etk_graph_node_count() */
  const etk_graph_me_stop_t *gradient; /* NULL = a default white-to-red */
  size_t gradient_count;
  const char *graph_id; /* NULL = as etk_graph_me_options_t's default */
  /* The values' unit ("µs", "KiB", "dB", "%"), written as the graph
   * entry's "unit" (etkit's addition; Model Explorer ignores it); NULL =
   * none written. */
  const char *unit;
} etk_graph_node_data_t;

/* Writes Model Explorer's node-data JSON: {graph_id: {"results":
 * {node_id: {"value": x}}, "gradient": [{"stop": s, "bgColor": c}...],
 * "unit": u}}
 * (a ModelNodeData's graphsData), node ids as in the graph JSON.
 * Non-finite values are left out (JSON has no NaN).  Into a malloc'd
 * buffer (free()).  ETK_E_INVALID_ARGUMENT when node_count differs from
 * the graph's. */
int etk_graph_node_data_json(const etk_graph_t *g,
                             const etk_graph_node_data_t *data, int indent,
                             char **out, size_t *out_len, etk_error_t *err);

/* Same, written to `path` atomically; ETK_E_IO naming the path. */
int etk_graph_write_node_data(const etk_graph_t *g,
                              const etk_graph_node_data_t *data,
                              const char *path, etk_error_t *err);

/* ============================================================ delegation */

/* Upstream's delegation summary (devtools/backend_debug/delegation_info.py,
 * get_delegation_info): per op type (node name without "_<digits>") its
 * occurrences inside lowered modules (delegated) and in the top graph
 * (non_delegated), the number of lowered modules, and, beyond upstream,
 * per backend its subgraphs and delegated nodes. */
typedef struct etk_graph_delegation_op {
  const char *op_type;
  size_t delegated, non_delegated;
} etk_graph_delegation_op_t;

typedef struct etk_graph_delegation_backend {
  const char *backend; /* backend id ("" unnamed); the graph's string */
  size_t subgraphs, delegated_nodes;
} etk_graph_delegation_backend_t;

typedef struct etk_graph_delegation {
  size_t num_delegated_subgraphs;
  size_t num_delegated_nodes, num_non_delegated_nodes;
  etk_graph_delegation_op_t *ops; /* sorted by op_type */
  size_t op_count;
  etk_graph_delegation_backend_t *backends; /* first-seen order */
  size_t backend_count;
} etk_graph_delegation_t;

/* Fills *out (free with etk_graph_delegation_free; the graph must outlive
 * it).  ETK_E_NO_MEMORY is the only error. */
int etk_graph_delegation_build(const etk_graph_t *g,
                               etk_graph_delegation_t *out, etk_error_t *err);
void etk_graph_delegation_free(etk_graph_delegation_t *d);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_GRAPH_H */
