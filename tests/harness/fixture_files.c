/*
 * fixture_files.c - see fixture_files.h.  A file is written whole or
 * reported: a short write or a failing fclose counts as a failure, and the
 * builder's bytes are freed on every path.
 */
#include "fixture_files.h"

#include <stdio.h>
#include <stdlib.h>

int etk_test_fixture_write(const char *tool, const char *dir, const char *name,
                           uint8_t *bytes, size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int bad = !bytes;
  if (!bad) {
    FILE *f = fopen(path, "wb");
    bad = !f || fwrite(bytes, 1, len, f) != len;
    if (f && fclose(f) != 0) bad = 1;
  }
  if (bad) fprintf(stderr, "%s: cannot write %s\n", tool, path);
  free(bytes);
  return bad;
}

int etk_test_fixture_write_all(const char *tool, const char *dir,
                               const etk_test_fixture_t *files, size_t count) {
  int bad = 0;
  for (size_t i = 0; i < count; i++) {
    size_t len = 0;
    uint8_t *bytes = files[i].build(&len);
    bad |= etk_test_fixture_write(tool, dir, files[i].name, bytes, len);
  }
  return bad;
}

int etk_test_fixture_main(int argc, char **argv, const char *tool,
                          const etk_test_fixture_t *files, size_t count) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT_DIR\n", tool);
    return 2;
  }
  return etk_test_fixture_write_all(tool, argv[1], files, count);
}
