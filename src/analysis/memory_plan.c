/*
 * memory_plan.c - reads the memory plan of one method of a .pte and
 * analyses it: lifetimes, per-buffer peaks, unsafe overlaps, tensors past
 * their buffer (etkit/memory_plan.h has the definitions).
 *
 * WHY A READER OF ITS OWN
 *   The runtime loader (src/program) refuses a program whose plan is wrong,
 *   which is exactly the program this tool must show.  So the file goes
 *   through the FlatBuffers verifier (after which the schema accessors are
 *   safe) and then through the checks below, which reject only what makes
 *   the analysis itself impossible: a wrong identifier or extended
 *   header, dangling value / operator / delegate
 *   indices, list items that are not tensors (this also rules out cyclic
 *   lists: a list never contains a list), negative sizes or buffer sizes,
 *   unknown scalar types, byte sizes or ends beyond 64 bits.
 *
 * PASSES (all linear in the program, except the overlap sweep, which is
 * linear in the sum over tensors of the tensors live when each starts)
 *   1. values: tags; planned tensors with offset/nbytes; list items checked;
 *   2. instructions of all chains, numbered globally in chain order: each
 *      referenced value gets first/last (min/max); the op of the first
 *      reference is remembered; et_view calls give alias pairs;
 *   3. method inputs touch instruction 0, outputs the last instruction;
 *      lists pass their first/last on to their items (once per list, so a
 *      list referenced a million times costs its size once);
 *   4. buffers; invalid tensors; peaks by sorting +/- events per buffer;
 *   5. overlaps (memory_plan_overlaps.c): a sweep over time with the live
 *      tensors of each mem_id in an interval treap.
 *
 * MEMORY
 *   A copy of the file (tensor sizes point into it), O(values) arrays for
 *   the passes (freed before returning), O(tensors) results, and the
 *   overlap list capped at ETK_MEMORY_PLAN_MAX_OVERLAPS.  Names live in a
 *   chunked string pool freed with the plan.
 */
#include "etkit/memory_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/flatbuf.h"
#include "etkit/program_schema.h"
#include "etkit/scalar_type.h"
#include "memory_plan_internal.h"
#include "common/vec.h"

/* ------------------------------------------------------------ string pool */

char *etk_mp_pool_dup(etk_mp_internal_t *in, const char *s, size_t n) {
  if (n > ((size_t)1 << 30)) return NULL;
  etk_mp_chunk_t *c = in->pool;
  if (!c || c->cap - c->used < n + 1) {
    size_t cap = n + 1 > 65536 ? n + 1 : 65536;
    c = malloc(sizeof *c + cap);
    if (!c) return NULL;
    c->next = in->pool;
    c->used = 0;
    c->cap = cap;
    in->pool = c;
  }
  char *out = c->data + c->used;
  if (n) memcpy(out, s, n);
  out[n] = '\0';
  c->used += n + 1;
  return out;
}

/* ---------------------------------------------------------------- reader */

typedef struct reader {
  const uint8_t *buf;
  etk_error_t *err;
  etk_mp_internal_t *in;
  etk_fb_vector_t values;
  uint32_t nvalues;
  uint8_t *tags;                 /* per value */
  int64_t *tensor_of;            /* value -> tensor index, -1 */
  int64_t *ref_first, *ref_last; /* per value */
  const char **ref_op;           /* op of the first reference, per value */
  uint32_t *alias_pairs;         /* (input, output) value pairs of et_view */
  size_t alias_count, alias_cap;
  const char **op_names; /* per operator */
  uint32_t op_count;
  const char **delegate_names;
  uint32_t delegate_count;
  int32_t et_view_op; /* operator index of et_view, -1 */
} reader_t;

static const char OP_INPUT[] = "input", OP_OUTPUT[] = "output",
                  OP_MOVE[] = "move", OP_JUMP[] = "jump_false",
                  OP_FREE[] = "free";

static const char *tag_name(int tag) {
  static const char *const names[] = {
      "None",       "Null",     "Int",        "Bool",
      "Double",     "Tensor",   "String",     "IntList",
      "DoubleList", "BoolList", "TensorList", "OptionalTensorList"};
  return tag >= 0 && tag < (int)(sizeof names / sizeof *names) ? names[tag]
                                                               : "Unknown";
}

static int oom(reader_t *r) {
  return etk_error_set(r->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
}

static uint32_t elem_pos(etk_fb_vector_t v, uint32_t j, uint32_t size) {
  return v.pos + j * size;
}

static int check_index(reader_t *r, int64_t v, uint64_t at, const char *what) {
  if (v < 0 || v >= (int64_t)r->nvalues)
    return etk_error_set(
        r->err, ETK_E_FORMAT, at,
        "%s refers to value %lld, but the method has %u values", what,
        (long long)v, r->nvalues);
  return ETK_OK;
}

static etk_fb_table_t value_table(reader_t *r, uint32_t i) {
  etk_fb_table_t ev = etk_fb_vector_table(r->buf, r->values, i);
  return etk_fb_get_table(ev, ETK_PTE_EVALUE_VAL);
}

/* nbytes of a tensor; negative sizes and overflow are errors. */
static int tensor_nbytes(reader_t *r, uint32_t i, etk_fb_table_t t, int planned,
                         uint64_t *out) {
  int st = etk_fb_get_i8(t, ETK_PTE_TENSOR_SCALAR_TYPE, 0);
  size_t elem = etk_scalar_type_size(st);
  etk_fb_vector_t sizes = etk_fb_get_vector(t, ETK_PTE_TENSOR_SIZES);
  int zero = 0;
  for (uint32_t j = 0; j < sizes.count; j++) {
    int32_t s = (int32_t)etk_fb_load_u32(sizes.data + 4u * j);
    if (s < 0)
      return etk_error_set(r->err, ETK_E_FORMAT, elem_pos(sizes, j, 4),
                           "value %u: negative size %d in dimension %u", i, s,
                           j);
    if (s == 0) zero = 1;
  }
  if (!planned) return ETK_OK;
  if (elem == 0)
    return etk_error_set(r->err, ETK_E_FORMAT, t.pos,
                         "value %u: unknown scalar type %d", i, st);
  uint64_t n = zero ? 0 : elem;
  for (uint32_t j = 0; j < sizes.count && n; j++) {
    uint64_t s = etk_fb_load_u32(sizes.data + 4u * j);
    if (n > UINT64_MAX / s)
      return etk_error_set(r->err, ETK_E_OVERFLOW, t.pos,
                           "value %u: tensor byte size overflows 64 bits", i);
    n *= s;
  }
  *out = n;
  return ETK_OK;
}

/* Pass 1a: tags and the planned tensors. */
static int read_tensors(reader_t *r) {
  etk_mp_internal_t *in = r->in;
  size_t planned = 0;
  for (uint32_t i = 0; i < r->nvalues; i++) {
    etk_fb_table_t ev = etk_fb_vector_table(r->buf, r->values, i);
    r->tags[i] = etk_fb_get_u8(ev, ETK_PTE_EVALUE_VAL_TYPE, 0);
    r->tensor_of[i] = -1;
    if (r->tags[i] == ETK_PTE_KT_TENSOR &&
        etk_fb_table_present(etk_fb_get_table(value_table(r, i),
                                              ETK_PTE_TENSOR_ALLOCATION_INFO)))
      planned++;
  }
  in->tensors = calloc(planned ? planned : 1, sizeof *in->tensors);
  if (!in->tensors) return oom(r);
  size_t k = 0;
  for (uint32_t i = 0; i < r->nvalues; i++) {
    if (r->tags[i] != ETK_PTE_KT_TENSOR) continue;
    etk_fb_table_t t = value_table(r, i);
    etk_fb_table_t ai = etk_fb_get_table(t, ETK_PTE_TENSOR_ALLOCATION_INFO);
    int is_planned = etk_fb_table_present(ai);
    uint64_t nbytes = 0;
    int rc = tensor_nbytes(r, i, t, is_planned, &nbytes);
    if (rc != ETK_OK) return rc;
    if (!is_planned) continue;
    etk_memory_plan_tensor_t *x = &in->tensors[k];
    x->value = i;
    x->mem_id = etk_fb_get_u32(ai, ETK_PTE_ALLOCATION_MEMORY_ID, 0);
    x->offset =
        etk_fb_get_u32(ai, ETK_PTE_ALLOCATION_MEMORY_OFFSET_LOW, 0) |
        (uint64_t)etk_fb_get_u32(ai, ETK_PTE_ALLOCATION_MEMORY_OFFSET_HIGH, 0)
            << 32;
    x->nbytes = nbytes;
    if (x->offset > UINT64_MAX - nbytes)
      return etk_error_set(
          r->err, ETK_E_OVERFLOW, ai.pos,
          "value %u: offset %llu + %llu bytes overflows 64 bits", i,
          (unsigned long long)x->offset, (unsigned long long)nbytes);
    x->scalar_type = etk_fb_get_i8(t, ETK_PTE_TENSOR_SCALAR_TYPE, 0);
    etk_fb_vector_t sizes = etk_fb_get_vector(t, ETK_PTE_TENSOR_SIZES);
    x->dim = sizes.count;
    x->sizes = (const int32_t *)(const void *)sizes.data;
    x->first = x->last = ETK_MEMORY_PLAN_NONE;
    x->alias_of = -1;
    r->tensor_of[i] = (int64_t)k++;
  }
  in->pub.tensors = in->tensors;
  in->pub.tensor_count = planned;
  return ETK_OK;
}

/* Pass 1b: list items must be in range and of the right kind. */
static int check_lists(reader_t *r) {
  for (uint32_t i = 0; i < r->nvalues; i++) {
    int tag = r->tags[i];
    if (tag != ETK_PTE_KT_TENSOR_LIST &&
        tag != ETK_PTE_KT_OPTIONAL_TENSOR_LIST && tag != ETK_PTE_KT_INT_LIST)
      continue;
    etk_fb_vector_t items =
        etk_fb_get_vector(value_table(r, i), ETK_PTE_LIST_ITEMS);
    for (uint32_t j = 0; j < items.count; j++) {
      if (tag == ETK_PTE_KT_INT_LIST) {
        int64_t x = (int64_t)etk_fb_load_u64(items.data + 8u * j);
        int rc = check_index(r, x, elem_pos(items, j, 8), "an IntList item");
        if (rc != ETK_OK) return rc;
        continue;
      }
      int32_t x = (int32_t)etk_fb_load_u32(items.data + 4u * j);
      int optional = tag == ETK_PTE_KT_OPTIONAL_TENSOR_LIST;
      if (optional && x == -1) continue;
      int rc = check_index(r, x, elem_pos(items, j, 4), "a TensorList item");
      if (rc != ETK_OK) return rc;
      int item = r->tags[x];
      if (item != ETK_PTE_KT_TENSOR && !(optional && item == ETK_PTE_KT_NULL))
        return etk_error_set(
            r->err, ETK_E_FORMAT, elem_pos(items, j, 4),
            "value %u: list item %u refers to value %d, a %s, not a "
            "Tensor",
            i, j, x, tag_name(item));
    }
  }
  return ETK_OK;
}

static void touch(reader_t *r, uint32_t v, int64_t at, const char *op) {
  if (r->ref_first[v] < 0 || at < r->ref_first[v]) {
    r->ref_first[v] = at;
    r->ref_op[v] = op;
  }
  if (at > r->ref_last[v]) r->ref_last[v] = at;
}

/* Operator and delegate names, and the index of et_view. */
static int read_names(reader_t *r, etk_fb_table_t plan) {
  etk_fb_vector_t ops = etk_fb_get_vector(plan, ETK_PTE_PLAN_OPERATORS);
  etk_fb_vector_t dels = etk_fb_get_vector(plan, ETK_PTE_PLAN_DELEGATES);
  r->op_count = ops.count;
  r->delegate_count = dels.count;
  r->op_names = calloc(ops.count + 1u, sizeof *r->op_names);
  r->delegate_names = calloc(dels.count + 1u, sizeof *r->delegate_names);
  if (!r->op_names || !r->delegate_names) return oom(r);
  r->et_view_op = -1;
  for (uint32_t k = 0; k < ops.count; k++) {
    etk_fb_table_t o = etk_fb_vector_table(r->buf, ops, k);
    etk_fb_string_t name = etk_fb_get_string(o, ETK_PTE_OPERATOR_NAME);
    etk_fb_string_t ovl = etk_fb_get_string(o, ETK_PTE_OPERATOR_OVERLOAD);
    char tmp[512];
    int n = snprintf(tmp, sizeof tmp, "%s%s%s", name.data ? name.data : "",
                     ovl.len ? "." : "", ovl.len ? ovl.data : "");
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
    r->op_names[k] = etk_mp_pool_dup(r->in, tmp, (size_t)n);
    if (!r->op_names[k]) return oom(r);
    if (name.data && strcmp(name.data, "executorch_prim::et_view") == 0 &&
        r->et_view_op < 0)
      r->et_view_op = (int32_t)k;
  }
  for (uint32_t k = 0; k < dels.count; k++) {
    etk_fb_table_t d = etk_fb_vector_table(r->buf, dels, k);
    etk_fb_string_t id = etk_fb_get_string(d, ETK_PTE_DELEGATE_ID);
    char tmp[300];
    int n = snprintf(tmp, sizeof tmp, "delegate:%s", id.data ? id.data : "");
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
    r->delegate_names[k] = etk_mp_pool_dup(r->in, tmp, (size_t)n);
    if (!r->delegate_names[k]) return oom(r);
  }
  return ETK_OK;
}

static int push_alias(reader_t *r, uint32_t input, uint32_t output) {
  if (!ETK_VEC_RESERVE(r->alias_pairs, r->alias_cap, 2 * r->alias_count + 2))
    return oom(r);
  r->alias_pairs[2 * r->alias_count] = input;
  r->alias_pairs[2 * r->alias_count + 1] = output;
  r->alias_count++;
  return ETK_OK;
}

/* A KernelCall or DelegateCall: index and every argument. */
static int read_call(reader_t *r, etk_fb_table_t args, int kind, int64_t g) {
  int32_t index = etk_fb_get_i32(args, ETK_PTE_CALL_INDEX, 0);
  int kernel = kind == ETK_PTE_INSTR_KERNEL_CALL;
  uint32_t limit = kernel ? r->op_count : r->delegate_count;
  if (index < 0 || (uint32_t)index >= limit)
    return etk_error_set(r->err, ETK_E_FORMAT, args.pos,
                         "instruction %lld: %s index %d out of range (%u)",
                         (long long)g, kernel ? "operator" : "delegate", index,
                         limit);
  const char *op = kernel ? r->op_names[index] : r->delegate_names[index];
  etk_fb_vector_t av = etk_fb_get_vector(args, ETK_PTE_CALL_ARGS);
  for (uint32_t j = 0; j < av.count; j++) {
    int32_t v = (int32_t)etk_fb_load_u32(av.data + 4u * j);
    int rc = check_index(r, v, elem_pos(av, j, 4), "an argument");
    if (rc != ETK_OK) return rc;
    touch(r, (uint32_t)v, g, op);
  }
  if (kernel && index == r->et_view_op && av.count >= 2) {
    uint32_t in = etk_fb_load_u32(av.data);
    uint32_t out = etk_fb_load_u32(av.data + 4u * (av.count - 1));
    return push_alias(r, in, out);
  }
  return ETK_OK;
}

/* One instruction, global index g, index j of a chain of n. */
static int read_instruction(reader_t *r, etk_fb_table_t ins, int64_t g,
                            uint32_t j, uint32_t n) {
  int kind = etk_fb_get_u8(ins, ETK_PTE_INSTRUCTION_ARGS_TYPE, 0);
  etk_fb_table_t a = etk_fb_get_table(ins, ETK_PTE_INSTRUCTION_ARGS);
  if (!etk_fb_table_present(a))
    return etk_error_set(r->err, ETK_E_FORMAT, ins.pos,
                         "instruction %lld has no arguments", (long long)g);
  int32_t x = 0, y = 0;
  int rc;
  switch (kind) {
    case ETK_PTE_INSTR_KERNEL_CALL:
    case ETK_PTE_INSTR_DELEGATE_CALL:
      return read_call(r, a, kind, g);
    case ETK_PTE_INSTR_MOVE_CALL:
      x = etk_fb_get_i32(a, ETK_PTE_MOVE_FROM, 0);
      y = etk_fb_get_i32(a, ETK_PTE_MOVE_TO, 0);
      if ((rc = check_index(r, x, a.pos, "a MoveCall")) != ETK_OK ||
          (rc = check_index(r, y, a.pos, "a MoveCall")) != ETK_OK)
        return rc;
      touch(r, (uint32_t)x, g, OP_MOVE);
      touch(r, (uint32_t)y, g, OP_MOVE);
      return ETK_OK;
    case ETK_PTE_INSTR_JUMP_FALSE_CALL:
      x = etk_fb_get_i32(a, ETK_PTE_JUMP_FALSE_COND, 0);
      y = etk_fb_get_i32(a, ETK_PTE_JUMP_FALSE_DESTINATION, 0);
      if ((rc = check_index(r, x, a.pos, "a JumpFalseCall")) != ETK_OK)
        return rc;
      if (y < 0 || (uint32_t)y > n)
        return etk_error_set(
            r->err, ETK_E_FORMAT, a.pos,
            "instruction %lld jumps to %d, outside its chain of %u",
            (long long)g, y, n);
      if ((uint32_t)y <= j) r->in->pub.backward_jumps++;
      touch(r, (uint32_t)x, g, OP_JUMP);
      return ETK_OK;
    case ETK_PTE_INSTR_FREE_CALL:
      x = etk_fb_get_i32(a, ETK_PTE_FREE_VALUE_INDEX, 0);
      if ((rc = check_index(r, x, a.pos, "a FreeCall")) != ETK_OK) return rc;
      touch(r, (uint32_t)x, g, OP_FREE);
      return ETK_OK;
    default:
      return etk_error_set(r->err, ETK_E_FORMAT, ins.pos,
                           "instruction %lld has unknown kind %d", (long long)g,
                           kind);
  }
}

/* Pass 2: every chain, instructions numbered globally. */
static int read_chains(reader_t *r, etk_fb_table_t plan) {
  etk_mp_internal_t *in = r->in;
  etk_fb_vector_t chains = etk_fb_get_vector(plan, ETK_PTE_PLAN_CHAINS);
  in->chain_starts = calloc(chains.count + 1u, sizeof *in->chain_starts);
  if (!in->chain_starts) return oom(r);
  int64_t g = 0;
  for (uint32_t c = 0; c < chains.count; c++) {
    etk_fb_table_t ch = etk_fb_vector_table(r->buf, chains, c);
    etk_fb_vector_t ins = etk_fb_get_vector(ch, ETK_PTE_CHAIN_INSTRUCTIONS);
    in->chain_starts[c] = (uint64_t)g;
    for (uint32_t j = 0; j < ins.count; j++, g++) {
      int rc = read_instruction(r, etk_fb_vector_table(r->buf, ins, j), g, j,
                                ins.count);
      if (rc != ETK_OK) return rc;
    }
  }
  in->chain_starts[chains.count] = (uint64_t)g;
  in->pub.chain_starts = in->chain_starts;
  in->pub.chain_count = chains.count;
  in->pub.num_instructions = (uint64_t)g;
  return ETK_OK;
}

/* Method inputs (from 0) and outputs (to the end); `flag` 1 = input. */
static int read_io(reader_t *r, etk_fb_table_t plan, unsigned slot, int input) {
  etk_fb_vector_t v = etk_fb_get_vector(plan, slot);
  int64_t n = (int64_t)r->in->pub.num_instructions;
  for (uint32_t j = 0; j < v.count; j++) {
    int32_t x = (int32_t)etk_fb_load_u32(v.data + 4u * j);
    int rc = check_index(r, x, elem_pos(v, j, 4),
                         input ? "a method input" : "a method output");
    if (rc != ETK_OK) return rc;
    if (n > 0)
      touch(r, (uint32_t)x, input ? 0 : n - 1, input ? OP_INPUT : OP_OUTPUT);
    /* Flags on the value itself and, for lists, on their items. */
    int tag = r->tags[x];
    etk_fb_vector_t items = {0};
    if (tag == ETK_PTE_KT_TENSOR_LIST || tag == ETK_PTE_KT_OPTIONAL_TENSOR_LIST)
      items =
          etk_fb_get_vector(value_table(r, (uint32_t)x), ETK_PTE_LIST_ITEMS);
    for (uint32_t k = 0; k <= items.count; k++) {
      int32_t y =
          k == items.count ? x : (int32_t)etk_fb_load_u32(items.data + 4u * k);
      if (y < 0 || r->tensor_of[y] < 0) continue;
      etk_memory_plan_tensor_t *t = &r->in->tensors[r->tensor_of[y]];
      if (input)
        t->is_input = true;
      else
        t->is_output = true;
    }
  }
  return ETK_OK;
}

/* Pass 3: lists hand their first/last to their items, then tensors take
 * their lifetimes. */
static void finish_lifetimes(reader_t *r) {
  for (uint32_t i = 0; i < r->nvalues; i++) {
    int tag = r->tags[i];
    if ((tag != ETK_PTE_KT_TENSOR_LIST &&
         tag != ETK_PTE_KT_OPTIONAL_TENSOR_LIST) ||
        r->ref_first[i] < 0)
      continue;
    etk_fb_vector_t items =
        etk_fb_get_vector(value_table(r, i), ETK_PTE_LIST_ITEMS);
    for (uint32_t j = 0; j < items.count; j++) {
      int32_t x = (int32_t)etk_fb_load_u32(items.data + 4u * j);
      if (x < 0 || r->tags[x] != ETK_PTE_KT_TENSOR) continue;
      touch(r, (uint32_t)x, r->ref_first[i], r->ref_op[i]);
      touch(r, (uint32_t)x, r->ref_last[i], r->ref_op[i]);
    }
  }
  for (size_t k = 0; k < r->in->pub.tensor_count; k++) {
    etk_memory_plan_tensor_t *t = &r->in->tensors[k];
    t->first = r->ref_first[t->value];
    t->last = r->ref_last[t->value];
    t->op = t->first < 0 ? "" : t->is_input ? OP_INPUT : r->ref_op[t->value];
  }
  for (size_t k = 0; k < r->alias_count; k++) {
    uint32_t a = r->alias_pairs[2 * k], b = r->alias_pairs[2 * k + 1];
    if (a == b || r->tensor_of[a] < 0 || r->tensor_of[b] < 0) continue;
    etk_memory_plan_tensor_t *t = &r->in->tensors[r->tensor_of[b]];
    if (t->alias_of < 0) t->alias_of = a;
  }
}

/* Default names "value_<v>". */
static int default_names(reader_t *r) {
  for (size_t k = 0; k < r->in->pub.tensor_count; k++) {
    etk_memory_plan_tensor_t *t = &r->in->tensors[k];
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "value_%u", t->value);
    t->name = etk_mp_pool_dup(r->in, tmp, (size_t)n);
    if (!t->name) return oom(r);
    t->module = t->source = t->location = "";
  }
  return ETK_OK;
}

/* Pass 4a: buffers and invalid tensors. */
static int read_buffers(reader_t *r, etk_fb_table_t plan) {
  etk_mp_internal_t *in = r->in;
  etk_fb_vector_t bs =
      etk_fb_get_vector(plan, ETK_PTE_PLAN_NON_CONST_BUFFER_SIZES);
  size_t nb = bs.count ? bs.count - 1u : 0;
  in->buffers = calloc(nb ? nb : 1, sizeof *in->buffers);
  if (!in->buffers) return oom(r);
  for (size_t k = 0; k < nb; k++) {
    int64_t s = (int64_t)etk_fb_load_u64(bs.data + 8u * (k + 1));
    if (s < 0)
      return etk_error_set(r->err, ETK_E_FORMAT,
                           elem_pos(bs, (uint32_t)(k + 1), 8),
                           "non_const_buffer_sizes[%zu] is negative (%lld)",
                           k + 1, (long long)s);
    in->buffers[k].mem_id = (uint32_t)(k + 1);
    in->buffers[k].size = (uint64_t)s;
    in->buffers[k].peak_instruction = ETK_MEMORY_PLAN_NONE;
  }
  in->pub.buffers = in->buffers;
  in->pub.buffer_count = nb;
  for (size_t k = 0; k < in->pub.tensor_count; k++) {
    etk_memory_plan_tensor_t *t = &in->tensors[k];
    uint64_t end = t->offset + t->nbytes;
    if (t->mem_id == 0 || t->mem_id > nb) {
      t->invalid = true;
    } else {
      etk_memory_plan_buffer_t *b = &in->buffers[t->mem_id - 1];
      b->tensor_count++;
      if (end > b->used_end) b->used_end = end;
      if (end > b->size) t->invalid = true;
    }
    if (t->invalid) in->pub.invalid_count++;
  }
  return ETK_OK;
}

/* ------------------------------------------------------------- analysis */

typedef struct event {
  uint32_t mem_id;
  int64_t at;
  int64_t delta; /* +nbytes at first, -nbytes at last + 1 */
} event_t;

static int event_cmp(const void *pa, const void *pb) {
  const event_t *a = pa, *b = pb;
  if (a->mem_id != b->mem_id) return a->mem_id < b->mem_id ? -1 : 1;
  return (a->at > b->at) - (a->at < b->at);
}

/* 1 when the tensor counts in live bytes and trace rows: it has a
 * lifetime (aliases count too: the peak is the sum of the live planned
 * tensors, as defined; only the overlap check exempts them). */
int etk_mp_counts_live(const etk_memory_plan_tensor_t *t) {
  return t->first >= 0;
}

/* Pass 4b: peaks by a sweep over sorted events. */
static int compute_peaks(etk_mp_internal_t *in) {
  size_t n = 0, nt = in->pub.tensor_count, nb = in->pub.buffer_count;
  event_t *ev = malloc((2 * nt + 1) * sizeof *ev);
  if (!ev) return ETK_E_NO_MEMORY;
  for (size_t k = 0; k < nt; k++) {
    const etk_memory_plan_tensor_t *t = &in->tensors[k];
    if (!etk_mp_counts_live(t) || t->mem_id == 0 || t->mem_id > nb ||
        t->nbytes == 0)
      continue;
    ev[n++] = (event_t){t->mem_id, t->first, (int64_t)t->nbytes};
    ev[n++] = (event_t){t->mem_id, t->last + 1, -(int64_t)t->nbytes};
  }
  qsort(ev, n, sizeof *ev, event_cmp);
  uint64_t cur = 0;
  for (size_t i = 0; i < n;) {
    if (i == 0 || ev[i].mem_id != ev[i - 1].mem_id) cur = 0;
    size_t j = i;
    while (j < n && ev[j].mem_id == ev[i].mem_id && ev[j].at == ev[i].at)
      cur += (uint64_t)ev[j++].delta; /* wraps back for removals */
    etk_memory_plan_buffer_t *b = &in->buffers[ev[i].mem_id - 1];
    if (cur > b->peak_bytes) {
      b->peak_bytes = cur;
      b->peak_instruction = ev[i].at;
    }
    i = j;
  }
  free(ev);
  return ETK_OK;
}

/* ------------------------------------------------------------- public */

static int find_method(reader_t *r, etk_fb_table_t program, const char *method,
                       etk_fb_table_t *out) {
  etk_fb_vector_t plans =
      etk_fb_get_vector(program, ETK_PTE_PROGRAM_EXECUTION_PLAN);
  if (plans.count == 0)
    return etk_error_set(r->err, ETK_E_NOT_FOUND, program.pos,
                         "the program has no methods");
  for (uint32_t i = 0; i < plans.count; i++) {
    etk_fb_table_t p = etk_fb_vector_table(r->buf, plans, i);
    etk_fb_string_t name = etk_fb_get_string(p, ETK_PTE_PLAN_NAME);
    if (!method || (name.data && strcmp(name.data, method) == 0)) {
      *out = p;
      r->in->pub.method_index = i;
      r->in->pub.method = etk_mp_pool_dup(r->in, name.data ? name.data : "",
                                          name.data ? name.len : 0);
      return r->in->pub.method ? ETK_OK : oom(r);
    }
  }
  char list[160];
  etk_name_list_t names;
  etk_name_list_init(&names, list, sizeof list);
  for (uint32_t i = 0; i < plans.count; i++) {
    etk_fb_string_t name = etk_fb_get_string(
        etk_fb_vector_table(r->buf, plans, i), ETK_PTE_PLAN_NAME);
    etk_name_list_add(&names, name.data, name.data ? name.len : 0);
  }
  return etk_error_set(r->err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "no method named '%.64s' in the program (methods: %s)",
                       method, etk_name_list_text(&names));
}

static int analyse(reader_t *r, uint32_t root, const char *method) {
  etk_fb_table_t program = etk_fb_root(r->buf, root), plan;
  int rc = find_method(r, program, method, &plan);
  if (rc != ETK_OK) return rc;
  r->values = etk_fb_get_vector(plan, ETK_PTE_PLAN_VALUES);
  r->nvalues = r->values.count;
  r->in->pub.value_count = r->nvalues;
  size_t nv = (size_t)r->nvalues + 1;
  r->tags = calloc(nv, 1);
  r->tensor_of = malloc(nv * sizeof *r->tensor_of);
  r->ref_first = malloc(nv * sizeof *r->ref_first);
  r->ref_last = malloc(nv * sizeof *r->ref_last);
  r->ref_op = calloc(nv, sizeof *r->ref_op);
  if (!r->tags || !r->tensor_of || !r->ref_first || !r->ref_last || !r->ref_op)
    return oom(r);
  for (size_t i = 0; i < nv; i++) r->ref_first[i] = r->ref_last[i] = -1;
  if ((rc = read_tensors(r)) != ETK_OK || (rc = check_lists(r)) != ETK_OK ||
      (rc = read_names(r, plan)) != ETK_OK ||
      (rc = read_chains(r, plan)) != ETK_OK ||
      (rc = read_io(r, plan, ETK_PTE_PLAN_INPUTS, 1)) != ETK_OK ||
      (rc = read_io(r, plan, ETK_PTE_PLAN_OUTPUTS, 0)) != ETK_OK)
    return rc;
  finish_lifetimes(r);
  if ((rc = default_names(r)) != ETK_OK ||
      (rc = read_buffers(r, plan)) != ETK_OK)
    return rc;
  if ((rc = compute_peaks(r->in)) != ETK_OK ||
      (rc = etk_mp_find_overlaps(r->in)) != ETK_OK)
    return oom(r);
  return ETK_OK;
}

static void reader_free(reader_t *r) {
  free(r->tags);
  free(r->tensor_of);
  free(r->ref_first);
  free(r->ref_last);
  free(r->ref_op);
  free(r->alias_pairs);
  free(r->op_names);
  free(r->delegate_names);
}

/* The identifier and the optional "eh00" extended header (at byte 8:
 * length, program_size, ...): sets *region to the bytes the flatbuffer
 * occupies. */
static int parse_header(const uint8_t *data, size_t len, uint64_t *region,
                        etk_error_t *err) {
  if (len < 8)
    return etk_error_set(err, ETK_E_TRUNCATED, len,
                         "file is %zu bytes, too short for a program", len);
  if (memcmp(data + 4, ETK_PTE_IDENTIFIER, 4) != 0 &&
      etk_file_kind_expect(NULL, data, len, ETK_FILE_PTE, err) != ETK_OK)
    return ETK_E_BAD_IDENTIFIER; /* a bundled program, an ETDump...: said */
  if (memcmp(data + 4, ETK_PTE_IDENTIFIER, 4) != 0)
    return etk_error_set(err, ETK_E_BAD_IDENTIFIER, 4,
                         "not an ExecuTorch program (identifier is not '%s')",
                         ETK_PTE_IDENTIFIER);
  *region = len;
  if (len < 16 || memcmp(data + 8, "eh00", 4) != 0) return ETK_OK;
  uint32_t hlen = etk_fb_load_u32(data + 12);
  if (hlen < 24 || hlen > len - 8)
    return etk_error_set(err, ETK_E_TRUNCATED, 12,
                         "extended header of %u bytes does not fit the "
                         "%zu-byte file",
                         hlen, len);
  *region = etk_fb_load_u64(data + 16);
  if (*region < 8 || *region > len)
    return etk_error_set(err, ETK_E_TRUNCATED, 16,
                         "extended header program_size %llu does not fit the "
                         "%zu-byte file",
                         (unsigned long long)*region, len);
  return ETK_OK;
}

int etk_memory_plan_open(const uint8_t *data, size_t len, const char *method,
                         etk_memory_plan_t **out, etk_error_t *err) {
  if (!out || (!data && len))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  uint64_t region = 0;
  int rc = parse_header(data, len, &region, err);
  if (rc != ETK_OK) return rc;
  if (region > 0xFFFFFFF0u)
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "program region of %llu bytes is too large",
                         (unsigned long long)region);
  etk_mp_internal_t *in = calloc(1, sizeof *in);
  if (!in)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  in->pub.internal_ = in;
  in->bytes = malloc(len ? len : 1);
  if (!in->bytes) {
    etk_memory_plan_free(&in->pub);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  if (len) memcpy(in->bytes, data, len);
  etk_fb_verify_options_t vo;
  memset(&vo, 0, sizeof vo);
  vo.ident = ETK_PTE_IDENTIFIER;
  etk_fb_verify_error_t ve;
  uint32_t root = 0;
  rc = etk_fb_verify(in->bytes, (size_t)region, &etk_pte_schema, &vo, &root,
                     &ve);
  if (rc != ETK_OK) {
    etk_error_set(err, rc, ve.offset, "malformed program: %s%s%s%s%s",
                  etk_strerror(rc), ve.table ? " in " : "",
                  ve.table ? ve.table : "", ve.field ? "." : "",
                  ve.field ? ve.field : "");
    etk_memory_plan_free(&in->pub);
    return rc;
  }
  reader_t r;
  memset(&r, 0, sizeof r);
  r.buf = in->bytes;
  r.err = err;
  r.in = in;
  rc = analyse(&r, root, method);
  reader_free(&r);
  if (rc != ETK_OK) {
    etk_memory_plan_free(&in->pub);
    return rc;
  }
  *out = &in->pub;
  return ETK_OK;
}

int etk_memory_plan_open_file(const char *path, const char *method,
                              etk_memory_plan_t **out, etk_error_t *err) {
  uint8_t *data = NULL;
  size_t len = 0;
  int rc = etk_read_file(path, (uint64_t)1 << 31, &data, &len, err);
  if (rc == ETK_OK) rc = etk_memory_plan_open(data, len, method, out, err);
  free(data);
  if (rc != ETK_OK) etk_error_where(err, path);
  return rc;
}

void etk_memory_plan_free(etk_memory_plan_t *plan) {
  if (!plan) return;
  etk_mp_internal_t *in = plan->internal_;
  free(in->bytes);
  free(in->tensors);
  free(in->buffers);
  free(in->overlaps);
  free(in->runtime);
  free(in->chain_starts);
  while (in->pool) {
    etk_mp_chunk_t *next = in->pool->next;
    free(in->pool);
    in->pool = next;
  }
  free(in);
}

size_t etk_memory_plan_live_at(const etk_memory_plan_t *plan, uint32_t mem_id,
                               int64_t instruction, uint32_t *out, size_t cap) {
  size_t n = 0;
  if (!plan) return 0;
  for (size_t k = 0; k < plan->tensor_count; k++) {
    const etk_memory_plan_tensor_t *t = &plan->tensors[k];
    if (t->mem_id != mem_id || !etk_mp_counts_live(t) ||
        t->first > instruction || t->last < instruction)
      continue;
    /* insertion into the kept top `cap`, largest first */
    size_t at = n < cap ? n : cap;
    while (at > 0) {
      const etk_memory_plan_tensor_t *u =
          &plan->tensors[etk_memory_plan_find(plan, out[at - 1])];
      if (u->nbytes > t->nbytes ||
          (u->nbytes == t->nbytes && u->value < t->value))
        break;
      if (at < cap) out[at] = out[at - 1];
      at--;
    }
    if (at < cap) out[at] = t->value;
    n++;
  }
  return n;
}
