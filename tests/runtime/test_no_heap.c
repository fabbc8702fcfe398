/*
 * test_no_heap.c - execution never touches the heap.  The executable is
 * linked with -Wl,--wrap for malloc, calloc, realloc, free, aligned_alloc
 * and posix_memalign, so every call from any object linked in (the
 * executor, kernels, backends, recorder) goes through the counter of
 * harness/heap_count.h.
 * Loading may allocate (etk_method_load_alloc does); set_input and
 * execute, traced at every level and with a delegate, must not.
 */
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "heap_count.h"
#include "etkit/program.h"
#include "etkit/runtime.h"
#include "program_testutil.h"
#include "trace_testutil.h"

static etk_program_t *delegated_program(uint8_t **keep) {
  uint8_t payload[512];
  int32_t sz[2] = {4, 4};
  const ptu_micro_step_t steps[2] = {{"aten::neg.out", NULL, 1, "m"},
                                     {"aten::relu.out", "relu", -1, NULL}};
  size_t plen = ptu_micro_chain(payload, sizeof payload, sz, steps);
  etk_program_builder_t *b = ptu_builder_with_options(0, 0);
  float w[16];
  for (int k = 0; k < 16; k++) w[k] = (float)k - 8;
  int x = ptu_float_tensor(b, 2, sz);
  int c = etk_program_builder_add_tensor(b, ETK_FLOAT, 2, sz, NULL,
                                         ETK_BUILDER_CONSTANT, w);
  int t = ptu_float_tensor(b, 2, sz);
  int y = ptu_float_tensor(b, 2, sz);
  ptu_add_call(b, x, c, t);
  ptu_micro_delegate(b, payload, plen, x, t, y);
  size_t len;
  if (etk_program_builder_finish(b, keep, &len, NULL) != ETK_OK) return NULL;
  etk_program_builder_free(b);
  etk_program_t *p = NULL;
  etk_program_load(*keep, len, NULL, &p, NULL);
  return p;
}

ETK_TEST(execute_does_not_allocate) {
  uint8_t *d;
  etk_program_t *p = delegated_program(&d);
  REQUIRE(p);
  for (int level = 0; level <= 2; level++) {
    etk_recorder_t *rec = ttu_recorder_new(level, 1, 1 << 20);
    REQUIRE(rec);
    etk_method_t *m;
    etk_error_t err;
    etk_error_clear(&err);
    REQUIRE(etk_method_load_alloc(p, "forward", rec, &m, &err) == ETK_OK);
    float x[16];
    for (int k = 0; k < 16; k++) x[k] = (float)k;
    unsigned long before = etk_heap_calls;
    for (int r = 0; r < 50; r++) {
      CHECK_EQ_INT(ttu_set_float_input(m, 0, x, 16, &err), ETK_OK);
      CHECK_EQ_INT(etk_method_execute(m, &err), ETK_OK);
    }
    CHECK_EQ_U64(etk_heap_calls, before);
    const float *o = etk_method_output(m, 0)->u.tensor->data;
    CHECK(o[0] == 8 && o[15] == 0);
    etk_method_free(m);
    ttu_recorder_free(rec);
  }
  CHECK(etk_heap_calls > 0); /* the wrapping is in effect */
  etk_program_free(p);
  free(d);
}

ETK_TEST_MAIN()
