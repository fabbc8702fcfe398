/*
 * names.h - private to etkit_graph: the (graph, name) lookup tables and
 * the dtype names (names.c).  The bottom of the library: names.c uses
 * nothing else of it, and every other file of src/graph may use it.
 */
#ifndef ETKIT_GRAPH_NAMES_H
#define ETKIT_GRAPH_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"

/* Looks up (graph, name) in a name table; ETK_GRAPH_NONE when absent (or
 * when a key longer than 256 bytes cannot be allocated).  `h`, `of_id`
 * and `name` are not NULL; nothing is kept. */
size_t graph_name_find(const etk_hash_t *h, const size_t *of_id, size_t graph,
                       const char *name);

/* Adds (graph, name) -> index; *is_new false when it was there (index
 * unchanged).  *of_id grows with the table (realloc'd, owned by the
 * caller).  ETK_E_NO_MEMORY / ETK_E_LIMIT leave both unchanged. */
int graph_name_add(etk_hash_t *h, size_t **of_id, size_t *cap, size_t graph,
                   const char *name, size_t index, bool *is_new);

/* etk_scalar_type code of a serde ScalarType, -1 when unknown. */
int32_t graph_dtype_from_serde(int64_t serde);

/* "torch.float32"-style name of an etk_scalar_type code, or of a serde
 * code when the first is -1; a static string, never NULL. */
const char *graph_torch_dtype_name(int32_t dtype, int32_t serde);

#endif /* ETKIT_GRAPH_NAMES_H */
