/*
 * cmd_store_compare.h - the subcommands of `etkit store` that
 * cmd_store_compare.c runs once cmd_store.c has parsed the command line.
 */
#ifndef ETKIT_CLI_CMD_STORE_COMPARE_H
#define ETKIT_CLI_CMD_STORE_COMPARE_H

#include "store_cli.h"

/* `etkit store compare` and `etkit store export`; exit status. */
int store_cli_compare(store_cli_t *c);
int store_cli_export(store_cli_t *c);
/* `etkit store report`: HTML, or Markdown when -o ends in ".md". */
int store_cli_report(store_cli_t *c);
/* `etkit store drift`: a gate (--fail-above PCT: a p99_abs shift above
 * PCT %, or NaN/Inf appearing, exits 1). */
int store_cli_drift(store_cli_t *c);
/* `etkit store prune` (--dry-run lists the runs it would delete). */
int store_cli_prune(store_cli_t *c);

#endif
