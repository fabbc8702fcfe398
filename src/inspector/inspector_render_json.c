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

/* What one document's events share: the statistic keys ("p10 (ms)", ...,
 * formatted with the unit) and the scratch text of the extra columns. */
typedef struct json_events {
  plan_t *p;
  char stat_text[6][48];
  etk_json_prepared_key_t stat[6];
  etk_strbuf_t tmp;
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
  memset(&st, 0, sizeof st);
  int has = n > 0 &&
            etk_stats_compute(insp->scratch, n,
                              insp->scratch + insp->scratch_cap, &st) == ETK_OK;
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
  const uint32_t *s = insp->samples + bk->sample_base +
                      (uint64_t)(e - bk->first_event) * bk->run_count;
  if (ev->pname == INSP_NONE) {
    etk_json_null(j);
  } else {
    etk_json_begin_array(j);
    for (uint32_t k = 0; k < bk->run_count; k++) {
      uint64_t start, end;
      etk_etdump_event_times(insp->dump, s[k], &start, &end);
      etk_json_uint(j, start);
    }
    etk_json_end_array(j);
  }
  etk_json_key_prepared(j, &key_metadata);
  etk_json_begin_array(j);
  if (ev->pname != INSP_NONE && insp_event_has_metadata(insp, e)) {
    for (uint32_t k = 0; k < bk->run_count; k++) {
      etk_etdump_event_t de;
      etk_etdump_event_get(insp->dump, s[k], &de);
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
  int rc = ETK_OK;
  for (size_t r = 0; r < p->nrows && rc == ETK_OK && j.status == ETK_OK &&
                     sink->status == ETK_OK;
       r++)
    rc = json_write_event(&j, x, r);
  etk_strbuf_free(&x->tmp);
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
