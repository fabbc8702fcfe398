/*
 * memory_plan_internal.h - what the files of the memory-plan library share
 * behind etk_memory_plan_t.internal_: owned arrays, the string pool, and
 * the global instruction index where each chain starts.  Not installed.
 */
#ifndef ETKIT_MEMORY_PLAN_INTERNAL_H
#define ETKIT_MEMORY_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/memory_plan.h"

typedef struct etk_mp_chunk {
  struct etk_mp_chunk *next;
  size_t used, cap;
  char data[];
} etk_mp_chunk_t;

typedef struct etk_mp_internal {
  etk_memory_plan_t pub;
  uint8_t *bytes; /* copy of the file; tensor sizes point into it */
  etk_memory_plan_tensor_t *tensors;
  etk_memory_plan_buffer_t *buffers;
  etk_memory_plan_overlap_t *overlaps;
  size_t overlap_cap;
  int overlap_oom;
  etk_memory_plan_runtime_t *runtime;
  uint64_t *chain_starts; /* chain_count + 1 entries */
  etk_mp_chunk_t *pool;
} etk_mp_internal_t;

/* Copy of s[0..n) plus a NUL, freed with the plan; NULL on out of memory. */
char *etk_mp_pool_dup(etk_mp_internal_t *in, const char *s, size_t n);

/* 1 when a tensor counts in live bytes and trace rows: it has a
 * lifetime. */
int etk_mp_counts_live(const etk_memory_plan_tensor_t *t);

/* Fills in->overlaps / overlap_count / overlap_total / overlaps_truncated
 * (memory_plan_overlaps.c).  ETK_OK or ETK_E_NO_MEMORY. */
int etk_mp_find_overlaps(etk_mp_internal_t *in);

#endif
