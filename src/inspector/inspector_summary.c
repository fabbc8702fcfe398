/*
 * inspector_summary.c - the Inspector's summary view: per event block, the
 * time of each operator type, the overheads and the method.
 *
 * RULES
 *   Per block, events with perf data are grouped by operator type: the
 *   linked op type when there is exactly one, else the name without
 *   "native_call_" and without an XNNPACK " #N" instance suffix.  Wrappers
 *   are not counted, so nothing is counted twice: OPERATOR_CALL (it wraps
 *   its native_call), Method::execute and Program::load_method (they give
 *   the method time), and DELEGATE_CALL when the same instruction has
 *   delegated per-op events.  Times are per run (the events' averages):
 *   total = sum of avg, avg = total / count, % = total / method time.  More
 *   rows close each block: "delegate overhead" (only with wrapping
 *   DELEGATE_CALLs: their total minus the delegated per-op events of the
 *   same instructions, the backend's own time), "framework overhead"
 *   (method time minus the operators' total and the delegate overhead) and
 *   the method event itself (100 %).  op_summary.c has the same rules.
 *
 *
 * LAYOUT
 *   Rows are collected per block (summary_collect_block: an open-addressing
 *   table finds a row by block, kind and key), sorted and cut to --top,
 *   then the closing rows are added; the rows are rendered as a frame
 *   (table, TSV, CSV) or as JSON (summary_write_json).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "render_plan.h"

typedef struct sum_row {
  uint32_t block;
  int kind;  /* 0 op, 1 framework overhead, 2 method, 3 delegate overhead */
  char *key; /* op type (owned, in keys buffer offsets) */
  size_t key_off, key_len;
  uint64_t count;
  double total;
  double comp_total; /* compensated (with a calibration) */
} sum_row_t;

typedef struct summary {
  plan_t *p;
  sum_row_t *rows;
  size_t nrows, cap;
  etk_strbuf_t keys;
  double *method_time; /* per block, NaN when none */
  double *method_comp; /* compensated method time per block */
  /* per ETDump event compensation ticks when the dump carries a
   * calibration (insp_side_compensation): two more columns, compensated
   * total and % of the compensated method, beside the raw ones */
  const double *comp;
  size_t ncols;
  const char **method_name;
  char header_buf[3][48];
  const char *headers[8];
  /* table: total and avg in a readable unit per column (value * scale,
   * 3 digits) and the share with 3 digits; 0 = raw target units */
  double scale[2];
  int round_percent;
  /* rows found by (block, kind, key): open addressing, row index + 1,
   * at most half full */
  uint32_t *slots;
  size_t slot_cap;
} summary_t;

static void op_key(const etk_inspector_t *insp, uint32_t e, char *buf,
                   const char **key, size_t *len) {
  etk_inspector_event_link_t l;
  etk_inspector_event_link(insp, e, &l);
  if (l.op_type_count == 1) {
    *key = l.op_types[0];
    *len = strlen(*key);
    return;
  }
  insp_event_t ev = insp_event_at(insp, e);
  const char *name = insp_event_name(insp, &ev, buf, len);
  if (*len > 12 && memcmp(name, "native_call_", 12) == 0) {
    name += 12;
    *len -= 12;
  }
  /* XNNPACK-style instance suffix " #<digits>" */
  size_t n = *len;
  size_t i = n;
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
  if (i < n && i >= 2 && name[i - 1] == '#' && name[i - 2] == ' ') *len = i - 2;
  *key = name;
}

static uint64_t sum_hash(uint32_t block, int kind, const char *key,
                         size_t len) {
  uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)block << 1 | (uint64_t)kind);
  for (size_t i = 0; i < len; i++) {
    h ^= (unsigned char)key[i];
    h *= 0x100000001b3ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

static int sum_slots_grow(summary_t *s) {
  size_t cap = s->slot_cap ? s->slot_cap * 2 : 256;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots) return ETK_E_NO_MEMORY;
  for (size_t r = 0; r < s->nrows; r++) {
    const sum_row_t *row = &s->rows[r];
    size_t i = (size_t)sum_hash(row->block, row->kind,
                                s->keys.data + row->key_off, row->key_len) &
               (cap - 1);
    while (slots[i]) i = (i + 1) & (cap - 1);
    slots[i] = (uint32_t)r + 1;
  }
  free(s->slots);
  s->slots = slots;
  s->slot_cap = cap;
  return ETK_OK;
}

/* Adds v to the row (block, kind, key), creating it (rows keep their
 * first-seen order). */
static int sum_add(summary_t *s, uint32_t block, int kind, const char *key,
                   size_t len, double v, double cv, uint64_t count) {
  if ((s->nrows + 1) * 2 > s->slot_cap && sum_slots_grow(s) != ETK_OK)
    return ETK_E_NO_MEMORY;
  size_t i = (size_t)sum_hash(block, kind, key, len) & (s->slot_cap - 1);
  for (; s->slots[i]; i = (i + 1) & (s->slot_cap - 1)) {
    sum_row_t *r = &s->rows[s->slots[i] - 1];
    if (r->block == block && r->kind == kind && r->key_len == len &&
        memcmp(s->keys.data + r->key_off, key, len) == 0) {
      r->total += v;
      r->comp_total += cv;
      r->count += count;
      return ETK_OK;
    }
  }
  if (s->nrows >= UINT32_MAX - 1) return ETK_E_LIMIT;
  s->slots[i] = (uint32_t)s->nrows + 1;
  if (!ETK_VEC_RESERVE(s->rows, s->cap, s->nrows + 1)) return ETK_E_NO_MEMORY;
  sum_row_t *r = &s->rows[s->nrows++];
  r->block = block;
  r->kind = kind;
  r->key_off = s->keys.len;
  r->key_len = len;
  etk_strbuf_append(&s->keys, key, len);
  if (s->keys.failed) return ETK_E_NO_MEMORY;
  r->total = v;
  r->comp_total = cv;
  r->count = count;
  return ETK_OK;
}

static int is_name(const char *s, size_t n, const char *lit) {
  return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

/* What cmp_sum compares by (etk_sort_r's context). */
typedef struct sum_order {
  int desc;
  etk_inspect_sort_t key;
  const char *keys; /* the text the rows' key_off point into */
} sum_order_t;

static int cmp_sum(const void *a, const void *b, void *ctx) {
  const sum_row_t *x = a, *y = b;
  const sum_order_t *o = ctx;
  const int sum_sort_desc = o->desc;
  const etk_inspect_sort_t sum_sort_key = o->key;
  const char *sum_keys = o->keys;
  if (x->block != y->block) return x->block < y->block ? -1 : 1;
  if (x->kind != y->kind) return x->kind - y->kind;
  int c = 0;
  if (sum_sort_key == ETK_INSPECT_SORT_NAME) {
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    c = memcmp(sum_keys + x->key_off, sum_keys + y->key_off, n);
    if (!c) c = (x->key_len > y->key_len) - (x->key_len < y->key_len);
  } else {
    double kx, ky;
    if (sum_sort_key == ETK_INSPECT_SORT_COUNT) {
      kx = (double)x->count;
      ky = (double)y->count;
    } else if (sum_sort_key == ETK_INSPECT_SORT_AVG) {
      kx = x->total / (double)x->count;
      ky = y->total / (double)y->count;
    } else {
      kx = x->total;
      ky = y->total;
    }
    c = (kx > ky) - (kx < ky);
  }
  if (sum_sort_desc) c = -c;
  if (c) return c;
  return (x->key_off > y->key_off) - (x->key_off < y->key_off);
}

static int summary_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                        etk_strbuf_t *b) {
  summary_t *s = ctx;
  (void)b;
  const sum_row_t *r = &s->rows[row];
  const etk_inspector_t *insp = s->p->insp;
  double method = s->method_time[r->block];
  switch (col) {
    case 0: {
      etk_etdump_str_t n =
          etk_etdump_string(insp->dump, insp->blocks[r->block].name_id);
      if (n.data)
        etk_cell_set_text(out, n.data, n.len);
      else
        etk_cell_set_none(out);
      break;
    }
    case 1:
      etk_cell_set_text(out, s->keys.data + r->key_off, r->key_len);
      break;
    case 2:
      if (r->kind == 1)
        etk_cell_set_none(out);
      else
        etk_cell_set_int(out, (int64_t)r->count);
      break;
    case 3:
      etk_cell_set_float(out, s->scale[0] > 0
                                  ? etk_duration_round(r->total * s->scale[0])
                                  : r->total);
      break;
    case 4:
      if (r->kind == 1 || r->kind == 3 || r->count == 0) {
        etk_cell_set_none(out);
      } else {
        double avg = r->total / (double)r->count;
        etk_cell_set_float(
            out, s->scale[1] > 0 ? etk_duration_round(avg * s->scale[1]) : avg);
      }
      break;
    case 6:
      etk_cell_set_float(
          out, s->scale[0] > 0 ? etk_duration_round(r->comp_total * s->scale[0])
                               : r->comp_total);
      break;
    case 7:
      method = s->method_comp[r->block];
      if (method != method || method == 0) {
        etk_cell_set_none(out);
      } else {
        double pct = r->comp_total / method * 100.0;
        etk_cell_set_float(out,
                           s->round_percent ? etk_duration_round(pct) : pct);
      }
      break;
    default:
      if (method != method || method == 0) {
        etk_cell_set_none(out);
      } else {
        double pct = r->total / method * 100.0;
        etk_cell_set_float(out,
                           s->round_percent ? etk_duration_round(pct) : pct);
      }
      break;
  }
  return ETK_OK;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The total of the averages of block `bk`'s delegated per-op events whose
 * instruction is one of the `n` wrapping DELEGATE_CALLs in `wrapped`
 * (sorted here): what the wrappers' time already covers. */
static double delegated_inside(etk_inspector_t *insp, const insp_block_t *bk,
                               int32_t *wrapped, size_t n) {
  qsort(wrapped, n, sizeof *wrapped, cmp_i32);
  double total = 0;
  for (uint32_t e = bk->first_event; e < bk->first_event + bk->event_count;
       e++) {
    insp_event_t ev = insp_event_at(insp, e);
    etk_stats_t st;
    if (!insp_event_is_delegated(&ev) || ev.iid < 0 ||
        !bsearch(&ev.iid, wrapped, n, sizeof *wrapped, cmp_i32) ||
        etk_inspector_event_stats(insp, e, &st) != ETK_OK)
      continue;
    total += st.avg;
  }
  return total;
}

/* Per block scratch: the ids of instructions that have delegated per-op
 * events (sorted), and of the DELEGATE_CALLs that wrap them.  Sized by the
 * block's events, never by the ids the file declares (an id near 2^31
 * would otherwise cost gigabytes). */
typedef struct delegate_ids {
  int32_t *inner, *wrapped;
  size_t inner_count, wrapped_count;
} delegate_ids_t;

static int delegate_ids_load(delegate_ids_t *d, etk_inspector_t *insp,
                             const insp_block_t *bk) {
  free(d->inner);
  free(d->wrapped);
  size_t n = bk->event_count ? bk->event_count : 1;
  d->inner = malloc(n * sizeof *d->inner);
  d->wrapped = malloc(n * sizeof *d->wrapped);
  d->inner_count = d->wrapped_count = 0;
  if (!d->inner || !d->wrapped) return ETK_E_NO_MEMORY;
  for (uint32_t e = bk->first_event; e < bk->first_event + bk->event_count;
       e++) {
    insp_event_t ev = insp_event_at(insp, e);
    if (insp_event_is_delegated(&ev) && ev.iid >= 0 && ev.pname != INSP_NONE)
      d->inner[d->inner_count++] = ev.iid;
  }
  qsort(d->inner, d->inner_count, sizeof *d->inner, cmp_i32);
  return ETK_OK;
}

/* What one block's events add up to besides the operator rows. */
typedef struct block_totals {
  double load_time, ops_total, delegate_total;
  double load_comp, ops_comp, delegate_comp; /* compensated */
} block_totals_t;

/* Adds event `e` of block `bi` to the summary: an operator row, the
 * method or load time, or a wrapping DELEGATE_CALL. */
static int summary_add_event(summary_t *s, size_t bi, uint32_t e,
                             delegate_ids_t *d, block_totals_t *t) {
  etk_inspector_t *insp = s->p->insp;
  const insp_event_t evs = insp_event_at(insp, e), *ev = &evs;
  etk_stats_t st;
  if (etk_inspector_event_stats(insp, e, &st) != ETK_OK) return ETK_OK;
  /* raw and compensated averages (the mean is linear: the compensated
   * average is the raw one less the mean compensation) */
  double m = insp_event_mean_compensation(insp, s->comp, e);
  double raw = insp->compensation ? st.avg + m : st.avg, comp = raw - m;
  char buf[32];
  size_t len;
  const char *name = insp_event_name(insp, ev, buf, &len);
  int delegated = insp_event_is_delegated(ev);
  if (!delegated && is_name(name, len, "OPERATOR_CALL")) return ETK_OK;
  if (!delegated && is_name(name, len, "Method::execute")) {
    if (s->method_time[bi] != s->method_time[bi]) {
      s->method_time[bi] = raw;
      s->method_comp[bi] = comp;
      s->method_name[bi] = "Method::execute";
    }
    return ETK_OK;
  }
  if (!delegated && is_name(name, len, "Program::load_method")) {
    if (t->load_time != t->load_time) {
      t->load_time = raw;
      t->load_comp = comp;
    }
    return ETK_OK;
  }
  if (!delegated && is_name(name, len, "DELEGATE_CALL") && ev->iid >= 0 &&
      bsearch(&ev->iid, d->inner, d->inner_count, sizeof *d->inner, cmp_i32)) {
    d->wrapped[d->wrapped_count++] = ev->iid;
    t->delegate_total += raw;
    t->delegate_comp += comp;
    return ETK_OK;
  }
  const char *key;
  size_t klen;
  op_key(insp, e, buf, &key, &klen);
  t->ops_total += raw;
  t->ops_comp += comp;
  return sum_add(s, (uint32_t)bi, 0, key, klen, raw, comp, 1);
}

/* The rows of block `bi`: its operators sorted and cut to --top, then the
 * delegate and framework overheads and the method. */
static int summary_collect_block(summary_t *s, size_t bi, delegate_ids_t *d) {
  etk_inspector_t *insp = s->p->insp;
  const etk_inspector_render_options_t *o = s->p->o;
  const insp_block_t *bk = &insp->blocks[bi];
  size_t block_start = s->nrows;
  int rc = delegate_ids_load(d, insp, bk);
  block_totals_t t = {(double)NAN, 0, 0, (double)NAN, 0, 0};
  for (uint32_t e = bk->first_event;
       e < bk->first_event + bk->event_count && rc == ETK_OK; e++)
    rc = summary_add_event(s, bi, e, d, &t);
  if (rc != ETK_OK) return rc;
  if (d->wrapped_count) {
    /* the delegated per-op events contain nothing: raw = compensated */
    double inside = delegated_inside(insp, bk, d->wrapped, d->wrapped_count);
    t.delegate_total -= inside;
    t.delegate_comp -= inside;
  }
  if (s->method_time[bi] != s->method_time[bi] && t.load_time == t.load_time) {
    s->method_time[bi] = t.load_time;
    s->method_comp[bi] = t.load_comp;
    s->method_name[bi] = "Program::load_method";
  }
  /* sort this block's op rows, then --top */
  sum_order_t order;
  order.key =
      o->sort == ETK_INSPECT_SORT_NONE ? ETK_INSPECT_SORT_TOTAL : o->sort;
  order.desc =
      order.key == ETK_INSPECT_SORT_NAME ? o->reverse != 0 : o->reverse == 0;
  order.keys = s->keys.data;
  if (s->nrows > block_start &&
      !etk_sort_r(s->rows + block_start, s->nrows - block_start,
                  sizeof *s->rows, cmp_sum, &order))
    return ETK_E_NO_MEMORY;
  if (o->top && s->nrows - block_start > o->top)
    s->nrows = block_start + o->top;
  if (s->method_time[bi] != s->method_time[bi]) return ETK_OK;
  if (d->wrapped_count)
    rc = sum_add(s, (uint32_t)bi, 3, "delegate overhead", 17, t.delegate_total,
                 t.delegate_comp, d->wrapped_count);
  if (rc == ETK_OK)
    rc = sum_add(s, (uint32_t)bi, 1, "framework overhead", 18,
                 s->method_time[bi] - t.ops_total - t.delegate_total,
                 s->method_comp[bi] - t.ops_comp - t.delegate_comp, 0);
  if (rc == ETK_OK)
    rc = sum_add(s, (uint32_t)bi, 2, s->method_name[bi],
                 strlen(s->method_name[bi]), s->method_time[bi],
                 s->method_comp[bi], 1);
  return rc;
}

/* The headers, and for etkit's own table view a readable unit per
 * duration column. */
static void summary_set_headers(summary_t *s, const char *unit) {
  const etk_inspector_render_options_t *o = s->p->o;
  const char *units[2] = {unit, unit};
  double sec = etk_seconds_per_unit(unit);
  if (o->format == ETK_INSPECT_FORMAT_TABLE && o->include_units && sec > 0) {
    double max[2] = {0, 0};
    for (size_t i = 0; i < s->nrows; i++) {
      const sum_row_t *r = &s->rows[i];
      if (fabs(r->total) > max[0]) max[0] = fabs(r->total);
      if (r->count && fabs(r->total / (double)r->count) > max[1])
        max[1] = fabs(r->total / (double)r->count);
    }
    for (int c = 0; c < 2; c++) {
      double per_second;
      units[c] = etk_duration_unit(max[c] * sec, &per_second);
      s->scale[c] = sec * per_second;
    }
    s->round_percent = 1;
  }
  snprintf(s->header_buf[0], sizeof s->header_buf[0],
           o->include_units ? "total (%s)" : "total", units[0]);
  snprintf(s->header_buf[1], sizeof s->header_buf[1],
           o->include_units ? "avg (%s)" : "avg", units[1]);
  s->headers[0] = "event_block_name";
  s->headers[1] = "op_type";
  s->headers[2] = "count";
  s->headers[3] = s->header_buf[0];
  s->headers[4] = s->header_buf[1];
  s->headers[5] = "% of method";
  snprintf(s->header_buf[2], sizeof s->header_buf[2],
           o->include_units ? "compensated total (%s)" : "compensated total",
           units[0]);
  s->headers[6] = s->header_buf[2];
  s->headers[7] = "compensated % of method";
}

static int summary_write_json(summary_t *s, const char *unit,
                              etk_render_sink_t *sink) {
  static const char *const kinds[4] = {"operator", "framework_overhead",
                                       "method", "delegate_overhead"};
  etk_json_t j;
  etk_json_init(&j, sink, s->p->o->json_indent);
  etk_json_begin_object(&j);
  etk_json_kv_cstring(&j, "target_time_scale", unit);
  etk_json_key(&j, "summary");
  etk_json_begin_array(&j);
  for (size_t i = 0; i < s->nrows; i++) {
    const sum_row_t *r = &s->rows[i];
    etk_json_begin_object(&j);
    etk_json_kv_uint(&j, "event_block_index", r->block);
    etk_json_kv_cstring(&j, "kind", kinds[r->kind]);
    for (size_t c = 0; c < s->ncols; c++) {
      etk_cell_t cell;
      memset(&cell, 0, sizeof cell);
      summary_cell(s, i, c, &cell, NULL);
      etk_json_key(&j, s->headers[c]);
      etk_json_cell(&j, &cell);
    }
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  return etk_json_finish(&j);
}

int insp_render_summary(plan_t *p, etk_render_sink_t *sink, etk_error_t *err) {
  etk_inspector_t *insp = p->insp;
  summary_t s;
  memset(&s, 0, sizeof s);
  s.p = p;
  int rc = ETK_OK;
  size_t nblocks = insp->block_count ? insp->block_count : 1;
  s.method_time = malloc(nblocks * sizeof(double));
  s.method_comp = malloc(nblocks * sizeof(double));
  s.method_name = calloc(nblocks, sizeof(char *));
  if (!s.method_time || !s.method_comp || !s.method_name) rc = ETK_E_NO_MEMORY;
  s.comp = insp_side_compensation(insp);
  s.ncols = s.comp ? 8 : 6;
  delegate_ids_t d = {NULL, NULL, 0, 0};
  for (size_t bi = 0; bi < insp->block_count && rc == ETK_OK; bi++) {
    s.method_time[bi] = s.method_comp[bi] = (double)NAN;
    if (p->selected[bi]) rc = summary_collect_block(&s, bi, &d);
  }
  free(d.inner);
  free(d.wrapped);
  if (rc == ETK_OK && s.keys.failed) rc = ETK_E_NO_MEMORY;
  if (rc == ETK_OK) {
    const char *unit = etk_time_scale_name(insp->options.target_time_scale);
    summary_set_headers(&s, unit);
    if (p->o->format == ETK_INSPECT_FORMAT_JSON) {
      rc = summary_write_json(&s, unit, sink);
    } else {
      etk_frame_t f = {s.nrows, s.ncols, s.headers, summary_cell, &s, 1};
      rc = insp_emit_frame(&f, p->o->format, sink, err);
    }
  }
  free(s.rows);
  free(s.slots);
  etk_strbuf_free(&s.keys);
  free(s.method_time);
  free(s.method_comp);
  free(s.method_name);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "rendering the summary failed: %s", etk_strerror(rc));
  return ETK_OK;
}
