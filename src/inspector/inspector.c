/*
 * inspector.c - the Inspector object: options and time scales (open.c opens),
 * block/event/sample accessors, durations, statistics, ETRecord link slots
 * and the allocation report.
 *
 * PURPOSE
 *   Everything the public API exposes about a grouped dump, computed on
 *   demand from the compact representation built by event_blocks.c:
 *   an Inspector event is one ETDump event standing for its signature (4
 *   bytes; the debug name lives with its debug entries); its name,
 *   delegate id, samples, durations and statistics are derived here each
 *   time.
 *
 * DURATIONS (upstream Event._populate_profiling_related_fields)
 *   not delegated: float(elapsed(start, end)) / factor, the subtraction in
 *     integers; delegated: elapsed(start / factor, end / factor), i.e. the
 *     default delegate_time_scale_converter applied to each stamp first.
 *   elapsed(s, e) = e - s, or on a wrap (s > e, both < 2^32) the 32-bit
 *     modular difference (2^32 - s) + e.  Upstream's formula is one less
 *     ((2^32 - 1 - s) + e), and for delegated events it even adds the raw
 *     constant to converted times; ETK_INSPECTOR_QUIRK_WRAP_OFF_BY_ONE
 *     restores both.  A wrap with a stamp >= 2^32 is upstream's ValueError
 *     (reported when the inspector is opened).  An end time of 0 with a
 *     non-zero start is a missing end (a recorder that never closed the
 *     event): no duration, unless ETK_INSPECTOR_QUIRK_MISSING_END_WRAPS.
 *
 * LINKS
 *   Each event may carry one etk_inspector_event_link_t, deep-copied into a
 *   single allocation so that the caller's ETRecord structures need not
 *   outlive the inspector.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inspector_internal.h"

/* ------------------------------------------------------- time scales */

static const char *const scale_names[] = {"ns", "us", "ms", "s", "cycles"};
static const double units_per_second[] = {1e9, 1e6, 1e3, 1.0, 1.0};

const char *etk_time_scale_name(etk_time_scale_t s) {
  return (unsigned)s < 5 ? scale_names[s] : "?";
}

int etk_time_scale_parse(const char *name, etk_time_scale_t *out) {
  if (!name || !out) return ETK_E_INVALID_ARGUMENT;
  for (int i = 0; i < 5; i++)
    if (strcmp(name, scale_names[i]) == 0) {
      *out = (etk_time_scale_t)i;
      return ETK_OK;
    }
  return ETK_E_INVALID_ARGUMENT;
}

int etk_time_scale_factor(etk_time_scale_t source, etk_time_scale_t target,
                          double clock_hz, double *factor, etk_error_t *err) {
  if ((unsigned)source > 4 || (unsigned)target > 4 || !factor)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "invalid time scale");
  int sc = source == ETK_TIME_CYCLES, tc = target == ETK_TIME_CYCLES;
  double src = units_per_second[source], tgt = units_per_second[target];
  if (sc != tc) {
    if (!(clock_hz > 0) || clock_hz != clock_hz || clock_hz - clock_hz != 0)
      return etk_error_set(err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                           "For TimeScale in cycles both the source and target "
                           "time scale have to be in cycles. (give the clock "
                           "rate to convert cycles to time)");
    if (sc)
      src = clock_hz;
    else
      tgt = clock_hz;
  }
  *factor = src / tgt;
  return ETK_OK;
}

void etk_inspector_options_init(etk_inspector_options_t *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->source_time_scale = ETK_TIME_NS;
  o->target_time_scale = ETK_TIME_MS;
}

/* ------------------------------------------------------- helpers */

const char *insp_event_name(const etk_inspector_t *insp, const insp_event_t *e,
                            char *buf, size_t *len) {
  etk_etdump_str_t s = {"", 0};
  if (e->dint != -1) {
    *len = etk_format_int(e->dint, buf);
    return buf;
  }
  if (e->dstr != ETK_ETDUMP_STR_ABSENT) {
    s = etk_etdump_string(insp->dump, e->dstr);
  } else if (e->dname != INSP_NONE && e->dname != ETK_ETDUMP_STR_EMPTY) {
    s = etk_etdump_string(insp->dump, e->dname);
  } else if (e->pname != INSP_NONE && e->pname != ETK_ETDUMP_STR_EMPTY) {
    s = etk_etdump_string(insp->dump, e->pname);
  }
  *len = s.len;
  return s.data ? s.data : "";
}

size_t insp_block_search(const etk_inspector_t *insp, size_t event) {
  size_t lo = 0, hi = insp->block_count;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (insp->blocks[mid].first_event <= event)
      lo = mid;
    else
      hi = mid;
  }
  /* empty blocks share first_event with the next one: take the last block
   * whose range holds the event */
  while (lo + 1 < insp->block_count &&
         insp->blocks[lo + 1].first_event <= event)
    lo++;
  while (lo > 0 && insp->blocks[lo].first_event > event) lo--;
  return lo;
}

const insp_debug_t *insp_debug_of(const etk_inspector_t *insp, size_t event) {
  size_t lo;
  ETK_LOWER_BOUND(lo, insp->debug, insp->debug_count, event, event);
  return lo < insp->debug_count && insp->debug[lo].event == event
             ? &insp->debug[lo]
             : NULL;
}

#define U32MAX 4294967295ull

int insp_duration(const etk_inspector_t *insp, uint32_t ev, int delegated,
                  double *out) {
  uint64_t s, e;
  etk_etdump_event_times(insp->dump, ev, &s, &e);
  int rc = insp_duration_of(insp, s, e, delegated, out);
  if (rc == 0) *out -= insp_compensation(insp, ev);
  return rc;
}

int insp_duration_of(const etk_inspector_t *insp, uint64_t s, uint64_t e,
                     int delegated, double *out) {
  const unsigned q = insp->options.flags;
  const double f = insp->factor;
  if (e == 0 && s > 0 && !(q & ETK_INSPECTOR_QUIRK_MISSING_END_WRAPS)) return 1;
  if (delegated && (q & ETK_INSPECTOR_QUIRK_WRAP_OFF_BY_ONE)) {
    /* upstream exactly: the wrap rule on converted stamps */
    double cs = (double)s / f, ce = (double)e / f;
    if (cs > ce) {
      if (cs > 4294967295.0 || ce > 4294967295.0) return -1;
      *out = (4294967295.0 - cs) + ce;
    } else {
      *out = ce - cs;
    }
    return 0;
  }
  if (s > e) {
    if (s > U32MAX || e > U32MAX) return -1;
    uint64_t el = (q & ETK_INSPECTOR_QUIRK_WRAP_OFF_BY_ONE)
                      ? (U32MAX - s) + e
                      : (U32MAX + 1 - s) + e;
    *out = (double)el / f;
    return 0;
  }
  if (delegated)
    *out = (double)e / f - (double)s / f;
  else
    *out = (double)(e - s) / f;
  return 0;
}

size_t insp_event_raw(const etk_inspector_t *insp, size_t event, double *raw) {
  if (!insp_event_has_perf(insp, event)) return 0;
  return insp_event_raw_in(insp, event, insp_block_of(insp, event), raw, NULL,
                           NULL);
}

size_t insp_event_raw_in(const etk_inspector_t *insp, size_t event,
                         size_t block, double *raw, uint64_t *starts,
                         const insp_event_t *sig) {
  if (!insp_event_has_perf(insp, event)) return 0;
  const insp_block_t *bk = &insp->blocks[block];
  const uint64_t s = insp_sample_index(bk, event);
  int delegated =
      sig ? insp_event_is_delegated(sig) : insp_event_delegated(insp, event);
  size_t n = 0;
  for (uint32_t j = 0; j < bk->run_count; j++) {
    uint64_t st, en;
    double d;
    const uint32_t ev = insp_sample(insp, s + j);
    etk_etdump_event_times(insp->dump, ev, &st, &en);
    if (starts) starts[j] = st;
    if (insp_duration_of(insp, st, en, delegated, &d) == 0)
      raw[n++] = d - insp_compensation(insp, ev);
  }
  return n;
}

int insp_scratch_reserve(etk_inspector_t *insp, size_t n) {
  if (n <= insp->scratch_cap) return ETK_OK;
  double *p = realloc(insp->scratch, 2 * n * sizeof *p);
  if (!p) return ETK_E_NO_MEMORY;
  insp->scratch = p;
  insp->scratch_cap = n;
  return ETK_OK;
}

int insp_event_has_metadata(const etk_inspector_t *insp, size_t event) {
  if (!(insp->any_flags & ETK_ETDUMP_FLAG_METADATA) ||
      !insp_event_has_perf(insp, event))
    return 0;
  const insp_block_t *bk = &insp->blocks[insp_block_of(insp, event)];
  const uint64_t s = insp_sample_index(bk, event);
  for (uint32_t j = 0; j < bk->run_count; j++) {
    const uint32_t ev = insp_sample(insp, s + j);
    if (!(insp->cols.flags[ev] & ETK_ETDUMP_FLAG_METADATA)) continue;
    etk_etdump_event_t e;
    etk_etdump_event_get(insp->dump, ev, &e);
    if (e.metadata_len > 0) return 1;
  }
  return 0;
}

/* ------------------------------------------------------- blocks */

size_t etk_inspector_block_count(const etk_inspector_t *insp) {
  return insp ? insp->block_count : 0;
}

int etk_inspector_block_get(const etk_inspector_t *insp, size_t index,
                            etk_inspector_block_t *out) {
  if (!insp || !out || index >= insp->block_count)
    return ETK_E_INVALID_ARGUMENT;
  const insp_block_t *b = &insp->blocks[index];
  etk_etdump_str_t name = etk_etdump_string(insp->dump, b->name_id);
  out->name = name.data ? name.data : "";
  out->name_len = name.len;
  out->name_present = b->name_id != ETK_ETDUMP_STR_ABSENT;
  out->bundled_input_index = b->bii;
  out->first_event = b->first_event;
  out->event_count = b->event_count;
  out->run_count = b->run_count;
  out->runs = insp->block_runs + b->first_run;
  out->offset = b->offset;
  out->output_count = b->output_count;
  out->outputs = b->output_count ? insp->outputs + b->output_first : NULL;
  return ETK_OK;
}

/* ------------------------------------------------------- events */

size_t etk_inspector_event_count(const etk_inspector_t *insp) {
  return insp ? insp->event_count : 0;
}

/* The chain index etk_inspector_event_t reports for chain id `chain`. */
int32_t insp_chain_index(const etk_etdump_t *dump, uint32_t chain) {
  int neg;
  uint64_t mag;
  etk_etdump_chain(dump, chain, &neg, &mag);
  if (neg) return -(int32_t)(mag > 0x80000000u ? 0x80000000u : mag);
  return mag > INT32_MAX ? -1 : (int32_t)mag;
}

/* The fields of etk_inspector_event_get_basic() from the event's
 * signature `e` and block. */
static void event_basic(const etk_inspector_t *insp, const insp_event_t *e,
                        size_t bi, etk_inspector_event_t *out) {
  memset(out, 0, sizeof *out);
  out->block = bi;
  out->name = insp_event_name(insp, e, ((etk_inspector_t *)insp)->name_buf,
                              &out->name_len);
  out->instruction_id = e->iid;
  out->is_delegated_op = insp_event_is_delegated(e);
  if (e->dint != -1) {
    out->delegate_id_is_int = 1;
    out->delegate_debug_id_int = e->dint;
  } else if (e->dstr != ETK_ETDUMP_STR_ABSENT) {
    out->delegate_debug_id_str = etk_etdump_string(insp->dump, e->dstr).data;
  }
  out->sample_count = e->pname == INSP_NONE ? 0 : insp->blocks[bi].run_count;
}

int etk_inspector_event_get_basic(const etk_inspector_t *insp, size_t index,
                                  etk_inspector_event_t *out) {
  if (!insp || !out || index >= insp->event_count)
    return ETK_E_INVALID_ARGUMENT;
  const insp_event_t ev = insp_event_at(insp, index);
  event_basic(insp, &ev, insp_block_of(insp, index), out);
  return ETK_OK;
}

int etk_inspector_event_get(const etk_inspector_t *insp, size_t index,
                            etk_inspector_event_t *out) {
  if (!insp || !out || index >= insp->event_count)
    return ETK_E_INVALID_ARGUMENT;
  const insp_debug_t *dd =
      insp->debug_count ? insp_debug_of(insp, index) : NULL;
  const insp_event_t ev =
                         insp_event_of(&insp->cols, insp_event_rep(insp, index),
                                       dd ? dd->dname : INSP_NONE),
                     *e = &ev;
  size_t bi = insp_block_of(insp, index);
  const insp_block_t *bk = &insp->blocks[bi];
  event_basic(insp, e, bi, out);
  out->debug_count = dd ? dd->count : 0;
  out->has_debug_signature = e->dname != INSP_NONE;
  uint32_t first_ev = INSP_NONE;
  if (e->pname != INSP_NONE && bk->run_count)
    first_ev = insp_sample(insp, insp_sample_index(bk, index));
  else if (dd && dd->count)
    first_ev = insp->debug_refs[dd->first];
  out->chain_index = 0;
  if (first_ev != INSP_NONE) /* one chain value: every event has id 0 */
    out->chain_index =
        insp->chain_count <= 1
            ? insp->chain_zero_index
            : insp_chain_index(insp->dump, insp->cols.chain_id[first_ev]);
  out->has_metadata = insp_event_has_metadata(insp, index);
  return ETK_OK;
}

int etk_inspector_event_sample(const etk_inspector_t *insp, size_t event,
                               size_t k, etk_inspector_sample_t *out) {
  if (!insp || !out || event >= insp->event_count)
    return ETK_E_INVALID_ARGUMENT;
  const insp_event_t sig = insp_event_at(insp, event), *e = &sig;
  const insp_block_t *bk = &insp->blocks[insp_block_of(insp, event)];
  if (e->pname == INSP_NONE || k >= bk->run_count)
    return ETK_E_INVALID_ARGUMENT;
  uint32_t ev = insp_sample(insp, insp_sample_index(bk, event) + k);
  etk_etdump_event_t de;
  etk_etdump_event_get(insp->dump, ev, &de);
  memset(out, 0, sizeof *out);
  if (insp_duration(insp, ev, insp_event_is_delegated(e), &out->duration) != 0)
    out->duration = (double)NAN;
  out->start_time = de.start_time;
  out->end_time = de.end_time;
  out->run = insp->block_runs[bk->first_run + k];
  out->etdump_event = ev;
  out->metadata = de.metadata;
  out->metadata_len = de.metadata_len;
  return ETK_OK;
}

int etk_inspector_event_durations(const etk_inspector_t *insp, size_t event,
                                  double *raw, size_t *count) {
  if (!insp || !raw || !count || event >= insp->event_count)
    return ETK_E_INVALID_ARGUMENT;
  *count = insp_event_raw(insp, event, raw);
  return ETK_OK;
}

int insp_event_stats(etk_inspector_t *insp, size_t event, size_t block,
                     etk_stats_t *out, uint64_t *starts,
                     const insp_event_t *sig) {
  const insp_block_t *bk = &insp->blocks[block];
  if (bk->run_count == 1) { /* one sample: its duration is every statistic */
    if (!insp_event_has_perf(insp, event)) return ETK_E_NOT_FOUND;
    uint64_t st, en;
    double d;
    const uint32_t ev = insp_sample(insp, insp_sample_index(bk, event));
    etk_etdump_event_times(insp->dump, ev, &st, &en);
    if (starts) starts[0] = st;
    int delegated =
        sig ? insp_event_is_delegated(sig) : insp_event_delegated(insp, event);
    if (insp_duration_of(insp, st, en, delegated, &d) != 0)
      return ETK_E_NOT_FOUND;
    insp_stats_single(d - insp_compensation(insp, ev), out);
    return ETK_OK;
  }
  if (insp_scratch_reserve(insp, bk->run_count ? bk->run_count : 1) != ETK_OK)
    return ETK_E_NO_MEMORY;
  size_t n = insp_event_raw_in(insp, event, block, insp->scratch, starts, sig);
  if (n == 0) return ETK_E_NOT_FOUND;
  return etk_stats_compute(insp->scratch, n, insp->scratch + insp->scratch_cap,
                           out);
}

int etk_inspector_event_stats(etk_inspector_t *insp, size_t event,
                              etk_stats_t *out) {
  if (!insp || !out || event >= insp->event_count)
    return ETK_E_INVALID_ARGUMENT;
  const size_t block = insp_block_of(insp, event);
  if (insp->blocks[block].run_count <= 1) /* one duration: cheap to redo */
    return insp_event_stats(insp, event, block, out, NULL, NULL);
  /* several runs: the last answers are kept by event index, so callers
   * that read a row's statistics several times (sorting, then each pass
   * of a table) compute them once for the rows that fit */
  if (!insp->stats_memo)
    insp->stats_memo = calloc(INSP_STATS_MEMO, sizeof *insp->stats_memo);
  insp_stats_memo_t *m =
      insp->stats_memo ? &insp->stats_memo[event % INSP_STATS_MEMO] : NULL;
  if (m && m->event_plus_one == event + 1) {
    if (m->rc == ETK_OK) *out = m->st;
    return m->rc;
  }
  int rc = insp_event_stats(insp, event, block, out, NULL, NULL);
  if (m && (rc == ETK_OK || rc == ETK_E_NOT_FOUND)) {
    m->event_plus_one = (uint32_t)event + 1;
    m->rc = rc;
    if (rc == ETK_OK) m->st = *out;
  }
  return rc;
}

int etk_inspector_event_debug_entry(const etk_inspector_t *insp, size_t event,
                                    size_t k, uint32_t *etdump_event) {
  if (!insp || !etdump_event || event >= insp->event_count)
    return ETK_E_INVALID_ARGUMENT;
  const insp_debug_t *dd = insp_debug_of(insp, event);
  if (!dd || k >= dd->count) return ETK_E_INVALID_ARGUMENT;
  *etdump_event = insp->debug_refs[dd->first + k];
  return ETK_OK;
}

size_t etk_inspector_debug_mismatch_count(const etk_inspector_t *insp) {
  return insp ? insp->debug_mismatches : 0;
}

/* ------------------------------------------------------- links */

static size_t str_size(const char *s) {
  return s ? strlen(s) + 1 : 0;
}

int etk_inspector_event_set_link(etk_inspector_t *insp, size_t event,
                                 const etk_inspector_event_link_t *link,
                                 etk_error_t *err) {
  if (!insp || !link || event >= insp->event_count ||
      (link->debug_handle_count && !link->debug_handles) ||
      (link->op_type_count && !link->op_types) ||
      (link->node_count && !link->nodes))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_inspector_event_set_link: bad argument");
  if (!insp->links) {
    insp->links =
        calloc(insp->event_count ? insp->event_count : 1, sizeof *insp->links);
    if (!insp->links)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
  }
  /* one block: handles, op type pointers, nodes, then all strings */
  size_t size = link->debug_handle_count * sizeof(int64_t) +
                link->op_type_count * sizeof(char *) +
                link->node_count * sizeof(etk_inspector_link_node_t);
  size_t strings = str_size(link->delegate_backend_name);
  for (size_t i = 0; i < link->op_type_count; i++)
    strings += link->op_types[i] ? strlen(link->op_types[i]) + 1 : 1;
  for (size_t i = 0; i < link->node_count; i++)
    strings += (link->nodes[i].name ? strlen(link->nodes[i].name) + 1 : 1) +
               str_size(link->nodes[i].stack_trace) +
               str_size(link->nodes[i].module_hierarchy);
  insp_link_t *l = calloc(1, sizeof *l);
  char *mem = malloc(size + strings + 1);
  if (!l || !mem) {
    free(l);
    free(mem);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  l->mem = mem;
  etk_inspector_event_link_t *v = &l->view;
  *v = *link;
  char *p = mem;
  int64_t *handles = (int64_t *)(void *)p;
  if (link->debug_handle_count)
    memcpy(handles, link->debug_handles,
           link->debug_handle_count * sizeof *handles);
  v->debug_handles = link->debug_handle_count ? handles : NULL;
  p += link->debug_handle_count * sizeof(int64_t);
  const char **ops = (const char **)(void *)p;
  p += link->op_type_count * sizeof(char *);
  etk_inspector_link_node_t *nodes = (etk_inspector_link_node_t *)(void *)p;
  p += link->node_count * sizeof(etk_inspector_link_node_t);
#define COPY_STR(dst, src)         \
  do {                             \
    if (src) {                     \
      size_t n_ = strlen(src) + 1; \
      memcpy(p, src, n_);          \
      dst = p;                     \
      p += n_;                     \
    } else {                       \
      dst = NULL;                  \
    }                              \
  } while (0)
  COPY_STR(v->delegate_backend_name, link->delegate_backend_name);
  for (size_t i = 0; i < link->op_type_count; i++) {
    COPY_STR(ops[i], link->op_types[i] ? link->op_types[i] : "");
  }
  v->op_types = link->op_type_count ? ops : NULL;
  for (size_t i = 0; i < link->node_count; i++) {
    COPY_STR(nodes[i].name, link->nodes[i].name ? link->nodes[i].name : "");
    COPY_STR(nodes[i].stack_trace, link->nodes[i].stack_trace);
    COPY_STR(nodes[i].module_hierarchy, link->nodes[i].module_hierarchy);
  }
#undef COPY_STR
  v->nodes = link->node_count ? nodes : NULL;
  if (insp->links[event]) {
    free(insp->links[event]->mem);
    free(insp->links[event]);
  }
  insp->links[event] = l;
  return ETK_OK;
}

int etk_inspector_event_link(const etk_inspector_t *insp, size_t event,
                             etk_inspector_event_link_t *out) {
  if (!insp || !out || event >= insp->event_count)
    return ETK_E_INVALID_ARGUMENT;
  if (insp->links && insp->links[event]) {
    *out = insp->links[event]->view;
    return ETK_OK;
  }
  memset(out, 0, sizeof *out);
  out->num_outputs = 1;
  return ETK_OK;
}

/* ------------------------------------------------------- allocations */

size_t etk_inspector_allocator_count(const etk_inspector_t *insp) {
  return insp ? insp->alloc_count : 0;
}

int etk_inspector_allocator_get(const etk_inspector_t *insp, size_t index,
                                etk_inspector_allocator_t *out) {
  if (!insp || !out || index >= insp->alloc_count)
    return ETK_E_INVALID_ARGUMENT;
  const insp_alloc_t *a = &insp->allocs[index];
  etk_etdump_str_t rn = etk_etdump_string(insp->dump, a->run_name_id);
  etk_etdump_str_t an = etk_etdump_string(insp->dump, a->name_id);
  out->run_name = rn.data ? rn.data : "";
  out->name = an.data;
  out->allocator_id = a->allocator_id;
  out->count = a->count;
  out->total_bytes = a->total;
  out->max_bytes = a->max;
  out->runs = a->runs;
  return ETK_OK;
}
