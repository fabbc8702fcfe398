/*
 * store_cli.c - the helpers every `etkit store` subcommand uses
 * (store_cli.h): opening the database named on the command line with its
 * error printed, and a parsed key=value list as where-conditions.  It sits
 * below cmd_store.c and cmd_store_compare.c, so neither needs the other.
 */
#include "store_cli.h"

#include "cli_args.h"

#define CMD "store"

etk_store_t *store_cli_open(const store_cli_t *c, unsigned flags) {
  etk_store_t *st = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_store_open(c->db, flags, &st, &err) != ETK_OK) {
    etk_cli_fail_error(CMD, &err);
    return NULL;
  }
  return st;
}

etk_store_where_t store_cli_where(const store_cli_tags_t *t) {
  etk_store_where_t w = {t->items, t->count};
  return w;
}
