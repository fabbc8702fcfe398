/*
 * test_kernel_rest.c - the kernels no other test called (issue 24: 22 of
 * 101): the copy aliases (alias_copy, detach_copy, lift_fresh_copy),
 * true division by a tensor (div.out) and by a scalar with a rounding mode
 * (div.Scalar_mode_out), fill.Scalar_out, _local_scalar_dense, and fifteen
 * executorch_prim scalar ops.
 *
 * Expected values are PyTorch's / Python's for the same arguments, worked
 * by hand (the prim ops are Python's int and float arithmetic, except mod,
 * which is C's remainder as ExecuTorch's kernel computes it); each kernel
 * also refuses one wrong argument with its message.  The last case checks
 * that every kernel of the registry has a name some test file calls, so a
 * kernel added without a test is caught here.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "kernel_harness.h"

ETK_TEST(copy_aliases_copy_values_and_check_shapes) {
  static const char *const ops[] = {"aten::alias_copy.out",
                                    "aten::detach_copy.out",
                                    "aten::lift_fresh_copy.out"};
  for (size_t k = 0; k < 3; k++) {
    kt_env_t e;
    int32_t s[2] = {2, 3}, s_bad[2] = {3, 2};
    float a_d[6], o_d[6] = {0};
    double v[6] = {1.5, -2, 0, 4.25, -0.5, 7};
    uint8_t cl[2] = {1, 0}; /* out transposed in memory: values by position */
    kt_init(&e);
    int a = kt_tensor_from(&e, ETK_FLOAT, 2, s, NULL, a_d, sizeof a_d, v);
    int out = kt_tensor(&e, ETK_FLOAT, 2, s, cl, o_d, sizeof o_d);
    REQUIRE(kt_call(&e, ops[k], KT_ARGS(a, out, out)) == ETK_OK);
    CHECK(kt_max_err(&e, out, v, 6) == 0.0);
    CHECK(kt_t(&e, out)->data == (void *)o_d); /* a copy, not an alias */
    int bad = kt_tensor(&e, ETK_FLOAT, 2, s_bad, NULL, o_d, sizeof o_d);
    CHECK_EQ_INT(kt_call(&e, ops[k], KT_ARGS(a, bad, bad)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "shape"));
  }
}

ETK_TEST(div_out_is_true_division_with_broadcasting) {
  kt_env_t e;
  int32_t s23[2] = {2, 3}, s3[1] = {3};
  int64_t a_d[6];
  float b_d[3], o_d[6];
  int64_t l_d[6];
  double a_v[6] = {1, 2, 3, -4, 5, -6}, b_v[3] = {2, -4, 0.5};
  /* torch.tensor([[1,2,3],[-4,5,-6]]) / torch.tensor([2., -4., .5]) */
  double want[6] = {0.5, -0.5, 6, -2, -1.25, -12};
  kt_init(&e);
  int a = kt_tensor_from(&e, ETK_LONG, 2, s23, NULL, a_d, sizeof a_d, a_v);
  int b = kt_tensor_from(&e, ETK_FLOAT, 1, s3, NULL, b_d, sizeof b_d, b_v);
  int out = kt_tensor(&e, ETK_FLOAT, 2, s23, NULL, o_d, sizeof o_d);
  REQUIRE(kt_call(&e, "aten::div.out", KT_ARGS(a, b, out, out)) == ETK_OK);
  CHECK(kt_max_err(&e, out, want, 6) == 0.0);
  /* x / 0 is inf, 0 / 0 NaN, as IEEE division */
  {
    float z_d[3];
    double z_v[3] = {0, 0, 0};
    int z = kt_tensor_from(&e, ETK_FLOAT, 1, s3, NULL, z_d, sizeof z_d, z_v);
    REQUIRE(kt_call(&e, "aten::div.out", KT_ARGS(a, z, out, out)) == ETK_OK);
    CHECK(isinf(o_d[0]) && o_d[0] > 0 && isinf(o_d[3]) && o_d[3] < 0);
  }
  /* true division never writes an integer tensor */
  int lout = kt_tensor(&e, ETK_LONG, 2, s23, NULL, l_d, sizeof l_d);
  CHECK_EQ_INT(kt_call(&e, "aten::div.out", KT_ARGS(a, b, lout, lout)),
               ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(div_scalar_mode_rounds_like_torch) {
  kt_env_t e;
  int32_t s[1] = {4};
  float a_d[4], o_d[4];
  int64_t i_d[4], io_d[4];
  double a_v[4] = {-7, 7, 7.5, -0.5};
  kt_init(&e);
  int a = kt_tensor_from(&e, ETK_FLOAT, 1, s, NULL, a_d, sizeof a_d, a_v);
  int out = kt_tensor(&e, ETK_FLOAT, 1, s, NULL, o_d, sizeof o_d);
  int two = kt_double(&e, 2.0);
  /* torch.div(t, 2, rounding_mode="trunc") / "floor" / None */
  REQUIRE(kt_call(&e, "aten::div.Scalar_mode_out",
                  KT_ARGS(a, two, kt_string(&e, "trunc"), out, out)) == ETK_OK);
  CHECK(o_d[0] == -3 && o_d[1] == 3 && o_d[2] == 3 && o_d[3] == 0);
  CHECK(signbit(o_d[3])); /* trunc(-0.25) is -0.0 */
  REQUIRE(kt_call(&e, "aten::div.Scalar_mode_out",
                  KT_ARGS(a, two, kt_string(&e, "floor"), out, out)) == ETK_OK);
  CHECK(o_d[0] == -4 && o_d[1] == 3 && o_d[2] == 3 && o_d[3] == -1);
  REQUIRE(kt_call(&e, "aten::div.Scalar_mode_out",
                  KT_ARGS(a, two, kt_none(&e), out, out)) == ETK_OK);
  CHECK(o_d[0] == -3.5f && o_d[2] == 3.75f);
  /* integers with a rounding mode stay integers: -7 // 2 == -4 */
  {
    double i_v[4] = {-7, 7, 8, -1};
    int ia = kt_tensor_from(&e, ETK_LONG, 1, s, NULL, i_d, sizeof i_d, i_v);
    int iout = kt_tensor(&e, ETK_LONG, 1, s, NULL, io_d, sizeof io_d);
    REQUIRE(kt_call(&e, "aten::div.Scalar_mode_out",
                    KT_ARGS(ia, kt_int(&e, 2), kt_string(&e, "floor"), iout,
                            iout)) == ETK_OK);
    CHECK(io_d[0] == -4 && io_d[1] == 3 && io_d[2] == 4 && io_d[3] == -1);
  }
  CHECK_EQ_INT(kt_call(&e, "aten::div.Scalar_mode_out",
                       KT_ARGS(a, two, kt_string(&e, "up"), out, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "rounding_mode"));
}

ETK_TEST(fill_scalar_out_fills_with_the_value) {
  kt_env_t e;
  int32_t s[2] = {2, 2};
  float a_d[4] = {9, 9, 9, 9}, o_d[4];
  int32_t i_d[4];
  uint8_t b_d[4];
  double want[4] = {2.5, 2.5, 2.5, 2.5};
  kt_init(&e);
  int a = kt_tensor(&e, ETK_FLOAT, 2, s, NULL, a_d, sizeof a_d);
  int out = kt_tensor(&e, ETK_FLOAT, 2, s, NULL, o_d, sizeof o_d);
  REQUIRE(kt_call(&e, "aten::fill.Scalar_out",
                  KT_ARGS(a, kt_double(&e, 2.5), out, out)) == ETK_OK);
  CHECK(kt_max_err(&e, out, want, 4) == 0.0);
  CHECK(a_d[0] == 9); /* self untouched */
  int iout = kt_tensor(&e, ETK_INT, 2, s, NULL, i_d, sizeof i_d);
  REQUIRE(kt_call(&e, "aten::fill.Scalar_out",
                  KT_ARGS(a, kt_int(&e, -3), iout, iout)) == ETK_OK);
  CHECK(i_d[0] == -3 && i_d[3] == -3);
  int bout = kt_tensor(&e, ETK_BOOL, 2, s, NULL, b_d, sizeof b_d);
  REQUIRE(kt_call(&e, "aten::fill.Scalar_out",
                  KT_ARGS(a, kt_bool(&e, true), bout, bout)) == ETK_OK);
  CHECK(b_d[0] == 1 && b_d[3] == 1);
  /* torch.zeros(4, dtype=torch.int32).fill_(-2.7): cast toward zero, -2 */
  REQUIRE(kt_call(&e, "aten::fill.Scalar_out",
                  KT_ARGS(a, kt_double(&e, -2.7), iout, iout)) == ETK_OK);
  CHECK(i_d[0] == -2 && i_d[3] == -2);
  /* self must be a tensor */
  CHECK_EQ_INT(kt_call(&e, "aten::fill.Scalar_out",
                       KT_ARGS(kt_int(&e, 1), kt_int(&e, 1), out, out)),
               ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(local_scalar_dense_reads_the_one_element) {
  kt_env_t e;
  int32_t one[1] = {1}, none[1] = {0};
  float f_d[1] = {-1.75f};
  int64_t l_d[1] = {-123456789012LL};
  uint8_t b_d[1] = {1};
  kt_init(&e);
  int out = kt_none(&e);
  int f = kt_tensor(&e, ETK_FLOAT, 1, one, NULL, f_d, sizeof f_d);
  REQUIRE(kt_call(&e, "aten::_local_scalar_dense", KT_ARGS(f, out)) == ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_DOUBLE && e.values[out].u.d == -1.75);
  int l = kt_tensor(&e, ETK_LONG, 1, one, NULL, l_d, sizeof l_d);
  REQUIRE(kt_call(&e, "aten::_local_scalar_dense", KT_ARGS(l, out)) == ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_INT &&
        e.values[out].u.i == -123456789012LL);
  int b = kt_tensor(&e, ETK_BOOL, 1, one, NULL, b_d, sizeof b_d);
  REQUIRE(kt_call(&e, "aten::_local_scalar_dense", KT_ARGS(b, out)) == ETK_OK);
  CHECK(e.values[out].tag == ETK_VALUE_BOOL && e.values[out].u.b);
  int empty = kt_tensor(&e, ETK_FLOAT, 1, none, NULL, f_d, 0);
  CHECK_EQ_INT(kt_call(&e, "aten::_local_scalar_dense", KT_ARGS(empty, out)),
               ETK_E_INVALID_ARGUMENT);
  CHECK(kt_msg_has(&e, "self has no elements"));
}

/* prim(name, a, b) into a fresh None value; returns its index. */
static int prim2(kt_env_t *e, const char *name, int a, int b) {
  int out = kt_none(e);
  CHECK(kt_call(e, name, KT_ARGS(a, b, out)) == ETK_OK);
  return out;
}

static int prim1(kt_env_t *e, const char *name, int a) {
  int out = kt_none(e);
  CHECK(kt_call(e, name, KT_ARGS(a, out)) == ETK_OK);
  return out;
}

static int is_int(const kt_env_t *e, int v, int64_t want) {
  return e->values[v].tag == ETK_VALUE_INT && e->values[v].u.i == want;
}
static int is_double(const kt_env_t *e, int v, double want) {
  return e->values[v].tag == ETK_VALUE_DOUBLE && e->values[v].u.d == want;
}
static int is_bool(const kt_env_t *e, int v, bool want) {
  return e->values[v].tag == ETK_VALUE_BOOL && e->values[v].u.b == want;
}

ETK_TEST(prim_arithmetic_is_python_s) {
  kt_env_t e;
  kt_init(&e);
  /* int op int stays int (wrapping like int64); a double makes a double */
  CHECK(is_int(
      &e,
      prim2(&e, "executorch_prim::add.Scalar", kt_int(&e, 7), kt_int(&e, -10)),
      -3));
  CHECK(is_double(&e,
                  prim2(&e, "executorch_prim::add.Scalar", kt_int(&e, 1),
                        kt_double(&e, 0.5)),
                  1.5));
  CHECK(is_int(&e,
               prim2(&e, "executorch_prim::add.Scalar", kt_int(&e, INT64_MAX),
                     kt_int(&e, 1)),
               INT64_MIN));
  CHECK(is_int(
      &e,
      prim2(&e, "executorch_prim::sub.Scalar", kt_int(&e, 3), kt_int(&e, 5)),
      -2));
  CHECK(is_double(
      &e,
      prim2(&e, "executorch_prim::sub.Scalar", kt_double(&e, 3), kt_int(&e, 5)),
      -2.0));
  /* mod: C's remainder (ExecuTorch's kernel), ints only */
  CHECK(is_int(
      &e,
      prim2(&e, "executorch_prim::mod.Scalar", kt_int(&e, -7), kt_int(&e, 3)),
      -1));
  CHECK(is_int(
      &e,
      prim2(&e, "executorch_prim::mod.Scalar", kt_int(&e, 7), kt_int(&e, -3)),
      1));
  {
    int out = kt_none(&e);
    CHECK_EQ_INT(kt_call(&e, "executorch_prim::mod.Scalar",
                         KT_ARGS(kt_double(&e, 7), kt_int(&e, 3), out)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "only Int operands are supported"));
    CHECK_EQ_INT(kt_call(&e, "executorch_prim::mod.Scalar",
                         KT_ARGS(kt_int(&e, 7), kt_int(&e, 0), out)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "integer division by zero"));
  }
  /* sym_max / sym_min: max() and min() of ints */
  CHECK(is_int(&e,
               prim2(&e, "executorch_prim::sym_max.Scalar", kt_int(&e, -2),
                     kt_int(&e, 9)),
               9));
  CHECK(is_int(&e,
               prim2(&e, "executorch_prim::sym_min.Scalar", kt_int(&e, -2),
                     kt_int(&e, 9)),
               -2));
}

ETK_TEST(prim_comparisons_are_python_s) {
  kt_env_t e;
  kt_init(&e);
  int two = kt_int(&e, 2), half = kt_double(&e, 2.5), same = kt_double(&e, 2);
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::eq.Scalar", two, same), true));
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::eq.Scalar", two, half), false));
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::gt.Scalar", half, two), true));
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::gt.Scalar", two, same), false));
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::ge.Scalar", two, same), true));
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::ge.Scalar", two, half), false));
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::le.Scalar", two, same), true));
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::le.Scalar", half, two), false));
  /* bools compare as bools (True > False) */
  CHECK(is_bool(&e,
                prim2(&e, "executorch_prim::gt.Scalar", kt_bool(&e, true),
                      kt_bool(&e, false)),
                true));
  /* NaN compares false with everything, itself included */
  int nan = kt_double(&e, NAN);
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::eq.Scalar", nan, nan), false));
  CHECK(is_bool(&e, prim2(&e, "executorch_prim::le.Scalar", nan, two), false));
}

ETK_TEST(prim_unary_ops_are_python_s) {
  kt_env_t e;
  kt_init(&e);
  CHECK(
      is_int(&e, prim1(&e, "executorch_prim::neg.Scalar", kt_int(&e, 5)), -5));
  CHECK(is_double(
      &e, prim1(&e, "executorch_prim::neg.Scalar", kt_double(&e, -0.25)),
      0.25));
  /* float(7) and int(-2.9) (truncates) */
  CHECK(is_double(
      &e, prim1(&e, "executorch_prim::sym_float.Scalar", kt_int(&e, 7)), 7.0));
  CHECK(is_int(
      &e, prim1(&e, "executorch_prim::sym_int.Scalar", kt_double(&e, -2.9)),
      -2));
  CHECK(is_int(
      &e, prim1(&e, "executorch_prim::sym_int.Scalar", kt_bool(&e, true)), 1));
  /* math.ceil(-1.5) == -1, math.trunc(-1.5) == -1, math.ceil(1.2) == 2 */
  CHECK(is_int(
      &e, prim1(&e, "executorch_prim::ceil.Scalar", kt_double(&e, -1.5)), -1));
  CHECK(is_int(
      &e, prim1(&e, "executorch_prim::ceil.Scalar", kt_double(&e, 1.2)), 2));
  CHECK(is_int(
      &e, prim1(&e, "executorch_prim::trunc.Scalar", kt_double(&e, -1.5)), -1));
  CHECK(is_int(
      &e, prim1(&e, "executorch_prim::trunc.Scalar", kt_double(&e, 2.999)), 2));
  {
    int out = kt_none(&e);
    CHECK_EQ_INT(kt_call(&e, "executorch_prim::ceil.Scalar",
                         KT_ARGS(kt_int(&e, 3), out)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "must be a Double"));
  }
  /* not True == False; a non-bool is refused */
  CHECK(is_bool(&e,
                prim1(&e, "executorch_prim::sym_not.Scalar", kt_bool(&e, true)),
                false));
  {
    int out = kt_none(&e);
    CHECK_EQ_INT(kt_call(&e, "executorch_prim::sym_not.Scalar",
                         KT_ARGS(kt_int(&e, 1), out)),
                 ETK_E_INVALID_ARGUMENT);
    CHECK(kt_msg_has(&e, "must be a Bool"));
  }
}

/* Every registered kernel's name appears, quoted, in some
 * tests/kernels/test_kernel*.c file or as a case of one of the reference
 * manifests (cases.txt made with PyTorch, cases_cortex_m.txt with numpy;
 * read from the source tree): a kernel added without a test fails here. */
ETK_TEST(every_kernel_is_called_by_a_test) {
  char dir[1024], *text[64];
  size_t nfiles = 0;
  snprintf(dir, sizeof dir, "%s/tests/kernels", ETKIT_SOURCE_DIR);
  DIR *d = opendir(dir);
  REQUIRE(d != NULL);
  struct dirent *ent;
  while ((ent = readdir(d)) != NULL && nfiles < 64) {
    size_t n = strlen(ent->d_name);
    if (strncmp(ent->d_name, "test_kernel", 11) != 0 || n < 3 ||
        strcmp(ent->d_name + n - 2, ".c") != 0)
      continue;
    char path[2048];
    size_t len;
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    text[nfiles] = (char *)etk_test_read_file(path, &len);
    if (text[nfiles]) nfiles++;
  }
  closedir(d);
  REQUIRE(nfiles >= 5);
  /* the PyTorch-made cases that kernels_reference runs name their kernel
   * between bars: "case|kernel|tolerance|..." */
  char manifest[2048], *cases[2];
  size_t manifest_len = 0;
  snprintf(manifest, sizeof manifest, "%s/reference/cases.txt", dir);
  cases[0] = (char *)etk_test_read_file(manifest, &manifest_len);
  snprintf(manifest, sizeof manifest, "%s/reference/cases_cortex_m.txt", dir);
  cases[1] = (char *)etk_test_read_file(manifest, &manifest_len);
  REQUIRE(cases[0] != NULL && cases[1] != NULL);
  size_t count = 0, missing = 0;
  const etk_kernel_entry_t *table = etk_kernels_builtin(&count);
  for (size_t k = 0; k < count; k++) {
    char quoted[256];
    snprintf(quoted, sizeof quoted, "\"%s\"", table[k].name);
    int found = 0;
    for (size_t i = 0; i < nfiles && !found; i++)
      found = strstr(text[i], quoted) != NULL;
    if (!found) {
      char barred[256];
      snprintf(barred, sizeof barred, "|%s|", table[k].name);
      found = strstr(cases[0], barred) || strstr(cases[1], barred);
    }
    if (!found) {
      printf("# no test calls %s\n", table[k].name);
      missing++;
    }
  }
  for (size_t i = 0; i < nfiles; i++) free(text[i]);
  free(cases[0]);
  free(cases[1]);
  CHECK(count >= 100);
  CHECK_EQ_U64(missing, 0);
}

ETK_TEST_MAIN()
