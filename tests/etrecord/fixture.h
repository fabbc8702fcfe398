/*
 * fixture.h - helpers for the ETRecord tests: build ZIP archives from
 * literal members (stored or deflated) with libzip, patch their headers,
 * and open records from memory with one-line error text.
 */
#ifndef ETK_ETRECORD_TEST_FIXTURE_H
#define ETK_ETRECORD_TEST_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/etrecord.h"

typedef struct fixture_member {
  const char *name;
  const char *text; /* NUL-terminated data, or NULL with data/len below */
  const void *data;
  size_t len;
  bool deflate;
} fixture_member_t;

/* A ZIP holding the members in order, each with the same fixed time stamp
 * (the bytes depend only on the members); malloc'd, NULL on failure. */
uint8_t *fixture_zip(const fixture_member_t *members, size_t count,
                     size_t *len);

/* Rewrites the declared uncompressed size of member `name` in its local
 * header and central directory entry.  false if not found. */
bool fixture_patch_size(uint8_t *zip, size_t len, const char *name,
                        uint32_t size);

/* Builds the ZIP and opens it.  Returns the status; *rec is NULL on
 * failure and `line` (if non-NULL) receives etk_error_format()'s text. */
int fixture_open(const fixture_member_t *members, size_t count,
                 const etk_etrecord_limits_t *limits, etk_etrecord_t **rec,
                 char *line, size_t line_size);

/* Builds the ZIP and opens it with the default limits: the record, or NULL
 * after printing the error line as a TAP note. */
etk_etrecord_t *fixture_open_ok(const fixture_member_t *members, size_t count);

/* For the fuzz targets: data[0..size) split on NUL bytes into at most
 * `name_count` members (deflated) named names[0], names[1], ..., zipped
 * after an ETRECORD_V0 marker, so that mutations reach the members' texts
 * past their CRCs.  malloc'd; NULL on failure. */
uint8_t *fixture_zip_chunks(const uint8_t *data, size_t size,
                            const char *const *names, size_t name_count,
                            size_t *out_len);

/* The fuzz targets' tight limits (small archives, shallow JSON, at most
 * 10000 nodes), so that each run stays small. */
void fixture_fuzz_limits(etk_etrecord_limits_t *lim);

/* Formats an error into a static buffer. */
const char *fixture_error_line(const etk_error_t *err);

#endif
