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
 *   For p = 15, 16, 17 (every p from 1 for subnormals, whose precision is
 *   lower) take the nearest p-digit decimal (snprintf "%.*e",
 *   which glibc rounds exactly); if it reads back as x it is the answer
 *   (at p = 15 by the uniqueness above, at 16 and 17 because Python picks
 *   the nearest among the shortest).  At a power of two the rounding
 *   interval is lopsided, so the nearest p-digit decimal may miss it while
 *   its neighbour on the other side of x hits it; the neighbour is tried
 *   too.  p = 17 always reads back.
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

static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t etk_format_uint(uint64_t v, char *out) {
  char tmp[24];
  size_t n = sizeof tmp;
  while (v >= 100) {
    unsigned r = (unsigned)(v % 100);
    v /= 100;
    tmp[--n] = digit_pairs[2 * r + 1];
    tmp[--n] = digit_pairs[2 * r];
  }
  if (v >= 10) {
    tmp[--n] = digit_pairs[2 * v + 1];
    tmp[--n] = digit_pairs[2 * v];
  } else {
    tmp[--n] = (char)('0' + v);
  }
  size_t len = sizeof tmp - n;
  memcpy(out, tmp + n, len);
  out[len] = 0;
  return len;
}

size_t etk_format_int(int64_t v, char *out) {
  if (v < 0) {
    out[0] = '-';
    return 1 + etk_format_uint((uint64_t)0 - (uint64_t)v, out + 1);
  }
  return etk_format_uint((uint64_t)v, out);
}

/* Fast path: digits of |x| (x > 0, finite) when some decimal of at most 15
 * significant digits reads back as x.  Writes the digits without trailing
 * zeros to d, sets *decpt, returns the digit count or 0 when not applicable. */
static int digits_fast(double x, char *d, int *decpt) {
  if (!(x >= 1e-7 && x < 1e22)) return 0;
  /* decimal exponent from the binary one (floor(log10(2)) * (e2 - 1), exact
   * for this range), corrected once against the table; an estimate that
   * is still off only costs the slow path, never a wrong answer */
  int e2;
  frexp(x, &e2);
  int e10 = ((e2 - 1) * 78913) >> 18;
  if (e10 + 1 >= 0 && e10 + 1 <= 22 && x >= pow10_exact[e10 + 1]) e10++;
  for (int attempt = 0; attempt < 2; attempt++) {
    int q = 14 - e10;
    if (q < -22 || q > 22) return 0;
    double scaled = q >= 0 ? x * pow10_exact[q] : x / pow10_exact[-q];
    if (!(scaled < 1e15 + 0.5)) { /* guess too big: one digit too many */
      e10++;
      continue;
    }
    double kr = floor(scaled + 0.5);
    if (kr < 1.0 || kr >= 1e15) {
      e10++;
      continue;
    }
    uint64_t k = (uint64_t)kr;
    double back = q >= 0 ? (double)k / pow10_exact[q] : (double)k * pow10_exact[-q];
    if (back != x) return 0;
    char tmp[24];
    size_t n = etk_format_uint(k, tmp);
    /* x = k * 10^-q = 0.tmp * 10^(n - q) */
    *decpt = (int)n - q;
    while (n > 1 && tmp[n - 1] == '0') n--;
    memcpy(d, tmp, n);
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
  if (n == 0) n = digits_slow(x, d, &decpt);
  if (decpt > -4 && decpt <= 16) {
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
      out[o++] = '.';
      out[o++] = '0';
    }
  } else {
    out[o++] = d[0];
    if (n > 1) {
      out[o++] = '.';
      memcpy(out + o, d + 1, (size_t)(n - 1));
      o += (size_t)(n - 1);
    }
    int e = decpt - 1;
    out[o++] = 'e';
    out[o++] = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    if (e < 10) out[o++] = '0';
    char tmp[8];
    size_t m = etk_format_uint((uint64_t)e, tmp);
    memcpy(out + o, tmp, m);
    o += m;
  }
  out[o] = 0;
  return o;
}

size_t etk_format_double_g(double x, char *out) {
  if (x != x) {
    memcpy(out, "nan", 4);
    return 3;
  }
  int n = snprintf(out, ETK_FORMAT_DOUBLE_MAX, "%g", x);
  return n < 0 ? 0 : (size_t)n;
}
