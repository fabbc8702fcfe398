/*
 * memory_plan_overlaps.c - the unsafe-overlap check of a memory plan: two
 * tensors of one mem_id whose byte ranges intersect while their lifetimes
 * intersect, unless one is an alias of the other (et_view, transitively).
 *
 * ALGORITHM (rectangle intersection by a sweep over time)
 *   Each tensor with a lifetime and bytes gives an insertion event at its
 *   first instruction and a removal event after its last.  Events are
 *   sorted by (mem_id, instruction, removals first, value).  The tensors
 *   live at the sweep's instruction sit in a treap keyed by (offset,
 *   value) whose nodes also hold the largest end of their subtree, so
 *   "which live tensors intersect [offset, end)" visits only subtrees that
 *   can hold an answer: O(log n + answers) for a plan whose live tensors
 *   are disjoint.  Each pair is found once, when the later of the two is
 *   inserted.  Total: O(n log n + pairs), memory O(n) (index arrays).
 *
 * BOUNDS
 *   At most ETK_MEMORY_PLAN_MAX_OVERLAPS pairs are found; then the sweep
 *   stops and `overlaps_truncated` is set (a pathological plan, e.g. a
 *   million live tensors at one place, must not take quadratic time).
 *   Recursion depth is the treap's depth, O(log n) with high probability.
 */
#include <stdlib.h>

#include "memory_plan_internal.h"
#include "common/vec.h"

typedef struct sweep_event {
  uint32_t mem_id, value;
  int64_t at;
  int insert; /* 0 removal (sorts first), 1 insertion */
  size_t k;   /* tensor index */
} sweep_event_t;

static int event_cmp(const void *pa, const void *pb) {
  const sweep_event_t *a = pa, *b = pb;
  if (a->mem_id != b->mem_id) return a->mem_id < b->mem_id ? -1 : 1;
  if (a->at != b->at) return a->at < b->at ? -1 : 1;
  if (a->insert != b->insert) return a->insert - b->insert;
  return (a->value > b->value) - (a->value < b->value);
}

/* One treap node per tensor, packed in one cache line's worth of bytes
 * (the sweep's cost is memory latency). */
typedef struct node {
  int64_t left, right;
  uint64_t offset, end, max_end;
  uint32_t value, prio;
  size_t group; /* alias group root */
} node_t;

typedef struct treap {
  const etk_memory_plan_tensor_t *ts;
  node_t *n;
  etk_mp_internal_t *in;
  int64_t probe; /* the tensor being inserted, for reports */
} treap_t;

static uint64_t end_of(const treap_t *t, int64_t k) {
  return t->n[k].end;
}

static int key_less(const treap_t *t, int64_t a, int64_t b) {
  const node_t *x = &t->n[a], *y = &t->n[b];
  if (x->offset != y->offset) return x->offset < y->offset;
  return x->value < y->value;
}

static void pull(treap_t *t, int64_t k) {
  node_t *x = &t->n[k];
  uint64_t m = x->end;
  if (x->left >= 0 && t->n[x->left].max_end > m) m = t->n[x->left].max_end;
  if (x->right >= 0 && t->n[x->right].max_end > m) m = t->n[x->right].max_end;
  x->max_end = m;
}

/* Splits `root` into keys < key(k) (*a) and keys >= key(k) (*b). */
static void split(treap_t *t, int64_t root, int64_t k, int64_t *a, int64_t *b) {
  if (root < 0) {
    *a = *b = -1;
    return;
  }
  if (key_less(t, root, k)) {
    split(t, t->n[root].right, k, &t->n[root].right, b);
    *a = root;
  } else {
    split(t, t->n[root].left, k, a, &t->n[root].left);
    *b = root;
  }
  pull(t, root);
}

static int64_t merge(treap_t *t, int64_t a, int64_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  if (t->n[a].prio > t->n[b].prio) {
    t->n[a].right = merge(t, t->n[a].right, b);
    pull(t, a);
    return a;
  }
  t->n[b].left = merge(t, a, t->n[b].left);
  pull(t, b);
  return b;
}

static int64_t erase(treap_t *t, int64_t root, int64_t k) {
  if (root < 0) return -1;
  if (root == k) return merge(t, t->n[root].left, t->n[root].right);
  if (key_less(t, k, root))
    t->n[root].left = erase(t, t->n[root].left, k);
  else
    t->n[root].right = erase(t, t->n[root].right, k);
  pull(t, root);
  return root;
}

static void record(treap_t *t, int64_t other) {
  etk_mp_internal_t *in = t->in;
  if (in->pub.overlap_count >= ETK_MEMORY_PLAN_MAX_OVERLAPS) {
    in->pub.overlaps_truncated = true;
    return;
  }
  if (!ETK_VEC_RESERVE(in->overlaps, in->overlap_cap,
                       in->pub.overlap_count + 1)) {
    in->overlap_oom = 1;
    return;
  }
  const etk_memory_plan_tensor_t *x = &t->ts[t->probe], *y = &t->ts[other];
  etk_memory_plan_overlap_t *o = &in->overlaps[in->pub.overlap_count++];
  in->pub.overlap_total++;
  o->a = x->value < y->value ? x->value : y->value;
  o->b = x->value < y->value ? y->value : x->value;
  o->mem_id = x->mem_id;
  o->byte_start = x->offset > y->offset ? x->offset : y->offset;
  uint64_t xe = end_of(t, t->probe), ye = end_of(t, other);
  o->byte_end = xe < ye ? xe : ye;
  o->first = x->first > y->first ? x->first : y->first;
  o->last = x->last < y->last ? x->last : y->last;
}

/* Reports every node of `root` whose bytes intersect [lo, hi). */
static void query(treap_t *t, int64_t root, uint64_t lo, uint64_t hi) {
  if (root < 0 || t->n[root].max_end <= lo || t->in->pub.overlaps_truncated ||
      t->in->overlap_oom)
    return;
  const node_t *x = &t->n[root];
  query(t, x->left, lo, hi);
  if (x->offset >= hi) return;
  if (x->end > lo && x->group != t->n[t->probe].group) record(t, root);
  query(t, x->right, lo, hi);
}

static size_t group_root(size_t *parent, size_t k) {
  while (parent[k] != k) {
    parent[k] = parent[parent[k]];
    k = parent[k];
  }
  return k;
}

static int overlap_cmp(const void *pa, const void *pb) {
  const etk_memory_plan_overlap_t *a = pa, *b = pb;
  if (a->a != b->a) return a->a < b->a ? -1 : 1;
  return (a->b > b->b) - (a->b < b->b);
}

int etk_mp_find_overlaps(etk_mp_internal_t *in) {
  size_t nt = in->pub.tensor_count, n = 0;
  treap_t t = {in->tensors, NULL, in, -1};
  sweep_event_t *ev = malloc((2 * nt + 1) * sizeof *ev);
  size_t *group = malloc((nt + 1) * sizeof *group);
  t.n = malloc((nt + 1) * sizeof *t.n);
  int rc = ETK_OK;
  if (!ev || !group || !t.n) {
    rc = ETK_E_NO_MEMORY;
    goto done;
  }
  for (size_t k = 0; k < nt; k++) group[k] = k;
  for (size_t k = 0; k < nt; k++) {
    const etk_memory_plan_tensor_t *x = &in->tensors[k];
    int64_t base = x->alias_of >= 0
                       ? etk_memory_plan_find(&in->pub, (uint32_t)x->alias_of)
                       : -1;
    if (base >= 0)
      group[group_root(group, k)] = group_root(group, (size_t)base);
    if (x->first < 0 || x->nbytes == 0) continue;
    ev[n++] = (sweep_event_t){x->mem_id, x->value, x->first, 1, k};
    ev[n++] = (sweep_event_t){x->mem_id, x->value, x->last + 1, 0, k};
  }
  uint32_t seed = 0x9E3779B9u;
  for (size_t k = 0; k < nt; k++) {
    const etk_memory_plan_tensor_t *x = &in->tensors[k];
    seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
    t.n[k] = (node_t){-1,
                      -1,
                      x->offset,
                      x->offset + x->nbytes,
                      x->offset + x->nbytes,
                      x->value,
                      seed,
                      group_root(group, k)};
  }
  qsort(ev, n, sizeof *ev, event_cmp);
  int64_t root = -1;
  for (size_t i = 0; i < n && !in->pub.overlaps_truncated; i++) {
    if (i > 0 && ev[i].mem_id != ev[i - 1].mem_id) root = -1;
    int64_t k = (int64_t)ev[i].k;
    if (!ev[i].insert) {
      root = erase(&t, root, k);
      continue;
    }
    t.probe = k;
    query(&t, root, t.n[k].offset, t.n[k].end);
    int64_t a, b;
    split(&t, root, k, &a, &b);
    t.n[k].left = t.n[k].right = -1;
    pull(&t, k);
    root = merge(&t, merge(&t, a, k), b);
  }
  if (in->overlap_oom) rc = ETK_E_NO_MEMORY;
  if (in->pub.overlap_count)
    qsort(in->overlaps, in->pub.overlap_count, sizeof *in->overlaps,
          overlap_cmp);
  in->pub.overlaps = in->overlaps;
done:
  free(ev);
  free(group);
  free(t.n);
  return rc;
}
