/*
 * trace_alloc.c - the trace session's host layer: the recorder arena and
 * the debug buffer on the heap (etk_trace_session_create), released by
 * etk_trace_session_free.  Sizing and starting are the core's
 * (trace_session.c, caller memory).
 */
#include <stdlib.h>
#include <string.h>

#include "../runtime_internal.h"
#include "etkit/method.h"

int etk_trace_session_create(const etk_program_plan_t *plan, unsigned runs,
                             int debug_level, int profile_level, int want_debug,
                             etk_trace_session_t *out, etk_error_t *err) {
  memset(out, 0, sizeof *out);
  size_t arena_size = 0, debug_size = 0;
  int rc = etk_trace_session_size(plan, runs, debug_level, profile_level,
                                  &arena_size, &debug_size, err);
  if (rc != ETK_OK) return rc;
  if (want_debug && debug_size == SIZE_MAX)
    return etk_trace_debug_too_big(runs, err);
  void *arena = aligned_alloc(64, arena_size);
  uint8_t *debug =
      want_debug ? aligned_alloc(64, (debug_size + 63) & ~(size_t)63) : NULL;
  if (!arena || (want_debug && !debug)) {
    free(arena);
    free(debug);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         arena ? "out of memory for the debug buffer"
                               : "out of memory for the recorder");
  }
  rc = etk_trace_session_start(plan, runs, debug_level, profile_level, arena,
                               arena_size, debug, debug_size, NULL, NULL, out,
                               err);
  if (rc != ETK_OK) {
    free(arena);
    free(debug);
    memset(out, 0, sizeof *out);
  }
  return rc;
}

void etk_trace_session_free(etk_trace_session_t *r) {
  if (!r) return;
  free(r->arena);
  free(r->debug_buffer);
  memset(r, 0, sizeof *r);
}
