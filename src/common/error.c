/*
 * error.c - the host error record (etk_error_t).
 *
 * The first error wins: deep readers set the precise cause, and callers
 * higher up may add context (the file name through etk_error_where) without
 * overwriting it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "etkit/common.h"

void etk_error_clear(etk_error_t *err) {
  if (!err) return;
  /* field by field: the struct holds a whole path (4 KiB and more), and
   * clearing is on paths that run once per tensor */
  err->code = ETK_OK;
  err->offset = ETK_NO_OFFSET;
  err->line = 0;
  err->column = 0;
  err->where[0] = 0;
  err->message[0] = 0;
}

int etk_error_vset(etk_error_t *err, int code, uint64_t offset,
                   const char *where, const char *fmt, va_list ap) {
  if (!err || err->code != ETK_OK) return code;
  err->code = code;
  err->offset = offset;
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  etk_error_where(err, where);
  return code;
}

int etk_error_vkeep(int *rc, etk_error_t *err, int code, const char *where,
                    const char *fmt, va_list ap) {
  if (*rc != ETK_OK) return *rc;
  *rc = code;
  return etk_error_vset(err, code, ETK_NO_OFFSET, where, fmt, ap);
}

int etk_error_set(etk_error_t *err, int code, uint64_t offset, const char *fmt,
                  ...) {
  va_list ap;
  va_start(ap, fmt);
  etk_error_vset(err, code, offset, NULL, fmt, ap);
  va_end(ap);
  return code;
}

int etk_error_set_where(etk_error_t *err, const char *where, int code,
                        const char *fmt, ...) {
  va_list ap;
  etk_error_where(err, where);
  va_start(ap, fmt);
  etk_error_vset(err, code, ETK_NO_OFFSET, NULL, fmt, ap);
  va_end(ap);
  return code;
}

void etk_error_where(etk_error_t *err, const char *where) {
  if (!err || !where || err->where[0]) return;
  snprintf(err->where, sizeof err->where, "%s", where);
}

char *etk_error_format(const etk_error_t *err, char *out, size_t out_size) {
  if (!out || out_size == 0) return out;
  if (!err) {
    snprintf(out, out_size, "unknown error");
    return out;
  }
  const char *msg = err->message[0] ? err->message : etk_strerror(err->code);
  char pos[64] = "";
  if (err->line > 0)
    snprintf(pos, sizeof pos, " (line %d, column %d)", err->line, err->column);
  else if (err->offset != ETK_NO_OFFSET)
    snprintf(pos, sizeof pos, " (at byte %llu)",
             (unsigned long long)err->offset);
  if (err->where[0])
    snprintf(out, out_size, "%s: %s%s", err->where, msg, pos);
  else
    snprintf(out, out_size, "%s%s", msg, pos);
  return out;
}
