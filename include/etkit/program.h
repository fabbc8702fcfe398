/*
 * etkit/program.h - host reader and writer of ExecuTorch programs (.pte),
 * bundled programs (.bpte) and NumPy arrays (.npy).
 *
 * READING
 *   etk_program_load() checks a .pte completely before anything else may
 *   look at it: the identifier ("ET12"; any other "ET??" is reported as an
 *   incompatible version), the optional "eh00" extended header (24- or
 *   32-byte form), the FlatBuffers structure (src/flatbuf verifier), and
 *   then every cross reference (value, operator, delegate, segment and
 *   constant indices, planned-memory ranges, tensor byte sizes, jump
 *   targets).  A malformed file gives exactly one error naming what is
 *   wrong and the byte offset where it was found; a program that loads can
 *   be walked through the plain structs below without further checks.
 *
 *     etk_program_t *prog;
 *     etk_error_t err;
 *     if (etk_program_load_file("add.pte", NULL, &prog, &err) != ETK_OK) {
 *       char line[512];
 *       fprintf(stderr, "%s\n", etk_error_format(&err, line, sizeof line));
 *       return 1;
 *     }
 *     const etk_program_plan_t *plan = etk_program_find_plan(prog, "forward");
 *     printf("%u instructions\n", plan->chains[0].instruction_count);
 *     etk_program_free(prog);
 *
 *   etk_bundled_program_load() does the same for a .bpte ("BP08"): the
 *   bundled tables, then the embedded program with the .pte rules above.
 *
 * WRITING
 *   etk_program_builder_t assembles a program in memory (values, constants,
 *   planned memory, operators, instructions, delegate payloads) and
 *   serialises it with the FlatBuffers builder into a .pte that upstream's
 *   runtime, flatc and etk_program_load() all read.  etk_bundled_write()
 *   wraps an existing .pte and test cases into a .bpte.
 *
 * MEMORY AND OWNERSHIP
 *   A loaded program owns one arena (all structs below) and, unless the
 *   caller asked to borrow its bytes, an aligned copy of the file.  Every
 *   pointer in the structs points into one of those two and stays valid
 *   until etk_program_free().  Strings are NUL-terminated.
 *
 * Host only (heap, stdio for the *_file helpers).
 */
#ifndef ETKIT_PROGRAM_H
#define ETKIT_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* File kinds (etk_file_kind_t, etk_file_kind_detect) are in
 * etkit/common.h. */

/* --------------------------------------------------------- .pte framing */

/* The "eh00" extended header, when present, sits at byte 8. */
#define ETK_PTE_EXTENDED_HEADER_OFFSET 8
#define ETK_PTE_EXTENDED_HEADER_MIN_LEN 24

typedef struct etk_pte_header {
  bool has_extended_header;
  uint32_t extended_header_length; /* 24, 32 or more; 0 without header */
  uint64_t program_size;           /* bytes of the flatbuffer region */
  uint64_t segment_base_offset;    /* 0 when there are no segments */
  uint64_t segment_data_size;      /* 0 for the 24-byte form */
} etk_pte_header_t;

/* Checks the identifier and parses the extended header of a .pte held in
 * data[0..len) (at least the first 40 bytes must be present when there is
 * an extended header).  Fills *out (never NULL).  Errors:
 * ETK_E_TRUNCATED (fewer than 8 bytes), ETK_E_BAD_IDENTIFIER (not a .pte),
 * ETK_E_UNSUPPORTED (another "ET??" version), ETK_E_FORMAT (corrupt
 * extended header), ETK_E_OVERFLOW (sizes that overflow). */
int etk_pte_header_parse(const uint8_t *data, size_t len, etk_pte_header_t *out,
                         etk_error_t *err);

/* ------------------------------------------------------ program structs */

/* A tensor as the program declares it. */
typedef struct etk_program_tensor {
  int32_t scalar_type;      /* c10 code (etk_scalar_type_t) */
  int32_t storage_offset;   /* only 0 can run */
  uint32_t dim;             /* <= ETK_PROGRAM_MAX_DIMS */
  const int32_t *sizes;     /* dim entries, all >= 0 (NULL when dim is 0) */
  const uint8_t *dim_order; /* dim entries, a permutation of 0..dim-1 */
  bool requires_grad;
  int8_t layout;
  int8_t shape_dynamism;            /* 0 static, 1 dynamic bound, 2 unbound */
  uint32_t data_buffer_idx;         /* > 0: constant or initial data */
  bool planned;                     /* allocation_info present */
  uint32_t memory_id;               /* 1-based planned buffer (when planned) */
  uint64_t memory_offset;           /* byte offset inside that buffer */
  bool external;                    /* data lives in a separate .ptd file */
  const char *fully_qualified_name; /* NULL if absent */
  uint64_t nbytes;                  /* numel x element size of `sizes` */
  /* Constant data, or the initial value of a planned tensor (read from
   * mutable_data_segments); NULL otherwise.  nbytes bytes are readable. */
  const uint8_t *data;
} etk_program_tensor_t;

#define ETK_PROGRAM_MAX_DIMS 16

/* One entry of ExecutionPlan.values.  `tag` uses the KernelTypes codes,
 * identical to etk_value_tag_t (etkit/runtime.h). */
typedef struct etk_program_value {
  int32_t tag;
  uint32_t offset; /* byte offset of the EValue table in the file */
  union {
    int64_t i;
    bool b;
    double d;
    const etk_program_tensor_t *tensor;
    struct {
      const char *data;
      uint32_t len;
    } string;
    struct {
      const int64_t *items; /* indices of Int values */
      uint32_t count;
    } int_list;
    struct {
      const double *items;
      uint32_t count;
    } double_list;
    struct {
      const uint8_t *items; /* 0 or 1 */
      uint32_t count;
    } bool_list;
    struct {
      const int32_t *items; /* indices of Tensor values; -1 = None in
                               optional lists */
      uint32_t count;
    } tensor_list;
  } u;
} etk_program_value_t;

/* Instruction kinds: the InstructionArguments codes. */
typedef enum etk_instruction_kind {
  ETK_INSTR_KERNEL_CALL = 1,
  ETK_INSTR_DELEGATE_CALL = 2,
  ETK_INSTR_MOVE_CALL = 3,
  ETK_INSTR_JUMP_FALSE_CALL = 4,
  ETK_INSTR_FREE_CALL = 5
} etk_instruction_kind_t;

typedef struct etk_program_instruction {
  int32_t kind;    /* etk_instruction_kind_t */
  uint32_t offset; /* byte offset of the Instruction table */
  /* KERNEL_CALL: operator index; DELEGATE_CALL: delegate index;
   * MOVE_CALL: move_from; JUMP_FALSE_CALL: cond_value_index;
   * FREE_CALL: value_index.  Always in range. */
  int32_t index;
  /* MOVE_CALL: move_to; JUMP_FALSE_CALL: destination instruction
   * (0..instruction_count, the count meaning "end of chain"); else 0. */
  int32_t index2;
  const int32_t *args; /* KERNEL/DELEGATE_CALL value indices, else NULL */
  uint32_t arg_count;
} etk_program_instruction_t;

typedef struct etk_program_frame {
  const char *filename, *name, *context; /* NULL if absent */
  int32_t lineno;
} etk_program_frame_t;

typedef struct etk_program_frame_list {
  const etk_program_frame_t *frames;
  uint32_t count;
} etk_program_frame_list_t;

typedef struct etk_program_chain {
  const int32_t *inputs, *outputs;
  uint32_t input_count, output_count;
  const etk_program_instruction_t *instructions;
  uint32_t instruction_count;
  /* One frame list per instruction when the exporter recorded stack
   * traces, NULL otherwise. */
  const etk_program_frame_list_t *stacktrace;
  uint32_t stacktrace_count;
} etk_program_chain_t;

typedef struct etk_program_operator {
  const char *name;       /* "aten::add" */
  const char *overload;   /* "out"; "" for the default overload */
  const char *full_name;  /* "aten::add.out" ("aten::foo" if no overload) */
  const char *event_name; /* "native_call_add.out": upstream's kernel event */
} etk_program_operator_t;

typedef struct etk_program_compile_spec {
  const char *key;
  const uint8_t *value;
  uint32_t value_len;
} etk_program_compile_spec_t;

typedef struct etk_program_delegate {
  const char *id;      /* backend name */
  int32_t location;    /* 0 inline, 1 segment */
  uint32_t index;      /* into backend_delegate_data or segments */
  const uint8_t *data; /* the payload (processed bytes) */
  uint64_t size;
  const etk_program_compile_spec_t *compile_specs;
  uint32_t compile_spec_count;
} etk_program_delegate_t;

typedef struct etk_program_plan {
  const char *name;
  uint32_t offset; /* byte offset of the ExecutionPlan table */
  const char *encoded_inp_str, *encoded_out_str; /* NULL if absent */
  const etk_program_value_t *values;
  uint32_t value_count;
  const int32_t *inputs, *outputs; /* value indices, in range */
  uint32_t input_count, output_count;
  const etk_program_chain_t *chains;
  uint32_t chain_count; /* >= 1 */
  const etk_program_operator_t *operators;
  uint32_t operator_count;
  const etk_program_delegate_t *delegates;
  uint32_t delegate_count;
  /* non_const_buffer_sizes: entry 0 is reserved; planned buffer with
   * memory_id k has buffer_sizes[k] bytes. */
  const int64_t *buffer_sizes;
  uint32_t buffer_size_count;
} etk_program_plan_t;

typedef struct etk_program_segment {
  uint64_t offset, size; /* relative to segment_base_offset */
  const uint8_t *data;   /* resolved, inside the file */
} etk_program_segment_t;

typedef struct etk_program_named_data {
  const char *key;
  uint32_t segment_index;
} etk_program_named_data_t;

typedef enum etk_constant_storage {
  ETK_CONSTANTS_NONE = 0,    /* no constant tensors */
  ETK_CONSTANTS_SEGMENT = 1, /* constant_segment (current files) */
  ETK_CONSTANTS_INLINE = 2   /* deprecated constant_buffer */
} etk_constant_storage_t;

typedef struct etk_program {
  const uint8_t *data; /* the whole file (16-byte aligned) */
  size_t size;
  etk_pte_header_t header;
  uint32_t version;
  const etk_program_plan_t *plans;
  uint32_t plan_count;
  const etk_program_segment_t *segments;
  uint32_t segment_count;
  int32_t constant_storage; /* etk_constant_storage_t */
  uint32_t constant_count;  /* entries incl. the reserved entry 0 */
  const etk_program_named_data_t *named_data;
  uint32_t named_data_count;
  void *internal_; /* arena and owned copy; do not touch */
} etk_program_t;

/* Limits applied while loading (0 = default). */
typedef struct etk_program_options {
  uint64_t max_file_size;    /* default 1 GiB */
  uint32_t max_values;       /* per plan, default 1,000,000 */
  uint32_t max_instructions; /* per chain, default 1,000,000 */
  /* 1: use the caller's bytes in place instead of copying them; they must
   * be 16-byte aligned and outlive the program. */
  int borrow;
  /* Caller's memory for everything the parse makes (structs, names and,
   * without `borrow`, the copy of the bytes), 16-byte aligned or not: with
   * it the reader calls no malloc and etk_program_free releases nothing of
   * it.  A program that does not fit fails with one ETK_E_NO_MEMORY error
   * naming the arena's size.  NULL: the heap (host builds only; a no-heap
   * build, ETK_NO_HEAP=1, needs it). */
  void *arena;
  size_t arena_size;
} etk_program_options_t;

/* Loads and fully checks a .pte held in data[0..len).  On success *out
 * owns its memory (free with etk_program_free).  `options` may be NULL.
 * `err` (optional) receives the one error with its byte offset. */
int etk_program_load(const uint8_t *data, size_t len,
                     const etk_program_options_t *options, etk_program_t **out,
                     etk_error_t *err);

/* Reads `path` and loads it (err->where is the path). */
int etk_program_load_file(const char *path,
                          const etk_program_options_t *options,
                          etk_program_t **out, etk_error_t *err);

/* Frees a program (NULL is a no-op). */
void etk_program_free(etk_program_t *program);

/* The plan named `name`, or NULL.  `name` NULL means the first plan. */
const etk_program_plan_t *etk_program_find_plan(const etk_program_t *program,
                                                const char *name);

/* Name of a value tag ("Tensor", "Int", ...) and of an instruction kind
 * ("KernelCall", ...); never NULL. */
const char *etk_program_tag_name(int tag);
const char *etk_program_instruction_name(int kind);

/* The out arguments of a KernelCall (or DelegateCall) with `n` argument
 * value indices `args`: ".out" overloads repeat their out arguments as
 * returns, so when the trailing r indices equal the r before them (the
 * smallest such r), args[n - 2r .. n - r) are the outputs; otherwise the
 * last argument is the only one.  Sets *first and *count (0 for n == 0). */
void etk_program_call_outputs(const int32_t *args, uint32_t n, uint32_t *first,
                              uint32_t *count);

/* ------------------------------------------------------ bundled programs */

typedef enum etk_bundled_tag {
  ETK_BUNDLED_TENSOR = 1,
  ETK_BUNDLED_INT = 2,
  ETK_BUNDLED_BOOL = 3,
  ETK_BUNDLED_DOUBLE = 4
} etk_bundled_tag_t;

typedef struct etk_bundled_value {
  int32_t tag;     /* etk_bundled_tag_t */
  uint32_t offset; /* byte offset of the Value table in the .bpte */
  /* tensor */
  int32_t scalar_type;
  uint32_t dim;
  const int32_t *sizes;
  const uint8_t *dim_order;
  const uint8_t *data; /* nbytes readable (checked at load) */
  uint64_t nbytes;     /* numel x element size */
  uint64_t data_len;   /* bytes stored (>= nbytes) */
  /* scalars */
  int64_t i;
  bool b;
  double d;
} etk_bundled_value_t;

typedef struct etk_bundled_case {
  const etk_bundled_value_t *inputs;
  uint32_t input_count;
  const etk_bundled_value_t *expected;
  uint32_t expected_count; /* 0: the case only has inputs */
} etk_bundled_case_t;

typedef struct etk_bundled_suite {
  const char *method_name;
  const etk_bundled_case_t *cases;
  uint32_t case_count;
} etk_bundled_suite_t;

typedef struct etk_bundled_program {
  const uint8_t *data;
  size_t size;
  uint32_t version;
  const etk_bundled_suite_t *suites;
  uint32_t suite_count;
  const uint8_t *program_data; /* the embedded .pte bytes */
  size_t program_size;
  uint64_t program_offset; /* their offset in the .bpte */
  etk_program_t *program;  /* the embedded program, loaded */
  void *internal_;
} etk_bundled_program_t;

/* Loads a .bpte ("BP08", not size-prefixed) and the program inside it.
 * Every tensor is checked (dims, dim_order permutation, data length); the
 * agreement of cases with the method (counts, dtypes, shapes) is checked
 * by etk_bundled_check() and when running.  `options` applies to both. */
int etk_bundled_program_load(const uint8_t *data, size_t len,
                             const etk_program_options_t *options,
                             etk_bundled_program_t **out, etk_error_t *err);
int etk_bundled_program_load_file(const char *path,
                                  const etk_program_options_t *options,
                                  etk_bundled_program_t **out,
                                  etk_error_t *err);
void etk_bundled_program_free(etk_bundled_program_t *bp);

/* The suite of `method_name`, or NULL. */
const etk_bundled_suite_t *etk_bundled_find_suite(
    const etk_bundled_program_t *bp, const char *method_name);

/* Checks that every case of every suite fits its method: the method
 * exists, input count equals the plan's, kinds and dtypes match, tensor
 * sizes equal the plan's (static) or fit them (dynamic bound), dim_order
 * equals the plan's, and expected outputs are tensors matching the plan
 * outputs in dtype and rank.  ETK_OK or ETK_E_MISMATCH with the case named
 * in err. */
int etk_bundled_check(const etk_bundled_program_t *bp, etk_error_t *err);

/* ------------------------------------------------------- bundled writer */

/* A tensor or scalar given to the writers (borrowed for the call). */
typedef struct etk_tensor_data {
  int32_t tag; /* etk_bundled_tag_t */
  int32_t scalar_type;
  uint32_t dim;
  const int32_t *sizes;
  const uint8_t *dim_order; /* NULL = identity */
  const void *data;
  uint64_t nbytes; /* must equal numel x element size */
  int64_t i;
  bool b;
  double d;
} etk_tensor_data_t;

typedef struct etk_bundled_case_spec {
  const char *method_name;
  const etk_tensor_data_t *inputs;
  uint32_t input_count;
  const etk_tensor_data_t *expected; /* may be NULL with count 0 */
  uint32_t expected_count;
} etk_bundled_case_spec_t;

/* Builds a .bpte from the .pte bytes pte[0..pte_len) and `case_count`
 * cases (any order; suites are grouped and sorted by method name as
 * upstream does; cases keep their order within a method).  The program is
 * loaded and every case checked against it (etk_bundled_check rules)
 * before anything is written.  On success *out is malloc'd (caller frees)
 * and *out_len its size: version 2, "BP08", the program bytes copied
 * unchanged at a 32-byte aligned offset, tensor data 16-byte aligned. */
int etk_bundled_write(const uint8_t *pte, size_t pte_len,
                      const etk_bundled_case_spec_t *cases, size_t case_count,
                      uint8_t **out, size_t *out_len, etk_error_t *err);

/* ---------------------------------------------------------------- .npy */

/* A NumPy array read from a .npy file (format 1.0, 2.0 or 3.0,
 * little-endian or byte-order-free dtypes: b1 i1 u1 i2 u2 i4 u4 i8 u8 f2
 * f4 f8; C order only).  data is malloc'd together with the struct. */
typedef struct etk_npy {
  int32_t scalar_type; /* c10 code */
  uint32_t dim;
  int32_t sizes[ETK_PROGRAM_MAX_DIMS];
  const uint8_t *data; /* 16-byte aligned */
  uint64_t nbytes;
} etk_npy_t;

/* Parses data[0..len).  *out is freed with etk_npy_free. */
int etk_npy_parse(const uint8_t *data, size_t len, etk_npy_t **out,
                  etk_error_t *err);
int etk_npy_read_file(const char *path, etk_npy_t **out, etk_error_t *err);
void etk_npy_free(etk_npy_t *npy);

/* Writes a contiguous array as .npy (format 1.0) to `path`, all or
 * nothing.  Types without a NumPy equivalent (quantized, bfloat16, ...)
 * give ETK_E_UNSUPPORTED. */
int etk_npy_write_file(const char *path, int scalar_type, uint32_t dim,
                       const int32_t *sizes, const void *data, uint64_t nbytes,
                       etk_error_t *err);

/* -------------------------------------------------------- program builder */

/* Builds a .pte in memory.  Values, operators and delegates are appended
 * and named by the index they return (>= 0), or a negative ETK_E_* code.
 * Errors are sticky: after the first failure every call returns it, and
 * etk_program_builder_finish() reports it, so callers may check once.
 *
 *   etk_program_builder_t *b = etk_program_builder_new("forward");
 *   int32_t sz[1] = {1};
 *   int x = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, sz, NULL,
 *                                          ETK_BUILDER_PLANNED);
 *   ...
 *   int add = etk_program_builder_add_operator(b, "aten::add", "out");
 *   int32_t args[5] = {x, y, alpha, out, out};
 *   etk_program_builder_kernel_call(b, add, args, 5);
 *   etk_program_builder_set_inputs(b, (int32_t[]){x, y}, 2);
 *   etk_program_builder_set_outputs(b, &out, 1);
 *   uint8_t *pte; size_t len;
 *   etk_program_builder_finish(b, &pte, &len, &err);
 *   etk_program_builder_free(b);
 *
 * Planned tensors get offsets in one planned buffer (memory_id 1) from a
 * simple bump plan (each tensor 16-byte aligned), unless placed explicitly
 * with etk_program_builder_place_tensor().  Constants go to the constant
 * segment (default) or the deprecated inline constant_buffer. */
typedef struct etk_program_builder etk_program_builder_t;

/* Tensor placement flags. */
#define ETK_BUILDER_PLANNED 0  /* planned memory, no initial data */
#define ETK_BUILDER_CONSTANT 1 /* `data` is the constant value */
#define ETK_BUILDER_RUNTIME 2  /* memory given at run time (no plan) */

/* c10 codes for convenience. */
#define ETK_BUILDER_FLOAT 6
#define ETK_BUILDER_INT 3
#define ETK_BUILDER_LONG 4
#define ETK_BUILDER_BOOL 11

typedef struct etk_program_builder_options {
  int inline_constants;        /* 1: deprecated constant_buffer */
  int delegates_in_segments;   /* 1: delegate payloads in segments */
  uint32_t segment_alignment;  /* default 128 */
  uint32_t constant_alignment; /* default 16 */
  int force_extended_header;   /* write "eh00" even without segment data */
} etk_program_builder_options_t;

/* A builder for one method named `method_name` (copied).  NULL on out of
 * memory.  More methods: etk_program_builder_add_method(). */
etk_program_builder_t *etk_program_builder_new(const char *method_name);
void etk_program_builder_free(etk_program_builder_t *b);
void etk_program_builder_set_options(etk_program_builder_t *b,
                                     const etk_program_builder_options_t *o);
/* Starts another method; later calls apply to it.  Returns its index. */
int etk_program_builder_add_method(etk_program_builder_t *b, const char *name);

/* Values.  Every pointer argument is copied.  `dim_order` NULL = identity.
 * For ETK_BUILDER_CONSTANT, `data` holds numel x element size bytes. */
int etk_program_builder_add_tensor(etk_program_builder_t *b, int scalar_type,
                                   uint32_t dim, const int32_t *sizes,
                                   const uint8_t *dim_order, int placement,
                                   const void *data);
/* Like add_tensor(ETK_BUILDER_PLANNED) but at an explicit place. */
int etk_program_builder_place_tensor(etk_program_builder_t *b, int value,
                                     uint32_t memory_id, uint64_t offset);
/* Marks a tensor DYNAMIC_BOUND (its sizes become an upper bound). */
int etk_program_builder_set_dynamic(etk_program_builder_t *b, int value);
int etk_program_builder_add_int(etk_program_builder_t *b, int64_t v);
int etk_program_builder_add_double(etk_program_builder_t *b, double v);
int etk_program_builder_add_bool(etk_program_builder_t *b, bool v);
int etk_program_builder_add_null(etk_program_builder_t *b);
int etk_program_builder_add_string(etk_program_builder_t *b, const char *s);
/* An IntList of the given integers: adds one Int value per item (boxed, as
 * upstream) and the list referring to them; returns the list's index. */
int etk_program_builder_add_int_list(etk_program_builder_t *b,
                                     const int64_t *items, uint32_t count);
int etk_program_builder_add_double_list(etk_program_builder_t *b,
                                        const double *items, uint32_t count);
int etk_program_builder_add_bool_list(etk_program_builder_t *b,
                                      const bool *items, uint32_t count);
/* TensorList / OptionalTensorList of value indices (-1 = None). */
int etk_program_builder_add_tensor_list(etk_program_builder_t *b,
                                        const int32_t *items, uint32_t count,
                                        bool optional);

int etk_program_builder_set_inputs(etk_program_builder_t *b,
                                   const int32_t *values, uint32_t count);
int etk_program_builder_set_outputs(etk_program_builder_t *b,
                                    const int32_t *values, uint32_t count);

/* Operators ("aten::add", "out"); the same pair added twice returns the
 * first index. */
int etk_program_builder_add_operator(etk_program_builder_t *b, const char *name,
                                     const char *overload);
/* A delegate: backend `id`, payload bytes (copied), optional compile specs
 * (keys/values/lengths arrays of `spec_count`). */
int etk_program_builder_add_delegate(etk_program_builder_t *b, const char *id,
                                     const void *payload, size_t payload_len,
                                     const char *const *spec_keys,
                                     const uint8_t *const *spec_values,
                                     const uint32_t *spec_lens,
                                     uint32_t spec_count);

/* Instructions, appended to chain 0 of the current method; each returns
 * its instruction index. */
int etk_program_builder_kernel_call(etk_program_builder_t *b, int op_index,
                                    const int32_t *args, uint32_t count);
int etk_program_builder_delegate_call(etk_program_builder_t *b,
                                      int delegate_index, const int32_t *args,
                                      uint32_t count);
int etk_program_builder_move_call(etk_program_builder_t *b, int from, int to);
int etk_program_builder_jump_false_call(etk_program_builder_t *b,
                                        int cond_value, int destination);
int etk_program_builder_free_call(etk_program_builder_t *b, int value);

/* Bytes of planned buffer 1 laid out so far by the bump plan. */
uint64_t etk_program_builder_planned_size(const etk_program_builder_t *b);

/* Serialises the program.  *out is malloc'd (caller frees).  Fails with the
 * first sticky error, or ETK_E_INVALID_ARGUMENT for inconsistent programs
 * (indices out of range, no chain instructions are required). */
int etk_program_builder_finish(etk_program_builder_t *b, uint8_t **out,
                               size_t *out_len, etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_PROGRAM_H */
