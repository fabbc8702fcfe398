/*
 * test_op_summary.c - the operator-type summary API must give exactly the
 * numbers `etkit inspect --summary` prints: every row of the Inspector's
 * summary TSV is compared, digit for digit, with etk_op_summary_row_get()
 * (tutorial file and hand-made dumps with delegates and wrappers).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_fixtures.h"
#include "etk_test.h"
#include "etkit/analysis.h"
#include "etkit/inspector.h"
#include "inspector_open.h"
#include "render_capture.h"

static void repr_or_empty(double v, char *out) {
  if (v != v)
    out[0] = 0;
  else
    etk_format_double_repr(v, out);
}

/* Compares the Inspector's summary TSV with the API, row by row. */
static void compare(etk_inspector_t *insp) {
  etk_render_sink_t *s = etk_test_capture_new();
  etk_inspector_render_options_t ro;
  etk_inspector_render_options_init(&ro);
  ro.view = ETK_INSPECT_VIEW_SUMMARY;
  ro.format = ETK_INSPECT_FORMAT_TSV;
  char *tsv =
      etk_test_capture_finish(s, etk_inspector_render(insp, &ro, s, NULL));
  REQUIRE(tsv);
  etk_op_summary_t *sum = NULL;
  REQUIRE(etk_op_summary_build(insp, &sum, NULL) == ETK_OK);
  char *line = strchr(tsv, '\n'); /* skip the header */
  REQUIRE(line);
  line++;
  size_t row = 0;
  while (*line) {
    char *end = strchr(line, '\n');
    REQUIRE(end);
    *end = 0;
    char *f[8];
    size_t nf = 0;
    for (char *p = line; nf < 8;) {
      f[nf++] = p;
      char *tab = strchr(p, '\t');
      if (!tab) break;
      *tab = 0;
      p = tab + 1;
    }
    REQUIRE(nf == 7);
    etk_op_summary_row_t r;
    REQUIRE(etk_op_summary_row_get(sum, row, &r) == ETK_OK);
    etk_inspector_block_t blk;
    etk_inspector_block_get(insp, r.block, &blk);
    CHECK_EQ_STR(f[1], blk.name);
    CHECK_EQ_STR(f[2], r.op_type);
    char num[ETK_FORMAT_DOUBLE_MAX];
    if (r.kind == ETK_OP_ROW_FRAMEWORK_OVERHEAD) {
      CHECK_EQ_STR(f[3], "");
    } else {
      snprintf(num, sizeof num, "%llu", (unsigned long long)r.count);
      CHECK_EQ_STR(f[3], num);
    }
    repr_or_empty(r.total, num);
    CHECK_EQ_STR(f[4], num);
    repr_or_empty(r.avg, num);
    CHECK_EQ_STR(f[5], num);
    repr_or_empty(r.percent, num);
    CHECK_EQ_STR(f[6], num);
    row++;
    line = end + 1;
  }
  CHECK_EQ_INT(row, etk_op_summary_row_count(sum));
  /* block facts agree with the closing rows */
  for (size_t b = 0; b < etk_inspector_block_count(insp); b++) {
    etk_op_summary_block_t ob;
    REQUIRE(etk_op_summary_block_get(sum, b, &ob) == ETK_OK);
    if (ob.method_time != ob.method_time) continue;
    etk_op_summary_row_t over, meth;
    etk_op_summary_row_get(sum, ob.first_row + ob.row_count - 2, &over);
    etk_op_summary_row_get(sum, ob.first_row + ob.row_count - 1, &meth);
    CHECK_EQ_INT(over.kind, ETK_OP_ROW_FRAMEWORK_OVERHEAD);
    CHECK(meth.total == ob.method_time);
    CHECK(over.total ==
          ob.method_time - ob.operators_total - ob.delegate_total);
    /* operators + delegate overhead + framework overhead = method time */
    double parts = 0;
    size_t delegate_rows = 0;
    for (size_t k = 0; k + 1 < ob.row_count; k++) {
      etk_op_summary_row_t r;
      etk_op_summary_row_get(sum, ob.first_row + k, &r);
      parts += r.total;
      delegate_rows += r.kind == ETK_OP_ROW_DELEGATE_OVERHEAD;
    }
    CHECK_EQ_INT(delegate_rows, ob.delegate_wrappers ? 1 : 0);
    CHECK(fabs(parts - ob.method_time) <= 1e-9 * fabs(ob.method_time));
  }
  etk_op_summary_free(sum);
  free(tsv);
}

ETK_TEST(tutorial_matches_inspect_summary) {
  ETK_CONFORMANCE_PATH(path, "etdump_tutorial.etdp");
  etk_inspector_t *insp = NULL;
  REQUIRE(etk_inspector_open_path(path, NULL, &insp, NULL) == ETK_OK);
  compare(insp);
  etk_op_summary_t *sum = NULL;
  REQUIRE(etk_op_summary_build(insp, &sum, NULL) == ETK_OK);
  /* roles of the Execute block: OPERATOR_CALL x14, Method::execute */
  size_t opcalls = 0, methods = 0;
  for (size_t e = 0; e < etk_inspector_event_count(insp); e++) {
    int role = etk_op_summary_event_role(sum, e);
    opcalls += role == ETK_OP_ROLE_OPERATOR_CALL;
    methods += role == ETK_OP_ROLE_METHOD;
  }
  CHECK_EQ_INT(opcalls, 14);
  CHECK_EQ_INT(methods, 1);
  etk_op_summary_block_t ob;
  etk_op_summary_block_get(sum, 0, &ob);
  CHECK_EQ_STR(ob.method_name, "Program::load_method");
  etk_op_summary_block_get(sum, 1, &ob);
  CHECK_EQ_STR(ob.method_name, "Method::execute");
  etk_op_summary_free(sum);
  etk_inspector_close(insp);
}

ETK_TEST(delegates_match_inspect_summary) {
  etk_inspector_t *insp = etk_test_inspector_build(afx_model, ETK_TIME_MS);
  REQUIRE(insp);
  compare(insp);
  etk_op_summary_t *sum = NULL;
  REQUIRE(etk_op_summary_build(insp, &sum, NULL) == ETK_OK);
  size_t wrappers = 0;
  for (size_t e = 0; e < etk_inspector_event_count(insp); e++)
    wrappers +=
        etk_op_summary_event_role(sum, e) == ETK_OP_ROLE_DELEGATE_WRAPPER;
  CHECK_EQ_INT(wrappers, 1);
  /* "linear #1" groups as "linear" */
  int found = 0;
  for (size_t i = 0; i < etk_op_summary_row_count(sum); i++) {
    etk_op_summary_row_t r;
    etk_op_summary_row_get(sum, i, &r);
    if (strcmp(r.op_type, "linear") == 0) found = 1;
  }
  CHECK(found);
  /* the delegate overhead: the wrapper minus the delegated events of its
   * instruction, computed here from the events themselves */
  double wrapper = 0, inside = 0;
  int32_t iid = -1;
  for (size_t e = 0; e < etk_inspector_event_count(insp); e++)
    if (etk_op_summary_event_role(sum, e) == ETK_OP_ROLE_DELEGATE_WRAPPER) {
      etk_inspector_event_t ev;
      etk_inspector_event_get(insp, e, &ev);
      iid = ev.instruction_id;
      wrapper += etk_op_summary_event_avg(sum, e);
    }
  for (size_t e = 0; e < etk_inspector_event_count(insp); e++) {
    etk_inspector_event_t ev;
    etk_inspector_event_get(insp, e, &ev);
    if (ev.is_delegated_op && ev.instruction_id == iid &&
        etk_op_summary_event_role(sum, e) == ETK_OP_ROLE_OPERATOR)
      inside += etk_op_summary_event_avg(sum, e);
  }
  REQUIRE(inside > 0);
  etk_op_summary_row_t deleg, over;
  size_t b = 0;
  etk_op_summary_block_t ob;
  for (; b < etk_inspector_block_count(insp); b++) {
    etk_op_summary_block_get(sum, b, &ob);
    if (ob.delegate_wrappers) break;
  }
  REQUIRE(b < etk_inspector_block_count(insp));
  etk_op_summary_row_get(sum, ob.first_row + ob.row_count - 3, &deleg);
  etk_op_summary_row_get(sum, ob.first_row + ob.row_count - 2, &over);
  CHECK_EQ_INT(deleg.kind, ETK_OP_ROW_DELEGATE_OVERHEAD);
  CHECK_EQ_STR(deleg.op_type, "delegate overhead");
  CHECK(deleg.count == 1 && deleg.avg != deleg.avg);
  CHECK(fabs(deleg.total - (wrapper - inside)) < 1e-12);
  /* the diff's totals agree with the summary (A against itself) */
  etk_diff_t *d = NULL;
  REQUIRE(etk_diff_build(insp, insp, NULL, &d, NULL) == ETK_OK);
  int seen = 0;
  for (size_t i = 0; i < etk_diff_row_count(d); i++) {
    etk_diff_row_t r;
    etk_diff_row_get(d, i, &r);
    if (r.kind == ETK_DIFF_ROW_DELEGATE_OVERHEAD) {
      CHECK(fabs(r.avg_a - deleg.total) < 1e-12 && r.count_a == 1);
      seen |= 1;
    }
    if (r.kind == ETK_DIFF_ROW_FRAMEWORK_OVERHEAD &&
        fabs(r.avg_a - over.total) < 1e-12)
      seen |= 2;
  }
  CHECK_EQ_INT(seen, 3);
  etk_diff_free(d);
  etk_op_summary_free(sum);
  etk_inspector_close(insp);
}

ETK_TEST(diff_fixtures_match_inspect_summary) {
  etk_inspector_t *insp = etk_test_inspector_build(afx_diff_a, ETK_TIME_MS);
  REQUIRE(insp);
  compare(insp);
  etk_inspector_close(insp);
  insp = etk_test_inspector_build(afx_diff_b, ETK_TIME_MS);
  REQUIRE(insp);
  compare(insp);
  etk_inspector_close(insp);
}

ETK_TEST(op_type_from_name) {
  size_t n;
  const char *t = etk_op_type_from_name("native_call_add.out", 19, &n);
  CHECK(n == 7 && memcmp(t, "add.out", 7) == 0);
  t = etk_op_type_from_name("linear #12", 10, &n);
  CHECK(n == 6 && memcmp(t, "linear", 6) == 0);
  t = etk_op_type_from_name("#3", 2, &n);
  CHECK(n == 2);
  t = etk_op_type_from_name("native_call_", 12, &n);
  CHECK(n == 12);
  t = etk_op_type_from_name("x #", 3, &n);
  CHECK(n == 3);
}

ETK_TEST_MAIN()
