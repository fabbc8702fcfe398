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

/* Sets the method's one input x and one output y, finishes the program into
 * *out (malloc'd) and frees the builder.  Returns the finish status. */
int ptu_finish_unary(etk_program_builder_t *b, int32_t x, int32_t y,
                     uint8_t **out, size_t *len);

/* Clears *err and *p and loads a program from memory into *p; returns the
 * loader's status (the error, if any, in *err). */
int ptu_load_status(const uint8_t *bytes, size_t len, etk_program_t **p,
                    etk_error_t *err);

/* Loads a program from memory; NULL (after a "# load: ..." line) on
 * failure. */
etk_program_t *ptu_load(const uint8_t *bytes, size_t len);

/* Clears *err and loads the bundled program at `path`; NULL (after a
 * "# path: ..." line, *err set) on failure. */
etk_bundled_program_t *ptu_load_bundled(const char *path, etk_error_t *err);

/* A new builder of the method "forward" whose options are all zero (the
 * builder's defaults) except the two flags given. */
etk_program_builder_t *ptu_builder_with_options(int inline_constants,
                                                int delegates_in_segments);

/* A planned float32 tensor of sizes[0..dim) in the default dim order;
 * returns its value index. */
int ptu_float_tensor(etk_program_builder_t *b, uint32_t dim,
                     const int32_t *sizes);

/* The same of sizes [n]. */
int ptu_float_vector(etk_program_builder_t *b, int32_t n);

/* Adds alpha (Int 1), the operator aten::add.out and the call
 * add.out(x, y, alpha, out, out), in that order. */
void ptu_add_call(etk_program_builder_t *b, int32_t x, int32_t y, int32_t out);

/* forward(x, y) = x + y over float32 [n] (like add.pte): values
 * 0 x, 1 y, 2 out, 3 alpha; one aten::add.out call.  *out malloc'd. */
int ptu_build_add(int32_t n, uint8_t **out, size_t *len);

/* forward(x) = 3 * x + 2 over float32 [2,2] with constants, stored in the
 * constant segment (inline = 0) or the deprecated constant_buffer. */
int ptu_build_linear(int inline_constants, uint8_t **out, size_t *len);

/* One unary ".out" operator of a micro-backend chain: its name, debug name
 * (or NULL), debug id (-1: none) and metadata text (or NULL). */
typedef struct ptu_micro_step {
  const char *name;
  const char *debug_name;
  int32_t debug_id;
  const char *metadata;
} ptu_micro_step_t;

/* Writes into payload[0..cap) the micro-backend graph
 *   delegate arg 0 -> steps[0] -> temporary -> steps[1] -> delegate arg 1
 * over a float32 temporary of sizes[0..2) (each step called with
 * {input, output, output}).  Returns the payload's length, 0 on failure. */
size_t ptu_micro_chain(uint8_t *payload, size_t cap, const int32_t sizes[2],
                       const ptu_micro_step_t steps[2]);

/* Adds an EtkitMicroBackend delegate over payload[0..len) and the call
 * delegate(x, y), and makes `input` the method's one input and y its one
 * output. */
void ptu_micro_delegate(etk_program_builder_t *b, const uint8_t *payload,
                        size_t len, int32_t input, int32_t x, int32_t y);

/* Counts occurrences of `needle` in `hay`. */
size_t ptu_count(const char *hay, const char *needle);

/* Little-endian stores for patching files. */
void ptu_put_u32(uint8_t *p, uint32_t v);
void ptu_put_u64(uint8_t *p, uint64_t v);

/* Offset of the first occurrence of needle[0..n) in hay[0..len), or -1. */
long ptu_find(const uint8_t *hay, size_t len, const void *needle, size_t n);

/* Finds the first vector of u64 items[0..count) (count <= 8) in
 * bytes[0..len), stored as FlatBuffers stores it ([u32 count][u64 ...]),
 * and sets its item `index` to value.  Returns the offset of the vector's
 * count, or -1 when it is not found (nothing changed). */
long ptu_patch_u64_vector(uint8_t *bytes, size_t len, const uint64_t *items,
                          uint32_t count, uint32_t index, uint64_t value);

/* Finishes the builder into *bytes (malloc'd, *len bytes; the caller frees
 * it after the program), frees the builder and loads the program; NULL
 * (after a "# finish: ..." or "# load: ..." line) on failure. */
etk_program_t *ptu_finish_load(etk_program_builder_t *b, uint8_t **bytes,
                               size_t *len);

/* ptu_finish_unary(b, x, y, bytes, len), then loads the program; NULL
 * (after a "# ..." line) on failure.  The caller frees *bytes after the
 * program. */
etk_program_t *ptu_finish_unary_load(etk_program_builder_t *b, int32_t x,
                                     int32_t y, uint8_t **bytes, size_t *len);

#endif
