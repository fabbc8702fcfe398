/*
 * memory_plan_fuzz.c - libFuzzer target of the memory-plan reader: any
 * bytes are opened with etk_memory_plan_open() (first method) and, when
 * they open, every output is rendered into a counting sink (table, JSON,
 * CSV, trace with and without offsets, HTML, problem lines).  The
 * invariant under test: one error or a complete analysis, no crash, no
 * sanitizer report, no allocation beyond the input's size.
 *
 * Replayed by ctest as memory_plan_fuzz_replay (tests/memory_plan/) over
 * fuzz/memory_plan/corpus (the memory-plan fixtures and hostile programs
 * derived from them) and fuzz/program/corpus.
 */
#include <stdint.h>
#include <stdlib.h>

#include "etkit/memory_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  etk_memory_plan_t *plan = NULL;
  if (etk_memory_plan_open(data, size, NULL, &plan, NULL) != ETK_OK) return 0;
  etk_render_sink_t sink;
  for (int f = ETK_MEMORY_PLAN_TABLE; f <= ETK_MEMORY_PLAN_CSV; f++) {
    etk_render_sink_init(&sink, NULL, NULL);
    (void)etk_memory_plan_render(plan, (etk_memory_plan_format_t)f, 3, &sink,
                                 NULL);
  }
  for (int offsets = 0; offsets < 2; offsets++) {
    etk_render_sink_init(&sink, NULL, NULL);
    (void)etk_memory_plan_render_trace(plan, offsets, &sink, NULL);
  }
  etk_render_sink_init(&sink, NULL, NULL);
  (void)etk_memory_plan_render_html(plan, &sink, NULL);
  etk_render_sink_init(&sink, NULL, NULL);
  (void)etk_memory_plan_render_problems(plan, &sink);
  etk_memory_plan_free(plan);
  return 0;
}
