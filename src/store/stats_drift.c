/*
 * stats_drift.c - etk_store_drift: the STATS vectors of two runs (runs
 * recorded at debug level "stats" and added with their debug buffer,
 * table tensor_stats of schema version 5) compared value by value, with
 * the two flags a CI job gates on: NaN or Inf appearing in the candidate,
 * and a p99_abs shift beyond a threshold.
 *
 * Each side is the newest run (highest id) its conditions select that
 * holds STATS.  Values are paired by (block name, instruction id, output
 * index, list item) and, for keys that repeat, by occurrence.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/numerics.h"
#include "etkit/tensor_stats.h"
#include "store_internal.h"

#define NSTATS ETK_TENSOR_STATS_COUNT
#define DEFAULT_SHIFT 0.1

typedef struct stats_value {
  char *block, *name;
  int64_t instruction_id, output_index, item;
  double s[NSTATS];
  int matched;
} stats_value_t;

typedef struct stats_side {
  stats_value_t *v;
  size_t count, cap;
  int failed; /* ETK_E_NO_MEMORY or ETK_E_FORMAT from a row */
  store_bytes_t raw;
} stats_side_t;

static void side_free(stats_side_t *s) {
  for (size_t i = 0; i < s->count; i++) {
    free(s->v[i].block);
    free(s->v[i].name);
  }
  free(s->v);
  free(s->raw.data);
}

static double le_f64(const uint8_t *p) {
  uint64_t u = 0;
  double d;
  for (int i = 7; i >= 0; i--) u = u << 8 | p[i];
  memcpy(&d, &u, sizeof d);
  return d;
}

static int value_row(void *ctx, const store_row_t *row) {
  stats_side_t *s = ctx;
  const store_engine_ops_t *o = row->ops;
  if (!store_grow((void **)&s->v, &s->cap, s->count, sizeof *s->v))
    return s->failed = ETK_E_NO_MEMORY;
  stats_value_t *v = &s->v[s->count];
  memset(v, 0, sizeof *v);
  if (o->get_blob(row, 5, &s->raw) != ETK_OK || s->raw.len != 8u * NSTATS)
    return s->failed = ETK_E_FORMAT;
  v->block = strdup(o->get_text(row, 0));
  v->name = strdup(o->get_text(row, 1));
  if (!v->block || !v->name) {
    free(v->block);
    free(v->name);
    return s->failed = ETK_E_NO_MEMORY;
  }
  v->instruction_id = o->get_int(row, 2);
  v->output_index = o->get_int(row, 3);
  v->item = o->get_int(row, 4);
  for (int i = 0; i < NSTATS; i++) v->s[i] = le_f64(s->raw.data + 8 * i);
  s->count++;
  return ETK_OK;
}

static int id_row(void *ctx, const store_row_t *row) {
  *(int64_t *)ctx = row->ops->is_null(row, 0) ? 0 : row->ops->get_int(row, 0);
  return ETK_OK;
}

/* The newest run of `where` with STATS (*id, 0 when none) and its values. */
static int load_side(etk_store_t *st, const etk_store_where_t *where,
                     int64_t *id, stats_side_t *side, etk_error_t *err) {
  store_sql_t sql = {0};
  *id = 0;
  etk_strbuf_appends(&sql.text,
                     "SELECT max(t.run_id) FROM tensor_stats t WHERE");
  int rc = store_runs_in(st, "t.run_id", where, &sql, err);
  if (rc == ETK_OK)
    rc = store_q(st, sql.text.data, sql.params, sql.count, id_row, id, err);
  store_sql_free(&sql);
  if (rc != ETK_OK || *id == 0) return rc;
  store_value_t p = store_int(*id);
  rc = store_q(st,
               "SELECT block, name, instruction_id, output_index, item, stats "
               "FROM tensor_stats WHERE run_id = $1 ORDER BY k",
               &p, 1, value_row, side, err);
  if (side->failed)
    rc = etk_error_set(err, side->failed, ETK_NO_OFFSET,
                       side->failed == ETK_E_NO_MEMORY
                           ? "out of memory"
                           : "run %lld: a stored STATS vector is damaged",
                       (long long)*id);
  return rc;
}

static const char *const headers[] = {"block",
                                      "instruction",
                                      "output",
                                      "item",
                                      "name",
                                      "baseline_p99_abs",
                                      "candidate_p99_abs",
                                      "p99_shift",
                                      "baseline_nan",
                                      "candidate_nan",
                                      "baseline_inf",
                                      "candidate_inf",
                                      "nan_inf_appears",
                                      "drift",
                                      "status"};
#define NCOLS (sizeof headers / sizeof headers[0])

/* One row of the table: a (baseline, candidate) pair, either may be NULL. */
static int add_row(etk_store_drift_t *d, const stats_value_t *b,
                   const stats_value_t *c, double max_shift) {
  etk_cell_t *row = store_table_row(&d->table);
  const stats_value_t *k = b ? b : c;
  if (!row || !store_cell_text(&row[0], k->block) ||
      !store_cell_text(&row[4], k->name))
    return ETK_E_NO_MEMORY;
  etk_cell_set_int(&row[1], k->instruction_id);
  etk_cell_set_int(&row[2], k->output_index);
  if (k->item >= 0) etk_cell_set_int(&row[3], k->item);
  const stats_value_t *side[2] = {b, c};
  for (int s = 0; s < 2; s++) {
    if (!side[s]) continue;
    etk_cell_set_float(&row[5 + s], side[s]->s[ETK_STAT_P99_ABS]);
    etk_cell_set_int(&row[8 + s], (int64_t)side[s]->s[ETK_STAT_NAN_COUNT]);
    etk_cell_set_int(&row[10 + s], (int64_t)side[s]->s[ETK_STAT_INF_COUNT]);
  }
  const char *status = b ? "only in baseline" : "only in candidate";
  if (b && c) {
    double shift = etk_stats_p99_shift(b->s, c->s);
    int appears =
        (c->s[ETK_STAT_NAN_COUNT] > 0 || c->s[ETK_STAT_INF_COUNT] > 0) &&
        !(b->s[ETK_STAT_NAN_COUNT] > 0 || b->s[ETK_STAT_INF_COUNT] > 0);
    int drift = appears || shift > max_shift;
    d->compared++;
    d->drifting += drift != 0;
    etk_cell_set_float(&row[7], shift);
    etk_cell_set_bool(&row[12], appears);
    etk_cell_set_bool(&row[13], drift);
    status = appears ? "drift: NaN/Inf appears"
             : drift ? "drift: p99_abs shift"
                     : "ok";
  }
  return store_cell_text(&row[14], status) ? ETK_OK : ETK_E_NO_MEMORY;
}

static int same_key(const stats_value_t *a, const stats_value_t *b) {
  return a->instruction_id == b->instruction_id &&
         a->output_index == b->output_index && a->item == b->item &&
         strcmp(a->block, b->block) == 0;
}

int etk_store_drift(etk_store_t *st, const etk_store_where_t *baseline,
                    const etk_store_where_t *candidate, double max_shift,
                    etk_store_drift_t *out, etk_error_t *err) {
  if (!st || !baseline || !candidate || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  memset(out, 0, sizeof *out);
  out->max_shift = max_shift == max_shift ? max_shift : DEFAULT_SHIFT;
  if (st->version < 5)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "the store (schema version %lld) holds no STATS: "
                         "add a run to it to migrate it",
                         (long long)st->version);
  stats_side_t side[2];
  memset(side, 0, sizeof side);
  const etk_store_where_t *w[2] = {baseline, candidate};
  int64_t ids[2] = {0, 0};
  int rc = ETK_OK;
  for (int s = 0; s < 2 && rc == ETK_OK; s++) {
    rc = load_side(st, w[s], &ids[s], &side[s], err);
    if (rc == ETK_OK && ids[s] == 0)
      rc = etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "no run matching the %s conditions holds STATS "
                         "(record with --debug-level stats, add with "
                         "--debug-buffer)",
                         s ? "--candidate" : "--baseline");
  }
  out->baseline_run = ids[0];
  out->candidate_run = ids[1];
  if (rc == ETK_OK && store_table_init(&out->table, headers, NCOLS) != ETK_OK)
    rc = ETK_E_NO_MEMORY;
  for (size_t i = 0; rc == ETK_OK && i < side[0].count; i++) {
    stats_value_t *b = &side[0].v[i], *c = NULL;
    for (size_t j = 0; j < side[1].count && !c; j++)
      if (!side[1].v[j].matched && same_key(b, &side[1].v[j]))
        c = &side[1].v[j];
    if (c) c->matched = 1;
    rc = add_row(out, b, c, out->max_shift);
  }
  for (size_t j = 0; rc == ETK_OK && j < side[1].count; j++)
    if (!side[1].v[j].matched)
      rc = add_row(out, NULL, &side[1].v[j], out->max_shift);
  if (rc == ETK_E_NO_MEMORY)
    etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  side_free(&side[0]);
  side_free(&side[1]);
  if (rc != ETK_OK) etk_store_drift_free(out);
  return rc;
}

void etk_store_drift_free(etk_store_drift_t *d) {
  if (d) etk_store_table_free(&d->table);
}
