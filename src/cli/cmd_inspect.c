/*
 * cmd_inspect.c - `etkit inspect`: upstream's inspector_cli in C, plus
 * output formats, summaries, sorting and block selection.
 *
 * Upstream flags keep their meaning (devtools/inspector/inspector_cli.py):
 * --etdump_path (required), --etrecord_path, --debug_buffer_path,
 * --source_time_scale / --target_time_scale (ns|us|ms|s|cycles, default ns
 * and ms), --tsv_path (also write save_data_to_tsv's file),
 * --compare_results (text output only, see cmd_numerics.c; --reference
 * FILE.bpte takes the expected outputs of a bundled program instead of the
 * ETRecord's).  With no other flag the output is print_data_tabular's
 * table on stdout.  Flags may be written "--flag value" or "--flag=value",
 * and with dashes instead of underscores.
 *
 * With --etrecord_path every block is linked (etk_etrecord_inspector_link_
 * block) with the method etk_etrecord_block_method() picks for it or the
 * one --method names; the default columns then carry op_types and
 * delegate_backend_name exactly as upstream prints them.  Upstream's
 * accidental rules (forward maps for every block, framework events given
 * instruction 0's handles, substring delegate-id lookup, top graph only)
 * are off unless --upstream-quirks, which also turns on the inspector's
 * quirks.  --by-module, --module-total, --source and --link-columns are
 * etkit views and columns built on the links (docs/inspector.md).
 *
 * Exit status: 0 success, 1 failure (one line on stderr: "etkit inspect:
 * <what>"), 2 usage error.  Output files are written atomically.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "etkit/common.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/render.h"

static const char *const usage_text =
    "usage: etkit inspect --etdump_path FILE [options]\n"
    "\n"
    "Reads an ETDump and prints upstream's Inspector table "
    "(print_data_tabular).\n"
    "\n"
    "upstream options (inspector_cli.py):\n"
    "  --etdump_path FILE          ETDump (.etdp) to read (required)\n"
    "  --etrecord_path FILE        ETRecord to link: op types, backends, stack "
    "traces,\n"
    "                              module hierarchy (all methods; see "
    "--method)\n"
    "  --debug_buffer_path FILE    debug buffer holding intermediate tensors\n"
    "  --source_time_scale UNIT    unit of the raw timestamps: "
    "ns|us|ms|s|cycles (ns)\n"
    "  --target_time_scale UNIT    unit of the reported times (ms)\n"
    "  --tsv_path FILE             also write the table as TSV "
    "(save_data_to_tsv)\n"
    "  --compare_results           for every block named \"Execute\", print "
    "snr, mse\n"
    "                              and cosine_similarity of its program "
    "outputs\n"
    "                              (needs --debug_buffer_path) against the\n"
    "                              ETRecord's reference_outputs (text, no "
    "plots)\n"
    "\n"
    "etkit options:\n"
    "  --format table|tsv|csv|json output format (table)\n"
    "  --output FILE               write the output to FILE (atomically) "
    "instead of stdout\n"
    "  --summary, --by-op-type     one row per operator type per block: count, "
    "total,\n"
    "                              average, % of the method time, framework "
    "overhead\n"
    "  --allocations               allocation events per allocator\n"
    "  --sort KEY                  avg|p10|p50|p90|min|max|total|count|name\n"
    "  --reverse                   reverse the sort order\n"
    "  --top N                     keep the first N rows (per block with "
    "--summary)\n"
    "  --block INDEX|NAME          only this event block (repeatable)\n"
    "  --clock-hz HZ               convert cycles to time (or time to cycles)\n"
    "  --no-units                  no \" (ms)\" suffix in the headers\n"
    "  --include-delegate-debug-data  add the delegate_debug_metadata column\n"
    "  --all-rows                  keep OPERATOR_CALL rows\n"
    "  --all-columns               every to_dataframe column (raw, debug_data, "
    "...)\n"
    "  --allow-empty               skip event blocks without events instead of "
    "failing\n"
    "  --upstream-quirks           reproduce upstream's wrap-around and "
    "missing\n"
    "                              end-time behaviour and its ETRecord linking "
    "rules\n"
    "                              (see docs/compatibility.md)\n"
    "  --json-indent N             JSON indentation (2; 0 = compact)\n"
    "\n"
    "  --reference FILE.bpte       --compare_results against the expected "
    "outputs of\n"
    "                              this bundled program's test cases instead\n"
    "\n"
    "ETRecord options (need --etrecord_path):\n"
    "  --method NAME|BLOCK=NAME    link blocks with method NAME (all, or block "
    "BLOCK by\n"
    "                              index or name; repeatable); default: the "
    "method named\n"
    "                              like the block, else forward, else the only "
    "one\n"
    "  --by-module                 operator time per nn.Module, as a tree\n"
    "  --module-total NAME         the time of module NAME (dotted path or "
    "key) as\n"
    "                              --by-module counts it (repeatable; "
    "upstream's\n"
    "                              find_total_for_module with "
    "--upstream-quirks)\n"
    "  --module-match view|substring|exact  how --module-total matches: the\n"
    "                              module view's row (view), upstream's "
    "substring\n"
    "                              of a key, or the exact path "
    "(--exact-module)\n"
    "  --exact-module              --module-total matches the module path "
    "exactly\n"
    "                              instead of upstream's substring of a module "
    "key\n"
    "  --source[=full]             add a source column: file:line of each "
    "operator's\n"
    "                              innermost user frame (full: the whole file "
    "path)\n"
    "  --link-columns              add module, debug_handles and num_outputs "
    "columns\n"
    "  -h, --help                  this help\n";

#define CMD "inspect"
#define MAX_LIST ETK_INSPECT_MAX_SELECT

typedef struct cli {
  const char *etdump, *etrecord, *debug_buffer, *tsv_path, *output;
  int compare;
  const char *reference; /* --reference FILE.bpte */
  int quirks;
  etk_inspector_options_t opt;
  etk_inspector_render_options_t ro;
  /* ETRecord: --method (block NULL = every block), --module-total */
  const char *method_all;
  size_t method_count;
  char method_block[MAX_LIST][64];
  const char *method_name[MAX_LIST];
  size_t total_count;
  const char *totals[MAX_LIST];
  int exact_module;
  int module_match;         /* --module-match, or -1 */
  char needs_etrecord[128]; /* first option that needs --etrecord_path */
} cli_t;

enum {
  OPT_ETDUMP = 1,
  OPT_FORMAT,
  OPT_SUMMARY,
  OPT_ALLOCATIONS,
  OPT_SORT,
  OPT_TOP,
  OPT_BLOCK,
  OPT_NO_UNITS,
  OPT_QUIRKS,
  OPT_METHOD,
  OPT_BY_MODULE,
  OPT_MODULE_TOTAL,
  OPT_MODULE_MATCH,
  OPT_SOURCE,
  OPT_LINK_COLUMNS,
  OPT_JSON_INDENT,
};

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("etdump_path|etdump", 0, cli_t, etdump),
    ETK_CLI_STRING("etrecord_path|etrecord", 0, cli_t, etrecord),
    ETK_CLI_STRING("debug_buffer_path|debug_buffer", 0, cli_t, debug_buffer),
    ETK_CLI_TIME_OPTIONS,
    ETK_CLI_STRING("tsv_path", 0, cli_t, tsv_path),
    ETK_CLI_FLAG("compare_results", 0, cli_t, compare),
    ETK_CLI_STRING("reference", 0, cli_t, reference),
    {"format", 0, ETK_CLI_VALUE, OPT_FORMAT, 0},
    ETK_CLI_STRING("output", 'o', cli_t, output),
    {"summary|by_op_type", 0, ETK_CLI_NO_VALUE, OPT_SUMMARY, 0},
    {"allocations", 0, ETK_CLI_NO_VALUE, OPT_ALLOCATIONS, 0},
    {"sort", 0, ETK_CLI_VALUE, OPT_SORT, 0},
    ETK_CLI_FLAG("reverse", 0, cli_t, ro.reverse),
    {"top", 0, ETK_CLI_VALUE, OPT_TOP, 0},
    {"block", 0, ETK_CLI_VALUE, OPT_BLOCK, 0},
    {"no_units", 0, ETK_CLI_NO_VALUE, OPT_NO_UNITS, 0},
    ETK_CLI_FLAG("include_delegate_debug_data", 0, cli_t,
                 ro.include_delegate_debug_data),
    ETK_CLI_FLAG("all_rows", 0, cli_t, ro.all_rows),
    ETK_CLI_FLAG("all_columns", 0, cli_t, ro.all_columns),
    ETK_CLI_FLAG("allow_empty", 0, cli_t, ro.allow_empty),
    {"upstream_quirks", 0, ETK_CLI_NO_VALUE, OPT_QUIRKS, 0},
    {"method", 0, ETK_CLI_VALUE, OPT_METHOD, 0},
    {"by_module", 0, ETK_CLI_NO_VALUE, OPT_BY_MODULE, 0},
    {"module_total", 0, ETK_CLI_VALUE, OPT_MODULE_TOTAL, 0},
    ETK_CLI_FLAG("exact_module", 0, cli_t, exact_module),
    {"module_match", 0, ETK_CLI_VALUE, OPT_MODULE_MATCH, 0},
    {"source", 0, ETK_CLI_OPTIONAL_VALUE, OPT_SOURCE, 0},
    {"link_columns", 0, ETK_CLI_NO_VALUE, OPT_LINK_COLUMNS, 0},
    {"json_indent", 0, ETK_CLI_VALUE, OPT_JSON_INDENT, 0},
};

/* --block INDEX|NAME */
static int add_block(cli_t *c, const char *v) {
  return etk_cli_add_block(CMD, v, c->ro.select_index,
                           &c->ro.select_index_count, c->ro.select_name,
                           &c->ro.select_name_count);
}

/* --method NAME (every block) or BLOCK=NAME */
static int add_method(cli_t *c, const char *v) {
  const char *eq = strrchr(v, '=');
  if (!eq) {
    if (!*v) return etk_cli_usage(CMD, "%s", "--method needs a method name");
    c->method_all = v;
    return 0;
  }
  size_t n = (size_t)(eq - v);
  if (n == 0 || n >= sizeof c->method_block[0] || !eq[1])
    return etk_cli_usage(CMD, "--method needs NAME or BLOCK=NAME, not '%s'", v);
  if (c->method_count == MAX_LIST)
    return etk_cli_usage(CMD, "too many --method options at '%s'", v);
  memcpy(c->method_block[c->method_count], v, n);
  c->method_block[c->method_count][n] = 0;
  c->method_name[c->method_count++] = eq + 1;
  return 0;
}

/* The options that only make sense with an ETRecord; 0 or a status. */
static int apply_link_option(cli_t *c, const etk_cli_parser_t *p, int id) {
  const char *v = p->value;
  if (!c->needs_etrecord[0])
    snprintf(c->needs_etrecord, sizeof c->needs_etrecord, "%s", p->arg);
  switch (id) {
    case OPT_METHOD:
      return add_method(c, v);
    case OPT_BY_MODULE:
      c->ro.view = ETK_INSPECT_VIEW_MODULES;
      return 0;
    case OPT_MODULE_TOTAL:
      if (c->total_count == MAX_LIST)
        return etk_cli_usage(CMD, "too many --module-total options at '%s'", v);
      c->totals[c->total_count++] = v;
      return 0;
    case OPT_SOURCE:
      if (v && strcmp(v, "full") != 0)
        return etk_cli_usage(CMD,
                             "--source takes no value or '=full', not '%s'", v);
      c->ro.columns |= ETK_INSPECT_COLUMN_SOURCE;
      c->ro.full_paths = v != NULL;
      return 0;
    case OPT_LINK_COLUMNS:
      c->ro.columns |= ETK_INSPECT_COLUMN_MODULE |
                       ETK_INSPECT_COLUMN_DEBUG_HANDLES |
                       ETK_INSPECT_COLUMN_NUM_OUTPUTS;
      return 0;
  }
  return 0;
}

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  cli_t *c = ctx;
  const char *v = p->value;
  int t = etk_cli_time_option(p, id, &c->opt.source_time_scale,
                              &c->opt.target_time_scale, &c->opt.clock_hz);
  if (t) return t < 0 ? 2 : 0;
  switch (id) {
    case ETK_CLI_POSITIONAL:
      return etk_cli_usage(CMD, "unknown argument '%s'", v);
    case OPT_FORMAT:
      return etk_cli_format_value(p, &c->ro.format) ? 2 : 0;
    case OPT_SUMMARY:
      c->ro.view = ETK_INSPECT_VIEW_SUMMARY;
      return 0;
    case OPT_ALLOCATIONS:
      c->ro.view = ETK_INSPECT_VIEW_ALLOCATIONS;
      return 0;
    case OPT_SORT:
      if (etk_inspect_sort_parse(v, &c->ro.sort) != ETK_OK)
        return etk_cli_usage(
            CMD,
            "invalid sort key '%s' (choose from avg, p10, p50, "
            "p90, min, max, total, count, name)",
            v);
      return 0;
    case OPT_TOP:
      return etk_cli_positive_size_value(p, &c->ro.top) ? 2 : 0;
    case OPT_BLOCK:
      return add_block(c, v);
    case OPT_NO_UNITS:
      c->ro.include_units = 0;
      return 0;
    case OPT_QUIRKS:
      c->opt.flags |= ETK_INSPECTOR_QUIRKS_ALL;
      c->quirks = 1;
      return 0;
    case OPT_JSON_INDENT:
      return etk_cli_json_indent_value(p, &c->ro.json_indent) ? 2 : 0;
    case OPT_MODULE_MATCH: {
      static const char *const names[] = {"substring", "exact", "view"};
      for (int k = 0; k < 3; k++)
        if (strcmp(v, names[k]) == 0) c->module_match = k;
      if (c->module_match < 0)
        return etk_cli_usage(CMD,
                             "invalid module match '%s' (choose from view, "
                             "substring, exact)",
                             v);
      return 0;
    }
  }
  return apply_link_option(c, p, id);
}

/* -1 after --help, 0 to go on, else an exit status. */
static int parse_args(int argc, char **argv, cli_t *c) {
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, c);
  if (rc) return rc;
  if (etk_cli_require(CMD, c->etdump, "--etdump_path")) return 2;
  if (c->needs_etrecord[0] && !c->etrecord)
    return etk_cli_usage(CMD, "%s needs --etrecord_path", c->needs_etrecord);
  if (c->reference && !c->compare)
    return etk_cli_usage(CMD, "%s", "--reference needs --compare_results");
  if ((c->exact_module || c->module_match >= 0) && !c->total_count)
    return etk_cli_usage(CMD, "%s", "--exact-module needs --module-total");
  if (c->total_count && c->ro.view != ETK_INSPECT_VIEW_EVENTS)
    return etk_cli_usage(CMD, "%s",
                         "--module-total cannot be combined with --summary, "
                         "--by-module or --allocations");
  if (etk_cli_time_check(CMD, &c->opt)) return 1;
  if (c->output && etk_cli_check_output(CMD, c->output)) return 1;
  if (c->tsv_path && etk_cli_check_output(CMD, c->tsv_path)) return 1;
  return 0;
}

static int fail_err(const etk_error_t *err) {
  char line[ETK_ERROR_LINE_SIZE];
  return etk_cli_fail("inspect", "%s",
                      etk_error_format(err, line, sizeof line));
}

/* How --module-total matches: the module view's row (etkit), the exact
 * path (--exact-module) or upstream's substring of a key (quirks). */
static etk_inspector_module_match_t module_match(const cli_t *c) {
  if (c->module_match >= 0)
    return (etk_inspector_module_match_t)c->module_match;
  return c->exact_module ? ETK_INSPECTOR_MODULE_EXACT
         : c->quirks     ? ETK_INSPECTOR_MODULE_SUBSTRING
                         : ETK_INSPECTOR_MODULE_VIEW;
}

/* Renders into `path` ("-" = stdout) atomically. */
static int render_to(etk_inspector_t *insp,
                     const etk_inspector_render_options_t *ro,
                     const cli_t *totals, const char *path, int with_allocs,
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
  if (totals)
    rc = etk_inspector_render_module_totals(
        insp, totals->totals, totals->total_count, module_match(totals), ro,
        sink, err);
  else
    rc = etk_inspector_render(insp, ro, sink, err);
  if (rc == ETK_OK && with_allocs) {
    etk_inspector_render_options_t ao = *ro;
    ao.view = ETK_INSPECT_VIEW_ALLOCATIONS;
    ao.top = 0;
    etk_render_puts(
        sink, "\nallocation events (upstream's Inspector cannot read them):\n");
    rc = etk_inspector_render(insp, &ao, sink, err);
  }
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

/* Prints a library note or warning as "etkit inspect: warning: ...". */
static void print_note(void *ctx, int is_warning, const char *line) {
  (void)ctx;
  fprintf(stderr, "etkit inspect: %s: %s\n", is_warning ? "warning" : "note",
          line);
}

/* Opens the ETRecord and links every block (etk_etrecord_link_with_policy
 * with the --method choices and --upstream-quirks). */
static int link_etrecord(const cli_t *c, etk_inspector_t *insp,
                         etk_etrecord_t **rec_out, etk_error_t *err) {
  etk_error_clear(err);
  int rc = etk_etrecord_open_file(c->etrecord, NULL, rec_out, err);
  if (rc != ETK_OK) {
    etk_etrecord_error_where(err, c->etrecord);
    return rc;
  }
  etk_error_clear(err);
  etk_link_policy_t policy;
  etk_link_policy_init(&policy);
  policy.upstream_quirks = c->quirks;
  policy.method_all = c->method_all;
  policy.method_count = c->method_count;
  for (size_t i = 0; i < c->method_count; i++) {
    policy.method_block[i] = c->method_block[i];
    policy.method_name[i] = c->method_name[i];
  }
  policy.record_name = c->etrecord;
  policy.note = print_note;
  return etk_etrecord_link_with_policy(*rec_out, insp, &policy, NULL, err);
}

/* Prints upstream's compare_results text on stdout. */
static int compare_results(const etk_reference_outputs_t *ref,
                           const etk_inspector_t *insp, const uint8_t *dbuf,
                           size_t dlen, etk_error_t *err) {
  etk_render_sink_t *sink = malloc(sizeof *sink);
  if (!sink)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_render_sink_init_file(sink, stdout);
  etk_compare_report_t report = {print_note, NULL, NULL};
  int rc =
      etk_compare_results_inspector(ref, insp, dbuf, dlen, sink, &report, err);
  int frc = etk_render_sink_flush(sink);
  free(sink);
  if (rc == ETK_OK && frc != ETK_OK)
    rc = etk_error_set(err, frc, ETK_NO_OFFSET, "writing to stdout failed");
  return rc;
}

/* --module-total: a name that matches no module gets a warning (its row
 * says 0 events, as upstream's 0.0); when no name matches anything the
 * query compared nothing, which is an error (1). */
static int check_module_totals(const cli_t *c, etk_inspector_t *insp) {
  static const char *const how[] = {"whose module stack contains",
                                    "whose module stack has the path",
                                    "in a module named"};
  etk_inspector_module_match_t match = module_match(c);
  size_t matched = 0;
  for (size_t i = 0; i < c->total_count; i++) {
    double total;
    size_t events = 0;
    if (match == ETK_INSPECTOR_MODULE_VIEW)
      etk_inspector_module_view_total(insp, c->totals[i], &total, &events,
                                      NULL);
    else
      etk_inspector_module_total(insp, c->totals[i], match, &total, &events);
    if (events) {
      matched++;
      continue;
    }
    fprintf(stderr,
            "etkit inspect: %s--module-total %s matched nothing: no timed "
            "operator %s \"%s\"\n",
            c->total_count > 1 ? "warning: " : "", c->totals[i], how[match],
            c->totals[i]);
  }
  if (matched || c->total_count == 1) return matched ? 0 : 1;
  return etk_cli_fail(CMD, "no --module-total name matched a module");
}

int etk_cmd_inspect(int argc, char **argv) {
  cli_t c;
  memset(&c, 0, sizeof c);
  c.module_match = -1;
  etk_inspector_options_init(&c.opt);
  etk_inspector_render_options_init(&c.ro);
  int prc = parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return prc;
  /* --compare_results reads program outputs from the debug buffer: refuse
   * before printing anything (upstream would compare zeros) */
  if (c.compare && !c.debug_buffer)
    return etk_cli_fail("inspect",
                        "--compare_results needs --debug_buffer_path "
                        "(the program outputs are in the debug "
                        "buffer)");
  if (c.compare && !c.reference && !c.etrecord)
    return etk_cli_fail("inspect",
                        "--compare_results needs reference outputs: "
                        "--etrecord_path (with reference_outputs) or "
                        "--reference FILE.bpte");

  etk_error_t err;
  etk_error_clear(&err);

  uint8_t *dbuf = NULL;
  size_t dlen = 0;
  if (c.debug_buffer) {
    if (etk_read_file(c.debug_buffer, 0, &dbuf, &dlen, &err) != ETK_OK)
      return fail_err(&err);
    c.opt.debug_buffer = dbuf;
    c.opt.debug_buffer_len = dlen;
  }

  etk_inspector_t *insp;
  if (etk_inspector_open_path(c.etdump, &c.opt, &insp, &err) != ETK_OK) {
    free(dbuf);
    return fail_err(&err);
  }
  etk_etrecord_t *rec = NULL;
  if (c.etrecord && link_etrecord(&c, insp, &rec, &err) != ETK_OK) {
    etk_etrecord_close(rec);
    etk_inspector_close(insp);
    free(dbuf);
    return fail_err(&err);
  }
  etk_reference_outputs_t *ref = NULL;
  if (c.compare) {
    etk_error_t rerr; /* (err may still name the ETDump) */
    etk_error_clear(&rerr);
    if (etk_reference_outputs_open(c.reference, rec, c.etrecord, &ref, &rerr) !=
        ETK_OK) {
      etk_etrecord_close(rec);
      etk_inspector_close(insp);
      free(dbuf);
      return fail_err(&rerr);
    }
  }
  size_t mismatches = etk_inspector_debug_mismatch_count(insp);
  if (mismatches)
    fprintf(stderr,
            "etkit inspect: warning: %zu debug value(s) differ between merged "
            "runs (upstream stops with an AssertionError); showing the first "
            "run's values\n",
            mismatches);

  if (c.total_count && check_module_totals(&c, insp) != 0) {
    etk_reference_outputs_free(ref);
    etk_etrecord_close(rec);
    etk_inspector_close(insp);
    free(dbuf);
    return 1;
  }
  /* Allocation events (which upstream cannot read) are shown after the
   * events table; machine formats get them through --allocations/JSON. */
  int with_allocs = c.ro.format == ETK_INSPECT_FORMAT_TABLE &&
                    c.ro.view == ETK_INSPECT_VIEW_EVENTS &&
                    etk_inspector_allocator_count(insp) > 0;
  int rc = render_to(insp, &c.ro, c.total_count ? &c : NULL,
                     c.output ? c.output : "-", with_allocs, &err);
  if (rc == ETK_OK && c.tsv_path) {
    etk_inspector_render_options_t tsv;
    etk_inspector_render_options_init(&tsv);
    tsv.format = ETK_INSPECT_FORMAT_TSV;
    tsv.include_units = c.ro.include_units;
    tsv.include_delegate_debug_data = c.ro.include_delegate_debug_data;
    tsv.allow_empty = c.ro.allow_empty;
    rc = render_to(insp, &tsv, NULL, c.tsv_path, 0, &err);
  }
  /* upstream's inspector_cli: the table, the TSV, then compare_results */
  if (rc == ETK_OK && ref) rc = compare_results(ref, insp, dbuf, dlen, &err);
  etk_reference_outputs_free(ref);
  etk_inspector_close(insp);
  etk_etrecord_close(rec);
  free(dbuf);
  if (rc != ETK_OK) return fail_err(&err);
  return 0;
}
