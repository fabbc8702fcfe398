/*
 * bpte_writer.c - writes BundledProgram files (.bpte) from a .pte and test
 * cases, following upstream's serializer (artifacts.md §2.4).
 *
 * STEPS
 *   1. load the .pte with the full reader (it must be a valid program);
 *   2. check every case against its method with the reader's rules
 *      (etk_bundled_value_fits): input count, kinds, dtypes, sizes,
 *      dim_order, scalars equal to the traced values, expected outputs
 *      tensors matching the plan outputs; and every tensor's byte count;
 *   3. group cases by method, suites sorted by method name (byte order, as
 *      upstream sorts them), cases in the caller's order;
 *   4. build the flatbuffer: BundledProgram{version 2, suites, program}
 *      with the program bytes unchanged in a 32-byte aligned ubyte vector
 *      and tensor data in 16-byte aligned vectors; identifier "BP08", no
 *      size prefix.  The builder pads the buffer start to the largest
 *      alignment, so offsets in the file keep those alignments.
 * Nothing is returned unless every step succeeded.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/flatbuf.h"
#include "etkit/program_schema.h"
#include "etkit/schema.h"
#include "program_internal.h"

static int to_bundled(const etk_tensor_data_t *t, etk_bundled_value_t *v,
                      const char *method, size_t c, uint32_t k, bool input,
                      etk_error_t *err) {
  memset(v, 0, sizeof *v);
  v->offset = (uint32_t)ETK_NO_OFFSET;
  v->tag = t->tag;
  const char *what = input ? "input" : "expected output";
  if (t->tag == ETK_BUNDLED_INT)
    v->i = t->i;
  else if (t->tag == ETK_BUNDLED_BOOL)
    v->b = t->b;
  else if (t->tag == ETK_BUNDLED_DOUBLE)
    v->d = t->d;
  else if (t->tag == ETK_BUNDLED_TENSOR) {
    size_t elem = etk_scalar_type_size(t->scalar_type);
    if (elem == 0 || t->dim > ETK_PROGRAM_MAX_DIMS || (t->dim && !t->sizes))
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "method '%s' case %zu %s %u: bad dtype or rank",
                           method, c, what, k);
    v->scalar_type = t->scalar_type;
    v->dim = t->dim;
    v->sizes = t->sizes;
    v->dim_order = t->dim_order;
    uint64_t nbytes;
    if (etk_shape_nbytes(t->sizes, t->dim, elem, &nbytes) != ETK_OK ||
        nbytes != t->nbytes || (nbytes && !t->data))
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "method '%s' case %zu %s %u: %llu data bytes for "
                           "its shape",
                           method, c, what, k, (unsigned long long)t->nbytes);
    v->nbytes = v->data_len = nbytes;
    v->data = t->data;
  } else {
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "method '%s' case %zu %s %u: unknown value kind %d",
                         method, c, what, k, t->tag);
  }
  return ETK_OK;
}

static int check_case(const etk_program_t *p, const etk_bundled_case_spec_t *cs,
                      size_t c, etk_error_t *err) {
  if (!cs->method_name)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "case %zu has no method name", c);
  const etk_program_plan_t *plan = etk_program_find_plan(p, cs->method_name);
  if (!plan)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "case %zu: the program has no method '%s'", c,
                         cs->method_name);
  if (cs->input_count != plan->input_count || (cs->input_count && !cs->inputs))
    return etk_error_set(err, ETK_E_MISMATCH, ETK_NO_OFFSET,
                         "method '%s' case %zu has %u inputs, the method takes "
                         "%u",
                         cs->method_name, c, cs->input_count,
                         plan->input_count);
  if (cs->expected_count && cs->expected_count != plan->output_count)
    return etk_error_set(err, ETK_E_MISMATCH, ETK_NO_OFFSET,
                         "method '%s' case %zu has %u expected outputs, the "
                         "method returns %u",
                         cs->method_name, c, cs->expected_count,
                         plan->output_count);
  if (cs->expected_count && !cs->expected)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL expected outputs");
  for (uint32_t k = 0; k < cs->input_count + cs->expected_count; k++) {
    bool input = k < cs->input_count;
    uint32_t j = input ? k : k - cs->input_count;
    const etk_tensor_data_t *t = input ? &cs->inputs[j] : &cs->expected[j];
    etk_bundled_value_t v;
    uint8_t identity[ETK_PROGRAM_MAX_DIMS];
    int rc = to_bundled(t, &v, cs->method_name, c, j, input, err);
    if (rc != ETK_OK) return rc;
    if (v.tag == ETK_BUNDLED_TENSOR && !v.dim_order) {
      for (uint32_t d = 0; d < v.dim; d++) identity[d] = (uint8_t)d;
      v.dim_order = identity;
    }
    if (v.tag == ETK_BUNDLED_TENSOR && !etk_dim_order_valid(v.dim_order, v.dim))
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "method '%s' case %zu: dim_order is not a "
                           "permutation",
                           cs->method_name, c);
    const etk_program_value_t *pv =
        &plan->values[input ? plan->inputs[j] : plan->outputs[j]];
    rc = etk_bundled_value_fits(&v, pv, input, cs->method_name, (uint32_t)c, j,
                                err);
    /* the case is in no file yet: no byte offset to name (v.offset, a
     * uint32_t, would read as byte 4294967295) */
    if (rc != ETK_OK && err) err->offset = ETK_NO_OFFSET;
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}

static etk_fb_ref_t emit_value(etk_fb_builder_t *fb,
                               const etk_tensor_data_t *t) {
  etk_fb_ref_t inner;
  if (t->tag == ETK_BUNDLED_TENSOR) {
    uint8_t identity[ETK_PROGRAM_MAX_DIMS];
    const uint8_t *order = t->dim_order;
    if (!order) {
      for (uint32_t d = 0; d < t->dim; d++) identity[d] = (uint8_t)d;
      order = identity;
    }
    etk_fb_ref_t sizes = etk_fb_create_vector(fb, t->sizes, t->dim, 4, 4);
    etk_fb_ref_t data =
        etk_fb_create_vector(fb, t->data, (size_t)t->nbytes, 1, 16);
    etk_fb_ref_t dim_order = etk_fb_create_vector(fb, order, t->dim, 1, 1);
    etk_fb_table_start(fb);
    etk_fb_add_i8(fb, ETK_BPTE_TENSOR_SCALAR_TYPE, (int8_t)t->scalar_type, 0,
                  ETK_FB_FORCE);
    etk_fb_add_ref(fb, ETK_BPTE_TENSOR_SIZES, sizes);
    etk_fb_add_ref(fb, ETK_BPTE_TENSOR_DATA, data);
    etk_fb_add_ref(fb, ETK_BPTE_TENSOR_DIM_ORDER, dim_order);
    inner = etk_fb_table_end(fb);
  } else {
    etk_fb_table_start(fb);
    if (t->tag == ETK_BUNDLED_INT)
      etk_fb_add_i64(fb, ETK_BPTE_SCALAR_VALUE, t->i, 0, ETK_FB_FORCE);
    else if (t->tag == ETK_BUNDLED_BOOL)
      etk_fb_add_bool(fb, ETK_BPTE_SCALAR_VALUE, t->b, 0, ETK_FB_FORCE);
    else
      etk_fb_add_f64(fb, ETK_BPTE_SCALAR_VALUE, t->d, 0.0, ETK_FB_FORCE);
    inner = etk_fb_table_end(fb);
  }
  etk_fb_table_start(fb);
  etk_fb_add_u8(fb, ETK_BPTE_VALUE_VAL_TYPE, (uint8_t)t->tag, 0, 0);
  etk_fb_add_ref(fb, ETK_BPTE_VALUE_VAL, inner);
  return etk_fb_table_end(fb);
}

static etk_fb_ref_t emit_values(etk_fb_builder_t *fb,
                                const etk_tensor_data_t *ts, uint32_t n) {
  etk_fb_ref_t *refs = malloc((n ? n : 1) * sizeof *refs);
  if (!refs) return 0;
  for (uint32_t k = 0; k < n; k++) refs[k] = emit_value(fb, &ts[k]);
  etk_fb_ref_t r = etk_fb_create_offset_vector(fb, refs, n);
  free(refs);
  return r;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int build(etk_fb_builder_t *fb, const uint8_t *pte, size_t pte_len,
                 const etk_bundled_case_spec_t *cases, size_t n,
                 const char **names, size_t nnames, const uint8_t **out,
                 size_t *out_len) {
  etk_fb_ref_t *suites = malloc((nnames ? nnames : 1) * sizeof *suites);
  etk_fb_ref_t *case_refs = malloc((n ? n : 1) * sizeof *case_refs);
  if (!suites || !case_refs) {
    free(suites);
    free(case_refs);
    return ETK_E_NO_MEMORY;
  }
  for (size_t s = 0; s < nnames; s++) {
    size_t nc = 0;
    for (size_t c = 0; c < n; c++) {
      if (strcmp(cases[c].method_name, names[s]) != 0) continue;
      etk_fb_ref_t in = emit_values(fb, cases[c].inputs, cases[c].input_count);
      etk_fb_ref_t ex =
          emit_values(fb, cases[c].expected, cases[c].expected_count);
      etk_fb_table_start(fb);
      etk_fb_add_ref(fb, ETK_BPTE_CASE_INPUTS, in);
      etk_fb_add_ref(fb, ETK_BPTE_CASE_EXPECTED_OUTPUTS, ex);
      case_refs[nc++] = etk_fb_table_end(fb);
    }
    etk_fb_ref_t cv = etk_fb_create_offset_vector(fb, case_refs, nc);
    etk_fb_ref_t name = etk_fb_create_string(fb, names[s], strlen(names[s]));
    etk_fb_table_start(fb);
    etk_fb_add_ref(fb, ETK_BPTE_SUITE_METHOD_NAME, name);
    etk_fb_add_ref(fb, ETK_BPTE_SUITE_TEST_CASES, cv);
    suites[s] = etk_fb_table_end(fb);
  }
  etk_fb_ref_t sv = etk_fb_create_offset_vector(fb, suites, nnames);
  etk_fb_ref_t prog = etk_fb_create_vector(fb, pte, pte_len, 1, 32);
  etk_fb_table_start(fb);
  etk_fb_add_u32(fb, ETK_BPTE_PROGRAM_VERSION, 2, 0, 0);
  etk_fb_add_ref(fb, ETK_BPTE_PROGRAM_METHOD_TEST_SUITES, sv);
  etk_fb_add_ref(fb, ETK_BPTE_PROGRAM_PROGRAM, prog);
  etk_fb_ref_t root = etk_fb_table_end(fb);
  free(suites);
  free(case_refs);
  return etk_fb_finish(fb, root, ETK_BPTE_IDENTIFIER, ETK_FB_NO_SIZE_PREFIX,
                       out, out_len);
}

int etk_bundled_write(const uint8_t *pte, size_t pte_len,
                      const etk_bundled_case_spec_t *cases, size_t case_count,
                      uint8_t **out, size_t *out_len, etk_error_t *err) {
  if (!pte || !out || !out_len || (case_count && !cases))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  *out_len = 0;
  etk_program_t *p;
  etk_error_t perr;
  etk_error_clear(&perr);
  int rc = etk_program_load(pte, pte_len, NULL, &p, &perr);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, perr.offset, "the program to bundle: %s",
                         perr.message);
  for (size_t c = 0; c < case_count && rc == ETK_OK; c++)
    rc = check_case(p, &cases[c], c, err);
  etk_program_free(p);
  if (rc != ETK_OK) return rc;

  /* Distinct method names, sorted. */
  const char **names = malloc((case_count ? case_count : 1) * sizeof *names);
  if (!names)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  size_t nnames = 0;
  for (size_t c = 0; c < case_count; c++) {
    size_t k = 0;
    while (k < nnames && strcmp(names[k], cases[c].method_name) != 0) k++;
    if (k == nnames) names[nnames++] = cases[c].method_name;
  }
  qsort(names, nnames, sizeof *names, cmp_names);

  size_t cap = pte_len + 4096;
  for (size_t c = 0; c < case_count; c++)
    for (uint32_t k = 0; k < cases[c].input_count + cases[c].expected_count;
         k++) {
      const etk_tensor_data_t *t =
          k < cases[c].input_count
              ? &cases[c].inputs[k]
              : &cases[c].expected[k - cases[c].input_count];
      cap += 160 + (size_t)t->nbytes + 8u * t->dim;
    }
  uint8_t *mem = NULL;
  for (;; cap *= 2) {
    free(mem);
    mem = cap <= ((size_t)1 << 31) ? malloc(cap) : NULL;
    if (!mem) {
      rc = ETK_E_NO_MEMORY;
      break;
    }
    etk_fb_builder_t fb;
    etk_fb_builder_init(&fb, mem, cap);
    const uint8_t *bytes;
    size_t len;
    rc = build(&fb, pte, pte_len, cases, case_count, names, nnames, &bytes,
               &len);
    if (rc == ETK_E_NO_MEMORY) continue;
    if (rc == ETK_OK) {
      *out = malloc(len);
      if (!*out) {
        rc = ETK_E_NO_MEMORY;
      } else {
        memcpy(*out, bytes, len);
        *out_len = len;
      }
    }
    break;
  }
  free(mem);
  free(names);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "cannot serialise the bundled program: %s",
                         etk_strerror(rc));
  return ETK_OK;
}
