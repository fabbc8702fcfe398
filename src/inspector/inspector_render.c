/*
 * inspector_render.c - the Inspector's tables: upstream's DataFrame columns
 * streamed into the etkit_render formats and the allocation report.  The
 * per-operator-type summary is inspector_summary.c, the JSON document
 * inspector_render_json.c, the cells every view asks for
 * inspector_cells.c; render_plan.h is what they share.
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
 * ETRECORD COLUMNS AND THE MODULE VIEW (etkit)
 *   options->columns adds source / module / debug_handles / num_outputs
 *   after op_types (event_origins.c computes the cells); the module view is
 *   module_tree.c.  With columns 0 nothing here changes upstream's output.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "render_plan.h"
#include "values_text.h"

/* ------------------------------------------------------- columns */

static int col_is_stat(int c) {
  return c >= COL_P10 && c <= COL_MAX;
}

/* ------------------------------------------------------- plan */

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

/* Comparators of etk_sort_r: ctx points to an int, 1 for descending. */
static int cmp_num(const void *a, const void *b, void *ctx) {
  const sort_item_t *x = a, *y = b;
  int sort_desc = *(const int *)ctx;
  int xn = x->key != x->key, yn = y->key != y->key;
  if (xn != yn) return xn - yn; /* missing values last */
  if (!xn && x->key != y->key)
    return sort_desc ? (x->key < y->key ? 1 : -1) : (x->key < y->key ? -1 : 1);
  return (x->order > y->order) - (x->order < y->order);
}
static int cmp_name(const void *a, const void *b, void *ctx) {
  const sort_item_t *x = a, *y = b;
  int sort_desc = *(const int *)ctx;
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

/* Gives the plan its rows array (room for `cap` rows), holding the
 * consecutive rows so far. */
static int rows_materialize(plan_t *p, size_t cap) {
  if (p->rows) return ETK_OK;
  p->rows = malloc((cap ? cap : 1) * sizeof *p->rows);
  if (!p->rows) return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < p->nrows; i++)
    p->rows[i] = p->rows_first + (uint32_t)i;
  return ETK_OK;
}

/* Appends event e as the next row (room for `cap` rows in all).  While the
 * rows are consecutive events no array is kept: a million-row table of
 * every event costs no memory. */
static int rows_append(plan_t *p, uint32_t e, size_t cap) {
  if (!p->rows) {
    if (p->nrows == 0) p->rows_first = e;
    if (e == p->rows_first + p->nrows) {
      p->nrows++;
      return ETK_OK;
    }
    if (rows_materialize(p, cap) != ETK_OK) return ETK_E_NO_MEMORY;
  }
  p->rows[p->nrows++] = e;
  return ETK_OK;
}

static int build_rows(plan_t *p, int filter, etk_error_t *err) {
  etk_inspector_t *insp = p->insp;
  const etk_inspector_render_options_t *o = p->o;
  size_t n = 0;
  for (size_t b = 0; b < insp->block_count; b++)
    if (p->selected[b]) n += insp->blocks[b].event_count;
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
      if (rows_append(p, e, n) != ETK_OK)
        return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                             "out of memory");
    }
  }
  if (o->sort != ETK_INSPECT_SORT_NONE && p->nrows > 1) {
    if (rows_materialize(p, p->nrows) != ETK_OK)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
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
    int desc = names ? o->reverse != 0 : o->reverse == 0;
    bool sorted = etk_sort_r(items, p->nrows, sizeof *items,
                             names ? cmp_name : cmp_num, &desc);
    for (size_t i = 0; sorted && i < p->nrows; i++) p->rows[i] = items[i].row;
    free(items);
    free(names);
    if (!sorted)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
  }
  if (o->top && o->top < p->nrows) p->nrows = o->top;
  return ETK_OK;
}

static void plan_free(plan_t *p) {
  free(p->selected);
  free(p->rows);
  for (size_t c = 0; c < sizeof p->cell_text / sizeof p->cell_text[0]; c++)
    etk_strbuf_free(&p->cell_text[c]);
}

static void add_col(plan_t *p, int c) {
  size_t i = p->ncols++;
  p->cols[i] = c;
  if (col_is_stat(c) && p->o->include_units) {
    snprintf(p->header_buf[i], sizeof p->header_buf[i], "%s (%s)",
             insp_column_names[c],
             etk_time_scale_name(p->insp->options.target_time_scale));
    p->headers[i] = p->header_buf[i];
  } else {
    p->headers[i] = insp_column_names[c];
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

static int render_allocations(plan_t *p, etk_render_sink_t *sink,
                              etk_error_t *err) {
  etk_inspector_t *insp = p->insp;
  if (p->o->format == ETK_INSPECT_FORMAT_JSON) {
    etk_json_t j;
    etk_json_init(&j, sink, p->o->json_indent);
    etk_json_begin_object(&j);
    etk_json_key(&j, "allocations");
    insp_allocations_json(&j, insp);
    etk_json_end_object(&j);
    return etk_json_finish_or_error(&j, err);
  }
  alloc_view_t v = {insp, NULL, 0};
  v.rows = malloc((insp->alloc_count ? insp->alloc_count : 1) * sizeof *v.rows);
  if (!v.rows)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < insp->alloc_count; i++)
    v.rows[v.nrows++] = (uint32_t)i;
  if (p->o->top && p->o->top < v.nrows) v.nrows = p->o->top;
  etk_frame_t f = {v.nrows, 7, alloc_headers, alloc_cell, &v, 1};
  int rc = insp_emit_frame(&f, p->o->format, sink, err);
  free(v.rows);
  return rc;
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
    rc = insp_render_summary(&p, sink, err);
    plan_free(&p);
    return rc;
  }
  int json = options->format == ETK_INSPECT_FORMAT_JSON;
  if (rc == ETK_OK) rc = build_rows(&p, !json && !options->all_rows, err);
  if (rc == ETK_OK) {
    if (json) {
      rc = insp_render_json(&p, sink, err);
    } else {
      event_columns(&p, options->all_columns);
      etk_frame_t f = {p.nrows, p.ncols, p.headers, insp_plan_event_cell,
                       &p,      1};
      rc = insp_emit_events_frame(&f, options->format, sink, err);
    }
  }
  plan_free(&p);
  return rc;
}

/* ------------------------------------------------------- table + TSV */

/* The table's row callback writing each row as TSV the first time it is
 * computed: the measuring pass asks for rows 0, 1, ... in order, so every
 * row is written once, before the output pass asks for it again. */
typedef struct tee {
  plan_t *p;
  etk_delimited_writer_t *tsv;
  size_t next; /* the next row the TSV needs */
} tee_t;

static int tee_row(void *ctx, size_t row, etk_cell_t *cells) {
  tee_t *t = ctx;
  int rc = insp_plan_event_row(t->p, row, cells);
  if (rc != ETK_OK || row != t->next) return rc;
  t->next++;
  return etk_delimited_put_row(t->tsv, cells);
}

int etk_inspector_render_with_tsv(etk_inspector_t *insp,
                                  const etk_inspector_render_options_t *options,
                                  etk_render_sink_t *sink,
                                  etk_render_sink_t *tsv_sink,
                                  etk_error_t *err) {
  if (!insp || !options || !sink || !tsv_sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_inspector_render_with_tsv: NULL argument");
  if (options->format != ETK_INSPECT_FORMAT_TABLE ||
      options->view != ETK_INSPECT_VIEW_EVENTS ||
      (options->all_columns && (options->columns & ETK_INSPECT_COLUMN_SOURCE)))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_inspector_render_with_tsv: only the events "
                         "table has the TSV's columns");
  plan_t p;
  memset(&p, 0, sizeof p);
  p.insp = insp;
  p.o = options;
  int rc = select_blocks(&p, err);
  if (rc == ETK_OK) rc = build_rows(&p, !options->all_rows, err);
  if (rc != ETK_OK) {
    plan_free(&p);
    return rc;
  }
  event_columns(&p, options->all_columns);
  tee_t t = {&p, NULL, 0};
  etk_frame_t f = {p.nrows, p.ncols, p.headers, insp_plan_event_cell, &t, 1};
  etk_frame_t tf = {p.nrows, p.ncols, p.headers, insp_plan_event_cell, &p, 1};
  t.tsv = etk_delimited_open(&tf, '\t', tsv_sink);
  if (!t.tsv) {
    plan_free(&p);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  rc = etk_render_table_rows(&f, tee_row, sink, err);
  etk_cell_t cells[sizeof p.cols / sizeof p.cols[0]];
  while (rc == ETK_OK && t.next < p.nrows) /* rows the table did not ask */
    rc = tee_row(&t, t.next, cells);
  int crc = etk_delimited_close(t.tsv, rc == ETK_OK);
  if (rc == ETK_OK && crc != ETK_OK)
    rc = etk_error_set(err, crc, ETK_NO_OFFSET, "writing the TSV failed: %s",
                       etk_strerror(crc));
  plan_free(&p);
  return rc;
}
