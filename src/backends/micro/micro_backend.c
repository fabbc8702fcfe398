/*
 * micro_backend.c - "EtkitMicroBackend", etkit's own delegate backend: its
 * payload is a tiny serialised sub-graph that it runs with the portable
 * kernels, reporting one delegate profiling event per op and the ops'
 * outputs as delegate intermediate outputs.  It exists to exercise (and
 * demonstrate) the whole delegate path: payload at init, DelegateCall at
 * execute, delegate debug ids (integer or string) with metadata bytes.
 *
 * PAYLOAD (little-endian; docs/runtime.md has the same table)
 *   "EMB1"  u16 value_count  u16 op_count  u32 scratch_bytes
 *   value_count values, each a u8 kind then:
 *     0 ARG       u16 index into the DelegateCall's args
 *     1 TENSOR    i8 scalar_type, u8 dim, u32 scratch offset (16-aligned),
 *                 i32 sizes[dim]   (contiguous; lives in scratch memory)
 *     2 INT       i64          3 DOUBLE  f64          4 BOOL  u8
 *     5 NULL                   6 INT_LIST u16 n, u16 items[n] (Int values)
 *   op_count ops, each:
 *     u8 name_len, name ("aten::relu.out")
 *     u8 id_kind: 0 = i32 integer debug id, 1 = u8 len + string debug id
 *     u16 metadata_len, metadata bytes
 *     u8 nargs, u16 args[nargs] (value indices), u8 output_count
 *
 * The payload is untrusted: init parses it with bounds checks on every
 * read, checks indices, dtypes, ranks and scratch ranges, and resolves
 * every kernel, before anything runs.  memory_size() runs the same parser
 * in counting mode, so the two always agree.
 *
 * MEMORY (all from the method arena, given at init)
 *   [handle][values][tensors][int-list items + scratch][ops][arg pointers]
 *   [names][scratch]
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "etkit/backend_micro.h"

#define MAGIC "EMB1"
#define MAX_VALUES 4096u
#define MAX_OPS 4096u
#define ALIGN16(n) (((n) + 15u) & ~(size_t)15u)

enum { V_ARG = 0, V_TENSOR, V_INT, V_DOUBLE, V_BOOL, V_NULL, V_INT_LIST };

typedef struct micro_op {
  etk_kernel_fn fn;
  const char *name;       /* kernel name, NUL-terminated copy */
  const char *debug_name; /* string id or NULL */
  int32_t debug_id;       /* integer id when debug_name is NULL */
  const uint8_t *metadata;
  uint16_t metadata_len;
  etk_value_t **args;
  uint8_t nargs, output_count;
} micro_op_t;

typedef struct micro_graph_rt {
  etk_value_t *values;
  uint16_t value_count, op_count;
  uint16_t *arg_of; /* delegate arg index of ARG values, 0xFFFF otherwise */
  micro_op_t *ops;
  etk_kernel_context_t kctx;
} micro_graph_rt_t;

/* ---------------------------------------------------------------- reader */

typedef struct cursor {
  const uint8_t *p;
  size_t len, pos;
  int bad;
} cursor_t;

static const uint8_t *take(cursor_t *c, size_t n) {
  if (c->bad || n > c->len - c->pos) {
    c->bad = 1;
    return NULL;
  }
  const uint8_t *r = c->p + c->pos;
  c->pos += n;
  return r;
}
static uint8_t rd8(cursor_t *c) {
  const uint8_t *p = take(c, 1);
  return p ? p[0] : 0;
}
static uint16_t rd16(cursor_t *c) {
  const uint8_t *p = take(c, 2);
  return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}
static uint32_t rd32(cursor_t *c) {
  const uint8_t *p = take(c, 4);
  return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24
           : 0;
}
static uint64_t rd64(cursor_t *c) {
  uint64_t lo = rd32(c);
  return lo | (uint64_t)rd32(c) << 32;
}

/* Counts of one payload, from the counting pass. */
typedef struct counts {
  uint16_t values, ops;
  uint32_t scratch;
  size_t list_items, args, names;
} counts_t;

/* Memory the parse needs for `n` (must match carve order in parse). */
static size_t layout_bytes(const counts_t *n) {
  return ALIGN16(sizeof(micro_graph_rt_t)) +
         ALIGN16(n->values * sizeof(etk_value_t)) +
         ALIGN16(n->values * sizeof(etk_tensor_t)) +
         ALIGN16(n->values * sizeof(uint16_t)) +
         ALIGN16(n->list_items * 2 * sizeof(int64_t)) +
         ALIGN16(n->ops * sizeof(micro_op_t)) +
         ALIGN16(n->args * sizeof(etk_value_t *)) + ALIGN16(n->names) +
         ALIGN16(n->scratch);
}

/* The state of one parse: the cursor, the counts (counting pass) or the
 * graph and the carved memory it fills (building pass), and where the
 * error message goes. */
typedef struct parser {
  cursor_t c;
  counts_t *n;
  micro_graph_rt_t *g; /* NULL in the counting pass */
  etk_tensor_t *tensors;
  int64_t *list_mem;
  etk_value_t **argp;
  char *names;
  uint8_t *scratch_mem;
  uint32_t scratch;
  uint16_t nv, no;
  uint8_t kinds[MAX_VALUES];
  char *msg;
  size_t msg_size;
} parser_t;

static int bad(parser_t *ps, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int bad(parser_t *ps, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ps->msg, ps->msg_size, fmt, ap);
  va_end(ap);
  return ETK_E_FORMAT;
}

/* Magic, value and op counts, scratch size. */
static int parse_header(parser_t *ps) {
  const uint8_t *magic = take(&ps->c, 4);
  if (!magic || memcmp(magic, MAGIC, 4) != 0)
    return bad(ps, "payload does not start with \"" MAGIC "\"");
  ps->nv = rd16(&ps->c);
  ps->no = rd16(&ps->c);
  ps->scratch = rd32(&ps->c);
  if (ps->c.bad) return bad(ps, "payload header truncated");
  if (ps->nv > MAX_VALUES || ps->no > MAX_OPS)
    return bad(ps, "too many values or ops");
  if (ps->scratch > (1u << 30))
    return bad(ps, "scratch of %u bytes is too large", ps->scratch);
  return ETK_OK;
}

/* Carves `mem` in layout_bytes() order (building pass), or starts the
 * counts (counting pass). */
static void carve(parser_t *ps, void *mem) {
  counts_t *n = ps->n;
  if (!mem) {
    memset(n, 0, sizeof *n);
    n->values = ps->nv;
    n->ops = ps->no;
    n->scratch = ps->scratch;
    return;
  }
  uint8_t *cur = mem;
  micro_graph_rt_t *g = (micro_graph_rt_t *)(void *)cur;
  cur += ALIGN16(sizeof *g);
  g->values = (etk_value_t *)(void *)cur;
  cur += ALIGN16(n->values * sizeof(etk_value_t));
  ps->tensors = (etk_tensor_t *)(void *)cur;
  cur += ALIGN16(n->values * sizeof(etk_tensor_t));
  g->arg_of = (uint16_t *)(void *)cur;
  cur += ALIGN16(n->values * sizeof(uint16_t));
  ps->list_mem = (int64_t *)(void *)cur;
  cur += ALIGN16(n->list_items * 2 * sizeof(int64_t));
  g->ops = (micro_op_t *)(void *)cur;
  cur += ALIGN16(n->ops * sizeof(micro_op_t));
  ps->argp = (etk_value_t **)(void *)cur;
  cur += ALIGN16(n->args * sizeof(etk_value_t *));
  ps->names = (char *)cur;
  cur += ALIGN16(n->names);
  ps->scratch_mem = cur;
  g->value_count = ps->nv;
  g->op_count = ps->no;
  ps->g = g;
}

/* A TENSOR value: dtype, rank, scratch offset, sizes; it must fit the
 * scratch. */
static int parse_tensor(parser_t *ps, uint16_t i, etk_value_t *v) {
  cursor_t *c = &ps->c;
  int8_t st = (int8_t)rd8(c);
  uint8_t dim = rd8(c);
  uint32_t off = rd32(c);
  if (c->bad) return bad(ps, "value %u truncated", i);
  size_t elem = etk_scalar_type_size(st);
  if (elem == 0) return bad(ps, "value %u: unknown scalar type %d", i, st);
  if (dim > ETK_MAX_DIMS)
    return bad(ps, "value %u: rank %u exceeds %d", i, dim, ETK_MAX_DIMS);
  if (off % 16)
    return bad(ps, "value %u: scratch offset %u is not 16-aligned", i, off);
  uint64_t bytes = elem;
  int32_t sizes[ETK_MAX_DIMS];
  for (uint8_t d = 0; d < dim; d++) {
    sizes[d] = (int32_t)rd32(c);
    if (sizes[d] < 0) return bad(ps, "value %u: negative size", i);
    bytes *= (uint64_t)sizes[d];
    if (bytes > ps->scratch) break;
  }
  if (c->bad) return bad(ps, "value %u truncated", i);
  if (off > ps->scratch || bytes > ps->scratch - off)
    return bad(ps,
               "value %u: tensor of %llu bytes at %u exceeds the %u-byte "
               "scratch",
               i, (unsigned long long)bytes, off, ps->scratch);
  if (ps->g) {
    etk_tensor_t *t = &ps->tensors[i];
    t->scalar_type = st;
    t->dim = dim;
    for (uint8_t d = 0; d < dim; d++) {
      t->sizes[d] = sizes[d];
      t->dim_order[d] = d;
    }
    etk_tensor_update_strides(t);
    t->data = ps->scratch_mem + off;
    t->capacity_bytes = (size_t)bytes;
    v->tag = ETK_VALUE_TENSOR;
    v->u.tensor = t;
  }
  return ETK_OK;
}

/* An INT_LIST value: items refer to earlier Int values. */
static int parse_int_list(parser_t *ps, uint16_t i, etk_value_t *v) {
  cursor_t *c = &ps->c;
  uint16_t cnt = rd16(c);
  int64_t *items = ps->list_mem;
  for (uint16_t k = 0; k < cnt; k++) {
    uint16_t item = rd16(c);
    if (!c->bad && (item >= i || ps->kinds[item] != V_INT))
      return bad(ps, "value %u: int list item %u must refer to an earlier Int",
                 i, k);
    if (ps->g) items[k] = item;
  }
  if (ps->g) {
    v->tag = ETK_VALUE_INT_LIST;
    v->u.int_list.items = items;
    v->u.int_list.count = cnt;
    v->u.int_list.scratch = items + cnt;
    ps->list_mem += 2 * (size_t)cnt;
  } else {
    ps->n->list_items += cnt;
  }
  return ETK_OK;
}

/* Value i: its kind byte, then the kind's fields. */
static int parse_value(parser_t *ps, uint16_t i) {
  cursor_t *c = &ps->c;
  micro_graph_rt_t *g = ps->g;
  uint8_t kind = rd8(c);
  ps->kinds[i] = kind;
  etk_value_t *v = g ? &g->values[i] : NULL;
  if (g) g->arg_of[i] = 0xFFFF;
  int rc = ETK_OK;
  switch (kind) {
    case V_ARG: {
      uint16_t a = rd16(c);
      if (g) {
        g->arg_of[i] = a;
        v->tag = ETK_VALUE_NONE; /* bound at execute */
      }
    } break;
    case V_TENSOR:
      rc = parse_tensor(ps, i, v);
      break;
    case V_INT: {
      int64_t x = (int64_t)rd64(c);
      if (g) {
        v->tag = ETK_VALUE_INT;
        v->u.i = x;
      }
    } break;
    case V_DOUBLE: {
      uint64_t bits = rd64(c);
      if (g) {
        v->tag = ETK_VALUE_DOUBLE;
        memcpy(&v->u.d, &bits, sizeof bits);
      }
    } break;
    case V_BOOL: {
      uint8_t b = rd8(c);
      if (g) {
        v->tag = ETK_VALUE_BOOL;
        v->u.b = b != 0;
      }
    } break;
    case V_NULL:
      if (g) v->tag = ETK_VALUE_NULL;
      break;
    case V_INT_LIST:
      rc = parse_int_list(ps, i, v);
      break;
    default:
      return bad(ps, "value %u: unknown kind %u", i, kind);
  }
  if (rc != ETK_OK) return rc;
  if (c->bad) return bad(ps, "value %u truncated", i);
  return ETK_OK;
}

/* Op o: kernel name, debug id (integer or string), metadata, argument
 * value indices, output count.  The kernel must exist. */
static int parse_op(parser_t *ps, uint16_t o) {
  cursor_t *c = &ps->c;
  uint8_t name_len = rd8(c);
  const uint8_t *name = take(c, name_len);
  uint8_t id_kind = rd8(c);
  int32_t id = -1;
  const uint8_t *dname = NULL;
  uint8_t dlen = 0;
  if (id_kind == 0) {
    id = (int32_t)rd32(c);
    if (!c->bad && id < 0) return bad(ps, "op %u: negative debug id", o);
  } else if (id_kind == 1) {
    dlen = rd8(c);
    dname = take(c, dlen);
  } else if (!c->bad) {
    return bad(ps, "op %u: unknown debug id kind %u", o, id_kind);
  }
  uint16_t mlen = rd16(c);
  const uint8_t *meta = take(c, mlen);
  uint8_t nargs = rd8(c);
  const uint8_t *args = take(c, 2u * nargs);
  uint8_t nout = rd8(c);
  if (c->bad) return bad(ps, "op %u truncated", o);
  if (name_len == 0) return bad(ps, "op %u has no kernel name", o);
  if (nout > nargs)
    return bad(ps, "op %u: %u outputs but %u args", o, nout, nargs);
  for (uint8_t k = 0; k < nargs; k++) {
    uint16_t a = (uint16_t)(args[2 * k] | args[2 * k + 1] << 8);
    if (a >= ps->nv)
      return bad(ps, "op %u arg %u refers to value %u of %u", o, k, a, ps->nv);
  }
  char kname[256];
  memcpy(kname, name, name_len);
  kname[name_len] = 0;
  const etk_kernel_entry_t *k = etk_kernel_find(kname);
  if (!k) return bad(ps, "op %u: no kernel for '%.100s'", o, kname);
  if (!ps->g) {
    ps->n->args += nargs;
    ps->n->names += (size_t)name_len + 1 + (dname ? (size_t)dlen + 1 : 0);
    return ETK_OK;
  }
  micro_op_t *op = &ps->g->ops[o];
  memcpy(ps->names, name, name_len);
  ps->names[name_len] = 0;
  op->name = ps->names;
  ps->names += name_len + 1;
  op->fn = k->fn;
  if (dname) {
    memcpy(ps->names, dname, dlen);
    ps->names[dlen] = 0;
    op->debug_name = ps->names;
    ps->names += dlen + 1;
  }
  op->debug_id = id;
  op->metadata = meta;
  op->metadata_len = mlen;
  op->nargs = nargs;
  op->output_count = nout;
  op->args = ps->argp;
  for (uint8_t a = 0; a < nargs; a++)
    ps->argp[a] = &ps->g->values[args[2 * a] | args[2 * a + 1] << 8];
  ps->argp += nargs;
  return ETK_OK;
}

/* Parses `payload`.  With mem == NULL only validates and fills *n.  With
 * memory (layout_bytes(n) bytes, zeroed, 16-aligned) builds the graph.
 * Returns ETK_OK or an error with msg filled. */
static int parse(const uint8_t *payload, size_t len, counts_t *n, void *mem,
                 micro_graph_rt_t **out, char *msg, size_t msg_size) {
  parser_t ps;
  memset(&ps, 0, sizeof ps);
  ps.c.p = payload;
  ps.c.len = len;
  ps.n = n;
  ps.msg = msg;
  ps.msg_size = msg_size;
  int rc = parse_header(&ps);
  if (rc != ETK_OK) return rc;
  carve(&ps, mem);
  for (uint16_t i = 0; i < ps.nv && rc == ETK_OK; i++) rc = parse_value(&ps, i);
  for (uint16_t o = 0; o < ps.no && rc == ETK_OK; o++) rc = parse_op(&ps, o);
  if (rc != ETK_OK) return rc;
  if (ps.c.pos != ps.c.len)
    return bad(&ps, "%zu trailing bytes after the last op",
               ps.c.len - ps.c.pos);
  if (ps.g) {
    ps.g->kctx.values = ps.g->values;
    ps.g->kctx.value_count = ps.g->value_count;
  }
  if (out) *out = ps.g;
  return ETK_OK;
}

/* --------------------------------------------------------------- backend */

static size_t micro_memory_size(const uint8_t *payload, size_t len) {
  counts_t n;
  char msg[8];
  if (!payload ||
      parse(payload, len, &n, NULL, NULL, msg, sizeof msg) != ETK_OK)
    return 0;
  return layout_bytes(&n);
}

static int micro_init(etk_backend_init_context_t *ctx, const uint8_t *payload,
                      size_t len, void **handle) {
  counts_t n;
  if (!payload)
    return snprintf(ctx->message, sizeof ctx->message, "empty payload"),
           ETK_E_FORMAT;
  int rc =
      parse(payload, len, &n, NULL, NULL, ctx->message, sizeof ctx->message);
  if (rc != ETK_OK) return rc;
  if (!ctx->memory || ctx->memory_size < layout_bytes(&n)) {
    snprintf(ctx->message, sizeof ctx->message,
             "backend memory of %zu bytes, %zu needed", ctx->memory_size,
             layout_bytes(&n));
    return ETK_E_NO_MEMORY;
  }
  micro_graph_rt_t *g = NULL;
  rc = parse(payload, len, &n, ctx->memory, &g, ctx->message,
             sizeof ctx->message);
  if (rc != ETK_OK) return rc;
  *handle = g;
  return ETK_OK;
}

static int micro_execute(etk_backend_execute_context_t *ctx, void *handle,
                         etk_value_t **args, size_t nargs) {
  micro_graph_rt_t *g = handle;
  for (uint16_t i = 0; i < g->value_count; i++) {
    uint16_t a = g->arg_of[i];
    if (a == 0xFFFF) continue;
    if (a >= nargs) {
      snprintf(ctx->message, sizeof ctx->message,
               "value %u is delegate argument %u, but the call has %zu", i, a,
               nargs);
      return ETK_E_INVALID_ARGUMENT;
    }
    g->values[i] = *args[a];
  }
  /* Tracing is best effort: recorder errors (a NULL recorder included)
   * never fail the call.  The parser guarantees exactly one debug id. */
  etk_recorder_t *rec = ctx->recorder;
  int log_outputs =
      etk_recorder_should_log(rec, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  for (uint16_t o = 0; o < g->op_count; o++) {
    micro_op_t *op = &g->ops[o];
    etk_recorder_scope_t ev =
        etk_recorder_begin_delegate(rec, op->debug_name, op->debug_id);
    g->kctx.message[0] = 0;
    int rc = op->fn(&g->kctx, op->args, op->nargs);
    (void)etk_recorder_end_delegate(rec, &ev, op->metadata, op->metadata_len);
    if (rc != ETK_OK) {
      snprintf(ctx->message, sizeof ctx->message, "op %u (%.40s): %.100s", o,
               op->name,
               g->kctx.message[0] ? g->kctx.message : etk_strerror(rc));
      return rc;
    }
    for (uint8_t k = 0; log_outputs && k < op->output_count; k++)
      (void)etk_backend_log_output(ctx, op->debug_name, op->debug_id,
                                   op->args[op->nargs - op->output_count + k],
                                   g->values, g->value_count);
  }
  return ETK_OK;
}

static const etk_backend_t micro_backend = {
    ETK_MICRO_BACKEND_ID, micro_memory_size, micro_init, micro_execute, NULL};

const etk_backend_t *etk_micro_backend(void) {
  return &micro_backend;
}

/* The runtime's registry knows no backend by name: linking this library in
 * makes EtkitMicroBackend a built-in, registered before main() runs.  With
 * a compiler without constructors, call
 * etk_backend_register_builtin(etk_micro_backend()) at start-up instead. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((constructor)) static void micro_backend_register(void) {
  (void)etk_backend_register_builtin(&micro_backend);
}
#endif

/* --------------------------------------------------------------- builder */

static void put(etk_micro_graph_t *g, const void *p, size_t n) {
  if (g->status != ETK_OK || n == 0) return;
  if (n > g->cap - g->used) {
    g->status = ETK_E_FULL;
    return;
  }
  memcpy(g->buf + g->used, p, n);
  g->used += n;
}
static void put8(etk_micro_graph_t *g, uint8_t v) {
  put(g, &v, 1);
}
static void put16(etk_micro_graph_t *g, uint16_t v) {
  uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  put(g, b, 2);
}
static void put32(etk_micro_graph_t *g, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                  (uint8_t)(v >> 24)};
  put(g, b, 4);
}
static void put64(etk_micro_graph_t *g, uint64_t v) {
  put32(g, (uint32_t)v);
  put32(g, (uint32_t)(v >> 32));
}

/* Ops may only follow all values: the header counts are patched at
 * finish, and values written after an op would be read as ops. */
static int new_value(etk_micro_graph_t *g, uint8_t kind) {
  if (g->status != ETK_OK) return g->status;
  if (g->op_count > 0 || g->value_count >= MAX_VALUES)
    return g->status = ETK_E_INVALID_STATE;
  put8(g, kind);
  return g->status == ETK_OK ? g->value_count++ : g->status;
}

int etk_micro_graph_init(etk_micro_graph_t *g, void *buf, size_t cap) {
  if (!g || !buf || cap < 12) return ETK_E_INVALID_ARGUMENT;
  memset(g, 0, sizeof *g);
  g->buf = buf;
  g->cap = cap;
  put(g, MAGIC, 4);
  put16(g, 0);
  put16(g, 0);
  put32(g, 0);
  return g->status;
}

int etk_micro_graph_arg(etk_micro_graph_t *g, uint16_t delegate_arg) {
  int v = new_value(g, V_ARG);
  put16(g, delegate_arg);
  return g->status == ETK_OK ? v : g->status;
}

int etk_micro_graph_tensor(etk_micro_graph_t *g, int scalar_type, uint32_t dim,
                           const int32_t *sizes) {
  size_t elem = etk_scalar_type_size(scalar_type);
  if (elem == 0 || dim > ETK_MAX_DIMS || (dim && !sizes))
    return g->status = ETK_E_INVALID_ARGUMENT;
  uint64_t bytes = elem;
  for (uint32_t d = 0; d < dim; d++) {
    if (sizes[d] < 0) return g->status = ETK_E_INVALID_ARGUMENT;
    bytes *= (uint64_t)sizes[d];
  }
  uint64_t off = ALIGN16((uint64_t)g->scratch_bytes);
  if (off + bytes > (1u << 30)) return g->status = ETK_E_LIMIT;
  int v = new_value(g, V_TENSOR);
  put8(g, (uint8_t)(int8_t)scalar_type);
  put8(g, (uint8_t)dim);
  put32(g, (uint32_t)off);
  for (uint32_t d = 0; d < dim; d++) put32(g, (uint32_t)sizes[d]);
  if (g->status != ETK_OK) return g->status;
  g->scratch_bytes = (uint32_t)(off + bytes);
  return v;
}

int etk_micro_graph_int(etk_micro_graph_t *g, int64_t x) {
  int v = new_value(g, V_INT);
  put64(g, (uint64_t)x);
  return g->status == ETK_OK ? v : g->status;
}

int etk_micro_graph_double(etk_micro_graph_t *g, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int v = new_value(g, V_DOUBLE);
  put64(g, bits);
  return g->status == ETK_OK ? v : g->status;
}

int etk_micro_graph_bool(etk_micro_graph_t *g, bool x) {
  int v = new_value(g, V_BOOL);
  put8(g, x ? 1 : 0);
  return g->status == ETK_OK ? v : g->status;
}

int etk_micro_graph_null(etk_micro_graph_t *g) {
  return new_value(g, V_NULL);
}

int etk_micro_graph_int_list(etk_micro_graph_t *g, const uint16_t *items,
                             uint16_t count) {
  if (count && !items) return g->status = ETK_E_INVALID_ARGUMENT;
  int v = new_value(g, V_INT_LIST);
  put16(g, count);
  for (uint16_t k = 0; k < count; k++) put16(g, items[k]);
  return g->status == ETK_OK ? v : g->status;
}

int etk_micro_graph_op(etk_micro_graph_t *g, const char *name,
                       const char *debug_name, int32_t debug_id,
                       const void *metadata, uint16_t metadata_len,
                       const uint16_t *args, uint16_t nargs,
                       uint16_t output_count) {
  if (!g) return ETK_E_INVALID_ARGUMENT;
  if (g->status != ETK_OK) return g->status;
  size_t nl = name ? strlen(name) : 0;
  size_t dl = debug_name ? strlen(debug_name) : 0;
  if (nl == 0 || nl > 255 || dl > 255 || nargs > 255 || output_count > nargs ||
      (nargs && !args) || (metadata_len && !metadata) ||
      (!debug_name && debug_id < 0) || g->op_count >= MAX_OPS)
    return g->status = ETK_E_INVALID_ARGUMENT;
  put8(g, (uint8_t)nl);
  put(g, name, nl);
  if (debug_name) {
    put8(g, 1);
    put8(g, (uint8_t)dl);
    put(g, debug_name, dl);
  } else {
    put8(g, 0);
    put32(g, (uint32_t)debug_id);
  }
  put16(g, metadata_len);
  put(g, metadata, metadata_len);
  put8(g, (uint8_t)nargs);
  for (uint16_t k = 0; k < nargs; k++) put16(g, args[k]);
  put8(g, (uint8_t)output_count);
  if (g->status != ETK_OK) return g->status;
  return g->op_count++;
}

int etk_micro_graph_finish(etk_micro_graph_t *g, size_t *len) {
  if (!g) return ETK_E_INVALID_ARGUMENT;
  if (g->status != ETK_OK) return g->status;
  g->buf[4] = (uint8_t)g->value_count;
  g->buf[5] = (uint8_t)(g->value_count >> 8);
  g->buf[6] = (uint8_t)g->op_count;
  g->buf[7] = (uint8_t)(g->op_count >> 8);
  for (int k = 0; k < 4; k++)
    g->buf[8 + k] = (uint8_t)(g->scratch_bytes >> (8 * k));
  if (len) *len = g->used;
  return ETK_OK;
}
