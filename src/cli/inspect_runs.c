/*
 * inspect_runs.c - `etkit inspect --runs [--prompt-tokens N]`: the per-run
 * series of every block (etk_run_series_build / _render of
 * etkit/run_series.h), in the --format of inspect, written atomically.
 */
#include <stdio.h>

#include "cli_args.h"
#include "cmd_inspect_args.h"
#include "commands.h"
#include "etkit/latency_dump.h"
#include "etkit/run_series.h"

typedef struct runs_out {
  const etk_run_series_t *series;
  etk_inspect_format_t format;
} runs_out_t;

static int render_runs(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  const runs_out_t *o = ctx;
  return etk_run_series_render(o->series, o->format, sink, err);
}

int cli_inspect_runs(const cli_t *c, const etk_inspector_t *insp) {
  etk_run_series_options_t opt = {0};
  if (c->prompt_tokens &&
      (!etk_cli_parse_size(c->prompt_tokens, &opt.prompt_tokens) ||
       opt.prompt_tokens == 0))
    return etk_cli_usage(CMD, "--prompt-tokens needs a count > 0, not '%s'",
                         c->prompt_tokens);
  if (etk_latency_dump_find(etk_inspector_etdump(insp), NULL))
    return etk_cli_fail(CMD,
                        "--runs: %s is a stats-mode dump (--profile-mode "
                        "stats): it keeps no duration per run; etkit inspect "
                        "shows each key's count and quantiles",
                        c->etdump);
  etk_run_series_t series;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_run_series_build(insp, &opt, &series, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  if (series.count == 0) {
    /* an empty table would pass for "no runs to report" in a script */
    etk_run_series_free(&series);
    return etk_cli_fail(CMD,
                        "--runs: no block of the ETDump has a run with a "
                        "duration (nothing to report)");
  }
  runs_out_t out = {&series, c->ro.format};
  int rc = etk_cli_write_output(c->output ? c->output : "-", render_runs, &out,
                                &err);
  etk_run_series_free(&series);
  if (rc == ETK_OK) etk_cli_say_wrote(CMD, c->output, NULL);
  return rc == ETK_OK ? 0 : etk_cli_fail_error(CMD, &err);
}
