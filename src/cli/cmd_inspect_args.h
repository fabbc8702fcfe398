/*
 * cmd_inspect_args.h - the arguments of `etkit inspect`: the parsed
 * options (cli_t), their parser and what they mean together
 * (cmd_inspect_args.c); cmd_inspect.c does the work.
 */
#ifndef ETKIT_CLI_CMD_INSPECT_ARGS_H
#define ETKIT_CLI_CMD_INSPECT_ARGS_H

#include <stddef.h>

#include "etkit/inspector.h"

#define CMD "inspect"
#define MAX_LIST ETK_INSPECT_MAX_SELECT

typedef struct cli {
  const char *etdump, *etrecord, *debug_buffer, *tsv_path, *output;
  int compare;
  const char *reference; /* --reference FILE.bpte */
  const char *min_snr;   /* --min-snr DB: the gate of --compare_results */
  double min_snr_db;
  int quirks;
  etk_inspector_options_t opt;
  etk_inspector_render_options_t ro;
  /* ETRecord: --method (block NULL = every block), --reference-graph,
   * --module-total */
  const char *method_all;
  const char *reference_graph; /* --reference-graph NAME */
  size_t method_count;
  char method_block[MAX_LIST][64];
  const char *method_name[MAX_LIST];
  size_t total_count;
  const char *totals[MAX_LIST];
  int exact_module;
  int module_match;         /* --module-match, or -1 */
  char needs_etrecord[128]; /* first option that needs --etrecord_path */

  /* --runs [--prompt-tokens N]: the per-run series (inspect_runs.c) */
  int runs;
  const char *prompt_tokens;
} cli_t;

/* Parses argv into *c (which it initialises first).  Returns -1 after
 * --help, 0 to go on, else an exit status (2 usage error, 1 failure), the
 * message already printed. */
int cli_inspect_parse_args(int argc, char **argv, cli_t *c);

/* How --module-total matches: the module view's row (etkit), the exact
 * path (--exact-module) or upstream's substring of a key (quirks). */
etk_inspector_module_match_t cli_inspect_module_match(const cli_t *c);

/* --runs: prints the per-run series of every block (etkit/run_series.h)
 * in c->ro.format to c->output or stdout; exit status (inspect_runs.c). */
int cli_inspect_runs(const cli_t *c, const etk_inspector_t *insp);

/* A stats-mode dump's latency table in c->ro.format to c->output or
 * stdout (and --tsv_path); the options it does not apply are refused in
 * one line.  Exit status (inspect_latency.c). */
int cli_inspect_latency(const cli_t *c, etk_inspector_t *insp);

#endif
