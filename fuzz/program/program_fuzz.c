/*
 * program_fuzz.c - libFuzzer target of the program loader: any bytes are
 * read as a .npy, a .pte or a .bpte (by their magic) with the full checks;
 * small programs that load are then loaded as methods and executed once on
 * zero inputs, under a bounded instruction count, so that the executor's
 * trust in the reader is fuzzed too.  The invariant under test: no crash,
 * no sanitizer report, no unbounded work, whatever the input.
 *
 * Replayed by ctest as program_fuzz_replay (tests/program/CMakeLists.txt)
 * over fuzz/program/corpus, which program_corpus_gen writes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/common.h"
#include "etkit/program.h"
#include "etkit/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_MEMORY ((size_t)4 << 20)

static void run_method(const etk_program_t *p, const etk_program_plan_t *plan) {
  size_t arena_size;
  if (etk_method_memory_size(p, plan->name, &arena_size, NULL) != ETK_OK ||
      arena_size > MAX_MEMORY)
    return;
  size_t np = etk_method_planned_count(p, plan->name), total = 0;
  if (np > 8) return;
  size_t sizes[8];
  void *bufs[8] = {0};
  for (size_t k = 0; k < np; k++) {
    sizes[k] = etk_method_planned_size(p, plan->name, k);
    total += sizes[k];
    if (total > MAX_MEMORY) return;
  }
  void *arena = aligned_alloc(16, (arena_size + 15) & ~(size_t)15);
  int ok = arena != NULL;
  for (size_t k = 0; ok && k < np; k++) {
    bufs[k] = calloc(1, sizes[k] + 16);
    ok = bufs[k] != NULL;
  }
  etk_method_t *m = NULL;
  if (ok) {
    etk_method_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.arena = arena;
    cfg.arena_size = (arena_size + 15) & ~(size_t)15;
    cfg.planned_buffers = bufs;
    cfg.planned_sizes = sizes;
    cfg.planned_count = np;
    cfg.max_instructions = 10000;
    if (etk_method_load(p, plan->name, &cfg, &m, NULL) != ETK_OK) m = NULL;
  }
  void *zeros = NULL;
  if (m) {
    size_t max_in = 0;
    for (size_t i = 0; i < etk_method_input_count(m); i++) {
      const etk_value_t *v = etk_method_input(m, i);
      if (v->tag == ETK_VALUE_TENSOR && v->u.tensor->nbytes > max_in)
        max_in = v->u.tensor->nbytes;
    }
    zeros = max_in <= MAX_MEMORY ? calloc(1, max_in + 16) : NULL;
    int inputs_ok = zeros != NULL;
    for (size_t i = 0; inputs_ok && i < etk_method_input_count(m); i++) {
      const etk_value_t *v = etk_method_input(m, i);
      etk_value_t in = *v;
      etk_tensor_t t;
      if (v->tag == ETK_VALUE_TENSOR) {
        t = *v->u.tensor;
        memset(t.dim_order, 0, sizeof t.dim_order);
        t.data = zeros;
        t.nbytes = t.nbytes;
        in.u.tensor = &t;
      }
      inputs_ok = etk_method_set_input(m, i, &in, NULL) == ETK_OK;
    }
    if (inputs_ok) (void)etk_method_execute(m, NULL);
    etk_method_free(m);
  }
  free(zeros);
  for (size_t k = 0; k < np; k++) free(bufs[k]);
  free(arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 6 && memcmp(data, "\x93NUMPY", 6) == 0) {
    etk_npy_t *npy = NULL;
    if (etk_npy_parse(data, size, &npy, NULL) == ETK_OK) etk_npy_free(npy);
    return 0;
  }
  etk_program_options_t opt;
  memset(&opt, 0, sizeof opt);
  opt.max_values = 4096;
  opt.max_instructions = 4096;
  if (etk_file_kind_detect(data, size) == ETK_FILE_BPTE) {
    etk_bundled_program_t *bp;
    if (etk_bundled_program_load(data, size, &opt, &bp, NULL) == ETK_OK) {
      (void)etk_bundled_check(bp, NULL);
      etk_bundled_program_free(bp);
    }
    return 0;
  }
  etk_program_t *p;
  if (etk_program_load(data, size, &opt, &p, NULL) != ETK_OK) return 0;
  for (uint32_t i = 0; i < p->plan_count && i < 4; i++)
    run_method(p, &p->plans[i]);
  etk_program_free(p);
  return 0;
}
