/*
 * device.c - boards, job files and QEMU runs (etkit/device.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "etkit/device.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the firmware's FW_JOB_PATH (src/boards/firmware_job.h) less the NUL */
#define JOB_PATH_MAX 255

static const etk_device_board_t boards[] = {
    {"mps2-an385", "Cortex-M3", "Arm MPS2 AN385, Cortex-M3 (no FPU)"},
    {"mps2-an386", "Cortex-M4F", "Arm MPS2 AN386, Cortex-M4 with FPU"},
    {"mps3-an547", "Cortex-M55", "Arm MPS3 AN547, Cortex-M55 (SSE-300)"},
};

const etk_device_board_t *etk_device_boards(size_t *count) {
  if (count) *count = sizeof boards / sizeof boards[0];
  return boards;
}

const etk_device_board_t *etk_device_find_board(const char *name) {
  for (size_t k = 0; name && k < sizeof boards / sizeof boards[0]; k++)
    if (!strcmp(boards[k].name, name)) return &boards[k];
  return NULL;
}

void etk_device_job_init(etk_device_job_t *job) {
  memset(job, 0, sizeof *job);
  job->iterations = 1;
  job->rtol = 1e-5;
  job->atol = 1e-8;
}

static int put_path(FILE *f, const char *key, const char *path,
                    etk_error_t *err) {
  if (!path) return ETK_OK;
  if (strchr(path, '\n') || strlen(path) > JOB_PATH_MAX)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "%s: the firmware takes paths of at most %d bytes "
                         "without newlines",
                         path, JOB_PATH_MAX);
  fprintf(f, "%s %s\n", key, path);
  return ETK_OK;
}

int etk_device_write_job(const char *path, const etk_device_job_t *job,
                         etk_error_t *err) {
  etk_outfile_t of;
  if (job->input_count > ETK_DEVICE_MAX_INPUTS)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "more than %d inputs", ETK_DEVICE_MAX_INPUTS);
  int rc = etk_outfile_open(&of, path, err);
  if (rc != ETK_OK) return rc;
  rc = put_path(of.fp, "program", job->program, err);
  for (size_t k = 0; k < job->input_count && rc == ETK_OK; k++)
    rc = put_path(of.fp, "input", job->inputs[k], err);
  if (rc == ETK_OK) rc = put_path(of.fp, "etdump", job->etdump, err);
  if (rc == ETK_OK)
    rc = put_path(of.fp, "debug_buffer", job->debug_buffer, err);
  if (rc == ETK_OK) rc = put_path(of.fp, "output_dir", job->output_dir, err);
  if (rc != ETK_OK) {
    etk_outfile_abort(&of);
    return rc;
  }
  fprintf(of.fp,
          "iterations %lu\nwarmup %lu\ndebug_level %d\nprofile_level %d\n"
          "verify %d\ntransport %d\nrtol %.17g\natol %.17g\ncalibrate %d\n"
          "profile_mode %d\nstats_error_ppm %lu\n",
          job->iterations, job->warmup, job->debug_level, job->profile_level,
          job->verify ? 1 : 0, job->transport ? 1 : 0, job->rtol, job->atol,
          job->calibrate ? 1 : 0, job->profile_mode ? 1 : 0,
          job->stats_error_ppm);
  return etk_outfile_commit(&of, err);
}

int etk_device_find_qemu(char *out, size_t size, etk_error_t *err) {
  const char *path = getenv("PATH");
  const char *name = "qemu-system-arm";
  while (path && *path) {
    const char *colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    if (n &&
        (size_t)snprintf(out, size, "%.*s/%s", (int)n, path, name) < size &&
        access(out, X_OK) == 0)
      return ETK_OK;
    path = colon ? colon + 1 : NULL;
  }
  return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "qemu-system-arm not found on PATH (Debian package "
                       "qemu-system-arm: apt-get install qemu-system-arm)");
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int etk_device_run(const etk_device_run_t *run, etk_device_result_t *res,
                   etk_error_t *err) {
  char qemu[4096];
  memset(res, 0, sizeof *res);
  res->status = -1;
  if (!run->board || !run->firmware || !run->job_path || !(run->timeout_s > 0))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_device_run: board, firmware, job and a "
                         "positive timeout are needed");
  if (run->qemu) {
    snprintf(qemu, sizeof qemu, "%s", run->qemu);
  } else {
    int rc = etk_device_find_qemu(qemu, sizeof qemu, err);
    if (rc != ETK_OK) return rc;
  }
  if (access(run->firmware, R_OK) != 0)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "%s: no firmware image for %s (%s)", run->firmware,
                         run->board->name, strerror(errno));
  char *argv[] = {qemu,
                  "-M",
                  (char *)run->board->name,
                  "-nographic",
                  "-monitor",
                  "none",
                  "-semihosting-config",
                  "enable=on,target=native",
                  "-icount",
                  "shift=5",
                  "-kernel",
                  (char *)run->firmware,
                  "-append",
                  (char *)run->job_path,
                  NULL};
  double t0 = now_s();
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0)
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET, "cannot start %s: %s",
                         qemu, strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    if (run->console_fd >= 0) dup2(run->console_fd, 1);
    if (run->console_err_path) {
      int e = open(run->console_err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (e >= 0) dup2(e, 2);
    }
    execv(qemu, argv);
    fprintf(stderr, "etkit: cannot run %s: %s\n", qemu, strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  int wstatus = 0;
  for (;;) {
    pid_t w = waitpid(pid, &wstatus, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      res->wall_s = now_s() - t0;
      return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET, "waiting for %s: %s",
                           qemu, strerror(errno));
    }
    if (now_s() - t0 > run->timeout_s) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
      }
      res->timed_out = 1;
      break;
    }
    struct timespec nap = {0, 5 * 1000 * 1000};
    nanosleep(&nap, NULL);
  }
  res->wall_s = now_s() - t0;
  if (!res->timed_out) {
    if (WIFEXITED(wstatus))
      res->status = WEXITSTATUS(wstatus);
    else if (WIFSIGNALED(wstatus))
      res->signal = WTERMSIG(wstatus);
  }
  return ETK_OK;
}
