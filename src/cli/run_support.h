/*
 * run_support.h - what `etkit run`, `etkit bundle` and `etkit demo` share:
 * a recorder sized for a method and a number of runs, inputs from .npy
 * files or filled with ones, outputs to .npy files, and a per-operator
 * timing summary of an ETDump.
 */
#ifndef ETKIT_CLI_RUN_SUPPORT_H
#define ETKIT_CLI_RUN_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/program.h"

struct etk_recorder;
struct etk_method;

/* A host recorder with its arena and debug buffer. */
typedef struct cli_recorder {
  struct etk_recorder *rec;
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
int cli_set_input(struct etk_method *m, size_t i, const char *path,
                  etk_npy_t **keep, void **ones, etk_error_t *err);

/* Writes output i to "<dir>/<prefix>output_<i>.npy". */
int cli_write_output(const struct etk_method *m, size_t i, const char *dir,
                     const char *prefix, etk_error_t *err);

/* Prints "FLOAT [2, 2] = [5, 8, 11, 14]" (at most `max_values` values). */
void cli_print_value(FILE *out, const struct etk_method *m, size_t output,
                     size_t max_values);

/* Creates `dir` (and parents) if missing. */
int cli_make_dir(const char *dir, etk_error_t *err);

/* Prints a per-operator summary of the ETDump bytes: for each event name
 * of the Execute blocks (operator calls by native_call name, delegate
 * calls and delegate events), count, mean/min/max duration in the raw
 * ticks' unit.  Returns ETK_OK or the verifier's error. */
int cli_print_etdump_summary(FILE *out, const uint8_t *etdp, size_t len,
                             const char *tick_unit);

/* The inspector's per-operator summary table of an ETDump file (upstream
 * Inspector columns, times in microseconds), written to `out`. */
int cli_print_inspector_summary(FILE *out, const char *etdump_path,
                                const char *debug_path, etk_error_t *err);

#endif
