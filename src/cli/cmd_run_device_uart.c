/*
 * cmd_run_device_uart.c - `etkit run --target BOARD --transport uart`: the
 * firmware sends its files framed over the board's UART (etkit/transport.h)
 * instead of semihosting; QEMU's serial output is kept in a log, which the
 * capture library (etkit/capture.h) decodes into the run's private folder,
 * where cmd_run_device.c picks the files up as after a semihosting run.
 */
#define _POSIX_C_SOURCE 200809L
#include "cmd_run_device.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/capture.h"
#include "etkit/common.h"

typedef struct collect {
  const char *dir;
  int rc;
  char problem[256];
  size_t files;
} collect_t;

static int on_file(void *ctx, const etk_capture_file_t *f) {
  collect_t *c = ctx;
  char path[PATH_MAX];
  etk_error_t err;
  etk_error_clear(&err);
  if (!f->complete) {
    snprintf(c->problem, sizeof c->problem,
             "%.60s came over the UART damaged: %.160s", f->name,
             f->problem_count ? f->problems[0] : "incomplete");
    return c->rc = ETK_E_FORMAT;
  }
  if (strchr(f->name, '/') || f->name[0] == '.') {
    snprintf(c->problem, sizeof c->problem, "unexpected file name '%.60s'",
             f->name);
    return c->rc = ETK_E_FORMAT;
  }
  int n = snprintf(path, sizeof path, "%s/%s%s", c->dir,
                   f->kind == ETK_TX_KIND_OUTPUT ? "out/" : "", f->name);
  if (n < 0 || (size_t)n >= sizeof path ||
      etk_write_file(path, f->data, f->size, &err) != ETK_OK) {
    snprintf(c->problem, sizeof c->problem, "%.60s: %.160s", f->name,
             err.message[0] ? err.message : "path too long");
    return c->rc = ETK_E_IO;
  }
  c->files++;
  return 0;
}

int cli_device_collect_uart(const char *log, const char *dir, char *problem,
                            size_t problem_size) {
  uint8_t *data = NULL;
  size_t len = 0;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_read_file(log, 0, &data, &len, &err) != ETK_OK) {
    snprintf(problem, problem_size, "%s", err.message);
    return -1;
  }
  collect_t c;
  memset(&c, 0, sizeof c);
  c.dir = dir;
  etk_capture_callbacks_t cb = {on_file, NULL, &c};
  etk_capture_stats_t st;
  int rc = etk_capture_buffer(data, len, &cb, &st);
  free(data);
  if (c.rc || rc) {
    snprintf(problem, problem_size, "%s",
             c.problem[0] ? c.problem : "the UART stream could not be read");
    return -1;
  }
  if (!st.ended) {
    snprintf(problem, problem_size,
             "the UART stream has no end-of-stream frame (%zu files)", c.files);
    return -1;
  }
  fprintf(stderr,
          "etkit run: %zu file%s over the UART, %llu bytes on the wire\n",
          c.files, c.files == 1 ? "" : "s", (unsigned long long)st.bytes);
  return 0;
}
