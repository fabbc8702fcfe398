/*
 * backend_trace.c - the tracing helpers backends call while executing.
 *
 * Backends trace with the recorder API directly (see etkit/method.h);
 * the two helpers here add what the recorder cannot know: its clock for
 * backend-measured times, and the conversion of runtime values (with the
 * executor's etk_logged_value_init, so backend outputs are logged exactly
 * like the executor's own).
 */
#include "runtime_internal.h"

uint64_t etk_backend_ticks(etk_backend_execute_context_t *ctx) {
  /* The recorder exposes its clock only through scopes: a begin reads it
   * and costs no record (nothing is stored until a matching end). */
  if (!ctx || !ctx->recorder) return 0;
  return etk_recorder_begin(ctx->recorder, 0).start;
}

int etk_backend_log_output(etk_backend_execute_context_t *ctx, const char *name,
                           int32_t id, const etk_value_t *v,
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
