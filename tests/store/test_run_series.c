/*
 * test_run_series.c - the per-run series (etkit/run_series.h) on dumps
 * whose run durations are chosen: warm-up runs, a prefill, decode steps
 * that grow linearly with the KV cache, a spike, and a slow drift.
 */
#include <math.h>

#include "etdump_writer.h"
#include "etk_test.h"
#include "etkit/run_series.h"
#include "etkit/status.h"

/* A dump of one block of runs with the given durations (ms). */
static etk_inspector_t *open_runs(const char *name, const double *ms,
                                  size_t n) {
  etw_t *w = etw_new(n * 256 + 4096);
  uint64_t t = 1000;
  for (size_t i = 0; i < n; i++) {
    etw_run_begin(w, name, -1);
    uint64_t d = (uint64_t)(ms[i] * 1e6);
    etw_profile_simple(w, "op", 0, 0, t + 10, t + d - 10);
    etw_profile_simple(w, "Method::execute", -1, 0, t, t + d);
    etw_run_end(w);
    t += d + 100;
  }
  size_t len;
  uint8_t *bytes = etw_finish_copy(w, &len);
  etk_inspector_options_t o;
  etk_inspector_options_init(&o);
  o.etdump.copy = 1;
  etk_inspector_t *insp = NULL;
  etk_inspector_open_memory(bytes, len, &o, &insp, NULL);
  free(bytes);
  return insp;
}

ETK_TEST(llm_phases_and_token_growth) {
  double ms[103];
  ms[0] = ms[1] = 30.0;            /* warm-up */
  ms[2] = 80.0;                    /* prefill of 32 tokens */
  for (size_t i = 0; i < 100; i++) /* decode: 1 ms + 0.2 ms per 100 */
    ms[3 + i] = 1.0 + 0.002 * (double)i;
  ms[60] = 5.0; /* one spike */
  etk_inspector_t *insp = open_runs("Execute", ms, 103);
  REQUIRE(insp);
  etk_run_series_options_t opt = {32};
  etk_run_series_t s;
  REQUIRE(etk_run_series_build(insp, &opt, &s, NULL) == ETK_OK);
  REQUIRE(s.count == 1);
  const etk_run_series_block_t *b = &s.blocks[0];
  CHECK(b->llm);
  CHECK_EQ_INT(b->warmup_runs, 2);
  CHECK_EQ_INT(b->phases[ETK_RUN_PREFILL].runs, 1);
  CHECK_EQ_INT(b->phases[ETK_RUN_PREFILL].first, 2);
  CHECK_EQ_INT(b->phases[ETK_RUN_DECODE].runs, 100);
  CHECK_EQ_INT(b->outliers, 1);
  CHECK(b->outlier[60]);
  CHECK(fabs(b->ms_per_token - 1.1) < 0.01);
  CHECK(fabs(b->token_growth_per_100 - 0.2) < 0.005);
  CHECK(fabs(b->prefill_per_prompt_token - 80.0 / 32) < 1e-6);
  /* percentiles per phase, never mixed: the decode p90 ignores the
   * prefill and warm-up */
  CHECK(b->phases[ETK_RUN_DECODE].stats.p90 < 1.3);
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  CHECK(etk_run_series_render(&s, ETK_INSPECT_FORMAT_JSON, &sink, NULL) ==
        ETK_OK);
  size_t n;
  char *json = etk_render_sink_take(&sink, &n);
  CHECK_CONTAINS(json, "\"phase\": \"prefill\"", "\"phase\": \"decode\"",
                 "\"ms_per_decode_token\"", "\"outlier\": true");
  free(json);
  etk_run_series_free(&s);
  etk_inspector_close(insp);
}

ETK_TEST(warmup_and_drift) {
  double ms[203];
  ms[0] = 9.0;
  ms[1] = 6.0;
  ms[2] = 4.0;
  for (size_t i = 0; i < 200; i++) /* 2 ms, +1 % per 100 runs */
    ms[3 + i] = 2.0 * (1.0 + 0.0001 * (double)(i + 3));
  etk_inspector_t *insp = open_runs("Execute", ms, 203);
  REQUIRE(insp);
  etk_run_series_t s;
  REQUIRE(etk_run_series_build(insp, NULL, &s, NULL) == ETK_OK);
  const etk_run_series_block_t *b = &s.blocks[0];
  CHECK(!b->llm);
  CHECK_EQ_INT(b->warmup_runs, 3);
  CHECK_EQ_INT(b->phases[ETK_RUN_STEADY].runs, 200);
  CHECK_EQ_INT(b->outliers, 0);
  CHECK(fabs(b->drift_per_100 - 0.02) < 1e-4);
  CHECK(fabs(b->drift_pct_per_100 - 1.0) < 0.02);
  CHECK(isnan(b->ms_per_token));
  etk_run_series_free(&s);
  etk_inspector_close(insp);
}

ETK_TEST_MAIN()
