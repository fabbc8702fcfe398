/*
 * kernel_util.h - private helpers shared by the portable kernels: argument
 * readers that fill ctx->message, element loads/stores for the basic dtypes,
 * strided views and the walkers that iterate them.
 *
 * Every kernel is written once as `static int NAME_impl(etk_op_t *op)` and
 * run in two modes (see ETK_KERNEL_DEFINE):
 *   - checking: called by the executor before execution; the kernel reads its
 *     arguments (tags and tensor dtypes only, data may not be assigned yet)
 *     and returns right after its dtype checks (`if (op->checking) return
 *     ETK_OK;`), so shapes and data are never looked at;
 *   - running: the same reads, then shape checks, output resize and compute.
 * Sharing one body keeps the pre-execution check and the kernel from ever
 * disagreeing about which dtypes are supported.
 *
 * Views never trust etk_tensor_t.strides: they derive strides from sizes and
 * dim_order, which are validated when a tensor argument is read, so a stale
 * stride field cannot send a kernel outside its buffer.
 */
#ifndef ETKIT_KERNEL_UTIL_H
#define ETKIT_KERNEL_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "etkit/checked.h"
#include "etkit/kernels.h"

#if defined(__GNUC__) || defined(__clang__)
#define ETK_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define ETK_PRINTF_LIKE(f, a)
#endif

/* One kernel invocation: what the argument readers need to name the op and
 * the argument in their messages. */
typedef struct etk_op {
  etk_kernel_context_t *ctx;
  const char *name; /* "aten::add.out" */
  etk_value_t **args;
  size_t nargs;
  bool checking; /* pre-execution dtype check: no data, no shapes */
} etk_op_t;

/* Defines the public kernel and check entry points of one registry entry
 * around `static int ident##_impl(etk_op_t *op)`. */
#define ETK_KERNEL_DEFINE(ident, opname)                                      \
  static int ident##_impl(etk_op_t *op);                                      \
  int etk_kernel_##ident(etk_kernel_context_t *ctx, etk_value_t **args,       \
                         size_t nargs) {                                      \
    etk_op_t op = {ctx, opname, args, nargs, false};                          \
    return ident##_impl(&op);                                                 \
  }                                                                           \
  int etk_kernel_check_##ident(etk_kernel_context_t *ctx, etk_value_t **args, \
                               size_t nargs) {                                \
    etk_op_t op = {ctx, opname, args, nargs, true};                           \
    return ident##_impl(&op);                                                 \
  }                                                                           \
  static int ident##_impl(etk_op_t *op)

/* Writes "<op>: <message>" into ctx->message and returns `status`. */
int etk_op_fail(const etk_op_t *op, int status, const char *fmt, ...)
    ETK_PRINTF_LIKE(3, 4);

/* ------------------------------------------------------------ arguments */

/* Scalar arguments arrive as Int, Double or Bool values. */
typedef struct etk_scalar {
  bool is_float; /* came from a Double value */
  bool is_bool;  /* came from a Bool value */
  double d;      /* the value as a double (always set) */
  int64_t i;     /* the value as an integer (truncated for doubles) */
} etk_scalar_t;

int etk_op_expect_nargs(const etk_op_t *op, size_t expected);
/* A Tensor argument; validates dim, sizes, dim_order and (when running)
 * that data is present for non-empty tensors. */
int etk_op_tensor(const etk_op_t *op, size_t i, const char *what,
                  etk_tensor_t **out);
/* Optional tensor: *out = NULL for None/Null values and for the empty BYTE
 * placeholder tensor that programs use for a missing optional tensor. */
int etk_op_tensor_opt(const etk_op_t *op, size_t i, const char *what,
                      etk_tensor_t **out);
int etk_op_int(const etk_op_t *op, size_t i, const char *what, int64_t *out);
/* Optional int: *present = false for None. */
int etk_op_int_opt(const etk_op_t *op, size_t i, const char *what, int64_t *out,
                   bool *present);
int etk_op_bool(const etk_op_t *op, size_t i, const char *what, bool *out);
/* Double argument (Int values are accepted and converted). */
int etk_op_double(const etk_op_t *op, size_t i, const char *what, double *out);
int etk_op_scalar(const etk_op_t *op, size_t i, const char *what,
                  etk_scalar_t *out);
int etk_op_scalar_opt(const etk_op_t *op, size_t i, const char *what,
                      etk_scalar_t *out, bool *present);
/* Int list of at most `max` items into out[]; *count receives the length. */
int etk_op_int_list(const etk_op_t *op, size_t i, const char *what,
                    int64_t *out, size_t max, size_t *count);
/* Optional int list: *present = false for None. */
int etk_op_int_list_opt(const etk_op_t *op, size_t i, const char *what,
                        int64_t *out, size_t max, size_t *count, bool *present);
/* Optional string: *s = NULL for None. */
int etk_op_string_opt(const etk_op_t *op, size_t i, const char *what,
                      const char **s, size_t *len);
/* Tensor list: value indices of its tensors into out[] (at most max). */
int etk_op_tensor_list(const etk_op_t *op, size_t i, const char *what,
                       etk_tensor_t **out, size_t max, size_t *count);

/* A kernel's arguments as a table, one entry per argument position in
 * schema order: etk_op_read_args checks the count and reads every entry
 * with the reader of its kind (the etk_op_* functions above), in order, so
 * the first bad argument is the one reported.  ETK_ARG_LATER names a
 * position read later by other means (lists, after the checking pass). */
typedef enum etk_arg_kind {
  ETK_ARG_KIND_LATER,
  ETK_ARG_KIND_TENSOR,
  ETK_ARG_KIND_TENSOR_OPT,
  ETK_ARG_KIND_INT,
  ETK_ARG_KIND_BOOL,
  ETK_ARG_KIND_DOUBLE,
  ETK_ARG_KIND_SCALAR
} etk_arg_kind_t;
typedef struct etk_arg {
  etk_arg_kind_t kind;
  const char *name;
  union {
    etk_tensor_t **tensor;
    int64_t *i;
    bool *b;
    double *d;
    etk_scalar_t *scalar;
  } to; /* typed, so a wrong pointer is a compile-time diagnostic */
} etk_arg_t;
#define ETK_ARG_ENTRY(kind, member, n, p) \
  ((etk_arg_t){ETK_ARG_KIND_##kind, n, {.member = (p)}})
#define ETK_ARG_LATER(n) ETK_ARG_ENTRY(LATER, tensor, n, NULL)
#define ETK_ARG_TENSOR(n, p) ETK_ARG_ENTRY(TENSOR, tensor, n, p)
#define ETK_ARG_TENSOR_OPT(n, p) ETK_ARG_ENTRY(TENSOR_OPT, tensor, n, p)
#define ETK_ARG_INT(n, p) ETK_ARG_ENTRY(INT, i, n, p)
#define ETK_ARG_BOOL(n, p) ETK_ARG_ENTRY(BOOL, b, n, p)
#define ETK_ARG_DOUBLE(n, p) ETK_ARG_ENTRY(DOUBLE, d, n, p)
#define ETK_ARG_SCALAR(n, p) ETK_ARG_ENTRY(SCALAR, scalar, n, p)
#define ETK_ARG_COUNT(table) (sizeof(table) / sizeof((table)[0]))
/* Expects `nargs` arguments, then reads table[0..count) as arguments
 * 0..count-1. */
int etk_op_read_args(const etk_op_t *op, size_t nargs, const etk_arg_t *table,
                     size_t count);

/* Wraps a possibly negative dim into [0, ndim); ndim 0 accepts -1 and 0
 * (PyTorch treats a scalar as having one dim for dim arguments). */
int etk_op_wrap_dim(const etk_op_t *op, int64_t dim, int32_t ndim,
                    const char *what, int32_t *out);

/* Resizes `t` to `sizes` (int64, validated to fit int32); the error names
 * the op, the tensor and both shapes. */
int etk_op_resize(const etk_op_t *op, etk_tensor_t *t, const char *what,
                  int32_t dim, const int64_t *sizes);
/* etk_op_resize with the sizes of another tensor. */
int etk_op_resize_like(const etk_op_t *op, etk_tensor_t *t, const char *what,
                       const etk_tensor_t *like);

/* ------------------------------------------------------------- dtypes */

/* The dtypes kernels compute with, one line each: X(code, C type, the
 * unsigned type of its width, conversion family).  The family names the
 * conversions below: INT elements convert exactly to int64 and narrow back
 * with wrap-around, FLOAT elements round through double and saturate into
 * integers, BOOL elements read as 0/1 and store `value != 0`.  Every dtype
 * switch of the kernels (element loads and stores, row conversions) is
 * generated from this one list. */
#define ETK_BASIC_DTYPE_LIST(X)          \
  X(ETK_BYTE, uint8_t, uint8_t, INT)     \
  X(ETK_CHAR, int8_t, uint8_t, INT)      \
  X(ETK_SHORT, int16_t, uint16_t, INT)   \
  X(ETK_INT, int32_t, uint32_t, INT)     \
  X(ETK_LONG, int64_t, uint64_t, INT)    \
  X(ETK_FLOAT, float, uint32_t, FLOAT)   \
  X(ETK_DOUBLE, double, uint64_t, FLOAT) \
  X(ETK_BOOL, uint8_t, uint8_t, BOOL)

bool etk_dtype_is_basic(int dtype);
bool etk_dtype_is_float(int dtype); /* FLOAT or DOUBLE */
bool etk_dtype_is_int(int dtype);   /* the four signed ints and BYTE */

/* Fails with ETK_E_UNSUPPORTED "dtype X not supported for <what>" unless
 * dtype is in `allowed` (a bit set over scalar type codes). */
#define ETK_DTYPE_BIT(t) (1u << (unsigned)(t))
#define ETK_DTYPES_FLOAT (ETK_DTYPE_BIT(ETK_FLOAT))
#define ETK_DTYPES_INT                                 \
  (ETK_DTYPE_BIT(ETK_BYTE) | ETK_DTYPE_BIT(ETK_CHAR) | \
   ETK_DTYPE_BIT(ETK_SHORT) | ETK_DTYPE_BIT(ETK_INT) | \
   ETK_DTYPE_BIT(ETK_LONG))
#define ETK_DTYPES_REAL \
  (ETK_DTYPES_INT | ETK_DTYPE_BIT(ETK_FLOAT) | ETK_DTYPE_BIT(ETK_DOUBLE))
#define ETK_DTYPES_BASIC (ETK_DTYPES_REAL | ETK_DTYPE_BIT(ETK_BOOL))
int etk_op_check_dtype(const etk_op_t *op, const etk_tensor_t *t,
                       const char *what, uint32_t allowed);
/* Fails unless b has the same dtype as a. */
int etk_op_check_same_dtype(const etk_op_t *op, const etk_tensor_t *a,
                            const char *what_a, const etk_tensor_t *b,
                            const char *what_b);

int64_t etk_f64_to_i64_saturated(double v);

/* The conversions of each family, element `x` of C type `ctype` to double
 * and to int64, and stores of a double or int64 `v` into the element at
 * pointer `p`.  Integer stores narrow through the unsigned type `utype`
 * (wrap-around, as PyTorch's static_cast does on every target we build
 * for) without relying on the implementation-defined signed conversion;
 * doubles stored into integers truncate toward zero and saturate (NaN ->
 * 0), so an out-of-range value is defined behaviour rather than C's UB. */
#define ETK_ELEM_TO_F64_INT(x) ((double)(x))
#define ETK_ELEM_TO_F64_FLOAT(x) ((double)(x))
#define ETK_ELEM_TO_F64_BOOL(x) ((double)((x) != 0))
#define ETK_ELEM_TO_I64_INT(x) ((int64_t)(x))
#define ETK_ELEM_TO_I64_FLOAT(x) etk_f64_to_i64_saturated(x)
#define ETK_ELEM_TO_I64_BOOL(x) ((int64_t)((x) != 0))
#define ETK_ELEM_FROM_I64_INT(ctype, utype, p, v) \
  do {                                            \
    utype narrow_ = (utype)(uint64_t)(v);         \
    memcpy((p), &narrow_, sizeof narrow_);        \
  } while (0)
#define ETK_ELEM_FROM_I64_FLOAT(ctype, utype, p, v) (*(p) = (ctype)(v))
#define ETK_ELEM_FROM_I64_BOOL(ctype, utype, p, v) (*(p) = (v) != 0)
#define ETK_ELEM_FROM_F64_INT(ctype, utype, p, v) \
  ETK_ELEM_FROM_I64_INT(ctype, utype, p, etk_f64_to_i64_saturated(v))
#define ETK_ELEM_FROM_F64_FLOAT(ctype, utype, p, v) (*(p) = (ctype)(v))
#define ETK_ELEM_FROM_F64_BOOL(ctype, utype, p, v) (*(p) = (v) != 0.0)

/* Element loads and stores at element offset `off` of `base`, for the
 * basic dtypes (others load 0 and store nothing), in the double domain
 * (`as_float`) or the int64 one; the four named forms below fix the
 * domain. */
static inline void etk_load(int dtype, const void *base, int64_t off,
                            bool as_float, double *f, int64_t *i) {
  switch (dtype) {
#define ETK_LOAD_CASE(code, ctype, utype, family) \
  case code: {                                    \
    ctype x = ((const ctype *)base)[off];         \
    if (as_float)                                 \
      *f = ETK_ELEM_TO_F64_##family(x);           \
    else                                          \
      *i = ETK_ELEM_TO_I64_##family(x);           \
    return;                                       \
  }
    ETK_BASIC_DTYPE_LIST(ETK_LOAD_CASE)
#undef ETK_LOAD_CASE
    default:
      *f = 0.0;
      *i = 0;
  }
}

static inline void etk_store(int dtype, void *base, int64_t off, bool as_float,
                             double f, int64_t i) {
  switch (dtype) {
#define ETK_STORE_CASE(code, ctype, utype, family)    \
  case code: {                                        \
    ctype *p = (ctype *)base + off;                   \
    if (as_float)                                     \
      ETK_ELEM_FROM_F64_##family(ctype, utype, p, f); \
    else                                              \
      ETK_ELEM_FROM_I64_##family(ctype, utype, p, i); \
    return;                                           \
  }
    ETK_BASIC_DTYPE_LIST(ETK_STORE_CASE)
#undef ETK_STORE_CASE
    default:
      return;
  }
}

static inline double etk_load_f64(int dtype, const void *base, int64_t off) {
  double f = 0.0;
  int64_t i = 0;
  etk_load(dtype, base, off, true, &f, &i);
  return f;
}

static inline int64_t etk_load_i64(int dtype, const void *base, int64_t off) {
  double f = 0.0;
  int64_t i = 0;
  etk_load(dtype, base, off, false, &f, &i);
  return i;
}

static inline void etk_store_f64(int dtype, void *base, int64_t off, double v) {
  etk_store(dtype, base, off, true, v, 0);
}

static inline void etk_store_i64(int dtype, void *base, int64_t off,
                                 int64_t v) {
  etk_store(dtype, base, off, false, 0.0, v);
}

/* ------------------------------------------------------------- views */

/* A strided window onto a tensor's data: element (i0..in) lives at
 * data + (offset + sum ik * strides[k]) * element size. */
typedef struct etk_view {
  int32_t dtype;
  int32_t dim;
  int64_t sizes[ETK_MAX_DIMS];
  int64_t strides[ETK_MAX_DIMS]; /* elements; 0 for broadcast dims */
  int64_t offset;                /* elements */
  void *data;
} etk_view_t;

/* The whole tensor, strides derived from sizes and dim_order. */
void etk_view_init(etk_view_t *v, const etk_tensor_t *t);
/* Strides (elements) of t's logical dims, from sizes and dim_order. */
void etk_tensor_dense_strides(const etk_tensor_t *t, int64_t *strides);
int64_t etk_view_numel(const etk_view_t *v);
/* Copies src into dst element by element, each walked in its own row-major
 * logical order (so equal shapes copy element-wise and equal numels copy
 * like a reshape).  Dtypes may differ when both are basic; otherwise they
 * must be equal (any size).  Requires equal numel. */
void etk_view_copy(const etk_view_t *dst, const etk_view_t *src);
/* Fills every element of dst with the scalar converted to dst's dtype. */
void etk_view_fill(const etk_view_t *dst, const etk_scalar_t *value);

/* Row-major odometer over up to four strided operands that share a shape.
 * Callers iterate the innermost dim themselves (size inner, strides
 * inner_stride[k]) and call etk_walk_next_row between rows. */
#define ETK_WALK_MAX_OPERANDS 4
typedef struct etk_walk {
  int32_t dim; /* >= 1; a 0-dim shape walks as [1] */
  int32_t operands;
  int64_t sizes[ETK_MAX_DIMS];
  int64_t strides[ETK_WALK_MAX_OPERANDS][ETK_MAX_DIMS];
  int64_t idx[ETK_MAX_DIMS];
  int64_t off[ETK_WALK_MAX_OPERANDS]; /* current row start, elements */
  int64_t rows;                       /* numel / inner */
  int64_t inner;
  int64_t inner_stride[ETK_WALK_MAX_OPERANDS];
} etk_walk_t;

/* strides[k] must have `dim` entries (already 0 on broadcast dims); offsets
 * start at base[k] (NULL = all 0). */
void etk_walk_init(etk_walk_t *w, int32_t dim, const int64_t *sizes,
                   int32_t operands, int64_t (*strides)[ETK_MAX_DIMS],
                   const int64_t *base);
void etk_walk_next_row(etk_walk_t *w);
/* Like etk_walk_init, but `axis` becomes the innermost (inner) dim, so each
 * row is one line along that axis: the shape of softmax and reductions. */
void etk_walk_init_axis(etk_walk_t *w, int32_t dim, const int64_t *sizes,
                        int32_t operands, int64_t (*strides)[ETK_MAX_DIMS],
                        int32_t axis);

/* A walk over the shape of views[0] with each of the `operands` views' own
 * strides, starting at their offsets; `axis` becomes the innermost dim when
 * it is >= 0 (as etk_walk_init_axis). */
void etk_walk_init_views(etk_walk_t *w, int32_t operands,
                         const etk_view_t *const *views, int32_t axis);

/* Element-wise maps: a walk whose operand 0 is an output and operands
 * 1..inputs its inputs, computed a chunk at a time.  Each row of the walk is
 * cut into chunks of at most ETK_MAP_CHUNK elements; the inputs of a chunk
 * are converted into one domain (double when `as_float`, else int64) with
 * one typed loop per dtype, `fn` computes the chunk's results in that
 * domain, and the results are converted into the output's dtype.  So an
 * operator's arithmetic is written once, on doubles or int64s, whatever
 * the dtypes of its tensors.  Offsets come from the walk (views[k]'s data
 * and dtype only); a NULL input view gives `fn` a NULL row (a Scalar
 * operand the function supplies itself). */
#define ETK_MAP_CHUNK 64
typedef union etk_map_row {
  double f[ETK_MAP_CHUNK];
  int64_t i[ETK_MAP_CHUNK];
} etk_map_row_t;
/* Computes out[j] for j < n from in[k][j]; returns how many results it
 * computed: n, or fewer when it stops at an error. */
typedef int64_t (*etk_map_fn)(const void *ctx, int64_t n,
                              const etk_map_row_t *const *in,
                              etk_map_row_t *out);
/* Runs the map over the whole walk.  Returns false when `fn` stopped early
 * (the results before the stop are stored), true otherwise. */
bool etk_map_run(etk_walk_t *w, const etk_view_t *const *views, int32_t inputs,
                 bool as_float, etk_map_fn fn, const void *ctx);

/* Broadcasting (NumPy rules, right-aligned).  etk_op_broadcast_shape fails
 * with a message naming both shapes; etk_view_broadcast_strides gives the
 * strides of view `v` seen with shape (dim, sizes): 0 on broadcast dims. */
int etk_op_broadcast_shape(const etk_op_t *op, int32_t adim,
                           const int64_t *asizes, int32_t bdim,
                           const int64_t *bsizes, int32_t *odim,
                           int64_t *osizes);
void etk_view_broadcast_strides(const etk_view_t *v, int32_t dim,
                                const int64_t *sizes, int64_t *strides);

/* Shape helpers */
/* Product of sizes[0..dim): 0 when any size is <= 0, INT64_MAX when the
 * product overflows (a count no capacity check accepts). */
int64_t etk_sizes_numel(int32_t dim, const int64_t *sizes);
/* "[2, 3]" into buf. */
const char *etk_sizes_format(char *buf, size_t cap, int32_t dim,
                             const int64_t *sizes);
void etk_tensor_sizes64(const etk_tensor_t *t, int64_t *sizes);

#endif /* ETKIT_KERNEL_UTIL_H */
