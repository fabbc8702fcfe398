/*
 * test_executor.c - running real upstream programs and built ones:
 * outputs, the memory plan in caller memory, input checks, load-time
 * rejection of missing operators and dtypes, control flow (jumps, moves,
 * frees), the bound on executed instructions, and BundledProgram cases.
 */
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/program.h"
#include "etkit/runtime.h"
#include "program_testutil.h"
#include "trace_testutil.h"

static etk_program_t *load_conf(const char *name) {
  const char *path = etk_test_conformance_path(name);
  if (!path) return NULL;
  etk_program_t *p = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_program_load_file(path, NULL, &p, &err) != ETK_OK)
    printf("# %s: %s\n", name, err.message);
  return p;
}

static const float *out_floats(etk_method_t *m, size_t i) {
  const etk_value_t *v = etk_method_output(m, i);
  return v && v->tag == ETK_VALUE_TENSOR ? v->u.tensor->data : NULL;
}

ETK_TEST(add_pte_runs) {
  etk_program_t *p = load_conf("add.pte");
  if (!p) ETK_SKIP("add.pte not found");
  etk_method_t *m;
  etk_error_t err;
  REQUIRE(ttu_load_forward(p, &m, &err) == ETK_OK);
  CHECK_EQ_STR(etk_method_name(m), "forward");
  CHECK_EQ_INT(etk_method_input_count(m), 2);
  CHECK_EQ_INT(etk_method_output_count(m), 1);
  float x = 1.5f, y = 2.25f;
  REQUIRE(ttu_set_float_input(m, 0, &x, 1, &err) == ETK_OK);
  REQUIRE(ttu_set_float_input(m, 1, &y, 1, &err) == ETK_OK);
  REQUIRE(etk_method_execute(m, &err) == ETK_OK);
  CHECK(out_floats(m, 0)[0] == 3.75f);
  CHECK_EQ_U64(etk_method_executed_instructions(m), 1);
  /* again, with new inputs */
  x = -4.0f;
  REQUIRE(ttu_set_float_input(m, 0, &x, 1, &err) == ETK_OK);
  REQUIRE(etk_method_execute(m, &err) == ETK_OK);
  CHECK(out_floats(m, 0)[0] == -1.75f);
  etk_method_free(m);
  etk_program_free(p);
}

ETK_TEST(inline_constants_pte_runs) {
  etk_program_t *p = load_conf("module_linear_inline_constants.pte");
  if (!p) ETK_SKIP("module_linear_inline_constants.pte not found");
  etk_method_t *m;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_method_load_alloc(p, NULL, NULL, &m, &err) == ETK_OK);
  float x[4] = {1, -2, 0.5f, 10};
  REQUIRE(ttu_set_float_input(m, 0, x, 4, &err) == ETK_OK);
  REQUIRE(etk_method_execute(m, &err) == ETK_OK);
  const float *o = out_floats(m, 0);
  for (int k = 0; k < 4; k++) CHECK(o[k] == 3 * x[k] + 2);
  etk_method_free(m);
  etk_program_free(p);
}

/* The method in caller memory: sizing, too-small arenas and buffers. */
ETK_TEST(caller_memory) {
  uint8_t *d;
  size_t len;
  REQUIRE(ptu_build_linear(0, &d, &len) == ETK_OK);
  etk_program_t *p = ptu_load(d, len);
  REQUIRE(p);
  size_t arena_size = 0;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_method_memory_size(p, "forward", &arena_size, &err) == ETK_OK);
  CHECK(arena_size > 0);
  REQUIRE(etk_method_planned_count(p, "forward") == 1);
  size_t planned_size = etk_method_planned_size(p, "forward", 0);
  CHECK_EQ_U64(planned_size, 48);
  _Alignas(16) static uint8_t arena[1 << 16];
  _Alignas(16) static uint8_t planned[256];
  void *bufs[1] = {planned};
  size_t sizes[1] = {planned_size};
  etk_method_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.arena = arena;
  cfg.arena_size = arena_size - 16;
  cfg.planned_buffers = bufs;
  cfg.planned_sizes = sizes;
  cfg.planned_count = 1;
  etk_method_t *m;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_load(p, "forward", &cfg, &m, &err), ETK_E_NO_MEMORY);
  CHECK(strstr(err.message, "too small") != NULL);
  cfg.arena_size = arena_size;
  sizes[0] = planned_size - 4;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_load(p, "forward", &cfg, &m, &err), ETK_E_NO_MEMORY);
  CHECK(strstr(err.message, "planned buffer 1") != NULL);
  sizes[0] = planned_size;
  cfg.planned_count = 0;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_load(p, "forward", &cfg, &m, &err),
               ETK_E_INVALID_ARGUMENT);
  cfg.planned_count = 1;
  bufs[0] = planned + 4;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_load(p, "forward", &cfg, &m, &err),
               ETK_E_BAD_ALIGNMENT);
  bufs[0] = planned;
  /* unaligned arena start: the 16 bytes of slack cover it */
  cfg.arena = arena + 8;
  etk_error_clear(&err);
  REQUIRE(etk_method_load(p, "forward", &cfg, &m, &err) == ETK_OK);
  CHECK((uint8_t *)m >= arena && (uint8_t *)m < arena + sizeof arena);
  float x[4] = {1, 2, 3, 4};
  REQUIRE(ttu_set_float_input(m, 0, x, 4, &err) == ETK_OK);
  REQUIRE(etk_method_execute(m, &err) == ETK_OK);
  const float *o = out_floats(m, 0);
  CHECK(o >= (const float *)planned && o < (const float *)(planned + 48));
  CHECK(o[3] == 14.0f);
  etk_method_free(m);
  etk_program_free(p);
  free(d);
}

ETK_TEST(input_checks) {
  uint8_t *d;
  size_t len;
  REQUIRE(ptu_build_add(4, &d, &len) == ETK_OK);
  etk_program_t *p = ptu_load(d, len);
  REQUIRE(p);
  etk_method_t *m;
  etk_error_t err;
  REQUIRE(ttu_load_forward(p, &m, &err) == ETK_OK);
  float x[5] = {1, 2, 3, 4, 5};
  /* execute before inputs are set */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_execute(m, &err), ETK_E_INVALID_STATE);
  CHECK(strstr(err.message, "input 0 has not been set") != NULL);
  /* wrong dtype */
  etk_tensor_t t = *etk_method_input(m, 0)->u.tensor;
  t.scalar_type = ETK_INT;
  t.data = x;
  t.nbytes = 16;
  memset(t.dim_order, 0, sizeof t.dim_order);
  etk_value_t v = {ETK_VALUE_TENSOR, {.tensor = &t}};
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_set_input(m, 0, &v, &err), ETK_E_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "input 0 is INT [4]; the method takes FLOAT [4]") !=
        NULL);
  /* wrong size of a static dimension */
  t.scalar_type = ETK_FLOAT;
  t.sizes[0] = 5;
  t.nbytes = 20;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_set_input(m, 0, &v, &err), ETK_E_INVALID_ARGUMENT);
  /* the whole shape and dtype, given and expected (issue 24) */
  CHECK(strstr(err.message,
               "input 0 is FLOAT [5]; the method takes FLOAT [4]") != NULL);
  /* too few bytes */
  t.sizes[0] = 4;
  t.nbytes = 8;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_set_input(m, 0, &v, &err), ETK_E_INVALID_ARGUMENT);
  /* out of range index, wrong kind */
  etk_value_t iv = {ETK_VALUE_INT, {.i = 3}};
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_set_input(m, 2, &iv, &err), ETK_E_INVALID_ARGUMENT);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_set_input(m, 0, &iv, &err), ETK_E_INVALID_ARGUMENT);
  /* unknown method */
  etk_method_t *m2;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_load_alloc(p, "nope", NULL, &m2, &err),
               ETK_E_NOT_FOUND);
  CHECK(strstr(err.message, "nope") != NULL);
  etk_method_free(m);
  etk_program_free(p);
  free(d);
}

/* Missing operators and unsupported dtypes are rejected at load, naming
 * the operator and the dtype. */
ETK_TEST(missing_operator_and_dtype) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = ptu_float_vector(b, 2);
  int op = etk_program_builder_add_operator(b, "aten::frobnicate", "out");
  int32_t args[3] = {x, x, x};
  etk_program_builder_kernel_call(b, op, args, 3);
  etk_program_builder_kernel_call(b, op, args, 3);
  uint8_t *d;
  size_t len;
  etk_program_t *p = ptu_finish_unary_load(b, x, x, &d, &len);
  REQUIRE(p);
  etk_method_t *m;
  etk_error_t err;
  CHECK_EQ_INT(ttu_load_forward(p, &m, &err), ETK_E_NOT_FOUND);
  CHECK_CONTAINS(err.message, "aten::frobnicate.out", "other instructions");
  etk_program_free(p);
  free(d);

  /* convolution over INT tensors: a dtype the kernel rejects */
  b = etk_program_builder_new("forward");
  int32_t s4[4] = {1, 1, 3, 3};
  int in = etk_program_builder_add_tensor(b, ETK_INT, 4, s4, NULL,
                                          ETK_BUILDER_PLANNED, NULL);
  int w = etk_program_builder_add_tensor(b, ETK_INT, 4, s4, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int nul = etk_program_builder_add_null(b);
  const int64_t one2[2] = {1, 1}, zero2[2] = {0, 0};
  int st = etk_program_builder_add_int_list(b, one2, 2);
  int pd = etk_program_builder_add_int_list(b, zero2, 2);
  int dl = etk_program_builder_add_int_list(b, one2, 2);
  int tr = etk_program_builder_add_bool(b, false);
  int op2 = etk_program_builder_add_int_list(b, zero2, 2);
  int g = etk_program_builder_add_int(b, 1);
  int32_t so[4] = {1, 1, 1, 1};
  int o = etk_program_builder_add_tensor(b, ETK_INT, 4, so, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int conv = etk_program_builder_add_operator(b, "aten::convolution", "out");
  int32_t cargs[11] = {in, w, nul, st, pd, dl, tr, op2, g, o, o};
  etk_program_builder_kernel_call(b, conv, cargs, 11);
  p = ptu_finish_unary_load(b, in, o, &d, &len);
  REQUIRE(p);
  CHECK_EQ_INT(ttu_load_forward(p, &m, &err), ETK_E_UNSUPPORTED);
  CHECK_CONTAINS(err.message, "aten::convolution.out", "INT");
  printf("# %s\n", err.message);
  etk_program_free(p);
  free(d);
}

/* A JumpFalse back to itself loops forever: the executed-instruction bound
 * stops it with a clear error. */
ETK_TEST(cyclic_jump_is_bounded) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int cond = etk_program_builder_add_bool(b, false);
  etk_program_builder_jump_false_call(b, cond, 0);
  etk_program_builder_set_outputs(b, &cond, 1);
  uint8_t *d;
  size_t len;
  etk_program_t *p = ptu_finish_load(b, &d, &len);
  REQUIRE(p);
  _Alignas(16) static uint8_t arena[1 << 14];
  etk_method_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.arena = arena;
  cfg.arena_size = sizeof arena;
  cfg.max_instructions = 1000;
  etk_method_t *m;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_method_load(p, "forward", &cfg, &m, &err) == ETK_OK);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_execute(m, &err), ETK_E_LIMIT);
  CHECK(strstr(err.message, "more than 1000 instructions") != NULL);
  CHECK_EQ_U64(etk_method_executed_instructions(m), 1000);
  etk_method_free(m);
  etk_program_free(p);
  free(d);
}

/* JumpFalse skipping an instruction, MoveCall, FreeCall semantics. */
ETK_TEST(control_flow_instructions) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = ptu_float_vector(b, 2);
  int o = ptu_float_vector(b, 2);
  int yes = etk_program_builder_add_bool(b, true);
  int no = etk_program_builder_add_bool(b, false);
  int flag = etk_program_builder_add_bool(b, false);
  int neg = etk_program_builder_add_operator(b, "aten::neg", "out");
  int abs_ = etk_program_builder_add_operator(b, "aten::abs", "out");
  int32_t a_neg[3] = {x, o, o}, a_abs[3] = {o, o, o};
  etk_program_builder_kernel_call(b, neg, a_neg, 3);  /* 0: o = -x */
  etk_program_builder_jump_false_call(b, no, 3);      /* 1: jump to 3 */
  etk_program_builder_kernel_call(b, abs_, a_abs, 3); /* 2: skipped */
  etk_program_builder_jump_false_call(b, yes, 2);     /* 3: not taken */
  etk_program_builder_move_call(b, yes, flag);        /* 4: flag = true */
  etk_program_builder_set_inputs(b, &x, 1);
  int32_t outs[2] = {o, flag};
  etk_program_builder_set_outputs(b, outs, 2);
  uint8_t *d;
  size_t len;
  etk_program_t *p = ptu_finish_load(b, &d, &len);
  REQUIRE(p);
  etk_method_t *m;
  etk_error_t err;
  REQUIRE(ttu_load_forward(p, &m, &err) == ETK_OK);
  float xv[2] = {3, -5};
  REQUIRE(ttu_set_float_input(m, 0, xv, 2, &err) == ETK_OK);
  REQUIRE(etk_method_execute(m, &err) == ETK_OK);
  const float *ov = out_floats(m, 0);
  CHECK(ov[0] == -3.0f && ov[1] == 5.0f);
  CHECK(etk_method_output(m, 1)->u.b);
  CHECK_EQ_U64(etk_method_executed_instructions(m), 4);
  etk_method_free(m);
  etk_program_free(p);
  free(d);

  /* FreeCall on a non-tensor fails at run time; on a tensor clears it,
   * and set_input restores planned memory. */
  b = etk_program_builder_new("forward");
  x = ptu_float_vector(b, 2);
  etk_program_builder_free_call(b, x);
  p = ptu_finish_unary_load(b, x, x, &d, &len);
  REQUIRE(p);
  REQUIRE(ttu_load_forward(p, &m, &err) == ETK_OK);
  REQUIRE(ttu_set_float_input(m, 0, xv, 2, &err) == ETK_OK);
  REQUIRE(etk_method_execute(m, &err) == ETK_OK);
  CHECK(etk_method_output(m, 0)->u.tensor->data == NULL);
  REQUIRE(ttu_set_float_input(m, 0, xv, 2, &err) == ETK_OK);
  CHECK(out_floats(m, 0) != NULL && out_floats(m, 0)[1] == -5.0f);
  etk_method_free(m);
  etk_program_free(p);
  free(d);
}

ETK_TEST(bundled_sample_passes_all_cases) {
  ETK_CONFORMANCE_PATH(path, "bundled_program.bpte");
  etk_error_t err;
  etk_bundled_program_t *bp = ptu_load_bundled(path, &err);
  REQUIRE(bp);
  etk_method_t *m;
  REQUIRE(etk_method_load_alloc(bp->program, "forward", NULL, &m, &err) ==
          ETK_OK);
  etk_bundled_result_t r[10];
  CHECK_EQ_INT(etk_bundled_run_all(m, bp, ETK_BUNDLED_DEFAULT_RTOL,
                                   ETK_BUNDLED_DEFAULT_ATOL, r, 10, &err),
               ETK_OK);
  for (int c = 0; c < 10; c++) {
    CHECK(r[c].has_expected);
    CHECK(r[c].passed);
    CHECK_EQ_INT(r[c].status, ETK_OK);
    CHECK(r[c].max_abs_error == 0.0);
    CHECK_EQ_U64(r[c].elements, 4);
    const int32_t *o = etk_method_output(m, 0)->u.tensor->data;
    CHECK_EQ_INT(o[0], 2);
  }
  /* too little room for the results, out of range case */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_run_all(m, bp, 0, 0, r, 9, &err),
               ETK_E_INVALID_ARGUMENT);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_load_input(m, bp, 10, &err), ETK_E_INVALID_ARGUMENT);
  etk_method_free(m);
  etk_bundled_program_free(bp);
}

/* Tolerances: upstream's |e - a| <= atol + rtol * |a| for floats, exact for
 * integers, and per-case max errors. */
ETK_TEST(bundled_tolerances) {
  uint8_t *pte;
  size_t pte_len;
  REQUIRE(ptu_build_add(2, &pte, &pte_len) == ETK_OK);
  int32_t sz[1] = {2};
  float x[2] = {1.0f, 100.0f}, y[2] = {0.0f, 0.0f};
  float close[2] = {1.0f + 1e-6f, 100.0f}, far[2] = {1.5f, 100.0f};
  etk_tensor_data_t in[2] = {
      {ETK_BUNDLED_TENSOR, ETK_FLOAT, 1, sz, NULL, x, 8, 0, false, 0},
      {ETK_BUNDLED_TENSOR, ETK_FLOAT, 1, sz, NULL, y, 8, 0, false, 0}};
  etk_tensor_data_t e_close = {
      ETK_BUNDLED_TENSOR, ETK_FLOAT, 1, sz, NULL, close, 8, 0, false, 0};
  etk_tensor_data_t e_far = {
      ETK_BUNDLED_TENSOR, ETK_FLOAT, 1, sz, NULL, far, 8, 0, false, 0};
  etk_bundled_case_spec_t cases[2] = {{"forward", in, 2, &e_close, 1},
                                      {"forward", in, 2, &e_far, 1}};
  uint8_t *bytes;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_bundled_write(pte, pte_len, cases, 2, &bytes, &len, &err) == 0);
  etk_bundled_program_t *bp;
  REQUIRE(etk_bundled_program_load(bytes, len, NULL, &bp, &err) == ETK_OK);
  etk_method_t *m;
  REQUIRE(etk_method_load_alloc(bp->program, "forward", NULL, &m, &err) == 0);
  etk_bundled_result_t r[2];
  /* defaults: 1e-6 off on 1.0 exceeds atol 1e-8 + rtol 1e-5 * 1? no: 1e-5
   * allows it; the 0.5 difference fails */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_run_all(m, bp, 1e-5, 1e-8, r, 2, &err),
               ETK_E_MISMATCH);
  CHECK(r[0].passed);
  CHECK(!r[1].passed);
  CHECK(r[1].max_abs_error == 0.5);
  CHECK(r[1].max_rel_error > 0.33 && r[1].max_rel_error < 0.34);
  CHECK(strstr(r[1].message, "element 0") != NULL);
  CHECK(strstr(err.message, "case 1") != NULL);
  /* exact comparison rejects the 1e-6 difference */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_run_all(m, bp, 0, 0, r, 2, &err), ETK_E_MISMATCH);
  CHECK(!r[0].passed);
  /* a generous atol accepts both */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_run_all(m, bp, 0, 0.6, r, 2, &err), ETK_OK);
  etk_method_free(m);
  etk_bundled_program_free(bp);
  free(bytes);
  free(pte);
}

ETK_TEST(bundled_integer_outputs_are_exact) {
  ETK_CONFORMANCE_PATH(path, "bundled_program.bpte");
  size_t len;
  uint8_t *d = etk_test_read_file(path, &len);
  /* Make case 0's expected output 3 instead of 2 in one element: find the
   * last 16-byte block of int32 2s (an expected output). */
  const uint8_t twos[16] = {2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
  long at = ptu_find(d + 1800, len - 1800, twos, sizeof twos);
  REQUIRE(at >= 0);
  d[1800 + at] = 3;
  etk_bundled_program_t *bp;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_bundled_program_load(d, len, NULL, &bp, &err) == ETK_OK);
  etk_method_t *m;
  REQUIRE(etk_method_load_alloc(bp->program, "forward", NULL, &m, &err) == 0);
  etk_bundled_result_t r[10];
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_run_all(m, bp, 1.0, 1.0, r, 10, &err),
               ETK_E_MISMATCH);
  int failed = 0;
  for (int c = 0; c < 10; c++) failed += !r[c].passed;
  CHECK_EQ_INT(failed, 1);
  etk_method_free(m);
  etk_bundled_program_free(bp);
  free(d);
}

ETK_TEST_MAIN()
