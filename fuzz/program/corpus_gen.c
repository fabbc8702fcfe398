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
 * program.  Deterministic output.
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
  etk_program_builder_t *b = etk_program_builder_new("forward");
  etk_program_builder_options_t opt;
  memset(&opt, 0, sizeof opt);
  opt.delegates_in_segments = in_segment;
  etk_program_builder_set_options(b, &opt);
  int32_t sz[2] = {2, 3};
  int x = etk_program_builder_add_tensor(b, ETK_FLOAT, 2, sz, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int y = etk_program_builder_add_tensor(b, ETK_FLOAT, 2, sz, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  uint8_t payload[256];
  const ptu_micro_step_t steps[2] = {{"aten::relu.out", NULL, 7, "meta"},
                                     {"aten::neg.out", "neg #1", -1, NULL}};
  size_t len = ptu_micro_chain(payload, sizeof payload, sz, steps);
  int d = etk_program_builder_add_delegate(b, ETK_MICRO_BACKEND_ID, payload,
                                           len, NULL, NULL, NULL, 0);
  int32_t args[2] = {x, y};
  etk_program_builder_delegate_call(b, d, args, 2);
  etk_program_builder_set_inputs(b, &x, 1);
  etk_program_builder_set_outputs(b, &y, 1);
  return b;
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
    if (etk_bundled_write(pte, pte_len, &c, 1, &bpte, &len, NULL) == ETK_OK)
      rc |= save(dir, "bpte-add", bpte, len);
    else
      rc = 1;
    free(pte);
  }
  return rc ? 1 : 0;
}
