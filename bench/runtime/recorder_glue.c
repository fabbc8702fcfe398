/*
 * recorder_glue.c - the benchmark's recorder set-up, in its own file
 * because etkit/recorder.h and etkit/runtime.h cannot share one.
 */
#include <stdlib.h>

#include "etkit/recorder.h"

struct etk_recorder *bench_recorder_new(int profile_all, void **arena_out);
void bench_recorder_restart(struct etk_recorder *r);

struct etk_recorder *bench_recorder_new(int profile_all, void **arena_out) {
  size_t size = (size_t)64 << 20;
  void *arena = aligned_alloc(64, size);
  etk_recorder_t *r = NULL;
  etk_recorder_config_t cfg;
  etk_recorder_config_init(&cfg);
  cfg.max_strings = 256;
  if (!arena || etk_recorder_init(&r, arena, size, &cfg) != ETK_OK) {
    free(arena);
    return NULL;
  }
  etk_recorder_set_profiling_level(
      r, profile_all ? ETK_PROFILING_ALL_EVENTS : ETK_PROFILING_METHOD_ONLY);
  *arena_out = arena;
  return r;
}

/* Finishes the dump so the next block starts a fresh one (keeps the
 * arena from filling up between timed batches). */
void bench_recorder_restart(struct etk_recorder *r) {
  (void)etk_recorder_finish(r, NULL, NULL);
}
