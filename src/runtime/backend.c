/*
 * backend.c - the backend (delegate) registry and the tracing helpers
 * backends call while executing.
 *
 * The registry is a fixed table of ETK_BACKEND_MAX borrowed pointers, no
 * heap: registration happens at start-up and lookups at method load (never
 * during execute).  Built-in backends (src/runtime/backends/) are found
 * after the registered ones, so an application may register its own
 * backend under a built-in id to replace it.
 *
 * Backends trace with the recorder API directly (see etkit/runtime.h);
 * the two helpers here add what the recorder cannot know: its clock for
 * backend-measured times, and the conversion of runtime values.
 */
#include <string.h>

#include "runtime_internal.h"

static const etk_backend_t *registry[ETK_BACKEND_MAX];

int etk_backend_register(const etk_backend_t *backend) {
  if (!backend || !backend->id || !backend->id[0] || !backend->init ||
      !backend->execute)
    return ETK_E_INVALID_ARGUMENT;
  for (size_t i = 0; i < ETK_BACKEND_MAX; i++)
    if (registry[i] && strcmp(registry[i]->id, backend->id) == 0)
      return ETK_E_INVALID_STATE;
  for (size_t i = 0; i < ETK_BACKEND_MAX; i++)
    if (!registry[i]) {
      registry[i] = backend;
      return ETK_OK;
    }
  return ETK_E_FULL;
}

int etk_backend_unregister(const char *id) {
  if (!id) return ETK_E_INVALID_ARGUMENT;
  for (size_t i = 0; i < ETK_BACKEND_MAX; i++)
    if (registry[i] && strcmp(registry[i]->id, id) == 0) {
      registry[i] = NULL;
      return ETK_OK;
    }
  return ETK_E_NOT_FOUND;
}

const etk_backend_t *etk_backend_find(const char *id) {
  if (!id) return NULL;
  for (size_t i = 0; i < ETK_BACKEND_MAX; i++)
    if (registry[i] && strcmp(registry[i]->id, id) == 0) return registry[i];
  const etk_backend_t *micro = etk_micro_backend();
  if (strcmp(micro->id, id) == 0) return micro;
  return NULL;
}

uint64_t etk_backend_ticks(etk_backend_execute_context_t *ctx) {
  /* The recorder exposes its clock only through scopes: a begin reads it
   * and costs no record (nothing is stored until a matching end). */
  if (!ctx || !ctx->recorder) return 0;
  return etk_recorder_begin(ctx->recorder, 0).start;
}

int etk_backend_log_output(etk_backend_execute_context_t *ctx,
                           const char *name, int32_t id, const etk_value_t *v,
                           const etk_value_t *values, size_t value_count) {
  enum { MAX_LIST = 8 }; /* lists live on the stack: backends never allocate */
  if (!ctx || !ctx->recorder) return ETK_OK;
  if (!v) return ETK_E_INVALID_ARGUMENT;
  etk_logged_value_t lv;
  etk_recorder_tensor_t list[MAX_LIST];
  int64_t list_dims[MAX_LIST * 2 * ETK_MAX_DIMS];
  int rc = etk_logged_value_init(&lv, v, values, value_count, list, list_dims,
                                 MAX_LIST);
  if (rc != ETK_OK) return rc;
  /* The recorder wants exactly one id: a given name wins. */
  return etk_recorder_log_delegate_value(
      ctx->recorder, name, name ? ETK_DELEGATE_ID_UNSET : id, &lv.value);
}
