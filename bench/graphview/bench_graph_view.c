/*
 * bench_graph_view.c - the graph view on generated transformer-like graphs
 * (transformer_graph.c): time to check, lay out and write the page, the
 * page's size and the process's peak RSS.  One size per run, so that the
 * RSS is that size's own:
 *
 *   bench_graph_view NODES [OUT.html] [--against]
 *   bench_graph_view NODES --dot OUT.dot | --json OUT.json
 *
 * prints "graph_view_<NODES>_seconds S s", "..._page_bytes B bytes" and
 * "..._peak_rss R MB".  bench/graphview/run_bench.sh runs the sizes of
 * docs/graph-view.md, including `etkit graph --html` and headless Chromium.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "etkit/graph_view.h"
#include "transformer_graph.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The same graph for other layout engines (docs/graph-view.md, "Why
 * Graphviz, per group"): one DOT file with nested clusters (`dot -Tplain`
 * times a single whole-graph layout), or plain JSON for elkjs. */
static void write_dot(const transformer_graph_t *t, FILE *fp) {
  fprintf(fp, "digraph g {\n node [shape=box,width=1.5,height=0.47];\n");
  size_t n = t->view.node_count, ng = t->view.group_count;
  /* groups nest parents first; close each cluster after its last child */
  size_t *open = calloc(ng + 1, sizeof *open), depth = 0;
  for (size_t g = 0; g <= ng && open; g++) {
    size_t parent = g < ng ? t->groups[g].parent : ETK_GRAPH_VIEW_NONE;
    while (depth > 0 && open[depth - 1] != parent) {
      fprintf(fp, "}\n");
      depth--;
    }
    if (g == ng) break;
    fprintf(fp, "subgraph cluster_%zu {\n", g);
    for (size_t i = 0; i < n; i++)
      if (t->nodes[i].group == g) fprintf(fp, "n%zu;\n", i);
    open[depth++] = g;
  }
  free(open);
  for (size_t i = 0; i < n; i++)
    if (t->nodes[i].group == ETK_GRAPH_VIEW_NONE) fprintf(fp, "n%zu;\n", i);
  for (size_t e = 0; e < t->view.edge_count; e++)
    fprintf(fp, "n%zu -> n%zu;\n", t->edges[e].from, t->edges[e].to);
  fprintf(fp, "}\n");
}

static void write_json(const transformer_graph_t *t, FILE *fp) {
  fprintf(fp, "{\"groups\":[");
  for (size_t g = 0; g < t->view.group_count; g++)
    fprintf(fp, "%s%lld", g ? "," : "",
            t->groups[g].parent == ETK_GRAPH_VIEW_NONE
                ? -1LL
                : (long long)t->groups[g].parent);
  fprintf(fp, "],\"nodes\":[");
  for (size_t i = 0; i < t->view.node_count; i++)
    fprintf(fp, "%s%lld", i ? "," : "",
            t->nodes[i].group == ETK_GRAPH_VIEW_NONE
                ? -1LL
                : (long long)t->nodes[i].group);
  fprintf(fp, "],\"edges\":[");
  for (size_t e = 0; e < t->view.edge_count; e++)
    fprintf(fp, "%s[%zu,%zu]", e ? "," : "", t->edges[e].from, t->edges[e].to);
  fprintf(fp, "]}\n");
}

int main(int argc, char **argv) {
  if (argc == 4 &&
      (strcmp(argv[2], "--dot") == 0 || strcmp(argv[2], "--json") == 0)) {
    transformer_graph_t t;
    FILE *fp = fopen(argv[3], "w");
    if (!fp ||
        transformer_graph_make((size_t)strtoull(argv[1], NULL, 10), 0, &t) != 0)
      return 1;
    if (argv[2][2] == 'd')
      write_dot(&t, fp);
    else
      write_json(&t, fp);
    transformer_graph_free(&t);
    return fclose(fp) == 0 ? 0 : 1;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: bench_graph_view NODES [OUT.html] [--against]\n");
    return 2;
  }
  size_t nodes = (size_t)strtoull(argv[1], NULL, 10);
  const char *out = argc > 2 && strcmp(argv[2], "--against") ? argv[2] : NULL;
  int against = strcmp(argv[argc - 1], "--against") == 0;
  transformer_graph_t t;
  if (transformer_graph_make(nodes, against, &t) != 0) {
    fprintf(stderr, "bench_graph_view: out of memory\n");
    return 1;
  }
  etk_graph_view_options_t o;
  etk_graph_view_options_init(&o);
  o.title = "generated transformer";
  o.value_name = "p50 time";
  o.unit = "ms";
  o.against = against;
  FILE *fp = out ? fopen(out, "wb") : NULL;
  etk_render_sink_t sink;
  if (fp)
    etk_render_sink_init_file(&sink, fp);
  else
    etk_render_sink_init(&sink, NULL, NULL);
  etk_error_t err;
  etk_error_clear(&err);
  double t0 = now();
  int rc = etk_graph_view_write_html(&t.view, &o, &sink, &err);
  if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
  double t1 = now();
  if (fp) fclose(fp);
  if (rc != ETK_OK) {
    char line[ETK_ERROR_LINE_SIZE];
    fprintf(stderr, "bench_graph_view: %s\n",
            etk_error_format(&err, line, sizeof line));
    return 1;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("graph_view_%zu_nodes %zu nodes, %zu edges, %zu groups\n", nodes,
         t.view.node_count, t.view.edge_count, t.view.group_count);
  printf("graph_view_%zu_seconds %.3f s\n", nodes, t1 - t0);
  printf("graph_view_%zu_page_bytes %llu bytes\n", nodes,
         (unsigned long long)sink.bytes);
  printf("graph_view_%zu_peak_rss %.1f MB\n", nodes,
         (double)ru.ru_maxrss / 1024.0);
  transformer_graph_free(&t);
  return 0;
}
