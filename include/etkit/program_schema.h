/*
 * etkit/program_schema.h - field slots and verifier descriptors of the
 * ExecuTorch program (.pte, schema/program.fbs) and BundledProgram (.bpte,
 * schema/bundled_program_schema.fbs) schemas.
 *
 * Portable C99, no OS, no heap: part of the `etkit_schema` library that MCU
 * builds copy next to the FlatBuffers core.  The slot numbers below are the
 * positions of the fields in the upstream schemas (a union takes two slots:
 * its type byte, then the offset), so they are part of the file format and
 * never change.
 *
 * Usage (verify first, then read with the unchecked accessors):
 *
 *   uint32_t root;
 *   etk_fb_verify_options_t opt = {0};
 *   opt.ident = ETK_PTE_IDENTIFIER;
 *   if (etk_fb_verify(buf, len, &etk_pte_schema, &opt, &root, NULL)
 *       == ETK_OK) {
 *     etk_fb_table_t program = etk_fb_root(buf, root);
 *     etk_fb_vector_t plans =
 *         etk_fb_get_vector(program, ETK_PTE_PROGRAM_EXECUTION_PLAN);
 *   }
 *
 * Higher-level, validated views of a program live in etkit/program.h.
 */
#ifndef ETKIT_PROGRAM_SCHEMA_H
#define ETKIT_PROGRAM_SCHEMA_H

#include "etkit/flatbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETK_PTE_IDENTIFIER "ET12"
#define ETK_BPTE_IDENTIFIER "BP08"

/* ------------------------------------------------------------ .pte slots */

enum {
  ETK_PTE_PROGRAM_VERSION = 0,
  ETK_PTE_PROGRAM_EXECUTION_PLAN = 1,
  ETK_PTE_PROGRAM_CONSTANT_BUFFER = 2,
  ETK_PTE_PROGRAM_BACKEND_DELEGATE_DATA = 3,
  ETK_PTE_PROGRAM_SEGMENTS = 4,
  ETK_PTE_PROGRAM_CONSTANT_SEGMENT = 5,
  ETK_PTE_PROGRAM_MUTABLE_DATA_SEGMENTS = 6,
  ETK_PTE_PROGRAM_NAMED_DATA = 7
};

enum {
  ETK_PTE_PLAN_NAME = 0,
  ETK_PTE_PLAN_CONTAINER_META_TYPE = 1,
  ETK_PTE_PLAN_VALUES = 2,
  ETK_PTE_PLAN_INPUTS = 3,
  ETK_PTE_PLAN_OUTPUTS = 4,
  ETK_PTE_PLAN_CHAINS = 5,
  ETK_PTE_PLAN_OPERATORS = 6,
  ETK_PTE_PLAN_DELEGATES = 7,
  ETK_PTE_PLAN_NON_CONST_BUFFER_SIZES = 8,
  ETK_PTE_PLAN_NON_CONST_BUFFER_DEVICE = 9
};

enum {
  ETK_PTE_CONTAINER_META_ENCODED_INP_STR = 0,
  ETK_PTE_CONTAINER_META_ENCODED_OUT_STR = 1
};

enum {
  ETK_PTE_ALLOCATION_MEMORY_ID = 0,
  ETK_PTE_ALLOCATION_MEMORY_OFFSET_LOW = 1,
  ETK_PTE_ALLOCATION_MEMORY_OFFSET_HIGH = 2
};

enum {
  ETK_PTE_EXTRA_TENSOR_MUTABLE_DATA_SEGMENTS_IDX = 0,
  ETK_PTE_EXTRA_TENSOR_FULLY_QUALIFIED_NAME = 1,
  ETK_PTE_EXTRA_TENSOR_LOCATION = 2,
  ETK_PTE_EXTRA_TENSOR_DEVICE_TYPE = 3,
  ETK_PTE_EXTRA_TENSOR_DEVICE_INDEX = 4
};

enum {
  ETK_PTE_TENSOR_SCALAR_TYPE = 0,
  ETK_PTE_TENSOR_STORAGE_OFFSET = 1,
  ETK_PTE_TENSOR_SIZES = 2,
  ETK_PTE_TENSOR_DIM_ORDER = 3,
  ETK_PTE_TENSOR_REQUIRES_GRAD = 4,
  ETK_PTE_TENSOR_DATA_BUFFER_IDX = 5,
  ETK_PTE_TENSOR_ALLOCATION_INFO = 6,
  ETK_PTE_TENSOR_LAYOUT = 7,
  ETK_PTE_TENSOR_SHAPE_DYNAMISM = 8,
  ETK_PTE_TENSOR_EXTRA_TENSOR_INFO = 9
};

/* Int, Bool, Double, String: their single field is slot 0.  The list tables
 * (IntList, DoubleList, BoolList, TensorList, OptionalTensorList) keep
 * `items` in slot 0. */
enum { ETK_PTE_SCALAR_VALUE = 0, ETK_PTE_LIST_ITEMS = 0 };

/* EValue: union KernelTypes. */
enum { ETK_PTE_EVALUE_VAL_TYPE = 0, ETK_PTE_EVALUE_VAL = 1 };

/* KernelTypes union codes (also etk_value_tag_t in etkit/runtime.h). */
enum {
  ETK_PTE_KT_NONE = 0,
  ETK_PTE_KT_NULL = 1,
  ETK_PTE_KT_INT = 2,
  ETK_PTE_KT_BOOL = 3,
  ETK_PTE_KT_DOUBLE = 4,
  ETK_PTE_KT_TENSOR = 5,
  ETK_PTE_KT_STRING = 6,
  ETK_PTE_KT_INT_LIST = 7,
  ETK_PTE_KT_DOUBLE_LIST = 8,
  ETK_PTE_KT_BOOL_LIST = 9,
  ETK_PTE_KT_TENSOR_LIST = 10,
  ETK_PTE_KT_OPTIONAL_TENSOR_LIST = 11,
  ETK_PTE_KT_COUNT = 12
};

enum { ETK_PTE_OPERATOR_NAME = 0, ETK_PTE_OPERATOR_OVERLOAD = 1 };

/* KernelCall {op_index, args} and DelegateCall {delegate_index, args}. */
enum { ETK_PTE_CALL_INDEX = 0, ETK_PTE_CALL_ARGS = 1 };
enum { ETK_PTE_MOVE_FROM = 0, ETK_PTE_MOVE_TO = 1 };
enum { ETK_PTE_JUMP_FALSE_COND = 0, ETK_PTE_JUMP_FALSE_DESTINATION = 1 };
enum { ETK_PTE_FREE_VALUE_INDEX = 0 };

/* Instruction: union InstructionArguments. */
enum { ETK_PTE_INSTRUCTION_ARGS_TYPE = 0, ETK_PTE_INSTRUCTION_ARGS = 1 };

/* InstructionArguments union codes. */
enum {
  ETK_PTE_INSTR_NONE = 0,
  ETK_PTE_INSTR_KERNEL_CALL = 1,
  ETK_PTE_INSTR_DELEGATE_CALL = 2,
  ETK_PTE_INSTR_MOVE_CALL = 3,
  ETK_PTE_INSTR_JUMP_FALSE_CALL = 4,
  ETK_PTE_INSTR_FREE_CALL = 5,
  ETK_PTE_INSTR_COUNT = 6
};

enum {
  ETK_PTE_FRAME_FILENAME = 0,
  ETK_PTE_FRAME_LINENO = 1,
  ETK_PTE_FRAME_NAME = 2,
  ETK_PTE_FRAME_CONTEXT = 3
};
enum { ETK_PTE_FRAME_LIST_ITEMS = 0 };

enum { ETK_PTE_DATA_REF_LOCATION = 0, ETK_PTE_DATA_REF_INDEX = 1 };
enum { ETK_PTE_DATA_LOCATION_INLINE = 0, ETK_PTE_DATA_LOCATION_SEGMENT = 1 };

enum { ETK_PTE_COMPILE_SPEC_KEY = 0, ETK_PTE_COMPILE_SPEC_VALUE = 1 };

enum {
  ETK_PTE_DELEGATE_ID = 0,
  ETK_PTE_DELEGATE_PROCESSED = 1,
  ETK_PTE_DELEGATE_COMPILE_SPECS = 2
};

enum {
  ETK_PTE_CHAIN_INPUTS = 0,
  ETK_PTE_CHAIN_OUTPUTS = 1,
  ETK_PTE_CHAIN_INSTRUCTIONS = 2,
  ETK_PTE_CHAIN_STACKTRACE = 3
};

enum {
  ETK_PTE_BUFFER_DEVICE_BUFFER_IDX = 0,
  ETK_PTE_BUFFER_DEVICE_DEVICE_TYPE = 1,
  ETK_PTE_BUFFER_DEVICE_DEVICE_INDEX = 2
};

/* Buffer {storage} and BackendDelegateInlineData {data}: slot 0. */
enum { ETK_PTE_BUFFER_STORAGE = 0, ETK_PTE_INLINE_DATA_DATA = 0 };

enum { ETK_PTE_SEGMENT_OFFSET = 0, ETK_PTE_SEGMENT_SIZE = 1 };

enum { ETK_PTE_SUBSEGMENT_SEGMENT_INDEX = 0, ETK_PTE_SUBSEGMENT_OFFSETS = 1 };

enum { ETK_PTE_NAMED_DATA_KEY = 0, ETK_PTE_NAMED_DATA_SEGMENT_INDEX = 1 };

/* ----------------------------------------------------------- .bpte slots */

enum {
  ETK_BPTE_PROGRAM_VERSION = 0,
  ETK_BPTE_PROGRAM_METHOD_TEST_SUITES = 1,
  ETK_BPTE_PROGRAM_PROGRAM = 2
};
enum { ETK_BPTE_SUITE_METHOD_NAME = 0, ETK_BPTE_SUITE_TEST_CASES = 1 };
enum { ETK_BPTE_CASE_INPUTS = 0, ETK_BPTE_CASE_EXPECTED_OUTPUTS = 1 };
enum { ETK_BPTE_VALUE_VAL_TYPE = 0, ETK_BPTE_VALUE_VAL = 1 };
/* ValueUnion codes. */
enum {
  ETK_BPTE_VALUE_NONE = 0,
  ETK_BPTE_VALUE_TENSOR = 1,
  ETK_BPTE_VALUE_INT = 2,
  ETK_BPTE_VALUE_BOOL = 3,
  ETK_BPTE_VALUE_DOUBLE = 4,
  ETK_BPTE_VALUE_COUNT = 5
};
enum {
  ETK_BPTE_TENSOR_SCALAR_TYPE = 0,
  ETK_BPTE_TENSOR_SIZES = 1,
  ETK_BPTE_TENSOR_DATA = 2,
  ETK_BPTE_TENSOR_DIM_ORDER = 3
};
/* Int {int_val}, Bool {bool_val}, Double {double_val}: slot 0. */
enum { ETK_BPTE_SCALAR_VALUE = 0 };

/* ---------------------------------------------------- verifier descriptors */

/* Root descriptors (etk_fb_verify).  Every table of each schema is reachable
 * from its root; unknown trailing fields of newer files are ignored by the
 * verifier, absent ones read as their schema defaults. */
extern const etk_fb_table_desc_t etk_pte_schema;
extern const etk_fb_table_desc_t etk_bpte_schema;

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_PROGRAM_SCHEMA_H */
