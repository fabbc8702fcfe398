/*
 * filter.c - the filter for delegate intermediate outputs (upstream
 * ETDumpFilter) with a small glob matcher instead of RE2.
 *
 * PURPOSE
 *   Backends may log many intermediate outputs; a filter keeps the dump
 *   small.  filter() returns "drop" for a name that fully matches one of the
 *   patterns, or for an integer id inside [range_start, range_end).  As
 *   upstream, an empty filter drops everything.
 *
 * DATA LAYOUT
 *   etk_filter_t holds its patterns inside itself, NUL-separated in
 *   `patterns[0..used)`, so it can be copied, placed in ROM or static memory
 *   and owns no pointers.
 *
 * GLOB SYNTAX (a whole-string match, byte-wise)
 *   *      any run of bytes, possibly empty
 *   ?      exactly one byte
 *   [set]  one byte in the set: literal bytes and ranges a-z; a leading !
 *          or ^ negates; a ] right after [ (or [!) is literal
 *   \x     the byte x literally
 *   Matching backtracks only to the most recent `*`, so it runs in
 *   O(len(pattern) * len(text)) time without recursion or memory.
 */
#include <string.h>

#include "etkit/recorder.h"

/* Length of the class starting at p[0] == '[' (up to and including ']'),
 * or 0 if it is not terminated. */
static size_t class_length(const char *p) {
  size_t i = 1;
  if (p[i] == '!' || p[i] == '^') i++;
  if (p[i] == ']') i++;
  for (; p[i] != '\0'; i++) {
    if (p[i] == ']') return i + 1;
  }
  return 0;
}

/* Whether byte c is in the class p[0..len) (p[0] == '['). */
static int class_match(const char *p, size_t len, unsigned char c) {
  size_t i = 1, end = len - 1; /* p[end] == ']' */
  int negate = 0, found = 0;
  if (p[i] == '!' || p[i] == '^') {
    negate = 1;
    i++;
  }
  if (p[i] == ']') { /* literal ] first */
    if (c == ']') found = 1;
    i++;
  }
  while (i < end) {
    unsigned char lo = (unsigned char)p[i];
    if (i + 2 < end && p[i + 1] == '-') {
      unsigned char hi = (unsigned char)p[i + 2];
      if (lo <= c && c <= hi) found = 1;
      i += 3;
    } else {
      if (c == lo) found = 1;
      i++;
    }
  }
  return found != negate;
}

/* Matches one pattern element at p against byte c; *step gets the
 * element's length.  Returns 1 on match. */
static int element_match(const char *p, unsigned char c, size_t *step) {
  if (*p == '?') {
    *step = 1;
    return 1;
  }
  if (*p == '[') {
    size_t len = class_length(p);
    if (len != 0) {
      *step = len;
      return class_match(p, len, c);
    }
    /* unterminated: a literal '[' (patterns added to a filter are checked) */
  }
  if (*p == '\\' && p[1] != '\0') {
    *step = 2;
    return (unsigned char)p[1] == c;
  }
  *step = 1;
  return (unsigned char)*p == c;
}

int etk_glob_match(const char *pattern, const char *text) {
  const char *p = pattern, *t = text;
  const char *star_p = NULL, *star_t = NULL;
  if (pattern == NULL || text == NULL) return 0;
  while (*t != '\0') {
    size_t step;
    if (*p == '*') {
      star_p = ++p;
      star_t = t;
      continue;
    }
    if (*p != '\0' && element_match(p, (unsigned char)*t, &step)) {
      p += step;
      t++;
      continue;
    }
    if (star_p == NULL) return 0;
    p = star_p; /* let the last star absorb one more byte */
    t = ++star_t;
  }
  while (*p == '*') p++;
  return *p == '\0';
}

/* Whether a pattern is well formed: classes closed, no trailing '\'. */
static int pattern_valid(const char *p) {
  while (*p != '\0') {
    if (*p == '\\') {
      if (p[1] == '\0') return 0;
      p += 2;
    } else if (*p == '[') {
      size_t len = class_length(p);
      if (len == 0) return 0;
      p += len;
    } else {
      p++;
    }
  }
  return 1;
}

void etk_filter_init(etk_filter_t *f) {
  if (f == NULL) return;
  memset(f, 0, sizeof *f);
}

int etk_filter_add_pattern(etk_filter_t *f, const char *glob) {
  size_t n;
  if (f == NULL || glob == NULL) return ETK_E_INVALID_ARGUMENT;
  if (!pattern_valid(glob)) return ETK_E_INVALID_ARGUMENT;
  n = strlen(glob) + 1u;
  if (f->used > sizeof f->patterns || n > sizeof f->patterns - f->used)
    return ETK_E_LIMIT;
  memcpy(f->patterns + f->used, glob, n);
  f->used += (uint32_t)n;
  f->count++;
  return ETK_OK;
}

int etk_filter_set_range(etk_filter_t *f, uint64_t start, uint64_t end) {
  if (f == NULL || start >= end) return ETK_E_INVALID_ARGUMENT;
  f->range_start = start;
  f->range_end = end;
  return ETK_OK;
}

int etk_filter_check(const etk_filter_t *f, const char *name,
                     int32_t delegate_index, int *drop) {
  if (drop != NULL) *drop = 0;
  if (f == NULL || drop == NULL) return ETK_E_INVALID_ARGUMENT;
  if ((name == NULL) == (delegate_index == ETK_DELEGATE_ID_UNSET))
    return ETK_E_INVALID_ARGUMENT;
  if (name != NULL) {
    uint32_t at = 0;
    if (f->count == 0) {
      *drop = 1;
      return ETK_OK;
    }
    for (uint32_t i = 0; i < f->count && at < f->used; i++) {
      const char *p = f->patterns + at;
      if (etk_glob_match(p, name)) {
        *drop = 1;
        return ETK_OK;
      }
      at += (uint32_t)strlen(p) + 1u;
    }
    return ETK_OK;
  }
  if (f->range_start == 0 && f->range_end == 0) {
    *drop = 1;
    return ETK_OK;
  }
  {
    /* upstream compares the int32 id with size_t bounds: negative ids
     * become huge and land outside any range */
    uint64_t idx = (uint64_t)(int64_t)delegate_index;
    *drop = idx >= f->range_start && idx < f->range_end;
  }
  return ETK_OK;
}
