/*
 * store_cli.h - the bottom of `etkit store`'s three files: the parsed
 * command line and the two helpers every subcommand uses (store_cli.c).
 * cmd_store.c parses the command line and runs add, runs, show, trend and
 * prune; cmd_store_compare.c (cmd_store_compare.h) runs compare, export
 * and report.  Both include this header; neither includes the other's.
 */
#ifndef ETKIT_CLI_STORE_CLI_H
#define ETKIT_CLI_STORE_CLI_H

#include "etkit/store.h"

#define STORE_CLI_MAX_TAGS 64

/* key=value options: --tag, --where, --baseline, --candidate. */
typedef struct store_cli_tags {
  etk_store_tag_t items[STORE_CLI_MAX_TAGS];
  char keys[STORE_CLI_MAX_TAGS][ETK_STORE_TAG_KEY_MAX + 1];
  size_t count;
} store_cli_tags_t;

typedef struct store_cli {
  const char *sub, *db;
  const char *files[256];
  size_t nfiles;
  const char *etrecord, *program, *output, *format_name;
  const char *op, *module, *method;
  store_cli_tags_t tags, where, baseline, candidate;
  double fail_above, threshold, alpha, min_delta;
  int has_fail_above, all_rows, dry_run;
  int wide; /* --wide: every column of runs, show, trend and compare */
  const char *instruction;  /* --instruction ID: with --op, one of them */
  const char *run_time;     /* add --run-time T: the run's own time */
  const char *debug_buffer; /* add --debug-buffer B: its STATS are kept */
  size_t keep_last;
  etk_store_format_t format;
} store_cli_t;

/* Opens c->db for queries (read-only); prints the error; NULL on failure. */
etk_store_t *store_cli_open(const store_cli_t *c, unsigned flags);

/* With --op/--module/--method NAME: when `matched` is 0, prints "NAME
 * matches nothing in DB (closest: ...)" and returns ETK_EXIT_TROUBLE;
 * else 0. */
int store_cli_check_name(etk_store_t *st, const store_cli_t *c, int matched);

/* The where-conditions of a tag list. */
etk_store_where_t store_cli_where(const store_cli_tags_t *t);

/* A box table's durations (the store keeps milliseconds) in one readable
 * unit for the whole table, as `etkit diff` prints them: the columns
 * median, mean, min, max, per_execution, the quantiles (p10 ... p99.9),
 * compare's baseline/candidate and their p90/p99 ("median (µs)") and
 * "base ms"/"cand ms" ("base (µs)"), values rounded to 3 digits.  CSV and
 * JSON keep milliseconds.  ETK_E_NO_MEMORY. */
int store_cli_readable_units(etk_store_table_t *t);

/* Columns of a terminal's table */
#define STORE_CLI_WIDTH 120

/* `store runs`, `show`, `latency` and `compare` (`sub`; compare: its
 * narrow table) as a box table within
 * STORE_CLI_WIDTH columns: the columns that tell runs or operators apart
 * (operators shown as "ops", instruction_id as "iid"), durations in one
 * readable unit (store_cli_readable_units), digests cut to 8 hex digits and
 * times to the minute, then the widest texts (names, modules, tags, the
 * source's start) cut with an ellipsis until the table fits.  --wide skips
 * this. ETK_E_NO_MEMORY. */
int store_cli_fit(etk_store_table_t *t, const char *sub);

#endif
