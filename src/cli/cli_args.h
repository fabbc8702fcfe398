/*
 * cli_args.h - option parsing and output helpers shared by the analysis
 * subcommands (trace, diff, report, memory).
 *
 * Flags follow `etkit inspect`: "--flag value" or "--flag=value", and
 * '-' and '_' are interchangeable inside a flag name.
 */
#ifndef ETKIT_CLI_ARGS_H
#define ETKIT_CLI_ARGS_H

#include <stddef.h>

#include "etkit/common.h"
#include "etkit/inspector.h"
#include "etkit/render.h"

/* 1 when `arg` is "--name" (then *inline_value = NULL) or "--name=value"
 * (then *inline_value points at value); '-' and '_' match each other. */
int etk_cli_flag(const char *arg, const char *name, const char **inline_value);

/* Prints "etkit <cmd>: <message> (try 'etkit <cmd> --help')"; returns 2. */
int etk_cli_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "etkit <cmd>: <formatted error>"; returns 1. */
int etk_cli_fail_error(const char *cmd, const etk_error_t *err);

/* A non-negative decimal integer; 0 on bad input. */
int etk_cli_parse_size(const char *s, size_t *out);
/* A finite number; 0 on bad input. */
int etk_cli_parse_double(const char *s, double *out);
/* "table", "tsv", "csv", "json"; 0 on bad input. */
int etk_cli_parse_format(const char *s, etk_inspect_format_t *out);

/* Writes `path` ("-" = stdout) all-or-nothing: `fn` renders into a sink on
 * a temporary file that is renamed over `path` only when everything
 * succeeded (etk_outfile_*); on failure nothing is left behind and `err`
 * names the file. */
typedef int (*etk_cli_render_fn)(void *ctx, etk_render_sink_t *sink,
                                 etk_error_t *err);
int etk_cli_write_output(const char *path, etk_cli_render_fn fn, void *ctx,
                         etk_error_t *err);

#endif
