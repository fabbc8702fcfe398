/*
 * format_numbers.c - prints etkit's Python-style number texts for oracle.py:
 * for each input line holding the 16 hex digits of a double's bit pattern,
 * one output line "repr<TAB>g" (etk_format_double_repr, etk_format_double_g),
 * which oracle.py compares with Python's repr(x) and format(x, "g").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"

int main(void) {
  char line[64];
  char repr[ETK_FORMAT_DOUBLE_MAX], g[ETK_FORMAT_DOUBLE_MAX];
  while (fgets(line, sizeof line, stdin)) {
    uint64_t bits = strtoull(line, NULL, 16);
    double x;
    memcpy(&x, &bits, sizeof x);
    etk_format_double_repr(x, repr);
    etk_format_double_g(x, g);
    printf("%s\t%s\n", repr, g);
  }
  return ferror(stdout) ? 1 : 0;
}
