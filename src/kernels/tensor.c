/*
 * tensor.c - scalar type facts and the small tensor helpers of runtime.h.
 *
 * A tensor is dense: its elements fill numel * element-size bytes at `data`
 * and the only freedom in layout is the order of its dims in memory,
 * `dim_order` (outermost first).  Strides are therefore never independent
 * state; etk_tensor_update_strides derives them from sizes and dim_order and
 * kernels derive their own copy the same way, so the two cannot disagree.
 *
 * Resizing follows ExecuTorch: a static tensor accepts only its own shape
 * (the program planned its memory for exactly that), a dynamic one accepts
 * any shape whose bytes fit the memory it was given.  When the rank changes
 * the old dim_order no longer means anything, so it becomes the identity.
 */
#include <stdbool.h>
#include <string.h>

#include "etkit/kernels.h"

int64_t etk_tensor_numel(const etk_tensor_t *t) {
  uint64_t n = 1;
  bool saturated = false;
  if (!t) return 0;
  /* Sizes come from files; saturate instead of overflowing so a hostile
   * shape yields an absurd count that later capacity checks reject. */
  for (int32_t d = 0; d < t->dim && d < ETK_MAX_DIMS; d++) {
    uint64_t s = t->sizes[d] > 0 ? (uint64_t)t->sizes[d] : 0;
    if (s == 0) return 0;
    if (n > (uint64_t)INT64_MAX / s)
      saturated = true;
    else
      n *= s;
  }
  return saturated ? INT64_MAX : (int64_t)n;
}

int etk_tensor_is_contiguous(const etk_tensor_t *t) {
  if (!t) return 0;
  for (int32_t d = 0; d < t->dim && d < ETK_MAX_DIMS; d++)
    if (t->dim_order[d] != d) return 0;
  return 1;
}

int etk_tensor_validate(const etk_tensor_t *t) {
  uint32_t seen = 0;
  if (!t || t->dim < 0 || t->dim > ETK_MAX_DIMS) return ETK_E_INVALID_ARGUMENT;
  for (int32_t d = 0; d < t->dim; d++) {
    unsigned o = t->dim_order[d];
    if (t->sizes[d] < 0 || o >= (unsigned)t->dim || (seen & (1u << o)))
      return ETK_E_INVALID_ARGUMENT;
    seen |= 1u << o;
  }
  return ETK_OK;
}

void etk_tensor_update_strides(etk_tensor_t *t) {
  int64_t stride = 1;
  if (!t) return;
  /* An invalid dim_order would make the walk below write outside strides[];
   * fall back to the identity so the tensor stays usable and bounded. */
  if (etk_tensor_validate(t) != ETK_OK && t->dim >= 0 &&
      t->dim <= ETK_MAX_DIMS) {
    for (int32_t d = 0; d < t->dim; d++) t->dim_order[d] = (uint8_t)d;
  }
  if (t->dim < 0 || t->dim > ETK_MAX_DIMS) return;
  for (int32_t i = t->dim - 1; i >= 0; i--) {
    int32_t d = t->dim_order[i];
    t->strides[d] = stride;
    stride *= t->sizes[d] > 0 ? t->sizes[d] : 1;
  }
  t->nbytes =
      (size_t)etk_tensor_numel(t) * etk_scalar_type_size(t->scalar_type);
}

int etk_tensor_resize(etk_tensor_t *t, int32_t dim, const int32_t *sizes) {
  if (!t || dim < 0 || dim > ETK_MAX_DIMS || (dim > 0 && !sizes))
    return ETK_E_INVALID_ARGUMENT;
  for (int32_t d = 0; d < dim; d++)
    if (sizes[d] < 0) return ETK_E_INVALID_ARGUMENT;
  if (dim == t->dim &&
      (dim == 0 || memcmp(sizes, t->sizes, (size_t)dim * sizeof *sizes) == 0))
    return ETK_OK;
  if (t->shape_dynamism == 0) return ETK_E_INVALID_ARGUMENT;
  {
    uint64_t numel = 1;
    size_t elem = etk_scalar_type_size(t->scalar_type);
    bool empty = false;
    for (int32_t d = 0; d < dim; d++) empty |= sizes[d] == 0;
    for (int32_t d = 0; d < dim && !empty; d++) {
      /* bounded well below overflow: no capacity is anywhere near 2^59 */
      if (numel > ((uint64_t)1 << 59) / (uint64_t)sizes[d])
        return ETK_E_INVALID_ARGUMENT;
      numel *= (uint64_t)sizes[d];
    }
    if (empty) numel = 0;
    if (numel * elem > t->capacity_bytes) return ETK_E_INVALID_ARGUMENT;
  }
  if (dim != t->dim)
    for (int32_t d = 0; d < dim; d++) t->dim_order[d] = (uint8_t)d;
  t->dim = dim;
  for (int32_t d = 0; d < dim; d++) t->sizes[d] = sizes[d];
  etk_tensor_update_strides(t);
  return ETK_OK;
}
