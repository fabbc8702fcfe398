/*
 * inspector_cells.c - the cells of the Inspector's events frame: upstream's
 * column names, the cell callback every tabular renderer (table, TSV, CSV,
 * the JSON document and the summary's frame) asks for each cell, and the
 * one call that streams a frame in the table or delimited formats.
 *
 * PURPOSE
 *   The plan (inspector_render.c) decides which rows and columns there are;
 *   this file computes what a cell holds when a renderer asks for it, so no
 *   DataFrame is ever materialised.  A one-row cache keeps the row's block,
 *   signature and names, and its statistics once a statistic is asked for.
 *
 * INVARIANTS
 *   Cells are written exactly as upstream's DataFrame prints them (repr of
 *   lists and dicts, None/NaN as pandas shows them); render_plan.h is the
 *   contract with the renderers, and nothing here calls back into them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_plan.h"
#include "values_text.h"

/* ------------------------------------------------------- columns */

const char *const insp_column_names[] = {"event_block_name",
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

/* Out of line, so that insp_plan_event_cell stays a leaf that needs no stack.
 */
#if defined(__GNUC__)
#define COLD_PATH __attribute__((noinline))
#else
#define COLD_PATH
#endif

/* Loads `row` into the row cache: its block, signature, name, block name;
 * statistics on demand (row_stats). */
COLD_PATH static void row_load(plan_t *p, size_t row) {
  etk_inspector_t *insp = p->insp;
  uint32_t e = plan_row(p, row);
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
  int rc = insp_event_stats(p->insp, plan_row(p, p->cached_row), p->row_block,
                            &p->stats, one ? &p->row_start : NULL, &p->row_sig);
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
  const uint64_t s = insp_sample_index(bk, e);
  char num[24];
  etk_strbuf_appendc(b, '[');
  for (uint32_t j = 0; j < bk->run_count; j++) {
    if (j) etk_strbuf_append(b, ", ", 2);
    if (metadata) {
      etk_etdump_event_t de;
      etk_etdump_event_get(insp->dump, insp_sample(insp, s + j), &de);
      if (de.metadata_len)
        etk_pyrepr_bytes(b, de.metadata, de.metadata_len);
      else
        etk_strbuf_append(b, "''", 2);
    } else {
      uint64_t st, en;
      if (p->row_start_known)
        st = p->row_start; /* read with the stats */
      else
        etk_etdump_event_times(insp->dump, insp_sample(insp, s + j), &st, &en);
      etk_strbuf_append(b, num, etk_format_uint(st, num));
    }
  }
  etk_strbuf_appendc(b, ']');
  return ETK_OK;
}

COLD_PATH static int event_cell_other(plan_t *p, size_t row, size_t col,
                                      etk_cell_t *out, etk_strbuf_t *b);

/* "[start]" of a one-run row whose start was read with its statistics. */
static inline void start_cell(plan_t *p, etk_cell_t *out) {
  p->start_buf[0] = '[';
  size_t n = 1 + etk_format_uint(p->row_start, p->start_buf + 1);
  p->start_buf[n++] = ']';
  etk_cell_set_object(out, p->start_buf, n);
}

/* The usual cells of the event table, answered from the row cache (the
 * renderer asks for a million rows of a dozen cells); 0 for every other
 * cell, which event_cell_other computes. */
static inline int event_cell_fast(plan_t *p, size_t row, int c,
                                  etk_cell_t *out) {
  switch (c) {
    case COL_P10:
    case COL_P50:
    case COL_P90:
    case COL_AVG:
    case COL_MIN:
    case COL_MAX:
      if (!p->stats_done) row_stats(p);
      /* an event without perf data has None statistics: an empty cell,
       * as tabulate prints None (docs/compatibility.md) */
      if (p->has_stats)
        etk_cell_set_float(out, p->stat_vals[c - COL_P10]);
      else
        etk_cell_set_none(out);
      return 1;
    case COL_BLOCK:
      if (p->block_name.data)
        etk_cell_set_text(out, p->block_name.data, p->block_name.len);
      else
        etk_cell_set_none(out);
      return 1;
    case COL_NAME:
      etk_cell_set_text(out, p->row_name, p->row_name_len);
      return 1;
    case COL_IS_DELEGATED:
      etk_cell_set_bool(out, p->row_delegated);
      return 1;
    case COL_OP_TYPES: /* without a link: no op types, no backend */
      if (p->insp->links && p->insp->links[plan_row(p, row)]) return 0;
      etk_cell_set_object(out, "[]", 2);
      return 1;
    case COL_BACKEND:
      if (p->insp->links && p->insp->links[plan_row(p, row)]) return 0;
      etk_cell_set_none(out);
      return 1;
    case COL_START: /* one run: "[start]", the start read with the stats */
      if (!p->row_start_known) return 0;
      start_cell(p, out);
      return 1;
    default:
      return 0;
  }
}

int insp_plan_event_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                         etk_strbuf_t *b) {
  plan_t *p = ctx;
  row_enter(p, row);
  if (event_cell_fast(p, row, p->cols[col], out)) return ETK_OK;
  return event_cell_other(p, row, col, out, b);
}

/* The columns of upstream's table and TSV, in their order. */
static const int usual_cols[12] = {COL_BLOCK,        COL_NAME,    COL_P10,
                                   COL_P50,          COL_P90,     COL_AVG,
                                   COL_MIN,          COL_MAX,     COL_OP_TYPES,
                                   COL_IS_DELEGATED, COL_BACKEND, COL_START};

/* A row of the usual columns, filled as event_cell_fast() fills each cell
 * but without a dispatch per cell (a million rows are asked for, twice by
 * a table); 0, nothing written that the general loop would not write
 * again, for other columns, an event with a link or without a known
 * start. */
static inline int usual_row(plan_t *p, size_t row, etk_cell_t *cells) {
  if (!p->usual) /* the columns are set before the first row is asked */
    p->usual =
        p->ncols == 12 && memcmp(p->cols, usual_cols, sizeof usual_cols) == 0
            ? 1
            : 2;
  if (p->usual != 1 || (p->insp->links && p->insp->links[plan_row(p, row)]))
    return 0;
  if (!p->stats_done) row_stats(p);
  if (!p->row_start_known) return 0;
  if (p->block_name.data)
    etk_cell_set_text(&cells[0], p->block_name.data, p->block_name.len);
  else
    etk_cell_set_none(&cells[0]);
  etk_cell_set_text(&cells[1], p->row_name, p->row_name_len);
  for (int i = 0; i < 6; i++) {
    if (p->has_stats)
      etk_cell_set_float(&cells[2 + i], p->stat_vals[i]);
    else
      etk_cell_set_none(&cells[2 + i]);
  }
  etk_cell_set_object(&cells[8], "[]", 2);
  etk_cell_set_bool(&cells[9], p->row_delegated);
  etk_cell_set_none(&cells[10]);
  start_cell(p, &cells[11]);
  return 1;
}

int insp_plan_event_row(void *ctx, size_t row, etk_cell_t *cells) {
  plan_t *p = ctx;
  row_enter(p, row);
  if (usual_row(p, row, cells)) return ETK_OK;
  for (size_t c = 0; c < p->ncols; c++) {
    if (event_cell_fast(p, row, p->cols[c], &cells[c])) continue;
    etk_strbuf_t *b = &p->cell_text[c];
    etk_strbuf_clear(b);
    int rc = event_cell_other(p, row, c, &cells[c], b);
    if (rc == ETK_OK && b->failed) rc = ETK_E_NO_MEMORY;
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}

COLD_PATH static int event_cell_other(plan_t *p, size_t row, size_t col,
                                      etk_cell_t *out, etk_strbuf_t *b) {
  etk_inspector_t *insp = p->insp;
  uint32_t e = plan_row(p, row);
  const insp_event_t *ev = &p->row_sig;
  int c = p->cols[col];
  etk_inspector_event_link_t link;
  switch (c) {
    case COL_RAW: {
      const insp_block_t *bk = &insp->blocks[p->row_block];
      if (insp_scratch_reserve(insp, bk->run_count ? bk->run_count : 1) !=
          ETK_OK)
        return ETK_E_NO_MEMORY;
      size_t n = insp_event_raw_in(insp, e, p->row_block, insp->scratch, NULL,
                                   &p->row_sig);
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

int insp_emit_frame(const etk_frame_t *f, etk_inspect_format_t fmt,
                    etk_render_sink_t *sink, etk_error_t *err) {
  if (fmt == ETK_INSPECT_FORMAT_TABLE) return etk_render_table(f, sink, err);
  return etk_render_delimited(f, fmt == ETK_INSPECT_FORMAT_CSV ? ',' : '\t',
                              sink, err);
}

int insp_emit_events_frame(const etk_frame_t *f, etk_inspect_format_t fmt,
                           etk_render_sink_t *sink, etk_error_t *err) {
  if (fmt == ETK_INSPECT_FORMAT_TABLE)
    return etk_render_table_rows(f, insp_plan_event_row, sink, err);
  return etk_render_delimited_rows(f, insp_plan_event_row,
                                   fmt == ETK_INSPECT_FORMAT_CSV ? ',' : '\t',
                                   sink, err);
}
