/*
 * etkit/program_tools.h - what is in a loaded program, as upstream's
 * program tools report it: the operators each method calls (and the
 * selected_operators.yaml that upstream's selective build reads, as
 * codegen/tools/gen_oplist.py --model_file_path writes it), the sizes
 * devtools/size_analysis_tool gives (constant tensors, delegate payloads,
 * planned buffers), and the difference between two programs
 * (devtools/pte_tool/diff_pte.py: structure and constants).
 *
 * Everything here reads an etk_program_t that etk_program_load() checked
 * and allocates only what its result needs (bounded by the program's own
 * tables).  Host only.
 */
#ifndef ETKIT_PROGRAM_TOOLS_H
#define ETKIT_PROGRAM_TOOLS_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ operators */

/* counts[k] = the number of KernelCall instructions (all chains) of `plan`
 * that call operator k; `counts` holds plan->operator_count entries.
 * Returns the plan's KernelCall total. */
uint32_t etk_program_op_calls(const etk_program_plan_t *plan, uint32_t *counts);

/* The selected_operators.yaml of `program`, byte for byte as upstream's
 * gen_oplist.py --model_file_path writes it (yaml.safe_dump, keys
 * sorted): every operator of every method (debug_info: `model_name`) and
 * et_kernel_metadata, per called operator its sorted, distinct kernel keys
 * "v1/<dtype>;<dim order>|..." over the tensor arguments of each call.
 * *out is malloc'd, NUL-terminated (caller frees), *len its length. */
int etk_program_selective_build_yaml(const etk_program_t *program,
                                     const char *model_name, char **out,
                                     size_t *len, etk_error_t *err);

/* ---------------------------------------------------------------- sizes */

typedef struct etk_program_size_tensor {
  uint32_t plan;         /* method index */
  uint32_t value;        /* value index in that method */
  const char *name;      /* fully qualified name, or NULL */
  int32_t scalar_type;   /* c10 code */
  uint32_t dim;          /* rank */
  const int32_t *sizes;  /* dim entries */
  uint64_t numel;        /* elements */
  uint64_t nbytes;       /* numel x element size */
  uint32_t buffer_index; /* constant buffer (data_buffer_idx) */
  bool shared;           /* the same constant buffer is counted once: later
                            tensors of it are marked shared and excluded
                            from the totals */
} etk_program_size_tensor_t;

typedef struct etk_program_size_delegate {
  uint32_t plan, index; /* method, delegate index */
  const char *backend_id;
  uint64_t nbytes; /* processed payload bytes */
  bool in_segment; /* payload in a segment (else inline in the table) */
} etk_program_size_delegate_t;

typedef struct etk_program_size_buffer {
  uint32_t plan;      /* method */
  uint32_t memory_id; /* 1-based planned buffer */
  uint64_t nbytes;    /* non_const_buffer_sizes[memory_id] */
  uint32_t tensors;   /* planned tensors placed in it */
} etk_program_size_buffer_t;

typedef struct etk_program_sizes {
  /* constant tensors, largest first (ties by method, value) */
  etk_program_size_tensor_t *tensors;
  size_t tensor_count;
  /* delegate payloads, largest first */
  etk_program_size_delegate_t *delegates;
  size_t delegate_count;
  /* planned buffers by method then memory id */
  etk_program_size_buffer_t *buffers;
  size_t buffer_count;
  /* upstream's overview */
  uint64_t total_tensor_data_size;        /* distinct constant buffers */
  uint64_t total_delegate_blob_data_size; /* every payload */
  uint64_t model_size;                    /* the file's bytes */
  uint64_t serialization_metadata_size;   /* model - tensors - blobs */
  uint64_t total_planned_bytes;           /* every planned buffer */
} etk_program_sizes_t;

/* Fills *out (free with etk_program_sizes_free). */
int etk_program_sizes_build(const etk_program_t *program,
                            etk_program_sizes_t *out, etk_error_t *err);
void etk_program_sizes_free(etk_program_sizes_t *s);

/* The module of a constant's fully qualified name: everything before its
 * last '.' ("layer1.0.conv" for "layer1.0.conv.weight"), "" when it has no
 * '.' or no name.  Writes at most cap bytes (NUL included) to out and
 * returns the module's length. */
size_t etk_program_fqn_module(const char *fqn, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_PROGRAM_TOOLS_H */
