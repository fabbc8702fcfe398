/*
 * probe_main.c - firmware images that misbehave on purpose, for
 * tests/device: built by src/boards/CMakeLists.txt with the real board
 * support (startup, semihosting, clock) into build/firmware/test/
 * (never installed).
 *   PROBE_FAULT: an undefined instruction, a usage fault at once;
 *   PROBE_HANG:  a loop that never ends, for `--timeout`.
 * `etkit run --target BOARD --firmware PROBE.elf` must print one error
 * line, exit 2 and leave no output behind.
 */
#include "board_clock.h"

int main(void) {
  (void)board_clock_init();
#if defined(PROBE_FAULT)
  __asm__ volatile("udf #0");
#elif defined(PROBE_HANG)
  for (volatile unsigned n = 0;; n++) {
  }
#endif
  return 0;
}
