/*
 * pyrepr.c - Python's repr() of str and bytes values.
 *
 * PURPOSE
 *   Upstream tables show lists by their Python repr: op_types as
 *   ['aten.add.Tensor'], delegate metadata as [b'm1', b'm2'].  To be
 *   byte-identical we reproduce CPython's unicode_repr / bytes_repr rules.
 *
 * RULES (CPython 3)
 *   Quote: ' unless the text contains ' and no ", then ".  Escapes: the
 *   backslash, the chosen quote, \t \n \r; other characters that are not
 *   "printable" become \xNN (< U+0100), \uNNNN (< U+10000) or \UNNNNNNNN.
 *   Printable means not in Unicode categories Cc, Cf, Cs, Co, Cn, Zl, Zp,
 *   Zs (except the ASCII space).  We carry the ranges of Cc, Cf, Zs, Zl, Zp,
 *   Co and the noncharacters; unassigned code points (Cn) would need the
 *   full Unicode database and are printed unescaped (documented gap).
 */
#include <string.h>

#include "etkit/render.h"

/* Decodes one UTF-8 code point at s[0..len); returns its byte length, or 0
 * for an invalid sequence (the caller then escapes one byte). */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp) {
  unsigned c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t n;
  uint32_t v, min;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    v = c & 0x1F;
    min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    v = c & 0x0F;
    min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    v = c & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (n > len) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

/* Not printable per str.isprintable(), minus unassigned code points. */
static int py_nonprintable(uint32_t c) {
  if (c < 0x20 || (c >= 0x7F && c <= 0xA0)) return 1; /* Cc, NBSP (Zs) */
  if (c == 0xAD) return 1;                            /* soft hyphen (Cf) */
  if (c >= 0x600 && c <= 0x605) return 1;
  if (c == 0x61C || c == 0x6DD || c == 0x70F || c == 0x8E2 || c == 0x180E)
    return 1;
  if (c == 0x1680) return 1;
  if (c >= 0x2000 && c <= 0x200F) return 1; /* spaces, ZWSP, marks */
  if (c >= 0x2028 && c <= 0x202F) return 1; /* separators, bidi, NNBSP */
  if (c >= 0x205F && c <= 0x206F) return 1;
  if (c == 0x3000 || c == 0xFEFF) return 1;
  if (c >= 0xD800 && c <= 0xF8FF) return 1; /* surrogates, private use */
  if (c >= 0xFFF9 && c <= 0xFFFB) return 1;
  if ((c & 0xFFFE) == 0xFFFE) return 1; /* noncharacters U+xFFFE/F */
  if (c >= 0xFDD0 && c <= 0xFDEF) return 1;
  if (c == 0x110BD || c == 0x110CD) return 1;
  if (c >= 0x13430 && c <= 0x1343F) return 1;
  if (c >= 0x1BCA0 && c <= 0x1BCA3) return 1;
  if (c >= 0x1D173 && c <= 0x1D17A) return 1;
  if (c == 0xE0001 || (c >= 0xE0020 && c <= 0xE007F)) return 1;
  if (c >= 0xF0000) return 1; /* planes 15-16: private use */
  return 0;
}

static const char hexdig[] = "0123456789abcdef";

/* The escapes str and bytes reprs share: the backslash, the quote `q`,
 * \t \n \r.  Returns 0 (nothing written) for any other character. */
static int append_named_escape(etk_strbuf_t *b, uint32_t c, char q) {
  static const char named[] = {'\\', '\t', '\n', '\r'};
  static const char letter[] = {'\\', 't', 'n', 'r'};
  char esc[2] = {'\\', 0};
  if (c == (uint32_t)(unsigned char)q) {
    esc[1] = q;
  } else {
    for (size_t k = 0; k < sizeof named; k++)
      if (c == (uint32_t)named[k]) esc[1] = letter[k];
    if (!esc[1]) return 0;
  }
  etk_strbuf_append(b, esc, 2);
  return 1;
}

static void append_escape(etk_strbuf_t *b, uint32_t c) {
  char tmp[10];
  size_t n = 0;
  int digits;
  tmp[n++] = '\\';
  if (c < 0x100) {
    tmp[n++] = 'x';
    digits = 2;
  } else if (c < 0x10000) {
    tmp[n++] = 'u';
    digits = 4;
  } else {
    tmp[n++] = 'U';
    digits = 8;
  }
  for (int i = digits - 1; i >= 0; i--) tmp[n++] = hexdig[(c >> (4 * i)) & 0xF];
  etk_strbuf_append(b, tmp, n);
}

static char pick_quote(const char *s, size_t len) {
  int single = memchr(s, '\'', len) != NULL;
  int dbl = memchr(s, '"', len) != NULL;
  return (single && !dbl) ? '"' : '\'';
}

void etk_pyrepr_str(etk_strbuf_t *b, const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  char q = pick_quote(s, len);
  etk_strbuf_appendc(b, q);
  size_t i = 0, run = 0; /* run: start of pending verbatim bytes */
  while (i < len) {
    unsigned c0 = u[i];
    if (c0 >= 0x20 && c0 < 0x7F && c0 != '\\' && c0 != (unsigned)q) {
      i++;
      continue;
    }
    uint32_t cp;
    size_t n = utf8_decode(u + i, len - i, &cp);
    if (n > 1 && !py_nonprintable(cp)) {
      i += n;
      continue;
    }
    etk_strbuf_append(b, s + run, i - run);
    if (n == 0) { /* invalid byte: not reachable from verified names */
      append_escape(b, u[i]);
      n = 1;
    } else if (!append_named_escape(b, cp, q)) {
      append_escape(b, cp);
    }
    i += n;
    run = i;
  }
  etk_strbuf_append(b, s + run, i - run);
  etk_strbuf_appendc(b, q);
}

void etk_pyrepr_bytes(etk_strbuf_t *b, const uint8_t *s, size_t len) {
  char q = pick_quote((const char *)s, len);
  etk_strbuf_appendc(b, 'b');
  etk_strbuf_appendc(b, q);
  for (size_t i = 0; i < len; i++) {
    uint8_t c = s[i];
    if (append_named_escape(b, c, q)) continue;
    if (c < 0x20 || c >= 0x7F)
      append_escape(b, c);
    else
      etk_strbuf_appendc(b, (char)c);
  }
  etk_strbuf_appendc(b, q);
}
