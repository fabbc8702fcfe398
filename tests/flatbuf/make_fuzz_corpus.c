/*
 * make_fuzz_corpus.c - writes the seed corpora of fuzz/flatbuf/ (a tool, not
 * a test; run it by hand when the seeds should change):
 *
 *   build-fb/tests/flatbuf/flatbuf_make_fuzz_corpus fuzz/flatbuf
 *
 * corpus/          inputs of verify_fuzz.c: small ETDumps made by OUR builder
 *                  (the golden-file call sequences and the JSON fixtures),
 *                  with and without size prefix, plus broken variants
 *                  (truncated, wrong identifier, corrupted vtable/offsets).
 * corpus_builder/  inputs of builder_fuzz.c: deterministic pseudo-random
 *                  byte strings of a few sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/schema.h"
#include "golden_replay.h"
#include "schema_json_build.h"
#include "schema_json_check.h"

static const char *out_dir;

static int write_file(const char *sub, const char *name, const uint8_t *bytes,
                      size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s/%s", out_dir, sub, name);
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", path);
    return 1;
  }
  fwrite(bytes, 1, len, f);
  return fclose(f) != 0;
}

/* A valid dump (unless write_valid is 0) plus its broken variants. */
static int write_variants(const char *stem, const uint8_t *bytes, size_t len,
                          int prefixed, int write_valid) {
  char name[256];
  uint8_t *copy = malloc(len + 1);
  int bad = 0;
  if (!copy) return 1;
  snprintf(name, sizeof name, "%s.etdp", stem);
  if (write_valid) bad |= write_file("corpus", name, bytes, len);
  snprintf(name, sizeof name, "%s-truncated.etdp", stem);
  bad |= write_file("corpus", name, bytes, len / 2);
  memcpy(copy, bytes, len);
  size_t ident_at = prefixed ? 8 : 4;
  if (len > ident_at) copy[ident_at] ^= 0x20; /* first identifier byte */
  snprintf(name, sizeof name, "%s-bad-identifier.etdp", stem);
  bad |= write_file("corpus", name, copy, len);
  memcpy(copy, bytes, len);
  for (size_t i = 16; i + 4 <= len; i += 29)
    copy[i] ^= 0x5A; /* scattered damage */
  snprintf(name, sizeof name, "%s-scrambled.etdp", stem);
  bad |= write_file("corpus", name, copy, len);
  free(copy);
  return bad;
}

int main(int argc, char **argv) {
  static _Alignas(8) uint8_t mem[65536];
  int bad = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: %s FUZZ_FLATBUF_DIR\n", argv[0]);
    return 2;
  }
  out_dir = argv[1];
  static const struct {
    const char *stem;
    golden_replay_fn fn;
  } replays[] = {
      {"empty-block", golden_replay_empty_block},
      {"allocators", golden_replay_allocators},
      {"delegate-events", golden_replay_delegate_events},
      {"debug-events", golden_replay_debug_events},
  };
  for (size_t i = 0; i < sizeof replays / sizeof replays[0]; i++) {
    const uint8_t *out;
    size_t len;
    if (golden_replay_into(replays[i].fn, mem, sizeof mem, &out, &len) !=
            ETK_OK ||
        len < 8)
      return 1;
    /* The replays are byte-identical to upstream's golden files, which the
     * project never stores: keep only the unprefixed form (the same buffer
     * without its size prefix) and the broken variants. */
    char name[256];
    snprintf(name, sizeof name, "%s-no-prefix.etdp", replays[i].stem);
    bad |= write_file("corpus", name, out + 4, len - 4);
    bad |= write_variants(replays[i].stem, out, len, 1, 0);
  }
  static const char *const fixtures[] = {"etdump_every_field", "etdump_blocks",
                                         "etdump_empty_root"};
  for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/flatbuf/fixtures/%s.json",
             ETKIT_SOURCE_DIR, fixtures[i]);
    json_node_t *json = schema_json_load(path);
    if (!json) return 1;
    for (int prefixed = 0; prefixed <= 1; prefixed++) {
      etk_fb_builder_t b;
      const uint8_t *out;
      size_t len;
      char stem[256];
      etk_fb_builder_init(&b, mem, sizeof mem);
      etk_fb_ref_t root = schema_json_build(&b, &etk_etdump_schema, json);
      if (etk_fb_finish(&b, root, ETK_ETDUMP_FILE_IDENTIFIER, prefixed, &out,
                        &len) != ETK_OK)
        return 1;
      snprintf(stem, sizeof stem, "%s%s", fixtures[i],
               prefixed ? "" : "-no-prefix");
      bad |= write_variants(stem, out, len, prefixed, 1);
    }
    json_free(json);
  }
  bad |= write_file("corpus", "empty.bin", (const uint8_t *)"", 0);
  bad |=
      write_file("corpus", "four-bytes.bin", (const uint8_t *)"\x08\0\0\0", 4);

  /* builder corpus: xorshift bytes, fixed seed */
  uint32_t state = 0x9E3779B9u;
  static const size_t sizes[] = {16, 64, 128, 256, 512, 1024, 2048};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    uint8_t bytes[2048];
    char name[64];
    for (size_t k = 0; k < sizes[i]; k++) {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      bytes[k] = (uint8_t)state;
    }
    snprintf(name, sizeof name, "random-%zu.bin", sizes[i]);
    bad |= write_file("corpus_builder", name, bytes, sizes[i]);
  }
  return bad;
}
