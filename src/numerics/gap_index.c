/*
 * gap_index.c - the debug-handle multimap of gap.c (gap_index.h).
 *
 * Data layout: an open-addressing table of keys (linear probing, at most
 * half full, so that a probe ends at an empty slot quickly) whose slots
 * point at the head of a singly linked list of postings; postings live
 * in two parallel arrays that only grow.  Lookups and insertions are
 * O(1) expected, so the pairing of N entries with H handles costs
 * O(N + H) instead of O(N^2).
 */
#include "gap_index.h"

#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t cap) {
  key ^= key >> 30;
  key *= 0xbf58476d1ce4e5b9ull;
  key ^= key >> 27;
  key *= 0x94d049bb133111ebull;
  key ^= key >> 31;
  return (size_t)key & (cap - 1);
}

static size_t find_slot(const gap_index_t *ix, int64_t key) {
  size_t s = slot_of((uint64_t)key, ix->cap);
  while (ix->head[s] != GAP_INDEX_END && ix->keys[s] != key)
    s = (s + 1) & (ix->cap - 1);
  return s;
}

static bool rehash(gap_index_t *ix) {
  size_t cap = ix->cap ? ix->cap * 2 : 64;
  int64_t *keys = malloc(cap * sizeof *keys);
  size_t *head = malloc(cap * sizeof *head);
  if (!keys || !head) {
    free(keys);
    free(head);
    return false;
  }
  for (size_t s = 0; s < cap; s++) head[s] = GAP_INDEX_END;
  gap_index_t bigger = *ix;
  bigger.keys = keys;
  bigger.head = head;
  bigger.cap = cap;
  for (size_t s = 0; s < ix->cap; s++)
    if (ix->head[s] != GAP_INDEX_END) {
      size_t t = find_slot(&bigger, ix->keys[s]);
      keys[t] = ix->keys[s];
      head[t] = ix->head[s];
    }
  free(ix->keys);
  free(ix->head);
  *ix = bigger;
  return true;
}

static bool grow_posts(gap_index_t *ix) {
  if (ix->npost < ix->cap_post) return true;
  size_t cap = ix->cap_post ? ix->cap_post * 2 : 64;
  size_t *entry = realloc(ix->entry, cap * sizeof *entry);
  if (!entry) return false;
  ix->entry = entry;
  size_t *next = realloc(ix->next, cap * sizeof *next);
  if (!next) return false;
  ix->next = next;
  ix->cap_post = cap;
  return true;
}

/* The slot of `key`, claimed when new; END when out of memory. */
static size_t claim(gap_index_t *ix, int64_t key) {
  if ((ix->used + 1) * 2 > ix->cap && !rehash(ix)) return GAP_INDEX_END;
  size_t s = find_slot(ix, key);
  if (ix->head[s] == GAP_INDEX_END) {
    ix->keys[s] = key;
    ix->used++;
  }
  return s;
}

bool gap_index_add(gap_index_t *ix, int64_t key, size_t entry) {
  size_t s = claim(ix, key);
  if (s == GAP_INDEX_END || !grow_posts(ix)) return false;
  ix->entry[ix->npost] = entry;
  ix->next[ix->npost] = ix->head[s];
  ix->head[s] = ix->npost++;
  return true;
}

bool gap_index_set(gap_index_t *ix, int64_t key, size_t entry) {
  size_t s = claim(ix, key);
  if (s == GAP_INDEX_END) return false;
  if (ix->head[s] != GAP_INDEX_END) {
    ix->entry[ix->head[s]] = entry;
    ix->next[ix->head[s]] = GAP_INDEX_END;
    return true;
  }
  if (!grow_posts(ix)) return false;
  ix->entry[ix->npost] = entry;
  ix->next[ix->npost] = GAP_INDEX_END;
  ix->head[s] = ix->npost++;
  return true;
}

size_t gap_index_first(const gap_index_t *ix, int64_t key) {
  if (!ix->cap) return GAP_INDEX_END;
  return ix->head[find_slot(ix, key)];
}

void gap_index_free(gap_index_t *ix) {
  free(ix->keys);
  free(ix->head);
  free(ix->entry);
  free(ix->next);
}
