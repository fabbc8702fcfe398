/*
 * test_memory.c - the memory report: per block and allocator counts,
 * cumulative and peak bytes per run, unknown allocator ids, the largest
 * allocations with their "next event", the upstream golden_allocators
 * file, and the renderings.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_fixtures.h"
#include "etk_test.h"
#include "etkit/inspector.h"
#include "inspector_open.h"
#include "render_capture.h"

static char *render(const etk_memory_report_t *m, etk_inspect_format_t f) {
  etk_render_sink_t *s = etk_test_capture_new();
  return etk_test_capture_finish(s, etk_memory_report_render(m, f, 2, s, NULL));
}

/* A fixture's inspector (milliseconds) and its memory report (default
 * number of largest allocations); NULL (and *insp NULL) when either cannot
 * be built. */
static etk_memory_report_t *report_of_fixture(uint8_t *(*build)(size_t *len),
                                              etk_inspector_t **insp) {
  etk_memory_report_t *m = NULL;
  *insp = etk_test_inspector_build(build, ETK_TIME_MS);
  if (*insp && etk_memory_report_build(*insp, 0, &m, NULL) != ETK_OK) {
    etk_inspector_close(*insp);
    *insp = NULL;
  }
  return m;
}

ETK_TEST(model_numbers) {
  etk_inspector_t *insp = NULL;
  etk_memory_report_t *m = report_of_fixture(afx_model, &insp);
  REQUIRE(m);
  CHECK_EQ_U64(etk_memory_report_event_count(m), 9);
  REQUIRE(etk_memory_report_allocator_count(m) == 4);
  etk_memory_allocator_t a;
  /* Default: 256 + 64 in method_allocator, 4096 in planned_memory */
  etk_memory_report_allocator_get(m, 0, &a);
  CHECK_EQ_STR(a.block_name, "Default");
  CHECK_EQ_STR(a.name, "method_allocator");
  CHECK(a.block == 0 && a.allocator_id == 1 && a.runs == 1 &&
        a.runs_with_allocations == 1);
  CHECK(a.count == 2 && a.total_bytes == 320 && a.peak_bytes == 320);
  CHECK(a.min_run_bytes == 320 && a.largest_bytes == 256);
  etk_memory_report_allocator_get(m, 1, &a);
  CHECK_EQ_STR(a.name, "planned_memory");
  CHECK(a.count == 1 && a.total_bytes == 4096 && a.peak_bytes == 4096);
  /* Execute (two runs): 32 + 16 per run in temp_allocator */
  etk_memory_report_allocator_get(m, 2, &a);
  CHECK_EQ_STR(a.block_name, "Execute");
  CHECK_EQ_STR(a.name, "temp_allocator");
  CHECK(a.block == 1 && a.runs == 2 && a.runs_with_allocations == 2);
  CHECK(a.count == 4 && a.total_bytes == 96 && a.peak_bytes == 48);
  CHECK(a.min_run_bytes == 48 && a.largest_bytes == 32);
  /* id 9 names no allocator of its run */
  etk_memory_report_allocator_get(m, 3, &a);
  CHECK(a.name == NULL && a.allocator_id == 9);
  CHECK(a.count == 2 && a.total_bytes == 16 && a.peak_bytes == 8);
  CHECK(etk_memory_report_allocator_get(m, 4, &a) == ETK_E_INVALID_ARGUMENT);

  /* largest first, ties in file order */
  REQUIRE(etk_memory_report_largest_count(m) == 9);
  static const uint64_t sizes[9] = {4096, 256, 64, 32, 32, 16, 16, 8, 8};
  static const uint32_t runs[9] = {0, 0, 0, 1, 2, 1, 2, 1, 2};
  static const char *const next[9] = {"Method::init",
                                      "Method::init",
                                      "Program::load_method",
                                      "3",
                                      "3",
                                      "native_call_mul.out",
                                      "native_call_mul.out",
                                      "native_call_mul.out",
                                      "native_call_mul.out"};
  for (size_t i = 0; i < 9; i++) {
    etk_memory_allocation_t t;
    REQUIRE(etk_memory_report_largest_get(m, i, &t) == ETK_OK);
    CHECK_EQ_U64(t.bytes, sizes[i]);
    CHECK_EQ_U64(t.run, runs[i]);
    CHECK_EQ_STR(t.next_event, next[i]);
  }
  etk_memory_allocation_t t;
  etk_memory_report_largest_get(m, 2, &t);
  CHECK_EQ_U64(t.offset_in_run, 256); /* method_allocator had 256 before */
  CHECK_EQ_U64(t.allocator, 0);
  etk_memory_report_free(m);

  /* a smaller top keeps the largest */
  REQUIRE(etk_memory_report_build(insp, 2, &m, NULL) == ETK_OK);
  CHECK_EQ_INT(etk_memory_report_largest_count(m), 2);
  etk_memory_report_largest_get(m, 1, &t);
  CHECK_EQ_U64(t.bytes, 256);

  char *text = render(m, ETK_INSPECT_FORMAT_JSON);
  REQUIRE(text);
  json_t *root = json_loads(text, 0, NULL);
  free(text);
  REQUIRE(root);
  CHECK(json_is_true(json_object_get(root, "cumulative")));
  CHECK(json_is_null(json_object_get(root, "dropped_events")));
  json_t *al = json_object_get(root, "allocators");
  CHECK_EQ_INT(json_array_size(al), 4);
  CHECK_EQ_INT(json_integer_value(json_object_get(json_array_get(al, 2),
                                                  "peak_bytes_per_run")),
               48);
  CHECK(json_is_null(json_object_get(json_array_get(al, 3), "allocator")));
  json_decref(root);

  text = render(m, ETK_INSPECT_FORMAT_TSV);
  REQUIRE(text);
  CHECK(strstr(
            text,
            "event_block_name\tallocator\tallocator_id\truns\truns_allocating\t"
            "allocations\ttotal_bytes\tpeak_bytes_per_run\tmin_bytes_per_run\t"
            "largest_bytes\n") == text);
  CHECK(
      strstr(text, "\nExecute\ttemp_allocator\t1\t2\t2\t4\t96\t48\t48\t32\n") !=
      NULL);
  CHECK(strstr(text,
               "\nExecute\t(unknown allocator)\t9\t2\t2\t2\t16\t8\t8\t8\n") !=
        NULL);
  free(text);
  text = render(m, ETK_INSPECT_FORMAT_TABLE);
  REQUIRE(text);
  CHECK_CONTAINS(text, "CUMULATIVE", "largest allocations:");
  free(text);
  etk_memory_report_free(m);
  etk_inspector_close(insp);
}

ETK_TEST(upstream_golden_allocators) {
  ETK_CONFORMANCE_PATH(path, "golden_allocators.etdp");
  etk_inspector_t *insp = NULL;
  REQUIRE(etk_inspector_open_path(path, NULL, &insp, NULL) == ETK_OK);
  etk_memory_report_t *m = NULL;
  REQUIRE(etk_memory_report_build(insp, 0, &m, NULL) == ETK_OK);
  REQUIRE(etk_memory_report_allocator_count(m) == 2);
  etk_memory_allocator_t a;
  etk_memory_report_allocator_get(m, 0, &a);
  CHECK_EQ_STR(a.name, "test_allocator_0");
  CHECK_EQ_STR(a.block_name, "test_block");
  CHECK(a.total_bytes == 64 && a.peak_bytes == 64 && a.count == 1);
  etk_memory_report_allocator_get(m, 1, &a);
  CHECK_EQ_STR(a.name, "test_allocator_1");
  CHECK(a.total_bytes == 128);
  etk_memory_allocation_t t;
  etk_memory_report_largest_get(m, 0, &t);
  CHECK(t.bytes == 128);
  CHECK_EQ_STR(t.next_event, "test_event");
  etk_memory_report_free(m);
  etk_inspector_close(insp);
}

ETK_TEST(no_allocations_and_dropped_marker) {
  etk_inspector_t *insp = NULL;
  etk_memory_report_t *m = report_of_fixture(afx_dropped, &insp);
  REQUIRE(m);
  CHECK_EQ_INT(etk_memory_report_allocator_count(m), 0);
  CHECK_EQ_INT(etk_memory_report_largest_count(m), 0);
  char *text = render(m, ETK_INSPECT_FORMAT_TABLE);
  REQUIRE(text);
  CHECK_CONTAINS(text, "dropped 17 event(s)",
                 "no allocation events in this ETDump\n");
  free(text);
  text = render(m, ETK_INSPECT_FORMAT_JSON);
  json_t *root = json_loads(text, 0, NULL);
  free(text);
  CHECK(root &&
        json_integer_value(json_object_get(root, "dropped_events")) == 17);
  json_decref(root);
  etk_memory_report_free(m);
  etk_inspector_close(insp);
}

ETK_TEST_MAIN()
