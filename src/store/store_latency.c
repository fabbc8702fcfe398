/*
 * store_latency.c - the latency sketches of stats-mode runs, merged across
 * the selected runs (etk_store_latency).
 *
 * Rows of latency_sketches (schema version 4) joined to their operators
 * are grouped by (operator name, instruction id, ticks per ms, relative
 * error) in first-seen order (runs oldest first, operators in order); each
 * group's sketches are merged with etk_sketch_merge, which gives exactly
 * the sketch of every duration of every run (etkit/sketch.h "MERGING"),
 * whatever device or run they came from.  Sketches hold source ticks:
 * dividing by ticks_per_ms gives ms; groups of different tick rates stay
 * apart rather than mixing units.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/sketch.h"
#include "store_internal.h"

static const char *const latency_headers[] = {"name",       "instruction_id",
                                              "runs",       "count",
                                              "min",        "p10",
                                              "p50",        "p90",
                                              "p99",        "p99.9",
                                              "mean",       "max",
                                              "error_bound"};
#define LATENCY_COLS 13

typedef struct latency_group {
  char *name;
  int64_t instruction_id;
  double ticks_per_ms;
  int64_t last_run;
  size_t runs;
  etk_sketch_t sketch;
} latency_group_t;

typedef struct latency_ctx {
  latency_group_t *groups;
  size_t count, cap;
  store_bytes_t bytes;
  int failed;
} latency_ctx_t;

static int latency_row(void *ctx, const store_row_t *row) {
  latency_ctx_t *c = ctx;
  const store_engine_ops_t *o = row->ops;
  const char *name = o->get_text(row, 0);
  int64_t instr = o->get_int(row, 1);
  double tpm = o->get_real(row, 2);
  int64_t run = o->get_int(row, 4);
  etk_sketch_t s;
  /* ticks_per_ms and the sketch's bytes, columns 2 and 3 (never NULL) */
  int rc = store_read_sketch(row, 2, &c->bytes, &s);
  if (rc < 0) return c->failed = -rc;
  if (rc == 0) return c->failed = ETK_E_FORMAT;
  for (size_t i = 0; i < c->count; i++) {
    latency_group_t *g = &c->groups[i];
    if (g->instruction_id != instr || g->ticks_per_ms != tpm ||
        etk_sketch_relative_error(&g->sketch) !=
            etk_sketch_relative_error(&s) ||
        strcmp(g->name, name) != 0)
      continue;
    if (etk_sketch_merge(&g->sketch, &s) != ETK_OK)
      return c->failed = ETK_E_FORMAT;
    if (g->last_run != run) g->runs++;
    g->last_run = run;
    return 0;
  }
  if (!store_grow((void **)&c->groups, &c->cap, c->count + 1,
                  sizeof *c->groups))
    return c->failed = ETK_E_NO_MEMORY;
  latency_group_t *g = &c->groups[c->count];
  g->name = strdup(name);
  if (!g->name) return c->failed = ETK_E_NO_MEMORY;
  g->instruction_id = instr;
  g->ticks_per_ms = tpm;
  g->last_run = run;
  g->runs = 1;
  g->sketch = s;
  c->count++;
  return 0;
}

static int latency_table(latency_ctx_t *c, etk_store_table_t *out) {
  static const double qs[5] = {0.10, 0.50, 0.90, 0.99, 0.999};
  for (size_t i = 0; i < c->count; i++) {
    const latency_group_t *g = &c->groups[i];
    const etk_sketch_t *s = &g->sketch;
    etk_cell_t *cells = store_table_row(out);
    uint64_t n = etk_sketch_count(s);
    if (!cells || !store_cell_text(&cells[0], g->name)) return ETK_E_NO_MEMORY;
    etk_cell_set_int(&cells[1], g->instruction_id);
    etk_cell_set_int(&cells[2], (int64_t)g->runs);
    etk_cell_set_int(&cells[3], (int64_t)n);
    etk_cell_set_float(&cells[4], etk_sketch_min(s) / g->ticks_per_ms);
    for (int q = 0; q < 5; q++) {
      double v = NAN;
      if (etk_sketch_quantile(s, qs[q], &v) == ETK_OK) v /= g->ticks_per_ms;
      etk_cell_set_float(&cells[5 + q], v);
    }
    etk_cell_set_float(
        &cells[10], n ? etk_sketch_sum(s) / (double)n / g->ticks_per_ms : NAN);
    etk_cell_set_float(&cells[11], etk_sketch_max(s) / g->ticks_per_ms);
    etk_cell_set_float(&cells[12], etk_sketch_error_bound(s));
  }
  return ETK_OK;
}

int etk_store_latency(etk_store_t *st, const char *name,
                      const etk_store_where_t *where, etk_store_table_t *out,
                      etk_error_t *err) {
  if (!st || !out) return ETK_E_INVALID_ARGUMENT;
  if (store_table_init(out, latency_headers, LATENCY_COLS))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (st->version < 4) return ETK_OK; /* read-only, older schema: none */
  store_sql_t sql = {0};
  etk_strbuf_appends(&sql.text,
                     "SELECT o.name, o.instruction_id, l.ticks_per_ms, "
                     "l.sketch, l.run_id FROM latency_sketches l JOIN "
                     "operators o ON o.run_id = l.run_id AND o.op = l.op "
                     "WHERE 1 = 1");
  if (name) {
    etk_strbuf_appends(&sql.text, " AND o.name = ");
    store_sql_param(&sql, store_text(name));
  }
  etk_strbuf_appends(&sql.text, " AND");
  int rc = store_runs_in(st, "l.run_id", where, &sql, err);
  etk_strbuf_appends(&sql.text, " ORDER BY l.run_id, l.op");
  latency_ctx_t c = {0};
  if (rc == ETK_OK && !store_sql_ok(&sql))
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (rc == ETK_OK)
    rc =
        store_q(st, sql.text.data, sql.params, sql.count, latency_row, &c, err);
  if (rc && rc == c.failed)
    rc = etk_error_set(err, rc, ETK_NO_OFFSET,
                       rc == ETK_E_FORMAT ? "a stored latency sketch is damaged"
                                          : "out of memory");
  if (rc == ETK_OK && latency_table(&c, out))
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < c.count; i++) free(c.groups[i].name);
  free(c.groups);
  free(c.bytes.data);
  store_sql_free(&sql);
  if (rc) etk_store_table_free(out);
  return rc;
}
