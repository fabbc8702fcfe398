/*
 * internal.h - the private layout of etk_graph_t, shared by the graph
 * library's files.
 *
 * A graph owns one arena holding every array and string it hands out
 * (nodes, values, arguments, edges, partitions), two name tables, the
 * handle index, and the torch.save archives it decoded on demand.  The
 * ETRecord program it was built from belongs to the record, which the
 * graph borrows; strings of the record are handed out as they are.
 */
#ifndef ETKIT_GRAPH_INTERNAL_H
#define ETKIT_GRAPH_INTERNAL_H

#include "common/buffers.h"
#include "common/hash.h"
#include "common/vec.h"
#include "etkit/graph.h"
#include "names.h"

/* One decoded recording case, cached. */
typedef struct graph_recording {
  etk_graph_recording_t which;
  int64_t index;
  etk_graph_tensor_t *items;
  size_t count;
  struct graph_recording *next;
} graph_recording_t;

struct etk_graph {
  etk_etrecord_t *rec;
  const etk_etrecord_program_t *prog;
  const char *method;
  etk_arena_t arena;

  etk_graph_node_t *nodes;
  size_t node_count;
  etk_graph_value_t *values;
  size_t value_count;
  etk_graph_graph_t *graphs;
  size_t graph_count;
  etk_graph_partition_t *partitions;
  size_t partition_count;

  /* (graph index, name) -> node / value: keys are the graph index's bytes
   * followed by the name; ids map through the arrays below. */
  etk_hash_t node_names, value_names;
  size_t *node_of_id, *value_of_id;
  size_t node_of_id_cap, value_of_id_cap;

  /* call nodes sorted by (debug handle, node) */
  int64_t *handle_keys;
  size_t *handle_nodes;
  size_t handle_count;

  /* decoded on demand */
  etk_torch_archive_t *state_dict, *constants, *example_inputs;
  etk_torch_archive_t *representative_inputs, *reference_outputs;
  bool state_tried, constants_tried;
  graph_recording_t *recordings;

  /* A program's graph (from_program.c; rec and prog are then NULL), in the
   * arena; NULL for an ETRecord's. */
  etk_graph_program_t *program;
};

/* A program's graph's recordings: its bundled program's expected outputs
 * (from_program.c); ETK_E_NOT_FOUND for the rest. */
int graph_program_recorded(etk_graph_t *g, etk_graph_recording_t which,
                           int64_t index, const etk_graph_tensor_t **items,
                           size_t *count, etk_error_t *err);
size_t graph_program_case_count(const etk_graph_t *g,
                                etk_graph_recording_t which);

/* Builds nodes, values, graphs and edges (build.c). */
int graph_build(etk_graph_t *g, unsigned flags, etk_error_t *err);

/* Assigns partitions and builds the handle index (partitions.c). */
int graph_partitions(etk_graph_t *g, etk_error_t *err);

/* Frees the decoded archives and recordings (weights.c). */
void graph_weights_free(etk_graph_t *g);

/* Does torch's deserialisation give this node one getitem node per
 * produced value (several outputs, or one list output)?  (delegation.c;
 * Model Explorer's ids and the delegation summary count them.) */
bool graph_node_has_getitems(const etk_graph_node_t *n);

#endif /* ETKIT_GRAPH_INTERNAL_H */
