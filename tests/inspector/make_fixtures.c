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
#include <string.h>

#include "../etdump/bad_inputs.h"
#include "fixture_files.h"
#include "fixtures.h"

static const etk_test_fixture_t files[] = {
    {"appendix_b.etdp", fixture_appendix_b},
    {"appendix_c.etdp", fixture_appendix_c},
    {"appendix_c_debug.bin", fixture_appendix_c_buffer},
    {"hostile_names.etdp", fixture_hostile_names},
    {"allocations.etdp", fixture_allocations},
    {"wrap.etdp", fixture_wrap},
    {"delegates.etdp", fixture_delegates},
};

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--bad-inputs") == 0) {
    int bad = 0;
    for (size_t i = 0; i < bad_input_count; i++) {
      char name[256];
      snprintf(name, sizeof name, "%s.etdp", bad_inputs[i].name);
      size_t len = 0;
      uint8_t *bytes = bad_inputs[i].build(&len);
      bad |= etk_test_fixture_write("make_fixtures", argv[2], name, bytes, len);
    }
    return bad;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: make_fixtures OUT_DIR | --bad-inputs OUT_DIR\n");
    return 2;
  }
  return etk_test_fixture_write_all("make_fixtures", argv[1], files,
                                    sizeof files / sizeof files[0]);
}
