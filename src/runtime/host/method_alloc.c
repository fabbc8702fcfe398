/*
 * method_alloc.c - the convenience loaders that allocate a method's memory
 * on the heap: etk_method_load_alloc() and etk_method_load_alloc_with().
 *
 * They size the method with memory_plan.c (arena and planned buffers), get
 * the memory with aligned_alloc (planned buffers zeroed, 64-byte aligned,
 * so runs are reproducible) after checking the total against
 * etk_method_config_t.max_memory (a plan is only a declaration: a tiny
 * file may claim gigabytes), and hand it to the executor's
 * etk_method_load(); the method then owns the memory and
 * etk_method_free() releases it.  This file sits above both the executor
 * and the memory plan, which do not know about each other's callers.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/checked.h"
#include "../runtime_internal.h"

#define ALIGN16(n) (((n) + 15u) & ~(size_t)15u)

int etk_method_load_alloc(const struct etk_program *program,
                          const char *method_name, etk_recorder_t *recorder,
                          etk_method_t **out, struct etk_error *err) {
  etk_method_config_t options;
  memset(&options, 0, sizeof options);
  options.recorder = recorder;
  return etk_method_load_alloc_with(program, method_name, &options, out, err);
}

/* Fails with ETK_E_LIMIT, before anything is allocated, when the arena and
 * the np planned buffers (as etk_method_load_alloc_with rounds them) exceed
 * `limit` bytes (0 = ETK_METHOD_DEFAULT_MAX_MEMORY). */
static int check_memory_limit(const struct etk_program *program,
                              const char *method_name, size_t arena_size,
                              size_t np, uint64_t limit,
                              struct etk_error *err) {
  uint64_t total = ALIGN16((uint64_t)arena_size);
  if (limit == 0) limit = ETK_METHOD_DEFAULT_MAX_MEMORY;
  for (size_t k = 0; k < np; k++) {
    uint64_t bytes = etk_method_planned_size(program, method_name, k);
    if (etk_checked_add_u64(bytes, 63, &bytes) != ETK_OK ||
        etk_checked_add_u64(total, bytes & ~(uint64_t)63, &total) != ETK_OK)
      total = UINT64_MAX;
  }
  if (total <= limit && total <= SIZE_MAX) return ETK_OK;
  return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                       "method '%s' needs %llu bytes of memory (planned "
                       "buffers and arena), more than the limit of %llu "
                       "bytes",
                       method_name ? method_name : "(first)",
                       (unsigned long long)total, (unsigned long long)limit);
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
  rc = check_memory_limit(program, method_name, arena_size, np,
                          options->max_memory, err);
  if (rc != ETK_OK) return rc;
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

void etk_method_free(etk_method_t *method) {
  if (!method) return;
  void *arena = method->owned_arena;
  void **planned = method->owned_planned;
  size_t np = method->owned_planned_count;
  etk_method_destroy(method);
  /* `method` lives in the arena: everything was read before freeing it. */
  for (size_t k = 0; planned && k < np; k++) free(planned[k]);
  free(planned);
  free(arena);
}
