/*
 * engine_pg.c - the store's PostgreSQL engine (engine.h), through libpq.
 *
 * DATA LAYOUT
 *   One PGconn per store.  Every statement goes through PQexecParams with
 *   its values as text parameters ($1..$n; integers in decimal, doubles
 *   with 17 significant digits so they round-trip), and results come back
 *   in text form: PostgreSQL 12+ prints float8 in the shortest form that
 *   reads back to the same double, so durations survive bit for bit.
 *
 * INVARIANTS
 *   - No value is ever formatted into SQL text (PQexecParams binds them).
 *   - The schema lock is pg_advisory_xact_lock on one fixed key, taken
 *     inside the migration transaction, so concurrent first opens of an
 *     empty database create the tables exactly once; it is released by
 *     COMMIT or ROLLBACK.
 *   - Errors keep only the first line of the server's message.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine.h"

#ifdef ETKIT_HAVE_LIBPQ

#include <dlfcn.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"

/* libpq is opened at the first PostgreSQL store (pq_load), not linked:
 * every other command starts without loading it and the libraries it
 * pulls in (TLS, Kerberos, LDAP), a few milliseconds and megabytes each
 * run.  The header gives the types; these are the functions used. */
static struct {
  void (*clear)(PGresult *);
  ExecStatusType (*result_status)(const PGresult *);
  void (*finish)(PGconn *);
  PGresult *(*exec_params)(PGconn *, const char *, int, const Oid *,
                           const char *const *, const int *, const int *, int);
  int (*get_is_null)(const PGresult *, int, int);
  ConnStatusType (*status)(const PGconn *);
  PQnoticeProcessor (*set_notice_processor)(PGconn *, PQnoticeProcessor,
                                            void *);
  char *(*result_error_message)(const PGresult *);
  int (*put_copy_end)(PGconn *, const char *);
  int (*put_copy_data)(PGconn *, const char *, int);
  int (*ntuples)(const PGresult *);
  char *(*get_value)(const PGresult *, int, int);
  int (*get_length)(const PGresult *, int, int);
  PGresult *(*get_result)(PGconn *);
  PGresult *(*exec)(PGconn *, const char *);
  char *(*error_message)(const PGconn *);
  PGconn *(*connectdb)(const char *);
} g_pq;
static bool g_pq_loaded;

#define PQclear g_pq.clear
#define PQresultStatus g_pq.result_status
#define PQfinish g_pq.finish
#define PQexecParams g_pq.exec_params
#define PQgetisnull g_pq.get_is_null
#define PQstatus g_pq.status
#define PQsetNoticeProcessor g_pq.set_notice_processor
#define PQresultErrorMessage g_pq.result_error_message
#define PQputCopyEnd g_pq.put_copy_end
#define PQputCopyData g_pq.put_copy_data
#define PQntuples g_pq.ntuples
#define PQgetvalue g_pq.get_value
#define PQgetlength g_pq.get_length
#define PQgetResult g_pq.get_result
#define PQexec g_pq.exec
#define PQerrorMessage g_pq.error_message
#define PQconnectdb g_pq.connectdb

/* Looks `name` up into the function pointer at `slot` (copied as bytes:
 * ISO C has no conversion from dlsym's void * to a function pointer). */
static bool pq_sym(void *lib, const char *name, void *slot, size_t size) {
  void *p = dlsym(lib, name);
  if (!p || size != sizeof p) return false;
  memcpy(slot, &p, sizeof p);
  return true;
}

static int pq_load(etk_error_t *err) {
  if (g_pq_loaded) return ETK_OK;
  void *lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libpq.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return etk_error_set(err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                         "cannot load the PostgreSQL client library "
                         "(libpq.so.5): %s",
                         dlerror());
  bool ok =
      pq_sym(lib, "PQclear", &g_pq.clear, sizeof g_pq.clear) &&
      pq_sym(lib, "PQresultStatus", &g_pq.result_status,
             sizeof g_pq.result_status) &&
      pq_sym(lib, "PQfinish", &g_pq.finish, sizeof g_pq.finish) &&
      pq_sym(lib, "PQexecParams", &g_pq.exec_params, sizeof g_pq.exec_params) &&
      pq_sym(lib, "PQgetisnull", &g_pq.get_is_null, sizeof g_pq.get_is_null) &&
      pq_sym(lib, "PQstatus", &g_pq.status, sizeof g_pq.status) &&
      pq_sym(lib, "PQsetNoticeProcessor", &g_pq.set_notice_processor,
             sizeof g_pq.set_notice_processor) &&
      pq_sym(lib, "PQresultErrorMessage", &g_pq.result_error_message,
             sizeof g_pq.result_error_message) &&
      pq_sym(lib, "PQputCopyEnd", &g_pq.put_copy_end,
             sizeof g_pq.put_copy_end) &&
      pq_sym(lib, "PQputCopyData", &g_pq.put_copy_data,
             sizeof g_pq.put_copy_data) &&
      pq_sym(lib, "PQntuples", &g_pq.ntuples, sizeof g_pq.ntuples) &&
      pq_sym(lib, "PQgetvalue", &g_pq.get_value, sizeof g_pq.get_value) &&
      pq_sym(lib, "PQgetlength", &g_pq.get_length, sizeof g_pq.get_length) &&
      pq_sym(lib, "PQgetResult", &g_pq.get_result, sizeof g_pq.get_result) &&
      pq_sym(lib, "PQexec", &g_pq.exec, sizeof g_pq.exec) &&
      pq_sym(lib, "PQerrorMessage", &g_pq.error_message,
             sizeof g_pq.error_message) &&
      pq_sym(lib, "PQconnectdb", &g_pq.connectdb, sizeof g_pq.connectdb);
  if (!ok) {
    dlclose(lib);
    return etk_error_set(err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                         "the PostgreSQL client library lacks a function "
                         "etkit needs (libpq 10 or later is)");
  }
  g_pq_loaded = true; /* kept loaded until exit */
  return ETK_OK;
}

/* pg_advisory_xact_lock key of the schema: "etkstore" in ASCII. */
#define SCHEMA_LOCK_KEY "7310593858889904741"

static const store_engine_ops_t pg_ops;

static int pg_fail(PGconn *c, const PGresult *res, etk_error_t *err,
                   const char *what) {
  const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(c);
  char line[200];
  size_t n = strcspn(msg, "\n");
  if (n >= sizeof line) n = sizeof line - 1;
  memcpy(line, msg, n);
  line[n] = '\0';
  return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET, "postgresql: %s: %s", what,
                       line[0] ? line : "unknown error");
}

static const char hex_digits[] = "0123456789abcdef";

/* bytea's hex text form: "\\x" then two digits a byte (into b). */
static void hex_value(etk_strbuf_t *b, const uint8_t *p, size_t n) {
  char chunk[512];
  etk_strbuf_appends(b, "\\x");
  for (size_t i = 0; i < n;) {
    size_t k = 0;
    for (; i < n && k < sizeof chunk; i++, k += 2) {
      chunk[k] = hex_digits[p[i] >> 4];
      chunk[k + 1] = hex_digits[p[i] & 15];
    }
    etk_strbuf_append(b, chunk, k);
  }
}

static int pg_query(void *conn, const char *sql, const store_value_t *params,
                    size_t n, store_row_fn fn, void *ctx, etk_error_t *err) {
  PGconn *c = conn;
  const char **values = NULL;
  char *numbers = NULL;
  etk_strbuf_t blobs[4] = {{0}}; /* hex text of up to 4 blob parameters */
  size_t nblobs = 0;
  if (n) {
    values = malloc(n * sizeof *values);
    numbers = malloc(n * 32);
    if (!values || !numbers) {
      free(values);
      free(numbers);
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    }
  }
  for (size_t i = 0; i < n; i++) {
    char *num = numbers + i * 32;
    switch (params[i].kind) {
      case STORE_INT:
        snprintf(num, 32, "%lld", (long long)params[i].i);
        values[i] = num;
        break;
      case STORE_REAL:
        snprintf(num, 32, "%.17g", params[i].f);
        values[i] = num;
        break;
      case STORE_TEXT:
        values[i] = params[i].s;
        break;
      case STORE_BLOB:
        if (nblobs == 4) {
          values[i] = NULL;
          break;
        }
        hex_value(&blobs[nblobs], (const uint8_t *)params[i].s,
                  (size_t)params[i].i);
        values[i] = blobs[nblobs].failed ? NULL : blobs[nblobs].data;
        nblobs++;
        break;
      default:
        values[i] = NULL;
        break;
    }
  }
  PGresult *res =
      PQexecParams(c, sql, (int)n, NULL, values, NULL, NULL, 0 /* text */);
  free(values);
  free(numbers);
  for (size_t i = 0; i < nblobs; i++) etk_strbuf_free(&blobs[i]);
  ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
  int rc = ETK_OK;
  if (st == PGRES_TUPLES_OK && fn) {
    store_row_t row = {&pg_ops, res, 0};
    int rows = PQntuples(res);
    for (row.index = 0; row.index < rows; row.index++)
      if ((rc = fn(ctx, &row)) != 0) break;
  } else if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    rc = pg_fail(c, res, err, "query failed");
  }
  PQclear(res);
  return rc;
}

static int pg_exec(PGconn *c, const char *sql, etk_error_t *err) {
  return pg_query(c, sql, NULL, 0, NULL, NULL, err);
}

/* Appends one value in COPY's text format: \N for NULL, backslash escapes
 * for the delimiter, line ends and backslashes. */
static void copy_value(etk_strbuf_t *b, const store_value_t *v) {
  switch (v->kind) {
    case STORE_INT:
      etk_strbuf_printf(b, "%lld", (long long)v->i);
      break;
    case STORE_REAL:
      etk_strbuf_printf(b, "%.17g", v->f);
      break;
    case STORE_TEXT:
      for (const char *p = v->s; *p; p++) {
        if (*p == '\\' || *p == '\t' || *p == '\n' || *p == '\r') {
          etk_strbuf_appendc(b, '\\');
          etk_strbuf_appendc(b, *p == '\t'   ? 't'
                                : *p == '\n' ? 'n'
                                : *p == '\r' ? 'r'
                                             : '\\');
        } else {
          etk_strbuf_appendc(b, *p);
        }
      }
      break;
    case STORE_BLOB: /* COPY text doubles the backslash of "\\x" */
      etk_strbuf_appendc(b, '\\');
      hex_value(b, (const uint8_t *)v->s, (size_t)v->i);
      break;
    default:
      etk_strbuf_appends(b, "\\N");
      break;
  }
}

/* COPY target FROM STDIN with every row in one message. */
static int pg_insert_rows(void *conn, const char *target, size_t cols,
                          const store_value_t *values, size_t rows,
                          etk_error_t *err) {
  PGconn *c = conn;
  etk_strbuf_t data = {0};
  for (size_t r = 0; r < rows; r++)
    for (size_t k = 0; k < cols; k++) {
      copy_value(&data, &values[r * cols + k]);
      etk_strbuf_appendc(&data, k + 1 < cols ? '\t' : '\n');
    }
  char sql[512];
  snprintf(sql, sizeof sql, "COPY %s FROM STDIN", target);
  int rc = ETK_OK;
  PGresult *res = data.failed ? NULL : PQexec(c, sql);
  if (!res || PQresultStatus(res) != PGRES_COPY_IN) {
    rc = data.failed ? etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                                     "out of memory")
                     : pg_fail(c, res, err, "COPY failed");
    PQclear(res);
    etk_strbuf_free(&data);
    return rc;
  }
  PQclear(res);
  if (PQputCopyData(c, data.data ? data.data : "", (int)data.len) != 1 ||
      PQputCopyEnd(c, NULL) != 1)
    rc = pg_fail(c, NULL, err, "COPY failed");
  etk_strbuf_free(&data);
  while ((res = PQgetResult(c)) != NULL) {
    if (rc == ETK_OK && PQresultStatus(res) != PGRES_COMMAND_OK)
      rc = pg_fail(c, res, err, "COPY failed");
    PQclear(res);
  }
  return rc;
}

static int pg_begin(void *conn, etk_error_t *err) {
  return pg_exec(conn, "BEGIN", err);
}

static int pg_lock_schema(void *conn, etk_error_t *err) {
  return pg_exec(conn, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK_KEY ")",
                 err);
}

static int pg_is_null(const store_row_t *r, int col) {
  return PQgetisnull(r->handle, r->index, col);
}
static const char *pg_text(const store_row_t *r, int col) {
  return PQgetvalue(r->handle, r->index, col);
}
static int64_t pg_int(const store_row_t *r, int col) {
  return strtoll(pg_text(r, col), NULL, 10);
}
static double pg_real(const store_row_t *r, int col) {
  return strtod(pg_text(r, col), NULL);
}
static int hex_nibble(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* bytea comes back as "\\x" and hex digits (bytea_output = hex). */
static int pg_blob(const store_row_t *r, int col, store_bytes_t *out) {
  out->len = 0;
  if (PQgetisnull(r->handle, r->index, col)) return ETK_OK;
  const char *t = pg_text(r, col);
  size_t len = (size_t)PQgetlength(r->handle, r->index, col);
  if (len < 2 || t[0] != '\\' || t[1] != 'x' || len % 2) return ETK_E_FORMAT;
  size_t n = (len - 2) / 2;
  if (n > out->cap) {
    uint8_t *d = realloc(out->data, n);
    if (!d) return ETK_E_NO_MEMORY;
    out->data = d;
    out->cap = n;
  }
  for (size_t i = 0; i < n; i++) {
    int hi = hex_nibble(t[2 + 2 * i]), lo = hex_nibble(t[3 + 2 * i]);
    if (hi < 0 || lo < 0) return ETK_E_FORMAT;
    out->data[i] = (uint8_t)(hi << 4 | lo);
  }
  out->len = n;
  return ETK_OK;
}

static void pg_close(void *conn) {
  if (conn) PQfinish(conn);
}

static const store_engine_ops_t pg_ops = {.name = "postgresql",
                                          .id_type = "BIGSERIAL PRIMARY KEY",
                                          .without_rowid = "",
                                          .blob_type = "BYTEA",
                                          .query = pg_query,
                                          .insert_rows = pg_insert_rows,
                                          .begin = pg_begin,
                                          .lock_schema = pg_lock_schema,
                                          .is_null = pg_is_null,
                                          .get_int = pg_int,
                                          .get_real = pg_real,
                                          .get_text = pg_text,
                                          .get_blob = pg_blob,
                                          .close = pg_close};

/* libpq prints a server's NOTICE on stderr by default: a second line
 * after etkit's one-line message.  Errors still come back as results. */
static void pg_quiet(void *arg, const char *message) {
  (void)arg;
  (void)message;
}

int store_pg_open(const char *uri, const store_engine_ops_t **ops, void **conn,
                  etk_error_t *err) {
  int lrc = pq_load(err);
  if (lrc != ETK_OK) return lrc;
  PGconn *c = PQconnectdb(uri);
  if (!c)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (PQstatus(c) != CONNECTION_OK) {
    int rc = pg_fail(c, NULL, err, "cannot connect");
    PQfinish(c);
    return rc;
  }
  PQsetNoticeProcessor(c, pg_quiet, NULL);
  /* quiet NOTICEs ("relation already exists, skipping"); bytea as hex;
   * no JIT: the store's queries are index lookups of a few thousand rows,
   * where compiling costs more (30 ms) than it saves */
  if (pg_exec(c, "SET client_min_messages = warning", err) != ETK_OK ||
      pg_exec(c, "SET bytea_output = hex", err) != ETK_OK ||
      pg_exec(c, "SET jit = off", err) != ETK_OK) {
    PQfinish(c);
    return ETK_E_IO;
  }
  *ops = &pg_ops;
  *conn = c;
  return ETK_OK;
}

#else

/* libpq prints a server's NOTICE on stderr by default: a second line
 * after etkit's one-line message.  Errors still come back as results. */
static void pg_quiet(void *arg, const char *message) {
  (void)arg;
  (void)message;
}

int store_pg_open(const char *uri, const store_engine_ops_t **ops, void **conn,
                  etk_error_t *err) {
  (void)uri;
  (void)ops;
  (void)conn;
  return etk_error_set(err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                       "this etkit was built without libpq: PostgreSQL "
                       "databases are not available");
}

#endif
