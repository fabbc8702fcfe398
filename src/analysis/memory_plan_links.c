/*
 * memory_plan_links.c - what other artifacts add to a memory plan.
 *
 * ETRecord: a tensor is named after the node of its first instruction.
 * The method's debug_handle_map gives that instruction's debug handles
 * (instruction ids count the instructions of chain 0, as the runtime's
 * events do), the edge program gives the nodes with those handles; the
 * first node of the top graph supplies the name, the innermost module path
 * (upstream's "fqn") and the stack trace (upstream's "source").  Method
 * inputs keep their default names.
 *
 * ETDump: the allocation events of the Inspector, summed per allocator name
 * over all runs; etkit's runtime names the planned buffers
 * "planned_memory_<mem_id>" and emits one event per buffer per load, so
 * each planned buffer's size stands next to what the runtime reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/memory_plan.h"
#include "memory_plan_internal.h"

static const etk_etrecord_node_t *node_of(const etk_etrecord_program_t *prog,
                                          const etk_etrecord_handle_entry_t *h) {
  for (size_t i = 0; i < h->handle_count; i++) {
    const etk_etrecord_node_t *const *nodes = NULL;
    size_t n = etk_etrecord_program_nodes_for_handle(prog, h->handles[i], &nodes);
    for (size_t k = 0; k < n; k++)
      if (nodes[k]->depth == 0) return nodes[k];
    if (n) return nodes[0];
  }
  return NULL;
}

int etk_memory_plan_attach_etrecord(etk_memory_plan_t *plan,
                                    struct etk_etrecord *rec,
                                    etk_error_t *err) {
  if (!plan || !rec)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  etk_mp_internal_t *in = plan->internal_;
  const etk_etrecord_method_maps_t *maps =
      etk_etrecord_maps_find(rec, plan->method);
  const etk_etrecord_program_t *prog = NULL;
  etk_error_t local;
  etk_error_clear(&local);
  int rc = etk_etrecord_edge_program_load(rec, plan->method, &prog, &local);
  if (rc == ETK_E_NO_MEMORY)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  if (!maps || rc != ETK_OK) {
    plan->etrecord_note = !maps ? "the ETRecord has no debug handle map for "
                                  "this method; tensors keep value names"
                                : "the ETRecord has no edge program for this "
                                  "method; tensors keep value names";
    return ETK_OK;
  }
  uint64_t chain0_end = in->chain_starts[plan->chain_count ? 1 : 0];
  for (size_t k = 0; k < plan->tensor_count; k++) {
    etk_memory_plan_tensor_t *t = &in->tensors[k];
    if (t->first < 0 || t->is_input || (uint64_t)t->first >= chain0_end)
      continue;
    const etk_etrecord_handle_entry_t *h = etk_etrecord_maps_handles(maps, t->first);
    const etk_etrecord_node_t *node = h ? node_of(prog, h) : NULL;
    if (!node) continue;
    char module[512];
    size_t n = etk_etrecord_node_module_path(node, false, module, sizeof module);
    if (n >= sizeof module) n = sizeof module - 1;
    const char *name = etk_mp_pool_dup(in, node->name, strlen(node->name));
    const char *mod = etk_mp_pool_dup(in, module, n);
    const char *src = node->stack_trace
                          ? etk_mp_pool_dup(in, node->stack_trace,
                                            strlen(node->stack_trace))
                          : "";
    if (!name || !mod || !src)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
    t->name = name;
    t->module = mod;
    t->source = src;
  }
  return ETK_OK;
}

/* mem_id of an allocator named "planned_memory_<k>", else 0. */
static uint32_t planned_id(const char *name) {
  static const char prefix[] = "planned_memory_";
  if (!name || strncmp(name, prefix, sizeof prefix - 1) != 0) return 0;
  const char *d = name + sizeof prefix - 1;
  uint64_t v = 0;
  if (!*d) return 0;
  for (; *d; d++) {
    if (*d < '0' || *d > '9' || v > 100000000u) return 0;
    v = v * 10 + (uint64_t)(*d - '0');
  }
  return (uint32_t)v;
}

int etk_memory_plan_attach_etdump(etk_memory_plan_t *plan,
                                  const struct etk_inspector *insp,
                                  etk_error_t *err) {
  if (!plan || !insp)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  etk_mp_internal_t *in = plan->internal_;
  size_t n = etk_inspector_allocator_count(insp);
  etk_memory_plan_runtime_t *rows = calloc(n ? n : 1, sizeof *rows);
  if (!rows)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  size_t count = 0;
  for (size_t i = 0; i < n; i++) {
    etk_inspector_allocator_t a;
    if (etk_inspector_allocator_get(insp, i, &a) != ETK_OK) continue;
    const char *name = a.name ? a.name : "(unnamed)";
    size_t r = 0;
    while (r < count && strcmp(rows[r].allocator, name) != 0) r++;
    if (r == count) {
      rows[r].allocator = etk_mp_pool_dup(in, name, strlen(name));
      if (!rows[r].allocator) {
        free(rows);
        return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                             "out of memory");
      }
      uint32_t id = planned_id(name);
      if (id && id <= plan->buffer_count) {
        rows[r].mem_id = id;
        rows[r].planned_bytes = plan->buffers[id - 1].size;
      }
      count++;
    }
    rows[r].events += a.count;
    rows[r].runs += a.runs;
    rows[r].total_bytes += a.total_bytes;
    if (a.max_bytes > rows[r].max_bytes) rows[r].max_bytes = a.max_bytes;
  }
  free(in->runtime);
  in->runtime = rows;
  plan->runtime = rows;
  plan->runtime_count = count;
  return ETK_OK;
}
