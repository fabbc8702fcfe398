/*
 * engine.h - the one small interface the store speaks to a database engine
 * through (private to src/store).  Two implementations: engine_sqlite.c
 * (an embedded file) and engine_pg.c (a PostgreSQL server through libpq).
 *
 * SQL is written once for both: parameters are $1, $2, ... (PostgreSQL's
 * syntax; the SQLite engine rewrites them to ?1, ?2, ... which bind the
 * same indices), and the schema's few differences are tokens the engine
 * fills in (store_engine_ops_t.id_type, .without_rowid, .blob_type).  User text
 * only ever reaches the database as a bound parameter.
 */
#ifndef ETKIT_STORE_ENGINE_H
#define ETKIT_STORE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"

typedef enum store_kind {
  STORE_NULL = 0,
  STORE_INT,
  STORE_REAL,
  STORE_TEXT,
  STORE_BLOB
} store_kind_t;

/* A bound parameter.  Text and blobs are borrowed for the call; text must
 * be UTF-8; a blob is s[0..i) (BLOB in SQLite, bytea in PostgreSQL). */
typedef struct store_value {
  int kind; /* store_kind_t */
  int64_t i;
  double f;
  const char *s;
} store_value_t;

/* Bytes read back from a blob column (grown by the engine, reused). */
typedef struct store_bytes {
  uint8_t *data;
  size_t len, cap;
} store_bytes_t;

static inline store_value_t store_int(int64_t i) {
  store_value_t v = {STORE_INT, i, 0.0, NULL};
  return v;
}
static inline store_value_t store_real(double f) {
  store_value_t v = {STORE_REAL, 0, f, NULL};
  return v;
}
static inline store_value_t store_text(const char *s) {
  store_value_t v = {s ? STORE_TEXT : STORE_NULL, 0, 0.0, s};
  return v;
}
/* NULL data is SQL NULL. */
static inline store_value_t store_blob(const void *data, size_t len) {
  store_value_t v = {data ? STORE_BLOB : STORE_NULL, (int64_t)len, 0.0,
                     (const char *)data};
  return v;
}

struct store_engine_ops;

/* One result row, valid during the row callback only. */
typedef struct store_row {
  const struct store_engine_ops *ops;
  void *handle; /* sqlite3_stmt * or PGresult * */
  int index;    /* row number (PostgreSQL) */
} store_row_t;

/* Called per result row; a non-zero return stops the query and is
 * returned by it. */
typedef int (*store_row_fn)(void *ctx, const store_row_t *row);

typedef struct store_engine_ops {
  const char *name;          /* "sqlite" or "postgresql" */
  const char *id_type;       /* the runs.id column type */
  const char *without_rowid; /* suffix of clustered tables ("" or ...) */
  const char *blob_type;     /* "BLOB" or "BYTEA" */
  /* Runs one statement with params[0..n) bound as $1..$n; rows (if any)
   * go to fn (may be NULL).  ETK_E_IO with err set on a database error. */
  int (*query)(void *conn, const char *sql, const store_value_t *params,
               size_t n, store_row_fn fn, void *ctx, etk_error_t *err);
  /* Inserts rows x cols values (row-major) into `target` ("table (a, b)",
   * cols names), the way the engine does it fastest: SQLite steps one
   * prepared INSERT per row, PostgreSQL streams one COPY.  ETK_E_IO on a
   * database error. */
  int (*insert_rows)(void *conn, const char *target, size_t cols,
                     const store_value_t *values, size_t rows,
                     etk_error_t *err);
  /* Starts a write transaction (SQLite: BEGIN IMMEDIATE, so writers queue
   * on the busy handler instead of deadlocking on an upgrade). */
  int (*begin)(void *conn, etk_error_t *err);
  /* Takes the schema lock inside the transaction (PostgreSQL: an advisory
   * transaction lock, so concurrent first opens create the tables once);
   * NULL when the write transaction already serialises. */
  int (*lock_schema)(void *conn, etk_error_t *err);
  int (*is_null)(const store_row_t *row, int col);
  int64_t (*get_int)(const store_row_t *row, int col);
  double (*get_real)(const store_row_t *row, int col);
  const char *(*get_text)(const store_row_t *row, int col); /* "" for NULL */
  /* A blob column's bytes into *out (replacing its contents; NULL gives
   * 0 bytes).  ETK_E_NO_MEMORY, ETK_E_FORMAT (PostgreSQL: not hex). */
  int (*get_blob)(const store_row_t *row, int col, store_bytes_t *out);
  void (*close)(void *conn);
} store_engine_ops_t;

/* Opens a SQLite file (a path, or a "file:" URI).  `create` 0 refuses a
 * missing file.  ETK_E_IO naming the path. */
int store_sqlite_open(const char *path, int create, int read_only,
                      const store_engine_ops_t **ops, void **conn,
                      etk_error_t *err);

/* Connects to a "postgresql://" or "postgres://" URI (or a libpq keyword
 * string).  ETK_E_IO with the server's first message line; ETK_E_UNSUPPORTED
 * when etkit was built without libpq. */
int store_pg_open(const char *uri, const store_engine_ops_t **ops, void **conn,
                  etk_error_t *err);

#endif
