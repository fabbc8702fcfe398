/*
 * trace_export.c - an ETDump as a timeline in the Chrome Trace Event
 * Format (Perfetto UI, chrome://tracing): what users script today around
 * the Inspector (Arm's etdump_to_chrome_trace.py and friends), from the
 * raw start/end ticks, without losing nesting, delegates or allocations.
 *
 * TRACKS
 *   One process per dump (pid).  One track (tid) per event block (or per
 *   run), four tids per group g: 1+4g main, 2+4g delegate (events with a
 *   delegate id), 3+4g and 4+4g their "overlapping" companions.  Perfetto
 *   and chrome://tracing need the slices of one track to nest perfectly;
 *   a stack check moves any slice that would partially overlap its
 *   enclosing slice to the companion track instead of letting the viewer
 *   guess.  Each run also gets a "run N" slice around its events on the
 *   main track.
 *
 * TIME
 *   ts/dur are microseconds: ticks * (1e6 / units per second of the
 *   source scale), cycles through clock_hz.  Layout per run:
 *     raw         ticks minus the smallest start of the exported runs
 *     sequential  each run on its own time base, runs back to back in file
 *                 order (for dumps whose clock restarts per run)
 *     auto        raw when every run starts at or after the previous one
 *                 ends (one monotonic clock), else sequential
 *   The raw ticks are kept in args (start_ticks, end_ticks), so nothing is
 *   lost by the layout.
 *
 * BROKEN TIMES (the Inspector's rules, applied to a timeline)
 *   end < start with start < 2^32: a 32-bit counter wrapped; the duration
 *   is the modular one (2^32 - start + end).  In a run where that happens
 *   and every tick fits in 32 bits, times are unwrapped along file order,
 *   which is end order (the runtime appends an event when it ENDS): an end
 *   more than 2^31 below the previous end starts a new epoch (+2^32), and
 *   each start is its end minus its duration.  end == 0 with start != 0
 *   (never closed) and end < start beyond 32 bits (corrupt) have no
 *   duration: they become instant events at their start with
 *   args.missing_end / args.invalid_times.
 *
 * ALLOCATIONS
 *   AllocationEvents have no time.  Each one becomes a "C" counter sample
 *   "memory: <allocator>" (cumulative bytes of that allocator in the run,
 *   reset to 0 at the run start) at the latest end among the profile
 *   events before it in file order (the run start when there is none).
 *
 * MEMORY AND COST
 *   Two passes over the selected runs (bounds for the layout, then
 *   output); per run an item array of 24 bytes per event, sorted by
 *   (start, end descending) so parents precede children in the file; 16
 *   bytes per run for the layout.  Output streams through the sink.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

#define WRAP 4294967296ull /* 2^32 */
#define HALF_WRAP 2147483648ull

typedef ana_item_t trace_item_t;

#define IT_DELEGATED ANA_ITEM_DELEGATED
#define IT_WRAPPED ANA_ITEM_WRAPPED
#define IT_MISSING_END ANA_ITEM_MISSING_END
#define IT_INVALID ANA_ITEM_INVALID
#define IT_OVERLAP ANA_ITEM_OVERLAP

typedef struct exporter {
  etk_trace_writer_t *w;
  const etk_etdump_t *dump;
  const etk_inspector_t *insp;
  const etk_trace_options_t *o;
  etk_trace_stats_t *st;
  etk_error_t *err;
  double mul, div; /* us = ticks * mul, or ticks / div */
  size_t nruns;
  size_t *run_group; /* group (block/run/name) of a run, SIZE_MAX skip */
  size_t *run_block; /* inspector block of a run, SIZE_MAX none */
  size_t ngroups;
  uint8_t *named;              /* per group: tracks already named (4 bits) */
  uint64_t *run_min, *run_max; /* unwrapped tick bounds */
  uint8_t *run_has_times;
  uint64_t *group_end; /* raw layout: mapped end of the group's last run */
  uint8_t *group_seen;
  trace_item_t *items;
  size_t nitems, cap;
  uint64_t *stack[2];
  size_t stack_n[2], stack_cap[2];
  /* layout of the current run: pos = t - base + offset */
  uint64_t base, offset;
  uint64_t last_hi; /* raw ticks where the last timed run ended */
  int layout;
  uint64_t flow_id;
  etk_strbuf_t text;    /* names and hex */
  uint32_t *insp_event; /* per ETDump event: its Inspector event, or
                           UINT32_MAX (NULL without an inspector) */
} exporter_t;

void etk_trace_options_init(etk_trace_options_t *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->source_time_scale = ETK_TIME_NS;
  o->pid = 1;
}

static double to_us(const exporter_t *x, uint64_t ticks) {
  return x->div > 0 ? (double)ticks / x->div : (double)ticks * x->mul;
}

static int fail(exporter_t *x, int code, const char *what) {
  return etk_error_set(x->err, code, ETK_NO_OFFSET, "trace: %s", what);
}

/* ------------------------------------------------------- selection */

/* Fills run_block/run_group and counts the exported runs.  A selected
 * index or name that matches no block is an error (a typo must not give an
 * empty or partial timeline silently).  Without an inspector, "blocks" are
 * the distinct run names in first-appearance order. */
static int map_runs(exporter_t *x, size_t *selected) {
  const etk_trace_options_t *o = x->o;
  size_t n = x->nruns ? x->nruns : 1;
  x->run_group = malloc(n * sizeof *x->run_group);
  x->run_block = malloc(n * sizeof *x->run_block);
  size_t *key = malloc(n * sizeof *key); /* block or name group of a run */
  if (!x->run_group || !x->run_block || !key) {
    free(key);
    return ETK_E_NO_MEMORY;
  }
  for (size_t r = 0; r < x->nruns; r++)
    x->run_block[r] = x->run_group[r] = key[r] = SIZE_MAX;
  ana_intern_t names;
  ana_intern_init(&names);
  int rc = ETK_OK;
  size_t nkeys = 0;
  if (x->insp) {
    nkeys = etk_inspector_block_count(x->insp);
    for (size_t b = 0; b < nkeys; b++) {
      etk_inspector_block_t blk;
      etk_inspector_block_get(x->insp, b, &blk);
      for (size_t k = 0; k < blk.run_count; k++)
        if (blk.runs[k] < x->nruns)
          x->run_block[blk.runs[k]] = key[blk.runs[k]] = b;
    }
  } else {
    for (size_t r = 0; r < x->nruns && rc == ETK_OK; r++) {
      etk_etdump_run_t run;
      etk_etdump_run_get(x->dump, r, &run);
      if (!run.has_events || run.event_count == 0) continue;
      uint32_t id;
      rc = ana_intern_put(&names, run.name.data ? run.name.data : "",
                          run.name.len, &id, NULL);
      key[r] = id;
    }
    nkeys = names.count;
  }
  /* which keys are selected */
  uint8_t *sel = calloc(nkeys ? nkeys : 1, 1);
  if (rc == ETK_OK && !sel) rc = ETK_E_NO_MEMORY;
  int any_select = o->select_index_count || o->select_name_count;
  for (size_t i = 0; rc == ETK_OK && i < o->select_index_count; i++) {
    if (o->select_index[i] >= nkeys)
      rc = etk_error_set(x->err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "there is no event block %zu (the dump has %zu)",
                         o->select_index[i], nkeys);
    else
      sel[o->select_index[i]] = 1;
  }
  for (size_t i = 0; rc == ETK_OK && i < o->select_name_count; i++) {
    const char *nm = o->select_name[i] ? o->select_name[i] : "";
    int found = 0;
    if (x->insp) {
      for (size_t b = 0; b < nkeys; b++) {
        etk_inspector_block_t blk;
        etk_inspector_block_get(x->insp, b, &blk);
        if (blk.name_len == strlen(nm) &&
            memcmp(blk.name, nm, blk.name_len) == 0) {
          sel[b] = 1;
          found = 1;
        }
      }
    } else {
      uint32_t id = ana_intern_find(&names, nm, strlen(nm));
      if (id != UINT32_MAX) {
        sel[id] = 1;
        found = 1;
      }
    }
    if (!found)
      rc = etk_error_set(x->err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "there is no event block named '%s'", nm);
  }
  size_t count = 0;
  for (size_t r = 0; r < x->nruns && rc == ETK_OK; r++) {
    etk_etdump_run_t run;
    etk_etdump_run_get(x->dump, r, &run);
    if (!run.has_events || run.event_count == 0 || key[r] == SIZE_MAX) continue;
    if (any_select && !sel[key[r]]) continue;
    size_t g = o->tracks == ETK_TRACE_TRACKS_RUN ? r : key[r];
    x->run_group[r] = g;
    if (g + 1 > x->ngroups) x->ngroups = g + 1;
    count++;
  }
  ana_intern_free(&names);
  free(sel);
  free(key);
  *selected = count;
  return rc;
}

/* ------------------------------------------------------- collecting */

static int items_reserve(trace_item_t **items, size_t *cap, size_t n) {
  if (n <= *cap) return ETK_OK;
  size_t c = *cap ? *cap : 256;
  while (c < n) c *= 2;
  trace_item_t *q = realloc(*items, c * sizeof *q);
  if (!q) return ETK_E_NO_MEMORY;
  *items = q;
  *cap = c;
  return ETK_OK;
}

int ana_run_items(const etk_etdump_t *dump, const etk_etdump_run_t *run,
                  ana_item_t **items, size_t *cap, size_t *n, uint64_t *lo,
                  uint64_t *hi) {
  *n = 0;
  if (items_reserve(items, cap, (size_t)run->event_count + 1) != ETK_OK)
    return ETK_E_NO_MEMORY;
  ana_item_t *its = *items;
  size_t count = 0;
  etk_etdump_columns_t cols;
  etk_etdump_columns(dump, &cols);
  int any_wrap = 0, all32 = 1;
  for (size_t i = run->first_event;
       i < (size_t)run->first_event + run->event_count; i++) {
    if ((cols.flags[i] & ETK_ETDUMP_KIND_MASK) != ETK_ETDUMP_EVENT_PROFILE)
      continue;
    uint64_t s, e;
    etk_etdump_event_times(dump, i, &s, &e);
    ana_item_t *it = &its[count++];
    it->ev = (uint32_t)i;
    it->flags = 0;
    if (cols.delegate_id_int_plus_one[i] != 0 ||
        (cols.delegate_id_str_id[i] != ETK_ETDUMP_STR_ABSENT &&
         cols.delegate_id_str_id[i] != ETK_ETDUMP_STR_EMPTY))
      it->flags |= ANA_ITEM_DELEGATED;
    if (e == 0 && s != 0) {
      it->flags |= ANA_ITEM_MISSING_END;
    } else if (e < s) {
      if (s < WRAP) {
        it->flags |= ANA_ITEM_WRAPPED;
        any_wrap = 1;
      } else {
        it->flags |= ANA_ITEM_INVALID;
      }
    }
    if (s >= WRAP || e >= WRAP) all32 = 0;
    it->s = s;
    it->e = e;
  }
  /* durations, and unwrapping along file (= end) order */
  int unwrap = any_wrap && all32;
  uint64_t epoch = 0, prev = 0;
  int have_prev = 0;
  for (size_t k = 0; k < count; k++) {
    ana_item_t *it = &its[k];
    if (it->flags & ANA_ITEM_NO_DURATION) {
      uint64_t su = it->s;
      if (unwrap) {
        su += epoch * WRAP;
        if (epoch && have_prev && su > prev + HALF_WRAP) su -= WRAP;
      }
      it->s = it->e = su;
      continue;
    }
    uint64_t dur =
        (it->flags & ANA_ITEM_WRAPPED) ? WRAP - it->s + it->e : it->e - it->s;
    if (unwrap) {
      uint64_t eu = it->e + epoch * WRAP;
      if (have_prev && eu + HALF_WRAP < prev) {
        epoch++;
        eu += WRAP;
      }
      prev = eu;
      have_prev = 1;
      it->e = eu;
      it->s = eu - dur;
    } else {
      it->e = it->s + dur;
    }
  }
  uint64_t l = UINT64_MAX, h = 0;
  for (size_t k = 0; k < count; k++) {
    if (its[k].s < l) l = its[k].s;
    if (its[k].e > h) h = its[k].e;
  }
  *lo = count ? l : 0;
  *hi = count ? h : 0;
  *n = count;
  return ETK_OK;
}

int ana_item_compare(const void *pa, const void *pb) {
  const ana_item_t *a = pa, *b = pb;
  if (a->s != b->s) return a->s < b->s ? -1 : 1;
  if (a->e != b->e) return a->e > b->e ? -1 : 1;
  return (a->ev < b->ev) - (a->ev > b->ev);
}

/* Sorts items by ana_item_compare.  Events are usually in time order
 * already, with the run's slice (appended last) belonging in front: then
 * the last item is moved into place with one binary search and one
 * memmove instead of a full sort. */
static void sort_items(ana_item_t *items, size_t n) {
  if (n < 2) return;
  size_t k = 1;
  while (k < n - 1 && ana_item_compare(&items[k - 1], &items[k]) <= 0) k++;
  if (k < n - 1) {
    qsort(items, n, sizeof *items, ana_item_compare);
    return;
  }
  /* items[0..n-1) sorted: insert items[n-1] after every item not greater
   * (qsort's order is the same: the comparison is a total order, ties
   * only between identical items) */
  ana_item_t last = items[n - 1];
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ana_item_compare(&items[mid], &last) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  memmove(items + lo + 1, items + lo, (n - 1 - lo) * sizeof *items);
  items[lo] = last;
}

/* Items of run `run` in x->items; returns whether any item has a time. */
static int collect(exporter_t *x, const etk_etdump_run_t *run, uint64_t *lo,
                   uint64_t *hi, int *has_times) {
  int rc = ana_run_items(x->dump, run, &x->items, &x->cap, &x->nitems, lo, hi);
  *has_times = x->nitems > 0;
  return rc;
}

/* ------------------------------------------------------- output helpers */

static uint32_t track_tid(size_t group, int track) {
  return (uint32_t)(1 + 4 * group + (size_t)track);
}

static void name_track(exporter_t *x, size_t group, size_t run, int track) {
  if (x->named[group] & (1u << track)) return;
  x->named[group] |= (uint8_t)(1u << track);
  etk_strbuf_t *t = &x->text;
  etk_strbuf_clear(t);
  etk_etdump_run_t r;
  etk_etdump_run_get(x->dump, run, &r);
  size_t b = x->run_block[run];
  if (x->o->tracks == ETK_TRACE_TRACKS_RUN) {
    etk_strbuf_printf(t, "run %zu: ", run);
    etk_strbuf_append(t, r.name.data ? r.name.data : "", r.name.len);
    if (b != SIZE_MAX) etk_strbuf_printf(t, " (block %zu)", b);
  } else if (b != SIZE_MAX) {
    etk_inspector_block_t blk;
    etk_inspector_block_get(x->insp, b, &blk);
    etk_strbuf_printf(t, "block %zu: ", b);
    etk_strbuf_append(t, blk.name, blk.name_len);
  } else {
    etk_strbuf_append(t, r.name.data ? r.name.data : "", r.name.len);
  }
  static const char *const suffix[4] = {"", " [delegate]", " [overlapping]",
                                        " [delegate, overlapping]"};
  etk_strbuf_appends(t, suffix[track]);
  uint32_t tid = track_tid(group, track);
  etk_trace_metadata(x->w, "thread_name", x->o->pid, tid,
                     t->data ? t->data : "", t->len);
  etk_trace_sort_index(x->w, "thread_sort_index", x->o->pid, tid, (int64_t)tid);
}

static uint64_t pos(const exporter_t *x, uint64_t t) {
  return t - x->base + x->offset;
}

/* Text of delegate metadata when it is printable UTF-8 (trailing NULs
 * dropped), else NULL and the caller writes hex. */
static int metadata_is_text(const uint8_t *m, uint32_t len,
                            uint32_t *text_len) {
  while (len > 0 && m[len - 1] == 0) len--;
  if (len == 0) return 0;
  for (uint32_t i = 0; i < len;) {
    unsigned c = m[i];
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) return 0;
      i++;
      continue;
    }
    uint32_t n = (c & 0xE0) == 0xC0   ? 2
                 : (c & 0xF0) == 0xE0 ? 3
                 : (c & 0xF8) == 0xF0 ? 4
                                      : 0;
    if (n == 0 || n > len - i) return 0;
    for (uint32_t k = 1; k < n; k++)
      if ((m[i + k] & 0xC0) != 0x80) return 0;
    i += n;
  }
  *text_len = len;
  return 1;
}

static const char *category(const etk_etdump_event_t *e, int delegated) {
  if (delegated) return "delegate";
  const char *n = e->name.data;
  size_t len = e->name.len;
  if (!n) return "event";
  if (ana_is_name(n, len, "OPERATOR_CALL")) return "operator_call";
  if (ana_is_name(n, len, "DELEGATE_CALL")) return "delegate_call";
  if (len > 12 && memcmp(n, "native_call_", 12) == 0) return "operator";
  if ((len > 8 && memcmp(n, "Method::", 8) == 0) ||
      (len > 9 && memcmp(n, "Program::", 9) == 0))
    return "method";
  return e->profile_chain_index < 0 ? "framework" : "operator";
}

/* Display name of a profile event (the Inspector's rule: the name, else
 * the delegate id). */
static void event_name(const etk_etdump_event_t *e, etk_strbuf_t *t) {
  etk_strbuf_clear(t);
  if (e->name.data && e->name.len)
    etk_strbuf_append(t, e->name.data, e->name.len);
  else if (e->delegate_debug_id_str.data && e->delegate_debug_id_str.len)
    etk_strbuf_append(t, e->delegate_debug_id_str.data,
                      e->delegate_debug_id_str.len);
  else if (e->delegate_debug_id_int != -1)
    etk_strbuf_printf(t, "%d", (int)e->delegate_debug_id_int);
  else
    etk_strbuf_appends(t, "(unnamed)");
}

/* ETDump event -> Inspector event, for the ETRecord link of a slice. */
static int map_inspector_events(exporter_t *x) {
  if (!x->insp) return ETK_OK;
  size_t n = etk_etdump_event_count(x->dump);
  x->insp_event = malloc((n ? n : 1) * sizeof *x->insp_event);
  if (!x->insp_event) return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < n; i++) x->insp_event[i] = UINT32_MAX;
  size_t ne = etk_inspector_event_count(x->insp);
  for (size_t e = 0; e < ne && e < UINT32_MAX; e++) {
    etk_inspector_event_t ev;
    etk_inspector_event_get(x->insp, e, &ev);
    for (size_t k = 0; k < ev.sample_count; k++) {
      etk_inspector_sample_t smp;
      if (etk_inspector_event_sample(x->insp, e, k, &smp) == ETK_OK &&
          smp.etdump_event < n)
        x->insp_event[smp.etdump_event] = (uint32_t)e;
    }
  }
  return ETK_OK;
}

/* What the ETRecord link says about the slice of ETDump event `ev`: op
 * types, graph nodes, the innermost module, the source line and the
 * stack trace of its first node (nothing when it is not linked). */
static void write_link_args(exporter_t *x, etk_json_t *j, uint32_t ev) {
  if (!x->insp_event || x->insp_event[ev] == UINT32_MAX) return;
  size_t e = x->insp_event[ev];
  etk_inspector_event_link_t l;
  etk_inspector_event_link(x->insp, e, &l);
  if (l.op_type_count) {
    etk_json_key(j, "op_types");
    etk_json_begin_array(j);
    for (size_t k = 0; k < l.op_type_count; k++)
      etk_json_cstring(j, l.op_types[k] ? l.op_types[k] : "");
    etk_json_end_array(j);
  }
  if (l.node_count) {
    etk_json_key(j, "nodes");
    etk_json_begin_array(j);
    for (size_t k = 0; k < l.node_count; k++)
      etk_json_cstring(j, l.nodes[k].name ? l.nodes[k].name : "");
    etk_json_end_array(j);
    if (l.nodes[0].stack_trace) {
      etk_json_kv_cstring(j, "stack_trace", l.nodes[0].stack_trace);
    }
  }
  const etk_inspector_module_t *mods;
  size_t depth;
  if (etk_inspector_event_module(x->insp, e, &mods, &depth) == ETK_OK &&
      depth && mods[depth - 1].normalized) {
    etk_json_kv_cstring(j, "module", mods[depth - 1].normalized);
    if (mods[depth - 1].type) {
      etk_json_kv_cstring(j, "module_type", mods[depth - 1].type);
    }
  }
  const etk_inspector_node_origin_t *o;
  size_t no;
  if (etk_inspector_event_origins(x->insp, e, &o, &no) == ETK_OK && no &&
      o[0].file) {
    etk_strbuf_clear(&x->text);
    etk_strbuf_printf(&x->text, "%s:%lld", o[0].file, (long long)o[0].line);
    etk_json_kv_string(j, "source", x->text.data ? x->text.data : "",
                       x->text.len);
  }
}

/* The keys of every slice, quoted at compile time (a million slices
 * write each of them). */
static const etk_json_prepared_key_t key_dur = ETK_JSON_KEY_LITERAL("dur"),
                                     key_args = ETK_JSON_KEY_LITERAL("args"),
                                     key_run = ETK_JSON_KEY_LITERAL("run"),
                                     key_block = ETK_JSON_KEY_LITERAL("block"),
                                     key_event = ETK_JSON_KEY_LITERAL("event"),
                                     key_instruction =
                                         ETK_JSON_KEY_LITERAL("instruction_id"),
                                     key_chain = ETK_JSON_KEY_LITERAL("chain"),
                                     key_start =
                                         ETK_JSON_KEY_LITERAL("start_ticks"),
                                     key_end =
                                         ETK_JSON_KEY_LITERAL("end_ticks");

/* Opens a slice's args with what every slice carries: its run and, when
 * the run belongs to one, its event block. */
static void begin_run_args(exporter_t *x, etk_json_t *j, size_t run) {
  etk_json_key_prepared(j, &key_args);
  etk_json_begin_object(j);
  etk_json_key_prepared(j, &key_run);
  etk_json_uint(j, run);
  if (x->run_block[run] != SIZE_MAX) {
    etk_json_key_prepared(j, &key_block);
    etk_json_uint(j, x->run_block[run]);
  }
}

/* Delegate metadata: as text when it is printable UTF-8, else as hex. */
static void write_metadata(exporter_t *x, etk_json_t *j,
                           const etk_etdump_event_t *e) {
  uint32_t tl;
  if (metadata_is_text(e->metadata, e->metadata_len, &tl)) {
    etk_json_kv_string(j, "metadata", (const char *)e->metadata, tl);
    return;
  }
  static const char hex[] = "0123456789abcdef";
  etk_strbuf_clear(&x->text);
  for (uint32_t k = 0; k < e->metadata_len; k++) {
    etk_strbuf_appendc(&x->text, hex[e->metadata[k] >> 4]);
    etk_strbuf_appendc(&x->text, hex[e->metadata[k] & 15]);
  }
  etk_json_kv_string(j, "metadata_hex", x->text.data ? x->text.data : "",
                     x->text.len);
}

/* The args object of a profile event's slice. */
static void write_event_args(exporter_t *x, etk_json_t *j,
                             const trace_item_t *it, size_t run,
                             const etk_etdump_event_t *e) {
  begin_run_args(x, j, run);
  etk_json_key_prepared(j, &key_event);
  etk_json_uint(j, it->ev);
  if (e->instruction_id != -1) {
    etk_json_key_prepared(j, &key_instruction);
    etk_json_int(j, e->instruction_id);
  }
  etk_json_key_prepared(j, &key_chain);
  etk_json_int(j, e->profile_chain_index);
  write_link_args(x, j, it->ev);
  if (e->delegate_debug_id_str.data && e->delegate_debug_id_str.len)
    etk_json_kv_string(j, "delegate_debug_id", e->delegate_debug_id_str.data,
                       e->delegate_debug_id_str.len);
  else if (e->delegate_debug_id_int != -1)
    etk_json_kv_int(j, "delegate_debug_id", e->delegate_debug_id_int);
  if (e->metadata && e->metadata_len) write_metadata(x, j, e);
  etk_json_key_prepared(j, &key_start);
  etk_json_uint(j, e->start_time);
  etk_json_key_prepared(j, &key_end);
  etk_json_uint(j, e->end_time);
  if (it->flags & IT_WRAPPED) etk_json_kv_bool(j, "wrapped", 1);
  if (it->flags & IT_MISSING_END) etk_json_kv_bool(j, "missing_end", 1);
  if (it->flags & IT_INVALID) etk_json_kv_bool(j, "invalid_times", 1);
  etk_json_end_object(j);
}

static void write_event(exporter_t *x, const trace_item_t *it, size_t run,
                        size_t group) {
  etk_etdump_event_t e;
  etk_etdump_event_get(x->dump, it->ev, &e);
  int track =
      (it->flags & IT_DELEGATED ? 1 : 0) + (it->flags & IT_OVERLAP ? 2 : 0);
  name_track(x, group, run, track);
  event_name(&e, &x->text);
  int instant = (it->flags & (IT_MISSING_END | IT_INVALID)) != 0;
  etk_json_t *j = etk_trace_event_begin(
      x->w, instant ? "i" : "X", x->text.data ? x->text.data : "", x->text.len,
      category(&e, (it->flags & IT_DELEGATED) != 0), x->o->pid,
      track_tid(group, track), to_us(x, pos(x, it->s)));
  if (!j) return;
  if (instant) {
    etk_json_kv_cstring(j, "s", "t");
  } else {
    etk_json_key_prepared(j, &key_dur);
    etk_json_double(j, to_us(x, it->e - it->s));
  }
  if (!x->o->no_args) write_event_args(x, j, it, run, &e);
  etk_trace_event_end(x->w);
  if (instant) {
    x->st->instants++;
    if (it->flags & IT_MISSING_END)
      x->st->missing_end++;
    else
      x->st->invalid_times++;
  } else {
    x->st->slices++;
    if (it->flags & IT_WRAPPED) x->st->wrapped++;
    if (it->flags & IT_OVERLAP) x->st->overlapping++;
  }
}

static void write_run_slice(exporter_t *x, const trace_item_t *it, size_t run,
                            size_t group, const etk_etdump_run_t *r) {
  int track = it->flags & IT_OVERLAP ? 2 : 0;
  name_track(x, group, run, track);
  etk_strbuf_clear(&x->text);
  etk_strbuf_printf(&x->text, "run %zu", run);
  etk_json_t *j = etk_trace_event_begin(
      x->w, "X", x->text.data, x->text.len, "run", x->o->pid,
      track_tid(group, track), to_us(x, pos(x, it->s)));
  if (!j) return;
  etk_json_kv_double(j, "dur", to_us(x, it->e - it->s));
  if (!x->o->no_args) {
    begin_run_args(x, j, run);
    etk_json_key(j, "run_name");
    if (r->name.data)
      etk_json_string(j, r->name.data, r->name.len);
    else
      etk_json_null(j);
    if (r->bundled_input_index != -1) {
      etk_json_kv_int(j, "bundled_input_index", r->bundled_input_index);
    }
    etk_json_kv_uint(j, "events", r->event_count);
    etk_json_end_object(j);
  }
  etk_trace_event_end(x->w);
  if (it->flags & IT_OVERLAP) x->st->overlapping++;
}

/* ------------------------------------------------------- per run */

static int stack_push(exporter_t *x, int t, uint64_t v) {
  if (x->stack_n[t] == x->stack_cap[t]) {
    size_t c = x->stack_cap[t] ? x->stack_cap[t] * 2 : 64;
    uint64_t *q = realloc(x->stack[t], c * sizeof *q);
    if (!q) return ETK_E_NO_MEMORY;
    x->stack[t] = q;
    x->stack_cap[t] = c;
  }
  x->stack[t][x->stack_n[t]++] = v;
  return ETK_OK;
}

/* Marks slices that do not nest on their track. */
static int check_nesting(exporter_t *x) {
  x->stack_n[0] = x->stack_n[1] = 0;
  for (size_t k = 0; k < x->nitems; k++) {
    trace_item_t *it = &x->items[k];
    if (it->flags & (IT_MISSING_END | IT_INVALID)) continue;
    int t = (it->flags & IT_DELEGATED) ? 1 : 0;
    while (x->stack_n[t] && x->stack[t][x->stack_n[t] - 1] <= it->s)
      x->stack_n[t]--;
    if (x->stack_n[t] && it->e > x->stack[t][x->stack_n[t] - 1]) {
      it->flags |= IT_OVERLAP;
      continue;
    }
    if (stack_push(x, t, it->e) != ETK_OK) return ETK_E_NO_MEMORY;
  }
  return ETK_OK;
}

typedef struct flow_ref {
  int32_t iid;
  uint32_t item;
} flow_ref_t;

static int cmp_flow(const void *pa, const void *pb) {
  const flow_ref_t *a = pa, *b = pb;
  if (a->iid != b->iid) return a->iid < b->iid ? -1 : 1;
  return (a->item > b->item) - (a->item < b->item);
}

/* Arrows from each DELEGATE_CALL to the first delegated event of its
 * instruction (by start time). */
static int write_flows(exporter_t *x, size_t group) {
  etk_etdump_columns_t cols;
  etk_etdump_columns(x->dump, &cols);
  size_t nd = 0;
  for (size_t k = 0; k < x->nitems; k++)
    if ((x->items[k].flags & IT_DELEGATED) &&
        !(x->items[k].flags & (IT_MISSING_END | IT_INVALID)))
      nd++;
  if (nd == 0) return ETK_OK;
  flow_ref_t *refs = malloc(nd * sizeof *refs);
  if (!refs) return ETK_E_NO_MEMORY;
  nd = 0;
  for (size_t k = 0; k < x->nitems; k++)
    if ((x->items[k].flags & IT_DELEGATED) &&
        !(x->items[k].flags & (IT_MISSING_END | IT_INVALID))) {
      refs[nd].iid = cols.instruction_id[x->items[k].ev];
      refs[nd].item = (uint32_t)k;
      nd++;
    }
  qsort(refs, nd, sizeof *refs, cmp_flow);
  etk_etdump_str_t dc = {"DELEGATE_CALL", 13};
  for (size_t k = 0; k < x->nitems; k++) {
    const trace_item_t *it = &x->items[k];
    if (it->ev == UINT32_MAX ||
        (it->flags & (IT_DELEGATED | IT_MISSING_END | IT_INVALID)))
      continue;
    etk_etdump_str_t n = etk_etdump_string(x->dump, cols.name_id[it->ev]);
    if (n.len != dc.len || memcmp(n.data, dc.data, dc.len) != 0) continue;
    int32_t iid = cols.instruction_id[it->ev];
    if (iid < 0) continue;
    /* lower bound of iid */
    size_t lo = 0, hi = nd;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (refs[mid].iid < iid)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == nd || refs[lo].iid != iid) continue;
    const trace_item_t *to = &x->items[refs[lo].item];
    uint64_t id = ((uint64_t)x->o->pid << 40) | ++x->flow_id;
    int from_track = it->flags & IT_OVERLAP ? 2 : 0;
    int to_track = 1 + (to->flags & IT_OVERLAP ? 2 : 0);
    etk_json_t *j = etk_trace_event_begin(
        x->w, "s", "delegate", 8, "delegate_flow", x->o->pid,
        track_tid(group, from_track), to_us(x, pos(x, it->s)));
    if (j) {
      etk_json_kv_uint(j, "id", id);
      etk_trace_event_end(x->w);
    }
    j = etk_trace_event_begin(x->w, "f", "delegate", 8, "delegate_flow",
                              x->o->pid, track_tid(group, to_track),
                              to_us(x, pos(x, to->s)));
    if (j) {
      etk_json_kv_uint(j, "id", id);
      etk_json_kv_cstring(j, "bp", "e");
      etk_trace_event_end(x->w);
    }
    x->st->flows++;
  }
  free(refs);
  return ETK_OK;
}

/* Allocation counters of a run; items are still in file order.  Ids that
 * name no allocator of the run ("allocator #7") are counted too. */
static int write_allocations(exporter_t *x, const etk_etdump_run_t *run,
                             uint64_t run_lo) {
  etk_etdump_columns_t cols;
  etk_etdump_columns(x->dump, &cols);
  typedef struct slot {
    int32_t id;
    uint64_t bytes;
  } slot_t;
  slot_t *slots = NULL;
  size_t nslots = 0, cap = 0, k = 0;
  uint64_t last_end = run_lo;
  for (size_t i = run->first_event;
       i < (size_t)run->first_event + run->event_count; i++) {
    unsigned kind = cols.flags[i] & ETK_ETDUMP_KIND_MASK;
    if (kind == ETK_ETDUMP_EVENT_PROFILE) {
      const trace_item_t *it = &x->items[k++];
      if (!(it->flags & (IT_MISSING_END | IT_INVALID)) && it->e > last_end)
        last_end = it->e;
      continue;
    }
    if (kind != ETK_ETDUMP_EVENT_ALLOCATION) continue;
    etk_etdump_event_t e;
    etk_etdump_event_get(x->dump, i, &e);
    size_t sl = 0;
    while (sl < nslots && slots[sl].id != e.allocator_id) sl++;
    int fresh = sl == nslots;
    if (fresh) {
      if (nslots == cap) {
        size_t c = cap ? cap * 2 : 8;
        slot_t *q = realloc(slots, c * sizeof *q);
        if (!q) {
          free(slots);
          return ETK_E_NO_MEMORY;
        }
        slots = q;
        cap = c;
      }
      slots[nslots].id = e.allocator_id;
      slots[nslots].bytes = 0;
      nslots++;
    }
    etk_strbuf_clear(&x->text);
    etk_strbuf_appends(&x->text, "memory: ");
    etk_etdump_str_t an = {NULL, 0};
    if (e.allocator_id >= 1 && (uint32_t)e.allocator_id <= run->allocator_count)
      an = etk_etdump_allocator_name(
          x->dump, run->first_allocator + (size_t)e.allocator_id - 1);
    if (an.data)
      etk_strbuf_append(&x->text, an.data, an.len);
    else
      etk_strbuf_printf(&x->text, "allocator #%d", (int)e.allocator_id);
    for (int pass = fresh ? 0 : 1; pass < 2; pass++) {
      /* pass 0: the run starts from zero; pass 1: after this allocation */
      uint64_t v = 0;
      if (pass == 1) {
        v = slots[sl].bytes + e.allocation_size;
        if (v < slots[sl].bytes) v = UINT64_MAX;
        slots[sl].bytes = v;
      }
      etk_json_t *j = etk_trace_event_begin(
          x->w, "C", x->text.data, x->text.len, NULL, x->o->pid, 0,
          to_us(x, pos(x, pass ? last_end : run_lo)));
      if (!j) break;
      etk_json_key(j, "args");
      etk_json_begin_object(j);
      etk_json_kv_uint(j, "bytes", v);
      etk_json_end_object(j);
      etk_trace_event_end(x->w);
    }
    x->st->counters++;
  }
  free(slots);
  return ETK_OK;
}

static int export_run(exporter_t *x, size_t r) {
  etk_etdump_run_t run;
  etk_etdump_run_get(x->dump, r, &run);
  size_t g = x->run_group[r];
  uint64_t lo, hi;
  int has_times;
  int rc = collect(x, &run, &lo, &hi, &has_times);
  if (rc != ETK_OK) return rc;
  /* layout of this run */
  if (x->layout == ETK_TRACE_LAYOUT_SEQUENTIAL) {
    x->base = has_times ? lo : 0;
  }
  uint64_t mapped_lo = has_times ? pos(x, lo) : x->offset;
  int run_overlaps = 0;
  if (x->layout == ETK_TRACE_LAYOUT_RAW && x->group_seen[g] && has_times &&
      mapped_lo < x->group_end[g])
    run_overlaps = 1; /* an earlier run of this track is still open */
  /* allocation-only runs sit where the previous run ended */
  rc = write_allocations(x, &run,
                         has_times                           ? lo
                         : x->layout == ETK_TRACE_LAYOUT_RAW ? x->last_hi
                                                             : x->base);
  if (rc != ETK_OK) return rc;
  if (has_times) {
    trace_item_t *it = &x->items[x->nitems++];
    it->s = lo;
    it->e = hi;
    it->ev = UINT32_MAX;
    it->flags = 0;
  }
  sort_items(x->items, x->nitems);
  rc = check_nesting(x);
  if (rc != ETK_OK) return rc;
  for (size_t k = 0; k < x->nitems; k++) {
    trace_item_t *it = &x->items[k];
    if (run_overlaps) it->flags |= IT_OVERLAP;
    if (it->ev == UINT32_MAX)
      write_run_slice(x, it, r, g, &run);
    else
      write_event(x, it, r, g);
  }
  if (!x->o->no_flows) {
    rc = write_flows(x, g);
    if (rc != ETK_OK) return rc;
  }
  x->st->runs++;
  if (has_times) {
    uint64_t mapped_hi = pos(x, hi);
    if (!x->group_seen[g] || mapped_hi > x->group_end[g])
      x->group_end[g] = mapped_hi;
    x->group_seen[g] = 1;
    double end = to_us(x, mapped_hi);
    if (end > x->st->end_us) x->st->end_us = end;
    if (x->layout == ETK_TRACE_LAYOUT_SEQUENTIAL) x->offset = mapped_hi;
    x->last_hi = hi;
  }
  return x->w->status;
}

/* ------------------------------------------------------- entry points */

static void exporter_free(exporter_t *x) {
  free(x->insp_event);
  free(x->run_group);
  free(x->run_block);
  free(x->named);
  free(x->run_min);
  free(x->run_max);
  free(x->run_has_times);
  free(x->group_end);
  free(x->group_seen);
  free(x->items);
  free(x->stack[0]);
  free(x->stack[1]);
  etk_strbuf_free(&x->text);
}

/* Ticks to microseconds from the Inspector's factor: divided by `div`
 * (ns, us, and cycles at clock_hz) or multiplied by `mul` (ms and s, whose
 * factor is below 1; raw cycles). */
static int set_scale(exporter_t *x) {
  const etk_trace_options_t *o = x->o;
  etk_time_scale_t s = o->source_time_scale;
  x->mul = 0;
  x->div = 0;
  if ((unsigned)s > ETK_TIME_CYCLES)
    return etk_error_set(x->err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "trace: invalid time scale");
  bool clock = o->clock_hz > 0 && o->clock_hz - o->clock_hz == 0;
  if (s == ETK_TIME_CYCLES && !clock) {
    if (!o->raw_ticks)
      return etk_error_set(x->err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                           "timestamps are cycles; give the clock rate "
                           "(--clock-hz) to convert them to microseconds, or "
                           "--raw-ticks to write ticks as they are");
    x->mul = 1.0;
  } else {
    double f = 1.0;
    int rc = etk_time_scale_factor(s, ETK_TIME_US, o->clock_hz, &f, x->err);
    if (rc != ETK_OK) return rc;
    if (f >= 1.0 || s == ETK_TIME_CYCLES)
      x->div = f;
    else
      x->mul = 1.0 / f;
  }
  x->st->ticks_per_us = x->div > 0 ? x->div : 1.0 / x->mul;
  return ETK_OK;
}

int etk_trace_export_etdump(etk_trace_writer_t *w, const etk_etdump_t *dump,
                            const etk_inspector_t *insp,
                            const etk_trace_options_t *options,
                            etk_trace_stats_t *stats, etk_error_t *err) {
  etk_trace_options_t defaults;
  etk_trace_options_init(&defaults);
  const etk_trace_options_t *o = options ? options : &defaults;
  etk_trace_stats_t local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  if (!w || !dump)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_trace_export_etdump: NULL argument");
  exporter_t x = {
      .w = w, .dump = dump, .insp = insp, .o = o, .st = stats, .err = err};
  etk_strbuf_init(&x.text);
  int rc = set_scale(&x);
  if (rc != ETK_OK) return rc;
  if (map_inspector_events(&x) != ETK_OK) {
    exporter_free(&x);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  x.nruns = etk_etdump_run_count(dump);
  etk_dropped_marker_find(dump, &stats->dropped);
  size_t selected = 0;
  rc = map_runs(&x, &selected);
  (void)selected; /* an empty selection is an error inside map_runs */
  size_t ng = x.ngroups ? x.ngroups : 1, nr = x.nruns ? x.nruns : 1;
  if (rc == ETK_OK) {
    x.named = calloc(ng, 1);
    x.group_end = calloc(ng, sizeof *x.group_end);
    x.group_seen = calloc(ng, 1);
    x.run_min = calloc(nr, sizeof *x.run_min);
    x.run_max = calloc(nr, sizeof *x.run_max);
    x.run_has_times = calloc(nr, 1);
    if (!x.named || !x.group_end || !x.group_seen || !x.run_min || !x.run_max ||
        !x.run_has_times)
      rc = ETK_E_NO_MEMORY;
  }
  /* pass 1: bounds of every exported run, for the layout */
  uint64_t origin = UINT64_MAX;
  int monotonic = 1;
  uint64_t prev_hi = 0;
  int have_prev = 0;
  for (size_t r = 0; r < x.nruns && rc == ETK_OK; r++) {
    if (x.run_group[r] == SIZE_MAX) continue;
    etk_etdump_run_t run;
    etk_etdump_run_get(dump, r, &run);
    int has;
    rc = collect(&x, &run, &x.run_min[r], &x.run_max[r], &has);
    x.run_has_times[r] = (uint8_t)has;
    if (!has) continue;
    if (x.run_min[r] < origin) origin = x.run_min[r];
    if (have_prev && x.run_min[r] < prev_hi) monotonic = 0;
    prev_hi = x.run_max[r];
    have_prev = 1;
  }
  x.layout = o->layout;
  if (x.layout == ETK_TRACE_LAYOUT_AUTO)
    x.layout = monotonic ? ETK_TRACE_LAYOUT_RAW : ETK_TRACE_LAYOUT_SEQUENTIAL;
  stats->layout = x.layout;
  x.base = origin == UINT64_MAX ? 0 : origin;
  x.last_hi = x.base;
  x.offset = 0;

  if (rc == ETK_OK) {
    const char *pname = o->process_name ? o->process_name : "ETDump";
    etk_trace_metadata(w, "process_name", o->pid, 0, pname, strlen(pname));
    etk_trace_sort_index(w, "process_sort_index", o->pid, 0, (int64_t)o->pid);
    rc = w->status;
  }
  /* pass 2: output */
  for (size_t r = 0; r < x.nruns && rc == ETK_OK; r++) {
    if (x.run_group[r] == SIZE_MAX) continue;
    rc = export_run(&x, r);
  }
  if (rc == ETK_OK && stats->dropped.present) {
    etk_strbuf_clear(&x.text);
    etk_strbuf_printf(&x.text,
                      "etkit recorder: %llu event(s) dropped (buffer full)",
                      (unsigned long long)stats->dropped.events);
    etk_json_t *j = etk_trace_event_begin(w, "i", x.text.data, x.text.len,
                                          "recorder", o->pid, 0, stats->end_us);
    if (j) {
      etk_json_kv_cstring(j, "s", "p");
      etk_json_key(j, "args");
      etk_json_begin_object(j);
      etk_json_kv_uint(j, "dropped_events", stats->dropped.events);
      etk_json_kv_uint(j, "dropped_blocks", stats->dropped.blocks);
      etk_json_kv_uint(j, "dropped_allocators", stats->dropped.allocators);
      etk_json_end_object(j);
      etk_trace_event_end(w);
    }
    rc = w->status;
  }
  if (rc == ETK_OK && x.text.failed) rc = ETK_E_NO_MEMORY;
  exporter_free(&x);
  if (rc != ETK_OK) {
    if (err && err->code != ETK_OK) return err->code;
    if (rc == ETK_E_NO_MEMORY) return fail(&x, rc, "out of memory");
    return etk_error_set(err, rc, ETK_NO_OFFSET, "trace: writing failed: %s",
                         etk_strerror(rc));
  }
  return ETK_OK;
}

void etk_trace_stats_write_json(etk_json_t *j, const etk_trace_stats_t *st,
                                const etk_trace_options_t *o,
                                const char *path) {
  etk_json_begin_object(j);
  etk_json_kv_uint(j, "pid", o ? o->pid : 1);
  etk_json_kv_cstring(j, "path", path);
  etk_json_kv_cstring(
      j, "source_time_scale",
      etk_time_scale_name(o ? o->source_time_scale : ETK_TIME_NS));
  etk_json_key(j, "clock_hz");
  if (o && o->clock_hz > 0)
    etk_json_double(j, o->clock_hz);
  else
    etk_json_null(j);
  etk_json_key(j, "ts_unit");
  int raw = o && o->source_time_scale == ETK_TIME_CYCLES && !(o->clock_hz > 0);
  etk_json_cstring(j, raw ? "raw ticks (cycles; NOT microseconds)" : "us");
  etk_json_kv_double(j, "ticks_per_us", st->ticks_per_us);
  etk_json_key(j, "layout");
  etk_json_cstring(
      j, st->layout == ETK_TRACE_LAYOUT_SEQUENTIAL ? "sequential" : "raw");
  etk_json_kv_uint(j, "runs", st->runs);
  etk_json_kv_uint(j, "slices", st->slices);
  etk_json_kv_uint(j, "instants", st->instants);
  etk_json_kv_uint(j, "missing_end", st->missing_end);
  etk_json_kv_uint(j, "invalid_times", st->invalid_times);
  etk_json_kv_uint(j, "wrapped", st->wrapped);
  etk_json_kv_uint(j, "overlapping", st->overlapping);
  etk_json_kv_uint(j, "counters", st->counters);
  etk_json_kv_uint(j, "flows", st->flows);
  etk_json_key(j, "dropped_events");
  if (st->dropped.present)
    etk_json_uint(j, st->dropped.events);
  else
    etk_json_null(j);
  etk_json_end_object(j);
}

static const char *base_name(const char *path) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  return slash ? slash + 1 : path;
}

/* The options of input `i`: `o` as it is for a one-dump document, else
 * process i + 1 named after the file. */
static etk_trace_options_t input_options(const etk_trace_options_t *o,
                                         const etk_trace_input_t *in, size_t i,
                                         int several) {
  etk_trace_options_t io = *o;
  if (several) {
    io.pid = (uint32_t)(i + 1);
    io.process_name = base_name(in[i].path);
  }
  return io;
}

/* One trace document of `n` dumps (see etk_trace_write_json_files). */
static int write_document(etk_trace_input_t *in, size_t n,
                          const etk_trace_options_t *o, int several,
                          etk_render_sink_t *sink, etk_error_t *err) {
  etk_trace_writer_t w;
  etk_trace_writer_init(&w, sink,
                        o->source_time_scale == ETK_TIME_NS ? "ns" : NULL);
  for (size_t i = 0; i < n; i++) {
    etk_trace_options_t io = input_options(o, in, i, several);
    int rc = etk_trace_export_etdump(&w, in[i].dump, in[i].insp, &io,
                                     &in[i].stats, err);
    if (rc != ETK_OK) {
      if (several) etk_error_where(err, in[i].path);
      return rc;
    }
  }
  etk_json_t *j = etk_trace_other_data_begin(&w);
  if (j) {
    etk_json_begin_object(j);
    etk_json_kv_cstring(j, "generator", "etkit trace");
    etk_json_key(j, "files");
    etk_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
      etk_trace_options_t io = input_options(o, in, i, several);
      etk_trace_stats_write_json(j, &in[i].stats, &io, in[i].path);
    }
    etk_json_end_array(j);
    etk_json_end_object(j);
  }
  int rc = etk_trace_writer_finish(&w);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "writing the trace failed: %s",
                         etk_strerror(rc));
  return ETK_OK;
}

int etk_trace_write_json_files(etk_trace_input_t *inputs, size_t n,
                               const etk_trace_options_t *o,
                               etk_render_sink_t *sink, etk_error_t *err) {
  etk_trace_options_t defaults;
  etk_trace_options_init(&defaults);
  if (!sink || (!inputs && n))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_trace_write_json_files: NULL argument");
  return write_document(inputs, n, o ? o : &defaults, 1, sink, err);
}

int etk_trace_write_json(const etk_etdump_t *dump, const etk_inspector_t *insp,
                         const etk_trace_options_t *o, const char *path,
                         etk_render_sink_t *sink, etk_trace_stats_t *stats,
                         etk_error_t *err) {
  etk_trace_options_t defaults;
  etk_trace_options_init(&defaults);
  if (!sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_trace_write_json: NULL sink");
  etk_trace_input_t in = {.dump = dump, .insp = insp, .path = path};
  int rc = write_document(&in, 1, o ? o : &defaults, 0, sink, err);
  if (stats) *stats = in.stats;
  return rc;
}
