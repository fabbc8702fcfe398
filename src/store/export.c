/*
 * export.c - etk_store_export: the matching runs' operators as CSV, JSON or
 * PyTorch benchmark database v3 records, streamed (a store of 10,000 runs
 * never sits in memory at once).
 *
 * DATA LAYOUT
 *   The selected runs' tags are read first into one array ordered by run
 *   id; the operators then stream ordered by (run, op), each row with its
 *   packed samples, and each (run, op) becomes one output row or record
 *   when the next one starts.  A cursor walks the tag array alongside, since
 * both are in run id order.
 *
 * v3 RECORDS
 *   One record per (run, operator): benchmark {name "etkit", mode
 *   "inference", dtype (the run's "dtype" tag), extra_info {run, digest,
 *   method, commit, branch}}, model {name (the "model" tag), type
 *   "executorch", backend (the "backend" tag), origins ["etkit"]}, metric
 *   {name "<method>/<operator>#<instruction> latency(ms)", benchmark_values
 *   (every raw sample), target_value 0, extra_info {operator,
 *   instruction_id, op_type, module, median}}, runners [{name and type
 *   (the "device" tag)}].
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

typedef struct tag_item {
  int64_t run;
  char *key, *value;
} tag_item_t;

typedef struct export_ctx {
  etk_store_export_format_t format;
  etk_render_sink_t *sink;
  etk_json_t json;
  tag_item_t *tags;
  size_t tag_count, tag_cap, cursor;
  /* current group */
  int64_t run, op;
  char *digest, *method, *name, *op_type, *module;
  int64_t added, instruction_id, run_time;
  int has_run_time;
  store_doubles_t v;
  store_samples_t s;
  size_t groups;
  int failed;
} export_ctx_t;

static int tag_item_row(void *ctx, const store_row_t *row) {
  export_ctx_t *c = ctx;
  if (c->tag_count == c->tag_cap) {
    size_t cap = c->tag_cap ? c->tag_cap * 2 : 64;
    tag_item_t *p = realloc(c->tags, cap * sizeof *p);
    if (!p) return c->failed = ETK_E_NO_MEMORY;
    c->tags = p;
    c->tag_cap = cap;
  }
  tag_item_t *t = &c->tags[c->tag_count];
  t->run = row->ops->get_int(row, 0);
  t->key = strdup(row->ops->get_text(row, 1));
  t->value = strdup(row->ops->get_text(row, 2));
  c->tag_count++;
  return t->key && t->value ? 0 : (c->failed = ETK_E_NO_MEMORY);
}

/* The current run's value of tag `key`, or NULL. */
static const char *tag_of(export_ctx_t *c, const char *key) {
  while (c->cursor < c->tag_count && c->tags[c->cursor].run < c->run)
    c->cursor++;
  for (size_t i = c->cursor; i < c->tag_count && c->tags[i].run == c->run; i++)
    if (strcmp(c->tags[i].key, key) == 0) return c->tags[i].value;
  return NULL;
}

static void csv_field(etk_render_sink_t *s, const char *text) {
  if (!text) return;
  if (!strpbrk(text, ",\"\r\n")) {
    etk_render_puts(s, text);
    return;
  }
  etk_render_putc(s, '"');
  for (const char *p = text; *p; p++) {
    if (*p == '"') etk_render_putc(s, '"');
    etk_render_putc(s, *p);
  }
  etk_render_putc(s, '"');
}

static const char *const export_cols[] = {
    "run",      "digest",         "added",   "run_time", "model",
    "device",   "backend",        "commit",  "branch",   "method",
    "operator", "instruction_id", "op_type", "module",   "samples",
    "median",   "mean",           "min",     "max"};
#define EXPORT_COLS 19
#define EXPORT_TEXT 14 /* the columns before samples */
#define EXPORT_IID 11  /* instruction_id, the one integer among them */

/* The run's own time as "YYYY-MM-DD HH:MM:SS" into out, or NULL. */
static const char *run_time_text(const export_ctx_t *c, char *out,
                                 size_t size) {
  if (!c->has_run_time) return NULL;
  store_format_time(c->run_time, out, size);
  return out;
}

static void emit_flat(export_ctx_t *c, const store_summary_t *s) {
  char when[32], num[32], made[32];
  store_format_time(c->added, when, sizeof when);
  const char *text[EXPORT_TEXT] = {NULL,
                                   c->digest,
                                   when,
                                   run_time_text(c, made, sizeof made),
                                   tag_of(c, "model"),
                                   tag_of(c, "device"),
                                   tag_of(c, "backend"),
                                   tag_of(c, "commit"),
                                   tag_of(c, "branch"),
                                   c->method,
                                   c->name,
                                   NULL,
                                   c->op_type,
                                   c->module};
  double stats[4] = {s->median, s->mean, s->min, s->max};
  if (c->format == ETK_STORE_EXPORT_CSV) {
    snprintf(num, sizeof num, "%lld", (long long)c->run);
    csv_field(c->sink, num);
    for (int i = 1; i < EXPORT_TEXT; i++) {
      etk_render_putc(c->sink, ',');
      if (i == EXPORT_IID)
        etk_render_printf(c->sink, "%lld", (long long)c->instruction_id);
      else
        csv_field(c->sink, text[i]);
    }
    etk_render_printf(c->sink, ",%zu", s->count);
    for (int i = 0; i < 4; i++) {
      char d[ETK_FORMAT_DOUBLE_MAX];
      etk_format_double_repr(stats[i], d);
      etk_render_printf(c->sink, ",%s", isfinite(stats[i]) ? d : "");
    }
    etk_render_putc(c->sink, '\n');
    return;
  }
  etk_json_t *j = &c->json;
  etk_json_begin_object(j);
  etk_json_key(j, "run");
  etk_json_int(j, c->run);
  for (int i = 1; i < EXPORT_TEXT; i++) {
    etk_json_key(j, export_cols[i]);
    if (i == EXPORT_IID)
      etk_json_int(j, c->instruction_id);
    else
      etk_json_cstring(j, text[i]);
  }
  etk_json_key(j, "samples");
  etk_json_uint(j, s->count);
  for (int i = 0; i < 4; i++)
    store_json_number(j, export_cols[EXPORT_TEXT + 1 + i], stats[i]);
  etk_json_end_object(j);
}

static void json_text(etk_json_t *j, const char *key, const char *v) {
  etk_json_key(j, key);
  etk_json_cstring(j, v ? v : "");
}

static void emit_v3(export_ctx_t *c, const store_summary_t *s) {
  etk_json_t *j = &c->json;
  etk_json_begin_object(j);
  etk_json_key(j, "benchmark");
  etk_json_begin_object(j);
  json_text(j, "name", "etkit");
  json_text(j, "mode", "inference");
  json_text(j, "dtype", tag_of(c, "dtype"));
  etk_json_key(j, "extra_info");
  etk_json_begin_object(j);
  etk_json_key(j, "run");
  etk_json_int(j, c->run);
  json_text(j, "digest", c->digest);
  json_text(j, "method", c->method);
  json_text(j, "commit", tag_of(c, "commit"));
  json_text(j, "branch", tag_of(c, "branch"));
  char made[32];
  etk_json_key(j, "run_time"); /* the run's own time (UTC), or null */
  etk_json_cstring(j, run_time_text(c, made, sizeof made));
  etk_json_end_object(j);
  etk_json_end_object(j);
  etk_json_key(j, "model");
  etk_json_begin_object(j);
  json_text(j, "name", tag_of(c, "model"));
  json_text(j, "type", "executorch");
  json_text(j, "backend", tag_of(c, "backend"));
  etk_json_key(j, "origins");
  etk_json_begin_array(j);
  etk_json_cstring(j, "etkit");
  etk_json_end_array(j);
  etk_json_end_object(j);
  etk_json_key(j, "metric");
  etk_json_begin_object(j);
  etk_strbuf_t name = {0};
  etk_strbuf_printf(&name, "%s/%s#%lld latency(ms)", c->method, c->name,
                    (long long)c->instruction_id);
  json_text(j, "name", name.failed ? "" : name.data);
  etk_strbuf_free(&name);
  etk_json_key(j, "benchmark_values");
  etk_json_begin_array(j);
  for (size_t i = 0; i < c->v.count; i++) etk_json_double(j, c->v.items[i]);
  etk_json_end_array(j);
  etk_json_key(j, "target_value");
  etk_json_int(j, 0);
  etk_json_key(j, "extra_info");
  etk_json_begin_object(j);
  json_text(j, "operator", c->name);
  etk_json_key(j, "instruction_id");
  etk_json_int(j, c->instruction_id);
  etk_json_key(j, "op_type");
  etk_json_cstring(j, c->op_type);
  etk_json_key(j, "module");
  etk_json_cstring(j, c->module);
  store_json_number(j, "median", s->median);
  etk_json_end_object(j);
  etk_json_end_object(j);
  etk_json_key(j, "runners");
  etk_json_begin_array(j);
  etk_json_begin_object(j);
  json_text(j, "name", tag_of(c, "device"));
  json_text(j, "type", tag_of(c, "device"));
  etk_json_end_object(j);
  etk_json_end_array(j);
  etk_json_end_object(j);
}

static void clear_group(export_ctx_t *c) {
  free(c->digest);
  free(c->method);
  free(c->name);
  free(c->op_type);
  free(c->module);
  c->digest = c->method = c->name = c->op_type = c->module = NULL;
  c->v.count = 0;
}

static void finish_group(export_ctx_t *c) {
  if (!c->name) return;
  double *copy = malloc((c->v.count ? c->v.count : 1) * sizeof *copy);
  if (!copy) {
    c->failed = ETK_E_NO_MEMORY;
    clear_group(c);
    return;
  }
  if (c->v.count) memcpy(copy, c->v.items, c->v.count * sizeof *copy);
  store_summary_t s;
  store_summarize(copy, c->v.count, &s);
  free(copy);
  if (c->format == ETK_STORE_EXPORT_V3)
    emit_v3(c, &s);
  else
    emit_flat(c, &s);
  c->groups++;
  clear_group(c);
}

static char *text_or_null(const store_row_t *row, int col) {
  return row->ops->is_null(row, col) ? NULL
                                     : strdup(row->ops->get_text(row, col));
}

static int export_row(void *ctx, const store_row_t *row) {
  export_ctx_t *c = ctx;
  const store_engine_ops_t *o = row->ops;
  int64_t run = o->get_int(row, 0), op = o->get_int(row, 4);
  if (!c->name || run != c->run || op != c->op) {
    finish_group(c);
    c->run = run;
    c->op = op;
    c->digest = strdup(o->get_text(row, 1));
    c->added = o->get_int(row, 2);
    c->method = strdup(o->get_text(row, 3));
    c->name = strdup(o->get_text(row, 5));
    c->instruction_id = o->get_int(row, 6);
    c->op_type = text_or_null(row, 7);
    c->module = text_or_null(row, 8);
    c->has_run_time = !o->is_null(row, 11);
    c->run_time = c->has_run_time ? o->get_int(row, 11) : 0;
    if (!c->digest || !c->method || !c->name)
      return c->failed = ETK_E_NO_MEMORY;
  }
  int rc = store_read_samples(row, 9, &c->s);
  if (rc || !store_samples_append(&c->s, &c->v))
    return c->failed = rc ? rc : ETK_E_NO_MEMORY;
  return 0;
}

static int run_export(etk_store_t *st, const etk_store_where_t *where,
                      export_ctx_t *c, etk_error_t *err) {
  store_sql_t sql = {0};
  etk_strbuf_appends(&sql.text,
                     "SELECT t.run_id, t.key, t.value FROM run_tags t WHERE");
  int rc = store_runs_in(st, "t.run_id", where, &sql, err);
  etk_strbuf_appends(&sql.text, " ORDER BY t.run_id, t.key");
  if (rc == ETK_OK)
    rc =
        store_q(st, sql.text.data, sql.params, sql.count, tag_item_row, c, err);
  store_sql_free(&sql);
  if (rc) return rc;
  etk_strbuf_printf(
      &sql.text,
      "SELECT r.id, r.digest, r.added_at, coalesce(b.method, b.name), o.op, "
      "o.name, o.instruction_id, o.op_type, o.module, o.durations, "
      "o.executions, %s FROM runs r JOIN operators o ON o.run_id = r.id JOIN "
      "blocks b ON b.run_id = o.run_id AND b.block = o.block WHERE 1 = 1",
      store_run_time_sql(st));
  rc = store_where_sql(st, where, &sql, err);
  etk_strbuf_appends(&sql.text, " ORDER BY r.id, o.op");
  if (rc == ETK_OK)
    rc = store_q(st, sql.text.data, sql.params, sql.count, export_row, c, err);
  store_sql_free(&sql);
  if (rc == ETK_OK) finish_group(c);
  return rc;
}

int etk_store_export(etk_store_t *st, const etk_store_where_t *where,
                     etk_store_export_format_t format, etk_render_sink_t *sink,
                     etk_error_t *err) {
  if (!st || !sink || format > ETK_STORE_EXPORT_V3)
    return ETK_E_INVALID_ARGUMENT;
  export_ctx_t c;
  memset(&c, 0, sizeof c);
  c.format = format;
  c.sink = sink;
  if (format == ETK_STORE_EXPORT_CSV) {
    for (int i = 0; i < EXPORT_COLS; i++)
      etk_render_printf(sink, "%s%s", i ? "," : "", export_cols[i]);
    etk_render_putc(sink, '\n');
  } else {
    etk_json_init(&c.json, sink, 2);
    etk_json_begin_array(&c.json);
  }
  int rc = run_export(st, where, &c, err);
  if (format != ETK_STORE_EXPORT_CSV) {
    etk_json_end_array(&c.json);
    etk_render_putc(sink, '\n');
  }
  clear_group(&c);
  free(c.v.items);
  store_samples_free(&c.s);
  for (size_t i = 0; i < c.tag_count; i++) {
    free(c.tags[i].key);
    free(c.tags[i].value);
  }
  free(c.tags);
  if (c.failed) rc = store_samples_error(c.failed, err);
  return rc;
}
