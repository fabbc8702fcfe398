/*
 * json.c - a streaming JSON writer.
 *
 * PURPOSE
 *   `etkit inspect --format json` emits every column of the Inspector's
 *   DataFrame, raw per-run samples included, for millions of events; so the
 *   writer streams straight into a sink and never builds a tree.
 *
 * INVARIANTS
 *   - depth counts open containers; is_object[d] says whether level d is an
 *     object (keys required) and count_nonzero[d] whether a member was
 *     written (a comma is due before the next one).
 *   - Strings are always valid JSON: quotes, backslashes and controls are
 *     escaped, U+2028/U+2029 too (so the text is also JavaScript), invalid
 *     UTF-8 bytes become U+FFFD.  Numbers use Python repr digits; NaN and
 *     infinities, which JSON cannot express, are written as null.
 *   - Misuse sets a sticky ETK_E_INVALID_STATE and stops output.
 */
#include <string.h>

#include "etkit/render.h"

void etk_json_init(etk_json_t *j, etk_render_sink_t *sink, int indent) {
  memset(j, 0, sizeof *j);
  j->sink = sink;
  j->indent = indent;
  j->status = ETK_OK;
}

static void newline_indent(etk_json_t *j) {
  if (j->indent <= 0) return;
  etk_render_putc(j->sink, '\n');
  for (int i = 0; i < j->depth * j->indent; i++) etk_render_putc(j->sink, ' ');
}

/* Called before any value: emits the separator and checks the state. */
static int before_value(etk_json_t *j) {
  if (j->status != ETK_OK) return 0;
  if (j->depth == 0) {
    if (j->count_nonzero[0]) { /* only one top-level value */
      j->status = ETK_E_INVALID_STATE;
      return 0;
    }
    j->count_nonzero[0] = 1;
    return 1;
  }
  int d = j->depth;
  if (j->is_object[d]) {
    if (!j->key_pending) {
      j->status = ETK_E_INVALID_STATE;
      return 0;
    }
    j->key_pending = 0;
    return 1;
  }
  if (j->count_nonzero[d]) etk_render_putc(j->sink, ',');
  j->count_nonzero[d] = 1;
  newline_indent(j);
  return 1;
}

static void begin(etk_json_t *j, int is_object) {
  if (!before_value(j)) return;
  if (j->depth + 1 >= ETK_JSON_MAX_DEPTH) {
    j->status = ETK_E_INVALID_STATE;
    return;
  }
  etk_render_putc(j->sink, is_object ? '{' : '[');
  j->depth++;
  j->is_object[j->depth] = (uint8_t)is_object;
  j->count_nonzero[j->depth] = 0;
}

static void end(etk_json_t *j, int is_object) {
  if (j->status != ETK_OK) return;
  if (j->depth == 0 || j->is_object[j->depth] != is_object || j->key_pending) {
    j->status = ETK_E_INVALID_STATE;
    return;
  }
  int had = j->count_nonzero[j->depth];
  j->depth--;
  if (had) newline_indent(j);
  etk_render_putc(j->sink, is_object ? '}' : ']');
}

void etk_json_begin_object(etk_json_t *j) { begin(j, 1); }
void etk_json_end_object(etk_json_t *j) { end(j, 1); }
void etk_json_begin_array(etk_json_t *j) { begin(j, 0); }
void etk_json_end_array(etk_json_t *j) { end(j, 0); }

static void put_escaped(etk_render_sink_t *s, const char *str, size_t len) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *u = (const unsigned char *)str;
  etk_render_putc(s, '"');
  size_t run = 0, i = 0;
  while (i < len) {
    unsigned c = u[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      i++;
      continue;
    }
    if (c >= 0x80) {
      /* validate the sequence; U+2028/9 escaped */
      size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                 : (c & 0xF8) == 0xF0 ? 4 : 0;
      int ok = n > 0 && n <= len - i;
      uint32_t v = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
      for (size_t k = 1; ok && k < n; k++) {
        if ((u[i + k] & 0xC0) != 0x80) ok = 0;
        v = (v << 6) | (u[i + k] & 0x3F);
      }
      if (ok) {
        static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (v < min[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) ok = 0;
      }
      if (ok && v != 0x2028 && v != 0x2029) {
        i += n;
        continue;
      }
      etk_render_put(s, str + run, i - run);
      if (ok) {
        etk_render_puts(s, v == 0x2028 ? "\\u2028" : "\\u2029");
        i += n;
      } else {
        etk_render_puts(s, "\\ufffd");
        i += 1;
      }
      run = i;
      continue;
    }
    etk_render_put(s, str + run, i - run);
    char esc[8];
    size_t e = 0;
    esc[e++] = '\\';
    switch (c) {
      case '"': esc[e++] = '"'; break;
      case '\\': esc[e++] = '\\'; break;
      case '\n': esc[e++] = 'n'; break;
      case '\r': esc[e++] = 'r'; break;
      case '\t': esc[e++] = 't'; break;
      case '\b': esc[e++] = 'b'; break;
      case '\f': esc[e++] = 'f'; break;
      default:
        esc[e++] = 'u';
        esc[e++] = '0';
        esc[e++] = '0';
        esc[e++] = hex[c >> 4];
        esc[e++] = hex[c & 15];
    }
    etk_render_put(s, esc, e);
    i++;
    run = i;
  }
  etk_render_put(s, str + run, len - run);
  etk_render_putc(s, '"');
}

void etk_json_key_n(etk_json_t *j, const char *key, size_t len) {
  if (j->status != ETK_OK) return;
  int d = j->depth;
  if (d == 0 || !j->is_object[d] || j->key_pending) {
    j->status = ETK_E_INVALID_STATE;
    return;
  }
  if (j->count_nonzero[d]) etk_render_putc(j->sink, ',');
  j->count_nonzero[d] = 1;
  newline_indent(j);
  put_escaped(j->sink, key, len);
  etk_render_putc(j->sink, ':');
  if (j->indent > 0) etk_render_putc(j->sink, ' ');
  j->key_pending = 1;
}

void etk_json_key(etk_json_t *j, const char *key) {
  etk_json_key_n(j, key, strlen(key));
}

void etk_json_string(etk_json_t *j, const char *s, size_t len) {
  if (!before_value(j)) return;
  put_escaped(j->sink, s ? s : "", s ? len : 0);
}

void etk_json_cstring(etk_json_t *j, const char *s) {
  if (!s) {
    etk_json_null(j);
    return;
  }
  etk_json_string(j, s, strlen(s));
}

void etk_json_double(etk_json_t *j, double v) {
  if (v != v || v - v != 0) {
    etk_json_null(j);
    return;
  }
  if (!before_value(j)) return;
  char num[ETK_FORMAT_DOUBLE_MAX];
  size_t n = etk_format_double_repr(v, num);
  etk_render_put(j->sink, num, n);
}

void etk_json_int(etk_json_t *j, int64_t v) {
  if (!before_value(j)) return;
  char num[24];
  etk_render_put(j->sink, num, etk_format_int(v, num));
}

void etk_json_uint(etk_json_t *j, uint64_t v) {
  if (!before_value(j)) return;
  char num[24];
  etk_render_put(j->sink, num, etk_format_uint(v, num));
}

void etk_json_bool(etk_json_t *j, int v) {
  if (!before_value(j)) return;
  etk_render_puts(j->sink, v ? "true" : "false");
}

void etk_json_null(etk_json_t *j) {
  if (!before_value(j)) return;
  etk_render_puts(j->sink, "null");
}

int etk_json_finish(etk_json_t *j) {
  if (j->status == ETK_OK && (j->depth != 0 || j->key_pending))
    j->status = ETK_E_INVALID_STATE;
  if (j->status == ETK_OK) etk_render_putc(j->sink, '\n');
  if (j->status == ETK_OK && j->sink->status != ETK_OK)
    j->status = j->sink->status;
  return j->status;
}
