/*
 * line_buffer.h - private to the render library: a growing byte buffer in
 * which the table and TSV writers assemble one output line (or row) before
 * handing it to the sink in a single put, so that a cell costs a memcpy
 * rather than a sink call per piece.
 *
 * Usage: reserve the room a piece needs, then append without checks.
 *
 *   etk_line_t l = {0};
 *   if (!etk_line_reserve(&l, n + 1)) ... out of memory ...
 *   etk_line_put(&l, s, n);
 *   etk_line_putc(&l, '\n');
 *   etk_line_drain(&l, sink, 0);
 *   free(l.p);
 */
#ifndef ETKIT_RENDER_LINE_BUFFER_H
#define ETKIT_RENDER_LINE_BUFFER_H

#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"

typedef struct etk_line {
  char *p;
  size_t len, cap;
} etk_line_t;

/* Makes room for `extra` more bytes; 0 on allocation failure. */
static inline int etk_line_reserve(etk_line_t *l, size_t extra) {
  if (extra <= l->cap - l->len) return 1;
  size_t cap = l->cap ? l->cap : 1024;
  while (cap - l->len < extra) {
    if (cap > ((size_t)-1) / 2) return 0;
    cap *= 2;
  }
  char *p = realloc(l->p, cap);
  if (!p) return 0;
  l->p = p;
  l->cap = cap;
  return 1;
}

/* Appends within reserved room. */
static inline void etk_line_put(etk_line_t *l, const char *s, size_t n) {
  memcpy(l->p + l->len, s, n);
  l->len += n;
}

static inline void etk_line_putc(etk_line_t *l, char c) {
  l->p[l->len++] = c;
}

static inline void etk_line_spaces(etk_line_t *l, size_t n) {
  memset(l->p + l->len, ' ', n);
  l->len += n;
}

/* Hands the assembled bytes to the sink once at least `batch` of them
 * wait (0: whatever waits) and empties the line; returns the sink's
 * sticky status. */
static inline int etk_line_drain(etk_line_t *l, etk_render_sink_t *sink,
                                 size_t batch) {
  if (l->len >= batch) {
    etk_render_put(sink, l->p, l->len);
    l->len = 0;
  }
  return sink->status;
}

#endif
