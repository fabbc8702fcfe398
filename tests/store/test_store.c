/*
 * test_store.c - the store (etkit/store.h) on a real database: a SQLite file
 * by default, or, when ETKIT_TEST_PG_HOST names a PostgreSQL socket
 * directory (run_with_postgres.sh starts a throw-away server and sets it),
 * PostgreSQL.  The same cases run against both engines.
 *
 * Each case works on a fresh database (a new file, or a new PostgreSQL
 * database created through libpq), and checks what it reads back through
 * the store against the rows the engine itself counts.
 */
#define _POSIX_C_SOURCE 200809L
#include <libpq-fe.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "etk_test.h"
#include "etkit/status.h"
#include "etkit/store.h"
#include "store_dumps.h"

static char uri_buf[1024];

static const char *pg_host(void) {
  return getenv("ETKIT_TEST_PG_HOST");
}

static const char *pg_user(void) {
  const char *u = getenv("ETKIT_TEST_PG_USER");
  return u ? u : "postgres";
}

/* A fresh, empty database; its URI (static buffer). */
static const char *fresh_uri(const char *name) {
  if (!pg_host()) {
    snprintf(uri_buf, sizeof uri_buf, "%s", etk_test_temp_path(name));
    return uri_buf;
  }
  char admin[600], sql[200];
  snprintf(admin, sizeof admin, "host=%s user=%s dbname=postgres", pg_host(),
           pg_user());
  PGconn *c = PQconnectdb(admin);
  snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", name);
  PQclear(PQexec(c, sql));
  snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
  PGresult *r = PQexec(c, sql);
  if (PQresultStatus(r) != PGRES_COMMAND_OK)
    printf("# create database: %s", PQerrorMessage(c));
  PQclear(r);
  PQfinish(c);
  snprintf(uri_buf, sizeof uri_buf, "postgresql:///%s?host=%s&user=%s", name,
           pg_host(), pg_user());
  return uri_buf;
}

/* SELECT count(*) / sum(...) straight from the engine, not the store. */
static long long engine_count(const char *uri, const char *sql) {
  long long n = -1;
  if (strncmp(uri, "postgresql:", 11) == 0) {
    PGconn *c = PQconnectdb(uri);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) == PGRES_TUPLES_OK)
      n = PQgetisnull(r, 0, 0) ? 0 : atoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(c);
    return n;
  }
  sqlite3 *db;
  sqlite3_stmt *st;
  if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

static long long samples_in(const char *uri) {
  return engine_count(uri, "SELECT sum(length(durations)) / 8 FROM operators");
}
static long long runs_in(const char *uri) {
  return engine_count(uri, "SELECT count(*) FROM runs");
}
/* Samples the runs say they have: equal to samples_in() when no half run
 * exists. */
static long long declared_samples(const char *uri) {
  return engine_count(uri, "SELECT sum(samples) FROM runs");
}

static int add_spec(etk_store_t *st, const store_dump_spec_t *spec,
                    const etk_store_tag_t *tags, size_t ntags,
                    etk_store_add_result_t *res, etk_error_t *err) {
  size_t len;
  uint8_t *dump = store_dump_make(spec, &len);
  if (!dump) return ETK_E_NO_MEMORY;
  etk_store_add_options_t o;
  etk_store_add_options_init(&o);
  o.tags = tags;
  o.tag_count = ntags;
  o.source_name = "generated.etdp";
  int rc = etk_store_add_memory(st, dump, len, &o, res, err);
  free(dump);
  return rc;
}

ETK_TEST(add_is_idempotent_and_keeps_every_sample) {
  const char *uri = fresh_uri("etk_idem");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  CHECK_EQ_STR(etk_store_engine(st), pg_host() ? "postgresql" : "sqlite");
  store_dump_spec_t spec = {1, 20, 10, 0.05, -1, 1.0};
  etk_store_tag_t tags[] = {{"model", "mv2"}, {"commit", "abc"}};
  etk_store_add_result_t a, b;
  CHECK(add_spec(st, &spec, tags, 2, &a, &err) == ETK_OK);
  CHECK(!a.existed && a.operators == 21 && a.samples == 210);
  CHECK(add_spec(st, &spec, tags, 2, &b, &err) == ETK_OK);
  CHECK(b.existed && b.run_id == a.run_id);
  CHECK_EQ_STR(a.digest, b.digest);
  CHECK_EQ_INT(runs_in(uri), 1);
  CHECK_EQ_INT(samples_in(uri), 210);
  etk_store_table_t t;
  REQUIRE(etk_store_runs(st, NULL, &t, &err) == ETK_OK);
  CHECK_EQ_INT(t.rows, 1);
  CHECK_EQ_STR(t.headers[4], "model");
  CHECK_EQ_STR(t.cells[4].text, "mv2");
  CHECK_EQ_INT(t.cells[2].kind, ETK_CELL_NONE); /* no run time given */
  etk_store_table_free(&t);
  REQUIRE(etk_store_show(st, a.run_id, &t, &err) == ETK_OK);
  CHECK_EQ_INT(t.rows, 21);
  etk_store_table_free(&t);
  CHECK(etk_store_show(st, 999, &t, &err) == ETK_E_NOT_FOUND);
  etk_store_close(st);
  CHECK_EQ_INT(engine_count(uri, "SELECT max(version) FROM etk_migrations"),
               ETK_STORE_SCHEMA_VERSION);
}

ETK_TEST(tags_are_bound_never_sql) {
  const char *uri = fresh_uri("etk_tags");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  const char *evil = "x'); DROP TABLE runs;-- \\N \\";
  etk_store_tag_t tags[] = {{"note", evil}};
  store_dump_spec_t spec = {2, 5, 3, 0.05, -1, 1.0};
  etk_store_add_result_t r;
  REQUIRE(add_spec(st, &spec, tags, 1, &r, &err) == ETK_OK);
  etk_store_where_t w = {tags, 1};
  etk_store_table_t t;
  REQUIRE(etk_store_runs(st, &w, &t, &err) == ETK_OK);
  CHECK_EQ_INT(t.rows, 1);
  CHECK(t.rows == 1 && strstr(t.cells[9].text, evil) != NULL);
  etk_store_table_free(&t);
  etk_store_close(st);
  CHECK_EQ_INT(runs_in(uri), 1);
}

ETK_TEST(bad_input_leaves_the_database_unchanged) {
  const char *uri = fresh_uri("etk_bad");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  store_dump_spec_t spec = {3, 10, 4, 0.05, -1, 1.0};
  etk_store_add_result_t r;
  REQUIRE(add_spec(st, &spec, NULL, 0, &r, &err) == ETK_OK);
  long long runs = runs_in(uri), samples = samples_in(uri);
  size_t len;
  spec.seed = 4;
  uint8_t *dump = store_dump_make(&spec, &len);
  REQUIRE(dump);
  etk_error_clear(&err); /* damaged: cut in the middle */
  CHECK(etk_store_add_memory(st, dump, len / 2, NULL, &r, &err) != ETK_OK);
  CHECK(err.message[0] != '\0');
  etk_error_clear(&err); /* wrong kind of file */
  CHECK(etk_store_add_memory(st, "not an etdump at all", 20, NULL, &r, &err) !=
        ETK_OK);
  etk_store_tag_t bad[] = {{"bad key", "v"}};
  etk_store_add_options_t o;
  etk_store_add_options_init(&o);
  o.tags = bad;
  o.tag_count = 1;
  etk_error_clear(&err);
  CHECK(etk_store_add_memory(st, dump, len, &o, &r, &err) ==
        ETK_E_INVALID_ARGUMENT);
  free(dump);
  etk_store_tag_t unknown[] = {{"nosuchkey", "1"}};
  etk_store_where_t w = {unknown, 1};
  etk_store_table_t t;
  etk_error_clear(&err);
  CHECK(etk_store_runs(st, &w, &t, &err) == ETK_E_NOT_FOUND);
  CHECK(strstr(err.message, "nosuchkey") != NULL);
  etk_store_close(st);
  CHECK_EQ_INT(runs_in(uri), runs);
  CHECK_EQ_INT(samples_in(uri), samples);
  etk_error_clear(&err);
  const char *nowhere = pg_host() ? "postgresql:///nosuchdb?host=/nonexistent"
                                  : "/nonexistent/dir/store.db";
  CHECK(etk_store_open(nowhere, ETK_STORE_CREATE, &st, &err) != ETK_OK);
  CHECK(err.message[0] != '\0');
}

ETK_TEST(compare_finds_the_planted_regression_and_trend) {
  const char *uri = fresh_uri("etk_cmp");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  for (unsigned i = 0; i < 12; i++) {
    store_dump_spec_t spec = {100 + i, 40, 8, 0.05, i < 6 ? -1 : 7, 1.10};
    etk_store_tag_t tags[] = {{"commit", i < 6 ? "a" : "b"}};
    etk_store_add_result_t r;
    REQUIRE(add_spec(st, &spec, tags, 1, &r, &err) == ETK_OK);
  }
  etk_store_tag_t a[] = {{"commit", "a"}}, b[] = {{"commit", "b"}};
  etk_store_where_t wa = {a, 1}, wb = {b, 1};
  etk_store_comparison_t cmp;
  REQUIRE(etk_store_compare(st, &wa, &wb, NULL, NULL, &cmp, &err) == ETK_OK);
  CHECK_EQ_INT(cmp.count, 41);
  CHECK(cmp.baseline_runs == 6 && cmp.candidate_runs == 6);
  size_t significant = 0;
  for (size_t i = 0; i < cmp.count; i++)
    significant += cmp.changes[i].significant;
  CHECK_EQ_INT(significant, 1);
  CHECK_EQ_STR(cmp.changes[0].name, "op_007");
  CHECK(cmp.changes[0].direction == ETK_CHANGE_SLOWER);
  CHECK(cmp.changes[0].delta_pct > 7 && cmp.changes[0].delta_pct < 13);
  CHECK(cmp.changes[0].ci_low_pct > 0);
  CHECK(etk_store_comparison_fails(&cmp, 5.0) == 1);
  CHECK(etk_store_comparison_fails(&cmp, 20.0) == 0);
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  CHECK(etk_store_comparison_json(&cmp, &sink, &err) == ETK_OK);
  size_t n;
  char *json = etk_render_sink_take(&sink, &n);
  CHECK_CONTAINS(json, "\"changes\"", "\"delta_pct\"", "\"ci_low\"",
                 "\"ci_high\"", "\"p_value\"", "\"significant\": true",
                 "\"direction\": \"slower\"", "\"instruction_id\": 7");
  free(json);
  etk_store_comparison_free(&cmp);
  etk_store_table_t t;
  REQUIRE(etk_store_trend(st, ETK_STORE_TREND_OP, "op_007", NULL, &t, &err) ==
          ETK_OK);
  CHECK_EQ_INT(t.rows, 12);
  CHECK(t.rows == 12 && t.cells[3].i == 8 &&
        t.cells[11 * t.cols + 4].f > t.cells[4].f * 1.05);
  etk_store_table_free(&t);
  REQUIRE(etk_store_trend(st, ETK_STORE_TREND_METHOD, "Execute", &wb, &t,
                          &err) == ETK_OK);
  CHECK_EQ_INT(t.rows, 6);
  etk_store_table_free(&t);
  etk_store_close(st);
}

static int add_stats(etk_store_t *st, const store_dump_spec_t *spec,
                     const char *commit, double *durations, etk_error_t *err) {
  size_t len;
  uint8_t *dump = store_stats_dump_make(spec, 7, durations, &len);
  if (!dump) return ETK_E_NO_MEMORY;
  etk_store_tag_t tag = {"commit", commit};
  etk_store_add_options_t o;
  etk_store_add_options_init(&o);
  o.tags = &tag;
  o.tag_count = 1;
  etk_store_add_result_t res;
  int rc = etk_store_add_memory(st, dump, len, &o, &res, err);
  free(dump);
  return rc;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static const etk_store_change_t *find_change(const etk_store_comparison_t *c,
                                             const char *name) {
  for (size_t i = 0; i < c->count; i++)
    if (strcmp(c->changes[i].name, name) == 0) return &c->changes[i];
  return NULL;
}

/* Stats-mode runs (one latency sketch per operator, no samples) beside full
 * runs: trend's rows come from the merged sketch (count, min, max, mean
 * exact; p50/p90/p99 within the bound of the true quantiles), compare
 * gates a planted 2x slow-down by the sketches' bounds and holds for an
 * unchanged run, and never flags a change within the two bounds. */
ETK_TEST(stats_mode_runs_trend_and_compare_from_their_sketches) {
  const char *uri = fresh_uri("etk_sketch");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  double d[3][8];
  etk_store_add_result_t r;
  for (unsigned i = 0; i < 3; i++) {
    store_dump_spec_t full = {300 + i, 20, 8, 0.02, -1, 1.0};
    store_dump_spec_t same = {310 + i, 20, 8, 0.02, -1, 1.0};
    store_dump_spec_t again = {320 + i, 20, 8, 0.02, -1, 1.0};
    store_dump_spec_t slow = {330 + i, 20, 8, 0.02, 7, 2.0};
    etk_store_tag_t tag = {"commit", "full"};
    REQUIRE(add_spec(st, &full, &tag, 1, &r, &err) == ETK_OK);
    REQUIRE(add_stats(st, &same, "s", d[i], &err) == ETK_OK);
    REQUIRE(add_stats(st, &again, "s2", NULL, &err) == ETK_OK);
    REQUIRE(add_stats(st, &slow, "slow", NULL, &err) == ETK_OK);
  }
  /* trend: 3 full runs' rows from samples, the stats runs' from sketches */
  etk_store_table_t t;
  REQUIRE(etk_store_trend(st, ETK_STORE_TREND_OP, "op_007", NULL, &t, &err) ==
          ETK_OK);
  REQUIRE(t.rows == 12 && t.cols == 13);
  CHECK_EQ_STR(t.headers[12], "from");
  for (size_t row = 0; row < t.rows; row++) {
    const etk_cell_t *c = &t.cells[row * t.cols];
    int stats = row % 4 != 0; /* each round adds a full run, then 3 */
    CHECK_EQ_STR(c[12].text, stats ? "sketch" : "samples");
    CHECK(c[3].i == 8);
    CHECK(stats ? c[11].f == 0.01 : c[11].f == 0.0);
    CHECK(c[9].f >= c[4].f && c[10].f >= c[9].f);
    /* one op_007 per execution: per_execution is the mean */
    CHECK(fabs(c[8].f - c[5].f) <= 1e-12 * c[5].f);
  }
  for (size_t i = 0; i < 3; i++) { /* the "s" runs: rows 1, 5, 9 */
    const etk_cell_t *c = &t.cells[(4 * i + 1) * t.cols];
    double v[8], sum = 0;
    memcpy(v, d[i], sizeof v);
    qsort(v, 8, sizeof *v, cmp_double);
    for (int k = 0; k < 8; k++) sum += v[k];
    CHECK(c[6].f == v[0] / 1e6 && c[7].f == v[7] / 1e6);
    CHECK(fabs(c[5].f - sum / 8 / 1e6) <= 1e-12 * c[5].f);
    /* the sketch's quantile q is within its bound of the element of rank
     * floor(q (n - 1)) */
    const double qs[3] = {0.5, 0.9, 0.99};
    const int col[3] = {4, 9, 10};
    for (int q = 0; q < 3; q++) {
      double truth = v[(size_t)(qs[q] * 7)] / 1e6;
      CHECK(fabs(c[col[q]].f - truth) <= 0.01 * truth);
    }
  }
  etk_store_table_free(&t);

  etk_store_tag_t ts = {"commit", "s"}, ts2 = {"commit", "s2"},
                  tslow = {"commit", "slow"}, tfull = {"commit", "full"};
  etk_store_where_t ws = {&ts, 1}, ws2 = {&ts2, 1}, wslow = {&tslow, 1},
                    wfull = {&tfull, 1};
  etk_store_comparison_t cmp;
  /* the planted 2x slow-down: the one significant change, gating */
  REQUIRE(etk_store_compare(st, &ws, &wslow, NULL, NULL, &cmp, &err) == ETK_OK);
  CHECK_EQ_INT(cmp.count, 21);
  CHECK_EQ_STR(cmp.changes[0].name, "op_007");
  CHECK(cmp.changes[0].from_sketch && cmp.changes[0].significant);
  CHECK(cmp.changes[0].direction == ETK_CHANGE_SLOWER);
  CHECK(cmp.changes[0].delta_pct > 90 && cmp.changes[0].delta_pct < 110);
  CHECK(cmp.changes[0].ci_low_pct > 0 &&
        cmp.changes[0].ci_low_pct < cmp.changes[0].delta_pct &&
        cmp.changes[0].ci_high_pct > cmp.changes[0].delta_pct);
  CHECK(isnan(cmp.changes[0].q_value) && isnan(cmp.changes[0].shift.p_value));
  CHECK(cmp.changes[0].bound[0] == 0.01 && cmp.changes[0].bound[1] == 0.01);
  CHECK(cmp.changes[0].shift.n_baseline == 24);
  /* op_007's 13.5 us more also make Method::execute ~4.6 % slower: those
   * two and no other operator */
  size_t significant = 0;
  for (size_t i = 0; i < cmp.count; i++)
    significant += cmp.changes[i].significant;
  CHECK_EQ_INT(significant, 2);
  CHECK_EQ_STR(cmp.changes[1].name, "Method::execute");
  CHECK(cmp.changes[1].delta_pct > 3 && cmp.changes[1].delta_pct < 6);
  CHECK(etk_store_comparison_fails(&cmp, 50.0) == 1);
  CHECK(etk_store_comparison_fails(&cmp, 150.0) == 0);
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  CHECK(etk_store_comparison_json(&cmp, &sink, &err) == ETK_OK);
  size_t n;
  char *json = etk_render_sink_take(&sink, &n);
  CHECK_CONTAINS(json, "\"rule\": \"sketch-bounds\"", "\"q_value\": null",
                 "\"baseline_bound\": 0.01", "\"candidate_p99\"");
  free(json);
  etk_store_comparison_free(&cmp);

  /* unchanged (other runs of the same distribution): holds; and with no
   * threshold, a change within the two bounds combined never counts */
  etk_change_rule_t rule;
  etk_change_rule_init(&rule);
  rule.min_pct = 0;
  REQUIRE(etk_store_compare(st, &ws, &ws2, NULL, &rule, &cmp, &err) == ETK_OK);
  CHECK_EQ_INT(cmp.count, 21);
  CHECK(etk_store_comparison_fails(&cmp, 5.0) == 0);
  size_t inside = 0;
  for (size_t i = 0; i < cmp.count; i++) {
    const etk_store_change_t *ch = &cmp.changes[i];
    CHECK(ch->from_sketch);
    if (fabs(ch->delta_pct) <= (ch->bound[0] + ch->bound[1]) * 100) {
      inside++;
      CHECK(!ch->significant);
    }
  }
  CHECK(inside > 15);
  etk_store_comparison_free(&cmp);
  REQUIRE(etk_store_compare(st, &ws, &ws2, NULL, NULL, &cmp, &err) == ETK_OK);
  for (size_t i = 0; i < cmp.count; i++) CHECK(!cmp.changes[i].significant);
  etk_store_comparison_free(&cmp);

  /* full runs against stats runs: samples' exact p50 against the sketch */
  REQUIRE(etk_store_compare(st, &wfull, &wslow, NULL, NULL, &cmp, &err) ==
          ETK_OK);
  const etk_store_change_t *ch = find_change(&cmp, "op_007");
  REQUIRE(ch != NULL);
  CHECK(ch->from_sketch && ch->significant && ch->bound[0] == 0.0 &&
        ch->bound[1] == 0.01 && ch->shift.n_baseline == 24);
  CHECK(etk_store_comparison_failing(&cmp, 50.0) == ch);
  etk_store_comparison_free(&cmp);
  /* full against full still uses the rank test */
  REQUIRE(etk_store_compare(st, &wfull, &wfull, NULL, NULL, &cmp, &err) ==
          ETK_OK);
  for (size_t i = 0; i < cmp.count; i++)
    CHECK(!cmp.changes[i].from_sketch && !isnan(cmp.changes[i].q_value));
  etk_store_comparison_free(&cmp);
  etk_store_close(st);
}

/* Operator names are text in the Markdown report, in its table and in its
 * list of trends: Markdown's markup characters are escaped. */
ETK_TEST(markdown_report_escapes_names) {
  const char *uri = fresh_uri("etk_md");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  for (unsigned i = 0; i < 12; i++) {
    store_dump_spec_t spec = {300 + i, 10, 8, 0.05, i < 6 ? -1 : 7, 1.20};
    size_t len;
    uint8_t *dump = store_dump_make_named(&spec, "`x|*_[", &len);
    REQUIRE(dump != NULL);
    etk_store_tag_t tags[] = {{"commit", i < 6 ? "a" : "b"}};
    etk_store_add_options_t o;
    etk_store_add_options_init(&o);
    o.tags = tags;
    o.tag_count = 1;
    etk_store_add_result_t r;
    int rc = etk_store_add_memory(st, dump, len, &o, &r, &err);
    free(dump);
    REQUIRE(rc == ETK_OK);
  }
  etk_store_tag_t a[] = {{"commit", "a"}}, b[] = {{"commit", "b"}};
  etk_store_where_t wa = {a, 1}, wb = {b, 1};
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  CHECK(etk_store_report(st, &wa, &wb, NULL, ETK_STORE_REPORT_MARKDOWN, &sink,
                         &err) == ETK_OK);
  size_t n;
  char *md = etk_render_sink_take(&sink, &n);
  CHECK_CONTAINS(md, "| \\`x\\|\\*\\_\\[007 |",
                 "- \\`x\\|\\*\\_\\[007: 6 baseline runs");
  CHECK(strstr(md, "`x|") == NULL);
  free(md);
  etk_store_close(st);
}

ETK_TEST(export_and_prune) {
  const char *uri = fresh_uri("etk_export");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  for (unsigned i = 0; i < 4; i++) {
    store_dump_spec_t spec = {200 + i, 3, 2, 0.05, -1, 1.0};
    etk_store_tag_t tags[] = {{"model", "m"}, {"device", i < 2 ? "x" : "y"}};
    etk_store_add_result_t r;
    REQUIRE(add_spec(st, &spec, tags, 2, &r, &err) == ETK_OK);
  }
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  REQUIRE(etk_store_export(st, NULL, ETK_STORE_EXPORT_V3, &sink, &err) ==
          ETK_OK);
  size_t n;
  char *v3 = etk_render_sink_take(&sink, &n);
  CHECK_CONTAINS(v3, "\"benchmark\"", "\"model\"", "\"metric\"", "\"runners\"",
                 "\"benchmark_values\"", "\"name\": \"m\"");
  free(v3);
  etk_render_sink_init_memory(&sink);
  REQUIRE(etk_store_export(st, NULL, ETK_STORE_EXPORT_CSV, &sink, &err) ==
          ETK_OK);
  char *csv = etk_render_sink_take(&sink, &n);
  size_t lines = 0;
  for (size_t i = 0; i < n; i++) lines += csv[i] == '\n';
  CHECK_EQ_INT(lines, 1 + 4 * 4); /* header + 4 runs x 4 operators */
  free(csv);
  etk_store_tag_t x[] = {{"device", "x"}};
  etk_store_where_t wx = {x, 1};
  size_t deleted = 0;
  CHECK(etk_store_prune(st, NULL, 0, &deleted, &err) == ETK_E_INVALID_ARGUMENT);
  REQUIRE(etk_store_prune(st, &wx, 0, &deleted, &err) == ETK_OK);
  CHECK_EQ_INT(deleted, 2);
  REQUIRE(etk_store_prune(st, NULL, 1, &deleted, &err) == ETK_OK);
  CHECK_EQ_INT(deleted, 1);
  etk_store_close(st);
  CHECK_EQ_INT(runs_in(uri), 1);
  CHECK_EQ_INT(samples_in(uri), declared_samples(uri));
}

#define WRITERS 8
#define PER_WRITER 6

/* 8 processes add PER_WRITER dumps each plus one dump they all share. */
ETK_TEST(concurrent_writers) {
  const char *uri = fresh_uri("etk_conc");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  etk_store_close(st);
  fflush(stdout);
  pid_t kids[WRITERS];
  for (int w = 0; w < WRITERS; w++) {
    kids[w] = fork();
    if (kids[w] == 0) {
      int bad = etk_store_open(uri, ETK_STORE_CREATE, &st, &err) != ETK_OK;
      for (int i = 0; !bad && i <= PER_WRITER; i++) {
        store_dump_spec_t spec = {
            i == PER_WRITER ? 9999u : (unsigned)(1000 + w * 100 + i),
            20,
            5,
            0.05,
            -1,
            1.0};
        etk_store_add_result_t r;
        if (add_spec(st, &spec, NULL, 0, &r, &err) != ETK_OK) {
          char line[ETK_ERROR_LINE_SIZE];
          printf("# writer %d: %s\n", w,
                 etk_error_format(&err, line, sizeof line));
          bad = 1;
        }
      }
      if (!bad) etk_store_close(st);
      _exit(bad);
    }
  }
  int failures = 0;
  for (int w = 0; w < WRITERS; w++) {
    int status = 0;
    waitpid(kids[w], &status, 0);
    failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  CHECK_EQ_INT(failures, 0);
  CHECK_EQ_INT(runs_in(uri), WRITERS * PER_WRITER + 1);
  CHECK_EQ_INT(samples_in(uri), (WRITERS * PER_WRITER + 1) * 5 * 21);
}

/* A writer killed in the middle of a large add leaves either the whole run
 * or none of it. */
ETK_TEST(killed_writer_leaves_no_half_run) {
  const char *uri = fresh_uri("etk_kill");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  etk_store_close(st);
  store_dump_spec_t spec = {77, 200, 200, 0.05, -1, 1.0};
  size_t len;
  uint8_t *dump = store_dump_make(&spec, &len);
  REQUIRE(dump);
  fflush(stdout);
  pid_t kid = fork();
  if (kid == 0) {
    if (etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK)
      etk_store_add_memory(st, dump, len, NULL, NULL, &err);
    _exit(0);
  }
  struct timespec pause = {0, 150 * 1000 * 1000};
  nanosleep(&pause, NULL);
  kill(kid, SIGKILL);
  waitpid(kid, NULL, 0);
  free(dump);
  long long runs = runs_in(uri), samples = samples_in(uri);
  printf("# after the kill: %lld runs, %lld samples\n", runs, samples);
  CHECK(runs == 0 || runs == 1);
  CHECK_EQ_INT(samples, runs ? 200 * 201 : 0);
  CHECK_EQ_INT(samples, declared_samples(uri));
}

/* Runs statements straight on the engine; 0 when all succeeded. */
static int engine_exec(const char *uri, const char *const *sql, size_t n) {
  int bad = 0;
  if (strncmp(uri, "postgresql:", 11) == 0) {
    PGconn *c = PQconnectdb(uri);
    for (size_t i = 0; i < n; i++) {
      PGresult *r = PQexec(c, sql[i]);
      if (PQresultStatus(r) != PGRES_COMMAND_OK)
        printf("# %s: %s", sql[i], PQerrorMessage(c)), bad = 1;
      PQclear(r);
    }
    PQfinish(c);
    return bad;
  }
  sqlite3 *db;
  if (sqlite3_open(uri, &db) != SQLITE_OK) bad = 1;
  for (size_t i = 0; !bad && i < n; i++)
    if (sqlite3_exec(db, sql[i], NULL, NULL, NULL) != SQLITE_OK)
      printf("# %s: %s\n", sql[i], sqlite3_errmsg(db)), bad = 1;
  sqlite3_close(db);
  return bad;
}

/* A store as etkit wrote it with schema version 1 (one row per sample),
 * holding one run: conv (executions 0, 1, 2; the third sample without a
 * duration) and relu (two samples of execution 0). */
ETK_TEST(a_version_1_store_is_migrated_on_add) {
  const char *uri = fresh_uri("etk_v1");
  int pg = pg_host() != NULL;
  char runs[256];
  snprintf(runs, sizeof runs,
           "CREATE TABLE runs (id %s, digest TEXT NOT NULL UNIQUE, added_at "
           "BIGINT NOT NULL, source TEXT NOT NULL, file_size BIGINT NOT NULL, "
           "blocks INTEGER NOT NULL, operators INTEGER NOT NULL, samples "
           "BIGINT NOT NULL, etrecord TEXT, program TEXT)",
           pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY");
  const char *const v1[] = {
      "CREATE TABLE etk_migrations (version INTEGER PRIMARY KEY, "
      "applied_at BIGINT NOT NULL)",
      "INSERT INTO etk_migrations VALUES (1, 0)",
      runs,
      "CREATE TABLE run_tags (run_id BIGINT, key TEXT, value TEXT, "
      "PRIMARY KEY (run_id, key))",
      "CREATE INDEX run_tags_key_value ON run_tags (key, value, run_id)",
      "CREATE TABLE blocks (run_id BIGINT, block INTEGER, name TEXT, "
      "method TEXT, executions INTEGER, PRIMARY KEY (run_id, block))",
      "CREATE TABLE operators (run_id BIGINT, op INTEGER, block INTEGER, "
      "name TEXT NOT NULL, op_type TEXT, instruction_id INTEGER, delegate "
      "TEXT, is_delegated INTEGER, module TEXT, source TEXT, samples "
      "INTEGER, PRIMARY KEY (run_id, op))",
      "CREATE INDEX operators_name ON operators (name, run_id)",
      "CREATE INDEX operators_module ON operators (module, run_id)",
      "CREATE TABLE samples (run_id BIGINT, op INTEGER, k INTEGER, "
      "execution INTEGER, duration DOUBLE PRECISION, PRIMARY KEY (run_id, "
      "op, k))",
      "CREATE TABLE memory_plan (run_id BIGINT, method TEXT, mem_id "
      "INTEGER, size BIGINT, peak_bytes BIGINT, tensors BIGINT, PRIMARY "
      "KEY (run_id, method, mem_id))",
      "INSERT INTO runs (digest, added_at, source, file_size, blocks, "
      "operators, samples) VALUES ('00ff', 1, 'old.etdp', 10, 1, 2, 5)",
      "INSERT INTO run_tags VALUES (1, 'commit', 'v1')",
      "INSERT INTO blocks VALUES (1, 0, 'Execute', NULL, 3)",
      "INSERT INTO operators VALUES (1, 0, 0, 'conv', NULL, 0, NULL, 0, "
      "NULL, NULL, 3), (1, 1, 0, 'relu', NULL, 1, NULL, 0, NULL, NULL, 2)",
      "INSERT INTO samples VALUES (1, 0, 0, 0, 1.5), (1, 0, 1, 1, 2.5), "
      "(1, 0, 2, 2, NULL), (1, 1, 0, 0, 0.25), (1, 1, 1, 0, 0.75)"};
  REQUIRE(engine_exec(uri, v1, sizeof v1 / sizeof *v1) == 0);
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  /* a read-only open refuses it, saying how to migrate; an add migrates */
  CHECK(etk_store_open(uri, ETK_STORE_READ_ONLY, &st, &err) ==
        ETK_E_UNSUPPORTED);
  CHECK(strstr(err.message, "version 1") != NULL);
  CHECK_EQ_INT(engine_count(uri, "SELECT count(*) FROM samples"), 5);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  store_dump_spec_t spec = {1, 4, 3, 0.05, -1, 1.0};
  etk_store_add_result_t a;
  CHECK(add_spec(st, &spec, NULL, 0, &a, &err) == ETK_OK);
  CHECK_EQ_INT(a.run_id, 2);
  CHECK_EQ_INT(engine_count(uri, "SELECT max(version) FROM etk_migrations"),
               ETK_STORE_SCHEMA_VERSION);
  CHECK_EQ_INT(engine_count(uri, "SELECT count(*) FROM samples"), -1);
  CHECK_EQ_INT(samples_in(uri), declared_samples(uri));
  CHECK_EQ_INT(engine_count(uri,
                            "SELECT count(*) FROM operators WHERE "
                            "run_id = 1 AND executions IS NULL"),
               1); /* conv's are 0, 1, 2: not stored */
  etk_store_table_t t;
  REQUIRE(etk_store_show(st, 1, &t, &err) == ETK_OK);
  REQUIRE(t.rows == 2);
  CHECK_EQ_STR(t.cells[1].text, "conv");
  CHECK_EQ_INT(t.cells[6].i, 2); /* the sample without a duration */
  CHECK(t.cells[7].f == 2.0);
  CHECK(t.cells[t.cols + 7].f == 0.5);
  etk_store_table_free(&t);
  etk_store_tag_t v1_tag = {"commit", "v1"};
  etk_store_where_t w = {&v1_tag, 1};
  REQUIRE(etk_store_trend(st, ETK_STORE_TREND_OP, "relu", &w, &t, &err) ==
          ETK_OK);
  REQUIRE(t.rows == 1);
  CHECK(t.cells[8].f == 1.0); /* 0.25 + 0.75 in one execution */
  etk_store_table_free(&t);
  etk_store_close(st);
}

/* The run's own time (schema version 3): given at add (ISO 8601 with a
 * zone), shown by runs and export, NULL when unknown, set on a re-add of a
 * run without one, and what since= selects on (else the add's time). */
ETK_TEST(run_time_is_stored_shown_and_selected) {
  int64_t t = 0;
  CHECK(etk_store_time_parse("2026-01-02T03:04:05+01:00", &t) &&
        t == 1767319445);
  CHECK(etk_store_time_parse("2026-01-02 02:04:05.75Z", &t) && t == 1767319445);
  CHECK(etk_store_time_parse("2026-01-02", &t) && t == 1767312000);
  CHECK(etk_store_time_parse("2026-01-02T04:34-0230", &t) && t == 1767337440);
  CHECK(!etk_store_time_parse("2026-13-02", &t));
  CHECK(!etk_store_time_parse("2026-01-02T03", &t));
  CHECK(!etk_store_time_parse("2026-01-02T03:04:05+1", &t));
  CHECK(!etk_store_time_parse("yesterday", &t));
  const char *uri = fresh_uri("etk_runtime");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  store_dump_spec_t old = {1, 3, 2, 0.05, -1, 1.0},
                    fresh = {2, 3, 2, 0.05, -1, 1.0},
                    later = {3, 3, 2, 0.05, -1, 1.0};
  etk_store_add_options_t o;
  etk_store_add_options_init(&o);
  o.source_name = "timed.etdp";
  o.added_at = 1900000000; /* stored in 2030 */
  o.run_time = 1767319445; /* made on 2026-01-02 02:04:05 */
  o.has_run_time = 1;
  etk_store_add_result_t r;
  size_t len;
  uint8_t *dump = store_dump_make(&old, &len);
  REQUIRE(dump != NULL);
  CHECK(etk_store_add_memory(st, dump, len, &o, &r, &err) == ETK_OK);
  free(dump);
  o.has_run_time = 0;      /* unknown: since= falls back to added_at */
  o.added_at = 1767225600; /* 2026-01-01 */
  REQUIRE((dump = store_dump_make(&fresh, &len)) != NULL);
  CHECK(etk_store_add_memory(st, dump, len, &o, &r, &err) == ETK_OK);
  /* a re-add with a time sets it on the run that had none */
  o.has_run_time = 1;
  o.run_time = 1767400000;
  CHECK(etk_store_add_memory(st, dump, len, &o, &r, &err) == ETK_OK);
  CHECK(r.existed && r.run_id == 2);
  o.run_time = 1767500000; /* ... and never replaces one */
  CHECK(etk_store_add_memory(st, dump, len, &o, &r, &err) == ETK_OK);
  free(dump);
  o.has_run_time = 0;
  o.added_at = 1767225600;
  REQUIRE((dump = store_dump_make(&later, &len)) != NULL);
  CHECK(etk_store_add_memory(st, dump, len, &o, &r, &err) == ETK_OK);
  free(dump);
  CHECK_EQ_INT(engine_count(uri, "SELECT run_time FROM runs WHERE id = 2"),
               1767400000);
  CHECK_EQ_INT(engine_count(uri,
                            "SELECT count(*) FROM runs WHERE run_time "
                            "IS NULL"),
               1);
  etk_store_table_t tb;
  REQUIRE(etk_store_runs(st, NULL, &tb, &err) == ETK_OK);
  REQUIRE(tb.rows == 3);
  CHECK_EQ_STR(tb.headers[2], "run_time");
  CHECK_EQ_STR(tb.cells[2].text, "2026-01-02 02:04:05");
  CHECK_EQ_STR(tb.cells[1].text, "2030-03-17 17:46:40");
  CHECK_EQ_INT(tb.cells[2 * tb.cols + 2].kind, ETK_CELL_NONE);
  etk_store_table_free(&tb);
  /* since= takes the run's time: run 1 (made 2026-01-02, added 2030) is
   * not since 2026-01-03; run 3 (no time, added 2026-01-01) neither */
  etk_store_tag_t since = {"since", "2026-01-02T02:04:05Z"};
  etk_store_where_t w = {&since, 1};
  REQUIRE(etk_store_runs(st, &w, &tb, &err) == ETK_OK);
  CHECK_EQ_INT(tb.rows, 2); /* runs 1 and 2 */
  etk_store_table_free(&tb);
  since.value = "2026-01-02T02:04:06Z";
  REQUIRE(etk_store_runs(st, &w, &tb, &err) == ETK_OK);
  REQUIRE(tb.rows == 1);
  CHECK_EQ_INT(tb.cells[0].i, 2);
  etk_store_table_free(&tb);
  since.value = "2026-01-01T00:29:59+00:30"; /* 23:59:59 UTC */
  REQUIRE(etk_store_runs(st, &w, &tb, &err) == ETK_OK);
  CHECK_EQ_INT(tb.rows, 3);
  etk_store_table_free(&tb);
  /* export: a run_time column, and the v3 record's extra_info */
  etk_render_sink_t sink;
  size_t n;
  etk_render_sink_init_memory(&sink);
  CHECK(etk_store_export(st, NULL, ETK_STORE_EXPORT_CSV, &sink, &err) ==
        ETK_OK);
  char *text = etk_render_sink_take(&sink, &n);
  REQUIRE(text != NULL);
  CHECK(strncmp(text, "run,digest,added,run_time,model,", 32) == 0);
  CHECK(strstr(text, ",2030-03-17 17:46:40,2026-01-02 02:04:05,") != NULL);
  free(text);
  etk_render_sink_init_memory(&sink);
  CHECK(etk_store_export(st, NULL, ETK_STORE_EXPORT_V3, &sink, &err) == ETK_OK);
  text = etk_render_sink_take(&sink, &n);
  REQUIRE(text != NULL);
  CHECK_CONTAINS(text, "\"run_time\": \"2026-01-02 02:04:05\"",
                 "\"run_time\": null");
  free(text);
  etk_store_close(st);
}

/* A version-2 store (before run_time) is read as it is by a read-only open
 * (an archive that cannot be migrated), then migrated in place by an add. */
ETK_TEST(a_version_2_store_is_read_read_only_and_migrated_on_add) {
  const char *uri = fresh_uri("etk_v2");
  etk_store_t *st;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  store_dump_spec_t spec = {1, 4, 3, 0.05, -1, 1.0};
  etk_store_tag_t tag = {"commit", "v2"};
  etk_store_add_result_t a;
  CHECK(add_spec(st, &spec, &tag, 1, &a, &err) == ETK_OK);
  etk_store_close(st);
  const char *const back[] = {"DROP TABLE tensor_stats",
                              "ALTER TABLE runs DROP COLUMN run_time",
                              "DROP TABLE latency_sketches",
                              "DELETE FROM etk_migrations WHERE version >= 3"};
  REQUIRE(engine_exec(uri, back, 4) == 0);
  REQUIRE(engine_count(uri, "SELECT max(version) FROM etk_migrations") == 2);
  REQUIRE(etk_store_open(uri, ETK_STORE_READ_ONLY, &st, &err) == ETK_OK);
  etk_store_table_t t;
  REQUIRE(etk_store_runs(st, NULL, &t, &err) == ETK_OK);
  REQUIRE(t.rows == 1);
  CHECK_EQ_INT(t.cells[2].kind, ETK_CELL_NONE);
  etk_store_table_free(&t);
  etk_store_tag_t since = {"since", "2000-01-01"};
  etk_store_where_t w = {&since, 1};
  REQUIRE(etk_store_runs(st, &w, &t, &err) == ETK_OK);
  CHECK_EQ_INT(t.rows, 1);
  etk_store_table_free(&t);
  etk_render_sink_t sink;
  size_t n;
  etk_render_sink_init_memory(&sink);
  CHECK(etk_store_export(st, NULL, ETK_STORE_EXPORT_CSV, &sink, &err) ==
        ETK_OK);
  char *text = etk_render_sink_take(&sink, &n);
  CHECK(text != NULL && strstr(text, ",run_time,") != NULL);
  free(text);
  etk_store_close(st);
  /* nothing was migrated by reading */
  CHECK_EQ_INT(engine_count(uri, "SELECT max(version) FROM etk_migrations"), 2);
  REQUIRE(etk_store_open(uri, ETK_STORE_CREATE, &st, &err) == ETK_OK);
  spec.seed = 2;
  CHECK(add_spec(st, &spec, &tag, 1, &a, &err) == ETK_OK);
  etk_store_close(st);
  CHECK_EQ_INT(engine_count(uri, "SELECT max(version) FROM etk_migrations"),
               ETK_STORE_SCHEMA_VERSION);
  CHECK_EQ_INT(engine_count(uri,
                            "SELECT count(*) FROM runs WHERE run_time "
                            "IS NULL"),
               2);
  /* version 5's STATS table is there, empty (no debug buffer was given) */
  CHECK_EQ_INT(engine_count(uri, "SELECT count(*) FROM tensor_stats"), 0);
  CHECK_EQ_INT(samples_in(uri), declared_samples(uri));
}

/* The dump digest (src/store/sha256.c, internal): both the processor's
 * SHA instructions (when it has them) and the portable rounds. */
void store_sha256_hex(const uint8_t *data, size_t len, char out[65]);
void store_sha256_hex_portable(const uint8_t *data, size_t len, char out[65]);

ETK_TEST(sha256_matches_fips_and_both_paths_agree) {
  static const struct {
    const char *text;
    const char *hex;
  } fips[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc",
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"}};
  char a[65], b[65];
  for (size_t i = 0; i < 3; i++) {
    size_t n = strlen(fips[i].text);
    store_sha256_hex((const uint8_t *)fips[i].text, n, a);
    store_sha256_hex_portable((const uint8_t *)fips[i].text, n, b);
    CHECK_EQ_STR(a, fips[i].hex);
    CHECK_EQ_STR(b, fips[i].hex);
  }
  size_t big = 1000000; /* a million 'a': the FIPS long example */
  uint8_t *m = malloc(big);
  REQUIRE(m != NULL);
  memset(m, 'a', big);
  store_sha256_hex(m, big, a);
  CHECK_EQ_STR(
      a, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  unsigned x = 12345; /* every tail length, and a large random buffer */
  for (size_t i = 0; i < big; i++)
    m[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
  for (size_t n = 0; n <= 300; n++) {
    store_sha256_hex(m, n, a);
    store_sha256_hex_portable(m, n, b);
    CHECK_EQ_STR(a, b);
  }
  store_sha256_hex(m, big, a);
  store_sha256_hex_portable(m, big, b);
  CHECK_EQ_STR(a, b);
  free(m);
}

ETK_TEST_MAIN()
