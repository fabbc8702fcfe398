/*
 * program_outputs.c - a bundled program's expected outputs as the reference
 * outputs of its program graph (etk_graph_from_program, from_program.c):
 * what etk_graph_recorded() and etk_graph_recorded_case_count() (weights.c)
 * give for a graph without an ETRecord.  Kept apart from from_program.c so
 * that weights.c does not call back into the graph's builder.
 */
#include <stdint.h>
#include <stdlib.h>

#include "etkit/program.h"
#include "etkit/scalar_type.h"
#include "internal.h"

static const etk_bundled_suite_t *suite_of(const etk_graph_t *g) {
  const etk_graph_program_t *p = g->program;
  return p && p->bundled ? etk_bundled_find_suite(p->bundled, p->plan->name)
                         : NULL;
}

size_t graph_program_case_count(const etk_graph_t *g,
                                etk_graph_recording_t which) {
  const etk_bundled_suite_t *s = suite_of(g);
  return s && which == ETK_GRAPH_REFERENCE_OUTPUTS ? s->case_count : 0;
}

/* Case k's expected outputs as recorded tensors (in the arena; the list
 * entry is malloc'd, as graph_weights_free() frees it). */
int graph_program_recorded(etk_graph_t *g, etk_graph_recording_t which,
                           int64_t index, const etk_graph_tensor_t **items,
                           size_t *count, etk_error_t *err) {
  const etk_bundled_suite_t *s = suite_of(g);
  if (!s || which != ETK_GRAPH_REFERENCE_OUTPUTS)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "a program's graph has no ETRecord: no weights or "
                         "recorded tensors (a bundled program's expected "
                         "outputs are its only reference outputs)");
  int64_t k = index < 0 ? (int64_t)s->case_count + index : index;
  if (k < 0 || (uint64_t)k >= s->case_count)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "no test case %lld: the bundled program has %u",
                         (long long)index, s->case_count);
  for (graph_recording_t *r = g->recordings; r; r = r->next)
    if (r->which == which && r->index == k) {
      *items = r->items;
      *count = r->count;
      return ETK_OK;
    }
  const etk_bundled_case_t *c = &s->cases[k];
  etk_arena_t *ar = &g->arena;
  etk_graph_tensor_t *t = etk_arena_array(ar, c->expected_count + 1, sizeof *t);
  graph_recording_t *r = t ? calloc(1, sizeof *r) : NULL;
  if (!r)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (uint32_t e = 0; e < c->expected_count; e++) {
    const etk_bundled_value_t *v = &c->expected[e];
    int64_t *sizes = etk_arena_array(ar, v->dim + 1, sizeof *sizes);
    if (!sizes) {
      free(r);
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    }
    t[e].dtype = -1;
    if (v->tag != ETK_BUNDLED_TENSOR) continue;
    uint64_t numel = 1;
    for (uint32_t d = 0; d < v->dim; d++) {
      sizes[d] = v->sizes[d];
      numel *= (uint64_t)v->sizes[d];
    }
    t[e].dtype = v->scalar_type;
    t[e].dim = v->dim;
    t[e].sizes = sizes;
    t[e].numel = numel;
    t[e].element_size = etk_scalar_type_size(v->scalar_type);
    t[e].data = v->data;
    t[e].nbytes = v->nbytes;
  }
  r->which = which;
  r->index = k;
  r->items = t;
  r->count = c->expected_count;
  r->next = g->recordings;
  g->recordings = r;
  *items = t;
  *count = r->count;
  return ETK_OK;
}
