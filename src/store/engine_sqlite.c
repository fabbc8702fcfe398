/*
 * engine_sqlite.c - the store's SQLite engine (engine.h): one database file,
 * opened in WAL mode with a busy handler so that many processes can add
 * runs to it at once.
 *
 * DATA LAYOUT
 *   The connection keeps a small cache of prepared statements keyed by
 *   their SQL text: the batched INSERTs of an add repeat the same text
 *   hundreds of times, and preparing once saves most of their cost.  The
 *   cache is a fixed array with round-robin replacement.
 *
 * INVARIANTS
 *   - "$N" parameters become "?N" (same length, same index) outside quoted
 *     text before preparing; values are always bound, never formatted in.
 *   - Writers start with BEGIN IMMEDIATE: the write lock is taken at the
 *     start, so two writers never both hold a read lock and wait for each
 *     other to upgrade (SQLITE_BUSY without the busy handler's help).
 *   - Every statement is reset after use, so no read transaction outlives
 *     a query and WAL checkpoints are not blocked.
 */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define CACHE_SLOTS 16
static const store_engine_ops_t sqlite_ops;
#define BUSY_TIMEOUT_MS 120000

typedef struct cached {
  char *sql;
  sqlite3_stmt *stmt;
} cached_t;

typedef struct sqlite_conn {
  sqlite3 *db;
  char *path;
  cached_t cache[CACHE_SLOTS];
  unsigned next;
} sqlite_conn_t;

static int fail(sqlite_conn_t *c, etk_error_t *err, const char *what) {
  return etk_error_set_where(err, c->path, ETK_E_IO, "%s: %s", what,
                             sqlite3_errmsg(c->db));
}

static char *rewrite_params(const char *sql) {
  size_t n = strlen(sql);
  char *out = malloc(n + 1);
  if (!out) return NULL;
  int quoted = 0;
  for (size_t i = 0; i <= n; i++) {
    char ch = sql[i];
    if (ch == '\'') quoted = !quoted;
    if (!quoted && ch == '$' && sql[i + 1] >= '0' && sql[i + 1] <= '9')
      ch = '?';
    out[i] = ch;
  }
  return out;
}

static sqlite3_stmt *prepare(sqlite_conn_t *c, const char *sql,
                             etk_error_t *err) {
  for (unsigned i = 0; i < CACHE_SLOTS; i++)
    if (c->cache[i].sql && strcmp(c->cache[i].sql, sql) == 0)
      return c->cache[i].stmt;
  char *text = rewrite_params(sql);
  char *key = text ? strdup(sql) : NULL;
  sqlite3_stmt *stmt = NULL;
  if (!text || !key) {
    free(text);
    free(key);
    etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
    return NULL;
  }
  int rc = sqlite3_prepare_v2(c->db, text, -1, &stmt, NULL);
  free(text);
  if (rc != SQLITE_OK) {
    free(key);
    fail(c, err, "cannot prepare a statement");
    return NULL;
  }
  cached_t *slot = &c->cache[c->next++ % CACHE_SLOTS];
  sqlite3_finalize(slot->stmt);
  free(slot->sql);
  slot->sql = key;
  slot->stmt = stmt;
  return stmt;
}

static int bind(sqlite3_stmt *stmt, const store_value_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int idx = (int)i + 1, rc;
    switch (p[i].kind) {
      case STORE_INT:
        rc = sqlite3_bind_int64(stmt, idx, p[i].i);
        break;
      case STORE_REAL:
        rc = sqlite3_bind_double(stmt, idx, p[i].f);
        break;
      case STORE_TEXT:
        rc = sqlite3_bind_text(stmt, idx, p[i].s, -1, SQLITE_STATIC);
        break;
      case STORE_BLOB:
        rc = sqlite3_bind_blob64(stmt, idx, p[i].s, (sqlite3_uint64)p[i].i,
                                 SQLITE_STATIC);
        break;
      default:
        rc = sqlite3_bind_null(stmt, idx);
        break;
    }
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

static int sq_query(void *conn, const char *sql, const store_value_t *params,
                    size_t n, store_row_fn fn, void *ctx, etk_error_t *err) {
  sqlite_conn_t *c = conn;
  sqlite3_stmt *stmt = prepare(c, sql, err);
  if (!stmt) return err && err->code ? err->code : ETK_E_IO;
  if (bind(stmt, params, n) != SQLITE_OK) {
    sqlite3_reset(stmt);
    return fail(c, err, "cannot bind a value");
  }
  store_row_t row = {&sqlite_ops, stmt, 0};
  int rc, out = ETK_OK;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    if (fn && (out = fn(ctx, &row)) != 0) break;
    row.index++;
  }
  if (out == ETK_OK && rc != SQLITE_DONE) out = fail(c, err, "query failed");
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  return out;
}

static int sq_insert_rows(void *conn, const char *target, size_t cols,
                          const store_value_t *values, size_t rows,
                          etk_error_t *err) {
  sqlite_conn_t *c = conn;
  char sql[1024];
  size_t n =
      (size_t)snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (", target);
  for (size_t i = 0; i < cols && n < sizeof sql; i++)
    n +=
        (size_t)snprintf(sql + n, sizeof sql - n, i ? ", $%zu" : "$%zu", i + 1);
  if (n + 2 > sizeof sql)
    return etk_error_set(err, ETK_E_INTERNAL, ETK_NO_OFFSET,
                         "INSERT statement too long");
  memcpy(sql + n, ")", 2);
  sqlite3_stmt *stmt = prepare(c, sql, err);
  if (!stmt) return err && err->code ? err->code : ETK_E_IO;
  for (size_t r = 0; r < rows; r++) {
    int rc = bind(stmt, values + r * cols, cols);
    if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE) return fail(c, err, "insert failed");
  }
  sqlite3_clear_bindings(stmt);
  return ETK_OK;
}

static int sq_exec(sqlite_conn_t *c, const char *sql, etk_error_t *err) {
  char *msg = NULL;
  if (sqlite3_exec(c->db, sql, NULL, NULL, &msg) == SQLITE_OK) return ETK_OK;
  etk_error_set_where(err, c->path, ETK_E_IO, "%s: %s", sql,
                      msg ? msg : sqlite3_errmsg(c->db));
  sqlite3_free(msg);
  return ETK_E_IO;
}

static int sq_begin(void *conn, etk_error_t *err) {
  return sq_exec(conn, "BEGIN IMMEDIATE", err);
}

static int sq_is_null(const store_row_t *r, int col) {
  return sqlite3_column_type(r->handle, col) == SQLITE_NULL;
}
static int64_t sq_int(const store_row_t *r, int col) {
  return sqlite3_column_int64(r->handle, col);
}
static double sq_real(const store_row_t *r, int col) {
  return sqlite3_column_double(r->handle, col);
}
static const char *sq_text(const store_row_t *r, int col) {
  const unsigned char *t = sqlite3_column_text(r->handle, col);
  return t ? (const char *)t : "";
}

static int sq_blob(const store_row_t *r, int col, store_bytes_t *out) {
  const void *p = sqlite3_column_blob(r->handle, col);
  size_t n = (size_t)sqlite3_column_bytes(r->handle, col);
  out->len = 0;
  if (!p || !n) return ETK_OK;
  if (n > out->cap) {
    uint8_t *d = realloc(out->data, n);
    if (!d) return ETK_E_NO_MEMORY;
    out->data = d;
    out->cap = n;
  }
  memcpy(out->data, p, n);
  out->len = n;
  return ETK_OK;
}

static void sq_close(void *conn) {
  sqlite_conn_t *c = conn;
  if (!c) return;
  for (unsigned i = 0; i < CACHE_SLOTS; i++) {
    sqlite3_finalize(c->cache[i].stmt);
    free(c->cache[i].sql);
  }
  sqlite3_close(c->db);
  free(c->path);
  free(c);
}

static const store_engine_ops_t sqlite_ops = {.name = "sqlite",
                                              .id_type = "INTEGER PRIMARY KEY",
                                              .without_rowid = " WITHOUT ROWID",
                                              .blob_type = "BLOB",
                                              .query = sq_query,
                                              .insert_rows = sq_insert_rows,
                                              .begin = sq_begin,
                                              .lock_schema = NULL,
                                              .is_null = sq_is_null,
                                              .get_int = sq_int,
                                              .get_real = sq_real,
                                              .get_text = sq_text,
                                              .get_blob = sq_blob,
                                              .close = sq_close};

/* "file:PATH?immutable=1" (or PATH's own "file:" URI with the parameter
 * added), PATH's '?', '#' and '%' percent-encoded; NULL when out of
 * memory. */
static char *immutable_uri(const char *path) {
  int is_uri = strncmp(path, "file:", 5) == 0;
  size_t n = strlen(path);
  char *u = malloc(3 * n + 32);
  if (!u) return NULL;
  char *o = u;
  if (is_uri) {
    memcpy(o, path, n);
    o += n;
  } else {
    memcpy(o, "file:", 5);
    o += 5;
    for (const char *p = path; *p; p++) {
      if (*p == '?' || *p == '#' || *p == '%') {
        static const char hex[] = "0123456789ABCDEF";
        *o++ = '%';
        *o++ = hex[(unsigned char)*p >> 4];
        *o++ = hex[*p & 15];
      } else {
        *o++ = *p;
      }
    }
  }
  strcpy(o, is_uri && strchr(path, '?') ? "&immutable=1" : "?immutable=1");
  return u;
}

/* A read-only store in a directory nobody may write (an archive): a WAL
 * database cannot make its -shm file there and every read fails with
 * "attempt to write a readonly database".  Opened as immutable (no locks,
 * no shared memory), it reads: an archive does not change underneath. */
static int reopen_immutable(sqlite_conn_t *c) {
  int rc = sqlite3_exec(c->db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
                        NULL);
  if ((rc & 0xff) != SQLITE_READONLY && (rc & 0xff) != SQLITE_CANTOPEN)
    return SQLITE_OK;
  char *uri = immutable_uri(c->path);
  if (!uri) return SQLITE_NOMEM;
  sqlite3 *db = NULL;
  rc = sqlite3_open_v2(
      uri, &db, SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READONLY,
      NULL);
  free(uri);
  if (rc != SQLITE_OK) {
    sqlite3_close(db);
    return SQLITE_OK; /* keep the first connection: its error is the one */
  }
  sqlite3_close(c->db);
  c->db = db;
  return SQLITE_OK;
}

/* 1 when the database holds tables but none is etkit's etk_migrations:
 * another program's database, which an add must not fill with its tables
 * nor switch to WAL. */
static int foreign_database(sqlite_conn_t *c) {
  sqlite3_stmt *st = NULL;
  int tables = 0, ours = 0;
  if (sqlite3_prepare_v2(c->db,
                         "SELECT count(*), coalesce(sum(name = "
                         "'etk_migrations'), 0) FROM sqlite_master WHERE "
                         "type = 'table' AND name NOT LIKE 'sqlite_%'",
                         -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    tables = sqlite3_column_int(st, 0);
    ours = sqlite3_column_int(st, 1);
  }
  sqlite3_finalize(st);
  return tables > 0 && !ours;
}

int store_sqlite_open(const char *path, int create, int read_only,
                      const store_engine_ops_t **ops, void **conn,
                      etk_error_t *err) {
  sqlite_conn_t *c = calloc(1, sizeof *c);
  if (!c || !(c->path = strdup(path))) {
    free(c);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  int flags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX |
              (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE);
  if (create && !read_only) flags |= SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path, &c->db, flags, NULL) != SQLITE_OK) {
    int rc = c->db ? fail(c, err, "cannot open the database")
                   : etk_error_set_where(err, path, ETK_E_NO_MEMORY,
                                         "out of memory");
    sq_close(c);
    return rc;
  }
  if (read_only && reopen_immutable(c) == SQLITE_NOMEM) {
    sq_close(c);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
  sqlite3_extended_result_codes(c->db, 1);
  /* WAL lets readers run beside the one writer; NORMAL sync is durable at
   * every checkpoint and never corrupts (a crash may lose the last
   * commits, never half of one). */
  if (!read_only && foreign_database(c)) {
    sq_close(c);
    return etk_error_set_where(err, path, ETK_E_FORMAT,
                               "not an etkit store: the database holds other "
                               "tables (no etk_migrations table); nothing "
                               "was added to it");
  }
  if (!read_only && (sq_exec(c, "PRAGMA journal_mode=WAL", err) != ETK_OK ||
                     sq_exec(c, "PRAGMA synchronous=NORMAL", err) != ETK_OK)) {
    sq_close(c);
    return ETK_E_IO;
  }
  *ops = &sqlite_ops;
  *conn = c;
  return ETK_OK;
}
