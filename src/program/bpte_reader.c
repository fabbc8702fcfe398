/*
 * bpte_reader.c - the verified reader of BundledProgram files (.bpte).
 *
 * PURPOSE
 *   Load a .bpte ("BP08" at bytes 4..7, NOT size-prefixed) into plain
 *   structs: its test suites (one per method, sorted by name by writers),
 *   their cases (inputs and expected outputs as tensors or scalars), and
 *   the embedded .pte, itself loaded with etk_program_load().
 *
 * CHECKS, IN ORDER
 *   length and identifier; the FlatBuffers verifier with the bundled
 *   schema descriptors; then each Value: a known union member, a known
 *   scalar type, rank <= 16, a dim_order that is a permutation of the same
 *   length, and at least numel x element-size data bytes.  Errors in the
 *   embedded program are reported at their offset in the .bpte (the
 *   program's own offset plus the program vector's offset).
 *
 * MEMORY
 *   The bundled file is copied once into 64-byte aligned memory so that
 *   the embedded program (32-byte aligned by correct writers) can be loaded
 *   in place; if a writer did not align it, the program reader copies it.
 *   Structs live in an arena freed by etk_bundled_program_free().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/flatbuf.h"
#include "etkit/program_schema.h"
#include "etkit/schema.h"
#include "program_internal.h"

typedef etk_program_owner_t bundled_owner_t;

static int decode_value(etk_fb_table_t vt, const uint8_t *buf, uint32_t si,
                        uint32_t ci, const char *what, uint32_t k,
                        etk_bundled_value_t *out, etk_error_t *err) {
  (void)buf;
  out->offset = vt.pos;
  out->tag = etk_fb_get_u8(vt, ETK_BPTE_VALUE_VAL_TYPE, 0);
  etk_fb_table_t v = etk_fb_get_table(vt, ETK_BPTE_VALUE_VAL);
  switch (out->tag) {
    case ETK_BUNDLED_INT:
      out->i = etk_fb_get_i64(v, ETK_BPTE_SCALAR_VALUE, 0);
      return ETK_OK;
    case ETK_BUNDLED_BOOL:
      out->b = etk_fb_get_u8(v, ETK_BPTE_SCALAR_VALUE, 0) != 0;
      return ETK_OK;
    case ETK_BUNDLED_DOUBLE:
      out->d = etk_fb_get_f64(v, ETK_BPTE_SCALAR_VALUE, 0.0);
      return ETK_OK;
    case ETK_BUNDLED_TENSOR:
      break;
    default:
      return etk_error_set(err, ETK_E_FORMAT, vt.pos,
                           "suite %u case %u %s %u has no value", si, ci, what,
                           k);
  }
  out->scalar_type = etk_fb_get_i8(v, ETK_BPTE_TENSOR_SCALAR_TYPE, 0);
  size_t elem = etk_scalar_type_size(out->scalar_type);
  if (elem == 0)
    return etk_error_set(err, ETK_E_FORMAT, v.pos,
                         "suite %u case %u %s %u: unknown scalar type %d", si,
                         ci, what, k, out->scalar_type);
  etk_fb_vector_t sizes = etk_fb_get_vector(v, ETK_BPTE_TENSOR_SIZES);
  etk_fb_vector_t order = etk_fb_get_vector(v, ETK_BPTE_TENSOR_DIM_ORDER);
  etk_fb_vector_t data = etk_fb_get_vector(v, ETK_BPTE_TENSOR_DATA);
  uint32_t dim = sizes.data ? sizes.count : 0;
  uint32_t odim = order.data ? order.count : 0;
  if (dim > ETK_PROGRAM_MAX_DIMS)
    return etk_error_set(err, ETK_E_LIMIT, sizes.pos,
                         "suite %u case %u %s %u: rank %u exceeds %d", si, ci,
                         what, k, dim, ETK_PROGRAM_MAX_DIMS);
  if (odim != dim)
    return etk_error_set(err, ETK_E_FORMAT, v.pos,
                         "suite %u case %u %s %u: dim_order has %u entries for "
                         "rank %u",
                         si, ci, what, k, odim, dim);
  out->dim = dim;
  out->sizes = dim ? (const int32_t *)(const void *)sizes.data : NULL;
  out->dim_order = dim ? order.data : NULL;
  if (!etk_dim_order_valid(out->dim_order, dim))
    return etk_error_set(err, ETK_E_FORMAT, order.pos,
                         "suite %u case %u %s %u: dim_order is not a "
                         "permutation",
                         si, ci, what, k);
  int rc = etk_shape_nbytes(out->sizes, dim, elem, &out->nbytes);
  if (rc != ETK_OK)
    return etk_error_set(
        err, rc, sizes.pos, "suite %u case %u %s %u: %s", si, ci, what, k,
        rc == ETK_E_OVERFLOW ? "byte size overflows" : "negative size");
  out->data_len = data.data ? data.count : 0;
  out->data = data.data;
  if (out->data_len < out->nbytes)
    return etk_error_set(err, ETK_E_TRUNCATED, data.data ? data.pos : v.pos,
                         "suite %u case %u %s %u: %llu data bytes for a tensor "
                         "of %llu bytes",
                         si, ci, what, k, (unsigned long long)out->data_len,
                         (unsigned long long)out->nbytes);
  return ETK_OK;
}

static int decode_values(etk_arena_t *arena, const uint8_t *buf,
                         etk_fb_vector_t vec, uint32_t si, uint32_t ci,
                         const char *what, const etk_bundled_value_t **out,
                         uint32_t *count, etk_error_t *err) {
  uint32_t n = vec.data ? vec.count : 0;
  etk_bundled_value_t *vals = etk_arena_array(arena, n, sizeof *vals);
  if (!vals)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (uint32_t k = 0; k < n; k++) {
    int rc = decode_value(etk_fb_vector_table(buf, vec, k), buf, si, ci, what,
                          k, &vals[k], err);
    if (rc != ETK_OK) return rc;
  }
  *out = vals;
  *count = n;
  return ETK_OK;
}

void etk_bundled_program_free(etk_bundled_program_t *bp) {
  if (!bp) return;
  bundled_owner_t *owner = bp->internal_;
  etk_program_free(bp->program);
  etk_program_owner_free(owner); /* `bp` lives in the owner's arena */
}

int etk_bundled_program_load(const uint8_t *data, size_t len,
                             const etk_program_options_t *options,
                             etk_bundled_program_t **out, etk_error_t *err) {
  if (!out || (!data && len))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  if (len > etk_program_max_file_size(options))
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "bundled program of %zu bytes exceeds the limit", len);
  if (len < 8)
    return etk_error_set(err, ETK_E_TRUNCATED, len,
                         "file is %zu bytes, too short for a bundled program",
                         len);
  if (memcmp(data + 4, ETK_BPTE_IDENTIFIER, 4) != 0) {
    if (data[4] == 'B' && data[5] == 'P')
      return etk_error_set(err, ETK_E_UNSUPPORTED, 4,
                           "incompatible bundled program version '%.4s' (etkit "
                           "reads 'BP08')",
                           (const char *)data + 4);
    int rc = etk_file_kind_expect(NULL, data, len, ETK_FILE_BPTE, err);
    if (rc != ETK_OK) return rc; /* a program, an ETDump...: say so */
    return etk_error_set(err, ETK_E_BAD_IDENTIFIER, 4,
                         "not a bundled program: expected identifier 'BP08'");
  }
  etk_program_options_t bo = {0};
  if (options) bo = *options;
  bundled_owner_t *owner = etk_program_owner_new(&bo, err);
  if (!owner) return err ? err->code : ETK_E_NO_MEMORY;
  const uint8_t *buf = data;
  if (!bo.borrow || ((uintptr_t)data & 15u) != 0)
    buf = etk_program_owner_copy(owner, data, len, err);
  etk_bundled_program_t *bp =
      buf ? etk_arena_alloc(&owner->arena, sizeof *bp) : NULL;
  if (!bp) {
    int rc = buf ? etk_program_owner_status(
                       owner,
                       etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                                     "out of memory"),
                       "bundled program", err)
                 : (err ? err->code : ETK_E_NO_MEMORY);
    etk_program_owner_free(owner);
    return rc;
  }
  bp->internal_ = owner;
  bp->data = buf;
  bp->size = len;

  uint32_t root = 0;
  int rc =
      etk_program_verify_buffer(buf, len, ETK_BPTE_IDENTIFIER, &etk_bpte_schema,
                                "bundled program", &root, err);
  if (rc != ETK_OK) {
    etk_bundled_program_free(bp);
    return rc;
  }
  etk_fb_table_t t = etk_fb_root(buf, root);
  bp->version = etk_fb_get_u32(t, ETK_BPTE_PROGRAM_VERSION, 0);
  etk_fb_vector_t prog = etk_fb_get_vector(t, ETK_BPTE_PROGRAM_PROGRAM);
  if (!prog.data || prog.count == 0) {
    rc = etk_error_set(err, ETK_E_MISSING_FIELD, t.pos,
                       "bundled program holds no program");
    etk_bundled_program_free(bp);
    return rc;
  }
  bp->program_data = prog.data;
  bp->program_size = prog.count;
  bp->program_offset = prog.pos;

  etk_fb_vector_t suites =
      etk_fb_get_vector(t, ETK_BPTE_PROGRAM_METHOD_TEST_SUITES);
  uint32_t ns = suites.data ? suites.count : 0;
  etk_bundled_suite_t *sv = etk_arena_array(&owner->arena, ns, sizeof *sv);
  if (!sv) {
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
    etk_bundled_program_free(bp);
    return rc;
  }
  for (uint32_t s = 0; s < ns && rc == ETK_OK; s++) {
    etk_fb_table_t st = etk_fb_vector_table(buf, suites, s);
    etk_fb_string_t name = etk_fb_get_string(st, ETK_BPTE_SUITE_METHOD_NAME);
    if (!name.data) {
      rc = etk_error_set(err, ETK_E_FORMAT, st.pos,
                         "test suite %u has no method name", s);
      break;
    }
    sv[s].method_name = etk_arena_strndup(&owner->arena, name.data, name.len);
    etk_fb_vector_t cases = etk_fb_get_vector(st, ETK_BPTE_SUITE_TEST_CASES);
    uint32_t nc = cases.data ? cases.count : 0;
    etk_bundled_case_t *cv = etk_arena_array(&owner->arena, nc, sizeof *cv);
    if (!cv || !sv[s].method_name) {
      rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
      break;
    }
    for (uint32_t c = 0; c < nc && rc == ETK_OK; c++) {
      etk_fb_table_t ct = etk_fb_vector_table(buf, cases, c);
      rc = decode_values(&owner->arena, buf,
                         etk_fb_get_vector(ct, ETK_BPTE_CASE_INPUTS), s, c,
                         "input", &cv[c].inputs, &cv[c].input_count, err);
      if (rc == ETK_OK)
        rc = decode_values(
            &owner->arena, buf,
            etk_fb_get_vector(ct, ETK_BPTE_CASE_EXPECTED_OUTPUTS), s, c,
            "expected output", &cv[c].expected, &cv[c].expected_count, err);
    }
    sv[s].cases = cv;
    sv[s].case_count = nc;
  }
  bp->suites = sv;
  bp->suite_count = ns;
  if (rc != ETK_OK) {
    rc = etk_program_owner_status(owner, rc, "bundled program", err);
    etk_bundled_program_free(bp);
    return rc;
  }

  /* The embedded program, in place when aligned. */
  etk_program_options_t po = {0};
  if (options) po = *options;
  po.borrow = ((uintptr_t)bp->program_data & 15u) == 0;
  /* In the caller's arena, the embedded program takes what is left. */
  po.arena = NULL;
  po.arena_size = 0;
  if (owner->in_arena) {
    size_t left = etk_arena_fixed_left(&owner->arena);
    po.arena = left ? etk_arena_alloc(&owner->arena, left) : NULL;
    po.arena_size = po.arena ? left : 0;
    if (!po.arena) {
      rc = etk_program_owner_status(owner, ETK_E_NO_MEMORY, "bundled program",
                                    err);
      etk_bundled_program_free(bp);
      return rc;
    }
  }
  etk_error_t perr;
  etk_error_clear(&perr);
  rc = etk_program_load(bp->program_data, bp->program_size, &po, &bp->program,
                        &perr);
  if (rc != ETK_OK) {
    uint64_t off = perr.offset == ETK_NO_OFFSET
                       ? ETK_NO_OFFSET
                       : perr.offset + bp->program_offset;
    etk_error_set(err, rc, off, "embedded program: %s", perr.message);
    etk_bundled_program_free(bp);
    return rc;
  }
  *out = bp;
  return ETK_OK;
}

const etk_bundled_suite_t *etk_bundled_find_suite(
    const etk_bundled_program_t *bp, const char *method_name) {
  if (!bp || !method_name) return NULL;
  for (uint32_t i = 0; i < bp->suite_count; i++)
    if (strcmp(bp->suites[i].method_name, method_name) == 0)
      return &bp->suites[i];
  return NULL;
}

/* Whether bundled value `v` fits program value `pv` (an input when
 * `input`, an output otherwise).  Fills err on mismatch. */
int etk_bundled_value_fits(const etk_bundled_value_t *v,
                           const etk_program_value_t *pv, bool input,
                           const char *method, uint32_t c, uint32_t k,
                           etk_error_t *err) {
  const char *what = input ? "input" : "expected output";
  if (!input && v->tag != ETK_BUNDLED_TENSOR)
    return etk_error_set(err, ETK_E_MISMATCH, v->offset,
                         "method '%s' case %u %s %u: expected outputs must be "
                         "tensors",
                         method, c, what, k);
  static const int tag_map[5] = {0, ETK_PTE_KT_TENSOR, ETK_PTE_KT_INT,
                                 ETK_PTE_KT_BOOL, ETK_PTE_KT_DOUBLE};
  if (v->tag < 1 || v->tag > 4)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, v->offset,
                         "method '%s' case %u %s %u has no valid type", method,
                         c, what, k);
  if (pv->tag != tag_map[v->tag])
    return etk_error_set(err, ETK_E_MISMATCH, v->offset,
                         "method '%s' case %u %s %u is a %s, the method's is "
                         "a %s",
                         method, c, what, k,
                         etk_program_tag_name(tag_map[v->tag]),
                         etk_program_tag_name(pv->tag));
  /* Scalars are traced into the program: upstream only compares them. */
  bool same = true;
  if (v->tag == ETK_BUNDLED_INT) same = v->i == pv->u.i;
  if (v->tag == ETK_BUNDLED_BOOL) same = v->b == pv->u.b;
  if (v->tag == ETK_BUNDLED_DOUBLE) {
    double diff = v->d - pv->u.d, ref = pv->u.d;
    if (diff < 0) diff = -diff;
    if (ref < 0) ref = -ref;
    same = diff <= 1e-4 + 1e-5 * ref;
  }
  if (!same)
    return etk_error_set(err, ETK_E_MISMATCH, v->offset,
                         "method '%s' case %u input %u differs from the value "
                         "traced into the program",
                         method, c, k);
  if (v->tag != ETK_BUNDLED_TENSOR) return ETK_OK;
  const etk_program_tensor_t *t = pv->u.tensor;
  if (v->scalar_type != t->scalar_type)
    return etk_error_set(err, ETK_E_MISMATCH, v->offset,
                         "method '%s' case %u %s %u has dtype %s, the method "
                         "expects %s",
                         method, c, what, k,
                         etk_scalar_type_name(v->scalar_type),
                         etk_scalar_type_name(t->scalar_type));
  if (v->dim != t->dim)
    return etk_error_set(err, ETK_E_MISMATCH, v->offset,
                         "method '%s' case %u %s %u has rank %u, the method "
                         "expects %u",
                         method, c, what, k, v->dim, t->dim);
  for (uint32_t d = 0; d < v->dim; d++) {
    bool ok = t->shape_dynamism == 0 ? v->sizes[d] == t->sizes[d]
                                     : v->sizes[d] <= t->sizes[d];
    if (!ok)
      return etk_error_set(err, ETK_E_MISMATCH, v->offset,
                           "method '%s' case %u %s %u: size %d in dimension %u "
                           "does not fit the method's %d",
                           method, c, what, k, v->sizes[d], d, t->sizes[d]);
    if (v->dim_order[d] != t->dim_order[d])
      return etk_error_set(err, ETK_E_MISMATCH, v->offset,
                           "method '%s' case %u %s %u: dim_order differs from "
                           "the method's",
                           method, c, what, k);
  }
  return ETK_OK;
}

/* The inputs (is_input) or expected outputs of case c against the method's
 * plan: their count, then each value. */
static int check_case_values(const char *method, uint32_t c,
                             const etk_bundled_value_t *values, uint32_t count,
                             const etk_program_plan_t *plan, bool is_input,
                             etk_error_t *err) {
  uint32_t want = is_input ? plan->input_count : plan->output_count;
  const int32_t *slots = is_input ? plan->inputs : plan->outputs;
  if (count != want)
    return etk_error_set(err, ETK_E_MISMATCH, ETK_NO_OFFSET,
                         "method '%s' case %u has %u %s, the method %s %u",
                         method, c, count,
                         is_input ? "inputs" : "expected outputs",
                         is_input ? "takes" : "returns", want);
  for (uint32_t k = 0; k < count; k++) {
    int rc = etk_bundled_value_fits(&values[k], &plan->values[slots[k]],
                                    is_input, method, c, k, err);
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}

int etk_bundled_check(const etk_bundled_program_t *bp, etk_error_t *err) {
  if (!bp)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  for (uint32_t s = 0; s < bp->suite_count; s++) {
    const etk_bundled_suite_t *su = &bp->suites[s];
    const etk_program_plan_t *plan =
        etk_program_find_plan(bp->program, su->method_name);
    if (!plan)
      return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                           "test suite for method '%s', which the program "
                           "does not have",
                           su->method_name);
    for (uint32_t c = 0; c < su->case_count; c++) {
      const etk_bundled_case_t *cs = &su->cases[c];
      int rc = check_case_values(su->method_name, c, cs->inputs,
                                 cs->input_count, plan, true, err);
      if (rc != ETK_OK) return rc;
      if (cs->expected_count == 0) continue;
      rc = check_case_values(su->method_name, c, cs->expected,
                             cs->expected_count, plan, false, err);
      if (rc != ETK_OK) return rc;
    }
  }
  return ETK_OK;
}
