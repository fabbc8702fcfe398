/*
 * mcu_footprint.c - the smallest realistic device use of the recorder, for
 * scripts/cross-build.sh to link for Cortex-M with --gc-sections and report
 * the flash and RAM it really costs (not built on hosts).
 *
 * Profiling only: one arena, a cycle-counter clock, interned names, blocks,
 * operator scopes, finish, and the finished bytes handed to a transport.
 */
#include <stdint.h>

#include "etkit/recorder.h"

/* DWT->CYCCNT on a Cortex-M4/M7. */
static uint64_t cycle_clock(void *ctx) {
  (void)ctx;
  return *(volatile uint32_t *)0xE0001004u;
}

/* Where the finished ETDump goes (a UART driver, say). */
volatile const uint8_t *etdump_out;
volatile size_t etdump_len;

static uint64_t arena[16384 / 8];

int main(void);
int main(void) {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec;
  etk_recorder_name_t op;
  const uint8_t *data;
  size_t len;
  etk_recorder_config_init(&cfg);
  cfg.clock = cycle_clock;
  if (etk_recorder_init(&rec, arena, sizeof arena, &cfg) != ETK_OK) return 1;
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  etk_recorder_begin_block(rec, "Execute");
  for (uint32_t i = 0; i < 14; i++) {
    etk_recorder_scope_t s;
    etk_recorder_set_chain_debug_handle(rec, 0, i);
    s = etk_recorder_begin(rec, op);
    etk_recorder_end(rec, &s);
  }
  if (etk_recorder_finish(rec, &data, &len) != ETK_OK) return 1;
  etdump_out = data;
  etdump_len = len;
  return 0;
}
