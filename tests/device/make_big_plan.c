/*
 * make_big_plan.c - a program too big for the firmware's arena, for
 * tests/device:  make_big_plan OUT.pte
 *
 * One method, relu of a float [16, 1024, 1024] input into a second tensor:
 * 128 MiB of planned memory (the boards' arenas hold 16 or 32 MiB), so
 * `etkit run --target` must refuse it with one line before it runs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "etkit/common.h"
#include "etkit/program.h"
#include "etkit/scalar_type.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_big_plan OUT.pte\n");
    return 2;
  }
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_builder_t *b = etk_program_builder_new("forward");
  if (b == NULL) return 1;
  const int32_t sizes[3] = {16, 1024, 1024};
  int x = etk_program_builder_add_tensor(b, ETK_SCALAR_TYPE_FLOAT, 3, sizes,
                                         NULL, ETK_BUILDER_PLANNED, NULL);
  int y = etk_program_builder_add_tensor(b, ETK_SCALAR_TYPE_FLOAT, 3, sizes,
                                         NULL, ETK_BUILDER_PLANNED, NULL);
  int relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  int32_t args[3] = {x, y, y};
  etk_program_builder_kernel_call(b, relu, args, 3);
  int32_t in[1] = {x}, out[1] = {y};
  etk_program_builder_set_inputs(b, in, 1);
  etk_program_builder_set_outputs(b, out, 1);
  uint8_t *pte = NULL;
  size_t len = 0;
  int rc = etk_program_builder_finish(b, &pte, &len, &err);
  etk_program_builder_free(b);
  if (rc != ETK_OK) {
    fprintf(stderr, "make_big_plan: %s\n", err.message);
    return 1;
  }
  rc = etk_write_file(argv[1], pte, len, &err);
  free(pte);
  if (rc != ETK_OK) {
    fprintf(stderr, "make_big_plan: %s\n", err.message);
    return 1;
  }
  return 0;
}
