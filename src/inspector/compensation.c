/*
 * compensation.c - reads the recorder's calibration marker and computes,
 * per profile event, the cost of the events recorded inside it
 * (etkit/compensation.h gives the definition).
 *
 * METHOD
 *   Per run, the profile events (intervals) and the debug events (points,
 *   placed at the end of the last profile event recorded before them) are
 *   sorted by start, longer first, so that every event comes after the
 *   events that contain it; one sweep with a stack of open intervals then
 *   finds each item's innermost container.  An item's cost, plus what its
 *   own descendants cost, is added to its container when the item is
 *   popped, so each item is touched a constant number of times: O(n log n)
 *   for the sort, O(n) for the sweep, 2 x 32 bytes per event of the
 *   largest run.
 *
 * INVARIANTS
 *   out[i] >= 0; out[i] > 0 only for profile events that contain another
 *   item; events of different runs never interact.
 */
#include "etkit/compensation.h"
#include "etkit/latency_dump.h"

#include <stdlib.h>
#include <string.h>

#include "etkit/schema.h"

static const char prefix[] = "etkit:calibration=";

/* Reads a non-negative decimal "123" or "123.456" at s[*i..len). */
static int read_decimal(const char *s, size_t len, size_t *i, double *out) {
  size_t start = *i;
  double v = 0, scale = 1;
  int point = 0;
  while (*i < len && ((s[*i] >= '0' && s[*i] <= '9') || s[*i] == '.')) {
    if (s[*i] == '.') {
      if (point) return 0;
      point = 1;
    } else if (point) {
      scale /= 10;
      v += scale * (s[*i] - '0');
    } else {
      v = v * 10 + (s[*i] - '0');
    }
    (*i)++;
  }
  if (*i == start || s[*i - 1] == '.') return 0;
  *out = v;
  return 1;
}

static int key_is(const char *s, size_t n, const char *lit) {
  return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

int etk_calibration_parse(const char *name, size_t len,
                          etk_calibration_t *out) {
  const size_t plen = sizeof prefix - 1;
  etk_calibration_t c;
  int have_pair = 0;
  memset(&c, 0, sizeof c);
  if (!name || len < plen || memcmp(name, prefix, plen) != 0) return 0;
  for (size_t i = plen; i < len;) {
    if (i > plen) {
      if (name[i] != ',') return 0;
      i++;
    }
    size_t key = i;
    while (i < len && name[i] != '=' && name[i] != ',') i++;
    if (i >= len || name[i] != '=' || i == key) return 0;
    size_t key_len = i - key;
    i++;
    double v;
    if (!read_decimal(name, len, &i, &v)) return 0;
    const char *k = name + key;
    if (key_is(k, key_len, "pair")) {
      c.pair = v;
      have_pair = 1;
    } else if (key_is(k, key_len, "inner")) {
      c.inner = v;
    } else if (key_is(k, key_len, "clock")) {
      c.clock = v;
    } else if (key_is(k, key_len, "tensor")) {
      c.tensor = v;
    } else if (key_is(k, key_len, "tensor_kib")) {
      c.tensor_kib = v;
    } else if (key_is(k, key_len, "skipped")) {
      c.skipped = v;
    } else if (key_is(k, key_len, "adjacent")) {
      c.adjacent = v != 0;
    } else if (key_is(k, key_len, "reps")) {
      c.repetitions = v > 1e18 ? (uint64_t)1e18 : (uint64_t)v;
    }
  }
  if (!have_pair) return 0;
  c.present = 1;
  if (out) *out = c;
  return 1;
}

int etk_calibration_find(const etk_etdump_t *dump, etk_calibration_t *out) {
  etk_calibration_t found;
  memset(&found, 0, sizeof found);
  size_t runs = dump ? etk_etdump_run_count(dump) : 0;
  for (size_t r = runs; r-- > 0;) {
    etk_etdump_run_t run;
    if (etk_etdump_run_get(dump, r, &run) != ETK_OK || run.has_events) continue;
    if (etk_calibration_parse(run.name.data, run.name.len, &found)) {
      found.run = (uint32_t)r;
      break;
    }
  }
  if (out) *out = found;
  return found.present;
}

/* ------------------------------------------------------------ the sweep */

typedef struct item {
  uint64_t start, end; /* a point has end == start */
  uint32_t event;      /* event index in the dump */
  uint32_t point;      /* 1: a debug event */
  uint32_t wrapper;    /* 1: an OPERATOR_CALL */
  double cost;         /* what recording it cost its containers */
  double inside;       /* what the items inside it cost */
} item_t;

/* Start ascending; then intervals before points, longer first; then the
 * event recorded later first (the parent of an equal interval). */
static int item_order(const void *pa, const void *pb) {
  const item_t *a = pa, *b = pb;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->point != b->point) return a->point ? 1 : -1;
  if (a->end != b->end) return a->end > b->end ? -1 : 1;
  return a->event > b->event ? -1 : a->event < b->event;
}

static int contains(const item_t *p, const item_t *x) {
  if (x->point) return p->start <= x->start && x->start < p->end;
  return p->start <= x->start && x->end <= p->end;
}

/* What logging debug event `ev` cost (ticks). */
static double debug_cost(const etk_etdump_t *dump, size_t ev,
                         const etk_calibration_t *cal) {
  etk_etdump_value_t v;
  if (etk_etdump_event_value(dump, ev, &v) != ETK_OK || !v.present)
    return cal->tensor;
  uint32_t count = 1;
  if (v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST)
    count = v.tensor_count;
  else if (v.type != ETK_ETDUMP_VALUE_TYPE_TENSOR)
    return cal->tensor; /* a scalar: the fixed part */
  double cost = 0;
  for (uint32_t k = 0; k < count; k++) {
    etk_etdump_tensor_t t = v.tensor;
    if (v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST &&
        etk_etdump_value_tensor(dump, &v, k, &t) != ETK_OK)
      continue;
    uint64_t bytes = 0;
    if (t.offset < 0 || etk_etdump_tensor_nbytes(&t, &bytes, NULL) != ETK_OK)
      bytes = 0;
    cost += cal->tensor + cal->tensor_kib * ((double)bytes / 1024.0);
  }
  return cost;
}

static const char wrapper_name[] = "OPERATOR_CALL";

/* Items of run `run` into items[]; returns their count. */
static size_t run_items(const etk_etdump_t *dump, const etk_etdump_run_t *run,
                        const etk_calibration_t *cal, item_t *items) {
  size_t n = 0, pending = 0;
  uint64_t last_end = 0, earliest = UINT64_MAX;
  int have_last = 0;
  for (uint32_t k = 0; k < run->event_count; k++) {
    size_t ev = (size_t)run->first_event + k;
    etk_etdump_event_t e;
    if (etk_etdump_event_get(dump, ev, &e) != ETK_OK) continue;
    item_t *it = &items[n];
    memset(it, 0, sizeof *it);
    it->event = (uint32_t)ev;
    if (e.kind == ETK_ETDUMP_EVENT_PROFILE) {
      if (e.flags & ETK_ETDUMP_FLAG_END_BEFORE_START) continue;
      it->start = e.start_time;
      it->end = e.end_time;
      it->cost = cal->pair > cal->skipped ? cal->pair - cal->skipped : 0;
      it->wrapper = e.name.len == sizeof wrapper_name - 1 &&
                    memcmp(e.name.data, wrapper_name, e.name.len) == 0;
      last_end = e.end_time;
      have_last = 1;
      if (e.start_time < earliest) earliest = e.start_time;
      n++;
    } else if (e.kind == ETK_ETDUMP_EVENT_DEBUG) {
      it->point = 1;
      it->cost = debug_cost(dump, ev, cal);
      if (have_last)
        it->start = it->end = last_end;
      else
        pending++, it->start = it->end = UINT64_MAX; /* placed below */
      n++;
    }
  }
  if (pending) /* debug events before any profile event ended */
    for (size_t k = 0; k < n; k++)
      if (items[k].point && items[k].start == UINT64_MAX)
        items[k].start = items[k].end = earliest;
  return n;
}

static int cmp_u64(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return (a > b) - (a < b);
}

/* The pair this run's kernel calls measured (see RUN'S OWN PAIR in
 * etkit/compensation.h), into *pair; 0 when it has too few of them or
 * the figure is implausible against the calibrated one.  `items` sorted
 * by item_order; gaps[] has room for n values. */
static int run_pair(const item_t *items, size_t n, const etk_calibration_t *cal,
                    uint64_t *gaps, double *pair) {
  size_t count = 0;
  for (size_t k = 0; k < n; k++) {
    const item_t *w = &items[k], *c = NULL, *after = NULL;
    if (!w->wrapper) continue;
    size_t j = k + 1;
    while (j < n && items[j].point) j++; /* debug points cost their own */
    if (j < n) c = &items[j++];
    while (j < n && items[j].point) j++;
    if (j < n) after = &items[j];
    /* exactly one profile event inside the wrapper */
    if (!c || !contains(w, c) || (after && contains(w, after))) continue;
    gaps[count++] = (c->start - w->start) + (w->end - c->end);
  }
  if (count < ETK_COMPENSATION_MIN_WRAPPERS) return 0;
  qsort(gaps, count, sizeof *gaps, cmp_u64);
  double m = count % 2 ? (double)gaps[count / 2]
                       : ((double)gaps[count / 2 - 1] + gaps[count / 2]) / 2;
  if (m < cal->pair / 4 || m > cal->pair * 4) return 0;
  *pair = m;
  return 1;
}

/* With a marker of adjacent wrappers and a clock fine enough, each profile
 * item costs the run's own pair less skipped: 1 and *pair set then. */
static int use_run_pair(item_t *items, size_t n, const etk_calibration_t *cal,
                        uint64_t *gaps, double *pair) {
  if (!cal->adjacent || cal->pair < ETK_COMPENSATION_MIN_PAIR_TICKS ||
      !run_pair(items, n, cal, gaps, pair))
    return 0;
  double cost = *pair > cal->skipped ? *pair - cal->skipped : 0;
  for (size_t k = 0; k < n; k++)
    if (!items[k].point) items[k].cost = cost;
  return 1;
}

/* items[] sorted by item_order. */
static void sweep(item_t *items, size_t n, uint32_t *stack, double *out) {
  size_t depth = 0;
  for (size_t k = 0; k <= n; k++) {
    /* pop what does not contain item k (everything after the last item) */
    while (depth > 0 &&
           (k == n || !contains(&items[stack[depth - 1]], &items[k]))) {
      item_t *top = &items[stack[--depth]];
      out[top->event] = top->inside;
      if (depth > 0) items[stack[depth - 1]].inside += top->inside + top->cost;
    }
    if (k == n) break;
    if (items[k].point) {
      if (depth > 0) items[stack[depth - 1]].inside += items[k].cost;
    } else {
      stack[depth++] = (uint32_t)k;
    }
  }
}

/* etk_compensation_compute (out) and etk_compensation_run_pairs (pairs,
 * own): either may be NULL. */
static int compensate(const etk_etdump_t *dump, const etk_calibration_t *cal,
                      double *out, double *pairs, uint8_t *own,
                      etk_error_t *err) {
  if (!dump || !cal)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_compensation_compute: NULL argument");
  size_t events = etk_etdump_event_count(dump),
         runs = etk_etdump_run_count(dump);
  if (etk_latency_dump_find(dump, NULL))
    /* its events are one median per key, all starting at 0: which event
     * ran inside which is not in the dump, so nothing can be taken off
     * (an invalid request for this dump, as compensating one without a
     * calibration is: Python raises ValueError for both) */
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "a stats-mode dump (--profile-mode stats) cannot be "
                         "compensated: its events are medians, not nested "
                         "in time (record a full or ring trace)");
  for (size_t r = 0; r < runs; r++) {
    if (pairs) pairs[r] = cal->pair;
    if (own) own[r] = 0;
  }
  if (events == 0) return ETK_OK;
  if (!out && !pairs)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_compensation_compute: NULL argument");
  if (out) memset(out, 0, events * sizeof *out);
  size_t largest = 0;
  for (size_t r = 0; r < runs; r++) {
    etk_etdump_run_t run;
    if (etk_etdump_run_get(dump, r, &run) == ETK_OK &&
        run.event_count > largest)
      largest = run.event_count;
  }
  if (largest == 0) return ETK_OK;
  item_t *items = malloc(largest * sizeof *items);
  uint32_t *stack = malloc(largest * sizeof *stack);
  uint64_t *gaps = cal->adjacent ? malloc(largest * sizeof *gaps) : NULL;
  if (!items || !stack || (cal->adjacent && !gaps)) {
    free(items);
    free(stack);
    free(gaps);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory for the compensation of %zu events",
                         largest);
  }
  for (size_t r = 0; r < runs; r++) {
    etk_etdump_run_t run;
    if (etk_etdump_run_get(dump, r, &run) != ETK_OK) continue;
    size_t n = run_items(dump, &run, cal, items);
    qsort(items, n, sizeof *items, item_order);
    double pair;
    if (gaps && use_run_pair(items, n, cal, gaps, &pair)) {
      if (pairs) pairs[r] = pair;
      if (own) own[r] = 1;
    }
    if (out) sweep(items, n, stack, out);
  }
  free(items);
  free(stack);
  free(gaps);
  return ETK_OK;
}

int etk_compensation_compute(const etk_etdump_t *dump,
                             const etk_calibration_t *cal, double *out,
                             etk_error_t *err) {
  if (dump && etk_etdump_event_count(dump) > 0 && !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_compensation_compute: NULL argument");
  return compensate(dump, cal, out, NULL, NULL, err);
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

int etk_compensation_own_pairs(const etk_etdump_t *dump,
                               const etk_calibration_t *cal,
                               etk_own_pairs_t *out, etk_error_t *err) {
  if (!dump || !cal || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_compensation_own_pairs: NULL argument");
  memset(out, 0, sizeof *out);
  size_t runs = etk_etdump_run_count(dump);
  if (runs == 0) return ETK_OK;
  double *pairs = malloc(runs * sizeof *pairs);
  uint8_t *own = malloc(runs);
  if (!pairs || !own) {
    free(pairs);
    free(own);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory for %zu runs' pairs", runs);
  }
  int rc = etk_compensation_run_pairs(dump, cal, pairs, own, err);
  size_t n = 0;
  for (size_t r = 0; rc == ETK_OK && r < runs; r++) {
    etk_etdump_run_t run;
    if (etk_etdump_run_get(dump, r, &run) != ETK_OK || run.event_count == 0)
      continue;
    out->runs++;
    if (own[r]) pairs[n++] = pairs[r];
  }
  if (rc == ETK_OK && n > 0) {
    qsort(pairs, n, sizeof *pairs, cmp_double);
    out->own = n;
    out->min = pairs[0];
    out->max = pairs[n - 1];
    out->median = n % 2 ? pairs[n / 2] : (pairs[n / 2 - 1] + pairs[n / 2]) / 2;
  }
  free(pairs);
  free(own);
  return rc;
}

int etk_compensation_run_pairs(const etk_etdump_t *dump,
                               const etk_calibration_t *cal, double *pairs,
                               uint8_t *own, etk_error_t *err) {
  if (dump && etk_etdump_run_count(dump) > 0 && !pairs)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_compensation_run_pairs: NULL argument");
  return compensate(dump, cal, NULL, pairs, own, err);
}
