/*
 * common/hash.h - the host libraries' one hash table (src/common/hash.c):
 * a map from byte strings to dense ids 0, 1, 2, ... in first-insertion
 * order.  Private to etkit's libraries: not installed.
 *
 * Values live with the caller, in arrays indexed by id (a parallel
 * ETK_VEC, say), so one table serves every "key -> something" map: names
 * to rows, interned strings, and pointer identity (the key is the pointer's
 * own bytes: etk_hash_put(&h, &ptr, sizeof ptr, ...)).  Keys are copied,
 * each followed by a NUL, so a key without NUL bytes reads as a C string.
 *
 * Open addressing with linear probing on a power-of-two slot table kept at
 * most half full; each slot holds id + 1 and 32 bits of the key's hash, so
 * most mismatches are rejected without touching the key bytes.  Every size
 * is overflow-checked; a failed insertion leaves the table as it was.
 *
 * Zero-initialise (etk_hash_t h = {0}) or call etk_hash_init().
 */
#ifndef ETKIT_COMMON_HASH_H
#define ETKIT_COMMON_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The id etk_hash_find() returns for a key that is absent. */
#define ETK_HASH_NONE UINT32_MAX
/* Ids are below this; the next insertion fails with ETK_E_LIMIT. */
#define ETK_HASH_MAX_IDS ((size_t)UINT32_MAX - 1)

typedef struct etk_hash_entry {
  uint64_t hash;         /* etk_hash_bytes() of the key */
  size_t offset, length; /* the key's copy in `bytes` */
} etk_hash_entry_t;

typedef struct etk_hash {
  uint64_t *slots;           /* hash's high half << 32 | (id + 1); 0 = empty */
  size_t slot_cap;           /* 0 or a power of two */
  etk_hash_entry_t *entries; /* per id */
  size_t count, cap;         /* ids in use, room in entries */
  char *bytes;               /* the keys' copies, each followed by a NUL */
  size_t bytes_len, bytes_cap;
} etk_hash_t;

void etk_hash_init(etk_hash_t *h);
/* Frees everything; h is then empty and reusable. */
void etk_hash_free(etk_hash_t *h);

/* The 64-bit hash of len bytes the table uses (stable within a process;
 * nothing printed may depend on it). */
uint64_t etk_hash_bytes(const void *key, size_t len);

/* Finds or adds key[0..len) (len may be 0).  *id receives its id; *is_new
 * (may be NULL) whether it was added.  Returns ETK_OK, ETK_E_NO_MEMORY
 * (out of memory or a size overflow) or ETK_E_LIMIT (ETK_HASH_MAX_IDS
 * keys); on failure the table is unchanged. */
int etk_hash_put(etk_hash_t *h, const void *key, size_t len, uint32_t *id,
                 bool *is_new);

/* The id of key[0..len), or ETK_HASH_NONE when absent. */
uint32_t etk_hash_find(const etk_hash_t *h, const void *key, size_t len);

/* Number of keys (ids are 0 .. count - 1). */
static inline size_t etk_hash_count(const etk_hash_t *h) {
  return h->count;
}

/* The stored copy of id's key (NUL-terminated); *len (may be NULL) gets
 * its length.  id must be below etk_hash_count(). */
static inline const char *etk_hash_key(const etk_hash_t *h, uint32_t id,
                                       size_t *len) {
  if (len) *len = h->entries[id].length;
  return h->bytes + h->entries[id].offset;
}

#endif /* ETKIT_COMMON_HASH_H */
