/*
 * inspector_link.c - fills an Inspector's ETRecord-link slots from an
 * ETRecord (library etkit_etrecord_link).
 *
 * This file is the only place where the ETRecord reader meets the
 * inspector, and it is built as its own library so that etkit_etrecord
 * stays a plain reader (no dependency on the analysis layer above it).
 * For every Inspector event it builds an etk_etrecord_event_ref_t from the
 * event's fields, resolves it with the linker (link.c, upstream's rules),
 * and hands the result to etk_inspector_event_set_link(), which copies it.
 *
 * Field mapping (upstream Event <- ETRecord):
 *   debug_handles          link.debug_handles (int or list, or None)
 *   num_outputs            link.num_outputs
 *   delegate_backend_name  link.delegate_backend_name
 *   op_types               nodes[i]->op, duplicates kept
 *   stack_traces,
 *   module_hierarchy       unique_nodes, keyed by the FX node name plus "_"
 *                          (upstream's operator-graph naming), valued by the
 *                          stack trace and the raw nn_module_stack text.
 * Events that get nothing (no handles, no backend, one output) are left
 * with the inspector's defaults.  Scratch arrays (op types, nodes, the
 * "_"-suffixed names) are reused from event to event; the inspector copies
 * what it keeps.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/inspector.h"
#include "internal.h"

typedef struct scratch {
  const char **ops;
  size_t ops_cap;
  etk_inspector_link_node_t *nodes;
  size_t nodes_cap;
  char *names;
  size_t names_cap;
} scratch_t;

static bool reserve(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap : 16;
  while (n < need) {
    if (n > SIZE_MAX / 2 / size) return false;
    n *= 2;
  }
  void *bigger = realloc(*p, n * size);
  if (!bigger) return false;
  *p = bigger;
  *cap = n;
  return true;
}

static int fill_link(scratch_t *s, const etk_etrecord_event_link_t *l,
                     etk_inspector_event_link_t *out) {
  memset(out, 0, sizeof *out);
  out->has_debug_handles = l->has_debug_handles;
  out->debug_handles_is_list = l->debug_handles_is_list;
  out->debug_handles = l->debug_handles;
  out->debug_handle_count = l->debug_handle_count;
  out->num_outputs = l->num_outputs;
  out->delegate_backend_name = l->delegate_backend_name;
  if (!reserve((void **)&s->ops, &s->ops_cap, l->node_count, sizeof *s->ops) ||
      !reserve((void **)&s->nodes, &s->nodes_cap, l->unique_node_count,
               sizeof *s->nodes))
    return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < l->node_count; i++) s->ops[i] = l->nodes[i]->op;
  out->op_types = l->node_count ? s->ops : NULL;
  out->op_type_count = l->node_count;
  /* names + "_", packed into one buffer; offsets first, pointers after the
   * buffer stops moving */
  size_t total = 0;
  for (size_t i = 0; i < l->unique_node_count; i++) {
    size_t n = strlen(l->unique_nodes[i]->name) + 2;
    if (n > SIZE_MAX - total) return ETK_E_OVERFLOW;
    total += n;
  }
  if (!reserve((void **)&s->names, &s->names_cap, total ? total : 1, 1))
    return ETK_E_NO_MEMORY;
  size_t at = 0;
  for (size_t i = 0; i < l->unique_node_count; i++) {
    const etk_etrecord_node_t *n = l->unique_nodes[i];
    size_t len = strlen(n->name);
    memcpy(s->names + at, n->name, len);
    s->names[at + len] = '_';
    s->names[at + len + 1] = 0;
    s->nodes[i].name = s->names + at;
    s->nodes[i].stack_trace = n->stack_trace;
    s->nodes[i].module_hierarchy = n->nn_module_stack;
    at += len + 2;
  }
  out->nodes = l->unique_node_count ? s->nodes : NULL;
  out->node_count = l->unique_node_count;
  return ETK_OK;
}

int etk_etrecord_inspector_link(etk_etrecord_t *rec, etk_inspector_t *insp,
                                const char *method, unsigned flags,
                                etk_etrecord_link_summary_t *summary,
                                etk_error_t *err) {
  if (summary) memset(summary, 0, sizeof *summary);
  if (!rec || !insp)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  etk_etrecord_linker_t *linker;
  int rc = etk_etrecord_linker_create(rec, flags, &linker, err);
  if (rc != ETK_OK) return rc;
  scratch_t s = {0};
  size_t count = etk_inspector_event_count(insp);
  for (size_t i = 0; i < count && rc == ETK_OK; i++) {
    etk_inspector_event_t ev;
    rc = etk_inspector_event_get(insp, i, &ev);
    if (rc != ETK_OK) {
      etk_error_set(err, rc, ETK_NO_OFFSET, "cannot read inspector event %zu",
                    i);
      break;
    }
    etk_etrecord_event_ref_t ref = {.method = method,
                                    .name = ev.name,
                                    .chain_index = ev.chain_index,
                                    .instruction_id = ev.instruction_id,
                                    .has_instruction_id = true,
                                    .delegate_debug_id_int = -1,
                                    .delegate_debug_id_str = NULL};
    if (ev.is_delegated_op) {
      if (ev.delegate_id_is_int)
        ref.delegate_debug_id_int = ev.delegate_debug_id_int;
      else
        ref.delegate_debug_id_str = ev.delegate_debug_id_str;
    }
    etk_etrecord_event_link_t link;
    rc = etk_etrecord_linker_resolve(linker, &ref, &link, err);
    if (rc != ETK_OK) break;
    if (summary) {
      summary->events++;
      summary->linked += link.has_debug_handles;
      summary->with_nodes += link.node_count > 0;
      summary->no_delegate_mapping += link.no_delegate_mapping;
    }
    if (!link.has_debug_handles && !link.delegate_backend_name &&
        link.num_outputs == 1)
      continue;
    etk_inspector_event_link_t il;
    rc = fill_link(&s, &link, &il);
    if (rc != ETK_OK) {
      etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory linking event %zu",
                    i);
      break;
    }
    rc = etk_inspector_event_set_link(insp, i, &il, err);
  }
  free(s.ops);
  free(s.nodes);
  free(s.names);
  etk_etrecord_linker_destroy(linker);
  return rc;
}
