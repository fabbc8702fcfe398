/*
 * test_recorder_sinks.c - upstream's buffer_data_sink_test.cpp and
 * file_data_sink_test.cpp mirrored, plus the stream (UART-style) sink.
 */
#include <stdio.h>
#include <string.h>

#include "recorder_testutil.h"

static uint64_t storage[128 / 8 + 1]; /* 8-aligned; one spare word */
static etk_buffer_sink_t sink;

static void setup(void) {
  memset(storage, 0xAB, sizeof storage);
  CHECK_EQ_INT(etk_buffer_sink_init(&sink, storage, 128, 64), ETK_OK);
}

ETK_TEST(storage_size_check) {
  setup();
  CHECK_EQ_U64(etk_buffer_sink_capacity(&sink), 128);
  CHECK_EQ_U64(etk_buffer_sink_used(&sink), 0);
}

ETK_TEST(write_one_tensor_and_check_data) {
  static const float data[4] = {1, 2, 3, 4};
  uint64_t offset = 999;
  setup();
  CHECK_EQ_INT(etk_buffer_sink_write(&sink, data, sizeof data, &offset), 0);
  CHECK(offset != (uint64_t)-1);
  CHECK(memcmp((uint8_t *)storage + offset, data, sizeof data) == 0);
}

ETK_TEST(write_multi_tensors_and_check_data) {
  static const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  uint64_t oa, ob;
  setup();
  CHECK_EQ_INT(etk_buffer_sink_write(&sink, a, sizeof a, &oa), ETK_OK);
  CHECK_EQ_INT(etk_buffer_sink_write(&sink, b, sizeof b, &ob), ETK_OK);
  CHECK(memcmp((uint8_t *)storage + oa, a, sizeof a) == 0);
  CHECK(memcmp((uint8_t *)storage + ob, b, sizeof b) == 0);
  CHECK(ob > oa);
  /* the gap between the two writes is zeroed */
  for (uint64_t i = oa + sizeof a; i < ob; i++)
    CHECK_EQ_INT(((uint8_t *)storage)[i], 0);
}

ETK_TEST(pointer_alignment_check) {
  static const float data[4] = {1, 2, 3, 4};
  uint64_t offset;
  setup();
  CHECK_EQ_INT(etk_buffer_sink_write(&sink, data, sizeof data, &offset), 0);
  CHECK_EQ_INT(((uintptr_t)((uint8_t *)storage + offset)) % 64, 0);
}

ETK_TEST(unaligned_base_gives_nonzero_first_offset) {
  static const uint8_t data[3] = {1, 2, 3};
  uint64_t offset;
  uint8_t *base = (uint8_t *)storage + 1;
  etk_buffer_sink_t s;
  CHECK_EQ_INT(etk_buffer_sink_init(&s, base, 127, 64), ETK_OK);
  CHECK_EQ_INT(etk_buffer_sink_write(&s, data, sizeof data, &offset), ETK_OK);
  CHECK_EQ_INT(((uintptr_t)(base + offset)) % 64, 0);
  CHECK(offset != 0);
}

ETK_TEST(write_until_overflow) {
  static const float zeros[8] = {0};
  uint64_t offset;
  size_t used;
  setup();
  for (int i = 0; i < 2; i++)
    CHECK_EQ_INT(etk_buffer_sink_write(&sink, zeros, sizeof zeros, &offset),
                 ETK_OK);
  used = etk_buffer_sink_used(&sink);
  /* upstream: OutOfResources; nothing changes */
  CHECK_EQ_INT(etk_buffer_sink_write(&sink, zeros, sizeof zeros, &offset),
               ETK_E_FULL);
  CHECK_EQ_U64(etk_buffer_sink_used(&sink), used);
}

ETK_TEST(zero_length_write_reports_offset) {
  static const uint8_t one = 7;
  uint64_t offset = 99;
  setup();
  CHECK_EQ_INT(etk_buffer_sink_write(&sink, NULL, 0, &offset), ETK_OK);
  CHECK_EQ_U64(offset, 0);
  CHECK_EQ_INT(etk_buffer_sink_write(&sink, &one, 1, &offset), ETK_OK);
  CHECK_EQ_INT(etk_buffer_sink_write(&sink, NULL, 0, &offset), ETK_OK);
  CHECK_EQ_U64(offset, etk_buffer_sink_used(&sink));
}

ETK_TEST(illegal_alignment) {
  static const size_t bad[] = {0, 3, 5, 7, 100, 127};
  etk_buffer_sink_t s;
  for (size_t a = 1; a <= 128; a <<= 1)
    CHECK_EQ_INT(etk_buffer_sink_init(&s, storage, 128, a), ETK_OK);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK_EQ_INT(etk_buffer_sink_init(&s, storage, 128, bad[i]),
                 ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_buffer_sink_init(&s, NULL, 16, 64), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_buffer_sink_init(&s, NULL, 0, 64), ETK_OK);
}

/* ---------------------------------------------------------- file sink */

static long file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  long n;
  if (f == NULL) return -1;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fclose(f);
  return n;
}

ETK_TEST(file_creation_expect_fail) {
  etk_file_sink_t f;
  const char *path = etk_test_temp_path("sink.bin");
  CHECK_EQ_INT(etk_file_sink_open(&f, path), ETK_OK);
  CHECK_EQ_INT(etk_file_sink_close(&f), ETK_OK);
  remove(path);
  CHECK_EQ_INT(etk_file_sink_open(&f, ""), ETK_E_IO);
  CHECK_EQ_INT(etk_file_sink_open(&f, "/nonexistent-dir/x/y"), ETK_E_IO);
}

ETK_TEST(file_write_data_to_file) {
  static const char data[] = "Hello, World!";
  etk_file_sink_t f;
  uint64_t offset;
  const char *path = etk_test_temp_path("sink.bin");
  size_t n = strlen(data);
  unsigned char *back;
  size_t back_len;
  REQUIRE(etk_file_sink_open(&f, path) == ETK_OK);
  CHECK_EQ_INT(etk_file_sink_write(&f, data, n, &offset), ETK_OK);
  CHECK_EQ_U64(etk_file_sink_used(&f), n);
  CHECK_EQ_INT(etk_file_sink_close(&f), ETK_OK);
  CHECK_EQ_INT(etk_file_sink_write(&f, data, n, &offset), ETK_E_IO);
  CHECK_EQ_INT(file_size(path), (long)n);
  back = etk_test_read_file(path, &back_len);
  REQUIRE(back != NULL);
  CHECK(back_len == n && memcmp(back, data, n) == 0);
  free(back);
  remove(path);
}

ETK_TEST(file_write_multiple_data_and_check_offsets) {
  etk_file_sink_t f;
  uint64_t o1, o2, o3;
  const char *path = etk_test_temp_path("sink.bin");
  unsigned char *back;
  size_t back_len;
  REQUIRE(etk_file_sink_open(&f, path) == ETK_OK);
  CHECK_EQ_INT(etk_file_sink_write(&f, "Accelerate", 10, &o1), ETK_OK);
  CHECK_EQ_INT(etk_file_sink_write(&f, "Core", 4, &o2), ETK_OK);
  CHECK_EQ_INT(etk_file_sink_write(&f, "Experience", 10, &o3), ETK_OK);
  CHECK_EQ_U64(o1, 0);
  CHECK_EQ_U64(o2, 10);
  CHECK_EQ_U64(o3, 14);
  CHECK_EQ_U64(etk_file_sink_used(&f), 24);
  CHECK_EQ_INT(etk_file_sink_close(&f), ETK_OK);
  CHECK_EQ_INT(etk_file_sink_close(&f), ETK_OK); /* idempotent */
  CHECK_EQ_INT(file_size(path), 24);
  back = etk_test_read_file(path, &back_len);
  REQUIRE(back != NULL);
  CHECK(memcmp(back + o1, "Accelerate", 10) == 0);
  CHECK(memcmp(back + o2, "Core", 4) == 0);
  CHECK(memcmp(back + o3, "Experience", 10) == 0);
  free(back);
  remove(path);
}

/* -------------------------------------------------------- stream sink */

typedef struct uart {
  uint8_t bytes[256];
  size_t len;
  int fail_after; /* fail writes once len would exceed this (0 = never) */
} uart_t;

static int uart_write(void *ctx, const void *data, size_t len) {
  uart_t *u = (uart_t *)ctx;
  if (u->fail_after && u->len + len > (size_t)u->fail_after) return -1;
  if (len > sizeof u->bytes - u->len) return -1;
  memcpy(u->bytes + u->len, data, len);
  u->len += len;
  return 0;
}

ETK_TEST(stream_sink_offsets_are_running_counts) {
  static uart_t u;
  etk_stream_sink_t s;
  uint64_t o1, o2, o3;
  memset(&u, 0, sizeof u);
  CHECK_EQ_INT(etk_stream_sink_init(&s, NULL, &u), ETK_E_INVALID_ARGUMENT);
  REQUIRE(etk_stream_sink_init(&s, uart_write, &u) == ETK_OK);
  CHECK_EQ_INT(etk_stream_sink_write(&s, "abc", 3, &o1), ETK_OK);
  CHECK_EQ_INT(etk_stream_sink_write(&s, NULL, 0, &o2), ETK_OK);
  CHECK_EQ_INT(etk_stream_sink_write(&s, "defg", 4, &o3), ETK_OK);
  CHECK_EQ_U64(o1, 0);
  CHECK_EQ_U64(o2, 3);
  CHECK_EQ_U64(o3, 3);
  CHECK(u.len == 7 && memcmp(u.bytes, "abcdefg", 7) == 0);
}

ETK_TEST(stream_sink_failure_is_sticky) {
  static uart_t u;
  etk_stream_sink_t s;
  uint64_t o;
  memset(&u, 0, sizeof u);
  u.fail_after = 5;
  REQUIRE(etk_stream_sink_init(&s, uart_write, &u) == ETK_OK);
  CHECK_EQ_INT(etk_stream_sink_write(&s, "abc", 3, &o), ETK_OK);
  CHECK_EQ_INT(etk_stream_sink_write(&s, "defg", 4, &o), ETK_E_IO);
  u.fail_after = 0;
  CHECK_EQ_INT(etk_stream_sink_write(&s, "x", 1, &o), ETK_E_IO);
}

ETK_TEST(recorder_with_stream_sink) {
  /* tensors logged through a UART-like sink: offsets in the dump are where
   * the host finds the bytes in the concatenated stream */
  static uart_t u;
  static uint64_t arena[4096];
  static const int16_t a[4] = {1, 2, 3, 4}, b[2] = {5, 6};
  static const int64_t sa[1] = {4}, sb[1] = {2};
  rt_clock_t c;
  etk_recorder_t *rec;
  etk_stream_sink_t s;
  etk_data_sink_t ds;
  etk_recorder_tensor_t ta, tb;
  etk_recorder_value_t v;
  json_t *json;
  memset(&u, 0, sizeof u);
  memset(&c, 0, sizeof c);
  rec = rt_make(arena, sizeof arena, &c);
  REQUIRE(rec != NULL);
  REQUIRE(etk_stream_sink_init(&s, uart_write, &u) == ETK_OK);
  ds = etk_stream_sink_as_data_sink(&s);
  etk_recorder_set_data_sink(rec, &ds);
  ta = rt_tensor(ETK_SCALAR_TYPE_SHORT, 1, sa, a, sizeof a);
  tb = ta;
  tb.sizes = sb;
  tb.data = b;
  tb.nbytes = sizeof b;
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  v = etk_value_tensor(&ta);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  v = etk_value_tensor(&tb);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  REQUIRE(rt_finish_check(rec, &json));
  CHECK(u.len == sizeof a + sizeof b);
  if (json != NULL) {
    long long oa = rt_json_int(
        json, "run_data/0/events/0/debug_event/debug_entry/tensor/offset", -9);
    long long ob = rt_json_int(
        json, "run_data/0/events/1/debug_event/debug_entry/tensor/offset", -9);
    CHECK_EQ_INT(oa, 0);
    CHECK_EQ_INT(ob, (long long)sizeof a);
    CHECK(memcmp(u.bytes + ob, b, sizeof b) == 0);
    json_decref(json);
  }
}

ETK_TEST_MAIN()
