/*
 * board_uart.h - the board's first CMSDK APB UART, transmit only (QEMU's
 * -nographic puts it on standard output), for etkit's framed transport.
 */
#ifndef ETKIT_BOARDS_BOARD_UART_H
#define ETKIT_BOARDS_BOARD_UART_H

#include <stddef.h>

void board_uart_init(void);
/* etk_tx_write_fn: blocking writes of every byte; always 0. */
int board_uart_write(void *ctx, const void *bytes, size_t n);

#endif
