/*
 * test_render_threads.c - two threads render at once (the Python package
 * releases the GIL while it renders), each with its own sort options, on
 * two inspectors of the same dump; every rendering must equal the one made
 * alone.  The sorts used to keep their options (direction, key, the text
 * the rows point into) in file-level statics, so one thread's options
 * could leak into the other's sort; they now travel in etk_sort_r's
 * context pointer.
 *
 * The dump: one run of EVENTS operators with names and durations in
 * different orders, so that sorting by name, by p50 and by count give
 * three different row orders, plus the summary and the module tree views
 * where the inspector sorts too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etdump_writer.h"
#include "etk_test.h"
#include "etkit/inspector_core.h"
#include "inspector_open.h"
#include "render_capture.h"

#define EVENTS 4000
#define ROUNDS 40

static uint8_t *build_dump(size_t *len) {
  etw_t *w = etw_new((size_t)EVENTS * 128 + (1 << 16));
  char name[48];
  etw_run_begin(w, "Execute", -1);
  for (int32_t k = 0; k < EVENTS; k++) {
    /* names ascend with (k * 7919) % EVENTS, durations with (k * 104729) */
    snprintf(name, sizeof name, "native_call_op_%05d.out",
             (int)((k * 7919) % EVENTS));
    uint64_t t0 = 1000 + 100 * (uint64_t)k;
    etw_profile_simple(w, name, 0, k, t0,
                       t0 + 1 + (uint64_t)((k * 104729) % 97));
  }
  etw_run_end(w);
  return etw_finish_copy(w, len); /* frees the writer */
}

typedef struct job {
  etk_inspector_t *insp;
  etk_inspector_render_options_t opt;
  const char *want;
  int mismatches, failures;
} job_t;

static char *render(etk_inspector_t *insp,
                    const etk_inspector_render_options_t *o) {
  etk_render_sink_t *s = etk_test_capture_new();
  int rc = s ? etk_inspector_render(insp, o, s, NULL) : ETK_E_NO_MEMORY;
  if (rc == ETK_OK && s) rc = etk_render_sink_flush(s);
  return etk_test_capture_finish(s, rc);
}

static void *run_job(void *arg) {
  job_t *j = arg;
  for (int r = 0; r < ROUNDS; r++) {
    char *got = render(j->insp, &j->opt);
    if (!got)
      j->failures++;
    else if (strcmp(got, j->want) != 0)
      j->mismatches++;
    free(got);
  }
  return NULL;
}

static void options(etk_inspector_render_options_t *o, etk_inspect_view_t view,
                    etk_inspect_sort_t sort, int reverse) {
  etk_inspector_render_options_init(o);
  o->format = ETK_INSPECT_FORMAT_TSV;
  o->view = view;
  o->sort = sort;
  o->reverse = reverse;
}

ETK_TEST(two_threads_render_with_their_own_sort_options) {
  size_t len;
  uint8_t *bytes = build_dump(&len);
  REQUIRE(bytes != NULL);
  uint8_t *copy = malloc(len);
  REQUIRE(copy != NULL);
  memcpy(copy, bytes, len);
  etk_inspector_t *a = etk_test_inspector_take(bytes, len, ETK_TIME_MS);
  etk_inspector_t *b = etk_test_inspector_take(copy, len, ETK_TIME_MS);
  REQUIRE(a != NULL && b != NULL);
  /* pairs of opposite options: by name ascending against by p50
   * descending, by count reversed against the summary by name */
  job_t jobs[4];
  options(&jobs[0].opt, ETK_INSPECT_VIEW_EVENTS, ETK_INSPECT_SORT_NAME, 0);
  options(&jobs[1].opt, ETK_INSPECT_VIEW_EVENTS, ETK_INSPECT_SORT_P50, 0);
  options(&jobs[2].opt, ETK_INSPECT_VIEW_EVENTS, ETK_INSPECT_SORT_MAX, 1);
  options(&jobs[3].opt, ETK_INSPECT_VIEW_SUMMARY, ETK_INSPECT_SORT_NAME, 1);
  char *want[4];
  for (int k = 0; k < 4; k++) {
    jobs[k].insp = k % 2 ? b : a;
    want[k] = render(jobs[k].insp, &jobs[k].opt);
    REQUIRE(want[k] != NULL);
    jobs[k].want = want[k];
    jobs[k].mismatches = jobs[k].failures = 0;
  }
  /* the orders really differ (else the test could not see a leak) */
  CHECK(strcmp(want[0], want[1]) != 0);
  CHECK(strcmp(want[0], want[2]) != 0);
  pthread_t t[4];
  for (int k = 0; k < 4; k++)
    REQUIRE(pthread_create(&t[k], NULL, run_job, &jobs[k]) == 0);
  for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
  for (int k = 0; k < 4; k++) {
    CHECK_EQ_INT(jobs[k].failures, 0);
    CHECK_EQ_INT(jobs[k].mismatches, 0);
    free(want[k]);
  }
  etk_inspector_close(a);
  etk_inspector_close(b);
}

ETK_TEST_MAIN()
