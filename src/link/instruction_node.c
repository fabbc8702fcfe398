/*
 * instruction_node.c - which graph node ran an instruction: the method's
 * debug_handle_map gives the instruction's debug handles (instruction ids
 * count chain 0's instructions, as the runtime's events do), the edge
 * program gives the nodes with those handles.  The first node of the top
 * graph wins; a nested node (inside a control-flow branch or a lowered
 * module) only when the top graph has none.
 */
#include "etkit/link.h"

int etk_etrecord_instruction_node(etk_etrecord_t *rec, const char *method,
                                  int64_t instruction,
                                  const etk_etrecord_node_t **node,
                                  etk_error_t *err) {
  if (!rec || !node)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *node = NULL;
  const etk_etrecord_method_maps_t *maps = etk_etrecord_maps_find(rec, method);
  if (!maps)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "the ETRecord has no debug handle map for method "
                         "'%s'",
                         method ? method : "forward");
  const etk_etrecord_program_t *prog = NULL;
  int rc = etk_etrecord_edge_program_load(rec, method, &prog, err);
  if (rc != ETK_OK) return rc;
  const etk_etrecord_handle_entry_t *h =
      etk_etrecord_maps_handles(maps, instruction);
  for (size_t i = 0; h && i < h->handle_count && !*node; i++) {
    const etk_etrecord_node_t *const *nodes = NULL;
    size_t n =
        etk_etrecord_program_nodes_for_handle(prog, h->handles[i], &nodes);
    for (size_t k = 0; k < n && !*node; k++)
      if (nodes[k]->depth == 0) *node = nodes[k];
    if (!*node && n) *node = nodes[0];
  }
  return ETK_OK;
}
