/*
 * buffers.c - the two allocation helpers of the host libraries: a bump
 * arena and a capped, growable text.
 *
 * Arena.  A singly linked list of chunks; each chunk holds `cap` bytes of
 * which `used` are handed out, aligned to 16.  Requests larger than the
 * default chunk get a chunk of their own.  Nothing is freed before
 * etr_arena_free(), which is why parsed programs own a private arena: a
 * failed parse returns all of its memory at once.
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

struct etr_arena_chunk {
  etr_arena_chunk_t *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

#define ETR_ARENA_CHUNK (64u * 1024u)

void *etr_arena_alloc(etr_arena_t *arena, size_t size) {
  if (size > SIZE_MAX - 32) return NULL;
  size_t need = (size + 15u) & ~(size_t)15u;
  if (need == 0) need = 16;
  etr_arena_chunk_t *c = arena->head;
  if (!c || c->cap - c->used < need) {
    size_t cap = need > ETR_ARENA_CHUNK ? need : ETR_ARENA_CHUNK;
    if (cap > SIZE_MAX - sizeof(etr_arena_chunk_t)) return NULL;
    etr_arena_chunk_t *n = malloc(sizeof(etr_arena_chunk_t) + cap);
    if (!n) return NULL;
    n->used = 0;
    n->cap = cap;
    if (c && need > ETR_ARENA_CHUNK) {
      /* A big private chunk goes behind the current one so that the
       * current chunk's free space stays usable. */
      n->next = c->next;
      c->next = n;
      n->used = need;
      return n->data;
    }
    n->next = c;
    arena->head = n;
    c = n;
  }
  void *p = c->data + c->used;
  c->used += need;
  return p;
}

void *etr_arena_calloc(etr_arena_t *arena, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = etr_arena_alloc(arena, count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

char *etr_arena_strndup(etr_arena_t *arena, const char *s, size_t n) {
  if (n == SIZE_MAX) return NULL;
  char *p = etr_arena_alloc(arena, n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *etr_arena_strdup(etr_arena_t *arena, const char *s) {
  return etr_arena_strndup(arena, s, strlen(s));
}

void etr_arena_free(etr_arena_t *arena) {
  if (!arena) return;
  etr_arena_chunk_t *c = arena->head;
  while (c) {
    etr_arena_chunk_t *next = c->next;
    free(c);
    c = next;
  }
  arena->head = NULL;
}

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
  if (t->len + n + 1 > t->alloc) {
    size_t want = t->alloc ? t->alloc : 64;
    while (want < t->len + n + 1) {
      if (want > SIZE_MAX / 2) {
        t->failed = true;
        return;
      }
      want *= 2;
    }
    char *bigger = realloc(t->buf, want);
    if (!bigger) {
      t->failed = true;
      return;
    }
    t->buf = bigger;
    t->alloc = want;
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
