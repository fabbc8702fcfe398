/*
 * etkit/torch.h - torch.save archives and pickles (library etkit_torch):
 * a restricted unpickler, the archive reader and the torch.save writer.
 */
#ifndef ETKIT_TORCH_H
#define ETKIT_TORCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =====================================================================
 * torch.save ARCHIVES AND PICKLES (src/torch/pickle.c, torch_archive.c,
 * torch_writer.c)
 *
 * reference_outputs, representative_inputs and the state dicts of an
 * ETRecord are torch.save archives: a ZIP whose entries sit under one top
 * folder ("archive/" when saved to memory): data.pkl (a protocol-2
 * pickle), byteorder ("little"), version, .data/serialization_id, and one
 * raw storage per tensor storage at data/<key>.  Tensors inside data.pkl
 * are calls of torch._utils._rebuild_tensor_v2 on a persistent id
 * ("storage", torch.<Dtype>Storage, key, location, numel).
 *
 * etkit reads them with a RESTRICTED unpickler: the protocol 2-5 opcodes
 * that build None, bool, int (64-bit), float, str, bytes, tuple, list and
 * dict, the memo, persistent ids, and exactly these globals:
 *   torch._utils._rebuild_tensor_v2        (plain dense tensors)
 *   torch.<Dtype>Storage, torch.UntypedStorage, torch.storage.UntypedStorage
 *   collections.OrderedDict                (called with no arguments)
 * Anything else (another global, NEWOBJ/BUILD/INST/OBJ, sets, out-of-band
 * buffers, extensions, protocol-0 strings) is one clear error naming the
 * opcode or global and its byte offset in data.pkl.  Nothing is ever
 * imported or executed.  Recursive structures (a list that contains
 * itself) are refused: a container cannot change once it has been put
 * inside another one, which is never needed by an acyclic pickle.  Dicts
 * with duplicate keys are refused too (Python's pickler never writes them).
 *
 * A raw pickle (first byte 0x80, what reference_outputs/representative_
 * inputs held before 2026-03 and what the legacy torch.save format starts
 * with) is NOT decoded as an archive: its tensors are torch's own legacy
 * serialisation.  It gives ETK_E_UNSUPPORTED "legacy pickle, not decoded".
 *
 *     etk_torch_archive_t *a;
 *     if (etk_torch_archive_open(bytes, len, NULL, &a, &err) == ETK_OK) {
 *       const etk_pickle_value_t *root = etk_torch_archive_root(a);
 *       const etk_pickle_value_t *w = etk_pickle_dict_get(root, "fc.weight");
 *       if (w && w->kind == ETK_PICKLE_TENSOR)
 *         printf("%s %u-d\n", etk_torch_dtype_name(w->tensor->dtype),
 *                w->tensor->dim);
 *       etk_torch_archive_close(a);
 *     }
 * ===================================================================== */

/* Bounds for hostile archives and pickles.  A limit that is hit gives
 * ETK_E_LIMIT (ETK_E_TOO_DEEP for nesting) with the offset in data.pkl. */
typedef struct etk_pickle_limits {
  uint32_t max_depth;             /* container nesting (default 100; values
                                     above 1000 count as 1000) */
  uint64_t max_objects;           /* values created + stack + memo entries
                                     (default 4 Mi) */
  uint64_t max_pickle_bytes;      /* size of data.pkl (default 256 MiB) */
  uint64_t max_string_bytes;      /* one str or bytes value (default 64 MiB) */
  uint32_t max_dims;              /* dimensions of one tensor (default 64) */
  uint32_t max_entries;           /* ZIP entries of an archive (default 1 Mi) */
  uint64_t max_storage_bytes;     /* one storage (default 4 GiB) */
  uint64_t max_total_bytes;       /* data.pkl + every storage read, the zip-bomb
                                     guard (default 16 GiB) */
  uint32_t max_compression_ratio; /* as etk_etrecord_limits_t's (default
                                 100; 0 = no bound): torch.save stores
                                 entries uncompressed */
} etk_pickle_limits_t;

/* Fills *limits with the defaults above.  `limits` must not be NULL. */
void etk_pickle_limits_default(etk_pickle_limits_t *limits);

typedef enum etk_pickle_kind {
  ETK_PICKLE_NONE = 0,
  ETK_PICKLE_BOOL,    /* b */
  ETK_PICKLE_INT,     /* i (ints beyond int64 are refused) */
  ETK_PICKLE_FLOAT,   /* f */
  ETK_PICKLE_STR,     /* str/len: UTF-8, NUL-terminated (may hold NULs) */
  ETK_PICKLE_BYTES,   /* str/len: raw bytes (NUL-terminated for convenience) */
  ETK_PICKLE_TUPLE,   /* items/count */
  ETK_PICKLE_LIST,    /* items/count */
  ETK_PICKLE_DICT,    /* keys in items[], values in values[], insertion
                         order; `ordered` for collections.OrderedDict */
  ETK_PICKLE_TENSOR,  /* tensor (a plain dense torch.Tensor) */
  ETK_PICKLE_STORAGE, /* tensor, viewed as 1-D: a bare storage */
  ETK_PICKLE_GLOBAL   /* str: "module.name" of an allow-listed class that
                         was pickled as a value (e.g. inside a tuple) */
} etk_pickle_kind_t;

/* Python's name of a kind: "NoneType", "bool", "int", "float", "str",
 * "bytes", "tuple", "list", "dict", "Tensor", "Storage", "type"; never
 * NULL. */
const char *etk_pickle_kind_name(etk_pickle_kind_t kind);

/* A tensor decoded from a torch.save archive.  `dtype` uses the c10
 * ScalarType codes of etk_scalar_type_t (etkit/schema.h): uint8 0, int8 1,
 * int16 2, int32 3, int64 4, float16 5, float32 6, float64 7, bool 11,
 * bfloat16 15 (complex and quantized storages are refused).  Element
 * (i0, i1, ...) is at byte (storage_offset + sum(ik * strides[k])) *
 * element_size of `storage`; every such element is inside the storage
 * (checked when decoding). */
typedef struct etk_torch_tensor {
  int32_t dtype;
  size_t element_size;
  uint32_t dim;
  const int64_t *sizes;   /* dim entries, >= 0 (NULL when dim is 0) */
  const int64_t *strides; /* in elements, >= 0 (NULL when dim is 0) */
  int64_t storage_offset; /* in elements */
  uint64_t numel;         /* product of sizes */
  bool contiguous;        /* C-contiguous: the numel elements start at
                             storage + storage_offset * element_size */
  bool requires_grad;
  const char *storage_key; /* "0", ... (the data/<key> entry) */
  const char *location;    /* "cpu", "cuda:0", ... */
  const uint8_t *storage;  /* little-endian bytes; owned by the archive */
  uint64_t storage_nbytes; /* storage numel * element_size */
} etk_torch_tensor_t;

typedef struct etk_pickle_value etk_pickle_value_t;
struct etk_pickle_value {
  etk_pickle_kind_t kind;
  bool b;
  int64_t i;
  double f;
  const char *str; /* STR, BYTES, GLOBAL */
  size_t len;
  const etk_pickle_value_t *const *items;  /* TUPLE, LIST; DICT keys */
  const etk_pickle_value_t *const *values; /* DICT values */
  size_t count;
  bool ordered;                     /* DICT made by collections.OrderedDict */
  const etk_torch_tensor_t *tensor; /* TENSOR, STORAGE */
};

/* numpy-style name of a dtype code: "float32", "int64", "bool",
 * "bfloat16", ...; NULL for a code the reader does not decode. */
const char *etk_torch_dtype_name(int32_t dtype);

/* Bytes per element of a decodable dtype code, 0 otherwise. */
size_t etk_torch_dtype_size(int32_t dtype);

/* A decoded archive or pickle: every value, string and storage below its
 * root.  Pointers stay valid until etk_torch_archive_close(). */
typedef struct etk_torch_archive etk_torch_archive_t;

/* Opens a torch.save archive held in data[0..len).  The bytes are only
 * read during the call: data.pkl and every storage a tensor names are
 * copied into the archive, so the caller may free them at once.  Cost:
 * one pass over the pickle plus the storages' bytes.  `limits` NULL means
 * the defaults.  `where` (may be NULL) names the input in errors (e.g. an
 * ETRecord member); entries inside it are appended ("reference_outputs:
 * archive/data.pkl").  Errors: ETK_E_INVALID_ARGUMENT (NULL out, data NULL
 * with len > 0), ETK_E_UNSUPPORTED ("legacy pickle, not decoded" for a
 * raw pickle; a disallowed global or opcode; big-endian storages; an
 * unsupported dtype), ETK_E_BAD_IDENTIFIER (neither ZIP nor pickle),
 * ETK_E_FORMAT (no top folder, no data.pkl, a malformed pickle, a tensor
 * that reaches outside its storage), ETK_E_NOT_FOUND (a storage entry is
 * missing), ETK_E_TRUNCATED, ETK_E_LIMIT, ETK_E_TOO_DEEP, ETK_E_BAD_UTF8,
 * ETK_E_NO_MEMORY.  *out is NULL on failure. */
int etk_torch_archive_open(const void *data, size_t len,
                           const etk_pickle_limits_t *limits, const char *where,
                           etk_torch_archive_t **out, etk_error_t *err);

/* Decodes a bare pickle (no archive, so persistent ids are refused) with
 * the same restrictions: for pickles of plain Python values.  The bytes
 * are not needed after the call.  Errors as above. */
int etk_pickle_load(const void *data, size_t len,
                    const etk_pickle_limits_t *limits, const char *where,
                    etk_torch_archive_t **out, etk_error_t *err);

/* The root value (never NULL for an open archive). */
const etk_pickle_value_t *etk_torch_archive_root(const etk_torch_archive_t *a);

/* Frees everything.  NULL is a no-op. */
void etk_torch_archive_close(etk_torch_archive_t *a);

/* The value of str key `key` in a DICT value, or NULL (not a dict, no such
 * key, or NULL arguments). */
const etk_pickle_value_t *etk_pickle_dict_get(const etk_pickle_value_t *dict,
                                              const char *key);

/* Copies the tensor's elements in C order (row major over `sizes`,
 * strides applied) into out[0..out_len).  ETK_E_INVALID_ARGUMENT when
 * out_len < numel * element_size or for NULL arguments. */
int etk_torch_tensor_copy(const etk_torch_tensor_t *t, void *out,
                          uint64_t out_len);

/* ------------------------------------------------------------ writing */

/* Writes `root` as a torch.save archive (the layout of torch 2.x with
 * pickle protocol 2: top folder "archive", 64-byte aligned entries with an
 * "FB" padding field, data descriptors and ZIP64 end records, as torch's
 * writer does), so torch.load(weights_only=True) reads it back.  Accepted
 * kinds: NONE, BOOL, INT, FLOAT, STR, TUPLE, LIST, DICT (str, int, float,
 * bool, None or tuple keys) and TENSOR (dtype, dim, sizes, strides (NULL =
 * contiguous), storage_offset, storage/storage_nbytes: the element bytes
 * are read with the strides and written contiguously, one storage per
 * tensor; storage_key and location are ignored).  BYTES, STORAGE and
 * GLOBAL are ETK_E_UNSUPPORTED (protocol 2 cannot hold bytes without a
 * global the reader refuses).  A node reached twice is written once and
 * referenced from the memo, like Python's pickler; cycles are
 * ETK_E_INVALID_ARGUMENT.  On success *out is malloc'd (free()).  Errors:
 * ETK_E_INVALID_ARGUMENT (NULL arguments, a tensor whose elements leave
 * its storage, nesting deeper than 1000), ETK_E_UNSUPPORTED,
 * ETK_E_NO_MEMORY. */
int etk_torch_save_memory(const etk_pickle_value_t *root, uint8_t **out,
                          size_t *out_len, etk_error_t *err);

/* 1 when etk_torch_save_memory() can write tensors of `dtype` (BYTE, CHAR,
 * SHORT, INT, LONG, HALF, FLOAT, DOUBLE, BOOL, BFLOAT16), else 0. */
int etk_torch_dtype_writable(int32_t dtype);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_TORCH_H */
