/*
 * compare.c - etk_store_compare: every operator of one set of runs against
 * another, with the noise-aware engine of etkit/significance.h.
 *
 * DATA LAYOUT
 *   An operator is identified across runs by (method, name, instruction
 *   id): the key string "method\x1fname\x1fid" maps through one etk_hash_t
 *   to a dense id, and op_t[id] keeps its descriptive columns and the raw
 *   samples of each side (every sample of every selected run, pooled).
 *   Both sides stream through the same row callback, side 0 then side 1.
 *
 * STATISTICS
 *   For each operator present on both sides: etk_shift_estimate (medians,
 *   Hodges-Lehmann shift and interval, Mann-Whitney p); then one
 *   Benjamini-Hochberg pass over all of the comparison's p-values; then
 *   etk_change_classify (significant AND at least rule->min_pct).  The
 *   result lists significant changes first (largest slow-down first), then
 *   the rest by |delta|.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "store_internal.h"

typedef struct op {
  char *method, *name, *op_type, *module, *source;
  int64_t instruction_id;
  store_doubles_t side[2];
} op_t;

typedef struct cmp_ctx {
  etk_hash_t keys;
  op_t *ops;
  size_t cap;
  int side;
  etk_strbuf_t key;
  int failed;
} cmp_ctx_t;

static char *dup_or_null(const store_row_t *row, int col) {
  return row->ops->is_null(row, col) ? NULL
                                     : strdup(row->ops->get_text(row, col));
}

static int cmp_row(void *ctx, const store_row_t *row) {
  cmp_ctx_t *c = ctx;
  const store_engine_ops_t *o = row->ops;
  etk_strbuf_clear(&c->key);
  etk_strbuf_printf(&c->key, "%s\x1f%s\x1f%lld", o->get_text(row, 0),
                    o->get_text(row, 1), (long long)o->get_int(row, 2));
  uint32_t id;
  bool is_new = false;
  if (c->key.failed ||
      etk_hash_put(&c->keys, c->key.data, c->key.len, &id, &is_new) != ETK_OK)
    return c->failed = ETK_E_NO_MEMORY;
  if (is_new) {
    if (id >= c->cap) {
      size_t cap = c->cap ? c->cap * 2 : 64;
      op_t *p = realloc(c->ops, cap * sizeof *p);
      if (!p) return c->failed = ETK_E_NO_MEMORY;
      c->ops = p;
      c->cap = cap;
    }
    op_t *op = &c->ops[id];
    memset(op, 0, sizeof *op);
    op->method = strdup(o->get_text(row, 0));
    op->name = strdup(o->get_text(row, 1));
    op->instruction_id = o->get_int(row, 2);
    op->op_type = dup_or_null(row, 3);
    op->module = dup_or_null(row, 4);
    op->source = dup_or_null(row, 6);
    if (!op->method || !op->name) return c->failed = ETK_E_NO_MEMORY;
  }
  if (!o->is_null(row, 5) &&
      !store_doubles_push(&c->ops[id].side[c->side], o->get_real(row, 5)))
    return c->failed = ETK_E_NO_MEMORY;
  return 0;
}

static int count_row(void *ctx, const store_row_t *row) {
  *(size_t *)ctx = (size_t)row->ops->get_int(row, 0);
  return 0;
}

/* Streams one side's samples into the context; *runs gets its run count. */
static int load_side(etk_store_t *st, const etk_store_where_t *where,
                     const char *op, cmp_ctx_t *c, size_t *runs,
                     etk_error_t *err) {
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
                       c->side ? "--candidate" : "--baseline");
  if (rc) return rc;
  etk_strbuf_appends(
      &sql.text,
      "SELECT b.name, o.name, o.instruction_id, o.op_type, o.module, "
      "s.duration, o.source FROM operators o JOIN blocks b ON b.run_id = "
      "o.run_id AND b.block = o.block JOIN samples s ON s.run_id = o.run_id "
      "AND s.op = o.op WHERE 1 = 1");
  if (op) {
    etk_strbuf_appends(&sql.text, " AND o.name = ");
    store_sql_param(&sql, store_text(op));
  }
  /* the runs as a set the operators are looked up in: the planner then
   * starts from operators_name when an operator is named */
  etk_strbuf_appends(&sql.text,
                     " AND o.run_id IN (SELECT r.id FROM runs r WHERE 1 = 1");
  rc = store_where_sql(st, where, &sql, err);
  etk_strbuf_appendc(&sql.text, ')');
  if (rc == ETK_OK)
    rc = store_q(st, sql.text.data, sql.params, sql.count, cmp_row, c, err);
  store_sql_free(&sql);
  if (rc == ETK_OK && c->failed)
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  return rc;
}

static int cmp_change(const void *a, const void *b) {
  const etk_store_change_t *x = a, *y = b;
  if (x->significant != y->significant) return y->significant - x->significant;
  double dx = x->significant ? x->delta_pct : fabs(x->delta_pct);
  double dy = y->significant ? y->delta_pct : fabs(y->delta_pct);
  if (isnan(dx) || isnan(dy)) return isnan(dx) - isnan(dy);
  if (dx != dy) return dx < dy ? 1 : -1;
  return strcmp(x->name, y->name);
}

/* Moves the operators present on both sides into out->changes. */
static int build_changes(cmp_ctx_t *c, const etk_change_rule_t *rule,
                         etk_store_comparison_t *out) {
  size_t n = etk_hash_count(&c->keys);
  out->changes = calloc(n ? n : 1, sizeof *out->changes);
  double *p = malloc((n ? n : 1) * sizeof *p);
  if (!out->changes || !p) {
    free(p);
    return ETK_E_NO_MEMORY;
  }
  for (size_t i = 0; i < n; i++) {
    op_t *op = &c->ops[i];
    if (!op->side[0].count || !op->side[1].count) {
      if (op->side[0].count) out->only_baseline++;
      if (op->side[1].count) out->only_candidate++;
      continue;
    }
    etk_store_change_t *ch = &out->changes[out->count];
    if (etk_shift_estimate(op->side[0].items, op->side[0].count,
                           op->side[1].items, op->side[1].count,
                           rule->confidence, &ch->shift) != ETK_OK)
      continue; /* no finite sample on a side */
    ch->method = op->method;
    ch->name = op->name;
    ch->op_type = op->op_type;
    ch->module = op->module;
    ch->source = op->source;
    ch->instruction_id = op->instruction_id;
    op->method = op->name = op->op_type = op->module = op->source = NULL;
    p[out->count++] = ch->shift.p_value;
  }
  int rc = etk_fdr_bh(p, out->count, p);
  for (size_t i = 0; rc == ETK_OK && i < out->count; i++) {
    etk_store_change_t *ch = &out->changes[i];
    ch->q_value = p[i];
    ch->direction =
        etk_change_classify(&ch->shift, p[i], rule, &ch->significant,
                            &ch->delta_pct, &ch->ci_low_pct, &ch->ci_high_pct);
  }
  free(p);
  qsort(out->changes, out->count, sizeof *out->changes, cmp_change);
  return rc;
}

static void free_ctx(cmp_ctx_t *c) {
  for (size_t i = 0; i < etk_hash_count(&c->keys); i++) {
    free(c->ops[i].method);
    free(c->ops[i].name);
    free(c->ops[i].op_type);
    free(c->ops[i].module);
    free(c->ops[i].source);
    free(c->ops[i].side[0].items);
    free(c->ops[i].side[1].items);
  }
  free(c->ops);
  etk_hash_free(&c->keys);
  etk_strbuf_free(&c->key);
}

int etk_store_compare(etk_store_t *st, const etk_store_where_t *baseline,
                      const etk_store_where_t *candidate, const char *op,
                      const etk_change_rule_t *rule,
                      etk_store_comparison_t *out, etk_error_t *err) {
  if (!st || !out) return ETK_E_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  etk_change_rule_t def;
  if (!rule) {
    etk_change_rule_init(&def);
    rule = &def;
  }
  cmp_ctx_t c;
  memset(&c, 0, sizeof c);
  etk_hash_init(&c.keys);
  int rc = load_side(st, baseline, op, &c, &out->baseline_runs, err);
  c.side = 1;
  if (rc == ETK_OK)
    rc = load_side(st, candidate, op, &c, &out->candidate_runs, err);
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

int etk_store_comparison_fails(const etk_store_comparison_t *c, double pct) {
  for (size_t i = 0; c && i < c->count; i++)
    if (c->changes[i].significant &&
        c->changes[i].direction == ETK_CHANGE_SLOWER &&
        c->changes[i].delta_pct > pct)
      return 1;
  return 0;
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

static void json_num(etk_json_t *j, const char *key, double v) {
  etk_json_key(j, key);
  if (isfinite(v))
    etk_json_double(j, v);
  else
    etk_json_cstring(j, NULL);
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
    json_num(&j, "baseline", ch->shift.baseline);
    json_num(&j, "candidate", ch->shift.candidate);
    json_num(&j, "delta_pct", ch->delta_pct);
    json_num(&j, "ci_low", ch->ci_low_pct);
    json_num(&j, "ci_high", ch->ci_high_pct);
    json_num(&j, "p_value", ch->shift.p_value);
    json_num(&j, "q_value", ch->q_value);
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
