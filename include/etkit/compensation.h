/*
 * etkit/compensation.h - the recorder's own cost, read back from a dump and
 * taken out of the times it recorded (part of the inspector library).
 *
 * A recorded event costs time inside every event that contains it: a run
 * traced at operator level shows a longer Method::execute than a run that
 * records only Method::execute.  etkit's recorder measures that cost on the
 * target (etkit/recorder_calibration.h) and writes it as an event-less
 * RunData "etkit:calibration=pair=P,inner=I,clock=C,tensor=T,tensor_kib=K,
 * skipped=S,reps=N[,adjacent=1]" (ticks); upstream's Inspector skips it.
 *
 * COMPENSATION
 *   The compensated duration of a profile event E is its recorded duration
 *   less the cost of every event recorded inside it, in the same run:
 *     E.compensated = E.raw - sum over profile events D inside E of
 *                               (pair - skipped)
 *                           - sum over debug events V inside E of
 *                               tensor + tensor_kib * bytes(V) / 1024
 *   so it is what a run recording E alone would show: E's own clock reads
 *   stay in, and so do the runtime's hooks, which such a run still calls
 *   and skips (`skipped`, 0 when the marker has none).  "Inside" is time
 * containment: D.start >= E.start and D.end <= E.end (equal intervals: the one
 *   recorded later, the parent in end order, contains the other).  A debug
 *   event has no time: it is placed at the end of the last profile event
 *   recorded before it in its run (or at the run's earliest start when
 *   none is) and lies inside E when E.start <= t < E.end.  Allocation
 *   events and wrapped (end < start) events cost nothing and contain
 *   nothing.  bytes(V) is prod(sizes) x element size of each logged tensor
 *   with data (a list costs `tensor` per tensor).
 *
 * RUN'S OWN PAIR
 *   A marker with "adjacent=1" (etkit's executor, etk_method_calibrate)
 *   says that each OPERATOR_CALL holds exactly one event, its kernel's,
 *   begun right after it and ended right before it.  The two gaps then
 *   hold one pair's worth of recording, measured where the run paid it:
 *     gap = (kernel.start - call.start) + (call.end - kernel.end)
 *   and `pair` above is, per run, the median gap of its OPERATOR_CALLs
 *   that hold one profile event, when there are at least
 *   ETK_COMPENSATION_MIN_WRAPPERS of them, the marker's pair is at least
 *   ETK_COMPENSATION_MIN_PAIR_TICKS (a clock coarse enough to round a gap
 *   to 0 or 1 keeps the batches' figure) and the median lies within a
 *   factor of 4 of the marker's pair; else the marker's pair.  A host's
 *   recording cost follows its load from one second to the next (docs/
 *   inspector.md); a batch measured before the runs cannot.
 */
#ifndef ETKIT_COMPENSATION_H
#define ETKIT_COMPENSATION_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/etdump.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Least OPERATOR_CALLs of a run that measure its own pair; least marker
 * pair (ticks) for which a gap is fine enough to measure it. */
#define ETK_COMPENSATION_MIN_WRAPPERS 4u
#define ETK_COMPENSATION_MIN_PAIR_TICKS 16.0

/* The figures of a calibration marker, in ticks of the dump's clock. */
typedef struct etk_calibration {
  int present;       /* a marker was found (or the figures were given) */
  uint32_t run;      /* RunData index of the marker */
  double pair;       /* one begin+end pair, seen from the event around it */
  double inner;      /* an empty event's own duration */
  double clock;      /* one clock read */
  double tensor;     /* a tensor log, fixed part */
  double tensor_kib; /* a tensor log, per 1024 bytes */
  double skipped;    /* an event's hooks when the level skips them */
  uint64_t repetitions;
  int adjacent; /* "adjacent=1": each run may measure its own pair (RUN'S
                 * OWN PAIR above) */
} etk_calibration_t;

/* Parses a RunData name; 1 and *out (optional) filled when it is a
 * calibration marker: the prefix "etkit:calibration=", then ",key=value"
 * parts with non-negative decimal values (unknown keys are skipped, so a
 * later recorder may add figures); `pair` is required.  0 otherwise. */
int etk_calibration_parse(const char *name, size_t len, etk_calibration_t *out);

/* The last event-less run of `dump` that is a calibration marker: 1 and
 * *out filled, else 0 (*out zeroed). */
int etk_calibration_find(const etk_etdump_t *dump, etk_calibration_t *out);

/* Ticks to take from each event of `dump` (see COMPENSATION): out[i] for
 * every i < etk_etdump_event_count(dump); 0 for events that contain
 * nothing and for non-profile events.  `cal` must not be NULL (its
 * `present` is not consulted).  Errors: ETK_E_NO_MEMORY,
 * ETK_E_INVALID_ARGUMENT (NULL dump, cal or out with events),
 * ETK_E_UNSUPPORTED for a stats-mode dump (etkit/latency_dump.h: its
 * events are medians, not nested in time). */
int etk_compensation_compute(const etk_etdump_t *dump,
                             const etk_calibration_t *cal, double *out,
                             etk_error_t *err);

/* The pair (ticks, skipped not taken off) that compensation charges each
 * profile event of run r: pairs[r] for every r < etk_etdump_run_count(dump),
 * the run's own (RUN'S OWN PAIR) or the marker's; own[r] (optional) is 1
 * for the former.  Errors as etk_compensation_compute's. */
int etk_compensation_run_pairs(const etk_etdump_t *dump,
                               const etk_calibration_t *cal, double *pairs,
                               uint8_t *own, etk_error_t *err);

/* Over the runs that measured their own pair: how many of how many runs
 * with events, and the lowest, median and highest of those pairs (ticks;
 * 0 when none did). */
typedef struct etk_own_pairs {
  size_t runs; /* runs with events */
  size_t own;  /* of them, those that measured their own pair */
  double min, median, max;
} etk_own_pairs_t;
int etk_compensation_own_pairs(const etk_etdump_t *dump,
                               const etk_calibration_t *cal,
                               etk_own_pairs_t *out, etk_error_t *err);

/* Side by side, for etkit's own views: the average duration of Inspector
 * event `event` over its merged runs, raw (*raw_avg) and compensated
 * (*comp_avg), in the target unit, from options.compensate's figures or
 * else the dump's calibration (computed once, on first use).  Either
 * output may be NULL.  ETK_E_NOT_FOUND when the dump carries no
 * calibration (and the inspector does not compensate) or the event has no
 * durations; ETK_E_INVALID_ARGUMENT for NULL or an index out of range. */
struct etk_inspector;
int etk_inspector_event_compensation(struct etk_inspector *insp, size_t event,
                                     double *raw_avg, double *comp_avg);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_COMPENSATION_H */
