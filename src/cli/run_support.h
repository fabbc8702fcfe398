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

/* A host recorder with its arena and debug buffer. */
typedef struct cli_recorder {
  etk_recorder_t *rec;
  void *arena;
  uint8_t *debug_buffer;
  size_t debug_capacity;
} cli_recorder_t;

/* Debug levels and profiling levels as the CLI spells them. */
enum { CLI_DEBUG_NONE = 0, CLI_DEBUG_OUTPUTS = 1, CLI_DEBUG_INTERMEDIATES = 2 };
enum { CLI_PROFILE_METHOD = 0, CLI_PROFILE_ALL = 1 };

/* Creates a recorder big enough for `runs` executions of `plan` (plus its
 * load) at the given levels; with want_debug a debug buffer is attached,
 * sized for every tensor those runs log.  Returns ETK_OK or an error. */
int cli_recorder_create(const etk_program_plan_t *plan, unsigned runs,
                        int debug_level, int profile_level, int want_debug,
                        cli_recorder_t *out, etk_error_t *err);

/* Finishes the dump and writes it to etdump_path (if non-NULL) and the
 * used debug bytes to debug_path (if non-NULL).  *dropped (optional)
 * receives the recorder's dropped-event count. */
int cli_recorder_write(cli_recorder_t *r, const char *etdump_path,
                       const char *debug_path, uint32_t *dropped,
                       etk_error_t *err);
void cli_recorder_free(cli_recorder_t *r);

/* Sets input i from an .npy file (kept alive in *keep, freed by the
 * caller with etk_npy_free), or, when path is NULL, from a buffer of ones
 * (*ones, freed by the caller with free). */
int cli_set_input(etk_method_t *m, size_t i, const char *path, etk_npy_t **keep,
                  void **ones, etk_error_t *err);

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

/* A --max-memory value: a positive byte count with an optional binary
 * suffix K, M, G or T ("512M", "2G").  0 on bad input. */
int cli_parse_memory_limit(const char *s, uint64_t *out);

/* Creates `dir` (and parents) if missing. */
int cli_make_dir(const char *dir, etk_error_t *err);

#endif
