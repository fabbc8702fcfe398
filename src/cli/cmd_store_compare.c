/*
 * cmd_store_compare.c - `etkit store compare`, `export`, `report`, `drift`
 * and `prune` (the command line is parsed by cmd_store.c).  compare prints the
 * comparison (table, CSV, or JSON with its `changes` array) and is a gate
 * (docs/exit-status.md): 0 holds, 1 with --fail-above PCT when a
 * significant slow-down exceeds PCT %, 2 trouble (a database error, a side
 * that matches no run, an --op that names nothing, a gate that compared
 * no operator).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cmd_store_compare.h"
#include "commands.h"

#define CMD "store"

typedef struct compare_out {
  const store_cli_t *c;
  const etk_store_comparison_t *cmp;
} compare_out_t;

static int render_compare(void *ctx, etk_render_sink_t *sink,
                          etk_error_t *err) {
  const compare_out_t *o = ctx;
  if (o->c->format == ETK_STORE_FORMAT_JSON)
    return etk_store_comparison_json(o->cmp, sink, err);
  etk_store_table_t t;
  /* a terminal's table fits 120 columns (store_cli_fit: the names give up
   * what wide figures take); --wide and CSV keep every column */
  int narrow = o->c->format == ETK_STORE_FORMAT_TABLE && !o->c->wide;
  int rc = narrow ? etk_store_comparison_table_narrow(o->cmp, &t, err)
                  : etk_store_comparison_table(o->cmp, &t, err);
  if (rc == ETK_OK && o->c->format == ETK_STORE_FORMAT_TABLE &&
      (narrow ? store_cli_fit(&t, "compare") : store_cli_readable_units(&t)) !=
          ETK_OK)
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (rc == ETK_OK) rc = etk_store_table_render(&t, o->c->format, sink, err);
  etk_store_table_free(&t);
  return rc;
}

/* Compared operators; framework events (Method::execute, ...) are in the
 * runs of any program, so they alone mean nothing was compared. */
static size_t operators_compared(const etk_store_comparison_t *cmp) {
  size_t n = 0;
  for (size_t i = 0; i < cmp->count; i++) {
    n += !etk_cli_framework_event(cmp->changes[i].name);
  }
  return n;
}

int store_cli_compare(store_cli_t *c) {
  etk_store_t *st = store_cli_open(c, ETK_STORE_READ_ONLY);
  if (!st) return ETK_EXIT_TROUBLE;
  etk_change_rule_t rule;
  etk_change_rule_init(&rule);
  if (c->threshold >= 0) rule.min_pct = c->threshold;
  if (c->alpha > 0) rule.alpha = c->alpha;
  rule.min_delta = c->min_delta;
  etk_store_ops_t ops = {c->op, 0, 0, c->all_rows};
  if (c->instruction) {
    char *end;
    long long id = strtoll(c->instruction, &end, 10);
    if (*end || !c->instruction[0] || id < 0 || id == LLONG_MAX) {
      etk_store_close(st);
      return etk_cli_usage(CMD,
                           "--instruction needs an instruction id, not "
                           "'%.40s'",
                           c->instruction);
    }
    ops.instruction_id = id;
    ops.has_instruction = 1;
  }
  etk_store_where_t base = store_cli_where(&c->baseline);
  etk_store_where_t cand = store_cli_where(&c->candidate);
  etk_store_comparison_t cmp;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_store_compare(st, &base, &cand, &ops, &rule, &cmp, &err);
  if (rc != ETK_OK) {
    etk_store_close(st);
    etk_cli_fail_error(CMD, &err);
    return ETK_EXIT_TROUBLE;
  }
  /* a misspelled --op is trouble, never an empty table that passes */
  int named = cmp.count + cmp.only_baseline + cmp.only_candidate > 0;
  rc = store_cli_check_name(st, c, named);
  etk_store_close(st);
  if (rc) {
    etk_store_comparison_free(&cmp);
    return rc;
  }
  if (c->has_fail_above && operators_compared(&cmp) == 0) {
    etk_store_comparison_free(&cmp);
    etk_cli_fail(CMD,
                 "--fail-above compared nothing: no operator is in both the "
                 "baseline and the candidate runs (another program?)");
    return ETK_EXIT_TROUBLE;
  }
  compare_out_t out = {c, &cmp};
  rc = etk_cli_write_output(c->output ? c->output : "-", render_compare, &out,
                            &err);
  int status = rc == ETK_OK ? 0 : etk_cli_fail_error(CMD, &err);
  if (status == 0)
    etk_cli_say_wrote(CMD, c->output, "%zu compared operator(s)", cmp.count);
  const etk_store_change_t *worst =
      status == 0 && c->has_fail_above
          ? etk_store_comparison_failing(&cmp, c->fail_above)
          : NULL;
  if (worst) {
    fprintf(stderr,
            "etkit store: %s (instruction %lld) is %.1f %% slower [%.1f, "
            "%.1f], above --fail-above %g\n",
            worst->name, (long long)worst->instruction_id, worst->delta_pct,
            worst->ci_low_pct, worst->ci_high_pct, c->fail_above);
  }
  etk_store_comparison_free(&cmp);
  return etk_cli_gate_exit(status, worst != NULL);
}

typedef struct export_out {
  etk_store_t *st;
  etk_store_where_t where;
  etk_store_export_format_t format;
} export_out_t;

static int render_export(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  export_out_t *o = ctx;
  return etk_store_export(o->st, &o->where, o->format, sink, err);
}

int store_cli_export(store_cli_t *c) {
  const char *f = c->format_name ? c->format_name : "csv";
  export_out_t o;
  if (strcmp(f, "csv") == 0)
    o.format = ETK_STORE_EXPORT_CSV;
  else if (strcmp(f, "json") == 0)
    o.format = ETK_STORE_EXPORT_JSON;
  else if (strcmp(f, "v3") == 0)
    o.format = ETK_STORE_EXPORT_V3;
  else
    return etk_cli_usage(CMD, "invalid export --format '%s' (csv, json, v3)",
                         f);
  o.st = store_cli_open(c, ETK_STORE_READ_ONLY);
  if (!o.st) return 1;
  o.where = store_cli_where(&c->where);
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_cli_write_output(c->output ? c->output : "-", render_export, &o,
                                &err);
  etk_store_close(o.st);
  if (rc == ETK_OK) etk_cli_say_wrote(CMD, c->output, NULL);
  return rc == ETK_OK ? 0 : etk_cli_fail_error(CMD, &err);
}

typedef struct report_out {
  etk_store_t *st;
  etk_store_where_t base, cand;
  etk_change_rule_t rule;
  etk_store_report_format_t format;
} report_out_t;

static int render_report(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  report_out_t *o = ctx;
  return etk_store_report(o->st, &o->base, &o->cand, &o->rule, o->format, sink,
                          err);
}

int store_cli_report(store_cli_t *c) {
  report_out_t o;
  etk_change_rule_init(&o.rule);
  if (c->threshold >= 0) o.rule.min_pct = c->threshold;
  if (c->alpha > 0) o.rule.alpha = c->alpha;
  size_t n = strlen(c->output);
  o.format = n > 3 && strcmp(c->output + n - 3, ".md") == 0
                 ? ETK_STORE_REPORT_MARKDOWN
                 : ETK_STORE_REPORT_HTML;
  o.base = store_cli_where(&c->baseline);
  o.cand = store_cli_where(&c->candidate);
  o.st = store_cli_open(c, ETK_STORE_READ_ONLY);
  if (!o.st) return 1;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_cli_write_output(c->output, render_report, &o, &err);
  etk_store_close(o.st);
  if (rc == ETK_OK) etk_cli_say_wrote(CMD, c->output, NULL);
  return rc == ETK_OK ? 0 : etk_cli_fail_error(CMD, &err);
}

static int render_drift(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  const void *const *p = ctx;
  const store_cli_t *c = p[0];
  const etk_store_drift_t *d = p[1];
  return etk_store_table_render(&d->table, c->format, sink, err);
}

int store_cli_drift(store_cli_t *c) {
  etk_store_t *st = store_cli_open(c, ETK_STORE_READ_ONLY);
  if (!st) return ETK_EXIT_TROUBLE;
  /* --fail-above PCT is the gate's shift; --threshold PCT the column's */
  double pct = c->has_fail_above   ? c->fail_above
               : c->threshold >= 0 ? c->threshold
                                   : 10.0;
  etk_store_where_t base = store_cli_where(&c->baseline);
  etk_store_where_t cand = store_cli_where(&c->candidate);
  etk_store_drift_t d;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_store_drift(st, &base, &cand, pct / 100.0, &d, &err);
  etk_store_close(st);
  if (rc != ETK_OK) {
    etk_cli_fail_error(CMD, &err);
    return ETK_EXIT_TROUBLE;
  }
  if (c->has_fail_above && d.compared == 0) {
    etk_store_drift_free(&d);
    etk_cli_fail(CMD,
                 "--fail-above compared nothing: runs %lld and %lld share no "
                 "logged value (another program?)",
                 (long long)d.baseline_run, (long long)d.candidate_run);
    return ETK_EXIT_TROUBLE;
  }
  const void *ctx[2] = {c, &d};
  rc = etk_cli_write_output(c->output ? c->output : "-", render_drift,
                            (void *)ctx, &err);
  int status = rc == ETK_OK ? 0 : etk_cli_fail_error(CMD, &err);
  if (status == 0 && c->has_fail_above && d.drifting)
    fprintf(stderr,
            "etkit store: %zu of %zu value(s) drift from run %lld to run "
            "%lld (NaN/Inf appears, or a p99_abs shift above %g %%)\n",
            d.drifting, d.compared, (long long)d.baseline_run,
            (long long)d.candidate_run, pct);
  int failed = c->has_fail_above && d.drifting;
  etk_store_drift_free(&d);
  return etk_cli_gate_exit(status, failed);
}

/* prune --dry-run: the runs prune would delete (all matching ones but the
 * newest --keep-last), one line, nothing deleted. */
static int prune_dry_run(store_cli_t *c) {
  etk_store_t *st = store_cli_open(c, ETK_STORE_READ_ONLY);
  if (!st) return 1;
  etk_error_t err;
  etk_error_clear(&err);
  etk_store_where_t w = store_cli_where(&c->where);
  etk_store_table_t t;
  memset(&t, 0, sizeof t);
  int status = 0;
  if (w.count == 0 && c->keep_last == 0)
    status = etk_cli_usage(CMD, "prune needs --where or --keep-last");
  else if (etk_store_runs(st, &w, &t, &err) != ETK_OK)
    status = etk_cli_fail_error(CMD, &err);
  else {
    size_t n = t.rows > c->keep_last ? t.rows - c->keep_last : 0;
    printf("would delete %zu runs", n);
    for (size_t i = 0; i < n; i++) /* rows are oldest (lowest id) first */
      printf("%s%lld", i ? " " : ": ", (long long)t.cells[i * t.cols].i);
    printf(" (--dry-run: nothing deleted)\n");
  }
  etk_store_table_free(&t);
  etk_store_close(st);
  return status;
}

int store_cli_prune(store_cli_t *c) {
  if (c->dry_run) return prune_dry_run(c);
  etk_store_t *st = store_cli_open(c, 0);
  if (!st) return 1;
  etk_error_t err;
  etk_error_clear(&err);
  etk_store_where_t w = store_cli_where(&c->where);
  size_t deleted = 0;
  int status = 0;
  if (etk_store_prune(st, &w, c->keep_last, &deleted, &err) != ETK_OK)
    status = etk_cli_fail_error(CMD, &err);
  else
    printf("deleted %zu runs\n", deleted);
  etk_store_close(st);
  return status;
}
