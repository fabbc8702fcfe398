/*
 * test_error.c - the error record of src/common/error.c: the first error
 * wins, etk_error_vset() adds the place only when it fills the record, and
 * etk_error_vkeep() keeps a writer's first failure.
 */
#include <stdarg.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/common.h"

static int set_at(etk_error_t *err, int code, const char *where,
                  const char *fmt, ...) ETK_PRINTF_LIKE(4, 5);
static int set_at(etk_error_t *err, int code, const char *where,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = etk_error_vset(err, code, 12, where, fmt, ap);
  va_end(ap);
  return rc;
}

static int keep(int *rc, etk_error_t *err, int code, const char *fmt, ...)
    ETK_PRINTF_LIKE(4, 5);
static int keep(int *rc, etk_error_t *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int first = etk_error_vkeep(rc, err, code, "writer", fmt, ap);
  va_end(ap);
  return first;
}

ETK_TEST(vset_fills_once_with_place) {
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(set_at(&err, ETK_E_FORMAT, "a.json", "bad %s %d", "key", 7),
               ETK_E_FORMAT);
  CHECK_EQ_INT(err.code, ETK_E_FORMAT);
  CHECK_EQ_U64(err.offset, 12);
  CHECK_EQ_STR(err.message, "bad key 7");
  CHECK_EQ_STR(err.where, "a.json");
  /* a second error changes nothing but is still returned */
  CHECK_EQ_INT(set_at(&err, ETK_E_IO, "b.json", "other"), ETK_E_IO);
  CHECK_EQ_INT(err.code, ETK_E_FORMAT);
  CHECK_EQ_STR(err.message, "bad key 7");
  CHECK_EQ_STR(err.where, "a.json");
  char line[ETK_ERROR_LINE_SIZE];
  CHECK_EQ_STR(etk_error_format(&err, line, sizeof line),
               "a.json: bad key 7 (at byte 12)");
  CHECK_EQ_INT(set_at(NULL, ETK_E_LIMIT, "x", "ignored"), ETK_E_LIMIT);
}

ETK_TEST(vset_without_place_keeps_an_earlier_one) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_error_where(&err, "outer");
  set_at(&err, ETK_E_TRUNCATED, NULL, "short");
  CHECK_EQ_STR(err.where, "outer");
  CHECK_EQ_STR(err.message, "short");
}

ETK_TEST(vkeep_keeps_the_first_failure) {
  etk_error_t err;
  etk_error_clear(&err);
  int rc = ETK_OK;
  CHECK_EQ_INT(keep(&rc, &err, ETK_E_NO_MEMORY, "out of %s", "memory"),
               ETK_E_NO_MEMORY);
  CHECK_EQ_INT(keep(&rc, &err, ETK_E_LIMIT, "later"), ETK_E_NO_MEMORY);
  CHECK_EQ_INT(rc, ETK_E_NO_MEMORY);
  CHECK_EQ_STR(err.message, "out of memory");
  CHECK_EQ_STR(err.where, "writer");
  CHECK_EQ_U64(err.offset, ETK_NO_OFFSET);
  int rc2 = ETK_OK;
  CHECK_EQ_INT(keep(&rc2, NULL, ETK_E_IO, "no record"), ETK_E_IO);
  CHECK_EQ_INT(rc2, ETK_E_IO);
}

ETK_TEST_MAIN()
