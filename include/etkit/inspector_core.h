/*
 * etkit/inspector_core.h - the Inspector: event blocks, per-event statistics,
 * ETRecord-link slots, and rendering (table, TSV, CSV, JSON, summaries).
 *
 * This is a C re-implementation of upstream ExecuTorch's Python Inspector
 * (devtools/inspector/_inspector.py), working straight on the verified
 * FlatBuffer through etkit/etdump.h.  Its results match upstream exactly:
 *
 *   - runs are grouped into event blocks by run signature (run name, the
 *     ordered event signatures, bundled input index), identical runs anywhere
 *     in the file merge into one block, blocks keep first-appearance order;
 *   - inside a run, events are collated per (instruction id, chain, delegate
 *     int id, delegate str id); one Inspector event per profile event (each
 *     keeping all debug events of its instruction), debug-only instructions
 *     give events without perf data; a later duplicate signature in one run
 *     replaces the earlier one in place;
 *   - names: the profile name, or str(delegate id) for delegated events, or a
 *     non-empty debug-event name; program outputs are excluded;
 *   - durations: non-delegated (end - start) as an integer, then divided by
 *     the scale factor; delegated events convert each timestamp first
 *     (start / f, end / f) and then subtract, exactly like upstream's
 *     default delegate_time_scale_converter; the 2^32 - 1 wrap rule;
 *   - statistics bit-identical to numpy: percentiles with the "linear"
 *     method, mean with numpy's pairwise summation.
 * Deliberate deviations (allocation events, a missing end time, the wrap
 * formula's off-by-one, cycles with a clock rate, ...) are opt-in or listed
 * in docs/compatibility.md, "ETDump reader and Inspector".
 *
 * EXAMPLE
 *
 *   etk_inspector_options_t opt;
 *   etk_inspector_options_init(&opt);          // ns -> ms, upstream quirks
 *   etk_inspector_t *insp;
 *   etk_error_t err;
 *   if (etk_inspector_open_path("model.etdp", &opt, &insp, &err) != ETK_OK) {
 *     char line[512];
 *     fprintf(stderr, "%s\n", etk_error_format(&err, line, sizeof line));
 *     return 1;
 *   }
 *   for (size_t b = 0; b < etk_inspector_block_count(insp); b++) {
 *     etk_inspector_block_t blk;
 *     etk_inspector_block_get(insp, b, &blk);
 *     for (size_t i = 0; i < blk.event_count; i++) {
 *       etk_inspector_event_t ev;
 *       etk_stats_t st;
 *       etk_inspector_event_get(insp, blk.first_event + i, &ev);
 *       if (etk_inspector_event_stats(insp, blk.first_event + i, &st) ==
 * ETK_OK) printf("%s %s avg %g ms\n", blk.name, ev.name, st.avg);
 *     }
 *   }
 *   etk_render_sink_t sink;                    // upstream's TSV, on stdout
 *   etk_render_sink_init_file(&sink, stdout);
 *   etk_inspector_render_options_t ro;
 *   etk_inspector_render_options_init(&ro);
 *   ro.format = ETK_INSPECT_FORMAT_TSV;
 *   etk_inspector_render(insp, &ro, &sink, &err);
 *   etk_render_sink_flush(&sink);
 *   etk_inspector_close(insp);
 *
 * MEMORY AND COST
 *   Opening groups all runs in one pass (O(events), hash tables per run),
 *   then keeps, beside the mapped file, the reader's columns (9 bytes per
 *   ETDump event: flags, instruction id, name id) and 4 bytes per distinct
 *   string; when runs are merged (or debug entries attached) also 4 bytes
 *   per Inspector event and per merged sample (the index of the ETDump
 *   event), which a dump of one run of events does without.  Durations,
 *   statistics and start times are computed from the ETDump on demand.  A
 *   1M-event dump loads, groups and writes TSV in well under a second (see
 *   bench/inspector).
 *
 * THREADS
 *   After opening, read-only calls may run concurrently, except rendering
 *   and the link setters, which use per-inspector scratch memory.
 */
#ifndef ETKIT_INSPECTOR_CORE_H
#define ETKIT_INSPECTOR_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/etdump.h"
#include "etkit/sketch.h"
#include "etkit/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ time scales */

typedef enum etk_time_scale {
  ETK_TIME_NS = 0,
  ETK_TIME_US,
  ETK_TIME_MS,
  ETK_TIME_S,
  ETK_TIME_CYCLES
} etk_time_scale_t;

/* "ns", "us", "ms", "s", "cycles" (upstream TimeScale values); "?" for
 * anything else. */
const char *etk_time_scale_name(etk_time_scale_t scale);

/* Parses one of the names above; ETK_E_INVALID_ARGUMENT otherwise. */
int etk_time_scale_parse(const char *name, etk_time_scale_t *out);

/* The divisor upstream applies to raw durations:
 * units_per_second(source) / units_per_second(target), with ns 1e9, us 1e6,
 * ms 1e3, s 1 and cycles 1 (so ns->ms is 1000000.0 and ms->ns 1e-06).
 * Mixing cycles with a time unit is refused with upstream's message
 * (ETK_E_UNSUPPORTED) unless clock_hz > 0, in which case cycles count
 * clock_hz units per second (an etkit extension).  clock_hz is ignored when
 * neither or both scales are cycles. */
int etk_time_scale_factor(etk_time_scale_t source, etk_time_scale_t target,
                          double clock_hz, double *factor, etk_error_t *err);

/* ------------------------------------------------------------ statistics */

/* PerfData statistics of a list of durations. */
typedef struct etk_stats {
  size_t count;
  double p10, p50, p90; /* numpy.percentile(raw, q), method "linear" */
  double avg;           /* numpy.mean(raw) (pairwise summation) */
  double min, max;      /* Python min()/max(): an element of raw */
} etk_stats_t;

/* Computes the statistics of raw[0..n).  `scratch` must hold n doubles (it
 * receives a reordered copy: large inputs are partially ordered by
 * selection, O(n), never fully sorted); raw is not modified.  The results
 * are those of sorting first, bit for bit.  ETK_E_INVALID_ARGUMENT when
 * n == 0 or a pointer is NULL.  NaN inputs sort last (numpy does the
 * same). */
int etk_stats_compute(const double *raw, size_t n, double *scratch,
                      etk_stats_t *out);

/* numpy.mean: pairwise summation (blocks of 8 below 128 elements, halves
 * above) divided by n.  NaN for n == 0. */
double etk_stats_mean(const double *raw, size_t n);

/* numpy.percentile(sorted, q) with the "linear" method, on an ascending
 * array (n >= 1, 0 <= q <= 100). */
double etk_stats_percentile_sorted(const double *sorted, size_t n, double q);

/* ------------------------------------------------------------ opening */

/* Upstream behaviours that are clearly bugs.  By default etkit fixes them
 * (docs/compatibility.md); these flags bring them back for bit-for-bit
 * comparisons with upstream on such inputs.  0 = fixed behaviour. */
#define ETK_INSPECTOR_QUIRK_WRAP_OFF_BY_ONE \
  0x1u /* end < start (32-bit tick          \
wrap): upstream's (2^32-1 - start)          \
+ end, one less than the true               \
modular difference 2^32 - start + end */
#define ETK_INSPECTOR_QUIRK_MISSING_END_WRAPS \
  0x2u /* end_time 0 (absent)                 \
with start > 0: upstream reads it as          \
a wrap (a huge duration); etkit               \
drops that sample from raw/stats */
#define ETK_INSPECTOR_QUIRKS_ALL 0x3u

typedef struct etk_inspector_options {
  etk_time_scale_t source_time_scale; /* default ns */
  etk_time_scale_t target_time_scale; /* default ms */
  double clock_hz;                    /* cycles <-> time (0 = refuse) */
  unsigned flags;                     /* ETK_INSPECTOR_QUIRK_* */
  /* Debug buffer (tensor bytes of debug events), borrowed; may be NULL. */
  const uint8_t *debug_buffer;
  size_t debug_buffer_len;
  /* Options for opening the ETDump (open_path/open_memory only). */
  etk_etdump_options_t etdump;
  /* Nonzero: every profile event's duration loses what recording the
   * events inside it cost (etkit/compensation.h), from the dump's
   * calibration marker, or from event_cost_ns when that is > 0 (a begin+end
   * pair, in ns; tensor logs then cost nothing).  A dump without marker
   * and no event_cost_ns fails to open with ETK_E_NOT_FOUND. */
  int compensate;
  double event_cost_ns;
} etk_inspector_options_t;

/* Fills the defaults: ns -> ms, no clock, no quirks, no debug buffer. */
void etk_inspector_options_init(etk_inspector_options_t *options);

typedef struct etk_inspector etk_inspector_t;

/* Builds the event blocks of an open dump.  The dump is BORROWED and must
 * outlive the inspector.  `options` may be NULL (defaults).  Errors:
 * ETK_E_UNSUPPORTED (cycles mixed with time and no clock_hz; message as
 * upstream), ETK_E_NO_MEMORY, ETK_E_LIMIT (more than 2^32 - 1 Inspector
 * events), ETK_E_FORMAT (an elapsed-time wrap with a timestamp above
 * 2^32 - 1, which upstream rejects with "Expected start_time ... to be less
 * than 4294967295 ..."; err->offset is the profile event's byte offset). */
int etk_inspector_open(const etk_etdump_t *dump,
                       const etk_inspector_options_t *options,
                       etk_inspector_t **out, etk_error_t *err);

/* Opens the ETDump at `path` (owned by the inspector) and builds the
 * blocks.  Errors of etk_etdump_open_path and etk_inspector_open. */
int etk_inspector_open_path(const char *path,
                            const etk_inspector_options_t *options,
                            etk_inspector_t **out, etk_error_t *err);

/* Same from memory (bytes borrowed unless options->etdump.copy). */
int etk_inspector_open_memory(const void *data, size_t len,
                              const etk_inspector_options_t *options,
                              etk_inspector_t **out, etk_error_t *err);

/* Frees the inspector (and its dump if it opened it).  NULL is a no-op. */
void etk_inspector_close(etk_inspector_t *insp);

/* The dump the inspector reads. */
const etk_etdump_t *etk_inspector_etdump(const etk_inspector_t *insp);

/* The options in effect (scales, factor). */
etk_time_scale_t etk_inspector_target_time_scale(const etk_inspector_t *insp);
etk_time_scale_t etk_inspector_source_time_scale(const etk_inspector_t *insp);
/* 1 when `dump` carries the marker block "etkit:time_scale=cycles"
 * (etkit's firmware: its timestamps are CPU cycles, docs/device.md): an
 * inspector opened with the default scales then reads it in cycles. */
int etk_inspector_dump_in_cycles(const etk_etdump_t *dump);
double etk_inspector_scale_factor(const etk_inspector_t *insp);

/* ------------------------------------------------------------ blocks */

typedef struct etk_inspector_block {
  const char *name; /* run name, "" when absent (name_present 0) */
  size_t name_len;
  int name_present;
  int32_t bundled_input_index; /* raw value, -1 when unset */
  size_t first_event;          /* events first_event .. +event_count */
  size_t event_count;          /* 0 for a run whose events vector is empty */
  size_t run_count;            /* merged runs */
  const uint32_t *runs;        /* their ETDump run indices, in file order */
  uint32_t offset;             /* byte offset of the first run's table */
  size_t output_count;         /* run outputs (debug events with output) */
  const uint32_t *outputs;     /* their ETDump event indices (first run
                                  that has outputs) */
} etk_inspector_block_t;

size_t etk_inspector_block_count(const etk_inspector_t *insp);
/* ETK_E_INVALID_ARGUMENT for NULL or out of range. */
int etk_inspector_block_get(const etk_inspector_t *insp, size_t index,
                            etk_inspector_block_t *out);

/* ------------------------------------------------------------ events */

typedef struct etk_inspector_event {
  size_t block;     /* owning block */
  const char *name; /* NUL-terminated; valid until the next
                       etk_inspector_event_get on this inspector
                       when it is a delegate id's decimal text */
  size_t name_len;
  int32_t instruction_id; /* raw value from the ETDump (may be -1) */
  int is_delegated_op;
  int delegate_id_is_int;            /* delegate_debug_identifier is the int */
  int64_t delegate_debug_id_int;     /* when delegate_id_is_int */
  const char *delegate_debug_id_str; /* when delegated by string, else NULL */
  size_t sample_count;               /* 0: no perf_data (a debug-only event) */
  size_t debug_count;                /* debug entries (debug_data) */
  int has_debug_signature;           /* the event has debug events */
  int32_t chain_index; /* chain of its first ETDump event (-1 for a
                          debug chain of 2^64-1), for linkers */
  int has_metadata;    /* some sample has non-empty delegate metadata */
} etk_inspector_event_t;

/* Total events of all blocks (blocks are contiguous ranges). */
size_t etk_inspector_event_count(const etk_inspector_t *insp);
int etk_inspector_event_get(const etk_inspector_t *insp, size_t index,
                            etk_inspector_event_t *out);
/* etk_inspector_event_get() for loops over many events that need only its
 * first fields: block, name, instruction id, delegate fields and
 * sample_count, the same values; debug_count, has_debug_signature,
 * chain_index and has_metadata are 0 (not looked up).  The name follows
 * the same rule: a decimal delegate id's text is valid until the next
 * get on this inspector. */
int etk_inspector_event_get_basic(const etk_inspector_t *insp, size_t index,
                                  etk_inspector_event_t *out);

/* One merged run of an event. */
typedef struct etk_inspector_sample {
  double duration;     /* target units; NaN when the sample has no
                          duration (a missing end time) */
  uint64_t start_time; /* raw start_time (source units) */
  uint64_t end_time;
  uint32_t run;            /* ETDump run index */
  uint32_t etdump_event;   /* ETDump event index of the profile event */
  const uint8_t *metadata; /* delegate_debug_metadata, NULL when absent */
  uint32_t metadata_len;
} etk_inspector_sample_t;

/* Sample k (0 .. sample_count-1) of an event.  ETK_E_INVALID_ARGUMENT when
 * out of range. */
int etk_inspector_event_sample(const etk_inspector_t *insp, size_t event,
                               size_t k, etk_inspector_sample_t *out);

/* Statistics of an event's durations (PerfData).  ETK_E_NOT_FOUND when the
 * event has no perf data.  Uses per-inspector scratch: not concurrent. */
int etk_inspector_event_stats(etk_inspector_t *insp, size_t event,
                              etk_stats_t *out);

/* Writes the event's durations (upstream's PerfData.raw: samples with a
 * duration, in run order) into raw[0..sample_count) and their number into
 * *count (smaller than sample_count only when end times are missing). */
int etk_inspector_event_durations(const etk_inspector_t *insp, size_t event,
                                  double *raw, size_t *count);

/* ETDump event index of debug entry k of an event (read its value with
 * etk_etdump_event_value()).  ETK_E_INVALID_ARGUMENT when out of range. */
int etk_inspector_event_debug_entry(const etk_inspector_t *insp, size_t event,
                                    size_t k, uint32_t *etdump_event);

/* Number of debug entries that differed between merged runs (upstream stops
 * with an AssertionError; etkit keeps the first run's values and counts). */
size_t etk_inspector_debug_mismatch_count(const etk_inspector_t *insp);

/* ------------------------------------------------------------ ETRecord links
 */

/* What an ETRecord linker attaches to an event (upstream Event fields
 * debug_handles, num_outputs, delegate_backend_name, op_types, stack_traces,
 * module_hierarchy).  Without a link: no handles, num_outputs 1, backend
 * NULL (None), no op types, no nodes. */
typedef struct etk_inspector_link_node {
  const char *name;             /* graph node name (key of stack_traces) */
  const char *stack_trace;      /* NULL = None */
  const char *module_hierarchy; /* nn_module_stack text, NULL = None */
} etk_inspector_link_node_t;

typedef struct etk_inspector_event_link {
  int has_debug_handles;     /* 0 = None */
  int debug_handles_is_list; /* a list (else one int) */
  const int64_t *debug_handles;
  size_t debug_handle_count;
  int64_t num_outputs;
  const char *delegate_backend_name; /* NULL = None */
  const char *const *op_types;
  size_t op_type_count;
  const etk_inspector_link_node_t *nodes; /* in first-association order */
  size_t node_count;
} etk_inspector_event_link_t;

/* Attaches `link` to an event, deep-copying everything (the caller keeps
 * ownership of its arrays).  Replaces an earlier link.  Strings must be
 * UTF-8 (not checked; renderers escape).  ETK_E_INVALID_ARGUMENT,
 * ETK_E_NO_MEMORY. */
int etk_inspector_event_set_link(etk_inspector_t *insp, size_t event,
                                 const etk_inspector_event_link_t *link,
                                 etk_error_t *err);

/* The link of an event (a view into inspector memory, valid until the next
 * set_link on that event or close); the defaults above when none. */
int etk_inspector_event_link(const etk_inspector_t *insp, size_t event,
                             etk_inspector_event_link_t *out);

/* ------------------------------------------------------------ allocations */

/* Allocation events, which upstream cannot read (it stops with "Unable to
 * find populated event"), summarised per allocator.  One row per (run name,
 * allocator id) in first-appearance order; an id that names no allocator of
 * its run keeps name NULL.  Sizes are summed over all runs. */
typedef struct etk_inspector_allocator {
  const char *run_name; /* "" when the run has no name */
  const char *name;     /* allocator name, NULL when unknown */
  int32_t allocator_id; /* as stored (1-based per upstream's writer) */
  uint64_t count;       /* allocation events */
  uint64_t total_bytes;
  uint64_t max_bytes; /* largest single allocation */
  uint64_t runs;      /* runs with at least one allocation */
} etk_inspector_allocator_t;

size_t etk_inspector_allocator_count(const etk_inspector_t *insp);
int etk_inspector_allocator_get(const etk_inspector_t *insp, size_t index,
                                etk_inspector_allocator_t *out);

/* ------------------------------------------------------------ rendering */

typedef enum etk_inspect_format {
  ETK_INSPECT_FORMAT_TABLE = 0, /* print_data_tabular (fancy_grid) */
  ETK_INSPECT_FORMAT_TSV,       /* save_data_to_tsv */
  ETK_INSPECT_FORMAT_CSV,       /* same columns, comma separated */
  ETK_INSPECT_FORMAT_JSON       /* every to_dataframe column, raw samples */
} etk_inspect_format_t;

typedef enum etk_inspect_view {
  ETK_INSPECT_VIEW_EVENTS = 0,  /* one row per event (upstream's table) */
  ETK_INSPECT_VIEW_SUMMARY,     /* one row per operator type per block */
  ETK_INSPECT_VIEW_ALLOCATIONS, /* one row per allocator */
  ETK_INSPECT_VIEW_MODULES      /* operator time per nn.Module (a tree; see
                                   "ETRecord origins" below) */
} etk_inspect_view_t;

typedef enum etk_inspect_sort {
  ETK_INSPECT_SORT_NONE = 0, /* file order (events) / total desc (summary) */
  ETK_INSPECT_SORT_AVG,
  ETK_INSPECT_SORT_P10,
  ETK_INSPECT_SORT_P50,
  ETK_INSPECT_SORT_P90,
  ETK_INSPECT_SORT_MIN,
  ETK_INSPECT_SORT_MAX,
  ETK_INSPECT_SORT_TOTAL, /* summary: total time; events: avg * samples */
  ETK_INSPECT_SORT_COUNT, /* summary: calls; events: samples */
  ETK_INSPECT_SORT_NAME
} etk_inspect_sort_t;

/* Parses "avg", "p10", "p50", "p90", "min", "max", "total", "count",
 * "name", "none". */
int etk_inspect_sort_parse(const char *name, etk_inspect_sort_t *out);

#define ETK_INSPECT_MAX_SELECT 64

typedef struct etk_inspector_render_options {
  etk_inspect_format_t format;
  etk_inspect_view_t view;
  int include_units;               /* " (ms)" header suffixes; default 1 */
  int include_delegate_debug_data; /* delegate_debug_metadata column */
  int all_rows;    /* keep OPERATOR_CALL rows (table/TSV/CSV hide rows
                      whose name contains "OPERATOR_CALL", as upstream);
                      JSON always keeps every row */
  int all_columns; /* table/TSV/CSV: every to_dataframe column (raw,
                      delegate_debug_identifier, stack_traces,
                      module_hierarchy, debug_data) */
  etk_inspect_sort_t sort;
  int reverse; /* reverse the default order (numbers descending,
                  names ascending) */
  size_t top;  /* keep the first N rows after sorting (0 = all) */
  /* Block selection (none = all): indices and/or exact names. */
  size_t select_index_count;
  size_t select_index[ETK_INSPECT_MAX_SELECT];
  size_t select_name_count;
  const char *select_name[ETK_INSPECT_MAX_SELECT];
  int json_indent; /* JSON: spaces per level, 0 = compact (default 2) */
  int allow_empty; /* skip blocks without events and render an empty
                      table (headers only) when nothing is left, instead
                      of failing like upstream */
  /* etkit columns from ETRecord links (see "ETRecord origins" below):
   * ETK_INSPECT_COLUMN_* bits, 0 = upstream's columns only. */
  unsigned columns;
  int full_paths; /* source column: the file as recorded, not its base
                     name */
} etk_inspector_render_options_t;

/* Defaults: table, events view, units on, upstream filtering, no sort. */
void etk_inspector_render_options_init(etk_inspector_render_options_t *o);

/* Renders the inspector into `sink` (not flushed).  The events view in
 * table/TSV format with default options is byte-identical to upstream's
 * print_data_tabular / save_data_to_tsv.  Errors: ETK_E_NOT_FOUND (no
 * block matched the selection or there are no blocks: upstream fails with
 * "No objects to concatenate"), ETK_E_FORMAT (a selected block has no
 * events; upstream fails the same way), ETK_E_NO_MEMORY, ETK_E_IO from the
 * sink, ETK_E_INVALID_ARGUMENT.  With allow_empty, empty blocks are
 * skipped and an empty selection renders headers only. */
int etk_inspector_render(etk_inspector_t *insp,
                         const etk_inspector_render_options_t *options,
                         etk_render_sink_t *sink, etk_error_t *err);

/* etk_inspector_render() of the events table (options->format TABLE,
 * view EVENTS) into `sink`, writing at the same time into `tsv_sink` the
 * TSV etk_inspector_render() gives for the same options with format TSV
 * (upstream's save_data_to_tsv beside print_data_tabular): each row is
 * computed once for both, in the table's measuring pass.  Both sinks get
 * their bytes in full only when ETK_OK is returned.  The same errors,
 * and ETK_E_INVALID_ARGUMENT for another format or view, or all_columns
 * with the source column (where the table's columns differ). */
int etk_inspector_render_with_tsv(etk_inspector_t *insp,
                                  const etk_inspector_render_options_t *options,
                                  etk_render_sink_t *sink,
                                  etk_render_sink_t *tsv_sink,
                                  etk_error_t *err);

/* ====================================================================
 * ETRecord origins: module time and source lines (etkit additions)
 *
 * Besides upstream's link fields above, an ETRecord linker (see
 * etk_etrecord_inspector_link() in etkit/etrecord.h) attaches to each
 * linked graph node where it came from: the innermost user frame of its
 * stack trace and its decoded nn_module_stack.  With them the inspector
 *
 *   - answers upstream's find_total_for_module (etk_inspector_module_total),
 *     with upstream's substring rule or an exact module path;
 *   - rolls operator time up the module hierarchy
 *     (ETK_INSPECT_VIEW_MODULES, rules below);
 *   - prints source locations, module paths, debug handles and output
 *     counts as extra columns (ETK_INSPECT_COLUMN_*).
 * None of this changes upstream's columns: with `columns` 0 and the events
 * view, the output is byte-identical whether origins are set or not.
 *
 * MODULE VIEW (ETK_INSPECT_VIEW_MODULES)
 *   Per selected block, every operator event with perf data adds its avg
 *   (the time of one run) to one module and to every module above it:
 *     - an event's module is the deepest module that contains all of its
 *       nodes (for a single node: the innermost nn_module_stack entry);
 *       nodes without a module stack are ignored (an event whose nodes
 *       all lack one counts as the root); an event without linked nodes
 *       is "(unattributed)";
 *     - wrappers are not counted, so no time is counted twice:
 *       Method::execute, Method::init and Program::load_method (the method
 *       itself); OPERATOR_CALL when its instruction has another
 *       non-delegated event with perf data (the kernel event it wraps);
 *       DELEGATE_CALL when its instruction has delegated per-op events with
 *       perf data (their time is inside it);
 *     - a delegated per-op event that resolves to no node takes its
 *       DELEGATE_CALL's module (it ran inside that call).
 *   Rows, in tree pre-order: "(root)" (all counted time, 100 %), then the
 *   modules (siblings in first-appearance order, or by the sort key), then
 *   "(unattributed)".  Columns: event_block_name, module (the table draws
 *   the tree with "│  " / "├─ " guides; TSV/CSV/JSON add a `depth` column
 *   and keep the plain dotted path), type (class name without its package),
 *   count (events per run), total (inclusive), self (events whose module is
 *   exactly this one), % of total (total / root total).
 * ==================================================================== */

/* One nn_module_stack entry. */
typedef struct etk_inspector_module {
  const char *key;        /* entry key, e.g. "L__self___layer1" */
  const char *path;       /* access path as recorded ("L['self'].layer1") */
  const char *normalized; /* dotted path from the root ("layer1"; "" for
                             the root module itself) */
  const char *type;       /* qualified class name ("torch.nn.Conv2d") */
} etk_inspector_module_t;

/* Where one linked graph node came from. */
typedef struct etk_inspector_node_origin {
  const char *file;     /* file of the innermost user frame of the node's
                           stack trace, as recorded; NULL = no frame */
  int64_t line;         /* its line (0 when file is NULL) */
  const char *function; /* its function, NULL when file is NULL */
  const etk_inspector_module_t *modules; /* the node's module stack,
                                            outermost first */
  size_t module_count; /* 0 = no (decodable) nn_module_stack */
} etk_inspector_node_origin_t;

/* Attaches origins[0..count) to an event, deep-copied (the caller keeps
 * its arrays).  origins[i] describes the event link's node i
 * (etk_inspector_event_link_t.nodes), which is how the ETRecord linker
 * fills them; count 0 removes the event's origins.  Replaces earlier
 * origins.  Strings must be UTF-8 and non-NULL where documented above.
 * ETK_E_INVALID_ARGUMENT (NULL insp, event out of range, origins NULL with
 * count > 0, a module array NULL with module_count > 0), ETK_E_NO_MEMORY. */
int etk_inspector_event_set_origins(etk_inspector_t *insp, size_t event,
                                    const etk_inspector_node_origin_t *origins,
                                    size_t count, etk_error_t *err);

/* The origins of an event: *origins points into inspector memory (valid
 * until the next set_origins on that event or close); *origins NULL and
 * *count 0 when none were set.  ETK_E_INVALID_ARGUMENT for NULL pointers or
 * an event out of range. */
int etk_inspector_event_origins(const etk_inspector_t *insp, size_t event,
                                const etk_inspector_node_origin_t **origins,
                                size_t *count);

/* The event's module: the deepest module that contains every node of the
 * event that has a module stack.  Sets *modules to that path, outermost
 * first (a prefix of one node's stack, in inspector memory) and *count to
 * its length; *count 0 means the root (or no module information: then
 * etk_inspector_event_has_modules() is 0).  ETK_E_INVALID_ARGUMENT for
 * NULL pointers or an event out of range. */
int etk_inspector_event_module(const etk_inspector_t *insp, size_t event,
                               const etk_inspector_module_t **modules,
                               size_t *count);

/* 1 when some node of the event has a module stack, else 0. */
int etk_inspector_event_has_modules(const etk_inspector_t *insp, size_t event);

/* One row of the module view (`etkit inspect --by-module`), as data. */
typedef struct etk_inspector_module_row {
  size_t block;     /* event block */
  unsigned depth;   /* 0: the block's root */
  const char *path; /* "(root)", "(unattributed)" or the dotted path */
  const char *key;  /* its nn_module_stack key, or NULL */
  const char *type; /* qualified class name, or NULL */
  uint64_t count;   /* operator events counted in it and below */
  double total;     /* their time per run (target units), subtree */
  double self;      /* the part counted on this module itself */
} etk_inspector_module_row_t;

/* The module view of every block, by the rules of the module view (no
 * time counted twice): rows in pre-order (siblings in first-appearance
 * order) in *rows (malloc'd, free() it; strings owned by the inspector),
 * *count rows (0 when nothing is linked to modules).  Errors:
 * ETK_E_INVALID_ARGUMENT, ETK_E_NO_MEMORY. */
int etk_inspector_module_rows(etk_inspector_t *insp,
                              etk_inspector_module_row_t **rows, size_t *count,
                              etk_error_t *err);

/* The module view's total of the module named `name` (its dotted path or
 * its nn_module_stack key): the sum of its rows' totals over the blocks,
 * so that it equals its row(s) of `etkit inspect --by-module`; *events
 * (may be NULL) receives the operator events counted.  0.0 and 0 events
 * when no module has that name.  Errors as etk_inspector_module_rows(). */
int etk_inspector_module_view_total(etk_inspector_t *insp, const char *name,
                                    double *total, size_t *events,
                                    etk_error_t *err);

/* Module matching for etk_inspector_module_total(). */
typedef enum etk_inspector_module_match {
  /* upstream's find_total_for_module: `name` is a substring of some entry
   * key ("aten_sub" matches "L__self___aten_sub_dup") */
  ETK_INSPECTOR_MODULE_SUBSTRING = 0,
  /* `name` equals an entry's dotted path ("layer1.0"), access path or key */
  ETK_INSPECTOR_MODULE_EXACT = 1,
  /* etk_inspector_module_view_total(): the module view's row (etkit's
   * default in `etkit inspect --module-total`; etk_inspector_module_total()
   * does not take it) */
  ETK_INSPECTOR_MODULE_VIEW = 2
} etk_inspector_module_match_t;

/* Upstream's Inspector.find_total_for_module(name): over every block and
 * event, skipping events named exactly "OPERATOR_CALL", the sum of the avg
 * (target units) of each event that has perf data and a node whose module
 * stack matches `name`; each event counts once.  Like upstream, a
 * delegated per-op event and its DELEGATE_CALL are both counted (use the
 * module view for time without double counting).  *total is 0.0 when
 * nothing matches; *events (may be NULL) receives the number of events
 * added.  ETK_E_INVALID_ARGUMENT for NULL insp/name/total. */
int etk_inspector_module_total(etk_inspector_t *insp, const char *name,
                               etk_inspector_module_match_t match,
                               double *total, size_t *events);

/* Renders etk_inspector_module_total() for names[0..count): columns
 * module, match ("substring"/"exact"), events, total (units); in JSON
 * {"target_time_scale", "module_totals": [...]}.  Uses format,
 * include_units and json_indent of `options` (NULL = defaults).  Errors:
 * ETK_E_INVALID_ARGUMENT, ETK_E_NO_MEMORY, ETK_E_IO from the sink. */
int etk_inspector_render_module_totals(
    etk_inspector_t *insp, const char *const *names, size_t count,
    etk_inspector_module_match_t match,
    const etk_inspector_render_options_t *options, etk_render_sink_t *sink,
    etk_error_t *err);

/* Extra event-view columns (etk_inspector_render_options_t.columns).  In
 * table/TSV/CSV they follow op_types in this order; JSON events get
 * "source" and "module" keys (debug_handles and num_outputs are always
 * there).  With all_columns, the table shows `source` instead of the raw
 * stack_traces dict. */
#define ETK_INSPECT_COLUMN_SOURCE     \
  0x1u /* "file:line" of each node's  \
         innermost user frame,        \
         distinct ones joined by ", " \
         (at most 32, then ", ...") */
#define ETK_INSPECT_COLUMN_MODULE                                            \
  0x2u                                        /* the event's module: dotted  \
                                                path, "(root)" for the root, \
                                                None without module stacks */
#define ETK_INSPECT_COLUMN_DEBUG_HANDLES 0x4u /* 7 / [8, 9] (None: empty) */
#define ETK_INSPECT_COLUMN_NUM_OUTPUTS 0x8u

/* ------------------------------------------------- stats-mode dumps
 *
 * A dump of a stats-mode recorder (etkit/recorder.h "STATS MODE") carries
 * a latency sketch per key (etkit/latency_dump.h).  Its events table shows
 * one sample per key (the median); these give the sketch's figures. */
struct etk_latency_dump_info;
typedef struct etk_inspector_latency_row {
  size_t run;   /* RunData index of the key's block */
  size_t event; /* global event index of its representative event */
  /* event_name: as the events table names it (a delegate's event by its
   * debug identifier, an integer one as text in delegate_id_text) */
  const char *block_name, *event_name; /* NULL when absent */
  char delegate_id_text[24];
  int32_t instruction_id;            /* -1 when absent */
  int32_t delegate_debug_id_int;     /* -1 when absent */
  const char *delegate_debug_id_str; /* NULL when absent */
  uint64_t count;                    /* exact */
  double min, avg, max;              /* exact, target time scale */
  double quantile[5];  /* p10, p50, p90, p99, p99.9, within error_bound */
  double error_bound;  /* relative */
  etk_sketch_t sketch; /* in source ticks */
} etk_inspector_latency_row_t;

/* Key `index` of the dump's sketches (info from etk_latency_dump_find on
 * etk_inspector_etdump(insp)).  ETK_E_FORMAT for a bad key. */
int etk_inspector_latency_rows(const etk_inspector_t *insp,
                               const struct etk_latency_dump_info *info,
                               size_t index, etk_inspector_latency_row_t *out,
                               etk_error_t *err);

/* Renders every key (format TABLE, TSV, CSV or JSON of `ro`; include_units
 * and json_indent are honoured): columns event_block_name, event_name,
 * instruction_id, delegate_debug_identifier, count, min, p10, p50, p90,
 * p99, p99.9, avg, max (target time scale), error_bound.
 * ETK_E_NOT_FOUND when the dump has no sketches. */
int etk_inspector_render_latency(etk_inspector_t *insp,
                                 const etk_inspector_render_options_t *ro,
                                 etk_render_sink_t *sink, etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_INSPECTOR_CORE_H */
