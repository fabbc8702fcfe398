/*
 * numerics_gates.h - gates of `etkit numerics` (numerics_gates.c).
 */
#ifndef ETKIT_CLI_NUMERICS_GATES_H
#define ETKIT_CLI_NUMERICS_GATES_H

#include "etkit/inspector.h"

/* The --min-snr gate over an A/B comparison: 0 with *failed set when a
 * matched value is below `min_snr` dB or an integer value differs, or the
 * CLI's trouble status (one line printed) when nothing was compared. */
int etk_cli_numerics_snr_gate(const char *cmd, const etk_numerics_ab_t *ab,
                              double min_snr, int *failed);

#endif
