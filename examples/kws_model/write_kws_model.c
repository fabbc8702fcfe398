/*
 * write_kws_model.c - writes the KWS-shaped example program and its
 * reference input: `etkit_kws_model DIR` makes DIR/kws.pte,
 * DIR/kws_input.npy (the input examples/kws_model/input.npy holds too) and
 * DIR/kws.etrecord (the graph, for `etkit numerics --gap`).
 * Run it with `etkit run DIR/kws.pte --input DIR/kws_input.npy`; the
 * output must equal examples/kws_model/expected_output.npy exactly.
 *
 * The program is written under a temporary name and renamed, so a failed
 * run never leaves a complete-looking file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "etkit/program.h"
#include "kws_model.h"

static int write_file(const char *path, const uint8_t *data, size_t len) {
  char tmp[4200];
  FILE *f;
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  f = fopen(tmp, "wb");
  if (!f) return -1;
  if (fwrite(data, 1, len, f) != len) {
    fclose(f);
    remove(tmp);
    return -1;
  }
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    remove(tmp);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  static const int32_t sizes[4] = {1, 1, 49, 10};
  float x[ETK_KWS_MODEL_INPUT_ELEMENTS];
  char path[4096];
  uint8_t *pte = NULL;
  size_t len = 0;
  static etk_error_t err;
  if (argc != 2) {
    fprintf(stderr, "usage: etkit_kws_model DIR\n");
    return 2;
  }
  if (etk_kws_model_build(&pte, &len, &err) != ETK_OK) {
    fprintf(stderr, "etkit_kws_model: %s\n", err.message);
    return 2;
  }
  snprintf(path, sizeof path, "%s/kws.pte", argv[1]);
  if (write_file(path, pte, len) != 0) {
    fprintf(stderr, "etkit_kws_model: cannot write %s\n", path);
    free(pte);
    return 2;
  }
  free(pte);
  etk_kws_model_fill_input(x, ETK_KWS_MODEL_INPUT_ELEMENTS);
  snprintf(path, sizeof path, "%s/kws_input.npy", argv[1]);
  if (etk_npy_write_file(path, ETK_BUILDER_FLOAT, 4, sizes, x, sizeof x,
                         &err) != ETK_OK) {
    fprintf(stderr, "etkit_kws_model: %s\n", err.message);
    return 2;
  }
  snprintf(path, sizeof path, "%s/kws.etrecord", argv[1]);
  if (etk_kws_model_write_etrecord(path, &err) != ETK_OK) {
    fprintf(stderr, "etkit_kws_model: %s\n", err.message);
    return 2;
  }
  snprintf(path, sizeof path, "%s/kws.etrecord", argv[1]);
  if (etk_kws_model_write_etrecord(path, &err) != ETK_OK) {
    fprintf(stderr, "etkit_kws_model: %s\n", err.message);
    return 2;
  }
  return 0;
}
