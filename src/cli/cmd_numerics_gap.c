/*
 * cmd_numerics_gap.c - `etkit numerics --gap mse|l1|snr`: upstream's
 * calculate_numeric_gap from the files alone (no torch):
 *
 *   etkit numerics --etdump_path D --debug_buffer_path B --etrecord_path E
 *                  --gap mse [--format table|csv|json] [--fail-above X]
 *                  [--graph NAME] [--reference-graph NAME]
 *                  [--max-memory BYTES] [-o FILE]
 *
 * The ETRecord's graph is run by etkit's interpreter on its representative
 * inputs, the ETDump is linked to the ETRecord, and every pair of an AOT
 * output with the runtime's logged value of the same debug handles gets a
 * gap (etk_gap_* in etkit/numerics.h).  The table is sorted worst first
 * with the first diverging node (in graph order) marked.  A gate
 * (docs/exit-status.md): 0 holds, 1 with --fail-above when a pair is worse
 * than X (above it for mse/l1, below it for snr), 2 trouble (usage,
 * unreadable files, a dump without intermediate outputs, nothing to pair).
 * When the first pair diverges, a warning says whether the run looks made
 * on all-ones inputs instead of the ETRecord's representative inputs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_link.h"
#include "commands.h"
#include "etkit/graph.h"
#include "etkit/numerics.h"

#define CMD "numerics"

static const char *const usage_text =
    "usage: etkit numerics --etdump_path D --debug_buffer_path B "
    "--etrecord_path E\n"
    "                      --gap mse|l1|snr|stats [options]\n"
    "\n"
    "Upstream's calculate_numeric_gap without torch: runs the ETRecord's "
    "graph with\n"
    "etkit's kernels on its representative inputs and compares every "
    "operator's\n"
    "output with the value the runtime logged for the same debug handles.\n"
    "\n"
    "options:\n"
    "  --etdump_path FILE        the ETDump of the run\n"
    "  --debug_buffer_path FILE  its debug buffer (intermediate outputs)\n"
    "  --etrecord_path FILE      the ETRecord (graph, weights, "
    "representative inputs)\n"
    "  --gap mse|l1|snr|stats    the distance (upstream's MSE, L1, SNR), or\n"
    "                            stats: a run recorded with --debug-level "
    "stats,\n"
    "                            its STATS against the graph's (upstream's\n"
    "                            compare_aot_runtime_dataframe columns)\n"
    "  --graph NAME              reference graph (default: the edge "
    "program)\n"
    "  --reference-graph NAME    graph whose nodes the events link to (their "
    "op types;\n"
    "                            upstream's reference_graph_name; default: "
    "the edge\n"
    "                            program)\n"
    "  --format table|csv|json   output format (table)\n"
    "  --fail-above X            exit 1 when a pair is worse than X (snr: "
    "below X dB;\n"
    "                            stats: a p99_abs shift above X, or NaN/Inf\n"
    "                            appearing; 2 on trouble: "
    "docs/exit-status.md)\n"
    "  --max-memory BYTES        bound on the interpreter's tensors (2 GiB)\n"
    "  -o, --output FILE         write there (atomically) instead of stdout\n"
    "  -h, --help                this help\n";

typedef struct gap_cli {
  const char *etdump, *buffer, *etrecord, *graph, *output, *gap;
  const char *reference_graph; /* --reference-graph: the linked graph */
  int format;
  etk_gap_options_t opt;
  int has_fail;
  int stats; /* --gap stats */
  etk_gap_t *result;
  etk_stats_cmp_t *stats_rows;
} gap_cli_t;

enum { OPT_FORMAT = 1, OPT_FAIL_ABOVE, OPT_MAX_MEMORY };

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("etdump_path|etdump", 0, gap_cli_t, etdump),
    ETK_CLI_STRING("debug_buffer_path|debug_buffer", 0, gap_cli_t, buffer),
    ETK_CLI_STRING("etrecord_path|etrecord", 0, gap_cli_t, etrecord),
    ETK_CLI_STRING("gap", 0, gap_cli_t, gap),
    ETK_CLI_STRING("graph", 0, gap_cli_t, graph),
    ETK_CLI_STRING("reference_graph", 0, gap_cli_t, reference_graph),
    ETK_CLI_STRING("output", 'o', gap_cli_t, output),
    {"format", 0, ETK_CLI_VALUE, OPT_FORMAT, 0},
    {"fail_above", 0, ETK_CLI_VALUE, OPT_FAIL_ABOVE, 0},
    {"max_memory", 0, ETK_CLI_VALUE, OPT_MAX_MEMORY, 0},
};

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  gap_cli_t *c = ctx;
  const char *v = p->value;
  size_t bytes;
  switch (id) {
    case ETK_CLI_POSITIONAL:
      return etk_cli_usage(CMD, "unexpected argument '%s'", v);
    case OPT_FORMAT:
      if (strcmp(v, "table") == 0)
        c->format = ETK_GAP_TABLE;
      else if (strcmp(v, "csv") == 0)
        c->format = ETK_GAP_CSV;
      else if (strcmp(v, "json") == 0)
        c->format = ETK_GAP_JSON;
      else
        return etk_cli_usage(CMD,
                             "--format must be table, csv or json, not "
                             "'%s'",
                             v);
      return 0;
    case OPT_FAIL_ABOVE:
      if (!etk_cli_parse_double(v, &c->opt.threshold) ||
          isnan(c->opt.threshold))
        return etk_cli_usage(CMD, "--fail-above needs a number, not '%s'", v);
      c->has_fail = 1;
      return 0;
    case OPT_MAX_MEMORY:
      if (!etk_cli_parse_size(v, &bytes) || bytes == 0)
        return etk_cli_usage(CMD, "--max-memory needs a byte count, not '%s'",
                             v);
      c->opt.max_memory = bytes;
      return 0;
  }
  return 0;
}

static int parse_args(int argc, char **argv, gap_cli_t *c) {
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, c);
  if (rc) return rc;
  if (!c->etdump || !c->buffer || !c->etrecord || !c->gap)
    return etk_cli_usage(CMD, "%s",
                         "--gap needs --etdump_path, --debug_buffer_path and "
                         "--etrecord_path");
  c->stats = strcmp(c->gap, "stats") == 0;
  if (!c->stats &&
      (etk_numerics_metric_parse(c->gap, &c->opt.metric) != ETK_OK ||
       c->opt.metric > ETK_NUMERICS_SNR))
    return etk_cli_usage(CMD, "--gap must be mse, l1, snr or stats, not '%s'",
                         c->gap);
  if (c->output && etk_cli_check_output(CMD, c->output)) return 1;
  return 0;
}

static int render(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  gap_cli_t *c = ctx;
  static const etk_inspect_format_t formats[] = {ETK_INSPECT_FORMAT_TABLE,
                                                 ETK_INSPECT_FORMAT_CSV,
                                                 ETK_INSPECT_FORMAT_JSON};
  if (c->stats)
    return etk_stats_cmp_render(c->stats_rows, formats[c->format], 2, sink,
                                err);
  return etk_gap_render(c->result, (etk_gap_format_t)c->format, sink, err);
}

int etk_cli_stats_gate(const etk_stats_cmp_t *rows, const char *option,
                       const char *what, int *failed) {
  size_t n = etk_stats_cmp_drifting(rows);
  if (etk_stats_cmp_compared(rows) == 0)
    return etk_cli_fail(CMD, "%s compared nothing: %s", option, what);
  if (n) {
    fprintf(stderr,
            "etkit numerics: %zu value(s) drift (NaN/Inf appears in the run, "
            "or a p99_abs shift above %g)\n",
            n, etk_stats_cmp_threshold(rows));
    *failed = 1;
  }
  return 0;
}

/* One line when the first pair says the run had other inputs. */
static void warn_inputs(const gap_cli_t *c) {
  etk_gap_inputs_t in = etk_gap_inputs(c->result);
  if (in == ETK_GAP_INPUTS_ONES)
    fprintf(stderr,
            "etkit %s: warning: the run's values are those of all-ones inputs "
            "(etkit run's default), not of the ETRecord's representative "
            "inputs, so every operator diverges; run again with `etkit run "
            "PROGRAM --inputs-from %s --debug-level intermediates ...`\n",
            CMD, c->etrecord);
  else if (in == ETK_GAP_INPUTS_FIRST_DIVERGES)
    fprintf(stderr,
            "etkit %s: warning: the first operator already diverges: was the "
            "run made on the ETRecord's representative inputs? (`etkit run "
            "PROGRAM --inputs-from %s ...` uses them)\n",
            CMD, c->etrecord);
}

/* Opens everything, builds the rows; 0 or an exit status. */
static int build(gap_cli_t *c, etk_error_t *err) {
  etk_inspector_options_t io;
  etk_inspector_t *insp = NULL;
  etk_etrecord_t *rec = NULL;
  etk_graph_t *g = NULL;
  etk_graph_options_t go;
  uint8_t *buf = NULL;
  size_t len = 0;
  int status = 0;
  etk_inspector_options_init(&io);
  etk_graph_options_default(&go);
  go.graph_name = c->graph;
  /* every failure here is trouble (exit 2), not a gap over the bound */
  if (etk_read_file(c->buffer, 0, &buf, &len, err) != ETK_OK)
    return 1 + etk_cli_fail_error(CMD, err);
  /* the inspector checks every logged value against the buffer, as
   * `etkit inspect` does: a buffer too short for the dump is refused */
  io.debug_buffer = buf;
  io.debug_buffer_len = len;
  if (etk_inspector_open_path(c->etdump, &io, &insp, err) != ETK_OK)
    status = 1 + etk_cli_fail_error(CMD, err);
  else if (etk_etdump_has_tensor_stats(etk_inspector_etdump(insp)) != c->stats)
    status = 1 + etk_cli_fail(CMD,
                              c->stats ? "%s holds no STATS vectors: record "
                                         "it with --debug-level stats"
                                       : "%s holds STATS vectors (--debug-"
                                         "level stats): use --gap stats",
                              c->etdump);
  else if (cli_link_etrecord_graph(CMD, c->etrecord, c->reference_graph, insp,
                                   &rec, NULL, err) != 0)
    status = 1 + etk_cli_fail_error(CMD, err);
  else if (etk_graph_load(rec, &go, &g, err) != ETK_OK ||
           etk_gap_build(insp, buf, len, g, &c->opt, &c->result, err) != ETK_OK)
    status = 1 + etk_cli_fail_error(CMD, err);
  else if (c->stats && etk_stats_cmp_from_gap(
                           c->result, c->has_fail ? c->opt.threshold : NAN,
                           &c->stats_rows, err) != ETK_OK)
    status = 1 + etk_cli_fail_error(CMD, err);
  else if (!c->stats)
    warn_inputs(c);
  etk_graph_free(g);
  etk_etrecord_close(rec);
  etk_inspector_close(insp);
  free(buf);
  return status;
}

int etk_cmd_numerics_gap(int argc, char **argv) {
  gap_cli_t c;
  etk_error_t err;
  int status, failed = 0;
  memset(&c, 0, sizeof c);
  etk_gap_options_init(&c.opt);
  status = parse_args(argc, argv, &c);
  if (status < 0) return 0;
  if (status > 0) return ETK_EXIT_TROUBLE;
  etk_error_clear(&err);
  status = build(&c, &err);
  if (!status && etk_cli_write_output(c.output ? c.output : "-", render, &c,
                                      &err) != ETK_OK)
    status = etk_cli_fail_error(CMD, &err);
  else if (!status)
    etk_cli_say_wrote(CMD, c.output, "%zu row(s)",
                      c.stats ? etk_stats_cmp_row_count(c.stats_rows)
                              : etk_gap_row_count(c.result));
  if (!status && c.has_fail && c.stats) {
    status = etk_cli_stats_gate(c.stats_rows, "--fail-above",
                                "no STATS vector could be paired with a "
                                "graph output",
                                &failed);
  } else if (!status && c.has_fail) {
    size_t over = 0;
    for (size_t k = 0; k < etk_gap_row_count(c.result); k++)
      over += etk_gap_rows(c.result)[k].over;
    if (over) {
      fprintf(stderr, "etkit numerics: %zu pair(s) worse than %g\n", over,
              c.opt.threshold);
      failed = 1;
    }
  }
  etk_stats_cmp_free(c.stats_rows);
  etk_gap_free(c.result);
  return etk_cli_gate_exit(status, failed);
}
