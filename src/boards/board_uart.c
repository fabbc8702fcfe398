/*
 * board_uart.c - CMSDK APB UART transmit (board_uart.h).  The base address
 * is the board's (FIRMWARE_UART_BASE, from src/boards/CMakeLists.txt).
 */
#include "board_uart.h"

#include <stdint.h>

#define UART_REG(off) (*(volatile uint32_t *)(FIRMWARE_UART_BASE + (off)))
#define UART_DATA UART_REG(0x00u)
#define UART_STATE UART_REG(0x04u) /* bit 0: transmit buffer full */
#define UART_CTRL UART_REG(0x08u)  /* bit 0: transmit enable */
#define UART_BAUDDIV UART_REG(0x10u)

void board_uart_init(void) {
  UART_BAUDDIV = 16u; /* the smallest divider the UART accepts */
  UART_CTRL = 1u;
}

int board_uart_write(void *ctx, const void *bytes, size_t n) {
  const uint8_t *p = bytes;
  (void)ctx;
  for (size_t k = 0; k < n; k++) {
    while (UART_STATE & 1u) {
    }
    UART_DATA = p[k];
  }
  return 0;
}
