/*
 * memory_plan_render.c - the text outputs of a memory plan: the summary
 * table, JSON, CSV, the problem lines of --check, and the Chrome trace of
 * upstream's generate_memory_trace.
 *
 * TRACE ROWS
 *   One row per instruction that has a live tensor.  Rows are
 *   built by a sweep: tensors sorted by first instruction enter the live
 *   set, and leave it after their last instruction; each row is the live
 *   set sorted by value index.  The cost is the output's size plus a sort
 *   per row, and memory is O(tensors).
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/flatbuf.h"
#include "etkit/memory_plan.h"
#include "analysis_internal.h"
#include "etkit/scalar_type.h"
#include "memory_plan_internal.h"

/* -------------------------------------------------------------- helpers */

static void json_lifetime(etk_json_t *j, const char *key, int64_t v) {
  etk_json_key(j, key);
  if (v < 0)
    etk_json_null(j);
  else
    etk_json_int(j, v);
}

static double utilisation(const etk_memory_plan_buffer_t *b) {
  return b->size ? (double)b->peak_bytes / (double)b->size : 0.0;
}

/* ----------------------------------------------------------------- JSON */

static void json_tensor(etk_json_t *j, const etk_memory_plan_tensor_t *t) {
  etk_json_begin_object(j);
  etk_json_kv_uint(j, "value", t->value);
  etk_json_kv_uint(j, "mem_id", t->mem_id);
  etk_json_kv_uint(j, "offset", t->offset);
  etk_json_kv_uint(j, "nbytes", t->nbytes);
  json_lifetime(j, "first", t->first);
  json_lifetime(j, "last", t->last);
  etk_json_kv_cstring(j, "dtype", etk_scalar_type_name(t->scalar_type));
  etk_json_key(j, "sizes");
  etk_json_begin_array(j);
  for (uint32_t d = 0; d < t->dim; d++)
    etk_json_int(j, (int32_t)etk_fb_load_u32((const uint8_t *)(t->sizes + d)));
  etk_json_end_array(j);
  etk_json_kv_cstring(j, "op", t->op);
  etk_json_kv_cstring(j, "name", t->name);
  etk_json_kv_cstring(j, "module", t->module);
  etk_json_kv_cstring(j, "source", t->source);
  etk_json_kv_bool(j, "is_input", t->is_input);
  etk_json_kv_bool(j, "is_output", t->is_output);
  json_lifetime(j, "alias_of", t->alias_of);
  etk_json_kv_bool(j, "invalid", t->invalid);
  etk_json_end_object(j);
}

static void json_runtime(etk_json_t *j, const etk_memory_plan_t *p) {
  etk_json_key(j, "runtime");
  etk_json_begin_array(j);
  for (size_t k = 0; k < p->runtime_count; k++) {
    const etk_memory_plan_runtime_t *r = &p->runtime[k];
    etk_json_begin_object(j);
    etk_json_kv_cstring(j, "allocator", r->allocator);
    etk_json_key(j, "mem_id");
    if (r->mem_id)
      etk_json_uint(j, r->mem_id);
    else
      etk_json_null(j);
    etk_json_kv_uint(j, "planned_bytes", r->planned_bytes);
    etk_json_kv_uint(j, "events", r->events);
    etk_json_kv_uint(j, "runs", r->runs);
    etk_json_kv_uint(j, "total_bytes", r->total_bytes);
    etk_json_kv_uint(j, "max_bytes", r->max_bytes);
    etk_json_end_object(j);
  }
  etk_json_end_array(j);
}

static int render_json(const etk_memory_plan_t *p, etk_render_sink_t *sink) {
  etk_json_t j;
  etk_json_init(&j, sink, 2);
  etk_json_begin_object(&j);
  etk_json_kv_cstring(&j, "method", p->method);
  etk_json_kv_uint(&j, "num_instructions", p->num_instructions);
  etk_json_kv_uint(&j, "num_chains", p->chain_count);
  etk_json_kv_uint(&j, "backward_jumps", p->backward_jumps);
  etk_json_key(&j, "buffers");
  etk_json_begin_array(&j);
  for (size_t k = 0; k < p->buffer_count; k++) {
    const etk_memory_plan_buffer_t *b = &p->buffers[k];
    etk_json_begin_object(&j);
    etk_json_kv_uint(&j, "mem_id", b->mem_id);
    etk_json_kv_uint(&j, "size", b->size);
    etk_json_kv_uint(&j, "peak_bytes", b->peak_bytes);
    json_lifetime(&j, "peak_instruction", b->peak_instruction);
    etk_json_key(&j, "utilisation");
    etk_json_double(&j, utilisation(b));
    etk_json_kv_uint(&j, "tensor_count", b->tensor_count);
    etk_json_kv_uint(&j, "used_end", b->used_end);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_key(&j, "tensors");
  etk_json_begin_array(&j);
  for (size_t k = 0; k < p->tensor_count; k++) json_tensor(&j, &p->tensors[k]);
  etk_json_end_array(&j);
  etk_json_key(&j, "overlaps");
  etk_json_begin_array(&j);
  for (size_t k = 0; k < p->overlap_count; k++) {
    const etk_memory_plan_overlap_t *o = &p->overlaps[k];
    etk_json_begin_object(&j);
    etk_json_kv_uint(&j, "a", o->a);
    etk_json_kv_uint(&j, "b", o->b);
    etk_json_kv_uint(&j, "mem_id", o->mem_id);
    etk_json_kv_uint(&j, "byte_start", o->byte_start);
    etk_json_kv_uint(&j, "byte_end", o->byte_end);
    etk_json_key(&j, "first");
    etk_json_int(&j, o->first);
    etk_json_key(&j, "last");
    etk_json_int(&j, o->last);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_kv_uint(&j, "overlap_total", p->overlap_total);
  etk_json_kv_bool(&j, "overlaps_truncated", p->overlaps_truncated);
  etk_json_key(&j, "invalid");
  etk_json_begin_array(&j);
  for (size_t k = 0; k < p->tensor_count; k++)
    if (p->tensors[k].invalid) etk_json_uint(&j, p->tensors[k].value);
  etk_json_end_array(&j);
  if (p->runtime) json_runtime(&j, p);
  etk_json_end_object(&j);
  return etk_json_finish(&j);
}

/* ------------------------------------------------------------------ CSV */

static const char *const csv_headers[] = {
    "value",  "mem_id",   "offset",    "nbytes",   "first",
    "last",   "dtype",    "op",        "name",     "module",
    "source", "is_input", "is_output", "alias_of", "invalid"};

static int csv_cell(void *ctx, size_t row, size_t col, etk_cell_t *c,
                    etk_strbuf_t *scratch) {
  (void)scratch;
  const etk_memory_plan_tensor_t *t =
      &((const etk_memory_plan_t *)ctx)->tensors[row];
  const char *s = NULL;
  int64_t v = 0;
  switch (col) {
    case 0:
      v = t->value;
      break;
    case 1:
      v = t->mem_id;
      break;
    case 2:
      v = (int64_t)t->offset;
      break;
    case 3:
      v = (int64_t)t->nbytes;
      break;
    case 4:
      v = t->first;
      if (v < 0) {
        etk_cell_set_none(c);
        return ETK_OK;
      }
      break;
    case 5:
      v = t->last;
      if (v < 0) {
        etk_cell_set_none(c);
        return ETK_OK;
      }
      break;
    case 6:
      s = etk_scalar_type_name(t->scalar_type);
      break;
    case 7:
      s = t->op;
      break;
    case 8:
      s = t->name;
      break;
    case 9:
      s = t->module;
      break;
    case 10:
      s = t->source;
      break;
    case 11:
      etk_cell_set_bool(c, t->is_input);
      return ETK_OK;
    case 12:
      etk_cell_set_bool(c, t->is_output);
      return ETK_OK;
    case 13:
      v = t->alias_of;
      if (v < 0) {
        etk_cell_set_none(c);
        return ETK_OK;
      }
      break;
    default:
      etk_cell_set_bool(c, t->invalid);
      return ETK_OK;
  }
  if (s)
    etk_cell_set_text(c, s, strlen(s));
  else
    etk_cell_set_int(c, v);
  return ETK_OK;
}

/* ---------------------------------------------------------------- table */

static void print_lifetime(etk_render_sink_t *s,
                           const etk_memory_plan_tensor_t *t) {
  if (t->first < 0)
    etk_render_printf(s, "%-11s", "unused");
  else
    etk_render_printf(s, "%5lld..%-5lld", (long long)t->first,
                      (long long)t->last);
}

static void print_peak_tensors(const etk_memory_plan_t *p,
                               const etk_memory_plan_buffer_t *b, size_t top,
                               etk_render_sink_t *s) {
  /* a huge --top means all: never more slots than the plan has tensors */
  if (top > p->tensor_count) top = p->tensor_count ? p->tensor_count : 1;
  uint32_t *ids = malloc(top * sizeof *ids);
  if (!ids) {
    s->status = ETK_E_NO_MEMORY;
    return;
  }
  size_t n =
      etk_memory_plan_live_at(p, b->mem_id, b->peak_instruction, ids, top);
  etk_render_printf(s,
                    "\nmem_id %u at its peak (instruction %lld): %zu live "
                    "tensor%s%s\n",
                    b->mem_id, (long long)b->peak_instruction, n,
                    n == 1 ? "" : "s", n > top ? ", largest first" : "");
  etk_render_printf(s, "  %7s %12s %12s %-11s  %s\n", "value", "bytes",
                    "offset", "lifetime", "op / name");
  for (size_t i = 0; i < n && i < top; i++) {
    const etk_memory_plan_tensor_t *t =
        &p->tensors[etk_memory_plan_find(p, ids[i])];
    etk_render_printf(s, "  %7u %12llu %12llu ", t->value,
                      (unsigned long long)t->nbytes,
                      (unsigned long long)t->offset);
    print_lifetime(s, t);
    etk_render_printf(s, "  %s  %s", t->op, t->name);
    if (t->module[0]) etk_render_printf(s, "  [%s]", t->module);
    if (t->location[0]) etk_render_printf(s, "  %s", t->location);
    etk_render_putc(s, '\n');
  }
  if (n > top) etk_render_printf(s, "  ... %zu more\n", n - top);
  free(ids);
}

static void render_table(const etk_memory_plan_t *p, size_t top,
                         etk_render_sink_t *s) {
  etk_render_printf(s,
                    "Memory plan of method '%s': %llu instructions in %u "
                    "chain%s, %zu planned tensors\n",
                    p->method, (unsigned long long)p->num_instructions,
                    p->chain_count, p->chain_count == 1 ? "" : "s",
                    p->tensor_count);
  if (p->backward_jumps)
    etk_render_printf(s,
                      "note: %llu backward jump%s (loops): lifetimes are "
                      "taken in instruction order, reuse across a loop is not "
                      "verified\n",
                      (unsigned long long)p->backward_jumps,
                      p->backward_jumps == 1 ? "" : "s");
  etk_render_printf(s, "\n%6s %14s %14s %8s %11s %8s\n", "mem_id", "size",
                    "peak", "peak at", "utilisation", "tensors");
  for (size_t k = 0; k < p->buffer_count; k++) {
    const etk_memory_plan_buffer_t *b = &p->buffers[k];
    char at[24] = "-";
    if (b->peak_instruction >= 0)
      snprintf(at, sizeof at, "%lld", (long long)b->peak_instruction);
    etk_render_printf(
        s, "%6u %14llu %14llu %8s %10.1f%% %8llu\n", b->mem_id,
        (unsigned long long)b->size, (unsigned long long)b->peak_bytes, at,
        100.0 * utilisation(b), (unsigned long long)b->tensor_count);
  }
  for (size_t k = 0; k < p->buffer_count; k++)
    if (p->buffers[k].peak_instruction >= 0)
      print_peak_tensors(p, &p->buffers[k], top, s);
  if (p->runtime_count) {
    etk_render_printf(s, "\nRuntime allocations (ETDump) next to the plan:\n");
    etk_render_printf(s, "  %-24s %6s %14s %8s %14s %14s\n", "allocator",
                      "mem_id", "planned", "events", "bytes/run", "largest");
    for (size_t k = 0; k < p->runtime_count; k++) {
      const etk_memory_plan_runtime_t *r = &p->runtime[k];
      char id[16] = "-";
      if (r->mem_id) snprintf(id, sizeof id, "%u", r->mem_id);
      etk_render_printf(
          s, "  %-24s %6s %14llu %8llu %14llu %14llu\n", r->allocator, id,
          (unsigned long long)r->planned_bytes, (unsigned long long)r->events,
          (unsigned long long)(r->runs ? r->total_bytes / r->runs : 0),
          (unsigned long long)r->max_bytes);
    }
  }
  uint64_t problems = p->overlap_total + p->invalid_count;
  etk_render_printf(s, "\nPlan problems: %llu\n", (unsigned long long)problems);
  etk_memory_plan_render_problems(p, s);
}

/* ------------------------------------------------------------- problems */

uint64_t etk_memory_plan_render_problems(const etk_memory_plan_t *p,
                                         etk_render_sink_t *s) {
  if (!p) return 0;
  for (size_t k = 0; k < p->tensor_count; k++) {
    const etk_memory_plan_tensor_t *t = &p->tensors[k];
    if (!t->invalid) continue;
    if (t->mem_id == 0 || t->mem_id > p->buffer_count)
      etk_render_printf(s,
                        "invalid plan: value %u is placed in mem_id %u, a "
                        "buffer the method does not declare (it has %zu)\n",
                        t->value, t->mem_id, p->buffer_count);
    else
      etk_render_printf(s,
                        "invalid plan: value %u (mem_id %u, bytes [%llu, "
                        "%llu)) ends past the buffer's %llu bytes\n",
                        t->value, t->mem_id, (unsigned long long)t->offset,
                        (unsigned long long)(t->offset + t->nbytes),
                        (unsigned long long)p->buffers[t->mem_id - 1].size);
  }
  for (size_t k = 0; k < p->overlap_count; k++) {
    const etk_memory_plan_overlap_t *o = &p->overlaps[k];
    etk_render_printf(s,
                      "unsafe plan: values %u and %u share bytes [%llu, "
                      "%llu) of mem_id %u while both live at instructions "
                      "%lld..%lld\n",
                      o->a, o->b, (unsigned long long)o->byte_start,
                      (unsigned long long)o->byte_end, o->mem_id,
                      (long long)o->first, (long long)o->last);
  }
  if (p->overlaps_truncated)
    etk_render_printf(s,
                      "unsafe plan: more than %u overlapping pairs; the "
                      "check stopped there\n",
                      ETK_MEMORY_PLAN_MAX_OVERLAPS);
  return p->overlap_total + p->invalid_count + (p->overlaps_truncated ? 1 : 0);
}

int etk_memory_plan_render(const etk_memory_plan_t *plan,
                           etk_memory_plan_format_t format, size_t top,
                           etk_render_sink_t *sink, etk_error_t *err) {
  if (!plan || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  int rc = ETK_OK;
  if (format == ETK_MEMORY_PLAN_JSON) {
    rc = render_json(plan, sink);
  } else if (format == ETK_MEMORY_PLAN_CSV) {
    etk_frame_t f = {
        plan->tensor_count, sizeof csv_headers / sizeof *csv_headers,
        csv_headers,        csv_cell,
        (void *)plan,       0};
    rc = etk_render_delimited(&f, ',', sink, err);
  } else {
    render_table(plan, top ? top : 10, sink);
  }
  if (rc == ETK_OK) rc = sink->status;
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "rendering the memory plan: %s", etk_strerror(rc));
  return ETK_OK;
}

/* ---------------------------------------------------------------- trace */

typedef struct live_entry {
  uint32_t value;
  size_t k;
} live_entry_t;

static int live_cmp(const void *pa, const void *pb) {
  const live_entry_t *a = pa, *b = pb;
  return (a->value > b->value) - (a->value < b->value);
}

static int first_cmp(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb; /* {first, k} pairs */
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

static void trace_event(etk_json_t *j, const etk_memory_plan_tensor_t *t,
                        uint64_t ts, uint64_t tid) {
  etk_json_begin_object(j);
  etk_json_kv_cstring(j, "name", t->name);
  etk_json_kv_cstring(j, "cat", "memory_allocation");
  etk_json_kv_cstring(j, "ph", "X");
  etk_json_kv_uint(j, "ts", ts);
  etk_json_kv_uint(j, "dur", t->nbytes);
  etk_json_kv_uint(j, "pid", t->mem_id);
  etk_json_kv_uint(j, "tid", tid);
  etk_json_key(j, "args");
  etk_json_begin_object(j);
  etk_json_kv_cstring(j, "op_name", t->op);
  etk_json_kv_uint(j, "Memory ID", t->mem_id);
  etk_json_kv_cstring(j, "fqn", t->module);
  etk_json_kv_cstring(j, "source", t->source);
  etk_json_kv_uint(j, "bytes", t->nbytes);
  etk_json_end_object(j);
  etk_json_end_object(j);
}

int etk_memory_plan_render_trace(const etk_memory_plan_t *p, int offsets,
                                 etk_render_sink_t *sink, etk_error_t *err) {
  if (!p || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  size_t nt = p->tensor_count, n = 0, nlive = 0;
  int64_t *starts = malloc((2 * nt + 2) * sizeof *starts);
  live_entry_t *live = malloc((nt + 1) * sizeof *live);
  if (!starts || !live) {
    free(starts);
    free(live);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  for (size_t k = 0; k < nt; k++)
    if (etk_mp_counts_live(&p->tensors[k])) {
      starts[2 * n] = p->tensors[k].first;
      starts[2 * n + 1] = (int64_t)k;
      n++;
    }
  qsort(starts, n, 2 * sizeof *starts, first_cmp);
  etk_json_t j;
  etk_json_init(&j, sink, 2);
  etk_json_begin_object(&j);
  etk_json_key(&j, "traceEvents");
  etk_json_begin_array(&j);
  uint64_t tid = 0;
  size_t next = 0;
  int64_t at = n ? starts[0] : 0;
  while (next < n || nlive > 0) {
    if (nlive == 0 && next < n && starts[2 * next] > at) at = starts[2 * next];
    size_t keep = 0;
    for (size_t i = 0; i < nlive; i++)
      if (p->tensors[live[i].k].last >= at) live[keep++] = live[i];
    nlive = keep;
    while (next < n && starts[2 * next] == at) {
      size_t k = (size_t)starts[2 * next + 1];
      live[nlive++] = (live_entry_t){p->tensors[k].value, k};
      next++;
    }
    if (nlive == 0) continue;
    qsort(live, nlive, sizeof *live, live_cmp);
    uint64_t ts = 0;
    for (size_t i = 0; i < nlive; i++) {
      const etk_memory_plan_tensor_t *t = &p->tensors[live[i].k];
      trace_event(&j, t, offsets ? t->offset : ts, tid);
      ts += t->nbytes;
    }
    tid++;
    at++;
    if (sink->status != ETK_OK) break;
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  int rc = etk_json_finish(&j);
  free(starts);
  free(live);
  if (rc == ETK_OK) rc = sink->status;
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "writing the memory trace: %s",
                         etk_strerror(rc));
  return ETK_OK;
}
