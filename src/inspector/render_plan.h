/*
 * render_plan.h - private to the Inspector's renderers: the column ids of
 * upstream's DataFrame, the render plan (the rows after selection,
 * filtering, sorting and --top, with a per-row cell cache) and the entry
 * points the views share.  The arrows run one way: inspector_render.c
 * calls the summary and JSON views, and all three use the cells.
 *
 *   inspector_render.c       plan, tables, allocations view,
 *                            etk_inspector_render()
 *   inspector_cells.c        column names, the event cell callback,
 *                            streaming a frame as table/TSV/CSV
 *   inspector_summary.c      the per-operator-type summary view
 *   inspector_render_json.c  the JSON document of the events view
 */
#ifndef ETKIT_INSPECTOR_RENDER_PLAN_H
#define ETKIT_INSPECTOR_RENDER_PLAN_H

#include "inspector_internal.h"

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

/* Column names (upstream's, then etkit's), indexed by enum col. */
extern const char *const insp_column_names[];

/* ------------------------------------------------------- plan */

typedef struct plan {
  etk_inspector_t *insp;
  const etk_inspector_render_options_t *o;
  uint8_t *selected; /* per block */
  uint32_t *rows;    /* event of each row; NULL while they are consecutive
                        (rows_first + i): read them with plan_row() */
  uint32_t rows_first;
  size_t nrows;
  int any_perf;
  int metadata_col;
  /* frame */
  int cols[24];
  size_t ncols;
  int usual; /* 0: not known yet, 1: the columns are upstream's 12, 2: not
                (insp_plan_event_row, set by its first call) */
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
  /* text of the computed cells of a row (insp_plan_event_row), per column */
  etk_strbuf_t cell_text[24];
} plan_t;

/* The event shown in row i of the plan. */
static inline uint32_t plan_row(const plan_t *p, size_t i) {
  return p->rows ? p->rows[i] : p->rows_first + (uint32_t)i;
}

/* The cell callback of the events frame (etk_frame_cell_fn; ctx is the
 * plan, col an index into plan->cols). */
int insp_plan_event_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                         etk_strbuf_t *scratch);

/* The row callback of the events frame (etk_frame_row_fn; ctx is the
 * plan): the cells insp_plan_event_cell gives, a row at a time.  Computed
 * text lives in plan->cell_text until the next row. */
int insp_plan_event_row(void *ctx, size_t row, etk_cell_t *cells);

/* Writes a frame as the table, TSV or CSV `fmt` asks for. */
int insp_emit_frame(const etk_frame_t *f, etk_inspect_format_t fmt,
                    etk_render_sink_t *sink, etk_error_t *err);

/* insp_emit_frame() for the events frame (f->ctx the plan): TSV and CSV
 * ask insp_plan_event_row for whole rows. */
int insp_emit_events_frame(const etk_frame_t *f, etk_inspect_format_t fmt,
                           etk_render_sink_t *sink, etk_error_t *err);

/* The summary view of the plan's selected blocks (inspector_summary.c). */
int insp_render_summary(plan_t *p, etk_render_sink_t *sink, etk_error_t *err);

/* The events view as one JSON document: time scales, blocks, the plan's
 * rows with every column, allocations (inspector_render_json.c). */
int insp_render_json(plan_t *p, etk_render_sink_t *sink, etk_error_t *err);

/* The "allocations" array of the JSON documents. */
void insp_allocations_json(etk_json_t *j, etk_inspector_t *insp);

#endif
