/*
 * inspector_render_json.c - `etkit inspect --format json`: the events view
 * as one JSON document with every column of upstream's DataFrame (raw
 * samples, statistics, links, debug data, start times, metadata), the
 * blocks with their run outputs, and the allocations.
 *
 * LAYOUT
 *   {"source_time_scale", "target_time_scale", "scale_factor",
 *    "blocks": [{index, event_block_name, bundled_input_index,
 *                event_count, runs, run_output}],
 *    "events": [one object per plan row, keys in json_event_keys order,
 *               then source / module when asked for],
 *    "allocations": [...], "debug_data_mismatches": N}
 *
 * PERFORMANCE
 *   A million events write a million copies of each key, so the keys are
 *   prepared once (at compile time, or once per document for the six
 *   statistic keys that carry the unit) and each costs one copy; a
 *   statistic equal to the previous number is copied, not formatted
 *   again (etk_json_t keeps the last one).  Everything streams into the
 *   sink's buffer; nothing is materialised per event.
 *
 *   The usual event (no ETRecord lists, debug data or metadata, text that
 *   needs no escaping) takes a fast path: its whole object is written in
 *   one piece of the sink's buffer, the text between its values (comma,
 *   indentation, key) copied from fragments prepared once per document
 *   and its numbers formatted in place, with no writer call per value.
 *   The bytes are those etk_json_t writes; any other event goes through
 *   etk_json_t.
 */
#include <stdlib.h>
#include <string.h>

#include "render_plan.h"
#include "values_text.h"

/* The fixed keys of an event object, quoted at compile time. */
static const etk_json_prepared_key_t
    key_block_index = ETK_JSON_KEY_LITERAL("event_block_index"),
    key_block_name = ETK_JSON_KEY_LITERAL("event_block_name"),
    key_event_name = ETK_JSON_KEY_LITERAL("event_name"),
    key_raw = ETK_JSON_KEY_LITERAL("raw"),
    key_op_types = ETK_JSON_KEY_LITERAL("op_types"),
    key_delegate_id = ETK_JSON_KEY_LITERAL("delegate_debug_identifier"),
    key_stack = ETK_JSON_KEY_LITERAL("stack_traces"),
    key_module = ETK_JSON_KEY_LITERAL("module_hierarchy"),
    key_is_delegated = ETK_JSON_KEY_LITERAL("is_delegated_op"),
    key_backend = ETK_JSON_KEY_LITERAL("delegate_backend_name"),
    key_debug = ETK_JSON_KEY_LITERAL("debug_data"),
    key_start = ETK_JSON_KEY_LITERAL("start_time"),
    key_metadata = ETK_JSON_KEY_LITERAL("delegate_debug_metadata"),
    key_iid = ETK_JSON_KEY_LITERAL("instruction_id"),
    key_handles = ETK_JSON_KEY_LITERAL("debug_handles"),
    key_num_outputs = ETK_JSON_KEY_LITERAL("num_outputs");

/* The fast path of an event object: the text between its values (a
 * comma, the indentation and a key; the brackets of its arrays) prepared
 * once per document, each at most FRAGMENT_MAX bytes so that it is copied
 * in one fixed-size piece. */
#define FRAGMENT_MAX 64
typedef struct fragment {
  char text[FRAGMENT_MAX];
  size_t len;
} fragment_t;

enum {
  FRAG_BLOCK_INDEX, /* "{" and the first key */
  FRAG_BLOCK_NAME,
  FRAG_EVENT_NAME,
  FRAG_RAW,
  FRAG_STAT, /* six: p10 ... max */
  FRAG_OP_TYPES = FRAG_STAT + 6,
  FRAG_DELEGATE_ID,
  FRAG_STACK,
  FRAG_MODULE,
  FRAG_IS_DELEGATED,
  FRAG_BACKEND,
  FRAG_DEBUG,
  FRAG_START,
  FRAG_METADATA,
  FRAG_IID,
  FRAG_HANDLES,
  FRAG_NUM_OUTPUTS,
  FRAG_OPEN_ARRAY,  /* "[" and the first element's indentation */
  FRAG_NEXT_ITEM,   /* "," and the next element's indentation */
  FRAG_CLOSE_ARRAY, /* the member's indentation and "]" */
  FRAG_CLOSE_EVENT, /* the event's indentation and "}" */
  FRAG_COUNT
};

typedef struct json_fast {
  int enabled; /* every fragment fits */
  fragment_t frag[FRAG_COUNT];
  size_t plain_block;    /* a block whose name needs no escaping, or SIZE_MAX */
  etk_repr_memo_t *memo; /* texts of recent doubles (json_events_t's) */
} json_fast_t;

/* What one document's events share: the statistic keys ("p10 (ms)", ...,
 * formatted with the unit) and the scratch text of the extra columns. */
typedef struct json_events {
  plan_t *p;
  char stat_text[6][48];
  etk_json_prepared_key_t stat[6];
  etk_strbuf_t tmp;
  json_fast_t fast;
  uint64_t *starts; /* start ticks of one event's samples */
  size_t starts_cap;
  etk_repr_memo_t memo; /* a wide dump's million events share a few hundred
                           durations: each is formatted once */
} json_events_t;

static void json_events_init(json_events_t *x, plan_t *p) {
  static const char *const names[6] = {"p10", "p50", "p90",
                                       "avg", "min", "max"};
  memset(x, 0, sizeof *x);
  x->p = p;
  for (int i = 0; i < 6; i++) {
    if (p->o->include_units)
      snprintf(x->stat_text[i], sizeof x->stat_text[i], "%s (%s)", names[i],
               etk_time_scale_name(p->insp->options.target_time_scale));
    else
      snprintf(x->stat_text[i], sizeof x->stat_text[i], "%s", names[i]);
    etk_json_key_prepare(NULL, x->stat_text[i], &x->stat[i]);
  }
  etk_strbuf_init(&x->tmp);
}

void insp_allocations_json(etk_json_t *j, etk_inspector_t *insp) {
  etk_json_begin_array(j);
  for (size_t i = 0; i < insp->alloc_count; i++) {
    etk_inspector_allocator_t a;
    etk_inspector_allocator_get(insp, i, &a);
    etk_json_begin_object(j);
    etk_json_kv_cstring(j, "event_block_name", a.run_name);
    etk_json_kv_cstring(j, "allocator", a.name);
    etk_json_kv_int(j, "allocator_id", a.allocator_id);
    etk_json_kv_uint(j, "count", a.count);
    etk_json_kv_uint(j, "total_bytes", a.total_bytes);
    etk_json_kv_uint(j, "max_bytes", a.max_bytes);
    etk_json_kv_uint(j, "runs", a.runs);
    etk_json_end_object(j);
  }
  etk_json_end_array(j);
}

/* The "blocks" array: each selected block with its runs and outputs. */
static void json_write_blocks(etk_json_t *j, const plan_t *p) {
  etk_inspector_t *insp = p->insp;
  etk_json_key(j, "blocks");
  etk_json_begin_array(j);
  for (size_t b = 0; b < insp->block_count; b++) {
    if (!p->selected[b]) continue;
    etk_inspector_block_t blk;
    etk_inspector_block_get(insp, b, &blk);
    etk_json_begin_object(j);
    etk_json_kv_uint(j, "index", b);
    if (blk.name_present)
      etk_json_kv_string(j, "event_block_name", blk.name, blk.name_len);
    else
      etk_json_kv_null(j, "event_block_name");
    etk_json_kv_int(j, "bundled_input_index", blk.bundled_input_index);
    etk_json_kv_uint(j, "event_count", blk.event_count);
    etk_json_key(j, "runs");
    etk_json_begin_array(j);
    for (size_t r = 0; r < blk.run_count; r++) etk_json_uint(j, blk.runs[r]);
    etk_json_end_array(j);
    etk_json_key(j, "run_output");
    etk_json_begin_array(j);
    for (size_t k = 0; k < blk.output_count; k++)
      insp_value_json(j, insp->dump, blk.outputs[k], insp->options.debug_buffer,
                      insp->options.debug_buffer_len, 0);
    etk_json_end_array(j);
    etk_json_end_object(j);
  }
  etk_json_end_array(j);
}

/* The statistics of the n durations in insp->scratch; returns whether
 * there are any. */
static int json_stats(etk_inspector_t *insp, size_t n, etk_stats_t *st) {
  memset(st, 0, sizeof *st);
  return n > 0 &&
         etk_stats_compute(insp->scratch, n, insp->scratch + insp->scratch_cap,
                           st) == ETK_OK;
}

/* "raw" (the per-run durations) and the six statistics of event `e`. */
static int json_write_samples(etk_json_t *j, json_events_t *x, uint32_t e,
                              const insp_block_t *bk) {
  etk_inspector_t *insp = x->p->insp;
  if (insp_scratch_reserve(insp, bk->run_count ? bk->run_count : 1) != ETK_OK)
    return ETK_E_NO_MEMORY;
  size_t n = insp_event_raw(insp, e, insp->scratch);
  etk_json_key_prepared(j, &key_raw);
  if (n) {
    etk_json_begin_array(j);
    for (size_t k = 0; k < n; k++) etk_json_double(j, insp->scratch[k]);
    etk_json_end_array(j);
  } else {
    etk_json_null(j);
  }
  etk_stats_t st;
  int has = json_stats(insp, n, &st);
  const double v[6] = {st.p10, st.p50, st.p90, st.avg, st.min, st.max};
  for (int i = 0; i < 6; i++) {
    etk_json_key_prepared(j, &x->stat[i]);
    if (has)
      etk_json_double(j, v[i]);
    else
      etk_json_null(j);
  }
  return ETK_OK;
}

/* op_types, delegate_debug_identifier, stack_traces, module_hierarchy,
 * is_delegated_op and delegate_backend_name: the ETRecord link. */
static void json_write_link(etk_json_t *j, const plan_t *p,
                            const insp_event_t *ev,
                            const etk_inspector_event_link_t *link) {
  etk_json_key_prepared(j, &key_op_types);
  etk_json_begin_array(j);
  for (size_t k = 0; k < link->op_type_count; k++)
    etk_json_cstring(j, link->op_types[k]);
  etk_json_end_array(j);
  etk_json_key_prepared(j, &key_delegate_id);
  if (ev->dint != -1) {
    etk_json_int(j, ev->dint);
  } else if (ev->dstr != ETK_ETDUMP_STR_ABSENT) {
    etk_etdump_str_t s = etk_etdump_string(p->insp->dump, ev->dstr);
    etk_json_string(j, s.data, s.len);
  } else {
    etk_json_null(j);
  }
  for (int mod = 0; mod < 2; mod++) {
    etk_json_key_prepared(j, mod ? &key_module : &key_stack);
    etk_json_begin_object(j);
    for (size_t k = 0; k < link->node_count; k++)
      etk_json_kv_cstring(
          j, link->nodes[k].name,
          mod ? link->nodes[k].module_hierarchy : link->nodes[k].stack_trace);
    etk_json_end_object(j);
  }
  etk_json_key_prepared(j, &key_is_delegated);
  etk_json_bool(j, insp_event_is_delegated(ev));
  etk_json_key_prepared(j, &key_backend);
  etk_json_cstring(j, link->delegate_backend_name);
}

/* A byte string as lowercase hex. */
static void json_hex(etk_json_t *j, etk_strbuf_t *b, const uint8_t *d,
                     size_t n) {
  static const char hex[] = "0123456789abcdef";
  etk_strbuf_clear(b);
  for (size_t i = 0; i < n; i++) {
    char two[2] = {hex[d[i] >> 4], hex[d[i] & 15]};
    etk_strbuf_append(b, two, 2);
  }
  etk_json_string(j, b->data ? b->data : "", b->len);
}

/* debug_data, start_time and delegate_debug_metadata: per-run values read
 * from the event's samples. */
static void json_write_runs(etk_json_t *j, json_events_t *x, uint32_t e,
                            const insp_event_t *ev, const insp_block_t *bk) {
  etk_inspector_t *insp = x->p->insp;
  etk_json_key_prepared(j, &key_debug);
  etk_json_begin_array(j);
  const insp_debug_t *dd = insp_debug_of(insp, e);
  for (uint32_t k = 0; dd && k < dd->count; k++)
    insp_value_json(j, insp->dump, insp->debug_refs[dd->first + k],
                    insp->options.debug_buffer, insp->options.debug_buffer_len,
                    0);
  etk_json_end_array(j);
  etk_json_key_prepared(j, &key_start);
  const uint64_t s = insp_sample_index(bk, e);
  if (ev->pname == INSP_NONE) {
    etk_json_null(j);
  } else {
    etk_json_begin_array(j);
    for (uint32_t k = 0; k < bk->run_count; k++) {
      uint64_t start, end;
      etk_etdump_event_times(insp->dump, insp_sample(insp, s + k), &start,
                             &end);
      etk_json_uint(j, start);
    }
    etk_json_end_array(j);
  }
  etk_json_key_prepared(j, &key_metadata);
  etk_json_begin_array(j);
  if (ev->pname != INSP_NONE && insp_event_has_metadata(insp, e)) {
    for (uint32_t k = 0; k < bk->run_count; k++) {
      etk_etdump_event_t de;
      etk_etdump_event_get(insp->dump, insp_sample(insp, s + k), &de);
      json_hex(j, &x->tmp, de.metadata, de.metadata_len);
    }
  }
  etk_json_end_array(j);
}

/* instruction_id, debug_handles, num_outputs and the asked-for extra
 * columns (source, module: the same cells as the table's). */
static void json_write_origin(etk_json_t *j, json_events_t *x, size_t row,
                              const insp_event_t *ev,
                              const etk_inspector_event_link_t *link) {
  etk_json_key_prepared(j, &key_iid);
  etk_json_int(j, ev->iid);
  etk_json_key_prepared(j, &key_handles);
  if (!link->has_debug_handles) {
    etk_json_null(j);
  } else if (!link->debug_handles_is_list && link->debug_handle_count == 1) {
    etk_json_int(j, link->debug_handles[0]);
  } else {
    etk_json_begin_array(j);
    for (size_t k = 0; k < link->debug_handle_count; k++)
      etk_json_int(j, link->debug_handles[k]);
    etk_json_end_array(j);
  }
  etk_json_key_prepared(j, &key_num_outputs);
  etk_json_int(j, link->num_outputs);
  static const int extra_cols[2] = {COL_SOURCE, COL_EVENT_MODULE};
  static const unsigned extra_bits[2] = {ETK_INSPECT_COLUMN_SOURCE,
                                         ETK_INSPECT_COLUMN_MODULE};
  for (int k = 0; k < 2; k++) {
    if (!(x->p->o->columns & extra_bits[k])) continue;
    etk_cell_t cell;
    memset(&cell, 0, sizeof cell);
    etk_strbuf_clear(&x->tmp);
    x->p->cols[0] = extra_cols[k]; /* JSON uses no column plan */
    insp_plan_event_cell(x->p, row, 0, &cell, &x->tmp);
    etk_json_key(j, insp_column_names[extra_cols[k]]);
    etk_json_cell(j, &cell);
  }
}

/* ------------------------------------------------------ the fast path */

/* Sets fragment k: `lead`, then (when indenting) a newline and `pad`
 * spaces, then `body`, then (when indenting, after a key) a space. */
static void fragment_set(json_fast_t *f, int k, int indent, const char *lead,
                         size_t pad, const char *body, size_t body_len,
                         int key) {
  size_t lead_len = strlen(lead), spacing = indent > 0 ? 1 + pad : 0;
  if (lead_len + spacing + body_len + (key && indent > 0) > FRAGMENT_MAX) {
    f->enabled = 0;
    return;
  }
  fragment_t *fr = &f->frag[k];
  memset(fr->text, 0, sizeof fr->text);
  char *q = fr->text;
  memcpy(q, lead, lead_len);
  q += lead_len;
  if (indent > 0) {
    *q++ = '\n';
    memset(q, ' ', pad);
    q += pad;
  }
  memcpy(q, body, body_len);
  q += body_len;
  if (key && indent > 0) *q++ = ' ';
  fr->len = (size_t)(q - fr->text);
}

/* Prepares the fragments for events written as elements of the array
 * open at j's current depth (they are what etk_json_t would write). */
static void json_fast_init(json_fast_t *f, const json_events_t *x,
                           const etk_json_t *j) {
  const etk_json_prepared_key_t *const keys[FRAG_OPEN_ARRAY] = {
      &key_block_index, &key_block_name, &key_event_name,   &key_raw,
      &x->stat[0],      &x->stat[1],     &x->stat[2],       &x->stat[3],
      &x->stat[4],      &x->stat[5],     &key_op_types,     &key_delegate_id,
      &key_stack,       &key_module,     &key_is_delegated, &key_backend,
      &key_debug,       &key_start,      &key_metadata,     &key_iid,
      &key_handles,     &key_num_outputs};
  int indent = j->indent > 0 ? j->indent : 0;
  size_t d = (size_t)j->depth;
  f->plain_block = SIZE_MAX;
  f->enabled = d + 3 < ETK_JSON_MAX_DEPTH && indent <= FRAGMENT_MAX;
  if (!f->enabled) return;
  for (int k = 0; k < FRAG_OPEN_ARRAY; k++) {
    if (keys[k]->len == 0) f->enabled = 0;
    fragment_set(f, k, indent, k ? "," : "{", (d + 1) * (size_t)indent,
                 keys[k]->text, keys[k]->len, 1);
  }
  fragment_set(f, FRAG_OPEN_ARRAY, indent, "[", (d + 2) * (size_t)indent, "", 0,
               0);
  fragment_set(f, FRAG_NEXT_ITEM, indent, ",", (d + 2) * (size_t)indent, "", 0,
               0);
  fragment_set(f, FRAG_CLOSE_ARRAY, indent, "", (d + 1) * (size_t)indent, "]",
               1, 0);
  fragment_set(f, FRAG_CLOSE_EVENT, indent, "", d * (size_t)indent, "}", 1, 0);
}

/* Copies a fragment in one fixed-size piece (half of one for the short
 * ones, most of them); returns the new cursor. */
static inline char *put_fragment(char *q, const json_fast_t *f, int k) {
  if (f->frag[k].len <= FRAGMENT_MAX / 2)
    memcpy(q, f->frag[k].text, FRAGMENT_MAX / 2);
  else
    memcpy(q, f->frag[k].text, FRAGMENT_MAX);
  return q + f->frag[k].len;
}

/* Up to 8 bytes of literal text (null, true, false, [], {}). */
static inline char *put_text(char *q, const char *lit, size_t len) {
  memcpy(q, lit, len);
  return q + len;
}

/* A string that needs no escaping, quoted. */
static inline char *put_plain(char *q, const char *s, size_t len) {
  *q++ = '"';
  memcpy(q, s, len);
  q += len;
  *q++ = '"';
  return q;
}

/* A double as etk_json_double() writes it, its text from the memo. */
static inline char *put_number(const json_fast_t *f, char *q, double v) {
  if (v != v || v - v != 0) return put_text(q, "null", 4);
  size_t n;
  const char *text = etk_repr_memo_text(f->memo, v, &n);
  memcpy(q, text, ETK_FORMAT_DOUBLE_MAX); /* fixed size: no call */
  return q + n;
}

/* An array of n values (n > 0) put by `kind`: doubles, unsigned or signed
 * integers. */
enum { ITEMS_DOUBLE, ITEMS_UINT, ITEMS_INT };
static char *put_items(const json_fast_t *f, char *q, const void *items,
                       size_t n, int kind) {
  q = put_fragment(q, f, FRAG_OPEN_ARRAY);
  for (size_t k = 0; k < n; k++) {
    if (k) q = put_fragment(q, f, FRAG_NEXT_ITEM);
    if (kind == ITEMS_DOUBLE)
      q = put_number(f, q, ((const double *)items)[k]);
    else if (kind == ITEMS_UINT)
      q += etk_format_uint(((const uint64_t *)items)[k], q);
    else
      q += etk_format_int(((const int64_t *)items)[k], q);
  }
  return put_fragment(q, f, FRAG_CLOSE_ARRAY);
}

/* What the fast path writes of one event, read before anything is
 * written. */
typedef struct fast_event {
  size_t block;
  insp_event_t ev;
  etk_etdump_str_t block_name, delegate_id;
  const char *name, *backend;
  size_t name_len, backend_len;
  size_t raw_count;
  size_t need; /* room for the whole object */
  etk_stats_t st;
  int has_stats;
  etk_inspector_event_link_t link;
} fast_event_t;

/* Whether s (NULL: absent) is written as it is. */
static int plain(const char *s, size_t len) {
  return !s || etk_json_plain_length(s, len) == len;
}

/* Reads event e for the fast path; returns 0 when the event holds what
 * only the general writer writes (link lists, debug data, metadata, text
 * that needs escaping, more than fits the sink's buffer). */
static int fast_event_read(json_events_t *x, uint32_t e, fast_event_t *fe) {
  plan_t *p = x->p;
  etk_inspector_t *insp = p->insp;
  fe->ev = insp_event_at(insp, e);
  fe->block = insp_block_of(insp, e);
  const insp_block_t *bk = &insp->blocks[fe->block];
  etk_inspector_event_link(insp, e, &fe->link);
  const insp_debug_t *dd = insp_debug_of(insp, e);
  if (fe->link.op_type_count || fe->link.node_count || (dd && dd->count) ||
      (p->o->columns &
       (ETK_INSPECT_COLUMN_SOURCE | ETK_INSPECT_COLUMN_MODULE)) ||
      (fe->ev.pname != INSP_NONE && insp_event_has_metadata(insp, e)))
    return 0;
  fe->block_name = etk_etdump_string(insp->dump, bk->name_id);
  fe->name = insp_event_name(insp, &fe->ev, p->name_buf, &fe->name_len);
  memset(&fe->delegate_id, 0, sizeof fe->delegate_id);
  if (fe->ev.dint == -1 && fe->ev.dstr != ETK_ETDUMP_STR_ABSENT)
    fe->delegate_id = etk_etdump_string(insp->dump, fe->ev.dstr);
  fe->backend = fe->link.delegate_backend_name;
  fe->backend_len = fe->backend ? strlen(fe->backend) : 0;
  size_t runs = bk->run_count, handles = fe->link.debug_handle_count;
  if (runs > 4096 || handles > 4096) return 0;
  /* the fragments, the text, and per array item a fragment and a number */
  fe->need = FRAG_COUNT * FRAGMENT_MAX + fe->block_name.len + fe->name_len +
             fe->delegate_id.len + fe->backend_len + 64 +
             (2 * runs + handles) * (FRAGMENT_MAX + ETK_FORMAT_DOUBLE_MAX);
  if (fe->block != x->fast.plain_block) {
    if (!plain(fe->block_name.data, fe->block_name.len)) return 0;
    x->fast.plain_block = fe->block; /* its name is checked once */
  }
  if (fe->need > ETK_RENDER_SINK_BUFFER || !plain(fe->name, fe->name_len) ||
      !plain(fe->delegate_id.data, fe->delegate_id.len) ||
      !plain(fe->backend, fe->backend_len))
    return 0;
  if (insp_scratch_reserve(insp, runs ? runs : 1) != ETK_OK) return 0;
  if (x->starts_cap < runs) {
    uint64_t *grown = realloc(x->starts, runs * sizeof *grown);
    if (!grown) return 0;
    x->starts = grown;
    x->starts_cap = runs;
  }
  fe->raw_count =
      insp_event_raw_in(insp, e, fe->block, insp->scratch, x->starts, &fe->ev);
  if (!insp_event_has_perf(insp, e) && fe->ev.pname != INSP_NONE) {
    const uint64_t s = insp_sample_index(bk, e);
    for (size_t k = 0; k < runs; k++) {
      uint64_t end;
      etk_etdump_event_times(insp->dump, insp_sample(insp, s + k),
                             &x->starts[k], &end);
    }
  }
  fe->has_stats = json_stats(insp, fe->raw_count, &fe->st);
  return 1;
}

/* The samples, statistics and link members of a read event. */
static char *fast_event_middle(const json_fast_t *f, char *q,
                               const etk_inspector_t *insp,
                               const fast_event_t *fe) {
  q = put_fragment(q, f, FRAG_RAW);
  if (fe->raw_count)
    q = put_items(f, q, insp->scratch, fe->raw_count, ITEMS_DOUBLE);
  else
    q = put_text(q, "null", 4);
  const double v[6] = {fe->st.p10, fe->st.p50, fe->st.p90,
                       fe->st.avg, fe->st.min, fe->st.max};
  for (int i = 0; i < 6; i++) {
    q = put_fragment(q, f, FRAG_STAT + i);
    q = fe->has_stats ? put_number(f, q, v[i]) : put_text(q, "null", 4);
  }
  q = put_text(put_fragment(q, f, FRAG_OP_TYPES), "[]", 2);
  q = put_fragment(q, f, FRAG_DELEGATE_ID);
  if (fe->ev.dint != -1)
    q += etk_format_int(fe->ev.dint, q);
  else if (fe->ev.dstr != ETK_ETDUMP_STR_ABSENT)
    q = put_plain(q, fe->delegate_id.data ? fe->delegate_id.data : "",
                  fe->delegate_id.data ? fe->delegate_id.len : 0);
  else
    q = put_text(q, "null", 4);
  q = put_text(put_fragment(q, f, FRAG_STACK), "{}", 2);
  q = put_text(put_fragment(q, f, FRAG_MODULE), "{}", 2);
  q = put_fragment(q, f, FRAG_IS_DELEGATED);
  q = insp_event_is_delegated(&fe->ev) ? put_text(q, "true", 4)
                                       : put_text(q, "false", 5);
  q = put_fragment(q, f, FRAG_BACKEND);
  if (fe->backend) return put_plain(q, fe->backend, fe->backend_len);
  return put_text(q, "null", 4);
}

/* Writes the object of plan row `row` in one piece of the sink's buffer;
 * returns 0 when the event needs the general writer (nothing written). */
static int json_fast_event(etk_json_t *j, json_events_t *x, size_t row) {
  const json_fast_t *f = &x->fast;
  etk_inspector_t *insp = x->p->insp;
  uint32_t e = plan_row(x->p, row);
  fast_event_t fe;
  if (!fast_event_read(x, e, &fe)) return 0;
  const insp_block_t *bk = &insp->blocks[fe.block];
  char *q0 = etk_json_value_room(j, fe.need), *q = q0;
  if (!q) return 1; /* the error is recorded */
  q = put_fragment(q, f, FRAG_BLOCK_INDEX);
  q += etk_format_uint(fe.block, q);
  q = put_fragment(q, f, FRAG_BLOCK_NAME);
  q = fe.block_name.data ? put_plain(q, fe.block_name.data, fe.block_name.len)
                         : put_text(q, "null", 4);
  q = put_plain(put_fragment(q, f, FRAG_EVENT_NAME), fe.name, fe.name_len);
  q = fast_event_middle(f, q, insp, &fe);
  q = put_text(put_fragment(q, f, FRAG_DEBUG), "[]", 2);
  q = put_fragment(q, f, FRAG_START);
  if (fe.ev.pname == INSP_NONE)
    q = put_text(q, "null", 4);
  else if (bk->run_count == 0)
    q = put_text(q, "[]", 2);
  else
    q = put_items(f, q, x->starts, bk->run_count, ITEMS_UINT);
  q = put_text(put_fragment(q, f, FRAG_METADATA), "[]", 2);
  q = put_fragment(q, f, FRAG_IID);
  q += etk_format_int(fe.ev.iid, q);
  q = put_fragment(q, f, FRAG_HANDLES);
  const etk_inspector_event_link_t *l = &fe.link;
  if (!l->has_debug_handles)
    q = put_text(q, "null", 4);
  else if (!l->debug_handles_is_list && l->debug_handle_count == 1)
    q += etk_format_int(l->debug_handles[0], q);
  else if (l->debug_handle_count == 0)
    q = put_text(q, "[]", 2);
  else
    q = put_items(f, q, l->debug_handles, l->debug_handle_count, ITEMS_INT);
  q = put_fragment(q, f, FRAG_NUM_OUTPUTS);
  q += etk_format_int(l->num_outputs, q);
  q = put_fragment(q, f, FRAG_CLOSE_EVENT);
  etk_render_commit(j->sink, (size_t)(q - q0));
  return 1;
}

/* The object of plan row `row`. */
static int json_write_event(etk_json_t *j, json_events_t *x, size_t row) {
  plan_t *p = x->p;
  etk_inspector_t *insp = p->insp;
  uint32_t e = plan_row(p, row);
  const insp_event_t evs = insp_event_at(insp, e), *ev = &evs;
  size_t bi = insp_block_of(insp, e);
  const insp_block_t *bk = &insp->blocks[bi];
  etk_inspector_event_link_t link;
  etk_inspector_event_link(insp, e, &link);
  etk_json_begin_object(j);
  etk_json_key_prepared(j, &key_block_index);
  etk_json_uint(j, bi);
  etk_json_key_prepared(j, &key_block_name);
  etk_etdump_str_t bn = etk_etdump_string(insp->dump, bk->name_id);
  if (bn.data)
    etk_json_string(j, bn.data, bn.len);
  else
    etk_json_null(j);
  size_t nlen;
  const char *name = insp_event_name(insp, ev, p->name_buf, &nlen);
  etk_json_key_prepared(j, &key_event_name);
  etk_json_string(j, name, nlen);
  if (json_write_samples(j, x, e, bk) != ETK_OK) return ETK_E_NO_MEMORY;
  json_write_link(j, p, ev, &link);
  json_write_runs(j, x, e, ev, bk);
  json_write_origin(j, x, row, ev, &link);
  etk_json_end_object(j);
  return ETK_OK;
}

int insp_render_json(plan_t *p, etk_render_sink_t *sink, etk_error_t *err) {
  etk_inspector_t *insp = p->insp;
  etk_json_t j;
  etk_json_init(&j, sink, p->o->json_indent);
  etk_json_begin_object(&j);
  etk_json_kv_cstring(&j, "source_time_scale",
                      etk_time_scale_name(insp->options.source_time_scale));
  etk_json_kv_cstring(&j, "target_time_scale",
                      etk_time_scale_name(insp->options.target_time_scale));
  etk_json_kv_double(&j, "scale_factor", insp->factor);
  json_write_blocks(&j, p);
  etk_json_key(&j, "events");
  etk_json_begin_array(&j);
  json_events_t *x = malloc(sizeof *x);
  if (!x)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  json_events_init(x, p);
  json_fast_init(&x->fast, x, &j);
  x->fast.memo = &x->memo;
  int rc = ETK_OK;
  for (size_t r = 0; r < p->nrows && rc == ETK_OK && j.status == ETK_OK &&
                     sink->status == ETK_OK;
       r++) {
    if (!x->fast.enabled || !json_fast_event(&j, x, r))
      rc = json_write_event(&j, x, r);
  }
  etk_strbuf_free(&x->tmp);
  free(x->starts);
  free(x);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  etk_json_end_array(&j);
  etk_json_key(&j, "allocations");
  insp_allocations_json(&j, insp);
  etk_json_kv_uint(&j, "debug_data_mismatches", insp->debug_mismatches);
  etk_json_end_object(&j);
  rc = etk_json_finish(&j);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "writing JSON failed: %s",
                         etk_strerror(rc));
  return ETK_OK;
}
