/*
 * run_flight.c - the flight recorder of `etkit run` (run_flight.h): parses
 * and checks the options, attaches etkit/trigger.h's flight recorder to the
 * run's recorder, and writes each snapshot as DIR/snapshot-NNN.etdp
 * (atomically: a temp name renamed) the moment it is taken.
 */
#include "run_flight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/method.h"

#include "run_support.h"

int cli_flight_option(const char *cmd, cli_flight_options_t *o, int id,
                      const char *arg, const char *value) {
  size_t n;
  switch (id) {
    case CLI_FLIGHT_OPT_MODE:
      o->ring = strcmp(value, "ring") == 0;
      o->stats = strcmp(value, "stats") == 0;
      if (!o->ring && !o->stats && strcmp(value, "full") != 0)
        return etk_cli_usage(cmd,
                             "invalid profile mode '%s' (choose from full, "
                             "ring, stats)",
                             value);
      return 0;
    case CLI_FLIGHT_OPT_STATS_ERROR: {
      char *end = NULL;
      double e = strtod(value, &end);
      if (end == value || *end != 0 || !(e >= ETK_SKETCH_MIN_RELATIVE_ERROR) ||
          !(e <= ETK_SKETCH_MAX_RELATIVE_ERROR))
        return etk_cli_usage(cmd,
                             "--stats-error needs a relative error from %g "
                             "to %g, not '%s'",
                             ETK_SKETCH_MIN_RELATIVE_ERROR,
                             ETK_SKETCH_MAX_RELATIVE_ERROR, value);
      o->stats_error = e;
      return 0;
    }
    case CLI_FLIGHT_OPT_TRIGGER: {
      etk_trigger_t t;
      const char *why = NULL;
      if (o->trigger_count == ETK_FLIGHT_MAX_TRIGGERS)
        return etk_cli_usage(cmd, "at most %d --trigger options",
                             ETK_FLIGHT_MAX_TRIGGERS);
      if (etk_trigger_parse(value, &t, &why) != ETK_OK)
        return etk_cli_usage(cmd, "bad --trigger '%s': %s", value,
                             why ? why : "not understood");
      o->triggers[o->trigger_count++] = value;
      return 0;
    }
    case CLI_FLIGHT_OPT_SNAPSHOT_DIR:
      o->snapshot_dir = value;
      return 0;
    case CLI_FLIGHT_OPT_KEEP_RUNS:
    case CLI_FLIGHT_OPT_KEEP_AFTER:
    case CLI_FLIGHT_OPT_LIMIT:
    case CLI_FLIGHT_OPT_SPACING: {
      unsigned long *field = id == CLI_FLIGHT_OPT_KEEP_RUNS    ? &o->keep_runs
                             : id == CLI_FLIGHT_OPT_KEEP_AFTER ? &o->keep_after
                             : id == CLI_FLIGHT_OPT_LIMIT ? &o->trigger_limit
                                                          : &o->trigger_spacing;
      if (!etk_cli_parse_size(value, &n) || n > 1000000 ||
          (n == 0 && id == CLI_FLIGHT_OPT_KEEP_RUNS))
        return etk_cli_usage(cmd,
                             "%s needs a count from %d to 1000000, not '%s'",
                             arg, id == CLI_FLIGHT_OPT_KEEP_RUNS, value);
      *field = (unsigned long)n;
      if (id == CLI_FLIGHT_OPT_KEEP_RUNS) o->keep_runs_given = 1;
      return 0;
    }
  }
  return 0;
}

int cli_flight_wanted(const cli_flight_options_t *o) {
  return o->ring || o->trigger_count != 0;
}

int cli_flight_profile_level(const cli_flight_options_t *o, int level) {
  if (!o->stats) return level;
  return o->stats_error > 0
             ? ETK_TRACE_PROFILE_STATS_AT(o->stats_error * 1e6 + 0.5)
             : ETK_TRACE_PROFILE_STATS;
}

int cli_flight_check(const char *cmd, const cli_flight_options_t *o,
                     int have_etdump) {
  if (o->stats_error > 0 && !o->stats)
    return etk_cli_usage(cmd, "%s", "--stats-error needs --profile-mode stats");
  if (o->stats && o->trigger_count)
    return etk_cli_usage(cmd, "%s",
                         "--profile-mode stats keeps no runs to snapshot: "
                         "drop --trigger (or use --profile-mode ring)");
  if (o->stats && !have_etdump)
    return etk_cli_usage(cmd, "%s", "--profile-mode stats needs --etdump FILE");
  if (o->keep_runs_given && !o->ring)
    return etk_cli_usage(cmd, "%s", "--keep-runs needs --profile-mode ring");
  if (o->trigger_count && !o->snapshot_dir)
    return etk_cli_usage(cmd, "%s",
                         "--trigger needs --snapshot-dir DIR (where the "
                         "snapshots go)");
  if (!o->trigger_count && (o->snapshot_dir || o->keep_after ||
                            o->trigger_limit || o->trigger_spacing))
    return etk_cli_usage(cmd, "%s",
                         "--snapshot-dir, --keep-after, --trigger-limit and "
                         "--trigger-spacing need a --trigger");
  if (o->ring && !have_etdump && !o->trigger_count)
    return etk_cli_usage(cmd, "%s",
                         "--profile-mode ring needs --etdump FILE or a "
                         "--trigger");
  return 0;
}

int cli_flight_check_kinds(const char *cmd, const cli_flight_options_t *o,
                           int debug_level, int bundled) {
  for (size_t i = 0; i < o->trigger_count; i++) {
    etk_trigger_t t;
    if (etk_trigger_parse(o->triggers[i], &t, NULL) != ETK_OK) continue;
    if (t.kind == ETK_TRIGGER_NAN && debug_level == CLI_DEBUG_NONE)
      return etk_cli_usage(cmd, "%s",
                           "--trigger nan needs --debug-level outputs, "
                           "intermediates or stats (without one no value "
                           "is logged)");
    if (t.kind == ETK_TRIGGER_MISMATCH && !bundled)
      return etk_cli_usage(cmd, "%s",
                           "--trigger mismatch needs a bundled program "
                           "(.bpte): its expected outputs");
    if (t.kind == ETK_TRIGGER_MANUAL)
      return etk_cli_usage(cmd, "%s",
                           "--trigger manual is for programs that call "
                           "etk_recorder_trigger (C API): etkit run never "
                           "does");
  }
  return 0;
}

unsigned long cli_flight_runs(const cli_flight_options_t *o,
                              unsigned long runs) {
  unsigned long k = o->keep_runs ? o->keep_runs : 8;
  if (!o->ring) return runs;
  k += o->keep_after + 2;
  return k < runs ? k : runs;
}

static int write_snapshot(void *ctx, const void *data, size_t len) {
  cli_flight_t *f = ctx;
  char path[4096];
  etk_error_t err;
  etk_error_clear(&err);
  int n =
      snprintf(path, sizeof path, "%s/snapshot-%03u.etdp", f->dir, f->written);
  if (n < 0 || (size_t)n >= sizeof path) return -1;
  if (etk_write_file(path, data, len, &err) != ETK_OK) {
    f->write_failed = 1;
    return -1;
  }
  f->written++;
  fprintf(stderr, "etkit run: snapshot %s\n", path);
  return 0;
}

int cli_flight_start(cli_flight_t *f, const cli_flight_options_t *o,
                     etk_recorder_t *rec, etk_error_t *err) {
  etk_flight_config_t cfg;
  memset(f, 0, sizeof *f);
  if (!cli_flight_wanted(o)) return 0;
  if (o->snapshot_dir && cli_make_dir(o->snapshot_dir, err)) return 1;
  etk_flight_config_init(&cfg);
  cfg.keep_runs = o->ring ? (uint32_t)(o->keep_runs ? o->keep_runs : 8) : 0;
  cfg.keep_after = (uint32_t)o->keep_after;
  cfg.trigger_limit = (uint32_t)o->trigger_limit;
  cfg.trigger_spacing = (uint32_t)o->trigger_spacing;
  cfg.write = write_snapshot;
  cfg.write_ctx = f;
  cfg.sketches = f->sketches;
  cfg.sketch_count = ETK_FLIGHT_MAX_TRIGGERS;
  f->dir = o->snapshot_dir;
  int rc = etk_flight_init(&f->flight, rec, &cfg);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "cannot start the flight recorder: %s",
                         etk_strerror(rc)) != 0;
  for (size_t i = 0; i < o->trigger_count; i++) {
    etk_trigger_t t;
    (void)etk_trigger_parse(o->triggers[i], &t, NULL);
    rc = etk_flight_add_trigger(&f->flight, &t);
    if (rc != ETK_OK) {
      (void)etk_flight_finish(&f->flight);
      return etk_error_set(err, rc, ETK_NO_OFFSET, "--trigger '%s': %s",
                           o->triggers[i], etk_strerror(rc)) != 0;
    }
  }
  f->active = 1;
  return 0;
}

int cli_flight_run_end(cli_flight_t *f, etk_error_t *err) {
  if (!f || !f->active) return 0;
  int rc = etk_flight_run_end(&f->flight);
  if (rc != ETK_OK)
    return etk_error_set(
               err, rc, ETK_NO_OFFSET, "a snapshot could not be %s: %s",
               f->write_failed ? "written" : "taken", etk_strerror(rc)) != 0;
  return 0;
}

void cli_flight_mismatch(cli_flight_t *f) {
  if (f && f->active) (void)etk_flight_fire(&f->flight, "mismatch");
}

/* Warns about each duration trigger whose pattern matched none of the
 * names the run recorded: such a trigger can never fire (a typo, or an
 * operator named as in the graph, aten.*, where the runtime's events are
 * native_call_*). */
static void warn_unmatched(const etk_flight_t *fl) {
  for (uint32_t i = 0; i < fl->trigger_count; i++) {
    const etk_trigger_t *t = &fl->triggers[i];
    char pattern[ETK_TRIGGER_TEXT_BYTES];
    const char *name;
    int matched = 0;
    if (t->kind != ETK_TRIGGER_DURATION && t->kind != ETK_TRIGGER_P99) continue;
    memcpy(pattern, t->text, t->pattern_len);
    pattern[t->pattern_len] = 0;
    for (etk_recorder_name_t id = 1;
         !matched && (name = etk_recorder_name_string(fl->rec, id, NULL)); id++)
      matched = etk_glob_match(pattern, name);
    if (!matched)
      fprintf(stderr,
              "etkit run: warning: --trigger '%s' matched no event of the "
              "run (event names: etkit inspect of an --etdump)\n",
              t->text);
  }
}

int cli_flight_finish(cli_flight_t *f, etk_error_t *err) {
  if (!f || !f->active) return 0;
  warn_unmatched(&f->flight);
  uint32_t suppressed = f->flight.suppressed;
  uint64_t runs = f->flight.runs;
  int rc = etk_flight_finish(&f->flight);
  f->active = 0;
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "a snapshot could not be written: %s",
                         etk_strerror(rc)) != 0;
  if (f->dir)
    fprintf(stderr,
            "etkit run: %u snapshot%s in %s (%llu run%s watched, %u "
            "trigger%s not taken: limit, spacing or keep-after)\n",
            f->written, f->written == 1 ? "" : "s", f->dir,
            (unsigned long long)runs, runs == 1 ? "" : "s", suppressed,
            suppressed == 1 ? "" : "s");
  return 0;
}
