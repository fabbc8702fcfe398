/*
 * test_sketch_ticks.c - etk_sketch_add_ticks (the integer path) against
 * etk_sketch_add((double)t) (the double path it must equal bit for bit):
 * every tick below 2^24, both sides of every key boundary of every
 * exponent below 2^53 at five relative errors, random values of every
 * size, the values the integer path hands to the double path (0, 2^53 and
 * up), and whole streams (min, max, sum, halvings, the bytes).  One key
 * that differs fails.  Also etk_sketch_init_like against etk_sketch_init.
 */
#include <stdio.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/sketch.h"

static const double errors[] = {0.01, 0.0001, 0.2, 0.05, 0.001};
#define N_ERRORS (sizeof errors / sizeof errors[0])

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static long mismatches;

/* One value into two empty sketches by each path: the same struct.  The
 * sketch's first 64 bytes hold count, sum, min, max, its window's base
 * (which is the value's key minus half the window), lo, hi and flags; the
 * counters are compared whole on every 4096th call. */
static void same_one(const etk_sketch_t *model, uint64_t t) {
  static etk_sketch_t a, b;
  static unsigned calls;
  etk_sketch_init_like(&a, model);
  etk_sketch_init_like(&b, model);
  etk_status_t ra = etk_sketch_add_ticks(&a, t);
  etk_status_t rb = etk_sketch_add(&b, (double)t);
  size_t n = (++calls & 4095u) == 0 ? sizeof a : 64u;
  if (ra != rb || memcmp(&a, &b, n) != 0) {
    if (mismatches++ < 5)
      fprintf(stderr, "  ticks %llu at %g: the integer path differs\n",
              (unsigned long long)t, etk_sketch_relative_error(model));
  }
}

/* The double path's key of t (the first count's key in its bytes). */
static int32_t key_of(const etk_sketch_t *model, uint64_t t) {
  etk_sketch_t s;
  uint8_t buf[ETK_SKETCH_MAX_BYTES];
  etk_sketch_init_like(&s, model);
  etk_sketch_add(&s, (double)t);
  etk_sketch_serialize(&s, buf, sizeof buf, NULL);
  return (int32_t)((uint32_t)buf[56] | (uint32_t)buf[57] << 8 |
                   (uint32_t)buf[58] << 16 | (uint32_t)buf[59] << 24);
}

ETK_TEST(every_tick_below_2_24) {
  etk_sketch_t m;
  CHECK_EQ_INT(etk_sketch_init(&m, 0.01), ETK_OK);
  mismatches = 0;
  for (uint64_t t = 0; t < (1u << 24); t++) same_one(&m, t);
  CHECK_EQ_INT(mismatches, 0);
}

/* For each exponent e < 53 and each key in [2^e, 2^(e+1)): the smallest
 * t of that key (binary search on the double path), then t-2 .. t+2. */
ETK_TEST(key_boundaries) {
  long boundaries = 0;
  mismatches = 0;
  for (size_t i = 0; i < N_ERRORS; i++) {
    etk_sketch_t m;
    CHECK_EQ_INT(etk_sketch_init(&m, errors[i]), ETK_OK);
    for (unsigned e = 0; e < 53; e++) {
      uint64_t lo = 1ull << e, hi = (2ull << e) - 1u;
      int32_t k0 = key_of(&m, lo), k1 = key_of(&m, hi);
      for (int32_t k = k0 + 1; k <= k1; k++) {
        uint64_t a = lo, b = hi; /* key(a) < k <= key(b) */
        while (b - a > 1) {
          uint64_t mid = a + (b - a) / 2;
          if (key_of(&m, mid) < k)
            a = mid;
          else
            b = mid;
        }
        for (uint64_t t = b - 2; t <= b + 2; t++) same_one(&m, t);
        boundaries++;
      }
      same_one(&m, lo);
      same_one(&m, hi);
    }
  }
  CHECK(boundaries > 100000); /* 0.0001 alone has about 180,000 */
  CHECK_EQ_INT(mismatches, 0);
}

ETK_TEST(random_values) {
  mismatches = 0;
  for (size_t i = 0; i < N_ERRORS; i++) {
    etk_sketch_t m;
    CHECK_EQ_INT(etk_sketch_init(&m, errors[i]), ETK_OK);
    for (int j = 0; j < 400000; j++) {
      uint64_t r = next();
      same_one(&m, r >> (next() % 64u));
    }
    /* handed to the double path: 0, 2^53 and up, the largest */
    static const uint64_t edge[] = {0,
                                    1,
                                    (1ull << 53) - 1u,
                                    1ull << 53,
                                    (1ull << 53) + 1u,
                                    (1ull << 54) - 1u,
                                    0xFFFFFFFFFFFFFFFFull};
    for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++)
      same_one(&m, edge[k]);
  }
  CHECK_EQ_INT(mismatches, 0);
}

/* Streams: the whole sketch and its bytes, after halvings, with a
 * negative value (the double path) among them. */
ETK_TEST(streams) {
  mismatches = 0;
  for (size_t i = 0; i < N_ERRORS; i++) {
    etk_sketch_t a, b;
    uint8_t ba[ETK_SKETCH_MAX_BYTES], bb[ETK_SKETCH_MAX_BYTES];
    size_t na = 0, nb = 0;
    CHECK_EQ_INT(etk_sketch_init(&a, errors[i]), ETK_OK);
    CHECK_EQ_INT(etk_sketch_init(&b, errors[i]), ETK_OK);
    for (int j = 0; j < 200000; j++) {
      uint64_t t =
          j % 3 == 0 ? 1000u + next() % 500u : next() >> (next() % 64u);
      CHECK_EQ_INT(etk_sketch_add_ticks(&a, t), ETK_OK);
      CHECK_EQ_INT(etk_sketch_add(&b, (double)t), ETK_OK);
      if (j == 1000) {
        CHECK_EQ_INT(etk_sketch_add(&a, -5.0), ETK_OK);
        CHECK_EQ_INT(etk_sketch_add(&b, -5.0), ETK_OK);
      }
    }
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK_EQ_INT(etk_sketch_serialize(&a, ba, sizeof ba, &na), ETK_OK);
    CHECK_EQ_INT(etk_sketch_serialize(&b, bb, sizeof bb, &nb), ETK_OK);
    CHECK(na == nb && memcmp(ba, bb, na) == 0);
    CHECK(etk_sketch_min(&a) == -5.0);
  }
  /* small ticks (an exact integer sum), then a fraction and a negative
   * value in it (the double sum), then ticks again; and past 2^53 */
  static const double odd[] = {0.5, -3.25, 1e300, -1e300};
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
    etk_sketch_t a, b;
    etk_sketch_init(&a, 0);
    etk_sketch_init(&b, 0);
    for (int j = 0; j < 3000; j++) {
      uint64_t t = j < 2000 ? 1u + next() % 100000u : next() >> 11;
      if (j == 1000) {
        etk_sketch_add(&a, odd[i]);
        etk_sketch_add(&b, odd[i]);
      }
      etk_sketch_add_ticks(&a, t);
      etk_sketch_add(&b, (double)t);
      if (memcmp(&a, &b, 64) != 0) mismatches++;
    }
    CHECK(memcmp(&a, &b, sizeof a) == 0);
  }
  CHECK_EQ_INT(mismatches, 0);
  /* a max that is negative, then a tick above it; -0.0 as min */
  etk_sketch_t a, b;
  etk_sketch_init(&a, 0);
  etk_sketch_init(&b, 0);
  etk_sketch_add(&a, -0.0);
  etk_sketch_add(&b, -0.0);
  etk_sketch_add(&a, -7.0);
  etk_sketch_add(&b, -7.0);
  CHECK_EQ_INT(etk_sketch_add_ticks(&a, 3), ETK_OK);
  etk_sketch_add(&b, 3.0);
  CHECK(memcmp(&a, &b, sizeof a) == 0);
  CHECK(etk_sketch_max(&a) == 3.0 && etk_sketch_min(&a) == -7.0);
  CHECK_EQ_INT(etk_sketch_add_ticks(NULL, 3), ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(init_like) {
  for (size_t i = 0; i < N_ERRORS; i++) {
    etk_sketch_t a, b;
    memset(&a, 0x5a, sizeof a);
    CHECK_EQ_INT(etk_sketch_init(&b, errors[i]), ETK_OK);
    CHECK_EQ_INT(etk_sketch_init_like(&a, &b), ETK_OK);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    etk_sketch_add_ticks(&b, 12345);
    CHECK_EQ_INT(etk_sketch_init_like(&b, &b), ETK_OK); /* empties it */
    CHECK(memcmp(&a, &b, sizeof a) == 0);
  }
  CHECK_EQ_INT(etk_sketch_init_like(NULL, NULL), ETK_E_INVALID_ARGUMENT);
}

/* The latency table's new keys copy slot 0's constants: each new sketch
 * equals a freshly initialised one, also after a clear. */
ETK_TEST(latency_table_keys_start_empty) {
  static uint8_t mem[16384] __attribute__((aligned(8)));
  etk_latency_table_t t;
  etk_sketch_t fresh;
  CHECK_EQ_INT(etk_sketch_init(&fresh, 0.003), ETK_OK);
  CHECK_EQ_INT(etk_latency_table_init(&t, mem, sizeof mem, 4, 0.003), ETK_OK);
  for (int round = 0; round < 2; round++) {
    for (uint32_t k = 0; k < 4; k++) {
      etk_latency_entry_t *e = etk_latency_table_key(&t, 1, 2, k, -1, 1);
      REQUIRE(e != NULL);
      CHECK(memcmp(&e->sketch, &fresh, sizeof fresh) == 0);
      CHECK_EQ_INT(etk_sketch_add_ticks(&e->sketch, 1000u + k), ETK_OK);
    }
    etk_latency_table_clear(&t);
  }
}

ETK_TEST_MAIN()
