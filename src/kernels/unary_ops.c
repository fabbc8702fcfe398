/*
 * unary_ops.c - one-operand element-wise kernels: the activations (relu,
 * sigmoid, tanh, gelu, hardtanh, clamp, leaky_relu, hardswish, silu) and
 * the plain math
 * functions (exp, log, sqrt, rsqrt, neg, abs).
 *
 * Two families, by PyTorch's type rules:
 *   - transcendental ops produce floating results: integer and bool inputs
 *     are promoted (sigmoid of a LONG tensor writes a FLOAT tensor) and the
 *     out tensor must be floating.  gelu and leaky_relu accept only floating
 *     inputs, as in PyTorch;
 *   - relu, neg, abs, hardtanh and clamp keep the input's dtype (out must
 *     match it), computing integers exactly in 64 bits.  clamp follows
 *     promotion instead: a Double bound on an integer tensor gives a
 *     floating result.
 *
 * NaN propagates through relu, hardtanh and clamp (they are clamps, and
 * PyTorch's clamps keep NaN).  Values are computed in double and rounded
 * once into the out dtype.  The walk over in/out uses each tensor's own
 * strides, so any dim order works and out keeps its own.
 */
#include "kernel_list.h"
#include "kernel_util.h"

typedef enum unary_kind {
  UNARY_RELU,
  UNARY_SIGMOID,
  UNARY_TANH,
  UNARY_GELU,
  UNARY_GELU_TANH,
  UNARY_CLAMP, /* lo/hi with has_lo/has_hi; also hardtanh */
  UNARY_LEAKY_RELU,
  UNARY_EXP,
  UNARY_LOG,
  UNARY_SQRT,
  UNARY_RSQRT,
  UNARY_NEG,
  UNARY_ABS,
  UNARY_HARDSWISH,
  UNARY_SILU
} unary_kind_t;

typedef struct unary_call {
  unary_kind_t kind;
  etk_scalar_t lo, hi; /* clamp bounds; lo.d is the slope of leaky_relu */
  bool has_lo, has_hi;
  bool is_float; /* computed in double, else in int64 */
} unary_call_t;

static double gelu_exact(double x) {
  return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
}

static double gelu_tanh(double x) {
  const double k = 0.79788456080286535588; /* sqrt(2 / pi) */
  return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}

static double apply_f64(const unary_call_t *c, double x) {
  switch (c->kind) {
    case UNARY_RELU:
      return (x != x || x > 0.0) ? x : 0.0;
    case UNARY_SIGMOID:
      return 1.0 / (1.0 + exp(-x));
    case UNARY_TANH:
      return tanh(x);
    case UNARY_GELU:
      return gelu_exact(x);
    case UNARY_GELU_TANH:
      return gelu_tanh(x);
    case UNARY_CLAMP:
      if (x != x) return x;
      if (c->has_lo && x < c->lo.d) x = c->lo.d;
      if (c->has_hi && x > c->hi.d) x = c->hi.d;
      return x;
    case UNARY_LEAKY_RELU:
      return x > 0.0 ? x : x * c->lo.d;
    case UNARY_EXP:
      return exp(x);
    case UNARY_LOG:
      return log(x);
    case UNARY_SQRT:
      return sqrt(x);
    case UNARY_RSQRT:
      return 1.0 / sqrt(x);
    case UNARY_NEG:
      return -x;
    case UNARY_ABS:
      return fabs(x);
    case UNARY_HARDSWISH: {
      double r6 = x + 3.0;
      if (r6 != r6) return r6;
      r6 = r6 < 0.0 ? 0.0 : (r6 > 6.0 ? 6.0 : r6);
      return x * r6 / 6.0;
    }
    case UNARY_SILU:
      return x / (1.0 + exp(-x));
  }
  return 0.0;
}

static int64_t apply_i64(const unary_call_t *c, int64_t x) {
  switch (c->kind) {
    case UNARY_RELU:
      return x > 0 ? x : 0;
    case UNARY_CLAMP:
      if (c->has_lo && x < c->lo.i) x = c->lo.i;
      if (c->has_hi && x > c->hi.i) x = c->hi.i;
      return x;
    case UNARY_NEG:
      return (int64_t)(0u - (uint64_t)x);
    case UNARY_ABS:
      return x < 0 ? (int64_t)(0u - (uint64_t)x) : x;
    default:
      return x; /* floating-only kinds never reach here */
  }
}

static bool kind_is_transcendental(unary_kind_t k) {
  return k == UNARY_SIGMOID || k == UNARY_TANH || k == UNARY_GELU ||
         k == UNARY_GELU_TANH || k == UNARY_LEAKY_RELU || k == UNARY_EXP ||
         k == UNARY_LOG || k == UNARY_SQRT || k == UNARY_RSQRT ||
         k == UNARY_HARDSWISH || k == UNARY_SILU;
}

/* The kinds PyTorch defines for floating inputs only. */
static bool kind_is_float_only(unary_kind_t k) {
  return k == UNARY_GELU || k == UNARY_GELU_TANH || k == UNARY_LEAKY_RELU ||
         k == UNARY_HARDSWISH || k == UNARY_SILU;
}

/* One chunk of the element-wise map (never stops early). */
static int64_t unary_chunk(const void *ctx, int64_t n,
                           const etk_map_row_t *const *in, etk_map_row_t *out) {
  const unary_call_t *c = ctx;
  for (int64_t j = 0; j < n; j++) {
    if (c->is_float)
      out->f[j] = apply_f64(c, in[0]->f[j]);
    else
      out->i[j] = apply_i64(c, in[0]->i[j]);
  }
  return n;
}

/* args: self at 0, out at out_at. */
static int unary_run(etk_op_t *op, unary_call_t *c, size_t out_at) {
  etk_tensor_t *in, *out;
  int rc;
  if ((rc = etk_op_tensor(op, 0, "self", &in))) return rc;
  if ((rc = etk_op_tensor(op, out_at, "out", &out))) return rc;
  if (kind_is_float_only(c->kind)) {
    if ((rc = etk_op_check_dtype(
             op, in, "self",
             ETK_DTYPE_BIT(ETK_FLOAT) | ETK_DTYPE_BIT(ETK_DOUBLE))))
      return rc;
  } else {
    uint32_t allowed = ETK_DTYPES_BASIC;
    /* bool inputs only for the promoting ops (PyTorch rejects neg of bool) */
    if (!kind_is_transcendental(c->kind)) allowed = ETK_DTYPES_REAL;
    if ((rc = etk_op_check_dtype(op, in, "self", allowed))) return rc;
  }
  if ((rc = etk_op_check_dtype(op, out, "out", ETK_DTYPES_REAL))) return rc;

  c->is_float =
      etk_dtype_is_float(in->scalar_type) || kind_is_transcendental(c->kind) ||
      (c->kind == UNARY_CLAMP &&
       ((c->has_lo && c->lo.is_float) || (c->has_hi && c->hi.is_float)));
  if (c->is_float && !etk_dtype_is_float(out->scalar_type))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "floating result can't be cast to out dtype %s",
                       etk_scalar_type_name(out->scalar_type));
  if (!kind_is_transcendental(c->kind) && c->kind != UNARY_CLAMP &&
      (rc = etk_op_check_same_dtype(op, in, "self", out, "out")))
    return rc;
  if (op->checking) return ETK_OK;

  if ((rc = etk_op_resize_like(op, out, "out", in))) return rc;
  {
    etk_view_t vi, vo;
    const etk_view_t *views[2] = {&vo, &vi};
    etk_walk_t w;
    etk_view_init(&vi, in);
    etk_view_init(&vo, out);
    etk_walk_init_views(&w, 2, views, -1);
    etk_map_run(&w, views, 1, c->is_float, unary_chunk, c);
  }
  return ETK_OK;
}

/* Starts a call of `kind` with no bounds; checks the argument count. */
static int unary_begin(etk_op_t *op, unary_call_t *c, unary_kind_t kind,
                       size_t nargs) {
  memset(c, 0, sizeof *c);
  c->kind = kind;
  return etk_op_expect_nargs(op, nargs);
}

static int unary_simple(etk_op_t *op, unary_kind_t kind) {
  unary_call_t c;
  int rc;
  if ((rc = unary_begin(op, &c, kind, 3))) return rc;
  return unary_run(op, &c, 1);
}

/* relu.out(Tensor self, *, Tensor(a!) out) and its one-argument siblings */
ETK_KERNEL_DEFINE(relu_out, "aten::relu.out") {
  return unary_simple(op, UNARY_RELU);
}
ETK_KERNEL_DEFINE(sigmoid_out, "aten::sigmoid.out") {
  return unary_simple(op, UNARY_SIGMOID);
}
ETK_KERNEL_DEFINE(tanh_out, "aten::tanh.out") {
  return unary_simple(op, UNARY_TANH);
}
ETK_KERNEL_DEFINE(exp_out, "aten::exp.out") {
  return unary_simple(op, UNARY_EXP);
}
ETK_KERNEL_DEFINE(log_out, "aten::log.out") {
  return unary_simple(op, UNARY_LOG);
}
ETK_KERNEL_DEFINE(sqrt_out, "aten::sqrt.out") {
  return unary_simple(op, UNARY_SQRT);
}
ETK_KERNEL_DEFINE(rsqrt_out, "aten::rsqrt.out") {
  return unary_simple(op, UNARY_RSQRT);
}
ETK_KERNEL_DEFINE(neg_out, "aten::neg.out") {
  return unary_simple(op, UNARY_NEG);
}
ETK_KERNEL_DEFINE(abs_out, "aten::abs.out") {
  return unary_simple(op, UNARY_ABS);
}
/* hardswish.out(Tensor self, *, out): x * relu6(x + 3) / 6 */
ETK_KERNEL_DEFINE(hardswish_out, "aten::hardswish.out") {
  return unary_simple(op, UNARY_HARDSWISH);
}
/* silu.out(Tensor self, *, out): x * sigmoid(x) */
ETK_KERNEL_DEFINE(silu_out, "aten::silu.out") {
  return unary_simple(op, UNARY_SILU);
}

/* gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) */
ETK_KERNEL_DEFINE(gelu_out, "aten::gelu.out") {
  unary_call_t c;
  const char *mode;
  size_t len;
  int rc;
  if ((rc = unary_begin(op, &c, UNARY_GELU, 4))) return rc;
  if ((rc = etk_op_string_opt(op, 1, "approximate", &mode, &len))) return rc;
  if (!mode || (len == 4 && memcmp(mode, "none", 4) == 0))
    c.kind = UNARY_GELU;
  else if (len == 4 && memcmp(mode, "tanh", 4) == 0)
    c.kind = UNARY_GELU_TANH;
  else
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "approximate must be 'none' or 'tanh', got '%.*s'",
                       (int)(len > 32 ? 32 : len), mode);
  return unary_run(op, &c, 2);
}

/* hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, out) */
ETK_KERNEL_DEFINE(hardtanh_out, "aten::hardtanh.out") {
  unary_call_t c;
  int rc;
  if ((rc = unary_begin(op, &c, UNARY_CLAMP, 5))) return rc;
  c.has_lo = c.has_hi = true;
  if ((rc = etk_op_scalar(op, 1, "min_val", &c.lo))) return rc;
  if ((rc = etk_op_scalar(op, 2, "max_val", &c.hi))) return rc;
  /* hardtanh keeps the input dtype even with Double bounds */
  if (op->args[0]->tag == ETK_VALUE_TENSOR && op->args[0]->u.tensor &&
      !etk_dtype_is_float(op->args[0]->u.tensor->scalar_type)) {
    if (c.lo.is_float || c.hi.is_float)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "floating bounds on an integer tensor");
  }
  return unary_run(op, &c, 3);
}

/* clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, out) */
ETK_KERNEL_DEFINE(clamp_out, "aten::clamp.out") {
  unary_call_t c;
  int rc;
  if ((rc = unary_begin(op, &c, UNARY_CLAMP, 5))) return rc;
  if ((rc = etk_op_scalar_opt(op, 1, "min", &c.lo, &c.has_lo))) return rc;
  if ((rc = etk_op_scalar_opt(op, 2, "max", &c.hi, &c.has_hi))) return rc;
  if (!c.has_lo && !c.has_hi)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "at least one of min and max must not be None");
  return unary_run(op, &c, 3);
}

/* leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, out) */
ETK_KERNEL_DEFINE(leaky_relu_out, "aten::leaky_relu.out") {
  unary_call_t c;
  int rc;
  if ((rc = unary_begin(op, &c, UNARY_LEAKY_RELU, 4))) return rc;
  if ((rc = etk_op_scalar(op, 1, "negative_slope", &c.lo))) return rc;
  return unary_run(op, &c, 2);
}
