/*
 * graph_change.c - is a node of the graph really slower or faster in run
 * set B than in run set A?  The graph view's A/B colours come from here
 * (etk_graph_figures_compare, etkit/link.h).
 *
 * The question is the one `etkit diff A... --vs B...` and `etkit store
 * compare` answer per operator, and the answer is theirs: every run of
 * every dump of a side is one sample of the node's time (the per-run sums
 * graph_figures.c keeps), the samples go into a pool keyed by node, and
 * etk_pooled_compare() gives medians, the Hodges-Lehmann shift, its
 * interval, the Mann-Whitney p, Benjamini-Hochberg q-values over all
 * compared nodes and the significance rule.  So two runs of the same
 * program on the same input colour nothing, and a one-run side (no
 * interval) never counts as significant.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/link.h"

static int pool_side(etk_pooled_t *pool, int side,
                     const etk_graph_figures_t *const *f, size_t count,
                     size_t nodes) {
  for (size_t s = 0; s < count; s++) {
    if (!f[s] || !f[s]->sample_start) continue;
    for (size_t i = 0; i < nodes; i++) {
      size_t key = i, id;
      for (size_t k = f[s]->sample_start[i]; k < f[s]->sample_start[i + 1];
           k++) {
        int rc =
            etk_pooled_add(pool, side, &key, sizeof key, f[s]->samples[k], &id);
        if (rc != ETK_OK) return rc;
      }
    }
  }
  return ETK_OK;
}

/* The node count of the non-NULL figures; SIZE_MAX when none or when two
 * differ. */
static size_t node_count(const etk_graph_figures_t *const *f, size_t count,
                         size_t seen) {
  for (size_t s = 0; s < count; s++) {
    if (!f[s]) continue;
    if (seen != 0 && seen != f[s]->node_count + 1) return SIZE_MAX;
    seen = f[s]->node_count + 1;
  }
  return seen;
}

int etk_graph_figures_compare(const etk_graph_figures_t *const *a, size_t na,
                              const etk_graph_figures_t *const *b, size_t nb,
                              const etk_change_rule_t *rule,
                              etk_graph_node_change_t *out, etk_error_t *err) {
  size_t seen = node_count(a, na, 0);
  size_t both = seen && seen != SIZE_MAX ? node_count(b, nb, seen) : SIZE_MAX;
  if (!out || both == 0 || both == SIZE_MAX || seen != both)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_figures_compare: no figures on a side, "
                         "or figures of different graphs");
  size_t n = both - 1;
  for (size_t i = 0; i < n; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].baseline = out[i].candidate = out[i].delta = NAN;
    out[i].ci_low = out[i].ci_high = out[i].q_value = NAN;
  }
  etk_change_rule_t defaults;
  etk_change_rule_init(&defaults);
  if (!rule) rule = &defaults;
  etk_pooled_t *pool = etk_pooled_new();
  etk_pooled_change_t *changes = NULL;
  size_t count = 0;
  int rc = pool ? ETK_OK : ETK_E_NO_MEMORY;
  if (rc == ETK_OK) rc = pool_side(pool, 0, a, na, n);
  if (rc == ETK_OK) rc = pool_side(pool, 1, b, nb, n);
  if (rc == ETK_OK) rc = etk_pooled_compare(pool, rule, &changes, &count);
  for (size_t c = 0; rc == ETK_OK && c < count; c++) {
    size_t len, node;
    const char *key = etk_pooled_key(pool, changes[c].id, &len);
    if (!key || len != sizeof node) continue;
    memcpy(&node, key, sizeof node);
    if (node >= n) continue;
    etk_graph_node_change_t *o = &out[node];
    o->compared = true;
    o->significant = changes[c].significant != 0;
    o->baseline = changes[c].shift.baseline;
    o->candidate = changes[c].shift.candidate;
    o->delta = changes[c].delta_pct / 100.0;
    o->ci_low = changes[c].ci_low_pct / 100.0;
    o->ci_high = changes[c].ci_high_pct / 100.0;
    o->q_value = changes[c].q_value;
  }
  free(changes);
  etk_pooled_free(pool);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "comparing the runs");
  return ETK_OK;
}
