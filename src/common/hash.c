/*
 * hash.c - the host libraries' hash table (common/hash.h): byte strings
 * to dense ids.
 *
 * Layout.  Per id, one entry: the key's full 64-bit hash (so the slot
 * table can be rebuilt without rehashing the bytes) and the offset and
 * length of the key's copy in `bytes`.  The slot table
 * is separate and holds, per slot, id + 1 in the low 32 bits (0 = empty)
 * and the hash's high 32 bits above: a probe compares the tag first and
 * reads the key bytes only when 32 hash bits agree.
 *
 * Invariants.  slot_cap is 0 or a power of two and at least 2 * count, so
 * a probe always meets an empty slot; count <= cap; every key copy is
 * followed by a NUL inside `bytes`.  Ids never change and are handed out
 * in first-insertion order, so nothing a caller prints depends on the hash
 * function.
 *
 * Failure.  etk_hash_put() makes every allocation it needs (slots, the
 * per-id arrays, the key bytes) before it changes anything visible, so a
 * failure leaves the table exactly as it was.
 */
#include <string.h>

#include "common/hash.h"
#include "common/vec.h"
#include "etkit/status.h"

#define TAG_MASK 0xFFFFFFFF00000000ull

void etk_hash_init(etk_hash_t *h) {
  memset(h, 0, sizeof *h);
}

void etk_hash_free(etk_hash_t *h) {
  free(h->slots);
  free(h->entries);
  free(h->bytes);
  memset(h, 0, sizeof *h);
}

static inline uint64_t rotate_left(uint64_t x, unsigned r) {
  return (x << r) | (x >> (64 - r));
}

/* Eight bytes at a time (the tail zero-padded into one more word): multiply,
 * rotate, multiply; then a finaliser that spreads every input bit over the low
 * bits a power-of-two table indexes by. */
uint64_t etk_hash_bytes(const void *key, size_t len) {
  const unsigned char *p = key;
  uint64_t h = 0x243F6A8885A308D3ull + (uint64_t)len * 0x9E3779B97F4A7C15ull;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = rotate_left(h ^ (w * 0x87C37B91114253D5ull), 31) *
        0x4CF5AD432745937Full;
  }
  if (i < len) {
    uint64_t w = 0;
    memcpy(&w, p + i, len - i);
    h = rotate_left(h ^ (w * 0x87C37B91114253D5ull), 31) *
        0x4CF5AD432745937Full;
  }
  h = (h ^ (h >> 33)) * 0xFF51AFD7ED558CCDull;
  h = (h ^ (h >> 33)) * 0xC4CEB9FE1A85EC53ull;
  return h ^ (h >> 33);
}

static inline uint64_t slot_value(uint64_t hash, uint32_t id) {
  return (hash & TAG_MASK) | ((uint64_t)id + 1);
}

static uint32_t find_hashed(const etk_hash_t *h, uint64_t hash, const void *key,
                            size_t len) {
  if (h->slot_cap == 0) return ETK_HASH_NONE;
  const size_t mask = h->slot_cap - 1;
  const uint64_t tag = hash & TAG_MASK;
  for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
    uint64_t s = h->slots[i];
    if (s == 0) return ETK_HASH_NONE;
    if ((s & TAG_MASK) != tag) continue;
    uint32_t id = (uint32_t)s - 1;
    const etk_hash_entry_t *k = &h->entries[id];
    if (k->length == len &&
        (len == 0 || memcmp(h->bytes + k->offset, key, len) == 0))
      return id;
  }
}

uint32_t etk_hash_find(const etk_hash_t *h, const void *key, size_t len) {
  return find_hashed(h, etk_hash_bytes(key, len), key, len);
}

/* Places id in a slot of `slots` (cap a power of two, not full). */
static void place(uint64_t *slots, size_t cap, uint64_t hash, uint32_t id) {
  size_t i = (size_t)hash & (cap - 1);
  while (slots[i]) i = (i + 1) & (cap - 1);
  slots[i] = slot_value(hash, id);
}

/* Rebuilds the slot table with room for `count` ids at half load. */
static int grow_slots(etk_hash_t *h, size_t count) {
  size_t cap = h->slot_cap ? h->slot_cap : 64;
  while (cap / 2 < count) {
    if (cap > SIZE_MAX / 2 / sizeof *h->slots) return ETK_E_NO_MEMORY;
    cap *= 2;
  }
  if (cap == h->slot_cap) return ETK_OK;
  uint64_t *slots = calloc(cap, sizeof *slots);
  if (!slots) return ETK_E_NO_MEMORY;
  for (size_t id = 0; id < h->count; id++)
    place(slots, cap, h->entries[id].hash, (uint32_t)id);
  free(h->slots);
  h->slots = slots;
  h->slot_cap = cap;
  return ETK_OK;
}

/* Room for one more id and len + 1 more key bytes. */
static int reserve(etk_hash_t *h, size_t len) {
  if (h->count >= ETK_HASH_MAX_IDS) return ETK_E_LIMIT;
  if (len > SIZE_MAX - 1 - h->bytes_len) return ETK_E_NO_MEMORY;
  if (grow_slots(h, h->count + 1) != ETK_OK) return ETK_E_NO_MEMORY;
  if (!ETK_VEC_RESERVE(h->entries, h->cap, h->count + 1))
    return ETK_E_NO_MEMORY;
  if (!ETK_VEC_RESERVE(h->bytes, h->bytes_cap, h->bytes_len + len + 1))
    return ETK_E_NO_MEMORY;
  return ETK_OK;
}

int etk_hash_put(etk_hash_t *h, const void *key, size_t len, uint32_t *id,
                 bool *is_new) {
  uint64_t hash = etk_hash_bytes(key, len);
  uint32_t found = find_hashed(h, hash, key, len);
  if (found != ETK_HASH_NONE) {
    *id = found;
    if (is_new) *is_new = false;
    return ETK_OK;
  }
  int rc = reserve(h, len);
  if (rc != ETK_OK) return rc;
  uint32_t n = (uint32_t)h->count;
  h->entries[n].hash = hash;
  h->entries[n].offset = h->bytes_len;
  h->entries[n].length = len;
  if (len) memcpy(h->bytes + h->bytes_len, key, len);
  h->bytes[h->bytes_len + len] = '\0';
  h->bytes_len += len + 1;
  place(h->slots, h->slot_cap, hash, n);
  h->count++;
  *id = n;
  if (is_new) *is_new = true;
  return ETK_OK;
}
