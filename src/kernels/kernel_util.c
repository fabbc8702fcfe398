/*
 * kernel_util.c - argument readers, dtype checks, strided views and walkers
 * shared by every portable kernel (see kernel_util.h for the contracts).
 *
 * Argument readers are the kernels' only contact with the value table.  Each
 * one checks the tag it expects and writes a message naming the op, the
 * argument and what was found, so a bad program ends in one readable line
 * rather than a crash.  Tensor arguments are validated (rank, sizes,
 * dim_order permutation, data present, data fits the stated capacity)
 * before any kernel indexes them.
 *
 * Walking: every kernel that touches elements in a layout-independent way
 * goes through etk_walk_t, a row-major odometer over a logical shape that
 * carries one element offset per operand.  Because offsets come from each
 * operand's own strides, inputs in any dim order (channels-last, permuted
 * views, broadcast dims with stride 0) and outputs in their own dim order
 * are all handled by the same loop, with no temporary buffers.
 */
#include "kernel_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int etk_op_fail(const etk_op_t *op, int status, const char *fmt, ...) {
  if (op && op->ctx) {
    char *m = op->ctx->message;
    size_t cap = sizeof op->ctx->message;
    int n = snprintf(m, cap, "%s: ", op->name ? op->name : "kernel");
    if (n >= 0 && (size_t)n < cap) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(m + n, cap - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return status;
}

static const char *tag_name(int32_t tag) {
  switch (tag) {
    case ETK_VALUE_NONE:
      return "None";
    case ETK_VALUE_NULL:
      return "Null";
    case ETK_VALUE_INT:
      return "Int";
    case ETK_VALUE_BOOL:
      return "Bool";
    case ETK_VALUE_DOUBLE:
      return "Double";
    case ETK_VALUE_TENSOR:
      return "Tensor";
    case ETK_VALUE_STRING:
      return "String";
    case ETK_VALUE_INT_LIST:
      return "IntList";
    case ETK_VALUE_DOUBLE_LIST:
      return "DoubleList";
    case ETK_VALUE_BOOL_LIST:
      return "BoolList";
    case ETK_VALUE_TENSOR_LIST:
      return "TensorList";
    case ETK_VALUE_OPTIONAL_TENSOR_LIST:
      return "OptionalTensorList";
    default:
      return "unknown";
  }
}

int etk_op_expect_nargs(const etk_op_t *op, size_t expected) {
  if (op->nargs != expected)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "expected %zu arguments, got %zu", expected, op->nargs);
  if (!op->args) return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "no arguments");
  for (size_t i = 0; i < expected; i++)
    if (!op->args[i])
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "argument %zu is NULL", i);
  return ETK_OK;
}

static int wrong_tag(const etk_op_t *op, size_t i, const char *what,
                     const char *expected) {
  return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                     "argument %zu (%s) must be %s, got %s", i, what, expected,
                     tag_name(op->args[i]->tag));
}

static bool is_none(const etk_value_t *v) {
  return v->tag == ETK_VALUE_NONE || v->tag == ETK_VALUE_NULL;
}

static int tensor_validate_for(const etk_op_t *op, const etk_tensor_t *t,
                               const char *what) {
  if (etk_tensor_validate(t) != ETK_OK)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "%s has an invalid shape or dim_order", what);
  if (op->checking) return ETK_OK;
  {
    int64_t numel = etk_tensor_numel(t);
    size_t elem = etk_scalar_type_size(t->scalar_type);
    if (numel > 0 && !t->data)
      return etk_op_fail(op, ETK_E_INVALID_STATE, "%s has no data", what);
    if (numel > 0 && elem > 0 && t->capacity_bytes > 0 &&
        (uint64_t)numel > t->capacity_bytes / elem)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "%s needs %lld elements but has %zu bytes", what,
                         (long long)numel, t->capacity_bytes);
  }
  return ETK_OK;
}

int etk_op_tensor(const etk_op_t *op, size_t i, const char *what,
                  etk_tensor_t **out) {
  const etk_value_t *v = op->args[i];
  if (v->tag != ETK_VALUE_TENSOR || !v->u.tensor)
    return wrong_tag(op, i, what, "a Tensor");
  *out = v->u.tensor;
  return tensor_validate_for(op, v->u.tensor, what);
}

int etk_op_tensor_opt(const etk_op_t *op, size_t i, const char *what,
                      etk_tensor_t **out) {
  const etk_value_t *v = op->args[i];
  *out = NULL;
  if (is_none(v)) return ETK_OK;
  if (v->tag == ETK_VALUE_TENSOR && v->u.tensor &&
      v->u.tensor->scalar_type == ETK_BYTE && v->u.tensor->dim == 1 &&
      v->u.tensor->sizes[0] == 0)
    return ETK_OK; /* the emitter's placeholder for a missing tensor */
  return etk_op_tensor(op, i, what, out);
}

int etk_op_int(const etk_op_t *op, size_t i, const char *what, int64_t *out) {
  const etk_value_t *v = op->args[i];
  if (v->tag != ETK_VALUE_INT) return wrong_tag(op, i, what, "an Int");
  *out = v->u.i;
  return ETK_OK;
}

int etk_op_int_opt(const etk_op_t *op, size_t i, const char *what, int64_t *out,
                   bool *present) {
  *present = false;
  *out = 0;
  if (is_none(op->args[i])) return ETK_OK;
  *present = true;
  return etk_op_int(op, i, what, out);
}

int etk_op_bool(const etk_op_t *op, size_t i, const char *what, bool *out) {
  const etk_value_t *v = op->args[i];
  if (v->tag != ETK_VALUE_BOOL) return wrong_tag(op, i, what, "a Bool");
  *out = v->u.b;
  return ETK_OK;
}

int etk_op_double(const etk_op_t *op, size_t i, const char *what, double *out) {
  const etk_value_t *v = op->args[i];
  if (v->tag == ETK_VALUE_DOUBLE)
    *out = v->u.d;
  else if (v->tag == ETK_VALUE_INT)
    *out = (double)v->u.i;
  else
    return wrong_tag(op, i, what, "a Double");
  return ETK_OK;
}

int etk_op_scalar(const etk_op_t *op, size_t i, const char *what,
                  etk_scalar_t *out) {
  const etk_value_t *v = op->args[i];
  memset(out, 0, sizeof *out);
  switch (v->tag) {
    case ETK_VALUE_INT:
      out->i = v->u.i;
      out->d = (double)v->u.i;
      return ETK_OK;
    case ETK_VALUE_BOOL:
      out->is_bool = true;
      out->i = v->u.b ? 1 : 0;
      out->d = (double)out->i;
      return ETK_OK;
    case ETK_VALUE_DOUBLE:
      out->is_float = true;
      out->d = v->u.d;
      out->i = etk_f64_to_i64_saturated(v->u.d);
      return ETK_OK;
    default:
      return wrong_tag(op, i, what, "a Scalar (Int, Double or Bool)");
  }
}

int etk_op_scalar_opt(const etk_op_t *op, size_t i, const char *what,
                      etk_scalar_t *out, bool *present) {
  *present = false;
  memset(out, 0, sizeof *out);
  if (is_none(op->args[i])) return ETK_OK;
  *present = true;
  return etk_op_scalar(op, i, what, out);
}

int etk_op_int_list(const etk_op_t *op, size_t i, const char *what,
                    int64_t *out, size_t max, size_t *count) {
  const etk_value_t *v = op->args[i];
  int n;
  *count = 0;
  if (v->tag != ETK_VALUE_INT_LIST) return wrong_tag(op, i, what, "an IntList");
  if (v->u.int_list.count > max)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "%s has %zu items, at most %zu supported", what,
                       v->u.int_list.count, max);
  n = etk_value_int_list(op->ctx, v, out, max);
  if (n < 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "%s has an item that is not an Int value", what);
  *count = (size_t)n;
  return ETK_OK;
}

int etk_op_int_list_opt(const etk_op_t *op, size_t i, const char *what,
                        int64_t *out, size_t max, size_t *count,
                        bool *present) {
  *present = false;
  *count = 0;
  if (is_none(op->args[i])) return ETK_OK;
  *present = true;
  return etk_op_int_list(op, i, what, out, max, count);
}

int etk_op_string_opt(const etk_op_t *op, size_t i, const char *what,
                      const char **s, size_t *len) {
  const etk_value_t *v = op->args[i];
  *s = NULL;
  *len = 0;
  if (is_none(v)) return ETK_OK;
  if (v->tag != ETK_VALUE_STRING || (!v->u.string.data && v->u.string.len))
    return wrong_tag(op, i, what, "a String");
  *s = v->u.string.data ? v->u.string.data : "";
  *len = v->u.string.len;
  return ETK_OK;
}

int etk_op_tensor_list(const etk_op_t *op, size_t i, const char *what,
                       etk_tensor_t **out, size_t max, size_t *count) {
  const etk_value_t *v = op->args[i];
  etk_kernel_context_t *ctx = op->ctx;
  *count = 0;
  if (v->tag != ETK_VALUE_TENSOR_LIST)
    return wrong_tag(op, i, what, "a TensorList");
  if (v->u.tensor_list.count > max)
    return etk_op_fail(op, ETK_E_UNSUPPORTED,
                       "%s has %zu tensors, at most %zu supported", what,
                       v->u.tensor_list.count, max);
  if (v->u.tensor_list.count > 0 && (!v->u.tensor_list.items || !ctx->values))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "%s has no items", what);
  for (size_t k = 0; k < v->u.tensor_list.count; k++) {
    int64_t idx = v->u.tensor_list.items[k];
    const etk_value_t *item;
    char name[48];
    if (idx < 0 || (uint64_t)idx >= ctx->value_count)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "%s item %zu refers to value %lld, outside the "
                         "value table",
                         what, k, (long long)idx);
    item = &ctx->values[idx];
    if (item->tag != ETK_VALUE_TENSOR || !item->u.tensor)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "%s item %zu is %s, not a Tensor", what, k,
                         tag_name(item->tag));
    snprintf(name, sizeof name, "%s[%zu]", what, k);
    {
      int rc = tensor_validate_for(op, item->u.tensor, name);
      if (rc != ETK_OK) return rc;
    }
    out[k] = item->u.tensor;
  }
  *count = v->u.tensor_list.count;
  return ETK_OK;
}

/* One table entry at argument position i. */
static int read_arg(const etk_op_t *op, size_t i, const etk_arg_t *a) {
  switch (a->kind) {
    case ETK_ARG_KIND_TENSOR:
    case ETK_ARG_KIND_TENSOR_OPT:
      return (a->kind == ETK_ARG_KIND_TENSOR
                  ? etk_op_tensor
                  : etk_op_tensor_opt)(op, i, a->name, a->to.tensor);
    case ETK_ARG_KIND_INT:
      return etk_op_int(op, i, a->name, a->to.i);
    case ETK_ARG_KIND_BOOL:
      return etk_op_bool(op, i, a->name, a->to.b);
    case ETK_ARG_KIND_DOUBLE:
      return etk_op_double(op, i, a->name, a->to.d);
    case ETK_ARG_KIND_SCALAR:
      return etk_op_scalar(op, i, a->name, a->to.scalar);
    case ETK_ARG_KIND_LATER:
      break;
  }
  return ETK_OK;
}

int etk_op_read_args(const etk_op_t *op, size_t nargs, const etk_arg_t *table,
                     size_t count) {
  int rc = etk_op_expect_nargs(op, nargs);
  for (size_t i = 0; rc == ETK_OK && i < count && i < nargs; i++)
    rc = read_arg(op, i, &table[i]);
  return rc;
}

int etk_op_wrap_dim(const etk_op_t *op, int64_t dim, int32_t ndim,
                    const char *what, int32_t *out) {
  int64_t n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "%s %lld out of range for a %d-dim tensor", what,
                       (long long)dim, (int)ndim);
  *out = (int32_t)(dim < 0 ? dim + n : dim);
  return ETK_OK;
}

const char *etk_sizes_format(char *buf, size_t cap, int32_t dim,
                             const int64_t *sizes) {
  size_t n = 0;
  if (cap == 0) return buf;
  buf[0] = 0;
  n += (size_t)snprintf(buf, cap, "[");
  for (int32_t d = 0; d < dim && n < cap; d++)
    n += (size_t)snprintf(buf + n, cap - n, d ? ", %lld" : "%lld",
                          (long long)sizes[d]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
  return buf;
}

void etk_tensor_sizes64(const etk_tensor_t *t, int64_t *sizes) {
  for (int32_t d = 0; d < t->dim; d++) sizes[d] = t->sizes[d];
}

int64_t etk_sizes_numel(int32_t dim, const int64_t *sizes) {
  int64_t n = 1;
  bool saturated = false;
  for (int32_t d = 0; d < dim; d++) {
    if (sizes[d] <= 0) return 0;
    if (!saturated && etk_checked_mul_i64(n, sizes[d], &n) != ETK_OK)
      saturated = true;
  }
  return saturated ? INT64_MAX : n;
}

int etk_op_resize(const etk_op_t *op, etk_tensor_t *t, const char *what,
                  int32_t dim, const int64_t *sizes) {
  int32_t s32[ETK_MAX_DIMS];
  char want[96], have[96];
  int64_t cur[ETK_MAX_DIMS];
  if (dim < 0 || dim > ETK_MAX_DIMS)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "%s would need %d dims, at most %d supported", what,
                       (int)dim, ETK_MAX_DIMS);
  for (int32_t d = 0; d < dim; d++) {
    if (sizes[d] < 0 || sizes[d] > INT32_MAX)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "%s size %lld at dim %d is out of range", what,
                         (long long)sizes[d], (int)d);
    s32[d] = (int32_t)sizes[d];
  }
  if (etk_tensor_resize(t, dim, s32) == ETK_OK) return ETK_OK;
  etk_tensor_sizes64(t, cur);
  return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "%s has shape %s, expected %s",
                     what, etk_sizes_format(have, sizeof have, t->dim, cur),
                     etk_sizes_format(want, sizeof want, dim, sizes));
}

int etk_op_resize_like(const etk_op_t *op, etk_tensor_t *t, const char *what,
                       const etk_tensor_t *like) {
  int64_t sizes[ETK_MAX_DIMS];
  etk_tensor_sizes64(like, sizes);
  return etk_op_resize(op, t, what, like->dim, sizes);
}

int etk_op_broadcast_shape(const etk_op_t *op, int32_t adim,
                           const int64_t *asizes, int32_t bdim,
                           const int64_t *bsizes, int32_t *odim,
                           int64_t *osizes) {
  int32_t n = adim > bdim ? adim : bdim;
  for (int32_t i = 0; i < n; i++) {
    /* i counts from the last dim */
    int64_t a = i < adim ? asizes[adim - 1 - i] : 1;
    int64_t b = i < bdim ? bsizes[bdim - 1 - i] : 1;
    if (a != b && a != 1 && b != 1) {
      char sa[96], sb[96];
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "shapes %s and %s are not broadcastable",
                         etk_sizes_format(sa, sizeof sa, adim, asizes),
                         etk_sizes_format(sb, sizeof sb, bdim, bsizes));
    }
    osizes[n - 1 - i] = a == 1 ? b : a;
  }
  *odim = n;
  return ETK_OK;
}

void etk_view_broadcast_strides(const etk_view_t *v, int32_t dim,
                                const int64_t *sizes, int64_t *strides) {
  for (int32_t i = 0; i < dim; i++) {
    int32_t vd = v->dim - dim + i; /* right-aligned dim of v */
    strides[i] = (vd >= 0 && v->sizes[vd] == sizes[i] && sizes[i] != 1)
                     ? v->strides[vd]
                     : 0;
  }
}

/* ------------------------------------------------------------- dtypes */

bool etk_dtype_is_basic(int dtype) {
  return dtype >= 0 && dtype < 32 &&
         (ETK_DTYPES_BASIC & ETK_DTYPE_BIT(dtype)) != 0;
}

bool etk_dtype_is_float(int dtype) {
  return dtype == ETK_FLOAT || dtype == ETK_DOUBLE;
}

bool etk_dtype_is_int(int dtype) {
  return dtype >= 0 && dtype < 32 && (ETK_DTYPES_INT & ETK_DTYPE_BIT(dtype));
}

int etk_op_check_dtype(const etk_op_t *op, const etk_tensor_t *t,
                       const char *what, uint32_t allowed) {
  int dt = t->scalar_type;
  if (dt >= 0 && dt < 32 && (allowed & ETK_DTYPE_BIT(dt))) return ETK_OK;
  return etk_op_fail(op, ETK_E_UNSUPPORTED, "dtype %s not supported for %s",
                     etk_scalar_type_name(dt), what);
}

int etk_op_check_same_dtype(const etk_op_t *op, const etk_tensor_t *a,
                            const char *what_a, const etk_tensor_t *b,
                            const char *what_b) {
  if (a->scalar_type == b->scalar_type) return ETK_OK;
  return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                     "%s has dtype %s but %s has dtype %s", what_b,
                     etk_scalar_type_name(b->scalar_type), what_a,
                     etk_scalar_type_name(a->scalar_type));
}

int64_t etk_f64_to_i64_saturated(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

/* ------------------------------------------------------------- views */

void etk_tensor_dense_strides(const etk_tensor_t *t, int64_t *strides) {
  int64_t stride = 1;
  for (int32_t i = t->dim - 1; i >= 0; i--) {
    int32_t d = t->dim_order[i];
    strides[d] = stride;
    stride *= t->sizes[d] > 0 ? t->sizes[d] : 1;
  }
}

void etk_view_init(etk_view_t *v, const etk_tensor_t *t) {
  memset(v, 0, sizeof *v);
  v->dtype = t->scalar_type;
  v->dim = t->dim;
  v->data = t->data;
  for (int32_t d = 0; d < t->dim; d++) v->sizes[d] = t->sizes[d];
  etk_tensor_dense_strides(t, v->strides);
}

int64_t etk_view_numel(const etk_view_t *v) {
  return etk_sizes_numel(v->dim, v->sizes);
}

void etk_walk_init(etk_walk_t *w, int32_t dim, const int64_t *sizes,
                   int32_t operands, int64_t (*strides)[ETK_MAX_DIMS],
                   const int64_t *base) {
  memset(w, 0, sizeof *w);
  w->operands = operands;
  if (dim == 0) {
    /* a scalar walks as one row of one element */
    w->dim = 1;
    w->sizes[0] = 1;
  } else {
    w->dim = dim;
    for (int32_t d = 0; d < dim; d++) {
      w->sizes[d] = sizes[d];
      for (int32_t k = 0; k < operands; k++) w->strides[k][d] = strides[k][d];
    }
  }
  for (int32_t k = 0; k < operands; k++) {
    w->off[k] = base ? base[k] : 0;
    w->inner_stride[k] = w->strides[k][w->dim - 1];
  }
  w->inner = w->sizes[w->dim - 1];
  w->rows = etk_sizes_numel(w->dim - 1, w->sizes);
  if (w->inner == 0) w->rows = 0;
}

void etk_walk_next_row(etk_walk_t *w) {
  for (int32_t d = w->dim - 2; d >= 0; d--) {
    if (++w->idx[d] < w->sizes[d]) {
      for (int32_t k = 0; k < w->operands; k++) w->off[k] += w->strides[k][d];
      return;
    }
    w->idx[d] = 0;
    for (int32_t k = 0; k < w->operands; k++)
      w->off[k] -= w->strides[k][d] * (w->sizes[d] - 1);
  }
}

void etk_walk_init_axis(etk_walk_t *w, int32_t dim, const int64_t *sizes,
                        int32_t operands, int64_t (*strides)[ETK_MAX_DIMS],
                        int32_t axis) {
  int64_t psizes[ETK_MAX_DIMS];
  int64_t pstrides[ETK_WALK_MAX_OPERANDS][ETK_MAX_DIMS];
  int32_t n = 0;
  if (dim == 0) {
    etk_walk_init(w, 0, sizes, operands, strides, NULL);
    return;
  }
  for (int32_t d = 0; d <= dim; d++) {
    int32_t src = d < dim ? d : axis;
    if (d < dim && d == axis) continue;
    psizes[n] = sizes[src];
    for (int32_t k = 0; k < operands; k++) pstrides[k][n] = strides[k][src];
    n++;
  }
  etk_walk_init(w, dim, psizes, operands, pstrides, NULL);
}

/* n elements at base[off + j * stride] into row, in the map's domain: one
 * typed loop per dtype, generated from ETK_BASIC_DTYPE_LIST. */
static void row_load(bool as_float, int dtype, const void *base, int64_t off,
                     int64_t stride, int64_t n, etk_map_row_t *row) {
  switch (dtype) {
#define ROW_LOAD_CASE(code, ctype, utype, family)        \
  case code:                                             \
    for (int64_t j = 0; j < n; j++) {                    \
      ctype x = ((const ctype *)base)[off + j * stride]; \
      if (as_float)                                      \
        row->f[j] = ETK_ELEM_TO_F64_##family(x);         \
      else                                               \
        row->i[j] = ETK_ELEM_TO_I64_##family(x);         \
    }                                                    \
    break;
    ETK_BASIC_DTYPE_LIST(ROW_LOAD_CASE)
#undef ROW_LOAD_CASE
    default: /* not a basic dtype: zeros, as etk_load_f64 gives */
      memset(row, 0, (size_t)n * sizeof row->i[0]);
      break;
  }
}

/* The n values of row into base[off + j * stride], converted to dtype. */
static void row_store(bool as_float, int dtype, void *base, int64_t off,
                      int64_t stride, int64_t n, const etk_map_row_t *row) {
  switch (dtype) {
#define ROW_STORE_CASE(code, ctype, utype, family)              \
  case code:                                                    \
    for (int64_t j = 0; j < n; j++) {                           \
      ctype *p = (ctype *)base + (off + j * stride);            \
      if (as_float)                                             \
        ETK_ELEM_FROM_F64_##family(ctype, utype, p, row->f[j]); \
      else                                                      \
        ETK_ELEM_FROM_I64_##family(ctype, utype, p, row->i[j]); \
    }                                                           \
    break;
    ETK_BASIC_DTYPE_LIST(ROW_STORE_CASE)
#undef ROW_STORE_CASE
    default:
      break;
  }
}

bool etk_map_run(etk_walk_t *w, const etk_view_t *const *views, int32_t inputs,
                 bool as_float, etk_map_fn fn, const void *ctx) {
  etk_map_row_t rows[ETK_WALK_MAX_OPERANDS];
  const etk_map_row_t *in[ETK_WALK_MAX_OPERANDS];
  const etk_view_t *out = views[0];
  for (int64_t r = 0; r < w->rows; r++, etk_walk_next_row(w))
    for (int64_t j0 = 0; j0 < w->inner; j0 += ETK_MAP_CHUNK) {
      int64_t n = w->inner - j0 < ETK_MAP_CHUNK ? w->inner - j0 : ETK_MAP_CHUNK;
      int64_t done;
      for (int32_t k = 1; k <= inputs; k++) {
        const etk_view_t *v = views[k];
        in[k - 1] = v ? &rows[k] : NULL;
        if (v)
          row_load(as_float, v->dtype, v->data,
                   w->off[k] + j0 * w->inner_stride[k], w->inner_stride[k], n,
                   &rows[k]);
      }
      done = fn(ctx, n, in, &rows[0]);
      row_store(as_float, out->dtype, out->data,
                w->off[0] + j0 * w->inner_stride[0], w->inner_stride[0], done,
                &rows[0]);
      if (done < n) return false;
    }
  return true;
}

void etk_walk_init_views(etk_walk_t *w, int32_t operands,
                         const etk_view_t *const *views, int32_t axis) {
  int64_t strides[ETK_WALK_MAX_OPERANDS][ETK_MAX_DIMS];
  const etk_view_t *shape = views[0];
  for (int32_t k = 0; k < operands; k++)
    memcpy(strides[k], views[k]->strides, sizeof strides[k]);
  if (axis >= 0)
    etk_walk_init_axis(w, shape->dim, shape->sizes, operands, strides, axis);
  else
    etk_walk_init(w, shape->dim, shape->sizes, operands, strides, NULL);
  for (int32_t k = 0; k < operands; k++) w->off[k] += views[k]->offset;
}

/* A single-operand element odometer, for walking two views of different
 * shapes in lockstep (reshape-style copies). */
typedef struct elem_walk {
  const etk_view_t *v;
  int64_t idx[ETK_MAX_DIMS];
  int64_t off;
} elem_walk_t;

static void elem_walk_next(elem_walk_t *w) {
  for (int32_t d = w->v->dim - 1; d >= 0; d--) {
    if (++w->idx[d] < w->v->sizes[d]) {
      w->off += w->v->strides[d];
      return;
    }
    w->idx[d] = 0;
    w->off -= w->v->strides[d] * (w->v->sizes[d] - 1);
  }
}

static bool same_shape(const etk_view_t *a, const etk_view_t *b) {
  if (a->dim != b->dim) return false;
  for (int32_t d = 0; d < a->dim; d++)
    if (a->sizes[d] != b->sizes[d]) return false;
  return true;
}

static inline void copy_element(const etk_view_t *dst, int64_t doff,
                                const etk_view_t *src, int64_t soff,
                                size_t elem) {
  if (dst->dtype == src->dtype) {
    memcpy((char *)dst->data + doff * (int64_t)elem,
           (const char *)src->data + soff * (int64_t)elem, elem);
  } else if (etk_dtype_is_float(src->dtype)) {
    etk_store_f64(dst->dtype, dst->data, doff,
                  etk_load_f64(src->dtype, src->data, soff));
  } else {
    etk_store_i64(dst->dtype, dst->data, doff,
                  etk_load_i64(src->dtype, src->data, soff));
  }
}

/* The identity map: a dtype conversion once etk_map_run has loaded and
 * stores the chunk. */
static int64_t copy_chunk(const void *ctx, int64_t n,
                          const etk_map_row_t *const *in, etk_map_row_t *out) {
  (void)ctx;
  memcpy(out, in[0], (size_t)n * sizeof out->i[0]);
  return n;
}

/* Equal shapes: one walk over both views, rows moved as bytes when the
 * dtypes match and converted by the identity map when they differ. */
static void copy_same_shape(const etk_view_t *dst, const etk_view_t *src,
                            size_t elem) {
  const etk_view_t *views[2] = {dst, src};
  etk_walk_t w;
  etk_walk_init_views(&w, 2, views, -1);
  if (dst->dtype != src->dtype) {
    etk_map_run(&w, views, 1, etk_dtype_is_float(src->dtype), copy_chunk, NULL);
    return;
  }
  for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w)) {
    if (w.inner_stride[0] == 1 && w.inner_stride[1] == 1) {
      memcpy((char *)dst->data + w.off[0] * (int64_t)elem,
             (const char *)src->data + w.off[1] * (int64_t)elem,
             (size_t)w.inner * elem);
      continue;
    }
    for (int64_t j = 0; j < w.inner; j++)
      copy_element(dst, w.off[0] + j * w.inner_stride[0], src,
                   w.off[1] + j * w.inner_stride[1], elem);
  }
}

void etk_view_copy(const etk_view_t *dst, const etk_view_t *src) {
  size_t elem = etk_scalar_type_size(dst->dtype);
  int64_t n = etk_view_numel(dst);
  if (n <= 0 || elem == 0) return;
  if (same_shape(dst, src)) {
    copy_same_shape(dst, src, elem);
    return;
  }
  {
    elem_walk_t a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.v = dst;
    a.off = dst->offset;
    b.v = src;
    b.off = src->offset;
    for (int64_t k = 0; k < n; k++) {
      copy_element(dst, a.off, src, b.off, elem);
      elem_walk_next(&a);
      elem_walk_next(&b);
    }
  }
}

void etk_view_fill(const etk_view_t *dst, const etk_scalar_t *value) {
  etk_walk_t w;
  etk_walk_init_views(&w, 1, &dst, -1);
  for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w))
    for (int64_t j = 0; j < w.inner; j++) {
      int64_t off = w.off[0] + j * w.inner_stride[0];
      if (value->is_float)
        etk_store_f64(dst->dtype, dst->data, off, value->d);
      else
        etk_store_i64(dst->dtype, dst->data, off, value->i);
    }
}
