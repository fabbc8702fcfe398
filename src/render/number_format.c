/*
 * number_format.c - Python-compatible text for doubles and integers.
 *
 * PURPOSE
 *   TSV output must be byte-identical to pandas, which prints floats with
 *   Python's repr(): the SHORTEST decimal string that reads back as the same
 *   double.  The table prints them with format(x, "g").  Both are done here
 *   without a big-number library.
 *
 * HOW THE SHORTEST DIGITS ARE FOUND
 *   Fast path.  Any decimal with at most 15 significant digits maps to a
 *   distinct double (DBL_DIG = 15), so if such a decimal D reads back as x,
 *   D is the unique shortest representation.  We guess D = k * 10^-q with
 *   k < 10^15 from x * 10^q, then PROVE the guess with one correctly rounded
 *   IEEE operation: (double)k / 10^q == x (k and 10^q, q <= 22, are exact
 *   doubles, so the quotient is the double nearest to D, which is exactly
 *   what reading D back yields).  Durations such as 544783 ns / 1e6 always
 *   take this path: a handful of flops and an integer-to-text conversion.
 *
 *   Slow path (values needing 16-17 digits, e.g. 0.036000000000000004).
 *   For p = 15, 16, 17 take the nearest p-digit decimal; if it reads back
 *   as x it is the answer (at p = 15 by the uniqueness above, at 16 and 17
 *   because Python picks the nearest among the shortest).  At a power of
 *   two the rounding interval is lopsided, so the nearest p-digit decimal
 *   may miss it while its neighbour on the other side of x hits it; the
 *   neighbour is tried too.  p = 17 always reads back.
 *   Where long double carries a 64-bit significand (x86-64), both steps are
 *   done in it: 10^q is exact for q <= 27, so x * 10^q and the scaled ends
 *   of x's rounding interval (x +- half an ulp, exact in 64 bits) are each
 *   off by at most 2^-64 relative; a decision closer than that margin (a
 *   tie) is left to the exact route below, so every answer is proven.
 *   The exact route, also used for subnormals (lower precision: every
 *   length is searched) and far exponents: snprintf "%.*e", which glibc
 *   rounds exactly, and strtod to read back.
 *
 *   format(x, "g") rounds x itself to 6 digits: x * 10^q (q <= 22, exact
 *   power) is computed with one rounding, so unless its fraction is within
 *   1e-9 of one half the rounding direction is certain; otherwise the sign
 *   of x * 10^q - (k + 1/2) is taken exactly with a fused multiply-add
 *   (ties to even, as Python).  Out of range, snprintf "%g" decides.
 *
 * LAYOUT (Python's float_repr_style "short")
 *   With digits d1..dn and x = 0.d1..dn * 10^decpt: positional when
 *   -4 < decpt <= 16, with ".0" added to integers; otherwise d1.d2..dne±XX
 *   with at least two exponent digits.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"
#include "pytext.h"

static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536"
    "373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576"
    "777879"
    "8081828384858687888990919293949596979899";

/* Writes the decimal digits of v < 10^8 backwards ending at end; returns
 * the new start.  32-bit arithmetic: divisions by 100 become multiplies;
 * each pair of digits is one two-byte store. */
static inline char *digits32_back(uint32_t v, char *end) {
  while (v >= 100) {
    uint32_t r = v % 100;
    v /= 100;
    end -= 2;
    memcpy(end, digit_pairs + 2 * r, 2);
  }
  if (v >= 10) {
    end -= 2;
    memcpy(end, digit_pairs + 2 * v, 2);
  } else {
    *--end = (char)('0' + v);
  }
  return end;
}

/* Exactly 8 digits of v < 10^8 (leading zeros kept) ending at end: two
 * halves of four digits, whose pairs do not wait for one another. */
static char *digits8_back(uint32_t v, char *end) {
  uint32_t hi = v / 10000, lo = v % 10000;
  memcpy(end - 8, digit_pairs + 2 * (hi / 100), 2);
  memcpy(end - 6, digit_pairs + 2 * (hi % 100), 2);
  memcpy(end - 4, digit_pairs + 2 * (lo / 100), 2);
  memcpy(end - 2, digit_pairs + 2 * (lo % 100), 2);
  return end - 8;
}

/* Number of decimal digits of v. */
static size_t digit_count32(uint32_t v) {
  return v < 10           ? 1
         : v < 100        ? 2
         : v < 1000       ? 3
         : v < 10000      ? 4
         : v < 100000     ? 5
         : v < 1000000    ? 6
         : v < 10000000   ? 7
         : v < 100000000  ? 8
         : v < 1000000000 ? 9
                          : 10;
}

size_t etk_format_uint(uint64_t v, char *out) {
  /* the length first, then the digits written backwards in place: no
   * temporary and no copy; 8-digit groups are converted in 32 bits */
  size_t n;
  if (v < 10) { /* ids, flags and counts are mostly one digit */
    out[0] = (char)('0' + v);
    out[1] = 0;
    return 1;
  }
  if (v < 100000000) {
    n = digit_count32((uint32_t)v);
    digits32_back((uint32_t)v, out + n);
  } else {
    uint64_t high = v / 100000000;
    uint32_t low = (uint32_t)(v % 100000000);
    if (high < 100000000) {
      size_t h = digit_count32((uint32_t)high);
      n = h + 8;
      digits8_back(low, out + n);
      digits32_back((uint32_t)high, out + h);
    } else {
      uint32_t top = (uint32_t)(high / 100000000);
      size_t t = digit_count32(top);
      n = t + 16;
      digits8_back(low, out + n);
      digits8_back((uint32_t)(high % 100000000), out + t + 8);
      digits32_back(top, out + t);
    }
  }
  out[n] = 0;
  return n;
}

size_t etk_format_int(int64_t v, char *out) {
  if (v < 0) {
    out[0] = '-';
    return 1 + etk_format_uint((uint64_t)0 - (uint64_t)v, out + 1);
  }
  return etk_format_uint((uint64_t)v, out);
}

const uint64_t etk_pow10[20] = {1ull,
                                10ull,
                                100ull,
                                1000ull,
                                10000ull,
                                100000ull,
                                1000000ull,
                                10000000ull,
                                100000000ull,
                                1000000000ull,
                                10000000000ull,
                                100000000000ull,
                                1000000000000ull,
                                10000000000000ull,
                                100000000000000ull,
                                1000000000000000ull,
                                10000000000000000ull,
                                100000000000000000ull,
                                1000000000000000000ull,
                                10000000000000000000ull};

size_t etk_format_decimal_repr(uint64_t v, int k, char *out) {
  /* at most 15 significant digits: the decimal v / 10^k is the shortest
   * text that reads back as the double nearest to it */
  if (k < 0 || k > 15 || v >= etk_pow10[15]) return 0;
  uint64_t whole = v / etk_pow10[k], frac = v % etk_pow10[k];
  if (whole == 0 && frac != 0 && frac < etk_pow10[k] / 10000)
    return 0; /* below 1e-4: the exponent form */
  size_t n = etk_format_uint(whole, out);
  out[n++] = '.';
  if (frac == 0) {
    out[n++] = '0';
    out[n] = 0;
    return n;
  }
  int digits = k;
  while (frac % 10 == 0) { /* trailing zeros dropped */
    frac /= 10;
    digits--;
  }
  char *end = out + n + digits;
  for (int i = 0; i < digits; i++, frac /= 10)
    end[-1 - i] = (char)('0' + frac % 10);
  *end = 0;
  return n + (size_t)digits;
}

/* floor(log10(x)) or one less, for a normal x > 0: from the binary
 * exponent (x = m * 2^e2, m in [0.5, 1)) times log10(2) ~ 78913 / 2^18,
 * exact over the whole double range. */
static int decimal_exponent_estimate(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int e2 = (int)((bits >> 52) & 0x7ff) - 1022;
  return ((e2 - 1) * 78913) >> 18;
}

/* Fast path: digits of |x| (x > 0, finite) when some decimal of at most 15
 * significant digits reads back as x.  Writes the digits without trailing
 * zeros to d, sets *decpt, returns the digit count or 0 when not applicable. */
static int digits_fast(double x, char *d, int *decpt) {
  if (!(x >= 1e-7 && x < 1e22)) return 0;
  /* decimal exponent from the binary one (floor(log10(2)) * (e2 - 1), exact
   * for this range), corrected once against the table; an estimate that
   * is still off only costs the slow path, never a wrong answer */
  int e10 = decimal_exponent_estimate(x);
  if (e10 + 1 >= 0 && e10 + 1 <= 22 && x >= pow10_exact[e10 + 1]) e10++;
  for (int attempt = 0; attempt < 2; attempt++) {
    int q = 14 - e10;
    if (q < -22 || q > 22) return 0;
    double scaled = q >= 0 ? x * pow10_exact[q] : x / pow10_exact[-q];
    if (!(scaled < 1e15 + 0.5)) { /* guess too big: one digit too many */
      e10++;
      continue;
    }
    double kr = (double)(uint64_t)(scaled + 0.5); /* floor: exact, < 2^50 */
    if (kr < 1.0 || kr >= 1e15) {
      e10++;
      continue;
    }
    uint64_t k = (uint64_t)kr;
    double back =
        q >= 0 ? (double)k / pow10_exact[q] : (double)k * pow10_exact[-q];
    if (back != x) return 0;
    /* trailing zeros dropped from k itself (k >= 1), so only the digits
     * kept are converted */
    int zeros = 0;
    if (k % 100000000 == 0) {
      k /= 100000000;
      zeros = 8;
    }
    if (k % 10000 == 0) {
      k /= 10000;
      zeros += 4;
    }
    if (k % 100 == 0) {
      k /= 100;
      zeros += 2;
    }
    if (k % 10 == 0) {
      k /= 10;
      zeros++;
    }
    size_t n = etk_format_uint(k, d);
    /* x = k * 10^(zeros - q) = 0.d * 10^(n + zeros - q) */
    *decpt = (int)n + zeros - q;
    return (int)n;
  }
  return 0;
}

/* Parses snprintf "%.*e" output "d.ddde+XX" into digits and decpt. */
static int parse_e(const char *s, char *d, int *decpt) {
  int n = 0;
  const char *p = s;
  while (*p && *p != 'e') {
    if (*p >= '0' && *p <= '9') d[n++] = *p;
    p++;
  }
  int e = *p == 'e' ? atoi(p + 1) : 0;
  *decpt = e + 1;
  return n;
}

static int reads_back(const char *d, int n, int decpt, double x) {
  char buf[64];
  int m = 0;
  buf[m++] = '0';
  buf[m++] = '.';
  memcpy(buf + m, d, (size_t)n);
  m += n;
  m += snprintf(buf + m, sizeof buf - (size_t)m, "e%d", decpt);
  return strtod(buf, NULL) == x;
}

/* Adds `delta` (+1 or -1) to the n-digit integer in d; returns the new
 * digit count (a carry may add a digit, a borrow may remove one) and
 * adjusts *decpt. */
static int step_digits(char *d, int n, int *decpt, int delta) {
  if (delta > 0) {
    int i = n - 1;
    while (i >= 0 && d[i] == '9') d[i--] = '0';
    if (i < 0) {
      memmove(d + 1, d, (size_t)n);
      d[0] = '1';
      (*decpt)++;
      return n; /* 999 -> 1000 keeps n significant digits after shifting */
    }
    d[i]++;
    return n;
  }
  int i = n - 1;
  while (i >= 0 && d[i] == '0') d[i--] = '9';
  if (i < 0) return 0;
  d[i]--;
  if (d[0] == '0') { /* 1000 -> 0999 -> 999 with one digit less */
    memmove(d, d + 1, (size_t)n - 1);
    (*decpt)--;
    d[n - 1] = '9';
  }
  return n;
}

#if LDBL_MANT_DIG >= 64
/* 10^q, exact in a 64-bit significand for q <= 27 (5^27 < 2^64). */
static const long double pow10_long[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* v * 10^q with one rounding (|q| <= 27). */
static long double scale_long(long double v, int q) {
  return q >= 0 ? v * pow10_long[q] : v / pow10_long[-q];
}

/* x's rounding interval (x normal, > 0): the midpoints between x and its
 * neighbours, exact in a 64-bit significand (at a power of two the gap
 * below x is half the gap above, which the neighbour gives for free). */
typedef struct interval {
  long double lo, hi;
} interval_t;

static interval_t interval_of(double x) {
  uint64_t bits, up, down;
  memcpy(&bits, &x, sizeof bits);
  up = bits + 1;
  down = bits - 1;
  double xu, xd;
  memcpy(&xu, &up, sizeof xu);
  memcpy(&xd, &down, sizeof xd);
  interval_t iv = {((long double)x + xd) / 2, ((long double)x + xu) / 2};
  return iv;
}

/* Whether the decimal k * 10^-q reads back as x, given the interval ends
 * scaled by 10^q (l, h): 1 yes, 0 no, -1 too close to an end to tell
 * here (there the half-even rule decides: left to strtod). */
static int reads_back_long(long double l, long double h, uint64_t k) {
  long double kk = (long double)k;
  long double margin = kk * 0x1p-61L; /* covers the 2^-64 errors of h, l */
  if (kk > h + margin || kk < l - margin) return 0;
  if (kk < h - margin && kk > l + margin) return 1;
  return -1;
}

/* Writes k's digits without trailing zeros; *decpt for k * 10^-q. */
static int emit_k(uint64_t k, int q, char *d, int *decpt) {
  char tmp[24];
  size_t n = etk_format_uint(k, tmp);
  *decpt = (int)n - q;
  while (n > 1 && tmp[n - 1] == '0') n--;
  memcpy(d, tmp, n);
  return (int)n;
}

/* The slow path in long double (see the file comment): the digits, or 0
 * when a decision was too close to call or x is out of range. */
static int digits_long(double x, char *d, int *decpt) {
  if (!(x >= 1e-10 && x < 1e40)) return 0;
  int e10 = decimal_exponent_estimate(x);
  interval_t iv = interval_of(x);
  for (int p = 15; p <= 17; p++) {
    long double s = 0;
    int q = 0, tries = 0;
    for (;;) {
      q = p - 1 - e10;
      if (q < -27 || q > 27 || ++tries > 3) return 0;
      s = scale_long((long double)x, q);
      if (s < pow10_long[p - 1])
        e10--;
      else if (s >= pow10_long[p])
        e10++;
      else
        break;
    }
    long double fl = floorl(s), fr = s - fl;       /* exact: s < 2^57 */
    if (fabsl(fr - 0.5L) < s * 0x1p-62L) return 0; /* s is off by <= s 2^-64 */
    uint64_t k = (uint64_t)fl + (fr > 0.5L);
    long double l = scale_long(iv.lo, q), h = scale_long(iv.hi, q);
    int r = reads_back_long(l, h, k);
    if (r < 0) return 0;
    if (r) return emit_k(k, q, d, decpt);
    if (p == 17) return 0; /* cannot happen: 17 digits always read back */
    /* the neighbour on the other side of x (lopsided interval at 2^k) */
    uint64_t alt = (long double)k < s ? k + 1 : k - 1;
    r = reads_back_long(l, h, alt);
    if (r < 0) return 0;
    if (r) return emit_k(alt, q, d, decpt);
  }
  return 0;
}
#endif

static int digits_slow(double x, char *d, int *decpt) {
  char buf[64];
  /* Subnormals carry fewer than 53 bits, so even short decimals are not
   * unique there: search every length. */
  int first = x < DBL_MIN ? 1 : 15;
  for (int p = first; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, x);
    int n = parse_e(buf, d, decpt);
    if (reads_back(d, n, *decpt, x)) goto strip;
    if (p < 17) {
      /* Neighbour on the other side of x (lopsided interval at 2^k). */
      double nearest = strtod(buf, NULL);
      char alt[24];
      int alt_decpt = *decpt;
      memcpy(alt, d, (size_t)n);
      int m = step_digits(alt, n, &alt_decpt, nearest < x ? 1 : -1);
      if (m > 0 && reads_back(alt, m, alt_decpt, x)) {
        memcpy(d, alt, (size_t)m);
        n = m;
        *decpt = alt_decpt;
        goto strip;
      }
    }
    continue;
  strip:
    while (n > 1 && d[n - 1] == '0') n--;
    return n;
  }
  /* unreachable: 17 digits always read back */
  snprintf(buf, sizeof buf, "%.16e", x);
  return parse_e(buf, d, decpt);
}

/* Writes the n digits d, with the decimal point after digit decpt, at out[o]
 * in positional notation: "0.00ddd" when decpt <= 0, "ddd000" (no point)
 * when decpt >= n.  Returns the new end. */
static size_t put_positional(char *out, size_t o, const char *d, int n,
                             int decpt) {
  if (decpt <= 0) {
    out[o++] = '0';
    out[o++] = '.';
    for (int i = 0; i < -decpt; i++) out[o++] = '0';
    memcpy(out + o, d, (size_t)n);
    o += (size_t)n;
  } else if (decpt < n) {
    memcpy(out + o, d, (size_t)decpt);
    o += (size_t)decpt;
    out[o++] = '.';
    memcpy(out + o, d + decpt, (size_t)(n - decpt));
    o += (size_t)(n - decpt);
  } else {
    memcpy(out + o, d, (size_t)n);
    o += (size_t)n;
    for (int i = n; i < decpt; i++) out[o++] = '0';
  }
  return o;
}

/* Python's exponential form at out + o: d[0], then "." and d[1..n) when
 * there are more digits, then "e", the sign and at least two exponent
 * digits ("1e-05", "1.5e+16", "1e+100"); returns the new length. */
static size_t put_exponential(char *out, size_t o, const char *d, int n,
                              int e) {
  out[o++] = d[0];
  if (n > 1) {
    out[o++] = '.';
    memcpy(out + o, d + 1, (size_t)(n - 1));
    o += (size_t)(n - 1);
  }
  out[o++] = 'e';
  out[o++] = e < 0 ? '-' : '+';
  if (e < 0) e = -e;
  if (e < 10) out[o++] = '0';
  return o + etk_format_uint((uint64_t)e, out + o);
}

size_t etk_format_double_repr(double x, char *out) {
  if (x != x) {
    memcpy(out, "nan", 4);
    return 3;
  }
  size_t o = 0;
  if (signbit(x)) {
    out[o++] = '-';
    x = -x;
  }
  if (isinf(x)) {
    memcpy(out + o, "inf", 4);
    return o + 3;
  }
  if (x == 0) {
    memcpy(out + o, "0.0", 4);
    return o + 3;
  }
  char d[32];
  int decpt = 0;
  int n = digits_fast(x, d, &decpt);
#if LDBL_MANT_DIG >= 64
  if (n == 0) n = digits_long(x, d, &decpt);
#endif
  if (n == 0) n = digits_slow(x, d, &decpt);
  if (decpt > -4 && decpt <= 16) {
    o = put_positional(out, o, d, n, decpt);
    if (decpt >= n) {
      out[o++] = '.';
      out[o++] = '0';
    }
  } else {
    o = put_exponential(out, o, d, n, decpt - 1);
  }
  out[o] = 0;
  return o;
}

/* format(x, "g") digits of x > 0: at most 6 digits without trailing zeros
 * and *decpt, or 0 when the rounding direction is too close to call or x
 * is out of range (see the file comment). */
static int g_digits_fast(double x, char *d, int *decpt) {
  if (!(x >= 1e-17 && x < 1e27)) return 0;
  int e10 = decimal_exponent_estimate(x);
  double s = 0;
  int q = 0, tries = 0;
  for (;;) {
    q = 5 - e10;
    if (q < -22 || q > 22 || ++tries > 3) return 0;
    s = q >= 0 ? x * pow10_exact[q] : x / pow10_exact[-q];
    if (s < 1e5)
      e10--;
    else if (s >= 1e6)
      e10++;
    else
      break;
  }
  double fl = (double)(uint32_t)s, fr = s - fl; /* exact: s < 2^20 */
  int up = fr > 0.5;
  if (fabs(fr - 0.5) < 1e-9) {
    /* too close to call from s: the sign of x * 10^q - (fl + 0.5), exact
     * through one fused multiply-add; a true tie rounds half to even */
    double t = fl + 0.5;
    double r =
        q >= 0 ? fma(x, pow10_exact[q], -t) : -fma(t, pow10_exact[-q], -x);
    up = r > 0 || (r == 0 && ((uint32_t)fl & 1));
  }
  uint32_t k = (uint32_t)fl + (uint32_t)up;
  if (k == 1000000) { /* 999999.7 rounds to the next decade */
    k = 100000;
    e10++;
  }
  char tmp[8];
  size_t n = etk_format_uint(k, tmp); /* 6 digits */
  *decpt = e10 + 1;
  while (n > 1 && tmp[n - 1] == '0') n--;
  memcpy(d, tmp, n);
  return (int)n;
}

size_t etk_format_double_g(double x, char *out) {
  if (x != x) {
    memcpy(out, "nan", 4);
    return 3;
  }
  size_t o = 0;
  double a = x;
  if (signbit(x)) {
    out[o++] = '-';
    a = -x;
  }
  if (a == 0 || isinf(a)) {
    memcpy(out + o, a == 0 ? "0" : "inf", a == 0 ? 2 : 4);
    return o + (a == 0 ? 1 : 3);
  }
  char d[8];
  int decpt = 0;
  int n = g_digits_fast(a, d, &decpt);
  if (n == 0) {
    int m = snprintf(out, ETK_FORMAT_DOUBLE_MAX, "%g", x);
    return m < 0 ? 0 : (size_t)m;
  }
  int e = decpt - 1;
  if (e >= -4 && e < 6) {
    o = put_positional(out, o, d, n, decpt);
  } else {
    o = put_exponential(out, o, d, n, e);
  }
  out[o] = 0;
  return o;
}

/* ------------------------------------------------------ readable durations */

const char *etk_duration_unit(double seconds, double *per_second) {
  static const struct {
    const char *name;
    double per_second;
  } units[] = {{"s", 1.0}, {"ms", 1e3}, {"\xc2\xb5s", 1e6}, {"ns", 1e9}};
  double mag = fabs(seconds);
  size_t i = 0;
  while (i + 1 < sizeof units / sizeof units[0] &&
         !(mag * units[i].per_second >= 1.0 - 5e-4))
    i++;
  if (per_second) *per_second = units[i].per_second;
  return units[i].name;
}

/* Decimals that show 3 significant digits of a magnitude (never fewer
 * than the integer part; 17 at most, below which %g takes over). */
static int duration_decimals(double mag) {
  if (mag >= 99.95) return 0;
  if (mag >= 9.995) return 1;
  int d = 2;
  for (double lim = 0.9995; mag > 0 && mag < lim && d < 17; lim /= 10) d++;
  return d;
}

size_t etk_format_duration_in(double seconds, double per_second, char *out) {
  double v = seconds * per_second;
  if (v != v || v - v != 0) return etk_format_double_g(v, out);
  double mag = fabs(v);
  int decimals = duration_decimals(mag);
  if (mag > 0 && mag < 1e-15) {
    int n = snprintf(out, ETK_FORMAT_DOUBLE_MAX, "%.3g", v);
    return n < 0 ? 0 : (size_t)n;
  }
  int n = snprintf(out, ETK_FORMAT_DOUBLE_MAX, "%.*f", decimals, v);
  if (n < 0) n = 0;
  /* drop trailing zeros after the point ("4.50" -> "4.5", "2.00" -> "2") */
  if (decimals > 0) {
    while (n > 0 && out[n - 1] == '0') n--;
    if (n > 0 && out[n - 1] == '.') n--;
    out[n] = 0;
  }
  if (n == 2 && strcmp(out, "-0") == 0) { /* only -0.0 itself gets here */
    out[0] = '0';
    out[1] = 0;
    n = 1;
  }
  return (size_t)n;
}

double etk_duration_round(double v) {
  if (!(v == v && v - v == 0)) return v;
  double mag = fabs(v);
  if (mag > 0 && mag < 1e-15) return v;
  double p = pow(10.0, duration_decimals(mag));
  double r = round(v * p) / p;
  return r == 0 ? 0.0 : r; /* no -0 */
}

double etk_seconds_per_unit(const char *unit) {
  static const char *const names[] = {"ns", "us", "ms", "s"};
  static const double seconds[] = {1e-9, 1e-6, 1e-3, 1.0};
  for (int i = 0; unit && i < 4; i++)
    if (strcmp(unit, names[i]) == 0) return seconds[i];
  return 0;
}

size_t etk_format_duration(double seconds, char *out) {
  double per_second;
  const char *unit = etk_duration_unit(seconds, &per_second);
  size_t n = etk_format_duration_in(seconds, per_second, out);
  size_t u = strlen(unit);
  if (n + 1 + u < ETK_FORMAT_DOUBLE_MAX) {
    out[n] = ' ';
    memcpy(out + n + 1, unit, u + 1);
    n += 1 + u;
  }
  return n;
}
