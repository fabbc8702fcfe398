/*
 * etkit/schema.h - the FlatBuffers schemas etkit reads and writes, as C:
 * field ids, enum codes, schema defaults and verifier descriptors.
 *
 * Portable C99, no OS, no heap (library etkit_schema, src/schema/): the
 * recorder uses the ids and defaults on devices; host readers pass the
 * descriptors to etk_fb_verify() and then read with the etk_fb_get_*()
 * accessors of etkit/flatbuf.h.
 *
 * Sections:
 *   1. Shared enums (ScalarType, schema/scalar_type.fbs,
 * src/schema/scalar_type.c)
 *   2. ETDump   (schema/etdump_schema_flatcc.fbs, src/schema/etdump_schema.c)
 *   3. Program and BundledProgram: see etkit/program_schema.h
 *      (schema/program.fbs, schema/bundled_program_schema.fbs,
 *      src/schema/program_schema.c, src/schema/bundled_program_schema.c)
 *
 * Naming: a field id is ETK_<SCHEMA>_<TABLE>_<FIELD> in upper snake case,
 * e.g. ETK_ETDUMP_PROFILE_EVENT_START_TIME for ProfileEvent.start_time in the
 * ETDump schema.  The root table ETDump drops the repeated table name:
 * ETK_ETDUMP_VERSION, ETK_ETDUMP_RUN_DATA.  A scalar field's schema default
 * is ETK_<SCHEMA>_<TABLE>_<FIELD>_DEFAULT.  Descriptors are
 * etk_<schema>_<table>_schema; the root's is etk_<schema>_schema.
 *
 * Example (read the names of all blocks of an .etdp file):
 *
 *   etk_fb_verify_options_t opt = {0};
 *   opt.ident = ETK_ETDUMP_FILE_IDENTIFIER;
 *   opt.size_prefixed = 1;
 *   uint32_t root;
 *   if (etk_fb_verify(bytes, len, &etk_etdump_schema, &opt, &root, NULL) ==
 * ETK_OK) { etk_fb_table_t dump = etk_fb_root(bytes, root); etk_fb_vector_t
 * runs = etk_fb_get_vector(dump, ETK_ETDUMP_RUN_DATA); for (uint32_t i = 0; i <
 * runs.count; i++) { etk_fb_table_t run = etk_fb_vector_table(bytes, runs, i);
 *       etk_fb_string_t name = etk_fb_get_string(run,
 * ETK_ETDUMP_RUN_DATA_NAME);
 *       ...
 *     }
 *   }
 */
#ifndef ETKIT_SCHEMA_H
#define ETKIT_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/flatbuf.h"
#include "etkit/scalar_type.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================ 2. ETDump */

#define ETK_ETDUMP_FILE_IDENTIFIER "ED00"
#define ETK_ETDUMP_FILE_EXTENSION "etdp"

/* etdump.ValueType (a signed byte): which member of a Value is set. */
typedef enum etk_etdump_value_type {
  ETK_ETDUMP_VALUE_TYPE_NULL = 0,
  ETK_ETDUMP_VALUE_TYPE_INT = 1,
  ETK_ETDUMP_VALUE_TYPE_BOOL = 2,
  ETK_ETDUMP_VALUE_TYPE_FLOAT = 3,
  ETK_ETDUMP_VALUE_TYPE_DOUBLE = 4,
  ETK_ETDUMP_VALUE_TYPE_TENSOR = 5,
  ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST = 6,
  ETK_ETDUMP_VALUE_TYPE_STRING = 7
} etk_etdump_value_type_t;

#define ETK_ETDUMP_VALUE_TYPE_ENUM_MASK ((uint64_t)0xFFu)

/* 1 if `code` is a ValueType of the schema, else 0. */
int etk_etdump_value_type_valid(int code);

/* Schema name of a ValueType ("Tensor", "TensorList"), as flatc prints it;
 * "UNKNOWN" for an invalid code (never NULL).  Static string. */
const char *etk_etdump_value_type_name(int code);

/* --- field ids, per table, in schema order (the id is the slot number) --- */

/* table ETDump (root) */
enum {
  ETK_ETDUMP_VERSION = 0, /* uint, default 0 */
  ETK_ETDUMP_RUN_DATA = 1 /* [RunData] */
};

/* table RunData */
enum {
  ETK_ETDUMP_RUN_DATA_NAME = 0,                /* string */
  ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX = 1, /* int, default -1 */
  ETK_ETDUMP_RUN_DATA_ALLOCATORS = 2,          /* [Allocator] */
  ETK_ETDUMP_RUN_DATA_EVENTS = 3               /* [Event] */
};

/* table Allocator */
enum { ETK_ETDUMP_ALLOCATOR_NAME = 0 /* string */ };

/* table Event: exactly one member is set (tables, not a union) */
enum {
  ETK_ETDUMP_EVENT_PROFILE_EVENT = 0,    /* ProfileEvent */
  ETK_ETDUMP_EVENT_ALLOCATION_EVENT = 1, /* AllocationEvent */
  ETK_ETDUMP_EVENT_DEBUG_EVENT = 2       /* DebugEvent */
};

/* table ProfileEvent */
enum {
  ETK_ETDUMP_PROFILE_EVENT_NAME = 0,                    /* string */
  ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX = 1,             /* int, default 0 */
  ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID = 2,          /* int, default -1 */
  ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT = 3,   /* int, default -1 */
  ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR = 4,   /* string */
  ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA = 5, /* [ubyte] */
  ETK_ETDUMP_PROFILE_EVENT_START_TIME = 6,              /* ulong, default 0 */
  ETK_ETDUMP_PROFILE_EVENT_END_TIME = 7                 /* ulong, default 0 */
};

/* table AllocationEvent */
enum {
  ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID = 0,   /* int, default 0 */
  ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE = 1 /* ulong, default 0 */
};

/* table DebugEvent */
enum {
  ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX = 0,           /* ulong, default 0 */
  ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID = 1,        /* int, default -1 */
  ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY = 2,           /* Value */
  ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT = 3, /* int, default -1 */
  ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR = 4, /* string */
  ETK_ETDUMP_DEBUG_EVENT_NAME = 5                   /* string */
};

/* table Value: `val` says which member is set (not a FlatBuffers union) */
enum {
  ETK_ETDUMP_VALUE_VAL = 0,          /* ValueType (byte), default Null */
  ETK_ETDUMP_VALUE_TENSOR = 1,       /* Tensor */
  ETK_ETDUMP_VALUE_TENSOR_LIST = 2,  /* TensorList */
  ETK_ETDUMP_VALUE_INT_VALUE = 3,    /* Int */
  ETK_ETDUMP_VALUE_FLOAT_VALUE = 4,  /* Float */
  ETK_ETDUMP_VALUE_DOUBLE_VALUE = 5, /* Double */
  ETK_ETDUMP_VALUE_BOOL_VALUE = 6,   /* Bool */
  ETK_ETDUMP_VALUE_OUTPUT = 7        /* Bool; true for program outputs */
};

/* table Tensor */
enum {
  ETK_ETDUMP_TENSOR_SCALAR_TYPE = 0, /* ScalarType (byte), default BYTE */
  ETK_ETDUMP_TENSOR_SIZES = 1,       /* [long] */
  ETK_ETDUMP_TENSOR_STRIDES = 2,     /* [long] */
  ETK_ETDUMP_TENSOR_OFFSET = 3       /* long, default 0 */
};

/* table TensorList */
enum { ETK_ETDUMP_TENSOR_LIST_TENSORS = 0 /* [Tensor] */ };

/* tables Int, Bool, Float, Double, String: one field each */
enum { ETK_ETDUMP_INT_INT_VAL = 0 /* long, default 0 */ };
enum { ETK_ETDUMP_BOOL_BOOL_VAL = 0 /* bool, default false */ };
enum { ETK_ETDUMP_FLOAT_FLOAT_VAL = 0 /* float, default 0 */ };
enum { ETK_ETDUMP_DOUBLE_DOUBLE_VAL = 0 /* double, default 0 */ };
enum { ETK_ETDUMP_STRING_STRING_VAL = 0 /* string */ };
/* table Null has no fields. */

/* --- schema defaults of the scalar fields (pass them to etk_fb_add_* and
 * etk_fb_get_*) --- */
#define ETK_ETDUMP_VERSION_DEFAULT 0u
#define ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX_DEFAULT (-1)
#define ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX_DEFAULT 0
#define ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID_DEFAULT (-1)
#define ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT_DEFAULT (-1)
#define ETK_ETDUMP_PROFILE_EVENT_START_TIME_DEFAULT 0u
#define ETK_ETDUMP_PROFILE_EVENT_END_TIME_DEFAULT 0u
#define ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID_DEFAULT 0
#define ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE_DEFAULT 0u
#define ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX_DEFAULT 0u
#define ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID_DEFAULT (-1)
#define ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT_DEFAULT (-1)
#define ETK_ETDUMP_VALUE_VAL_DEFAULT ETK_ETDUMP_VALUE_TYPE_NULL
#define ETK_ETDUMP_TENSOR_SCALAR_TYPE_DEFAULT ETK_SCALAR_TYPE_BYTE
#define ETK_ETDUMP_TENSOR_OFFSET_DEFAULT 0
#define ETK_ETDUMP_INT_INT_VAL_DEFAULT 0
#define ETK_ETDUMP_BOOL_BOOL_VAL_DEFAULT 0
#define ETK_ETDUMP_FLOAT_FLOAT_VAL_DEFAULT 0.0f
#define ETK_ETDUMP_DOUBLE_DOUBLE_VAL_DEFAULT 0.0

/* --- verifier descriptors (static, read-only) ---
 * etk_etdump_schema is the root (table ETDump); verify an .etdp with
 * options ident = ETK_ETDUMP_FILE_IDENTIFIER and size_prefixed = 1.  No
 * field is marked required: upstream's schema has none, and its own readers
 * treat every absent field as "absent" or the default. */
extern const etk_fb_table_desc_t etk_etdump_schema;
extern const etk_fb_table_desc_t etk_etdump_run_data_schema;
extern const etk_fb_table_desc_t etk_etdump_allocator_schema;
extern const etk_fb_table_desc_t etk_etdump_event_schema;
extern const etk_fb_table_desc_t etk_etdump_profile_event_schema;
extern const etk_fb_table_desc_t etk_etdump_allocation_event_schema;
extern const etk_fb_table_desc_t etk_etdump_debug_event_schema;
extern const etk_fb_table_desc_t etk_etdump_value_schema;
extern const etk_fb_table_desc_t etk_etdump_tensor_schema;
extern const etk_fb_table_desc_t etk_etdump_tensor_list_schema;
extern const etk_fb_table_desc_t etk_etdump_int_schema;
extern const etk_fb_table_desc_t etk_etdump_bool_schema;
extern const etk_fb_table_desc_t etk_etdump_float_schema;
extern const etk_fb_table_desc_t etk_etdump_double_schema;
extern const etk_fb_table_desc_t etk_etdump_string_schema;
extern const etk_fb_table_desc_t etk_etdump_null_schema;

/* ============================================================ 3. Program */
/* The .pte and .bpte schemas have their own header, etkit/program_schema.h,
 * in the same etkit_schema library. */

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_SCHEMA_H */
