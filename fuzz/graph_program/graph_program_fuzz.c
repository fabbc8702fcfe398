/*
 * graph_program_fuzz.c - libFuzzer target for a program's graph
 * (etk_graph_from_program(), etkit/graph.h) and its page
 * (etkit/graph_view.h): a .pte or a .bpte (by its magic) that the
 * program reader accepts is built into a graph of each of its first
 * methods, with moves folded and with every instruction drawn, and the
 * graph is drawn (uncoloured and with the memory overlay, the tooltip
 * arguments of program_args.c) and written as Model Explorer JSON into
 * memory.  The graph's invariants are checked: every edge points back,
 * every value's producer lists it.  Errors are expected; a crash, a
 * sanitizer report, a leak or a broken invariant is a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/graph_view.h"
#include "etkit/program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const etk_graph_t *g) {
  const etk_graph_node_t *nodes = etk_graph_nodes(g);
  const etk_graph_value_t *values = etk_graph_values(g);
  for (size_t i = 0; i < etk_graph_node_count(g); i++)
    for (size_t k = 0; k < nodes[i].input_count; k++)
      if (nodes[i].inputs[k] >= i) abort();
  for (size_t v = 0; v < etk_graph_value_count(g); v++) {
    const etk_graph_node_t *p = &nodes[values[v].producer];
    if (values[v].output_index >= p->output_value_count ||
        p->output_values[values[v].output_index] != v)
      abort();
  }
}

static void draw(const etk_program_t *p, const etk_bundled_program_t *bp,
                 const char *method, unsigned flags) {
  etk_graph_program_options_t o;
  etk_graph_program_options_default(&o);
  o.method = method;
  o.flags = flags;
  o.bundled = bp;
  etk_graph_t *g;
  if (etk_graph_from_program(p, &o, &g, NULL) != ETK_OK) return;
  check(g);
  if (etk_graph_node_count(g) <= 400) {
    static const char *const overlays[2] = {NULL, "memory"};
    for (int k = 0; k < 2; k++) {
      etk_graph_view_page_t page;
      etk_graph_view_page_init(&page);
      page.overlay = overlays[k];
      etk_render_sink_t sink;
      etk_render_sink_init_memory(&sink);
      (void)etk_graph_view_write_graph(g, &page, &sink, NULL);
      etk_render_sink_free(&sink);
    }
    char *json = NULL;
    size_t len;
    if (etk_graph_model_explorer_json(g, NULL, &json, &len, NULL) == ETK_OK)
      free(json);
    const etk_graph_tensor_t *items;
    size_t count;
    (void)etk_graph_recorded(g, ETK_GRAPH_REFERENCE_OUTPUTS, -1, &items, &count,
                             NULL);
  }
  etk_graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  etk_program_options_t opt;
  memset(&opt, 0, sizeof opt);
  opt.max_values = 4096;
  opt.max_instructions = 4096;
  etk_bundled_program_t *bp = NULL;
  etk_program_t *own = NULL;
  const etk_program_t *p = NULL;
  if (etk_file_kind_detect(data, size) == ETK_FILE_BPTE) {
    if (etk_bundled_program_load(data, size, &opt, &bp, NULL) != ETK_OK)
      return 0;
    p = bp->program;
  } else {
    if (etk_program_load(data, size, &opt, &own, NULL) != ETK_OK) return 0;
    p = own;
  }
  for (uint32_t i = 0; i < p->plan_count && i < 4; i++)
    for (unsigned flags = 0; flags < 2; flags++)
      draw(p, bp, p->plans[i].name, flags);
  etk_program_free(own);
  etk_bundled_program_free(bp);
  return 0;
}
