/*
 * firmware_job.h - the job file the host writes for the firmware
 * (src/device/device_job.c writes it): text, one `key value` per line,
 * the value the rest of the line.
 *
 *   program PATH        .pte or .bpte (required)
 *   input PATH          a .npy per method input, in order (repeatable)
 *   iterations N        default 1
 *   warmup N            untraced runs first, default 0
 *   etdump PATH         ETDump to write ("" none)
 *   debug_buffer PATH   debug buffer to write
 *   debug_level N       0 none, 1 outputs, 2 intermediates, 3 stats
 *   profile_level N     0 method, 1 all
 *   verify N            1: a mismatching bundled case exits 1
 *   rtol X / atol X     bundled comparison tolerances
 *   output_dir PATH     outputs as PATH/[caseK_]output_N.npy
 *   transport N         0 semihosting files, 1 framed over the UART
 *                       (etkit/transport.h; the paths' last parts name them)
 *   calibrate N         1: measure the recorder's own cost on the board into
 *                       the ETDump (etkit/recorder_calibration.h), default 0
 *   profile_mode N      0 every event, 1 the recorder's stats mode: a latency
 *                       sketch per event key, an arena the same for any N
 *   stats_error_ppm N   stats mode's relative error in parts per million
 *                       (100 to 200000), 0 the default 1%
 */
#ifndef ETKIT_BOARDS_FIRMWARE_JOB_H
#define ETKIT_BOARDS_FIRMWARE_JOB_H

#include <stddef.h>

#define FW_JOB_MAX_INPUTS 32
#define FW_JOB_PATH 256

typedef struct fw_job {
  char program[FW_JOB_PATH], etdump[FW_JOB_PATH], debug_buffer[FW_JOB_PATH];
  char output_dir[FW_JOB_PATH];
  char inputs[FW_JOB_MAX_INPUTS][FW_JOB_PATH];
  size_t input_count;
  unsigned long iterations, warmup, stats_error_ppm;
  int debug_level, profile_level, verify, transport, calibrate, profile_mode;
  double rtol, atol;
} fw_job_t;

/* Parses text[0..len) (modified in place) into *job; 0, or -1 with the
 * reason in why. */
int fw_job_parse(char *text, size_t len, fw_job_t *job, char *why,
                 size_t why_size);

#endif
