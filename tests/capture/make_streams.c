/*
 * make_streams.c - framed streams of real files for `etkit capture`'s
 * tests and the fuzz corpus:
 *
 *   make_streams OUT_DIR ETDUMP DEBUG_BUFFER
 *
 * writes OUT_DIR/clean.log (boot text; the ETDump sent whole; text; the
 * debug buffer streamed in tensor-sized writes with a log line after each;
 * an output; the end-of-stream frame), output_0.bin (the output's bytes)
 * and one damaged copy of clean.log per kind of damage: flipped.log,
 * lost.log, dup.log, reordered.log, truncated.log, injected.log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/transport.h"
#include "stream_edit.h"

static int slurp(const char *path, buf_t *b) {
  FILE *f = fopen(path, "rb");
  if (!f) return 1;
  uint8_t chunk[8192];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_write(b, chunk, n);
  fclose(f);
  return 0;
}

static int spit(const char *dir, const char *name, const buf_t *b) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  int bad = fwrite(b->p, 1, b->len, f) != b->len;
  return fclose(f) != 0 || bad;
}

static void make_clean(buf_t *s, const buf_t *dump, const buf_t *dbg) {
  etk_tx_t tx;
  etk_tx_init(&tx, buf_write, s);
  buf_text(s, "qemu: booting etkit firmware\r\nI [etkit] model loaded, ");
  etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, "etdump.etdp", dump->p, dump->len);
  buf_text(s, "dump sent\nI [etkit] streaming the debug buffer\n");
  etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "debug_buffer.bin");
  size_t sizes[] = {1152, 64, 288, 2048, 40, 800};
  for (size_t off = 0, k = 0; off < dbg->len; k++) {
    size_t n = sizes[k % 6];
    if (n > dbg->len - off) n = dbg->len - off;
    etk_tx_write(&tx, dbg->p + off, n);
    char line[64];
    snprintf(line, sizeof line, "I [etkit] tensor %zu logged\n", k);
    buf_text(s, line);
    off += n;
  }
  etk_tx_close(&tx);
  etk_tx_send_file(&tx, ETK_TX_KIND_OUTPUT, "output_0.bin", dbg->p, 40);
  buf_text(s, "I [etkit] done\n");
  etk_tx_end_stream(&tx);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: make_streams OUT_DIR ETDUMP DEBUG_BUFFER\n");
    return 2;
  }
  buf_t dump = {0}, dbg = {0}, clean = {0};
  if (slurp(argv[2], &dump) || slurp(argv[3], &dbg) || dbg.len < 40) {
    fprintf(stderr, "make_streams: cannot read the inputs\n");
    return 1;
  }
  make_clean(&clean, &dump, &dbg);
  buf_t out0 = {dbg.p, 40, 40};
  int bad = spit(argv[1], "clean.log", &clean) ||
            spit(argv[1], "output_0.bin", &out0);
  static const struct {
    const char *name;
    void (*edit)(buf_t *, int);
    int frame;
  } damage[] = {{"flipped.log", edit_flip, 1},
                {"lost.log", edit_lose, 2},
                {"dup.log", edit_duplicate, 1},
                {"reordered.log", edit_swap_next, 0},
                {"truncated.log", edit_cut_inside, 3},
                {"injected.log", edit_inject, 2}};
  for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
    buf_t copy = {0};
    buf_write(&copy, clean.p, clean.len);
    damage[i].edit(&copy, damage[i].frame);
    bad |= spit(argv[1], damage[i].name, &copy);
    free(copy.p);
  }
  free(dump.p);
  free(dbg.p);
  free(clean.p);
  return bad;
}
