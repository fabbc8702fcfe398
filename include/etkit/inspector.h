/*
 * etkit/inspector.h - the Inspector: event blocks, per-event statistics,
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
 *       if (etk_inspector_event_stats(insp, blk.first_event + i, &st) == ETK_OK)
 *         printf("%s %s avg %g ms\n", blk.name, ev.name, st.avg);
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
 *   then keeps 20 bytes per Inspector event and 4 bytes per merged sample
 *   (the index of the ETDump event); durations, statistics and start times
 *   are computed from the ETDump on demand.  A 1M-event dump loads, groups
 *   and writes TSV in well under a second (see bench/inspector).
 *
 * THREADS
 *   After opening, read-only calls may run concurrently, except rendering
 *   and the link setters, which use per-inspector scratch memory.
 */
#ifndef ETKIT_INSPECTOR_H
#define ETKIT_INSPECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/etdump.h"
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
#define ETK_INSPECTOR_QUIRK_WRAP_OFF_BY_ONE 0x1u /* end < start (32-bit tick
                                          wrap): upstream's (2^32-1 - start)
                                          + end, one less than the true
                                          modular difference 2^32 - start + end */
#define ETK_INSPECTOR_QUIRK_MISSING_END_WRAPS 0x2u /* end_time 0 (absent)
                                          with start > 0: upstream reads it as
                                          a wrap (a huge duration); etkit
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
double etk_inspector_scale_factor(const etk_inspector_t *insp);

/* ------------------------------------------------------------ blocks */

typedef struct etk_inspector_block {
  const char *name;            /* run name, "" when absent (name_present 0) */
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
  size_t block;               /* owning block */
  const char *name;           /* NUL-terminated; valid until the next
                                 etk_inspector_event_get on this inspector
                                 when it is a delegate id's decimal text */
  size_t name_len;
  int32_t instruction_id;     /* raw value from the ETDump (may be -1) */
  int is_delegated_op;
  int delegate_id_is_int;     /* delegate_debug_identifier is the int */
  int64_t delegate_debug_id_int;  /* when delegate_id_is_int */
  const char *delegate_debug_id_str; /* when delegated by string, else NULL */
  size_t sample_count;        /* 0: no perf_data (a debug-only event) */
  size_t debug_count;         /* debug entries (debug_data) */
  int has_debug_signature;    /* the event has debug events */
  int32_t chain_index;        /* chain of its first ETDump event (-1 for a
                                 debug chain of 2^64-1), for linkers */
  int has_metadata;           /* some sample has non-empty delegate metadata */
} etk_inspector_event_t;

/* Total events of all blocks (blocks are contiguous ranges). */
size_t etk_inspector_event_count(const etk_inspector_t *insp);
int etk_inspector_event_get(const etk_inspector_t *insp, size_t index,
                            etk_inspector_event_t *out);

/* One merged run of an event. */
typedef struct etk_inspector_sample {
  double duration;            /* target units; NaN when the sample has no
                                 duration (a missing end time) */
  uint64_t start_time;        /* raw start_time (source units) */
  uint64_t end_time;
  uint32_t run;               /* ETDump run index */
  uint32_t etdump_event;      /* ETDump event index of the profile event */
  const uint8_t *metadata;    /* delegate_debug_metadata, NULL when absent */
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

/* ------------------------------------------------------------ ETRecord links */

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
  int has_debug_handles;       /* 0 = None */
  int debug_handles_is_list;   /* a list (else one int) */
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
  const char *run_name;   /* "" when the run has no name */
  const char *name;       /* allocator name, NULL when unknown */
  int32_t allocator_id;   /* as stored (1-based per upstream's writer) */
  uint64_t count;         /* allocation events */
  uint64_t total_bytes;
  uint64_t max_bytes;     /* largest single allocation */
  uint64_t runs;          /* runs with at least one allocation */
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
  ETK_INSPECT_SORT_TOTAL,    /* summary: total time; events: avg * samples */
  ETK_INSPECT_SORT_COUNT,    /* summary: calls; events: samples */
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
  int all_rows;      /* keep OPERATOR_CALL rows (table/TSV/CSV hide rows
                        whose name contains "OPERATOR_CALL", as upstream);
                        JSON always keeps every row */
  int all_columns;   /* table/TSV/CSV: every to_dataframe column (raw,
                        delegate_debug_identifier, stack_traces,
                        module_hierarchy, debug_data) */
  etk_inspect_sort_t sort;
  int reverse;       /* reverse the default order (numbers descending,
                        names ascending) */
  size_t top;        /* keep the first N rows after sorting (0 = all) */
  /* Block selection (none = all): indices and/or exact names. */
  size_t select_index_count;
  size_t select_index[ETK_INSPECT_MAX_SELECT];
  size_t select_name_count;
  const char *select_name[ETK_INSPECT_MAX_SELECT];
  int json_indent;   /* JSON: spaces per level, 0 = compact (default 2) */
  int allow_empty;   /* skip blocks without events and render an empty
                        table (headers only) when nothing is left, instead
                        of failing like upstream */
  /* etkit columns from ETRecord links (see "ETRecord origins" below):
   * ETK_INSPECT_COLUMN_* bits, 0 = upstream's columns only. */
  unsigned columns;
  int full_paths;    /* source column: the file as recorded, not its base
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
  size_t module_count;  /* 0 = no (decodable) nn_module_stack */
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

/* Module matching for etk_inspector_module_total(). */
typedef enum etk_inspector_module_match {
  /* upstream's find_total_for_module: `name` is a substring of some entry
   * key ("aten_sub" matches "L__self___aten_sub_dup") */
  ETK_INSPECTOR_MODULE_SUBSTRING = 0,
  /* `name` equals an entry's dotted path ("layer1.0"), access path or key */
  ETK_INSPECTOR_MODULE_EXACT = 1
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
#define ETK_INSPECT_COLUMN_SOURCE 0x1u        /* "file:line" of each node's
                                                innermost user frame,
                                                distinct ones joined by ", "
                                                (at most 32, then ", ...") */
#define ETK_INSPECT_COLUMN_MODULE 0x2u        /* the event's module: dotted
                                                path, "(root)" for the root,
                                                None without module stacks */
#define ETK_INSPECT_COLUMN_DEBUG_HANDLES 0x4u /* 7 / [8, 9] (None: empty) */
#define ETK_INSPECT_COLUMN_NUM_OUTPUTS 0x8u

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
  int present;          /* a marker was found */
  uint32_t run;         /* its run index */
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
int etk_dropped_marker_find(const etk_etdump_t *dump, etk_dropped_marker_t *out);

/* ------------------------------------------------ operator-type summary */

/* The operator type of an event name, as `etkit inspect --summary` groups
 * them: without a leading "native_call_" and without an XNNPACK-style
 * " #<digits>" instance suffix.  Returns a pointer into `name` and the
 * length in *out_len ("native_call_add.out" -> "add.out", "linear #3" ->
 * "linear"). */
const char *etk_op_type_from_name(const char *name, size_t len, size_t *out_len);

/* How the summary counts an event (wrappers are not counted twice). */
typedef enum etk_op_role {
  ETK_OP_ROLE_OPERATOR = 0,    /* counted under its op type */
  ETK_OP_ROLE_OPERATOR_CALL,   /* OPERATOR_CALL: wraps its native_call */
  ETK_OP_ROLE_METHOD,          /* Method::execute: the method time */
  ETK_OP_ROLE_LOAD_METHOD,     /* Program::load_method: method time of a
                                  block without Method::execute */
  ETK_OP_ROLE_DELEGATE_WRAPPER,/* DELEGATE_CALL whose instruction has
                                  delegated per-op events */
  ETK_OP_ROLE_NO_DATA          /* no perf data (debug-only event) */
} etk_op_role_t;

typedef enum etk_op_row_kind {
  ETK_OP_ROW_OPERATOR = 0,
  ETK_OP_ROW_FRAMEWORK_OVERHEAD, /* method time - operators' total */
  ETK_OP_ROW_METHOD              /* the method event itself (100 %) */
} etk_op_row_kind_t;

/* One row: the same numbers as `etkit inspect --summary` (times in the
 * inspector's target unit, per run: an event contributes its average). */
typedef struct etk_op_summary_row {
  size_t block;
  int kind;                /* etk_op_row_kind_t */
  const char *op_type;     /* NUL-terminated; "framework overhead" or the
                              method name for the closing rows */
  size_t op_type_len;
  uint64_t count;          /* events of this type (0 for the overhead row) */
  double total;            /* sum of their averages */
  double avg;              /* total / count (NaN for the overhead row) */
  double percent;          /* total / method time * 100 (NaN when unknown) */
} etk_op_summary_row_t;

typedef struct etk_op_summary_block {
  double method_time;      /* average of Method::execute (else of
                              Program::load_method); NaN when neither */
  const char *method_name; /* NULL when NaN */
  double operators_total;  /* sum of the counted events' averages */
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
  ETK_DIFF_METRIC_AVG = 0, ETK_DIFF_METRIC_P50, ETK_DIFF_METRIC_P10,
  ETK_DIFF_METRIC_P90, ETK_DIFF_METRIC_MIN, ETK_DIFF_METRIC_MAX
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
  ETK_DIFF_ROW_FRAMEWORK_OVERHEAD  /* method - operators total */
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
  double avg_a, avg_b, p50_a, p50_b;  /* NaN when absent */
  double value_a, value_b; /* the compared metric */
  double delta;            /* value_b - value_a (new: +value_b, missing:
                              -value_a) */
  double change_pct;       /* delta / value_a * 100; NaN when value_a is 0
                              or the row is new/missing */
} etk_diff_row_t;

typedef struct etk_diff_options {
  etk_diff_metric_t metric;  /* default avg */
  int all_rows;              /* also compare OPERATOR_CALL events */
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
 * Rows: per block pair the three total rows, then operators sorted by
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
  etk_inspect_format_t format;  /* table, tsv, csv, json */
  double threshold_pct;         /* hide matched operator rows whose
                                   |change| is below this (0 = show all) */
  double min_delta;             /* ... or whose |delta| is below this */
  int json_indent;              /* default 2 */
  const char *label_a, *label_b;/* e.g. file names; NULL = "A", "B" */
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
  size_t block;            /* inspector block */
  const char *block_name;  /* "" when absent */
  int32_t allocator_id;    /* as stored (1-based into the run's list) */
  const char *name;        /* allocator name, NULL when the id names none */
  uint64_t runs;           /* runs of the block */
  uint64_t runs_with_allocations;
  uint64_t count;          /* allocation events, all runs */
  uint64_t total_bytes;    /* all runs together */
  uint64_t peak_bytes;     /* max over runs of the run's cumulative bytes */
  uint64_t min_run_bytes;  /* min over runs that allocated */
  uint64_t largest_bytes;  /* largest single allocation */
} etk_memory_allocator_t;

typedef struct etk_memory_allocation {
  uint32_t etdump_event;   /* ETDump event index */
  uint32_t run;            /* ETDump run index */
  size_t block;            /* inspector block (SIZE_MAX: none) */
  size_t allocator;        /* index of its etk_memory_allocator_t row */
  uint64_t bytes;
  uint64_t offset_in_run;  /* cumulative bytes of that allocator in the
                              run before this allocation */
  const char *next_event;  /* name of the next profile event of the run in
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
  ETK_TRACE_LAYOUT_AUTO = 0,   /* raw when the runs follow each other on
                                  one clock, else sequential */
  ETK_TRACE_LAYOUT_RAW,        /* raw timestamps (minus the first one) */
  ETK_TRACE_LAYOUT_SEQUENTIAL  /* each run on its own time base, runs
                                  placed one after the other in file order */
} etk_trace_layout_t;

typedef enum etk_trace_tracks {
  ETK_TRACE_TRACKS_BLOCK = 0,  /* one track per event block */
  ETK_TRACE_TRACKS_RUN         /* one track per run */
} etk_trace_tracks_t;

typedef struct etk_trace_options {
  etk_time_scale_t source_time_scale; /* unit of the raw ticks (ns) */
  double clock_hz;         /* cycles -> microseconds */
  int raw_ticks;           /* cycles without clock_hz: write ticks as "us"
                              (otherData says so) instead of failing */
  etk_trace_layout_t layout;
  etk_trace_tracks_t tracks;
  int no_args;             /* omit "args" (smaller files) */
  int no_flows;            /* omit DELEGATE_CALL -> delegate flow arrows */
  uint32_t pid;            /* process id of this dump (default 1) */
  const char *process_name;/* default "ETDump" */
  /* Block selection (none = all): inspector block indices and/or names
   * (run names when no inspector is given). */
  size_t select_index_count;
  size_t select_index[ETK_INSPECT_MAX_SELECT];
  size_t select_name_count;
  const char *select_name[ETK_INSPECT_MAX_SELECT];
} etk_trace_options_t;

void etk_trace_options_init(etk_trace_options_t *o);

typedef struct etk_trace_stats {
  uint64_t runs;           /* runs written */
  uint64_t slices;         /* "X" events for profile events (run slices
                              not included) */
  uint64_t instants;       /* profile events without a usable end */
  uint64_t missing_end;    /* ... of which end_time was absent */
  uint64_t invalid_times;  /* ... of which end < start beyond 32 bits */
  uint64_t wrapped;        /* slices whose 32-bit tick counter wrapped */
  uint64_t overlapping;    /* slices moved to an "overlapping" track
                              because they did not nest */
  uint64_t counters;       /* "C" events (allocations) */
  uint64_t flows;          /* flow arrows */
  int layout;              /* the layout used (never AUTO) */
  double ticks_per_us;     /* conversion used (1 with raw_ticks) */
  double end_us;           /* end of the last run on the timeline */
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

/* ------------------------------------------------ HTML report */

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
} etk_report_options_t;

void etk_report_options_init(etk_report_options_t *o);

/* Writes one self-contained HTML page (no script, no external resource):
 * file facts, dropped-event warning, per-block operator-type summary,
 * events table with statistics, an inline-SVG timeline of the first run
 * of each block, and the memory report.  Every string from the files is
 * escaped with etk_html_text().  Errors: ETK_E_INVALID_ARGUMENT,
 * ETK_E_NO_MEMORY, the sink's error. */
int etk_report_write_html(etk_inspector_t *insp, const etk_report_options_t *o,
                          etk_render_sink_t *sink, etk_error_t *err);

/* ====================================================================
 * NUMERICS (src/inspector/numerics.c): where accuracy goes.
 *
 *   - tensor views over any etkit data (debug buffer, torch.save archive,
 *     bundled program) and the values the runtime logged;
 *   - upstream's numerical comparators (inspector notes 8.3: L1, MSE, SNR,
 *     float64, NaN and broadcasting rules) plus max-abs error and cosine;
 *   - upstream's compare_results (8.4: snr, mse, cosine_similarity in
 *     float32, rounded to 2 decimals, and its exact text);
 *   - an A/B comparison of the intermediate outputs of two traced runs of
 *     the same program (float vs quantized, two backends), per
 *     instruction, in table/TSV/CSV/JSON (`etkit numerics`).
 * See docs/numerics.md.
 * ==================================================================== */

#define ETK_NUMERICS_MAX_DIMS 64

/* A read-only view of a tensor.  Element (i0, i1, ...) is at byte
 * (offset + sum(ik * strides[k])) * element size of `data`. */
typedef struct etk_numerics_tensor {
  int scalar_type;        /* etk_scalar_type_t (c10 codes, etkit/schema.h) */
  uint32_t dim;           /* <= ETK_NUMERICS_MAX_DIMS */
  const int64_t *sizes;   /* dim entries >= 0 (may be NULL when dim is 0) */
  const int64_t *strides; /* in elements, >= 0; NULL = C-contiguous */
  int64_t offset;         /* in elements, >= 0 */
  const void *data;       /* little-endian elements */
  uint64_t data_len;      /* bytes readable at data */
} etk_numerics_tensor_t;

/* Bytes per element of the types the comparisons read: BYTE, CHAR, SHORT,
 * INT, LONG, HALF, FLOAT, DOUBLE, BOOL, BFLOAT16, BITS16, UINT16, UINT32,
 * UINT64; 0 for any other (quantized, float8, ...). */
size_t etk_numerics_element_size(int scalar_type);

/* Checks a view: a readable type, dim, sizes/strides >= 0, every element
 * inside data[0..data_len).  *numel (may be NULL) gets the element count.
 * ETK_E_UNSUPPORTED (type), ETK_E_INVALID_ARGUMENT (shape), ETK_E_BAD_OFFSET
 * (an element outside the data), ETK_E_OVERFLOW. */
int etk_numerics_tensor_check(const etk_numerics_tensor_t *t, uint64_t *numel,
                              etk_error_t *err);

/* Writes "[2, 3]" (Python's list repr of the sizes) into out; snprintf
 * style. */
size_t etk_numerics_shape_text(const etk_numerics_tensor_t *t, char *out,
                               size_t out_size);

/* ------------------------------------------------ upstream comparators */

typedef enum etk_numerics_metric {
  ETK_NUMERICS_L1 = 0, /* sum |a - b| */
  ETK_NUMERICS_MSE,    /* mean (a - b)^2 */
  ETK_NUMERICS_SNR,    /* 10 log10(mean a^2 / mean (a - b)^2), a = reference */
  ETK_NUMERICS_MAX_ABS,/* max |a - b| (etkit) */
  ETK_NUMERICS_COSINE  /* sum ab / (sqrt(sum a^2) sqrt(sum b^2)) (etkit) */
} etk_numerics_metric_t;

/* "L1", "MSE", "SNR", "max_abs", "cosine". */
const char *etk_numerics_metric_name(etk_numerics_metric_t metric);

/* Upstream's distance names: the text stripped and upper-cased must be
 * "L1", "MSE" or "SNR" (etkit adds "MAX_ABS" and "COSINE").
 * ETK_E_INVALID_ARGUMENT otherwise. */
int etk_numerics_metric_parse(const char *name, etk_numerics_metric_t *out);

/* etk_numerics_compare() flags. */
#define ETK_NUMERICS_NO_BROADCAST 0x1u /* shapes must be equal (upstream
                                          broadcasts [3] against [1]) */

/* Upstream's element_compare(a, b) (a = the reference / AOT side): both
 * tensors are read as float64; a tensor holding a NaN gets nan_to_num
 * (NaN -> 0, +inf -> DBL_MAX, -inf -> -DBL_MAX) while infinities of a
 * tensor without NaN are kept; the shapes broadcast like torch (trailing
 * dimensions equal or 1).  SNR's signal is a's own mean square; 0/0 gives
 * NaN, a zero signal with error -inf, no error +inf.  MSE and SNR of empty
 * tensors are NaN; L1 of empty tensors is 0.  Sums are compensated
 * (Neumaier), so results equal torch's up to its float64 summation order.
 * Errors: ETK_E_MISMATCH (shapes that cannot broadcast, or differ under
 * NO_BROADCAST: "shapes [3] and [4] cannot be broadcast"), those of
 * etk_numerics_tensor_check(). */
int etk_numerics_compare(const etk_numerics_tensor_t *a,
                         const etk_numerics_tensor_t *b,
                         etk_numerics_metric_t metric, unsigned flags,
                         double *out, etk_error_t *err);

/* ------------------------------------------------ compare_results */

typedef enum etk_compare_metric {
  ETK_COMPARE_SNR = 0,           /* "snr" */
  ETK_COMPARE_MSE,               /* "mse" */
  ETK_COMPARE_COSINE_SIMILARITY  /* "cosine_similarity" */
} etk_compare_metric_t;

#define ETK_COMPARE_ALL 0x7u /* every metric: bit (1 << etk_compare_metric_t) */

const char *etk_compare_metric_name(etk_compare_metric_t metric);

/* One value of upstream's compare_results: both tensors cast to float32,
 * element-wise arithmetic in float32, then
 *   mse    round(mean((ref - run)^2), 2)
 *   snr    round(10 * log10(mean(ref^2) / mean((ref - run)^2)), 2)
 *   cosine round(sum(ref * run) / (sqrt(sum ref^2) * sqrt(sum run^2)), 2)
 * with Python's round() (correctly rounded, ties to even).  Reductions are
 * accumulated in float64 and rounded to float32 once (torch sums in
 * float32 blocks), which can only matter at a rounding boundary of the
 * second decimal.  mse/snr broadcast like torch; cosine needs equal shapes
 * (ETK_E_MISMATCH "Input tensors must have the same shape", upstream's
 * ValueError). */
int etk_compare_results_value(const etk_numerics_tensor_t *reference,
                              const etk_numerics_tensor_t *run,
                              etk_compare_metric_t metric, double *out,
                              etk_error_t *err);

/* One (reference, run) pair; a NULL side is not a tensor (upstream puts
 * None in its lists, and its print then fails; etkit prints "None"). */
typedef struct etk_compare_pair {
  const etk_numerics_tensor_t *reference;
  const etk_numerics_tensor_t *run;
} etk_compare_pair_t;

/* Upstream's compare_results(reference, run, metrics, plot=False) output
 * for pairs[0..count) (the pairs of zip(reference, run)): for each metric
 * of the mask (0 = all) in the order snr, mse, cosine_similarity, the
 * metric name, a line of 20 '-', one line per pair printed as
 * f"{i:<5}{v:>8.5f}" (a pair with a non-tensor side: f"{i:<5}{'None':>8}"),
 * then "\n\n".  values (may be NULL) receives 3 * count doubles, [metric *
 * count + i] (NaN when not computed).  A metric that fails stops the
 * output after the metrics already printed, like upstream's exception.
 * Errors: those of etk_compare_results_value() naming the output index,
 * the sink's ETK_E_IO. */
int etk_compare_results_write(const etk_compare_pair_t *pairs, size_t count,
                              unsigned metrics, etk_render_sink_t *sink,
                              double *values, etk_error_t *err);

/* Python's f"{v:>8.5f}" of a double (NaN -> "nan", never "-nan") into
 * out[0..out_size); snprintf-style return value. */
size_t etk_compare_format_value(double v, char *out, size_t out_size);

/* ------------------------------------------------ logged values */

typedef enum etk_numerics_value_kind {
  ETK_NUMERICS_VALUE_NONE = 0, /* Null or String value: upstream's None */
  ETK_NUMERICS_VALUE_TENSOR,   /* a tensor (or one item of a TensorList) */
  ETK_NUMERICS_VALUE_SCALAR,   /* Int, Bool, Float, Double (as a double) */
  ETK_NUMERICS_VALUE_TENSOR_LIST /* a TensorList asked for as a whole */
} etk_numerics_value_kind_t;

/* A logged debug value, inflated as upstream's Inspector does (notes
 * 8.1): the tensor's bytes at its offset in the debug buffer, read as
 * contiguous in `sizes` order (strides are ignored, as upstream). */
typedef struct etk_numerics_value {
  int kind;            /* etk_numerics_value_kind_t */
  int value_type;      /* etk_etdump_value_type_t of the Value */
  uint32_t list_count; /* TensorList: number of tensors */
  double scalar;       /* SCALAR */
  int scalar_type;     /* TENSOR */
  uint32_t dim;
  int64_t sizes[ETK_NUMERICS_MAX_DIMS];
  const uint8_t *data; /* into the debug buffer (NULL when empty) */
  uint64_t nbytes;
} etk_numerics_value_t;

/* Inflates the value of debug event `etdump_event` of `dump` from the debug
 * buffer buf[0..len): item 0 of a single value; item k of a TensorList
 * gives that tensor (kind TENSOR, list_count set), item ~0u the list as a
 * whole (kind TENSOR_LIST, no data).  Errors: ETK_E_INVALID_ARGUMENT (not
 * a debug event, item out of range), ETK_E_FORMAT (no debug_entry),
 * ETK_E_UNSUPPORTED (a dtype upstream cannot inflate), ETK_E_LIMIT (more
 * than ETK_NUMERICS_MAX_DIMS dims), ETK_E_BAD_OFFSET (bytes outside the
 * buffer; also when buf is NULL and the tensor is not empty). */
int etk_numerics_debug_value(const etk_etdump_t *dump, const uint8_t *buf,
                             size_t len, size_t etdump_event, uint32_t item,
                             etk_numerics_value_t *out, etk_error_t *err);

/* A view of a TENSOR or SCALAR value (a 0-d DOUBLE view of v->scalar).
 * The view points into *v, which must outlive it.  0 for other kinds. */
int etk_numerics_value_view(const etk_numerics_value_t *v,
                            etk_numerics_tensor_t *view);

/* ------------------------------------------------ A/B of two runs */

typedef enum etk_numerics_status {
  ETK_NUMERICS_MATCHED = 0,   /* both sides: metrics computed */
  ETK_NUMERICS_ONLY_A,        /* logged in A only */
  ETK_NUMERICS_ONLY_B,        /* logged in B only */
  ETK_NUMERICS_SHAPE_MISMATCH,/* both, different shapes: no metrics */
  ETK_NUMERICS_KIND_MISMATCH, /* tensor vs scalar / list / None */
  ETK_NUMERICS_NOT_NUMERIC    /* None values, or a type that cannot be read */
} etk_numerics_status_t;

/* "matched", "only in A", "only in B", "shape mismatch", "kind mismatch",
 * "not numeric". */
const char *etk_numerics_status_name(etk_numerics_status_t status);

typedef struct etk_numerics_row {
  const char *block;          /* block name ("" when absent) */
  size_t block_occurrence;    /* k-th block of that name (0-based) */
  size_t block_a, block_b;    /* inspector blocks (SIZE_MAX: absent) */
  int is_output;              /* a program output (output=true) */
  int32_t chain_index;        /* of the logged value (-1 when unset) */
  int32_t instruction_id;     /* -1 for program outputs */
  int64_t delegate_debug_id_int;     /* -1 when none */
  const char *delegate_debug_id_str; /* NULL when none */
  uint32_t output_index;      /* n-th value logged for this instruction
                                 and delegate id in the run (n-th program
                                 output for outputs) */
  int32_t list_item;          /* TensorList item, -1 for a single value */
  const char *name;           /* the debug event's name, else the profile
                                 event of its instruction (not
                                 OPERATOR_CALL), else "" */
  uint32_t event_a, event_b;  /* ETDump event indices, UINT32_MAX absent */
  int status;                 /* etk_numerics_status_t */
  const char *dtype_a, *dtype_b; /* "float32", ... (NULL when absent) */
  const char *shape_a, *shape_b; /* "[1, 4, 8, 8]" (NULL when absent) */
  uint64_t numel;             /* elements compared */
  double mse, snr, max_abs, cosine; /* NaN unless MATCHED (A = reference) */
  const char *op_types;       /* set by etk_numerics_ab_set_op_types(),
                                 NULL when none */
} etk_numerics_row_t;

typedef struct etk_numerics_ab_options {
  int skip_outputs;           /* leave program outputs out */
} etk_numerics_ab_options_t;

typedef struct etk_numerics_ab etk_numerics_ab_t;

/* Pairs the blocks of `a` and `b` by name and occurrence (the k-th block
 * named "Execute" in A with the k-th in B), then, in the FIRST run of each
 * pair, every logged value by key (program output or not, instruction id,
 * delegate debug id, output index) and TensorList item, and computes MSE,
 * SNR, max abs error and cosine (etk_numerics_compare, float64, A as the
 * reference) for each matched pair of equal shape.  Rows are sorted by
 * block pair, then instruction id, delegate id, output index, item, with
 * program outputs last.  The inspectors and buffers are borrowed until
 * etk_numerics_ab_free().  Errors: ETK_E_INVALID_ARGUMENT, ETK_E_NO_MEMORY,
 * and the inflation errors of a value (err->where "A" or "B", the message
 * naming the ETDump event). */
int etk_numerics_ab_build(const etk_inspector_t *a, const uint8_t *a_buffer,
                          size_t a_len, const etk_inspector_t *b,
                          const uint8_t *b_buffer, size_t b_len,
                          const etk_numerics_ab_options_t *options,
                          etk_numerics_ab_t **out, etk_error_t *err);
void etk_numerics_ab_free(etk_numerics_ab_t *ab);
size_t etk_numerics_ab_row_count(const etk_numerics_ab_t *ab);
/* ETK_E_INVALID_ARGUMENT out of range.  Strings live until the next
 * set_op_types on that row or free. */
int etk_numerics_ab_row_get(const etk_numerics_ab_t *ab, size_t index,
                            etk_numerics_row_t *out);
/* Blocks of A (B) without a partner of the same name and occurrence. */
size_t etk_numerics_ab_unpaired_blocks(const etk_numerics_ab_t *ab, int of_b);
/* Attaches the op types text of a row (copied; e.g. "aten.relu.default"
 * from an ETRecord link).  NULL clears it. */
int etk_numerics_ab_set_op_types(etk_numerics_ab_t *ab, size_t index,
                                 const char *op_types);

typedef struct etk_numerics_render_options {
  etk_inspect_format_t format; /* table, tsv, csv, json */
  int json_indent;             /* default 2 */
  const char *label_a, *label_b; /* JSON "a"/"b" (NULL = "A", "B") */
} etk_numerics_render_options_t;

void etk_numerics_render_options_init(etk_numerics_render_options_t *o);

/* Columns: event_block_name, instruction, delegate_debug_id, output,
 * event_name, op_types, dtype, shape, mse, snr (dB), max_abs_error,
 * cosine, status.  dtype and shape show "A | B" when the sides differ;
 * instruction is "output" for program outputs; output is "k" or "k[i]"
 * (item i of a TensorList).  json: {"a", "b", "unpaired_blocks_a",
 * "unpaired_blocks_b", "rows": [...]} with typed values (NaN/inf as
 * null). */
int etk_numerics_ab_render(const etk_numerics_ab_t *ab,
                           const etk_numerics_render_options_t *o,
                           etk_render_sink_t *sink, etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_INSPECTOR_H */
