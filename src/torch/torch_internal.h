/*
 * torch_internal.h - private interfaces between the restricted unpickler
 * (pickle.c), the torch.save archive reader (torch_archive.c) and the
 * torch.save writer (torch_writer.c).
 *
 * An etk_torch_archive owns one arena (nodes, strings, tensor metadata),
 * the malloc'd item arrays of its containers (listed in `nodes` so that
 * close can free them) and the storages it read.  Nothing points outside
 * it: the archive bytes given to etk_torch_archive_open() are only read
 * while opening.
 */
#ifndef ETKIT_TORCH_INTERNAL_H
#define ETKIT_TORCH_INTERNAL_H

#include <stdbool.h>

#include "common/buffers.h"
#include "common/vec.h"
#include "etkit/torch.h"
#include "etkit/utf8.h"

/* One storage read from data/<key>, shared by every tensor that names it. */
typedef struct tk_storage {
  char *key;
  uint8_t *data; /* malloc'd, nbytes (+1 so that 0 bytes is not NULL) */
  uint64_t nbytes;
} tk_storage_t;

/* A value under construction: the public value plus what the VM needs to
 * grow containers and to refuse cycles (see pickle.c). */
typedef struct tk_node {
  etk_pickle_value_t pub; /* first: the public pointer is the node's */
  const etk_pickle_value_t **items, **values; /* malloc'd, `cap` slots */
  size_t cap;
  uint32_t height; /* 1 for leaves, 1 + the tallest item for containers */
  bool frozen;     /* put inside another container: no more changes */
  int global;      /* tk_global_t for GLOBAL nodes */
  uint64_t offset; /* of the opcode that made it (for errors) */
} tk_node_t;

struct etk_torch_archive {
  etk_pickle_limits_t limits;
  etr_arena_t arena;
  tk_node_t **nodes; /* every node, for freeing item arrays */
  size_t node_count, node_cap;
  tk_storage_t *storages;
  size_t storage_count, storage_cap;
  uint64_t bytes_read; /* charged against limits.max_total_bytes */
  const etk_pickle_value_t *root;
  /* archive reading state (torch_archive.c); NULL for bare pickles */
  void *zip;      /* zip_t * */
  char *prefix;   /* "archive/" */
  char where[96]; /* what errors name */
};

/* Storage lookup used by the VM for persistent ids: finds or reads
 * data/<key> and checks that it holds at least `nbytes` bytes.  Sets
 * *storage.  Errors name the entry. */
typedef int (*tk_storage_fn)(etk_torch_archive_t *a, const char *key,
                             uint64_t nbytes, const tk_storage_t **storage,
                             etk_error_t *err);

/* Runs the restricted unpickler over data[0..len) and sets a->root.
 * `load` NULL refuses persistent ids.  `where` names data.pkl in errors. */
int tk_unpickle(etk_torch_archive_t *a, const uint8_t *data, size_t len,
                tk_storage_fn load, const char *where, etk_error_t *err);

/* Allocates an empty archive object with `limits` (NULL = defaults). */
etk_torch_archive_t *tk_archive_new(const etk_pickle_limits_t *limits);

/* The torch.<Dtype>Storage class name of c10 ScalarType `dtype`
 * ("FloatStorage" for 6), from the dtype table the reader recognises
 * storages by; NULL for a dtype the reader refuses (complex, quantized)
 * or does not know. */
const char *tk_storage_class(int32_t dtype);

/* CRC-32 (ZIP polynomial) of data[0..len), continuing from `crc` (0 to
 * start). */
uint32_t tk_crc32(uint32_t crc, const uint8_t *data, size_t len);

#endif /* ETKIT_TORCH_INTERNAL_H */
