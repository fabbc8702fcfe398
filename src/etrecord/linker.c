/*
 * linker.c - linking runtime events to ETRecord debug handles and graph
 * nodes, with upstream's rules (inspector notes 7.2 and 7.3).
 *
 * The linker is independent of how the inspector stores events: the
 * caller describes each event with etk_etrecord_event_ref_t and copies
 * what etk_etrecord_event_link_t returns into its own fields
 * (debug_handles, num_outputs, delegate_backend_name, op_types from
 * nodes[i]->op, stack_traces and module_hierarchy from unique_nodes).
 *
 * State: the record (borrowed), the flags, a one-entry cache of the last
 * method's maps and edge program, and two scratch arrays of node pointers
 * that every resolve call refills.  The scratch arrays only grow; results
 * point into them until the next call.
 *
 * Upstream quirks kept by default (each can be switched off by a flag):
 * framework events (chain -1, instruction 0) receive instruction 0's
 * handles; integer delegate ids fall back to substring matches of the
 * delegate map keys; only the top graph's nodes are used.  One upstream
 * behaviour is not kept by default: upstream uses the "forward" maps for
 * every method; here the event's method is used unless
 * ETK_ETRECORD_LINK_FORWARD_ONLY is set.
 *
 * Reference graph (upstream's Inspector(reference_graph_name=...)): the
 * maps always come from the event's method, the nodes from its edge
 * program, or from the one graph etk_etrecord_linker_set_graph() named.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct etk_etrecord_linker {
  etk_etrecord_t *rec;
  unsigned flags;
  /* cache of the last method */
  char *method;
  const etk_etrecord_method_maps_t *maps;
  const etk_etrecord_program_t *program; /* NULL: no edge program */
  /* etk_etrecord_linker_set_graph(): the graph whose nodes every method's
   * handles name (NULL: each method's own edge program) */
  const etk_etrecord_program_t *reference;
  /* scratch */
  const etk_etrecord_node_t **nodes;
  size_t node_cap;
  const etk_etrecord_node_t **unique;
  size_t unique_cap;
};

int etk_etrecord_linker_create(etk_etrecord_t *rec, unsigned flags,
                               etk_etrecord_linker_t **out, etk_error_t *err) {
  if (!rec || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = calloc(1, sizeof **out);
  if (!*out)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory creating the linker");
  (*out)->rec = rec;
  (*out)->flags = flags;
  return ETK_OK;
}

void etk_etrecord_linker_destroy(etk_etrecord_linker_t *linker) {
  if (!linker) return;
  free(linker->method);
  free(linker->nodes);
  free(linker->unique);
  free(linker);
}

static int select_method(etk_etrecord_linker_t *l, const char *method,
                         etk_error_t *err) {
  if (l->method && strcmp(l->method, method) == 0) return ETK_OK;
  size_t n = strlen(method);
  char *copy = malloc(n + 1);
  if (!copy)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  memcpy(copy, method, n + 1);
  const etk_etrecord_program_t *prog = NULL;
  etk_error_t local;
  etk_error_clear(&local);
  int rc = etk_etrecord_edge_program_load(l->rec, method, &prog, &local);
  if (rc != ETK_OK && rc != ETK_E_NOT_FOUND) {
    free(copy);
    if (err && err->code == ETK_OK) *err = local;
    return rc;
  }
  free(l->method);
  l->method = copy;
  l->maps = etk_etrecord_maps_find(l->rec, method);
  l->program = rc == ETK_OK ? prog : NULL;
  return ETK_OK;
}

int etk_etrecord_linker_set_graph(etk_etrecord_linker_t *l, const char *name,
                                  etk_error_t *err) {
  if (!l)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  if (!name) {
    l->reference = NULL;
    return ETK_OK;
  }
  const etk_etrecord_program_t *prog;
  int rc = etk_etrecord_graph_load(l->rec, name, &prog, err);
  if (rc != ETK_OK) return rc;
  l->reference = prog;
  return ETK_OK;
}

static bool reserved_event(const char *name) {
  return name && (strcmp(name, "Method::init") == 0 ||
                  strcmp(name, "Program::load_method") == 0 ||
                  strcmp(name, "Method::execute") == 0);
}

static int collect_nodes(etk_etrecord_linker_t *l,
                         const etk_etrecord_program_t *program,
                         etk_etrecord_event_link_t *out, etk_error_t *err) {
  size_t count = 0, unique = 0;
  for (size_t h = 0; h < out->debug_handle_count; h++) {
    const etk_etrecord_node_t *const *nodes;
    size_t n = etk_etrecord_program_nodes_for_handle(
        program, out->debug_handles[h], &nodes);
    if (n > SIZE_MAX - count ||
        !ETK_VEC_RESERVE(l->nodes, l->node_cap, count + n) ||
        !ETK_VEC_RESERVE(l->unique, l->unique_cap, unique + n))
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory linking an event");
    for (size_t i = 0; i < n; i++) {
      const etk_etrecord_node_t *node = nodes[i];
      if ((l->flags & ETK_ETRECORD_LINK_TOP_GRAPH_ONLY) && node->depth > 0)
        continue;
      l->nodes[count++] = node;
      bool seen = false;
      for (size_t u = 0; u < unique && !seen; u++)
        seen =
            l->unique[u] == node || strcmp(l->unique[u]->name, node->name) == 0;
      if (!seen) l->unique[unique++] = node;
    }
  }
  out->nodes = count ? l->nodes : NULL;
  out->node_count = count;
  out->unique_nodes = unique ? l->unique : NULL;
  out->unique_node_count = unique;
  return ETK_OK;
}

int etk_etrecord_linker_resolve(etk_etrecord_linker_t *l,
                                const etk_etrecord_event_ref_t *ev,
                                etk_etrecord_event_link_t *out,
                                etk_error_t *err) {
  if (!l || !ev || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  memset(out, 0, sizeof *out);
  out->num_outputs = 1;
  if (!ev->has_instruction_id) return ETK_OK;
  if ((l->flags & ETK_ETRECORD_LINK_INSTRUCTIONS_ONLY) && ev->chain_index < 0)
    return ETK_OK;
  const char *method = ev->method ? ev->method : "forward";
  if (l->flags & ETK_ETRECORD_LINK_FORWARD_ONLY) method = "forward";
  int rc = select_method(l, method, err);
  if (rc != ETK_OK) return rc;

  int64_t iid = ev->instruction_id;
  const etk_etrecord_handle_entry_t *entry =
      etk_etrecord_maps_handles(l->maps, iid);
  if (!entry) return ETK_OK;
  out->num_outputs = etk_etrecord_maps_num_outputs(l->maps, iid, 1);
  const etk_etrecord_delegate_entry_t *d =
      etk_etrecord_maps_delegate(l->maps, iid);
  bool delegated = ev->delegate_debug_id_int >= 0 ||
                   (ev->delegate_debug_id_str && ev->delegate_debug_id_str[0]);
  if (!delegated || !d) {
    out->has_debug_handles = !entry->is_null;
    out->debug_handles_is_list = entry->is_list;
    out->debug_handles = entry->handles;
    out->debug_handle_count = entry->handle_count;
    if (!delegated && d && ev->name && strcmp(ev->name, "DELEGATE_CALL") == 0)
      out->delegate_backend_name = d->backend_name;
    if (delegated) out->no_delegate_mapping = true;
  } else {
    out->delegate_backend_name = d->backend_name;
    unsigned flags = (l->flags & ETK_ETRECORD_LINK_EXACT_DELEGATE_IDS)
                         ? ETK_ETRECORD_DELEGATE_ID_EXACT
                         : 0;
    const int64_t *handles;
    size_t count;
    if (etk_etrecord_delegate_resolve(d, ev->delegate_debug_id_int,
                                      ev->delegate_debug_id_str, flags,
                                      &handles, &count) == ETK_OK) {
      out->has_debug_handles = true;
      out->debug_handles_is_list = true;
      out->debug_handles = handles;
      out->debug_handle_count = count;
    }
  }
  const etk_etrecord_program_t *program =
      l->reference ? l->reference : l->program;
  if (!out->has_debug_handles || reserved_event(ev->name) || !program)
    return ETK_OK;
  return collect_nodes(l, program, out, err);
}

bool etk_etrecord_link_in_module(const etk_etrecord_event_link_t *link,
                                 const char *name,
                                 etk_etrecord_module_match_t mode) {
  if (!link || !name) return false;
  for (size_t i = 0; i < link->unique_node_count; i++)
    if (etk_etrecord_node_in_module(link->unique_nodes[i], name, mode))
      return true;
  return false;
}
