/*
 * binary_ops.c - element-wise arithmetic on two operands: add, sub, rsub,
 * mul, div (true, trunc and floor), floor_divide, maximum, minimum and pow,
 * each * with a tensor or a Scalar as the second operand.
 *
 * Type rules follow PyTorch's out= variants.  The computation category is
 * floating if either operand is floating (a Double scalar counts) or the op
 * is true division; otherwise integer, where bool operands are integers 0/1
 * (so add on bools is `or` and mul is `and` once stored back as bool).  The
 * out tensor may be any basic dtype the category can be cast to: a floating
 * result never goes into an integer or bool tensor, and an integer result
 * never goes into a bool tensor unless both operands were bool.
 *
 * Floating results are computed in double and rounded once to the out
 * dtype; for +, -, *, / of float32 operands this equals float32 arithmetic
 * exactly (double has more than 2p+2 bits).  Integer results use 64-bit
 * two's complement wrap-around and are narrowed on store, as PyTorch does.
 *
 * Layout: the output shape is the broadcast of the operand shapes; one walk
 * over it carries the offsets of out, a and b, with stride 0 on broadcast
 * dims and each tensor's own dim order, so nothing is copied first.
 */
#include "kernel_list.h"
#include "kernel_util.h"

typedef enum binary_kind {
  BINARY_ADD,
  BINARY_SUB,
  BINARY_RSUB, /* other - alpha * self */
  BINARY_MUL,
  BINARY_DIV,
  BINARY_DIV_TRUNC,
  BINARY_DIV_FLOOR,
  BINARY_MAXIMUM,
  BINARY_MINIMUM,
  BINARY_POW
} binary_kind_t;

typedef struct binary_call {
  binary_kind_t kind;
  etk_tensor_t *a;
  etk_tensor_t *b; /* NULL: the second operand is `other` */
  etk_scalar_t other;
  etk_scalar_t alpha;
  etk_tensor_t *out;
  bool is_float; /* computed in double, else in int64 */
} binary_call_t;

/* PyTorch's floor division of floating values: round the exact quotient of
 * (a - fmod(a, b)) / b toward -inf without the error that floor(a / b)
 * makes when a / b rounds up to an integer. */
static double div_floor_f64(double a, double b) {
  double mod, div, floordiv;
  if (b == 0.0) return a / b;
  mod = fmod(a, b);
  div = (a - mod) / b;
  if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) div -= 1.0;
  if (div != 0.0) {
    floordiv = floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = copysign(0.0, a / b);
  }
  return floordiv;
}

static double apply_f64(binary_kind_t kind, double x, double y, double alpha) {
  switch (kind) {
    case BINARY_ADD:
      return x + alpha * y;
    case BINARY_SUB:
      return x - alpha * y;
    case BINARY_RSUB:
      return y - alpha * x;
    case BINARY_MUL:
      return x * y;
    case BINARY_DIV:
      return x / y;
    case BINARY_DIV_TRUNC:
      return trunc(x / y);
    case BINARY_DIV_FLOOR:
      return div_floor_f64(x, y);
    case BINARY_MAXIMUM:
      return (x != x || y != y) ? NAN : (x > y ? x : y);
    case BINARY_MINIMUM:
      return (x != x || y != y) ? NAN : (x < y ? x : y);
    case BINARY_POW:
      return pow(x, y);
  }
  return 0.0;
}

/* Two's complement arithmetic without signed-overflow UB. */
static int64_t wrap_add(int64_t x, int64_t y) {
  return (int64_t)((uint64_t)x + (uint64_t)y);
}
static int64_t wrap_sub(int64_t x, int64_t y) {
  return (int64_t)((uint64_t)x - (uint64_t)y);
}
static int64_t wrap_mul(int64_t x, int64_t y) {
  return (int64_t)((uint64_t)x * (uint64_t)y);
}

/* Returns false on division by zero. */
static bool apply_i64(binary_kind_t kind, int64_t x, int64_t y, int64_t alpha,
                      int64_t *r) {
  switch (kind) {
    case BINARY_ADD:
      *r = wrap_add(x, wrap_mul(alpha, y));
      return true;
    case BINARY_SUB:
      *r = wrap_sub(x, wrap_mul(alpha, y));
      return true;
    case BINARY_RSUB:
      *r = wrap_sub(y, wrap_mul(alpha, x));
      return true;
    case BINARY_MUL:
      *r = wrap_mul(x, y);
      return true;
    case BINARY_MAXIMUM:
      *r = x > y ? x : y;
      return true;
    case BINARY_MINIMUM:
      *r = x < y ? x : y;
      return true;
    case BINARY_DIV_TRUNC:
    case BINARY_DIV_FLOOR: {
      int64_t q;
      if (y == 0) return false;
      if (x == INT64_MIN && y == -1) {
        *r = INT64_MIN;
        return true;
      }
      q = x / y;
      if (kind == BINARY_DIV_FLOOR && (x % y != 0) && ((x < 0) != (y < 0))) q--;
      *r = q;
      return true;
    }
    case BINARY_POW: {
      /* exact repeated squaring with wrap-around; negative exponents are
       * an error for integers (PyTorch refuses them) */
      uint64_t base = (uint64_t)x, acc = 1;
      if (y < 0) return false;
      while (y > 0) {
        if (y & 1) acc *= base;
        base *= base;
        y >>= 1;
      }
      *r = (int64_t)acc;
      return true;
    }
    case BINARY_DIV:
      break; /* always floating */
  }
  *r = 0;
  return true;
}

/* One chunk of the element-wise map: in[0] is self, in[1] other (NULL for
 * a Scalar other).  Stops at an integer division by zero. */
static int64_t binary_chunk(const void *ctx, int64_t n,
                            const etk_map_row_t *const *in,
                            etk_map_row_t *out) {
  const binary_call_t *c = ctx;
  for (int64_t j = 0; j < n; j++) {
    if (c->is_float) {
      double y = in[1] ? in[1]->f[j] : c->other.d;
      out->f[j] = apply_f64(c->kind, in[0]->f[j], y, c->alpha.d);
    } else {
      int64_t y = in[1] ? in[1]->i[j] : c->other.i;
      if (!apply_i64(c->kind, in[0]->i[j], y, c->alpha.i, &out->i[j])) return j;
    }
  }
  return n;
}

static const char *kind_verb(binary_kind_t kind) {
  if (kind == BINARY_POW) return "power";
  return kind == BINARY_SUB || kind == BINARY_RSUB ? "subtraction"
                                                   : "division with rounding";
}

static int binary_run(etk_op_t *op, binary_call_t *c) {
  int rc;
  bool b_float =
      c->b ? etk_dtype_is_float(c->b->scalar_type) : c->other.is_float;
  bool b_bool = c->b ? c->b->scalar_type == ETK_BOOL : c->other.is_bool;
  bool all_bool;
  int out_dt = c->out->scalar_type;

  if ((rc = etk_op_check_dtype(op, c->a, "self", ETK_DTYPES_BASIC))) return rc;
  if (c->b && (rc = etk_op_check_dtype(op, c->b, "other", ETK_DTYPES_BASIC)))
    return rc;
  if ((rc = etk_op_check_dtype(op, c->out, "out", ETK_DTYPES_BASIC))) return rc;

  c->is_float =
      etk_dtype_is_float(c->a->scalar_type) || b_float || c->kind == BINARY_DIV;
  all_bool = !c->is_float && c->a->scalar_type == ETK_BOOL && b_bool;
  if (all_bool && (c->kind == BINARY_SUB || c->kind == BINARY_RSUB ||
                   c->kind == BINARY_DIV_TRUNC || c->kind == BINARY_DIV_FLOOR ||
                   c->kind == BINARY_POW))
    return etk_op_fail(op, ETK_E_UNSUPPORTED,
                       "%s of bool tensors is not supported",
                       kind_verb(c->kind));
  if (c->is_float && !etk_dtype_is_float(out_dt))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "floating result can't be cast to out dtype %s",
                       etk_scalar_type_name(out_dt));
  if (!c->is_float && !all_bool && out_dt == ETK_BOOL)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "integer result can't be cast to out dtype BOOL");
  if (!c->is_float && c->alpha.is_float)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "alpha must be an integer for integer inputs");
  if (op->checking) return ETK_OK;

  {
    int64_t asz[ETK_MAX_DIMS], bsz[ETK_MAX_DIMS], osz[ETK_MAX_DIMS];
    int64_t strides[3][ETK_MAX_DIMS];
    int32_t odim;
    etk_view_t va, vb, vo;
    const etk_view_t *views[3] = {&vo, &va, c->b ? &vb : NULL};
    etk_walk_t w;
    etk_tensor_sizes64(c->a, asz);
    if (c->b) {
      etk_tensor_sizes64(c->b, bsz);
      rc = etk_op_broadcast_shape(op, c->a->dim, asz, c->b->dim, bsz, &odim,
                                  osz);
      if (rc) return rc;
    } else {
      odim = c->a->dim;
      memcpy(osz, asz, sizeof osz);
    }
    if ((rc = etk_op_resize(op, c->out, "out", odim, osz))) return rc;

    etk_view_init(&va, c->a);
    etk_view_init(&vo, c->out);
    memcpy(strides[0], vo.strides, sizeof strides[0]);
    etk_view_broadcast_strides(&va, odim, osz, strides[1]);
    if (c->b) {
      etk_view_init(&vb, c->b);
      etk_view_broadcast_strides(&vb, odim, osz, strides[2]);
    } else {
      memset(strides[2], 0, sizeof strides[2]);
    }
    etk_walk_init(&w, odim, osz, 3, strides, NULL);
    if (!etk_map_run(&w, views, 2, c->is_float, binary_chunk, c))
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         c->kind == BINARY_POW
                             ? "integers to negative integer powers"
                             : "integer division by zero");
  }
  return ETK_OK;
}

static void scalar_one(etk_scalar_t *s) {
  memset(s, 0, sizeof *s);
  s->d = 1.0;
  s->i = 1;
}

/* Reads [self, other(Tensor or Scalar), (alpha), ..., out] into `c`.
 * `alpha_at` and `mode_at` are argument positions or 0 when absent. */
static int binary_read(etk_op_t *op, binary_call_t *c, bool tensor_other,
                       size_t alpha_at, size_t mode_at, size_t out_at) {
  int rc;
  memset(c, 0, sizeof *c);
  if ((rc = etk_op_expect_nargs(op, out_at + 2))) return rc;
  if ((rc = etk_op_tensor(op, 0, "self", &c->a))) return rc;
  if (tensor_other) {
    if ((rc = etk_op_tensor(op, 1, "other", &c->b))) return rc;
  } else if ((rc = etk_op_scalar(op, 1, "other", &c->other))) {
    return rc;
  }
  scalar_one(&c->alpha);
  if (alpha_at && (rc = etk_op_scalar(op, alpha_at, "alpha", &c->alpha)))
    return rc;
  if (mode_at) {
    const char *mode;
    size_t len;
    if ((rc = etk_op_string_opt(op, mode_at, "rounding_mode", &mode, &len)))
      return rc;
    if (!mode) {
      c->kind = BINARY_DIV;
    } else if (len == 5 && memcmp(mode, "trunc", 5) == 0) {
      c->kind = BINARY_DIV_TRUNC;
    } else if (len == 5 && memcmp(mode, "floor", 5) == 0) {
      c->kind = BINARY_DIV_FLOOR;
    } else {
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "rounding_mode must be None, 'trunc' or 'floor', "
                         "got '%.*s'",
                         (int)(len > 32 ? 32 : len), mode);
    }
  }
  return etk_op_tensor(op, out_at, "out", &c->out);
}

#define BINARY_KERNEL(ident, opname, kind_, tensor_other, alpha_at, mode_at, \
                      out_at)                                                \
  ETK_KERNEL_DEFINE(ident, opname) {                                         \
    binary_call_t c;                                                         \
    int rc = binary_read(op, &c, tensor_other, alpha_at, mode_at, out_at);   \
    if (rc) return rc;                                                       \
    if (!(mode_at)) c.kind = kind_;                                          \
    return binary_run(op, &c);                                               \
  }

/* add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) */
BINARY_KERNEL(add_out, "aten::add.out", BINARY_ADD, true, 2, 0, 3)
/* add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, out) */
BINARY_KERNEL(add_scalar_out, "aten::add.Scalar_out", BINARY_ADD, false, 2, 0,
              3)
BINARY_KERNEL(sub_out, "aten::sub.out", BINARY_SUB, true, 2, 0, 3)
BINARY_KERNEL(sub_scalar_out, "aten::sub.Scalar_out", BINARY_SUB, false, 2, 0,
              3)
/* rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, out) */
BINARY_KERNEL(rsub_scalar_out, "aten::rsub.Scalar_out", BINARY_RSUB, false, 2,
              0, 3)
/* mul.out(Tensor self, Tensor other, *, Tensor(a!) out) */
BINARY_KERNEL(mul_out, "aten::mul.out", BINARY_MUL, true, 0, 0, 2)
BINARY_KERNEL(mul_scalar_out, "aten::mul.Scalar_out", BINARY_MUL, false, 0, 0,
              2)
BINARY_KERNEL(div_out, "aten::div.out", BINARY_DIV, true, 0, 0, 2)
BINARY_KERNEL(div_scalar_out, "aten::div.Scalar_out", BINARY_DIV, false, 0, 0,
              2)
/* div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, out) */
BINARY_KERNEL(div_out_mode, "aten::div.out_mode", BINARY_DIV, true, 0, 2, 3)
BINARY_KERNEL(div_scalar_mode_out, "aten::div.Scalar_mode_out", BINARY_DIV,
              false, 0, 2, 3)
BINARY_KERNEL(floor_divide_out, "aten::floor_divide.out", BINARY_DIV_FLOOR,
              true, 0, 0, 2)
BINARY_KERNEL(maximum_out, "aten::maximum.out", BINARY_MAXIMUM, true, 0, 0, 2)
BINARY_KERNEL(minimum_out, "aten::minimum.out", BINARY_MINIMUM, true, 0, 0, 2)
/* pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, out) */
BINARY_KERNEL(pow_tensor_tensor_out, "aten::pow.Tensor_Tensor_out", BINARY_POW,
              true, 0, 0, 2)
/* pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, out) */
BINARY_KERNEL(pow_tensor_scalar_out, "aten::pow.Tensor_Scalar_out", BINARY_POW,
              false, 0, 0, 2)
