/*
 * cmd_run_device_inputs.c - `etkit run --target BOARD`: the --input files
 * checked against the method's inputs on the host before QEMU starts.
 */
#include <stdbool.h>
#include <stdio.h>

#include "cmd_run_args.h"
#include "cmd_run_device.h"
#include "etkit/program.h"
#include "etkit/scalar_type.h"

/* "DTYPE [a, b]" of a tensor. */
static void dtype_shape(char *out, size_t size, int type, const int32_t *sizes,
                        uint32_t dim) {
  int n = snprintf(out, size, "%s [", etk_scalar_type_name(type));
  for (uint32_t d = 0; d < dim && n > 0 && (size_t)n < size; d++)
    n += snprintf(out + n, size - (size_t)n, "%s%d", d ? ", " : "",
                  (int)sizes[d]);
  if (n > 0 && (size_t)n < size) snprintf(out + n, size - (size_t)n, "]");
}

/* The --input files against the method's inputs, on the host before QEMU
 * starts: a wrong dtype or shape is the host run's one line, not a
 * firmware error.  0, or the message in why. */
int cli_device_check_inputs(const options_t *o, char *why, size_t size) {
  if (o->input_count == 0) return 0;
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_t *prog = NULL;
  if (etk_program_load_file(o->program, NULL, &prog, &err) != ETK_OK)
    return 0; /* not a plain program (a .bpte): the firmware checks */
  const etk_program_plan_t *plan = etk_program_find_plan(prog, o->method);
  int bad = 0;
  for (size_t k = 0; plan && !bad && k < o->input_count; k++) {
    etk_npy_t *npy = NULL;
    if (etk_npy_read_file(o->inputs[k], &npy, &err) != ETK_OK) {
      snprintf(why, size, "%s: %s", o->inputs[k], err.message);
      bad = 1;
      break;
    }
    const etk_program_value_t *v =
        k < plan->input_count ? &plan->values[plan->inputs[k]] : NULL;
    const etk_program_tensor_t *t =
        v && v->tag == ETK_VALUE_TENSOR ? v->u.tensor : NULL;
    bool fits = t && t->scalar_type == npy->scalar_type && t->dim == npy->dim;
    for (uint32_t d = 0; fits && d < npy->dim; d++)
      fits = t->shape_dynamism == 0 ? npy->sizes[d] == t->sizes[d]
                                    : npy->sizes[d] <= t->sizes[d];
    if (t && !fits) {
      char got[ETK_PROGRAM_MAX_DIMS * 12 + 24], want[sizeof got];
      dtype_shape(got, sizeof got, npy->scalar_type, npy->sizes, npy->dim);
      dtype_shape(want, sizeof want, t->scalar_type, t->sizes, t->dim);
      snprintf(why, size,
               "%s: method '%s' input %zu is %s; the method takes %s%s",
               o->inputs[k], plan->name ? plan->name : "?", k, got,
               t->shape_dynamism ? "at most " : "", want);
      bad = 1;
    }
    etk_npy_free(npy);
  }
  etk_program_free(prog);
  return bad;
}
