/*
 * store_cli.c - the helpers every `etkit store` subcommand uses
 * (store_cli.h): opening the database named on the command line with its
 * error printed, and a parsed key=value list as where-conditions.  It sits
 * below cmd_store.c and cmd_store_compare.c, so neither needs the other.
 */
#include "store_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The header of a duration column without its unit ("median", "base"),
 * or NULL for another column. */
static const char *duration_column(const char *h) {
  static const char *const names[] = {
      "median",        "mean",         "min",           "max",
      "per_execution", "per exec",     "p10",           "p50",
      "p90",           "p99",          "p99.9",         "baseline",
      "candidate",     "baseline_p90", "candidate_p90", "baseline_p99",
      "candidate_p99"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (strcmp(h, names[k]) == 0) return names[k];
  if (strcmp(h, "base ms") == 0) return "base";
  if (strcmp(h, "cand ms") == 0) return "cand";
  return NULL;
}

int store_cli_readable_units(etk_store_table_t *t) {
  double largest = 0;
  for (size_t c = 0; c < t->cols; c++) {
    if (!duration_column(t->headers[c])) continue;
    for (size_t r = 0; r < t->rows; r++) {
      const etk_cell_t *cell = &t->cells[r * t->cols + c];
      if (cell->kind == ETK_CELL_FLOAT && fabs(cell->f) > largest)
        largest = fabs(cell->f);
    }
  }
  double per_second;
  const char *unit = etk_duration_unit(largest * 1e-3, &per_second);
  for (size_t c = 0; c < t->cols; c++) {
    const char *name = duration_column(t->headers[c]);
    if (!name) continue;
    size_t n = strlen(name) + strlen(unit) + 4;
    char *h = malloc(n);
    if (!h) return ETK_E_NO_MEMORY;
    snprintf(h, n, "%s (%s)", name, unit);
    free(t->headers[c]);
    t->headers[c] = h;
    for (size_t r = 0; r < t->rows; r++) {
      etk_cell_t *cell = &t->cells[r * t->cols + c];
      if (cell->kind == ETK_CELL_FLOAT)
        cell->f = etk_duration_round(cell->f * 1e-3 * per_second);
    }
  }
  return ETK_OK;
}
