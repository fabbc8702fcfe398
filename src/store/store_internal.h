/*
 * store_internal.h - what the files of src/store share: the store handle,
 * transactions, SQL text with its bound values, run selection, result
 * tables and the digest.
 */
#ifndef ETKIT_STORE_INTERNAL_H
#define ETKIT_STORE_INTERNAL_H

#include <stdbool.h>

#include "engine.h"
#include "etkit/sketch.h"
#include "etkit/store.h"

struct etk_store {
  const store_engine_ops_t *ops;
  void *conn;
  int read_only;
  char *created;   /* ETK_STORE_DROP_NEW_EMPTY: the file this open made */
  int lock_fd;     /* a writer's flock(LOCK_SH) on its SQLite file, or -1 */
  int64_t version; /* the schema version of the open store */
};

/* The SQL of the run's own time of runs aliased `r`: "r.run_time", or a
 * NULL on a version-2 store read without migrating. */
const char *store_run_time_sql(const etk_store_t *st);

/* Runs one statement (see store_engine_ops_t.query). */
int store_q(etk_store_t *st, const char *sql, const store_value_t *params,
            size_t n, store_row_fn fn, void *ctx, etk_error_t *err);

/* Write transactions: begin, then commit or roll back (rollback never
 * fails visibly: the engine discards the transaction either way). */
int store_begin(etk_store_t *st, etk_error_t *err);
int store_commit(etk_store_t *st, etk_error_t *err);
void store_rollback(etk_store_t *st);

/* SQL being built, with the values its $N placeholders bind. */
typedef struct store_sql {
  etk_strbuf_t text;
  store_value_t *params;
  size_t count, cap;
} store_sql_t;

void store_sql_free(store_sql_t *s);
/* Appends a value and "$<its index>" to the text. */
bool store_sql_param(store_sql_t *s, store_value_t v);
/* false when an allocation failed (the SQL is then unusable). */
bool store_sql_ok(const store_sql_t *s);

/* Appends " AND <condition>" for each condition of `where` on runs
 * aliased `r`.  Checks the keys (ETK_E_NOT_FOUND for an unknown key,
 * ETK_E_INVALID_ARGUMENT for a bad value). */
int store_where_sql(etk_store_t *st, const etk_store_where_t *where,
                    store_sql_t *sql, etk_error_t *err);

/* Appends " <column> IN (SELECT r.id FROM runs r WHERE <where>)": the
 * selected runs as a set, so the planner starts from the other table's
 * index (operators_name for an operator, run_tags' key for tags). */
int store_runs_in(etk_store_t *st, const char *column,
                  const etk_store_where_t *where, store_sql_t *sql,
                  etk_error_t *err);

/* "key": v, or null when v is not finite (NaN, infinity). */
void store_json_number(etk_json_t *j, const char *key, double v);

/* Result-table building: store_table_init sets the headers; each
 * store_table_row appends a row of cells set to None and returns it (NULL
 * when out of memory); text setters copy. */
int store_table_init(etk_store_table_t *t, const char *const *headers,
                     size_t cols);
etk_cell_t *store_table_row(etk_store_table_t *t);
bool store_cell_text(etk_cell_t *c, const char *text);

/* Statistics of one sample list, sorted in place: median, mean, min, max. */
typedef struct store_summary {
  size_t count;
  double median, mean, min, max, sum;
} store_summary_t;
void store_summarize(double *v, size_t n, store_summary_t *out);

/* "YYYY-MM-DD HH:MM:SS" (UTC) of unix seconds into out[20+]. */
void store_format_time(int64_t t, char *out, size_t size);

/* SHA-256 of data[0..len) as 64 lower-case hex digits and a NUL. */
void store_sha256_hex(const uint8_t *data, size_t len, char out[65]);
/* The same without the processor's SHA instructions (for the tests). */
void store_sha256_hex_portable(const uint8_t *data, size_t len, char out[65]);

/* Makes room for one more item in a growable array of `size`-byte items
 * (*items, *cap; count in use), doubling it; false when out of memory. */
bool store_grow(void **items, size_t *cap, size_t count, size_t size);

/* A growable list of doubles. */
typedef struct store_doubles {
  double *items;
  size_t count, cap;
} store_doubles_t;
bool store_doubles_push(store_doubles_t *v, double x);

/* A growable list of run ids. */
typedef struct store_ids {
  int64_t *items;
  size_t count, cap;
} store_ids_t;
bool store_ids_push(store_ids_t *v, int64_t x);
/* Row callback: appends column 0 to the store_ids_t ctx (ETK_E_NO_MEMORY
 * stops the query). */
int store_ids_row(void *ctx, const store_row_t *row);

/* ---- packed samples (packed.c; schema version 2) */

/* n values as little-endian binary64 / int64 into out[0..8n). */
void store_pack_f64(const double *v, size_t n, uint8_t *out);
void store_pack_i64(const int64_t *v, size_t n, uint8_t *out);

/* One operator's samples read back: durations (ms, NaN where the dump had
 * none) and the execution index of each. */
typedef struct store_samples {
  double *durations;
  int64_t *executions;
  size_t count, cap;
  store_bytes_t raw; /* scratch */
} store_samples_t;

/* Reads the packed durations in column `col` and executions in `col + 1`
 * of a row (replacing s's contents).  ETK_E_NO_MEMORY, ETK_E_FORMAT. */
int store_read_samples(const store_row_t *row, int col, store_samples_t *s);
void store_samples_free(store_samples_t *s);
/* Appends s's durations that are not NaN to v; false when out of memory. */
bool store_samples_append(const store_samples_t *s, store_doubles_t *v);
/* Sets err for a store_read_samples failure; returns rc. */
int store_samples_error(int rc, etk_error_t *err);

/* One table cell as a JSON value (NaN and None as null). */
void store_json_cell(etk_json_t *j, const etk_cell_t *c);

/* ---- durations of stored rows, full or stats-mode (store_durations.c) */

/* The durations of some operator rows: the samples of rows without a
 * latency sketch (ms) and the merged sketches of rows with one (ticks at
 * ticks_per_ms).  Zero-initialise; store_durations_free releases it. */
typedef struct store_durations {
  store_doubles_t ms;
  etk_sketch_t sketch;
  double ticks_per_ms; /* of the merged sketches (0: none yet) */
  size_t sketches;     /* sketches merged */
} store_durations_t;

/* Their summary.  Without a sketch: exact (bound 0), median = p50, p90
 * and p99 interpolated between the sorted samples (numpy's default).
 * With one: the
 * samples added to the sketch, count/min/max/sum/mean exact, median = p50
 * and p90/p99 the sketch's, each within `bound` (relative). */
typedef struct store_quantiles {
  size_t count;
  double median, p50, p90, p99, mean, min, max, sum;
  double bound;
  int from_sketch;
} store_quantiles_t;

void store_durations_clear(store_durations_t *d);
void store_durations_free(store_durations_t *d);
/* The sketch of a row: ticks_per_ms in column `col`, the sketch's bytes in
 * `col + 1` (both NULL: no sketch).  1 and *out, 0 for none,
 * -ETK_E_FORMAT (damaged) or -ETK_E_NO_MEMORY. */
int store_read_sketch(const store_row_t *row, int col, store_bytes_t *scratch,
                      etk_sketch_t *out);
/* Merges one sketch in.  ETK_E_MISMATCH: another tick rate or relative
 * error than those merged so far (d unchanged). */
int store_durations_merge(store_durations_t *d, const etk_sketch_t *s,
                          double ticks_per_ms);
/* Adds one operator row: its sketch (columns sketch_col, sketch_col + 1;
 * sketch_col < 0: none) when it has one, else its packed samples (columns
 * samples_col, samples_col + 1).  ETK_E_FORMAT, ETK_E_MISMATCH,
 * ETK_E_NO_MEMORY. */
int store_durations_row(store_durations_t *d, const store_row_t *row,
                        int samples_col, int sketch_col, store_samples_t *s,
                        store_bytes_t *scratch);
/* Summarises d (sorting its samples; with a sketch, moving them into it). */
void store_durations_summary(store_durations_t *d, store_quantiles_t *out);
/* Sets err for a failure of store_durations_row; returns rc. */
int store_durations_error(int rc, etk_error_t *err);

/* Migration 1 -> 2: packs every v1 `samples` row into its operator. */
int store_migrate_pack(etk_store_t *st, etk_error_t *err);

#endif
