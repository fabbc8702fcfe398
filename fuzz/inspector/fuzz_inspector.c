/*
 * fuzz_inspector.c - libFuzzer target: the ETDump reader, event-block
 * grouping and every renderer (table, TSV, CSV, JSON, summary,
 * allocations) and the compensation of a calibrated dump on arbitrary bytes.
 * Invalid input must fail cleanly; valid input must render without crashing,
 * leaking or reading out of bounds. The first byte (when there is one more)
 * selects a few options so that time scales, quirks and sorting are exercised
 * too; the rest is the dump, optionally followed by a debug buffer (see below).
 *
 * Built with -DETKIT_BUILD_FUZZ=ON (clang); its corpus is replayed as the
 * ordinary test inspector_fuzz_replay (fuzz/replay.c) under any compiler.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/compensation.h"
#include "etkit/inspector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t sel = size > 1 ? data[0] : 0;
  if (size > 1) {
    data++;
    size--;
  }
  etk_inspector_options_t o;
  etk_inspector_options_init(&o);
  o.etdump.copy = 1; /* exact-size copy: out-of-bounds reads are caught */
  o.etdump.max_events = 1u << 20;
  o.target_time_scale = (etk_time_scale_t)(sel % 4);
  o.flags = (sel >> 2) & ETK_INSPECTOR_QUIRKS_ALL;
  /* With bit 4 set, the next byte is the length of a debug buffer taken
   * from the end of the input (an exact-size copy): truncated and
   * mismatched buffers must be refused, fitting ones rendered. */
  uint8_t *debug_buffer = NULL;
  if ((sel & 0x10) && size > 1) {
    size_t want = data[0];
    data++;
    size--;
    if (want > size) want = size;
    size -= want;
    debug_buffer = malloc(want ? want : 1);
    if (!debug_buffer) return 0;
    if (want) memcpy(debug_buffer, data + size, want);
    o.debug_buffer = debug_buffer;
    o.debug_buffer_len = want;
  }
  etk_inspector_t *insp = NULL;
  if (etk_inspector_open_memory(size ? data : NULL, size, &o, &insp, NULL) !=
      ETK_OK) {
    free(debug_buffer);
    return 0;
  }
  etk_render_sink_t *sink = malloc(sizeof *sink);
  if (!sink) {
    etk_inspector_close(insp);
    free(debug_buffer);
    return 0;
  }
  static const etk_inspect_format_t formats[] = {
      ETK_INSPECT_FORMAT_TABLE, ETK_INSPECT_FORMAT_TSV, ETK_INSPECT_FORMAT_CSV,
      ETK_INSPECT_FORMAT_JSON};
  for (int view = 0; view < 3; view++)
    for (int f = 0; f < 4; f++) {
      etk_inspector_render_options_t ro;
      etk_inspector_render_options_init(&ro);
      ro.format = formats[f];
      ro.view = (etk_inspect_view_t)view;
      ro.allow_empty = 1;
      ro.all_columns = (sel >> 5) & 1;
      ro.include_delegate_debug_data = (sel >> 6) & 1;
      ro.sort = (sel >> 7) ? ETK_INSPECT_SORT_AVG : ETK_INSPECT_SORT_NONE;
      etk_render_sink_init(sink, NULL, NULL); /* counting sink */
      etk_inspector_render(insp, &ro, sink, NULL);
    }
  /* the per-event API too */
  for (size_t i = 0; i < etk_inspector_event_count(insp) && i < 64; i++) {
    etk_inspector_event_t e;
    etk_stats_t st;
    etk_inspector_event_get(insp, i, &e);
    etk_inspector_event_stats(insp, i, &st);
    /* raw and compensated, from the dump's calibration marker when it has
     * one (each run's own pair with adjacent=1) */
    double raw, comp;
    etk_inspector_event_compensation(insp, i, &raw, &comp);
    for (size_t k = 0; k < e.sample_count && k < 4; k++) {
      etk_inspector_sample_t s;
      etk_inspector_event_sample(insp, i, k, &s);
    }
  }
  free(sink);
  etk_inspector_close(insp);
  free(debug_buffer);
  return 0;
}
