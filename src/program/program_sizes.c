/*
 * program_sizes.c - where a program's bytes go, as upstream's
 * devtools/size_analysis_tool reports it (generate_model_size_information:
 * tensor_data, delegate_blob_data, overview), from the .pte alone:
 *
 *   - constant tensors: every tensor value with constant data
 *     (data_buffer_idx > 0, not planned), largest first, with its fully
 *     qualified name, dtype, shape, numel and bytes.  Two tensors reading
 *     the same constant buffer (a weight shared by two methods) are both
 *     listed; the bytes count once (the later ones are marked shared);
 *   - delegate payloads: every BackendDelegate's processed bytes, largest
 *     first;
 *   - planned buffers: non_const_buffer_sizes per method and memory id,
 *     with the number of planned tensors placed in each;
 *   - the overview: total_tensor_data_size, total_delegate_blob_data_size,
 *     model_size (the file) and serialization_metadata_size (the rest).
 *
 * Upstream reads the ETRecord's graph (names are node names there, and it
 * adds nn_module_stack); etkit reads the program, so a tensor is named by
 * its fully qualified name and grouped into modules by that name's prefix
 * (etk_program_fqn_module).
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/program_schema.h"
#include "etkit/program_tools.h"
#include "etkit/scalar_type.h"

static int cmp_tensor(const void *a, const void *b) {
  const etk_program_size_tensor_t *x = a, *y = b;
  if (x->nbytes != y->nbytes) return x->nbytes > y->nbytes ? -1 : 1;
  if (x->plan != y->plan) return x->plan < y->plan ? -1 : 1;
  return x->value < y->value ? -1 : x->value > y->value;
}

static int cmp_delegate(const void *a, const void *b) {
  const etk_program_size_delegate_t *x = a, *y = b;
  if (x->nbytes != y->nbytes) return x->nbytes > y->nbytes ? -1 : 1;
  if (x->plan != y->plan) return x->plan < y->plan ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static bool is_constant(const etk_program_value_t *v) {
  return v->tag == ETK_PTE_KT_TENSOR && v->u.tensor->data_buffer_idx > 0 &&
         !v->u.tensor->planned && !v->u.tensor->external;
}

/* Counts what the arrays need: constant tensors, delegates, buffers. */
static void count_items(const etk_program_t *p, size_t *nt, size_t *nd,
                        size_t *nb) {
  *nt = *nd = *nb = 0;
  for (uint32_t k = 0; k < p->plan_count; k++) {
    const etk_program_plan_t *plan = &p->plans[k];
    for (uint32_t v = 0; v < plan->value_count; v++)
      if (is_constant(&plan->values[v])) (*nt)++;
    *nd += plan->delegate_count;
    if (plan->buffer_size_count > 1) *nb += plan->buffer_size_count - 1;
  }
}

/* Marks later readers of a constant buffer already counted.  The buffer
 * index space is the program's (shared by methods). */
static void mark_shared(etk_program_sizes_t *s, uint32_t constant_count) {
  uint8_t *seen = constant_count ? calloc(constant_count, 1) : NULL;
  for (size_t i = 0; i < s->tensor_count; i++) {
    etk_program_size_tensor_t *t = &s->tensors[i];
    if (seen && t->buffer_index < constant_count) {
      t->shared = seen[t->buffer_index] != 0;
      seen[t->buffer_index] = 1;
    }
    if (!t->shared) s->total_tensor_data_size += t->nbytes;
  }
  free(seen);
}

static void fill(const etk_program_t *p, etk_program_sizes_t *s) {
  for (uint32_t k = 0; k < p->plan_count; k++) {
    const etk_program_plan_t *plan = &p->plans[k];
    for (uint32_t v = 0; v < plan->value_count; v++) {
      const etk_program_value_t *pv = &plan->values[v];
      if (!is_constant(pv)) continue;
      const etk_program_tensor_t *t = pv->u.tensor;
      etk_program_size_tensor_t *o = &s->tensors[s->tensor_count++];
      o->plan = k;
      o->value = v;
      o->name = t->fully_qualified_name;
      o->scalar_type = t->scalar_type;
      o->dim = t->dim;
      o->sizes = t->sizes;
      size_t elem = etk_scalar_type_size(t->scalar_type);
      o->numel = elem ? t->nbytes / elem : 0;
      o->nbytes = t->nbytes;
      o->buffer_index = t->data_buffer_idx;
    }
    for (uint32_t d = 0; d < plan->delegate_count; d++) {
      const etk_program_delegate_t *dg = &plan->delegates[d];
      etk_program_size_delegate_t *o = &s->delegates[s->delegate_count++];
      o->plan = k;
      o->index = d;
      o->backend_id = dg->id;
      o->nbytes = dg->size;
      o->in_segment = dg->location == 1;
      s->total_delegate_blob_data_size += dg->size;
    }
    for (uint32_t b = 1; b < plan->buffer_size_count; b++) {
      etk_program_size_buffer_t *o = &s->buffers[s->buffer_count++];
      o->plan = k;
      o->memory_id = b;
      o->nbytes =
          plan->buffer_sizes[b] > 0 ? (uint64_t)plan->buffer_sizes[b] : 0;
      s->total_planned_bytes += o->nbytes;
      for (uint32_t v = 0; v < plan->value_count; v++) {
        const etk_program_value_t *pv = &plan->values[v];
        if (pv->tag == ETK_PTE_KT_TENSOR && pv->u.tensor->planned &&
            pv->u.tensor->memory_id == b)
          o->tensors++;
      }
    }
  }
}

int etk_program_sizes_build(const etk_program_t *p, etk_program_sizes_t *s,
                            etk_error_t *err) {
  memset(s, 0, sizeof *s);
  size_t nt, nd, nb;
  count_items(p, &nt, &nd, &nb);
  s->tensors = calloc(nt ? nt : 1, sizeof *s->tensors);
  s->delegates = calloc(nd ? nd : 1, sizeof *s->delegates);
  s->buffers = calloc(nb ? nb : 1, sizeof *s->buffers);
  if (!s->tensors || !s->delegates || !s->buffers) {
    etk_program_sizes_free(s);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory sizing the program");
  }
  fill(p, s);
  qsort(s->tensors, s->tensor_count, sizeof *s->tensors, cmp_tensor);
  qsort(s->delegates, s->delegate_count, sizeof *s->delegates, cmp_delegate);
  mark_shared(s, p->constant_count);
  s->model_size = p->size;
  uint64_t parts = s->total_tensor_data_size + s->total_delegate_blob_data_size;
  s->serialization_metadata_size =
      s->model_size > parts ? s->model_size - parts : 0;
  return ETK_OK;
}

void etk_program_sizes_free(etk_program_sizes_t *s) {
  if (!s) return;
  free(s->tensors);
  free(s->delegates);
  free(s->buffers);
  memset(s, 0, sizeof *s);
}

size_t etk_program_fqn_module(const char *fqn, char *out, size_t cap) {
  const char *dot = fqn ? strrchr(fqn, '.') : NULL;
  size_t n = dot ? (size_t)(dot - fqn) : 0;
  if (cap) {
    size_t w = n < cap - 1 ? n : cap - 1;
    if (w) memcpy(out, fqn, w);
    out[w] = '\0';
  }
  return n;
}
