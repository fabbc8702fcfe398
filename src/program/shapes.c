/*
 * shapes.c - what the program readers and writers share besides the arena
 * (common/buffers.h): 64-byte aligned copies of files, and checked shape
 * arithmetic (element counts and byte sizes that refuse to overflow, dim
 * orders that must be permutations).
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/checked.h"
#include "program_internal.h"

#if !(defined(ETK_NO_HEAP) && ETK_NO_HEAP)
void *etk_aligned_malloc(size_t n) {
  /* 64-byte alignment also suits cache lines and the 32-byte .bpte rule. */
  size_t rounded = (n + 63) & ~(size_t)63;
  if (rounded < n) return NULL;
  if (rounded == 0) rounded = 64;
  return aligned_alloc(64, rounded);
}

void etk_aligned_free(void *p) {
  free(p);
}
#endif

int etk_shape_numel(const int32_t *sizes, uint32_t dim, uint64_t *numel) {
  uint64_t n = 1;
  for (uint32_t i = 0; i < dim; i++) {
    if (sizes[i] < 0) return ETK_E_FORMAT;
    if (etk_checked_mul_u64(n, (uint64_t)sizes[i], &n) != ETK_OK)
      return ETK_E_OVERFLOW;
  }
  *numel = n;
  return ETK_OK;
}

int etk_shape_nbytes(const int32_t *sizes, uint32_t dim, size_t elem,
                     uint64_t *nbytes) {
  uint64_t n;
  int rc = etk_shape_numel(sizes, dim, &n);
  if (rc != ETK_OK) return rc;
  return etk_checked_mul_u64(n, elem, nbytes);
}

int etk_dim_order_valid(const uint8_t *order, uint32_t dim) {
  uint32_t seen = 0;
  if (dim > 32) return 0;
  for (uint32_t i = 0; i < dim; i++) {
    if (order[i] >= dim || (seen >> order[i]) & 1u) return 0;
    seen |= 1u << order[i];
  }
  return 1;
}
