/*
 * cmd_store.c - `etkit store SUBCOMMAND`: the run history of etkit/store.h.
 * This file parses the command line and runs add, runs, show, trend and
 * latency; cmd_store_compare.c runs compare, export, report, drift and
 * prune.  Queries take --format table|csv|json and -o FILE (atomic).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cmd_store_compare.h"
#include "commands.h"

#define CMD "store"

static const char *const usage_text =
    "usage: etkit store SUBCOMMAND DB [args] [options]\n"
    "\n"
    "Keeps every profiled run in a database and compares sets of runs.\n"
    "DB is a SQLite file (created by add) or a postgresql:// URI.\n"
    "\n"
    "  add DB FILE.etdp... [--etrecord E] [--program P] [--tag k=v]...\n"
    "          [--run-time T] [--debug-buffer B]\n"
    "  runs DB [--where k=v]...\n"
    "  show DB RUN\n"
    "  trend DB --op NAME|--module PATH|--method NAME [--where k=v]...\n"
    "  latency DB [--op NAME] [--where k=v]...  stats-mode sketches merged\n"
    "  compare DB --baseline k=v... --candidate k=v... [--op NAME\n"
    "          [--instruction ID]] [--fail-above PCT] [--threshold PCT]\n"
    "          [--min-delta MS] [--alpha Q] [--all-rows]\n"
    "  export DB --format csv|json|v3 [--where k=v]...\n"
    "  report DB --baseline k=v... --candidate k=v... -o report.html|.md\n"
    "  prune DB [--where k=v]... [--keep-last N] [--dry-run]\n"
    "  drift DB --baseline k=v... --candidate k=v... [--fail-above PCT]\n"
    "          STATS (added with --debug-buffer): NaN/Inf, p99_abs shift\n"
    "\n"
    "options:\n"
    "  --format table|csv|json     output of queries (table)\n"
    "  -o, --output FILE           write there (atomically), not stdout\n"
    "  --threshold PCT             smallest change compare reports (2)\n"
    "  --min-delta MS              ... and smallest shift, in ms (0); a\n"
    "                              change under one timer step never counts\n"
    "  --alpha Q                   false-discovery rate of compare (0.05)\n"
    "  --all-rows                  also compare OPERATOR_CALL wrappers\n"
    "  --fail-above PCT            exit 1 when a significant slow-down\n"
    "                              exceeds PCT %\n"
    "  --dry-run                   prune: list the runs, delete nothing\n"
    "  --wide                      runs, show, trend, compare: every\n"
    "                              column, whole texts (the tables fit 120\n"
    "                              columns without)\n"
    "  --run-time T                add: when the run was made (ISO 8601,\n"
    "                              UTC unless it has a zone); since=\n"
    "                              selects on it, else on the add's time\n"
    "  -h, --help                  this help\n"
    "\n"
    "compare and drift are gates: exit 0 holds, 1 --fail-above failed, 2\n"
    "trouble (no matching run, an --op naming nothing, nothing compared, a\n"
    "database error): docs/exit-status.md.  Others exit 1 on errors.\n"
    "trend and compare read stats-mode runs (etkit run --profile-mode stats)\n"
    "from their latency sketches (docs/store.md).\n";

enum {
  OPT_TAG = 1,
  OPT_WHERE,
  OPT_BASELINE,
  OPT_CANDIDATE,
  OPT_FAIL_ABOVE,
  OPT_THRESHOLD,
  OPT_ALPHA,
  OPT_KEEP_LAST,
  OPT_MIN_DELTA,
};

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("output", 'o', store_cli_t, output),
    ETK_CLI_STRING("etrecord|etrecord_path", 0, store_cli_t, etrecord),
    ETK_CLI_STRING("program", 0, store_cli_t, program),
    ETK_CLI_STRING("format", 0, store_cli_t, format_name),
    ETK_CLI_STRING("op", 0, store_cli_t, op),
    ETK_CLI_STRING("module", 0, store_cli_t, module),
    ETK_CLI_STRING("method", 0, store_cli_t, method),
    {"tag", 0, ETK_CLI_VALUE, OPT_TAG, 0},
    {"where", 0, ETK_CLI_VALUE, OPT_WHERE, 0},
    {"baseline", 0, ETK_CLI_VALUE, OPT_BASELINE, 0},
    {"candidate", 0, ETK_CLI_VALUE, OPT_CANDIDATE, 0},
    {"fail_above", 0, ETK_CLI_VALUE, OPT_FAIL_ABOVE, 0},
    {"threshold", 0, ETK_CLI_VALUE, OPT_THRESHOLD, 0},
    {"alpha", 0, ETK_CLI_VALUE, OPT_ALPHA, 0},
    {"keep_last", 0, ETK_CLI_VALUE, OPT_KEEP_LAST, 0},
    {"min_delta", 0, ETK_CLI_VALUE, OPT_MIN_DELTA, 0},
    ETK_CLI_FLAG("all_rows", 0, store_cli_t, all_rows),
    ETK_CLI_FLAG("dry_run", 0, store_cli_t, dry_run),
    ETK_CLI_FLAG("wide", 0, store_cli_t, wide),
    ETK_CLI_STRING("instruction", 0, store_cli_t, instruction),
    ETK_CLI_STRING("run_time", 0, store_cli_t, run_time),
    ETK_CLI_STRING("debug_buffer", 0, store_cli_t, debug_buffer),
};

/* "k=v" into the list (the key is copied; the value stays in argv); `cond`:
 * a selection (--where, --baseline, --candidate), not a --tag. */
static int add_tag(store_cli_tags_t *t, const etk_cli_parser_t *p, int cond) {
  const char *eq = strchr(p->value, '=');
  size_t kl = eq ? (size_t)(eq - p->value) : 0;
  if (t->count == STORE_CLI_MAX_TAGS)
    return etk_cli_usage(CMD, "too many %s options (%d at most)", p->arg,
                         STORE_CLI_MAX_TAGS);
  if (!eq || kl > ETK_STORE_TAG_KEY_MAX)
    return etk_cli_usage(CMD, "%s needs key=value, not '%.80s'", p->arg,
                         p->value);
  /* a condition with an empty value (an unset shell variable) would
   * select every run: prune would delete them all */
  if (cond && !eq[1])
    return etk_cli_usage(CMD,
                         "%s %.80s has an empty value (an unset variable?); "
                         "it would select every run",
                         p->arg, p->value);
  memcpy(t->keys[t->count], p->value, kl);
  t->keys[t->count][kl] = '\0';
  etk_store_tag_t *tag = &t->items[t->count];
  tag->key = t->keys[t->count];
  tag->value = eq + 1;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_store_tag_check(tag, &err) != ETK_OK)
    return etk_cli_usage(CMD, "%s: %s", p->arg, err.message);
  t->count++;
  return 0;
}

static int percent(const etk_cli_parser_t *p, double *out) {
  if (etk_cli_parse_double(p->value, out) && *out >= 0) return 0;
  return etk_cli_usage(CMD, "%s needs a number >= 0, not '%s'", p->arg,
                       p->value);
}

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  store_cli_t *c = ctx;
  switch (id) {
    case ETK_CLI_POSITIONAL:
      if (!c->sub)
        c->sub = p->value;
      else if (!c->db)
        c->db = p->value;
      else if (c->nfiles == sizeof c->files / sizeof *c->files)
        return etk_cli_usage(CMD, "too many arguments");
      else
        c->files[c->nfiles++] = p->value;
      return 0;
    case OPT_TAG:
      return add_tag(&c->tags, p, 0);
    case OPT_WHERE:
      return add_tag(&c->where, p, 1);
    case OPT_BASELINE:
      return add_tag(&c->baseline, p, 1);
    case OPT_CANDIDATE:
      return add_tag(&c->candidate, p, 1);
    case OPT_FAIL_ABOVE:
      c->has_fail_above = 1;
      return percent(p, &c->fail_above);
    case OPT_THRESHOLD:
      return percent(p, &c->threshold);
    case OPT_MIN_DELTA:
      return percent(p, &c->min_delta);
    case OPT_ALPHA:
      if (etk_cli_parse_double(p->value, &c->alpha) && c->alpha > 0 &&
          c->alpha < 1)
        return 0;
      return etk_cli_usage(CMD, "--alpha needs a number in (0, 1), not '%s'",
                           p->value);
    case OPT_KEEP_LAST:
      return etk_cli_parse_size(p->value, &c->keep_last)
                 ? 0
                 : etk_cli_usage(CMD, "--keep-last needs a count, not '%s'",
                                 p->value);
  }
  return 0;
}

static void print_added(void *ctx, const char *path,
                        const etk_store_add_result_t *res) {
  size_t *stored = ctx;
  (*stored)++;
  if (res->existed && (res->tags_added || res->tags_kept))
    printf("%s: already stored as run %lld; %zu new tag(s) added%s\n", path,
           (long long)res->run_id, res->tags_added,
           res->tags_kept ? ", tags it has with another value kept as stored"
                          : "");
  else if (res->existed)
    printf("%s: already stored as run %lld\n", path, (long long)res->run_id);
  else
    printf("%s: run %lld (%zu operators, %zu samples)\n", path,
           (long long)res->run_id, res->operators, res->samples);
}

static int cmd_add(store_cli_t *c) {
  if (c->nfiles == 0)
    return etk_cli_usage(CMD, "add needs at least one ETDump");
  int64_t run_time = 0;
  if (c->run_time && !etk_store_time_parse(c->run_time, &run_time))
    return etk_cli_usage(CMD,
                         "--run-time needs an ISO 8601 time "
                         "(YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM]), not '%.80s'",
                         c->run_time);
  /* a failed add into a new file leaves no file behind */
  etk_store_t *st =
      store_cli_open(c, ETK_STORE_CREATE | ETK_STORE_DROP_NEW_EMPTY);
  if (!st) return 1;
  etk_store_add_options_t o;
  etk_store_add_options_init(&o);
  o.tags = c->tags.items;
  o.tag_count = c->tags.count;
  o.etrecord_path = c->etrecord;
  o.program_path = c->program;
  o.run_time = run_time;
  o.has_run_time = c->run_time != NULL;
  o.debug_buffer_path = c->debug_buffer;
  etk_error_t err;
  etk_error_clear(&err);
  size_t stored = 0;
  int status = 0;
  if (etk_store_add_files(st, c->files, c->nfiles, &o, print_added, &stored,
                          &err) != ETK_OK)
    status = etk_cli_fail_error(CMD, &err);
  etk_store_close(st);
  return status;
}

static int render_table(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  const store_cli_t *c = ((void **)ctx)[0];
  const etk_store_table_t *t = ((void **)ctx)[1];
  return etk_store_table_render(t, c->format, sink, err);
}

/* Prints a query's table (or its error); frees it. */
static int print_table(store_cli_t *c, int rc, etk_store_table_t *t,
                       etk_error_t *err) {
  int fit =
      !c->wide && (strcmp(c->sub, "runs") == 0 || strcmp(c->sub, "show") == 0 ||
                   strcmp(c->sub, "latency") == 0);
  if (rc == ETK_OK && c->format == ETK_STORE_FORMAT_TABLE &&
      (fit ? store_cli_fit(t, c->sub) : store_cli_readable_units(t)) != ETK_OK)
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (rc == ETK_OK) {
    void *ctx[2] = {c, t};
    rc = etk_cli_write_output(c->output ? c->output : "-", render_table, ctx,
                              err);
    if (rc == ETK_OK) etk_cli_say_wrote(CMD, c->output, "%zu row(s)", t->rows);
  }
  etk_store_table_free(t);
  return rc == ETK_OK ? 0 : etk_cli_fail_error(CMD, err);
}

typedef struct show_out {
  etk_store_t *st;
  int64_t id;
} show_out_t;

static int render_show_json(void *ctx, etk_render_sink_t *sink,
                            etk_error_t *err) {
  const show_out_t *o = ctx;
  return etk_store_show_json(o->st, o->id, sink, err);
}

/* show --format json: the run's header and every operator's samples. */
static int show_json(store_cli_t *c, etk_store_t *st, int64_t id) {
  show_out_t o = {st, id};
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_cli_write_output(c->output ? c->output : "-", render_show_json,
                                &o, &err);
  etk_store_close(st);
  if (rc == ETK_OK)
    etk_cli_say_wrote(CMD, c->output, "run %lld", (long long)id);
  return rc == ETK_OK ? 0 : etk_cli_fail_error(CMD, &err);
}

static int cmd_query(store_cli_t *c) {
  etk_store_t *st = store_cli_open(c, ETK_STORE_READ_ONLY);
  if (!st) return 1;
  etk_store_table_t t;
  memset(&t, 0, sizeof t);
  etk_error_t err;
  etk_error_clear(&err);
  etk_store_where_t w = store_cli_where(&c->where);
  int rc;
  if (strcmp(c->sub, "runs") == 0) {
    rc = etk_store_runs(st, &w, &t, &err);
  } else if (strcmp(c->sub, "show") == 0) {
    char *end;
    errno = 0;
    long long id = strtoll(c->files[0], &end, 10);
    if (*end || !c->files[0][0] || errno == ERANGE || id < 1) {
      etk_store_close(st);
      return etk_cli_usage(CMD, "show needs a run id, not '%s'", c->files[0]);
    }
    if (c->format == ETK_STORE_FORMAT_JSON) return show_json(c, st, id);
    rc = etk_store_show(st, id, &t, &err);
  } else if (strcmp(c->sub, "latency") == 0) {
    rc = etk_store_latency(st, c->op, &w, &t, &err);
    if (rc == ETK_OK && t.rows == 0) { /* never an empty table: exit 1 */
      etk_store_table_free(&t);
      etk_store_close(st);
      return etk_cli_fail(
          CMD,
          "latency: no selected run holds latency sketches%s%s"
          " (runs recorded with --profile-mode stats have them)",
          c->op ? " for --op " : "", c->op ? c->op : "");
    }
  } else {
    etk_store_trend_kind_t kind = c->op       ? ETK_STORE_TREND_OP
                                  : c->module ? ETK_STORE_TREND_MODULE
                                              : ETK_STORE_TREND_METHOD;
    const char *name = c->op ? c->op : c->module ? c->module : c->method;
    rc = etk_store_trend(st, kind, name, &w, &t, &err);
    /* a misspelled name is trouble, never an empty trend */
    if (rc == ETK_OK && t.rows == 0 && store_cli_check_name(st, c, 0)) {
      etk_store_table_free(&t);
      etk_store_close(st);
      return 2;
    }
    /* a terminal's table fits 120 columns; --wide and CSV/JSON keep all */
    etk_store_table_t narrow;
    if (rc == ETK_OK && c->format == ETK_STORE_FORMAT_TABLE && !c->wide) {
      rc = etk_store_trend_table_narrow(&t, &narrow, &err);
      etk_store_table_free(&t);
      if (rc == ETK_OK) t = narrow;
    }
  }
  int status = print_table(c, rc, &t, &err);
  etk_store_close(st);
  return status;
}

/* Checks the arguments each subcommand needs; 0 or exit status 2. */
static int check_args(store_cli_t *c) {
  if (!c->sub) return etk_cli_usage(CMD, "a subcommand is required");
  if (!c->db) return etk_cli_usage(CMD, "%s needs a database", c->sub);
  const char *fmt = c->format_name;
  int is_export = strcmp(c->sub, "export") == 0;
  if (fmt && !is_export && etk_store_format_parse(fmt, &c->format) != ETK_OK)
    return etk_cli_usage(CMD, "invalid --format '%s' (table, csv or json)",
                         fmt);
  if (strcmp(c->sub, "show") == 0 && c->nfiles != 1)
    return etk_cli_usage(CMD, "show needs one run id");
  if (strcmp(c->sub, "trend") == 0 &&
      (!!c->op + !!c->module + !!c->method) != 1)
    return etk_cli_usage(CMD, "trend needs one of --op, --module, --method");
  int is_report = strcmp(c->sub, "report") == 0;
  if ((is_report || strcmp(c->sub, "compare") == 0 ||
       strcmp(c->sub, "drift") == 0) &&
      (c->baseline.count == 0 || c->candidate.count == 0))
    return etk_cli_usage(CMD, "%s needs --baseline and --candidate", c->sub);
  if (is_report && !c->output)
    return etk_cli_usage(CMD, "report needs -o report.html or report.md");
  if (strcmp(c->sub, "add") != 0 && c->tags.count)
    return etk_cli_usage(CMD, "--tag is for add (use --where to select)");
  return 0;
}

int etk_cmd_store(int argc, char **argv) {
  store_cli_t c;
  memset(&c, 0, sizeof c);
  c.threshold = -1;
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, &c);
  if (rc) return rc < 0 ? 0 : rc;
  if ((rc = check_args(&c))) return rc;
  if (strcmp(c.sub, "add") == 0) return cmd_add(&c);
  if (strcmp(c.sub, "runs") == 0 || strcmp(c.sub, "show") == 0 ||
      strcmp(c.sub, "trend") == 0 || strcmp(c.sub, "latency") == 0)
    return cmd_query(&c);
  if (strcmp(c.sub, "compare") == 0) return store_cli_compare(&c);
  if (strcmp(c.sub, "export") == 0) return store_cli_export(&c);
  if (strcmp(c.sub, "report") == 0) return store_cli_report(&c);
  if (strcmp(c.sub, "drift") == 0) return store_cli_drift(&c);
  if (strcmp(c.sub, "prune") == 0) return store_cli_prune(&c);
  return etk_cli_usage(CMD,
                       "unknown subcommand '%s' (add, runs, show, trend, "
                       "latency, compare, export, report, prune, drift)",
                       c.sub);
}
