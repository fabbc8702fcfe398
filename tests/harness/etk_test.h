/*
 * etk_test.h - the tiny test harness every etkit test executable uses.
 *
 * A test file defines cases with ETK_TEST(name) { ... } and ends with
 * ETK_TEST_MAIN().  Each case runs in order; a failed CHECK prints the file,
 * line and expression and marks the case failed (the case continues, so one
 * run shows every broken assertion).  Output is TAP ("ok 3 - name"), the exit
 * status is non-zero if any case failed, and ctest runs each executable.
 *
 * ETK_SKIP("reason") ends the current case as skipped (e.g. a conformance
 * file under ../shared/ is absent).  ctest sees exit code 77 when every case
 * of an executable skipped (SKIP_RETURN_CODE 77 is set by etkit_add_test).
 */
#ifndef ETK_TEST_H
#define ETK_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*etk_test_fn)(void);
typedef struct etk_test_case {
  const char *name;
  etk_test_fn fn;
} etk_test_case_t;

#define ETK_TEST_MAX 512
extern etk_test_case_t etk_test_cases_[ETK_TEST_MAX];
extern int etk_test_count_;
extern int etk_test_failed_;  /* current case failed */
extern int etk_test_skipped_; /* current case skipped */

#define ETK_TEST(case_name)                                               \
  static void etk_test_##case_name(void);                                 \
  __attribute__((constructor)) static void etk_test_register_##case_name( \
      void) {                                                             \
    if (etk_test_count_ < ETK_TEST_MAX) {                                 \
      etk_test_cases_[etk_test_count_].name = #case_name;                 \
      etk_test_cases_[etk_test_count_].fn = etk_test_##case_name;         \
      etk_test_count_++;                                                  \
    }                                                                     \
  }                                                                       \
  static void etk_test_##case_name(void)

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      printf("# %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      etk_test_failed_ = 1;                                             \
    }                                                                   \
  } while (0)

/* Stops the current case when the condition fails (later code depends on it).
 */
#define REQUIRE(cond)                                                     \
  do {                                                                    \
    if (!(cond)) {                                                        \
      printf("# %s:%d: REQUIRE(%s) failed\n", __FILE__, __LINE__, #cond); \
      etk_test_failed_ = 1;                                               \
      return;                                                             \
    }                                                                     \
  } while (0)

/* The equality checks print both values; they evaluate each side once. */
#define CHECK_EQ_INT(a, b)                                                    \
  etk_test_check_int_((long long)(a), (long long)(b), __FILE__, __LINE__, #a, \
                      #b)
#define CHECK_EQ_U64(a, b)                                              \
  etk_test_check_u64_((unsigned long long)(a), (unsigned long long)(b), \
                      __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_STR(a, b) \
  etk_test_check_str_((a), (b), __FILE__, __LINE__, #a, #b)

void etk_test_check_int_(long long a, long long b, const char *file, int line,
                         const char *text_a, const char *text_b);
void etk_test_check_u64_(unsigned long long a, unsigned long long b,
                         const char *file, int line, const char *text_a,
                         const char *text_b);
/* NULL on either side fails. */
void etk_test_check_str_(const char *a, const char *b, const char *file,
                         int line, const char *text_a, const char *text_b);

#define CHECK_EQ_MEM(a, b, n) CHECK(memcmp((a), (b), (n)) == 0)

/* Checks that `text` holds each of the strings that follow, printing each
 * one it lacks: CHECK_CONTAINS(json, "\"a\"", "\"b\""). */
#define CHECK_CONTAINS(text, ...) \
  CHECK(etk_test_contains_all((text), (const char *const[]){__VA_ARGS__, NULL}))

/* Whether `text` holds every string of the NULL-terminated `wanted`; prints
 * each one it lacks (all of them when `text` is NULL). */
int etk_test_contains_all(const char *text, const char *const *wanted);

#define ETK_SKIP(reason)            \
  do {                              \
    printf("# skip: %s\n", reason); \
    etk_test_skipped_ = 1;          \
    return;                         \
  } while (0)

/* Path of a file in ../shared/conformance, or NULL if it is absent.
 * ETKIT_CONFORMANCE_DIR is set by CMake; the environment variable
 * ETKIT_CONFORMANCE_DIR overrides it. */
const char *etk_test_conformance_path(const char *name);

/* Declares `var` as the path of the conformance file `name` (a string
 * literal), ending the current case as skipped when the file is absent. */
#define ETK_CONFORMANCE_PATH(var, name)              \
  const char *var = etk_test_conformance_path(name); \
  if (!var) ETK_SKIP(name " not available")

/* Reads a whole file into malloc'd memory; NULL if it cannot. */
unsigned char *etk_test_read_file(const char *path, size_t *len);

/* A fresh temporary path "<tmpdir>/etkit-test-<pid>-<n>-<suffix>". */
const char *etk_test_temp_path(const char *suffix);

int etk_test_main(int argc, char **argv);

#define ETK_TEST_MAIN()               \
  int main(int argc, char **argv) {   \
    return etk_test_main(argc, argv); \
  }

#endif
