/*
 * sink.c - buffered output sinks and the growing string buffer.
 *
 * PURPOSE
 *   Every renderer writes through an etk_render_sink_t so that one code path
 *   serves files, standard output, memory (tests, bindings) and arbitrary
 *   callbacks, and so that a million small puts cost a memcpy each rather
 *   than a stdio call each.
 *
 * DATA LAYOUT
 *   Every sink keeps up to ETK_RENDER_SINK_BUFFER bytes in the embedded
 *   `buf`; when it fills (or on flush) the bytes go to the callback, to the
 *   malloc'd `mem` of a memory sink (doubling, so etk_render_sink_take() can
 *   hand the whole output over without a copy), or nowhere for a counting
 *   sink.  Because all kinds share the buffer, writers take the inline
 *   etk_render_room()/etk_render_commit() path of etkit/render.h and format
 *   straight into it: a JSON key or number costs a memcpy, not a call.
 *   A put larger than the buffer bypasses it (one write, no copy).
 *
 * INVARIANTS
 *   - status is sticky: once a write or allocation failed nothing more is
 *     accepted, and flush reports the first error.
 *   - bytes counts everything accepted, so a counting sink (write == NULL)
 *     measures output size without storing it.
 *   - etk_strbuf_t data is NUL-terminated whenever cap > 0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"

static int file_write(void *ctx, const char *data, size_t len) {
  return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : 1;
}

void etk_render_sink_init(etk_render_sink_t *s, etk_render_write_fn write,
                          void *ctx) {
  memset(s, 0, offsetof(etk_render_sink_t, buf));
  s->write = write;
  s->ctx = ctx;
  s->status = ETK_OK;
}

void etk_render_sink_init_file(etk_render_sink_t *s, FILE *fp) {
  etk_render_sink_init(s, file_write, fp);
}

void etk_render_sink_init_memory(etk_render_sink_t *s) {
  etk_render_sink_init(s, NULL, NULL);
  s->mem_cap = 1; /* marks a memory sink; real capacity grows on demand */
}

static int is_memory(const etk_render_sink_t *s) {
  return s->write == NULL && s->mem_cap != 0;
}

static void mem_append(etk_render_sink_t *s, const char *data, size_t len) {
  if (s->mem_len + len + 1 > s->mem_cap || s->mem == NULL) {
    size_t cap = s->mem ? s->mem_cap : 4096;
    while (cap < s->mem_len + len + 1) {
      if (cap > ((size_t)-1) / 2) {
        s->status = ETK_E_NO_MEMORY;
        return;
      }
      cap *= 2;
    }
    char *p = realloc(s->mem, cap);
    if (!p) {
      s->status = ETK_E_NO_MEMORY;
      return;
    }
    s->mem = p;
    s->mem_cap = cap;
  }
  memcpy(s->mem + s->mem_len, data, len);
  s->mem_len += len;
  s->mem[s->mem_len] = 0;
}

/* Hands `len` bytes on: to the callback, the memory buffer, or nowhere. */
static void deliver(etk_render_sink_t *s, const char *data, size_t len) {
  if (s->status != ETK_OK || len == 0) return;
  if (is_memory(s))
    mem_append(s, data, len);
  else if (s->write && s->write(s->ctx, data, len) != 0)
    s->status = ETK_E_IO;
}

static void drain(etk_render_sink_t *s) {
  deliver(s, s->buf, s->len);
  s->len = 0;
}

char *etk_render_room_slow(etk_render_sink_t *s, size_t n) {
  if (s->status != ETK_OK || n > sizeof s->buf) return NULL;
  drain(s);
  return s->status == ETK_OK ? s->buf : NULL;
}

void etk_render_put(etk_render_sink_t *s, const char *data, size_t len) {
  if (s->status != ETK_OK || len == 0) return;
  if (len <= sizeof s->buf - s->len) {
    memcpy(s->buf + s->len, data, len);
    s->len += len;
    s->bytes += len;
    return;
  }
  drain(s);
  if (s->status != ETK_OK) return;
  s->bytes += len;
  if (len >= sizeof s->buf) {
    deliver(s, data, len);
    return;
  }
  memcpy(s->buf, data, len);
  s->len = len;
}

void etk_render_puts(etk_render_sink_t *s, const char *str) {
  etk_render_put(s, str, strlen(str));
}

void etk_render_putc(etk_render_sink_t *s, char c) {
  char *p = etk_render_room(s, 1);
  if (!p) return;
  *p = c;
  etk_render_commit(s, 1);
}

void etk_render_printf(etk_render_sink_t *s, const char *fmt, ...) {
  char tmp[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof tmp) n = (int)sizeof tmp - 1;
  etk_render_put(s, tmp, (size_t)n);
}

int etk_render_sink_flush(etk_render_sink_t *s) {
  drain(s);
  return s->status;
}

char *etk_render_sink_take(etk_render_sink_t *s, size_t *len) {
  if (len) *len = 0;
  if (!is_memory(s)) return NULL;
  drain(s);
  if (s->status != ETK_OK) return NULL;
  char *out = s->mem;
  if (!out) {
    out = malloc(1);
    if (!out) return NULL;
    out[0] = 0;
  }
  if (len) *len = s->mem_len;
  s->mem = NULL;
  s->mem_len = 0;
  s->mem_cap = 1;
  return out;
}

void etk_render_sink_free(etk_render_sink_t *s) {
  if (!is_memory(s)) return;
  s->len = 0;
  free(s->mem);
  s->mem = NULL;
  s->mem_len = 0;
  s->mem_cap = 1;
}

/* ------------------------------------------------------------- strbuf */

void etk_strbuf_init(etk_strbuf_t *b) {
  memset(b, 0, sizeof *b);
}

void etk_strbuf_free(etk_strbuf_t *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

void etk_strbuf_clear(etk_strbuf_t *b) {
  b->len = 0;
  if (b->data) b->data[0] = 0;
}

static int strbuf_reserve(etk_strbuf_t *b, size_t extra) {
  if (b->failed) return 0;
  if (b->len + extra + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) {
    if (cap > ((size_t)-1) / 2) {
      b->failed = 1;
      return 0;
    }
    cap *= 2;
  }
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = 1;
    return 0;
  }
  b->data = p;
  b->cap = cap;
  return 1;
}

void etk_strbuf_append(etk_strbuf_t *b, const char *data, size_t len) {
  if (!strbuf_reserve(b, len)) return;
  if (len) memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = 0;
}

void etk_strbuf_appends(etk_strbuf_t *b, const char *str) {
  etk_strbuf_append(b, str, strlen(str));
}

void etk_strbuf_appendc(etk_strbuf_t *b, char c) {
  if (!strbuf_reserve(b, 1)) return;
  b->data[b->len++] = c;
  b->data[b->len] = 0;
}

void etk_strbuf_printf(etk_strbuf_t *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !strbuf_reserve(b, (size_t)n)) {
    va_end(ap2);
    return;
  }
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  b->len += (size_t)n;
}

void etk_strbuf_cut(etk_strbuf_t *b, size_t max_points) {
  if (!b || b->failed || !b->data || max_points == 0) return;
  size_t points = 0, keep = 0;
  for (size_t i = 0; i < b->len; i++) {
    if (((unsigned char)b->data[i] & 0xc0u) == 0x80u) continue;
    if (points == max_points - 1) keep = i;
    points++;
  }
  if (points <= max_points) return;
  b->len = keep;
  b->data[keep] = '\0';
  etk_strbuf_appends(b, "\xe2\x80\xa6");
}
