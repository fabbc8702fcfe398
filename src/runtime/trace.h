/*
 * trace.h - the executor's private bridge to the recorder.
 *
 * Why a bridge: etkit/runtime.h and etkit/recorder.h both name their value
 * kinds ETK_VALUE_*, so no translation unit can include both.  Executor
 * files include runtime.h and this header; trace.c includes recorder.h and
 * this header, and nothing else.  The types below are therefore plain C
 * with the same layout as the recorder's (trace.c checks that at compile
 * time), so values cross the bridge without copies.
 *
 * Every function accepts a NULL recorder and then does nothing.
 */
#ifndef ETKIT_RUNTIME_TRACE_H
#define ETKIT_RUNTIME_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct etk_recorder;

/* Layout-compatible with etk_recorder_tensor_t / etk_recorder_value_t. */
typedef struct etk_trace_tensor {
  int32_t scalar_type;
  uint32_t dim;
  const int64_t *sizes;
  const int64_t *strides;
  const void *data;
  size_t nbytes;
} etk_trace_tensor_t;

enum {
  ETK_TRACE_INT = 1,
  ETK_TRACE_BOOL = 2,
  ETK_TRACE_DOUBLE = 4,
  ETK_TRACE_TENSOR = 5,
  ETK_TRACE_TENSOR_LIST = 6
};

typedef struct etk_trace_value {
  int kind;
  int64_t int_value;
  double double_value;
  int bool_value;
  const etk_trace_tensor_t *tensors;
  size_t tensor_count;
} etk_trace_value_t;

/* Storage for an etk_recorder_scope_t (same size as etk_backend_event_t). */
typedef struct etk_trace_scope {
  uint64_t opaque_[4];
} etk_trace_scope_t;

typedef uint32_t etk_trace_name_t; /* an interned recorder name, 0 = none */

etk_trace_name_t etk_trace_intern(struct etk_recorder *r, const char *s);
void etk_trace_block(struct etk_recorder *r, etk_trace_name_t name);
/* Allocator id (1-based) or 0 when it could not be registered. */
uint32_t etk_trace_allocator(struct etk_recorder *r, const char *name);
void etk_trace_allocation(struct etk_recorder *r, uint32_t allocator,
                          uint64_t size);
/* Method scopes: always recorded. */
etk_trace_scope_t etk_trace_begin(struct etk_recorder *r,
                                  etk_trace_name_t name);
void etk_trace_end(struct etk_recorder *r, const etk_trace_scope_t *s);
/* Operator scopes: only with the "all events" profiling level. */
etk_trace_scope_t etk_trace_begin_op(struct etk_recorder *r,
                                     etk_trace_name_t name);
void etk_trace_end_op(struct etk_recorder *r, const etk_trace_scope_t *s);
void etk_trace_set_instruction(struct etk_recorder *r, int32_t chain,
                               uint32_t instruction);
void etk_trace_clear_instruction(struct etk_recorder *r);
/* 1 if intermediate (is_output 0) / program outputs (1) are to be logged. */
int etk_trace_should_log(const struct etk_recorder *r, int is_output);
int etk_trace_log(struct etk_recorder *r, const etk_trace_value_t *v,
                  int is_output);
void etk_trace_set_bundled_index(struct etk_recorder *r, int32_t index);

/* Delegate events (string id `name`, or integer id when name is NULL). */
etk_trace_scope_t etk_trace_begin_delegate(struct etk_recorder *r,
                                           const char *name, int32_t id);
int etk_trace_end_delegate(struct etk_recorder *r, const etk_trace_scope_t *s,
                           const void *metadata, size_t len);
int etk_trace_log_delegate(struct etk_recorder *r, const char *name,
                           int32_t id, uint64_t start, uint64_t end,
                           const void *metadata, size_t len);
int etk_trace_log_delegate_value(struct etk_recorder *r, const char *name,
                                 int32_t id, const etk_trace_value_t *v);
uint64_t etk_trace_ticks(struct etk_recorder *r);

#endif
