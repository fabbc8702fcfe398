/*
 * test_program_builder.c - build -> write -> flatc decodes with
 * schema/program.fbs -> our reader loads it back, for every value kind,
 * instruction kind, constant storage and delegate storage.
 */
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/program.h"
#include "program_testutil.h"

ETK_TEST(add_round_trip) {
  uint8_t *d;
  size_t len;
  REQUIRE(ptu_build_add(3, &d, &len) == ETK_OK);
  CHECK_EQ_INT(etk_file_kind_detect(d, len), ETK_FILE_PTE);
  etk_program_t *p = ptu_load(d, len);
  REQUIRE(p);
  CHECK(!p->header.has_extended_header);
  const etk_program_plan_t *pl = &p->plans[0];
  CHECK_EQ_STR(pl->name, "forward");
  CHECK_EQ_INT(pl->value_count, 4);
  CHECK_EQ_INT(pl->values[0].u.tensor->sizes[0], 3);
  CHECK_EQ_U64(pl->values[1].u.tensor->memory_offset, 16);
  CHECK_EQ_INT(pl->buffer_size_count, 2);
  CHECK_EQ_INT(pl->buffer_sizes[1], 48);
  CHECK_EQ_STR(pl->operators[0].full_name, "aten::add.out");
  etk_program_free(p);
  if (ptu_flatc()) {
    char *json = ptu_flatc_json(d, len, "program.fbs", 0);
    REQUIRE(json);
    CHECK_CONTAINS(json, "\"name\": \"forward\"", "\"name\": \"aten::add\"",
                   "\"overload\": \"out\"",
                   "\"instr_args_type\": \"KernelCall\"");
    CHECK_EQ_INT(ptu_count(json, "\"val_type\": \"Tensor\""), 3);
    CHECK_EQ_INT(ptu_count(json, "\"scalar_type\": \"FLOAT\""), 3);
    CHECK(strstr(json, "\"memory_offset_low\": 32") != NULL);
    free(json);
  }
  free(d);
}

ETK_TEST(constants_in_segment_with_extended_header) {
  uint8_t *d;
  size_t len;
  REQUIRE(ptu_build_linear(0, &d, &len) == ETK_OK);
  REQUIRE(len > 40);
  CHECK_EQ_MEM(d + 8, "eh00", 4);
  etk_program_t *p = ptu_load(d, len);
  REQUIRE(p);
  CHECK(p->header.has_extended_header);
  CHECK_EQ_INT(p->header.extended_header_length, 32);
  CHECK_EQ_U64(p->header.segment_base_offset % 128, 0);
  CHECK(p->header.segment_base_offset >= p->header.program_size);
  CHECK_EQ_U64(p->header.segment_base_offset + p->header.segment_data_size,
               len);
  CHECK_EQ_INT(p->constant_storage, ETK_CONSTANTS_SEGMENT);
  CHECK_EQ_INT(p->constant_count, 3);
  const float *a =
      (const float *)(const void *)p->plans[0].values[0].u.tensor->data;
  const float *c =
      (const float *)(const void *)p->plans[0].values[1].u.tensor->data;
  REQUIRE(a && c);
  CHECK(a[0] == 3.0f && a[3] == 3.0f && c[0] == 2.0f && c[3] == 2.0f);
  CHECK_EQ_U64((uintptr_t)a % 16, 0);
  CHECK_EQ_U64((uintptr_t)c % 16, 0);
  etk_program_free(p);
  if (ptu_flatc()) {
    /* flatc reads through the header: the root offset was moved. */
    char *json = ptu_flatc_json(d, len, "program.fbs", 0);
    REQUIRE(json);
    CHECK_CONTAINS(json, "\"constant_segment\"", "\"name\": \"aten::mul\"",
                   "\"data_buffer_idx\": 2");
    free(json);
  }
  free(d);
}

ETK_TEST(inline_constants_like_old_files) {
  uint8_t *d;
  size_t len;
  REQUIRE(ptu_build_linear(1, &d, &len) == ETK_OK);
  CHECK(memcmp(d + 8, "eh00", 4) != 0);
  etk_program_t *p = ptu_load(d, len);
  REQUIRE(p);
  CHECK_EQ_INT(p->constant_storage, ETK_CONSTANTS_INLINE);
  CHECK_EQ_INT(p->constant_count, 3);
  const float *a =
      (const float *)(const void *)p->plans[0].values[0].u.tensor->data;
  CHECK(a && a[2] == 3.0f);
  CHECK_EQ_U64((uintptr_t)a % 16, 0);
  etk_program_free(p);
  if (ptu_flatc()) {
    char *json = ptu_flatc_json(d, len, "program.fbs", 0);
    REQUIRE(json);
    CHECK_EQ_INT(ptu_count(json, "\"storage\""), 3);
    free(json);
  }
  free(d);
}

ETK_TEST(every_value_kind) {
  etk_program_builder_t *b = etk_program_builder_new("values");
  int32_t sz[2] = {2, 3};
  uint8_t order[2] = {1, 0};
  int t = etk_program_builder_add_tensor(b, ETK_BUILDER_LONG, 2, sz, order,
                                         ETK_BUILDER_PLANNED, NULL);
  int i = etk_program_builder_add_int(b, -42);
  int dv = etk_program_builder_add_double(b, 2.5);
  int bv = etk_program_builder_add_bool(b, true);
  int nv = etk_program_builder_add_null(b);
  int s = etk_program_builder_add_string(b, "hello");
  const int64_t il[3] = {4, 5, 6};
  int ilv = etk_program_builder_add_int_list(b, il, 3);
  const double dl[2] = {0.5, -1.5};
  int dlv = etk_program_builder_add_double_list(b, dl, 2);
  const bool bl[3] = {true, false, true};
  int blv = etk_program_builder_add_bool_list(b, bl, 3);
  int32_t items[2] = {t, t};
  int tl = etk_program_builder_add_tensor_list(b, items, 2, false);
  int32_t oitems[2] = {t, -1};
  int otl = etk_program_builder_add_tensor_list(b, oitems, 2, true);
  REQUIRE(etk_program_builder_set_dynamic(b, t) == ETK_OK);
  etk_program_builder_move_call(b, i, i);
  etk_program_builder_free_call(b, t);
  etk_program_builder_jump_false_call(b, bv, 3);
  etk_program_builder_set_outputs(b, &t, 1);
  uint8_t *d;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_program_builder_finish(b, &d, &len, &err) == ETK_OK);
  etk_program_builder_free(b);
  etk_program_t *p = ptu_load(d, len);
  REQUIRE(p);
  const etk_program_plan_t *pl = etk_program_find_plan(p, "values");
  REQUIRE(pl);
  const etk_program_value_t *v = pl->values;
  CHECK_EQ_INT(v[t].tag, 5);
  CHECK_EQ_INT(v[t].u.tensor->scalar_type, 4);
  CHECK_EQ_INT(v[t].u.tensor->dim_order[0], 1);
  CHECK_EQ_INT(v[t].u.tensor->shape_dynamism, 1);
  CHECK_EQ_U64(v[t].u.tensor->nbytes, 48);
  CHECK_EQ_INT(v[i].u.i, -42);
  CHECK(v[dv].u.d == 2.5);
  CHECK(v[bv].u.b);
  CHECK_EQ_INT(v[nv].tag, 1);
  CHECK_EQ_STR(v[s].u.string.data, "hello");
  REQUIRE(v[ilv].tag == 7 && v[ilv].u.int_list.count == 3);
  for (int k = 0; k < 3; k++) {
    int64_t idx = v[ilv].u.int_list.items[k];
    CHECK_EQ_INT(v[idx].tag, 2);
    CHECK_EQ_INT(v[idx].u.i, il[k]);
  }
  CHECK(v[dlv].u.double_list.items[1] == -1.5);
  CHECK_EQ_INT(v[blv].u.bool_list.items[1], 0);
  CHECK_EQ_INT(v[blv].u.bool_list.items[2], 1);
  CHECK_EQ_INT(v[tl].tag, 10);
  CHECK_EQ_INT(v[tl].u.tensor_list.items[1], t);
  CHECK_EQ_INT(v[otl].tag, 11);
  CHECK_EQ_INT(v[otl].u.tensor_list.items[1], -1);
  const etk_program_chain_t *c = &pl->chains[0];
  REQUIRE(c->instruction_count == 3);
  CHECK_EQ_INT(c->instructions[0].kind, ETK_INSTR_MOVE_CALL);
  CHECK_EQ_INT(c->instructions[1].kind, ETK_INSTR_FREE_CALL);
  CHECK_EQ_INT(c->instructions[2].kind, ETK_INSTR_JUMP_FALSE_CALL);
  CHECK_EQ_INT(c->instructions[2].index2, 3);
  etk_program_free(p);
  if (ptu_flatc()) {
    char *json = ptu_flatc_json(d, len, "program.fbs", 0);
    REQUIRE(json);
    CHECK_CONTAINS(json, "\"string_val\": \"hello\"",
                   "\"val_type\": \"OptionalTensorList\"",
                   "\"instr_args_type\": \"JumpFalseCall\"",
                   "\"instr_args_type\": \"FreeCall\"",
                   "\"shape_dynamism\": \"DYNAMIC_BOUND\"");
    free(json);
  }
  free(d);
}

static void check_delegate(int in_segments) {
  etk_program_builder_t *b = ptu_builder_with_options(0, in_segments);
  int x = ptu_float_vector(b, 4);
  const char payload[] = "a delegate payload of 37 bytes......";
  const char *keys[2] = {"k1", "k2"};
  const uint8_t v1[] = {1, 2, 3}, v2[] = {9};
  const uint8_t *vals[2] = {v1, v2};
  const uint32_t lens[2] = {3, 1};
  int del = etk_program_builder_add_delegate(
      b, "SomeBackend", payload, sizeof payload, keys, vals, lens, 2);
  int32_t args[1] = {x};
  etk_program_builder_delegate_call(b, del, args, 1);
  uint8_t *d;
  size_t len;
  etk_program_t *p = ptu_finish_unary_load(b, x, x, &d, &len);
  REQUIRE(p);
  const etk_program_delegate_t *dg = &p->plans[0].delegates[0];
  CHECK_EQ_STR(dg->id, "SomeBackend");
  CHECK_EQ_INT(dg->location, in_segments ? 1 : 0);
  CHECK_EQ_U64(dg->size, sizeof payload);
  CHECK(dg->data && memcmp(dg->data, payload, sizeof payload) == 0);
  REQUIRE(dg->compile_spec_count == 2);
  CHECK_EQ_STR(dg->compile_specs[1].key, "k2");
  CHECK_EQ_INT(dg->compile_specs[0].value_len, 3);
  CHECK_EQ_INT(dg->compile_specs[0].value[2], 3);
  CHECK_EQ_INT(p->plans[0].chains[0].instructions[0].kind,
               ETK_INSTR_DELEGATE_CALL);
  if (in_segments) {
    CHECK(p->header.has_extended_header);
    CHECK_EQ_U64((dg->data - p->data) % 128, 0);
  }
  etk_program_free(p);
  if (ptu_flatc()) {
    char *json = ptu_flatc_json(d, len, "program.fbs", 0);
    REQUIRE(json);
    CHECK(strstr(json, "\"id\": \"SomeBackend\"") != NULL);
    CHECK(strstr(json, in_segments ? "\"location\": \"SEGMENT\""
                                   : "\"location\": \"INLINE\"") != NULL);
    free(json);
  }
  free(d);
}

ETK_TEST(delegate_inline) {
  check_delegate(0);
}
ETK_TEST(delegate_in_segment) {
  check_delegate(1);
}

ETK_TEST(builder_errors_are_sticky_and_named) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int op = etk_program_builder_add_operator(b, "aten::relu", "out");
  CHECK_EQ_INT(etk_program_builder_add_operator(b, "aten::relu", "out"), op);
  int32_t args[3] = {0, 5, 5};
  etk_program_builder_kernel_call(b, op, args, 3);
  uint8_t *d = NULL;
  size_t len = 0;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_program_builder_finish(b, &d, &len, &err),
               ETK_E_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "instruction 0") != NULL);
  CHECK(d == NULL);
  etk_program_builder_free(b);
  b = etk_program_builder_new("forward");
  int32_t bad[1] = {-3};
  CHECK_EQ_INT(etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, bad,
                                              NULL, ETK_BUILDER_PLANNED, NULL),
               ETK_E_INVALID_ARGUMENT);
  /* sticky: a valid call now returns the first error */
  CHECK_EQ_INT(etk_program_builder_add_int(b, 1), ETK_E_INVALID_ARGUMENT);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_program_builder_finish(b, &d, &len, &err),
               ETK_E_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "sizes") != NULL);
  etk_program_builder_free(b);
  /* NULL list items are an error, not a crash */
  b = etk_program_builder_new("forward");
  CHECK_EQ_INT(etk_program_builder_add_bool_list(b, NULL, 2),
               ETK_E_INVALID_ARGUMENT);
  etk_program_builder_free(b);
}

ETK_TEST(two_methods_and_explicit_placement) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = ptu_float_vector(b, 8);
  REQUIRE(etk_program_builder_place_tensor(b, x, 2, 64) == ETK_OK);
  etk_program_builder_set_outputs(b, &x, 1);
  CHECK_EQ_INT(etk_program_builder_add_method(b, "other"), 1);
  CHECK(etk_program_builder_add_method(b, "other") < 0);
  etk_program_builder_free(b);
  b = etk_program_builder_new("forward");
  x = ptu_float_vector(b, 8);
  etk_program_builder_place_tensor(b, x, 2, 64);
  etk_program_builder_set_outputs(b, &x, 1);
  etk_program_builder_add_method(b, "aaa");
  int y = etk_program_builder_add_int(b, 7);
  etk_program_builder_set_outputs(b, &y, 1);
  uint8_t *d;
  size_t len;
  etk_program_t *p = ptu_finish_load(b, &d, &len);
  REQUIRE(p);
  CHECK_EQ_INT(p->plan_count, 2);
  const etk_program_plan_t *f = etk_program_find_plan(p, "forward");
  REQUIRE(f && f->buffer_size_count == 3);
  CHECK_EQ_INT(f->buffer_sizes[2], 96);
  CHECK_EQ_INT(f->values[0].u.tensor->memory_id, 2);
  const etk_program_plan_t *a = etk_program_find_plan(p, "aaa");
  REQUIRE(a);
  CHECK_EQ_INT(a->values[a->outputs[0]].u.i, 7);
  etk_program_free(p);
  free(d);
}

ETK_TEST_MAIN()
