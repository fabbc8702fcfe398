/*
 * torch_archive.c - reading torch.save archives: the ZIP container, the
 * storages, and the ETRecord members that hold them.
 *
 * Layout (artifacts notes 1.4): every entry sits under one top folder,
 * whose name is free ("archive" when torch saves to memory, the file's stem
 * otherwise); torch's reader takes it from the FIRST entry, and so does
 * this one.  Inside: data.pkl (the pickle), byteorder ("little"; absent in
 * old archives, which were little-endian), version, .data/serialization_id
 * and data/<key> for each storage.  torch writes sizes in data descriptors
 * and always appends ZIP64 end records; libzip reads sizes from the central
 * directory and understands ZIP64, so both are handled by it.
 *
 * The archive bytes are borrowed only while opening.  data.pkl is read
 * into a temporary buffer; each storage is read once, on its first
 * persistent id, into memory the archive owns, and shared by every tensor
 * naming its key.  Reads are bounded like the ETRecord reader's: the
 * declared size is checked against the limits before inflating, one byte
 * more than declared is requested (more data is an error, not an
 * overrun), and every byte read is charged to limits.max_total_bytes.
 *
 * A blob that starts with 0x80 (PROTO) is a raw pickle: before 2026-03
 * reference_outputs/representative_inputs were pickle.dumps output, and the
 * legacy (pre-1.6) torch.save format starts the same way.  Their tensors
 * use torch's legacy serialisation, so they are refused with "legacy
 * pickle, not decoded" instead of being half-decoded.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "etkit/checked.h"

#include "torch_internal.h"

etk_torch_archive_t *tk_archive_new(const etk_pickle_limits_t *limits) {
  etk_torch_archive_t *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  if (limits)
    a->limits = *limits;
  else
    etk_pickle_limits_default(&a->limits);
  return a;
}

void etk_torch_archive_close(etk_torch_archive_t *a) {
  if (!a) return;
  for (size_t i = 0; i < a->node_count; i++) {
    free(a->nodes[i]->items);
    free(a->nodes[i]->values);
  }
  free(a->nodes);
  for (size_t i = 0; i < a->storage_count; i++) {
    free(a->storages[i].key);
    free(a->storages[i].data);
  }
  free(a->storages);
  if (a->zip) zip_discard(a->zip);
  free(a->prefix);
  etr_arena_free(&a->arena);
  free(a);
}

const etk_pickle_value_t *etk_torch_archive_root(const etk_torch_archive_t *a) {
  return a ? a->root : NULL;
}

/* "<archive where>: <entry>" into out. */
static const char *entry_where(const etk_torch_archive_t *a, const char *entry,
                               char *out, size_t cap) {
  int n = a->where[0] ? snprintf(out, cap, "%s: %s", a->where, entry)
                      : snprintf(out, cap, "%s", entry);
  if (n < 0 && cap) out[0] = 0; /* (long names are cut, never unterminated) */
  return out;
}

static int entry_error(etk_torch_archive_t *a, etk_error_t *err,
                       const char *entry, int code, const char *fmt, ...)
    ETK_PRINTF_LIKE(5, 6);
static int entry_error(etk_torch_archive_t *a, etk_error_t *err,
                       const char *entry, int code, const char *fmt, ...) {
  if (!err || err->code != ETK_OK) return code;
  char where[sizeof err->where];
  va_list ap;
  va_start(ap, fmt);
  etk_error_vset(err, code, ETK_NO_OFFSET,
                 entry ? entry_where(a, entry, where, sizeof where)
                       : (a->where[0] ? a->where : "torch.save archive"),
                 fmt, ap);
  va_end(ap);
  return code;
}

/* Reads entry `index` (named `name`) whole: *data is malloc'd (+1 NUL). */
static int read_entry(etk_torch_archive_t *a, zip_uint64_t index,
                      const char *name, uint64_t max, uint8_t **data,
                      uint64_t *len, etk_error_t *err) {
  zip_t *za = a->zip;
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(za, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    return entry_error(a, err, name, ETK_E_FORMAT, "cannot stat the entry: %s",
                       zip_strerror(za));
  if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) &&
      st.encryption_method != ZIP_EM_NONE)
    return entry_error(a, err, name, ETK_E_UNSUPPORTED,
                       "encrypted entries are not supported");
  if ((st.valid & ZIP_STAT_COMP_METHOD) &&
      !zip_compression_method_supported(st.comp_method, 0))
    return entry_error(a, err, name, ETK_E_UNSUPPORTED,
                       "compression method %d is not supported",
                       (int)st.comp_method);
  uint64_t size = st.size;
  if ((st.valid & ZIP_STAT_COMP_SIZE) && (st.valid & ZIP_STAT_COMP_METHOD) &&
      st.comp_method != ZIP_CM_STORE &&
      etk_expansion_exceeds(size, st.comp_size, a->limits.max_compression_ratio,
                            (uint64_t)1 << 20))
    return entry_error(a, err, name, ETK_E_LIMIT,
                       "entry declares %llu uncompressed bytes from %llu "
                       "compressed ones (over %u:1): refusing a possible zip "
                       "bomb",
                       (unsigned long long)size,
                       (unsigned long long)st.comp_size,
                       (unsigned)a->limits.max_compression_ratio);
  if (size > max || size > SIZE_MAX - 2)
    return entry_error(a, err, name, ETK_E_LIMIT,
                       "entry of %llu bytes is over the limit of %llu",
                       (unsigned long long)size, (unsigned long long)max);
  if (size > a->limits.max_total_bytes - a->bytes_read)
    return entry_error(a, err, name, ETK_E_LIMIT,
                       "reading %llu more bytes passes the total limit of %llu",
                       (unsigned long long)size,
                       (unsigned long long)a->limits.max_total_bytes);
  uint8_t *buf = malloc((size_t)size + 2);
  if (!buf)
    return entry_error(a, err, name, ETK_E_NO_MEMORY,
                       "out of memory reading %llu bytes",
                       (unsigned long long)size);
  zip_file_t *f = zip_fopen_index(za, index, 0);
  if (!f) {
    free(buf);
    return entry_error(a, err, name, ETK_E_FORMAT, "cannot open the entry: %s",
                       zip_strerror(za));
  }
  uint64_t got = 0;
  int rc = ETK_OK;
  while (got <= size) {
    zip_int64_t r = zip_fread(f, buf + got, (zip_uint64_t)(size + 1 - got));
    if (r < 0) {
      rc = entry_error(a, err, name, ETK_E_FORMAT, "reading failed: %s",
                       zip_file_strerror(f));
      break;
    }
    if (r == 0) break;
    got += (uint64_t)r;
  }
  zip_fclose(f);
  if (rc == ETK_OK && got != size)
    rc = entry_error(a, err, name, got > size ? ETK_E_FORMAT : ETK_E_TRUNCATED,
                     "entry holds %s data than the %llu bytes it declares",
                     got > size ? "more" : "less", (unsigned long long)size);
  if (rc != ETK_OK) {
    free(buf);
    return rc;
  }
  buf[size] = 0;
  a->bytes_read += size;
  *data = buf;
  *len = size;
  return ETK_OK;
}

/* The persistent-id callback of the unpickler: data/<key>, read once. */
static int load_storage(etk_torch_archive_t *a, const char *key,
                        uint64_t nbytes, const tk_storage_t **out,
                        etk_error_t *err) {
  char name[600];
  snprintf(name, sizeof name, "%sdata/%s", a->prefix, key);
  tk_storage_t *st = NULL;
  for (size_t i = 0; i < a->storage_count && !st; i++)
    if (strcmp(a->storages[i].key, key) == 0) st = &a->storages[i];
  if (!st) {
    zip_int64_t index = zip_name_locate(a->zip, name, 0);
    if (index < 0)
      return entry_error(a, err, NULL, ETK_E_NOT_FOUND,
                         "storage entry '%s' is missing", name);
    if (!ETK_VEC_RESERVE(a->storages, a->storage_cap, a->storage_count + 1))
      return entry_error(a, err, name, ETK_E_NO_MEMORY, "out of memory");
    tk_storage_t fresh = {NULL, NULL, 0};
    fresh.key = malloc(strlen(key) + 1);
    if (!fresh.key)
      return entry_error(a, err, name, ETK_E_NO_MEMORY, "out of memory");
    strcpy(fresh.key, key);
    int rc =
        read_entry(a, (zip_uint64_t)index, name, a->limits.max_storage_bytes,
                   &fresh.data, &fresh.nbytes, err);
    if (rc != ETK_OK) {
      free(fresh.key);
      return rc;
    }
    a->storages[a->storage_count] = fresh;
    st = &a->storages[a->storage_count++];
  }
  if (st->nbytes < nbytes)
    return entry_error(a, err, name, ETK_E_FORMAT,
                       "storage holds %llu bytes but its persistent id needs "
                       "%llu",
                       (unsigned long long)st->nbytes,
                       (unsigned long long)nbytes);
  *out = st;
  return ETK_OK;
}

static int open_zip(etk_torch_archive_t *a, const uint8_t *data, size_t len,
                    etk_error_t *err) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(data, len, 0, &ze);
  zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY, &ze) : NULL;
  if (!za) {
    int rc = entry_error(a, err, NULL, ETK_E_FORMAT, "not a readable ZIP: %s",
                         zip_error_strerror(&ze));
    if (src) zip_source_free(src);
    zip_error_fini(&ze);
    return rc;
  }
  zip_error_fini(&ze);
  a->zip = za;
  zip_int64_t n = zip_get_num_entries(za, 0);
  if (n <= 0)
    return entry_error(a, err, NULL, ETK_E_FORMAT,
                       "the ZIP has no entries (no data.pkl)");
  if ((uint64_t)n > a->limits.max_entries)
    return entry_error(a, err, NULL, ETK_E_LIMIT, "%lld ZIP entries (limit %u)",
                       (long long)n, a->limits.max_entries);
  const char *first = zip_get_name(za, 0, ZIP_FL_ENC_RAW);
  const char *slash = first ? strchr(first, '/') : NULL;
  if (!slash || slash == first)
    return entry_error(a, err, NULL, ETK_E_FORMAT,
                       "the first entry is not inside a top folder (torch.save "
                       "archives keep everything under one)");
  size_t plen = (size_t)(slash - first) + 1;
  if (plen > 256)
    return entry_error(a, err, NULL, ETK_E_LIMIT, "top folder name too long");
  a->prefix = malloc(plen + 1);
  if (!a->prefix)
    return entry_error(a, err, NULL, ETK_E_NO_MEMORY, "out of memory");
  memcpy(a->prefix, first, plen);
  a->prefix[plen] = 0;
  return ETK_OK;
}

/* The shared start of both entry points: checks the arguments, clears *out
 * and makes the archive that remembers `where` for its messages. */
static int archive_start(const void *data, size_t len,
                         const etk_pickle_limits_t *limits, const char *where,
                         etk_torch_archive_t **out,
                         etk_torch_archive_t **archive, etk_error_t *err) {
  if (!out || (!data && len))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  etk_torch_archive_t *a = tk_archive_new(limits);
  if (!a)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (where) snprintf(a->where, sizeof a->where, "%s", where);
  *archive = a;
  return ETK_OK;
}

/* Ends an open: hands `a` to *out when rc is ETK_OK, else closes it. */
static int archive_finish(etk_torch_archive_t *a, int rc,
                          etk_torch_archive_t **out) {
  if (rc != ETK_OK) {
    etk_torch_archive_close(a);
    return rc;
  }
  *out = a;
  return ETK_OK;
}

int etk_pickle_load(const void *data, size_t len,
                    const etk_pickle_limits_t *limits, const char *where,
                    etk_torch_archive_t **out, etk_error_t *err) {
  etk_torch_archive_t *a = NULL;
  int start = archive_start(data, len, limits, where, out, &a, err);
  if (start != ETK_OK) return start;
  int rc = tk_unpickle(a, data, len, NULL, where ? where : "pickle", err);
  return archive_finish(a, rc, out);
}

int etk_torch_archive_open(const void *data, size_t len,
                           const etk_pickle_limits_t *limits, const char *where,
                           etk_torch_archive_t **out, etk_error_t *err) {
  etk_torch_archive_t *a = NULL;
  int start = archive_start(data, len, limits, where, out, &a, err);
  if (start != ETK_OK) return start;
  const uint8_t *p = data;
  int rc;
  if (len >= 1 && p[0] == 0x80) {
    rc = entry_error(a, err, NULL, ETK_E_UNSUPPORTED,
                     "legacy pickle, not decoded (a raw pickle, not a "
                     "torch.save ZIP archive: its tensors use torch's legacy "
                     "serialisation)");
  } else if (len < 4 || memcmp(p, "PK\x03\x04", 4) != 0) {
    rc = entry_error(a, err, NULL,
                     len == 0 ? ETK_E_TRUNCATED : ETK_E_BAD_IDENTIFIER,
                     len == 0 ? "empty input (no torch.save archive)"
                              : "not a torch.save archive (no ZIP signature)");
  } else {
    rc = open_zip(a, p, len, err);
  }
  uint8_t *pkl = NULL;
  uint64_t pkl_len = 0;
  char name[600];
  if (rc == ETK_OK) {
    snprintf(name, sizeof name, "%sbyteorder", a->prefix);
    zip_int64_t bo = zip_name_locate(a->zip, name, 0);
    if (bo >= 0) {
      uint8_t *text = NULL;
      uint64_t tlen = 0;
      rc = read_entry(a, (zip_uint64_t)bo, name, 64, &text, &tlen, err);
      if (rc == ETK_OK && !(tlen == 6 && memcmp(text, "little", 6) == 0))
        rc = entry_error(a, err, name, ETK_E_UNSUPPORTED,
                         "only little-endian storages are supported");
      free(text);
    }
  }
  if (rc == ETK_OK) {
    snprintf(name, sizeof name, "%sdata.pkl", a->prefix);
    zip_int64_t index = zip_name_locate(a->zip, name, 0);
    if (index < 0)
      rc = entry_error(a, err, NULL, ETK_E_FORMAT,
                       "no '%s' entry (the pickle of a torch.save archive)",
                       name);
    else
      rc = read_entry(a, (zip_uint64_t)index, name, a->limits.max_pickle_bytes,
                      &pkl, &pkl_len, err);
  }
  if (rc == ETK_OK) {
    char where_pkl[sizeof a->where + 600];
    entry_where(a, name, where_pkl, sizeof where_pkl);
    rc = tk_unpickle(a, pkl, (size_t)pkl_len, load_storage, where_pkl, err);
  }
  free(pkl);
  if (a->zip) {
    zip_discard(a->zip);
    a->zip = NULL;
  }
  return archive_finish(a, rc, out);
}
