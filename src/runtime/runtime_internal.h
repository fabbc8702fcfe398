/*
 * runtime_internal.h - the method's private layout, shared by the executor
 * files (executor.c, memory_plan.c, bundled.c, backend.c).  Not installed.
 */
#ifndef ETKIT_RUNTIME_INTERNAL_H
#define ETKIT_RUNTIME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/program.h"
#include "etkit/recorder.h"
#include "etkit/method.h"

/* One instruction, ready to run: everything the hot loop needs is here, so
 * execute() never looks at the program again. */
typedef struct etk_instr {
  int32_t kind;          /* etk_instruction_kind_t */
  int32_t index, index2; /* operator/delegate/value indices, jump target */
  etk_kernel_fn fn;      /* KernelCall */
  etk_value_t **args;    /* KernelCall / DelegateCall */
  uint32_t nargs;
  uint32_t out_first, out_count; /* args logged as intermediate outputs */
  etk_recorder_name_t event;     /* native_call_<op> name */
} etk_instr_t;

typedef struct etk_chain_rt {
  etk_instr_t *instrs;
  uint32_t count;
} etk_chain_rt_t;

typedef struct etk_delegate_rt {
  const etk_backend_t *backend;
  void *handle;
  bool initialized;
} etk_delegate_rt_t;

/* Byte sizes of the arena arrays; computed once from the plan by
 * etk_method_layout() and used both for sizing and for loading, so the two
 * can never disagree. */
typedef struct etk_method_layout {
  size_t tensor_count;
  size_t int_list_items;    /* int64 scratch slots */
  size_t tensor_list_items; /* int64 converted indices */
  size_t instr_count;
  size_t arg_count;
  size_t max_list;      /* longest tensor list (logging scratch) */
  size_t spec_count;    /* compile specs of all delegates */
  size_t planned_count; /* planned buffers */
  size_t backend_total; /* memory_size() of every delegate, rounded */
  size_t total;         /* arena bytes, alignment slack included */
} etk_method_layout_t;

/* The bump allocator over the caller's arena. */
typedef struct etk_bump {
  uint8_t *base;
  size_t size, used;
  etk_recorder_t *recorder;
  uint32_t allocator_id; /* recorder allocator, 0 = none */
} etk_bump_t;

struct etk_method {
  const etk_program_t *program;
  const etk_program_plan_t *plan;
  etk_value_t *values;
  size_t value_count;
  etk_tensor_t *tensors;
  etk_chain_rt_t *chains;
  uint32_t chain_count;
  bool *input_set;
  etk_delegate_rt_t *delegates;
  uint32_t delegate_count;
  void **planned_bases; /* copy of the config's planned buffer pointers */
  etk_kernel_context_t kctx;
  etk_backend_execute_context_t bctx;
  etk_recorder_t *recorder;
  etk_recorder_name_t ev_operator, ev_delegate, ev_jump, ev_move, ev_free,
      ev_execute, ev_block;
  etk_recorder_tensor_t *list_tensors; /* scratch for logging tensor lists */
  int64_t *list_dims;                  /* 2 * ETK_MAX_DIMS per list tensor */
  size_t list_capacity;
  uint64_t max_instructions;
  uint64_t executed;
  bool initialized;
  /* etk_method_load_alloc ownership */
  void *owned_arena;
  void **owned_planned;
  size_t owned_planned_count;
};

/* Computes the layout of `plan` (backend memory included via
 * etk_backend_find).  Fails on unknown backends. */
int etk_method_layout(const etk_program_plan_t *plan, etk_method_layout_t *l,
                      etk_error_t *err);

/* 16-byte aligned, zeroed bytes from the arena (recorded as an allocation
 * event when tracing), or NULL when the arena is exhausted. */
void *etk_bump_alloc(etk_bump_t *b, size_t n);

/* A runtime value described for the recorder (etk_logged_value_init).
 * Scalars and a single tensor need no storage besides this struct (which
 * therefore must not be copied once filled); the tensors of a list live in
 * caller scratch. */
typedef struct etk_logged_value {
  etk_recorder_value_t value;
  etk_recorder_tensor_t tensor;   /* a Tensor value */
  int64_t dims[2 * ETK_MAX_DIMS]; /* its sizes, then its strides */
} etk_logged_value_t;

/* Describes `v` (borrowed: the recorder copies what it keeps) in out->value.
 * A TensorList's items are resolved through values[0..value_count) into
 * list[0..list_capacity) with list_dims (2 * ETK_MAX_DIMS per tensor).
 * ETK_OK, ETK_E_INVALID_ARGUMENT (NULL tensor, an item that is not a
 * tensor), ETK_E_LIMIT (no `values`, or more items than list_capacity),
 * ETK_E_UNSUPPORTED (a kind ETDump cannot hold). */
int etk_logged_value_init(etk_logged_value_t *out, const etk_value_t *v,
                          const etk_value_t *values, size_t value_count,
                          etk_recorder_tensor_t *list, int64_t *list_dims,
                          size_t list_capacity);

/* The one ETK_E_LIMIT error for a debug buffer past 2 GiB. */
int etk_trace_debug_too_big(unsigned runs, struct etk_error *err);

#endif
