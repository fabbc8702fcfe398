/*
 * trace_events.c - a streaming writer of the Chrome Trace Event Format
 * (the JSON that chrome://tracing, Perfetto UI and trace_processor load).
 *
 * PURPOSE
 *   Timelines of millions of events must not be built in memory, and every
 *   name in them comes from an untrusted file.  This writer emits the
 *   document piece by piece into a sink:
 *
 *     {"displayTimeUnit":"ns","traceEvents":[
 *     {"name":"add","cat":"op","ph":"X","ts":12.5,"pid":1,"tid":2,"dur":3,...},
 *     ...
 *     ],
 *     "otherData":{...}}
 *
 *   one event per line (readable, diffable, greppable).  Each event is a
 *   top-level value of its own etk_json_t, so the JSON writer does the
 *   escaping (quotes, controls, U+2028/9, invalid UTF-8) and the nesting
 *   checks; this file only owns the outer structure.  For speed an
 *   exporter may write a whole usual event itself in the room that
 *   etk_trace_event_room() returns.  The writer knows nothing about ETDumps:
 * the analysis layer (etkit/analysis.h, etk_trace_export_etdump) decides what
 * the events are.
 *
 * STATES
 *   0 nothing written, 1 inside traceEvents (between events), 2 an event
 *   is open (keys may be added through the returned etk_json_t), 3
 *   otherData is being written, 4 finished.  Calls out of order set a
 *   sticky ETK_E_INVALID_STATE.
 */
#include <math.h>
#include <string.h>

#include "etkit/render.h"

enum { TW_FRESH = 0, TW_EVENTS, TW_IN_EVENT, TW_OTHER, TW_DONE };

void etk_trace_writer_init(etk_trace_writer_t *w, etk_render_sink_t *sink,
                           const char *display_time_unit) {
  memset(w, 0, sizeof *w);
  w->sink = sink;
  w->status = sink ? ETK_OK : ETK_E_INVALID_ARGUMENT;
  if (w->status != ETK_OK) return;
  etk_render_putc(sink, '{');
  if (display_time_unit) {
    etk_json_t j;
    etk_json_init(&j, sink, 0);
    etk_render_puts(sink, "\"displayTimeUnit\":");
    etk_json_cstring(&j, display_time_unit);
    etk_render_putc(sink, ',');
  }
  etk_render_puts(sink, "\"traceEvents\":[");
  w->state = TW_EVENTS;
}

/* The keys every event has, quoted at compile time. */
static const etk_json_prepared_key_t key_name = ETK_JSON_KEY_LITERAL("name"),
                                     key_cat = ETK_JSON_KEY_LITERAL("cat"),
                                     key_ph = ETK_JSON_KEY_LITERAL("ph"),
                                     key_ts = ETK_JSON_KEY_LITERAL("ts"),
                                     key_pid = ETK_JSON_KEY_LITERAL("pid"),
                                     key_tid = ETK_JSON_KEY_LITERAL("tid");

/* Readies the event's JSON writer for a new top-level value.  Only the
 * nesting state is reset: the writer's last formatted number stays valid
 * (it is a cache keyed by the value's bits). */
static void event_json_reset(etk_json_t *j, etk_render_sink_t *sink) {
  j->sink = sink;
  j->indent = 0;
  j->depth = 0;
  j->status = ETK_OK;
  j->count_nonzero[0] = 0;
  j->key_pending = 0;
}

etk_json_t *etk_trace_event_begin(etk_trace_writer_t *w, const char *ph,
                                  const char *name, size_t name_len,
                                  const char *cat, uint32_t pid, uint32_t tid,
                                  double ts) {
  if (w->status != ETK_OK) return NULL;
  if (w->state != TW_EVENTS || !ph) {
    w->status = ETK_E_INVALID_STATE;
    return NULL;
  }
  etk_render_put(w->sink, w->events ? ",\n" : "\n", w->events ? 2 : 1);
  etk_json_t *j = &w->json;
  event_json_reset(j, w->sink);
  etk_json_begin_object(j);
  etk_json_key_prepared(j, &key_name);
  etk_json_string(j, name ? name : "", name ? name_len : 0);
  if (cat) {
    etk_json_key_prepared(j, &key_cat);
    etk_json_cstring(j, cat);
  }
  etk_json_key_prepared(j, &key_ph);
  etk_json_cstring(j, ph);
  if (ts == ts && ts - ts == 0) { /* finite; metadata events have none */
    etk_json_key_prepared(j, &key_ts);
    etk_json_double(j, ts);
  }
  etk_json_key_prepared(j, &key_pid);
  etk_json_uint(j, pid);
  etk_json_key_prepared(j, &key_tid);
  etk_json_uint(j, tid);
  w->state = TW_IN_EVENT;
  return j;
}

char *etk_trace_event_room(etk_trace_writer_t *w, size_t n) {
  if (w->status != ETK_OK) return NULL;
  if (w->state != TW_EVENTS || n > ETK_RENDER_SINK_BUFFER - 2) {
    w->status = ETK_E_INVALID_STATE;
    return NULL;
  }
  size_t sep = w->events ? 2 : 1;
  char *p = etk_render_room(w->sink, n + sep);
  if (!p) {
    w->status = w->sink->status != ETK_OK ? w->sink->status : ETK_E_IO;
    return NULL;
  }
  p[0] = ',';
  p[sep - 1] = '\n'; /* the first event has no comma */
  etk_render_commit(w->sink, sep);
  return p + sep;
}

void etk_trace_event_commit(etk_trace_writer_t *w, size_t n) {
  etk_render_commit(w->sink, n);
  w->events++;
}

int etk_trace_event_end(etk_trace_writer_t *w) {
  if (w->status != ETK_OK) return w->status;
  if (w->state != TW_IN_EVENT) return w->status = ETK_E_INVALID_STATE;
  etk_json_end_object(&w->json);
  if (w->json.status != ETK_OK || w->json.depth != 0)
    return w->status =
               w->json.status != ETK_OK ? w->json.status : ETK_E_INVALID_STATE;
  w->events++;
  w->state = TW_EVENTS;
  if (w->sink->status != ETK_OK) w->status = w->sink->status;
  return w->status;
}

/* Opens a metadata event ("ph":"M", no ts) and its args object; NULL
 * after an error. */
static etk_json_t *metadata_begin(etk_trace_writer_t *w, const char *what,
                                  uint32_t pid, uint32_t tid) {
  etk_json_t *j = etk_trace_event_begin(w, "M", what, what ? strlen(what) : 0,
                                        NULL, pid, tid, (double)NAN);
  if (!j) return NULL;
  etk_json_key(j, "args");
  etk_json_begin_object(j);
  return j;
}

/* Closes the args object and the event metadata_begin() opened. */
static void metadata_end(etk_trace_writer_t *w, etk_json_t *j) {
  etk_json_end_object(j);
  etk_trace_event_end(w);
}

void etk_trace_metadata(etk_trace_writer_t *w, const char *what, uint32_t pid,
                        uint32_t tid, const char *value, size_t len) {
  etk_json_t *j = metadata_begin(w, what, pid, tid);
  if (!j) return;
  etk_json_kv_string(j, "name", value ? value : "", value ? len : 0);
  metadata_end(w, j);
}

void etk_trace_sort_index(etk_trace_writer_t *w, const char *what, uint32_t pid,
                          uint32_t tid, int64_t index) {
  etk_json_t *j = metadata_begin(w, what, pid, tid);
  if (!j) return;
  etk_json_kv_int(j, "sort_index", index);
  metadata_end(w, j);
}

etk_json_t *etk_trace_other_data_begin(etk_trace_writer_t *w) {
  if (w->status != ETK_OK) return NULL;
  if (w->state != TW_EVENTS) {
    w->status = ETK_E_INVALID_STATE;
    return NULL;
  }
  etk_render_puts(w->sink, "\n],\n\"otherData\":");
  etk_json_init(&w->json, w->sink, 0);
  w->state = TW_OTHER;
  return &w->json;
}

int etk_trace_writer_finish(etk_trace_writer_t *w) {
  if (w->status != ETK_OK) return w->status;
  if (w->state == TW_EVENTS) {
    etk_render_puts(w->sink, "\n]}\n");
  } else if (w->state == TW_OTHER) {
    /* the caller wrote exactly one complete value */
    if (w->json.status != ETK_OK) return w->status = w->json.status;
    if (w->json.depth != 0 || !w->json.count_nonzero[0])
      return w->status = ETK_E_INVALID_STATE;
    etk_render_puts(w->sink, "}\n");
  } else {
    return w->status = ETK_E_INVALID_STATE;
  }
  w->state = TW_DONE;
  if (w->sink->status != ETK_OK) w->status = w->sink->status;
  return w->status;
}
