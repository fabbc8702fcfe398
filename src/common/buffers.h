/*
 * common/buffers.h - the host libraries' bump arena and capped growable
 * text (src/common/buffers.c).  Private to etkit's libraries: not installed.
 */
#ifndef ETKIT_COMMON_BUFFERS_H
#define ETKIT_COMMON_BUFFERS_H

#include <stdbool.h>
#include <stddef.h>

/* ------------------------------------------------------------------ arena */

typedef struct etr_arena_chunk etr_arena_chunk_t;

/* Bump allocator: chunks of at least 64 KiB, freed all at once. */
typedef struct etr_arena {
  etr_arena_chunk_t *head;
} etr_arena_t;

/* size bytes aligned to 16; NULL on overflow or out of memory. */
void *etr_arena_alloc(etr_arena_t *arena, size_t size);
/* count * size bytes, zeroed; NULL on overflow or out of memory. */
void *etr_arena_calloc(etr_arena_t *arena, size_t count, size_t size);
/* Copy of s[0..n) plus a NUL; NULL on out of memory. */
char *etr_arena_strndup(etr_arena_t *arena, const char *s, size_t n);
char *etr_arena_strdup(etr_arena_t *arena, const char *s);
void etr_arena_free(etr_arena_t *arena);

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
void etr_text_addf(etr_text_t *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void etr_text_free(etr_text_t *t);

#endif /* ETKIT_COMMON_BUFFERS_H */
