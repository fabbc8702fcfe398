/*
 * recorder_testutil.h - helpers shared by the recorder tests: a counting
 * clock, recorder set-up, verification of every finished dump with etkit's
 * verifier, and decoding with flatc into a jansson tree for content checks.
 */
#ifndef ETK_RECORDER_TESTUTIL_H
#define ETK_RECORDER_TESTUTIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "etk_test.h"
#include "etkit/recorder.h"
#include "etkit/schema.h"

/* A clock that returns start, start+step, start+2*step, ... or, while
 * `script_len` > 0, the scripted values first. */
typedef struct rt_clock {
  uint64_t now;
  uint64_t step;
  const uint64_t *script;
  size_t script_len;
} rt_clock_t;

uint64_t rt_clock_read(void *ctx);

/* A recorder in `arena` (size bytes) with the counting clock `clk` (now
 * 1000, step 1 if zero-initialised).  REQUIRE-style: NULL on failure. */
etk_recorder_t *rt_make(void *arena, size_t size, rt_clock_t *clk);

/* A contiguous tensor (no strides) of `dim` sizes and nbytes of data. */
etk_recorder_tensor_t rt_tensor(int32_t scalar_type, uint32_t dim,
                                const int64_t *sizes, const void *data,
                                size_t nbytes);

/* etk_fb_verify with the ETDump schema, size prefix and "ED00". */
int rt_verify(const uint8_t *buf, size_t len, uint32_t *root);

/* 1 if flatc (found by CMake) can be run. */
int rt_have_flatc(void);

/* Decodes an ETDump with `flatc --json --strict-json --defaults-json
 * --size-prefixed --raw-binary`.  NULL on failure (or when flatc is
 * absent).  flatc prints 2^64-1 (an unset DebugEvent chain) as a bare
 * integer jansson cannot hold; it is turned into the string "2^64-1". */
json_t *rt_flatc_decode(const uint8_t *buf, size_t len);

/* Same for a file. */
json_t *rt_flatc_decode_file(const char *path);

/* Verifies and decodes in one go: 0 if the verifier rejects the dump,
 * otherwise 1 and *json = the decoded tree (NULL when flatc is absent). */
int rt_check_dump(const uint8_t *buf, size_t len, json_t **json);

/* Finishes the dump, then rt_check_dump: 0 if finishing fails (or gives no
 * bytes) or the verifier rejects the dump; otherwise 1 and *json. */
int rt_finish_check(etk_recorder_t *rec, json_t **json);

/* Path lookup: "run_data/1/events/0/profile_event/name". */
json_t *rt_json(json_t *root, const char *path);
const char *rt_json_str(json_t *root, const char *path);
long long rt_json_int(json_t *root, const char *path, long long missing);
size_t rt_json_len(json_t *root,
                   const char *path); /* array size, 0 if absent */
int rt_json_has(json_t *root, const char *path);

/* Runs an ETDump (as decoded JSON) through the recorder API (a replay of
 * the upstream call sequence): blocks, allocators, events with their
 * times, ids and tensor offsets.  Returns ETK_OK or the first error. */
int rt_replay(etk_recorder_t *rec, rt_clock_t *clk, json_t *dump);

#endif
