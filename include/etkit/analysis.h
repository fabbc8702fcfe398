/*
 * etkit/analysis.h - analyses built on the Inspector (library etkit_analysis):
 * operator-type summary, A/B diff, memory report, Chrome-trace export and
 * the HTML report.  See docs/analysis.md.
 */
#ifndef ETKIT_ANALYSIS_H
#define ETKIT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/etdump.h"
#include "etkit/inspector_core.h"
#include "etkit/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================
 * ANALYSES built on the Inspector (docs/analysis.md): operator-type
 * summary, A/B diff, memory report, Chrome-trace export and HTML report.
 * They read the ETDump and Inspector through the public API above only,
 * and write through etkit/render.h.  `etkit trace|diff|report|memory`
 * are thin wrappers around these calls.
 * ==================================================================== */

/* ------------------------------------------------ recorder drop marker */

/* etkit's recorder ends a dump whose buffer filled with one RunData named
 * "etkit:dropped_events=N[,blocks=M][,allocators=K]" and no events
 * (docs/recorder.md, "When memory runs out"). */
typedef struct etk_dropped_marker {
  int present;  /* a marker was found */
  uint32_t run; /* its run index */
  uint64_t events, blocks, allocators;
} etk_dropped_marker_t;

/* Parses a run name; returns 1 and fills *out (may be NULL) when it is a
 * well-formed marker, else 0.  Unknown ",key=value" parts are ignored;
 * numbers above 2^64-1 saturate. */
int etk_dropped_marker_parse(const char *name, size_t len,
                             etk_dropped_marker_t *out);

/* Looks for the marker among the runs of `dump` (the last one wins, as the
 * recorder writes it last).  Returns out->present; *out is zeroed when
 * there is none. */
int etk_dropped_marker_find(const etk_etdump_t *dump,
                            etk_dropped_marker_t *out);

/* ------------------------------------------------ operator-type summary */

/* The operator type of an event name, as `etkit inspect --summary` groups
 * them: without a leading "native_call_" and without an XNNPACK-style
 * " #<digits>" instance suffix.  Returns a pointer into `name` and the
 * length in *out_len ("native_call_add.out" -> "add.out", "linear #3" ->
 * "linear"). */
const char *etk_op_type_from_name(const char *name, size_t len,
                                  size_t *out_len);

/* How the summary counts an event (wrappers are not counted twice). */
typedef enum etk_op_role {
  ETK_OP_ROLE_OPERATOR = 0,     /* counted under its op type */
  ETK_OP_ROLE_OPERATOR_CALL,    /* OPERATOR_CALL: wraps its native_call */
  ETK_OP_ROLE_METHOD,           /* Method::execute: the method time */
  ETK_OP_ROLE_LOAD_METHOD,      /* Program::load_method: method time of a
                                   block without Method::execute */
  ETK_OP_ROLE_DELEGATE_WRAPPER, /* DELEGATE_CALL whose instruction has
                                   delegated per-op events */
  ETK_OP_ROLE_NO_DATA           /* no perf data (debug-only event) */
} etk_op_role_t;

typedef enum etk_op_row_kind {
  ETK_OP_ROW_OPERATOR = 0,
  ETK_OP_ROW_FRAMEWORK_OVERHEAD, /* method time - operators' total -
                                    delegate overhead */
  ETK_OP_ROW_METHOD,             /* the method event itself (100 %) */
  ETK_OP_ROW_DELEGATE_OVERHEAD   /* wrapping DELEGATE_CALLs minus the
                                    delegated per-op events inside them;
                                    only in a block with such wrappers,
                                    before the framework overhead row */
} etk_op_row_kind_t;

/* One row: the same numbers as `etkit inspect --summary` (times in the
 * inspector's target unit, per run: an event contributes its average). */
typedef struct etk_op_summary_row {
  size_t block;
  int kind;            /* etk_op_row_kind_t */
  const char *op_type; /* NUL-terminated; "framework overhead" or the
                          method name for the closing rows */
  size_t op_type_len;
  uint64_t count; /* events of this type (0 for the framework overhead
                     row; the wrappers for the delegate overhead row) */
  double total;   /* sum of their averages */
  double avg;     /* total / count (NaN for the overhead rows) */
  double percent; /* total / method time * 100 (NaN when unknown) */
} etk_op_summary_row_t;

typedef struct etk_op_summary_block {
  double method_time;          /* average of Method::execute (else of
                                  Program::load_method); NaN when neither */
  const char *method_name;     /* NULL when NaN */
  double operators_total;      /* sum of the counted events' averages */
  double delegate_total;       /* delegate overhead (0 without wrappers) */
  size_t delegate_wrappers;    /* wrapping DELEGATE_CALL events */
  size_t first_row, row_count; /* rows of this block (operators sorted by
                                  total, largest first, then overhead and
                                  method rows) */
} etk_op_summary_block_t;

typedef struct etk_op_summary etk_op_summary_t;

/* Groups every block's events by operator type (the linked op type when an
 * ETRecord link gives exactly one, else etk_op_type_from_name()).  `insp`
 * is borrowed (it must outlive the summary; statistics scratch is used, so
 * not concurrently with other calls on it).  Errors: ETK_E_INVALID_ARGUMENT,
 * ETK_E_NO_MEMORY.  Cost: one statistics pass over the events. */
int etk_op_summary_build(etk_inspector_t *insp, etk_op_summary_t **out,
                         etk_error_t *err);
void etk_op_summary_free(etk_op_summary_t *s);
size_t etk_op_summary_row_count(const etk_op_summary_t *s);
int etk_op_summary_row_get(const etk_op_summary_t *s, size_t index,
                           etk_op_summary_row_t *out);
/* Block `block` of the inspector (ETK_E_INVALID_ARGUMENT out of range). */
int etk_op_summary_block_get(const etk_op_summary_t *s, size_t block,
                             etk_op_summary_block_t *out);
/* etk_op_role_t of inspector event `event` (ETK_OP_ROLE_NO_DATA out of
 * range). */
int etk_op_summary_event_role(const etk_op_summary_t *s, size_t event);
/* Average of inspector event `event` (NaN without perf data). */
double etk_op_summary_event_avg(const etk_op_summary_t *s, size_t event);

/* ------------------------------------------------ A/B diff */

typedef enum etk_diff_metric {
  ETK_DIFF_METRIC_AVG = 0,
  ETK_DIFF_METRIC_P50,
  ETK_DIFF_METRIC_P10,
  ETK_DIFF_METRIC_P90,
  ETK_DIFF_METRIC_MIN,
  ETK_DIFF_METRIC_MAX
} etk_diff_metric_t;

/* "avg", "p50", "p10", "p90", "min", "max"; ETK_E_INVALID_ARGUMENT else. */
int etk_diff_metric_parse(const char *name, etk_diff_metric_t *out);
const char *etk_diff_metric_name(etk_diff_metric_t metric);

typedef enum etk_diff_match {
  ETK_DIFF_MATCH_EXACT = 0, /* same block, event name and instruction id */
  ETK_DIFF_MATCH_NAME,      /* same block and event name, another id */
  ETK_DIFF_MATCH_OP_TYPE,   /* same block and operator type */
  ETK_DIFF_MATCH_NEW,       /* only in B */
  ETK_DIFF_MATCH_MISSING,   /* only in A */
  ETK_DIFF_MATCH_TOTAL      /* a per-block total row (see kind) */
} etk_diff_match_t;

/* "exact", "name", "op_type", "new", "missing", "total". */
const char *etk_diff_match_name(etk_diff_match_t match);

typedef enum etk_diff_row_kind {
  ETK_DIFF_ROW_OPERATOR = 0,
  ETK_DIFF_ROW_METHOD,             /* Method::execute (or load_method) */
  ETK_DIFF_ROW_OPERATORS_TOTAL,    /* sum of the operators' averages */
  ETK_DIFF_ROW_FRAMEWORK_OVERHEAD, /* method - operators total - delegate
                                     overhead */
  ETK_DIFF_ROW_DELEGATE_OVERHEAD   /* wrapping DELEGATE_CALLs minus the
                                     delegated ops inside them (only in a
                                     block pair with such wrappers) */
} etk_diff_row_kind_t;

typedef struct etk_diff_row {
  int kind;                /* etk_diff_row_kind_t */
  int match;               /* etk_diff_match_t */
  const char *block;       /* block name ("" when absent) */
  size_t block_occurrence; /* 0 for the first block of that name, ... */
  const char *name;        /* event name (B's for new rows, else A's) or
                              "Method::execute", "operators",
                              "framework overhead" */
  const char *name_b;      /* B's event name when it differs, else NULL */
  const char *op_type;     /* operator type of `name` */
  int32_t instruction_id_a, instruction_id_b; /* -1 when absent */
  size_t event_a, event_b; /* inspector event indices, SIZE_MAX absent */
  size_t count_a, count_b; /* samples (runs) */
  double avg_a, avg_b, p50_a, p50_b; /* NaN when absent */
  double value_a, value_b;           /* the compared metric */
  double delta;      /* value_b - value_a (new: +value_b, missing:
                        -value_a) */
  double change_pct; /* delta / value_a * 100; NaN when value_a is 0
                        or the row is new/missing */
} etk_diff_row_t;

typedef struct etk_diff_options {
  etk_diff_metric_t metric; /* default avg */
  int all_rows;             /* also compare OPERATOR_CALL events */
} etk_diff_options_t;

void etk_diff_options_init(etk_diff_options_t *o);

typedef struct etk_diff etk_diff_t;

/* Compares two inspectors (same target time unit expected; the caller
 * opens both with the same options).  Blocks are paired by name and
 * occurrence (the k-th block named "Execute" in A with the k-th in B).
 * Inside a block pair, operator events (every event with perf data except
 * OPERATOR_CALL and the method event) are matched first exactly (event
 * name + instruction id + occurrence of that pair), then by event name in
 * order, then by operator type in order; leftovers are new or missing.
 * Rows: per block pair the total rows (method, operators, delegate
 * overhead when either side has wrapping DELEGATE_CALLs, framework
 * overhead), then operators sorted by
 * |delta| (largest first; new and missing rows after the matched ones).
 * Both inspectors are borrowed and must outlive the diff.  Errors:
 * ETK_E_INVALID_ARGUMENT, ETK_E_NO_MEMORY. */
int etk_diff_build(etk_inspector_t *a, etk_inspector_t *b,
                   const etk_diff_options_t *options, etk_diff_t **out,
                   etk_error_t *err);
void etk_diff_free(etk_diff_t *d);
size_t etk_diff_row_count(const etk_diff_t *d);
int etk_diff_row_get(const etk_diff_t *d, size_t index, etk_diff_row_t *out);

/* Matched operator rows whose change is a regression above `pct` percent
 * (change_pct > pct) and whose delta is at least `min_delta` (target
 * units).  New and missing rows never count (they have no percentage). */
size_t etk_diff_regression_count(const etk_diff_t *d, double pct,
                                 double min_delta);

typedef struct etk_diff_render_options {
  etk_inspect_format_t format;   /* table, tsv, csv, json */
  double threshold_pct;          /* hide matched operator rows whose
                                    |change| is below this (0 = show all) */
  double min_delta;              /* ... or whose |delta| is below this */
  int json_indent;               /* default 2 */
  const char *label_a, *label_b; /* e.g. file names; NULL = "A", "B" */
  int wide; /* table: every operator column (avg and p50 both) and whole
               event names; 0: the compared metric only, short headers and
               event names cut to 30 characters, to fit 120 columns */
} etk_diff_render_options_t;

void etk_diff_render_options_init(etk_diff_render_options_t *o);

/* table: a "totals" table then an "operators" table (fancy grid) and a
 * line counting hidden rows; tsv/csv: one table, totals rows first (match
 * "total"); json: {"a","b","metric","time_unit","threshold_pct",
 * "hidden_rows","totals":[...],"operators":[...]}. */
int etk_diff_render(const etk_diff_t *d, const etk_diff_render_options_t *o,
                    etk_render_sink_t *sink, etk_error_t *err);

/* ------------------------------------------------ memory report */

/* Allocation events carry only (allocator id, size): no address, no free,
 * no timestamp.  So within one run the bytes are CUMULATIVE (nothing is
 * ever given back), and the per-run total is that run's high-water mark
 * as far as the dump can tell. */
typedef struct etk_memory_allocator {
  size_t block;           /* inspector block */
  const char *block_name; /* "" when absent */
  int32_t allocator_id;   /* as stored (1-based into the run's list) */
  const char *name;       /* allocator name, NULL when the id names none */
  uint64_t runs;          /* runs of the block */
  uint64_t runs_with_allocations;
  uint64_t count;         /* allocation events, all runs */
  uint64_t total_bytes;   /* all runs together */
  uint64_t peak_bytes;    /* max over runs of the run's cumulative bytes */
  uint64_t min_run_bytes; /* min over runs that allocated */
  uint64_t largest_bytes; /* largest single allocation */
} etk_memory_allocator_t;

typedef struct etk_memory_allocation {
  uint32_t etdump_event; /* ETDump event index */
  uint32_t run;          /* ETDump run index */
  size_t block;          /* inspector block (SIZE_MAX: none) */
  size_t allocator;      /* index of its etk_memory_allocator_t row */
  uint64_t bytes;
  uint64_t offset_in_run; /* cumulative bytes of that allocator in the
                             run before this allocation */
  const char *next_event; /* name of the next profile event of the run in
                             file order (the runtime appends events when
                             they END, so it is the first one to finish
                             after the allocation); NULL when none */
} etk_memory_allocation_t;

typedef struct etk_memory_report etk_memory_report_t;

/* Summarises allocation events per block and allocator (rows in block
 * order, allocators in first-appearance order) and keeps the `top`
 * largest allocations (0 = 10; ties by file order).  Runs that belong to
 * no block (no events vector) have no allocation events.  `insp` is
 * borrowed.  Errors: ETK_E_INVALID_ARGUMENT, ETK_E_NO_MEMORY. */
int etk_memory_report_build(const etk_inspector_t *insp, size_t top,
                            etk_memory_report_t **out, etk_error_t *err);
void etk_memory_report_free(etk_memory_report_t *m);
size_t etk_memory_report_allocator_count(const etk_memory_report_t *m);
int etk_memory_report_allocator_get(const etk_memory_report_t *m, size_t index,
                                    etk_memory_allocator_t *out);
size_t etk_memory_report_largest_count(const etk_memory_report_t *m);
int etk_memory_report_largest_get(const etk_memory_report_t *m, size_t index,
                                  etk_memory_allocation_t *out);
/* Allocation events in all runs. */
uint64_t etk_memory_report_event_count(const etk_memory_report_t *m);

/* table/tsv/csv: the allocator table (and, for the table, the largest
 * allocations and a note that bytes are cumulative); json: {"cumulative":
 * true, "allocators":[...], "largest":[...], "dropped_events"}. */
int etk_memory_report_render(const etk_memory_report_t *m,
                             etk_inspect_format_t format, int json_indent,
                             etk_render_sink_t *sink, etk_error_t *err);

/* ------------------------------------------------ Chrome trace export */

typedef enum etk_trace_layout {
  ETK_TRACE_LAYOUT_AUTO = 0,  /* raw when the runs follow each other on
                                 one clock, else sequential */
  ETK_TRACE_LAYOUT_RAW,       /* raw timestamps (minus the first one) */
  ETK_TRACE_LAYOUT_SEQUENTIAL /* each run on its own time base, runs
                                 placed one after the other in file order */
} etk_trace_layout_t;

typedef enum etk_trace_tracks {
  ETK_TRACE_TRACKS_BLOCK = 0, /* one track per event block */
  ETK_TRACE_TRACKS_RUN        /* one track per run */
} etk_trace_tracks_t;

typedef struct etk_trace_options {
  etk_time_scale_t source_time_scale; /* unit of the raw ticks (ns) */
  double clock_hz;                    /* cycles -> microseconds */
  int raw_ticks; /* cycles without clock_hz: write ticks as "us"
                    (otherData says so) instead of failing */
  etk_trace_layout_t layout;
  etk_trace_tracks_t tracks;
  int no_args;              /* omit "args" (smaller files) */
  int no_flows;             /* omit DELEGATE_CALL -> delegate flow arrows */
  uint32_t pid;             /* process id of this dump (default 1) */
  const char *process_name; /* default "ETDump" */
  /* Block selection (none = all): inspector block indices and/or names
   * (run names when no inspector is given). */
  size_t select_index_count;
  size_t select_index[ETK_INSPECT_MAX_SELECT];
  size_t select_name_count;
  const char *select_name[ETK_INSPECT_MAX_SELECT];
} etk_trace_options_t;

void etk_trace_options_init(etk_trace_options_t *o);

typedef struct etk_trace_stats {
  uint64_t runs;          /* runs written */
  uint64_t slices;        /* "X" events for profile events (run slices
                             not included) */
  uint64_t instants;      /* profile events without a usable end */
  uint64_t missing_end;   /* ... of which end_time was absent */
  uint64_t invalid_times; /* ... of which end < start beyond 32 bits */
  uint64_t wrapped;       /* slices whose 32-bit tick counter wrapped */
  uint64_t overlapping;   /* slices moved to an "overlapping" track
                             because they did not nest */
  uint64_t counters;      /* "C" events (allocations) */
  uint64_t flows;         /* flow arrows */
  int layout;             /* the layout used (never AUTO) */
  double ticks_per_us;    /* conversion used (1 with raw_ticks) */
  double end_us;          /* end of the last run on the timeline */
  etk_dropped_marker_t dropped;
} etk_trace_stats_t;

/* Writes the profile and allocation events of `dump` into an open trace
 * writer as process `o->pid`:
 *   - one track per block (or run); delegated events (with a delegate id)
 *     on a second "delegate" track; slices that do not nest on their track
 *     move to an "overlapping" track (so every track nests perfectly);
 *   - one "X" slice per profile event, ts/dur in microseconds from the raw
 *     ticks, sorted by start (parents first), plus a "run N" slice around
 *     each run; args: run, block, event (ETDump index), instruction_id,
 *     chain, delegate_debug_id, metadata (text) or metadata_hex,
 *     start_ticks, end_ticks, wrapped;
 *   - a 32-bit tick wrap (end < start, start < 2^32) gives the modular
 *     duration; a run with such a wrap is unwrapped along file order (end
 *     order): later events are shifted by 2^32 per wrap;
 *   - an absent end time (0) or end < start beyond 32 bits gives an
 *     instant ("i") event with args.missing_end / args.invalid_times;
 *   - allocations become "C" counters named "<allocator> bytes" with the
 *     cumulative bytes of that run, at the end of the previous profile
 *     event in file order (allocation events have no time);
 *   - a flow arrow from each DELEGATE_CALL to the first delegated event of
 *     its instruction;
 *   - the recorder's drop marker becomes a global instant event.
 * `insp` (optional, borrowed) supplies blocks; without it runs are
 * grouped by run name.  `stats` may be NULL.  Errors: ETK_E_UNSUPPORTED
 * (cycles without clock_hz or raw_ticks), ETK_E_NOT_FOUND (a selected
 * index or name that matches no block), ETK_E_NO_MEMORY, the writer's
 * status.  Memory: 24 bytes per event of the largest run, plus about 40
 * bytes per run.  Cost: about 1 us per event (docs/analysis.md). */
int etk_trace_export_etdump(etk_trace_writer_t *w, const etk_etdump_t *dump,
                            const etk_inspector_t *insp,
                            const etk_trace_options_t *o,
                            etk_trace_stats_t *stats, etk_error_t *err);

/* Writes what a trace's otherData says about one exported dump (an
 * object: pid, path, time unit, layout, counts, dropped events). */
void etk_trace_stats_write_json(etk_json_t *j, const etk_trace_stats_t *stats,
                                const etk_trace_options_t *o, const char *path);

/* One-shot: a whole trace document for one dump into `sink` (not
 * flushed), with otherData {"generator", "time_unit", "files":[...]}. */
int etk_trace_write_json(const etk_etdump_t *dump, const etk_inspector_t *insp,
                         const etk_trace_options_t *o, const char *path,
                         etk_render_sink_t *sink, etk_trace_stats_t *stats,
                         etk_error_t *err);

/* One dump of a multi-file trace (etk_trace_write_json_files). */
typedef struct etk_trace_input {
  const etk_etdump_t *dump;    /* borrowed */
  const etk_inspector_t *insp; /* optional, borrowed: blocks and links */
  const char *path;            /* its file: otherData, process name */
  etk_trace_stats_t stats;     /* out: what was written */
} etk_trace_input_t;

/* A whole trace document of `n` dumps into `sink` (not flushed): dump i
 * is process i + 1, named after the last component of its path, with
 * the options `o` (NULL = defaults; pid and process_name are set per
 * dump); otherData {"generator", "files":[one object per dump]}.  Each
 * input's stats are filled.  On an export error, err->where names the
 * dump's path.  What `etkit trace` writes. */
int etk_trace_write_json_files(etk_trace_input_t *inputs, size_t n,
                               const etk_trace_options_t *o,
                               etk_render_sink_t *sink, etk_error_t *err);

/* ------------------------------------------------ HTML report */

/* One compared program output (upstream's compare_results), for the
 * report's numerics section. */
typedef struct etk_report_comparison {
  size_t block;  /* event block */
  size_t output; /* program output index */
  double snr, mse, cosine;
} etk_report_comparison_t;

typedef struct etk_report_options {
  const char *title;          /* default "etkit report" */
  const char *etdump_path;    /* shown in the header (may be NULL) */
  uint64_t etdump_bytes;      /* file size, 0 = unknown */
  const char *etrecord_path;  /* NULL = no ETRecord */
  const char *etrecord_note;  /* one line about the link, may be NULL */
  const char *generator;      /* e.g. "etkit 0.1.0", may be NULL */
  size_t max_event_rows;      /* events table cap (0 = 5000) */
  size_t max_summary_rows;    /* operator types per block (0 = 50; the
                                 rest are folded into one row) */
  size_t max_timeline_events; /* per timeline (0 = 2000) */
  size_t top_allocations;     /* largest allocations listed (0 = 10) */
  /* numeric comparisons of the program outputs against reference outputs
   * (none: no section); `comparison_reference` names the reference */
  const etk_report_comparison_t *comparisons;
  size_t comparison_count;
  const char *comparison_reference;
  /* the memory plan of the program that ran (etkit/memory_plan.h; NULL =
   * no section): its memory map is drawn in the page */
  const struct etk_memory_plan *memory_plan;
  /* The model graph section (NULL = none): called once to write the
   * section's HTML, after the operator types.  The report cannot draw
   * the graph itself (the graph view, etkit/graph_view.h, sits above this
   * library), so `etkit report --etrecord_path` passes
   * etk_graph_view_write_graph() with `fragment` set.  What it writes is
   * trusted: it must escape its own text.  Its section may carry a
   * <script> (pan/zoom, tooltips): the only script of the page. */
  int (*graph_section)(void *ctx, etk_render_sink_t *sink, etk_error_t *err);
  void *graph_section_ctx;
} etk_report_options_t;

void etk_report_options_init(etk_report_options_t *o);

/* Writes one self-contained HTML page (no external resource; no script
 * unless the graph section brings one):
 * file facts, dropped-event warning, per-block operator-type summary,
 * events table with statistics, an inline-SVG timeline of the first run
 * of each block, and the memory report.  Every string from the files is
 * escaped with etk_html_text().  Errors: ETK_E_INVALID_ARGUMENT,
 * ETK_E_NO_MEMORY, the sink's error. */
int etk_report_write_html(etk_inspector_t *insp, const etk_report_options_t *o,
                          etk_render_sink_t *sink, etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_ANALYSIS_H */
