/*
 * executor.c - loads a method of a verified program into caller memory and
 * runs it, with upstream ExecuTorch's semantics and event structure.
 *
 * LOAD (etk_method_load = Program::load_method + Method::init)
 *   1. "Default" block; allocators "method_allocator" and
 *      "planned_memory_<id>" are named before any event (the recorder only
 *      accepts allocators first); scope "Program::load_method".
 *   2. Checks the caller's memory (arena size from etk_method_layout(),
 *      planned buffers count, sizes, alignment), emits one allocation event
 *      per planned buffer, then scope "Method::init":
 *   3. values: one etk_value_t per program value, tensors bound to planned
 *      memory (initial data copied in), constants (pointing into the
 *      program) or left empty for run-time inputs; int lists get scratch,
 *      tensor lists get int64 indices;
 *   4. delegates: backend looked up by id, given its method memory, compile
 *      specs and payload;
 *   5. instructions: each KernelCall is bound to its kernel and the kernel's
 *      dtype check runs on the real argument values, so an unsupported
 *      operator or dtype is rejected here, never during execute().
 *   Every arena allocation is an allocation event of "method_allocator".
 *
 * EXECUTE (etk_method_execute = Method::execute)
 *   "Execute" block, scope "Method::execute"; for each instruction of each
 *   chain the recorder's (chain, instruction id) is set, the instruction
 *   runs inside its operator scopes, and the ids are reset.  Outputs are
 *   logged at the end when the debug level asks.  The hot loop reads only
 *   the prepared etk_instr_t array and never allocates.
 *
 * INVARIANTS
 *   - after a successful load every instruction's args point into `values`
 *     and every KernelCall has a kernel that accepted its dtypes;
 *   - a tensor's data is NULL only for run-time inputs not yet set (and
 *     after a FreeCall); set_input() never writes past a planned tensor's
 *     capacity;
 *   - execute() runs at most max_instructions instructions.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"

/* ------------------------------------------------------- logged values */

static void describe_tensor(const etk_tensor_t *t, etk_recorder_tensor_t *out,
                            int64_t *dims) {
  int32_t dim = t->dim < 0 ? 0 : t->dim > ETK_MAX_DIMS ? ETK_MAX_DIMS : t->dim;
  for (int32_t d = 0; d < dim; d++) {
    dims[d] = t->sizes[d];
    dims[ETK_MAX_DIMS + d] = t->strides[d];
  }
  out->scalar_type = t->scalar_type;
  out->dim = (uint32_t)dim;
  out->sizes = dims;
  out->strides = dims + ETK_MAX_DIMS;
  out->data = t->data;
  size_t elem = etk_scalar_type_size(t->scalar_type);
  int64_t numel = etk_tensor_numel(t);
  out->nbytes = (size_t)numel * elem;
  if (out->nbytes > t->nbytes && t->nbytes) out->nbytes = t->nbytes;
  if (!t->data) out->nbytes = 0;
}

int etk_logged_value_init(etk_logged_value_t *out, const etk_value_t *v,
                          const etk_value_t *values, size_t value_count,
                          etk_recorder_tensor_t *list, int64_t *list_dims,
                          size_t list_capacity) {
  switch (v->tag) {
    case ETK_VALUE_INT:
      out->value = etk_value_int(v->u.i);
      return ETK_OK;
    case ETK_VALUE_BOOL:
      out->value = etk_value_bool(v->u.b);
      return ETK_OK;
    case ETK_VALUE_DOUBLE:
      out->value = etk_value_double(v->u.d);
      return ETK_OK;
    case ETK_VALUE_TENSOR:
      if (!v->u.tensor) return ETK_E_INVALID_ARGUMENT;
      describe_tensor(v->u.tensor, &out->tensor, out->dims);
      out->value = etk_value_tensor(&out->tensor);
      return ETK_OK;
    case ETK_VALUE_TENSOR_LIST: {
      /* Logged as one event: splitting a long list would change the
       * ETDump's structure, so it is refused instead. */
      size_t n = v->u.tensor_list.count;
      if (!values || n > list_capacity) return ETK_E_LIMIT;
      for (size_t k = 0; k < n; k++) {
        int64_t idx = v->u.tensor_list.items[k];
        if (idx < 0 || (size_t)idx >= value_count ||
            values[idx].tag != ETK_VALUE_TENSOR || !values[idx].u.tensor)
          return ETK_E_INVALID_ARGUMENT;
        describe_tensor(values[idx].u.tensor, &list[k],
                        list_dims + k * 2 * ETK_MAX_DIMS);
      }
      out->value = etk_value_tensor_list(list, n);
      return ETK_OK;
    }
    default:
      return ETK_E_UNSUPPORTED;
  }
}

/* Logs a value of the method; values without an ETDump form are skipped
 * and recorder errors ignored (tracing is best effort, as upstream: the
 * recorder counts what it dropped). */
static void log_value(etk_method_t *m, const etk_value_t *v,
                      etk_logged_type_t type) {
  etk_logged_value_t lv;
  if (etk_logged_value_init(&lv, v, m->values, m->value_count, m->list_tensors,
                            m->list_dims, m->list_capacity) == ETK_OK)
    (void)etk_recorder_log_value(m->recorder, &lv.value, type);
}

static void clear_instruction(etk_recorder_t *rec) {
  etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET,
                                      ETK_DEBUG_HANDLE_UNSET);
}

/* ------------------------------------------------------------------ load */

typedef struct loader {
  etk_method_t *m;
  const etk_program_plan_t *plan;
  const etk_method_config_t *cfg;
  etk_bump_t bump;
  etk_method_layout_t layout;
  etk_error_t *err;
} loader_t;

static int load_fail(loader_t *L, int code, uint64_t offset, const char *fmt,
                     ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int load_fail(loader_t *L, int code, uint64_t offset, const char *fmt,
                     ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return etk_error_set(L->err, code, offset, "method '%.40s': %s",
                       L->plan->name, msg);
}

static void *alloc_or_fail(loader_t *L, size_t n, int *rc) {
  void *p = etk_bump_alloc(&L->bump, n);
  if (!p)
    *rc = load_fail(L, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                    "method arena exhausted (internal sizing error)");
  return p;
}

static int load_values(loader_t *L) {
  etk_method_t *m = L->m;
  const etk_program_plan_t *plan = L->plan;
  const etk_method_config_t *cfg = L->cfg;
  int rc = ETK_OK;
  m->value_count = plan->value_count;
  m->values = alloc_or_fail(L, plan->value_count * sizeof(etk_value_t), &rc);
  if (!m->values) return rc;
  m->tensors =
      alloc_or_fail(L, L->layout.tensor_count * sizeof(etk_tensor_t), &rc);
  int64_t *int_scratch =
      m->tensors
          ? alloc_or_fail(L, L->layout.int_list_items * sizeof(int64_t), &rc)
          : NULL;
  int64_t *list_items =
      int_scratch
          ? alloc_or_fail(L, L->layout.tensor_list_items * sizeof(int64_t), &rc)
          : NULL;
  if (!list_items) return rc;
  size_t next_tensor = 0;
  for (uint32_t i = 0; i < plan->value_count; i++) {
    const etk_program_value_t *pv = &plan->values[i];
    etk_value_t *v = &m->values[i];
    v->tag = pv->tag;
    switch (pv->tag) {
      case ETK_VALUE_NULL:
      case ETK_VALUE_NONE:
        break;
      case ETK_VALUE_INT:
        v->u.i = pv->u.i;
        break;
      case ETK_VALUE_BOOL:
        v->u.b = pv->u.b;
        break;
      case ETK_VALUE_DOUBLE:
        v->u.d = pv->u.d;
        break;
      case ETK_VALUE_STRING:
        v->u.string.data = pv->u.string.data;
        v->u.string.len = pv->u.string.len;
        break;
      case ETK_VALUE_INT_LIST:
        v->u.int_list.items = pv->u.int_list.items;
        v->u.int_list.count = pv->u.int_list.count;
        v->u.int_list.scratch = int_scratch;
        int_scratch += pv->u.int_list.count;
        break;
      case ETK_VALUE_DOUBLE_LIST:
        v->u.double_list.items = pv->u.double_list.items;
        v->u.double_list.count = pv->u.double_list.count;
        break;
      case ETK_VALUE_BOOL_LIST:
        v->u.bool_list.items = pv->u.bool_list.items;
        v->u.bool_list.count = pv->u.bool_list.count;
        break;
      case ETK_VALUE_TENSOR_LIST:
      case ETK_VALUE_OPTIONAL_TENSOR_LIST:
        for (uint32_t k = 0; k < pv->u.tensor_list.count; k++)
          list_items[k] = pv->u.tensor_list.items[k];
        v->u.tensor_list.items = list_items;
        v->u.tensor_list.count = pv->u.tensor_list.count;
        list_items += pv->u.tensor_list.count;
        break;
      case ETK_VALUE_TENSOR: {
        const etk_program_tensor_t *pt = pv->u.tensor;
        etk_tensor_t *t = &m->tensors[next_tensor++];
        if (pt->storage_offset != 0)
          return load_fail(L, ETK_E_UNSUPPORTED, pv->offset,
                           "value %u: non-zero storage offset %d is not "
                           "supported",
                           i, pt->storage_offset);
        if (pt->shape_dynamism == 2)
          return load_fail(L, ETK_E_UNSUPPORTED, pv->offset,
                           "value %u: unbound dynamic shapes are not supported",
                           i);
        if (pt->external)
          return load_fail(L, ETK_E_UNSUPPORTED, pv->offset,
                           "value %u: external tensor data ('%s') is not "
                           "supported",
                           i, pt->fully_qualified_name);
        t->scalar_type = pt->scalar_type;
        t->dim = (int32_t)pt->dim;
        for (uint32_t d = 0; d < pt->dim; d++) {
          t->sizes[d] = pt->sizes[d];
          t->dim_order[d] = pt->dim_order[d];
        }
        t->shape_dynamism = pt->shape_dynamism;
        etk_tensor_update_strides(t);
        t->nbytes = (size_t)pt->nbytes;
        if (pt->planned) {
          uint8_t *base = cfg->planned_buffers[pt->memory_id - 1];
          t->data = base + pt->memory_offset;
          t->capacity_bytes = (size_t)pt->nbytes;
          if (pt->data && pt->nbytes) memcpy(t->data, pt->data, pt->nbytes);
        } else if (pt->data) {
          /* Constants are never written by correct programs; kernels see
           * them through the same pointer type as everything else. */
          t->data = (void *)(uintptr_t)pt->data;
          t->capacity_bytes = (size_t)pt->nbytes;
        } else {
          t->data = NULL; /* provided at run time (set_input) */
          t->capacity_bytes = 0;
        }
        v->u.tensor = t;
      } break;
      default:
        return load_fail(L, ETK_E_FORMAT, pv->offset, "value %u: bad type %d",
                         i, pv->tag);
    }
  }
  return ETK_OK;
}

static int load_delegates(loader_t *L) {
  etk_method_t *m = L->m;
  const etk_program_plan_t *plan = L->plan;
  int rc = ETK_OK;
  m->delegate_count = plan->delegate_count;
  m->delegates =
      alloc_or_fail(L, plan->delegate_count * sizeof(etk_delegate_rt_t), &rc);
  etk_backend_compile_spec_t *specs =
      m->delegates
          ? alloc_or_fail(
                L, L->layout.spec_count * sizeof(etk_backend_compile_spec_t),
                &rc)
          : NULL;
  if (!specs) return rc;
  for (uint32_t d = 0; d < plan->delegate_count; d++) {
    const etk_program_delegate_t *dg = &plan->delegates[d];
    const etk_backend_t *be = etk_backend_find(dg->id);
    if (!be)
      return load_fail(L, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "delegate %u needs backend '%s', which is not "
                       "registered",
                       d, dg->id);
    etk_backend_init_context_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.method_name = plan->name;
    ctx.delegate_index = d;
    ctx.recorder = m->recorder;
    for (uint32_t k = 0; k < dg->compile_spec_count; k++) {
      specs[k].key = dg->compile_specs[k].key;
      specs[k].value = dg->compile_specs[k].value;
      specs[k].value_len = dg->compile_specs[k].value_len;
    }
    ctx.compile_specs = specs;
    ctx.compile_spec_count = dg->compile_spec_count;
    specs += dg->compile_spec_count;
    size_t need =
        be->memory_size ? be->memory_size(dg->data, (size_t)dg->size) : 0;
    if (need) {
      ctx.memory = alloc_or_fail(L, need, &rc);
      if (!ctx.memory) return rc;
      ctx.memory_size = need;
    }
    void *handle = NULL;
    rc = be->init(&ctx, dg->data, (size_t)dg->size, &handle);
    if (rc != ETK_OK)
      return load_fail(L, rc, ETK_NO_OFFSET,
                       "delegate %u (backend '%s') rejected its payload: %s", d,
                       dg->id, ctx.message[0] ? ctx.message : etk_strerror(rc));
    m->delegates[d].backend = be;
    m->delegates[d].handle = handle;
    m->delegates[d].initialized = true;
  }
  return ETK_OK;
}

static int load_chains(loader_t *L) {
  etk_method_t *m = L->m;
  const etk_program_plan_t *plan = L->plan;
  int rc = ETK_OK;
  if (plan->chain_count == 0)
    return load_fail(L, ETK_E_FORMAT, plan->offset, "the method has no chains");
  m->chain_count = plan->chain_count;
  m->chains = alloc_or_fail(L, plan->chain_count * sizeof(etk_chain_rt_t), &rc);
  etk_instr_t *instrs =
      m->chains
          ? alloc_or_fail(L, L->layout.instr_count * sizeof(etk_instr_t), &rc)
          : NULL;
  etk_value_t **argp =
      instrs
          ? alloc_or_fail(L, L->layout.arg_count * sizeof(etk_value_t *), &rc)
          : NULL;
  if (!argp) return rc;
  uint32_t missing = 0;
  const char *first_missing = NULL;
  uint32_t first_missing_instr = 0, first_missing_chain = 0;
  for (uint32_t c = 0; c < plan->chain_count; c++) {
    const etk_program_chain_t *ch = &plan->chains[c];
    m->chains[c].instrs = instrs;
    m->chains[c].count = ch->instruction_count;
    for (uint32_t i = 0; i < ch->instruction_count; i++) {
      const etk_program_instruction_t *pi = &ch->instructions[i];
      etk_instr_t *x = &instrs[i];
      x->kind = pi->kind;
      x->index = pi->index;
      x->index2 = pi->index2;
      if (pi->kind == ETK_INSTR_KERNEL_CALL ||
          pi->kind == ETK_INSTR_DELEGATE_CALL) {
        x->args = argp;
        x->nargs = pi->arg_count;
        for (uint32_t k = 0; k < pi->arg_count; k++)
          argp[k] = &m->values[pi->args[k]];
        argp += pi->arg_count;
        etk_program_call_outputs(pi->args, pi->arg_count, &x->out_first,
                                 &x->out_count);
      }
      if (pi->kind != ETK_INSTR_KERNEL_CALL) continue;
      const etk_program_operator_t *op = &plan->operators[pi->index];
      const etk_kernel_entry_t *entry = etk_kernel_find(op->full_name);
      x->event = etk_recorder_intern(m->recorder, op->event_name);
      if (!entry) {
        if (missing++ == 0) {
          first_missing = op->full_name;
          first_missing_instr = i;
          first_missing_chain = c;
        }
        continue;
      }
      x->fn = entry->fn;
      if (entry->check) {
        m->kctx.message[0] = 0;
        rc = entry->check(&m->kctx, x->args, x->nargs);
        if (rc != ETK_OK)
          return load_fail(
              L, ETK_E_UNSUPPORTED, pi->offset,
              "instruction %u: operator '%s' cannot run these "
              "arguments: %s",
              i, op->full_name,
              m->kctx.message[0] ? m->kctx.message : etk_strerror(rc));
      }
    }
    instrs += ch->instruction_count;
  }
  if (missing)
    return load_fail(
        L, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
        "operator '%s' (chain %u instruction %u) has no kernel%s",
        first_missing, first_missing_chain, first_missing_instr,
        missing > 1 ? "; other instructions lack kernels too" : "");
  return ETK_OK;
}

static void destroy_delegates(etk_method_t *m) {
  if (!m || !m->delegates) return;
  for (uint32_t d = 0; d < m->delegate_count; d++) {
    etk_delegate_rt_t *dr = &m->delegates[d];
    if (dr->initialized && dr->backend->destroy)
      dr->backend->destroy(dr->handle);
    dr->initialized = false;
  }
}

static int check_memory(loader_t *L) {
  const etk_method_config_t *cfg = L->cfg;
  const etk_program_plan_t *plan = L->plan;
  size_t want = plan->buffer_size_count ? plan->buffer_size_count - 1 : 0;
  if (!cfg->arena || cfg->arena_size < L->layout.total)
    return load_fail(L, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                     "method arena of %zu bytes is too small: %zu needed",
                     cfg->arena ? cfg->arena_size : 0, L->layout.total);
  if (cfg->planned_count != want)
    return load_fail(L, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                     "%zu planned buffers given, the plan has %zu",
                     cfg->planned_count, want);
  for (size_t k = 0; k < want; k++) {
    size_t need = (size_t)plan->buffer_sizes[k + 1];
    if (need && (!cfg->planned_buffers || !cfg->planned_buffers[k] ||
                 !cfg->planned_sizes || cfg->planned_sizes[k] < need))
      return load_fail(L, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                       "planned buffer %zu needs %zu bytes", k + 1, need);
    if (need && ((uintptr_t)cfg->planned_buffers[k] & 15u))
      return load_fail(L, ETK_E_BAD_ALIGNMENT, ETK_NO_OFFSET,
                       "planned buffer %zu is not 16-byte aligned", k + 1);
  }
  return ETK_OK;
}

int etk_method_load(const struct etk_program *program, const char *method_name,
                    const etk_method_config_t *config, etk_method_t **out,
                    struct etk_error *err) {
  if (!program || !config || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  etk_recorder_t *rec = config->recorder;
  /* Recorder calls accept a NULL recorder (untraced) and their errors never
   * fail the load: the recorder counts what it dropped. */
  (void)etk_recorder_begin_block_id(rec, etk_recorder_intern(rec, "Default"));
  etk_recorder_name_t ev_load =
      etk_recorder_intern(rec, "Program::load_method");
  const etk_program_plan_t *plan = etk_program_find_plan(program, method_name);
  if (!plan) {
    etk_recorder_scope_t s = etk_recorder_begin(rec, ev_load);
    (void)etk_recorder_end(rec, &s);
    char list[160];
    etk_name_list_t names;
    etk_name_list_init(&names, list, sizeof list);
    for (uint32_t k = 0; k < program->plan_count; k++)
      etk_name_list_add(
          &names, program->plans[k].name,
          program->plans[k].name ? strlen(program->plans[k].name) : 0);
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "no method named '%.64s' in the program (methods: %s)",
                         method_name ? method_name : "(first)",
                         etk_name_list_text(&names));
  }
  /* Allocators must precede every event of the block. */
  uint32_t method_alloc = 0; /* allocator ids stay 0 when not tracked */
  etk_recorder_t *alloc_rec = config->no_allocation_events ? NULL : rec;
  (void)etk_recorder_track_allocator(alloc_rec, "method_allocator",
                                     &method_alloc);
  size_t nplanned = plan->buffer_size_count ? plan->buffer_size_count - 1 : 0;
  uint32_t planned_ids[64] = {0};
  for (size_t k = 0; alloc_rec && k < nplanned && k < 64; k++) {
    char name[48];
    snprintf(name, sizeof name, "planned_memory_%zu", k + 1);
    (void)etk_recorder_track_allocator(rec, name, &planned_ids[k]);
  }
  etk_recorder_scope_t s_load = etk_recorder_begin(rec, ev_load);

  loader_t L;
  memset(&L, 0, sizeof L);
  L.plan = plan;
  L.cfg = config;
  L.err = err;
  int rc = etk_method_layout(plan, &L.layout, err);
  if (rc == ETK_OK) rc = check_memory(&L);
  if (rc != ETK_OK) {
    (void)etk_recorder_end(rec, &s_load);
    return rc;
  }
  for (size_t k = 0; k < nplanned && k < 64; k++)
    if (planned_ids[k])
      (void)etk_recorder_track_allocation(rec, planned_ids[k],
                                          (uint64_t)plan->buffer_sizes[k + 1]);

  etk_recorder_scope_t s_init =
      etk_recorder_begin(rec, etk_recorder_intern(rec, "Method::init"));
  uintptr_t base = ((uintptr_t)config->arena + 15u) & ~(uintptr_t)15u;
  L.bump.base = (uint8_t *)base;
  L.bump.size = config->arena_size - (size_t)(base - (uintptr_t)config->arena);
  L.bump.recorder = rec;
  L.bump.allocator_id = method_alloc;
  etk_method_t *m = alloc_or_fail(&L, sizeof *m, &rc);
  if (m) {
    L.m = m;
    m->program = program;
    m->plan = plan;
    m->recorder = rec;
    m->max_instructions = config->max_instructions
                              ? config->max_instructions
                              : ETK_METHOD_DEFAULT_MAX_INSTRUCTIONS;
    rc = load_values(&L);
    if (rc == ETK_OK) {
      m->kctx.values = m->values;
      m->kctx.value_count = m->value_count;
      m->input_set = alloc_or_fail(&L, plan->input_count * sizeof(bool), &rc);
      m->planned_bases =
          m->input_set
              ? alloc_or_fail(&L, L.layout.planned_count * sizeof(void *), &rc)
              : NULL;
      for (size_t k = 0; m->planned_bases && k < L.layout.planned_count; k++)
        m->planned_bases[k] = config->planned_buffers[k];
      if (m->planned_bases) {
        m->list_capacity = L.layout.max_list;
        m->list_tensors = alloc_or_fail(
            &L, L.layout.max_list * sizeof(etk_recorder_tensor_t), &rc);
        m->list_dims = m->list_tensors
                           ? alloc_or_fail(&L,
                                           L.layout.max_list * 2 *
                                               ETK_MAX_DIMS * sizeof(int64_t),
                                           &rc)
                           : NULL;
      }
    }
    if (rc == ETK_OK) rc = load_delegates(&L);
    if (rc == ETK_OK) rc = load_chains(&L);
  }
  if (rc == ETK_OK) {
    m->ev_operator = etk_recorder_intern(rec, "OPERATOR_CALL");
    m->ev_delegate = etk_recorder_intern(rec, "DELEGATE_CALL");
    m->ev_jump = etk_recorder_intern(rec, "JF_CALL");
    m->ev_move = etk_recorder_intern(rec, "MOVE_CALL");
    m->ev_free = etk_recorder_intern(rec, "FREE_CALL");
    m->ev_execute = etk_recorder_intern(rec, "Method::execute");
    m->ev_block = etk_recorder_intern(rec, "Execute");
    m->bctx.method_name = plan->name;
    m->bctx.recorder = rec;
    m->initialized = true;
  }
  (void)etk_recorder_end(rec, &s_init);
  (void)etk_recorder_end(rec, &s_load);
  if (rc != ETK_OK) {
    destroy_delegates(m);
    return rc;
  }
  *out = m;
  return ETK_OK;
}

void etk_method_destroy(etk_method_t *method) {
  if (method) destroy_delegates(method);
}

/* -------------------------------------------------------------- accessors */

const char *etk_method_name(const etk_method_t *m) {
  return m ? m->plan->name : NULL;
}
size_t etk_method_input_count(const etk_method_t *m) {
  return m ? m->plan->input_count : 0;
}
size_t etk_method_output_count(const etk_method_t *m) {
  return m ? m->plan->output_count : 0;
}
const etk_value_t *etk_method_input(const etk_method_t *m, size_t i) {
  if (!m || i >= m->plan->input_count) return NULL;
  return &m->values[m->plan->inputs[i]];
}
const etk_value_t *etk_method_output(const etk_method_t *m, size_t i) {
  if (!m || i >= m->plan->output_count) return NULL;
  return &m->values[m->plan->outputs[i]];
}
uint64_t etk_method_executed_instructions(const etk_method_t *m) {
  return m ? m->executed : 0;
}

/* -------------------------------------------------------------- set_input */

/* "[1, 3, 224, 224]" (bounded: sizes of at most ETK_MAX_DIMS dims). */
static void shape_text(char *out, size_t size, const int32_t *sizes,
                       int32_t dim) {
  size_t n = (size_t)snprintf(out, size, "[");
  for (int32_t d = 0; d < dim && d < ETK_MAX_DIMS && n < size; d++)
    n += (size_t)snprintf(out + n, size - n, "%s%d", d ? ", " : "", sizes[d]);
  if (n < size) snprintf(out + n, size - n, "]");
}

int etk_method_set_input(etk_method_t *m, size_t i, const etk_value_t *value,
                         struct etk_error *err) {
  if (!m || !value)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  const char *name = m->plan->name;
  if (i >= m->plan->input_count)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "method '%s' has %u inputs, input %zu does not exist",
                         name, m->plan->input_count, i);
  etk_value_t *dst = &m->values[m->plan->inputs[i]];
  if (dst->tag != value->tag)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "method '%s' input %zu is a %s, got a %s", name, i,
                         etk_program_tag_name(dst->tag),
                         etk_program_tag_name(value->tag));
  if (dst->tag != ETK_VALUE_TENSOR) {
    bool same;
    switch (dst->tag) {
      case ETK_VALUE_INT:
        same = dst->u.i == value->u.i;
        break;
      case ETK_VALUE_BOOL:
        same = dst->u.b == value->u.b;
        break;
      case ETK_VALUE_DOUBLE:
        same = fabs(dst->u.d - value->u.d) <= 1e-4 + 1e-5 * fabs(dst->u.d);
        break;
      case ETK_VALUE_NULL:
        same = true;
        break;
      default:
        return etk_error_set(
            err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
            "method '%s' input %zu: %s inputs are not supported", name, i,
            etk_program_tag_name(dst->tag));
    }
    if (!same)
      return etk_error_set(
          err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
          "method '%s' input %zu differs from the value traced "
          "into the program",
          name, i);
    m->input_set[i] = true;
    return ETK_OK;
  }
  etk_tensor_t *t = dst->u.tensor;
  const etk_tensor_t *src = value->u.tensor;
  if (!src)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL tensor");
  const etk_program_tensor_t *pt = m->plan->values[m->plan->inputs[i]].u.tensor;
  bool fits = src->scalar_type == t->scalar_type && src->dim == t->dim;
  for (int32_t d = 0; fits && d < src->dim; d++)
    fits = pt->shape_dynamism == 0
               ? src->sizes[d] == pt->sizes[d]
               : src->sizes[d] >= 0 && src->sizes[d] <= pt->sizes[d];
  if (!fits) { /* the whole given and expected dtype and shape */
    char got[ETK_MAX_DIMS * 16 + 4], want[ETK_MAX_DIMS * 16 + 4];
    shape_text(got, sizeof got, src->sizes, src->dim);
    shape_text(want, sizeof want, pt->sizes, (int32_t)pt->dim);
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "method '%s' input %zu is %s %s; the method takes "
                         "%s %s%s",
                         name, i, etk_scalar_type_name(src->scalar_type), got,
                         etk_scalar_type_name(t->scalar_type),
                         pt->shape_dynamism ? "at most " : "", want);
  }
  bool order_given = false;
  for (int32_t d = 0; d < src->dim; d++) order_given |= src->dim_order[d] != 0;
  for (int32_t d = 0; order_given && d < src->dim; d++)
    if (src->dim_order[d] != t->dim_order[d])
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "method '%s' input %zu: dim_order differs from the "
                           "program's",
                           name, i);
  uint64_t nbytes =
      (uint64_t)etk_tensor_numel(src) * etk_scalar_type_size(src->scalar_type);
  if (src->nbytes < nbytes || (nbytes && !src->data))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "method '%s' input %zu: %zu data bytes for a tensor "
                         "of %llu bytes",
                         name, i, src->nbytes, (unsigned long long)nbytes);
  if (pt->planned) {
    if (nbytes > t->capacity_bytes)
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "method '%s' input %zu does not fit its planned "
                           "memory",
                           name, i);
    for (int32_t d = 0; d < src->dim; d++) t->sizes[d] = src->sizes[d];
    etk_tensor_update_strides(t);
    /* A FreeCall may have cleared the pointer; planned memory is fixed. */
    t->data =
        (uint8_t *)m->planned_bases[pt->memory_id - 1] + pt->memory_offset;
    if (nbytes) memcpy(t->data, src->data, (size_t)nbytes);
  } else {
    for (int32_t d = 0; d < src->dim; d++) t->sizes[d] = src->sizes[d];
    etk_tensor_update_strides(t);
    t->data = src->data;
    t->capacity_bytes = (size_t)nbytes;
  }
  m->input_set[i] = true;
  return ETK_OK;
}

/* ---------------------------------------------------------------- execute */

/* Upstream parse_cond_value: a Bool, or a Bool tensor whose elements are
 * all true. */
static int cond_value(const etk_value_t *v, bool *out) {
  if (v->tag == ETK_VALUE_BOOL) {
    *out = v->u.b;
    return ETK_OK;
  }
  if (v->tag == ETK_VALUE_TENSOR && v->u.tensor &&
      v->u.tensor->scalar_type == ETK_BOOL) {
    const etk_tensor_t *t = v->u.tensor;
    int64_t n = etk_tensor_numel(t);
    const uint8_t *p = t->data;
    if (n > 0 && !p) return ETK_E_INVALID_STATE;
    bool all = true;
    for (int64_t k = 0; k < n && all; k++) all = p[k] != 0;
    *out = all;
    return ETK_OK;
  }
  return ETK_E_INVALID_ARGUMENT;
}

/* A KernelCall records OPERATOR_CALL around the kernel's own event and
 * nothing of the executor's runs between their hooks: etk_method_calibrate
 * tells the dump so (adjacent_wrappers), and a reader measures each run's
 * recorder cost from the gaps.  Keep the two begin_op and the two end_op
 * calls next to each other. */
static int run_instruction(etk_method_t *m, uint32_t c, uint32_t *pc,
                           etk_error_t *err) {
  etk_recorder_t *rec = m->recorder;
  const etk_instr_t *x = &m->chains[c].instrs[*pc];
  uint32_t next = *pc + 1;
  int rc = ETK_OK;
  switch (x->kind) {
    case ETK_INSTR_KERNEL_CALL: {
      etk_recorder_scope_t s_op = etk_recorder_begin_op(rec, m->ev_operator);
      etk_recorder_scope_t s_native = etk_recorder_begin_op(rec, x->event);
      m->kctx.message[0] = 0;
      rc = x->fn(&m->kctx, x->args, x->nargs);
      if (rc == ETK_OK &&
          etk_recorder_should_log(rec, ETK_LOGGED_INTERMEDIATE_OUTPUT))
        for (uint32_t k = 0; k < x->out_count; k++)
          log_value(m, x->args[x->out_first + k],
                    ETK_LOGGED_INTERMEDIATE_OUTPUT);
      (void)etk_recorder_end_op(rec, &s_native);
      (void)etk_recorder_end_op(rec, &s_op);
      if (rc != ETK_OK)
        etk_error_set(err, rc, ETK_NO_OFFSET,
                      "method '%s': instruction %u (%s) failed: %s",
                      m->plan->name, *pc,
                      m->plan->operators[x->index].full_name,
                      m->kctx.message[0] ? m->kctx.message : etk_strerror(rc));
    } break;
    case ETK_INSTR_DELEGATE_CALL: {
      etk_recorder_scope_t s_op = etk_recorder_begin_op(rec, m->ev_delegate);
      etk_delegate_rt_t *d = &m->delegates[x->index];
      m->bctx.delegate_index = (uint32_t)x->index;
      m->bctx.message[0] = 0;
      rc = d->backend->execute(&m->bctx, d->handle, x->args, x->nargs);
      /* Upstream logs every argument: inputs and outputs are not told apart
       * in a DelegateCall. */
      if (etk_recorder_should_log(rec, ETK_LOGGED_INTERMEDIATE_OUTPUT))
        for (uint32_t k = 0; k < x->nargs; k++)
          log_value(m, x->args[k], ETK_LOGGED_INTERMEDIATE_OUTPUT);
      (void)etk_recorder_end_op(rec, &s_op);
      if (rc != ETK_OK)
        etk_error_set(err, rc, ETK_NO_OFFSET,
                      "method '%s': instruction %u (delegate %d, backend '%s') "
                      "failed: %s",
                      m->plan->name, *pc, x->index, d->backend->id,
                      m->bctx.message[0] ? m->bctx.message : etk_strerror(rc));
    } break;
    case ETK_INSTR_JUMP_FALSE_CALL: {
      etk_recorder_scope_t s = etk_recorder_begin_op(rec, m->ev_jump);
      bool cond = false;
      rc = cond_value(&m->values[x->index], &cond);
      if (rc == ETK_OK && !cond) next = (uint32_t)x->index2;
      (void)etk_recorder_end_op(rec, &s);
      if (rc != ETK_OK)
        etk_error_set(err, ETK_E_FORMAT, ETK_NO_OFFSET,
                      "method '%s': instruction %u: jump condition value %d is "
                      "not a Bool",
                      m->plan->name, *pc, x->index);
    } break;
    case ETK_INSTR_MOVE_CALL: {
      etk_recorder_scope_t s = etk_recorder_begin_op(rec, m->ev_move);
      m->values[x->index2] = m->values[x->index];
      (void)etk_recorder_end_op(rec, &s);
    } break;
    case ETK_INSTR_FREE_CALL: {
      etk_recorder_scope_t s = etk_recorder_begin_op(rec, m->ev_free);
      etk_value_t *v = &m->values[x->index];
      if (v->tag == ETK_VALUE_TENSOR && v->u.tensor)
        v->u.tensor->data = NULL;
      else
        rc = etk_error_set(err, ETK_E_FORMAT, ETK_NO_OFFSET,
                           "method '%s': instruction %u frees value %d, which "
                           "is not a tensor",
                           m->plan->name, *pc, x->index);
      (void)etk_recorder_end_op(rec, &s);
    } break;
    default:
      rc = etk_error_set(err, ETK_E_FORMAT, ETK_NO_OFFSET,
                         "method '%s': instruction %u has unknown kind %d",
                         m->plan->name, *pc, x->kind);
  }
  if (rc == ETK_OK) *pc = next;
  return rc;
}

int etk_method_calibrate(etk_recorder_t *rec, void *scratch,
                         size_t scratch_size, uint32_t repetitions,
                         etk_recorder_calibration_t *out) {
  etk_recorder_calibration_t cal;
  int rc =
      etk_recorder_calibrate(rec, scratch, scratch_size, repetitions, &cal);
  if (rc != ETK_OK) return rc;
  cal.adjacent_wrappers = 1; /* run_instruction's KernelCall */
  rc = etk_recorder_set_calibration(rec, &cal);
  if (rc == ETK_OK && out) *out = cal;
  return rc;
}

int etk_method_execute(etk_method_t *m, struct etk_error *err) {
  if (!m)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL method");
  etk_recorder_t *rec = m->recorder;
  /* Like upstream, the block and the method event's start exist even when
   * the checks below reject the call (the event then never ends). */
  (void)etk_recorder_begin_block_id(rec, m->ev_block);
  etk_recorder_scope_t s_exec = etk_recorder_begin(rec, m->ev_execute);
  m->executed = 0;
  if (!m->initialized)
    return etk_error_set(err, ETK_E_INVALID_STATE, ETK_NO_OFFSET,
                         "method is not initialized");
  for (uint32_t i = 0; i < m->plan->input_count; i++)
    if (!m->input_set[i])
      return etk_error_set(err, ETK_E_INVALID_STATE, ETK_NO_OFFSET,
                           "method '%s': input %u has not been set",
                           m->plan->name, i);
  uint64_t budget = m->max_instructions;
  for (uint32_t c = 0; c < m->chain_count; c++) {
    uint32_t pc = 0, n = m->chains[c].count;
    while (pc < n) {
      if (m->executed >= budget) {
        clear_instruction(rec);
        return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                             "method '%s': more than %llu instructions "
                             "executed (chain %u, instruction %u): the "
                             "program probably loops forever",
                             m->plan->name, (unsigned long long)budget, c, pc);
      }
      m->executed++;
      etk_recorder_set_chain_debug_handle(rec, (int32_t)c, pc);
      int rc = run_instruction(m, c, &pc, err);
      clear_instruction(rec);
      if (rc != ETK_OK) return rc;
    }
  }
  (void)etk_recorder_end(rec, &s_exec);
  if (etk_recorder_should_log(rec, ETK_LOGGED_PROGRAM_OUTPUT))
    for (uint32_t i = 0; i < m->plan->output_count; i++)
      log_value(m, &m->values[m->plan->outputs[i]], ETK_LOGGED_PROGRAM_OUTPUT);
  return ETK_OK;
}
