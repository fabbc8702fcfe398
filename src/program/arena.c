/*
 * arena.c - the bump arena behind every loaded program and bundled program,
 * plus the checked shape arithmetic the readers and writers share.
 *
 * A loaded file turns into many small structs (values, tensors,
 * instructions, names).  They all live in one etk_arena_t: a singly linked
 * list of malloc'd blocks, each at least 64 KiB, filled front to back with
 * 16-byte aligned, zeroed allocations.  Nothing is freed individually; the
 * owner frees the whole list.  Invariant: block->used <= block->cap and
 * block->used is a multiple of 16, so the next allocation is aligned.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/checked.h"
#include "program_internal.h"

#define ARENA_MIN_BLOCK ((size_t)64 * 1024)
#define ARENA_ALIGN ((size_t)16)

struct etk_arena_block {
  etk_arena_block_t *next;
  size_t used, cap;
  /* data follows, 16-byte aligned by the header size below */
};

/* The header is padded to 32 bytes so data starts 16-aligned (malloc gives
 * at least 16). */
#define BLOCK_HEADER ((size_t)32)

static unsigned char *block_data(etk_arena_block_t *b) {
  return (unsigned char *)b + BLOCK_HEADER;
}

void *etk_arena_alloc(etk_arena_t *a, size_t n) {
  if (!a) return NULL;
  if (n > SIZE_MAX / 2) return NULL;
  size_t need = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
  if (need == 0) need = ARENA_ALIGN;
  etk_arena_block_t *b = a->head;
  if (!b || b->cap - b->used < need) {
    size_t cap = need > ARENA_MIN_BLOCK ? need : ARENA_MIN_BLOCK;
    etk_arena_block_t *nb = malloc(BLOCK_HEADER + cap);
    if (!nb) return NULL;
    nb->used = 0;
    nb->cap = cap;
    /* A big one-off block goes behind the current one so the current
     * block's free space stays usable. */
    if (b && need > ARENA_MIN_BLOCK) {
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      a->head = nb;
    }
    b = nb;
  }
  void *p = block_data(b) + b->used;
  b->used += need;
  a->total += need;
  memset(p, 0, need);
  return p;
}

void *etk_arena_array(etk_arena_t *a, size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / 2 / size) return NULL;
  return etk_arena_alloc(a, count * size);
}

char *etk_arena_strndup(etk_arena_t *a, const char *s, size_t n) {
  if (n == SIZE_MAX) return NULL;
  char *p = etk_arena_alloc(a, n + 1);
  if (p && n) memcpy(p, s, n);
  return p;
}

void etk_arena_free(etk_arena_t *a) {
  if (!a) return;
  etk_arena_block_t *b = a->head;
  while (b) {
    etk_arena_block_t *next = b->next;
    free(b);
    b = next;
  }
  a->head = NULL;
  a->total = 0;
}

void *etk_aligned_malloc(size_t n) {
  /* 64-byte alignment also suits cache lines and the 32-byte .bpte rule. */
  size_t rounded = (n + 63) & ~(size_t)63;
  if (rounded < n) return NULL;
  if (rounded == 0) rounded = 64;
  return aligned_alloc(64, rounded);
}

void etk_aligned_free(void *p) { free(p); }

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
