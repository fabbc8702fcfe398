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
#include "commands.h"
#include "etkit/graph_view.h"

#define CMD "graph"

static const char *const usage_text =
    "usage: etkit graph ETRECORD --html OUT.html [options]\n"
    "       etkit graph ETRECORD --model-explorer GRAPH.json\n"
    "                            [--node-data DATA.json] [options]\n"
    "\n"
    "Draws the ETRecord's graph as one self-contained HTML page (module\n"
    "groups, delegated partitions, nodes coloured by what an ETDump\n"
    "measured), or writes Model Explorer's graph and node-data JSON.\n"
    "\n"
    "options:\n"
    "  --html FILE               the page\n"
    "  --model-explorer FILE     Model Explorer graph JSON\n"
    "  --node-data FILE          Model Explorer node data of the overlay\n"
    "  --etdump_path FILE        ETDump whose figures colour the nodes\n"
    "  --debug_buffer_path FILE  its debug buffer (numerical error)\n"
    "  --against FILE            a second ETDump: colour by the change A->B\n"
    "  --against-debug-buffer F  its debug buffer (--overlay error: compare\n"
    "                            with B; without --against, with the\n"
    "                            ETRecord's reference outputs)\n"
    "  --overlay NAME            time (default), share, count, error, snr,\n"
    "                            memory (output bytes; no ETDump needed)\n"
    "  --method NAME             method (default: forward, or the only one)\n"
    "  --graph NAME              another recorded graph, e.g. "
    "exported_program\n"
    "  --title TEXT              page title\n"
    "  -h, --help                this help\n";

typedef struct view_cli {
  const char *path, *method, *graph, *html, *me, *node_data, *title;
  const char *etdump[2], *buffer[2], *overlay;
} view_cli_t;

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("method", 0, view_cli_t, method),
    ETK_CLI_STRING("graph", 0, view_cli_t, graph),
    ETK_CLI_STRING("html", 0, view_cli_t, html),
    ETK_CLI_STRING("model_explorer", 0, view_cli_t, me),
    ETK_CLI_STRING("node_data", 0, view_cli_t, node_data),
    ETK_CLI_STRING("title", 0, view_cli_t, title),
    ETK_CLI_STRING("etdump_path|etdump", 0, view_cli_t, etdump[0]),
    ETK_CLI_STRING("debug_buffer_path|debug_buffer", 0, view_cli_t, buffer[0]),
    ETK_CLI_STRING("against", 0, view_cli_t, etdump[1]),
    ETK_CLI_STRING("against_debug_buffer", 0, view_cli_t, buffer[1]),
    ETK_CLI_STRING("overlay", 0, view_cli_t, overlay),
};

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  view_cli_t *c = ctx;
  if (id == ETK_CLI_POSITIONAL) {
    if (c->path) return etk_cli_usage(CMD, "more than one ETRecord given");
    c->path = p->value;
  }
  return 0;
}

/* Usage rules; 0 or 2. */
static int check_usage(const view_cli_t *c) {
  if (etk_cli_require(CMD, c->path, "ETRECORD")) return 2;
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

/* Opens run s (ETDump and debug buffer); 0 or 1 (reported). */
static int open_run(const view_cli_t *c, int s, run_t *r) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_inspector_options_t io;
  etk_inspector_options_init(&io);
  if (c->buffer[s] && etk_read_file(c->buffer[s], 0, &r->buffer, &r->buffer_len,
                                    &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  if (etk_inspector_open_path(c->etdump[s], &io, &r->insp, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  return 0;
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
  if (c->me) {
    etk_graph_me_options_t mo;
    etk_graph_me_options_default(&mo);
    if (etk_graph_write_model_explorer(g, &mo, c->me, &err) != ETK_OK)
      return etk_cli_fail_error(CMD, &err);
  }
  if (c->node_data) {
    size_t n = etk_graph_node_count(g);
    double *values = calloc(n + 1, sizeof *values);
    bool *has = calloc(n + 1, sizeof *has);
    int rc = values && has
                 ? etk_graph_view_values(g, page, values, has, NULL, NULL, &err)
                 : etk_error_set(&err, ETK_E_NO_MEMORY, 0, "values");
    etk_graph_node_data_t nd = {
        .values = values, .has_value = has, .node_count = n};
    if (rc == ETK_OK)
      rc = etk_graph_write_node_data(g, &nd, c->node_data, &err);
    free(values);
    free(has);
    if (rc != ETK_OK) return etk_cli_fail_error(CMD, &err);
  }
  return 0;
}

int etk_cmd_graph_view(int argc, char **argv) {
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
  run_t runs[2];
  memset(runs, 0, sizeof runs);
  etk_graph_options_t go;
  etk_graph_options_default(&go);
  go.method = c.method;
  go.graph_name = c.graph;
  int status = 0;
  if (etk_etrecord_open_file(c.path, NULL, &rec, &err) != ETK_OK ||
      etk_graph_load(rec, &go, &g, &err) != ETK_OK) {
    char line[ETK_ERROR_LINE_SIZE];
    etk_error_format(&err, line, sizeof line);
    if (strcmp(err.where, c.path) == 0)
      status = etk_cli_fail(CMD, "%s", line);
    else
      status = etk_cli_fail(CMD, "%s: %s", c.path, line);
  }
  for (int s = 0; s < 2 && !status; s++)
    if (c.etdump[s]) status = open_run(&c, s, &runs[s]);
  bool error = c.overlay && strcmp(c.overlay, "error") == 0;
  if (!status && c.etdump[0])
    status =
        figures(&c, g, &runs[0], error && c.etdump[1] ? &runs[1] : NULL, true);
  if (!status && c.etdump[1] && !error)
    status = figures(&c, g, &runs[1], NULL, true);
  if (!status) {
    etk_graph_view_page_t page;
    etk_graph_view_page_init(&page);
    page.overlay = c.overlay;
    page.a =
        runs[0].figures && runs[0].figures->linked ? runs[0].figures : NULL;
    page.b =
        runs[1].figures && runs[1].figures->linked ? runs[1].figures : NULL;
    bool memory = c.overlay && strcmp(c.overlay, "memory") == 0;
    if (c.etdump[0] && !page.a && !memory)
      page.view.note =
          "the ETDump matches nothing in this ETRecord (an "
          "ETDump of another program?): the graph is not "
          "coloured";
    else if (c.etdump[1] && !page.b && !error && !memory)
      page.view.note =
          "the --against ETDump matches nothing in this "
          "ETRecord: coloured by the first run only";
    status = write_outputs(&c, g, &page);
  }
  for (int s = 0; s < 2; s++) {
    etk_graph_figures_free(runs[s].figures);
    if (runs[s].insp) etk_inspector_close(runs[s].insp);
    free(runs[s].buffer);
  }
  etk_graph_free(g);
  if (rec) etk_etrecord_close(rec);
  return status;
}
