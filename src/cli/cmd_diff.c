/*
 * cmd_diff.c - `etkit diff A.etdp B.etdp`: per-operator A/B comparison of
 * two ETDumps (etk_diff_build / etk_diff_render in etkit/inspector.h).
 *
 * Exit status: 0 success, 1 failure, 2 usage error, 3 with --fail-above PCT
 * when some matched operator got slower by more than PCT percent (the
 * comparison is still printed; one line on stderr names the worst ones).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"

#define CMD "diff"

static const char *const usage_text =
    "usage: etkit diff A.etdp B.etdp [options]\n"
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
    "  --metric avg|p50|p10|p90|min|max  the compared statistic (avg)\n"
    "  --threshold PCT             hide matched operators whose |change| < PCT "
    "%\n"
    "  --min-delta VALUE           ... or whose |delta| < VALUE (target unit)\n"
    "  --fail-above PCT            exit 3 when an operator is slower by more "
    "than\n"
    "                              PCT % (and by at least --min-delta): for "
    "CI\n"
    "  --all-rows                  also compare OPERATOR_CALL wrappers\n"
    "  --source_time_scale UNIT    unit of the raw timestamps (ns)\n"
    "  --target_time_scale UNIT    unit of the reported times (ms)\n"
    "  --clock-hz HZ               convert cycles to time\n"
    "  --json-indent N             JSON indentation (2; 0 = compact)\n"
    "  -h, --help                  this help\n";

typedef struct diff_cli {
  const char *path[2];
  size_t npaths;
  const char *output;
  double fail_above;
  int has_fail_above;
  etk_inspector_options_t io;
  etk_diff_options_t dopt;
  etk_diff_render_options_t ro;
  etk_diff_t *diff;
} diff_cli_t;

static int parse_args(int argc, char **argv, diff_cli_t *c) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
#define VALUE()                                                  \
  do {                                                           \
    if (!v) {                                                    \
      if (i + 1 >= argc)                                         \
        return etk_cli_usage(CMD, "option %s needs a value", a); \
      v = argv[++i];                                             \
    }                                                            \
  } while (0)
    if (strcmp(a, "-h") == 0 || etk_cli_flag(a, "help", &v)) {
      fputs(usage_text, stdout);
      return -1;
    } else if (a[0] != '-' || strcmp(a, "-") == 0) {
      if (c->npaths == 2)
        return etk_cli_usage(CMD, "unexpected argument '%s' (two ETDumps only)",
                             a);
      c->path[c->npaths++] = a;
    } else if (strcmp(a, "-o") == 0 || etk_cli_flag(a, "output", &v)) {
      VALUE();
      c->output = v;
    } else if (etk_cli_flag(a, "format", &v)) {
      VALUE();
      if (!etk_cli_parse_format(v, &c->ro.format))
        return etk_cli_usage(
            CMD, "invalid format '%s' (choose from table, tsv, csv, json)", v);
    } else if (etk_cli_flag(a, "metric", &v)) {
      VALUE();
      if (etk_diff_metric_parse(v, &c->dopt.metric) != ETK_OK)
        return etk_cli_usage(
            CMD,
            "invalid metric '%s' (choose from avg, p50, p10, p90, min, max)",
            v);
    } else if (etk_cli_flag(a, "threshold", &v)) {
      VALUE();
      if (!etk_cli_parse_double(v, &c->ro.threshold_pct) ||
          c->ro.threshold_pct < 0)
        return etk_cli_usage(
            CMD, "--threshold needs a percentage >= 0, not '%s'", v);
    } else if (etk_cli_flag(a, "min_delta", &v)) {
      VALUE();
      if (!etk_cli_parse_double(v, &c->ro.min_delta) || c->ro.min_delta < 0)
        return etk_cli_usage(CMD, "--min-delta needs a number >= 0, not '%s'",
                             v);
    } else if (etk_cli_flag(a, "fail_above", &v)) {
      VALUE();
      if (!etk_cli_parse_double(v, &c->fail_above) || c->fail_above < 0)
        return etk_cli_usage(
            CMD, "--fail-above needs a percentage >= 0, not '%s'", v);
      c->has_fail_above = 1;
    } else if (etk_cli_flag(a, "all_rows", &v) && !v) {
      c->dopt.all_rows = 1;
    } else if (etk_cli_flag(a, "source_time_scale", &v) ||
               etk_cli_flag(a, "target_time_scale", &v)) {
      int src = strstr(a, "source") != NULL;
      VALUE();
      etk_time_scale_t t;
      if (etk_time_scale_parse(v, &t) != ETK_OK)
        return etk_cli_usage(
            CMD, "invalid time scale '%s' (choose from ns, us, ms, s, cycles)",
            v);
      if (src)
        c->io.source_time_scale = t;
      else
        c->io.target_time_scale = t;
    } else if (etk_cli_flag(a, "clock_hz", &v)) {
      VALUE();
      if (!etk_cli_parse_double(v, &c->io.clock_hz) || !(c->io.clock_hz > 0))
        return etk_cli_usage(CMD,
                             "--clock-hz needs a positive number, not '%s'", v);
    } else if (etk_cli_flag(a, "json_indent", &v)) {
      VALUE();
      size_t n;
      if (!etk_cli_parse_size(v, &n) || n > 16)
        return etk_cli_usage(
            CMD, "--json-indent needs an integer from 0 to 16, not '%s'", v);
      c->ro.json_indent = (int)n;
    } else {
      return etk_cli_usage(CMD, "unknown argument '%s'", a);
    }
#undef VALUE
  }
  if (c->npaths != 2)
    return etk_cli_usage(CMD, "%s", "two ETDumps are required: A.etdp B.etdp");
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

int etk_cmd_diff(int argc, char **argv) {
  diff_cli_t c;
  memset(&c, 0, sizeof c);
  etk_inspector_options_init(&c.io);
  etk_diff_options_init(&c.dopt);
  etk_diff_render_options_init(&c.ro);
  int prc = parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return prc;
  c.ro.label_a = c.path[0];
  c.ro.label_b = c.path[1];
  etk_error_t err;
  etk_error_clear(&err);
  double factor;
  if (etk_time_scale_factor(c.io.source_time_scale, c.io.target_time_scale,
                            c.io.clock_hz, &factor, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  etk_inspector_t *a = NULL, *b = NULL;
  int status = 0;
  /* each step starts with a clear error: a successful open may leave the
   * file name in err.where */
  int rc = etk_inspector_open_path(c.path[0], &c.io, &a, &err);
  if (rc == ETK_OK) {
    etk_error_clear(&err);
    rc = etk_inspector_open_path(c.path[1], &c.io, &b, &err);
  }
  if (rc == ETK_OK) {
    etk_error_clear(&err);
    rc = etk_diff_build(a, b, &c.dopt, &c.diff, &err);
  }
  if (rc == ETK_OK) {
    etk_error_clear(&err);
    rc = etk_cli_write_output(c.output ? c.output : "-", render, &c, &err);
  }
  if (rc != ETK_OK) {
    status = etk_cli_fail_error(CMD, &err);
  } else if (c.has_fail_above) {
    size_t n = etk_diff_regression_count(c.diff, c.fail_above, c.ro.min_delta);
    if (n) {
      report_regressions(&c, n);
      status = 3;
    }
  }
  etk_diff_free(c.diff);
  etk_inspector_close(a);
  etk_inspector_close(b);
  return status;
}
