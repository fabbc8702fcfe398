/*
 * etdump_writer.h - a small ETDump writer for tests, fixtures and corpus
 * generators, built on the etk_fb_* FlatBuffers builder.  Not a product
 * API (the device recorder is src/recorder); it favours control over every
 * field, including absent ones, so tests can build the exact files the
 * inspector notes describe (Appendices B and C) and hostile variants.
 *
 *   etw_t *w = etw_new(1 << 16);
 *   etw_run_begin(w, "Execute", -1);
 *   etw_profile(w, &(etw_profile_t){.name = "native_call_add.out",
 *                                   .iid = 0, .start = 100, .end = 110});
 *   etw_run_end(w);
 *   size_t len;
 *   const uint8_t *bytes = etw_finish(w, &len);  // size-prefixed "ED00"
 *   ...
 *   etw_free(w);
 *
 * Every call is a no-op after the first builder error; etw_finish returns
 * NULL then.  Strings are created fresh for every event, as upstream's
 * runtime does.
 */
#ifndef ETKIT_TESTS_ETDUMP_WRITER_H
#define ETKIT_TESTS_ETDUMP_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct etw etw_t;

/* `cap` bytes of builder memory (the finished dump must fit). */
etw_t *etw_new(size_t cap);
void etw_free(etw_t *w);

/* Starts a RunData.  name NULL = absent; bii -1 = field omitted. */
void etw_run_begin(etw_t *w, const char *name, int32_t bii);
/* Marks the current run as having NO events vector (not even empty). */
void etw_run_without_events(etw_t *w);
void etw_allocator(etw_t *w, const char *name);
void etw_run_end(etw_t *w);

typedef struct etw_profile {
  const char *name;    /* NULL = absent */
  int32_t chain;       /* default 0 */
  int32_t iid;         /* -1 = omitted */
  int32_t dint;        /* -1 = omitted (use .dint = -1 explicitly) */
  const char *dstr;    /* NULL = absent */
  const uint8_t *meta; /* with meta_len; meta_present adds an empty one */
  uint32_t meta_len;
  int meta_present;
  uint64_t start, end;
} etw_profile_t;

/* Profile event.  Note: designated initialisers leave dint 0; set .dint = -1
 * for "no delegate id" (etw_profile_simple() does). */
void etw_profile(etw_t *w, const etw_profile_t *p);

/* A new writer (16 KiB) holding one run "Execute" with the one profile
 * event *p; NULL when out of memory. */
etw_t *etw_one_profile_run(const etw_profile_t *p);
#define ETW_NO_ID -1

/* A plain (non-delegated) profile event: name, chain, instruction id and
 * times, no delegate id, no metadata. */
void etw_profile_simple(etw_t *w, const char *name, int32_t chain, int32_t iid,
                        uint64_t start, uint64_t end);

/* A delegated profile event (no name): integer delegate id `dint`, or
 * string id `dstr` when it is not NULL (dint is then omitted), with
 * delegate metadata always present (`meta_len` bytes; may be empty). */
void etw_profile_delegated(etw_t *w, int32_t iid, int32_t dint,
                           const char *dstr, const uint8_t *meta,
                           uint32_t meta_len, uint64_t start, uint64_t end);

typedef struct etw_tensor {
  int8_t scalar_type;
  const int64_t *sizes;
  uint32_t dim;
  const int64_t *strides; /* NULL: contiguous strides are written */
  int64_t offset;
} etw_tensor_t;

typedef enum etw_value_kind {
  ETW_VALUE_NONE = -1, /* no debug_entry at all */
  ETW_VALUE_NULL = 0,
  ETW_VALUE_INT = 1,
  ETW_VALUE_BOOL = 2,
  ETW_VALUE_FLOAT = 3,
  ETW_VALUE_DOUBLE = 4,
  ETW_VALUE_TENSOR = 5,
  ETW_VALUE_TENSOR_LIST = 6
} etw_value_kind_t;

typedef struct etw_debug {
  uint64_t chain; /* ulong; UINT64_MAX for program outputs */
  int32_t iid;    /* -1 = omitted */
  int32_t dint;   /* -1 = omitted */
  const char *dstr;
  const char *name;
  int kind; /* etw_value_kind_t */
  int64_t int_value;
  int bool_value;
  double real_value;
  etw_tensor_t tensor; /* TENSOR; for TENSOR_LIST: tensors[0..count) */
  const etw_tensor_t *tensors;
  uint32_t tensor_count;
  int output;      /* -1 omitted, 0 Bool(false), 1 Bool(true) */
  int omit_member; /* 1: `val` says the kind, its table is absent */
} etw_debug_t;

void etw_debug(etw_t *w, const etw_debug_t *d);

/* A debug event of instruction `iid` (no delegate id, no output flag)
 * logging a contiguous tensor of `dim` sizes whose bytes are at `offset`
 * of the debug buffer. */
etw_debug_t etw_tensor_debug(int32_t iid, int8_t scalar_type,
                             const int64_t *sizes, uint32_t dim,
                             int64_t offset);

void etw_allocation(etw_t *w, int32_t allocator_id, uint64_t size);

/* Writes an Event table with no member set (invalid input for tests). */
void etw_empty_event(etw_t *w);

/* Finishes the ETDump (size prefix, "ED00").  The bytes live in the
 * writer.  NULL on any builder error. */
const uint8_t *etw_finish(etw_t *w, size_t *len);
/* Same without the size prefix (what upstream's Python serializer writes). */
const uint8_t *etw_finish_unprefixed(etw_t *w, size_t *len);
/* Finishes (size-prefixed), returns a malloc'd copy of the bytes (caller
 * frees) and frees the writer.  NULL with *len 0 on any error. */
uint8_t *etw_finish_copy(etw_t *w, size_t *len);

/* Writes bytes to a file; 0 on success. */
int etw_write_file(const char *path, const uint8_t *data, size_t len);

#endif
