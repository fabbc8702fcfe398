/*
 * gap_index.h - a multimap from debug handle (int64) to entry positions,
 * used by gap.c to find the entries holding a handle without scanning
 * them all (upstream's pairing compares every pair: quadratic).
 */
#ifndef ETKIT_NUMERICS_GAP_INDEX_H
#define ETKIT_NUMERICS_GAP_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GAP_INDEX_END ((size_t)-1)

typedef struct gap_index {
  int64_t *keys; /* open addressing, cap a power of two */
  size_t *head;  /* first posting of the slot's key, END = empty slot */
  size_t cap, used;
  size_t *entry, *next; /* postings: entry position, next posting */
  size_t npost, cap_post;
} gap_index_t;

/* Adds `entry` under `key` (a key may hold many entries).  false when out
 * of memory. */
bool gap_index_add(gap_index_t *ix, int64_t key, size_t entry);

/* Makes `entry` the only entry under `key`.  false when out of memory. */
bool gap_index_set(gap_index_t *ix, int64_t key, size_t entry);

/* The first posting of `key` (GAP_INDEX_END when absent); walk with
 * ix->next[p], the entry is ix->entry[p].  Most recently added first. */
size_t gap_index_first(const gap_index_t *ix, int64_t key);

void gap_index_free(gap_index_t *ix);

#endif
