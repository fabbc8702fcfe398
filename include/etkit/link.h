/*
 * etkit/link.h - fills an Inspector's ETRecord-link slots from an ETRecord
 * (library etkit_link, above etkit_etrecord and etkit_inspector): debug
 * handles, op types, stack traces, module stacks and node origins.
 */
#ifndef ETKIT_LINK_H
#define ETKIT_LINK_H

#include <stddef.h>

#include "etkit/common.h"
#include "etkit/etrecord.h"
#include "etkit/graph.h"
#include "etkit/inspector_core.h"
#include "etkit/numerics.h"
#include "etkit/significance.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------- filling an Inspector's links */

/* Library etkit_link (links etkit_etrecord and etkit_inspector;
 * include etkit/inspector.h to use the inspector itself). */
typedef struct etk_inspector etk_inspector_t;

typedef struct etk_etrecord_link_summary {
  size_t events;              /* Inspector events looked at */
  size_t linked;              /* events that received debug handles */
  size_t with_nodes;          /* events that received at least one graph node */
  size_t no_delegate_mapping; /* upstream's "No delegate mapping found" */
  /* How well the ETRecord fits (an ETRecord of another program?): */
  size_t with_ids;          /* events with an instruction id or a delegate
                               debug id (framework events have neither) */
  size_t unlinked_ids;      /* of those, events that got no debug handle */
  size_t beyond;            /* of those, events naming an instruction past
                               the last one of the method's maps */
  int64_t last_instruction; /* that last instruction (the largest over the
                               linked methods; 0 when none) */
} etk_etrecord_link_summary_t;

/* Links every event of `insp` to `rec` (etk_etrecord_linker_resolve() with
 * `flags`) and stores the result with etk_inspector_event_set_link():
 * debug_handles, num_outputs, delegate_backend_name, op_types (one per
 * associated node, duplicates kept) and the stack_traces/module_hierarchy
 * nodes, named like upstream's operator graph (FX node name + "_") with
 * the raw nn_module_stack text as module hierarchy.  `method` is the
 * method whose maps and edge program are used for every event (NULL =
 * "forward", which is what upstream does; ETDump blocks do not name their
 * method; etk_etrecord_inspector_link_block() below links per block).  Each
 * linked node's origin is stored too (etk_inspector_event_set_origins()).
 * Events that resolve to nothing keep the inspector's defaults.
 * `summary` may be NULL.  Errors: ETK_E_INVALID_ARGUMENT (NULL rec/insp),
 * ETK_E_NO_MEMORY, and the edge program's load errors.  Call it once,
 * right after opening the inspector.
 *
 *     etk_etrecord_link_summary_t sum;
 *     int rc = etk_etrecord_inspector_link(rec, insp, NULL, 0, &sum, &err);
 *     // etk_inspector_render() now fills op_types, stack_traces, ...
 */
int etk_etrecord_inspector_link(etk_etrecord_t *rec, etk_inspector_t *insp,
                                const char *method, unsigned flags,
                                etk_etrecord_link_summary_t *summary,
                                etk_error_t *err);

/* ---------------------------------------- methods of blocks (etkit additions)
 *
 * ETDump blocks do not name their method (the runtime calls every run
 * "Execute"), so which method's maps link a block is a choice.  Upstream
 * uses "forward" for every block.  etkit's default, for a block named B:
 *   1. the method named B, when the record has one (a runner that names its
 *      blocks after methods gets every method linked);
 *   2. else "forward", when the record has it;
 *   3. else the record's only method, when it has exactly one;
 *   4. else none: the block stays unlinked.
 * Callers may override per block (etkit inspect --method).  Linking also
 * attaches each node's origin (innermost user frame of its stack trace,
 * decoded nn_module_stack) with etk_inspector_event_set_origins(), which
 * the inspector's module view, module totals and source column use. */

/* Methods of the record: those named by the three maps (first-seen order),
 * then those that only have an edge program.  NULL when `index` is out of
 * range.  The string belongs to the record. */
const char *etk_etrecord_method_at(const etk_etrecord_t *rec, size_t index);

/* True when `method` is one of etk_etrecord_method_at()'s names. */
bool etk_etrecord_has_method(const etk_etrecord_t *rec, const char *method);

/* The default method of an event block named `block_name` (rules above;
 * NULL name = no name), or NULL when the record has none to offer.  The
 * string belongs to the record. */
const char *etk_etrecord_block_method(const etk_etrecord_t *rec,
                                      const char *block_name);

/* Links the events of inspector block `block` with `method` (NULL =
 * etk_etrecord_block_method() of the block's name; when that is NULL too,
 * nothing is linked and ETK_OK is returned) and `flags`, exactly like
 * etk_etrecord_inspector_link() does for all blocks, origins included.
 * Adds its counts to *summary (which the caller zeroes; may be NULL).
 * Errors: ETK_E_INVALID_ARGUMENT (NULL rec/insp, block out of range),
 * ETK_E_NO_MEMORY, and the edge program's load errors. */
int etk_etrecord_inspector_link_block(etk_etrecord_t *rec,
                                      etk_inspector_t *insp, size_t block,
                                      const char *method, unsigned flags,
                                      etk_etrecord_link_summary_t *summary,
                                      etk_error_t *err);

/* etk_etrecord_inspector_link_block() with the nodes taken from the graph
 * `graph` (etk_etrecord_linker_set_graph(): upstream's
 * reference_graph_name) instead of the method's edge program; NULL =
 * etk_etrecord_inspector_link_block().  The debug handles still come from
 * `method`'s maps.  Errors: those of etk_etrecord_inspector_link_block(),
 * ETK_E_NOT_FOUND (no such graph) and the graph's load errors. */
int etk_etrecord_inspector_link_block_graph(
    etk_etrecord_t *rec, etk_inspector_t *insp, size_t block,
    const char *method, const char *graph, unsigned flags,
    etk_etrecord_link_summary_t *summary, etk_error_t *err);

/* ------------------------------------------- link policy (etkit inspect)
 *
 * What `etkit inspect --etrecord_path` and the Python Inspector do with an
 * ETRecord: pick a method per block (explicit choices first, then
 * etk_etrecord_block_method()), link every block, and report what could
 * not be linked.  Notes and warnings are one line each, without prefix or
 * newline, through a callback (NULL = dropped). */

typedef void (*etk_note_fn)(void *ctx, int is_warning, const char *line);

#define ETK_LINK_POLICY_MAX_METHODS 64

typedef struct etk_link_policy {
  /* upstream's rules: top graph only, framework events and substring
   * delegate ids, "forward" for every block not named below */
  int upstream_quirks;
  const char *method_all; /* link every block with this method (NULL) */
  /* per-block choices: block `method_block[i]` (an index or an exact block
   * name) links with `method_name[i]`; a later choice wins */
  size_t method_count;
  const char *method_block[ETK_LINK_POLICY_MAX_METHODS];
  const char *method_name[ETK_LINK_POLICY_MAX_METHODS];
  const char *record_name; /* names the ETRecord in messages (a path) */
  /* upstream's reference_graph_name: the graph whose nodes give every
   * event its op types, stack traces and module hierarchy (a graph-map
   * member "<module>/<method>", "<module>" for "<module>/forward",
   * "exported_program", ...; etk_etrecord_graph_load()).  NULL or
   * "edge_dialect_graph_module" (upstream's default): each block's
   * method's edge program. */
  const char *reference_graph;
  etk_note_fn note; /* warnings (may be NULL) */
  void *note_ctx;
} etk_link_policy_t;

/* Zeroes a policy (etkit's rules, default methods, no callback). */
void etk_link_policy_init(etk_link_policy_t *policy);

/* Links every block of `insp` with `rec` under `policy` (NULL = defaults).
 * Warnings: a record that names no method (nothing is linked), a block
 * whose method cannot be chosen, delegated events without a delegate_map
 * entry, a record that links none of the dump's events (an ETRecord of
 * another program) or links handles naming no node.  Errors: ETK_E_NOT_FOUND (a
 * chosen method the record lacks, listing the record's methods),
 * ETK_E_NOT_FOUND (a reference_graph the record lacks: "reference graph
 * 'X' is not in the ETRecord (graphs: ...)", nothing linked),
 * ETK_E_INVALID_ARGUMENT (a block choice that names no block), and those of
 * etk_etrecord_inspector_link_block() (err->where then starts with
 * record_name). */
int etk_etrecord_link_with_policy(etk_etrecord_t *rec, etk_inspector_t *insp,
                                  const etk_link_policy_t *policy,
                                  etk_etrecord_link_summary_t *summary,
                                  etk_error_t *err);

/* Puts `path` in front of err->where ("<path>: <member>"), as the errors
 * above do; for errors of etk_etrecord_open_file() on that path. */
void etk_etrecord_error_where(etk_error_t *err, const char *path);

/* ------------------------------------------- compare_results (etkit inspect)
 *
 * Library etkit_link (src/link/compare_outputs.c). */

typedef struct etk_reference_outputs etk_reference_outputs_t;
struct etk_render_sink;

/* Reference outputs: the test cases of the bundled program at `bpte_path`
 * (method "forward") when given, else `rec`'s reference_outputs (`rec` is
 * borrowed and must outlive the result; `etrecord_path` names it in
 * messages).  Errors (naming the file): ETK_E_NOT_FOUND (no forward suite,
 * no reference_outputs member), ETK_E_INVALID_ARGUMENT (neither given),
 * the readers' errors, ETK_E_NO_MEMORY. */
int etk_reference_outputs_open(const char *bpte_path, etk_etrecord_t *rec,
                               const char *etrecord_path,
                               etk_reference_outputs_t **out, etk_error_t *err);
void etk_reference_outputs_free(etk_reference_outputs_t *ref);

/* Callbacks of etk_compare_results_inspector() (each may be NULL). */
typedef struct etk_compare_report {
  etk_note_fn note; /* notes and warnings, one line each */
  /* after each compared block: values[metric * count + i] for metric snr,
   * mse, cosine_similarity (etk_compare_metric_t) and output i */
  void (*block)(void *ctx, size_t block, size_t count, const double *values);
  void *ctx;
} etk_compare_report_t;

/* Upstream's compare_results for every event block named "Execute" of
 * `insp`: its program outputs (inflated from the debug buffer
 * dbuf[0..dlen)) against the reference outputs of its bundled input index
 * (-1 = the last case, as upstream), written as text into `sink` (not
 * flushed).  Errors: ETK_E_NOT_FOUND (no "Execute" block, a block without
 * program outputs, a case that does not exist), the inflation errors of a
 * value, ETK_E_MISMATCH (shapes cosine cannot compare; the message starts
 * "event block B: "), ETK_E_NO_MEMORY. */
int etk_compare_results_inspector(const etk_reference_outputs_t *ref,
                                  const etk_inspector_t *insp,
                                  const uint8_t *dbuf, size_t dlen,
                                  struct etk_render_sink *sink,
                                  const etk_compare_report_t *report,
                                  etk_error_t *err);

/* ------------------------------------------- instructions to graph nodes */

/* The node that ran instruction `instruction` of chain 0 of `method`
 * (NULL = "forward"): its debug_handle_map entry's handles, then the first
 * node of the edge program's top graph with one of them (a nested node
 * when the top graph has none).  *node is NULL when the instruction has no
 * entry or no node.  ETK_E_NOT_FOUND (err names what is missing) when the
 * record has no debug handle map or no edge program for the method; the
 * edge program's load errors otherwise.  Used by `etkit memory --etrecord`
 * to name planned tensors after the node of their first instruction. */
int etk_etrecord_instruction_node(etk_etrecord_t *rec, const char *method,
                                  int64_t instruction,
                                  const etk_etrecord_node_t **node,
                                  etk_error_t *err);

/* Names the tensors of `plan` (etkit/memory_plan.h) after the node that
 * ran their first instruction (etk_etrecord_instruction_node(); tensors of
 * chain 0 that are not method inputs): name, innermost module path and
 * stack trace.  A record without the plan's method (no debug handle map or
 * edge program) names nothing and gives one note through `note` (may be
 * NULL).  Errors: the edge program's load errors, ETK_E_NO_MEMORY. */
struct etk_memory_plan;
int etk_memory_plan_name_from_etrecord(struct etk_memory_plan *plan,
                                       etk_etrecord_t *rec, etk_note_fn note,
                                       void *note_ctx, etk_error_t *err);

/* ------------------------------------------- the graph with its figures
 *
 * Library etkit_link (src/link/graph_figures.c): the ETRecord graph of
 * etkit/graph.h joined with what an ETDump measured.  Every Inspector
 * event is resolved with the ETRecord linker (the graph's method, top
 * graph and nested nodes) to debug handles and from them to the graph's
 * nodes; an event covers each node it names.  A node that no event
 * reaches has reached == false and NaN figures: it is never given a 0.
 *
 * A program's graph (etk_graph_from_program(), no ETRecord) joins by
 * instruction id instead: an event covers the call node of its (chain,
 * instruction) when its name fits the instruction (the operator's kernel
 * event, DELEGATE_CALL at a delegate call); a delegate's own events are
 * left out (the DELEGATE_CALL times the call).  Numerical error then
 * needs `against` or `reference` (a program has no reference outputs),
 * and only a delegate call's out arguments count as its outputs.
 * record_name names the program in the warning. */

typedef struct etk_graph_node_figures {
  bool reached;       /* at least one event covers this node */
  size_t event_count; /* timed events counted for it: those covering the
                         fewest nodes (a delegated op's own event wins
                         over the DELEGATE_CALL covering its partition) */
  bool shared;        /* a counted event covers other nodes too (a
                         decomposed op): its time is the event's */
  uint64_t count;     /* runs: the largest sample count of its events */
  /* Per run, in the Inspector's time unit (ms by default): the sum over
   * its events of their mean and of their median durations.  NaN when no
   * event with timing reached it. */
  double avg, p50;
  /* avg as a percentage of the mean of the block's Method::execute
   * events; NaN without Method::execute events. */
  double share;
  /* Numerical error of its outputs (the worst output: the largest MSE),
   * against the run given as `against` (A = this run is the reference,
   * as `etkit numerics`) or the caller's reference values; without
   * either, with a debug buffer: the program outputs against the
   * ETRecord's reference_outputs (compare_results' pairs), given to the
   * nodes producing the user outputs.  NaN and has_error false when
   * nothing was compared. */
  bool has_error;
  double mse, snr, max_abs, cosine;
  /* Integer and bool outputs (indices, flags: max_pool's argmax) against
   * `against`: elements compared and those that differ (exact match, not
   * an MSE; they stay out of mse/snr).  A delegate call's logged inputs
   * and constant arguments are left out: only its last num_outs values
   * (instruction_id_to_num_outs_map) are its outputs. */
  uint64_t int_compared, int_mismatches;
  /* The mean and median per run of the DELEGATE_CALL event whose
   * partition holds this node (NaN when none): a delegated partition's
   * own time, overhead included. */
  double call_avg, call_p50;
} etk_graph_node_figures_t;

/* Caller-supplied reference value of output `output` of graph node `node`
 * (for example an interpreter's): return ETK_OK and fill *out (which must
 * stay valid until etk_graph_figures_compute() returns), ETK_E_NOT_FOUND
 * when there is none, another code to stop with an error. */
typedef int (*etk_graph_reference_fn)(void *ctx, size_t node, uint32_t output,
                                      etk_numerics_tensor_t *out);

typedef struct etk_graph_figures_options {
  /* The event block: ETK_GRAPH_NONE = the first block whose method
   * (etk_etrecord_block_method()) is the graph's method and that has an
   * event other than Method::init and Program::load_method (the first
   * "Execute" block); else that block (an etk_inspector_block_get()
   * index). */
  size_t block;
  /* The debug buffer of `insp`'s run (for numerical error), or NULL. */
  const uint8_t *debug_buffer;
  size_t debug_buffer_len;
  /* A second run of the same program (`etkit numerics` A/B): its
   * inspector and debug buffer, or NULL. */
  const etk_inspector_t *against;
  const uint8_t *against_buffer;
  size_t against_buffer_len;
  /* Reference values per node output instead of `against` (NULL). */
  etk_graph_reference_fn reference;
  void *reference_ctx;
  /* Notes and warnings, one line each (NULL = dropped): an ETDump that
   * matches nothing in the record gives the same warning as the other
   * commands ("... an ETRecord of another program?") and no figures. */
  etk_note_fn note;
  void *note_ctx;
  const char *record_name; /* names the ETRecord in warnings (a path) */
} etk_graph_figures_options_t;

/* Fills *opts with the defaults (block ETK_GRAPH_NONE, all else NULL/0). */
void etk_graph_figures_options_init(etk_graph_figures_options_t *opts);

typedef struct etk_graph_figures {
  size_t node_count;                     /* = etk_graph_node_count() */
  const etk_graph_node_figures_t *nodes; /* one per graph node */
  bool linked;           /* some event reached some node; false for an ETDump
                            of another program (warning given) */
  bool has_timing;       /* some reached node has timing */
  bool has_error;        /* some node has numerical error */
  double execute_avg;    /* mean Method::execute duration, NaN when none */
  const char *time_unit; /* "ms", "us", ... */
  size_t events, linked_events;
  /* Per node i, its timed events' durations added run by run (run k of
   * each counted event), in time_unit: samples[sample_start[i] ..
   * sample_start[i + 1]) (count entries; none without timing). */
  const double *samples;
  const size_t *sample_start;
} etk_graph_figures_t;

/* Computes the figures of every node of `g` from `insp` (borrowed, not
 * modified; it need not be linked).  The result is owned by the caller
 * (etk_graph_figures_free()).  Errors: ETK_E_INVALID_ARGUMENT (NULL
 * g/insp/out), ETK_E_NO_MEMORY, the linker's and the value inflation
 * errors (a value that cannot be compared is skipped with a note, not an
 * error). */
int etk_graph_figures_compute(etk_graph_t *g, etk_inspector_t *insp,
                              const etk_graph_figures_options_t *opts,
                              etk_graph_figures_t **out, etk_error_t *err);

/* Frees figures (NULL is a no-op). */
void etk_graph_figures_free(etk_graph_figures_t *f);

/* The change of each node's time from run set A to run set B, tested as
 * `etkit diff A... --vs B...` and `store compare` do (etkit/
 * significance.h): all samples of a side pooled (every run of every
 * dump), medians, the Hodges-Lehmann shift with its interval, the
 * Mann-Whitney p, Benjamini-Hochberg over the compared nodes, and the
 * rule (q <= alpha, the interval excludes 0, |shift| >= min_pct). */
typedef struct etk_graph_node_change {
  bool compared;              /* samples on both sides */
  bool significant;           /* a change by the rule */
  double baseline, candidate; /* medians (time_unit) */
  double delta;               /* shift / baseline median (0.1 = +10 %) */
  double ci_low, ci_high;     /* its interval, same scale */
  double q_value;
} etk_graph_node_change_t;

/* Fills out[0..node_count) (caller array) from a[0..na) and b[0..nb) of
 * one graph (NULL entries skipped); rule NULL = etk_change_rule_init().
 * Nodes without samples on a side have compared false and NaN figures.
 * ETK_E_INVALID_ARGUMENT (no figures on a side, node counts differ),
 * ETK_E_NO_MEMORY. */
int etk_graph_figures_compare(const etk_graph_figures_t *const *a, size_t na,
                              const etk_graph_figures_t *const *b, size_t nb,
                              const etk_change_rule_t *rule,
                              etk_graph_node_change_t *out, etk_error_t *err);

/* Overlays of the figures as one value per node, for
 * etk_graph_node_data_t (Model Explorer node data) and the HTML view. */
typedef enum etk_graph_overlay {
  ETK_GRAPH_OVERLAY_TIME = 0, /* avg */
  ETK_GRAPH_OVERLAY_SHARE,    /* share (%) */
  ETK_GRAPH_OVERLAY_COUNT,    /* count */
  ETK_GRAPH_OVERLAY_MSE,      /* mse */
  ETK_GRAPH_OVERLAY_SNR       /* snr (dB) */
} etk_graph_overlay_t;

/* Parses "time", "share", "count", "mse"/"error", "snr".  ETK_E_NOT_FOUND
 * for another name. */
int etk_graph_overlay_parse(const char *name, etk_graph_overlay_t *out);

/* Fills values[0..f->node_count) and has_value[] (caller arrays) with one
 * overlay: has_value false where the node has no such figure. */
void etk_graph_figures_overlay(const etk_graph_figures_t *f,
                               etk_graph_overlay_t overlay, double *values,
                               bool *has_value);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_LINK_H */
