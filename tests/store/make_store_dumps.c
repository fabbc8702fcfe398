/*
 * make_store_dumps.c - writes the dumps of the `etkit store` CLI test into
 * DIR: a1..a5.etdp (baseline), b1..b5.etdp (operator op_007 10 % slower),
 * damaged.etdp (a dump cut in half), and stats-mode dumps (one latency
 * sketch per operator, etkit run --profile-mode stats): s1..s3.etdp (as
 * the baseline), t1..t3.etdp (op_007 2x slower).  Usage: make_store_dumps
 * DIR.
 */
#include <stdio.h>
#include <stdlib.h>

#include "store_dumps.h"

static int write_file(const char *path, const uint8_t *data, size_t len) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return 1;
  size_t n = fwrite(data, 1, len, fp);
  return (fclose(fp) != 0 || n != len);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_store_dumps DIR\n");
    return 2;
  }
  char path[4096];
  for (unsigned i = 0; i < 10; i++) {
    store_dump_spec_t spec = {500 + i, 30, 8, 0.05, i < 5 ? -1 : 7, 1.10};
    size_t len;
    uint8_t *dump = store_dump_make(&spec, &len);
    if (!dump) return 1;
    snprintf(path, sizeof path, "%s/%c%u.etdp", argv[1], i < 5 ? 'a' : 'b',
             i % 5 + 1);
    int bad = write_file(path, dump, len);
    if (!bad && i == 0) {
      snprintf(path, sizeof path, "%s/damaged.etdp", argv[1]);
      bad = write_file(path, dump, len / 2);
    }
    free(dump);
    if (bad) return 1;
  }
  for (unsigned i = 0; i < 6; i++) {
    store_dump_spec_t spec = {700 + i, 30, 8, 0.05, i < 3 ? -1 : 7, 2.0};
    size_t len;
    uint8_t *dump = store_stats_dump_make(&spec, -1, NULL, &len);
    if (!dump) return 1;
    snprintf(path, sizeof path, "%s/%c%u.etdp", argv[1], i < 3 ? 's' : 't',
             i % 3 + 1);
    int bad = write_file(path, dump, len);
    free(dump);
    if (bad) return 1;
  }
  return 0;
}
