/*
 * debug_stats.c - the recorder's STATS debug level (ETK_DEBUG_LEVEL_STATS):
 * the marker RunData that tells readers a dump's tensors are STATS
 * vectors, and its reservation.
 *
 * PURPOSE
 *   record.c reduces each logged tensor that has data to its 13-value
 *   STATS vector (etkit/tensor_stats.h) and writes those 104 bytes to the
 *   data sink instead of the tensor's; the record's tensor header becomes
 *   DOUBLE, sizes [13], strides [1].  The dump then needs one event-less
 *   RunData named ETK_TENSOR_STATS_MARKER (upstream's Inspector skips runs
 *   without events, as it skips the dropped and calibration markers), so
 *   that a reader can tell a STATS vector from a tensor of 13 doubles.
 *
 * INVARIANTS
 *   The marker's output is charged with the first STATS record of a dump
 *   (rec_stats_marker_cost, then rec->stats_marker = 1), so finish always
 *   has room for it; rec_budget_reset forgets it with the records.
 */
#include "etkit/schema.h"
#include "etkit/tensor_stats.h"
#include "recorder_internal.h"

uint32_t rec_stats_marker_out(void) {
  return rec_string_bound((uint32_t)sizeof ETK_TENSOR_STATS_MARKER - 1u) +
         rec_table_bound(SH_RUN_DATA) + 4u;
}

void rec_stats_marker_cost(const etk_recorder_t *rec, rec_cost_t *c) {
  if (rec->stats_marker) return;
  c->output += rec_stats_marker_out();
  c->scratch += 4u;
}

etk_fb_ref_t rec_stats_marker_emit(etk_fb_builder_t *b) {
  etk_fb_ref_t name = etk_fb_create_string(b, ETK_TENSOR_STATS_MARKER,
                                           sizeof ETK_TENSOR_STATS_MARKER - 1u);
  etk_fb_table_start(b);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_NAME, name);
  return etk_fb_table_end(b);
}
