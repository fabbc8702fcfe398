/*
 * cli_link.h - `--etrecord` for the analysis subcommands (trace, diff,
 * report): open an ETRecord, link it to an opened Inspector with etkit's
 * default policy, and say so when it matches nothing.
 */
#ifndef ETKIT_CLI_LINK_H
#define ETKIT_CLI_LINK_H

#include "etkit/common.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"

/* Opens the ETRecord at `path` (*rec, closed by the caller with
 * etk_etrecord_close) and links every block of `insp`.  When no event
 * received debug handles, prints one warning naming why (no instruction
 * id or delegate debug id of the ETDump is in the ETRecord's maps).
 * `summary` (may be NULL) receives the counts.  0, or 1 with `err` set
 * (naming the file). */
int cli_link_etrecord(const char *cmd, const char *path, etk_inspector_t *insp,
                      etk_etrecord_t **rec,
                      etk_etrecord_link_summary_t *summary, etk_error_t *err);

/* cli_link_etrecord() with the op types, stack traces and modules taken
 * from the graph `graph` (--reference-graph: upstream's
 * reference_graph_name; NULL = each method's edge program). */
int cli_link_etrecord_graph(const char *cmd, const char *path,
                            const char *graph, etk_inspector_t *insp,
                            etk_etrecord_t **rec,
                            etk_etrecord_link_summary_t *summary,
                            etk_error_t *err);

#endif
