/*
 * backend.c - the backend (delegate) registry.
 *
 * Two fixed tables of ETK_BACKEND_MAX borrowed pointers, no heap:
 * registration happens at start-up and lookups at method load (never during
 * execute).  The registry knows no backend by name.  A backend library
 * (src/backends/) that is linked in adds itself to the built-in table at
 * start-up with etk_backend_register_builtin(); built-ins are found after
 * the registered backends, so an application may register its own backend
 * under a built-in id to replace it, and etk_backend_unregister() never
 * removes a built-in.
 */
#include <string.h>

#include "runtime_internal.h"

static const etk_backend_t *registry[ETK_BACKEND_MAX];
static const etk_backend_t *builtins[ETK_BACKEND_MAX];

static int backend_valid(const etk_backend_t *backend) {
  return backend && backend->id && backend->id[0] && backend->init &&
         backend->execute;
}

/* Puts backend into the first free slot of table (ETK_BACKEND_MAX slots). */
static int table_add(const etk_backend_t **table,
                     const etk_backend_t *backend) {
  for (size_t i = 0; i < ETK_BACKEND_MAX; i++)
    if (!table[i]) {
      table[i] = backend;
      return ETK_OK;
    }
  return ETK_E_FULL;
}

int etk_backend_register_builtin(const etk_backend_t *backend) {
  if (!backend_valid(backend)) return ETK_E_INVALID_ARGUMENT;
  for (size_t i = 0; i < ETK_BACKEND_MAX; i++)
    if (builtins[i] == backend) return ETK_OK;
  return table_add(builtins, backend);
}

int etk_backend_register(const etk_backend_t *backend) {
  if (!backend_valid(backend)) return ETK_E_INVALID_ARGUMENT;
  for (size_t i = 0; i < ETK_BACKEND_MAX; i++)
    if (registry[i] && strcmp(registry[i]->id, backend->id) == 0)
      return ETK_E_INVALID_STATE;
  return table_add(registry, backend);
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
  for (size_t i = 0; i < ETK_BACKEND_MAX; i++)
    if (builtins[i] && strcmp(builtins[i]->id, id) == 0) return builtins[i];
  return NULL;
}
