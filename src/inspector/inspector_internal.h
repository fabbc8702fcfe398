/*
 * inspector_internal.h - the layout of etk_inspector_t, shared by the files
 * of src/inspector/ only.
 */
#ifndef ETKIT_INSPECTOR_INTERNAL_H
#define ETKIT_INSPECTOR_INTERNAL_H

#include <stdint.h>

#include "etkit/inspector_core.h"

#define INSP_NONE UINT32_MAX /* no index / no signature */

/* The event signature of an Inspector event (derived, see insp_event_at).
 * pname/dname are NORMALISED name ids ("name or ''": absent -> empty) of
 * the profile / first debug event, or INSP_NONE when the signature has no
 * profile / debug part.  dint is -1 for None, dstr 0 for None (absent or
 * empty string).  Name, delegate identifier and is_delegated_op derive from
 * these exactly as upstream's _populate_event_signature_fields. */
typedef struct insp_event {
  int32_t iid;
  int32_t dint;
  uint32_t dstr;
  uint32_t pname;
  uint32_t dname;
} insp_event_t;

/* What an Inspector event stores (4 bytes, none when it is its own index):
 * `rep`, an ETDump event whose columns carry the signature's instruction
 * id, delegate ids and, when it is a profile event, the profile name: for a
 * signature with a profile part one of its profile events (all runs of a
 * block agree), else an event of its instruction event (a debug event).  The
 * debug name, rarer, is kept with the event's debug entries
 * (insp_debug_t.dname): an event has a debug signature exactly when it has
 * debug entries. */

static inline uint32_t insp_norm_name(uint32_t id) {
  return id == ETK_ETDUMP_STR_ABSENT ? ETK_ETDUMP_STR_EMPTY : id;
}
static inline uint32_t insp_norm_dstr(uint32_t id) {
  return id == ETK_ETDUMP_STR_EMPTY ? ETK_ETDUMP_STR_ABSENT : id;
}

/* The signature of representative ETDump event `rep` with debug name
 * `dname` (INSP_NONE for none). */
static inline insp_event_t insp_event_of(const etk_etdump_columns_t *c,
                                         uint32_t rep, uint32_t dname) {
  insp_event_t s;
  s.iid = c->instruction_id[rep];
  s.dint = etk_etdump_delegate_id_int(c->delegate_id_int_plus_one[rep]);
  s.dstr = insp_norm_dstr(c->delegate_id_str_id[rep]);
  s.pname = (c->flags[rep] & ETK_ETDUMP_KIND_MASK) == ETK_ETDUMP_EVENT_PROFILE
                ? insp_norm_name(c->name_id[rep])
                : INSP_NONE;
  s.dname = dname;
  return s;
}

typedef struct insp_block {
  uint32_t name_id; /* raw run name id (0 = absent) */
  int32_t bii;
  uint32_t first_event, event_count;
  uint32_t first_run, run_count; /* into block_runs */
  uint64_t sample_base;          /* samples[base + e_local * run_count + j] */
  uint32_t output_first, output_count; /* into outputs */
  uint32_t offset;
  uint64_t hash; /* run-signature hash */
} insp_block_t;

/* Debug entries of one event (sparse: only events with debug data). */
typedef struct insp_debug {
  uint32_t event;
  uint32_t first, count; /* into debug_refs (count >= 1) */
  uint32_t dname;        /* the event signature's debug name */
} insp_debug_t;

typedef struct insp_link {
  etk_inspector_event_link_t view;
  void *mem; /* one allocation holding every array and string of the view */
} insp_link_t;

/* Origins of one event's link nodes (event_origins.c): the view and one
 * allocation holding it, its module arrays and strings. */
typedef struct insp_origins {
  etk_inspector_node_origin_t *nodes;
  size_t count;
} insp_origins_t;

/* A remembered etk_inspector_event_stats() answer for an event of several
 * runs (their durations and statistics.c's work are done once for a row
 * read several times). */
#define INSP_STATS_MEMO 64 /* entries, direct-mapped by event index */
typedef struct insp_stats_memo {
  uint32_t event_plus_one; /* 0 = empty */
  int rc;                  /* ETK_OK (st valid) or ETK_E_NOT_FOUND */
  etk_stats_t st;
} insp_stats_memo_t;

typedef struct insp_alloc {
  uint32_t run_name_id;
  int32_t allocator_id;
  uint32_t name_id; /* allocator name id, 0 when unknown */
  uint64_t count, total, max, runs;
  uint32_t last_run;
} insp_alloc_t;

struct etk_inspector {
  const etk_etdump_t *dump;
  etk_etdump_t *owned_dump;
  etk_inspector_options_t options;
  double factor;

  size_t block_count;
  insp_block_t *blocks;
  uint32_t *block_runs;

  etk_etdump_columns_t cols; /* of `dump` */
  unsigned any_flags;        /* every ETDump event's flags OR'ed together */
  size_t chain_count;        /* distinct chain values of `dump` */
  int32_t chain_zero_index;  /* insp_chain_index() of chain id 0 */
  size_t event_count;
  uint32_t *events;  /* rep per event (read with insp_event_rep()); NULL
                        when every event's rep is its own index (one run
                        of profile events: the usual single huge run) */
  uint32_t *samples; /* ETDump event index per (event, run) (read with
                        insp_sample()); NONE for debug-only events.  When
                        every block has one run it is `events` itself (a
                        perf event's sample is its rep; nothing reads a
                        debug-only event's), NULL with it */
  size_t debug_count;
  insp_debug_t *debug;
  uint32_t *debug_refs;
  uint32_t *outputs;
  size_t debug_mismatches;

  size_t alloc_count;
  insp_alloc_t *allocs;

  insp_link_t **links;      /* NULL until a link is set; then per event */
  insp_origins_t **origins; /* NULL until origins are set; then per event */

  /* scratch (not thread-safe) */
  insp_stats_memo_t *stats_memo; /* NULL until the first statistics */
  double *scratch;               /* 2 * max samples per event */
  size_t scratch_cap;
  /* options.compensate: ticks to take from each ETDump event's duration
   * (compensation.c), NULL otherwise */
  double *compensation;
  /* the same from the dump's calibration for side-by-side views, computed
   * on first use (compensation_view.c): side_state 0 not yet, 1 none, 2
   * side_compensation holds it */
  double *side_compensation;
  int side_state;
  char name_buf[32]; /* decimal delegate ids */
};

const insp_debug_t *insp_debug_of(const etk_inspector_t *insp, size_t event);

/* The rep of Inspector event e (e < event_count). */
static inline uint32_t insp_event_rep(const etk_inspector_t *insp, size_t e) {
  return insp->events ? insp->events[e] : (uint32_t)e;
}
/* Index into the samples of event e's first run (e in block bk). */
static inline uint64_t insp_sample_index(const insp_block_t *bk, size_t e) {
  return bk->sample_base + (uint64_t)(e - bk->first_event) * bk->run_count;
}
/* Sample i: samples[i], or i itself when the samples are elided. */
static inline uint32_t insp_sample(const etk_inspector_t *insp, uint64_t i) {
  return insp->samples ? insp->samples[i] : (uint32_t)i;
}

/* Signature of Inspector event e (e < event_count). */
static inline insp_event_t insp_event_at(const etk_inspector_t *insp,
                                         size_t e) {
  const insp_debug_t *dd = insp->debug_count ? insp_debug_of(insp, e) : NULL;
  return insp_event_of(&insp->cols, insp_event_rep(insp, e),
                       dd ? dd->dname : INSP_NONE);
}
/* Whether Inspector event e has a profile part (perf data). */
static inline int insp_event_has_perf(const etk_inspector_t *insp, size_t e) {
  return (insp->cols.flags[insp_event_rep(insp, e)] & ETK_ETDUMP_KIND_MASK) ==
         ETK_ETDUMP_EVENT_PROFILE;
}

/* Shared helpers (inspector.c). */
/* Whether a signature is a delegated op (upstream's is_delegated_op). */
static inline int insp_event_is_delegated(const insp_event_t *e) {
  return e->dint != -1 || e->dstr != ETK_ETDUMP_STR_ABSENT;
}
/* insp_event_is_delegated() of Inspector event e's signature, from its
 * rep's columns alone (the debug name plays no part). */
static inline int insp_event_delegated(const etk_inspector_t *insp, size_t e) {
  const uint32_t rep = insp_event_rep(insp, e);
  return insp->cols.delegate_id_int_plus_one[rep] != 0 ||
         insp_norm_dstr(insp->cols.delegate_id_str_id[rep]) !=
             ETK_ETDUMP_STR_ABSENT;
}
/* PerfData statistics of a single duration d: etk_stats_compute() for n = 1
 * (statistics.c), every field as its recipes give it. */
void insp_stats_single(double d, etk_stats_t *out);
/* Name of an event; decimal ids are written to buf (>= 24 bytes). */
const char *insp_event_name(const etk_inspector_t *insp, const insp_event_t *e,
                            char *buf, size_t *len);
/* The block holding Inspector event `event` (event < event_count). */
size_t insp_block_search(const etk_inspector_t *insp, size_t event);
static inline size_t insp_block_of(const etk_inspector_t *insp, size_t event) {
  return insp->block_count == 1 ? 0 : insp_block_search(insp, event);
}
/* Duration of the profile event `ev` for an event delegated or not:
 * returns 0 and sets *out; 1 when the sample has no duration (a missing end
 * time); -1 for upstream's wrap-around error (a stamp above 2^32 - 1). */
int insp_duration(const etk_inspector_t *insp, uint32_t ev, int delegated,
                  double *out);
/* The same from the event's start and end ticks. */
int insp_duration_of(const etk_inspector_t *insp, uint64_t start, uint64_t end,
                     int delegated, double *out);
/* What compensation takes from ETDump event ev's duration, in the target
 * unit (0 without options.compensate). */
static inline double insp_compensation(const etk_inspector_t *insp,
                                       uint32_t ev) {
  return insp->compensation ? insp->compensation[ev] / insp->factor : 0.0;
}
/* Durations of an event into raw (>= run_count entries); returns count. */
size_t insp_event_raw(const etk_inspector_t *insp, size_t event, double *raw);
/* The same when the event's block index is known; `starts` (NULL or
 * run_count entries) also receives every sample's start ticks; `sig` is
 * the event's insp_event_at() when the caller has it, else NULL. */
size_t insp_event_raw_in(const etk_inspector_t *insp, size_t event,
                         size_t block, double *raw, uint64_t *starts,
                         const insp_event_t *sig);
/* etk_inspector_event_stats() when the event's block index is known
 * (`starts` and `sig` as for insp_event_raw_in). */
int insp_event_stats(etk_inspector_t *insp, size_t event, size_t block,
                     etk_stats_t *out, uint64_t *starts,
                     const insp_event_t *sig);
int insp_scratch_reserve(etk_inspector_t *insp, size_t n);
int insp_event_has_metadata(const etk_inspector_t *insp, size_t event);
/* The chain index etk_inspector_event_t reports for chain id `chain`. */
int32_t insp_chain_index(const etk_etdump_t *dump, uint32_t chain);

/* Side-by-side compensation (compensation_view.c): per ETDump event ticks
 * (insp->compensation, else the dump's calibration), NULL without one. */
const double *insp_side_compensation(etk_inspector_t *insp);
/* The mean of comp[] over an event's samples, in the target unit. */
double insp_event_mean_compensation(const etk_inspector_t *insp,
                                    const double *comp, size_t event);

/* ETRecord origins (event_origins.c, module_tree.c). */
void insp_origins_free(etk_inspector_t *insp);
/* Appends the event's source text (distinct "file:line" of its nodes,
 * ", "-joined) to b; returns 0 when the event has none. */
int insp_event_source_text(const etk_inspector_t *insp, size_t event,
                           int full_paths, etk_strbuf_t *b);
/* The module view of the selected blocks (selected[b] != 0). */
int insp_render_modules(etk_inspector_t *insp,
                        const etk_inspector_render_options_t *o,
                        const uint8_t *selected, etk_render_sink_t *sink,
                        etk_error_t *err);

#endif
