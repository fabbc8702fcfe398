/*
 * compare.c - etk_store_compare: every operator of one set of runs against
 * another, with the noise-aware engine of etkit/significance.h.
 *
 * DATA LAYOUT
 *   An operator is identified across runs by (method, name, instruction
 *   id): the key "method\x1fname\x1fid" goes into an etk_pooled_t with
 *   every raw sample of every selected run of its side, and op_t[id]
 *   keeps its descriptive columns.  Both sides stream in one query (each
 *   operator row read once, with a flag per side saying whose runs hold
 *   it), so a run on both sides (an A/A comparison) feeds both.
 *
 * STATISTICS
 *   etk_pooled_compare (etkit/significance.h): per operator present on
 *   both sides the medians, Hodges-Lehmann shift and interval and the
 *   Mann-Whitney p; Benjamini-Hochberg over all of them; significant AND
 *   at least rule->min_pct.  Significant changes first (largest slow-down
 *   first), then the rest by |delta|.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* What a compared operator shows besides its numbers (first row seen). */
typedef struct op {
  char *method, *name, *op_type, *module, *source;
  int64_t instruction_id;
} op_t;

typedef struct cmp_ctx {
  etk_pooled_t *pool;
  op_t *ops; /* by pool id */
  size_t cap;
  etk_strbuf_t key;
  store_samples_t s;
  int failed;
} cmp_ctx_t;

static char *dup_or_null(const store_row_t *row, int col) {
  return row->ops->is_null(row, col) ? NULL
                                     : strdup(row->ops->get_text(row, col));
}

/* Keeps the descriptive columns of a key seen for the first time. */
static int describe(cmp_ctx_t *c, size_t id, const store_row_t *row) {
  const store_engine_ops_t *o = row->ops;
  while (id >= c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    op_t *p = realloc(c->ops, cap * sizeof *p);
    if (!p) return ETK_E_NO_MEMORY;
    memset(p + c->cap, 0, (cap - c->cap) * sizeof *p);
    c->ops = p;
    c->cap = cap;
  }
  op_t *op = &c->ops[id];
  if (op->name) return ETK_OK;
  op->method = strdup(o->get_text(row, 0));
  op->name = strdup(o->get_text(row, 1));
  op->instruction_id = o->get_int(row, 2);
  op->op_type = dup_or_null(row, 3);
  op->module = dup_or_null(row, 4);
  op->source = dup_or_null(row, 7);
  return op->method && op->name ? ETK_OK : ETK_E_NO_MEMORY;
}

/* One operator row of the selected runs: its samples go to each side
 * whose runs include it (columns 8 and 9; both in an A/A comparison). */
static int cmp_row(void *ctx, const store_row_t *row) {
  cmp_ctx_t *c = ctx;
  const store_engine_ops_t *o = row->ops;
  etk_strbuf_clear(&c->key);
  etk_strbuf_printf(&c->key, "%s\x1f%s\x1f%lld", o->get_text(row, 0),
                    o->get_text(row, 1), (long long)o->get_int(row, 2));
  size_t id = SIZE_MAX;
  int rc = store_read_samples(row, 5, &c->s);
  if (rc) return c->failed = rc;
  if (c->key.failed) return c->failed = ETK_E_NO_MEMORY;
  for (int side = 0; side < 2; side++) {
    if (!o->get_int(row, 8 + side)) continue;
    for (size_t i = 0; i < c->s.count; i++)
      if (etk_pooled_add(c->pool, side, c->key.data, c->key.len,
                         c->s.durations[i], &id))
        return c->failed = ETK_E_NO_MEMORY;
  }
  if (id != SIZE_MAX && describe(c, id, row))
    return c->failed = ETK_E_NO_MEMORY;
  return 0;
}

static int count_row(void *ctx, const store_row_t *row) {
  *(size_t *)ctx = (size_t)row->ops->get_int(row, 0);
  return 0;
}

/* *runs gets the number of runs `where` selects (ETK_E_NOT_FOUND for
 * none). */
static int count_side(etk_store_t *st, const etk_store_where_t *where, int side,
                      size_t *runs, etk_error_t *err) {
  store_sql_t sql = {0};
  etk_strbuf_appends(&sql.text, "SELECT count(*) FROM runs r WHERE 1 = 1");
  int rc = store_where_sql(st, where, &sql, err);
  if (rc == ETK_OK)
    rc =
        store_q(st, sql.text.data, sql.params, sql.count, count_row, runs, err);
  store_sql_free(&sql);
  if (rc == ETK_OK && *runs == 0)
    rc = etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "no run matches the %s conditions",
                       side ? "--candidate" : "--baseline");
  return rc;
}

/* Streams both sides' operators in one query, so each operator row is
 * read once even when it is on both sides: the selected runs are two IN
 * sets, and each row says which of them holds it. */
static int load_sides(etk_store_t *st, const etk_store_where_t *const w[2],
                      const etk_store_ops_t *ops, cmp_ctx_t *c,
                      etk_error_t *err) {
  store_sql_t sql = {0};
  etk_strbuf_appends(&sql.text,
                     "SELECT b.name, o.name, o.instruction_id, o.op_type, "
                     "o.module, o.durations, o.executions, o.source");
  int rc = ETK_OK;
  for (int side = 0; side < 2 && rc == ETK_OK; side++) {
    etk_strbuf_appends(&sql.text, ", CASE WHEN");
    rc = store_runs_in(st, "o.run_id", w[side], &sql, err);
    etk_strbuf_appends(&sql.text, " THEN 1 ELSE 0 END");
  }
  etk_strbuf_appends(&sql.text,
                     " FROM operators o JOIN blocks b ON b.run_id = o.run_id "
                     "AND b.block = o.block WHERE 1 = 1");
  if (ops->name) {
    etk_strbuf_appends(&sql.text, " AND o.name = ");
    store_sql_param(&sql, store_text(ops->name));
  } else if (!ops->all_rows) {
    etk_strbuf_appends(&sql.text, " AND o.name <> 'OPERATOR_CALL'");
  }
  if (ops->has_instruction) {
    etk_strbuf_appends(&sql.text, " AND o.instruction_id = ");
    store_sql_param(&sql, store_int(ops->instruction_id));
  }
  etk_strbuf_appends(&sql.text, " AND (");
  if (rc == ETK_OK) rc = store_runs_in(st, "o.run_id", w[0], &sql, err);
  etk_strbuf_appends(&sql.text, " OR");
  if (rc == ETK_OK) rc = store_runs_in(st, "o.run_id", w[1], &sql, err);
  etk_strbuf_appendc(&sql.text, ')');
  if (rc == ETK_OK)
    rc = store_q(st, sql.text.data, sql.params, sql.count, cmp_row, c, err);
  store_sql_free(&sql);
  if (rc == c->failed && c->failed) rc = store_samples_error(c->failed, err);
  return rc;
}

/* Moves the pool's comparison into out->changes. */
static int build_changes(cmp_ctx_t *c, const etk_change_rule_t *rule,
                         etk_store_comparison_t *out) {
  etk_pooled_change_t *pc = NULL;
  size_t n = 0;
  int rc = etk_pooled_compare(c->pool, rule, &pc, &n);
  out->changes = calloc(n ? n : 1, sizeof *out->changes);
  if (rc || !out->changes) {
    free(pc);
    return ETK_E_NO_MEMORY;
  }
  for (size_t i = 0; i < etk_pooled_count(c->pool); i++) {
    size_t nb = etk_pooled_samples(c->pool, i, 0);
    size_t nc = etk_pooled_samples(c->pool, i, 1);
    out->only_baseline += nb && !nc;
    out->only_candidate += nc && !nb;
  }
  for (size_t i = 0; i < n; i++) {
    etk_store_change_t *ch = &out->changes[i];
    op_t *op = &c->ops[pc[i].id];
    ch->method = op->method;
    ch->name = op->name;
    ch->op_type = op->op_type;
    ch->module = op->module;
    ch->source = op->source;
    ch->instruction_id = op->instruction_id;
    op->method = op->name = op->op_type = op->module = op->source = NULL;
    ch->shift = pc[i].shift;
    ch->q_value = pc[i].q_value;
    ch->delta_pct = pc[i].delta_pct;
    ch->ci_low_pct = pc[i].ci_low_pct;
    ch->ci_high_pct = pc[i].ci_high_pct;
    ch->significant = pc[i].significant;
    ch->direction = pc[i].direction;
  }
  out->count = n;
  free(pc);
  return ETK_OK;
}

static void free_ctx(cmp_ctx_t *c) {
  for (size_t i = 0; i < c->cap; i++) {
    free(c->ops[i].method);
    free(c->ops[i].name);
    free(c->ops[i].op_type);
    free(c->ops[i].module);
    free(c->ops[i].source);
  }
  free(c->ops);
  etk_pooled_free(c->pool);
  etk_strbuf_free(&c->key);
  store_samples_free(&c->s);
}

int etk_store_compare(etk_store_t *st, const etk_store_where_t *baseline,
                      const etk_store_where_t *candidate,
                      const etk_store_ops_t *ops, const etk_change_rule_t *rule,
                      etk_store_comparison_t *out, etk_error_t *err) {
  if (!st || !out) return ETK_E_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  etk_store_ops_t every = {0};
  if (!ops) ops = &every;
  etk_change_rule_t def;
  if (!rule) {
    etk_change_rule_init(&def);
    rule = &def;
  }
  cmp_ctx_t c;
  memset(&c, 0, sizeof c);
  if (!(c.pool = etk_pooled_new()))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  const etk_store_where_t *const w[2] = {baseline, candidate};
  int rc = count_side(st, baseline, 0, &out->baseline_runs, err);
  if (rc == ETK_OK)
    rc = count_side(st, candidate, 1, &out->candidate_runs, err);
  if (rc == ETK_OK) rc = load_sides(st, w, ops, &c, err);
  if (rc == ETK_OK && build_changes(&c, rule, out) != ETK_OK)
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  free_ctx(&c);
  if (rc) etk_store_comparison_free(out);
  return rc;
}

void etk_store_comparison_free(etk_store_comparison_t *c) {
  if (!c) return;
  for (size_t i = 0; c->changes && i < c->count; i++) {
    free(c->changes[i].method);
    free(c->changes[i].name);
    free(c->changes[i].op_type);
    free(c->changes[i].module);
    free(c->changes[i].source);
  }
  free(c->changes);
  memset(c, 0, sizeof *c);
}

const etk_store_change_t *etk_store_comparison_failing(
    const etk_store_comparison_t *c, double pct) {
  for (size_t i = 0; c && i < c->count; i++)
    if (etk_change_fails(c->changes[i].significant, c->changes[i].direction,
                         c->changes[i].delta_pct, pct))
      return &c->changes[i];
  return NULL;
}

int etk_store_comparison_fails(const etk_store_comparison_t *c, double pct) {
  return etk_store_comparison_failing(c, pct) != NULL;
}

static const char *const cmp_headers[] = {
    "name",     "instruction_id", "op_type",     "module",   "method",
    "baseline", "candidate",      "delta_pct",   "ci_low",   "ci_high",
    "p_value",  "q_value",        "significant", "direction"};
#define CMP_COLS 14

int etk_store_comparison_table(const etk_store_comparison_t *c,
                               etk_store_table_t *out, etk_error_t *err) {
  if (!c || !out) return ETK_E_INVALID_ARGUMENT;
  if (store_table_init(out, cmp_headers, CMP_COLS))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < c->count; i++) {
    const etk_store_change_t *ch = &c->changes[i];
    etk_cell_t *cells = store_table_row(out);
    bool ok =
        cells && store_cell_text(&cells[0], ch->name) &&
        store_cell_text(&cells[2], ch->op_type) &&
        store_cell_text(&cells[3], ch->module) &&
        store_cell_text(&cells[4], ch->method) &&
        store_cell_text(&cells[13], etk_change_direction_name(ch->direction));
    if (!ok) {
      etk_store_table_free(out);
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    }
    etk_cell_set_int(&cells[1], ch->instruction_id);
    etk_cell_set_float(&cells[5], ch->shift.baseline);
    etk_cell_set_float(&cells[6], ch->shift.candidate);
    etk_cell_set_float(&cells[7], ch->delta_pct);
    etk_cell_set_float(&cells[8], ch->ci_low_pct);
    etk_cell_set_float(&cells[9], ch->ci_high_pct);
    etk_cell_set_float(&cells[10], ch->shift.p_value);
    etk_cell_set_float(&cells[11], ch->q_value);
    etk_cell_set_bool(&cells[12], ch->significant);
  }
  return ETK_OK;
}

static const char *const narrow_headers[] = {"name",    "instr",    "base ms",
                                             "cand ms", "delta %",  "95 % CI",
                                             "q",       "direction"};
#define NARROW_COLS 8
#define NARROW_NAME 26

int etk_store_comparison_table_narrow(const etk_store_comparison_t *c,
                                      etk_store_table_t *out,
                                      etk_error_t *err) {
  if (!c || !out) return ETK_E_INVALID_ARGUMENT;
  if (store_table_init(out, narrow_headers, NARROW_COLS))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < c->count; i++) {
    const etk_store_change_t *ch = &c->changes[i];
    char name[NARROW_NAME + 4], ci[48], delta[24], q[16];
    size_t n = strlen(ch->name);
    if (n > NARROW_NAME) /* the end tells kernels apart: keep it */
      snprintf(name, sizeof name, "...%s", ch->name + n - (NARROW_NAME - 3));
    else
      snprintf(name, sizeof name, "%s", ch->name);
    snprintf(delta, sizeof delta, "%+.1f", ch->delta_pct);
    snprintf(ci, sizeof ci, "[%+.1f, %+.1f]", ch->ci_low_pct, ch->ci_high_pct);
    snprintf(q, sizeof q, "%.2g", ch->q_value);
    etk_cell_t *cells = store_table_row(out);
    bool ok =
        cells && store_cell_text(&cells[0], name) &&
        store_cell_text(&cells[4], delta) && store_cell_text(&cells[5], ci) &&
        store_cell_text(&cells[6], q) &&
        store_cell_text(&cells[7], etk_change_direction_name(ch->direction));
    if (!ok) {
      etk_store_table_free(out);
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    }
    etk_cell_set_int(&cells[1], ch->instruction_id);
    etk_cell_set_float(&cells[2], ch->shift.baseline);
    etk_cell_set_float(&cells[3], ch->shift.candidate);
  }
  return ETK_OK;
}

int etk_store_comparison_json(const etk_store_comparison_t *c,
                              etk_render_sink_t *sink, etk_error_t *err) {
  (void)err;
  if (!c || !sink) return ETK_E_INVALID_ARGUMENT;
  etk_json_t j;
  etk_json_init(&j, sink, 2);
  etk_json_begin_object(&j);
  etk_json_key(&j, "baseline_runs");
  etk_json_uint(&j, c->baseline_runs);
  etk_json_key(&j, "candidate_runs");
  etk_json_uint(&j, c->candidate_runs);
  etk_json_key(&j, "changes");
  etk_json_begin_array(&j);
  for (size_t i = 0; i < c->count; i++) {
    const etk_store_change_t *ch = &c->changes[i];
    etk_json_begin_object(&j);
    etk_json_key(&j, "name");
    etk_json_cstring(&j, ch->name);
    etk_json_key(&j, "instruction_id");
    etk_json_int(&j, ch->instruction_id);
    etk_json_key(&j, "op_type");
    etk_json_cstring(&j, ch->op_type);
    etk_json_key(&j, "module");
    etk_json_cstring(&j, ch->module);
    etk_json_key(&j, "method");
    etk_json_cstring(&j, ch->method);
    etk_json_key(&j, "source");
    etk_json_cstring(&j, ch->source);
    store_json_number(&j, "baseline", ch->shift.baseline);
    store_json_number(&j, "candidate", ch->shift.candidate);
    store_json_number(&j, "delta_pct", ch->delta_pct);
    store_json_number(&j, "ci_low", ch->ci_low_pct);
    store_json_number(&j, "ci_high", ch->ci_high_pct);
    store_json_number(&j, "p_value", ch->shift.p_value);
    store_json_number(&j, "q_value", ch->q_value);
    etk_json_key(&j, "significant");
    etk_json_bool(&j, ch->significant);
    etk_json_key(&j, "direction");
    etk_json_cstring(&j, etk_change_direction_name(ch->direction));
    etk_json_key(&j, "baseline_samples");
    etk_json_uint(&j, ch->shift.n_baseline);
    etk_json_key(&j, "candidate_samples");
    etk_json_uint(&j, ch->shift.n_candidate);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  etk_render_putc(sink, '\n');
  return ETK_OK;
}
