/*
 * diff.c - A/B comparison of two ETDumps per operator: what users script
 * by hand today from two Inspector DataFrames.
 *
 * PAIRING
 *   Blocks pair by (name, occurrence): the k-th block named "Execute" in A
 *   with the k-th block named "Execute" in B.  Inside a block pair the
 *   candidate events are those with perf data, minus OPERATOR_CALL (it
 *   wraps its native_call; `all_rows` keeps it) and minus the event that
 *   gives the block's method time (it becomes a total row).  They are
 *   matched in three stages, each on what the previous left unmatched:
 *     1. exact:   (event name, instruction id, k-th such event)
 *     2. name:    (event name, k-th remaining such event)  - the program
 *                 was re-lowered and instruction ids moved
 *     3. op_type: (operator type, k-th remaining)          - names changed
 *                 (another kernel variant, another delegate instance)
 *   "k-th" keeps repeated events (a delegate's "linear #1", "#2" ...) in
 *   file order.  What is left in B is new, what is left in A is missing.
 *   A stage first walks both blocks' candidates side by side while their
 *   keys agree (the usual case: the same program run twice): those pair
 *   as the k-th rule would pair them, without hashing; only the rest is
 *   hashed.
 *
 * ROWS
 *   Per block pair three total rows (method, operators' total, framework
 *   overhead: the same accounting as `etkit inspect --summary`, see
 *   op_summary.c), then every operator row.  Operator rows are sorted by
 *   |delta| (largest first), new rows after matched ones (by B's value),
 *   missing rows last (by A's value).  The compared metric is the average
 *   by default (p50, p10, p90, min or max on request); avg and p50 of both
 *   sides are always kept.
 *
 * MEMORY
 *   Per event of both inspectors: its role (the operator summary built
 *   without operator rows, ana_op_roles_build) and one byte of flags
 *   (matched, has statistics, the latter read off the roles); the
 *   statistics are computed from the inspector when a row or a block
 *   total needs them, nothing per sample is copied.  A matching stage
 *   lists B's candidates past the common prefix per key without copying a
 *   key (about 32 bytes per listed event, while the stage runs).  All of
 *   this is freed before the rows are sorted, which happens in place
 *   through 16-byte keys.  The rows are 88 bytes each: delta and change
 *   are computed when a row is read (row_at), and the compared metric is
 *   the row's avg or p50 unless it is another one (then 16 more bytes per
 *   row in etk_diff.values).  Event names and operator types taken from
 *   them point into the dumps (the inspectors outlive the diff); decimal
 *   delegate ids, linked operator types and block texts are copied once
 *   into a pool whose strings never move: rows stay valid while the
 *   inspectors change their volatile name buffers.
 *
 * The formats (table, TSV/CSV, JSON) are written by diff_render.c, which
 * reads the rows through ana_diff_row().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "common/vec.h"

/* A row as kept: 88 bytes (etk_diff_row_t is 160); ana_diff_row() rebuilds
 * the public row, its values, delta and change. */
typedef struct diff_row {
  const char *name, *name_b, *op_type; /* dump or pool strings; NULL none */
  double avg_a, avg_b, p50_a, p50_b;
  uint32_t event_a, event_b; /* UINT32_MAX when absent */
  uint32_t count_a, count_b;
  int32_t instruction_id_a, instruction_id_b;
  uint32_t place; /* index into etk_diff.places */
  uint8_t kind, match;
} diff_row_t;

/* A block pair's text (its name, " (k+1)" for a repeated name) and k. */
typedef struct diff_place {
  const char *text;
  size_t occurrence;
} diff_place_t;

/* Append-only string store whose strings never move (chunks are never
 * reallocated): every string a row points to that is not the dump's own,
 * copied once (no hashing: a million distinct strings cost a memcpy each). */
typedef struct strings {
  char **chunks;
  size_t count, cap;
  size_t used, size; /* of the last chunk */
} strings_t;

#define POOL_CHUNK 65536u

struct etk_diff {
  diff_row_t *rows;
  double *values; /* per row A's and B's compared metric, when it is
                     neither avg nor p50 (else NULL: the rows hold it) */
  size_t nrows, cap;
  diff_place_t *places;
  size_t nplaces, places_cap;
  strings_t pool;
  etk_diff_metric_t metric;
  etk_time_scale_t unit;
};

/* ------------------------------------------------------- names */

static const char *const metric_names[] = {"avg", "p50", "p10",
                                           "p90", "min", "max"};

int etk_diff_metric_parse(const char *name, etk_diff_metric_t *out) {
  if (!name || !out) return ETK_E_INVALID_ARGUMENT;
  for (int i = 0; i < 6; i++)
    if (strcmp(name, metric_names[i]) == 0) {
      *out = (etk_diff_metric_t)i;
      return ETK_OK;
    }
  return ETK_E_INVALID_ARGUMENT;
}

const char *etk_diff_metric_name(etk_diff_metric_t m) {
  return (unsigned)m < 6 ? metric_names[m] : "?";
}

const char *etk_diff_match_name(etk_diff_match_t m) {
  static const char *const names[] = {"exact", "name",    "op_type",
                                      "new",   "missing", "total"};
  return (unsigned)m < 6 ? names[m] : "?";
}

void etk_diff_options_init(etk_diff_options_t *o) {
  if (o) memset(o, 0, sizeof *o);
}

static double metric_of(const etk_stats_t *st, etk_diff_metric_t m) {
  switch (m) {
    case ETK_DIFF_METRIC_P50:
      return st->p50;
    case ETK_DIFF_METRIC_P10:
      return st->p10;
    case ETK_DIFF_METRIC_P90:
      return st->p90;
    case ETK_DIFF_METRIC_MIN:
      return st->min;
    case ETK_DIFF_METRIC_MAX:
      return st->max;
    default:
      return st->avg;
  }
}

/* ------------------------------------------------------- one side */

/* The statistics the diff keeps per event: avg and p50 (always shown)
 * and the compared metric, exact doubles (32 bytes instead of the 56 of
 * a whole etk_stats_t). */
typedef struct side_stats {
  double avg, p50, value;
  size_t count; /* 0: no perf data */
} side_stats_t;

/* Bits of side_t.flags: matched, has statistics (perf data with a
 * duration), the event's etk_op_role_t and its delegate sign (+1 a
 * wrapping DELEGATE_CALL, -1 a delegated op inside one). */
#define SIDE_USED 1u
#define SIDE_HAS_STATS 2u
#define SIDE_ROLE_SHIFT 2 /* 3 bits */
#define SIDE_SIGN_PLUS 32u
#define SIDE_SIGN_MINUS 64u

/* What the diff needs of one inspector: one byte per event (the operator
 * summary's roles and signs are copied there, and the summary is freed),
 * and the statistics read from the inspector when a row or a total needs
 * them (nothing per sample is copied). */
typedef struct side {
  etk_inspector_t *insp;
  etk_diff_metric_t metric;
  size_t nevents, nblocks;
  size_t *method_event; /* per block: the event giving the method time */
  uint8_t *flags;       /* per event: SIDE_* */
} side_t;

static void side_free(side_t *s) {
  free(s->method_event);
  free(s->flags);
}

/* The statistics of event e (all 0 when it has none). */
static side_stats_t side_stats(const side_t *s, size_t e) {
  side_stats_t k;
  memset(&k, 0, sizeof k);
  etk_stats_t st;
  if (!(s->flags[e] & SIDE_HAS_STATS) ||
      etk_inspector_event_stats(s->insp, e, &st) != ETK_OK)
    return k;
  k.avg = st.avg;
  k.p50 = st.p50;
  k.value = metric_of(&st, s->metric);
  k.count = st.count;
  return k;
}

/* Event e's etk_op_role_t and delegate sign. */
static int side_role(const side_t *s, size_t e) {
  return (s->flags[e] >> SIDE_ROLE_SHIFT) & 7;
}

static int side_sign(const side_t *s, size_t e) {
  return (s->flags[e] & SIDE_SIGN_PLUS)    ? 1
         : (s->flags[e] & SIDE_SIGN_MINUS) ? -1
                                           : 0;
}

/* The flags of every event and the method event of every block, from the
 * operator summary `sum`. */
static void side_classify(side_t *s, const etk_op_summary_t *sum) {
  for (size_t e = 0; e < s->nevents; e++) {
    int role = etk_op_summary_event_role(sum, e),
        sign = ana_op_delegate_sign(sum, e);
    /* the summary gave every event without statistics the role NO_DATA */
    s->flags[e] = (uint8_t)((role != ETK_OP_ROLE_NO_DATA ? SIDE_HAS_STATS : 0) |
                            ((unsigned)role << SIDE_ROLE_SHIFT) |
                            (sign > 0   ? SIDE_SIGN_PLUS
                             : sign < 0 ? SIDE_SIGN_MINUS
                                        : 0));
  }
  for (size_t b = 0; b < s->nblocks; b++) {
    etk_op_summary_block_t ob;
    etk_inspector_block_t blk;
    etk_op_summary_block_get(sum, b, &ob);
    etk_inspector_block_get(s->insp, b, &blk);
    s->method_event[b] = SIZE_MAX;
    if (!ob.method_name) continue;
    int want = strcmp(ob.method_name, "Method::execute") == 0
                   ? ETK_OP_ROLE_METHOD
                   : ETK_OP_ROLE_LOAD_METHOD;
    for (size_t i = 0; i < blk.event_count; i++)
      if (side_role(s, blk.first_event + i) == want) {
        s->method_event[b] = blk.first_event + i;
        break;
      }
  }
}

static int side_load(side_t *s, etk_inspector_t *insp, etk_diff_metric_t metric,
                     etk_error_t *err) {
  memset(s, 0, sizeof *s);
  s->insp = insp;
  s->metric = metric;
  etk_op_summary_t *sum;
  int rc = ana_op_roles_build(insp, &sum, err);
  if (rc != ETK_OK) return rc;
  s->nevents = etk_inspector_event_count(insp);
  s->nblocks = etk_inspector_block_count(insp);
  s->flags = malloc(s->nevents ? s->nevents : 1);
  s->method_event =
      malloc((s->nblocks ? s->nblocks : 1) * sizeof *s->method_event);
  if (s->flags && s->method_event) side_classify(s, sum);
  etk_op_summary_free(sum);
  return s->flags && s->method_event ? ETK_OK : ETK_E_NO_MEMORY;
}

/* Is inspector event e of block b an operator candidate? */
static int is_candidate(const side_t *s, size_t b, size_t e, int all_rows) {
  if (!(s->flags[e] & SIDE_HAS_STATS) || e == s->method_event[b]) return 0;
  int role = side_role(s, e);
  if (role == ETK_OP_ROLE_METHOD) return 0;
  if (role == ETK_OP_ROLE_OPERATOR_CALL && !all_rows) return 0;
  return 1;
}

/* Operator type of event e (`ev`): the linked type when exactly one, else
 * from the name (then a part of ev->name).  Valid while `ev` is. */
static const char *event_op_type(etk_inspector_t *insp, size_t e,
                                 const etk_inspector_event_t *ev, size_t *len) {
  etk_inspector_event_link_t link;
  etk_inspector_event_link(insp, e, &link);
  if (link.op_type_count == 1 && link.op_types[0]) {
    *len = strlen(link.op_types[0]);
    return link.op_types[0];
  }
  return etk_op_type_from_name(ev->name, ev->name_len, len);
}

/* ------------------------------------------------------- rows */

/* Copies s[0..len) and a NUL into the pool; *out is the copy. */
static int pool_put(etk_diff_t *d, const char *s, size_t len,
                    const char **out) {
  strings_t *p = &d->pool;
  if (!p->count || p->size - p->used < len + 1) {
    size_t size = len + 1 > POOL_CHUNK ? len + 1 : POOL_CHUNK;
    char *chunk = malloc(size);
    if (!chunk || !ETK_VEC_RESERVE(p->chunks, p->cap, p->count + 1)) {
      free(chunk);
      return ETK_E_NO_MEMORY;
    }
    p->chunks[p->count++] = chunk;
    p->used = 0;
    p->size = size;
  }
  char *copy = p->chunks[p->count - 1] + p->used;
  if (len) memcpy(copy, s, len);
  copy[len] = '\0';
  p->used += len + 1;
  *out = copy;
  return ETK_OK;
}

static int text_equal(const char *t, const char *s, size_t len) {
  return strlen(t) == len && (len == 0 || memcmp(t, s, len) == 0);
}

/* A row's event name: a decimal delegate id is written in the inspector's
 * volatile name buffer, so it is copied to the pool; every other name is
 * the dump's own NUL-terminated string, which lives as long as the
 * inspector (the diff's contract), and is pointed to. */
static int row_name(etk_diff_t *d, const etk_inspector_event_t *ev,
                    const char **out) {
  if (ev->delegate_id_is_int) return pool_put(d, ev->name, ev->name_len, out);
  *out = ev->name;
  return ETK_OK;
}

/* Does the compared metric need etk_diff.values (not avg nor p50)? */
static int metric_kept_apart(etk_diff_metric_t m) {
  return m == ETK_DIFF_METRIC_P10 || m == ETK_DIFF_METRIC_P90 ||
         m == ETK_DIFF_METRIC_MIN || m == ETK_DIFF_METRIC_MAX;
}

/* The compared metric of row i on side A (is_b 0) or B (1). */
static double row_value(const etk_diff_t *d, size_t i, int is_b) {
  const diff_row_t *r = &d->rows[i];
  if (d->values) return d->values[2 * i + (size_t)is_b];
  if (d->metric == ETK_DIFF_METRIC_P50) return is_b ? r->p50_b : r->p50_a;
  return is_b ? r->avg_b : r->avg_a;
}

/* Sets row r's compared metric on one side (only kept when apart). */
static void row_value_set(etk_diff_t *d, const diff_row_t *r, int is_b,
                          double v) {
  if (d->values) d->values[2 * (size_t)(r - d->rows) + (size_t)is_b] = v;
}

/* A new row of block pair `place`, every value NaN. */
static diff_row_t *row_new(etk_diff_t *d, uint32_t place) {
  if (d->nrows == d->cap) {
    size_t c = d->cap ? d->cap * 2 : 64;
    diff_row_t *q = realloc(d->rows, c * sizeof *q);
    if (!q) return NULL;
    d->rows = q;
    if (metric_kept_apart(d->metric)) {
      double *v = realloc(d->values, 2 * c * sizeof *v);
      if (!v) return NULL;
      d->values = v;
    }
    d->cap = c;
  }
  diff_row_t *r = &d->rows[d->nrows++];
  memset(r, 0, sizeof *r);
  r->place = place;
  r->instruction_id_a = r->instruction_id_b = -1;
  r->event_a = r->event_b = UINT32_MAX;
  r->avg_a = r->avg_b = r->p50_a = r->p50_b = (double)NAN;
  row_value_set(d, r, 0, (double)NAN);
  row_value_set(d, r, 1, (double)NAN);
  return r;
}

/* A kept row's delta: B - A, a new row's B's value, a missing row's minus
 * A's. */
static double row_delta(const etk_diff_t *d, size_t i) {
  const diff_row_t *r = &d->rows[i];
  if (r->match == ETK_DIFF_MATCH_NEW) return row_value(d, i, 1);
  if (r->match == ETK_DIFF_MATCH_MISSING) return -row_value(d, i, 0);
  return row_value(d, i, 1) - row_value(d, i, 0);
}

/* The public row of a kept row: delta and change follow from the values. */
etk_diff_row_t ana_diff_row(const etk_diff_t *d, size_t i) {
  const diff_row_t *r = &d->rows[i];
  etk_diff_row_t p;
  memset(&p, 0, sizeof p);
  p.kind = r->kind;
  p.match = r->match;
  p.block = d->places[r->place].text;
  p.block_occurrence = d->places[r->place].occurrence;
  p.name = r->name ? r->name : "";
  p.name_b = r->name_b;
  p.op_type = r->op_type;
  p.instruction_id_a = r->instruction_id_a;
  p.instruction_id_b = r->instruction_id_b;
  p.event_a = r->event_a == UINT32_MAX ? SIZE_MAX : r->event_a;
  p.event_b = r->event_b == UINT32_MAX ? SIZE_MAX : r->event_b;
  p.count_a = r->count_a;
  p.count_b = r->count_b;
  p.avg_a = r->avg_a;
  p.avg_b = r->avg_b;
  p.p50_a = r->p50_a;
  p.p50_b = r->p50_b;
  p.value_a = row_value(d, i, 0);
  p.value_b = row_value(d, i, 1);
  p.delta = row_delta(d, i);
  p.change_pct = (double)NAN;
  if (p.match != ETK_DIFF_MATCH_NEW && p.match != ETK_DIFF_MATCH_MISSING &&
      p.value_a != 0 && p.value_a == p.value_a)
    p.change_pct = p.delta / p.value_a * 100.0;
  return p;
}

/* Fills one side of an operator row from event e.  The first side filled
 * gives the row its name and operator type; a type that is the tail of the
 * dump's own name is pointed to, any other is pooled. */
static int row_side(etk_diff_t *d, diff_row_t *r, side_t *s, size_t e, int is_b,
                    const etk_inspector_event_t *known) {
  etk_inspector_event_t ev;
  /* a known decimal name may have been overwritten since (A and B may be
   * one inspector): fetched again */
  if (known && !known->delegate_id_is_int)
    ev = *known;
  else
    etk_inspector_event_get(s->insp, e, &ev);
  const side_stats_t st = side_stats(s, e);
  diff_row_t *p = r;
  *(is_b ? &p->instruction_id_b : &p->instruction_id_a) = ev.instruction_id;
  *(is_b ? &p->event_b : &p->event_a) = (uint32_t)e;
  *(is_b ? &p->count_b : &p->count_a) = (uint32_t)st.count;
  *(is_b ? &p->avg_b : &p->avg_a) = st.avg;
  *(is_b ? &p->p50_b : &p->p50_a) = st.p50;
  row_value_set(d, r, is_b, st.value);
  if (r->name) {
    if (text_equal(r->name, ev.name, ev.name_len)) return ETK_OK;
    return row_name(d, &ev, &r->name_b);
  }
  int rc = row_name(d, &ev, &r->name);
  size_t len;
  const char *type = event_op_type(s->insp, e, &ev, &len);
  uintptr_t skip = (uintptr_t)type - (uintptr_t)ev.name;
  if (rc == ETK_OK && r->name == ev.name && skip <= ev.name_len &&
      skip + len == ev.name_len)
    r->op_type = type;
  else if (rc == ETK_OK)
    rc = pool_put(d, type, len, &r->op_type);
  return rc;
}

/* ------------------------------------------------------- matching */

/* Key of event e for a stage: 1 exact (name + iid), 2 name, 3 op type;
 * the event itself in *out when out is not NULL. */
static void stage_key(side_t *s, size_t e, int stage, etk_strbuf_t *key,
                      etk_inspector_event_t *out) {
  etk_inspector_event_t ev;
  etk_inspector_event_get(s->insp, e, &ev);
  if (out) *out = ev;
  etk_strbuf_clear(key);
  if (stage == 3) {
    size_t len;
    const char *type = event_op_type(s->insp, e, &ev, &len);
    etk_strbuf_append(key, type, len);
  } else {
    etk_strbuf_append(key, ev.name, ev.name_len);
  }
  etk_strbuf_appendc(key, '\0');
  if (stage == 1) etk_strbuf_append(key, (const char *)&ev.instruction_id, 4);
}

/* The keys of one stage among B's unmatched candidates from block-local
 * index `start` on: key ids by hash (slot: the hash's high half << 32 |
 * id + 1), and per key the block-local index of its first event (to
 * compare a key against: no key is copied) and the head and tail of its
 * list of unmatched events (local index + 1, linked through next[], which
 * is indexed by local index - start; 0 ends a list). */
typedef struct key_table {
  uint64_t *slots;
  size_t mask, start;
  uint32_t *first, *head, *tail; /* per key */
  uint32_t *next;                /* per local event from `start` */
  uint32_t *lists;               /* the one allocation of the four */
  size_t count;
  etk_strbuf_t other; /* a compared key */
} key_table_t;

static int key_table_init(key_table_t *t, size_t start, size_t events) {
  memset(t, 0, sizeof *t);
  etk_strbuf_init(&t->other);
  size_t slots = 16;
  while (slots < 2 * events) slots *= 2;
  size_t n = events ? events : 1;
  t->mask = slots - 1;
  t->start = start;
  t->slots = calloc(slots, sizeof *t->slots);
  t->lists = malloc(4 * n * sizeof *t->lists);
  if (!t->slots || !t->lists) return ETK_E_NO_MEMORY;
  t->first = t->lists;
  t->head = t->lists + n;
  t->tail = t->lists + 2 * n;
  t->next = t->lists + 3 * n;
  return ETK_OK;
}

static void key_table_free(key_table_t *t) {
  free(t->slots);
  free(t->lists);
  etk_strbuf_free(&t->other);
}

/* Multiply-xorshift over 8-byte words, the tail as one word. */
static uint64_t key_bytes_hash(const char *p, size_t n) {
  uint64_t h = 0xCBF29CE484222325ull + n, w;
  for (; n >= 8; p += 8, n -= 8) {
    memcpy(&w, p, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 32;
  }
  w = 0;
  memcpy(&w, p, n);
  h = (h ^ w) * 0xD6E8FEB86659FD93ull;
  return h ^ (h >> 29);
}

/* The key id of `key` (hash h) among B's block (first event
 * blk_first), or UINT32_MAX; *slot receives where a new key would go. */
static uint32_t key_table_find(key_table_t *t, side_t *B, size_t blk_first,
                               int stage, const etk_strbuf_t *key, uint64_t h,
                               size_t *slot) {
  const uint64_t tag = h & 0xFFFFFFFF00000000ull;
  size_t i = (size_t)h & t->mask;
  for (;; i = (i + 1) & t->mask) {
    uint64_t s = t->slots[i];
    if (s == 0) break;
    if ((s & 0xFFFFFFFF00000000ull) != tag) continue;
    uint32_t id = (uint32_t)s - 1;
    stage_key(B, blk_first + t->first[id], stage, &t->other, NULL);
    if (t->other.len == key->len &&
        memcmp(t->other.data, key->data, key->len) == 0)
      return id;
  }
  *slot = i;
  return UINT32_MAX;
}

/* Is event e of side s's block b a candidate not matched yet? */
static int is_free_candidate(const side_t *s, size_t b, size_t e,
                             int all_rows) {
  return !(s->flags[e] & SIDE_USED) && is_candidate(s, b, e, all_rows);
}

/* Lists B's unmatched candidates of block bb from t->start on per key, in
 * file order. */
static int key_table_fill(key_table_t *t, side_t *B, size_t bb,
                          const etk_inspector_block_t *blkb, int stage,
                          int all_rows, etk_strbuf_t *key) {
  for (size_t i = t->start; i < blkb->event_count; i++) {
    size_t e = blkb->first_event + i;
    if (!is_free_candidate(B, bb, e, all_rows)) continue;
    stage_key(B, e, stage, key, NULL);
    if (key->failed) return ETK_E_NO_MEMORY;
    uint64_t h = key_bytes_hash(key->data, key->len);
    size_t slot = 0;
    uint32_t id = key_table_find(t, B, blkb->first_event, stage, key, h, &slot);
    if (t->other.failed) return ETK_E_NO_MEMORY;
    t->next[i - t->start] = 0;
    if (id == UINT32_MAX) {
      id = (uint32_t)t->count++;
      t->slots[slot] = (h & 0xFFFFFFFF00000000ull) | ((uint64_t)id + 1);
      t->first[id] = (uint32_t)i;
      t->head[id] = (uint32_t)i + 1;
    } else {
      t->next[t->tail[id] - 1 - t->start] = (uint32_t)i + 1;
    }
    t->tail[id] = (uint32_t)i + 1;
  }
  return ETK_OK;
}

/* A new operator row for A's event e and B's event eb matched at `stage`
 * (both marked used); ev_a and ev_b are the events when known, else NULL. */
static int match_pair(etk_diff_t *d, side_t *A, size_t e,
                      const etk_inspector_event_t *ev_a, side_t *B, size_t eb,
                      const etk_inspector_event_t *ev_b, int stage,
                      uint32_t place) {
  A->flags[e] |= SIDE_USED;
  B->flags[eb] |= SIDE_USED;
  diff_row_t *r = row_new(d, place);
  if (!r) return ETK_E_NO_MEMORY;
  r->kind = ETK_DIFF_ROW_OPERATOR;
  r->match = stage == 1   ? ETK_DIFF_MATCH_EXACT
             : stage == 2 ? ETK_DIFF_MATCH_NAME
                          : ETK_DIFF_MATCH_OP_TYPE;
  int rc = row_side(d, r, A, e, 0, ev_a);
  return rc == ETK_OK ? row_side(d, r, B, eb, 1, ev_b) : rc;
}

/* The common prefix of both blocks' unmatched candidates: while the i-th
 * candidate of A and the i-th of B have the same key they pair, which is
 * what the k-th-of-its-key rule gives them (each key has been seen as
 * often on both sides so far), without a hash.  *ia and *ib receive the
 * block-local indices where each side's rest starts. */
static int match_prefix(etk_diff_t *d, side_t *A, size_t ba,
                        const etk_inspector_block_t *blka, side_t *B, size_t bb,
                        const etk_inspector_block_t *blkb, int stage,
                        int all_rows, uint32_t place, etk_strbuf_t *key,
                        etk_strbuf_t *other, size_t *ia, size_t *ib) {
  size_t i = 0, j = 0;
  int rc = ETK_OK;
  while (rc == ETK_OK) {
    while (i < blka->event_count &&
           !is_free_candidate(A, ba, blka->first_event + i, all_rows))
      i++;
    while (j < blkb->event_count &&
           !is_free_candidate(B, bb, blkb->first_event + j, all_rows))
      j++;
    if (i == blka->event_count || j == blkb->event_count) break;
    etk_inspector_event_t ev_a, ev_b;
    stage_key(A, blka->first_event + i, stage, key, &ev_a);
    stage_key(B, blkb->first_event + j, stage, other, &ev_b);
    if (key->failed || other->failed) rc = ETK_E_NO_MEMORY;
    if (rc != ETK_OK || key->len != other->len ||
        memcmp(key->data, other->data, key->len) != 0)
      break;
    rc = match_pair(d, A, blka->first_event + i, &ev_a, B,
                    blkb->first_event + j, &ev_b, stage, place);
    i++;
    j++;
  }
  *ia = i;
  *ib = j;
  return rc;
}

/* One matching stage between block ba of A and block bb of B.  After the
 * common prefix, B's unmatched candidates are listed per key in file
 * order; each A candidate (in file order) takes the first free B event of
 * its key, so the k-th event of a key in A pairs with the k-th in B.  One
 * hash per event. */
static int match_stage(etk_diff_t *d, side_t *A, size_t ba, side_t *B,
                       size_t bb, int stage, int all_rows, uint32_t place) {
  etk_inspector_block_t blka, blkb;
  etk_inspector_block_get(A->insp, ba, &blka);
  etk_inspector_block_get(B->insp, bb, &blkb);
  key_table_t t;
  memset(&t, 0, sizeof t);
  etk_strbuf_t key;
  etk_strbuf_init(&key);
  etk_strbuf_init(&t.other);
  size_t ia, ib;
  int rc = match_prefix(d, A, ba, &blka, B, bb, &blkb, stage, all_rows, place,
                        &key, &t.other, &ia, &ib);
  etk_strbuf_free(&t.other);
  if (rc == ETK_OK && ia < blka.event_count && ib < blkb.event_count)
    rc = key_table_init(&t, ib, blkb.event_count - ib);
  if (rc == ETK_OK && t.slots)
    rc = key_table_fill(&t, B, bb, &blkb, stage, all_rows, &key);
  for (size_t i = ia; i < blka.event_count && rc == ETK_OK && t.count; i++) {
    size_t e = blka.first_event + i;
    if (!is_free_candidate(A, ba, e, all_rows)) continue;
    etk_inspector_event_t ev_a;
    stage_key(A, e, stage, &key, &ev_a);
    if (key.failed) {
      rc = ETK_E_NO_MEMORY;
      break;
    }
    size_t slot;
    uint32_t id = key_table_find(&t, B, blkb.first_event, stage, &key,
                                 key_bytes_hash(key.data, key.len), &slot);
    if (id == UINT32_MAX || t.head[id] == 0) continue;
    size_t local = t.head[id] - 1;
    t.head[id] = t.next[local - t.start];
    rc = match_pair(d, A, e, &ev_a, B, blkb.first_event + local, NULL, stage,
                    place);
  }
  if (rc == ETK_OK && t.other.failed) rc = ETK_E_NO_MEMORY;
  key_table_free(&t);
  etk_strbuf_free(&key);
  return rc;
}

/* Leftover candidates of one side's block become new / missing rows. */
static int leftovers(etk_diff_t *d, side_t *s, size_t b, int is_b, int all_rows,
                     uint32_t place) {
  etk_inspector_block_t blk;
  etk_inspector_block_get(s->insp, b, &blk);
  int rc = ETK_OK;
  for (size_t i = 0; i < blk.event_count && rc == ETK_OK; i++) {
    size_t e = blk.first_event + i;
    if (!is_free_candidate(s, b, e, all_rows)) continue;
    diff_row_t *r = row_new(d, place);
    if (!r) return ETK_E_NO_MEMORY;
    r->kind = ETK_DIFF_ROW_OPERATOR;
    r->match = is_b ? ETK_DIFF_MATCH_NEW : ETK_DIFF_MATCH_MISSING;
    rc = row_side(d, r, s, e, is_b, NULL);
  }
  return rc;
}
/* The total rows of a block pair (either side may be absent): method,
 * operators, delegate overhead (only when a side has wrapping
 * DELEGATE_CALLs) and framework overhead, the rules of op_summary.c. */
static int total_rows(etk_diff_t *d, side_t *A, size_t ba, side_t *B, size_t bb,
                      uint32_t place) {
  static const char *const names[4] = {
      "method", "operators", "delegate overhead", "framework overhead"};
  double va[4], vb[4];
  size_t ca[4] = {0, 0, 0, 0}, cb[4] = {0, 0, 0, 0};
  double aa[4], ab[4], pa[4], pb[4];
  int has_delegate = 0;
  for (int k = 0; k < 4; k++)
    va[k] = vb[k] = aa[k] = ab[k] = pa[k] = pb[k] = (double)NAN;
  for (int side = 0; side < 2; side++) {
    side_t *s = side ? B : A;
    size_t b = side ? bb : ba;
    if (b == SIZE_MAX) continue;
    double *v = side ? vb : va, *avg = side ? ab : aa, *p50 = side ? pb : pa;
    size_t *c = side ? cb : ca;
    size_t me = s->method_event[b];
    if (me != SIZE_MAX) {
      side_stats_t k = side_stats(s, me);
      v[0] = k.value;
      avg[0] = k.avg;
      p50[0] = k.p50;
      c[0] = k.count;
    }
    etk_inspector_block_t blk;
    etk_inspector_block_get(s->insp, b, &blk);
    for (int k = 1; k < 3; k++) v[k] = avg[k] = p50[k] = 0;
    for (size_t i = 0; i < blk.event_count; i++) {
      size_t e = blk.first_event + i;
      int sign = side_sign(s, e);
      int op = side_role(s, e) == ETK_OP_ROLE_OPERATOR;
      if (!sign && !op) continue;
      side_stats_t k = side_stats(s, e);
      if (sign) {
        v[2] += sign * k.value;
        avg[2] += sign * k.avg;
        p50[2] += sign * k.p50;
        if (sign > 0) c[2]++;
      }
      if (!op) continue;
      v[1] += k.value;
      avg[1] += k.avg;
      p50[1] += k.p50;
      c[1]++;
    }
    if (c[2]) has_delegate = 1;
    v[3] = v[0] - v[1] - v[2];
    avg[3] = avg[0] - avg[1] - avg[2];
    p50[3] = p50[0] - p50[1] - p50[2];
  }
  if (!has_delegate) va[2] = vb[2] = (double)NAN;
  for (int k = 0; k < 4; k++) {
    if (va[k] != va[k] && vb[k] != vb[k]) continue; /* no method time */
    diff_row_t *r = row_new(d, place);
    if (!r) return ETK_E_NO_MEMORY;
    diff_row_t *p = r;
    p->kind = k == 0   ? ETK_DIFF_ROW_METHOD
              : k == 1 ? ETK_DIFF_ROW_OPERATORS_TOTAL
              : k == 2 ? ETK_DIFF_ROW_DELEGATE_OVERHEAD
                       : ETK_DIFF_ROW_FRAMEWORK_OVERHEAD;
    p->match = ETK_DIFF_MATCH_TOTAL;
    p->name = names[k];
    row_value_set(d, p, 0, va[k]);
    row_value_set(d, p, 1, vb[k]);
    p->avg_a = aa[k];
    p->avg_b = ab[k];
    p->p50_a = pa[k];
    p->p50_b = pb[k];
    p->count_a = (uint32_t)ca[k];
    p->count_b = (uint32_t)cb[k];
    if (k == 0) {
      if (ba != SIZE_MAX && A->method_event[ba] != SIZE_MAX) {
        etk_inspector_event_t ev;
        etk_inspector_event_get(A->insp, A->method_event[ba], &ev);
        p->event_a = (uint32_t)A->method_event[ba];
        p->instruction_id_a = ev.instruction_id;
      }
      if (bb != SIZE_MAX && B->method_event[bb] != SIZE_MAX) {
        etk_inspector_event_t ev;
        etk_inspector_event_get(B->insp, B->method_event[bb], &ev);
        p->event_b = (uint32_t)B->method_event[bb];
        p->instruction_id_b = ev.instruction_id;
      }
    }
  }
  return ETK_OK;
}

/* A new block pair (*id): the block's name, plus " (k+1)" for a
 * repeated name, and k. */
static int place_new(etk_diff_t *d, const char *name, size_t len,
                     size_t occurrence, uint32_t *id) {
  if (d->nplaces >= UINT32_MAX ||
      !ETK_VEC_RESERVE(d->places, d->places_cap, d->nplaces + 1))
    return ETK_E_NO_MEMORY;
  etk_strbuf_t t;
  etk_strbuf_init(&t);
  etk_strbuf_append(&t, name ? name : "", name ? len : 0);
  if (occurrence) etk_strbuf_printf(&t, " (%zu)", occurrence + 1);
  diff_place_t *at = &d->places[d->nplaces];
  at->occurrence = occurrence;
  int rc = t.failed ? ETK_E_NO_MEMORY
                    : pool_put(d, t.data ? t.data : "", t.len, &at->text);
  etk_strbuf_free(&t);
  if (rc == ETK_OK) *id = (uint32_t)d->nplaces++;
  return rc;
}

/* ------------------------------------------------------- sorting */

/* Rows sort by (class, |delta| descending, original position): the key is
 * computed once per row, and the position makes qsort's order stable
 * without any shared state (the diff may be built in several threads). */
typedef struct sort_key {
  double key;
  uint32_t pos; /* row counts are checked to fit */
  int32_t cls;
} sort_key_t;

static int cmp_keys(const void *pa, const void *pb) {
  const sort_key_t *x = pa, *y = pb;
  if (x->cls != y->cls) return x->cls - y->cls;
  if (x->key != y->key) return x->key > y->key ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The sort key of row i. */
static sort_key_t sort_key_of(const etk_diff_t *d, size_t i) {
  sort_key_t k;
  k.cls = ana_diff_match_class(d->rows[i].match);
  /* totals keep block order; NaN deltas cannot happen outside totals */
  k.key = k.cls == 0 ? 0 : fabs(row_delta(d, i));
  k.pos = (uint32_t)i;
  return k;
}

/* Sorts the rows (and their values kept apart) in place: the keys are
 * sorted, then the permutation is applied cycle by cycle (one row of
 * scratch), so the rows are never held twice. */
static int sort_rows(etk_diff_t *d) {
  if (d->nrows < 2) return ETK_OK;
  if (d->nrows > UINT32_MAX) return ETK_E_LIMIT;
  /* the rows may be in order already (one block pair whose deltas are
   * all equal, as when a dump is compared with itself): then kept */
  sort_key_t prev = sort_key_of(d, 0), next;
  size_t ordered = 1;
  for (; ordered < d->nrows; ordered++, prev = next) {
    next = sort_key_of(d, ordered);
    if (cmp_keys(&prev, &next) > 0) break;
  }
  if (ordered == d->nrows) return ETK_OK;
  sort_key_t *keys = malloc(d->nrows * sizeof *keys);
  if (!keys) return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < d->nrows; i++) keys[i] = sort_key_of(d, i);
  qsort(keys, d->nrows, sizeof *keys, cmp_keys);
  /* row i takes row keys[i].pos; a visited cycle is marked by setting its
   * keys' pos to i itself */
  for (size_t i = 0; i < d->nrows; i++) {
    if (keys[i].pos == i) continue;
    diff_row_t held = d->rows[i];
    double held_values[2] = {0, 0};
    if (d->values) memcpy(held_values, d->values + 2 * i, sizeof held_values);
    size_t at = i;
    for (;;) {
      size_t from = keys[at].pos;
      keys[at].pos = (uint32_t)at;
      if (from == i) {
        d->rows[at] = held;
        if (d->values)
          memcpy(d->values + 2 * at, held_values, sizeof held_values);
        break;
      }
      d->rows[at] = d->rows[from];
      if (d->values)
        memcpy(d->values + 2 * at, d->values + 2 * from, sizeof held_values);
      at = from;
    }
  }
  free(keys);
  return ETK_OK;
}

/* ------------------------------------------------------- build */

/* Pairing blocks by (name, occurrence): name ids count occurrences, and
 * the composite key is name + NUL + k. */
typedef struct pairing {
  ana_intern_t bnames, bkeys, anames;
  size_t *b_of_key, *occ_b, *occ_a; /* B block per key; occurrences */
  uint8_t *b_paired;                /* per B block */
  etk_strbuf_t key;
} pairing_t;

static int pairing_init(pairing_t *p, size_t a_blocks, size_t b_blocks) {
  memset(p, 0, sizeof *p);
  ana_intern_init(&p->bnames);
  ana_intern_init(&p->bkeys);
  ana_intern_init(&p->anames);
  etk_strbuf_init(&p->key);
  p->b_of_key = malloc((b_blocks ? b_blocks : 1) * sizeof *p->b_of_key);
  p->occ_b = calloc(b_blocks ? b_blocks : 1, sizeof *p->occ_b);
  p->b_paired = calloc(b_blocks ? b_blocks : 1, 1);
  p->occ_a = calloc(a_blocks ? a_blocks : 1, sizeof *p->occ_a);
  return p->b_of_key && p->occ_b && p->b_paired && p->occ_a ? ETK_OK
                                                            : ETK_E_NO_MEMORY;
}

static void pairing_free(pairing_t *p) {
  etk_strbuf_free(&p->key);
  ana_intern_free(&p->bnames);
  ana_intern_free(&p->bkeys);
  ana_intern_free(&p->anames);
  free(p->b_of_key);
  free(p->occ_b);
  free(p->occ_a);
  free(p->b_paired);
}

/* The occurrence *k of a block's name among the blocks seen so far on its
 * side (names, occ), and its key in p->key. */
static int block_key(pairing_t *p, ana_intern_t *names, size_t *occ,
                     const etk_inspector_block_t *blk, size_t *k) {
  uint32_t nid;
  int rc = ana_intern_put(names, blk->name, blk->name_len, &nid, NULL);
  if (rc != ETK_OK) return rc;
  *k = occ[nid]++;
  etk_strbuf_clear(&p->key);
  etk_strbuf_append(&p->key, blk->name, blk->name_len);
  etk_strbuf_appendc(&p->key, '\0');
  etk_strbuf_append(&p->key, (const char *)k, sizeof *k);
  return p->key.failed ? ETK_E_NO_MEMORY : ETK_OK;
}

/* B's blocks by key. */
static int pairing_index_b(pairing_t *p, const side_t *B) {
  int rc = ETK_OK;
  for (size_t bb = 0; bb < B->nblocks && rc == ETK_OK; bb++) {
    etk_inspector_block_t blk;
    etk_inspector_block_get(B->insp, bb, &blk);
    size_t k;
    uint32_t id;
    rc = block_key(p, &p->bnames, p->occ_b, &blk, &k);
    if (rc == ETK_OK)
      rc = ana_intern_put(&p->bkeys, p->key.data, p->key.len, &id, NULL);
    if (rc == ETK_OK) p->b_of_key[id] = bb;
  }
  return rc;
}

/* The rows of A's block ba (occurrence k of its name) against B's block bb
 * (SIZE_MAX when it has no partner). */
static int diff_block_pair(etk_diff_t *d, side_t *A, size_t ba, side_t *B,
                           size_t bb, const etk_inspector_block_t *blk,
                           size_t k, int all_rows) {
  uint32_t place;
  int rc = place_new(d, blk->name, blk->name_len, k, &place);
  if (rc == ETK_OK) rc = total_rows(d, A, ba, B, bb, place);
  for (int stage = 1; stage <= 3 && rc == ETK_OK && bb != SIZE_MAX; stage++)
    rc = match_stage(d, A, ba, B, bb, stage, all_rows, place);
  if (rc == ETK_OK && bb != SIZE_MAX)
    rc = leftovers(d, B, bb, 1, all_rows, place);
  if (rc == ETK_OK) rc = leftovers(d, A, ba, 0, all_rows, place);
  return rc;
}

/* A's blocks in order, each with its B partner. */
static int diff_a_blocks(etk_diff_t *d, pairing_t *p, side_t *A, side_t *B,
                         int all_rows) {
  int rc = ETK_OK;
  for (size_t ba = 0; ba < A->nblocks && rc == ETK_OK; ba++) {
    etk_inspector_block_t blk;
    etk_inspector_block_get(A->insp, ba, &blk);
    size_t k;
    rc = block_key(p, &p->anames, p->occ_a, &blk, &k);
    if (rc != ETK_OK) break;
    uint32_t id = ana_intern_find(&p->bkeys, p->key.data, p->key.len);
    size_t bb = id == UINT32_MAX ? SIZE_MAX : p->b_of_key[id];
    if (bb != SIZE_MAX) p->b_paired[bb] = 1;
    rc = diff_block_pair(d, A, ba, B, bb, &blk, k, all_rows);
  }
  return rc;
}

/* B's blocks without a partner: everything is new. */
static int diff_unpaired_b(etk_diff_t *d, const pairing_t *p, side_t *A,
                           side_t *B, int all_rows) {
  int rc = ETK_OK;
  for (size_t bb = 0; bb < B->nblocks && rc == ETK_OK; bb++) {
    if (p->b_paired[bb]) continue;
    etk_inspector_block_t blk;
    etk_inspector_block_get(B->insp, bb, &blk);
    /* its occurrence among B's blocks of that name */
    size_t k = 0;
    for (size_t j = 0; j < bb; j++) {
      etk_inspector_block_t o2;
      etk_inspector_block_get(B->insp, j, &o2);
      if (o2.name_len == blk.name_len &&
          (blk.name_len == 0 || memcmp(o2.name, blk.name, blk.name_len) == 0))
        k++;
    }
    uint32_t place;
    rc = place_new(d, blk.name, blk.name_len, k, &place);
    if (rc == ETK_OK) rc = total_rows(d, A, SIZE_MAX, B, bb, place);
    if (rc == ETK_OK) rc = leftovers(d, B, bb, 1, all_rows, place);
  }
  return rc;
}

/* Each side's flags, then the rows block pair by block pair, then the
 * sort (see the top of the file). */
int etk_diff_build(etk_inspector_t *a, etk_inspector_t *b,
                   const etk_diff_options_t *options, etk_diff_t **out,
                   etk_error_t *err) {
  if (!a || !b || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_diff_build: NULL argument");
  *out = NULL;
  etk_diff_options_t defaults;
  etk_diff_options_init(&defaults);
  const etk_diff_options_t *o = options ? options : &defaults;
  etk_diff_t *d = calloc(1, sizeof *d);
  if (!d)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  d->metric = o->metric;
  d->unit = etk_inspector_target_time_scale(a);
  side_t A, B;
  memset(&A, 0, sizeof A);
  memset(&B, 0, sizeof B);
  int rc = side_load(&A, a, o->metric, err);
  if (rc == ETK_OK) rc = side_load(&B, b, o->metric, err);
  pairing_t p;
  memset(&p, 0, sizeof p); /* freeing it is safe whatever happens */
  if (rc == ETK_OK) rc = pairing_init(&p, A.nblocks, B.nblocks);
  if (rc == ETK_OK) rc = pairing_index_b(&p, &B);
  if (rc == ETK_OK) rc = diff_a_blocks(d, &p, &A, &B, o->all_rows);
  if (rc == ETK_OK) rc = diff_unpaired_b(d, &p, &A, &B, o->all_rows);
  /* the statistics and summaries are not needed to sort: freed first */
  pairing_free(&p);
  side_free(&A);
  side_free(&B);
  if (rc == ETK_OK) rc = sort_rows(d);
  if (rc != ETK_OK) {
    etk_diff_free(d);
    if (err && err->code != ETK_OK) return err->code;
    return etk_error_set(err, rc, ETK_NO_OFFSET, "diff: %s", etk_strerror(rc));
  }
  *out = d;
  return ETK_OK;
}

void etk_diff_free(etk_diff_t *d) {
  if (!d) return;
  free(d->rows);
  free(d->values);
  free(d->places);
  for (size_t i = 0; i < d->pool.count; i++) free(d->pool.chunks[i]);
  free(d->pool.chunks);
  free(d);
}

size_t etk_diff_row_count(const etk_diff_t *d) {
  return d ? d->nrows : 0;
}

int etk_diff_row_get(const etk_diff_t *d, size_t index, etk_diff_row_t *out) {
  if (!d || !out || index >= d->nrows) return ETK_E_INVALID_ARGUMENT;
  *out = ana_diff_row(d, index);
  return ETK_OK;
}

size_t etk_diff_regression_count(const etk_diff_t *d, double pct,
                                 double min_delta) {
  size_t n = 0;
  for (size_t i = 0; d && i < d->nrows; i++) {
    const etk_diff_row_t row = ana_diff_row(d, i), *r = &row;
    if (r->kind != ETK_DIFF_ROW_OPERATOR || ana_diff_match_class(r->match) != 1)
      continue;
    if (r->change_pct == r->change_pct && r->change_pct > pct &&
        r->delta >= min_delta)
      n++;
  }
  return n;
}

etk_diff_metric_t ana_diff_metric(const etk_diff_t *d) {
  return d->metric;
}

etk_time_scale_t ana_diff_unit(const etk_diff_t *d) {
  return d->unit;
}
