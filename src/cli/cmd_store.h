/*
 * cmd_store.h - what the two files of `etkit store` share: the parsed
 * command line (cmd_store.c parses it and runs add, runs, show, trend and
 * prune; cmd_store_compare.c runs compare and export).
 */
#ifndef ETKIT_CLI_CMD_STORE_H
#define ETKIT_CLI_CMD_STORE_H

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
  double fail_above, threshold, alpha;
  int has_fail_above;
  size_t keep_last;
  etk_store_format_t format;
} store_cli_t;

/* `etkit store compare` and `etkit store export`; exit status. */
int store_cli_compare(store_cli_t *c);
int store_cli_export(store_cli_t *c);
/* `etkit store report`: HTML, or Markdown when -o ends in ".md". */
int store_cli_report(store_cli_t *c);

/* Opens c->db for queries (read-only); prints the error; NULL on failure. */
etk_store_t *store_cli_open(const store_cli_t *c, unsigned flags);

/* The where-conditions of a tag list. */
etk_store_where_t store_cli_where(const store_cli_tags_t *t);

#endif
