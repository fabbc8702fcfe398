/*
 * test_recorder_cli.c - `etkit record-demo` end to end: the command writes
 * a valid ETDump (etkit's verifier, flatc) with the documented content,
 * the debug buffer holds the logged tensors at the recorded offsets, two
 * runs write identical bytes, and errors exit non-zero without leaving a
 * file behind.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder_testutil.h"

#ifndef ETKIT_CLI
#define ETKIT_CLI ""
#endif

static int run(const char *args) {
  char cmd[4608];
  int status;
  snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>&1", ETKIT_CLI, args);
  status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

ETK_TEST(record_demo_writes_a_valid_dump) {
  char etdp[512], dbg[512], again[512], args[2048];
  unsigned char *a, *b, *d;
  size_t la, lb, ld;
  json_t *j;
  if (ETKIT_CLI[0] == 0 || access(ETKIT_CLI, X_OK) != 0)
    ETK_SKIP("etkit binary not built");
  snprintf(etdp, sizeof etdp, "%s", etk_test_temp_path("demo.etdp"));
  snprintf(dbg, sizeof dbg, "%s", etk_test_temp_path("demo.bin"));
  snprintf(again, sizeof again, "%s", etk_test_temp_path("again.etdp"));
  snprintf(args, sizeof args, "record-demo --output %s --debug-output %s", etdp,
           dbg);
  REQUIRE(run(args) == 0);
  snprintf(args, sizeof args, "record-demo --output %s", again);
  REQUIRE(run(args) == 0);
  a = etk_test_read_file(etdp, &la);
  b = etk_test_read_file(again, &lb);
  d = etk_test_read_file(dbg, &ld);
  REQUIRE(a != NULL && b != NULL && d != NULL);
  CHECK(la == lb && memcmp(a, b, la) == 0); /* deterministic */
  REQUIRE(rt_check_dump(a, la, &j));
  if (j != NULL) {
    const char *t = "run_data/1/events/0/debug_event/debug_entry/tensor";
    char p[256];
    long long off;
    CHECK_EQ_U64(rt_json_len(j, "run_data"), 4); /* no dropped marker */
    CHECK_EQ_STR(rt_json_str(j, "run_data/0/name"), "Default");
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/allocators"), 2);
    CHECK_EQ_STR(rt_json_str(j, "run_data/3/name"), "Execute");
    CHECK_EQ_INT(rt_json_int(j, "run_data/3/bundled_input_index", -9), 2);
    CHECK_EQ_STR(rt_json_str(j, "run_data/1/events/2/profile_event/name"),
                 "OPERATOR_CALL");
    snprintf(p, sizeof p, "%s/offset", t);
    off = rt_json_int(j, p, -1);
    CHECK(off >= 0 && (size_t)off + 288 * 4 <= ld);
    {
      float first;
      memcpy(&first, d + off + 4, sizeof first); /* fmap[1] = 0.25 */
      CHECK(first == 0.25f);
    }
    json_decref(j);
  }
  free(a);
  free(b);
  free(d);
  remove(etdp);
  remove(dbg);
  remove(again);
}

ETK_TEST(record_demo_errors) {
  if (ETKIT_CLI[0] == 0 || access(ETKIT_CLI, X_OK) != 0)
    ETK_SKIP("etkit binary not built");
  CHECK_EQ_INT(run("record-demo --bogus"), 2);
  CHECK_EQ_INT(run("record-demo --output"), 2);
  CHECK_EQ_INT(run("record-demo --output /nonexistent-dir/x.etdp"), 1);
  CHECK(access("/nonexistent-dir/x.etdp", F_OK) != 0);
  CHECK_EQ_INT(run("record-demo --help"), 0);
}

ETK_TEST_MAIN()
