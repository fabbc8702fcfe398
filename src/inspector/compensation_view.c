/*
 * compensation_view.c - what etkit's own views (the summary) need to show
 * raw and compensated times side by side: the per-event compensation of a
 * dump that carries a calibration, computed once per inspector on first
 * use, and an event's mean compensation over its merged runs.
 *
 * Upstream-shaped outputs never call this: without options.compensate
 * they stay exactly upstream's.
 */
#include <stdlib.h>

#include "etkit/compensation.h"
#include "inspector_internal.h"

const double *insp_side_compensation(etk_inspector_t *insp) {
  if (insp->compensation) return insp->compensation;
  if (insp->side_state == 0) {
    etk_calibration_t cal;
    size_t n = etk_etdump_event_count(insp->dump);
    insp->side_state = 1; /* none */
    if (etk_calibration_find(insp->dump, &cal)) {
      insp->side_compensation = malloc((n ? n : 1) * sizeof(double));
      if (insp->side_compensation &&
          etk_compensation_compute(insp->dump, &cal, insp->side_compensation,
                                   NULL) == ETK_OK) {
        insp->side_state = 2;
      } else {
        free(insp->side_compensation);
        insp->side_compensation = NULL;
      }
    }
  }
  return insp->side_compensation;
}

double insp_event_mean_compensation(const etk_inspector_t *insp,
                                    const double *comp, size_t event) {
  if (!comp || !insp_event_has_perf(insp, event)) return 0;
  const insp_block_t *bk = &insp->blocks[insp_block_of(insp, event)];
  const uint64_t s = insp_sample_index(bk, event);
  double sum = 0;
  for (uint32_t j = 0; j < bk->run_count; j++)
    sum += comp[insp_sample(insp, s + j)];
  return bk->run_count ? sum / (double)bk->run_count / insp->factor : 0;
}

int etk_inspector_event_compensation(etk_inspector_t *insp, size_t event,
                                     double *raw_avg, double *comp_avg) {
  if (!insp || event >= insp->event_count) return ETK_E_INVALID_ARGUMENT;
  const double *comp = insp_side_compensation(insp);
  etk_stats_t st;
  if (!comp || etk_inspector_event_stats(insp, event, &st) != ETK_OK)
    return ETK_E_NOT_FOUND;
  double m = insp_event_mean_compensation(insp, comp, event);
  double raw = insp->compensation ? st.avg + m : st.avg;
  if (raw_avg) *raw_avg = raw;
  if (comp_avg) *comp_avg = raw - m;
  return ETK_OK;
}
