/*
 * vec.c - the growth step of the host libraries' growable array
 * (common/vec.h).
 *
 * A growth computes the new capacity first, entirely in size_t arithmetic
 * that cannot wrap: the doubling is taken only while it stays below
 * ETK_VEC_MAX_BYTES / elem_size, and a request beyond that bound fails
 * before realloc() is called.  realloc() then either moves the items (the
 * old pointer is dead) or fails and leaves them in place; in both cases
 * the caller's pointer and capacity stay consistent.
 */
#include "common/vec.h"

size_t etk_vec_next_cap(size_t cap, size_t need, size_t elem_size) {
  if (need <= cap) return cap;
  if (elem_size == 0) return 0;
  const size_t max = ETK_VEC_MAX_BYTES / elem_size;
  if (need > max) return 0;
  size_t next = cap < ETK_VEC_MIN_CAP ? ETK_VEC_MIN_CAP : cap;
  while (next < need) next = next > max / 2 ? max : next * 2;
  return next > max ? max : next;
}

void *etk_vec_grow(void *items, size_t *cap, size_t need, size_t elem_size) {
  if (need <= *cap) return items;
  size_t next = etk_vec_next_cap(*cap, need, elem_size);
  if (next == 0) return items;
  void *moved = realloc(items, next * elem_size);
  if (!moved) return items;
  *cap = next;
  return moved;
}
