/*
 * names.c - the graph library's lookup tables and names: the (graph,
 * name) -> index tables behind etk_graph_find_node/value, the serde
 * ScalarType -> c10 dtype mapping with torch's dtype names, and the names
 * of the argument, input and output kinds.
 *
 * A table key is the graph index's bytes followed by the name's bytes (no
 * terminator), so one hash table serves every graph of a program; the
 * table hands out dense ids, and `of_id` maps an id to the node or value
 * index.  Keys up to 256 bytes are built on the stack.  Everything here is
 * a leaf: it uses no other file of the library (names.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "etkit/graph.h"
#include "names.h"

/* ------------------------------------------------------------ name tables */

static size_t key_build(char *buf, size_t cap, size_t graph, const char *name,
                        size_t *len) {
  size_t n = strlen(name);
  *len = sizeof graph + n;
  if (*len > cap) return 0;
  memcpy(buf, &graph, sizeof graph);
  memcpy(buf + sizeof graph, name, n);
  return *len;
}

size_t graph_name_find(const etk_hash_t *h, const size_t *of_id, size_t graph,
                       const char *name) {
  char small[256];
  size_t len;
  char *key = small;
  size_t n = strlen(name) + sizeof graph;
  if (n > sizeof small && !(key = malloc(n))) return ETK_GRAPH_NONE;
  key_build(key, n > sizeof small ? n : sizeof small, graph, name, &len);
  uint32_t id = etk_hash_find(h, key, len);
  if (key != small) free(key);
  return id == ETK_HASH_NONE ? ETK_GRAPH_NONE : of_id[id];
}

int graph_name_add(etk_hash_t *h, size_t **of_id, size_t *cap, size_t graph,
                   const char *name, size_t index, bool *is_new) {
  char small[256];
  size_t len;
  char *key = small;
  size_t n = strlen(name) + sizeof graph;
  if (n > sizeof small && !(key = malloc(n))) return ETK_E_NO_MEMORY;
  key_build(key, n > sizeof small ? n : sizeof small, graph, name, &len);
  /* room for the id first, so that a failure leaves both unchanged */
  if (!ETK_VEC_RESERVE(*of_id, *cap, etk_hash_count(h) + 1)) {
    if (key != small) free(key);
    return ETK_E_NO_MEMORY;
  }
  uint32_t id;
  int rc = etk_hash_put(h, key, len, &id, is_new);
  if (key != small) free(key);
  if (rc == ETK_OK && *is_new) (*of_id)[id] = index;
  return rc;
}

/* ----------------------------------------------------------------- dtypes */

int32_t graph_dtype_from_serde(int64_t serde) {
  /* schema.py ScalarType -> c10 (etk_scalar_type_t).  14..16 are the
   * older schema's UINT16 / FLOAT8E5M2 / FLOAT8E4M3FN, 28.. the newer. */
  switch (serde) {
    case 1:
      return 0; /* BYTE uint8 */
    case 2:
      return 1; /* CHAR int8 */
    case 3:
      return 2; /* SHORT */
    case 4:
      return 3; /* INT */
    case 5:
      return 4; /* LONG */
    case 6:
      return 5; /* HALF */
    case 7:
      return 6; /* FLOAT */
    case 8:
      return 7; /* DOUBLE */
    case 9:
      return 8; /* COMPLEXHALF */
    case 10:
      return 9; /* COMPLEXFLOAT */
    case 11:
      return 10; /* COMPLEXDOUBLE */
    case 12:
      return 11; /* BOOL */
    case 13:
      return 15; /* BFLOAT16 */
    case 14:
      return 27; /* UINT16 (older schema) */
    case 15:
      return 23; /* FLOAT8E5M2 (older schema) */
    case 16:
      return 24; /* FLOAT8E4M3FN (older schema) */
    case 28:
      return 27; /* UINT16 */
    case 29:
      return 24; /* FLOAT8E4M3FN */
    case 30:
      return 23; /* FLOAT8E5M2 */
    case 31:
      return 26; /* FLOAT8E4M3FNUZ */
    case 32:
      return 25; /* FLOAT8E5M2FNUZ */
    default:
      return -1;
  }
}

const char *graph_torch_dtype_name(int32_t dtype, int32_t serde) {
  static const struct {
    int32_t code;
    const char *name;
  } names[] = {{0, "torch.uint8"},
               {1, "torch.int8"},
               {2, "torch.int16"},
               {3, "torch.int32"},
               {4, "torch.int64"},
               {5, "torch.float16"},
               {6, "torch.float32"},
               {7, "torch.float64"},
               {8, "torch.complex32"},
               {9, "torch.complex64"},
               {10, "torch.complex128"},
               {11, "torch.bool"},
               {15, "torch.bfloat16"},
               {23, "torch.float8_e5m2"},
               {24, "torch.float8_e4m3fn"},
               {25, "torch.float8_e5m2fnuz"},
               {26, "torch.float8_e4m3fnuz"},
               {27, "torch.uint16"}};
  if (dtype < 0) dtype = graph_dtype_from_serde(serde);
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (names[k].code == dtype) return names[k].name;
  return "torch.unknown";
}

/* ------------------------------------------------------------- kind names */

const char *etk_graph_arg_kind_name(etk_graph_arg_kind_t kind) {
  static const char *const names[] = {"unknown",
                                      "as_none",
                                      "as_tensor",
                                      "as_tensors",
                                      "as_optional_tensor",
                                      "as_optional_tensors",
                                      "as_int",
                                      "as_ints",
                                      "as_float",
                                      "as_floats",
                                      "as_bool",
                                      "as_bools",
                                      "as_string",
                                      "as_strings",
                                      "as_scalar_type",
                                      "as_memory_format",
                                      "as_layout",
                                      "as_device",
                                      "as_sym_int",
                                      "as_sym_ints",
                                      "as_sym_bool",
                                      "as_sym_bools",
                                      "as_sym_float",
                                      "as_sym_floats",
                                      "as_graph",
                                      "as_custom_obj",
                                      "as_operator",
                                      "as_complex",
                                      "as_int_lists",
                                      "as_nested_tensors",
                                      "as_string_to_argument",
                                      "as_token"};
  if ((size_t)kind < sizeof names / sizeof names[0]) return names[kind];
  return "unknown";
}

const char *etk_graph_input_kind_name(etk_graph_input_kind_t kind) {
  static const char *const names[] = {
      "unknown",         "user_input", "parameter", "buffer",
      "tensor_constant", "custom_obj", "token",     "constant_input"};
  if ((size_t)kind < sizeof names / sizeof names[0]) return names[kind];
  return "unknown";
}

const char *etk_graph_output_kind_name(etk_graph_output_kind_t kind) {
  static const char *const names[] = {"unknown",
                                      "user_output",
                                      "loss_output",
                                      "buffer_mutation",
                                      "gradient_to_parameter",
                                      "gradient_to_user_input",
                                      "user_input_mutation",
                                      "token",
                                      "parameter_mutation"};
  if ((size_t)kind < sizeof names / sizeof names[0]) return names[kind];
  return "unknown";
}
