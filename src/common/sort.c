/*
 * sort.c - etk_sort_r, the host libraries' one sort with a context pointer
 * (common/vec.h).
 *
 * Why: the comparators of the inspector's tables and trees depend on
 * options of the call (sort key, direction, the array the items point
 * into).  With qsort() those options had to live in file-level statics,
 * so two renderings in two threads (the Python package releases the GIL
 * while it renders) could see each other's options.  Here the options
 * travel in `ctx`, and nothing outside the call's own memory is written.
 *
 * Algorithm: a top-down merge sort (stable) over `n` elements of `size`
 * bytes, with insertion sort below 12 elements.  It needs one scratch
 * array of n elements (malloc'd per call, freed before returning); the
 * merge alternates between the two arrays so that each level copies every
 * element once.  Invariant of merge_pass(): on return dst[0..n) holds the
 * elements of src[0..n) in order; src may be overwritten.
 */
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"

typedef struct sorter {
  size_t size;
  int (*cmp)(const void *, const void *, void *);
  void *ctx;
  unsigned char *tmp; /* one element, for insertion sort */
} sorter_t;

#define AT(base, i, size) ((unsigned char *)(base) + (i) * (size))

static void insertion(const sorter_t *s, unsigned char *a, size_t n) {
  for (size_t i = 1; i < n; i++) {
    size_t j = i;
    if (s->cmp(AT(a, j - 1, s->size), AT(a, j, s->size), s->ctx) <= 0) continue;
    memcpy(s->tmp, AT(a, i, s->size), s->size);
    while (j > 0 && s->cmp(AT(a, j - 1, s->size), s->tmp, s->ctx) > 0) {
      memcpy(AT(a, j, s->size), AT(a, j - 1, s->size), s->size);
      j--;
    }
    memcpy(AT(a, j, s->size), s->tmp, s->size);
  }
}

/* Sorts src[0..n) into dst[0..n) (src and dst hold the same elements on
 * entry, so either may serve as the other's scratch). */
static void merge_pass(const sorter_t *s, unsigned char *src,
                       unsigned char *dst, size_t n) {
  if (n < 12) {
    insertion(s, dst, n);
    return;
  }
  size_t half = n / 2, sz = s->size;
  /* sort each half into src, using dst as scratch */
  merge_pass(s, dst, src, half);
  merge_pass(s, AT(dst, half, sz), AT(src, half, sz), n - half);
  size_t i = 0, j = half, k = 0;
  while (i < half && j < n) {
    /* <= keeps equal elements in their order (stable) */
    if (s->cmp(AT(src, i, sz), AT(src, j, sz), s->ctx) <= 0)
      memcpy(AT(dst, k++, sz), AT(src, i++, sz), sz);
    else
      memcpy(AT(dst, k++, sz), AT(src, j++, sz), sz);
  }
  if (i < half) memcpy(AT(dst, k, sz), AT(src, i, sz), (half - i) * sz);
  if (j < n) memcpy(AT(dst, k, sz), AT(src, j, sz), (n - j) * sz);
}

bool etk_sort_r(void *base, size_t n, size_t size,
                int (*cmp)(const void *, const void *, void *), void *ctx) {
  if (n < 2 || size == 0) return true;
  if (n > ETK_VEC_MAX_BYTES / size - 1) return false;
  unsigned char *scratch = malloc(n * size + size);
  if (!scratch) return false;
  sorter_t s = {size, cmp, ctx, scratch + n * size};
  memcpy(scratch, base, n * size);
  merge_pass(&s, scratch, base, n);
  free(scratch);
  return true;
}
