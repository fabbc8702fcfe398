/*
 * value.c - reading boxed int lists out of a method's value table.
 *
 * Programs store IntList items as indices of Int values rather than the
 * integers themselves, so that symbolic sizes computed at run time (by prim
 * ops writing those Int values) flow into later kernels.  Reading a list
 * therefore means chasing each index through the value table, and every
 * index is checked: the list comes from a file and may point anywhere.
 */
#include "etkit/kernels.h"

int etk_value_int_list(const etk_kernel_context_t *ctx, const etk_value_t *v,
                       int64_t *out, size_t max) {
  if (!ctx || !v || v->tag != ETK_VALUE_INT_LIST) return -1;
  if (v->u.int_list.count > max || v->u.int_list.count > (size_t)INT32_MAX)
    return -1;
  if (v->u.int_list.count > 0 && (!v->u.int_list.items || !out || !ctx->values))
    return -1;
  for (size_t k = 0; k < v->u.int_list.count; k++) {
    int64_t idx = v->u.int_list.items[k];
    if (idx < 0 || (uint64_t)idx >= ctx->value_count) return -1;
    if (ctx->values[idx].tag != ETK_VALUE_INT) return -1;
    out[k] = ctx->values[idx].u.i;
  }
  return (int)v->u.int_list.count;
}
