/*
 * test_kernel_shape.c - copies and views (view/permute/transpose/expand/
 * squeeze/unsqueeze/clone/_to_copy/dim-order ops), indexing (cat, stack,
 * slice, select, index_select, embedding, constant_pad_nd), fills and
 * reductions, with hand-worked values and index-formula references.
 */
#include <math.h>

#include "etk_test.h"
#include "kernel_harness.h"

static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};

static void iota(double *v, int n, double start) {
  for (int k = 0; k < n; k++) v[k] = start + k;
}

ETK_TEST(view_copy_reshapes_in_logical_order) {
  kt_env_t e;
  int32_t xs[4] = {1, 2, 2, 3}, ys[2] = {3, 4};
  float x_d[12], y_d[12];
  double x_v[12];
  int64_t size[2] = {-1, 4};
  int x, y;
  iota(x_v, 12, 0);
  kt_init(&e);
  /* channels-last input: memory order differs from logical order */
  x = kt_tensor_from(&e, ETK_FLOAT, 4, xs, kChannelsLast, x_d, sizeof x_d, x_v);
  y = kt_tensor(&e, ETK_FLOAT, 2, ys, NULL, y_d, sizeof y_d);
  REQUIRE(kt_call(&e, "aten::view_copy.out",
                  KT_ARGS(x, kt_int_list(&e, 2, size), y, y)) == ETK_OK);
  for (int k = 0; k < 12; k++) CHECK(y_d[k] == (float)k);
  {
    int64_t bad[2] = {5, -1}, two[2] = {-1, -1};
    CHECK_EQ_INT(kt_call(&e, "aten::view_copy.out",
                         KT_ARGS(x, kt_int_list(&e, 2, bad), y, y)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "cannot infer the -1 dim for 12 elements"));
    CHECK_EQ_INT(kt_call(&e, "aten::view_copy.out",
                         KT_ARGS(x, kt_int_list(&e, 2, two), y, y)),
                 ETK_E_INVALID_ARGUMENT);
  }
  /* dtype must match */
  {
    int32_t l_d[12];
    int l = kt_tensor(&e, ETK_INT, 2, ys, NULL, l_d, sizeof l_d);
    CHECK_EQ_INT(kt_call(&e, "aten::view_copy.out",
                         KT_ARGS(x, kt_int_list(&e, 2, size), l, l)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "out has dtype INT but self has dtype FLOAT"));
  }
}

ETK_TEST(permute_transpose_t) {
  kt_env_t e;
  int32_t xs[3] = {2, 3, 4}, ps[3] = {4, 2, 3}, ts[3] = {4, 3, 2};
  float x_d[24], p_d[24];
  double x_v[24], want[24];
  int64_t dims[3] = {2, 0, -2};
  int x, p, t;
  iota(x_v, 24, 1);
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 3, xs, NULL, x_d, sizeof x_d, x_v);
  p = kt_tensor(&e, ETK_FLOAT, 3, ps, NULL, p_d, sizeof p_d);
  REQUIRE(kt_call(&e, "aten::permute_copy.out",
                  KT_ARGS(x, kt_int_list(&e, 3, dims), p, p)) == ETK_OK);
  /* out[k][i][j] = x[i][j][k] */
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++)
        want[(k * 2 + i) * 3 + j] = x_v[(i * 3 + j) * 4 + k];
  CHECK(kt_max_err(&e, p, want, 24) == 0.0);
  {
    int64_t rep[3] = {0, 0, 1};
    CHECK_EQ_INT(kt_call(&e, "aten::permute_copy.out",
                         KT_ARGS(x, kt_int_list(&e, 3, rep), p, p)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "dims repeats dim 0"));
  }
  /* transpose(0, 2) into an output with a non-default dim order */
  t = kt_tensor(&e, ETK_FLOAT, 3, ts, (uint8_t[]){1, 0, 2}, p_d, sizeof p_d);
  REQUIRE(kt_call(&e, "aten::transpose_copy.int_out",
                  KT_ARGS(x, kt_int(&e, 0), kt_int(&e, -1), t, t)) == ETK_OK);
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 2; i++)
        want[(k * 3 + j) * 2 + i] = x_v[(i * 3 + j) * 4 + k];
  CHECK(kt_max_err(&e, t, want, 24) == 0.0);
  {
    int32_t ms[2] = {2, 3}, mt[2] = {3, 2};
    int64_t m_d[6] = {1, 2, 3, 4, 5, 6}, o_d[6];
    int m = kt_tensor(&e, ETK_LONG, 2, ms, NULL, m_d, sizeof m_d);
    int o = kt_tensor(&e, ETK_LONG, 2, mt, NULL, o_d, sizeof o_d);
    REQUIRE(kt_call(&e, "aten::t_copy.out", KT_ARGS(m, o, o)) == ETK_OK);
    CHECK(o_d[0] == 1 && o_d[1] == 4 && o_d[2] == 2 && o_d[5] == 6);
  }
}

ETK_TEST(expand_squeeze_unsqueeze) {
  kt_env_t e;
  int32_t xs[2] = {3, 1}, es[3] = {2, 3, 4};
  float x_d[3] = {1, 2, 3}, e_d[24];
  double want[24];
  int64_t size[3] = {2, -1, 4};
  int x, ex;
  kt_init(&e);
  x = kt_tensor(&e, ETK_FLOAT, 2, xs, NULL, x_d, sizeof x_d);
  ex = kt_tensor(&e, ETK_FLOAT, 3, es, NULL, e_d, sizeof e_d);
  REQUIRE(kt_call(&e, "aten::expand_copy.out",
                  KT_ARGS(x, kt_int_list(&e, 3, size), kt_bool(&e, false), ex,
                          ex)) == ETK_OK);
  for (int k = 0; k < 24; k++) want[k] = x_d[(k / 4) % 3];
  CHECK(kt_max_err(&e, ex, want, 24) == 0.0);
  {
    int64_t bad[2] = {4, 4};
    CHECK_EQ_INT(kt_call(&e, "aten::expand_copy.out",
                         KT_ARGS(x, kt_int_list(&e, 2, bad), kt_bool(&e, false),
                                 ex, ex)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "cannot expand dim 0 of size 3 to 4"));
  }
  {
    int32_t us[3] = {3, 1, 1}, ss[1] = {3};
    float u_d[3], s_d[3];
    int u = kt_tensor(&e, ETK_FLOAT, 3, us, NULL, u_d, sizeof u_d);
    int s = kt_tensor(&e, ETK_FLOAT, 1, ss, NULL, s_d, sizeof s_d);
    int64_t dims[2] = {1, 2};
    REQUIRE(kt_call(&e, "aten::unsqueeze_copy.out",
                    KT_ARGS(x, kt_int(&e, -1), u, u)) == ETK_OK);
    CHECK(u_d[0] == 1 && u_d[2] == 3);
    REQUIRE(kt_call(&e, "aten::squeeze_copy.dims_out",
                    KT_ARGS(u, kt_int_list(&e, 2, dims), s, s)) == ETK_OK);
    CHECK(s_d[1] == 2);
    REQUIRE(kt_call(&e, "aten::squeeze_copy.dim_out",
                    KT_ARGS(x, kt_int(&e, 1), s, s)) == ETK_OK);
    /* squeezing a dim whose size is not 1 leaves it: out stays [3, 1] */
    CHECK_EQ_INT(kt_call(&e, "aten::squeeze_copy.dim_out",
                         KT_ARGS(x, kt_int(&e, 0), s, s)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "out has shape [3], expected [3, 1]"));
  }
}

ETK_TEST(clone_dim_order_and_to_copy) {
  kt_env_t e;
  int32_t xs[4] = {1, 3, 2, 2};
  float x_d[12], y_d[12];
  double x_v[12];
  int64_t cl[4] = {0, 2, 3, 1}, contig[4] = {0, 1, 2, 3};
  int x, y;
  for (int k = 0; k < 12; k++) x_v[k] = k * 0.5 - 2.75;
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 4, xs, NULL, x_d, sizeof x_d, x_v);
  y = kt_tensor(&e, ETK_FLOAT, 4, xs, kChannelsLast, y_d, sizeof y_d);
  /* contiguous -> channels-last, as model.pte's _clone_dim_order does */
  REQUIRE(kt_call(&e, "dim_order_ops::_clone_dim_order.out",
                  KT_ARGS(x, kt_bool(&e, false), kt_int_list(&e, 4, cl), y,
                          y)) == ETK_OK);
  CHECK(kt_max_err(&e, y, x_v, 12) == 0.0);
  /* physical NHWC order: element (c=1, h=0, w=0) sits at offset 1 */
  CHECK(y_d[1] == (float)x_v[4]);
  CHECK_EQ_INT(
      kt_call(&e, "dim_order_ops::_clone_dim_order.out",
              KT_ARGS(x, kt_bool(&e, false), kt_int_list(&e, 4, contig), y, y)),
      ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "dim_order argument does not match out's dim_order"));
  /* _to_dim_order_copy converts dtype: float -> int32 truncates */
  {
    int32_t i_d[12];
    int i = kt_tensor(&e, ETK_INT, 4, xs, NULL, i_d, sizeof i_d);
    REQUIRE(kt_call(&e, "dim_order_ops::_to_dim_order_copy.out",
                    KT_ARGS(y, kt_bool(&e, false), kt_none(&e), i, i)) ==
            ETK_OK);
    for (int k = 0; k < 12; k++) CHECK_EQ_INT(i_d[k], (int32_t)x_v[k]);
    /* _clone_dim_order does not convert */
    CHECK_EQ_INT(kt_call(&e, "dim_order_ops::_clone_dim_order.out",
                         KT_ARGS(y, kt_bool(&e, false), kt_none(&e), i, i)),
                 ETK_E_INVALID_ARGUMENT);
  }
  /* _to_copy: int64 -> bool and -> float; clone keeps the dtype */
  {
    int32_t s[1] = {4};
    int64_t l_d[4] = {0, 3, -1, 0};
    uint8_t b_d[4];
    float f_d[4];
    int l = kt_tensor(&e, ETK_LONG, 1, s, NULL, l_d, sizeof l_d);
    int b = kt_tensor(&e, ETK_BOOL, 1, s, NULL, b_d, sizeof b_d);
    int f = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, f_d, sizeof f_d);
    REQUIRE(kt_call(&e, "aten::_to_copy.out",
                    KT_ARGS(l, kt_bool(&e, false), kt_none(&e), b, b)) ==
            ETK_OK);
    CHECK(b_d[0] == 0 && b_d[1] == 1 && b_d[2] == 1 && b_d[3] == 0);
    REQUIRE(kt_call(&e, "aten::_to_copy.out",
                    KT_ARGS(l, kt_bool(&e, false), kt_none(&e), f, f)) ==
            ETK_OK);
    CHECK(f_d[1] == 3.0f && f_d[2] == -1.0f);
    REQUIRE(kt_call(&e, "aten::clone.out", KT_ARGS(f, kt_none(&e), f, f)) ==
            ETK_OK);
  }
  /* copies of a dtype the kernels do not compute with still work */
  {
    int32_t s[1] = {3};
    uint16_t h_in[3] = {0x3c00, 0x4000, 0xc000}, h_out[3] = {0};
    int hi = kt_tensor(&e, ETK_HALF, 1, s, NULL, h_in, sizeof h_in);
    int ho = kt_tensor(&e, ETK_HALF, 1, s, NULL, h_out, sizeof h_out);
    REQUIRE(kt_call(&e, "aten::clone.out", KT_ARGS(hi, kt_none(&e), ho, ho)) ==
            ETK_OK);
    CHECK_EQ_MEM(h_in, h_out, sizeof h_in);
    {
      float f3[3];
      int fo = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, f3, sizeof f3);
      CHECK_EQ_INT(
          kt_call(&e, "aten::_to_copy.out",
                  KT_ARGS(hi, kt_bool(&e, false), kt_none(&e), fo, fo)),
          ETK_E_UNSUPPORTED);
      CHECK(kt_msg_has(&e, "dtype HALF not supported for self"));
    }
  }
}

ETK_TEST(cat_and_stack) {
  kt_env_t e;
  int32_t as[2] = {2, 2}, bs[2] = {2, 3}, es[1] = {0}, os[2] = {2, 5};
  float a_d[4] = {1, 2, 3, 4}, o_d[10];
  int32_t b_d[6] = {10, 20, 30, 40, 50, 60};
  double want[10] = {1, 2, 10, 20, 30, 3, 4, 40, 50, 60};
  int a, b, empty, out, list;
  kt_init(&e);
  a = kt_tensor(&e, ETK_FLOAT, 2, as, NULL, a_d, sizeof a_d);
  b = kt_tensor(&e, ETK_INT, 2, bs, NULL, b_d, sizeof b_d); /* converted */
  empty = kt_tensor(&e, ETK_FLOAT, 1, es, NULL, NULL, 0);   /* skipped */
  /* out stored column-major: dim order (1, 0) */
  out = kt_tensor(&e, ETK_FLOAT, 2, os, (uint8_t[]){1, 0}, o_d, sizeof o_d);
  list = kt_tensor_list(&e, 3, (int[]){a, empty, b});
  REQUIRE(kt_call(&e, "aten::cat.out",
                  KT_ARGS(list, kt_int(&e, -1), out, out)) == ETK_OK);
  CHECK(kt_max_err(&e, out, want, 10) == 0.0);
  CHECK_EQ_INT(
      kt_call(&e, "aten::cat.out", KT_ARGS(list, kt_int(&e, 0), out, out)),
      ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "tensors[2] has size 3 at dim 1, expected 2"));
  {
    int bad = kt_tensor_list(&e, 1, (int[]){kt_int(&e, 3)});
    CHECK_EQ_INT(
        kt_call(&e, "aten::cat.out", KT_ARGS(bad, kt_int(&e, 0), out, out)),
        ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "tensors item 0 is Int, not a Tensor"));
  }
  /* stack two [2,2] along dim 1 -> [2, 2, 2] */
  {
    int32_t ss[3] = {2, 2, 2};
    float s_d[8], c_d[4] = {5, 6, 7, 8};
    double sw[8] = {1, 2, 5, 6, 3, 4, 7, 8};
    int c = kt_tensor(&e, ETK_FLOAT, 2, as, NULL, c_d, sizeof c_d);
    int s = kt_tensor(&e, ETK_FLOAT, 3, ss, NULL, s_d, sizeof s_d);
    int l2 = kt_tensor_list(&e, 2, (int[]){a, c});
    REQUIRE(kt_call(&e, "aten::stack.out", KT_ARGS(l2, kt_int(&e, 1), s, s)) ==
            ETK_OK);
    CHECK(kt_max_err(&e, s, sw, 8) == 0.0);
  }
}

ETK_TEST(slice_and_select) {
  kt_env_t e;
  int32_t xs[2] = {3, 7};
  float x_d[21], y_d[9];
  double x_v[21], want[9];
  int x, y;
  iota(x_v, 21, 0);
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 2, xs, NULL, x_d, sizeof x_d, x_v);
  /* x[:, -6:100:2] -> columns 1, 3, 5 */
  {
    int32_t ys[2] = {3, 3};
    y = kt_tensor(&e, ETK_FLOAT, 2, ys, NULL, y_d, sizeof y_d);
    REQUIRE(kt_call(&e, "aten::slice_copy.Tensor_out",
                    KT_ARGS(x, kt_int(&e, 1), kt_int(&e, -6), kt_int(&e, 100),
                            kt_int(&e, 2), y, y)) == ETK_OK);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) want[i * 3 + j] = x_v[i * 7 + 1 + 2 * j];
    CHECK(kt_max_err(&e, y, want, 9) == 0.0);
  }
  /* x[1:, None:None] with default start/end; step 0 is an error */
  {
    int32_t ys[2] = {2, 7};
    float z_d[14];
    int z = kt_tensor(&e, ETK_FLOAT, 2, ys, NULL, z_d, sizeof z_d);
    REQUIRE(kt_call(&e, "aten::slice_copy.Tensor_out",
                    KT_ARGS(x, kt_int(&e, 0), kt_int(&e, 1), kt_none(&e),
                            kt_int(&e, 1), z, z)) == ETK_OK);
    CHECK(z_d[0] == 7 && z_d[13] == 20);
    CHECK_EQ_INT(kt_call(&e, "aten::slice_copy.Tensor_out",
                         KT_ARGS(x, kt_int(&e, 0), kt_none(&e), kt_none(&e),
                                 kt_int(&e, 0), z, z)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "step must be >= 1, got 0"));
  }
  /* an empty slice */
  {
    int32_t ys[2] = {0, 7};
    int z = kt_tensor(&e, ETK_FLOAT, 2, ys, NULL, NULL, 0);
    REQUIRE(kt_call(&e, "aten::slice_copy.Tensor_out",
                    KT_ARGS(x, kt_int(&e, 0), kt_int(&e, 5), kt_int(&e, 9),
                            kt_int(&e, 1), z, z)) == ETK_OK);
  }
  /* select column -1 and row 1 */
  {
    int32_t s3[1] = {3}, s7[1] = {7};
    float c_d[3], r_d[7];
    int c = kt_tensor(&e, ETK_FLOAT, 1, s3, NULL, c_d, sizeof c_d);
    int r = kt_tensor(&e, ETK_FLOAT, 1, s7, NULL, r_d, sizeof r_d);
    REQUIRE(kt_call(&e, "aten::select_copy.int_out",
                    KT_ARGS(x, kt_int(&e, 1), kt_int(&e, -1), c, c)) == ETK_OK);
    CHECK(c_d[0] == 6 && c_d[1] == 13 && c_d[2] == 20);
    REQUIRE(kt_call(&e, "aten::select_copy.int_out",
                    KT_ARGS(x, kt_int(&e, 0), kt_int(&e, 1), r, r)) == ETK_OK);
    CHECK(r_d[0] == 7 && r_d[6] == 13);
    CHECK_EQ_INT(kt_call(&e, "aten::select_copy.int_out",
                         KT_ARGS(x, kt_int(&e, 0), kt_int(&e, 3), r, r)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "index 3 out of range for dim 0 of size 3"));
  }
}

ETK_TEST(embedding_and_index_select) {
  kt_env_t e;
  int32_t ws[2] = {4, 3}, is[2] = {2, 2}, os[3] = {2, 2, 3};
  float w_d[12], o_d[12];
  double w_v[12], want[12];
  int64_t i_d[4] = {3, 0, 0, 2};
  int w, ix, out, rest[3];
  iota(w_v, 12, 100);
  kt_init(&e);
  w = kt_tensor_from(&e, ETK_FLOAT, 2, ws, NULL, w_d, sizeof w_d, w_v);
  ix = kt_tensor(&e, ETK_LONG, 2, is, NULL, i_d, sizeof i_d);
  out = kt_tensor(&e, ETK_FLOAT, 3, os, NULL, o_d, sizeof o_d);
  rest[0] = kt_int(&e, -1);
  rest[1] = kt_bool(&e, false);
  rest[2] = kt_bool(&e, false);
  REQUIRE(kt_call(&e, "aten::embedding.out",
                  KT_ARGS(w, ix, rest[0], rest[1], rest[2], out, out)) ==
          ETK_OK);
  for (int k = 0; k < 4; k++)
    for (int d = 0; d < 3; d++) want[k * 3 + d] = w_v[i_d[k] * 3 + d];
  CHECK(kt_max_err(&e, out, want, 12) == 0.0);
  /* int32 indices, transposed index tensor and a permuted out */
  {
    int32_t j_d[4] = {1, 2, 3, 0};
    uint8_t t2[2] = {1, 0}, o3[3] = {2, 0, 1};
    int jx = kt_tensor(&e, ETK_INT, 2, is, t2, j_d, sizeof j_d);
    int o2 = kt_tensor(&e, ETK_FLOAT, 3, os, o3, o_d, sizeof o_d);
    /* logical j = [[1, 3], [2, 0]] */
    int32_t logical[4] = {1, 3, 2, 0};
    REQUIRE(kt_call(&e, "aten::embedding.out",
                    KT_ARGS(w, jx, rest[0], rest[1], rest[2], o2, o2)) ==
            ETK_OK);
    for (int k = 0; k < 4; k++)
      for (int d = 0; d < 3; d++) want[k * 3 + d] = w_v[logical[k] * 3 + d];
    CHECK(kt_max_err(&e, o2, want, 12) == 0.0);
  }
  i_d[2] = 4;
  CHECK_EQ_INT(kt_call(&e, "aten::embedding.out",
                       KT_ARGS(w, ix, rest[0], rest[1], rest[2], out, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "index 4 out of range [0, 4)"));
  i_d[2] = -1;
  CHECK_EQ_INT(kt_call(&e, "aten::embedding.out",
                       KT_ARGS(w, ix, rest[0], rest[1], rest[2], out, out)),
               ETK_E_INVALID_ARGUMENT);
  {
    float f_d[4];
    int fx = kt_tensor(&e, ETK_FLOAT, 2, is, NULL, f_d, sizeof f_d);
    CHECK_EQ_INT(kt_call(&e, "aten::embedding.out",
                         KT_ARGS(w, fx, rest[0], rest[1], rest[2], out, out)),
                 ETK_E_UNSUPPORTED);
    CHECK(kt_msg_has(&e, "dtype FLOAT not supported for indices"));
  }
  /* index_select rows 2, 0 of w */
  {
    int32_t s2[1] = {2}, ss[2] = {2, 3};
    int64_t r_d[2] = {2, 0};
    float o6[6];
    int r = kt_tensor(&e, ETK_LONG, 1, s2, NULL, r_d, sizeof r_d);
    int o = kt_tensor(&e, ETK_FLOAT, 2, ss, NULL, o6, sizeof o6);
    REQUIRE(kt_call(&e, "aten::index_select.out",
                    KT_ARGS(w, kt_int(&e, 0), r, o, o)) == ETK_OK);
    CHECK(o6[0] == 106 && o6[3] == 100 && o6[5] == 102);
  }
}

ETK_TEST(constant_pad) {
  kt_env_t e;
  int32_t xs[2] = {2, 3}, ys[2] = {3, 4};
  float x_d[6] = {1, 2, 3, 4, 5, 6}, y_d[12];
  /* pad last dim (1, 0), first dim (0, 1) */
  int64_t pad[4] = {1, 0, 0, 1};
  double want[12] = {9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9};
  int x, y;
  kt_init(&e);
  x = kt_tensor(&e, ETK_FLOAT, 2, xs, NULL, x_d, sizeof x_d);
  y = kt_tensor(&e, ETK_FLOAT, 2, ys, NULL, y_d, sizeof y_d);
  REQUIRE(kt_call(&e, "aten::constant_pad_nd.out",
                  KT_ARGS(x, kt_int_list(&e, 4, pad), kt_double(&e, 9), y,
                          y)) == ETK_OK);
  CHECK(kt_max_err(&e, y, want, 12) == 0.0);
  /* negative padding crops: last dim (-1, 1) -> [2, 3, 0] per row */
  {
    int64_t crop[2] = {-1, 1};
    float c_d[6];
    double cw[6] = {2, 3, 0, 5, 6, 0};
    int c = kt_tensor(&e, ETK_FLOAT, 2, xs, NULL, c_d, sizeof c_d);
    REQUIRE(kt_call(&e, "aten::constant_pad_nd.out",
                    KT_ARGS(x, kt_int_list(&e, 2, crop), kt_int(&e, 0), c,
                            c)) == ETK_OK);
    CHECK(kt_max_err(&e, c, cw, 6) == 0.0);
  }
  {
    int64_t odd[3] = {1, 1, 1};
    CHECK_EQ_INT(
        kt_call(&e, "aten::constant_pad_nd.out",
                KT_ARGS(x, kt_int_list(&e, 3, odd), kt_int(&e, 0), y, y)),
        ETK_E_INVALID_ARGUMENT);
  }
}

ETK_TEST(fills) {
  kt_env_t e;
  int32_t s[2] = {2, 3};
  float f_d[6];
  int64_t l_d[6];
  uint8_t b_d[6];
  int64_t size[2] = {2, 3};
  int f, l, b;
  kt_init(&e);
  f = kt_tensor(&e, ETK_FLOAT, 2, s, NULL, f_d, sizeof f_d);
  l = kt_tensor(&e, ETK_LONG, 2, s, NULL, l_d, sizeof l_d);
  b = kt_tensor(&e, ETK_BOOL, 2, s, NULL, b_d, sizeof b_d);
  REQUIRE(kt_call(&e, "aten::full.out",
                  KT_ARGS(kt_int_list(&e, 2, size), kt_double(&e, 2.5), f,
                          f)) == ETK_OK);
  for (int k = 0; k < 6; k++) CHECK(f_d[k] == 2.5f);
  REQUIRE(kt_call(&e, "aten::full.out",
                  KT_ARGS(kt_int_list(&e, 2, size), kt_double(&e, -2.7), l,
                          l)) == ETK_OK);
  for (int k = 0; k < 6; k++) CHECK_EQ_INT(l_d[k], -2);
  REQUIRE(kt_call(&e, "aten::full.out",
                  KT_ARGS(kt_int_list(&e, 2, size), kt_int(&e, 5), b, b)) ==
          ETK_OK);
  for (int k = 0; k < 6; k++) CHECK(b_d[k] == 1);
  REQUIRE(kt_call(&e, "aten::zeros.out",
                  KT_ARGS(kt_int_list(&e, 2, size), f, f)) == ETK_OK);
  for (int k = 0; k < 6; k++) CHECK(f_d[k] == 0.0f);
  REQUIRE(kt_call(&e, "aten::ones.out",
                  KT_ARGS(kt_int_list(&e, 2, size), l, l)) == ETK_OK);
  for (int k = 0; k < 6; k++) CHECK_EQ_INT(l_d[k], 1);
  REQUIRE(kt_call(&e, "aten::full_like.out",
                  KT_ARGS(l, kt_int(&e, 7), kt_none(&e), f, f)) == ETK_OK);
  for (int k = 0; k < 6; k++) CHECK(f_d[k] == 7.0f);
  {
    int64_t wrong[1] = {6};
    CHECK_EQ_INT(kt_call(&e, "aten::zeros.out",
                         KT_ARGS(kt_int_list(&e, 1, wrong), f, f)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(
        kt_msg_has(&e, "aten::zeros.out: out has shape [2, 3], expected [6]"));
  }
  {
    double d0;
    int z = kt_tensor(&e, ETK_DOUBLE, 0, NULL, NULL, &d0, sizeof d0);
    REQUIRE(kt_call(&e, "aten::scalar_tensor.out",
                    KT_ARGS(kt_double(&e, 0.125), z, z)) == ETK_OK);
    CHECK(d0 == 0.125);
  }
}

ETK_TEST(sum_and_mean) {
  kt_env_t e;
  int32_t xs[3] = {2, 3, 4};
  uint8_t order[3] = {2, 1, 0};
  float x_d[24];
  double x_v[24];
  int x;
  for (int k = 0; k < 24; k++) x_v[k] = k * 0.5 - 3;
  kt_init(&e);
  x = kt_tensor_from(&e, ETK_FLOAT, 3, xs, order, x_d, sizeof x_d, x_v);
  /* sum over dims (0, 2), keepdim -> [1, 3, 1] */
  {
    int32_t os[3] = {1, 3, 1};
    float o_d[3];
    double want[3] = {0, 0, 0};
    int64_t dims[2] = {0, -1};
    int o = kt_tensor(&e, ETK_FLOAT, 3, os, NULL, o_d, sizeof o_d);
    REQUIRE(kt_call(&e, "aten::sum.IntList_out",
                    KT_ARGS(x, kt_int_list(&e, 2, dims), kt_bool(&e, true),
                            kt_none(&e), o, o)) == ETK_OK);
    for (int k = 0; k < 24; k++) want[(k / 4) % 3] += x_v[k];
    CHECK(kt_max_err(&e, o, want, 3) < 1e-6);
    /* mean over dim 1 without keepdim -> [2, 4] */
    {
      int32_t ms[2] = {2, 4};
      float m_d[8];
      double mw[8] = {0};
      int64_t d1[1] = {1};
      int m = kt_tensor(&e, ETK_FLOAT, 2, ms, NULL, m_d, sizeof m_d);
      REQUIRE(kt_call(&e, "aten::mean.out",
                      KT_ARGS(x, kt_int_list(&e, 1, d1), kt_bool(&e, false),
                              kt_none(&e), m, m)) == ETK_OK);
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
          for (int k = 0; k < 4; k++)
            mw[i * 4 + k] += x_v[(i * 3 + j) * 4 + k] / 3;
      CHECK(kt_max_err(&e, m, mw, 8) < 1e-6);
    }
    /* mean of everything (dim None) into a 0-dim tensor */
    {
      float s0;
      double all = 0;
      int z = kt_tensor(&e, ETK_FLOAT, 0, NULL, NULL, &s0, sizeof s0);
      REQUIRE(kt_call(&e, "aten::mean.out",
                      KT_ARGS(x, kt_none(&e), kt_bool(&e, false), kt_none(&e),
                              z, z)) == ETK_OK);
      for (int k = 0; k < 24; k++) all += x_v[k] / 24;
      CHECK(fabs(s0 - all) < 1e-6);
    }
    {
      int64_t dup[2] = {1, -2};
      CHECK_EQ_INT(kt_call(&e, "aten::sum.IntList_out",
                           KT_ARGS(x, kt_int_list(&e, 2, dup),
                                   kt_bool(&e, true), kt_none(&e), o, o)),
                   ETK_E_INVALID_ARGUMENT);
      CHECK(kt_msg_has(&e, "dim 1 appears more than once"));
    }
  }
  /* integer sum accumulates in int64; mean of ints is rejected */
  {
    int32_t s[1] = {3};
    int32_t i_d[3] = {2000000000, 2000000000, 5};
    int64_t o;
    int i = kt_tensor(&e, ETK_INT, 1, s, NULL, i_d, sizeof i_d);
    int lo = kt_tensor(&e, ETK_LONG, 0, NULL, NULL, &o, sizeof o);
    REQUIRE(kt_call(&e, "aten::sum.IntList_out",
                    KT_ARGS(i, kt_none(&e), kt_bool(&e, false),
                            kt_int(&e, ETK_LONG), lo, lo)) == ETK_OK);
    CHECK_EQ_INT(o, 4000000005LL);
    CHECK_EQ_INT(kt_call(&e, "aten::mean.out",
                         KT_ARGS(i, kt_none(&e), kt_bool(&e, false),
                                 kt_none(&e), lo, lo)),
                 ETK_E_UNSUPPORTED);
  }
  /* empty reductions: sum 0, mean NaN */
  {
    int32_t es[2] = {0, 2}, os[1] = {2};
    float s_d[2], m_d[2];
    int64_t d0[1] = {0};
    int em = kt_tensor(&e, ETK_FLOAT, 2, es, NULL, NULL, 0);
    int so = kt_tensor(&e, ETK_FLOAT, 1, os, NULL, s_d, sizeof s_d);
    int mo = kt_tensor(&e, ETK_FLOAT, 1, os, NULL, m_d, sizeof m_d);
    REQUIRE(kt_call(&e, "aten::sum.IntList_out",
                    KT_ARGS(em, kt_int_list(&e, 1, d0), kt_bool(&e, false),
                            kt_none(&e), so, so)) == ETK_OK);
    CHECK(s_d[0] == 0 && s_d[1] == 0);
    REQUIRE(kt_call(&e, "aten::mean.out",
                    KT_ARGS(em, kt_int_list(&e, 1, d0), kt_bool(&e, false),
                            kt_none(&e), mo, mo)) == ETK_OK);
    CHECK(isnan(m_d[0]));
  }
}

ETK_TEST(argmax_argmin_amax) {
  kt_env_t e;
  int32_t xs[2] = {3, 4};
  float x_d[12] = {1,  7,   7,  -2,  /* tie: first */
                   0,  NAN, 3,  NAN, /* first NaN */
                   -5, -5,  -9, -1};
  int64_t o_d[3], o2_d[4], flat;
  int x, o, o2, z;
  kt_init(&e);
  x = kt_tensor(&e, ETK_FLOAT, 2, xs, NULL, x_d, sizeof x_d);
  {
    int32_t os[1] = {3};
    o = kt_tensor(&e, ETK_LONG, 1, os, NULL, o_d, sizeof o_d);
  }
  REQUIRE(kt_call(&e, "aten::argmax.out",
                  KT_ARGS(x, kt_int(&e, 1), kt_bool(&e, false), o, o)) ==
          ETK_OK);
  CHECK(o_d[0] == 1 && o_d[1] == 1 && o_d[2] == 3);
  REQUIRE(kt_call(&e, "aten::argmin.out",
                  KT_ARGS(x, kt_int(&e, -1), kt_bool(&e, false), o, o)) ==
          ETK_OK);
  CHECK(o_d[0] == 3 && o_d[1] == 1 && o_d[2] == 2);
  /* dim None: flat index into the whole tensor */
  z = kt_tensor(&e, ETK_LONG, 0, NULL, NULL, &flat, sizeof flat);
  REQUIRE(kt_call(&e, "aten::argmax.out",
                  KT_ARGS(x, kt_none(&e), kt_bool(&e, false), z, z)) == ETK_OK);
  CHECK_EQ_INT(flat, 5);
  /* keepdim over dim 0 -> [1, 4] */
  {
    int32_t os[2] = {1, 4};
    o2 = kt_tensor(&e, ETK_LONG, 2, os, NULL, o2_d, sizeof o2_d);
  }
  REQUIRE(kt_call(&e, "aten::argmin.out",
                  KT_ARGS(x, kt_int(&e, 0), kt_bool(&e, true), o2, o2)) ==
          ETK_OK);
  CHECK(o2_d[0] == 2 && o2_d[1] == 1 && o2_d[2] == 2 && o2_d[3] == 1);
  /* out must be int64 */
  {
    int32_t os[1] = {3};
    int32_t i_d[3];
    int bad = kt_tensor(&e, ETK_INT, 1, os, NULL, i_d, sizeof i_d);
    CHECK_EQ_INT(
        kt_call(&e, "aten::argmax.out",
                KT_ARGS(x, kt_int(&e, 1), kt_bool(&e, false), bad, bad)),
        ETK_E_UNSUPPORTED);
    CHECK(kt_msg_has(&e, "aten::argmax.out: dtype INT not supported for out"));
  }
  {
    int32_t es[1] = {0};
    int em = kt_tensor(&e, ETK_FLOAT, 1, es, NULL, NULL, 0);
    CHECK_EQ_INT(kt_call(&e, "aten::argmax.out",
                         KT_ARGS(em, kt_none(&e), kt_bool(&e, false), z, z)),
                 ETK_E_INVALID_ARGUMENT);
  }
  /* amax over dim 1 propagates NaN */
  {
    int32_t os[1] = {3};
    float a_d[3];
    int64_t d1[1] = {1};
    int a = kt_tensor(&e, ETK_FLOAT, 1, os, NULL, a_d, sizeof a_d);
    REQUIRE(kt_call(&e, "aten::amax.out",
                    KT_ARGS(x, kt_int_list(&e, 1, d1), kt_bool(&e, false), a,
                            a)) == ETK_OK);
    CHECK(a_d[0] == 7 && isnan(a_d[1]) && a_d[2] == -1);
    REQUIRE(kt_call(&e, "aten::amin.out",
                    KT_ARGS(x, kt_int_list(&e, 1, d1), kt_bool(&e, false), a,
                            a)) == ETK_OK);
    CHECK(a_d[0] == -2 && isnan(a_d[1]) && a_d[2] == -9);
  }
}

ETK_TEST_MAIN()
