/*
 * file_kind.c - what kind of etkit file a path or a buffer holds, and the
 * one message every reader gives when it gets the wrong kind.
 *
 * The kinds are told apart by their first bytes only (at most 12): the
 * FlatBuffer identifiers of a program ("ET12" at byte 4), a bundled
 * program ("BP08" at 4) and an ETDump ("ED00" at 8 after the size prefix,
 * or at 4 without it), the ZIP local header of an ETRecord ("PK\3\4" at
 * 0) and numpy's "\x93NUMPY".  A debug buffer is raw tensor bytes with no
 * header, so it is whatever none of these match.  Directories and empty
 * files are kinds of their own, found with stat().
 *
 * etk_file_kind_expect() is called by each reader when the bytes it got
 * are not its own format (and by the commands for debug buffers, which no
 * reader checks): it names what the file is and which option takes it, so
 * that a .pte given as an ETDump says so instead of quoting identifiers.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "etkit/common.h"

etk_file_kind_t etk_file_kind_detect(const uint8_t *data, size_t len) {
  if (!data || len == 0) return ETK_FILE_UNKNOWN;
  if (len >= 6 && memcmp(data, "\x93NUMPY", 6) == 0) return ETK_FILE_NPY;
  if (len >= 4 && memcmp(data, "PK\x03\x04", 4) == 0) return ETK_FILE_ZIP;
  if (len >= 4 && memcmp(data, "PK\x05\x06", 4) == 0) return ETK_FILE_ZIP;
  if (len >= 8 && memcmp(data + 4, "ET12", 4) == 0) return ETK_FILE_PTE;
  if (len >= 8 && memcmp(data + 4, "BP08", 4) == 0) return ETK_FILE_BPTE;
  if (len >= 12 && memcmp(data + 8, "ED00", 4) == 0) return ETK_FILE_ETDUMP;
  if (len >= 8 && memcmp(data + 4, "ED00", 4) == 0)
    return ETK_FILE_ETDUMP_UNPREFIXED;
  if (len >= 8 && data[4] == 'E' && data[5] == 'T') return ETK_FILE_PTE_OTHER;
  return ETK_FILE_UNKNOWN;
}

etk_file_kind_t etk_file_kind_of_path(const char *path) {
  struct stat st;
  if (!path || stat(path, &st) != 0) return ETK_FILE_UNKNOWN;
  if (S_ISDIR(st.st_mode)) return ETK_FILE_DIRECTORY;
  if (S_ISREG(st.st_mode) && st.st_size == 0) return ETK_FILE_EMPTY;
  if (!S_ISREG(st.st_mode)) return ETK_FILE_UNKNOWN; /* never read a FIFO */
  FILE *f = fopen(path, "rb");
  if (!f) return ETK_FILE_UNKNOWN;
  uint8_t head[16];
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return etk_file_kind_detect(head, n);
}

/* What each kind is, and where it goes (the CLI option, and Python's name
 * where it differs). */
static const struct {
  const char *is, *goes;
} kinds[] = {
    [ETK_FILE_UNKNOWN] = {"a file of no etkit kind",
                          "a debug buffer (raw bytes, no header) goes to "
                          "--debug_buffer_path"},
    [ETK_FILE_PTE] = {"an ExecuTorch program (.pte)",
                      "a program goes to `etkit run`, `etkit info`, "
                      "`etkit memory`, `etkit graph` or --program (Python: "
                      "etkit.run, etkit.Program)"},
    [ETK_FILE_PTE_OTHER] = {"an ExecuTorch program of another version",
                            "programs go to `etkit run` or --program"},
    [ETK_FILE_BPTE] = {"a bundled program (.bpte)",
                       "a bundled program goes to `etkit run`; `etkit bundle "
                       "--extract` gives its .pte"},
    [ETK_FILE_ETDUMP] = {"an ETDump", "an ETDump goes to --etdump_path"},
    [ETK_FILE_NPY] = {"a numpy array (.npy)",
                      "arrays go to `etkit run --input`"},
    [ETK_FILE_ZIP] = {"a ZIP archive (an ETRecord)",
                      "an ETRecord goes to --etrecord_path (Python: "
                      "etrecord=)"},
    [ETK_FILE_ETDUMP_UNPREFIXED] = {"an ETDump without its size prefix",
                                    "upstream's Inspector reads only "
                                    "size-prefixed ETDumps, as the runtime "
                                    "writes them"},
    [ETK_FILE_DIRECTORY] = {"a directory", "give a file"},
    [ETK_FILE_EMPTY] = {"an empty file", "nothing was written to it"},
    [ETK_FILE_DEBUG_BUFFER] = {"a debug buffer",
                               "a debug buffer goes to --debug_buffer_path"},
};

const char *etk_file_kind_describe(etk_file_kind_t kind) {
  if ((unsigned)kind >= sizeof kinds / sizeof kinds[0]) kind = 0;
  return kinds[kind].is;
}

const char *etk_file_kind_hint(etk_file_kind_t kind) {
  if ((unsigned)kind >= sizeof kinds / sizeof kinds[0]) kind = 0;
  return kinds[kind].goes;
}

int etk_file_kind_expect(const char *path, const uint8_t *data, size_t len,
                         etk_file_kind_t want, etk_error_t *err) {
  etk_file_kind_t got =
      data ? etk_file_kind_detect(data, len) : etk_file_kind_of_path(path);
  if (data && len == 0) got = ETK_FILE_EMPTY;
  if (got == want) return ETK_OK;
  if (want == ETK_FILE_DEBUG_BUFFER) {
    /* raw bytes: only a file that is something else is refused */
    if (got == ETK_FILE_UNKNOWN || got == ETK_FILE_EMPTY) return ETK_OK;
  } else if (got == ETK_FILE_UNKNOWN) {
    return ETK_OK; /* the reader says what it found */
  }
  if (want == ETK_FILE_PTE && got == ETK_FILE_PTE_OTHER) return ETK_OK;
  if (path) etk_error_where(err, path);
  const char *what = etk_file_kind_describe(want);
  if (want == ETK_FILE_ZIP) what = "an ETRecord";
  return etk_error_set(
      err, got == ETK_FILE_DIRECTORY ? ETK_E_IO : ETK_E_BAD_IDENTIFIER,
      ETK_NO_OFFSET, "this is %s, not %s: %s", etk_file_kind_describe(got),
      what, etk_file_kind_hint(got));
}

/* ------------------------------------------------------------ name lists */

/* Room kept at the end of the buffer for " and 18446744073709551615 more". */
#define NAME_LIST_TAIL 32

void etk_name_list_init(etk_name_list_t *l, char *out, size_t size) {
  l->out = out;
  l->size = size;
  l->used = 0;
  l->shown = l->more = 0;
  if (out && size) out[0] = 0;
}

void etk_name_list_add(etk_name_list_t *l, const char *name, size_t len) {
  if (!name) len = 0;
  size_t need = len + (l->shown ? 2 : 0);
  if (l->more || !l->out || l->size < NAME_LIST_TAIL ||
      need > l->size - NAME_LIST_TAIL - l->used) {
    l->more++;
    return;
  }
  if (l->shown) {
    memcpy(l->out + l->used, ", ", 2);
    l->used += 2;
  }
  if (len) memcpy(l->out + l->used, name, len);
  l->used += len;
  l->out[l->used] = 0;
  l->shown++;
}

const char *etk_name_list_text(etk_name_list_t *l) {
  if (!l->out || !l->size) return "";
  if (!l->shown && !l->more) {
    snprintf(l->out, l->size, "none");
  } else if (l->more) {
    snprintf(l->out + l->used, l->size - l->used, "%s%zu more",
             l->shown ? " and " : "", l->more);
  }
  return l->out;
}
