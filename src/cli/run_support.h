/*
 * run_support.h - what `etkit run`, `etkit bundle` and `etkit demo` share:
 * a recorder sized for a method and a number of runs, inputs from .npy
 * files or filled with ones, outputs to .npy files and to the terminal.
 */
#ifndef ETKIT_CLI_RUN_SUPPORT_H
#define ETKIT_CLI_RUN_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/program.h"
#include "etkit/recorder.h"
#include "etkit/runtime.h"

#define CLI_MAX_INPUTS 64

/* A host recorder with its arena and debug buffer (etkit/runtime.h). */
typedef etk_trace_session_t cli_recorder_t;

/* Debug levels and profiling levels as the CLI spells them. */
enum {
  CLI_DEBUG_NONE = ETK_TRACE_DEBUG_NONE,
  CLI_DEBUG_OUTPUTS = ETK_TRACE_DEBUG_OUTPUTS,
  CLI_DEBUG_INTERMEDIATES = ETK_TRACE_DEBUG_INTERMEDIATES,
  CLI_DEBUG_STATS = ETK_TRACE_DEBUG_STATS
};
enum {
  CLI_PROFILE_METHOD = ETK_TRACE_PROFILE_METHOD,
  CLI_PROFILE_ALL = ETK_TRACE_PROFILE_ALL
};
#define cli_recorder_create etk_trace_session_create
#define cli_recorder_free etk_trace_session_free

/* Finishes the dump and writes it to etdump_path (if non-NULL) and the
 * used debug bytes to debug_path (if non-NULL).  *dropped (optional)
 * receives the recorder's dropped-event count. */
/* Measures the recorder's own cost (etk_recorder_calibrate, scratch on the
 * heap) so that the ETDump carries it (etkit/recorder_calibration.h); call
 * it before the traced runs.  The marker's bytes come from the session's
 * slack (size / 4 + 4 KiB, more than ETK_RECORDER_CALIBRATION_BYTES). */
int cli_recorder_calibrate(cli_recorder_t *r, etk_error_t *err);

int cli_recorder_write(cli_recorder_t *r, const char *etdump_path,
                       const char *debug_path, uint32_t *dropped,
                       etk_error_t *err);

/* Sets input i from an .npy file (kept alive in *keep, freed by the
 * caller with etk_npy_free), or, when path is NULL, from a buffer of ones
 * (*ones, freed by the caller with free). */
int cli_set_input(etk_method_t *m, size_t i, const char *path, etk_npy_t **keep,
                  void **ones, etk_error_t *err);

/* `n` elements of `scalar_type` holding one (malloc'd, freed by the
 * caller), or NULL when out of memory or the type has no size. */
void *cli_ones(int scalar_type, size_t n);

/* Writes output i to "<dir>/<prefix>output_<i>.npy". */
int cli_write_output(const etk_method_t *m, size_t i, const char *dir,
                     const char *prefix, etk_error_t *err);

/* Prints "FLOAT [2, 2] = [5, 8, 11, 14]" (at most `max_values` values). */
void cli_print_value(FILE *out, const etk_method_t *m, size_t output,
                     size_t max_values);

/* Describes tensor `t` holding `data` (borrowed) as a bundled-program
 * value: dtype, sizes (copied into `sizes`, ETK_MAX_DIMS entries that must
 * outlive `out`) and its contiguous byte count. */
void cli_bundled_tensor(const etk_tensor_t *t, const void *data, int32_t *sizes,
                        etk_tensor_data_t *out);

/* Copies output i of `m`, which must be a tensor, into *copy (malloc'd,
 * freed by the caller) and describes it as cli_bundled_tensor does. */
int cli_bundled_output(const etk_method_t *m, size_t i, int32_t *sizes,
                       void **copy, etk_tensor_data_t *out, etk_error_t *err);

/* Wall times of the runs of `etkit run` (benchmark_model's habit: warm-up
 * runs first, then median, min, max and standard deviation). */
typedef struct cli_timing {
  double *seconds;
  size_t count, capacity;
} cli_timing_t;

/* Room for `capacity` runs; 0 or an error (out of memory). */
int cli_timing_init(cli_timing_t *t, size_t capacity, etk_error_t *err);
void cli_timing_add(cli_timing_t *t, double seconds);
/* "3 runs (+1 warm-up): median 1.23 ms, min 1.1 ms, max 2.5 ms, stddev
 * 0.2 ms" (one unit for all four, picked for the median; the run count
 * and warm-ups only when `warmup` is not 0 or there are several runs). */
void cli_timing_print(FILE *out, const cli_timing_t *t, unsigned long warmup);
void cli_timing_free(cli_timing_t *t);
/* The monotonic clock in seconds. */
double cli_now_seconds(void);

/* Where the inputs of a run come from: test case `case_index` of `bp`,
 * or (bp NULL) the .npy files inputs[0..input_count) or tensors of ones
 * (kept here between runs). */
typedef struct cli_run_source {
  const etk_bundled_program_t *bp;
  uint32_t case_index;
  const char *const *inputs;
  size_t input_count;
  etk_npy_t *npys[CLI_MAX_INPUTS];
  void *ones[CLI_MAX_INPUTS];
} cli_run_source_t;

void cli_run_source_init(cli_run_source_t *src, const etk_bundled_program_t *bp,
                         uint32_t case_index, const char *const *inputs,
                         size_t input_count);
void cli_run_source_free(cli_run_source_t *src);

/* Sets the inputs of `m` from `src` (before every run: kernels may alias
 * them) and runs it once; the wall time goes to `timing` (NULL: not
 * timed, a warm-up).  0 or 1 with `err` set. */
int cli_execute_once(etk_method_t *m, cli_run_source_t *src,
                     cli_timing_t *timing, etk_error_t *err);

/* Writes every output of `m` into `dir` (created if missing) as
 * "<prefix>output_<i>.npy".  0 or 1 with `err` set. */
int cli_write_outputs(const etk_method_t *m, const char *dir,
                      const char *prefix, etk_error_t *err);

/* Loads `path`: a bundled program (*bp set, *prog its program) or a
 * program (*prog set, *bp NULL).  0 or 1 with `err` naming the file. */
int cli_program_open(const char *path, etk_program_t **prog,
                     etk_bundled_program_t **bp, etk_error_t *err);
void cli_program_close(etk_program_t *prog, etk_bundled_program_t *bp);

/* The debug buffer next to an ETDump: "run.etdp" -> "run.debug.bin".
 * 0, or 1 when it does not fit in out[0..size). */
int cli_debug_path_for(const char *etdump, char *out, size_t size);

/* A --max-memory value: a positive byte count with an optional binary
 * suffix K, M, G or T ("512M", "2G").  0 on bad input. */
int cli_parse_memory_limit(const char *s, uint64_t *out);

/* Creates `dir` (and parents) if missing. */
int cli_make_dir(const char *dir, etk_error_t *err);

#endif
