/*
 * json_load.c - JSON parsing for ETRecord members, with limits and the
 * Python json dialect.
 *
 * jansson parses the text, but three properties of the files need work
 * around it, done by one linear pre-scan over the original bytes:
 *
 *   1. Limits.  The scan rejects invalid UTF-8 (ETK_E_BAD_UTF8), nesting
 *      deeper than limits->max_json_depth (ETK_E_TOO_DEEP) and strings
 *      longer than limits->max_string_bytes (ETK_E_LIMIT) before jansson
 *      allocates anything, each with the line and column of the culprit.
 *   2. Python's json module writes Infinity, -Infinity and NaN as bare
 *      tokens, which jansson rejects.  Outside strings those tokens are
 *      rewritten to the sentinel strings "\u0000Infinity", "\u0000-Infinity"
 *      and "\u0000NaN" (parsed with JSON_ALLOW_NUL); etr_json_special()
 *      recognises them.  A real Python string cannot be confused with them
 *      where a number is expected, which is the only place they occur.
 *   3. jansson's integers are long long (int64, checked below).  Integer
 *      tokens beyond that range (Python ints are unbounded) get ".0"
 *      appended so that they parse as reals instead of failing the member.
 *
 * Rewrites change lengths, so the scan records each edit (original start
 * and length, rewritten start and length) in order.  A jansson error
 * position in the rewritten text is mapped back through the edits to an
 * offset in the original text, and line/column are computed from there:
 * errors always point into the bytes of the member as stored.
 *
 * Invariant: when no edit is needed jansson parses the original bytes
 * directly (no copy).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

_Static_assert(sizeof(json_int_t) == 8, "jansson must use 64-bit integers");

typedef struct json_edit {
  size_t orig_start, orig_len;
  size_t new_start, new_len;
  const char *replacement; /* NULL: the original token followed by ".0" */
} json_edit_t;

typedef struct json_edits {
  json_edit_t *items;
  size_t count, cap;
  size_t grow; /* sum of new_len - orig_len (never negative here) */
} json_edits_t;

static const char kInf[] = "\"\\u0000Infinity\"";
static const char kNegInf[] = "\"\\u0000-Infinity\"";
static const char kNan[] = "\"\\u0000NaN\"";

int etr_error_at(etk_error_t *err, int code, const char *where,
                 const char *text, size_t len, size_t offset, const char *fmt,
                 ...) {
  if (!err || err->code != ETK_OK) return code;
  va_list ap;
  va_start(ap, fmt);
  etk_error_vset(err, code, offset, where, fmt, ap);
  va_end(ap);
  if (offset > len) offset = len;
  int line = 1, column = 1;
  for (size_t i = 0; i < offset; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '\n') {
      if (line < INT_MAX) line++;
      column = 1;
    } else if ((c & 0xC0) != 0x80 && column < INT_MAX) {
      column++;
    }
  }
  err->line = line;
  err->column = column;
  return code;
}

bool etr_parse_int64(const char *s, size_t n, int64_t *out) {
  if (!s || n == 0) return false;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '-') {
    neg = true;
    i = 1;
    if (n == 1) return false;
  }
  if (s[i] == '0' && n - i > 1) return false;
  uint64_t v = 0;
  uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (lim - d) / 10) return false;
    v = v * 10 + d;
  }
  if (neg && v == 0) return false; /* "-0" is not canonical */
  if (neg)
    *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
  else
    *out = (int64_t)v;
  return true;
}

int etr_json_special(const json_t *value) {
  if (!json_is_string(value)) return 0;
  size_t n = json_string_length(value);
  const char *s = json_string_value(value);
  if (n < 2 || s[0] != 0) return 0;
  if (n == 9 && memcmp(s + 1, "Infinity", 8) == 0) return 1;
  if (n == 10 && memcmp(s + 1, "-Infinity", 9) == 0) return -1;
  if (n == 4 && memcmp(s + 1, "NaN", 3) == 0) return 2;
  return 0;
}

static bool edits_push(json_edits_t *e, size_t orig_start, size_t orig_len,
                       const char *replacement, size_t new_len) {
  if (!ETK_VEC_RESERVE(e->items, e->cap, e->count + 1)) return false;
  /* new_start is orig_start shifted by everything grown so far. */
  json_edit_t *it = &e->items[e->count++];
  it->orig_start = orig_start;
  it->orig_len = orig_len;
  it->new_start = orig_start + e->grow;
  it->new_len = new_len;
  it->replacement = replacement;
  e->grow += new_len - orig_len;
  return true;
}

static size_t map_back(const json_edits_t *e, size_t pos) {
  size_t lo = 0, hi = e->count;
  while (lo < hi) { /* last edit with new_start <= pos */
    size_t mid = lo + (hi - lo) / 2;
    if (e->items[mid].new_start <= pos)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return pos;
  const json_edit_t *it = &e->items[lo - 1];
  if (pos < it->new_start + it->new_len) return it->orig_start;
  return it->orig_start + it->orig_len + (pos - it->new_start - it->new_len);
}

static bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
         c == 'e' || c == 'E';
}

/* Integer token beyond int64?  (Only tokens made of an optional '-' and
 * digits count as integers; the rest is jansson's business.) */
static bool integer_out_of_range(const char *s, size_t n) {
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == n) return false;
  for (size_t k = i; k < n; k++)
    if (s[k] < '0' || s[k] > '9') return false;
  while (i + 1 < n && s[i] == '0') i++; /* jansson rejects these anyway */
  size_t digits = n - i;
  const char *lim = s[0] == '-' ? "9223372036854775808" : "9223372036854775807";
  if (digits != 19) return digits > 19;
  return memcmp(s + i, lim, 19) > 0;
}

static bool literal_at(const char *s, size_t len, size_t i, const char *lit) {
  size_t n = strlen(lit);
  return n <= len - i && memcmp(s + i, lit, n) == 0;
}

static int prescan(const char *text, size_t len,
                   const etk_etrecord_limits_t *limits, const char *where,
                   const char *context, json_edits_t *edits, etk_error_t *err) {
  size_t bad = etk_utf8_check(text, len);
  if (bad != len)
    return etr_error_at(err, ETK_E_BAD_UTF8, where, text, len, bad,
                        "%sinvalid UTF-8 byte 0x%02x", context,
                        (unsigned)(unsigned char)text[bad]);
  uint32_t max_depth = limits->max_json_depth;
  if (max_depth == 0 || max_depth > 2000) max_depth = 2000;
  uint32_t depth = 0;
  size_t i = 0;
  while (i < len) {
    char c = text[i];
    if (c == '"') {
      size_t start = i++;
      while (i < len && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      size_t body = (i < len ? i : len) - start - 1;
      if (body > limits->max_string_bytes)
        return etr_error_at(err, ETK_E_LIMIT, where, text, len, start,
                            "%sJSON string of %zu bytes is over the limit of "
                            "%llu",
                            context, body,
                            (unsigned long long)limits->max_string_bytes);
      i++;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return etr_error_at(err, ETK_E_TOO_DEEP, where, text, len, i,
                            "%sJSON nesting deeper than %u levels", context,
                            (unsigned)max_depth);
      i++;
    } else if (c == ']' || c == '}') {
      if (depth) depth--;
      i++;
    } else if (c == 'I' && literal_at(text, len, i, "Infinity")) {
      if (!edits_push(edits, i, 8, kInf, sizeof kInf - 1)) goto oom;
      i += 8;
    } else if (c == 'N' && literal_at(text, len, i, "NaN")) {
      if (!edits_push(edits, i, 3, kNan, sizeof kNan - 1)) goto oom;
      i += 3;
    } else if (c == '-' && literal_at(text, len, i, "-Infinity")) {
      if (!edits_push(edits, i, 9, kNegInf, sizeof kNegInf - 1)) goto oom;
      i += 9;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i + 1;
      while (j < len && is_number_char(text[j])) j++;
      if (integer_out_of_range(text + i, j - i) &&
          !edits_push(edits, i, j - i, NULL, j - i + 2))
        goto oom;
      i = j;
    } else {
      i++;
    }
  }
  return ETK_OK;
oom:
  return etk_error_set_where(err, where, ETK_E_NO_MEMORY,
                             "%sout of memory scanning JSON", context);
}

static char *apply_edits(const char *text, size_t len, const json_edits_t *e,
                         size_t *out_len) {
  if (e->grow > SIZE_MAX - len - 1) return NULL;
  size_t n = len + e->grow;
  char *buf = malloc(n + 1);
  if (!buf) return NULL;
  size_t src = 0, dst = 0;
  for (size_t k = 0; k < e->count; k++) {
    const json_edit_t *it = &e->items[k];
    memcpy(buf + dst, text + src, it->orig_start - src);
    dst += it->orig_start - src;
    if (it->replacement) {
      memcpy(buf + dst, it->replacement, it->new_len);
    } else {
      memcpy(buf + dst, text + it->orig_start, it->orig_len);
      memcpy(buf + dst + it->orig_len, ".0", 2);
    }
    dst += it->new_len;
    src = it->orig_start + it->orig_len;
  }
  memcpy(buf + dst, text + src, len - src);
  dst += len - src;
  buf[dst] = 0;
  *out_len = dst;
  return buf;
}

static int jansson_code(const json_error_t *je) {
  switch (json_error_code(je)) {
    case json_error_out_of_memory:
      return ETK_E_NO_MEMORY;
    case json_error_stack_overflow:
      return ETK_E_TOO_DEEP;
    case json_error_invalid_utf8:
      return ETK_E_BAD_UTF8;
    case json_error_premature_end_of_input:
      return ETK_E_TRUNCATED;
    default:
      return ETK_E_FORMAT;
  }
}

int etr_json_parse(const char *text, size_t len,
                   const etk_etrecord_limits_t *limits, const char *where,
                   const char *context, json_t **out, etk_error_t *err) {
  *out = NULL;
  char prefix[160] = "";
  if (context && *context) snprintf(prefix, sizeof prefix, "%s: ", context);
  if (len == 0)
    return etr_error_at(err, ETK_E_TRUNCATED, where, "", 0, 0,
                        "%sempty JSON document", prefix);
  json_edits_t edits = {0};
  int rc = prescan(text, len, limits, where, prefix, &edits, err);
  if (rc != ETK_OK) {
    free(edits.items);
    return rc;
  }
  const char *input = text;
  size_t input_len = len;
  char *rewritten = NULL;
  if (edits.count) {
    rewritten = apply_edits(text, len, &edits, &input_len);
    if (!rewritten) {
      free(edits.items);
      return etk_error_set_where(err, where, ETK_E_NO_MEMORY,
                                 "%sout of memory rewriting JSON", prefix);
    }
    input = rewritten;
  }
  json_error_t je;
  size_t budget;
  etr_json_budget_begin(limits, input_len);
  json_t *root =
      json_loadb(input, input_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
  if (etr_json_budget_end(&budget) && !root) {
    rc = etk_error_set_where(
        err, where, ETK_E_LIMIT,
        "%sparsing %zu bytes of JSON takes more than %zu bytes of memory "
        "(limit: %u times the text, max_json_memory_ratio)",
        prefix, len, budget, (unsigned)limits->max_json_memory_ratio);
  } else if (!root) {
    size_t pos = je.position > 0 ? (size_t)je.position : 0;
    if (pos > input_len) pos = input_len;
    /* jansson reports the position after the offending token ("... near
     * 'tok'"); step back to its first byte. */
    const char *near = strstr(je.text, " near '");
    size_t text_len = strlen(je.text);
    if (near && text_len > 0 && je.text[text_len - 1] == '\'') {
      const char *tok = near + 7;
      size_t tok_len = (size_t)(je.text + text_len - 1 - tok);
      if (tok_len <= pos) pos -= tok_len;
    }
    size_t orig = map_back(&edits, pos);
    int code = jansson_code(&je);
    rc = etr_error_at(err, code, where, text, len, orig, "%sinvalid JSON: %s",
                      prefix, je.text);
  } else {
    *out = root;
  }
  free(rewritten);
  free(edits.items);
  return rc;
}

int etr_json_check(const char *text, size_t len,
                   const etk_etrecord_limits_t *limits, const char *where,
                   etk_error_t *err) {
  json_edits_t edits = {0};
  int rc = prescan(text, len, limits, where, "", &edits, err);
  free(edits.items);
  return rc;
}
