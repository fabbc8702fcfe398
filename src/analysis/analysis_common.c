/*
 * analysis_common.c - helpers the analyses share (see analysis_internal.h):
 * JSON object members, name comparison and the recorder's drop-marker
 * parser.  (Their interning map is common's hash table, wrapped in
 * analysis_internal.h: ids are dense and stable and per-id facts live in
 * arrays indexed by id, so grouping a million events by name costs one
 * hash and one probe each.)
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
