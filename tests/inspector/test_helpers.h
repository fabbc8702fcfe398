/*
 * test_helpers.h - small helpers shared by the inspector tests.
 */
#ifndef ETKIT_TESTS_INSPECTOR_HELPERS_H
#define ETKIT_TESTS_INSPECTOR_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/inspector.h"
#include "render_capture.h"

/* Opens an inspector over a copy of `bytes` (the copy is owned by it). */
static inline etk_inspector_t *th_open(const uint8_t *bytes, size_t len,
                                       etk_time_scale_t src,
                                       etk_time_scale_t tgt, unsigned flags,
                                       int *rc_out) {
  etk_inspector_options_t o;
  etk_inspector_options_init(&o);
  o.source_time_scale = src;
  o.target_time_scale = tgt;
  o.flags = flags;
  o.etdump.copy = 1;
  etk_inspector_t *insp = NULL;
  int rc = etk_inspector_open_memory(bytes, len, &o, &insp, NULL);
  if (rc_out) *rc_out = rc;
  return insp;
}

/* Renders with `ro` (NULL = defaults) into a malloc'd string; NULL on error
 * (the code in *rc_out). */
static inline char *th_render(etk_inspector_t *insp,
                              const etk_inspector_render_options_t *ro,
                              int *rc_out, etk_error_t *err) {
  etk_render_sink_t *s = etk_test_capture_new();
  int rc = etk_inspector_render(insp, ro, s, err);
  if (rc_out) *rc_out = rc;
  return etk_test_capture_finish(s, rc);
}

/* Whether p10, p50, p90 and avg print (Python repr) as the four strings;
 * prints each that differs. */
static inline int th_stats_repr_is(const etk_stats_t *st, const char *p10,
                                   const char *p50, const char *p90,
                                   const char *avg) {
  static const char *const names[4] = {"p10", "p50", "p90", "avg"};
  const double got[4] = {st->p10, st->p50, st->p90, st->avg};
  const char *const want[4] = {p10, p50, p90, avg};
  int all = 1;
  for (int k = 0; k < 4; k++) {
    char text[ETK_FORMAT_DOUBLE_MAX];
    etk_format_double_repr(got[k], text);
    if (strcmp(text, want[k]) == 0) continue;
    printf("# %s: %s, expected %s\n", names[k], text, want[k]);
    all = 0;
  }
  return all;
}

/* The default render options with `format`. */
static inline etk_inspector_render_options_t th_options(
    etk_inspect_format_t format) {
  etk_inspector_render_options_t ro;
  etk_inspector_render_options_init(&ro);
  ro.format = format;
  return ro;
}

static inline char *th_tsv(etk_inspector_t *insp) {
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  return th_render(insp, &ro, NULL, NULL);
}

/* Python repr of an event's raw durations, e.g. "[0.01, 0.02, 0.04]". */
static inline void th_raw_repr(const etk_inspector_t *insp, size_t ev,
                               char *out, size_t cap) {
  double raw[64];
  size_t n = 0;
  etk_inspector_event_durations(insp, ev, raw, &n);
  size_t o = 0;
  out[o++] = '[';
  for (size_t i = 0; i < n && o + 40 < cap; i++) {
    if (i) {
      out[o++] = ',';
      out[o++] = ' ';
    }
    o += etk_format_double_repr(raw[i], out + o);
  }
  out[o++] = ']';
  out[o] = 0;
}

static inline size_t th_find_event(const etk_inspector_t *insp, size_t block,
                                   const char *name) {
  etk_inspector_block_t b;
  etk_inspector_block_get(insp, block, &b);
  for (size_t i = 0; i < b.event_count; i++) {
    etk_inspector_event_t e;
    etk_inspector_event_get(insp, b.first_event + i, &e);
    if (strcmp(e.name, name) == 0) return b.first_event + i;
  }
  return (size_t)-1;
}

#endif
