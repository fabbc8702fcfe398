/*
 * board_clock.h - the firmware's recorder clock: CPU cycles from DWT
 * CYCCNT where it counts (real cores), else SysTick at the core clock
 * with its 24-bit wraps counted in the SysTick interrupt (QEMU, whose DWT
 * reads 0; under -icount SysTick counts executed instructions).
 */
#ifndef ETKIT_BOARDS_BOARD_CLOCK_H
#define ETKIT_BOARDS_BOARD_CLOCK_H

#include <stdint.h>

/* Starts the counter; returns 1 if DWT CYCCNT is used, 0 for SysTick. */
int board_clock_init(void);
/* Ticks (cycles) since board_clock_init; ctx unused (recorder clock). */
uint64_t board_clock_ticks(void *ctx);

#endif
