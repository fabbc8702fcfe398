/*
 * etdump_schema.c - verifier descriptors of the ETDump schema
 * (schema/etdump_schema_flatcc.fbs) and the ValueType names.
 *
 * PURPOSE
 *   etk_fb_verify() is schema-driven: it walks a buffer following these
 *   read-only tables.  They are the single C description of the schema that
 *   the verifier, the fuzz target, the tests and the host readers share.
 *
 * DATA LAYOUT
 *   One etk_fb_field_desc_t array per table, listing every field of the
 *   .fbs in declaration order (id = slot number = position in the .fbs), and
 *   one etk_fb_table_desc_t naming it.  Field ids come from etkit/schema.h so
 *   the enum and the descriptor cannot disagree silently; field names are
 *   the .fbs names, which is what verifier errors report.
 *
 * INVARIANTS
 *   - Every table and every field of the .fbs is described (a field missing
 *     here would be neither verified nor safe to read).  Tests compare this
 *     against flatc's decoding of buffers that set every field.
 *   - Scalar defaults, signedness and enum masks match the .fbs; the two
 *     1-byte enums (ScalarType, ValueType) carry masks so out-of-range values
 *     are rejected at verification time.
 *   - No field is required (upstream's schema marks none).
 */
#include "etkit/schema.h"

/* Descriptor shorthands.  C99 designated initialisers leave every other
 * member zero (no enum mask, no sub-table, not required). */
#define SCALAR_FIELD(id_, name_, size_, signed_, default_)                \
  {                                                                       \
    .name = (name_), .id = (id_), .kind = ETK_FB_SCALAR, .size = (size_), \
    .is_signed = (signed_), .default_int = (default_)                     \
  }
#define REAL_FIELD(id_, name_, size_)                                     \
  {                                                                       \
    .name = (name_), .id = (id_), .kind = ETK_FB_SCALAR, .size = (size_), \
    .is_real = 1                                                          \
  }
#define ENUM_FIELD(id_, name_, mask_, default_)                     \
  {                                                                 \
    .name = (name_), .id = (id_), .kind = ETK_FB_SCALAR, .size = 1, \
    .is_signed = 1, .enum_mask = (mask_), .default_int = (default_) \
  }
#define STRING_FIELD(id_, name_) \
  { .name = (name_), .id = (id_), .kind = ETK_FB_STRING }
#define TABLE_FIELD(id_, name_, table_) \
  { .name = (name_), .id = (id_), .kind = ETK_FB_TABLE, .table = (table_) }
#define VECTOR_FIELD(id_, name_, size_, signed_)                              \
  {                                                                           \
    .name = (name_), .id = (id_), .kind = ETK_FB_VEC_SCALAR, .size = (size_), \
    .is_signed = (signed_)                                                    \
  }
#define TABLE_VECTOR_FIELD(id_, name_, table_) \
  { .name = (name_), .id = (id_), .kind = ETK_FB_VEC_TABLE, .table = (table_) }

#define TABLE_DESC(name_, fields_)                                     \
  {                                                                    \
    .name = (name_),                                                   \
    .field_count = (uint16_t)(sizeof(fields_) / sizeof((fields_)[0])), \
    .fields = (fields_)                                                \
  }

/* ------------------------------------------------------------ leaves */

/* table Null {} has no fields; a one-element array keeps C99 happy, and
 * field_count 0 makes the verifier ignore it. */
static const etk_fb_field_desc_t null_fields[1] = {{.name = NULL}};
const etk_fb_table_desc_t etk_etdump_null_schema = {
    .name = "Null", .field_count = 0, .fields = null_fields};

static const etk_fb_field_desc_t tensor_fields[] = {
    ENUM_FIELD(ETK_ETDUMP_TENSOR_SCALAR_TYPE, "scalar_type",
               ETK_SCALAR_TYPE_ENUM_MASK,
               ETK_ETDUMP_TENSOR_SCALAR_TYPE_DEFAULT),
    VECTOR_FIELD(ETK_ETDUMP_TENSOR_SIZES, "sizes", 8, 1),
    VECTOR_FIELD(ETK_ETDUMP_TENSOR_STRIDES, "strides", 8, 1),
    SCALAR_FIELD(ETK_ETDUMP_TENSOR_OFFSET, "offset", 8, 1,
                 ETK_ETDUMP_TENSOR_OFFSET_DEFAULT),
};
const etk_fb_table_desc_t etk_etdump_tensor_schema =
    TABLE_DESC("Tensor", tensor_fields);

static const etk_fb_field_desc_t int_fields[] = {
    SCALAR_FIELD(ETK_ETDUMP_INT_INT_VAL, "int_val", 8, 1,
                 ETK_ETDUMP_INT_INT_VAL_DEFAULT),
};
const etk_fb_table_desc_t etk_etdump_int_schema = TABLE_DESC("Int", int_fields);

/* bool is one unsigned byte; any non-zero byte reads as true, as in flatc */
static const etk_fb_field_desc_t bool_fields[] = {
    SCALAR_FIELD(ETK_ETDUMP_BOOL_BOOL_VAL, "bool_val", 1, 0,
                 ETK_ETDUMP_BOOL_BOOL_VAL_DEFAULT),
};
const etk_fb_table_desc_t etk_etdump_bool_schema =
    TABLE_DESC("Bool", bool_fields);

static const etk_fb_field_desc_t float_fields[] = {
    REAL_FIELD(ETK_ETDUMP_FLOAT_FLOAT_VAL, "float_val", 4),
};
const etk_fb_table_desc_t etk_etdump_float_schema =
    TABLE_DESC("Float", float_fields);

static const etk_fb_field_desc_t double_fields[] = {
    REAL_FIELD(ETK_ETDUMP_DOUBLE_DOUBLE_VAL, "double_val", 8),
};
const etk_fb_table_desc_t etk_etdump_double_schema =
    TABLE_DESC("Double", double_fields);

static const etk_fb_field_desc_t string_fields[] = {
    STRING_FIELD(ETK_ETDUMP_STRING_STRING_VAL, "string_val"),
};
const etk_fb_table_desc_t etk_etdump_string_schema =
    TABLE_DESC("String", string_fields);

static const etk_fb_field_desc_t tensor_list_fields[] = {
    TABLE_VECTOR_FIELD(ETK_ETDUMP_TENSOR_LIST_TENSORS, "tensors",
                       &etk_etdump_tensor_schema),
};
const etk_fb_table_desc_t etk_etdump_tensor_list_schema =
    TABLE_DESC("TensorList", tensor_list_fields);

/* ------------------------------------------------------------ values */

static const etk_fb_field_desc_t value_fields[] = {
    ENUM_FIELD(ETK_ETDUMP_VALUE_VAL, "val", ETK_ETDUMP_VALUE_TYPE_ENUM_MASK,
               ETK_ETDUMP_VALUE_VAL_DEFAULT),
    TABLE_FIELD(ETK_ETDUMP_VALUE_TENSOR, "tensor", &etk_etdump_tensor_schema),
    TABLE_FIELD(ETK_ETDUMP_VALUE_TENSOR_LIST, "tensor_list",
                &etk_etdump_tensor_list_schema),
    TABLE_FIELD(ETK_ETDUMP_VALUE_INT_VALUE, "int_value",
                &etk_etdump_int_schema),
    TABLE_FIELD(ETK_ETDUMP_VALUE_FLOAT_VALUE, "float_value",
                &etk_etdump_float_schema),
    TABLE_FIELD(ETK_ETDUMP_VALUE_DOUBLE_VALUE, "double_value",
                &etk_etdump_double_schema),
    TABLE_FIELD(ETK_ETDUMP_VALUE_BOOL_VALUE, "bool_value",
                &etk_etdump_bool_schema),
    TABLE_FIELD(ETK_ETDUMP_VALUE_OUTPUT, "output", &etk_etdump_bool_schema),
};
const etk_fb_table_desc_t etk_etdump_value_schema =
    TABLE_DESC("Value", value_fields);

/* ------------------------------------------------------------ events */

static const etk_fb_field_desc_t debug_event_fields[] = {
    SCALAR_FIELD(ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX, "chain_index", 8, 0,
                 ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX_DEFAULT),
    SCALAR_FIELD(ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID, "instruction_id", 4, 1,
                 ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID_DEFAULT),
    TABLE_FIELD(ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY, "debug_entry",
                &etk_etdump_value_schema),
    SCALAR_FIELD(ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT,
                 "delegate_debug_id_int", 4, 1,
                 ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT_DEFAULT),
    STRING_FIELD(ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR,
                 "delegate_debug_id_str"),
    STRING_FIELD(ETK_ETDUMP_DEBUG_EVENT_NAME, "name"),
};
const etk_fb_table_desc_t etk_etdump_debug_event_schema =
    TABLE_DESC("DebugEvent", debug_event_fields);

static const etk_fb_field_desc_t allocation_event_fields[] = {
    SCALAR_FIELD(ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID, "allocator_id", 4, 1,
                 ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID_DEFAULT),
    SCALAR_FIELD(ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE, "allocation_size",
                 8, 0, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE_DEFAULT),
};
const etk_fb_table_desc_t etk_etdump_allocation_event_schema =
    TABLE_DESC("AllocationEvent", allocation_event_fields);

static const etk_fb_field_desc_t profile_event_fields[] = {
    STRING_FIELD(ETK_ETDUMP_PROFILE_EVENT_NAME, "name"),
    SCALAR_FIELD(ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, "chain_index", 4, 1,
                 ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX_DEFAULT),
    SCALAR_FIELD(ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, "instruction_id", 4,
                 1, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID_DEFAULT),
    SCALAR_FIELD(ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT,
                 "delegate_debug_id_int", 4, 1,
                 ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT_DEFAULT),
    STRING_FIELD(ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR,
                 "delegate_debug_id_str"),
    VECTOR_FIELD(ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA,
                 "delegate_debug_metadata", 1, 0),
    SCALAR_FIELD(ETK_ETDUMP_PROFILE_EVENT_START_TIME, "start_time", 8, 0,
                 ETK_ETDUMP_PROFILE_EVENT_START_TIME_DEFAULT),
    SCALAR_FIELD(ETK_ETDUMP_PROFILE_EVENT_END_TIME, "end_time", 8, 0,
                 ETK_ETDUMP_PROFILE_EVENT_END_TIME_DEFAULT),
};
const etk_fb_table_desc_t etk_etdump_profile_event_schema =
    TABLE_DESC("ProfileEvent", profile_event_fields);

static const etk_fb_field_desc_t event_fields[] = {
    TABLE_FIELD(ETK_ETDUMP_EVENT_PROFILE_EVENT, "profile_event",
                &etk_etdump_profile_event_schema),
    TABLE_FIELD(ETK_ETDUMP_EVENT_ALLOCATION_EVENT, "allocation_event",
                &etk_etdump_allocation_event_schema),
    TABLE_FIELD(ETK_ETDUMP_EVENT_DEBUG_EVENT, "debug_event",
                &etk_etdump_debug_event_schema),
};
const etk_fb_table_desc_t etk_etdump_event_schema =
    TABLE_DESC("Event", event_fields);

/* ------------------------------------------------------------ runs */

static const etk_fb_field_desc_t allocator_fields[] = {
    STRING_FIELD(ETK_ETDUMP_ALLOCATOR_NAME, "name"),
};
const etk_fb_table_desc_t etk_etdump_allocator_schema =
    TABLE_DESC("Allocator", allocator_fields);

static const etk_fb_field_desc_t run_data_fields[] = {
    STRING_FIELD(ETK_ETDUMP_RUN_DATA_NAME, "name"),
    SCALAR_FIELD(ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX, "bundled_input_index",
                 4, 1, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX_DEFAULT),
    TABLE_VECTOR_FIELD(ETK_ETDUMP_RUN_DATA_ALLOCATORS, "allocators",
                       &etk_etdump_allocator_schema),
    TABLE_VECTOR_FIELD(ETK_ETDUMP_RUN_DATA_EVENTS, "events",
                       &etk_etdump_event_schema),
};
const etk_fb_table_desc_t etk_etdump_run_data_schema =
    TABLE_DESC("RunData", run_data_fields);

static const etk_fb_field_desc_t etdump_fields[] = {
    SCALAR_FIELD(ETK_ETDUMP_VERSION, "version", 4, 0,
                 ETK_ETDUMP_VERSION_DEFAULT),
    TABLE_VECTOR_FIELD(ETK_ETDUMP_RUN_DATA, "run_data",
                       &etk_etdump_run_data_schema),
};
const etk_fb_table_desc_t etk_etdump_schema =
    TABLE_DESC("ETDump", etdump_fields);

/* ------------------------------------------------------------ names */

static const char *const value_type_names[] = {
    "Null", "Int", "Bool", "Float", "Double", "Tensor", "TensorList", "String"};

int etk_etdump_value_type_valid(int code) {
  return code >= 0 &&
         code < (int)(sizeof value_type_names / sizeof value_type_names[0]);
}

const char *etk_etdump_value_type_name(int code) {
  return etk_etdump_value_type_valid(code) ? value_type_names[code] : "UNKNOWN";
}
