/*
 * memory_plan_names.c - names a memory plan's tensors after the ETRecord
 * graph node that ran their first instruction (`etkit memory --etrecord`
 * and etkit.memory_plan(..., etrecord=) share it).
 *
 * Only tensors defined by an instruction of chain 0 are named: ETRecord
 * instruction ids count chain 0 (as the runtime's events do), so a first
 * instruction of a later chain, a method input or an unreferenced tensor
 * keeps its value name.  A record that lacks the method's debug handle map
 * or edge program is a note, not an error: the plan stays as it is.
 */
#include "etkit/link.h"
#include "etkit/memory_plan.h"

/* 1 when tensor `t` of `plan` can be named from the ETRecord. */
static int nameable(const etk_memory_plan_t *plan,
                    const etk_memory_plan_tensor_t *t) {
  return t->first >= 0 && !t->is_input && plan->chain_count > 0 &&
         (uint64_t)t->first < plan->chain_starts[1];
}

int etk_memory_plan_name_from_etrecord(etk_memory_plan_t *plan,
                                       etk_etrecord_t *rec, etk_note_fn note,
                                       void *note_ctx, etk_error_t *err) {
  if (!plan || !rec)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  for (size_t k = 0; k < plan->tensor_count; k++) {
    const etk_memory_plan_tensor_t *t = &plan->tensors[k];
    if (!nameable(plan, t)) continue;
    const etk_etrecord_node_t *node = NULL;
    etk_error_t local;
    etk_error_clear(&local);
    int rc = etk_etrecord_instruction_node(rec, plan->method, t->first, &node,
                                           &local);
    if (rc == ETK_E_NOT_FOUND) {
      if (note) note(note_ctx, 0, local.message);
      return ETK_OK;
    }
    if (rc != ETK_OK)
      return etk_error_set(err, rc, local.offset, "%s", local.message);
    if (!node) continue;
    char module[512], location[512];
    etk_etrecord_node_module_path(node, false, module, sizeof module);
    etk_etrecord_node_source(node, false, location, sizeof location);
    rc = etk_memory_plan_set_names(plan, k, node->name, module,
                                   node->stack_trace, location, err);
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}
