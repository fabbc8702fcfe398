/*
 * cmd_run_device.h - `etkit run PROGRAM --target BOARD`: the run on an
 * emulated Cortex-M board (cmd_run_device.c).
 */
#ifndef ETKIT_CLI_CMD_RUN_DEVICE_H
#define ETKIT_CLI_CMD_RUN_DEVICE_H

/* 1 when argv asks for a device run (--target). */
int cli_run_wants_device(int argc, char **argv);
/* The device run; the exit status. */
int etk_cmd_run_device(int argc, char **argv);

#endif
