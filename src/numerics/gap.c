/*
 * gap.c - upstream's calculate_numeric_gap in C: the ETRecord graph run by
 * etkit's interpreter (AOT side) paired with the runtime's logged
 * intermediate outputs, one gap per pair (etkit/numerics.h, "numeric gap").
 *
 * Data layout: `entries` holds the AOT entries (one per interpreted call
 * node with debug handles, in graph order) followed by the runtime
 * entries (one per merged runtime handle tuple, in first-seen order);
 * each has its handle tuple in one `int64_t` pool.  Components of
 * overlapping handles are found with a union-find over those entries.
 * Rows keep their handles in the same pool and their op names as text.
 *
 * Invariants: the rules are upstream's, step for step
 * (_inspector_utils.py): a runtime entry keeps the event with the largest
 * instruction id per exact handle tuple; merging overlapping tuples keeps
 * the value of the larger instruction id and orders its handles last; a
 * component with AOT and runtime entries has exactly one runtime entry;
 * for output i the AOT entry keyed (R[-(i+1)],) is compared, only when the
 * first handles of all the component's AOT entries are inside R.
 * Tensors are compared with etk_numerics_compare (upstream's float64 and
 * NaN rules).  Nothing here reads a size it did not check: debug values go
 * through etk_numerics_debug_value, AOT tensors come from the interpreter.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/numerics.h"
#include "etkit/scalar_type.h"
#include "etkit/schema.h"
#include "etkit/tensor_stats.h"
#include "gap_index.h"

#define GAP_MAX_OUTPUTS 16

typedef struct gap_entry {
  bool runtime;
  size_t h0, hn;                 /* handles: pool[h0 .. h0 + hn) */
  int32_t iid;                   /* runtime: instruction id */
  size_t event;                  /* runtime: inspector event */
  size_t num_outputs;            /* runtime: logged values to pair */
  const etk_interp_node_t *node; /* AOT */
  const char *name;              /* AOT node / runtime event name */
  bool name_only;                /* AOT: a repeated handle tuple (its output was
                                    replaced in the first entry): names only */
  size_t parent;                 /* union-find */
} gap_entry_t;

struct etk_gap {
  etk_gap_options_t opts;
  int64_t *pool;
  size_t npool, cap_pool;
  gap_entry_t *e;
  size_t ne, cap_e, naot;
  etk_gap_row_t *rows;
  size_t nrows, cap_rows;
  char **texts;
  size_t ntexts, cap_texts;
  size_t unreferenced;
  char why_unreferenced[320]; /* the first node the interpreter could not
                                 run: name, op, its message */
  etk_gap_inputs_t inputs;    /* what the first rows say about the inputs */
  /* the first row's pair, kept to compare it again on other inputs */
  gap_entry_t first_rt;
  size_t first_neg, first_node;
  /* runtime entries before merging (their names are the runtime ops) */
  gap_entry_t *pre;
  size_t npre, cap_pre;
  /* handle -> entries holding it: every AOT entry (name-only ones too),
   * every pre-merge runtime entry */
  gap_index_t aot_ix, pre_ix;
};

static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
  size_t n = *cap ? *cap : 16;
  void *q;
  if (need <= *cap) return true;
  while (n < need) n *= 2;
  q = realloc(*p, n * elem);
  if (!q) return false;
  *p = q;
  *cap = n;
  return true;
}

static bool pool_add(etk_gap_t *g, const int64_t *h, size_t n, size_t *at) {
  if (!grow((void **)&g->pool, &g->cap_pool, g->npool + n, sizeof *g->pool))
    return false;
  memcpy(g->pool + g->npool, h, n * sizeof *h);
  *at = g->npool;
  g->npool += n;
  return true;
}

static const char *keep_text(etk_gap_t *g, const char *s) {
  char *c;
  if (!grow((void **)&g->texts, &g->cap_texts, g->ntexts + 1, sizeof *g->texts))
    return NULL;
  c = malloc(strlen(s) + 1);
  if (c) {
    memcpy(c, s, strlen(s) + 1);
    g->texts[g->ntexts++] = c;
  }
  return c;
}

static bool has(const int64_t *h, size_t n, int64_t x) {
  for (size_t k = 0; k < n; k++)
    if (h[k] == x) return true;
  return false;
}

static bool same_tuple(const etk_gap_t *g, const gap_entry_t *a,
                       const int64_t *h, size_t n) {
  return a->hn == n && memcmp(g->pool + a->h0, h, n * sizeof *h) == 0;
}

/* _merge_runtime_debug_handles(h1, h2): h1 minus h2, then h2 deduped. */
static bool merge_tuples(etk_gap_t *g, size_t a0, size_t an, size_t b0,
                         size_t bn, size_t *o0, size_t *on) {
  int64_t *tmp = malloc((an + bn + 1) * sizeof *tmp);
  size_t n = 0;
  bool ok;
  if (!tmp) return false;
  for (size_t k = 0; k < an; k++)
    if (!has(g->pool + b0, bn, g->pool[a0 + k])) tmp[n++] = g->pool[a0 + k];
  for (size_t k = 0; k < bn; k++) {
    int64_t x = g->pool[b0 + k];
    bool seen = has(tmp, n, x);
    if (!seen) tmp[n++] = x;
  }
  ok = pool_add(g, tmp, n, o0);
  *on = n;
  free(tmp);
  return ok;
}

/* An event upstream takes runtime values from: linked (op types and
 * debug handles), not an OPERATOR_CALL wrapper. */
static bool op_event(const etk_inspector_event_t *ev,
                     const etk_inspector_event_link_t *l) {
  return l->op_type_count && l->has_debug_handles && l->debug_handle_count &&
         !(ev->name_len == 13 && memcmp(ev->name, "OPERATOR_CALL", 13) == 0);
}

/* Whether a delegated op event with values and the backend of `l` shares a
 * handle with `l` (`inner`: handle -> such delegated events). */
static bool covered(const etk_inspector_t *insp, const gap_index_t *inner,
                    const etk_inspector_event_link_t *l) {
  for (size_t k = 0; k < l->debug_handle_count; k++)
    for (size_t p = gap_index_first(inner, l->debug_handles[k]);
         p != GAP_INDEX_END; p = inner->next[p]) {
      etk_inspector_event_link_t lj;
      etk_inspector_event_link(insp, inner->entry[p], &lj);
      if ((lj.delegate_backend_name == NULL) ==
              (l->delegate_backend_name == NULL) &&
          (!lj.delegate_backend_name ||
           strcmp(lj.delegate_backend_name, l->delegate_backend_name) == 0))
        return true;
    }
  return false;
}

/* handle -> the delegated op events with logged values (what covers a
 * DELEGATE_CALL). */
static bool index_delegated(const etk_inspector_t *insp, gap_index_t *inner) {
  for (size_t j = 0; j < etk_inspector_event_count(insp); j++) {
    etk_inspector_event_t ej;
    etk_inspector_event_link_t lj;
    etk_inspector_event_get(insp, j, &ej);
    etk_inspector_event_link(insp, j, &lj);
    if (!ej.is_delegated_op || !lj.op_type_count || !ej.debug_count ||
        !lj.has_debug_handles)
      continue;
    for (size_t k = 0; k < lj.debug_handle_count; k++)
      if (!gap_index_add(inner, lj.debug_handles[k], j)) return false;
  }
  return true;
}

/* Step 4 of upstream: one pre-merge entry per exact handle tuple. */
static int collect_runtime(etk_gap_t *g, const etk_inspector_t *insp) {
  size_t n = etk_inspector_event_count(insp);
  gap_index_t inner_ix = {0}, *inner = &inner_ix;
  int rc = index_delegated(insp, inner) ? ETK_OK : ETK_E_NO_MEMORY;
  for (size_t i = 0; i < n && rc == ETK_OK; i++) {
    etk_inspector_event_t ev;
    etk_inspector_event_link_t l;
    gap_entry_t *e = NULL;
    etk_inspector_event_get(insp, i, &ev);
    etk_inspector_event_link(insp, i, &l);
    if (!op_event(&ev, &l)) continue;
    /* a DELEGATE_CALL covered by inner delegated events is skipped */
    if (ev.name_len == 13 && memcmp(ev.name, "DELEGATE_CALL", 13) == 0 &&
        covered(insp, inner, &l))
      continue;
    for (size_t p = gap_index_first(&g->pre_ix, l.debug_handles[0]);
         p != GAP_INDEX_END && !e; p = g->pre_ix.next[p])
      if (same_tuple(g, &g->pre[g->pre_ix.entry[p]], l.debug_handles,
                     l.debug_handle_count))
        e = &g->pre[g->pre_ix.entry[p]];
    if (!e) {
      if (!grow((void **)&g->pre, &g->cap_pre, g->npre + 1, sizeof *g->pre)) {
        rc = ETK_E_NO_MEMORY;
        break;
      }
      e = &g->pre[g->npre++];
      memset(e, 0, sizeof *e);
      e->runtime = true;
      e->iid = -1;
      rc = pool_add(g, l.debug_handles, l.debug_handle_count, &e->h0)
               ? ETK_OK
               : ETK_E_NO_MEMORY;
      e->hn = l.debug_handle_count;
      for (size_t k = 0; k < e->hn && rc == ETK_OK; k++)
        if (!gap_index_add(&g->pre_ix, l.debug_handles[k], g->npre - 1))
          rc = ETK_E_NO_MEMORY;
    }
    if (ev.instruction_id > e->iid) {
      e->iid = ev.instruction_id;
      e->event = i;
      e->num_outputs = l.num_outputs > 0 ? (size_t)l.num_outputs : 1;
      e->name = keep_text(g, ev.name);
      if (!e->name) rc = ETK_E_NO_MEMORY;
    }
  }
  gap_index_free(inner);
  return rc;
}

static int cmp_size(const void *pa, const void *pb) {
  size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
  return x < y ? -1 : x > y;
}

/* Sorts list[0..n) and drops repeats; the new count. */
static size_t sort_unique(size_t *list, size_t n) {
  size_t w = 0;
  if (n) qsort(list, n, sizeof *list, cmp_size);
  for (size_t k = 0; k < n; k++)
    if (!w || list[w - 1] != list[k]) list[w++] = list[k];
  return w;
}

/* The live merged entries sharing a handle with `pre` (from `owner`:
 * handle -> the merged entry holding it), in list order, into *hits. */
static bool overlapping(const etk_gap_t *g, const gap_index_t *owner,
                        const gap_entry_t *pre, size_t **hits, size_t *cap,
                        size_t *n) {
  *n = 0;
  if (!grow((void **)hits, cap, pre->hn + 1, sizeof **hits)) return false;
  for (size_t k = 0; k < pre->hn; k++) {
    size_t p = gap_index_first(owner, g->pool[pre->h0 + k]);
    if (p != GAP_INDEX_END) (*hits)[(*n)++] = owner->entry[p];
  }
  *n = sort_unique(*hits, *n);
  return true;
}

/* merge_runtime_overlapping_debug_handles into g->e (after the AOT):
 * merged entries never overlap, so each handle has one owner and the
 * entries a new one overlaps are found through its handles. */
static int merge_runtime(etk_gap_t *g) {
  gap_index_t owner = {0};
  bool *dead = calloc(g->naot + g->npre + 1, sizeof *dead);
  size_t *hits = NULL, cap_hits = 0, nhits = 0;
  int rc = dead ? ETK_OK : ETK_E_NO_MEMORY;
  for (size_t k = 0; k < g->npre && rc == ETK_OK; k++) {
    gap_entry_t cur = g->pre[k], last = g->pre[k];
    if (!overlapping(g, &owner, &g->pre[k], &hits, &cap_hits, &nhits)) {
      rc = ETK_E_NO_MEMORY;
      break;
    }
    for (size_t h = 0; h < nhits && rc == ETK_OK; h++) {
      gap_entry_t x = g->e[hits[h]];
      bool ok =
          x.iid < g->pre[k].iid
              ? merge_tuples(g, x.h0, x.hn, cur.h0, cur.hn, &cur.h0, &cur.hn)
              : merge_tuples(g, cur.h0, cur.hn, x.h0, x.hn, &cur.h0, &cur.hn);
      if (ok && x.iid >= g->pre[k].iid) last = x;
      dead[hits[h]] = true;
      if (!ok) rc = ETK_E_NO_MEMORY;
    }
    last.h0 = cur.h0;
    last.hn = cur.hn;
    if (rc != ETK_OK ||
        !grow((void **)&g->e, &g->cap_e, g->ne + 1, sizeof *g->e)) {
      rc = ETK_E_NO_MEMORY;
      break;
    }
    for (size_t j = 0; j < cur.hn && rc == ETK_OK; j++)
      if (!gap_index_set(&owner, g->pool[cur.h0 + j], g->ne))
        rc = ETK_E_NO_MEMORY;
    g->e[g->ne++] = last;
  }
  if (rc == ETK_OK) {
    size_t w = g->naot;
    for (size_t j = g->naot; j < g->ne; j++)
      if (!dead[j]) g->e[w++] = g->e[j];
    g->ne = w;
  }
  gap_index_free(&owner);
  free(dead);
  free(hits);
  return rc;
}

static int collect_aot(etk_gap_t *g, const etk_interp_t *r) {
  for (size_t k = 0; k < etk_interp_node_count(r); k++) {
    const etk_interp_node_t *n = &etk_interp_nodes(r)[k];
    gap_entry_t *e;
    if (!n->debug_handle_count || strstr(n->name, "getitem")) continue;
    if (n->status != ETK_INTERP_OK) {
      if (!g->unreferenced++)
        snprintf(g->why_unreferenced, sizeof g->why_unreferenced, "%s (%s): %s",
                 n->name, n->op, n->message);
      continue;
    }
    if (!grow((void **)&g->e, &g->cap_e, g->ne + 1, sizeof *g->e))
      return ETK_E_NO_MEMORY;
    e = &g->e[g->ne];
    memset(e, 0, sizeof *e);
    /* a later node with the same handles replaces the earlier output (a
     * dict assignment upstream) and adds its name */
    for (size_t p = gap_index_first(&g->aot_ix, n->debug_handles[0]);
         p != GAP_INDEX_END; p = g->aot_ix.next[p]) {
      gap_entry_t *x = &g->e[g->aot_ix.entry[p]];
      if (!x->name_only &&
          same_tuple(g, x, n->debug_handles, n->debug_handle_count)) {
        x->node = n;
        e->name_only = true;
      }
    }
    e->node = n;
    e->name = n->name;
    if (!pool_add(g, n->debug_handles, n->debug_handle_count, &e->h0))
      return ETK_E_NO_MEMORY;
    e->hn = n->debug_handle_count;
    for (size_t j = 0; j < e->hn; j++)
      if (!gap_index_add(&g->aot_ix, n->debug_handles[j], g->ne))
        return ETK_E_NO_MEMORY;
    g->ne++;
  }
  g->naot = g->ne;
  return ETK_OK;
}

static size_t uf_find(gap_entry_t *e, size_t x) {
  while (e[x].parent != x) {
    e[x].parent = e[e[x].parent].parent;
    x = e[x].parent;
  }
  return x;
}

/* Names of the entries of `list` whose handles are all inside (h, n),
 * in list order, joined with ", " (upstream's find_op_names); the
 * candidates are those `ix` files under a handle of h. */
static const char *op_names(etk_gap_t *g, const gap_entry_t *list,
                            const gap_index_t *ix, const int64_t *h, size_t n) {
  char buf[1024];
  size_t at = 0, count = 0, cap = 0, *cand = NULL;
  buf[0] = 0;
  for (size_t k = 0; k < n; k++)
    for (size_t p = gap_index_first(ix, h[k]); p != GAP_INDEX_END;
         p = ix->next[p]) {
      if (!grow((void **)&cand, &cap, count + 1, sizeof *cand)) {
        free(cand);
        return NULL;
      }
      cand[count++] = ix->entry[p];
    }
  count = sort_unique(cand, count);
  for (size_t c = 0; c < count; c++) {
    const gap_entry_t *e = &list[cand[c]];
    bool inside = true;
    for (size_t j = 0; j < e->hn && inside; j++)
      inside = has(h, n, g->pool[e->h0 + j]);
    if (inside && at < sizeof buf)
      at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", at ? ", " : "",
                             e->name);
  }
  free(cand);
  return keep_text(g, buf);
}

/* The runtime tensor compared with `aot` for output `neg` (upstream's
 * _map_non_sequence_aot_output): values[neg] by default; with one output
 * declared and several logged, the unique one of the AOT's shape (then
 * shape and dtype). */
static int pick_runtime(const etk_inspector_t *insp, const uint8_t *buf,
                        size_t len, const gap_entry_t *rt, size_t neg,
                        const etk_interp_tensor_t *aot,
                        etk_numerics_value_t *out, etk_error_t *err) {
  etk_inspector_event_t ev;
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  size_t count, pick, shape_hits = 0, dtype_hits = 0, shape_at = 0,
                      dtype_at = 0;
  uint32_t entry;
  etk_inspector_event_get(insp, rt->event, &ev);
  count = ev.debug_count;
  if (count == 0 || neg > count)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "no logged value %zu", neg);
  pick = count - neg;
  for (size_t k = 0; rt->num_outputs == 1 && count > 1 && k < count; k++) {
    etk_numerics_value_t v;
    bool same = true;
    etk_inspector_event_debug_entry(insp, rt->event, k, &entry);
    if (etk_numerics_debug_value(dump, buf, len, entry, 0, &v, NULL) !=
            ETK_OK ||
        v.kind != ETK_NUMERICS_VALUE_TENSOR || v.dim != aot->dim)
      continue;
    for (uint32_t d = 0; d < v.dim && same; d++)
      same = v.sizes[d] == aot->sizes[d];
    if (!same) continue;
    shape_hits++;
    shape_at = k;
    if (v.scalar_type == aot->dtype) {
      dtype_hits++;
      dtype_at = k;
    }
  }
  if (shape_hits == 1)
    pick = shape_at;
  else if (shape_hits > 1 && dtype_hits == 1)
    pick = dtype_at;
  etk_inspector_event_debug_entry(insp, rt->event, pick, &entry);
  return etk_numerics_debug_value(dump, buf, len, entry, 0, out, err);
}

/* A STATS vector logged as entry k of the runtime event, into st. */
static bool logged_stats(const etk_inspector_t *insp, const uint8_t *buf,
                         size_t len, size_t event, size_t k,
                         double st[ETK_TENSOR_STATS_COUNT]) {
  etk_numerics_value_t v;
  uint32_t entry;
  if (etk_inspector_event_debug_entry(insp, event, k, &entry) != ETK_OK ||
      etk_numerics_debug_value(etk_inspector_etdump(insp), buf, len, entry, 0,
                               &v, NULL) != ETK_OK ||
      v.kind != ETK_NUMERICS_VALUE_TENSOR ||
      v.scalar_type != ETK_SCALAR_TYPE_DOUBLE || v.dim != 1 ||
      v.sizes[0] != ETK_TENSOR_STATS_COUNT ||
      v.nbytes != 8u * ETK_TENSOR_STATS_COUNT || !v.data)
    return false;
  memcpy(st, v.data, 8u * ETK_TENSOR_STATS_COUNT);
  return true;
}

/* How far STATS b is from a: relative differences of min, max, mean and
 * p99_abs (NaN counts as infinitely far). */
static double stats_distance(const double *a, const double *b) {
  static const int k[] = {ETK_STAT_MIN, ETK_STAT_MAX, ETK_STAT_MEAN,
                          ETK_STAT_P99_ABS};
  double d = 0;
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    double x = a[k[i]], y = b[k[i]];
    if (x == y) continue;
    double r = fabs(y - x) / (fabs(x) + 1e-30);
    d += r == r ? r : INFINITY;
  }
  return d;
}

/* When the dump holds STATS vectors: fills the row's STATS (the AOT
 * output's computed, the logged ones read) and its gap, the relative
 * p99_abs shift; 1 when it did.  The logged value is values[neg]; with one
 * output declared and several logged, the STATS closest to the AOT
 * output's (upstream picks by shape and dtype, which a STATS vector no
 * longer has: docs/compatibility.md). */
static bool stats_row(const etk_inspector_t *insp, const uint8_t *buf,
                      size_t len, const gap_entry_t *rt, size_t neg,
                      const etk_interp_tensor_t *a, etk_gap_row_t *row) {
  etk_inspector_event_t ev;
  size_t es = etk_scalar_type_size(a->dtype);
  double st[ETK_TENSOR_STATS_COUNT], best = INFINITY;
  if (!etk_etdump_has_tensor_stats(etk_inspector_etdump(insp)) || es == 0 ||
      etk_tensor_stats_compute(a->dtype, a->data, a->nbytes / es,
                               row->aot_stats) != ETK_OK)
    return false;
  etk_inspector_event_get(insp, rt->event, &ev);
  if (ev.debug_count == 0 || neg > ev.debug_count) return false;
  if (rt->num_outputs != 1 || ev.debug_count == 1)
    return logged_stats(insp, buf, len, rt->event, ev.debug_count - neg,
                        row->rt_stats) &&
           (row->stats = true,
            row->gap = etk_stats_p99_shift(row->aot_stats, row->rt_stats),
            true);
  for (size_t k = 0; k < ev.debug_count; k++) {
    if (!logged_stats(insp, buf, len, rt->event, k, st)) continue;
    double d = stats_distance(row->aot_stats, st);
    if (!row->stats || d < best) {
      best = d;
      memcpy(row->rt_stats, st, sizeof st);
      row->stats = true;
    }
  }
  if (row->stats) row->gap = etk_stats_p99_shift(row->aot_stats, row->rt_stats);
  return row->stats;
}

/* One row: AOT output `aot` against runtime value `neg` of `rt`. */
static int add_row(etk_gap_t *g, const etk_inspector_t *insp,
                   const uint8_t *buf, size_t len, const gap_entry_t *rt,
                   const gap_entry_t *aot_e, size_t neg) {
  const etk_interp_tensor_t *a = &aot_e->node->outputs[0];
  etk_numerics_tensor_t ta = {a->dtype, a->dim,  a->sizes, NULL,
                              0,        a->data, a->nbytes};
  etk_numerics_value_t v;
  etk_numerics_tensor_t tb;
  etk_gap_row_t *row;
  etk_error_t e;
  if (!grow((void **)&g->rows, &g->cap_rows, g->nrows + 1, sizeof *g->rows))
    return ETK_E_NO_MEMORY;
  row = &g->rows[g->nrows];
  memset(row, 0, sizeof *row);
  row->order = g->nrows;
  row->handles = NULL;
  if (g->nrows == 0) {
    g->first_rt = *rt;
    g->first_neg = neg;
    g->first_node = aot_e->node->node;
  }
  row->handle_count = rt->hn;
  row->aot_ops = op_names(g, g->e, &g->aot_ix, g->pool + rt->h0, rt->hn);
  row->runtime_ops = op_names(g, g->pre, &g->pre_ix, g->pool + rt->h0, rt->hn);
  row->note = "";
  etk_numerics_shape_text(&ta, row->shape, sizeof row->shape);
  etk_error_clear(&e);
  if (stats_row(insp, buf, len, rt, neg, a, row)) {
    /* a STATS vector: the AOT output reduced the same way */
  } else if (pick_runtime(insp, buf, len, rt, neg, a, &v, &e) != ETK_OK ||
             !etk_numerics_value_view(&v, &tb) ||
             etk_numerics_compare(&ta, &tb, g->opts.metric, 0, &row->gap, &e) !=
                 ETK_OK) {
    row->gap = NAN;
    row->note = keep_text(g, e.message[0] ? e.message : "not comparable");
  }
  /* the pool may move: keep the offset, fix the pointer at the end */
  row->handles = (const int64_t *)(uintptr_t)rt->h0;
  if (!row->aot_ops || !row->runtime_ops || !row->note) return ETK_E_NO_MEMORY;
  g->nrows++;
  return ETK_OK;
}

/* The rows of one component: its runtime entry `rt` and its AOT entries
 * members[0..count) (in graph order, name-only entries left out). */
static int component_rows(etk_gap_t *g, const etk_inspector_t *insp,
                          const uint8_t *buf, size_t len, const gap_entry_t *rt,
                          const size_t *members, size_t count) {
  for (size_t m = 0; m < count; m++)
    if (!has(g->pool + rt->h0, rt->hn, g->pool[g->e[members[m]].h0]))
      return ETK_OK;
  for (size_t i = 0; i < rt->num_outputs && i < rt->hn; i++) {
    int64_t key = g->pool[rt->h0 + rt->hn - 1 - i];
    const gap_entry_t *hit = NULL;
    for (size_t m = 0; m < count && !hit; m++) {
      const gap_entry_t *a = &g->e[members[m]];
      if (a->hn == 1 && g->pool[a->h0] == key) hit = a;
    }
    /* AOT outputs that are lists of several tensors are skipped, as
     * upstream's comparator skips them */
    if (!hit || !hit->node->output_count ||
        (hit->node->output_is_list && hit->node->output_count != 1))
      continue;
    if (add_row(g, insp, buf, len, rt, hit, i + 1) != ETK_OK)
      return ETK_E_NO_MEMORY;
  }
  return ETK_OK;
}

/* Joins each runtime entry with the AOT entries sharing a handle with it
 * (union-find over g->e), through the AOT handle index. */
static void join_components(etk_gap_t *g) {
  for (size_t k = 0; k < g->ne; k++) g->e[k].parent = k;
  for (size_t b = g->naot; b < g->ne; b++)
    for (size_t k = 0; k < g->e[b].hn; k++)
      for (size_t p = gap_index_first(&g->aot_ix, g->pool[g->e[b].h0 + k]);
           p != GAP_INDEX_END; p = g->aot_ix.next[p]) {
        size_t a = g->aot_ix.entry[p];
        if (!g->e[a].name_only)
          g->e[uf_find(g->e, a)].parent = uf_find(g->e, b);
      }
}

/* Per component root: its first two runtime entries (rt[2 * root],
 * rt[2 * root + 1]; SIZE_MAX when absent), and its AOT members grouped in
 * graph order (members[start[root] .. start[root + 1])). */
typedef struct components {
  size_t *rt, *start, *members;
} components_t;

static bool group_components(etk_gap_t *g, components_t *c) {
  size_t *fill;
  c->rt = malloc((2 * g->ne + 1) * sizeof *c->rt);
  c->start = calloc(g->ne + 2, sizeof *c->start);
  c->members = malloc((g->naot + 1) * sizeof *c->members);
  fill = calloc(g->ne + 1, sizeof *fill);
  if (!c->rt || !c->start || !c->members || !fill) {
    free(fill);
    return false;
  }
  for (size_t k = 0; k < 2 * g->ne; k++) c->rt[k] = SIZE_MAX;
  for (size_t b = g->naot; b < g->ne; b++) {
    size_t *slot = &c->rt[2 * uf_find(g->e, b)];
    if (slot[0] == SIZE_MAX)
      slot[0] = b;
    else if (slot[1] == SIZE_MAX)
      slot[1] = b;
  }
  for (size_t a = 0; a < g->naot; a++)
    if (!g->e[a].name_only) c->start[uf_find(g->e, a) + 1]++;
  for (size_t r = 0; r < g->ne; r++) c->start[r + 1] += c->start[r];
  for (size_t a = 0; a < g->naot; a++)
    if (!g->e[a].name_only) {
      size_t r = uf_find(g->e, a);
      c->members[c->start[r] + fill[r]++] = a;
    }
  free(fill);
  return true;
}

/* map_runtime_aot_intermediate_outputs: components in the order of their
 * first entry (AOT entries come first, as upstream's node list). */
static int pair(etk_gap_t *g, const etk_inspector_t *insp, const uint8_t *buf,
                size_t len, etk_error_t *err) {
  components_t c = {0};
  bool *done = calloc(g->ne + 1, sizeof *done);
  int rc = ETK_OK;
  join_components(g);
  if (!done || !group_components(g, &c))
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t a = 0; a < g->naot && rc == ETK_OK; a++) {
    size_t root = uf_find(g->e, a);
    if (g->e[a].name_only || done[root]) continue;
    done[root] = true; /* a component is done at its first AOT entry */
    if (c.rt[2 * root + 1] != SIZE_MAX)
      rc = etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "Expected only one runtime debug handle, but "
                         "events '%s' and '%s' overlap the same AOT "
                         "nodes",
                         g->e[c.rt[2 * root]].name,
                         g->e[c.rt[2 * root + 1]].name);
    else if (c.rt[2 * root] != SIZE_MAX &&
             component_rows(g, insp, buf, len, &g->e[c.rt[2 * root]],
                            c.members + c.start[root],
                            c.start[root + 1] - c.start[root]) != ETK_OK)
      rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  free(done);
  free(c.rt);
  free(c.start);
  free(c.members);
  return rc;
}

void etk_gap_options_init(etk_gap_options_t *o) {
  memset(o, 0, sizeof *o);
  o->metric = ETK_NUMERICS_MSE;
  o->threshold = NAN;
}

/* How bad a gap is (larger = worse); NaN worst of all. */
static double badness(etk_numerics_metric_t m, double gap) {
  if (gap != gap) return INFINITY;
  return m == ETK_NUMERICS_SNR ? -gap : gap;
}

static etk_numerics_metric_t g_sort_metric;
static int row_cmp(const void *pa, const void *pb) {
  const etk_gap_row_t *a = pa, *b = pb;
  double x = badness(g_sort_metric, a->gap), y = badness(g_sort_metric, b->gap);
  if (x != y) return x > y ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* Thresholds, the first diverging row, pointers into the pool, order. */
static void resolve_threshold(etk_gap_t *g) {
  double t = g->opts.threshold;
  if (t != t)
    t = g->opts.metric == ETK_NUMERICS_SNR  ? 40.0
        : g->opts.metric == ETK_NUMERICS_L1 ? 1e-3
                                            : 1e-6;
  g->opts.threshold = t;
}

static bool worse(const etk_gap_t *g, double gap) {
  return badness(g->opts.metric, gap) >
         badness(g->opts.metric, g->opts.threshold);
}

static void finish_rows(etk_gap_t *g) {
  size_t first = SIZE_MAX;
  for (size_t k = 0; k < g->nrows; k++) {
    etk_gap_row_t *r = &g->rows[k];
    r->handles = g->pool + (size_t)(uintptr_t)r->handles;
    r->over = worse(g, r->gap);
    if (r->over && first == SIZE_MAX) first = k;
  }
  if (first != SIZE_MAX) g->rows[first].first_diverging = true;
  g_sort_metric = g->opts.metric;
  qsort(g->rows, g->nrows, sizeof *g->rows, row_cmp);
}

/* The operator events collect_runtime would read, and how many of them
 * logged a value: none means the run was traced without intermediate
 * outputs, which nothing can be paired with. */
static int check_logged(const etk_inspector_t *insp, etk_error_t *err) {
  size_t n = etk_inspector_event_count(insp), ops = 0, logged = 0;
  for (size_t i = 0; i < n; i++) {
    etk_inspector_event_t ev;
    etk_inspector_event_link_t l;
    etk_inspector_event_get(insp, i, &ev);
    etk_inspector_event_link(insp, i, &l);
    if (!op_event(&ev, &l)) continue;
    ops++;
    logged += ev.debug_count > 0;
  }
  if (ops == 0 || logged > 0) return ETK_OK;
  return etk_error_set(
      err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
      "the ETDump logged no intermediate outputs (%zu operator events, none "
      "with a value); record them with `etkit run PROGRAM --etdump D "
      "--debug-level intermediates` (upstream: ETDumpGen::set_debug_buffer "
      "and EventTracerDebugLogLevel::kIntermediateOutputs)",
      ops);
}

/* Writes the value 1 of `dtype` into each of `numel` elements of `out`;
 * false for a dtype it does not know. */
static bool fill_ones(int32_t dtype, void *out, uint64_t numel) {
  for (uint64_t k = 0; k < numel; k++) switch (dtype) {
      case 0:  /* uint8 */
      case 1:  /* int8 */
      case 11: /* bool */
        ((uint8_t *)out)[k] = 1;
        break;
      case 2:
        ((int16_t *)out)[k] = 1;
        break;
      case 3:
        ((int32_t *)out)[k] = 1;
        break;
      case 4:
        ((int64_t *)out)[k] = 1;
        break;
      case 5: /* half */
        ((uint16_t *)out)[k] = 0x3c00;
        break;
      case 15: /* bfloat16 */
        ((uint16_t *)out)[k] = 0x3f80;
        break;
      case 6:
        ((float *)out)[k] = 1.0f;
        break;
      case 7:
        ((double *)out)[k] = 1.0;
        break;
      default:
        return false;
    }
  return true;
}

/* The graph run again on inputs of ones of the representative inputs'
 * shapes (what `etkit run` feeds by default); NULL when that cannot be
 * done (no representative inputs, a dtype without a 1, memory). */
static etk_interp_t *run_on_ones(etk_graph_t *graph, uint64_t max_memory) {
  const etk_graph_tensor_t *items = NULL;
  size_t count = 0;
  etk_interp_tensor_t *in;
  etk_interp_options_t io;
  etk_interp_t *r = NULL;
  bool ok = true;
  if (etk_graph_recorded(graph, ETK_GRAPH_REPRESENTATIVE_INPUTS, 0, &items,
                         &count, NULL) != ETK_OK ||
      count == 0 || !(in = calloc(count, sizeof *in)))
    return NULL;
  for (size_t k = 0; k < count && ok; k++) {
    void *data = malloc(items[k].nbytes ? (size_t)items[k].nbytes : 1);
    in[k] = (etk_interp_tensor_t){items[k].dtype, items[k].dim, items[k].sizes,
                                  data, items[k].nbytes};
    ok = data && fill_ones(items[k].dtype, data, items[k].numel);
  }
  etk_interp_options_default(&io);
  io.max_memory = max_memory;
  io.inputs = in;
  io.input_count = count;
  if (ok && etk_interp_run(graph, &io, &r, NULL) != ETK_OK) r = NULL;
  for (size_t k = 0; k < count; k++) free((void *)in[k].data);
  free(in);
  return r;
}

/* When the first pair (in graph order: an operator near the program's
 * inputs) already diverges, the run may have had other inputs than the
 * ETRecord's representative ones.  The dump has no value of the program
 * input to compare (upstream logs none), so the first pair is compared
 * again with the graph run on ones, `etkit run`'s default input. */
static void check_inputs(etk_gap_t *g, const etk_inspector_t *insp,
                         const uint8_t *buf, size_t len, etk_graph_t *graph) {
  const etk_interp_node_t *n;
  etk_interp_t *r;
  etk_numerics_value_t v;
  etk_numerics_tensor_t ta, tb;
  double gap;
  g->inputs = ETK_GAP_INPUTS_AGREE;
  if (g->nrows == 0 || !worse(g, g->rows[0].gap)) return;
  g->inputs = ETK_GAP_INPUTS_FIRST_DIVERGES;
  r = run_on_ones(graph, g->opts.max_memory);
  n = r ? etk_interp_node_for(r, g->first_node) : NULL;
  if (n && n->status == ETK_INTERP_OK && n->output_count) {
    const etk_interp_tensor_t *a = &n->outputs[0];
    ta = (etk_numerics_tensor_t){a->dtype, a->dim,  a->sizes, NULL,
                                 0,        a->data, a->nbytes};
    if (pick_runtime(insp, buf, len, &g->first_rt, g->first_neg, a, &v, NULL) ==
            ETK_OK &&
        etk_numerics_value_view(&v, &tb) &&
        etk_numerics_compare(&ta, &tb, g->opts.metric, 0, &gap, NULL) ==
            ETK_OK &&
        !worse(g, gap))
      g->inputs = ETK_GAP_INPUTS_ONES;
  }
  etk_interp_free(r);
}

/* No row: why, in one line (the interpreter's first failure when it could
 * not run a node, else what the two sides hold). */
static int no_rows(const etk_gap_t *g, etk_error_t *err) {
  if (g->unreferenced)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "no AOT output to pair: the interpreter could not "
                         "run %zu node(s), the first %s",
                         g->unreferenced, g->why_unreferenced);
  return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "no AOT output pairs with a logged runtime value (%zu "
                       "AOT nodes, %zu runtime handle groups; is the ETDump "
                       "linked to this ETRecord?)",
                       g->naot, g->ne - g->naot);
}

int etk_gap_build(const etk_inspector_t *insp, const uint8_t *buf, size_t len,
                  etk_graph_t *graph, const etk_gap_options_t *opts,
                  etk_gap_t **out, etk_error_t *err) {
  etk_interp_options_t io;
  etk_interp_t *r = NULL;
  etk_gap_t *g;
  int rc;
  if (!insp || !graph || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  if ((rc = check_logged(insp, err)) != ETK_OK) return rc;
  g = calloc(1, sizeof *g);
  if (!g)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (opts)
    g->opts = *opts;
  else
    etk_gap_options_init(&g->opts);
  resolve_threshold(g);
  etk_interp_options_default(&io);
  io.max_memory = g->opts.max_memory;
  rc = etk_interp_run(graph, &io, &r, err);
  if (rc == ETK_OK) {
    rc = collect_aot(g, r);
    if (rc == ETK_OK) rc = collect_runtime(g, insp);
    if (rc == ETK_OK) rc = merge_runtime(g);
    if (rc != ETK_OK)
      etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
    else
      rc = pair(g, insp, buf, len, err);
  }
  if (rc == ETK_OK && g->nrows == 0) rc = no_rows(g, err);
  etk_interp_free(r); /* rows keep no pointer into the run */
  if (rc != ETK_OK) {
    etk_gap_free(g);
    return rc;
  }
  check_inputs(g, insp, buf, len, graph);
  finish_rows(g);
  *out = g;
  return ETK_OK;
}

void etk_gap_free(etk_gap_t *g) {
  if (!g) return;
  for (size_t k = 0; k < g->ntexts; k++) free(g->texts[k]);
  free(g->texts);
  free(g->pool);
  free(g->e);
  free(g->pre);
  free(g->rows);
  gap_index_free(&g->aot_ix);
  gap_index_free(&g->pre_ix);
  free(g);
}

size_t etk_gap_row_count(const etk_gap_t *g) {
  return g ? g->nrows : 0;
}
const etk_gap_row_t *etk_gap_rows(const etk_gap_t *g) {
  return g ? g->rows : NULL;
}
size_t etk_gap_unreferenced(const etk_gap_t *g) {
  return g ? g->unreferenced : 0;
}
double etk_gap_threshold(const etk_gap_t *g) {
  return g ? g->opts.threshold : NAN;
}
etk_gap_inputs_t etk_gap_inputs(const etk_gap_t *g) {
  return g ? g->inputs : ETK_GAP_INPUTS_AGREE;
}

/* ------------------------------------------------------------ output */

static void handles_text(const etk_gap_row_t *r, char *buf, size_t cap) {
  size_t at = 0;
  buf[0] = 0;
  for (size_t k = 0; k < r->handle_count && at < cap; k++)
    at += (size_t)snprintf(buf + at, cap - at, "%s%lld", k ? "," : "",
                           (long long)r->handles[k]);
}

static void gap_text(double v, char *buf, size_t cap) {
  if (v != v)
    snprintf(buf, cap, "nan");
  else
    snprintf(buf, cap, "%.6g", v);
}

/* JSON string of s (names are ASCII identifiers; escapes the rest). */
static void json_str(etk_render_sink_t *s, const char *t) {
  etk_render_putc(s, '"');
  for (; *t; t++) {
    if (*t == '"' || *t == '\\')
      etk_render_printf(s, "\\%c", *t);
    else if ((unsigned char)*t < 0x20)
      etk_render_printf(s, "\\u%04x", (unsigned)(unsigned char)*t);
    else
      etk_render_putc(s, *t);
  }
  etk_render_putc(s, '"');
}

static void render_json(const etk_gap_t *g, etk_render_sink_t *s) {
  etk_render_printf(s,
                    "{\"metric\": \"%s\", \"threshold\": %.17g, "
                    "\"unreferenced_nodes\": %zu, \"rows\": [",
                    etk_numerics_metric_name(g->opts.metric), g->opts.threshold,
                    g->unreferenced);
  for (size_t k = 0; k < g->nrows; k++) {
    const etk_gap_row_t *r = &g->rows[k];
    etk_render_printf(s, "%s\n  {\"order\": %zu, \"debug_handle\": [",
                      k ? "," : "", r->order);
    for (size_t h = 0; h < r->handle_count; h++)
      etk_render_printf(s, "%s%lld", h ? ", " : "", (long long)r->handles[h]);
    etk_render_puts(s, "], \"aot_ops\": ");
    json_str(s, r->aot_ops);
    etk_render_puts(s, ", \"runtime_ops\": ");
    json_str(s, r->runtime_ops);
    etk_render_puts(s, ", \"shape\": ");
    json_str(s, r->shape);
    if (r->gap != r->gap || isinf(r->gap)) /* JSON has no NaN nor inf */
      etk_render_printf(s, ", \"gap\": \"%s\"",
                        r->gap != r->gap ? "nan"
                        : r->gap > 0     ? "inf"
                                         : "-inf");
    else
      etk_render_printf(s, ", \"gap\": %.17g", r->gap);
    etk_render_puts(s, ", \"note\": ");
    json_str(s, r->note);
    etk_render_printf(s, ", \"over_threshold\": %s, \"first_divergence\": %s}",
                      r->over ? "true" : "false",
                      r->first_diverging ? "true" : "false");
  }
  etk_render_puts(s, "\n]}\n");
}

static void csv_field(etk_render_sink_t *s, const char *t) {
  etk_render_putc(s, '"');
  for (; *t; t++) {
    if (*t == '"') etk_render_putc(s, '"');
    etk_render_putc(s, *t);
  }
  etk_render_putc(s, '"');
}

static void render_csv(const etk_gap_t *g, etk_render_sink_t *s) {
  etk_render_printf(s,
                    "order,debug_handle,aot_ops,runtime_ops,shape,%s,"
                    "over_threshold,first_divergence,note\n",
                    etk_numerics_metric_name(g->opts.metric));
  for (size_t k = 0; k < g->nrows; k++) {
    const etk_gap_row_t *r = &g->rows[k];
    char h[256], v[64];
    handles_text(r, h, sizeof h);
    gap_text(r->gap, v, sizeof v);
    etk_render_printf(s, "%zu,", r->order);
    csv_field(s, h);
    etk_render_putc(s, ',');
    csv_field(s, r->aot_ops);
    etk_render_putc(s, ',');
    csv_field(s, r->runtime_ops);
    etk_render_putc(s, ',');
    csv_field(s, r->shape);
    etk_render_printf(s, ",%s,%d,%d,", v, r->over, r->first_diverging);
    csv_field(s, r->note);
    etk_render_putc(s, '\n');
  }
}

static void render_table(const etk_gap_t *g, etk_render_sink_t *s) {
  size_t w[4] = {6, 7, 11, 5}; /* handle, aot_ops, runtime_ops, shape */
  const char *metric = etk_numerics_metric_name(g->opts.metric);
  for (size_t k = 0; k < g->nrows; k++) {
    char h[256];
    const etk_gap_row_t *r = &g->rows[k];
    size_t l[4];
    handles_text(r, h, sizeof h);
    l[0] = strlen(h);
    l[1] = strlen(r->aot_ops);
    l[2] = strlen(r->runtime_ops);
    l[3] = strlen(r->shape);
    for (int c = 0; c < 4; c++)
      if (l[c] > w[c]) w[c] = l[c] > 60 ? 60 : l[c];
  }
  etk_render_printf(s, "%-*s  %-*s  %-*s  %-*s  %12s\n", (int)w[0], "handle",
                    (int)w[1], "aot_ops", (int)w[2], "runtime_ops", (int)w[3],
                    "shape", metric);
  for (size_t k = 0; k < g->nrows; k++) {
    const etk_gap_row_t *r = &g->rows[k];
    char h[256], v[64];
    handles_text(r, h, sizeof h);
    gap_text(r->gap, v, sizeof v);
    etk_render_printf(s, "%-*.60s  %-*.60s  %-*.60s  %-*.60s  %12s%s%s%s\n",
                      (int)w[0], h, (int)w[1], r->aot_ops, (int)w[2],
                      r->runtime_ops, (int)w[3], r->shape, v,
                      r->first_diverging ? "  <- first divergence" : "",
                      r->note[0] ? "  " : "", r->note);
  }
  etk_render_printf(s, "\n%zu pairs, %s %s %.6g is a divergence", g->nrows,
                    metric,
                    g->opts.metric == ETK_NUMERICS_SNR ? "below" : "above",
                    g->opts.threshold);
  if (g->unreferenced)
    etk_render_printf(s,
                      "; %zu graph nodes have no reference (unsupported "
                      "op, or downstream of one)",
                      g->unreferenced);
  etk_render_puts(s, "\n");
}

int etk_gap_render(const etk_gap_t *g, etk_gap_format_t format,
                   etk_render_sink_t *sink, etk_error_t *err) {
  if (!g || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  if (format == ETK_GAP_JSON)
    render_json(g, sink);
  else if (format == ETK_GAP_CSV)
    render_csv(g, sink);
  else
    render_table(g, sink);
  return ETK_OK;
}
