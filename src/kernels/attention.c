/*
 * attention.c - scaled dot-product attention as one kernel:
 * etkit's out form of aten::scaled_dot_product_attention,
 *
 *   scaled_dot_product_attention.out(Tensor query, Tensor key,
 *     Tensor value, Tensor? attn_mask=None, float dropout_p=0.0,
 *     bool is_causal=False, float? scale=None, *, Tensor(a!) out)
 *
 * (ExecuTorch has no such out variant: exported programs carry the
 * decomposition - bmm, mul, softmax - which runs on those kernels; the
 * interpreter maps the ATen op onto this entry.)  PyTorch's math
 * definition: with q (..., L, E), k (..., S, E), v (..., S, Ev),
 *   s = q @ k^T * scale  (scale defaults to 1/sqrt(E)),
 *   causal: s[i][j] = -inf for j > i;  mask: bool (false = -inf) or added,
 *   out = softmax(s, -1) @ v.
 * Leading ("batch") dims of q, k, v and the mask broadcast.  dropout_p must
 * be 0 (a reference run never drops).
 *
 * No heap: each output row is computed in three passes over the keys
 * (row maximum, sum of exponentials, weighted sum of values), recomputing
 * the dot products instead of storing the score row, in double.  Every
 * tensor must be FLOAT and use the default dim order.
 */
#include "kernel_list.h"
#include "kernel_util.h"

typedef struct sdpa {
  const float *q, *k, *v, *mask;
  float *out;
  int32_t mask_dtype;
  int64_t l, s, e, ev;
  double scale;
  bool causal;
  /* per batch: element offsets of q, k, v, mask and out */
  int64_t qo, ko, vo, mo, oo;
  int64_t mask_row, mask_col; /* mask strides (0 when broadcast) */
} sdpa_t;

/* The score of query row i and key j, or -inf when masked. */
static double sdpa_score(const sdpa_t *p, int64_t i, int64_t j) {
  const float *qr = p->q + p->qo + i * p->e;
  const float *kr = p->k + p->ko + j * p->e;
  double s = 0.0;
  if (p->causal && j > i) return -INFINITY;
  for (int64_t t = 0; t < p->e; t++) s += (double)qr[t] * (double)kr[t];
  s *= p->scale;
  if (p->mask) {
    int64_t at = p->mo + i * p->mask_row + j * p->mask_col;
    if (p->mask_dtype == ETK_BOOL) {
      if (!((const uint8_t *)p->mask)[at]) return -INFINITY;
    } else {
      s += p->mask[at];
    }
  }
  return s;
}

static void sdpa_batch(const sdpa_t *p) {
  for (int64_t i = 0; i < p->l; i++) {
    double mx = -INFINITY, sum = 0.0;
    float *orow = p->out + p->oo + i * p->ev;
    for (int64_t j = 0; j < p->s; j++) {
      double s = sdpa_score(p, i, j);
      if (s > mx || s != s) mx = s;
    }
    for (int64_t j = 0; j < p->s; j++) sum += exp(sdpa_score(p, i, j) - mx);
    for (int64_t c = 0; c < p->ev; c++) orow[c] = 0.0f;
    {
      double acc[64];
      for (int64_t c0 = 0; c0 < p->ev; c0 += 64) {
        int64_t n = p->ev - c0 < 64 ? p->ev - c0 : 64;
        for (int64_t c = 0; c < n; c++) acc[c] = 0.0;
        for (int64_t j = 0; j < p->s; j++) {
          double w = exp(sdpa_score(p, i, j) - mx) / sum;
          const float *vr = p->v + p->vo + j * p->ev + c0;
          for (int64_t c = 0; c < n; c++) acc[c] += w * vr[c];
        }
        for (int64_t c = 0; c < n; c++) orow[c0 + c] = (float)acc[c];
      }
    }
  }
}

/* Checks the shapes; fills the batch shape (dims before the last two). */
static int sdpa_shapes(etk_op_t *op, etk_tensor_t *q, etk_tensor_t *k,
                       etk_tensor_t *v, etk_tensor_t *m, int32_t *bdim,
                       int64_t *bsz) {
  etk_tensor_t *all[4] = {q, k, v, m};
  const char *names[4] = {"query", "key", "value", "attn_mask"};
  int rc;
  *bdim = 0;
  for (int t = 0; t < 4; t++) {
    int64_t sz[ETK_MAX_DIMS], nsz[ETK_MAX_DIMS];
    int32_t nd;
    if (!all[t]) continue;
    if (all[t]->dim < 2 || (!etk_tensor_is_contiguous(all[t])))
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "%s must have 2 or more dims in the default order",
                         names[t]);
    etk_tensor_sizes64(all[t], sz);
    if ((rc = etk_op_broadcast_shape(op, *bdim, bsz, all[t]->dim - 2, sz, &nd,
                                     nsz)))
      return rc;
    *bdim = nd;
    memcpy(bsz, nsz, sizeof nsz);
  }
  if (q->sizes[q->dim - 1] != k->sizes[k->dim - 1] ||
      k->sizes[k->dim - 2] != v->sizes[v->dim - 2])
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "query, key and value shapes do not agree");
  return ETK_OK;
}

/* Offset of batch `lin` (row-major over bsz) in tensor t whose last two
 * dims are (rows, cols): its leading dims broadcast against bsz. */
static int64_t batch_offset(const etk_tensor_t *t, int32_t bdim,
                            const int64_t *bsz, int64_t lin) {
  int64_t off = 0,
          stride = (int64_t)t->sizes[t->dim - 1] * t->sizes[t->dim - 2];
  int32_t lead = t->dim - 2;
  for (int32_t d = bdim - 1; d >= 0; d--) {
    int64_t at = lin % bsz[d];
    int32_t td = d - (bdim - lead);
    lin /= bsz[d];
    if (td >= 0) {
      if (t->sizes[td] != 1) off += at * stride;
      stride *= t->sizes[td];
    }
  }
  return off;
}

ETK_KERNEL_DEFINE(scaled_dot_product_attention_out,
                  "aten::scaled_dot_product_attention.out") {
  etk_tensor_t *q, *k, *v, *m, *out;
  double dropout, scale = 0.0;
  bool causal, has_scale = false;
  int32_t bdim;
  int64_t bsz[ETK_MAX_DIMS], osz[ETK_MAX_DIMS];
  sdpa_t p;
  int rc;
  const etk_arg_t args[] = {ETK_ARG_TENSOR("query", &q),
                            ETK_ARG_TENSOR("key", &k),
                            ETK_ARG_TENSOR("value", &v),
                            ETK_ARG_TENSOR_OPT("attn_mask", &m),
                            ETK_ARG_DOUBLE("dropout_p", &dropout),
                            ETK_ARG_BOOL("is_causal", &causal),
                            ETK_ARG_LATER("scale"),
                            ETK_ARG_TENSOR("out", &out)};
  if ((rc = etk_op_read_args(op, 9, args, ETK_ARG_COUNT(args)))) return rc;
  if (op->args[6]->tag != ETK_VALUE_NONE &&
      op->args[6]->tag != ETK_VALUE_NULL) {
    if ((rc = etk_op_double(op, 6, "scale", &scale))) return rc;
    has_scale = true;
  }
  {
    etk_tensor_t *f[4] = {q, k, v, out};
    const char *names[4] = {"query", "key", "value", "out"};
    for (int t = 0; t < 4; t++)
      if ((rc = etk_op_check_dtype(op, f[t], names[t], ETK_DTYPES_FLOAT)))
        return rc;
    if (m &&
        (rc = etk_op_check_dtype(op, m, "attn_mask",
                                 ETK_DTYPES_FLOAT | ETK_DTYPE_BIT(ETK_BOOL))))
      return rc;
  }
  if (op->checking) return ETK_OK;
  if (dropout != 0.0)
    return etk_op_fail(op, ETK_E_UNSUPPORTED, "dropout_p must be 0");
  if ((rc = sdpa_shapes(op, q, k, v, m, &bdim, bsz))) return rc;
  memcpy(osz, bsz, sizeof(int64_t) * (size_t)bdim);
  osz[bdim] = q->sizes[q->dim - 2];
  osz[bdim + 1] = v->sizes[v->dim - 1];
  if ((rc = etk_op_resize(op, out, "out", bdim + 2, osz))) return rc;
  if (!etk_tensor_is_contiguous(out))
    return etk_op_fail(op, ETK_E_UNSUPPORTED, "out must use the default order");
  memset(&p, 0, sizeof p);
  p.q = q->data;
  p.k = k->data;
  p.v = v->data;
  p.out = out->data;
  p.l = osz[bdim];
  p.s = k->sizes[k->dim - 2];
  p.e = q->sizes[q->dim - 1];
  p.ev = osz[bdim + 1];
  p.scale = has_scale ? scale : 1.0 / sqrt((double)(p.e ? p.e : 1));
  p.causal = causal;
  if (m) {
    p.mask = m->data;
    p.mask_dtype = m->scalar_type;
    p.mask_col = m->sizes[m->dim - 1] == 1 ? 0 : 1;
    p.mask_row = m->sizes[m->dim - 2] == 1 ? 0 : m->sizes[m->dim - 1];
    if ((m->sizes[m->dim - 1] != 1 && m->sizes[m->dim - 1] != p.s) ||
        (m->sizes[m->dim - 2] != 1 && m->sizes[m->dim - 2] != p.l))
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "attn_mask does not broadcast to (L, S)");
  }
  {
    int64_t batches = etk_sizes_numel(bdim, bsz);
    for (int64_t b = 0; b < batches; b++) {
      p.qo = batch_offset(q, bdim, bsz, b);
      p.ko = batch_offset(k, bdim, bsz, b);
      p.vo = batch_offset(v, bdim, bsz, b);
      p.mo = m ? batch_offset(m, bdim, bsz, b) : 0;
      p.oo = b * p.l * p.ev;
      sdpa_batch(&p);
    }
  }
  return ETK_OK;
}
