/*
 * test_sketch.c - the latency sketch (etkit/sketch.h): quantiles within
 * the reported bound against the sorted values on several distributions,
 * exact count/min/max/sum, merging equal to adding everything (in either
 * order), the halving that keeps wide ranges in the fixed window, the
 * bytes' round trip and its refusals of damaged input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/sketch.h"

static uint64_t rng_state = 88172645463325252ull;
static double uniform(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void) {
  return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Largest relative error over the quantiles checked; -1 on a call error. */
static double worst_error(const etk_sketch_t *s, double *v, size_t n) {
  static const double qs[] = {0.001, 0.01, 0.1,   0.25,   0.5,  0.75,
                              0.9,   0.99, 0.999, 0.9999, 0.37, 0.63};
  qsort(v, n, sizeof *v, cmp_double);
  double worst = 0.0;
  for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
    double est;
    if (etk_sketch_quantile(s, qs[i], &est) != ETK_OK) return -1.0;
    double truth = v[(size_t)(qs[i] * (double)(n - 1))];
    double err = fabs(est - truth) / truth;
    if (err > worst) worst = err;
  }
  return worst;
}

#define N 200000
static double values[N];

static void fill_and_check(double (*gen)(void), double a, unsigned want_shift) {
  etk_sketch_t s;
  CHECK_EQ_INT(etk_sketch_init(&s, a), ETK_OK);
  double sum = 0.0, mn = INFINITY, mx = -INFINITY;
  for (size_t i = 0; i < N; i++) {
    values[i] = gen();
    sum += values[i];
    if (values[i] < mn) mn = values[i];
    if (values[i] > mx) mx = values[i];
    CHECK_EQ_INT(etk_sketch_add(&s, values[i]), ETK_OK);
  }
  CHECK(etk_sketch_count(&s) == N);
  CHECK(etk_sketch_min(&s) == mn);
  CHECK(etk_sketch_max(&s) == mx);
  CHECK(etk_sketch_sum(&s) == sum);
  CHECK(s.shift == want_shift);
  double bound = etk_sketch_error_bound(&s);
  double err = worst_error(&s, values, N);
  CHECK(err >= 0.0);
  CHECK(err <= bound * (1.0 + 1e-9));
  double q;
  CHECK_EQ_INT(etk_sketch_quantile(&s, 0.0, &q), ETK_OK);
  CHECK(q == mn);
  CHECK_EQ_INT(etk_sketch_quantile(&s, 1.0, &q), ETK_OK);
  CHECK(q == mx);
}

/* Nanosecond-like latencies. */
static double lognormal(void) {
  return 2e5 * exp(0.3 * normal());
}
static double two_decades(void) {
  return 1e4 * pow(100.0, uniform());
}
static double bimodal(void) {
  return uniform() < 0.7 ? 5e4 * exp(0.05 * normal())
                         : 4e5 * exp(0.05 * normal());
}
static double ties(void) {
  return (double)(1000 * (1 + (int)(uniform() * 5)));
}
static double eight_decades(void) {
  return 1e3 * pow(1e8, uniform());
}
static double pareto(void) {
  return 1e4 / pow(uniform(), 1.0 / 1.2);
}

ETK_TEST(struct_is_one_kib) {
  CHECK(sizeof(etk_sketch_t) == 1024);
}

ETK_TEST(lognormal_within_default_bound) {
  fill_and_check(lognormal, 0.0, 0);
}
ETK_TEST(two_decades_keep_full_resolution) {
  fill_and_check(two_decades, 0.01, 0);
}
ETK_TEST(bimodal_within_bound) {
  fill_and_check(bimodal, 0.01, 0);
}
ETK_TEST(ties_within_bound) {
  fill_and_check(ties, 0.01, 0);
}
ETK_TEST(finer_error_halves_and_reports_its_bound) {
  fill_and_check(two_decades, 0.002, 3);
}
ETK_TEST(eight_decades_halve_twice) {
  fill_and_check(eight_decades, 0.01, 2);
}

ETK_TEST(heavy_tail_bound_holds_at_every_quantile) {
  etk_sketch_t s;
  etk_sketch_init(&s, 0.01);
  for (size_t i = 0; i < N; i++) {
    values[i] = pareto();
    etk_sketch_add(&s, values[i]);
  }
  CHECK(s.shift >= 1);
  double err = worst_error(&s, values, N);
  CHECK(err >= 0.0 && err <= etk_sketch_error_bound(&s) * (1.0 + 1e-9));
}

ETK_TEST(bound_after_halvings) {
  etk_sketch_t s;
  etk_sketch_init(&s, 0.01);
  CHECK(etk_sketch_error_bound(&s) == 0.01);
  s.shift = 2;
  double a1 = 0.02 / (1 + 1e-4);
  double a2 = 2 * a1 / (1 + a1 * a1);
  CHECK(fabs(etk_sketch_error_bound(&s) - a2) < 1e-15);
}

ETK_TEST(merge_is_order_independent_and_checks_parameters) {
  etk_sketch_t a, b;
  etk_sketch_init(&a, 0.01);
  etk_sketch_init(&b, 0.01);
  /* integers, so the sums are exact whatever the order; a narrow set in a
   * and a wide one in b so that the merge must halve a */
  for (int i = 0; i < 5000; i++) {
    etk_sketch_add(&a, floor(1e4 * pow(3.0, uniform())));
    etk_sketch_add(&b, floor(1e3 * pow(1e6, uniform())));
  }
  CHECK(a.shift == 0 && b.shift == 2);
  etk_sketch_t ab = a, ba = b;
  CHECK_EQ_INT(etk_sketch_merge(&ab, &b), ETK_OK);
  CHECK_EQ_INT(etk_sketch_merge(&ba, &a), ETK_OK);
  CHECK(ab.count == 10000 && ba.count == 10000);
  uint8_t x[ETK_SKETCH_MAX_BYTES], y[ETK_SKETCH_MAX_BYTES];
  size_t nx, ny;
  CHECK_EQ_INT(etk_sketch_serialize(&ab, x, sizeof x, &nx), ETK_OK);
  CHECK_EQ_INT(etk_sketch_serialize(&ba, y, sizeof y, &ny), ETK_OK);
  CHECK(nx == ny && memcmp(x, y, nx) == 0);
  etk_sketch_t other;
  etk_sketch_init(&other, 0.02);
  CHECK_EQ_INT(etk_sketch_merge(&ab, &other), ETK_E_MISMATCH);
  CHECK(ab.count == 10000);
}

ETK_TEST(merge_of_halves_equals_one_stream) {
  etk_sketch_t one, lo, hi;
  etk_sketch_init(&one, 0.01);
  etk_sketch_init(&lo, 0.01);
  etk_sketch_init(&hi, 0.01);
  for (int i = 0; i < 20000; i++) {
    double x = floor(1e3 * pow(1e7, uniform()));
    etk_sketch_add(&one, x);
    etk_sketch_add(i % 3 ? &lo : &hi, x);
  }
  CHECK_EQ_INT(etk_sketch_merge(&lo, &hi), ETK_OK);
  uint8_t x[ETK_SKETCH_MAX_BYTES], y[ETK_SKETCH_MAX_BYTES];
  size_t nx, ny;
  etk_sketch_serialize(&one, x, sizeof x, &nx);
  etk_sketch_serialize(&lo, y, sizeof y, &ny);
  CHECK(nx == ny && memcmp(x, y, nx) == 0);
  /* self-merge doubles */
  etk_sketch_t d = one;
  CHECK_EQ_INT(etk_sketch_merge(&d, &d), ETK_OK);
  CHECK(d.count == 2 * one.count && d.sum == 2 * one.sum);
  double q1, q2;
  etk_sketch_quantile(&one, 0.5, &q1);
  etk_sketch_quantile(&d, 0.5, &q2);
  CHECK(q1 == q2);
}

ETK_TEST(zero_and_invalid_values) {
  etk_sketch_t s;
  etk_sketch_init(&s, 0.01);
  CHECK_EQ_INT(etk_sketch_add(&s, NAN), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_sketch_add(&s, INFINITY), ETK_E_INVALID_ARGUMENT);
  CHECK(s.count == 0);
  double q;
  CHECK_EQ_INT(etk_sketch_quantile(&s, 0.5, &q), ETK_E_NOT_FOUND);
  CHECK_EQ_INT(etk_sketch_add(&s, 0.0), ETK_OK);
  CHECK_EQ_INT(etk_sketch_add(&s, 0.0), ETK_OK);
  CHECK_EQ_INT(etk_sketch_add(&s, 100.0), ETK_OK);
  CHECK_EQ_INT(etk_sketch_add(&s, 100.0), ETK_OK);
  CHECK_EQ_INT(etk_sketch_quantile(&s, 0.5, &q), ETK_OK);
  CHECK(q == 0.0); /* rank floor(0.5 * 3) = 1: the second 0 */
  CHECK_EQ_INT(etk_sketch_quantile(&s, 0.9, &q), ETK_OK);
  CHECK(fabs(q - 100.0) <= 1.0);
  CHECK_EQ_INT(etk_sketch_quantile(&s, 1.5, &q), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_sketch_init(&s, 0.5), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_sketch_init(NULL, 0.01), ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(bytes_round_trip_and_refusals) {
  etk_sketch_t s, t;
  etk_sketch_init(&s, 0.01);
  for (int i = 0; i < 3000; i++) etk_sketch_add(&s, lognormal());
  etk_sketch_add(&s, 0.0);
  uint8_t buf[ETK_SKETCH_MAX_BYTES], again[ETK_SKETCH_MAX_BYTES];
  size_t n, m, used;
  CHECK_EQ_INT(etk_sketch_serialize(&s, buf, sizeof buf, &n), ETK_OK);
  CHECK(n == etk_sketch_serialized_size(&s));
  CHECK(memcmp(buf, "ETKS", 4) == 0 && buf[4] == 1);
  CHECK_EQ_INT(etk_sketch_serialize(&s, buf, n - 1, NULL), ETK_E_FULL);
  CHECK_EQ_INT(etk_sketch_deserialize(&t, buf, n, &used), ETK_OK);
  CHECK(used == n);
  CHECK(t.count == s.count && t.sum == s.sum && t.min == s.min);
  CHECK_EQ_INT(etk_sketch_serialize(&t, again, sizeof again, &m), ETK_OK);
  CHECK(m == n && memcmp(buf, again, n) == 0);
  for (double q = 0.0; q <= 1.0; q += 0.01) {
    double a, b;
    etk_sketch_quantile(&s, q, &a);
    etk_sketch_quantile(&t, q, &b);
    CHECK(a == b);
  }
  /* each truncation is refused */
  for (size_t cut = 0; cut < n; cut++)
    CHECK(etk_sketch_deserialize(&t, buf, cut, NULL) != ETK_OK);
  uint8_t bad[ETK_SKETCH_MAX_BYTES];
  memcpy(bad, buf, n);
  bad[0] = 'X';
  CHECK_EQ_INT(etk_sketch_deserialize(&t, bad, n, NULL), ETK_E_BAD_IDENTIFIER);
  memcpy(bad, buf, n);
  bad[16] ^= 1; /* count no longer the buckets' total */
  CHECK_EQ_INT(etk_sketch_deserialize(&t, bad, n, NULL), ETK_E_FORMAT);
  memcpy(bad, buf, n);
  bad[6] = 0xff; /* too many counters */
  CHECK_EQ_INT(etk_sketch_deserialize(&t, bad, n, NULL), ETK_E_FORMAT);
  CHECK(t.count == 0);
}

ETK_TEST(latency_table_keys_and_capacity) {
  static uint64_t mem[(4 * sizeof(etk_latency_entry_t) + 64) / 8];
  etk_latency_table_t t;
  size_t need = etk_latency_table_size(4);
  CHECK(need > 0 && need <= sizeof mem);
  CHECK_EQ_INT(etk_latency_table_init(&t, mem, need - 1, 4, 0.0), ETK_E_FULL);
  CHECK_EQ_INT(etk_latency_table_init(&t, mem, need, 4, 0.0), ETK_OK);
  /* instruction ids 0..3 of one operator name, and a delegate event */
  for (int run = 0; run < 100; run++)
    for (uint32_t i = 0; i < 3; i++)
      CHECK_EQ_INT(
          etk_latency_table_add(&t, 1, 2, i, -1, 1000.0 * (i + 1) + run),
          ETK_OK);
  CHECK_EQ_INT(etk_latency_table_add(&t, 1, 3, 0, 7, 50.0), ETK_OK);
  CHECK(t.entries == 4);
  CHECK_EQ_INT(etk_latency_table_add(&t, 1, 3, 0, 8, 50.0), ETK_E_FULL);
  CHECK(t.refused == 1);
  const etk_sketch_t *s = etk_latency_table_find(&t, 1, 2, 1, -1);
  CHECK(s != NULL && etk_sketch_count(s) == 100);
  CHECK(etk_sketch_min(s) == 2000.0 && etk_sketch_max(s) == 2099.0);
  CHECK(etk_latency_table_find(&t, 1, 2, 9, -1) == NULL);
  CHECK(etk_latency_table_find(&t, 1, 3, 0, 7) != NULL);
  CHECK(etk_latency_table_find(&t, 1, 3, 0, 8) == NULL);
  /* entries are listed in the order their keys first came */
  CHECK(t.slots[0].instruction == 0 && t.slots[2].instruction == 2);
  CHECK(t.slots[3].delegate_id == 7);
  etk_latency_table_clear(&t);
  CHECK(t.entries == 0 && etk_latency_table_find(&t, 1, 2, 1, -1) == NULL);
  CHECK_EQ_INT(etk_latency_table_add(&t, 1, 3, 0, 8, 50.0), ETK_OK);
  CHECK_EQ_INT(etk_latency_table_init(&t, mem, sizeof mem, 0, 0.0),
               ETK_E_INVALID_ARGUMENT);
}

ETK_TEST_MAIN()
