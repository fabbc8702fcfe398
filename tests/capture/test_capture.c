/*
 * test_capture.c - the capture decoder (etkit/capture.h) on streams the
 * frame writer makes: round trips fed in pieces of every size with log
 * text around and between frames, each kind of damage named, and
 * upstream's Arm runner blocks (LF, CRLF, cut, bad characters).
 */
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/capture.h"
#include "etkit/transport.h"
#include "stream_edit.h"

/* What the callbacks saw. */
typedef struct seen {
  int files, complete;
  char names[8][80];
  uint8_t *data[8];
  size_t size[8];
  int ok[8];
  char problems[2048];
  int stream_problems;
} seen_t;

static int on_file(void *ctx, const etk_capture_file_t *f) {
  seen_t *s = ctx;
  if (s->files < 8) {
    int i = s->files;
    snprintf(s->names[i], sizeof s->names[i], "%s", f->out_name);
    s->data[i] = malloc(f->size + 1);
    if (f->size) memcpy(s->data[i], f->data, f->size);
    s->size[i] = f->size;
    s->ok[i] = f->complete;
  }
  s->files++;
  s->complete += f->complete;
  for (size_t k = 0; k < f->problem_count; k++) {
    size_t used = strlen(s->problems);
    snprintf(s->problems + used, sizeof s->problems - used, "%s: %s\n", f->name,
             f->problems[k]);
  }
  return 0;
}

static void on_problem(void *ctx, const char *msg) {
  seen_t *s = ctx;
  s->stream_problems++;
  size_t used = strlen(s->problems);
  snprintf(s->problems + used, sizeof s->problems - used, "stream: %s\n", msg);
}

static void seen_free(seen_t *s) {
  for (int i = 0; i < 8 && i < s->files; i++) free(s->data[i]);
}

/* Feeds the stream in pieces of `piece` bytes (0: all at once). */
static int capture(const buf_t *b, size_t piece, seen_t *s) {
  memset(s, 0, sizeof *s);
  etk_capture_callbacks_t cb = {on_file, on_problem, s};
  etk_capture_t *cap = NULL;
  if (etk_capture_new(&cb, &cap) != ETK_OK) return -1;
  size_t step = piece ? piece : b->len;
  for (size_t i = 0; i < b->len; i += step) {
    size_t n = b->len - i < step ? b->len - i : step;
    if (etk_capture_feed(cap, b->p + i, n) != ETK_OK) return -1;
  }
  int rc = etk_capture_finish(cap);
  etk_capture_free(cap);
  return rc;
}

static uint8_t data_a[20000], data_b[3000];

static void fill(void) {
  uint32_t x = 12345;
  for (size_t i = 0; i < sizeof data_a; i++) {
    x = x * 1103515245u + 12345u;
    data_a[i] = (uint8_t)(i % 7 == 0 ? 0 : x >> 24);
  }
  for (size_t i = 0; i < sizeof data_b; i++) data_b[i] = (uint8_t)(i % 300);
}

/* Text, a whole file, text, a streamed file with text between writes,
 * end of stream. */
static void clean_stream(buf_t *b) {
  fill();
  memset(b, 0, sizeof *b);
  etk_tx_t tx;
  etk_tx_init(&tx, buf_write, b);
  buf_text(b, "I [executorch:main.c:10] booting\r\nhalf a line ");
  etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, "etdump.etdp", data_a,
                   sizeof data_a);
  buf_text(b, "... done\nsecond line\n");
  etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "debug_buffer.bin");
  for (size_t off = 0; off < sizeof data_b;) {
    size_t n = off % 3 ? 17 : 700;
    if (n > sizeof data_b - off) n = sizeof data_b - off;
    etk_tx_write(&tx, data_b + off, n);
    buf_text(b, "op done\n");
    off += n;
  }
  etk_tx_close(&tx);
  buf_text(b, "bye\n");
  etk_tx_end_stream(&tx);
}

ETK_TEST(round_trip_any_piece_size) {
  buf_t b;
  clean_stream(&b);
  size_t pieces[] = {0, 1, 2, 3, 7, 254, 255, 4096};
  for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
    seen_t s;
    REQUIRE(capture(&b, pieces[k], &s) == ETK_OK);
    CHECK_EQ_INT(s.files, 2);
    CHECK_EQ_INT(s.complete, 2);
    CHECK_EQ_STR(s.names[0], "etdump.etdp");
    CHECK_EQ_STR(s.names[1], "debug_buffer.bin");
    CHECK(s.size[0] == sizeof data_a &&
          memcmp(s.data[0], data_a, sizeof data_a) == 0);
    CHECK(s.size[1] == sizeof data_b &&
          memcmp(s.data[1], data_b, sizeof data_b) == 0);
    CHECK_EQ_INT(s.stream_problems, 0);
    seen_free(&s);
  }
  free(b.p);
}

static void damaged(void (*edit)(buf_t *), const char *want_problem,
                    int want_complete) {
  buf_t b;
  clean_stream(&b);
  edit(&b);
  seen_t s;
  REQUIRE(capture(&b, 5, &s) == ETK_OK);
  CHECK_EQ_INT(s.complete, want_complete);
  if (!strstr(s.problems, want_problem))
    printf("# wanted \"%s\" in:\n%s", want_problem, s.problems);
  CHECK(strstr(s.problems, want_problem) != NULL);
  /* an incomplete file's bytes are a true prefix */
  for (int i = 0; i < s.files && i < 8; i++) {
    const uint8_t *src =
        strcmp(s.names[i], "etdump.etdp") == 0 ? data_a : data_b;
    size_t cap = src == data_a ? sizeof data_a : sizeof data_b;
    CHECK(s.size[i] <= cap && memcmp(s.data[i], src, s.size[i]) == 0);
  }
  seen_free(&s);
  free(b.p);
}

static void flip(buf_t *b) {
  edit_flip(b, 2);
}
static void lose(buf_t *b) {
  edit_lose(b, 1);
}
static void duplicate(buf_t *b) {
  edit_duplicate(b, 1);
}
static void reorder(buf_t *b) {
  edit_swap_next(b, 1);
}
static void truncate_end(buf_t *b) {
  edit_cut_inside(b, 4);
}
static void inject(buf_t *b) {
  edit_inject(b, 3);
}
static void lose_last_of_stream(buf_t *b) {
  /* the debug buffer's end-of-file frame is the one before end-of-stream */
  int k = 0;
  size_t end;
  while (frame_at(b, k + 1, &end), end != 0) k++;
  edit_lose(b, k - 1);
}
static void lose_first(buf_t *b) {
  edit_lose(b, 0);
}
static void reorder_first(buf_t *b) {
  edit_swap_next(b, 0);
}
static void duplicate_last(buf_t *b) {
  edit_duplicate(b, 4); /* the ETDump's end-of-file frame */
}

ETK_TEST(flipped_byte) {
  damaged(flip, "etdump.etdp: chunk 2 damaged", 1);
}
ETK_TEST(lost_chunk) {
  damaged(lose, "etdump.etdp: chunk 1 missing", 1);
}
ETK_TEST(duplicated_chunk) {
  damaged(duplicate, "etdump.etdp: chunk 1 duplicated", 1);
}
ETK_TEST(reordered_chunk) {
  damaged(reorder, "chunk 1 arrived after chunk 2 (reordered)", 1);
}
ETK_TEST(truncated_end) {
  damaged(truncate_end, "etdump.etdp: no end-of-file frame", 0);
}
ETK_TEST(text_injected_mid_frame) {
  damaged(inject, "etdump.etdp: chunk 3 damaged", 1);
}
ETK_TEST(lost_end_of_file_frame) {
  damaged(lose_last_of_stream, "debug_buffer.bin: no end-of-file frame", 1);
}
ETK_TEST(lost_first_chunk) {
  /* the chunk that names it is gone: the file is still reported */
  damaged(lose_first, "unnamed-1: chunk 0 missing", 1);
}

ETK_TEST(reordered_first_chunk) {
  /* the naming chunk comes late: the file has its name, not complete */
  damaged(reorder_first, "etdump.etdp: chunk 0 arrived after chunk 1", 1);
}
ETK_TEST(duplicated_end_of_file_frame) {
  damaged(duplicate_last,
          "chunk 4 of etdump.etdp arrived after its end-of-file frame", 2);
}

/* Exclusive mode: a streamed file in writes of any size costs full
 * chunks, and still decodes byte for byte; text printed meanwhile lands
 * inside a frame and is caught. */
ETK_TEST(exclusive_streaming) {
  fill();
  for (int texted = 0; texted < 2; texted++) {
    buf_t b = {0};
    etk_tx_t tx;
    etk_tx_init(&tx, buf_write, &b);
    REQUIRE(etk_tx_set_exclusive(&tx, 1) == ETK_OK);
    REQUIRE(etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "db.bin") == ETK_OK);
    CHECK(etk_tx_set_exclusive(&tx, 0) == ETK_E_INVALID_STATE);
    for (size_t off = 0, k = 1; off < sizeof data_a; k = k * 3 % 997) {
      size_t n = k < sizeof data_a - off ? k : sizeof data_a - off;
      REQUIRE(etk_tx_write(&tx, data_a + off, n) == ETK_OK);
      if (texted && off > 5000 && off < 5600) buf_text(&b, "printf!\n");
      off += n;
    }
    REQUIRE(etk_tx_close(&tx) == ETK_OK);
    size_t end;
    int frames = 0;
    while (frame_at(&b, frames, &end), end != 0) frames++;
    CHECK_EQ_INT(frames, 5 + 1); /* 20000 / 4096 -> 5, then the empty last */
    seen_t s;
    REQUIRE(capture(&b, 11, &s) == ETK_OK);
    CHECK_EQ_INT(s.files, 1);
    CHECK_EQ_INT(s.complete, texted ? 0 : 1);
    if (!texted)
      CHECK(s.size[0] == sizeof data_a &&
            memcmp(s.data[0], data_a, sizeof data_a) == 0);
    else
      CHECK(strstr(s.problems, "db.bin: chunk 1 damaged") != NULL);
    seen_free(&s);
    free(b.p);
  }
}

ETK_TEST(stream_end_seen) {
  buf_t b;
  clean_stream(&b);
  seen_t s;
  memset(&s, 0, sizeof s);
  etk_capture_callbacks_t cb = {on_file, NULL, &s};
  etk_capture_t *cap = NULL;
  REQUIRE(etk_capture_new(&cb, &cap) == ETK_OK);
  REQUIRE(etk_capture_feed(cap, b.p, b.len - 10) == ETK_OK);
  CHECK(!etk_capture_ended(cap));
  REQUIRE(etk_capture_feed(cap, b.p + b.len - 10, 10) == ETK_OK);
  CHECK(etk_capture_ended(cap));
  etk_capture_stats_t st;
  etk_capture_get_stats(cap, &st);
  CHECK_EQ_U64(st.bad_frames, 0);
  CHECK(st.text_bytes > 50);
  etk_capture_finish(cap);
  etk_capture_free(cap);
  seen_free(&s);
  free(b.p);
}

/* ------------------------------------------------------------ Arm logs */

static const char *const B64 =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64(buf_t *b, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
    if (i + 2 < n) v |= p[i + 2];
    char q[4] = {B64[v >> 18], B64[(v >> 12) & 63],
                 i + 1 < n ? B64[(v >> 6) & 63] : '=',
                 i + 2 < n ? B64[v & 63] : '='};
    buf_write(b, q, 4);
  }
}

ETK_TEST(arm_block_other_file_lf_and_crlf) {
  fill();
  for (int crlf = 0; crlf < 2; crlf++) {
    const char *nl = crlf ? "\r\n" : "\n";
    buf_t b = {0};
    buf_text(&b, "I [executorch] model ran\n#[RUN THIS]");
    buf_text(&b, nl);
    buf_text(&b, "# Writing blob.bin [base64]");
    buf_text(&b, nl);
    buf_text(&b, "echo \"");
    b64(&b, data_b, 1000);
    buf_text(&b, "\" | base64 -d >blob.bin");
    buf_text(&b, nl);
    buf_text(&b, "#[END]");
    buf_text(&b, nl);
    seen_t s;
    REQUIRE(capture(&b, 3, &s) == ETK_OK);
    CHECK_EQ_INT(s.files, 1);
    CHECK_EQ_INT(s.complete, 1);
    CHECK_EQ_STR(s.names[0], "blob.bin");
    CHECK(s.size[0] == 1000 && memcmp(s.data[0], data_b, 1000) == 0);
    seen_free(&s);
    free(b.p);
  }
}

ETK_TEST(arm_block_cut_and_bad) {
  fill();
  buf_t b = {0};
  buf_text(&b, "#[RUN THIS]\necho \"");
  b64(&b, data_b, 999);
  b.len -= 2; /* shortened: not a multiple of 4 */
  buf_text(&b, "\" | base64 -d >a.bin\necho \"QUJD*EFG\" | base64 -d >b.bin\n");
  buf_text(&b, "echo \"QUJD\" | base64 >c.bin\necho \"QUJDRE");
  seen_t s;
  REQUIRE(capture(&b, 0, &s) == ETK_OK);
  CHECK_EQ_INT(s.files, 4);
  CHECK_EQ_INT(s.complete, 0);
  CHECK(strstr(s.problems, "a.bin: base64 text cut short") != NULL);
  CHECK(strstr(s.problems, "b.bin: bad base64 character 0x2a") != NULL);
  CHECK(strstr(s.problems, "does not end in '| base64 -d >NAME'") != NULL);
  CHECK(strstr(s.problems, "cut off before its closing quote") != NULL);
  CHECK(strstr(s.problems, "has no #[END]") != NULL);
  seen_free(&s);
  free(b.p);
}

/* A shortened ETDump-looking payload (size prefix claims more) fails. */
ETK_TEST(arm_etdump_must_verify) {
  uint8_t fake[64] = {60, 0, 0, 0, 8, 0, 0, 0, 'E', 'D', '0', '0'};
  buf_t b = {0};
  buf_text(&b, "#[RUN THIS]\necho \"");
  b64(&b, fake, 24);
  buf_text(&b, "\" | base64 -d >etdump.bin\n#[END]\n");
  seen_t s;
  REQUIRE(capture(&b, 0, &s) == ETK_OK);
  CHECK_EQ_INT(s.files, 1);
  CHECK_EQ_INT(s.complete, 0);
  CHECK(strstr(s.problems, "etdump.bin: not a whole ETDump") != NULL);
  seen_free(&s);
  free(b.p);
}

ETK_TEST(echo_outside_block_is_text) {
  buf_t b = {0};
  buf_text(&b, "echo \"QUJD\" | base64 -d >x.bin\n");
  seen_t s;
  REQUIRE(capture(&b, 0, &s) == ETK_OK);
  CHECK_EQ_INT(s.files, 0);
  CHECK_EQ_INT(s.stream_problems, 0);
  free(b.p);
}

ETK_TEST(garbage_never_complete) {
  uint8_t g[4096];
  uint32_t x = 7;
  for (int round = 0; round < 200; round++) {
    for (size_t i = 0; i < sizeof g; i++) {
      x = x * 1664525u + 1013904223u;
      g[i] = (uint8_t)(x >> 24);
      if (i % 97 == 0) g[i] = 0;
      if (i % 89 == 0) g[i] = 0xff;
    }
    buf_t b = {g, sizeof g, sizeof g};
    seen_t s;
    REQUIRE(capture(&b, 0, &s) == ETK_OK);
    CHECK_EQ_INT(s.complete, 0);
    seen_free(&s);
  }
}

/* Many files of one name get -2, -3, ...; a stream with more files open
 * at once than the capture assembles closes the oldest as incomplete. */
ETK_TEST(same_names_and_too_many_open) {
  buf_t b = {0};
  etk_tx_t tx;
  etk_tx_init(&tx, buf_write, &b);
  for (int i = 0; i < 5; i++)
    etk_tx_send_file(&tx, ETK_TX_KIND_OUTPUT, "out.bin", "x", 1);
  seen_t s;
  REQUIRE(capture(&b, 0, &s) == ETK_OK);
  CHECK_EQ_INT(s.files, 5);
  CHECK_EQ_INT(s.complete, 5);
  CHECK_EQ_STR(s.names[0], "out.bin");
  CHECK_EQ_STR(s.names[1], "out-2.bin");
  CHECK_EQ_STR(s.names[4], "out-5.bin");
  seen_free(&s);
  b.len = 0;
  for (int i = 0; i < 70; i++) {
    char name[16];
    snprintf(name, sizeof name, "f%d", i);
    etk_tx_open(&tx, ETK_TX_KIND_LOG, name);
    uint8_t big[300] = {1};
    etk_tx_write(&tx, big, sizeof big); /* one frame, the file stays open */
    tx.open = 0;                        /* and is never closed */
  }
  REQUIRE(capture(&b, 0, &s) == ETK_OK);
  CHECK_EQ_INT(s.files, 70);
  CHECK_EQ_INT(s.complete, 0);
  CHECK(strstr(s.problems, "more than 64 files were being sent at once"));
  seen_free(&s);
  free(b.p);
}

ETK_TEST(bad_arguments) {
  etk_capture_t *cap = (etk_capture_t *)1;
  CHECK(etk_capture_new(NULL, &cap) == ETK_E_INVALID_ARGUMENT);
  CHECK(cap == NULL);
  etk_capture_callbacks_t cb = {NULL, NULL, NULL};
  CHECK(etk_capture_new(&cb, &cap) == ETK_E_INVALID_ARGUMENT);
  CHECK(etk_capture_feed(NULL, "a", 1) == ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_STR(etk_capture_kind_name(2), "debug_buffer");
}

ETK_TEST_MAIN()
