/*
 * make_etrecord_fixtures.c - writes the ETDump/ETRecord pairs of
 * etrecord_fixtures.c (and the broken ETRecords) to files for the CLI
 * golden tests of `etkit inspect --etrecord_path` (a ctest fixture runs it
 * first).
 *
 *   make_etrecord_fixtures OUT_DIR
 */
#include <stdio.h>
#include <stdlib.h>

#include "../etdump/etdump_writer.h"
#include "etrecord_fixtures.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_etrecord_fixtures OUT_DIR\n");
    return 2;
  }
  static const struct {
    const char *name;
    uint8_t *(*build)(size_t *len);
  } files[] = {
      {"appendix_d.etdp", fixture_appendix_d_etdump},
      {"appendix_d.etrecord", fixture_appendix_d_etrecord},
      {"quirks.etdp", fixture_quirks_etdump},
      {"quirks.etrecord", fixture_quirks_etrecord},
      {"modules.etdp", fixture_modules_etdump},
      {"modules.etrecord", fixture_modules_etrecord},
      {"no_marker.etrecord", fixture_etrecord_no_marker},
      {"bad_map.etrecord", fixture_etrecord_bad_map},
      {"bad_program.etrecord", fixture_etrecord_bad_program},
  };
  int bad = 0;
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    size_t len = 0;
    uint8_t *b = files[i].build(&len);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], files[i].name);
    if (!b || etw_write_file(path, b, len) != 0) {
      fprintf(stderr, "make_etrecord_fixtures: cannot write %s\n", path);
      bad = 1;
    }
    free(b);
  }
  return bad;
}
