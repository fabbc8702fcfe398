/*
 * references.c - the ETRecord members that are torch.save archives:
 * reading "reference_outputs" and "representative_inputs" (opened with the
 * torch library's archive reader, refusing the legacy raw pickles) and
 * selecting one test case, and encoding them for the ETRecord writer as
 * value trees built in one arena and saved with etk_torch_save_memory().
 *
 * The torch library knows nothing of ETRecords; this file is where the two
 * meet, so the arrow runs from etkit_etrecord down to etkit_torch only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ------------------------------------------------------ ETRecord members */

static int open_member(etk_etrecord_t *rec, const char *member,
                       const etk_pickle_limits_t *limits,
                       etk_torch_archive_t **out, etk_error_t *err) {
  if (!rec || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  const uint8_t *data;
  size_t len;
  if (!etk_etrecord_member_find(rec, member)) {
    return etk_error_set_where(err, member, ETK_E_NOT_FOUND,
                               "the ETRecord has no %s member", member);
  }
  int rc = etk_etrecord_member_read(rec, member, &data, &len, err);
  if (rc != ETK_OK) return rc;
  if (len == 0) {
    return etk_error_set_where(err, member, ETK_E_NOT_FOUND,
                               "the %s member is empty", member);
  }
  if (etk_etrecord_blob_kind(data, len) == ETK_ETRECORD_BLOB_PICKLE) {
    return etk_error_set_where(
        err, member, ETK_E_UNSUPPORTED,
        "legacy pickle, not decoded (records written before "
        "2026-03 stored %s with pickle.dumps)",
        member);
  }
  return etk_torch_archive_open(data, len, limits, member, out, err);
}

int etk_etrecord_reference_outputs_open(etk_etrecord_t *rec,
                                        const etk_pickle_limits_t *limits,
                                        etk_torch_archive_t **out,
                                        etk_error_t *err) {
  return open_member(rec, "reference_outputs", limits, out, err);
}

int etk_etrecord_representative_inputs_open(etk_etrecord_t *rec,
                                            const etk_pickle_limits_t *limits,
                                            etk_torch_archive_t **out,
                                            etk_error_t *err) {
  return open_member(rec, "representative_inputs", limits, out, err);
}

int etk_etrecord_reference_select(const etk_pickle_value_t *reference_outputs,
                                  const char *method, int64_t index,
                                  const etk_pickle_value_t **case_value,
                                  etk_error_t *err) {
  if (!reference_outputs || !case_value)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *case_value = NULL;
  if (!method) method = "forward";
  if (reference_outputs->kind != ETK_PICKLE_DICT) {
    return etk_error_set_where(
        err, "reference_outputs", ETK_E_FORMAT,
        "reference outputs are a %s, not a dict of methods",
        etk_pickle_kind_name(reference_outputs->kind));
  }
  const etk_pickle_value_t *cases =
      etk_pickle_dict_get(reference_outputs, method);
  if (!cases) {
    return etk_error_set_where(err, "reference_outputs", ETK_E_NOT_FOUND,
                               "no reference outputs for method '%s'", method);
  }
  if (cases->kind != ETK_PICKLE_LIST && cases->kind != ETK_PICKLE_TUPLE) {
    return etk_error_set_where(
        err, "reference_outputs", ETK_E_FORMAT,
        "reference outputs of '%s' are a %s, not a list of "
        "test cases",
        method, etk_pickle_kind_name(cases->kind));
  }
  if (index < -1 || (index >= 0 && (uint64_t)index >= cases->count) ||
      (index == -1 && cases->count == 0)) {
    return etk_error_set_where(
        err, "reference_outputs", ETK_E_NOT_FOUND,
        "no reference outputs for test case %lld of '%s' "
        "(it has %zu)",
        (long long)index, method, cases->count);
  }
  *case_value = cases->items[index < 0 ? cases->count - 1 : (size_t)index];
  return ETK_OK;
}

/* ------------------------------------------------- ETRecord references */

/* Value trees for the writer, built in one arena. */
static etk_pickle_value_t *leaf(etr_arena_t *ar, etk_pickle_kind_t kind) {
  etk_pickle_value_t *v = etr_arena_calloc(ar, 1, sizeof *v);
  if (v) v->kind = kind;
  return v;
}

static etk_pickle_value_t *tensor_value(etr_arena_t *ar,
                                        const etk_torch_tensor_desc_t *d,
                                        etk_error_t *err, int *rc) {
  size_t es = etk_torch_dtype_size(d->dtype);
  uint64_t numel = 1;
  bool ok = es && etk_torch_dtype_writable(d->dtype) &&
            (d->dim == 0 || d->sizes) && d->dim <= 64;
  for (uint32_t k = 0; ok && k < d->dim; k++) {
    if (d->sizes[k] < 0 ||
        (numel && (uint64_t)d->sizes[k] > UINT64_MAX / numel))
      ok = false;
    else
      numel *= (uint64_t)d->sizes[k];
  }
  if (!ok || numel > UINT64_MAX / (es ? es : 1) || numel * es != d->nbytes ||
      (d->nbytes && !d->data)) {
    *rc = etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                        "tensor of dtype %d, %u dims: unsupported dtype, bad "
                        "sizes, or nbytes %llu is not numel x element size",
                        (int)d->dtype, d->dim, (unsigned long long)d->nbytes);
    return NULL;
  }
  etk_pickle_value_t *v = leaf(ar, ETK_PICKLE_TENSOR);
  etk_torch_tensor_t *t = etr_arena_calloc(ar, 1, sizeof *t);
  if (!v || !t) {
    *rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
    return NULL;
  }
  t->dtype = d->dtype;
  t->element_size = es;
  t->dim = d->dim;
  t->sizes = d->sizes;
  t->numel = numel;
  t->contiguous = true;
  t->storage = d->data;
  t->storage_nbytes = d->nbytes;
  v->tensor = t;
  return v;
}

static etk_pickle_value_t *list_value(etr_arena_t *ar, size_t n) {
  etk_pickle_value_t *v = leaf(ar, ETK_PICKLE_LIST);
  const etk_pickle_value_t **items =
      etr_arena_calloc(ar, n ? n : 1, sizeof *items);
  if (!v || !items) return NULL;
  v->items = items;
  v->count = n;
  return v;
}

static int tensor_list(etr_arena_t *ar, const etk_torch_tensor_desc_t *d,
                       size_t n, etk_pickle_value_t **out, etk_error_t *err) {
  if (n && !d)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "tensors are NULL");
  etk_pickle_value_t *list = list_value(ar, n);
  if (!list)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < n; i++) {
    int rc = ETK_OK;
    const etk_pickle_value_t *t = tensor_value(ar, &d[i], err, &rc);
    if (!t) return rc;
    ((const etk_pickle_value_t **)list->items)[i] = t;
  }
  *out = list;
  return ETK_OK;
}

int etr_write_references(const etk_etrecord_references_desc_t *refs,
                         uint8_t **outputs, size_t *outputs_len,
                         uint8_t **inputs, size_t *inputs_len,
                         etk_error_t *err) {
  *outputs = *inputs = NULL;
  *outputs_len = *inputs_len = 0;
  etr_arena_t ar = {0};
  int rc = ETK_OK;
  if (refs->method_count && !refs->methods)
    rc = etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                       "reference methods are NULL");
  if (rc == ETK_OK && refs->method_count) {
    etk_pickle_value_t *dict = leaf(&ar, ETK_PICKLE_DICT);
    const etk_pickle_value_t **keys =
        etr_arena_calloc(&ar, refs->method_count, sizeof *keys);
    const etk_pickle_value_t **values =
        etr_arena_calloc(&ar, refs->method_count, sizeof *values);
    if (!dict || !keys || !values)
      rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
    for (size_t m = 0; m < refs->method_count && rc == ETK_OK; m++) {
      const etk_etrecord_reference_desc_t *r = &refs->methods[m];
      size_t mlen = r->method ? strlen(r->method) : 0;
      if (!mlen || etk_utf8_check(r->method, mlen) != mlen ||
          (r->case_count && !r->cases)) {
        rc = etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "reference outputs %zu: no method name, or cases "
                           "NULL",
                           m);
        break;
      }
      for (size_t j = 0; j < m; j++)
        if (strcmp(refs->methods[j].method, r->method) == 0)
          rc =
              etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                            "reference outputs of '%s' given twice", r->method);
      etk_pickle_value_t *key = leaf(&ar, ETK_PICKLE_STR);
      etk_pickle_value_t *cases = list_value(&ar, r->case_count);
      if (rc == ETK_OK && (!key || !cases))
        rc =
            etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
      if (rc != ETK_OK) break;
      key->str = r->method;
      key->len = mlen;
      for (size_t c = 0; c < r->case_count && rc == ETK_OK; c++) {
        etk_pickle_value_t *outs = NULL;
        rc = tensor_list(&ar, r->cases[c].outputs, r->cases[c].output_count,
                         &outs, err);
        if (rc == ETK_OK) ((const etk_pickle_value_t **)cases->items)[c] = outs;
      }
      keys[m] = key;
      values[m] = cases;
    }
    if (rc == ETK_OK) {
      dict->items = keys;
      dict->values = values;
      dict->count = refs->method_count;
      rc = etk_torch_save_memory(dict, outputs, outputs_len, err);
    }
  }
  if (rc == ETK_OK && refs->input_count) {
    etk_pickle_value_t *list = NULL;
    rc = tensor_list(&ar, refs->inputs, refs->input_count, &list, err);
    if (rc == ETK_OK) rc = etk_torch_save_memory(list, inputs, inputs_len, err);
  }
  etr_arena_free(&ar);
  if (rc != ETK_OK) {
    free(*outputs);
    free(*inputs);
    *outputs = *inputs = NULL;
    if (err) etk_error_where(err, "ETRecord writer: references");
  }
  return rc;
}

int etr_write_state_dict(const etk_etrecord_weight_desc_t *weights,
                         size_t count, uint8_t **out, size_t *out_len,
                         etk_error_t *err) {
  etr_arena_t ar = {0};
  int rc = ETK_OK;
  etk_pickle_value_t *dict = leaf(&ar, ETK_PICKLE_DICT);
  const etk_pickle_value_t **keys = etr_arena_calloc(&ar, count, sizeof *keys);
  const etk_pickle_value_t **values =
      etr_arena_calloc(&ar, count, sizeof *values);
  *out = NULL;
  *out_len = 0;
  if (!dict || !keys || !values)
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t k = 0; k < count && rc == ETK_OK; k++) {
    etk_pickle_value_t *key = leaf(&ar, ETK_PICKLE_STR);
    if (!key) {
      rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
      break;
    }
    key->str = weights[k].key;
    key->len = strlen(weights[k].key);
    keys[k] = key;
    values[k] = tensor_value(&ar, weights[k].tensor, err, &rc);
    if (!values[k] && rc == ETK_OK) rc = ETK_E_NO_MEMORY;
  }
  if (rc == ETK_OK) {
    dict->items = keys;
    dict->values = values;
    dict->count = count;
    dict->ordered = true;
    rc = etk_torch_save_memory(dict, out, out_len, err);
  }
  etr_arena_free(&ar);
  if (rc != ETK_OK && err) etk_error_where(err, "ETRecord writer: state dict");
  return rc;
}
