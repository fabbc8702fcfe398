/*
 * inspector_render.c - the Inspector's tables: upstream's DataFrame columns
 * streamed into the etkit_render formats, the per-operator-type summary,
 * the allocation report and the JSON document.
 *
 * PURPOSE
 *   etk_inspector_render() turns a grouped dump into exactly what upstream's
 *   print_data_tabular / save_data_to_tsv print, or into CSV, JSON and the
 *   etkit-only views, without materialising a DataFrame: a "plan" lists the
 *   rows (event indices) after block selection, OPERATOR_CALL filtering,
 *   sorting and --top; a cell callback computes each cell when a renderer
 *   asks for it (statistics cached per row).
 *
 * UPSTREAM RULES REPRODUCED (docs inspector.md 6.1-6.6)
 *   - Columns of Event.asdict in order, event_block_name first; printing
 *     drops raw, delegate_debug_identifier, stack_traces, module_hierarchy,
 *     debug_data and every row whose name CONTAINS "OPERATOR_CALL".
 *   - Statistics of events without perf data are None, except that pandas
 *     turns them into NaN ("nan" in the table) as soon as any event of the
 *     concatenated frame has perf data.
 *   - op_types: the list repr below 5 entries, else the string
 *     "['a', 'b' ... 'z'] (N total)".
 *   - include_delegate_debug_data adds a delegate_debug_metadata column
 *     (the raw per-run list; NaN elsewhere) when some event has metadata.
 *   - No blocks, or a block without events: upstream raises "No objects to
 *     concatenate"; we return an error naming the block (allow_empty skips).
 *
 * SUMMARY VIEW (etkit)
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
 * ETRECORD COLUMNS AND THE MODULE VIEW (etkit)
 *   options->columns adds source / module / debug_handles / num_outputs
 *   after op_types (event_origins.c computes the cells); the module view is
 *   module_tree.c.  With columns 0 nothing here changes upstream's output.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inspector_internal.h"
#include "values_text.h"

/* ------------------------------------------------------- columns */

enum col {
  COL_BLOCK,
  COL_NAME,
  COL_RAW,
  COL_P10,
  COL_P50,
  COL_P90,
  COL_AVG,
  COL_MIN,
  COL_MAX,
  COL_OP_TYPES,
  COL_DELEGATE_ID,
  COL_STACK,
  COL_MODULE,
  COL_IS_DELEGATED,
  COL_BACKEND,
  COL_DEBUG,
  COL_START,
  COL_METADATA,
  /* etkit columns from ETRecord origins (ETK_INSPECT_COLUMN_*) */
  COL_SOURCE,
  COL_EVENT_MODULE,
  COL_HANDLES,
  COL_NUM_OUTPUTS
};

static const char *const col_base[] = {"event_block_name",
                                       "event_name",
                                       "raw",
                                       "p10",
                                       "p50",
                                       "p90",
                                       "avg",
                                       "min",
                                       "max",
                                       "op_types",
                                       "delegate_debug_identifier",
                                       "stack_traces",
                                       "module_hierarchy",
                                       "is_delegated_op",
                                       "delegate_backend_name",
                                       "debug_data",
                                       "start_time",
                                       "delegate_debug_metadata",
                                       "source",
                                       "module",
                                       "debug_handles",
                                       "num_outputs"};

static int col_is_stat(int c) {
  return c >= COL_P10 && c <= COL_MAX;
}

/* ------------------------------------------------------- plan */

typedef struct plan {
  etk_inspector_t *insp;
  const etk_inspector_render_options_t *o;
  uint8_t *selected; /* per block */
  uint32_t *rows;
  size_t nrows;
  int any_perf;
  int metadata_col;
  /* frame */
  int cols[24];
  size_t ncols;
  const char *headers[24];
  char header_buf[24][48];
  /* row cache: the renderer asks for a row's cells one after the other */
  size_t cached_row;
  int cached;
  size_t row_block;     /* block of the cached row's event */
  insp_event_t row_sig; /* its signature */
  const char *row_name; /* its event_name (decimal ids in row_name_buf) */
  size_t row_name_len;
  int row_delegated;
  size_t name_block; /* block whose name is in block_name (+1, 0 = none) */
  etk_etdump_str_t block_name;
  int stats_done; /* stats computed for the cached row */
  int has_stats;
  etk_stats_t stats;
  double stat_vals[6]; /* p10, p50, p90, avg, min, max: COL_P10 order */
  int row_start_known; /* row_start holds the one sample's start ticks */
  uint64_t row_start;
  char start_buf[32]; /* "[" start "]" */
  char row_name_buf[32];
  char name_buf[32];
} plan_t;

/* Whether s[0..n) contains `needle` (non-empty); memchr finds the
 * candidates, as every row's name is checked. */
static int name_contains(const char *s, size_t n, const char *needle) {
  size_t m = strlen(needle);
  const char *p = s, *end = s + n;
  while ((size_t)(end - p) >= m) {
    const char *q = memchr(p, needle[0], (size_t)(end - p) - m + 1);
    if (!q) return 0;
    if (memcmp(q, needle, m) == 0) return 1;
    p = q + 1;
  }
  return 0;
}

static int select_blocks(plan_t *p, etk_error_t *err) {
  etk_inspector_t *insp = p->insp;
  const etk_inspector_render_options_t *o = p->o;
  p->selected = calloc(insp->block_count ? insp->block_count : 1, 1);
  if (!p->selected)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  int all = o->select_index_count == 0 && o->select_name_count == 0;
  for (size_t i = 0; i < o->select_index_count && i < ETK_INSPECT_MAX_SELECT;
       i++) {
    if (o->select_index[i] >= insp->block_count)
      return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                           "there is no event block %zu (the ETDump has %zu)",
                           o->select_index[i], insp->block_count);
    p->selected[o->select_index[i]] = 1;
  }
  for (size_t i = 0; i < o->select_name_count && i < ETK_INSPECT_MAX_SELECT;
       i++) {
    const char *want = o->select_name[i] ? o->select_name[i] : "";
    int found = 0;
    for (size_t b = 0; b < insp->block_count; b++) {
      etk_etdump_str_t s =
          etk_etdump_string(insp->dump, insp->blocks[b].name_id);
      if (s.data && s.len == strlen(want) && memcmp(s.data, want, s.len) == 0) {
        p->selected[b] = 1;
        found = 1;
      }
    }
    if (!found)
      return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                           "there is no event block named \"%s\"", want);
  }
  size_t count = 0;
  for (size_t b = 0; b < insp->block_count; b++) {
    if (all) p->selected[b] = 1;
    if (!p->selected[b]) continue;
    if (insp->blocks[b].event_count == 0) {
      /* a run whose events were all allocation events: nothing to tabulate
       * here (they are in the allocations view); upstream stops with
       * "Unable to find populated event" on such a file */
      etk_etdump_run_t run;
      etk_etdump_run_get(insp->dump,
                         insp->block_runs[insp->blocks[b].first_run], &run);
      if (o->allow_empty || run.event_count > 0) {
        p->selected[b] = 0;
        continue;
      }
      etk_etdump_str_t s =
          etk_etdump_string(insp->dump, insp->blocks[b].name_id);
      return etk_error_set(
          err, ETK_E_FORMAT, insp->blocks[b].offset,
          "event block %zu (run \"%s\") has an empty events vector; upstream's "
          "Inspector cannot tabulate it (\"No objects to concatenate\"); "
          "select other blocks or allow empty blocks",
          b, s.data ? s.data : "");
    }
    count++;
  }
  if (count == 0 && !o->allow_empty)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         insp->block_count == 0
                             ? "the ETDump has no event blocks (no run has an "
                               "events vector); upstream's Inspector fails "
                               "with \"No objects to concatenate\""
                             : "no event block to show");
  return ETK_OK;
}

typedef struct sort_item {
  uint32_t row;
  uint32_t order;
  double key;
  const char *name;
  size_t name_len;
} sort_item_t;

static int sort_desc;
static int cmp_num(const void *a, const void *b) {
  const sort_item_t *x = a, *y = b;
  int xn = x->key != x->key, yn = y->key != y->key;
  if (xn != yn) return xn - yn; /* missing values last */
  if (!xn && x->key != y->key)
    return sort_desc ? (x->key < y->key ? 1 : -1) : (x->key < y->key ? -1 : 1);
  return (x->order > y->order) - (x->order < y->order);
}
static int cmp_name(const void *a, const void *b) {
  const sort_item_t *x = a, *y = b;
  size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
  int c = memcmp(x->name, y->name, n);
  if (c == 0) c = (x->name_len > y->name_len) - (x->name_len < y->name_len);
  if (sort_desc) c = -c;
  if (c) return c;
  return (x->order > y->order) - (x->order < y->order);
}

static double sort_key(etk_inspector_t *insp, uint32_t ev,
                       etk_inspect_sort_t s) {
  etk_stats_t st;
  if (etk_inspector_event_stats(insp, ev, &st) != ETK_OK) return (double)NAN;
  switch (s) {
    case ETK_INSPECT_SORT_P10:
      return st.p10;
    case ETK_INSPECT_SORT_P50:
      return st.p50;
    case ETK_INSPECT_SORT_P90:
      return st.p90;
    case ETK_INSPECT_SORT_MIN:
      return st.min;
    case ETK_INSPECT_SORT_MAX:
      return st.max;
    case ETK_INSPECT_SORT_TOTAL:
      return st.avg * (double)st.count;
    case ETK_INSPECT_SORT_COUNT:
      return (double)st.count;
    default:
      return st.avg;
  }
}

static int build_rows(plan_t *p, int filter, etk_error_t *err) {
  etk_inspector_t *insp = p->insp;
  const etk_inspector_render_options_t *o = p->o;
  size_t n = 0;
  for (size_t b = 0; b < insp->block_count; b++)
    if (p->selected[b]) n += insp->blocks[b].event_count;
  p->rows = malloc((n ? n : 1) * sizeof *p->rows);
  if (!p->rows)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (insp_scratch_reserve(insp, 1) != ETK_OK)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t b = 0; b < insp->block_count; b++) {
    if (!p->selected[b]) continue;
    const insp_block_t *bk = &insp->blocks[b];
    if (insp_scratch_reserve(insp, bk->run_count ? bk->run_count : 1) != ETK_OK)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    for (uint32_t e = bk->first_event; e < bk->first_event + bk->event_count;
         e++) {
      const insp_event_t evs = insp_event_at(insp, e), *ev = &evs;
      if (!p->any_perf && ev->pname != INSP_NONE &&
          insp_event_raw(insp, e, insp->scratch) > 0)
        p->any_perf = 1;
      if (o->include_delegate_debug_data && !p->metadata_col &&
          insp_event_has_metadata(insp, e))
        p->metadata_col = 1;
      if (filter) {
        size_t len;
        const char *name = insp_event_name(insp, ev, p->name_buf, &len);
        if (name_contains(name, len, "OPERATOR_CALL")) continue;
      }
      p->rows[p->nrows++] = e;
    }
  }
  if (o->sort != ETK_INSPECT_SORT_NONE && p->nrows > 1) {
    sort_item_t *items = malloc(p->nrows * sizeof *items);
    char(*names)[32] = NULL;
    if (!items)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    if (o->sort == ETK_INSPECT_SORT_NAME) {
      names = malloc(p->nrows * sizeof *names);
      if (!names) {
        free(items);
        return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                             "out of memory");
      }
    }
    for (size_t i = 0; i < p->nrows; i++) {
      items[i].row = p->rows[i];
      items[i].order = (uint32_t)i;
      if (names) {
        insp_event_t ev = insp_event_at(insp, p->rows[i]);
        items[i].name =
            insp_event_name(insp, &ev, names[i], &items[i].name_len);
      } else {
        items[i].key = sort_key(insp, p->rows[i], o->sort);
      }
    }
    /* numbers: largest first; names: A to Z; `reverse` flips either */
    sort_desc = names ? o->reverse != 0 : o->reverse == 0;
    qsort(items, p->nrows, sizeof *items, names ? cmp_name : cmp_num);
    for (size_t i = 0; i < p->nrows; i++) p->rows[i] = items[i].row;
    free(items);
    free(names);
  }
  if (o->top && o->top < p->nrows) p->nrows = o->top;
  return ETK_OK;
}

static void plan_free(plan_t *p) {
  free(p->selected);
  free(p->rows);
}

/* ------------------------------------------------------- event cells */

static void repr_double_list(etk_strbuf_t *b, const double *v, size_t n) {
  char num[ETK_FORMAT_DOUBLE_MAX];
  etk_strbuf_appendc(b, '[');
  for (size_t i = 0; i < n; i++) {
    if (i) etk_strbuf_append(b, ", ", 2);
    etk_strbuf_append(b, num, etk_format_double_repr(v[i], num));
  }
  etk_strbuf_appendc(b, ']');
}

static void op_types_cell(const etk_inspector_event_link_t *l, etk_cell_t *out,
                          etk_strbuf_t *b) {
  if (l->op_type_count < 5) {
    etk_strbuf_appendc(b, '[');
    for (size_t i = 0; i < l->op_type_count; i++) {
      if (i) etk_strbuf_append(b, ", ", 2);
      etk_pyrepr_str(b, l->op_types[i], strlen(l->op_types[i]));
    }
    etk_strbuf_appendc(b, ']');
    etk_cell_set_object(out, b->data, b->len);
    return;
  }
  /* upstream's truncated_list: f"['{a}', '{b}' ... '{z}'] ({n} total)" */
  etk_strbuf_printf(b, "['%s', '%s' ... '%s'] (%zu total)", l->op_types[0],
                    l->op_types[1], l->op_types[l->op_type_count - 1],
                    l->op_type_count);
  etk_cell_set_text(out, b->data, b->len);
}

static void dict_cell(const etk_inspector_event_link_t *l, int module,
                      etk_strbuf_t *b) {
  etk_strbuf_appendc(b, '{');
  for (size_t i = 0; i < l->node_count; i++) {
    const etk_inspector_link_node_t *nd = &l->nodes[i];
    if (i) etk_strbuf_append(b, ", ", 2);
    etk_pyrepr_str(b, nd->name, strlen(nd->name));
    etk_strbuf_append(b, ": ", 2);
    const char *v = module ? nd->module_hierarchy : nd->stack_trace;
    if (v)
      etk_pyrepr_str(b, v, strlen(v));
    else
      etk_strbuf_appends(b, "None");
  }
  etk_strbuf_appendc(b, '}');
}

/* Out of line, so that event_cell stays a leaf that needs no stack. */
#if defined(__GNUC__)
#define COLD_PATH __attribute__((noinline))
#else
#define COLD_PATH
#endif

/* Loads `row` into the row cache: its block, signature, name, block name;
 * statistics on demand (row_stats). */
COLD_PATH static void row_load(plan_t *p, size_t row) {
  etk_inspector_t *insp = p->insp;
  uint32_t e = p->rows[row];
  p->cached = 1;
  p->cached_row = row;
  p->row_block = insp_block_of(insp, e);
  p->row_sig = insp_event_at(insp, e);
  p->row_name =
      insp_event_name(insp, &p->row_sig, p->row_name_buf, &p->row_name_len);
  p->row_delegated = insp_event_is_delegated(&p->row_sig);
  if (p->name_block != p->row_block + 1) {
    p->block_name =
        etk_etdump_string(insp->dump, insp->blocks[p->row_block].name_id);
    p->name_block = p->row_block + 1;
  }
  p->stats_done = 0;
  p->row_start_known = 0;
}

static inline void row_enter(plan_t *p, size_t row) {
  if (!p->cached || p->cached_row != row) row_load(p, row);
}

COLD_PATH static void row_stats(plan_t *p) {
  /* a one-run block's start time is kept for its start_time cell */
  int one = p->insp->blocks[p->row_block].run_count == 1;
  int rc = insp_event_stats(p->insp, p->rows[p->cached_row], p->row_block,
                            &p->stats, one ? &p->row_start : NULL);
  p->has_stats = rc == ETK_OK;
  /* the samples were read (durations or not) unless memory ran out */
  p->row_start_known =
      one && p->row_sig.pname != INSP_NONE && rc != ETK_E_NO_MEMORY;
  p->stats_done = 1;
  p->stat_vals[0] = p->stats.p10;
  p->stat_vals[1] = p->stats.p50;
  p->stat_vals[2] = p->stats.p90;
  p->stat_vals[3] = p->stats.avg;
  p->stat_vals[4] = p->stats.min;
  p->stat_vals[5] = p->stats.max;
}

static int sample_list_cell(plan_t *p, uint32_t e, int metadata,
                            etk_strbuf_t *b) {
  etk_inspector_t *insp = p->insp;
  const insp_block_t *bk = &insp->blocks[p->row_block];
  const uint32_t *s = insp->samples + bk->sample_base +
                      (uint64_t)(e - bk->first_event) * bk->run_count;
  char num[24];
  etk_strbuf_appendc(b, '[');
  for (uint32_t j = 0; j < bk->run_count; j++) {
    if (j) etk_strbuf_append(b, ", ", 2);
    if (metadata) {
      etk_etdump_event_t de;
      etk_etdump_event_get(insp->dump, s[j], &de);
      if (de.metadata_len)
        etk_pyrepr_bytes(b, de.metadata, de.metadata_len);
      else
        etk_strbuf_append(b, "''", 2);
    } else {
      uint64_t st, en;
      if (p->row_start_known)
        st = p->row_start; /* read with the stats */
      else
        etk_etdump_event_times(insp->dump, s[j], &st, &en);
      etk_strbuf_append(b, num, etk_format_uint(st, num));
    }
  }
  etk_strbuf_appendc(b, ']');
  return ETK_OK;
}

COLD_PATH static int event_cell_other(plan_t *p, size_t row, size_t col,
                                      etk_cell_t *out, etk_strbuf_t *b);

/* A cell of the event table.  The renderer asks for a million rows of a
 * dozen cells, so the usual cells are answered here from the row cache and
 * everything else goes to event_cell_other. */
static int event_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                      etk_strbuf_t *b) {
  plan_t *p = ctx;
  row_enter(p, row);
  int c = p->cols[col];
  switch (c) {
    case COL_P10:
    case COL_P50:
    case COL_P90:
    case COL_AVG:
    case COL_MIN:
    case COL_MAX:
      if (!p->stats_done) row_stats(p);
      if (p->has_stats)
        etk_cell_set_float(out, p->stat_vals[c - COL_P10]);
      else if (p->any_perf)
        etk_cell_set_float(out, (double)NAN);
      else
        etk_cell_set_none(out);
      return ETK_OK;
    case COL_BLOCK:
      if (p->block_name.data)
        etk_cell_set_text(out, p->block_name.data, p->block_name.len);
      else
        etk_cell_set_none(out);
      return ETK_OK;
    case COL_NAME:
      etk_cell_set_text(out, p->row_name, p->row_name_len);
      return ETK_OK;
    case COL_IS_DELEGATED:
      etk_cell_set_bool(out, p->row_delegated);
      return ETK_OK;
    case COL_OP_TYPES: /* without a link: no op types, no backend */
      if (p->insp->links && p->insp->links[p->rows[row]]) break;
      etk_cell_set_object(out, "[]", 2);
      return ETK_OK;
    case COL_BACKEND:
      if (p->insp->links && p->insp->links[p->rows[row]]) break;
      etk_cell_set_none(out);
      return ETK_OK;
    case COL_START: /* one run: "[start]", the start read with the stats */
      if (!p->row_start_known) break;
      p->start_buf[0] = '[';
      {
        size_t n = 1 + etk_format_uint(p->row_start, p->start_buf + 1);
        p->start_buf[n++] = ']';
        etk_cell_set_object(out, p->start_buf, n);
      }
      return ETK_OK;
    default:
      break;
  }
  return event_cell_other(p, row, col, out, b);
}

COLD_PATH static int event_cell_other(plan_t *p, size_t row, size_t col,
                                      etk_cell_t *out, etk_strbuf_t *b) {
  etk_inspector_t *insp = p->insp;
  uint32_t e = p->rows[row];
  const insp_event_t *ev = &p->row_sig;
  int c = p->cols[col];
  etk_inspector_event_link_t link;
  switch (c) {
    case COL_RAW: {
      const insp_block_t *bk = &insp->blocks[p->row_block];
      if (insp_scratch_reserve(insp, bk->run_count ? bk->run_count : 1) !=
          ETK_OK)
        return ETK_E_NO_MEMORY;
      size_t n = insp_event_raw_in(insp, e, p->row_block, insp->scratch, NULL);
      if (n == 0) {
        etk_cell_set_none(out);
        return ETK_OK;
      }
      repr_double_list(b, insp->scratch, n);
      etk_cell_set_object(out, b->data, b->len);
      return ETK_OK;
    }
    case COL_OP_TYPES:
      if (!insp->links || !insp->links[e]) {
        etk_cell_set_object(out, "[]", 2); /* no link: no op types */
        return ETK_OK;
      }
      etk_inspector_event_link(insp, e, &link);
      op_types_cell(&link, out, b);
      return ETK_OK;
    case COL_DELEGATE_ID:
      if (ev->dint != -1) {
        etk_cell_set_int(out, ev->dint);
      } else if (ev->dstr != ETK_ETDUMP_STR_ABSENT) {
        etk_etdump_str_t s = etk_etdump_string(insp->dump, ev->dstr);
        etk_cell_set_text(out, s.data, s.len);
      } else {
        etk_cell_set_none(out);
      }
      return ETK_OK;
    case COL_STACK:
    case COL_MODULE:
      etk_inspector_event_link(insp, e, &link);
      dict_cell(&link, c == COL_MODULE, b);
      etk_cell_set_object(out, b->data, b->len);
      return ETK_OK;
    case COL_BACKEND:
      if (!insp->links || !insp->links[e]) {
        etk_cell_set_none(out);
        return ETK_OK;
      }
      etk_inspector_event_link(insp, e, &link);
      if (link.delegate_backend_name)
        etk_cell_set_text(out, link.delegate_backend_name,
                          strlen(link.delegate_backend_name));
      else
        etk_cell_set_none(out);
      return ETK_OK;
    case COL_DEBUG: {
      const insp_debug_t *dd = insp_debug_of(insp, e);
      etk_strbuf_appendc(b, '[');
      for (uint32_t k = 0; dd && k < dd->count; k++) {
        if (k) etk_strbuf_append(b, ", ", 2);
        insp_value_text(b, insp->dump, insp->debug_refs[dd->first + k],
                        insp->options.debug_buffer,
                        insp->options.debug_buffer_len);
      }
      etk_strbuf_appendc(b, ']');
      etk_cell_set_object(out, b->data, b->len);
      return ETK_OK;
    }
    case COL_START:
      if (ev->pname == INSP_NONE) {
        etk_cell_set_none(out);
        return ETK_OK;
      }
      sample_list_cell(p, e, 0, b);
      etk_cell_set_object(out, b->data, b->len);
      return ETK_OK;
    case COL_SOURCE:
      if (insp_event_source_text(insp, e, p->o->full_paths, b))
        etk_cell_set_text(out, b->data, b->len);
      else
        etk_cell_set_none(out);
      return ETK_OK;
    case COL_EVENT_MODULE: {
      const etk_inspector_module_t *path;
      size_t depth;
      if (!etk_inspector_event_has_modules(insp, e) ||
          etk_inspector_event_module(insp, e, &path, &depth) != ETK_OK)
        etk_cell_set_none(out);
      else if (depth == 0)
        etk_cell_set_text(out, "(root)", 6);
      else
        etk_cell_set_text(out, path[depth - 1].normalized,
                          strlen(path[depth - 1].normalized));
      return ETK_OK;
    }
    case COL_HANDLES:
      etk_inspector_event_link(insp, e, &link);
      if (!link.has_debug_handles) {
        etk_cell_set_none(out);
      } else if (!link.debug_handles_is_list && link.debug_handle_count == 1) {
        etk_cell_set_int(out, link.debug_handles[0]);
      } else {
        char num[24];
        etk_strbuf_appendc(b, '[');
        for (size_t k = 0; k < link.debug_handle_count; k++) {
          if (k) etk_strbuf_append(b, ", ", 2);
          etk_strbuf_append(b, num, etk_format_int(link.debug_handles[k], num));
        }
        etk_strbuf_appendc(b, ']');
        etk_cell_set_object(out, b->data, b->len);
      }
      return ETK_OK;
    case COL_NUM_OUTPUTS:
      etk_inspector_event_link(insp, e, &link);
      etk_cell_set_int(out, link.num_outputs);
      return ETK_OK;
    case COL_METADATA:
      if (!insp_event_has_metadata(insp, e)) {
        etk_cell_set_float(out, (double)NAN);
        return ETK_OK;
      }
      sample_list_cell(p, e, 1, b);
      etk_cell_set_object(out, b->data, b->len);
      return ETK_OK;
    default:
      etk_cell_set_none(out);
      return ETK_OK;
  }
}

static void add_col(plan_t *p, int c) {
  size_t i = p->ncols++;
  p->cols[i] = c;
  if (col_is_stat(c) && p->o->include_units) {
    snprintf(p->header_buf[i], sizeof p->header_buf[i], "%s (%s)", col_base[c],
             etk_time_scale_name(p->insp->options.target_time_scale));
    p->headers[i] = p->header_buf[i];
  } else {
    p->headers[i] = col_base[c];
  }
}

static void event_columns(plan_t *p, int all) {
  add_col(p, COL_BLOCK);
  add_col(p, COL_NAME);
  if (all) add_col(p, COL_RAW);
  for (int c = COL_P10; c <= COL_MAX; c++) add_col(p, c);
  add_col(p, COL_OP_TYPES);
  unsigned extra = p->o->columns;
  if (extra & ETK_INSPECT_COLUMN_SOURCE) add_col(p, COL_SOURCE);
  if (extra & ETK_INSPECT_COLUMN_MODULE) add_col(p, COL_EVENT_MODULE);
  if (extra & ETK_INSPECT_COLUMN_DEBUG_HANDLES) add_col(p, COL_HANDLES);
  if (extra & ETK_INSPECT_COLUMN_NUM_OUTPUTS) add_col(p, COL_NUM_OUTPUTS);
  if (all) {
    add_col(p, COL_DELEGATE_ID);
    /* the table shows the source column instead of raw stack traces */
    if (!(p->o->format == ETK_INSPECT_FORMAT_TABLE &&
          (extra & ETK_INSPECT_COLUMN_SOURCE)))
      add_col(p, COL_STACK);
    add_col(p, COL_MODULE);
  }
  add_col(p, COL_IS_DELEGATED);
  add_col(p, COL_BACKEND);
  if (all) add_col(p, COL_DEBUG);
  add_col(p, COL_START);
  if (p->metadata_col) add_col(p, COL_METADATA);
}

static int emit_frame(const etk_frame_t *f, etk_inspect_format_t fmt,
                      etk_render_sink_t *sink, etk_error_t *err) {
  if (fmt == ETK_INSPECT_FORMAT_TABLE) return etk_render_table(f, sink, err);
  return etk_render_delimited(f, fmt == ETK_INSPECT_FORMAT_CSV ? ',' : '\t',
                              sink, err);
}

/* ------------------------------------------------------- summary */

typedef struct sum_row {
  uint32_t block;
  int kind;  /* 0 op, 1 framework overhead, 2 method, 3 delegate overhead */
  char *key; /* op type (owned, in keys buffer offsets) */
  size_t key_off, key_len;
  uint64_t count;
  double total;
} sum_row_t;

typedef struct summary {
  plan_t *p;
  sum_row_t *rows;
  size_t nrows, cap;
  etk_strbuf_t keys;
  double *method_time; /* per block, NaN when none */
  const char **method_name;
  char header_buf[2][48];
  const char *headers[6];
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
                   size_t len, double v, uint64_t count) {
  if ((s->nrows + 1) * 2 > s->slot_cap && sum_slots_grow(s) != ETK_OK)
    return ETK_E_NO_MEMORY;
  size_t i = (size_t)sum_hash(block, kind, key, len) & (s->slot_cap - 1);
  for (; s->slots[i]; i = (i + 1) & (s->slot_cap - 1)) {
    sum_row_t *r = &s->rows[s->slots[i] - 1];
    if (r->block == block && r->kind == kind && r->key_len == len &&
        memcmp(s->keys.data + r->key_off, key, len) == 0) {
      r->total += v;
      r->count += count;
      return ETK_OK;
    }
  }
  if (s->nrows >= UINT32_MAX - 1) return ETK_E_LIMIT;
  s->slots[i] = (uint32_t)s->nrows + 1;
  if (s->nrows == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    sum_row_t *q = realloc(s->rows, cap * sizeof *q);
    if (!q) return ETK_E_NO_MEMORY;
    s->rows = q;
    s->cap = cap;
  }
  sum_row_t *r = &s->rows[s->nrows++];
  r->block = block;
  r->kind = kind;
  r->key_off = s->keys.len;
  r->key_len = len;
  etk_strbuf_append(&s->keys, key, len);
  if (s->keys.failed) return ETK_E_NO_MEMORY;
  r->total = v;
  r->count = count;
  return ETK_OK;
}

static int is_name(const char *s, size_t n, const char *lit) {
  return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

static int sum_sort_desc;
static etk_inspect_sort_t sum_sort_key;
static const char *sum_keys;
static int cmp_sum(const void *a, const void *b) {
  const sum_row_t *x = a, *y = b;
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

static int render_summary(plan_t *p, etk_render_sink_t *sink,
                          etk_error_t *err) {
  etk_inspector_t *insp = p->insp;
  const etk_inspector_render_options_t *o = p->o;
  summary_t s;
  memset(&s, 0, sizeof s);
  s.p = p;
  int rc = ETK_OK;
  s.method_time =
      malloc((insp->block_count ? insp->block_count : 1) * sizeof(double));
  s.method_name =
      calloc(insp->block_count ? insp->block_count : 1, sizeof(char *));
  int32_t *inner = NULL;   /* sorted ids of instructions with delegated ops */
  int32_t *wrapped = NULL; /* ids of the wrapping DELEGATE_CALLs */
  size_t inner_count = 0, wrapped_count = 0;
  if (!s.method_time || !s.method_name) rc = ETK_E_NO_MEMORY;
  char buf[32];
  for (size_t bi = 0; bi < insp->block_count && rc == ETK_OK; bi++) {
    s.method_time[bi] = (double)NAN;
    if (!p->selected[bi]) continue;
    const insp_block_t *bk = &insp->blocks[bi];
    size_t block_start = s.nrows;
    /* instructions with delegated per-op events: their DELEGATE_CALL wraps */
    /* a list sized by the block's events, never by the ids the file
     * declares (an id near 2^31 would otherwise cost gigabytes) */
    free(inner);
    free(wrapped);
    inner = malloc((bk->event_count ? bk->event_count : 1) * sizeof *inner);
    wrapped = malloc((bk->event_count ? bk->event_count : 1) * sizeof *inner);
    inner_count = wrapped_count = 0;
    if (!inner || !wrapped) {
      rc = ETK_E_NO_MEMORY;
      break;
    }
    for (uint32_t e = bk->first_event; e < bk->first_event + bk->event_count;
         e++) {
      insp_event_t ev = insp_event_at(insp, e);
      if (insp_event_is_delegated(&ev) && ev.iid >= 0 && ev.pname != INSP_NONE)
        inner[inner_count++] = ev.iid;
    }
    qsort(inner, inner_count, sizeof *inner, cmp_i32);
    double load_time = (double)NAN, ops_total = 0, delegate_total = 0;
    for (uint32_t e = bk->first_event;
         e < bk->first_event + bk->event_count && rc == ETK_OK; e++) {
      const insp_event_t evs = insp_event_at(insp, e), *ev = &evs;
      etk_stats_t st;
      if (etk_inspector_event_stats(insp, e, &st) != ETK_OK) continue;
      size_t len;
      const char *name = insp_event_name(insp, ev, buf, &len);
      int delegated = insp_event_is_delegated(ev);
      if (!delegated && is_name(name, len, "OPERATOR_CALL")) continue;
      if (!delegated && is_name(name, len, "Method::execute")) {
        if (s.method_time[bi] != s.method_time[bi]) {
          s.method_time[bi] = st.avg;
          s.method_name[bi] = "Method::execute";
        }
        continue;
      }
      if (!delegated && is_name(name, len, "Program::load_method")) {
        if (load_time != load_time) load_time = st.avg;
        continue;
      }
      if (!delegated && is_name(name, len, "DELEGATE_CALL") && ev->iid >= 0 &&
          bsearch(&ev->iid, inner, inner_count, sizeof *inner, cmp_i32)) {
        wrapped[wrapped_count++] = ev->iid;
        delegate_total += st.avg;
        continue;
      }
      const char *key;
      size_t klen;
      op_key(insp, e, buf, &key, &klen);
      rc = sum_add(&s, (uint32_t)bi, 0, key, klen, st.avg, 1);
      ops_total += st.avg;
    }
    if (rc != ETK_OK) break;
    if (wrapped_count)
      delegate_total -= delegated_inside(insp, bk, wrapped, wrapped_count);
    if (s.method_time[bi] != s.method_time[bi] && load_time == load_time) {
      s.method_time[bi] = load_time;
      s.method_name[bi] = "Program::load_method";
    }
    /* sort this block's op rows, then --top */
    sum_sort_key =
        o->sort == ETK_INSPECT_SORT_NONE ? ETK_INSPECT_SORT_TOTAL : o->sort;
    sum_sort_desc = sum_sort_key == ETK_INSPECT_SORT_NAME ? o->reverse != 0
                                                          : o->reverse == 0;
    sum_keys = s.keys.data;
    if (s.nrows > block_start)
      qsort(s.rows + block_start, s.nrows - block_start, sizeof *s.rows,
            cmp_sum);
    if (o->top && s.nrows - block_start > o->top)
      s.nrows = block_start + o->top;
    if (s.method_time[bi] == s.method_time[bi]) {
      if (wrapped_count)
        rc = sum_add(&s, (uint32_t)bi, 3, "delegate overhead", 17,
                     delegate_total, wrapped_count);
      if (rc == ETK_OK)
        rc = sum_add(&s, (uint32_t)bi, 1, "framework overhead", 18,
                     s.method_time[bi] - ops_total - delegate_total, 0);
      if (rc == ETK_OK)
        rc = sum_add(&s, (uint32_t)bi, 2, s.method_name[bi],
                     strlen(s.method_name[bi]), s.method_time[bi], 1);
    }
  }
  free(inner);
  free(wrapped);
  if (rc == ETK_OK && s.keys.failed) rc = ETK_E_NO_MEMORY;
  if (rc == ETK_OK) {
    const char *unit = etk_time_scale_name(insp->options.target_time_scale);
    const char *units[2] = {unit, unit};
    double sec = etk_seconds_per_unit(unit);
    if (o->format == ETK_INSPECT_FORMAT_TABLE && o->include_units && sec > 0) {
      /* etkit's own view: a readable unit per duration column */
      double max[2] = {0, 0};
      for (size_t i = 0; i < s.nrows; i++) {
        const sum_row_t *r = &s.rows[i];
        if (fabs(r->total) > max[0]) max[0] = fabs(r->total);
        if (r->count && fabs(r->total / (double)r->count) > max[1])
          max[1] = fabs(r->total / (double)r->count);
      }
      for (int c = 0; c < 2; c++) {
        double per_second;
        units[c] = etk_duration_unit(max[c] * sec, &per_second);
        s.scale[c] = sec * per_second;
      }
      s.round_percent = 1;
    }
    snprintf(s.header_buf[0], sizeof s.header_buf[0],
             o->include_units ? "total (%s)" : "total", units[0]);
    snprintf(s.header_buf[1], sizeof s.header_buf[1],
             o->include_units ? "avg (%s)" : "avg", units[1]);
    s.headers[0] = "event_block_name";
    s.headers[1] = "op_type";
    s.headers[2] = "count";
    s.headers[3] = s.header_buf[0];
    s.headers[4] = s.header_buf[1];
    s.headers[5] = "% of method";
    if (o->format == ETK_INSPECT_FORMAT_JSON) {
      etk_json_t j;
      etk_json_init(&j, sink, o->json_indent);
      etk_json_begin_object(&j);
      etk_json_key(&j, "target_time_scale");
      etk_json_cstring(&j, unit);
      etk_json_key(&j, "summary");
      etk_json_begin_array(&j);
      for (size_t i = 0; i < s.nrows; i++) {
        const sum_row_t *r = &s.rows[i];
        etk_json_begin_object(&j);
        etk_json_key(&j, "event_block_index");
        etk_json_uint(&j, r->block);
        etk_json_key(&j, "kind");
        etk_json_cstring(&j, r->kind == 0   ? "operator"
                             : r->kind == 1 ? "framework_overhead"
                             : r->kind == 3 ? "delegate_overhead"
                                            : "method");
        for (size_t c = 0; c < 6; c++) {
          etk_cell_t cell;
          memset(&cell, 0, sizeof cell);
          summary_cell(&s, i, c, &cell, NULL);
          etk_json_key(&j, s.headers[c]);
          switch (cell.kind) {
            case ETK_CELL_TEXT:
              etk_json_string(&j, cell.text, cell.len);
              break;
            case ETK_CELL_INT:
              etk_json_int(&j, cell.i);
              break;
            case ETK_CELL_FLOAT:
              etk_json_double(&j, cell.f);
              break;
            default:
              etk_json_null(&j);
              break;
          }
        }
        etk_json_end_object(&j);
      }
      etk_json_end_array(&j);
      etk_json_end_object(&j);
      rc = etk_json_finish(&j);
    } else {
      etk_frame_t f = {s.nrows, 6, s.headers, summary_cell, &s, 1};
      rc = emit_frame(&f, o->format, sink, err);
    }
  }
  free(s.rows);
  free(s.slots);
  etk_strbuf_free(&s.keys);
  free(s.method_time);
  free(s.method_name);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "rendering the summary failed: %s", etk_strerror(rc));
  return ETK_OK;
}

/* ------------------------------------------------------- allocations */

typedef struct alloc_view {
  etk_inspector_t *insp;
  uint32_t *rows;
  size_t nrows;
} alloc_view_t;

static int alloc_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                      etk_strbuf_t *b) {
  alloc_view_t *v = ctx;
  (void)b;
  etk_inspector_allocator_t a;
  etk_inspector_allocator_get(v->insp, v->rows[row], &a);
  switch (col) {
    case 0:
      etk_cell_set_text(out, a.run_name, strlen(a.run_name));
      break;
    case 1:
      if (a.name)
        etk_cell_set_text(out, a.name, strlen(a.name));
      else
        etk_cell_set_none(out);
      break;
    case 2:
      etk_cell_set_int(out, a.allocator_id);
      break;
    case 3:
      etk_cell_set_int(out, (int64_t)a.count);
      break;
    case 4:
      etk_cell_set_int(out, (int64_t)a.total_bytes);
      break;
    case 5:
      etk_cell_set_int(out, (int64_t)a.max_bytes);
      break;
    default:
      etk_cell_set_int(out, (int64_t)a.runs);
      break;
  }
  return ETK_OK;
}

static const char *const alloc_headers[] = {
    "event_block_name", "allocator", "allocator_id", "count",
    "total_bytes",      "max_bytes", "runs"};

static void allocations_json(etk_json_t *j, etk_inspector_t *insp) {
  etk_json_begin_array(j);
  for (size_t i = 0; i < insp->alloc_count; i++) {
    etk_inspector_allocator_t a;
    etk_inspector_allocator_get(insp, i, &a);
    etk_json_begin_object(j);
    etk_json_key(j, "event_block_name");
    etk_json_cstring(j, a.run_name);
    etk_json_key(j, "allocator");
    etk_json_cstring(j, a.name);
    etk_json_key(j, "allocator_id");
    etk_json_int(j, a.allocator_id);
    etk_json_key(j, "count");
    etk_json_uint(j, a.count);
    etk_json_key(j, "total_bytes");
    etk_json_uint(j, a.total_bytes);
    etk_json_key(j, "max_bytes");
    etk_json_uint(j, a.max_bytes);
    etk_json_key(j, "runs");
    etk_json_uint(j, a.runs);
    etk_json_end_object(j);
  }
  etk_json_end_array(j);
}

static int render_allocations(plan_t *p, etk_render_sink_t *sink,
                              etk_error_t *err) {
  etk_inspector_t *insp = p->insp;
  if (p->o->format == ETK_INSPECT_FORMAT_JSON) {
    etk_json_t j;
    etk_json_init(&j, sink, p->o->json_indent);
    etk_json_begin_object(&j);
    etk_json_key(&j, "allocations");
    allocations_json(&j, insp);
    etk_json_end_object(&j);
    int rc = etk_json_finish(&j);
    return rc == ETK_OK
               ? rc
               : etk_error_set(err, rc, ETK_NO_OFFSET, "writing JSON failed");
  }
  alloc_view_t v = {insp, NULL, 0};
  v.rows = malloc((insp->alloc_count ? insp->alloc_count : 1) * sizeof *v.rows);
  if (!v.rows)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < insp->alloc_count; i++)
    v.rows[v.nrows++] = (uint32_t)i;
  if (p->o->top && p->o->top < v.nrows) v.nrows = p->o->top;
  etk_frame_t f = {v.nrows, 7, alloc_headers, alloc_cell, &v, 1};
  int rc = emit_frame(&f, p->o->format, sink, err);
  free(v.rows);
  return rc;
}

/* ------------------------------------------------------- JSON events */

/* The keys of the JSON events, checked and quoted once per document
 * rather than once per event: the six statistic keys ("p10 (ms)", ...,
 * formatted with the unit) and the fixed column names. */
enum {
  JK_BLOCK_INDEX,
  JK_BLOCK_NAME,
  JK_EVENT_NAME,
  JK_RAW,
  JK_OP_TYPES,
  JK_DELEGATE_ID,
  JK_STACK,
  JK_MODULE,
  JK_IS_DELEGATED,
  JK_BACKEND,
  JK_DEBUG,
  JK_START,
  JK_METADATA,
  JK_IID,
  JK_HANDLES,
  JK_NUM_OUTPUTS,
  JK_COUNT
};
static const char *const json_event_keys[JK_COUNT] = {
    "event_block_index",
    "event_block_name",
    "event_name",
    "raw",
    "op_types",
    "delegate_debug_identifier",
    "stack_traces",
    "module_hierarchy",
    "is_delegated_op",
    "delegate_backend_name",
    "debug_data",
    "start_time",
    "delegate_debug_metadata",
    "instruction_id",
    "debug_handles",
    "num_outputs"};

typedef struct json_keys {
  char text[6][48];
  etk_json_prepared_key_t stat[6];
  etk_json_prepared_key_t key[JK_COUNT];
} json_keys_t;

static void json_keys_init(json_keys_t *k, const plan_t *p,
                           const etk_json_t *j) {
  static const char *const names[6] = {"p10", "p50", "p90",
                                       "avg", "min", "max"};
  for (int i = 0; i < 6; i++) {
    if (p->o->include_units)
      snprintf(k->text[i], sizeof k->text[i], "%s (%s)", names[i],
               etk_time_scale_name(p->insp->options.target_time_scale));
    else
      snprintf(k->text[i], sizeof k->text[i], "%s", names[i]);
    etk_json_key_prepare(j, k->text[i], &k->stat[i]);
  }
  for (int i = 0; i < JK_COUNT; i++)
    etk_json_key_prepare(j, json_event_keys[i], &k->key[i]);
}

static void json_stats(etk_json_t *j, const json_keys_t *k, int has,
                       const etk_stats_t *st) {
  const double v[6] = {st->p10, st->p50, st->p90, st->avg, st->min, st->max};
  for (int i = 0; i < 6; i++) {
    etk_json_key_prepared(j, &k->stat[i]);
    if (has)
      etk_json_double(j, v[i]);
    else
      etk_json_null(j);
  }
}

static void json_hex(etk_json_t *j, const uint8_t *d, size_t n) {
  static const char hex[] = "0123456789abcdef";
  char tmp[128];
  etk_strbuf_t b;
  etk_strbuf_init(&b);
  for (size_t i = 0; i < n; i++) {
    tmp[0] = hex[d[i] >> 4];
    tmp[1] = hex[d[i] & 15];
    etk_strbuf_append(&b, tmp, 2);
  }
  etk_json_string(j, b.data ? b.data : "", b.len);
  etk_strbuf_free(&b);
}

static int render_json(plan_t *p, etk_render_sink_t *sink, etk_error_t *err) {
  etk_inspector_t *insp = p->insp;
  const etk_inspector_render_options_t *o = p->o;
  etk_json_t j;
  etk_json_init(&j, sink, o->json_indent);
  etk_json_begin_object(&j);
  etk_json_key(&j, "source_time_scale");
  etk_json_cstring(&j, etk_time_scale_name(insp->options.source_time_scale));
  etk_json_key(&j, "target_time_scale");
  etk_json_cstring(&j, etk_time_scale_name(insp->options.target_time_scale));
  etk_json_key(&j, "scale_factor");
  etk_json_double(&j, insp->factor);
  etk_json_key(&j, "blocks");
  etk_json_begin_array(&j);
  for (size_t b = 0; b < insp->block_count; b++) {
    if (!p->selected[b]) continue;
    etk_inspector_block_t blk;
    etk_inspector_block_get(insp, b, &blk);
    etk_json_begin_object(&j);
    etk_json_key(&j, "index");
    etk_json_uint(&j, b);
    etk_json_key(&j, "event_block_name");
    if (blk.name_present)
      etk_json_string(&j, blk.name, blk.name_len);
    else
      etk_json_null(&j);
    etk_json_key(&j, "bundled_input_index");
    etk_json_int(&j, blk.bundled_input_index);
    etk_json_key(&j, "event_count");
    etk_json_uint(&j, blk.event_count);
    etk_json_key(&j, "runs");
    etk_json_begin_array(&j);
    for (size_t r = 0; r < blk.run_count; r++) etk_json_uint(&j, blk.runs[r]);
    etk_json_end_array(&j);
    etk_json_key(&j, "run_output");
    etk_json_begin_array(&j);
    for (size_t k = 0; k < blk.output_count; k++)
      insp_value_json(&j, insp->dump, blk.outputs[k],
                      insp->options.debug_buffer,
                      insp->options.debug_buffer_len, 0);
    etk_json_end_array(&j);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);

  etk_json_key(&j, "events");
  etk_json_begin_array(&j);
  json_keys_t *keys = malloc(sizeof *keys);
  if (!keys)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  json_keys_init(keys, p, &j);
  etk_strbuf_t tmp;
  etk_strbuf_init(&tmp);
  for (size_t r = 0;
       r < p->nrows && j.status == ETK_OK && sink->status == ETK_OK; r++) {
    uint32_t e = p->rows[r];
    const insp_event_t evs = insp_event_at(insp, e), *ev = &evs;
    size_t bi = insp_block_of(insp, e);
    const insp_block_t *bk = &insp->blocks[bi];
    etk_inspector_event_link_t link;
    etk_inspector_event_link(insp, e, &link);
    etk_json_begin_object(&j);
    etk_json_key_prepared(&j, &keys->key[JK_BLOCK_INDEX]);
    etk_json_uint(&j, bi);
    etk_json_key_prepared(&j, &keys->key[JK_BLOCK_NAME]);
    etk_etdump_str_t bn = etk_etdump_string(insp->dump, bk->name_id);
    if (bn.data)
      etk_json_string(&j, bn.data, bn.len);
    else
      etk_json_null(&j);
    size_t nlen;
    const char *name = insp_event_name(insp, ev, p->name_buf, &nlen);
    etk_json_key_prepared(&j, &keys->key[JK_EVENT_NAME]);
    etk_json_string(&j, name, nlen);
    if (insp_scratch_reserve(insp, bk->run_count ? bk->run_count : 1) !=
        ETK_OK) {
      etk_strbuf_free(&tmp);
      free(keys);
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    }
    size_t n = insp_event_raw(insp, e, insp->scratch);
    etk_json_key_prepared(&j, &keys->key[JK_RAW]);
    if (n) {
      etk_json_begin_array(&j);
      for (size_t k = 0; k < n; k++) etk_json_double(&j, insp->scratch[k]);
      etk_json_end_array(&j);
    } else {
      etk_json_null(&j);
    }
    etk_stats_t st;
    memset(&st, 0, sizeof st);
    int has = n > 0 && etk_stats_compute(insp->scratch, n,
                                         insp->scratch + insp->scratch_cap,
                                         &st) == ETK_OK;
    json_stats(&j, keys, has, &st);
    etk_json_key_prepared(&j, &keys->key[JK_OP_TYPES]);
    etk_json_begin_array(&j);
    for (size_t k = 0; k < link.op_type_count; k++)
      etk_json_cstring(&j, link.op_types[k]);
    etk_json_end_array(&j);
    etk_json_key_prepared(&j, &keys->key[JK_DELEGATE_ID]);
    if (ev->dint != -1) {
      etk_json_int(&j, ev->dint);
    } else if (ev->dstr != ETK_ETDUMP_STR_ABSENT) {
      etk_etdump_str_t s = etk_etdump_string(insp->dump, ev->dstr);
      etk_json_string(&j, s.data, s.len);
    } else {
      etk_json_null(&j);
    }
    for (int mod = 0; mod < 2; mod++) {
      etk_json_key_prepared(&j, &keys->key[mod ? JK_MODULE : JK_STACK]);
      etk_json_begin_object(&j);
      for (size_t k = 0; k < link.node_count; k++) {
        etk_json_key(&j, link.nodes[k].name);
        etk_json_cstring(&j, mod ? link.nodes[k].module_hierarchy
                                 : link.nodes[k].stack_trace);
      }
      etk_json_end_object(&j);
    }
    etk_json_key_prepared(&j, &keys->key[JK_IS_DELEGATED]);
    etk_json_bool(&j, insp_event_is_delegated(ev));
    etk_json_key_prepared(&j, &keys->key[JK_BACKEND]);
    etk_json_cstring(&j, link.delegate_backend_name);
    etk_json_key_prepared(&j, &keys->key[JK_DEBUG]);
    etk_json_begin_array(&j);
    const insp_debug_t *dd = insp_debug_of(insp, e);
    for (uint32_t k = 0; dd && k < dd->count; k++)
      insp_value_json(&j, insp->dump, insp->debug_refs[dd->first + k],
                      insp->options.debug_buffer,
                      insp->options.debug_buffer_len, 0);
    etk_json_end_array(&j);
    etk_json_key_prepared(&j, &keys->key[JK_START]);
    const uint32_t *s = insp->samples + bk->sample_base +
                        (uint64_t)(e - bk->first_event) * bk->run_count;
    if (ev->pname == INSP_NONE) {
      etk_json_null(&j);
    } else {
      etk_json_begin_array(&j);
      for (uint32_t k = 0; k < bk->run_count; k++) {
        uint64_t st0, en0;
        etk_etdump_event_times(insp->dump, s[k], &st0, &en0);
        etk_json_uint(&j, st0);
      }
      etk_json_end_array(&j);
    }
    etk_json_key_prepared(&j, &keys->key[JK_METADATA]);
    etk_json_begin_array(&j);
    if (ev->pname != INSP_NONE && insp_event_has_metadata(insp, e)) {
      for (uint32_t k = 0; k < bk->run_count; k++) {
        etk_etdump_event_t de;
        etk_etdump_event_get(insp->dump, s[k], &de);
        json_hex(&j, de.metadata, de.metadata_len);
      }
    }
    etk_json_end_array(&j);
    etk_json_key_prepared(&j, &keys->key[JK_IID]);
    etk_json_int(&j, ev->iid);
    etk_json_key_prepared(&j, &keys->key[JK_HANDLES]);
    if (!link.has_debug_handles) {
      etk_json_null(&j);
    } else if (!link.debug_handles_is_list && link.debug_handle_count == 1) {
      etk_json_int(&j, link.debug_handles[0]);
    } else {
      etk_json_begin_array(&j);
      for (size_t k = 0; k < link.debug_handle_count; k++)
        etk_json_int(&j, link.debug_handles[k]);
      etk_json_end_array(&j);
    }
    etk_json_key_prepared(&j, &keys->key[JK_NUM_OUTPUTS]);
    etk_json_int(&j, link.num_outputs);
    if (o->columns & (ETK_INSPECT_COLUMN_SOURCE | ETK_INSPECT_COLUMN_MODULE)) {
      /* the same cells as the table's extra columns */
      static const int extra_cols[2] = {COL_SOURCE, COL_EVENT_MODULE};
      static const unsigned extra_bits[2] = {ETK_INSPECT_COLUMN_SOURCE,
                                             ETK_INSPECT_COLUMN_MODULE};
      for (int k = 0; k < 2; k++) {
        if (!(o->columns & extra_bits[k])) continue;
        etk_cell_t cell;
        memset(&cell, 0, sizeof cell);
        etk_strbuf_clear(&tmp);
        p->cols[0] = extra_cols[k]; /* JSON uses no column plan */
        event_cell(p, r, 0, &cell, &tmp);
        etk_json_key(&j, col_base[extra_cols[k]]);
        if (cell.kind == ETK_CELL_TEXT)
          etk_json_string(&j, cell.text, cell.len);
        else
          etk_json_null(&j);
      }
    }
    etk_json_end_object(&j);
  }
  etk_strbuf_free(&tmp);
  free(keys);
  etk_json_end_array(&j);
  etk_json_key(&j, "allocations");
  allocations_json(&j, insp);
  etk_json_key(&j, "debug_data_mismatches");
  etk_json_uint(&j, insp->debug_mismatches);
  etk_json_end_object(&j);
  int rc = etk_json_finish(&j);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "writing JSON failed: %s",
                         etk_strerror(rc));
  return ETK_OK;
}

/* ------------------------------------------------------- entry point */

int etk_inspector_render(etk_inspector_t *insp,
                         const etk_inspector_render_options_t *options,
                         etk_render_sink_t *sink, etk_error_t *err) {
  if (!insp || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_inspector_render: NULL argument");
  etk_inspector_render_options_t defaults;
  if (!options) {
    etk_inspector_render_options_init(&defaults);
    options = &defaults;
  }
  plan_t p;
  memset(&p, 0, sizeof p);
  p.insp = insp;
  p.o = options;
  int rc;
  if (options->view == ETK_INSPECT_VIEW_ALLOCATIONS) {
    rc = render_allocations(&p, sink, err);
    plan_free(&p);
    return rc;
  }
  rc = select_blocks(&p, err);
  if (rc == ETK_OK && options->view == ETK_INSPECT_VIEW_MODULES) {
    rc = insp_render_modules(insp, options, p.selected, sink, err);
    plan_free(&p);
    return rc;
  }
  if (rc == ETK_OK && options->view == ETK_INSPECT_VIEW_SUMMARY) {
    rc = render_summary(&p, sink, err);
    plan_free(&p);
    return rc;
  }
  int json = options->format == ETK_INSPECT_FORMAT_JSON;
  if (rc == ETK_OK) rc = build_rows(&p, !json && !options->all_rows, err);
  if (rc == ETK_OK) {
    if (json) {
      rc = render_json(&p, sink, err);
    } else {
      event_columns(&p, options->all_columns);
      etk_frame_t f = {p.nrows, p.ncols, p.headers, event_cell, &p, 1};
      rc = emit_frame(&f, options->format, sink, err);
    }
  }
  plan_free(&p);
  return rc;
}
