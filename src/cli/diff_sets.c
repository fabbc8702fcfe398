/*
 * diff_sets.c - `etkit diff A1 A2 ... --vs B1 B2 ...`: opens every dump,
 * links each with --etrecord (A's; --etrecord-b for B's when given), hands
 * both sides to etk_dump_comparison_build (the noise-aware engine
 * of etkit/significance.h) and prints its table; with --fail-above, exit 1
 * names the worst significant slow-down, as the two-dump diff does, and a
 * gate that compared nothing (no event on both sides) is trouble (2).
 */
#include "diff_sets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_link.h"
#include "commands.h"
#include "etkit/significance.h"

#define CMD "diff"

typedef struct sets_out {
  const etk_dump_comparison_t *cmp;
  etk_inspect_format_t format;
} sets_out_t;

static int render_sets(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  const sets_out_t *o = ctx;
  return etk_dump_comparison_render(o->cmp, o->format, sink, err);
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
  sets_out_t out = {&cmp, o->format};
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
