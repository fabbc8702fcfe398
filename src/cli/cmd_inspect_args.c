/*
 * cmd_inspect_args.c - the arguments of `etkit inspect`: its help text,
 * its option table (read by the shared parser of cli_args.c), the checks
 * between options, and how --module-total's flags combine.
 *
 * Options that only make sense with an ETRecord (--method, --by-module,
 * --module-total, --source, --link-columns) go through apply_link_option,
 * which remembers the first one so that its absence of --etrecord_path is
 * reported by name.  Nothing here opens a file: cmd_inspect.c does the work.
 */
#include "cmd_inspect_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"

static const char *const usage_text =
    "usage: etkit inspect [--etdump_path] FILE [options]\n"
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
    "  --compensate                take from every event what recording the\n"
    "                              events inside it cost (the ETDump's\n"
    "                              calibration, written by etkit run)\n"
    "  --event-cost NS             the cost of one event, instead of the\n"
    "                              dump's calibration (implies --compensate;\n"
    "                              for a dump without one)\n"
    "  --allocations               allocation events per allocator\n"
    "  --runs                      per-run series of each block: warm-up,\n"
    "                              drift, outliers, LLM prefill/decode phases\n"
    "  --prompt-tokens N           with --runs: the prompt's token count\n"
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
    "  --min-snr DB                --compare_results as a gate: exit 1 when "
    "an\n"
    "                              output's SNR is below DB, 2 on trouble\n"
    "                              (docs/exit-status.md)\n"
    "\n"
    "ETRecord options (need --etrecord_path):\n"
    "  --method NAME|BLOCK=NAME    link blocks with method NAME (all, or block "
    "BLOCK by\n"
    "                              index or name; repeatable); default: the "
    "method named\n"
    "                              like the block, else forward, else the only "
    "one\n"
    "  --reference-graph NAME      take op types, stack traces and modules "
    "from this\n"
    "                              graph of the ETRecord (a graph_map name; "
    "upstream's\n"
    "                              reference_graph_name); default: each "
    "method's edge\n"
    "                              program\n"
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

enum {
  OPT_FORMAT = 1,
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
  OPT_EVENT_COST,
  OPT_REFERENCE_GRAPH,
};

static const etk_cli_option_t options[] = {
    ETK_CLI_INSPECTOR_FILES(cli_t),
    ETK_CLI_TIME_OPTIONS,
    ETK_CLI_STRING("tsv_path", 0, cli_t, tsv_path),
    ETK_CLI_FLAG("compare_results", 0, cli_t, compare),
    ETK_CLI_FLAG("runs", 0, cli_t, runs),
    ETK_CLI_STRING("prompt_tokens", 0, cli_t, prompt_tokens),
    ETK_CLI_STRING("reference", 0, cli_t, reference),
    ETK_CLI_STRING("min_snr", 0, cli_t, min_snr),
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
    {"reference_graph", 0, ETK_CLI_VALUE, OPT_REFERENCE_GRAPH, 0},
    {"by_module", 0, ETK_CLI_NO_VALUE, OPT_BY_MODULE, 0},
    {"module_total", 0, ETK_CLI_VALUE, OPT_MODULE_TOTAL, 0},
    ETK_CLI_FLAG("exact_module", 0, cli_t, exact_module),
    {"module_match", 0, ETK_CLI_VALUE, OPT_MODULE_MATCH, 0},
    {"source", 0, ETK_CLI_OPTIONAL_VALUE, OPT_SOURCE, 0},
    {"link_columns", 0, ETK_CLI_NO_VALUE, OPT_LINK_COLUMNS, 0},
    {"json_indent", 0, ETK_CLI_VALUE, OPT_JSON_INDENT, 0},
    ETK_CLI_FLAG("compensate", 0, cli_t, opt.compensate),
    {"event_cost", 0, ETK_CLI_VALUE, OPT_EVENT_COST, 0},
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
    case OPT_REFERENCE_GRAPH:
      if (!*v)
        return etk_cli_usage(CMD, "%s", "--reference-graph needs a graph name");
      c->reference_graph = v;
      return 0;
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
    case ETK_CLI_POSITIONAL: /* the ETDump, as trace and memory take it */
      if (c->etdump)
        return etk_cli_usage(CMD, "unexpected argument '%s' (the ETDump is %s)",
                             v, c->etdump);
      c->etdump = v;
      return 0;
    case OPT_FORMAT:
      return etk_cli_format_value(p, &c->ro.format) ? 2 : 0;
    case OPT_SUMMARY:
      c->ro.view = ETK_INSPECT_VIEW_SUMMARY;
      return 0;
    case OPT_EVENT_COST: {
      char *end;
      double ns = strtod(v, &end);
      if (end == v || *end || !(ns > 0 && ns < 1e12))
        return etk_cli_usage(CMD,
                             "--event-cost needs nanoseconds > 0, not '%s'", v);
      c->opt.event_cost_ns = ns;
      c->opt.compensate = 1;
      return 0;
    }
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

int cli_inspect_parse_args(int argc, char **argv, cli_t *c) {
  memset(c, 0, sizeof *c);
  c->module_match = -1;
  etk_inspector_options_init(&c->opt);
  etk_inspector_render_options_init(&c->ro);
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, c);
  if (rc) return rc;
  if (etk_cli_require(CMD, c->etdump, "--etdump_path")) return 2;
  if (c->needs_etrecord[0] && !c->etrecord)
    return etk_cli_usage(CMD, "%s needs --etrecord_path", c->needs_etrecord);
  if (c->reference && !c->compare)
    return etk_cli_usage(CMD, "%s", "--reference needs --compare_results");
  if (c->prompt_tokens && !c->runs)
    return etk_cli_usage(CMD, "%s", "--prompt-tokens needs --runs");
  if (c->min_snr && !c->compare)
    return etk_cli_usage(CMD, "%s", "--min-snr needs --compare_results");
  if (c->min_snr && !etk_cli_parse_double(c->min_snr, &c->min_snr_db))
    return etk_cli_usage(CMD, "--min-snr needs a number of dB, not '%s'",
                         c->min_snr);
  if ((c->exact_module || c->module_match >= 0) && !c->total_count)
    return etk_cli_usage(CMD, "%s", "--exact-module needs --module-total");
  if (c->total_count && c->ro.view != ETK_INSPECT_VIEW_EVENTS)
    return etk_cli_usage(CMD, "%s",
                         "--module-total cannot be combined with --summary, "
                         "--by-module or --allocations");
  if (etk_cli_time_check(CMD, &c->opt)) return 2;
  if ((rc = etk_cli_check_output(CMD, c->output))) return rc;
  if ((rc = etk_cli_check_output(CMD, c->tsv_path))) return rc;
  return 0;
}

etk_inspector_module_match_t cli_inspect_module_match(const cli_t *c) {
  if (c->module_match >= 0)
    return (etk_inspector_module_match_t)c->module_match;
  return c->exact_module ? ETK_INSPECTOR_MODULE_EXACT
         : c->quirks     ? ETK_INSPECTOR_MODULE_SUBSTRING
                         : ETK_INSPECTOR_MODULE_VIEW;
}
