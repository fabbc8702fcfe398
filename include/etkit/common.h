/*
 * etkit/common.h - host-side helpers shared by the etkit libraries:
 * error records, whole-file reads, and all-or-nothing file writes.
 *
 * Host only (uses stdio and the heap).  The portable libraries use bare
 * status codes (etkit/status.h) instead.
 */
#ifndef ETKIT_COMMON_H
#define ETKIT_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETK_NO_OFFSET UINT64_MAX

/* Bytes of etk_error_t.where: a whole path (PATH_MAX is 4096 on Linux) plus
 * a member name, so error lines never cut the file name short.  Builds for
 * small targets may define it lower. */
#ifndef ETK_ERROR_WHERE_SIZE
#define ETK_ERROR_WHERE_SIZE 4352
#endif

/* What a person needs to know about a failure.  Every host API that can
 * fail takes an optional `etk_error_t *err` (NULL = caller does not care). */
typedef struct etk_error {
  int code;         /* ETK_E_* (ETK_OK when there is no error) */
  uint64_t offset;  /* byte offset of the problem, or ETK_NO_OFFSET */
  int line, column; /* 1-based text position (JSON), 0 when unknown */
  char where[ETK_ERROR_WHERE_SIZE]; /* file (whole path) and/or member
                                       name, "" when unknown */
  char message[256];                /* one line, no trailing newline */
} etk_error_t;

/* A buffer size that holds any etk_error_format() line whole. */
#define ETK_ERROR_LINE_SIZE (ETK_ERROR_WHERE_SIZE + 256 + 96)

/* Marks a function whose argument `f` is a printf format and whose
 * arguments from `a` on are its values, so that GCC and Clang check them. */
#ifndef ETK_PRINTF_LIKE
#if defined(__GNUC__) || defined(__clang__)
#define ETK_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define ETK_PRINTF_LIKE(f, a)
#endif
#endif

/* Binary search over `count` elements of `arr` sorted by `field`:
 * sets the size_t `index` to the first element whose `field` is not
 * below `key` (`count` when there is none).  A macro so that every
 * element type and key type is compared directly, without a callback. */
#define ETK_LOWER_BOUND(index, arr, count, field, key) \
  do {                                                 \
    size_t hi_ = (count);                              \
    (index) = 0;                                       \
    while ((index) < hi_) {                            \
      size_t mid_ = (index) + (hi_ - (index)) / 2;     \
      if ((arr)[mid_].field < (key))                   \
        (index) = mid_ + 1;                            \
      else                                             \
        hi_ = mid_;                                    \
    }                                                  \
  } while (0)

/* Clears `err` (no-op on NULL). */
void etk_error_clear(etk_error_t *err);

/* Fills `err` (if non-NULL) and returns `code`, so callers can write
 * `return etk_error_set(err, ETK_E_TRUNCATED, off, "events vector at %u", x);`.
 * Keeps the first error: a second set on an error already holding a code is
 * ignored (the code is still returned). */
int etk_error_set(etk_error_t *err, int code, uint64_t offset, const char *fmt,
                  ...) ETK_PRINTF_LIKE(4, 5);

/* Sets err->where (truncated to fit) if it is empty. */
void etk_error_where(etk_error_t *err, const char *where);

/* etk_error_where(err, where) then etk_error_set() with no offset: the
 * failure of a named file or member, in one call.  Returns `code`. */
int etk_error_set_where(etk_error_t *err, const char *where, int code,
                        const char *fmt, ...) ETK_PRINTF_LIKE(4, 5);

/* etk_error_set() for a reader's own formatting helper: takes a va_list,
 * and when it fills `err` also sets `where` (if non-NULL) as
 * etk_error_where() does.  Returns `code`. */
int etk_error_vset(etk_error_t *err, int code, uint64_t offset,
                   const char *where, const char *fmt, va_list ap)
    ETK_PRINTF_LIKE(5, 0);

/* For a writer that keeps its first failure in *rc and stops there: when
 * *rc is ETK_OK, sets it to `code` and fills `err` as etk_error_vset()
 * does (no offset).  Returns *rc, the first failure. */
int etk_error_vkeep(int *rc, etk_error_t *err, int code, const char *where,
                    const char *fmt, va_list ap) ETK_PRINTF_LIKE(5, 0);

/* Formats the error as one line: "<where>: <message> (at byte N)" or with
 * "line L, column C".  Returns `out`. */
char *etk_error_format(const etk_error_t *err, char *out, size_t out_size);

/* Reads a whole file into malloc'd memory (one extra NUL byte after the
 * data, not counted in *len).  Caller frees *data.  Limits the size to
 * `max_len` bytes (0 = 4 GiB). */
int etk_read_file(const char *path, uint64_t max_len, uint8_t **data,
                  size_t *len, etk_error_t *err);

/* All-or-nothing output file: writes go to "<path>.tmp.<pid>", and
 * etk_outfile_commit() renames it over `path`.  etk_outfile_abort() (or a
 * failed commit) removes the temporary file, so no partial output is ever
 * left looking complete.  The path "-" means standard output (commit just
 * flushes).  An existing path that is not a regular file (/dev/null, a
 * FIFO) is written in place, since renaming over it would replace it. */
typedef struct etk_outfile {
  FILE *fp;
  char path[4096];
  char tmp_path[4096];
  int is_stdout;
  int is_special; /* an existing device/FIFO, written in place */
} etk_outfile_t;

int etk_outfile_open(etk_outfile_t *of, const char *path, etk_error_t *err);
int etk_outfile_commit(etk_outfile_t *of, etk_error_t *err);
void etk_outfile_abort(etk_outfile_t *of);

/* Writes `len` bytes to `path` atomically (temp file + rename). */
int etk_write_file(const char *path, const void *data, size_t len,
                   etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_COMMON_H */
