/*
 * test_no_heap.c - execution never touches the heap.  The executable is
 * linked with -Wl,--wrap for malloc, calloc, realloc, free, aligned_alloc
 * and posix_memalign, so every call from any object linked in (the
 * executor, kernels, backends, recorder) goes through the counter of
 * harness/heap_count.h.
 * Loading may allocate (etk_method_load_alloc does); set_input and
 * execute, traced at every level and with a delegate, must not.  The
 * core path the firmware runs (parse into an arena, load into caller
 * memory, a trace session in caller memory, execute, finish, destroy)
 * must not allocate at all, and a program too big for its arena fails
 * with one error before anything runs.
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

/* Caller memory for the core path (what a firmware holds in .bss). */
static uint8_t parse_mem[256 * 1024] __attribute__((aligned(64)));
static uint8_t method_mem[64 * 1024] __attribute__((aligned(64)));
static uint8_t planned_mem[4][4096] __attribute__((aligned(64)));
static uint8_t trace_mem[256 * 1024] __attribute__((aligned(64)));
static uint8_t debug_mem[64 * 1024] __attribute__((aligned(64)));

static uint64_t fake_cycles;
static uint64_t fake_clock(void *ctx) {
  (void)ctx;
  return fake_cycles += 7;
}

/* Copy of the program bytes, 16-byte aligned for borrowing. */
static uint8_t program_copy[16384] __attribute__((aligned(64)));

ETK_TEST(core_path_allocates_nothing) {
  uint8_t *d;
  etk_program_t *hp = delegated_program(&d);
  REQUIRE(hp);
  size_t len = hp->size;
  REQUIRE(len <= sizeof program_copy);
  memcpy(program_copy, d, len);
  etk_program_free(hp);
  free(d);
  for (int level = 0; level <= 2; level++) {
    unsigned long before = etk_heap_calls;
    etk_error_t err;
    etk_error_clear(&err);
    etk_program_options_t po = {0};
    po.borrow = 1;
    po.arena = parse_mem;
    po.arena_size = sizeof parse_mem;
    etk_program_t *p = NULL;
    REQUIRE(etk_program_load(program_copy, len, &po, &p, &err) == ETK_OK);
    const etk_program_plan_t *plan = etk_program_find_plan(p, NULL);
    REQUIRE(plan);
    size_t asz = 0, dsz = 0;
    REQUIRE(etk_trace_session_size(plan, 3, level, ETK_TRACE_PROFILE_ALL, &asz,
                                   &dsz, &err) == ETK_OK);
    REQUIRE(asz <= sizeof trace_mem && dsz <= sizeof debug_mem);
    etk_trace_session_t ts;
    REQUIRE(etk_trace_session_start(plan, 3, level, ETK_TRACE_PROFILE_ALL,
                                    trace_mem, asz, debug_mem, dsz, fake_clock,
                                    NULL, &ts, &err) == ETK_OK);
    size_t msz = 0;
    REQUIRE(etk_method_memory_size(p, NULL, &msz, &err) == ETK_OK);
    REQUIRE(msz <= sizeof method_mem);
    size_t np = etk_method_planned_count(p, NULL);
    REQUIRE(np <= 4);
    void *planned[4];
    size_t sizes[4];
    for (size_t k = 0; k < np; k++) {
      sizes[k] = etk_method_planned_size(p, NULL, k);
      REQUIRE(sizes[k] <= sizeof planned_mem[k]);
      planned[k] = planned_mem[k];
    }
    etk_method_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.arena = method_mem;
    cfg.arena_size = msz;
    cfg.planned_buffers = planned;
    cfg.planned_sizes = sizes;
    cfg.planned_count = np;
    cfg.recorder = ts.rec;
    etk_method_t *m = NULL;
    REQUIRE(etk_method_load(p, NULL, &cfg, &m, &err) == ETK_OK);
    float x[16];
    for (int k = 0; k < 16; k++) x[k] = (float)k;
    for (int r = 0; r < 3; r++) {
      CHECK_EQ_INT(ttu_set_float_input(m, 0, x, 16, &err), ETK_OK);
      CHECK_EQ_INT(etk_method_execute(m, &err), ETK_OK);
    }
    const float *o = etk_method_output(m, 0)->u.tensor->data;
    CHECK(o[0] == 8 && o[15] == 0);
    const uint8_t *dump, *dbg;
    size_t dump_len = 0, dbg_len = 0;
    uint32_t dropped = 1;
    CHECK_EQ_INT(etk_trace_session_finish(&ts, &dump, &dump_len, &dbg, &dbg_len,
                                          &dropped, &err),
                 ETK_OK);
    CHECK(dump_len > 64);
    CHECK_EQ_U64(dropped, 0);
    CHECK(level == 0 ? dbg_len == 0 : dbg_len > 0);
    etk_method_destroy(m);
    etk_program_free(p); /* releases nothing: the arena is ours */
    CHECK_EQ_U64(etk_heap_calls, before);
  }
}

ETK_TEST(program_too_big_for_its_arena_is_one_error) {
  uint8_t *d;
  etk_program_t *hp = delegated_program(&d);
  REQUIRE(hp);
  size_t len = hp->size;
  memcpy(program_copy, d, len);
  etk_program_free(hp);
  free(d);
  /* every arena size short of what the parse needs fails cleanly, the
   * first that is enough works */
  size_t need = 0;
  for (size_t size = 0; size <= sizeof parse_mem && !need; size += 16) {
    unsigned long before = etk_heap_calls;
    etk_error_t err;
    etk_error_clear(&err);
    etk_program_options_t po = {0};
    po.borrow = 1;
    po.arena = parse_mem;
    po.arena_size = size;
    etk_program_t *p = (etk_program_t *)1;
    int rc = etk_program_load(program_copy, len, &po, &p, &err);
    CHECK_EQ_U64(etk_heap_calls, before);
    if (rc == ETK_OK) {
      need = size;
      CHECK(etk_program_find_plan(p, NULL) != NULL);
      etk_program_free(p);
      break;
    }
    CHECK_EQ_INT(rc, ETK_E_NO_MEMORY);
    CHECK(p == NULL);
    CHECK(strstr(err.message, "arena") != NULL);
  }
  CHECK(need > 256); /* the parse did need memory */
  /* without borrowing, the copy of the bytes comes from the arena too */
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_options_t po = {0};
  po.arena = parse_mem;
  po.arena_size = sizeof parse_mem;
  etk_program_t *p = NULL;
  unsigned long before = etk_heap_calls;
  REQUIRE(etk_program_load(program_copy, len, &po, &p, &err) == ETK_OK);
  CHECK(p->data != program_copy);
  CHECK(memcmp(p->data, program_copy, len) == 0);
  etk_program_free(p);
  CHECK_EQ_U64(etk_heap_calls, before);
}

ETK_TEST(trace_session_too_small_is_one_error) {
  uint8_t *d;
  etk_program_t *p = delegated_program(&d);
  REQUIRE(p);
  const etk_program_plan_t *plan = etk_program_find_plan(p, NULL);
  size_t asz = 0, dsz = 0;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_trace_session_size(plan, 2, 2, 1, &asz, &dsz, &err) == ETK_OK);
  etk_trace_session_t ts;
  CHECK_EQ_INT(etk_trace_session_start(plan, 2, 2, 1, trace_mem, asz - 64, NULL,
                                       0, fake_clock, NULL, &ts, &err),
               ETK_E_NO_MEMORY);
  CHECK(strstr(err.message, "recorder needs") != NULL);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_trace_session_start(plan, 2, 2, 1, trace_mem, asz, debug_mem,
                                       dsz - 1, fake_clock, NULL, &ts, &err),
               ETK_E_NO_MEMORY);
  CHECK(strstr(err.message, "debug buffer needs") != NULL);
  etk_program_free(p);
  free(d);
}

/* A bundled program parses into one arena (its embedded program takes the
 * rest), loads its case and verifies, without a heap call. */
static uint8_t bundle_copy[32768] __attribute__((aligned(64)));

ETK_TEST(bundled_program_in_an_arena) {
  uint8_t *d;
  etk_program_t *hp = delegated_program(&d);
  REQUIRE(hp);
  size_t len = hp->size;
  etk_program_free(hp);
  float x[16], y[16];
  int32_t sz[2] = {4, 4};
  for (int k = 0; k < 16; k++) {
    x[k] = (float)k;
    float t = -((float)k + (float)k - 8); /* neg(x + w) */
    y[k] = t > 0 ? t : 0;
  }
  etk_tensor_data_t in = {ETK_BUNDLED_TENSOR, ETK_FLOAT, 2,     sz, NULL, x,
                          sizeof x,           0,         false, 0};
  etk_tensor_data_t out = in;
  out.data = y;
  etk_bundled_case_spec_t cs = {"forward", &in, 1, &out, 1};
  uint8_t *b = NULL;
  size_t blen = 0;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_bundled_write(d, len, &cs, 1, &b, &blen, &err) == ETK_OK);
  free(d);
  REQUIRE(blen <= sizeof bundle_copy);
  memcpy(bundle_copy, b, blen);
  free(b);

  unsigned long before = etk_heap_calls;
  etk_program_options_t po = {0};
  po.borrow = 1;
  po.arena = parse_mem;
  po.arena_size = sizeof parse_mem;
  etk_bundled_program_t *bp = NULL;
  REQUIRE(etk_bundled_program_load(bundle_copy, blen, &po, &bp, &err) ==
          ETK_OK);
  CHECK_EQ_INT(etk_bundled_check(bp, &err), ETK_OK);
  size_t msz = 0;
  REQUIRE(etk_method_memory_size(bp->program, NULL, &msz, &err) == ETK_OK);
  size_t np = etk_method_planned_count(bp->program, NULL);
  REQUIRE(msz <= sizeof method_mem && np <= 4);
  void *planned[4];
  size_t sizes[4];
  for (size_t k = 0; k < np; k++) {
    sizes[k] = etk_method_planned_size(bp->program, NULL, k);
    planned[k] = planned_mem[k];
  }
  etk_method_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.arena = method_mem;
  cfg.arena_size = msz;
  cfg.planned_buffers = planned;
  cfg.planned_sizes = sizes;
  cfg.planned_count = np;
  etk_method_t *m = NULL;
  REQUIRE(etk_method_load(bp->program, NULL, &cfg, &m, &err) == ETK_OK);
  CHECK_EQ_INT(etk_bundled_load_input(m, bp, 0, &err), ETK_OK);
  CHECK_EQ_INT(etk_method_execute(m, &err), ETK_OK);
  etk_bundled_result_t res;
  CHECK_EQ_INT(etk_bundled_verify_outputs(m, bp, 0, 1e-5, 1e-8, &res, &err),
               ETK_OK);
  CHECK(res.passed);
  etk_method_destroy(m);
  etk_bundled_program_free(bp);
  CHECK_EQ_U64(etk_heap_calls, before);

  /* too small: one error naming the arena, no heap call either */
  etk_error_clear(&err);
  po.arena_size = 1024;
  bp = NULL;
  CHECK_EQ_INT(etk_bundled_program_load(bundle_copy, blen, &po, &bp, &err),
               ETK_E_NO_MEMORY);
  CHECK(bp == NULL);
  CHECK(strstr(err.message, "arena") != NULL);
  CHECK_EQ_U64(etk_heap_calls, before);
}

ETK_TEST_MAIN()
