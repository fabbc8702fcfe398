/*
 * cli_args.c - the table-driven argument parser of every subcommand, the
 * value parsers and time options they share, and all-or-nothing output
 * (see cli_args.h for the rules).
 *
 * Layout: name matching and etk_cli_next() first, then the shared value
 * parsers (time scales, formats, sizes), then output files.  The parser
 * never allocates; option values point into argv.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when the `n` bytes at `written` equal one of the '|'-separated names,
 * with '-' and '_' interchangeable. */
static int names_match(const char *names, const char *written, size_t n) {
  for (const char *name = names; *name;) {
    size_t len = strcspn(name, "|");
    if (len == n) {
      size_t k = 0;
      for (; k < n; k++) {
        char x = written[k] == '-' ? '_' : written[k];
        char y = name[k] == '-' ? '_' : name[k];
        if (x != y) break;
      }
      if (k == n) return 1;
    }
    name += len;
    if (*name == '|') name++;
  }
  return 0;
}

/* The command line of the last walk, which etk_cli_check_output() compares
 * outputs with (one command runs per process). */
static struct {
  const etk_cli_option_t *options;
  size_t option_count;
  int argc;
  char **argv;
} walked;

void etk_cli_parser_init(etk_cli_parser_t *p, const char *cmd,
                         const char *usage, const etk_cli_option_t *options,
                         size_t option_count, int argc, char **argv) {
  walked.options = options;
  walked.option_count = option_count;
  walked.argc = argc;
  walked.argv = argv;
  memset(p, 0, sizeof *p);
  p->cmd = cmd;
  p->usage = usage;
  p->options = options;
  p->option_count = option_count;
  p->argc = argc;
  p->argv = argv;
  p->index = 1;
}

/* The table row for "--name" (long) or "-x" (short), or NULL. */
static const etk_cli_option_t *find_option(const etk_cli_parser_t *p,
                                           const char *name, size_t n,
                                           int is_long) {
  for (size_t i = 0; i < p->option_count; i++) {
    const etk_cli_option_t *o = &p->options[i];
    if (is_long ? names_match(o->names, name, n)
                : (n == 1 && o->short_name && o->short_name == name[0]))
      return o;
  }
  return NULL;
}

int etk_cli_next(etk_cli_parser_t *p) {
  p->value = NULL;
  p->store = 0;
  p->arg[0] = 0;
  if (p->index >= p->argc) return ETK_CLI_DONE;
  const char *a = p->argv[p->index++];
  if (p->options_ended || a[0] != '-' || a[1] == 0) {
    p->value = a;
    return ETK_CLI_POSITIONAL;
  }
  if (strcmp(a, "--") == 0) {
    p->options_ended = 1;
    return etk_cli_next(p);
  }
  int is_long = a[1] == '-';
  const char *name = a + (is_long ? 2 : 1);
  const char *eq = is_long ? strchr(name, '=') : NULL;
  size_t n = eq ? (size_t)(eq - name) : strlen(name);
  snprintf(p->arg, sizeof p->arg, "%.*s", (int)(name - a + n), a);
  if ((is_long && names_match("help", name, n)) ||
      (!is_long && strcmp(name, "h") == 0)) {
    if (eq) {
      etk_cli_usage(p->cmd, "option %s takes no value", p->arg);
      return ETK_CLI_ERROR;
    }
    fputs(p->usage, stdout);
    return ETK_CLI_HELP;
  }
  const etk_cli_option_t *o = find_option(p, name, n, is_long);
  if (!o || n == 0) {
    etk_cli_usage(p->cmd, "unknown argument '%s'", a);
    return ETK_CLI_ERROR;
  }
  if (eq) {
    if (o->arity == ETK_CLI_NO_VALUE) {
      etk_cli_usage(p->cmd, "option %s takes no value", p->arg);
      return ETK_CLI_ERROR;
    }
    p->value = eq + 1;
  } else if (o->arity == ETK_CLI_VALUE) {
    if (p->index >= p->argc) {
      etk_cli_usage(p->cmd, "option %s needs a value", p->arg);
      return ETK_CLI_ERROR;
    }
    p->value = p->argv[p->index++];
  }
  p->store = o->store;
  return o->id;
}

int etk_cli_parse(const char *cmd, const char *usage,
                  const etk_cli_option_t *options, size_t option_count,
                  int argc, char **argv, etk_cli_apply_fn apply, void *ctx) {
  etk_cli_parser_t p;
  etk_cli_parser_init(&p, cmd, usage, options, option_count, argc, argv);
  int id;
  while ((id = etk_cli_next(&p)) != ETK_CLI_DONE) {
    if (id == ETK_CLI_HELP) return -1;
    if (id == ETK_CLI_ERROR) return 2;
    if (p.store) {
      char *field = (char *)ctx + p.store - 1;
      if (p.value) {
        memcpy(field, &p.value, sizeof p.value);
      } else {
        int one = 1;
        memcpy(field, &one, sizeof one);
      }
      continue;
    }
    int rc = apply(ctx, &p, id);
    if (rc) return rc;
  }
  return 0;
}

int etk_cli_time_option(const etk_cli_parser_t *p, int id,
                        etk_time_scale_t *source, etk_time_scale_t *target,
                        double *clock_hz) {
  if (id == ETK_CLI_OPT_SOURCE_TIME_SCALE ||
      id == ETK_CLI_OPT_TARGET_TIME_SCALE) {
    etk_time_scale_t *dst =
        id == ETK_CLI_OPT_SOURCE_TIME_SCALE ? source : target;
    if (!dst) return 0;
    if (etk_time_scale_parse(p->value, dst) != ETK_OK) {
      etk_cli_usage(p->cmd,
                    "invalid time scale '%s' (choose from ns, us, ms, s, "
                    "cycles)",
                    p->value);
      return ETK_CLI_ERROR;
    }
    return 1;
  }
  if (id == ETK_CLI_OPT_CLOCK_HZ && clock_hz) {
    if (!etk_cli_parse_double(p->value, clock_hz) || !(*clock_hz > 0)) {
      etk_cli_usage(p->cmd, "--clock-hz needs a positive number, not '%s'",
                    p->value);
      return ETK_CLI_ERROR;
    }
    return 1;
  }
  return 0;
}

int etk_cli_time_check(const char *cmd, const etk_inspector_options_t *io) {
  etk_error_t err;
  etk_error_clear(&err);
  double factor;
  if (etk_time_scale_factor(io->source_time_scale, io->target_time_scale,
                            io->clock_hz, &factor, &err) != ETK_OK)
    return etk_cli_fail_error(cmd, &err);
  return 0;
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

int etk_cli_require(const char *cmd, const void *value, const char *what) {
  if (value) return 0;
  return etk_cli_usage(cmd, "the following argument is required: %s", what);
}

int etk_cli_add_block(const char *cmd, const char *v, size_t *index,
                      size_t *index_count, const char **name,
                      size_t *name_count) {
  size_t idx;
  int is_index = etk_cli_parse_size(v, &idx);
  if ((is_index ? *index_count : *name_count) == ETK_INSPECT_MAX_SELECT)
    return etk_cli_usage(cmd, "too many blocks selected at '%s'", v);
  if (is_index)
    index[(*index_count)++] = idx;
  else
    name[(*name_count)++] = v;
  return 0;
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

int etk_cli_format_value(const etk_cli_parser_t *p, etk_inspect_format_t *out) {
  if (etk_cli_parse_format(p->value, out)) return 0;
  etk_cli_usage(p->cmd,
                "invalid format '%s' (choose from table, tsv, csv, json)",
                p->value);
  return ETK_CLI_ERROR;
}

int etk_cli_json_indent_value(const etk_cli_parser_t *p, int *out) {
  size_t n;
  if (!etk_cli_parse_size(p->value, &n) || n > 16) {
    etk_cli_usage(p->cmd,
                  "--json-indent needs an integer from 0 to 16, not '%s'",
                  p->value);
    return ETK_CLI_ERROR;
  }
  *out = (int)n;
  return 0;
}

int etk_cli_positive_size_value(const etk_cli_parser_t *p, size_t *out) {
  if (etk_cli_parse_size(p->value, out) && *out > 0) return 0;
  etk_cli_usage(p->cmd, "%s needs a positive integer, not '%s'", p->arg,
                p->value);
  return ETK_CLI_ERROR;
}

/* 2 after printing why, when the regular file `path` is also named by
 * another argument of the command line (an input, or a second output):
 * writing it would destroy that file.  `path` itself (a pointer into argv)
 * is skipped. */
static int check_not_an_input(const char *cmd, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  for (int i = 1; i < walked.argc; i++) {
    const char *a = walked.argv[i];
    size_t alen = strlen(a);
    if (path >= a && path <= a + alen) continue; /* the output itself */
    const char *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
    const char *file = eq ? eq + 1 : a;
    if (!eq && a[0] == '-') continue; /* an option's name, or "-" */
    if (!etk_same_file(path, file)) continue;
    const char *given = NULL;
    if (eq) {
      given = a;
    } else if (i > 1 && walked.argv[i - 1][0] == '-') {
      const char *o = walked.argv[i - 1] + 1;
      int is_long = *o == '-';
      o += is_long;
      const etk_cli_option_t *row = NULL;
      etk_cli_parser_t q;
      q.options = walked.options;
      q.option_count = walked.option_count;
      if (!strchr(o, '=')) row = find_option(&q, o, strlen(o), is_long);
      if (row && row->arity == ETK_CLI_VALUE) given = walked.argv[i - 1];
    }
    if (given && eq)
      fprintf(stderr,
              "etkit %s: %s: the output is the same file as the input %s: "
              "refusing to overwrite it (choose another output name)\n",
              cmd, path, given);
    else if (given)
      fprintf(stderr,
              "etkit %s: %s: the output is the same file as the input %s "
              "%s: refusing to overwrite it (choose another output name)\n",
              cmd, path, given, file);
    else
      fprintf(stderr,
              "etkit %s: %s: the output is the same file as the input %s: "
              "refusing to overwrite it (choose another output name)\n",
              cmd, path, file);
    return 2;
  }
  return 0;
}

int etk_cli_check_output(const char *cmd, const char *path) {
  if (!path || strcmp(path, "-") == 0) return 0;
  int rc = check_not_an_input(cmd, path);
  if (rc) return rc;
  etk_error_t err;
  etk_error_clear(&err);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    etk_error_where(&err, path);
    etk_error_set(&err, ETK_E_IO, ETK_NO_OFFSET,
                  "cannot write the output: it is a directory");
    return etk_cli_fail_error(cmd, &err);
  }
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    /* a device or FIFO: opening a FIFO would wait for a reader */
    if (access(path, W_OK) == 0) return 0;
    etk_error_where(&err, path);
    etk_error_set(&err, ETK_E_IO, ETK_NO_OFFSET, "cannot open: %s",
                  strerror(errno));
    return etk_cli_fail_error(cmd, &err);
  }
  etk_outfile_t of;
  if (etk_outfile_open(&of, path, &err) != ETK_OK)
    return etk_cli_fail_error(cmd, &err);
  etk_outfile_abort(&of);
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

void etk_cli_warn_unused_buffer(const char *cmd, const char *path,
                                const etk_inspector_t *insp, size_t len) {
  if (!path || !insp || len == 0) return;
  if (etk_etdump_logged_tensor_count(etk_inspector_etdump(insp)) == 0)
    fprintf(stderr,
            "etkit %s: warning: %s is not used: the ETDump logs no tensor "
            "values (a debug buffer of another run, or a run without "
            "--debug-level?)\n",
            cmd, path);
}
