/*
 * test_schema.c - the ETDump schema library (src/schema) agrees with itself
 * and with the .fbs: enum names, sizes and masks, and the shape of every
 * descriptor (ids unique and in range, sub-tables set, defaults equal to
 * the schema.h macros).  What the descriptors mean on real bytes is tested
 * by the flatc conformance and golden tests.
 */
#include <stdint.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/schema.h"

ETK_TEST(scalar_type_names_sizes_and_mask) {
  static const struct {
    int code;
    const char *name;
    size_t size;
    const char *numpy_name;
  } expected[] = {
      {0, "BYTE", 1, "uint8"},         {1, "CHAR", 1, "int8"},
      {2, "SHORT", 2, "int16"},        {3, "INT", 4, "int32"},
      {4, "LONG", 8, "int64"},         {5, "HALF", 2, "float16"},
      {6, "FLOAT", 4, "float32"},      {7, "DOUBLE", 8, "float64"},
      {11, "BOOL", 1, "bool"},         {12, "QINT8", 1, NULL},
      {13, "QUINT8", 1, NULL},         {14, "QINT32", 4, NULL},
      {15, "BFLOAT16", 2, "bfloat16"}, {16, "QUINT4X2", 1, NULL},
      {17, "QUINT2X4", 1, NULL},       {22, "BITS16", 2, "uint16"},
      {23, "FLOAT8E5M2", 1, NULL},     {24, "FLOAT8E4M3FN", 1, NULL},
      {25, "FLOAT8E5M2FNUZ", 1, NULL}, {26, "FLOAT8E4M3FNUZ", 1, NULL},
      {27, "UINT16", 2, "uint16"},     {28, "UINT32", 4, "uint32"},
      {29, "UINT64", 8, "uint64"},
  };
  int valid_count = 0;
  for (int code = -3; code < 70; code++) {
    int valid = etk_scalar_type_valid(code);
    valid_count += valid;
    if (code >= 0 && code < 64)
      CHECK_EQ_INT(valid, (int)((ETK_SCALAR_TYPE_ENUM_MASK >> code) & 1u));
    if (!valid) {
      CHECK_EQ_STR(etk_scalar_type_name(code), "UNKNOWN");
      CHECK_EQ_U64(etk_scalar_type_size(code), 0);
      CHECK(etk_scalar_type_numpy_name(code) == NULL);
    }
  }
  CHECK_EQ_INT(valid_count, 23);
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
    CHECK(etk_scalar_type_valid(expected[i].code));
    CHECK_EQ_STR(etk_scalar_type_name(expected[i].code), expected[i].name);
    CHECK_EQ_U64(etk_scalar_type_size(expected[i].code), expected[i].size);
    if (expected[i].numpy_name)
      CHECK_EQ_STR(etk_scalar_type_numpy_name(expected[i].code),
                   expected[i].numpy_name);
    else
      CHECK(etk_scalar_type_numpy_name(expected[i].code) == NULL);
  }
  CHECK_EQ_INT(ETK_SCALAR_TYPE_FLOAT, 6);
  CHECK_EQ_INT(ETK_SCALAR_TYPE_UINT64, 29);
}

ETK_TEST(scalar_type_read_one_element) {
  /* one byte of padding in front so the wider reads are misaligned */
  uint8_t buf[9] = {0};
  double v = 0;
  uint16_t half_one = 0x3C00, bfloat_minus_two = 0xC000;
  memcpy(buf + 1, &half_one, 2);
  CHECK(etk_scalar_type_read(ETK_SCALAR_TYPE_HALF, buf + 1, &v));
  CHECK(v == 1.0);
  memcpy(buf + 1, &bfloat_minus_two, 2);
  CHECK(etk_scalar_type_read(ETK_SCALAR_TYPE_BFLOAT16, buf + 1, &v));
  CHECK(v == -2.0);
  int64_t minus_five = -5;
  memcpy(buf + 1, &minus_five, 8);
  CHECK(etk_scalar_type_read(ETK_SCALAR_TYPE_LONG, buf + 1, &v));
  CHECK(v == -5.0);
  CHECK(etk_scalar_type_read(ETK_SCALAR_TYPE_UINT64, buf + 1, &v));
  CHECK(v == 18446744073709551611.0);
  buf[1] = 0xFF;
  CHECK(etk_scalar_type_read(ETK_SCALAR_TYPE_CHAR, buf + 1, &v));
  CHECK(v == -1.0);
  CHECK(etk_scalar_type_read(ETK_SCALAR_TYPE_QINT8, buf + 1, &v));
  CHECK(v == -1.0);
  CHECK(etk_scalar_type_read(ETK_SCALAR_TYPE_QUINT8, buf + 1, &v));
  CHECK(v == 255.0);
  CHECK(etk_scalar_type_read(ETK_SCALAR_TYPE_BOOL, buf + 1, &v));
  CHECK(v == 1.0);
  float three_and_half = 3.5f;
  memcpy(buf + 1, &three_and_half, 4);
  CHECK(etk_scalar_type_read(ETK_SCALAR_TYPE_FLOAT, buf + 1, &v));
  CHECK(v == 3.5);
  /* no single numeric reading: 0 and *value untouched */
  v = 42.0;
  CHECK(!etk_scalar_type_read(ETK_SCALAR_TYPE_QUINT4X2, buf + 1, &v));
  CHECK(!etk_scalar_type_read(ETK_SCALAR_TYPE_FLOAT8E4M3FN, buf + 1, &v));
  CHECK(!etk_scalar_type_read(9, buf + 1, &v));
  CHECK(!etk_scalar_type_read(-1, buf + 1, &v));
  CHECK(v == 42.0);
}

ETK_TEST(value_type_names) {
  static const char *const names[] = {"Null",       "Int",    "Bool",
                                      "Float",      "Double", "Tensor",
                                      "TensorList", "String"};
  for (int code = 0; code < 8; code++) {
    CHECK(etk_etdump_value_type_valid(code));
    CHECK_EQ_STR(etk_etdump_value_type_name(code), names[code]);
    CHECK((ETK_ETDUMP_VALUE_TYPE_ENUM_MASK >> code) & 1u);
  }
  CHECK(!etk_etdump_value_type_valid(8));
  CHECK(!etk_etdump_value_type_valid(-1));
  CHECK_EQ_STR(etk_etdump_value_type_name(8), "UNKNOWN");
  CHECK_EQ_U64(ETK_ETDUMP_VALUE_TYPE_ENUM_MASK >> 8, 0);
  CHECK_EQ_INT(ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST, 6);
}

static const etk_fb_table_desc_t *const all_tables[] = {
    &etk_etdump_schema,
    &etk_etdump_run_data_schema,
    &etk_etdump_allocator_schema,
    &etk_etdump_event_schema,
    &etk_etdump_profile_event_schema,
    &etk_etdump_allocation_event_schema,
    &etk_etdump_debug_event_schema,
    &etk_etdump_value_schema,
    &etk_etdump_tensor_schema,
    &etk_etdump_tensor_list_schema,
    &etk_etdump_int_schema,
    &etk_etdump_bool_schema,
    &etk_etdump_float_schema,
    &etk_etdump_double_schema,
    &etk_etdump_string_schema,
    &etk_etdump_null_schema,
};

ETK_TEST(descriptors_are_well_formed) {
  /* field counts per table, in .fbs order of the list above */
  static const uint16_t counts[] = {2, 4, 1, 3, 8, 2, 6, 8,
                                    4, 1, 1, 1, 1, 1, 1, 0};
  for (size_t t = 0; t < sizeof all_tables / sizeof all_tables[0]; t++) {
    const etk_fb_table_desc_t *d = all_tables[t];
    CHECK(d->name != NULL);
    CHECK_EQ_INT(d->field_count, counts[t]);
    for (uint16_t i = 0; i < d->field_count; i++) {
      const etk_fb_field_desc_t *f = &d->fields[i];
      CHECK(f->name != NULL);
      CHECK_EQ_INT(f->id, i); /* ids are the .fbs order, no gaps */
      CHECK(!f->required);
      if (f->kind == ETK_FB_TABLE || f->kind == ETK_FB_VEC_TABLE)
        CHECK(f->table != NULL);
      if (f->kind == ETK_FB_SCALAR || f->kind == ETK_FB_VEC_SCALAR)
        CHECK(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
    }
  }
  CHECK_EQ_STR(etk_etdump_schema.name, "ETDump");
}

/* Looks up a field descriptor by table and name. */
static const etk_fb_field_desc_t *field(const etk_fb_table_desc_t *d,
                                        const char *name) {
  for (uint16_t i = 0; i < d->field_count; i++)
    if (strcmp(d->fields[i].name, name) == 0) return &d->fields[i];
  return NULL;
}

ETK_TEST(descriptor_defaults_and_ids_match_header) {
  const etk_fb_field_desc_t *f;
  REQUIRE((f = field(&etk_etdump_run_data_schema, "bundled_input_index")) !=
          NULL);
  CHECK_EQ_INT(f->id, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX);
  CHECK_EQ_INT(f->default_int, -1);
  CHECK(f->is_signed && f->size == 4);
  REQUIRE((f = field(&etk_etdump_profile_event_schema, "instruction_id")) !=
          NULL);
  CHECK_EQ_INT(f->default_int, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID_DEFAULT);
  CHECK_EQ_INT(f->default_int, -1);
  REQUIRE((f = field(&etk_etdump_profile_event_schema,
                     "delegate_debug_id_int")) != NULL);
  CHECK_EQ_INT(f->default_int, -1);
  REQUIRE((f = field(&etk_etdump_profile_event_schema, "end_time")) != NULL);
  CHECK_EQ_INT(f->id, ETK_ETDUMP_PROFILE_EVENT_END_TIME);
  CHECK(!f->is_signed && f->size == 8);
  REQUIRE((f = field(&etk_etdump_debug_event_schema, "chain_index")) != NULL);
  CHECK(!f->is_signed && f->size == 8); /* ulong here, int in ProfileEvent */
  REQUIRE((f = field(&etk_etdump_profile_event_schema, "chain_index")) != NULL);
  CHECK(f->is_signed && f->size == 4);
  REQUIRE((f = field(&etk_etdump_debug_event_schema, "instruction_id")) !=
          NULL);
  CHECK_EQ_INT(f->default_int, -1);
  REQUIRE((f = field(&etk_etdump_tensor_schema, "scalar_type")) != NULL);
  CHECK_EQ_U64(f->enum_mask, ETK_SCALAR_TYPE_ENUM_MASK);
  REQUIRE((f = field(&etk_etdump_value_schema, "val")) != NULL);
  CHECK_EQ_U64(f->enum_mask, ETK_ETDUMP_VALUE_TYPE_ENUM_MASK);
  REQUIRE((f = field(&etk_etdump_value_schema, "output")) != NULL);
  CHECK(f->table == &etk_etdump_bool_schema);
  REQUIRE((f = field(&etk_etdump_double_schema, "double_val")) != NULL);
  CHECK(f->is_real && f->size == 8);
  REQUIRE((f = field(&etk_etdump_float_schema, "float_val")) != NULL);
  CHECK(f->is_real && f->size == 4);
  REQUIRE((f = field(&etk_etdump_profile_event_schema,
                     "delegate_debug_metadata")) != NULL);
  CHECK(f->kind == ETK_FB_VEC_SCALAR && f->size == 1 && !f->is_signed);
  CHECK_EQ_STR(ETK_ETDUMP_FILE_IDENTIFIER, "ED00");
  CHECK_EQ_STR(ETK_ETDUMP_FILE_EXTENSION, "etdp");
}

ETK_TEST_MAIN()
