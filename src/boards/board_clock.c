/*
 * board_clock.c - cycle counter of the firmware (see board_clock.h).
 */
#include "board_clock.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define DEMCR REG(0xE000EDFCu)
#define DWT_CTRL REG(0xE0001000u)
#define DWT_CYCCNT REG(0xE0001004u)

#define SYSTICK_RELOAD 0x00FFFFFFu

/* counted in the interrupt; a read retries if a wrap came in between */
static volatile uint32_t systick_wraps;
static int use_dwt;
static uint32_t dwt_last, dwt_high;

void SysTick_Handler(void) {
  systick_wraps++;
}

int board_clock_init(void) {
  DEMCR |= 1u << 24; /* TRCENA */
  DWT_CYCCNT = 0;
  DWT_CTRL |= 1u; /* CYCCNTENA */
  for (volatile int k = 0; k < 16; k++) {
  }
  use_dwt = DWT_CYCCNT != 0;
  if (use_dwt) return 1;
  SYST_RVR = SYSTICK_RELOAD;
  SYST_CVR = 0;
  systick_wraps = 0;
  SYST_CSR = 7u; /* processor clock, interrupt on wrap, enabled */
  return 0;
}

uint64_t board_clock_ticks(void *ctx) {
  (void)ctx;
  if (use_dwt) {
    /* 32-bit CYCCNT widened: reads come far more often than 2^32 cycles */
    uint32_t now = DWT_CYCCNT;
    if (now < dwt_last) dwt_high++;
    dwt_last = now;
    return ((uint64_t)dwt_high << 32) | now;
  }
  uint32_t wraps, value;
  do {
    wraps = systick_wraps;
    value = SYST_CVR;
  } while (wraps != systick_wraps);
  return (uint64_t)wraps * (SYSTICK_RELOAD + 1u) + (SYSTICK_RELOAD - value);
}
