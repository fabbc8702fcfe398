/*
 * test_transport.c - the frame writer (etkit/transport.h): its bytes on the
 * wire against vectors worked out independently (Python's zlib.crc32 and a
 * short rCOBS encoder, docs/transport.md: make_vectors.py), its RAM, chunking,
 * streaming through the recorder's stream sink, and its errors.
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

/* The vectors are tests/transport/make_vectors.py's output (zlib.crc32
 * and its own rCOBS encoder, from docs/transport.md). */

/* kind 1, the only chunk (FIRST|LAST), id 1, "a.bin", data 00 01 02 */
ETK_TEST(one_frame_byte_for_byte) {
  static const uint8_t want[] = {0x00, 0xff, 0x45, 0x54, 0x02, 0x03, 0x01, 0x01,
                                 0x05, 0x61, 0x2e, 0x62, 0x69, 0x6e, 0x0b, 0x01,
                                 0x02, 0x5c, 0x59, 0x5c, 0x02, 0x07, 0x00};
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
  static const uint8_t want[] = {0x00, 0xff, 0x45, 0x54, 0x02, 0x03, 0x03, 0x01,
                                 0x01, 0x93, 0x0b, 0x57, 0xae, 0x05, 0x00};
  static sink_t s;
  s.len = 0;
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  REQUIRE(etk_tx_end_stream(&tx) == ETK_OK);
  CHECK_EQ_U64(s.len, sizeof want);
  CHECK(memcmp(s.buf, want, sizeof want) == 0);
}

/* "b", kind 3, 2-byte chunks, data 01 02 03 in two parts: the first chunk
 * names the file, the second has sequence 1, offset 2 and the file CRC. */
ETK_TEST(two_chunks_byte_for_byte) {
  static const uint8_t want[] = {0x00, 0xff, 0x45, 0x54, 0x02, 0x01, 0x01, 0x03,
                                 0x01, 0x62, 0x01, 0x02, 0x93, 0x52, 0x76, 0x09,
                                 0x0d, 0x00, 0x00, 0xff, 0x45, 0x54, 0x02, 0x02,
                                 0x01, 0x01, 0x02, 0x03, 0x1d, 0x80, 0xbc, 0x55,
                                 0x31, 0x90, 0x0b, 0xb9, 0x0f, 0x00};
  static sink_t s;
  s.len = 0;
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  REQUIRE(etk_tx_set_chunk_bytes(&tx, 2) == ETK_OK);
  etk_tx_part_t parts[3] = {{"\1", 1}, {NULL, 0}, {"\2\3", 2}};
  REQUIRE(etk_tx_send_parts(&tx, ETK_TX_KIND_OUTPUT, "b", parts, 3) == ETK_OK);
  CHECK_EQ_U64(s.len, sizeof want);
  CHECK(memcmp(s.buf, want, sizeof want) == 0);
  /* streamed the same way, the bytes are the same but for the file id */
  sink_t *t = &s;
  size_t first = t->len;
  REQUIRE(etk_tx_open(&tx, ETK_TX_KIND_OUTPUT, "b") == ETK_OK);
  REQUIRE(etk_tx_write(&tx, "\1\2\3", 3) == ETK_OK);
  REQUIRE(etk_tx_close(&tx) == ETK_OK);
  CHECK_EQ_U64(t->len - first, sizeof want);
  CHECK_EQ_U64(t->buf[first + 6], 2); /* the second file: id 2 */
}

/* File ids run 1..255 and skip 0 (the end of stream's). */
ETK_TEST(file_ids_wrap_past_zero) {
  static sink_t s;
  etk_tx_t tx;
  etk_tx_init(&tx, sink_write, &s);
  for (int i = 1; i <= 256; i++) {
    s.len = 0;
    REQUIRE(etk_tx_send_file(&tx, ETK_TX_KIND_LOG, "l", "x", 1) == ETK_OK);
    CHECK_EQ_U64(s.buf[6], i <= 255 ? (unsigned)i : 1u);
  }
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
  etk_tx_part_t bad = {NULL, 2};
  CHECK(etk_tx_send_parts(&tx, ETK_TX_KIND_ETDUMP, "a", &bad, 1) ==
        ETK_E_INVALID_ARGUMENT);
  CHECK(etk_tx_send_parts(&tx, ETK_TX_KIND_ETDUMP, "a", NULL, 1) ==
        ETK_E_INVALID_ARGUMENT);
  CHECK(etk_tx_write(NULL, "a", 1) == ETK_E_INVALID_ARGUMENT);
}

ETK_TEST_MAIN()
