/*
 * settings.c - the recorder's settings and queries: debug and profiling
 * levels, the bundled input index, where tensor bytes go (data sink or the
 * recorder-owned debug buffer), the filter, and the counters callers read
 * (dropped events, the output bound, etk_recorder_stats).
 *
 * PURPOSE
 *   Keep record.c to recording.  Nothing here appends a record or changes
 *   the budget; every function only reads or sets fields of the context.
 *
 * DATA LAYOUT
 *   The fields of struct etk_recorder (recorder_internal.h); the budget
 *   figures come from rec_output_reserved and rec_pool_floor (record.c).
 *
 * INVARIANTS
 *   Every function accepts a NULL recorder (does nothing, or returns the
 *   documented neutral value); setters that could disturb an event being
 *   written refuse to run from inside a data sink's write callback.
 */
#include <string.h>

#include "recorder_internal.h"

/* ------------------------------------------------------------ settings */

void etk_recorder_set_debug_level(etk_recorder_t *rec, etk_debug_level_t l) {
  if (rec != NULL && (unsigned)l <= ETK_DEBUG_LEVEL_STATS)
    rec->debug_level = (uint8_t)l;
}

etk_debug_level_t etk_recorder_debug_level(const etk_recorder_t *rec) {
  return rec != NULL ? (etk_debug_level_t)rec->debug_level
                     : ETK_DEBUG_LEVEL_NONE;
}

void etk_recorder_set_profiling_level(etk_recorder_t *rec,
                                      etk_profiling_level_t l) {
  if (rec != NULL && (unsigned)l <= ETK_PROFILING_ALL_EVENTS)
    rec->profiling_level = (uint8_t)l;
}

etk_profiling_level_t etk_recorder_profiling_level(const etk_recorder_t *rec) {
  return rec != NULL ? (etk_profiling_level_t)rec->profiling_level
                     : ETK_PROFILING_ALL_EVENTS;
}

void etk_recorder_set_bundled_input_index(etk_recorder_t *rec, int32_t index) {
  if (rec != NULL) rec->bundled_input_index = index;
}

int32_t etk_recorder_bundled_input_index(const etk_recorder_t *rec) {
  return rec != NULL ? rec->bundled_input_index : ETK_BUNDLED_INPUT_INDEX_UNSET;
}

void etk_recorder_set_data_sink(etk_recorder_t *rec,
                                const etk_data_sink_t *sink) {
  if (rec == NULL || rec->state == REC_STATE_IN_SINK) return;
  rec->has_debug_buffer = 0;
  if (sink != NULL && sink->write != NULL) {
    rec->sink = *sink;
  } else {
    rec->sink.write = NULL;
    rec->sink.ctx = NULL;
  }
}

int etk_recorder_set_debug_buffer(etk_recorder_t *rec, void *buf, size_t cap) {
  int status;
  if (rec == NULL) return ETK_E_INVALID_ARGUMENT;
  if (rec->state == REC_STATE_IN_SINK) return ETK_E_INVALID_STATE;
  status = etk_buffer_sink_init(&rec->debug_buffer, buf, cap,
                                ETK_BUFFER_SINK_DEFAULT_ALIGNMENT);
  if (status != ETK_OK) return status;
  rec->has_debug_buffer = 1;
  rec->sink.write = NULL;
  rec->sink.ctx = NULL;
  return ETK_OK;
}

size_t etk_recorder_debug_buffer_used(const etk_recorder_t *rec) {
  return rec != NULL && rec->has_debug_buffer ? rec->debug_buffer.used : 0;
}

void etk_recorder_set_filter(etk_recorder_t *rec, const etk_filter_t *f) {
  if (rec != NULL) rec->filter = f;
}

/* ------------------------------------------------------------ queries */

uint32_t etk_recorder_dropped(const etk_recorder_t *rec) {
  return rec != NULL ? rec->dropped_events : 0;
}

void etk_recorder_count_dropped(etk_recorder_t *rec, uint32_t events) {
  if (rec == NULL) return;
  rec->dropped_events = events > UINT32_MAX - rec->dropped_events
                            ? UINT32_MAX
                            : rec->dropped_events + events;
}

size_t etk_recorder_output_bound(const etk_recorder_t *rec) {
  return rec != NULL ? rec_output_reserved(rec) : 0;
}

void etk_recorder_stats(const etk_recorder_t *rec, etk_recorder_stats_t *out) {
  if (out == NULL) return;
  memset(out, 0, sizeof *out);
  if (rec == NULL) return;
  out->blocks = rec->block_count;
  out->events = rec->event_count;
  out->allocators = rec->allocator_count;
  out->dropped_events = rec->dropped_events;
  out->dropped_blocks = rec->dropped_blocks;
  out->dropped_allocators = rec->dropped_allocators;
  out->strings = rec->string_count;
  out->string_bytes = rec->arena_size - rec->strings_low;
  out->record_bytes = rec->records_end - rec->records_begin;
  out->output_reserved = rec_output_reserved(rec);
  out->scratch_bytes = rec->scratch_bytes;
  {
    uint64_t floor = rec_pool_floor(rec);
    out->arena_free =
        floor < rec->strings_low ? (size_t)(rec->strings_low - floor) : 0;
  }
  if (rec->output != NULL) {
    uint32_t reserved = rec_output_reserved(rec);
    out->output_free =
        reserved < rec->output_capacity ? rec->output_capacity - reserved : 0;
  }
  out->vtable_shapes = rec->shape_count;
  out->vtables_conservative = rec->shape_count > ETK_FB_VTABLE_CACHE;
  out->last_output_bytes = rec->last_output_len;
}
