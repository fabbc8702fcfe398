/*
 * program_files.c - the program readers' host layer: a .pte or .bpte read
 * from a path into malloc'd bytes, parsed (copied into the program's own
 * memory) and the bytes released.  The readers themselves (pte_reader.c,
 * bpte_reader.c) take bytes and an arena and open nothing.
 */
#include <stdlib.h>

#include "../program_internal.h"

int etk_program_load_file(const char *path,
                          const etk_program_options_t *options,
                          etk_program_t **out, etk_error_t *err) {
  uint8_t *data;
  size_t len;
  int rc =
      etk_read_file(path, etk_program_max_file_size(options), &data, &len, err);
  if (rc != ETK_OK) return rc;
  etk_program_options_t opt = {0};
  if (options) opt = *options;
  opt.borrow = 0; /* `data` is freed below */
  rc = etk_program_load(data, len, &opt, out, err);
  free(data);
  if (rc != ETK_OK) etk_error_where(err, path);
  return rc;
}

int etk_bundled_program_load_file(const char *path,
                                  const etk_program_options_t *options,
                                  etk_bundled_program_t **out,
                                  etk_error_t *err) {
  uint8_t *data;
  size_t len;
  int rc =
      etk_read_file(path, etk_program_max_file_size(options), &data, &len, err);
  if (rc != ETK_OK) return rc;
  etk_program_options_t opt = {0};
  if (options) opt = *options;
  opt.borrow = 0;
  rc = etk_bundled_program_load(data, len, &opt, out, err);
  free(data);
  if (rc != ETK_OK) etk_error_where(err, path);
  return rc;
}
