/*
 * latency.c - the latency table (etkit/sketch.h): sketches keyed by
 * (block, name, instruction, delegate id) in caller memory.
 *
 * Layout: `capacity` slots after nothing else (the table struct is the
 * caller's); open addressing with linear probing on a hash of the key.
 * Slots are never removed, so a probe ends at the key or at the first
 * unused slot; the table refuses a new key when every slot is used.
 */
#include <string.h>

#include "etkit/sketch.h"

size_t etk_latency_table_size(uint32_t capacity) {
  return (size_t)capacity * sizeof(etk_latency_entry_t);
}

etk_status_t etk_latency_table_init(etk_latency_table_t *t, void *mem,
                                    size_t len, uint32_t capacity,
                                    double relative_error) {
  etk_sketch_t probe;
  if (t == NULL || mem == NULL || capacity == 0 || ((uintptr_t)mem & 7u) != 0 ||
      etk_sketch_init(&probe, relative_error) != ETK_OK)
    return ETK_E_INVALID_ARGUMENT;
  if ((uint64_t)capacity * sizeof(etk_latency_entry_t) > (uint64_t)len)
    return ETK_E_FULL;
  memset(t, 0, sizeof *t);
  t->capacity = capacity;
  t->relative_error = probe.relative_error;
  t->slots = mem;
  memset(mem, 0, etk_latency_table_size(capacity));
  return ETK_OK;
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

static etk_latency_entry_t *slot_of(const etk_latency_table_t *t,
                                    uint32_t block, uint32_t name,
                                    uint32_t instruction, int64_t delegate_id) {
  uint32_t i = hash(block, name, instruction, delegate_id) % t->capacity;
  for (uint32_t n = 0; n < t->capacity; n++) {
    etk_latency_entry_t *e = &t->slots[i];
    if (!e->used ||
        (e->block == block && e->name == name &&
         e->instruction == instruction && e->delegate_id == delegate_id))
      return e;
    i = i + 1 == t->capacity ? 0 : i + 1;
  }
  return NULL; /* full and the key absent */
}

etk_status_t etk_latency_table_add(etk_latency_table_t *t, uint32_t block,
                                   uint32_t name, uint32_t instruction,
                                   int64_t delegate_id, double duration) {
  if (t == NULL || t->slots == NULL) return ETK_E_INVALID_ARGUMENT;
  etk_latency_entry_t *e = slot_of(t, block, name, instruction, delegate_id);
  if (e == NULL) {
    t->refused++;
    return ETK_E_FULL;
  }
  if (!e->used) {
    e->used = 1;
    e->block = block;
    e->name = name;
    e->instruction = instruction;
    e->delegate_id = delegate_id;
    etk_sketch_init(&e->sketch, t->relative_error);
    t->entries++;
  }
  return etk_sketch_add(&e->sketch, duration);
}

const etk_sketch_t *etk_latency_table_find(const etk_latency_table_t *t,
                                           uint32_t block, uint32_t name,
                                           uint32_t instruction,
                                           int64_t delegate_id) {
  if (t == NULL || t->slots == NULL) return NULL;
  const etk_latency_entry_t *e =
      slot_of(t, block, name, instruction, delegate_id);
  return e && e->used ? &e->sketch : NULL;
}
