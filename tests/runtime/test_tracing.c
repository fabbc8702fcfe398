/*
 * test_tracing.c - the executor's ETDump has upstream's structure: a
 * "Default" block (allocators, allocation events, Method::init inside
 * Program::load_method), one "Execute" block per run with
 * native_call_<op> inside OPERATOR_CALL per instruction (chain 0,
 * instruction id) and Method::execute (chain -1); intermediate and program
 * outputs by debug level; "method only" profiling; the bundled input
 * index; delegate events and delegate outputs from EtkitMicroBackend.  The
 * dumps verify with etkit's verifier and decode with flatc.
 */
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/program.h"
#include "etkit/recorder.h"
#include "etkit/runtime.h"
#include "program_testutil.h"
#include "trace_testutil.h"

static etk_program_t *build_load(int (*build)(uint8_t **, size_t *),
                                 uint8_t **keep) {
  size_t len;
  if (build(keep, &len) != ETK_OK) return NULL;
  etk_program_t *p = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_program_load(*keep, len, NULL, &p, &err) != ETK_OK)
    printf("# %s\n", err.message);
  return p;
}

static int build_linear(uint8_t **d, size_t *n) {
  return ptu_build_linear(0, d, n);
}

static void run_linear(etk_method_t *m, int runs) {
  etk_error_t err;
  float x[4] = {1, 2, 3, 4};
  for (int r = 0; r < runs; r++) {
    if (ttu_set_float_input(m, 0, x, 4, &err) || etk_method_execute(m, &err))
      printf("# run failed: %s\n", err.message);
  }
}

/* Loads "forward" of p recording into rec (without allocation events when
 * told); NULL (after a "# load: ..." line) on failure. */
static etk_method_t *load_traced(etk_program_t *p, etk_recorder_t *rec,
                                 int no_allocation_events) {
  etk_method_config_t options;
  memset(&options, 0, sizeof options);
  options.recorder = rec;
  options.no_allocation_events = no_allocation_events;
  etk_method_t *m = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_method_load_alloc_with(p, "forward", &options, &m, &err) != ETK_OK) {
    printf("# load: %s\n", err.message);
    return NULL;
  }
  return m;
}

/* A program built by a fixture builder, a recorder and the program's
 * "forward" method recording into it. */
typedef struct traced {
  uint8_t *bytes;
  etk_program_t *program;
  etk_recorder_t *recorder;
  etk_method_t *method;
} traced_t;

/* Builds and loads the program, makes the recorder (see ttu_recorder_new)
 * and loads "forward" into it; ETK_OK, or -1 (after a "# ..." line). */
static int traced_open(traced_t *t, int (*build)(uint8_t **, size_t *),
                       int debug_level, int profile_all, size_t debug_capacity,
                       int no_allocation_events) {
  memset(t, 0, sizeof *t);
  t->program = build_load(build, &t->bytes);
  if (!t->program) return -1;
  t->recorder = ttu_recorder_new(debug_level, profile_all, debug_capacity);
  if (!t->recorder) return -1;
  t->method = load_traced(t->program, t->recorder, no_allocation_events);
  return t->method ? ETK_OK : -1;
}

/* Frees what traced_open made, the method first. */
static void traced_close(traced_t *t) {
  etk_method_free(t->method);
  ttu_recorder_free(t->recorder);
  etk_program_free(t->program);
  free(t->bytes);
}

static const ttu_event_t *find_event(const ttu_block_t *b, char kind,
                                     const char *name, int nth) {
  for (uint32_t e = 0; e < b->event_count; e++)
    if (b->events[e].kind == kind &&
        (!name || strcmp(b->events[e].name, name) == 0) && nth-- == 0)
      return &b->events[e];
  return NULL;
}

ETK_TEST(upstream_event_structure) {
  traced_t t;
  REQUIRE(traced_open(&t, build_linear, 0, 1, 0, 0) == ETK_OK);
  run_linear(t.method, 2);
  const uint8_t *etdp;
  size_t len;
  REQUIRE(etk_recorder_finish(t.recorder, &etdp, &len) == ETK_OK);
  CHECK_EQ_INT(etk_recorder_dropped(t.recorder), 0);
  ttu_dump_t dump;
  REQUIRE(ttu_dump_parse(etdp, len, &dump) == ETK_OK);
  REQUIRE(dump.block_count == 3);
  const ttu_block_t *def = &dump.blocks[0];
  CHECK_EQ_STR(def->name, "Default");
  CHECK_EQ_INT(def->bundled_input_index, -1);
  REQUIRE(def->allocator_count == 2);
  CHECK_EQ_STR(def->allocators[0], "method_allocator");
  CHECK_EQ_STR(def->allocators[1], "planned_memory_1");
  /* allocation events first (one planned buffer of 48 bytes, then method
   * allocations), then Method::init ending before Program::load_method */
  REQUIRE(def->event_count >= 4);
  CHECK_EQ_INT(def->events[0].kind, 'A');
  CHECK_EQ_INT(def->events[0].allocator, 2);
  CHECK_EQ_U64(def->events[0].size, 48);
  uint64_t method_bytes = 0;
  for (uint32_t e = 0; e < def->event_count; e++)
    if (def->events[e].kind == 'A' && def->events[e].allocator == 1)
      method_bytes += def->events[e].size;
  size_t arena;
  etk_method_memory_size(t.program, "forward", &arena, NULL);
  CHECK(method_bytes > 0 && method_bytes <= arena);
  const ttu_event_t *init = &def->events[def->event_count - 2];
  const ttu_event_t *load = &def->events[def->event_count - 1];
  CHECK_EQ_STR(init->name, "Method::init");
  CHECK_EQ_STR(load->name, "Program::load_method");
  CHECK_EQ_INT(init->chain, -1);
  CHECK_EQ_INT(init->instruction, 0);
  CHECK(load->start <= init->start && init->end <= load->end);
  for (int r = 1; r <= 2; r++) {
    const ttu_block_t *b = &dump.blocks[r];
    CHECK_EQ_STR(b->name, "Execute");
    REQUIRE(b->event_count == 5);
    CHECK_EQ_STR(b->events[0].name, "native_call_mul.out");
    CHECK_EQ_STR(b->events[1].name, "OPERATOR_CALL");
    CHECK_EQ_STR(b->events[2].name, "native_call_add.out");
    CHECK_EQ_STR(b->events[3].name, "OPERATOR_CALL");
    CHECK_EQ_STR(b->events[4].name, "Method::execute");
    for (int e = 0; e < 4; e++) {
      CHECK_EQ_INT(b->events[e].chain, 0);
      CHECK_EQ_INT(b->events[e].instruction, e / 2);
    }
    CHECK_EQ_INT(b->events[4].chain, -1);
    CHECK_EQ_INT(b->events[4].instruction, 0);
    /* nesting: native call inside OPERATOR_CALL inside Method::execute */
    CHECK(b->events[1].start <= b->events[0].start);
    CHECK(b->events[0].end <= b->events[1].end);
    CHECK(b->events[4].start <= b->events[1].start);
    CHECK(b->events[3].end <= b->events[4].end);
  }
  ttu_dump_free(&dump);
  if (ptu_flatc()) {
    char *json = ptu_flatc_json(etdp, len, "etdump_schema_flatcc.fbs", 1);
    REQUIRE(json);
    CHECK_EQ_INT(ptu_count(json, "\"name\": \"OPERATOR_CALL\""), 4);
    CHECK_EQ_INT(ptu_count(json, "\"name\": \"native_call_add.out\""), 2);
    CHECK_EQ_INT(ptu_count(json, "\"name\": \"Execute\""), 2);
    CHECK_EQ_INT(ptu_count(json, "\"name\": \"Method::init\""), 1);
    CHECK_EQ_INT(ptu_count(json, "\"name\": \"planned_memory_1\""), 1);
    free(json);
  }
  traced_close(&t);
}

ETK_TEST(debug_levels) {
  uint8_t *d;
  etk_program_t *p = build_load(build_linear, &d);
  REQUIRE(p);
  for (int level = 0; level <= 2; level++) {
    etk_recorder_t *rec = ttu_recorder_new(level, 1, 1 << 16);
    etk_method_t *m = load_traced(p, rec, 0);
    REQUIRE(m);
    run_linear(m, 1);
    ttu_dump_t dump;
    REQUIRE(ttu_recorder_finish_parse(rec, &dump) == ETK_OK);
    const ttu_block_t *b = &dump.blocks[1];
    int debug = 0, outputs = 0;
    for (uint32_t e = 0; e < b->event_count; e++)
      if (b->events[e].kind == 'D') {
        debug++;
        outputs += b->events[e].output;
      }
    CHECK_EQ_INT(debug, level == 0 ? 0 : level == 1 ? 1 : 3);
    CHECK_EQ_INT(outputs, level == 0 ? 0 : 1);
    if (level == 2) {
      /* mul's output logged inside its native call, before it ends */
      CHECK_EQ_INT(b->events[0].kind, 'D');
      CHECK_EQ_INT(b->events[0].instruction, 0);
      CHECK_EQ_INT(b->events[0].value_kind, 5);
      CHECK_EQ_INT(b->events[0].value_dims, 2);
      CHECK_EQ_STR(b->events[1].name, "native_call_mul.out");
      const ttu_event_t *last = &b->events[b->event_count - 1];
      CHECK_EQ_INT(last->kind, 'D');
      CHECK(last->output);
      CHECK_EQ_INT(last->debug_chain, -1);
    }
    ttu_dump_free(&dump);
    etk_method_free(m);
    ttu_recorder_free(rec);
  }
  etk_program_free(p);
  free(d);
}

ETK_TEST(method_only_profiling) {
  traced_t t;
  REQUIRE(traced_open(&t, build_linear, 0, 0, 0, 0) == ETK_OK);
  run_linear(t.method, 3);
  ttu_dump_t dump;
  REQUIRE(ttu_recorder_finish_parse(t.recorder, &dump) == ETK_OK);
  REQUIRE(dump.block_count == 4);
  for (int r = 1; r < 4; r++) {
    REQUIRE(dump.blocks[r].event_count == 1);
    CHECK_EQ_STR(dump.blocks[r].events[0].name, "Method::execute");
  }
  CHECK(find_event(&dump.blocks[0], 'P', "Method::init", 0) != NULL);
  ttu_dump_free(&dump);
  traced_close(&t);
}

ETK_TEST(bundled_input_index_and_failed_execute) {
  ETK_CONFORMANCE_PATH(path, "bundled_program.bpte");
  etk_error_t err;
  etk_bundled_program_t *bp = ptu_load_bundled(path, &err);
  REQUIRE(bp);
  etk_recorder_t *rec = ttu_recorder_new(0, 1, 0);
  etk_method_t *m;
  REQUIRE(etk_method_load_alloc(bp->program, "forward", rec, &m, &err) == 0);
  /* Like upstream, an execute() rejected for missing inputs still adds an
   * Execute block (its Method::execute never ends). */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_execute(m, &err), ETK_E_INVALID_STATE);
  etk_bundled_result_t r[10];
  REQUIRE(etk_bundled_run_all(m, bp, 1e-5, 1e-8, r, 10, &err) == ETK_OK);
  ttu_dump_t dump;
  REQUIRE(ttu_recorder_finish_parse(rec, &dump) == ETK_OK);
  REQUIRE(dump.block_count == 12);
  CHECK_EQ_INT(dump.blocks[0].bundled_input_index, -1);
  CHECK_EQ_INT(dump.blocks[1].bundled_input_index, -1);
  CHECK_EQ_INT(dump.blocks[1].event_count, 0);
  for (int c = 0; c < 10; c++) {
    CHECK_EQ_STR(dump.blocks[2 + c].name, "Execute");
    CHECK_EQ_INT(dump.blocks[2 + c].bundled_input_index, c);
    CHECK_EQ_INT(dump.blocks[2 + c].event_count, 7);
  }
  ttu_dump_free(&dump);
  etk_method_free(m);
  ttu_recorder_free(rec);
  etk_bundled_program_free(bp);
}

/* conv -> relu delegated to EtkitMicroBackend: delegate events with int
 * and string ids and metadata inside DELEGATE_CALL, delegate outputs. */
static int build_delegated(uint8_t **out, size_t *len) {
  uint8_t payload[512];
  int32_t sz[2] = {2, 3};
  const ptu_micro_step_t steps[2] = {{"aten::neg.out", NULL, 7, "meta"},
                                     {"aten::relu.out", "relu #1", -1, NULL}};
  size_t plen = ptu_micro_chain(payload, sizeof payload, sz, steps);
  if (plen == 0) return ETK_E_INTERNAL;
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = ptu_float_tensor(b, 2, sz);
  int y = ptu_float_tensor(b, 2, sz);
  int dg = etk_program_builder_add_delegate(b, ETK_MICRO_BACKEND_ID, payload,
                                            plen, NULL, NULL, NULL, 0);
  int32_t args[2] = {x, y};
  etk_program_builder_delegate_call(b, dg, args, 2);
  return ptu_finish_unary(b, x, y, out, len);
}

ETK_TEST(delegate_events) {
  traced_t t;
  REQUIRE(traced_open(&t, build_delegated, 2, 1, 1 << 16, 0) == ETK_OK);
  etk_error_t err;
  float x[6] = {1, -2, 3, -4, 5, -6};
  REQUIRE(ttu_set_float_input(t.method, 0, x, 6, &err) == ETK_OK);
  REQUIRE(etk_method_execute(t.method, &err) == ETK_OK);
  const float *o = etk_method_output(t.method, 0)->u.tensor->data;
  CHECK(o[0] == 0 && o[1] == 2 && o[2] == 0 && o[3] == 4 && o[5] == 6);
  const uint8_t *etdp;
  size_t len;
  REQUIRE(etk_recorder_finish(t.recorder, &etdp, &len) == ETK_OK);
  ttu_dump_t dump;
  REQUIRE(ttu_dump_parse(etdp, len, &dump) == ETK_OK);
  const ttu_block_t *b = &dump.blocks[1];
  /* P(#7) D(#7) P(relu #1) D(relu #1) D(arg0) D(arg1) P(DELEGATE_CALL)
   * P(Method::execute) D(output) */
  REQUIRE(b->event_count == 9);
  CHECK_EQ_INT(b->events[0].kind, 'P');
  CHECK_EQ_INT(b->events[0].delegate_int, 7);
  CHECK_EQ_INT(b->events[0].metadata_len, 4);
  CHECK_EQ_STR(b->events[0].metadata, "meta");
  CHECK_EQ_INT(b->events[0].chain, 0);
  CHECK_EQ_INT(b->events[0].instruction, 0);
  CHECK_EQ_INT(b->events[1].kind, 'D');
  CHECK_EQ_INT(b->events[1].delegate_int, 7);
  CHECK_EQ_STR(b->events[2].delegate_str, "relu #1");
  CHECK_EQ_INT(b->events[2].metadata_len, 0);
  CHECK_EQ_STR(b->events[3].delegate_str, "relu #1");
  CHECK_EQ_INT(b->events[4].kind, 'D');
  CHECK_EQ_INT(b->events[5].kind, 'D');
  CHECK_EQ_STR(b->events[6].name, "DELEGATE_CALL");
  CHECK(b->events[6].start <= b->events[0].start);
  CHECK_EQ_STR(b->events[7].name, "Method::execute");
  CHECK(b->events[8].output);
  ttu_dump_free(&dump);
  if (ptu_flatc()) {
    char *json = ptu_flatc_json(etdp, len, "etdump_schema_flatcc.fbs", 1);
    REQUIRE(json);
    CHECK_EQ_INT(ptu_count(json, "\"delegate_debug_id_str\": \"relu #1\""), 2);
    CHECK_EQ_INT(ptu_count(json, "\"delegate_debug_id_int\": 7"), 2);
    free(json);
  }
  traced_close(&t);
}

/* no_allocation_events: the dump keeps upstream's runtime shape (no
 * allocators, no allocation events) so upstream's Inspector can read it. */
ETK_TEST(no_allocation_events_option) {
  traced_t t;
  REQUIRE(traced_open(&t, build_linear, 0, 1, 0, 1) == ETK_OK);
  run_linear(t.method, 1);
  ttu_dump_t dump;
  REQUIRE(ttu_recorder_finish_parse(t.recorder, &dump) == ETK_OK);
  REQUIRE(dump.block_count == 2);
  const ttu_block_t *def = &dump.blocks[0];
  CHECK_EQ_STR(def->name, "Default");
  CHECK_EQ_INT(def->allocator_count, 0);
  REQUIRE(def->event_count == 2);
  CHECK_EQ_STR(def->events[0].name, "Method::init");
  CHECK_EQ_STR(def->events[1].name, "Program::load_method");
  for (uint32_t b = 0; b < dump.block_count; b++)
    for (uint32_t e = 0; e < dump.blocks[b].event_count; e++)
      CHECK(dump.blocks[b].events[e].kind != 'A');
  ttu_dump_free(&dump);
  traced_close(&t);
}

/* Each read one tick later than the one before: a gap counts clock reads. */
static uint64_t counting_clock(void *ctx) {
  return ++*(uint64_t *)ctx;
}

/* etk_method_calibrate marks the figures adjacent_wrappers, and the claim
 * holds: every OPERATOR_CALL holds exactly its kernel's event, begun one
 * clock read after it and ended one before it, so each gap pair counts one
 * begin/end pair's two reads, the calibrated pair of a counting clock. */
ETK_TEST(kernel_calls_have_adjacent_wrappers) {
  static uint64_t arena[(4u << 20) / 8u];
  static uint64_t scratch[(64u << 10) / 8u];
  uint64_t ticks = 0;
  uint8_t *bytes = NULL;
  etk_program_t *p = build_load(build_linear, &bytes);
  REQUIRE(p != NULL);
  etk_recorder_config_t cfg;
  etk_recorder_config_init(&cfg);
  cfg.clock = counting_clock;
  cfg.clock_ctx = &ticks;
  etk_recorder_t *rec = NULL;
  REQUIRE(etk_recorder_init(&rec, arena, sizeof arena, &cfg) == ETK_OK);
  REQUIRE(etk_recorder_calibration_scratch_size(0) <= sizeof scratch);
  etk_recorder_calibration_t cal;
  REQUIRE(etk_method_calibrate(rec, scratch, sizeof scratch, 0, &cal) ==
          ETK_OK);
  CHECK_EQ_INT(cal.adjacent_wrappers, 1);
  CHECK_EQ_U64(cal.pair_mt, 2000);
  etk_method_t *m = load_traced(p, rec, 1);
  REQUIRE(m != NULL);
  run_linear(m, 2);
  ttu_dump_t d;
  REQUIRE(ttu_recorder_finish_parse(rec, &d) == ETK_OK);
  int calls = 0;
  for (uint32_t b = 0; b < d.block_count; b++) {
    const ttu_block_t *blk = &d.blocks[b];
    for (uint32_t e = 0; e < blk->event_count; e++) {
      const ttu_event_t *w = &blk->events[e];
      if (w->kind != 'P' || strcmp(w->name, "OPERATOR_CALL") != 0) continue;
      const ttu_event_t *kernel = NULL;
      int inside = 0;
      for (uint32_t k = 0; k < blk->event_count; k++) {
        const ttu_event_t *x = &blk->events[k];
        if (k == e || x->kind != 'P' || x->start < w->start || x->end > w->end)
          continue;
        inside++;
        kernel = x;
      }
      CHECK_EQ_INT(inside, 1);
      if (inside == 1) {
        CHECK(strncmp(kernel->name, "native_call_", 12) == 0);
        CHECK_EQ_U64(kernel->start - w->start, 1);
        CHECK_EQ_U64(w->end - kernel->end, 1);
      }
      calls++;
    }
  }
  CHECK(calls >= 2); /* two runs of the linear program's kernel calls */
  ttu_dump_free(&d);
  etk_method_free(m);
  etk_program_free(p);
  free(bytes);
}

ETK_TEST_MAIN()
