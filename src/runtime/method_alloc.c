/*
 * method_alloc.c - the convenience loaders that allocate a method's memory
 * on the heap: etk_method_load_alloc() and etk_method_load_alloc_with().
 *
 * They size the method with memory_plan.c (arena and planned buffers), get
 * the memory with aligned_alloc (planned buffers zeroed, 64-byte aligned,
 * so runs are reproducible), and hand it to the executor's
 * etk_method_load(); the method then owns the memory and
 * etk_method_free() releases it.  This file sits above both the executor
 * and the memory plan, which do not know about each other's callers.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"

#define ALIGN16(n) (((n) + 15u) & ~(size_t)15u)

int etk_method_load_alloc(const struct etk_program *program,
                          const char *method_name, etk_recorder_t *recorder,
                          etk_method_t **out, struct etk_error *err) {
  etk_method_config_t options;
  memset(&options, 0, sizeof options);
  options.recorder = recorder;
  return etk_method_load_alloc_with(program, method_name, &options, out, err);
}

int etk_method_load_alloc_with(const struct etk_program *program,
                               const char *method_name,
                               const etk_method_config_t *options,
                               etk_method_t **out, struct etk_error *err) {
  if (!out || !options)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  size_t arena_size;
  int rc = etk_method_memory_size(program, method_name, &arena_size, err);
  if (rc != ETK_OK) return rc;
  size_t np = etk_method_planned_count(program, method_name);
  void *arena = aligned_alloc(16, ALIGN16(arena_size));
  void **planned = calloc(np ? np : 1, sizeof *planned);
  size_t *sizes = calloc(np ? np : 1, sizeof *sizes);
  int ok = arena && planned && sizes;
  for (size_t k = 0; ok && k < np; k++) {
    sizes[k] = etk_method_planned_size(program, method_name, k);
    /* calloc-like zeroing keeps runs reproducible (no stale bytes). */
    size_t bytes = ((sizes[k] ? sizes[k] : 1) + 63) & ~(size_t)63;
    planned[k] = aligned_alloc(64, bytes);
    if (planned[k]) memset(planned[k], 0, sizes[k]);
    ok = planned[k] != NULL;
  }
  if (!ok) {
    for (size_t k = 0; planned && k < np; k++) free(planned[k]);
    free(planned);
    free(sizes);
    free(arena);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory allocating the method");
  }
  etk_method_config_t cfg = *options;
  cfg.arena = arena;
  cfg.arena_size = ALIGN16(arena_size);
  cfg.planned_buffers = planned;
  cfg.planned_sizes = sizes;
  cfg.planned_count = np;
  etk_method_t *m = NULL;
  rc = etk_method_load(program, method_name, &cfg, &m, err);
  free(sizes);
  if (rc != ETK_OK) {
    for (size_t k = 0; k < np; k++) free(planned[k]);
    free(planned);
    free(arena);
    return rc;
  }
  m->owned_arena = arena;
  m->owned_planned = planned;
  m->owned_planned_count = np;
  *out = m;
  return ETK_OK;
}
