/*
 * run_flight.h - `etkit run`'s flight-recorder options (--profile-mode
 * ring, --keep-runs, --trigger, --keep-after, --trigger-limit,
 * --trigger-spacing, --snapshot-dir) and the flight recorder a traced run
 * drives (etkit/trigger.h): one etk_flight_run_end per execution,
 * snapshots written as DIR/snapshot-NNN.etdp.
 */
#ifndef ETKIT_CLI_RUN_FLIGHT_H
#define ETKIT_CLI_RUN_FLIGHT_H

#include <stddef.h>

#include "cli_args.h"
#include "etkit/common.h"
#include "etkit/sketch.h"
#include "etkit/trigger.h"

typedef struct cli_flight_options {
  int ring;           /* --profile-mode ring */
  int stats;          /* --profile-mode stats */
  double stats_error; /* --stats-error (0: the default 1%) */
  unsigned long keep_runs, keep_after, trigger_limit, trigger_spacing;
  int keep_runs_given;
  const char *snapshot_dir;
  const char *triggers[ETK_FLIGHT_MAX_TRIGGERS];
  size_t trigger_count;
} cli_flight_options_t;

/* Option ids (above every command's own) and the table rows. */
enum {
  CLI_FLIGHT_OPT_MODE = 900,
  CLI_FLIGHT_OPT_KEEP_RUNS,
  CLI_FLIGHT_OPT_TRIGGER,
  CLI_FLIGHT_OPT_KEEP_AFTER,
  CLI_FLIGHT_OPT_LIMIT,
  CLI_FLIGHT_OPT_SPACING,
  CLI_FLIGHT_OPT_SNAPSHOT_DIR,
  CLI_FLIGHT_OPT_STATS_ERROR
};
#define CLI_FLIGHT_OPTIONS                                                  \
  {"profile_mode", 0, ETK_CLI_VALUE, CLI_FLIGHT_OPT_MODE, 0},               \
      {"keep_runs", 0, ETK_CLI_VALUE, CLI_FLIGHT_OPT_KEEP_RUNS, 0},         \
      {"trigger", 0, ETK_CLI_VALUE, CLI_FLIGHT_OPT_TRIGGER, 0},             \
      {"keep_after", 0, ETK_CLI_VALUE, CLI_FLIGHT_OPT_KEEP_AFTER, 0},       \
      {"trigger_limit", 0, ETK_CLI_VALUE, CLI_FLIGHT_OPT_LIMIT, 0},         \
      {"trigger_spacing", 0, ETK_CLI_VALUE, CLI_FLIGHT_OPT_SPACING, 0},     \
      {"snapshot_dir", 0, ETK_CLI_VALUE, CLI_FLIGHT_OPT_SNAPSHOT_DIR, 0}, { \
    "stats_error", 0, ETK_CLI_VALUE, CLI_FLIGHT_OPT_STATS_ERROR, 0          \
  }
#define CLI_FLIGHT_USAGE                                                  \
  "  --profile-mode M       full (default) | ring: keep the newest\n"     \
  "                         --keep-runs runs only (docs/triggers.md) |\n" \
  "                         stats: a latency sketch per event, fixed\n"   \
  "                         size for any run count (docs/long-runs.md)\n" \
  "  --stats-error E        stats mode's relative error, 0.0001 to 0.2\n" \
  "                         (default 0.01; a smaller E spans fewer\n"     \
  "                         decades before the bound doubles)\n"          \
  "  --keep-runs K          runs a ring keeps (default 8)\n"              \
  "  --trigger EXPR         snapshot when EXPR holds (repeatable):\n"     \
  "                         'NAME>2ms', 'NAME>3*p99', nan, mismatch\n"    \
  "  --keep-after M         runs recorded after a trigger (default 0)\n"  \
  "  --trigger-limit N      most snapshots (default: no limit)\n"         \
  "  --trigger-spacing R    least runs between two triggers\n"            \
  "  --snapshot-dir DIR     where snapshots go (snapshot-NNN.etdp)\n"

/* One option of the table above: 0 or an exit status (2, message
 * printed).  `id` outside the range: 0, nothing done. */
int cli_flight_option(const char *cmd, cli_flight_options_t *o, int id,
                      const char *arg, const char *value);

/* Checks between the options once all are parsed: 0 or 2. */
int cli_flight_check(const char *cmd, const cli_flight_options_t *o,
                     int have_etdump);

/* Checks each trigger against the run: nan without a debug level (no
 * value is logged), mismatch without a bundled program, manual (the CLI
 * never calls etk_recorder_trigger) can never fire.  0 or 2. */
int cli_flight_check_kinds(const char *cmd, const cli_flight_options_t *o,
                           int debug_level, int bundled);

/* The trace session's profile level for `level` (ETK_TRACE_PROFILE_*)
 * under these options: stats mode at its error, else `level`. */
int cli_flight_profile_level(const cli_flight_options_t *o, int level);

/* 1 when the options ask for a recorder (ring mode or a trigger). */
int cli_flight_wanted(const cli_flight_options_t *o);

/* Runs a recorder needs room for: all of them, or a ring's K + M + 2. */
unsigned long cli_flight_runs(const cli_flight_options_t *o,
                              unsigned long runs);

typedef struct cli_flight {
  etk_flight_t flight;
  etk_sketch_t sketches[ETK_FLIGHT_MAX_TRIGGERS]; /* for p99 triggers */
  int active;
  const char *dir;
  unsigned written;
  int write_failed;
} cli_flight_t;

/* Attaches a flight recorder to `rec` when the options ask for one.  0 or
 * 1 with err set (a p99 trigger without sketches, a recorder too small). */
int cli_flight_start(cli_flight_t *f, const cli_flight_options_t *o,
                     etk_recorder_t *rec, etk_error_t *err);
/* After each execution: 0, or 1 with err set (a snapshot not written). */
int cli_flight_run_end(cli_flight_t *f, etk_error_t *err);
/* A bundled output did not match (fires "mismatch" when asked for). */
void cli_flight_mismatch(cli_flight_t *f);
/* Writes a waiting snapshot and detaches; prints a summary on stderr. */
int cli_flight_finish(cli_flight_t *f, etk_error_t *err);

#endif
