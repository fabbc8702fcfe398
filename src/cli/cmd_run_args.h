/*
 * cmd_run_args.h - the arguments of `etkit run`: the parsed options
 * (options_t) and their parser (cmd_run_args.c); cmd_run.c does the runs.
 */
#ifndef ETKIT_CLI_CMD_RUN_ARGS_H
#define ETKIT_CLI_CMD_RUN_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "run_flight.h"
#include "run_support.h"

#define CMD "run"
#define MAX_INPUTS CLI_MAX_INPUTS
#define MAX_RUNS 1000000

typedef struct options {
  const char *program, *method, *output_dir, *etdump, *debug_buffer;
  const char *inputs_from; /* --inputs-from ETRECORD */
  const char *inputs[MAX_INPUTS];
  size_t input_count;
  unsigned long iterations, warmup;
  int allocation_events; /* --allocation-events (ETK_CLI_FLAG) */
  int no_calibrate;      /* --no-calibrate (ETK_CLI_FLAG) */
  int auto_debug_buffer; /* the debug buffer path was derived */
  char debug_path[4096]; /* the derived one */
  int debug_level, profile_level, verify, no_allocation_events;
  double rtol, atol;
  uint64_t max_memory;
  cli_flight_options_t flight; /* run_flight.h */
} options_t;

/* Parses argv into *o (which it initialises first) and derives the debug
 * buffer's path when a debug level needs one.  Returns -1 after --help, 0
 * to go on, else an exit status (2 usage error, 1 failure), the message
 * already printed. */
int cli_run_parse_args(int argc, char **argv, options_t *o);

#endif
