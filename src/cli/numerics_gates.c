/*
 * numerics_gates.c - the --min-snr gate of `etkit numerics` (A/B): every
 * matched value at or above the SNR, every integer value (compared
 * exactly) equal.  docs/exit-status.md.
 */
#include <stdio.h>

#include "cli_args.h"
#include "commands.h"
#include "numerics_gates.h"

int etk_cli_numerics_snr_gate(const char *cmd, const etk_numerics_ab_t *ab,
                              double min_snr, int *failed) {
  int status = 0;
  size_t below = 0, differ = 0, matched = 0;
  for (size_t i = 0; i < etk_numerics_ab_row_count(ab); i++) {
    etk_numerics_row_t r;
    etk_numerics_ab_row_get(ab, i, &r);
    if (r.status != ETK_NUMERICS_MATCHED) continue;
    matched++;
    if (r.exact)
      differ += r.mismatches != 0; /* indices, flags: equal or not */
    else if (r.snr < min_snr)
      below++;
  }
  if (matched == 0) {
    /* a check that compared nothing is an error, not a pass */
    status = etk_cli_fail(cmd,
                          "--min-snr compared nothing: no logged value of "
                          "A could be compared with one of B");
  } else {
    if (below)
      fprintf(stderr, "etkit numerics: %zu value(s) have an SNR below %g dB\n",
              below, min_snr);
    if (differ)
      fprintf(stderr,
              "etkit numerics: %zu integer value(s) differ (exact "
              "comparison)\n",
              differ);
    *failed = below || differ;
  }
  return status;
}
