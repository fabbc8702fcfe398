/*
 * utf8.c - strict UTF-8 validation (etk_fb_utf8_valid, etk_utf8_check).
 *
 * PURPOSE
 *   FlatBuffers strings are meant to be UTF-8, but the format does not
 *   enforce it and ETDump names come from C strings on devices.  Readers that
 *   emit JSON or HTML call this to decide whether a string can be copied as
 *   is or must be escaped/replaced.
 *
 * RULES (RFC 3629)
 *   1 byte  00..7F
 *   2 bytes C2..DF 80..BF                      (C0, C1 would be overlong)
 *   3 bytes E0 A0..BF 80..BF | E1..EC 80..BF 80..BF | ED 80..9F 80..BF
 *           (no surrogates D800..DFFF) | EE..EF 80..BF 80..BF
 *   4 bytes F0 90..BF .. | F1..F3 80..BF .. | F4 80..8F ..   (<= U+10FFFF)
 *   An embedded NUL (00) is valid UTF-8; callers that care check it apart.
 *
 * One decoder: etk_utf8_check() decodes each sequence and checks its code
 * point against the rules (overlong, surrogate, above U+10FFFF) and says
 * where the first bad sequence starts; etk_fb_utf8_valid() is its yes/no.
 *
 * INVARIANTS
 *   Reads only s[0..n); never reads past a truncated sequence's end.
 */
#include "etkit/utf8.h"

size_t etk_utf8_check(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    unsigned c = p[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t need;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
      min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      min = 0x10000;
    } else {
      return i;
    }
    if (n - i <= need) return i;
    unsigned cp = c & (0x3Fu >> need);
    for (size_t k = 1; k <= need; k++) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += need + 1;
  }
  return n;
}

int etk_fb_utf8_valid(const char *s, size_t n) {
  if (s == NULL) return n == 0;
  return etk_utf8_check(s, n) == n;
}
