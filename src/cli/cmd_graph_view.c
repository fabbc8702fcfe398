/*
 * cmd_graph_view.c - `etkit graph ETRECORD --html OUT.html` and the Model
 * Explorer files (`--model-explorer GRAPH.json`, `--node-data DATA.json`):
 * the ETRecord graph (etkit/graph.h) joined with an ETDump's per-node
 * figures (etkit/link.h) and drawn by the graph view (etkit/graph_view.h).
 *
 * cmd_graph.c hands over here when one of the three outputs is asked for.
 * This file only parses, opens the inputs, calls the libraries and
 * reports: each output is written to a temporary name and renamed, so a
 * failure leaves no partial file.  Warnings (an ETDump of another
 * program) come from the figures' note callback, worded as in the other
 * commands, and the graph is then drawn uncoloured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cmd_graph_program.h"
#include "commands.h"
#include "etkit/graph_view.h"

#define CMD "graph"

static const char *const usage_text =
    "usage: etkit graph ETRECORD|PROGRAM --html OUT.html [options]\n"
    "       etkit graph ETRECORD|PROGRAM --model-explorer GRAPH.json\n"
    "                            [--node-data DATA.json] [options]\n"
    "\n"
    "Draws the ETRecord's graph as one self-contained HTML page (module\n"
    "groups, delegated partitions, nodes coloured by what an ETDump\n"
    "measured), or writes Model Explorer's graph and node-data JSON.\n"
    "Given a program (.pte, .bpte) instead, draws its instruction graph\n"
    "(constants folded, delegate calls boxed), joined by instruction id.\n"
    "\n"
    "options:\n"
    "  --html FILE               the page\n"
    "  --model-explorer FILE     Model Explorer graph JSON\n"
    "  --node-data FILE          Model Explorer node data of the overlay\n"
    "  --etdump_path FILE        ETDump whose figures colour the nodes (A);\n"
    "                            repeat it to pool several dumps of A\n"
    "  --debug_buffer_path FILE  its debug buffer (numerical error)\n"
    "  --against FILE            a second ETDump: colour by the change A->B\n"
    "                            of the median time, only where it is\n"
    "                            significant (as `etkit diff A.. --vs B..`);\n"
    "                            repeat it to pool several dumps of B\n"
    "  --against-debug-buffer F  its debug buffer (--overlay error: compare\n"
    "                            with B; without --against, with the\n"
    "                            ETRecord's reference outputs)\n"
    "  --overlay NAME            time (default), share, count, error, snr,\n"
    "                            memory (output bytes; no ETDump needed)\n"
    "  --method NAME             method (default: forward, or the only one)\n"
    "  --graph NAME              another recorded graph, e.g. "
    "exported_program\n"
    "  --all-instructions        (a program) moves, frees, jumps as nodes\n"
    "  --title TEXT              page title\n"
    "  -h, --help                this help\n";

#define MAX_DUMPS 64 /* per side */

typedef struct view_cli {
  const char *path, *method, *graph, *html, *me, *node_data, *title;
  const char *etdump[2], *buffer[2], *overlay;
  const char
      *dumps[2][MAX_DUMPS]; /* every dump of a side; [s][0] = etdump[s] */
  size_t dump_count[2];
  int all; /* --all-instructions */
} view_cli_t;

enum { OPT_ETDUMP = 1, OPT_AGAINST };

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("method", 0, view_cli_t, method),
    ETK_CLI_STRING("graph", 0, view_cli_t, graph),
    ETK_CLI_STRING("html", 0, view_cli_t, html),
    ETK_CLI_STRING("model_explorer", 0, view_cli_t, me),
    ETK_CLI_STRING("node_data", 0, view_cli_t, node_data),
    ETK_CLI_STRING("title", 0, view_cli_t, title),
    {"etdump_path|etdump", 0, ETK_CLI_VALUE, OPT_ETDUMP, 0},
    ETK_CLI_STRING("debug_buffer_path|debug_buffer", 0, view_cli_t, buffer[0]),
    {"against", 0, ETK_CLI_VALUE, OPT_AGAINST, 0},
    ETK_CLI_STRING("against_debug_buffer", 0, view_cli_t, buffer[1]),
    ETK_CLI_STRING("overlay", 0, view_cli_t, overlay),
    ETK_CLI_FLAG("all_instructions", 0, view_cli_t, all),
};

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  view_cli_t *c = ctx;
  if (id == OPT_ETDUMP || id == OPT_AGAINST) {
    int s = id == OPT_AGAINST;
    if (c->dump_count[s] == MAX_DUMPS)
      return etk_cli_usage(CMD, "at most %d dumps per side", MAX_DUMPS);
    c->dumps[s][c->dump_count[s]++] = p->value;
    c->etdump[s] = c->dumps[s][0];
  }
  if (id == ETK_CLI_POSITIONAL) {
    if (c->path) return etk_cli_usage(CMD, "more than one ETRecord given");
    c->path = p->value;
  }
  return 0;
}

/* Usage rules; 0 or 2. */
static int check_usage(const view_cli_t *c) {
  if (etk_cli_require(CMD, c->path, "ETRECORD or PROGRAM")) return 2;
  if (!c->html && !c->me && !c->node_data)
    return etk_cli_usage(CMD, "give --html, --model-explorer or --node-data");
  etk_error_t err;
  etk_error_clear(&err);
  if (c->overlay && etk_graph_view_overlay_check(c->overlay, &err) != ETK_OK)
    return etk_cli_usage(CMD, "%s", err.message);
  bool memory = c->overlay && strcmp(c->overlay, "memory") == 0;
  bool error = etk_graph_view_overlay_numerical(c->overlay);
  if (c->etdump[1] && !c->etdump[0])
    return etk_cli_usage(CMD, "--against needs --etdump_path");
  if (c->buffer[0] && !c->etdump[0])
    return etk_cli_usage(CMD, "--debug_buffer_path needs --etdump_path");
  if (c->buffer[1] && !c->etdump[1])
    return etk_cli_usage(CMD, "--against-debug-buffer needs --against");
  if (c->overlay && !c->etdump[0] && !memory)
    return etk_cli_usage(CMD,
                         "--overlay %s needs --etdump_path (only "
                         "--overlay memory is drawn from the ETRecord "
                         "alone)",
                         c->overlay);
  if (c->node_data && !c->etdump[0] && !memory)
    return etk_cli_usage(CMD,
                         "--node-data needs --etdump_path (or "
                         "--overlay memory)");
  if (error && !c->buffer[0])
    return etk_cli_usage(CMD,
                         "--overlay %s needs --debug_buffer_path (its "
                         "values are compared with --against's, or "
                         "with the ETRecord's reference outputs)",
                         c->overlay);
  if (error && !c->etdump[1] && cli_graph_is_program(c->path) &&
      etk_file_kind_of_path(c->path) != ETK_FILE_BPTE)
    return etk_cli_usage(CMD,
                         "--overlay %s on a program needs --against and "
                         "--against-debug-buffer (a program has no "
                         "reference outputs; a bundled program's expected "
                         "outputs are)",
                         c->overlay);
  if (error && c->etdump[1] && !c->buffer[1])
    return etk_cli_usage(CMD,
                         "--overlay %s with --against needs "
                         "--against-debug-buffer",
                         c->overlay);
  const char *outs[3] = {c->html, c->me, c->node_data};
  for (int k = 0; k < 3; k++)
    if (outs[k] && etk_cli_check_output(CMD, outs[k])) return 1;
  return 0;
}

typedef struct run {
  etk_inspector_t *insp;
  uint8_t *buffer;
  size_t buffer_len;
  etk_graph_figures_t *figures;
} run_t;

/* Opens an ETDump and its debug buffer (may be NULL); 0 or 1 (reported). */
static int open_run(const char *etdump, const char *buffer, run_t *r) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_inspector_options_t io;
  etk_inspector_options_init(&io);
  if (buffer &&
      etk_read_file(buffer, 0, &r->buffer, &r->buffer_len, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  if (etk_inspector_open_path(etdump, &io, &r->insp, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  return 0;
}

static void close_run(run_t *r) {
  etk_graph_figures_free(r->figures);
  if (r->insp) etk_inspector_close(r->insp);
  free(r->buffer);
}

static void print_note(void *ctx, int is_warning, const char *line) {
  (void)ctx;
  fprintf(stderr, "etkit " CMD ": %s%s\n", is_warning ? "warning: " : "", line);
}

/* Figures of run s; with `other`, values compared against it. */
static int figures(const view_cli_t *c, etk_graph_t *g, run_t *r,
                   const run_t *other, bool warn) {
  etk_graph_figures_options_t fo;
  etk_graph_figures_options_init(&fo);
  fo.debug_buffer = r->buffer;
  fo.debug_buffer_len = r->buffer_len;
  if (other) {
    fo.against = other->insp;
    fo.against_buffer = other->buffer;
    fo.against_buffer_len = other->buffer_len;
  }
  fo.note = warn ? print_note : NULL;
  fo.record_name = c->path;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_graph_figures_compute(g, r->insp, &fo, &r->figures, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  return 0;
}

typedef struct page_ctx {
  const etk_graph_t *g;
  const etk_graph_view_page_t *page;
} page_ctx_t;

static int render_page(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  const page_ctx_t *p = ctx;
  return etk_graph_view_write_graph(p->g, p->page, sink, err);
}

static int write_outputs(const view_cli_t *c, etk_graph_t *g,
                         etk_graph_view_page_t *page) {
  etk_error_t err;
  etk_error_clear(&err);
  char subtitle[1024];
  snprintf(subtitle, sizeof subtitle, "%s%s%s%s%s", c->path,
           c->etdump[0] ? " \xC2\xB7 " : "", c->etdump[0] ? c->etdump[0] : "",
           c->etdump[1] ? " \xE2\x86\x92 " : "",
           c->etdump[1] ? c->etdump[1] : "");
  page->view.title = c->title ? c->title : "etkit graph";
  page->view.subtitle = subtitle;
  page->view.label_a = c->etdump[0];
  page->view.label_b = c->etdump[1];
  page_ctx_t pc = {g, page};
  if (c->html &&
      etk_cli_write_output(c->html, render_page, &pc, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  etk_cli_say_wrote(CMD, c->html, "%zu node(s)", etk_graph_node_count(g));
  if (c->me) {
    etk_graph_me_options_t mo;
    etk_graph_me_options_default(&mo);
    if (etk_graph_write_model_explorer(g, &mo, c->me, &err) != ETK_OK)
      return etk_cli_fail_error(CMD, &err);
    etk_cli_say_wrote(CMD, c->me, "Model Explorer graph, %zu node(s)",
                      etk_graph_node_count(g));
  }
  if (c->node_data) {
    size_t n = etk_graph_node_count(g);
    double *values = calloc(n + 1, sizeof *values);
    bool *has = calloc(n + 1, sizeof *has);
    const char *unit = NULL;
    int rc = values && has ? etk_graph_view_values(g, page, values, has, NULL,
                                                   &unit, &err)
                           : etk_error_set(&err, ETK_E_NO_MEMORY, 0, "values");
    etk_graph_node_data_t nd = {
        .values = values, .has_value = has, .node_count = n, .unit = unit};
    if (rc == ETK_OK)
      rc = etk_graph_write_node_data(g, &nd, c->node_data, &err);
    free(values);
    free(has);
    if (rc != ETK_OK) return etk_cli_fail_error(CMD, &err);
    etk_cli_say_wrote(CMD, c->node_data, "Model Explorer node data");
  }
  return 0;
}

/* True when -h or --help appears before a "--", even where the parser
 * would take it as an option's value (`etkit graph --html --help`). */
static bool asks_help(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
      return true;
  return false;
}

int etk_cmd_graph_view(int argc, char **argv) {
  if (asks_help(argc, argv)) {
    fputs(usage_text, stdout);
    return 0;
  }
  view_cli_t c;
  memset(&c, 0, sizeof c);
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, &c);
  if (rc) return rc < 0 ? 0 : rc;
  if ((rc = check_usage(&c)) != 0) return rc;
  etk_error_t err;
  etk_error_clear(&err);
  etk_etrecord_t *rec = NULL;
  etk_graph_t *g = NULL;
  /* runs[s][0]: the first dump of side s (with its debug buffer); the
   * others are pooled with it for the A/B test */
  run_t runs[2][MAX_DUMPS];
  memset(runs, 0, sizeof runs);
  etk_graph_options_t go;
  etk_graph_options_default(&go);
  go.method = c.method;
  go.graph_name = c.graph;
  int status = 0;
  bool program = cli_graph_is_program(c.path);
  cli_program_graph_t pg = {0};
  if (program) {
    if (c.graph)
      status = etk_cli_usage(CMD,
                             "--graph names an ETRecord's graph; %s is "
                             "a program",
                             c.path);
    else if ((status = cli_program_graph_load(CMD, c.path, c.method, c.all,
                                              &pg)) == 0)
      g = pg.graph;
  } else if (etk_etrecord_open_file(c.path, NULL, &rec, &err) != ETK_OK ||
             etk_graph_load(rec, &go, &g, &err) != ETK_OK) {
    char line[ETK_ERROR_LINE_SIZE];
    etk_error_format(&err, line, sizeof line);
    if (strcmp(err.where, c.path) == 0)
      status = etk_cli_fail(CMD, "%s", line);
    else
      status = etk_cli_fail(CMD, "%s: %s", c.path, line);
  }
  for (int s = 0; s < 2 && !status; s++)
    for (size_t k = 0; k < c.dump_count[s] && !status; k++)
      status = open_run(c.dumps[s][k], k ? NULL : c.buffer[s], &runs[s][k]);
  /* error and snr compare A's values with B's: B has no figures of its own */
  bool error = etk_graph_view_overlay_numerical(c.overlay);
  if (!status && c.etdump[0])
    status = figures(&c, g, &runs[0][0],
                     error && c.etdump[1] ? &runs[1][0] : NULL, true);
  for (int s = 0; s < 2 && !error; s++)
    for (size_t k = s ? 0 : 1; k < c.dump_count[s] && !status; k++)
      status = figures(&c, g, &runs[s][k], NULL, true);
  const etk_graph_figures_t *more[2][MAX_DUMPS];
  for (int s = 0; s < 2; s++)
    for (size_t k = 0; k < MAX_DUMPS; k++)
      more[s][k] = runs[s][k].figures && runs[s][k].figures->linked
                       ? runs[s][k].figures
                       : NULL;
  if (!status) {
    etk_graph_view_page_t page;
    etk_graph_view_page_init(&page);
    page.overlay = c.overlay;
    page.a = more[0][0];
    page.b = error ? NULL : more[1][0];
    page.more_a = &more[0][1];
    page.more_a_count = c.dump_count[0] > 1 ? c.dump_count[0] - 1 : 0;
    page.more_b = &more[1][1];
    page.more_b_count = c.dump_count[1] > 1 ? c.dump_count[1] - 1 : 0;
    bool memory = c.overlay && strcmp(c.overlay, "memory") == 0;
    if (c.etdump[0] && !page.a && !memory)
      page.view.note = program ? "the ETDump matches nothing in this program "
                                 "(an ETDump of another program?): the graph "
                                 "is not coloured"
                               : "the ETDump matches nothing in this ETRecord "
                                 "(an ETDump of another program?): the graph "
                                 "is not coloured";
    else if (c.etdump[1] && !page.b && !error && !memory)
      page.view.note = program ? "the --against ETDump matches nothing in this "
                                 "program: coloured by the first run only"
                               : "the --against ETDump matches nothing in this "
                                 "ETRecord: coloured by the first run only";
    status = write_outputs(&c, g, &page);
  }
  for (int s = 0; s < 2; s++)
    for (size_t k = 0; k < c.dump_count[s]; k++) close_run(&runs[s][k]);
  if (program)
    cli_program_graph_free(&pg);
  else
    etk_graph_free(g);
  if (rec) etk_etrecord_close(rec);
  return status;
}
