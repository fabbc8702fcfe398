/*
 * link_policy.c - how a front end links an Inspector with an ETRecord:
 * which method each event block uses, which linking rules apply, and what
 * is reported when something cannot be linked.  `etkit inspect
 * --etrecord_path` and the Python Inspector both call
 * etk_etrecord_link_with_policy(), so they link identically.
 *
 * Order of the checks: a record that names no method links nothing (a
 * warning, not an error); every explicitly chosen method must exist;
 * every per-block choice must name a block (an index or an exact name);
 * then each block is linked with, in priority order, its last per-block
 * choice, the all-blocks choice, "forward" under upstream's quirks, or
 * etk_etrecord_block_method() (a block with events for which none can be
 * chosen stays unlinked, with a warning).  A reference graph
 * (upstream's reference_graph_name) must exist before anything is linked;
 * it then gives every block's nodes, the method still its maps.  Errors name
 * the record in err->where ("<record>: <member>").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/etrecord.h"
#include "etkit/inspector_core.h"
#include "etkit/link.h"
#include "link_match.h"

void etk_link_policy_init(etk_link_policy_t *policy) {
  memset(policy, 0, sizeof *policy);
}

/* Reports one formatted warning line through the policy's callback. */
static void policy_warn(const etk_link_policy_t *p, const char *fmt, ...)
    ETK_PRINTF_LIKE(2, 3);
static void policy_warn(const etk_link_policy_t *p, const char *fmt, ...) {
  if (!p->note) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  p->note(p->note_ctx, 1, line);
}

/* "forward, decode" into buf. */
static const char *method_list(const etk_etrecord_t *rec, char *buf,
                               size_t size) {
  /* whole names only, then "and N more": never cut mid-word */
  etk_name_list_t names;
  etk_name_list_init(&names, buf, size > 160 ? 160 : size);
  const char *m;
  for (size_t i = 0; (m = etk_etrecord_method_at(rec, i)) != NULL; i++)
    etk_name_list_add(&names, m, strlen(m));
  return etk_name_list_text(&names);
}

void etk_etrecord_error_where(etk_error_t *err, const char *path) {
  if (!err || !path) return;
  char joined[2 * sizeof err->where + 4096];
  if (err->where[0] && strcmp(err->where, path) != 0)
    snprintf(joined, sizeof joined, "%s: %s", path, err->where);
  else
    snprintf(joined, sizeof joined, "%s", path);
  size_t n = strlen(joined);
  if (n >= sizeof err->where) n = sizeof err->where - 1; /* keep the start */
  memcpy(err->where, joined, n);
  err->where[n] = 0;
}

/* "edge_dialect_graph_module, encoder/forward" into buf: the names
 * upstream's Inspector(reference_graph_name=) accepts (its op_graph_dict
 * keys), then "exported_program" when the record has it. */
static const char *graph_list(const etk_etrecord_t *rec, char *buf,
                              size_t size) {
  etk_name_list_t names;
  etk_name_list_init(&names, buf, size > 160 ? 160 : size);
  static const char edge[] = "edge_dialect_graph_module";
  etk_name_list_add(&names, edge, sizeof edge - 1);
  const etk_etrecord_program_ref_t *p;
  for (size_t i = 0; (p = etk_etrecord_program_at(rec, i)) != NULL; i++)
    if (p->kind == ETK_ETRECORD_PROGRAM_EXTRA)
      etk_name_list_add(&names, p->member, strlen(p->member));
  for (size_t i = 0; (p = etk_etrecord_program_at(rec, i)) != NULL; i++)
    if (p->kind == ETK_ETRECORD_PROGRAM_EXPORTED)
      etk_name_list_add(&names, p->member, strlen(p->member));
  return etk_name_list_text(&names);
}

/* The policy's reference graph: NULL for the default (each method's edge
 * program); a name the record lacks is ETK_E_NOT_FOUND. */
static int check_reference_graph(etk_etrecord_t *rec,
                                 const etk_link_policy_t *p, const char **graph,
                                 etk_error_t *err) {
  *graph = p->reference_graph;
  if (*graph && strcmp(*graph, "edge_dialect_graph_module") == 0) *graph = NULL;
  if (!*graph) return ETK_OK;
  const etk_etrecord_program_t *prog;
  etk_error_t local;
  etk_error_clear(&local);
  int rc = etk_etrecord_graph_load(rec, *graph, &prog, &local);
  if (rc == ETK_E_NOT_FOUND) {
    char names[512];
    etk_error_where(err, p->record_name);
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "reference graph '%s' is not in the ETRecord "
                         "(graphs: %s)",
                         *graph, graph_list(rec, names, sizeof names));
  }
  if (rc != ETK_OK && err) {
    *err = local;
    etk_etrecord_error_where(err, p->record_name);
  }
  return rc;
}

/* The block a per-block choice names: a decimal index or an exact name. */
static int block_spec_matches(const char *spec, size_t index,
                              const etk_inspector_block_t *b) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(spec, &end, 10);
  if (!errno && end != spec && !*end && spec[0] != '-') return v == index;
  return b->name_present && strlen(spec) == b->name_len &&
         memcmp(spec, b->name, b->name_len) == 0;
}

/* Checks the explicit choices: methods the record has, blocks that exist. */
static int check_choices(const etk_etrecord_t *rec, const etk_inspector_t *insp,
                         const etk_link_policy_t *p, etk_error_t *err) {
  char names[512];
  for (size_t i = 0; i <= p->method_count; i++) {
    const char *m = i < p->method_count ? p->method_name[i] : p->method_all;
    if (m && !etk_etrecord_has_method(rec, m)) {
      etk_error_where(err, p->record_name);
      return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                           "--method %s: the ETRecord has no method \"%s\" "
                           "(methods: %s)",
                           m, m, method_list(rec, names, sizeof names));
    }
  }
  size_t blocks = etk_inspector_block_count(insp);
  for (size_t i = 0; i < p->method_count; i++) {
    int found = 0;
    for (size_t b = 0; b < blocks && !found; b++) {
      etk_inspector_block_t blk;
      etk_inspector_block_get(insp, b, &blk);
      found = block_spec_matches(p->method_block[i], b, &blk);
    }
    if (!found)
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "--method %s=%s: there is no event block \"%s\" "
                           "(the ETDump has %zu)",
                           p->method_block[i], p->method_name[i],
                           p->method_block[i], blocks);
  }
  return ETK_OK;
}

int etk_etrecord_link_with_policy(etk_etrecord_t *rec, etk_inspector_t *insp,
                                  const etk_link_policy_t *policy,
                                  etk_etrecord_link_summary_t *summary,
                                  etk_error_t *err) {
  etk_link_policy_t defaults;
  if (!policy) {
    etk_link_policy_init(&defaults);
    policy = &defaults;
  }
  const etk_link_policy_t *p = policy;
  if (!rec || !insp || p->method_count > ETK_LINK_POLICY_MAX_METHODS)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "link: NULL record or inspector");
  const char *record = p->record_name ? p->record_name : "ETRecord";
  char names[512];
  if (!etk_etrecord_method_at(rec, 0)) {
    policy_warn(p,
                "%s names no method (no debug maps, no edge program): "
                "nothing is linked",
                record);
    return ETK_OK;
  }
  const char *graph;
  int rc = check_choices(rec, insp, p, err);
  if (rc == ETK_OK) rc = check_reference_graph(rec, p, &graph, err);
  if (rc != ETK_OK) return rc;
  /* etkit's rules by default; upstream's with quirks: top graph only,
   * framework events and substring delegate ids, and "forward" for every
   * block that no choice names */
  unsigned flags = p->upstream_quirks
                       ? ETK_ETRECORD_LINK_TOP_GRAPH_ONLY
                       : ETK_ETRECORD_LINK_INSTRUCTIONS_ONLY |
                             ETK_ETRECORD_LINK_EXACT_DELEGATE_IDS;
  etk_etrecord_link_summary_t sum;
  memset(&sum, 0, sizeof sum);
  size_t blocks = etk_inspector_block_count(insp);
  for (size_t b = 0; b < blocks; b++) {
    etk_inspector_block_t blk;
    etk_inspector_block_get(insp, b, &blk);
    const char *method = p->method_all;
    for (size_t i = 0; i < p->method_count; i++)
      if (block_spec_matches(p->method_block[i], b, &blk))
        method = p->method_name[i];
    if (!method && p->upstream_quirks) method = "forward";
    if (!method) {
      method =
          etk_etrecord_block_method(rec, blk.name_present ? blk.name : NULL);
      if (!method && blk.event_count) {
        policy_warn(p,
                    "event block %zu (\"%s\") is not linked: the ETRecord has "
                    "no method of that name, no forward and several others "
                    "(%s); choose one with --method",
                    b, blk.name, method_list(rec, names, sizeof names));
        continue;
      }
    }
    rc = etk_etrecord_inspector_link_block_graph(rec, insp, b, method, graph,
                                                 flags, &sum, err);
    if (rc != ETK_OK) {
      etk_etrecord_error_where(err, p->record_name);
      return rc;
    }
  }
  if (sum.no_delegate_mapping)
    policy_warn(p,
                "%zu delegated event(s) have no delegate_map entry for their "
                "instruction (upstream: \"No delegate mapping found\"); they "
                "get the instruction's debug handles",
                sum.no_delegate_mapping);
  /* an ETRecord of another program links nothing, or only part of the
   * events: never silently */
  char line[1024];
  if (link_mismatch_line(&sum, sum.linked == 0, sum.events, record,
                         "the view is not linked",
                         "those events are not linked", line, sizeof line))
    policy_warn(p, "%s", line);
  if (sum.linked && sum.with_nodes == 0 && graph)
    policy_warn(p,
                "%s: %zu events got debug handles but no debug handle names "
                "a node of the reference graph '%s': no op types, modules or "
                "stack traces",
                record, sum.linked, graph);
  else if (sum.linked && sum.with_nodes == 0)
    policy_warn(p,
                "%s: %zu events got debug handles but no debug handle names "
                "a node of its edge program: no op types, modules or stack "
                "traces",
                record, sum.linked);
  if (summary) *summary = sum;
  return ETK_OK;
}
