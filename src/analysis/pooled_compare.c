/*
 * pooled_compare.c - many noise-aware comparisons at once
 * (etkit/significance.h, "pooled comparisons"): the engine behind
 * `etkit store compare` and `etkit diff A... --vs B...`.
 *
 * DATA LAYOUT
 *   Keys map to dense ids through one etk_hash_t (common/hash.h); per id
 *   two growable arrays of samples, one per side.  Comparing allocates
 *   the result array and one array of p-values, nothing per key.
 *
 * INVARIANTS
 *   - Only keys with at least one finite sample on each side are
 *     compared, and only they count in Benjamini-Hochberg's n.
 *   - The order of the result depends on the values only (ties by id), so
 *     the same samples always print the same report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "etkit/significance.h"
#include "etkit/status.h"

typedef struct side {
  double *v;
  size_t n, cap;
} side_t;

struct etk_pooled {
  etk_hash_t keys;
  side_t (*sides)[2];
  size_t cap;
};

etk_pooled_t *etk_pooled_new(void) {
  etk_pooled_t *p = calloc(1, sizeof *p);
  if (p) etk_hash_init(&p->keys);
  return p;
}

void etk_pooled_free(etk_pooled_t *p) {
  if (!p) return;
  for (size_t i = 0; i < etk_hash_count(&p->keys); i++) {
    free(p->sides[i][0].v);
    free(p->sides[i][1].v);
  }
  free(p->sides);
  etk_hash_free(&p->keys);
  free(p);
}

int etk_pooled_add(etk_pooled_t *p, int side, const void *key, size_t len,
                   double sample, size_t *id) {
  if (!p || (side != 0 && side != 1) || (!key && len))
    return ETK_E_INVALID_ARGUMENT;
  uint32_t k;
  bool is_new = false;
  int rc = etk_hash_put(&p->keys, key ? key : "", len, &k, &is_new);
  if (rc) return rc;
  if (is_new && k >= p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    side_t(*s)[2] = realloc(p->sides, cap * sizeof *s);
    if (!s) return ETK_E_NO_MEMORY; /* the key stays, with no samples */
    p->sides = s;
    p->cap = cap;
  }
  if (is_new) memset(p->sides[k], 0, sizeof p->sides[k]);
  side_t *sd = &p->sides[k][side];
  if (sd->n == sd->cap) {
    size_t cap = sd->cap ? sd->cap * 2 : 16;
    double *v = realloc(sd->v, cap * sizeof *v);
    if (!v) return ETK_E_NO_MEMORY;
    sd->v = v;
    sd->cap = cap;
  }
  sd->v[sd->n++] = sample;
  if (id) *id = k;
  return ETK_OK;
}

size_t etk_pooled_count(const etk_pooled_t *p) {
  return p ? etk_hash_count(&p->keys) : 0;
}

const char *etk_pooled_key(const etk_pooled_t *p, size_t id, size_t *len) {
  return etk_hash_key(&p->keys, (uint32_t)id, len);
}

size_t etk_pooled_samples(const etk_pooled_t *p, size_t id, int side) {
  return p && id < etk_hash_count(&p->keys) && (side == 0 || side == 1)
             ? p->sides[id][side].n
             : 0;
}

static int cmp_change(const void *a, const void *b) {
  const etk_pooled_change_t *x = a, *y = b;
  if (x->significant != y->significant) return y->significant - x->significant;
  double dx = x->significant ? x->delta_pct : fabs(x->delta_pct);
  double dy = y->significant ? y->delta_pct : fabs(y->delta_pct);
  if (isnan(dx) != isnan(dy)) return isnan(dx) - isnan(dy);
  if (dx != dy && !isnan(dx)) return dx < dy ? 1 : -1;
  return (x->id > y->id) - (x->id < y->id);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The timer's step as the key's samples show it: the smallest gap between
 * two distinct finite samples of either side (0 when fewer than two
 * distinct values, or no memory). */
static double sample_step(const side_t *s) {
  size_t n = s[0].n + s[1].n;
  double *v = malloc(n * sizeof *v), step = 0;
  if (!v) return 0;
  memcpy(v, s[0].v, s[0].n * sizeof *v);
  memcpy(v + s[0].n, s[1].v, s[1].n * sizeof *v);
  qsort(v, n, sizeof *v, cmp_double);
  for (size_t i = 1; i < n; i++) {
    double g = v[i] - v[i - 1];
    if (g > 0 && isfinite(g) && (step == 0 || g < step)) step = g;
  }
  free(v);
  return step;
}

int etk_pooled_compare(const etk_pooled_t *p, const etk_change_rule_t *rule,
                       etk_pooled_change_t **out, size_t *count) {
  if (!p || !out || !count) return ETK_E_INVALID_ARGUMENT;
  *out = NULL;
  *count = 0;
  etk_change_rule_t def;
  if (!rule) {
    etk_change_rule_init(&def);
    rule = &def;
  }
  size_t n = etk_hash_count(&p->keys);
  etk_pooled_change_t *ch = calloc(n ? n : 1, sizeof *ch);
  double *q = malloc((n ? n : 1) * sizeof *q);
  if (!ch || !q) {
    free(ch);
    free(q);
    return ETK_E_NO_MEMORY;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const side_t *s = p->sides[i];
    if (!s[0].n || !s[1].n) continue;
    int rc = etk_shift_estimate(s[0].v, s[0].n, s[1].v, s[1].n,
                                rule->confidence, &ch[m].shift);
    if (rc == ETK_E_NO_MEMORY) {
      free(ch);
      free(q);
      return rc;
    }
    if (rc != ETK_OK) continue; /* no finite sample on a side */
    ch[m].id = i;
    q[m] = ch[m].shift.p_value;
    m++;
  }
  int rc = etk_fdr_bh(q, m, q);
  for (size_t i = 0; rc == ETK_OK && i < m; i++) {
    etk_change_rule_t r = *rule;
    if (r.resolution == 0) r.resolution = sample_step(p->sides[ch[i].id]);
    ch[i].q_value = q[i];
    ch[i].direction = etk_change_classify(
        &ch[i].shift, q[i], &r, &ch[i].significant, &ch[i].delta_pct,
        &ch[i].ci_low_pct, &ch[i].ci_high_pct);
  }
  free(q);
  if (rc != ETK_OK) {
    free(ch);
    return rc;
  }
  qsort(ch, m, sizeof *ch, cmp_change);
  *out = ch;
  *count = m;
  return ETK_OK;
}
