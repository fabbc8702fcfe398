/*
 * torch_writer.c - writing torch.save archives of plain values and dense
 * tensors, so that ETRecords made by etkit can carry reference outputs.
 *
 * The pickle follows what Python's pickler (protocol 2, torch.save's
 * default) emits for the same objects:
 *   - PROTO 2 ... STOP; str as BINUNICODE, float as BINFLOAT, ints as
 *     BININT1/BININT2/BININT or LONG1 with the minimal two's complement;
 *   - containers are memoized (BINPUT, LONG_BINPUT past 255) right after
 *     they are created, tuples after their items, an empty tuple never;
 *     list and dict items in batches of 1000 (APPEND/SETITEM for one
 *     item, MARK ... APPENDS/SETITEMS for more);
 *   - a node reached again is a BINGET of its memo entry; globals and the
 *     strings "storage" and "cpu" are memoized by value, as they are the
 *     same objects in torch's pickler;
 *   - a tensor is REDUCE(_rebuild_tensor_v2, (storage, 0, size, stride,
 *     requires_grad, OrderedDict())) with the storage as a persistent id
 *     ("storage", torch.<Dtype>Storage, "<key>", "cpu", numel); an
 *     OrderedDict is REDUCE(collections.OrderedDict, ()) + SETITEMS.
 * Every tensor gets its own contiguous storage data/<n>, numbered in the
 * order the tensors are written (torch numbers storages the same way, and
 * shares a storage between views, which etkit does not try to do).
 *
 * The ZIP copies torch's writer byte for byte in structure: entries
 * data.pkl, byteorder, data/<n>..., version ("3\n"), .data/serialization_id
 * under "archive/"; local headers with flags 0x0808, zero sizes and an
 * "FB" extra field padding the data to a 64-byte boundary; a data
 * descriptor after each entry; then the central directory, a ZIP64 end
 * record and locator, and the classic end record.  Entries and offsets
 * must stay below 4 GiB (torch switches to ZIP64 fields there; etkit
 * refuses).  The serialization id is derived from the content (torch uses
 * a random one), so the same values give the same bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "torch_internal.h"

/* ------------------------------------------------------------- CRC-32 */

uint32_t tk_crc32(uint32_t crc, const uint8_t *data, size_t len) {
  static uint32_t table[256];
  static int ready;
  if (!ready) { /* idempotent: concurrent first calls write equal values */
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    ready = 1;
  }
  crc = ~crc;
  for (size_t i = 0; i < len; i++)
    crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

/* ------------------------------------------------------------- buffer */

typedef struct wbuf {
  uint8_t *p;
  size_t len, cap;
  bool failed;
} wbuf_t;

static void put(wbuf_t *b, const void *data, size_t n) {
  if (b->failed || n == 0) return;
  if (n > SIZE_MAX - b->len || !ETK_VEC_RESERVE(b->p, b->cap, b->len + n)) {
    b->failed = true;
    return;
  }
  memcpy(b->p + b->len, data, n);
  b->len += n;
}

static void put_byte(wbuf_t *b, uint8_t v) {
  put(b, &v, 1);
}

static void put_le(wbuf_t *b, uint64_t v, size_t n) {
  uint8_t tmp[8];
  for (size_t i = 0; i < n; i++) tmp[i] = (uint8_t)(v >> (8 * i));
  put(b, tmp, n);
}

/* ------------------------------------------------------------- pickler */

/* What the pickler knows of a node it has met, by the node's id in the
 * pickler's `seen` table (keyed by the node's address). */
typedef struct memo_slot {
  uint32_t index; /* memo index, UINT32_MAX before it has one */
  bool open;      /* being written: meeting it again is a cycle */
} memo_slot_t;

typedef struct pickler {
  wbuf_t out;
  etk_hash_t seen;    /* node address -> id */
  memo_slot_t *slots; /* per id */
  size_t slot_cap;
  uint32_t next_memo;
  /* memo entries of values that are one object in torch's pickler */
  char named[24][48];
  uint32_t named_index[24];
  size_t named_count;
  /* tensors in write order: their storages */
  const etk_torch_tensor_t **tensors;
  size_t tensor_count, tensor_cap;
  etk_error_t *err;
  int rc;
} pickler_t;

static int pk_fail(pickler_t *pk, int code, const char *fmt, ...)
    ETK_PRINTF_LIKE(3, 4);
static int pk_fail(pickler_t *pk, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc =
      etk_error_vkeep(&pk->rc, pk->err, code, "torch.save writer", fmt, ap);
  va_end(ap);
  return rc;
}

static memo_slot_t *slot_find(pickler_t *pk, const void *key) {
  uint32_t id = etk_hash_find(&pk->seen, &key, sizeof key);
  return id == ETK_HASH_NONE ? NULL : &pk->slots[id];
}

/* A memo opcode with its index: the one-byte form `short_op` for indices
 * under 256, else `long_op` with a 4-byte little-endian index. */
static void write_memo_op(pickler_t *pk, uint8_t short_op, uint8_t long_op,
                          uint32_t index) {
  if (index < 256) {
    put_byte(&pk->out, short_op);
    put_byte(&pk->out, (uint8_t)index);
  } else {
    put_byte(&pk->out, long_op);
    put_le(&pk->out, index, 4);
  }
}

/* BINPUT / LONG_BINPUT */
static void write_put(pickler_t *pk, uint32_t index) {
  write_memo_op(pk, 'q', 'r', index);
}

/* BINGET / LONG_BINGET */
static void write_get(pickler_t *pk, uint32_t index) {
  write_memo_op(pk, 'h', 'j', index);
}

/* Adds node `key` to the memo table; `open` marks it as being written.
 * With `assign` it takes the next memo index and a PUT is written. */
static memo_slot_t *memo_insert(pickler_t *pk, const void *key, bool open,
                                bool assign) {
  uint32_t id;
  if (!ETK_VEC_RESERVE(pk->slots, pk->slot_cap,
                       etk_hash_count(&pk->seen) + 1) ||
      etk_hash_put(&pk->seen, &key, sizeof key, &id, NULL) != ETK_OK) {
    pk_fail(pk, ETK_E_NO_MEMORY, "out of memory");
    return NULL;
  }
  memo_slot_t *slot = &pk->slots[id];
  slot->index = UINT32_MAX;
  slot->open = open;
  if (assign) {
    slot->index = pk->next_memo;
    write_put(pk, pk->next_memo++);
  }
  return slot;
}

static memo_slot_t *memoize(pickler_t *pk, const void *key, bool open) {
  return memo_insert(pk, key, open, true);
}

static void put_memo_anonymous(pickler_t *pk) {
  write_put(pk, pk->next_memo++);
}

/* A value torch's pickler sees as one object each time (globals, the
 * "storage" and "cpu" literals): the first write memoizes it, later ones
 * fetch it.  Returns true when it was fetched. */
static bool named_get(pickler_t *pk, const char *name) {
  for (size_t i = 0; i < pk->named_count; i++)
    if (strcmp(pk->named[i], name) == 0) {
      write_get(pk, pk->named_index[i]);
      return true;
    }
  return false;
}

static void named_put(pickler_t *pk, const char *name) {
  if (pk->named_count < sizeof pk->named / sizeof pk->named[0] &&
      strlen(name) < sizeof pk->named[0]) {
    snprintf(pk->named[pk->named_count], sizeof pk->named[0], "%s", name);
    pk->named_index[pk->named_count++] = pk->next_memo;
  }
  put_memo_anonymous(pk);
}

static void write_str(pickler_t *pk, const char *s, size_t n) {
  put_byte(&pk->out, 'X');
  put_le(&pk->out, n, 4);
  put(&pk->out, s, n);
}

static void write_const_str(pickler_t *pk, const char *s) {
  char key[48];
  snprintf(key, sizeof key, "str:%s", s);
  if (named_get(pk, key)) return;
  write_str(pk, s, strlen(s));
  named_put(pk, key);
}

static void write_global(pickler_t *pk, const char *module, const char *name) {
  char key[48];
  snprintf(key, sizeof key, "global:%s.%s", module, name);
  if (named_get(pk, key)) return;
  put_byte(&pk->out, 'c');
  put(&pk->out, module, strlen(module));
  put_byte(&pk->out, '\n');
  put(&pk->out, name, strlen(name));
  put_byte(&pk->out, '\n');
  named_put(pk, key);
}

static void write_int(pickler_t *pk, int64_t v) {
  if (v >= 0 && v <= 0xFF) {
    put_byte(&pk->out, 'K');
    put_byte(&pk->out, (uint8_t)v);
  } else if (v >= 0 && v <= 0xFFFF) {
    put_byte(&pk->out, 'M');
    put_le(&pk->out, (uint64_t)v, 2);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    put_byte(&pk->out, 'J');
    put_le(&pk->out, (uint64_t)v, 4);
  } else {
    /* LONG1: Python's encode_long, the shortest two's complement */
    uint8_t bytes[8];
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++) bytes[i] = (uint8_t)(u >> (8 * i));
    size_t n = 8;
    while (n > 1) {
      uint8_t top = bytes[n - 1], next = bytes[n - 2];
      if ((top == 0x00 && !(next & 0x80)) || (top == 0xFF && (next & 0x80)))
        n--;
      else
        break;
    }
    put_byte(&pk->out, 0x8a);
    put_byte(&pk->out, (uint8_t)n);
    put(&pk->out, bytes, n);
  }
}

static void write_float(pickler_t *pk, double f) {
  uint64_t bits;
  memcpy(&bits, &f, sizeof bits);
  put_byte(&pk->out, 'G');
  for (int i = 7; i >= 0; i--) put_byte(&pk->out, (uint8_t)(bits >> (8 * i)));
}

static int save(pickler_t *pk, const etk_pickle_value_t *v, unsigned depth);

static void write_tuple_of_ints(pickler_t *pk, const int64_t *v, size_t n) {
  if (n == 0) {
    put_byte(&pk->out, ')');
    return;
  }
  if (n > 3) put_byte(&pk->out, '(');
  for (size_t i = 0; i < n; i++) write_int(pk, v[i]);
  put_byte(&pk->out, n > 3 ? 't' : (uint8_t)(0x84 + n));
  put_memo_anonymous(pk);
}

static void write_empty_ordered_dict(pickler_t *pk) {
  write_global(pk, "collections", "OrderedDict");
  put_byte(&pk->out, ')');
  put_byte(&pk->out, 'R');
  put_memo_anonymous(pk);
}

int etk_torch_dtype_writable(int32_t dtype) {
  return tk_storage_class(dtype) != NULL;
}

/* Checks a tensor given to the writer; *numel on success. */
static int check_tensor(pickler_t *pk, const etk_torch_tensor_t *t,
                        uint64_t *numel) {
  size_t es = etk_torch_dtype_size(t->dtype);
  if (!es || !tk_storage_class(t->dtype))
    return pk_fail(pk, ETK_E_UNSUPPORTED, "tensor dtype %d cannot be written",
                   (int)t->dtype);
  if (t->dim > 64 || (t->dim && !t->sizes) || t->storage_offset < 0)
    return pk_fail(pk, ETK_E_INVALID_ARGUMENT,
                   "tensor with %u dimensions, sizes %s, offset %lld", t->dim,
                   t->sizes ? "given" : "NULL", (long long)t->storage_offset);
  uint64_t n = 1, last = (uint64_t)t->storage_offset, stride = 1;
  for (uint32_t k = t->dim; k-- > 0;) {
    int64_t s = t->sizes[k];
    int64_t st = t->strides ? t->strides[k] : (int64_t)stride;
    if (s < 0 || st < 0)
      return pk_fail(pk, ETK_E_INVALID_ARGUMENT,
                     "tensor size or stride %u is negative", k);
    if (s == 0) n = 0;
    if (n && (uint64_t)s > UINT64_MAX / n)
      return pk_fail(pk, ETK_E_INVALID_ARGUMENT, "tensor numel overflows");
    if (n) n *= (uint64_t)s;
    if (s > 0) {
      if ((uint64_t)(s - 1) > (UINT64_MAX / 2) / ((uint64_t)st + 1))
        return pk_fail(pk, ETK_E_INVALID_ARGUMENT, "tensor extent overflows");
      last += (uint64_t)(s - 1) * (uint64_t)st;
    }
    if (!t->strides) stride *= (uint64_t)(s ? s : 1);
  }
  if (n && (n > UINT32_MAX * (uint64_t)1024 / es || !t->storage ||
            last >= t->storage_nbytes / es))
    return pk_fail(pk, ETK_E_INVALID_ARGUMENT,
                   "tensor elements leave its storage (%llu bytes)",
                   (unsigned long long)t->storage_nbytes);
  *numel = n;
  return ETK_OK;
}

static int save_tensor(pickler_t *pk, const etk_torch_tensor_t *t) {
  uint64_t numel = 0;
  if (check_tensor(pk, t, &numel) != ETK_OK) return pk->rc;
  if (!ETK_VEC_RESERVE(pk->tensors, pk->tensor_cap, pk->tensor_count + 1))
    return pk_fail(pk, ETK_E_NO_MEMORY, "out of memory");
  size_t key = pk->tensor_count;
  pk->tensors[pk->tensor_count++] = t;
  write_global(pk, "torch._utils", "_rebuild_tensor_v2");
  put_byte(&pk->out, '(');
  /* the persistent id of the storage */
  put_byte(&pk->out, '(');
  write_const_str(pk, "storage");
  write_global(pk, "torch", tk_storage_class(t->dtype));
  char text[32];
  snprintf(text, sizeof text, "%zu", key);
  write_str(pk, text, strlen(text));
  put_memo_anonymous(pk);
  write_const_str(pk, "cpu");
  write_int(pk, (int64_t)numel);
  put_byte(&pk->out, 't');
  put_memo_anonymous(pk);
  put_byte(&pk->out, 'Q');
  write_int(pk, 0); /* storage offset: the storage holds just this tensor */
  int64_t contiguous_strides[64];
  int64_t stride = 1;
  for (uint32_t k = t->dim; k-- > 0;) {
    contiguous_strides[k] = stride;
    stride *= t->sizes[k] ? t->sizes[k] : 1;
  }
  write_tuple_of_ints(pk, t->sizes, t->dim);
  write_tuple_of_ints(pk, contiguous_strides, t->dim);
  put_byte(&pk->out, t->requires_grad ? 0x88 : 0x89);
  write_empty_ordered_dict(pk);
  put_byte(&pk->out, 't');
  put_memo_anonymous(pk);
  put_byte(&pk->out, 'R');
  return ETK_OK;
}

/* Items (and values) in batches of 1000, like Python's _batch_appends. */
static int save_batches(pickler_t *pk, const etk_pickle_value_t *v,
                        unsigned depth) {
  bool dict = v->kind == ETK_PICKLE_DICT;
  for (size_t start = 0; start < v->count; start += 1000) {
    size_t n = v->count - start < 1000 ? v->count - start : 1000;
    if (n > 1) put_byte(&pk->out, '(');
    for (size_t i = start; i < start + n; i++) {
      if (save(pk, v->items[i], depth + 1) != ETK_OK) return pk->rc;
      if (dict && save(pk, v->values[i], depth + 1) != ETK_OK) return pk->rc;
    }
    put_byte(&pk->out, dict ? (n > 1 ? 'u' : 's') : (n > 1 ? 'e' : 'a'));
  }
  return ETK_OK;
}

static int save(pickler_t *pk, const etk_pickle_value_t *v, unsigned depth) {
  if (pk->rc != ETK_OK) return pk->rc;
  if (!v) return pk_fail(pk, ETK_E_INVALID_ARGUMENT, "NULL value");
  if (depth > 1000)
    return pk_fail(pk, ETK_E_INVALID_ARGUMENT,
                   "values nested deeper than 1000");
  memo_slot_t *hit = slot_find(pk, v);
  if (hit) {
    if (hit->open)
      return pk_fail(pk, ETK_E_INVALID_ARGUMENT,
                     "a %s contains itself (cycles cannot be pickled for "
                     "etkit's reader)",
                     etk_pickle_kind_name(v->kind));
    write_get(pk, hit->index);
    return ETK_OK;
  }
  memo_slot_t *slot;
  switch (v->kind) {
    case ETK_PICKLE_NONE:
      put_byte(&pk->out, 'N');
      return ETK_OK;
    case ETK_PICKLE_BOOL:
      put_byte(&pk->out, v->b ? 0x88 : 0x89);
      return ETK_OK;
    case ETK_PICKLE_INT:
      write_int(pk, v->i);
      return ETK_OK;
    case ETK_PICKLE_FLOAT:
      write_float(pk, v->f);
      return ETK_OK;
    case ETK_PICKLE_STR: {
      size_t n = v->str ? v->len : 0;
      if (n > UINT32_MAX || etk_utf8_check(v->str ? v->str : "", n) != n)
        return pk_fail(pk, ETK_E_INVALID_ARGUMENT,
                       "str is not valid UTF-8 or longer than 4 GiB");
      write_str(pk, v->str, n);
      memoize(pk, v, false);
      return pk->rc;
    }
    case ETK_PICKLE_TUPLE:
      if (v->count && !v->items)
        return pk_fail(pk, ETK_E_INVALID_ARGUMENT, "tuple items are NULL");
      if (v->count == 0) {
        put_byte(&pk->out, ')');
        return ETK_OK;
      }
      /* Python memoizes a tuple after its items; it is marked open (no
       * memo index yet) while they are written, to catch cycles */
      if (!memo_insert(pk, v, true, false)) return pk->rc;
      if (v->count > 3) put_byte(&pk->out, '(');
      for (size_t i = 0; i < v->count; i++)
        if (save(pk, v->items[i], depth + 1) != ETK_OK) return pk->rc;
      put_byte(&pk->out, v->count > 3 ? 't' : (uint8_t)(0x84 + v->count));
      slot = slot_find(pk, v);
      if (slot) {
        slot->open = false;
        slot->index = pk->next_memo;
        write_put(pk, pk->next_memo++);
      }
      return pk->rc;
    case ETK_PICKLE_LIST:
    case ETK_PICKLE_DICT:
      if (v->count && (!v->items || (v->kind == ETK_PICKLE_DICT && !v->values)))
        return pk_fail(pk, ETK_E_INVALID_ARGUMENT, "%s items are NULL",
                       etk_pickle_kind_name(v->kind));
      if (v->kind == ETK_PICKLE_DICT && v->ordered) {
        write_global(pk, "collections", "OrderedDict");
        put_byte(&pk->out, ')');
        put_byte(&pk->out, 'R');
      } else {
        put_byte(&pk->out, v->kind == ETK_PICKLE_LIST ? ']' : '}');
      }
      slot = memoize(pk, v, true);
      if (!slot) return pk->rc;
      if (save_batches(pk, v, depth) != ETK_OK) return pk->rc;
      slot = slot_find(pk, v); /* the table may have moved */
      if (slot) slot->open = false;
      return pk->rc;
    case ETK_PICKLE_TENSOR:
      if (!v->tensor)
        return pk_fail(pk, ETK_E_INVALID_ARGUMENT, "tensor is NULL");
      if (save_tensor(pk, v->tensor) != ETK_OK) return pk->rc;
      memoize(pk, v, false);
      return pk->rc;
    case ETK_PICKLE_BYTES:
    case ETK_PICKLE_STORAGE:
    case ETK_PICKLE_GLOBAL:
      return pk_fail(pk, ETK_E_UNSUPPORTED,
                     "a %s value cannot be written in a protocol-2 "
                     "torch.save archive",
                     etk_pickle_kind_name(v->kind));
  }
  return pk_fail(pk, ETK_E_INVALID_ARGUMENT, "unknown value kind %d",
                 (int)v->kind);
}

/* ------------------------------------------------------------- ZIP */

typedef struct zentry {
  char name[64];
  const uint8_t *data;
  uint64_t len;
  uint64_t offset; /* of the local header */
  uint32_t crc;
} zentry_t;

static void zip_entry(wbuf_t *b, zentry_t *e) {
  size_t name_len = strlen(e->name);
  e->offset = b->len;
  e->crc = tk_crc32(0, e->data, (size_t)e->len);
  /* data starts 64-byte aligned: an "FB" extra field holds the padding */
  size_t start = b->len + 30 + name_len + 4;
  size_t pad = (64 - start % 64) % 64;
  put(b, "PK\x03\x04", 4);
  put_le(b, 0, 2);      /* version needed, as torch writes it */
  put_le(b, 0x0808, 2); /* data descriptor, UTF-8 names */
  put_le(b, 0, 2);      /* stored */
  put_le(b, 0, 4);      /* time, date */
  put_le(b, 0, 4);      /* crc: in the descriptor */
  put_le(b, 0, 8);      /* sizes: in the descriptor */
  put_le(b, name_len, 2);
  put_le(b, 4 + pad, 2);
  put(b, e->name, name_len);
  put(b, "FB", 2);
  put_le(b, pad, 2);
  for (size_t i = 0; i < pad; i++) put_byte(b, 'Z');
  put(b, e->data, (size_t)e->len);
  put(b, "PK\x07\x08", 4);
  put_le(b, e->crc, 4);
  put_le(b, e->len, 4);
  put_le(b, e->len, 4);
}

static void zip_central(wbuf_t *b, const zentry_t *e) {
  size_t name_len = strlen(e->name);
  put(b, "PK\x01\x02", 4);
  put_le(b, 0, 2); /* version made by */
  put_le(b, 0, 2); /* version needed */
  put_le(b, 0x0808, 2);
  put_le(b, 0, 2);
  put_le(b, 0, 4);
  put_le(b, e->crc, 4);
  put_le(b, e->len, 4);
  put_le(b, e->len, 4);
  put_le(b, name_len, 2);
  put_le(b, 0, 2); /* extra */
  put_le(b, 0, 2); /* comment */
  put_le(b, 0, 2); /* disk */
  put_le(b, 0, 2); /* internal attributes */
  put_le(b, 0, 4); /* external attributes */
  put_le(b, e->offset, 4);
  put(b, e->name, name_len);
}

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static int zip_archive(pickler_t *pk, uint8_t **out, size_t *out_len) {
  size_t n = pk->tensor_count + 4;
  zentry_t *e = calloc(n, sizeof *e);
  uint8_t **copies =
      calloc(pk->tensor_count ? pk->tensor_count : 1, sizeof *copies);
  wbuf_t b = {NULL, 0, 0, false};
  int rc = ETK_OK;
  if (!e || !copies) rc = pk_fail(pk, ETK_E_NO_MEMORY, "out of memory");
  size_t k = 0;
  uint64_t h = 0xcbf29ce484222325ull;
  if (rc == ETK_OK) {
    snprintf(e[k].name, sizeof e[k].name, "archive/data.pkl");
    e[k].data = pk->out.p;
    e[k++].len = pk->out.len;
    h = fnv1a(h, pk->out.p, pk->out.len);
    snprintf(e[k].name, sizeof e[k].name, "archive/byteorder");
    e[k].data = (const uint8_t *)"little";
    e[k++].len = 6;
  }
  for (size_t i = 0; i < pk->tensor_count && rc == ETK_OK; i++) {
    const etk_torch_tensor_t *t = pk->tensors[i];
    uint64_t numel = 1;
    for (uint32_t d = 0; d < t->dim; d++) numel *= (uint64_t)t->sizes[d];
    size_t es = etk_torch_dtype_size(t->dtype);
    uint64_t nbytes = numel * es;
    copies[i] = malloc(nbytes ? (size_t)nbytes : 1);
    if (!copies[i]) {
      rc = pk_fail(pk, ETK_E_NO_MEMORY, "out of memory");
      break;
    }
    /* etk_torch_tensor_copy walks the strides (contiguous = memcpy) */
    etk_torch_tensor_t view = *t;
    view.element_size = es;
    view.numel = numel;
    int64_t strides[64];
    if (!view.strides) {
      int64_t s = 1;
      for (uint32_t d = t->dim; d-- > 0;) {
        strides[d] = s;
        s *= t->sizes[d] ? t->sizes[d] : 1;
      }
      view.strides = strides;
    }
    view.contiguous = t->strides == NULL;
    if (etk_torch_tensor_copy(&view, copies[i], nbytes) != ETK_OK) {
      rc = pk_fail(pk, ETK_E_NO_MEMORY, "copying tensor %zu failed", i);
      break;
    }
    snprintf(e[k].name, sizeof e[k].name, "archive/data/%zu", i);
    e[k].data = copies[i];
    e[k++].len = nbytes;
    h = fnv1a(h, copies[i], (size_t)nbytes);
  }
  char id[48];
  if (rc == ETK_OK) {
    snprintf(e[k].name, sizeof e[k].name, "archive/version");
    e[k].data = (const uint8_t *)"3\n";
    e[k++].len = 2;
    uint64_t h2 = fnv1a(h ^ 0x9e3779b97f4a7c15ull, (const uint8_t *)"id", 2);
    snprintf(id, sizeof id, "%020llu%020llu",
             (unsigned long long)(h % 10000000000000000000ull),
             (unsigned long long)(h2 % 10000000000000000000ull));
    snprintf(e[k].name, sizeof e[k].name, "archive/.data/serialization_id");
    e[k].data = (const uint8_t *)id;
    e[k++].len = 40;
  }
  if (rc == ETK_OK) {
    for (size_t i = 0; i < k; i++) {
      if (e[i].len >= UINT32_MAX || b.len >= UINT32_MAX) {
        rc = pk_fail(pk, ETK_E_LIMIT,
                     "archive entries and offsets must stay below 4 GiB");
        break;
      }
      zip_entry(&b, &e[i]);
    }
  }
  if (rc == ETK_OK) {
    uint64_t cd_offset = b.len;
    for (size_t i = 0; i < k; i++) zip_central(&b, &e[i]);
    uint64_t cd_size = b.len - cd_offset, z64 = b.len;
    if (cd_offset >= UINT32_MAX || b.len >= UINT32_MAX)
      rc = pk_fail(pk, ETK_E_LIMIT, "archive larger than 4 GiB");
    put(&b, "PK\x06\x06", 4); /* ZIP64 end of central directory */
    put_le(&b, 44, 8);
    put_le(&b, 0x031e, 2);
    put_le(&b, 45, 2);
    put_le(&b, 0, 4);
    put_le(&b, 0, 4);
    put_le(&b, k, 8);
    put_le(&b, k, 8);
    put_le(&b, cd_size, 8);
    put_le(&b, cd_offset, 8);
    put(&b, "PK\x06\x07", 4); /* its locator */
    put_le(&b, 0, 4);
    put_le(&b, z64, 8);
    put_le(&b, 1, 4);
    put(&b, "PK\x05\x06", 4);
    put_le(&b, 0, 4);
    put_le(&b, k, 2);
    put_le(&b, k, 2);
    put_le(&b, cd_size, 4);
    put_le(&b, cd_offset, 4);
    put_le(&b, 0, 2);
    if (b.failed && rc == ETK_OK)
      rc = pk_fail(pk, ETK_E_NO_MEMORY, "out of memory");
  }
  for (size_t i = 0; copies && i < pk->tensor_count; i++) free(copies[i]);
  free(copies);
  free(e);
  if (rc != ETK_OK) {
    free(b.p);
    return rc;
  }
  *out = b.p;
  *out_len = b.len;
  return ETK_OK;
}

int etk_torch_save_memory(const etk_pickle_value_t *root, uint8_t **out,
                          size_t *out_len, etk_error_t *err) {
  if (!root || !out || !out_len)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  *out_len = 0;
  pickler_t pk;
  memset(&pk, 0, sizeof pk);
  pk.err = err;
  put_byte(&pk.out, 0x80);
  put_byte(&pk.out, 2);
  int rc = save(&pk, root, 0);
  put_byte(&pk.out, '.');
  if (rc == ETK_OK && pk.out.failed)
    rc = pk_fail(&pk, ETK_E_NO_MEMORY, "out of memory");
  if (rc == ETK_OK) rc = zip_archive(&pk, out, out_len);
  free(pk.out.p);
  etk_hash_free(&pk.seen);
  free(pk.slots);
  free(pk.tensors);
  return rc;
}
