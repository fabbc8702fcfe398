/*
 * cmd_diff.c - `etkit diff A.etdp B.etdp`: per-operator A/B comparison of
 * two ETDumps (etk_diff_build / etk_diff_render in etkit/inspector.h).
 *
 * A gate (docs/exit-status.md): 0 holds, 1 with --fail-above PCT when some
 * matched operator got slower by more than PCT percent (the comparison is
 * still printed; one line on stderr names the worst ones), 2 trouble
 * (usage, an unreadable dump, a gate that compared nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_link.h"
#include "cmd_diff_program.h"
#include "commands.h"
#include "diff_sets.h"

#define CMD "diff"

static const char *const usage_text =
    "usage: etkit diff A.etdp B.etdp [options]\n"
    "       etkit diff A.pte B.pte [--format text|json]   (two programs:\n"
    "       structure and constants; 'etkit diff A.pte --help')\n"
    "\n"
    "Compares two ETDumps per operator: blocks paired by name, operators\n"
    "matched by event name + instruction id, then by name, then by operator\n"
    "type; count, avg and p50 in A and B, delta (B - A) and change, sorted by\n"
    "|delta|; new and missing operators; method time, operators' total and\n"
    "framework overhead per block.\n"
    "\n"
    "options:\n"
    "  --format table|tsv|csv|json output format (table)\n"
    "  -o, --output FILE           write there (atomically) instead of stdout\n"
    "  --etrecord FILE             link A and B with this ETRecord (op types,\n"
    "                              modules); --etrecord-b FILE: B's own\n"
    "  --metric p50|avg|p10|p90|min|max  the compared statistic: p50 (median,\n"
    "                              the default) or avg (mean), ...\n"
    "  --threshold PCT             hide matched operators whose |change| < PCT "
    "%\n"
    "  --min-delta VALUE           ... or whose |delta| < VALUE (target unit)\n"
    "  --fail-above PCT            exit 1 when an operator is slower by more "
    "than\n"
    "                              PCT % (and by at least --min-delta): for "
    "CI\n"
    "  --all-rows                  also compare OPERATOR_CALL wrappers\n"
    "  --wide                      table: every column (avg and p50) and\n"
    "                              whole event names; by default the table\n"
    "                              fits 120 columns\n"
    "  --source_time_scale UNIT    unit of the raw timestamps (ns)\n"
    "  --target_time_scale UNIT    unit of the reported times (ms)\n"
    "  --clock-hz HZ               convert cycles to time\n"
    "  --json-indent N             JSON indentation (2; 0 = compact)\n"
    "  -h, --help                  this help\n"
    "\n"
    "etkit diff A1.etdp A2.etdp ... --vs B1.etdp B2.etdp ...: several runs\n"
    "per side, compared with medians, the Hodges-Lehmann delta and its 95 %\n"
    "interval, Mann-Whitney p and Benjamini-Hochberg q (docs/store.md);\n"
    "--format, -o, --threshold PCT (2), --fail-above PCT (exit 1),\n"
    "--all-rows and --wide apply.\n"
    "\n"
    "exit status: 0 the gate holds, 1 --fail-above failed, 2 trouble (usage,\n"
    "an unreadable dump, nothing compared): docs/exit-status.md\n";

typedef struct diff_cli {
  const char *path[2];
  size_t npaths;
  const char *sides[2][DIFF_SETS_MAX]; /* A... --vs B... (diff_sets.c) */
  size_t nsides[2];
  int vs;
  const char *output, *etrecord[2];
  double fail_above;
  int has_fail_above;
  char gate[128]; /* the first gate option given (--fail-above, ...) */
  etk_inspector_options_t io;
  etk_diff_options_t dopt;
  etk_diff_render_options_t ro;
  etk_diff_t *diff;
} diff_cli_t;

enum {
  OPT_FORMAT = 1,
  OPT_METRIC,
  OPT_THRESHOLD,
  OPT_MIN_DELTA,
  OPT_FAIL_ABOVE,
  OPT_ALL_ROWS,
  OPT_JSON_INDENT,
  OPT_VS,
};

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("output", 'o', diff_cli_t, output),
    ETK_CLI_STRING("etrecord|etrecord_path", 0, diff_cli_t, etrecord[0]),
    ETK_CLI_STRING("etrecord_b", 0, diff_cli_t, etrecord[1]),
    {"format", 0, ETK_CLI_VALUE, OPT_FORMAT, 0},
    {"metric", 0, ETK_CLI_VALUE, OPT_METRIC, 0},
    {"threshold", 0, ETK_CLI_VALUE, OPT_THRESHOLD, 0},
    {"min_delta", 0, ETK_CLI_VALUE, OPT_MIN_DELTA, 0},
    {"fail_above", 0, ETK_CLI_VALUE, OPT_FAIL_ABOVE, 0},
    {"all_rows", 0, ETK_CLI_NO_VALUE, OPT_ALL_ROWS, 0},
    ETK_CLI_FLAG("wide", 0, diff_cli_t, ro.wide),
    ETK_CLI_TIME_OPTIONS,
    {"json_indent", 0, ETK_CLI_VALUE, OPT_JSON_INDENT, 0},
    {"vs", 0, ETK_CLI_NO_VALUE, OPT_VS, 0},
};

/* A value >= 0 (a percentage or a delta); 0 or an exit status. */
static int non_negative(const etk_cli_parser_t *p, const char *what,
                        double *out) {
  if (etk_cli_parse_double(p->value, out) && *out >= 0) return 0;
  return etk_cli_usage(CMD, "%s needs %s >= 0, not '%s'", p->arg, what,
                       p->value);
}

static void set_gate(diff_cli_t *c, const etk_cli_parser_t *p) {
  if (!c->gate[0]) snprintf(c->gate, sizeof c->gate, "%s", p->arg);
}

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  diff_cli_t *c = ctx;
  const char *v = p->value;
  int t = etk_cli_time_option(p, id, &c->io.source_time_scale,
                              &c->io.target_time_scale, &c->io.clock_hz);
  if (t) return t < 0 ? 2 : 0;
  switch (id) {
    case ETK_CLI_POSITIONAL:
      if (c->nsides[c->vs] == DIFF_SETS_MAX)
        return etk_cli_usage(CMD, "too many ETDumps ('%s')", v);
      c->sides[c->vs][c->nsides[c->vs]++] = v;
      if (!c->vs && c->npaths < 2) c->path[c->npaths] = v;
      if (!c->vs) c->npaths++;
      return 0;
    case OPT_VS:
      if (c->vs)
        return etk_cli_usage(CMD, "%s",
                             "--vs is given once: A... --vs B... compares two "
                             "sides");
      c->vs = 1;
      return 0;
    case OPT_FORMAT:
      return etk_cli_format_value(p, &c->ro.format) ? 2 : 0;
    case OPT_METRIC:
      if (etk_diff_metric_parse(strcmp(v, "mean") == 0     ? "avg"
                                : strcmp(v, "median") == 0 ? "p50"
                                                           : v,
                                &c->dopt.metric) != ETK_OK)
        return etk_cli_usage(CMD,
                             "invalid metric '%s' (choose from p50 or median, "
                             "avg or mean, p10, p90, min, max)",
                             v);
      return 0;
    case OPT_THRESHOLD:
      set_gate(c, p);
      return non_negative(p, "a percentage", &c->ro.threshold_pct);
    case OPT_MIN_DELTA:
      set_gate(c, p);
      return non_negative(p, "a number", &c->ro.min_delta);
    case OPT_FAIL_ABOVE:
      set_gate(c, p);
      c->has_fail_above = 1;
      return non_negative(p, "a percentage", &c->fail_above);
    case OPT_ALL_ROWS:
      c->dopt.all_rows = 1;
      return 0;
    case OPT_JSON_INDENT:
      return etk_cli_json_indent_value(p, &c->ro.json_indent) ? 2 : 0;
  }
  return 0;
}

/* -1 after --help, 0 to go on, else an exit status. */
static int parse_args(int argc, char **argv, diff_cli_t *c) {
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, c);
  if (rc) return rc;
  if (c->vs && (!c->nsides[0] || !c->nsides[1]))
    return etk_cli_usage(CMD, "%s",
                         "A... --vs B... needs ETDumps on both sides");
  if (!c->vs && c->npaths != 2)
    return etk_cli_usage(CMD, "%s", "two ETDumps are required: A.etdp B.etdp");
  if (etk_cli_time_check(CMD, &c->io)) return 2;
  if ((rc = etk_cli_check_output(CMD, c->output))) return rc;
  return 0;
}

static int render(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  diff_cli_t *c = ctx;
  return etk_diff_render(c->diff, &c->ro, sink, err);
}

/* One stderr line naming up to three of the worst regressions. */
static void report_regressions(const diff_cli_t *c, size_t n) {
  fprintf(stderr, "etkit diff: %zu operator(s) slower by more than %g %%:", n,
          c->fail_above);
  size_t shown = 0;
  for (size_t i = 0; i < etk_diff_row_count(c->diff) && shown < 3; i++) {
    etk_diff_row_t r;
    etk_diff_row_get(c->diff, i, &r);
    if (r.kind != ETK_DIFF_ROW_OPERATOR || r.match > ETK_DIFF_MATCH_OP_TYPE)
      continue;
    if (!(r.change_pct > c->fail_above) || r.delta < c->ro.min_delta) continue;
    fprintf(stderr, "%s %s (%+.1f %%)", shown ? "," : "", r.name, r.change_pct);
    shown++;
  }
  if (n > shown) fprintf(stderr, ", ...");
  fputc('\n', stderr);
}

/* Whether some operator is found in both A and B (matched by id, name or
 * op type): matched rows come first after the totals, so the first
 * operator row tells. */
static int any_matched(const etk_diff_t *diff) {
  for (size_t i = 0; i < etk_diff_row_count(diff); i++) {
    etk_diff_row_t r;
    etk_diff_row_get(diff, i, &r);
    if (r.kind == ETK_DIFF_ROW_OPERATOR)
      return r.match <= ETK_DIFF_MATCH_OP_TYPE;
  }
  return 0;
}

int etk_cmd_diff(int argc, char **argv) {
  /* two programs: their own diff (cmd_diff_program.c) */
  int kinds = cli_diff_is_programs(argc, argv);
  if (kinds < 0)
    return etk_cli_usage(CMD,
                         "a program and an ETDump cannot be compared: give "
                         "two programs or two ETDumps");
  if (kinds) return cli_diff_programs(argc, argv);
  diff_cli_t c;
  memset(&c, 0, sizeof c);
  etk_inspector_options_init(&c.io);
  etk_diff_options_init(&c.dopt);
  c.dopt.metric = ETK_DIFF_METRIC_P50; /* medians: robust to outliers */
  etk_diff_render_options_init(&c.ro);
  int prc = parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return ETK_EXIT_TROUBLE;
  if (c.vs) {
    diff_sets_options_t so = {&c.io,
                              c.ro.format,
                              c.output,
                              {c.etrecord[0], c.etrecord[1]},
                              c.ro.threshold_pct > 0 ? c.ro.threshold_pct : -1,
                              c.has_fail_above ? c.fail_above : -1,
                              c.dopt.all_rows,
                              c.ro.wide};
    return cli_diff_sets(c.sides[0], c.nsides[0], c.sides[1], c.nsides[1], &so);
  }
  c.ro.label_a = c.path[0];
  c.ro.label_b = c.path[1];
  etk_error_t err;
  etk_error_clear(&err);
  etk_inspector_t *a = NULL, *b = NULL;
  int status = 0, failed = 0;
  /* each step starts with a clear error: a successful open may leave the
   * file name in err.where */
  etk_etrecord_t *rec[2] = {NULL, NULL};
  int rc = etk_inspector_open_path(c.path[0], &c.io, &a, &err);
  if (rc == ETK_OK) {
    etk_error_clear(&err);
    rc = etk_inspector_open_path(c.path[1], &c.io, &b, &err);
  }
  /* --etrecord links A and B (--etrecord-b: B with its own record) */
  const char *rec_b = c.etrecord[1] ? c.etrecord[1] : c.etrecord[0];
  if (rc == ETK_OK && c.etrecord[0] &&
      cli_link_etrecord(CMD, c.etrecord[0], a, &rec[0], NULL, &err))
    rc = ETK_E_FORMAT;
  if (rc == ETK_OK && rec_b &&
      cli_link_etrecord(CMD, rec_b, b, &rec[1], NULL, &err))
    rc = ETK_E_FORMAT;
  if (rc == ETK_OK) {
    etk_error_clear(&err);
    rc = etk_diff_build(a, b, &c.dopt, &c.diff, &err);
  }
  if (rc == ETK_OK && !any_matched(c.diff)) {
    /* a check that compared nothing is an error, not a pass */
    etk_error_clear(&err);
    if (c.gate[0])
      rc = etk_error_set(&err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "%s compared nothing: no operator of A matches one "
                         "of B (by event name and instruction id, name or "
                         "operator type)",
                         c.gate);
    else
      fprintf(stderr,
              "etkit diff: warning: no operator of A matches one of B; "
              "only block totals are compared\n");
  }
  if (rc == ETK_OK) {
    etk_error_clear(&err);
    rc = etk_cli_write_output(c.output ? c.output : "-", render, &c, &err);
    if (rc == ETK_OK) etk_cli_say_wrote(CMD, c.output, NULL);
  }
  if (rc != ETK_OK) {
    status = etk_cli_fail_error(CMD, &err);
  } else if (c.has_fail_above) {
    size_t n = etk_diff_regression_count(c.diff, c.fail_above, c.ro.min_delta);
    if (n) {
      report_regressions(&c, n);
      failed = 1;
    }
  }
  etk_diff_free(c.diff);
  etk_etrecord_close(rec[0]);
  etk_etrecord_close(rec[1]);
  etk_inspector_close(a);
  etk_inspector_close(b);
  return etk_cli_gate_exit(status, failed);
}
