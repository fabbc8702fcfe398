/*
 * store_cli.c - the helpers every `etkit store` subcommand uses
 * (store_cli.h): opening the database named on the command line with its
 * error printed, and a parsed key=value list as where-conditions.  It sits
 * below cmd_store.c and cmd_store_compare.c, so neither needs the other.
 */
#include "store_cli.h"

#include <string.h>

#include "cli_args.h"
#include "commands.h"

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

int store_cli_check_name(etk_store_t *st, const store_cli_t *c, int matched) {
  const char *name = c->op ? c->op : c->module ? c->module : c->method;
  if (matched || !name) return 0;
  const char *opt = c->op ? "--op" : c->module ? "--module" : "--method";
  int kind = c->op       ? ETK_STORE_TREND_OP
             : c->module ? ETK_STORE_TREND_MODULE
                         : ETK_STORE_TREND_METHOD;
  char near[256];
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_store_closest_names(st, kind, name, near, sizeof near, &err))
    near[0] = '\0';
  size_t n = strlen(name);
  if (strncmp(near, name, n) == 0 && (near[n] == ',' || !near[n]))
    etk_cli_fail(CMD, "%s %.80s: no run the conditions select has it", opt,
                 name);
  else if (c->instruction)
    etk_cli_fail(CMD,
                 "%s %.80s --instruction %.20s matches nothing in the "
                 "selected runs%s%s%s",
                 opt, name, c->instruction, near[0] ? " (closest names: " : "",
                 near, near[0] ? ")" : "");
  else
    etk_cli_fail(CMD, "%s %.80s matches nothing in the selected runs%s%s%s",
                 opt, name, near[0] ? " (closest: " : "", near,
                 near[0] ? ")" : "");
  return ETK_EXIT_TROUBLE;
}
