/*
 * etkit/trigger.h - the recorder as a flight recorder: keep the newest K
 * runs at operator granularity in a fixed budget, watch every run for a
 * condition (a slow run or operator, a duration far above the on-device
 * p99, a NaN or Inf in a logged value, a host-reported mismatch, a call),
 * and when one holds write a complete ETDump snapshot through a sink.
 *
 * Portable C99, no heap, no OS: part of the recorder library (trigger.c),
 * so an MCU build copies it with the rest.  Everything lives in caller
 * structs (etk_trigger_t, etk_flight_t) that hold no interior pointers.
 *
 * RUNS
 *   A run is an event block (RunData): the reference runtime and
 *   upstream's ExecuTorch begin one per Method::execute.  The caller calls
 *   etk_flight_run_end() after each run; the run just ended is the
 *   recorder's current block.  Runs are numbered from 0, counting the
 *   etk_flight_run_end() calls since etk_flight_init().
 *
 * RING (keep_runs = K > 0)
 *   After each run the oldest blocks are discarded so that the newest K
 *   stay (blocks begun before the flight recorder was attached, such as
 *   the "Default" load block, count as the oldest).  While a trigger waits
 *   for its keep_after runs the runs since the K-1 before it are kept
 *   too, so a snapshot holds K runs up to the triggering one and the M
 *   after it.  Size the arena for K + M + 1 runs.  Discarded runs are not
 *   counted as dropped events (that marker keeps meaning "did not fit").
 *
 * TRIGGERS (etk_trigger_parse; grammar in docs/triggers.md)
 *   NAME>DURATION      an event whose name matches the glob NAME (etk_glob_
 *                      match syntax) lasted more than DURATION (a number with
 *                      ns, us, µs, ms or s): "Method::execute>2ms",
 *                      "aten.convolution*>0.5ms"
 *   NAME>K*p99         more than K times the p99 of the earlier durations of
 *                      the events NAME matches (a latency sketch per trigger,
 *                      etkit/sketch.h; it fires only once min_samples
 *                      durations were seen)
 *   nan                a NaN or Inf in a logged double, or in a FLOAT or
 *                      DOUBLE tensor logged to the recorder's own debug
 *                      buffer (etk_recorder_set_debug_buffer), or, at
 *                      ETK_DEBUG_LEVEL_STATS, a STATS vector whose
 *                      nan_count or inf_count is above 0 (of a tensor of
 *                      any numeric type)
 *   mismatch           fired by the host with etk_flight_fire(f, "mismatch")
 *                      when a bundled output does not match
 *   manual             etk_recorder_trigger() / etk_flight_fire()
 *   A trigger fires at the run whose end finds its condition.  At most
 *   trigger_limit snapshots are taken (0: no limit), two firings are at
 *   least trigger_spacing runs apart, and a firing while another waits for
 *   its keep_after runs is not taken; every firing not taken is counted in
 *   etk_flight_t.suppressed.
 *
 * SNAPSHOTS
 *   keep_after runs after the firing run the recorder's dump is finished
 *   into its usual output space with one more event-less RunData named
 *   "etkit:trigger=run=R,snapshot=S,after=M,value_ns=V,event=E,expr=X"
 *   (upstream's Inspector skips runs without events; docs/compatibility.md)
 *   and handed to the config's write function in one call; then recording
 *   goes on with the ring as it was.  etk_flight_finish() writes a snapshot
 *   still waiting (with after= the runs it got).
 *
 * COST
 *   etk_flight_run_end: one pass over the run's records (a name-match cache
 *   makes the glob match once per name), plus a sketch insert per matching
 *   event for p99 triggers; a snapshot costs one finish and one memmove.
 *   Nothing on the recording hot path.  bench/recorder/bench_trigger.
 */
#ifndef ETKIT_TRIGGER_H
#define ETKIT_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/recorder.h"
#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most triggers one flight recorder evaluates. */
#define ETK_FLIGHT_MAX_TRIGGERS 8
/* Bytes of a trigger's expression text (NUL included). */
#define ETK_TRIGGER_TEXT_BYTES 64
/* Longest snapshot note (the "etkit:trigger=..." RunData name). */
#define ETK_FLIGHT_NOTE_MAX 192
/* Names whose pattern matches are cached (ids below this). */
#define ETK_FLIGHT_NAME_CACHE 256
/* Default durations a p99 trigger needs before it may fire. */
#define ETK_FLIGHT_DEFAULT_MIN_SAMPLES 100

typedef enum etk_trigger_kind {
  ETK_TRIGGER_DURATION = 1, /* NAME>DURATION */
  ETK_TRIGGER_P99 = 2,      /* NAME>K*p99 */
  ETK_TRIGGER_NAN = 3,      /* nan */
  ETK_TRIGGER_MISMATCH = 4, /* mismatch */
  ETK_TRIGGER_MANUAL = 5    /* manual */
} etk_trigger_kind_t;

/* A parsed trigger.  Plain data. */
typedef struct etk_trigger {
  int kind;                          /* etk_trigger_kind_t */
  char text[ETK_TRIGGER_TEXT_BYTES]; /* the expression; pattern = prefix */
  uint32_t pattern_len;              /* glob: text[0..pattern_len) */
  double threshold_ns;               /* DURATION: more than this */
  double factor;                     /* P99: more than factor * p99 */
} etk_trigger_t;

/* Parses `expr` into *out.  Returns ETK_OK, or ETK_E_INVALID_ARGUMENT with
 * *why (optional) set to a static sentence saying what is wrong (NULL
 * expr/out, empty name, bad number or unit, unknown word), ETK_E_LIMIT
 * when the text is longer than ETK_TRIGGER_TEXT_BYTES - 1.  Allocates
 * nothing. */
int etk_trigger_parse(const char *expr, etk_trigger_t *out, const char **why);

/* Settings of a flight recorder (etk_flight_config_init gives defaults). */
typedef struct etk_flight_config {
  uint32_t keep_runs;       /* K: newest runs kept (0: keep everything) */
  uint32_t keep_after;      /* M: runs after a firing before the snapshot */
  uint32_t trigger_limit;   /* most snapshots (0: no limit) */
  uint32_t trigger_spacing; /* least runs between two firings (0, 1: any) */
  uint32_t min_samples;     /* durations a p99 trigger needs first */
  double ticks_per_ns;      /* clock ticks per nanosecond (default 1) */
  etk_write_fn write;       /* snapshot sink (NULL: snapshots are counted
                             * and not written) */
  void *write_ctx;
  void *sketches; /* etk_sketch_t[sketch_count] for p99 triggers (borrowed;
                   * etkit/sketch.h), one per p99 trigger */
  uint32_t sketch_count;
} etk_flight_config_t;

/* The flight recorder.  Fields are readable; change them only through the
 * functions. */
typedef struct etk_flight {
  etk_recorder_t *rec; /* borrowed */
  etk_flight_config_t cfg;
  etk_trigger_t triggers[ETK_FLIGHT_MAX_TRIGGERS];
  uint32_t trigger_count;
  uint32_t p99_count;    /* sketches in use */
  uint64_t runs;         /* runs ended */
  uint32_t snapshots;    /* snapshots taken */
  uint32_t suppressed;   /* firings not taken (limit, spacing, waiting) */
  uint32_t write_errors; /* snapshots whose write failed */
  int pending;           /* a snapshot waits for keep_after runs */
  uint64_t pending_run;  /* the run that fired */
  int fired_before;
  uint64_t last_fire;
  int manual; /* etk_flight_fire() since the last run end */
  char manual_reason[ETK_TRIGGER_TEXT_BYTES];
  uint16_t name_cache[ETK_FLIGHT_NAME_CACHE]; /* bit 15: known */
  uint32_t note_len;
  char note[ETK_FLIGHT_NOTE_MAX];
  uint8_t sketch_of[ETK_FLIGHT_MAX_TRIGGERS];
} etk_flight_t;

/* Defaults: keep everything, no keep-after, no limit, any spacing,
 * ETK_FLIGHT_DEFAULT_MIN_SAMPLES, 1 tick per ns, no sink. */
void etk_flight_config_init(etk_flight_config_t *cfg);

/* Attaches `f` to `rec` (one flight recorder per recorder) and reserves
 * the snapshot note's output in the recorder's budget.  Errors:
 * ETK_E_INVALID_ARGUMENT (NULL, ticks_per_ns <= 0), ETK_E_INVALID_STATE
 * (another flight recorder is attached), ETK_E_NO_MEMORY (the recorder has
 * no room for the note's reservation; nothing changes), ETK_E_UNSUPPORTED
 * (a stats-mode recorder: it keeps no runs to snapshot). */
int etk_flight_init(etk_flight_t *f, etk_recorder_t *rec,
                    const etk_flight_config_t *cfg);

/* Adds a trigger (copied).  A p99 trigger takes the next config sketch
 * and initialises it at 1%.  ETK_E_LIMIT: ETK_FLIGHT_MAX_TRIGGERS reached
 * or no sketch left; ETK_E_INVALID_ARGUMENT: NULL or a bad kind. */
int etk_flight_add_trigger(etk_flight_t *f, const etk_trigger_t *t);

/* After each run: evaluates the run's events against the triggers, takes a
 * firing, writes a snapshot that is due, then discards the oldest runs
 * beyond keep_runs.  Returns ETK_OK, ETK_E_INVALID_ARGUMENT (NULL),
 * ETK_E_IO (a snapshot's write failed; counted in write_errors), or a
 * recorder error from the snapshot's finish. */
int etk_flight_run_end(etk_flight_t *f);

/* Fires the trigger `reason` ("manual", "mismatch", ...) at the run now
 * being recorded (taken at its etk_flight_run_end).  The reason must be a
 * trigger of that kind that was added ("manual" or "mismatch"), else
 * ETK_E_NOT_FOUND (so a host reports mismatches only when asked to). */
int etk_flight_fire(etk_flight_t *f, const char *reason);

/* etk_flight_fire(the recorder's flight recorder, "manual"):
 * ETK_E_INVALID_STATE when none is attached. */
int etk_recorder_trigger(etk_recorder_t *rec);

/* At the end of recording: writes a snapshot that still waits for its
 * keep_after runs and detaches from the recorder (its note reservation
 * stays until the next fresh dump).  Same errors as run_end. */
int etk_flight_finish(etk_flight_t *f);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_TRIGGER_H */
