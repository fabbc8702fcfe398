/*
 * open.c - opening and closing an Inspector: the top of the library.
 *
 * Opening takes the options (time scales, quirks, debug buffer), builds the
 * event blocks of the dump (event_blocks.c) and keeps the dump, borrowed or
 * owned.  Closing frees the blocks, events, samples, debug entries, links,
 * origins (event_origins.c) and an owned dump.  The accessors of what was
 * opened (the dump, the time scales and their factor) live here too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/compensation.h"
#include "inspector_internal.h"

int insp_build_blocks(etk_inspector_t *insp, etk_error_t *err);

/* ------------------------------------------------------- open / close */

void etk_inspector_close(etk_inspector_t *insp) {
  if (!insp) return;
  free(insp->blocks);
  free(insp->block_runs);
  if (insp->samples != insp->events) free(insp->samples);
  free(insp->events);
  free(insp->debug);
  free(insp->debug_refs);
  free(insp->outputs);
  free(insp->allocs);
  if (insp->links) {
    for (size_t i = 0; i < insp->event_count; i++)
      if (insp->links[i]) {
        free(insp->links[i]->mem);
        free(insp->links[i]);
      }
    free(insp->links);
  }
  insp_origins_free(insp);
  free(insp->scratch);
  free(insp->compensation);
  free(insp->side_compensation);
  free(insp->stats_memo);
  etk_etdump_close(insp->owned_dump);
  free(insp);
}

/* The per-event compensation of options.compensate (compensation.h). */
static int compensation_open(etk_inspector_t *insp, etk_error_t *err) {
  etk_calibration_t cal;
  const etk_inspector_options_t *o = &insp->options;
  int found = etk_calibration_find(insp->dump, &cal);
  if (o->event_cost_ns > 0) {
    double per_ns; /* source ticks per ns */
    int rc = etk_time_scale_factor(o->source_time_scale, ETK_TIME_NS,
                                   o->clock_hz, &per_ns, err);
    if (rc != ETK_OK) return rc;
    memset(&cal, 0, sizeof cal);
    cal.present = 1;
    cal.pair = o->event_cost_ns * per_ns;
  } else if (!found) {
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "the ETDump carries no recorder calibration "
                         "(etkit run writes one; give the cost of an "
                         "event instead)");
  }
  size_t n = etk_etdump_event_count(insp->dump);
  insp->compensation = malloc((n ? n : 1) * sizeof *insp->compensation);
  if (!insp->compensation)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  return etk_compensation_compute(insp->dump, &cal, insp->compensation, err);
}

/* The marker is an event-less RunData; the newest one is looked at first. */
int etk_inspector_dump_in_cycles(const etk_etdump_t *dump) {
  static const char marker[] = "etkit:time_scale=cycles";
  size_t n = etk_etdump_run_count(dump);
  for (size_t k = n; k-- > 0;) {
    etk_etdump_run_t run;
    if (etk_etdump_run_get(dump, k, &run) == ETK_OK && run.name.data &&
        run.name.len == sizeof marker - 1 &&
        !memcmp(run.name.data, marker, sizeof marker - 1))
      return 1;
  }
  return 0;
}

int etk_inspector_open(const etk_etdump_t *dump,
                       const etk_inspector_options_t *options,
                       etk_inspector_t **out, etk_error_t *err) {
  if (!dump || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_inspector_open: NULL argument");
  *out = NULL;
  etk_inspector_t *insp = calloc(1, sizeof *insp);
  if (!insp)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (options)
    insp->options = *options;
  else
    etk_inspector_options_init(&insp->options);
  /* a dump in cycles read with the default scales (ns -> ms) is shown in
   * cycles, as `--source_time_scale cycles --target_time_scale cycles` */
  if (insp->options.source_time_scale == ETK_TIME_NS &&
      insp->options.target_time_scale == ETK_TIME_MS &&
      insp->options.clock_hz <= 0 && etk_inspector_dump_in_cycles(dump))
    insp->options.source_time_scale = insp->options.target_time_scale =
        ETK_TIME_CYCLES;
  insp->dump = dump;
  etk_etdump_columns(dump, &insp->cols);
  for (size_t i = 0; i < insp->cols.count; i++)
    insp->any_flags |= insp->cols.flags[i];
  insp->chain_count = etk_etdump_chain_count(dump);
  insp->chain_zero_index = insp_chain_index(dump, 0);
  int rc = etk_time_scale_factor(insp->options.source_time_scale,
                                 insp->options.target_time_scale,
                                 insp->options.clock_hz, &insp->factor, err);
  /* Upstream inflates every logged tensor from a given debug buffer and
   * raises when one does not fit: a truncated or mismatched buffer. */
  if (rc == ETK_OK && insp->options.debug_buffer)
    rc = etk_etdump_check_debug_buffer(dump, insp->options.debug_buffer,
                                       insp->options.debug_buffer_len, err);
  if (rc == ETK_OK && insp->options.compensate)
    rc = compensation_open(insp, err);
  if (rc == ETK_OK) rc = insp_build_blocks(insp, err);
  if (rc != ETK_OK) {
    etk_inspector_close(insp);
    return rc;
  }
  *out = insp;
  return ETK_OK;
}

static int open_owned(etk_etdump_t *dump, const etk_inspector_options_t *o,
                      etk_inspector_t **out, etk_error_t *err) {
  int rc = etk_inspector_open(dump, o, out, err);
  if (rc != ETK_OK) {
    etk_etdump_close(dump);
    return rc;
  }
  (*out)->owned_dump = dump;
  return ETK_OK;
}

int etk_inspector_open_path(const char *path, const etk_inspector_options_t *o,
                            etk_inspector_t **out, etk_error_t *err) {
  if (out) *out = NULL;
  etk_etdump_t *dump;
  int rc = etk_etdump_open_path(path, o ? &o->etdump : NULL, &dump, err);
  if (rc != ETK_OK) return rc;
  return open_owned(dump, o, out, err);
}

int etk_inspector_open_memory(const void *data, size_t len,
                              const etk_inspector_options_t *o,
                              etk_inspector_t **out, etk_error_t *err) {
  if (out) *out = NULL;
  etk_etdump_t *dump;
  int rc = etk_etdump_open_memory(data, len, o ? &o->etdump : NULL, &dump, err);
  if (rc != ETK_OK) return rc;
  return open_owned(dump, o, out, err);
}

const etk_etdump_t *etk_inspector_etdump(const etk_inspector_t *insp) {
  return insp ? insp->dump : NULL;
}
etk_time_scale_t etk_inspector_target_time_scale(const etk_inspector_t *insp) {
  return insp ? insp->options.target_time_scale : ETK_TIME_MS;
}
etk_time_scale_t etk_inspector_source_time_scale(const etk_inspector_t *insp) {
  return insp ? insp->options.source_time_scale : ETK_TIME_NS;
}
double etk_inspector_scale_factor(const etk_inspector_t *insp) {
  return insp ? insp->factor : 0;
}
