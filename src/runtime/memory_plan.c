/*
 * memory_plan.c - how much memory a method needs, and the bump allocator
 * that hands it out.
 *
 * A method needs two kinds of memory, both provided by the caller:
 *
 *   planned buffers   the program's memory plan: buffer k (0-based) backs
 *                     every tensor with allocation_info.memory_id == k + 1
 *                     and holds non_const_buffer_sizes[k + 1] bytes.  The
 *                     program reader already proved every planned tensor
 *                     fits its buffer, so the executor only checks that the
 *                     caller's buffers are at least that large.
 *
 *   the method arena  every runtime struct: the etk_method_t, the values
 *                     and tensors, int-list scratch, converted tensor-list
 *                     indices, the prepared instructions and their argument
 *                     pointer arrays, input flags, delegate state and the
 *                     memory each backend asks for.
 *
 * etk_method_layout() counts those arrays from the plan; the sizing entry
 * point and the loader both use it, so "size then load" can never come up
 * short.  Every arena allocation is rounded up to 16 bytes and 16-byte
 * aligned; one extra 16 bytes covers an unaligned arena start.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"

#define ALIGN16(n) (((n) + 15u) & ~(size_t)15u)

/* Each allocation the loader makes, in order (sizes only). */
static size_t layout_total(const etk_program_plan_t *plan,
                           const etk_method_layout_t *l) {
  size_t t = 16; /* alignment slack */
  t += ALIGN16(sizeof(etk_method_t));
  t += ALIGN16(plan->value_count * sizeof(etk_value_t));
  t += ALIGN16(l->tensor_count * sizeof(etk_tensor_t));
  t += ALIGN16(l->int_list_items * sizeof(int64_t));
  t += ALIGN16(l->tensor_list_items * sizeof(int64_t));
  t += ALIGN16(plan->chain_count * sizeof(etk_chain_rt_t));
  t += ALIGN16(l->instr_count * sizeof(etk_instr_t));
  t += ALIGN16(l->arg_count * sizeof(etk_value_t *));
  t += ALIGN16(plan->input_count * sizeof(bool));
  t += ALIGN16(l->planned_count * sizeof(void *));
  t += ALIGN16(plan->delegate_count * sizeof(etk_delegate_rt_t));
  t += ALIGN16(l->spec_count * sizeof(etk_backend_compile_spec_t));
  t += ALIGN16(l->max_list * sizeof(etk_recorder_tensor_t));
  t += ALIGN16(l->max_list * 2 * ETK_MAX_DIMS * sizeof(int64_t));
  t += l->backend_total;
  return t;
}

int etk_method_layout(const etk_program_plan_t *plan, etk_method_layout_t *l,
                      etk_error_t *err) {
  memset(l, 0, sizeof *l);
  l->planned_count = plan->buffer_size_count ? plan->buffer_size_count - 1 : 0;
  for (uint32_t i = 0; i < plan->value_count; i++) {
    const etk_program_value_t *v = &plan->values[i];
    if (v->tag == ETK_VALUE_TENSOR) l->tensor_count++;
    if (v->tag == ETK_VALUE_INT_LIST) l->int_list_items += v->u.int_list.count;
    if (v->tag == ETK_VALUE_TENSOR_LIST ||
        v->tag == ETK_VALUE_OPTIONAL_TENSOR_LIST) {
      l->tensor_list_items += v->u.tensor_list.count;
      if (v->u.tensor_list.count > l->max_list)
        l->max_list = v->u.tensor_list.count;
    }
  }
  for (uint32_t c = 0; c < plan->chain_count; c++) {
    const etk_program_chain_t *ch = &plan->chains[c];
    l->instr_count += ch->instruction_count;
    for (uint32_t i = 0; i < ch->instruction_count; i++)
      l->arg_count += ch->instructions[i].arg_count;
  }
  for (uint32_t d = 0; d < plan->delegate_count; d++) {
    const etk_program_delegate_t *dg = &plan->delegates[d];
    const etk_backend_t *be = etk_backend_find(dg->id);
    if (!be)
      return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                           "method '%s': delegate %u needs backend '%s', which "
                           "is not registered",
                           plan->name, d, dg->id);
    l->spec_count += dg->compile_spec_count;
    if (be->memory_size) {
      size_t n = be->memory_size(dg->data, (size_t)dg->size);
      if (n > SIZE_MAX / 4)
        return etk_error_set(err, ETK_E_OVERFLOW, ETK_NO_OFFSET,
                             "method '%s': backend '%s' asks for too much "
                             "memory",
                             plan->name, dg->id);
      l->backend_total += ALIGN16(n);
    }
  }
  l->total = layout_total(plan, l);
  return ETK_OK;
}

void *etk_bump_alloc(etk_bump_t *b, size_t n) {
  size_t need = ALIGN16(n);
  if (need < n || need > b->size - b->used) return NULL;
  void *p = b->base + b->used;
  b->used += need;
  memset(p, 0, need);
  if (need && b->recorder && b->allocator_id)
    (void)etk_recorder_track_allocation(b->recorder, b->allocator_id, need);
  return p;
}

static const etk_program_plan_t *find_plan(const etk_program_t *program,
                                           const char *name) {
  return etk_program_find_plan(program, name);
}

int etk_method_memory_size(const struct etk_program *program,
                           const char *method_name, size_t *arena_size,
                           struct etk_error *err) {
  if (!program || !arena_size)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  const etk_program_plan_t *plan = find_plan(program, method_name);
  if (!plan)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "no method named '%s' in the program",
                         method_name ? method_name : "(first)");
  etk_method_layout_t l;
  int rc = etk_method_layout(plan, &l, err);
  if (rc != ETK_OK) return rc;
  *arena_size = l.total;
  return ETK_OK;
}

size_t etk_method_planned_count(const struct etk_program *program,
                                const char *method_name) {
  const etk_program_plan_t *plan = find_plan(program, method_name);
  if (!plan || plan->buffer_size_count == 0) return 0;
  return plan->buffer_size_count - 1;
}

size_t etk_method_planned_size(const struct etk_program *program,
                               const char *method_name, size_t k) {
  const etk_program_plan_t *plan = find_plan(program, method_name);
  if (!plan || k + 1 >= plan->buffer_size_count) return 0;
  return (size_t)plan->buffer_sizes[k + 1];
}
