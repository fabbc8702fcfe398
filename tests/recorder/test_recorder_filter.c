/*
 * test_recorder_filter.c - upstream's etdump_filter_test.cpp mirrored on
 * etk_filter_t (glob patterns stand in for RE2 regexes: "test.*" becomes
 * "test*"), plus the glob matcher's own cases.
 */
#include <stdio.h>
#include <string.h>

#include "recorder_testutil.h"

static etk_filter_t filter;

static int drops(const char *name, int32_t index) {
  int drop = -1;
  int status = etk_filter_check(&filter, name, index, &drop);
  return status != ETK_OK ? status : drop;
}

ETK_TEST(add_regex_pattern_success) {
  etk_filter_init(&filter);
  CHECK_EQ_INT(etk_filter_add_pattern(&filter, "test*"), ETK_OK);
  CHECK_EQ_INT(filter.count, 1);
}

ETK_TEST(set_debug_handle_range_success) {
  etk_filter_init(&filter);
  CHECK_EQ_INT(etk_filter_set_range(&filter, 10, 20), ETK_OK);
}

ETK_TEST(set_debug_handle_range_failure) {
  etk_filter_init(&filter);
  CHECK_EQ_INT(etk_filter_set_range(&filter, 20, 10), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_filter_set_range(&filter, 7, 7), ETK_E_INVALID_ARGUMENT);
  /* the rejected range leaves the filter unset: every index is dropped */
  CHECK_EQ_INT(drops(NULL, 12345), 1);
}

ETK_TEST(filter_by_name_success) {
  etk_filter_init(&filter);
  etk_filter_add_pattern(&filter, "event*");
  CHECK_EQ_INT(drops("event_name", ETK_DELEGATE_ID_UNSET), 1);
}

ETK_TEST(partial_matching_failed) {
  etk_filter_init(&filter);
  etk_filter_add_pattern(&filter, "event*");
  CHECK_EQ_INT(drops("non_matching_event", ETK_DELEGATE_ID_UNSET), 0);
}

/* Each index judged by the range [10, 20): all dropped, or all kept. */
static void check_indices_in_10_to_20(const int32_t *indices, size_t count,
                                      int dropped) {
  etk_filter_init(&filter);
  etk_filter_set_range(&filter, 10, 20);
  for (size_t k = 0; k < count; k++) {
    if (drops(NULL, indices[k]) != dropped)
      printf("# index %d\n", (int)indices[k]);
    CHECK_EQ_INT(drops(NULL, indices[k]), dropped);
  }
}

ETK_TEST(filter_by_delegate_debug_index_success) {
  static const int32_t inside[] = {15, 10, 19};
  check_indices_in_10_to_20(inside, sizeof inside / sizeof inside[0], 1);
}

ETK_TEST(filter_by_delegate_debug_index_failure) {
  /* negative ids compare as huge unsigned values upstream: kept */
  static const int32_t outside[] = {25, 20, 9, -5};
  check_indices_in_10_to_20(outside, sizeof outside / sizeof outside[0], 0);
}

ETK_TEST(naive_filter_name_input_can_succeed) {
  etk_filter_init(&filter);
  CHECK_EQ_INT(drops("any_input", ETK_DELEGATE_ID_UNSET), 1);
}

ETK_TEST(naive_filter_debug_handle_input_can_succeed) {
  etk_filter_init(&filter);
  CHECK_EQ_INT(drops(NULL, 12345), 1);
}

ETK_TEST(illegal_input) {
  etk_filter_init(&filter);
  etk_filter_add_pattern(&filter, "pattern");
  CHECK_EQ_INT(drops("matching_event", 1), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(drops(NULL, ETK_DELEGATE_ID_UNSET), ETK_E_INVALID_ARGUMENT);
}

/* "matching_event" judged by a filter of one pattern, then of two. */
static void check_two_patterns(const char *first, int drops_after_first,
                               const char *second, int drops_after_both) {
  etk_filter_init(&filter);
  etk_filter_add_pattern(&filter, first);
  CHECK_EQ_INT(drops("matching_event", ETK_DELEGATE_ID_UNSET),
               drops_after_first);
  etk_filter_add_pattern(&filter, second);
  CHECK_EQ_INT(drops("matching_event", ETK_DELEGATE_ID_UNSET),
               drops_after_both);
}

ETK_TEST(no_match_first_then_match) {
  check_two_patterns("non_matching_pattern", 0, "matching_*", 1);
}

ETK_TEST(match_regex_first_then) {
  check_two_patterns("matching*", 1, "non_matching_pattern", 1);
}

ETK_TEST(name_filter_ignores_range_and_back) {
  /* a name is judged by patterns only, an index by the range only */
  etk_filter_init(&filter);
  etk_filter_set_range(&filter, 0, 100);
  CHECK_EQ_INT(drops("anything", ETK_DELEGATE_ID_UNSET), 1); /* no patterns */
  etk_filter_add_pattern(&filter, "x");
  CHECK_EQ_INT(drops("anything", ETK_DELEGATE_ID_UNSET), 0);
  CHECK_EQ_INT(drops(NULL, 50), 1);
}

ETK_TEST(bad_patterns_and_limits) {
  char big[ETK_FILTER_PATTERN_BYTES];
  etk_filter_init(&filter);
  CHECK_EQ_INT(etk_filter_add_pattern(&filter, "[abc"), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_filter_add_pattern(&filter, "abc\\"),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_filter_add_pattern(&filter, NULL), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_filter_add_pattern(NULL, "a"), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(filter.count, 0);
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = 0;
  CHECK_EQ_INT(etk_filter_add_pattern(&filter, big), ETK_OK); /* fits exactly */
  CHECK_EQ_INT(etk_filter_add_pattern(&filter, ""), ETK_E_LIMIT);
  CHECK_EQ_INT(filter.count, 1);
  CHECK_EQ_INT(etk_filter_check(NULL, "a", -1, NULL), ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(glob_syntax) {
  static const struct {
    const char *pattern, *text;
    int matches;
  } cases[] = {
      {"*", "", 1},
      {"*", "anything", 1},
      {"", "a", 0},
      {"", "", 1},
      {"a?c", "abc", 1},
      {"a?c", "ac", 0},
      {"*.out", "native_call_add.out", 1},
      {"*.out", "native_call_add.out2", 0},
      {"conv*#[0-9]", "conv2d #7", 1},
      {"conv*#[0-9]", "conv2d #x", 0},
      {"[!a]bc", "xbc", 1},
      {"[!a]bc", "abc", 0},
      {"[^a]bc", "zbc", 1},
      {"[]]x", "]x", 1},
      {"a\\*b", "a*b", 1},
      {"a\\*b", "axb", 0},
      {"*a*b*c*", "xxaxxbxxcxx", 1},
      {"*a*b*c*", "xxaxxcxxbxx", 0},
      {"filtered*", "filtered_event", 1},
      {"filtered*", "unfiltered_event", 0},
      {NULL, "a", 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int got = etk_glob_match(cases[k].pattern, cases[k].text) != 0;
    if (got != cases[k].matches)
      printf("# glob \"%s\" on \"%s\"\n",
             cases[k].pattern ? cases[k].pattern : "(null)", cases[k].text);
    CHECK_EQ_INT(got, cases[k].matches);
  }
  /* pathological backtracking stays bounded */
  {
    char text[2001];
    memset(text, 'a', 2000);
    text[2000] = 0;
    CHECK(!etk_glob_match("*a*a*a*a*a*a*a*a*b", text));
  }
}

ETK_TEST_MAIN()
