/*
 * analysis_common.c - the string-interning map the analyses share (see
 * analysis_internal.h) and the recorder's drop-marker parser.
 *
 * INTERN MAP
 *   Ids are dense and stable; per-id facts live in arrays the caller
 *   indexes by id, so grouping a million events by name costs one hash and
 *   one probe each, never a scan.  The slot table is kept at most half
 *   full (linear probing stays short) and doubles when it would pass that.
 *
 * DROP MARKER
 *   etkit's recorder names its last RunData
 *   "etkit:dropped_events=N[,blocks=M][,allocators=K]" when its buffer
 *   filled (docs/recorder.md).  Parsing is strict about the prefix and the
 *   digits, lenient about unknown ",key=value" parts so a later recorder
 *   may add counts without breaking older readers.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

void ana_intern_init(ana_intern_t *m) {
  memset(m, 0, sizeof *m);
}

void ana_intern_free(ana_intern_t *m) {
  free(m->slots);
  free(m->hashes);
  free(m->spans);
  etk_strbuf_free(&m->keys);
  memset(m, 0, sizeof *m);
}

/* Eight bytes per step (multiply, rotate), the tail as one word, then a
 * 64-bit finaliser so that similar keys (names differing in a digit,
 * trailing counters) spread over the low bits a power-of-two table uses.
 * Ids do not depend on the hash (they are dense, in first-seen order), so
 * nothing printed does either. */
static uint64_t key_hash(const void *key, size_t len) {
  const unsigned char *p = key;
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (len * 0xff51afd7ed558ccdull);
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h = (h << 29) | (h >> 35);
  }
  if (i < len) {
    uint64_t w = 0;
    memcpy(&w, p + i, len - i);
    h = (h ^ w) * 0x100000001b3ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

/* A slot: id + 1 in the low half (0 = empty), the hash's high half above,
 * so that most mismatches are rejected without touching the per-id
 * arrays or the key bytes. */
static inline uint64_t slot_of(uint64_t h, uint32_t id) {
  return (h & 0xFFFFFFFF00000000ull) | ((uint64_t)id + 1);
}

static int same_key(const ana_intern_t *m, uint32_t id, const void *key,
                    size_t len) {
  const ana_span_t *sp = &m->spans[id];
  return sp->length == len &&
         (len == 0 || memcmp(m->keys.data + sp->offset, key, len) == 0);
}

static uint32_t find_hashed(const ana_intern_t *m, uint64_t h, const void *key,
                            size_t len) {
  if (!m->slot_cap) return UINT32_MAX;
  uint64_t tag = h & 0xFFFFFFFF00000000ull;
  for (size_t i = (size_t)h & (m->slot_cap - 1);;
       i = (i + 1) & (m->slot_cap - 1)) {
    uint64_t s = m->slots[i];
    if (s == 0) return UINT32_MAX;
    if ((s & 0xFFFFFFFF00000000ull) != tag) continue;
    uint32_t id = (uint32_t)s - 1;
    if (same_key(m, id, key, len)) return id; /* 32 hash bits agreed */
  }
}

uint32_t ana_intern_find(const ana_intern_t *m, const void *key, size_t len) {
  return find_hashed(m, key_hash(key, len), key, len);
}

static int grow_slots(ana_intern_t *m) {
  size_t cap = m->slot_cap ? m->slot_cap * 2 : 64;
  uint64_t *slots = calloc(cap, sizeof *slots);
  if (!slots) return ETK_E_NO_MEMORY;
  for (size_t id = 0; id < m->count; id++) {
    size_t i = (size_t)m->hashes[id] & (cap - 1);
    while (slots[i]) i = (i + 1) & (cap - 1);
    slots[i] = slot_of(m->hashes[id], (uint32_t)id);
  }
  free(m->slots);
  m->slots = slots;
  m->slot_cap = cap;
  return ETK_OK;
}

static int grow_ids(ana_intern_t *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  uint64_t *h = realloc(m->hashes, cap * sizeof *h);
  if (!h) return ETK_E_NO_MEMORY;
  m->hashes = h;
  ana_span_t *sp = realloc(m->spans, cap * sizeof *sp);
  if (!sp) return ETK_E_NO_MEMORY;
  m->spans = sp;
  m->cap = cap;
  return ETK_OK;
}

int ana_intern_put(ana_intern_t *m, const void *key, size_t len, uint32_t *id,
                   int *is_new) {
  uint64_t h = key_hash(key, len);
  uint32_t found = find_hashed(m, h, key, len);
  if (found != UINT32_MAX) {
    *id = found;
    if (is_new) *is_new = 0;
    return ETK_OK;
  }
  if (m->count >= UINT32_MAX - 1) return ETK_E_LIMIT;
  if ((m->count + 1) * 2 > m->slot_cap && grow_slots(m) != ETK_OK)
    return ETK_E_NO_MEMORY;
  if (m->count == m->cap && grow_ids(m) != ETK_OK) return ETK_E_NO_MEMORY;
  size_t n = m->count;
  m->hashes[n] = h;
  m->spans[n].offset = m->keys.len;
  m->spans[n].length = len;
  etk_strbuf_append(&m->keys, key, len);
  etk_strbuf_appendc(&m->keys, '\0');
  if (m->keys.failed) return ETK_E_NO_MEMORY;
  size_t i = (size_t)h & (m->slot_cap - 1);
  while (m->slots[i]) i = (i + 1) & (m->slot_cap - 1);
  m->slots[i] = slot_of(h, (uint32_t)n);
  m->count++;
  *id = (uint32_t)n;
  if (is_new) *is_new = 1;
  return ETK_OK;
}

void ana_json_uint(etk_json_t *j, const char *key, uint64_t v) {
  etk_json_key(j, key);
  etk_json_uint(j, v);
}

void ana_json_int(etk_json_t *j, const char *key, int64_t v) {
  etk_json_key(j, key);
  etk_json_int(j, v);
}

void ana_json_str(etk_json_t *j, const char *key, const char *v) {
  etk_json_key(j, key);
  etk_json_cstring(j, v);
}

void ana_json_bool(etk_json_t *j, const char *key, int v) {
  etk_json_key(j, key);
  etk_json_bool(j, v);
}

int ana_is_name(const char *s, size_t n, const char *lit) {
  size_t l = strlen(lit);
  return s && n == l && memcmp(s, lit, l) == 0;
}

/* ------------------------------------------------------- drop marker */

/* Reads decimal digits at s[*i..len) (at least one), saturating. */
static int read_count(const char *s, size_t len, size_t *i, uint64_t *out) {
  size_t start = *i;
  uint64_t v = 0;
  while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
    unsigned d = (unsigned)(s[*i] - '0');
    v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
    (*i)++;
  }
  *out = v;
  return *i > start;
}

int etk_dropped_marker_parse(const char *name, size_t len,
                             etk_dropped_marker_t *out) {
  static const char prefix[] = "etkit:dropped_events=";
  const size_t plen = sizeof prefix - 1;
  etk_dropped_marker_t m;
  memset(&m, 0, sizeof m);
  if (!name || len < plen || memcmp(name, prefix, plen) != 0) return 0;
  size_t i = plen;
  if (!read_count(name, len, &i, &m.events)) return 0;
  while (i < len) {
    if (name[i] != ',') return 0;
    i++;
    size_t key = i;
    while (i < len && name[i] != '=' && name[i] != ',') i++;
    if (i >= len || name[i] != '=') return 0;
    size_t key_len = i - key;
    i++;
    uint64_t v;
    if (!read_count(name, len, &i, &v)) return 0;
    if (key_len == 6 && memcmp(name + key, "blocks", 6) == 0)
      m.blocks = v;
    else if (key_len == 10 && memcmp(name + key, "allocators", 10) == 0)
      m.allocators = v;
  }
  m.present = 1;
  if (out) *out = m;
  return 1;
}

int etk_dropped_marker_find(const etk_etdump_t *dump,
                            etk_dropped_marker_t *out) {
  etk_dropped_marker_t found;
  memset(&found, 0, sizeof found);
  size_t runs = dump ? etk_etdump_run_count(dump) : 0;
  for (size_t r = runs; r-- > 0;) {
    etk_etdump_run_t run;
    if (etk_etdump_run_get(dump, r, &run) != ETK_OK || run.has_events) continue;
    if (etk_dropped_marker_parse(run.name.data, run.name.len, &found)) {
      found.run = (uint32_t)r;
      break;
    }
  }
  if (out) *out = found;
  return found.present;
}
