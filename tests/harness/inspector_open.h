/*
 * inspector_open.h - opens an Inspector over the bytes of a hand-made
 * ETDump, for the tests of the inspector and of the analyses.  Header-only
 * (static inline), so only the tests that include it need the inspector
 * library.  The Inspector works on its own copy of the bytes, which the
 * helpers free: a fixture builder's result goes straight in.
 */
#ifndef ETK_TEST_INSPECTOR_OPEN_H
#define ETK_TEST_INSPECTOR_OPEN_H

#include <stdint.h>
#include <stdlib.h>

#include "etkit/inspector_core.h"

/* Opens an inspector over a copy of `bytes` (source times in ns, shown in
 * `target`) and frees `bytes`.  NULL when `bytes` is NULL or the open
 * fails. */
static inline etk_inspector_t *etk_test_inspector_take(
    uint8_t *bytes, size_t len, etk_time_scale_t target) {
  etk_inspector_t *insp = NULL;
  if (bytes) {
    etk_inspector_options_t o;
    etk_inspector_options_init(&o);
    o.target_time_scale = target;
    o.etdump.copy = 1;
    if (etk_inspector_open_memory(bytes, len, &o, &insp, NULL) != ETK_OK)
      insp = NULL;
  }
  free(bytes);
  return insp;
}

/* The same over what a fixture builder returns. */
static inline etk_inspector_t *etk_test_inspector_build(
    uint8_t *(*build)(size_t *len), etk_time_scale_t target) {
  size_t len = 0;
  uint8_t *bytes = build(&len);
  return etk_test_inspector_take(bytes, len, target);
}

#endif
