/*
 * bench_store.c - the run-history benchmark (docs/store.md): prints one line
 * per figure, "<name> <value> <unit>", for a SQLite file and, when
 * ETKIT_TEST_PG_HOST names a PostgreSQL socket directory (run it under
 * tests/store/run_with_postgres.sh), for PostgreSQL over that Unix socket.
 *
 *   ingest:      dumps of ~1k events (100 operators x 10 executions) added
 *                one transaction each from memory, then as files in
 *                batches (etk_store_add_files, as `etkit store add`):
 *                dumps/s, and the store's bytes per sample;
 *   big dump:    one dump of ~1M events added, against opening it with the
 *                Inspector and writing its TSV (what `etkit inspect` does),
 *                three of each, medians;
 *   scale:       RUNS runs x 200 operators (default 10,000), then trend and
 *                compare on one operator (median of 5 timings each) and the
 *                store's bytes per sample (SQLite: file size);
 *   concurrency: 8 writer processes x WRITER_DUMPS dumps (default 200) into
 *                one database: every run present once, every sample there.
 *
 * Usage: bench_store [RUNS [WRITER_DUMPS]] (smaller numbers for a quick
 * look; ETKIT_BENCH_ONLY=ingest|big|scale|writers runs one case,
 * ETKIT_BENCH_ENGINE=sqlite|postgresql one engine, and ETKIT_BENCH_KEEP=1
 * keeps the databases, for EXPLAIN).  Dumps come from
 * tests/store/store_dumps.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../inspector/bench_clock.h"
#include "etkit/inspector_core.h"
#include "etkit/store.h"
#include "store_dumps.h"

static char pg_uri_buf[1024];

static const char *pg_uri(const char *db) {
  const char *host = getenv("ETKIT_TEST_PG_HOST");
  if (!host) return NULL;
  const char *user = getenv("ETKIT_TEST_PG_USER");
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "%s/psql -q -h '%s' -U '%s' -d postgres -c 'DROP DATABASE IF "
           "EXISTS %s' -c 'CREATE DATABASE %s'",
           getenv("ETKIT_TEST_PG_BIN"), host, user ? user : "postgres", db, db);
  if (system(cmd) != 0) return NULL;
  snprintf(pg_uri_buf, sizeof pg_uri_buf, "postgresql:///%s?host=%s&user=%s",
           db, host, user ? user : "postgres");
  return pg_uri_buf;
}

static etk_store_t *open_store(const char *uri) {
  etk_store_t *st = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_store_open(uri, ETK_STORE_CREATE, &st, &err) != ETK_OK) {
    fprintf(stderr, "bench_store: %s: %s\n", uri, err.message);
    exit(1);
  }
  return st;
}

/* Bytes the store takes: the SQLite file (checkpointed at close), or
 * PostgreSQL's tables with their indexes and TOAST; -1 when unknown. */
static double store_bytes(const char *uri) {
  if (strncmp(uri, "postgres", 8) != 0) {
    struct stat sb;
    return stat(uri, &sb) == 0 ? (double)sb.st_size : -1;
  }
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "%s/psql '%s' -At -c \"SELECT sum(pg_total_relation_size(c.oid)) "
           "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
           "WHERE n.nspname = current_schema() AND c.relkind = 'r'\"",
           getenv("ETKIT_TEST_PG_BIN"), uri);
  FILE *p = popen(cmd, "r");
  double bytes = -1;
  if (p && fscanf(p, "%lf", &bytes) != 1) bytes = -1;
  if (p) pclose(p);
  return bytes;
}

static void print_size(const char *engine, const char *what, const char *uri,
                       double samples) {
  double bytes = store_bytes(uri);
  if (bytes > 0)
    printf("%s_%s_bytes_per_sample %.1f bytes (%.1f MB for %.0f samples)\n",
           engine, what, bytes / samples, bytes / 1e6, samples);
}

static char dir_buf[4096];

/* A fresh directory for dump files. */
static const char *dump_dir(void) {
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(dir_buf, sizeof dir_buf, "%s/etk-bench-store-%d", tmp,
           (int)getpid());
  mkdir(dir_buf, 0700);
  return dir_buf;
}

/* Writes the dump of `spec` to dir/name; returns a malloc'd path. */
static char *dump_file(const char *dir, const store_dump_spec_t *spec) {
  size_t len;
  uint8_t *dump = store_dump_make(spec, &len);
  char *path = malloc(strlen(dir) + 32);
  if (!dump || !path) exit(1);
  sprintf(path, "%s/d%u.etdp", dir, spec->seed);
  FILE *fp = fopen(path, "wb");
  if (!fp || fwrite(dump, 1, len, fp) != len || fclose(fp) != 0) {
    fprintf(stderr, "bench_store: cannot write %s\n", path);
    exit(1);
  }
  free(dump);
  return path;
}

/* Adds a dump in memory (paths NULL) or the files paths[0..n); exits on
 * failure. */
static void add_or_die(etk_store_t *st, const uint8_t *dump, size_t len,
                       char *const *paths, size_t n,
                       const etk_store_tag_t *tags, size_t ntags) {
  etk_store_add_options_t o;
  etk_store_add_options_init(&o);
  o.tags = tags;
  o.tag_count = ntags;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = paths ? etk_store_add_files(st, (const char *const *)paths, n, &o,
                                       NULL, NULL, &err)
                 : etk_store_add_memory(st, dump, len, &o, NULL, &err);
  if (rc != ETK_OK) {
    fprintf(stderr, "bench_store: add: %s\n", err.message);
    exit(1);
  }
}

static void remove_files(char **paths, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unlink(paths[i]);
    free(paths[i]);
  }
}

/* 1k-event dumps: one add (one transaction) per dump from memory, then the
 * same number of other dumps from files, ETK_STORE_BATCH_DUMPS a
 * transaction (`etkit store add DB FILE...`), file reading included. */
static void bench_ingest(const char *engine, const char *uri) {
  etk_store_t *st = open_store(uri);
  enum { DUMPS = 320 };
  uint8_t *dumps[DUMPS];
  size_t lens[DUMPS];
  for (unsigned i = 0; i < DUMPS; i++) {
    store_dump_spec_t spec = {i + 1, 100, 10, 0.05, -1, 1.0};
    dumps[i] = store_dump_make(&spec, &lens[i]);
  }
  double t0 = bench_wall_seconds();
  for (unsigned i = 0; i < DUMPS; i++)
    add_or_die(st, dumps[i], lens[i], NULL, 0, NULL, 0);
  double dt = bench_wall_seconds() - t0;
  printf("%s_ingest_1k_event_dumps_one_per_transaction %.1f dumps/s\n", engine,
         DUMPS / dt);
  for (unsigned i = 0; i < DUMPS; i++) free(dumps[i]);
  const char *dir = dump_dir();
  char *paths[DUMPS];
  for (unsigned i = 0; i < DUMPS; i++) {
    store_dump_spec_t spec = {1000 + i, 100, 10, 0.05, -1, 1.0};
    paths[i] = dump_file(dir, &spec);
  }
  t0 = bench_wall_seconds();
  add_or_die(st, NULL, 0, paths, DUMPS, NULL, 0);
  dt = bench_wall_seconds() - t0;
  printf("%s_ingest_1k_event_dumps_batched %.1f dumps/s\n", engine, DUMPS / dt);
  remove_files(paths, DUMPS);
  rmdir(dir);
  etk_store_close(st);
  print_size(engine, "ingest", uri, 2.0 * DUMPS * 101 * 10);
}

static int null_write(void *ctx, const char *data, size_t len) {
  (void)ctx;
  (void)data;
  (void)len;
  return 0;
}

/* Opening the dump with the Inspector and writing its TSV, as `etkit
 * inspect` does: wall seconds. */
static double inspect_seconds(const uint8_t *dump, size_t len) {
  double t0 = bench_wall_seconds();
  etk_inspector_t *insp;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_inspector_open_memory(dump, len, NULL, &insp, &err) == ETK_OK) {
    etk_render_sink_t sink;
    etk_render_sink_init(&sink, null_write, NULL);
    etk_inspector_render_options_t ro;
    etk_inspector_render_options_init(&ro);
    ro.format = ETK_INSPECT_FORMAT_TSV;
    etk_inspector_render(insp, &ro, &sink, &err);
    etk_render_sink_flush(&sink);
    etk_inspector_close(insp);
  }
  return bench_wall_seconds() - t0;
}

static double median3(double *v) {
  double lo = v[0] < v[1] ? v[0] : v[1], hi = v[0] < v[1] ? v[1] : v[0];
  return v[2] < lo ? lo : v[2] > hi ? hi : v[2];
}

/* A 1M-event dump (1000 operators x 1000 executions) added to an empty
 * store, against inspect_seconds on it; three of each, alternating (the
 * store is made empty again before each add), medians. */
static void bench_big(const char *engine, const char *(*uri)(const char *)) {
  store_dump_spec_t spec = {7, 1000, 1000, 0.05, -1, 1.0};
  size_t len;
  uint8_t *dump = store_dump_make(&spec, &len);
  double add[3], cpu[3], inspect[3];
  const char *u = NULL;
  for (int k = 0; k < 3; k++) {
    inspect[k] = inspect_seconds(dump, len);
    if (!(u = uri("etk_bench_big"))) exit(1);
    etk_store_t *st = open_store(u);
    double t0 = bench_wall_seconds(), c0 = bench_cpu_seconds();
    add_or_die(st, dump, len, NULL, 0, NULL, 0);
    add[k] = bench_wall_seconds() - t0;
    cpu[k] = bench_cpu_seconds() - c0;
    etk_store_close(st);
  }
  free(dump);
  print_size(engine, "1m_event_dump", u, 1001.0 * 1000.0);
  double a = median3(add), i = median3(inspect);
  printf("%s_1m_event_dump_add %.2f s (CPU here %.2f s)\n", engine, a,
         median3(cpu));
  printf("%s_1m_event_dump_inspect_tsv %.2f s\n", engine, i);
  printf("%s_1m_event_dump_add_over_inspect %.2f x\n", engine, a / i);
}

static double median5(double *v) {
  for (int i = 0; i < 5; i++)
    for (int j = i + 1; j < 5; j++)
      if (v[j] < v[i]) {
        double t = v[i];
        v[i] = v[j];
        v[j] = t;
      }
  return v[2];
}

static void bench_scale(const char *engine, const char *uri, size_t runs) {
  etk_store_t *st = open_store(uri);
  const char *dir = dump_dir();
  enum { CHUNK = 256 };
  char *paths[CHUNK];
  double fill = 0;
  for (size_t i = 0; i < runs; i += CHUNK) {
    size_t n = runs - i < CHUNK ? runs - i : CHUNK;
    for (size_t j = 0; j < n; j++) {
      store_dump_spec_t spec = {
          (unsigned)(100000 + i + j), 200, 1, 0.05, -1, 1.0};
      paths[j] = dump_file(dir, &spec);
    }
    /* the first half commit=a, the second commit=b */
    size_t half = i < runs / 2 ? (runs / 2 - i < n ? runs / 2 - i : n) : 0;
    etk_store_tag_t ta = {"commit", "a"}, tb = {"commit", "b"};
    double t0 = bench_wall_seconds();
    if (half) add_or_die(st, NULL, 0, paths, half, &ta, 1);
    if (n > half) add_or_die(st, NULL, 0, paths + half, n - half, &tb, 1);
    fill += bench_wall_seconds() - t0;
    remove_files(paths, n);
  }
  rmdir(dir);
  printf("%s_scale_fill_%zu_runs %.1f s (%.0f dumps/s, batched)\n", engine,
         runs, fill, (double)runs / fill);
  double t0;
  etk_store_tag_t a = {"commit", "a"}, b = {"commit", "b"};
  etk_store_where_t wa = {&a, 1}, wb = {&b, 1};
  double trend[5], cmp[5], trend_cpu[5], cmp_cpu[5];
  size_t rows = 0, changes = 0;
  for (int k = 0; k < 5; k++) {
    etk_error_t err;
    etk_error_clear(&err);
    etk_store_table_t t;
    t0 = bench_wall_seconds();
    double c0 = bench_cpu_seconds();
    etk_store_trend(st, ETK_STORE_TREND_OP, "op_100", NULL, &t, &err);
    trend[k] = bench_wall_seconds() - t0;
    trend_cpu[k] = bench_cpu_seconds() - c0;
    rows = t.rows;
    etk_store_table_free(&t);
    etk_store_comparison_t c;
    t0 = bench_wall_seconds();
    c0 = bench_cpu_seconds();
    etk_store_ops_t ops = {"op_100", 0, 0, 0};
    if (etk_store_compare(st, &wa, &wb, &ops, NULL, &c, &err) == ETK_OK) {
      changes = c.count;
      etk_store_comparison_free(&c);
    }
    cmp[k] = bench_wall_seconds() - t0;
    cmp_cpu[k] = bench_cpu_seconds() - c0;
  }
  /* CPU: this process (SQLite runs inside it; PostgreSQL's server does
   * not count) */
  printf("%s_trend_one_op_%zu_runs %.1f ms (%zu rows; CPU here %.1f ms)\n",
         engine, runs, median5(trend) * 1e3, rows, median5(trend_cpu) * 1e3);
  printf(
      "%s_compare_one_op_%zu_runs %.1f ms (%zu operators; CPU here %.1f "
      "ms)\n",
      engine, runs, median5(cmp) * 1e3, changes, median5(cmp_cpu) * 1e3);
  etk_store_close(st);
  print_size(engine, "scale", uri, (double)runs * 201.0);
}

/* Writer w's work: `per` dumps of its own, and after each 20 the two
 * shared dumps of that group, which every writer adds too (so runs race on
 * the same digests).  Even writers add files in batches (own 20 + the two
 * shared, in an order that differs between writers), odd writers add one
 * dump a transaction. */
static void writer(const char *uri, int w, size_t per, char **shared) {
  etk_store_t *st = open_store(uri);
  char dir[sizeof dir_buf + 16];
  snprintf(dir, sizeof dir, "%s/w%d", dir_buf, w);
  mkdir(dir, 0700);
  char *paths[22];
  for (size_t i = 0; i < per; i += 20) {
    size_t n = per - i < 20 ? per - i : 20;
    for (size_t j = 0; j < n; j++) {
      store_dump_spec_t spec = {
          (unsigned)(200000 + w * 10000 + i + j), 20, 5, 0.05, -1, 1.0};
      paths[j] = dump_file(dir, &spec);
    }
    int flip = (w / 2) % 2;
    paths[n] = shared[2 * (i / 20) + (size_t)flip];
    paths[n + 1] = shared[2 * (i / 20) + (size_t)!flip];
    if (w % 2 == 0) {
      add_or_die(st, NULL, 0, paths, n + 2, NULL, 0);
    } else {
      for (size_t j = 0; j < n + 2; j++)
        add_or_die(st, NULL, 0, paths + j, 1, NULL, 0);
    }
    remove_files(paths, n);
  }
  rmdir(dir);
  etk_store_close(st);
}

static void bench_writers(const char *engine, const char *uri, size_t per) {
  etk_store_close(open_store(uri));
  const char *dir = dump_dir();
  size_t nshared = 2 * ((per + 19) / 20);
  char **shared = malloc(nshared * sizeof *shared);
  for (size_t i = 0; shared && i < nshared; i++) {
    store_dump_spec_t spec = {(unsigned)(900000 + i), 20, 5, 0.05, -1, 1.0};
    shared[i] = dump_file(dir, &spec);
  }
  double t0 = bench_wall_seconds();
  pid_t kids[8];
  for (int w = 0; w < 8; w++) {
    if ((kids[w] = fork()) != 0) continue;
    writer(uri, w, per, shared);
    _exit(0);
  }
  int bad = 0;
  for (int w = 0; w < 8; w++) {
    int status;
    waitpid(kids[w], &status, 0);
    bad += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  double dt = bench_wall_seconds() - t0;
  etk_store_t *st = open_store(uri);
  etk_store_table_t t;
  etk_error_t err;
  etk_error_clear(&err);
  long long samples = 0;
  size_t runs = 0;
  if (etk_store_runs(st, NULL, &t, &err) == ETK_OK) {
    runs = t.rows;
    for (size_t r = 0; r < t.rows; r++) samples += t.cells[r * t.cols + 11].i;
    etk_store_table_free(&t);
  }
  etk_store_close(st);
  printf(
      "%s_8_writers_x_%zu %.1f s (%.0f dumps/s), %zu runs of %zu, "
      "%lld samples of %zu, %d failed writers\n",
      engine, per, dt, 8.0 * (double)(per + nshared) / dt, runs,
      8 * per + nshared, samples, (8 * per + nshared) * 105, bad);
  if (shared) remove_files(shared, nshared);
  free(shared);
  rmdir(dir);
}

/* Whether case `name` runs: all of them, or the one ETKIT_BENCH_ONLY
 * names. */
static int wanted(const char *name) {
  const char *only = getenv("ETKIT_BENCH_ONLY");
  return !only || strcmp(only, name) == 0;
}

static void bench_engine(const char *engine, const char *(*uri)(const char *),
                         size_t runs, size_t per) {
  /* each database is made fresh, and emptied again afterwards (calling
   * uri() again recreates it empty) unless ETKIT_BENCH_KEEP is set */
  int keep = getenv("ETKIT_BENCH_KEEP") != NULL;
  const char *u;
  if (wanted("ingest") && (u = uri("etk_bench_ingest"))) {
    bench_ingest(engine, u);
    if (!keep) uri("etk_bench_ingest");
  }
  if (wanted("big")) {
    bench_big(engine, uri);
    if (!keep) uri("etk_bench_big");
  }
  if (wanted("scale") && (u = uri("etk_bench_scale"))) {
    bench_scale(engine, u, runs);
    if (!keep) uri("etk_bench_scale");
  }
  if (wanted("writers") && (u = uri("etk_bench_writers"))) {
    bench_writers(engine, u, per);
    if (!keep) uri("etk_bench_writers");
  }
}

static char sqlite_buf[4096];

static const char *sqlite_uri(const char *name) {
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(sqlite_buf, sizeof sqlite_buf, "%s/%s-%d.db", dir, name,
           (int)getpid());
  char side[4200];
  unlink(sqlite_buf);
  snprintf(side, sizeof side, "%s-wal", sqlite_buf);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", sqlite_buf);
  unlink(side);
  return sqlite_buf;
}

int main(int argc, char **argv) {
  size_t runs = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
  size_t per = argc > 2 ? strtoul(argv[2], NULL, 10) : 200;
  const char *only = getenv("ETKIT_BENCH_ENGINE"); /* sqlite|postgresql */
  if (!only || strcmp(only, "sqlite") == 0)
    bench_engine("sqlite", sqlite_uri, runs, per);
  if (getenv("ETKIT_TEST_PG_HOST") &&
      (!only || strcmp(only, "postgresql") == 0))
    bench_engine("postgresql", pg_uri, runs, per);
  return 0;
}
