/*
 * write_sample_archive.c - writes sample_values() with etkit's torch.save
 * writer to argv[1], and to argv[2] the text torch_archive_tool.py dump
 * must print for it.  check_python_reads.cmake runs both and compares: the
 * cross-check that Python's zipfile and pickle read what etkit writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_values.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: write_sample_archive OUT.pt EXPECTED.txt\n");
    return 2;
  }
  uint8_t *data;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_torch_save_memory(sample_values(), &data, &len, &err) != ETK_OK ||
      etk_write_file(argv[1], data, len, &err) != ETK_OK) {
    char line[512];
    fprintf(stderr, "%s\n", etk_error_format(&err, line, sizeof line));
    return 1;
  }
  free(data);
  FILE *f = fopen(argv[2], "wb");
  if (!f) return 1;
  const char *text = sample_values_python_text;
  const char *many = strstr(text, "MANY");
  fwrite(text, 1, (size_t)(many - text), f);
  for (int i = 0; i < 1500; i++) fprintf(f, "%s%d", i ? ", " : "", i);
  fputs(many + 4, f);
  return fclose(f) == 0 ? 0 : 1;
}
