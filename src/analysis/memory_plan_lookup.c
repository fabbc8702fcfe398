/*
 * memory_plan_lookup.c - finding a planned tensor by its EValue index
 * (etk_memory_plan_find in etkit/memory_plan.h).
 *
 * The plan's tensors are sorted by value index, so a lookup is a binary
 * search.  Kept in its own file because the plan builder, the overlap
 * sweep and the renderers all use it and none of them should depend on
 * another for it.
 */
#include "etkit/memory_plan.h"

int64_t etk_memory_plan_find(const etk_memory_plan_t *plan, uint32_t value) {
  if (!plan) return -1;
  size_t lo;
  ETK_LOWER_BOUND(lo, plan->tensors, plan->tensor_count, value, value);
  if (lo < plan->tensor_count && plan->tensors[lo].value == value)
    return (int64_t)lo;
  return -1;
}
