/*
 * inspect_latency.c - `etkit inspect` of a stats-mode ETDump: its latency
 * table (etk_inspector_render_latency) to the output and to --tsv_path,
 * after refusing the options that table does not apply.
 */
#include <stdio.h>

#include "cli_args.h"
#include "cmd_inspect_args.h"
#include "commands.h"
#include "etkit/inspector_core.h"
#include "etkit/render.h"

typedef struct latency_job {
  etk_inspector_t *insp;
  etk_inspector_render_options_t ro;
} latency_job_t;

static int render_latency(void *ctx, etk_render_sink_t *sink,
                          etk_error_t *err) {
  latency_job_t *job = ctx;
  return etk_inspector_render_latency(job->insp, &job->ro, sink, err);
}

/* The first option the latency table does not apply (it shows every key,
 * in the dump's order, with its fixed columns), or NULL: refused rather
 * than ignored. */
static const char *latency_ignored(const cli_t *c) {
  const etk_inspector_render_options_t *ro = &c->ro;
  if (ro->select_index_count || ro->select_name_count) return "--block";
  if (ro->sort != ETK_INSPECT_SORT_NONE) return "--sort";
  if (ro->reverse) return "--reverse";
  if (ro->top) return "--top";
  if (ro->all_columns) return "--all-columns";
  if (ro->include_delegate_debug_data) return "--include-delegate-debug-data";
  if (c->etrecord) return "--etrecord_path";
  return NULL;
}

int cli_inspect_latency(const cli_t *c, etk_inspector_t *insp) {
  char line[ETK_ERROR_LINE_SIZE];
  etk_error_t err;
  const char *ignored = latency_ignored(c);
  if (ignored)
    return etk_cli_fail("inspect",
                        "%s: a stats-mode dump's latency table does not take "
                        "%s (it shows every key with its count and quantiles)",
                        c->etdump, ignored);
  etk_error_clear(&err);
  latency_job_t job = {insp, c->ro};
  int rc = etk_cli_write_output(c->output ? c->output : "-", render_latency,
                                &job, &err);
  if (rc == ETK_OK && c->tsv_path) {
    job.ro.format = ETK_INSPECT_FORMAT_TSV;
    rc = etk_cli_write_output(c->tsv_path, render_latency, &job, &err);
  }
  if (rc == ETK_OK) return 0;
  return etk_cli_fail("inspect", "%s",
                      etk_error_format(&err, line, sizeof line));
}
