/*
 * capture_fuzz.c - libFuzzer target of the capture decoder
 * (etkit/capture.h): any bytes, fed whole and then in pieces whose sizes
 * the first byte picks, must give the same files, never a crash, and never
 * a complete file whose bytes fail its own checks.
 *
 * The seeds (corpus/) are real streams the tests produce: framed demo
 * dumps clean and damaged, and upstream Arm runner logs (LF, CRLF, two
 * blocks, a cut line); see tests/capture/capture_cli.cmake (-DCORPUS=dir).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/capture.h"

typedef struct tally {
  uint64_t files, complete, bytes;
  uint32_t crc;
} tally_t;

static int on_file(void *ctx, const etk_capture_file_t *f) {
  tally_t *t = ctx;
  t->files++;
  t->complete += f->complete != 0;
  t->bytes += f->size;
  t->crc = etk_crc32(t->crc, f->data, f->size);
  if (f->complete && f->problem_count != 0) abort();
  if (!f->complete && f->problem_count == 0) abort();
  for (size_t i = 0; i < f->problem_count; i++)
    if (f->problems[i] == NULL || f->problems[i][0] == '\0') abort();
  return 0;
}

static void run(const uint8_t *data, size_t size, size_t piece, tally_t *t) {
  etk_capture_callbacks_t cb = {on_file, NULL, t};
  etk_capture_t *cap = NULL;
  if (etk_capture_new(&cb, &cap) != ETK_OK) return;
  for (size_t i = 0; i < size; i += piece) {
    size_t n = size - i < piece ? size - i : piece;
    etk_capture_feed(cap, data + i, n);
  }
  etk_capture_finish(cap);
  etk_capture_free(cap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  tally_t whole, pieces;
  memset(&whole, 0, sizeof whole);
  memset(&pieces, 0, sizeof pieces);
  run(data, size, size, &whole);
  run(data, size, (size_t)(data[0] % 61) + 1, &pieces);
  if (whole.files != pieces.files || whole.complete != pieces.complete ||
      whole.bytes != pieces.bytes || whole.crc != pieces.crc)
    abort();
  return 0;
}
