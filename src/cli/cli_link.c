/*
 * cli_link.c - `--etrecord` for trace, diff and report (see cli_link.h):
 * etk_etrecord_link_with_policy() with etkit's default rules, its notes
 * printed as "etkit <cmd>: warning: ..." (among them the library's one
 * warning when the record links nothing, so that an ETRecord of another
 * model never gives a silently unlinked view).
 */
#include "cli_link.h"

#include <stdio.h>
#include <string.h>

static void print_note(void *ctx, int is_warning, const char *line) {
  fprintf(stderr, "etkit %s: %s%s\n", (const char *)ctx,
          is_warning ? "warning: " : "", line);
}

int cli_link_etrecord(const char *cmd, const char *path, etk_inspector_t *insp,
                      etk_etrecord_t **rec,
                      etk_etrecord_link_summary_t *summary, etk_error_t *err) {
  return cli_link_etrecord_graph(cmd, path, NULL, insp, rec, summary, err);
}

int cli_link_etrecord_graph(const char *cmd, const char *path,
                            const char *graph, etk_inspector_t *insp,
                            etk_etrecord_t **rec,
                            etk_etrecord_link_summary_t *summary,
                            etk_error_t *err) {
  etk_etrecord_link_summary_t local;
  if (!summary) summary = &local;
  memset(summary, 0, sizeof *summary);
  *rec = NULL;
  etk_error_clear(err);
  if (etk_etrecord_open_file(path, NULL, rec, err) != ETK_OK) {
    etk_etrecord_error_where(err, path);
    return 1;
  }
  etk_link_policy_t policy;
  etk_link_policy_init(&policy);
  policy.record_name = path;
  policy.reference_graph = graph;
  policy.note = print_note;
  policy.note_ctx = (void *)cmd;
  etk_error_clear(err);
  if (etk_etrecord_link_with_policy(*rec, insp, &policy, summary, err) !=
      ETK_OK)
    return 1;
  return 0;
}
