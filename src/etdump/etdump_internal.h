/*
 * etdump_internal.h - the layout of etk_etdump_t, shared by the files of
 * src/etdump/ only.  Not installed; other libraries use etkit/etdump.h.
 */
#ifndef ETKIT_ETDUMP_INTERNAL_H
#define ETKIT_ETDUMP_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "etkit/etdump.h"
#include "etkit/flatbuf.h"

/* An interned string is the offset of its first character in the buffer
 * (0 for ids 0 and 1): a verified FlatBuffers string keeps its u32 length
 * in the four bytes before, so 4 bytes per distinct string suffice.  (The
 * hashes used while interning live in the decoder's slot table, freed
 * after opening.) */
typedef uint32_t etdump_string_t;

/* Length of the interned string at `pos` (> 0). */
static inline uint32_t etdump_string_len(const uint8_t *buf, uint32_t pos) {
  uint32_t len;
  memcpy(&len, buf + pos - 4, 4); /* little-endian host, as the reader */
  return len;
}

typedef struct etdump_chain {
  uint64_t magnitude;
  uint8_t negative;
} etdump_chain_t;

typedef struct etdump_run {
  uint32_t name_id;
  int32_t bundled_input_index;
  uint32_t first_event, event_count;
  uint32_t first_allocator, allocator_count;
  uint32_t offset;
  uint32_t events_vec; /* the run's events vector (0 when absent) */
  uint8_t has_events;
} etdump_run_t;

struct etk_etdump {
  const uint8_t *buf; /* verified bytes (size prefix included) */
  size_t len;
  uint8_t *owned; /* non-NULL when buf is ours (malloc'd) */
  void *map;      /* non-NULL when buf is a read-only mapping of the */
  size_t map_len; /* file (etk_etdump_open_path), unmapped at close */
  uint32_t root;  /* offset of the ETDump table */
  uint32_t version;

  /* runs and allocators */
  size_t run_count;
  etdump_run_t *runs;
  size_t allocator_count;
  uint32_t *allocator_name_id;

  /* event columns (one arena: `columns_mem`) */
  size_t event_count;
  void *columns_mem;
  uint8_t *flags;
  int32_t *instruction_id;
  uint32_t *delegate_id_int_plus_one; /* 0 = absent */
  uint32_t *name_id;
  uint32_t *dstr_id;
  uint32_t *chain_id;

  /* interned strings */
  size_t string_count, string_cap;
  etdump_string_t *strings;

  /* interned chain values */
  size_t chain_count, chain_cap;
  etdump_chain_t *chains;

  /* an event-less RunData named ETK_TENSOR_STATS_MARKER is present */
  int tensor_stats;
};

/* Offset of event `index`'s member table (index < event_count); the
 * reader finds it again from the run's events vector. */
uint32_t etdump_event_member(const etk_etdump_t *dump, size_t index);

#endif
