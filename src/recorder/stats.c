/*
 * stats.c - the recorder's stats profile mode (etkit/recorder.h "STATS
 * MODE"): each profiling event's duration goes to the latency sketch of
 * its key instead of the record list, so a dump's size stops growing with
 * the number of runs.
 *
 * PURPOSE
 *   Keep record.c's hot path untouched: a stats recorder never sets `hot`,
 *   so every end takes the checked path, which calls rec_stats_add.
 *
 * DATA LAYOUT
 *   The latency table (etkit/sketch.h) lives in the arena between the
 *   string entries and the records (etk_recorder_init), sized by
 *   config.stats_keys.  Key: block = (chain + 1) << 16 | block name id
 *   (the chain clamped to -1 .. 65534), name = the event's name id (a
 *   string delegate id's name for such delegate events, 0 for an integer
 *   delegate id), instruction = the debug handle, delegate_id = the
 *   integer id, REC_STATS_DELEGATE_STR, or ETK_DELEGATE_ID_UNSET.
 *
 * BUDGET
 *   A new key is charged, before it is created, with everything finish
 *   writes for it: its representative ProfileEvent, its sketch's Allocator
 *   and name at the longest encoding, their scratch (an item slot and its
 *   place in the sketches record), and for the dump's first key the
 *   sketches RunData, its name and the encoding buffers.  A key that does
 *   not fit is refused and counted as dropped without latching `full`.
 */
#include <string.h>

#include "recorder_internal.h"

/* Per-key scratch at finish: the representative's item slot and its
 * (run, event) place in the sketches record. */
#define STATS_KEY_SCRATCH 12u
/* Once per dump: the sketches RunData's run_data slot and the buffers a
 * sketch is serialised and encoded in. */
#define STATS_RECORD_SCRATCH                         \
  (4u + rec_round8((uint32_t)ETK_SKETCH_MAX_BYTES) + \
   rec_round8((uint32_t)REC_SKETCH_TEXT_MAX))

static uint32_t key_block(etk_recorder_name_t block, int32_t chain) {
  uint32_t c = chain < -1      ? 0xFFFFu
               : chain > 65534 ? 0xFFFFu
                               : (uint32_t)(chain + 1);
  return c << 16 | (block & 0xFFFFu);
}

void rec_stats_key_cost(const etk_recorder_t *rec, etk_recorder_name_t name,
                        int32_t chain, int64_t delegate_id, rec_cost_t *c) {
  int delegate = delegate_id != ETK_DELEGATE_ID_UNSET;
  unsigned shape = delegate ? rec_delegate_shape(
                                  delegate_id == REC_STATS_DELEGATE_STR, chain)
                            : rec_profile_shape(name != 0, chain);
  memset(c, 0, sizeof *c);
  c->scratch = STATS_KEY_SCRATCH;
  c->output = rec_table_bound(shape) + rec_event_out(SH_EVENT_PROFILE) +
              (delegate ? rec_vector_bound(0, 1) : 0u) +
              rec_table_bound(SH_ALLOCATOR) + 4u +
              rec_string_bound(REC_SKETCH_TEXT_MAX);
  c->vtables = rec_shape_vtable(shape) + rec_shape_vtable(SH_EVENT_PROFILE) +
               rec_shape_vtable(SH_ALLOCATOR);
  c->shapes =
      SHAPE_BIT(shape) | SHAPE_BIT(SH_EVENT_PROFILE) | SHAPE_BIT(SH_ALLOCATOR);
  c->names[0] = name;
  if (!rec->stats_record) {
    unsigned run = SH_RUN_DATA + SH_RUN_DATA_ALLOCATORS;
    c->scratch += STATS_RECORD_SCRATCH;
    c->output += rec_table_bound(run) + 4u + rec_vector_bound(0, 4) +
                 rec_string_bound(REC_SKETCHES_NAME_MAX);
    c->vtables += rec_shape_vtable(run);
    c->shapes |= SHAPE_BIT(run);
  }
}

int rec_stats_add(etk_recorder_t *rec, etk_recorder_name_t name, int32_t chain,
                  uint32_t instruction, int64_t delegate_id, uint64_t start,
                  uint64_t end) {
  etk_latency_entry_t *e;
  rec_block_t b;
  uint32_t block;
  if (name > rec->string_count) return ETK_E_INVALID_ARGUMENT;
  if (rec->block_record == 0 || end < start) {
    rec_count_drop(rec);
    return ETK_E_FULL;
  }
  memcpy(&b, rec_base(rec) + rec->block_record, sizeof b);
  if (!(b.flags & BLOCK_EVENTS_OPEN)) { /* its events vector did not fit */
    rec_count_drop(rec);
    return ETK_E_FULL;
  }
  block = key_block(b.name, chain);
  e = etk_latency_table_key(&rec->latency, block, name, instruction,
                            delegate_id, 0);
  if (e == NULL) {
    rec_cost_t c;
    if (rec->latency.entries == rec->latency.capacity) {
      rec->latency.refused++;
      rec_count_drop(rec);
      return ETK_E_FULL;
    }
    rec_stats_key_cost(rec, name, chain, delegate_id, &c);
    if (rec_budget_try(rec, &c) != ETK_OK) {
      rec->latency.refused++;
      rec_count_drop(rec);
      return ETK_E_FULL;
    }
    rec->stats_record = 1;
    e = etk_latency_table_key(&rec->latency, block, name, instruction,
                              delegate_id, 1);
    if (e == NULL) return ETK_E_INTERNAL; /* NEVER: a slot was free */
  }
  return etk_sketch_add_ticks(&e->sketch, end - start);
}

int rec_stats_charge_again(etk_recorder_t *rec) {
  rec->stats_record = 0;
  for (uint32_t i = 0; i < rec->latency.entries; i++) {
    const etk_latency_entry_t *e = &rec->latency.slots[i];
    rec_cost_t c;
    rec_stats_key_cost(rec, e->name, (int32_t)(e->block >> 16) - 1,
                       e->delegate_id, &c);
    if (rec_budget_try(rec, &c) != ETK_OK) return ETK_E_INTERNAL;
    rec->stats_record = 1;
  }
  return ETK_OK;
}

etk_profile_mode_t etk_recorder_profile_mode(const etk_recorder_t *rec) {
  return rec != NULL && rec->stats ? ETK_PROFILE_MODE_STATS
                                   : ETK_PROFILE_MODE_FULL;
}

const struct etk_latency_table *etk_recorder_latency_table(
    const etk_recorder_t *rec) {
  return rec != NULL && rec->stats ? &rec->latency : NULL;
}

/* Stats mode: the record of the block named `name` in this dump, 0 if
 * none, and in *last whether it is the dump's last block. */
uint32_t rec_stats_find_block(const etk_recorder_t *rec,
                              etk_recorder_name_t name, int *last) {
  const uint8_t *base = rec_base(rec);
  uint32_t at = rec->records_begin, found = 0, final = 0;
  while (at < rec->records_end) {
    uint32_t size = rec_record_size(base + at);
    if (size == 0) break;
    if (base[at] == REC_BLOCK) {
      rec_block_t b;
      memcpy(&b, base + at, sizeof b);
      if (b.name == name && found == 0) found = at;
      final = at;
    }
    at += size;
  }
  *last = found != 0 && found == final;
  return found;
}
