/*
 * test_vec.c - the growable array of src/common/vec.c: growth, the size
 * checks that refuse a capacity before the allocator is asked, and a
 * million pushes.
 */
#include <stdint.h>
#include <string.h>

#include "common/vec.h"
#include "etk_test.h"

ETK_TEST(next_cap_doubles_from_the_minimum) {
  CHECK_EQ_U64(etk_vec_next_cap(0, 1, 4), ETK_VEC_MIN_CAP);
  CHECK_EQ_U64(etk_vec_next_cap(0, 9, 4), 16);
  CHECK_EQ_U64(etk_vec_next_cap(8, 9, 4), 16);
  CHECK_EQ_U64(etk_vec_next_cap(16, 17, 4), 32);
  CHECK_EQ_U64(etk_vec_next_cap(16, 1000, 4), 1024);
  CHECK_EQ_U64(etk_vec_next_cap(3, 4, 4), ETK_VEC_MIN_CAP);
  CHECK_EQ_U64(etk_vec_next_cap(32, 20, 4), 32); /* already room */
  CHECK_EQ_U64(etk_vec_next_cap(0, 0, 4), 0);
}

ETK_TEST(next_cap_refuses_overflow) {
  CHECK_EQ_U64(etk_vec_next_cap(0, 1, 0), 0); /* no element size */
  CHECK_EQ_U64(etk_vec_next_cap(0, SIZE_MAX, 1), 0);
  CHECK_EQ_U64(etk_vec_next_cap(0, SIZE_MAX / 8 + 1, 8), 0);
  size_t max = ETK_VEC_MAX_BYTES / 16;
  CHECK_EQ_U64(etk_vec_next_cap(0, max + 1, 16), 0);
  /* the doubling stops at the bound instead of wrapping */
  CHECK_EQ_U64(etk_vec_next_cap(max / 2 + 1, max / 2 + 2, 16), max);
  CHECK_EQ_U64(etk_vec_next_cap(max - 1, max, 16), max);
  CHECK_EQ_U64(etk_vec_next_cap(SIZE_MAX / 2, SIZE_MAX / 2 + 1, 1), 0);
  /* a huge element size: one element fits, two do not */
  size_t huge = ETK_VEC_MAX_BYTES / 2 + 1;
  CHECK_EQ_U64(etk_vec_next_cap(0, 1, huge), 1);
  CHECK_EQ_U64(etk_vec_next_cap(1, 2, huge), 0);
}

ETK_TEST(reserve_failure_leaves_the_array_alone) {
  uint64_t *items = NULL;
  size_t cap = 0;
  REQUIRE(ETK_VEC_RESERVE(items, cap, 3));
  CHECK_EQ_U64(cap, ETK_VEC_MIN_CAP);
  items[0] = 7;
  items[2] = 9;
  uint64_t *before = items;
  CHECK(!ETK_VEC_RESERVE(items, cap, SIZE_MAX / 4));
  CHECK(items == before);
  CHECK_EQ_U64(cap, ETK_VEC_MIN_CAP);
  CHECK_EQ_U64(items[0], 7);
  CHECK_EQ_U64(items[2], 9);
  CHECK(ETK_VEC_RESERVE(items, cap, ETK_VEC_MIN_CAP)); /* no growth */
  CHECK(items == before);
  free(items);
}

ETK_TEST(push_a_million_keeps_every_value) {
  ETK_VEC(uint32_t) v = {0};
  size_t grows = 0, last_cap = 0;
  for (uint32_t i = 0; i < 1000000; i++) {
    REQUIRE(ETK_VEC_PUSH(v, i * 2654435761u));
    if (v.cap != last_cap) grows++, last_cap = v.cap;
  }
  CHECK_EQ_U64(v.count, 1000000);
  CHECK(v.cap >= v.count && v.cap < 2 * v.count);
  CHECK(grows <= 20); /* doubling: logarithmic number of moves */
  int ok = 1;
  for (uint32_t i = 0; i < 1000000; i++) ok &= v.items[i] == i * 2654435761u;
  CHECK(ok);
  ETK_VEC_FREE(v);
  CHECK(v.items == NULL && v.count == 0 && v.cap == 0);
  REQUIRE(ETK_VEC_PUSH(v, 5u)); /* usable again after FREE */
  CHECK_EQ_U64(v.items[0], 5);
  ETK_VEC_FREE(v);
}

ETK_TEST(vector_of_structs_and_pointers) {
  typedef struct pair {
    int a;
    const char *b;
  } pair_t;
  ETK_VEC(pair_t) pairs = {0};
  ETK_VEC(const char *) names = {0};
  static const char *const words[] = {"alpha", "beta", "gamma"};
  for (int i = 0; i < 300; i++) {
    pair_t p = {i, words[i % 3]};
    REQUIRE(ETK_VEC_PUSH(pairs, p));
    REQUIRE(ETK_VEC_PUSH(names, words[(i + 1) % 3]));
  }
  CHECK_EQ_INT(pairs.items[299].a, 299);
  CHECK_EQ_STR(pairs.items[299].b, "gamma");
  CHECK_EQ_STR(names.items[299], "alpha");
  ETK_VEC_FREE(pairs);
  ETK_VEC_FREE(names);
}

ETK_TEST_MAIN()
