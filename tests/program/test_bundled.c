/*
 * test_bundled.c - the .bpte reader on the upstream sample and bad
 * inputs, the .bpte writer (alignment, flatc decoding, checks against the
 * method), and .npy reading/writing.
 */
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/program.h"
#include "program_testutil.h"

ETK_TEST(sample_bpte_structure) {
  ETK_CONFORMANCE_PATH(path, "bundled_program.bpte");
  etk_error_t err;
  etk_bundled_program_t *bp = ptu_load_bundled(path, &err);
  REQUIRE(bp);
  CHECK_EQ_INT(bp->version, 2);
  CHECK_EQ_U64(bp->program_offset, 64);
  CHECK_EQ_U64(bp->program_size, 1696);
  REQUIRE(bp->suite_count == 1);
  const etk_bundled_suite_t *s = etk_bundled_find_suite(bp, "forward");
  REQUIRE(s);
  CHECK(etk_bundled_find_suite(bp, "other") == NULL);
  CHECK_EQ_INT(s->case_count, 10);
  for (uint32_t c = 0; c < s->case_count; c++) {
    const etk_bundled_case_t *k = &s->cases[c];
    REQUIRE(k->input_count == 2 && k->expected_count == 1);
    for (int i = 0; i < 2; i++) {
      CHECK_EQ_INT(k->inputs[i].tag, ETK_BUNDLED_TENSOR);
      CHECK_EQ_INT(k->inputs[i].scalar_type, 3);
      CHECK_EQ_INT(k->inputs[i].dim, 2);
      CHECK_EQ_U64(k->inputs[i].nbytes, 16);
      CHECK_EQ_U64((uintptr_t)(k->inputs[i].data - bp->data) % 16, 0);
    }
    const int32_t *e = (const int32_t *)(const void *)k->expected[0].data;
    for (int j = 0; j < 4; j++) CHECK_EQ_INT(e[j], 2);
  }
  CHECK(bp->program != NULL);
  CHECK_EQ_INT(bp->program->plans[0].value_count, 9);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_check(bp, &err), ETK_OK);
  etk_bundled_program_free(bp);
}

ETK_TEST(bad_bpte_inputs) {
  size_t len;
  ETK_CONFORMANCE_PATH(path, "bundled_program.bpte");
  uint8_t *d = etk_test_read_file(path, &len);
  etk_bundled_program_t *bp;
  etk_error_t err;
  /* every truncation */
  for (size_t n = 0; n < len; n += (n < 200 ? 1 : 7)) {
    uint8_t *c = malloc(n ? n : 1);
    memcpy(c, d, n);
    etk_error_clear(&err);
    int rc = etk_bundled_program_load(c, n, NULL, &bp, &err);
    if (rc == ETK_OK)
      etk_bundled_program_free(bp);
    else
      CHECK(err.message[0] != 0);
    free(c);
  }
  uint8_t *c = malloc(len);
  memcpy(c, d, len);
  memcpy(c + 4, "BP07", 4);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_program_load(c, len, NULL, &bp, &err),
               ETK_E_UNSUPPORTED);
  memcpy(c + 4, "ET12", 4);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_program_load(c, len, NULL, &bp, &err),
               ETK_E_BAD_IDENTIFIER);
  CHECK(strstr(err.message, ".pte") != NULL);
  /* corrupt the embedded program's identifier: the error points into the
   * .bpte at the embedded program's bytes */
  memcpy(c, d, len);
  memcpy(c + 64 + 4, "XX12", 4);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_program_load(c, len, NULL, &bp, &err),
               ETK_E_BAD_IDENTIFIER);
  CHECK_EQ_U64(err.offset, 68);
  CHECK(strstr(err.message, "embedded program") != NULL);
  /* a tensor claiming more elements than its data holds */
  memcpy(c, d, len);
  /* a sizes vector [2, 2]: count 2 then 2, 2, not inside a run of int32
   * twos (expected data 2, 2, 2, 2 looks the same) */
  const uint8_t sizes22[12] = {2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
  const uint8_t two[4] = {2, 0, 0, 0};
  long at = -1;
  for (size_t i = 1800; at < 0 && i + 16 <= len; i += 4)
    if (memcmp(c + i, sizes22, 12) == 0 && memcmp(c + i + 12, two, 4) != 0 &&
        memcmp(c + i - 4, two, 4) != 0)
      at = (long)i;
  REQUIRE(at >= 0);
  ptu_put_u32(c + at + 4, 3);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_program_load(c, len, NULL, &bp, &err),
               ETK_E_TRUNCATED);
  CHECK(strstr(err.message, "data bytes") != NULL);
  free(c);
  free(d);
}

static void float_tensor(etk_tensor_data_t *t, const int32_t *sizes,
                         const float *data, size_t n) {
  memset(t, 0, sizeof *t);
  t->tag = ETK_BUNDLED_TENSOR;
  t->scalar_type = 6;
  t->dim = 1;
  t->sizes = sizes;
  t->data = data;
  t->nbytes = n * sizeof(float);
}

ETK_TEST(writer_round_trip) {
  uint8_t *pte;
  size_t pte_len;
  REQUIRE(ptu_build_add(4, &pte, &pte_len) == ETK_OK);
  int32_t sz[1] = {4};
  float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40}, z[4] = {11, 22, 33, 44};
  etk_tensor_data_t in[2], ex[1];
  float_tensor(&in[0], sz, x, 4);
  float_tensor(&in[1], sz, y, 4);
  float_tensor(&ex[0], sz, z, 4);
  etk_bundled_case_spec_t cases[3] = {{"forward", in, 2, ex, 1},
                                      {"forward", in, 2, NULL, 0},
                                      {"forward", in, 2, ex, 1}};
  uint8_t *out;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_bundled_write(pte, pte_len, cases, 3, &out, &len, &err) ==
          ETK_OK);
  CHECK_EQ_INT(etk_file_kind_detect(out, len), ETK_FILE_BPTE);
  /* load from a 64-aligned copy and check the alignments in the file */
  uint8_t *copy = aligned_alloc(64, (len + 63) & ~(size_t)63);
  memcpy(copy, out, len);
  etk_bundled_program_t *bp;
  etk_error_clear(&err);
  REQUIRE(etk_bundled_program_load(copy, len, NULL, &bp, &err) == ETK_OK);
  CHECK_EQ_INT(bp->version, 2);
  CHECK_EQ_U64(bp->program_offset % 32, 0);
  CHECK_EQ_U64(bp->program_size, pte_len);
  CHECK(memcmp(bp->program_data, pte, pte_len) == 0);
  const etk_bundled_suite_t *s = etk_bundled_find_suite(bp, "forward");
  REQUIRE(s && s->case_count == 3);
  CHECK_EQ_INT(s->cases[1].expected_count, 0);
  const etk_bundled_value_t *v = &s->cases[2].inputs[1];
  CHECK_EQ_U64((uintptr_t)(v->data - bp->data) % 16, 0);
  CHECK(memcmp(v->data, y, sizeof y) == 0);
  CHECK_EQ_INT(etk_bundled_check(bp, &err), ETK_OK);
  etk_bundled_program_free(bp);
  free(copy);
  if (ptu_flatc()) {
    char *json = ptu_flatc_json(out, len, "bundled_program_schema.fbs", 0);
    REQUIRE(json);
    CHECK_CONTAINS(json, "\"version\": 2", "\"method_name\": \"forward\"");
    CHECK_EQ_INT(ptu_count(json, "\"val_type\": \"Tensor\""), 8);
    free(json);
  }
  free(out);
  free(pte);
}

ETK_TEST(writer_checks_cases) {
  uint8_t *pte;
  size_t pte_len;
  REQUIRE(ptu_build_add(4, &pte, &pte_len) == ETK_OK);
  int32_t sz[1] = {4}, sz5[1] = {5};
  float x[5] = {0};
  etk_tensor_data_t in[2], ex[1];
  float_tensor(&in[0], sz, x, 4);
  float_tensor(&in[1], sz, x, 4);
  float_tensor(&ex[0], sz, x, 4);
  uint8_t *out = NULL;
  size_t len;
  etk_error_t err;
  struct {
    etk_bundled_case_spec_t spec;
    int code;
    const char *text;
  } bad[4] = {
      {{"forward", in, 1, ex, 1}, ETK_E_MISMATCH, "1 inputs"},
      {{"missing", in, 2, ex, 1}, ETK_E_NOT_FOUND, "missing"},
      {{"forward", in, 2, in, 2}, ETK_E_MISMATCH, "2 expected outputs"},
      {{"forward", in, 2, ex, 1}, ETK_E_MISMATCH, "dtype INT"},
  };
  for (int k = 0; k < 4; k++) {
    etk_tensor_data_t saved = in[0];
    if (k == 3) in[0].scalar_type = 3; /* INT, 4 bytes too */
    etk_error_clear(&err);
    CHECK_EQ_INT(
        etk_bundled_write(pte, pte_len, &bad[k].spec, 1, &out, &len, &err),
        bad[k].code);
    CHECK(out == NULL);
    if (!strstr(err.message, bad[k].text))
      printf("# case %d message: %s\n", k, err.message);
    CHECK(strstr(err.message, bad[k].text) != NULL);
    in[0] = saved;
  }
  /* wrong size in a static dimension */
  float_tensor(&in[1], sz5, x, 5);
  etk_bundled_case_spec_t spec = {"forward", in, 2, ex, 1};
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_write(pte, pte_len, &spec, 1, &out, &len, &err),
               ETK_E_MISMATCH);
  /* byte count disagreeing with the shape */
  float_tensor(&in[1], sz, x, 4);
  in[1].nbytes = 12;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_bundled_write(pte, pte_len, &spec, 1, &out, &len, &err),
               ETK_E_INVALID_ARGUMENT);
  /* not a program */
  etk_error_clear(&err);
  CHECK(etk_bundled_write((const uint8_t *)"garbage!", 8, &spec, 1, &out, &len,
                          &err) != ETK_OK);
  free(pte);
}

/* A version 1.0 .npy in buf (>= 256 bytes) with header text `header`
 * (under 240 bytes) and 4 zero data bytes; returns its length. */
static size_t npy_with_header(uint8_t *buf, const char *header) {
  size_t hl = strlen(header);
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (uint8_t)hl;
  buf[9] = 0;
  memcpy(buf + 10, header, hl);
  memset(buf + 10 + hl, 0, 4);
  return 10 + hl + 4;
}

ETK_TEST(npy_round_trip_and_errors) {
  const char *path = etk_test_temp_path("a.npy");
  int32_t sizes[2] = {2, 3};
  int64_t data[6] = {1, -2, 3, -4, 5, -6};
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_npy_write_file(path, 4, 2, sizes, data, sizeof data, &err) ==
          ETK_OK);
  size_t len;
  uint8_t *raw = etk_test_read_file(path, &len);
  REQUIRE(raw);
  CHECK_EQ_U64((len - sizeof data) % 64, 0);
  CHECK(strstr((char *)raw + 10, "'descr': '<i8'") != NULL);
  CHECK(strstr((char *)raw + 10, "'shape': (2, 3)") != NULL);
  etk_npy_t *n;
  REQUIRE(etk_npy_parse(raw, len, &n, &err) == ETK_OK);
  CHECK_EQ_INT(n->scalar_type, 4);
  CHECK_EQ_INT(n->dim, 2);
  CHECK_EQ_INT(n->sizes[1], 3);
  CHECK(memcmp(n->data, data, sizeof data) == 0);
  etk_npy_free(n);
  /* rank 1 and rank 0 shapes, as numpy spells them */
  int32_t one[1] = {6};
  REQUIRE(etk_npy_write_file(path, 4, 1, one, data, sizeof data, &err) == 0);
  free(raw);
  raw = etk_test_read_file(path, &len);
  CHECK(strstr((char *)raw + 10, "'shape': (6,)") != NULL);
  REQUIRE(etk_npy_parse(raw, len, &n, &err) == ETK_OK);
  CHECK_EQ_INT(n->dim, 1);
  etk_npy_free(n);
  /* errors: truncated data, big endian, fortran order, unknown dtype */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_npy_parse(raw, len - 1, &n, &err), ETK_E_FORMAT);
  char hdr[128];
  const char *variants[4] = {
      "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
      "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
      "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,"};
  for (int k = 0; k < 4; k++) {
    uint8_t buf[256];
    size_t blen = npy_with_header(buf, variants[k]);
    etk_error_clear(&err);
    CHECK(etk_npy_parse(buf, blen, &n, &err) != ETK_OK);
    CHECK(err.message[0] != 0);
    (void)hdr;
  }
  /* trailing bytes after the data */
  {
    uint8_t *longer = malloc(len + 3);
    REQUIRE(longer);
    memcpy(longer, raw, len);
    memset(longer + len, 0, 3);
    etk_error_clear(&err);
    CHECK_EQ_INT(etk_npy_parse(longer, len + 3, &n, &err), ETK_E_FORMAT);
    CHECK(strstr(err.message, "trailing bytes") != NULL);
    free(longer);
  }
  /* a key given twice, and text after the dict */
  {
    const char *bad[2] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
        "'descr': '<i4', }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x"};
    const char *why[2] = {"duplicate .npy header key 'descr'",
                          "unexpected text after the .npy header dict"};
    for (int k = 0; k < 2; k++) {
      uint8_t buf[256];
      size_t blen = npy_with_header(buf, bad[k]);
      etk_error_clear(&err);
      CHECK_EQ_INT(etk_npy_parse(buf, blen, &n, &err), ETK_E_FORMAT);
      CHECK(strstr(err.message, why[k]) != NULL);
    }
  }
  free(raw);
  remove(path);
  /* unsupported dtype for writing */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_npy_write_file(path, 15, 1, one, data, 12, &err),
               ETK_E_UNSUPPORTED);
}

ETK_TEST_MAIN()
