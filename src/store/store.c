/*
 * store.c - opening a store, its schema and migrations, and the helpers the
 * other files share (run selection, tags).  Statements, transactions and
 * SQL text with bound values are sql.c's.
 *
 * SCHEMA (version 5; docs/store.md draws it)
 *   etk_migrations(version, applied_at)   one row per applied migration
 *   runs(id, digest UNIQUE, added_at, source, file_size, blocks, operators,
 *        samples, etrecord, program, run_time)  run_time: version 3
 *   run_tags(run_id, key, value)          PK (run_id, key); index (key,
 *                                         value, run_id) for --where
 *   blocks(run_id, block, name, method, executions)
 *   operators(run_id, op, block, name, op_type, instruction_id, delegate,
 *             is_delegated, module, source, samples, durations, executions)
 *                                         index (name, run_id) and
 *                                         (module, run_id) for trend; the
 *                                         samples packed (packed.c)
 *   (version 1 had samples(run_id, op, k, execution, duration), one row a
 *   sample; migration 2 packs them into operators and drops it)
 *   memory_plan(run_id, method, mem_id, size, peak_bytes, tensors)
 *   latency_sketches(run_id, op, count, ticks_per_ms, sketch)  version 4:
 *                                         a stats-mode dump's sketches
 *   tensor_stats(run_id, k, block, name, instruction_id, output_index,
 *                item, p99_abs, nan_count, inf_count, stats)  version 5:
 *                                         STATS vectors (debug level stats)
 *   Child rows are keyed by (run_id, index) rather than by generated ids,
 *   so an add needs no id round trip per row and batches its INSERTs.
 *
 * MIGRATIONS
 *   `migrations[]` lists each version's statements; opening with
 *   ETK_STORE_CREATE applies the missing ones in one write transaction
 *   (under the engine's schema lock), recording each version.  A database
 *   whose latest version is newer than ETK_STORE_SCHEMA_VERSION is refused.
 *   Statements use "@ID" (the runs.id type), "@BLOB" (the binary type) and
 *   "@CLUSTERED" (the suffix of tables stored in key order), which the
 *   engine defines; "@PACK" is a step written in C, "@PG " marks a
 *   PostgreSQL-only statement.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* flock() next to POSIX */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "etkit/utf8.h"
#include "store_internal.h"

static const char *const migration_1[] = {
    "CREATE TABLE runs (id @ID, digest TEXT NOT NULL UNIQUE, "
    "added_at BIGINT NOT NULL, source TEXT NOT NULL, file_size BIGINT NOT "
    "NULL, blocks INTEGER NOT NULL, operators INTEGER NOT NULL, samples "
    "BIGINT NOT NULL, etrecord TEXT, program TEXT)",
    "CREATE TABLE run_tags (run_id BIGINT NOT NULL, key TEXT NOT NULL, "
    "value TEXT NOT NULL, PRIMARY KEY (run_id, key))@CLUSTERED",
    "CREATE INDEX run_tags_key_value ON run_tags (key, value, run_id)",
    "CREATE TABLE blocks (run_id BIGINT NOT NULL, block INTEGER NOT NULL, "
    "name TEXT NOT NULL, method TEXT, executions INTEGER NOT NULL, "
    "PRIMARY KEY (run_id, block))@CLUSTERED",
    "CREATE TABLE operators (run_id BIGINT NOT NULL, op INTEGER NOT NULL, "
    "block INTEGER NOT NULL, name TEXT NOT NULL, op_type TEXT, "
    "instruction_id INTEGER NOT NULL, delegate TEXT, is_delegated INTEGER "
    "NOT NULL, module TEXT, source TEXT, samples INTEGER NOT NULL, "
    "PRIMARY KEY (run_id, op))@CLUSTERED",
    "CREATE INDEX operators_name ON operators (name, run_id)",
    "CREATE INDEX operators_module ON operators (module, run_id)",
    "CREATE TABLE samples (run_id BIGINT NOT NULL, op INTEGER NOT NULL, "
    "k INTEGER NOT NULL, execution INTEGER NOT NULL, duration DOUBLE "
    "PRECISION, PRIMARY KEY (run_id, op, k))@CLUSTERED",
    "CREATE TABLE memory_plan (run_id BIGINT NOT NULL, method TEXT NOT "
    "NULL, mem_id INTEGER NOT NULL, size BIGINT NOT NULL, peak_bytes BIGINT "
    "NOT NULL, tensors BIGINT NOT NULL, PRIMARY KEY (run_id, method, "
    "mem_id))@CLUSTERED",
    NULL};

/* Version 2: each operator's samples packed into two columns of its row
 * (packed.c), the per-sample table dropped.  "@PACK" runs
 * store_migrate_pack; "@PG " statements run on PostgreSQL only (EXTERNAL
 * storage: packed doubles barely compress, so skip trying). */
static const char *const migration_2[] = {
    "ALTER TABLE operators ADD COLUMN durations @BLOB",
    "ALTER TABLE operators ADD COLUMN executions @BLOB",
    "@PACK",
    "DROP TABLE samples",
    "@PG ALTER TABLE operators ALTER COLUMN durations SET STORAGE EXTERNAL",
    "@PG ALTER TABLE operators ALTER COLUMN executions SET STORAGE EXTERNAL",
    NULL};

/* Version 3: the run's own time (unix seconds, UTC; NULL when unknown)
 * beside added_at, the time it was stored.  A version-2 store opened
 * read-only is read as it is (store_run_time_sql gives NULL). */
static const char *const migration_3[] = {
    "ALTER TABLE runs ADD COLUMN run_time BIGINT", NULL};

/* Version 4: the latency sketches of stats-mode dumps (etkit/sketch.h
 * bytes, source ticks; ticks_per_ms converts them), one per operator row
 * that has one (store_latency.c). */
static const char *const migration_4[] = {
    "CREATE TABLE latency_sketches (run_id BIGINT NOT NULL, op INTEGER NOT "
    "NULL, count BIGINT NOT NULL, ticks_per_ms DOUBLE PRECISION NOT NULL, "
    "sketch @BLOB NOT NULL, PRIMARY KEY (run_id, op))@CLUSTERED",
    NULL};

/* Version 5: the STATS vectors of runs recorded at debug level "stats"
 * (added with their debug buffer), one row per logged tensor: its key
 * (block name, instruction, output index, list item), p99_abs and the
 * NaN/Inf counts as columns for queries, the 13 values packed (little-
 * endian doubles, etkit/tensor_stats.h order).  Self-contained: a store
 * without the table (read-only open of version 4) has no STATS. */
static const char *const migration_5[] = {
    "CREATE TABLE tensor_stats (run_id BIGINT NOT NULL, k INTEGER NOT NULL, "
    "block TEXT NOT NULL, name TEXT NOT NULL, instruction_id INTEGER NOT "
    "NULL, output_index INTEGER NOT NULL, item INTEGER NOT NULL, p99_abs "
    "DOUBLE PRECISION, nan_count BIGINT NOT NULL, inf_count BIGINT NOT "
    "NULL, stats @BLOB NOT NULL, PRIMARY KEY (run_id, k))@CLUSTERED",
    NULL};

/* One list of statements per version step, in order: migrations[v - 1]
 * takes a version v-1 store to version v. */
static const char *const *const migrations[ETK_STORE_SCHEMA_VERSION] = {
    migration_1, migration_2, migration_3, migration_4, migration_5};

/* Oldest schema a read-only open reads without migrating: version 2 has
 * the packed samples; it lacks only runs.run_time. */
#define READABLE_VERSION 2

const char *store_run_time_sql(const etk_store_t *st) {
  return st->version >= 3 ? "r.run_time" : "CAST(NULL AS BIGINT)";
}

/* Replaces the schema tokens and runs one migration statement. */
static int run_ddl(etk_store_t *st, const char *ddl, etk_error_t *err) {
  if (strcmp(ddl, "@PACK") == 0) return store_migrate_pack(st, err);
  if (strncmp(ddl, "@PG ", 4) == 0) {
    if (strcmp(st->ops->name, "postgresql") != 0) return ETK_OK;
    ddl += 4;
  }
  etk_strbuf_t b = {0};
  for (const char *p = ddl; *p;) {
    if (strncmp(p, "@ID", 3) == 0) {
      etk_strbuf_appends(&b, st->ops->id_type);
      p += 3;
    } else if (strncmp(p, "@BLOB", 5) == 0) {
      etk_strbuf_appends(&b, st->ops->blob_type);
      p += 5;
    } else if (strncmp(p, "@CLUSTERED", 10) == 0) {
      etk_strbuf_appends(&b, st->ops->without_rowid);
      p += 10;
    } else {
      etk_strbuf_appendc(&b, *p++);
    }
  }
  int rc = b.failed ? etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                                    "out of memory")
                    : store_q(st, b.data, NULL, 0, NULL, NULL, err);
  etk_strbuf_free(&b);
  return rc;
}

static int int_row(void *ctx, const store_row_t *row) {
  *(int64_t *)ctx = row->ops->is_null(row, 0) ? 0 : row->ops->get_int(row, 0);
  return 0;
}

/* 1 when the migrations table exists. */
static int has_schema(etk_store_t *st, int *yes, etk_error_t *err) {
  int64_t n = 0;
  const char *sql =
      strcmp(st->ops->name, "sqlite") == 0
          ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
            "name = 'etk_migrations'"
          : "SELECT count(*) FROM information_schema.tables WHERE "
            "table_name = 'etk_migrations' AND table_schema = "
            "current_schema()";
  int rc = store_q(st, sql, NULL, 0, int_row, &n, err);
  *yes = n > 0;
  return rc;
}

static int schema_version(etk_store_t *st, int64_t *version, etk_error_t *err) {
  *version = 0;
  return store_q(st, "SELECT max(version) FROM etk_migrations", NULL, 0,
                 int_row, version, err);
}

static int check_version(int64_t v, etk_error_t *err) {
  if (v > ETK_STORE_SCHEMA_VERSION)
    return etk_error_set(err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                         "the store's schema is version %lld, newer than "
                         "this etkit's %d: use a newer etkit",
                         (long long)v, ETK_STORE_SCHEMA_VERSION);
  return ETK_OK;
}

static int migrate_locked(etk_store_t *st, etk_error_t *err) {
  int rc;
  if (st->ops->lock_schema && (rc = st->ops->lock_schema(st->conn, err)))
    return rc;
  if ((rc = store_q(st,
                    "CREATE TABLE IF NOT EXISTS etk_migrations (version "
                    "INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
                    NULL, 0, NULL, NULL, err)))
    return rc;
  int64_t v;
  if ((rc = schema_version(st, &v, err)) || (rc = check_version(v, err)))
    return rc;
  for (int64_t m = v; m < ETK_STORE_SCHEMA_VERSION; m++) {
    for (const char *const *ddl = migrations[m]; *ddl; ddl++)
      if ((rc = run_ddl(st, *ddl, err))) return rc;
    store_value_t p[2] = {store_int(m + 1), store_int((int64_t)time(NULL))};
    if ((rc = store_q(st,
                      "INSERT INTO etk_migrations (version, applied_at) "
                      "VALUES ($1, $2)",
                      p, 2, NULL, NULL, err)))
      return rc;
  }
  return ETK_OK;
}

static int migrate(etk_store_t *st, etk_error_t *err) {
  int yes = 0, rc;
  int64_t v = 0;
  /* fast path: an up-to-date store needs no write transaction */
  if ((rc = has_schema(st, &yes, err))) return rc;
  if (yes) {
    if ((rc = schema_version(st, &v, err)) || (rc = check_version(v, err)))
      return rc;
    if (v == ETK_STORE_SCHEMA_VERSION) return ETK_OK;
  }
  if ((rc = store_begin(st, err))) return rc;
  if ((rc = migrate_locked(st, err)) || (rc = store_commit(st, err))) {
    store_rollback(st);
    return rc;
  }
  return ETK_OK;
}

/* A PostgreSQL URI, or a libpq keyword string ("host=/run dbname=x");
 * "file:" URIs and plain paths are SQLite. */
static int is_pg_uri(const char *uri) {
  if (strncmp(uri, "postgresql://", 13) == 0 ||
      strncmp(uri, "postgres://", 11) == 0)
    return 1;
  size_t word = strspn(uri, "abcdefghijklmnopqrstuvwxyz_");
  return strncmp(uri, "file:", 5) != 0 && word > 0 && uri[word] == '=';
}

static int file_exists(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (fp) fclose(fp);
  return fp != NULL;
}

/* A writer of a SQLite file holds a shared flock on it for as long as it
 * is open, so that a failed first add deletes the new file only when it
 * can take the lock exclusively: nobody else is writing it
 * (drop_if_new_and_empty).  The lock is taken on the file itself and only
 * then is the path checked to still name it (a dropper may have removed
 * it meanwhile; then the open starts over and creates a new one).  BSD
 * locks are apart from SQLite's POSIX ones, and this descriptor is closed
 * only after SQLite's connection, so it never drops SQLite's locks.
 * Sets *made when this call created the file.  0 or an errno. */
static int lock_writer(etk_store_t *st, const char *path, int *made) {
  for (int attempt = 0; attempt < 100; attempt++) {
    *made = 1;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
    if (fd < 0 && errno == EEXIST) {
      *made = 0;
      fd = open(path, O_RDWR);
    }
    if (fd < 0) {
      if (errno == ENOENT) continue; /* removed between the two opens */
      return errno;
    }
    struct stat a, b;
    if (flock(fd, LOCK_SH) == 0 && fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
      st->lock_fd = fd;
      return 0;
    }
    close(fd); /* the file was dropped while we waited: start over */
  }
  return EAGAIN;
}

static int open_engine(etk_store_t *st, const char *uri, unsigned flags,
                       etk_error_t *err) {
  if (is_pg_uri(uri)) return store_pg_open(uri, &st->ops, &st->conn, err);
  int create = (flags & ETK_STORE_CREATE) != 0;
  int plain = strncmp(uri, "file:", 5) != 0;
  if (!create && plain && !file_exists(uri))
    return etk_error_set_where(err, uri, ETK_E_NOT_FOUND,
                               "no such store (add a run to create it)");
  int made = 0;
  if (create && plain && !(flags & ETK_STORE_READ_ONLY)) {
    int e = lock_writer(st, uri, &made);
    if (e)
      return etk_error_set_where(err, uri, ETK_E_IO,
                                 "cannot create the store: %s", strerror(e));
  }
  if (made && (flags & ETK_STORE_DROP_NEW_EMPTY) &&
      !(st->created = strdup(uri)))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  return store_sqlite_open(uri, create, (flags & ETK_STORE_READ_ONLY) != 0,
                           &st->ops, &st->conn, err);
}

/* ---------------------------------------------- redacted connections
 *
 * A PostgreSQL connection string may hold a password (user:PW@host in a
 * URI, password=PW as a parameter or keyword).  No message, error or repr
 * may show it: etk_store_redact copies a string with every such value
 * replaced by "***", and scrub() does the same to an error whose text
 * came from libpq or names the store. */

/* The next secret at or after uri[from]: *len bytes at the returned
 * offset; SIZE_MAX when there is none. */
static size_t next_secret(const char *uri, size_t from, size_t *len) {
  const char *scheme = strstr(uri, "://");
  if (scheme && from <= (size_t)(scheme - uri) + 3) {
    const char *auth = scheme + 3;
    size_t n = strcspn(auth, "/?#");
    const char *at = memchr(auth, '@', n);
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon && at > colon + 1) {
      *len = (size_t)(at - colon - 1);
      return (size_t)(colon + 1 - uri);
    }
  }
  for (const char *p = uri + from; (p = strstr(p, "password=")) != NULL;
       p += 9) {
    if (p > uri && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
    const char *v = p + 9;
    size_t n = *v == '\'' ? strcspn(v + 1, "'") + 2 : strcspn(v, "& \t#");
    if (n > strlen(v)) n = strlen(v);
    if (n == 0) continue;
    *len = n;
    return (size_t)(v - uri);
  }
  return SIZE_MAX;
}

size_t etk_store_redact(const char *uri, char *out, size_t size) {
  size_t used = 0, from = 0, len = 0, at;
  if (!out || size == 0) return 0;
  out[0] = '\0';
  if (!uri) return 0;
  while ((at = next_secret(uri, from, &len)) != SIZE_MAX || uri[from]) {
    size_t plain = at == SIZE_MAX ? strlen(uri + from) : at - from;
    int n = snprintf(out + used, size - used, "%.*s%s", (int)plain, uri + from,
                     at == SIZE_MAX ? "" : "***");
    if (n < 0 || (size_t)n >= size - used) return size - 1;
    used += (size_t)n;
    if (at == SIZE_MAX) break;
    from = at + len;
  }
  return used;
}

/* Replaces every copy of `uri`'s secrets in text[0..size) by "***". */
static void scrub_text(char *text, size_t size, const char *uri) {
  size_t from = 0, len = 0, at;
  while ((at = next_secret(uri, from, &len)) != SIZE_MAX) {
    char secret[256];
    from = at + len;
    if (len >= sizeof secret) continue;
    memcpy(secret, uri + at, len);
    secret[len] = '\0';
    for (char *hit; (hit = strstr(text, secret)) != NULL;) {
      size_t tail = strlen(hit + len) + 1;
      if (len < 3 && (size_t)(hit - text) + 3 + tail > size) break;
      memmove(hit + 3, hit + len, tail);
      memcpy(hit, "***", 3);
    }
  }
}

static void scrub(etk_error_t *err, const char *uri) {
  if (!err || !uri) return;
  scrub_text(err->message, sizeof err->message, uri);
  scrub_text(err->where, sizeof err->where, uri);
}

static int open_store(const char *uri, unsigned flags, etk_store_t **out,
                      etk_error_t *err);

int etk_store_open(const char *uri, unsigned flags, etk_store_t **out,
                   etk_error_t *err) {
  int rc = open_store(uri, flags, out, err);
  if (rc != ETK_OK) scrub(err, uri);
  return rc;
}

static int open_store(const char *uri, unsigned flags, etk_store_t **out,
                      etk_error_t *err) {
  if (!uri || !out) return ETK_E_INVALID_ARGUMENT;
  *out = NULL;
  etk_store_t *st = calloc(1, sizeof *st);
  if (!st)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  st->read_only = (flags & ETK_STORE_READ_ONLY) != 0;
  st->lock_fd = -1;
  int rc = open_engine(st, uri, flags, err);
  if (rc == ETK_OK) {
    if (flags & ETK_STORE_CREATE) {
      rc = migrate(st, err);
    } else {
      int yes = 0;
      int64_t v = 0;
      if ((rc = has_schema(st, &yes, err)) == ETK_OK && !yes)
        rc = etk_error_set_where(err, uri, ETK_E_NOT_FOUND,
                                 "not an etkit store (no etk_migrations "
                                 "table)");
      if (rc == ETK_OK && (rc = schema_version(st, &v, err)) == ETK_OK)
        rc = check_version(v, err);
      st->version = v;
      if (rc == ETK_OK && v < ETK_STORE_SCHEMA_VERSION &&
          !(st->read_only && v >= READABLE_VERSION))
        rc = st->read_only
                 ? etk_error_set_where(
                       err, uri, ETK_E_UNSUPPORTED,
                       "the store's schema is version %lld, older than this "
                       "etkit's %d: add a run to it (etkit store add) to "
                       "migrate it",
                       (long long)v, ETK_STORE_SCHEMA_VERSION)
                 : migrate(st, err);
    }
  }
  if (rc == ETK_OK && ((flags & ETK_STORE_CREATE) || !st->read_only))
    st->version = ETK_STORE_SCHEMA_VERSION; /* migrated */
  if (rc != ETK_OK) {
    etk_store_close(st);
    return rc;
  }
  *out = st;
  return ETK_OK;
}

/* Removes a store file this handle created and nothing was stored in,
 * with the files SQLite keeps beside it.  A store another writer has
 * meanwhile added runs to stays; one whose schema never got committed (a
 * failed open) holds no runs table and goes. */
static void drop_if_new_and_empty(etk_store_t *st) {
  int64_t runs = 0;
  etk_error_t err;
  etk_error_clear(&err);
  /* another writer has it open (it holds its shared lock): it stays */
  if (st->lock_fd < 0 || flock(st->lock_fd, LOCK_EX | LOCK_NB) != 0) return;
  if (st->ops &&
      store_q(st, "SELECT count(*) FROM runs", NULL, 0, int_row, &runs, &err) ==
          ETK_OK &&
      runs > 0)
    return;
  if (st->ops) st->ops->close(st->conn);
  st->ops = NULL;
  static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
  for (size_t i = 0; i < 4; i++) {
    char name[4096];
    if ((size_t)snprintf(name, sizeof name, "%s%s", st->created, suffixes[i]) <
        sizeof name)
      remove(name);
  }
}

void etk_store_close(etk_store_t *st) {
  if (!st) return;
  if (st->created) drop_if_new_and_empty(st);
  if (st->ops) st->ops->close(st->conn);
  if (st->lock_fd >= 0) close(st->lock_fd); /* after SQLite's own */
  free(st->created);
  free(st);
}

const char *etk_store_engine(const etk_store_t *st) {
  return st && st->ops ? st->ops->name : "";
}

/* ------------------------------------------------------------- tags */

int etk_store_tag_check(const etk_store_tag_t *tag, etk_error_t *err) {
  if (!tag || !tag->key || !tag->value) return ETK_E_INVALID_ARGUMENT;
  size_t kl = strlen(tag->key), vl = strlen(tag->value);
  if (kl == 0 || kl > ETK_STORE_TAG_KEY_MAX)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "bad tag: a key has 1 to %d characters",
                         ETK_STORE_TAG_KEY_MAX);
  for (size_t i = 0; i < kl; i++) {
    unsigned char c = (unsigned char)tag->key[i];
    if (!isalnum(c) && c != '_' && c != '.' && c != '-')
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "bad tag key '%s': use letters, digits, '_', "
                           "'.' and '-'",
                           tag->key);
  }
  if (vl > ETK_STORE_TAG_VALUE_MAX)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "bad tag %s: the value is longer than %d bytes",
                         tag->key, ETK_STORE_TAG_VALUE_MAX);
  if (!etk_fb_utf8_valid(tag->value, vl))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "bad tag %s: the value is not valid UTF-8", tag->key);
  for (size_t i = 0; i < vl; i++)
    if ((unsigned char)tag->value[i] < 0x20 || tag->value[i] == 0x7f)
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "bad tag %s: the value holds a control character",
                           tag->key);
  return ETK_OK;
}

int etk_store_tag_parse(char *text, etk_store_tag_t *out, etk_error_t *err) {
  if (!text || !out) return ETK_E_INVALID_ARGUMENT;
  char *eq = strchr(text, '=');
  if (!eq)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "bad tag '%.80s': expected key=value", text);
  *eq = '\0';
  out->key = text;
  out->value = eq + 1;
  return etk_store_tag_check(out, err);
}

/* ------------------------------------------------------------- where */

typedef struct key_list {
  etk_strbuf_t names;
  const char *wanted;
  int found;
} key_list_t;

static int key_row(void *ctx, const store_row_t *row) {
  key_list_t *k = ctx;
  const char *key = row->ops->get_text(row, 0);
  if (strcmp(key, k->wanted) == 0) k->found = 1;
  etk_strbuf_printf(&k->names, "%s%s", k->names.len ? ", " : "", key);
  return 0;
}

static int check_key(etk_store_t *st, const char *key, etk_error_t *err) {
  /* a known key costs one probe of run_tags_key_value; only an unknown
   * one lists them all for the message */
  int64_t known = 0;
  store_value_t p = store_text(key);
  int rc = store_q(st, "SELECT 1 FROM run_tags WHERE key = $1 LIMIT 1", &p, 1,
                   int_row, &known, err);
  if (rc || known) return rc;
  key_list_t k = {{0}, key, 0};
  rc = store_q(st, "SELECT DISTINCT key FROM run_tags ORDER BY key", NULL, 0,
               key_row, &k, err);
  if (rc == ETK_OK && !k.found)
    rc = etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "unknown --where key '%.64s' (keys: id, digest%s%s)",
                       key, k.names.len ? ", " : "",
                       k.names.data ? k.names.data : "");
  etk_strbuf_free(&k.names);
  return rc;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static int64_t civil_days(int64_t y, int mo, int d) {
  int64_t yy = y - (mo <= 2);
  int64_t era = yy / 400, yoe = yy - era * 400;
  int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* n decimal digits at s into *out; 0 when they are not all digits. */
static int digits(const char *s, int n, int *out) {
  *out = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    *out = *out * 10 + (s[i] - '0');
  }
  return 1;
}

/* A zone suffix: "", "Z", "+HH:MM", "+HHMM", "+HH" (or '-'); its offset
 * east of UTC in seconds into *off.  0 when malformed. */
static int zone_offset(const char *s, int64_t *off) {
  int h = 0, m = 0;
  *off = 0;
  if (!*s) return 1;
  if ((s[0] == 'Z' || s[0] == 'z') && !s[1]) return 1;
  if ((s[0] != '+' && s[0] != '-') || !digits(s + 1, 2, &h)) return 0;
  const char *p = s + 3;
  if (*p == ':') p++;
  if (*p && (!digits(p, 2, &m) || p[2])) return 0;
  if (h > 23 || m > 59) return 0;
  *off = (s[0] == '-' ? -1 : 1) * (int64_t)(h * 3600 + m * 60);
  return 1;
}

int etk_store_time_parse(const char *s, int64_t *out) {
  int y, mo, d, h = 0, mi = 0, se = 0;
  if (!s || !out || !digits(s, 4, &y) || s[4] != '-' ||
      !digits(s + 5, 2, &mo) || s[7] != '-' || !digits(s + 8, 2, &d))
    return 0;
  const char *p = s + 10;
  if (*p == 'T' || *p == 't' || *p == ' ') {
    if (!digits(p + 1, 2, &h) || p[3] != ':' || !digits(p + 4, 2, &mi))
      return 0;
    p += 6;
    if (*p == ':') {
      if (!digits(p + 1, 2, &se)) return 0;
      p += 3;
      if (*p == '.' || *p == ',') { /* a fraction: whole seconds kept */
        if (p[1] < '0' || p[1] > '9') return 0;
        for (p++; *p >= '0' && *p <= '9'; p++) {
        }
      }
    }
  }
  int64_t off;
  if (!zone_offset(p, &off)) return 0;
  static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 ||
      se > 60 || y < 1970)
    return 0;
  *out = civil_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
  return 1;
}

/* The conditions but `last` (which takes the newest runs of the others). */
static int where_conds(etk_store_t *st, const etk_store_where_t *where,
                       store_sql_t *sql, etk_error_t *err) {
  for (size_t i = 0; i < where->count; i++) {
    const etk_store_tag_t *c = &where->conds[i];
    int rc = etk_store_tag_check(c, err);
    if (rc) return rc;
    /* an unset shell variable (--where digest=$D) must not select (and
     * prune) every run */
    if (!c->value[0])
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "the condition %.40s= has an empty value (an unset "
                           "variable?); it would select every run",
                           c->key);
    if (strcmp(c->key, "id") == 0) {
      char *end;
      errno = 0;
      long long id = strtoll(c->value, &end, 10);
      if (*end || errno == ERANGE || id < 1)
        return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                             "id=%.40s: not a run id", c->value);
      etk_strbuf_appends(&sql->text, " AND r.id = ");
      store_sql_param(sql, store_int(id));
    } else if (strcmp(c->key, "last") == 0) {
      continue; /* store_where_sql */
    } else if (strcmp(c->key, "since") == 0) {
      int64_t t;
      if (!etk_store_time_parse(c->value, &t))
        return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                             "since=%.40s: not a date (YYYY-MM-DD or "
                             "YYYY-MM-DD HH:MM[:SS][Z|+HH:MM], UTC when no "
                             "zone)",
                             c->value);
      /* the run's own time when it has one, else when it was added */
      etk_strbuf_printf(&sql->text, " AND coalesce(%s, r.added_at) >= ",
                        store_run_time_sql(st));
      store_sql_param(sql, store_int(t));
    } else if (strcmp(c->key, "digest") == 0) {
      etk_strbuf_appends(&sql->text, " AND substr(r.digest, 1, length(CAST(");
      store_sql_param(sql, store_text(c->value));
      etk_strbuf_appends(&sql->text, " AS TEXT))) = ");
      store_sql_param(sql, store_text(c->value));
    } else {
      if ((rc = check_key(st, c->key, err))) return rc;
      etk_strbuf_appends(&sql->text,
                         " AND EXISTS (SELECT 1 FROM run_tags t WHERE "
                         "t.run_id = r.id AND t.key = ");
      store_sql_param(sql, store_text(c->key));
      etk_strbuf_appends(&sql->text, " AND t.value = ");
      store_sql_param(sql, store_text(c->value));
      etk_strbuf_appendc(&sql->text, ')');
    }
  }
  return ETK_OK;
}

int store_where_sql(etk_store_t *st, const etk_store_where_t *where,
                    store_sql_t *sql, etk_error_t *err) {
  if (!where) return ETK_OK;
  int rc = where_conds(st, where, sql, err);
  const char *last = NULL;
  for (size_t i = 0; i < where->count; i++)
    if (strcmp(where->conds[i].key, "last") == 0) last = where->conds[i].value;
  if (rc == ETK_OK && last) {
    /* the newest N of the runs the other conditions select */
    char *end;
    errno = 0;
    long long n = strtoll(last, &end, 10);
    if (*end || errno == ERANGE || n < 1)
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "last=%.40s: not a count of runs", last);
    etk_strbuf_appends(&sql->text,
                       " AND r.id IN (SELECT r.id FROM runs r WHERE 1 = 1");
    rc = where_conds(st, where, sql, err);
    etk_strbuf_appends(&sql->text, " ORDER BY r.id DESC LIMIT ");
    store_sql_param(sql, store_int(n));
    etk_strbuf_appendc(&sql->text, ')');
  }
  if (rc) return rc;
  return store_sql_ok(sql) ? ETK_OK
                           : etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                                           "out of memory");
}

int store_runs_in(etk_store_t *st, const char *column,
                  const etk_store_where_t *where, store_sql_t *sql,
                  etk_error_t *err) {
  etk_strbuf_printf(&sql->text, " %s IN (SELECT r.id FROM runs r WHERE 1 = 1",
                    column);
  int rc = store_where_sql(st, where, sql, err);
  etk_strbuf_appendc(&sql->text, ')');
  return rc;
}

void store_json_number(etk_json_t *j, const char *key, double v) {
  etk_json_key(j, key);
  if (isfinite(v))
    etk_json_double(j, v);
  else
    etk_json_cstring(j, NULL);
}
