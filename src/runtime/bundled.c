/*
 * bundled.c - running BundledProgram test cases (upstream
 * devtools/bundled_program/bundled_program.cpp): load a case's inputs into
 * a method, compare the method's outputs with the case's expectations,
 * and run every case of a suite.
 *
 * COMPARISON RULES (upstream's, with its aborts turned into mismatches)
 *   dtype and sizes must be equal; the strides implied by the expected
 *   tensor's dim_order must equal the output's (upstream aborts here);
 *   empty tensors match; FLOAT, DOUBLE and HALF compare element-wise with
 *   |expected - actual| <= atol + rtol * |actual| (NaN == NaN, same-sign
 *   infinities are equal, rtol = atol = 0 is exact); every other dtype
 *   (integers, BOOL, BFLOAT16, quantized) must be bytewise equal.
 *
 * ERROR STATISTICS
 *   Like compute_method_output_error_stats (abs error, relative error with
 *   denominator max(|a|, |b|, 1e-8), their means and maxima), except that
 *   each dtype is read as itself: upstream reads every output as float32,
 *   which is wrong for anything else (docs/compatibility.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime_internal.h"

static const etk_bundled_suite_t *suite_for(const etk_method_t *m,
                                            const etk_bundled_program_t *bp,
                                            etk_error_t *err) {
  const etk_bundled_suite_t *s = etk_bundled_find_suite(bp, etk_method_name(m));
  if (!s)
    etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                  "the bundled program has no test suite for method '%s'",
                  etk_method_name(m));
  return s;
}

int etk_bundled_load_input(etk_method_t *m,
                           const struct etk_bundled_program *bp,
                           size_t case_index, struct etk_error *err) {
  if (!m || !bp)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  const etk_bundled_suite_t *s = suite_for(m, bp, err);
  if (!s) return ETK_E_NOT_FOUND;
  if (case_index >= s->case_count)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "test case %zu is out of range (the suite of '%s' has "
                         "%u)",
                         case_index, s->method_name, s->case_count);
  const etk_bundled_case_t *c = &s->cases[case_index];
  if (c->input_count != etk_method_input_count(m))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "test case %zu has %u inputs, method '%s' takes %zu",
                         case_index, c->input_count, s->method_name,
                         etk_method_input_count(m));
  for (uint32_t k = 0; k < c->input_count; k++) {
    const etk_bundled_value_t *bv = &c->inputs[k];
    etk_value_t v;
    etk_tensor_t t;
    memset(&v, 0, sizeof v);
    switch (bv->tag) {
      case ETK_BUNDLED_TENSOR:
        memset(&t, 0, sizeof t);
        t.scalar_type = bv->scalar_type;
        t.dim = (int32_t)bv->dim;
        for (uint32_t d = 0; d < bv->dim; d++) {
          t.sizes[d] = bv->sizes[d];
          t.dim_order[d] = bv->dim_order[d];
        }
        etk_tensor_update_strides(&t);
        t.data = (void *)(uintptr_t)bv->data;
        t.nbytes = (size_t)bv->nbytes;
        v.tag = ETK_VALUE_TENSOR;
        v.u.tensor = &t;
        break;
      case ETK_BUNDLED_INT:
        v.tag = ETK_VALUE_INT;
        v.u.i = bv->i;
        break;
      case ETK_BUNDLED_BOOL:
        v.tag = ETK_VALUE_BOOL;
        v.u.b = bv->b;
        break;
      case ETK_BUNDLED_DOUBLE:
        v.tag = ETK_VALUE_DOUBLE;
        v.u.d = bv->d;
        break;
      default:
        return etk_error_set(err, ETK_E_UNSUPPORTED, bv->offset,
                             "test case %zu input %u has an unsupported type",
                             case_index, k);
    }
    int rc = etk_method_set_input(m, k, &v, err);
    if (rc != ETK_OK) return rc;
  }
  etk_recorder_set_bundled_input_index(m->recorder, (int32_t)case_index);
  return ETK_OK;
}

/* Element k of a tensor as a double, for statistics; 0 for types that have
 * no numeric reading here. */
static double element(const void *data, int st, size_t k) {
  const uint8_t *p = data;
  double value;
  if (etk_scalar_type_read(st, p + k * etk_scalar_type_size(st), &value))
    return value;
  return 0.0;
}

/* Upstream elem_is_close(expected, actual). */
static bool close_enough(double e, double a, double rtol, double atol) {
  if (isnan(e) && isnan(a)) return true;
  if (!isfinite(e) && !isfinite(a) && ((e > 0) == (a > 0))) return true;
  if (rtol == 0 && atol == 0) return e == a;
  double allowed = atol + fabs(rtol * a);
  double actual = fabs(e - a);
  return isfinite(actual) && actual <= allowed;
}

int etk_bundled_verify_outputs(const etk_method_t *m,
                               const struct etk_bundled_program *bp,
                               size_t case_index, double rtol, double atol,
                               etk_bundled_result_t *result,
                               struct etk_error *err) {
  if (!m || !bp || !result)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  memset(result, 0, sizeof *result);
  result->case_index = (uint32_t)case_index;
  const etk_bundled_suite_t *s = suite_for(m, bp, err);
  if (!s) return result->status = ETK_E_NOT_FOUND;
  if (case_index >= s->case_count)
    return result->status =
               etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                             "test case %zu is out of range (%u cases)",
                             case_index, s->case_count);
  const etk_bundled_case_t *c = &s->cases[case_index];
  if (c->expected_count == 0) {
    snprintf(result->message, sizeof result->message,
             "no expected outputs (inputs only)");
    return ETK_OK;
  }
  result->has_expected = true;
  size_t nout = etk_method_output_count(m);
#define MISMATCH(...)                                                 \
  do {                                                                \
    snprintf(result->message, sizeof result->message, __VA_ARGS__);   \
    result->status = ETK_E_MISMATCH;                                  \
    etk_error_set(err, ETK_E_MISMATCH, ETK_NO_OFFSET, "case %zu: %s", \
                  case_index, result->message);                       \
    return ETK_E_MISMATCH;                                            \
  } while (0)
  if (c->expected_count != nout)
    MISMATCH("%u expected outputs for a method with %zu outputs",
             c->expected_count, nout);
  double sum_abs = 0, sum_rel = 0;
  bool all_ok = true;
  for (size_t o = 0; o < nout; o++) {
    const etk_bundled_value_t *e = &c->expected[o];
    const etk_value_t *out = etk_method_output(m, o);
    if (e->tag != ETK_BUNDLED_TENSOR || out->tag != ETK_VALUE_TENSOR)
      MISMATCH("output %zu: only tensor outputs can be verified", o);
    const etk_tensor_t *t = out->u.tensor;
    if (e->scalar_type != t->scalar_type)
      MISMATCH("output %zu: dtype %s, expected %s", o,
               etk_scalar_type_name(t->scalar_type),
               etk_scalar_type_name(e->scalar_type));
    bool same_shape = (int32_t)e->dim == t->dim;
    for (uint32_t d = 0; same_shape && d < e->dim; d++)
      same_shape = e->sizes[d] == t->sizes[d];
    if (!same_shape) MISMATCH("output %zu: sizes differ from the expected", o);
    /* Strides from the expected dim_order (upstream aborts on a mismatch). */
    int64_t stride = 1, strides[ETK_MAX_DIMS];
    for (int32_t i = (int32_t)e->dim - 1; i >= 0; i--) {
      uint8_t d = e->dim_order[i];
      strides[d] = stride;
      stride *= e->sizes[d] > 0 ? e->sizes[d] : 1;
    }
    for (uint32_t d = 0; d < e->dim; d++)
      if (strides[d] != t->strides[d])
        MISMATCH(
            "output %zu: memory layout (dim_order) differs from the "
            "expected",
            o);
    size_t n = (size_t)etk_tensor_numel(t);
    if (e->nbytes == 0) continue;
    if (!t->data) MISMATCH("output %zu has no data", o);
    bool is_float = t->scalar_type == ETK_FLOAT ||
                    t->scalar_type == ETK_DOUBLE || t->scalar_type == ETK_HALF;
    bool ok =
        is_float ? true : memcmp(e->data, t->data, (size_t)e->nbytes) == 0;
    for (size_t k = 0; k < n; k++) {
      double ev = element(e->data, e->scalar_type, k);
      double av = element(t->data, t->scalar_type, k);
      if (is_float && !close_enough(ev, av, rtol, atol)) {
        if (ok)
          snprintf(result->message, sizeof result->message,
                   "output %zu element %zu: %.9g, expected %.9g", o, k, av, ev);
        ok = false;
      }
      double abs_err, rel_err;
      if ((isnan(ev) && isnan(av)) || (isinf(ev) && ev == av)) {
        abs_err = rel_err = 0;
      } else {
        abs_err = fabs(av - ev);
        double den = fmax(fmax(fabs(av), fabs(ev)), 1e-8);
        rel_err = abs_err / den;
        if (isnan(abs_err)) abs_err = rel_err = INFINITY;
      }
      sum_abs += abs_err;
      sum_rel += rel_err;
      if (abs_err > result->max_abs_error) result->max_abs_error = abs_err;
      if (rel_err > result->max_rel_error) result->max_rel_error = rel_err;
    }
    result->elements += n;
    if (!ok && !is_float && all_ok)
      snprintf(result->message, sizeof result->message,
               "output %zu: %s values differ from the expected (exact "
               "comparison)",
               o, etk_scalar_type_name(t->scalar_type));
    all_ok &= ok;
  }
#undef MISMATCH
  if (result->elements) {
    result->mean_abs_error = sum_abs / (double)result->elements;
    result->mean_rel_error = sum_rel / (double)result->elements;
  }
  result->passed = all_ok;
  result->status = all_ok ? ETK_OK : ETK_E_MISMATCH;
  if (!all_ok)
    etk_error_set(err, ETK_E_MISMATCH, ETK_NO_OFFSET, "case %zu: %s",
                  case_index, result->message);
  return result->status;
}

int etk_bundled_run_all(etk_method_t *m, const struct etk_bundled_program *bp,
                        double rtol, double atol, etk_bundled_result_t *results,
                        size_t result_capacity, struct etk_error *err) {
  if (!m || !bp || (!results && result_capacity))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  const etk_bundled_suite_t *s = suite_for(m, bp, err);
  if (!s) return ETK_E_NOT_FOUND;
  if (result_capacity < s->case_count)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "room for %zu results, the suite has %u cases",
                         result_capacity, s->case_count);
  int overall = ETK_OK;
  for (uint32_t c = 0; c < s->case_count; c++) {
    etk_error_t local;
    etk_error_clear(&local);
    etk_bundled_result_t *r = &results[c];
    int rc = etk_bundled_load_input(m, bp, c, &local);
    if (rc == ETK_OK) rc = etk_method_execute(m, &local);
    if (rc != ETK_OK) {
      memset(r, 0, sizeof *r);
      r->case_index = c;
      r->status = rc;
      snprintf(r->message, sizeof r->message, "%.150s", local.message);
      if (overall == ETK_OK || overall == ETK_E_MISMATCH) {
        etk_error_set(err, rc, local.offset, "case %u: %s", c, local.message);
        overall = rc;
      }
      continue;
    }
    rc = etk_bundled_verify_outputs(m, bp, c, rtol, atol, r, NULL);
    if (rc != ETK_OK && overall == ETK_OK) {
      etk_error_set(err, rc, ETK_NO_OFFSET, "case %u: %s", c, r->message);
      overall = rc;
    }
  }
  return overall;
}
