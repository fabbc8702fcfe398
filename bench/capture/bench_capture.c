/*
 * bench_capture.c - figures of the transport and the capture decoder:
 *
 *   bench_capture [ETDUMP]      (e.g. the demo's etdump.etdp)
 *
 * prints "<name> <value> <unit>" lines: the writer's staging RAM (the
 * whole etk_tx_t), the framing's wire overhead for ETDUMP sent whole, for
 * a 1 MB dump made of ETDUMP's bytes repeated and for 1 MB of non-zero
 * bytes (rCOBS's worst case) and for a streamed debug buffer of 1 KB
 * tensors, the writer's speed, and the capture's decoding speed in MB/s
 * of input (framed streams with log text, and an Arm runner base64 log).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etkit/capture.h"
#include "etkit/transport.h"
#include "stream_edit.h" /* buf_t, buf_write (tests/capture) */

static int count_only(void *ctx, const void *bytes, size_t n) {
  (void)bytes;
  *(size_t *)ctx += n;
  return 0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double overhead(const uint8_t *data, size_t len, const char *name) {
  size_t wire = 0;
  etk_tx_t tx;
  etk_tx_init(&tx, count_only, &wire);
  etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, name, data, len);
  return 100.0 * (double)(wire - len) / (double)len;
}

static int on_file(void *ctx, const etk_capture_file_t *f) {
  *(size_t *)ctx += f->complete ? f->size : 0;
  return 0;
}

/* MB/s of input through the capture, best of 3. */
static double decode_speed(const buf_t *s, size_t want) {
  double best = 0;
  for (int r = 0; r < 3; r++) {
    size_t got = 0;
    etk_capture_callbacks_t cb = {on_file, NULL, &got};
    etk_capture_t *cap = NULL;
    etk_capture_new(&cb, &cap);
    double t0 = now();
    for (size_t i = 0; i < s->len; i += 65536)
      etk_capture_feed(cap, s->p + i, s->len - i < 65536 ? s->len - i : 65536);
    etk_capture_finish(cap);
    double dt = now() - t0;
    etk_capture_free(cap);
    if (got != want) {
      fprintf(stderr, "bench_capture: decoded %zu bytes, expected %zu\n", got,
              want);
      exit(1);
    }
    double mbs = (double)s->len / dt / 1e6;
    if (mbs > best) best = mbs;
  }
  return best;
}

static uint8_t *load(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  buf_t b = {0};
  uint8_t chunk[8192];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_write(&b, chunk, n);
  fclose(f);
  *len = b.len;
  return b.p;
}

static const char B64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void arm_block(buf_t *s, const uint8_t *p, size_t n) {
  const char *head = "#[RUN THIS]\n# Writing blob.bin [base64]\necho \"";
  buf_write(s, head, strlen(head));
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) |
                 (i + 2 < n ? p[i + 2] : 0);
    char q[4] = {B64[v >> 18], B64[(v >> 12) & 63],
                 i + 1 < n ? B64[(v >> 6) & 63] : '=',
                 i + 2 < n ? B64[v & 63] : '='};
    buf_write(s, q, 4);
  }
  const char *tail = "\" | base64 -d >blob.bin\n#[END]\n";
  buf_write(s, tail, strlen(tail));
}

int main(int argc, char **argv) {
  enum { MB = 1 << 20, FILES = 32 };
  printf("writer_staging_ram %zu bytes\n", sizeof(etk_tx_t));
  uint8_t *mb = malloc(MB), *worst = malloc(MB);
  size_t dump_len = 0;
  uint8_t *dump = argc > 1 ? load(argv[1], &dump_len) : NULL;
  if (argc > 1 && (!dump || dump_len == 0)) {
    fprintf(stderr, "bench_capture: cannot read %s\n", argv[1]);
    return 1;
  }
  uint32_t x = 1;
  for (size_t i = 0; i < MB; i++) {
    x = x * 1103515245u + 12345u;
    worst[i] = (uint8_t)((x >> 24) | 1);
    mb[i] = dump ? dump[i % dump_len] : worst[i];
  }
  if (dump)
    printf("wire_overhead_demo_etdump %.3f %% (%zu bytes)\n",
           overhead(dump, dump_len, "etdump.etdp"), dump_len);
  printf("wire_overhead_1mb_dump %.3f %%%s\n", overhead(mb, MB, "etdump.etdp"),
         dump ? " (the ETDump's bytes repeated)" : " (non-zero bytes)");
  printf("wire_overhead_1mb_nonzero %.3f %%\n",
         overhead(worst, MB, "etdump.etdp"));
  {
    size_t wire = 0;
    etk_tx_t tx;
    etk_tx_init(&tx, count_only, &wire);
    etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "debug_buffer.bin");
    for (size_t i = 0; i < MB; i += 1024) etk_tx_write(&tx, mb + i, 1024);
    etk_tx_close(&tx);
    printf("wire_overhead_streamed_1kb_tensors %.3f %%\n",
           100.0 * (double)(wire - MB) / MB);
    wire = 0;
    etk_tx_set_exclusive(&tx, 1);
    etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "debug_buffer.bin");
    for (size_t i = 0; i < MB; i += 64) etk_tx_write(&tx, mb + i, 64);
    etk_tx_close(&tx);
    printf("wire_overhead_streamed_exclusive_64b_writes %.3f %%\n",
           100.0 * (double)(wire - MB) / MB);
  }
  /* a framed stream: FILES x 1 MB with a log line between frames */
  buf_t s = {0};
  etk_tx_t tx;
  etk_tx_init(&tx, buf_write, &s);
  double t0 = now();
  for (int k = 0; k < FILES; k++) {
    etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, "etdump.etdp", mb, MB);
    const char *line = "I [etkit] sent one dump\n";
    buf_write(&s, line, strlen(line));
  }
  printf("writer_speed %.1f MB/s\n", FILES * (double)MB / (now() - t0) / 1e6);
  printf("capture_framed_speed %.1f MB/s\n", decode_speed(&s, FILES * MB));
  buf_t a = {0};
  for (int k = 0; k < FILES / 4; k++) arm_block(&a, worst, MB);
  printf("capture_arm_log_speed %.1f MB/s\n", decode_speed(&a, FILES / 4 * MB));
  free(s.p);
  free(a.p);
  free(mb);
  free(worst);
  free(dump);
  return 0;
}
