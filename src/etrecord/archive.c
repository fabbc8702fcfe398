/*
 * archive.c - the ZIP container of an ETRecord (opened by open.c): its members,
 * the program list and the layout guess.
 *
 * The archive is opened with libzip over a private copy of the bytes.
 * Before any member is inflated, open checks what the central directory
 * declares: the number of entries (limits->max_members) and the sum of the
 * uncompressed sizes (limits->max_total_bytes, the zip-bomb guard), and
 * each compressed member's ratio of declared to compressed size
 * (limits->max_compression_ratio: a 1 GiB bomb is refused before a byte is
 * inflated).  Reads
 * then enforce the same limits on what inflation really produces: a
 * member is read into a buffer of its declared size and one extra byte is
 * requested, so data longer than declared is an error instead of an
 * overrun, and every byte read is charged to rec->bytes_inflated.
 *
 * Member names are classified once (etk_etrecord_member_kind_t).  Program
 * members are the ones that are neither reserved nor one of a program
 * group's "_state_dict", "_constants", "_example_inputs" companions; each
 * gets a program slot (parsed lazily in edge_program.c).  When a name repeats,
 * lookups take the last entry, as Python's zipfile does.
 *
 * The layout is inferred from member names (no version field exists):
 * edge programs with a "/<method>" suffix mean 2026-02 or later; program
 * groups with "_constants" or "_example_inputs" mean 2024-07 or later; a
 * bare edge program alone means 2023-09; program_buffer or
 * et_dialect_graph_module means the first 2023 layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/checked.h"
#include "internal.h"

#define MARKER "ETRECORD_V0"
#define EDGE_NAME "edge_dialect_exported_program"

void etk_etrecord_limits_default(etk_etrecord_limits_t *limits) {
  limits->max_archive_bytes = (uint64_t)4 << 30;
  limits->max_members = 10000;
  limits->max_member_bytes = (uint64_t)1 << 30;
  limits->max_total_bytes = (uint64_t)8 << 30;
  limits->max_json_depth = 512;
  limits->max_string_bytes = (uint64_t)256 << 20;
  limits->max_graph_depth = 16;
  limits->max_nodes = (uint64_t)4 << 20;
  limits->max_compression_ratio = 100;
  limits->max_json_memory_ratio = 32;
}

/* Fails when compressed member `m` declares more uncompressed bytes than
 * its compressed size allows under limits->max_compression_ratio. */
static int check_ratio(const etk_etrecord_t *rec, const etr_member_t *m,
                       etk_error_t *err) {
  uint32_t ratio = rec->limits.max_compression_ratio;
  if (m->pub.compression == ZIP_CM_STORE ||
      !etk_expansion_exceeds(m->pub.size, m->pub.compressed_size, ratio,
                             (uint64_t)1 << 20))
    return ETK_OK;
  return etk_error_set_where(
      err, m->pub.name, ETK_E_LIMIT,
      "member declares %llu uncompressed bytes from %llu compressed ones "
      "(over %llu:1): refusing a possible zip bomb",
      (unsigned long long)m->pub.size,
      (unsigned long long)m->pub.compressed_size, (unsigned long long)ratio);
}

const char *etk_etrecord_layout_name(etk_etrecord_layout_t layout) {
  switch (layout) {
    case ETK_ETRECORD_LAYOUT_2023_07:
      return "2023-07..2023-10 (program_buffer, et_dialect_graph_module)";
    case ETK_ETRECORD_LAYOUT_2023_09:
      return "2023-09..2024-07 (bare edge program, 2-member groups)";
    case ETK_ETRECORD_LAYOUT_2024_07:
      return "2024-07..2026-02 (bare edge program, 4-member groups)";
    case ETK_ETRECORD_LAYOUT_2026_02:
      return "2026-02 on (one edge program per method)";
    default:
      return "unknown (no edge program)";
  }
}

static bool ends_with(const char *s, const char *suffix, size_t *stem) {
  size_t n = strlen(s), m = strlen(suffix);
  if (n <= m || memcmp(s + n - m, suffix, m) != 0) return false;
  if (stem) *stem = n - m;
  return true;
}

static etk_etrecord_member_kind_t classify(const char *name) {
  static const struct {
    const char *name;
    etk_etrecord_member_kind_t kind;
  } exact[] = {
      {MARKER, ETK_ETRECORD_MEMBER_MARKER},
      {"debug_handle_map", ETK_ETRECORD_MEMBER_DEBUG_HANDLE_MAP},
      {"delegate_map", ETK_ETRECORD_MEMBER_DELEGATE_MAP},
      {"instruction_id_to_num_outs_map", ETK_ETRECORD_MEMBER_NUM_OUTS_MAP},
      {"reference_outputs", ETK_ETRECORD_MEMBER_REFERENCE_OUTPUTS},
      {"representative_inputs", ETK_ETRECORD_MEMBER_REPRESENTATIVE_INPUTS},
      {"export_graph_id", ETK_ETRECORD_MEMBER_EXPORT_GRAPH_ID},
      {"program_buffer", ETK_ETRECORD_MEMBER_PROGRAM_BUFFER},
  };
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
    if (strcmp(name, exact[i].name) == 0) return exact[i].kind;
  if (name[0] == 0 || name[strlen(name) - 1] == '/')
    return ETK_ETRECORD_MEMBER_OTHER; /* directory entries */
  if (ends_with(name, "_state_dict", NULL))
    return ETK_ETRECORD_MEMBER_STATE_DICT;
  if (ends_with(name, "_constants", NULL)) return ETK_ETRECORD_MEMBER_CONSTANTS;
  if (ends_with(name, "_example_inputs", NULL))
    return ETK_ETRECORD_MEMBER_EXAMPLE_INPUTS;
  return ETK_ETRECORD_MEMBER_PROGRAM;
}

static void split_program_name(etk_etrecord_t *rec, etr_program_slot_t *slot,
                               const char *member, bool *ok) {
  slot->ref.member = member;
  const char *slash = strrchr(member, '/');
  if (slash) {
    slot->ref.module =
        etr_arena_strndup(&rec->arena, member, (size_t)(slash - member));
    slot->ref.method = slash + 1;
  } else {
    slot->ref.module = member;
    slot->ref.method = "";
  }
  if (!slot->ref.module) {
    *ok = false;
    return;
  }
  if (strcmp(slot->ref.module, EDGE_NAME) == 0) {
    slot->ref.kind = ETK_ETRECORD_PROGRAM_EDGE;
    if (!slash) slot->ref.method = "forward";
  } else if (strcmp(slot->ref.module, "exported_program") == 0) {
    slot->ref.kind = ETK_ETRECORD_PROGRAM_EXPORTED;
  } else if (strcmp(slot->ref.module, "et_dialect_graph_module") == 0) {
    slot->ref.kind = ETK_ETRECORD_PROGRAM_ET_DIALECT;
  } else {
    slot->ref.kind = ETK_ETRECORD_PROGRAM_EXTRA;
  }
}

static int zip_failure(etk_error_t *err, const char *where, int zcode,
                       const char *what) {
  int code = ETK_E_FORMAT;
  const char *msg = "inconsistent ZIP archive";
  switch (zcode) {
    case ZIP_ER_NOZIP:
      code = ETK_E_BAD_IDENTIFIER;
      msg = "not a ZIP archive (no end of central directory; truncated?)";
      break;
    case ZIP_ER_MEMORY:
      code = ETK_E_NO_MEMORY;
      msg = "out of memory";
      break;
    case ZIP_ER_EOF:
    case ZIP_ER_READ:
    case ZIP_ER_SEEK:
      code = ETK_E_TRUNCATED;
      msg = "archive data ends early";
      break;
    case ZIP_ER_CRC:
      msg = "CRC mismatch";
      break;
    case ZIP_ER_COMPNOTSUPP:
      code = ETK_E_UNSUPPORTED;
      msg = "compression method not supported";
      break;
    case ZIP_ER_ENCRNOTSUPP:
    case ZIP_ER_NOPASSWD:
      code = ETK_E_UNSUPPORTED;
      msg = "encrypted member";
      break;
    case ZIP_ER_ZLIB:
      msg = "corrupt compressed data";
      break;
    default: {
      zip_error_t ze;
      zip_error_init_with_code(&ze, zcode);
      etk_error_where(err, where);
      code = etk_error_set(err, code, ETK_NO_OFFSET, "%s: %s", what,
                           zip_error_strerror(&ze));
      zip_error_fini(&ze);
      return code;
    }
  }
  return etk_error_set_where(err, where, code, "%s: %s", what, msg);
}

/* Opens the archive over `copy` (malloc'd), which libzip owns from here
 * on: it is freed here on failure, or by zip_discard() later. */
static int open_zip(etk_etrecord_t *rec, void *copy, size_t len,
                    const char *where, etk_error_t *err) {
  /* The smallest archive is one end-of-central-directory record. */
  if (len < 22) {
    free(copy);
    return etk_error_set_where(err, where, ETK_E_BAD_IDENTIFIER,
                               "not a ZIP archive (%zu bytes)", len);
  }
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(copy, len, 1, &ze);
  if (!src) {
    free(copy);
    int rc = zip_failure(err, where, zip_error_code_zip(&ze), "opening");
    zip_error_fini(&ze);
    return rc;
  }
  rec->zip = zip_open_from_source(src, ZIP_RDONLY, &ze);
  if (!rec->zip) {
    zip_source_free(src); /* frees `copy` too */
    int rc = zip_failure(err, where, zip_error_code_zip(&ze), "opening");
    zip_error_fini(&ze);
    return rc;
  }
  zip_error_fini(&ze);
  return ETK_OK;
}

static int list_members(etk_etrecord_t *rec, const char *where,
                        etk_error_t *err) {
  zip_int64_t n = zip_get_num_entries(rec->zip, 0);
  if (n < 0) n = 0;
  if ((uint64_t)n > rec->limits.max_members) {
    return etk_error_set_where(err, where, ETK_E_LIMIT,
                               "%lld ZIP entries, over the limit of %u",
                               (long long)n, (unsigned)rec->limits.max_members);
  }
  rec->members = calloc((size_t)n ? (size_t)n : 1, sizeof(etr_member_t));
  if (!rec->members) {
    return etk_error_set_where(err, where, ETK_E_NO_MEMORY,
                               "out of memory listing members");
  }
  uint64_t declared = 0;
  for (zip_int64_t i = 0; i < n; i++) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(rec->zip, (zip_uint64_t)i, 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_NAME)) {
      return etk_error_set_where(err, where, ETK_E_FORMAT,
                                 "cannot read the directory entry %lld",
                                 (long long)i);
    }
    etr_member_t *m = &rec->members[rec->member_count];
    m->zip_index = (zip_uint64_t)i;
    m->pub.name = etr_arena_strdup(&rec->arena, st.name);
    if (!m->pub.name) {
      return etk_error_set_where(err, where, ETK_E_NO_MEMORY,
                                 "out of memory listing members");
    }
    m->pub.size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
    m->pub.compressed_size = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
    m->pub.compression = (st.valid & ZIP_STAT_COMP_METHOD) ? st.comp_method : 0;
    m->encrypted = (st.valid & ZIP_STAT_ENCRYPTION_METHOD) &&
                   st.encryption_method != ZIP_EM_NONE;
    m->pub.kind = classify(m->pub.name);
    rec->member_count++;
    int rc = check_ratio(rec, m, err);
    if (rc != ETK_OK) return rc;
    if (m->pub.size > rec->limits.max_total_bytes - declared)
      return etk_error_set_where(
          err, m->pub.name, ETK_E_LIMIT,
          "members declare more than %llu uncompressed bytes in total (this "
          "one %llu): refusing a possible zip bomb",
          (unsigned long long)rec->limits.max_total_bytes,
          (unsigned long long)m->pub.size);
    declared += m->pub.size;
  }
  return ETK_OK;
}

static etr_member_t *find_member(const etk_etrecord_t *rec, const char *name) {
  for (size_t i = rec->member_count; i-- > 0;)
    if (strcmp(rec->members[i].pub.name, name) == 0) return &rec->members[i];
  return NULL;
}

/* Gives `feature` when the archive has `member`, whatever it holds (a map
 * that does not parse fails the open later, in etr_maps_parse). */
static void feature_if_member(etk_etrecord_t *rec, const char *member,
                              uint32_t feature) {
  if (find_member(rec, member)) rec->info.features |= feature;
}

static int list_programs(etk_etrecord_t *rec, etk_error_t *err) {
  rec->programs = calloc(rec->member_count ? rec->member_count : 1,
                         sizeof(etr_program_slot_t));
  if (!rec->programs)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory listing programs");
  bool groups4 = false, suffixed_edge = false, bare_edge = false,
       legacy = false;
  for (size_t i = 0; i < rec->member_count; i++) {
    etr_member_t *m = &rec->members[i];
    if (m->pub.kind == ETK_ETRECORD_MEMBER_CONSTANTS ||
        m->pub.kind == ETK_ETRECORD_MEMBER_EXAMPLE_INPUTS)
      groups4 = true;
    if (m->pub.kind == ETK_ETRECORD_MEMBER_PROGRAM_BUFFER) legacy = true;
    if (m->pub.kind != ETK_ETRECORD_MEMBER_PROGRAM) continue;
    if (find_member(rec, m->pub.name) != m) continue; /* repeated name */
    etr_program_slot_t *slot = &rec->programs[rec->program_count++];
    bool ok = true;
    split_program_name(rec, slot, m->pub.name, &ok);
    if (!ok)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory listing programs");
    if (slot->ref.kind == ETK_ETRECORD_PROGRAM_EDGE) {
      if (strchr(m->pub.name, '/'))
        suffixed_edge = true;
      else
        bare_edge = true;
    }
    if (slot->ref.kind == ETK_ETRECORD_PROGRAM_ET_DIALECT) legacy = true;
    if (slot->ref.kind == ETK_ETRECORD_PROGRAM_EXPORTED)
      rec->info.features |= ETK_ETRECORD_HAS_EXPORTED_PROGRAM;
  }
  if (suffixed_edge)
    rec->info.layout = ETK_ETRECORD_LAYOUT_2026_02;
  else if (groups4 && bare_edge)
    rec->info.layout = ETK_ETRECORD_LAYOUT_2024_07;
  else if (legacy)
    rec->info.layout = ETK_ETRECORD_LAYOUT_2023_07;
  else if (bare_edge)
    rec->info.layout = ETK_ETRECORD_LAYOUT_2023_09;
  else
    rec->info.layout = ETK_ETRECORD_LAYOUT_UNKNOWN;
  feature_if_member(rec, "program_buffer", ETK_ETRECORD_HAS_PROGRAM_BUFFER);
  feature_if_member(rec, "reference_outputs",
                    ETK_ETRECORD_HAS_REFERENCE_OUTPUTS);
  feature_if_member(rec, "representative_inputs",
                    ETK_ETRECORD_HAS_REPRESENTATIVE_INPUTS);
  feature_if_member(rec, "debug_handle_map", ETK_ETRECORD_HAS_DEBUG_HANDLE_MAP);
  feature_if_member(rec, "delegate_map", ETK_ETRECORD_HAS_DELEGATE_MAP);
  feature_if_member(rec, "instruction_id_to_num_outs_map",
                    ETK_ETRECORD_HAS_NUM_OUTS_MAP);
  return ETK_OK;
}

int etr_member_load_json(etk_etrecord_t *rec, const etk_etrecord_member_t *pub,
                         const char *member, json_t **root, etk_error_t *err) {
  etr_member_t *m = (etr_member_t *)(void *)pub; /* pub is the first field */
  int rc = etr_member_load(rec, m, err);
  if (rc != ETK_OK) return rc;
  return etr_json_parse((const char *)m->data, m->len, &rec->limits, member,
                        NULL, root, err);
}

int etr_member_load(etk_etrecord_t *rec, etr_member_t *m, etk_error_t *err) {
  if (m->loaded) return ETK_OK;
  const char *where = m->pub.name;
  if (m->encrypted) {
    return etk_error_set_where(err, where, ETK_E_UNSUPPORTED,
                               "encrypted members are not supported");
  }
  if (!zip_compression_method_supported(m->pub.compression, 0)) {
    return etk_error_set_where(err, where, ETK_E_UNSUPPORTED,
                               "compression method %d is not supported",
                               (int)m->pub.compression);
  }
  uint64_t size = m->pub.size;
  if (size > rec->limits.max_member_bytes || size > SIZE_MAX - 2) {
    return etk_error_set_where(
        err, where, ETK_E_LIMIT,
        "member of %llu bytes is over the limit of %llu",
        (unsigned long long)size,
        (unsigned long long)rec->limits.max_member_bytes);
  }
  if (size > rec->limits.max_total_bytes - rec->bytes_inflated) {
    return etk_error_set_where(
        err, where, ETK_E_LIMIT,
        "reading %llu more bytes passes the total limit of "
        "%llu",
        (unsigned long long)size,
        (unsigned long long)rec->limits.max_total_bytes);
  }
  uint8_t *buf = malloc((size_t)size + 2);
  if (!buf) {
    return etk_error_set_where(err, where, ETK_E_NO_MEMORY,
                               "out of memory reading %llu bytes",
                               (unsigned long long)size);
  }
  zip_file_t *f = zip_fopen_index(rec->zip, m->zip_index, 0);
  if (!f) {
    free(buf);
    return zip_failure(err, where, zip_error_code_zip(zip_get_error(rec->zip)),
                       "opening member");
  }
  uint64_t got = 0;
  int rc = ETK_OK;
  /* Read the declared size plus one byte: more data than declared is an
   * error, never a bigger buffer. */
  while (got <= size) {
    zip_int64_t r = zip_fread(f, buf + got, (zip_uint64_t)(size + 1 - got));
    if (r < 0) {
      rc = zip_failure(err, where, zip_error_code_zip(zip_file_get_error(f)),
                       "reading member");
      break;
    }
    if (r == 0) break;
    got += (uint64_t)r;
  }
  zip_fclose(f);
  if (rc == ETK_OK && got != size) {
    etk_error_where(err, where);
    rc = etk_error_set(err, got > size ? ETK_E_FORMAT : ETK_E_TRUNCATED,
                       ETK_NO_OFFSET,
                       "member holds %s data than the %llu bytes it declares",
                       got > size ? "more" : "less", (unsigned long long)size);
  }
  if (rc != ETK_OK) {
    free(buf);
    return rc;
  }
  buf[size] = 0;
  rec->bytes_inflated += size;
  m->data = buf;
  m->len = (size_t)size;
  m->loaded = true;
  return ETK_OK;
}

void etr_member_unload(etr_member_t *m) {
  free(m->data);
  m->data = NULL;
  m->len = 0;
  m->loaded = false;
}

/* Opens an archive whose malloc'd bytes `owned` are handed over. */
int etr_archive_open(etk_etrecord_t *rec, uint8_t *owned, size_t len,
                     const char *where, etk_error_t *err) {
  int rc = open_zip(rec, owned, len, where, err);
  if (rc == ETK_OK) rc = list_members(rec, where, err);
  if (rc == ETK_OK && !find_member(rec, MARKER)) {
    etk_error_where(err, where);
    rc = etk_error_set(err, ETK_E_BAD_IDENTIFIER, ETK_NO_OFFSET,
                       "no " MARKER
                       " member: this ZIP archive is not an "
                       "ETRecord");
  }
  if (rc == ETK_OK) rc = list_programs(rec, err);
  return rc;
}

void etk_etrecord_info_get(const etk_etrecord_t *rec,
                           etk_etrecord_info_t *info) {
  *info = rec->info;
}

const etk_etrecord_member_t *etk_etrecord_member_at(const etk_etrecord_t *rec,
                                                    size_t index) {
  if (!rec || index >= rec->member_count) return NULL;
  return &rec->members[index].pub;
}

const etk_etrecord_member_t *etk_etrecord_member_find(const etk_etrecord_t *rec,
                                                      const char *name) {
  if (!rec || !name) return NULL;
  etr_member_t *m = find_member(rec, name);
  return m ? &m->pub : NULL;
}

int etk_etrecord_member_read(etk_etrecord_t *rec, const char *name,
                             const uint8_t **data, size_t *len,
                             etk_error_t *err) {
  if (!rec || !name || !data || !len)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *data = NULL;
  *len = 0;
  etr_member_t *m = find_member(rec, name);
  if (!m) {
    return etk_error_set_where(err, name, ETK_E_NOT_FOUND,
                               "no such member in the ETRecord");
  }
  int rc = etr_member_load(rec, m, err);
  if (rc != ETK_OK) return rc;
  *data = m->data;
  *len = m->len;
  return ETK_OK;
}

etk_etrecord_blob_kind_t etk_etrecord_blob_kind(const uint8_t *data,
                                                size_t len) {
  if (!data || len == 0) return ETK_ETRECORD_BLOB_EMPTY;
  if (len >= 2 && data[0] == 'P' && data[1] == 'K')
    return ETK_ETRECORD_BLOB_TORCH_ZIP;
  if (data[0] == 0x80) return ETK_ETRECORD_BLOB_PICKLE;
  if (data[0] == '{' || data[0] == '[' || data[0] == '-' ||
      (data[0] >= '0' && data[0] <= '9'))
    return ETK_ETRECORD_BLOB_JSON;
  return ETK_ETRECORD_BLOB_UNKNOWN;
}

const etk_etrecord_program_ref_t *etk_etrecord_program_at(
    const etk_etrecord_t *rec, size_t index) {
  if (!rec || index >= rec->program_count) return NULL;
  return &rec->programs[index].ref;
}
