/*
 * select_ops.c - kernels that pick elements by a condition or by index
 * tensors, and the splits: where.self_out, gather.out, index.Tensor_out,
 * split_with_sizes_copy.out and split_copy.Tensor_out.
 *
 * where broadcasts its three operands (NumPy rules) and promotes self and
 * other as PyTorch does: floating if either is floating, else integer; the
 * result is converted once into out's dtype.  gather follows PyTorch's
 * definition out[i..][j][k..] = self[i..][index[i..][j][k..]][k..] along
 * `dim`, with out shaped like index.  index.Tensor is advanced indexing
 * with a list of optional LONG/INT index tensors: the non-None ones are
 * broadcast together to a shape B; when they name adjacent dims the result
 * is self's dims before them, then B, then self's dims after them; when a
 * None sits between them B comes first and the remaining dims follow, as
 * in NumPy.  Boolean masks are not supported here (they need a data-dependent
 * output size): the kernel says so.
 *
 * Data layout: every tensor is read and written through views whose strides
 * come from its sizes and dim order, so any dim order works.  Elements are
 * located by decomposing a row-major linear index of the output; that is
 * O(numel * dims), adequate for the reference interpreter.  Index values
 * are bounds-checked (negative ones wrap once, as PyTorch does) before any
 * read.
 */
#include "kernel_list.h"
#include "kernel_util.h"

#define SELECT_MAX_INDICES ETK_MAX_DIMS

/* Offset of the row-major linear index `lin` of shape (dim, sizes) in a
 * view with `strides`. */
static int64_t linear_to_offset(int64_t lin, int32_t dim, const int64_t *sizes,
                                const int64_t *strides) {
  int64_t off = 0;
  for (int32_t d = dim - 1; d >= 0; d--) {
    if (sizes[d] > 0) {
      off += (lin % sizes[d]) * strides[d];
      lin /= sizes[d];
    }
  }
  return off;
}

/* Reads index element `off` of `vx` and wraps it into [0, limit). */
static int read_index(etk_op_t *op, const etk_view_t *vx, int64_t off,
                      int64_t limit, int64_t *out) {
  int64_t v = etk_load_i64(vx->dtype, vx->data, off);
  int64_t w = v < 0 ? v + limit : v;
  if (w < 0 || w >= limit)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "index %lld is out of bounds for size %lld",
                       (long long)v, (long long)limit);
  *out = w;
  return ETK_OK;
}

/* ------------------------------------------------------------- where */

/* where.self_out(Tensor condition, Tensor self, Tensor other, *, out) */
ETK_KERNEL_DEFINE(where_self_out, "aten::where.self_out") {
  etk_tensor_t *cond, *a, *b, *out;
  int64_t csz[ETK_MAX_DIMS], asz[ETK_MAX_DIMS], bsz[ETK_MAX_DIMS];
  int64_t tsz[ETK_MAX_DIMS], osz[ETK_MAX_DIMS];
  int64_t strides[4][ETK_MAX_DIMS];
  int32_t tdim, odim;
  etk_view_t vc, va, vb, vo;
  etk_walk_t w;
  bool as_float;
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_TENSOR("condition", &cond), ETK_ARG_TENSOR("self", &a),
      ETK_ARG_TENSOR("other", &b), ETK_ARG_TENSOR("out", &out)};
  if ((rc = etk_op_read_args(op, 5, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = etk_op_check_dtype(
           op, cond, "condition",
           ETK_DTYPE_BIT(ETK_BOOL) | ETK_DTYPE_BIT(ETK_BYTE))) ||
      (rc = etk_op_check_dtype(op, a, "self", ETK_DTYPES_BASIC)) ||
      (rc = etk_op_check_dtype(op, b, "other", ETK_DTYPES_BASIC)) ||
      (rc = etk_op_check_dtype(op, out, "out", ETK_DTYPES_BASIC)))
    return rc;
  as_float =
      etk_dtype_is_float(a->scalar_type) || etk_dtype_is_float(b->scalar_type);
  if (as_float && !etk_dtype_is_float(out->scalar_type))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "floating result can't be cast to out dtype %s",
                       etk_scalar_type_name(out->scalar_type));
  if (op->checking) return ETK_OK;
  etk_tensor_sizes64(cond, csz);
  etk_tensor_sizes64(a, asz);
  etk_tensor_sizes64(b, bsz);
  if ((rc = etk_op_broadcast_shape(op, cond->dim, csz, a->dim, asz, &tdim,
                                   tsz)) ||
      (rc = etk_op_broadcast_shape(op, tdim, tsz, b->dim, bsz, &odim, osz)) ||
      (rc = etk_op_resize(op, out, "out", odim, osz)))
    return rc;
  etk_view_init(&vc, cond);
  etk_view_init(&va, a);
  etk_view_init(&vb, b);
  etk_view_init(&vo, out);
  memcpy(strides[0], vo.strides, sizeof strides[0]);
  etk_view_broadcast_strides(&vc, odim, osz, strides[1]);
  etk_view_broadcast_strides(&va, odim, osz, strides[2]);
  etk_view_broadcast_strides(&vb, odim, osz, strides[3]);
  etk_walk_init(&w, odim, osz, 4, strides, NULL);
  for (int64_t r = 0; r < w.rows; r++, etk_walk_next_row(&w))
    for (int64_t j = 0; j < w.inner; j++) {
      bool pick = etk_load_i64(vc.dtype, vc.data,
                               w.off[1] + j * w.inner_stride[1]) != 0;
      const etk_view_t *src = pick ? &va : &vb;
      int64_t soff = pick ? w.off[2] + j * w.inner_stride[2]
                          : w.off[3] + j * w.inner_stride[3];
      int64_t ooff = w.off[0] + j * w.inner_stride[0];
      if (as_float)
        etk_store_f64(vo.dtype, vo.data, ooff,
                      etk_load_f64(src->dtype, src->data, soff));
      else
        etk_store_i64(vo.dtype, vo.data, ooff,
                      etk_load_i64(src->dtype, src->data, soff));
    }
  return ETK_OK;
}

/* ------------------------------------------------------------- gather */

/* gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False,
 *   Tensor(a!) out) */
ETK_KERNEL_DEFINE(gather_out, "aten::gather.out") {
  etk_tensor_t *in, *idx, *out;
  int64_t dim64;
  int32_t dim;
  bool sparse;
  etk_view_t vi, vx, vo;
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_TENSOR("self", &in), ETK_ARG_INT("dim", &dim64),
      ETK_ARG_TENSOR("index", &idx), ETK_ARG_BOOL("sparse_grad", &sparse),
      ETK_ARG_TENSOR("out", &out)};
  if ((rc = etk_op_read_args(op, 6, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = etk_op_check_dtype(op, in, "self", ETK_DTYPES_BASIC)) ||
      (rc = etk_op_check_dtype(
           op, idx, "index",
           ETK_DTYPE_BIT(ETK_LONG) | ETK_DTYPE_BIT(ETK_INT))) ||
      (rc = etk_op_check_same_dtype(op, in, "self", out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  (void)sparse;
  if ((rc = etk_op_wrap_dim(op, dim64, in->dim, "dim", &dim))) return rc;
  if (idx->dim != in->dim && !(in->dim == 0 && idx->dim <= 1))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "index must have as many dims as self (%d), got %d",
                       (int)in->dim, (int)idx->dim);
  for (int32_t d = 0; d < idx->dim && in->dim > 0; d++)
    if (d != dim && idx->sizes[d] > in->sizes[d])
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "index size %d exceeds self size %d at dim %d",
                         (int)idx->sizes[d], (int)in->sizes[d], (int)d);
  {
    int64_t xsz[ETK_MAX_DIMS];
    etk_tensor_sizes64(idx, xsz);
    if ((rc = etk_op_resize(op, out, "out", idx->dim, xsz))) return rc;
  }
  etk_view_init(&vi, in);
  etk_view_init(&vx, idx);
  etk_view_init(&vo, out);
  {
    int64_t n = etk_view_numel(&vx);
    int64_t limit = in->dim ? in->sizes[dim] : 1;
    for (int64_t lin = 0; lin < n; lin++) {
      int64_t k = 0, soff = 0, rest = lin;
      if ((rc = read_index(op, &vx,
                           linear_to_offset(lin, vx.dim, vx.sizes, vx.strides),
                           limit, &k)))
        return rc;
      for (int32_t d = vx.dim - 1; d >= 0; d--) {
        int64_t at = rest % vx.sizes[d];
        rest /= vx.sizes[d];
        if (in->dim) soff += (d == dim ? k : at) * vi.strides[d];
      }
      etk_view_t s = vi, o = vo;
      s.dim = o.dim = 0;
      s.offset = soff;
      o.offset = linear_to_offset(lin, vo.dim, vo.sizes, vo.strides);
      etk_view_copy(&o, &s);
    }
  }
  return ETK_OK;
}

/* ------------------------------------------------------------- index */

/* The plan of one advanced indexing: which self dims are indexed, the
 * broadcast index shape, and where it sits in the result. */
typedef struct index_plan {
  etk_view_t self;
  etk_view_t idx[SELECT_MAX_INDICES]; /* valid where has[d] */
  int64_t idx_strides[SELECT_MAX_INDICES][ETK_MAX_DIMS]; /* broadcast */
  bool has[ETK_MAX_DIMS];
  int32_t bdim;
  int64_t bsz[ETK_MAX_DIMS];
  int32_t first; /* result position of the index block */
  int32_t odim;
  int64_t osz[ETK_MAX_DIMS];
  int32_t src_dim[ETK_MAX_DIMS]; /* result dim -> self dim, -1 = index */
} index_plan_t;

/* Reads the optional index list into the plan (checks dtypes). */
static int index_read_list(etk_op_t *op, index_plan_t *p, etk_tensor_t **idx_t,
                           size_t *count) {
  const etk_value_t *v = op->args[1];
  const etk_kernel_context_t *ctx = op->ctx;
  if (v->tag != ETK_VALUE_TENSOR_LIST &&
      v->tag != ETK_VALUE_OPTIONAL_TENSOR_LIST)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "indices must be a list of optional tensors");
  if (v->u.tensor_list.count > SELECT_MAX_INDICES)
    return etk_op_fail(op, ETK_E_UNSUPPORTED, "too many indices (%zu)",
                       v->u.tensor_list.count);
  *count = v->u.tensor_list.count;
  for (size_t k = 0; k < *count; k++) {
    int64_t at = v->u.tensor_list.items[k];
    const etk_value_t *item;
    int rc;
    idx_t[k] = NULL;
    if (at < 0) continue; /* None */
    if ((uint64_t)at >= ctx->value_count)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "indices item %zu is outside the value table", k);
    item = &ctx->values[at];
    if (item->tag == ETK_VALUE_NONE || item->tag == ETK_VALUE_NULL) continue;
    if (item->tag != ETK_VALUE_TENSOR || !item->u.tensor ||
        etk_tensor_validate(item->u.tensor) != ETK_OK)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "indices item %zu is not a valid tensor", k);
    idx_t[k] = item->u.tensor;
    if (idx_t[k]->scalar_type == ETK_BOOL || idx_t[k]->scalar_type == ETK_BYTE)
      return etk_op_fail(op, ETK_E_UNSUPPORTED,
                         "boolean mask indices are not supported");
    if ((rc = etk_op_check_dtype(
             op, idx_t[k], "indices",
             ETK_DTYPE_BIT(ETK_LONG) | ETK_DTYPE_BIT(ETK_INT))))
      return rc;
    p->has[k] = true;
  }
  return ETK_OK;
}

/* Computes the broadcast index shape and the result's shape. */
static int index_plan_shape(etk_op_t *op, index_plan_t *p, etk_tensor_t *in,
                            etk_tensor_t **idx_t, size_t count) {
  int32_t lo = -1, hi = -1, o = 0;
  bool adjacent = true;
  int rc;
  if ((int32_t)count > in->dim)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "too many indices (%zu) for a %d-D tensor", count,
                       (int)in->dim);
  p->bdim = 0;
  for (size_t k = 0; k < count; k++) {
    int64_t xs[ETK_MAX_DIMS], nsz[ETK_MAX_DIMS];
    int32_t ndim;
    if (!p->has[k]) continue;
    if (lo >= 0 && hi != (int32_t)k - 1) adjacent = false;
    if (lo < 0) lo = (int32_t)k;
    hi = (int32_t)k;
    etk_tensor_sizes64(idx_t[k], xs);
    if ((rc = etk_op_broadcast_shape(op, p->bdim, p->bsz, idx_t[k]->dim, xs,
                                     &ndim, nsz)))
      return rc;
    p->bdim = ndim;
    memcpy(p->bsz, nsz, sizeof nsz);
  }
  if (lo < 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "no index tensor given");
  if (in->dim - (hi - lo + 1) + p->bdim > ETK_MAX_DIMS)
    return etk_op_fail(op, ETK_E_UNSUPPORTED, "result has too many dims");
  p->first = adjacent ? lo : 0;
  for (int32_t d = 0; d < in->dim; d++) {
    if (d < (int32_t)count && p->has[d]) continue;
    if (o == p->first) o += p->bdim;
    p->osz[o] = in->sizes[d];
    p->src_dim[o++] = d;
  }
  if (o == p->first) o += p->bdim;
  for (int32_t b = 0; b < p->bdim; b++) {
    p->osz[p->first + b] = p->bsz[b];
    p->src_dim[p->first + b] = -1;
  }
  p->odim = o;
  return ETK_OK;
}

/* index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out) */
ETK_KERNEL_DEFINE(index_tensor_out, "aten::index.Tensor_out") {
  etk_tensor_t *in, *out, *idx_t[SELECT_MAX_INDICES];
  index_plan_t p;
  size_t count = 0;
  etk_view_t vo;
  int rc;
  const etk_arg_t args[] = {ETK_ARG_TENSOR("self", &in),
                            ETK_ARG_LATER("indices"),
                            ETK_ARG_TENSOR("out", &out)};
  if ((rc = etk_op_read_args(op, 4, args, ETK_ARG_COUNT(args)))) return rc;
  memset(&p, 0, sizeof p);
  if ((rc = index_read_list(op, &p, idx_t, &count))) return rc;
  if ((rc = etk_op_check_same_dtype(op, in, "self", out, "out")) ||
      op->checking)
    return rc;
  if ((rc = index_plan_shape(op, &p, in, idx_t, count)) ||
      (rc = etk_op_resize(op, out, "out", p.odim, p.osz)))
    return rc;
  etk_view_init(&p.self, in);
  etk_view_init(&vo, out);
  for (size_t k = 0; k < count; k++)
    if (p.has[k]) {
      etk_view_init(&p.idx[k], idx_t[k]);
      etk_view_broadcast_strides(&p.idx[k], p.bdim, p.bsz, p.idx_strides[k]);
    }
  {
    int64_t n = etk_sizes_numel(p.odim, p.osz);
    for (int64_t lin = 0; lin < n; lin++) {
      int64_t at[ETK_MAX_DIMS], rest = lin, soff = 0, boff[SELECT_MAX_INDICES];
      for (int32_t d = p.odim - 1; d >= 0; d--) {
        at[d] = rest % p.osz[d];
        rest /= p.osz[d];
      }
      memset(boff, 0, sizeof boff);
      for (int32_t d = 0; d < p.odim; d++) {
        if (p.src_dim[d] >= 0) {
          soff += at[d] * p.self.strides[p.src_dim[d]];
        } else {
          for (size_t k = 0; k < count; k++)
            if (p.has[k]) boff[k] += at[d] * p.idx_strides[k][d - p.first];
        }
      }
      for (size_t k = 0; k < count; k++) {
        int64_t v = 0;
        if (!p.has[k]) continue;
        if ((rc = read_index(op, &p.idx[k], boff[k], in->sizes[k], &v)))
          return rc;
        soff += v * p.self.strides[k];
      }
      {
        etk_view_t s = p.self, o = vo;
        s.dim = o.dim = 0;
        s.offset = soff;
        o.offset = linear_to_offset(lin, vo.dim, vo.sizes, vo.strides);
        etk_view_copy(&o, &s);
      }
    }
  }
  return ETK_OK;
}

/* ------------------------------------------------------------- split */

#define SPLIT_MAX_PARTS 256

/* Copies consecutive slabs of `in` along `dim` with the given lengths into
 * the tensors of the out list (argument `out_at`). */
static int split_into(etk_op_t *op, etk_tensor_t *in, int32_t dim,
                      const int64_t *lens, size_t parts, size_t out_at) {
  etk_tensor_t *outs[SPLIT_MAX_PARTS];
  size_t n;
  int64_t start = 0;
  int rc;
  if ((rc = etk_op_tensor_list(op, out_at, "out", outs, SPLIT_MAX_PARTS, &n)))
    return rc;
  if (n != parts)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "out has %zu tensors, the split makes %zu", n, parts);
  for (size_t k = 0; k < parts; k++) {
    int64_t sz[ETK_MAX_DIMS];
    etk_view_t vi, vo;
    if ((rc = etk_op_check_same_dtype(op, in, "self", outs[k], "out")))
      return rc;
    etk_tensor_sizes64(in, sz);
    sz[dim] = lens[k];
    if ((rc = etk_op_resize(op, outs[k], "out", in->dim, sz))) return rc;
    etk_view_init(&vi, in);
    vi.offset = start * vi.strides[dim];
    vi.sizes[dim] = lens[k];
    etk_view_init(&vo, outs[k]);
    etk_view_copy(&vo, &vi);
    start += lens[k];
  }
  return ETK_OK;
}

/* The arguments both splits share, (self, <second>, dim, out): self of a
 * basic dtype and at least 1-D (when running), dim wrapped. */
static int split_begin(etk_op_t *op, etk_arg_t second, etk_tensor_t **in,
                       int64_t *dim64, int32_t *dim) {
  const etk_arg_t args[] = {ETK_ARG_TENSOR("self", in), second,
                            ETK_ARG_INT("dim", dim64), ETK_ARG_LATER("out")};
  int rc;
  if ((rc = etk_op_read_args(op, 4, args, ETK_ARG_COUNT(args))) ||
      (rc = etk_op_check_dtype(op, *in, "self", ETK_DTYPES_BASIC)) ||
      op->checking)
    return rc;
  if ((*in)->dim == 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "self must not be 0-D");
  return etk_op_wrap_dim(op, *dim64, (*in)->dim, "dim", dim);
}

/* split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0,
 *   *, Tensor(a!)[] out) -> () */
ETK_KERNEL_DEFINE(split_with_sizes_copy_out,
                  "aten::split_with_sizes_copy.out") {
  etk_tensor_t *in;
  int64_t dim64, lens[SPLIT_MAX_PARTS], total = 0;
  int32_t dim;
  size_t parts;
  int rc;
  if ((rc = split_begin(op, ETK_ARG_LATER("split_sizes"), &in, &dim64, &dim)) ||
      op->checking)
    return rc;
  if ((rc = etk_op_int_list(op, 1, "split_sizes", lens, SPLIT_MAX_PARTS,
                            &parts)))
    return rc;
  for (size_t k = 0; k < parts; k++) {
    if (lens[k] < 0 || lens[k] > in->sizes[dim])
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "split size %lld is invalid", (long long)lens[k]);
    total += lens[k];
  }
  if (total != in->sizes[dim])
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "split sizes add up to %lld, dim %d has %d",
                       (long long)total, (int)dim, (int)in->sizes[dim]);
  return split_into(op, in, dim, lens, parts, 3);
}

/* split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *,
 *   Tensor(a!)[] out) -> () */
ETK_KERNEL_DEFINE(split_copy_tensor_out, "aten::split_copy.Tensor_out") {
  etk_tensor_t *in;
  int64_t dim64, size, lens[SPLIT_MAX_PARTS], left;
  int32_t dim;
  size_t parts = 0;
  int rc;
  if ((rc = split_begin(op, ETK_ARG_INT("split_size", &size), &in, &dim64,
                        &dim)) ||
      op->checking)
    return rc;
  left = in->sizes[dim];
  if (size <= 0 && left > 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "split_size must be positive, got %lld",
                       (long long)size);
  do {
    if (parts == SPLIT_MAX_PARTS)
      return etk_op_fail(op, ETK_E_UNSUPPORTED, "more than %d parts",
                         SPLIT_MAX_PARTS);
    lens[parts++] = left < size ? left : size;
    left -= lens[parts - 1];
  } while (left > 0);
  return split_into(op, in, dim, lens, parts, 3);
}
