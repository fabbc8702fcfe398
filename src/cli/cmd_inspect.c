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

#include "commands.h"
#include "etkit/common.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/render.h"

static const char *const usage_text =
    "usage: etkit inspect --etdump_path FILE [options]\n"
    "\n"
    "Reads an ETDump and prints upstream's Inspector table (print_data_tabular).\n"
    "\n"
    "upstream options (inspector_cli.py):\n"
    "  --etdump_path FILE          ETDump (.etdp) to read (required)\n"
    "  --etrecord_path FILE        ETRecord to link: op types, backends, stack traces,\n"
    "                              module hierarchy (all methods; see --method)\n"
    "  --debug_buffer_path FILE    debug buffer holding intermediate tensors\n"
    "  --source_time_scale UNIT    unit of the raw timestamps: ns|us|ms|s|cycles (ns)\n"
    "  --target_time_scale UNIT    unit of the reported times (ms)\n"
    "  --tsv_path FILE             also write the table as TSV (save_data_to_tsv)\n"
    "  --compare_results           for every block named \"Execute\", print snr, mse\n"
    "                              and cosine_similarity of its program outputs\n"
    "                              (needs --debug_buffer_path) against the\n"
    "                              ETRecord's reference_outputs (text, no plots)\n"
    "\n"
    "etkit options:\n"
    "  --format table|tsv|csv|json output format (table)\n"
    "  --output FILE               write the output to FILE (atomically) instead of stdout\n"
    "  --summary, --by-op-type     one row per operator type per block: count, total,\n"
    "                              average, % of the method time, framework overhead\n"
    "  --allocations               allocation events per allocator\n"
    "  --sort KEY                  avg|p10|p50|p90|min|max|total|count|name\n"
    "  --reverse                   reverse the sort order\n"
    "  --top N                     keep the first N rows (per block with --summary)\n"
    "  --block INDEX|NAME          only this event block (repeatable)\n"
    "  --clock-hz HZ               convert cycles to time (or time to cycles)\n"
    "  --no-units                  no \" (ms)\" suffix in the headers\n"
    "  --include-delegate-debug-data  add the delegate_debug_metadata column\n"
    "  --all-rows                  keep OPERATOR_CALL rows\n"
    "  --all-columns               every to_dataframe column (raw, debug_data, ...)\n"
    "  --allow-empty               skip event blocks without events instead of failing\n"
    "  --upstream-quirks           reproduce upstream's wrap-around and missing\n"
    "                              end-time behaviour and its ETRecord linking rules\n"
    "                              (see docs/compatibility.md)\n"
    "  --json-indent N             JSON indentation (2; 0 = compact)\n"
    "\n"
    "  --reference FILE.bpte       --compare_results against the expected outputs of\n"
    "                              this bundled program's test cases instead\n"
    "\n"
    "ETRecord options (need --etrecord_path):\n"
    "  --method NAME|BLOCK=NAME    link blocks with method NAME (all, or block BLOCK by\n"
    "                              index or name; repeatable); default: the method named\n"
    "                              like the block, else forward, else the only one\n"
    "  --by-module                 operator time per nn.Module, as a tree\n"
    "  --module-total NAME         upstream's find_total_for_module(NAME) (repeatable)\n"
    "  --exact-module              --module-total matches the module path exactly\n"
    "                              instead of upstream's substring of a module key\n"
    "  --source[=full]             add a source column: file:line of each operator's\n"
    "                              innermost user frame (full: the whole file path)\n"
    "  --link-columns              add module, debug_handles and num_outputs columns\n"
    "  -h, --help                  this help\n";

/* Matches "--name" / "--name=value" with '_' and '-' interchangeable. */
static int flag_is(const char *arg, const char *name, const char **inline_value) {
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
  const char *needs_etrecord; /* first option that needs --etrecord_path */
} cli_t;

static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "etkit inspect: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (try 'etkit inspect --help')\n");
  return 2;
}

static int parse_size(const char *s, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-') return 0;
  *out = (size_t)v;
  return 1;
}

static int parse_args(int argc, char **argv, cli_t *c) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
#define VALUE()                                                               \
  do {                                                                        \
    if (!v) {                                                                 \
      if (i + 1 >= argc) return usage_error("option %s needs a value", a);    \
      v = argv[++i];                                                          \
    }                                                                         \
  } while (0)
    if (strcmp(a, "-h") == 0 || flag_is(a, "help", &v)) {
      fputs(usage_text, stdout);
      return -1;
    } else if (flag_is(a, "etdump_path", &v)) {
      VALUE();
      c->etdump = v;
    } else if (flag_is(a, "etrecord_path", &v)) {
      VALUE();
      c->etrecord = v;
    } else if (flag_is(a, "debug_buffer_path", &v)) {
      VALUE();
      c->debug_buffer = v;
    } else if (flag_is(a, "source_time_scale", &v) ||
               flag_is(a, "target_time_scale", &v)) {
      int src = strstr(a, "source") != NULL;
      VALUE();
      etk_time_scale_t t;
      if (etk_time_scale_parse(v, &t) != ETK_OK)
        return usage_error("invalid time scale '%s' (choose from ns, us, ms, s, cycles)", v);
      if (src) c->opt.source_time_scale = t;
      else c->opt.target_time_scale = t;
    } else if (flag_is(a, "tsv_path", &v)) {
      VALUE();
      c->tsv_path = v;
    } else if (flag_is(a, "compare_results", &v) && !v) {
      c->compare = 1;
    } else if (flag_is(a, "reference", &v)) {
      VALUE();
      c->reference = v;
    } else if (flag_is(a, "format", &v)) {
      VALUE();
      if (strcmp(v, "table") == 0) c->ro.format = ETK_INSPECT_FORMAT_TABLE;
      else if (strcmp(v, "tsv") == 0) c->ro.format = ETK_INSPECT_FORMAT_TSV;
      else if (strcmp(v, "csv") == 0) c->ro.format = ETK_INSPECT_FORMAT_CSV;
      else if (strcmp(v, "json") == 0) c->ro.format = ETK_INSPECT_FORMAT_JSON;
      else return usage_error("invalid format '%s' (choose from table, tsv, csv, json)", v);
    } else if (flag_is(a, "output", &v) || strcmp(a, "-o") == 0) {
      VALUE();
      c->output = v;
    } else if ((flag_is(a, "summary", &v) || flag_is(a, "by_op_type", &v)) && !v) {
      c->ro.view = ETK_INSPECT_VIEW_SUMMARY;
    } else if (flag_is(a, "allocations", &v) && !v) {
      c->ro.view = ETK_INSPECT_VIEW_ALLOCATIONS;
    } else if (flag_is(a, "sort", &v)) {
      VALUE();
      if (etk_inspect_sort_parse(v, &c->ro.sort) != ETK_OK)
        return usage_error("invalid sort key '%s' (choose from avg, p10, p50, p90, "
                           "min, max, total, count, name)", v);
    } else if (flag_is(a, "reverse", &v) && !v) {
      c->ro.reverse = 1;
    } else if (flag_is(a, "top", &v)) {
      VALUE();
      if (!parse_size(v, &c->ro.top) || c->ro.top == 0)
        return usage_error("--top needs a positive integer, not '%s'", v);
    } else if (flag_is(a, "block", &v)) {
      VALUE();
      size_t idx;
      if (parse_size(v, &idx)) {
        if (c->ro.select_index_count == ETK_INSPECT_MAX_SELECT)
          return usage_error("too many --block options at '%s'", v);
        c->ro.select_index[c->ro.select_index_count++] = idx;
      } else {
        if (c->ro.select_name_count == ETK_INSPECT_MAX_SELECT)
          return usage_error("too many --block options at '%s'", v);
        c->ro.select_name[c->ro.select_name_count++] = v;
      }
    } else if (flag_is(a, "clock_hz", &v)) {
      VALUE();
      char *end;
      errno = 0;
      double hz = strtod(v, &end);
      if (errno || end == v || *end || !(hz > 0) || hz - hz != 0)
        return usage_error("--clock-hz needs a positive number, not '%s'", v);
      c->opt.clock_hz = hz;
    } else if (flag_is(a, "no_units", &v) && !v) {
      c->ro.include_units = 0;
    } else if (flag_is(a, "include_delegate_debug_data", &v) && !v) {
      c->ro.include_delegate_debug_data = 1;
    } else if (flag_is(a, "all_rows", &v) && !v) {
      c->ro.all_rows = 1;
    } else if (flag_is(a, "all_columns", &v) && !v) {
      c->ro.all_columns = 1;
    } else if (flag_is(a, "allow_empty", &v) && !v) {
      c->ro.allow_empty = 1;
    } else if (flag_is(a, "upstream_quirks", &v) && !v) {
      c->opt.flags |= ETK_INSPECTOR_QUIRKS_ALL;
      c->quirks = 1;
    } else if (flag_is(a, "method", &v)) {
      VALUE();
      const char *eq = strrchr(v, '=');
      if (!eq) {
        if (!*v) return usage_error("%s", "--method needs a method name");
        c->method_all = v;
      } else {
        size_t n = (size_t)(eq - v);
        if (n == 0 || n >= sizeof c->method_block[0] || !eq[1])
          return usage_error("--method needs NAME or BLOCK=NAME, not '%s'", v);
        if (c->method_count == MAX_LIST)
          return usage_error("too many --method options at '%s'", v);
        memcpy(c->method_block[c->method_count], v, n);
        c->method_block[c->method_count][n] = 0;
        c->method_name[c->method_count++] = eq + 1;
      }
      if (!c->needs_etrecord) c->needs_etrecord = "--method";
    } else if (flag_is(a, "by_module", &v) && !v) {
      c->ro.view = ETK_INSPECT_VIEW_MODULES;
      if (!c->needs_etrecord) c->needs_etrecord = "--by-module";
    } else if (flag_is(a, "module_total", &v)) {
      VALUE();
      if (c->total_count == MAX_LIST)
        return usage_error("too many --module-total options at '%s'", v);
      c->totals[c->total_count++] = v;
      if (!c->needs_etrecord) c->needs_etrecord = "--module-total";
    } else if (flag_is(a, "exact_module", &v) && !v) {
      c->exact_module = 1;
    } else if (flag_is(a, "source", &v)) {
      if (v && strcmp(v, "full") != 0)
        return usage_error("--source takes no value or '=full', not '%s'", v);
      c->ro.columns |= ETK_INSPECT_COLUMN_SOURCE;
      c->ro.full_paths = v != NULL;
      if (!c->needs_etrecord) c->needs_etrecord = "--source";
    } else if (flag_is(a, "link_columns", &v) && !v) {
      c->ro.columns |= ETK_INSPECT_COLUMN_MODULE |
                       ETK_INSPECT_COLUMN_DEBUG_HANDLES |
                       ETK_INSPECT_COLUMN_NUM_OUTPUTS;
      if (!c->needs_etrecord) c->needs_etrecord = "--link-columns";
    } else if (flag_is(a, "json_indent", &v)) {
      VALUE();
      size_t n;
      if (!parse_size(v, &n) || n > 16)
        return usage_error("--json-indent needs an integer from 0 to 16, not '%s'", v);
      c->ro.json_indent = (int)n;
    } else {
      return usage_error("unknown argument '%s'", a);
    }
#undef VALUE
  }
  if (!c->etdump) return usage_error("%s", "the following argument is required: --etdump_path");
  if (c->needs_etrecord && !c->etrecord)
    return usage_error("%s needs --etrecord_path", c->needs_etrecord);
  if (c->reference && !c->compare)
    return usage_error("%s", "--reference needs --compare_results");
  if (c->exact_module && !c->total_count)
    return usage_error("%s", "--exact-module needs --module-total");
  if (c->total_count && c->ro.view != ETK_INSPECT_VIEW_EVENTS)
    return usage_error("%s", "--module-total cannot be combined with --summary, "
                             "--by-module or --allocations");
  return 0;
}

static int fail_err(const etk_error_t *err) {
  char line[ETK_ERROR_LINE_SIZE];
  return etk_cli_fail("inspect", "%s", etk_error_format(err, line, sizeof line));
}

/* Renders into `path` ("-" = stdout) atomically. */
static int render_to(etk_inspector_t *insp, const etk_inspector_render_options_t *ro,
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
        insp, totals->totals, totals->total_count,
        totals->exact_module ? ETK_INSPECTOR_MODULE_EXACT
                             : ETK_INSPECTOR_MODULE_SUBSTRING,
        ro, sink, err);
  else
    rc = etk_inspector_render(insp, ro, sink, err);
  if (rc == ETK_OK && with_allocs) {
    etk_inspector_render_options_t ao = *ro;
    ao.view = ETK_INSPECT_VIEW_ALLOCATIONS;
    ao.top = 0;
    etk_render_puts(sink, "\nallocation events (upstream's Inspector cannot read them):\n");
    rc = etk_inspector_render(insp, &ao, sink, err);
  }
  if (rc == ETK_OK) rc = etk_render_sink_flush(sink);
  free(sink);
  if (rc != ETK_OK) {
    if (err && err->code == ETK_OK)
      etk_error_set(err, rc, ETK_NO_OFFSET, "writing failed: %s", etk_strerror(rc));
    etk_error_where(err, strcmp(path, "-") == 0 ? "<stdout>" : path);
    etk_outfile_abort(&of);
    return rc;
  }
  return etk_outfile_commit(&of, err);
}

/* "forward, decode" into buf. */
static const char *method_list(const etk_etrecord_t *rec, char *buf, size_t size) {
  size_t at = 0;
  buf[0] = 0;
  const char *m;
  for (size_t i = 0; (m = etk_etrecord_method_at(rec, i)) != NULL && at < size; i++) {
    int k = snprintf(buf + at, size - at, "%s%s", i ? ", " : "", m);
    if (k < 0) break;
    at += (size_t)k;
  }
  return buf[0] ? buf : "none";
}

/* Puts the ETRecord's path in front of err->where ("<path>: <member>"). */
static void where_in_record(etk_error_t *err, const char *path) {
  char joined[2 * sizeof err->where + 4096];
  if (err->where[0] && strcmp(err->where, path) != 0)
    snprintf(joined, sizeof joined, "%s: %s", path, err->where);
  else
    snprintf(joined, sizeof joined, "%s", path);
  size_t n = strlen(joined);
  if (n >= sizeof err->where) n = sizeof err->where - 1; /* keep the start */
  memcpy(err->where, joined, n);
  err->where[n] = 0;
}

/* The block a --method BLOCK=NAME names: an index or an exact name. */
static int method_spec_matches(const char *spec, size_t index,
                               const etk_inspector_block_t *b) {
  size_t idx;
  if (parse_size(spec, &idx)) return idx == index;
  return b->name_present && strlen(spec) == b->name_len &&
         memcmp(spec, b->name, b->name_len) == 0;
}

/* Opens the ETRecord and links every block (method per block: an explicit
 * --method, else the record's choice for the block's name). */
static int link_etrecord(const cli_t *c, etk_inspector_t *insp,
                         etk_etrecord_t **rec_out, etk_error_t *err) {
  etk_error_clear(err);
  int rc = etk_etrecord_open_file(c->etrecord, NULL, rec_out, err);
  if (rc != ETK_OK) {
    where_in_record(err, c->etrecord);
    return rc;
  }
  etk_error_clear(err);
  etk_etrecord_t *rec = *rec_out;
  char names[512];
  if (!etk_etrecord_method_at(rec, 0)) {
    fprintf(stderr, "etkit inspect: warning: %s names no method (no debug "
                    "maps, no edge program): nothing is linked\n", c->etrecord);
    return ETK_OK;
  }
  for (size_t i = 0; i <= c->method_count; i++) {
    const char *m = i < c->method_count ? c->method_name[i] : c->method_all;
    if (m && !etk_etrecord_has_method(rec, m)) {
      etk_error_where(err, c->etrecord);
      return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                           "--method %s: the ETRecord has no method \"%s\" "
                           "(methods: %s)",
                           m, m, method_list(rec, names, sizeof names));
    }
  }
  size_t blocks = etk_inspector_block_count(insp);
  for (size_t i = 0; i < c->method_count; i++) {
    int found = 0;
    for (size_t b = 0; b < blocks && !found; b++) {
      etk_inspector_block_t blk;
      etk_inspector_block_get(insp, b, &blk);
      found = method_spec_matches(c->method_block[i], b, &blk);
    }
    if (!found)
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "--method %s=%s: there is no event block \"%s\" "
                           "(the ETDump has %zu)",
                           c->method_block[i], c->method_name[i],
                           c->method_block[i], blocks);
  }
  /* etkit's rules by default; upstream's with --upstream-quirks: top graph
   * only, framework events and substring delegate ids, and "forward" for
   * every block that --method does not name */
  unsigned flags = c->quirks ? ETK_ETRECORD_LINK_TOP_GRAPH_ONLY
                             : ETK_ETRECORD_LINK_INSTRUCTIONS_ONLY |
                                   ETK_ETRECORD_LINK_EXACT_DELEGATE_IDS;
  etk_etrecord_link_summary_t sum;
  memset(&sum, 0, sizeof sum);
  for (size_t b = 0; b < blocks; b++) {
    etk_inspector_block_t blk;
    etk_inspector_block_get(insp, b, &blk);
    const char *method = c->method_all;
    for (size_t i = 0; i < c->method_count; i++)
      if (method_spec_matches(c->method_block[i], b, &blk))
        method = c->method_name[i];
    if (!method && c->quirks) method = "forward";
    if (!method) {
      method = etk_etrecord_block_method(rec, blk.name_present ? blk.name : NULL);
      if (!method && blk.event_count) {
        fprintf(stderr,
                "etkit inspect: warning: event block %zu (\"%s\") is not "
                "linked: the ETRecord has no method of that name, no forward "
                "and several others (%s); choose one with --method\n",
                b, blk.name, method_list(rec, names, sizeof names));
        continue;
      }
    }
    rc = etk_etrecord_inspector_link_block(rec, insp, b, method, flags, &sum, err);
    if (rc != ETK_OK) {
      where_in_record(err, c->etrecord);
      return rc;
    }
  }
  if (sum.no_delegate_mapping)
    fprintf(stderr,
            "etkit inspect: warning: %zu delegated event(s) have no "
            "delegate_map entry for their instruction (upstream: \"No "
            "delegate mapping found\"); they get the instruction's debug "
            "handles\n",
            sum.no_delegate_mapping);
  return ETK_OK;
}

int etk_cmd_inspect(int argc, char **argv) {
  cli_t c;
  memset(&c, 0, sizeof c);
  etk_inspector_options_init(&c.opt);
  etk_inspector_render_options_init(&c.ro);
  int prc = parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return prc;
  /* --compare_results reads program outputs from the debug buffer: refuse
   * before printing anything (upstream would compare zeros) */
  if (c.compare && !c.debug_buffer)
    return etk_cli_fail("inspect", "--compare_results needs --debug_buffer_path "
                                   "(the program outputs are in the debug "
                                   "buffer)");
  if (c.compare && !c.reference && !c.etrecord)
    return etk_cli_fail("inspect", "--compare_results needs reference outputs: "
                                   "--etrecord_path (with reference_outputs) or "
                                   "--reference FILE.bpte");

  etk_error_t err;
  etk_error_clear(&err);
  double factor;
  if (etk_time_scale_factor(c.opt.source_time_scale, c.opt.target_time_scale,
                            c.opt.clock_hz, &factor, &err) != ETK_OK)
    return fail_err(&err);

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
  etk_cli_reference_t *ref = NULL;
  if (c.compare) {
    etk_error_t rerr; /* (err may still name the ETDump) */
    etk_error_clear(&rerr);
    if (etk_cli_reference_open(c.reference, rec, c.etrecord, &ref, &rerr) !=
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
  if (rc == ETK_OK && ref)
    rc = etk_cli_compare_results(ref, insp, dbuf, dlen, stdout, &err);
  etk_cli_reference_free(ref);
  etk_inspector_close(insp);
  etk_etrecord_close(rec);
  free(dbuf);
  if (rc != ETK_OK) return fail_err(&err);
  return 0;
}
