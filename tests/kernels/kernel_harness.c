/*
 * kernel_harness.c - see kernel_harness.h.  Element placement uses the
 * strides etk_tensor_update_strides gives (tested on its own in
 * test_kernel_core.c), converting a row-major index to a multi-index by
 * repeated division rather than by the odometers the kernels use.
 */
#include "kernel_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kt_init(kt_env_t *e) {
  memset(e, 0, sizeof *e);
  e->ctx.values = e->values;
}

static int add_value(kt_env_t *e, etk_value_t v) {
  if (e->count >= KT_MAX_VALUES) {
    fprintf(stderr, "kt: too many values\n");
    abort();
  }
  e->values[e->count] = v;
  e->ctx.value_count = e->count + 1;
  return (int)e->count++;
}

int kt_tensor(kt_env_t *e, int dtype, int dim, const int32_t *sizes,
              const uint8_t *dim_order, void *data, size_t capacity) {
  etk_tensor_t *t;
  etk_value_t v;
  if (e->ntensors >= KT_MAX_TENSORS) abort();
  t = &e->tensors[e->ntensors++];
  memset(t, 0, sizeof *t);
  t->scalar_type = dtype;
  t->dim = dim;
  for (int d = 0; d < dim; d++) {
    t->sizes[d] = sizes[d];
    t->dim_order[d] = dim_order ? dim_order[d] : (uint8_t)d;
  }
  t->data = data;
  t->capacity_bytes = capacity;
  etk_tensor_update_strides(t);
  memset(&v, 0, sizeof v);
  v.tag = ETK_VALUE_TENSOR;
  v.u.tensor = t;
  return add_value(e, v);
}

etk_tensor_t *kt_t(kt_env_t *e, int value_index) {
  return e->values[value_index].u.tensor;
}

static int64_t physical(const etk_tensor_t *t, int64_t linear) {
  int64_t off = 0;
  for (int d = t->dim - 1; d >= 0; d--) {
    int64_t i = linear % t->sizes[d];
    linear /= t->sizes[d];
    off += i * t->strides[d];
  }
  return off;
}

int kt_tensor_from(kt_env_t *e, int dtype, int dim, const int32_t *sizes,
                   const uint8_t *dim_order, void *data, size_t capacity,
                   const double *logical) {
  int v = kt_tensor(e, dtype, dim, sizes, dim_order, data, capacity);
  kt_fill(e, v, logical);
  return v;
}

void kt_fill(kt_env_t *e, int value_index, const double *logical) {
  etk_tensor_t *t = kt_t(e, value_index);
  int64_t n = etk_tensor_numel(t);
  for (int64_t k = 0; k < n; k++) {
    int64_t o = physical(t, k);
    double x = logical[k];
    switch (t->scalar_type) {
      case ETK_FLOAT:
        ((float *)t->data)[o] = (float)x;
        break;
      case ETK_DOUBLE:
        ((double *)t->data)[o] = x;
        break;
      case ETK_LONG:
        ((int64_t *)t->data)[o] = (int64_t)x;
        break;
      case ETK_INT:
        ((int32_t *)t->data)[o] = (int32_t)x;
        break;
      case ETK_SHORT:
        ((int16_t *)t->data)[o] = (int16_t)x;
        break;
      case ETK_CHAR:
        ((int8_t *)t->data)[o] = (int8_t)x;
        break;
      case ETK_BYTE:
        ((uint8_t *)t->data)[o] = (uint8_t)x;
        break;
      case ETK_BOOL:
        ((uint8_t *)t->data)[o] = x != 0;
        break;
      default:
        abort();
    }
  }
}

double kt_get(kt_env_t *e, int value_index, int64_t linear) {
  etk_tensor_t *t = kt_t(e, value_index);
  int64_t o = physical(t, linear);
  switch (t->scalar_type) {
    case ETK_FLOAT:
      return ((float *)t->data)[o];
    case ETK_DOUBLE:
      return ((double *)t->data)[o];
    case ETK_LONG:
      return (double)((int64_t *)t->data)[o];
    case ETK_INT:
      return ((int32_t *)t->data)[o];
    case ETK_SHORT:
      return ((int16_t *)t->data)[o];
    case ETK_CHAR:
      return ((int8_t *)t->data)[o];
    case ETK_BYTE:
      return ((uint8_t *)t->data)[o];
    case ETK_BOOL:
      return ((uint8_t *)t->data)[o];
    default:
      abort();
  }
}

/* Scalar, string and list values (the fields not named are zero). */
int kt_int(kt_env_t *e, int64_t x) {
  return add_value(e, (etk_value_t){.tag = ETK_VALUE_INT, .u.i = x});
}

int kt_double(kt_env_t *e, double x) {
  return add_value(e, (etk_value_t){.tag = ETK_VALUE_DOUBLE, .u.d = x});
}

int kt_bool(kt_env_t *e, bool x) {
  return add_value(e, (etk_value_t){.tag = ETK_VALUE_BOOL, .u.b = x});
}

int kt_none(kt_env_t *e) {
  return add_value(e, (etk_value_t){.tag = ETK_VALUE_NONE});
}

int kt_string(kt_env_t *e, const char *s) {
  return add_value(
      e, (etk_value_t){.tag = ETK_VALUE_STRING, .u.string = {s, strlen(s)}});
}

/* Appends n item slots, returning the first (aborts when they run out). */
static int64_t *new_items(kt_env_t *e, size_t n) {
  if (e->nitems + n > KT_MAX_ITEMS) abort();
  e->nitems += n;
  return &e->items[e->nitems - n];
}

int kt_int_list(kt_env_t *e, size_t n, const int64_t *items) {
  int64_t *boxed = new_items(e, n);
  for (size_t k = 0; k < n; k++) boxed[k] = kt_int(e, items[k]);
  return add_value(e, (etk_value_t){.tag = ETK_VALUE_INT_LIST,
                                    .u.int_list = {boxed, n, NULL}});
}

int kt_tensor_list(kt_env_t *e, size_t n, const int *value_indices) {
  int64_t *indices = new_items(e, n);
  for (size_t k = 0; k < n; k++) indices[k] = value_indices[k];
  return add_value(e, (etk_value_t){.tag = ETK_VALUE_TENSOR_LIST,
                                    .u.tensor_list = {indices, n}});
}

static int call(kt_env_t *e, const char *name, size_t nargs, const int *args,
                bool check) {
  const etk_kernel_entry_t *k = etk_kernel_find(name);
  etk_value_t *argv[32];
  int rc;
  if (!k) {
    snprintf(e->ctx.message, sizeof e->ctx.message, "kt: no kernel %s", name);
    return ETK_E_NOT_FOUND;
  }
  if (nargs > 32) abort();
  for (size_t i = 0; i < nargs; i++) argv[i] = &e->values[args[i]];
  e->ctx.message[0] = 0;
  e->last_check = ETK_OK;
  if (check && k->check) {
    rc = k->check(&e->ctx, argv, nargs);
    e->last_check = rc;
    if (rc != ETK_OK) return rc;
  }
  return k->fn(&e->ctx, argv, nargs);
}

int kt_call(kt_env_t *e, const char *name, size_t nargs, const int *args) {
  return call(e, name, nargs, args, true);
}

int kt_run(kt_env_t *e, const char *name, size_t nargs, const int *args) {
  return call(e, name, nargs, args, false);
}

int kt_msg_has(const kt_env_t *e, const char *needle) {
  if (strstr(e->ctx.message, needle)) return 1;
  printf("# message was: \"%s\" (wanted \"%s\")\n", e->ctx.message, needle);
  return 0;
}

double kt_max_err(kt_env_t *e, int value_index, const double *expected,
                  int64_t n) {
  double worst = 0.0;
  for (int64_t k = 0; k < n; k++) {
    double got = kt_get(e, value_index, k);
    double err = fabs(got - expected[k]);
    if (isnan(expected[k]) != isnan(got))
      err = INFINITY;
    else if (isnan(got))
      err = 0.0;
    if (err > worst) {
      worst = err;
      if (err > 1e-3)
        printf("# element %lld: got %.9g expected %.9g\n", (long long)k, got,
               expected[k]);
    }
  }
  return worst;
}
