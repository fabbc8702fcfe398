/*
 * cmd_graph_delegation.c - `etkit graph ETRECORD --delegation`: upstream's
 * print_delegation_info (devtools/backend_debug/delegation_info.py) for
 * the edge program of an ETRecord: the summary lines of get_summary(),
 * then get_operator_delegation_dataframe() as tabulate's fancy grid (op
 * type, occurrences in delegated and in non-delegated graphs, a Total
 * row), then the backends (an etkit addition).  etk_graph_delegation_build
 * (etkit/graph.h) counts; this file prints.  cmd_graph.c hands the command
 * line over when it holds --delegation.
 *
 * Exit status: 0 success, 1 unreadable ETRecord, 2 usage error.
 */
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "cmd_graph_delegation.h"
#include "commands.h"
#include "etkit/graph.h"
#include "etkit/render.h"

#define CMD "graph"

static const char *const usage_text =
    "usage: etkit graph ETRECORD --delegation [--method NAME] [--graph "
    "NAME]\n"
    "\n"
    "How much of the program was delegated, as upstream's "
    "print_delegation_info:\n"
    "the number of delegated subgraphs and nodes, per operator type its\n"
    "occurrences inside and outside delegated subgraphs, and per backend its\n"
    "subgraphs and nodes.\n"
    "\n"
    "options:\n"
    "  --method NAME  the method's edge program (default forward)\n"
    "  --graph NAME   another program of the ETRecord\n"
    "  -h, --help     this help\n";

typedef struct deleg_cli {
  const char *path, *method, *graph;
  int delegation;
} deleg_cli_t;

static const etk_cli_option_t options[] = {
    ETK_CLI_FLAG("delegation", 0, deleg_cli_t, delegation),
    ETK_CLI_STRING("method", 0, deleg_cli_t, method),
    ETK_CLI_STRING("graph", 0, deleg_cli_t, graph),
};

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  deleg_cli_t *c = ctx;
  if (id != ETK_CLI_POSITIONAL) return 0;
  if (c->path) return etk_cli_usage(CMD, "unexpected argument '%s'", p->value);
  c->path = p->value;
  return 0;
}

int cli_graph_wants_delegation(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--delegation") == 0) return 1;
  return 0;
}

static int cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                etk_strbuf_t *scratch) {
  (void)scratch;
  const etk_graph_delegation_t *d = ctx;
  bool total = row == d->op_count;
  if (col == 0) {
    const char *t = total ? "Total" : d->ops[row].op_type;
    etk_cell_set_text(out, t, strlen(t));
  } else {
    size_t v =
        total ? (col == 1 ? d->num_delegated_nodes : d->num_non_delegated_nodes)
        : col == 1 ? d->ops[row].delegated
                   : d->ops[row].non_delegated;
    etk_cell_set_int(out, (int64_t)v);
  }
  return ETK_OK;
}

static int print_info(const etk_graph_delegation_t *d, etk_error_t *err) {
  printf("Total delegated subgraphs: %zu\n", d->num_delegated_subgraphs);
  printf("Number of delegated nodes: %zu\n", d->num_delegated_nodes);
  printf("Number of non-delegated nodes: %zu\n\n", d->num_non_delegated_nodes);
  static const char *const headers[] = {"op_type",
                                        "occurrences_in_delegated_graphs",
                                        "occurrences_in_non_delegated_graphs"};
  etk_frame_t f = {d->op_count + 1, 3, headers, cell, (void *)d, 1};
  etk_render_sink_t sink;
  etk_render_sink_init_file(&sink, stdout);
  int rc = etk_render_table(&f, &sink, err);
  for (size_t b = 0; rc == ETK_OK && b < d->backend_count; b++)
    etk_render_printf(
        &sink, "backend %s: %zu subgraph%s, %zu node%s\n",
        d->backends[b].backend[0] ? d->backends[b].backend : "(unnamed)",
        d->backends[b].subgraphs, d->backends[b].subgraphs == 1 ? "" : "s",
        d->backends[b].delegated_nodes,
        d->backends[b].delegated_nodes == 1 ? "" : "s");
  if (etk_render_sink_flush(&sink) != 0 && rc == ETK_OK)
    rc = etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET, "error writing output");
  return rc;
}

int cli_graph_delegation(int argc, char **argv) {
  deleg_cli_t c;
  memset(&c, 0, sizeof c);
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, &c);
  if (rc) return rc < 0 ? 0 : rc;
  if (etk_cli_require(CMD, c.path, "ETRECORD")) return 2;
  etk_error_t err;
  etk_error_clear(&err);
  etk_etrecord_t *rec = NULL;
  etk_graph_t *g = NULL;
  etk_graph_options_t go;
  etk_graph_options_default(&go);
  go.method = c.method;
  go.graph_name = c.graph;
  etk_graph_delegation_t d;
  memset(&d, 0, sizeof d);
  int status = 0;
  if (etk_etrecord_open_file(c.path, NULL, &rec, &err) != ETK_OK ||
      etk_graph_load(rec, &go, &g, &err) != ETK_OK ||
      etk_graph_delegation_build(g, &d, &err) != ETK_OK ||
      print_info(&d, &err) != ETK_OK)
    status = etk_cli_fail_error(CMD, &err);
  etk_graph_delegation_free(&d);
  etk_graph_free(g);
  etk_etrecord_close(rec);
  return status;
}
