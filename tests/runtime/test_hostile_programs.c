/*
 * test_hostile_programs.c - programs built to attack the loader and the
 * runtime: data offsets misaligned for their element type, a memory plan
 * far larger than the file, and kernel arguments (padding, dilation,
 * kernel sizes, view sizes, slice steps, pad amounts) chosen to overflow
 * 64-bit index arithmetic.  Each must fail with one clear error and no
 * undefined behaviour (this suite also runs under ASan+UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/checked.h"
#include "etkit/program.h"
#include "etkit/runtime.h"
#include "program_testutil.h"

static uint8_t *finish(etk_program_builder_t *b, size_t *len) {
  uint8_t *d = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_program_builder_finish(b, &d, len, &err) != ETK_OK)
    printf("# builder: %s\n", err.message);
  etk_program_builder_free(b);
  return d;
}

ETK_TEST(checked_helpers) {
  int64_t i;
  uint64_t u;
  size_t z;
  CHECK_EQ_INT(etk_checked_add_i64(INT64_MAX, 1, &i), ETK_E_OVERFLOW);
  CHECK_EQ_INT(etk_checked_sub_i64(INT64_MIN, 1, &i), ETK_E_OVERFLOW);
  CHECK_EQ_INT(etk_checked_mul_i64(INT64_MIN, -1, &i), ETK_E_OVERFLOW);
  CHECK_EQ_INT(etk_checked_mul_i64(-4, 5, &i), ETK_OK);
  CHECK(i == -20);
  CHECK_EQ_INT(etk_checked_mul_u64(UINT64_MAX / 2 + 1, 2, &u), ETK_E_OVERFLOW);
  CHECK_EQ_INT(etk_checked_add_u64(UINT64_MAX, 0, &u), ETK_OK);
  CHECK_EQ_INT(etk_checked_mul_size(SIZE_MAX, 2, &z), ETK_E_OVERFLOW);
  CHECK_EQ_INT(etk_checked_add_size(SIZE_MAX, 1, &z), ETK_E_OVERFLOW);
  int64_t sizes[3] = {1 << 30, 1 << 30, 1 << 30};
  CHECK_EQ_INT(etk_checked_numel_i64(sizes, 3, &i), ETK_E_OVERFLOW);
  CHECK_EQ_INT(etk_checked_numel_i64(sizes, 2, &i), ETK_OK);
  CHECK(i == (int64_t)1 << 60);
  CHECK(etk_offset_aligned(12, 4) && !etk_offset_aligned(6, 4));
}

/* A float tensor planned at byte offset 2 of its buffer. */
ETK_TEST(misaligned_planned_offset) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = ptu_float_vector(b, 4);
  REQUIRE(etk_program_builder_place_tensor(b, x, 1, 2) == ETK_OK);
  etk_program_builder_set_inputs(b, &x, 1);
  etk_program_builder_set_outputs(b, &x, 1);
  size_t len;
  uint8_t *d = finish(b, &len);
  REQUIRE(d != NULL);
  etk_program_t *p;
  etk_error_t err;
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_BAD_ALIGNMENT);
  CHECK(strstr(err.message, "memory_offset 2 is not 4-byte aligned") != NULL);
  free(d);
}

/* A double constant whose offset in the constant segment is patched from
 * 0 to 4 (still inside the segment, which a 16-byte constant follows). */
ETK_TEST(misaligned_constant_offset) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int32_t sz[1] = {2}, bsz[1] = {16};
  double c[2] = {1.5, 2.5};
  uint8_t bytes[16] = {0};
  int k = etk_program_builder_add_tensor(b, ETK_DOUBLE, 1, sz, NULL,
                                         ETK_BUILDER_CONSTANT, c);
  int k2 = etk_program_builder_add_tensor(b, ETK_BYTE, 1, bsz, NULL,
                                          ETK_BUILDER_CONSTANT, bytes);
  int32_t outs[2] = {k, k2};
  etk_program_builder_set_outputs(b, outs, 2);
  size_t len;
  uint8_t *d = finish(b, &len);
  REQUIRE(d != NULL);
  etk_program_t *p;
  etk_error_t err;
  REQUIRE(ptu_load_status(d, len, &p, &err) == ETK_OK);
  REQUIRE(p->constant_storage == ETK_CONSTANTS_SEGMENT);
  etk_program_free(p);
  /* constant_segment.offsets: [0 (reserved), 0, 16] after its count 3 */
  static const uint64_t offsets[3] = {0, 0, 16};
  REQUIRE(ptu_patch_u64_vector(d, len, offsets, 3, 1, 4) > 0);
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_BAD_ALIGNMENT);
  CHECK_CONTAINS(err.message, "constant data at file offset",
                 "is not 8-byte aligned");
  free(d);
}

/* A 1 GiB float tensor: a few hundred bytes of program that declare 4 GiB
 * of planned memory.  Loading with allocation stops at the limit before
 * allocating anything. */
ETK_TEST(huge_plan_hits_the_memory_limit) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = ptu_float_vector(b, 1 << 30);
  etk_program_builder_set_inputs(b, &x, 1);
  etk_program_builder_set_outputs(b, &x, 1);
  size_t len;
  uint8_t *d = finish(b, &len);
  REQUIRE(d != NULL);
  CHECK(len < 4096);
  etk_program_t *p;
  etk_error_t err;
  REQUIRE(ptu_load_status(d, len, &p, &err) == ETK_OK);
  CHECK(etk_method_planned_size(p, "forward", 0) == (size_t)4 << 30);
  etk_method_t *m = NULL;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_load_alloc(p, "forward", NULL, &m, &err),
               ETK_E_LIMIT);
  CHECK(m == NULL);
  CHECK(strstr(err.message, "more than the limit of 1073741824 bytes") != NULL);
  etk_method_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_memory = 4096;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_load_alloc_with(p, "forward", &cfg, &m, &err),
               ETK_E_LIMIT);
  CHECK(strstr(err.message, "more than the limit of 4096 bytes") != NULL);
  etk_program_free(p);
  free(d);
}

/* Runs op(args...) on a small float input, where the builder adds the
 * hostile argument values; returns the execute status and the message. */
typedef int (*hostile_args_fn)(etk_program_builder_t *b, int in, int out,
                               int32_t *args);

static int run_hostile(const char *op, const char *overload, uint32_t in_dim,
                       const int32_t *in_sizes, uint32_t out_dim,
                       const int32_t *out_sizes, hostile_args_fn fill,
                       char *message, size_t cap) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int in = ptu_float_tensor(b, in_dim, in_sizes);
  int out = etk_program_builder_add_tensor(b, ETK_FLOAT, out_dim, out_sizes,
                                           NULL, ETK_BUILDER_PLANNED, NULL);
  etk_program_builder_set_dynamic(b, out);
  int32_t args[16];
  int nargs = fill(b, in, out, args);
  int o = etk_program_builder_add_operator(b, op, overload);
  etk_program_builder_kernel_call(b, o, args, (uint32_t)nargs);
  etk_program_builder_set_inputs(b, &in, 1);
  etk_program_builder_set_outputs(b, &out, 1);
  size_t len;
  uint8_t *d = finish(b, &len);
  if (!d) return ETK_E_INTERNAL;
  etk_program_t *p;
  etk_error_t err;
  int rc = ptu_load_status(d, len, &p, &err);
  if (rc == ETK_OK) {
    etk_method_t *m = NULL;
    rc = etk_method_load_alloc(p, "forward", NULL, &m, &err);
    if (rc == ETK_OK) {
      float x[64];
      for (int k = 0; k < 64; k++) x[k] = (float)k;
      etk_tensor_t t = *etk_method_input(m, 0)->u.tensor;
      t.data = x;
      etk_value_t v;
      memset(&v, 0, sizeof v);
      v.tag = ETK_VALUE_TENSOR;
      v.u.tensor = &t;
      rc = etk_method_set_input(m, 0, &v, &err);
      if (rc == ETK_OK) rc = etk_method_execute(m, &err);
      etk_method_free(m);
    }
    etk_program_free(p);
  }
  snprintf(message, cap, "%s", err.message);
  free(d);
  return rc;
}

static int conv_args(etk_program_builder_t *b, int in, int out, int32_t *a,
                     int64_t pad, int64_t dil, int transposed) {
  const int64_t one[2] = {1, 1}, zero[2] = {0, 0};
  const int64_t padding[2] = {pad, pad}, dilation[2] = {dil, dil};
  int32_t wsz[4] = {1, 1, 2, 2};
  float w[4] = {1, 1, 1, 1};
  a[0] = in;
  a[1] = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, wsz, NULL,
                                        ETK_BUILDER_CONSTANT, w);
  a[2] = etk_program_builder_add_null(b);
  a[3] = etk_program_builder_add_int_list(b, one, 2);
  a[4] = etk_program_builder_add_int_list(b, padding, 2);
  a[5] = etk_program_builder_add_int_list(b, dilation, 2);
  a[6] = etk_program_builder_add_bool(b, transposed != 0);
  a[7] = etk_program_builder_add_int_list(b, zero, 2);
  a[8] = etk_program_builder_add_int(b, 1);
  a[9] = out;
  a[10] = out;
  return 11;
}
static int conv_huge_padding(etk_program_builder_t *b, int in, int out,
                             int32_t *a) {
  return conv_args(b, in, out, a, INT64_MAX / 2 + 7, 1, 0);
}
static int conv_huge_dilation(etk_program_builder_t *b, int in, int out,
                              int32_t *a) {
  return conv_args(b, in, out, a, 0, INT64_MAX, 0);
}
static int conv_transposed_huge(etk_program_builder_t *b, int in, int out,
                                int32_t *a) {
  return conv_args(b, in, out, a, 0, INT64_MAX, 1);
}

ETK_TEST(conv_geometry_overflow) {
  int32_t isz[4] = {1, 1, 4, 4}, osz[4] = {1, 1, 3, 3};
  char msg[256];
  static const struct {
    hostile_args_fn fill;
    int status;
    const char *message;
  } cases[3] = {
      {conv_huge_padding, ETK_E_OVERFLOW, "overflows"},
      /* the span is hugely negative but exact: an ordinary error */
      {conv_huge_dilation, ETK_E_INVALID_ARGUMENT,
       "kernel larger than the padded input"},
      {conv_transposed_huge, ETK_E_OVERFLOW, "overflows"},
  };
  for (int c = 0; c < 3; c++) {
    int rc = run_hostile("aten::convolution", "out", 4, isz, 4, osz,
                         cases[c].fill, msg, sizeof msg);
    if (rc != cases[c].status) printf("# case %d: %s\n", c, msg);
    CHECK_EQ_INT(rc, cases[c].status);
    CHECK(strstr(msg, cases[c].message) != NULL);
  }
}

static int pool_args(etk_program_builder_t *b, int in, int out, int32_t *a) {
  const int64_t k[2] = {INT64_MAX / 2, INT64_MAX / 2}, s[2] = {1, 1},
                p[2] = {0, 0}, d[2] = {3, 3};
  int32_t isz[4] = {1, 1, 3, 3};
  a[0] = in;
  a[1] = etk_program_builder_add_int_list(b, k, 2);
  a[2] = etk_program_builder_add_int_list(b, s, 2);
  a[3] = etk_program_builder_add_int_list(b, p, 2);
  a[4] = etk_program_builder_add_int_list(b, d, 2);
  a[5] = etk_program_builder_add_bool(b, true);
  a[6] = out;
  a[7] = etk_program_builder_add_tensor(b, ETK_LONG, 4, isz, NULL,
                                        ETK_BUILDER_PLANNED, NULL);
  etk_program_builder_set_dynamic(b, a[7]);
  a[8] = out;
  a[9] = a[7];
  return 10;
}

static int view_args(etk_program_builder_t *b, int in, int out, int32_t *a) {
  const int64_t size[3] = {INT64_MAX / 2, 4, 0};
  a[0] = in;
  a[1] = etk_program_builder_add_int_list(b, size, 3);
  a[2] = out;
  a[3] = out;
  return 4;
}

static int slice_args(etk_program_builder_t *b, int in, int out, int32_t *a) {
  a[0] = in;
  a[1] = etk_program_builder_add_int(b, 0);
  a[2] = etk_program_builder_add_int(b, 0);
  a[3] = etk_program_builder_add_int(b, 16);
  a[4] = etk_program_builder_add_int(b, INT64_MAX);
  a[5] = out;
  a[6] = out;
  return 7;
}

static int pad_args(etk_program_builder_t *b, int in, int out, int32_t *a) {
  const int64_t pad[2] = {INT64_MIN, INT64_MAX};
  a[0] = in;
  a[1] = etk_program_builder_add_int_list(b, pad, 2);
  a[2] = etk_program_builder_add_double(b, 0.0);
  a[3] = out;
  a[4] = out;
  return 5;
}

/* One hostile call per case: the op, the input and output shapes, the
 * argument builder, and the status and message (NULL: any) expected. */
typedef struct hostile_case {
  const char *op, *overload;
  uint32_t in_dim;
  int32_t in_sizes[4];
  uint32_t out_dim;
  int32_t out_sizes[4];
  hostile_args_fn fill;
  int want_rc;
  const char *want_message;
} hostile_case_t;

static const hostile_case_t hostile_cases[] = {
    {"aten::max_pool2d_with_indices",
     "out",
     4,
     {1, 1, 4, 4},
     4,
     {1, 1, 3, 3},
     pool_args,
     ETK_E_OVERFLOW,
     "overflows"},
    {"aten::view_copy",
     "out",
     1,
     {16},
     3,
     {1, 1, 16},
     view_args,
     ETK_E_OVERFLOW,
     "more elements than int64 can count"},
    /* a step past the length leaves one element (and must not overflow) */
    {"aten::slice_copy",
     "Tensor_out",
     1,
     {16},
     1,
     {16},
     slice_args,
     ETK_OK,
     NULL},
    {"aten::constant_pad_nd",
     "out",
     1,
     {16},
     1,
     {16},
     pad_args,
     ETK_E_INVALID_ARGUMENT,
     "exceeds the int32 range"},
};

ETK_TEST(hostile_op_arguments) {
  for (size_t k = 0; k < sizeof hostile_cases / sizeof hostile_cases[0]; k++) {
    const hostile_case_t *c = &hostile_cases[k];
    char msg[256];
    int rc = run_hostile(c->op, c->overload, c->in_dim, c->in_sizes, c->out_dim,
                         c->out_sizes, c->fill, msg, sizeof msg);
    printf("# %s\n", c->op);
    CHECK_EQ_INT(rc, c->want_rc);
    if (c->want_message) CHECK(strstr(msg, c->want_message) != NULL);
  }
}

ETK_TEST_MAIN()
