/*
 * etk_test.c - runner for etk_test.h: runs the registered cases in order
 * (or only those named on the command line) and prints TAP.
 *
 * PARTS.  A case that asks for a conformance file (etk_test_conformance_path)
 * is a conformance case.  With ETK_TEST_PART=regular only the other cases
 * count; with ETK_TEST_PART=conformance only the conformance cases count
 * (every case still runs, since what a case asks for is known only once it
 * ran), and one that missed a file counts as skipped.  etkit_add_test registers
 * an executable whose sources ask for conformance files twice, one part each,
 * so that ctest reports the conformance part SKIPPED when the files are absent
 * instead of hiding the skipped cases inside a passing test.  Without
 * ETK_TEST_PART every case counts.
 */
#include "etk_test.h"

#include <unistd.h>

etk_test_case_t etk_test_cases_[ETK_TEST_MAX];
int etk_test_count_;
int etk_test_failed_;
int etk_test_skipped_;
static int conformance_used; /* the current case asked for a conformance file */
static int conformance_missing; /* ... and one of them was absent */

const char *etk_test_conformance_path(const char *name) {
  static char path[4096];
  conformance_used = 1;
  const char *dir = getenv("ETKIT_CONFORMANCE_DIR");
#ifdef ETKIT_CONFORMANCE_DIR
  if (!dir) dir = ETKIT_CONFORMANCE_DIR;
#endif
  if (!dir) {
    conformance_missing = 1;
    return NULL;
  }
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (access(path, R_OK) == 0) return path;
  conformance_missing = 1;
  return NULL;
}

void etk_test_check_int_(long long a, long long b, const char *file, int line,
                         const char *text_a, const char *text_b) {
  if (a == b) return;
  printf("# %s:%d: %s == %s failed: %lld != %lld\n", file, line, text_a, text_b,
         a, b);
  etk_test_failed_ = 1;
}

void etk_test_check_u64_(unsigned long long a, unsigned long long b,
                         const char *file, int line, const char *text_a,
                         const char *text_b) {
  if (a == b) return;
  printf("# %s:%d: %s == %s failed: %llu != %llu\n", file, line, text_a, text_b,
         a, b);
  etk_test_failed_ = 1;
}

void etk_test_check_str_(const char *a, const char *b, const char *file,
                         int line, const char *text_a, const char *text_b) {
  if (a && b && strcmp(a, b) == 0) return;
  printf("# %s:%d: %s == %s failed: \"%s\" != \"%s\"\n", file, line, text_a,
         text_b, a ? a : "(null)", b ? b : "(null)");
  etk_test_failed_ = 1;
}

int etk_test_contains_all(const char *text, const char *const *wanted) {
  int all = 1;
  for (; *wanted; wanted++) {
    if (text && strstr(text, *wanted)) continue;
    printf("# missing from the output: %s\n", *wanted);
    all = 0;
  }
  return all;
}

unsigned char *etk_test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return NULL;
  }
  long n = ftell(f);
  if (n < 0) {
    fclose(f);
    return NULL;
  }
  rewind(f);
  unsigned char *p = malloc((size_t)n + 1);
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  if (p) {
    p[n] = 0;
    *len = (size_t)n;
  }
  return p;
}

const char *etk_test_temp_path(const char *suffix) {
  static char path[4096];
  static int counter;
  const char *dir = getenv("TMPDIR");
  if (!dir) dir = "/tmp";
  snprintf(path, sizeof path, "%s/etkit-test-%d-%d-%s", dir, (int)getpid(),
           counter++, suffix);
  return path;
}

static int selected(const char *name, int argc, char **argv) {
  if (argc < 2) return 1;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], name) == 0) return 1;
  return 0;
}

/* Which cases count: 0 all, 1 regular only, 2 conformance only. */
static int part_from_env(void) {
  const char *part = getenv("ETK_TEST_PART");
  if (!part) return 0;
  if (strcmp(part, "regular") == 0) return 1;
  if (strcmp(part, "conformance") == 0) return 2;
  return 0;
}

int etk_test_main(int argc, char **argv) {
  int run = 0, failed = 0, skipped = 0;
  int part = part_from_env();
  printf("1..%d\n", etk_test_count_);
  for (int i = 0; i < etk_test_count_; i++) {
    if (!selected(etk_test_cases_[i].name, argc, argv)) continue;
    etk_test_failed_ = 0;
    etk_test_skipped_ = 0;
    conformance_used = 0;
    conformance_missing = 0;
    etk_test_cases_[i].fn();
    /* In the conformance part a case that missed a file skipped, even if it
     * ran checks that do not need it (unless one of them failed). */
    if (part == 2 && conformance_missing) etk_test_skipped_ = 1;
    if (part != 0 && (part == 2) != conformance_used) {
      printf("ok %d - %s # SKIP counted by the %s part\n", i + 1,
             etk_test_cases_[i].name,
             conformance_used ? "conformance" : "regular");
      fflush(stdout);
      continue;
    }
    run++;
    if (etk_test_failed_) {
      failed++;
      printf("not ok %d - %s\n", i + 1, etk_test_cases_[i].name);
    } else if (etk_test_skipped_) {
      skipped++;
      printf("ok %d - %s # SKIP\n", i + 1, etk_test_cases_[i].name);
    } else {
      printf("ok %d - %s\n", i + 1, etk_test_cases_[i].name);
    }
    fflush(stdout);
  }
  printf("# %d passed, %d failed, %d skipped\n", run - failed - skipped, failed,
         skipped);
  if (failed) return 1;
  if (run > 0 && skipped == run) return 77;
  if (run == 0 && part != 0) return 77;
  return 0;
}
