/*
 * pickle.c - a restricted, bounds-checked unpickler: enough of Python's
 * pickle virtual machine (protocols 2 to 5) to decode what torch.save puts
 * in data.pkl, and nothing that could run code.
 *
 * The VM.  Like CPython's _pickle, the machine has a value stack, a stack
 * of marks (the index of the value stack at each MARK; opcodes only see
 * the values above the innermost mark) and a memo (index -> value).  Each
 * opcode is decoded with explicit bounds checks (`need()` before every
 * read); text opcodes read one line of at most 256 bytes.  Values are
 * nodes in the archive's arena; containers keep malloc'd item arrays that
 * grow by doubling (their pointers are re-published in the public value
 * after every growth).
 *
 * What it refuses.  Every global except the allow-list of kGlobals (and
 * REDUCE of anything but _rebuild_tensor_v2 and OrderedDict()), and the
 * opcodes that build arbitrary objects or need an environment: NEWOBJ,
 * NEWOBJ_EX, BUILD, INST, OBJ, the EXT registry, sets, out-of-band
 * buffers, bytearrays, text PERSID and protocol-0 quoted strings.  Each
 * refusal is one error naming the opcode (or the global) and its offset.
 *
 * Invariants that keep the result a finite tree-like graph:
 *   - a container is "frozen" once it becomes an item of another container
 *     (tuple, list, dict key/value, REDUCE arguments, persistent id), and a
 *     frozen container is never modified again.  An acyclic pickle never
 *     needs that (Python's pickler writes a container's items before the
 *     container is used elsewhere), while every cycle needs it: the edge
 *     that closes a cycle adds X into C where C is already inside X;
 *   - a node's height (1 + the tallest item) is exact because only
 *     unfrozen nodes (which have no parent yet) grow, and it is checked
 *     against limits.max_depth, so consumers may recurse;
 *   - dict keys must be hashable (no list/dict inside), and after STOP
 *     every dict is checked for duplicate keys (Python equality: 1, 1.0
 *     and True are one key), by sorting its keys.
 * Counts: every node, stack slot and memo slot is charged against
 * limits.max_objects, so memory is bounded by the input and the limits.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torch_internal.h"

/* ------------------------------------------------------------- dtypes */

typedef struct dtype_info {
  const char *storage; /* torch.<storage> class name */
  int32_t code;        /* c10 ScalarType */
  size_t size;
  const char *name; /* numpy-style name, NULL = recognised but refused */
} dtype_info_t;

static const dtype_info_t kDtypes[] = {
    {"ByteStorage", 0, 1, "uint8"},
    {"CharStorage", 1, 1, "int8"},
    {"ShortStorage", 2, 2, "int16"},
    {"IntStorage", 3, 4, "int32"},
    {"LongStorage", 4, 8, "int64"},
    {"HalfStorage", 5, 2, "float16"},
    {"FloatStorage", 6, 4, "float32"},
    {"DoubleStorage", 7, 8, "float64"},
    {"ComplexHalfStorage", 8, 4, NULL},
    {"ComplexFloatStorage", 9, 8, NULL},
    {"ComplexDoubleStorage", 10, 16, NULL},
    {"BoolStorage", 11, 1, "bool"},
    {"QInt8Storage", 12, 1, NULL},
    {"QUInt8Storage", 13, 1, NULL},
    {"QInt32Storage", 14, 4, NULL},
    {"BFloat16Storage", 15, 2, "bfloat16"},
    {"QUInt4x2Storage", 16, 1, NULL},
    {"QUInt2x4Storage", 17, 1, NULL},
};
#define DTYPE_COUNT (sizeof kDtypes / sizeof kDtypes[0])
#define UNTYPED_STORAGE DTYPE_COUNT /* pseudo index: bytes (uint8) */

static const char *const kComplexNames[] = {"complex32", "complex64",
                                            "complex128"};

const char *etk_torch_dtype_name(int32_t dtype) {
  for (size_t i = 0; i < DTYPE_COUNT; i++)
    if (kDtypes[i].code == dtype) return kDtypes[i].name;
  return NULL;
}

size_t etk_torch_dtype_size(int32_t dtype) {
  for (size_t i = 0; i < DTYPE_COUNT; i++)
    if (kDtypes[i].code == dtype && kDtypes[i].name) return kDtypes[i].size;
  return 0;
}

const char *tk_storage_class(int32_t dtype) {
  for (size_t i = 0; i < DTYPE_COUNT; i++)
    if (kDtypes[i].code == dtype && kDtypes[i].name) return kDtypes[i].storage;
  return NULL;
}

void etk_pickle_limits_default(etk_pickle_limits_t *limits) {
  limits->max_depth = 100;
  limits->max_objects = (uint64_t)4 << 20;
  limits->max_pickle_bytes = (uint64_t)256 << 20;
  limits->max_string_bytes = (uint64_t)64 << 20;
  limits->max_dims = 64;
  limits->max_entries = 1u << 20;
  limits->max_storage_bytes = (uint64_t)4 << 30;
  limits->max_total_bytes = (uint64_t)16 << 30;
  limits->max_compression_ratio = 100;
}

const char *etk_pickle_kind_name(etk_pickle_kind_t kind) {
  switch (kind) {
    case ETK_PICKLE_NONE:
      return "NoneType";
    case ETK_PICKLE_BOOL:
      return "bool";
    case ETK_PICKLE_INT:
      return "int";
    case ETK_PICKLE_FLOAT:
      return "float";
    case ETK_PICKLE_STR:
      return "str";
    case ETK_PICKLE_BYTES:
      return "bytes";
    case ETK_PICKLE_TUPLE:
      return "tuple";
    case ETK_PICKLE_LIST:
      return "list";
    case ETK_PICKLE_DICT:
      return "dict";
    case ETK_PICKLE_TENSOR:
      return "Tensor";
    case ETK_PICKLE_STORAGE:
      return "Storage";
    case ETK_PICKLE_GLOBAL:
      return "type";
  }
  return "?";
}

/* ------------------------------------------------------------- globals */

typedef enum tk_global {
  G_NONE = 0,
  G_REBUILD_TENSOR_V2,
  G_ORDERED_DICT,
  G_STORAGE /* + dtype index (UNTYPED_STORAGE for UntypedStorage) */
} tk_global_t;

static int global_lookup(const char *module, const char *name) {
  if (strcmp(module, "torch._utils") == 0 &&
      strcmp(name, "_rebuild_tensor_v2") == 0)
    return G_REBUILD_TENSOR_V2;
  if (strcmp(module, "collections") == 0 && strcmp(name, "OrderedDict") == 0)
    return G_ORDERED_DICT;
  if ((strcmp(module, "torch") == 0 || strcmp(module, "torch.storage") == 0) &&
      strcmp(name, "UntypedStorage") == 0)
    return G_STORAGE + (int)UNTYPED_STORAGE;
  if (strcmp(module, "torch") == 0)
    for (size_t i = 0; i < DTYPE_COUNT; i++)
      if (strcmp(name, kDtypes[i].storage) == 0) return G_STORAGE + (int)i;
  return G_NONE;
}

/* ------------------------------------------------------------- the VM */

typedef struct vm {
  etk_torch_archive_t *a;
  const uint8_t *p;
  size_t len, pos, op_pos;
  const char *where;
  etk_error_t *err;
  tk_storage_fn load;
  tk_node_t **stack;
  size_t sp, stack_cap;
  size_t *marks;
  size_t mark_count, mark_cap;
  tk_node_t **memo;
  size_t memo_cap, memo_len;
  uint64_t objects; /* nodes + stack + marks + memo, see limits */
  uint32_t max_depth;
  int rc; /* first failure (also when err is NULL) */
} vm_t;

static int fail(vm_t *vm, int code, const char *fmt, ...) ETK_PRINTF_LIKE(3, 4);
static int fail(vm_t *vm, int code, const char *fmt, ...) {
  if (vm->rc == ETK_OK) vm->rc = code;
  va_list ap;
  va_start(ap, fmt);
  etk_error_vset(vm->err, code, vm->op_pos, vm->where, fmt, ap);
  va_end(ap);
  return code;
}

static int no_memory(vm_t *vm) {
  return fail(vm, ETK_E_NO_MEMORY, "out of memory while unpickling");
}

/* Copies text for an error message, printable ASCII only. */
static const char *printable(const char *s, size_t n, char *out, size_t cap) {
  size_t k = 0, i = 0;
  for (; i < n && k + 4 < cap; i++) {
    unsigned char c = (unsigned char)s[i];
    out[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  if (i < n) {
    memcpy(out + k, "...", 3);
    k += 3;
  }
  out[k] = 0;
  return out;
}

static const char *opcode_name(uint8_t op) {
  switch (op) {
    case 0x81:
      return "NEWOBJ";
    case 0x92:
      return "NEWOBJ_EX";
    case 'b':
      return "BUILD";
    case 'i':
      return "INST";
    case 'o':
      return "OBJ";
    case 0x82:
      return "EXT1";
    case 0x83:
      return "EXT2";
    case 0x84:
      return "EXT4";
    case 0x8f:
      return "EMPTY_SET";
    case 0x90:
      return "ADDITEMS";
    case 0x91:
      return "FROZENSET";
    case 0x96:
      return "BYTEARRAY8";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    case 'P':
      return "PERSID";
    case 'S':
      return "STRING";
    case 'V':
      return "UNICODE";
    default:
      return NULL;
  }
}

static int charge(vm_t *vm, uint64_t n) {
  if (n > vm->a->limits.max_objects - vm->objects)
    return fail(vm, ETK_E_LIMIT,
                "more than %llu objects (values, stack and memo entries)",
                (unsigned long long)vm->a->limits.max_objects);
  vm->objects += n;
  return ETK_OK;
}

static int need(vm_t *vm, uint64_t n) {
  if (n > vm->len - vm->pos)
    return fail(vm, ETK_E_TRUNCATED,
                "pickle ends inside an opcode (%llu more bytes needed, %zu "
                "left)",
                (unsigned long long)n, vm->len - vm->pos);
  return ETK_OK;
}

static uint64_t read_le(const uint8_t *p, size_t n) {
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

/* Consumes the next `width` bytes as a little-endian unsigned integer. */
static int take_le(vm_t *vm, size_t width, uint64_t *u) {
  int rc = need(vm, width);
  if (rc) return rc;
  *u = read_le(vm->p + vm->pos, width);
  vm->pos += width;
  return ETK_OK;
}

/* One text line (without '\n'), at most 256 bytes. */
static int read_line(vm_t *vm, const char **line, size_t *n) {
  size_t start = vm->pos;
  size_t max = vm->len - start < 257 ? vm->len - start : 257;
  const uint8_t *nl = memchr(vm->p + start, '\n', max);
  if (!nl) {
    if (max == 257)
      return fail(vm, ETK_E_LIMIT, "text argument longer than 256 bytes");
    return fail(vm, ETK_E_TRUNCATED, "pickle ends inside a text argument");
  }
  *line = (const char *)vm->p + start;
  *n = (size_t)(nl - (vm->p + start));
  vm->pos = start + *n + 1;
  return ETK_OK;
}

static tk_node_t *new_node(vm_t *vm, etk_pickle_kind_t kind) {
  etk_torch_archive_t *a = vm->a;
  if (charge(vm, 1) != ETK_OK) return NULL;
  if (!ETK_VEC_RESERVE(a->nodes, a->node_cap, a->node_count + 1)) {
    no_memory(vm);
    return NULL;
  }
  tk_node_t *n = etr_arena_calloc(&a->arena, 1, sizeof *n);
  if (!n) {
    no_memory(vm);
    return NULL;
  }
  n->pub.kind = kind;
  n->height = 1;
  n->offset = vm->op_pos;
  a->nodes[a->node_count++] = n;
  return n;
}

static int push(vm_t *vm, tk_node_t *n) {
  if (!n) return vm->rc ? vm->rc : ETK_E_NO_MEMORY;
  if (vm->sp == vm->stack_cap) {
    size_t cap = vm->stack_cap ? vm->stack_cap * 2 : 64;
    if (charge(vm, cap - vm->stack_cap) != ETK_OK) return ETK_E_LIMIT;
    if (!ETK_VEC_RESERVE(vm->stack, vm->stack_cap, cap)) return no_memory(vm);
  }
  vm->stack[vm->sp++] = n;
  return ETK_OK;
}

static size_t stack_base(const vm_t *vm) {
  return vm->mark_count ? vm->marks[vm->mark_count - 1] : 0;
}

static tk_node_t *pop(vm_t *vm) {
  if (vm->sp <= stack_base(vm)) {
    fail(vm, ETK_E_FORMAT, "unpickling stack underflow");
    return NULL;
  }
  return vm->stack[--vm->sp];
}

static tk_node_t *top(vm_t *vm) {
  if (vm->sp <= stack_base(vm)) {
    fail(vm, ETK_E_FORMAT, "unpickling stack underflow");
    return NULL;
  }
  return vm->stack[vm->sp - 1];
}

/* The values above a popped mark (NULL when the stack was never used:
 * no arithmetic on a NULL pointer). */
static tk_node_t **marked(vm_t *vm, size_t first) {
  return vm->stack ? vm->stack + first : NULL;
}

/* Pops up to the innermost mark: the values are stack[*first .. sp). */
static int pop_mark(vm_t *vm, size_t *first, size_t *count) {
  if (vm->mark_count == 0)
    return fail(vm, ETK_E_FORMAT, "no MARK before this opcode");
  *first = vm->marks[--vm->mark_count];
  *count = vm->sp - *first;
  vm->sp = *first;
  return ETK_OK;
}

static bool is_mutable(const tk_node_t *n) {
  return n->pub.kind == ETK_PICKLE_LIST || n->pub.kind == ETK_PICKLE_DICT;
}

static int grow_items(vm_t *vm, tk_node_t *c, size_t extra) {
  if (extra > SIZE_MAX - c->pub.count) return no_memory(vm);
  /* items and (for a dict) values grow together; c->cap is the smaller */
  size_t items_cap = c->cap, values_cap = c->cap;
  if (!ETK_VEC_RESERVE(c->items, items_cap, c->pub.count + extra))
    return no_memory(vm);
  if (c->pub.kind == ETK_PICKLE_DICT &&
      !ETK_VEC_RESERVE(c->values, values_cap, items_cap))
    return no_memory(vm);
  c->cap = items_cap;
  c->pub.items = c->items;
  c->pub.values = c->values;
  return ETK_OK;
}

/* Makes `item` a child of `c`: freezes it and raises c's height. */
static int adopt(vm_t *vm, tk_node_t *c, tk_node_t *item) {
  if (item == c)
    return fail(vm, ETK_E_FORMAT,
                "a %s contains itself (recursive structures are refused)",
                etk_pickle_kind_name(c->pub.kind));
  if (is_mutable(item)) item->frozen = true;
  if (item->height + 1 > c->height) c->height = item->height + 1;
  if (c->height > vm->max_depth)
    return fail(vm, ETK_E_TOO_DEEP, "values nested deeper than %u levels",
                vm->max_depth);
  return ETK_OK;
}

static int check_unfrozen(vm_t *vm, tk_node_t *c, etk_pickle_kind_t want,
                          const char *op) {
  if (c->pub.kind != want)
    return fail(vm, ETK_E_FORMAT, "%s on a %s (a %s is needed)", op,
                etk_pickle_kind_name(c->pub.kind), etk_pickle_kind_name(want));
  if (c->frozen)
    return fail(vm, ETK_E_FORMAT,
                "%s changes a %s that is already inside another container "
                "(recursive structures are refused)",
                op, etk_pickle_kind_name(want));
  return ETK_OK;
}

/* Python hashability: lists and dicts (also inside tuples) are not. */
static bool hashable(const etk_pickle_value_t *v) {
  if (v->kind == ETK_PICKLE_LIST || v->kind == ETK_PICKLE_DICT) return false;
  if (v->kind == ETK_PICKLE_TUPLE)
    for (size_t i = 0; i < v->count; i++)
      if (!hashable(v->items[i])) return false;
  return true;
}

static int append_items(vm_t *vm, tk_node_t *list, tk_node_t **items,
                        size_t n) {
  int rc = check_unfrozen(vm, list, ETK_PICKLE_LIST, "APPEND");
  if (rc == ETK_OK) rc = grow_items(vm, list, n);
  for (size_t i = 0; i < n && rc == ETK_OK; i++) {
    rc = adopt(vm, list, items[i]);
    if (rc == ETK_OK) list->items[list->pub.count++] = &items[i]->pub;
  }
  return rc;
}

static int set_items(vm_t *vm, tk_node_t *dict, tk_node_t **kv, size_t n) {
  if (n % 2)
    return fail(vm, ETK_E_FORMAT, "odd number of values for dict items");
  int rc = check_unfrozen(vm, dict, ETK_PICKLE_DICT, "SETITEM");
  if (rc == ETK_OK) rc = grow_items(vm, dict, n / 2);
  for (size_t i = 0; i < n && rc == ETK_OK; i += 2) {
    if (!hashable(&kv[i]->pub))
      return fail(vm, ETK_E_FORMAT, "unhashable dict key of type %s",
                  etk_pickle_kind_name(kv[i]->pub.kind));
    rc = adopt(vm, dict, kv[i]);
    if (rc == ETK_OK) rc = adopt(vm, dict, kv[i + 1]);
    if (rc == ETK_OK) {
      dict->items[dict->pub.count] = &kv[i]->pub;
      dict->values[dict->pub.count++] = &kv[i + 1]->pub;
    }
  }
  return rc;
}

static tk_node_t *new_tuple(vm_t *vm, tk_node_t **items, size_t n) {
  tk_node_t *t = new_node(vm, ETK_PICKLE_TUPLE);
  if (!t || grow_items(vm, t, n) != ETK_OK) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (adopt(vm, t, items[i]) != ETK_OK) return NULL;
    t->items[t->pub.count++] = &items[i]->pub;
  }
  return t;
}

static tk_node_t *new_int(vm_t *vm, int64_t v) {
  tk_node_t *n = new_node(vm, ETK_PICKLE_INT);
  if (n) n->pub.i = v;
  return n;
}

static tk_node_t *new_text(vm_t *vm, etk_pickle_kind_t kind, const uint8_t *s,
                           uint64_t n) {
  if (n > vm->a->limits.max_string_bytes) {
    fail(vm, ETK_E_LIMIT, "a %s of %llu bytes (limit %llu)",
         etk_pickle_kind_name(kind), (unsigned long long)n,
         (unsigned long long)vm->a->limits.max_string_bytes);
    return NULL;
  }
  if (kind == ETK_PICKLE_STR && etk_utf8_check((const char *)s, n) != n) {
    fail(vm, ETK_E_BAD_UTF8, "str is not valid UTF-8 (byte %llu)",
         (unsigned long long)etk_utf8_check((const char *)s, n));
    return NULL;
  }
  tk_node_t *node = new_node(vm, kind);
  if (!node) return NULL;
  node->pub.str = etr_arena_strndup(&vm->a->arena, (const char *)s, n);
  node->pub.len = n;
  if (!node->pub.str) {
    no_memory(vm);
    return NULL;
  }
  return node;
}

/* Little-endian two's complement of n bytes (LONG1/LONG4) into int64. */
static int decode_long(vm_t *vm, const uint8_t *b, uint64_t n, int64_t *out) {
  if (n == 0) {
    *out = 0;
    return ETK_OK;
  }
  bool negative = (b[n - 1] & 0x80) != 0;
  for (uint64_t i = 8; i < n; i++)
    if (b[i] != (negative ? 0xFF : 0x00))
      return fail(vm, ETK_E_LIMIT, "integer does not fit in 64 bits");
  size_t k = n < 8 ? (size_t)n : 8;
  uint64_t v = read_le(b, k);
  if (k < 8 && negative) v |= ~(uint64_t)0 << (8 * k);
  if (n > 8 && negative != ((v >> 63) != 0))
    return fail(vm, ETK_E_LIMIT, "integer does not fit in 64 bits");
  memcpy(out, &v, sizeof v);
  return ETK_OK;
}

/* Decimal text (INT, LONG, memo indices): [+-]digits, int64 range. */
static bool parse_decimal(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  bool negative = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  if (i == n) return false;
  uint64_t v = 0, limit = negative ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = negative ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

static int memo_put(vm_t *vm, uint64_t index) {
  tk_node_t *n = top(vm);
  if (!n) return ETK_E_FORMAT;
  if (index >= vm->a->limits.max_objects)
    return fail(vm, ETK_E_LIMIT, "memo index %llu beyond the object limit",
                (unsigned long long)index);
  if (index >= vm->memo_cap) {
    size_t cap = vm->memo_cap ? vm->memo_cap : 64;
    while (cap <= index) cap *= 2;
    if (charge(vm, cap - vm->memo_cap) != ETK_OK) return ETK_E_LIMIT;
    size_t old = vm->memo_cap;
    if (!ETK_VEC_RESERVE(vm->memo, vm->memo_cap, cap)) return no_memory(vm);
    memset(vm->memo + old, 0, (vm->memo_cap - old) * sizeof *vm->memo);
  }
  if (!vm->memo[index]) vm->memo_len++;
  vm->memo[index] = n;
  return ETK_OK;
}

static int memo_get(vm_t *vm, uint64_t index) {
  if (index >= vm->memo_cap || !vm->memo[index])
    return fail(vm, ETK_E_FORMAT, "memo entry %llu is not defined",
                (unsigned long long)index);
  return push(vm, vm->memo[index]);
}

static int op_global(vm_t *vm, const char *module, size_t mlen,
                     const char *name, size_t nlen) {
  char m[260], n[260];
  if (mlen >= sizeof m || nlen >= sizeof n)
    return fail(vm, ETK_E_LIMIT, "global name longer than 256 bytes");
  memcpy(m, module, mlen);
  m[mlen] = 0;
  memcpy(n, name, nlen);
  n[nlen] = 0;
  int g = (strlen(m) == mlen && strlen(n) == nlen) ? global_lookup(m, n) : 0;
  if (g == G_NONE) {
    char pm[80], pn[80];
    return fail(vm, ETK_E_UNSUPPORTED,
                "global '%s.%s' is not allowed (the restricted unpickler "
                "accepts torch._utils._rebuild_tensor_v2, torch.*Storage and "
                "collections.OrderedDict only)",
                printable(module, mlen, pm, sizeof pm),
                printable(name, nlen, pn, sizeof pn));
  }
  char full[530];
  snprintf(full, sizeof full, "%s.%s", m, n);
  tk_node_t *node =
      new_text(vm, ETK_PICKLE_GLOBAL, (const uint8_t *)full, strlen(full));
  if (!node) return vm->rc;
  node->global = g;
  return push(vm, node);
}

static bool int_of(const tk_node_t *n, int64_t *v) {
  if (n->pub.kind == ETK_PICKLE_INT) {
    *v = n->pub.i;
    return true;
  }
  return false;
}

/* BINPERSID: ("storage", torch.<X>Storage, key, location, numel). */
static int op_persid(vm_t *vm) {
  tk_node_t *pid = pop(vm);
  if (!pid) return ETK_E_FORMAT;
  if (!vm->load)
    return fail(vm, ETK_E_UNSUPPORTED,
                "persistent id in a pickle that is not inside a torch.save "
                "archive");
  const etk_pickle_value_t *const *it = pid->pub.items;
  int64_t numel;
  if (pid->pub.kind != ETK_PICKLE_TUPLE || pid->pub.count != 5 ||
      it[0]->kind != ETK_PICKLE_STR || strcmp(it[0]->str, "storage") != 0 ||
      it[1]->kind != ETK_PICKLE_GLOBAL ||
      ((const tk_node_t *)it[1])->global < G_STORAGE ||
      it[2]->kind != ETK_PICKLE_STR || it[3]->kind != ETK_PICKLE_STR ||
      !int_of((const tk_node_t *)it[4], &numel))
    return fail(vm, ETK_E_FORMAT,
                "persistent id is not (\"storage\", torch.<dtype>Storage, "
                "key, location, numel)");
  size_t di = (size_t)(((const tk_node_t *)it[1])->global - G_STORAGE);
  int32_t dtype = 0;
  size_t esize = 1;
  if (di < DTYPE_COUNT) {
    if (!kDtypes[di].name)
      return fail(vm, ETK_E_UNSUPPORTED, "%s tensors are not supported",
                  kDtypes[di].code >= 8 && kDtypes[di].code <= 10
                      ? kComplexNames[kDtypes[di].code - 8]
                      : "quantized");
    dtype = kDtypes[di].code;
    esize = kDtypes[di].size;
  }
  const char *key = it[2]->str;
  if (!key[0] || strchr(key, '/') || strlen(key) != it[2]->len ||
      strcmp(key, ".") == 0 || strcmp(key, "..") == 0)
    return fail(vm, ETK_E_FORMAT, "storage key is not a file name");
  if (numel < 0 || (uint64_t)numel > vm->a->limits.max_storage_bytes / esize)
    return fail(vm, ETK_E_LIMIT,
                "storage of %lld elements of %zu bytes "
                "(limit %llu bytes)",
                (long long)numel, esize,
                (unsigned long long)vm->a->limits.max_storage_bytes);
  const tk_storage_t *st;
  int rc = vm->load(vm->a, key, (uint64_t)numel * esize, &st, vm->err);
  if (rc != ETK_OK) {
    if (vm->err && vm->err->offset == ETK_NO_OFFSET)
      vm->err->offset = vm->op_pos;
    return rc;
  }
  tk_node_t *node = new_node(vm, ETK_PICKLE_STORAGE);
  etk_torch_tensor_t *t = etr_arena_calloc(&vm->a->arena, 1, sizeof *t);
  int64_t *dims = etr_arena_calloc(&vm->a->arena, 2, sizeof *dims);
  if (!node) return vm->rc;
  if (!t || !dims) return no_memory(vm);
  dims[0] = numel;
  dims[1] = 1;
  t->dtype = dtype;
  t->element_size = esize;
  t->dim = 1;
  t->sizes = &dims[0];
  t->strides = &dims[1];
  t->numel = (uint64_t)numel;
  t->contiguous = true;
  t->storage_key = st->key;
  t->location = it[3]->str;
  t->storage = st->data;
  t->storage_nbytes = (uint64_t)numel * esize;
  node->pub.tensor = t;
  return push(vm, node);
}

static bool empty_dict(const etk_pickle_value_t *v) {
  return v->kind == ETK_PICKLE_DICT && v->count == 0;
}

/* _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
 * backward_hooks[, metadata]). */
static int rebuild_tensor(vm_t *vm, tk_node_t *args) {
  const etk_pickle_value_t *const *it = args->pub.items;
  if (args->pub.count != 6 && args->pub.count != 7)
    return fail(vm, ETK_E_FORMAT,
                "_rebuild_tensor_v2 called with %zu arguments (6 or 7 "
                "expected)",
                args->pub.count);
  if (it[0]->kind != ETK_PICKLE_STORAGE || it[1]->kind != ETK_PICKLE_INT ||
      it[2]->kind != ETK_PICKLE_TUPLE || it[3]->kind != ETK_PICKLE_TUPLE ||
      it[4]->kind != ETK_PICKLE_BOOL)
    return fail(vm, ETK_E_FORMAT,
                "_rebuild_tensor_v2 arguments are not (storage, int, tuple, "
                "tuple, bool, ...)");
  if (!empty_dict(it[5]) || (args->pub.count == 7 && !empty_dict(it[6])))
    return fail(vm, ETK_E_UNSUPPORTED,
                "tensor with backward hooks or Python metadata (only plain "
                "dense tensors are decoded)");
  const etk_pickle_value_t *sizes = it[2], *strides = it[3];
  if (sizes->count != strides->count)
    return fail(vm, ETK_E_FORMAT, "tensor has %zu sizes but %zu strides",
                sizes->count, strides->count);
  if (sizes->count > vm->a->limits.max_dims)
    return fail(vm, ETK_E_LIMIT, "tensor with %zu dimensions (limit %u)",
                sizes->count, vm->a->limits.max_dims);
  const etk_torch_tensor_t *st = it[0]->tensor;
  size_t dim = sizes->count;
  etk_torch_tensor_t *t = etr_arena_calloc(&vm->a->arena, 1, sizeof *t);
  int64_t *dims = etr_arena_calloc(&vm->a->arena, 2 * dim + 1, sizeof *dims);
  if (!t || !dims) return no_memory(vm);
  *t = *st;
  t->dim = (uint32_t)dim;
  t->sizes = dim ? dims : NULL;
  t->strides = dim ? dims + dim : NULL;
  t->storage_offset = it[1]->i;
  t->requires_grad = it[4]->b;
  if (t->storage_offset < 0)
    return fail(vm, ETK_E_FORMAT, "negative storage offset %lld",
                (long long)t->storage_offset);
  uint64_t numel = 1, last = (uint64_t)t->storage_offset;
  bool overflow = false;
  for (size_t k = 0; k < dim; k++) {
    const etk_pickle_value_t *s = sizes->items[k], *d = strides->items[k];
    if (s->kind != ETK_PICKLE_INT || d->kind != ETK_PICKLE_INT || s->i < 0 ||
        d->i < 0)
      return fail(vm, ETK_E_FORMAT,
                  "tensor size or stride %zu is not a non-negative int", k);
    dims[k] = s->i;
    dims[dim + k] = d->i;
    if (s->i == 0)
      numel = 0;
    else if (numel && numel > UINT64_MAX / (uint64_t)s->i)
      overflow = true;
    else
      numel *= (uint64_t)s->i;
    if (s->i > 0 && d->i > 0) {
      uint64_t reach = (uint64_t)(s->i - 1);
      if (reach > UINT64_MAX / (uint64_t)d->i ||
          reach * (uint64_t)d->i > UINT64_MAX - last)
        overflow = true;
      else
        last += reach * (uint64_t)d->i;
    }
  }
  if (overflow && numel)
    return fail(vm, ETK_E_OVERFLOW, "tensor sizes and strides overflow");
  t->numel = numel;
  /* stride-0 views may claim more elements than their storage holds:
   * bound the work of every consumer that walks them */
  if (numel > vm->a->limits.max_storage_bytes / st->element_size)
    return fail(vm, ETK_E_LIMIT,
                "tensor view of %llu elements (limit %llu "
                "bytes)",
                (unsigned long long)numel,
                (unsigned long long)vm->a->limits.max_storage_bytes);
  /* every element of a non-empty tensor must be inside the storage */
  uint64_t storage_numel = st->storage_nbytes / st->element_size;
  if (numel && last >= storage_numel)
    return fail(vm, ETK_E_FORMAT,
                "tensor reaches element %llu of storage '%s', which has %llu",
                (unsigned long long)last, st->storage_key,
                (unsigned long long)storage_numel);
  bool contiguous = true;
  uint64_t expected = 1;
  for (size_t k = dim; k-- > 0 && numel;) {
    if (dims[k] == 1) continue;
    if ((uint64_t)dims[dim + k] != expected) contiguous = false;
    expected *= (uint64_t)dims[k];
  }
  t->contiguous = contiguous;
  tk_node_t *node = new_node(vm, ETK_PICKLE_TENSOR);
  if (node) node->pub.tensor = t;
  return push(vm, node);
}

static int op_reduce(vm_t *vm) {
  tk_node_t *args = pop(vm);
  tk_node_t *fn = args ? pop(vm) : NULL;
  if (!fn) return ETK_E_FORMAT;
  if (fn->pub.kind != ETK_PICKLE_GLOBAL)
    return fail(vm, ETK_E_FORMAT, "REDUCE calls a %s",
                etk_pickle_kind_name(fn->pub.kind));
  if (args->pub.kind != ETK_PICKLE_TUPLE)
    return fail(vm, ETK_E_FORMAT, "REDUCE arguments are a %s, not a tuple",
                etk_pickle_kind_name(args->pub.kind));
  if (fn->global == G_REBUILD_TENSOR_V2) return rebuild_tensor(vm, args);
  if (fn->global == G_ORDERED_DICT) {
    if (args->pub.count != 0)
      return fail(vm, ETK_E_UNSUPPORTED,
                  "collections.OrderedDict called with arguments");
    tk_node_t *d = new_node(vm, ETK_PICKLE_DICT);
    if (d) d->pub.ordered = true;
    return push(vm, d);
  }
  return fail(vm, ETK_E_UNSUPPORTED, "%s cannot be called", fn->pub.str);
}

/* ------------------------------------------------ duplicate dict keys */

static int num_class(const etk_pickle_value_t *v) {
  switch (v->kind) {
    case ETK_PICKLE_BOOL:
    case ETK_PICKLE_INT:
    case ETK_PICKLE_FLOAT:
      return 0;
    case ETK_PICKLE_STR:
      return 1;
    case ETK_PICKLE_BYTES:
      return 2;
    case ETK_PICKLE_NONE:
      return 3;
    case ETK_PICKLE_TUPLE:
      return 4;
    default:
      return 5; /* compared by identity */
  }
}

/* Exact comparison of an integer with a double (NaN sorts last). */
static int cmp_int_double(int64_t i, double f) {
  if (f != f) return -1;
  if (f >= 9223372036854775808.0) return -1;
  if (f < -9223372036854775808.0) return 1;
  int64_t ti = (int64_t)f; /* in range: truncates toward zero */
  double t = (double)ti;
  if (i != ti) return i < ti ? -1 : 1;
  double frac = f - t;
  return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

static int cmp_key(const etk_pickle_value_t *a, const etk_pickle_value_t *b);

static int cmp_key(const etk_pickle_value_t *a, const etk_pickle_value_t *b) {
  int ca = num_class(a), cb = num_class(b);
  if (ca != cb) return ca < cb ? -1 : 1;
  switch (ca) {
    case 0: {
      bool fa = a->kind == ETK_PICKLE_FLOAT, fb = b->kind == ETK_PICKLE_FLOAT;
      int64_t ia = a->kind == ETK_PICKLE_BOOL ? a->b : a->i;
      int64_t ib = b->kind == ETK_PICKLE_BOOL ? b->b : b->i;
      if (fa && fb) {
        bool na = a->f != a->f, nb = b->f != b->f;
        if (na || nb) { /* NaNs sort last, distinct unless the same node */
          if (na && nb) return a == b ? 0 : (a < b ? -1 : 1);
          return na ? 1 : -1;
        }
        return a->f < b->f ? -1 : a->f > b->f ? 1 : 0;
      }
      if (fa) return -cmp_int_double(ib, a->f);
      if (fb) return cmp_int_double(ia, b->f);
      return ia < ib ? -1 : ia > ib ? 1 : 0;
    }
    case 1:
    case 2: {
      size_t n = a->len < b->len ? a->len : b->len;
      int c = n ? memcmp(a->str, b->str, n) : 0;
      if (c) return c < 0 ? -1 : 1;
      return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
    }
    case 3:
      return 0;
    case 4: {
      size_t n = a->count < b->count ? a->count : b->count;
      for (size_t i = 0; i < n; i++) {
        int c = cmp_key(a->items[i], b->items[i]);
        if (c) return c;
      }
      return a->count < b->count ? -1 : a->count > b->count ? 1 : 0;
    }
    default:
      if (a->kind == ETK_PICKLE_GLOBAL && b->kind == ETK_PICKLE_GLOBAL)
        return strcmp(a->str, b->str);
      return a == b ? 0 : (a < b ? -1 : 1);
  }
}

static int qsort_key(const void *x, const void *y) {
  return cmp_key(*(const etk_pickle_value_t *const *)x,
                 *(const etk_pickle_value_t *const *)y);
}

static int check_duplicate_keys(vm_t *vm) {
  etk_torch_archive_t *a = vm->a;
  const etk_pickle_value_t **keys = NULL;
  size_t cap = 0;
  int rc = ETK_OK;
  for (size_t i = 0; i < a->node_count && rc == ETK_OK; i++) {
    const tk_node_t *d = a->nodes[i];
    if (d->pub.kind != ETK_PICKLE_DICT || d->pub.count < 2) continue;
    if (!ETK_VEC_RESERVE(keys, cap, d->pub.count)) {
      rc = no_memory(vm);
      break;
    }
    memcpy(keys, d->items, d->pub.count * sizeof *keys);
    qsort(keys, d->pub.count, sizeof *keys, qsort_key);
    for (size_t k = 1; k < d->pub.count; k++)
      if (cmp_key(keys[k - 1], keys[k]) == 0) {
        vm->op_pos = (size_t)d->offset;
        char text[80] = "";
        if (keys[k]->kind == ETK_PICKLE_STR)
          printable(keys[k]->str, keys[k]->len, text, 60);
        rc = fail(vm, ETK_E_FORMAT,
                  "dict has the key %s%s%s twice (Python's pickler never "
                  "writes that)",
                  text[0] ? "'" : "", text[0] ? text : "of the same value",
                  text[0] ? "'" : "");
        break;
      }
  }
  free(keys);
  return rc;
}

/* ------------------------------------------------------------- driver */

/* Opcodes of framing and the stack: PROTO, FRAME, STOP, MARK, POP,
 * POP_MARK, DUP. */
static int op_frame(vm_t *vm, uint8_t op, bool *stop) {
  int rc;
  uint64_t u;
  (void)op;
  switch (op) {
    case 0x80: /* PROTO */
      if ((rc = need(vm, 1))) return rc;
      if (vm->p[vm->pos] > 5)
        return fail(vm, ETK_E_UNSUPPORTED, "pickle protocol %u (at most 5)",
                    vm->p[vm->pos]);
      vm->pos++;
      return ETK_OK;
    case 0x95: /* FRAME */
      if ((rc = take_le(vm, 8, &u))) return rc;
      return need(vm, u);
    case '.': { /* STOP */
      tk_node_t *root = pop(vm);
      if (!root) return ETK_E_FORMAT;
      vm->a->root = &root->pub;
      *stop = true;
      return ETK_OK;
    }
    case '(': /* MARK */
      if (vm->mark_count == vm->mark_cap) {
        size_t cap = vm->mark_cap ? vm->mark_cap * 2 : 16;
        if ((rc = charge(vm, cap - vm->mark_cap))) return rc;
        if (!ETK_VEC_RESERVE(vm->marks, vm->mark_cap, cap))
          return no_memory(vm);
      }
      vm->marks[vm->mark_count++] = vm->sp;
      return ETK_OK;
    case '0': /* POP */
      if (vm->sp > stack_base(vm)) {
        vm->sp--;
        return ETK_OK;
      }
      /* Python: POP of an empty frame discards the mark */
      if (vm->mark_count == 0) return pop(vm) ? ETK_OK : ETK_E_FORMAT;
      vm->mark_count--;
      return ETK_OK;
    case '1': { /* POP_MARK: the values above the mark are dropped */
      size_t first = 0, count = 0;
      return pop_mark(vm, &first, &count);
    }
    case '2': { /* DUP */
      tk_node_t *t = top(vm);
      return t ? push(vm, t) : ETK_E_FORMAT;
    }
    default:
      return fail(vm, ETK_E_INTERNAL, "opcode 0x%02x misrouted", op);
  }
}

/* Opcodes of None, bools, ints and floats. */
static int op_number(vm_t *vm, uint8_t op) {
  const char *line = NULL;
  size_t n = 0;
  int rc;
  uint64_t u;
  switch (op) {
    case 'N':
      return push(vm, new_node(vm, ETK_PICKLE_NONE));
    case 0x88:   /* NEWTRUE */
    case 0x89: { /* NEWFALSE */
      tk_node_t *t = new_node(vm, ETK_PICKLE_BOOL);
      if (t) t->pub.b = op == 0x88;
      return push(vm, t);
    }
    case 'I':   /* INT (text; "00"/"01" are bools) */
    case 'L': { /* LONG (text, optional trailing L) */
      if ((rc = read_line(vm, &line, &n))) return rc;
      if (op == 'I' && n == 2 && line[0] == '0' &&
          (line[1] == '0' || line[1] == '1')) {
        tk_node_t *t = new_node(vm, ETK_PICKLE_BOOL);
        if (t) t->pub.b = line[1] == '1';
        return push(vm, t);
      }
      if (op == 'L' && n && line[n - 1] == 'L') n--;
      int64_t v = 0;
      if (!parse_decimal(line, n, &v))
        return fail(vm, ETK_E_FORMAT, "INT/LONG text is not a 64-bit integer");
      return push(vm, new_int(vm, v));
    }
    case 'J': /* BININT */
      if ((rc = take_le(vm, 4, &u))) return rc;
      return push(vm, new_int(vm, (int64_t)(int32_t)(uint32_t)u));
    case 'K': /* BININT1 */
      if ((rc = need(vm, 1))) return rc;
      return push(vm, new_int(vm, vm->p[vm->pos++]));
    case 'M': /* BININT2 */
      if ((rc = take_le(vm, 2, &u))) return rc;
      return push(vm, new_int(vm, (int64_t)u));
    case 0x8a:   /* LONG1 */
    case 0x8b: { /* LONG4 */
      size_t w = op == 0x8a ? 1 : 4;
      if ((rc = take_le(vm, w, &u))) return rc;
      if (op == 0x8b && (u & 0x80000000u))
        return fail(vm, ETK_E_FORMAT, "LONG4 with a negative byte count");
      if ((rc = need(vm, u))) return rc;
      int64_t v = 0;
      if ((rc = decode_long(vm, vm->p + vm->pos, u, &v))) return rc;
      vm->pos += u;
      return push(vm, new_int(vm, v));
    }
    case 'F': { /* FLOAT (text) */
      if ((rc = read_line(vm, &line, &n))) return rc;
      char buf[260], *end;
      memcpy(buf, line, n);
      buf[n] = 0;
      double v = strtod(buf, &end);
      if (n == 0 || *end)
        return fail(vm, ETK_E_FORMAT, "FLOAT text is not a number");
      tk_node_t *t = new_node(vm, ETK_PICKLE_FLOAT);
      if (t) t->pub.f = v;
      return push(vm, t);
    }
    case 'G': { /* BINFLOAT: big-endian IEEE double */
      if ((rc = need(vm, 8))) return rc;
      uint64_t bits = 0;
      for (int k = 0; k < 8; k++) bits = (bits << 8) | vm->p[vm->pos + k];
      vm->pos += 8;
      tk_node_t *t = new_node(vm, ETK_PICKLE_FLOAT);
      if (t) memcpy(&t->pub.f, &bits, sizeof bits);
      return push(vm, t);
    }
    default:
      return fail(vm, ETK_E_INTERNAL, "opcode 0x%02x misrouted", op);
  }
}

/* Opcodes of str and bytes (and Python 2 strings, which must be ASCII). */
static int op_text(vm_t *vm, uint8_t op) {
  const uint8_t *b;
  int rc;
  uint64_t u;
  switch (op) {
    case 'X':   /* BINUNICODE */
    case 0x8c:  /* SHORT_BINUNICODE */
    case 0x8d:  /* BINUNICODE8 */
    case 'B':   /* BINBYTES */
    case 'C':   /* SHORT_BINBYTES */
    case 0x8e:  /* BINBYTES8 */
    case 'T':   /* BINSTRING (Python 2 str, decoded as ASCII) */
    case 'U': { /* SHORT_BINSTRING */
      size_t w = (op == 0x8c || op == 'C' || op == 'U') ? 1
                 : (op == 0x8d || op == 0x8e)           ? 8
                                                        : 4;
      if ((rc = take_le(vm, w, &u))) return rc;
      if (op == 'T' && (u & 0x80000000u))
        return fail(vm, ETK_E_FORMAT, "BINSTRING with a negative length");
      if ((rc = need(vm, u))) return rc;
      b = vm->p + vm->pos;
      etk_pickle_kind_t kind = (op == 'B' || op == 'C' || op == 0x8e)
                                   ? ETK_PICKLE_BYTES
                                   : ETK_PICKLE_STR;
      if (op == 'T' || op == 'U')
        for (uint64_t k = 0; k < u; k++)
          if (b[k] >= 0x80)
            return fail(vm, ETK_E_BAD_UTF8,
                        "Python 2 string is not ASCII (byte %llu)",
                        (unsigned long long)k);
      tk_node_t *t = new_text(vm, kind, b, u);
      vm->pos += u;
      return push(vm, t);
    }
    default:
      return fail(vm, ETK_E_INTERNAL, "opcode 0x%02x misrouted", op);
  }
}

/* Opcodes of tuples, lists and dicts, and filling them. */
static int op_container(vm_t *vm, uint8_t op) {
  int rc;
  switch (op) {
    case ')':
      return push(vm, new_tuple(vm, NULL, 0));
    case 0x85:   /* TUPLE1 */
    case 0x86:   /* TUPLE2 */
    case 0x87: { /* TUPLE3 */
      size_t k = (size_t)(op - 0x84);
      if (vm->sp - stack_base(vm) < k)
        return fail(vm, ETK_E_FORMAT, "unpickling stack underflow");
      vm->sp -= k;
      tk_node_t *items[3];
      memcpy(items, vm->stack + vm->sp, k * sizeof *items);
      return push(vm, new_tuple(vm, items, k));
    }
    case 't': { /* TUPLE */
      size_t first = 0, count = 0;
      if ((rc = pop_mark(vm, &first, &count))) return rc;
      return push(vm, new_tuple(vm, marked(vm, first), count));
    }
    case ']':
      return push(vm, new_node(vm, ETK_PICKLE_LIST));
    case '}':
      return push(vm, new_node(vm, ETK_PICKLE_DICT));
    case 'l':   /* LIST */
    case 'd': { /* DICT */
      size_t first = 0, count = 0;
      if ((rc = pop_mark(vm, &first, &count))) return rc;
      tk_node_t *c =
          new_node(vm, op == 'l' ? ETK_PICKLE_LIST : ETK_PICKLE_DICT);
      if (!c) return vm->rc;
      /* items stay valid: nothing is pushed before they are adopted */
      rc = op == 'l' ? append_items(vm, c, marked(vm, first), count)
                     : set_items(vm, c, marked(vm, first), count);
      return rc ? rc : push(vm, c);
    }
    case 'a': { /* APPEND */
      tk_node_t *v = pop(vm), *list = v ? top(vm) : NULL;
      return list ? append_items(vm, list, &v, 1) : ETK_E_FORMAT;
    }
    case 's': { /* SETITEM */
      tk_node_t *kv[2];
      kv[1] = pop(vm);
      kv[0] = kv[1] ? pop(vm) : NULL;
      tk_node_t *dict = kv[0] ? top(vm) : NULL;
      return dict ? set_items(vm, dict, kv, 2) : ETK_E_FORMAT;
    }
    case 'e':   /* APPENDS */
    case 'u': { /* SETITEMS */
      size_t first = 0, count = 0;
      if ((rc = pop_mark(vm, &first, &count))) return rc;
      tk_node_t *c = top(vm);
      if (!c) return ETK_E_FORMAT;
      return op == 'e' ? append_items(vm, c, marked(vm, first), count)
                       : set_items(vm, c, marked(vm, first), count);
    }
    default:
      return fail(vm, ETK_E_INTERNAL, "opcode 0x%02x misrouted", op);
  }
}

/* The memo index of GET/PUT (a decimal text line), BINGET/BINPUT (one
 * byte) or LONG_BINGET/LONG_BINPUT (four bytes). */
static int memo_index(vm_t *vm, uint8_t op, uint64_t *index) {
  if (op == 'h' || op == 'q') return take_le(vm, 1, index);
  if (op == 'j' || op == 'r') return take_le(vm, 4, index);
  const char *line;
  size_t n = 0;
  int rc = read_line(vm, &line, &n);
  if (rc) return rc;
  int64_t v = 0;
  if (!parse_decimal(line, n, &v) || v < 0)
    return fail(vm, ETK_E_FORMAT, "memo index is not a number");
  *index = (uint64_t)v;
  return ETK_OK;
}

/* Opcodes of the memo: GET, PUT and their binary forms, MEMOIZE. */
static int op_memo(vm_t *vm, uint8_t op) {
  uint64_t index;
  int rc;
  switch (op) {
    case 'g': /* GET (text) */
    case 'h': /* BINGET */
    case 'j': /* LONG_BINGET */
      if ((rc = memo_index(vm, op, &index))) return rc;
      return memo_get(vm, index);
    case 'p': /* PUT (text) */
    case 'q': /* BINPUT */
    case 'r': /* LONG_BINPUT */
      if ((rc = memo_index(vm, op, &index))) return rc;
      return memo_put(vm, index);
    case 0x94: /* MEMOIZE */
      return memo_put(vm, vm->memo_len);
    default:
      return fail(vm, ETK_E_INTERNAL, "opcode 0x%02x misrouted", op);
  }
}

/* One opcode at vm->pos; *stop at STOP. */
static int step(vm_t *vm, bool *stop) {
  vm->op_pos = vm->pos;
  uint8_t op = vm->p[vm->pos++];
  const char *line = NULL;
  size_t n = 0;
  int rc;
  switch (op) {
    case 0x80:
    case 0x95:
    case '.':
    case '(':
    case '0':
    case '1':
    case '2':
      return op_frame(vm, op, stop);
    case 'N':
    case 0x88:
    case 0x89:
    case 'I':
    case 'L':
    case 'J':
    case 'K':
    case 'M':
    case 0x8a:
    case 0x8b:
    case 'F':
    case 'G':
      return op_number(vm, op);
    case 'X':
    case 0x8c:
    case 0x8d:
    case 'B':
    case 'C':
    case 0x8e:
    case 'T':
    case 'U':
      return op_text(vm, op);
    case ')':
    case 0x85:
    case 0x86:
    case 0x87:
    case 't':
    case ']':
    case '}':
    case 'l':
    case 'd':
    case 'a':
    case 'e':
    case 's':
    case 'u':
      return op_container(vm, op);
    case 'g':
    case 'p':
    case 'h':
    case 'q':
    case 'j':
    case 'r':
    case 0x94:
      return op_memo(vm, op);
    case 'c': { /* GLOBAL: "module\nname\n" */
      const char *module = NULL;
      size_t mlen = 0;
      if ((rc = read_line(vm, &module, &mlen))) return rc;
      if ((rc = read_line(vm, &line, &n))) return rc;
      return op_global(vm, module, mlen, line, n);
    }
    case 0x93: { /* STACK_GLOBAL */
      tk_node_t *name = pop(vm), *module = name ? pop(vm) : NULL;
      if (!module) return ETK_E_FORMAT;
      if (name->pub.kind != ETK_PICKLE_STR ||
          module->pub.kind != ETK_PICKLE_STR)
        return fail(vm, ETK_E_FORMAT, "STACK_GLOBAL needs two str values");
      return op_global(vm, module->pub.str, module->pub.len, name->pub.str,
                       name->pub.len);
    }
    case 'R':
      return op_reduce(vm);
    case 'Q':
      return op_persid(vm);
    default: {
      const char *name = opcode_name(op);
      if (name)
        return fail(vm, ETK_E_UNSUPPORTED,
                    "opcode 0x%02x (%s) is not supported by the restricted "
                    "unpickler",
                    op, name);
      return fail(vm, ETK_E_FORMAT, "invalid pickle opcode 0x%02x", op);
    }
  }
}

int tk_unpickle(etk_torch_archive_t *a, const uint8_t *data, size_t len,
                tk_storage_fn load, const char *where, etk_error_t *err) {
  vm_t vm;
  memset(&vm, 0, sizeof vm);
  vm.a = a;
  vm.p = data;
  vm.len = len;
  vm.where = where ? where : "pickle";
  vm.err = err;
  vm.load = load;
  vm.max_depth = a->limits.max_depth > 1000 ? 1000 : a->limits.max_depth;
  if (vm.max_depth == 0) vm.max_depth = 1;
  int rc = ETK_OK;
  bool stop = false;
  if (len > a->limits.max_pickle_bytes)
    rc = fail(&vm, ETK_E_LIMIT, "pickle of %zu bytes (limit %llu)", len,
              (unsigned long long)a->limits.max_pickle_bytes);
  else if (len == 0)
    rc = fail(&vm, ETK_E_TRUNCATED, "empty pickle");
  while (rc == ETK_OK && !stop) {
    if (vm.pos >= vm.len) {
      vm.op_pos = vm.pos;
      rc = fail(&vm, ETK_E_TRUNCATED, "pickle ends without STOP");
      break;
    }
    rc = step(&vm, &stop);
  }
  if (rc == ETK_OK) {
    vm.op_pos = vm.pos ? vm.pos - 1 : 0;
    rc = check_duplicate_keys(&vm);
  }
  if (rc != ETK_OK) {
    a->root = NULL;
    if (err && err->code == ETK_OK) { /* a callee failed without a message */
      etk_error_set(err, rc, vm.op_pos, "%s", etk_strerror(rc));
      etk_error_where(err, vm.where);
    }
  }
  free(vm.stack);
  free(vm.marks);
  free(vm.memo);
  return rc;
}

/* ------------------------------------------------------- value helpers */

const etk_pickle_value_t *etk_pickle_dict_get(const etk_pickle_value_t *dict,
                                              const char *key) {
  if (!dict || !key || dict->kind != ETK_PICKLE_DICT) return NULL;
  size_t n = strlen(key);
  for (size_t i = 0; i < dict->count; i++) {
    const etk_pickle_value_t *k = dict->items[i];
    if (k->kind == ETK_PICKLE_STR && k->len == n && memcmp(k->str, key, n) == 0)
      return dict->values[i];
  }
  return NULL;
}

int etk_torch_tensor_copy(const etk_torch_tensor_t *t, void *out,
                          uint64_t out_len) {
  if (!t || (!out && t->numel) || t->element_size == 0)
    return ETK_E_INVALID_ARGUMENT;
  if (t->numel > out_len / t->element_size) return ETK_E_INVALID_ARGUMENT;
  size_t es = t->element_size;
  uint8_t *dst = out;
  if (t->numel == 0) return ETK_OK;
  if (t->contiguous) {
    memcpy(dst, t->storage + (uint64_t)t->storage_offset * es, t->numel * es);
    return ETK_OK;
  }
  int64_t *idx = calloc(t->dim ? t->dim : 1, sizeof *idx);
  if (!idx) return ETK_E_NO_MEMORY;
  uint64_t at = (uint64_t)t->storage_offset;
  for (uint64_t n = 0; n < t->numel; n++) {
    memcpy(dst + n * es, t->storage + at * es, es);
    for (uint32_t k = t->dim; k-- > 0;) { /* odometer, last dim fastest */
      if (++idx[k] < t->sizes[k]) {
        at += (uint64_t)t->strides[k];
        break;
      }
      at -= (uint64_t)(t->sizes[k] - 1) * (uint64_t)t->strides[k];
      idx[k] = 0;
    }
  }
  free(idx);
  return ETK_OK;
}
