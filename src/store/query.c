/*
 * query.c - the store's read queries that return tables: runs, show (one
 * run's operators) and trend (one operator, module or method across runs),
 * and prune.
 *
 * HOW THE QUERIES USE THE INDEXES
 *   - run selection (--where): run_tags_key_value (key, value, run_id);
 *   - trend --op: operators_name (name, run_id), then each operator's row
 *     (its samples are packed in it, packed.c);
 *   - trend --module: operators_module (module, run_id);
 *   - show: the operators primary key of one run_id.
 *   Aggregation (median, mean, ...) happens here, in C, on the rows the
 *   database returns in (run_id, op) order: both engines give the same
 *   numbers because they store the same doubles, bit for bit.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* ------------------------------------------------------------- runs */

static const char *const run_headers[] = {
    "id",     "added",  "run_time", "digest", "model",     "device",  "backend",
    "commit", "branch", "tags",     "blocks", "operators", "samples", "source"};
#define RUN_COLS 14
#define RUN_TAGS 9 /* the "tags" column; the five known tags before it */
static const char *const known_tags[5] = {"model", "device", "backend",
                                          "commit", "branch"};

typedef struct runs_ctx {
  etk_store_table_t *t;
  int failed;
} runs_ctx_t;

static int run_row(void *ctx, const store_row_t *row) {
  runs_ctx_t *c = ctx;
  const store_engine_ops_t *o = row->ops;
  etk_cell_t *cells = store_table_row(c->t);
  char when[32];
  if (!cells) return c->failed = ETK_E_NO_MEMORY;
  etk_cell_set_int(&cells[0], o->get_int(row, 0));
  store_format_time(o->get_int(row, 1), when, sizeof when);
  bool ok = store_cell_text(&cells[1], when);
  char digest[17];
  snprintf(digest, sizeof digest, "%s", o->get_text(row, 2));
  ok = ok && store_cell_text(&cells[3], digest);
  for (int i = 0; i < 3; i++)
    etk_cell_set_int(&cells[RUN_TAGS + 1 + i], o->get_int(row, 3 + i));
  ok = ok && store_cell_text(&cells[RUN_COLS - 1], o->get_text(row, 6));
  if (!o->is_null(row, 7)) { /* the run's own time, when known */
    store_format_time(o->get_int(row, 7), when, sizeof when);
    ok = ok && store_cell_text(&cells[2], when);
  }
  return ok ? 0 : (c->failed = ETK_E_NO_MEMORY);
}

/* Fills the tag columns of run row `r` (found by id) from one tag row. */
static int tag_row(void *ctx, const store_row_t *row) {
  runs_ctx_t *c = ctx;
  etk_store_table_t *t = c->t;
  int64_t id = row->ops->get_int(row, 0);
  const char *key = row->ops->get_text(row, 1);
  const char *value = row->ops->get_text(row, 2);
  for (size_t r = 0; r < t->rows; r++) {
    etk_cell_t *cells = t->cells + r * t->cols;
    if (cells[0].i != id) continue;
    size_t col = RUN_TAGS;
    for (size_t k = 0; k < 5; k++)
      if (strcmp(key, known_tags[k]) == 0) col = RUN_TAGS - 5 + k;
    if (col != RUN_TAGS) return store_cell_text(&cells[col], value) ? 0 : 1;
    etk_cell_t *other = &cells[RUN_TAGS];
    etk_strbuf_t b = {0};
    if (other->kind == ETK_CELL_TEXT)
      etk_strbuf_printf(&b, "%s; ", other->text);
    etk_strbuf_printf(&b, "%s=%s", key, value);
    if (other->kind == ETK_CELL_TEXT) free((char *)other->text);
    etk_cell_set_none(other);
    bool ok = !b.failed && store_cell_text(other, b.data);
    etk_strbuf_free(&b);
    return ok ? 0 : (c->failed = ETK_E_NO_MEMORY);
  }
  return 0;
}

int etk_store_runs(etk_store_t *st, const etk_store_where_t *where,
                   etk_store_table_t *out, etk_error_t *err) {
  if (!st || !out) return ETK_E_INVALID_ARGUMENT;
  if (store_table_init(out, run_headers, RUN_COLS))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  store_sql_t sel = {0};
  etk_strbuf_printf(&sel.text,
                    "SELECT r.id, r.added_at, r.digest, r.blocks, "
                    "r.operators, r.samples, r.source, %s FROM runs r WHERE "
                    "1 = 1",
                    store_run_time_sql(st));
  int rc = store_where_sql(st, where, &sel, err);
  runs_ctx_t c = {out, 0};
  if (rc == ETK_OK) {
    etk_strbuf_appends(&sel.text, " ORDER BY r.id");
    rc = store_q(st, sel.text.data, sel.params, sel.count, run_row, &c, err);
  }
  if (rc == ETK_OK && out->rows) {
    store_sql_t tags = {0};
    etk_strbuf_appends(&tags.text,
                       "SELECT t.run_id, t.key, t.value FROM run_tags t WHERE");
    rc = store_runs_in(st, "t.run_id", where, &tags, err);
    etk_strbuf_appends(&tags.text, " ORDER BY t.run_id, t.key");
    if (rc == ETK_OK)
      rc = store_q(st, tags.text.data, tags.params, tags.count, tag_row, &c,
                   err);
    store_sql_free(&tags);
  }
  store_sql_free(&sel);
  if (rc == ETK_OK && c.failed)
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (rc) etk_store_table_free(out);
  return rc;
}

/* ------------------------------------------------------------- show */

static const char *const show_headers[] = {
    "block",   "operator", "instruction_id", "op_type", "delegate", "module",
    "samples", "median",   "mean",           "min",     "max"};
#define SHOW_COLS 11

typedef struct show_ctx {
  etk_store_table_t *t;
  int64_t op;
  store_doubles_t v;
  store_samples_t s;
  int failed;
} show_ctx_t;

static void show_finish(show_ctx_t *c) {
  if (c->t->rows == 0 || c->op < 0) return;
  etk_cell_t *cells = c->t->cells + (c->t->rows - 1) * c->t->cols;
  store_summary_t s;
  store_summarize(c->v.items, c->v.count, &s);
  etk_cell_set_int(&cells[6], (int64_t)s.count);
  etk_cell_set_float(&cells[7], s.median);
  etk_cell_set_float(&cells[8], s.mean);
  etk_cell_set_float(&cells[9], s.min);
  etk_cell_set_float(&cells[10], s.max);
  c->v.count = 0;
}

static int show_row(void *ctx, const store_row_t *row) {
  show_ctx_t *c = ctx;
  const store_engine_ops_t *o = row->ops;
  int64_t op = o->get_int(row, 0);
  if (op != c->op) {
    show_finish(c);
    c->op = op;
    etk_cell_t *cells = store_table_row(c->t);
    if (!cells) return c->failed = ETK_E_NO_MEMORY;
    bool ok = store_cell_text(&cells[0], o->get_text(row, 1)) &&
              store_cell_text(&cells[1], o->get_text(row, 2));
    etk_cell_set_int(&cells[2], o->get_int(row, 3));
    for (int i = 0; i < 3 && ok; i++)
      ok = store_cell_text(&cells[3 + i], o->is_null(row, 4 + i)
                                              ? NULL
                                              : o->get_text(row, 4 + i));
    if (!ok) return c->failed = ETK_E_NO_MEMORY;
  }
  int rc = store_read_samples(row, 7, &c->s);
  if (rc || !store_samples_append(&c->s, &c->v))
    return c->failed = rc ? rc : ETK_E_NO_MEMORY;
  return 0;
}

int etk_store_show(etk_store_t *st, int64_t run_id, etk_store_table_t *out,
                   etk_error_t *err) {
  if (!st || !out) return ETK_E_INVALID_ARGUMENT;
  store_value_t id = store_int(run_id);
  if (store_table_init(out, show_headers, SHOW_COLS))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  show_ctx_t c = {out, -1, {0}, {0}, 0};
  int rc = store_q(st,
                   "SELECT o.op, b.name, o.name, o.instruction_id, o.op_type, "
                   "o.delegate, o.module, o.durations, o.executions FROM "
                   "operators o JOIN blocks b ON b.run_id = o.run_id AND "
                   "b.block = o.block WHERE o.run_id = $1 ORDER BY o.op",
                   &id, 1, show_row, &c, err);
  show_finish(&c);
  free(c.v.items);
  store_samples_free(&c.s);
  if (rc == c.failed && c.failed) rc = store_samples_error(c.failed, err);
  if (rc == ETK_OK && out->rows == 0)
    rc = etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "no run %lld with samples in this store",
                       (long long)run_id);
  if (rc) etk_store_table_free(out);
  return rc;
}

typedef struct show_json {
  etk_json_t *j;
  const etk_store_table_t *t;
  size_t row;
  store_samples_t s;
  int failed;
} show_json_t;

/* One operator: the show table's row (same order: by o.op) and its raw
 * samples. */
static int show_json_row(void *ctx, const store_row_t *row) {
  show_json_t *c = ctx;
  if (c->row >= c->t->rows) return 0;
  int rc = store_read_samples(row, 0, &c->s);
  if (rc) return c->failed = rc;
  etk_json_begin_object(c->j);
  for (size_t k = 0; k < c->t->cols; k++) {
    etk_json_key(c->j, c->t->headers[k]);
    store_json_cell(c->j, &c->t->cells[c->row * c->t->cols + k]);
  }
  etk_json_key(c->j, "durations");
  etk_json_begin_array(c->j);
  for (size_t i = 0; i < c->s.count; i++)
    if (isfinite(c->s.durations[i]))
      etk_json_double(c->j, c->s.durations[i]);
    else
      etk_json_null(c->j);
  etk_json_end_array(c->j);
  etk_json_key(c->j, "executions");
  etk_json_begin_array(c->j);
  for (size_t i = 0; i < c->s.count; i++)
    etk_json_int(c->j, c->s.executions[i]);
  etk_json_end_array(c->j);
  etk_json_end_object(c->j);
  c->row++;
  return 0;
}

int etk_store_show_json(etk_store_t *st, int64_t run_id,
                        etk_render_sink_t *sink, etk_error_t *err) {
  if (!st || !sink) return ETK_E_INVALID_ARGUMENT;
  etk_store_table_t ops, run;
  int rc = etk_store_show(st, run_id, &ops, err);
  if (rc) return rc;
  char id[32];
  snprintf(id, sizeof id, "%lld", (long long)run_id);
  etk_store_tag_t cond = {"id", id};
  etk_store_where_t w = {&cond, 1};
  if ((rc = etk_store_runs(st, &w, &run, err))) {
    etk_store_table_free(&ops);
    return rc;
  }
  etk_json_t j;
  etk_json_init(&j, sink, 2);
  etk_json_begin_object(&j);
  etk_json_key(&j, "run");
  etk_json_begin_object(&j);
  for (size_t k = 0; run.rows && k < run.cols; k++) {
    etk_json_key(&j, run.headers[k]);
    store_json_cell(&j, &run.cells[k]);
  }
  etk_json_end_object(&j);
  etk_json_key(&j, "operators");
  etk_json_begin_array(&j);
  show_json_t c = {&j, &ops, 0, {0}, 0};
  store_value_t p = store_int(run_id);
  rc = store_q(st,
               "SELECT o.durations, o.executions FROM operators o WHERE "
               "o.run_id = $1 ORDER BY o.op",
               &p, 1, show_json_row, &c, err);
  if (rc == c.failed && c.failed) rc = store_samples_error(c.failed, err);
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  etk_render_putc(sink, '\n');
  store_samples_free(&c.s);
  etk_store_table_free(&ops);
  etk_store_table_free(&run);
  return rc;
}

/* ------------------------------------------------------------- trend */

static const char *const trend_headers[] = {
    "run", "added",         "commit", "samples", "median",      "mean", "min",
    "max", "per_execution", "p90",    "p99",     "error_bound", "from"};
#define TREND_COLS 13

typedef struct trend_ctx {
  etk_store_table_t *t;
  int64_t run;
  store_durations_t d;
  store_ids_t execs;    /* the run's execution indices, each sample's */
  int64_t sketch_execs; /* stats-mode runs: Method::execute's count */
  store_samples_t s;
  store_bytes_t scratch;
  int failed;
} trend_ctx_t;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Distinct values of the run's execution indices. */
static size_t distinct_executions(store_ids_t *e) {
  if (e->count) qsort(e->items, e->count, sizeof *e->items, cmp_i64);
  size_t n = 0;
  for (size_t i = 0; i < e->count; i++)
    n += i == 0 || e->items[i] != e->items[i - 1];
  return n;
}

static void trend_finish(trend_ctx_t *c) {
  if (c->t->rows == 0 || c->run < 0) return;
  etk_cell_t *cells = c->t->cells + (c->t->rows - 1) * c->t->cols;
  store_quantiles_t s;
  store_durations_summary(&c->d, &s);
  etk_cell_set_int(&cells[3], (int64_t)s.count);
  etk_cell_set_float(&cells[4], s.median);
  etk_cell_set_float(&cells[5], s.mean);
  etk_cell_set_float(&cells[6], s.min);
  etk_cell_set_float(&cells[7], s.max);
  /* a stats-mode run keeps no execution index: its block's Method::execute
   * sketch counts the executions */
  size_t executions =
      s.from_sketch ? (size_t)c->sketch_execs : distinct_executions(&c->execs);
  etk_cell_set_float(&cells[8], executions ? s.sum / (double)executions : NAN);
  etk_cell_set_float(&cells[9], s.p90);
  etk_cell_set_float(&cells[10], s.p99);
  etk_cell_set_float(&cells[11], s.bound);
  (void)store_cell_text(&cells[12], s.from_sketch ? "sketch" : "samples");
  store_durations_clear(&c->d);
  c->execs.count = 0;
  c->sketch_execs = 0;
}

static int trend_row(void *ctx, const store_row_t *row) {
  trend_ctx_t *c = ctx;
  const store_engine_ops_t *o = row->ops;
  int64_t run = o->get_int(row, 0);
  if (run != c->run) {
    trend_finish(c);
    c->run = run;
    etk_cell_t *cells = store_table_row(c->t);
    if (!cells) return c->failed = ETK_E_NO_MEMORY;
    char when[32];
    store_format_time(o->get_int(row, 1), when, sizeof when);
    etk_cell_set_int(&cells[0], run);
    if (!store_cell_text(&cells[1], when) ||
        !store_cell_text(&cells[2],
                         o->is_null(row, 2) ? NULL : o->get_text(row, 2)))
      return c->failed = ETK_E_NO_MEMORY;
  }
  size_t before = c->d.ms.count;
  int rc = store_durations_row(&c->d, row, 3, 5, &c->s, &c->scratch);
  if (rc) return c->failed = rc;
  if (c->d.ms.count != before) /* a full run's samples */
    for (size_t i = 0; i < c->s.count; i++)
      if (!store_ids_push(&c->execs, c->s.executions[i]))
        return c->failed = ETK_E_NO_MEMORY;
  if (!o->is_null(row, 7) && o->get_int(row, 7) > c->sketch_execs)
    c->sketch_execs = o->get_int(row, 7);
  return 0;
}

static void trend_filter(etk_store_trend_kind_t kind, const char *name,
                         store_sql_t *sql) {
  switch (kind) {
    case ETK_STORE_TREND_MODULE:
      etk_strbuf_appends(&sql->text, " AND (o.module = ");
      store_sql_param(sql, store_text(name));
      etk_strbuf_appends(&sql->text, " OR substr(o.module, 1, length(CAST(");
      store_sql_param(sql, store_text(name));
      etk_strbuf_appends(&sql->text, " AS TEXT)) + 1) = ");
      store_sql_param(sql, store_text(name));
      etk_strbuf_appends(&sql->text, " || '.')");
      /* a kernel's OPERATOR_CALL wrapper holds the same time: counting
       * both would double the module (the inspector counts it once) */
      etk_strbuf_appends(&sql->text,
                         " AND NOT (o.name = 'OPERATOR_CALL' AND EXISTS "
                         "(SELECT 1 FROM operators k WHERE k.run_id = "
                         "o.run_id AND k.block = o.block AND "
                         "k.instruction_id = o.instruction_id AND k.name <> "
                         "'OPERATOR_CALL'))");
      break;
    case ETK_STORE_TREND_METHOD:
      etk_strbuf_appends(&sql->text,
                         " AND o.name = 'Method::execute' AND EXISTS (SELECT "
                         "1 FROM blocks b WHERE b.run_id = o.run_id AND "
                         "b.block = o.block AND (b.name = ");
      store_sql_param(sql, store_text(name));
      etk_strbuf_appends(&sql->text, " OR b.method = ");
      store_sql_param(sql, store_text(name));
      etk_strbuf_appends(&sql->text, "))");
      break;
    default:
      etk_strbuf_appends(&sql->text, " AND o.name = ");
      store_sql_param(sql, store_text(name));
      break;
  }
}

int etk_store_trend(etk_store_t *st, etk_store_trend_kind_t kind,
                    const char *name, const etk_store_where_t *where,
                    etk_store_table_t *out, etk_error_t *err) {
  if (!st || !name || !out) return ETK_E_INVALID_ARGUMENT;
  if (store_table_init(out, trend_headers, TREND_COLS))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  store_sql_t sql = {0};
  etk_strbuf_appends(
      &sql.text,
      "SELECT o.run_id, (SELECT r2.added_at FROM runs r2 WHERE r2.id = "
      "o.run_id), (SELECT t.value FROM run_tags t WHERE t.run_id = o.run_id "
      "AND t.key = 'commit'), o.durations, o.executions, ");
  /* a stats-mode run's sketch (schema version 4), and the count of its
   * block's Method::execute sketch: the run's executions */
  etk_strbuf_appends(
      &sql.text,
      st->version >= 4
          ? "l.ticks_per_ms, l.sketch, CASE WHEN l.sketch IS NULL THEN NULL "
            "ELSE (SELECT max(l2.count) FROM operators o2 JOIN "
            "latency_sketches l2 ON l2.run_id = o2.run_id AND l2.op = o2.op "
            "WHERE o2.run_id = o.run_id AND o2.block = o.block AND o2.name = "
            "'Method::execute') END FROM operators o LEFT JOIN "
            "latency_sketches l ON l.run_id = o.run_id AND l.op = o.op WHERE "
            "1 = 1"
          : "NULL, NULL, NULL FROM operators o WHERE 1 = 1");
  trend_filter(kind, name, &sql);
  etk_strbuf_appends(&sql.text, " AND");
  int rc = store_runs_in(st, "o.run_id", where, &sql, err);
  trend_ctx_t c;
  memset(&c, 0, sizeof c);
  c.t = out;
  c.run = -1;
  etk_strbuf_appends(&sql.text, " ORDER BY o.run_id, o.op");
  if (rc == ETK_OK)
    rc = store_q(st, sql.text.data, sql.params, sql.count, trend_row, &c, err);
  trend_finish(&c);
  store_durations_free(&c.d);
  free(c.execs.items);
  free(c.scratch.data);
  store_samples_free(&c.s);
  store_sql_free(&sql);
  if (rc == c.failed && c.failed) rc = store_durations_error(c.failed, err);
  if (rc) etk_store_table_free(out);
  return rc;
}

/* The narrow trend's columns: run, added, commit (cut), count (samples),
 * median,
 * p90, p99, per_execution ("per exec"), error_bound as text. */
static const char *const trend_narrow_headers[] = {
    "run", "added", "commit",   "count", "median",
    "p90", "p99",   "per exec", "bound"};
static const size_t trend_narrow_from[] = {0, 1, 2, 3, 4, 9, 10, 8, 11};
#define TREND_NARROW_COLS 9
#define TREND_NARROW_COMMIT 8

/* A copy of a cell (text duplicated); false when out of memory. */
static bool copy_cell(etk_cell_t *to, const etk_cell_t *from) {
  if (from->kind != ETK_CELL_TEXT) {
    *to = *from;
    return true;
  }
  return store_cell_text(to, from->text);
}

int etk_store_trend_table_narrow(const etk_store_table_t *trend,
                                 etk_store_table_t *out, etk_error_t *err) {
  if (!trend || !out || trend->cols != TREND_COLS)
    return ETK_E_INVALID_ARGUMENT;
  if (store_table_init(out, trend_narrow_headers, TREND_NARROW_COLS))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t r = 0; r < trend->rows; r++) {
    const etk_cell_t *in = trend->cells + r * trend->cols;
    etk_cell_t *cells = store_table_row(out);
    bool ok = cells != NULL;
    for (size_t k = 0; ok && k < TREND_NARROW_COLS - 1; k++)
      ok = copy_cell(&cells[k], &in[trend_narrow_from[k]]);
    /* to the minute: the seconds are in --wide */
    if (ok && cells[1].kind == ETK_CELL_TEXT && cells[1].len == 19) {
      ((char *)cells[1].text)[16] = '\0';
      cells[1].len = 16;
    }
    if (ok && cells[2].kind == ETK_CELL_TEXT &&
        strlen(cells[2].text) > TREND_NARROW_COMMIT) {
      /* a commit's first characters name it; the ellipsis says it is cut */
      char cut[TREND_NARROW_COMMIT + 4];
      int keep = TREND_NARROW_COMMIT - 1; /* never inside a UTF-8 sequence */
      while (keep > 0 && ((unsigned char)cells[2].text[keep] & 0xC0) == 0x80)
        keep--;
      snprintf(cut, sizeof cut, "%.*s\u2026", keep, cells[2].text);
      free((char *)cells[2].text);
      etk_cell_set_none(&cells[2]);
      ok = store_cell_text(&cells[2], cut);
    }
    char bound[24];
    const etk_cell_t *b = &in[11];
    if (b->kind == ETK_CELL_FLOAT && b->f > 0)
      snprintf(bound, sizeof bound, "\u00b1%.3g%%", b->f * 100.0);
    else
      snprintf(bound, sizeof bound, "exact");
    ok = ok && store_cell_text(&cells[8], bound);
    if (!ok) {
      etk_store_table_free(out);
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    }
  }
  return ETK_OK;
}

/* ------------------------------------------------ closest names */

#define CLOSEST_MAX 3

typedef struct closest_ctx {
  const char *name;
  char *best[CLOSEST_MAX];
  size_t dist[CLOSEST_MAX];
  int failed;
} closest_ctx_t;

/* Levenshtein distance of a and b, each cut at 64 bytes (plenty to rank
 * a misspelling). */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strnlen(a, 64), lb = strnlen(b, 64), row[65];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t v = diag + (a[i - 1] != b[j - 1]);
      if (row[j] + 1 < v) v = row[j] + 1;
      if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
      row[j] = v;
      diag = up;
    }
  }
  return row[lb];
}

static int closest_row(void *ctx, const store_row_t *row) {
  closest_ctx_t *c = ctx;
  if (row->ops->is_null(row, 0)) return 0;
  const char *v = row->ops->get_text(row, 0);
  size_t d = edit_distance(c->name, v);
  size_t k = CLOSEST_MAX;
  while (k > 0 && (!c->best[k - 1] || d < c->dist[k - 1])) k--;
  if (k == CLOSEST_MAX) return 0;
  char *copy = strdup(v);
  if (!copy) return c->failed = ETK_E_NO_MEMORY;
  free(c->best[CLOSEST_MAX - 1]);
  memmove(&c->best[k + 1], &c->best[k],
          (CLOSEST_MAX - 1 - k) * sizeof c->best[0]);
  memmove(&c->dist[k + 1], &c->dist[k],
          (CLOSEST_MAX - 1 - k) * sizeof c->dist[0]);
  c->best[k] = copy;
  c->dist[k] = d;
  return 0;
}

int etk_store_closest_names(etk_store_t *st, int kind, const char *name,
                            char *buf, size_t size, etk_error_t *err) {
  if (!st || !name || !buf || size == 0) return ETK_E_INVALID_ARGUMENT;
  buf[0] = '\0';
  const char *sql =
      kind == ETK_STORE_TREND_MODULE   ? "SELECT DISTINCT module FROM operators"
      : kind == ETK_STORE_TREND_METHOD ? "SELECT DISTINCT name FROM blocks"
                                       : "SELECT DISTINCT name FROM operators";
  closest_ctx_t c;
  memset(&c, 0, sizeof c);
  c.name = name;
  int rc = store_q(st, sql, NULL, 0, closest_row, &c, err);
  if (rc == c.failed && c.failed)
    rc = etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  size_t used = 0;
  for (size_t k = 0; k < CLOSEST_MAX && c.best[k]; k++) {
    int n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", c.best[k]);
    if (n > 0) used += (size_t)n < size - used ? (size_t)n : size - used - 1;
    free(c.best[k]);
  }
  return rc;
}

/* ------------------------------------------------------------- prune */

static int delete_run(etk_store_t *st, int64_t id, etk_error_t *err) {
  static const char *const tables[] = {"operators",        "blocks",
                                       "run_tags",         "memory_plan",
                                       "latency_sketches", "tensor_stats"};
  store_value_t p = store_int(id);
  char sql[64];
  size_t n = st->version >= 5 ? 6u : st->version >= 4 ? 5u : 4u;
  for (size_t i = 0; i < n; i++) {
    snprintf(sql, sizeof sql, "DELETE FROM %s WHERE run_id = $1", tables[i]);
    int rc = store_q(st, sql, &p, 1, NULL, NULL, err);
    if (rc) return rc;
  }
  return store_q(st, "DELETE FROM runs WHERE id = $1", &p, 1, NULL, NULL, err);
}

int etk_store_prune(etk_store_t *st, const etk_store_where_t *where,
                    size_t keep_last, size_t *deleted, etk_error_t *err) {
  if (deleted) *deleted = 0;
  if (!st) return ETK_E_INVALID_ARGUMENT;
  if ((!where || where->count == 0) && keep_last == 0)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "prune needs --where or --keep-last (it never "
                         "deletes every run by default)");
  store_sql_t sql = {0};
  etk_strbuf_appends(&sql.text, "SELECT r.id FROM runs r WHERE 1 = 1");
  int rc = store_where_sql(st, where, &sql, err);
  etk_strbuf_appends(&sql.text, " ORDER BY r.id DESC");
  store_ids_t ids = {0};
  if (rc == ETK_OK && (rc = store_begin(st, err)) == ETK_OK) {
    rc = store_q(st, sql.text.data, sql.params, sql.count, store_ids_row, &ids,
                 err);
    if (rc == ETK_E_NO_MEMORY)
      rc = etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
    for (size_t i = keep_last; rc == ETK_OK && i < ids.count; i++)
      rc = delete_run(st, ids.items[i], err);
    if (rc == ETK_OK) rc = store_commit(st, err);
    if (rc) store_rollback(st);
  }
  if (rc == ETK_OK && deleted && ids.count > keep_last)
    *deleted = ids.count - keep_last;
  free(ids.items);
  store_sql_free(&sql);
  return rc;
}
