/*
 * etkit/memory_plan.h - the memory plan of a program (.pte), read from the
 * file alone: planned tensors, their lifetimes, the peak of every planned
 * buffer, and a verification of the plan (unsafe overlaps, tensors past
 * their buffer's end).  Part of library etkit_analysis (src/analysis/).
 *
 * READING
 *   etk_memory_plan_open() reads a program through its own checked path
 *   (FlatBuffers verifier + schema accessors), not through the runtime
 *   loader: a plan that is merely wrong (overlapping live tensors, a tensor
 *   past its buffer) is analysed and reported, while a damaged program
 *   (truncated, sizes or ends that overflow 64 bits, negative sizes,
 *   dangling value indices, list items that are not tensors) gives one
 *   error.  Memory used is proportional to the program's size, never to
 *   the sizes it declares.
 *
 * DEFINITIONS (docs/memory-plan.md)
 *   - A planned tensor is a Tensor value with allocation_info: mem_id as
 *     stored, offset = low | high << 32, nbytes = product of sizes x element
 *     size.  Buffer k's size is non_const_buffer_sizes[k] (entry 0 is
 *     reserved).
 *   - Instructions are numbered across the method's chains in order (chain
 *     0 first).  first/last are the first/last instructions whose arguments
 *     reference the tensor (KernelCall and DelegateCall args, MoveCall,
 *     JumpFalseCall, FreeCall operands), directly or through a TensorList /
 *     OptionalTensorList holding it.  Method inputs are live from
 *     instruction 0, method outputs until the last instruction.  Jumps are
 *     not followed: lifetimes are taken in this linear order (a backward
 *     jump is counted in `backward_jumps`).  A tensor nothing references
 *     that is neither input nor output has first = last = -1 and is left
 *     out of peaks, trace rows and overlap checks.
 *   - Aliases: the output of executorch_prim::et_view shares its input's
 *     storage on purpose (alias_of); a tensor and its aliases never count
 *     as overlapping.  Like every planned tensor with a lifetime, an alias
 *     counts in live bytes and trace rows.  One value referenced several
 *     times is one tensor.
 *   - Peak of a buffer: the largest sum of nbytes of its live tensors at
 *     one instruction, and the first instruction reaching it.
 *   - Unsafe overlap: two tensors of one mem_id whose byte ranges intersect
 *     while their lifetimes intersect.  Invalid: a tensor past its buffer's
 *     end, or in a buffer the method does not declare (mem_id 0 or beyond
 *     non_const_buffer_sizes).
 *
 * All arrays below are plain C arrays owned by the plan (valid until
 * etk_memory_plan_free()), so bindings can copy them into tables.
 */
#ifndef ETKIT_MEMORY_PLAN_H
#define ETKIT_MEMORY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* first/last/peak_instruction when there is none (JSON null). */
#define ETK_MEMORY_PLAN_NONE (-1)

typedef struct etk_memory_plan_tensor {
  uint32_t value;      /* EValue index */
  uint32_t mem_id;     /* allocation_info.memory_id as stored */
  uint64_t offset;     /* low | high << 32 */
  uint64_t nbytes;     /* numel x element size */
  int64_t first, last; /* instruction indices, or ETK_MEMORY_PLAN_NONE */
  int32_t scalar_type; /* c10 code */
  uint32_t dim;
  const int32_t *sizes; /* dim entries (little-endian, in the file) */
  int64_t alias_of;     /* value it views (et_view input), or -1 */
  bool is_input, is_output;
  bool invalid;       /* past its buffer's end or in no declared buffer */
  const char *op;     /* operator of instruction `first` ("aten::add.out",
                         "delegate:XnnpackBackend", "input", "move",
                         "jump_false", "free"), "" when unreferenced */
  const char *name;   /* ETRecord node name, else "value_<value>" */
  const char *module; /* ETRecord innermost module path, else "" */
  const char *source; /* ETRecord stack trace, else "" */
  /* "file:line" of the stack trace's innermost user frame, else "" */
  const char *location;
} etk_memory_plan_tensor_t;

typedef struct etk_memory_plan_buffer {
  uint32_t mem_id; /* 1..buffer_count */
  uint64_t size;   /* non_const_buffer_sizes[mem_id] */
  uint64_t peak_bytes;
  int64_t peak_instruction; /* first instruction at the peak, or NONE */
  uint64_t tensor_count;    /* planned tensors placed in it */
  uint64_t used_end;        /* largest offset + nbytes of its tensors */
} etk_memory_plan_buffer_t;

/* Two tensors (value indices a < b) of one mem_id sharing bytes
 * [byte_start, byte_end) during instructions [first, last]. */
typedef struct etk_memory_plan_overlap {
  uint32_t a, b;
  uint32_t mem_id;
  uint64_t byte_start, byte_end;
  int64_t first, last;
} etk_memory_plan_overlap_t;

/* Allocation events of a runtime dump, per allocator, next to the plan
 * (etk_memory_plan_attach_etdump). */
typedef struct etk_memory_plan_runtime {
  const char *allocator;  /* allocator name ("planned_memory_1", ...) */
  uint32_t mem_id;        /* planned buffer it stands for, 0 for others */
  uint64_t planned_bytes; /* that buffer's size, 0 for others */
  uint64_t events;        /* allocation events, all runs */
  uint64_t runs;          /* runs with allocations */
  uint64_t total_bytes;   /* bytes of all its events, all runs */
  uint64_t max_bytes;     /* largest single allocation */
} etk_memory_plan_runtime_t;

/* Most overlaps looked for: beyond them the check stops and sets
 * overlaps_truncated (a pathological plan must not take quadratic time). */
#define ETK_MEMORY_PLAN_MAX_OVERLAPS 100000u

typedef struct etk_memory_plan {
  const char *method;
  uint32_t method_index;
  uint64_t num_instructions; /* all chains */
  uint32_t chain_count;
  const uint64_t *chain_starts; /* chain_count + 1 entries: first global
                                   instruction of each chain, then the end */
  uint32_t value_count;
  uint64_t backward_jumps; /* JumpFalseCalls to an earlier instruction */
  const etk_memory_plan_tensor_t *tensors; /* ascending value index */
  size_t tensor_count;
  const etk_memory_plan_buffer_t *buffers; /* mem_id 1, 2, ... */
  size_t buffer_count;
  const etk_memory_plan_overlap_t *overlaps; /* sorted by (a, b) */
  size_t overlap_count;
  uint64_t overlap_total;  /* pairs found (= overlap_count) */
  bool overlaps_truncated; /* more than ETK_MEMORY_PLAN_MAX_OVERLAPS */
  size_t invalid_count;    /* tensors with `invalid` set */
  const etk_memory_plan_runtime_t *runtime; /* after attach_etdump */
  size_t runtime_count;
  void *internal_;
} etk_memory_plan_t;

/* Reads the plan of `method` (NULL = the first execution plan) from the
 * program held in data[0..len) (borrowed for the call only).  Errors, each
 * one line in `err` with a byte offset where one applies:
 * ETK_E_TRUNCATED, ETK_E_BAD_IDENTIFIER and the verifier's codes for a
 * damaged file; ETK_E_FORMAT (dangling index, list item that is not a
 * tensor, negative size, unknown scalar type, instruction without
 * arguments); ETK_E_OVERFLOW (a tensor's byte size or end beyond 64 bits);
 * ETK_E_NOT_FOUND (no such method); ETK_E_NO_MEMORY. */
int etk_memory_plan_open(const uint8_t *data, size_t len, const char *method,
                         etk_memory_plan_t **out, etk_error_t *err);

/* Reads `path` and opens it as above (err->where is the path). */
int etk_memory_plan_open_file(const char *path, const char *method,
                              etk_memory_plan_t **out, etk_error_t *err);

/* Frees the plan (NULL is a no-op). */
void etk_memory_plan_free(etk_memory_plan_t *plan);

/* Index into plan->tensors of value `value`, or -1. */
int64_t etk_memory_plan_find(const etk_memory_plan_t *plan, uint32_t value);

/* Sorted value indices of the tensors of buffer `mem_id` live at
 * `instruction`, largest first (ties by value), at most `cap` written to
 * out[]; returns how many there are in all. */
size_t etk_memory_plan_live_at(const etk_memory_plan_t *plan, uint32_t mem_id,
                               int64_t instruction, uint32_t *out, size_t cap);

/* -------------------------------------------------------- annotations */

struct etk_inspector;

/* Sets the name, module path (upstream's "fqn"), source (stack trace) and
 * location ("file:line", etk_etrecord_node_source() in etkit/etrecord.h)
 * of tensors[tensor]; the strings are copied, NULL keeps the current one.
 * Callers take them from an ETRecord: the node that ran the tensor's first
 * instruction (etk_etrecord_instruction_node() in etkit/link.h; ETRecord
 * instruction ids count chain 0, i.e. first < chain_starts[1]).
 * Errors: ETK_E_INVALID_ARGUMENT, ETK_E_NO_MEMORY. */
int etk_memory_plan_set_names(etk_memory_plan_t *plan, size_t tensor,
                              const char *name, const char *module,
                              const char *source, const char *location,
                              etk_error_t *err);

/* How many operator events of the ETDump opened as `insp` (profiled, not
 * delegated, with an instruction id) name an instruction the plan's method
 * does not have (id >= num_instructions): more than 0 means the program is
 * not the one that made the dump.  *largest (may be NULL) receives the
 * largest such id (-1 when none). */
size_t etk_memory_plan_foreign_events(const etk_memory_plan_t *plan,
                                      const struct etk_inspector *insp,
                                      int32_t *largest);

/* Fills plan->runtime from the allocation events of an ETDump opened as an
 * Inspector: one row per allocator, planned buffers matched by the
 * runtime's "planned_memory_<mem_id>" allocator names. */
int etk_memory_plan_attach_etdump(etk_memory_plan_t *plan,
                                  const struct etk_inspector *insp,
                                  etk_error_t *err);

/* ------------------------------------------------------------ outputs */

typedef enum etk_memory_plan_format {
  ETK_MEMORY_PLAN_TABLE = 0, /* per-buffer summary, top tensors, problems */
  ETK_MEMORY_PLAN_JSON,      /* {"method", "num_instructions", "buffers",
                                "tensors", "overlaps", ...} */
  ETK_MEMORY_PLAN_CSV        /* one row per planned tensor */
} etk_memory_plan_format_t;

/* Renders the plan.  `top`: tensors listed at each buffer's peak in the
 * table (0 = 10).  Errors: the sink's ETK_E_IO / ETK_E_NO_MEMORY. */
int etk_memory_plan_render(const etk_memory_plan_t *plan,
                           etk_memory_plan_format_t format, size_t top,
                           etk_render_sink_t *sink, etk_error_t *err);

/* The Chrome trace of upstream's generate_memory_trace: {"traceEvents":
 * [...]}, indent 2; one tid per instruction with a live tensor (0, 1, ...),
 * one "X" event per live tensor in ascending value index, ts the
 * running sum of the row's sizes (all buffers together) or the tensor's
 * offset when `offsets`, dur = nbytes, pid = mem_id, args {op_name,
 * "Memory ID", fqn, source, bytes}. */
int etk_memory_plan_render_trace(const etk_memory_plan_t *plan, int offsets,
                                 etk_render_sink_t *sink, etk_error_t *err);

/* A self-contained HTML page (no network): per buffer a map with
 * x = instruction, y = offset, one rectangle per tensor coloured by op
 * type, tooltips, the live-bytes curve with its peak, unsafe overlaps in
 * red. */
int etk_memory_plan_render_html(const etk_memory_plan_t *plan,
                                etk_render_sink_t *sink, etk_error_t *err);

/* The same map as a fragment for another page: a <div class="mplan">
 * with the buffer table, plan problems, legend and one map per buffer.
 * The page must include etk_memory_plan_html_style() (CSS rules scoped to
 * .mplan, without the <style> tags) in its stylesheet. */
int etk_memory_plan_render_html_body(const etk_memory_plan_t *plan,
                                     etk_render_sink_t *sink, etk_error_t *err);
const char *etk_memory_plan_html_style(void);

/* Writes one line per plan problem (invalid tensors, then overlaps) and
 * returns their number (overlap_total + invalid_count, plus 1 for the
 * line saying the overlap list was cut). */
uint64_t etk_memory_plan_render_problems(const etk_memory_plan_t *plan,
                                         etk_render_sink_t *sink);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_MEMORY_PLAN_H */
