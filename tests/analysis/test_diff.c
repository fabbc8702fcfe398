/*
 * test_diff.c - A/B diff on hand-made pairs with known deltas (see
 * afx_diff_a/afx_diff_b): the three matching stages, new and missing
 * operators and blocks, totals and framework overhead, sorting,
 * thresholds, the CI regression count, other metrics, and the TSV and JSON
 * renderings parsed back.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_fixtures.h"
#include "etk_test.h"
#include "../etdump/etdump_writer.h"
#include "etkit/inspector.h"
#include "inspector_open.h"
#include "render_capture.h"

typedef struct pair {
  etk_inspector_t *a, *b;
  etk_diff_t *d;
} pair_t;

/* Inspectors of the dumps two builders make, and their diff. */
static int make_pair_of(pair_t *p, uint8_t *(*build_a)(size_t *),
                        uint8_t *(*build_b)(size_t *),
                        const etk_diff_options_t *o) {
  p->a = etk_test_inspector_build(build_a, ETK_TIME_NS);
  p->b = etk_test_inspector_build(build_b, ETK_TIME_NS);
  p->d = NULL;
  if (!p->a || !p->b) return 0;
  return etk_diff_build(p->a, p->b, o, &p->d, NULL) == ETK_OK;
}

static int make_pair(pair_t *p, const etk_diff_options_t *o) {
  return make_pair_of(p, afx_diff_a, afx_diff_b, o);
}

static void free_pair(pair_t *p) {
  etk_diff_free(p->d);
  etk_inspector_close(p->a);
  etk_inspector_close(p->b);
}

/* The row of (block, name, match); -1 when absent. */
static long find_row(const etk_diff_t *d, const char *block, const char *name,
                     etk_diff_row_t *out) {
  for (size_t i = 0; i < etk_diff_row_count(d); i++) {
    etk_diff_row_t r;
    etk_diff_row_get(d, i, &r);
    if (strcmp(r.block, block) == 0 && strcmp(r.name, name) == 0) {
      if (out) *out = r;
      return (long)i;
    }
  }
  return -1;
}

ETK_TEST(known_deltas_and_matching_stages) {
  pair_t p;
  REQUIRE(make_pair(&p, NULL));
  etk_diff_row_t r;
  REQUIRE(find_row(p.d, "Execute", "native_call_mul.out", &r) >= 0);
  CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_EXACT);
  CHECK_EQ_INT(r.count_a, 3);
  CHECK_EQ_INT(r.count_b, 3);
  CHECK(r.avg_a == 20 && r.avg_b == 30 && r.p50_a == 20 && r.p50_b == 30);
  CHECK(r.delta == 10 && r.change_pct == 50);
  CHECK_EQ_STR(r.op_type, "mul.out");

  REQUIRE(find_row(p.d, "Execute", "native_call_conv.out", &r) >= 0);
  CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_NAME);
  CHECK_EQ_INT(r.instruction_id_a, 2);
  CHECK_EQ_INT(r.instruction_id_b, 5);
  CHECK(r.delta == -20 && r.change_pct == -20);
  CHECK(r.name_b == NULL);

  REQUIRE(find_row(p.d, "Execute", "linear #1", &r) >= 0);
  CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_OP_TYPE);
  CHECK_EQ_STR(r.name_b, "linear #2");
  CHECK_EQ_STR(r.op_type, "linear");
  CHECK(r.delta == 4 && fabs(r.change_pct - 10) < 1e-12);

  REQUIRE(find_row(p.d, "Execute", "native_call_add.out", &r) >= 0);
  CHECK(r.match == ETK_DIFF_MATCH_EXACT && r.delta == 0 && r.change_pct == 0);

  REQUIRE(find_row(p.d, "Execute", "native_call_relu.out", &r) >= 0);
  CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_MISSING);
  CHECK(r.delta == -5 && r.change_pct != r.change_pct &&
        r.value_b != r.value_b);
  CHECK(r.event_b == SIZE_MAX);

  REQUIRE(find_row(p.d, "Execute", "native_call_sigmoid.out", &r) >= 0);
  CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_NEW);
  CHECK(r.delta == 7 && r.instruction_id_b == 3 && r.event_a == SIZE_MAX);

  /* blocks on one side only */
  REQUIRE(find_row(p.d, "Default", "Method::init", &r) >= 0);
  CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_MISSING);
  CHECK(r.delta == -30);
  REQUIRE(find_row(p.d, "Warmup", "native_call_add.out", &r) >= 0);
  CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_NEW);
  CHECK(r.value_b == 12);
  /* OPERATOR_CALL-free fixture; the method events are totals, not rows */
  for (size_t i = 0; i < etk_diff_row_count(p.d); i++) {
    etk_diff_row_get(p.d, i, &r);
    if (r.kind == ETK_DIFF_ROW_OPERATOR) {
      CHECK(strcmp(r.name, "Method::execute") != 0);
      CHECK(strcmp(r.name, "Program::load_method") != 0);
    }
  }
  free_pair(&p);
}

ETK_TEST(totals_and_framework_overhead) {
  pair_t p;
  REQUIRE(make_pair(&p, NULL));
  etk_diff_row_t r;
  long m = find_row(p.d, "Execute", "method", &r);
  REQUIRE(m >= 0);
  CHECK_EQ_INT(r.kind, ETK_DIFF_ROW_METHOD);
  CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_TOTAL);
  CHECK(r.value_a == 200 && r.value_b == 190 && r.delta == -10 &&
        r.change_pct == -5);
  CHECK(r.count_a == 3 && r.count_b == 3);
  REQUIRE(find_row(p.d, "Execute", "operators", &r) >= 0);
  CHECK(r.value_a == 175 && r.value_b == 171 && r.delta == -4);
  CHECK(r.count_a == 5 && r.count_b == 5);
  REQUIRE(find_row(p.d, "Execute", "framework overhead", &r) >= 0);
  CHECK(r.value_a == 25 && r.value_b == 19 && r.delta == -6);
  /* Default exists only in A: its method is Program::load_method */
  REQUIRE(find_row(p.d, "Default", "method", &r) >= 0);
  CHECK(r.value_a == 50 && r.value_b != r.value_b);
  REQUIRE(find_row(p.d, "Warmup", "method", &r) >= 0);
  CHECK(r.value_b == 15 && r.value_a != r.value_a);
  free_pair(&p);
}

ETK_TEST(rows_sorted_by_absolute_delta) {
  pair_t p;
  REQUIRE(make_pair(&p, NULL));
  /* totals first, then matched by |delta|, then new, then missing */
  static const char *const order[] = {
      "native_call_conv.out",    "native_call_mul.out", "linear #1",
      "native_call_add.out",     "native_call_add.out", /* Warmup's (new, 12) */
      "native_call_sigmoid.out", "Method::init",        "native_call_relu.out"};
  size_t k = 0, totals = 0;
  int last_class = 0;
  for (size_t i = 0; i < etk_diff_row_count(p.d); i++) {
    etk_diff_row_t r;
    etk_diff_row_get(p.d, i, &r);
    int cls = r.match == ETK_DIFF_MATCH_TOTAL     ? 0
              : r.match == ETK_DIFF_MATCH_NEW     ? 2
              : r.match == ETK_DIFF_MATCH_MISSING ? 3
                                                  : 1;
    CHECK(cls >= last_class);
    last_class = cls;
    if (cls == 0) {
      totals++;
      continue;
    }
    REQUIRE(k < sizeof order / sizeof order[0]);
    CHECK_EQ_STR(r.name, order[k]);
    k++;
  }
  CHECK_EQ_INT(k, 8);
  CHECK_EQ_INT(totals, 3 + 3 + 3); /* Default (A), Execute, Warmup (B) */
  free_pair(&p);
}

ETK_TEST(regressions_for_ci) {
  pair_t p;
  REQUIRE(make_pair(&p, NULL));
  CHECK_EQ_INT(etk_diff_regression_count(p.d, 20, 0), 1); /* mul +50 % */
  CHECK_EQ_INT(etk_diff_regression_count(p.d, 5, 0), 2);  /* + linear +10 % */
  CHECK_EQ_INT(etk_diff_regression_count(p.d, 5, 5), 1);  /* linear: +4 < 5 */
  CHECK_EQ_INT(etk_diff_regression_count(p.d, 50, 0), 0); /* strictly above */
  CHECK_EQ_INT(etk_diff_regression_count(p.d, -30, 0),
               3); /* add +0 too, not conv */
  free_pair(&p);
}

ETK_TEST(identical_dumps_have_no_change) {
  etk_inspector_t *a = etk_test_inspector_build(afx_model, ETK_TIME_NS);
  etk_inspector_t *b = etk_test_inspector_build(afx_model, ETK_TIME_NS);
  REQUIRE(a && b);
  etk_diff_t *d = NULL;
  etk_diff_options_t o;
  etk_diff_options_init(&o);
  o.all_rows = 1;
  REQUIRE(etk_diff_build(a, b, &o, &d, NULL) == ETK_OK);
  size_t ops = 0, opcalls = 0;
  for (size_t i = 0; i < etk_diff_row_count(d); i++) {
    etk_diff_row_t r;
    etk_diff_row_get(d, i, &r);
    CHECK(r.delta == 0);
    if (r.kind == ETK_DIFF_ROW_OPERATOR) {
      ops++;
      CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_EXACT);
      if (strcmp(r.name, "OPERATOR_CALL") == 0) opcalls++;
    }
  }
  /* Default: Method::init; Execute: add, 2 OPERATOR_CALL, 3, linear #1,
   * DELEGATE_CALL, mul */
  CHECK_EQ_INT(ops, 8);
  CHECK_EQ_INT(opcalls, 2);
  CHECK_EQ_INT(etk_diff_regression_count(d, 0, 0), 0);
  etk_diff_free(d);
  etk_inspector_close(a);
  etk_inspector_close(b);
}

ETK_TEST(metric_p50_and_max) {
  /* the model fixture's two Execute runs differ by one tick in a few
   * events: avg and max differ, the chosen metric drives value/delta */
  etk_inspector_t *a = etk_test_inspector_build(afx_model, ETK_TIME_NS);
  etk_inspector_t *b = etk_test_inspector_build(afx_diff_a, ETK_TIME_NS);
  REQUIRE(a && b);
  etk_diff_options_t o;
  etk_diff_options_init(&o);
  o.metric = ETK_DIFF_METRIC_MAX;
  etk_diff_t *d = NULL;
  REQUIRE(etk_diff_build(a, b, &o, &d, NULL) == ETK_OK);
  etk_diff_row_t r;
  REQUIRE(find_row(d, "Execute", "native_call_add.out", &r) >= 0);
  /* A: durations 10 and 11 -> max 11, avg 10.5; B: 10 */
  CHECK(r.value_a == 11 && r.avg_a == 10.5 && r.value_b == 10 && r.delta == -1);
  etk_diff_free(d);
  o.metric = ETK_DIFF_METRIC_P50;
  REQUIRE(etk_diff_build(a, b, &o, &d, NULL) == ETK_OK);
  REQUIRE(find_row(d, "Execute", "native_call_add.out", &r) >= 0);
  CHECK(r.value_a == 10.5 && r.p50_a == 10.5);
  etk_diff_free(d);
  etk_inspector_close(a);
  etk_inspector_close(b);
  etk_diff_metric_t m;
  CHECK(etk_diff_metric_parse("p90", &m) == ETK_OK && m == ETK_DIFF_METRIC_P90);
  CHECK(etk_diff_metric_parse("mean", &m) == ETK_E_INVALID_ARGUMENT);
}

static char *render(const etk_diff_t *d, const etk_diff_render_options_t *o) {
  etk_render_sink_t *s = etk_test_capture_new();
  return etk_test_capture_finish(s, etk_diff_render(d, o, s, NULL));
}

/* The default table with a threshold: one text it must show, one it must
 * not. */
static void check_table_at_threshold(const etk_diff_t *d, double pct,
                                     const char *shown, const char *hidden) {
  etk_diff_render_options_t o;
  etk_diff_render_options_init(&o);
  o.threshold_pct = pct;
  char *text = render(d, &o);
  REQUIRE(text);
  if (!strstr(text, shown) || strstr(text, hidden))
    printf("# threshold %g: want \"%s\" shown, \"%s\" hidden\n", pct, shown,
           hidden);
  CHECK(strstr(text, shown) != NULL);
  CHECK(strstr(text, hidden) == NULL);
  free(text);
}

ETK_TEST(threshold_hides_small_changes) {
  pair_t p;
  REQUIRE(make_pair(&p, NULL));
  etk_diff_render_options_t o;
  etk_diff_render_options_init(&o);
  o.format = ETK_INSPECT_FORMAT_JSON;
  o.threshold_pct = 15;
  char *text = render(p.d, &o);
  REQUIRE(text);
  json_t *root = json_loads(text, 0, NULL);
  free(text);
  REQUIRE(root);
  /* linear (+10 %) and add (0 %) hidden; conv, mul, new and missing shown */
  CHECK_EQ_INT(json_integer_value(json_object_get(root, "hidden_rows")), 2);
  json_t *ops = json_object_get(root, "operators");
  CHECK_EQ_INT(json_array_size(ops), 6);
  json_t *first = json_array_get(ops, 0);
  CHECK_EQ_STR(json_string_value(json_object_get(first, "name")),
               "native_call_conv.out");
  CHECK_EQ_STR(json_string_value(json_object_get(first, "match")), "name");
  CHECK(json_real_value(json_object_get(first, "change_pct")) == -20.0);
  CHECK_EQ_INT(json_integer_value(json_object_get(first, "instruction_id_b")),
               5);
  json_t *last = json_array_get(ops, 5);
  CHECK_EQ_STR(json_string_value(json_object_get(last, "match")), "missing");
  CHECK(json_is_null(json_object_get(last, "change_pct")));
  CHECK(json_is_null(json_object_get(last, "instruction_id_b")));
  CHECK_EQ_INT(json_array_size(json_object_get(root, "totals")), 9);
  CHECK_EQ_STR(json_string_value(json_object_get(root, "time_unit")), "ns");
  json_decref(root);
  /* min_delta: |delta| < 8 hidden among matched rows (linear, add) */
  etk_diff_render_options_init(&o);
  o.format = ETK_INSPECT_FORMAT_TSV;
  o.min_delta = 8;
  text = render(p.d, &o);
  REQUIRE(text);
  size_t lines = 0;
  for (char *c = text; *c; c++) lines += *c == '\n';
  CHECK_EQ_INT(lines, 1 + 9 + 6); /* header, totals, rows */
  CHECK(strncmp(text, "block\tkind\tevent\tevent_b\top_type\tinstruction_id_a",
                48) == 0);
  CHECK(strstr(
            text,
            "Execute\toperator\tlinear #1\tlinear #2\tlinear\t4\t4\top_type") ==
        NULL);
  CHECK(strstr(text,
               "Execute\toperator\tnative_call_mul.out\t\tmul."
               "out\t1\t1\texact\t3\t3\t20.0\t30.0\t20.0\t30.0\t20.0\t30.0\t10."
               "0\t50.0\n") != NULL);
  free(text);
  /* the table says what it hid */
  check_table_at_threshold(p.d, 15,
                           "2 operator row(s) hidden: |change| below 15 %",
                           "linear #1 -> linear #2");
  check_table_at_threshold(p.d, 0, "linear #1 -> linear #2", "hidden");
  free_pair(&p);
}

/* A run whose operators repeat a name out of order between the sides, the
 * instruction ids all different (the program was re-lowered): A is x 10,
 * y 20, x 30; B is x 11, x 33, y 22.  By name, the first x pairs without
 * hashing (same key at the head of both lists), the rest by key and rank:
 * the second x of A with the second of B. */
static void repeat_events(etw_t *w, int b) {
  static const char *const names[2][3] = {{"x", "y", "x"}, {"x", "x", "y"}};
  static const uint64_t took[2][3] = {{10, 20, 30}, {11, 33, 22}};
  for (int i = 0; i < 3; i++)
    etw_profile_simple(w, names[b][i], 0, 3 * b + i, 1000 + 100 * (uint64_t)i,
                       1000 + 100 * (uint64_t)i + took[b][i]);
}

/* One "Execute" run: side b's events, then the method event. */
static uint8_t *execute_run(size_t *len, void (*events)(etw_t *, int), int b) {
  etw_t *w = etw_new(1 << 12);
  if (!w) return NULL;
  etw_run_begin(w, "Execute", -1);
  events(w, b);
  etw_profile_simple(w, "Method::execute", -1, 0, 1000, 1300);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

static uint8_t *repeat_a(size_t *len) {
  return execute_run(len, repeat_events, 0);
}

static uint8_t *repeat_b(size_t *len) {
  return execute_run(len, repeat_events, 1);
}

ETK_TEST(repeated_keys_pair_by_rank_after_a_common_prefix) {
  pair_t p;
  REQUIRE(make_pair_of(&p, repeat_a, repeat_b, NULL));
  size_t operators = 0;
  double order[3] = {0, 0, 0}; /* A's values, row order */
  for (size_t i = 0; i < etk_diff_row_count(p.d); i++) {
    etk_diff_row_t r;
    etk_diff_row_get(p.d, i, &r);
    if (r.kind != ETK_DIFF_ROW_OPERATOR) continue;
    if (operators < 3) order[operators] = r.value_a;
    operators++;
    CHECK_EQ_INT(r.match, ETK_DIFF_MATCH_NAME);
    if (strcmp(r.name, "y") == 0)
      CHECK(r.value_a == 20 && r.value_b == 22);
    else if (r.value_a == 10)
      CHECK(r.value_b == 11 && r.event_a == 0 && r.event_b == 0);
    else
      CHECK(r.value_a == 30 && r.value_b == 33 && r.event_a == 2 &&
            r.event_b == 1);
  }
  CHECK_EQ_INT(operators, 3);
  /* sorted by |delta|: 3 (second x), 2 (y), 1 (first x) */
  CHECK(order[0] == 30 && order[1] == 20 && order[2] == 10);
  free_pair(&p);
}

/* Delegated events named by integer ids: A has 276 and 278, B 276 and 279
 * (all instruction 7).  Decimal names are written by the inspector into
 * a buffer the next event overwrites, so the diff keeps its own copies. */
static void decimal_events(etw_t *w, int b) {
  etw_profile_delegated(w, 7, 276, NULL, NULL, 0, 1000, 1010 + 5 * b);
  etw_profile_delegated(w, 7, b ? 279 : 278, NULL, NULL, 0, 1100, 1120);
}

static uint8_t *decimal_a(size_t *len) {
  return execute_run(len, decimal_events, 0);
}

static uint8_t *decimal_b(size_t *len) {
  return execute_run(len, decimal_events, 1);
}

/* Every operator row of d, read first and checked after all are read:
 * names stay valid while other rows are read. */
static size_t operator_rows(const etk_diff_t *d, etk_diff_row_t *rows,
                            size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < etk_diff_row_count(d); i++) {
    etk_diff_row_t r;
    etk_diff_row_get(d, i, &r);
    if (r.kind == ETK_DIFF_ROW_OPERATOR && n < cap) rows[n++] = r;
  }
  return n;
}

ETK_TEST(decimal_delegate_names_stay_valid_across_rows) {
  pair_t p;
  REQUIRE(make_pair_of(&p, decimal_a, decimal_b, NULL));
  etk_diff_row_t rows[8];
  size_t n = operator_rows(p.d, rows, 8);
  CHECK_EQ_INT(n, 3);
  int seen = 0;
  for (size_t i = 0; i < n; i++) {
    const etk_diff_row_t *r = &rows[i];
    CHECK(r->name_b == NULL);
    if (strcmp(r->name, "276") == 0) {
      seen |= 1;
      CHECK_EQ_INT(r->match, ETK_DIFF_MATCH_EXACT);
      CHECK(r->value_a == 10 && r->value_b == 15 && r->delta == 5);
      CHECK_EQ_STR(r->op_type, "276");
    } else if (strcmp(r->name, "278") == 0) {
      seen |= 2;
      CHECK_EQ_INT(r->match, ETK_DIFF_MATCH_MISSING);
    } else if (strcmp(r->name, "279") == 0) {
      seen |= 4;
      CHECK_EQ_INT(r->match, ETK_DIFF_MATCH_NEW);
      CHECK(r->value_b == 20);
    }
  }
  CHECK_EQ_INT(seen, 7);
  etk_diff_free(p.d);
  /* one inspector on both sides: its one name buffer serves A and B */
  p.d = NULL;
  REQUIRE(etk_diff_build(p.a, p.a, NULL, &p.d, NULL) == ETK_OK);
  n = operator_rows(p.d, rows, 8);
  CHECK_EQ_INT(n, 2);
  CHECK(n == 2 && strcmp(rows[0].name, "276") == 0 &&
        strcmp(rows[1].name, "278") == 0);
  for (size_t i = 0; i < n; i++)
    CHECK(rows[i].name_b == NULL && rows[i].match == ETK_DIFF_MATCH_EXACT &&
          rows[i].delta == 0);
  free_pair(&p);
}

ETK_TEST_MAIN()
