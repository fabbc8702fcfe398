/*
 * diff_sets.c - `etkit diff A1 A2 ... --vs B1 B2 ...`: opens every dump,
 * links each with --etrecord (A's; --etrecord-b for B's when given), hands
 * both sides to etk_dump_comparison_build (the noise-aware engine
 * of etkit/significance.h) and prints its table; with --fail-above, exit 1
 * names the worst significant slow-down, as the two-dump diff does, and a
 * gate that compared nothing (no event on both sides) is trouble (2).
 */
#include "diff_sets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_link.h"
#include "cli_term.h"
#include "commands.h"
#include "etkit/significance.h"

#define CMD "diff"

typedef struct sets_out {
  const etk_dump_comparison_t *cmp;
  etk_inspect_format_t format;
  int wide;
  size_t hidden;     /* wrapper rows left out */
  double per_second; /* the table's unit: how many make one second */
  double unit_sec;   /* seconds in one raw (target time scale) unit */
  const char *unit;
  size_t name_most; /* the narrow table's name column (etk_cli_render_fitted) */
} sets_out_t;

/* The 120-column table: block, name (cut with an ellipsis), instruction id, the
 * medians of A (baseline) and B in one readable unit, change and its 95 %
 * interval, q, direction. */
static const char *const narrow_names[] = {
    "block", "name", "iid", "A", "B", "delta %", "95 % CI", "q", "direction"};
#define NARROW_COLS 9
#define NARROW_NAME 23 /* at most: less when the figures are wide */
#define NARROW_NAME_MIN 10
#define NARROW_WIDTH 120
#define NARROW_BLOCK 12

static void cut_text(etk_cell_t *out, etk_strbuf_t *scratch, const char *s,
                     size_t n, size_t most) {
  if (n <= most) {
    etk_cell_set_text(out, s, n);
    return;
  }
  etk_strbuf_clear(scratch); /* cut as the two-dump diff cuts: "name…" */
  size_t keep = most - 1;
  while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80) keep--;
  etk_strbuf_printf(scratch, "%.*s\xE2\x80\xA6", (int)keep, s);
  etk_cell_set_text(out, scratch->data, scratch->len);
}

static int narrow_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                       etk_strbuf_t *scratch) {
  const sets_out_t *o = ctx;
  const etk_pooled_change_t *ch = &o->cmp->changes[row];
  const char *key = etk_pooled_key(o->cmp->pool, ch->id, NULL);
  const char *sep = strchr(key, '\x1f');
  size_t block_len = sep ? (size_t)(sep - key) : strlen(key);
  const char *name = sep ? sep + 1 : key + block_len;
  const char *id = strchr(name, '\x1f');
  size_t name_len = id ? (size_t)(id - name) : strlen(name);
  double scale = o->unit_sec * o->per_second;
  switch (col) {
    case 0:
      cut_text(out, scratch, key, block_len, NARROW_BLOCK);
      break;
    case 1:
      cut_text(out, scratch, name, name_len, o->name_most);
      break;
    case 2:
      etk_cell_set_int(out, id ? strtoll(id + 1, NULL, 10) : -1);
      break;
    case 3:
    case 4: {
      double v = col == 3 ? ch->shift.baseline : ch->shift.candidate;
      if (isnan(v))
        etk_cell_set_none(out);
      else
        etk_cell_set_float(out, scale > 0 ? etk_duration_round(v * scale) : v);
      break;
    }
    case 5:
    case 6:
    case 7:
      etk_strbuf_clear(scratch);
      if (col == 5)
        etk_strbuf_printf(scratch, "%+.1f", ch->delta_pct);
      else if (col == 6)
        etk_strbuf_printf(scratch, "[%+.1f, %+.1f]", ch->ci_low_pct,
                          ch->ci_high_pct);
      else
        etk_strbuf_printf(scratch, "%.2g", ch->q_value);
      etk_cell_set_text(out, scratch->data, scratch->len);
      break;
    default: {
      const char *dir = etk_change_direction_name(ch->direction);
      etk_cell_set_text(out, dir, strlen(dir));
    }
  }
  return ETK_OK;
}

/* The 120-column table with names cut to `name_most`. */
static int narrow_table(void *ctx, size_t name_most, etk_render_sink_t *sink,
                        etk_error_t *err) {
  sets_out_t *o = ctx;
  char h[2][32];
  const char *headers[NARROW_COLS];
  memcpy(headers, narrow_names, sizeof headers);
  snprintf(h[0], sizeof h[0], "A (%s)", o->unit);
  snprintf(h[1], sizeof h[1], "B (%s)", o->unit);
  headers[3] = h[0];
  headers[4] = h[1];
  o->name_most = name_most;
  etk_frame_t f = {o->cmp->count, NARROW_COLS, headers, narrow_cell, o, 0};
  return etk_render_table(&f, sink, err);
}

static int render_sets(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  sets_out_t *o = ctx;
  int rc;
  if (o->format != ETK_INSPECT_FORMAT_TABLE || o->wide)
    rc = etk_dump_comparison_render(o->cmp, o->format, sink, err);
  else
    rc = etk_cli_render_fitted(narrow_table, o, NARROW_NAME, NARROW_NAME_MIN,
                               NARROW_WIDTH, sink, err);
  if (rc == ETK_OK && o->format == ETK_INSPECT_FORMAT_TABLE && o->hidden)
    etk_render_printf(sink,
                      "%zu OPERATOR_CALL wrapper row(s) hidden (--all-rows "
                      "shows them)\n",
                      o->hidden);
  return rc;
}

/* Leaves the OPERATOR_CALL wrappers out (each times the kernel event it
 * wraps, as the two-dump diff and `store compare` hide them); returns how
 * many went. */
static size_t hide_wrappers(etk_dump_comparison_t *cmp) {
  size_t kept = 0;
  for (size_t i = 0; i < cmp->count; i++) {
    const char *key = etk_pooled_key(cmp->pool, cmp->changes[i].id, NULL);
    const char *name = strchr(key, '\x1f');
    name = name ? name + 1 : key;
    if (strncmp(name, "OPERATOR_CALL\x1f", 14) == 0) continue;
    cmp->changes[kept++] = cmp->changes[i];
  }
  size_t hidden = cmp->count - kept;
  cmp->count = kept;
  return hidden;
}

/* The table's unit: the one etk_duration_unit picks for its largest
 * median (the raw unit when the time scale is not a time, cycles). */
static void choose_unit(sets_out_t *o, etk_time_scale_t scale) {
  o->unit = etk_time_scale_name(scale);
  o->unit_sec = etk_seconds_per_unit(o->unit);
  o->per_second = 0;
  if (o->unit_sec <= 0) return;
  double largest = 0;
  for (size_t i = 0; i < o->cmp->count; i++) {
    const etk_pooled_change_t *ch = &o->cmp->changes[i];
    if (fabs(ch->shift.baseline) > largest) largest = fabs(ch->shift.baseline);
    if (fabs(ch->shift.candidate) > largest)
      largest = fabs(ch->shift.candidate);
  }
  o->unit = etk_duration_unit(largest * o->unit_sec, &o->per_second);
}

/* Opens dump i (of A then B) and links it with its side's ETRecord. */
static int open_dump(const char *path, int side, const diff_sets_options_t *o,
                     etk_inspector_t **insp, etk_etrecord_t **rec) {
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_inspector_open_path(path, o->io, insp, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  const char *record = o->etrecord[side] ? o->etrecord[side] : o->etrecord[0];
  etk_error_clear(&err);
  if (record && cli_link_etrecord(CMD, record, *insp, rec, NULL, &err))
    return etk_cli_fail_error(CMD, &err);
  return 0;
}

/* How many compared keys are operators: framework events (Method::execute,
 * Program::load_method, ...) are in every dump of any program, so they
 * alone mean nothing was compared. */
static size_t operators_compared(const etk_dump_comparison_t *cmp) {
  size_t n = 0;
  for (size_t i = 0; i < cmp->count; i++) {
    const char *key = etk_pooled_key(cmp->pool, cmp->changes[i].id, NULL);
    const char *name = strchr(key, '\x1f');
    name = name ? name + 1 : key;
    n += !etk_cli_framework_event(name);
  }
  return n;
}

int cli_diff_sets(const char *const *a, size_t na, const char *const *b,
                  size_t nb, const diff_sets_options_t *o) {
  etk_inspector_t **insp = calloc(na + nb, sizeof *insp);
  etk_etrecord_t **recs = calloc(na + nb, sizeof *recs);
  if (!insp || !recs) {
    free(insp);
    free(recs);
    return etk_cli_fail(CMD, "out of memory") ? ETK_EXIT_TROUBLE : 0;
  }
  etk_error_t err;
  int status = 0, failed = 0;
  for (size_t i = 0; i < na + nb && status == 0; i++)
    status =
        open_dump(i < na ? a[i] : b[i - na], i >= na, o, &insp[i], &recs[i]);
  double fail_above = o->fail_above;
  etk_change_rule_t rule;
  etk_change_rule_init(&rule);
  if (o->threshold_pct >= 0) rule.min_pct = o->threshold_pct;
  etk_dump_comparison_t cmp = {0};
  etk_error_clear(&err);
  if (status == 0 && etk_dump_comparison_build(insp, na, insp + na, nb, &rule,
                                               &cmp, &err) != ETK_OK)
    status = etk_cli_fail_error(CMD, &err);
  if (status == 0 && fail_above >= 0 && operators_compared(&cmp) == 0)
    status = etk_cli_fail(CMD,
                          "--fail-above compared nothing: no operator of the "
                          "A dumps is in the B dumps (by block, name and "
                          "instruction id; another program?)");
  sets_out_t out = {&cmp, o->format, o->wide, 0, 0, 0, NULL, 0};
  if (status == 0 && !o->all_rows) out.hidden = hide_wrappers(&cmp);
  choose_unit(&out, o->io->target_time_scale);
  if (status == 0 && etk_cli_write_output(o->output ? o->output : "-",
                                          render_sets, &out, &err))
    status = etk_cli_fail_error(CMD, &err);
  else if (status == 0)
    etk_cli_say_wrote(CMD, o->output, "%zu compared event(s)", cmp.count);
  if (status == 0 && fail_above >= 0 &&
      etk_dump_comparison_fails(&cmp, fail_above)) {
    const etk_pooled_change_t *c = &cmp.changes[0]; /* worst first */
    char name[256];
    snprintf(name, sizeof name, "%s", etk_pooled_key(cmp.pool, c->id, NULL));
    for (char *p = name; *p; p++)
      if (*p == '\x1f') *p = '/'; /* block/name/instruction */
    fprintf(stderr,
            "etkit diff: %s is %.1f %% slower [%.1f, %.1f] (q %.2g), above "
            "--fail-above %g\n",
            name, c->delta_pct, c->ci_low_pct, c->ci_high_pct, c->q_value,
            fail_above);
    failed = 1;
  }
  etk_dump_comparison_free(&cmp);
  for (size_t i = 0; i < na + nb; i++) {
    etk_inspector_close(insp[i]);
    etk_etrecord_close(recs[i]);
  }
  free(insp);
  free(recs);
  return etk_cli_gate_exit(status, failed);
}
