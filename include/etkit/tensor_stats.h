/*
 * etkit/tensor_stats.h - upstream's STATS vector of a tensor, in fixed
 * memory (portable C99, no heap, no libm: the square roots are Newton
 * iterations), so the recorder can log 13 numbers instead of a tensor's
 * bytes on a host or a board.
 *
 * The 13 values are those of upstream's devtools/intermediate_output_tap
 * STATS reducer, in its order and with its definitions: the tensor is cast
 * to float32 first, then
 *   min, max            smallest/largest element (NaN if any element is)
 *   mean                sum / n
 *   abs_max, abs_mean   of |x|
 *   std                 sqrt(|E[x^2] - E[x]^2|)  (population, ddof = 0,
 *                       upstream's formula, not a two-pass variance)
 *   rms                 sqrt(E[x^2])
 *   l1_norm, l2_norm    sum |x|, sqrt(sum x^2)
 *   nan_count, inf_count, zero_count
 *   p99_abs             the k-th largest |x|, k = max(1, ceil(n / 100))
 *                       (NaN counts as the largest, as torch.topk has it)
 * Deviation (docs/compatibility.md): sums accumulate in double, where
 * upstream's graph accumulates in float32, so large tensors' means are
 * closer to the exact value than upstream's.
 *
 * p99_abs is exact for every n in fixed memory: |x| of a float32 is
 * ordered like its 31-bit pattern, so a radix selection over four 8-bit
 * digits finds the k-th largest pattern with 256 counters (1 KiB of stack)
 * and four more passes over the data; no top-k heap (k grows with n).
 *
 * An empty tensor gives NaN for every value but the three counts (0).
 */
#ifndef ETKIT_TENSOR_STATS_H
#define ETKIT_TENSOR_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETK_TENSOR_STATS_COUNT 13

/* Name of the event-less RunData a dump recorded at ETK_DEBUG_LEVEL_STATS
 * carries (etkit/recorder.h): every tensor debug value with data in that
 * dump is a STATS vector, DOUBLE, sizes [13], in this order. */
#define ETK_TENSOR_STATS_MARKER                                       \
  "etkit:tensor_stats=min,max,mean,abs_max,abs_mean,std,rms,l1_norm," \
  "l2_norm,nan_count,inf_count,zero_count,p99_abs"

typedef enum etk_tensor_stat {
  ETK_STAT_MIN,
  ETK_STAT_MAX,
  ETK_STAT_MEAN,
  ETK_STAT_ABS_MAX,
  ETK_STAT_ABS_MEAN,
  ETK_STAT_STD,
  ETK_STAT_RMS,
  ETK_STAT_L1_NORM,
  ETK_STAT_L2_NORM,
  ETK_STAT_NAN_COUNT,
  ETK_STAT_INF_COUNT,
  ETK_STAT_ZERO_COUNT,
  ETK_STAT_P99_ABS
} etk_tensor_stat_t;

/* Upstream's field name of stat i ("min", ..., "p99_abs"); NULL when i is
 * out of range.  Static strings. */
const char *etk_tensor_stat_name(unsigned i);

/* The STATS vector of `numel` elements of ScalarType `scalar_type` (etkit's
 * codes: FLOAT, DOUBLE, HALF, BFLOAT16, the integer types and BOOL) at
 * `data` (contiguous, host byte order, any alignment) into out[13].
 * ETK_E_INVALID_ARGUMENT: out NULL, or data NULL with numel > 0;
 * ETK_E_UNSUPPORTED: a type with no single numeric reading (quantized
 * packs, float8).  Cost: five passes over the data, no memory but the
 * stack's 1 KiB. */
etk_status_t etk_tensor_stats_compute(int32_t scalar_type, const void *data,
                                      size_t numel,
                                      double out[ETK_TENSOR_STATS_COUNT]);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_TENSOR_STATS_H */
