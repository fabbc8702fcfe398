/*
 * checked.h - overflow-checked integer arithmetic and alignment tests.
 *
 * Every size, count, offset or index that etkit derives from a value read
 * out of a file (tensor sizes, planned offsets, convolution padding and
 * dilation, pooling windows, view sizes, archive member sizes) is computed
 * with these helpers, so an adversarial file can make a computation fail but
 * never wrap around or hit C's undefined signed overflow.
 *
 * Convention: each helper stores the exact result in *out and returns ETK_OK,
 * or leaves *out untouched and returns ETK_E_OVERFLOW when the exact result
 * does not fit the type.  Callers test `!= ETK_OK` and report the overflow
 * in their own words (naming the file, value or argument).
 *
 * GCC and Clang compile each helper to one instruction and a branch
 * (__builtin_*_overflow); other compilers use portable range tests.
 */
#ifndef ETKIT_CHECKED_H
#define ETKIT_CHECKED_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/status.h"

#if defined(__GNUC__) || defined(__clang__)
#define ETK_CHECKED_BUILTINS 1
#else
#define ETK_CHECKED_BUILTINS 0
#endif

/* etk_checked_add_u64 / etk_checked_mul_u64: a + b and a * b as uint64_t;
 * etk_checked_add_size / etk_checked_mul_size: the same as size_t.  The
 * unsigned tests are the same for every width but for the type's maximum,
 * so one definition serves both types. */
#define ETK_CHECKED_UNSIGNED(SUFFIX, TYPE, MAX)                           \
  static inline int etk_checked_add_##SUFFIX(TYPE a, TYPE b, TYPE *out) { \
    if (a > MAX - b) return ETK_E_OVERFLOW;                               \
    *out = a + b;                                                         \
    return ETK_OK;                                                        \
  }                                                                       \
  static inline int etk_checked_mul_##SUFFIX(TYPE a, TYPE b, TYPE *out) { \
    if (a != 0 && b > MAX / a) return ETK_E_OVERFLOW;                     \
    *out = a * b;                                                         \
    return ETK_OK;                                                        \
  }
ETK_CHECKED_UNSIGNED(u64, uint64_t, UINT64_MAX)
ETK_CHECKED_UNSIGNED(size, size_t, SIZE_MAX)
#undef ETK_CHECKED_UNSIGNED

/* etk_checked_add_i64, etk_checked_sub_i64, etk_checked_mul_i64: a + b,
 * a - b and a * b as int64_t.  ETK_CHECKED_I64_WRAPS(OP, a, b, &r) is
 * nonzero when the exact result does not fit, else it stores it in r: the
 * compiler's builtin where there is one, else the portable range tests
 * below (which never evaluate an overflowing expression). */
#if ETK_CHECKED_BUILTINS
#define ETK_CHECKED_I64_WRAPS(OP, a, b, r) __builtin_##OP##_overflow(a, b, r)
#else
static inline int etk_checked_add_wraps_i64(int64_t a, int64_t b, int64_t *r) {
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 1;
  *r = a + b;
  return 0;
}
static inline int etk_checked_sub_wraps_i64(int64_t a, int64_t b, int64_t *r) {
  if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return 1;
  *r = a - b;
  return 0;
}
static inline int etk_checked_mul_wraps_i64(int64_t a, int64_t b, int64_t *r) {
  if (a != 0 && b != 0) {
    if (a == -1 && b == INT64_MIN) return 1;
    if (b == -1 && a == INT64_MIN) return 1;
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
      return 1;
  }
  *r = a * b;
  return 0;
}
#define ETK_CHECKED_I64_WRAPS(OP, a, b, r) etk_checked_##OP##_wraps_i64(a, b, r)
#endif

#define ETK_CHECKED_SIGNED(OP)                                      \
  static inline int etk_checked_##OP##_i64(int64_t a, int64_t b,    \
                                           int64_t *out) {          \
    int64_t r;                                                      \
    if (ETK_CHECKED_I64_WRAPS(OP, a, b, &r)) return ETK_E_OVERFLOW; \
    *out = r;                                                       \
    return ETK_OK;                                                  \
  }
ETK_CHECKED_SIGNED(add)
ETK_CHECKED_SIGNED(sub)
ETK_CHECKED_SIGNED(mul)
#undef ETK_CHECKED_SIGNED
#undef ETK_CHECKED_I64_WRAPS

/* The product of sizes[0..dim) (each >= 0) as int64_t: the element count of
 * a shape.  ETK_E_OVERFLOW also for a negative size. */
static inline int etk_checked_numel_i64(const int64_t *sizes, size_t dim,
                                        int64_t *out) {
  int64_t n = 1;
  for (size_t i = 0; i < dim; i++)
    if (sizes[i] < 0 || etk_checked_mul_i64(n, sizes[i], &n) != ETK_OK)
      return ETK_E_OVERFLOW;
  *out = n;
  return ETK_OK;
}

/* Nonzero when `size` bytes inflated from `compressed` bytes exceed
 * max(floor, ratio x compressed) (ratio 0: never): the zip-bomb test the
 * archive readers apply to a member's declared sizes before inflating. */
static inline int etk_expansion_exceeds(uint64_t size, uint64_t compressed,
                                        uint32_t ratio, uint64_t floor) {
  uint64_t allowed;
  if (ratio == 0) return 0;
  if (etk_checked_mul_u64(compressed, ratio, &allowed) != ETK_OK) return 0;
  if (allowed < floor) allowed = floor;
  return size > allowed;
}

/* Nonzero when `offset` bytes past an `align`-aligned base is still aligned
 * (align a power of two, or 0/1 for "no requirement"). */
static inline int etk_offset_aligned(uint64_t offset, size_t align) {
  return align <= 1 || (offset & (uint64_t)(align - 1)) == 0;
}

/* Nonzero when the address p is a multiple of align (a power of two). */
static inline int etk_pointer_aligned(const void *p, size_t align) {
  return align <= 1 || ((uintptr_t)p & (uintptr_t)(align - 1)) == 0;
}

#endif
