/*
 * analysis_fixtures.c - the dumps of analysis_fixtures.h.  Events are
 * written in the order the runtime appends them: when they END, so a
 * child precedes its parent.
 */
#include "analysis_fixtures.h"

#include <stdlib.h>
#include <string.h>

#include "../etdump/etdump_writer.h"

uint8_t *afx_model(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Default", -1);
  etw_allocator(w, "method_allocator");
  etw_allocator(w, "planned_memory");
  etw_allocation(w, 1, 256);
  etw_allocation(w, 2, 4096);
  etw_profile_simple(w, "Method::init", -1, 0, 5, 40);
  etw_allocation(w, 1, 64);
  etw_profile_simple(w, "Program::load_method", -1, 0, 1, 50);
  etw_run_end(w);
  static const uint8_t text_meta[] = {'x', 'n', 'n', ':', 'f',
                                      'p', '3', '2', 0};
  static const uint8_t bin_meta[] = {0x01, 0xff, 0x00, 0x7f};
  for (uint64_t k = 0; k < 2; k++) {
    uint64_t t = 1000 + 1000 * k;
    etw_run_begin(w, "Execute", -1);
    etw_allocator(w, "temp_allocator");
    etw_profile_simple(w, "native_call_add.out", 0, 0, t + 10, t + 20 + k);
    etw_profile_simple(w, "OPERATOR_CALL", 0, 0, t + 5, t + 25 + k);
    etw_allocation(w, 1, 32);
    etw_profile_delegated(w, 1, 3, NULL, text_meta, sizeof text_meta, t + 40,
                          t + 60);
    etw_profile_delegated(w, 1, -1, "linear #1", bin_meta, sizeof bin_meta,
                          t + 62, t + 80 + k);
    etw_profile_simple(w, "DELEGATE_CALL", 0, 1, t + 30, t + 90 + k);
    etw_allocation(w, 1, 16);
    etw_allocation(w, 9, 8);
    etw_profile_simple(w, "native_call_mul.out", 0, 2, t + 95, t + 110);
    etw_profile_simple(w, "OPERATOR_CALL", 0, 2, t + 92, t + 112);
    etw_profile_simple(w, "Method::execute", -1, 0, t + 1, t + 120 + k);
    etw_run_end(w);
  }
  return etw_finish_copy(w, len);
}

uint8_t *afx_wrap(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "a", 0, 0, 4294967000u, 4294967100u);
  etw_profile_simple(w, "wrapped", 0, 1, 4294967200u, 50);
  etw_profile_simple(w, "after", 0, 2, 60, 80);
  etw_profile_simple(w, "missing_end", 0, 3, 90, 0);
  etw_profile_simple(w, "outer", -1, 0, 4294966990u, 100);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

uint8_t *afx_invalid(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "fine", 0, 0, 5000000100ull, 5000000200ull);
  etw_profile_simple(w, "backwards", 0, 1, 6000000000ull, 5000000000ull);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

uint8_t *afx_overlap(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  for (int k = 0; k < 2; k++) {
    etw_run_begin(w, "Execute", -1);
    etw_profile_simple(w, "inner", 0, 2, 160, 170);
    etw_profile_simple(w, "first", 0, 0, 100, 200);
    etw_profile_simple(w, "second", 0, 1, 150, 250);
    etw_profile_simple(w, "Method::execute", -1, 0, 90, 300);
    etw_run_end(w);
  }
  return etw_finish_copy(w, len);
}

const char *const afx_hostile_names[] = {"<script>alert(1)</script>",
                                         "a\"b'c&d<e>",
                                         "new\nline",
                                         "tab\tx",
                                         "\x1b[31mred",
                                         ("bidi\xe2\x80\xae"
                                          "evil"),
                                         "</td></tr></table>"};
const size_t afx_hostile_name_count =
    sizeof afx_hostile_names / sizeof afx_hostile_names[0];

uint8_t *afx_hostile(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "<b>run</b> & \"co\"", -1);
  etw_allocator(w, "<img src=x onerror=alert(1)>");
  etw_allocation(w, 1, 100);
  uint64_t t = 10;
  for (size_t i = 0; i < afx_hostile_name_count; i++, t += 100)
    etw_profile_simple(w, afx_hostile_names[i], 0, (int32_t)i, t, t + 50);
  etw_profile_simple(w, "Method::execute", -1, 0, 5, t + 10);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

uint8_t *afx_dropped(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "native_call_add.out", 0, 0, 10, 20);
  etw_profile_simple(w, "Method::execute", -1, 0, 5, 30);
  etw_run_end(w);
  etw_run_begin(w, "etkit:dropped_events=17,blocks=2", -1);
  etw_run_without_events(w);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

/* The diff pair (durations in ns, identical in the three runs):
 *   block     event                iid  A     B
 *   Default   Method::init          0   30    -     (block only in A)
 *             Program::load_method  0   50    -
 *   Execute   native_call_add.out   0   10    10    exact, +0
 *             native_call_mul.out   1   20    30    exact, +10 (+50 %)
 *             native_call_conv.out  2   100   -
 *             native_call_conv.out  5   -     80    by name, -20 (-20 %)
 *             native_call_relu.out  3   5     -     missing
 *             native_call_sigmoid   3   -     7     new
 *             linear #1 (delegate)  4   40    -
 *             linear #2 (delegate)  4   -     44    by op type, +4 (+10 %)
 *             Method::execute       0   200   190   method -10 (-5 %)
 *   Warmup    native_call_add.out   0   -     12    (block only in B)
 *             Method::execute       0   -     15
 * operators' total: A 175, B 171; framework overhead: A 25, B 19. */
static void diff_run(etw_t *w, int b) {
  uint64_t t = 1000;
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "native_call_add.out", 0, 0, t, t + 10);
  t += 10;
  etw_profile_simple(w, "native_call_mul.out", 0, 1, t, t + (b ? 30 : 20));
  t += 30;
  if (b)
    etw_profile_simple(w, "native_call_conv.out", 0, 5, t, t + 80);
  else
    etw_profile_simple(w, "native_call_conv.out", 0, 2, t, t + 100);
  t += 100;
  if (b)
    etw_profile_simple(w, "native_call_sigmoid.out", 0, 3, t, t + 7);
  else
    etw_profile_simple(w, "native_call_relu.out", 0, 3, t, t + 5);
  t += 10;
  etw_profile_delegated(w, 4, -1, b ? "linear #2" : "linear #1", NULL, 0, t,
                        t + (b ? 44 : 40));
  etw_profile_simple(w, "Method::execute", -1, 0, 1000, 1000 + (b ? 190 : 200));
  etw_run_end(w);
}

uint8_t *afx_diff_a(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Default", -1);
  etw_profile_simple(w, "Method::init", -1, 0, 10, 40);
  etw_profile_simple(w, "Program::load_method", -1, 0, 0, 50);
  etw_run_end(w);
  for (int k = 0; k < 3; k++) diff_run(w, 0);
  return etw_finish_copy(w, len);
}

uint8_t *afx_diff_b(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  for (int k = 0; k < 3; k++) diff_run(w, 1);
  etw_run_begin(w, "Warmup", -1);
  etw_profile_simple(w, "native_call_add.out", 0, 0, 2, 14);
  etw_profile_simple(w, "Method::execute", -1, 0, 0, 15);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}
