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
 * The helpers wrap the recorder bridge (trace.h) so that backends, which
 * include etkit/runtime.h, never need etkit/recorder.h.  Delegate events
 * take the DelegateCall's chain and instruction id from the recorder's
 * current state, which the executor sets around every instruction.
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

_Static_assert(sizeof(etk_backend_event_t) == sizeof(etk_trace_scope_t),
               "backend event storage");

etk_backend_event_t etk_backend_event_begin(etk_backend_execute_context_t *ctx,
                                            const char *name, int32_t id) {
  etk_backend_event_t e;
  etk_trace_scope_t s = etk_trace_begin_delegate(ctx ? ctx->recorder : NULL,
                                                 name, id);
  memcpy(&e, &s, sizeof e);
  return e;
}

int etk_backend_event_end(etk_backend_execute_context_t *ctx,
                          const etk_backend_event_t *event,
                          const void *metadata, size_t len) {
  if (!ctx || !ctx->recorder) return ETK_OK;
  if (!event) return ETK_E_INVALID_ARGUMENT;
  etk_trace_scope_t s;
  memcpy(&s, event, sizeof s);
  return etk_trace_end_delegate(ctx->recorder, &s, metadata, len);
}

int etk_backend_event_log(etk_backend_execute_context_t *ctx, const char *name,
                          int32_t id, uint64_t start, uint64_t end,
                          const void *metadata, size_t len) {
  if (!ctx || !ctx->recorder) return ETK_OK;
  return etk_trace_log_delegate(ctx->recorder, name, id, start, end, metadata,
                                len);
}

uint64_t etk_backend_ticks(etk_backend_execute_context_t *ctx) {
  return ctx ? etk_trace_ticks(ctx->recorder) : 0;
}

int etk_backend_should_log(const etk_backend_execute_context_t *ctx) {
  return ctx && etk_trace_should_log(ctx->recorder, 0);
}

int etk_backend_log_output(etk_backend_execute_context_t *ctx,
                           const char *name, int32_t id, const etk_value_t *v,
                           const etk_value_t *values, size_t value_count) {
  if (!ctx || !ctx->recorder) return ETK_OK;
  if (!v) return ETK_E_INVALID_ARGUMENT;
  etk_trace_tensor_t one;
  int64_t dims[2 * ETK_MAX_DIMS];
  etk_trace_value_t tv;
  memset(&tv, 0, sizeof tv);
  switch (v->tag) {
  case ETK_VALUE_INT:
    tv.kind = ETK_TRACE_INT;
    tv.int_value = v->u.i;
    break;
  case ETK_VALUE_BOOL:
    tv.kind = ETK_TRACE_BOOL;
    tv.bool_value = v->u.b;
    break;
  case ETK_VALUE_DOUBLE:
    tv.kind = ETK_TRACE_DOUBLE;
    tv.double_value = v->u.d;
    break;
  case ETK_VALUE_TENSOR:
    if (!v->u.tensor) return ETK_E_INVALID_ARGUMENT;
    etk_trace_tensor_from(v->u.tensor, &one, dims);
    tv.kind = ETK_TRACE_TENSOR;
    tv.tensors = &one;
    tv.tensor_count = 1;
    break;
  case ETK_VALUE_TENSOR_LIST: {
    /* Small lists only: logged one element per call would change the
     * ETDump structure, so longer lists are refused. */
    enum { MAX_LIST = 8 };
    etk_trace_tensor_t ts[MAX_LIST];
    int64_t ldims[MAX_LIST][2 * ETK_MAX_DIMS];
    size_t n = v->u.tensor_list.count;
    if (n > MAX_LIST || !values) return ETK_E_LIMIT;
    for (size_t k = 0; k < n; k++) {
      int64_t idx = v->u.tensor_list.items[k];
      if (idx < 0 || (size_t)idx >= value_count ||
          values[idx].tag != ETK_VALUE_TENSOR || !values[idx].u.tensor)
        return ETK_E_INVALID_ARGUMENT;
      etk_trace_tensor_from(values[idx].u.tensor, &ts[k], ldims[k]);
    }
    tv.kind = ETK_TRACE_TENSOR_LIST;
    tv.tensors = ts;
    tv.tensor_count = n;
    return etk_trace_log_delegate_value(ctx->recorder, name, id, &tv);
  }
  default:
    return ETK_E_UNSUPPORTED;
  }
  return etk_trace_log_delegate_value(ctx->recorder, name, id, &tv);
}
