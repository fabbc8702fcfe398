/*
 * test_status.c - the per-module status lists of etkit/status.h: together
 * they give every value from 0 down to the last code exactly once, and
 * each code's name and message come back from etk_status_name() and
 * etk_strerror().
 */
#include <string.h>

#include "etk_test.h"
#include "etkit/status.h"

typedef struct code {
  int value;
  const char *name, *message;
} code_t;

#define CODE_ROW_(name, value, message) {value, "ETK_" #name, message},
static const code_t codes[] = {ETK_STATUS_LIST(CODE_ROW_)};
#undef CODE_ROW_
enum { CODE_COUNT = sizeof codes / sizeof codes[0] };

#define COUNT_(name, value, message) +1
enum {
  CORE_COUNT = 0 ETK_STATUS_CORE_LIST(COUNT_),
  FLATBUF_COUNT = 0 ETK_STATUS_FLATBUF_LIST(COUNT_),
  RECORDER_COUNT = 0 ETK_STATUS_RECORDER_LIST(COUNT_),
  COMMON_COUNT = 0 ETK_STATUS_COMMON_LIST(COUNT_)
};
#undef COUNT_

ETK_TEST(lists_give_each_value_once_without_gaps) {
  CHECK_EQ_INT(CORE_COUNT + FLATBUF_COUNT + RECORDER_COUNT + COMMON_COUNT,
               CODE_COUNT);
  int seen[CODE_COUNT];
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < CODE_COUNT; i++) {
    int v = -codes[i].value;
    REQUIRE(v >= 0 && v < CODE_COUNT);
    seen[v]++;
  }
  for (int v = 0; v < CODE_COUNT; v++) CHECK_EQ_INT(seen[v], 1);
  CHECK_EQ_INT(ETK_OK, 0);
  CHECK_EQ_INT(ETK_E_INTERNAL, -24); /* values are ABI: never renumbered */
  CHECK_EQ_INT(ETK_E_FULL, -4);
}

ETK_TEST(names_and_messages_round_trip) {
  for (int i = 0; i < CODE_COUNT; i++) {
    CHECK_EQ_STR(etk_status_name(codes[i].value), codes[i].name);
    CHECK_EQ_STR(etk_strerror(codes[i].value), codes[i].message);
  }
  CHECK_EQ_STR(etk_status_name(-CODE_COUNT), "ETK_E_UNKNOWN");
  CHECK_EQ_STR(etk_strerror(1), "unknown status");
  CHECK_EQ_STR(etk_strerror(ETK_E_TRUNCATED), "input is truncated");
}

ETK_TEST_MAIN()
