/*
 * program_internal.h - private helpers shared by the files of src/program:
 * aligned copies of files and small checked arithmetic helpers (a loaded
 * program's structs live in the host arena of common/buffers.h).  Not
 * installed.
 */
#ifndef ETKIT_PROGRAM_INTERNAL_H
#define ETKIT_PROGRAM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/buffers.h"
#include "etkit/flatbuf.h"
#include "etkit/program.h"

/* 16-byte aligned malloc/free for owned copies of files. */
void *etk_aligned_malloc(size_t n);
void etk_aligned_free(void *p);

/* Element count of a shape with overflow detection: returns 0 and sets
 * *numel, or ETK_E_OVERFLOW. Sizes must be >= 0. */
int etk_shape_numel(const int32_t *sizes, uint32_t dim, uint64_t *numel);
/* numel * elem with overflow detection. */
int etk_shape_nbytes(const int32_t *sizes, uint32_t dim, size_t elem,
                     uint64_t *nbytes);
/* 1 if order[0..dim) is a permutation of 0..dim-1. */
int etk_dim_order_valid(const uint8_t *order, uint32_t dim);

/* The file size limit of `options` (NULL or 0: the default, 1 GiB). */
uint64_t etk_program_max_file_size(const etk_program_options_t *options);

/* Verifies buf[0..len) against `schema` with identifier `ident` (the whole
 * buffer first: readers then use unchecked accessors) and sets *root.  On
 * failure fills `err` with "malformed <what>: <reason> in <table>.<field>"
 * at the offending byte and returns the verifier's code. */
int etk_program_verify_buffer(const uint8_t *buf, size_t len, const char *ident,
                              const etk_fb_table_desc_t *schema,
                              const char *what, uint32_t *root,
                              etk_error_t *err);

/* Internal state behind etk_program_t.internal_. */
typedef struct etk_program_owner {
  etk_arena_t arena;
  uint8_t *owned; /* aligned copy of the file, or NULL when borrowed */
  int in_arena;   /* the owner and `owned` live in options->arena */
  size_t arena_size;
} etk_program_owner_t;

/* A parse's owner: inside options->arena when given (the arena then serves
 * every allocation), else malloc'd.  NULL with the one error. */
etk_program_owner_t *etk_program_owner_new(const etk_program_options_t *opt,
                                           etk_error_t *err);
/* A copy of data[0..len), 64-byte aligned, in the owner's arena or on the
 * heap (set as owner->owned); NULL with the one error. */
uint8_t *etk_program_owner_copy(etk_program_owner_t *o, const uint8_t *data,
                                size_t len, etk_error_t *err);
/* rc, or ETK_E_NO_MEMORY naming the arena when it ran out (replacing the
 * error the reader set when it saw a NULL allocation). */
int etk_program_owner_status(const etk_program_owner_t *o, int rc,
                             const char *what, etk_error_t *err);
void etk_program_owner_free(etk_program_owner_t *o);

/* Whether bundled value `v` fits program value `pv` (a method input when
 * `input`, an expected output otherwise); ETK_E_MISMATCH naming method,
 * case c and position k otherwise. */
int etk_bundled_value_fits(const etk_bundled_value_t *v,
                           const etk_program_value_t *pv, bool input,
                           const char *method, uint32_t c, uint32_t k,
                           etk_error_t *err);

#endif
