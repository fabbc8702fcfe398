/*
 * link_match.c - does an ETRecord belong to the program that wrote an
 * ETDump?  The counts are kept in etk_etrecord_link_summary_t while the
 * events are linked, and told as one warning line.
 *
 * An ETRecord of another program used to be caught only when it linked
 * nothing.  Two partial signs count too:
 *   - an event names an instruction past the last one the method's
 *     debug-handle and delegate maps know: the ETDump's program is longer
 *     than the ETRecord's, so it is another program;
 *   - of the events that carry an instruction id or a delegate debug id
 *     (framework events such as Method::execute carry neither and are
 *     left out), more than half get no debug handle, with at least
 *     MIN_EVENTS such events (a tiny dump proves nothing).
 * The words stay those of the "matches nothing" warning ("an ETRecord of
 * another program?"), so a user, a script or a test looks for one phrase.
 */
#include "link_match.h"

#include <inttypes.h>
#include <stdio.h>

#define MIN_EVENTS 4

int64_t link_last_instruction(const etk_etrecord_t *rec, const char *method) {
  const etk_etrecord_method_maps_t *m = etk_etrecord_maps_find(rec, method);
  int64_t last = -1;
  for (size_t i = 0; m && i < m->handle_count; i++)
    if (m->handles[i].instruction_id > last)
      last = m->handles[i].instruction_id;
  for (size_t i = 0; m && i < m->delegate_count; i++)
    if (m->delegates[i].instruction_id > last)
      last = m->delegates[i].instruction_id;
  return last;
}

void link_count_event(etk_etrecord_link_summary_t *s,
                      const etk_inspector_event_t *ev, int64_t last,
                      bool linked) {
  bool delegate_id = ev->is_delegated_op &&
                     (ev->delegate_id_is_int || ev->delegate_debug_id_str);
  if (ev->instruction_id < 0 && !delegate_id) return;
  s->with_ids++;
  if (!linked) s->unlinked_ids++;
  if (last >= 0 && ev->instruction_id > last) s->beyond++;
  if (last > s->last_instruction) s->last_instruction = last;
}

bool link_mismatch_line(const etk_etrecord_link_summary_t *s, bool nothing,
                        size_t events, const char *record,
                        const char *none_tail, const char *part_tail,
                        char *line, size_t size) {
  if (!record) record = "the ETRecord";
  if (nothing && events) {
    snprintf(line, size,
             "%s matches nothing in the ETDump: none of the ETDump's %zu "
             "events has an instruction id or delegate debug id in the "
             "ETRecord's debug-handle and delegate maps (an ETRecord of "
             "another program?); %s",
             record, events, none_tail);
    return true;
  }
  if (nothing) return false;
  if (s->beyond) {
    snprintf(line, size,
             "%s matches the ETDump only in part: %zu of the ETDump's events "
             "name instructions past the last one in the ETRecord's "
             "debug-handle and delegate maps (%" PRId64
             ") (an ETRecord of another program?); %s",
             record, s->beyond, s->last_instruction, part_tail);
    return true;
  }
  if (s->with_ids >= MIN_EVENTS && s->unlinked_ids * 2 > s->with_ids) {
    snprintf(line, size,
             "%s matches the ETDump only in part: %zu of the ETDump's %zu "
             "events with an instruction id or delegate debug id are not in "
             "the ETRecord's debug-handle and delegate maps (an ETRecord of "
             "another program?); %s",
             record, s->unlinked_ids, s->with_ids, part_tail);
    return true;
  }
  return false;
}
