/*
 * index_ops.c - kernels that pick or place parts of tensors: cat, stack,
 * slice_copy, select_copy, index_select, embedding and constant_pad_nd.
 *
 * As in copy_ops.c, each one describes the part it moves as a strided view
 * (a window of the output for cat/stack/pad, a window of the input for
 * slice/select) and lets etk_view_copy move the elements through both
 * tensors' own strides.  Nothing is staged in scratch memory.
 *
 * Index arguments come from programs and from runtime tensors, so every
 * one is bounds-checked before use and reported with its value and the
 * valid range ("index 7 out of range [0, 5)").  slice clamps start/end the
 * way Python slicing does (PyTorch semantics) and requires step >= 1.
 * cat skips 1-D empty inputs (PyTorch's legacy rule for torch.cat with
 * tensors of shape [0]) and converts between basic dtypes when inputs and
 * output differ.
 */
#include "kernel_list.h"
#include "kernel_util.h"

#define ETK_MAX_LIST_TENSORS 256

/* The arguments of cat and stack, (Tensor[] tensors, int dim, *, out):
 * every tensor of a basic dtype, converted when it differs from out's, and
 * (once past the checking pass) at least one of them.
 * list holds ETK_MAX_LIST_TENSORS entries. */
static int read_tensor_list_args(etk_op_t *op, etk_tensor_t **list, size_t *n,
                                 int64_t *dim, etk_tensor_t **out) {
  int rc;
  if ((rc = etk_op_expect_nargs(op, 4))) return rc;
  if ((rc =
           etk_op_tensor_list(op, 0, "tensors", list, ETK_MAX_LIST_TENSORS, n)))
    return rc;
  if ((rc = etk_op_int(op, 1, "dim", dim))) return rc;
  if ((rc = etk_op_tensor(op, 2, "out", out))) return rc;
  for (size_t k = 0; k < *n; k++) {
    if (list[k]->scalar_type != (*out)->scalar_type) {
      if ((rc = etk_op_check_dtype(op, list[k], "tensors", ETK_DTYPES_BASIC)) ||
          (rc = etk_op_check_dtype(op, *out, "out", ETK_DTYPES_BASIC)))
        return rc;
    } else if (etk_scalar_type_size((*out)->scalar_type) == 0) {
      return etk_op_check_dtype(op, *out, "out", ETK_DTYPES_BASIC);
    }
  }
  if (*n == 0 && !op->checking)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "tensors must not be empty");
  return ETK_OK;
}

/* The arguments self (index 0) and out (index out_index) of slice_copy and
 * select_copy: the same dtype, any with a known element size. */
static int read_self_out(etk_op_t *op, size_t out_index, etk_tensor_t **in,
                         etk_tensor_t **out) {
  int rc;
  if ((rc = etk_op_tensor(op, 0, "self", in))) return rc;
  if ((rc = etk_op_tensor(op, out_index, "out", out))) return rc;
  if (etk_scalar_type_size((*in)->scalar_type) == 0)
    return etk_op_check_dtype(op, *in, "self", ETK_DTYPES_BASIC);
  return etk_op_check_same_dtype(op, *in, "self", *out, "out");
}

/* The slab of v at position `at` along `axis`, without that dim. */
static void view_drop_dim(const etk_view_t *v, int32_t axis, int64_t at,
                          etk_view_t *slab) {
  memset(slab, 0, sizeof *slab);
  slab->dtype = v->dtype;
  slab->data = v->data;
  slab->offset = v->offset + at * v->strides[axis];
  for (int32_t d = 0; d < v->dim; d++) {
    if (d == axis) continue;
    slab->sizes[slab->dim] = v->sizes[d];
    slab->strides[slab->dim] = v->strides[d];
    slab->dim++;
  }
}

/* cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(cat_out, "aten::cat.out") {
  etk_tensor_t *list[ETK_MAX_LIST_TENSORS], *out, *ref = NULL;
  size_t n;
  int64_t dim, osz[ETK_MAX_DIMS], at;
  int32_t axis;
  int rc;
  if ((rc = read_tensor_list_args(op, list, &n, &dim, &out)) || op->checking)
    return rc;
  for (size_t k = 0; k < n && !ref; k++)
    if (!(list[k]->dim == 1 && list[k]->sizes[0] == 0)) ref = list[k];
  if (!ref) {
    int64_t zero[1] = {0};
    return etk_op_resize(op, out, "out", 1, zero);
  }
  if (ref->dim == 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "zero-dimensional tensors cannot be concatenated");
  if ((rc = etk_op_wrap_dim(op, dim, ref->dim, "dim", &axis))) return rc;
  etk_tensor_sizes64(ref, osz);
  osz[axis] = 0;
  for (size_t k = 0; k < n; k++) {
    const etk_tensor_t *t = list[k];
    if (t->dim == 1 && t->sizes[0] == 0) continue;
    if (t->dim != ref->dim)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "tensors[%zu] has %d dims, expected %d", k,
                         (int)t->dim, (int)ref->dim);
    for (int32_t d = 0; d < t->dim; d++)
      if (d != axis && t->sizes[d] != ref->sizes[d])
        return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                           "tensors[%zu] has size %d at dim %d, expected %d", k,
                           (int)t->sizes[d], (int)d, (int)ref->sizes[d]);
    osz[axis] += t->sizes[axis];
  }
  if ((rc = etk_op_resize(op, out, "out", ref->dim, osz))) return rc;
  at = 0;
  for (size_t k = 0; k < n; k++) {
    etk_view_t vo, vi;
    if (list[k]->dim == 1 && list[k]->sizes[0] == 0) continue;
    etk_view_init(&vo, out);
    vo.offset = at * vo.strides[axis];
    vo.sizes[axis] = list[k]->sizes[axis];
    etk_view_init(&vi, list[k]);
    etk_view_copy(&vo, &vi);
    at += list[k]->sizes[axis];
  }
  return ETK_OK;
}

/* stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(stack_out, "aten::stack.out") {
  etk_tensor_t *list[ETK_MAX_LIST_TENSORS], *out;
  size_t n;
  int64_t dim, osz[ETK_MAX_DIMS];
  int32_t axis;
  int rc;
  if ((rc = read_tensor_list_args(op, list, &n, &dim, &out)) || op->checking)
    return rc;
  if (list[0]->dim >= ETK_MAX_DIMS)
    return etk_op_fail(op, ETK_E_UNSUPPORTED, "inputs already have %d dims",
                       (int)list[0]->dim);
  if ((rc = etk_op_wrap_dim(op, dim, list[0]->dim + 1, "dim", &axis)))
    return rc;
  for (size_t k = 1; k < n; k++) {
    bool same = list[k]->dim == list[0]->dim;
    for (int32_t d = 0; same && d < list[0]->dim; d++)
      same = list[k]->sizes[d] == list[0]->sizes[d];
    if (!same)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "tensors[%zu] differs in shape from tensors[0]", k);
  }
  for (int32_t i = 0, j = 0; i <= list[0]->dim; i++)
    osz[i] = i == axis ? (int64_t)n : list[0]->sizes[j++];
  if ((rc = etk_op_resize(op, out, "out", list[0]->dim + 1, osz))) return rc;
  for (size_t k = 0; k < n; k++) {
    etk_view_t vo, vi, vs;
    etk_view_init(&vo, out);
    view_drop_dim(&vo, axis, (int64_t)k, &vs);
    etk_view_init(&vi, list[k]);
    etk_view_copy(&vs, &vi);
  }
  return ETK_OK;
}

/* slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None,
 *   SymInt? end=None, SymInt step=1, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(slice_copy_tensor_out, "aten::slice_copy.Tensor_out") {
  etk_tensor_t *in, *out;
  int64_t dim, start, end, step, size, len, osz[ETK_MAX_DIMS];
  bool has_start, has_end;
  int32_t axis;
  etk_view_t vi;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 7))) return rc;
  if ((rc = read_self_out(op, 5, &in, &out)) || op->checking) return rc;
  if ((rc = etk_op_int(op, 1, "dim", &dim)) ||
      (rc = etk_op_int_opt(op, 2, "start", &start, &has_start)) ||
      (rc = etk_op_int_opt(op, 3, "end", &end, &has_end)) ||
      (rc = etk_op_int(op, 4, "step", &step)))
    return rc;
  if (in->dim == 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "cannot slice a 0-dim tensor");
  if ((rc = etk_op_wrap_dim(op, dim, in->dim, "dim", &axis))) return rc;
  if (step < 1)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "step must be >= 1, got %lld", (long long)step);
  size = in->sizes[axis];
  if (!has_start) start = 0;
  if (!has_end) end = size;
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (start < 0) start = 0;
  if (start > size) start = size;
  if (end < start) end = start;
  if (end > size) end = size;
  /* ceil((end - start) / step) without forming end - start + step - 1,
   * which overflows for a huge step */
  len = end > start ? 1 + (end - start - 1) / step : 0;
  etk_tensor_sizes64(in, osz);
  osz[axis] = len;
  if ((rc = etk_op_resize(op, out, "out", in->dim, osz))) return rc;
  etk_view_init(&vi, in);
  vi.offset = start * vi.strides[axis];
  vi.sizes[axis] = len;
  /* A slice of one element never steps (and a huge step would overflow). */
  if (len > 1 &&
      etk_checked_mul_i64(vi.strides[axis], step, &vi.strides[axis]) != ETK_OK)
    return etk_op_fail(op, ETK_E_OVERFLOW, "step %lld overflows the stride",
                       (long long)step);
  {
    etk_view_t vo;
    etk_view_init(&vo, out);
    etk_view_copy(&vo, &vi);
  }
  return ETK_OK;
}

/* select_copy.int_out(Tensor self, int dim, SymInt index, *, out) */
ETK_KERNEL_DEFINE(select_copy_int_out, "aten::select_copy.int_out") {
  etk_tensor_t *in, *out;
  int64_t dim, index, size;
  int32_t axis;
  etk_view_t vi, vs, vo;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 5))) return rc;
  if ((rc = read_self_out(op, 3, &in, &out)) || op->checking) return rc;
  if ((rc = etk_op_int(op, 1, "dim", &dim)) ||
      (rc = etk_op_int(op, 2, "index", &index)))
    return rc;
  if (in->dim == 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "cannot select from a 0-dim tensor");
  if ((rc = etk_op_wrap_dim(op, dim, in->dim, "dim", &axis))) return rc;
  size = in->sizes[axis];
  if (index < -size || index >= size)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "index %lld out of range for dim %d of size %lld",
                       (long long)index, (int)axis, (long long)size);
  if (index < 0) index += size;
  etk_view_init(&vi, in);
  view_drop_dim(&vi, axis, index, &vs);
  if ((rc = etk_op_resize(op, out, "out", vs.dim, vs.sizes))) return rc;
  etk_view_init(&vo, out);
  etk_view_copy(&vo, &vs);
  return ETK_OK;
}

/* Reads index k (row-major) of an INT or LONG index tensor and checks it
 * against [0, limit) after wrapping negatives when `wrap` is set. */
static int index_at(etk_op_t *op, const etk_view_t *vx, int64_t off,
                    int64_t limit, bool wrap, int64_t *out) {
  int64_t v = etk_load_i64(vx->dtype, vx->data, off);
  int64_t w = (wrap && v < 0) ? v + limit : v;
  if (w < 0 || w >= limit)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "index %lld out of range [0, %lld)", (long long)v,
                       (long long)limit);
  *out = w;
  return ETK_OK;
}

/* The arguments of embedding and index_select: the source tensor at 0
 * (named `what`), an INT or LONG index tensor at idx_at and out at out_at,
 * of the source's dtype. */
static int read_indexed_args(etk_op_t *op, const char *what, size_t idx_at,
                             const char *idx_what, size_t out_at,
                             etk_tensor_t **src, etk_tensor_t **idx,
                             etk_tensor_t **out) {
  int rc;
  if ((rc = etk_op_tensor(op, 0, what, src))) return rc;
  if ((rc = etk_op_tensor(op, idx_at, idx_what, idx))) return rc;
  if ((rc = etk_op_tensor(op, out_at, "out", out))) return rc;
  if (etk_scalar_type_size((*src)->scalar_type) == 0)
    return etk_op_check_dtype(op, *src, what, ETK_DTYPES_BASIC);
  if ((rc = etk_op_check_dtype(
           op, *idx, idx_what,
           ETK_DTYPE_BIT(ETK_LONG) | ETK_DTYPE_BIT(ETK_INT))))
    return rc;
  return etk_op_check_same_dtype(op, *src, what, *out, "out");
}

/* embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1,
 *   bool scale_grad_by_freq=False, bool sparse=False, *, out) */
ETK_KERNEL_DEFINE(embedding_out, "aten::embedding.out") {
  etk_tensor_t *wt, *idx, *out;
  int64_t osz[ETK_MAX_DIMS];
  etk_view_t vw, vx, vo;
  int64_t xstr[1][ETK_MAX_DIMS];
  etk_walk_t w;
  int64_t row = 0;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 7))) return rc;
  if ((rc =
           read_indexed_args(op, "weight", 1, "indices", 5, &wt, &idx, &out)) ||
      op->checking)
    return rc;
  if (wt->dim != 2)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "weight must be 2-D, got %d-D", (int)wt->dim);
  if (idx->dim + 1 > ETK_MAX_DIMS)
    return etk_op_fail(op, ETK_E_UNSUPPORTED, "indices has too many dims");
  etk_tensor_sizes64(idx, osz);
  osz[idx->dim] = wt->sizes[1];
  if ((rc = etk_op_resize(op, out, "out", idx->dim + 1, osz))) return rc;
  etk_view_init(&vw, wt);
  etk_view_init(&vx, idx);
  etk_view_init(&vo, out);
  memcpy(xstr[0], vx.strides, sizeof xstr[0]);
  etk_walk_init(&w, vx.dim, vx.sizes, 1, xstr, NULL);
  for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w))
    for (int64_t j = 0; j < w.inner; j++, row++) {
      int64_t k;
      etk_view_t src, dst;
      if ((rc = index_at(op, &vx, w.off[0] + j * w.inner_stride[0],
                         wt->sizes[0], false, &k)))
        return rc;
      /* one weight row into one out row; out row `row` in row-major order
       * of the index dims is found through out's own strides */
      memset(&src, 0, sizeof src);
      src.dtype = vw.dtype;
      src.data = vw.data;
      src.dim = 1;
      src.sizes[0] = wt->sizes[1];
      src.strides[0] = vw.strides[1];
      src.offset = k * vw.strides[0];
      dst = src;
      dst.data = vo.data;
      dst.strides[0] = vo.strides[idx->dim];
      dst.offset = 0;
      {
        int64_t rest = row;
        for (int32_t d = idx->dim - 1; d >= 0; d--) {
          dst.offset += (rest % vo.sizes[d]) * vo.strides[d];
          rest /= vo.sizes[d];
        }
      }
      etk_view_copy(&dst, &src);
    }
  return ETK_OK;
}

/* index_select.out(Tensor self, int dim, Tensor index, *, out) */
ETK_KERNEL_DEFINE(index_select_out, "aten::index_select.out") {
  etk_tensor_t *in, *idx, *out;
  int64_t dim, osz[ETK_MAX_DIMS], n;
  int32_t axis;
  etk_view_t vi, vx, vo;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 5))) return rc;
  if ((rc = read_indexed_args(op, "self", 2, "index", 3, &in, &idx, &out)) ||
      op->checking)
    return rc;
  if ((rc = etk_op_int(op, 1, "dim", &dim))) return rc;
  if (idx->dim > 1)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "index must be 0-D or 1-D");
  if ((rc = etk_op_wrap_dim(op, dim, in->dim, "dim", &axis))) return rc;
  n = etk_tensor_numel(idx);
  etk_tensor_sizes64(in, osz);
  if (in->dim > 0) osz[axis] = n;
  if ((rc = etk_op_resize(op, out, "out", in->dim, osz))) return rc;
  etk_view_init(&vx, idx);
  for (int64_t k = 0; k < n; k++) {
    int64_t at;
    etk_view_t src, dst;
    if ((rc = index_at(op, &vx, k * (vx.dim ? vx.strides[0] : 0),
                       in->dim ? in->sizes[axis] : 1, false, &at)))
      return rc;
    etk_view_init(&vi, in);
    etk_view_init(&vo, out);
    src = vi;
    dst = vo;
    if (in->dim > 0) {
      src.offset = at * vi.strides[axis];
      src.sizes[axis] = 1;
      dst.offset = k * vo.strides[axis];
      dst.sizes[axis] = 1;
    }
    etk_view_copy(&dst, &src);
  }
  return ETK_OK;
}

/* constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, out):
 * pad holds (before, after) pairs starting from the last dim; negative
 * amounts crop. */
ETK_KERNEL_DEFINE(constant_pad_nd_out, "aten::constant_pad_nd.out") {
  etk_tensor_t *in, *out;
  int64_t pad[2 * ETK_MAX_DIMS], before[ETK_MAX_DIMS] = {0}, osz[ETK_MAX_DIMS];
  size_t n;
  etk_scalar_t value;
  etk_view_t vi, vo, src, dst;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 5))) return rc;
  if ((rc = etk_op_tensor(op, 0, "self", &in))) return rc;
  if ((rc = etk_op_scalar(op, 2, "value", &value))) return rc;
  if ((rc = etk_op_tensor(op, 3, "out", &out))) return rc;
  if ((rc = etk_op_check_dtype(op, in, "self", ETK_DTYPES_BASIC))) return rc;
  if ((rc = etk_op_check_same_dtype(op, in, "self", out, "out"))) return rc;
  if (op->checking) return ETK_OK;
  if ((rc = etk_op_int_list(op, 1, "pad", pad, 2 * ETK_MAX_DIMS, &n)))
    return rc;
  if (n % 2 != 0 || n / 2 > (size_t)in->dim)
    return etk_op_fail(
        op, ETK_E_INVALID_ARGUMENT,
        "pad must have an even length of at most 2 * %d, got %zu", (int)in->dim,
        n);
  etk_tensor_sizes64(in, osz);
  for (size_t k = 0; k < n / 2; k++) {
    int32_t d = in->dim - 1 - (int32_t)k;
    /* Sizes are int32: a larger pad cannot leave a valid output, and
     * bounding it keeps the sums and -before below exact. */
    if (pad[2 * k] < -INT32_MAX || pad[2 * k] > INT32_MAX ||
        pad[2 * k + 1] < -INT32_MAX || pad[2 * k + 1] > INT32_MAX)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "pad amount for dim %d exceeds the int32 range",
                         (int)d);
    before[d] = pad[2 * k];
    osz[d] = in->sizes[d] + pad[2 * k] + pad[2 * k + 1];
    if (osz[d] < 0)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "padding makes dim %d negative", (int)d);
  }
  if ((rc = etk_op_resize(op, out, "out", in->dim, osz))) return rc;
  etk_view_init(&vi, in);
  etk_view_init(&vo, out);
  etk_view_fill(&vo, &value);
  /* the overlap of the input, shifted by `before`, with the output */
  src = vi;
  dst = vo;
  for (int32_t d = 0; d < in->dim; d++) {
    int64_t lo = before[d] > 0 ? before[d] : 0;    /* first out index */
    int64_t skip = before[d] < 0 ? -before[d] : 0; /* cropped inputs */
    int64_t len = in->sizes[d] - skip;
    if (len > osz[d] - lo) len = osz[d] - lo;
    if (len <= 0) return ETK_OK; /* nothing of the input survives */
    src.offset += skip * vi.strides[d];
    src.sizes[d] = len;
    dst.offset += lo * vo.strides[d];
    dst.sizes[d] = len;
  }
  etk_view_copy(&dst, &src);
  return ETK_OK;
}
