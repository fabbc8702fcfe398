/*
 * capture_file.c - the files a capture assembles, whatever carried them:
 * etkit frames (capture.c) or upstream's Arm runner blocks (arm_log.c).
 *
 * A file's bytes are its good prefix; problems are kept as lines on the
 * file (at most CAP_PROBLEMS_MAX, then one "... and N more" line), and a
 * file with any problem is incomplete.  Emitting a file gives it an output
 * name no earlier file of this capture took ("NAME-2.ext" for a second
 * NAME), reports it through the caller's callback, counts it, and frees it.
 * A failed allocation or a callback's non-zero return stops the capture
 * (cap_stop): the first such code is kept and later files are not reported.
 * Both parsers sit above this file and neither calls the other's files
 * back, so the folder has no loop.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

/* ------------------------------------------------------------ reporting */

void cap_stop(etk_capture_t *cap, int rc) {
  if (cap->stopped == ETK_OK) cap->stopped = rc;
}

void cap_problem(etk_capture_t *cap, const char *fmt, ...) {
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cap->stats.problems++;
  if (cap->cb.problem) cap->cb.problem(cap->cb.ctx, msg);
}

static void push_line(cap_file_t *f, const char *msg) {
  char *copy = malloc(strlen(msg) + 1);
  if (copy == NULL || !ETK_VEC_PUSH(f->problems, copy)) {
    free(copy);
    f->problems_dropped++;
    return;
  }
  strcpy(copy, msg);
}

void cap_file_problem(etk_capture_t *cap, cap_file_t *f, const char *fmt, ...) {
  f->failed = true;
  cap->stats.problems++;
  if (f->problems.count >= CAP_PROBLEMS_MAX) {
    f->problems_dropped++;
    return;
  }
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  push_line(f, msg);
}

cap_file_t *cap_file_new(etk_capture_t *cap, int kind, int source,
                         const char *name, uint64_t stream_offset) {
  cap_file_t *f = calloc(1, sizeof *f);
  if (f == NULL) {
    cap_stop(cap, ETK_E_NO_MEMORY);
    return NULL;
  }
  snprintf(f->name, sizeof f->name, "%s", name);
  f->kind = kind;
  f->source = source;
  f->stream_offset = stream_offset;
  return f;
}

bool cap_file_append(etk_capture_t *cap, cap_file_t *f, const uint8_t *p,
                     size_t n) {
  if (n == 0) return true;
  if (!ETK_VEC_RESERVE(f->data, f->cap, f->size + n)) {
    cap_stop(cap, ETK_E_NO_MEMORY);
    return false;
  }
  memcpy(f->data + f->size, p, n);
  f->size += n;
  return true;
}

void cap_file_free(cap_file_t *f) {
  if (f == NULL) return;
  for (size_t i = 0; i < f->problems.count; i++) free(f->problems.items[i]);
  ETK_VEC_FREE(f->problems);
  ETK_VEC_FREE(f->missing);
  free(f->data);
  free(f);
}

/* Records `name` as given; false when it already was (or on no memory). */
static bool claim(etk_capture_t *cap, const char *name, uint32_t *id) {
  bool is_new = false;
  if (etk_hash_put(&cap->out_names, name, strlen(name), id, &is_new) != ETK_OK)
    return false;
  if (is_new && !(ETK_VEC_RESERVE(cap->next_suffix.items, cap->next_suffix.cap,
                                  (size_t)*id + 1))) {
    cap_stop(cap, ETK_E_NO_MEMORY);
    return false;
  }
  if (is_new) {
    cap->next_suffix.items[*id] = 2;
    cap->next_suffix.count = (size_t)*id + 1;
  }
  return is_new;
}

/* "etdump.bin", then "etdump-2.bin", "etdump-3.bin"... (each name keeps
 * the next suffix to try, so many files of one name cost no search). */
static void unique_name(etk_capture_t *cap, const char *name, char *out,
                        size_t size) {
  snprintf(out, size, "%s", name);
  uint32_t id, other;
  if (claim(cap, name, &id) || cap->stopped != ETK_OK) return;
  const char *dot = strrchr(name, '.');
  int stem = dot && dot != name ? (int)(dot - name) : (int)strlen(name);
  for (;;) {
    uint32_t k = cap->next_suffix.items[id]++;
    snprintf(out, size, "%.*s-%u%s", stem, name, (unsigned)k, name + stem);
    if (claim(cap, out, &other) || cap->stopped != ETK_OK) return;
  }
}

void cap_file_emit(etk_capture_t *cap, cap_file_t *f) {
  if (f->problems_dropped > 0) {
    char msg[64];
    snprintf(msg, sizeof msg, "... and %zu more problems", f->problems_dropped);
    f->problems_dropped = 0;
    push_line(f, msg);
  }
  char out_name[ETK_TX_NAME_MAX + 16];
  unique_name(cap, f->name, out_name, sizeof out_name);
  etk_capture_file_t info;
  memset(&info, 0, sizeof info);
  info.name = f->name;
  info.out_name = out_name;
  info.kind = (etk_tx_kind_t)f->kind;
  info.source = (etk_capture_source_t)f->source;
  info.data = f->data;
  info.size = f->size;
  info.expected = f->expected;
  info.complete = !f->failed;
  info.problem_count = f->problems.count;
  info.problems = (const char *const *)f->problems.items;
  info.stream_offset = f->stream_offset;
  cap->stats.files++;
  if (info.complete)
    cap->stats.complete++;
  else
    cap->stats.incomplete++;
  if (cap->stopped == ETK_OK) {
    int rc = cap->cb.file(cap->cb.ctx, &info);
    if (rc != 0) cap_stop(cap, rc);
  }
  cap_file_free(f);
}
