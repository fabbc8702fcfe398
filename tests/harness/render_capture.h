/*
 * render_capture.h - captures what a renderer writes, for tests that
 * compare rendered text: a memory sink on the heap, and the step that
 * takes its text and frees it.  Header-only (static inline), so only the
 * tests that include it need the render library.
 */
#ifndef ETK_TEST_RENDER_CAPTURE_H
#define ETK_TEST_RENDER_CAPTURE_H

#include <stdlib.h>

#include "etkit/render.h"

/* A memory sink (etk_render_sink_init_memory) on the heap; NULL when out of
 * memory.  Give it to etk_test_capture_finish(). */
static inline etk_render_sink_t *etk_test_capture_new(void) {
  etk_render_sink_t *s = malloc(sizeof *s);
  if (s) etk_render_sink_init_memory(s);
  return s;
}

/* The text written to `s` (malloc'd) when the renderer returned rc ==
 * ETK_OK, else NULL; frees the sink either way. */
static inline char *etk_test_capture_finish(etk_render_sink_t *s, int rc) {
  if (!s) return NULL;
  size_t len;
  char *out = rc == ETK_OK ? etk_render_sink_take(s, &len) : NULL;
  etk_render_sink_free(s);
  free(s);
  return out;
}

#endif
