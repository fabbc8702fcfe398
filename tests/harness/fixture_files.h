/*
 * fixture_files.h - writing hand-made test inputs to files, for the small
 * fixture makers that ctest runs before the CLI golden tests (and for the
 * corpus generators).  Each maker lists its files in one table of
 * {file name, builder}; the builders are the same functions the unit tests
 * call, so the files on disk and the unit tests' inputs never drift apart.
 */
#ifndef ETK_TEST_FIXTURE_FILES_H
#define ETK_TEST_FIXTURE_FILES_H

#include <stddef.h>
#include <stdint.h>

/* One file: its name inside the output folder and the builder of its bytes
 * (malloc'd, caller frees; NULL on failure). */
typedef struct etk_test_fixture {
  const char *name;
  uint8_t *(*build)(size_t *len);
} etk_test_fixture_t;

/* Writes `len` bytes of `bytes` to DIR/NAME and frees `bytes` (NULL counts
 * as a builder failure).  On failure prints "TOOL: cannot write PATH" to
 * stderr and returns 1; 0 on success. */
int etk_test_fixture_write(const char *tool, const char *dir, const char *name,
                           uint8_t *bytes, size_t len);

/* Builds and writes every file of the table (all of them, even after a
 * failure); 0 when every file was written, else 1. */
int etk_test_fixture_write_all(const char *tool, const char *dir,
                               const etk_test_fixture_t *files, size_t count);

/* The whole main() of a maker whose only argument is the output folder:
 * usage error (exit 2) unless argc is 2, else etk_test_fixture_write_all. */
int etk_test_fixture_main(int argc, char **argv, const char *tool,
                          const etk_test_fixture_t *files, size_t count);

#endif
