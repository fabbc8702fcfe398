/*
 * cmd_run_device.h - `etkit run PROGRAM --target BOARD`: the run on an
 * emulated Cortex-M board (cmd_run_device.c).
 */
#ifndef ETKIT_CLI_CMD_RUN_DEVICE_H
#define ETKIT_CLI_CMD_RUN_DEVICE_H

#include <stddef.h>

/* 1 when argv asks for a device run (--target). */
int cli_run_wants_device(int argc, char **argv);
/* The device run; the exit status. */
int etk_cmd_run_device(int argc, char **argv);
/* --transport uart: decodes the UART log into dir (out/ for outputs);
 * 0, or -1 with one line in problem (cmd_run_device_uart.c). */
int cli_device_collect_uart(const char *log, const char *dir, char *problem,
                            size_t problem_size);

struct options;
/* The --input files against the method's inputs (cmd_run_device_inputs.c):
 * 0, or 1 with the one-line message in why. */
int cli_device_check_inputs(const struct options *o, char *why, size_t size);

#endif
