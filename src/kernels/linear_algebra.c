/*
 * linear_algebra.c - matrix products: mm.out, bmm.out, addmm.out and
 * linear.out, in float32.
 *
 * All four reduce to one strided core, C[i][j] = alpha * sum_k A[i][k] B[k][j]
 * + beta * D[i][j], where D is an optional addend read with its own
 * (possibly zero, i.e. broadcast) strides.  Each operand carries a row and a
 * column stride in elements, derived from its dim order, so transposed or
 * channels-last operands need no copy.  Dot products accumulate in double,
 * except in the two layouts of contiguous rows, which accumulate in float
 * like PyTorch's CPU kernels (results differ in the last bits): A and B
 * both contiguous along k (linear's input @ weight^T: eight partial sums
 * per dot product, which the compiler vectorises), and B and C contiguous
 * along columns (mm, bmm: C's row accumulates A[i][t] * B's row t).
 *
 * linear(input [.., in], weight [out_f, in], bias [out_f]) is
 * input @ weight^T + bias, so weight is read with its strides swapped; the
 * leading dims of input are flattened into rows, which is valid for any dim
 * order because each row is addressed by its own multi-index.
 *
 * addmm follows PyTorch: when beta is 0 the addend is not read at all, so
 * NaN or inf in `self` does not leak into the result.
 */
#include "kernel_list.h"
#include "kernel_util.h"

typedef struct matmul_desc {
  int64_t n, k, p;
  const float *a;
  int64_t a_row, a_col;
  const float *b;
  int64_t b_row, b_col;
  float *c;
  int64_t c_row, c_col;
  const float *d;
  int64_t d_row, d_col; /* NULL: no addend */
  double alpha, beta;
} matmul_desc_t;

/* alpha * acc + beta * D[i][j] into C[i][j]. */
static void matmul_store(const matmul_desc_t *m, int64_t i, int64_t j,
                         double acc) {
  double v = m->alpha * acc;
  if (m->d && m->beta != 0.0) v += m->beta * m->d[i * m->d_row + j * m->d_col];
  m->c[i * m->c_row + j * m->c_col] = (float)v;
}

/* Dot products of rows contiguous along k (a_col == b_row == 1). */
static void matmul_dots(const matmul_desc_t *m) {
  for (int64_t i = 0; i < m->n; i++)
    for (int64_t j = 0; j < m->p; j++) {
      const float *ar = m->a + i * m->a_row, *bc = m->b + j * m->b_col;
      float part[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sum = 0.0f;
      int64_t t = 0;
      for (; t + 8 <= m->k; t += 8)
        for (int l = 0; l < 8; l++) part[l] += ar[t + l] * bc[t + l];
      for (; t < m->k; t++) sum += ar[t] * bc[t];
      for (int l = 0; l < 8; l++) sum += part[l];
      matmul_store(m, i, j, sum);
    }
}

/* Rows of C accumulated from rows of B (b_col == c_col == 1). */
static void matmul_rows(const matmul_desc_t *m) {
  for (int64_t i = 0; i < m->n; i++) {
    float *cr = m->c + i * m->c_row;
    for (int64_t j = 0; j < m->p; j++) cr[j] = 0.0f;
    for (int64_t t = 0; t < m->k; t++) {
      float a = m->a[i * m->a_row + t * m->a_col];
      const float *br = m->b + t * m->b_row;
      for (int64_t j = 0; j < m->p; j++) cr[j] += a * br[j];
    }
    for (int64_t j = 0; j < m->p; j++) matmul_store(m, i, j, cr[j]);
  }
}

static void matmul_run(const matmul_desc_t *m) {
  if (m->k > 0 && m->a_col == 1 && m->b_row == 1) {
    matmul_dots(m);
    return;
  }
  /* C is written before D is read: only when D is not C's memory */
  if (m->k > 0 && m->b_col == 1 && m->c_col == 1 &&
      (!m->d || m->beta == 0.0 || m->d != m->c)) {
    matmul_rows(m);
    return;
  }
  for (int64_t i = 0; i < m->n; i++)
    for (int64_t j = 0; j < m->p; j++) {
      double acc = 0.0, v;
      /* with k == 0 the operands may have no data at all */
      if (m->k > 0) {
        const float *ar = m->a + i * m->a_row;
        const float *bc = m->b + j * m->b_col;
        for (int64_t t = 0; t < m->k; t++)
          acc += (double)ar[t * m->a_col] * bc[t * m->b_row];
      }
      v = m->alpha * acc;
      if (m->d && m->beta != 0.0)
        v += m->beta * m->d[i * m->d_row + j * m->d_col];
      m->c[i * m->c_row + j * m->c_col] = (float)v;
    }
}

static int check_float(etk_op_t *op, etk_tensor_t *t, const char *what) {
  return etk_op_check_dtype(op, t, what, ETK_DTYPES_FLOAT);
}

static int need_dim(etk_op_t *op, const etk_tensor_t *t, const char *what,
                    int32_t dim) {
  if (t->dim == dim) return ETK_OK;
  return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "%s must be %d-D, got %d-D",
                     what, (int)dim, (int)t->dim);
}

static int inner_mismatch(etk_op_t *op, int64_t a, int64_t b) {
  return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                     "inner dimensions differ (%lld vs %lld)", (long long)a,
                     (long long)b);
}

/* The arguments of mm and bmm, (self, mat2, *, out): all floating, and
 * self and mat2 `dim`-D once past the checking pass.  Returns ETK_OK early
 * when op->checking is set, so callers test it again. */
static int read_mat_pair(etk_op_t *op, int32_t dim, etk_tensor_t **a,
                         etk_tensor_t **b, etk_tensor_t **out) {
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_TENSOR("self", a),
      ETK_ARG_TENSOR("mat2", b),
      ETK_ARG_TENSOR("out", out),
  };
  if ((rc = etk_op_read_args(op, 4, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = check_float(op, *a, "self")) ||
      (rc = check_float(op, *b, "mat2")) || (rc = check_float(op, *out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = need_dim(op, *a, "self", dim)) ||
      (rc = need_dim(op, *b, "mat2", dim)))
    return rc;
  return ETK_OK;
}

/* A plain product (alpha 1, no addend) of the matrices that dims `row` and
 * row + 1 of a, b and out form; v[0..2] receive the views of a, b and out
 * (bmm moves the product's a, b and c per batch afterwards). */
static void matmul_bind(matmul_desc_t *m, const etk_tensor_t *a,
                        const etk_tensor_t *b, const etk_tensor_t *out,
                        int32_t row, etk_view_t *v) {
  etk_view_init(&v[0], a);
  etk_view_init(&v[1], b);
  etk_view_init(&v[2], out);
  memset(m, 0, sizeof *m);
  m->n = v[0].sizes[row];
  m->k = v[0].sizes[row + 1];
  m->p = v[1].sizes[row + 1];
  m->a = v[0].data;
  m->a_row = v[0].strides[row];
  m->a_col = v[0].strides[row + 1];
  m->b = v[1].data;
  m->b_row = v[1].strides[row];
  m->b_col = v[1].strides[row + 1];
  m->c = v[2].data;
  m->c_row = v[2].strides[row];
  m->c_col = v[2].strides[row + 1];
  m->alpha = 1.0;
}

/* mm.out and bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): one
 * product of 2-D matrices, or (batched) one per index of dim 0 of 3-D
 * tensors. */
static int mm_or_bmm(etk_op_t *op, bool batched) {
  etk_tensor_t *a, *b, *out;
  etk_view_t v[3]; /* a, b, out */
  matmul_desc_t m;
  int32_t row = batched ? 1 : 0; /* the dim of the matrix rows */
  int rc;
  if ((rc = read_mat_pair(op, row + 2, &a, &b, &out)) || op->checking)
    return rc;
  if (batched && a->sizes[0] != b->sizes[0])
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "batch sizes differ (%d vs %d)", (int)a->sizes[0],
                       (int)b->sizes[0]);
  if (a->sizes[row + 1] != b->sizes[row])
    return inner_mismatch(op, a->sizes[row + 1], b->sizes[row]);
  {
    /* [batch, n, p], of which mm uses [n, p] */
    int64_t osz[3] = {a->sizes[0], a->sizes[row], b->sizes[row + 1]};
    if ((rc = etk_op_resize(op, out, "out", row + 2, osz + 1 - row))) return rc;
  }
  matmul_bind(&m, a, b, out, row, v);
  if (!batched) {
    matmul_run(&m);
    return ETK_OK;
  }
  for (int64_t bi = 0; bi < a->sizes[0]; bi++) {
    m.a = v[0].data ? (const float *)v[0].data + bi * v[0].strides[0] : NULL;
    m.b = v[1].data ? (const float *)v[1].data + bi * v[1].strides[0] : NULL;
    m.c = (float *)v[2].data + bi * v[2].strides[0];
    matmul_run(&m);
  }
  return ETK_OK;
}

ETK_KERNEL_DEFINE(mm_out, "aten::mm.out") {
  return mm_or_bmm(op, false);
}
ETK_KERNEL_DEFINE(bmm_out, "aten::bmm.out") {
  return mm_or_bmm(op, true);
}

/* addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1,
 *   Scalar alpha=1, Tensor(a!) out) */
ETK_KERNEL_DEFINE(addmm_out, "aten::addmm.out") {
  etk_tensor_t *d, *a, *b, *out;
  etk_scalar_t beta, alpha;
  etk_view_t vd, v[3];
  matmul_desc_t m;
  int64_t osz[2], dsz[ETK_MAX_DIMS], bsz[2], dstr[2];
  int32_t bdim;
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_TENSOR("self", &d),      ETK_ARG_TENSOR("mat1", &a),
      ETK_ARG_TENSOR("mat2", &b),      ETK_ARG_SCALAR("beta", &beta),
      ETK_ARG_SCALAR("alpha", &alpha), ETK_ARG_TENSOR("out", &out),
  };
  if ((rc = etk_op_read_args(op, 7, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = check_float(op, d, "self")) || (rc = check_float(op, a, "mat1")) ||
      (rc = check_float(op, b, "mat2")) || (rc = check_float(op, out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = need_dim(op, a, "mat1", 2)) || (rc = need_dim(op, b, "mat2", 2)))
    return rc;
  if (d->dim > 2)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "self must have at most 2 dims, got %d", (int)d->dim);
  if (a->sizes[1] != b->sizes[0])
    return inner_mismatch(op, a->sizes[1], b->sizes[0]);
  osz[0] = a->sizes[0];
  osz[1] = b->sizes[1];
  etk_tensor_sizes64(d, dsz);
  /* self must broadcast to [n, p] without changing it */
  if ((rc = etk_op_broadcast_shape(op, d->dim, dsz, 2, osz, &bdim, bsz)))
    return rc;
  if (bsz[0] != osz[0] || bsz[1] != osz[1])
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "self does not broadcast to the product's shape");
  if ((rc = etk_op_resize(op, out, "out", 2, osz))) return rc;
  etk_view_init(&vd, d);
  etk_view_broadcast_strides(&vd, 2, osz, dstr);
  matmul_bind(&m, a, b, out, 0, v);
  m.d = vd.data;
  m.d_row = dstr[0];
  m.d_col = dstr[1];
  m.alpha = alpha.d;
  m.beta = beta.d;
  matmul_run(&m);
  return ETK_OK;
}

/* linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, out) */
ETK_KERNEL_DEFINE(linear_out, "aten::linear.out") {
  etk_tensor_t *in, *wt, *bias, *out;
  etk_view_t vi, vw, vo, vb;
  matmul_desc_t m;
  int64_t osz[ETK_MAX_DIMS], in_f, out_f, rows;
  int rc;
  const etk_arg_t args[] = {
      ETK_ARG_TENSOR("input", &in),
      ETK_ARG_TENSOR("weight", &wt),
      ETK_ARG_TENSOR_OPT("bias", &bias),
      ETK_ARG_TENSOR("out", &out),
  };
  if ((rc = etk_op_read_args(op, 5, args, ETK_ARG_COUNT(args)))) return rc;
  if ((rc = check_float(op, in, "input")) ||
      (rc = check_float(op, wt, "weight")) ||
      (bias && (rc = check_float(op, bias, "bias"))) ||
      (rc = check_float(op, out, "out")))
    return rc;
  if (op->checking) return ETK_OK;
  if ((rc = need_dim(op, wt, "weight", 2))) return rc;
  if (in->dim < 1)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "input must have at least 1 dim");
  in_f = wt->sizes[1];
  out_f = wt->sizes[0];
  if (in->sizes[in->dim - 1] != in_f)
    return inner_mismatch(op, in->sizes[in->dim - 1], in_f);
  if (bias && !(bias->dim == 1 && bias->sizes[0] == out_f) &&
      !(bias->dim == 0 || (bias->dim == 1 && bias->sizes[0] == 1)))
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "bias must have %lld elements", (long long)out_f);
  etk_tensor_sizes64(in, osz);
  osz[in->dim - 1] = out_f;
  if ((rc = etk_op_resize(op, out, "out", in->dim, osz))) return rc;
  etk_view_init(&vi, in);
  etk_view_init(&vw, wt);
  etk_view_init(&vo, out);
  memset(&m, 0, sizeof m);
  m.n = 1;
  m.k = in_f;
  m.p = out_f;
  m.a_row = 0;
  m.a_col = vi.strides[in->dim - 1];
  m.b = vw.data;
  m.b_row = vw.strides[1];
  m.b_col = vw.strides[0];
  m.c_row = 0;
  m.c_col = vo.strides[in->dim - 1];
  if (bias) {
    etk_view_init(&vb, bias);
    m.d = vb.data;
    m.d_col = bias->dim == 1 && bias->sizes[0] == out_f ? vb.strides[0] : 0;
  }
  m.alpha = 1.0;
  m.beta = 1.0;
  /* one row per multi-index of the leading dims */
  rows = etk_sizes_numel(in->dim - 1, osz);
  {
    int64_t idx[ETK_MAX_DIMS] = {0};
    for (int64_t r = 0; r < rows; r++) {
      int64_t ioff = 0, ooff = 0;
      for (int32_t dd = 0; dd < in->dim - 1; dd++) {
        ioff += idx[dd] * vi.strides[dd];
        ooff += idx[dd] * vo.strides[dd];
      }
      m.a = vi.data ? (const float *)vi.data + ioff : NULL;
      m.c = (float *)vo.data + ooff;
      matmul_run(&m);
      for (int32_t dd = in->dim - 2; dd >= 0; dd--) {
        if (++idx[dd] < osz[dd]) break;
        idx[dd] = 0;
      }
    }
  }
  return ETK_OK;
}
