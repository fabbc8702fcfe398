/*
 * etdump_reader.c - opens an ETDump: verify first, then decode into columns.
 *
 * PURPOSE
 *   Turn untrusted .etdp bytes into the compact, immutable etk_etdump_t the
 *   Inspector groups, without ever reading a field the verifier has not
 *   vouched for, and fast enough for ten million events.
 *
 * STEPS
 *   0. open_path maps the file read-only, pages read in at once (every byte
 *      is verified anyway); it reads the file into memory when mapping is
 *      impossible or options->copy asks for it.
 *   1. Header checks with precise messages (length, identifier at byte 8,
 *      "ED00" at byte 4 meaning a missing size prefix, a size prefix larger
 *      than the file).
 *   2. etk_fb_verify() of the whole buffer against etk_etdump_schema: every
 *      offset, vtable, vector length, string terminator, enum; nesting and
 *      object budgets bound the work for shared or looping objects.
 *   3. One pass over runs and events, in batches of DECODE_BATCH events:
 *      a first look at each event of a batch finds its member table (as
 *      upstream's find_populated_event: profile, else debug, else
 *      allocation) and hashes its name, prefetching the name's intern slot;
 *      then the events are decoded in order: ids to the columns, strings to
 *      the intern table (each DISTINCT string is checked for UTF-8 once, and
 *      pure ASCII, seen while hashing, needs no check).  Times, metadata and
 *      values stay in the buffer and are read on demand.
 *
 * DATA LAYOUT
 *   Columns (see etdump_internal.h) live in one zeroed allocation of
 *   21 bytes per event: flags u8, instruction_id i32, delegate id int + 1
 *   u32 (0 = absent), name_id u32, dstr_id u32, chain_id u32.  A value 0
 *   is never written, so the pages of a column that is 0 throughout
 *   (delegate ids and chain ids, in most dumps) are never touched and cost
 *   no memory: about 9 bytes per event are resident.  An event's member
 *   table is not stored: its run's events vector leads to it again.
 *   Strings are positions in the buffer (4 bytes per distinct string; the
 *   length is the FlatBuffers string's own prefix).
 *   While decoding they are found through an open-addressing table of
 *   32-bit slots (id plus spare hash bits, load factor <= 3/4) and a small
 *   cache keyed by a string's offset (shared string objects cost no hash);
 *   both are freed once the dump is open (the table, about 5.3 bytes per
 *   distinct string, in pages mapped for it alone, so none stay behind).  Chain
 * values are interned the same way, keyed by sign and magnitude, so that a
 * ProfileEvent chain -1 and a DebugEvent chain 2^64-1 stay different while a
 * profile 0 and a debug 0 are equal, exactly as Python compares the two
 * integers.
 *
 * INVARIANTS
 *   - Nothing is read from the buffer before verification succeeded.
 *   - String ids: 0 absent, 1 the empty string, others in first-seen order.
 *   - Every allocation failure returns ETK_E_NO_MEMORY with nothing leaked.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_POPULATE (Linux) next to POSIX */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define ETDUMP_HAVE_MMAP 1
#else
#define ETDUMP_HAVE_MMAP 0
#endif

#include "common/vec.h"
#include "etdump_internal.h"
#include "etkit/schema.h"
#include "etkit/tensor_stats.h"

/* ------------------------------------------------------- buffer helpers */

static inline uint16_t ld16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t ld32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4); /* etkit requires a little-endian host */
  return v;
}
static inline uint64_t ld64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* A verified table with its vtable located once. */
typedef struct tbl {
  uint32_t pos, vt, vsize;
} tbl_t;

static inline tbl_t tbl_at(const uint8_t *buf, uint32_t pos) {
  tbl_t t;
  t.pos = pos;
  t.vt = pos - ld32(buf + pos);
  t.vsize = ld16(buf + t.vt);
  return t;
}

/* Offset of field `id` from the buffer start, 0 when absent. */
static inline uint32_t tbl_field(const uint8_t *buf, tbl_t t, unsigned id) {
  if (2u * id + 6u > t.vsize) return 0;
  uint32_t off = ld16(buf + t.vt + 4u + 2u * id);
  return off ? t.pos + off : 0;
}

static inline uint32_t follow(const uint8_t *buf, uint32_t at) {
  return at + ld32(buf + at);
}

static inline int32_t get_i32(const uint8_t *buf, tbl_t t, unsigned id,
                              int32_t def) {
  uint32_t p = tbl_field(buf, t, id);
  return p ? (int32_t)ld32(buf + p) : def;
}

static inline uint64_t get_u64(const uint8_t *buf, tbl_t t, unsigned id) {
  uint32_t p = tbl_field(buf, t, id);
  return p ? ld64(buf + p) : 0;
}

/* ------------------------------------------------------- string interning */

/* Interning state, alive only while decoding: an open-addressing table of
 * 32-bit slots, each a string id with, in the bits ids never need, a few
 * bits of the string's hash (so most mismatches are rejected without
 * touching the strings array or the bytes; the table stays small enough to
 * keep cache and TLB misses down), and a small direct-mapped cache from a
 * string's buffer offset to its id: writers that share one string object
 * between events (etkit's recorder, flatc's CreateSharedString) then cost
 * one compare per event, no hash. */
#define RECENT_SLOTS 256u

typedef struct interner {
  uint32_t *slots;  /* tag << id_bits | id; 0 = empty (ids are >= 2) */
  size_t size;      /* slot count (any size: see slot_of) */
  unsigned id_bits; /* ids are < 2^id_bits */
  uint32_t id_mask;
  uint32_t recent_pos[RECENT_SLOTS]; /* string offset (0 = unused) */
  uint32_t recent_id[RECENT_SLOTS];
} interner_t;

/* The home slot of a hash among `size` slots: the low 32 bits of the hash
 * scaled to [0, size), so the table need not be a power of two and can
 * stay at load <= 3/4 without doubling past it. */
static inline size_t slot_of(uint64_t h, size_t size) {
  return (size_t)(((uint64_t)(uint32_t)h * size) >> 32);
}

static inline size_t recent_slot(uint32_t s) {
  return (size_t)((s >> 2) ^ (s >> 10)) & (RECENT_SLOTS - 1);
}

/* The slot tag of a hash: its top (32 - id_bits) bits. */
static inline uint32_t hash_tag(const interner_t *in, uint64_t h) {
  return in->id_bits >= 32 ? 0 : (uint32_t)(h >> 32) >> in->id_bits;
}

/* 64-bit hash of n bytes.  *high receives the top bits of every byte OR'ed
 * together: 0 means ASCII, valid UTF-8 without a closer look.  Reads only
 * p[0..n): tails of 1-7 bytes are loaded as (overlapping) pieces that
 * together cover every byte. */
static inline uint64_t hash_string(const uint8_t *p, size_t n, uint64_t *high) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n, acc = 0, w;
  while (n >= 8) {
    memcpy(&w, p, 8);
    acc |= w;
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  if (n >= 4)
    w = (uint64_t)ld32(p) | (uint64_t)ld32(p + n - 4) << 32;
  else if (n > 0)
    w = (uint64_t)p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16;
  else
    w = 0;
  acc |= w;
  h = (h ^ w) * 0x94D049BB133111EBull;
  h ^= h >> 29;
  *high = acc & 0x8080808080808080ull;
  return h;
}

/* The slot table's memory: zeroed pages mapped for it alone where mmap
 * exists, so that freeing it after opening hands every page back (a large
 * free() would also teach malloc to keep later blocks of that size on its
 * heap, where freed pages stay resident). */
static uint32_t *slots_alloc(size_t slots) {
#if ETDUMP_HAVE_MMAP
  if (slots > SIZE_MAX / sizeof(uint32_t)) return NULL;
  void *p = mmap(NULL, slots * sizeof(uint32_t), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
#else
  return calloc(slots, sizeof(uint32_t));
#endif
}

static void slots_free(uint32_t *s, size_t slots) {
  if (!s) return;
#if ETDUMP_HAVE_MMAP
  munmap(s, slots * sizeof *s);
#else
  (void)slots;
  free(s);
#endif
}

static int interner_resize(etk_etdump_t *d, interner_t *in, size_t slots) {
  uint32_t *s = slots_alloc(slots);
  if (!s) return ETK_E_NO_MEMORY;
  for (size_t id = 2; id < d->string_count; id++) {
    uint32_t pos = d->strings[id];
    uint64_t high,
        h = hash_string(d->buf + pos, etdump_string_len(d->buf, pos), &high);
    size_t i = slot_of(h, slots);
    while (s[i])
      if (++i == slots) i = 0;
    s[i] =
        (in->id_bits >= 32 ? 0 : hash_tag(in, h) << in->id_bits) | (uint32_t)id;
  }
  slots_free(in->slots, in->size);
  in->slots = s;
  in->size = slots;
  return ETK_OK;
}

/* `max_strings` bounds the number of distinct strings (two per event, one
 * per run and allocator); the slot table is sized for one per event, run
 * and allocator at load <= 3/4 (names are usually the only strings), grows
 * if needed, and untouched pages of a large calloc cost no memory.  It is
 * freed when decoding ends. */
static int interner_init(etk_etdump_t *d, interner_t *in, uint64_t max_strings,
                         uint64_t expected) {
  memset(in, 0, sizeof *in);
  d->string_cap = 64;
  d->strings = malloc(d->string_cap * sizeof *d->strings);
  if (!d->strings) return ETK_E_NO_MEMORY;
  memset(d->strings, 0, 2 * sizeof *d->strings); /* absent, "" */
  d->string_count = 2;
  in->id_bits = 1;
  while (in->id_bits < 32 && ((uint64_t)1 << in->id_bits) < max_strings + 2)
    in->id_bits++;
  in->id_mask =
      in->id_bits >= 32 ? UINT32_MAX : ((uint32_t)1 << in->id_bits) - 1;
  uint64_t slots = expected + expected / 3 + 1024;
  return interner_resize(d, in,
                         (size_t)(slots < (1u << 30) ? slots : 1u << 30));
}

static void interner_free(interner_t *in) {
  slots_free(in->slots, in->size);
  in->slots = NULL;
}

/* Interns the string at buffer offset `s` (a verified string: u32 length
 * `len` > 0, bytes, NUL) whose hash_string() is h / high; *id receives its
 * id.  Validates UTF-8 of new strings. */
static int intern_hashed(etk_etdump_t *d, interner_t *in, uint32_t s,
                         uint32_t len, uint64_t h, uint64_t high, uint32_t *id,
                         etk_error_t *err, const char *what) {
  const uint8_t *chars = d->buf + s + 4;
  const uint32_t tag = hash_tag(in, h);
  size_t i = slot_of(h, in->size);
  for (;;) {
    uint32_t v = in->slots[i];
    if (!v) break;
    if (in->id_bits >= 32 || (v >> in->id_bits) == tag) {
      uint32_t cand = v & in->id_mask;
      const uint32_t pos = d->strings[cand];
      if (etdump_string_len(d->buf, pos) == len &&
          (pos == s + 4 || memcmp(d->buf + pos, chars, len) == 0)) {
        *id = cand;
        goto remember;
      }
    }
    if (++i == in->size) i = 0;
  }
  if (high && !etk_fb_utf8_valid((const char *)chars, len))
    return etk_error_set(err, ETK_E_BAD_UTF8, s,
                         "%s is not valid UTF-8 (string of %u bytes)", what,
                         (unsigned)len);
  /* ids fit id_bits by construction (max_strings is an upper bound) */
  if (d->string_count >= UINT32_MAX - 1 || d->string_count > in->id_mask)
    return etk_error_set(err, ETK_E_LIMIT, s, "too many distinct strings");
  if (d->string_count >= d->string_cap &&
      !ETK_VEC_RESERVE(d->strings, d->string_cap, d->string_count + 1))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory interning strings");
  uint32_t nid = (uint32_t)d->string_count++;
  d->strings[nid] = s + 4;
  in->slots[i] = (in->id_bits >= 32 ? 0 : tag << in->id_bits) | nid;
  if (d->string_count * 4 > in->size * 3 &&
      interner_resize(d, in, in->size * 2) != ETK_OK)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory interning strings");
  *id = nid;
remember:
  in->recent_pos[recent_slot(s)] = s;
  in->recent_id[recent_slot(s)] = *id;
  return ETK_OK;
}

/* Interns the string whose uoffset is at `at` (a verified string field). */
static int string_intern(etk_etdump_t *d, interner_t *in, uint32_t at,
                         uint32_t *id, etk_error_t *err, const char *what) {
  uint32_t s = follow(d->buf, at);
  uint32_t len = ld32(d->buf + s);
  if (len == 0) {
    *id = ETK_ETDUMP_STR_EMPTY;
    return ETK_OK;
  }
  size_t r = recent_slot(s);
  if (in->recent_pos[r] == s) {
    *id = in->recent_id[r];
    return ETK_OK;
  }
  uint64_t high, h = hash_string(d->buf + s + 4, len, &high);
  return intern_hashed(d, in, s, len, h, high, id, err, what);
}

/* ------------------------------------------------------- chain interning */

typedef struct chain_map {
  uint32_t *slots; /* id + 1, 0 = empty */
  size_t mask;
  int have_last; /* last value interned, for runs of equal chains */
  uint64_t last_magnitude;
  int last_negative;
  uint32_t last_id;
} chain_map_t;

static uint64_t chain_hash(uint64_t m, int neg) {
  uint64_t h = (m ^ (neg ? 0xD6E8FEB86659FD93ull : 0)) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 32);
}

static int chain_intern_slow(etk_etdump_t *d, chain_map_t *m,
                             uint64_t magnitude, int negative, uint32_t *id) {
  size_t i = (size_t)chain_hash(magnitude, negative) & m->mask;
  for (;;) {
    uint32_t c = m->slots[i];
    if (!c) break;
    const etdump_chain_t *e = &d->chains[c - 1];
    if (e->magnitude == magnitude && e->negative == (uint8_t)negative) {
      *id = c - 1;
      return ETK_OK;
    }
    i = (i + 1) & m->mask;
  }
  if (!ETK_VEC_RESERVE(d->chains, d->chain_cap, d->chain_count + 1))
    return ETK_E_NO_MEMORY;
  uint32_t nid = (uint32_t)d->chain_count++;
  d->chains[nid].magnitude = magnitude;
  d->chains[nid].negative = (uint8_t)negative;
  m->slots[i] = nid + 1;
  if (d->chain_count * 2 > m->mask + 1) {
    size_t slots = (m->mask + 1) * 2;
    uint32_t *s = calloc(slots, sizeof *s);
    if (!s) return ETK_E_NO_MEMORY;
    for (size_t k = 0; k < d->chain_count; k++) {
      size_t j =
          (size_t)chain_hash(d->chains[k].magnitude, d->chains[k].negative) &
          (slots - 1);
      while (s[j]) j = (j + 1) & (slots - 1);
      s[j] = (uint32_t)k + 1;
    }
    free(m->slots);
    m->slots = s;
    m->mask = slots - 1;
  }
  *id = nid;
  return ETK_OK;
}

static inline int chain_intern(etk_etdump_t *d, chain_map_t *m,
                               uint64_t magnitude, int negative, uint32_t *id) {
  if (m->have_last && m->last_magnitude == magnitude &&
      m->last_negative == negative) {
    *id = m->last_id;
    return ETK_OK;
  }
  int rc = chain_intern_slow(d, m, magnitude, negative, id);
  if (rc == ETK_OK) {
    m->have_last = 1;
    m->last_magnitude = magnitude;
    m->last_negative = negative;
    m->last_id = *id;
  }
  return rc;
}

/* ------------------------------------------------------- verification */

static void describe_ident(const uint8_t *p, char *out, size_t size) {
  size_t o = 0;
  for (int i = 0; i < 4 && o + 5 < size; i++) {
    if (p[i] >= 0x20 && p[i] < 0x7F && p[i] != '"' && p[i] != '\\')
      out[o++] = (char)p[i];
    else
      o += (size_t)snprintf(out + o, size - o, "\\x%02x", p[i]);
  }
  out[o] = 0;
}

static int check_header(const uint8_t *buf, size_t len, etk_error_t *err) {
  if (len < 12)
    return etk_error_set(err, ETK_E_TRUNCATED, len,
                         "file is %zu bytes, too short for an ETDump (a "
                         "size-prefixed FlatBuffer needs at least 12: size "
                         "prefix, root offset, identifier)",
                         len);
  if (memcmp(buf + 8, ETK_ETDUMP_FILE_IDENTIFIER, 4) != 0) {
    if (memcmp(buf + 4, ETK_ETDUMP_FILE_IDENTIFIER, 4) == 0)
      return etk_error_set(
          err, ETK_E_BAD_IDENTIFIER, 8,
          "identifier \"ED00\" is at byte 4 instead of 8: the size prefix "
          "is missing (upstream's Inspector reads only size-prefixed "
          "ETDumps, as the runtime writes them)");
    int rc = etk_file_kind_expect(NULL, buf, len, ETK_FILE_ETDUMP, err);
    if (rc != ETK_OK) return rc; /* a program, an ETRecord...: say so */
    char got[24];
    describe_ident(buf + 8, got, sizeof got);
    return etk_error_set(err, ETK_E_BAD_IDENTIFIER, 8,
                         "wrong file identifier \"%s\" (expected \"ED00\"): "
                         "not an ETDump",
                         got);
  }
  uint32_t prefix = ld32(buf);
  if ((uint64_t)prefix > (uint64_t)len - 4)
    return etk_error_set(err, ETK_E_TRUNCATED, 0,
                         "size prefix says %u bytes follow but the file has "
                         "only %zu after it: the file is truncated",
                         (unsigned)prefix, len - 4);
  if (prefix < 8)
    return etk_error_set(err, ETK_E_TRUNCATED, 0,
                         "size prefix %u is too small to hold a root table",
                         (unsigned)prefix);
  return ETK_OK;
}

static int verify(etk_etdump_t *d, const etk_etdump_options_t *o,
                  etk_error_t *err) {
  etk_fb_verify_options_t vo;
  memset(&vo, 0, sizeof vo);
  vo.ident = ETK_ETDUMP_FILE_IDENTIFIER;
  vo.size_prefixed = 1;
  vo.max_depth = o && o->max_depth ? o->max_depth : 0;
  etk_fb_verify_error_t ve;
  memset(&ve, 0, sizeof ve);
  int rc =
      etk_fb_verify(d->buf, d->len, &etk_etdump_schema, &vo, &d->root, &ve);
  if (rc == ETK_OK) return ETK_OK;
  char where[96] = "";
  if (ve.table && ve.field)
    snprintf(where, sizeof where, " in %s.%s", ve.table, ve.field);
  else if (ve.table)
    snprintf(where, sizeof where, " in table %s", ve.table);
  const char *hint = "";
  if (ve.code == ETK_E_LIMIT)
    hint =
        " (the verifier's object budget is exhausted: objects shared or "
        "reached too many times)";
  else if (ve.code == ETK_E_TOO_DEEP)
    hint = " (tables nested beyond the verifier's depth limit)";
  return etk_error_set(err, ve.code ? ve.code : rc, ve.offset,
                       "invalid ETDump: %s%s%s",
                       etk_strerror(ve.code ? ve.code : rc), where, hint);
}

/* ------------------------------------------------------- decoding */

/* Events are decoded in batches: a first look at each event of the batch
 * finds its member table and name string, hashes the name and prefetches
 * its intern slot; the second pass does the rest in file order (so errors
 * are reported for the first bad event, as a single pass would).  With a
 * million distinct names the slot misses then overlap instead of stalling
 * one after the other. */
#define DECODE_BATCH 32u

typedef struct pending {
  uint32_t table;  /* the Event table */
  uint32_t member; /* its chosen member table, 0 when none is set */
  uint32_t name;   /* the member's name string (its offset), 0 if absent */
  uint32_t name_len;
  uint32_t name_id; /* already known (empty, or the offset cache), else 0 */
  uint8_t kind;     /* ETK_ETDUMP_EVENT_*, 0 when no member is set */
  uint8_t both;     /* more than one member set */
  uint64_t hash, high;
} pending_t;

static void decode_look(const etk_etdump_t *d, const interner_t *in,
                        uint32_t events_vec, uint32_t i, pending_t *p) {
  const uint8_t *buf = d->buf;
  tbl_t et = tbl_at(buf, follow(buf, events_vec + 4 + 4 * i));
  uint32_t pp = tbl_field(buf, et, ETK_ETDUMP_EVENT_PROFILE_EVENT);
  uint32_t dp = tbl_field(buf, et, ETK_ETDUMP_EVENT_DEBUG_EVENT);
  uint32_t lp = tbl_field(buf, et, ETK_ETDUMP_EVENT_ALLOCATION_EVENT);
  p->table = et.pos;
  p->both = (pp != 0) + (dp != 0) + (lp != 0) > 1;
  p->name = 0;
  p->name_id = ETK_ETDUMP_STR_ABSENT;
  unsigned name_field;
  if (pp) {
    p->kind = ETK_ETDUMP_EVENT_PROFILE;
    p->member = follow(buf, pp);
    name_field = ETK_ETDUMP_PROFILE_EVENT_NAME;
  } else if (dp) {
    p->kind = ETK_ETDUMP_EVENT_DEBUG;
    p->member = follow(buf, dp);
    name_field = ETK_ETDUMP_DEBUG_EVENT_NAME;
  } else {
    p->kind = lp ? ETK_ETDUMP_EVENT_ALLOCATION : 0;
    p->member = lp ? follow(buf, lp) : 0;
    return;
  }
  uint32_t f = tbl_field(buf, tbl_at(buf, p->member), name_field);
  if (!f) return;
  uint32_t s = follow(buf, f);
  p->name = s;
  p->name_len = ld32(buf + s);
  if (p->name_len == 0) {
    p->name_id = ETK_ETDUMP_STR_EMPTY;
    return;
  }
  size_t r = recent_slot(s);
  if (in->recent_pos[r] == s) {
    p->name_id = in->recent_id[r];
    return;
  }
  p->hash = hash_string(buf + s + 4, p->name_len, &p->high);
#if defined(__GNUC__)
  __builtin_prefetch(&in->slots[slot_of(p->hash, in->size)]);
#endif
}

/* The name of a looked-at event (pending_t.name != 0). */
static int decode_name(etk_etdump_t *d, interner_t *in, const pending_t *p,
                       uint32_t *id, etk_error_t *err) {
  if (p->name_id != ETK_ETDUMP_STR_ABSENT) {
    *id = p->name_id;
    return ETK_OK;
  }
  /* an earlier event of the batch may have cached it meanwhile: harmless,
   * the table finds it */
  return intern_hashed(d, in, p->name, p->name_len, p->hash, p->high, id, err,
                       "an event name");
}

/* The decoding state: the interning tables, alive only while opening. */
typedef struct decoder {
  etk_etdump_t *d;
  interner_t *in;
  chain_map_t chains;
  etk_error_t *err;
  uint32_t event;     /* next event (column index) */
  uint32_t allocator; /* next allocator */
} decoder_t;

/* First pass: counts events and allocators of all runs, within limits. */
static int decode_sizes(const etk_etdump_t *d, uint32_t runs_vec,
                        uint32_t run_count, uint64_t max_events,
                        uint64_t *events, uint64_t *allocators,
                        etk_error_t *err) {
  const uint8_t *buf = d->buf;
  *events = *allocators = 0;
  for (uint32_t r = 0; r < run_count; r++) {
    tbl_t run = tbl_at(buf, follow(buf, runs_vec + 4 + 4 * r));
    uint32_t ep = tbl_field(buf, run, ETK_ETDUMP_RUN_DATA_EVENTS);
    if (ep) *events += ld32(buf + follow(buf, ep));
    uint32_t ap = tbl_field(buf, run, ETK_ETDUMP_RUN_DATA_ALLOCATORS);
    if (ap) *allocators += ld32(buf + follow(buf, ap));
    if (*events > max_events)
      return etk_error_set(err, ETK_E_LIMIT, run.pos,
                           "more than %llu events (limit reached in run %u)",
                           (unsigned long long)max_events, (unsigned)r);
  }
  if (*allocators > UINT32_MAX)
    return etk_error_set(err, ETK_E_LIMIT, runs_vec, "too many allocators");
  return ETK_OK;
}

/* Allocates the runs, allocator names and event columns.  The columns are
 * zeroed pages that decoding writes only where a value is not 0, so the
 * columns that usually hold 0 everywhere (delegate string ids, chain ids)
 * cost no memory until a value needs them. */
static int decode_alloc(etk_etdump_t *d, uint32_t run_count, uint64_t events,
                        uint64_t allocators, etk_error_t *err) {
  d->run_count = run_count;
  d->runs = calloc(run_count ? run_count : 1, sizeof *d->runs);
  d->allocator_count = (size_t)allocators;
  d->allocator_name_id =
      calloc(allocators ? (size_t)allocators : 1, sizeof *d->allocator_name_id);
  size_t n = (size_t)events;
  size_t per = 1 + 4 * 5;
  d->columns_mem = calloc(n ? n : 1, per);
  if (!d->runs || !d->allocator_name_id || !d->columns_mem)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory for %zu events", n);
  /* 4-byte columns first so each stays aligned; flags last */
  uint8_t *m = d->columns_mem;
  d->instruction_id = (int32_t *)(void *)m;
  d->delegate_id_int_plus_one = (uint32_t *)(void *)(m + 4 * n);
  d->name_id = (uint32_t *)(void *)(m + 8 * n);
  d->dstr_id = (uint32_t *)(void *)(m + 12 * n);
  d->chain_id = (uint32_t *)(void *)(m + 16 * n);
  d->flags = m + 20 * n;
  d->event_count = n;
  return ETK_OK;
}

static int decoder_init(decoder_t *x, etk_etdump_t *d, uint64_t max_strings,
                        uint64_t expected, etk_error_t *err) {
  memset(x, 0, sizeof *x);
  x->d = d;
  x->err = err;
  x->in = malloc(sizeof *x->in);
  if (!x->in || interner_init(d, x->in, max_strings, expected) != ETK_OK)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory interning strings");
  x->chains.mask = 15;
  x->chains.slots = calloc(x->chains.mask + 1, sizeof *x->chains.slots);
  if (!x->chains.slots)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  return ETK_OK;
}

static void decoder_free(decoder_t *x) {
  free(x->chains.slots);
  if (x->in) interner_free(x->in);
  free(x->in);
}

/* A run's own fields and its allocators' names. */
static int decode_run_header(decoder_t *x, uint32_t r, tbl_t run) {
  etk_etdump_t *d = x->d;
  const uint8_t *buf = d->buf;
  etdump_run_t *out = &d->runs[r];
  out->offset = run.pos;
  out->bundled_input_index =
      get_i32(buf, run, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX, -1);
  uint32_t np = tbl_field(buf, run, ETK_ETDUMP_RUN_DATA_NAME);
  out->name_id = ETK_ETDUMP_STR_ABSENT;
  int rc = ETK_OK;
  if (np &&
      (rc = string_intern(d, x->in, np, &out->name_id, x->err, "a run name")))
    return rc;
  uint32_t ap = tbl_field(buf, run, ETK_ETDUMP_RUN_DATA_ALLOCATORS);
  out->first_allocator = x->allocator;
  if (!ap) return ETK_OK;
  uint32_t av = follow(buf, ap), ac = ld32(buf + av);
  for (uint32_t i = 0; i < ac && rc == ETK_OK; i++) {
    tbl_t al = tbl_at(buf, follow(buf, av + 4 + 4 * i));
    uint32_t anp = tbl_field(buf, al, ETK_ETDUMP_ALLOCATOR_NAME);
    uint32_t id = ETK_ETDUMP_STR_ABSENT;
    if (anp)
      rc = string_intern(d, x->in, anp, &id, x->err, "an allocator name");
    d->allocator_name_id[x->allocator++] = id;
  }
  out->allocator_count = ac;
  return rc;
}

/* The decoded values of one event, before they go to the columns. */
typedef struct event_values {
  uint8_t flags;
  uint32_t name, dstr;
  uint64_t chain_magnitude;
  int chain_negative;
  int32_t iid, dint;
} event_values_t;

/* A profile event's fields (its name is decoded by the caller). */
static int decode_profile(decoder_t *x, tbl_t t, event_values_t *v) {
  const uint8_t *buf = x->d->buf;
  int32_t c = get_i32(buf, t, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0);
  v->chain_negative = c < 0;
  v->chain_magnitude = c < 0 ? (uint64_t)(-(int64_t)c) : (uint64_t)c;
  v->iid = get_i32(buf, t, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, -1);
  v->dint = get_i32(buf, t, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, -1);
  uint32_t f =
      tbl_field(buf, t, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR);
  int rc;
  if (f && (rc = string_intern(x->d, x->in, f, &v->dstr, x->err,
                               "a delegate debug id")) != ETK_OK)
    return rc;
  if (tbl_field(buf, t, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA))
    v->flags |= ETK_ETDUMP_FLAG_METADATA;
  if (get_u64(buf, t, ETK_ETDUMP_PROFILE_EVENT_END_TIME) <
      get_u64(buf, t, ETK_ETDUMP_PROFILE_EVENT_START_TIME))
    v->flags |= ETK_ETDUMP_FLAG_END_BEFORE_START;
  return ETK_OK;
}

/* A debug event's fields (its name is decoded by the caller); event
 * `index` of run `r` names it in errors.  A value whose type says Tensor
 * (TensorList) without the tensor (tensor_list) table is a damaged file:
 * refused, not shown as if nothing was logged. */
static int decode_debug(decoder_t *x, tbl_t t, uint32_t r, uint32_t index,
                        event_values_t *v) {
  const uint8_t *buf = x->d->buf;
  v->chain_magnitude = get_u64(buf, t, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX);
  v->iid = get_i32(buf, t, ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID, -1);
  v->dint = get_i32(buf, t, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT, -1);
  uint32_t f = tbl_field(buf, t, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR);
  int rc;
  if (f && (rc = string_intern(x->d, x->in, f, &v->dstr, x->err,
                               "a delegate debug id")) != ETK_OK)
    return rc;
  uint32_t vpos = tbl_field(buf, t, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY);
  if (!vpos) return ETK_OK;
  v->flags |= ETK_ETDUMP_FLAG_HAS_ENTRY;
  tbl_t value = tbl_at(buf, follow(buf, vpos));
  uint32_t tp = tbl_field(buf, value, ETK_ETDUMP_VALUE_VAL);
  int type = tp ? (int8_t)buf[tp] : 0;
  if ((type == ETK_ETDUMP_VALUE_TYPE_TENSOR &&
       !tbl_field(buf, value, ETK_ETDUMP_VALUE_TENSOR)) ||
      (type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST &&
       !tbl_field(buf, value, ETK_ETDUMP_VALUE_TENSOR_LIST)))
    return etk_error_set(
        x->err, ETK_E_FORMAT, follow(buf, vpos),
        "debug event %u of run %u: its value says %s but has "
        "no %s table (the file is damaged)",
        (unsigned)index, (unsigned)r,
        type == ETK_ETDUMP_VALUE_TYPE_TENSOR ? "Tensor" : "TensorList",
        type == ETK_ETDUMP_VALUE_TYPE_TENSOR ? "tensor" : "tensor_list");
  uint32_t op = tbl_field(buf, value, ETK_ETDUMP_VALUE_OUTPUT);
  if (op) {
    tbl_t bo = tbl_at(buf, follow(buf, op));
    uint32_t bp = tbl_field(buf, bo, ETK_ETDUMP_BOOL_BOOL_VAL);
    if (bp && buf[bp] != 0) v->flags |= ETK_ETDUMP_FLAG_OUTPUT;
  }
  return ETK_OK;
}

/* Decodes looked-at event `p` (event `index` of run `r`) into column e. */
static int decode_event(decoder_t *x, const pending_t *p, uint32_t r,
                        uint32_t index, uint32_t e) {
  etk_etdump_t *d = x->d;
  if (!p->kind)
    return etk_error_set(x->err, ETK_E_FORMAT, p->table,
                         "event %u of run %u has none of profile_event, "
                         "debug_event, allocation_event set",
                         (unsigned)index, (unsigned)r);
  event_values_t v;
  memset(&v, 0, sizeof v);
  v.flags = (uint8_t)((p->both ? ETK_ETDUMP_FLAG_BOTH_MEMBERS : 0) | p->kind);
  v.iid = v.dint = -1;
  tbl_t t = tbl_at(d->buf, p->member);
  int rc = ETK_OK;
  if (p->kind != ETK_ETDUMP_EVENT_ALLOCATION && p->name)
    rc = decode_name(d, x->in, p, &v.name, x->err);
  if (rc == ETK_OK && p->kind == ETK_ETDUMP_EVENT_PROFILE)
    rc = decode_profile(x, t, &v);
  else if (rc == ETK_OK && p->kind == ETK_ETDUMP_EVENT_DEBUG)
    rc = decode_debug(x, t, r, index, &v);
  else if (rc == ETK_OK)
    v.iid = get_i32(d->buf, t, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID, 0);
  if (rc != ETK_OK) return rc;
  d->flags[e] = v.flags;
  d->instruction_id[e] = v.iid;
  if (v.dint != -1) /* zero pages stay untouched */
    d->delegate_id_int_plus_one[e] = (uint32_t)v.dint + 1u;
  d->name_id[e] = v.name;
  if (v.dstr) d->dstr_id[e] = v.dstr; /* zero pages stay untouched */
  uint32_t chain;
  if (chain_intern(d, &x->chains, v.chain_magnitude, v.chain_negative,
                   &chain) != ETK_OK)
    return etk_error_set(x->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory");
  if (chain) d->chain_id[e] = chain;
  return ETK_OK;
}

/* The events of run r (events vector at `ev`), in batches: a first look at
 * each event of the batch, then decoding in file order. */
static int decode_run_events(decoder_t *x, uint32_t r, uint32_t ev) {
  const uint32_t ec = ld32(x->d->buf + ev);
  pending_t batch[DECODE_BATCH];
  x->d->runs[r].event_count = ec;
  for (uint32_t b0 = 0; b0 < ec; b0 += DECODE_BATCH) {
    uint32_t bn = ec - b0 < DECODE_BATCH ? ec - b0 : DECODE_BATCH;
    for (uint32_t j = 0; j < bn; j++)
      decode_look(x->d, x->in, ev, b0 + j, &batch[j]);
    for (uint32_t j = 0; j < bn; j++) {
      int rc = decode_event(x, &batch[j], r, b0 + j, x->event++);
      if (rc != ETK_OK) return rc;
    }
  }
  return ETK_OK;
}

/* The root's fields: version, and the run_data vector (*runs_vec, count
 * within max_runs). */
static int decode_root(etk_etdump_t *d, uint64_t max_runs, uint32_t *runs_vec,
                       uint32_t *run_count, etk_error_t *err) {
  const uint8_t *buf = d->buf;
  tbl_t root = tbl_at(buf, d->root);
  uint32_t vp = tbl_field(buf, root, ETK_ETDUMP_VERSION);
  d->version = vp ? ld32(buf + vp) : 0;
  uint32_t rp = tbl_field(buf, root, ETK_ETDUMP_RUN_DATA);
  if (!rp)
    return etk_error_set(err, ETK_E_FORMAT, d->root,
                         "the ETDump table has no run_data (upstream's "
                         "Inspector rejects such a file too)");
  *runs_vec = follow(buf, rp);
  *run_count = ld32(buf + *runs_vec);
  if (*run_count > max_runs)
    return etk_error_set(err, ETK_E_LIMIT, *runs_vec,
                         "%u runs exceed the limit of %llu",
                         (unsigned)*run_count, (unsigned long long)max_runs);
  return ETK_OK;
}

/* 1 when string `name_id` is ETK_TENSOR_STATS_MARKER: the event-less run
 * a dump recorded at ETK_DEBUG_LEVEL_STATS carries. */
static int is_stats_marker(const etk_etdump_t *d, uint32_t name_id) {
  static const char m[] = ETK_TENSOR_STATS_MARKER;
  etk_etdump_str_t s = etk_etdump_string(d, name_id);
  return s.data != NULL && s.len == sizeof m - 1 &&
         memcmp(s.data, m, sizeof m - 1) == 0;
}

static int decode(etk_etdump_t *d, const etk_etdump_options_t *o,
                  etk_error_t *err) {
  const uint8_t *buf = d->buf;
  uint64_t max_events =
      o && o->max_events ? o->max_events : ((uint64_t)1 << 31);
  uint64_t max_runs = o && o->max_runs ? o->max_runs : ((uint64_t)1 << 24);
  uint32_t runs_vec = 0, run_count = 0;
  uint64_t events = 0, allocators = 0;
  int rc = decode_root(d, max_runs, &runs_vec, &run_count, err);
  if (rc == ETK_OK)
    rc = decode_sizes(d, runs_vec, run_count, max_events, &events, &allocators,
                      err);
  if (rc == ETK_OK) rc = decode_alloc(d, run_count, events, allocators, err);
  if (rc != ETK_OK) return rc;
  decoder_t x;
  rc = decoder_init(&x, d, 2 * events + allocators + run_count,
                    events + allocators + run_count, err);
  for (uint32_t r = 0; r < run_count && rc == ETK_OK; r++) {
    tbl_t run = tbl_at(buf, follow(buf, runs_vec + 4 + 4 * r));
    rc = decode_run_header(&x, r, run);
    uint32_t ep = tbl_field(buf, run, ETK_ETDUMP_RUN_DATA_EVENTS);
    d->runs[r].first_event = x.event;
    d->runs[r].has_events = ep != 0;
    d->runs[r].events_vec = ep ? follow(buf, ep) : 0;
    if (ep && rc == ETK_OK) rc = decode_run_events(&x, r, follow(buf, ep));
    if (rc == ETK_OK && !ep)
      d->tensor_stats |= is_stats_marker(d, d->runs[r].name_id);
  }
  decoder_free(&x);
  return rc;
}

/* ------------------------------------------------------- public API */

/* The file's bytes: a read-only mapping (`map`) or an allocation (`owned`). */
typedef struct file_bytes {
  const uint8_t *data;
  size_t len;
  uint8_t *owned;
  void *map;
} file_bytes_t;

static void file_bytes_release(file_bytes_t *fb) {
#if ETDUMP_HAVE_MMAP
  if (fb->map) munmap(fb->map, fb->len);
#endif
  free(fb->owned);
  memset(fb, 0, sizeof *fb);
}

void etk_etdump_close(etk_etdump_t *d) {
  if (!d) return;
  file_bytes_t fb = {d->buf, d->map_len, d->owned, d->map};
  file_bytes_release(&fb);
  free(d->runs);
  free(d->allocator_name_id);
  free(d->columns_mem);
  free(d->strings);
  free(d->chains);
  free(d);
}

/* Takes over fb's bytes whatever the outcome. */
static int open_buffer(file_bytes_t *fb, const etk_etdump_options_t *o,
                       etk_etdump_t **out, etk_error_t *err) {
  int rc = check_header(fb->data, fb->len, err);
  if (rc != ETK_OK) {
    file_bytes_release(fb);
    return rc;
  }
  etk_etdump_t *d = calloc(1, sizeof *d);
  if (!d) {
    file_bytes_release(fb);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  d->buf = fb->data;
  d->len = fb->len;
  d->owned = fb->owned;
  d->map = fb->map;
  d->map_len = fb->map ? fb->len : 0;
  memset(fb, 0, sizeof *fb);
  rc = verify(d, o, err);
  if (rc == ETK_OK) rc = decode(d, o, err);
  if (rc != ETK_OK) {
    etk_etdump_close(d);
    return rc;
  }
  *out = d;
  return ETK_OK;
}

/* The size limit: options->max_file_bytes when set, never more than
 * FlatBuffers' own limit (ETK_ETDUMP_MAX_FILE_BYTES, 2 GiB - 1: offsets
 * are signed 32-bit, and neither flatc nor upstream's runtime writes or
 * reads a larger buffer). */
static uint64_t size_limit(const etk_etdump_options_t *o) {
  uint64_t max =
      o && o->max_file_bytes ? o->max_file_bytes : ETK_ETDUMP_MAX_FILE_BYTES;
  return max < ETK_ETDUMP_MAX_FILE_BYTES ? max : ETK_ETDUMP_MAX_FILE_BYTES;
}

static int size_error(uint64_t size, uint64_t max, etk_error_t *err) {
  if (max == ETK_ETDUMP_MAX_FILE_BYTES)
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "%llu bytes, more than FlatBuffers' limit of %llu "
                         "(2 GiB - 1)",
                         (unsigned long long)size, (unsigned long long)max);
  return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                       "%llu bytes, more than the limit of %llu",
                       (unsigned long long)size, (unsigned long long)max);
}

int etk_etdump_open_memory(const void *data, size_t len,
                           const etk_etdump_options_t *o, etk_etdump_t **out,
                           etk_error_t *err) {
  if (!out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_etdump_open_memory: NULL out");
  *out = NULL;
  if (!data && len)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_etdump_open_memory: NULL data");
  uint64_t max = size_limit(o);
  if ((uint64_t)len > max) return size_error((uint64_t)len, max, err);
  if (!data) data = "";
  file_bytes_t fb = {data, len, NULL, NULL};
  if ((o && o->copy) || ((uintptr_t)data & 7u)) {
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory copying %zu bytes", len);
    memcpy(copy, data, len);
    fb.data = fb.owned = copy;
  }
  return open_buffer(&fb, o, out, err);
}

/* Maps a regular file of `len` > 0 bytes read-only, pages read in at once
 * (every byte is verified anyway): no copy, no page zeroing, and the pages
 * are the page cache's, shared with other readers.  0 when mapping is not
 * possible (then the caller reads the file). */
static int map_file(int fd, size_t len, file_bytes_t *fb) {
#if ETDUMP_HAVE_MMAP
  int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
  flags |= MAP_POPULATE;
#endif
  void *p = mmap(NULL, len, PROT_READ, flags, fd, 0);
  if (p == MAP_FAILED) return 0;
#ifndef MAP_POPULATE
  posix_madvise(p, len, POSIX_MADV_WILLNEED);
#endif
  fb->data = p;
  fb->len = len;
  fb->map = p;
  return 1;
#else
  (void)fd;
  (void)len;
  (void)fb;
  return 0;
#endif
}

int etk_etdump_open_path(const char *path, const etk_etdump_options_t *o,
                         etk_etdump_t **out, etk_error_t *err) {
  if (!path || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_etdump_open_path: NULL argument");
  *out = NULL;
  uint64_t max = size_limit(o);
  FILE *f = fopen(path, "rb");
  if (!f) {
    etk_error_where(err, path);
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                         "cannot open input file: %s", strerror(errno));
  }
  struct stat st;
  file_bytes_t fb = {NULL, 0, NULL, NULL};
  int rc = ETK_OK;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
    if ((uint64_t)st.st_size > max) {
      rc = size_error((uint64_t)st.st_size, max, err);
    } else if (st.st_size > 0 && !(o && o->copy) &&
               map_file(fileno(f), (size_t)st.st_size, &fb)) {
      /* mapped */
    } else {
      size_t len = (size_t)st.st_size;
      fb.owned = malloc(len ? len : 1);
      fb.data = fb.owned;
      fb.len = len;
      if (!fb.owned)
        rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory reading %zu bytes", len);
      else if (len && fread(fb.owned, 1, len, f) != len)
        rc = etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                           "read error in the input file: %s",
                           ferror(f) ? strerror(errno) : "file shrank");
    }
    fclose(f);
  } else {
    fclose(f);
    rc = etk_read_file(path, max, &fb.owned, &fb.len, err);
    fb.data = fb.owned;
  }
  if (rc != ETK_OK) {
    file_bytes_release(&fb);
    etk_error_where(err, path);
    return rc;
  }
  rc = open_buffer(&fb, o, out, err);
  etk_error_where(err, path);
  return rc;
}

const uint8_t *etk_etdump_bytes(const etk_etdump_t *d, size_t *len) {
  if (len) *len = d ? d->len : 0;
  return d ? d->buf : NULL;
}

uint32_t etk_etdump_version(const etk_etdump_t *d) {
  return d ? d->version : 0;
}

size_t etk_etdump_string_count(const etk_etdump_t *d) {
  return d ? d->string_count : 0;
}

etk_etdump_str_t etk_etdump_string(const etk_etdump_t *d, uint32_t id) {
  etk_etdump_str_t s = {NULL, 0};
  if (!d || id == ETK_ETDUMP_STR_ABSENT || id >= d->string_count) return s;
  if (id == ETK_ETDUMP_STR_EMPTY) {
    s.data = "";
    return s;
  }
  s.data = (const char *)d->buf + d->strings[id];
  s.len = etdump_string_len(d->buf, d->strings[id]);
  return s;
}

size_t etk_etdump_run_count(const etk_etdump_t *d) {
  return d ? d->run_count : 0;
}

int etk_etdump_run_get(const etk_etdump_t *d, size_t index,
                       etk_etdump_run_t *out) {
  if (!d || !out || index >= d->run_count) return ETK_E_INVALID_ARGUMENT;
  const etdump_run_t *r = &d->runs[index];
  out->name = etk_etdump_string(d, r->name_id);
  out->name_id = r->name_id;
  out->bundled_input_index = r->bundled_input_index;
  out->has_events = r->has_events;
  out->first_event = r->first_event;
  out->event_count = r->event_count;
  out->first_allocator = r->first_allocator;
  out->allocator_count = r->allocator_count;
  out->offset = r->offset;
  return ETK_OK;
}

size_t etk_etdump_allocator_count(const etk_etdump_t *d) {
  return d ? d->allocator_count : 0;
}

etk_etdump_str_t etk_etdump_allocator_name(const etk_etdump_t *d,
                                           size_t index) {
  etk_etdump_str_t none = {NULL, 0};
  if (!d || index >= d->allocator_count) return none;
  return etk_etdump_string(d, d->allocator_name_id[index]);
}

uint32_t etk_etdump_allocator_name_id(const etk_etdump_t *d, size_t index) {
  if (!d || index >= d->allocator_count) return 0;
  return d->allocator_name_id[index];
}

size_t etk_etdump_event_count(const etk_etdump_t *d) {
  return d ? d->event_count : 0;
}

void etk_etdump_columns(const etk_etdump_t *d, etk_etdump_columns_t *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (!d) return;
  out->count = d->event_count;
  out->flags = d->flags;
  out->instruction_id = d->instruction_id;
  out->delegate_id_int_plus_one = d->delegate_id_int_plus_one;
  out->name_id = d->name_id;
  out->delegate_id_str_id = d->dstr_id;
  out->chain_id = d->chain_id;
}

size_t etk_etdump_chain_count(const etk_etdump_t *d) {
  return d ? d->chain_count : 0;
}

void etk_etdump_chain(const etk_etdump_t *d, uint32_t chain_id, int *negative,
                      uint64_t *magnitude) {
  int neg = 0;
  uint64_t mag = 0;
  if (d && chain_id < d->chain_count) {
    neg = d->chains[chain_id].negative;
    mag = d->chains[chain_id].magnitude;
  }
  if (negative) *negative = neg;
  if (magnitude) *magnitude = mag;
}

static uint32_t run_search(const etk_etdump_t *d, size_t index) {
  size_t lo = 0, hi = d->run_count;
  /* last run with first_event <= index and a non-empty range holding it */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (d->runs[mid].first_event <= index)
      lo = mid + 1;
    else
      hi = mid;
  }
  while (lo > 0) {
    const etdump_run_t *r = &d->runs[lo - 1];
    if (index >= r->first_event && index - r->first_event < r->event_count)
      return (uint32_t)(lo - 1);
    lo--;
  }
  return 0;
}

/* The run holding event `index`: the non-empty run whose range holds it
 * (there is exactly one).  Runs of one size, the usual repeated method,
 * put it where the event's share of all events says: that run is tried
 * before the search. */
static inline uint32_t run_of(const etk_etdump_t *d, size_t index) {
  if (d->run_count <= 1) return 0; /* what the search finds */
  size_t guess = (size_t)((uint64_t)index * d->run_count / d->event_count);
  const etdump_run_t *r = &d->runs[guess];
  if (index >= r->first_event && index - r->first_event < r->event_count)
    return (uint32_t)guess;
  return run_search(d, index);
}

/* Offset of event `index`'s member table, found again rather than stored
 * (4 bytes per event less): the run's events vector element, then the
 * member its kind names (the one the decoder chose). */
static inline uint32_t event_member_field(const etk_etdump_t *d, size_t index,
                                          unsigned field) {
  const uint8_t *buf = d->buf;
  const etdump_run_t *r = &d->runs[run_of(d, index)];
  uint32_t i = (uint32_t)(index - r->first_event);
  tbl_t et = tbl_at(buf, follow(buf, r->events_vec + 4 + 4 * i));
  return follow(buf, tbl_field(buf, et, field));
}

static uint32_t event_member(const etk_etdump_t *d, size_t index) {
  unsigned kind = d->flags[index] & ETK_ETDUMP_KIND_MASK;
  unsigned field =
      kind == ETK_ETDUMP_EVENT_PROFILE ? ETK_ETDUMP_EVENT_PROFILE_EVENT
      : kind == ETK_ETDUMP_EVENT_DEBUG ? ETK_ETDUMP_EVENT_DEBUG_EVENT
                                       : ETK_ETDUMP_EVENT_ALLOCATION_EVENT;
  return event_member_field(d, index, field);
}

uint32_t etdump_event_member(const etk_etdump_t *d, size_t index) {
  return event_member(d, index);
}

uint32_t etk_etdump_event_offset(const etk_etdump_t *d, size_t index) {
  return d && index < d->event_count ? event_member(d, index) : 0;
}

void etk_etdump_event_times(const etk_etdump_t *d, size_t index,
                            uint64_t *start_time, uint64_t *end_time) {
  uint64_t s = 0, e = 0;
  if (d && index < d->event_count &&
      (d->flags[index] & ETK_ETDUMP_KIND_MASK) == ETK_ETDUMP_EVENT_PROFILE) {
    tbl_t t = tbl_at(
        d->buf, event_member_field(d, index, ETK_ETDUMP_EVENT_PROFILE_EVENT));
    s = get_u64(d->buf, t, ETK_ETDUMP_PROFILE_EVENT_START_TIME);
    e = get_u64(d->buf, t, ETK_ETDUMP_PROFILE_EVENT_END_TIME);
  }
  if (start_time) *start_time = s;
  if (end_time) *end_time = e;
}

int etk_etdump_event_get(const etk_etdump_t *d, size_t index,
                         etk_etdump_event_t *out) {
  if (!d || !out || index >= d->event_count) return ETK_E_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  const uint8_t *buf = d->buf;
  unsigned flags = d->flags[index];
  out->kind = (int)(flags & ETK_ETDUMP_KIND_MASK);
  out->flags = flags;
  out->run = run_of(d, index);
  out->offset = event_member(d, index);
  out->instruction_id = -1;
  out->delegate_debug_id_int = -1;
  tbl_t t = tbl_at(buf, out->offset);
  if (out->kind == ETK_ETDUMP_EVENT_ALLOCATION) {
    out->allocator_id = d->instruction_id[index];
    out->allocation_size =
        get_u64(buf, t, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE);
    return ETK_OK;
  }
  out->name_id = d->name_id[index];
  out->name = etk_etdump_string(d, out->name_id);
  out->instruction_id = d->instruction_id[index];
  out->delegate_debug_id_int =
      etk_etdump_delegate_id_int(d->delegate_id_int_plus_one[index]);
  out->delegate_debug_id_str_id = d->dstr_id[index];
  out->delegate_debug_id_str =
      etk_etdump_string(d, out->delegate_debug_id_str_id);
  if (out->kind == ETK_ETDUMP_EVENT_PROFILE) {
    out->profile_chain_index =
        get_i32(buf, t, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0);
    out->start_time = get_u64(buf, t, ETK_ETDUMP_PROFILE_EVENT_START_TIME);
    out->end_time = get_u64(buf, t, ETK_ETDUMP_PROFILE_EVENT_END_TIME);
    uint32_t mp =
        tbl_field(buf, t, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA);
    if (mp) {
      uint32_t v = follow(buf, mp);
      out->metadata_len = ld32(buf + v);
      out->metadata = buf + v + 4;
    }
  } else {
    out->debug_chain_index =
        get_u64(buf, t, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX);
  }
  return ETK_OK;
}
