/*
 * write_page.c - writes a generated transformer-like graph view page for
 * the browser test: `graph_view_write_page NODES OUT.html [--against]`.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "etkit/graph_view.h"
#include "transformer_graph.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: graph_view_write_page NODES OUT.html [--against]\n");
    return 2;
  }
  int against = argc > 3 && strcmp(argv[3], "--against") == 0;
  transformer_graph_t t;
  if (transformer_graph_make((size_t)strtoull(argv[1], NULL, 10), against,
                             &t) != 0)
    return 1;
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
  if (rc != ETK_OK) fprintf(stderr, "graph_view_write_page: %s\n", err.message);
  return rc == ETK_OK ? 0 : 1;
}
