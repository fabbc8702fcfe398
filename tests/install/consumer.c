/* consumer.c - a program outside the etkit tree that uses the installed
 * headers and libraries: it writes an ETDump with the recorder and reads it
 * back with the inspector. */
#include <stdio.h>
#include <stdlib.h>

#include "etkit/inspector.h"
#include "etkit/recorder.h"

static uint64_t ticks;
static uint64_t clock_fn(void *ctx) {
  (void)ctx;
  return ticks += 10;
}

int main(void) {
  static uint64_t arena[8192];
  etk_recorder_config_t cfg;
  etk_recorder_config_init(&cfg);
  cfg.clock = clock_fn;
  etk_recorder_t *rec;
  if (etk_recorder_init(&rec, arena, sizeof arena, &cfg) != ETK_OK) return 1;
  etk_recorder_begin_block(rec, "Execute");
  etk_recorder_scope_t s = etk_recorder_begin_named(rec, "native_call_add.out", 0, 0);
  etk_recorder_end(rec, &s);
  const uint8_t *etdp;
  size_t len;
  if (etk_recorder_finish(rec, &etdp, &len) != ETK_OK) return 1;
  etk_inspector_t *insp = NULL;
  if (etk_inspector_open_memory(etdp, len, NULL, &insp, NULL) != ETK_OK) return 1;
  printf("blocks %zu\n", etk_inspector_block_count(insp));
  etk_inspector_close(insp);
  return 0;
}
