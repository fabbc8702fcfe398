/*
 * pytext.h - private helpers of the render library: Python's number
 * parsing rules for strings (int(), float()), Python whitespace, UTF-8
 * walking and code-point counting, and the powers of ten the number
 * writers share.  Not installed.
 */
#ifndef ETKIT_RENDER_PYTEXT_H
#define ETKIT_RENDER_PYTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/render.h"

/* 10^0 .. 10^19, every power of ten a uint64_t holds. */
extern const uint64_t etk_pow10[20];

/* 1 if int(s) would succeed in Python (base 10, ASCII digits). */
int etk_pytext_is_int(const char *s, size_t len);

/* 1 if float(s) would succeed; *value receives the result. */
int etk_pytext_parse_float(const char *s, size_t len, double *value);

/* tabulate's _isnumber(): float(s) succeeds and, when the value is inf or
 * nan, the text is exactly one of inf, -inf, nan (any case). */
int etk_pytext_is_number(const char *s, size_t len, double *value);

/* Python str.strip(): the [*start, *start + *len) slice without leading and
 * trailing whitespace (ASCII and Unicode spaces). */
void etk_pytext_strip(const char *s, size_t len, size_t *start,
                      size_t *out_len);

/* Number of code points (UTF-8 lead bytes) in s. */
size_t etk_pytext_width(const char *s, size_t len);

/* Appends s with control characters (C0, DEL, C1, U+2028/9) and bidi
 * controls escaped Python-style (\t \n \r \xNN \uNNNN).  Used for table
 * cells, which go to terminals. */
void etk_pytext_escape_controls(etk_strbuf_t *b, const char *s, size_t len);

/* 1 if s contains something etk_pytext_escape_controls() would escape. */
int etk_pytext_needs_escape(const char *s, size_t len);

#endif
