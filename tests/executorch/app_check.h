/*
 * app_check.h - what the upstream-style test applications share: EXPECT
 * (prints the failed condition, counts it in `failures`; main returns 1
 * when any failed) and write_file.  Header-only, one translation unit per
 * application.
 */
#ifndef ETKIT_TESTS_APP_CHECK_H
#define ETKIT_TESTS_APP_CHECK_H

#include <cstdint>
#include <cstdio>

static int failures = 0;
#define EXPECT(cond)                                        \
  do {                                                      \
    if (!(cond)) {                                          \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond); \
      failures++;                                           \
    }                                                       \
  } while (0)

/* Writes size bytes of buf to path (truncating it); 1 on success. */
static inline int write_file(const char *path, const void *buf, size_t size) {
  FILE *f = std::fopen(path, "wb");
  if (f == nullptr) return 0;
  size_t n = std::fwrite(static_cast<const uint8_t *>(buf), 1, size, f);
  return std::fclose(f) == 0 && n == size;
}

#endif /* ETKIT_TESTS_APP_CHECK_H */
