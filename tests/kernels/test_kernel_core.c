/*
 * test_kernel_core.c - the tensor/value helpers of runtime.h, the registry,
 * and the argument validation every kernel shares.
 */
#include <math.h>

#include "etk_test.h"
#include "kernel_harness.h"

ETK_TEST(scalar_type_size_and_name) {
  CHECK_EQ_U64(etk_scalar_type_size(ETK_FLOAT), 4);
  CHECK_EQ_U64(etk_scalar_type_size(ETK_LONG), 8);
  CHECK_EQ_U64(etk_scalar_type_size(ETK_BOOL), 1);
  CHECK_EQ_U64(etk_scalar_type_size(ETK_HALF), 2);
  CHECK_EQ_U64(etk_scalar_type_size(ETK_UINT64), 8);
  CHECK_EQ_U64(etk_scalar_type_size(9), 0);
  CHECK_EQ_U64(etk_scalar_type_size(-1), 0);
  CHECK_EQ_STR(etk_scalar_type_name(ETK_FLOAT), "FLOAT");
  CHECK_EQ_STR(etk_scalar_type_name(ETK_BFLOAT16), "BFLOAT16");
  CHECK_EQ_STR(etk_scalar_type_name(99), "UNKNOWN");
}

/* A FLOAT tensor header of sizes[0..dim) in the default dim order, no
 * data, strides updated. */
static void float_tensor(etk_tensor_t *t, int32_t dim, const int32_t *sizes) {
  memset(t, 0, sizeof *t);
  t->scalar_type = ETK_FLOAT;
  t->dim = dim;
  for (int32_t d = 0; d < dim; d++) {
    t->sizes[d] = sizes[d];
    t->dim_order[d] = (uint8_t)d;
  }
  etk_tensor_update_strides(t);
}

ETK_TEST(strides_follow_dim_order) {
  etk_tensor_t t;
  float_tensor(&t, 4, (const int32_t[]){2, 3, 4, 5});
  CHECK_EQ_INT(t.strides[0], 60);
  CHECK_EQ_INT(t.strides[1], 20);
  CHECK_EQ_INT(t.strides[2], 5);
  CHECK_EQ_INT(t.strides[3], 1);
  CHECK_EQ_U64(t.nbytes, 120 * 4);
  CHECK(etk_tensor_is_contiguous(&t));
  /* channels-last: N, H, W, C in memory */
  t.dim_order[0] = 0;
  t.dim_order[1] = 2;
  t.dim_order[2] = 3;
  t.dim_order[3] = 1;
  etk_tensor_update_strides(&t);
  CHECK_EQ_INT(t.strides[0], 60);
  CHECK_EQ_INT(t.strides[1], 1);
  CHECK_EQ_INT(t.strides[2], 15);
  CHECK_EQ_INT(t.strides[3], 3);
  CHECK(!etk_tensor_is_contiguous(&t));
  CHECK_EQ_INT(etk_tensor_numel(&t), 120);
  CHECK_EQ_INT(etk_tensor_validate(&t), ETK_OK);
  t.dim_order[3] = 2; /* not a permutation */
  CHECK_EQ_INT(etk_tensor_validate(&t), ETK_E_INVALID_ARGUMENT);
  t.dim = 0;
  CHECK_EQ_INT(etk_tensor_numel(&t), 1);
  CHECK_EQ_INT(etk_tensor_validate(&t), ETK_OK);
  t.dim = 17;
  CHECK_EQ_INT(etk_tensor_validate(&t), ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(resize_static_and_dynamic) {
  etk_tensor_t t;
  int32_t same[2] = {2, 3}, other[2] = {3, 2}, small[1] = {4}, big[1] = {7};
  float_tensor(&t, 2, same);
  t.capacity_bytes = 24;
  CHECK_EQ_INT(etk_tensor_resize(&t, 2, same), ETK_OK);
  CHECK_EQ_INT(etk_tensor_resize(&t, 2, other), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(t.sizes[0], 2);
  t.shape_dynamism = 1;
  CHECK_EQ_INT(etk_tensor_resize(&t, 2, other), ETK_OK);
  CHECK_EQ_INT(t.sizes[0], 3);
  CHECK_EQ_INT(t.strides[0], 2);
  CHECK_EQ_INT(etk_tensor_resize(&t, 1, small), ETK_OK);
  CHECK_EQ_INT(t.dim, 1);
  CHECK_EQ_U64(t.nbytes, 16);
  CHECK_EQ_INT(etk_tensor_resize(&t, 1, big), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(t.sizes[0], 4);
}

ETK_TEST(int_list_resolution) {
  kt_env_t e;
  int64_t items[3] = {4, -2, 9}, out[3];
  int list;
  kt_init(&e);
  list = kt_int_list(&e, 3, items);
  CHECK_EQ_INT(etk_value_int_list(&e.ctx, &e.values[list], out, 3), 3);
  CHECK_EQ_INT(out[0], 4);
  CHECK_EQ_INT(out[1], -2);
  CHECK_EQ_INT(out[2], 9);
  CHECK_EQ_INT(etk_value_int_list(&e.ctx, &e.values[list], out, 2), -1);
  /* an item pointing at a non-Int value */
  e.items[1] = kt_double(&e, 1.5);
  CHECK_EQ_INT(etk_value_int_list(&e.ctx, &e.values[list], out, 3), -1);
  /* an item outside the value table */
  e.items[1] = 1000;
  CHECK_EQ_INT(etk_value_int_list(&e.ctx, &e.values[list], out, 3), -1);
  CHECK_EQ_INT(etk_value_int_list(&e.ctx, &e.values[0], out, 3), -1);
}

ETK_TEST(registry_sorted_and_complete) {
  size_t n = 0;
  const etk_kernel_entry_t *k = etk_kernels_builtin(&n);
  REQUIRE(k != NULL);
  REQUIRE(n > 40);
  for (size_t i = 0; i < n; i++) {
    CHECK(k[i].fn != NULL);
    CHECK(k[i].check != NULL);
    if (i > 0 && strcmp(k[i - 1].name, k[i].name) >= 0)
      printf("# out of order: %s, %s\n", k[i - 1].name, k[i].name);
    if (i > 0) CHECK(strcmp(k[i - 1].name, k[i].name) < 0);
    CHECK(etk_kernel_find(k[i].name) == &k[i]);
  }
  CHECK(etk_kernel_find("aten::add.out") != NULL);
  CHECK(etk_kernel_find("aten::convolution.out") != NULL);
  CHECK(etk_kernel_find("dim_order_ops::_clone_dim_order.out") != NULL);
  CHECK(etk_kernel_find("aten::add") == NULL);
  CHECK(etk_kernel_find("aten::nonexistent.out") == NULL);
  CHECK(etk_kernel_find("") == NULL);
  CHECK(etk_kernel_find(NULL) == NULL);
}

ETK_TEST(check_rejects_unsupported_dtype_before_running) {
  kt_env_t e;
  int32_t s[1] = {2};
  int a, b, out, alpha;
  kt_init(&e);
  /* no data: the check must not need it */
  a = kt_tensor(&e, ETK_HALF, 1, s, NULL, NULL, 0);
  b = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, NULL, 0);
  out = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, NULL, 0);
  alpha = kt_int(&e, 1);
  CHECK_EQ_INT(kt_call(&e, "aten::add.out", KT_ARGS(a, b, alpha, out, out)),
               ETK_E_UNSUPPORTED);
  CHECK_EQ_INT(e.last_check, ETK_E_UNSUPPORTED);
  CHECK_EQ_STR(e.ctx.message,
               "aten::add.out: dtype HALF not supported for self");
  /* a good call checks fine without data, then the run wants data */
  kt_t(&e, a)->scalar_type = ETK_FLOAT;
  CHECK_EQ_INT(kt_call(&e, "aten::add.out", KT_ARGS(a, b, alpha, out, out)),
               ETK_E_INVALID_STATE);
  CHECK_EQ_INT(e.last_check, ETK_OK);
  CHECK(kt_msg_has(&e, "self has no data"));
  /* conv only does float32 */
  {
    int32_t s4[4] = {1, 1, 2, 2}, sb[1] = {1};
    int in = kt_tensor(&e, ETK_LONG, 4, s4, NULL, NULL, 0);
    int w = kt_tensor(&e, ETK_LONG, 4, s4, NULL, NULL, 0);
    int bias = kt_tensor(&e, ETK_LONG, 1, sb, NULL, NULL, 0);
    int64_t one[2] = {1, 1}, zero[2] = {0, 0};
    int st = kt_int_list(&e, 2, one), pd = kt_int_list(&e, 2, zero),
        dl = kt_int_list(&e, 2, one), op = kt_int_list(&e, 2, zero);
    int tr = kt_bool(&e, false), g = kt_int(&e, 1);
    int o = kt_tensor(&e, ETK_LONG, 4, s4, NULL, NULL, 0);
    CHECK_EQ_INT(kt_call(&e, "aten::convolution.out",
                         KT_ARGS(in, w, bias, st, pd, dl, tr, op, g, o, o)),
                 ETK_E_UNSUPPORTED);
    CHECK(kt_msg_has(
        &e, "aten::convolution.out: dtype LONG not supported for input"));
  }
}

ETK_TEST(argument_errors_name_the_problem) {
  kt_env_t e;
  int32_t s[1] = {2};
  float a_d[2], o_d[2];
  int a, out, alpha, d;
  kt_init(&e);
  a = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, a_d, sizeof a_d);
  out = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, o_d, sizeof o_d);
  alpha = kt_int(&e, 1);
  d = kt_double(&e, 2.0);
  CHECK_EQ_INT(kt_call(&e, "aten::add.out", KT_ARGS(a, a, alpha, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_STR(e.ctx.message, "aten::add.out: expected 5 arguments, got 4");
  CHECK_EQ_INT(kt_call(&e, "aten::add.out", KT_ARGS(a, d, alpha, out, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "argument 1 (other) must be a Tensor, got Double"));
  CHECK_EQ_INT(kt_call(&e, "aten::relu.out", KT_ARGS(a, alpha, alpha)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "aten::relu.out: argument 1 (out) must be a Tensor"));
  /* a list item that is not an Int value */
  {
    int64_t sz[1] = {2};
    int list = kt_int_list(&e, 1, sz);
    e.items[e.nitems - 1] = d;
    CHECK_EQ_INT(kt_call(&e, "aten::view_copy.out", KT_ARGS(a, list, out, out)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "size has an item that is not an Int value"));
  }
  /* data shorter than the shape claims */
  kt_t(&e, out)->capacity_bytes = 4;
  CHECK_EQ_INT(kt_call(&e, "aten::relu.out", KT_ARGS(a, out, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "out needs 2 elements but has 4 bytes"));
  /* invalid dim order */
  kt_t(&e, a)->dim_order[0] = 3;
  CHECK_EQ_INT(kt_call(&e, "aten::relu.out", KT_ARGS(a, out, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "self has an invalid shape or dim_order"));
}

ETK_TEST(static_output_shape_mismatch) {
  kt_env_t e;
  int32_t s2[1] = {2}, s3[1] = {3};
  float a_d[2] = {1, 2}, o_d[3];
  int a, out;
  kt_init(&e);
  a = kt_tensor(&e, ETK_FLOAT, 1, s2, NULL, a_d, sizeof a_d);
  out = kt_tensor(&e, ETK_FLOAT, 1, s3, NULL, o_d, sizeof o_d);
  CHECK_EQ_INT(kt_call(&e, "aten::relu.out", KT_ARGS(a, out, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_STR(e.ctx.message,
               "aten::relu.out: out has shape [3], expected [2]");
}

ETK_TEST(prim_ops_write_their_out_value) {
  kt_env_t e;
  int32_t s[3] = {2, 3, 4};
  float d[24];
  int t, out;
  kt_init(&e);
  t = kt_tensor(&e, ETK_FLOAT, 3, s, NULL, d, sizeof d);
  out = kt_none(&e);
  REQUIRE(kt_call(&e, "aten::sym_size.int", KT_ARGS(t, kt_int(&e, -1), out)) ==
          ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_INT && e.values[out].u.i == 4);
  REQUIRE(kt_call(&e, "aten::sym_numel", KT_ARGS(t, out)) == ETK_OK);
  CHECK(e.values[out].u.i == 24);
  REQUIRE(kt_call(&e, "executorch_prim::floordiv.Scalar",
                  KT_ARGS(kt_int(&e, -7), kt_int(&e, 2), out)) == ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_INT && e.values[out].u.i == -4);
  REQUIRE(kt_call(&e, "executorch_prim::floordiv.Scalar",
                  KT_ARGS(kt_double(&e, -7), kt_int(&e, 2), out)) == ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_DOUBLE && e.values[out].u.d == -4.0);
  REQUIRE(kt_call(&e, "executorch_prim::mul.Scalar",
                  KT_ARGS(kt_int(&e, 6), kt_double(&e, 0.5), out)) == ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_DOUBLE && e.values[out].u.d == 3.0);
  REQUIRE(kt_call(&e, "executorch_prim::truediv.Scalar",
                  KT_ARGS(kt_int(&e, 7), kt_int(&e, 2), out)) == ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_DOUBLE && e.values[out].u.d == 3.5);
  REQUIRE(kt_call(&e, "executorch_prim::mod.int",
                  KT_ARGS(kt_int(&e, -7), kt_int(&e, 3), out)) == ETK_OK);
  CHECK(e.values[out].u.i == -1);
  REQUIRE(kt_call(&e, "executorch_prim::lt.Scalar",
                  KT_ARGS(kt_int(&e, 2), kt_double(&e, 2.5), out)) == ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_BOOL && e.values[out].u.b);
  REQUIRE(kt_call(&e, "executorch_prim::round.Scalar",
                  KT_ARGS(kt_double(&e, 2.5), out)) == ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_INT && e.values[out].u.i == 2);
  REQUIRE(kt_call(&e, "executorch_prim::round.Scalar",
                  KT_ARGS(kt_double(&e, -3.5), out)) == ETK_OK);
  CHECK(e.values[out].u.i == -4);
  CHECK_EQ_INT(kt_call(&e, "executorch_prim::floordiv.int",
                       KT_ARGS(kt_int(&e, 1), kt_int(&e, 0), out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e,
                   "executorch_prim::floordiv.int: integer division by zero"));
  /* et_view borrows self's data with the new shape */
  {
    int32_t vs[2] = {6, 4};
    int64_t size[2] = {-1, 4};
    int v = kt_tensor(&e, ETK_FLOAT, 2, vs, NULL, NULL, 0);
    REQUIRE(kt_call(&e, "executorch_prim::et_view.default",
                    KT_ARGS(t, kt_int_list(&e, 2, size), v)) == ETK_OK);
    CHECK(kt_t(&e, v)->data == (void *)d);
    CHECK_EQ_INT(kt_t(&e, v)->sizes[0], 6);
  }
}

ETK_TEST_MAIN()
