/*
 * latency.c - the latency table (etkit/sketch.h): sketches keyed by
 * (block, name, instruction, delegate id) in caller memory.
 *
 * Layout: [etk_latency_entry_t x capacity][u32 index x slots], slots the
 * power of two >= 2 x capacity.  Entries fill in insertion order (so a
 * reader lists keys in the order they were first seen); the index is open
 * addressing with linear probing on a hash of the key, 0 = empty, else
 * entry number + 1.  Keys are never removed, so a probe ends at the key or
 * at an empty slot; the table refuses a new key when every entry is used.
 * Slot 0's sketch always holds the table's constants (set at init, kept
 * by every later empty or fill), so a new key costs no soft-float math.
 */
#include <string.h>

#include "etkit/sketch.h"

static uint32_t index_slots(uint32_t capacity) {
  uint32_t n = 2;
  while (n < 2u * capacity && n < 0x80000000u) n <<= 1;
  return n;
}

size_t etk_latency_table_size(uint32_t capacity) {
  if (capacity == 0 || capacity > ETK_LATENCY_MAX_KEYS) return 0;
  return (size_t)capacity * sizeof(etk_latency_entry_t) +
         4u * (size_t)index_slots(capacity);
}

etk_status_t etk_latency_table_init(etk_latency_table_t *t, void *mem,
                                    size_t len, uint32_t capacity,
                                    double relative_error) {
  etk_sketch_t probe;
  if (t == NULL || mem == NULL || capacity == 0 ||
      capacity > ETK_LATENCY_MAX_KEYS || ((uintptr_t)mem & 7u) != 0 ||
      etk_sketch_init(&probe, relative_error) != ETK_OK)
    return ETK_E_INVALID_ARGUMENT;
  if (etk_latency_table_size(capacity) > len) return ETK_E_FULL;
  memset(t, 0, sizeof *t);
  t->capacity = capacity;
  t->relative_error = probe.relative_error;
  t->slots = mem;
  /* slot 0's sketch is the model every new key's sketch copies its
   * constants from (computing them costs ~20 K cycles in soft float) */
  (void)etk_sketch_init_like(&t->slots[0].sketch, &probe);
  t->index = (uint32_t *)(void *)(t->slots + capacity);
  t->index_mask = index_slots(capacity) - 1u;
  memset(t->index, 0, 4u * (size_t)(t->index_mask + 1u));
  return ETK_OK;
}

void etk_latency_table_clear(etk_latency_table_t *t) {
  if (t == NULL || t->slots == NULL) return;
  memset(t->index, 0, 4u * (size_t)(t->index_mask + 1u));
  t->entries = 0;
  t->refused = 0;
}

static uint32_t hash(uint32_t block, uint32_t name, uint32_t instruction,
                     int64_t delegate_id) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  h = (h ^ block) * 0x100000001b3ull;
  h = (h ^ name) * 0x100000001b3ull;
  h = (h ^ instruction) * 0x100000001b3ull;
  h = (h ^ (uint64_t)delegate_id) * 0x100000001b3ull;
  return (uint32_t)(h ^ (h >> 32));
}

/* The index slot of the key: holding it, or the empty one ending its
 * probe (the index always has an empty slot: it is twice the capacity). */
static uint32_t *slot_of(const etk_latency_table_t *t, uint32_t block,
                         uint32_t name, uint32_t instruction,
                         int64_t delegate_id) {
  uint32_t i = hash(block, name, instruction, delegate_id) & t->index_mask;
  for (;;) {
    uint32_t *s = &t->index[i];
    const etk_latency_entry_t *e;
    if (*s == 0) return s;
    e = &t->slots[*s - 1u];
    if (e->block == block && e->name == name && e->instruction == instruction &&
        e->delegate_id == delegate_id)
      return s;
    i = (i + 1u) & t->index_mask;
  }
}

etk_latency_entry_t *etk_latency_table_key(etk_latency_table_t *t,
                                           uint32_t block, uint32_t name,
                                           uint32_t instruction,
                                           int64_t delegate_id, int create) {
  uint32_t *s;
  etk_latency_entry_t *e;
  if (t == NULL || t->slots == NULL) return NULL;
  s = slot_of(t, block, name, instruction, delegate_id);
  if (*s != 0) return &t->slots[*s - 1u];
  if (!create) return NULL;
  if (t->entries == t->capacity) {
    t->refused++;
    return NULL;
  }
  e = &t->slots[t->entries];
  memset(e, 0, sizeof *e - sizeof e->sketch);
  e->used = 1;
  e->block = block;
  e->name = name;
  e->instruction = instruction;
  e->delegate_id = delegate_id;
  if (etk_sketch_relative_error(&t->slots[0].sketch) == t->relative_error)
    (void)etk_sketch_init_like(&e->sketch, &t->slots[0].sketch);
  else /* NEVER unless the caller's memory was overwritten */
    (void)etk_sketch_init(&e->sketch, t->relative_error);
  *s = ++t->entries;
  return e;
}

etk_status_t etk_latency_table_add(etk_latency_table_t *t, uint32_t block,
                                   uint32_t name, uint32_t instruction,
                                   int64_t delegate_id, double duration) {
  etk_latency_entry_t *e;
  if (t == NULL || t->slots == NULL) return ETK_E_INVALID_ARGUMENT;
  e = etk_latency_table_key(t, block, name, instruction, delegate_id, 1);
  if (e == NULL) return ETK_E_FULL;
  return etk_sketch_add(&e->sketch, duration);
}

const etk_sketch_t *etk_latency_table_find(const etk_latency_table_t *t,
                                           uint32_t block, uint32_t name,
                                           uint32_t instruction,
                                           int64_t delegate_id) {
  const etk_latency_entry_t *e =
      etk_latency_table_key((etk_latency_table_t *)(uintptr_t)t, block, name,
                            instruction, delegate_id, 0);
  return e ? &e->sketch : NULL;
}
