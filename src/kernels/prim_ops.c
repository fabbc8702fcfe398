/*
 * prim_ops.c - ExecuTorch's primitive operators: symbolic-size arithmetic
 * on Int/Double/Bool values (executorch_prim::add.Scalar, floordiv.int,
 * ...), tensor size queries (aten::sym_size.int, aten::sym_numel,
 * aten::_local_scalar_dense) and executorch_prim::et_view.default.
 *
 * Programs with dynamic shapes compute sizes at run time with these ops and
 * feed the results, through boxed IntLists, into later kernels.  Unlike the
 * aten kernels they have no out tensor: the last argument is a value slot
 * that the op overwrites with a new Int, Double or Bool value, exactly as
 * ExecuTorch's `out = EValue(...)` does.  Result types follow ExecuTorch:
 * Int op Int stays Int, any Double makes a Double, comparisons give Bool,
 * truediv is always Double, ceil/round/trunc give Int.  Integer division
 * or modulo by zero is an error here rather than undefined behaviour.
 *
 * et_view makes `out` share self's data with a new shape (one size may be
 * -1): no element moves.  The out tensor's capacity becomes self's bytes.
 */
#include "kernel_list.h"
#include "kernel_util.h"

typedef struct prim_num {
  bool is_double;
  int64_t i;
  double d;
} prim_num_t;

static int read_num(etk_op_t *op, size_t i, const char *what, prim_num_t *n) {
  const etk_value_t *v = op->args[i];
  memset(n, 0, sizeof *n);
  if (v->tag == ETK_VALUE_INT) {
    n->i = v->u.i;
    n->d = (double)v->u.i;
  } else if (v->tag == ETK_VALUE_DOUBLE) {
    n->is_double = true;
    n->d = v->u.d;
  } else {
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "argument %zu (%s) must be an Int or a Double", i, what);
  }
  return ETK_OK;
}

static void set_int(etk_value_t *v, int64_t x) {
  memset(v, 0, sizeof *v);
  v->tag = ETK_VALUE_INT;
  v->u.i = x;
}

static void set_double(etk_value_t *v, double x) {
  memset(v, 0, sizeof *v);
  v->tag = ETK_VALUE_DOUBLE;
  v->u.d = x;
}

static void set_bool(etk_value_t *v, bool x) {
  memset(v, 0, sizeof *v);
  v->tag = ETK_VALUE_BOOL;
  v->u.b = x;
}

typedef enum prim_kind {
  PRIM_ADD,
  PRIM_SUB,
  PRIM_MUL,
  PRIM_FLOORDIV,
  PRIM_TRUEDIV,
  PRIM_MOD,
  PRIM_MAX,
  PRIM_MIN,
  PRIM_EQ,
  PRIM_GT,
  PRIM_LT,
  PRIM_GE,
  PRIM_LE
} prim_kind_t;

/* A comparison kind (PRIM_EQ and after) from the three orderings of its
 * operands; with a NaN operand all three are false, and so is the result. */
static bool prim_compare(prim_kind_t kind, bool lt, bool eq, bool gt) {
  switch (kind) {
    case PRIM_EQ:
      return eq;
    case PRIM_GT:
      return gt;
    case PRIM_LT:
      return lt;
    case PRIM_GE:
      return gt || eq;
    default:
      return lt || eq; /* PRIM_LE */
  }
}

/* Binary op on [a, b, out]; ints_only rejects Double operands. */
static int prim_binary(etk_op_t *op, prim_kind_t kind, bool ints_only) {
  prim_num_t a, b;
  etk_value_t *out;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 3))) return rc;
  out = op->args[2];
  if (kind >= PRIM_EQ && op->args[0]->tag == ETK_VALUE_BOOL &&
      op->args[1]->tag == ETK_VALUE_BOOL) {
    bool x = op->args[0]->u.b, y = op->args[1]->u.b;
    if (op->checking) return ETK_OK;
    set_bool(out, prim_compare(kind, x<y, x == y, x> y));
    return ETK_OK;
  }
  if ((rc = read_num(op, 0, "a", &a)) || (rc = read_num(op, 1, "b", &b)))
    return rc;
  if (ints_only && (a.is_double || b.is_double))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "only Int operands are supported");
  if (op->checking) return ETK_OK;
  if (!a.is_double && !b.is_double) {
    int64_t x = a.i, y = b.i;
    if (kind >= PRIM_EQ) {
      set_bool(out, prim_compare(kind, x<y, x == y, x> y));
      return ETK_OK;
    }
    switch (kind) {
      case PRIM_ADD:
        set_int(out, (int64_t)((uint64_t)x + (uint64_t)y));
        return ETK_OK;
      case PRIM_SUB:
        set_int(out, (int64_t)((uint64_t)x - (uint64_t)y));
        return ETK_OK;
      case PRIM_MUL:
        set_int(out, (int64_t)((uint64_t)x * (uint64_t)y));
        return ETK_OK;
      case PRIM_MAX:
        set_int(out, x > y ? x : y);
        return ETK_OK;
      case PRIM_MIN:
        set_int(out, x < y ? x : y);
        return ETK_OK;
      case PRIM_TRUEDIV:
        set_double(out, (double)x / (double)y);
        return ETK_OK;
      case PRIM_FLOORDIV:
      case PRIM_MOD: {
        int64_t q;
        if (y == 0)
          return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                             "integer division by zero");
        if (x == INT64_MIN && y == -1) {
          set_int(out, kind == PRIM_MOD ? 0 : INT64_MIN);
          return ETK_OK;
        }
        if (kind == PRIM_MOD) {
          set_int(out, x % y); /* C remainder, as ExecuTorch's mod */
          return ETK_OK;
        }
        q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
        set_int(out, q);
        return ETK_OK;
      }
      default:
        break; /* comparisons are answered above */
    }
  }
  {
    double x = a.d, y = b.d;
    if (kind >= PRIM_EQ) {
      set_bool(out, prim_compare(kind, x<y, x == y, x> y));
      return ETK_OK;
    }
    switch (kind) {
      case PRIM_ADD:
        set_double(out, x + y);
        break;
      case PRIM_SUB:
        set_double(out, x - y);
        break;
      case PRIM_MUL:
        set_double(out, x * y);
        break;
      case PRIM_TRUEDIV:
        set_double(out, x / y);
        break;
      case PRIM_FLOORDIV:
        if (y == 0.0) {
          set_double(out, signbit(x) ? -INFINITY : INFINITY);
        } else {
          double mod = fmod(x, y), div = (x - mod) / y;
          set_double(
              out, (mod != 0.0 && signbit(y) != signbit(mod)) ? div - 1 : div);
        }
        break;
      default:
        return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                           "only Int operands are supported");
    }
  }
  return ETK_OK;
}

ETK_KERNEL_DEFINE(prim_add_scalar, "executorch_prim::add.Scalar") {
  return prim_binary(op, PRIM_ADD, false);
}
ETK_KERNEL_DEFINE(prim_sub_scalar, "executorch_prim::sub.Scalar") {
  return prim_binary(op, PRIM_SUB, false);
}
ETK_KERNEL_DEFINE(prim_mul_scalar, "executorch_prim::mul.Scalar") {
  return prim_binary(op, PRIM_MUL, false);
}
ETK_KERNEL_DEFINE(prim_floordiv_scalar, "executorch_prim::floordiv.Scalar") {
  return prim_binary(op, PRIM_FLOORDIV, false);
}
ETK_KERNEL_DEFINE(prim_truediv_scalar, "executorch_prim::truediv.Scalar") {
  return prim_binary(op, PRIM_TRUEDIV, false);
}
ETK_KERNEL_DEFINE(prim_floordiv_int, "executorch_prim::floordiv.int") {
  return prim_binary(op, PRIM_FLOORDIV, true);
}
ETK_KERNEL_DEFINE(prim_mod_int, "executorch_prim::mod.int") {
  return prim_binary(op, PRIM_MOD, true);
}
ETK_KERNEL_DEFINE(prim_mod_scalar, "executorch_prim::mod.Scalar") {
  return prim_binary(op, PRIM_MOD, true);
}
ETK_KERNEL_DEFINE(prim_sym_max_scalar, "executorch_prim::sym_max.Scalar") {
  return prim_binary(op, PRIM_MAX, true);
}
ETK_KERNEL_DEFINE(prim_sym_min_scalar, "executorch_prim::sym_min.Scalar") {
  return prim_binary(op, PRIM_MIN, true);
}
ETK_KERNEL_DEFINE(prim_eq_scalar, "executorch_prim::eq.Scalar") {
  return prim_binary(op, PRIM_EQ, false);
}
ETK_KERNEL_DEFINE(prim_gt_scalar, "executorch_prim::gt.Scalar") {
  return prim_binary(op, PRIM_GT, false);
}
ETK_KERNEL_DEFINE(prim_lt_scalar, "executorch_prim::lt.Scalar") {
  return prim_binary(op, PRIM_LT, false);
}
ETK_KERNEL_DEFINE(prim_ge_scalar, "executorch_prim::ge.Scalar") {
  return prim_binary(op, PRIM_GE, false);
}
ETK_KERNEL_DEFINE(prim_le_scalar, "executorch_prim::le.Scalar") {
  return prim_binary(op, PRIM_LE, false);
}

typedef enum prim_unary {
  PRIM_NEG,
  PRIM_SYM_FLOAT,
  PRIM_SYM_INT,
  PRIM_CEIL,
  PRIM_ROUND,
  PRIM_TRUNC,
  PRIM_NOT
} prim_unary_t;

/* Unary op on [a, out]. */
static int prim_unary(etk_op_t *op, prim_unary_t kind) {
  const etk_value_t *a;
  etk_value_t *out;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 2))) return rc;
  a = op->args[0];
  out = op->args[1];
  if (kind == PRIM_NOT) {
    if (a->tag != ETK_VALUE_BOOL)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "argument 0 (a) must be a Bool");
    if (!op->checking) set_bool(out, !a->u.b);
    return ETK_OK;
  }
  if (a->tag == ETK_VALUE_BOOL && kind == PRIM_SYM_INT) {
    if (!op->checking) set_int(out, a->u.b ? 1 : 0);
    return ETK_OK;
  }
  {
    prim_num_t x;
    if ((rc = read_num(op, 0, "a", &x))) return rc;
    if ((kind == PRIM_CEIL || kind == PRIM_ROUND || kind == PRIM_TRUNC) &&
        !x.is_double)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "argument 0 (a) must be a Double");
    if (op->checking) return ETK_OK;
    switch (kind) {
      case PRIM_NEG:
        if (x.is_double)
          set_double(out, -x.d);
        else
          set_int(out, (int64_t)(0u - (uint64_t)x.i));
        break;
      case PRIM_SYM_FLOAT:
        set_double(out, x.d);
        break;
      case PRIM_SYM_INT:
        set_int(out, x.is_double ? etk_f64_to_i64_saturated(x.d) : x.i);
        break;
      case PRIM_CEIL:
        set_int(out, etk_f64_to_i64_saturated(ceil(x.d)));
        break;
      case PRIM_TRUNC:
        set_int(out, etk_f64_to_i64_saturated(trunc(x.d)));
        break;
      case PRIM_ROUND: {
        /* Python's round(): halves go to the even neighbour */
        double r = round(x.d);
        if (fabs(x.d - trunc(x.d)) == 0.5) r = 2.0 * round(x.d / 2.0);
        set_int(out, etk_f64_to_i64_saturated(r));
        break;
      }
      case PRIM_NOT:
        break;
    }
  }
  return ETK_OK;
}

ETK_KERNEL_DEFINE(prim_neg_scalar, "executorch_prim::neg.Scalar") {
  return prim_unary(op, PRIM_NEG);
}
ETK_KERNEL_DEFINE(prim_sym_float_scalar, "executorch_prim::sym_float.Scalar") {
  return prim_unary(op, PRIM_SYM_FLOAT);
}
ETK_KERNEL_DEFINE(prim_sym_int_scalar, "executorch_prim::sym_int.Scalar") {
  return prim_unary(op, PRIM_SYM_INT);
}
ETK_KERNEL_DEFINE(prim_ceil_scalar, "executorch_prim::ceil.Scalar") {
  return prim_unary(op, PRIM_CEIL);
}
ETK_KERNEL_DEFINE(prim_round_scalar, "executorch_prim::round.Scalar") {
  return prim_unary(op, PRIM_ROUND);
}
ETK_KERNEL_DEFINE(prim_trunc_scalar, "executorch_prim::trunc.Scalar") {
  return prim_unary(op, PRIM_TRUNC);
}
ETK_KERNEL_DEFINE(prim_sym_not_scalar, "executorch_prim::sym_not.Scalar") {
  return prim_unary(op, PRIM_NOT);
}

/* sym_size.int(Tensor self, int dim) -> SymInt */
ETK_KERNEL_DEFINE(sym_size_int, "aten::sym_size.int") {
  etk_tensor_t *t;
  int64_t dim;
  int32_t d;
  int rc;
  const etk_arg_t args[] = {ETK_ARG_TENSOR("self", &t),
                            ETK_ARG_INT("dim", &dim)};
  if ((rc = etk_op_read_args(op, 3, args, ETK_ARG_COUNT(args))) || op->checking)
    return rc;
  if (t->dim == 0)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "self is 0-dim");
  if ((rc = etk_op_wrap_dim(op, dim, t->dim, "dim", &d))) return rc;
  set_int(op->args[2], t->sizes[d]);
  return ETK_OK;
}

/* sym_numel(Tensor self) -> SymInt */
ETK_KERNEL_DEFINE(sym_numel, "aten::sym_numel") {
  etk_tensor_t *t;
  int rc;
  const etk_arg_t args[] = {ETK_ARG_TENSOR("self", &t)};
  if ((rc = etk_op_read_args(op, 2, args, 1)) || op->checking) return rc;
  set_int(op->args[1], etk_tensor_numel(t));
  return ETK_OK;
}

/* _local_scalar_dense(Tensor self) -> Scalar: the first element */
ETK_KERNEL_DEFINE(local_scalar_dense, "aten::_local_scalar_dense") {
  etk_tensor_t *t;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 2))) return rc;
  if ((rc = etk_op_tensor(op, 0, "self", &t))) return rc;
  if ((rc = etk_op_check_dtype(op, t, "self", ETK_DTYPES_BASIC))) return rc;
  if (op->checking) return ETK_OK;
  if (etk_tensor_numel(t) < 1)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "self has no elements");
  if (t->scalar_type == ETK_BOOL)
    set_bool(op->args[1], ((const uint8_t *)t->data)[0] != 0);
  else if (etk_dtype_is_float(t->scalar_type))
    set_double(op->args[1], etk_load_f64(t->scalar_type, t->data, 0));
  else
    set_int(op->args[1], etk_load_i64(t->scalar_type, t->data, 0));
  return ETK_OK;
}

/* et_view.default(Tensor self, int[] size) -> Tensor: out aliases self */
ETK_KERNEL_DEFINE(prim_et_view_default, "executorch_prim::et_view.default") {
  etk_tensor_t *self, *out;
  int64_t size[ETK_MAX_DIMS], known = 1, numel;
  size_t n;
  int infer = -1;
  int rc;
  if ((rc = etk_op_expect_nargs(op, 3))) return rc;
  if ((rc = etk_op_tensor(op, 0, "self", &self))) return rc;
  if (op->args[2]->tag != ETK_VALUE_TENSOR || !op->args[2]->u.tensor)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "argument 2 (out) must be a Tensor");
  out = op->args[2]->u.tensor;
  if (etk_tensor_validate(out) != ETK_OK)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "out has an invalid shape or dim_order");
  if ((rc = etk_op_check_same_dtype(op, self, "self", out, "out"))) return rc;
  if (op->checking) return ETK_OK;
  if ((rc = etk_op_int_list(op, 1, "size", size, ETK_MAX_DIMS, &n))) return rc;
  if (n != (size_t)out->dim)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "size has %zu dims, out has %d", n, (int)out->dim);
  numel = etk_tensor_numel(self);
  for (size_t k = 0; k < n; k++) {
    if (size[k] == -1 && infer < 0)
      infer = (int)k;
    else if (size[k] < 0)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "invalid size %lld",
                         (long long)size[k]);
    else if (etk_checked_mul_i64(known, size[k], &known) != ETK_OK)
      return etk_op_fail(op, ETK_E_OVERFLOW,
                         "size has more elements than int64 can count");
  }
  if (infer >= 0) {
    if (known == 0)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "cannot infer the -1 dim with a zero-sized dim");
    size[infer] = numel / known;
    known *= size[infer];
  }
  if (known != numel)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "view of %lld elements as %lld elements",
                       (long long)numel, (long long)known);
  /* the view owns no memory: it borrows self's bytes */
  out->data = self->data;
  out->capacity_bytes = (size_t)numel * etk_scalar_type_size(self->scalar_type);
  return etk_op_resize(op, out, "out", (int32_t)n, size);
}
