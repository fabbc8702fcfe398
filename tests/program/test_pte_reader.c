/*
 * test_pte_reader.c - the .pte reader on real upstream files and on
 * malformed inputs: identifiers, extended headers, truncation at every
 * length, out-of-range indices, overflowing sizes, bad planned ranges,
 * bad jump targets.  Every failure must be one clean error with a byte
 * offset (ASan/UBSan builds also prove nothing is read out of bounds).
 */
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/program.h"
#include "program_testutil.h"

static uint8_t *read_conf(const char *name, size_t *len) {
  const char *path = etk_test_conformance_path(name);
  return path ? etk_test_read_file(path, len) : NULL;
}

ETK_TEST(add_pte_structure) {
  size_t len;
  uint8_t *d = read_conf("add.pte", &len);
  if (!d) ETK_SKIP("add.pte not found");
  etk_program_t *p;
  etk_error_t err;
  REQUIRE(ptu_load_status(d, len, &p, &err) == ETK_OK);
  CHECK(!p->header.has_extended_header);
  CHECK_EQ_U64(p->header.program_size, len);
  CHECK_EQ_INT(p->version, 0);
  CHECK_EQ_INT(p->plan_count, 1);
  CHECK_EQ_INT(p->constant_storage, ETK_CONSTANTS_NONE);
  CHECK_EQ_INT(p->segment_count, 1);
  const etk_program_plan_t *pl = etk_program_find_plan(p, "forward");
  REQUIRE(pl != NULL);
  CHECK(etk_program_find_plan(p, "backward") == NULL);
  CHECK_EQ_STR(pl->encoded_inp_str, "T2#2#0(T2#1#1($,$),D0())");
  CHECK_EQ_INT(pl->value_count, 4);
  CHECK_EQ_INT(pl->input_count, 2);
  CHECK_EQ_INT(pl->inputs[0], 0);
  CHECK_EQ_INT(pl->inputs[1], 1);
  CHECK_EQ_INT(pl->output_count, 1);
  CHECK_EQ_INT(pl->outputs[0], 2);
  CHECK_EQ_INT(pl->buffer_size_count, 2);
  CHECK_EQ_INT(pl->buffer_sizes[1], 48);
  for (int v = 0; v < 3; v++) {
    REQUIRE(pl->values[v].tag == 5);
    const etk_program_tensor_t *t = pl->values[v].u.tensor;
    CHECK_EQ_INT(t->scalar_type, 6);
    CHECK_EQ_INT(t->dim, 1);
    CHECK_EQ_INT(t->sizes[0], 1);
    CHECK(t->planned);
    CHECK_EQ_INT(t->memory_id, 1);
    CHECK_EQ_U64(t->memory_offset, 16u * (unsigned)v);
    CHECK_EQ_U64(t->nbytes, 4);
  }
  CHECK_EQ_INT(pl->values[3].tag, 2);
  CHECK_EQ_INT(pl->values[3].u.i, 1);
  CHECK_EQ_INT(pl->operator_count, 1);
  CHECK_EQ_STR(pl->operators[0].full_name, "aten::add.out");
  CHECK_EQ_STR(pl->operators[0].event_name, "native_call_add.out");
  CHECK_EQ_INT(pl->chain_count, 1);
  REQUIRE(pl->chains[0].instruction_count == 1);
  const etk_program_instruction_t *x = &pl->chains[0].instructions[0];
  CHECK_EQ_INT(x->kind, ETK_INSTR_KERNEL_CALL);
  CHECK_EQ_INT(x->index, 0);
  REQUIRE(x->arg_count == 5);
  const int32_t want[5] = {0, 1, 3, 2, 2};
  CHECK_EQ_MEM(x->args, want, sizeof want);
  CHECK(pl->chains[0].stacktrace == NULL);
  etk_program_free(p);
  free(d);
}

ETK_TEST(inline_constants_pte) {
  size_t len;
  uint8_t *d = read_conf("module_linear_inline_constants.pte", &len);
  if (!d) ETK_SKIP("module_linear_inline_constants.pte not found");
  etk_program_t *p;
  etk_error_t err;
  REQUIRE(ptu_load_status(d, len, &p, &err) == ETK_OK);
  CHECK_EQ_INT(p->constant_storage, ETK_CONSTANTS_INLINE);
  CHECK_EQ_INT(p->constant_count, 3);
  const etk_program_plan_t *pl = &p->plans[0];
  CHECK_EQ_INT(pl->value_count, 6);
  CHECK_EQ_INT(pl->inputs[0], 2);
  CHECK_EQ_INT(pl->outputs[0], 4);
  REQUIRE(pl->values[0].tag == 5 && pl->values[1].tag == 5);
  const float *a = (const float *)(const void *)pl->values[0].u.tensor->data;
  const float *b = (const float *)(const void *)pl->values[1].u.tensor->data;
  REQUIRE(a && b);
  for (int k = 0; k < 4; k++) {
    CHECK(a[k] == 3.0f);
    CHECK(b[k] == 2.0f);
  }
  CHECK_EQ_STR(pl->operators[0].full_name, "aten::mul.out");
  CHECK_EQ_STR(pl->operators[1].full_name, "aten::add.out");
  CHECK_EQ_INT(pl->chains[0].instruction_count, 2);
  etk_program_free(p);
  free(d);
}

/* The program inside bundled_program.bpte has the old 24-byte header. */
ETK_TEST(embedded_program_24_byte_header) {
  size_t len;
  uint8_t *d = read_conf("bundled_program.bpte", &len);
  if (!d) ETK_SKIP("bundled_program.bpte not found");
  REQUIRE(len > 64 + 1696);
  uint8_t *pte = aligned_alloc(64, 1728);
  memcpy(pte, d + 64, 1696);
  etk_pte_header_t h;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_pte_header_parse(pte, 1696, &h, &err) == ETK_OK);
  CHECK(h.has_extended_header);
  CHECK_EQ_INT(h.extended_header_length, 24);
  CHECK_EQ_U64(h.program_size, 1584);
  CHECK_EQ_U64(h.segment_base_offset, 1664);
  CHECK_EQ_U64(h.segment_data_size, 0);
  etk_program_t *p;
  etk_program_options_t opt = {0};
  opt.borrow = 1;
  REQUIRE(etk_program_load(pte, 1696, &opt, &p, &err) == ETK_OK);
  CHECK(p->data == pte);
  CHECK_EQ_INT(p->constant_storage, ETK_CONSTANTS_SEGMENT);
  CHECK_EQ_INT(p->constant_count, 3);
  const etk_program_plan_t *pl = &p->plans[0];
  CHECK_EQ_INT(pl->value_count, 9);
  const int32_t *a =
      (const int32_t *)(const void *)pl->values[0].u.tensor->data;
  const int32_t *b =
      (const int32_t *)(const void *)pl->values[1].u.tensor->data;
  for (int k = 0; k < 4; k++) {
    CHECK_EQ_INT(a[k], 3);
    CHECK_EQ_INT(b[k], 2);
  }
  CHECK_EQ_INT(pl->chains[0].instruction_count, 3);
  etk_program_free(p);
  /* Borrowing requires 16-byte alignment. */
  CHECK(etk_program_load(pte + 1, 1695, &opt, &p, &err) != ETK_OK);
  free(pte);
  free(d);
}

ETK_TEST(identifiers_and_headers) {
  uint8_t buf[64];
  memset(buf, 0, sizeof buf);
  etk_pte_header_t h;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_pte_header_parse(buf, 7, &h, &err), ETK_E_TRUNCATED);
  etk_error_clear(&err);
  memcpy(buf + 4, "ET11", 4);
  CHECK_EQ_INT(etk_pte_header_parse(buf, 64, &h, &err), ETK_E_UNSUPPORTED);
  CHECK(strstr(err.message, "ET11") != NULL);
  CHECK_EQ_U64(err.offset, 4);
  etk_error_clear(&err);
  memcpy(buf + 4, "BP08", 4);
  CHECK_EQ_INT(etk_pte_header_parse(buf, 64, &h, &err), ETK_E_BAD_IDENTIFIER);
  CHECK(strstr(err.message, "bundled") != NULL);
  etk_error_clear(&err);
  memcpy(buf + 4, "\x01\x02\x03\x04", 4);
  CHECK_EQ_INT(etk_pte_header_parse(buf, 64, &h, &err), ETK_E_BAD_IDENTIFIER);
  /* eh00 forms */
  memcpy(buf + 4, "ET12", 4);
  memcpy(buf + 8, "eh00", 4);
  ptu_put_u32(buf + 12, 16);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_pte_header_parse(buf, 64, &h, &err), ETK_E_FORMAT);
  CHECK_EQ_U64(err.offset, 12);
  ptu_put_u32(buf + 12, 1000);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_pte_header_parse(buf, 64, &h, &err), ETK_E_TRUNCATED);
  ptu_put_u32(buf + 12, 32);
  ptu_put_u64(buf + 16, 48);
  ptu_put_u64(buf + 24, 128);
  ptu_put_u64(buf + 32, 77);
  etk_error_clear(&err);
  REQUIRE(etk_pte_header_parse(buf, 64, &h, &err) == ETK_OK);
  CHECK_EQ_U64(h.program_size, 48);
  CHECK_EQ_U64(h.segment_base_offset, 128);
  CHECK_EQ_U64(h.segment_data_size, 77);
  ptu_put_u64(buf + 24, UINT64_MAX - 5);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_pte_header_parse(buf, 64, &h, &err), ETK_E_OVERFLOW);
  /* A header claiming more than the file holds: one error, no reading. */
  ptu_put_u64(buf + 16, 4096);
  ptu_put_u64(buf + 24, 0);
  etk_program_t *p;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_program_load(buf, 64, NULL, &p, &err), ETK_E_TRUNCATED);
  CHECK(strstr(err.message, "program_size") != NULL);
  CHECK_EQ_INT(etk_file_kind_detect(buf, 64), ETK_FILE_PTE);
}

ETK_TEST(every_truncation_fails_cleanly) {
  size_t len;
  uint8_t *d = read_conf("add.pte", &len);
  if (!d) ETK_SKIP("add.pte not found");
  for (size_t n = 0; n < len; n++) {
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, d, n);
    etk_program_t *p = NULL;
    etk_error_t err;
    int rc = ptu_load_status(copy, n, &p, &err);
    if (rc == ETK_OK) {
      /* flatbuffers keep the root table first-written-last: cutting only
       * trailing padding may still be valid; it must then be complete. */
      CHECK(p->plan_count == 1);
      etk_program_free(p);
    } else {
      CHECK(err.code == rc);
      CHECK(err.message[0] != 0);
    }
    free(copy);
  }
  free(d);
}

ETK_TEST(out_of_range_argument) {
  size_t len;
  uint8_t *d = read_conf("add.pte", &len);
  if (!d) ETK_SKIP("add.pte not found");
  const uint8_t args[24] = {5, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
                            3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
  long at = ptu_find(d, len, args, sizeof args);
  REQUIRE(at > 0);
  ptu_put_u32(d + at + 4 + 8, 99); /* third argument */
  etk_program_t *p;
  etk_error_t err;
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_FORMAT);
  CHECK(strstr(err.message, "value 99") != NULL);
  CHECK_EQ_U64(err.offset, (uint64_t)at + 4 + 8);
  ptu_put_u32(d + at + 4 + 8, 0xFFFFFFFFu); /* -1 */
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_FORMAT);
  CHECK(strstr(err.message, "value -1") != NULL);
  free(d);
}

ETK_TEST(planned_range_beyond_buffer) {
  size_t len;
  uint8_t *d = read_conf("add.pte", &len);
  if (!d) ETK_SKIP("add.pte not found");
  static const uint64_t sizes[2] = {0, 48};
  long at = ptu_patch_u64_vector(d, len, sizes, 2, 1, 20);
  REQUIRE(at > 0);
  etk_program_t *p;
  etk_error_t err;
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_FORMAT);
  CHECK(strstr(err.message, "exceeds buffer 1") != NULL);
  ptu_put_u64(d + at + 12, (uint64_t)-8);
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_FORMAT);
  CHECK(strstr(err.message, "negative size") != NULL);
  free(d);
}

/* A rank-4 runtime tensor whose sizes are patched to overflow. */
ETK_TEST(sizes_that_overflow) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int32_t sz[4] = {7, 7, 7, 7};
  int x = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 4, sz, NULL,
                                         ETK_BUILDER_RUNTIME, NULL);
  uint8_t *d;
  size_t len;
  REQUIRE(ptu_finish_unary(b, x, x, &d, &len) == ETK_OK);
  const uint8_t pat[16] = {7, 0, 0, 0, 7, 0, 0, 0, 7, 0, 0, 0, 7, 0, 0, 0};
  long at = ptu_find(d, len, pat, sizeof pat);
  REQUIRE(at > 0);
  for (int k = 0; k < 4; k++) ptu_put_u32(d + at + 4 * k, 0x7FFFFFFF);
  etk_program_t *p;
  etk_error_t err;
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_OVERFLOW);
  CHECK(strstr(err.message, "overflows") != NULL);
  ptu_put_u32(d + at, 0xFFFFFFFFu);
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_FORMAT);
  CHECK(strstr(err.message, "negative size") != NULL);
  free(d);
}

/* An extended header claiming segments at base 0 (inside the program). */
ETK_TEST(segments_with_zero_base) {
  uint8_t *d;
  size_t len;
  REQUIRE(ptu_build_linear(0, &d, &len) == ETK_OK);
  REQUIRE(memcmp(d + 8, "eh00", 4) == 0);
  etk_program_t *p;
  etk_error_t err;
  REQUIRE(ptu_load_status(d, len, &p, &err) == ETK_OK);
  etk_program_free(p);
  ptu_put_u64(d + 24, 0); /* segment_base_offset */
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_FORMAT);
  CHECK(strstr(err.message,
               "bytes of segments with a zero "
               "segment_base_offset") != NULL);
  ptu_put_u64(d + 32, 0); /* segment_data_size too: the segment itself */
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_FORMAT);
  CHECK(strstr(err.message, "segment_base_offset is 0") != NULL);
  free(d);
}

ETK_TEST(bad_jump_destination) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  for (int k = 0; k < 1234; k++) etk_program_builder_add_int(b, k);
  int cond = etk_program_builder_add_bool(b, true);
  REQUIRE(cond == 1234);
  etk_program_builder_jump_false_call(b, cond, 1);
  uint8_t *d;
  size_t len;
  REQUIRE(etk_program_builder_finish(b, &d, &len, NULL) == ETK_OK);
  etk_program_builder_free(b);
  const uint8_t pat[8] = {0xD2, 0x04, 0, 0, 1, 0, 0, 0};
  long at = ptu_find(d, len, pat, sizeof pat);
  REQUIRE(at > 0);
  etk_program_t *p;
  etk_error_t err;
  REQUIRE(ptu_load_status(d, len, &p, &err) == ETK_OK);
  CHECK_EQ_INT(p->plans[0].chains[0].instructions[0].index2, 1);
  etk_program_free(p);
  ptu_put_u32(d + at + 4, 2);
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_FORMAT);
  CHECK(strstr(err.message, "jump destination 2") != NULL);
  ptu_put_u32(d + at + 4, 0x80000000u);
  CHECK_EQ_INT(ptu_load_status(d, len, &p, &err), ETK_E_FORMAT);
  free(d);
}

ETK_TEST(corrupt_root_and_vtables) {
  size_t len;
  uint8_t *d = read_conf("add.pte", &len);
  if (!d) ETK_SKIP("add.pte not found");
  uint8_t *c = malloc(len);
  etk_program_t *p;
  etk_error_t err;
  memcpy(c, d, len);
  ptu_put_u32(c, (uint32_t)len + 100);
  CHECK(ptu_load_status(c, len, &p, &err) != ETK_OK);
  CHECK(strstr(err.message, "malformed program") != NULL);
  CHECK(err.offset != ETK_NO_OFFSET);
  /* Flip bytes one at a time: never a crash, either a clean error or a
   * program whose invariants hold. */
  for (size_t i = 8; i < len; i++) {
    memcpy(c, d, len);
    c[i] ^= 0x5A;
    int rc = ptu_load_status(c, len, &p, &err);
    if (rc == ETK_OK) {
      for (uint32_t k = 0; k < p->plans[0].chains[0].instruction_count; k++) {
        const etk_program_instruction_t *x =
            &p->plans[0].chains[0].instructions[k];
        for (uint32_t a = 0; a < x->arg_count; a++)
          CHECK(x->args[a] >= 0 &&
                (uint32_t)x->args[a] < p->plans[0].value_count);
      }
      etk_program_free(p);
    } else {
      CHECK(err.message[0] != 0);
    }
  }
  free(c);
  free(d);
}

ETK_TEST(limits_apply) {
  size_t len;
  uint8_t *d = read_conf("add.pte", &len);
  if (!d) ETK_SKIP("add.pte not found");
  etk_program_options_t opt = {0};
  opt.max_values = 3;
  etk_program_t *p;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_program_load(d, len, &opt, &p, &err), ETK_E_LIMIT);
  opt.max_values = 0;
  opt.max_file_size = 100;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_program_load(d, len, &opt, &p, &err), ETK_E_LIMIT);
  free(d);
}

ETK_TEST(load_file_reports_path) {
  etk_program_t *p;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_program_load_file("/nonexistent/x.pte", NULL, &p, &err),
               ETK_E_IO);
  CHECK_EQ_STR(err.where, "/nonexistent/x.pte");
  const char *path = etk_test_conformance_path("etdump_tutorial.etdp");
  if (path) {
    etk_error_clear(&err);
    CHECK(etk_program_load_file(path, NULL, &p, &err) != ETK_OK);
    CHECK_EQ_STR(err.where, path);
  }
}

ETK_TEST_MAIN()
