/*
 * etkit/device.h - running programs on an emulated Cortex-M board: the
 * boards, the job file the firmware (src/boards) reads over semihosting,
 * and one QEMU run with a time limit (src/device, host only).
 *
 *   etk_device_job_t job;  etk_device_job_init(&job);
 *   job.program = "/abs/model.pte";  job.etdump = "/abs/run.etdp";
 *   etk_device_write_job("/tmp/x/job.txt", &job, &err);
 *   etk_device_run_t run = {.board = etk_device_find_board("mps2-an386"),
 *                           .firmware = "mps2-an386.elf",
 *                           .job_path = "/tmp/x/job.txt", .timeout_s = 60};
 *   etk_device_result_t res;
 *   etk_device_run(&run, &res, &err);   // res.status: the firmware's exit
 *
 * Cycle counts the firmware records are SysTick ticks under QEMU's
 * -icount shift=5: executed instructions, deterministic run to run, not a
 * real core's timing (docs/device.md).
 */
#ifndef ETKIT_DEVICE_H
#define ETKIT_DEVICE_H

#include <stddef.h>

#include "etkit/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etk_device_board {
  const char *name;        /* QEMU machine: "mps2-an386" */
  const char *cpu;         /* "Cortex-M4F" */
  const char *description; /* one line for --target help */
} etk_device_board_t;

/* The boards firmware is built for; *count set. */
const etk_device_board_t *etk_device_boards(size_t *count);
/* The board named `name`, or NULL. */
const etk_device_board_t *etk_device_find_board(const char *name);

#define ETK_DEVICE_MAX_INPUTS 32

/* What the firmware does (src/boards/firmware_job.h reads it).  Paths are
 * the host's, absolute (QEMU's working directory is not the caller's). */
typedef struct etk_device_job {
  const char *program;
  const char *inputs[ETK_DEVICE_MAX_INPUTS];
  size_t input_count;
  unsigned long iterations, warmup;
  const char *etdump, *debug_buffer, *output_dir; /* NULL: none */
  int debug_level, profile_level, verify;
  int transport; /* 0 files over semihosting, 1 framed over the UART */
  double rtol, atol;
  int calibrate;    /* 1: the firmware measures the recorder's own cost into
                     * the ETDump (etkit/recorder_calibration.h) */
  int profile_mode; /* 0 every event, 1 the recorder's stats mode (a
                     * latency sketch per event key, docs/long-runs.md) */
  unsigned long stats_error_ppm; /* stats mode's relative error in parts
                                  * per million (100..200000), 0: 1% */
} etk_device_job_t;

void etk_device_job_init(etk_device_job_t *job);
/* Writes the job file; ETK_E_INVALID_ARGUMENT for a path with a newline or
 * longer than the firmware takes, ETK_E_IO. */
int etk_device_write_job(const char *path, const etk_device_job_t *job,
                         etk_error_t *err);

/* Finds qemu-system-arm on PATH into out[size]; ETK_E_NOT_FOUND with a
 * message naming the Debian package otherwise. */
int etk_device_find_qemu(char *out, size_t size, etk_error_t *err);

typedef struct etk_device_run {
  const etk_device_board_t *board;
  const char *firmware; /* the board's .elf */
  const char *job_path; /* passed as the firmware's command line */
  const char *qemu;     /* NULL: etk_device_find_qemu */
  double timeout_s;     /* > 0 */
  /* Where the firmware's console (semihosting and UART) goes: a file
   * descriptor, -1 for this process's stdout. */
  int console_fd;
  /* Where QEMU's stderr (the firmware's semihosting console: its report
   * lines and error line) goes: a file created there, or NULL for this
   * process's stderr. */
  const char *console_err_path;
} etk_device_run_t;

typedef struct etk_device_result {
  int status;    /* the firmware's exit status (QEMU's), -1 if none */
  int timed_out; /* killed after timeout_s */
  int signal;    /* QEMU died of this signal, 0 otherwise */
  double wall_s; /* QEMU's wall time */
} etk_device_result_t;

/* Runs QEMU (-M board -nographic -semihosting-config
 * enable=on,target=native -icount shift=5 -kernel firmware -append job)
 * and waits at most timeout_s, then kills it.  Returns ETK_OK when QEMU
 * ran (whatever the firmware's status: see *res), ETK_E_NOT_FOUND (no
 * QEMU, no firmware), ETK_E_IO (cannot start it). */
int etk_device_run(const etk_device_run_t *run, etk_device_result_t *res,
                   etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_DEVICE_H */
