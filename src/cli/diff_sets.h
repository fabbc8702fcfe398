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

/* Opens every dump with `io`, compares side A with side B and prints the
 * result in `format` to `output` (NULL = stdout).  threshold_pct < 0 keeps
 * the default (2 %); fail_above >= 0 makes a significant slow-down above it
 * exit 3.  Returns the exit status. */
int cli_diff_sets(const char *const *a, size_t na, const char *const *b,
                  size_t nb, const etk_inspector_options_t *io,
                  etk_inspect_format_t format, const char *output,
                  double threshold_pct, double fail_above);

#endif
