/*
 * cli_args.c - option parsing and all-or-nothing output for the analysis
 * subcommands (see cli_args.h).
 */
#include "cli_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int etk_cli_flag(const char *arg, const char *name, const char **inline_value) {
  if (arg[0] != '-' || arg[1] != '-') return 0;
  const char *a = arg + 2, *n = name;
  while (*n && *a && *a != '=') {
    char x = *a == '-' ? '_' : *a, y = *n == '-' ? '_' : *n;
    if (x != y) return 0;
    a++;
    n++;
  }
  if (*n) return 0;
  if (*a == '=') {
    *inline_value = a + 1;
    return 1;
  }
  if (*a) return 0;
  *inline_value = NULL;
  return 1;
}

int etk_cli_usage(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "etkit %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (try 'etkit %s --help')\n", cmd);
  return 2;
}

int etk_cli_fail_error(const char *cmd, const etk_error_t *err) {
  char line[ETK_ERROR_LINE_SIZE];
  fprintf(stderr, "etkit %s: %s\n", cmd,
          etk_error_format(err, line, sizeof line));
  return 1;
}

int etk_cli_parse_size(const char *s, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-' || s[0] == '+') return 0;
  *out = (size_t)v;
  return 1;
}

int etk_cli_parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || v != v || v - v != 0) return 0;
  *out = v;
  return 1;
}

int etk_cli_parse_format(const char *s, etk_inspect_format_t *out) {
  static const char *const names[] = {"table", "tsv", "csv", "json"};
  for (int i = 0; i < 4; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (etk_inspect_format_t)i;
      return 1;
    }
  return 0;
}

int etk_cli_write_output(const char *path, etk_cli_render_fn fn, void *ctx,
                         etk_error_t *err) {
  etk_outfile_t of;
  int rc = etk_outfile_open(&of, path, err);
  if (rc != ETK_OK) return rc;
  etk_render_sink_t *sink = malloc(sizeof *sink);
  if (!sink) {
    etk_outfile_abort(&of);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  etk_render_sink_init_file(sink, of.fp);
  rc = fn(ctx, sink, err);
  if (rc == ETK_OK) rc = etk_render_sink_flush(sink);
  free(sink);
  if (rc != ETK_OK) {
    if (err && err->code == ETK_OK)
      etk_error_set(err, rc, ETK_NO_OFFSET, "writing failed: %s",
                    etk_strerror(rc));
    etk_error_where(err, strcmp(path, "-") == 0 ? "<stdout>" : path);
    etk_outfile_abort(&of);
    return rc;
  }
  return etk_outfile_commit(&of, err);
}
