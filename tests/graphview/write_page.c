/*
 * write_page.c - writes a generated transformer-like graph view page for
 * the browser test: `graph_view_write_page NODES OUT.html [--against]`;
 * with --flat, a flat chain of NODES nodes in no module (the shape that
 * overflowed the stack inside Graphviz's ranking at about 60,000 nodes),
 * timed on stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <string.h>
#include <stdlib.h>

#include "etkit/graph_view.h"
#include "transformer_graph.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A chain of n nodes, one value each: the flat graph of a model exported
 * without module information. */
static int flat_make(size_t n, transformer_graph_t *t) {
  memset(t, 0, sizeof *t);
  t->nodes = calloc(n, sizeof *t->nodes);
  t->edges = calloc(n, sizeof *t->edges);
  t->strings = calloc(n, sizeof *t->strings);
  if (!t->nodes || !t->edges || !t->strings) return -1;
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "op_%zu", i);
    t->strings[i] = strdup(name);
    if (!t->strings[i]) return -1;
    t->string_count++;
    t->nodes[i] = (etk_graph_view_node_t){.name = t->strings[i],
                                          .op = "aten.add.Tensor",
                                          .group = ETK_GRAPH_VIEW_NONE,
                                          .has_value = true,
                                          .value = (double)(i % 97)};
    if (i) t->edges[i - 1] = (etk_graph_view_edge_t){i - 1, i};
  }
  t->view = (etk_graph_view_t){t->nodes, n, t->edges, n ? n - 1 : 0, NULL, 0};
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: graph_view_write_page NODES OUT.html [--against]\n");
    return 2;
  }
  int against = argc > 3 && strcmp(argv[3], "--against") == 0;
  int flat = argc > 3 && strcmp(argv[3], "--flat") == 0;
  transformer_graph_t t;
  size_t n = (size_t)strtoull(argv[1], NULL, 10);
  if ((flat ? flat_make(n, &t) : transformer_graph_make(n, against, &t)) != 0) {
    transformer_graph_free(&t);
    return 1;
  }
  double t0 = now();
  etk_graph_view_options_t o;
  etk_graph_view_options_init(&o);
  o.title = "generated transformer";
  o.value_name = against ? "p50 time" : "avg time";
  o.unit = "ms";
  o.against = against;
  FILE *fp = fopen(argv[2], "wb");
  if (!fp) return 1;
  etk_render_sink_t sink;
  etk_render_sink_init_file(&sink, fp);
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_graph_view_write_html(&t.view, &o, &sink, &err);
  if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
  if (fclose(fp) != 0) rc = ETK_E_IO;
  transformer_graph_free(&t);
  if (flat) fprintf(stderr, "%zu flat nodes: %.2f s\n", n, now() - t0);
  if (rc != ETK_OK) fprintf(stderr, "graph_view_write_page: %s\n", err.message);
  return rc == ETK_OK ? 0 : 1;
}
