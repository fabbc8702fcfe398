/*
 * test_verify.c - must-fail tests of the verifier (src/flatbuf/verify.c):
 * one valid sample buffer is corrupted in one precise way per test, and the
 * test checks the error code, the byte offset reported and the schema names.
 *
 * Positions of the objects to corrupt are found by reading the valid buffer
 * with the accessors first, so the tests do not depend on layout details.
 * The last tests sweep every single-byte corruption and every truncation:
 * the verifier must never crash (ASan/UBSan builds check that) and anything
 * it accepts must be readable by a full walk.
 */
#include <stdlib.h>

#include "etk_test.h"
#include "etkit/schema.h"
#include "fuzz_walk.h"
#include "golden_replay.h"
#include "schema/field_macros.h"

/* ---------------------------------------------------------- test schema */

enum {
  R_NAME,
  R_KIND,
  R_ITEMS,
  R_LONGS,
  R_PAYLOAD_TYPE,
  R_PAYLOAD,
  R_CHILD,
  R_BIG,
  R_TAGS,
  R_CHILDREN,
  R_WORDS
};
static const etk_fb_table_desc_t root_desc, item_desc;
static const etk_fb_table_desc_t *const payload_tables[] = {NULL, &item_desc};
static const etk_fb_field_desc_t item_fields[] = {F_INT("value", 0, 4, 1)};
static const etk_fb_table_desc_t item_desc = {"Item", 1, item_fields};
/* An enum (bytes, with the mask of the valid values) or a vector of them. */
#define TEST_ENUM(n, i, k, mask) \
  { .name = n, .id = i, .kind = k, .size = 1, .enum_mask = mask }
static const etk_fb_field_desc_t root_fields[] = {
    {.name = "name", .id = R_NAME, .kind = ETK_FB_STRING, .required = 1},
    TEST_ENUM("kind", R_KIND, ETK_FB_SCALAR, 0x7),
    F_VEC_TABLE("items", R_ITEMS, item_desc),
    F_VEC_INT("longs", R_LONGS, 8, 0),
    F_UNION_TYPE("payload_type", R_PAYLOAD_TYPE, 2),
    F_UNION("payload", R_PAYLOAD, 2, payload_tables),
    F_TABLE("child", R_CHILD, root_desc),
    F_INT("big", R_BIG, 8, 0),
    TEST_ENUM("tags", R_TAGS, ETK_FB_VEC_SCALAR, 0xFFFF),
    F_VEC_TABLE("children", R_CHILDREN, root_desc),
    {.name = "words", .id = R_WORDS, .kind = ETK_FB_VEC_STRING},
};
static const etk_fb_table_desc_t root_desc = {"Root", 11, root_fields};

#define SAMPLE_MAX 1024
static _Alignas(8) uint8_t sample[SAMPLE_MAX]; /* writable copy to corrupt */
static size_t sample_len;
static uint32_t sample_root;

static etk_fb_ref_t make_item(etk_fb_builder_t *b, int32_t v) {
  etk_fb_table_start(b);
  etk_fb_add_i32(b, 0, v, 0, ETK_FB_FORCE);
  return etk_fb_table_end(b);
}

/* Builds the sample into `sample`: a Root with every field set. */
static void build_sample(int prefixed) {
  static _Alignas(8) uint8_t mem[SAMPLE_MAX];
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_ref_t name = etk_fb_create_string(&b, "sample", 6);
  etk_fb_ref_t items_refs[2] = {make_item(&b, 10), make_item(&b, 20)};
  etk_fb_ref_t items = etk_fb_create_offset_vector(&b, items_refs, 2);
  int64_t longs_data[2] = {-5, 6};
  etk_fb_ref_t longs = etk_fb_create_vector(&b, longs_data, 2, 8, 8);
  etk_fb_ref_t payload = make_item(&b, 30);
  uint8_t tag_data[3] = {1, 2, 15};
  etk_fb_ref_t tags = etk_fb_create_vector(&b, tag_data, 3, 1, 1);
  etk_fb_ref_t child_name = etk_fb_create_string(&b, "kid", 3);
  etk_fb_table_start(&b);
  etk_fb_add_ref(&b, R_NAME, child_name);
  etk_fb_ref_t child = etk_fb_table_end(&b);
  etk_fb_ref_t word_refs[2] = {etk_fb_create_string(&b, "w1", 2),
                               etk_fb_create_string(&b, "w2", 2)};
  etk_fb_ref_t words = etk_fb_create_offset_vector(&b, word_refs, 2);
  etk_fb_table_start(&b);
  etk_fb_add_i64(&b, R_BIG, 0x1122334455667788, 0, 0);
  etk_fb_add_ref(&b, R_NAME, name);
  etk_fb_add_u8(&b, R_KIND, 2, 0, 0);
  etk_fb_add_ref(&b, R_ITEMS, items);
  etk_fb_add_ref(&b, R_LONGS, longs);
  etk_fb_add_u8(&b, R_PAYLOAD_TYPE, 1, 0, 0);
  etk_fb_add_ref(&b, R_PAYLOAD, payload);
  etk_fb_add_ref(&b, R_CHILD, child);
  etk_fb_add_ref(&b, R_TAGS, tags);
  etk_fb_add_ref(&b, R_WORDS, words);
  etk_fb_ref_t root = etk_fb_table_end(&b);
  const uint8_t *out;
  etk_fb_finish(&b, root, "SMPL", prefixed, &out, &sample_len);
  memcpy(sample, out, sample_len);
  sample_root = (uint32_t)(sample_len - root);
}

static int verify_sample(int prefixed, etk_fb_verify_error_t *err) {
  etk_fb_verify_options_t opt = {.ident = "SMPL", .size_prefixed = prefixed};
  uint32_t root = 0;
  return etk_fb_verify(sample, sample_len, &root_desc, &opt, &root, err);
}

/* Byte offset of field `id` of the table at `pos` in the sample. */
static uint32_t field_at(uint32_t table_pos, unsigned id) {
  etk_fb_table_t t = etk_fb_root(sample, table_pos);
  const uint8_t *p = etk_fb_get_struct(t, id);
  return p ? (uint32_t)(p - sample) : 0;
}

static uint32_t target_of(uint32_t uoffset_pos) {
  return uoffset_pos + etk_fb_load_u32(sample + uoffset_pos);
}

static uint32_t vtable_at(uint32_t table_pos) {
  return table_pos - etk_fb_load_u32(sample + table_pos);
}

static void put_u32(uint32_t at, uint32_t v) {
  sample[at] = (uint8_t)v;
  sample[at + 1] = (uint8_t)(v >> 8);
  sample[at + 2] = (uint8_t)(v >> 16);
  sample[at + 3] = (uint8_t)(v >> 24);
}

/* Builds a fresh sample, moves the offset in its root field `id` on by `by`
 * bytes and returns where that offset pointed before. */
static uint32_t shift_root_field(unsigned id, uint32_t by) {
  build_sample(0);
  uint32_t field = field_at(sample_root, id);
  uint32_t target = target_of(field);
  put_u32(field, target - field + by);
  return target;
}

static void put_u16(uint32_t at, uint16_t v) {
  sample[at] = (uint8_t)v;
  sample[at + 1] = (uint8_t)(v >> 8);
}

/* Expects exactly (code, offset, table, field). */
#define EXPECT_ERROR(prefixed, want_code, want_offset, want_table, want_field) \
  do {                                                                         \
    etk_fb_verify_error_t err_;                                                \
    const char *want_table_ = (want_table), *want_field_ = (want_field);       \
    CHECK_EQ_INT(verify_sample(prefixed, &err_), want_code);                   \
    CHECK_EQ_INT(err_.code, want_code);                                        \
    CHECK_EQ_U64(err_.offset, want_offset);                                    \
    if (want_table_) CHECK_EQ_STR(err_.table, want_table_);                    \
    if (want_field_)                                                           \
      CHECK_EQ_STR(err_.field, want_field_);                                   \
    else                                                                       \
      CHECK(err_.field == NULL);                                               \
  } while (0)

#define EXPECT_OK(prefixed)                               \
  do {                                                    \
    etk_fb_verify_error_t err_;                           \
    CHECK_EQ_INT(verify_sample(prefixed, &err_), ETK_OK); \
  } while (0)

/* ---------------------------------------------------------- baseline */

ETK_TEST(sample_is_valid_and_readable) {
  for (int prefixed = 0; prefixed <= 1; prefixed++) {
    build_sample(prefixed);
    etk_fb_verify_error_t err;
    REQUIRE(verify_sample(prefixed, &err) == ETK_OK);
    CHECK_EQ_INT(err.code, ETK_OK);
    etk_fb_table_t t = etk_fb_root(sample, sample_root);
    CHECK_EQ_STR(etk_fb_get_string(t, R_NAME).data, "sample");
    CHECK_EQ_INT(etk_fb_get_u8(t, R_KIND, 0), 2);
    CHECK_EQ_INT(etk_fb_get_i32(etk_fb_get_table(t, R_PAYLOAD), 0, 0), 30);
    CHECK_EQ_INT(etk_fb_get_vector(t, R_ITEMS).count, 2);
    CHECK_EQ_STR(
        etk_fb_vector_string(sample, etk_fb_get_vector(t, R_WORDS), 1).data,
        "w2");
  }
}

ETK_TEST(null_arguments) {
  etk_fb_verify_error_t err;
  build_sample(0);
  CHECK_EQ_INT(etk_fb_verify(NULL, 10, &root_desc, NULL, NULL, &err),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_fb_verify(sample, sample_len, NULL, NULL, NULL, &err),
               ETK_E_INVALID_ARGUMENT);
  /* options, root_table and err are optional */
  CHECK_EQ_INT(etk_fb_verify(sample, sample_len, &root_desc, NULL, NULL, NULL),
               ETK_OK);
}

/* ---------------------------------------------------------- header */

ETK_TEST(truncated_header) {
  build_sample(1);
  etk_fb_verify_options_t opt = {.ident = "SMPL", .size_prefixed = 1};
  etk_fb_verify_error_t err;
  CHECK_EQ_INT(etk_fb_verify(sample, 3, &root_desc, &opt, NULL, &err),
               ETK_E_TRUNCATED);
  CHECK_EQ_U64(err.offset, 0);
  build_sample(0);
  opt.size_prefixed = 0;
  CHECK_EQ_INT(etk_fb_verify(sample, 6, &root_desc, &opt, NULL, &err),
               ETK_E_TRUNCATED);
  CHECK_EQ_U64(err.offset, 0);
  CHECK_EQ_INT(etk_fb_verify(sample, 0, &root_desc, NULL, NULL, &err),
               ETK_E_TRUNCATED);
}

ETK_TEST(size_prefix_larger_than_data) {
  build_sample(1);
  put_u32(0, (uint32_t)sample_len - 3); /* one byte more than there is */
  EXPECT_ERROR(1, ETK_E_TRUNCATED, 0, "Root", NULL);
  put_u32(0, 0xFFFFFFFFu);
  EXPECT_ERROR(1, ETK_E_TRUNCATED, 0, "Root", NULL);
}

ETK_TEST(every_truncation_of_a_prefixed_buffer_is_truncated) {
  build_sample(1);
  etk_fb_verify_options_t opt = {.ident = "SMPL", .size_prefixed = 1};
  for (size_t len = 0; len < sample_len; len++) {
    etk_fb_verify_error_t err;
    CHECK_EQ_INT(etk_fb_verify(sample, len, &root_desc, &opt, NULL, &err),
                 ETK_E_TRUNCATED);
    CHECK_EQ_U64(err.offset, 0);
  }
  /* trailing bytes beyond the prefix's size are ignored */
  CHECK_EQ_INT(
      etk_fb_verify(sample, sample_len + 5, &root_desc, &opt, NULL, NULL),
      ETK_OK);
}

ETK_TEST(bad_identifier) {
  build_sample(1);
  sample[8] = 'X';
  EXPECT_ERROR(1, ETK_E_BAD_IDENTIFIER, 8, "Root", NULL);
  build_sample(0);
  sample[7] = 'X';
  EXPECT_ERROR(0, ETK_E_BAD_IDENTIFIER, 4, "Root", NULL);
  /* no identifier requested: not checked */
  etk_fb_verify_options_t opt = {0};
  CHECK_EQ_INT(etk_fb_verify(sample, sample_len, &root_desc, &opt, NULL, NULL),
               ETK_OK);
}

/* ---------------------------------------------------------- offsets */

ETK_TEST(root_offset_out_of_range) {
  build_sample(1);
  put_u32(4, (uint32_t)sample_len); /* target = 4 + len: past the end */
  EXPECT_ERROR(1, ETK_E_BAD_OFFSET, 4, "Root", NULL);
  put_u32(4,
          (uint32_t)sample_len - 4 - 2); /* only 2 bytes left for the soffset */
  EXPECT_ERROR(1, ETK_E_BAD_OFFSET, 4, "Root", NULL);
  put_u32(4, 0); /* a zero offset points at itself */
  EXPECT_ERROR(1, ETK_E_BAD_OFFSET, 4, "Root", NULL);
}

ETK_TEST(field_offset_out_of_range) {
  build_sample(0);
  uint32_t name_field = field_at(sample_root, R_NAME);
  REQUIRE(name_field != 0);
  put_u32(name_field, 0x7FFFFFF0u);
  EXPECT_ERROR(0, ETK_E_BAD_OFFSET, name_field, "Root", "name");
  build_sample(0);
  uint32_t items = target_of(field_at(sample_root, R_ITEMS));
  put_u32(items + 4, 0xFFFFFFFFu); /* element 0 of the items vector */
  EXPECT_ERROR(0, ETK_E_BAD_OFFSET, items + 4, "Root", "items");
}

/* ---------------------------------------------------------- alignment */

ETK_TEST(misaligned_table) {
  uint32_t payload = shift_root_field(R_PAYLOAD, 2);
  EXPECT_ERROR(0, ETK_E_BAD_ALIGNMENT, payload + 2, "Item", NULL);
}

ETK_TEST(misaligned_vector) {
  /* 4 bytes on: the count stays 4-aligned but the int64s would not be
   * 8-aligned */
  uint32_t longs = shift_root_field(R_LONGS, 4);
  EXPECT_ERROR(0, ETK_E_BAD_ALIGNMENT, longs + 4, "Root", "longs");
  longs = shift_root_field(R_LONGS, 2);
  EXPECT_ERROR(0, ETK_E_BAD_ALIGNMENT, longs + 2, "Root", "longs");
}

ETK_TEST(misaligned_string) {
  uint32_t name = shift_root_field(R_NAME, 1);
  EXPECT_ERROR(0, ETK_E_BAD_ALIGNMENT, name + 1, "Root", "name");
}

ETK_TEST(misaligned_field) {
  build_sample(0);
  uint32_t vt = vtable_at(sample_root);
  uint32_t big = field_at(sample_root, R_BIG);
  uint16_t entry = etk_fb_load_u16(sample + vt + 4 + 2 * R_BIG);
  put_u16(vt + 4 + 2 * R_BIG,
          (uint16_t)(entry + 4)); /* still inside, 4 mod 8 */
  EXPECT_ERROR(0, ETK_E_BAD_ALIGNMENT, big + 4, "Root", "big");
}

/* ---------------------------------------------------------- vtables */

ETK_TEST(vtable_out_of_bounds) {
  build_sample(0);
  put_u32(sample_root,
          (uint32_t)(int32_t) - (int32_t)sample_len); /* vt past the end */
  EXPECT_ERROR(0, ETK_E_BAD_VTABLE, sample_root, "Root", NULL);
  put_u32(sample_root, sample_root + 8); /* vt before the start */
  EXPECT_ERROR(0, ETK_E_BAD_VTABLE, sample_root, "Root", NULL);
}

ETK_TEST(vtable_misaligned) {
  build_sample(0);
  uint32_t vt = vtable_at(sample_root);
  put_u32(sample_root, etk_fb_load_u32(sample + sample_root) - 1);
  EXPECT_ERROR(0, ETK_E_BAD_ALIGNMENT, vt + 1, "Root", NULL);
}

ETK_TEST(vtable_bad_sizes) {
  build_sample(0);
  uint32_t vt = vtable_at(sample_root);
  uint16_t vtable_size = etk_fb_load_u16(sample + vt);
  put_u16(vt, (uint16_t)(vtable_size - 1)); /* odd */
  EXPECT_ERROR(0, ETK_E_BAD_VTABLE, vt, "Root", NULL);
  put_u16(vt, 0xFFFE); /* past the end */
  EXPECT_ERROR(0, ETK_E_BAD_VTABLE, vt, "Root", NULL);
  /* Shorter than its own header: no entries, so every field is absent and
   * the required name is reported missing (the official verifier's reading). */
  put_u16(vt, 2);
  EXPECT_ERROR(0, ETK_E_MISSING_FIELD, sample_root, "Root", "name");
}

/* The table-size entry of a vtable bounds nothing: writers share a vtable
 * among tables of different shapes, so it may be smaller than a field's
 * extent or even than the soffset.  flatc and upstream's runtime accept such
 * buffers; so must we (upstream's Arduino examples have them). */
ETK_TEST(vtable_table_size_is_not_a_bound) {
  build_sample(0);
  uint32_t vt = vtable_at(sample_root);
  put_u16(vt + 2, 4);
  EXPECT_OK(0);
  put_u16(vt + 2, 0);
  EXPECT_OK(0);
  put_u16(vt + 2, 0xFFF0); /* past the end of the buffer */
  EXPECT_OK(0);
}

/* A vtable stored after its table (negative soffset), shared by two
 * tables, as upstream's serializer writes for scalar union members. */
ETK_TEST(vtable_after_table_shared) {
  /* Layout: [root uoffset][pad][item A @8][item B @16][vtable @24] */
  static _Alignas(8) uint8_t buf[32];
  memset(buf, 0, sizeof buf);
  buf[0] = 8;                                /* root -> item A at 8 */
  int32_t soff_a = 8 - 24, soff_b = 16 - 24; /* vtable at 24 */
  memcpy(buf + 8, &soff_a, 4);
  buf[12] = 7; /* A.value = 7 */
  memcpy(buf + 16, &soff_b, 4);
  buf[20] = 9; /* B.value = 9 */
  buf[24] = 6;
  buf[26] = 4;
  buf[28] = 4; /* vtable: size 6, table 4, field @4 */
  etk_fb_verify_error_t err;
  uint32_t root = 0;
  CHECK_EQ_INT(etk_fb_verify(buf, 30, &item_desc, NULL, &root, &err), ETK_OK);
  CHECK_EQ_U64(root, 8);
  CHECK_EQ_INT(etk_fb_get_i32(etk_fb_root(buf, root), 0, -1), 7);
  /* the field may not leave the buffer, though */
  buf[28] = 20; /* 8 + 20 = 28: 4 bytes need 32, buffer ends at 30 */
  CHECK_EQ_INT(etk_fb_verify(buf, 30, &item_desc, NULL, &root, &err),
               ETK_E_BAD_VTABLE);
}

/* A Root whose children A and B share one vtable: B is verified through
 * the memo A left (verify.c), and its string must still be checked.
 * Returns B's table position in `sample`. */
static uint32_t build_shared_children(void) {
  static _Alignas(8) uint8_t mem[SAMPLE_MAX];
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_ref_t refs[2];
  for (int k = 0; k < 2; k++) {
    etk_fb_ref_t child_name = etk_fb_create_string(&b, k ? "bb" : "aa", 2);
    etk_fb_table_start(&b);
    etk_fb_add_ref(&b, R_NAME, child_name);
    refs[k] = etk_fb_table_end(&b);
  }
  etk_fb_ref_t children = etk_fb_create_offset_vector(&b, refs, 2);
  etk_fb_ref_t name = etk_fb_create_string(&b, "s", 1);
  etk_fb_table_start(&b);
  etk_fb_add_ref(&b, R_NAME, name);
  etk_fb_add_ref(&b, R_CHILDREN, children);
  etk_fb_ref_t root = etk_fb_table_end(&b);
  const uint8_t *out;
  etk_fb_finish(&b, root, "SMPL", 0, &out, &sample_len);
  memcpy(sample, out, sample_len);
  sample_root = (uint32_t)(sample_len - root);
  return target_of(target_of(field_at(sample_root, R_CHILDREN)) + 8);
}

ETK_TEST(tables_sharing_a_vtable_are_each_checked) {
  uint32_t b_pos = build_shared_children();
  uint32_t a_pos = target_of(target_of(field_at(sample_root, R_CHILDREN)) + 4);
  REQUIRE(vtable_at(a_pos) == vtable_at(b_pos));
  EXPECT_OK(0);
  /* B's name loses its NUL: found although A passed with the same vtable */
  uint32_t str = target_of(field_at(b_pos, R_NAME));
  sample[str + 4 + 2] = 'x';
  EXPECT_ERROR(0, ETK_E_BAD_STRING, str + 4 + 2, "Root", "name");
  /* B's name offset points past the end */
  build_shared_children();
  put_u32(field_at(b_pos, R_NAME), (uint32_t)sample_len);
  EXPECT_ERROR(0, ETK_E_BAD_OFFSET, field_at(b_pos, R_NAME), "Root", "name");
}

ETK_TEST(vtable_field_entry_outside_buffer) {
  build_sample(0);
  uint32_t vt = vtable_at(sample_root);
  /* the 8-byte field would start exactly at the end of the buffer */
  put_u16(vt + 4 + 2 * R_BIG, (uint16_t)(sample_len - sample_root));
  EXPECT_ERROR(0, ETK_E_BAD_VTABLE, vt + 4 + 2 * R_BIG, "Root", "big");
  build_sample(0);
  put_u16(vt + 4 + 2 * R_KIND, 0xFFFF); /* far past the end */
  EXPECT_ERROR(0, ETK_E_BAD_VTABLE, vt + 4 + 2 * R_KIND, "Root", "kind");
}

/* ---------------------------------------------------------- vectors */

ETK_TEST(vector_length_overflow) {
  static const uint32_t counts[] = {0x7FFFFFFFu, 0xFFFFFFFFu, 0x20000000u, 3};
  for (size_t i = 0; i < 4; i++) {
    build_sample(0);
    uint32_t longs = target_of(field_at(sample_root, R_LONGS));
    put_u32(longs, counts[i]); /* count * 8 wraps in 32 bits for the first 3 */
    if (counts[i] == 3) {
      /* 3 longs may still fit inside the buffer: only check it is not read
       * past the end (the sample is then verified or rejected, no crash) */
      (void)verify_sample(0, NULL);
      continue;
    }
    EXPECT_ERROR(0, ETK_E_BAD_VECTOR, longs, "Root", "longs");
  }
  build_sample(0);
  uint32_t items = target_of(field_at(sample_root, R_ITEMS));
  put_u32(items, 0x40000000u); /* 0x40000000 * 4 = 2^32 */
  EXPECT_ERROR(0, ETK_E_BAD_VECTOR, items, "Root", "items");
}

ETK_TEST(empty_vector_elements_need_no_alignment) {
  /* flatc's C++ builder writes empty [long] vectors with the count only
   * 4-aligned; with no elements nothing can be misread, so accept them.
   * Built here with a 4-byte element alignment, at both parities. */
  int misaligned_seen = 0;
  for (int shift = 0; shift <= 1; shift++) {
    static _Alignas(8) uint8_t mem[256];
    etk_fb_builder_t b;
    etk_fb_builder_init(&b, mem, sizeof mem);
    etk_fb_ref_t name = etk_fb_create_string(&b, "abc", 3);
    etk_fb_ref_t longs = etk_fb_create_vector(&b, NULL, 0, 8, 4);
    /* 4 more bytes between the vector and the start move its position
     * (counted from the start) by 4 */
    if (shift) etk_fb_create_vector(&b, NULL, 0, 1, 1);
    etk_fb_table_start(&b);
    etk_fb_add_ref(&b, R_NAME, name);
    etk_fb_add_ref(&b, R_LONGS, longs);
    etk_fb_ref_t root = etk_fb_table_end(&b);
    const uint8_t *out;
    size_t len;
    REQUIRE(etk_fb_finish(&b, root, NULL, 0, &out, &len) == ETK_OK);
    uint32_t root_pos;
    CHECK_EQ_INT(etk_fb_verify(out, len, &root_desc, NULL, &root_pos, NULL),
                 ETK_OK);
    etk_fb_vector_t v = etk_fb_get_vector(etk_fb_root(out, root_pos), R_LONGS);
    CHECK(v.data != NULL);
    CHECK_EQ_INT(v.count, 0);
    misaligned_seen |= v.pos % 8 == 4;
  }
  CHECK(misaligned_seen);
}

/* ---------------------------------------------------------- strings */

ETK_TEST(string_missing_nul) {
  build_sample(0);
  uint32_t name = target_of(field_at(sample_root, R_NAME));
  sample[name + 4 + 6] = '!';
  EXPECT_ERROR(0, ETK_E_BAD_STRING, name + 4 + 6, "Root", "name");
  build_sample(0);
  put_u32(name, (uint32_t)sample_len); /* length past the end */
  EXPECT_ERROR(0, ETK_E_BAD_STRING, name, "Root", "name");
  build_sample(0);
  uint32_t words = target_of(field_at(sample_root, R_WORDS));
  uint32_t w1 = target_of(words + 4);
  sample[w1 + 4 + 2] = 'x';
  EXPECT_ERROR(0, ETK_E_BAD_STRING, w1 + 4 + 2, "Root", "words");
}

/* ---------------------------------------------------------- enums */

ETK_TEST(bad_enum) {
  build_sample(0);
  uint32_t kind = field_at(sample_root, R_KIND);
  sample[kind] = 3; /* mask 0x7: 0..2 valid */
  EXPECT_ERROR(0, ETK_E_BAD_ENUM, kind, "Root", "kind");
  sample[kind] = 0xFF; /* negative as a signed byte */
  EXPECT_ERROR(0, ETK_E_BAD_ENUM, kind, "Root", "kind");
  build_sample(0);
  uint32_t tags = target_of(field_at(sample_root, R_TAGS));
  sample[tags + 4 + 2] = 16; /* third tag, mask 0xFFFF: 0..15 valid */
  EXPECT_ERROR(0, ETK_E_BAD_ENUM, tags + 4 + 2, "Root", "tags");
}

ETK_TEST(etdump_enums_are_checked) {
  static _Alignas(8) uint8_t mem[4096];
  const uint8_t *out;
  size_t len;
  REQUIRE(golden_replay_into(golden_replay_debug_events, mem, sizeof mem, &out,
                             &len) == ETK_OK);
  uint8_t *copy = malloc(len);
  REQUIRE(copy != NULL);
  memcpy(copy, out, len);
  etk_fb_verify_options_t opt = {.ident = ETK_ETDUMP_FILE_IDENTIFIER,
                                 .size_prefixed = 1};
  uint32_t root_pos;
  etk_fb_verify_error_t err;
  REQUIRE(etk_fb_verify(copy, len, &etk_etdump_schema, &opt, &root_pos, &err) ==
          ETK_OK);
  etk_fb_table_t root = etk_fb_root(copy, root_pos);
  etk_fb_table_t run = etk_fb_vector_table(
      copy, etk_fb_get_vector(root, ETK_ETDUMP_RUN_DATA), 0);
  etk_fb_table_t event = etk_fb_vector_table(
      copy, etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS), 0);
  etk_fb_table_t value =
      etk_fb_get_table(etk_fb_get_table(event, ETK_ETDUMP_EVENT_DEBUG_EVENT),
                       ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY);
  etk_fb_table_t tensor = etk_fb_get_table(value, ETK_ETDUMP_VALUE_TENSOR);
  uint32_t scalar_type =
      (uint32_t)(etk_fb_get_struct(tensor, ETK_ETDUMP_TENSOR_SCALAR_TYPE) -
                 copy);
  uint32_t val =
      (uint32_t)(etk_fb_get_struct(value, ETK_ETDUMP_VALUE_VAL) - copy);
  /* every ScalarType code: accepted exactly when the schema has it */
  for (int code = 0; code < 256; code++) {
    copy[scalar_type] = (uint8_t)code;
    int rc = etk_fb_verify(copy, len, &etk_etdump_schema, &opt, NULL, &err);
    int valid = code < 128 && etk_scalar_type_valid(code);
    CHECK_EQ_INT(rc, valid ? ETK_OK : ETK_E_BAD_ENUM);
    if (!valid) {
      CHECK_EQ_U64(err.offset, scalar_type);
      CHECK_EQ_STR(err.table, "Tensor");
      CHECK_EQ_STR(err.field, "scalar_type");
    }
  }
  copy[scalar_type] = ETK_SCALAR_TYPE_FLOAT;
  copy[val] = 8; /* ValueType has 0..7 */
  CHECK_EQ_INT(etk_fb_verify(copy, len, &etk_etdump_schema, &opt, NULL, &err),
               ETK_E_BAD_ENUM);
  CHECK_EQ_U64(err.offset, val);
  CHECK_EQ_STR(err.field, "val");
  free(copy);
}

/* ---------------------------------------------------------- unions */

ETK_TEST(bad_union) {
  build_sample(0);
  uint32_t type = field_at(sample_root, R_PAYLOAD_TYPE);
  uint32_t value = field_at(sample_root, R_PAYLOAD);
  sample[type] = 0; /* NONE with a value */
  EXPECT_ERROR(0, ETK_E_BAD_UNION, value, "Root", "payload");
  sample[type] = 2; /* unknown member */
  EXPECT_ERROR(0, ETK_E_BAD_UNION, type, "Root", "payload");
  build_sample(0);
  uint32_t vt = vtable_at(sample_root);
  put_u16(vt + 4 + 2 * R_PAYLOAD, 0); /* type 1 without a value */
  EXPECT_ERROR(0, ETK_E_BAD_UNION, type, "Root", "payload");
}

/* ---------------------------------------------------------- required */

ETK_TEST(missing_required_field) {
  build_sample(0);
  uint32_t vt = vtable_at(sample_root);
  put_u16(vt + 4 + 2 * R_NAME, 0);
  EXPECT_ERROR(0, ETK_E_MISSING_FIELD, sample_root, "Root", "name");
}

/* ---------------------------------------------------------- limits */

/* A builder over the memory of the deep buffers below (each is read before
 * the next is built), with the name "n" their tables share in *name. */
static etk_fb_builder_t *deep_builder(etk_fb_ref_t *name) {
  static _Alignas(8) uint8_t mem[65536];
  static etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  *name = etk_fb_create_string(&b, "n", 1);
  return &b;
}

/* A chain of `depth` Root tables linked through `child`.  *deepest gets
 * the ref of the innermost table. */
static void build_chain(unsigned depth, etk_fb_ref_t *refs) {
  etk_fb_ref_t name;
  etk_fb_builder_t *b = deep_builder(&name);
  etk_fb_ref_t child = 0;
  for (unsigned i = 0; i < depth; i++) {
    etk_fb_table_start(b);
    etk_fb_add_ref(b, R_NAME, name);
    etk_fb_add_ref(b, R_CHILD, child);
    child = etk_fb_table_end(b);
    refs[depth - 1 - i] = child; /* refs[0] is the root */
  }
  const uint8_t *out;
  REQUIRE(etk_fb_finish(b, child, NULL, 0, &out, &sample_len) == ETK_OK);
  REQUIRE(sample_len <= sizeof sample);
  memcpy(sample, out, sample_len);
}

ETK_TEST(too_deep) {
  etk_fb_ref_t refs[70];
  build_chain(70, refs);
  etk_fb_verify_error_t err;
  etk_fb_verify_options_t opt = {0};
  CHECK_EQ_INT(etk_fb_verify(sample, sample_len, &root_desc, &opt, NULL, &err),
               ETK_E_TOO_DEEP);
  /* the root is depth 1, so table index 64 (depth 65) is the first too deep */
  CHECK_EQ_U64(err.offset, sample_len - refs[ETK_FB_DEFAULT_MAX_DEPTH]);
  CHECK_EQ_STR(err.table, "Root");
  opt.max_depth = 70;
  CHECK_EQ_INT(etk_fb_verify(sample, sample_len, &root_desc, &opt, NULL, &err),
               ETK_OK);
  opt.max_depth = 69;
  CHECK_EQ_INT(etk_fb_verify(sample, sample_len, &root_desc, &opt, NULL, &err),
               ETK_E_TOO_DEEP);
  CHECK_EQ_U64(err.offset, sample_len - refs[69]);
}

/* A DAG of `levels` Root tables, each level a vector of 16 references to
 * the single table below it: 16^(levels-1) paths to the bottom table. */
static int build_dag(int levels, const uint8_t **out, size_t *len) {
  etk_fb_ref_t name;
  etk_fb_builder_t *b = deep_builder(&name);
  etk_fb_ref_t below = 0;
  for (int level = 0; level < levels; level++) {
    etk_fb_ref_t vec = 0;
    if (below) {
      etk_fb_ref_t refs[16];
      for (int i = 0; i < 16; i++) refs[i] = below;
      vec = etk_fb_create_offset_vector(b, refs, 16);
    }
    etk_fb_table_start(b);
    etk_fb_add_ref(b, R_NAME, name);
    etk_fb_add_ref(b, R_CHILDREN, vec);
    below = etk_fb_table_end(b);
  }
  return etk_fb_finish(b, below, NULL, 0, out, len);
}

ETK_TEST(shared_objects_hit_the_budget) {
  /* 8 levels: 16^7 = 268 million paths in a buffer of a few hundred bytes;
   * the default budget (8 * length + 1024 visits) stops it at once */
  const uint8_t *out;
  size_t len;
  REQUIRE(build_dag(8, &out, &len) == ETK_OK);
  CHECK(len < 1024);
  etk_fb_verify_error_t err;
  CHECK_EQ_INT(etk_fb_verify(out, len, &root_desc, NULL, NULL, &err),
               ETK_E_LIMIT);
  CHECK_EQ_STR(err.table, "Root");
  CHECK(err.offset < len);
  /* 3 levels: 1 + 16 + 256 tables, each with its name, plus 17 vectors =
   * 563 visits, within the default budget */
  REQUIRE(build_dag(3, &out, &len) == ETK_OK);
  CHECK_EQ_INT(etk_fb_verify(out, len, &root_desc, NULL, NULL, &err), ETK_OK);
  etk_fb_verify_options_t opt = {.max_objects = 563};
  CHECK_EQ_INT(etk_fb_verify(out, len, &root_desc, &opt, NULL, &err), ETK_OK);
  opt.max_objects = 562;
  CHECK_EQ_INT(etk_fb_verify(out, len, &root_desc, &opt, NULL, &err),
               ETK_E_LIMIT);
}

ETK_TEST(explicit_budget_is_exact) {
  build_sample(0);
  /* count the objects of the sample: find the smallest budget that passes */
  uint64_t needed = 0;
  for (uint64_t budget = 1; budget < 100; budget++) {
    etk_fb_verify_options_t opt = {.ident = "SMPL", .max_objects = budget};
    if (etk_fb_verify(sample, sample_len, &root_desc, &opt, NULL, NULL) ==
        ETK_OK) {
      needed = budget;
      break;
    }
  }
  /* root, name, items vector, 2 items, longs, payload, tags (+3 enum
   * elements), child, its name, words vector, 2 words = 16 */
  CHECK_EQ_U64(needed, 16);
  etk_fb_verify_options_t opt = {.ident = "SMPL", .max_objects = needed - 1};
  etk_fb_verify_error_t err;
  CHECK_EQ_INT(etk_fb_verify(sample, sample_len, &root_desc, &opt, NULL, &err),
               ETK_E_LIMIT);
}

/* ---------------------------------------------------------- sweeps */

ETK_TEST(every_single_byte_corruption_is_safe) {
  static const uint8_t values[] = {0x00, 0x01, 0x02, 0x04,
                                   0x7F, 0x80, 0xFE, 0xFF};
  for (int prefixed = 0; prefixed <= 1; prefixed++) {
    build_sample(prefixed);
    size_t len = sample_len;
    uint8_t *copy = malloc(len); /* exact size: ASan sees any overread */
    REQUIRE(copy != NULL);
    int accepted = 0, rejected = 0;
    for (size_t at = 0; at < len; at++) {
      for (size_t k = 0; k < sizeof values; k++) {
        memcpy(copy, sample, len);
        if (copy[at] == values[k]) continue;
        copy[at] = values[k];
        etk_fb_verify_options_t opt = {.ident = "SMPL",
                                       .size_prefixed = prefixed};
        uint32_t root = 0;
        etk_fb_verify_error_t err;
        int rc = etk_fb_verify(copy, len, &root_desc, &opt, &root, &err);
        if (rc == ETK_OK) {
          accepted++;
          (void)fuzz_walk_table(etk_fb_root(copy, root), &root_desc, 0);
        } else {
          rejected++;
          CHECK_EQ_INT(err.code, rc);
          CHECK(err.offset < len);
        }
      }
    }
    CHECK(rejected > 0);
    CHECK(accepted > 0); /* e.g. changed scalar values stay valid */
    free(copy);
  }
}

ETK_TEST(every_truncation_without_prefix_is_rejected_safely) {
  build_sample(0);
  /* the first object built, "sample", ends the buffer: [len][6 bytes][NUL]
   * [1 pad byte].  Only cutting that pad byte leaves every object whole. */
  size_t accepted = 0;
  for (size_t len = 0; len < sample_len; len++) {
    uint8_t *copy = malloc(len ? len : 1); /* exact size for ASan */
    REQUIRE(copy != NULL);
    memcpy(copy, sample, len);
    etk_fb_verify_options_t opt = {.ident = "SMPL"};
    uint32_t root = 0;
    etk_fb_verify_error_t err;
    if (etk_fb_verify(copy, len, &root_desc, &opt, &root, &err) == ETK_OK) {
      accepted++;
      CHECK_EQ_U64(len, sample_len - 1);
      (void)fuzz_walk_table(etk_fb_root(copy, root), &root_desc, 0);
    } else {
      CHECK(err.offset <= len);
    }
    free(copy);
  }
  CHECK_EQ_U64(accepted, 1);
}

ETK_TEST_MAIN()
