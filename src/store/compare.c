/*
 * compare.c - etk_store_compare: every operator of one set of runs against
 * another, with the noise-aware engine of etkit/significance.h, or, for
 * operators of stats-mode runs, with their latency sketches' bounds.
 *
 * DATA LAYOUT
 *   An operator is identified across runs by (method, name, instruction
 *   id): the key "method\x1fname\x1fid" gets a dense id (common/hash.h),
 *   and op_t[id] keeps its descriptive columns and, per side, its
 *   durations (store_durations_t: the raw samples of full runs, the merged
 *   sketches of stats-mode runs).  Both sides stream in one query (each
 *   operator row read once, with a flag per side saying whose runs hold
 *   it), so a run on both sides (an A/A comparison) feeds both.
 *
 * STATISTICS
 *   - Operators with samples only, on both sides: etk_pooled_compare
 *     (etkit/significance.h): medians, Hodges-Lehmann shift and interval
 *     and the Mann-Whitney p; Benjamini-Hochberg over all of them;
 *     significant AND at least rule->min_pct.
 *   - Operators with a sketch on either side (the rank test needs the
 *     samples a sketch no longer has): the p50 of each side (a sketch's
 *     within its bound e, samples' exact) puts the true median in
 *     [p50 / (1 + e), p50 / (1 - e)]; the change is significant only when
 *     the two sides' intervals do not overlap (so never when it is within
 *     the two bounds combined), each side has at least
 *     ETK_STORE_SKETCH_MIN_COUNT durations, and it is at least
 *     rule->min_pct and rule->min_delta.  Its interval is the range of changes
 * the two intervals allow; it has no p or q (NaN), and takes no part in
 *     Benjamini-Hochberg.
 *   Significant changes first (largest slow-down first), then the rest by
 *   |delta|, then by first appearance.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "store_internal.h"

/* What a compared operator shows besides its numbers (first row seen),
 * and each side's durations. */
typedef struct op {
  char *method, *name, *op_type, *module, *source;
  int64_t instruction_id;
  store_durations_t side[2];
} op_t;

typedef struct cmp_ctx {
  etk_hash_t keys;
  op_t *ops; /* by key id */
  size_t cap;
  etk_strbuf_t key;
  store_samples_t s;
  store_bytes_t scratch;
  int failed, failed_side;
} cmp_ctx_t;

static char *dup_or_null(const store_row_t *row, int col) {
  return row->ops->is_null(row, col) ? NULL
                                     : strdup(row->ops->get_text(row, col));
}

/* The op_t of key `id`, with its descriptive columns when new. */
static op_t *describe(cmp_ctx_t *c, size_t id, const store_row_t *row) {
  const store_engine_ops_t *o = row->ops;
  while (id >= c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    op_t *p = realloc(c->ops, cap * sizeof *p);
    if (!p) return NULL;
    memset(p + c->cap, 0, (cap - c->cap) * sizeof *p);
    c->ops = p;
    c->cap = cap;
  }
  op_t *op = &c->ops[id];
  if (op->name) return op;
  op->method = strdup(o->get_text(row, 0));
  op->name = strdup(o->get_text(row, 1));
  op->instruction_id = o->get_int(row, 2);
  op->op_type = dup_or_null(row, 3);
  op->module = dup_or_null(row, 4);
  op->source = dup_or_null(row, 7);
  return op->method && op->name ? op : NULL;
}

/* One operator row of the selected runs: its sketch (columns 10 and 11)
 * or else its samples (5 and 6) go to each side whose runs include it
 * (columns 8 and 9; both in an A/A comparison). */
static int cmp_row(void *ctx, const store_row_t *row) {
  cmp_ctx_t *c = ctx;
  const store_engine_ops_t *o = row->ops;
  etk_strbuf_clear(&c->key);
  etk_strbuf_printf(&c->key, "%s\x1f%s\x1f%lld", o->get_text(row, 0),
                    o->get_text(row, 1), (long long)o->get_int(row, 2));
  if (c->key.failed) return c->failed = ETK_E_NO_MEMORY;
  uint32_t id;
  int rc = etk_hash_put(&c->keys, c->key.data, c->key.len, &id, NULL);
  op_t *op = rc ? NULL : describe(c, id, row);
  if (!op) return c->failed = ETK_E_NO_MEMORY;
  etk_sketch_t sk;
  int has = store_read_sketch(row, 10, &c->scratch, &sk);
  if (has < 0) return c->failed = -has;
  if (!has && (rc = store_read_samples(row, 5, &c->s))) return c->failed = rc;
  for (int side = 0; side < 2; side++) {
    if (!o->get_int(row, 8 + side)) continue;
    store_durations_t *d = &op->side[side];
    if (has && (rc = store_durations_merge(d, &sk, o->get_real(row, 10)))) {
      c->failed_side = side;
      return c->failed = rc;
    }
    if (!has && !store_samples_append(&c->s, &d->ms))
      return c->failed = ETK_E_NO_MEMORY;
  }
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
  /* a stats-mode run's sketch (schema version 4) */
  etk_strbuf_appends(&sql.text,
                     st->version >= 4
                         ? ", l.ticks_per_ms, l.sketch FROM operators o JOIN "
                           "blocks b ON b.run_id = o.run_id AND b.block = "
                           "o.block LEFT JOIN latency_sketches l ON l.run_id "
                           "= o.run_id AND l.op = o.op WHERE 1 = 1"
                         : ", NULL, NULL FROM operators o JOIN blocks b ON "
                           "b.run_id = o.run_id AND b.block = o.block WHERE 1 "
                           "= 1");
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
  if (rc == c->failed && c->failed == ETK_E_MISMATCH)
    rc = etk_error_set(err, rc, ETK_NO_OFFSET,
                       "the %s runs' latency sketches of one operator have "
                       "different tick rates or relative errors (runs of "
                       "other timers or --stats-error): select runs of one "
                       "kind",
                       c->failed_side ? "--candidate" : "--baseline");
  else if (rc == c->failed && c->failed)
    rc = store_durations_error(c->failed, err);
  return rc;
}

static size_t side_count(const store_durations_t *d) {
  return d->ms.count + d->sketches;
}

/* The comparison of an operator with a sketch on either side (see
 * STATISTICS above). */
static void sketch_change(const store_quantiles_t *b,
                          const store_quantiles_t *c,
                          const etk_change_rule_t *rule,
                          etk_store_change_t *ch) {
  ch->from_sketch = 1;
  ch->shift.n_baseline = b->count;
  ch->shift.n_candidate = c->count;
  ch->shift.baseline = b->p50;
  ch->shift.candidate = c->p50;
  ch->shift.shift = c->p50 - b->p50;
  double blo = b->p50 / (1 + b->bound), bhi = b->p50 / (1 - b->bound);
  double clo = c->p50 / (1 + c->bound), chi = c->p50 / (1 - c->bound);
  ch->shift.ci_low = clo - bhi;
  ch->shift.ci_high = chi - blo;
  ch->shift.u = ch->shift.z = ch->shift.p_value = NAN;
  ch->q_value = NAN;
  int positive = b->p50 > 0 && blo > 0;
  ch->delta_pct = positive ? ch->shift.shift / b->p50 * 100.0 : NAN;
  ch->ci_low_pct = positive ? (clo / bhi - 1.0) * 100.0 : NAN;
  ch->ci_high_pct = positive ? (chi / blo - 1.0) * 100.0 : NAN;
  int apart = ch->ci_low_pct > 0 || ch->ci_high_pct < 0; /* NaN: no */
  /* the rank test cannot reach p < 0.05 with fewer than 4 samples a side:
   * neither does one duration (a load, an init) against another here */
  int enough = b->count >= ETK_STORE_SKETCH_MIN_COUNT &&
               c->count >= ETK_STORE_SKETCH_MIN_COUNT;
  ch->significant = apart && enough && fabs(ch->delta_pct) >= rule->min_pct &&
                    fabs(ch->shift.shift) >= rule->min_delta;
  ch->direction = !ch->significant      ? ETK_CHANGE_SAME
                  : ch->shift.shift > 0 ? ETK_CHANGE_SLOWER
                                        : ETK_CHANGE_FASTER;
}

/* Moves op's descriptive columns and quantiles into ch. */
static void take_op(op_t *op, const store_quantiles_t q[2],
                    etk_store_change_t *ch) {
  ch->method = op->method;
  ch->name = op->name;
  ch->op_type = op->op_type;
  ch->module = op->module;
  ch->source = op->source;
  ch->instruction_id = op->instruction_id;
  op->method = op->name = op->op_type = op->module = op->source = NULL;
  ch->bound[0] = q[0].bound;
  ch->bound[1] = q[1].bound;
  ch->p90[0] = q[0].p90;
  ch->p90[1] = q[1].p90;
  ch->p99[0] = q[0].p99;
  ch->p99[1] = q[1].p99;
}

static int cmp_change(const void *a, const void *b) {
  const etk_store_change_t *x = a, *y = b;
  if (x->significant != y->significant) return y->significant - x->significant;
  double dx = x->significant ? x->delta_pct : fabs(x->delta_pct);
  double dy = y->significant ? y->delta_pct : fabs(y->delta_pct);
  if (isnan(dx) != isnan(dy)) return isnan(dx) - isnan(dy);
  if (dx != dy && !isnan(dx)) return dx < dy ? 1 : -1;
  return (x->order > y->order) - (x->order < y->order);
}

/* Samples-only operators through the pool, the others by their sketches;
 * all into out->changes, in order. */
static int build_changes(cmp_ctx_t *c, const etk_change_rule_t *rule,
                         etk_store_comparison_t *out) {
  size_t n = etk_hash_count(&c->keys);
  etk_pooled_t *pool = etk_pooled_new();
  size_t *of_pool = malloc((n ? n : 1) * sizeof *of_pool);
  store_quantiles_t(*q)[2] = malloc((n ? n : 1) * sizeof *q);
  out->changes = calloc(n ? n : 1, sizeof *out->changes);
  int rc = pool && of_pool && q && out->changes ? ETK_OK : ETK_E_NO_MEMORY;
  size_t pooled = 0, m = 0;
  for (size_t id = 0; rc == ETK_OK && id < n; id++) {
    op_t *op = &c->ops[id];
    size_t nb = side_count(&op->side[0]), nc = side_count(&op->side[1]);
    out->only_baseline += nb && !nc;
    out->only_candidate += nc && !nb;
    if (!nb || !nc) continue;
    if (op->side[0].sketches || op->side[1].sketches) continue;
    for (int side = 0; rc == ETK_OK && side < 2; side++)
      for (size_t i = 0; rc == ETK_OK && i < op->side[side].ms.count; i++)
        rc = etk_pooled_add(pool, side, &id, sizeof id,
                            op->side[side].ms.items[i], NULL);
    of_pool[pooled++] = id;
  }
  etk_pooled_change_t *pc = NULL;
  size_t npc = 0;
  if (rc == ETK_OK) rc = etk_pooled_compare(pool, rule, &pc, &npc);
  for (size_t id = 0; rc == ETK_OK && id < n; id++) {
    store_durations_summary(&c->ops[id].side[0], &q[id][0]);
    store_durations_summary(&c->ops[id].side[1], &q[id][1]);
  }
  for (size_t i = 0; rc == ETK_OK && i < npc; i++) {
    etk_store_change_t *ch = &out->changes[m++];
    size_t id = of_pool[pc[i].id];
    ch->shift = pc[i].shift;
    ch->q_value = pc[i].q_value;
    ch->delta_pct = pc[i].delta_pct;
    ch->ci_low_pct = pc[i].ci_low_pct;
    ch->ci_high_pct = pc[i].ci_high_pct;
    ch->significant = pc[i].significant;
    ch->direction = pc[i].direction;
    ch->order = id;
    take_op(&c->ops[id], q[id], ch);
  }
  for (size_t id = 0; rc == ETK_OK && id < n; id++) {
    op_t *op = &c->ops[id];
    if (!(op->side[0].sketches || op->side[1].sketches) || !q[id][0].count ||
        !q[id][1].count)
      continue;
    etk_store_change_t *ch = &out->changes[m++];
    sketch_change(&q[id][0], &q[id][1], rule, ch);
    ch->order = id;
    take_op(op, q[id], ch);
  }
  out->count = m;
  if (m) qsort(out->changes, m, sizeof *out->changes, cmp_change);
  free(pc);
  free(q);
  free(of_pool);
  etk_pooled_free(pool);
  return rc;
}

static void free_ctx(cmp_ctx_t *c) {
  for (size_t i = 0; i < c->cap; i++) {
    free(c->ops[i].method);
    free(c->ops[i].name);
    free(c->ops[i].op_type);
    free(c->ops[i].module);
    free(c->ops[i].source);
    store_durations_free(&c->ops[i].side[0]);
    store_durations_free(&c->ops[i].side[1]);
  }
  free(c->ops);
  etk_hash_free(&c->keys);
  etk_strbuf_free(&c->key);
  store_samples_free(&c->s);
  free(c->scratch.data);
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
  etk_hash_init(&c.keys);
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

static const char *const cmp_headers[] = {"name",
                                          "instruction_id",
                                          "op_type",
                                          "module",
                                          "method",
                                          "baseline",
                                          "candidate",
                                          "delta_pct",
                                          "ci_low",
                                          "ci_high",
                                          "p_value",
                                          "q_value",
                                          "significant",
                                          "direction",
                                          "rule",
                                          "baseline_bound",
                                          "candidate_bound",
                                          "baseline_p90",
                                          "candidate_p90",
                                          "baseline_p99",
                                          "candidate_p99",
                                          "baseline_samples",
                                          "candidate_samples"};
#define CMP_COLS 23

static const char *rule_name(const etk_store_change_t *ch) {
  return ch->from_sketch ? "sketch-bounds" : "mann-whitney";
}

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
        store_cell_text(&cells[13], etk_change_direction_name(ch->direction)) &&
        store_cell_text(&cells[14], rule_name(ch));
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
    for (int side = 0; side < 2; side++) {
      etk_cell_set_float(&cells[15 + side], ch->bound[side]);
      etk_cell_set_float(&cells[17 + side], ch->p90[side]);
      etk_cell_set_float(&cells[19 + side], ch->p99[side]);
    }
    etk_cell_set_int(&cells[21], (int64_t)ch->shift.n_baseline);
    etk_cell_set_int(&cells[22], (int64_t)ch->shift.n_candidate);
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
    /* a sketch's comparison has no q: its bounds decided */
    snprintf(q, sizeof q, ch->from_sketch ? "sketch" : "%.2g", ch->q_value);
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
    etk_json_key(&j, "rule");
    etk_json_cstring(&j, rule_name(ch));
    store_json_number(&j, "baseline_bound", ch->bound[0]);
    store_json_number(&j, "candidate_bound", ch->bound[1]);
    store_json_number(&j, "baseline_p90", ch->p90[0]);
    store_json_number(&j, "candidate_p90", ch->p90[1]);
    store_json_number(&j, "baseline_p99", ch->p99[0]);
    store_json_number(&j, "candidate_p99", ch->p99[1]);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  etk_render_putc(sink, '\n');
  return ETK_OK;
}
