/*
 * pte_writer.c - the program builder: assembles an ExecuTorch program in
 * memory and serialises it into a .pte with the FlatBuffers builder.
 *
 * DATA LAYOUT WHILE BUILDING
 *   builder -> methods[] -> values[], operators[], delegates[], chain 0's
 *   instructions[], inputs, outputs; plus program-wide constants[] (the
 *   bytes of constant tensors) and payloads[] (delegate processed bytes).
 *   Everything is in growable heap arrays owned by the builder; callers'
 *   pointers are copied on the way in.
 *
 * OUTPUT LAYOUT (what upstream's serializer produces)
 *   [root][ "ET12" ][ "eh00" header, 32 bytes, only with segment data ]
 *   [ flatbuffer tables ... ] [ zero padding to segment_alignment ]
 *   [ segment 0: constants, each at a constant_alignment offset ]
 *   [ segment 1..: delegate payloads (when stored in segments) ]
 *   The header is inserted after the identifier and the root offset moved
 *   by its length (a multiple of 16, so every object keeps its alignment),
 *   which is why plain FlatBuffers readers and flatc still decode the file.
 *   Deprecated inline constants (constant_buffer) and inline delegate data
 *   (backend_delegate_data) stay inside the flatbuffer instead.
 *
 * INVARIANTS
 *   - errors are sticky: the first failure is kept and returned by every
 *     later call and by finish;
 *   - finish checks every index (values, operators, delegates, jump
 *     targets) before serialising, so a finished program always passes
 *     etk_program_load();
 *   - the FlatBuffers buffer is sized by a generous estimate and doubled on
 *     ETK_E_NO_MEMORY, so finish never truncates.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/flatbuf.h"
#include "etkit/program_schema.h"
#include "etkit/schema.h"
#include "program_internal.h"

/* --------------------------------------------------------- growable arrays */

#define VEC(T)         \
  struct {             \
    T *items;          \
    size_t count, cap; \
  }

static int vec_grow(void **items, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return ETK_OK;
  size_t ncap = *cap ? *cap * 2 : 8;
  while (ncap < need) ncap *= 2;
  if (ncap > SIZE_MAX / elem) return ETK_E_NO_MEMORY;
  void *p = realloc(*items, ncap * elem);
  if (!p) return ETK_E_NO_MEMORY;
  *items = p;
  *cap = ncap;
  return ETK_OK;
}
#define VEC_PUSH(b, v, x)                                 \
  (vec_grow((void **)&(v).items, &(v).cap, (v).count + 1, \
            sizeof *(v).items) == ETK_OK                  \
       ? ((v).items[(v).count] = (x), (int)(v).count++)   \
       : fail(b, ETK_E_NO_MEMORY, "out of memory"))

typedef struct b_tensor {
  int scalar_type;
  uint32_t dim;
  int32_t sizes[ETK_PROGRAM_MAX_DIMS];
  uint8_t order[ETK_PROGRAM_MAX_DIMS];
  int placement;
  uint32_t constant; /* data_buffer_idx for constants */
  bool placed;       /* explicit memory_id/offset */
  uint32_t memory_id;
  uint64_t offset;
  int dynamism;
  uint64_t nbytes;
} b_tensor_t;

typedef struct b_value {
  int tag;
  int64_t i;
  double d;
  bool b;
  char *str;
  void *items; /* int64 (IntList indices), double, uint8, int32 */
  uint32_t count;
  b_tensor_t t;
} b_value_t;

typedef struct b_instr {
  int kind;
  int32_t index, index2;
  int32_t *args;
  uint32_t count;
} b_instr_t;

typedef struct b_operator {
  char *name, *overload;
} b_operator_t;

typedef struct b_delegate {
  char *id;
  uint32_t payload; /* index into builder payloads */
  char **spec_keys;
  uint8_t **spec_values;
  uint32_t *spec_lens;
  uint32_t spec_count;
} b_delegate_t;

typedef struct b_method {
  char *name;
  VEC(b_value_t) values;
  VEC(b_instr_t) instrs;
  VEC(b_operator_t) ops;
  VEC(b_delegate_t) delegates;
  int32_t *inputs, *outputs;
  uint32_t input_count, output_count;
  uint64_t planned; /* bump cursor of buffer 1 */
} b_method_t;

typedef struct b_blob {
  uint8_t *data;
  size_t len;
} b_blob_t;

struct etk_program_builder {
  VEC(b_method_t) methods;
  size_t cur;
  VEC(b_blob_t) constants; /* index k -> data_buffer_idx k + 1 */
  VEC(b_blob_t) payloads;
  etk_program_builder_options_t opt;
  int status;
  char message[200];
};

static int fail(etk_program_builder_t *b, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail(etk_program_builder_t *b, int code, const char *fmt, ...) {
  if (b->status == ETK_OK) {
    b->status = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->message, sizeof b->message, fmt, ap);
    va_end(ap);
  }
  return b->status;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s);
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

static void *xmemdup(const void *s, size_t n) {
  void *p = malloc(n ? n : 1);
  if (p && n) memcpy(p, s, n);
  return p;
}

static b_method_t *cur_method(etk_program_builder_t *b) {
  return &b->methods.items[b->cur];
}

/* -------------------------------------------------------------- lifecycle */

int etk_program_builder_add_method(etk_program_builder_t *b, const char *name) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  if (!name || !name[0])
    return fail(b, ETK_E_INVALID_ARGUMENT, "empty method name");
  for (size_t i = 0; i < b->methods.count; i++)
    if (strcmp(b->methods.items[i].name, name) == 0)
      return fail(b, ETK_E_INVALID_ARGUMENT, "method '%s' added twice", name);
  b_method_t m;
  memset(&m, 0, sizeof m);
  m.name = xstrdup(name);
  if (!m.name) return fail(b, ETK_E_NO_MEMORY, "out of memory");
  int idx = VEC_PUSH(b, b->methods, m);
  if (idx < 0) {
    free(m.name);
    return idx;
  }
  b->cur = (size_t)idx;
  return idx;
}

etk_program_builder_t *etk_program_builder_new(const char *method_name) {
  etk_program_builder_t *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->opt.segment_alignment = 128;
  b->opt.constant_alignment = 16;
  if (etk_program_builder_add_method(b, method_name ? method_name : "forward") <
      0) {
    etk_program_builder_free(b);
    return NULL;
  }
  return b;
}

void etk_program_builder_set_options(etk_program_builder_t *b,
                                     const etk_program_builder_options_t *o) {
  if (!b || !o) return;
  b->opt = *o;
  if (b->opt.segment_alignment == 0) b->opt.segment_alignment = 128;
  if (b->opt.constant_alignment == 0) b->opt.constant_alignment = 16;
  if ((b->opt.segment_alignment & (b->opt.segment_alignment - 1)) ||
      (b->opt.constant_alignment & (b->opt.constant_alignment - 1)) ||
      b->opt.segment_alignment < 16 || b->opt.constant_alignment < 16)
    fail(b, ETK_E_INVALID_ARGUMENT,
         "alignments must be powers of two of at least 16");
}

void etk_program_builder_free(etk_program_builder_t *b) {
  if (!b) return;
  for (size_t i = 0; i < b->methods.count; i++) {
    b_method_t *m = &b->methods.items[i];
    for (size_t k = 0; k < m->values.count; k++) {
      free(m->values.items[k].str);
      free(m->values.items[k].items);
    }
    for (size_t k = 0; k < m->instrs.count; k++) free(m->instrs.items[k].args);
    for (size_t k = 0; k < m->ops.count; k++) {
      free(m->ops.items[k].name);
      free(m->ops.items[k].overload);
    }
    for (size_t k = 0; k < m->delegates.count; k++) {
      b_delegate_t *d = &m->delegates.items[k];
      free(d->id);
      for (uint32_t s = 0; s < d->spec_count; s++) {
        free(d->spec_keys[s]);
        free(d->spec_values[s]);
      }
      free(d->spec_keys);
      free(d->spec_values);
      free(d->spec_lens);
    }
    free(m->values.items);
    free(m->instrs.items);
    free(m->ops.items);
    free(m->delegates.items);
    free(m->inputs);
    free(m->outputs);
    free(m->name);
  }
  free(b->methods.items);
  for (size_t k = 0; k < b->constants.count; k++)
    free(b->constants.items[k].data);
  for (size_t k = 0; k < b->payloads.count; k++)
    free(b->payloads.items[k].data);
  free(b->constants.items);
  free(b->payloads.items);
  free(b);
}

/* ----------------------------------------------------------------- values */

static int push_value(etk_program_builder_t *b, b_value_t *v) {
  b_method_t *m = cur_method(b);
  if (m->values.count >= 0x7FFFFFFF)
    return fail(b, ETK_E_LIMIT, "too many values");
  int idx = VEC_PUSH(b, m->values, *v);
  if (idx < 0) {
    free(v->str);
    free(v->items);
  }
  return idx;
}

int etk_program_builder_add_tensor(etk_program_builder_t *b, int scalar_type,
                                   uint32_t dim, const int32_t *sizes,
                                   const uint8_t *dim_order, int placement,
                                   const void *data) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  size_t elem = etk_scalar_type_size(scalar_type);
  if (elem == 0)
    return fail(b, ETK_E_INVALID_ARGUMENT, "unknown scalar type %d",
                scalar_type);
  if (dim > ETK_PROGRAM_MAX_DIMS || (dim && !sizes))
    return fail(b, ETK_E_INVALID_ARGUMENT, "bad tensor rank %u", dim);
  if (placement < ETK_BUILDER_PLANNED || placement > ETK_BUILDER_RUNTIME)
    return fail(b, ETK_E_INVALID_ARGUMENT, "bad placement %d", placement);
  b_value_t v;
  memset(&v, 0, sizeof v);
  v.tag = ETK_PTE_KT_TENSOR;
  v.t.scalar_type = scalar_type;
  v.t.dim = dim;
  v.t.placement = placement;
  for (uint32_t d = 0; d < dim; d++) {
    v.t.sizes[d] = sizes[d];
    v.t.order[d] = dim_order ? dim_order[d] : (uint8_t)d;
  }
  if (!etk_dim_order_valid(v.t.order, dim))
    return fail(b, ETK_E_INVALID_ARGUMENT, "dim_order is not a permutation");
  if (etk_shape_nbytes(v.t.sizes, dim, elem, &v.t.nbytes) != ETK_OK)
    return fail(b, ETK_E_INVALID_ARGUMENT, "bad tensor sizes");
  b_method_t *m = cur_method(b);
  if (placement == ETK_BUILDER_CONSTANT) {
    if (!data && v.t.nbytes)
      return fail(b, ETK_E_INVALID_ARGUMENT, "constant tensor without data");
    b_blob_t blob = {xmemdup(data, (size_t)v.t.nbytes), (size_t)v.t.nbytes};
    if (!blob.data) return fail(b, ETK_E_NO_MEMORY, "out of memory");
    int k = VEC_PUSH(b, b->constants, blob);
    if (k < 0) {
      free(blob.data);
      return k;
    }
    v.t.constant = (uint32_t)k + 1;
  } else if (placement == ETK_BUILDER_PLANNED) {
    uint64_t off = (m->planned + 15u) & ~(uint64_t)15u;
    v.t.memory_id = 1;
    v.t.offset = off;
    m->planned = off + v.t.nbytes;
  }
  return push_value(b, &v);
}

static b_value_t *tensor_value(etk_program_builder_t *b, int value) {
  b_method_t *m = cur_method(b);
  if (value < 0 || (size_t)value >= m->values.count ||
      m->values.items[value].tag != ETK_PTE_KT_TENSOR) {
    fail(b, ETK_E_INVALID_ARGUMENT, "value %d is not a tensor", value);
    return NULL;
  }
  return &m->values.items[value];
}

int etk_program_builder_place_tensor(etk_program_builder_t *b, int value,
                                     uint32_t memory_id, uint64_t offset) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  b_value_t *v = tensor_value(b, value);
  if (!v) return b->status;
  if (v->t.placement != ETK_BUILDER_PLANNED || memory_id == 0)
    return fail(b, ETK_E_INVALID_ARGUMENT,
                "only planned tensors can be placed, in memory ids >= 1");
  v->t.placed = true;
  v->t.memory_id = memory_id;
  v->t.offset = offset;
  return ETK_OK;
}

int etk_program_builder_set_dynamic(etk_program_builder_t *b, int value) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  b_value_t *v = tensor_value(b, value);
  if (!v) return b->status;
  v->t.dynamism = 1;
  return ETK_OK;
}

/* Appends a value that owns no memory (Int, Double, Bool, Null). */
static int push_plain_value(etk_program_builder_t *b, b_value_t v) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  return push_value(b, &v);
}

int etk_program_builder_add_int(etk_program_builder_t *b, int64_t x) {
  return push_plain_value(b, (b_value_t){.tag = ETK_PTE_KT_INT, .i = x});
}

int etk_program_builder_add_double(etk_program_builder_t *b, double x) {
  return push_plain_value(b, (b_value_t){.tag = ETK_PTE_KT_DOUBLE, .d = x});
}

int etk_program_builder_add_bool(etk_program_builder_t *b, bool x) {
  return push_plain_value(b, (b_value_t){.tag = ETK_PTE_KT_BOOL, .b = x});
}

int etk_program_builder_add_null(etk_program_builder_t *b) {
  return push_plain_value(b, (b_value_t){.tag = ETK_PTE_KT_NULL});
}

int etk_program_builder_add_string(etk_program_builder_t *b, const char *s) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  if (!s) return fail(b, ETK_E_INVALID_ARGUMENT, "NULL string");
  b_value_t v;
  memset(&v, 0, sizeof v);
  v.tag = ETK_PTE_KT_STRING;
  v.str = xstrdup(s);
  if (!v.str) return fail(b, ETK_E_NO_MEMORY, "out of memory");
  return push_value(b, &v);
}

static int add_list(etk_program_builder_t *b, int tag, const void *items,
                    uint32_t count, size_t elem) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  if (count && !items) return fail(b, ETK_E_INVALID_ARGUMENT, "NULL items");
  b_value_t v;
  memset(&v, 0, sizeof v);
  v.tag = tag;
  v.count = count;
  v.items = xmemdup(items, count * elem);
  if (!v.items) return fail(b, ETK_E_NO_MEMORY, "out of memory");
  return push_value(b, &v);
}

int etk_program_builder_add_int_list(etk_program_builder_t *b,
                                     const int64_t *items, uint32_t count) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  if (count && !items) return fail(b, ETK_E_INVALID_ARGUMENT, "NULL items");
  int64_t *idx = malloc((count ? count : 1) * sizeof *idx);
  if (!idx) return fail(b, ETK_E_NO_MEMORY, "out of memory");
  for (uint32_t k = 0; k < count; k++) {
    int v = etk_program_builder_add_int(b, items[k]);
    if (v < 0) {
      free(idx);
      return v;
    }
    idx[k] = v;
  }
  int r = add_list(b, ETK_PTE_KT_INT_LIST, idx, count, sizeof *idx);
  free(idx);
  return r;
}

int etk_program_builder_add_double_list(etk_program_builder_t *b,
                                        const double *items, uint32_t count) {
  return add_list(b, ETK_PTE_KT_DOUBLE_LIST, items, count, sizeof *items);
}

int etk_program_builder_add_bool_list(etk_program_builder_t *b,
                                      const bool *items, uint32_t count) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  if (count && !items) return fail(b, ETK_E_INVALID_ARGUMENT, "NULL items");
  uint8_t *bytes = malloc(count ? count : 1);
  if (!bytes) return fail(b, ETK_E_NO_MEMORY, "out of memory");
  for (uint32_t k = 0; k < count; k++) bytes[k] = items[k] ? 1 : 0;
  int r = add_list(b, ETK_PTE_KT_BOOL_LIST, bytes, count, 1);
  free(bytes);
  return r;
}

int etk_program_builder_add_tensor_list(etk_program_builder_t *b,
                                        const int32_t *items, uint32_t count,
                                        bool optional) {
  return add_list(
      b, optional ? ETK_PTE_KT_OPTIONAL_TENSOR_LIST : ETK_PTE_KT_TENSOR_LIST,
      items, count, sizeof *items);
}

static int set_io(etk_program_builder_t *b, const int32_t *values,
                  uint32_t count, int32_t **dst, uint32_t *dst_count) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  if (count && !values) return fail(b, ETK_E_INVALID_ARGUMENT, "NULL values");
  int32_t *p = xmemdup(values, count * sizeof *values);
  if (!p) return fail(b, ETK_E_NO_MEMORY, "out of memory");
  free(*dst);
  *dst = p;
  *dst_count = count;
  return ETK_OK;
}

int etk_program_builder_set_inputs(etk_program_builder_t *b,
                                   const int32_t *values, uint32_t count) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  b_method_t *m = cur_method(b);
  return set_io(b, values, count, &m->inputs, &m->input_count);
}

int etk_program_builder_set_outputs(etk_program_builder_t *b,
                                    const int32_t *values, uint32_t count) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  b_method_t *m = cur_method(b);
  return set_io(b, values, count, &m->outputs, &m->output_count);
}

/* ------------------------------------------------- operators and delegates */

int etk_program_builder_add_operator(etk_program_builder_t *b, const char *name,
                                     const char *overload) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  if (!name || !name[0])
    return fail(b, ETK_E_INVALID_ARGUMENT, "operator without a name");
  if (!overload) overload = "";
  b_method_t *m = cur_method(b);
  for (size_t k = 0; k < m->ops.count; k++)
    if (strcmp(m->ops.items[k].name, name) == 0 &&
        strcmp(m->ops.items[k].overload, overload) == 0)
      return (int)k;
  b_operator_t op = {xstrdup(name), xstrdup(overload)};
  if (!op.name || !op.overload) {
    free(op.name);
    free(op.overload);
    return fail(b, ETK_E_NO_MEMORY, "out of memory");
  }
  int idx = VEC_PUSH(b, m->ops, op);
  if (idx < 0) {
    free(op.name);
    free(op.overload);
  }
  return idx;
}

int etk_program_builder_add_delegate(etk_program_builder_t *b, const char *id,
                                     const void *payload, size_t payload_len,
                                     const char *const *spec_keys,
                                     const uint8_t *const *spec_values,
                                     const uint32_t *spec_lens,
                                     uint32_t spec_count) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  if (!id || !id[0] || (payload_len && !payload) ||
      (spec_count && (!spec_keys || !spec_values || !spec_lens)))
    return fail(b, ETK_E_INVALID_ARGUMENT, "bad delegate arguments");
  b_blob_t blob = {xmemdup(payload, payload_len), payload_len};
  if (!blob.data) return fail(b, ETK_E_NO_MEMORY, "out of memory");
  int pi = VEC_PUSH(b, b->payloads, blob);
  if (pi < 0) {
    free(blob.data);
    return pi;
  }
  b_delegate_t d;
  memset(&d, 0, sizeof d);
  d.id = xstrdup(id);
  d.payload = (uint32_t)pi;
  d.spec_count = spec_count;
  d.spec_keys = calloc(spec_count ? spec_count : 1, sizeof *d.spec_keys);
  d.spec_values = calloc(spec_count ? spec_count : 1, sizeof *d.spec_values);
  d.spec_lens = calloc(spec_count ? spec_count : 1, sizeof *d.spec_lens);
  int ok = d.id && d.spec_keys && d.spec_values && d.spec_lens;
  for (uint32_t s = 0; ok && s < spec_count; s++) {
    d.spec_keys[s] = xstrdup(spec_keys[s] ? spec_keys[s] : "");
    d.spec_values[s] = xmemdup(spec_values[s], spec_lens[s]);
    d.spec_lens[s] = spec_lens[s];
    ok = d.spec_keys[s] && d.spec_values[s];
  }
  b_method_t *m = cur_method(b);
  int idx = ok ? VEC_PUSH(b, m->delegates, d) : -1;
  if (idx < 0) {
    for (uint32_t s = 0; s < spec_count && d.spec_keys; s++) {
      free(d.spec_keys[s]);
      if (d.spec_values) free(d.spec_values[s]);
    }
    free(d.spec_keys);
    free(d.spec_values);
    free(d.spec_lens);
    free(d.id);
    return ok ? idx : fail(b, ETK_E_NO_MEMORY, "out of memory");
  }
  return idx;
}

/* ------------------------------------------------------------ instructions */

static int push_instr(etk_program_builder_t *b, int kind, int32_t index,
                      int32_t index2, const int32_t *args, uint32_t count) {
  if (!b) return ETK_E_INVALID_ARGUMENT;
  if (b->status) return b->status;
  if (count && !args) return fail(b, ETK_E_INVALID_ARGUMENT, "NULL args");
  b_instr_t x = {kind, index, index2, NULL, count};
  if (kind == ETK_INSTR_KERNEL_CALL || kind == ETK_INSTR_DELEGATE_CALL) {
    x.args = xmemdup(args, count * sizeof *args);
    if (!x.args) return fail(b, ETK_E_NO_MEMORY, "out of memory");
  }
  int idx = VEC_PUSH(b, cur_method(b)->instrs, x);
  if (idx < 0) free(x.args);
  return idx;
}

int etk_program_builder_kernel_call(etk_program_builder_t *b, int op_index,
                                    const int32_t *args, uint32_t count) {
  return push_instr(b, ETK_INSTR_KERNEL_CALL, op_index, 0, args, count);
}
int etk_program_builder_delegate_call(etk_program_builder_t *b,
                                      int delegate_index, const int32_t *args,
                                      uint32_t count) {
  return push_instr(b, ETK_INSTR_DELEGATE_CALL, delegate_index, 0, args, count);
}
int etk_program_builder_move_call(etk_program_builder_t *b, int from, int to) {
  return push_instr(b, ETK_INSTR_MOVE_CALL, from, to, NULL, 0);
}
int etk_program_builder_jump_false_call(etk_program_builder_t *b,
                                        int cond_value, int destination) {
  return push_instr(b, ETK_INSTR_JUMP_FALSE_CALL, cond_value, destination, NULL,
                    0);
}
int etk_program_builder_free_call(etk_program_builder_t *b, int value) {
  return push_instr(b, ETK_INSTR_FREE_CALL, value, 0, NULL, 0);
}

uint64_t etk_program_builder_planned_size(const etk_program_builder_t *b) {
  return b ? b->methods.items[b->cur].planned : 0;
}

/* ---------------------------------------------------------------- checks */

static int check_index(etk_program_builder_t *b, const b_method_t *m, int64_t v,
                       const char *what) {
  if (v < 0 || (uint64_t)v >= m->values.count)
    return fail(b, ETK_E_INVALID_ARGUMENT,
                "method '%s': %s refers to value %lld of %zu", m->name, what,
                (long long)v, m->values.count);
  return ETK_OK;
}

static int check_method(etk_program_builder_t *b, b_method_t *m) {
  for (uint32_t k = 0; k < m->input_count; k++)
    if (check_index(b, m, m->inputs[k], "an input")) return b->status;
  for (uint32_t k = 0; k < m->output_count; k++)
    if (check_index(b, m, m->outputs[k], "an output")) return b->status;
  for (size_t k = 0; k < m->values.count; k++) {
    b_value_t *v = &m->values.items[k];
    if (v->tag == ETK_PTE_KT_TENSOR_LIST ||
        v->tag == ETK_PTE_KT_OPTIONAL_TENSOR_LIST) {
      const int32_t *it = v->items;
      for (uint32_t j = 0; j < v->count; j++) {
        if (it[j] == -1 && v->tag == ETK_PTE_KT_OPTIONAL_TENSOR_LIST) continue;
        if (check_index(b, m, it[j], "a tensor list item")) return b->status;
        if (m->values.items[it[j]].tag != ETK_PTE_KT_TENSOR)
          return fail(b, ETK_E_INVALID_ARGUMENT,
                      "method '%s': tensor list %zu item %u is not a tensor",
                      m->name, k, j);
      }
    }
  }
  for (size_t i = 0; i < m->instrs.count; i++) {
    b_instr_t *x = &m->instrs.items[i];
    char what[48];
    snprintf(what, sizeof what, "instruction %zu", i);
    switch (x->kind) {
      case ETK_INSTR_KERNEL_CALL:
        if (x->index < 0 || (size_t)x->index >= m->ops.count)
          return fail(b, ETK_E_INVALID_ARGUMENT,
                      "method '%s': %s uses operator %d of %zu", m->name, what,
                      x->index, m->ops.count);
        for (uint32_t k = 0; k < x->count; k++)
          if (check_index(b, m, x->args[k], what)) return b->status;
        break;
      case ETK_INSTR_DELEGATE_CALL:
        if (x->index < 0 || (size_t)x->index >= m->delegates.count)
          return fail(b, ETK_E_INVALID_ARGUMENT,
                      "method '%s': %s uses delegate %d of %zu", m->name, what,
                      x->index, m->delegates.count);
        for (uint32_t k = 0; k < x->count; k++)
          if (check_index(b, m, x->args[k], what)) return b->status;
        break;
      case ETK_INSTR_MOVE_CALL:
        if (check_index(b, m, x->index, what) ||
            check_index(b, m, x->index2, what))
          return b->status;
        break;
      case ETK_INSTR_JUMP_FALSE_CALL:
        if (check_index(b, m, x->index, what)) return b->status;
        if (x->index2 < 0 || (size_t)x->index2 > m->instrs.count)
          return fail(b, ETK_E_INVALID_ARGUMENT,
                      "method '%s': %s jumps to %d outside the chain", m->name,
                      what, x->index2);
        break;
      case ETK_INSTR_FREE_CALL:
        if (check_index(b, m, x->index, what)) return b->status;
        break;
    }
  }
  return ETK_OK;
}

/* ---------------------------------------------------------- serialisation */

typedef struct emit {
  etk_fb_builder_t fb;
  etk_program_builder_t *b;
  /* segment plan */
  int const_segment;       /* segment index of constants, -1 = none */
  uint64_t *const_offsets; /* per constant, within the segment */
  uint64_t const_size;
  int32_t *payload_segment; /* per payload: segment index, -1 inline */
  uint64_t *seg_offsets, *seg_sizes;
  uint32_t seg_count;
  uint64_t seg_total;
} emit_t;

static etk_fb_ref_t str(emit_t *e, const char *s) {
  return etk_fb_create_string(&e->fb, s, strlen(s));
}

static etk_fb_ref_t i32_vec(emit_t *e, const int32_t *p, size_t n) {
  return etk_fb_create_vector(&e->fb, p, n, 4, 4);
}

static etk_fb_ref_t emit_value(emit_t *e, const b_method_t *m,
                               const b_value_t *v) {
  etk_fb_builder_t *fb = &e->fb;
  etk_fb_ref_t inner = 0, a = 0, b2 = 0;
  switch (v->tag) {
    case ETK_PTE_KT_NULL:
      etk_fb_table_start(fb);
      inner = etk_fb_table_end(fb);
      break;
    case ETK_PTE_KT_INT:
      etk_fb_table_start(fb);
      etk_fb_add_i64(fb, ETK_PTE_SCALAR_VALUE, v->i, 0, 0);
      inner = etk_fb_table_end(fb);
      break;
    case ETK_PTE_KT_BOOL:
      etk_fb_table_start(fb);
      etk_fb_add_bool(fb, ETK_PTE_SCALAR_VALUE, v->b, 0, 0);
      inner = etk_fb_table_end(fb);
      break;
    case ETK_PTE_KT_DOUBLE:
      etk_fb_table_start(fb);
      etk_fb_add_f64(fb, ETK_PTE_SCALAR_VALUE, v->d, 0.0, 0);
      inner = etk_fb_table_end(fb);
      break;
    case ETK_PTE_KT_STRING:
      a = str(e, v->str);
      etk_fb_table_start(fb);
      etk_fb_add_ref(fb, ETK_PTE_SCALAR_VALUE, a);
      inner = etk_fb_table_end(fb);
      break;
    case ETK_PTE_KT_INT_LIST:
    case ETK_PTE_KT_DOUBLE_LIST:
      a = etk_fb_create_vector(fb, v->items, v->count, 8, 8);
      etk_fb_table_start(fb);
      etk_fb_add_ref(fb, ETK_PTE_LIST_ITEMS, a);
      inner = etk_fb_table_end(fb);
      break;
    case ETK_PTE_KT_BOOL_LIST:
      a = etk_fb_create_vector(fb, v->items, v->count, 1, 1);
      etk_fb_table_start(fb);
      etk_fb_add_ref(fb, ETK_PTE_LIST_ITEMS, a);
      inner = etk_fb_table_end(fb);
      break;
    case ETK_PTE_KT_TENSOR_LIST:
    case ETK_PTE_KT_OPTIONAL_TENSOR_LIST:
      a = i32_vec(e, v->items, v->count);
      etk_fb_table_start(fb);
      etk_fb_add_ref(fb, ETK_PTE_LIST_ITEMS, a);
      inner = etk_fb_table_end(fb);
      break;
    case ETK_PTE_KT_TENSOR: {
      const b_tensor_t *t = &v->t;
      etk_fb_ref_t alloc = 0;
      if (t->placement == ETK_BUILDER_PLANNED) {
        etk_fb_table_start(fb);
        etk_fb_add_u32(fb, ETK_PTE_ALLOCATION_MEMORY_ID, t->memory_id, 0, 0);
        etk_fb_add_u32(fb, ETK_PTE_ALLOCATION_MEMORY_OFFSET_LOW,
                       (uint32_t)t->offset, 0, 0);
        etk_fb_add_u32(fb, ETK_PTE_ALLOCATION_MEMORY_OFFSET_HIGH,
                       (uint32_t)(t->offset >> 32), 0, 0);
        alloc = etk_fb_table_end(fb);
      }
      a = i32_vec(e, t->sizes, t->dim);
      b2 = etk_fb_create_vector(fb, t->order, t->dim, 1, 1);
      etk_fb_table_start(fb);
      etk_fb_add_i8(fb, ETK_PTE_TENSOR_SCALAR_TYPE, (int8_t)t->scalar_type, 0,
                    0);
      etk_fb_add_ref(fb, ETK_PTE_TENSOR_SIZES, a);
      etk_fb_add_ref(fb, ETK_PTE_TENSOR_DIM_ORDER, b2);
      etk_fb_add_u32(fb, ETK_PTE_TENSOR_DATA_BUFFER_IDX, t->constant, 0, 0);
      etk_fb_add_ref(fb, ETK_PTE_TENSOR_ALLOCATION_INFO, alloc);
      etk_fb_add_i8(fb, ETK_PTE_TENSOR_SHAPE_DYNAMISM, (int8_t)t->dynamism, 0,
                    0);
      inner = etk_fb_table_end(fb);
    } break;
  }
  (void)m;
  etk_fb_table_start(fb);
  etk_fb_add_u8(fb, ETK_PTE_EVALUE_VAL_TYPE, (uint8_t)v->tag, 0, 0);
  etk_fb_add_ref(fb, ETK_PTE_EVALUE_VAL, inner);
  return etk_fb_table_end(fb);
}

static etk_fb_ref_t emit_instr(emit_t *e, const b_instr_t *x) {
  etk_fb_builder_t *fb = &e->fb;
  etk_fb_ref_t args = 0, inner;
  if (x->kind == ETK_INSTR_KERNEL_CALL || x->kind == ETK_INSTR_DELEGATE_CALL)
    args = i32_vec(e, x->args, x->count);
  etk_fb_table_start(fb);
  switch (x->kind) {
    case ETK_INSTR_KERNEL_CALL:
    case ETK_INSTR_DELEGATE_CALL:
      etk_fb_add_i32(fb, ETK_PTE_CALL_INDEX, x->index, 0, 0);
      etk_fb_add_ref(fb, ETK_PTE_CALL_ARGS, args);
      break;
    case ETK_INSTR_MOVE_CALL:
      etk_fb_add_i32(fb, ETK_PTE_MOVE_FROM, x->index, 0, 0);
      etk_fb_add_i32(fb, ETK_PTE_MOVE_TO, x->index2, 0, 0);
      break;
    case ETK_INSTR_JUMP_FALSE_CALL:
      etk_fb_add_i32(fb, ETK_PTE_JUMP_FALSE_COND, x->index, 0, 0);
      etk_fb_add_i32(fb, ETK_PTE_JUMP_FALSE_DESTINATION, x->index2, 0, 0);
      break;
    case ETK_INSTR_FREE_CALL:
      etk_fb_add_i32(fb, ETK_PTE_FREE_VALUE_INDEX, x->index, 0, 0);
      break;
  }
  inner = etk_fb_table_end(fb);
  etk_fb_table_start(fb);
  etk_fb_add_u8(fb, ETK_PTE_INSTRUCTION_ARGS_TYPE, (uint8_t)x->kind, 0, 0);
  etk_fb_add_ref(fb, ETK_PTE_INSTRUCTION_ARGS, inner);
  return etk_fb_table_end(fb);
}

/* Offset vector of n tables produced by f(e, ctx, i), via a temp array. */
static etk_fb_ref_t table_vec(emit_t *e, size_t n,
                              etk_fb_ref_t (*f)(emit_t *, const void *, size_t),
                              const void *ctx) {
  etk_fb_ref_t *refs = malloc((n ? n : 1) * sizeof *refs);
  if (!refs) {
    e->fb.status = e->fb.status ? e->fb.status : ETK_E_NO_MEMORY;
    return 0;
  }
  for (size_t i = 0; i < n; i++) refs[i] = f(e, ctx, i);
  etk_fb_ref_t r = etk_fb_builder_status(&e->fb) == ETK_OK
                       ? etk_fb_create_offset_vector(&e->fb, refs, n)
                       : 0;
  free(refs);
  return r;
}

static etk_fb_ref_t value_at(emit_t *e, const void *ctx, size_t i) {
  const b_method_t *m = ctx;
  return emit_value(e, m, &m->values.items[i]);
}
static etk_fb_ref_t instr_at(emit_t *e, const void *ctx, size_t i) {
  return emit_instr(e, &((const b_method_t *)ctx)->instrs.items[i]);
}
static etk_fb_ref_t op_at(emit_t *e, const void *ctx, size_t i) {
  const b_operator_t *op = &((const b_method_t *)ctx)->ops.items[i];
  etk_fb_ref_t n = str(e, op->name), o = str(e, op->overload);
  etk_fb_table_start(&e->fb);
  etk_fb_add_ref(&e->fb, ETK_PTE_OPERATOR_NAME, n);
  etk_fb_add_ref(&e->fb, ETK_PTE_OPERATOR_OVERLOAD, o);
  return etk_fb_table_end(&e->fb);
}

typedef struct spec_ctx {
  const b_delegate_t *d;
} spec_ctx_t;
static etk_fb_ref_t spec_at(emit_t *e, const void *ctx, size_t i) {
  const b_delegate_t *d = ((const spec_ctx_t *)ctx)->d;
  etk_fb_ref_t k = str(e, d->spec_keys[i]);
  etk_fb_ref_t v =
      etk_fb_create_vector(&e->fb, d->spec_values[i], d->spec_lens[i], 1, 1);
  etk_fb_table_start(&e->fb);
  etk_fb_add_ref(&e->fb, ETK_PTE_COMPILE_SPEC_KEY, k);
  etk_fb_add_ref(&e->fb, ETK_PTE_COMPILE_SPEC_VALUE, v);
  return etk_fb_table_end(&e->fb);
}

static etk_fb_ref_t delegate_at(emit_t *e, const void *ctx, size_t i) {
  const b_delegate_t *d = &((const b_method_t *)ctx)->delegates.items[i];
  etk_fb_ref_t id = str(e, d->id);
  spec_ctx_t sc = {d};
  etk_fb_ref_t specs = table_vec(e, d->spec_count, spec_at, &sc);
  int32_t seg = e->payload_segment[d->payload];
  uint32_t index = seg >= 0 ? (uint32_t)seg : d->payload;
  etk_fb_table_start(&e->fb);
  etk_fb_add_i8(
      &e->fb, ETK_PTE_DATA_REF_LOCATION,
      seg >= 0 ? ETK_PTE_DATA_LOCATION_SEGMENT : ETK_PTE_DATA_LOCATION_INLINE,
      0, 0);
  etk_fb_add_u32(&e->fb, ETK_PTE_DATA_REF_INDEX, index, 0, ETK_FB_FORCE);
  etk_fb_ref_t ref = etk_fb_table_end(&e->fb);
  etk_fb_table_start(&e->fb);
  etk_fb_add_ref(&e->fb, ETK_PTE_DELEGATE_ID, id);
  etk_fb_add_ref(&e->fb, ETK_PTE_DELEGATE_PROCESSED, ref);
  etk_fb_add_ref(&e->fb, ETK_PTE_DELEGATE_COMPILE_SPECS, specs);
  return etk_fb_table_end(&e->fb);
}

static etk_fb_ref_t plan_at(emit_t *e, const void *ctx, size_t i) {
  const b_method_t *m = &((const etk_program_builder_t *)ctx)->methods.items[i];
  etk_fb_builder_t *fb = &e->fb;
  etk_fb_ref_t name = str(e, m->name);
  etk_fb_ref_t values = table_vec(e, m->values.count, value_at, m);
  etk_fb_ref_t inputs = i32_vec(e, m->inputs, m->input_count);
  etk_fb_ref_t outputs = i32_vec(e, m->outputs, m->output_count);
  etk_fb_ref_t instrs = table_vec(e, m->instrs.count, instr_at, m);
  etk_fb_ref_t empty_in = i32_vec(e, NULL, 0), empty_out = i32_vec(e, NULL, 0);
  etk_fb_table_start(fb);
  etk_fb_add_ref(fb, ETK_PTE_CHAIN_INPUTS, empty_in);
  etk_fb_add_ref(fb, ETK_PTE_CHAIN_OUTPUTS, empty_out);
  etk_fb_add_ref(fb, ETK_PTE_CHAIN_INSTRUCTIONS, instrs);
  etk_fb_ref_t chain = etk_fb_table_end(fb);
  etk_fb_ref_t chains = etk_fb_create_offset_vector(fb, &chain, 1);
  etk_fb_ref_t ops = table_vec(e, m->ops.count, op_at, m);
  etk_fb_ref_t dels = table_vec(e, m->delegates.count, delegate_at, m);
  /* Buffer sizes: [0 (reserved), buffer 1, ...]; explicit placements may
   * name more buffers than the bump plan's single one. */
  uint64_t sizes[64] = {0};
  uint32_t nbuf = 0;
  for (size_t k = 0; k < m->values.count; k++) {
    const b_value_t *v = &m->values.items[k];
    if (v->tag != ETK_PTE_KT_TENSOR || v->t.placement != ETK_BUILDER_PLANNED)
      continue;
    uint32_t id = v->t.memory_id;
    if (id >= 64) continue; /* rejected by finish */
    if (id > nbuf) nbuf = id;
    uint64_t end = v->t.offset + v->t.nbytes;
    if (end > sizes[id]) sizes[id] = end;
  }
  int64_t bs[64];
  for (uint32_t k = 0; k <= nbuf; k++)
    bs[k] = k == 0 ? 0 : (int64_t)((sizes[k] + 15u) & ~(uint64_t)15u);
  etk_fb_ref_t bsv = etk_fb_create_vector(fb, bs, nbuf + 1, 8, 8);
  etk_fb_table_start(fb);
  etk_fb_add_ref(fb, ETK_PTE_PLAN_NAME, name);
  etk_fb_add_ref(fb, ETK_PTE_PLAN_VALUES, values);
  etk_fb_add_ref(fb, ETK_PTE_PLAN_INPUTS, inputs);
  etk_fb_add_ref(fb, ETK_PTE_PLAN_OUTPUTS, outputs);
  etk_fb_add_ref(fb, ETK_PTE_PLAN_CHAINS, chains);
  etk_fb_add_ref(fb, ETK_PTE_PLAN_OPERATORS, ops);
  etk_fb_add_ref(fb, ETK_PTE_PLAN_DELEGATES, dels);
  etk_fb_add_ref(fb, ETK_PTE_PLAN_NON_CONST_BUFFER_SIZES, bsv);
  return etk_fb_table_end(fb);
}

static etk_fb_ref_t inline_constant_at(emit_t *e, const void *ctx, size_t i) {
  const etk_program_builder_t *b = ctx;
  const uint8_t *data = NULL;
  size_t len = 0;
  if (i > 0) { /* entry 0 is the empty placeholder */
    data = b->constants.items[i - 1].data;
    len = b->constants.items[i - 1].len;
  }
  etk_fb_ref_t v = etk_fb_create_vector(&e->fb, data, len, 1, 16);
  etk_fb_table_start(&e->fb);
  etk_fb_add_ref(&e->fb, ETK_PTE_BUFFER_STORAGE, v);
  return etk_fb_table_end(&e->fb);
}

static etk_fb_ref_t inline_payload_at(emit_t *e, const void *ctx, size_t i) {
  const etk_program_builder_t *b = ctx;
  etk_fb_ref_t v = etk_fb_create_vector(&e->fb, b->payloads.items[i].data,
                                        b->payloads.items[i].len, 1, 16);
  etk_fb_table_start(&e->fb);
  etk_fb_add_ref(&e->fb, ETK_PTE_INLINE_DATA_DATA, v);
  return etk_fb_table_end(&e->fb);
}

static etk_fb_ref_t segment_at(emit_t *e, const void *ctx, size_t i) {
  (void)ctx;
  etk_fb_table_start(&e->fb);
  etk_fb_add_u64(&e->fb, ETK_PTE_SEGMENT_OFFSET, e->seg_offsets[i], 0, 0);
  etk_fb_add_u64(&e->fb, ETK_PTE_SEGMENT_SIZE, e->seg_sizes[i], 0, 0);
  return etk_fb_table_end(&e->fb);
}

static int build_flatbuffer(emit_t *e, uint8_t *mem, size_t cap,
                            const uint8_t **out, size_t *out_len) {
  etk_program_builder_t *b = e->b;
  etk_fb_builder_t *fb = &e->fb;
  etk_fb_builder_init(fb, mem, cap);
  etk_fb_ref_t plans = table_vec(e, b->methods.count, plan_at, b);
  etk_fb_ref_t cbuf = 0, cseg = 0, dd = 0, segs = 0;
  if (b->opt.inline_constants && b->constants.count)
    cbuf = table_vec(e, b->constants.count + 1, inline_constant_at, b);
  /* Inline delegate data: every payload gets an entry so payload index ==
   * backend_delegate_data index; segment-stored ones hold empty data. */
  if (!b->opt.delegates_in_segments && b->payloads.count)
    dd = table_vec(e, b->payloads.count, inline_payload_at, b);
  if (e->seg_count) segs = table_vec(e, e->seg_count, segment_at, NULL);
  {
    uint64_t *offs = calloc(b->constants.count + 1, sizeof *offs);
    if (!offs) return ETK_E_NO_MEMORY;
    size_t n = 1;
    if (e->const_segment >= 0) {
      for (size_t k = 0; k < b->constants.count; k++)
        offs[k + 1] = e->const_offsets[k];
      n = b->constants.count + 1;
    }
    etk_fb_ref_t ov = etk_fb_create_vector(fb, offs, n, 8, 8);
    free(offs);
    etk_fb_table_start(fb);
    etk_fb_add_u32(fb, ETK_PTE_SUBSEGMENT_SEGMENT_INDEX,
                   e->const_segment >= 0 ? (uint32_t)e->const_segment : 0, 0,
                   0);
    etk_fb_add_ref(fb, ETK_PTE_SUBSEGMENT_OFFSETS, ov);
    cseg = etk_fb_table_end(fb);
  }
  etk_fb_table_start(fb);
  etk_fb_add_ref(fb, ETK_PTE_PROGRAM_EXECUTION_PLAN, plans);
  etk_fb_add_ref(fb, ETK_PTE_PROGRAM_CONSTANT_BUFFER, cbuf);
  etk_fb_add_ref(fb, ETK_PTE_PROGRAM_BACKEND_DELEGATE_DATA, dd);
  etk_fb_add_ref(fb, ETK_PTE_PROGRAM_SEGMENTS, segs);
  etk_fb_add_ref(fb, ETK_PTE_PROGRAM_CONSTANT_SEGMENT, cseg);
  etk_fb_ref_t root = etk_fb_table_end(fb);
  return etk_fb_finish(fb, root, ETK_PTE_IDENTIFIER, ETK_FB_NO_SIZE_PREFIX, out,
                       out_len);
}

static size_t estimate(const etk_program_builder_t *b) {
  size_t n = 4096;
  for (size_t i = 0; i < b->methods.count; i++) {
    const b_method_t *m = &b->methods.items[i];
    n += strlen(m->name) + 64;
    for (size_t k = 0; k < m->values.count; k++)
      n += 160 + m->values.items[k].count * 8 +
           (m->values.items[k].str ? strlen(m->values.items[k].str) : 0);
    for (size_t k = 0; k < m->instrs.count; k++)
      n += 64 + m->instrs.items[k].count * 4;
    for (size_t k = 0; k < m->ops.count; k++)
      n += 32 + strlen(m->ops.items[k].name) + strlen(m->ops.items[k].overload);
    for (size_t k = 0; k < m->delegates.count; k++) {
      const b_delegate_t *d = &m->delegates.items[k];
      n += 96 + strlen(d->id);
      for (uint32_t s = 0; s < d->spec_count; s++)
        n += 48 + strlen(d->spec_keys[s]) + d->spec_lens[s];
    }
    n += m->input_count * 4 + m->output_count * 4;
  }
  for (size_t k = 0; k < b->constants.count; k++)
    n += b->constants.items[k].len + 64;
  for (size_t k = 0; k < b->payloads.count; k++)
    n += b->payloads.items[k].len + 64;
  return n;
}

int etk_program_builder_finish(etk_program_builder_t *b, uint8_t **out,
                               size_t *out_len, etk_error_t *err) {
  if (!b || !out || !out_len)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  *out_len = 0;
  for (size_t i = 0; i < b->methods.count && b->status == ETK_OK; i++) {
    b_method_t *m = &b->methods.items[i];
    check_method(b, m);
    for (size_t k = 0; k < m->values.count && b->status == ETK_OK; k++)
      if (m->values.items[k].tag == ETK_PTE_KT_TENSOR &&
          m->values.items[k].t.placement == ETK_BUILDER_PLANNED &&
          m->values.items[k].t.memory_id >= 64)
        fail(b, ETK_E_LIMIT, "memory ids above 63 are not supported");
  }
  if (b->status != ETK_OK)
    return etk_error_set(err, b->status, ETK_NO_OFFSET, "%s",
                         b->message[0] ? b->message : etk_strerror(b->status));

  /* Segment plan: [constants][payloads...], each at segment_alignment. */
  emit_t e;
  memset(&e, 0, sizeof e);
  e.b = b;
  e.const_segment = -1;
  size_t nseg_max = 1 + b->payloads.count;
  e.const_offsets = calloc(b->constants.count + 1, sizeof *e.const_offsets);
  e.payload_segment = calloc(b->payloads.count + 1, sizeof *e.payload_segment);
  e.seg_offsets = calloc(nseg_max, sizeof *e.seg_offsets);
  e.seg_sizes = calloc(nseg_max, sizeof *e.seg_sizes);
  int rc = ETK_OK;
  if (!e.const_offsets || !e.payload_segment || !e.seg_offsets || !e.seg_sizes)
    rc = ETK_E_NO_MEMORY;
  uint64_t sa = b->opt.segment_alignment, ca = b->opt.constant_alignment;
  uint64_t cursor = 0;
  if (rc == ETK_OK && !b->opt.inline_constants && b->constants.count) {
    uint64_t off = 0;
    for (size_t k = 0; k < b->constants.count; k++) {
      off = (off + ca - 1) & ~(ca - 1);
      e.const_offsets[k] = off;
      off += b->constants.items[k].len;
    }
    e.const_segment = (int)e.seg_count;
    e.seg_offsets[e.seg_count] = 0;
    e.seg_sizes[e.seg_count] = off;
    e.seg_count++;
    cursor = off;
  }
  for (size_t k = 0; rc == ETK_OK && k < b->payloads.count; k++) {
    e.payload_segment[k] = -1;
    if (!b->opt.delegates_in_segments) continue;
    cursor = (cursor + sa - 1) & ~(sa - 1);
    e.payload_segment[k] = (int32_t)e.seg_count;
    e.seg_offsets[e.seg_count] = cursor;
    e.seg_sizes[e.seg_count] = b->payloads.items[k].len;
    e.seg_count++;
    cursor += b->payloads.items[k].len;
  }
  e.seg_total = cursor;

  uint8_t *mem = NULL;
  const uint8_t *flat = NULL;
  size_t flat_len = 0;
  for (size_t cap = estimate(b); rc == ETK_OK; cap *= 2) {
    free(mem);
    mem = malloc(cap);
    if (!mem || cap > ((size_t)1 << 31)) {
      rc = ETK_E_NO_MEMORY;
      break;
    }
    rc = build_flatbuffer(&e, mem, cap, &flat, &flat_len);
    if (rc != ETK_E_NO_MEMORY) break;
    rc = ETK_OK;
  }
  if (rc == ETK_OK) {
    bool header = e.seg_total > 0 || b->opt.force_extended_header;
    size_t hlen = header ? 32 : 0;
    uint64_t program_size = flat_len + hlen;
    uint64_t base =
        header && e.seg_count ? (program_size + sa - 1) & ~(sa - 1) : 0;
    uint64_t total = e.seg_count ? base + e.seg_total : program_size;
    uint8_t *file = calloc(1, (size_t)total ? (size_t)total : 1);
    if (!file) {
      rc = ETK_E_NO_MEMORY;
    } else {
      memcpy(file, flat, 8);
      if (header) {
        uint32_t root = etk_fb_load_u32(flat) + (uint32_t)hlen;
        for (int k = 0; k < 4; k++) file[k] = (uint8_t)(root >> (8 * k));
        uint8_t *h = file + 8;
        memcpy(h, "eh00", 4);
        uint64_t fields[3] = {program_size, base, e.seg_total};
        h[4] = (uint8_t)hlen;
        for (int f = 0; f < 3; f++)
          for (int k = 0; k < 8; k++)
            h[8 + 8 * f + k] = (uint8_t)(fields[f] >> (8 * k));
      }
      memcpy(file + 8 + hlen, flat + 8, flat_len - 8);
      for (size_t k = 0; e.const_segment >= 0 && k < b->constants.count; k++)
        if (b->constants.items[k].len)
          memcpy(
              file + base + e.seg_offsets[e.const_segment] + e.const_offsets[k],
              b->constants.items[k].data, b->constants.items[k].len);
      for (size_t k = 0; k < b->payloads.count; k++)
        if (e.payload_segment[k] >= 0 && b->payloads.items[k].len)
          memcpy(file + base + e.seg_offsets[e.payload_segment[k]],
                 b->payloads.items[k].data, b->payloads.items[k].len);
      *out = file;
      *out_len = (size_t)total;
    }
  }
  free(mem);
  free(e.const_offsets);
  free(e.payload_segment);
  free(e.seg_offsets);
  free(e.seg_sizes);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "cannot serialise the program: %s", etk_strerror(rc));
  return ETK_OK;
}
