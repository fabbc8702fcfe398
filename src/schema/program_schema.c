/*
 * program_schema.c - verifier descriptors of the ExecuTorch program schema
 * (schema/program.fbs, file identifier "ET12").
 *
 * Each table of the schema has one etk_fb_table_desc_t listing its fields
 * by slot: the slot numbers are those of include/etkit/program_schema.h,
 * i.e. the declaration order of upstream's program.fbs with a union taking
 * two slots.  The verifier (src/flatbuf) walks a buffer with these
 * descriptors and guarantees that every offset, vector, string and union
 * member it accepted can be read with the unchecked accessors.
 *
 * What the descriptors deliberately do NOT check:
 *   - enum ranges (scalar types, shape dynamism, data locations): newer
 *     files may add values, so src/program checks the ones it uses and
 *     names the bad value and its byte offset;
 *   - cross references (value indices, operator indices, segment indices):
 *     those need the whole program and are checked by src/program;
 *   - required fields: upstream marks none, and missing ones are reported
 *     with a precise message by the program reader.
 * Unknown union codes are rejected by the verifier (a union member it
 * cannot verify must never be read).
 *
 * Portable C99, constant data only.
 */
#include "etkit/program_schema.h"

#include <stddef.h>

#include "field_macros.h"

/* Tables are defined leaves first, so every reference points backwards. */

static const etk_fb_field_desc_t container_meta_fields[] = {
    F_STRING("encoded_inp_str", ETK_PTE_CONTAINER_META_ENCODED_INP_STR),
    F_STRING("encoded_out_str", ETK_PTE_CONTAINER_META_ENCODED_OUT_STR),
};
static TABLE(container_meta_desc, "ContainerMetadata", container_meta_fields);

static const etk_fb_table_desc_t null_desc = {"Null", 0, NULL};

static const etk_fb_field_desc_t allocation_fields[] = {
    F_INT("memory_id", ETK_PTE_ALLOCATION_MEMORY_ID, 4, 0),
    F_INT("memory_offset_low", ETK_PTE_ALLOCATION_MEMORY_OFFSET_LOW, 4, 0),
    F_INT("memory_offset_high", ETK_PTE_ALLOCATION_MEMORY_OFFSET_HIGH, 4, 0),
};
static TABLE(allocation_desc, "AllocationDetails", allocation_fields);

static const etk_fb_field_desc_t extra_tensor_fields[] = {
    F_INT("mutable_data_segments_idx",
          ETK_PTE_EXTRA_TENSOR_MUTABLE_DATA_SEGMENTS_IDX, 8, 0),
    F_STRING("fully_qualified_name", ETK_PTE_EXTRA_TENSOR_FULLY_QUALIFIED_NAME),
    F_INT("location", ETK_PTE_EXTRA_TENSOR_LOCATION, 1, 1),
    F_INT("device_type", ETK_PTE_EXTRA_TENSOR_DEVICE_TYPE, 1, 1),
    F_INT("device_index", ETK_PTE_EXTRA_TENSOR_DEVICE_INDEX, 1, 1),
};
static TABLE(extra_tensor_desc, "ExtraTensorInfo", extra_tensor_fields);

static const etk_fb_field_desc_t tensor_fields[] = {
    F_INT("scalar_type", ETK_PTE_TENSOR_SCALAR_TYPE, 1, 1),
    F_INT("storage_offset", ETK_PTE_TENSOR_STORAGE_OFFSET, 4, 1),
    F_VEC_INT("sizes", ETK_PTE_TENSOR_SIZES, 4, 1),
    F_VEC_INT("dim_order", ETK_PTE_TENSOR_DIM_ORDER, 1, 0),
    F_INT("requires_grad", ETK_PTE_TENSOR_REQUIRES_GRAD, 1, 0),
    F_INT("data_buffer_idx", ETK_PTE_TENSOR_DATA_BUFFER_IDX, 4, 0),
    F_TABLE("allocation_info", ETK_PTE_TENSOR_ALLOCATION_INFO, allocation_desc),
    F_INT("layout", ETK_PTE_TENSOR_LAYOUT, 1, 1),
    F_INT("shape_dynamism", ETK_PTE_TENSOR_SHAPE_DYNAMISM, 1, 1),
    F_TABLE("extra_tensor_info", ETK_PTE_TENSOR_EXTRA_TENSOR_INFO,
            extra_tensor_desc),
};
static TABLE(tensor_desc, "Tensor", tensor_fields);

static const etk_fb_field_desc_t int_fields[] = {
    F_INT("int_val", ETK_PTE_SCALAR_VALUE, 8, 1)};
static TABLE(int_desc, "Int", int_fields);
static const etk_fb_field_desc_t bool_fields[] = {
    F_INT("bool_val", ETK_PTE_SCALAR_VALUE, 1, 0)};
static TABLE(bool_desc, "Bool", bool_fields);
static const etk_fb_field_desc_t double_fields[] = {
    F_REAL("double_val", ETK_PTE_SCALAR_VALUE, 8)};
static TABLE(double_desc, "Double", double_fields);
static const etk_fb_field_desc_t string_fields[] = {
    F_STRING("string_val", ETK_PTE_SCALAR_VALUE)};
static TABLE(string_desc, "String", string_fields);

static const etk_fb_field_desc_t int_list_fields[] = {
    F_VEC_INT("items", ETK_PTE_LIST_ITEMS, 8, 1)};
static TABLE(int_list_desc, "IntList", int_list_fields);
static const etk_fb_field_desc_t double_list_fields[] = {
    F_VEC_REAL("items", ETK_PTE_LIST_ITEMS, 8)};
static TABLE(double_list_desc, "DoubleList", double_list_fields);
static const etk_fb_field_desc_t bool_list_fields[] = {
    F_VEC_INT("items", ETK_PTE_LIST_ITEMS, 1, 0)};
static TABLE(bool_list_desc, "BoolList", bool_list_fields);
static const etk_fb_field_desc_t tensor_list_fields[] = {
    F_VEC_INT("items", ETK_PTE_LIST_ITEMS, 4, 1)};
static TABLE(tensor_list_desc, "TensorList", tensor_list_fields);
static const etk_fb_field_desc_t opt_tensor_list_fields[] = {
    F_VEC_INT("items", ETK_PTE_LIST_ITEMS, 4, 1)};
static TABLE(opt_tensor_list_desc, "OptionalTensorList",
             opt_tensor_list_fields);

/* KernelTypes, indexed by union code; [0] is NONE. */
static const etk_fb_table_desc_t *const kernel_types[ETK_PTE_KT_COUNT] = {
    NULL,
    &null_desc,
    &int_desc,
    &bool_desc,
    &double_desc,
    &tensor_desc,
    &string_desc,
    &int_list_desc,
    &double_list_desc,
    &bool_list_desc,
    &tensor_list_desc,
    &opt_tensor_list_desc,
};

static const etk_fb_field_desc_t evalue_fields[] = {
    F_UNION_TYPE("val_type", ETK_PTE_EVALUE_VAL_TYPE, ETK_PTE_KT_COUNT),
    F_UNION("val", ETK_PTE_EVALUE_VAL, ETK_PTE_KT_COUNT, kernel_types),
};
static TABLE(evalue_desc, "EValue", evalue_fields);

static const etk_fb_field_desc_t operator_fields[] = {
    F_STRING("name", ETK_PTE_OPERATOR_NAME),
    F_STRING("overload", ETK_PTE_OPERATOR_OVERLOAD),
};
static TABLE(operator_desc, "Operator", operator_fields);

static const etk_fb_field_desc_t kernel_call_fields[] = {
    F_INT("op_index", ETK_PTE_CALL_INDEX, 4, 1),
    F_VEC_INT("args", ETK_PTE_CALL_ARGS, 4, 1),
};
static TABLE(kernel_call_desc, "KernelCall", kernel_call_fields);
static const etk_fb_field_desc_t delegate_call_fields[] = {
    F_INT("delegate_index", ETK_PTE_CALL_INDEX, 4, 1),
    F_VEC_INT("args", ETK_PTE_CALL_ARGS, 4, 1),
};
static TABLE(delegate_call_desc, "DelegateCall", delegate_call_fields);
static const etk_fb_field_desc_t move_call_fields[] = {
    F_INT("move_from", ETK_PTE_MOVE_FROM, 4, 1),
    F_INT("move_to", ETK_PTE_MOVE_TO, 4, 1),
};
static TABLE(move_call_desc, "MoveCall", move_call_fields);
static const etk_fb_field_desc_t jump_false_fields[] = {
    F_INT("cond_value_index", ETK_PTE_JUMP_FALSE_COND, 4, 1),
    F_INT("destination_instruction", ETK_PTE_JUMP_FALSE_DESTINATION, 4, 1),
};
static TABLE(jump_false_desc, "JumpFalseCall", jump_false_fields);
static const etk_fb_field_desc_t free_call_fields[] = {
    F_INT("value_index", ETK_PTE_FREE_VALUE_INDEX, 4, 1),
};
static TABLE(free_call_desc, "FreeCall", free_call_fields);

static const etk_fb_table_desc_t *const instruction_args[ETK_PTE_INSTR_COUNT] =
    {
        NULL,
        &kernel_call_desc,
        &delegate_call_desc,
        &move_call_desc,
        &jump_false_desc,
        &free_call_desc,
};

static const etk_fb_field_desc_t instruction_fields[] = {
    F_UNION_TYPE("instr_args_type", ETK_PTE_INSTRUCTION_ARGS_TYPE,
                 ETK_PTE_INSTR_COUNT),
    F_UNION("instr_args", ETK_PTE_INSTRUCTION_ARGS, ETK_PTE_INSTR_COUNT,
            instruction_args),
};
static TABLE(instruction_desc, "Instruction", instruction_fields);

static const etk_fb_field_desc_t frame_fields[] = {
    F_STRING("filename", ETK_PTE_FRAME_FILENAME),
    F_INT("lineno", ETK_PTE_FRAME_LINENO, 4, 1),
    F_STRING("name", ETK_PTE_FRAME_NAME),
    F_STRING("context", ETK_PTE_FRAME_CONTEXT),
};
static TABLE(frame_desc, "Frame", frame_fields);
static const etk_fb_field_desc_t frame_list_fields[] = {
    F_VEC_TABLE("items", ETK_PTE_FRAME_LIST_ITEMS, frame_desc),
};
static TABLE(frame_list_desc, "FrameList", frame_list_fields);

static const etk_fb_field_desc_t data_ref_fields[] = {
    F_INT("location", ETK_PTE_DATA_REF_LOCATION, 1, 1),
    F_INT("index", ETK_PTE_DATA_REF_INDEX, 4, 0),
};
static TABLE(data_ref_desc, "BackendDelegateDataReference", data_ref_fields);

static const etk_fb_field_desc_t compile_spec_fields[] = {
    F_STRING("key", ETK_PTE_COMPILE_SPEC_KEY),
    F_VEC_INT("value", ETK_PTE_COMPILE_SPEC_VALUE, 1, 0),
};
static TABLE(compile_spec_desc, "CompileSpec", compile_spec_fields);

static const etk_fb_field_desc_t delegate_fields[] = {
    F_STRING("id", ETK_PTE_DELEGATE_ID),
    F_TABLE("processed", ETK_PTE_DELEGATE_PROCESSED, data_ref_desc),
    F_VEC_TABLE("compile_specs", ETK_PTE_DELEGATE_COMPILE_SPECS,
                compile_spec_desc),
};
static TABLE(delegate_desc, "BackendDelegate", delegate_fields);

static const etk_fb_field_desc_t chain_fields[] = {
    F_VEC_INT("inputs", ETK_PTE_CHAIN_INPUTS, 4, 1),
    F_VEC_INT("outputs", ETK_PTE_CHAIN_OUTPUTS, 4, 1),
    F_VEC_TABLE("instructions", ETK_PTE_CHAIN_INSTRUCTIONS, instruction_desc),
    F_VEC_TABLE("stacktrace", ETK_PTE_CHAIN_STACKTRACE, frame_list_desc),
};
static TABLE(chain_desc, "Chain", chain_fields);

static const etk_fb_field_desc_t buffer_device_fields[] = {
    F_INT("buffer_idx", ETK_PTE_BUFFER_DEVICE_BUFFER_IDX, 4, 1),
    F_INT("device_type", ETK_PTE_BUFFER_DEVICE_DEVICE_TYPE, 1, 1),
    F_INT("device_index", ETK_PTE_BUFFER_DEVICE_DEVICE_INDEX, 1, 1),
};
static TABLE(buffer_device_desc, "NonConstBufferDevice", buffer_device_fields);

static const etk_fb_field_desc_t plan_fields[] = {
    F_STRING("name", ETK_PTE_PLAN_NAME),
    F_TABLE("container_meta_type", ETK_PTE_PLAN_CONTAINER_META_TYPE,
            container_meta_desc),
    F_VEC_TABLE("values", ETK_PTE_PLAN_VALUES, evalue_desc),
    F_VEC_INT("inputs", ETK_PTE_PLAN_INPUTS, 4, 1),
    F_VEC_INT("outputs", ETK_PTE_PLAN_OUTPUTS, 4, 1),
    F_VEC_TABLE("chains", ETK_PTE_PLAN_CHAINS, chain_desc),
    F_VEC_TABLE("operators", ETK_PTE_PLAN_OPERATORS, operator_desc),
    F_VEC_TABLE("delegates", ETK_PTE_PLAN_DELEGATES, delegate_desc),
    F_VEC_INT("non_const_buffer_sizes", ETK_PTE_PLAN_NON_CONST_BUFFER_SIZES, 8,
              1),
    F_VEC_TABLE("non_const_buffer_device", ETK_PTE_PLAN_NON_CONST_BUFFER_DEVICE,
                buffer_device_desc),
};
static TABLE(plan_desc, "ExecutionPlan", plan_fields);

static const etk_fb_field_desc_t buffer_fields[] = {
    F_VEC_INT("storage", ETK_PTE_BUFFER_STORAGE, 1, 0),
};
static TABLE(buffer_desc, "Buffer", buffer_fields);
static const etk_fb_field_desc_t inline_data_fields[] = {
    F_VEC_INT("data", ETK_PTE_INLINE_DATA_DATA, 1, 0),
};
static TABLE(inline_data_desc, "BackendDelegateInlineData", inline_data_fields);

static const etk_fb_field_desc_t segment_fields[] = {
    F_INT("offset", ETK_PTE_SEGMENT_OFFSET, 8, 0),
    F_INT("size", ETK_PTE_SEGMENT_SIZE, 8, 0),
};
static TABLE(segment_desc, "DataSegment", segment_fields);

static const etk_fb_field_desc_t subsegment_fields[] = {
    F_INT("segment_index", ETK_PTE_SUBSEGMENT_SEGMENT_INDEX, 4, 0),
    F_VEC_INT("offsets", ETK_PTE_SUBSEGMENT_OFFSETS, 8, 0),
};
static TABLE(subsegment_desc, "SubsegmentOffsets", subsegment_fields);

static const etk_fb_field_desc_t named_data_fields[] = {
    F_STRING("key", ETK_PTE_NAMED_DATA_KEY),
    F_INT("segment_index", ETK_PTE_NAMED_DATA_SEGMENT_INDEX, 4, 0),
};
static TABLE(named_data_desc, "NamedData", named_data_fields);

static const etk_fb_field_desc_t program_fields[] = {
    F_INT("version", ETK_PTE_PROGRAM_VERSION, 4, 0),
    F_VEC_TABLE("execution_plan", ETK_PTE_PROGRAM_EXECUTION_PLAN, plan_desc),
    F_VEC_TABLE("constant_buffer", ETK_PTE_PROGRAM_CONSTANT_BUFFER,
                buffer_desc),
    F_VEC_TABLE("backend_delegate_data", ETK_PTE_PROGRAM_BACKEND_DELEGATE_DATA,
                inline_data_desc),
    F_VEC_TABLE("segments", ETK_PTE_PROGRAM_SEGMENTS, segment_desc),
    F_TABLE("constant_segment", ETK_PTE_PROGRAM_CONSTANT_SEGMENT,
            subsegment_desc),
    F_VEC_TABLE("mutable_data_segments", ETK_PTE_PROGRAM_MUTABLE_DATA_SEGMENTS,
                subsegment_desc),
    F_VEC_TABLE("named_data", ETK_PTE_PROGRAM_NAMED_DATA, named_data_desc),
};
TABLE(etk_pte_schema, "Program", program_fields);
