/*
 * fixture.c - ZIP building for the ETRecord tests (see fixture.h).
 *
 * Archives are written with libzip into memory, so tests describe records
 * as literal JSON text rather than binary files.  Deflated members use
 * libzip's default deflate level.  Every member carries one fixed time
 * stamp, so the same members always give the same bytes: the fuzz targets
 * (fuzz/etrecord, fuzz/pickle) and the etrecord seed-corpus generator build
 * their archives with this file too.
 */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

/* 2024-01-01 12:00 UTC, the time stamp of every member. */
#define FIXTURE_MTIME 1704110400

uint8_t *fixture_zip(const fixture_member_t *members, size_t count,
                     size_t *len) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &ze);
  zip_t *za =
      src ? zip_open_from_source(src, ZIP_CREATE | ZIP_TRUNCATE, &ze) : NULL;
  zip_error_fini(&ze);
  if (!za) {
    if (src) zip_source_free(src);
    return NULL;
  }
  zip_source_keep(src);
  bool ok = true;
  for (size_t i = 0; i < count && ok; i++) {
    const fixture_member_t *m = &members[i];
    const void *data = m->text ? (const void *)m->text : m->data;
    size_t n = m->text ? strlen(m->text) : m->len;
    zip_source_t *s = zip_source_buffer(za, n ? data : NULL, n, 0);
    zip_int64_t idx = s ? zip_file_add(za, m->name, s, 0) : -1;
    if (idx < 0) {
      if (s) zip_source_free(s);
      ok = false;
      break;
    }
    ok = zip_set_file_compression(za, (zip_uint64_t)idx,
                                  m->deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                  0) == 0 &&
         zip_file_set_mtime(za, (zip_uint64_t)idx, FIXTURE_MTIME, 0) == 0;
  }
  if (!ok || zip_close(za) != 0) {
    zip_discard(za);
    zip_source_free(src);
    return NULL;
  }
  uint8_t *buf = NULL;
  zip_int64_t size = -1;
  if (zip_source_open(src) == 0) {
    if (zip_source_seek(src, 0, SEEK_END) == 0) size = zip_source_tell(src);
    if (size >= 0 && zip_source_seek(src, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size + 1)) != NULL &&
        zip_source_read(src, buf, (zip_uint64_t)size) != size) {
      free(buf);
      buf = NULL;
    }
    zip_source_close(src);
  }
  zip_source_free(src);
  if (buf) *len = (size_t)size;
  return buf;
}

static uint32_t rd16(const uint8_t *p) {
  return p[0] | (uint32_t)p[1] << 8;
}

static void wr32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

bool fixture_patch_size(uint8_t *zip, size_t len, const char *name,
                        uint32_t size) {
  size_t nl = strlen(name);
  int patched = 0;
  for (size_t i = 0; i + 46 <= len; i++) {
    if (zip[i] != 'P' || zip[i + 1] != 'K') continue;
    if (zip[i + 2] == 3 && zip[i + 3] == 4 && i + 30 + nl <= len &&
        rd16(zip + i + 26) == nl && memcmp(zip + i + 30, name, nl) == 0) {
      wr32(zip + i + 22, size);
      patched++;
    } else if (zip[i + 2] == 1 && zip[i + 3] == 2 && i + 46 + nl <= len &&
               rd16(zip + i + 28) == nl &&
               memcmp(zip + i + 46, name, nl) == 0) {
      wr32(zip + i + 24, size);
      patched++;
    }
  }
  return patched == 2;
}

const char *fixture_error_line(const etk_error_t *err) {
  static char line[512];
  return etk_error_format(err, line, sizeof line);
}

int fixture_open(const fixture_member_t *members, size_t count,
                 const etk_etrecord_limits_t *limits, etk_etrecord_t **rec,
                 char *line, size_t line_size) {
  size_t len = 0;
  uint8_t *zip = fixture_zip(members, count, &len);
  *rec = NULL;
  if (!zip) {
    if (line) snprintf(line, line_size, "fixture: cannot build the zip");
    return ETK_E_INTERNAL;
  }
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_etrecord_open_memory(zip, len, limits, rec, &err);
  free(zip);
  if (line) {
    if (rc == ETK_OK)
      snprintf(line, line_size, "ok");
    else
      etk_error_format(&err, line, line_size);
  }
  return rc;
}

etk_etrecord_t *fixture_open_ok(const fixture_member_t *members, size_t count) {
  etk_etrecord_t *rec;
  char line[512];
  if (fixture_open(members, count, NULL, &rec, line, sizeof line) == ETK_OK)
    return rec;
  printf("# %s\n", line);
  return NULL;
}

uint8_t *fixture_zip_chunks(const uint8_t *data, size_t size,
                            const char *const *names, size_t name_count,
                            size_t *out_len) {
  fixture_member_t *members = calloc(name_count + 1, sizeof *members);
  if (!members) return NULL;
  members[0].name = "ETRECORD_V0";
  size_t start = 0, count = 1;
  for (size_t i = 0; i <= size && count < 1 + name_count; i++) {
    if (i < size && data[i] != 0) continue;
    members[count] = (fixture_member_t){.name = names[count - 1],
                                        .data = data + start,
                                        .len = i - start,
                                        .deflate = true};
    count++;
    start = i + 1;
  }
  uint8_t *zip = fixture_zip(members, count, out_len);
  free(members);
  return zip;
}

void fixture_fuzz_limits(etk_etrecord_limits_t *lim) {
  etk_etrecord_limits_default(lim);
  lim->max_archive_bytes = 4u << 20;
  lim->max_members = 64;
  lim->max_member_bytes = 4u << 20;
  lim->max_total_bytes = 16u << 20;
  lim->max_json_depth = 64;
  lim->max_string_bytes = 1u << 20;
  lim->max_graph_depth = 4;
  lim->max_nodes = 10000;
}
