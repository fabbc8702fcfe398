/*
 * debug_values.c - debug events' values (Value, Tensor, TensorList) and the
 * tensor bytes they point to in the debug buffer.
 *
 * PURPOSE
 *   Intermediate and program outputs are stored as a Value table whose `val`
 *   byte says which member is set; tensors keep only dtype, sizes, strides
 *   and a byte offset into a separate debug-buffer file.  This file decodes
 *   those tables (already verified when the dump was opened) and locates a
 *   tensor's bytes in a debug buffer with overflow-checked arithmetic.
 *
 * RULES (upstream inflate_runtime_output / get_scalar_type_size)
 *   Element sizes: BYTE/CHAR/BOOL 1, SHORT/HALF/BITS16/UINT16 2, INT/FLOAT
 *   4, LONG/DOUBLE 8; any other scalar type is refused.  nbytes =
 *   prod(sizes) * element size; the stored offset is an absolute byte offset
 *   into the whole buffer; strides are ignored.  A tensor without elements
 *   reads nothing (the runtime stores offset -1 for those).
 */
#include <string.h>

#include "etdump_internal.h"
#include "etkit/schema.h"

static uint32_t ld32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint64_t ld64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static uint32_t field(const uint8_t *buf, uint32_t pos, unsigned id) {
  uint32_t vt = pos - ld32(buf + pos);
  uint32_t vsize = (uint32_t)(buf[vt] | (buf[vt + 1] << 8));
  if (2u * id + 6u > vsize) return 0;
  uint32_t off = (uint32_t)(buf[vt + 4 + 2 * id] | (buf[vt + 5 + 2 * id] << 8));
  return off ? pos + off : 0;
}

static uint32_t sub(const uint8_t *buf, uint32_t pos, unsigned id) {
  uint32_t p = field(buf, pos, id);
  return p ? p + ld32(buf + p) : 0;
}

static void tensor_at(const uint8_t *buf, uint32_t pos,
                      etk_etdump_tensor_t *t) {
  memset(t, 0, sizeof *t);
  t->table_offset = pos;
  uint32_t p = field(buf, pos, ETK_ETDUMP_TENSOR_SCALAR_TYPE);
  t->scalar_type = p ? (int8_t)buf[p] : ETK_SCALAR_TYPE_BYTE;
  uint32_t v = sub(buf, pos, ETK_ETDUMP_TENSOR_SIZES);
  if (v) {
    t->dim = ld32(buf + v);
    t->sizes = buf + v + 4;
  }
  v = sub(buf, pos, ETK_ETDUMP_TENSOR_STRIDES);
  if (v) {
    t->stride_count = ld32(buf + v);
    t->strides = buf + v + 4;
  }
  p = field(buf, pos, ETK_ETDUMP_TENSOR_OFFSET);
  t->offset = p ? (int64_t)ld64(buf + p) : 0;
}

int64_t etk_etdump_tensor_dim(const etk_etdump_tensor_t *t, uint32_t i) {
  if (!t || !t->sizes || i >= t->dim) return 0;
  return (int64_t)ld64(t->sizes + 8u * i);
}

int64_t etk_etdump_tensor_stride(const etk_etdump_tensor_t *t, uint32_t i) {
  if (!t || !t->strides || i >= t->stride_count) return 0;
  return (int64_t)ld64(t->strides + 8u * i);
}

int etk_etdump_event_value(const etk_etdump_t *d, size_t index,
                           etk_etdump_value_t *out) {
  if (!d || !out || index >= d->event_count ||
      (d->flags[index] & ETK_ETDUMP_KIND_MASK) != ETK_ETDUMP_EVENT_DEBUG)
    return ETK_E_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  const uint8_t *buf = d->buf;
  uint32_t v = sub(buf, etdump_event_member(d, index),
                   ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY);
  if (!v) return ETK_OK;
  out->present = 1;
  out->offset = v;
  uint32_t p = field(buf, v, ETK_ETDUMP_VALUE_VAL);
  out->type = p ? (int8_t)buf[p] : ETK_ETDUMP_VALUE_TYPE_NULL;
  uint32_t o = sub(buf, v, ETK_ETDUMP_VALUE_OUTPUT);
  if (o) {
    out->output_present = 1;
    uint32_t bp = field(buf, o, ETK_ETDUMP_BOOL_BOOL_VAL);
    out->output = bp && buf[bp] != 0;
  }
  uint32_t m;
  switch (out->type) {
    case ETK_ETDUMP_VALUE_TYPE_INT:
      if ((m = sub(buf, v, ETK_ETDUMP_VALUE_INT_VALUE)) != 0) {
        out->member_present = 1;
        p = field(buf, m, ETK_ETDUMP_INT_INT_VAL);
        out->int_value = p ? (int64_t)ld64(buf + p) : 0;
      }
      break;
    case ETK_ETDUMP_VALUE_TYPE_BOOL:
      if ((m = sub(buf, v, ETK_ETDUMP_VALUE_BOOL_VALUE)) != 0) {
        out->member_present = 1;
        p = field(buf, m, ETK_ETDUMP_BOOL_BOOL_VAL);
        out->bool_value = p && buf[p] != 0;
      }
      break;
    case ETK_ETDUMP_VALUE_TYPE_FLOAT:
      if ((m = sub(buf, v, ETK_ETDUMP_VALUE_FLOAT_VALUE)) != 0) {
        out->member_present = 1;
        p = field(buf, m, ETK_ETDUMP_FLOAT_FLOAT_VAL);
        float f = 0;
        if (p) memcpy(&f, buf + p, 4);
        out->real_value = (double)f;
      }
      break;
    case ETK_ETDUMP_VALUE_TYPE_DOUBLE:
      if ((m = sub(buf, v, ETK_ETDUMP_VALUE_DOUBLE_VALUE)) != 0) {
        out->member_present = 1;
        p = field(buf, m, ETK_ETDUMP_DOUBLE_DOUBLE_VAL);
        double x = 0;
        if (p) memcpy(&x, buf + p, 8);
        out->real_value = x;
      }
      break;
    case ETK_ETDUMP_VALUE_TYPE_TENSOR:
      if ((m = sub(buf, v, ETK_ETDUMP_VALUE_TENSOR)) != 0) {
        out->member_present = 1;
        tensor_at(buf, m, &out->tensor);
      }
      break;
    case ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST:
      if ((m = sub(buf, v, ETK_ETDUMP_VALUE_TENSOR_LIST)) != 0) {
        out->member_present = 1;
        uint32_t tv = sub(buf, m, ETK_ETDUMP_TENSOR_LIST_TENSORS);
        out->tensor_count = tv ? ld32(buf + tv) : 0;
      }
      break;
    default:
      break;
  }
  return ETK_OK;
}

int etk_etdump_value_tensor(const etk_etdump_t *d,
                            const etk_etdump_value_t *value, uint32_t i,
                            etk_etdump_tensor_t *out) {
  if (!d || !value || !out || !value->present ||
      value->type != ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST ||
      i >= value->tensor_count)
    return ETK_E_INVALID_ARGUMENT;
  uint32_t m = sub(d->buf, value->offset, ETK_ETDUMP_VALUE_TENSOR_LIST);
  uint32_t tv = m ? sub(d->buf, m, ETK_ETDUMP_TENSOR_LIST_TENSORS) : 0;
  if (!tv) return ETK_E_INVALID_ARGUMENT;
  uint32_t at = tv + 4 + 4 * i;
  tensor_at(d->buf, at + ld32(d->buf + at), out);
  return ETK_OK;
}

size_t etk_etdump_tensor_element_size(int scalar_type) {
  /* The plain numeric types, less the three the Inspector's tensor decoding
   * does not take. */
  if (scalar_type == ETK_SCALAR_TYPE_BFLOAT16 ||
      scalar_type == ETK_SCALAR_TYPE_UINT32 ||
      scalar_type == ETK_SCALAR_TYPE_UINT64)
    return 0;
  return etk_scalar_type_numpy_name(scalar_type)
             ? etk_scalar_type_size(scalar_type)
             : 0;
}

const char *etk_etdump_tensor_dtype_name(int scalar_type) {
  return etk_etdump_tensor_element_size(scalar_type)
             ? etk_scalar_type_numpy_name(scalar_type)
             : NULL;
}

int etk_etdump_tensor_nbytes(const etk_etdump_tensor_t *t, uint64_t *nbytes,
                             etk_error_t *err) {
  if (!t || !nbytes)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *nbytes = 0;
  size_t es = etk_etdump_tensor_element_size(t->scalar_type);
  if (es == 0) {
    const char *name = etk_scalar_type_name(t->scalar_type);
    return etk_error_set(err, ETK_E_UNSUPPORTED, t->table_offset,
                         "tensor scalar type %s (%d) cannot be inflated "
                         "(upstream: \"Unsupported scalar type\")",
                         name ? name : "?", t->scalar_type);
  }
  uint64_t n = es;
  for (uint32_t i = 0; i < t->dim; i++) {
    int64_t s = etk_etdump_tensor_dim(t, i);
    if (s < 0)
      return etk_error_set(err, ETK_E_FORMAT, t->table_offset,
                           "tensor size %lld at dimension %u is negative",
                           (long long)s, (unsigned)i);
    if (s == 0) {
      n = 0;
      continue;
    }
    if (n != 0 && (uint64_t)s > UINT64_MAX / n)
      return etk_error_set(err, ETK_E_OVERFLOW, t->table_offset,
                           "tensor byte size overflows 64 bits");
    n *= (uint64_t)s;
  }
  *nbytes = n;
  return ETK_OK;
}

int etk_etdump_tensor_data(const etk_etdump_tensor_t *t, const uint8_t *buf,
                           size_t len, const uint8_t **data, uint64_t *nbytes,
                           etk_error_t *err) {
  if (!t || !data || !nbytes)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *data = NULL;
  int rc = etk_etdump_tensor_nbytes(t, nbytes, err);
  if (rc != ETK_OK || *nbytes == 0) return rc;
  if (t->offset < 0 || (uint64_t)t->offset > (uint64_t)len ||
      *nbytes > (uint64_t)len - (uint64_t)t->offset || !buf)
    return etk_error_set(err, ETK_E_BAD_OFFSET,
                         t->offset < 0 ? ETK_NO_OFFSET : (uint64_t)t->offset,
                         "tensor bytes [%lld, +%llu) lie outside the debug "
                         "buffer of %zu bytes",
                         (long long)t->offset, (unsigned long long)*nbytes,
                         len);
  *data = buf + t->offset;
  return ETK_OK;
}

/* One tensor of debug event `index` against the buffer. */
static int check_tensor(const etk_etdump_tensor_t *t, size_t index,
                        const uint8_t *buf, size_t len, etk_error_t *err) {
  const uint8_t *data;
  uint64_t nbytes;
  etk_error_t local;
  if (etk_etdump_tensor_data(t, buf, len, &data, &nbytes, NULL) == ETK_OK)
    return ETK_OK;
  etk_error_clear(&local);
  int rc = etk_etdump_tensor_data(t, buf, len, &data, &nbytes, &local);
  return etk_error_set(err, rc, local.offset, "debug event %zu: %s", index,
                       local.message);
}

int etk_etdump_check_debug_buffer(const etk_etdump_t *d, const uint8_t *buf,
                                  size_t len, etk_error_t *err) {
  if (!d || (!buf && len))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_etdump_check_debug_buffer: NULL argument");
  static const uint8_t empty[1] = {0};
  if (!buf) buf = empty;
  /* an ETDump, a program...: say what it is rather than what misfits */
  int kind = etk_file_kind_expect(NULL, buf, len, ETK_FILE_DEBUG_BUFFER, err);
  if (kind != ETK_OK) {
    etk_error_where(err, "debug buffer");
    return kind;
  }
  for (size_t i = 0; i < d->event_count; i++) {
    if ((d->flags[i] & ETK_ETDUMP_KIND_MASK) != ETK_ETDUMP_EVENT_DEBUG)
      continue;
    etk_etdump_value_t v;
    if (etk_etdump_event_value(d, i, &v) != ETK_OK || !v.member_present)
      continue;
    int rc = ETK_OK;
    if (v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR) {
      rc = check_tensor(&v.tensor, i, buf, len, err);
    } else if (v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST) {
      for (uint32_t k = 0; rc == ETK_OK && k < v.tensor_count; k++) {
        etk_etdump_tensor_t t;
        if (etk_etdump_value_tensor(d, &v, k, &t) == ETK_OK)
          rc = check_tensor(&t, i, buf, len, err);
      }
    }
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}

size_t etk_etdump_logged_tensor_count(const etk_etdump_t *d) {
  if (!d) return 0;
  size_t n = 0;
  for (size_t i = 0; i < d->event_count; i++) {
    if ((d->flags[i] & ETK_ETDUMP_KIND_MASK) != ETK_ETDUMP_EVENT_DEBUG)
      continue;
    etk_etdump_value_t v;
    if (etk_etdump_event_value(d, i, &v) != ETK_OK || !v.member_present)
      continue;
    if (v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR) n++;
    if (v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST) n += v.tensor_count;
  }
  return n;
}
