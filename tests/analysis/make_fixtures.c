/*
 * make_fixtures.c - writes the analysis fixtures (analysis_fixtures.h) as
 * files for the CLI tests, plus truncated.etdp (the first 40 bytes of the
 * model): make_fixtures DIR.
 */
#include <stdlib.h>

#include "analysis_fixtures.h"
#include "fixture_files.h"

/* The first 40 bytes of the model: a dump cut short. */
static uint8_t *truncated_model(size_t *len) {
  uint8_t *bytes = afx_model(len);
  if (bytes && *len >= 40) {
    *len = 40;
    return bytes;
  }
  free(bytes);
  return NULL;
}

static const etk_test_fixture_t files[] = {
    {"model.etdp", afx_model},          {"wrap.etdp", afx_wrap},
    {"invalid.etdp", afx_invalid},      {"overlap.etdp", afx_overlap},
    {"hostile.etdp", afx_hostile},      {"dropped.etdp", afx_dropped},
    {"diff_a.etdp", afx_diff_a},        {"diff_b.etdp", afx_diff_b},
    {"truncated.etdp", truncated_model}};

int main(int argc, char **argv) {
  return etk_test_fixture_main(argc, argv, "make_fixtures", files,
                               sizeof files / sizeof files[0]);
}
