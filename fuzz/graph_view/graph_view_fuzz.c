/*
 * graph_view_fuzz.c - libFuzzer target for the graph view (etkit/
 * graph_view.h): the description checks, the per-box layout (Graphviz and
 * the plain layout of large boxes), the page writer with its legend,
 * colours, group values and escaping, and the ETRecord graph as a
 * description with the "memory" overlay.
 *
 * Two input forms:
 *   - input starting with "GV": a description read from the bytes (node,
 *     edge and group counts, then per node its group, value flags and
 *     name bytes, per edge two node indices, per group its parent and
 *     kind), handed to etk_graph_view_write_html() under options the
 *     bytes also choose (against, better, aggregate, collapse limit).
 *     Invalid descriptions must be refused, valid ones drawn;
 *   - anything else: an ETRecord as in fuzz/graph (an archive starting with
 *     "PK", or member texts split on NUL and zipped), whose graphs that
 *     load are drawn with etk_graph_view_write_graph(), uncoloured and
 *     with the memory overlay.
 * Pages go to a memory sink and are dropped.  Sizes are kept small (at
 * most 64 nodes, 128 edges, 16 groups; ETRecord graphs of at most 400
 * nodes are drawn) so that each run stays fast.  Errors are expected; a
 * crash, sanitizer report or leak is a bug.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/graph_view.h"
#include "fixture.h"

typedef struct reader {
  const uint8_t *p;
  size_t n, at;
} reader_t;

static unsigned byte(reader_t *r) {
  return r->at < r->n ? r->p[r->at++] : 0;
}

static void drop_page(const etk_graph_view_t *g,
                      const etk_graph_view_options_t *o) {
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  etk_graph_view_write_html(g, o, &sink, NULL);
  etk_render_sink_free(&sink);
}

static void raw_description(const uint8_t *data, size_t size) {
  reader_t r = {data, size, 2};
  size_t nn = byte(&r) % 65, ne = byte(&r) % 129, ng = byte(&r) % 17;
  unsigned flags = byte(&r);
  etk_graph_view_node_t nodes[64];
  etk_graph_view_edge_t edges[128];
  etk_graph_view_group_t groups[16];
  char names[64][12];
  memset(nodes, 0, sizeof nodes);
  memset(groups, 0, sizeof groups);
  static const char *const ops[] = {"aten.add.Tensor", "placeholder", "",
                                    "<b>&\"'", "\xE2\x80\xAE\x1b]0;x\x07"};
  for (size_t i = 0; i < nn; i++) {
    unsigned a = byte(&r), b = byte(&r);
    size_t len = b % 11;
    for (size_t k = 0; k < len; k++) names[i][k] = (char)(byte(&r) | 1);
    names[i][len] = 0;
    nodes[i].name = names[i];
    nodes[i].op = ops[a % 5];
    nodes[i].group = a & 0x80 ? ETK_GRAPH_VIEW_NONE : (a >> 3) % 17;
    nodes[i].has_value = b & 0x10;
    int v = (int)byte(&r) - 128;
    nodes[i].value = b & 0x20 ? (v > 0 ? INFINITY : NAN) : v / 8.0;
    nodes[i].io = b & 0x40;
    nodes[i].faint = b & 0x80;
    nodes[i].has_a = nodes[i].has_b = a & 1;
    nodes[i].a = v;
    nodes[i].b = -v;
  }
  for (size_t e = 0; e < ne; e++)
    edges[e] = (etk_graph_view_edge_t){byte(&r) % 70, byte(&r) % 70};
  for (size_t k = 0; k < ng; k++) {
    unsigned a = byte(&r);
    groups[k].label = a & 1 ? "blk" : NULL;
    groups[k].parent = a & 0x80 ? ETK_GRAPH_VIEW_NONE : (a >> 1) % 17;
    groups[k].kind = a & 2 ? ETK_GRAPH_VIEW_PARTITION : ETK_GRAPH_VIEW_MODULE;
    groups[k].has_value = a & 4;
    groups[k].value = (double)(a >> 3);
  }
  etk_graph_view_t g = {nodes, nn, edges, ne, groups, ng};
  etk_graph_view_options_t o;
  etk_graph_view_options_init(&o);
  o.value_name = flags & 1 ? "time" : NULL;
  o.unit = flags & 2 ? "\xC2\xB5s" : NULL;
  o.against = flags & 4;
  o.better = (int)(flags >> 3 & 3) - 1;
  o.aggregate = (etk_graph_view_aggregate_t)(flags >> 5 & 3);
  o.collapse_above = flags & 0x80 ? 4 : 0;
  o.fragment = flags & 0x40;
  o.legend_note = flags & 2 ? "note <x>" : NULL;
  drop_page(&g, &o);
}

static void draw_record(const uint8_t *data, size_t size) {
  static const char *const kNames[] = {"edge_dialect_exported_program/forward",
                                       "debug_handle_map", "delegate_map"};
  etk_etrecord_limits_t lim;
  fixture_fuzz_limits(&lim);
  uint8_t *zip = NULL;
  size_t zip_len = size;
  const uint8_t *bytes = data;
  if (size < 2 || data[0] != 'P' || data[1] != 'K') {
    zip = fixture_zip_chunks(data, size, kNames, 3, &zip_len);
    if (!zip) return;
    bytes = zip;
  }
  etk_etrecord_t *rec;
  if (etk_etrecord_open_memory(bytes, zip_len, &lim, &rec, NULL) == ETK_OK) {
    etk_graph_options_t o;
    etk_graph_options_default(&o);
    etk_graph_t *g;
    if (etk_graph_load(rec, &o, &g, NULL) == ETK_OK) {
      if (etk_graph_node_count(g) <= 400) {
        static const char *const overlays[] = {NULL, "memory", "time"};
        for (size_t k = 0; k < 3; k++) {
          etk_graph_view_page_t p;
          etk_graph_view_page_init(&p);
          p.overlay = overlays[k];
          etk_render_sink_t sink;
          etk_render_sink_init_memory(&sink);
          etk_graph_view_write_graph(g, &p, &sink, NULL);
          etk_render_sink_free(&sink);
        }
      }
      etk_graph_free(g);
    }
    etk_etrecord_close(rec);
  }
  free(zip);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 2 && data[0] == 'G' && data[1] == 'V')
    raw_description(data, size);
  else
    draw_record(data, size);
  return 0;
}
