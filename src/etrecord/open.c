/*
 * open.c - opening and closing an ETRecord: the top of the reader.
 *
 * Opening checks the archive size against the limits, hands the bytes to
 * archive.c (ZIP container, member list, program list, layout guess), then
 * parses the emitter maps (maps.c).  Programs are parsed lazily
 * (edge_program.c); closing frees them with everything else the record owns.
 * Archive-level errors of a file name the file rather than "ETRecord".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "internal.h"

static int open_owned(uint8_t *owned, size_t len,
                      const etk_etrecord_limits_t *limits, etk_etrecord_t **out,
                      etk_error_t *err) {
  etk_etrecord_t *rec = calloc(1, sizeof *rec);
  if (!rec) {
    free(owned);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory opening the ETRecord");
  }
  if (limits)
    rec->limits = *limits;
  else
    etk_etrecord_limits_default(&rec->limits);
  const char *where = "ETRecord";
  int rc = ETK_OK;
  if ((uint64_t)len > rec->limits.max_archive_bytes) {
    etk_error_where(err, where);
    rc = etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                       "archive of %zu bytes is over the limit of %llu", len,
                       (unsigned long long)rec->limits.max_archive_bytes);
  }
  if (rc == ETK_OK)
    rc = etr_archive_open(rec, owned, len, where, err);
  else
    free(owned);
  if (rc == ETK_OK) rc = etr_maps_parse(rec, err);
  if (rc != ETK_OK) {
    etk_etrecord_close(rec);
    return rc;
  }
  rec->info.member_count = rec->member_count;
  rec->info.program_count = rec->program_count;
  rec->info.method_count = rec->maps_count;
  *out = rec;
  return ETK_OK;
}

int etk_etrecord_open_memory(const void *data, size_t len,
                             const etk_etrecord_limits_t *limits,
                             etk_etrecord_t **out, etk_error_t *err) {
  if (!out || (!data && len > 0))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory copying the archive");
  if (len) memcpy(copy, data, len);
  return open_owned(copy, len, limits, out, err);
}

int etk_etrecord_open_file(const char *path,
                           const etk_etrecord_limits_t *limits,
                           etk_etrecord_t **out, etk_error_t *err) {
  if (!path || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  etk_etrecord_limits_t lim;
  if (limits)
    lim = *limits;
  else
    etk_etrecord_limits_default(&lim);
  uint8_t *data = NULL;
  size_t len = 0;
  int rc = etk_read_file(path, lim.max_archive_bytes, &data, &len, err);
  if (rc != ETK_OK) return rc;
  rc = etk_file_kind_expect(path, data, len, ETK_FILE_ZIP, err);
  if (rc != ETK_OK) { /* a program, an ETDump...: say so */
    free(data);
    return rc;
  }
  etk_error_t local;
  etk_error_clear(&local);
  rc = open_owned(data, len, &lim, out, &local);
  if (rc != ETK_OK && err && err->code == ETK_OK) {
    /* Archive-level problems name the file rather than "ETRecord". */
    if (strcmp(local.where, "ETRecord") == 0)
      snprintf(local.where, sizeof local.where, "%s", path);
    *err = local;
  }
  return rc;
}

void etk_etrecord_close(etk_etrecord_t *rec) {
  if (!rec) return;
  for (size_t i = 0; i < rec->program_count; i++)
    etr_program_free(rec->programs[i].loaded);
  free(rec->programs);
  for (size_t i = 0; i < rec->member_count; i++) free(rec->members[i].data);
  free(rec->members);
  free(rec->maps);
  if (rec->zip) zip_discard(rec->zip);
  etr_arena_free(&rec->arena);
  free(rec);
}
