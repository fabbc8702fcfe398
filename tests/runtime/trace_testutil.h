/*
 * trace_testutil.h - what the runtime's tests share: a recorder in a
 * malloc'd arena, an ETDump walker that verifies a dump and flattens its
 * blocks and events for assertions, and a float input setter.
 */
#ifndef ETK_TRACE_TESTUTIL_H
#define ETK_TRACE_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/method.h"
#include "etkit/recorder.h"

/* Clears *err and loads method "forward" of p (heap-allocated, no
 * recorder) into *m; returns the load status. */
int ttu_load_forward(const struct etk_program *p, etk_method_t **m,
                     struct etk_error *err);

/* Clears *err and sets float input i of m to data[0..n) (the input's
 * shape, default dim order). */
int ttu_set_float_input(etk_method_t *m, size_t i, float *data, size_t n,
                        struct etk_error *err);

/* A recorder in a malloc'd arena (ttu_recorder_free releases it).
 * debug_level 0/1/2, profile_all 0/1, debug_capacity 0 = no buffer. */
etk_recorder_t *ttu_recorder_new(int debug_level, int profile_all,
                                 size_t debug_capacity);
void ttu_recorder_free(etk_recorder_t *r);

/* One ETDump event, flattened. */
typedef struct ttu_event {
  char kind;           /* 'P' profile, 'A' allocation, 'D' debug */
  char name[64];       /* profile name ("" if none) */
  int32_t chain;       /* profile: int; debug: low 32 bits of the uint64 */
  int64_t debug_chain; /* debug: full value (-1 for 2^64-1) */
  int32_t instruction;
  int32_t delegate_int; /* -1 if none */
  char delegate_str[64];
  uint32_t metadata_len;
  char metadata[64];
  uint64_t start, end;
  uint32_t allocator; /* allocation */
  uint64_t size;
  int value_kind; /* debug: ETDump ValueType */
  uint32_t value_dims;
  int64_t sizes[8];
  int64_t offset;
  int output; /* debug: output flag */
} ttu_event_t;

typedef struct ttu_block {
  char name[64];
  int32_t bundled_input_index;
  uint32_t allocator_count;
  char allocators[8][32];
  uint32_t event_count;
  ttu_event_t *events;
} ttu_block_t;

typedef struct ttu_dump {
  uint32_t block_count;
  ttu_block_t *blocks;
} ttu_dump_t;

/* Verifies the bytes with the ETDump schema and flattens them.  Returns
 * ETK_OK or the verifier's error. */
int ttu_dump_parse(const uint8_t *data, size_t len, ttu_dump_t *out);
void ttu_dump_free(ttu_dump_t *d);

/* Finishes `rec` (etk_recorder_finish) and parses the ETDump it holds into
 * *out.  Returns ETK_OK or the first error. */
int ttu_recorder_finish_parse(etk_recorder_t *rec, ttu_dump_t *out);

#endif
