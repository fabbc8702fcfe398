/*
 * graph_program.c - a program's instruction graph for the Python package
 * (etk_graph_from_program(), etkit/graph.h): the loader that
 * _etkit.graph_html() and _etkit.graph_model_explorer() use when they are
 * given a program's path (.pte or .bpte) instead of an ETRecord.
 */
#include "handle.h"

#include <string.h>

#include "etkit/graph.h"
#include "etkit/program.h"

int ext_program_graph_load(const char *path, const char *method,
                           ext_program_graph_t *out, etk_error_t *err) {
  memset(out, 0, sizeof *out);
  const etk_program_t *program = NULL;
  int rc;
  if (etk_file_kind_of_path(path) == ETK_FILE_BPTE) {
    rc = etk_bundled_program_load_file(path, NULL, &out->bundled, err);
    if (rc == ETK_OK) program = out->bundled->program;
  } else {
    rc = etk_program_load_file(path, NULL, &out->program, err);
    program = out->program;
  }
  etk_graph_program_options_t o;
  etk_graph_program_options_default(&o);
  o.method = method;
  o.bundled = out->bundled;
  if (rc == ETK_OK) rc = etk_graph_from_program(program, &o, &out->graph, err);
  if (rc != ETK_OK) ext_program_graph_free(out);
  return rc;
}

void ext_program_graph_free(ext_program_graph_t *p) {
  etk_graph_free(p->graph);
  etk_program_free(p->program);
  etk_bundled_program_free(p->bundled);
  memset(p, 0, sizeof *p);
}
