/*
 * test_hash.c - the hash table of src/common/hash.c: dense ids in
 * insertion order, stored keys, empty and binary keys, pointer keys, the
 * id limit, and a stress run checked against a plain array.
 */
#include <stdio.h>
#include <string.h>

#include "common/hash.h"
#include "etk_test.h"
#include "etkit/status.h"

ETK_TEST(ids_are_dense_in_insertion_order) {
  etk_hash_t h;
  etk_hash_init(&h);
  const char *words[] = {"conv", "relu", "add", "conv", "", "relu"};
  const uint32_t want[] = {0, 1, 2, 0, 3, 1};
  const bool fresh[] = {true, true, true, false, true, false};
  for (size_t i = 0; i < 6; i++) {
    uint32_t id = 99;
    bool is_new = !fresh[i];
    REQUIRE(etk_hash_put(&h, words[i], strlen(words[i]), &id, &is_new) ==
            ETK_OK);
    CHECK_EQ_U64(id, want[i]);
    CHECK(is_new == fresh[i]);
  }
  CHECK_EQ_U64(etk_hash_count(&h), 4);
  size_t len = 9;
  CHECK_EQ_STR(etk_hash_key(&h, 2, &len), "add");
  CHECK_EQ_U64(len, 3);
  CHECK_EQ_STR(etk_hash_key(&h, 3, &len), "");
  CHECK_EQ_U64(len, 0);
  CHECK_EQ_U64(etk_hash_find(&h, "relu", 4), 1);
  CHECK_EQ_U64(etk_hash_find(&h, "rel", 3), ETK_HASH_NONE);
  CHECK_EQ_U64(etk_hash_find(&h, "relu2", 5), ETK_HASH_NONE);
  etk_hash_free(&h);
  CHECK_EQ_U64(etk_hash_count(&h), 0);
  CHECK_EQ_U64(etk_hash_find(&h, "relu", 4), ETK_HASH_NONE);
}

ETK_TEST(binary_keys_and_prefixes_are_distinct) {
  etk_hash_t h = {0};
  const char a[] = {'x', 0, 'y'};
  const char b[] = {'x', 0, 'z'};
  uint32_t ia, ib, ic;
  REQUIRE(etk_hash_put(&h, a, 3, &ia, NULL) == ETK_OK);
  REQUIRE(etk_hash_put(&h, b, 3, &ib, NULL) == ETK_OK);
  REQUIRE(etk_hash_put(&h, a, 1, &ic, NULL) == ETK_OK); /* "x" */
  CHECK(ia != ib && ib != ic && ia != ic);
  size_t len;
  const char *k = etk_hash_key(&h, ia, &len);
  CHECK_EQ_U64(len, 3);
  CHECK_EQ_MEM(k, a, 3);
  CHECK_EQ_INT(k[3], 0); /* a NUL follows every copy */
  CHECK_EQ_U64(etk_hash_find(&h, b, 3), ib);
  etk_hash_free(&h);
}

ETK_TEST(pointer_identity_keys) {
  etk_hash_t h = {0};
  int objects[100];
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 100; i++) {
      const int *p = &objects[i];
      uint32_t id;
      bool is_new;
      REQUIRE(etk_hash_put(&h, &p, sizeof p, &id, &is_new) == ETK_OK);
      CHECK_EQ_U64(id, (uint32_t)i);
      CHECK(is_new == (round == 0));
    }
  CHECK_EQ_U64(etk_hash_count(&h), 100);
  etk_hash_free(&h);
}

ETK_TEST(the_id_limit_is_a_clear_error) {
  /* White box: a table that claims to hold the most ids refuses one more
   * before touching anything. */
  etk_hash_t h = {0};
  h.count = ETK_HASH_MAX_IDS;
  uint32_t id = 7;
  CHECK_EQ_INT(etk_hash_put(&h, "k", 1, &id, NULL), ETK_E_LIMIT);
  CHECK_EQ_U64(id, 7);
  CHECK(h.slots == NULL && h.entries == NULL && h.bytes == NULL);
}

ETK_TEST(stress_two_hundred_thousand_keys) {
  enum { N = 200000 };
  etk_hash_t h = {0};
  char key[32];
  for (uint32_t i = 0; i < N; i++) {
    int n = snprintf(key, sizeof key, "node_%u", i * 7919u);
    uint32_t id;
    bool is_new;
    REQUIRE(etk_hash_put(&h, key, (size_t)n, &id, &is_new) == ETK_OK);
    REQUIRE(is_new && id == i);
  }
  CHECK_EQ_U64(etk_hash_count(&h), N);
  CHECK(h.slot_cap >= 2 * (size_t)N); /* load stays at most one half */
  int ok = 1;
  for (uint32_t i = 0; i < N; i++) {
    int n = snprintf(key, sizeof key, "node_%u", i * 7919u);
    ok &= etk_hash_find(&h, key, (size_t)n) == i;
    size_t len;
    ok &= strcmp(etk_hash_key(&h, i, &len), key) == 0 && len == (size_t)n;
    n = snprintf(key, sizeof key, "edge_%u", i);
    ok &= etk_hash_find(&h, key, (size_t)n) == ETK_HASH_NONE;
  }
  CHECK(ok);
  etk_hash_free(&h);
}

ETK_TEST(hash_spreads_similar_keys) {
  /* Keys that differ in one character land in different low bits. */
  unsigned seen = 0;
  for (char c = 'a'; c <= 'p'; c++) {
    char k[] = {'o', 'p', '_', c};
    seen |= 1u << (etk_hash_bytes(k, 4) & 15);
  }
  CHECK(__builtin_popcount(seen) >= 8);
  CHECK(etk_hash_bytes("ab", 2) != etk_hash_bytes("ab\0", 3));
}

ETK_TEST_MAIN()
