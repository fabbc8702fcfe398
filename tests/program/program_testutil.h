/*
 * program_testutil.h - helpers shared by tests/program and tests/runtime:
 * small programs built with the program builder, flatc decoding of .pte
 * and .bpte files, and byte patching of files.
 */
#ifndef ETK_PROGRAM_TESTUTIL_H
#define ETK_PROGRAM_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/program.h"

/* flatc's path from CMake, or NULL when flatc was not found. */
const char *ptu_flatc(void);

/* Decodes `bytes` with flatc and `schema` (a file name under schema/):
 *   flatc --json --strict-json --defaults-json --raw-binary [--size-prefixed]
 * Returns the JSON text (malloc'd) or NULL if flatc failed. */
char *ptu_flatc_json(const uint8_t *bytes, size_t len, const char *schema,
                     int size_prefixed);

/* forward(x, y) = x + y over float32 [n] (like add.pte): values
 * 0 x, 1 y, 2 out, 3 alpha; one aten::add.out call.  *out malloc'd. */
int ptu_build_add(int32_t n, uint8_t **out, size_t *len);

/* forward(x) = 3 * x + 2 over float32 [2,2] with constants, stored in the
 * constant segment (inline = 0) or the deprecated constant_buffer. */
int ptu_build_linear(int inline_constants, uint8_t **out, size_t *len);

/* Counts occurrences of `needle` in `hay`. */
size_t ptu_count(const char *hay, const char *needle);

/* Little-endian stores for patching files. */
void ptu_put_u32(uint8_t *p, uint32_t v);
void ptu_put_u64(uint8_t *p, uint64_t v);

/* Offset of the first occurrence of needle[0..n) in hay[0..len), or -1. */
long ptu_find(const uint8_t *hay, size_t len, const void *needle, size_t n);

#endif
