/*
 * cli_args.h - the one argument parser of every `etkit` subcommand, and
 * the option and output helpers they share.
 *
 * Each subcommand describes its options in a table (etk_cli_option_t) and
 * walks argv with etk_cli_next(), which applies the same rules everywhere:
 *
 *   - a long option is "--name value" or "--name=value"; '-' and '_' are
 *     interchangeable inside the name, so upstream inspector_cli's
 *     spellings (--etdump_path) and etkit's (--etdump-path) both work;
 *   - an option may have several names ("etdump_path|etdump") and one
 *     short letter ("-o FILE");
 *   - "--help" and "-h" print the command's usage on stdout (exit 0);
 *   - an unknown option, a missing value, or a value given to a flag is a
 *     usage error: one line naming the argument, exit status 2;
 *   - "-" on its own is a plain argument, "--" ends the options.
 */
#ifndef ETKIT_CLI_ARGS_H
#define ETKIT_CLI_ARGS_H

#include <stddef.h>

#include "etkit/common.h"
#include "etkit/inspector.h"
#include "etkit/render.h"

/* How an option takes its value. */
typedef enum etk_cli_arity {
  ETK_CLI_NO_VALUE,       /* --flag */
  ETK_CLI_VALUE,          /* --name VALUE or --name=VALUE */
  ETK_CLI_OPTIONAL_VALUE, /* --name or --name=VALUE (never the next arg) */
} etk_cli_arity_t;

/* One row of a command's option table.  A row with `store` set is applied
 * by etk_cli_parse() itself: the value (a `const char *` field) or 1 (an
 * `int` field, for a flag) is stored at that offset (+ 1) of the context;
 * ETK_CLI_STRING / ETK_CLI_FLAG write such rows. */
typedef struct etk_cli_option {
  const char *names; /* long names without "--", '|' separated */
  char short_name;   /* 'o' for "-o", or 0 */
  etk_cli_arity_t arity;
  int id;       /* > 0, returned by etk_cli_next() */
  size_t store; /* offsetof(context, field) + 1, or 0 */
} etk_cli_option_t;
/* offsetof(type, field) + 1, and a compile error unless the field has the
 * size of `kind` */
#define ETK_CLI_FIELD(type, field, kind) \
  (offsetof(type, field) + 1 +           \
   0 * sizeof(char[sizeof(((type *)0)->field) == sizeof(kind) ? 1 : -1]))
#define ETK_CLI_STRING(names, short_name, type, field) \
  { names, short_name, ETK_CLI_VALUE, 999, ETK_CLI_FIELD(type, field, char *) }
#define ETK_CLI_FLAG(names, short_name, type, field) \
  { names, short_name, ETK_CLI_NO_VALUE, 999, ETK_CLI_FIELD(type, field, int) }

/* The Inspector's three input files, spelled as upstream's Inspector
 * arguments with the short aliases: --etdump_path, --etrecord_path and
 * --debug_buffer_path into the char * fields etdump, etrecord and
 * debug_buffer of `type` (inspect and report share them). */
#define ETK_CLI_INSPECTOR_FILES(type)                              \
  ETK_CLI_STRING("etdump_path|etdump", 0, type, etdump),           \
      ETK_CLI_STRING("etrecord_path|etrecord", 0, type, etrecord), \
      ETK_CLI_STRING("debug_buffer_path|debug_buffer", 0, type, debug_buffer)

/* Ids of the options etk_cli_time_option() handles; a command lists the
 * rows it supports (ETK_CLI_TIME_OPTIONS or a subset). */
enum {
  ETK_CLI_OPT_SOURCE_TIME_SCALE = 1000,
  ETK_CLI_OPT_TARGET_TIME_SCALE,
  ETK_CLI_OPT_CLOCK_HZ,
};
#define ETK_CLI_SOURCE_TIME_OPTION \
  { "source_time_scale", 0, ETK_CLI_VALUE, ETK_CLI_OPT_SOURCE_TIME_SCALE, 0 }
#define ETK_CLI_TARGET_TIME_OPTION \
  { "target_time_scale", 0, ETK_CLI_VALUE, ETK_CLI_OPT_TARGET_TIME_SCALE, 0 }
#define ETK_CLI_CLOCK_OPTION \
  { "clock_hz", 0, ETK_CLI_VALUE, ETK_CLI_OPT_CLOCK_HZ, 0 }
#define ETK_CLI_TIME_OPTIONS \
  ETK_CLI_SOURCE_TIME_OPTION, ETK_CLI_TARGET_TIME_OPTION, ETK_CLI_CLOCK_OPTION

/* The walk over argv.  After etk_cli_next() returns an option id, `arg`
 * is the option as written (without "=value") and `value` its value (NULL
 * for a flag); after ETK_CLI_POSITIONAL, `value` is the argument. */
typedef struct etk_cli_parser {
  const char *cmd;   /* "inspect": names the command in messages */
  const char *usage; /* printed by --help */
  const etk_cli_option_t *options;
  size_t option_count;
  int argc;
  char **argv;
  int index;
  int options_ended; /* after "--" */
  const char *value;
  size_t store; /* the option's `store` */
  char arg[128];
} etk_cli_parser_t;

enum {
  ETK_CLI_DONE = 0,        /* no argument left */
  ETK_CLI_POSITIONAL = -1, /* a plain argument, in p->value */
  ETK_CLI_HELP = -2,       /* --help: usage printed, exit 0 */
  ETK_CLI_ERROR = -3,      /* usage error printed, exit 2 */
};

/* Starts a walk over argv[1..argc) (argv[0] is the subcommand). */
void etk_cli_parser_init(etk_cli_parser_t *p, const char *cmd,
                         const char *usage, const etk_cli_option_t *options,
                         size_t option_count, int argc, char **argv);

/* The next option's id, or one of ETK_CLI_DONE / _POSITIONAL / _HELP /
 * _ERROR (see above). */
int etk_cli_next(etk_cli_parser_t *p);

/* The whole walk: calls apply(ctx, p, id) for every option and plain
 * argument (id ETK_CLI_POSITIONAL); apply returns 0 or an exit status that
 * stops the walk.  Returns -1 after --help (exit 0), 0 when every argument
 * was applied, else the exit status (2 for a usage error). */
typedef int (*etk_cli_apply_fn)(void *ctx, const etk_cli_parser_t *p, int id);
int etk_cli_parse(const char *cmd, const char *usage,
                  const etk_cli_option_t *options, size_t option_count,
                  int argc, char **argv, etk_cli_apply_fn apply, void *ctx);
#define ETK_CLI_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* Handles the time options (ETK_CLI_OPT_* above): parses the value into
 * *source / *target / *clock_hz (a NULL pointer: the command has no such
 * option).  Returns 1 when `id` is one of them and its value is valid, 0
 * when `id` is not a time option, ETK_CLI_ERROR after a usage error. */
int etk_cli_time_option(const etk_cli_parser_t *p, int id,
                        etk_time_scale_t *source, etk_time_scale_t *target,
                        double *clock_hz);

/* Checks that source and target scales can be converted (cycles need a
 * clock); prints the reason and returns 1 when not, else 0 (the commands
 * exit 2: a usage mistake). */
int etk_cli_time_check(const char *cmd, const etk_inspector_options_t *io);

/* When `value` is NULL prints "etkit <cmd>: the following argument is
 * required: <what> (try ...)" and returns 2; else returns 0. */
int etk_cli_require(const char *cmd, const void *value, const char *what);

/* --block INDEX|NAME: adds `v` to the index or the name list of a block
 * selection (ETK_INSPECT_MAX_SELECT entries each); 0 or exit status 2. */
int etk_cli_add_block(const char *cmd, const char *v, size_t *index,
                      size_t *index_count, const char **name,
                      size_t *name_count);

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

/* Value parsers that print the usage error themselves: 0 when the value
 * was stored, ETK_CLI_ERROR otherwise.  --format, --json-indent (0..16),
 * a positive integer (--top N), a positive number (--clock-hz). */
int etk_cli_format_value(const etk_cli_parser_t *p, etk_inspect_format_t *out);
int etk_cli_json_indent_value(const etk_cli_parser_t *p, int *out);
int etk_cli_positive_size_value(const etk_cli_parser_t *p, size_t *out);

/* Checks, before any work, that `path` (NULL: none; "-" = stdout, always
 * fine) can be
 * written: its directory accepts a new file (a temporary file is created
 * and removed), or it is an existing writable device/FIFO (not opened).
 * Prints "etkit <cmd>: <path>: <reason>" and returns 1 when not.  An
 * existing file that another argument of the command line also names
 * (the same file, also through hard or symbolic links: an input, or a
 * second output) is refused with one line, returning 2, before anything
 * is written. */
int etk_cli_check_output(const char *cmd, const char *path);

/* Prints "etkit <cmd>: warning: <path> is not used ..." when a debug buffer
 * of `len` > 0 bytes was given with an ETDump that logs no tensor values
 * (a buffer of another run): its values would silently be ignored. */
void etk_cli_warn_unused_buffer(const char *cmd, const char *path,
                                const etk_inspector_t *insp, size_t len);

/* Writes `path` ("-" = stdout) all-or-nothing: `fn` renders into a sink on
 * a temporary file that is renamed over `path` only when everything
 * succeeded (etk_outfile_*); on failure nothing is left behind and `err`
 * names the file. */
typedef int (*etk_cli_render_fn)(void *ctx, etk_render_sink_t *sink,
                                 etk_error_t *err);
int etk_cli_write_output(const char *path, etk_cli_render_fn fn, void *ctx,
                         etk_error_t *err);

/* After a file was written: one line on stderr, "etkit <cmd>: wrote
 * <path>" and, when `fmt` is not NULL, ": " and the details (what it
 * holds), as `etkit trace` says it.  Nothing for NULL or "-" (stdout):
 * machine-readable stdout stays as it is.  (cli_term.c) */
void etk_cli_say_wrote(const char *cmd, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
