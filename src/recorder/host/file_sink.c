/*
 * file_sink.c - a data sink that appends tensor bytes to a host file
 * (upstream FileDataSink).
 *
 * PURPOSE
 *   On a host (or an MCU with a file system and stdio) the debug buffer can
 *   go straight to a file: the offset of each tensor is the file position
 *   it was written at.  No alignment, like upstream.
 *
 * DATA LAYOUT
 *   etk_file_sink_t keeps the FILE * (as void *, so that the public header
 *   needs no <stdio.h>) and the running byte count.
 *
 * INVARIANTS
 *   - `written` equals the bytes successfully handed to fwrite.
 *   - After close (or a failed open) fp is NULL and every write returns
 *     ETK_E_IO (upstream: AccessFailed).
 *   Compiled only when ETK_RECORDER_HOST is 1; MCU builds leave it out.
 */
#if defined(ETK_RECORDER_HOST) && ETK_RECORDER_HOST
#include <stdio.h>

#include "etkit/recorder.h"
#include "../sink_adapter.h"

int etk_file_sink_open(etk_file_sink_t *s, const char *path) {
  FILE *fp;
  if (s == NULL) return ETK_E_INVALID_ARGUMENT;
  s->fp = NULL;
  s->written = 0;
  if (path == NULL) return ETK_E_INVALID_ARGUMENT;
  if (path[0] == '\0') return ETK_E_IO;
  fp = fopen(path, "wb");
  if (fp == NULL) return ETK_E_IO;
  s->fp = fp;
  return ETK_OK;
}

int etk_file_sink_write(etk_file_sink_t *s, const void *data, size_t len,
                        uint64_t *offset) {
  if (s == NULL || offset == NULL || (data == NULL && len != 0))
    return ETK_E_INVALID_ARGUMENT;
  if (s->fp == NULL) return ETK_E_IO;
  if (len != 0 && fwrite(data, 1, len, (FILE *)s->fp) != len) return ETK_E_IO;
  *offset = s->written;
  s->written += len;
  return ETK_OK;
}

uint64_t etk_file_sink_used(const etk_file_sink_t *s) {
  return s != NULL ? s->written : 0;
}

int etk_file_sink_close(etk_file_sink_t *s) {
  int status = ETK_OK;
  if (s == NULL) return ETK_E_INVALID_ARGUMENT;
  if (s->fp != NULL) {
    if (fclose((FILE *)s->fp) != 0) status = ETK_E_IO;
    s->fp = NULL;
  }
  return status;
}

ETK_DEFINE_SINK_ADAPTER(etk_file_sink, etk_file_sink_t)
#else
/* ISO C forbids an empty translation unit. */
typedef int etk_file_sink_unused_t;
#endif
