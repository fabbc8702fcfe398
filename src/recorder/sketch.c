/*
 * sketch.c - the fixed-memory latency sketch (etkit/sketch.h).
 *
 * Data layout: a window of ETK_SKETCH_BUCKETS counters; counts[i] holds the
 * values whose key (at the current shift) is base + i.  Only [lo, hi] is
 * occupied; lo > hi means the window is empty (values may still sit in the
 * zero bucket).
 *
 * Invariants:
 *   - counts[lo] and counts[hi] are non-zero when the window is occupied,
 *     and so everything outside [lo, hi] is zero;
 *   - the shift is the smallest that lets every key seen fit in the
 *     window: it rises only when a key would not fit otherwise.  That is
 *     what makes merging order-independent: the result depends only on the
 *     set of keys, never on which sketch saw them first;
 *   - base is history (where the window happens to sit); the bytes written
 *     start at the first occupied key, so they do not depend on it.
 *
 * The key function avoids libm: e from the exponent bits, a polynomial for
 * log2 of the mantissa.  Its smallest slope (times 1 + s) is at s = 0,
 * where it is 1 + Q0; MIN_SLOPE is a little below it, so buckets are a
 * hair narrower than the bound requires and a rounding at a bucket edge
 * cannot push a value's error past it.
 */
#include "etkit/sketch.h"

#include <string.h>

/* P(s) = s + (s - s^2) * (Q0 + Q1 s + Q2 s^2 + Q3 s^3) ~ log2(1 + s),
 * fitted by least squares on [0, 1]; P(0) = 0, P(1) = 1, P' > 0. */
#define Q0 0.4417403
#define Q1 (-0.2660299)
#define Q2 0.1463143
#define Q3 (-0.0440047)
#define MIN_SLOPE 1.44174
#define SMALLEST_NORMAL 2.2250738585072014e-308

static double poly(double s) {
  return s + (s - s * s) * (Q0 + s * (Q1 + s * (Q2 + s * Q3)));
}

/* floor(k / 2^n) for any sign, without relying on >> of negatives. */
static int32_t floor_shift(int32_t k, unsigned n) {
  if (n == 0) return k;
  if (n > 31) return k < 0 ? -1 : 0;
  if (k >= 0) return (int32_t)((uint32_t)k >> n);
  return -(int32_t)(((uint32_t)(-(k + 1)) >> n) + 1u);
}

static int32_t floor_to_int(double y) {
  int32_t t = (int32_t)y;
  if ((double)t > y) t--;
  return t;
}

/* Key at shift 0 of a normal positive finite x. */
static int32_t key_of(double multiplier, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int32_t e = (int32_t)((bits >> 52) & 0x7ffu) - 1023;
  uint64_t mbits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
  double m;
  memcpy(&m, &mbits, sizeof m);
  return floor_to_int(multiplier * ((double)e + poly(m - 1.0)));
}

/* ------------------------------------------- the integer (ticks) path
 *
 * etk_sketch_add_ticks gives exactly what etk_sketch_add((double)t) gives,
 * with integer arithmetic only (an MCU without a double FPU would run the
 * double path in soft float: about 2,000 cycles a value on Cortex-M4F).
 *
 * The key: the same index e + P(s), in fixed point.  t = 2^e (1 + s) with
 * e from count-leading-zeros; S = floor(s 2^32) (exact for t < 2^33, else
 * truncated by < 1 unit).  P in Q32 with nonnegative terms only (Q1 and Q3
 * are negative, so R(s) = Q0 - s (|Q1| - s (Q2 - s |Q3|)) and every partial
 * result lies in [0, 1)), each product truncated.  Error budget, in units
 * of 2^-32: S < 1, the coefficients < 0.5 each, each truncation < 1; that
 * gives |P' - P(s)| < 8 (a3, a2, r < 4 each, weighted by s <= 1 and
 * s - s^2 <= 1/4; d < 3).  y' = multiplier (e + P') with the multiplier
 * truncated to Q32 (< 64 units for e < 64) and two truncations: |y' - y| <
 * 8 multiplier + 70 units, and the double path's own rounding (y < 2^18,
 * a dozen operations at 2^-53) is below 1 unit.  When y' lies farther than D =
 * 16 (floor(multiplier) + 1) + 128 units (twice the budget) from an integer,
 * floor(y') is the double path's key; otherwise (about one value in 3 x 10^6 at
 * 1 %) the double path decides.  tests/recorder/test_sketch_ticks.c checks
 * every tick below 2^24, both sides of every key boundary below 2^53 and random
 * values. */
/* The integer path is the one taken on 32-bit Arm (Cortex-M: soft-float
 * doubles without a double-precision FPU, and on M55's double FPU still a
 * little faster than the double path with its u64 -> double call) and on
 * RISC-V without D.  -DETK_SKETCH_INTEGER_PATH=1 forces it (the
 * equivalence test does, on the host, which takes the double path). */
#ifndef ETK_SKETCH_INTEGER_PATH
#if defined(__arm__)
#define ETK_SKETCH_INTEGER_PATH 1
#elif defined(__riscv) && !(defined(__riscv_flen) && __riscv_flen >= 64)
#define ETK_SKETCH_INTEGER_PATH 1
#else
#define ETK_SKETCH_INTEGER_PATH 0
#endif
#endif

#if ETK_SKETCH_INTEGER_PATH
#define Q32(c) ((uint32_t)((c)*4294967296.0 + 0.5))
static const uint32_t Q0U = Q32(Q0), Q1U = Q32(-(Q1)), Q2U = Q32(Q2),
                      Q3U = Q32(-(Q3));

static uint32_t mulhi(uint32_t a, uint32_t b) {
  return (uint32_t)(((uint64_t)a * b) >> 32);
}

static unsigned top_bit(uint64_t t) { /* t > 0 */
#if defined(__GNUC__) || defined(__clang__)
  return 63u - (unsigned)__builtin_clzll(t);
#else
  unsigned e = 0;
  for (unsigned w = 32; w != 0; w >>= 1)
    if (t >> w) {
      t >>= w;
      e += w;
    }
  return e;
#endif
}

/* The key at shift 0 of 1 <= t < 2^53, `value` being (double)t. */
static int32_t key_of_ticks(double multiplier, uint64_t t, double value) {
  unsigned e = top_bit(t);
  uint32_t sq = e >= 32 ? (uint32_t)(t >> (e - 32)) : (uint32_t)(t << (32 - e));
  uint32_t a3 = Q2U - mulhi(Q3U, sq);
  uint32_t a2 = Q1U - mulhi(a3, sq);
  uint32_t r = Q0U - mulhi(a2, sq);
  uint32_t d = sq - mulhi(sq, sq);
  uint64_t u = ((uint64_t)e << 32) + sq + mulhi(d, r);
  /* the multiplier (1.7 .. 3500: its exponent is 0 .. 11) in Q32 */
  uint64_t mb;
  memcpy(&mb, &multiplier, sizeof mb);
  unsigned me = (unsigned)((mb >> 52) & 0x7ffu) - 1023u;
  uint64_t m =
      ((mb & 0x000fffffffffffffull) | 0x0010000000000000ull) >> (20u - me);
  uint32_t mh = (uint32_t)(m >> 32), ml = (uint32_t)m;
  uint32_t uh = (uint32_t)(u >> 32), ul = (uint32_t)u;
  uint64_t y = (uint64_t)mh * ul + ((uint64_t)mh * uh << 32) +
               (uint64_t)ml * uh + mulhi(ml, ul);
  uint32_t frac = (uint32_t)y, dist = 16u * (mh + 1u) + 128u;
  if (frac > dist && frac < 0u - dist) return (int32_t)(y >> 32);
  return key_of(multiplier, value);
}
#endif

/* 2^e for a normal exponent. */
static double pow2(int32_t e) {
  if (e < -1022) e = -1022;
  if (e > 1023) e = 1023;
  uint64_t bits = (uint64_t)(e + 1023) << 52;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* Inverse of e + P(s): the x whose index is f. */
static double value_of_index(double f) {
  int32_t e = floor_to_int(f);
  double t = f - (double)e, lo = 0.0, hi = 1.0;
  for (int i = 0; i < 60; i++) {
    double mid = 0.5 * (lo + hi);
    if (poly(mid) < t)
      lo = mid;
    else
      hi = mid;
  }
  return (1.0 + 0.5 * (lo + hi)) * pow2(e);
}

/* ln((1 + a) / (1 - a)) = 2 atanh(a), by its series (a <= 0.2). */
static double log_gamma(double a) {
  double term = a, sum = 0.0, a2 = a * a;
  for (int k = 1; k < 80; k += 2) {
    sum += term / (double)k;
    term *= a2;
  }
  return 2.0 * sum;
}

static void saturating_add(etk_sketch_t *s, uint32_t *c, uint64_t n) {
  uint64_t v = (uint64_t)*c + n;
  if (v > UINT32_MAX) {
    v = UINT32_MAX;
    s->flags |= ETK_SKETCH_FLAG_SATURATED;
  }
  *c = (uint32_t)v;
}

static int occupied(const etk_sketch_t *s) {
  return s->lo <= s->hi;
}

/* Halves the resolution: keys k become floor(k / 2).  Destinations never
 * lie above their sources, so one ascending pass works in place. */
static void halve(etk_sketch_t *s) {
  int32_t nbase = floor_shift(s->base, 1);
  uint16_t nlo = (uint16_t)(floor_shift(s->base + s->lo, 1) - nbase);
  uint16_t nhi = (uint16_t)(floor_shift(s->base + s->hi, 1) - nbase);
  for (uint32_t i = s->lo; i <= s->hi; i++) {
    uint32_t c = s->counts[i];
    if (c == 0) continue;
    s->counts[i] = 0;
    uint32_t ni = (uint32_t)(floor_shift(s->base + (int32_t)i, 1) - nbase);
    saturating_add(s, &s->counts[ni], c);
  }
  s->base = nbase;
  s->lo = nlo;
  s->hi = nhi;
  s->shift++;
}

/* Moves the window so that its first counter is key nbase (rare: only
 * when a key falls outside it, so clearing the whole rest is fine). */
static void rebase(etk_sketch_t *s, int32_t nbase) {
  uint32_t n = (uint32_t)(s->hi - s->lo + 1);
  uint32_t nlo = (uint32_t)((int32_t)s->lo + (s->base - nbase));
  memmove(&s->counts[nlo], &s->counts[s->lo], n * sizeof s->counts[0]);
  memset(s->counts, 0, nlo * sizeof s->counts[0]);
  memset(&s->counts[nlo + n], 0,
         (ETK_SKETCH_BUCKETS - nlo - n) * sizeof s->counts[0]);
  s->base = nbase;
  s->lo = (uint16_t)nlo;
  s->hi = (uint16_t)(nlo + n - 1u);
}

/* Adds n to the bucket of key k, given at shift `at` (<= s->shift). */
static void add_key(etk_sketch_t *s, int32_t k, unsigned at, uint64_t n) {
  k = floor_shift(k, s->shift - at);
  if (!occupied(s)) {
    s->base = k - ETK_SKETCH_BUCKETS / 2;
    s->lo = s->hi = ETK_SKETCH_BUCKETS / 2;
    saturating_add(s, &s->counts[s->lo], n);
    return;
  }
  int32_t idx = k - s->base;
  if (idx < 0 || idx >= ETK_SKETCH_BUCKETS) {
    int32_t low = s->base + s->lo, high = s->base + s->hi;
    if (k < low) low = k;
    if (k > high) high = k;
    while (high - low + 1 > ETK_SKETCH_BUCKETS) {
      halve(s);
      k = floor_shift(k, 1);
      low = floor_shift(low, 1);
      high = floor_shift(high, 1);
    }
    idx = k - s->base;
    if (idx < 0)
      rebase(s, high - (ETK_SKETCH_BUCKETS - 1));
    else if (idx >= ETK_SKETCH_BUCKETS)
      rebase(s, low);
    idx = k - s->base;
  }
  saturating_add(s, &s->counts[idx], n);
  if ((uint32_t)idx < s->lo) s->lo = (uint16_t)idx;
  if ((uint32_t)idx > s->hi) s->hi = (uint16_t)idx;
}

static void set_empty(etk_sketch_t *s, double a) {
  memset(s, 0, sizeof *s);
  s->relative_error = a;
  s->multiplier = 1.0 / (log_gamma(a) * MIN_SLOPE);
  s->lo = 1;
  s->hi = 0;
}

static etk_status_t fail(etk_sketch_t *s, etk_status_t code) {
  set_empty(s, ETK_SKETCH_DEFAULT_RELATIVE_ERROR);
  return code;
}

etk_status_t etk_sketch_init(etk_sketch_t *s, double relative_error) {
  if (s == NULL) return ETK_E_INVALID_ARGUMENT;
  if (relative_error == 0.0) relative_error = ETK_SKETCH_DEFAULT_RELATIVE_ERROR;
  if (!(relative_error >= ETK_SKETCH_MIN_RELATIVE_ERROR &&
        relative_error <= ETK_SKETCH_MAX_RELATIVE_ERROR))
    return ETK_E_INVALID_ARGUMENT;
  set_empty(s, relative_error);
  return ETK_OK;
}

etk_status_t etk_sketch_add(etk_sketch_t *s, double value) {
  if (s == NULL || value != value || value - value != 0.0)
    return ETK_E_INVALID_ARGUMENT; /* NaN, or inf (inf - inf is NaN) */
  if (s->count == 0) {
    s->min = s->max = value;
  } else {
    if (value < s->min) s->min = value;
    if (value > s->max) s->max = value;
  }
  s->count++;
  s->sum += value;
  if (value < SMALLEST_NORMAL) {
    if (s->zero_count == UINT32_MAX)
      s->flags |= ETK_SKETCH_FLAG_SATURATED;
    else
      s->zero_count++;
    return ETK_OK;
  }
  int32_t k = floor_shift(key_of(s->multiplier, value), s->shift);
  int32_t idx = k - s->base;
  if (occupied(s) && idx >= (int32_t)s->lo && idx <= (int32_t)s->hi &&
      s->counts[idx] < UINT32_MAX) {
    s->counts[idx]++; /* the hot path */
    return ETK_OK;
  }
  add_key(s, k, s->shift, 1);
  return ETK_OK;
}

etk_status_t etk_sketch_add_ticks(etk_sketch_t *s, uint64_t ticks) {
  if (s == NULL) return ETK_E_INVALID_ARGUMENT;
#if !ETK_SKETCH_INTEGER_PATH
  return etk_sketch_add(s, (double)ticks); /* double hardware */
#else
  if (ticks == 0 || ticks >> 53 != 0) return etk_sketch_add(s, (double)ticks);
  /* the double of t, exact below 2^53, from its bits */
  unsigned e = top_bit(ticks);
  uint64_t bits = ((uint64_t)(e + 1023u) << 52) |
                  ((ticks << (52u - e)) & 0x000fffffffffffffull);
  double value;
  memcpy(&value, &bits, sizeof value);
  /* min and max: nonnegative doubles order as their bits do */
  uint64_t mn, mx;
  memcpy(&mn, &s->min, sizeof mn);
  memcpy(&mx, &s->max, sizeof mx);
  if (s->count == 0) {
    s->min = s->max = value;
  } else {
    if (mn >> 63 == 0 && bits < mn) s->min = value;
    if (mx >> 63 != 0 || bits > mx) s->max = value; /* a negative max */
  }
  s->count++;
  s->sum += value;
  int32_t k = floor_shift(key_of_ticks(s->multiplier, ticks, value), s->shift);
  int32_t idx = k - s->base;
  if (occupied(s) && idx >= (int32_t)s->lo && idx <= (int32_t)s->hi &&
      s->counts[idx] < UINT32_MAX) {
    s->counts[idx]++;
    return ETK_OK;
  }
  add_key(s, k, s->shift, 1);
  return ETK_OK;
#endif
}

etk_status_t etk_sketch_init_like(etk_sketch_t *s, const etk_sketch_t *model) {
  if (s == NULL || model == NULL) return ETK_E_INVALID_ARGUMENT;
  double a = model->relative_error, m = model->multiplier;
  memset(s, 0, sizeof *s);
  s->relative_error = a;
  s->multiplier = m;
  s->lo = 1;
  s->hi = 0;
  return ETK_OK;
}

etk_status_t etk_sketch_merge(etk_sketch_t *dst, const etk_sketch_t *src) {
  if (dst == NULL || src == NULL) return ETK_E_INVALID_ARGUMENT;
  if (dst->relative_error != src->relative_error) return ETK_E_MISMATCH;
  if (src->count == 0) return ETK_OK;
  if (dst == src) {
    for (uint32_t i = 0; i < ETK_SKETCH_BUCKETS; i++)
      saturating_add(dst, &dst->counts[i], dst->counts[i]);
    uint64_t z = (uint64_t)dst->zero_count * 2u;
    dst->zero_count = z > UINT32_MAX ? UINT32_MAX : (uint32_t)z;
    if (z > UINT32_MAX) dst->flags |= ETK_SKETCH_FLAG_SATURATED;
    dst->count *= 2u;
    dst->sum *= 2.0;
    return ETK_OK;
  }
  while (dst->shift < src->shift) {
    if (occupied(dst))
      halve(dst);
    else
      dst->shift++;
  }
  if (occupied(src))
    for (uint32_t i = src->lo; i <= src->hi; i++)
      if (src->counts[i] != 0)
        add_key(dst, src->base + (int32_t)i, src->shift, src->counts[i]);
  uint64_t z = (uint64_t)dst->zero_count + src->zero_count;
  dst->zero_count = z > UINT32_MAX ? UINT32_MAX : (uint32_t)z;
  if (z > UINT32_MAX) dst->flags |= ETK_SKETCH_FLAG_SATURATED;
  if (dst->count == 0) {
    dst->min = src->min;
    dst->max = src->max;
  } else {
    if (src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
  }
  dst->count += src->count;
  dst->sum += src->sum;
  dst->flags |= src->flags;
  return ETK_OK;
}

uint64_t etk_sketch_count(const etk_sketch_t *s) {
  return s ? s->count : 0;
}
double etk_sketch_min(const etk_sketch_t *s) {
  return s ? s->min : 0.0;
}
double etk_sketch_max(const etk_sketch_t *s) {
  return s ? s->max : 0.0;
}
double etk_sketch_sum(const etk_sketch_t *s) {
  return s ? s->sum : 0.0;
}
double etk_sketch_relative_error(const etk_sketch_t *s) {
  return s ? s->relative_error : 0.0;
}

double etk_sketch_error_bound(const etk_sketch_t *s) {
  if (s == NULL) return 0.0;
  /* a bucket 2^k times as wide in ln(x): tanh(2u) = 2 tanh(u)/(1+tanh^2) */
  double a = s->relative_error;
  for (unsigned k = 0; k < s->shift && a < 1.0; k++)
    a = 2.0 * a / (1.0 + a * a);
  return a;
}

static double clamp(const etk_sketch_t *s, double v) {
  if (v < s->min) return s->min;
  if (v > s->max) return s->max;
  return v;
}

etk_status_t etk_sketch_quantile(const etk_sketch_t *s, double q, double *out) {
  if (s == NULL || out == NULL || !(q >= 0.0 && q <= 1.0))
    return ETK_E_INVALID_ARGUMENT;
  if (s->count == 0) return ETK_E_NOT_FOUND;
  if (q == 0.0) {
    *out = s->min;
    return ETK_OK;
  }
  if (q == 1.0) {
    *out = s->max;
    return ETK_OK;
  }
  double r = q * (double)(s->count - 1u);
  uint64_t rank = (uint64_t)r;
  uint64_t cum = s->zero_count;
  if (rank < cum) {
    *out = clamp(s, 0.0);
    return ETK_OK;
  }
  if (occupied(s)) {
    double width = pow2((int32_t)s->shift) / s->multiplier;
    for (uint32_t i = s->lo; i <= s->hi; i++) {
      cum += s->counts[i];
      if (rank < cum) {
        double k = (double)(s->base + (int32_t)i);
        double lo = value_of_index(k * width);
        double hi = value_of_index((k + 1.0) * width);
        *out = clamp(s, 2.0 * lo * hi / (lo + hi));
        return ETK_OK;
      }
    }
  }
  *out = s->max; /* saturated counters: the rank lies past them */
  return ETK_OK;
}

/* ------------------------------------------------------------ bytes */

static size_t varint_size(uint32_t v) {
  size_t n = 1;
  while (v >= 0x80u) {
    v >>= 7;
    n++;
  }
  return n;
}

size_t etk_sketch_serialized_size(const etk_sketch_t *s) {
  size_t n = ETK_SKETCH_HEADER_BYTES;
  if (s != NULL && occupied(s))
    for (uint32_t i = s->lo; i <= s->hi; i++) n += varint_size(s->counts[i]);
  return n;
}

static void put_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_f64(uint8_t *p, double d) {
  uint64_t v;
  memcpy(&v, &d, sizeof v);
  put_u64(p, v);
}
static uint16_t get_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t get_u32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static double get_f64(const uint8_t *p) {
  uint64_t v = get_u64(p);
  double d;
  memcpy(&d, &v, sizeof d);
  return d;
}

etk_status_t etk_sketch_serialize(const etk_sketch_t *s, uint8_t *out,
                                  size_t cap, size_t *written) {
  if (s == NULL || (out == NULL && cap != 0)) return ETK_E_INVALID_ARGUMENT;
  size_t need = etk_sketch_serialized_size(s);
  if (cap < need) return ETK_E_FULL;
  uint16_t n = occupied(s) ? (uint16_t)(s->hi - s->lo + 1) : 0;
  memcpy(out, "ETKS", 4);
  out[4] = 1;
  out[5] = s->shift;
  put_u16(out + 6, n);
  put_f64(out + 8, s->relative_error);
  put_u64(out + 16, s->count);
  put_u64(out + 24, s->zero_count);
  put_f64(out + 32, s->sum);
  put_f64(out + 40, s->min);
  put_f64(out + 48, s->max);
  put_u32(out + 56, (uint32_t)(n ? s->base + (int32_t)s->lo : 0));
  put_u32(out + 60, s->flags);
  size_t at = ETK_SKETCH_HEADER_BYTES;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = s->counts[s->lo + i];
    while (v >= 0x80u) {
      out[at++] = (uint8_t)(v | 0x80u);
      v >>= 7;
    }
    out[at++] = (uint8_t)v;
  }
  if (written) *written = at;
  return ETK_OK;
}

static int finite(double d) {
  return d == d && d - d == 0.0;
}

etk_status_t etk_sketch_deserialize(etk_sketch_t *s, const uint8_t *in,
                                    size_t len, size_t *used) {
  if (s == NULL || (in == NULL && len != 0)) return ETK_E_INVALID_ARGUMENT;
  set_empty(s, ETK_SKETCH_DEFAULT_RELATIVE_ERROR);
  if (len < ETK_SKETCH_HEADER_BYTES) return ETK_E_TRUNCATED;
  if (memcmp(in, "ETKS", 4) != 0) return ETK_E_BAD_IDENTIFIER;
  double a = get_f64(in + 8);
  uint16_t n = get_u16(in + 6);
  uint64_t count = get_u64(in + 16), zero = get_u64(in + 24);
  double sum = get_f64(in + 32), mn = get_f64(in + 40), mx = get_f64(in + 48);
  int32_t first = (int32_t)get_u32(in + 56);
  uint32_t flags = get_u32(in + 60);
  if (in[4] != 1 || in[5] > 40 || n > ETK_SKETCH_BUCKETS ||
      !(a >= ETK_SKETCH_MIN_RELATIVE_ERROR &&
        a <= ETK_SKETCH_MAX_RELATIVE_ERROR) ||
      zero > UINT32_MAX || (flags & ~ETK_SKETCH_FLAG_SATURATED) != 0 ||
      !finite(sum) || !finite(mn) || !finite(mx) || mn > mx ||
      first < -(1 << 30) || first > (1 << 30) ||
      (count == 0 && (n != 0 || zero != 0 || mn != 0.0 || mx != 0.0)))
    return ETK_E_FORMAT;
  set_empty(s, a);
  size_t at = ETK_SKETCH_HEADER_BYTES;
  uint64_t total = zero;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (at >= len) return fail(s, ETK_E_TRUNCATED);
      uint8_t b = in[at++];
      if (shift == 28 && (b & 0xf0u) != 0) return fail(s, ETK_E_FORMAT);
      v |= (uint64_t)(b & 0x7fu) << shift;
      if ((b & 0x80u) == 0) break;
    }
    if ((i == 0 || i + 1 == n) && v == 0) return fail(s, ETK_E_FORMAT);
    s->counts[i] = (uint32_t)v;
    total += v;
  }
  if ((flags & ETK_SKETCH_FLAG_SATURATED) ? total > count : total != count)
    return fail(s, ETK_E_FORMAT);
  s->count = count;
  s->zero_count = (uint32_t)zero;
  s->sum = sum;
  s->min = mn;
  s->max = mx;
  s->shift = in[5];
  s->flags = (uint8_t)flags;
  s->base = first;
  if (n) {
    s->lo = 0;
    s->hi = (uint16_t)(n - 1);
  }
  if (used) *used = at;
  return ETK_OK;
}
