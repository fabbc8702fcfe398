/*
 * make_fixtures.c - writes the analysis fixtures (analysis_fixtures.h) as
 * files for the CLI tests: make_fixtures DIR.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../etdump/etdump_writer.h"
#include "analysis_fixtures.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_fixtures DIR\n");
    return 2;
  }
  static const struct {
    const char *name;
    uint8_t *(*make)(size_t *);
  } files[] = {{"model.etdp", afx_model},     {"wrap.etdp", afx_wrap},
               {"invalid.etdp", afx_invalid}, {"overlap.etdp", afx_overlap},
               {"hostile.etdp", afx_hostile}, {"dropped.etdp", afx_dropped},
               {"diff_a.etdp", afx_diff_a},   {"diff_b.etdp", afx_diff_b}};
  char path[4096];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    size_t len;
    uint8_t *b = files[i].make(&len);
    snprintf(path, sizeof path, "%s/%s", argv[1], files[i].name);
    if (!b || etw_write_file(path, b, len) != 0) {
      fprintf(stderr, "make_fixtures: cannot write %s\n", path);
      free(b);
      return 1;
    }
    free(b);
  }
  /* a truncated dump: the first 40 bytes of the model */
  size_t len;
  uint8_t *b = afx_model(&len);
  snprintf(path, sizeof path, "%s/truncated.etdp", argv[1]);
  int rc = b && etw_write_file(path, b, 40) == 0 ? 0 : 1;
  free(b);
  return rc;
}
