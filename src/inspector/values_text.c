/*
 * values_text.c - debug values as text (a torch-like repr for table cells)
 * and as JSON.
 *
 * PURPOSE
 *   Upstream's debug_data column holds torch tensors and Python scalars;
 *   its str() is torch's repr.  We print a compact approximation
 *   (tensor([1., 2., 3.]), tensor([7, 8]), dtype suffix for non-default
 *   dtypes) and, for JSON, a structured object with the values read from
 *   the debug buffer.  Without a debug buffer upstream shows zeros of the
 *   right shape; we do the same in text and give "values": null in JSON.
 *
 * LIMITS
 *   Text shows at most 64 elements of a tensor (then "..."); JSON shows at
 *   most `max_values` (0 = all).  Element reads are bounds-checked by
 *   etk_etdump_tensor_data().
 */
#include <math.h>
#include <string.h>

#include "etkit/schema.h"
#include "etkit/tensor_stats.h"
#include "values_text.h"

/* Element i of a tensor's bytes as a double (exact for ints up to 2^53) or
 * an int64 (for integer dtypes: *is_int = 1). */
static void element(int st, const uint8_t *p, uint64_t i, double *d,
                    int64_t *iv, int *is_int) {
  *is_int = 1;
  switch (st) {
    case ETK_SCALAR_TYPE_BYTE:
      *iv = p[i];
      return;
    case ETK_SCALAR_TYPE_CHAR:
      *iv = (int8_t)p[i];
      return;
    case ETK_SCALAR_TYPE_BOOL:
      *iv = p[i] != 0;
      return;
    case ETK_SCALAR_TYPE_SHORT: {
      int16_t v;
      memcpy(&v, p + 2 * i, 2);
      *iv = v;
      return;
    }
    case ETK_SCALAR_TYPE_BITS16:
    case ETK_SCALAR_TYPE_UINT16: {
      uint16_t v;
      memcpy(&v, p + 2 * i, 2);
      *iv = v;
      return;
    }
    case ETK_SCALAR_TYPE_INT: {
      int32_t v;
      memcpy(&v, p + 4 * i, 4);
      *iv = v;
      return;
    }
    case ETK_SCALAR_TYPE_LONG: {
      int64_t v;
      memcpy(&v, p + 8 * i, 8);
      *iv = v;
      return;
    }
    case ETK_SCALAR_TYPE_HALF: {
      uint16_t v;
      memcpy(&v, p + 2 * i, 2);
      *is_int = 0;
      *d = etk_half_to_float(v);
      return;
    }
    case ETK_SCALAR_TYPE_FLOAT: {
      float v;
      memcpy(&v, p + 4 * i, 4);
      *is_int = 0;
      *d = (double)v;
      return;
    }
    default: {
      double v;
      memcpy(&v, p + 8 * i, 8);
      *is_int = 0;
      *d = v;
      return;
    }
  }
}

static int is_float_type(int st) {
  return st == ETK_SCALAR_TYPE_HALF || st == ETK_SCALAR_TYPE_FLOAT ||
         st == ETK_SCALAR_TYPE_DOUBLE;
}

static const char *torch_dtype(int st) {
  switch (st) {
    case ETK_SCALAR_TYPE_BYTE:
      return "torch.uint8";
    case ETK_SCALAR_TYPE_CHAR:
      return "torch.int8";
    case ETK_SCALAR_TYPE_SHORT:
      return "torch.int16";
    case ETK_SCALAR_TYPE_INT:
      return "torch.int32";
    case ETK_SCALAR_TYPE_HALF:
      return "torch.float16";
    case ETK_SCALAR_TYPE_DOUBLE:
      return "torch.float64";
    case ETK_SCALAR_TYPE_BITS16:
    case ETK_SCALAR_TYPE_UINT16:
      return "torch.uint16";
    default:
      return NULL; /* float32, int64, bool: torch's defaults */
  }
}

static void tensor_text(etk_strbuf_t *b, const etk_etdump_tensor_t *t,
                        const uint8_t *buf, size_t len) {
  uint64_t nbytes = 0;
  const uint8_t *data = NULL;
  if (etk_etdump_tensor_nbytes(t, &nbytes, NULL) != ETK_OK) {
    etk_strbuf_appends(b, "<unsupported tensor>");
    return;
  }
  if (buf &&
      etk_etdump_tensor_data(t, buf, len, &data, &nbytes, NULL) != ETK_OK) {
    etk_strbuf_appends(b, "<tensor outside the debug buffer>");
    return;
  }
  size_t es = etk_etdump_tensor_element_size(t->scalar_type);
  uint64_t count = es ? nbytes / es : 0;
  int fl = is_float_type(t->scalar_type);
  int integral = 1;
  for (uint64_t i = 0; data && fl && i < count && i < 64; i++) {
    double d;
    int64_t iv;
    int isi;
    element(t->scalar_type, data, i, &d, &iv, &isi);
    if (d != floor(d) || isinf(d)) integral = 0;
  }
  etk_strbuf_appends(b, "tensor(");
  /* open brackets for each dimension (a 0-d tensor has none) */
  uint32_t dim = t->dim;
  for (uint32_t k = 0; k < dim; k++) etk_strbuf_appendc(b, '[');
  uint64_t shown = count < 64 ? count : 64;
  /* close/open brackets between rows of the innermost dimensions */
  for (uint64_t i = 0; i < shown; i++) {
    if (i > 0) {
      uint64_t stride = 1;
      int closes = 0;
      for (uint32_t k = dim; k-- > 1;) {
        stride *= (uint64_t)etk_etdump_tensor_dim(t, k);
        if (stride && i % stride == 0)
          closes++;
        else
          break;
      }
      for (int k = 0; k < closes; k++) etk_strbuf_appendc(b, ']');
      etk_strbuf_appends(b, ", ");
      for (int k = 0; k < closes; k++) etk_strbuf_appendc(b, '[');
    }
    double d = 0;
    int64_t iv = 0;
    int isi = !fl;
    if (data) element(t->scalar_type, data, i, &d, &iv, &isi);
    if (t->scalar_type == ETK_SCALAR_TYPE_BOOL)
      etk_strbuf_appends(b, iv ? "True" : "False");
    else if (isi)
      etk_strbuf_printf(b, "%lld", (long long)iv);
    else if (d != d)
      etk_strbuf_appends(b, "nan");
    else if (isinf(d))
      etk_strbuf_appends(b, d > 0 ? "inf" : "-inf");
    else if (integral)
      etk_strbuf_printf(b, "%.0f.", d);
    else
      etk_strbuf_printf(b, "%.4f", d);
  }
  if (shown < count) etk_strbuf_appends(b, ", ...");
  for (uint32_t k = 0; k < dim; k++) etk_strbuf_appendc(b, ']');
  if (dim == 0 && count == 0) etk_strbuf_appends(b, "[]");
  const char *dt = torch_dtype(t->scalar_type);
  if (dt) {
    etk_strbuf_appends(b, ", dtype=");
    etk_strbuf_appends(b, dt);
  }
  etk_strbuf_appendc(b, ')');
}

/* A STATS vector (etk_etdump_tensor_is_stats) as
 * "stats(min=-3, max=7, ..., p99_abs=7)"; counts as integers. */
static void stats_text(etk_strbuf_t *b, const etk_etdump_t *d,
                       const etk_etdump_tensor_t *t, const uint8_t *buf,
                       size_t len) {
  double st[ETK_TENSOR_STATS_COUNT];
  if (!buf) {
    etk_strbuf_appends(b, "stats(no debug buffer)");
    return;
  }
  if (etk_etdump_tensor_stats(d, t, buf, len, st, NULL) != ETK_OK) {
    etk_strbuf_appends(b, "<stats outside the debug buffer>");
    return;
  }
  etk_strbuf_appends(b, "stats(");
  for (unsigned i = 0; i < ETK_TENSOR_STATS_COUNT; i++) {
    double x = st[i];
    etk_strbuf_printf(b, "%s%s=", i ? ", " : "", etk_tensor_stat_name(i));
    if (x != x)
      etk_strbuf_appends(b, "nan");
    else if (isinf(x))
      etk_strbuf_appends(b, x > 0 ? "inf" : "-inf");
    else
      etk_strbuf_printf(b, "%.6g", x);
  }
  etk_strbuf_appendc(b, ')');
}

/* A tensor of a value: its STATS or its elements. */
static void any_tensor_text(etk_strbuf_t *b, const etk_etdump_t *d,
                            const etk_etdump_tensor_t *t, const uint8_t *buf,
                            size_t len) {
  if (etk_etdump_tensor_is_stats(d, t))
    stats_text(b, d, t, buf, len);
  else
    tensor_text(b, t, buf, len);
}

void insp_value_text(etk_strbuf_t *b, const etk_etdump_t *d, uint32_t event,
                     const uint8_t *buf, size_t len) {
  etk_etdump_value_t v;
  if (etk_etdump_event_value(d, event, &v) != ETK_OK || !v.present) {
    etk_strbuf_appends(b, "None");
    return;
  }
  char num[ETK_FORMAT_DOUBLE_MAX];
  switch (v.type) {
    case ETK_ETDUMP_VALUE_TYPE_INT:
      etk_strbuf_printf(b, "%lld", (long long)v.int_value);
      break;
    case ETK_ETDUMP_VALUE_TYPE_BOOL:
      etk_strbuf_appends(b, v.bool_value ? "True" : "False");
      break;
    case ETK_ETDUMP_VALUE_TYPE_FLOAT:
    case ETK_ETDUMP_VALUE_TYPE_DOUBLE:
      etk_format_double_repr(v.real_value, num);
      etk_strbuf_appends(b, num);
      break;
    case ETK_ETDUMP_VALUE_TYPE_TENSOR:
      if (v.member_present)
        any_tensor_text(b, d, &v.tensor, buf, len);
      else
        etk_strbuf_appends(b, "None");
      break;
    case ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST:
      etk_strbuf_appendc(b, '[');
      for (uint32_t i = 0; i < v.tensor_count; i++) {
        etk_etdump_tensor_t t;
        if (i) etk_strbuf_appends(b, ", ");
        if (etk_etdump_value_tensor(d, &v, i, &t) == ETK_OK)
          any_tensor_text(b, d, &t, buf, len);
      }
      etk_strbuf_appendc(b, ']');
      break;
    default:
      etk_strbuf_appends(b, "None");
      break;
  }
}

static void tensor_json(etk_json_t *j, const etk_etdump_tensor_t *t,
                        const uint8_t *buf, size_t len, size_t max_values) {
  etk_json_begin_object(j);
  etk_json_key(j, "type");
  etk_json_cstring(j, "tensor");
  etk_json_key(j, "scalar_type");
  etk_json_cstring(j, etk_scalar_type_name(t->scalar_type));
  etk_json_key(j, "dtype");
  etk_json_cstring(j, etk_etdump_tensor_dtype_name(t->scalar_type));
  etk_json_key(j, "sizes");
  etk_json_begin_array(j);
  for (uint32_t i = 0; i < t->dim; i++)
    etk_json_int(j, etk_etdump_tensor_dim(t, i));
  etk_json_end_array(j);
  etk_json_key(j, "strides");
  etk_json_begin_array(j);
  for (uint32_t i = 0; i < t->stride_count; i++)
    etk_json_int(j, etk_etdump_tensor_stride(t, i));
  etk_json_end_array(j);
  etk_json_key(j, "offset");
  etk_json_int(j, t->offset);
  etk_json_key(j, "values");
  const uint8_t *data = NULL;
  uint64_t nbytes = 0;
  etk_error_t err;
  etk_error_clear(&err);
  if (!buf) {
    etk_json_null(j);
  } else if (etk_etdump_tensor_data(t, buf, len, &data, &nbytes, &err) !=
             ETK_OK) {
    etk_json_null(j);
    etk_json_key(j, "error");
    etk_json_cstring(j, err.message);
  } else {
    size_t es = etk_etdump_tensor_element_size(t->scalar_type);
    uint64_t count = es ? nbytes / es : 0;
    uint64_t shown = max_values && count > max_values ? max_values : count;
    etk_json_begin_array(j);
    for (uint64_t i = 0; i < shown; i++) {
      double dv = 0;
      int64_t iv = 0;
      int isi;
      element(t->scalar_type, data, i, &dv, &iv, &isi);
      if (t->scalar_type == ETK_SCALAR_TYPE_BOOL)
        etk_json_bool(j, (int)iv);
      else if (isi)
        etk_json_int(j, iv);
      else
        etk_json_double(j, dv);
    }
    etk_json_end_array(j);
    if (shown < count) {
      etk_json_key(j, "truncated");
      etk_json_bool(j, 1);
    }
  }
  etk_json_end_object(j);
}

/* A STATS vector as {"stats": {"min": ..., ..., "p99_abs": ...}} (counts
 * as integers, NaN and infinities null as every JSON number here), or
 * {"stats": null} without a debug buffer (plus "error" when unreadable). */
static void stats_json(etk_json_t *j, const etk_etdump_t *d,
                       const etk_etdump_tensor_t *t, const uint8_t *buf,
                       size_t len) {
  double st[ETK_TENSOR_STATS_COUNT];
  etk_error_t err;
  etk_error_clear(&err);
  etk_json_begin_object(j);
  etk_json_key(j, "stats");
  if (!buf) {
    etk_json_null(j);
  } else if (etk_etdump_tensor_stats(d, t, buf, len, st, &err) != ETK_OK) {
    etk_json_null(j);
    etk_json_key(j, "error");
    etk_json_cstring(j, err.message);
  } else {
    etk_json_begin_object(j);
    for (unsigned i = 0; i < ETK_TENSOR_STATS_COUNT; i++) {
      etk_json_key(j, etk_tensor_stat_name(i));
      if (i >= ETK_STAT_NAN_COUNT && i <= ETK_STAT_ZERO_COUNT)
        etk_json_int(j, (int64_t)st[i]);
      else
        etk_json_double(j, st[i]);
    }
    etk_json_end_object(j);
  }
  etk_json_end_object(j);
}

static void any_tensor_json(etk_json_t *j, const etk_etdump_t *d,
                            const etk_etdump_tensor_t *t, const uint8_t *buf,
                            size_t len, size_t max_values) {
  if (etk_etdump_tensor_is_stats(d, t))
    stats_json(j, d, t, buf, len);
  else
    tensor_json(j, t, buf, len, max_values);
}

void insp_value_json(etk_json_t *j, const etk_etdump_t *d, uint32_t event,
                     const uint8_t *buf, size_t len, size_t max_values) {
  etk_etdump_value_t v;
  if (etk_etdump_event_value(d, event, &v) != ETK_OK || !v.present) {
    etk_json_null(j);
    return;
  }
  const char *type = etk_etdump_value_type_name(v.type);
  switch (v.type) {
    case ETK_ETDUMP_VALUE_TYPE_TENSOR:
      if (v.member_present) {
        any_tensor_json(j, d, &v.tensor, buf, len, max_values);
        return;
      }
      break;
    case ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST:
      etk_json_begin_object(j);
      etk_json_key(j, "type");
      etk_json_cstring(j, "tensor_list");
      etk_json_key(j, "tensors");
      etk_json_begin_array(j);
      for (uint32_t i = 0; i < v.tensor_count; i++) {
        etk_etdump_tensor_t t;
        if (etk_etdump_value_tensor(d, &v, i, &t) == ETK_OK)
          any_tensor_json(j, d, &t, buf, len, max_values);
      }
      etk_json_end_array(j);
      etk_json_end_object(j);
      return;
    default:
      break;
  }
  etk_json_begin_object(j);
  etk_json_key(j, "type");
  etk_json_cstring(j, type ? type : "?");
  etk_json_key(j, "value");
  switch (v.type) {
    case ETK_ETDUMP_VALUE_TYPE_INT:
      if (v.member_present)
        etk_json_int(j, v.int_value);
      else
        etk_json_null(j);
      break;
    case ETK_ETDUMP_VALUE_TYPE_BOOL:
      if (v.member_present)
        etk_json_bool(j, v.bool_value);
      else
        etk_json_null(j);
      break;
    case ETK_ETDUMP_VALUE_TYPE_FLOAT:
    case ETK_ETDUMP_VALUE_TYPE_DOUBLE:
      if (v.member_present)
        etk_json_double(j, v.real_value);
      else
        etk_json_null(j);
      break;
    default:
      etk_json_null(j);
      break;
  }
  etk_json_end_object(j);
}
