/*
 * trace.c - the only executor file that includes etkit/recorder.h (see
 * trace.h for why).  Each function forwards to the recorder, tolerating a
 * NULL recorder, and converts nothing: the bridge types share the
 * recorder's layout, which the static assertions below pin.
 *
 * Errors from the recorder (a full arena, a dtype it cannot log) never fail
 * the run: the recorder counts what it dropped, and the executor reports
 * only its own errors, exactly like upstream where tracing is best effort.
 */
#include <stddef.h>
#include <string.h>

#include "etkit/recorder.h"
#include "trace.h"

#define SAME_FIELD(a, b, f) (offsetof(a, f) == offsetof(b, f))
_Static_assert(sizeof(etk_trace_tensor_t) == sizeof(etk_recorder_tensor_t) &&
                   SAME_FIELD(etk_trace_tensor_t, etk_recorder_tensor_t, dim) &&
                   SAME_FIELD(etk_trace_tensor_t, etk_recorder_tensor_t, sizes) &&
                   SAME_FIELD(etk_trace_tensor_t, etk_recorder_tensor_t, strides) &&
                   SAME_FIELD(etk_trace_tensor_t, etk_recorder_tensor_t, data) &&
                   SAME_FIELD(etk_trace_tensor_t, etk_recorder_tensor_t, nbytes),
               "trace tensor layout");
_Static_assert(sizeof(etk_trace_value_t) == sizeof(etk_recorder_value_t) &&
                   SAME_FIELD(etk_trace_value_t, etk_recorder_value_t, int_value) &&
                   SAME_FIELD(etk_trace_value_t, etk_recorder_value_t, double_value) &&
                   SAME_FIELD(etk_trace_value_t, etk_recorder_value_t, bool_value) &&
                   SAME_FIELD(etk_trace_value_t, etk_recorder_value_t, tensors) &&
                   SAME_FIELD(etk_trace_value_t, etk_recorder_value_t, tensor_count),
               "trace value layout");
_Static_assert((int)ETK_TRACE_INT == (int)ETK_RECORDER_VALUE_INT &&
                   (int)ETK_TRACE_BOOL == (int)ETK_RECORDER_VALUE_BOOL &&
                   (int)ETK_TRACE_DOUBLE == (int)ETK_RECORDER_VALUE_DOUBLE &&
                   (int)ETK_TRACE_TENSOR == (int)ETK_RECORDER_VALUE_TENSOR &&
                   (int)ETK_TRACE_TENSOR_LIST == (int)ETK_RECORDER_VALUE_TENSOR_LIST,
               "trace value kinds");
_Static_assert(sizeof(etk_recorder_scope_t) <= sizeof(etk_trace_scope_t),
               "trace scope storage");

static etk_trace_scope_t wrap(etk_recorder_scope_t s) {
  etk_trace_scope_t t;
  memset(&t, 0, sizeof t);
  memcpy(&t, &s, sizeof s);
  return t;
}

static etk_recorder_scope_t unwrap(const etk_trace_scope_t *t) {
  etk_recorder_scope_t s;
  memcpy(&s, t, sizeof s);
  return s;
}

etk_trace_name_t etk_trace_intern(struct etk_recorder *r, const char *s) {
  return r ? etk_recorder_intern(r, s) : 0;
}

void etk_trace_block(struct etk_recorder *r, etk_trace_name_t name) {
  if (r) (void)etk_recorder_begin_block_id(r, name);
}

uint32_t etk_trace_allocator(struct etk_recorder *r, const char *name) {
  uint32_t id = 0;
  if (r && etk_recorder_track_allocator(r, name, &id) != ETK_OK) id = 0;
  return id;
}

void etk_trace_allocation(struct etk_recorder *r, uint32_t allocator,
                          uint64_t size) {
  if (r && allocator) (void)etk_recorder_track_allocation(r, allocator, size);
}

etk_trace_scope_t etk_trace_begin(struct etk_recorder *r,
                                  etk_trace_name_t name) {
  etk_trace_scope_t t;
  if (!r) {
    memset(&t, 0, sizeof t);
    return t;
  }
  return wrap(etk_recorder_begin(r, name));
}

void etk_trace_end(struct etk_recorder *r, const etk_trace_scope_t *s) {
  if (!r) return;
  etk_recorder_scope_t x = unwrap(s);
  (void)etk_recorder_end(r, &x);
}

etk_trace_scope_t etk_trace_begin_op(struct etk_recorder *r,
                                     etk_trace_name_t name) {
  etk_trace_scope_t t;
  if (!r) {
    memset(&t, 0, sizeof t);
    return t;
  }
  return wrap(etk_recorder_begin_op(r, name));
}

void etk_trace_end_op(struct etk_recorder *r, const etk_trace_scope_t *s) {
  if (!r) return;
  etk_recorder_scope_t x = unwrap(s);
  (void)etk_recorder_end_op(r, &x);
}

void etk_trace_set_instruction(struct etk_recorder *r, int32_t chain,
                               uint32_t instruction) {
  if (r) etk_recorder_set_chain_debug_handle(r, chain, instruction);
}

void etk_trace_clear_instruction(struct etk_recorder *r) {
  if (r)
    etk_recorder_set_chain_debug_handle(r, ETK_CHAIN_UNSET,
                                        ETK_DEBUG_HANDLE_UNSET);
}

int etk_trace_should_log(const struct etk_recorder *r, int is_output) {
  if (!r) return 0;
  return etk_recorder_should_log(r, is_output ? ETK_LOGGED_PROGRAM_OUTPUT
                                              : ETK_LOGGED_INTERMEDIATE_OUTPUT);
}

int etk_trace_log(struct etk_recorder *r, const etk_trace_value_t *v,
                  int is_output) {
  if (!r) return ETK_OK;
  return etk_recorder_log_value(r, (const etk_recorder_value_t *)v,
                                is_output ? ETK_LOGGED_PROGRAM_OUTPUT
                                          : ETK_LOGGED_INTERMEDIATE_OUTPUT);
}

void etk_trace_set_bundled_index(struct etk_recorder *r, int32_t index) {
  if (r) etk_recorder_set_bundled_input_index(r, index);
}

etk_trace_scope_t etk_trace_begin_delegate(struct etk_recorder *r,
                                           const char *name, int32_t id) {
  etk_trace_scope_t t;
  if (!r) {
    memset(&t, 0, sizeof t);
    return t;
  }
  return wrap(etk_recorder_begin_delegate(r, name, name ? ETK_DELEGATE_ID_UNSET
                                                        : id));
}

int etk_trace_end_delegate(struct etk_recorder *r, const etk_trace_scope_t *s,
                           const void *metadata, size_t len) {
  if (!r) return ETK_OK;
  etk_recorder_scope_t x = unwrap(s);
  return etk_recorder_end_delegate(r, &x, metadata, len);
}

int etk_trace_log_delegate(struct etk_recorder *r, const char *name,
                           int32_t id, uint64_t start, uint64_t end,
                           const void *metadata, size_t len) {
  if (!r) return ETK_OK;
  return etk_recorder_log_delegate(r, name, name ? ETK_DELEGATE_ID_UNSET : id,
                                   start, end, metadata, len);
}

int etk_trace_log_delegate_value(struct etk_recorder *r, const char *name,
                                 int32_t id, const etk_trace_value_t *v) {
  if (!r) return ETK_OK;
  return etk_recorder_log_delegate_value(
      r, name, name ? ETK_DELEGATE_ID_UNSET : id,
      (const etk_recorder_value_t *)v);
}

uint64_t etk_trace_ticks(struct etk_recorder *r) {
  /* The recorder exposes its clock only through scopes: a begin reads it
   * and costs no record (nothing is stored until the matching end). */
  if (!r) return 0;
  etk_recorder_scope_t s = etk_recorder_begin(r, 0);
  return s.start;
}
