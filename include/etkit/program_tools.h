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

/* ----------------------------------------------------------------- diff */

/* Metadata fields of a tensor that differ (etk_program_diff_tensor_t). */
#define ETK_PDIFF_DTYPE 0x001u
#define ETK_PDIFF_SIZES 0x002u
#define ETK_PDIFF_DIM_ORDER 0x004u
#define ETK_PDIFF_STORAGE_OFFSET 0x008u
#define ETK_PDIFF_REQUIRES_GRAD 0x010u
#define ETK_PDIFF_LAYOUT 0x020u
#define ETK_PDIFF_BUFFER_INDEX 0x040u /* data_buffer_idx */
#define ETK_PDIFF_ALLOCATION 0x080u   /* planned, memory id or offset */
#define ETK_PDIFF_DYNAMISM 0x100u     /* shape_dynamism */
#define ETK_PDIFF_NAME 0x200u         /* fully qualified name */
#define ETK_PDIFF_EXTERNAL 0x400u     /* data location */

/* A tensor value at the same index of the same method that differs. */
typedef struct etk_program_diff_tensor {
  uint32_t plan, value;
  const etk_program_tensor_t *a, *b; /* borrowed from the programs */
  unsigned fields;                   /* ETK_PDIFF_* */
  bool has_data;      /* either side has constant or initial data */
  bool bytes_differ;  /* the data bytes differ (or one side has none) */
  uint64_t elements;  /* compared (the smaller side's) */
  uint64_t differing; /* elements whose bits differ */
  uint64_t nan;       /* differing elements with a NaN on one side */
  double max_abs;     /* max |a - b| over differing finite elements */
  double mean_abs;    /* mean |a - b| over them (upstream's mean_abs_diff) */
  double max_rel;     /* max |a - b| / max(|a|, |b|) (0..2) */
} etk_program_diff_tensor_t;

/* A non-tensor value (or a tensor against another kind) that differs. */
typedef struct etk_program_diff_value {
  uint32_t plan, value;
  int32_t tag_a, tag_b; /* KernelTypes codes */
} etk_program_diff_value_t;

typedef struct etk_program_diff_plan {
  uint32_t index;
  const char *name_a, *name_b;
  bool name_differs, buffers_differ; /* non_const_buffer_sizes */
  uint32_t values_a, values_b, instructions_a, instructions_b;
  /* multiset differences of operator names and delegate ids, sorted */
  const char **ops_only_a, **ops_only_b, **delegates_only_a, **delegates_only_b;
  size_t ops_only_a_count, ops_only_b_count, delegates_only_a_count,
      delegates_only_b_count;
  size_t first_tensor, tensor_count; /* into etk_program_diff_t.tensors */
  size_t first_value, value_count;   /* into etk_program_diff_t.values */
  uint32_t extra_tensors_a, extra_tensors_b; /* tensors past the shorter
                                                value table */
} etk_program_diff_plan_t;

typedef struct etk_program_diff {
  bool bitwise_equal;
  bool differs; /* any difference below (0 = identical in structure and
                   constants, even when the bytes are not) */
  uint64_t size_a, size_b;
  uint32_t version_a, version_b;
  uint32_t segments_a, segments_b;
  uint64_t segment_bytes_a, segment_bytes_b;
  etk_program_diff_plan_t *plans; /* methods compared by index */
  size_t plan_count;
  const char **extra_plans_a, **extra_plans_b; /* methods past the shorter */
  size_t extra_plans_a_count, extra_plans_b_count;
  const char **named_only_a, **named_only_b; /* named data keys */
  size_t named_only_a_count, named_only_b_count;
  etk_program_diff_tensor_t *tensors;
  size_t tensor_count;
  etk_program_diff_value_t *values;
  size_t value_count;
  uint64_t constant_bytes; /* constant data bytes compared */
  void *internal_;
} etk_program_diff_t;

/* Compares two loaded programs as upstream's diff_pte.py does: version,
 * methods by index (name, operators and delegates as multisets,
 * non_const_buffer_sizes, value and instruction counts, every value: a
 * tensor's metadata and its data, element by element in its dtype, other
 * values by kind and contents), extra methods, named data keys, and
 * segments.  The programs must outlive *out. */
int etk_program_diff_build(const etk_program_t *a, const etk_program_t *b,
                           etk_program_diff_t *out, etk_error_t *err);
void etk_program_diff_free(etk_program_diff_t *d);

/* The element statistics of two constant buffers of one dtype (the
 * tensor fields elements .. max_rel are set; bytes beyond the shorter are
 * not compared).  Exposed for the benchmark. */
void etk_program_diff_data(int32_t scalar_type, const uint8_t *a,
                           uint64_t len_a, const uint8_t *b, uint64_t len_b,
                           etk_program_diff_tensor_t *out);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_PROGRAM_TOOLS_H */
