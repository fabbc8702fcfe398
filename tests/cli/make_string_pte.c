/*
 * make_string_pte.c - writes a .pte whose method returns a String scalar
 * holding a terminal escape sequence (a title-setting OSC), for
 * check_info_string.cmake: `etkit info` shows the value, escaped.
 *   make_string_pte OUT.pte
 */
#include <stdio.h>
#include <stdlib.h>

#include "etkit/program.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_string_pte OUT.pte\n");
    return 2;
  }
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int s = etk_program_builder_add_string(b, "mode \x1b]0;owned\x07 fast");
  int32_t out = s;
  etk_program_builder_set_outputs(b, &out, 1);
  uint8_t *pte = NULL;
  size_t len = 0;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_program_builder_finish(b, &pte, &len, &err);
  etk_program_builder_free(b);
  if (rc == ETK_OK) rc = etk_write_file(argv[1], pte, len, &err);
  free(pte);
  if (rc != ETK_OK) {
    char line[512];
    fprintf(stderr, "make_string_pte: %s\n",
            etk_error_format(&err, line, sizeof line));
    return 1;
  }
  return 0;
}
