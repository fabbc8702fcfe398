/* consumer.c - a program outside the etkit tree that uses the installed
 * headers and libraries: it writes an ETDump with the recorder, reads it
 * back with the inspector, and calls into every other public library
 * (render, analysis, numerics, ETRecord, link, torch, program, runtime,
 * kernels, the micro backend), so that a missing library in etkit.pc or
 * in the CMake package fails to link.  Prints "blocks 1" and "apis ok". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/etkit.h"

static uint64_t ticks;
static uint64_t clock_fn(void *ctx) {
  (void)ctx;
  return ticks += 10;
}

/* Each library rejects input it cannot use, with the documented code:
 * what matters here is that every symbol links and answers. */
static int other_libraries(etk_inspector_t *insp) {
  int failures = 0;
  /* analysis */
  etk_op_summary_t *sum = NULL;
  failures += etk_op_summary_build(insp, &sum, NULL) != ETK_OK;
  etk_op_summary_free(sum);
  /* render */
  char text[ETK_FORMAT_DOUBLE_MAX];
  etk_format_duration(0.0125, text);
  failures += strcmp(text, "12.5 ms") != 0;
  /* numerics */
  failures += etk_numerics_element_size(6) != 4; /* FLOAT */
  /* ETRecord and the link between ETRecord and Inspector */
  static const char not_a_zip[] = "not a zip archive";
  etk_etrecord_t *rec = NULL;
  failures += etk_etrecord_open_memory(not_a_zip, sizeof not_a_zip, NULL, &rec,
                                       NULL) == ETK_OK;
  failures +=
      etk_etrecord_inspector_link(NULL, insp, NULL, 0, NULL, NULL) == ETK_OK;
  /* torch.save reader */
  failures += etk_torch_dtype_size(6) != 4;
  /* program, runtime and kernels, micro backend */
  etk_program_t *prog = NULL;
  failures += etk_program_load((const uint8_t *)not_a_zip, sizeof not_a_zip,
                               NULL, &prog, NULL) == ETK_OK;
  etk_method_t *m = NULL;
  failures += etk_method_load_alloc(NULL, "forward", NULL, &m, NULL) == ETK_OK;
  uint8_t graph[256];
  etk_micro_graph_t g;
  failures += etk_micro_graph_init(&g, graph, sizeof graph) != ETK_OK;
  return failures;
}

int main(void) {
  static uint64_t arena[8192];
  etk_recorder_config_t cfg;
  etk_recorder_config_init(&cfg);
  cfg.clock = clock_fn;
  etk_recorder_t *rec;
  if (etk_recorder_init(&rec, arena, sizeof arena, &cfg) != ETK_OK) return 1;
  etk_recorder_begin_block(rec, "Execute");
  etk_recorder_scope_t s =
      etk_recorder_begin_named(rec, "native_call_add.out", 0, 0);
  etk_recorder_end(rec, &s);
  const uint8_t *etdp;
  size_t len;
  if (etk_recorder_finish(rec, &etdp, &len) != ETK_OK) return 1;
  etk_inspector_t *insp = NULL;
  if (etk_inspector_open_memory(etdp, len, NULL, &insp, NULL) != ETK_OK)
    return 1;
  printf("blocks %zu\n", etk_inspector_block_count(insp));
  int failures = other_libraries(insp);
  etk_inspector_close(insp);
  printf("apis %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
