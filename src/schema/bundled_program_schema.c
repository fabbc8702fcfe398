/*
 * bundled_program_schema.c - verifier descriptors of the BundledProgram
 * schema (schema/bundled_program_schema.fbs, file identifier "BP08").
 *
 * Slots follow upstream's declaration order (include/etkit/program_schema.h
 * names them).  The embedded program is an opaque byte vector here; the
 * program reader verifies it separately with etk_pte_schema, with
 * offsets relative to the start of the embedded bytes.  Tensor data
 * lengths, dtypes and the agreement of test cases with the program are
 * checked by src/program and src/runtime, which know the program.
 *
 * Portable C99, constant data only.
 */
#include "etkit/program_schema.h"

#include <stddef.h>

#include "field_macros.h"

static const etk_fb_field_desc_t int_fields[] = {
    F_INT("int_val", ETK_BPTE_SCALAR_VALUE, 8, 1)};
static TABLE(int_desc, "Int", int_fields);
static const etk_fb_field_desc_t bool_fields[] = {
    F_INT("bool_val", ETK_BPTE_SCALAR_VALUE, 1, 0)};
static TABLE(bool_desc, "Bool", bool_fields);
static const etk_fb_field_desc_t double_fields[] = {
    F_REAL("double_val", ETK_BPTE_SCALAR_VALUE, 8)};
static TABLE(double_desc, "Double", double_fields);

static const etk_fb_field_desc_t tensor_fields[] = {
    F_INT("scalar_type", ETK_BPTE_TENSOR_SCALAR_TYPE, 1, 1),
    F_VEC_INT("sizes", ETK_BPTE_TENSOR_SIZES, 4, 1),
    F_VEC_INT("data", ETK_BPTE_TENSOR_DATA, 1, 0),
    F_VEC_INT("dim_order", ETK_BPTE_TENSOR_DIM_ORDER, 1, 0),
};
static TABLE(tensor_desc, "Tensor", tensor_fields);

static const etk_fb_table_desc_t *const value_union[ETK_BPTE_VALUE_COUNT] = {
    NULL, &tensor_desc, &int_desc, &bool_desc, &double_desc,
};

static const etk_fb_field_desc_t value_fields[] = {
    F_UNION_TYPE("val_type", ETK_BPTE_VALUE_VAL_TYPE, ETK_BPTE_VALUE_COUNT),
    F_UNION("val", ETK_BPTE_VALUE_VAL, ETK_BPTE_VALUE_COUNT, value_union),
};
static TABLE(value_desc, "Value", value_fields);

static const etk_fb_field_desc_t case_fields[] = {
    F_VEC_TABLE("inputs", ETK_BPTE_CASE_INPUTS, value_desc),
    F_VEC_TABLE("expected_outputs", ETK_BPTE_CASE_EXPECTED_OUTPUTS, value_desc),
};
static TABLE(case_desc, "BundledMethodTestCase", case_fields);

static const etk_fb_field_desc_t suite_fields[] = {
    F_STRING("method_name", ETK_BPTE_SUITE_METHOD_NAME),
    F_VEC_TABLE("test_cases", ETK_BPTE_SUITE_TEST_CASES, case_desc),
};
static TABLE(suite_desc, "BundledMethodTestSuite", suite_fields);

static const etk_fb_field_desc_t program_fields[] = {
    F_INT("version", ETK_BPTE_PROGRAM_VERSION, 4, 0),
    F_VEC_TABLE("method_test_suites", ETK_BPTE_PROGRAM_METHOD_TEST_SUITES,
                suite_desc),
    F_VEC_INT("program", ETK_BPTE_PROGRAM_PROGRAM, 1, 0),
};
TABLE(etk_bpte_schema, "BundledProgram", program_fields);
