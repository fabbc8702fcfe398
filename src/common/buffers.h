/*
 * common/buffers.h - the host libraries' bump arena and capped growable
 * text (src/common/buffers.c), used by the program, torch and ETRecord
 * readers.  Private to etkit's libraries: not installed.
 */
#ifndef ETKIT_COMMON_BUFFERS_H
#define ETKIT_COMMON_BUFFERS_H

#include <stdbool.h>
#include <stddef.h>

#include "etkit/common.h"

/* ------------------------------------------------------------------ arena */

/* The host libraries' bump arena: a list of malloc'd blocks of at least
 * 64 KiB; allocations are 16-byte aligned, zeroed, and freed all at once. */
typedef struct etk_arena_block etk_arena_block_t;
typedef struct etk_arena {
  etk_arena_block_t *head;
  size_t total; /* bytes handed out, for statistics */
  /* Fixed arenas (etk_arena_init_fixed) hand out the caller's memory and
   * never call malloc; `exhausted` is set by the first request that did
   * not fit, `wanted` adds up the bytes of the requests refused. */
  int fixed, exhausted;
  size_t wanted;
} etk_arena_t;

/* An arena over the caller's mem[0..size): no block is ever malloc'd and
 * etk_arena_free() releases nothing.  False when `size` cannot hold the
 * arena's header (32 bytes plus alignment). */
bool etk_arena_init_fixed(etk_arena_t *a, void *mem, size_t size);
/* Bytes still free in a fixed arena (0 for a malloc'd one). */
size_t etk_arena_fixed_left(const etk_arena_t *a);

/* n bytes (n may be 0: a valid unique pointer is still returned), or NULL
 * on overflow or out of memory. */
void *etk_arena_alloc(etk_arena_t *a, size_t n);
/* count * size bytes with overflow check. */
void *etk_arena_array(etk_arena_t *a, size_t count, size_t size);
/* Copy of s[0..n) plus a NUL; NULL on out of memory. */
char *etk_arena_strndup(etk_arena_t *a, const char *s, size_t n);
char *etk_arena_strdup(etk_arena_t *a, const char *s);
void etk_arena_free(etk_arena_t *a);

/* The names the ETRecord and torch readers use for the same arena. */
typedef etk_arena_t etr_arena_t;
#define etr_arena_alloc etk_arena_alloc
#define etr_arena_calloc etk_arena_array
#define etr_arena_strndup etk_arena_strndup
#define etr_arena_strdup etk_arena_strdup
#define etr_arena_free etk_arena_free

/* --------------------------------------------------------- string builder */

/* Growable text with a cap: appends past `cap` are dropped and `cut` set.
 * `failed` is sticky after an allocation failure. */
typedef struct etr_text {
  char *buf;
  size_t len, alloc, cap;
  bool cut, failed;
} etr_text_t;

void etr_text_init(etr_text_t *t, size_t cap);
void etr_text_add(etr_text_t *t, const char *s, size_t n);
void etr_text_adds(etr_text_t *t, const char *s);
void etr_text_addf(etr_text_t *t, const char *fmt, ...) ETK_PRINTF_LIKE(2, 3);
void etr_text_free(etr_text_t *t);

#endif /* ETKIT_COMMON_BUFFERS_H */
