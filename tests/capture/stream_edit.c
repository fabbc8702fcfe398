/*
 * stream_edit.c - the damage a real line does to a framed stream, done on
 * purpose (stream_edit.h).  Frames are found by their opening bytes
 * 00 FF 'E' 'T' and end at the next 0x00 (docs/transport.md).
 */
#include "stream_edit.h"

#include <stdlib.h>
#include <string.h>

int buf_write(void *ctx, const void *bytes, size_t n) {
  buf_t *b = ctx;
  if (b->len + n > b->cap) {
    size_t cap = (b->len + n) * 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) return -1;
    b->p = p;
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->len, bytes, n);
  b->len += n;
  return 0;
}

void buf_text(buf_t *b, const char *s) {
  buf_write(b, s, strlen(s));
}

size_t frame_at(const buf_t *b, int k, size_t *end) {
  int seen = -1;
  for (size_t i = 0; i + 3 < b->len; i++) {
    if (b->p[i] == 0 && b->p[i + 1] == 0xff && b->p[i + 2] == 'E' &&
        b->p[i + 3] == 'T' && ++seen == k) {
      size_t j = i + 4;
      while (j < b->len && b->p[j] != 0) j++;
      *end = j + 1;
      return i;
    }
  }
  *end = 0;
  return 0;
}

void splice(buf_t *b, size_t at, size_t cut, const uint8_t *ins, size_t n) {
  buf_t out = {0};
  buf_write(&out, b->p, at);
  buf_write(&out, ins, n);
  buf_write(&out, b->p + at + cut, b->len - at - cut);
  free(b->p);
  *b = out;
}

void edit_flip(buf_t *b, int frame) {
  size_t end, at = frame_at(b, frame, &end);
  if (end > at + 301) b->p[at + 300] ^= 0x10;
}

void edit_lose(buf_t *b, int frame) {
  size_t end, at = frame_at(b, frame, &end);
  if (end) splice(b, at, end - at, NULL, 0);
}

void edit_duplicate(buf_t *b, int frame) {
  size_t end, at = frame_at(b, frame, &end);
  if (!end) return;
  uint8_t *copy = malloc(end - at);
  memcpy(copy, b->p + at, end - at);
  splice(b, end, 0, copy, end - at);
  free(copy);
}

void edit_swap_next(buf_t *b, int frame) {
  size_t end1, at1 = frame_at(b, frame, &end1);
  size_t end2;
  frame_at(b, frame + 1, &end2);
  if (!end1 || !end2) return;
  uint8_t *copy = malloc(end1 - at1);
  memcpy(copy, b->p + at1, end1 - at1);
  splice(b, end2, 0, copy, end1 - at1);
  splice(b, at1, end1 - at1, NULL, 0);
  free(copy);
}

void edit_cut_inside(buf_t *b, int frame) {
  size_t end, at = frame_at(b, frame, &end);
  if (end) b->len = at + (end - at) / 2;
}

void edit_inject(buf_t *b, int frame) {
  size_t end, at = frame_at(b, frame, &end);
  const char *t = "ALERT: watchdog\r\n";
  if (end > at + 101) splice(b, at + 100, 0, (const uint8_t *)t, strlen(t));
}
