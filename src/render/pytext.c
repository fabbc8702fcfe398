/*
 * pytext.c - Python's view of text: which strings int() and float()
 * accept, what str.strip() removes, and how wide a string is.
 *
 * PURPOSE
 *   tabulate decides a column's type by trying int(s) and float(s) on every
 *   string cell, so an event named "5" (a delegate id) makes a numeric
 *   column.  Reproducing the table byte for byte therefore needs Python's
 *   exact acceptance rules, which are implemented here for ASCII digits:
 *     int:   ws* [+-]? digit (_? digit)* ws*
 *     float: ws* [+-]? (digits [. digits?]? | . digits) ([eE] [+-]? digits)?
 * ws* or ws* [+-]? (inf | infinity | nan) ws*   (any case) where digits allow
 * single underscores between digits (PEP 515), and ws is Python whitespace
 * (ASCII \t\n\v\f\r, \x1c-\x1f, space, and the Unicode spaces U+0085, U+00A0,
 * U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).  Non-ASCII
 * decimal digits, which Python also accepts, are treated as text (documented
 * gap).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pytext.h"

/* Length of a Python whitespace character at s (0 if none). */
static size_t ws_len(const unsigned char *s, size_t len) {
  unsigned c = s[0];
  if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F))
    return 1;
  if (c == 0xC2 && len >= 2 && (s[1] == 0x85 || s[1] == 0xA0)) return 2;
  if (c == 0xE1 && len >= 3 && s[1] == 0x9A && s[2] == 0x80) return 3;
  if (c == 0xE2 && len >= 3) {
    if (s[1] == 0x80 &&
        (s[2] <= 0x8A || s[2] == 0xA8 || s[2] == 0xA9 || s[2] == 0xAF))
      return 3;
    if (s[1] == 0x81 && s[2] == 0x9F) return 3;
  }
  if (c == 0xE3 && len >= 3 && s[1] == 0x80 && s[2] == 0x80) return 3;
  return 0;
}

/* Length of a whitespace character ending at s[len-1] (0 if none). */
static size_t ws_len_back(const unsigned char *s, size_t len) {
  for (size_t n = 1; n <= 3 && n <= len; n++)
    if (ws_len(s + len - n, n) == n) return n;
  return 0;
}

void etk_pytext_strip(const char *s, size_t len, size_t *start,
                      size_t *out_len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t a = 0, b = len, n;
  while (a < b && (n = ws_len(u + a, b - a)) > 0) a += n;
  while (b > a && (n = ws_len_back(u + a, b - a)) > 0) b -= n;
  *start = a;
  *out_len = b - a;
}

static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Consumes digits with single underscores between them; returns the count
 * of digits, appending them to out (if non-NULL); sets *bad on a misplaced
 * underscore. */
static size_t digits(const char *s, size_t len, size_t *pos, char *out,
                     size_t *out_n, size_t out_cap, int *bad) {
  size_t i = *pos, count = 0;
  while (i < len) {
    if (is_digit(s[i])) {
      if (out && *out_n < out_cap) out[(*out_n)++] = s[i];
      count++;
      i++;
    } else if (s[i] == '_' && count > 0 && i + 1 < len && is_digit(s[i + 1])) {
      i++;
    } else {
      break;
    }
  }
  if (i < len && s[i] == '_') *bad = 1;
  *pos = i;
  return count;
}

int etk_pytext_is_int(const char *s, size_t len) {
  size_t a, n;
  etk_pytext_strip(s, len, &a, &n);
  s += a;
  size_t i = 0;
  int bad = 0;
  if (i < n && (s[i] == '+' || s[i] == '-')) i++;
  size_t out_n = 0;
  if (digits(s, n, &i, NULL, &out_n, 0, &bad) == 0 || bad) return 0;
  return i == n;
}

static int ieq(const char *s, size_t len, const char *word) {
  size_t wl = strlen(word);
  if (len != wl) return 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != word[i]) return 0;
  }
  return 1;
}

int etk_pytext_parse_float(const char *s, size_t len, double *value) {
  size_t a, n;
  etk_pytext_strip(s, len, &a, &n);
  s += a;
  size_t i = 0;
  int neg = 0;
  if (i < n && (s[i] == '+' || s[i] == '-')) {
    neg = s[i] == '-';
    i++;
  }
  if (ieq(s + i, n - i, "inf") || ieq(s + i, n - i, "infinity")) {
    *value = neg ? -(double)INFINITY : (double)INFINITY;
    return 1;
  }
  if (ieq(s + i, n - i, "nan")) {
    *value = (double)NAN;
    return 1;
  }
  char clean[400];
  size_t cn = 0, cap = sizeof clean - 8;
  int bad = 0;
  if (neg) clean[cn++] = '-';
  size_t int_digits = digits(s, n, &i, clean, &cn, cap, &bad);
  size_t frac_digits = 0;
  if (i < n && s[i] == '.') {
    if (cn < cap) clean[cn++] = '.';
    i++;
    frac_digits = digits(s, n, &i, clean, &cn, cap, &bad);
  }
  if (bad || int_digits + frac_digits == 0) return 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    if (cn < cap) clean[cn++] = 'e';
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
      if (cn < cap) clean[cn++] = s[i];
      i++;
    }
    if (digits(s, n, &i, clean, &cn, cap, &bad) == 0 || bad) return 0;
  }
  if (i != n) return 0;
  if (cn >= cap) {
    /* Absurdly long numeral: Python still parses it; we only need the
     * type for tabulate, and the value only when it is printed. */
    clean[cap] = 0;
  } else {
    clean[cn] = 0;
  }
  *value = strtod(clean, NULL);
  return 1;
}

int etk_pytext_is_number(const char *s, size_t len, double *value) {
  double v;
  if (!etk_pytext_parse_float(s, len, &v)) return 0;
  if (v != v || v - v != 0) { /* nan or inf: only the literal spellings */
    if (!(ieq(s, len, "inf") || ieq(s, len, "-inf") || ieq(s, len, "nan")))
      return 0;
  }
  if (value) *value = v;
  return 1;
}

size_t etk_pytext_width(const char *s, size_t len) {
  size_t w = 0;
  for (size_t i = 0; i < len; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) w++;
  return w;
}

/* Code point at s (valid UTF-8 assumed; invalid bytes count as one). */
static size_t next_cp(const unsigned char *s, size_t len, uint32_t *cp) {
  unsigned c = s[0];
  size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
  if (n > len) n = 1;
  uint32_t v = n == 1   ? c
               : n == 2 ? (c & 0x1F)
               : n == 3 ? (c & 0x0F)
                        : (c & 0x07);
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) {
      *cp = c;
      return 1;
    }
    v = (v << 6) | (s[i] & 0x3F);
  }
  *cp = v;
  return n;
}

static int is_control(uint32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
         c == 0x061C || c == 0x200E || c == 0x200F ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

int etk_pytext_needs_escape(const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    if (u[i] >= 0x20 && u[i] < 0x7F) {
      i++;
      continue;
    }
    i += next_cp(u + i, len - i, &cp);
    if (is_control(cp)) return 1;
  }
  return 0;
}

void etk_pytext_escape_controls(etk_strbuf_t *b, const char *s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *u = (const unsigned char *)s;
  size_t run = 0;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    if (u[i] >= 0x20 && u[i] < 0x7F) {
      i++;
      continue;
    }
    size_t n = next_cp(u + i, len - i, &cp);
    if (!is_control(cp)) {
      i += n;
      continue;
    }
    etk_strbuf_append(b, s + run, i - run);
    char tmp[8];
    size_t t = 0;
    tmp[t++] = '\\';
    if (cp == '\t')
      tmp[t++] = 't';
    else if (cp == '\n')
      tmp[t++] = 'n';
    else if (cp == '\r')
      tmp[t++] = 'r';
    else if (cp < 0x100) {
      tmp[t++] = 'x';
      tmp[t++] = hex[cp >> 4];
      tmp[t++] = hex[cp & 15];
    } else {
      tmp[t++] = 'u';
      for (int k = 3; k >= 0; k--) tmp[t++] = hex[(cp >> (4 * k)) & 15];
    }
    etk_strbuf_append(b, tmp, t);
    i += n;
    run = i;
  }
  etk_strbuf_append(b, s + run, len - run);
}
