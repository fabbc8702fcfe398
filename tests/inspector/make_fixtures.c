/*
 * make_fixtures.c - writes the hand-made ETDumps of fixtures.c to files for
 * the CLI golden tests (a ctest fixture runs it first), and with
 * --bad-inputs DIR the crafted bad inputs of tests/etdump/bad_inputs.c
 * (used once to create tests/inspector/bad_inputs/, which is committed).
 *
 *   make_fixtures OUT_DIR
 *   make_fixtures --bad-inputs OUT_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../etdump/bad_inputs.h"
#include "../etdump/etdump_writer.h"
#include "fixtures.h"

static int write_one(const char *dir, const char *name, uint8_t *bytes,
                     size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int bad = !bytes || etw_write_file(path, bytes, len) != 0;
  if (bad) fprintf(stderr, "make_fixtures: cannot write %s\n", path);
  free(bytes);
  return bad;
}

int main(int argc, char **argv) {
  size_t len = 0;
  int bad = 0;
  if (argc == 3 && strcmp(argv[1], "--bad-inputs") == 0) {
    for (size_t i = 0; i < bad_input_count; i++) {
      char name[256];
      snprintf(name, sizeof name, "%s.etdp", bad_inputs[i].name);
      uint8_t *b = bad_inputs[i].build(&len);
      bad |= write_one(argv[2], name, b, len);
    }
    return bad;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: make_fixtures OUT_DIR | --bad-inputs OUT_DIR\n");
    return 2;
  }
  static const struct {
    const char *name;
    uint8_t *(*build)(size_t *len);
  } files[] = {
      {"appendix_b.etdp", fixture_appendix_b},
      {"appendix_c.etdp", fixture_appendix_c},
      {"appendix_c_debug.bin", fixture_appendix_c_buffer},
      {"hostile_names.etdp", fixture_hostile_names},
      {"allocations.etdp", fixture_allocations},
      {"wrap.etdp", fixture_wrap},
      {"delegates.etdp", fixture_delegates},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    uint8_t *b = files[i].build(&len);
    bad |= write_one(argv[1], files[i].name, b, len);
  }
  return bad;
}
