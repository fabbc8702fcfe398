/*
 * make_memory_plans.c - writes every fixture of memory_plan_fixtures.c as
 * DIR/<name>.pte, for the reference check (reference.py) and by hand.
 * Usage: make_memory_plans DIR
 */
#include <stdio.h>
#include <stdlib.h>

#include "etkit/common.h"
#include "memory_plan_fixtures.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_memory_plans DIR\n");
    return 2;
  }
  for (size_t i = 0; i < mpf_fixture_count; i++) {
    uint8_t *bytes = NULL;
    size_t len = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.pte", argv[1], mpf_fixtures[i].name);
    if (mpf_fixtures[i].build(&bytes, &len) != 0 ||
        etk_write_file(path, bytes, len, NULL) != 0) {
      fprintf(stderr, "make_memory_plans: cannot make %s\n", path);
      free(bytes);
      return 1;
    }
    free(bytes);
  }
  return 0;
}
