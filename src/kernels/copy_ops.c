/*
 * copy_ops.c - the "view" family materialised as copies, and dtype / dim
 * order conversions: view_copy, permute_copy, transpose_copy, t_copy,
 * expand_copy, unsqueeze_copy, squeeze_copy (dim and dims), clone,
 * alias_copy, detach_copy, _to_copy and the dim-order ops
 * dim_order_ops::_to_dim_order_copy and dim_order_ops::_clone_dim_order.
 *
 * Every kernel here describes its input as a strided view shaped like the
 * output (permuting strides for permute/transpose, zeroing them for expand,
 * dropping or adding unit dims for squeeze/unsqueeze) and hands it to
 * etk_view_copy, which writes the output through the output's own strides.
 * view_copy is the one exception in kind: its shapes differ, and the copy
 * walks both tensors in row-major logical order, which is exactly reshape
 * semantics whatever either tensor's dim order is.
 *
 * Dtypes: the shape ops and clone need equal input and output dtypes but
 * accept any dtype of known size (elements are moved as bytes); _to_copy and
 * _to_dim_order_copy convert between the basic dtypes (float to integer
 * truncates toward zero, saturating; anything to bool is `!= 0`).
 *
 * Memory format arguments do not steer the copy: the program already fixed
 * the output's dim_order when it planned the tensor, and that is what the
 * copy writes.  An explicit dim_order argument must agree with it.
 */
#include "kernel_list.h"
#include "kernel_util.h"

/* Input and output dtypes equal, any element size. */
static int same_dtype_any(etk_op_t *op, const etk_tensor_t *in,
                          const etk_tensor_t *out) {
  int rc;
  if (etk_scalar_type_size(in->scalar_type) == 0)
    return etk_op_fail(op, ETK_E_UNSUPPORTED, "dtype %s not supported for self",
                       etk_scalar_type_name(in->scalar_type));
  if ((rc = etk_op_check_same_dtype(op, in, "self", out, "out"))) return rc;
  return ETK_OK;
}

static void copy_view_to(const etk_view_t *src, const etk_tensor_t *out) {
  etk_view_t vo;
  etk_view_init(&vo, out);
  etk_view_copy(&vo, src);
}

/* Reads [self, ..., out] for the one-tensor copies; out at index out_at. */
static int read_in_out(etk_op_t *op, size_t nargs, size_t out_at,
                       etk_tensor_t **in, etk_tensor_t **out) {
  int rc;
  if ((rc = etk_op_expect_nargs(op, nargs))) return rc;
  if ((rc = etk_op_tensor(op, 0, "self", in))) return rc;
  return etk_op_tensor(op, out_at, "out", out);
}

/* read_in_out plus the shape ops' dtype rule: self and out of the same
 * dtype, any of known size. */
static int read_shape_op(etk_op_t *op, size_t nargs, size_t out_at,
                         etk_tensor_t **in, etk_tensor_t **out) {
  int rc;
  if ((rc = read_in_out(op, nargs, out_at, in, out))) return rc;
  return same_dtype_any(op, *in, *out);
}

/* Plain copy with equal shapes: clone, alias_copy, detach_copy, ... */
static int copy_same_shape(etk_op_t *op, size_t nargs, size_t out_at,
                           bool convert) {
  etk_tensor_t *in, *out;
  etk_view_t vi;
  int rc;
  if ((rc = read_in_out(op, nargs, out_at, &in, &out))) return rc;
  if (convert && in->scalar_type != out->scalar_type) {
    if ((rc = etk_op_check_dtype(op, in, "self", ETK_DTYPES_BASIC)) ||
        (rc = etk_op_check_dtype(op, out, "out", ETK_DTYPES_BASIC)))
      return rc;
  } else if ((rc = same_dtype_any(op, in, out))) {
    return rc;
  }
  if (op->checking) return ETK_OK;
  if ((rc = etk_op_resize_like(op, out, "out", in))) return rc;
  etk_view_init(&vi, in);
  copy_view_to(&vi, out);
  return ETK_OK;
}

/* clone.out(Tensor self, *, MemoryFormat? memory_format=None, out) */
ETK_KERNEL_DEFINE(clone_out, "aten::clone.out") {
  return copy_same_shape(op, 4, 2, false);
}
/* alias_copy.out(Tensor self, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(alias_copy_out, "aten::alias_copy.out") {
  return copy_same_shape(op, 3, 1, false);
}
ETK_KERNEL_DEFINE(detach_copy_out, "aten::detach_copy.out") {
  return copy_same_shape(op, 3, 1, false);
}
ETK_KERNEL_DEFINE(lift_fresh_copy_out, "aten::lift_fresh_copy.out") {
  return copy_same_shape(op, 3, 1, false);
}
/* _to_copy.out(Tensor self, *, bool non_blocking=False,
 *   MemoryFormat? memory_format=None, Tensor(a!) out) */
ETK_KERNEL_DEFINE(to_copy_out, "aten::_to_copy.out") {
  return copy_same_shape(op, 5, 3, true);
}

/* The dim-order ops: (Tensor self, *, bool non_blocking=False,
 * int[]? dim_order=None, Tensor(a!) out). */
static int dim_order_copy(etk_op_t *op, bool convert) {
  int64_t order[ETK_MAX_DIMS];
  size_t count;
  bool present;
  etk_tensor_t *out;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 5))) return rc;
  if ((rc = etk_op_tensor(op, 3, "out", &out))) return rc;
  if ((rc = etk_op_int_list_opt(op, 2, "dim_order", order, ETK_MAX_DIMS, &count,
                                &present)))
    return rc;
  if (present && !op->checking) {
    bool same = count == (size_t)out->dim;
    for (size_t k = 0; same && k < count; k++)
      same = order[k] == out->dim_order[k];
    if (!same)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "dim_order argument does not match out's dim_order");
  }
  return copy_same_shape(op, 5, 3, convert);
}

ETK_KERNEL_DEFINE(to_dim_order_copy_out,
                  "dim_order_ops::_to_dim_order_copy.out") {
  return dim_order_copy(op, true);
}
ETK_KERNEL_DEFINE(clone_dim_order_out, "dim_order_ops::_clone_dim_order.out") {
  return dim_order_copy(op, false);
}

/* view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(view_copy_out, "aten::view_copy.out") {
  etk_tensor_t *in, *out;
  int64_t size[ETK_MAX_DIMS], known = 1, numel;
  size_t n;
  int infer = -1;
  etk_view_t vi;
  int rc;
  if ((rc = read_shape_op(op, 4, 2, &in, &out)) || op->checking) return rc;
  if ((rc = etk_op_int_list(op, 1, "size", size, ETK_MAX_DIMS, &n))) return rc;
  numel = etk_tensor_numel(in);
  for (size_t k = 0; k < n; k++) {
    if (size[k] == -1) {
      if (infer >= 0)
        return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                           "only one dim of size may be -1");
      infer = (int)k;
    } else if (size[k] < 0) {
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "invalid size %lld",
                         (long long)size[k]);
    } else if (etk_checked_mul_i64(known, size[k], &known) != ETK_OK) {
      return etk_op_fail(op, ETK_E_OVERFLOW,
                         "size has more elements than int64 can count");
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "cannot infer the -1 dim for %lld elements",
                         (long long)numel);
    size[infer] = numel / known;
    known = numel;
  }
  if (known != numel) {
    char a[96];
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "shape %s is invalid for input of %lld elements",
                       etk_sizes_format(a, sizeof a, (int32_t)n, size),
                       (long long)numel);
  }
  if ((rc = etk_op_resize(op, out, "out", (int32_t)n, size))) return rc;
  etk_view_init(&vi, in);
  copy_view_to(&vi, out);
  return ETK_OK;
}

/* Copies `in` seen through permutation perm[] (out dim i = in dim perm[i]). */
static int permuted_copy(etk_op_t *op, etk_tensor_t *in, etk_tensor_t *out,
                         const int32_t *perm) {
  etk_view_t vi, vp;
  int64_t osz[ETK_MAX_DIMS];
  int rc;
  etk_view_init(&vi, in);
  vp = vi;
  for (int32_t i = 0; i < in->dim; i++) {
    vp.sizes[i] = vi.sizes[perm[i]];
    vp.strides[i] = vi.strides[perm[i]];
    osz[i] = vp.sizes[i];
  }
  if ((rc = etk_op_resize(op, out, "out", in->dim, osz))) return rc;
  copy_view_to(&vp, out);
  return ETK_OK;
}

/* permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(permute_copy_out, "aten::permute_copy.out") {
  etk_tensor_t *in, *out;
  int64_t dims[ETK_MAX_DIMS];
  int32_t perm[ETK_MAX_DIMS];
  uint32_t seen = 0;
  size_t n;
  int rc;
  if ((rc = read_shape_op(op, 4, 2, &in, &out)) || op->checking) return rc;
  if ((rc = etk_op_int_list(op, 1, "dims", dims, ETK_MAX_DIMS, &n))) return rc;
  if (n != (size_t)in->dim)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "dims has %zu entries for a %d-dim tensor", n,
                       (int)in->dim);
  for (size_t k = 0; k < n; k++) {
    if ((rc = etk_op_wrap_dim(op, dims[k], in->dim, "dim", &perm[k])))
      return rc;
    if (seen & (1u << perm[k]))
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "dims repeats dim %d",
                         (int)perm[k]);
    seen |= 1u << perm[k];
  }
  return permuted_copy(op, in, out, perm);
}

static int transpose(etk_op_t *op, etk_tensor_t *in, etk_tensor_t *out,
                     int64_t d0, int64_t d1) {
  int32_t perm[ETK_MAX_DIMS], a, b;
  int rc;
  if (in->dim == 0) {
    int64_t none[1] = {0};
    etk_view_t vi;
    if ((rc = etk_op_wrap_dim(op, d0, 0, "dim0", &a)) ||
        (rc = etk_op_wrap_dim(op, d1, 0, "dim1", &b)) ||
        (rc = etk_op_resize(op, out, "out", 0, none)))
      return rc;
    etk_view_init(&vi, in);
    copy_view_to(&vi, out);
    return ETK_OK;
  }
  if ((rc = etk_op_wrap_dim(op, d0, in->dim, "dim0", &a)) ||
      (rc = etk_op_wrap_dim(op, d1, in->dim, "dim1", &b)))
    return rc;
  for (int32_t i = 0; i < in->dim; i++) perm[i] = i;
  perm[a] = b;
  perm[b] = a;
  return permuted_copy(op, in, out, perm);
}

/* transpose_copy.int_out(Tensor self, int dim0, int dim1, *, out) */
ETK_KERNEL_DEFINE(transpose_copy_int_out, "aten::transpose_copy.int_out") {
  etk_tensor_t *in, *out;
  int64_t d0, d1;
  int rc;
  if ((rc = read_shape_op(op, 5, 3, &in, &out)) || op->checking) return rc;
  if ((rc = etk_op_int(op, 1, "dim0", &d0)) ||
      (rc = etk_op_int(op, 2, "dim1", &d1)))
    return rc;
  return transpose(op, in, out, d0, d1);
}

/* t_copy.out(Tensor self, *, Tensor(a!) out): transpose of a <= 2-D tensor */
ETK_KERNEL_DEFINE(t_copy_out, "aten::t_copy.out") {
  etk_tensor_t *in, *out;
  int rc;
  if ((rc = read_shape_op(op, 3, 1, &in, &out)) || op->checking) return rc;
  if (in->dim > 2)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "self must be at most 2-D, got %d-D", (int)in->dim);
  return transpose(op, in, out, 0, in->dim == 2 ? 1 : 0);
}

/* expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, out) */
ETK_KERNEL_DEFINE(expand_copy_out, "aten::expand_copy.out") {
  etk_tensor_t *in, *out;
  int64_t size[ETK_MAX_DIMS];
  size_t n;
  etk_view_t vi, ve;
  int rc;
  if ((rc = read_shape_op(op, 5, 3, &in, &out)) || op->checking) return rc;
  if ((rc = etk_op_int_list(op, 1, "size", size, ETK_MAX_DIMS, &n))) return rc;
  if (n < (size_t)in->dim)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "size has %zu dims, fewer than self's %d", n,
                       (int)in->dim);
  etk_view_init(&vi, in);
  memset(&ve, 0, sizeof ve);
  ve.dtype = vi.dtype;
  ve.data = vi.data;
  ve.dim = (int32_t)n;
  for (size_t k = 0; k < n; k++) {
    int32_t d = (int32_t)k - ((int32_t)n - in->dim); /* matching dim of self */
    if (d < 0) {
      if (size[k] < 0)
        return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                           "size %lld invalid for a new leading dim",
                           (long long)size[k]);
      ve.sizes[k] = size[k];
      ve.strides[k] = 0;
      continue;
    }
    if (size[k] == -1) size[k] = in->sizes[d];
    if (size[k] == in->sizes[d]) {
      ve.sizes[k] = size[k];
      ve.strides[k] = vi.strides[d];
    } else if (in->sizes[d] == 1 && size[k] >= 0) {
      ve.sizes[k] = size[k];
      ve.strides[k] = 0;
    } else {
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "cannot expand dim %d of size %d to %lld", (int)d,
                         (int)in->sizes[d], (long long)size[k]);
    }
  }
  if ((rc = etk_op_resize(op, out, "out", (int32_t)n, size))) return rc;
  copy_view_to(&ve, out);
  return ETK_OK;
}

/* unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(unsqueeze_copy_out, "aten::unsqueeze_copy.out") {
  etk_tensor_t *in, *out;
  int64_t dim, osz[ETK_MAX_DIMS];
  int32_t at;
  etk_view_t vi;
  int rc;
  if ((rc = read_shape_op(op, 4, 2, &in, &out)) || op->checking) return rc;
  if ((rc = etk_op_int(op, 1, "dim", &dim))) return rc;
  if (in->dim >= ETK_MAX_DIMS)
    return etk_op_fail(op, ETK_E_UNSUPPORTED, "self already has %d dims",
                       (int)in->dim);
  if ((rc = etk_op_wrap_dim(op, dim, in->dim + 1, "dim", &at))) return rc;
  for (int32_t i = 0, j = 0; i <= in->dim; i++)
    osz[i] = i == at ? 1 : in->sizes[j++];
  if ((rc = etk_op_resize(op, out, "out", in->dim + 1, osz))) return rc;
  /* a unit dim changes no element's logical position: a reshape copy */
  etk_view_init(&vi, in);
  copy_view_to(&vi, out);
  return ETK_OK;
}

static int squeeze(etk_op_t *op, etk_tensor_t *in, etk_tensor_t *out,
                   const int64_t *dims, size_t n) {
  bool drop[ETK_MAX_DIMS] = {false};
  int64_t osz[ETK_MAX_DIMS];
  int32_t odim = 0;
  etk_view_t vi;
  int rc;
  for (size_t k = 0; k < n; k++) {
    int32_t d;
    if ((rc = etk_op_wrap_dim(op, dims[k], in->dim, "dim", &d))) return rc;
    if (in->dim > 0 && in->sizes[d] == 1) drop[d] = true;
  }
  for (int32_t d = 0; d < in->dim; d++)
    if (!drop[d]) osz[odim++] = in->sizes[d];
  if ((rc = etk_op_resize(op, out, "out", odim, osz))) return rc;
  etk_view_init(&vi, in);
  copy_view_to(&vi, out);
  return ETK_OK;
}

/* squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(squeeze_copy_dim_out, "aten::squeeze_copy.dim_out") {
  etk_tensor_t *in, *out;
  int64_t dim;
  int rc;
  if ((rc = read_shape_op(op, 4, 2, &in, &out)) || op->checking) return rc;
  if ((rc = etk_op_int(op, 1, "dim", &dim))) return rc;
  return squeeze(op, in, out, &dim, 1);
}

/* squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(squeeze_copy_dims_out, "aten::squeeze_copy.dims_out") {
  etk_tensor_t *in, *out;
  int64_t dims[ETK_MAX_DIMS];
  size_t n;
  int rc;
  if ((rc = read_shape_op(op, 4, 2, &in, &out)) || op->checking) return rc;
  if ((rc = etk_op_int_list(op, 1, "dim", dims, ETK_MAX_DIMS, &n))) return rc;
  return squeeze(op, in, out, dims, n);
}
