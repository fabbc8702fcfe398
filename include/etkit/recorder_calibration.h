/*
 * etkit/recorder_calibration.h - the recorder measures its own cost on the
 * target, and writes the figures into the dump so that a reader can take
 * them back out of the times it recorded (etkit inspect --compensate).
 *
 * Portable C99, no heap, no OS: part of the recorder (src/recorder/).
 *
 * WHAT IS MEASURED (medians over `repetitions` batches, clock ticks x 1000)
 *   pair        a begin_op + end_op pair of a named operator event, as the
 *               event around it sees it: what one recorded event adds to
 *               the duration of every event that contains it;
 *   inner       the duration an empty event records for itself (the part
 *               of the pair between its two clock reads);
 *   clock       one read of the recorder's clock hook;
 *   tensor      a tensor log (etk_recorder_log_value of one BYTE tensor
 *               into a buffer sink): the fixed part ...
 *   tensor_kib  ... and the part per 1024 bytes of tensor data;
 *   skipped     an operator event's begin_op/end_op when the profiling
 *               level skips it (ETK_PROFILING_METHOD_ONLY): what a
 *               method-level run still spends per hook.
 * The measurement runs on a scratch recorder placed in caller memory or in
 * the arena's free space, with the recorder's own clock hook; the
 * recorder's records and settings are not touched.  First it reads and
 * writes back one byte of every 4 KiB of what recording will write (the
 * arena past the records, a debug buffer's free part): a host maps those
 * pages then, not at a record (a first-touch fault per 128 records, which
 * no measurement on scratch sees); the bytes are unchanged.
 *
 * IN THE DUMP
 *   finish writes, after the blocks and before the dropped-events marker,
 *   a RunData with no events named
 *     "etkit:calibration=pair=P,inner=I,clock=C,tensor=T,tensor_kib=K,
 *      skipped=S,reps=N[,adjacent=1]"
 *   (values in ticks with three decimals; adjacent=1 when the runtime said
 *   so: adjacent_wrappers below).  Upstream's Inspector skips runs
 *   without events, as it does the dropped-events marker; etkit's readers
 *   parse it (etkit/compensation.h).  It costs at most
 *   ETK_RECORDER_CALIBRATION_BYTES of arena (or output buffer) on top of
 *   etk_recorder_estimate_size().
 *
 * EXAMPLE
 *   etk_recorder_calibration_t cal;
 *   if (etk_recorder_calibrate(rec, NULL, 0, 0, &cal) == ETK_OK)
 *     ...;   // every later finish carries the figures
 */
#ifndef ETKIT_RECORDER_CALIBRATION_H
#define ETKIT_RECORDER_CALIBRATION_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Arena (or separate output) bytes a calibration adds to a dump, at most. */
#define ETK_RECORDER_CALIBRATION_BYTES 256u
/* Batches measured when etk_recorder_calibrate is given 0 repetitions. */
#define ETK_RECORDER_CALIBRATION_DEFAULT_REPS 31u
/* Most repetitions etk_recorder_calibrate accepts. */
#define ETK_RECORDER_CALIBRATION_MAX_REPS 1001u
/* Largest value (milli-ticks) a calibration stores; larger ones are
 * clamped (10^15: a figure of 10^12 ticks). */
#define ETK_RECORDER_CALIBRATION_MAX_VALUE 999999999999999ull

/* The figures, in clock ticks x 1000 ("milli-ticks"). */
typedef struct etk_recorder_calibration {
  uint64_t pair_mt;       /* one begin+end pair, seen from outside */
  uint64_t inner_mt;      /* an empty event's own duration */
  uint64_t clock_mt;      /* one clock read */
  uint64_t tensor_mt;     /* a tensor log, fixed part */
  uint64_t tensor_kib_mt; /* a tensor log, per 1024 bytes */
  uint64_t skipped_mt;    /* one event's hooks when the profiling level
                           * skips them (a method-level run) */
  uint32_t repetitions;   /* batches behind each median */
  /* Set by a runtime whose every OPERATOR_CALL holds exactly one event
   * that begins right after it and ends right before it, with none of the
   * runtime's own work between (etkit's executor: etk_method_calibrate):
   * then each kernel call of a run measures a pair where it happens (the
   * two gaps between the wrapper's and the kernel event's times), and a
   * reader may take each run's own pair (etkit/compensation.h).  0 for
   * etk_recorder_calibrate. */
  uint32_t adjacent_wrappers;
} etk_recorder_calibration_t;

/* Scratch bytes etk_recorder_calibrate needs for `repetitions` (0 = the
 * default) batches: a scratch recorder, a tensor sink and the samples. */
size_t etk_recorder_calibration_scratch_size(uint32_t repetitions);

/* Measures the recorder's costs (see WHAT IS MEASURED) and stores them
 * like etk_recorder_set_calibration.  `scratch` (8-aligned is best) holds
 * the scratch recorder; NULL uses the arena's free space, which must then
 * be at least etk_recorder_calibration_scratch_size() beyond what is
 * reserved.  `out` (optional) receives the figures.  Call it outside a
 * measured run (it records nothing, but it takes time: about 30 x
 * repetitions begin/end pairs, clock reads and tensor logs, and a page
 * fault per 4 KiB of a fresh arena).
 * Errors: ETK_E_INVALID_ARGUMENT (NULL rec, repetitions above
 * ETK_RECORDER_CALIBRATION_MAX_REPS), ETK_E_INVALID_STATE (from a data
 * sink's write callback), ETK_E_NO_MEMORY (scratch too small), ETK_E_FULL
 * (no room left to reserve the marker). */
int etk_recorder_calibrate(etk_recorder_t *rec, void *scratch,
                           size_t scratch_size, uint32_t repetitions,
                           etk_recorder_calibration_t *out);

/* Stores figures measured elsewhere (or replaces earlier ones): every
 * later finish writes the calibration marker.  The first call reserves the
 * marker's output (ETK_E_FULL when it does not fit; nothing changes).
 * Values above ETK_RECORDER_CALIBRATION_MAX_VALUE are clamped.  Errors:
 * ETK_E_INVALID_ARGUMENT (NULL), ETK_E_INVALID_STATE (from a data sink's
 * write callback), ETK_E_FULL. */
int etk_recorder_set_calibration(etk_recorder_t *rec,
                                 const etk_recorder_calibration_t *cal);

/* 1 and *out filled when the recorder holds a calibration, else 0. */
int etk_recorder_get_calibration(const etk_recorder_t *rec,
                                 etk_recorder_calibration_t *out);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_RECORDER_CALIBRATION_H */
