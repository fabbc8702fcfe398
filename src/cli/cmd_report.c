/*
 * cmd_report.c - `etkit report`: one self-contained HTML page about an
 * ETDump (etk_report_write_html in etkit/inspector.h), optionally linked
 * to its ETRecord for operator types and delegate backends.
 *
 * Exit status: 0 success, 1 failure (one line on stderr; no output file is
 * left behind), 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_link.h"
#include "commands.h"
#include "etkit/etrecord.h"
#include "etkit/graph_view.h"
#include "etkit/memory_plan.h"

#define CMD "report"

static const char *const usage_text =
    "usage: etkit report [--etdump_path] FILE [--etrecord_path FILE]\n"
    "                    [--program FILE.pte] -o report.html\n"
    "\n"
    "Writes one self-contained HTML page (no network, nothing loaded from\n"
    "elsewhere; one inline script, for the graph section): file facts,\n"
    "operator types per block, the module tree, numerics, a timeline of\n"
    "every run (colours by operator type),\n"
    "the events with statistics, memory per allocator, dropped events,\n"
    "and with --program the memory map of the program's plan.\n"
    "\n"
    "options:\n"
    "  --etdump_path FILE          ETDump to read (required)\n"
    "  --etrecord_path FILE        ETRecord: link op types and delegate "
    "backends\n"
    "  --debug_buffer_path FILE    debug buffer: adds the numerics section\n"
    "                              (program outputs against the ETRecord's\n"
    "                              reference outputs, or --reference's)\n"
    "  --reference FILE.bpte       reference outputs from a bundled program\n"
    "  --reference-graph NAME      the ETRecord graph the events take op\n"
    "                              types and modules from (as inspect)\n"
    "  --overlay NAME              colour of the graph section (with\n"
    "                              --etrecord_path): time, share, count,\n"
    "                              error, snr, memory; default: error with a\n"
    "                              debug buffer, else time\n"
    "  --program FILE.pte          the program that ran: adds its memory map\n"
    "  --method NAME               the program's method (default: the first)\n"
    "  -o, --output FILE           the HTML file (atomically; default stdout)\n"
    "  --title TEXT                page title (etkit report)\n"
    "  --source_time_scale UNIT    unit of the raw timestamps (ns)\n"
    "  --target_time_scale UNIT    unit of the reported times (ms)\n"
    "  --clock-hz HZ               convert cycles to time\n"
    "  --max-rows N                events table rows (5000)\n"
    "  --max-timeline N            slices per timeline (2000)\n"
    "  --top N                     largest allocations listed (10)\n"
    "  -h, --help                  this help\n";

#define MAX_COMPARISONS 256

typedef struct report_cli {
  const char *etdump, *etrecord, *output, *title, *debug_buffer, *reference;
  const char *program, *method, *overlay, *reference_graph;
  etk_memory_plan_t *plan;
  etk_report_comparison_t comparisons[MAX_COMPARISONS];
  size_t ncomparisons;
  etk_inspector_options_t io;
  etk_report_options_t ro;
  etk_inspector_t *insp;
  char note[256];
  etk_graph_t *graph;           /* the ETRecord's graph, for its section */
  etk_graph_figures_t *figures; /* joined with this ETDump, or NULL */
  etk_graph_view_page_t page;
} report_cli_t;

enum {
  OPT_MAX_ROWS = 1,
  OPT_MAX_TIMELINE,
  OPT_TOP,
};

static const etk_cli_option_t options[] = {
    ETK_CLI_INSPECTOR_FILES(report_cli_t),
    ETK_CLI_STRING("reference", 0, report_cli_t, reference),
    ETK_CLI_STRING("reference_graph", 0, report_cli_t, reference_graph),
    ETK_CLI_STRING("program", 0, report_cli_t, program),
    ETK_CLI_STRING("method", 0, report_cli_t, method),
    ETK_CLI_STRING("overlay", 0, report_cli_t, overlay),
    ETK_CLI_STRING("output", 'o', report_cli_t, output),
    ETK_CLI_STRING("title", 0, report_cli_t, title),
    ETK_CLI_TIME_OPTIONS,
    {"max_rows", 0, ETK_CLI_VALUE, OPT_MAX_ROWS, 0},
    {"max_timeline", 0, ETK_CLI_VALUE, OPT_MAX_TIMELINE, 0},
    {"top", 0, ETK_CLI_VALUE, OPT_TOP, 0},
};

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  report_cli_t *c = ctx;
  int t = etk_cli_time_option(p, id, &c->io.source_time_scale,
                              &c->io.target_time_scale, &c->io.clock_hz);
  if (t) return t < 0 ? 2 : 0;
  switch (id) {
    case ETK_CLI_POSITIONAL: /* the ETDump, as trace and memory take it */
      if (c->etdump)
        return etk_cli_usage(CMD, "unexpected argument '%s' (the ETDump is %s)",
                             p->value, c->etdump);
      c->etdump = p->value;
      return 0;
    case OPT_MAX_ROWS:
      return etk_cli_positive_size_value(p, &c->ro.max_event_rows) ? 2 : 0;
    case OPT_MAX_TIMELINE:
      return etk_cli_positive_size_value(p, &c->ro.max_timeline_events) ? 2 : 0;
    case OPT_TOP:
      return etk_cli_positive_size_value(p, &c->ro.top_allocations) ? 2 : 0;
  }
  return 0;
}

/* --overlay: a name `etkit graph` knows, for the graph section of an
 * ETRecord; error and snr compare a debug buffer; --reference-graph needs
 * the ETRecord too.  0 or 2. */
static int check_overlay(const report_cli_t *c) {
  if (c->reference_graph && !c->etrecord)
    return etk_cli_usage(CMD, "%s", "--reference-graph needs --etrecord_path");
  if (!c->overlay) return 0;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_graph_view_overlay_check(c->overlay, &err) != ETK_OK)
    return etk_cli_usage(CMD, "%s", err.message);
  if (!c->etrecord)
    return etk_cli_usage(CMD, "%s",
                         "--overlay needs --etrecord_path (the graph section)");
  if (etk_graph_view_overlay_numerical(c->overlay) && !c->debug_buffer)
    return etk_cli_usage(CMD,
                         "--overlay %s needs --debug_buffer_path (its values "
                         "are compared with the ETRecord's reference outputs)",
                         c->overlay);
  return 0;
}

/* -1 after --help, 0 to go on, else an exit status. */
static int parse_args(int argc, char **argv, report_cli_t *c) {
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, c);
  if (rc) return rc;
  if (etk_cli_require(CMD, c->etdump, "--etdump_path")) return 2;
  if (c->method && !c->program)
    return etk_cli_usage(CMD, "%s", "--method needs --program");
  if (etk_cli_time_check(CMD, &c->io)) return 2;
  if ((rc = check_overlay(c))) return rc;
  if ((rc = etk_cli_check_output(CMD, c->output))) return rc;
  return 0;
}

static int render(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  report_cli_t *c = ctx;
  return etk_report_write_html(c->insp, &c->ro, sink, err);
}

static int render_graph(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  report_cli_t *c = ctx;
  return etk_graph_view_write_graph(c->graph, &c->page, sink, err);
}

static void print_note(void *ctx, int is_warning, const char *line) {
  (void)ctx;
  fprintf(stderr, "etkit " CMD ": %s%s\n", is_warning ? "warning: " : "", line);
}

/* The graph section: the ETRecord's graph coloured by --overlay, or by
 * what the data holds (numerical error with a debug buffer, else times).
 * A record without a graph only loses the section. */
static void prepare_graph(report_cli_t *c, etk_etrecord_t *rec) {
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_graph_load(rec, NULL, &c->graph, &err) != ETK_OK) {
    char line[700];
    fprintf(stderr, "etkit report: note: no graph section: %s\n",
            etk_error_format(&err, line, sizeof line));
    return;
  }
  etk_graph_view_page_init(&c->page);
  etk_graph_figures_options_t fo;
  etk_graph_figures_options_init(&fo);
  fo.note = NULL; /* the link above already warned */
  fo.record_name = c->etrecord;
  fo.debug_buffer = c->io.debug_buffer;
  fo.debug_buffer_len = c->io.debug_buffer_len;
  etk_error_clear(&err);
  if (etk_graph_figures_compute(c->graph, c->insp, &fo, &c->figures, &err) !=
      ETK_OK)
    print_note(NULL, 1, "no per-node figures in the graph section");
  else if (c->figures->linked)
    c->page.a = c->figures;
  c->page.overlay =
      c->overlay ? c->overlay : etk_graph_view_overlay_for(c->page.a);
  c->page.view.title = "Graph";
  c->page.view.subtitle = c->etrecord;
  c->page.view.fragment = true;
  c->ro.graph_section = render_graph;
  c->ro.graph_section_ctx = c;
}

/* compare_results' values of one block, kept for the page. */
static void keep_block(void *ctx, size_t block, size_t count,
                       const double *values) {
  report_cli_t *c = ctx;
  for (size_t i = 0; i < count && c->ncomparisons < MAX_COMPARISONS; i++) {
    etk_report_comparison_t *k = &c->comparisons[c->ncomparisons++];
    k->block = block;
    k->output = i;
    k->snr = values[ETK_COMPARE_SNR * count + i];
    k->mse = values[ETK_COMPARE_MSE * count + i];
    k->cosine = values[ETK_COMPARE_COSINE_SIMILARITY * count + i];
  }
}

/* With a debug buffer and reference outputs (the ETRecord's or a
 * --reference bundled program), the numerics section: upstream's
 * compare_results of the program outputs.  0 or 1 (printed). */
static int compare_outputs(report_cli_t *c, etk_etrecord_t *rec,
                           const uint8_t *dbuf, size_t dlen) {
  if (!dbuf || (!rec && !c->reference)) return 0;
  etk_error_t err;
  etk_error_clear(&err);
  etk_reference_outputs_t *ref = NULL;
  if (etk_reference_outputs_open(c->reference, rec, c->etrecord, &ref, &err) !=
      ETK_OK) {
    if (c->reference) return etk_cli_fail_error(CMD, &err);
    char line[700];
    fprintf(stderr, "etkit report: note: no numerics section: %s\n",
            etk_error_format(&err, line, sizeof line));
    return 0;
  }
  etk_render_sink_t *sink = malloc(sizeof *sink);
  int status = 0;
  if (!sink) {
    status = etk_cli_fail(CMD, "out of memory");
  } else {
    etk_render_sink_init(sink, NULL, NULL); /* the text is not needed */
    etk_compare_report_t report = {NULL, keep_block, c};
    if (etk_compare_results_inspector(ref, c->insp, dbuf, dlen, sink, &report,
                                      &err) != ETK_OK)
      status = etk_cli_fail_error(CMD, &err);
  }
  free(sink);
  etk_reference_outputs_free(ref);
  c->ro.comparisons = c->comparisons;
  c->ro.comparison_count = c->ncomparisons;
  c->ro.comparison_reference = c->reference ? c->reference : c->etrecord;
  return status;
}

/* An ETRecord without the plan's method: the plan keeps value names. */
static void plan_note(void *ctx, int is_warning, const char *line) {
  (void)ctx;
  (void)is_warning;
  fprintf(stderr, "etkit report: note: %s; tensors keep value names\n", line);
}

int etk_cmd_report(int argc, char **argv) {
  report_cli_t c;
  memset(&c, 0, sizeof c);
  etk_inspector_options_init(&c.io);
  etk_report_options_init(&c.ro);
  int prc = parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return prc;
  etk_error_t err;
  etk_error_clear(&err);
  size_t blen = 0, dlen = 0;
  uint8_t *dbuf = NULL;
  etk_etrecord_t *rec = NULL;
  int status = 0;
  if (c.debug_buffer) {
    if (etk_read_file(c.debug_buffer, 0, &dbuf, &dlen, &err) != ETK_OK)
      return etk_cli_fail_error(CMD, &err);
    if (etk_file_kind_expect(c.debug_buffer, dbuf, dlen, ETK_FILE_DEBUG_BUFFER,
                             &err) != ETK_OK) {
      free(dbuf);
      return etk_cli_fail_error(CMD, &err);
    }
    c.io.debug_buffer = dbuf;
    c.io.debug_buffer_len = dlen;
  }
  if (etk_inspector_open_path(c.etdump, &c.io, &c.insp, &err) != ETK_OK) {
    status = etk_cli_fail_error(CMD, &err);
    goto done;
  }
  etk_cli_warn_unused_buffer(CMD, c.debug_buffer, c.insp, dlen);
  etk_error_clear(&err); /* a successful open may leave err.where set */
  etk_etdump_bytes(etk_inspector_etdump(c.insp), &blen);
  if (c.etrecord) {
    etk_etrecord_link_summary_t sum;
    if (cli_link_etrecord_graph(CMD, c.etrecord, c.reference_graph, c.insp,
                                &rec, &sum, &err)) {
      status = etk_cli_fail_error(CMD, &err);
      goto done;
    }
    snprintf(c.note, sizeof c.note,
             "%zu of %zu events linked to debug handles, %zu to graph nodes",
             sum.linked, sum.events, sum.with_nodes);
    c.ro.etrecord_path = c.etrecord;
    c.ro.etrecord_note = c.note;
    prepare_graph(&c, rec);
  }
  if ((status = compare_outputs(&c, rec, dbuf, dlen)) != 0) goto done;
  if (c.program) {
    etk_error_clear(&err);
    if (etk_memory_plan_open_file(c.program, c.method, &c.plan, &err) !=
        ETK_OK) {
      status = etk_cli_fail_error(CMD, &err);
      goto done;
    }
    c.ro.memory_plan = c.plan;
    etk_error_clear(&err);
    if (rec && etk_memory_plan_name_from_etrecord(c.plan, rec, plan_note, NULL,
                                                  &err) != ETK_OK) {
      status = etk_cli_fail_error(CMD, &err); /* names as `memory --etrecord` */
      goto done;
    }
    int32_t largest;
    size_t foreign = etk_memory_plan_foreign_events(c.plan, c.insp, &largest);
    if (foreign)
      fprintf(stderr,
              "etkit report: warning: %s is not the ETDump's program? %zu "
              "operator event(s) name instructions up to %d, but method %s "
              "has %llu\n",
              c.program, foreign, largest, c.plan->method,
              (unsigned long long)c.plan->num_instructions);
  }
  c.ro.title = c.title;
  c.ro.etdump_path = c.etdump;
  c.ro.etdump_bytes = blen;
  c.ro.generator = "etkit " ETKIT_VERSION_STRING;
  etk_error_clear(&err);
  if (etk_cli_write_output(c.output ? c.output : "-", render, &c, &err) !=
      ETK_OK)
    status = etk_cli_fail_error(CMD, &err);
  else
    etk_cli_say_wrote(CMD, c.output, NULL);
done:
  etk_graph_figures_free(c.figures);
  etk_graph_free(c.graph);
  etk_memory_plan_free(c.plan);
  etk_inspector_close(c.insp);
  etk_etrecord_close(rec);
  free(dbuf);
  return status;
}
