/*
 * test_kernel_elementwise.c - binary arithmetic (broadcasting, alpha, type
 * rules, rounding modes), one-operand activations and math, and softmax,
 * against hand-worked values and direct formula loops over logical arrays.
 */
#include <math.h>

#include "etk_test.h"
#include "kernel_harness.h"

static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};

ETK_TEST(add_broadcast_with_alpha) {
  kt_env_t e;
  int32_t sa[2] = {2, 3}, sb[1] = {3};
  float a_d[6], b_d[3], o_d[6];
  double a_v[6] = {1, 2, 3, 4, 5, 6}, b_v[3] = {10, 20, 30}, want[6];
  int a, b, out, alpha;
  kt_init(&e);
  a = kt_tensor_from(&e, ETK_FLOAT, 2, sa, NULL, a_d, sizeof a_d, a_v);
  b = kt_tensor_from(&e, ETK_FLOAT, 1, sb, NULL, b_d, sizeof b_d, b_v);
  out = kt_tensor(&e, ETK_FLOAT, 2, sa, NULL, o_d, sizeof o_d);
  alpha = kt_int(&e, 2);
  REQUIRE(kt_call(&e, "aten::add.out", KT_ARGS(a, b, alpha, out, out)) ==
          ETK_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) want[i * 3 + j] = a_v[i * 3 + j] + 2 * b_v[j];
  CHECK(kt_max_err(&e, out, want, 6) == 0.0);
  CHECK_EQ_INT((int)o_d[5], 66);
  /* sub with a Double alpha */
  alpha = kt_double(&e, 0.5);
  REQUIRE(kt_call(&e, "aten::sub.out", KT_ARGS(a, b, alpha, out, out)) ==
          ETK_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) want[i * 3 + j] = a_v[i * 3 + j] - 0.5 * b_v[j];
  CHECK(kt_max_err(&e, out, want, 6) == 0.0);
}

ETK_TEST(mul_broadcasts_both_sides) {
  kt_env_t e;
  int32_t sa[2] = {2, 1}, sb[2] = {1, 3}, so[2] = {2, 3};
  float a_d[2], b_d[3], o_d[6];
  double a_v[2] = {2, -3}, b_v[3] = {1, 4, 0.5};
  double want[6] = {2, 8, 1, -3, -12, -1.5};
  int a, b, out;
  kt_init(&e);
  a = kt_tensor_from(&e, ETK_FLOAT, 2, sa, NULL, a_d, sizeof a_d, a_v);
  b = kt_tensor_from(&e, ETK_FLOAT, 2, sb, NULL, b_d, sizeof b_d, b_v);
  out = kt_tensor(&e, ETK_FLOAT, 2, so, NULL, o_d, sizeof o_d);
  REQUIRE(kt_call(&e, "aten::mul.out", KT_ARGS(a, b, out, out)) == ETK_OK);
  CHECK(kt_max_err(&e, out, want, 6) == 0.0);
}

/* a is [2,3,4] channels-last-like (dim order 0,2,1), b is [3,1] broadcast,
 * out [2,3,4] stored with dim order (2,1,0). */
ETK_TEST(binary_non_contiguous_operands) {
  kt_env_t e;
  int32_t sa[3] = {2, 3, 4}, sb[2] = {3, 1};
  uint8_t oa[3] = {0, 2, 1}, oo[3] = {2, 1, 0};
  float a_d[24], b_d[3], o_d[24];
  double a_v[24], b_v[3] = {100, 200, 300}, want[24];
  int a, b, out, alpha;
  for (int k = 0; k < 24; k++) a_v[k] = k * 1.5 - 7;
  kt_init(&e);
  a = kt_tensor_from(&e, ETK_FLOAT, 3, sa, oa, a_d, sizeof a_d, a_v);
  b = kt_tensor_from(&e, ETK_FLOAT, 2, sb, NULL, b_d, sizeof b_d, b_v);
  out = kt_tensor(&e, ETK_FLOAT, 3, sa, oo, o_d, sizeof o_d);
  alpha = kt_int(&e, 1);
  REQUIRE(kt_call(&e, "aten::add.out", KT_ARGS(a, b, alpha, out, out)) ==
          ETK_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++)
        want[(i * 3 + j) * 4 + k] = a_v[(i * 3 + j) * 4 + k] + b_v[j];
  CHECK(kt_max_err(&e, out, want, 24) == 0.0);
  /* physical check of one element: out dim order (2,1,0) puts logical
   * [1][2][3] at 3*6 + 2*2 + 1 */
  CHECK(o_d[3 * 6 + 2 * 2 + 1] == (float)(a_v[23] + 300));
}

ETK_TEST(integer_and_mixed_dtypes) {
  kt_env_t e;
  int32_t s[1] = {4};
  int32_t a_d[4];
  int64_t b_d[4], o_d[4];
  double a_v[4] = {1, -2, 2147483647, 7}, b_v[4] = {10, 20, 1, -3};
  int a, b, out, alpha;
  kt_init(&e);
  a = kt_tensor_from(&e, ETK_INT, 1, s, NULL, a_d, sizeof a_d, a_v);
  b = kt_tensor_from(&e, ETK_LONG, 1, s, NULL, b_d, sizeof b_d, b_v);
  out = kt_tensor(&e, ETK_LONG, 1, s, NULL, o_d, sizeof o_d);
  alpha = kt_int(&e, 3);
  REQUIRE(kt_call(&e, "aten::add.out", KT_ARGS(a, b, alpha, out, out)) ==
          ETK_OK);
  CHECK_EQ_INT(o_d[0], 31);
  CHECK_EQ_INT(o_d[1], 58);
  CHECK_EQ_INT(o_d[2], 2147483650LL); /* computed in 64 bits */
  CHECK_EQ_INT(o_d[3], -2);
  /* int32 out wraps like PyTorch */
  {
    int32_t w_d[4];
    int w = kt_tensor(&e, ETK_INT, 1, s, NULL, w_d, sizeof w_d);
    int one = kt_int(&e, 1);
    REQUIRE(kt_call(&e, "aten::add.out", KT_ARGS(a, a, one, w, w)) == ETK_OK);
    CHECK_EQ_INT(w_d[2], -2);
  }
  /* float alpha with integer inputs is rejected */
  alpha = kt_double(&e, 1.5);
  CHECK_EQ_INT(kt_call(&e, "aten::add.out", KT_ARGS(a, b, alpha, out, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "alpha must be an integer"));
  /* a floating result cannot go into a LONG out */
  {
    float f_d[4];
    int f = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, f_d, sizeof f_d);
    int one = kt_int(&e, 1);
    CHECK_EQ_INT(kt_call(&e, "aten::add.out", KT_ARGS(f, b, one, out, out)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK_EQ_STR(
        e.ctx.message,
        "aten::add.out: floating result can't be cast to out dtype LONG");
    /* ... but ints into a FLOAT out are fine */
    REQUIRE(kt_call(&e, "aten::mul.out", KT_ARGS(a, b, f, f)) == ETK_OK);
    CHECK(f_d[0] == 10.0f && f_d[3] == -21.0f);
  }
}

ETK_TEST(bool_operands) {
  kt_env_t e;
  int32_t s[1] = {4};
  uint8_t a_d[4] = {0, 0, 1, 1}, b_d[4] = {0, 1, 0, 1}, o_d[4];
  int a, b, out, one;
  kt_init(&e);
  a = kt_tensor(&e, ETK_BOOL, 1, s, NULL, a_d, sizeof a_d);
  b = kt_tensor(&e, ETK_BOOL, 1, s, NULL, b_d, sizeof b_d);
  out = kt_tensor(&e, ETK_BOOL, 1, s, NULL, o_d, sizeof o_d);
  one = kt_int(&e, 1);
  REQUIRE(kt_call(&e, "aten::add.out", KT_ARGS(a, b, one, out, out)) == ETK_OK);
  CHECK(o_d[0] == 0 && o_d[1] == 1 && o_d[2] == 1 && o_d[3] == 1);
  REQUIRE(kt_call(&e, "aten::mul.out", KT_ARGS(a, b, out, out)) == ETK_OK);
  CHECK(o_d[0] == 0 && o_d[1] == 0 && o_d[2] == 0 && o_d[3] == 1);
  CHECK_EQ_INT(kt_call(&e, "aten::sub.out", KT_ARGS(a, b, one, out, out)),
               ETK_E_UNSUPPORTED);
  CHECK(kt_msg_has(&e, "subtraction of bool tensors is not supported"));
}

ETK_TEST(scalar_forms) {
  kt_env_t e;
  int32_t s[1] = {3};
  int64_t a_d[3] = {1, 2, 3};
  float o_d[3];
  int64_t l_d[3];
  int a, out, lout, other, alpha;
  kt_init(&e);
  a = kt_tensor(&e, ETK_LONG, 1, s, NULL, a_d, sizeof a_d);
  out = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, o_d, sizeof o_d);
  lout = kt_tensor(&e, ETK_LONG, 1, s, NULL, l_d, sizeof l_d);
  other = kt_double(&e, 2.5);
  alpha = kt_int(&e, 2);
  /* LONG + 2 * 2.5 promotes to floating */
  REQUIRE(kt_call(&e, "aten::add.Scalar_out",
                  KT_ARGS(a, other, alpha, out, out)) == ETK_OK);
  CHECK(o_d[0] == 6.0f && o_d[2] == 8.0f);
  CHECK_EQ_INT(
      kt_call(&e, "aten::add.Scalar_out", KT_ARGS(a, other, alpha, lout, lout)),
      ETK_E_INVALID_ARGUMENT);
  other = kt_int(&e, 10);
  REQUIRE(kt_call(&e, "aten::sub.Scalar_out",
                  KT_ARGS(a, other, alpha, lout, lout)) == ETK_OK);
  CHECK(l_d[0] == -19 && l_d[2] == -17);
  REQUIRE(kt_call(&e, "aten::rsub.Scalar_out",
                  KT_ARGS(a, other, alpha, lout, lout)) == ETK_OK);
  CHECK(l_d[0] == 8 && l_d[2] == 4);
  REQUIRE(kt_call(&e, "aten::mul.Scalar_out", KT_ARGS(a, other, lout, lout)) ==
          ETK_OK);
  CHECK(l_d[0] == 10 && l_d[2] == 30);
  /* true division of integers is floating */
  REQUIRE(kt_call(&e, "aten::div.Scalar_out", KT_ARGS(a, alpha, out, out)) ==
          ETK_OK);
  CHECK(o_d[0] == 0.5f && o_d[1] == 1.0f && o_d[2] == 1.5f);
  CHECK_EQ_INT(
      kt_call(&e, "aten::div.Scalar_out", KT_ARGS(a, alpha, lout, lout)),
      ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(division_rounding_modes) {
  kt_env_t e;
  int32_t s[1] = {6};
  float a_d[6], b_d[6], o_d[6];
  double a_v[6] = {-7, 7, 7, -7, 1, 5}, b_v[6] = {2, 2, -2, -2, 0.1, 0};
  int a, b, out, mode;
  kt_init(&e);
  a = kt_tensor_from(&e, ETK_FLOAT, 1, s, NULL, a_d, sizeof a_d, a_v);
  b = kt_tensor_from(&e, ETK_FLOAT, 1, s, NULL, b_d, sizeof b_d, b_v);
  out = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, o_d, sizeof o_d);
  mode = kt_string(&e, "trunc");
  REQUIRE(kt_call(&e, "aten::div.out_mode", KT_ARGS(a, b, mode, out, out)) ==
          ETK_OK);
  CHECK(o_d[0] == -3 && o_d[1] == 3 && o_d[2] == -3 && o_d[3] == 3);
  CHECK(isinf(o_d[5]) && o_d[5] > 0);
  mode = kt_string(&e, "floor");
  REQUIRE(kt_call(&e, "aten::div.out_mode", KT_ARGS(a, b, mode, out, out)) ==
          ETK_OK);
  CHECK(o_d[0] == -4 && o_d[1] == 3 && o_d[2] == -4 && o_d[3] == 3);
  /* 1 / 0.1f is 9.99999985 in float: PyTorch's floor division gives 9 */
  CHECK(o_d[4] == 9);
  CHECK(isinf(o_d[5]));
  mode = kt_none(&e);
  REQUIRE(kt_call(&e, "aten::div.out_mode", KT_ARGS(a, b, mode, out, out)) ==
          ETK_OK);
  CHECK(o_d[0] == -3.5f);
  mode = kt_string(&e, "round");
  CHECK_EQ_INT(kt_call(&e, "aten::div.out_mode", KT_ARGS(a, b, mode, out, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(
      &e, "rounding_mode must be None, 'trunc' or 'floor', got 'round'"));
  /* integer floor division and division by zero */
  {
    int64_t x_d[4] = {-7, 7, 7, -7}, y_d[4] = {2, 2, -2, -2}, q_d[4];
    int32_t s4[1] = {4};
    int x = kt_tensor(&e, ETK_LONG, 1, s4, NULL, x_d, sizeof x_d);
    int y = kt_tensor(&e, ETK_LONG, 1, s4, NULL, y_d, sizeof y_d);
    int q = kt_tensor(&e, ETK_LONG, 1, s4, NULL, q_d, sizeof q_d);
    REQUIRE(kt_call(&e, "aten::floor_divide.out", KT_ARGS(x, y, q, q)) ==
            ETK_OK);
    CHECK(q_d[0] == -4 && q_d[1] == 3 && q_d[2] == -4 && q_d[3] == 3);
    mode = kt_string(&e, "trunc");
    REQUIRE(kt_call(&e, "aten::div.out_mode", KT_ARGS(x, y, mode, q, q)) ==
            ETK_OK);
    CHECK(q_d[0] == -3 && q_d[1] == 3 && q_d[2] == -3 && q_d[3] == 3);
    y_d[2] = 0;
    CHECK_EQ_INT(kt_call(&e, "aten::div.out_mode", KT_ARGS(x, y, mode, q, q)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "integer division by zero"));
  }
}

ETK_TEST(maximum_minimum_nan) {
  kt_env_t e;
  int32_t s[1] = {3};
  float a_d[3] = {1, NAN, -2}, b_d[3] = {2, 0, -5}, o_d[3];
  int a, b, out;
  kt_init(&e);
  a = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, a_d, sizeof a_d);
  b = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, b_d, sizeof b_d);
  out = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, o_d, sizeof o_d);
  REQUIRE(kt_call(&e, "aten::maximum.out", KT_ARGS(a, b, out, out)) == ETK_OK);
  CHECK(o_d[0] == 2 && isnan(o_d[1]) && o_d[2] == -2);
  REQUIRE(kt_call(&e, "aten::minimum.out", KT_ARGS(a, b, out, out)) == ETK_OK);
  CHECK(o_d[0] == 1 && isnan(o_d[1]) && o_d[2] == -5);
}

ETK_TEST(binary_empty_and_shape_errors) {
  kt_env_t e;
  int32_t sa[2] = {0, 3}, sb[1] = {3}, sc[1] = {4}, s23[2] = {2, 3};
  float b_d[3] = {1, 2, 3}, c_d[4], o_d[6];
  int a, b, c, out, bad_out, one;
  kt_init(&e);
  a = kt_tensor(&e, ETK_FLOAT, 2, sa, NULL, NULL, 0);
  b = kt_tensor(&e, ETK_FLOAT, 1, sb, NULL, b_d, sizeof b_d);
  c = kt_tensor(&e, ETK_FLOAT, 1, sc, NULL, c_d, sizeof c_d);
  out = kt_tensor(&e, ETK_FLOAT, 2, sa, NULL, NULL, 0);
  bad_out = kt_tensor(&e, ETK_FLOAT, 2, s23, NULL, o_d, sizeof o_d);
  one = kt_int(&e, 1);
  CHECK_EQ_INT(kt_call(&e, "aten::add.out", KT_ARGS(a, b, one, out, out)),
               ETK_OK);
  CHECK_EQ_INT(
      kt_call(&e, "aten::add.out", KT_ARGS(b, c, one, bad_out, bad_out)),
      ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_STR(e.ctx.message,
               "aten::add.out: shapes [3] and [4] are not broadcastable");
  /* the planned out is [2,3], the broadcast result is [0,3] */
  CHECK_EQ_INT(
      kt_call(&e, "aten::add.out", KT_ARGS(a, b, one, bad_out, bad_out)),
      ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "out has shape [2, 3], expected [0, 3]"));
}

ETK_TEST(activations_against_formulas) {
  kt_env_t e;
  int32_t s[1] = {7};
  double x_v[7] = {-3, -1, -0.25, 0, 0.5, 1, 4}, want[7];
  float x_d[7], o_d[7];
  int x, out;
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 1, s, NULL, x_d, sizeof x_d, x_v);
  out = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, o_d, sizeof o_d);
  REQUIRE(kt_call(&e, "aten::relu.out", KT_ARGS(x, out, out)) == ETK_OK);
  for (int k = 0; k < 7; k++) want[k] = x_v[k] < 0 ? 0 : x_v[k];
  CHECK(kt_max_err(&e, out, want, 7) == 0.0);
  REQUIRE(kt_call(&e, "aten::sigmoid.out", KT_ARGS(x, out, out)) == ETK_OK);
  for (int k = 0; k < 7; k++) want[k] = exp(x_v[k]) / (exp(x_v[k]) + 1.0);
  CHECK(kt_max_err(&e, out, want, 7) < 1e-7);
  REQUIRE(kt_call(&e, "aten::tanh.out", KT_ARGS(x, out, out)) == ETK_OK);
  for (int k = 0; k < 7; k++)
    want[k] = (exp(2 * x_v[k]) - 1) / (exp(2 * x_v[k]) + 1);
  CHECK(kt_max_err(&e, out, want, 7) < 1e-6);
  {
    int none = kt_string(&e, "none"), tanh_mode = kt_string(&e, "tanh");
    REQUIRE(kt_call(&e, "aten::gelu.out", KT_ARGS(x, none, out, out)) ==
            ETK_OK);
    /* gelu(1) = Phi(1) = 0.841344746... */
    CHECK(fabs(o_d[5] - 0.8413447460685429) < 1e-6);
    CHECK(fabs(o_d[1] - (-1 + 0.8413447460685429)) < 1e-6);
    CHECK(o_d[3] == 0.0f);
    REQUIRE(kt_call(&e, "aten::gelu.out", KT_ARGS(x, tanh_mode, out, out)) ==
            ETK_OK);
    CHECK(fabs(o_d[5] - 0.8411919906082768) < 1e-6);
    {
      int bad = kt_string(&e, "fast");
      CHECK_EQ_INT(kt_call(&e, "aten::gelu.out", KT_ARGS(x, bad, out, out)),
                   ETK_E_INVALID_ARGUMENT);
      CHECK(kt_msg_has(&e, "approximate must be 'none' or 'tanh', got 'fast'"));
    }
  }
  {
    int lo = kt_double(&e, -0.5), hi = kt_int(&e, 1), none = kt_none(&e);
    REQUIRE(kt_call(&e, "aten::hardtanh.out", KT_ARGS(x, lo, hi, out, out)) ==
            ETK_OK);
    for (int k = 0; k < 7; k++)
      want[k] = x_v[k] < -0.5 ? -0.5 : (x_v[k] > 1 ? 1 : x_v[k]);
    CHECK(kt_max_err(&e, out, want, 7) == 0.0);
    REQUIRE(kt_call(&e, "aten::clamp.out", KT_ARGS(x, none, hi, out, out)) ==
            ETK_OK);
    for (int k = 0; k < 7; k++) want[k] = x_v[k] > 1 ? 1 : x_v[k];
    CHECK(kt_max_err(&e, out, want, 7) == 0.0);
    CHECK_EQ_INT(
        kt_call(&e, "aten::clamp.out", KT_ARGS(x, none, none, out, out)),
        ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "at least one of min and max must not be None"));
  }
  {
    int slope = kt_double(&e, 0.1);
    REQUIRE(kt_call(&e, "aten::leaky_relu.out", KT_ARGS(x, slope, out, out)) ==
            ETK_OK);
    for (int k = 0; k < 7; k++) want[k] = x_v[k] > 0 ? x_v[k] : 0.1 * x_v[k];
    CHECK(kt_max_err(&e, out, want, 7) < 1e-7);
  }
  REQUIRE(kt_call(&e, "aten::neg.out", KT_ARGS(x, out, out)) == ETK_OK);
  CHECK(o_d[0] == 3 && o_d[6] == -4);
  REQUIRE(kt_call(&e, "aten::abs.out", KT_ARGS(x, out, out)) == ETK_OK);
  CHECK(o_d[0] == 3 && o_d[2] == 0.25f);
  REQUIRE(kt_call(&e, "aten::exp.out", KT_ARGS(x, out, out)) == ETK_OK);
  CHECK(fabs(o_d[5] - 2.718281828) < 1e-6);
  REQUIRE(kt_call(&e, "aten::sqrt.out", KT_ARGS(x, out, out)) == ETK_OK);
  CHECK(isnan(o_d[0]) && o_d[6] == 2);
  REQUIRE(kt_call(&e, "aten::rsqrt.out", KT_ARGS(x, out, out)) == ETK_OK);
  CHECK(o_d[6] == 0.5f && isinf(o_d[3]));
  REQUIRE(kt_call(&e, "aten::log.out", KT_ARGS(x, out, out)) == ETK_OK);
  CHECK(o_d[5] == 0.0f && isinf(o_d[3]) && o_d[3] < 0);
}

ETK_TEST(unary_types_and_nan) {
  kt_env_t e;
  int32_t s[1] = {3};
  int64_t l_d[3] = {-5, 0, 7}, lo_d[3];
  float f_d[3], n_d[3] = {NAN, -1, 2};
  int l, lo, f, n;
  kt_init(&e);
  l = kt_tensor(&e, ETK_LONG, 1, s, NULL, l_d, sizeof l_d);
  lo = kt_tensor(&e, ETK_LONG, 1, s, NULL, lo_d, sizeof lo_d);
  f = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, f_d, sizeof f_d);
  n = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, n_d, sizeof n_d);
  REQUIRE(kt_call(&e, "aten::relu.out", KT_ARGS(l, lo, lo)) == ETK_OK);
  CHECK(lo_d[0] == 0 && lo_d[1] == 0 && lo_d[2] == 7);
  /* sigmoid of integers promotes; the out must be floating */
  REQUIRE(kt_call(&e, "aten::sigmoid.out", KT_ARGS(l, f, f)) == ETK_OK);
  CHECK(fabs(f_d[1] - 0.5) < 1e-7);
  CHECK_EQ_INT(kt_call(&e, "aten::sigmoid.out", KT_ARGS(l, lo, lo)),
               ETK_E_INVALID_ARGUMENT);
  /* relu keeps the dtype: LONG in, FLOAT out is a mismatch */
  CHECK_EQ_INT(kt_call(&e, "aten::relu.out", KT_ARGS(l, f, f)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "out has dtype FLOAT but self has dtype LONG"));
  CHECK_EQ_INT(
      kt_call(&e, "aten::gelu.out", KT_ARGS(l, kt_string(&e, "none"), f, f)),
      ETK_E_UNSUPPORTED);
  /* NaN passes through relu and clamp */
  REQUIRE(kt_call(&e, "aten::relu.out", KT_ARGS(n, f, f)) == ETK_OK);
  CHECK(isnan(f_d[0]) && f_d[1] == 0 && f_d[2] == 2);
  REQUIRE(kt_call(&e, "aten::hardtanh.out",
                  KT_ARGS(n, kt_double(&e, -1), kt_double(&e, 1), f, f)) ==
          ETK_OK);
  CHECK(isnan(f_d[0]) && f_d[2] == 1);
  /* clamp of a LONG tensor with integer bounds stays integer */
  REQUIRE(kt_call(&e, "aten::clamp.out",
                  KT_ARGS(l, kt_int(&e, -1), kt_int(&e, 3), lo, lo)) == ETK_OK);
  CHECK(lo_d[0] == -1 && lo_d[1] == 0 && lo_d[2] == 3);
}

ETK_TEST(unary_channels_last_in_contiguous_out) {
  kt_env_t e;
  int32_t s[4] = {1, 3, 2, 2};
  float x_d[12], o_d[12];
  double x_v[12], want[12];
  int x, out;
  for (int k = 0; k < 12; k++) x_v[k] = (k % 5) - 2.0;
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 4, s, kChannelsLast, x_d, sizeof x_d, x_v);
  out = kt_tensor(&e, ETK_FLOAT, 4, s, NULL, o_d, sizeof o_d);
  REQUIRE(kt_call(&e, "aten::relu.out", KT_ARGS(x, out, out)) == ETK_OK);
  for (int k = 0; k < 12; k++) want[k] = x_v[k] > 0 ? x_v[k] : 0;
  CHECK(kt_max_err(&e, out, want, 12) == 0.0);
  /* contiguous out: the physical order is the logical order */
  for (int k = 0; k < 12; k++) CHECK(o_d[k] == (float)want[k]);
}

/* Reference softmax along dim 1 of a [A, B, C] logical array. */
static void softmax_ref(const double *x, int A, int B, int C, bool log_form,
                        double *y) {
  for (int a = 0; a < A; a++)
    for (int c = 0; c < C; c++) {
      double m = -INFINITY, s = 0;
      for (int b = 0; b < B; b++) m = fmax(m, x[(a * B + b) * C + c]);
      for (int b = 0; b < B; b++) s += exp(x[(a * B + b) * C + c] - m);
      for (int b = 0; b < B; b++) {
        double v = x[(a * B + b) * C + c];
        y[(a * B + b) * C + c] = log_form ? (v - m) - log(s) : exp(v - m) / s;
      }
    }
}

ETK_TEST(softmax_hand_values_and_stability) {
  kt_env_t e;
  int32_t s[2] = {2, 3};
  float x_d[6] = {1, 2, 3, 1000, 1001, 1002}, o_d[6];
  int x, out, dim, f;
  kt_init(&e);
  x = kt_tensor(&e, ETK_FLOAT, 2, s, NULL, x_d, sizeof x_d);
  out = kt_tensor(&e, ETK_FLOAT, 2, s, NULL, o_d, sizeof o_d);
  dim = kt_int(&e, -1);
  f = kt_bool(&e, false);
  REQUIRE(kt_call(&e, "aten::_softmax.out", KT_ARGS(x, dim, f, out, out)) ==
          ETK_OK);
  CHECK(fabs(o_d[0] - 0.09003057) < 1e-7);
  CHECK(fabs(o_d[1] - 0.24472847) < 1e-7);
  CHECK(fabs(o_d[2] - 0.66524096) < 1e-7);
  /* shifting by 1000 changes nothing and does not overflow */
  CHECK(fabs(o_d[5] - 0.66524096) < 1e-7);
  REQUIRE(kt_call(&e, "aten::_log_softmax.out", KT_ARGS(x, dim, f, out, out)) ==
          ETK_OK);
  CHECK(fabs(o_d[2] - log(0.66524096)) < 1e-6);
  CHECK(fabs(o_d[3] - log(0.09003057)) < 1e-6);
  {
    int t = kt_bool(&e, true);
    CHECK_EQ_INT(
        kt_call(&e, "aten::_softmax.out", KT_ARGS(x, dim, t, out, out)),
        ETK_E_UNSUPPORTED);
  }
  {
    int bad = kt_int(&e, 2);
    CHECK_EQ_INT(
        kt_call(&e, "aten::_softmax.out", KT_ARGS(x, bad, f, out, out)),
        ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "dim 2 out of range for a 2-dim tensor"));
  }
  x_d[4] = NAN;
  REQUIRE(kt_call(&e, "aten::_softmax.out", KT_ARGS(x, dim, f, out, out)) ==
          ETK_OK);
  CHECK(isnan(o_d[3]) && isnan(o_d[5]) && !isnan(o_d[0]));
}

ETK_TEST(softmax_middle_dim_non_contiguous) {
  kt_env_t e;
  int32_t s[3] = {2, 3, 4};
  uint8_t order[3] = {2, 0, 1};
  float x_d[24], o_d[24];
  double x_v[24], want[24];
  int x, out, dim, none;
  for (int k = 0; k < 24; k++) x_v[k] = sin(k * 0.7) * 3;
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 3, s, order, x_d, sizeof x_d, x_v);
  out = kt_tensor(&e, ETK_FLOAT, 3, s, NULL, o_d, sizeof o_d);
  dim = kt_int(&e, 1);
  none = kt_none(&e);
  REQUIRE(kt_call(&e, "aten::softmax.int_out",
                  KT_ARGS(x, dim, none, out, out)) == ETK_OK);
  softmax_ref(x_v, 2, 3, 4, false, want);
  CHECK(kt_max_err(&e, out, want, 24) < 1e-6);
  REQUIRE(kt_call(&e, "aten::log_softmax.int_out",
                  KT_ARGS(x, dim, none, out, out)) == ETK_OK);
  softmax_ref(x_v, 2, 3, 4, true, want);
  CHECK(kt_max_err(&e, out, want, 24) < 1e-6);
}

ETK_TEST_MAIN()
