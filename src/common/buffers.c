/*
 * buffers.c - the two allocation helpers of the host libraries: a bump
 * arena and a capped, growable text.
 *
 * Arena.  A loaded file turns into many small structs (values, tensors,
 * instructions, names, graph nodes).  They live in one etk_arena_t: a
 * singly linked list of malloc'd blocks, each at least 64 KiB, filled
 * front to back with 16-byte aligned, zeroed allocations; a request larger
 * than a block gets a block of its own behind the current one.  Nothing is
 * freed before etk_arena_free(), which is why parsed programs own a
 * private arena: a failed parse returns all of its memory at once.
 * Invariant: block->used <= block->cap and block->used is a multiple of
 * 16, so the next allocation is aligned.
 * A fixed arena (etk_arena_init_fixed) is one block in the caller's memory,
 * which is all it ever hands out: the no-heap build (ETK_NO_HEAP=1, the
 * firmware's) compiles only this part and no malloc path at all.
 *
 * Text.  `buf` always holds a NUL after `len` bytes once anything was
 * added.  Appends that would pass `cap` are truncated and set `cut` (the
 * caller renders a marker); an allocation failure sets `failed`, after
 * which every append is ignored.  The caller checks `failed` once at the
 * end instead of after every call.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buffers.h"
#include "common/vec.h"

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
  if (a->fixed && (!b || b->cap - b->used < need)) {
    a->exhausted = 1;
    a->wanted += need;
    return NULL;
  }
  if (!b || b->cap - b->used < need) {
#if ETK_NO_HEAP
    return NULL;
#else
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
#endif
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

char *etk_arena_strdup(etk_arena_t *a, const char *s) {
  return etk_arena_strndup(a, s, strlen(s));
}

bool etk_arena_init_fixed(etk_arena_t *a, void *mem, size_t size) {
  memset(a, 0, sizeof *a);
  a->fixed = 1;
  uintptr_t base =
      ((uintptr_t)mem + ARENA_ALIGN - 1) & ~(uintptr_t)(ARENA_ALIGN - 1);
  size_t skip = (size_t)(base - (uintptr_t)mem);
  if (!mem || size < skip + BLOCK_HEADER) return false;
  etk_arena_block_t *b = (etk_arena_block_t *)base;
  b->next = NULL;
  b->used = 0;
  b->cap = (size - skip - BLOCK_HEADER) & ~(ARENA_ALIGN - 1);
  a->head = b;
  return true;
}

size_t etk_arena_fixed_left(const etk_arena_t *a) {
  if (!a || !a->fixed || !a->head) return 0;
  return a->head->cap - a->head->used;
}

void etk_arena_free(etk_arena_t *a) {
  if (!a) return;
  if (a->fixed) {
    memset(a, 0, sizeof *a);
    return;
  }
#if !ETK_NO_HEAP
  etk_arena_block_t *b = a->head;
  while (b) {
    etk_arena_block_t *next = b->next;
    free(b);
    b = next;
  }
#endif
  a->head = NULL;
  a->total = 0;
}

#if !ETK_NO_HEAP

void etr_text_init(etr_text_t *t, size_t cap) {
  memset(t, 0, sizeof *t);
  t->cap = cap ? cap : SIZE_MAX - 1;
}

void etr_text_add(etr_text_t *t, const char *s, size_t n) {
  if (t->failed || t->cut) return;
  if (n > t->cap - t->len) {
    n = t->cap - t->len;
    t->cut = true;
  }
  /* len + n <= cap < SIZE_MAX: the + 1 for the NUL cannot wrap */
  if (!ETK_VEC_RESERVE(t->buf, t->alloc, t->len + n + 1)) {
    t->failed = true;
    return;
  }
  if (n) memcpy(t->buf + t->len, s, n);
  t->len += n;
  t->buf[t->len] = 0;
}

void etr_text_adds(etr_text_t *t, const char *s) {
  etr_text_add(t, s, strlen(s));
}

void etr_text_addf(etr_text_t *t, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->failed = true;
    return;
  }
  if ((size_t)n < sizeof small) {
    etr_text_add(t, small, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    t->failed = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  etr_text_add(t, big, (size_t)n);
  free(big);
}

void etr_text_free(etr_text_t *t) {
  free(t->buf);
  memset(t, 0, sizeof *t);
}
#endif /* !ETK_NO_HEAP */
