/*
 * run_print.c - a method's output on the terminal, as `etkit run` and
 * `etkit demo` print it: "<dtype> [sizes] = [v0, v1, ...]" for a tensor
 * (at most a given number of values, then "..."), "Int n", "Double x" or
 * "Bool b" for a scalar, the value's tag name otherwise.  Part of
 * run_support.h.
 */
#include <stdio.h>
#include <string.h>

#include "etkit/runtime.h"
#include "run_support.h"

/* Element k of an integer tensor of `width` bytes, sign-extended; 0 for a
 * width that is not 2, 4 or 8. */
static int64_t signed_element(const uint8_t *p, size_t width, size_t k) {
  int16_t x16;
  int32_t x32;
  int64_t x64;
  switch (width) {
    case 2:
      memcpy(&x16, p + 2 * k, 2);
      return x16;
    case 4:
      memcpy(&x32, p + 4 * k, 4);
      return x32;
    case 8:
      memcpy(&x64, p + 8 * k, 8);
      return x64;
  }
  return 0;
}

static void print_element(FILE *out, const void *data, int st, size_t k) {
  const uint8_t *p = data;
  switch (st) {
    case ETK_FLOAT: {
      float f;
      memcpy(&f, p + 4 * k, 4);
      fprintf(out, "%g", f);
    } break;
    case ETK_DOUBLE: {
      double d;
      memcpy(&d, p + 8 * k, 8);
      fprintf(out, "%g", d);
    } break;
    case ETK_BOOL:
      fprintf(out, "%s", p[k] ? "true" : "false");
      break;
    case ETK_BYTE:
      fprintf(out, "%u", p[k]);
      break;
    case ETK_CHAR:
      fprintf(out, "%d", (int8_t)p[k]);
      break;
    case ETK_SHORT:
    case ETK_INT:
    case ETK_LONG:
      fprintf(out, "%lld",
              (long long)signed_element(p,
                                        st == ETK_SHORT ? 2
                                        : st == ETK_INT ? 4
                                                        : 8,
                                        k));
      break;
    default:
      fprintf(out, "?");
  }
}

void cli_print_value(FILE *out, const etk_method_t *m, size_t output,
                     size_t max_values) {
  const etk_value_t *v = etk_method_output(m, output);
  if (!v) return;
  switch (v->tag) {
    case ETK_VALUE_INT:
      fprintf(out, "Int %lld", (long long)v->u.i);
      return;
    case ETK_VALUE_DOUBLE:
      fprintf(out, "Double %g", v->u.d);
      return;
    case ETK_VALUE_BOOL:
      fprintf(out, "Bool %s", v->u.b ? "true" : "false");
      return;
    case ETK_VALUE_TENSOR:
      break;
    default:
      fprintf(out, "%s", etk_program_tag_name(v->tag));
      return;
  }
  const etk_tensor_t *t = v->u.tensor;
  fprintf(out, "%s [", etk_scalar_type_name(t->scalar_type));
  for (int32_t d = 0; d < t->dim; d++)
    fprintf(out, "%s%d", d ? ", " : "", t->sizes[d]);
  fprintf(out, "] = [");
  size_t n = (size_t)etk_tensor_numel(t);
  for (size_t k = 0; k < n && k < max_values && t->data; k++) {
    if (k) fprintf(out, ", ");
    print_element(out, t->data, t->scalar_type, k);
  }
  if (n > max_values) fprintf(out, ", ...");
  fprintf(out, "]");
}
