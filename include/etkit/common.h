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
  char *buf;      /* fp's 1 MiB stdio buffer (NULL: the default one) */
} etk_outfile_t;

int etk_outfile_open(etk_outfile_t *of, const char *path, etk_error_t *err);
int etk_outfile_commit(etk_outfile_t *of, etk_error_t *err);
void etk_outfile_abort(etk_outfile_t *of);

/* Removes the temporary files of open etk_outfile_t writes when the process
 * gets SIGINT, SIGTERM or SIGHUP, then dies of that signal as it would have.
 * Installs the handler only for signals whose disposition is still the
 * default (a program's own handler, or Python's SIGINT, is left alone).
 * Call it once, early (the `etkit` command does in main). */
void etk_outfile_cleanup_on_signals(void);

/* 1 when `a` and `b` name the same existing file (same device and inode,
 * so also through hard or symbolic links), else 0 (also when either is
 * NULL or does not exist). */
int etk_same_file(const char *a, const char *b);

/* Writes `len` bytes to `path` atomically (temp file + rename). */
int etk_write_file(const char *path, const void *data, size_t len,
                   etk_error_t *err);

/* ------------------------------------------------------------ name lists */

/* A list of names for a message ("forward, encode and 25 more"): names are
 * added whole or not at all, so the text is never cut mid-word, and the
 * ones that did not fit are counted.  The buffer must outlive the list. */
typedef struct etk_name_list {
  char *out;
  size_t size, used;
  size_t shown, more;
} etk_name_list_t;

/* Starts an empty list in out[0..size) (size >= 32 leaves room for the
 * count of names left out). */
void etk_name_list_init(etk_name_list_t *l, char *out, size_t size);
/* Adds the `len` bytes at `name` (NULL: "") as one entry. */
void etk_name_list_add(etk_name_list_t *l, const char *name, size_t len);
/* The text: "a, b, c", "a, b and 3 more", or "none".  Returns out. */
const char *etk_name_list_text(etk_name_list_t *l);

/* ------------------------------------------------------------ file kinds */

/* The kinds of file etkit reads, told apart by their first bytes
 * (etk_file_kind_detect) or, for directories and empty files, by stat
 * (etk_file_kind_of_path). */
typedef enum etk_file_kind {
  ETK_FILE_UNKNOWN = 0,
  ETK_FILE_PTE,               /* "ET12" at bytes 4..7 */
  ETK_FILE_PTE_OTHER,         /* "ET??": a program of another version */
  ETK_FILE_BPTE,              /* "BP08" at bytes 4..7 */
  ETK_FILE_ETDUMP,            /* "ED00" at bytes 8..11 (size-prefixed) */
  ETK_FILE_NPY,               /* "\x93NUMPY" */
  ETK_FILE_ZIP,               /* "PK\3\4": a ZIP archive, as ETRecords are */
  ETK_FILE_ETDUMP_UNPREFIXED, /* "ED00" at bytes 4..7: no size prefix */
  ETK_FILE_DIRECTORY,         /* (etk_file_kind_of_path only) */
  ETK_FILE_EMPTY,             /* zero bytes */
  ETK_FILE_DEBUG_BUFFER       /* never detected (no header): for _expect */
} etk_file_kind_t;

/* Guesses a file's kind from its first bytes (needs at most 12).  Reads
 * only inside data[0..len).  `data` may be NULL when len is 0 (UNKNOWN). */
etk_file_kind_t etk_file_kind_detect(const uint8_t *data, size_t len);

/* The kind of the file at `path`: DIRECTORY, EMPTY, or what its first
 * bytes say; UNKNOWN when it cannot be read or is not a regular file. */
etk_file_kind_t etk_file_kind_of_path(const char *path);

/* "an ExecuTorch program (.pte)", and where that kind goes ("a program goes
 * to `etkit run` ... or --program"): static strings. */
const char *etk_file_kind_describe(etk_file_kind_t kind);
const char *etk_file_kind_hint(etk_file_kind_t kind);

/* ETK_OK when the file (its first bytes data[0..len), or when `data` is
 * NULL the file at `path`) is of kind `want`, or of no kind etkit knows
 * (then the reader explains what it found).  Otherwise fills `err` with
 * one line naming what the file is, what was expected and which option
 * takes it ("this is an ExecuTorch program (.pte), not an ETDump: a
 * program goes to ..."; err->where = `path` when non-NULL) and returns
 * ETK_E_BAD_IDENTIFIER (ETK_E_IO for a directory).  With `want`
 * ETK_FILE_DEBUG_BUFFER every known kind is refused (a debug buffer has no
 * header). */
int etk_file_kind_expect(const char *path, const uint8_t *data, size_t len,
                         etk_file_kind_t want, etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_COMMON_H */
