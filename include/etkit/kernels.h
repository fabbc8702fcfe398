/*
 * etkit/kernels.h - the portable kernels of the reference runtime (library
 * etkit_kernels): values, tensors and the sorted kernel table.
 *
 * Values and tensors mirror ExecuTorch's EValue/Tensor closely enough that a
 * program's value table maps onto an array of etk_value_t one to one.
 * Kernels are plain functions over those values and never touch the heap.
 */
#ifndef ETKIT_KERNELS_H
#define ETKIT_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/scalar_type.h"
#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ scalar types */

/* Short names of the ScalarType codes (etk_scalar_type_t, c10 numbering,
 * shared by .pte, .bpte and ETDump) used throughout the runtime and kernels.
 * etk_scalar_type_size() and etk_scalar_type_name() come from etkit/schema.h.
 */
enum {
  ETK_BYTE = ETK_SCALAR_TYPE_BYTE,
  ETK_CHAR = ETK_SCALAR_TYPE_CHAR,
  ETK_SHORT = ETK_SCALAR_TYPE_SHORT,
  ETK_INT = ETK_SCALAR_TYPE_INT,
  ETK_LONG = ETK_SCALAR_TYPE_LONG,
  ETK_HALF = ETK_SCALAR_TYPE_HALF,
  ETK_FLOAT = ETK_SCALAR_TYPE_FLOAT,
  ETK_DOUBLE = ETK_SCALAR_TYPE_DOUBLE,
  ETK_BOOL = ETK_SCALAR_TYPE_BOOL,
  ETK_QINT8 = ETK_SCALAR_TYPE_QINT8,
  ETK_QUINT8 = ETK_SCALAR_TYPE_QUINT8,
  ETK_QINT32 = ETK_SCALAR_TYPE_QINT32,
  ETK_BFLOAT16 = ETK_SCALAR_TYPE_BFLOAT16,
  ETK_QUINT4X2 = ETK_SCALAR_TYPE_QUINT4X2,
  ETK_QUINT2X4 = ETK_SCALAR_TYPE_QUINT2X4,
  ETK_BITS16 = ETK_SCALAR_TYPE_BITS16,
  ETK_FLOAT8E5M2 = ETK_SCALAR_TYPE_FLOAT8E5M2,
  ETK_FLOAT8E4M3FN = ETK_SCALAR_TYPE_FLOAT8E4M3FN,
  ETK_FLOAT8E5M2FNUZ = ETK_SCALAR_TYPE_FLOAT8E5M2FNUZ,
  ETK_FLOAT8E4M3FNUZ = ETK_SCALAR_TYPE_FLOAT8E4M3FNUZ,
  ETK_UINT16 = ETK_SCALAR_TYPE_UINT16,
  ETK_UINT32 = ETK_SCALAR_TYPE_UINT32,
  ETK_UINT64 = ETK_SCALAR_TYPE_UINT64
};

/* ------------------------------------------------------------------ tensors */

#define ETK_MAX_DIMS 16

typedef struct etk_tensor {
  int32_t scalar_type; /* etk_scalar_type_t */
  int32_t dim;         /* number of dimensions, 0..ETK_MAX_DIMS */
  int32_t sizes[ETK_MAX_DIMS];
  uint8_t dim_order[ETK_MAX_DIMS]; /* permutation; identity = contiguous */
  int64_t strides[ETK_MAX_DIMS];   /* in elements, derived from dim_order */
  void *data;                      /* NULL until memory is assigned */
  size_t nbytes;                   /* numel * element size */
  /* Shape dynamism from the program: 0 static, 1 dynamic bound, 2 unbound.
   * A kernel may shrink a dynamic-bound output (never grow past capacity). */
  int32_t shape_dynamism;
  size_t capacity_bytes; /* bytes available at `data` */
} etk_tensor_t;

/* Number of elements (product of sizes; 1 for dim 0). */
int64_t etk_tensor_numel(const etk_tensor_t *t);
/* Recomputes strides (and nbytes) from sizes and dim_order. */
void etk_tensor_update_strides(etk_tensor_t *t);
/* 1 if dim_order is the identity permutation. */
int etk_tensor_is_contiguous(const etk_tensor_t *t);
/* Sets the sizes of an output tensor: allowed if they equal the current
 * sizes, or the tensor is dynamic and the new bytes fit its capacity.
 * Returns ETK_OK or ETK_E_INVALID_ARGUMENT. */
int etk_tensor_resize(etk_tensor_t *t, int32_t dim, const int32_t *sizes);
/* ETK_OK if dim is in 0..ETK_MAX_DIMS, every size is >= 0 and dim_order is
 * a permutation of 0..dim-1; ETK_E_INVALID_ARGUMENT otherwise.  Kernels run
 * it on every tensor argument; loaders may run it once per tensor. */
int etk_tensor_validate(const etk_tensor_t *t);

/* ------------------------------------------------------------------- values */

/* Value tags: the .pte KernelTypes codes. */
typedef enum etk_value_tag {
  ETK_VALUE_NONE = 0,
  ETK_VALUE_NULL = 1,
  ETK_VALUE_INT = 2,
  ETK_VALUE_BOOL = 3,
  ETK_VALUE_DOUBLE = 4,
  ETK_VALUE_TENSOR = 5,
  ETK_VALUE_STRING = 6,
  ETK_VALUE_INT_LIST = 7,
  ETK_VALUE_DOUBLE_LIST = 8,
  ETK_VALUE_BOOL_LIST = 9,
  ETK_VALUE_TENSOR_LIST = 10,
  ETK_VALUE_OPTIONAL_TENSOR_LIST = 11
} etk_value_tag_t;

struct etk_value;

typedef struct etk_value {
  int32_t tag; /* etk_value_tag_t */
  union {
    int64_t i;
    bool b;
    double d;
    etk_tensor_t *tensor;
    struct {
      const char *data;
      size_t len;
    } string;
    /* Int lists are boxed in programs: `items` are value indices of Int
     * values, resolved through `values` into `scratch` when read (see
     * etk_value_int_list). */
    struct {
      const int64_t *items; /* value indices */
      size_t count;
      int64_t *scratch; /* count int64 slots owned by the method */
    } int_list;
    struct {
      const double *items; /* inline */
      size_t count;
    } double_list;
    struct {
      const uint8_t *items; /* inline */
      size_t count;
    } bool_list;
    struct {
      const int64_t *items; /* value indices; -1 = None (optional lists) */
      size_t count;
    } tensor_list;
  } u;
} etk_value_t;

/* ------------------------------------------------------------------ kernels */

/* What a kernel may use besides its arguments: the method's value table
 * (to resolve list items) and an error message slot. */
typedef struct etk_kernel_context {
  etk_value_t *values; /* the method's values */
  size_t value_count;
  char message[160]; /* set on failure: what was wrong */
} etk_kernel_context_t;

/* A kernel gets pointers to its arguments in schema order, followed by its
 * returns (for ".out" overloads the last entries repeat the out arguments,
 * exactly as in the program's KernelCall args).  Returns ETK_OK or an error
 * (and fills ctx->message). */
typedef int (*etk_kernel_fn)(etk_kernel_context_t *ctx, etk_value_t **args,
                             size_t nargs);

/* Reads the int list `v` (boxed indices) into out[0..max); returns the
 * count, or -1 if an item is not an Int value or the list is longer. */
int etk_value_int_list(const etk_kernel_context_t *ctx, const etk_value_t *v,
                       int64_t *out, size_t max);

typedef struct etk_kernel_entry {
  const char *name; /* "aten::add.out": operator name "." overload; the
                       empty default overload is written "aten::foo" */
  etk_kernel_fn fn;
  /* Optional pre-execution check of dtypes: returns ETK_OK if the kernel
   * supports the argument dtypes, or ETK_E_UNSUPPORTED naming the dtype in
   * ctx->message.  NULL = accepts anything its fn accepts. */
  int (*check)(etk_kernel_context_t *ctx, etk_value_t **args, size_t nargs);
} etk_kernel_entry_t;

/* The built-in portable kernels, sorted by name. */
const etk_kernel_entry_t *etk_kernels_builtin(size_t *count);
/* Finds a kernel by "op.overload" name in the built-in table; NULL if none. */
const etk_kernel_entry_t *etk_kernel_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_KERNELS_H */
