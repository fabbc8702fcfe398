/*
 * compare.c - numerical debugging: tensor views, upstream's comparators
 * and compare_results, inflation of logged values, and the A/B comparison
 * of two traced runs (etkit/numerics.h).
 *
 * Views.  Everything reads through etk_numerics_tensor_t (type, sizes,
 * element strides, offset, bytes), checked once by
 * etk_numerics_tensor_check() so that every later read is in bounds.
 * Elements are converted one at a time (rd64 for the float64 comparators,
 * rd32 for compare_results' float32 casts: int64 -> float directly, not
 * through double, as torch's .to(torch.float32) does).
 *
 * Broadcasting.  bcast_init() computes torch's broadcast shape (dimensions
 * aligned on the right, equal or 1) and per-side strides, 0 along
 * broadcast dimensions; the odometer in each pass then visits the
 * broadcast elements in C order with both element offsets.
 *
 * Two precisions, on purpose.  The comparators of upstream's
 * calculate_numeric_gap work in float64 (compensated sums here); its
 * compare_results casts to float32 and rounds to 2 decimals, so the
 * element arithmetic is float32 and each reduction is rounded to float32
 * once.  Python's round(x, 2) is correctly rounded; glibc's "%.2f" is too
 * (exact decimal expansion, ties to even), so round2() prints and parses.
 *
 * A/B.  Per block pair (same name, same occurrence) only the first run
 * of each block is read (the inspector merges identical runs).  Logged
 * values are keyed by (program output?, instruction id, delegate ids,
 * n-th value of that key in the run); both sides' keys are sorted and
 * merge-joined.  Strings of rows (shapes) live in one pool addressed by
 * offsets, so growing it never invalidates a row.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "etkit/numerics.h"
#include "etkit/schema.h"
#include "etkit/tensor_stats.h"

/* ------------------------------------------------------------- elements */

size_t etk_numerics_element_size(int st) {
  /* The numeric views read exactly the types NumPy can name. */
  return etk_scalar_type_numpy_name(st) ? etk_scalar_type_size(st) : 0;
}

static const char *dtype_name(int st) {
  const char *name = etk_scalar_type_numpy_name(st);
  return name ? name : "?";
}

/* Element at p as a double; NaN for a type the numeric views do not read. */
static double rd64(int st, const uint8_t *p) {
  double value;
  if (etk_scalar_type_numpy_name(st) && etk_scalar_type_read(st, p, &value))
    return value;
  return NAN;
}

/* torch's .to(torch.float32): each type converted straight to float.
 * Only the 64-bit integers need their own case: through double they would
 * be rounded twice.  Every other type is exact in double (int32, uint32
 * and the narrower ones) or is double itself, so one rounding to float of
 * rd64's value is the same as the direct conversion. */
static float rd32(int st, const uint8_t *p) {
  switch (st) {
    case ETK_SCALAR_TYPE_LONG: {
      int64_t v;
      memcpy(&v, p, 8);
      return (float)v;
    }
    case ETK_SCALAR_TYPE_UINT64: {
      uint64_t v;
      memcpy(&v, p, 8);
      return (float)v;
    }
    default:
      return (float)rd64(st, p);
  }
}

int etk_numerics_is_exact_type(int st) {
  switch (st) {
    case ETK_SCALAR_TYPE_INT:
    case ETK_SCALAR_TYPE_LONG:
    case ETK_SCALAR_TYPE_BOOL:
    case ETK_SCALAR_TYPE_UINT32:
    case ETK_SCALAR_TYPE_UINT64:
      return 1;
    default:
      return 0;
  }
}

int etk_numerics_is_exact_dtype(const char *dtype) {
  return dtype && (strcmp(dtype, "int32") == 0 || strcmp(dtype, "int64") == 0 ||
                   strcmp(dtype, "uint32") == 0 ||
                   strcmp(dtype, "uint64") == 0 || strcmp(dtype, "bool") == 0);
}

static bool is_floating(int st) {
  return st == ETK_SCALAR_TYPE_HALF || st == ETK_SCALAR_TYPE_FLOAT ||
         st == ETK_SCALAR_TYPE_DOUBLE || st == ETK_SCALAR_TYPE_BFLOAT16;
}

/* ------------------------------------------------------------- views */

int etk_numerics_tensor_check(const etk_numerics_tensor_t *t, uint64_t *numel,
                              etk_error_t *err) {
  if (!t)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL tensor");
  size_t es = etk_numerics_element_size(t->scalar_type);
  if (!es)
    return etk_error_set(err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                         "tensors of scalar type %d (%s) cannot be compared",
                         t->scalar_type, etk_scalar_type_name(t->scalar_type));
  if (t->dim > ETK_NUMERICS_MAX_DIMS || (t->dim && !t->sizes) || t->offset < 0)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "tensor with %u dimensions, offset %lld", t->dim,
                         (long long)t->offset);
  uint64_t n = 1, last = (uint64_t)t->offset, stride = 1;
  for (uint32_t k = t->dim; k-- > 0;) {
    int64_t s = t->sizes[k], st = t->strides ? t->strides[k] : (int64_t)stride;
    if (s < 0 || st < 0)
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "negative size or stride in dimension %u", k);
    if (s == 0) n = 0;
    if (n && (uint64_t)s > UINT64_MAX / n)
      return etk_error_set(err, ETK_E_OVERFLOW, ETK_NO_OFFSET,
                           "tensor element count overflows");
    if (n) n *= (uint64_t)s;
    if (s > 0 && st > 0) {
      if ((uint64_t)(s - 1) > (UINT64_MAX - last) / (uint64_t)st)
        return etk_error_set(err, ETK_E_OVERFLOW, ETK_NO_OFFSET,
                             "tensor extent overflows");
      last += (uint64_t)(s - 1) * (uint64_t)st;
    }
    if (!t->strides) {
      if (stride > UINT64_MAX / (uint64_t)(s ? s : 1))
        return etk_error_set(err, ETK_E_OVERFLOW, ETK_NO_OFFSET,
                             "tensor strides overflow");
      stride *= (uint64_t)(s ? s : 1);
    }
  }
  if (n && (!t->data || last >= t->data_len / es))
    return etk_error_set(err, ETK_E_BAD_OFFSET, ETK_NO_OFFSET,
                         "tensor elements reach byte %llu of %llu bytes",
                         (unsigned long long)((last + 1) * es),
                         (unsigned long long)t->data_len);
  if (numel) *numel = n;
  return ETK_OK;
}

size_t etk_numerics_shape_text(const etk_numerics_tensor_t *t, char *out,
                               size_t out_size) {
  size_t at = 0;
  char tmp[32];
#define EMIT(s)                                                    \
  do {                                                             \
    size_t l_ = strlen(s);                                         \
    if (out_size && at < out_size - 1) {                           \
      size_t c_ = out_size - 1 - at < l_ ? out_size - 1 - at : l_; \
      memcpy(out + at, s, c_);                                     \
    }                                                              \
    at += l_;                                                      \
  } while (0)
  EMIT("[");
  for (uint32_t k = 0; t && k < t->dim; k++) {
    snprintf(tmp, sizeof tmp, "%s%lld", k ? ", " : "", (long long)t->sizes[k]);
    EMIT(tmp);
  }
  EMIT("]");
#undef EMIT
  if (out_size) out[at < out_size ? at : out_size - 1] = 0;
  return at;
}

/* ------------------------------------------------------------- broadcast */

typedef struct bcast {
  uint32_t n;
  int64_t size[ETK_NUMERICS_MAX_DIMS];
  int64_t sa[ETK_NUMERICS_MAX_DIMS], sb[ETK_NUMERICS_MAX_DIMS];
  uint64_t numel;
} bcast_t;

static void strides_of(const etk_numerics_tensor_t *t, int64_t *st) {
  int64_t s = 1;
  for (uint32_t k = t->dim; k-- > 0;) {
    st[k] = t->strides ? t->strides[k] : s;
    s *= t->sizes[k] ? t->sizes[k] : 1;
  }
}

static int mismatch(const etk_numerics_tensor_t *a,
                    const etk_numerics_tensor_t *b, const char *what,
                    etk_error_t *err) {
  char sa[256], sb[256];
  etk_numerics_shape_text(a, sa, sizeof sa);
  etk_numerics_shape_text(b, sb, sizeof sb);
  return etk_error_set(err, ETK_E_MISMATCH, ETK_NO_OFFSET,
                       "shapes %s and %s %s", sa, sb, what);
}

/* Both views must have passed etk_numerics_tensor_check(). */
static int bcast_init(bcast_t *it, const etk_numerics_tensor_t *a,
                      const etk_numerics_tensor_t *b, bool strict,
                      etk_error_t *err) {
  if (strict) {
    bool same = a->dim == b->dim;
    for (uint32_t k = 0; same && k < a->dim; k++)
      same = a->sizes[k] == b->sizes[k];
    if (!same) return mismatch(a, b, "differ", err);
  }
  int64_t sta[ETK_NUMERICS_MAX_DIMS], stb[ETK_NUMERICS_MAX_DIMS];
  strides_of(a, sta);
  strides_of(b, stb);
  uint32_t n = a->dim > b->dim ? a->dim : b->dim;
  it->n = n;
  it->numel = 1;
  for (uint32_t k = 0; k < n; k++) {
    int64_t xa = 1, xb = 1, ta = 0, tb = 0;
    if (k >= n - a->dim) {
      xa = a->sizes[k - (n - a->dim)];
      ta = sta[k - (n - a->dim)];
    }
    if (k >= n - b->dim) {
      xb = b->sizes[k - (n - b->dim)];
      tb = stb[k - (n - b->dim)];
    }
    if (xa != xb && xa != 1 && xb != 1)
      return mismatch(a, b, "cannot be broadcast", err);
    it->size[k] = xa == 1 ? xb : xa;
    it->sa[k] = xa == 1 ? 0 : ta;
    it->sb[k] = xb == 1 ? 0 : tb;
    if (it->size[k] == 0)
      it->numel = 0;
    else if (it->numel)
      it->numel *= (uint64_t)it->size[k];
  }
  return ETK_OK;
}

/* Iterates the broadcast elements; the body sees `pa` and `pb`. */
#define BCAST_FOR(it, a, b, esa, esb, ...)                                   \
  do {                                                                       \
    int64_t idx_[ETK_NUMERICS_MAX_DIMS] = {0};                               \
    int64_t oa_ = (a)->offset, ob_ = (b)->offset;                            \
    for (uint64_t e_ = 0; e_ < (it)->numel; e_++) {                          \
      const uint8_t *pa = (const uint8_t *)(a)->data + oa_ * (int64_t)(esa); \
      const uint8_t *pb = (const uint8_t *)(b)->data + ob_ * (int64_t)(esb); \
      __VA_ARGS__;                                                           \
      for (uint32_t k_ = (it)->n; k_-- > 0;) {                               \
        if (++idx_[k_] < (it)->size[k_]) {                                   \
          oa_ += (it)->sa[k_];                                               \
          ob_ += (it)->sb[k_];                                               \
          break;                                                             \
        }                                                                    \
        oa_ -= ((it)->size[k_] - 1) * (it)->sa[k_];                          \
        ob_ -= ((it)->size[k_] - 1) * (it)->sb[k_];                          \
        idx_[k_] = 0;                                                        \
      }                                                                      \
    }                                                                        \
  } while (0)

/* Neumaier compensated sum. */
typedef struct ksum {
  double s, c;
} ksum_t;

static void kadd(ksum_t *k, double x) {
  double t = k->s + x;
  if (fabs(k->s) >= fabs(x))
    k->c += (k->s - t) + x;
  else
    k->c += (x - t) + k->s;
  k->s = t;
}

static double kval(const ksum_t *k) {
  /* infinities and NaN make the correction NaN: keep the plain sum then */
  double v = k->s + k->c;
  return isfinite(k->s) ? v : k->s;
}

/* Puts `prefix` in front of err->message (cut to fit). */
static void prefix_message(etk_error_t *err, const char *prefix) {
  char msg[sizeof err->message];
  size_t p = strlen(prefix), m = strlen(err->message);
  if (p > sizeof msg - 1) p = sizeof msg - 1;
  if (m > sizeof msg - 1 - p) m = sizeof msg - 1 - p;
  memcpy(msg, prefix, p);
  memcpy(msg + p, err->message, m);
  msg[p + m] = 0;
  memcpy(err->message, msg, sizeof msg);
}

/* ------------------------------------------------------------- compare */

const char *etk_numerics_metric_name(etk_numerics_metric_t m) {
  switch (m) {
    case ETK_NUMERICS_L1:
      return "L1";
    case ETK_NUMERICS_MSE:
      return "MSE";
    case ETK_NUMERICS_SNR:
      return "SNR";
    case ETK_NUMERICS_MAX_ABS:
      return "max_abs";
    case ETK_NUMERICS_COSINE:
      return "cosine";
  }
  return "?";
}

int etk_numerics_metric_parse(const char *name, etk_numerics_metric_t *out) {
  if (!name || !out) return ETK_E_INVALID_ARGUMENT;
  while (*name == ' ' || *name == '\t' || *name == '\n') name++;
  size_t n = strlen(name);
  while (n &&
         (name[n - 1] == ' ' || name[n - 1] == '\t' || name[n - 1] == '\n'))
    n--;
  char up[16];
  if (n == 0 || n >= sizeof up) return ETK_E_INVALID_ARGUMENT;
  for (size_t i = 0; i < n; i++)
    up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
  up[n] = 0;
  static const char *const names[] = {"L1", "MSE", "SNR", "MAX_ABS", "COSINE"};
  for (int i = 0; i < 5; i++)
    if (strcmp(up, names[i]) == 0) {
      *out = (etk_numerics_metric_t)i;
      return ETK_OK;
    }
  return ETK_E_INVALID_ARGUMENT;
}

/* upstream's nan_to_num, applied only to tensors that hold a NaN */
static double fix(double v, bool nan_fix) {
  if (!nan_fix) return v;
  if (v != v) return 0.0;
  if (v == INFINITY) return DBL_MAX;
  if (v == -INFINITY) return -DBL_MAX;
  return v;
}

static bool has_nan(const etk_numerics_tensor_t *t) {
  if (!is_floating(t->scalar_type)) return false;
  bcast_t it;
  if (bcast_init(&it, t, t, true, NULL) != ETK_OK) return false;
  size_t es = etk_numerics_element_size(t->scalar_type);
  bool found = false;
  BCAST_FOR(&it, t, t, es, es, {
    (void)pb;
    if (!found && rd64(t->scalar_type, pa) != rd64(t->scalar_type, pa))
      found = true;
  });
  return found;
}

/* An integer element as (negative, magnitude): exact for every integer
 * type, int64 and uint64 alike. */
static bool rd_int(int st, const uint8_t *p, bool *neg, uint64_t *mag) {
  uint64_t u = 0;
  int64_t s = 0;
  switch (st) {
    case ETK_SCALAR_TYPE_UINT64:
      memcpy(&u, p, 8);
      *neg = false;
      *mag = u;
      return true;
    case ETK_SCALAR_TYPE_LONG:
      memcpy(&s, p, 8);
      break;
    default: {
      double v = rd64(st, p);
      if (v != v) return false;
      s = (int64_t)v; /* every other integer type is exact in double */
    }
  }
  *neg = s < 0;
  *mag = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
  return true;
}

int etk_numerics_count_mismatches(const etk_numerics_tensor_t *a,
                                  const etk_numerics_tensor_t *b,
                                  uint64_t *mismatches, uint64_t *numel,
                                  etk_error_t *err) {
  int rc = etk_numerics_tensor_check(a, NULL, err);
  if (rc == ETK_OK) rc = etk_numerics_tensor_check(b, NULL, err);
  if (rc != ETK_OK) return rc;
  bcast_t it;
  rc = bcast_init(&it, a, b, true, err);
  if (rc != ETK_OK) return rc;
  int sta = a->scalar_type, stb = b->scalar_type;
  bool ints =
      !is_floating(sta) && !is_floating(stb) && sta != ETK_SCALAR_TYPE_BITS16;
  size_t ea = etk_numerics_element_size(sta),
         eb = etk_numerics_element_size(stb);
  uint64_t bad = 0;
  BCAST_FOR(&it, a, b, ea, eb, {
    bool na, nb;
    uint64_t ma, mb;
    if (ints)
      bad += !rd_int(sta, pa, &na, &ma) || !rd_int(stb, pb, &nb, &mb) ||
             na != nb || ma != mb;
    else
      bad += !(rd64(sta, pa) == rd64(stb, pb));
  });
  if (mismatches) *mismatches = bad;
  if (numel) *numel = it.numel;
  return ETK_OK;
}

/* The comparator of two STATS vectors (numerics STATS and the store's
 * drift): their p99_abs's relative shift, as the gap view ranks it. */
double etk_stats_p99_shift(const double ref[ETK_TENSOR_STATS_COUNT],
                           const double rt[ETK_TENSOR_STATS_COUNT]) {
  double a = ref[ETK_STAT_P99_ABS], b = rt[ETK_STAT_P99_ABS];
  if (a != a || b != b) return NAN;
  if (a == b) return 0.0;
  if (a == 0.0 || isinf(a)) return INFINITY;
  return fabs(b - a) / fabs(a);
}

int etk_numerics_compare(const etk_numerics_tensor_t *a,
                         const etk_numerics_tensor_t *b,
                         etk_numerics_metric_t metric, unsigned flags,
                         double *out, etk_error_t *err) {
  if (!out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL output");
  int rc = etk_numerics_tensor_check(a, NULL, err);
  if (rc == ETK_OK) rc = etk_numerics_tensor_check(b, NULL, err);
  if (rc != ETK_OK) return rc;
  bcast_t it;
  rc = bcast_init(&it, a, b, (flags & ETK_NUMERICS_NO_BROADCAST) != 0, err);
  if (rc != ETK_OK) return rc;
  bool fa = has_nan(a), fb = has_nan(b);
  int sta = a->scalar_type, stb = b->scalar_type;
  size_t ea = etk_numerics_element_size(sta),
         eb = etk_numerics_element_size(stb);
  ksum_t diff = {0, 0}, sa = {0, 0}, sb = {0, 0}, dot = {0, 0};
  double max = it.numel ? 0.0 : NAN;
  BCAST_FOR(&it, a, b, ea, eb, {
    double x = fix(rd64(sta, pa), fa), y = fix(rd64(stb, pb), fb), d = x - y;
    switch (metric) {
      case ETK_NUMERICS_L1:
        kadd(&diff, fabs(d));
        break;
      case ETK_NUMERICS_MSE:
      case ETK_NUMERICS_SNR:
        kadd(&diff, d * d);
        break;
      case ETK_NUMERICS_MAX_ABS: /* a NaN difference wins, as in torch.max */
        if (d != d)
          max = d;
        else if (max == max && fabs(d) > max)
          max = fabs(d);
        break;
      case ETK_NUMERICS_COSINE:
        kadd(&dot, x * y);
        kadd(&sa, x * x);
        kadd(&sb, y * y);
        break;
    }
  });
  double n = (double)it.numel;
  switch (metric) {
    case ETK_NUMERICS_L1:
      *out = kval(&diff);
      break;
    case ETK_NUMERICS_MSE:
      *out = kval(&diff) / n;
      break;
    case ETK_NUMERICS_SNR: {
      /* the signal is a's own mean square (not broadcast) */
      bcast_t own;
      bcast_init(&own, a, a, true, NULL);
      ksum_t sig = {0, 0};
      BCAST_FOR(&own, a, a, ea, ea, {
        (void)pb;
        double x = fix(rd64(sta, pa), fa);
        kadd(&sig, x * x);
      });
      double signal = kval(&sig) / (double)own.numel;
      double noise = kval(&diff) / n;
      *out = 10.0 * log10(signal / noise);
      break;
    }
    case ETK_NUMERICS_MAX_ABS:
      *out = max;
      break;
    case ETK_NUMERICS_COSINE: {
      /* sqrt of the product: exactly 1 for equal tensors (unless it
       * overflows) */
      double na = kval(&sa), nb = kval(&sb), prod = na * nb;
      *out = kval(&dot) / (isfinite(prod) ? sqrt(prod) : sqrt(na) * sqrt(nb));
      break;
    }
    default:
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "unknown metric %d", (int)metric);
  }
  return ETK_OK;
}

/* ------------------------------------------------------------- compare_results
 */

const char *etk_compare_metric_name(etk_compare_metric_t m) {
  switch (m) {
    case ETK_COMPARE_SNR:
      return "snr";
    case ETK_COMPARE_MSE:
      return "mse";
    case ETK_COMPARE_COSINE_SIMILARITY:
      return "cosine_similarity";
  }
  return "?";
}

/* Python's round(x, 2). */
static double round2(double x) {
  if (!isfinite(x)) return x;
  char buf[400];
  snprintf(buf, sizeof buf, "%.2f", x);
  return strtod(buf, NULL);
}

int etk_compare_results_value(const etk_numerics_tensor_t *ref,
                              const etk_numerics_tensor_t *run,
                              etk_compare_metric_t metric, double *out,
                              etk_error_t *err) {
  if (!out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL output");
  int rc = etk_numerics_tensor_check(ref, NULL, err);
  if (rc == ETK_OK) rc = etk_numerics_tensor_check(run, NULL, err);
  if (rc != ETK_OK) return rc;
  bcast_t it;
  if (metric == ETK_COMPARE_COSINE_SIMILARITY) {
    bool same = ref->dim == run->dim;
    for (uint32_t k = 0; same && k < ref->dim; k++)
      same = ref->sizes[k] == run->sizes[k];
    if (!same)
      return etk_error_set(err, ETK_E_MISMATCH, ETK_NO_OFFSET,
                           "Input tensors must have the same shape");
  }
  rc = bcast_init(&it, ref, run, false, err);
  if (rc != ETK_OK) return rc;
  int sa = ref->scalar_type, sb = run->scalar_type;
  size_t ea = etk_numerics_element_size(sa), eb = etk_numerics_element_size(sb);
  double s1 = 0, s2 = 0, s3 = 0;
  BCAST_FOR(&it, ref, run, ea, eb, {
    float x = rd32(sa, pa), y = rd32(sb, pb);
    if (metric == ETK_COMPARE_COSINE_SIMILARITY) {
      float xy = x * y, xx = x * x, yy = y * y;
      s1 += xy;
      s2 += xx;
      s3 += yy;
    } else {
      float d = x - y, dd = d * d;
      s1 += dd;
    }
  });
  float n = (float)it.numel, v;
  if (metric == ETK_COMPARE_MSE) {
    v = (float)s1 / n;
  } else if (metric == ETK_COMPARE_SNR) {
    bcast_t own;
    bcast_init(&own, ref, ref, true, NULL);
    double sig = 0;
    BCAST_FOR(&own, ref, ref, ea, ea, {
      (void)pb;
      float x = rd32(sa, pa), xx = x * x;
      sig += xx;
    });
    float signal = (float)sig / (float)own.numel, noise = (float)s1 / n;
    float ratio = signal / noise;
    v = 10.0f * log10f(ratio);
  } else {
    float m1 = sqrtf((float)s2), m2 = sqrtf((float)s3);
    v = (float)s1 / (m1 * m2);
  }
  *out = round2((double)v);
  return ETK_OK;
}

size_t etk_compare_format_value(double v, char *out, size_t out_size) {
  int n;
  if (v != v)
    n = snprintf(out, out_size, "%8s", "nan");
  else
    n = snprintf(out, out_size, "%8.5f", v);
  return n < 0 ? 0 : (size_t)n;
}

int etk_compare_results_write(const etk_compare_pair_t *pairs, size_t count,
                              unsigned metrics, etk_render_sink_t *sink,
                              double *values, etk_error_t *err) {
  if ((!pairs && count) || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  if (metrics == 0) metrics = ETK_COMPARE_ALL;
  if (values)
    for (size_t i = 0; i < 3 * count; i++) values[i] = NAN;
  double *row = malloc((count ? count : 1) * sizeof *row);
  bool *present = malloc((count ? count : 1) * sizeof *present);
  if (!row || !present) {
    free(row);
    free(present);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  int rc = ETK_OK;
  for (int m = 0; m < 3 && rc == ETK_OK; m++) {
    if (!(metrics & (1u << m))) continue;
    /* compute the whole list first: an error prints nothing of it */
    for (size_t i = 0; i < count && rc == ETK_OK; i++) {
      present[i] = pairs[i].reference && pairs[i].run;
      if (present[i]) {
        rc = etk_compare_results_value(pairs[i].reference, pairs[i].run,
                                       (etk_compare_metric_t)m, &row[i], err);
        if (rc != ETK_OK && err && err->code != ETK_OK) {
          char prefix[64];
          snprintf(prefix, sizeof prefix, "%s of output %zu: ",
                   etk_compare_metric_name((etk_compare_metric_t)m), i);
          prefix_message(err, prefix);
        }
      }
      if (rc == ETK_OK && values && present[i])
        values[(size_t)m * count + i] = row[i];
    }
    if (rc != ETK_OK) break;
    etk_render_puts(sink, etk_compare_metric_name((etk_compare_metric_t)m));
    etk_render_puts(sink, "\n--------------------\n");
    for (size_t i = 0; i < count; i++) {
      char num[64];
      if (present[i])
        etk_compare_format_value(row[i], num, sizeof num);
      else
        snprintf(num, sizeof num, "%8s", "None");
      etk_render_printf(sink, "%-5zu%s\n", i, num);
    }
    etk_render_puts(sink, "\n\n");
  }
  free(row);
  free(present);
  if (rc == ETK_OK && sink->status != ETK_OK)
    rc = etk_error_set(err, sink->status, ETK_NO_OFFSET, "writing failed");
  return rc;
}

/* ------------------------------------------------------------- logged values
 */

/* Reads the logged strides into st when they describe a dense layout
 * other than the contiguous one (a permutation of the dims: each stride,
 * in increasing order, is the product of the sizes below it; dims of size
 * 1 may have any stride).  Other strides are ignored: the bytes are then
 * read as contiguous, as upstream does. */
static int dense_strides(const etk_etdump_tensor_t *t, const int64_t *sizes,
                         int64_t *st) {
  if (t->dim < 2 || t->stride_count != t->dim) return 0;
  bool contiguous = true, used[ETK_NUMERICS_MAX_DIMS] = {false};
  int64_t want = 1;
  for (uint32_t k = t->dim; k-- > 0;) {
    st[k] = etk_etdump_tensor_stride(t, k);
    if (sizes[k] == 0) return 0;
    if (sizes[k] > 1 && st[k] != want) contiguous = false;
    want *= sizes[k];
  }
  if (contiguous) return 0;
  /* walk the dims of size > 1 from the smallest stride up */
  int64_t p = 1;
  for (uint32_t n = 0; n < t->dim; n++) {
    uint32_t best = UINT32_MAX;
    for (uint32_t k = 0; k < t->dim; k++)
      if (!used[k] && sizes[k] > 1 && (best == UINT32_MAX || st[k] < st[best]))
        best = k;
    if (best == UINT32_MAX) break;
    if (st[best] != p) return 0;
    used[best] = true;
    if (sizes[best] > INT64_MAX / p) return 0;
    p *= sizes[best];
  }
  for (uint32_t k = 0; k < t->dim; k++)
    if (sizes[k] <= 1) st[k] = 0;
  return 1;
}

int etk_numerics_debug_value(const etk_etdump_t *dump, const uint8_t *buf,
                             size_t len, size_t etdump_event, uint32_t item,
                             etk_numerics_value_t *out, etk_error_t *err) {
  if (!dump || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  memset(out, 0, sizeof *out);
  etk_etdump_value_t v;
  if (etk_etdump_event_value(dump, etdump_event, &v) != ETK_OK)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "event %zu is not a debug event", etdump_event);
  if (!v.present)
    return etk_error_set(err, ETK_E_FORMAT, ETK_NO_OFFSET,
                         "debug event %zu has no debug_entry", etdump_event);
  out->value_type = v.type;
  etk_etdump_tensor_t t;
  switch (v.type) {
    case ETK_ETDUMP_VALUE_TYPE_INT:
    case ETK_ETDUMP_VALUE_TYPE_BOOL:
    case ETK_ETDUMP_VALUE_TYPE_FLOAT:
    case ETK_ETDUMP_VALUE_TYPE_DOUBLE:
      if (item != 0)
        return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                             "item %u of a scalar", item);
      out->kind = ETK_NUMERICS_VALUE_SCALAR;
      out->scalar = v.type == ETK_ETDUMP_VALUE_TYPE_INT ? (double)v.int_value
                    : v.type == ETK_ETDUMP_VALUE_TYPE_BOOL
                        ? (double)v.bool_value
                        : v.real_value;
      return ETK_OK;
    case ETK_ETDUMP_VALUE_TYPE_TENSOR:
      if (item != 0)
        return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                             "item %u of a tensor", item);
      t = v.tensor;
      break;
    case ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST:
      out->list_count = v.tensor_count;
      if (item == ~0u) {
        out->kind = ETK_NUMERICS_VALUE_TENSOR_LIST;
        return ETK_OK;
      }
      if (item >= v.tensor_count ||
          etk_etdump_value_tensor(dump, &v, item, &t) != ETK_OK)
        return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                             "item %u of a list of %u tensors", item,
                             v.tensor_count);
      break;
    default:
      out->kind = ETK_NUMERICS_VALUE_NONE;
      return ETK_OK;
  }
  if (t.dim > ETK_NUMERICS_MAX_DIMS)
    return etk_error_set(err, ETK_E_LIMIT, t.table_offset,
                         "tensor of debug event %zu has %u dimensions (at "
                         "most %d)",
                         etdump_event, t.dim, ETK_NUMERICS_MAX_DIMS);
  const uint8_t *data = NULL;
  uint64_t nbytes = 0;
  int rc;
  if (buf) {
    rc = etk_etdump_tensor_data(&t, buf, len, &data, &nbytes, err);
  } else {
    rc = etk_etdump_tensor_nbytes(&t, &nbytes, err);
    if (rc == ETK_OK && nbytes)
      rc = etk_error_set(err, ETK_E_BAD_OFFSET, t.table_offset,
                         "no debug buffer for the tensor of debug event %zu",
                         etdump_event);
  }
  if (rc != ETK_OK) return rc;
  out->kind = ETK_NUMERICS_VALUE_TENSOR;
  out->scalar_type = t.scalar_type;
  out->dim = t.dim;
  for (uint32_t k = 0; k < t.dim; k++)
    out->sizes[k] = etk_etdump_tensor_dim(&t, k);
  out->data = data;
  out->nbytes = nbytes;
  out->strided = dense_strides(&t, out->sizes, out->strides);
  return ETK_OK;
}

int etk_numerics_value_view(const etk_numerics_value_t *v,
                            etk_numerics_tensor_t *view) {
  if (!v || !view) return 0;
  memset(view, 0, sizeof *view);
  if (v->kind == ETK_NUMERICS_VALUE_SCALAR) {
    view->scalar_type = ETK_SCALAR_TYPE_DOUBLE;
    view->data = &v->scalar;
    view->data_len = sizeof v->scalar;
    return 1;
  }
  if (v->kind != ETK_NUMERICS_VALUE_TENSOR) return 0;
  view->scalar_type = v->scalar_type;
  view->dim = v->dim;
  view->sizes = v->sizes;
  view->strides = v->strided ? v->strides : NULL;
  view->data = v->data;
  view->data_len = v->nbytes;
  return 1;
}

/* ------------------------------------------------------------- A/B */

typedef struct ab_entry { /* one logged value of one run */
  uint32_t event;
  uint32_t seq; /* file order in the run */
  int is_output;
  int32_t chain, iid;
  int64_t did_int;
  const char *did_str; /* NULL when none */
  uint32_t out_index;
  const char *name; /* resolved display name */
} ab_entry_t;

typedef struct ab_row {
  size_t pair;
  int is_output;
  int32_t chain, iid;
  int64_t did_int;
  const char *did_str;
  uint32_t out_index;
  int32_t item;
  const char *name;
  uint32_t event_a, event_b;
  int status;
  const char *dtype_a, *dtype_b;
  size_t shape_a, shape_b; /* offsets in the pool, SIZE_MAX = none */
  uint64_t numel;
  double mse, snr, max_abs, cosine;
  char *op_types;
  int exact;
  uint64_t mismatches;
} ab_row_t;

typedef struct ab_pair {
  const char *name;
  size_t occurrence, block_a, block_b;
} ab_pair_t;

struct etk_numerics_ab {
  ab_row_t *rows;
  size_t count, cap;
  ab_pair_t *pairs;
  size_t pair_count;
  size_t unpaired_a, unpaired_b;
  char *pool;
  size_t pool_len, pool_cap;
};

const char *etk_numerics_status_name(etk_numerics_status_t s) {
  switch (s) {
    case ETK_NUMERICS_MATCHED:
      return "matched";
    case ETK_NUMERICS_ONLY_A:
      return "only in A";
    case ETK_NUMERICS_ONLY_B:
      return "only in B";
    case ETK_NUMERICS_SHAPE_MISMATCH:
      return "shape mismatch";
    case ETK_NUMERICS_KIND_MISMATCH:
      return "kind mismatch";
    case ETK_NUMERICS_NOT_NUMERIC:
      return "not numeric";
    case ETK_NUMERICS_ARGUMENT:
      return "delegate argument";
  }
  return "?";
}

static int no_mem(etk_error_t *err) {
  return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
}

static size_t pool_add(etk_numerics_ab_t *ab, const char *s) {
  size_t n = strlen(s) + 1;
  if (n > SIZE_MAX - ab->pool_len ||
      !ETK_VEC_RESERVE(ab->pool, ab->pool_cap, ab->pool_len + n))
    return SIZE_MAX;
  memcpy(ab->pool + ab->pool_len, s, n);
  size_t at = ab->pool_len;
  ab->pool_len += n;
  return at;
}

static int str_or_empty_cmp(const char *a, const char *b) {
  return strcmp(a ? a : "", b ? b : "");
}

/* the key without the output index */
static int cmp_instruction(const ab_entry_t *x, const ab_entry_t *y) {
  if (x->is_output != y->is_output) return x->is_output ? 1 : -1;
  if (x->is_output) return 0;
  if (x->iid != y->iid) return x->iid < y->iid ? -1 : 1;
  if (x->did_int != y->did_int) return x->did_int < y->did_int ? -1 : 1;
  return str_or_empty_cmp(x->did_str, y->did_str);
}

static int cmp_for_index(const void *p, const void *q) {
  const ab_entry_t *x = p, *y = q;
  int c = cmp_instruction(x, y);
  if (c) return c;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_for_match(const ab_entry_t *x, const ab_entry_t *y) {
  int c = cmp_instruction(x, y);
  if (c) return c;
  return x->out_index < y->out_index ? -1 : x->out_index > y->out_index;
}

typedef struct name_of {
  int32_t iid;
  uint32_t seq;
  const char *name;
} name_of_t;

static int cmp_name_of(const void *p, const void *q) {
  const name_of_t *x = p, *y = q;
  if (x->iid != y->iid) return x->iid < y->iid ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The logged values of run `r`, sorted by key, with output indices and
 * display names.  *out is malloc'd. */
static int collect(const etk_etdump_t *d, uint32_t r, ab_entry_t **out,
                   size_t *count, etk_error_t *err) {
  etk_etdump_run_t run;
  *out = NULL;
  *count = 0;
  if (etk_etdump_run_get(d, r, &run) != ETK_OK) return ETK_OK;
  ab_entry_t *e = malloc((run.event_count ? run.event_count : 1) * sizeof *e);
  name_of_t *names =
      malloc((run.event_count ? run.event_count : 1) * sizeof *names);
  if (!e || !names) {
    free(e);
    free(names);
    return no_mem(err);
  }
  size_t n = 0, nn = 0;
  for (uint32_t i = 0; i < run.event_count; i++) {
    etk_etdump_event_t ev;
    if (etk_etdump_event_get(d, run.first_event + i, &ev) != ETK_OK) continue;
    bool delegated =
        ev.delegate_debug_id_int >= 0 ||
        (ev.delegate_debug_id_str.data && ev.delegate_debug_id_str.len);
    if (ev.kind == ETK_ETDUMP_EVENT_PROFILE) {
      if (!delegated && ev.instruction_id >= 0 && ev.name.data && ev.name.len &&
          strcmp(ev.name.data, "OPERATOR_CALL") != 0)
        names[nn++] = (name_of_t){ev.instruction_id, i, ev.name.data};
      continue;
    }
    if (ev.kind != ETK_ETDUMP_EVENT_DEBUG) continue;
    ab_entry_t *x = &e[n++];
    memset(x, 0, sizeof *x);
    x->event = run.first_event + i;
    x->seq = i;
    x->is_output = (ev.flags & ETK_ETDUMP_FLAG_OUTPUT) != 0;
    x->chain =
        ev.debug_chain_index > INT32_MAX ? -1 : (int32_t)ev.debug_chain_index;
    x->iid = x->is_output ? -1 : ev.instruction_id;
    x->did_int = ev.delegate_debug_id_int;
    x->did_str = ev.delegate_debug_id_str.data && ev.delegate_debug_id_str.len
                     ? ev.delegate_debug_id_str.data
                     : NULL;
    x->name = ev.name.data && ev.name.len ? ev.name.data : NULL;
  }
  qsort(names, nn, sizeof *names, cmp_name_of);
  qsort(e, n, sizeof *e, cmp_for_index);
  for (size_t i = 0; i < n; i++) {
    e[i].out_index = i && cmp_instruction(&e[i - 1], &e[i]) == 0
                         ? e[i - 1].out_index + 1
                         : 0;
    if (e[i].name) continue;
    if (e[i].is_output) {
      e[i].name = "output";
    } else if (e[i].did_str) {
      e[i].name = e[i].did_str;
    } else if (e[i].did_int < 0 && e[i].iid >= 0) {
      size_t lo = 0, hi = nn; /* first name of the instruction */
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (names[mid].iid < e[i].iid)
          lo = mid + 1;
        else
          hi = mid;
      }
      e[i].name = lo < nn && names[lo].iid == e[i].iid ? names[lo].name : "";
    } else {
      e[i].name = "";
    }
  }
  free(names);
  *out = e;
  *count = n;
  return ETK_OK;
}

static ab_row_t *new_row(etk_numerics_ab_t *ab, size_t pair,
                         const ab_entry_t *x, int32_t item) {
  if (!ETK_VEC_RESERVE(ab->rows, ab->cap, ab->count + 1)) return NULL;
  ab_row_t *r = &ab->rows[ab->count++];
  memset(r, 0, sizeof *r);
  r->pair = pair;
  r->is_output = x->is_output;
  r->chain = x->chain;
  r->iid = x->iid;
  r->did_int = x->did_int;
  r->did_str = x->did_str;
  r->out_index = x->out_index;
  r->item = item;
  r->name = x->name;
  r->event_a = r->event_b = UINT32_MAX;
  r->shape_a = r->shape_b = SIZE_MAX;
  r->mse = r->snr = r->max_abs = r->cosine = NAN;
  return r;
}

typedef struct side {
  const etk_etdump_t *dump;
  const uint8_t *buf;
  size_t len;
  const char *label; /* "A" / "B" for errors */
} side_t;

static const char *value_dtype(const etk_numerics_value_t *v) {
  switch (v->kind) {
    case ETK_NUMERICS_VALUE_TENSOR:
      return dtype_name(v->scalar_type);
    case ETK_NUMERICS_VALUE_SCALAR:
      return v->value_type == ETK_ETDUMP_VALUE_TYPE_INT    ? "int"
             : v->value_type == ETK_ETDUMP_VALUE_TYPE_BOOL ? "bool"
                                                           : "float";
    case ETK_NUMERICS_VALUE_TENSOR_LIST:
      return "list";
    default:
      return "None";
  }
}

/* Inflates one side; ETK_E_UNSUPPORTED (a dtype nobody reads) becomes a
 * NONE value (the row says "not numeric"), other errors stop the build. */
static int inflate(const side_t *s, uint32_t event, uint32_t item,
                   etk_numerics_value_t *v, etk_error_t *err) {
  etk_error_t local;
  etk_error_clear(&local);
  int rc =
      etk_numerics_debug_value(s->dump, s->buf, s->len, event, item, v, &local);
  if (rc == ETK_E_UNSUPPORTED) {
    memset(v, 0, sizeof *v);
    v->kind = ETK_NUMERICS_VALUE_NONE;
    return ETK_OK;
  }
  if (rc != ETK_OK && err && err->code == ETK_OK) {
    *err = local;
    char prefix[48];
    snprintf(prefix, sizeof prefix, "ETDump event %u: ", event);
    prefix_message(err, prefix);
    err->where[0] = 0;
    etk_error_where(err, s->label);
  }
  return rc;
}

static void describe(etk_numerics_ab_t *ab, const etk_numerics_value_t *v,
                     const char **dtype, size_t *shape) {
  *dtype = value_dtype(v);
  etk_numerics_tensor_t view;
  if (etk_numerics_value_view(v, &view)) {
    char text[1400];
    etk_numerics_shape_text(&view, text, sizeof text);
    *shape = pool_add(ab, text);
  }
}

/* An integer or bool tensor, or an Int/Bool scalar. */
static bool exact_values(const etk_numerics_value_t *v) {
  if (v->kind == ETK_NUMERICS_VALUE_SCALAR)
    return v->value_type == ETK_ETDUMP_VALUE_TYPE_INT ||
           v->value_type == ETK_ETDUMP_VALUE_TYPE_BOOL;
  return v->kind == ETK_NUMERICS_VALUE_TENSOR &&
         etk_numerics_is_exact_type(v->scalar_type);
}

static void compare_row(ab_row_t *r, const etk_numerics_value_t *va,
                        const etk_numerics_value_t *vb) {
  etk_numerics_tensor_t a, b;
  if (va->kind == ETK_NUMERICS_VALUE_NONE ||
      vb->kind == ETK_NUMERICS_VALUE_NONE) {
    r->status = ETK_NUMERICS_NOT_NUMERIC;
    return;
  }
  if (va->kind != vb->kind || !etk_numerics_value_view(va, &a) ||
      !etk_numerics_value_view(vb, &b)) {
    r->status = ETK_NUMERICS_KIND_MISMATCH;
    return;
  }
  uint64_t numel;
  if (etk_numerics_tensor_check(&a, &numel, NULL) != ETK_OK ||
      etk_numerics_tensor_check(&b, NULL, NULL) != ETK_OK) {
    r->status = ETK_NUMERICS_NOT_NUMERIC;
    return;
  }
  bcast_t it;
  if (bcast_init(&it, &a, &b, true, NULL) != ETK_OK) {
    r->status = ETK_NUMERICS_SHAPE_MISMATCH;
    return;
  }
  r->status = ETK_NUMERICS_MATCHED;
  r->numel = numel;
  if (exact_values(va) && exact_values(vb)) {
    /* indices and flags: how many differ, and by how much at most */
    r->exact = 1;
    etk_numerics_count_mismatches(&a, &b, &r->mismatches, NULL, NULL);
    etk_numerics_compare(&a, &b, ETK_NUMERICS_MAX_ABS,
                         ETK_NUMERICS_NO_BROADCAST, &r->max_abs, NULL);
    return;
  }
  etk_numerics_compare(&a, &b, ETK_NUMERICS_MSE, ETK_NUMERICS_NO_BROADCAST,
                       &r->mse, NULL);
  etk_numerics_compare(&a, &b, ETK_NUMERICS_SNR, ETK_NUMERICS_NO_BROADCAST,
                       &r->snr, NULL);
  etk_numerics_compare(&a, &b, ETK_NUMERICS_MAX_ABS, ETK_NUMERICS_NO_BROADCAST,
                       &r->max_abs, NULL);
  etk_numerics_compare(&a, &b, ETK_NUMERICS_COSINE, ETK_NUMERICS_NO_BROADCAST,
                       &r->cosine, NULL);
}

static uint32_t list_count_of(const etk_etdump_t *d, uint32_t event,
                              bool *is_list) {
  etk_etdump_value_t v;
  *is_list = false;
  if (etk_etdump_event_value(d, event, &v) != ETK_OK || !v.present) return 0;
  *is_list = v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST;
  return v.tensor_count;
}

/* Rows of one logged value (x from A, y from B; either may be NULL). */
static int add_value_rows(etk_numerics_ab_t *ab, size_t pair, const side_t *sa,
                          const ab_entry_t *x, const side_t *sb,
                          const ab_entry_t *y, etk_error_t *err) {
  bool la = false, lb = false;
  uint32_t ca = x ? list_count_of(sa->dump, x->event, &la) : 0;
  uint32_t cb = y ? list_count_of(sb->dump, y->event, &lb) : 0;
  bool lists = (x ? la : true) && (y ? lb : true);
  uint32_t items = lists ? (ca > cb ? ca : cb) : 1;
  if (x && y && la != lb) items = 1; /* a list against a single value */
  for (uint32_t k = 0; k < items; k++) {
    ab_row_t *r = new_row(ab, pair, x ? x : y,
                          lists && !(x && y && la != lb) ? (int32_t)k : -1);
    if (!r) return no_mem(err);
    etk_numerics_value_t va, vb;
    bool has_a = x && (!lists || k < ca), has_b = y && (!lists || k < cb);
    uint32_t item_a = (x && la && !(y && !lb)) ? k : (la ? ~0u : 0);
    uint32_t item_b = (y && lb && !(x && !la)) ? k : (lb ? ~0u : 0);
    if (has_a) {
      r->event_a = x->event;
      if (inflate(sa, x->event, item_a, &va, err) != ETK_OK)
        return err ? err->code : ETK_E_FORMAT;
      describe(ab, &va, &r->dtype_a, &r->shape_a);
    }
    if (has_b) {
      r->event_b = y->event;
      if (inflate(sb, y->event, item_b, &vb, err) != ETK_OK)
        return err ? err->code : ETK_E_FORMAT;
      describe(ab, &vb, &r->dtype_b, &r->shape_b);
    }
    if (has_a && has_b)
      compare_row(r, &va, &vb);
    else
      r->status = has_a ? ETK_NUMERICS_ONLY_A : ETK_NUMERICS_ONLY_B;
  }
  return ETK_OK;
}

static bool same_name(const etk_inspector_block_t *x,
                      const etk_inspector_block_t *y) {
  return x->name_present == y->name_present && x->name_len == y->name_len &&
         memcmp(x->name, y->name, x->name_len) == 0;
}

static size_t occurrence(const etk_inspector_t *insp, size_t index,
                         const etk_inspector_block_t *blk) {
  size_t k = 0;
  for (size_t i = 0; i < index; i++) {
    etk_inspector_block_t o;
    if (etk_inspector_block_get(insp, i, &o) == ETK_OK && same_name(&o, blk))
      k++;
  }
  return k;
}

void etk_numerics_ab_free(etk_numerics_ab_t *ab) {
  if (!ab) return;
  for (size_t i = 0; i < ab->count; i++) free(ab->rows[i].op_types);
  free(ab->rows);
  free(ab->pairs);
  free(ab->pool);
  free(ab);
}

int etk_numerics_ab_build(const etk_inspector_t *a, const uint8_t *a_buffer,
                          size_t a_len, const etk_inspector_t *b,
                          const uint8_t *b_buffer, size_t b_len,
                          const etk_numerics_ab_options_t *options,
                          etk_numerics_ab_t **out, etk_error_t *err) {
  if (!a || !b || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  etk_numerics_ab_t *ab = calloc(1, sizeof *ab);
  size_t na = etk_inspector_block_count(a), nb = etk_inspector_block_count(b);
  bool *used = calloc(nb ? nb : 1, sizeof *used);
  if (ab) ab->pairs = calloc(na ? na : 1, sizeof *ab->pairs);
  if (!ab || !used || !ab->pairs) {
    free(used);
    etk_numerics_ab_free(ab);
    return no_mem(err);
  }
  side_t sa = {etk_inspector_etdump(a), a_buffer, a_len, "A"};
  side_t sb = {etk_inspector_etdump(b), b_buffer, b_len, "B"};
  bool skip_outputs = options && options->skip_outputs;
  int rc = ETK_OK;
  for (size_t i = 0; i < na && rc == ETK_OK; i++) {
    etk_inspector_block_t ba, bb;
    if (etk_inspector_block_get(a, i, &ba) != ETK_OK) continue;
    size_t k = occurrence(a, i, &ba), match = SIZE_MAX, seen = 0;
    for (size_t j = 0; j < nb && match == SIZE_MAX; j++)
      if (etk_inspector_block_get(b, j, &bb) == ETK_OK && same_name(&ba, &bb) &&
          seen++ == k)
        match = j;
    if (match == SIZE_MAX) {
      ab->unpaired_a++;
      continue;
    }
    used[match] = true;
    etk_inspector_block_get(b, match, &bb);
    size_t pair = ab->pair_count++;
    ab->pairs[pair] = (ab_pair_t){ba.name, k, i, match};
    ab_entry_t *ea = NULL, *eb = NULL;
    size_t ca = 0, cb = 0;
    rc = collect(sa.dump, ba.runs[0], &ea, &ca, err);
    if (rc == ETK_OK) rc = collect(sb.dump, bb.runs[0], &eb, &cb, err);
    size_t x = 0, y = 0;
    while (rc == ETK_OK && (x < ca || y < cb)) {
      int c = x >= ca ? 1 : y >= cb ? -1 : cmp_for_match(&ea[x], &eb[y]);
      const ab_entry_t *px = c <= 0 ? &ea[x] : NULL,
                       *py = c >= 0 ? &eb[y] : NULL;
      if (px) x++;
      if (py) y++;
      if (skip_outputs && (px ? px : py)->is_output) continue;
      rc = add_value_rows(ab, pair, &sa, px, &sb, py, err);
    }
    free(ea);
    free(eb);
  }
  for (size_t j = 0; j < nb; j++)
    if (!used[j]) ab->unpaired_b++;
  free(used);
  if (rc == ETK_OK && ab->pool_len == SIZE_MAX) rc = no_mem(err);
  if (rc != ETK_OK) {
    etk_numerics_ab_free(ab);
    return rc;
  }
  *out = ab;
  return ETK_OK;
}

size_t etk_numerics_ab_row_count(const etk_numerics_ab_t *ab) {
  return ab ? ab->count : 0;
}

size_t etk_numerics_ab_unpaired_blocks(const etk_numerics_ab_t *ab, int of_b) {
  return ab ? (of_b ? ab->unpaired_b : ab->unpaired_a) : 0;
}

int etk_numerics_ab_row_get(const etk_numerics_ab_t *ab, size_t index,
                            etk_numerics_row_t *out) {
  if (!ab || !out || index >= ab->count) return ETK_E_INVALID_ARGUMENT;
  const ab_row_t *r = &ab->rows[index];
  const ab_pair_t *p = &ab->pairs[r->pair];
  memset(out, 0, sizeof *out);
  out->block = p->name ? p->name : "";
  out->block_occurrence = p->occurrence;
  out->block_a = p->block_a;
  out->block_b = p->block_b;
  out->is_output = r->is_output;
  out->chain_index = r->chain;
  out->instruction_id = r->iid;
  out->delegate_debug_id_int = r->did_int;
  out->delegate_debug_id_str = r->did_str;
  out->output_index = r->out_index;
  out->list_item = r->item;
  out->name = r->name ? r->name : "";
  out->event_a = r->event_a;
  out->event_b = r->event_b;
  out->status = r->status;
  out->dtype_a = r->dtype_a;
  out->dtype_b = r->dtype_b;
  out->shape_a = r->shape_a == SIZE_MAX ? NULL : ab->pool + r->shape_a;
  out->shape_b = r->shape_b == SIZE_MAX ? NULL : ab->pool + r->shape_b;
  out->numel = r->numel;
  out->mse = r->mse;
  out->snr = r->snr;
  out->max_abs = r->max_abs;
  out->cosine = r->cosine;
  out->op_types = r->op_types;
  out->exact = r->exact;
  out->mismatches = r->mismatches;
  return ETK_OK;
}

int etk_numerics_ab_set_op_types(etk_numerics_ab_t *ab, size_t index,
                                 const char *op_types) {
  if (!ab || index >= ab->count) return ETK_E_INVALID_ARGUMENT;
  char *copy = NULL;
  if (op_types) {
    copy = malloc(strlen(op_types) + 1);
    if (!copy) return ETK_E_NO_MEMORY;
    strcpy(copy, op_types);
  }
  free(ab->rows[index].op_types);
  ab->rows[index].op_types = copy;
  return ETK_OK;
}

size_t etk_numerics_ab_mark_arguments(etk_numerics_ab_t *ab,
                                      etk_numerics_outputs_fn outputs,
                                      void *ctx) {
  size_t marked = 0;
  if (!ab) return 0;
  for (size_t r = 0; r < ab->count;) {
    const ab_row_t *f = &ab->rows[r];
    size_t end = r + 1;
    uint32_t logged = f->out_index + 1;
    while (end < ab->count && ab->rows[end].pair == f->pair &&
           !ab->rows[end].is_output == !f->is_output &&
           ab->rows[end].iid == f->iid && ab->rows[end].did_int == f->did_int &&
           !ab->rows[end].did_str == !f->did_str &&
           (!f->did_str || strcmp(ab->rows[end].did_str, f->did_str) == 0)) {
      if (ab->rows[end].out_index + 1 > logged)
        logged = ab->rows[end].out_index + 1;
      end++;
    }
    if (!f->is_output && f->iid >= 0 && f->did_int < 0 && !f->did_str) {
      const char *block = ab->pairs[f->pair].name;
      int64_t outs = outputs ? outputs(ctx, block ? block : "", f->iid) : -1;
      if (outs < 0)
        outs = f->name && strcmp(f->name, "DELEGATE_CALL") == 0 ? 1 : 0;
      for (size_t k = r; outs > 0 && k < end; k++)
        if ((uint64_t)ab->rows[k].out_index + (uint64_t)outs <
                (uint64_t)logged &&
            ab->rows[k].status == ETK_NUMERICS_MATCHED) {
          ab->rows[k].status = ETK_NUMERICS_ARGUMENT;
          marked++;
        }
    }
    r = end;
  }
  return marked;
}
