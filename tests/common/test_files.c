/*
 * test_files.c - the all-or-nothing output file (etk_outfile_*) and
 * whole-file reads of src/common/files.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "etk_test.h"
#include "etkit/common.h"

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Checks that the file at `path` holds exactly `text`, then removes it. */
static void check_file_holds(const char *path, const char *text) {
  size_t len = 0, want = strlen(text);
  unsigned char *data = etk_test_read_file(path, &len);
  REQUIRE(data != NULL);
  CHECK_EQ_INT(len, want);
  CHECK(memcmp(data, text, want) == 0);
  free(data);
  remove(path);
}

ETK_TEST(outfile_appears_only_on_commit) {
  const char *path = etk_test_temp_path("out.txt");
  etk_outfile_t of;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_outfile_open(&of, path, &err) == ETK_OK);
  fputs("hello\n", of.fp);
  CHECK(!file_exists(path)); /* still under its temporary name */
  CHECK(file_exists(of.tmp_path));
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", of.tmp_path);
  REQUIRE(etk_outfile_commit(&of, &err) == ETK_OK);
  CHECK(!file_exists(tmp));
  check_file_holds(path, "hello\n");
}

ETK_TEST(outfile_abort_leaves_nothing_and_keeps_old_file) {
  const char *path = etk_test_temp_path("keep.txt");
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_write_file(path, "old", 3, &err) == ETK_OK);
  etk_outfile_t of;
  REQUIRE(etk_outfile_open(&of, path, &err) == ETK_OK);
  fputs("partial new content", of.fp);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", of.tmp_path);
  etk_outfile_abort(&of);
  CHECK(!file_exists(tmp));
  check_file_holds(path, "old");
}

/* Renaming a temporary file over a FIFO or a device (/dev/null) would
 * replace it with a regular file; such targets are written in place. */
ETK_TEST(outfile_writes_fifo_in_place) {
  const char *path = etk_test_temp_path("fifo");
  REQUIRE(mkfifo(path, 0600) == 0);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) { /* reader: drain the FIFO, exit 0 if it saw "data\n" */
    FILE *f = fopen(path, "rb");
    char buf[64] = {0};
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    _exit(n == 5 && memcmp(buf, "data\n", 5) == 0 ? 0 : 1);
  }
  etk_outfile_t of;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_outfile_open(&of, path, &err);
  CHECK_EQ_INT(rc, ETK_OK);
  if (rc == ETK_OK) {
    fputs("data\n", of.fp);
    CHECK_EQ_INT(etk_outfile_commit(&of, &err), ETK_OK);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st;
  REQUIRE(stat(path, &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  remove(path);
}

/* SIGTERM or SIGINT in the middle of a write: the process dies of the
 * signal as before, and its NAME.tmp.<pid> is gone. */
static void interrupt_a_write(int sig) {
  const char *path = etk_test_temp_path(sig == SIGINT ? "int.out" : "term.out");
  char tmp[4200];
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    signal(sig, SIG_DFL);
    etk_outfile_cleanup_on_signals();
    etk_outfile_t of;
    etk_error_t err;
    etk_error_clear(&err);
    if (etk_outfile_open(&of, path, &err) != ETK_OK) _exit(3);
    fputs("partial", of.fp);
    fflush(of.fp);
    ssize_t w = write(fds[1], of.tmp_path, strlen(of.tmp_path) + 1);
    (void)w;
    for (;;) pause(); /* "writing" until the signal comes */
  }
  close(fds[1]);
  ssize_t n = read(fds[0], tmp, sizeof tmp);
  close(fds[0]);
  REQUIRE(n > 0);
  CHECK(file_exists(tmp)); /* the child's temporary file, mid-write */
  kill(child, sig);
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig);
  CHECK(!file_exists(tmp));
  CHECK(!file_exists(path));
  remove(tmp);
}

ETK_TEST(outfile_temp_removed_on_sigterm) {
  interrupt_a_write(SIGTERM);
}
ETK_TEST(outfile_temp_removed_on_sigint) {
  interrupt_a_write(SIGINT);
}

/* A program's own handler is kept: the cleanup is installed only where the
 * signal still has its default action. */
static void own_handler(int sig) {
  (void)sig;
}
ETK_TEST(outfile_cleanup_keeps_a_programs_handler) {
  struct sigaction sa, old, now;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = own_handler;
  sigemptyset(&sa.sa_mask);
  REQUIRE(sigaction(SIGHUP, &sa, &old) == 0);
  etk_outfile_cleanup_on_signals();
  REQUIRE(sigaction(SIGHUP, &old, &now) == 0);
  CHECK(now.sa_handler == own_handler);
}

/* Hard and symbolic links name the same file; a copy does not. */
ETK_TEST(same_file_through_links) {
  const char *a = etk_test_temp_path("same_a");
  char hard[4200], soft[4200], other[4200];
  snprintf(hard, sizeof hard, "%s.hard", a);
  snprintf(soft, sizeof soft, "%s.soft", a);
  snprintf(other, sizeof other, "%s.other", a);
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_write_file(a, "x", 1, &err) == ETK_OK);
  REQUIRE(etk_write_file(other, "x", 1, &err) == ETK_OK);
  remove(hard);
  remove(soft);
  REQUIRE(link(a, hard) == 0);
  REQUIRE(symlink(a, soft) == 0);
  CHECK(etk_same_file(a, a));
  CHECK(etk_same_file(a, hard));
  CHECK(etk_same_file(soft, a));
  CHECK(!etk_same_file(a, other));
  CHECK(!etk_same_file(a, NULL));
  CHECK(!etk_same_file(a, "/no/such/file"));
  remove(hard);
  remove(soft);
  remove(other);
  remove(a);
}

ETK_TEST(read_file_limit_and_missing) {
  const char *path = etk_test_temp_path("big.bin");
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_write_file(path, "0123456789", 10, &err) == ETK_OK);
  uint8_t *data = NULL;
  size_t len = 0;
  CHECK_EQ_INT(etk_read_file(path, 9, &data, &len, &err), ETK_E_LIMIT);
  CHECK(data == NULL);
  etk_error_clear(&err);
  REQUIRE(etk_read_file(path, 10, &data, &len, &err) == ETK_OK);
  CHECK_EQ_INT(len, 10);
  CHECK_EQ_INT(data[10], 0); /* terminating NUL after the data */
  free(data);
  remove(path);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_read_file(path, 0, &data, &len, &err), ETK_E_IO);
  char line[512];
  etk_error_format(&err, line, sizeof line);
  CHECK(strstr(line, "cannot open") != NULL);
}

ETK_TEST_MAIN()
