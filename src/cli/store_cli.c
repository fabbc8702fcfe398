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
#include "cli_term.h"
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

/* ------------------------------------------------- tables in 120 columns */

/* A column of a fitted table: the store's header, the one shown, the
 * fewest code points its texts are cut to (0: never cut) and whether a cut
 * keeps the text's end (a path's file, a kernel's overload). */
typedef struct fit_col {
  const char *name, *shown;
  size_t floor;
  int keep_end;
} fit_col_t;

/* runs and show in a terminal: the columns most runs tell apart (--wide
 * adds run_time, backend, branch, blocks; show's op_type, delegate). */
static const fit_col_t runs_cols[] = {
    {"id", "id", 0, 0},           {"added", "added", 0, 0},
    {"digest", "digest", 0, 0},   {"model", "model", 6, 0},
    {"device", "device", 6, 0},   {"commit", "commit", 6, 0},
    {"tags", "tags", 6, 0},       {"operators", "ops", 0, 0},
    {"samples", "samples", 0, 0}, {"source", "source", 10, 1}};
static const fit_col_t show_cols[] = {{"block", "block", 8, 0},
                                      {"operator", "operator", 16, 0},
                                      {"instruction_id", "iid", 0, 0},
                                      {"module", "module", 12, 0},
                                      {"samples", "samples", 0, 0},
                                      {"median", "median", 0, 0},
                                      {"mean", "mean", 0, 0},
                                      {"min", "min", 0, 0},
                                      {"max", "max", 0, 0}};

/* latency: count, the median, the tail and the bound (--wide adds p10,
 * p99.9, mean and the number of runs). */
static const fit_col_t latency_cols[] = {
    {"name", "name", 16, 0},       {"instruction_id", "iid", 0, 0},
    {"count", "count", 0, 0},      {"min", "min", 0, 0},
    {"p50", "p50", 0, 0},          {"p90", "p90", 0, 0},
    {"p99", "p99", 0, 0},          {"max", "max", 0, 0},
    {"error_bound", "bound", 0, 0}};

/* compare: etk_store_comparison_table_narrow's columns, the names (already
 * their last 26 characters) cut further when wide figures need the room. */
static const fit_col_t compare_cols[] = {{"name", "name", 10, 1},
                                         {"instr", "instr", 0, 0},
                                         {"base ms", "base ms", 0, 0},
                                         {"cand ms", "cand ms", 0, 0},
                                         {"delta %", "delta %", 0, 0},
                                         {"95 % CI", "95 % CI", 0, 0},
                                         {"q", "q", 0, 0},
                                         {"direction", "direction", 0, 0}};

static size_t points(const char *s, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) n += ((unsigned char)s[i] & 0xc0u) != 0x80u;
  return n;
}

/* The widest text of column c (header included), in code points. */
static size_t column_points(const etk_store_table_t *t, size_t c) {
  size_t w = points(t->headers[c], strlen(t->headers[c]));
  for (size_t r = 0; r < t->rows; r++) {
    const etk_cell_t *cell = &t->cells[r * t->cols + c];
    if (cell->kind == ETK_CELL_TEXT) {
      size_t n = points(cell->text, cell->len);
      if (n > w) w = n;
    }
  }
  return w;
}

/* Cuts every text of column c to `keep` code points, the last one an
 * ellipsis (a source path keeps its end: "…/run/etdump.etdp"). */
static int cut_column(etk_store_table_t *t, size_t c, size_t keep,
                      int keep_end) {
  for (size_t r = 0; r < t->rows; r++) {
    etk_cell_t *cell = &t->cells[r * t->cols + c];
    if (cell->kind != ETK_CELL_TEXT || points(cell->text, cell->len) <= keep)
      continue;
    size_t cut = 0, seen = 0; /* bytes of the keep - 1 code points kept */
    if (keep_end) {
      for (cut = cell->len; cut > 0 && seen < keep - 1;)
        seen += ((unsigned char)cell->text[--cut] & 0xc0u) != 0x80u;
    } else {
      for (; cut < cell->len; cut++)
        if (((unsigned char)cell->text[cut] & 0xc0u) != 0x80u &&
            seen++ == keep - 1)
          break;
    }
    size_t part = keep_end ? cell->len - cut : cut;
    char *s = malloc(part + 4);
    if (!s) return ETK_E_NO_MEMORY;
    if (keep_end) {
      memcpy(s, "\xe2\x80\xa6", 3);
      memcpy(s + 3, cell->text + cut, part);
    } else {
      memcpy(s, cell->text, part);
      memcpy(s + part, "\xe2\x80\xa6", 3);
    }
    s[part + 3] = '\0';
    free((char *)cell->text);
    cell->text = s;
    cell->len = part + 3;
  }
  return ETK_OK;
}

/* Keeps columns cols[0..n) of t (in that order, headers renamed);
 * ETK_E_INVALID_ARGUMENT, t unchanged, when one of them is not in t. */
static int keep_columns(etk_store_table_t *t, const fit_col_t *cols, size_t n) {
  size_t from[16];
  for (size_t k = 0; k < n; k++) {
    from[k] = SIZE_MAX;
    for (size_t c = 0; c < t->cols; c++)
      if (strcmp(t->headers[c], cols[k].name) == 0) from[k] = c;
    if (from[k] == SIZE_MAX) return ETK_E_INVALID_ARGUMENT;
  }
  etk_cell_t *cells = malloc((t->rows ? t->rows : 1) * n * sizeof *cells);
  char **headers = malloc(n * sizeof *headers);
  if (!cells || !headers) {
    free(cells);
    free(headers);
    return ETK_E_NO_MEMORY;
  }
  for (size_t k = 0; k < n; k++) {
    size_t len = strlen(cols[k].shown) + 1;
    headers[k] = malloc(len);
    if (headers[k]) memcpy(headers[k], cols[k].shown, len);
    if (!headers[k]) {
      while (k) free(headers[--k]);
      free(cells);
      free(headers);
      return ETK_E_NO_MEMORY;
    }
  }
  for (size_t r = 0; r < t->rows; r++)
    for (size_t k = 0; k < n; k++) {
      etk_cell_t *src = &t->cells[r * t->cols + from[k]];
      cells[r * n + k] = *src;
      src->kind = ETK_CELL_NONE; /* moved: not freed with the rest */
    }
  size_t rows = t->rows;
  etk_store_table_free(t);
  t->rows = t->cap = rows;
  t->cells = cells;
  t->headers = headers;
  t->cols = n;
  return ETK_OK;
}

int store_cli_fit(etk_store_table_t *t, const char *sub) {
  int runs = strcmp(sub, "runs") == 0, latency = strcmp(sub, "latency") == 0,
      compare = strcmp(sub, "compare") == 0;
  const fit_col_t *cols = runs      ? runs_cols
                          : latency ? latency_cols
                          : compare ? compare_cols
                                    : show_cols;
  size_t n = runs      ? sizeof runs_cols / sizeof *runs_cols
             : latency ? sizeof latency_cols / sizeof *latency_cols
             : compare ? sizeof compare_cols / sizeof *compare_cols
                       : sizeof show_cols / sizeof *show_cols;
  int rc = keep_columns(t, cols, n);
  if (rc == ETK_E_INVALID_ARGUMENT) /* not the columns known here */
    return store_cli_readable_units(t);
  if (rc == ETK_OK) rc = store_cli_readable_units(t);
  if (rc != ETK_OK) return rc;
  size_t rows = t->rows;
  if (runs) /* digests are told apart by 8 hex digits, times by minutes */
    for (size_t r = 0; r < rows; r++) {
      etk_cell_t *d = &t->cells[r * n + 2], *a = &t->cells[r * n + 1];
      if (d->kind == ETK_CELL_TEXT && d->len > 8) d->len = 8;
      if (a->kind == ETK_CELL_TEXT && a->len > 16) a->len = 16;
    }
  /* measure, then cut the widest cuttable columns down by the excess
   * (never below their floor); the numbers' widths do not change */
  for (int round = 0; round < 4; round++) {
    etk_cli_width_t w;
    etk_render_sink_t s;
    etk_cli_width_sink_init(&s, &w);
    etk_error_t err;
    etk_error_clear(&err);
    rc = etk_store_table_render(t, ETK_STORE_FORMAT_TABLE, &s, &err);
    if (rc == ETK_OK) rc = etk_render_sink_flush(&s);
    if (rc != ETK_OK || w.widest <= STORE_CLI_WIDTH) return rc;
    size_t excess = w.widest - STORE_CLI_WIDTH, width[16];
    for (size_t k = 0; k < n; k++)
      width[k] = cols[k].floor ? column_points(t, k) : 0;
    while (excess) { /* one code point off the widest column above floor */
      size_t best = SIZE_MAX;
      for (size_t k = 0; k < n; k++)
        if (cols[k].floor && width[k] > cols[k].floor &&
            (best == SIZE_MAX || width[k] > width[best]))
          best = k;
      if (best == SIZE_MAX) break; /* every column at its floor */
      width[best]--;
      excess--;
    }
    for (size_t k = 0; k < n && rc == ETK_OK; k++)
      if (cols[k].floor && width[k] < column_points(t, k))
        rc = cut_column(t, k, width[k], cols[k].keep_end);
    if (rc != ETK_OK || excess) return rc;
  }
  return ETK_OK;
}
