/*
 * cmd_inspect.c - `etkit inspect`: upstream's inspector_cli in C, plus
 * output formats, summaries, sorting and block selection.
 *
 * Upstream flags keep their meaning (devtools/inspector/inspector_cli.py):
 * --etdump_path (required), --etrecord_path, --debug_buffer_path,
 * --source_time_scale / --target_time_scale (ns|us|ms|s|cycles, default ns
 * and ms), --tsv_path (also write save_data_to_tsv's file),
 * --compare_results (text output only, see cmd_numerics.c; --reference
 * FILE.bpte takes the expected outputs of a bundled program instead of the
 * ETRecord's).  With no other flag the output is print_data_tabular's
 * table on stdout.  Flags may be written "--flag value" or "--flag=value",
 * and with dashes instead of underscores.
 *
 * With --etrecord_path every block is linked (etk_etrecord_inspector_link_
 * block) with the method etk_etrecord_block_method() picks for it or the
 * one --method names; the default columns then carry op_types and
 * delegate_backend_name exactly as upstream prints them.  Upstream's
 * accidental rules (forward maps for every block, framework events given
 * instruction 0's handles, substring delegate-id lookup, top graph only)
 * are off unless --upstream-quirks, which also turns on the inspector's
 * quirks.  --by-module, --module-total, --source and --link-columns are
 * etkit views and columns built on the links (docs/inspector.md).
 *
 * The help text, the option table and the checks between options are in
 * cmd_inspect_args.c; this file opens, links, renders and prints.
 *
 * Exit status: 0 success, 1 failure (one line on stderr: "etkit inspect:
 * <what>"), 2 usage error.  With --compare_results the command is a gate
 * (docs/exit-status.md): 0, 1 when --min-snr DB finds an output below DB,
 * 2 on any trouble.  Output files are written atomically.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cmd_inspect_args.h"
#include "commands.h"
#include "etkit/common.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/latency_dump.h"
#include "etkit/render.h"

static int fail_err(const etk_error_t *err) {
  char line[ETK_ERROR_LINE_SIZE];
  return etk_cli_fail("inspect", "%s",
                      etk_error_format(err, line, sizeof line));
}

/* What render_to writes: the table (or the --module-total rows), then the
 * allocation events when asked. */
typedef struct render_job {
  etk_inspector_t *insp;
  const etk_inspector_render_options_t *ro;
  const cli_t *totals;
  int with_allocs;
  etk_render_sink_t *tsv; /* also the TSV of the table's rows, or NULL */
} render_job_t;

static int render_job(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  const render_job_t *job = ctx;
  int rc;
  if (job->totals)
    rc = etk_inspector_render_module_totals(
        job->insp, job->totals->totals, job->totals->total_count,
        cli_inspect_module_match(job->totals), job->ro, sink, err);
  else if (job->tsv)
    rc = etk_inspector_render_with_tsv(job->insp, job->ro, sink, job->tsv, err);
  else
    rc = etk_inspector_render(job->insp, job->ro, sink, err);
  if (rc == ETK_OK && job->with_allocs) {
    etk_inspector_render_options_t ao = *job->ro;
    ao.view = ETK_INSPECT_VIEW_ALLOCATIONS;
    ao.top = 0;
    etk_render_puts(
        sink, "\nallocation events (upstream's Inspector cannot read them):\n");
    rc = etk_inspector_render(job->insp, &ao, sink, err);
  }
  return rc;
}

/* Renders into `path` ("-" = stdout) atomically. */
static int render_to(etk_inspector_t *insp,
                     const etk_inspector_render_options_t *ro,
                     const cli_t *totals, const char *path, int with_allocs,
                     etk_error_t *err) {
  render_job_t job = {insp, ro, totals, with_allocs, NULL};
  return etk_cli_write_output(path, render_job, &job, err);
}

/* --tsv_path beside a table of the same rows and columns: the TSV file is
 * open while the table goes to `path`, and each row the table computes is
 * written to the TSV too (render_job with job->tsv). */
typedef struct tee_job {
  render_job_t table;
  const char *path;
} tee_job_t;

static int tee_tsv(void *ctx, etk_render_sink_t *tsv, etk_error_t *err) {
  tee_job_t *job = ctx;
  job->table.tsv = tsv;
  return etk_cli_write_output(job->path, render_job, &job->table, err);
}

/* Whether the TSV `tsv` has the rows and columns of the table `ro`: then
 * one computation of each row serves both. */
static int tsv_is_table(const etk_inspector_render_options_t *ro,
                        const etk_inspector_render_options_t *tsv,
                        const cli_t *c) {
  return !c->total_count && ro->format == ETK_INSPECT_FORMAT_TABLE &&
         ro->view == tsv->view && ro->all_rows == tsv->all_rows &&
         ro->all_columns == tsv->all_columns && ro->sort == tsv->sort &&
         ro->top == tsv->top && ro->columns == tsv->columns &&
         ro->include_units == tsv->include_units &&
         ro->include_delegate_debug_data == tsv->include_delegate_debug_data &&
         ro->allow_empty == tsv->allow_empty && ro->select_index_count == 0 &&
         ro->select_name_count == 0 && tsv->select_index_count == 0 &&
         tsv->select_name_count == 0;
}

/* Prints a library note or warning as "etkit inspect: warning: ...". */
static void print_note(void *ctx, int is_warning, const char *line) {
  (void)ctx;
  fprintf(stderr, "etkit inspect: %s: %s\n", is_warning ? "warning" : "note",
          line);
}

/* Opens the ETRecord and links every block (etk_etrecord_link_with_policy
 * with the --method choices, --reference-graph and --upstream-quirks). */
static int link_etrecord(const cli_t *c, etk_inspector_t *insp,
                         etk_etrecord_t **rec_out, etk_error_t *err) {
  etk_error_clear(err);
  int rc = etk_etrecord_open_file(c->etrecord, NULL, rec_out, err);
  if (rc != ETK_OK) {
    etk_etrecord_error_where(err, c->etrecord);
    return rc;
  }
  etk_error_clear(err);
  etk_link_policy_t policy;
  etk_link_policy_init(&policy);
  policy.upstream_quirks = c->quirks;
  policy.method_all = c->method_all;
  policy.method_count = c->method_count;
  for (size_t i = 0; i < c->method_count; i++) {
    policy.method_block[i] = c->method_block[i];
    policy.method_name[i] = c->method_name[i];
  }
  policy.record_name = c->etrecord;
  policy.reference_graph = c->reference_graph;
  policy.note = print_note;
  return etk_etrecord_link_with_policy(*rec_out, insp, &policy, NULL, err);
}

/* --min-snr: counts the compared outputs and those below the floor. */
typedef struct snr_gate {
  double min_db;
  size_t compared, below;
} snr_gate_t;

static void gate_block(void *ctx, size_t block, size_t count,
                       const double *values) {
  snr_gate_t *g = ctx;
  (void)block;
  for (size_t i = 0; i < count; i++) {
    double snr = values[ETK_COMPARE_SNR * count + i];
    g->compared++;
    if (!(snr >= g->min_db)) g->below++; /* NaN fails too */
  }
}

/* Prints upstream's compare_results text on stdout. */
static int compare_results(const etk_reference_outputs_t *ref,
                           const etk_inspector_t *insp, const uint8_t *dbuf,
                           size_t dlen, snr_gate_t *gate, etk_error_t *err) {
  etk_render_sink_t *sink = malloc(sizeof *sink);
  if (!sink)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_render_sink_init_file(sink, stdout);
  etk_compare_report_t report = {print_note, gate_block, gate};
  int rc =
      etk_compare_results_inspector(ref, insp, dbuf, dlen, sink, &report, err);
  int frc = etk_render_sink_flush(sink);
  free(sink);
  if (rc == ETK_OK && frc != ETK_OK)
    rc = etk_error_set(err, frc, ETK_NO_OFFSET, "writing to stdout failed");
  return rc;
}

/* --module-total: a name that matches no module gets a warning (its row
 * says 0 events, as upstream's 0.0); when no name matches anything the
 * query compared nothing, which is an error (1). */
static int check_module_totals(const cli_t *c, etk_inspector_t *insp) {
  static const char *const how[] = {"whose module stack contains",
                                    "whose module stack has the path",
                                    "in a module named"};
  etk_inspector_module_match_t match = cli_inspect_module_match(c);
  size_t matched = 0;
  for (size_t i = 0; i < c->total_count; i++) {
    double total;
    size_t events = 0;
    if (match == ETK_INSPECTOR_MODULE_VIEW)
      etk_inspector_module_view_total(insp, c->totals[i], &total, &events,
                                      NULL);
    else
      etk_inspector_module_total(insp, c->totals[i], match, &total, &events);
    if (events) {
      matched++;
      continue;
    }
    fprintf(stderr,
            "etkit inspect: %s--module-total %s matched nothing: no timed "
            "operator %s \"%s\"\n",
            c->total_count > 1 ? "warning: " : "", c->totals[i], how[match],
            c->totals[i]);
  }
  if (matched || c->total_count == 1) return matched ? 0 : 1;
  return etk_cli_fail(CMD, "no --module-total name matched a module");
}

/* Everything after the parse; 0 or the exit status of a failure.  Sets
 * *failed when --min-snr's gate fails. */
static int inspect(cli_t *cp, int *failed) {
  cli_t c = *cp;
  /* --compare_results reads program outputs from the debug buffer: refuse
   * before printing anything (upstream would compare zeros) */
  if (c.compare && !c.debug_buffer)
    return etk_cli_usage("inspect", "%s",
                         "--compare_results needs --debug_buffer_path "
                         "(the program outputs are in the debug "
                         "buffer)");
  if (c.compare && !c.reference && !c.etrecord)
    return etk_cli_usage("inspect", "%s",
                         "--compare_results needs reference outputs: "
                         "--etrecord_path (with reference_outputs) or "
                         "--reference FILE.bpte");

  etk_error_t err;
  etk_error_clear(&err);

  uint8_t *dbuf = NULL;
  size_t dlen = 0;
  if (c.debug_buffer) {
    if (etk_read_file(c.debug_buffer, 0, &dbuf, &dlen, &err) != ETK_OK)
      return fail_err(&err);
    if (etk_file_kind_expect(c.debug_buffer, dbuf, dlen, ETK_FILE_DEBUG_BUFFER,
                             &err) != ETK_OK) {
      free(dbuf);
      return fail_err(&err);
    }
    c.opt.debug_buffer = dbuf;
    c.opt.debug_buffer_len = dlen;
  }

  etk_inspector_t *insp;
  int rc;
  if ((rc = etk_inspector_open_path(c.etdump, &c.opt, &insp, &err)) != ETK_OK) {
    free(dbuf);
    if (rc == ETK_E_NOT_FOUND && c.opt.compensate) {
      fprintf(stderr,
              "etkit inspect: %s carries no recorder calibration (etkit run "
              "writes one, upstream's runtime does not): give --event-cost "
              "NS, the cost of one recorded event\n",
              c.etdump);
      return 2;
    }
    return fail_err(&err);
  }
  etk_cli_warn_unused_buffer(CMD, c.debug_buffer, insp, dlen);
  if (c.runs) { /* the per-run series instead of the events table */
    int status = cli_inspect_runs(&c, insp);
    etk_inspector_close(insp);
    free(dbuf);
    return status;
  }
  if (c.ro.view == ETK_INSPECT_VIEW_EVENTS && !c.total_count && !c.compare &&
      etk_latency_dump_find(etk_inspector_etdump(insp), NULL)) {
    /* a stats-mode dump: its sketches instead of one sample per event */
    int status = cli_inspect_latency(&c, insp);
    etk_inspector_close(insp);
    free(dbuf);
    return status;
  }
  etk_etrecord_t *rec = NULL;
  if (c.etrecord && link_etrecord(&c, insp, &rec, &err) != ETK_OK) {
    etk_etrecord_close(rec);
    etk_inspector_close(insp);
    free(dbuf);
    return fail_err(&err);
  }
  etk_reference_outputs_t *ref = NULL;
  if (c.compare) {
    etk_error_t rerr; /* (err may still name the ETDump) */
    etk_error_clear(&rerr);
    if (etk_reference_outputs_open(c.reference, rec, c.etrecord, &ref, &rerr) !=
        ETK_OK) {
      etk_etrecord_close(rec);
      etk_inspector_close(insp);
      free(dbuf);
      return fail_err(&rerr);
    }
  }
  size_t mismatches = etk_inspector_debug_mismatch_count(insp);
  if (mismatches)
    fprintf(stderr,
            "etkit inspect: warning: %zu debug value(s) differ between merged "
            "runs (upstream stops with an AssertionError); showing the first "
            "run's values\n",
            mismatches);

  if (c.total_count && check_module_totals(&c, insp) != 0) {
    etk_reference_outputs_free(ref);
    etk_etrecord_close(rec);
    etk_inspector_close(insp);
    free(dbuf);
    return 1;
  }
  /* Allocation events (which upstream cannot read) are shown after the
   * events table; machine formats get them through --allocations/JSON. */
  int with_allocs = c.ro.format == ETK_INSPECT_FORMAT_TABLE &&
                    c.ro.view == ETK_INSPECT_VIEW_EVENTS &&
                    etk_inspector_allocator_count(insp) > 0;
  etk_inspector_render_options_t tsv;
  etk_inspector_render_options_init(&tsv);
  tsv.format = ETK_INSPECT_FORMAT_TSV;
  tsv.include_units = c.ro.include_units;
  tsv.include_delegate_debug_data = c.ro.include_delegate_debug_data;
  tsv.allow_empty = c.ro.allow_empty;
  const char *out = c.output ? c.output : "-";
  if (c.tsv_path && tsv_is_table(&c.ro, &tsv, &c)) {
    tee_job_t job = {{insp, &c.ro, NULL, with_allocs, NULL}, out};
    rc = etk_cli_write_output(c.tsv_path, tee_tsv, &job, &err);
  } else {
    rc = render_to(insp, &c.ro, c.total_count ? &c : NULL, out, with_allocs,
                   &err);
    if (rc == ETK_OK && c.tsv_path)
      rc = render_to(insp, &tsv, NULL, c.tsv_path, 0, &err);
  }
  if (rc == ETK_OK) {
    etk_cli_say_wrote("inspect", c.output, NULL);
    etk_cli_say_wrote("inspect", c.tsv_path, "TSV of the events table");
  }
  /* upstream's inspector_cli: the table, the TSV, then compare_results */
  snr_gate_t gate = {c.min_snr_db, 0, 0};
  if (rc == ETK_OK && ref)
    rc = compare_results(ref, insp, dbuf, dlen, &gate, &err);
  etk_reference_outputs_free(ref);
  etk_inspector_close(insp);
  etk_etrecord_close(rec);
  free(dbuf);
  if (rc != ETK_OK) return fail_err(&err);
  if (!c.min_snr) return 0;
  if (gate.compared == 0)
    return etk_cli_fail(CMD,
                        "--min-snr compared nothing: no program output "
                        "was compared");
  if (gate.below) {
    fprintf(stderr, "etkit inspect: %zu output(s) have an SNR below %g dB\n",
            gate.below, c.min_snr_db);
    *failed = 1;
  }
  return 0;
}

int etk_cmd_inspect(int argc, char **argv) {
  cli_t c;
  int prc = cli_inspect_parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return c.compare ? ETK_EXIT_TROUBLE : prc;
  int failed = 0;
  int status = inspect(&c, &failed);
  /* --compare_results is a gate: every failure is trouble (2) */
  return c.compare ? etk_cli_gate_exit(status, failed) : status;
}
