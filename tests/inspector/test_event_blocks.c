/*
 * test_event_blocks.c - grouping runs into event blocks, event names and
 * durations, checked against the inspector notes (sections 3-5, Appendices
 * A-C) and the upstream tests of section 11.1 that apply.
 *
 * Expected numbers come from the notes (which were verified by running the
 * upstream Inspector); where a test derives a number itself, the comment
 * says how.
 */
#include <math.h>

#include "../etdump/etdump_writer.h"
#include "etk_test.h"
#include "etkit/schema.h"
#include "fixtures.h"
#include "inspector_open.h"
#include "test_helpers.h"

/* ------------------------------------------------------------ Appendix A */

static const char appendix_a[] =
    "\tevent_block_name\tevent_name\tp10 (ms)\tp50 (ms)\tp90 (ms)\tavg "
    "(ms)\tmin (ms)\tmax "
    "(ms)\top_types\tis_delegated_op\tdelegate_backend_name\tstart_time\n"
    "0\tDefault\tMethod::init\t0.022484\t0.022484\t0.022484\t0.022484\t0."
    "022484\t0.022484\t[]\tFalse\t\t[399054]\n"
    "1\tDefault\tProgram::load_method\t0.024857\t0.024857\t0.024857\t0."
    "024857\t0.024857\t0.024857\t[]\tFalse\t\t[398073]\n"
    "2\tExecute\tnative_call_convolution.out\t0.544783\t0.544783\t0.544783\t0."
    "544783\t0.544783\t0.544783\t[]\tFalse\t\t[426786]\n"
    "3\tExecute\tnative_call_relu.out\t0.008394\t0.008394\t0.008394\t0."
    "008394\t0.008394\t0.008394\t[]\tFalse\t\t[973071]\n"
    "4\tExecute\tnative_call_max_pool2d_with_indices.out\t0.050326\t0."
    "050326\t0.050326\t0.050326\t0.050326\t0.050326\t[]\tFalse\t\t[982516]\n"
    "5\tExecute\tnative_call_convolution.out\t1.031719\t1.031719\t1.031719\t1."
    "031719\t1.031719\t1.031719\t[]\tFalse\t\t[1033343]\n"
    "6\tExecute\tnative_call_relu.out\t0.000971\t0.000971\t0.000971\t0."
    "000971\t0.000971\t0.000971\t[]\tFalse\t\t[2065823]\n"
    "7\tExecute\tnative_call_max_pool2d_with_indices.out\t0.014081\t0."
    "014081\t0.014081\t0.014081\t0.014081\t0.014081\t[]\tFalse\t\t[2067166]\n"
    "8\tExecute\tnative_call_permute_copy.out\t0.153501\t0.153501\t0.153501\t0."
    "153501\t0.153501\t0.153501\t[]\tFalse\t\t[2081748]\n"
    "9\tExecute\tnative_call_addmm.out\t0.040962\t0.040962\t0.040962\t0."
    "040962\t0.040962\t0.040962\t[]\tFalse\t\t[2236551]\n"
    "10\tExecute\tnative_call_relu.out\t0.000151\t0.000151\t0.000151\t0."
    "000151\t0.000151\t0.000151\t[]\tFalse\t\t[2277823]\n"
    "11\tExecute\tnative_call_permute_copy.out\t0.032911\t0.032911\t0."
    "032911\t0.032911\t0.032911\t0.032911\t[]\tFalse\t\t[2278504]\n"
    "12\tExecute\tnative_call_addmm.out\t0.007191\t0.007191\t0.007191\t0."
    "007191\t0.007191\t0.007191\t[]\tFalse\t\t[2311735]\n"
    "13\tExecute\tnative_call_relu.out\t0.0001\t0.0001\t0.0001\t0.0001\t0."
    "0001\t0.0001\t[]\tFalse\t\t[2319237]\n"
    "14\tExecute\tnative_call_permute_copy.out\t0.003305\t0.003305\t0."
    "003305\t0.003305\t0.003305\t0.003305\t[]\tFalse\t\t[2319627]\n"
    "15\tExecute\tnative_call_addmm.out\t0.000691\t0.000691\t0.000691\t0."
    "000691\t0.000691\t0.000691\t[]\tFalse\t\t[2323213]\n"
    "16\tExecute\tMethod::execute\t1.898821\t1.898821\t1.898821\t1.898821\t1."
    "898821\t1.898821\t[]\tFalse\t\t[425313]\n";

/* Finishes the writer, opens an inspector over a copy of the dump (times
 * shown in `target`) and frees the writer; NULL when either fails. */
static etk_inspector_t *open_written(etw_t *w, etk_time_scale_t target) {
  size_t len = 0;
  const uint8_t *bytes = etw_finish(w, &len);
  etk_inspector_t *insp =
      bytes ? th_open(bytes, len, ETK_TIME_NS, target, 0, NULL) : NULL;
  etw_free(w);
  return insp;
}

ETK_TEST(appendix_a_tsv_is_byte_identical) {
  ETK_CONFORMANCE_PATH(path, "etdump_tutorial.etdp");
  etk_inspector_t *insp;
  REQUIRE(etk_inspector_open_path(path, NULL, &insp, NULL) == ETK_OK);
  CHECK_EQ_INT(etk_inspector_block_count(insp), 2);
  etk_inspector_block_t b;
  etk_inspector_block_get(insp, 1, &b);
  CHECK_EQ_STR(b.name, "Execute");
  CHECK_EQ_INT(b.event_count, 29); /* 14 x (native, OPERATOR_CALL) + execute */
  char *tsv = th_tsv(insp);
  REQUIRE(tsv != NULL);
  CHECK_EQ_STR(tsv, appendix_a);
  free(tsv);
  etk_inspector_close(insp);
}

/* ------------------------------------------------------------ Appendix B */

ETK_TEST(appendix_b_merges_identical_runs) {
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_appendix_b, ETK_TIME_US);
  REQUIRE(insp != NULL);
  REQUIRE(etk_inspector_block_count(insp) == 3);
  etk_inspector_block_t b0, b1, b2;
  etk_inspector_block_get(insp, 0, &b0);
  etk_inspector_block_get(insp, 1, &b1);
  etk_inspector_block_get(insp, 2, &b2);
  CHECK_EQ_STR(b0.name, "Default");
  CHECK_EQ_INT(b0.event_count, 2);
  CHECK_EQ_STR(b1.name, "Execute");
  CHECK_EQ_INT(b1.event_count, 3);
  CHECK_EQ_INT(b1.run_count, 3);
  CHECK_EQ_INT(b1.runs[0], 1);
  CHECK_EQ_INT(b1.runs[1], 2);
  CHECK_EQ_INT(b1.runs[2], 4);
  CHECK_EQ_STR(b2.name, "Execute");
  CHECK_EQ_INT(b2.event_count, 4);
  CHECK_EQ_INT(b2.run_count, 1);

  size_t add = th_find_event(insp, 1, "native_call_add.out");
  REQUIRE(add != (size_t)-1);
  char s[256];
  th_raw_repr(insp, add, s, sizeof s);
  CHECK_EQ_STR(s, "[0.01, 0.02, 0.04]");
  etk_stats_t st;
  REQUIRE(etk_inspector_event_stats(insp, add, &st) == ETK_OK);
  CHECK(th_stats_repr_is(&st, "0.012", "0.02", "0.036000000000000004",
                         "0.023333333333333334"));
  CHECK(st.min == 0.01 && st.max == 0.04);
  etk_inspector_sample_t smp;
  for (size_t k = 0; k < 3; k++) {
    REQUIRE(etk_inspector_event_sample(insp, add, k, &smp) == ETK_OK);
    CHECK_EQ_U64(smp.start_time, 100);
  }
  th_raw_repr(insp, th_find_event(insp, 1, "OPERATOR_CALL"), s, sizeof s);
  CHECK_EQ_STR(s, "[0.035, 0.045, 0.065]");
  th_raw_repr(insp, th_find_event(insp, 1, "Method::execute"), s, sizeof s);
  CHECK_EQ_STR(s, "[0.121, 0.122, 0.124]");
  etk_inspector_close(insp);
}

/* ------------------------------------------------------------ Appendix C */

static void appendix_c_checks(etk_inspector_t *insp, int with_buffer) {
  REQUIRE(etk_inspector_block_count(insp) == 2);
  etk_inspector_block_t b0, b1;
  etk_inspector_block_get(insp, 0, &b0);
  etk_inspector_block_get(insp, 1, &b1);
  CHECK_EQ_INT(b0.bundled_input_index, 0);
  CHECK_EQ_INT(b0.run_count, 2);
  CHECK_EQ_INT(b1.bundled_input_index, 1);
  CHECK_EQ_INT(b1.run_count, 1);
  static const char *const order[] = {
      "native_call_add.out", "OPERATOR_CALL", "5",
      "conv_fused",          "DELEGATE_CALL", "Method::execute"};
  REQUIRE(b0.event_count == 6);
  for (size_t i = 0; i < 6; i++) {
    etk_inspector_event_t e;
    etk_inspector_event_get(insp, b0.first_event + i, &e);
    CHECK_EQ_STR(e.name, order[i]);
  }
  char s[256];
  size_t base = b0.first_event;
  th_raw_repr(insp, base + 0, s, sizeof s);
  CHECK_EQ_STR(s, "[1.1e-05, 1.2e-05]");
  th_raw_repr(insp, base + 1, s, sizeof s);
  CHECK_EQ_STR(s, "[3.1e-05, 3.2e-05]");
  th_raw_repr(insp, base + 2, s, sizeof s);
  CHECK_EQ_STR(s, "[3.0999999999999995e-05, 3.199999999999999e-05]");
  th_raw_repr(insp, base + 3, s, sizeof s);
  CHECK_EQ_STR(s, "[9.999999999999999e-06, 9.999999999999999e-06]");
  th_raw_repr(insp, base + 4, s, sizeof s);
  CHECK_EQ_STR(s, "[7.1e-05, 7.2e-05]");
  th_raw_repr(insp, base + 5, s, sizeof s);
  CHECK_EQ_STR(s, "[0.000221, 0.000222]");

  etk_inspector_event_t e;
  etk_inspector_event_get(insp, base + 2, &e);
  CHECK(e.is_delegated_op && e.delegate_id_is_int &&
        e.delegate_debug_id_int == 5);
  CHECK(e.has_metadata);
  etk_inspector_sample_t smp;
  etk_inspector_event_sample(insp, base + 2, 1, &smp);
  CHECK(smp.metadata_len == 2 && memcmp(smp.metadata, "m2", 2) == 0);
  etk_inspector_event_get(insp, base + 3, &e);
  CHECK(e.is_delegated_op && !e.delegate_id_is_int);
  CHECK_EQ_STR(e.delegate_debug_id_str, "conv_fused");
  CHECK(!e.has_metadata); /* only empty metadata: upstream keeps [] */
  etk_inspector_event_get(insp, base + 4, &e);
  CHECK(!e.is_delegated_op);
  CHECK_EQ_INT(e.debug_count, 2); /* int64 [7, 8] and 42 */
  etk_inspector_event_get(insp, base + 1, &e);
  CHECK_EQ_INT(e.debug_count, 1); /* OPERATOR_CALL shares native_call's data */
  CHECK_EQ_INT(b0.output_count, 1);

  /* debug data as the table's debug_data column shows it */
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.all_columns = 1;
  ro.all_rows = 1;
  ro.select_index[ro.select_index_count++] = 0;
  char *tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  if (with_buffer) {
    CHECK_CONTAINS(tsv, "[tensor([1., 2., 3.])]", "[tensor([7, 8]), 42]");
  } else {
    CHECK_CONTAINS(tsv, "[tensor([0., 0., 0.])]", "[tensor([0, 0]), 42]");
  }
  free(tsv);
}

ETK_TEST(appendix_c_delegates_and_debug_data) {
  size_t len, blen;
  uint8_t *bytes = fixture_appendix_c(&len);
  uint8_t *buf = fixture_appendix_c_buffer(&blen);
  REQUIRE(bytes && buf);
  etk_inspector_t *insp =
      th_open(bytes, len, ETK_TIME_NS, ETK_TIME_MS, 0, NULL);
  REQUIRE(insp != NULL);
  appendix_c_checks(insp, 0);
  etk_inspector_close(insp);

  etk_inspector_options_t o;
  etk_inspector_options_init(&o);
  o.debug_buffer = buf;
  o.debug_buffer_len = blen;
  o.etdump.copy = 1;
  REQUIRE(etk_inspector_open_memory(bytes, len, &o, &insp, NULL) == ETK_OK);
  appendix_c_checks(insp, 1);
  CHECK_EQ_INT(etk_inspector_debug_mismatch_count(insp), 0);
  /* include_delegate_debug_data: [b'm1', b'm2'] for "5", NaN (empty) else */
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.include_delegate_debug_data = 1;
  char *tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  CHECK(strstr(tsv, "\tstart_time\tdelegate_debug_metadata\n") != NULL);
  /* p10 of [3.0999999999999995e-05, 3.199999999999999e-05]: 3.11e-05 by
   * numpy 1.24.2 (np.percentile, Debian python3-numpy) */
  CHECK_CONTAINS(tsv, "\tExecute\t5\t3.11e-05\t",
                 "[200, 200]\t[b'm1', b'm2']\n", "conv_fused",
                 "[240, 240]\t\n");
  free(tsv);
  etk_inspector_close(insp);
  free(bytes);
  free(buf);
}

/* ------------------------------------------------ upstream tests (11.1) */

static uint8_t *runs_abab(size_t *len, const char *const *order, int n) {
  /* "signature_a": one event; "signature_b": two events */
  etw_t *w = etw_new(1 << 16);
  for (int r = 0; r < n; r++) {
    etw_run_begin(w, "Execute", -1);
    etw_profile_t p = {0};
    p.dint = -1;
    p.name = "op_a";
    p.iid = 0;
    p.start = 10;
    p.end = 20 + (uint64_t)r;
    etw_profile(w, &p);
    if (order[r][0] == 'b') {
      p.name = "op_b";
      p.iid = 1;
      etw_profile(w, &p);
    }
    etw_run_end(w);
  }
  size_t l;
  const uint8_t *b = etw_finish(w, &l);
  uint8_t *copy = malloc(l);
  memcpy(copy, b, l);
  *len = l;
  etw_free(w);
  return copy;
}

/* etk_inspector_event_get_basic() gives get()'s first fields, the same
 * values, and zeros for the rest; *ints and *debug_only count the events
 * delegated by integer ids and those without perf data. */
static void check_get_basic(etk_inspector_t *insp, size_t *ints,
                            size_t *debug_only) {
  for (size_t i = 0; i < etk_inspector_event_count(insp); i++) {
    etk_inspector_event_t full, basic;
    REQUIRE(etk_inspector_event_get(insp, i, &full) == ETK_OK);
    char name[64];
    snprintf(name, sizeof name, "%s", full.name);
    REQUIRE(etk_inspector_event_get_basic(insp, i, &basic) == ETK_OK);
    CHECK_EQ_STR(basic.name, name);
    CHECK(basic.name_len == full.name_len && basic.block == full.block);
    CHECK_EQ_INT(basic.instruction_id, full.instruction_id);
    CHECK_EQ_INT(basic.is_delegated_op, full.is_delegated_op);
    CHECK_EQ_INT(basic.delegate_id_is_int, full.delegate_id_is_int);
    CHECK(basic.delegate_debug_id_int == full.delegate_debug_id_int);
    CHECK(basic.delegate_debug_id_str == full.delegate_debug_id_str);
    CHECK(basic.sample_count == full.sample_count);
    CHECK(basic.debug_count == 0 && basic.has_debug_signature == 0 &&
          basic.chain_index == 0 && basic.has_metadata == 0);
    *ints += full.delegate_id_is_int;
    *debug_only += full.sample_count == 0;
  }
  CHECK(etk_inspector_event_get_basic(insp, etk_inspector_event_count(insp),
                                      NULL) == ETK_E_INVALID_ARGUMENT);
}

/* ... on delegated events (integer and string ids) and on a run with
 * debug-only events. */
ETK_TEST(event_get_basic_matches_get) {
  size_t len, ints = 0, debug_only = 0;
  uint8_t *bytes = fixture_appendix_c(&len);
  REQUIRE(bytes);
  etk_inspector_t *insp =
      th_open(bytes, len, ETK_TIME_NS, ETK_TIME_MS, 0, NULL);
  REQUIRE(insp != NULL);
  check_get_basic(insp, &ints, &debug_only);
  etk_inspector_close(insp);
  free(bytes);
  etw_t *w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "a", 3, 0, 10, 20);
  etw_debug(w, &(etw_debug_t){.iid = 2,
                              .dint = -1,
                              .name = "c",
                              .kind = ETW_VALUE_INT,
                              .output = -1,
                              .chain = 4});
  etw_run_end(w);
  insp = open_written(w, ETK_TIME_MS);
  REQUIRE(insp != NULL);
  check_get_basic(insp, &ints, &debug_only);
  etk_inspector_close(insp);
  CHECK(ints > 0 && debug_only > 0);
}

ETK_TEST(gen_from_etdump_groups_by_signature) {
  /* upstream test_gen_from_etdump: a, a, b -> {(1 event, 2 samples),
   * (2 events, 1 sample)} */
  static const char *const order[] = {"a", "a", "b"};
  size_t len;
  uint8_t *bytes = runs_abab(&len, order, 3);
  etk_inspector_t *insp =
      th_open(bytes, len, ETK_TIME_NS, ETK_TIME_MS, 0, NULL);
  REQUIRE(insp && etk_inspector_block_count(insp) == 2);
  etk_inspector_block_t b;
  etk_inspector_block_get(insp, 0, &b);
  CHECK(b.event_count == 1 && b.run_count == 2);
  etk_inspector_block_get(insp, 1, &b);
  CHECK(b.event_count == 2 && b.run_count == 1);
  etk_inspector_close(insp);
  free(bytes);
}

ETK_TEST(gen_from_etdump_profiling_and_debugging) {
  /* upstream test_gen_from_etdump_profiling_and_debugging: runs a, a (one
   * profiled op with one debug value) and b (two ops, debug data on the
   * first only) -> block 0: 1 event, 2 samples, 1 debug value; block 1:
   * 2 events with 1 sample each, debug data only on the first. */
  etw_t *w = etw_new(1 << 16);
  for (int r = 0; r < 3; r++) {
    etw_run_begin(w, "Execute", -1);
    etw_profile_simple(w, "op_a", 0, 0, 1, 5 + (uint64_t)r);
    fixture_debug_int(w, 0, NULL, 7);
    if (r == 2) etw_profile_simple(w, "op_b", 0, 1, 5, 9);
    etw_run_end(w);
  }
  etk_inspector_t *insp = open_written(w, ETK_TIME_MS);
  REQUIRE(insp && etk_inspector_block_count(insp) == 2);
  etk_inspector_block_t b;
  etk_inspector_event_t e;
  etk_inspector_block_get(insp, 0, &b);
  CHECK(b.event_count == 1 && b.run_count == 2);
  etk_inspector_event_get(insp, b.first_event, &e);
  CHECK(e.sample_count == 2 && e.debug_count == 1);
  etk_inspector_block_get(insp, 1, &b);
  CHECK(b.event_count == 2 && b.run_count == 1);
  etk_inspector_event_get(insp, b.first_event, &e);
  CHECK(e.sample_count == 1 && e.debug_count == 1);
  etk_inspector_event_get(insp, b.first_event + 1, &e);
  CHECK(e.sample_count == 1 && e.debug_count == 0);
  uint32_t ref;
  REQUIRE(etk_inspector_event_debug_entry(insp, b.first_event, 0, &ref) ==
          ETK_OK);
  etk_etdump_value_t v;
  REQUIRE(etk_etdump_event_value(etk_inspector_etdump(insp), ref, &v) ==
          ETK_OK);
  CHECK(v.type == ETK_ETDUMP_VALUE_TYPE_INT && v.int_value == 7);
  CHECK_EQ_INT(etk_inspector_debug_mismatch_count(insp), 0);
  etk_inspector_close(insp);
}

ETK_TEST(delegated_events_convert_each_timestamp) {
  /* upstream test_inspector_delegate_time_scale_converter: a delegated
   * event 100 -> 200 gives 100 at scale 1; with ns -> us each stamp is
   * divided first: 200/1000 - 100/1000 = 0.1 (here exactly). */
  etw_t *w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", -1);
  etw_profile(w,
              &(etw_profile_t){.iid = 0, .dint = 1, .start = 100, .end = 200});
  etw_run_end(w);
  size_t len;
  const uint8_t *bytes = etw_finish(w, &len);
  char s[64];
  etk_inspector_t *insp =
      th_open(bytes, len, ETK_TIME_NS, ETK_TIME_NS, 0, NULL);
  REQUIRE(insp != NULL);
  th_raw_repr(insp, 0, s, sizeof s);
  CHECK_EQ_STR(s, "[100.0]");
  etk_inspector_close(insp);
  insp = th_open(bytes, len, ETK_TIME_NS, ETK_TIME_US, 0, NULL);
  REQUIRE(insp != NULL);
  th_raw_repr(insp, 0, s, sizeof s);
  CHECK_EQ_STR(s, "[0.1]");
  etk_inspector_close(insp);
  etw_free(w);
}

ETK_TEST(non_adjacent_repeats_merge) {
  /* notes 3.3: A, A, B, A -> blocks A (3 samples), B (1) */
  static const char *const order[] = {"a", "a", "b", "a"};
  size_t len;
  uint8_t *bytes = runs_abab(&len, order, 4);
  etk_inspector_t *insp =
      th_open(bytes, len, ETK_TIME_NS, ETK_TIME_MS, 0, NULL);
  REQUIRE(insp && etk_inspector_block_count(insp) == 2);
  etk_inspector_block_t b;
  etk_inspector_block_get(insp, 0, &b);
  CHECK_EQ_INT(b.run_count, 3);
  CHECK_EQ_INT(b.runs[2], 3);
  etk_inspector_close(insp);
  free(bytes);
}

ETK_TEST(debug_events_only) {
  /* upstream test_gen_from_etdump_debug_events_only: a delegated (str id)
   * and a non-delegated debug event -> 1 block, 2 events named by the
   * delegate id and by the debug event's name; no perf data. */
  etw_t *w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", -1);
  etw_debug_t d = {0};
  d.iid = 0;
  d.dint = -1;
  d.dstr = "delegate_debug_id";
  d.kind = ETW_VALUE_INT;
  d.int_value = 1;
  d.output = -1;
  etw_debug(w, &d);
  d.dstr = NULL;
  d.iid = 1;
  d.name = "debug_event_name";
  etw_debug(w, &d);
  etw_run_end(w);
  etk_inspector_t *insp = open_written(w, ETK_TIME_MS);
  REQUIRE(insp && etk_inspector_block_count(insp) == 1);
  etk_inspector_event_t e;
  etk_inspector_event_get(insp, 0, &e);
  CHECK_EQ_STR(e.name, "delegate_debug_id");
  CHECK(e.is_delegated_op && e.sample_count == 0 && e.debug_count == 1);
  etk_inspector_event_get(insp, 1, &e);
  CHECK_EQ_STR(e.name, "debug_event_name");
  CHECK(!e.is_delegated_op && e.sample_count == 0);
  etk_stats_t st;
  CHECK_EQ_INT(etk_inspector_event_stats(insp, 0, &st), ETK_E_NOT_FOUND);
  /* a frame where no event has perf data shows empty statistics (None) */
  char *tsv = th_tsv(insp);
  REQUIRE(tsv != NULL);
  CHECK(strstr(tsv,
               "0\tExecute\tdelegate_debug_id\t\t\t\t\t\t\t[]\tTrue\t\t\n") !=
        NULL);
  free(tsv);
  etk_inspector_close(insp);
}

ETK_TEST(event_generation_names_and_scaling) {
  /* upstream test_inspector_event_generation: durations 10, 20, 30 ticks,
   * scale 1000 -> 0.01, 0.02, 0.03; delegate ids name the event; id 0 is
   * valid; int wins over str. */
  etw_t *w = etw_new(1 << 16);
  for (int r = 0; r < 3; r++) {
    etw_run_begin(w, "Execute", -1);
    etw_profile_t p = {0};
    p.name = "plain";
    p.iid = 0;
    p.dint = -1;
    p.start = 0;
    p.end = 10 * (uint64_t)(r + 1);
    etw_profile(w, &p);
    p.name = NULL;
    p.iid = 1;
    p.dint = 0; /* delegate id 0 */
    etw_profile(w, &p);
    p.iid = 2;
    p.dint = 9;
    p.dstr = "ignored_when_int";
    etw_profile(w, &p);
    etw_run_end(w);
  }
  etk_inspector_t *insp = open_written(w, ETK_TIME_US);
  REQUIRE(insp && etk_inspector_block_count(insp) == 1);
  char s[128];
  th_raw_repr(insp, 0, s, sizeof s);
  CHECK_EQ_STR(s, "[0.01, 0.02, 0.03]");
  etk_inspector_event_t e;
  etk_inspector_event_get(insp, 1, &e);
  CHECK_EQ_STR(e.name, "0");
  CHECK(e.is_delegated_op && e.delegate_id_is_int &&
        e.delegate_debug_id_int == 0);
  etk_inspector_event_get(insp, 2, &e);
  CHECK_EQ_STR(e.name, "9");
  etk_inspector_sample_t smp;
  for (size_t k = 0; k < 3; k++) {
    etk_inspector_event_sample(insp, 0, k, &smp);
    CHECK_EQ_U64(smp.start_time, 0); /* _start_time == [0, 0, 0] */
  }
  etk_inspector_close(insp);
}

ETK_TEST(duplicate_signature_in_a_run_keeps_last_sample_first_place) {
  etw_t *w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", -1);
  etw_profile_t p = {0};
  p.dint = -1;
  p.name = "loop_op";
  p.iid = 0;
  p.start = 0;
  p.end = 5;
  etw_profile(w, &p);
  p.name = "other";
  p.iid = 1;
  etw_profile(w, &p);
  p.name = "loop_op";
  p.iid = 0;
  p.start = 100;
  p.end = 107;
  etw_profile(w, &p);
  etw_run_end(w);
  etk_inspector_t *insp = open_written(w, ETK_TIME_NS);
  REQUIRE(insp && etk_inspector_event_count(insp) == 2);
  etk_inspector_event_t e;
  etk_inspector_event_get(insp, 0, &e);
  CHECK_EQ_STR(e.name, "loop_op");
  char s[64];
  th_raw_repr(insp, 0, s, sizeof s);
  CHECK_EQ_STR(s, "[7.0]");
  etk_inspector_close(insp);
}

ETK_TEST(bundled_index_and_absent_events) {
  etw_t *w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", 0);
  etw_profile_simple(w, "x", 0, 0, 0, 3);
  etw_run_end(w);
  etw_run_begin(w, "Skipped", -1);
  etw_run_without_events(w);
  etw_run_end(w);
  etw_run_begin(w, "Execute", 1);
  etw_profile_simple(w, "x", 0, 0, 0, 3);
  etw_run_end(w);
  etw_run_begin(w, "Empty", -1);
  etw_run_end(w); /* present but empty events vector */
  etk_inspector_t *insp = open_written(w, ETK_TIME_MS);
  REQUIRE(insp && etk_inspector_block_count(insp) == 3);
  etk_inspector_block_t b;
  etk_inspector_block_get(insp, 2, &b);
  CHECK_EQ_STR(b.name, "Empty");
  CHECK_EQ_INT(b.event_count, 0);
  int rc;
  etk_error_t err;
  etk_error_clear(&err);
  char *out = th_render(insp, NULL, &rc, &err);
  CHECK(out == NULL);
  CHECK_EQ_INT(rc, ETK_E_FORMAT);
  CHECK(strstr(err.message, "empty events vector") != NULL);
  CHECK_EQ_U64(err.offset, b.offset);
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.allow_empty = 1;
  out = th_render(insp, &ro, &rc, NULL);
  REQUIRE(out != NULL);
  CHECK(strstr(out, "Empty") == NULL);
  free(out);
  etk_inspector_close(insp);
}

ETK_TEST(inconsistent_debug_data_is_counted) {
  /* upstream test_gen_from_etdump_inconsistent_debug_data raises an
   * AssertionError; etkit keeps the first run's values and counts. */
  etw_t *w = etw_new(1 << 16);
  static const int64_t s2[] = {2}, s1[] = {1};
  for (int r = 0; r < 2; r++) {
    etw_run_begin(w, "Execute", -1);
    etw_profile_simple(w, "op", 0, 0, 0, 3);
    etw_debug_t d = {0};
    d.iid = 0;
    d.dint = -1;
    d.kind = ETW_VALUE_TENSOR;
    d.tensor.scalar_type = ETK_SCALAR_TYPE_FLOAT;
    d.tensor.sizes = r ? s1 : s2;
    d.tensor.dim = 1;
    d.output = -1;
    etw_debug(w, &d);
    etw_run_end(w);
  }
  etk_inspector_t *insp = open_written(w, ETK_TIME_MS);
  REQUIRE(insp && etk_inspector_block_count(insp) == 1);
  CHECK_EQ_INT(etk_inspector_debug_mismatch_count(insp), 1);
  etk_inspector_close(insp);
}

/* ------------------------------------------------------------ durations */

ETK_TEST(wrap_and_missing_end_fixed_and_quirk) {
  size_t len;
  uint8_t *bytes = fixture_wrap(&len);
  REQUIRE(bytes != NULL);
  char s[128];
  /* fixed: true 32-bit difference 2^32 - 4294967290 + 5 = 11; missing end
   * -> no perf data; delegated wrap = (2^32 - 4294967000 + 1000) / 1 */
  etk_inspector_t *insp =
      th_open(bytes, len, ETK_TIME_NS, ETK_TIME_NS, 0, NULL);
  REQUIRE(insp != NULL);
  th_raw_repr(insp, 0, s, sizeof s);
  CHECK_EQ_STR(s, "[11.0]");
  etk_inspector_event_t e;
  etk_inspector_event_get(insp, 1, &e);
  CHECK_EQ_STR(e.name, "missing_end");
  etk_stats_t st;
  CHECK_EQ_INT(etk_inspector_event_stats(insp, 1, &st), ETK_E_NOT_FOUND);
  th_raw_repr(insp, 2, s, sizeof s);
  CHECK_EQ_STR(s, "[100.0]");
  th_raw_repr(insp, 3, s, sizeof s);
  CHECK_EQ_STR(s, "[1296.0]");
  etk_inspector_close(insp);
  /* upstream: (4294967295 - s) + e = 10; the missing end wraps to
   * 4294967295 - 100 = 4294967195; the delegated wrap adds the raw constant
   * to converted stamps: (4294967295.0 - 4294967000.0) + 1000.0 = 1295 */
  insp = th_open(bytes, len, ETK_TIME_NS, ETK_TIME_NS, ETK_INSPECTOR_QUIRKS_ALL,
                 NULL);
  REQUIRE(insp != NULL);
  th_raw_repr(insp, 0, s, sizeof s);
  CHECK_EQ_STR(s, "[10.0]");
  th_raw_repr(insp, 1, s, sizeof s);
  CHECK_EQ_STR(s, "[4294967195.0]");
  th_raw_repr(insp, 3, s, sizeof s);
  CHECK_EQ_STR(s, "[1295.0]");
  etk_inspector_close(insp);
  free(bytes);
}

ETK_TEST(wrap_beyond_32_bits_is_upstreams_error) {
  etw_t *w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "bad", 0, 0, 5000000000ull, 10);
  etw_run_end(w);
  size_t len;
  const uint8_t *bytes = etw_finish(w, &len);
  etk_inspector_t *insp;
  etk_error_t err;
  etk_error_clear(&err);
  etk_inspector_options_t o;
  etk_inspector_options_init(&o);
  CHECK_EQ_INT(etk_inspector_open_memory(bytes, len, &o, &insp, &err),
               ETK_E_FORMAT);
  CHECK(strstr(err.message,
               "Expected start_time (5000000000) and end_time (10) "
               "to be less than 4294967295") != NULL);
  CHECK(err.offset != ETK_NO_OFFSET && err.offset < len);
  etw_free(w);
}

ETK_TEST(time_scale_factors) {
  double f;
  CHECK(etk_time_scale_factor(ETK_TIME_NS, ETK_TIME_MS, 0, &f, NULL) ==
            ETK_OK &&
        f == 1000000.0);
  CHECK(etk_time_scale_factor(ETK_TIME_MS, ETK_TIME_NS, 0, &f, NULL) ==
            ETK_OK &&
        f == 1e-06);
  CHECK(etk_time_scale_factor(ETK_TIME_US, ETK_TIME_S, 0, &f, NULL) == ETK_OK &&
        f == 1e6);
  CHECK(etk_time_scale_factor(ETK_TIME_CYCLES, ETK_TIME_CYCLES, 0, &f, NULL) ==
            ETK_OK &&
        f == 1);
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_time_scale_factor(ETK_TIME_CYCLES, ETK_TIME_MS, 0, &f, &err),
               ETK_E_UNSUPPORTED);
  CHECK(strstr(err.message,
               "For TimeScale in cycles both the source and target "
               "time scale have to be in cycles.") != NULL);
  /* --clock-hz: 1e9 cycles/s -> ms: divide by 1e6 */
  CHECK(etk_time_scale_factor(ETK_TIME_CYCLES, ETK_TIME_MS, 1e9, &f, NULL) ==
            ETK_OK &&
        f == 1e6);
  CHECK(etk_time_scale_factor(ETK_TIME_US, ETK_TIME_CYCLES, 2e6, &f, NULL) ==
            ETK_OK &&
        f == 0.5);
  etk_time_scale_t t;
  CHECK(etk_time_scale_parse("cycles", &t) == ETK_OK && t == ETK_TIME_CYCLES);
  CHECK(etk_time_scale_parse("min", &t) == ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(allocation_events_are_reported_per_allocator) {
  size_t len;
  uint8_t *bytes = fixture_allocations(&len);
  etk_inspector_t *insp =
      th_open(bytes, len, ETK_TIME_NS, ETK_TIME_MS, 0, NULL);
  REQUIRE(insp != NULL);
  CHECK_EQ_INT(etk_inspector_block_count(insp), 2);
  CHECK_EQ_INT(etk_inspector_allocator_count(insp), 4);
  etk_inspector_allocator_t a;
  etk_inspector_allocator_get(insp, 0, &a);
  CHECK_EQ_STR(a.run_name, "Default");
  CHECK_EQ_STR(a.name, "method_allocator");
  CHECK(a.count == 2 && a.total_bytes == 96 && a.max_bytes == 64 &&
        a.runs == 1);
  etk_inspector_allocator_get(insp, 3, &a);
  CHECK(a.name == NULL && a.allocator_id == 5 && a.total_bytes == 8);
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.view = ETK_INSPECT_VIEW_ALLOCATIONS;
  char *tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  CHECK_EQ_STR(tsv,
               "\tevent_block_name\tallocator\tallocator_id\tcount\ttotal_"
               "bytes\tmax_bytes\truns\n"
               "0\tDefault\tmethod_allocator\t1\t2\t96\t64\t1\n"
               "1\tDefault\tplanned_memory\t2\t1\t128\t128\t1\n"
               "2\tExecute\tmethod_allocator\t1\t1\t16\t16\t1\n"
               "3\tExecute\t\t5\t1\t8\t8\t1\n");
  free(tsv);
  etk_inspector_close(insp);
  free(bytes);
}

/* ------------------------------------------------------------ statistics */

/* Every event's etk_inspector_event_stats() is etk_stats_compute() of its
 * durations, bit for bit (the one-sample shortcut included), and
 * ETK_E_NOT_FOUND exactly when it has none: fixtures with one-run and
 * merged blocks, delegated events, wraps and missing ends, with and
 * without the quirks. */
ETK_TEST(event_stats_are_stats_of_durations) {
  uint8_t *(*const make[])(size_t *) = {fixture_appendix_b, fixture_appendix_c,
                                        fixture_wrap, fixture_delegates,
                                        fixture_allocations};
  const unsigned quirks[2] = {0, ETK_INSPECTOR_QUIRKS_ALL};
  size_t checked = 0, one_sample = 0;
  for (size_t f = 0; f < sizeof make / sizeof *make; f++) {
    size_t len;
    uint8_t *bytes = make[f](&len);
    REQUIRE(bytes != NULL);
    for (int q = 0; q < 2; q++) {
      etk_inspector_t *insp =
          th_open(bytes, len, ETK_TIME_NS, ETK_TIME_US, quirks[q], NULL);
      REQUIRE(insp != NULL);
      for (size_t e = 0; e < etk_inspector_event_count(insp); e++) {
        double raw[64], scratch[64];
        size_t n = 0;
        etk_inspector_event_t ev;
        REQUIRE(etk_inspector_event_get(insp, e, &ev) == ETK_OK);
        REQUIRE(ev.sample_count <= 64);
        etk_inspector_event_durations(insp, e, raw, &n);
        etk_stats_t got, want;
        memset(&got, 0xA5, sizeof got);
        memset(&want, 0xA5, sizeof want);
        int rc = etk_inspector_event_stats(insp, e, &got);
        etk_stats_t again = got;
        CHECK_EQ_INT(etk_inspector_event_stats(insp, e, &again), rc);
        CHECK_EQ_MEM(&again, &got, sizeof got); /* remembered, the same */
        if (n == 0) {
          CHECK_EQ_INT(rc, ETK_E_NOT_FOUND);
          continue;
        }
        REQUIRE(etk_stats_compute(raw, n, scratch, &want) == ETK_OK);
        CHECK_EQ_INT(rc, ETK_OK);
        CHECK_EQ_MEM(&got, &want, sizeof got);
        checked++;
        one_sample += ev.sample_count == 1;
      }
      etk_inspector_close(insp);
    }
    free(bytes);
  }
  CHECK(checked > 20 && one_sample > 5 && one_sample < checked);
}

/* The chain index of an event is its first ETDump event's, as a signed
 * 32-bit value: one chain value for the whole dump, and several (a
 * profile -1, a debug 2^64 - 1 reported as -1, a large debug chain). */
ETK_TEST(event_chain_index) {
  etw_t *w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "a", 7, 0, 10, 20);
  etw_profile_simple(w, "b", 7, 1, 20, 30);
  etw_run_end(w);
  etk_inspector_t *insp = open_written(w, ETK_TIME_MS);
  REQUIRE(insp != NULL);
  etk_inspector_event_t e;
  for (size_t i = 0; i < 2; i++) {
    REQUIRE(etk_inspector_event_get(insp, i, &e) == ETK_OK);
    CHECK_EQ_INT(e.chain_index, 7);
  }
  etk_inspector_close(insp);

  w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "a", -1, 0, 10, 20);
  etw_profile_simple(w, "b", 3, 1, 20, 30);
  etw_debug_t d;
  memset(&d, 0, sizeof d);
  d.iid = 2;
  d.dint = -1;
  d.name = "c";
  d.kind = ETW_VALUE_INT;
  d.output = -1;
  d.chain = UINT64_MAX;
  etw_debug(w, &d);
  d.iid = 3;
  d.name = "d";
  d.chain = 5000000000ull;
  etw_debug(w, &d);
  etw_run_end(w);
  insp = open_written(w, ETK_TIME_MS);
  REQUIRE(insp != NULL && etk_inspector_event_count(insp) == 4);
  const int32_t want[4] = {-1, 3, -1, -1};
  for (size_t i = 0; i < 4; i++) {
    REQUIRE(etk_inspector_event_get(insp, i, &e) == ETK_OK);
    CHECK_EQ_INT(e.chain_index, want[i]);
  }
  etk_inspector_close(insp);
}

/* Which ETDump event stands for each event and sample, whether the
 * inspector keeps them in arrays or knows them to be the identity: one run
 * (identity), a repeated run (a matrix of samples), a run with an
 * allocation before its profile events (reps shifted by one). */
ETK_TEST(event_reps_and_samples) {
  etw_t *w = etw_new(1 << 16);
  etw_allocator(w, "a");
  for (int r = 0; r < 3; r++) {
    etw_run_begin(w, r < 2 ? "Execute" : "Other", -1);
    if (r == 2) etw_allocation(w, 1, 64);
    etw_profile_simple(w, "x", 0, 0, 10 + 100 * (uint64_t)r, 20 + 100 * r);
    etw_profile_simple(w, "y", 0, 1, 30, 45 + (uint64_t)r);
    etw_run_end(w);
  }
  etk_inspector_t *insp = open_written(w, ETK_TIME_NS);
  REQUIRE(insp != NULL && etk_inspector_block_count(insp) == 2);
  REQUIRE(etk_inspector_event_count(insp) == 4);
  /* events 0, 1: runs 0 and 1 (ETDump events 0-1 and 2-3); events 2, 3:
   * run 2, whose ETDump events 4-6 start with the allocation */
  const uint32_t want[4][2] = {{0, 2}, {1, 3}, {5, 0}, {6, 0}};
  const size_t runs[4] = {2, 2, 1, 1};
  for (size_t e = 0; e < 4; e++) {
    etk_inspector_event_t ev;
    REQUIRE(etk_inspector_event_get(insp, e, &ev) == ETK_OK);
    CHECK_EQ_INT(ev.sample_count, runs[e]);
    for (size_t k = 0; k < runs[e]; k++) {
      etk_inspector_sample_t sm;
      REQUIRE(etk_inspector_event_sample(insp, e, k, &sm) == ETK_OK);
      CHECK_EQ_INT(sm.etdump_event, want[e][k]);
    }
  }
  char s[128];
  th_raw_repr(insp, 1, s, sizeof s);
  CHECK_EQ_STR(s, "[15.0, 16.0]");
  th_raw_repr(insp, 3, s, sizeof s);
  CHECK_EQ_STR(s, "[17.0]");
  etk_inspector_close(insp);

  w = etw_new(1 << 16);
  etw_run_begin(w, "Execute", -1);
  for (int i = 0; i < 100; i++)
    etw_profile_simple(w, "op", 0, i, 1000 + (uint64_t)i, 1010 + 2 * i);
  etw_run_end(w);
  insp = open_written(w, ETK_TIME_NS);
  REQUIRE(insp != NULL && etk_inspector_event_count(insp) == 100);
  for (size_t pass = 0; pass < 2; pass++) /* the second mostly remembered */
    for (size_t e = 0; e < 100; e++) {
      etk_inspector_sample_t sm;
      etk_stats_t st;
      REQUIRE(etk_inspector_event_sample(insp, e, 0, &sm) == ETK_OK);
      CHECK_EQ_INT(sm.etdump_event, e);
      REQUIRE(etk_inspector_event_stats(insp, e, &st) == ETK_OK);
      CHECK(st.count == 1 && st.p50 == (double)(10 + e));
    }
  etk_inspector_close(insp);
}

ETK_TEST_MAIN()
