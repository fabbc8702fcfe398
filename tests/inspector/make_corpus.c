/*
 * make_corpus.c - writes the seed corpus of fuzz/inspector (committed):
 * every fixture and bad input, each with a few option-selector bytes in
 * front (see fuzz_inspector.c: the first byte picks options).
 *
 *   make_corpus OUT_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../etdump/bad_inputs.h"
#include "fixture_files.h"
#include "fixtures.h"

/* Writes [sel][dump] or, when sel has bit 4 (a debug buffer follows the
 * dump), [sel][debug_len][dump][debug_len bytes 0..] as DIR/STEM-SEL. */
static int emit(const char *dir, const char *stem, uint8_t sel,
                const uint8_t *b, size_t len, uint8_t debug_len) {
  char name[256];
  size_t extra = (sel & 0x10) ? 1u + debug_len : 0u;
  snprintf(name, sizeof name, "%s-%02x", stem, sel);
  uint8_t *buf = malloc(len + 1 + extra);
  if (!buf) return 1;
  size_t at = 0;
  buf[at++] = sel;
  if (sel & 0x10) buf[at++] = debug_len;
  if (len) memcpy(buf + at, b, len);
  at += len;
  for (size_t k = 0; extra && k < debug_len; k++) buf[at++] = (uint8_t)k;
  return etk_test_fixture_write("make_corpus", dir, name, buf, at);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_corpus OUT_DIR\n");
    return 2;
  }
  static const etk_test_fixture_t seeds[] = {
      {"appendix_b", fixture_appendix_b},
      {"appendix_c", fixture_appendix_c},
      {"hostile", fixture_hostile_names},
      {"allocations", fixture_allocations},
      {"wrap", fixture_wrap},
      {"delegates", fixture_delegates}};
  static const uint8_t sels[] = {0x02, 0x16, 0x7d, 0xf1};
  int bad = 0;
  for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
    size_t len;
    uint8_t *b = seeds[i].build(&len);
    if (!b) return 1;
    /* 0x16 and 0x7d: a buffer holding every tensor of appendix_b/c (which
     * log up to byte 192); 0xf1: a truncated one */
    for (size_t k = 0; k < sizeof sels; k++)
      bad |= emit(argv[1], seeds[i].name, sels[k], b, len,
                  sels[k] == 0xf1 ? 100 : 255);
    free(b);
  }
  for (size_t i = 0; i < bad_input_count; i++) {
    size_t len;
    uint8_t *b = bad_inputs[i].build(&len);
    if (!b) return 1;
    bad |= emit(argv[1], bad_inputs[i].name, 0x12, b, len, 64);
    free(b);
  }
  return bad;
}
