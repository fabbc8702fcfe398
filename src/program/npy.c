/*
 * npy.c - NumPy .npy arrays: the input/output format of `etkit run`.
 *
 * FORMAT
 *   "\x93NUMPY" u8 major u8 minor, then the header length (u16 for 1.x,
 *   u32 for 2.x and 3.x), then a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }
 *   padded with spaces and a newline so the data starts 64-byte aligned
 *   (16 in old files), then the raw elements.
 *
 * The parser accepts exactly the dict shape NumPy writes (keys in any
 * order, single or double quotes), little-endian or byte-order-free
 * descriptors of the plain numeric types, C order only, rank <= 16, and
 * checks that the data holds exactly numel x element size bytes (trailing
 * bytes are an error).  A key given twice is an error too (Python's dict
 * literal would keep the last; etkit refuses the ambiguity), as is text
 * after the dict other than the padding.  It never
 * reads past the header length it was given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/schema.h"
#include "program_internal.h"

typedef struct npy_type {
  const char *descr; /* without byte order */
  int scalar_type;
} npy_type_t;

static const npy_type_t npy_types[] = {
    {"b1", 11}, {"i1", 1}, {"u1", 0},  {"i2", 2}, {"u2", 27}, {"i4", 3},
    {"u4", 28}, {"i8", 4}, {"u8", 29}, {"f2", 5}, {"f4", 6},  {"f8", 7},
};

static const char *npy_descr(int scalar_type) {
  for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; i++)
    if (npy_types[i].scalar_type == scalar_type) return npy_types[i].descr;
  return NULL;
}

/* A tiny cursor over the header text. */
typedef struct text {
  const char *p, *end;
} text_t;

static void skip_ws(text_t *t) {
  while (t->p < t->end &&
         (*t->p == ' ' || *t->p == '\t' || *t->p == '\n' || *t->p == '\r'))
    t->p++;
}

static int expect(text_t *t, char c) {
  skip_ws(t);
  if (t->p < t->end && *t->p == c) {
    t->p++;
    return 1;
  }
  return 0;
}

/* Reads a quoted string into out (max n-1 chars). */
static int read_str(text_t *t, char *out, size_t n) {
  skip_ws(t);
  if (t->p >= t->end || (*t->p != '\'' && *t->p != '"')) return 0;
  char q = *t->p++;
  size_t k = 0;
  while (t->p < t->end && *t->p != q) {
    if (k + 1 >= n) return 0;
    out[k++] = *t->p++;
  }
  if (t->p >= t->end) return 0;
  t->p++;
  out[k] = 0;
  return 1;
}

int etk_npy_parse(const uint8_t *data, size_t len, etk_npy_t **out,
                  etk_error_t *err) {
  if (!out || (!data && len))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  if (len < 10 || memcmp(data, "\x93NUMPY", 6) != 0)
    return etk_error_set(err, ETK_E_BAD_IDENTIFIER, 0, "not a NumPy .npy file");
  uint8_t major = data[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = (size_t)data[8] | (size_t)data[9] << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12)
      return etk_error_set(err, ETK_E_TRUNCATED, len, "truncated .npy header");
    hlen = etk_fb_load_u32(data + 8);
    hstart = 12;
  } else {
    return etk_error_set(err, ETK_E_UNSUPPORTED, 6,
                         ".npy format version %u is not supported", major);
  }
  if (hlen > len - hstart)
    return etk_error_set(err, ETK_E_TRUNCATED, hstart,
                         ".npy header of %zu bytes runs past the file", hlen);
  text_t t = {(const char *)data + hstart, (const char *)data + hstart + hlen};
  char descr[16] = "";
  int fortran = -1, have_shape = 0;
  int32_t sizes[ETK_PROGRAM_MAX_DIMS];
  uint32_t dim = 0;
  unsigned seen = 0; /* bit per key: descr, fortran_order, shape */
  if (!expect(&t, '{'))
    return etk_error_set(err, ETK_E_FORMAT, hstart,
                         ".npy header is not a dict");
  for (;;) {
    if (expect(&t, '}')) break;
    char key[32];
    if (!read_str(&t, key, sizeof key) || !expect(&t, ':'))
      return etk_error_set(err, ETK_E_FORMAT, hstart, "malformed .npy header");
    unsigned bit = strcmp(key, "descr") == 0           ? 1u
                   : strcmp(key, "fortran_order") == 0 ? 2u
                   : strcmp(key, "shape") == 0         ? 4u
                                                       : 0u;
    if (bit & seen)
      return etk_error_set(err, ETK_E_FORMAT, hstart,
                           "duplicate .npy header key '%s'", key);
    seen |= bit;
    if (strcmp(key, "descr") == 0) {
      if (!read_str(&t, descr, sizeof descr))
        return etk_error_set(err, ETK_E_FORMAT, hstart, "bad .npy descr");
    } else if (strcmp(key, "fortran_order") == 0) {
      skip_ws(&t);
      if ((size_t)(t.end - t.p) >= 5 && memcmp(t.p, "False", 5) == 0) {
        fortran = 0;
        t.p += 5;
      } else if ((size_t)(t.end - t.p) >= 4 && memcmp(t.p, "True", 4) == 0) {
        fortran = 1;
        t.p += 4;
      } else {
        return etk_error_set(err, ETK_E_FORMAT, hstart, "bad fortran_order");
      }
    } else if (strcmp(key, "shape") == 0) {
      if (!expect(&t, '('))
        return etk_error_set(err, ETK_E_FORMAT, hstart, "bad .npy shape");
      have_shape = 1;
      while (!expect(&t, ')')) {
        skip_ws(&t);
        long long v = 0;
        int digits = 0;
        while (t.p < t.end && *t.p >= '0' && *t.p <= '9') {
          v = v * 10 + (*t.p++ - '0');
          if (v > 0x7FFFFFFF)
            return etk_error_set(err, ETK_E_LIMIT, hstart,
                                 ".npy dimension too large");
          digits++;
        }
        if (t.p < t.end && *t.p == 'L') t.p++;
        if (!digits || dim >= ETK_PROGRAM_MAX_DIMS)
          return etk_error_set(err, ETK_E_FORMAT, hstart,
                               "bad .npy shape (rank at most %d)",
                               ETK_PROGRAM_MAX_DIMS);
        sizes[dim++] = (int32_t)v;
        expect(&t, ',');
      }
    } else {
      return etk_error_set(err, ETK_E_FORMAT, hstart,
                           "unknown .npy header key '%s'", key);
    }
    if (!expect(&t, ',')) {
      if (!expect(&t, '}'))
        return etk_error_set(err, ETK_E_FORMAT, hstart,
                             "malformed .npy header");
      break;
    }
  }
  skip_ws(&t);
  if (t.p != t.end)
    return etk_error_set(err, ETK_E_FORMAT, hstart,
                         "unexpected text after the .npy header dict");
  if (!descr[0] || fortran < 0 || !have_shape)
    return etk_error_set(err, ETK_E_FORMAT, hstart,
                         ".npy header lacks descr, fortran_order or shape");
  if (fortran)
    return etk_error_set(err, ETK_E_UNSUPPORTED, hstart,
                         "Fortran-order arrays are not supported");
  const char *d = descr;
  if (*d == '<' || *d == '|' || *d == '=')
    d++;
  else if (*d == '>' && !(d[1] && d[2] == '1'))
    return etk_error_set(err, ETK_E_UNSUPPORTED, hstart,
                         "big-endian arrays ('%s') are not supported", descr);
  else if (*d == '>')
    d++;
  int st = -1;
  for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; i++)
    if (strcmp(npy_types[i].descr, d) == 0) st = npy_types[i].scalar_type;
  if (st < 0)
    return etk_error_set(err, ETK_E_UNSUPPORTED, hstart,
                         ".npy dtype '%s' is not supported", descr);
  uint64_t nbytes;
  if (etk_shape_nbytes(sizes, dim, etk_scalar_type_size(st), &nbytes) != ETK_OK)
    return etk_error_set(err, ETK_E_OVERFLOW, hstart, ".npy size overflows");
  size_t dstart = hstart + hlen;
  if (nbytes != len - dstart)
    return etk_error_set(
        err, ETK_E_FORMAT, dstart,
        ".npy data holds %zu bytes, the shape needs %llu "
        "(%s)",
        len - dstart, (unsigned long long)nbytes,
        nbytes < len - dstart ? "trailing bytes" : "truncated data");
  size_t head = (sizeof(etk_npy_t) + 63) & ~(size_t)63;
  uint8_t *mem = etk_aligned_malloc(head + (size_t)nbytes);
  if (!mem)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_npy_t *npy = (etk_npy_t *)(void *)mem;
  memset(npy, 0, sizeof *npy);
  npy->scalar_type = st;
  npy->dim = dim;
  memcpy(npy->sizes, sizes, dim * sizeof *sizes);
  npy->nbytes = nbytes;
  npy->data = mem + head;
  if (nbytes) memcpy(mem + head, data + dstart, (size_t)nbytes);
  *out = npy;
  return ETK_OK;
}

int etk_npy_read_file(const char *path, etk_npy_t **out, etk_error_t *err) {
  uint8_t *data;
  size_t len;
  int rc = etk_read_file(path, 0, &data, &len, err);
  if (rc != ETK_OK) return rc;
  rc = etk_npy_parse(data, len, out, err);
  free(data);
  if (rc != ETK_OK) etk_error_where(err, path);
  return rc;
}

void etk_npy_free(etk_npy_t *npy) {
  etk_aligned_free(npy);
}

int etk_npy_write_file(const char *path, int scalar_type, uint32_t dim,
                       const int32_t *sizes, const void *data, uint64_t nbytes,
                       etk_error_t *err) {
  const char *d = npy_descr(scalar_type);
  if (!path || (dim && !sizes) || (nbytes && !data))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  if (!d)
    return etk_error_set(err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                         "%s has no NumPy dtype",
                         etk_scalar_type_name(scalar_type));
  uint64_t need;
  if (dim > ETK_PROGRAM_MAX_DIMS ||
      etk_shape_nbytes(sizes, dim, etk_scalar_type_size(scalar_type), &need) !=
          ETK_OK ||
      need != nbytes)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "shape and byte count disagree");
  char shape[16 * 14 + 8] = "(";
  for (uint32_t k = 0; k < dim; k++) {
    char one[16];
    snprintf(one, sizeof one, "%d%s", sizes[k],
             dim == 1      ? ","
             : k + 1 < dim ? ", "
                           : "");
    strcat(shape, one);
  }
  strcat(shape, ")");
  char header[512];
  int n = snprintf(header, sizeof header,
                   "{'descr': '%s%s', 'fortran_order': False, 'shape': %s, }",
                   d[1] == '1' ? "|" : "<", d, shape);
  size_t total = 10 + (size_t)n + 1;
  size_t padded = (total + 63) & ~(size_t)63;
  size_t hlen = padded - 10;
  uint8_t pre[10] = {0x93, 'N', 'U', 'M',           'P',
                     'Y',  1,   0,   (uint8_t)hlen, (uint8_t)(hlen >> 8)};
  etk_outfile_t of;
  int rc = etk_outfile_open(&of, path, err);
  if (rc != ETK_OK) return rc;
  fwrite(pre, 1, sizeof pre, of.fp);
  fwrite(header, 1, (size_t)n, of.fp);
  for (size_t k = (size_t)n; k + 1 < hlen; k++) fputc(' ', of.fp);
  fputc('\n', of.fp);
  if (nbytes) fwrite(data, 1, (size_t)nbytes, of.fp);
  return etk_outfile_commit(&of, err);
}
