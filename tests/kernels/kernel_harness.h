/*
 * kernel_harness.h - builds small value tables for kernel tests and runs a
 * kernel the way the executor does (check first, then the kernel).
 *
 * A kt_env_t owns everything a call needs: values, tensors, boxed int list
 * items, a context.  Tensor data lives in caller arrays.  Tests describe
 * data in logical (row-major) order and the harness places it according to
 * the tensor's dim order, so expected values never depend on layout.
 */
#ifndef KERNEL_HARNESS_H
#define KERNEL_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/runtime.h"

#define KT_MAX_VALUES 256
#define KT_MAX_TENSORS 64
#define KT_MAX_ITEMS 256

typedef struct kt_env {
  etk_value_t values[KT_MAX_VALUES];
  size_t count;
  etk_tensor_t tensors[KT_MAX_TENSORS];
  size_t ntensors;
  int64_t items[KT_MAX_ITEMS];
  size_t nitems;
  etk_kernel_context_t ctx;
  int last_check; /* status of the check function in kt_call */
} kt_env_t;

void kt_init(kt_env_t *e);

/* A tensor value over `data` (capacity = bytes available).  dim_order NULL
 * means contiguous.  Returns the value index. */
int kt_tensor(kt_env_t *e, int dtype, int dim, const int32_t *sizes,
              const uint8_t *dim_order, void *data, size_t capacity);
etk_tensor_t *kt_t(kt_env_t *e, int value_index);
/* Writes logical (row-major) values into the tensor's storage. */
void kt_fill(kt_env_t *e, int value_index, const double *logical);
/* kt_tensor, then kt_fill with `logical`. */
int kt_tensor_from(kt_env_t *e, int dtype, int dim, const int32_t *sizes,
                   const uint8_t *dim_order, void *data, size_t capacity,
                   const double *logical);
/* Reads element `linear` (row-major logical index) as a double. */
double kt_get(kt_env_t *e, int value_index, int64_t linear);

int kt_int(kt_env_t *e, int64_t v);
int kt_double(kt_env_t *e, double v);
int kt_bool(kt_env_t *e, bool v);
int kt_none(kt_env_t *e);
int kt_string(kt_env_t *e, const char *s);
int kt_int_list(kt_env_t *e, size_t n, const int64_t *items);
int kt_tensor_list(kt_env_t *e, size_t n, const int *value_indices);

/* Runs check and then the kernel with args given as value indices; returns
 * the first failing status (check failures stop before the kernel runs). */
int kt_call(kt_env_t *e, const char *name, size_t nargs, const int *args);
/* The kernel alone (no check), for messages the check cannot produce. */
int kt_run(kt_env_t *e, const char *name, size_t nargs, const int *args);

/* 1 if message contains `needle` (and prints the message otherwise). */
int kt_msg_has(const kt_env_t *e, const char *needle);
/* Max |kt_get(v, i) - expected[i]| over n elements. */
double kt_max_err(kt_env_t *e, int value_index, const double *expected,
                  int64_t n);

#define KT_ARGS(...) \
  (sizeof((int[]){__VA_ARGS__}) / sizeof(int)), ((int[]){__VA_ARGS__})

#endif
