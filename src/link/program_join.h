/*
 * program_join.h - private to etkit_link: an ETDump's events on a
 * program's graph (etk_graph_from_program(), etkit/graph.h), joined by
 * instruction id instead of debug handles (program_join.c, used by
 * graph_figures.c).
 */
#ifndef ETKIT_LINK_PROGRAM_JOIN_H
#define ETKIT_LINK_PROGRAM_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/graph.h"
#include "etkit/inspector_core.h"

/* How well a program fits an ETDump (another program's dump?). */
typedef struct program_fit {
  size_t with_ids; /* events of instructions (not framework, not a
                      delegate's own events) */
  size_t beyond;   /* of those, naming an instruction the chain lacks */
  size_t wrong_op; /* of those, an event whose name is not that of its
                      instruction's operator (or a DELEGATE_CALL at a
                      kernel call, a kernel's at a delegate call) */
  int64_t last;    /* the method's last instruction of chain 0 */
} program_fit_t;

/* The node event `ev` (named `name`) covers: the call node of its
 * (chain, instruction); ETK_GRAPH_NONE for events without an
 * instruction, a delegate's own events (their DELEGATE_CALL event times
 * the whole call, so they would count twice), instructions out of range
 * or folded, and events whose name is another operator's.  `fit` (may be
 * NULL) counts the event. */
size_t program_event_node(const etk_graph_t *g, const etk_inspector_event_t *ev,
                          const char *name, program_fit_t *fit);

/* Whether an event block named `block_name` (NULL = unnamed) ran the
 * graph's method: a block named after a method ran that one, any other
 * the default ("forward", else the program's first method). */
bool program_block_ran_method(const etk_graph_t *g, const char *block_name);

/* Outputs of the DelegateCall at (chain, instruction): its out arguments,
 * -1 when that instruction is not a delegate call of the graph. */
int64_t program_delegate_outputs(const etk_graph_t *g, int64_t chain,
                                 int64_t instruction);

/* The warning about a program that does not fit (`nothing`: no event
 * reached a node, `events` events looked at; `name`: the program's path
 * or NULL) into `line`; false when it fits. */
bool program_mismatch_line(const program_fit_t *fit, bool nothing,
                           size_t events, const char *name, char *line,
                           size_t size);

#endif /* ETKIT_LINK_PROGRAM_JOIN_H */
