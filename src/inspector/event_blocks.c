/*
 * event_blocks.c - groups an ETDump's runs into event blocks, exactly as
 * upstream's EventBlock._gen_from_etdump (docs inspector.md 3.1-3.6).
 *
 * ALGORITHM (one pass over the runs, O(events) expected)
 *   For each run that has an events vector:
 *   A. Collate its events into "instruction events" keyed by (instruction
 *      id, chain, delegate int id, delegate str id) with the raw values, in
 *      first-appearance order (a per-run open-addressing table).  Profile
 *      events append to the key's profile list; debug events to its debug
 *      list unless their value is marked as a program output (those still
 *      create the key, and are collected as the run's outputs).  Allocation
 *      events, which upstream cannot read, are tallied per allocator.
 *   B. Event signatures: for each instruction event with something in it,
 *      one signature per profile event (iid, profile name, debug signature
 *      of its FIRST debug event), or a single debug-only signature.  A
 *      signature seen again in the same run replaces the earlier one's value
 *      but keeps its position (Python's ordered dict assignment).  The
 *      signatures are staged where a new block keeps them: at the end of
 *      the Inspector's events (4 bytes each: an ETDump event standing for
 *      the signature, which for a profile signature is also its sample).
 *   C. The run signature (run name, ordered signatures, bundled input
 *      index) is looked up among the blocks found so far (hash + full
 *      compare); a new one makes the staged signatures a block's events,
 *      with the first run's debug entries.  Later runs of a block are
 *      checked against them (mismatches are counted, not fatal).
 *   D. A repeated run's samples (its staged profile events) go to `kept`.
 *   Finally every block gets an events x runs matrix of ETDump profile event
 *   indices (the samples), filled in run order from the block's events
 *   (its first run) and `kept` (the others); when every block has one run,
 *   the events themselves are that matrix.  While every event's rep is
 *   its own index (the first runs are profile events only, or their
 *   instruction ids rise), no events array is written at all: the
 *   accessors give the index.  Upstream's wrap-around
 *   error needs an event whose end is before its start; only when the
 *   reader flagged one is every sample checked.
 *
 * DATA LAYOUT
 *   Per-run scratch (sized by the largest run, reused): instruction events
 *   (8 bytes; 8 more and a bit for those with debug events), a hash table
 *   of u32 slots shared by steps A and B (2 to 4 per event), and per event
 *   a next link and a signature's instruction event, written only for lists
 *   longer than one and signatures with debug data, so their pages mostly
 *   stay untouched.  Kept across the whole build: 4 bytes per sample of a
 *   repeated run, 4 per run; the result is 4 bytes per Inspector event
 *   (none when they are the identity) plus 4 per sample when a block has
 *   several runs (see inspector_internal.h).  A wide run of rising
 *   instruction ids (1M distinct events) takes the ordered path, which
 *   touches none of the scratch: it costs an eighth of a byte per event
 *   while grouping and nothing after.
 *
 * INVARIANTS
 *   - Blocks, and the events inside each block, are in first-appearance
 *     order; block b's events are events[first_event .. +event_count).
 *   - samples[sample_base + local_event * run_count + j] is the profile
 *     event of the block's j-th run for that signature, or INSP_NONE for
 *     debug-only signatures (which have no profile part in any run).
 *   - Every array growth is checked; failure frees everything.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/schema.h"
#include "common/vec.h"
#include "inspector_internal.h"

/* An instruction event: its profile list (local indices, linked through
 * builder.next); while that is empty, pt holds the local index of the
 * event that created it (its key).  Its debug list, rarer, lives apart
 * (builder.dbg, valid where builder.has_dbg has the bit), so a run without
 * debug events never touches those pages.  Every event of an instruction
 * event shares the key's values. */
typedef struct ie {
  uint32_t ph, pt; /* profile list head/tail */
} ie_t;

typedef struct ie_debug {
  uint32_t dh, dt; /* debug list head/tail */
} ie_debug_t;

typedef struct builder {
  etk_inspector_t *insp;
  const etk_etdump_t *d;
  etk_etdump_columns_t c;
  etk_error_t *err;
  /* per-run scratch (sized for the largest run; only the parts a run
   * uses are ever touched, so most pages of next/pos_ie/outs stay virtual) */
  ie_t *ies;
  ie_debug_t *dbg;
  uint8_t *has_dbg;   /* bit x: ies[x] has a debug list (dbg[x]) */
  uint8_t *has_dname; /* bit p: staged signature p has a debug name */
  uint32_t *slots;
  uint32_t *next;
  uint32_t *pos_ie; /* instruction event of each signature with debug data */
  uint32_t *outs;
  /* growing arrays */
  size_t event_cap, block_cap, debug_cap, ref_cap, out_cap, kept_len, kept_cap,
      alloc_cap;
  uint32_t *kept;
  uint32_t *run_group;
  uint32_t *run_kept;
  size_t debug_ref_len, output_len;
  uint32_t *block_slots;
  size_t block_slot_mask;
  insp_event_t **block_sigs; /* per block, see block_signatures() */
  size_t block_sigs_cap;
  uint32_t *alloc_slots;
  size_t alloc_slot_mask;
  int compare_runs; /* more than one run has events: runs are compared */
} builder_t;

static inline int ie_has_debug(const builder_t *b, uint32_t x) {
  return (b->has_dbg[x >> 3] >> (x & 7)) & 1;
}

/* Local index of instruction event x's key event. */
static inline uint32_t ie_key(const builder_t *b, uint32_t x) {
  const ie_t *e = &b->ies[x];
  return e->ph != INSP_NONE ? e->ph : ie_has_debug(b, x) ? b->dbg[x].dh : e->pt;
}

static inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

/* Slot of a key in the per-run tables: the instruction id's low bits plus a
 * mix of everything else.  Consecutive instruction ids (the common case)
 * land in consecutive slots, so a million-event run walks the table
 * sequentially instead of missing the cache on every event; ids that share
 * low bits but differ above `shift` bits, or share the id but differ in
 * chain or delegate ids, get unrelated offsets, so no input can pile keys
 * onto one slot. */
static inline size_t local_slot(int32_t iid, unsigned shift, uint64_t rest,
                                size_t mask) {
  uint64_t u = (uint32_t)iid;
  return (size_t)(u + mix(mix(0x1D, u >> shift), rest)) & mask;
}

/* The same for signatures, two slots apart per instruction id: an
 * instruction usually has two (native_call_* and OPERATOR_CALL), which
 * would otherwise pile up into one long probe sequence. */
static inline size_t signature_slot(int32_t iid, unsigned shift, uint64_t rest,
                                    size_t mask) {
  uint64_t u = 2 * (uint64_t)(uint32_t)iid;
  return (size_t)(u + mix(mix(0x1D, u >> shift), rest)) & mask;
}

#define norm_name insp_norm_name
#define norm_dstr insp_norm_dstr

static int nomem(builder_t *b) {
  return etk_error_set(b->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                       "out of memory grouping events into blocks");
}

/* Doubles a table of u32 slots (entry k stored as k + 1, linear probing)
 * once it is half full, placing each of its `count` entries by hash(k). */
static int slots_grow(builder_t *b, uint32_t **slots, size_t *mask,
                      size_t count,
                      uint64_t (*hash)(const etk_inspector_t *, size_t)) {
  if (count * 2 <= *mask + 1) return ETK_OK;
  size_t n = (*mask + 1) * 2;
  uint32_t *t = calloc(n, sizeof *t);
  if (!t) return nomem(b);
  for (size_t k = 0; k < count; k++) {
    size_t j = (size_t)hash(b->insp, k) & (n - 1);
    while (t[j]) j = (j + 1) & (n - 1);
    t[j] = (uint32_t)k + 1;
  }
  free(*slots);
  *slots = t;
  *mask = n - 1;
  return ETK_OK;
}

/* ------------------------------------------------------- allocations */

static uint64_t alloc_key_hash(uint32_t run_name_id, int32_t allocator_id,
                               uint32_t name_id) {
  return mix(mix(mix(0, run_name_id), (uint32_t)allocator_id), name_id);
}

static uint64_t alloc_hash(const etk_inspector_t *insp, size_t k) {
  const insp_alloc_t *x = &insp->allocs[k];
  return alloc_key_hash(x->run_name_id, x->allocator_id, x->name_id);
}

static int alloc_account(builder_t *b, uint32_t run_index,
                         const etk_etdump_run_t *run, uint32_t ev) {
  etk_inspector_t *insp = b->insp;
  int32_t id = b->c.instruction_id[ev]; /* allocator_id */
  uint32_t name_id = 0;                 /* unknown allocator */
  if (id >= 1 && (uint32_t)id <= run->allocator_count)
    name_id = etk_etdump_allocator_name_id(
        b->d, run->first_allocator + (uint32_t)id - 1);
  uint64_t size;
  {
    etk_etdump_event_t e;
    etk_etdump_event_get(b->d, ev, &e);
    size = e.allocation_size;
  }
  if (!b->alloc_slots) {
    b->alloc_slot_mask = 15;
    b->alloc_slots = calloc(16, sizeof *b->alloc_slots);
    if (!b->alloc_slots) return nomem(b);
  }
  uint64_t h = alloc_key_hash(run->name_id, id, name_id);
  size_t i = (size_t)h & b->alloc_slot_mask;
  for (;;) {
    uint32_t s = b->alloc_slots[i];
    if (!s) break;
    insp_alloc_t *a = &insp->allocs[s - 1];
    if (a->run_name_id == run->name_id && a->allocator_id == id &&
        a->name_id == name_id) {
      a->count++;
      a->total += size;
      if (size > a->max) a->max = size;
      if (a->last_run != run_index) {
        a->runs++;
        a->last_run = run_index;
      }
      return ETK_OK;
    }
    i = (i + 1) & b->alloc_slot_mask;
  }
  if (!ETK_VEC_RESERVE(insp->allocs, b->alloc_cap, insp->alloc_count + 1))
    return nomem(b);
  insp_alloc_t *a = &insp->allocs[insp->alloc_count];
  a->run_name_id = run->name_id;
  a->allocator_id = id;
  a->name_id = name_id;
  a->count = 1;
  a->total = a->max = size;
  a->runs = 1;
  a->last_run = run_index;
  b->alloc_slots[i] = (uint32_t)++insp->alloc_count;
  return slots_grow(b, &b->alloc_slots, &b->alloc_slot_mask, insp->alloc_count,
                    alloc_hash);
}

/* ------------------------------------------------------- signatures */

static inline uint64_t sig_hash(const insp_event_t *s) {
  uint64_t h = mix(0x51ED27, (uint32_t)s->iid);
  h = mix(h, (uint32_t)s->dint);
  h = mix(h, s->dstr);
  h = mix(h, s->pname);
  return mix(h, s->dname);
}

static inline int sig_eq(const insp_event_t *a, const insp_event_t *b) {
  return a->iid == b->iid && a->dint == b->dint && a->dstr == b->dstr &&
         a->pname == b->pname && a->dname == b->dname;
}

/* ------------------------------------------------------- debug values */

/* Whether two debug entries are equal in upstream's sense: same kind, equal
 * scalars, tensors of equal dtype, shape and (when a debug buffer is given)
 * bytes.  Without a buffer upstream compares zero tensors, i.e. shapes. */
static int values_equal(const etk_inspector_t *insp, uint32_t ea, uint32_t eb) {
  etk_etdump_value_t a, b;
  if (etk_etdump_event_value(insp->dump, ea, &a) != ETK_OK ||
      etk_etdump_event_value(insp->dump, eb, &b) != ETK_OK)
    return 0;
  if (a.present != b.present || a.type != b.type) return 0;
  switch (a.type) {
    case ETK_ETDUMP_VALUE_TYPE_INT:
      return a.int_value == b.int_value;
    case ETK_ETDUMP_VALUE_TYPE_BOOL:
      return a.bool_value == b.bool_value;
    case ETK_ETDUMP_VALUE_TYPE_FLOAT:
    case ETK_ETDUMP_VALUE_TYPE_DOUBLE:
      return a.real_value == b.real_value;
    case ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST:
      if (a.tensor_count != b.tensor_count) return 0;
      break;
    case ETK_ETDUMP_VALUE_TYPE_TENSOR: {
      const etk_etdump_tensor_t *ta = &a.tensor, *tb = &b.tensor;
      if (ta->scalar_type != tb->scalar_type || ta->dim != tb->dim) return 0;
      for (uint32_t i = 0; i < ta->dim; i++)
        if (etk_etdump_tensor_dim(ta, i) != etk_etdump_tensor_dim(tb, i))
          return 0;
      if (insp->options.debug_buffer) {
        const uint8_t *da, *db;
        uint64_t na, nb;
        if (etk_etdump_tensor_data(ta, insp->options.debug_buffer,
                                   insp->options.debug_buffer_len, &da, &na,
                                   NULL) != ETK_OK ||
            etk_etdump_tensor_data(tb, insp->options.debug_buffer,
                                   insp->options.debug_buffer_len, &db, &nb,
                                   NULL) != ETK_OK)
          return 1; /* unreadable either way: reported when rendered */
        return na == nb && (na == 0 || memcmp(da, db, (size_t)na) == 0);
      }
      return 1;
    }
    default:
      break;
  }
  return 1;
}

/* ------------------------------------------------------- one run */

/* The signatures of block k spelled out, made when a run first matches
 * its hash: later runs of the block compare against them without going
 * back to the columns.  Blocks that are never repeated never get them. */
static const insp_event_t *block_signatures(builder_t *b, uint32_t k) {
  if (b->block_sigs_cap < b->insp->block_count) { /* one pointer per block */
    size_t cap = b->block_cap, had = b->block_sigs_cap;
    insp_event_t **p = realloc(b->block_sigs, cap * sizeof *p);
    if (!p) return NULL;
    memset(p + had, 0, (cap - had) * sizeof *p);
    b->block_sigs = p;
    b->block_sigs_cap = cap;
  }
  if (!b->block_sigs[k]) {
    const insp_block_t *bk = &b->insp->blocks[k];
    insp_event_t *sigs =
        malloc((bk->event_count ? bk->event_count : 1) * sizeof *sigs);
    if (!sigs) return NULL;
    for (uint32_t p = 0; p < bk->event_count; p++)
      sigs[p] = insp_event_at(b->insp, bk->first_event + p);
    b->block_sigs[k] = sigs;
  }
  return b->block_sigs[k];
}

/* Appends local event i to the list (*head, *tail); next[] is written only
 * for elements that get a successor, so runs whose instruction events hold
 * one event each never touch it. */
static inline void list_append(uint32_t *head, uint32_t *tail, uint32_t *next,
                               uint32_t i) {
  if (*head == INSP_NONE)
    *head = i;
  else
    next[*tail] = i;
  *tail = i;
}

/* One run being grouped: its place in the columns, the per-run table's
 * size, and what steps A to C find. */
typedef struct run_state {
  uint32_t index;
  etk_etdump_run_t run;
  uint32_t first, n; /* its events: columns first .. first + n */
  unsigned shift;    /* slot table: 2^shift slots */
  size_t mask;
  uint32_t nie, nout; /* instruction events, output debug events */
  uint32_t npos;      /* signatures staged */
  uint64_t hash;      /* of the run signature */
  uint32_t *staged;   /* reps of the staged signatures (insp->events);
                         NULL while signature p's rep is event first + p */
} run_state_t;

static inline int bit_get(const uint8_t *bits, uint32_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void bit_set(uint8_t *bits, uint32_t i) {
  bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* The debug name of staged signature p (INSP_NONE when it has none): the
 * normalised name of the first debug event of its instruction event. */
static inline uint32_t staged_dname(const builder_t *b, const run_state_t *rs,
                                    uint32_t p) {
  if (!bit_get(b->has_dname, p)) return INSP_NONE;
  return norm_name(b->c.name_id[rs->first + b->dbg[b->pos_ie[p]].dh]);
}

/* The rep of staged signature p. */
static inline uint32_t staged_rep(const run_state_t *rs, uint32_t p) {
  return rs->staged ? rs->staged[p] : rs->first + p;
}

static inline insp_event_t staged_signature(const builder_t *b,
                                            const run_state_t *rs, uint32_t p) {
  return insp_event_of(&b->c, staged_rep(rs, p), staged_dname(b, rs, p));
}

/* Stages signature `sg` (representative `rep`, kept profile event `prof`,
 * instruction event x) at the end of the run's signatures, or, when the
 * run already has an equal signature, gives that one the later value
 * (Python's ordered dict keeps the first position).  A signature's kept
 * sample is its rep when it has a profile part (the later profile event
 * may stand for an equal signature: same columns), else none. */
static inline void stage_signature(builder_t *b, run_state_t *rs,
                                   const insp_event_t *sg, uint32_t rep,
                                   uint32_t prof, uint32_t x) {
  size_t s = signature_slot(sg->iid, rs->shift,
                            mix((uint32_t)sg->dint, sg->dstr), rs->mask);
  for (;;) {
    uint32_t v = b->slots[s];
    if (!v) break;
    insp_event_t old = staged_signature(b, rs, v - 1);
    if (sig_eq(&old, sg)) {
      if (prof != INSP_NONE) rs->staged[v - 1] = prof;
      if (sg->dname != INSP_NONE) b->pos_ie[v - 1] = x;
      return;
    }
    s = (s + 1) & rs->mask;
  }
  uint32_t p = rs->npos++;
  rs->hash = mix(rs->hash, sig_hash(sg)); /* in position order, as compared */
  rs->staged[p] = rep;
  if (sg->dname != INSP_NONE) {
    bit_set(b->has_dname, p);
    b->pos_ie[p] = x;
  }
  b->slots[s] = p + 1;
}

/* Step A: the run's events into instruction events (allocation events are
 * tallied, output debug events collected). */
static int run_collate(builder_t *b, run_state_t *rs) {
  const etk_etdump_columns_t *c = &b->c;
  const uint32_t first = rs->first;
  for (uint32_t i = 0; i < rs->n; i++) {
    uint32_t ev = first + i;
    unsigned kind = c->flags[ev] & ETK_ETDUMP_KIND_MASK;
    if (kind == ETK_ETDUMP_EVENT_ALLOCATION) {
      int rc = alloc_account(b, rs->index, &rs->run, ev);
      if (rc != ETK_OK) return rc;
      continue;
    }
    const int32_t iid = c->instruction_id[ev];
    const uint32_t dplus = c->delegate_id_int_plus_one[ev];
    const int32_t dint = etk_etdump_delegate_id_int(dplus);
    const uint32_t chain = c->chain_id[ev], dstr = c->delegate_id_str_id[ev];
    size_t s = local_slot(iid, rs->shift, mix(mix(chain, (uint32_t)dint), dstr),
                          rs->mask);
    uint32_t x = INSP_NONE;
    for (;;) {
      uint32_t v = b->slots[s];
      if (!v) break;
      uint32_t k = first + ie_key(b, v - 1);
      if (c->instruction_id[k] == iid && c->chain_id[k] == chain &&
          c->delegate_id_int_plus_one[k] == dplus &&
          c->delegate_id_str_id[k] == dstr) {
        x = v - 1;
        break;
      }
      s = (s + 1) & rs->mask;
    }
    if (x == INSP_NONE) {
      x = rs->nie++;
      ie_t *e = &b->ies[x];
      e->ph = INSP_NONE;
      e->pt = i; /* the key, until a profile list starts */
      b->slots[s] = x + 1;
    }
    ie_t *e = &b->ies[x];
    if (kind == ETK_ETDUMP_EVENT_PROFILE) {
      list_append(&e->ph, &e->pt, b->next, i);
    } else if (c->flags[ev] & ETK_ETDUMP_FLAG_OUTPUT) {
      b->outs[rs->nout++] = ev;
    } else {
      ie_debug_t *d = &b->dbg[x];
      if (!ie_has_debug(b, x)) {
        bit_set(b->has_dbg, x);
        d->dh = INSP_NONE;
      }
      list_append(&d->dh, &d->dt, b->next, i);
    }
  }
  return ETK_OK;
}

/* Room for the run's signatures at the end of the Inspector's events
 * (rs->staged), `reps` of them already staged as first + p.  While every
 * rep is its own index the events are not kept (insp->events NULL); the
 * first run that breaks the rule writes the identity out. */
static int run_stage_room(builder_t *b, run_state_t *rs, uint32_t reps) {
  etk_inspector_t *insp = b->insp;
  const int identity = insp->events == NULL;
  if (!ETK_VEC_RESERVE(insp->events, b->event_cap,
                       insp->event_count + rs->n + 1))
    return nomem(b);
  if (identity)
    for (size_t e = 0; e < insp->event_count; e++)
      insp->events[e] = (uint32_t)e;
  rs->staged = insp->events + insp->event_count;
  for (uint32_t p = 0; p < reps; p++) rs->staged[p] = rs->first + p;
  return ETK_OK;
}

/* The run signature's hash started (name, bundled input index). */
static void run_hash_begin(run_state_t *rs) {
  rs->hash =
      mix(mix(0xB10C, rs->run.name_id), (uint32_t)rs->run.bundled_input_index);
}

/* Whether the run's instruction ids (allocation events aside) strictly
 * increase: then every event is an instruction event of its own and every
 * signature differs, so steps A and B need no table. */
static int run_is_ordered(const builder_t *b, const run_state_t *rs) {
  const etk_etdump_columns_t *c = &b->c;
  int64_t last = INT64_MIN;
  for (uint32_t ev = rs->first; ev < rs->first + rs->n; ev++) {
    if ((c->flags[ev] & ETK_ETDUMP_KIND_MASK) == ETK_ETDUMP_EVENT_ALLOCATION)
      continue;
    if (c->instruction_id[ev] <= last) return 0;
    last = c->instruction_id[ev];
  }
  return 1;
}

/* Steps A and B for an ordered run (run_is_ordered): each event in turn
 * is an allocation, a run output, or one signature of its own, exactly
 * what the general steps find for such a run, in the same order. */
static int run_stage_ordered(builder_t *b, run_state_t *rs) {
  const etk_etdump_columns_t *c = &b->c;
  int rc = ETK_OK;
  run_hash_begin(rs);
  rs->staged = NULL; /* reps first + p so far (see run_stage_room) */
  if (b->insp->events || rs->first != b->insp->event_count)
    rc = run_stage_room(b, rs, 0);
  for (uint32_t i = 0; i < rs->n && rc == ETK_OK; i++) {
    const uint32_t ev = rs->first + i;
    const unsigned kind = c->flags[ev] & ETK_ETDUMP_KIND_MASK;
    if (kind == ETK_ETDUMP_EVENT_ALLOCATION) {
      rc = alloc_account(b, rs->index, &rs->run, ev);
      continue;
    }
    if (kind != ETK_ETDUMP_EVENT_PROFILE &&
        (c->flags[ev] & ETK_ETDUMP_FLAG_OUTPUT)) {
      b->outs[rs->nout++] = ev;
      continue;
    }
    const uint32_t p = rs->npos++;
    uint32_t dname = INSP_NONE;
    if (kind != ETK_ETDUMP_EVENT_PROFILE) { /* a debug list of one */
      dname = norm_name(c->name_id[ev]);
      b->dbg[i].dh = b->dbg[i].dt = i;
      b->pos_ie[p] = i;
      bit_set(b->has_dname, p);
    }
    if (b->compare_runs) {
      insp_event_t sg = insp_event_of(c, ev, dname);
      rs->hash = mix(rs->hash, sig_hash(&sg));
    }
    if (!rs->staged && ev != rs->first + p) rc = run_stage_room(b, rs, p);
    if (rs->staged) rs->staged[p] = ev;
  }
  rs->hash = mix(rs->hash, rs->npos);
  return rc;
}

/* Step B: the signatures, staged where a new block keeps them: at the end
 * of the Inspector's events (the slot table of step A is reused). */
static int run_signatures(builder_t *b, run_state_t *rs) {
  const etk_etdump_columns_t *c = &b->c;
  const uint32_t first = rs->first;
  run_hash_begin(rs);
  int rc = run_stage_room(b, rs, 0);
  if (rc != ETK_OK) return rc;
  memset(b->slots, 0, (rs->mask + 1) * sizeof *b->slots);
  for (uint32_t x = 0; x < rs->nie; x++) {
    const ie_t *e = &b->ies[x];
    const int has_debug = ie_has_debug(b, x);
    if (e->ph == INSP_NONE && !has_debug) continue;
    const uint32_t key = first + ie_key(b, x);
    insp_event_t sg;
    sg.iid = c->instruction_id[key];
    sg.dint = etk_etdump_delegate_id_int(c->delegate_id_int_plus_one[key]);
    sg.dstr = norm_dstr(c->delegate_id_str_id[key]);
    sg.dname =
        has_debug ? norm_name(c->name_id[first + b->dbg[x].dh]) : INSP_NONE;
    if (e->ph == INSP_NONE) {
      sg.pname = INSP_NONE;
      stage_signature(b, rs, &sg, key, INSP_NONE, x);
      continue;
    }
    for (uint32_t q = e->ph;; q = b->next[q]) {
      sg.pname = norm_name(c->name_id[first + q]);
      stage_signature(b, rs, &sg, first + q, first + q, x);
      if (q == e->pt) break;
    }
  }
  rs->hash = mix(rs->hash, rs->npos);
  return ETK_OK;
}

/* Step C: the block whose run signature equals the run's: the hash (name,
 * bundled input index, signatures in order, their count) finds
 * candidates, a full compare decides.  *blk is INSP_NONE when there is
 * none; *slot is then where a new block goes in the block table. */
static int run_find_block(builder_t *b, const run_state_t *rs, uint32_t *blk,
                          size_t *slot) {
  const etk_inspector_t *insp = b->insp;
  size_t bs = (size_t)rs->hash & b->block_slot_mask;
  *blk = INSP_NONE;
  for (;; bs = (bs + 1) & b->block_slot_mask) {
    uint32_t v = b->block_slots[bs];
    if (!v) break;
    const insp_block_t *cand = &insp->blocks[v - 1];
    if (cand->hash != rs->hash || cand->name_id != rs->run.name_id ||
        cand->bii != rs->run.bundled_input_index ||
        cand->event_count != rs->npos)
      continue;
    const insp_event_t *ce = block_signatures(b, v - 1);
    if (!ce) return nomem(b);
    uint32_t p = 0;
    for (; p < rs->npos; p++) {
      insp_event_t sg = staged_signature(b, rs, p);
      if (!sig_eq(&sg, &ce[p])) break;
    }
    if (p == rs->npos) {
      *blk = v - 1;
      break;
    }
  }
  *slot = bs;
  return ETK_OK;
}

/* The debug entries of staged signature p (Inspector event `event`): its
 * instruction event's debug list. */
static int block_debug_entries(builder_t *b, const run_state_t *rs, uint32_t p,
                               uint32_t event) {
  etk_inspector_t *insp = b->insp;
  const ie_debug_t *e = &b->dbg[b->pos_ie[p]];
  if (!ETK_VEC_RESERVE(insp->debug, b->debug_cap, insp->debug_count + 1))
    return nomem(b);
  insp_debug_t *dd = &insp->debug[insp->debug_count++];
  dd->event = event;
  dd->first = (uint32_t)b->debug_ref_len;
  dd->count = 0;
  dd->dname = staged_dname(b, rs, p);
  for (uint32_t q = e->dh;; q = b->next[q]) {
    if (!ETK_VEC_RESERVE(insp->debug_refs, b->ref_cap, b->debug_ref_len + 1))
      return nomem(b);
    insp->debug_refs[b->debug_ref_len++] = rs->first + q;
    dd->count++;
    if (q == e->dt) break;
  }
  return ETK_OK;
}

static uint64_t block_hash(const etk_inspector_t *insp, size_t k) {
  return insp->blocks[k].hash;
}

/* A new block from the run's staged signatures (table slot `bs`), with the
 * run's debug entries. */
static int block_create(builder_t *b, const run_state_t *rs, size_t bs,
                        uint32_t *blk) {
  etk_inspector_t *insp = b->insp;
  if (insp->event_count + rs->npos > UINT32_MAX - 1)
    return etk_error_set(b->err, ETK_E_LIMIT, rs->run.offset,
                         "more than 2^32 - 1 Inspector events");
  if (!ETK_VEC_RESERVE(insp->blocks, b->block_cap, insp->block_count + 1))
    return nomem(b);
  *blk = (uint32_t)insp->block_count++;
  insp_block_t *nb = &insp->blocks[*blk];
  memset(nb, 0, sizeof *nb);
  nb->name_id = rs->run.name_id;
  nb->bii = rs->run.bundled_input_index;
  nb->first_event = (uint32_t)insp->event_count;
  nb->event_count = rs->npos;
  nb->offset = rs->run.offset;
  nb->hash = rs->hash;
  for (uint32_t p = 0; p < rs->npos; p++) {
    if (!bit_get(b->has_dname, p)) continue;
    int rc = block_debug_entries(b, rs, p, (uint32_t)insp->event_count + p);
    if (rc != ETK_OK) return rc;
  }
  insp->event_count += rs->npos; /* the staged signatures become the events */
  b->block_slots[bs] = *blk + 1;
  return slots_grow(b, &b->block_slots, &b->block_slot_mask, insp->block_count,
                    block_hash);
}

/* A repeated run: upstream asserts its debug entries equal the first
 * run's (zip semantics: extra or missing entries are not compared). */
static void run_check_debug(builder_t *b, const run_state_t *rs, uint32_t blk) {
  etk_inspector_t *insp = b->insp;
  const insp_block_t *ob = &insp->blocks[blk];
  for (uint32_t p = 0; p < rs->npos; p++) {
    if (!bit_get(b->has_dname, p)) continue;
    const ie_debug_t *e = &b->dbg[b->pos_ie[p]];
    const insp_debug_t *dd = insp_debug_of(insp, ob->first_event + p);
    if (!dd) continue;
    uint32_t k = 0;
    for (uint32_t q = e->dh; k < dd->count; q = b->next[q], k++) {
      if (!values_equal(insp, rs->first + q, insp->debug_refs[dd->first + k]))
        insp->debug_mismatches++;
      if (q == e->dt) break;
    }
  }
}

/* Run outputs: the first run with any sets them, later runs must match. */
static int run_outputs(builder_t *b, const run_state_t *rs, insp_block_t *bk) {
  etk_inspector_t *insp = b->insp;
  const uint32_t nout = rs->nout;
  if (bk->output_count == 0) {
    if (nout == 0) return ETK_OK;
    if (!ETK_VEC_RESERVE(insp->outputs, b->out_cap, b->output_len + nout))
      return nomem(b);
    bk->output_first = (uint32_t)b->output_len;
    bk->output_count = nout;
    memcpy(insp->outputs + b->output_len, b->outs, nout * sizeof *b->outs);
    b->output_len += nout;
  } else if (nout != bk->output_count) {
    insp->debug_mismatches++;
  } else {
    for (uint32_t k = 0; k < nout; k++)
      if (!values_equal(insp, b->outs[k], insp->outputs[bk->output_first + k]))
        insp->debug_mismatches++;
  }
  return ETK_OK;
}

/* The kept sample of a signature whose rep is `rep`. */
static inline uint32_t sample_of(const etk_etdump_columns_t *c, uint32_t rep) {
  return (c->flags[rep] & ETK_ETDUMP_KIND_MASK) == ETK_ETDUMP_EVENT_PROFILE
             ? rep
             : INSP_NONE;
}

static int process_run(builder_t *b, uint32_t r) {
  run_state_t rs;
  memset(&rs, 0, sizeof rs);
  rs.index = r;
  etk_etdump_run_get(b->d, r, &rs.run);
  b->run_group[r] = INSP_NONE;
  if (!rs.run.has_events) return ETK_OK; /* upstream skips the run entirely */
  rs.first = rs.run.first_event;
  rs.n = rs.run.event_count;
  memset(b->has_dname, 0, rs.n / 8 + 1);
  int rc;
  if (run_is_ordered(b, &rs)) {
    rc = run_stage_ordered(b, &rs);
  } else {
    size_t slots = 16;
    rs.shift = 4;
    while (slots < 2 * (size_t)rs.n) {
      slots *= 2;
      rs.shift++;
    }
    rs.mask = slots - 1;
    memset(b->slots, 0, slots * sizeof *b->slots);
    memset(b->has_dbg, 0, rs.n / 8 + 1);
    rc = run_collate(b, &rs);
    if (rc == ETK_OK) rc = run_signatures(b, &rs);
  }
  uint32_t blk = INSP_NONE;
  size_t bs = 0;
  if (rc == ETK_OK) rc = run_find_block(b, &rs, &blk, &bs);
  if (rc != ETK_OK) return rc;
  if (blk == INSP_NONE)
    rc = block_create(b, &rs, bs, &blk);
  else
    run_check_debug(b, &rs, blk);
  insp_block_t *bk = &b->insp->blocks[blk];
  if (rc == ETK_OK) rc = run_outputs(b, &rs, bk);
  if (rc != ETK_OK) return rc;
  /* D. the samples of the block's first run are its events; a repeated
   * run's are kept */
  b->run_kept[r] = INSP_NONE;
  if (bk->run_count > 0) {
    if (!ETK_VEC_RESERVE(b->kept, b->kept_cap, b->kept_len + rs.npos))
      return nomem(b);
    b->run_kept[r] = (uint32_t)b->kept_len;
    for (uint32_t p = 0; p < rs.npos; p++)
      b->kept[b->kept_len++] = sample_of(&b->c, staged_rep(&rs, p));
  }
  b->run_group[r] = blk;
  bk->run_count++;
  return ETK_OK;
}

/* ------------------------------------------------------- wrap check */

/* Upstream's wrap-around error needs a profile event whose end is before
 * its start; the reader flags those, so the usual dump (none) skips the
 * walk over every sample's times. */
static int check_samples(etk_inspector_t *insp, etk_error_t *err) {
  if (!(insp->any_flags & ETK_ETDUMP_FLAG_END_BEFORE_START)) return ETK_OK;
  for (size_t bi = 0; bi < insp->block_count; bi++) {
    const insp_block_t *bk = &insp->blocks[bi];
    for (uint32_t e = 0; e < bk->event_count; e++) {
      if (!insp_event_has_perf(insp, bk->first_event + e)) continue;
      insp_event_t ev = insp_event_at(insp, bk->first_event + e);
      int delegated = insp_event_is_delegated(&ev);
      const uint64_t s = insp_sample_index(bk, bk->first_event + e);
      for (uint32_t j = 0; j < bk->run_count; j++) {
        double dur;
        const uint32_t sample = insp_sample(insp, s + j);
        if (insp_duration(insp, sample, delegated, &dur) < 0) {
          uint64_t st, en;
          etk_etdump_event_times(insp->dump, sample, &st, &en);
          return etk_error_set(
              err, ETK_E_FORMAT, etk_etdump_event_offset(insp->dump, sample),
              "Expected start_time (%llu) and end_time (%llu) to be less "
              "than 4294967295 for cases where there is wrap-around of time "
              "values (upstream's error; the profile event's end is before "
              "its start)",
              (unsigned long long)st, (unsigned long long)en);
        }
      }
    }
  }
  return ETK_OK;
}

/* The samples when every block holds one run (the runs all differ, e.g.
 * one huge run): the events array itself. */
static int samples_single(etk_inspector_t *insp, builder_t *b, size_t runs) {
  int rc = ETK_OK;
  for (size_t k = 0; k < insp->block_count; k++) {
    insp_block_t *bk = &insp->blocks[k];
    bk->sample_base = bk->first_event; /* blocks were made in run order */
    bk->first_run = (uint32_t)k;
  }
  insp->block_runs = malloc(
      insp->block_count ? insp->block_count * sizeof *insp->block_runs : 1);
  if (!insp->block_runs) rc = nomem(b);
  for (size_t r = 0; rc == ETK_OK && r < runs; r++)
    if (b->run_group[r] != INSP_NONE)
      insp->block_runs[b->run_group[r]] = (uint32_t)r;
  /* a perf event's sample is its rep: the events are the samples (NULL
   * with them: each its own index) */
  if (rc == ETK_OK) insp->samples = insp->events;
  return rc;
}

/* The block x run matrix of samples, filled in run order from each block's
 * events (its first run) and the kept samples (the others). */
static int samples_matrix(etk_inspector_t *insp, builder_t *b, size_t runs,
                          etk_error_t *err) {
  int rc = ETK_OK;
  uint64_t total = 0, grouped = 0;
  for (size_t k = 0; k < insp->block_count; k++) {
    insp_block_t *bk = &insp->blocks[k];
    bk->sample_base = total;
    bk->first_run = (uint32_t)grouped;
    total += (uint64_t)bk->event_count * bk->run_count;
    grouped += bk->run_count;
    bk->run_count = 0; /* refilled below as a cursor */
  }
  if (total > ((size_t)-1) / sizeof(uint32_t)) {
    rc = etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET, "too many samples");
  } else {
    insp->samples = malloc(total ? (size_t)total * sizeof *insp->samples : 1);
    insp->block_runs =
        malloc(grouped ? (size_t)grouped * sizeof *insp->block_runs : 1);
    if (!insp->samples || !insp->block_runs) rc = nomem(b);
  }
  if (rc == ETK_OK) {
    /* first count runs per block again to know R while filling */
    uint32_t *count =
        calloc(insp->block_count ? insp->block_count : 1, sizeof *count);
    if (!count) rc = nomem(b);
    for (size_t r = 0; rc == ETK_OK && r < runs; r++)
      if (b->run_group[r] != INSP_NONE) count[b->run_group[r]]++;
    for (size_t r = 0; rc == ETK_OK && r < runs; r++) {
      uint32_t g = b->run_group[r];
      if (g == INSP_NONE) continue;
      insp_block_t *bk = &insp->blocks[g];
      uint32_t j = bk->run_count++;
      uint32_t R = count[g];
      insp->block_runs[bk->first_run + j] = (uint32_t)r;
      if (bk->event_count == 0) continue; /* no samples (none kept either) */
      uint32_t *dst = insp->samples + bk->sample_base + j;
      if (b->run_kept[r] == INSP_NONE) { /* the block's first run */
        for (uint32_t p = 0; p < bk->event_count; p++)
          dst[(uint64_t)p * R] =
              sample_of(&b->c, insp_event_rep(insp, bk->first_event + p));
        continue;
      }
      const uint32_t *kp = b->kept + b->run_kept[r];
      for (uint32_t p = 0; p < bk->event_count; p++)
        dst[(uint64_t)p * R] = kp[p];
    }
    free(count);
  }
  return rc;
}

/* Drops the events, and the samples when they are the same array, when
 * every event's rep is its own index (one run of profile events, the usual
 * huge dump): insp_event_rep() and insp_sample() then give the index. */
static void elide_identity(etk_inspector_t *insp) {
  if (!insp->events) return;
  for (size_t e = 0; e < insp->event_count; e++)
    if (insp->events[e] != e) return;
  if (insp->samples == insp->events) insp->samples = NULL;
  free(insp->events);
  insp->events = NULL;
}

/* ------------------------------------------------------- entry point */

int insp_build_blocks(etk_inspector_t *insp, etk_error_t *err);

int insp_build_blocks(etk_inspector_t *insp, etk_error_t *err) {
  builder_t b;
  memset(&b, 0, sizeof b);
  b.insp = insp;
  b.d = insp->dump;
  b.err = err;
  etk_etdump_columns(b.d, &b.c);
  size_t runs = etk_etdump_run_count(b.d);
  size_t max_run = 0, with_events = 0;
  for (size_t r = 0; r < runs; r++) {
    etk_etdump_run_t run;
    etk_etdump_run_get(b.d, r, &run);
    if (run.event_count > max_run) max_run = run.event_count;
    with_events += run.has_events;
  }
  /* a lone run is compared with nothing: its signatures need no hash */
  b.compare_runs = with_events > 1;
  size_t slots = 16;
  while (slots < 2 * max_run) slots *= 2;
  int rc = ETK_OK;
  b.ies = malloc((max_run ? max_run : 1) * sizeof *b.ies);
  b.dbg = malloc((max_run ? max_run : 1) * sizeof *b.dbg);
  b.has_dbg = malloc(max_run / 8 + 1);
  b.has_dname = malloc(max_run / 8 + 1);
  b.slots = malloc(slots * sizeof *b.slots);
  b.next = malloc((max_run ? max_run : 1) * sizeof *b.next);
  b.pos_ie = malloc((max_run ? max_run : 1) * sizeof *b.pos_ie);
  b.outs = malloc((max_run ? max_run : 1) * sizeof *b.outs);
  b.run_group = malloc((runs ? runs : 1) * sizeof *b.run_group);
  b.run_kept = malloc((runs ? runs : 1) * sizeof *b.run_kept);
  b.block_slot_mask = 63;
  b.block_slots = calloc(64, sizeof *b.block_slots);
  if (!b.ies || !b.dbg || !b.has_dbg || !b.has_dname || !b.slots || !b.next ||
      !b.pos_ie || !b.outs || !b.run_group || !b.run_kept || !b.block_slots)
    rc = nomem(&b);

  for (size_t r = 0; r < runs && rc == ETK_OK; r++)
    rc = process_run(&b, (uint32_t)r);

  free(b.ies);
  free(b.dbg);
  free(b.has_dbg);
  free(b.has_dname);
  free(b.slots);
  free(b.next);
  free(b.pos_ie);
  free(b.outs);
  b.ies = NULL;
  b.dbg = NULL;
  b.has_dbg = b.has_dname = NULL;
  b.slots = b.next = b.pos_ie = b.outs = NULL;
  free(b.block_slots);
  free(b.alloc_slots);
  for (size_t k = 0; k < b.block_sigs_cap; k++) free(b.block_sigs[k]);
  free(b.block_sigs);

  /* the block x run matrix of samples */
  int single = 1;
  for (size_t k = 0; k < insp->block_count && single; k++)
    single = insp->blocks[k].run_count == 1;
  if (rc == ETK_OK)
    rc = single ? samples_single(insp, &b, runs)
                : samples_matrix(insp, &b, runs, err);
  free(b.kept);
  free(b.run_group);
  free(b.run_kept);
  if (rc == ETK_OK) elide_identity(insp);
  if (rc == ETK_OK) rc = check_samples(insp, err);
  return rc;
}
