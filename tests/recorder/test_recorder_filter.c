/*
 * test_recorder_filter.c - upstream's etdump_filter_test.cpp mirrored on
 * etk_filter_t (glob patterns stand in for RE2 regexes: "test.*" becomes
 * "test*"), plus the glob matcher's own cases.
 */
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

ETK_TEST(filter_by_delegate_debug_index_success) {
  etk_filter_init(&filter);
  etk_filter_set_range(&filter, 10, 20);
  CHECK_EQ_INT(drops(NULL, 15), 1);
  CHECK_EQ_INT(drops(NULL, 10), 1);
  CHECK_EQ_INT(drops(NULL, 19), 1);
}

ETK_TEST(filter_by_delegate_debug_index_failure) {
  etk_filter_init(&filter);
  etk_filter_set_range(&filter, 10, 20);
  CHECK_EQ_INT(drops(NULL, 25), 0);
  CHECK_EQ_INT(drops(NULL, 20), 0);
  CHECK_EQ_INT(drops(NULL, 9), 0);
  /* negative ids compare as huge unsigned values upstream: kept */
  CHECK_EQ_INT(drops(NULL, -5), 0);
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

ETK_TEST(no_match_first_then_match) {
  etk_filter_init(&filter);
  etk_filter_add_pattern(&filter, "non_matching_pattern");
  CHECK_EQ_INT(drops("matching_event", ETK_DELEGATE_ID_UNSET), 0);
  etk_filter_add_pattern(&filter, "matching_*");
  CHECK_EQ_INT(drops("matching_event", ETK_DELEGATE_ID_UNSET), 1);
}

ETK_TEST(match_regex_first_then) {
  etk_filter_init(&filter);
  etk_filter_add_pattern(&filter, "matching*");
  CHECK_EQ_INT(drops("matching_event", ETK_DELEGATE_ID_UNSET), 1);
  etk_filter_add_pattern(&filter, "non_matching_pattern");
  CHECK_EQ_INT(drops("matching_event", ETK_DELEGATE_ID_UNSET), 1);
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
  CHECK(etk_glob_match("*", ""));
  CHECK(etk_glob_match("*", "anything"));
  CHECK(!etk_glob_match("", "a"));
  CHECK(etk_glob_match("", ""));
  CHECK(etk_glob_match("a?c", "abc"));
  CHECK(!etk_glob_match("a?c", "ac"));
  CHECK(etk_glob_match("*.out", "native_call_add.out"));
  CHECK(!etk_glob_match("*.out", "native_call_add.out2"));
  CHECK(etk_glob_match("conv*#[0-9]", "conv2d #7"));
  CHECK(!etk_glob_match("conv*#[0-9]", "conv2d #x"));
  CHECK(etk_glob_match("[!a]bc", "xbc"));
  CHECK(!etk_glob_match("[!a]bc", "abc"));
  CHECK(etk_glob_match("[^a]bc", "zbc"));
  CHECK(etk_glob_match("[]]x", "]x"));
  CHECK(etk_glob_match("a\\*b", "a*b"));
  CHECK(!etk_glob_match("a\\*b", "axb"));
  CHECK(etk_glob_match("*a*b*c*", "xxaxxbxxcxx"));
  CHECK(!etk_glob_match("*a*b*c*", "xxaxxcxxbxx"));
  CHECK(etk_glob_match("filtered*", "filtered_event"));
  CHECK(!etk_glob_match("filtered*", "unfiltered_event"));
  CHECK(!etk_glob_match(NULL, "a"));
  /* pathological backtracking stays bounded */
  {
    char text[2001];
    memset(text, 'a', 2000);
    text[2000] = 0;
    CHECK(!etk_glob_match("*a*a*a*a*a*a*a*a*b", text));
  }
}

ETK_TEST_MAIN()
