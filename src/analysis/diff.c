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
 *   An operator row is its two event indices (8 bytes, the match stage in
 *   two spare bits): its names, instruction ids, statistics, delta and
 *   change are read from the inspectors whenever the row is read
 *   (ana_diff_row_read), so a diff of two dumps adds about 8 bytes per
 *   operator to the inspectors it borrows.  The few total rows (sums) are
 *   computed once and kept whole, apart.  While the diff is built, each
 *   side has four bits per event (its role and delegate sign from the
 *   operator summary built without operator rows, ana_op_roles_build, and
 *   whether it is matched), and a matching stage lists B's candidates past
 *   the common prefix per key without copying a key (about 32 bytes per
 *   listed event while the stage runs); all of it is freed before the
 *   sort.  The sort keeps the rows where they are: 16-byte keys are sorted
 *   and the permutation applied in place, and when the rows are in order
 *   already (a dump against itself) no key is held at all; the walk that
 *   checks the order also gathers the rows' largest values, which a
 *   rendering needs for its units.  Names are the dumps' own strings (the
 *   inspectors outlive the diff); the texts that are not (a decimal
 *   delegate id, written in an inspector's volatile name buffer, and an
 *   operator type cut out of the middle of a name) are copied once per
 *   distinct text into a pool whose strings never move, so a row read
 *   stays valid as long as the diff.
 *
 * The formats (table, TSV/CSV, JSON) are written by diff_render.c, which
 * reads the rows through ana_diff_row().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "common/vec.h"

/* An operator row as kept: 8 bytes.  `a` and `b` are the row's events in
 * A and B (ROW_NONE when absent: a new row has no `a`, a missing row no
 * `b`); a matched row keeps its stage (0 exact, 1 name, 2 op type) in the
 * top two bits of `a`.  Everything else (names, statistics, delta) is read
 * from the inspectors when the row is read (ana_diff_row_read). */
typedef struct op_row {
  uint32_t a, b;
} op_row_t;

/* Room for a decimal delegate id held while another event is read. */
#define DECIMAL_NAME_MAX 32

#define ROW_NONE UINT32_MAX
#define ROW_EVENT_MASK 0x3FFFFFFFu
#define ROW_STAGE_SHIFT 30
/* Events per side the packing allows (a 2 GiB ETDump holds far fewer). */
#define ROW_MAX_EVENTS ((size_t)ROW_EVENT_MASK)

/* A total row, computed once at build: the few rows per block pair whose
 * values are sums. */
typedef struct total_row {
  double avg_a, avg_b, p50_a, p50_b, value_a, value_b;
  uint32_t event_a, event_b; /* UINT32_MAX when absent */
  uint32_t count_a, count_b;
  int32_t instruction_id_a, instruction_id_b;
  uint32_t place; /* index into etk_diff.places */
  uint8_t kind;
} total_row_t;

/* A block pair's text (its name, " (k+1)" for a repeated name) and k. */
typedef struct diff_place {
  const char *text;
  size_t occurrence;
} diff_place_t;

/* Append-only string store whose strings never move (chunks are never
 * reallocated): block texts, and the texts a row shows that are not the
 * dump's own NUL-terminated strings (decimal delegate ids, operator types
 * cut out of a name), each copied once. */
typedef struct strings {
  char **chunks;
  size_t count, cap;
  size_t used, size; /* of the last chunk */
} strings_t;

#define POOL_CHUNK 65536u

struct etk_diff {
  etk_inspector_t *insp[2]; /* A and B, borrowed */
  total_row_t *totals;      /* rows 0 .. ntotals - 1, in block pair order */
  size_t ntotals, totals_cap;
  op_row_t *ops; /* rows ntotals .. , sorted */
  size_t nops, ops_cap;
  diff_place_t *places;
  size_t nplaces, places_cap;
  uint32_t *place_of[2]; /* per block of A / B: its pair (UINT32_MAX none) */
  strings_t pool;
  etk_hash_t texts;     /* pooled texts by their bytes ... */
  const char **text_at; /* ... and where each is (by id) */
  size_t text_cap;
  double op_max[7]; /* ana_diff_operator_max() */
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

/* ------------------------------------------------------- one side */

/* The statistics a row shows of one event: avg and p50 (always shown)
 * and the compared metric, exact doubles. */
typedef struct side_stats {
  double avg, p50, value;
  size_t count; /* 0: no perf data */
} side_stats_t;

/* The statistics of inspector event e (all 0 when it has none). */
static side_stats_t event_stats(etk_inspector_t *insp, size_t e,
                                etk_diff_metric_t metric) {
  side_stats_t k;
  memset(&k, 0, sizeof k);
  etk_stats_t st;
  if (etk_inspector_event_stats(insp, e, &st) != ETK_OK) return k;
  k.avg = st.avg;
  k.p50 = st.p50;
  k.value = ana_stats_metric(&st, metric);
  k.count = st.count;
  return k;
}

/* What side_t keeps per event, four bits (two events per byte): bit 0
 * matched, bits 1-3 its class, the etk_op_role_t (NO_DATA: no statistics)
 * except that an OPERATOR inside a wrapping DELEGATE_CALL (delegate sign
 * -1) is SIDE_WRAPPED.  A wrapper (sign +1) is exactly the role
 * DELEGATE_WRAPPER, and only an OPERATOR gets the sign -1 (op_summary.c),
 * so role and sign fit the three bits. */
#define SIDE_USED 1u
#define SIDE_WRAPPED 6
_Static_assert(ETK_OP_ROLE_NO_DATA < SIDE_WRAPPED &&
                   ETK_OP_ROLE_DELEGATE_WRAPPER < SIDE_WRAPPED,
               "side classes fit three bits");

/* What the diff needs of one inspector while it is built: four bits per
 * event (the operator summary's roles and signs are copied there, and
 * the summary is freed); statistics are read from the inspector. */
typedef struct side {
  etk_inspector_t *insp;
  int index; /* 0 A, 1 B */
  etk_diff_metric_t metric;
  size_t nevents, nblocks;
  size_t *method_event; /* per block: the event giving the method time */
  uint8_t *flags;       /* per event, four bits: SIDE_USED | class << 1 */
  ana_op_sums_t *sums;  /* per block: its operators' sums, from the roles */
} side_t;

static void side_free(side_t *s) {
  free(s->sums);
  free(s->method_event);
  free(s->flags);
}

static unsigned side_bits(const side_t *s, size_t e) {
  return (s->flags[e >> 1] >> (4 * (e & 1))) & 15u;
}

static void side_mark_used(side_t *s, size_t e) {
  s->flags[e >> 1] |= (uint8_t)(SIDE_USED << (4 * (e & 1)));
}

static int side_class(const side_t *s, size_t e) {
  return (int)(side_bits(s, e) >> 1);
}

static int side_used(const side_t *s, size_t e) {
  return (int)(side_bits(s, e) & SIDE_USED);
}

/* The statistics of event e (all 0 when it has none). */
static side_stats_t side_stats(const side_t *s, size_t e) {
  if (side_class(s, e) == ETK_OP_ROLE_NO_DATA) {
    side_stats_t k;
    memset(&k, 0, sizeof k);
    return k;
  }
  return event_stats(s->insp, e, s->metric);
}

/* Event e's etk_op_role_t and delegate sign. */
static int side_role(const side_t *s, size_t e) {
  int c = side_class(s, e);
  return c == SIDE_WRAPPED ? ETK_OP_ROLE_OPERATOR : c;
}

static int side_sign(const side_t *s, size_t e) {
  int c = side_class(s, e);
  return c == ETK_OP_ROLE_DELEGATE_WRAPPER ? 1 : c == SIDE_WRAPPED ? -1 : 0;
}

/* The flags of every event and the method event of every block, from the
 * operator summary `sum`. */
static void side_classify(side_t *s, const etk_op_summary_t *sum) {
  memset(s->flags, 0, (s->nevents + 1) / 2);
  for (size_t e = 0; e < s->nevents; e++) {
    int role = etk_op_summary_event_role(sum, e),
        sign = ana_op_delegate_sign(sum, e);
    /* the summary gave every event without statistics the role NO_DATA */
    unsigned c = sign > 0   ? ETK_OP_ROLE_DELEGATE_WRAPPER
                 : sign < 0 ? SIDE_WRAPPED
                            : (unsigned)role;
    s->flags[e >> 1] |= (uint8_t)((c << 1) << (4 * (e & 1)));
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
  s->nevents = etk_inspector_event_count(insp);
  s->nblocks = etk_inspector_block_count(insp);
  s->sums = malloc((s->nblocks ? s->nblocks : 1) * sizeof *s->sums);
  if (!s->sums) return ETK_E_NO_MEMORY;
  etk_op_summary_t *sum;
  int rc = ana_op_roles_build(insp, metric, s->sums, &sum, err);
  if (rc != ETK_OK) return rc;
  s->flags = malloc(s->nevents / 2 + 1);
  s->method_event =
      malloc((s->nblocks ? s->nblocks : 1) * sizeof *s->method_event);
  if (s->flags && s->method_event) side_classify(s, sum);
  etk_op_summary_free(sum);
  return s->flags && s->method_event ? ETK_OK : ETK_E_NO_MEMORY;
}

/* Is inspector event e of block b an operator candidate? */
static int is_candidate(const side_t *s, size_t b, size_t e, int all_rows) {
  if (side_class(s, e) == ETK_OP_ROLE_NO_DATA || e == s->method_event[b])
    return 0;
  int role = side_role(s, e);
  if (role == ETK_OP_ROLE_METHOD) return 0;
  if (role == ETK_OP_ROLE_OPERATOR_CALL && !all_rows) return 0;
  return 1;
}

/* ------------------------------------------------------- texts */

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

/* Keeps a pooled copy of s[0..len), once per distinct text. */
static int text_keep(etk_diff_t *d, const char *s, size_t len) {
  uint32_t id;
  bool added = false;
  int rc = etk_hash_put(&d->texts, s, len, &id, &added);
  if (rc != ETK_OK || !added) return rc;
  if (!ETK_VEC_RESERVE(d->text_at, d->text_cap, (size_t)id + 1))
    return ETK_E_NO_MEMORY;
  return pool_put(d, s, len, &d->text_at[id]);
}

/* The copy text_keep() made of s[0..len) ("" if none was made). */
static const char *text_kept(const etk_diff_t *d, const char *s, size_t len) {
  uint32_t id = etk_hash_find(&d->texts, s, len);
  return id == ETK_HASH_NONE ? "" : d->text_at[id];
}

static int text_equal(const char *t, const char *s, size_t len) {
  return strlen(t) == len && (len == 0 || memcmp(t, s, len) == 0);
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

/* Where an operator type `t` (len) of `ev` lies: 0 outside the name (a
 * linked type, NUL-terminated), 1 at the name's end (*skip: its offset),
 * 2 inside the name but not at its end (a copy must be kept). */
static int type_place(const etk_inspector_event_t *ev, const char *t,
                      size_t len, size_t *skip) {
  uintptr_t at = (uintptr_t)t - (uintptr_t)ev->name;
  if ((uintptr_t)t < (uintptr_t)ev->name || at > ev->name_len) return 0;
  *skip = (size_t)at;
  return at + len == ev->name_len ? 1 : 2;
}

/* While building: keeps the copies row_texts() will look up for event e
 * of side `side` (`ev`): a decimal delegate id (written in the
 * inspector's volatile name buffer) and, with `with_type`, an operator
 * type cut out of the middle of a name. */
static int keep_texts(etk_diff_t *d, int side, size_t e,
                      const etk_inspector_event_t *ev, int with_type) {
  int rc = ETK_OK;
  if (ev->delegate_id_is_int) rc = text_keep(d, ev->name, ev->name_len);
  if (rc != ETK_OK || !with_type) return rc;
  size_t len, skip;
  const char *t = event_op_type(d->insp[side], e, ev, &len);
  if (type_place(ev, t, len, &skip) == 2) rc = text_keep(d, t, len);
  return rc;
}

/* The texts a row shows of event e of side `side` (`ev`): *name, the
 * dump's own NUL-terminated string or the kept copy of a decimal id, and
 * (when `type` is not NULL) the operator type.  Both stay valid as long
 * as the diff and its inspectors. */
static void row_texts(const etk_diff_t *d, int side, size_t e,
                      const etk_inspector_event_t *ev, const char **name,
                      const char **type) {
  *name =
      ev->delegate_id_is_int ? text_kept(d, ev->name, ev->name_len) : ev->name;
  if (!type) return;
  size_t len, skip = 0;
  const char *t = event_op_type(d->insp[side], e, ev, &len);
  int at = type_place(ev, t, len, &skip);
  *type = at == 0 ? t : at == 1 ? *name + skip : text_kept(d, t, len);
}

/* ------------------------------------------------------- rows */

static const char *const total_names[4] = {
    "method", "operators", "delegate overhead", "framework overhead"};

/* The public row of total row t. */
static etk_diff_row_t total_row_read(const etk_diff_t *d,
                                     const total_row_t *t) {
  etk_diff_row_t p;
  memset(&p, 0, sizeof p);
  p.kind = t->kind;
  p.match = ETK_DIFF_MATCH_TOTAL;
  p.block = d->places[t->place].text;
  p.block_occurrence = d->places[t->place].occurrence;
  p.name = total_names[t->kind == ETK_DIFF_ROW_METHOD              ? 0
                       : t->kind == ETK_DIFF_ROW_OPERATORS_TOTAL   ? 1
                       : t->kind == ETK_DIFF_ROW_DELEGATE_OVERHEAD ? 2
                                                                   : 3];
  p.instruction_id_a = t->instruction_id_a;
  p.instruction_id_b = t->instruction_id_b;
  p.event_a = t->event_a == UINT32_MAX ? SIZE_MAX : t->event_a;
  p.event_b = t->event_b == UINT32_MAX ? SIZE_MAX : t->event_b;
  p.count_a = t->count_a;
  p.count_b = t->count_b;
  p.avg_a = t->avg_a;
  p.avg_b = t->avg_b;
  p.p50_a = t->p50_a;
  p.p50_b = t->p50_b;
  p.value_a = t->value_a;
  p.value_b = t->value_b;
  p.delta = t->value_b - t->value_a;
  return p;
}

/* The match of operator row r. */
static int op_row_match(const op_row_t *r) {
  if (r->a == ROW_NONE) return ETK_DIFF_MATCH_NEW;
  if (r->b == ROW_NONE) return ETK_DIFF_MATCH_MISSING;
  return (int)(r->a >> ROW_STAGE_SHIFT); /* EXACT, NAME, OP_TYPE */
}

/* The events of operator row r (ROW_NONE when absent). */
static void op_row_events(const op_row_t *r, uint32_t ev[2]) {
  ev[0] = r->a == ROW_NONE ? ROW_NONE : (r->a & ROW_EVENT_MASK);
  ev[1] = r->b;
}

/* A row's delta from its values: B - A, a new row's B's value, a missing
 * row's minus A's. */
static double delta_of(int match, double value_a, double value_b) {
  if (match == ETK_DIFF_MATCH_NEW) return value_b;
  if (match == ETK_DIFF_MATCH_MISSING) return -value_a;
  return value_b - value_a;
}

/* The values of operator row r into *p (kind, match, events, counts,
 * statistics and delta; no texts, instruction ids -1). */
static void op_row_stats(const etk_diff_t *d, const op_row_t *r,
                         etk_diff_row_t *p) {
  p->kind = ETK_DIFF_ROW_OPERATOR;
  p->match = op_row_match(r);
  p->instruction_id_a = p->instruction_id_b = -1;
  uint32_t ev[2];
  op_row_events(r, ev);
  for (int side = 0; side < 2; side++) {
    side_stats_t st;
    memset(&st, 0, sizeof st);
    st.avg = st.p50 = st.value = (double)NAN;
    if (ev[side] != ROW_NONE)
      st = event_stats(d->insp[side], ev[side], d->metric);
    *(side ? &p->event_b : &p->event_a) =
        ev[side] == ROW_NONE ? SIZE_MAX : ev[side];
    *(side ? &p->count_b : &p->count_a) = (uint32_t)st.count;
    *(side ? &p->avg_b : &p->avg_a) = st.avg;
    *(side ? &p->p50_b : &p->p50_a) = st.p50;
    *(side ? &p->value_b : &p->value_a) = st.value;
  }
  p->delta = delta_of(p->match, p->value_a, p->value_b);
}

/* The texts of operator row r into *p (its values already there): block,
 * names, instruction ids and, with `with_type`, the operator type. */
static void op_row_texts(const etk_diff_t *d, const op_row_t *r,
                         etk_diff_row_t *p, int with_type) {
  uint32_t ev[2];
  op_row_events(r, ev);
  const int first = ev[0] == ROW_NONE; /* the side naming the row */
  etk_inspector_event_t e[2];
  const char *name[2] = {NULL, NULL};
  for (int side = 0; side < 2; side++) {
    if (ev[side] == ROW_NONE) continue;
    etk_inspector_event_get_basic(d->insp[side], ev[side], &e[side]);
    *(side ? &p->instruction_id_b : &p->instruction_id_a) =
        e[side].instruction_id;
    row_texts(d, side, ev[side], &e[side], &name[side],
              side == first && with_type ? &p->op_type : NULL);
  }
  /* the name was made stable before the other side's event was read (A
   * and B may be one inspector, whose decimal names share a buffer) */
  p->name = name[first];
  if (!first && ev[1] != ROW_NONE &&
      !text_equal(name[0], e[1].name, e[1].name_len))
    p->name_b = name[1];
  const uint32_t place = d->place_of[first][e[first].block];
  p->block = d->places[place].text;
  p->block_occurrence = d->places[place].occurrence;
}

etk_diff_row_t ana_diff_row_read(const etk_diff_t *d, size_t i, int parts) {
  etk_diff_row_t p;
  if (i < d->ntotals) {
    p = total_row_read(d, &d->totals[i]);
  } else {
    memset(&p, 0, sizeof p);
    op_row_stats(d, &d->ops[i - d->ntotals], &p);
    if (parts & ANA_ROW_TEXTS)
      op_row_texts(d, &d->ops[i - d->ntotals], &p, parts & ANA_ROW_TYPE);
    else
      p.name = p.block = "";
  }
  p.change_pct = (double)NAN;
  if (p.match != ETK_DIFF_MATCH_NEW && p.match != ETK_DIFF_MATCH_MISSING &&
      p.value_a != 0 && p.value_a == p.value_a)
    p.change_pct = p.delta / p.value_a * 100.0;
  return p;
}

etk_diff_row_t ana_diff_row(const etk_diff_t *d, size_t i) {
  return ana_diff_row_read(d, i, ANA_ROW_TEXTS | ANA_ROW_TYPE);
}

/* Appends the operator row of events ev[0] (A) and ev[1] (B) (ROW_NONE
 * when absent; `a_bits` holds a matched row's stage) and keeps the texts
 * its reads will look up; known[side] is that event when at hand, else
 * NULL (it is read again). */
static int op_row_add(etk_diff_t *d, side_t *const sides[2],
                      const uint32_t ev[2], uint32_t a_bits,
                      const etk_inspector_event_t *const known[2]) {
  if (!ETK_VEC_RESERVE(d->ops, d->ops_cap, d->nops + 1)) return ETK_E_NO_MEMORY;
  op_row_t *r = &d->ops[d->nops++];
  r->a = ev[0] == ROW_NONE ? ROW_NONE : (ev[0] | a_bits);
  r->b = ev[1];
  const int first = ev[0] == ROW_NONE;
  int rc = ETK_OK;
  for (int side = 0; side < 2 && rc == ETK_OK; side++) {
    if (ev[side] == ROW_NONE) continue;
    etk_inspector_event_t e;
    /* a known decimal name may have been overwritten since (A and B may
     * be one inspector): fetched again */
    if (known[side] && !known[side]->delegate_id_is_int)
      e = *known[side];
    else
      etk_inspector_event_get_basic(sides[side]->insp, ev[side], &e);
    rc = keep_texts(d, side, ev[side], &e, side == first);
  }
  return rc;
}

/* ------------------------------------------------------- matching */

/* The text of event e's key at `stage` (`ev`): its operator type at
 * stage 3, else its name; stage 1 adds the instruction id. */
static const char *key_text(const side_t *s, size_t e,
                            const etk_inspector_event_t *ev, int stage,
                            size_t *len) {
  if (stage == 3) return event_op_type(s->insp, e, ev, len);
  *len = ev->name_len;
  return ev->name;
}

/* Key of event e for a stage: 1 exact (name + iid), 2 name, 3 op type;
 * the event itself in *out when out is not NULL. */
static void stage_key(side_t *s, size_t e, int stage, etk_strbuf_t *key,
                      etk_inspector_event_t *out) {
  etk_inspector_event_t ev;
  etk_inspector_event_get_basic(s->insp, e, &ev);
  if (out) *out = ev;
  etk_strbuf_clear(key);
  size_t len;
  const char *text = key_text(s, e, &ev, stage, &len);
  etk_strbuf_append(key, text, len);
  etk_strbuf_appendc(key, '\0');
  if (stage == 1) etk_strbuf_append(key, (const char *)&ev.instruction_id, 4);
}

/* Fetches A's event ea into *x and B's event eb into *y and tells
 * whether they have the same key at `stage` (the keys stage_key() would
 * give both, compared without copying).  A decimal name of x is first
 * copied to `held` (A and B may be one inspector, whose decimal names
 * share a buffer), and x->name then points there. */
static int same_key(side_t *A, size_t ea, etk_inspector_event_t *x,
                    char held[DECIMAL_NAME_MAX], side_t *B, size_t eb,
                    etk_inspector_event_t *y, int stage) {
  etk_inspector_event_get_basic(A->insp, ea, x);
  if (x->delegate_id_is_int && x->name_len < DECIMAL_NAME_MAX) {
    memcpy(held, x->name, x->name_len);
    x->name = held;
  }
  etk_inspector_event_get_basic(B->insp, eb, y);
  if (stage == 1 && x->instruction_id != y->instruction_id) return 0;
  size_t la, lb;
  const char *ta = key_text(A, ea, x, stage, &la),
             *tb = key_text(B, eb, y, stage, &lb);
  return la == lb && (la == 0 || memcmp(ta, tb, la) == 0);
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
  return !side_used(s, e) && is_candidate(s, b, e, all_rows);
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
                      const etk_inspector_event_t *ev_b, int stage) {
  side_mark_used(A, e);
  side_mark_used(B, eb);
  side_t *const sides[2] = {A, B};
  const uint32_t ev[2] = {(uint32_t)e, (uint32_t)eb};
  const etk_inspector_event_t *const known[2] = {ev_a, ev_b};
  return op_row_add(d, sides, ev, (uint32_t)(stage - 1) << ROW_STAGE_SHIFT,
                    known);
}

/* The common prefix of both blocks' unmatched candidates: while the i-th
 * candidate of A and the i-th of B have the same key they pair, which is
 * what the k-th-of-its-key rule gives them (each key has been seen as
 * often on both sides so far), without a hash.  *ia and *ib receive the
 * block-local indices where each side's rest starts. */
static int match_prefix(etk_diff_t *d, side_t *A, size_t ba,
                        const etk_inspector_block_t *blka, side_t *B, size_t bb,
                        const etk_inspector_block_t *blkb, int stage,
                        int all_rows, size_t *ia, size_t *ib) {
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
    char held[DECIMAL_NAME_MAX];
    if (!same_key(A, blka->first_event + i, &ev_a, held, B,
                  blkb->first_event + j, &ev_b, stage))
      break;
    rc = match_pair(d, A, blka->first_event + i, &ev_a, B,
                    blkb->first_event + j, &ev_b, stage);
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
                       size_t bb, int stage, int all_rows, int *exhausted) {
  etk_inspector_block_t blka, blkb;
  etk_inspector_block_get(A->insp, ba, &blka);
  etk_inspector_block_get(B->insp, bb, &blkb);
  key_table_t t;
  memset(&t, 0, sizeof t);
  etk_strbuf_t key;
  etk_strbuf_init(&key);
  size_t ia, ib;
  int rc =
      match_prefix(d, A, ba, &blka, B, bb, &blkb, stage, all_rows, &ia, &ib);
  /* the prefix took every candidate of both blocks: nothing is left */
  *exhausted = ia == blka.event_count && ib == blkb.event_count;
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
    rc = match_pair(d, A, e, &ev_a, B, blkb.first_event + local, NULL, stage);
  }
  if (rc == ETK_OK && t.other.failed) rc = ETK_E_NO_MEMORY;
  key_table_free(&t);
  etk_strbuf_free(&key);
  return rc;
}

/* Leftover candidates of one side's block become new / missing rows. */
static int leftovers(etk_diff_t *d, side_t *s, size_t b, int all_rows) {
  etk_inspector_block_t blk;
  etk_inspector_block_get(s->insp, b, &blk);
  side_t *const sides[2] = {s, s};
  const etk_inspector_event_t *const known[2] = {NULL, NULL};
  int rc = ETK_OK;
  for (size_t i = 0; i < blk.event_count && rc == ETK_OK; i++) {
    size_t e = blk.first_event + i;
    if (!is_free_candidate(s, b, e, all_rows)) continue;
    uint32_t ev[2] = {ROW_NONE, ROW_NONE};
    ev[s->index] = (uint32_t)e;
    rc = op_row_add(d, sides, ev, 0, known);
  }
  return rc;
}

/* A new total row of block pair `place`, every value NaN. */
static total_row_t *total_new(etk_diff_t *d, uint32_t place) {
  if (!ETK_VEC_RESERVE(d->totals, d->totals_cap, d->ntotals + 1)) return NULL;
  total_row_t *r = &d->totals[d->ntotals++];
  memset(r, 0, sizeof *r);
  r->place = place;
  r->instruction_id_a = r->instruction_id_b = -1;
  r->event_a = r->event_b = UINT32_MAX;
  return r;
}

/* The method event of total row p's side (is_b) when the block has one. */
static void total_method_event(total_row_t *p, const side_t *s, size_t b,
                               int is_b) {
  if (b == SIZE_MAX || s->method_event[b] == SIZE_MAX) return;
  etk_inspector_event_t ev;
  etk_inspector_event_get_basic(s->insp, s->method_event[b], &ev);
  *(is_b ? &p->event_b : &p->event_a) = (uint32_t)s->method_event[b];
  *(is_b ? &p->instruction_id_b : &p->instruction_id_a) = ev.instruction_id;
}

/* One side's block b for its total rows: [0] its method time, [1] its
 * operators' total, [2] its delegate overhead (wrappers minus the
 * delegated ops inside them; count: the wrappers), [3] the framework
 * overhead left (value, avg and p50 of each, and the counts). */
static void side_block_sums(const side_t *s, size_t b, double v[4],
                            double avg[4], double p50[4], size_t c[4]) {
  size_t me = s->method_event[b];
  if (me != SIZE_MAX) {
    side_stats_t k = side_stats(s, me);
    v[0] = k.value;
    avg[0] = k.avg;
    p50[0] = k.p50;
    c[0] = k.count;
  }
  for (int k = 1; k < 3; k++) v[k] = avg[k] = p50[k] = 0;
  const ana_op_sums_t *sum = &s->sums[b];
  if (sum->exact) { /* no delegate signs: the roles' walk added them up */
    v[1] = sum->value;
    avg[1] = sum->avg;
    p50[1] = sum->p50;
    c[1] = sum->count;
  } else {
    etk_inspector_block_t blk;
    etk_inspector_block_get(s->insp, b, &blk);
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
  }
  v[3] = v[0] - v[1] - v[2];
  avg[3] = avg[0] - avg[1] - avg[2];
  p50[3] = p50[0] - p50[1] - p50[2];
}

/* The total rows of a block pair (either side may be absent): method,
 * operators, delegate overhead (only when a side has wrapping
 * DELEGATE_CALLs) and framework overhead, the rules of op_summary.c. */
static int total_rows(etk_diff_t *d, side_t *A, size_t ba, side_t *B, size_t bb,
                      uint32_t place) {
  double va[4], vb[4];
  size_t ca[4] = {0, 0, 0, 0}, cb[4] = {0, 0, 0, 0};
  double aa[4], ab[4], pa[4], pb[4];
  int has_delegate = 0;
  for (int k = 0; k < 4; k++)
    va[k] = vb[k] = aa[k] = ab[k] = pa[k] = pb[k] = (double)NAN;
  for (int side = 0; side < 2; side++) {
    size_t b = side ? bb : ba;
    if (b == SIZE_MAX) continue;
    size_t *c = side ? cb : ca;
    side_block_sums(side ? B : A, b, side ? vb : va, side ? ab : aa,
                    side ? pb : pa, c);
    if (c[2]) has_delegate = 1;
  }
  if (!has_delegate) va[2] = vb[2] = (double)NAN;
  for (int k = 0; k < 4; k++) {
    if (va[k] != va[k] && vb[k] != vb[k]) continue; /* no method time */
    total_row_t *p = total_new(d, place);
    if (!p) return ETK_E_NO_MEMORY;
    p->kind = k == 0   ? ETK_DIFF_ROW_METHOD
              : k == 1 ? ETK_DIFF_ROW_OPERATORS_TOTAL
              : k == 2 ? ETK_DIFF_ROW_DELEGATE_OVERHEAD
                       : ETK_DIFF_ROW_FRAMEWORK_OVERHEAD;
    p->value_a = va[k];
    p->value_b = vb[k];
    p->avg_a = aa[k];
    p->avg_b = ab[k];
    p->p50_a = pa[k];
    p->p50_b = pb[k];
    p->count_a = (uint32_t)ca[k];
    p->count_b = (uint32_t)cb[k];
    if (k == 0) {
      total_method_event(p, A, ba, 0);
      total_method_event(p, B, bb, 1);
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

/* Operator rows sort by (class, |delta| descending, original position):
 * the key is computed once per row, and the position makes qsort's order
 * stable without any shared state (the diff may be built in several
 * threads).  Total rows are apart and keep block pair order. */
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

/* The sort key of operator row i; with `max`, the row's values also
 * raise the largest ones (ana_diff_operator_max). */
static sort_key_t sort_key_of(const etk_diff_t *d, size_t i, double *max) {
  etk_diff_row_t p;
  memset(&p, 0, sizeof p);
  op_row_stats(d, &d->ops[i], &p);
  if (max) ana_column_max_add(max, &p);
  sort_key_t k;
  k.cls = ana_diff_match_class(p.match);
  /* NaN deltas cannot happen outside totals */
  k.key = fabs(p.delta);
  k.pos = (uint32_t)i;
  return k;
}

/* Sorts the operator rows in place: the keys are sorted, then the
 * permutation is applied cycle by cycle (one row of scratch), so the rows
 * are never held twice.  The first walk over the rows also gathers their
 * largest values. */
static int sort_rows(etk_diff_t *d) {
  /* the rows may be in order already (one block pair whose deltas are
   * all equal, as when a dump is compared with itself): then kept */
  int ordered = 1;
  sort_key_t prev = {0, 0, 0}, next;
  for (size_t i = 0; i < d->nops; i++, prev = next) {
    next = sort_key_of(d, i, d->op_max);
    if (i && ordered && cmp_keys(&prev, &next) > 0) ordered = 0;
  }
  if (ordered) return ETK_OK;
  sort_key_t *keys = malloc(d->nops * sizeof *keys);
  if (!keys) return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < d->nops; i++) keys[i] = sort_key_of(d, i, NULL);
  qsort(keys, d->nops, sizeof *keys, cmp_keys);
  /* row i takes row keys[i].pos; a visited cycle is marked by setting its
   * keys' pos to i itself */
  for (size_t i = 0; i < d->nops; i++) {
    if (keys[i].pos == i) continue;
    op_row_t held = d->ops[i];
    size_t at = i;
    for (;;) {
      size_t from = keys[at].pos;
      keys[at].pos = (uint32_t)at;
      if (from == i) {
        d->ops[at] = held;
        break;
      }
      d->ops[at] = d->ops[from];
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
  if (rc != ETK_OK) return rc;
  d->place_of[0][ba] = place;
  if (bb != SIZE_MAX) d->place_of[1][bb] = place;
  rc = total_rows(d, A, ba, B, bb, place);
  int exhausted = 0;
  for (int stage = 1;
       stage <= 3 && rc == ETK_OK && bb != SIZE_MAX && !exhausted; stage++)
    rc = match_stage(d, A, ba, B, bb, stage, all_rows, &exhausted);
  if (rc == ETK_OK && bb != SIZE_MAX && !exhausted)
    rc = leftovers(d, B, bb, all_rows);
  if (rc == ETK_OK && !exhausted) rc = leftovers(d, A, ba, all_rows);
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
    if (rc == ETK_OK) d->place_of[1][bb] = place;
    if (rc == ETK_OK) rc = total_rows(d, A, SIZE_MAX, B, bb, place);
    if (rc == ETK_OK) rc = leftovers(d, B, bb, all_rows);
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
  d->insp[0] = a;
  d->insp[1] = b;
  etk_hash_init(&d->texts);
  side_t A, B;
  memset(&A, 0, sizeof A);
  memset(&B, 0, sizeof B);
  int rc = side_load(&A, a, o->metric, err);
  if (rc == ETK_OK) rc = side_load(&B, b, o->metric, err);
  B.index = 1;
  if (rc == ETK_OK &&
      (A.nevents > ROW_MAX_EVENTS || B.nevents > ROW_MAX_EVENTS))
    rc = ETK_E_LIMIT;
  for (int side = 0; side < 2 && rc == ETK_OK; side++) {
    size_t n = side ? B.nblocks : A.nblocks;
    d->place_of[side] = malloc((n ? n : 1) * sizeof *d->place_of[side]);
    if (!d->place_of[side]) rc = ETK_E_NO_MEMORY;
    for (size_t i = 0; rc == ETK_OK && i < n; i++)
      d->place_of[side][i] = UINT32_MAX;
  }
  pairing_t p;
  memset(&p, 0, sizeof p); /* freeing it is safe whatever happens */
  if (rc == ETK_OK) rc = pairing_init(&p, A.nblocks, B.nblocks);
  if (rc == ETK_OK) rc = pairing_index_b(&p, &B);
  if (rc == ETK_OK) rc = diff_a_blocks(d, &p, &A, &B, o->all_rows);
  if (rc == ETK_OK) rc = diff_unpaired_b(d, &p, &A, &B, o->all_rows);
  /* rendering lists rows by 32-bit index */
  if (rc == ETK_OK && d->ntotals + d->nops > UINT32_MAX) rc = ETK_E_LIMIT;
  /* the flags and pairing are not needed to sort: freed first */
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
  free(d->totals);
  free(d->ops);
  free(d->places);
  free(d->place_of[0]);
  free(d->place_of[1]);
  for (size_t i = 0; i < d->pool.count; i++) free(d->pool.chunks[i]);
  free(d->pool.chunks);
  etk_hash_free(&d->texts);
  free(d->text_at);
  free(d);
}

size_t etk_diff_row_count(const etk_diff_t *d) {
  return d ? d->ntotals + d->nops : 0;
}

int etk_diff_row_get(const etk_diff_t *d, size_t index, etk_diff_row_t *out) {
  if (!d || !out || index >= etk_diff_row_count(d))
    return ETK_E_INVALID_ARGUMENT;
  *out = ana_diff_row(d, index);
  return ETK_OK;
}

size_t etk_diff_regression_count(const etk_diff_t *d, double pct,
                                 double min_delta) {
  size_t n = 0;
  for (size_t i = 0; d && i < etk_diff_row_count(d); i++) {
    const etk_diff_row_t row = ana_diff_row(d, i), *r = &row;
    if (r->kind != ETK_DIFF_ROW_OPERATOR || ana_diff_match_class(r->match) != 1)
      continue;
    if (r->change_pct == r->change_pct && r->change_pct > pct &&
        r->delta >= min_delta)
      n++;
  }
  return n;
}

const double *ana_diff_operator_max(const etk_diff_t *d) {
  return d->op_max;
}

etk_diff_metric_t ana_diff_metric(const etk_diff_t *d) {
  return d->metric;
}

etk_time_scale_t ana_diff_unit(const etk_diff_t *d) {
  return d->unit;
}
