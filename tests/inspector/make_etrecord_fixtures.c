/*
 * make_etrecord_fixtures.c - writes the ETDump/ETRecord pairs of
 * etrecord_fixtures.c (and the broken ETRecords) to files for the CLI
 * golden tests of `etkit inspect --etrecord_path` (a ctest fixture runs it
 * first).
 *
 *   make_etrecord_fixtures OUT_DIR
 */
#include "etrecord_fixtures.h"
#include "fixture_files.h"

#define FIXTURE_FILE(name, file) {file, fixture_##name},
static const etk_test_fixture_t files[] = {
    ETRECORD_FIXTURE_FILES(FIXTURE_FILE)};
#undef FIXTURE_FILE

int main(int argc, char **argv) {
  return etk_test_fixture_main(argc, argv, "make_etrecord_fixtures", files,
                               sizeof files / sizeof files[0]);
}
