/*
 * sizing.c - how big a recorder's arena and output must be: the arena
 * layout of a configuration (shared with etk_recorder_init) and the
 * estimates callers size their buffers with before recording.
 *
 * PURPOSE
 *   etk_recorder_estimate_size and etk_recorder_estimate_output_size give
 *   the bytes a workload (counts of blocks, events, tensors, strings) needs,
 *   with the same worst-case bounds the recording side charges per record
 *   (recorder_internal.h "costs"), so a buffer sized by them never drops an
 *   event of that workload.
 *
 * DATA LAYOUT
 *   [struct etk_recorder][u16 hash slots][rec_string_t x max_strings]
 *   [records ...], each part 8-aligned (rec_layout_for); the estimates add
 *   the records, the finish scratch, the string pool and, without a
 *   separate output buffer, the FlatBuffer's worst case.
 *
 * INVARIANTS
 *   Pure functions of their arguments; nothing here touches a recorder.
 *   Every total is computed in 64 bits and reported as 0 beyond the
 *   builder's 2 GiB limit.
 */
#include <string.h>

#include "recorder_internal.h"

/* Arena layout of a config: offsets of the slots, entries, records. */
int rec_layout_for(uint32_t max_strings, rec_layout_t *l) {
  uint32_t slots = 2;
  if (max_strings == 0) max_strings = ETK_RECORDER_DEFAULT_MAX_STRINGS;
  if (max_strings > ETK_RECORDER_MAX_STRINGS) return ETK_E_LIMIT;
  while (slots < 2u * max_strings) slots <<= 1;
  l->hash_slots = slots;
  l->slots_offset = rec_round8((uint32_t)sizeof(struct etk_recorder));
  l->entries_offset = (l->slots_offset + 2u * (uint64_t)slots + 7u) & ~7ull;
  l->records_begin =
      (l->entries_offset + (uint64_t)sizeof(rec_string_t) * max_strings + 7u) &
      ~7ull;
  return ETK_OK;
}

/* Worst-case output of a debug event's fixed part: the largest DebugEvent
 * and Value shapes, the Event wrapper, the payload's largest scalar table
 * and the output flag. */
static uint64_t debug_fixed_out(void) {
  return rec_table_bound(SH_DEBUG + 5u) + rec_table_bound(SH_VALUE_LIST_OUT) +
         rec_event_out(SH_EVENT_DEBUG) + rec_table_bound(SH_INT) +
         rec_table_bound(SH_BOOL);
}

static uint64_t estimate_output(const etk_recorder_workload_t *w) {
  uint64_t out = rec_fixed_out();
  uint64_t tensors, dims;
  uint64_t vt = 0;
  for (unsigned s = 0; s < SH_COUNT; s++) vt += rec_shape_vtable(s);
  out += vt;
  if (w == NULL) return out;
  tensors = (uint64_t)w->debug_tensors + w->list_tensors;
  dims = w->tensor_dims;
  out += (uint64_t)w->blocks * rec_block_out();
  out += (uint64_t)w->profile_events *
         (rec_table_bound(SH_PROFILE + 3u) + rec_event_out(SH_EVENT_PROFILE));
  out += (uint64_t)w->delegate_events *
         (rec_table_bound(SH_DELEGATE + 3u) + rec_event_out(SH_EVENT_PROFILE) +
          rec_vector_bound(0, 1));
  out += w->delegate_metadata_bytes;
  out += (uint64_t)w->allocators * (rec_table_bound(SH_ALLOCATOR) + 4u);
  out += (uint64_t)w->allocation_events *
         (rec_table_bound(SH_ALLOCATION) + rec_event_out(SH_EVENT_ALLOCATION));
  out +=
      ((uint64_t)w->debug_scalars + w->debug_tensors + w->debug_tensor_lists) *
      debug_fixed_out();
  out += (uint64_t)w->debug_tensor_lists *
         (rec_table_bound(SH_TENSOR_LIST) + rec_vector_bound(0, 4));
  out += 4u * (uint64_t)w->list_tensors;
  out += tensors * rec_tensor_out(0) + dims * 16u;
  out += (uint64_t)w->strings * rec_string_bound(0) + w->string_bytes;
  if (w->tensor_stats) out += rec_stats_marker_out();
  return out;
}

static uint64_t estimate_records(const etk_recorder_workload_t *w) {
  uint64_t r = 0;
  if (w == NULL) return 0;
  r += (uint64_t)w->blocks * sizeof(rec_block_t);
  r += (uint64_t)w->profile_events * sizeof(rec_profile_t);
  r += (uint64_t)w->delegate_events * (sizeof(rec_delegate_t) + 7u) +
       w->delegate_metadata_bytes;
  r += (uint64_t)w->allocators * sizeof(rec_allocator_t);
  r += (uint64_t)w->allocation_events * sizeof(rec_allocation_t);
  r += ((uint64_t)w->debug_scalars + w->debug_tensors + w->debug_tensor_lists) *
       sizeof(rec_debug_t);
  r += ((uint64_t)w->debug_tensors + w->list_tensors) * sizeof(rec_tensor_t) +
       16u * (uint64_t)w->tensor_dims;
  /* scratch: builder, block refs (+ marker), items of the largest block,
   * list refs */
  {
    uint64_t events = (uint64_t)w->profile_events + w->delegate_events +
                      w->allocation_events + w->debug_scalars +
                      w->debug_tensors + w->debug_tensor_lists;
    uint64_t items = w->max_block_events ? w->max_block_events : events;
    if (w->allocators > items) items = w->allocators;
    r += rec_fixed_scratch() + 4u * (uint64_t)w->blocks + 4u * items +
         4u * (uint64_t)w->list_tensors + (w->tensor_stats ? 4u : 0u);
  }
  /* string pool: bytes plus a NUL each */
  r += (uint64_t)w->string_bytes + w->strings;
  return r;
}

size_t etk_recorder_estimate_output_size(const etk_recorder_workload_t *w) {
  uint64_t out = estimate_output(w);
  return out > 0x7FFFFFF0u ? 0 : (size_t)out;
}

/* Stats mode: the latency table, and the worst-case scratch and output of
 * every key (rec_stats_key_cost for a key of the largest shape). */
static uint64_t estimate_stats(const etk_recorder_config_t *cfg,
                               uint64_t *output) {
  etk_recorder_t probe;
  rec_cost_t first, next;
  uint32_t keys;
  if (cfg == NULL || cfg->profile_mode != ETK_PROFILE_MODE_STATS) return 0;
  keys = cfg->stats_keys ? cfg->stats_keys : ETK_RECORDER_DEFAULT_STATS_KEYS;
  if (keys > ETK_LATENCY_MAX_KEYS) return 0;
  memset(&probe, 0, sizeof probe);
  rec_stats_key_cost(&probe, 1, 1, REC_STATS_DELEGATE_STR, &first);
  probe.stats_record = 1;
  rec_stats_key_cost(&probe, 1, 1, REC_STATS_DELEGATE_STR, &next);
  *output = first.output + first.vtables +
            (uint64_t)(keys - 1u) * (next.output + next.vtables) +
            (uint64_t)keys * rec_string_bound(0);
  return rec_round8((uint32_t)etk_latency_table_size(keys)) + first.scratch +
         (uint64_t)(keys - 1u) * next.scratch;
}

size_t etk_recorder_estimate_size(const etk_recorder_config_t *cfg,
                                  const etk_recorder_workload_t *w) {
  rec_layout_t layout;
  uint64_t total, stats_output = 0;
  if (rec_layout_for(cfg ? cfg->max_strings : 0, &layout) != ETK_OK) return 0;
  total = layout.records_begin + estimate_records(w) + 7u; /* + alignment */
  total += estimate_stats(cfg, &stats_output);
  if (cfg == NULL || cfg->output == NULL)
    total += estimate_output(w) + stats_output;
  return total > 0x7FFFFFF0u ? 0 : (size_t)total;
}
