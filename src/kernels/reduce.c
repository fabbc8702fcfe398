/*
 * reduce.c - reductions over a set of dims: sum.IntList_out, mean.out,
 * amax.out, amin.out, argmax.out and argmin.out.
 *
 * A reduction splits the input's dims into kept dims (the output's shape,
 * with reduced dims either dropped or kept as size 1 per `keepdim`) and
 * reduced dims.  An outer walk over the kept dims yields, per output
 * element, the input offset where its block starts and the output offset;
 * an inner walk over the reduced dims then visits the block in row-major
 * order.  Both walks use the input's own strides and the output's own
 * strides, so neither needs to be contiguous.
 *
 * Semantics (PyTorch):
 *   - an absent or empty dim list reduces every dim;
 *   - sum of integers accumulates in int64 (wrapping), of floats in double;
 *     an empty sum is 0 and an empty mean is NaN (0/0);
 *   - mean needs a floating input and output;
 *   - amax/amin propagate NaN and reject empty reductions;
 *   - argmax/argmin return int64 positions within the reduced block in
 *     row-major order (the flat index when dim is None), the first one on
 *     ties, and treat NaN as the extreme value (the first NaN wins).
 */
#include "kernel_list.h"
#include "kernel_util.h"

typedef struct reduce_plan {
  int32_t kept, reduced;
  int64_t kept_sizes[ETK_MAX_DIMS], red_sizes[ETK_MAX_DIMS];
  int64_t outer_strides[2][ETK_MAX_DIMS]; /* [0] input, [1] out */
  int64_t red_strides[1][ETK_MAX_DIMS];
  int32_t out_dim;
  int64_t out_sizes[ETK_MAX_DIMS];
} reduce_plan_t;

/* Marks the dims to reduce; `dims` NULL or count 0 means all. */
static int reduce_mask(etk_op_t *op, const etk_tensor_t *in,
                       const int64_t *dims, size_t count, bool *mask) {
  int rc;
  for (int32_t d = 0; d < ETK_MAX_DIMS; d++) mask[d] = false;
  if (!dims || count == 0) {
    for (int32_t d = 0; d < in->dim; d++) mask[d] = true;
    return ETK_OK;
  }
  for (size_t k = 0; k < count; k++) {
    int32_t d;
    if ((rc = etk_op_wrap_dim(op, dims[k], in->dim, "dim", &d))) return rc;
    if (in->dim == 0) continue;
    if (mask[d])
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "dim %d appears more than once", (int)d);
    mask[d] = true;
  }
  return ETK_OK;
}

/* Output shape from the mask, then the walk strides once `out` is sized. */
static void reduce_shape(const etk_tensor_t *in, const bool *mask, bool keepdim,
                         reduce_plan_t *p) {
  memset(p, 0, sizeof *p);
  for (int32_t d = 0; d < in->dim; d++) {
    if (!mask[d])
      p->out_sizes[p->out_dim++] = in->sizes[d];
    else if (keepdim)
      p->out_sizes[p->out_dim++] = 1;
  }
}

static void reduce_strides(const etk_tensor_t *in, const etk_tensor_t *out,
                           const bool *mask, bool keepdim, reduce_plan_t *p) {
  etk_view_t vi, vo;
  int32_t od = 0;
  etk_view_init(&vi, in);
  etk_view_init(&vo, out);
  for (int32_t d = 0; d < in->dim; d++) {
    if (!mask[d]) {
      p->kept_sizes[p->kept] = in->sizes[d];
      p->outer_strides[0][p->kept] = vi.strides[d];
      p->outer_strides[1][p->kept] = vo.strides[od];
      p->kept++;
      od++;
    } else {
      p->red_sizes[p->reduced] = in->sizes[d];
      p->red_strides[0][p->reduced] = vi.strides[d];
      p->reduced++;
      if (keepdim) od++;
    }
  }
}

typedef enum reduce_kind {
  REDUCE_SUM,
  REDUCE_MEAN,
  REDUCE_AMAX,
  REDUCE_AMIN,
  REDUCE_ARGMAX,
  REDUCE_ARGMIN
} reduce_kind_t;

/* Runs the reduction once shapes are checked and out is sized. */
static void reduce_compute(const etk_tensor_t *in, const etk_tensor_t *out,
                           const reduce_plan_t *p, reduce_kind_t kind) {
  etk_walk_t outer;
  int dt = in->scalar_type, odt = out->scalar_type;
  bool int_sum = kind == REDUCE_SUM && !etk_dtype_is_float(odt);
  int64_t ostr[2][ETK_MAX_DIMS];
  memcpy(ostr, p->outer_strides, sizeof ostr);
  etk_walk_init(&outer, p->kept, p->kept_sizes, 2, ostr, NULL);
  for (int64_t r = 0; r < outer.rows; r++, etk_walk_next_row(&outer))
    for (int64_t oj = 0; oj < outer.inner; oj++) {
      int64_t ioff = outer.off[0] + oj * outer.inner_stride[0];
      int64_t ooff = outer.off[1] + oj * outer.inner_stride[1];
      int64_t rstr[1][ETK_MAX_DIMS];
      etk_walk_t inner;
      double acc = 0.0, best = 0.0;
      int64_t iacc = 0, best_at = -1, pos = 0, count = 0;
      memcpy(rstr, p->red_strides, sizeof rstr);
      etk_walk_init(&inner, p->reduced, p->red_sizes, 1, rstr, &ioff);
      for (int64_t ir = 0; ir < inner.rows; ir++, etk_walk_next_row(&inner))
        for (int64_t j = 0; j < inner.inner; j++, pos++) {
          int64_t at = inner.off[0] + j * inner.inner_stride[0];
          count++;
          if (int_sum) {
            iacc = (int64_t)((uint64_t)iacc +
                             (uint64_t)etk_load_i64(dt, in->data, at));
            continue;
          }
          {
            double v = etk_load_f64(dt, in->data, at);
            switch (kind) {
              case REDUCE_SUM:
              case REDUCE_MEAN:
                acc += v;
                break;
              case REDUCE_AMAX:
              case REDUCE_ARGMAX:
                if (best_at < 0 || (best == best && (v != v || v > best))) {
                  best = v;
                  best_at = pos;
                }
                break;
              case REDUCE_AMIN:
              case REDUCE_ARGMIN:
                if (best_at < 0 || (best == best && (v != v || v < best))) {
                  best = v;
                  best_at = pos;
                }
                break;
            }
          }
        }
      switch (kind) {
        case REDUCE_SUM:
          if (int_sum)
            etk_store_i64(odt, out->data, ooff, iacc);
          else
            etk_store_f64(odt, out->data, ooff, acc);
          break;
        case REDUCE_MEAN:
          etk_store_f64(odt, out->data, ooff, acc / (double)count);
          break;
        case REDUCE_AMAX:
        case REDUCE_AMIN:
          etk_store_f64(odt, out->data, ooff, best);
          break;
        case REDUCE_ARGMAX:
        case REDUCE_ARGMIN:
          ((int64_t *)out->data)[ooff] = best_at;
          break;
      }
    }
}

static bool has_empty_reduction(const etk_tensor_t *in, const bool *mask) {
  for (int32_t d = 0; d < in->dim; d++)
    if (mask[d] && in->sizes[d] == 0) return true;
  return false;
}

/* The common back half of every reduction once its arguments are checked:
 * size out from the mask, plan the walks and run them. */
static int reduce_run(etk_op_t *op, const etk_tensor_t *in, etk_tensor_t *out,
                      const bool *mask, bool keepdim, reduce_kind_t kind) {
  reduce_plan_t p;
  int rc;
  reduce_shape(in, mask, keepdim, &p);
  if ((rc = etk_op_resize(op, out, "out", p.out_dim, p.out_sizes))) return rc;
  reduce_strides(in, out, mask, keepdim, &p);
  reduce_compute(in, out, &p, kind);
  return ETK_OK;
}

/* sum.IntList_out / mean.out(Tensor self, int[1]? dim, bool keepdim=False,
 *   *, ScalarType? dtype=None, Tensor(a!) out) */
static int sum_or_mean(etk_op_t *op, reduce_kind_t kind) {
  etk_tensor_t *in, *out;
  int64_t dims[ETK_MAX_DIMS], dtype;
  size_t count;
  bool present, keepdim, has_dtype, mask[ETK_MAX_DIMS];
  int rc;
  if ((rc = etk_op_expect_nargs(op, 6))) return rc;
  if ((rc = etk_op_tensor(op, 0, "self", &in))) return rc;
  if ((rc = etk_op_int_list_opt(op, 1, "dim", dims, ETK_MAX_DIMS, &count,
                                &present)))
    return rc;
  if ((rc = etk_op_bool(op, 2, "keepdim", &keepdim))) return rc;
  if ((rc = etk_op_int_opt(op, 3, "dtype", &dtype, &has_dtype))) return rc;
  if ((rc = etk_op_tensor(op, 4, "out", &out))) return rc;
  if (kind == REDUCE_MEAN) {
    if ((rc = etk_op_check_dtype(
             op, in, "self", ETK_DTYPES_FLOAT | ETK_DTYPE_BIT(ETK_DOUBLE))) ||
        (rc = etk_op_check_dtype(op, out, "out",
                                 ETK_DTYPES_FLOAT | ETK_DTYPE_BIT(ETK_DOUBLE))))
      return rc;
  } else {
    if ((rc = etk_op_check_dtype(op, in, "self", ETK_DTYPES_BASIC)) ||
        (rc = etk_op_check_dtype(op, out, "out", ETK_DTYPES_REAL)))
      return rc;
    if (etk_dtype_is_float(in->scalar_type) &&
        !etk_dtype_is_float(out->scalar_type))
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "floating result can't be cast to out dtype %s",
                         etk_scalar_type_name(out->scalar_type));
  }
  if (has_dtype && dtype != out->scalar_type)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "dtype %s does not match out dtype %s",
                       etk_scalar_type_name((int)dtype),
                       etk_scalar_type_name(out->scalar_type));
  if (op->checking) return ETK_OK;
  if ((rc = reduce_mask(op, in, present ? dims : NULL, count, mask))) return rc;
  return reduce_run(op, in, out, mask, keepdim, kind);
}

ETK_KERNEL_DEFINE(sum_intlist_out, "aten::sum.IntList_out") {
  return sum_or_mean(op, REDUCE_SUM);
}
ETK_KERNEL_DEFINE(mean_out, "aten::mean.out") {
  return sum_or_mean(op, REDUCE_MEAN);
}

/* amax.out / amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *,
 *   Tensor(a!) out) and argmax.out / argmin.out(Tensor self, int? dim=None,
 *   bool keepdim=False, *, Tensor(a!) out): the extreme value keeps self's
 * dtype, its position is an int64. */
static int extreme(etk_op_t *op, reduce_kind_t kind) {
  bool arg = kind == REDUCE_ARGMAX || kind == REDUCE_ARGMIN;
  etk_tensor_t *in, *out;
  int64_t dims[ETK_MAX_DIMS];
  size_t count;
  bool has_dim = true, keepdim, mask[ETK_MAX_DIMS];
  int rc;
  if ((rc = etk_op_expect_nargs(op, 5))) return rc;
  if ((rc = etk_op_tensor(op, 0, "self", &in))) return rc;
  if (arg) {
    rc = etk_op_int_opt(op, 1, "dim", &dims[0], &has_dim);
    count = has_dim ? 1 : 0;
  } else {
    rc = etk_op_int_list(op, 1, "dim", dims, ETK_MAX_DIMS, &count);
  }
  if (rc) return rc;
  if ((rc = etk_op_bool(op, 2, "keepdim", &keepdim))) return rc;
  if ((rc = etk_op_tensor(op, 3, "out", &out))) return rc;
  if ((rc = etk_op_check_dtype(op, in, "self", ETK_DTYPES_REAL))) return rc;
  rc = arg ? etk_op_check_dtype(op, out, "out", ETK_DTYPE_BIT(ETK_LONG))
           : etk_op_check_same_dtype(op, in, "self", out, "out");
  if (rc || op->checking) return rc;
  if ((rc = reduce_mask(op, in, dims, count, mask))) return rc;
  if (!arg && has_empty_reduction(in, mask))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "cannot reduce over a dim of size 0");
  if (arg && etk_tensor_numel(in) == 0 &&
      (!has_dim || has_empty_reduction(in, mask)))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "cannot take the arg of an empty reduction");
  return reduce_run(op, in, out, mask, keepdim, kind);
}

ETK_KERNEL_DEFINE(amax_out, "aten::amax.out") {
  return extreme(op, REDUCE_AMAX);
}
ETK_KERNEL_DEFINE(amin_out, "aten::amin.out") {
  return extreme(op, REDUCE_AMIN);
}
ETK_KERNEL_DEFINE(argmax_out, "aten::argmax.out") {
  return extreme(op, REDUCE_ARGMAX);
}
ETK_KERNEL_DEFINE(argmin_out, "aten::argmin.out") {
  return extreme(op, REDUCE_ARGMIN);
}
