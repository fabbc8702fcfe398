/*
 * make_numerics_fixtures.c - writes the numerics fixtures (see
 * numerics_fixtures.h) into argv[1] for the golden CLI tests.
 */
#include <stdio.h>

#include "numerics_fixtures.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_numerics_fixtures DIR\n");
    return 2;
  }
  if (nf_write_all(argv[1]) != 0) {
    fprintf(stderr, "make_numerics_fixtures: writing into %s failed\n",
            argv[1]);
    return 1;
  }
  return 0;
}
