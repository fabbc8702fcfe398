/*
 * diff_sets.h - `etkit diff A1 A2 ... --vs B1 B2 ...` (diff_sets.c): sets
 * of ETDumps compared with etk_dump_comparison_* (etkit/significance.h).
 */
#ifndef ETKIT_CLI_DIFF_SETS_H
#define ETKIT_CLI_DIFF_SETS_H

#include <stddef.h>

#include "etkit/inspector.h"

/* Most ETDumps per side. */
#define DIFF_SETS_MAX 256

typedef struct diff_sets_options {
  const etk_inspector_options_t *io; /* how each dump is opened */
  etk_inspect_format_t format;
  const char *output;      /* NULL = stdout */
  const char *etrecord[2]; /* links A's and B's dumps (NULL = none) */
  double threshold_pct;    /* < 0: the default (2 %) */
  double fail_above;       /* >= 0: a significant slow-down above it exits 3 */
  int all_rows;            /* also the OPERATOR_CALL wrappers (hidden) */
  int wide;                /* table: every column, not the 120-column one */
} diff_sets_options_t;

/* Opens every dump, links it with its side's ETRecord (op types and
 * modules, as the two-dump diff does), compares side A with side B and
 * prints the result.  Returns the exit status. */
int cli_diff_sets(const char *const *a, size_t na, const char *const *b,
                  size_t nb, const diff_sets_options_t *o);

#endif
