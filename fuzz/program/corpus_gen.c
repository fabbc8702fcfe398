/*
 * corpus_gen.c - writes the seed corpus of program_fuzz with the program
 * builder (never copies upstream files):
 *
 *   program_corpus_gen fuzz/program/corpus
 *
 * Seeds: an add program, a linear program with constants in a segment
 * (extended header) and with inline constants, a program with every value
 * and instruction kind, a delegated program for EtkitMicroBackend (inline
 * payload and payload in a segment), a loop program, and a bundled
 * program, and damaged ones (damaged_seeds): a huge plan, misaligned data,
 * a zero segment base, truncation, an old identifier, and .npy inputs.
 * Deterministic output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/program.h"
#include "etkit/runtime.h"
#include "program_testutil.h"

static int save(const char *dir, const char *name, uint8_t *data, size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_write_file(path, data, len, &err);
  if (rc) fprintf(stderr, "%s: %s\n", path, err.message);
  free(data);
  return rc;
}

static int finish(etk_program_builder_t *b, const char *dir, const char *name) {
  uint8_t *d;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_program_builder_finish(b, &d, &len, &err);
  etk_program_builder_free(b);
  if (rc) {
    fprintf(stderr, "%s: %s\n", name, err.message);
    return rc;
  }
  return save(dir, name, d, len);
}

static etk_program_builder_t *kinds_program(void) {
  etk_program_builder_t *b = etk_program_builder_new("kinds");
  int32_t sz[2] = {2, 3};
  int t = etk_program_builder_add_tensor(b, ETK_LONG, 2, sz, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int i = etk_program_builder_add_int(b, 5);
  etk_program_builder_add_double(b, 0.25);
  int cond = etk_program_builder_add_bool(b, false);
  etk_program_builder_add_null(b);
  etk_program_builder_add_string(b, "text");
  const int64_t il[2] = {1, 2};
  etk_program_builder_add_int_list(b, il, 2);
  const double dl[2] = {1.0, 2.0};
  etk_program_builder_add_double_list(b, dl, 2);
  const bool bl[2] = {true, false};
  etk_program_builder_add_bool_list(b, bl, 2);
  int32_t items[2] = {t, -1};
  etk_program_builder_add_tensor_list(b, items, 1, false);
  etk_program_builder_add_tensor_list(b, items, 2, true);
  etk_program_builder_set_dynamic(b, t);
  etk_program_builder_move_call(b, i, i);
  etk_program_builder_jump_false_call(b, cond, 3);
  etk_program_builder_free_call(b, t);
  etk_program_builder_set_outputs(b, &i, 1);
  return b;
}

static etk_program_builder_t *loop_program(void) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int cond = etk_program_builder_add_bool(b, false);
  etk_program_builder_jump_false_call(b, cond, 0);
  etk_program_builder_set_outputs(b, &cond, 1);
  return b;
}

static etk_program_builder_t *delegate_program(int in_segment) {
  etk_program_builder_t *b = ptu_builder_with_options(0, in_segment);
  int32_t sz[2] = {2, 3};
  int x = ptu_float_tensor(b, 2, sz);
  int y = ptu_float_tensor(b, 2, sz);
  uint8_t payload[256];
  const ptu_micro_step_t steps[2] = {{"aten::relu.out", NULL, 7, "meta"},
                                     {"aten::neg.out", "neg #1", -1, NULL}};
  size_t len = ptu_micro_chain(payload, sizeof payload, sz, steps);
  ptu_micro_delegate(b, payload, len, x, x, y);
  return b;
}

/* Writes `len` bytes of `data` (borrowed) under `name`. */
static int save_copy(const char *dir, const char *name, const uint8_t *data,
                     size_t len) {
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) return 1;
  memcpy(copy, data, len);
  return save(dir, name, copy, len);
}

/* A .npy file with header text `header` and `data_len` zero data bytes. */
static int save_npy(const char *dir, const char *name, const char *header,
                    size_t data_len) {
  size_t hl = strlen(header), len = 10 + hl + data_len;
  uint8_t *b = calloc(1, len);
  if (!b) return 1;
  memcpy(b, "\x93NUMPY\x01\x00", 8);
  b[8] = (uint8_t)hl;
  memcpy(b + 10, header, hl);
  return save(dir, name, b, len);
}

/* Damaged seeds, each refused with one line: a 4 GiB plan in a small file,
 * a float planned at an odd offset, segments at a zero base, a truncated
 * and a mis-identified program; .npy inputs that are valid, have trailing
 * bytes, a duplicate key, or text after the dict. */
static int damaged_seeds(const char *dir) {
  int rc = 0;
  int32_t huge[1] = {1 << 30}, four[1] = {4};
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = ptu_float_tensor(b, 1, huge);
  etk_program_builder_set_inputs(b, &x, 1);
  etk_program_builder_set_outputs(b, &x, 1);
  rc |= finish(b, dir, "pte-huge-plan");
  b = etk_program_builder_new("forward");
  x = ptu_float_tensor(b, 1, four);
  etk_program_builder_place_tensor(b, x, 1, 2);
  etk_program_builder_set_outputs(b, &x, 1);
  rc |= finish(b, dir, "pte-misaligned-planned");
  uint8_t *pte;
  size_t len;
  if (ptu_build_linear(0, &pte, &len) != ETK_OK) return 1;
  rc |= save_copy(dir, "pte-truncated", pte, len / 2);
  memcpy(pte + 4, "ET11", 4);
  rc |= save_copy(dir, "pte-old-identifier", pte, len);
  memcpy(pte + 4, "ET12", 4);
  ptu_put_u64(pte + 24, 0); /* segment_base_offset */
  rc |= save(dir, "pte-zero-segment-base", pte, len);
  rc |=
      save_npy(dir, "npy-float",
               "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8);
  rc |=
      save_npy(dir, "npy-trailing-bytes",
               "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12);
  rc |= save_npy(dir, "npy-duplicate-key",
                 "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                 "'shape': (1,), }",
                 8);
  rc |= save_npy(dir, "npy-text-after-dict",
                 "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } "
                 "x",
                 8);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: program_corpus_gen DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  int rc = 0;
  /* The add and 3x+2 programs are the ones the program tests build. */
  uint8_t *pte;
  size_t pte_len;
  if (ptu_build_linear(0, &pte, &pte_len) == ETK_OK)
    rc |= save(dir, "pte-linear-segment", pte, pte_len);
  else
    rc = 1;
  if (ptu_build_linear(1, &pte, &pte_len) == ETK_OK)
    rc |= save(dir, "pte-linear-inline", pte, pte_len);
  else
    rc = 1;
  rc |= finish(kinds_program(), dir, "pte-kinds");
  rc |= finish(loop_program(), dir, "pte-loop");
  rc |= finish(delegate_program(0), dir, "pte-delegate-inline");
  rc |= finish(delegate_program(1), dir, "pte-delegate-segment");
  /* pte-add, and a bundled program around it */
  if (ptu_build_add(2, &pte, &pte_len) != ETK_OK) return 1;
  {
    uint8_t *copy = malloc(pte_len);
    if (!copy) return 1;
    memcpy(copy, pte, pte_len);
    rc |= save(dir, "pte-add", copy, pte_len);
    int32_t sz[1] = {2};
    float x[2] = {1, 2}, y[2] = {3, 4}, z[2] = {4, 6};
    etk_tensor_data_t in[2] = {
        {ETK_BUNDLED_TENSOR, ETK_FLOAT, 1, sz, NULL, x, 8, 0, false, 0},
        {ETK_BUNDLED_TENSOR, ETK_FLOAT, 1, sz, NULL, y, 8, 0, false, 0}};
    etk_tensor_data_t ex[1] = {
        {ETK_BUNDLED_TENSOR, ETK_FLOAT, 1, sz, NULL, z, 8, 0, false, 0}};
    etk_bundled_case_spec_t c = {"forward", in, 2, ex, 1};
    uint8_t *bpte;
    size_t len;
    if (etk_bundled_write(pte, pte_len, &c, 1, &bpte, &len, NULL) == ETK_OK) {
      /* damaged: cut in half, and the embedded program's identifier */
      rc |= save_copy(dir, "bpte-truncated", bpte, len / 2);
      long at = ptu_find(bpte, len, "ET12", 4);
      if (at > 0) {
        uint8_t *old = malloc(len);
        if (old) {
          memcpy(old, bpte, len);
          memcpy(old + at, "ET11", 4);
          rc |= save(dir, "bpte-old-program", old, len);
        }
      }
      rc |= save(dir, "bpte-add", bpte, len);
    } else {
      rc = 1;
    }
    free(pte);
  }
  rc |= damaged_seeds(dir);
  return rc ? 1 : 0;
}
