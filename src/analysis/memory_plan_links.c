/*
 * memory_plan_links.c - what other artifacts add to a memory plan.
 *
 * Names: etk_memory_plan_set_names() copies a tensor's name, module path
 * and source into the plan's pool (the CLI takes them from an ETRecord
 * through etk_etrecord_instruction_node(), library etkit_link, which this
 * library cannot see: docs/architecture.md).
 *
 * ETDump: the allocation events of the Inspector, summed per allocator name
 * over all runs; etkit's runtime names the planned buffers
 * "planned_memory_<mem_id>" and emits one event per buffer per load, so
 * each planned buffer's size stands next to what the runtime reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/inspector_core.h"
#include "etkit/memory_plan.h"
#include "memory_plan_internal.h"

int etk_memory_plan_set_names(etk_memory_plan_t *plan, size_t tensor,
                              const char *name, const char *module,
                              const char *source, const char *location,
                              etk_error_t *err) {
  if (!plan || tensor >= plan->tensor_count)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "no tensor %zu in the plan", tensor);
  etk_mp_internal_t *in = plan->internal_;
  etk_memory_plan_tensor_t *t = &in->tensors[tensor];
  const char *const from[4] = {name, module, source, location};
  const char **to[4] = {&t->name, &t->module, &t->source, &t->location};
  for (int i = 0; i < 4; i++) {
    if (!from[i]) continue;
    const char *copy = etk_mp_pool_dup(in, from[i], strlen(from[i]));
    if (!copy)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    *to[i] = copy;
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

size_t etk_memory_plan_foreign_events(const etk_memory_plan_t *plan,
                                      const struct etk_inspector *insp,
                                      int32_t *largest) {
  if (largest) *largest = -1;
  if (!plan || !insp) return 0;
  size_t beyond = 0;
  size_t n = etk_inspector_event_count(insp);
  for (size_t i = 0; i < n; i++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get_basic(insp, i, &ev) != ETK_OK) continue;
    /* operators of the method: profiled, not delegated, with an id */
    if (ev.instruction_id < 0 || ev.is_delegated_op || !ev.sample_count)
      continue;
    if ((uint64_t)ev.instruction_id >= plan->num_instructions) {
      beyond++;
      if (largest && ev.instruction_id > *largest) *largest = ev.instruction_id;
    }
  }
  return beyond;
}
