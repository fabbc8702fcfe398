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
#include "etkit/inspector_core.h"

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

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_LINK_H */
