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
 *
 * PERFORMANCE
 *   Every piece (separator and indentation, a key with its quotes and
 *   colon, a number) is formatted straight into the sink's buffer through
 *   etk_render_room(): no call per byte.  Strings that need no escaping
 *   (nearly all keys and names) are copied in one piece after one scan.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"

void etk_json_init(etk_json_t *j, etk_render_sink_t *sink, int indent) {
  memset(j, 0, sizeof *j);
  j->sink = sink;
  j->indent = indent;
  j->status = ETK_OK;
}

/* Writes a comma when `comma`, then, when indenting, a newline and the
 * indentation of the current depth, in one piece. */
static void separator(etk_json_t *j, int comma) {
  size_t pad = j->indent > 0 ? (size_t)j->depth * (size_t)j->indent : 0;
  size_t n = (size_t)(comma != 0) + (j->indent > 0 ? 1 + pad : 0);
  if (n == 0) return;
  /* spaces are stored eight at a time: room for up to 7 more */
  char *p = etk_render_room(j->sink, n + 8);
  if (p) {
    char *q = p;
    if (comma) *q++ = ',';
    if (j->indent > 0) {
      static const char spaces[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
      *q++ = '\n';
      for (size_t i = 0; i < pad; i += 8) memcpy(q + i, spaces, 8);
    }
    etk_render_commit(j->sink, n);
    return;
  }
  /* an indentation wider than the sink's buffer, or a failed sink */
  if (comma) etk_render_putc(j->sink, ',');
  if (j->indent <= 0) return;
  etk_render_putc(j->sink, '\n');
  for (size_t i = 0; i < pad; i++) etk_render_putc(j->sink, ' ');
}

/* One byte through the inline fast path (no call per bracket). */
static inline void put_byte(etk_render_sink_t *s, char c) {
  char *p = etk_render_room(s, 1);
  if (!p) return;
  *p = c;
  etk_render_commit(s, 1);
}

static void newline_indent(etk_json_t *j) {
  separator(j, 0);
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
  separator(j, j->count_nonzero[d]);
  j->count_nonzero[d] = 1;
  return 1;
}

static void begin(etk_json_t *j, int is_object) {
  if (!before_value(j)) return;
  if (j->depth + 1 >= ETK_JSON_MAX_DEPTH) {
    j->status = ETK_E_INVALID_STATE;
    return;
  }
  put_byte(j->sink, is_object ? '{' : '[');
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
  put_byte(j->sink, is_object ? '}' : ']');
}

void etk_json_begin_object(etk_json_t *j) {
  begin(j, 1);
}
void etk_json_end_object(etk_json_t *j) {
  end(j, 1);
}
void etk_json_begin_array(etk_json_t *j) {
  begin(j, 0);
}
void etk_json_end_array(etk_json_t *j) {
  end(j, 0);
}

/* Whether the 8 bytes of w hold one that JSON does not take as it is:
 * the top bit set, below 0x20, '"' or '\\' (the usual "has a zero byte"
 * tests, exact about whether there is one). */
static inline int word_needs_escape(uint64_t w) {
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
  return ((w | ((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) |
           ((slash - ones) & ~slash)) &
          highs) != 0;
}

/* Length of the leading run of `str` that JSON takes as it is (printable
 * ASCII other than '"' and '\\'), eight bytes per step; the tail of a
 * string of 8 bytes or more is one last word overlapping the checked. */
static size_t plain_prefix(const unsigned char *u, size_t len) {
  size_t i = 0;
  uint64_t w;
  for (; i + 8 <= len; i += 8) {
    memcpy(&w, u + i, 8);
    if (word_needs_escape(w)) break;
  }
  if (i == len) return len;
  if (i > 0 && i + 8 > len) {
    memcpy(&w, u + len - 8, 8);
    if (!word_needs_escape(w)) return len;
  }
  while (i < len && u[i] >= 0x20 && u[i] < 0x80 && u[i] != '"' && u[i] != '\\')
    i++;
  return i;
}

static void put_escaped_slow(etk_render_sink_t *s, const char *str, size_t len);

/* Writes str quoted and escaped, then `suffix` (0 to 2 bytes). */
static void put_escaped(etk_render_sink_t *s, const char *str, size_t len,
                        const char *suffix, size_t suffix_len) {
  const unsigned char *u = (const unsigned char *)str;
  if (len + 2 + suffix_len <= ETK_RENDER_SINK_BUFFER &&
      plain_prefix(u, len) == len) {
    char *p = etk_render_room(s, len + 2 + suffix_len);
    if (!p) return;
    p[0] = '"';
    memcpy(p + 1, str, len);
    p[len + 1] = '"';
    memcpy(p + len + 2, suffix, suffix_len);
    etk_render_commit(s, len + 2 + suffix_len);
    return;
  }
  put_escaped_slow(s, str, len);
  etk_render_put(s, suffix, suffix_len);
}

static void put_escaped_slow(etk_render_sink_t *s, const char *str,
                             size_t len) {
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
      size_t n = (c & 0xE0) == 0xC0   ? 2
                 : (c & 0xF0) == 0xE0 ? 3
                 : (c & 0xF8) == 0xF0 ? 4
                                      : 0;
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
      case '"':
        esc[e++] = '"';
        break;
      case '\\':
        esc[e++] = '\\';
        break;
      case '\n':
        esc[e++] = 'n';
        break;
      case '\r':
        esc[e++] = 'r';
        break;
      case '\t':
        esc[e++] = 't';
        break;
      case '\b':
        esc[e++] = 'b';
        break;
      case '\f':
        esc[e++] = 'f';
        break;
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

/* Indentation is copied from here in one fixed-size piece when it is at
 * most this wide (the writer then asks the sink for that much room). */
#define PAD_MAX 64
static const char spaces[PAD_MAX] = {
    ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};

/* Checks the state for a key and marks it written; returns the comma
 * flag (0 or 1), or -1 when a key is not allowed here. */
static int key_state(etk_json_t *j) {
  if (j->status != ETK_OK) return -1;
  int d = j->depth;
  if (d == 0 || !j->is_object[d] || j->key_pending) {
    j->status = ETK_E_INVALID_STATE;
    return -1;
  }
  int comma = j->count_nonzero[d];
  j->count_nonzero[d] = 1;
  j->key_pending = 1;
  return comma;
}

/* How a member's fast path went. */
enum { MEMBER_DONE = 0, MEMBER_FAST, MEMBER_SLOW };

/* The fast path of every key: separator, indentation and the key in one
 * piece of the sink's buffer.  `text` is either a plain key (quoted
 * here) or, when `quoted`, a prepared key's text ("key":) readable for
 * `text_room` bytes.  On MEMBER_FAST *start is the room and *end the
 * cursor after the key (and the space of indented output), with
 * `value_max` bytes left for the value; the caller commits *end - *start
 * plus what it wrote.  MEMBER_SLOW: nothing was done (the key needs
 * escaping or the pieces are too large); MEMBER_DONE: the state or the
 * sink failed (the error is recorded). */
static inline int member_begin(etk_json_t *j, const char *text, size_t len,
                               size_t text_room, int quoted, size_t value_max,
                               char **start, char **end) {
  size_t pad = j->indent > 0 ? (size_t)j->depth * (size_t)j->indent : 0;
  size_t need = 2 + (pad < PAD_MAX ? PAD_MAX : pad) + text_room + 4 + value_max;
  if (need > ETK_RENDER_SINK_BUFFER ||
      (!quoted && plain_prefix((const unsigned char *)text, len) != len))
    return MEMBER_SLOW;
  int comma = key_state(j);
  if (comma < 0) return MEMBER_DONE;
  char *p = etk_render_room(j->sink, need);
  if (!p) return MEMBER_DONE;
  char *q = p;
  if (comma) *q++ = ',';
  if (j->indent > 0) {
    *q++ = '\n';
    if (pad <= PAD_MAX)
      memcpy(q, spaces, PAD_MAX); /* fixed size: no call */
    else
      memset(q, ' ', pad);
    q += pad;
  }
  if (quoted) {
    memcpy(q, text, text_room);
    q += len;
  } else {
    *q++ = '"';
    memcpy(q, text, len);
    q += len;
    *q++ = '"';
    *q++ = ':';
  }
  if (j->indent > 0) *q++ = ' ';
  *start = p;
  *end = q;
  return MEMBER_FAST;
}

/* Ends a member begun by member_begin(): its value ends at `end`. */
static void member_end(etk_json_t *j, char *start, char *end) {
  j->key_pending = 0;
  etk_render_commit(j->sink, (size_t)(end - start));
}

void etk_json_key_n(etk_json_t *j, const char *key, size_t len) {
  char *start, *end;
  int how = member_begin(j, key, len, len, 0, 0, &start, &end);
  if (how == MEMBER_FAST) {
    etk_render_commit(j->sink, (size_t)(end - start));
    return;
  }
  if (how == MEMBER_DONE) return;
  int comma = key_state(j);
  if (comma < 0) return;
  separator(j, comma);
  put_escaped(j->sink, key, len, ": ", j->indent > 0 ? 2 : 1);
}

void etk_json_key_prepare(const etk_json_t *j, const char *key,
                          etk_json_prepared_key_t *out) {
  (void)j;
  memset(out, 0, sizeof *out);
  out->key = key ? key : "";
  out->key_len = strlen(out->key);
  /* the escaped text through a memory sink: the writer's own rules */
  etk_render_sink_t *s = malloc(sizeof *s);
  if (!s) return;
  etk_render_sink_init_memory(s);
  put_escaped(s, out->key, out->key_len, ":", 1);
  size_t n = 0;
  char *text = etk_render_sink_take(s, &n);
  if (text && n <= sizeof out->text) {
    memcpy(out->text, text, n);
    out->len = n;
  }
  free(text);
  etk_render_sink_free(s);
  free(s);
}

/* etk_json_key_prepared() outside its fast path (kept out of line so the
 * fast path needs few registers). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
key_prepared_slow(etk_json_t *j, const etk_json_prepared_key_t *k) {
  char *start, *end;
  int how = k->len == 0 ? MEMBER_SLOW
                        : member_begin(j, k->text, k->len, sizeof k->text, 1, 0,
                                       &start, &end);
  if (how == MEMBER_FAST)
    etk_render_commit(j->sink, (size_t)(end - start));
  else if (how == MEMBER_SLOW)
    etk_json_key_n(j, k->key, k->key_len);
}

void etk_json_key_prepared(etk_json_t *j, const etk_json_prepared_key_t *k) {
  /* the hot path of the million-event columns: a few loads and fixed-size
   * copies (comma, indentation, key text), short ones for short pieces */
  etk_render_sink_t *s = j->sink;
  int d = j->depth;
  size_t pad = j->indent > 0 ? (size_t)d * (size_t)j->indent : 0;
  if (!(j->status == ETK_OK && j->is_object[d] && !j->key_pending &&
        k->len != 0 && pad <= PAD_MAX && s->status == ETK_OK &&
        2 + PAD_MAX + ETK_JSON_PREPARED_MAX + 1 <= sizeof s->buf - s->len)) {
    key_prepared_slow(j, k);
    return;
  }
  char *p = s->buf + s->len, *q = p;
  *q = ',';
  q += j->count_nonzero[d];
  if (j->indent > 0) {
    *q++ = '\n';
    if (pad <= 16)
      memcpy(q, spaces, 16);
    else
      memcpy(q, spaces, PAD_MAX);
    q += pad;
  }
  if (k->len <= 32)
    memcpy(q, k->text, 32);
  else
    memcpy(q, k->text, ETK_JSON_PREPARED_MAX);
  q += k->len;
  *q = ' ';
  q += j->indent > 0;
  j->count_nonzero[d] = 1;
  j->key_pending = 1;
  etk_render_commit(s, (size_t)(q - p));
}

void etk_json_key(etk_json_t *j, const char *key) {
  etk_json_key_n(j, key, strlen(key));
}

void etk_json_string(etk_json_t *j, const char *s, size_t len) {
  if (!before_value(j)) return;
  put_escaped(j->sink, s ? s : "", s ? len : 0, "", 0);
}

void etk_json_cstring(etk_json_t *j, const char *s) {
  if (!s) {
    etk_json_null(j);
    return;
  }
  etk_json_string(j, s, strlen(s));
}

/* Copies Python repr digits of the finite `v` to q (room for
 * ETK_FORMAT_DOUBLE_MAX bytes); returns the length.  A value equal to
 * the last one written is copied, not formatted again. */
static size_t put_double(etk_json_t *j, double v, char *q) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  if (!j->have_last || bits != j->last_bits) {
    j->last_len = (uint8_t)etk_format_double_repr(v, j->last_text);
    j->last_bits = bits;
    j->have_last = 1;
  }
  memcpy(q, j->last_text, ETK_FORMAT_DOUBLE_MAX); /* fixed size: no call */
  return j->last_len;
}

size_t etk_json_format_double(etk_json_t *j, double v, char *out) {
  return put_double(j, v, out);
}

size_t etk_json_plain_length(const char *s, size_t len) {
  return plain_prefix((const unsigned char *)s, len);
}

char *etk_json_value_room(etk_json_t *j, size_t n) {
  if (!before_value(j)) return NULL;
  return etk_render_room(j->sink, n);
}

void etk_json_double(etk_json_t *j, double v) {
  if (v != v || v - v != 0) {
    etk_json_null(j);
    return;
  }
  if (!before_value(j)) return;
  char *p = etk_render_room(j->sink, ETK_FORMAT_DOUBLE_MAX);
  if (p) etk_render_commit(j->sink, put_double(j, v, p));
}

void etk_json_int(etk_json_t *j, int64_t v) {
  if (!before_value(j)) return;
  char *p = etk_render_room(j->sink, 24);
  if (p) etk_render_commit(j->sink, etk_format_int(v, p));
}

void etk_json_uint(etk_json_t *j, uint64_t v) {
  if (!before_value(j)) return;
  char *p = etk_render_room(j->sink, 24);
  if (p) etk_render_commit(j->sink, etk_format_uint(v, p));
}

/* A literal value (null, true, false: at most 8 bytes) in one piece. */
static void put_literal(etk_json_t *j, const char *lit, size_t len) {
  if (!before_value(j)) return;
  char *p = etk_render_room(j->sink, 8);
  if (!p) return;
  memcpy(p, lit, 8); /* fixed size: no call; only len bytes are kept */
  etk_render_commit(j->sink, len);
}

void etk_json_bool(etk_json_t *j, int v) {
  if (v)
    put_literal(j, "true\0\0\0\0", 4);
  else
    put_literal(j, "false\0\0\0", 5);
}

void etk_json_null(etk_json_t *j) {
  put_literal(j, "null\0\0\0\0", 4);
}

int etk_json_finish(etk_json_t *j) {
  if (j->status == ETK_OK && (j->depth != 0 || j->key_pending))
    j->status = ETK_E_INVALID_STATE;
  if (j->status == ETK_OK) etk_render_putc(j->sink, '\n');
  if (j->status == ETK_OK && j->sink->status != ETK_OK)
    j->status = j->sink->status;
  return j->status;
}

int etk_json_finish_or_error(etk_json_t *j, etk_error_t *err) {
  int rc = etk_json_finish(j);
  if (rc != ETK_OK)
    etk_error_set(err, rc, ETK_NO_OFFSET, "writing JSON failed: %s",
                  etk_strerror(rc));
  return rc;
}

void etk_json_cell(etk_json_t *j, const etk_cell_t *cell) {
  switch (cell->kind) {
    case ETK_CELL_TEXT:
    case ETK_CELL_OBJECT:
      etk_json_string(j, cell->text, cell->len);
      break;
    case ETK_CELL_INT:
      etk_json_int(j, cell->i);
      break;
    case ETK_CELL_BOOL:
      etk_json_bool(j, cell->i != 0);
      break;
    case ETK_CELL_FLOAT:
      etk_json_double(j, cell->f);
      break;
    default:
      etk_json_null(j);
      break;
  }
}

/* ------------------------------------------------------ key and value */

/* Each etk_json_kv_*() writes what etk_json_key() and the value call
 * write; the fast path does it in one piece of the sink's buffer. */

void etk_json_kv_string(etk_json_t *j, const char *key, const char *s,
                        size_t len) {
  if (!s) len = 0;
  char *start, *end;
  size_t klen = strlen(key);
  int how = MEMBER_SLOW;
  if (len <= 256 && plain_prefix((const unsigned char *)s, len) == len)
    how = member_begin(j, key, klen, klen, 0, len + 2, &start, &end);
  if (how == MEMBER_FAST) {
    *end++ = '"';
    if (len) memcpy(end, s, len);
    end += len;
    *end++ = '"';
    member_end(j, start, end);
  } else if (how == MEMBER_SLOW) {
    etk_json_key_n(j, key, klen);
    etk_json_string(j, s, len);
  }
}

void etk_json_kv_cstring(etk_json_t *j, const char *key, const char *s) {
  if (s)
    etk_json_kv_string(j, key, s, strlen(s));
  else
    etk_json_kv_null(j, key);
}

/* A key and `len` bytes of literal JSON (null, true, false). */
static void kv_literal(etk_json_t *j, const char *key, const char *lit,
                       size_t len) {
  char *start, *end;
  size_t klen = strlen(key);
  int how = member_begin(j, key, klen, klen, 0, len, &start, &end);
  if (how == MEMBER_FAST) {
    memcpy(end, lit, len);
    member_end(j, start, end + len);
  } else if (how == MEMBER_SLOW) {
    etk_json_key_n(j, key, klen);
    if (before_value(j)) etk_render_put(j->sink, lit, len);
  }
}

void etk_json_kv_null(etk_json_t *j, const char *key) {
  kv_literal(j, key, "null", 4);
}

void etk_json_kv_bool(etk_json_t *j, const char *key, int v) {
  if (v)
    kv_literal(j, key, "true", 4);
  else
    kv_literal(j, key, "false", 5);
}

void etk_json_kv_double(etk_json_t *j, const char *key, double v) {
  if (v != v || v - v != 0) {
    etk_json_kv_null(j, key);
    return;
  }
  char *start, *end;
  size_t klen = strlen(key);
  int how =
      member_begin(j, key, klen, klen, 0, ETK_FORMAT_DOUBLE_MAX, &start, &end);
  if (how == MEMBER_FAST) {
    member_end(j, start, end + put_double(j, v, end));
  } else if (how == MEMBER_SLOW) {
    etk_json_key_n(j, key, klen);
    etk_json_double(j, v);
  }
}

/* An integer member: `i` when `is_signed`, else `u`. */
static void kv_integer(etk_json_t *j, const char *key, int64_t i, uint64_t u,
                       int is_signed) {
  char *start, *end;
  size_t klen = strlen(key);
  int how = member_begin(j, key, klen, klen, 0, 24, &start, &end);
  if (how == MEMBER_FAST) {
    end += is_signed ? etk_format_int(i, end) : etk_format_uint(u, end);
    member_end(j, start, end);
  } else if (how == MEMBER_SLOW) {
    etk_json_key_n(j, key, klen);
    if (is_signed)
      etk_json_int(j, i);
    else
      etk_json_uint(j, u);
  }
}

void etk_json_kv_int(etk_json_t *j, const char *key, int64_t v) {
  kv_integer(j, key, v, 0, 1);
}

void etk_json_kv_uint(etk_json_t *j, const char *key, uint64_t v) {
  kv_integer(j, key, 0, v, 0);
}
