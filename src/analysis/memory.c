/*
 * memory.c - memory insights from ETDump allocation events: per block and
 * allocator, how many allocations, how many bytes per run (the run's
 * high-water mark), and the largest single allocations with where they
 * happened.
 *
 * WHAT THE FILE CAN TELL
 *   An AllocationEvent is (allocator_id, allocation_size) and nothing
 *   else: no address, no free, no timestamp.  ExecuTorch's allocators
 *   (method allocator, temp allocator, planned memory) are bump allocators
 *   reset between loads, so within one run the bytes only grow: the
 *   per-run sum IS the run's peak as far as the dump can tell, and the
 *   report says "cumulative" wherever it shows bytes.  Upstream's Inspector
 *   cannot read these events at all ("Unable to find populated event").
 *
 * DATA LAYOUT
 *   Rows keyed by (block, allocator id) through the interning map, in
 *   block order then first appearance; a per-row "current run" and
 *   "bytes in current run" fold each run into peak/min without a per-run
 *   array.  The top-N largest allocations are kept in a small array
 *   sorted descending (insertion, N is small); their "next event" (the
 *   first profile event to end after them: events are appended when they
 *   END) is looked up at the end, only for those N.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "common/vec.h"

typedef struct mem_row {
  etk_memory_allocator_t pub;
  uint32_t block_name, name; /* pool ids, UINT32_MAX = none */
  uint32_t cur_run;          /* run being folded, UINT32_MAX = none */
  uint64_t cur_bytes;
} mem_row_t;

typedef struct mem_top {
  etk_memory_allocation_t pub;
  uint32_t next_event; /* pool id */
} mem_top_t;

struct etk_memory_report {
  mem_row_t *rows;
  size_t nrows, cap;
  mem_top_t *top;
  size_t ntop, top_cap;
  uint64_t events;
  etk_dropped_marker_t dropped;
  ana_intern_t keys; /* (block, allocator id) -> row */
  ana_intern_t pool; /* strings */
};

static void fold_run(mem_row_t *r) {
  if (r->cur_run == UINT32_MAX) return;
  if (r->cur_bytes > r->pub.peak_bytes) r->pub.peak_bytes = r->cur_bytes;
  if (r->pub.runs_with_allocations == 0 || r->cur_bytes < r->pub.min_run_bytes)
    r->pub.min_run_bytes = r->cur_bytes;
  r->pub.runs_with_allocations++;
  r->cur_run = UINT32_MAX;
  r->cur_bytes = 0;
}

static void top_insert(etk_memory_report_t *m,
                       const etk_memory_allocation_t *a) {
  if (m->top_cap == 0) return;
  if (m->ntop == m->top_cap && m->top[m->ntop - 1].pub.bytes >= a->bytes)
    return;
  size_t pos = m->ntop < m->top_cap ? m->ntop : m->ntop - 1;
  /* ties keep file order: insert after equal sizes */
  while (pos > 0 && m->top[pos - 1].pub.bytes < a->bytes) {
    m->top[pos] = m->top[pos - 1];
    pos--;
  }
  m->top[pos].pub = *a;
  m->top[pos].next_event = UINT32_MAX;
  if (m->ntop < m->top_cap) m->ntop++;
}

static int pool_str(etk_memory_report_t *m, const char *s, size_t len,
                    uint32_t *id) {
  return ana_intern_put(&m->pool, s ? s : "", s ? len : 0, id, NULL);
}

/* Name of the first profile event after ETDump event `ev` in its run. */
static int next_event_name(etk_memory_report_t *m, const etk_etdump_t *dump,
                           uint32_t ev, uint32_t *id) {
  etk_etdump_event_t e;
  if (etk_etdump_event_get(dump, ev, &e) != ETK_OK) return ETK_OK;
  etk_etdump_run_t run;
  if (etk_etdump_run_get(dump, e.run, &run) != ETK_OK) return ETK_OK;
  for (size_t i = (size_t)ev + 1; i < (size_t)run.first_event + run.event_count;
       i++) {
    etk_etdump_event_t p;
    if (etk_etdump_event_get(dump, i, &p) != ETK_OK ||
        p.kind != ETK_ETDUMP_EVENT_PROFILE)
      continue;
    char num[24];
    if (p.name.data && p.name.len)
      return pool_str(m, p.name.data, p.name.len, id);
    if (p.delegate_debug_id_str.data && p.delegate_debug_id_str.len)
      return pool_str(m, p.delegate_debug_id_str.data,
                      p.delegate_debug_id_str.len, id);
    size_t n = etk_format_int(p.delegate_debug_id_int, num);
    return pool_str(m, num, n, id);
  }
  return ETK_OK;
}

static uint64_t add_saturating(uint64_t a, uint64_t b) {
  return a + b < a ? UINT64_MAX : a + b;
}

/* The row of (block b, allocator id) in *id, added on first sight with
 * the block's and the allocator's names.  ETK_E_NO_MEMORY. */
static int row_for(etk_memory_report_t *m, const etk_etdump_t *dump,
                   const etk_inspector_block_t *blk, size_t b,
                   const etk_etdump_run_t *run, int64_t allocator_id,
                   uint32_t *id) {
  struct {
    uint64_t block;
    int64_t id;
  } key = {b, allocator_id};
  int is_new;
  int rc = ana_intern_put(&m->keys, &key, sizeof key, id, &is_new);
  if (rc != ETK_OK || !is_new) return rc;
  /* ids are dense in insertion order, one per row */
  if (!ETK_VEC_RESERVE(m->rows, m->cap, m->nrows + 1)) return ETK_E_NO_MEMORY;
  mem_row_t *r = &m->rows[m->nrows];
  memset(r, 0, sizeof *r);
  r->pub.block = b;
  r->pub.allocator_id = allocator_id;
  r->pub.runs = blk->run_count;
  r->cur_run = UINT32_MAX;
  r->name = UINT32_MAX;
  rc = pool_str(m, blk->name, blk->name_len, &r->block_name);
  if (rc == ETK_OK && allocator_id >= 1 &&
      (uint32_t)allocator_id <= run->allocator_count) {
    etk_etdump_str_t an = etk_etdump_allocator_name(
        dump, run->first_allocator + (size_t)allocator_id - 1);
    if (an.data) rc = pool_str(m, an.data, an.len, &r->name);
  }
  if (rc == ETK_OK) m->nrows++;
  return rc;
}

/* Folds allocation event i of run ri (block b) into row id and the list
 * of the largest allocations. */
static void add_allocation(etk_memory_report_t *m, uint32_t id, size_t b,
                           uint32_t ri, size_t i, uint64_t size) {
  mem_row_t *r = &m->rows[id];
  if (r->cur_run != ri) {
    fold_run(r);
    r->cur_run = ri;
  }
  etk_memory_allocation_t a;
  memset(&a, 0, sizeof a);
  a.etdump_event = (uint32_t)i;
  a.run = ri;
  a.block = b;
  a.allocator = id;
  a.bytes = size;
  a.offset_in_run = r->cur_bytes;
  top_insert(m, &a);
  r->cur_bytes = add_saturating(r->cur_bytes, size);
  r->pub.count++;
  r->pub.total_bytes = add_saturating(r->pub.total_bytes, size);
  if (size > r->pub.largest_bytes) r->pub.largest_bytes = size;
}

/* Every allocation event of block b's runs.  ETK_E_NO_MEMORY. */
static int fold_block(etk_memory_report_t *m, const etk_inspector_t *insp,
                      const etk_etdump_columns_t *cols, size_t b) {
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  etk_inspector_block_t blk;
  etk_inspector_block_get(insp, b, &blk);
  size_t block_first_row = m->nrows;
  int rc = ETK_OK;
  for (size_t k = 0; k < blk.run_count && rc == ETK_OK; k++) {
    uint32_t ri = blk.runs[k];
    etk_etdump_run_t run;
    if (etk_etdump_run_get(dump, ri, &run) != ETK_OK) continue;
    for (size_t i = run.first_event;
         i < (size_t)run.first_event + run.event_count && rc == ETK_OK; i++) {
      if ((cols->flags[i] & ETK_ETDUMP_KIND_MASK) !=
          ETK_ETDUMP_EVENT_ALLOCATION)
        continue;
      etk_etdump_event_t e;
      etk_etdump_event_get(dump, i, &e);
      uint32_t id;
      rc = row_for(m, dump, &blk, b, &run, e.allocator_id, &id);
      if (rc == ETK_OK) add_allocation(m, id, b, ri, i, e.allocation_size);
    }
  }
  for (size_t k = block_first_row; k < m->nrows; k++) fold_run(&m->rows[k]);
  return rc;
}

/* Points the public names at the string pool (it no longer grows). */
static void publish_names(etk_memory_report_t *m) {
  for (size_t k = 0; k < m->nrows; k++) {
    mem_row_t *r = &m->rows[k];
    r->pub.block_name = ana_intern_key(&m->pool, r->block_name, NULL);
    r->pub.name =
        r->name == UINT32_MAX ? NULL : ana_intern_key(&m->pool, r->name, NULL);
  }
  for (size_t k = 0; k < m->ntop; k++)
    m->top[k].pub.next_event =
        m->top[k].next_event == UINT32_MAX
            ? NULL
            : ana_intern_key(&m->pool, m->top[k].next_event, NULL);
}

int etk_memory_report_build(const etk_inspector_t *insp, size_t top,
                            etk_memory_report_t **out, etk_error_t *err) {
  if (!insp || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_memory_report_build: NULL argument");
  *out = NULL;
  etk_memory_report_t *m = calloc(1, sizeof *m);
  if (!m)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  ana_intern_init(&m->keys);
  ana_intern_init(&m->pool);
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  etk_dropped_marker_find(dump, &m->dropped);
  /* every allocation event of the dump, blocks or not */
  etk_etdump_columns_t cols;
  etk_etdump_columns(dump, &cols);
  /* a huge `top` means all: never more slots than the dump has events */
  m->top_cap = top ? top : 10;
  if (m->top_cap > cols.count) m->top_cap = cols.count ? cols.count : 1;
  m->top = calloc(m->top_cap, sizeof *m->top);
  int rc = m->top ? ETK_OK : ETK_E_NO_MEMORY;

  for (size_t i = 0; i < cols.count; i++)
    if ((cols.flags[i] & ETK_ETDUMP_KIND_MASK) == ETK_ETDUMP_EVENT_ALLOCATION)
      m->events++;

  size_t nblocks = etk_inspector_block_count(insp);
  for (size_t b = 0; b < nblocks && rc == ETK_OK && m->events; b++)
    rc = fold_block(m, insp, &cols, b);
  for (size_t k = 0; k < m->ntop && rc == ETK_OK; k++)
    rc = next_event_name(m, dump, m->top[k].pub.etdump_event,
                         &m->top[k].next_event);
  if (rc != ETK_OK) {
    etk_memory_report_free(m);
    return etk_error_set(err, rc, ETK_NO_OFFSET, "memory report: %s",
                         etk_strerror(rc));
  }
  publish_names(m);
  *out = m;
  return ETK_OK;
}

void etk_memory_report_free(etk_memory_report_t *m) {
  if (!m) return;
  free(m->rows);
  free(m->top);
  ana_intern_free(&m->keys);
  ana_intern_free(&m->pool);
  free(m);
}

/* The report's two lists are read alike: a count, and a copy of one
 * entry's public part (ETK_E_INVALID_ARGUMENT past the end).  This defines
 * etk_memory_report_allocator_count/_get (rows) and
 * etk_memory_report_largest_count/_get (top). */
#define MEMORY_REPORT_LIST(list, entry_t, array, length)                  \
  size_t etk_memory_report_##list##_count(const etk_memory_report_t *m) { \
    return m ? m->length : 0;                                             \
  }                                                                       \
  int etk_memory_report_##list##_get(const etk_memory_report_t *m,        \
                                     size_t index, entry_t *out) {        \
    if (!m || !out || index >= m->length) return ETK_E_INVALID_ARGUMENT;  \
    *out = m->array[index].pub;                                           \
    return ETK_OK;                                                        \
  }

MEMORY_REPORT_LIST(allocator, etk_memory_allocator_t, rows, nrows)
MEMORY_REPORT_LIST(largest, etk_memory_allocation_t, top, ntop)

#undef MEMORY_REPORT_LIST

uint64_t etk_memory_report_event_count(const etk_memory_report_t *m) {
  return m ? m->events : 0;
}

/* ------------------------------------------------------- rendering */

static const char *const alloc_headers[] = {
    "event_block_name",  "allocator",    "allocator_id", "runs",
    "runs_allocating",   "allocations",  "total_bytes",  "peak_bytes_per_run",
    "min_bytes_per_run", "largest_bytes"};

static const char *alloc_name(const etk_memory_allocator_t *a) {
  return a->name ? a->name : "(unknown allocator)";
}

/* An allocator's numbers, in alloc_headers' order from "allocator_id"
 * (column 2) on; the table and the JSON both print them. */
enum { ALLOC_FIRST_NUMBER = 2, ALLOC_NUMBERS = 8 };

static void alloc_numbers(const etk_memory_allocator_t *a,
                          int64_t out[ALLOC_NUMBERS]) {
  const int64_t numbers[ALLOC_NUMBERS] = {a->allocator_id,
                                          (int64_t)a->runs,
                                          (int64_t)a->runs_with_allocations,
                                          (int64_t)a->count,
                                          (int64_t)a->total_bytes,
                                          (int64_t)a->peak_bytes,
                                          (int64_t)a->min_run_bytes,
                                          (int64_t)a->largest_bytes};
  memcpy(out, numbers, sizeof numbers);
}

static int alloc_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                      etk_strbuf_t *scratch) {
  const etk_memory_report_t *m = ctx;
  const etk_memory_allocator_t *a = &m->rows[row].pub;
  (void)scratch;
  if (col == 0) {
    etk_cell_set_text(out, a->block_name, strlen(a->block_name));
  } else if (col == 1) {
    etk_cell_set_text(out, alloc_name(a), strlen(alloc_name(a)));
  } else {
    int64_t numbers[ALLOC_NUMBERS];
    alloc_numbers(a, numbers);
    size_t k = col - ALLOC_FIRST_NUMBER;
    etk_cell_set_int(out, numbers[k < ALLOC_NUMBERS ? k : ALLOC_NUMBERS - 1]);
  }
  return ETK_OK;
}

static const char *const top_headers[] = {
    "event_block_name",       "run",        "allocator",   "bytes",
    "allocator_bytes_before", "next_event", "etdump_event"};

static int top_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                    etk_strbuf_t *scratch) {
  const etk_memory_report_t *m = ctx;
  const etk_memory_allocation_t *t = &m->top[row].pub;
  const etk_memory_allocator_t *a = &m->rows[t->allocator].pub;
  (void)scratch;
  switch (col) {
    case 0:
      etk_cell_set_text(out, a->block_name, strlen(a->block_name));
      break;
    case 1:
      etk_cell_set_int(out, t->run);
      break;
    case 2:
      etk_cell_set_text(out, alloc_name(a), strlen(alloc_name(a)));
      break;
    case 3:
      etk_cell_set_int(out, (int64_t)t->bytes);
      break;
    case 4:
      etk_cell_set_int(out, (int64_t)t->offset_in_run);
      break;
    case 5:
      if (t->next_event)
        etk_cell_set_text(out, t->next_event, strlen(t->next_event));
      else
        etk_cell_set_none(out);
      break;
    default:
      etk_cell_set_int(out, t->etdump_event);
      break;
  }
  return ETK_OK;
}

/* One allocator row as a JSON object. */
static void json_allocator(etk_json_t *j, const etk_memory_allocator_t *a) {
  etk_json_begin_object(j);
  etk_json_kv_uint(j, "event_block_index", a->block);
  etk_json_kv_cstring(j, "event_block_name", a->block_name);
  etk_json_kv_cstring(j, "allocator", a->name);
  int64_t numbers[ALLOC_NUMBERS];
  alloc_numbers(a, numbers);
  etk_json_kv_int(j, alloc_headers[ALLOC_FIRST_NUMBER], numbers[0]);
  for (size_t k = 1; k < ALLOC_NUMBERS; k++) /* counts, unsigned */
    etk_json_kv_uint(j, alloc_headers[ALLOC_FIRST_NUMBER + k],
                     (uint64_t)numbers[k]);
  etk_json_end_object(j);
}

/* The report as one JSON object: the allocators, then the largest
 * allocations. */
static int render_json(const etk_memory_report_t *m, int json_indent,
                       etk_render_sink_t *sink) {
  etk_json_t j;
  etk_json_init(&j, sink, json_indent);
  etk_json_begin_object(&j);
  etk_json_kv_bool(&j, "cumulative", 1);
  etk_json_kv_uint(&j, "allocation_events", m->events);
  etk_json_key(&j, "dropped_events");
  if (m->dropped.present)
    etk_json_uint(&j, m->dropped.events);
  else
    etk_json_null(&j);
  etk_json_key(&j, "allocators");
  etk_json_begin_array(&j);
  for (size_t i = 0; i < m->nrows; i++) json_allocator(&j, &m->rows[i].pub);
  etk_json_end_array(&j);
  etk_json_key(&j, "largest");
  etk_json_begin_array(&j);
  for (size_t i = 0; i < m->ntop; i++) {
    const etk_memory_allocation_t *t = &m->top[i].pub;
    etk_json_begin_object(&j);
    etk_json_kv_uint(&j, "event_block_index", t->block);
    etk_json_kv_uint(&j, "run", t->run);
    etk_json_kv_cstring(&j, "allocator", m->rows[t->allocator].pub.name);
    etk_json_kv_int(&j, "allocator_id", m->rows[t->allocator].pub.allocator_id);
    etk_json_kv_uint(&j, "bytes", t->bytes);
    etk_json_kv_uint(&j, "allocator_bytes_before", t->offset_in_run);
    etk_json_kv_cstring(&j, "next_event", t->next_event);
    etk_json_kv_uint(&j, "etdump_event", t->etdump_event);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  return etk_json_finish(&j);
}

/* The human table: warnings, the allocators, the largest allocations. */
static int render_table(const etk_memory_report_t *m, const etk_frame_t *fa,
                        const etk_frame_t *ft, etk_render_sink_t *sink,
                        etk_error_t *err) {
  int rc = ETK_OK;
  if (m->dropped.present)
    etk_render_printf(sink,
                      "warning: the recorder dropped %llu event(s) when its "
                      "buffer filled; the numbers below miss them\n",
                      (unsigned long long)m->dropped.events);
  if (m->nrows == 0) {
    etk_render_puts(sink, "no allocation events in this ETDump\n");
  } else {
    etk_render_puts(
        sink,
        "allocation events carry no address, free or time: bytes are "
        "CUMULATIVE within a run,\nso a run's total is its "
        "high-water mark as far as the dump can tell.\n\n"
        "allocators:\n");
    rc = etk_render_table(fa, sink, err);
    if (rc == ETK_OK && m->ntop) {
      etk_render_puts(sink, "\nlargest allocations:\n");
      rc = etk_render_table(ft, sink, err);
    }
  }
  return rc;
}

int etk_memory_report_render(const etk_memory_report_t *m,
                             etk_inspect_format_t format, int json_indent,
                             etk_render_sink_t *sink, etk_error_t *err) {
  if (!m || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_memory_report_render: NULL argument");
  int rc = ETK_OK;
  etk_frame_t fa = {m->nrows, 10, alloc_headers, alloc_cell, (void *)m, 0};
  etk_frame_t ft = {m->ntop, 7, top_headers, top_cell, (void *)m, 0};
  if (format == ETK_INSPECT_FORMAT_JSON) {
    rc = render_json(m, json_indent, sink);
  } else if (format == ETK_INSPECT_FORMAT_TABLE) {
    rc = render_table(m, &fa, &ft, sink, err);
  } else {
    rc = etk_render_delimited(
        &fa, format == ETK_INSPECT_FORMAT_CSV ? ',' : '\t', sink, err);
  }
  if (rc == ETK_OK && sink->status != ETK_OK) rc = sink->status;
  if (rc != ETK_OK) {
    if (err && err->code != ETK_OK) return err->code;
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "rendering the memory report: %s", etk_strerror(rc));
  }
  return ETK_OK;
}
