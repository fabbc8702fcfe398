/*
 * etkit/utf8.h - strict UTF-8 validation (library etkit_core).  Portable C99.
 */
#ifndef ETKIT_UTF8_H
#define ETKIT_UTF8_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if s[0..n) is valid UTF-8 (no overlongs, no surrogates), else 0. */
int etk_fb_utf8_valid(const char *s, size_t n);

/* Same rules; returns n when s[0..n) is valid, else the offset of the first
 * byte of the first bad sequence. */
size_t etk_utf8_check(const char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_UTF8_H */
