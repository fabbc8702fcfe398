/*
 * registry.c - the table of built-in portable kernels and the lookup the
 * executor uses to bind a program's operators to them.
 *
 * The table is generated from kernel_list.h at compile time, already sorted
 * by name, so lookup is a binary search with strcmp and the table is const
 * data (no registration step, no heap, safe to use from any thread).
 * Names are "namespace::op.overload" exactly as a program spells its
 * Operator entries joined with ".", e.g. "aten::add.out".
 */
#include <string.h>

#include "kernel_list.h"

static const etk_kernel_entry_t kernel_table[] = {
#define ETK_KERNEL_ENTRY_(ident, name) \
  {name, etk_kernel_##ident, etk_kernel_check_##ident},
    ETK_KERNEL_LIST(ETK_KERNEL_ENTRY_)
#undef ETK_KERNEL_ENTRY_
};

#define KERNEL_COUNT (sizeof kernel_table / sizeof kernel_table[0])

const etk_kernel_entry_t *etk_kernels_builtin(size_t *count) {
  if (count) *count = KERNEL_COUNT;
  return kernel_table;
}

const etk_kernel_entry_t *etk_kernel_find(const char *name) {
  size_t lo = 0, hi = KERNEL_COUNT;
  if (!name) return NULL;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(name, kernel_table[mid].name);
    if (c == 0) return &kernel_table[mid];
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}
