/*
 * test_number_format.c - etk_format_double_repr() against an independent
 * reference on a million random doubles.
 *
 * The reference knows nothing of the formatter's fast paths: glibc's
 * correctly rounded "%.*e" gives the nearest p-digit decimal of x, strtod
 * says whether a decimal reads back as x, and Python's repr is the
 * shortest decimal that reads back, the nearest to x among those, laid out
 * positionally for exponents -4 < decpt <= 16 and as d.ddde+XX otherwise
 * (Python's float_repr_style "short").  For each random bit pattern the
 * formatter's length n is checked to be minimal (no (n-1)-digit decimal
 * near x reads back), its digits to be the nearest n-digit decimal that
 * reads back, and the whole string to be the reference's layout of them.
 * A second pass takes durations k / 10^6 (the Inspector's common case)
 * through the same checks.
 *
 * The suite runs 200,000 patterns (about 2 s); ETK_FORMAT_TEST_COUNT=1000000
 * runs a million.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/render.h"

typedef struct decimal {
  char digits[24]; /* significant digits, no leading or trailing zeros */
  int n;
  int decpt; /* x = 0.digits * 10^decpt */
} decimal_t;

/* The nearest p-digit decimal of x > 0 (glibc rounds "%.*e" exactly). */
static decimal_t nearest(double x, int p) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*e", p - 1, x);
  decimal_t d;
  d.n = 0;
  const char *c = buf;
  for (; *c && *c != 'e'; c++)
    if (*c >= '0' && *c <= '9') d.digits[d.n++] = *c;
  d.decpt = atoi(c + 1) + 1;
  return d;
}

/* d with its last digit stepped by delta (+1 or -1), carries included. */
static decimal_t stepped(decimal_t d, int delta) {
  int i = d.n - 1;
  if (delta > 0) {
    while (i >= 0 && d.digits[i] == '9') d.digits[i--] = '0';
    if (i < 0) {
      memmove(d.digits + 1, d.digits, (size_t)d.n);
      d.digits[0] = '1';
      d.decpt++;
    } else {
      d.digits[i]++;
    }
  } else {
    while (i >= 0 && d.digits[i] == '0') d.digits[i--] = '9';
    if (i >= 0) d.digits[i]--;
  }
  return d;
}

static double value_of(const decimal_t *d) {
  char buf[64];
  snprintf(buf, sizeof buf, "0.%.*se%d", d->n, d->digits, d->decpt);
  return strtod(buf, NULL);
}

static void strip(decimal_t *d) {
  int lead = 0;
  while (lead < d->n - 1 && d->digits[lead] == '0') lead++;
  memmove(d->digits, d->digits + lead, (size_t)(d->n - lead));
  d->n -= lead;
  d->decpt -= lead;
  while (d->n > 1 && d->digits[d->n - 1] == '0') d->n--;
}

/* Whether some p-digit decimal next to x reads back as x. */
static int p_digits_read_back(double x, int p, decimal_t *found) {
  decimal_t d = nearest(x, p);
  if (value_of(&d) == x) {
    *found = d;
    return 1;
  }
  /* at a power of two the interval is lopsided: the neighbour on the other
   * side of x may read back while the nearest does not */
  decimal_t alt = stepped(d, value_of(&d) < x ? 1 : -1);
  if (value_of(&alt) == x) {
    *found = alt;
    return 1;
  }
  return 0;
}

/* Python's layout of sign, digits and decpt. */
static void layout(int negative, const decimal_t *d, char *out) {
  char *o = out;
  if (negative) *o++ = '-';
  if (d->decpt > -4 && d->decpt <= 16) {
    if (d->decpt <= 0) {
      o += sprintf(o, "0.%0*d%.*s", -d->decpt, 0, d->n, d->digits);
      if (d->decpt == 0) { /* "%0*d" wrote one zero too many */
        memmove(out + (negative ? 2 : 1) + 1, out + (negative ? 2 : 1) + 2,
                strlen(out + (negative ? 2 : 1) + 2) + 1);
      }
    } else if (d->decpt < d->n) {
      sprintf(o, "%.*s.%.*s", d->decpt, d->digits, d->n - d->decpt,
              d->digits + d->decpt);
    } else {
      o += sprintf(o, "%.*s", d->n, d->digits);
      for (int i = d->n; i < d->decpt; i++) *o++ = '0';
      strcpy(o, ".0");
    }
  } else {
    int e = d->decpt - 1;
    if (d->n > 1)
      sprintf(o, "%c.%.*se%c%02d", d->digits[0], d->n - 1, d->digits + 1,
              e < 0 ? '-' : '+', e < 0 ? -e : e);
    else
      sprintf(o, "%ce%c%02d", d->digits[0], e < 0 ? '-' : '+', e < 0 ? -e : e);
  }
}

/* Checks one finite, non-zero x; returns 1 when it passes. */
static int check_one(double x) {
  char out[ETK_FORMAT_DOUBLE_MAX];
  size_t len = etk_format_double_repr(x, out);
  if (len != strlen(out) || strtod(out, NULL) != x) return 0;
  /* the formatter's significant digit count */
  int n = 0, leading = 1;
  for (const char *c = out; *c && *c != 'e'; c++) {
    if (*c < '0' || *c > '9') continue;
    if (*c == '0' && leading) continue;
    leading = 0;
    n++;
  }
  const char *dot = strchr(out, '.');
  if (dot && strcmp(dot, ".0") == 0) { /* integer layout: ".0", zeros */
    n--;
    const char *c = dot;
    while (c > out && c[-1] == '0') {
      c--;
      n--;
    }
  }
  double a = fabs(x);
  decimal_t ref;
  if (n > 1 && p_digits_read_back(a, n - 1, &ref)) return 0; /* not shortest */
  if (!p_digits_read_back(a, n, &ref)) return 0;
  strip(&ref);
  char expect[64];
  layout(signbit(x) != 0, &ref, expect);
  if (strcmp(expect, out) != 0) {
    fprintf(stderr, "  %a: got %s, reference %s\n", x, out, expect);
    return 0;
  }
  return 1;
}

ETK_TEST(repr_matches_reference_on_random_doubles) {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  long bad = 0, checked = 0, count = 200000;
  const char *env = getenv("ETK_FORMAT_TEST_COUNT");
  if (env && atol(env) > 0) count = atol(env);
  for (long i = 0; i < count; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    double x;
    memcpy(&x, &s, sizeof x);
    if (x != x || isinf(x) || x == 0) continue;
    checked++;
    if (!check_one(x) && ++bad > 10) break;
  }
  CHECK(checked > count * 99 / 100);
  CHECK_EQ_INT(bad, 0);
}

ETK_TEST(repr_matches_reference_on_durations) {
  /* k / 10^6 for k up to 10^8, plus values just beside them */
  uint64_t s = 12345;
  long bad = 0;
  for (int i = 0; i < 50000; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    double x = (double)(s % 100000000) / 1e6;
    if (x == 0) continue;
    double near = nextafter(x, INFINITY);
    if (!check_one(x) || !check_one(near) || !check_one(-x)) bad++;
    if (bad > 10) break;
  }
  CHECK_EQ_INT(bad, 0);
}

/* Whether etk_format_decimal_repr(v, k) writes what the repr of the
 * double v / 10^k is (or declines), and the reference agrees. */
static int check_decimal(uint64_t v, int k) {
  static const double pow10[16] = {1e0,  1e1,  1e2,  1e3, 1e4,  1e5,
                                   1e6,  1e7,  1e8,  1e9, 1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15};
  char fast[ETK_FORMAT_DOUBLE_MAX], repr[ETK_FORMAT_DOUBLE_MAX];
  size_t n = etk_format_decimal_repr(v, k, fast);
  double x = (double)v / pow10[k];
  size_t m = etk_format_double_repr(x, repr);
  if (n == 0) return v >= 1000000000000000ull || x < 1e-4;
  if (n != m || memcmp(fast, repr, n + 1) != 0) {
    printf("# %llu / 10^%d: %s, repr %s\n", (unsigned long long)v, k, fast,
           repr);
    return 0;
  }
  return x == 0 || check_one(x);
}

ETK_TEST(decimal_repr_is_the_repr_of_the_quotient) {
  static const uint64_t edges[] = {0,
                                   1,
                                   9,
                                   10,
                                   999,
                                   1000,
                                   1001,
                                   1256,
                                   99999,
                                   100000,
                                   120000,
                                   999999999999999ull,
                                   1000000000000000ull,
                                   123456789012345ull,
                                   100000000000000ull};
  long bad = 0;
  for (int k = 0; k <= 15; k++)
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
      bad += !check_decimal(edges[i], k);
  uint64_t s = 777;
  for (int i = 0; i < 100000 && bad < 10; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    int k = (int)(s >> 60) % 16; /* 0..15 */
    uint64_t mod = i & 1 ? 1000000000000000ull : 100000000ull;
    bad += !check_decimal(s % mod, k);
  }
  CHECK_EQ_INT(bad, 0);
  char out[ETK_FORMAT_DOUBLE_MAX];
  CHECK_EQ_U64(etk_format_decimal_repr(1256, 3, out), 5);
  CHECK_EQ_STR(out, "1.256");
  CHECK_EQ_U64(etk_format_decimal_repr(1256000, 3, out), 6);
  CHECK_EQ_STR(out, "1256.0");
  CHECK_EQ_U64(etk_format_decimal_repr(253, 6, out), 8);
  CHECK_EQ_STR(out, "0.000253");
  CHECK_EQ_U64(etk_format_decimal_repr(5, 6, out), 0); /* 5e-06 */
  CHECK_EQ_U64(etk_format_decimal_repr(1, 16, out), 0);
}

/* Readable durations keep 3 significant digits and never show a non-zero
 * value as 0 or -0 (issue 24: relu's 0.0096 ms was "0.01"). */
ETK_TEST(duration_keeps_three_significant_digits) {
  static const struct {
    double v;
    const char *want;
  } cases[] = {{0.0096, "0.0096"},   {0.002, "0.002"}, {0.00123456, "0.00123"},
               {-0.0004, "-0.0004"}, {12.34, "12.3"},  {1234.6, "1235"},
               {0.5, "0.5"},         {0.9996, "1"},    {0.0, "0"},
               {-0.0, "0"},          {4.5, "4.5"},     {1e-9, "0.000000001"}};
  char out[ETK_FORMAT_DOUBLE_MAX];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    etk_format_duration_in(cases[i].v, 1.0, out);
    CHECK_EQ_STR(out, cases[i].want);
  }
  CHECK(etk_duration_round(0.0096) == 0.0096);
  CHECK(etk_duration_round(0.00123456) == 0.00123);
  CHECK(etk_duration_round(-0.0004) == -0.0004);
  CHECK(etk_duration_round(12.34) == 12.3);
  double z = etk_duration_round(-0.0);
  CHECK(z == 0 && !signbit(z));
  etk_format_duration_in(-1e-20, 1.0, out);
  CHECK(strcmp(out, "0") != 0 && strcmp(out, "-0") != 0);
}

ETK_TEST_MAIN()
