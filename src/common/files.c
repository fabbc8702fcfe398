/*
 * files.c - whole-file reads and all-or-nothing writes.
 *
 * Output files are written under a temporary name in the same directory and
 * renamed into place only when complete, so an interrupted or failed command
 * never leaves a file that looks finished.
 *
 * Temporary names on a signal: every open temporary file's name sits in one
 * of the fixed slots of `live` (a plain char array, filled before its
 * `used` flag is raised and dropped after the file is renamed or removed).
 * etk_outfile_cleanup_on_signals() installs a SIGINT/SIGTERM/SIGHUP handler
 * (only where the disposition is still the default) that unlinks the names
 * of the raised slots and re-raises the signal with the default action: it
 * calls only unlink(), sigaction() and raise(), which are async-signal-safe,
 * and reads nothing that a half-done update could leave inconsistent (a slot
 * is used only when its name is complete).  A name that does not fit a slot
 * is simply not cleaned up on a signal.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etkit/common.h"

int etk_read_file(const char *path, uint64_t max_len, uint8_t **data,
                  size_t *len, etk_error_t *err) {
  if (!path || !data || !len)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *data = NULL;
  *len = 0;
  if (max_len == 0) max_len = (uint64_t)4 << 30;
  FILE *f = fopen(path, "rb");
  if (!f) {
    etk_error_where(err, path);
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                         "cannot open input file: %s", strerror(errno));
  }
  struct stat st;
  int have_st = fstat(fileno(f), &st) == 0;
  if (have_st && S_ISDIR(st.st_mode)) {
    fclose(f);
    etk_error_where(err, path);
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                         "this is a directory, not a file: give a file");
  }
  size_t cap = 1 << 16, n = 0;
  /* a regular file: its size plus one, so that the end is seen without
   * growing (a file that grows meanwhile still doubles the buffer) */
  if (have_st && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uint64_t)st.st_size < max_len && (uint64_t)st.st_size < SIZE_MAX / 2)
    cap = (size_t)st.st_size + 1;
  uint8_t *buf = malloc(cap + 1);
  for (;;) {
    if (!buf) {
      fclose(f);
      etk_error_where(err, path);
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory reading the input file");
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n > max_len) {
      free(buf);
      fclose(f);
      etk_error_where(err, path);
      return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                           "input file is larger than the limit of %llu bytes",
                           (unsigned long long)max_len);
    }
    if (got == 0) break;
    if (n == cap) {
      cap *= 2;
      uint8_t *bigger = realloc(buf, cap + 1);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    free(buf);
    etk_error_where(err, path);
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                         "read error in the input file");
  }
  buf[n] = 0;
  *data = buf;
  *len = n;
  return ETK_OK;
}

/* ----------------------------------------------- temporary names on signals */

#define LIVE_SLOTS 8

static struct {
  volatile sig_atomic_t used;
  char path[4096];
} live[LIVE_SLOTS];

/* Remembers `tmp` for the signal handler; returns its slot or -1. */
static int live_add(const char *tmp) {
  for (int i = 0; i < LIVE_SLOTS; i++)
    if (!live[i].used && strlen(tmp) < sizeof live[i].path) {
      memcpy(live[i].path, tmp, strlen(tmp) + 1);
      live[i].used = 1;
      return i;
    }
  return -1;
}

static void live_drop(const char *tmp) {
  for (int i = 0; i < LIVE_SLOTS; i++)
    if (live[i].used && strcmp(live[i].path, tmp) == 0) {
      live[i].used = 0;
      return;
    }
}

static void cleanup_and_reraise(int sig) {
  for (int i = 0; i < LIVE_SLOTS; i++)
    if (live[i].used) unlink(live[i].path);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  raise(sig);
}

void etk_outfile_cleanup_on_signals(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old;
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO))
      continue; /* someone else handles (or ignores) it */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cleanup_and_reraise;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

/* ------------------------------------------------------------ same file */

int etk_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (!a || !b || stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ---------------------------------------------------------- output files */

int etk_outfile_open(etk_outfile_t *of, const char *path, etk_error_t *err) {
  if (!of || !path)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  memset(of, 0, sizeof *of);
  if (strcmp(path, "-") == 0) {
    of->fp = stdout;
    of->is_stdout = 1;
    return ETK_OK;
  }
  if (strlen(path) + 32 >= sizeof of->path) {
    etk_error_where(err, path);
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "path too long");
  }
  snprintf(of->path, sizeof of->path, "%s", path);
  /* A device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written in
   * place: renaming a temporary file over it would replace the device with
   * a regular file. */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    of->fp = fopen(path, "wb");
    if (!of->fp) {
      etk_error_where(err, path);
      return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                           "cannot open output file: %s", strerror(errno));
    }
    of->is_special = 1;
    return ETK_OK;
  }
  snprintf(of->tmp_path, sizeof of->tmp_path, "%s.tmp.%ld", path,
           (long)getpid());
  live_add(of->tmp_path);
  of->fp = fopen(of->tmp_path, "wb");
  if (!of->fp) {
    live_drop(of->tmp_path);
    etk_error_where(err, path);
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                         "cannot create output file: %s", strerror(errno));
  }
  /* a 1 MiB buffer: a renderer's 16 KiB puts become one write() per MiB
   * (a 720 MB JSON took 95,000 writes with the default 4 KiB); glibc
   * ignores the size without a buffer, and none is fine too */
  of->buf = malloc((size_t)1 << 20);
  if (of->buf) setvbuf(of->fp, of->buf, _IOFBF, (size_t)1 << 20);
  return ETK_OK;
}

int etk_outfile_commit(etk_outfile_t *of, etk_error_t *err) {
  if (!of || !of->fp)
    return etk_error_set(err, ETK_E_INVALID_STATE, ETK_NO_OFFSET,
                         "output file is not open");
  if (of->is_stdout) {
    int bad = fflush(stdout) != 0 || ferror(stdout);
    of->fp = NULL;
    return bad ? etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                               "error writing standard output")
               : ETK_OK;
  }
  int bad = ferror(of->fp);
  if (fclose(of->fp) != 0) bad = 1;
  of->fp = NULL;
  free(of->buf);
  of->buf = NULL;
  if (of->is_special)
    return bad ? etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET, "error writing %s",
                               of->path)
               : ETK_OK;
  if (bad || rename(of->tmp_path, of->path) != 0) {
    int e = errno;
    remove(of->tmp_path);
    live_drop(of->tmp_path);
    etk_error_where(err, of->path);
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                         "cannot write output file: %s", strerror(e));
  }
  live_drop(of->tmp_path);
  return ETK_OK;
}

void etk_outfile_abort(etk_outfile_t *of) {
  if (!of || !of->fp) return;
  if (!of->is_stdout) {
    fclose(of->fp);
    free(of->buf);
    of->buf = NULL;
    if (!of->is_special) {
      remove(of->tmp_path);
      live_drop(of->tmp_path);
    }
  }
  of->fp = NULL;
}

int etk_write_file(const char *path, const void *data, size_t len,
                   etk_error_t *err) {
  etk_outfile_t of;
  int rc = etk_outfile_open(&of, path, err);
  if (rc != ETK_OK) return rc;
  if (len && fwrite(data, 1, len, of.fp) != len) {
    etk_outfile_abort(&of);
    etk_error_where(err, path);
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                         "short write to the output file");
  }
  return etk_outfile_commit(&of, err);
}
