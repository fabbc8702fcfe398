/*
 * test_transport.c - the frame writer (etkit/transport.h): its bytes on the
 * wire against vectors worked out independently (Python's zlib.crc32 and a
 * ten-line rCOBS encoder, docs/transport.md), its RAM, chunking, streaming
 * through the recorder's stream sink, and its errors.
 */
#include <string.h>

#include "etk_test.h"
#include "etkit/recorder.h"
#include "etkit/transport.h"

typedef struct sink {
  uint8_t buf[1 << 16];
  size_t len;
  size_t calls;
  size_t fail_after; /* bytes accepted before failing; 0 = never fails */
} sink_t;

static int sink_write(void *ctx, const void *bytes, size_t n) {
  sink_t *s = ctx;
  s->calls++;
  if (s->fail_after && s->len + n > s->fail_after) return -1;
  if (n > sizeof s->buf - s->len) return -1;
  memcpy(s->buf + s->len, bytes, n);
  s->len += n;
  return 0;
}

static size_t count_frames(const sink_t *s) {
  size_t k = 0;
  for (size_t i = 0; i + 3 < s->len; i++)
    if (s->buf[i] == 0 && s->buf[i + 1] == 0xff && s->buf[i + 2] == 'E' &&
        s->buf[i + 3] == 'T')
      k++;
  return k;
}

ETK_TEST(crc32_check_value) {
  CHECK_EQ_U64(etk_crc32(0, "123456789", 9), 0xCBF43926u);
  CHECK_EQ_U64(etk_crc32(etk_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
  CHECK_EQ_U64(etk_crc32(0, NULL, 0), 0);
}

ETK_TEST(state_fits_256_bytes) {
  CHECK(sizeof(etk_tx_t) <= 256);
}

/* kind 1, last chunk, "a.bin", data 00 01 02 (zlib.crc32 by Python) */
ETK_TEST(one_frame_byte_for_byte) {
  static const uint8_t want[] = {
      0x00, 0xff, 0x45, 0x54, 0x01, 0x01, 0x01, 0x05, 0x61, 0x2e,
      0x62, 0x69, 0x6e, 0x0a, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
      0x01, 0x01, 0x01, 0x02, 0x03, 0x04, 0x03, 0x02, 0x01, 0x01,
      0x7f, 0x89, 0x54, 0x08, 0xbf, 0x39, 0x85, 0xb5, 0x09, 0x00};
  static sink_t s;
  s.len = 0;
  etk_tx_t tx;
  REQUIRE(etk_tx_init(&tx, sink_write, &s) == ETK_OK);
  REQUIRE(etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, "a.bin", "\0\1\2", 3) ==
          ETK_OK);
  CHECK_EQ_U64(s.len, sizeof want);
  CHECK(memcmp(s.buf, want, sizeof want) == 0);
}

ETK_TEST(end_stream_byte_for_byte) {
  static const uint8_t want[] = {
      0x00, 0xff, 0x45, 0x54, 0x01, 0x02, 0x01, 0x02, 0x01, 0x01, 0x01,
      0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
      0x01, 0x01, 0x01, 0x01, 0x66, 0xee, 0x66, 0xda, 0x05, 0x00};
  static sink_t s;
  s.len = 0;
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  REQUIRE(etk_tx_end_stream(&tx) == ETK_OK);
  CHECK_EQ_U64(s.len, sizeof want);
  CHECK(memcmp(s.buf, want, sizeof want) == 0);
}

/* No 0x00 inside a frame, whatever the data: only the delimiters. */
ETK_TEST(zeros_only_at_delimiters) {
  static sink_t s;
  s.len = 0;
  static uint8_t data[10000];
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t)(i < 3000 ? 0 : i < 6000 ? 0xA5 : (i * 7) & 0xff);
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  REQUIRE(etk_tx_send_file(&tx, ETK_TX_KIND_DEBUG_BUFFER, "d.bin", data,
                           sizeof data) == ETK_OK);
  size_t frames = count_frames(&s), zeros = 0;
  for (size_t i = 0; i < s.len; i++) zeros += s.buf[i] == 0;
  CHECK_EQ_U64(frames, 3); /* 4096 + 4096 + 1808 */
  CHECK_EQ_U64(zeros, 2 * frames);
  CHECK(s.len <= etk_tx_wire_bound(sizeof data, 5, ETK_TX_CHUNK_DEFAULT));
}

ETK_TEST(chunk_size_and_empty_file) {
  static sink_t s;
  s.len = 0;
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  CHECK(etk_tx_set_chunk_bytes(&tx, 0) == ETK_E_INVALID_ARGUMENT);
  CHECK(etk_tx_set_chunk_bytes(&tx, 65536) == ETK_E_INVALID_ARGUMENT);
  REQUIRE(etk_tx_set_chunk_bytes(&tx, 100) == ETK_OK);
  static uint8_t data[1000];
  memset(data, 7, sizeof data);
  REQUIRE(etk_tx_send_file(&tx, ETK_TX_KIND_OUTPUT, "o.bin", data, 1000) ==
          ETK_OK);
  CHECK_EQ_U64(count_frames(&s), 10);
  s.len = 0;
  REQUIRE(etk_tx_send_file(&tx, ETK_TX_KIND_OUTPUT, "e.bin", NULL, 0) ==
          ETK_OK);
  CHECK_EQ_U64(count_frames(&s), 1);
}

ETK_TEST(names_checked) {
  CHECK(etk_tx_name_ok("etdump.etdp", 11));
  CHECK(!etk_tx_name_ok("../x", 4));
  CHECK(!etk_tx_name_ok("a/b", 3));
  CHECK(!etk_tx_name_ok(".hidden", 7));
  CHECK(!etk_tx_name_ok("", 0));
  char longname[ETK_TX_NAME_MAX + 2];
  memset(longname, 'a', sizeof longname);
  longname[ETK_TX_NAME_MAX + 1] = '\0';
  CHECK(!etk_tx_name_ok(longname, ETK_TX_NAME_MAX + 1));
  CHECK(etk_tx_name_ok(longname, ETK_TX_NAME_MAX));
  etk_tx_t tx;
  static sink_t s;
  etk_tx_init(&tx, sink_write, &s);
  CHECK(etk_tx_open(&tx, ETK_TX_KIND_LOG, "a b") == ETK_E_INVALID_ARGUMENT);
  CHECK(etk_tx_open(&tx, ETK_TX_KIND_END_STREAM, "a") ==
        ETK_E_INVALID_ARGUMENT);
  CHECK(etk_tx_open(&tx, (etk_tx_kind_t)6, "a") == ETK_E_INVALID_ARGUMENT);
}

/* Small writes wait in the staging area; a write never leaves a frame
 * half-sent, so text printed between calls lands between frames. */
ETK_TEST(streaming_coalesces_and_ends_frames) {
  static sink_t s;
  s.len = 0;
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  REQUIRE(etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "db.bin") == ETK_OK);
  CHECK(etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "x") == ETK_E_INVALID_STATE);
  uint8_t piece[40];
  memset(piece, 0x11, sizeof piece);
  for (int i = 0; i < 4; i++) CHECK(etk_tx_write(&tx, piece, 40) == ETK_OK);
  CHECK_EQ_U64(s.len, 0); /* 160 bytes staged */
  CHECK(etk_tx_write(&tx, piece, 40) == ETK_OK);
  CHECK_EQ_U64(count_frames(&s), 1);
  CHECK_EQ_U64(s.buf[s.len - 1], 0);
  CHECK(etk_tx_end_stream(&tx) == ETK_E_INVALID_STATE);
  CHECK(etk_tx_close(&tx) == ETK_OK);
  CHECK_EQ_U64(count_frames(&s), 2);
  CHECK(etk_tx_close(&tx) == ETK_E_INVALID_STATE);
  CHECK(etk_tx_write(&tx, piece, 1) == ETK_E_INVALID_STATE);
}

/* The recorder's stream sink writes through the writer. */
ETK_TEST(recorder_stream_sink_through_writer) {
  static sink_t s;
  s.len = 0;
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  REQUIRE(etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "db.bin") == ETK_OK);
  etk_stream_sink_t sink;
  REQUIRE(etk_stream_sink_init(&sink, etk_tx_write, &tx) == ETK_OK);
  uint8_t t[500];
  memset(t, 3, sizeof t);
  uint64_t off = 99;
  REQUIRE(etk_stream_sink_write(&sink, t, sizeof t, &off) == ETK_OK);
  CHECK_EQ_U64(off, 0);
  REQUIRE(etk_stream_sink_write(&sink, t, 10, &off) == ETK_OK);
  CHECK_EQ_U64(off, 500);
  CHECK(etk_tx_close(&tx) == ETK_OK);
  CHECK_EQ_U64(count_frames(&s), 2);
}

/* Exclusive mode: one frame per full chunk whatever the write sizes; a
 * failure mid-frame sticks and close reports it without writing more. */
ETK_TEST(exclusive_mode) {
  static sink_t s;
  memset(&s, 0, sizeof s);
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  etk_tx_set_chunk_bytes(&tx, 1000);
  REQUIRE(etk_tx_set_exclusive(&tx, 1) == ETK_OK);
  REQUIRE(etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "db.bin") == ETK_OK);
  uint8_t piece[7] = {1, 2, 0, 4, 5, 0, 7};
  for (int i = 0; i < 300; i++) CHECK(etk_tx_write(&tx, piece, 7) == ETK_OK);
  /* 2100 bytes: two full chunks, the third frame open */
  CHECK_EQ_U64(count_frames(&s), 3);
  CHECK(s.buf[s.len - 1] != 0);
  CHECK(etk_tx_close(&tx) == ETK_OK);
  CHECK_EQ_U64(count_frames(&s), 4); /* it closes, then an empty last */
  s.len = 0;
  s.fail_after = 500;
  REQUIRE(etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "db.bin") == ETK_OK);
  int rc = ETK_OK;
  for (int i = 0; i < 300 && rc == ETK_OK; i++)
    rc = etk_tx_write(&tx, piece, 7);
  CHECK(rc == ETK_E_IO);
  size_t calls = s.calls;
  CHECK(etk_tx_close(&tx) == ETK_E_IO);
  CHECK_EQ_U64(s.calls, calls);
}

ETK_TEST(write_failure_sticks) {
  static sink_t s;
  memset(&s, 0, sizeof s);
  s.fail_after = 30;
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  uint8_t data[100] = {1};
  CHECK(etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, "a", data, 100) == ETK_E_IO);
  s.fail_after = 0;
  CHECK(etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, "a", data, 100) == ETK_E_IO);
  CHECK(etk_tx_init(&tx, sink_write, &s) == ETK_OK);
  CHECK(etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, "a", data, 100) == ETK_OK);
}

ETK_TEST(bad_arguments) {
  etk_tx_t tx;
  CHECK(etk_tx_init(NULL, sink_write, NULL) == ETK_E_INVALID_ARGUMENT);
  CHECK(etk_tx_init(&tx, NULL, NULL) == ETK_E_INVALID_ARGUMENT);
  etk_tx_init(&tx, sink_write, NULL);
  CHECK(etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, "a", NULL, 3) ==
        ETK_E_INVALID_ARGUMENT);
  CHECK(etk_tx_write(NULL, "a", 1) == ETK_E_INVALID_ARGUMENT);
}

ETK_TEST_MAIN()
