/*
 * link_match.h - private to etkit_link: how well an ETRecord fits an
 * ETDump (link_match.c), counted while events are linked
 * (inspector_link.c, graph_figures.c) and told as one warning line
 * (link_policy.c, graph_figures.c), so that every front end words an
 * ETRecord of another program the same way.
 */
#ifndef ETKIT_LINK_MATCH_H
#define ETKIT_LINK_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/link.h"

/* The last instruction id of `method`'s debug-handle and delegate maps
 * (NULL = "forward"), or -1 when the record has no maps for it. */
int64_t link_last_instruction(const etk_etrecord_t *rec, const char *method);

/* Counts event `ev` into s->with_ids, s->unlinked_ids and s->beyond
 * (`linked`: the maps gave it debug handles; `last`: from
 * link_last_instruction()); raises s->last_instruction to `last`. */
void link_count_event(etk_etrecord_link_summary_t *s,
                      const etk_inspector_event_t *ev, int64_t last,
                      bool linked);

/* The warning about `record` (a path or name; NULL = "the ETRecord") in
 * `line`, or false when it fits.  `nothing`: no event linked at all (the
 * caller's own test; `events` is then the count it names), which gives
 * the "matches nothing" line ending in `none_tail`; else a partial
 * mismatch (an instruction id past the maps' last, or most events with
 * ids unlinked) gives a line ending in `part_tail`. */
bool link_mismatch_line(const etk_etrecord_link_summary_t *s, bool nothing,
                        size_t events, const char *record,
                        const char *none_tail, const char *part_tail,
                        char *line, size_t size);

#endif /* ETKIT_LINK_MATCH_H */
