/*
 * common/vec.h - the host libraries' one growable array (src/common/vec.c)
 * and their one sort with a context pointer (src/common/sort.c).
 * Private to etkit's libraries: not installed.
 *
 * Two ways to use it:
 *
 *   - On fields a struct already has (a pointer and a capacity):
 *
 *         if (!ETK_VEC_RESERVE(a->nodes, a->node_cap, a->node_count + 1))
 *           return no_memory();
 *         a->nodes[a->node_count++] = n;
 *
 *   - As its own struct, for new code:
 *
 *         ETK_VEC(const char *) names = {0};
 *         if (!ETK_VEC_PUSH(names, "x")) ...;
 *         ETK_VEC_FREE(names);
 *
 * Growth doubles the capacity (at least ETK_VEC_MIN_CAP, at least the
 * count asked for), so n pushes cost O(n) copies.  Every size is checked:
 * a capacity whose byte size would pass ETK_VEC_MAX_BYTES fails without
 * calling the allocator.  On any failure the array and its capacity are
 * left as they were, so the caller still owns (and frees) the old items.
 *
 * The macros evaluate their arguments more than once: pass plain lvalues
 * and side-effect-free counts.
 */
#ifndef ETKIT_COMMON_VEC_H
#define ETKIT_COMMON_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The smallest capacity a growth gives (elements). */
#define ETK_VEC_MIN_CAP ((size_t)8)
/* The largest array, in bytes, the vector ever asks for (half the address
 * space: byte counts then fit in ptrdiff_t). */
#define ETK_VEC_MAX_BYTES ((size_t)PTRDIFF_MAX)

/* The capacity (elements) a growth from `cap` to hold `need` elements of
 * `elem_size` bytes would give, or 0 when it would pass ETK_VEC_MAX_BYTES
 * (or elem_size is 0).  When need <= cap it returns cap. */
size_t etk_vec_next_cap(size_t cap, size_t need, size_t elem_size);

/* `items` (an array of *cap elements of elem_size bytes, or NULL when *cap
 * is 0) made room for at least `need` elements.  Returns the possibly moved
 * array and updates *cap; on overflow or out of memory returns `items`
 * unchanged and leaves *cap < need.  Use ETK_VEC_RESERVE rather than this. */
void *etk_vec_grow(void *items, size_t *cap, size_t need, size_t elem_size);

/* Makes room for `need` elements in the array `items` of capacity `cap`
 * (both lvalues, updated in place).  True on success, false on overflow or
 * out of memory (then `items` and `cap` are unchanged). */
#define ETK_VEC_RESERVE(items, cap, need)                            \
  ((items) = etk_vec_grow((items), &(cap), (need), sizeof *(items)), \
   (cap) >= (need))

/* A vector of T: `items[0..count)` in use, room for `cap`.  Zero-initialise
 * it ({0}). */
#define ETK_VEC(T)     \
  struct {             \
    T *items;          \
    size_t count, cap; \
  }

/* Appends x to an ETK_VEC; true on success, false (nothing changed) on
 * overflow or out of memory. */
#define ETK_VEC_PUSH(v, x)                            \
  (ETK_VEC_RESERVE((v).items, (v).cap, (v).count + 1) \
       ? ((v).items[(v).count++] = (x), true)         \
       : false)

/* Sorts base[0..n) (elements of `size` bytes) in place by cmp(a, b, ctx)
 * (negative, zero, positive as for qsort), stable.  Unlike qsort() the
 * comparator gets `ctx`, so sort options never live in statics and two
 * threads may sort at once.  Needs n elements of scratch: false (the array
 * unchanged) when that cannot be allocated. */
bool etk_sort_r(void *base, size_t n, size_t size,
                int (*cmp)(const void *, const void *, void *), void *ctx);

/* Frees an ETK_VEC's items and empties it. */
#define ETK_VEC_FREE(v) \
  (free((v).items), (v).items = NULL, (v).count = 0, (v).cap = 0)

#endif /* ETKIT_COMMON_VEC_H */
