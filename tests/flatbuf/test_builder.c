/*
 * test_builder.c - unit tests of the no-heap builder (src/flatbuf/builder.c)
 * read back through the verifier and the accessors.
 *
 * A small test schema (AllScalars, Holder) covers every scalar width, every
 * vector alignment, strings, structs and offset vectors independently of
 * ETDump.  The capacity sweep proves the "full buffer" contract: at every
 * capacity the build either succeeds or fails with ETK_E_NO_MEMORY, never
 * writes outside its buffer, and never alters what it had already built.
 */
#include <math.h>
#include <stdlib.h>

#include "etk_test.h"
#include "etkit/schema.h"
#include "golden_replay.h"
#include "schema/field_macros.h"

/* ---------------------------------------------------------- test schema */

/* The schema's own field shorthand (schema/field_macros.h) plus the kinds
 * its tables never use: structs, vectors of structs and of strings. */
#define TEST_STRUCT(n, i, sz, al) \
  { .name = n, .id = i, .kind = ETK_FB_STRUCT, .size = sz, .align = al }
#define TEST_VEC_STRUCT(n, i, sz, al) \
  { .name = n, .id = i, .kind = ETK_FB_VEC_STRUCT, .size = sz, .align = al }
#define TEST_VEC_STRING(n, i) \
  { .name = n, .id = i, .kind = ETK_FB_VEC_STRING }

enum {
  F_BOOL,
  F_U8,
  F_I8,
  F_U16,
  F_I16,
  F_U32,
  F_I32,
  F_U64,
  F_I64,
  F_F32,
  F_F64
};

static const etk_fb_field_desc_t all_scalar_fields[] = {
    F_INT("b", F_BOOL, 1, 0),  F_INT("u8", F_U8, 1, 0),
    F_INT("i8", F_I8, 1, 1),   F_INT("u16", F_U16, 2, 0),
    F_INT("i16", F_I16, 2, 1), F_INT("u32", F_U32, 4, 0),
    F_INT("i32", F_I32, 4, 1), F_INT("u64", F_U64, 8, 0),
    F_INT("i64", F_I64, 8, 1), F_REAL("f32", F_F32, 4),
    F_REAL("f64", F_F64, 8),
};
static const etk_fb_table_desc_t all_scalars = {"AllScalars", 11,
                                                all_scalar_fields};

enum {
  H_NAME,
  H_BYTES,
  H_SHORTS,
  H_INTS,
  H_LONGS,
  H_STRUCTS16,
  H_STRINGS,
  H_CHILDREN,
  H_POINT,
  H_WIDE,
  H_CHILD
};
static const etk_fb_table_desc_t holder;
static const etk_fb_field_desc_t holder_fields[] = {
    F_STRING("name", H_NAME),
    F_VEC_INT("bytes", H_BYTES, 1, 0),
    F_VEC_INT("shorts", H_SHORTS, 2, 0),
    F_VEC_INT("ints", H_INTS, 4, 0),
    F_VEC_INT("longs", H_LONGS, 8, 0),
    TEST_VEC_STRUCT("structs16", H_STRUCTS16, 16, 16),
    TEST_VEC_STRING("strings", H_STRINGS),
    F_VEC_TABLE("children", H_CHILDREN, holder),
    TEST_STRUCT("point", H_POINT, 12, 4),
    TEST_STRUCT("wide", H_WIDE, 16, 8),
    F_TABLE("child", H_CHILD, all_scalars),
};
static const etk_fb_table_desc_t holder = {"Holder", 11, holder_fields};

static _Alignas(16) uint8_t mem[16384];

/* Verifies out[0..len) (no prefix unless told) and returns the root. */
static int verify_root(const uint8_t *out, size_t len,
                       const etk_fb_table_desc_t *d, int size_prefixed,
                       const char *ident, etk_fb_table_t *root) {
  etk_fb_verify_options_t opt = {0};
  opt.size_prefixed = size_prefixed;
  opt.ident = ident;
  uint32_t pos = 0;
  etk_fb_verify_error_t err;
  int rc = etk_fb_verify(out, len, d, &opt, &pos, &err);
  if (rc != ETK_OK)
    printf("# verify: %s at %u (%s.%s)\n", etk_status_name(rc),
           (unsigned)err.offset, err.table ? err.table : "-",
           err.field ? err.field : "-");
  *root = etk_fb_root(out, pos);
  return rc;
}

/* A finished buffer that passed the verifier, and its root table. */
typedef struct built {
  const uint8_t *out;
  size_t len;
  etk_fb_table_t root;
} built_t;

/* Ends the open table as the root, finishes the buffer (with `ident` and a
 * size prefix when told), verifies it against d and returns the first
 * failing status; *built receives the result. */
static int end_finish_verify(etk_fb_builder_t *b, const char *ident,
                             int size_prefixed, const etk_fb_table_desc_t *d,
                             built_t *built) {
  etk_fb_ref_t ref = etk_fb_table_end(b);
  int rc =
      etk_fb_finish(b, ref, ident, size_prefixed, &built->out, &built->len);
  if (rc != ETK_OK) {
    printf("# finish: %s\n", etk_status_name(rc));
    return rc;
  }
  return verify_root(built->out, built->len, d, size_prefixed, ident,
                     &built->root);
}

/* ---------------------------------------------------------- init */

ETK_TEST(init_rejects_bad_arguments) {
  etk_fb_builder_t b;
  CHECK_EQ_INT(etk_fb_builder_init(NULL, mem, sizeof mem),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_fb_builder_init(&b, NULL, 16), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_fb_create_string(&b, "x", 1), 0);
  CHECK_EQ_INT(etk_fb_builder_init(&b, mem, (size_t)0x80000001u),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_fb_builder_init(&b, mem, sizeof mem), ETK_OK);
  CHECK_EQ_U64(etk_fb_builder_size(&b), 0);
  CHECK_EQ_U64(etk_fb_builder_available(&b), sizeof mem);
  /* an unaligned end is trimmed so output is 8-aligned in memory */
  CHECK_EQ_INT(etk_fb_builder_init(&b, mem + 1, 100), ETK_OK);
  CHECK_EQ_U64(etk_fb_builder_available(&b), 95);
}

/* ---------------------------------------------------------- scalars */

static void add_all_scalars(etk_fb_builder_t *b, int flags, int use_defaults) {
  /* defaults are the values themselves when use_defaults, else 0 */
  etk_fb_add_bool(b, F_BOOL, 1, use_defaults ? 1 : 0, flags);
  etk_fb_add_u8(b, F_U8, 0xFE, use_defaults ? 0xFE : 0, flags);
  etk_fb_add_i8(b, F_I8, -7, use_defaults ? -7 : 0, flags);
  etk_fb_add_u16(b, F_U16, 0xBEEF, use_defaults ? 0xBEEF : 0, flags);
  etk_fb_add_i16(b, F_I16, -30000, use_defaults ? -30000 : 0, flags);
  etk_fb_add_u32(b, F_U32, 0xDEADBEEFu, use_defaults ? 0xDEADBEEFu : 0, flags);
  etk_fb_add_i32(b, F_I32, INT32_MIN, use_defaults ? INT32_MIN : 0, flags);
  etk_fb_add_u64(b, F_U64, UINT64_MAX, use_defaults ? UINT64_MAX : 0, flags);
  etk_fb_add_i64(b, F_I64, INT64_MIN, use_defaults ? INT64_MIN : 0, flags);
  etk_fb_add_f32(b, F_F32, 1.5f, use_defaults ? 1.5f : 0, flags);
  etk_fb_add_f64(b, F_F64, -2.25e300, use_defaults ? -2.25e300 : 0, flags);
}

static void check_all_scalars(etk_fb_table_t t) {
  CHECK_EQ_INT(etk_fb_get_u8(t, F_BOOL, 0), 1);
  CHECK_EQ_INT(etk_fb_get_u8(t, F_U8, 0), 0xFE);
  CHECK_EQ_INT(etk_fb_get_i8(t, F_I8, 0), -7);
  CHECK_EQ_INT(etk_fb_get_u16(t, F_U16, 0), 0xBEEF);
  CHECK_EQ_INT(etk_fb_get_i16(t, F_I16, 0), -30000);
  CHECK_EQ_U64(etk_fb_get_u32(t, F_U32, 0), 0xDEADBEEFu);
  CHECK_EQ_INT(etk_fb_get_i32(t, F_I32, 0), INT32_MIN);
  CHECK_EQ_U64(etk_fb_get_u64(t, F_U64, 0), UINT64_MAX);
  CHECK(etk_fb_get_i64(t, F_I64, 0) == INT64_MIN);
  CHECK(etk_fb_get_f32(t, F_F32, 0) == 1.5f);
  CHECK(etk_fb_get_f64(t, F_F64, 0) == -2.25e300);
}

ETK_TEST(every_scalar_type_round_trips) {
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_table_start(&b);
  add_all_scalars(&b, 0, 0);
  built_t built;
  REQUIRE(end_finish_verify(&b, "TEST", 0, &all_scalars, &built) == ETK_OK);
  CHECK_EQ_U64(built.len % 8, 0); /* start honours the 8-byte fields */
  CHECK(((uintptr_t)built.out & 7u) == 0);
  for (unsigned id = F_BOOL; id <= F_F64; id++)
    CHECK(etk_fb_has(built.root, id));
  check_all_scalars(built.root);
  /* each field is aligned to its size relative to the buffer start */
  for (unsigned id = F_BOOL; id <= F_F64; id++) {
    static const unsigned sizes[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
    CHECK((size_t)(etk_fb_get_struct(built.root, id) - built.out) % sizes[id] ==
          0);
  }
}

ETK_TEST(defaults_are_skipped_unless_forced) {
  etk_fb_builder_t b;
  built_t built;
  for (int forced = 0; forced <= 1; forced++) {
    etk_fb_builder_init(&b, mem, sizeof mem);
    etk_fb_table_start(&b);
    add_all_scalars(&b, forced ? ETK_FB_FORCE : 0, 1);
    REQUIRE(end_finish_verify(&b, NULL, 0, &all_scalars, &built) == ETK_OK);
    for (unsigned id = F_BOOL; id <= F_F64; id++)
      CHECK_EQ_INT(etk_fb_has(built.root, id), forced);
    if (forced) {
      check_all_scalars(built.root);
    } else {
      /* absent: the getters answer the default they are given */
      CHECK_EQ_INT(etk_fb_get_i32(built.root, F_I32, 42), 42);
      CHECK(etk_fb_get_f64(built.root, F_F64, 0.5) == 0.5);
      /* only [root][soffset] + vtable [4, 4] remain */
      CHECK_EQ_U64(built.len, 12);
    }
  }
}

ETK_TEST(float_default_comparison_follows_flatcc) {
  etk_fb_builder_t b;
  built_t built;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_table_start(&b);
  etk_fb_add_f32(&b, F_F32, -0.0f, 0.0f, 0); /* == default: skipped */
  etk_fb_add_f64(&b, F_F64, NAN, NAN, 0);    /* NaN != NaN: written */
  REQUIRE(end_finish_verify(&b, NULL, 0, &all_scalars, &built) == ETK_OK);
  CHECK(!etk_fb_has(built.root, F_F32));
  CHECK(etk_fb_has(built.root, F_F64));
  CHECK(isnan(etk_fb_get_f64(built.root, F_F64, 0)));
}

/* ---------------------------------------------------------- strings */

ETK_TEST(strings_empty_embedded_nul_and_long) {
  static const char with_nul[] = {'a', 0, 'b', 0, 'c'};
  char long_text[1000];
  for (size_t i = 0; i < sizeof long_text; i++)
    long_text[i] = (char)('a' + i % 26);
  const char *texts[] = {"", with_nul, long_text, "x", "abc", "abcd"};
  size_t lens[] = {0, sizeof with_nul, sizeof long_text, 1, 3, 4};
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_ref_t refs[6];
  for (int i = 0; i < 6; i++) {
    refs[i] = etk_fb_create_string(&b, texts[i], lens[i]);
    CHECK(refs[i] != 0);
    CHECK_EQ_U64(refs[i] % 4, 0); /* every string starts 4-aligned */
  }
  CHECK(etk_fb_create_string(&b, NULL, 0) != 0); /* NULL allowed with n 0 */
  etk_fb_ref_t vec = etk_fb_create_offset_vector(&b, refs, 6);
  etk_fb_table_start(&b);
  etk_fb_add_ref(&b, H_NAME, refs[1]);
  etk_fb_add_ref(&b, H_STRINGS, vec);
  built_t built;
  REQUIRE(end_finish_verify(&b, NULL, 1, &holder, &built) == ETK_OK);
  etk_fb_string_t name = etk_fb_get_string(built.root, H_NAME);
  CHECK_EQ_INT(name.len, 5);
  CHECK_EQ_MEM(name.data, with_nul, 5);
  CHECK_EQ_INT(name.data[5], 0);
  etk_fb_vector_t v = etk_fb_get_vector(built.root, H_STRINGS);
  REQUIRE(v.count == 6);
  for (uint32_t i = 0; i < 6; i++) {
    etk_fb_string_t s = etk_fb_vector_string(built.out, v, i);
    CHECK_EQ_U64(s.len, lens[i]);
    CHECK(lens[i] == 0 || memcmp(s.data, texts[i], lens[i]) == 0);
    CHECK_EQ_INT(s.data[s.len], 0);
    CHECK_EQ_U64((size_t)((const uint8_t *)s.data - built.out - 4) % 4, 0);
  }
  CHECK(etk_fb_get_vector(built.root, H_BYTES).data == NULL);
}

ETK_TEST(string_null_with_length_is_rejected) {
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  CHECK_EQ_INT(etk_fb_create_string(&b, NULL, 3), 0);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------- vectors */

ETK_TEST(vectors_of_each_alignment) {
  uint8_t bytes[3] = {1, 2, 3};
  uint16_t shorts[5] = {1, 2, 3, 4, 0xFFFF};
  uint32_t ints[3] = {7, 8, 0xFFFFFFFFu};
  int64_t longs[3] = {-1, INT64_MAX, 5};
  uint8_t structs[2][16];
  for (int i = 0; i < 32; i++) structs[i / 16][i % 16] = (uint8_t)i;
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  /* interleave a 1-byte string so each vector starts from an odd front */
  etk_fb_ref_t r[5];
  etk_fb_create_string(&b, "q", 1);
  r[0] = etk_fb_create_vector(&b, bytes, 3, 1, 1);
  etk_fb_create_string(&b, "qq", 2);
  r[1] = etk_fb_create_vector(&b, shorts, 5, 2, 2);
  etk_fb_create_string(&b, "q", 1);
  r[2] = etk_fb_create_vector(&b, ints, 3, 4, 4);
  etk_fb_create_string(&b, "qqq", 3);
  r[3] = etk_fb_create_vector(&b, longs, 3, 8, 8);
  etk_fb_create_string(&b, "q", 1);
  r[4] = etk_fb_create_vector(&b, structs, 2, 16, 16);
  etk_fb_table_start(&b);
  for (int i = 0; i < 5; i++) etk_fb_add_ref(&b, (unsigned)(H_BYTES + i), r[i]);
  built_t built;
  REQUIRE(end_finish_verify(&b, "VECS", 1, &holder, &built) == ETK_OK);
  CHECK_EQ_U64(built.len % 16, 0);
  static const unsigned align[] = {4, 4, 4, 8, 16};
  static const unsigned counts[] = {3, 5, 3, 3, 2};
  for (int i = 0; i < 5; i++) {
    etk_fb_vector_t v = etk_fb_get_vector(built.root, (unsigned)(H_BYTES + i));
    CHECK_EQ_INT(v.count, counts[i]);
    CHECK_EQ_U64(v.pos % align[i], 0);
    CHECK(v.data == built.out + v.pos);
  }
  CHECK_EQ_MEM(etk_fb_get_vector(built.root, H_BYTES).data, bytes, 3);
  CHECK_EQ_MEM(etk_fb_get_vector(built.root, H_SHORTS).data, shorts, 10);
  CHECK_EQ_MEM(etk_fb_get_vector(built.root, H_INTS).data, ints, 12);
  CHECK_EQ_MEM(etk_fb_get_vector(built.root, H_LONGS).data, longs, 24);
  CHECK_EQ_MEM(etk_fb_get_vector(built.root, H_STRUCTS16).data, structs, 32);
  CHECK(etk_fb_load_u64(etk_fb_get_vector(built.root, H_LONGS).data + 8) ==
        (uint64_t)INT64_MAX);
}

ETK_TEST(empty_vectors_are_present_not_absent) {
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_ref_t bytes = etk_fb_create_vector(&b, NULL, 0, 1, 1);
  etk_fb_ref_t kids = etk_fb_create_offset_vector(&b, NULL, 0);
  etk_fb_table_start(&b);
  etk_fb_add_ref(&b, H_BYTES, bytes);
  etk_fb_add_ref(&b, H_CHILDREN, kids);
  built_t built;
  REQUIRE(end_finish_verify(&b, NULL, 0, &holder, &built) == ETK_OK);
  etk_fb_vector_t v = etk_fb_get_vector(built.root, H_BYTES);
  CHECK(v.data != NULL);
  CHECK_EQ_INT(v.count, 0);
  CHECK(etk_fb_get_vector(built.root, H_CHILDREN).data != NULL);
  CHECK(etk_fb_get_vector(built.root, H_SHORTS).data == NULL);
}

static etk_fb_ref_t ref_from_array(void *ctx, size_t i) {
  return ((const etk_fb_ref_t *)ctx)[i];
}

ETK_TEST(offset_vectors_of_tables_and_callback) {
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_ref_t kids[4];
  for (int i = 0; i < 4; i++) {
    char text[2] = {(char)('A' + i), 0};
    etk_fb_ref_t name = etk_fb_create_string(&b, text, 1);
    uint32_t point[3] = {(uint32_t)i, (uint32_t)i * 10, (uint32_t)i * 100};
    etk_fb_table_start(&b);
    etk_fb_add_ref(&b, H_NAME, name);
    etk_fb_add_struct(&b, H_POINT, point, 12, 4);
    kids[i] = etk_fb_table_end(&b);
  }
  etk_fb_ref_t direct = etk_fb_create_offset_vector(&b, kids, 4);
  etk_fb_ref_t via_cb =
      etk_fb_create_offset_vector_cb(&b, 4, ref_from_array, kids);
  /* a grandchild level: the callback-built vector hangs off a child */
  etk_fb_table_start(&b);
  etk_fb_add_ref(&b, H_CHILDREN, via_cb);
  etk_fb_ref_t middle = etk_fb_table_end(&b);
  etk_fb_ref_t middle_vector = etk_fb_create_offset_vector(&b, &middle, 1);
  etk_fb_table_start(&b);
  etk_fb_add_ref(&b, H_CHILDREN, direct);
  etk_fb_add_ref(&b, H_STRINGS, 0); /* 0 = absent, skipped */
  built_t built;
  REQUIRE(end_finish_verify(&b, NULL, 1, &holder, &built) == ETK_OK);
  CHECK(!etk_fb_has(built.root, H_STRINGS));
  etk_fb_vector_t v = etk_fb_get_vector(built.root, H_CHILDREN);
  REQUIRE(v.count == 4);
  for (uint32_t i = 0; i < 4; i++) {
    etk_fb_table_t kid = etk_fb_vector_table(built.out, v, i);
    etk_fb_string_t s = etk_fb_get_string(kid, H_NAME);
    CHECK_EQ_INT(s.len, 1);
    CHECK_EQ_INT(s.data[0], 'A' + (int)i);
    const uint8_t *point = etk_fb_get_struct(kid, H_POINT);
    REQUIRE(point != NULL);
    CHECK_EQ_U64(etk_fb_load_u32(point + 8), i * 100);
  }
  (void)middle_vector; /* built but unreferenced: harmless garbage */
}

ETK_TEST(offset_vector_rejects_bad_refs) {
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_ref_t s = etk_fb_create_string(&b, "a", 1);
  etk_fb_ref_t refs[2] = {s, 0};
  size_t before = etk_fb_builder_size(&b);
  CHECK_EQ_INT(etk_fb_create_offset_vector(&b, refs, 2), 0);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_U64(etk_fb_builder_size(&b), before); /* nothing written */
  etk_fb_builder_reset(&b);
  s = etk_fb_create_string(&b, "a", 1);
  refs[1] = s + 1000; /* beyond the front: not an object of this build */
  CHECK_EQ_INT(etk_fb_create_offset_vector(&b, refs, 2), 0);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------- structs */

ETK_TEST(structs_inline_aligned) {
  uint8_t wide[16], point[12];
  for (int i = 0; i < 16; i++) wide[i] = (uint8_t)(0xA0 + i);
  for (int i = 0; i < 12; i++) point[i] = (uint8_t)i;
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_table_start(&b);
  etk_fb_add_struct(&b, H_POINT, point, 12, 4);
  etk_fb_add_struct(&b, H_WIDE, wide, 16, 8);
  built_t built;
  REQUIRE(end_finish_verify(&b, NULL, 0, &holder, &built) == ETK_OK);
  const uint8_t *p = etk_fb_get_struct(built.root, H_POINT),
                *w = etk_fb_get_struct(built.root, H_WIDE);
  REQUIRE(p && w);
  CHECK_EQ_MEM(p, point, 12);
  CHECK_EQ_MEM(w, wide, 16);
  CHECK_EQ_U64((size_t)(w - built.out) % 8, 0);
  CHECK_EQ_U64((size_t)(p - built.out) % 4, 0);
  CHECK(etk_fb_get_struct(built.root, H_NAME) == NULL);
  /* bad struct arguments */
  etk_fb_builder_reset(&b);
  etk_fb_table_start(&b);
  etk_fb_add_struct(&b, H_POINT, point, 12, 3);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------- vtables */

static etk_fb_ref_t small_table(etk_fb_builder_t *b, int32_t a, int with_u8) {
  etk_fb_table_start(b);
  etk_fb_add_i32(b, F_I32, a, 0, ETK_FB_FORCE);
  if (with_u8) etk_fb_add_u8(b, F_U8, 9, 0, 0);
  return etk_fb_table_end(b);
}

/* Finishes the root List{items: [item]} over the vector `items` and
 * verifies it (see end_finish_verify). */
static int finish_list(etk_fb_builder_t *b, etk_fb_ref_t items,
                       const etk_fb_table_desc_t *item, built_t *built) {
  const etk_fb_field_desc_t list_fields[] = {F_VEC_TABLE("items", 0, *item)};
  const etk_fb_table_desc_t list = {"List", 1, list_fields};
  etk_fb_table_start(b);
  etk_fb_add_ref(b, 0, items);
  return end_finish_verify(b, NULL, 0, &list, built);
}

/* Absolute offset of a table's vtable in the finished buffer. */
static uint32_t vtable_of(etk_fb_table_t t) {
  return t.pos - etk_fb_load_u32(t.buf + t.pos);
}

ETK_TEST(vtables_are_shared_when_identical) {
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_ref_t t1 = small_table(&b, 1, 0);
  size_t after_first = etk_fb_builder_size(&b);
  etk_fb_ref_t t2 = small_table(&b, 2, 0);
  size_t second_cost = etk_fb_builder_size(&b) - after_first;
  etk_fb_ref_t t3 = small_table(&b, 3, 1);
  CHECK_EQ_U64(second_cost, 8); /* soffset + i32, no new vtable */
  etk_fb_ref_t kids[3] = {t1, t2, t3};
  etk_fb_ref_t vec = etk_fb_create_offset_vector(&b, kids, 3);
  built_t built;
  REQUIRE(finish_list(&b, vec, &all_scalars, &built) == ETK_OK);
  etk_fb_vector_t v = etk_fb_get_vector(built.root, 0);
  REQUIRE(v.count == 3);
  etk_fb_table_t a = etk_fb_vector_table(built.out, v, 0),
                 c = etk_fb_vector_table(built.out, v, 1),
                 d = etk_fb_vector_table(built.out, v, 2);
  CHECK_EQ_U64(vtable_of(a), vtable_of(c));
  CHECK(vtable_of(a) != vtable_of(d));
  CHECK_EQ_INT(etk_fb_get_i32(c, F_I32, 0), 2);
  CHECK_EQ_INT(etk_fb_get_u8(d, F_U8, 0), 9);
}

ETK_TEST(vtable_cache_survives_many_shapes) {
  /* more distinct shapes than cache slots: the build still succeeds, and
   * a shape seen long ago simply gets a new vtable */
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_ref_t refs[ETK_FB_VTABLE_CACHE + 8];
  for (unsigned i = 0; i < ETK_FB_VTABLE_CACHE + 8; i++) {
    etk_fb_table_start(&b);
    etk_fb_add_u8(&b, i % ETK_FB_MAX_FIELDS, 1, 0, 0);
    etk_fb_add_u8(&b, (i / ETK_FB_MAX_FIELDS + 1 + i) % ETK_FB_MAX_FIELDS, 2, 0,
                  0);
    refs[i] = etk_fb_table_end(&b);
  }
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_OK);
  etk_fb_ref_t vec =
      etk_fb_create_offset_vector(&b, refs, ETK_FB_VTABLE_CACHE + 8);
  /* every id of the items is a u8 */
  static etk_fb_field_desc_t byte_fields[ETK_FB_MAX_FIELDS];
  for (unsigned id = 0; id < ETK_FB_MAX_FIELDS; id++) {
    byte_fields[id].name = "u8";
    byte_fields[id].id = (uint16_t)id;
    byte_fields[id].kind = ETK_FB_SCALAR;
    byte_fields[id].size = 1;
  }
  const etk_fb_table_desc_t bytes_table = {"Bytes", ETK_FB_MAX_FIELDS,
                                           byte_fields};
  built_t built;
  REQUIRE(finish_list(&b, vec, &bytes_table, &built) == ETK_OK);
  etk_fb_vector_t v = etk_fb_get_vector(built.root, 0);
  REQUIRE(v.count == ETK_FB_VTABLE_CACHE + 8);
  for (unsigned i = 0; i < v.count; i++) {
    etk_fb_table_t item = etk_fb_vector_table(built.out, v, i);
    CHECK_EQ_INT(etk_fb_get_u8(item, i % ETK_FB_MAX_FIELDS, 0), 1);
  }
}

/* ---------------------------------------------------------- misuse */

ETK_TEST(misuse_is_reported_and_sticky) {
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_add_i32(&b, 0, 5, 0, 0); /* no table open */
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_STATE);
  /* sticky: everything afterwards is a no-op returning 0 */
  CHECK_EQ_INT(etk_fb_create_string(&b, "a", 1), 0);
  CHECK_EQ_INT(etk_fb_table_start(&b), ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_fb_table_end(&b), 0);
  CHECK_EQ_U64(etk_fb_builder_size(&b), 0);

  etk_fb_builder_reset(&b);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_OK);
  etk_fb_table_start(&b);
  CHECK_EQ_INT(etk_fb_table_start(&b), ETK_E_INVALID_STATE); /* nested */

  etk_fb_builder_reset(&b);
  etk_fb_table_start(&b);
  CHECK_EQ_INT(etk_fb_create_string(&b, "a", 1), 0); /* inside a table */
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_STATE);

  etk_fb_builder_reset(&b);
  etk_fb_table_start(&b);
  etk_fb_add_i32(&b, 3, 1, 0, 0);
  etk_fb_add_i32(&b, 3, 2, 0, 0); /* twice */
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_ARGUMENT);

  etk_fb_builder_reset(&b);
  etk_fb_table_start(&b);
  etk_fb_add_i32(&b, ETK_FB_MAX_FIELDS, 1, 0, 0);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_LIMIT);

  /* a 255-byte struct fits the table scratch; 8 more bytes do not */
  uint8_t big[255] = {0};
  etk_fb_builder_reset(&b);
  etk_fb_table_start(&b);
  etk_fb_add_struct(&b, 0, big, 255, 1);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_OK);
  etk_fb_add_u64(&b, 1, 1, 0, 0);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_LIMIT);

  etk_fb_builder_reset(&b);
  etk_fb_table_start(&b);
  etk_fb_add_ref(&b, 0, 4096); /* never built */
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_ARGUMENT);

  etk_fb_builder_reset(&b);
  CHECK_EQ_INT(etk_fb_table_end(&b), 0); /* end without start */
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_INVALID_STATE);
}

ETK_TEST(finish_rules) {
  etk_fb_builder_t b;
  const uint8_t *out = (const uint8_t *)"x";
  size_t len = 7;
  etk_fb_builder_init(&b, mem, sizeof mem);
  CHECK_EQ_INT(etk_fb_finish(&b, 0, NULL, 0, &out, &len),
               ETK_E_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_EQ_U64(len, 0);
  etk_fb_builder_reset(&b);
  etk_fb_table_start(&b);
  etk_fb_ref_t root = etk_fb_table_end(&b);
  etk_fb_table_start(&b);
  CHECK_EQ_INT(etk_fb_finish(&b, root, NULL, 0, &out, &len),
               ETK_E_INVALID_STATE);
  etk_fb_builder_reset(&b);
  etk_fb_table_start(&b);
  root = etk_fb_table_end(&b);
  CHECK_EQ_INT(etk_fb_finish(&b, root, "ABCD", 1, &out, &len), ETK_OK);
  CHECK_EQ_U64(len, 20); /* [size][root][ABCD][soffset][vtable 4,4] */
  CHECK_EQ_U64(etk_fb_load_u32(out), 16);
  CHECK_EQ_MEM(out + 8, "ABCD", 4);
  CHECK_EQ_INT(etk_fb_finish(&b, root, "ABCD", 1, &out, &len),
               ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_fb_create_string(&b, "late", 4), 0);
  etk_fb_builder_reset(&b);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_OK);
}

ETK_TEST(header_variants_verify) {
  for (int prefixed = 0; prefixed <= 1; prefixed++) {
    for (int with_ident = 0; with_ident <= 1; with_ident++) {
      etk_fb_builder_t b;
      etk_fb_builder_init(&b, mem, sizeof mem);
      int64_t longs[1] = {77};
      etk_fb_ref_t v = etk_fb_create_vector(&b, longs, 1, 8, 8);
      etk_fb_table_start(&b);
      etk_fb_add_ref(&b, H_LONGS, v);
      built_t built;
      REQUIRE(end_finish_verify(&b, with_ident ? "HDR0" : NULL, prefixed,
                                &holder, &built) == ETK_OK);
      CHECK_EQ_U64(built.len % 8, 0);
      CHECK_EQ_U64(etk_fb_load_u64(etk_fb_get_vector(built.root, H_LONGS).data),
                   77);
      if (prefixed) CHECK_EQ_U64(etk_fb_load_u32(built.out), built.len - 4);
    }
  }
}

/* ---------------------------------------------------------- full buffer */

/* The debug-events dump (the richest golden) built at every capacity from 0
 * to its full size, inside a guarded arena. */
ETK_TEST(buffer_too_small_at_every_capacity) {
  static _Alignas(8) uint8_t reference_mem[4096];
  const uint8_t *ref_out;
  size_t ref_len;
  REQUIRE(golden_replay_into(golden_replay_debug_events, reference_mem,
                             sizeof reference_mem, &ref_out,
                             &ref_len) == ETK_OK);
  etk_fb_builder_t b;
  enum { GUARD = 64 };
  static _Alignas(8) uint8_t arena[GUARD + 4096 + GUARD];
  uint8_t *end = arena + GUARD + 4096; /* 8-aligned: no trim */
  int failures = 0, successes = 0;
  for (size_t cap = 0; cap <= ref_len + 8; cap++) {
    memset(arena, 0xCD, sizeof arena);
    uint8_t *start = end - cap;
    etk_fb_builder_init(&b, start, cap);
    const uint8_t *out = NULL;
    size_t len = 0;
    int rc = golden_replay_debug_events(&b, &out, &len);
    int status = etk_fb_builder_status(&b);
    /* nothing outside [start, end) was touched */
    for (uint8_t *p = arena; p < start; p++)
      if (*p != 0xCD) {
        CHECK(!"write before the buffer");
        break;
      }
    for (uint8_t *p = end; p < arena + sizeof arena; p++)
      if (*p != 0xCD) {
        CHECK(!"write after the buffer");
        break;
      }
    if (cap < ref_len) {
      failures++;
      CHECK_EQ_INT(rc, ETK_E_NO_MEMORY);
      CHECK_EQ_INT(status, ETK_E_NO_MEMORY);
      CHECK(out == NULL);
      /* what was built before the failure is intact: it equals the tail of
       * the successful build */
      size_t used = etk_fb_builder_size(&b);
      CHECK(used <= cap);
      CHECK(memcmp(end - used, reference_mem + sizeof reference_mem - used,
                   used) == 0);
    } else {
      successes++;
      CHECK_EQ_INT(rc, ETK_OK);
      CHECK_EQ_U64(len, ref_len);
      CHECK(out != NULL && memcmp(out, ref_out, ref_len) == 0);
    }
  }
  CHECK_EQ_INT(failures, (int)ref_len);
  CHECK_EQ_INT(successes, 9);
}

/* ---------------------------------------------------------- rollback */

ETK_TEST(rollback_discards_a_failed_record) {
  /* A recorder-style use: each record is [string, table]; when one does not
   * fit, roll back to before it, and finish with what fits. */
  static _Alignas(8) uint8_t small[256];
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, small, sizeof small);
  etk_fb_ref_t kept[16];
  int n = 0, dropped = 0;
  for (int i = 0; i < 16; i++) {
    etk_fb_builder_mark_t m = etk_fb_builder_mark(&b);
    etk_fb_ref_t name = etk_fb_create_string(&b, "record-name", 11);
    etk_fb_table_start(&b);
    etk_fb_add_ref(&b, H_NAME, name);
    etk_fb_ref_t t = etk_fb_table_end(&b);
    /* keep room for the vector and root: 16 * 4 + 64 */
    if (etk_fb_builder_status(&b) != ETK_OK ||
        etk_fb_builder_available(&b) < 4 * 16 + 64) {
      etk_fb_builder_rollback(&b, m);
      dropped++;
      continue;
    }
    kept[n++] = t;
  }
  CHECK(dropped > 0);
  CHECK(n > 0);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_OK);
  etk_fb_ref_t vec = etk_fb_create_offset_vector(&b, kept, (size_t)n);
  etk_fb_table_start(&b);
  etk_fb_add_ref(&b, H_CHILDREN, vec);
  built_t built;
  REQUIRE(end_finish_verify(&b, NULL, 1, &holder, &built) == ETK_OK);
  CHECK_EQ_INT(etk_fb_get_vector(built.root, H_CHILDREN).count, n);
}

ETK_TEST(rollback_clears_no_memory_and_forgets_vtables) {
  static _Alignas(8) uint8_t small[64];
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, small, sizeof small);
  etk_fb_builder_mark_t m = etk_fb_builder_mark(&b);
  etk_fb_table_start(&b);
  etk_fb_add_i32(&b, F_I32, 5, 0, 0);
  CHECK(etk_fb_table_end(&b) != 0); /* emits and caches a vtable */
  CHECK(etk_fb_create_string(&b, "this string is far too long for 64 bytes",
                             40) == 0);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_E_NO_MEMORY);
  etk_fb_builder_rollback(&b, m);
  CHECK_EQ_INT(etk_fb_builder_status(&b), ETK_OK);
  CHECK_EQ_U64(etk_fb_builder_size(&b), 0);
  /* the same shape again must not reuse the rolled-back vtable */
  etk_fb_table_start(&b);
  etk_fb_add_i32(&b, F_I32, 6, 0, 0);
  built_t built;
  REQUIRE(end_finish_verify(&b, NULL, 0, &all_scalars, &built) == ETK_OK);
  CHECK_EQ_INT(etk_fb_get_i32(built.root, F_I32, 0), 6);
}

/* ---------------------------------------------------------- accessors */

ETK_TEST(accessors_on_absent_tables_return_defaults) {
  etk_fb_table_t none = {NULL, 0};
  CHECK(!etk_fb_table_present(none));
  CHECK(!etk_fb_has(none, 0));
  CHECK_EQ_INT(etk_fb_get_i32(none, 1, -1), -1);
  CHECK_EQ_U64(etk_fb_get_u64(none, 1, 9), 9);
  CHECK(etk_fb_get_string(none, 0).data == NULL);
  CHECK(etk_fb_get_vector(none, 0).data == NULL);
  CHECK(etk_fb_get_struct(none, 0) == NULL);
  CHECK(!etk_fb_table_present(etk_fb_get_table(none, 3)));
  static const uint8_t le[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_EQ_U64(etk_fb_load_u16(le + 1), 0x0302);
  CHECK_EQ_U64(etk_fb_load_u32(le + 1), 0x05040302u);
  CHECK_EQ_U64(etk_fb_load_u64(le), 0x0807060504030201ull);
}

/* ---------------------------------------------------------- utf8 */

ETK_TEST(utf8_validation) {
  struct {
    const char *s;
    size_t n;
    int ok;
  } cases[] = {
      {"", 0, 1},
      {"plain ascii", 11, 1},
      {"a\0b", 3, 1},             /* NUL is valid UTF-8 */
      {"\xC3\xA9", 2, 1},         /* é */
      {"\xE2\x82\xAC", 3, 1},     /* € */
      {"\xF0\x9F\x98\x80", 4, 1}, /* U+1F600 */
      {"\xF4\x8F\xBF\xBF", 4, 1}, /* U+10FFFF */
      {"\xED\x9F\xBF", 3, 1},     /* U+D7FF */
      {"\xEE\x80\x80", 3, 1},     /* U+E000 */
      {"\xC0\x80", 2, 0},         /* overlong NUL */
      {"\xC1\xBF", 2, 0},         /* overlong */
      {"\xE0\x80\xAF", 3, 0},     /* overlong 3-byte */
      {"\xF0\x80\x80\xAF", 4, 0}, /* overlong 4-byte */
      {"\xED\xA0\x80", 3, 0},     /* surrogate D800 */
      {"\xED\xBF\xBF", 3, 0},     /* surrogate DFFF */
      {"\xF4\x90\x80\x80", 4, 0}, /* > U+10FFFF */
      {"\xF5\x80\x80\x80", 4, 0},
      {"\x80", 1, 0}, /* lone continuation */
      {"\xC3", 1, 0}, /* truncated */
      {"\xE2\x82", 2, 0},
      {"\xF0\x9F\x98", 3, 0},
      {"\xC3\x28", 2, 0}, /* bad continuation */
      {"\xE2\x28\xA1", 3, 0},
      {"\xFF", 1, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (etk_fb_utf8_valid(cases[i].s, cases[i].n) != cases[i].ok) {
      printf("# case %zu\n", i);
      etk_test_failed_ = 1;
    }
  }
  CHECK(etk_fb_utf8_valid(NULL, 0));
  CHECK(!etk_fb_utf8_valid(NULL, 1));
  /* the check stops at n: a valid prefix of an invalid buffer is valid */
  CHECK(etk_fb_utf8_valid("ab\xFF", 2));
}

ETK_TEST_MAIN()
