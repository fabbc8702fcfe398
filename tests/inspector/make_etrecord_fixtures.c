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

static const etk_test_fixture_t files[] = {
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

int main(int argc, char **argv) {
  return etk_test_fixture_main(argc, argv, "make_etrecord_fixtures", files,
                               sizeof files / sizeof files[0]);
}
