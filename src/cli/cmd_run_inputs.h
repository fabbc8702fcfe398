/*
 * cmd_run_inputs.h - `etkit run --inputs-from ETRECORD` (cmd_run_inputs.c):
 * the ETRecord's representative inputs as temporary .npy inputs.
 */
#ifndef ETKIT_CLI_CMD_RUN_INPUTS_H
#define ETKIT_CLI_CMD_RUN_INPUTS_H

#include "cmd_run_args.h"

typedef struct cli_run_inputs {
  char dir[4096];
  char *paths[MAX_INPUTS]; /* malloc'd */
  size_t count;            /* files written (removed by cli_run_inputs_free) */
} cli_run_inputs_t;

/* Writes the representative inputs of o->inputs_from (case 0) and points
 * o->inputs at them.  0, or 1 with the message printed (nothing left). */
int cli_run_inputs_from(options_t *o, cli_run_inputs_t *keep);

/* Removes the files and the folder. */
void cli_run_inputs_free(cli_run_inputs_t *keep);

#endif
