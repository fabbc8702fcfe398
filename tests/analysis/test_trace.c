/*
 * test_trace.c - the Chrome-trace export, parsed back with jansson and
 * checked event by event against the source ETDump: the upstream tutorial
 * file and hand-made dumps (nesting, delegates, flows, metadata,
 * allocation counters, 32-bit wrap, missing and invalid end times,
 * overlapping slices, layouts, block selection, cycles, hostile names,
 * the recorder's drop marker).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_fixtures.h"
#include "etk_test.h"
#include "etkit/inspector.h"
#include "render_capture.h"

/* ------------------------------------------------------- helpers */

typedef struct opened {
  uint8_t *bytes;
  etk_etdump_t *dump;
  etk_inspector_t *insp;
} opened_t;

static int open_bytes(opened_t *o, uint8_t *bytes, size_t len, int with_insp) {
  memset(o, 0, sizeof *o);
  o->bytes = bytes;
  if (!bytes) return 0;
  etk_etdump_options_t eo = {0};
  eo.copy = 1;
  if (etk_etdump_open_memory(bytes, len, &eo, &o->dump, NULL) != ETK_OK)
    return 0;
  if (with_insp) {
    etk_inspector_options_t io;
    etk_inspector_options_init(&io);
    io.target_time_scale = ETK_TIME_NS;
    if (etk_inspector_open(o->dump, &io, &o->insp, NULL) != ETK_OK) return 0;
  }
  return 1;
}

/* Opens the dump that `make` (an analysis_fixtures.h builder) returns. */
static int open_fixture(opened_t *o, uint8_t *(*make)(size_t *len),
                        int with_insp) {
  size_t len = 0;
  uint8_t *bytes = make(&len);
  return open_bytes(o, bytes, len, with_insp);
}

/* Opens a conformance file; 0 when it is absent or does not open. */
static int open_conformance(opened_t *o, const char *name, int with_insp) {
  const char *path = etk_test_conformance_path(name);
  size_t len = 0;
  uint8_t *bytes = path ? etk_test_read_file(path, &len) : NULL;
  return open_bytes(o, bytes, len, with_insp);
}

static void close_opened(opened_t *o) {
  etk_inspector_close(o->insp);
  etk_etdump_close(o->dump);
  free(o->bytes);
}

/* Exports and parses; NULL on failure (rc in *rc_out). */
static json_t *export_parse(opened_t *o, const etk_trace_options_t *opt,
                            etk_trace_stats_t *st, int *rc_out) {
  etk_render_sink_t *s = etk_test_capture_new();
  etk_error_t err;
  etk_error_clear(&err);
  int rc =
      etk_trace_write_json(o->dump, o->insp, opt, "fixture.etdp", s, st, &err);
  if (rc_out) *rc_out = rc;
  char *text = etk_test_capture_finish(s, rc);
  if (!text) return NULL;
  json_error_t jerr;
  json_t *root = json_loads(text, 0, &jerr);
  if (!root) printf("# json error: %s at line %d\n", jerr.text, jerr.line);
  free(text);
  return root;
}

/* Opens a fixture and exports it with the default options (NULL on any
 * failure). */
static json_t *export_fixture(opened_t *o, uint8_t *(*make)(size_t *len),
                              int with_insp, etk_trace_stats_t *st) {
  if (!open_fixture(o, make, with_insp)) return NULL;
  return export_parse(o, NULL, st, NULL);
}

static json_t *events_of(json_t *root) {
  return json_object_get(root, "traceEvents");
}

static const char *str_of(json_t *ev, const char *key) {
  return json_string_value(json_object_get(ev, key));
}

static double num_of(json_t *ev, const char *key) {
  json_t *v = json_object_get(ev, key);
  return v ? json_number_value(v) : NAN;
}

static json_t *arg_of(json_t *ev, const char *key) {
  return json_object_get(json_object_get(ev, "args"), key);
}

static long long int_arg(json_t *ev, const char *key) {
  json_t *v = arg_of(ev, key);
  return v && json_is_integer(v) ? (long long)json_integer_value(v) : -999999;
}

static long long tid_of(json_t *ev) {
  return (long long)json_integer_value(json_object_get(ev, "tid"));
}

/* The next event at or after *at with this ph (NULL: any) and name (NULL:
 * any); *at moves past it.  NULL at the end of traceEvents. */
static json_t *next_event(json_t *root, const char *ph, const char *name,
                          size_t *at) {
  json_t *evs = events_of(root);
  while (*at < json_array_size(evs)) {
    json_t *e = json_array_get(evs, (*at)++);
    if ((!ph || strcmp(str_of(e, "ph"), ph) == 0) &&
        (!name || strcmp(str_of(e, "name"), name) == 0))
      return e;
  }
  return NULL;
}

/* The first event with this ph and name (NULL name: any). */
static json_t *find(json_t *root, const char *ph, const char *name) {
  size_t at = 0;
  return next_event(root, ph, name, &at);
}

static size_t count_ph(json_t *root, const char *ph) {
  size_t n = 0;
  for (size_t at = 0; next_event(root, ph, NULL, &at);) n++;
  return n;
}

/* Name of thread `tid` from its thread_name metadata. */
static const char *thread_name(json_t *root, long long tid) {
  json_t *e;
  for (size_t at = 0; (e = next_event(root, "M", "thread_name", &at));)
    if (tid_of(e) == tid) return json_string_value(arg_of(e, "name"));
  return NULL;
}

typedef struct slice {
  double ts, end;
  long long tid;
} slice_t;

static int cmp_slice(const void *pa, const void *pb) {
  const slice_t *a = pa, *b = pb;
  if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return (a->end < b->end) - (a->end > b->end);
}

/* Number of "X" slices that do not nest within their track (what
 * Perfetto would complain about). */
static size_t nesting_violations(json_t *root) {
  size_t n = json_array_size(events_of(root)), m = 0;
  slice_t *sl = malloc((n ? n : 1) * sizeof *sl);
  json_t *e;
  for (size_t at = 0; (e = next_event(root, "X", NULL, &at)); m++) {
    sl[m].ts = num_of(e, "ts");
    sl[m].end = sl[m].ts + num_of(e, "dur");
    sl[m].tid = tid_of(e);
  }
  qsort(sl, m, sizeof *sl, cmp_slice);
  size_t bad = 0;
  double stack[256];
  size_t sn = 0;
  long long tid = -1;
  const double eps = 1e-6;
  for (size_t i = 0; i < m; i++) {
    if (sl[i].tid != tid) {
      sn = 0;
      tid = sl[i].tid;
    }
    while (sn && stack[sn - 1] <= sl[i].ts + eps) sn--;
    if (sn && sl[i].end > stack[sn - 1] + eps) {
      bad++;
      continue;
    }
    if (sn < 256) stack[sn++] = sl[i].end;
  }
  free(sl);
  return bad;
}

static int near(double a, double b) {
  return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

/* ------------------------------------------------------- tutorial */

ETK_TEST(tutorial_event_by_event) {
  opened_t o;
  if (!open_conformance(&o, "etdump_tutorial.etdp", 1))
    ETK_SKIP("etdump_tutorial.etdp not available");
  etk_trace_stats_t st;
  int rc;
  json_t *root = export_parse(&o, NULL, &st, &rc);
  REQUIRE(rc == ETK_OK && root);
  CHECK_EQ_STR(json_string_value(json_object_get(root, "displayTimeUnit")),
               "ns");
  CHECK_EQ_INT(st.layout, ETK_TRACE_LAYOUT_RAW);
  CHECK_EQ_INT(st.runs, 2);
  CHECK_EQ_INT(st.slices, 31);
  CHECK_EQ_INT(st.instants + st.overlapping + st.wrapped + st.counters, 0);

  /* origin: the smallest start of the file (Program::load_method) */
  uint64_t origin = UINT64_MAX;
  for (size_t i = 0; i < etk_etdump_event_count(o.dump); i++) {
    uint64_t s, e;
    etk_etdump_event_times(o.dump, i, &s, &e);
    if (s < origin) origin = s;
  }
  CHECK_EQ_U64(origin, 398073);

  size_t seen = 0;
  uint8_t *hit = calloc(etk_etdump_event_count(o.dump), 1);
  json_t *e;
  for (size_t at = 0; (e = next_event(root, "X", NULL, &at));) {
    if (strcmp(str_of(e, "cat"), "run") == 0) continue;
    long long idx = int_arg(e, "event");
    REQUIRE(idx >= 0 && (size_t)idx < etk_etdump_event_count(o.dump));
    etk_etdump_event_t ev;
    etk_etdump_event_get(o.dump, (size_t)idx, &ev);
    CHECK_EQ_STR(str_of(e, "name"), ev.name.data);
    CHECK(near(num_of(e, "ts"), (double)(ev.start_time - origin) / 1000.0));
    CHECK(
        near(num_of(e, "dur"), (double)(ev.end_time - ev.start_time) / 1000.0));
    CHECK_EQ_U64(int_arg(e, "start_ticks"), ev.start_time);
    CHECK_EQ_U64(int_arg(e, "end_ticks"), ev.end_time);
    CHECK_EQ_INT(int_arg(e, "instruction_id"), ev.instruction_id);
    CHECK_EQ_INT(int_arg(e, "chain"), ev.profile_chain_index);
    CHECK_EQ_INT(int_arg(e, "run"), ev.run);
    /* tracks: block 0 (Default) on tid 1, block 1 (Execute) on tid 5 */
    CHECK_EQ_INT(tid_of(e), ev.run == 0 ? 1 : 5);
    CHECK_EQ_INT(json_integer_value(json_object_get(e, "pid")), 1);
    const char *cat = str_of(e, "cat");
    if (strncmp(ev.name.data, "native_call_", 12) == 0)
      CHECK_EQ_STR(cat, "operator");
    else if (strcmp(ev.name.data, "OPERATOR_CALL") == 0)
      CHECK_EQ_STR(cat, "operator_call");
    else
      CHECK_EQ_STR(cat, "method");
    CHECK(!hit[idx]);
    hit[idx] = 1;
    seen++;
  }
  CHECK_EQ_INT(seen, 31);
  free(hit);
  CHECK_EQ_INT(nesting_violations(root), 0);
  CHECK_EQ_STR(thread_name(root, 1), "block 0: Default");
  CHECK_EQ_STR(thread_name(root, 5), "block 1: Execute");
  CHECK(find(root, "X", "run 0") && find(root, "X", "run 1"));
  json_t *pn = find(root, "M", "process_name");
  REQUIRE(pn);
  CHECK_EQ_STR(json_string_value(arg_of(pn, "name")), "ETDump");
  json_t *files = json_object_get(json_object_get(root, "otherData"), "files");
  CHECK_EQ_INT(json_array_size(files), 1);
  CHECK_EQ_INT(
      json_integer_value(json_object_get(json_array_get(files, 0), "slices")),
      31);
  /* events appear parents first: the first operator slice in the file is
   * the first OPERATOR_CALL, followed by its native call */
  json_t *opc = find(root, "X", "OPERATOR_CALL");
  json_t *conv = find(root, "X", "native_call_convolution.out");
  REQUIRE(opc && conv);
  CHECK(num_of(opc, "ts") <= num_of(conv, "ts"));
  CHECK(num_of(opc, "ts") + num_of(opc, "dur") >=
        num_of(conv, "ts") + num_of(conv, "dur"));
  json_decref(root);
  close_opened(&o);
}

ETK_TEST(tutorial_cycles_need_a_clock) {
  opened_t o;
  if (!open_conformance(&o, "etdump_tutorial.etdp", 0))
    ETK_SKIP("etdump_tutorial.etdp not available");
  etk_trace_options_t opt;
  etk_trace_options_init(&opt);
  opt.source_time_scale = ETK_TIME_CYCLES;
  int rc;
  CHECK(export_parse(&o, &opt, NULL, &rc) == NULL);
  CHECK_EQ_INT(rc, ETK_E_UNSUPPORTED);
  /* 500 MHz: 500 cycles per microsecond */
  opt.clock_hz = 5e8;
  etk_trace_stats_t st;
  json_t *root = export_parse(&o, &opt, &st, &rc);
  REQUIRE(root);
  json_t *e = find(root, "X", "Method::init");
  REQUIRE(e);
  CHECK(near(num_of(e, "ts"), (399054.0 - 398073.0) / 500.0));
  CHECK(near(num_of(e, "dur"), (421538.0 - 399054.0) / 500.0));
  CHECK(json_object_get(root, "displayTimeUnit") == NULL);
  json_decref(root);
  /* raw ticks: written as they are, and labelled */
  opt.clock_hz = 0;
  opt.raw_ticks = 1;
  root = export_parse(&o, &opt, &st, &rc);
  REQUIRE(root);
  e = find(root, "X", "Method::init");
  CHECK(near(num_of(e, "ts"), 399054.0 - 398073.0));
  json_t *f = json_array_get(
      json_object_get(json_object_get(root, "otherData"), "files"), 0);
  CHECK(strstr(json_string_value(json_object_get(f, "ts_unit")),
               "NOT microseconds") != NULL);
  json_decref(root);
  close_opened(&o);
}

/* ------------------------------------------------------- model fixture */

ETK_TEST(model_delegates_flows_metadata) {
  opened_t o;
  etk_trace_stats_t st;
  json_t *root = export_fixture(&o, afx_model, 1, &st);
  REQUIRE(root);
  CHECK_EQ_INT(etk_inspector_block_count(o.insp), 2);
  CHECK_EQ_INT(st.layout, ETK_TRACE_LAYOUT_RAW);
  CHECK_EQ_INT(st.slices, 2 + 2 * 8);
  CHECK_EQ_INT(st.flows, 2);
  CHECK_EQ_INT(st.overlapping, 0);
  CHECK_EQ_INT(nesting_violations(root), 0);
  /* delegated events on the Execute block's delegate track (tid 6) */
  size_t delegated = 0;
  json_t *e;
  for (size_t at = 0; (e = next_event(root, "X", NULL, &at));) {
    const char *cat = str_of(e, "cat");
    long long tid = tid_of(e);
    if (strcmp(cat, "delegate") == 0) {
      delegated++;
      CHECK_EQ_INT(tid, 6);
    } else if (strcmp(cat, "run") != 0) {
      CHECK(tid == 1 || tid == 5);
    }
  }
  CHECK_EQ_INT(delegated, 4);
  CHECK_EQ_STR(thread_name(root, 6), "block 1: Execute [delegate]");
  /* int delegate id: name "3", text metadata without its NUL */
  json_t *d3 = find(root, "X", "3");
  REQUIRE(d3);
  CHECK_EQ_INT(int_arg(d3, "delegate_debug_id"), 3);
  CHECK_EQ_STR(json_string_value(arg_of(d3, "metadata")), "xnn:fp32");
  CHECK(arg_of(d3, "metadata_hex") == NULL);
  /* string id with binary metadata: hex */
  json_t *lin = find(root, "X", "linear #1");
  REQUIRE(lin);
  CHECK_EQ_STR(json_string_value(arg_of(lin, "delegate_debug_id")),
               "linear #1");
  CHECK_EQ_STR(json_string_value(arg_of(lin, "metadata_hex")), "01ff007f");
  /* ts relative to the first start (tick 1), ns -> us */
  CHECK(near(num_of(d3, "ts"), (1040.0 - 1.0) / 1000.0));
  CHECK(near(num_of(d3, "dur"), 0.02));
  /* flows: DELEGATE_CALL start -> first delegated event of instruction 1 */
  json_t *s = find(root, "s", NULL), *f = find(root, "f", NULL);
  REQUIRE(s && f);
  CHECK(json_equal(json_object_get(s, "id"), json_object_get(f, "id")));
  CHECK_EQ_STR(str_of(f, "bp"), "e");
  CHECK_EQ_INT(tid_of(s), 5);
  CHECK_EQ_INT(tid_of(f), 6);
  json_t *dc = find(root, "X", "DELEGATE_CALL");
  CHECK(near(num_of(s, "ts"), num_of(dc, "ts")));
  CHECK(near(num_of(f, "ts"), num_of(d3, "ts")));
  CHECK_EQ_STR(str_of(dc, "cat"), "delegate_call");
  json_decref(root);
  close_opened(&o);
}

/* Counter samples of one counter name, in file order. */
static size_t counters(json_t *root, const char *name, double *ts,
                       long long *val, size_t cap) {
  size_t n = 0;
  json_t *e;
  for (size_t at = 0; (e = next_event(root, "C", name, &at));) {
    if (n < cap) {
      ts[n] = num_of(e, "ts");
      val[n] = (long long)json_integer_value(arg_of(e, "bytes"));
    }
    n++;
  }
  return n;
}

ETK_TEST(model_allocation_counters) {
  opened_t o;
  etk_trace_stats_t st;
  json_t *root = export_fixture(&o, afx_model, 1, &st);
  REQUIRE(root);
  CHECK_EQ_INT(st.counters, 3 + 2 * 3);
  double ts[16];
  long long v[16];
  /* Default: reset at the run start (tick 1), 256 before any event ended,
   * 320 after Method::init ended (tick 40) */
  REQUIRE(counters(root, "memory: method_allocator", ts, v, 16) == 3);
  CHECK(near(ts[0], 0) && v[0] == 0);
  CHECK(near(ts[1], 0) && v[1] == 256);
  CHECK(near(ts[2], 0.039) && v[2] == 320);
  REQUIRE(counters(root, "memory: planned_memory", ts, v, 16) == 2);
  CHECK(v[1] == 4096);
  /* Execute runs: each run restarts from 0 at its start (1001, 2001);
   * 32 after OPERATOR_CALL ended (t+25+k), 48 after DELEGATE_CALL (t+90+k) */
  REQUIRE(counters(root, "memory: temp_allocator", ts, v, 16) == 6);
  CHECK(near(ts[0], 1.0) && v[0] == 0);
  CHECK(near(ts[1], 1.024) && v[1] == 32);
  CHECK(near(ts[2], 1.089) && v[2] == 48);
  CHECK(near(ts[3], 2.0) && v[3] == 0);
  CHECK(near(ts[4], 2.025) && v[4] == 32);
  CHECK(near(ts[5], 2.090) && v[5] == 48);
  /* an id that names no allocator is still counted, under its id */
  REQUIRE(counters(root, "memory: allocator #9", ts, v, 16) == 4);
  CHECK(v[0] == 0 && v[1] == 8 && v[2] == 0 && v[3] == 8);
  json_decref(root);
  close_opened(&o);
}

ETK_TEST(model_without_inspector_groups_by_run_name) {
  opened_t o;
  json_t *root = export_fixture(&o, afx_model, 0, NULL);
  REQUIRE(root);
  CHECK_EQ_STR(thread_name(root, 1), "Default");
  CHECK_EQ_STR(thread_name(root, 5), "Execute");
  CHECK(arg_of(find(root, "X", "Method::init"), "block") == NULL);
  json_decref(root);
  close_opened(&o);
}

/* What `etkit trace A B` writes: one process per dump, numbered from 1
 * and named after the file, and one otherData entry per dump. */
ETK_TEST(several_dumps_are_processes_named_after_their_files) {
  size_t len;
  uint8_t *bytes = afx_model(&len);
  opened_t o;
  REQUIRE(open_bytes(&o, bytes, len, 1));
  etk_trace_input_t in[2];
  memset(in, 0, sizeof in);
  in[0].dump = in[1].dump = o.dump;
  in[0].insp = o.insp;
  in[0].path = "dir/first.etdp";
  in[1].path = "second.etdp";
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_trace_write_json_files(in, 2, NULL, s, &err) == ETK_OK);
  size_t n = 0;
  char *text = etk_render_sink_take(s, &n);
  free(s);
  json_t *root = text ? json_loads(text, 0, NULL) : NULL;
  free(text);
  REQUIRE(root);
  size_t names = 0, i;
  json_t *ev;
  json_array_foreach(events_of(root), i, ev) {
    if (strcmp(str_of(ev, "name"), "process_name") != 0) continue;
    const char *name =
        json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
    int pid = (int)json_integer_value(json_object_get(ev, "pid"));
    CHECK_EQ_STR(name, pid == 1 ? "first.etdp" : "second.etdp");
    names++;
  }
  CHECK_EQ_INT(names, 2);
  json_t *files = json_object_get(json_object_get(root, "otherData"), "files");
  CHECK_EQ_INT(json_array_size(files), 2);
  CHECK_EQ_STR(str_of(json_array_get(files, 1), "path"), "second.etdp");
  CHECK_EQ_INT(
      json_integer_value(json_object_get(json_array_get(files, 1), "pid")), 2);
  CHECK(in[0].stats.slices > 0 && in[0].stats.slices == in[1].stats.slices);
  json_decref(root);
  close_opened(&o);
}

ETK_TEST(selection_and_track_modes) {
  opened_t o;
  REQUIRE(open_fixture(&o, afx_model, 1));
  etk_trace_options_t opt;
  etk_trace_options_init(&opt);
  opt.select_name[opt.select_name_count++] = "Execute";
  etk_trace_stats_t st;
  json_t *root = export_parse(&o, &opt, &st, NULL);
  REQUIRE(root);
  CHECK_EQ_INT(st.runs, 2);
  CHECK(find(root, "X", "Method::init") == NULL);
  CHECK(find(root, "X", "Method::execute") != NULL);
  json_decref(root);
  etk_trace_options_init(&opt);
  opt.select_index[opt.select_index_count++] = 0;
  root = export_parse(&o, &opt, &st, NULL);
  REQUIRE(root);
  CHECK_EQ_INT(st.runs, 1);
  CHECK(find(root, "X", "Method::execute") == NULL);
  json_decref(root);
  opt.select_index[0] = 7;
  int rc;
  CHECK(export_parse(&o, &opt, NULL, &rc) == NULL);
  CHECK_EQ_INT(rc, ETK_E_NOT_FOUND);
  /* one track per run: run r on tid 1 + 4r */
  etk_trace_options_init(&opt);
  opt.tracks = ETK_TRACE_TRACKS_RUN;
  opt.no_args = 1;
  opt.no_flows = 1;
  root = export_parse(&o, &opt, &st, NULL);
  REQUIRE(root);
  CHECK_EQ_STR(thread_name(root, 9), "run 2: Execute (block 1)");
  CHECK_EQ_INT(count_ph(root, "s"), 0);
  json_t *e = find(root, "X", "Method::execute");
  CHECK(json_object_get(e, "args") == NULL);
  json_decref(root);
  close_opened(&o);
}

/* ------------------------------------------------------- broken times */

ETK_TEST(wrap_is_unwrapped_and_missing_end_is_an_instant) {
  opened_t o;
  etk_trace_stats_t st;
  json_t *root = export_fixture(&o, afx_wrap, 1, &st);
  REQUIRE(root);
  CHECK_EQ_INT(st.wrapped, 2);
  CHECK_EQ_INT(st.instants, 1);
  CHECK_EQ_INT(st.missing_end, 1);
  CHECK_EQ_INT(st.overlapping, 0);
  /* origin 4294966990 ("outer" start) */
  json_t *outer = find(root, "X", "outer"), *a = find(root, "X", "a");
  json_t *w = find(root, "X", "wrapped"), *after = find(root, "X", "after");
  json_t *miss = find(root, "i", "missing_end");
  REQUIRE(outer && a && w && after && miss);
  CHECK(near(num_of(outer, "ts"), 0) && near(num_of(outer, "dur"), 0.406));
  CHECK(near(num_of(a, "ts"), 0.010) && near(num_of(a, "dur"), 0.100));
  CHECK(near(num_of(w, "ts"), 0.210) && near(num_of(w, "dur"), 0.146));
  CHECK(json_is_true(arg_of(w, "wrapped")));
  CHECK(near(num_of(after, "ts"), 0.366) && near(num_of(after, "dur"), 0.020));
  CHECK(near(num_of(miss, "ts"), 0.396));
  CHECK_EQ_STR(str_of(miss, "s"), "t");
  CHECK(json_is_true(arg_of(miss, "missing_end")));
  CHECK_EQ_INT(int_arg(miss, "end_ticks"), 0);
  CHECK_EQ_INT(nesting_violations(root), 0);
  json_decref(root);
  close_opened(&o);
}

ETK_TEST(invalid_times_without_inspector) {
  opened_t o;
  REQUIRE(open_fixture(&o, afx_invalid, 0));
  /* the Inspector refuses this dump (upstream's ValueError) */
  etk_inspector_t *insp = NULL;
  CHECK(etk_inspector_open(o.dump, NULL, &insp, NULL) == ETK_E_FORMAT);
  etk_trace_stats_t st;
  json_t *root = export_parse(&o, NULL, &st, NULL);
  REQUIRE(root);
  CHECK_EQ_INT(st.invalid_times, 1);
  json_t *b = find(root, "i", "backwards");
  REQUIRE(b);
  CHECK(json_is_true(arg_of(b, "invalid_times")));
  CHECK(near(num_of(b, "ts"), 1000000.0 - 0.1));
  CHECK(find(root, "X", "fine") != NULL);
  json_decref(root);
  close_opened(&o);
}

ETK_TEST(overlaps_go_to_their_own_track_and_layouts) {
  opened_t o;
  REQUIRE(open_fixture(&o, afx_overlap, 1));
  CHECK_EQ_INT(etk_inspector_block_count(o.insp), 1);
  etk_trace_stats_t st;
  json_t *root = export_parse(&o, NULL, &st, NULL);
  REQUIRE(root);
  /* the clock restarts: auto lays runs out one after the other */
  CHECK_EQ_INT(st.layout, ETK_TRACE_LAYOUT_SEQUENTIAL);
  CHECK_EQ_INT(st.overlapping, 2);
  CHECK_EQ_INT(nesting_violations(root), 0);
  size_t seconds = 0;
  json_t *e;
  for (size_t at = 0; (e = next_event(root, "X", NULL, &at));) {
    long long tid = tid_of(e);
    if (strcmp(str_of(e, "name"), "second") == 0) {
      CHECK_EQ_INT(tid, 3);
      /* run 0 at [0, 0.21], run 1 right after */
      CHECK(near(num_of(e, "ts"), seconds ? 0.270 : 0.060));
      seconds++;
    } else {
      CHECK_EQ_INT(tid, 1);
    }
  }
  CHECK_EQ_INT(seconds, 2);
  CHECK_EQ_STR(thread_name(root, 3), "block 0: Execute [overlapping]");
  json_t *r1 = find(root, "X", "run 1");
  REQUIRE(r1);
  CHECK(near(num_of(r1, "ts"), 0.210) && near(num_of(r1, "dur"), 0.210));
  json_decref(root);
  /* forced raw layout: the second run lies on top of the first one, so
   * it moves to the overlapping track as a whole */
  etk_trace_options_t opt;
  etk_trace_options_init(&opt);
  opt.layout = ETK_TRACE_LAYOUT_RAW;
  root = export_parse(&o, &opt, &st, NULL);
  REQUIRE(root);
  CHECK_EQ_INT(st.layout, ETK_TRACE_LAYOUT_RAW);
  r1 = find(root, "X", "run 1");
  REQUIRE(r1);
  CHECK(near(num_of(r1, "ts"), 0));
  CHECK_EQ_INT(tid_of(r1), 3);
  json_decref(root);
  close_opened(&o);
}

/* ------------------------------------------------------- hostile, dropped */

ETK_TEST(hostile_names_round_trip) {
  opened_t o;
  json_t *root = export_fixture(&o, afx_hostile, 1, NULL);
  REQUIRE(root);
  for (size_t i = 0; i < afx_hostile_name_count; i++)
    CHECK(find(root, "X", afx_hostile_names[i]) != NULL);
  CHECK_EQ_STR(thread_name(root, 1), "block 0: <b>run</b> & \"co\"");
  CHECK(counters(root, "memory: <img src=x onerror=alert(1)>", (double[4]){0},
                 (long long[4]){0}, 4) == 2);
  json_decref(root);
  close_opened(&o);
}

ETK_TEST(dropped_marker_becomes_a_global_instant) {
  opened_t o;
  REQUIRE(open_fixture(&o, afx_dropped, 1));
  etk_dropped_marker_t m;
  CHECK(etk_dropped_marker_find(o.dump, &m));
  CHECK_EQ_U64(m.events, 17);
  CHECK_EQ_U64(m.blocks, 2);
  CHECK_EQ_U64(m.run, 1);
  etk_trace_stats_t st;
  json_t *root = export_parse(&o, NULL, &st, NULL);
  REQUIRE(root);
  CHECK_EQ_INT(st.runs, 1);
  json_t *d = find(root, "i", NULL);
  REQUIRE(d);
  CHECK_EQ_STR(str_of(d, "s"), "p");
  CHECK_EQ_INT(int_arg(d, "dropped_events"), 17);
  CHECK(near(num_of(d, "ts"), 0.025));
  json_t *f = json_array_get(
      json_object_get(json_object_get(root, "otherData"), "files"), 0);
  CHECK_EQ_INT(json_integer_value(json_object_get(f, "dropped_events")), 17);
  json_decref(root);
  close_opened(&o);
}

ETK_TEST(dropped_marker_parser) {
  etk_dropped_marker_t m;
  CHECK(etk_dropped_marker_parse("etkit:dropped_events=5", 22, &m) &&
        m.events == 5);
  const char *full = "etkit:dropped_events=1,blocks=2,allocators=3,future=9";
  CHECK(etk_dropped_marker_parse(full, strlen(full), &m));
  CHECK(m.events == 1 && m.blocks == 2 && m.allocators == 3);
  CHECK(!etk_dropped_marker_parse("etkit:dropped_events=", 21, NULL));
  CHECK(!etk_dropped_marker_parse("etkit:dropped_events=x", 22, NULL));
  CHECK(!etk_dropped_marker_parse("etkit:dropped_events=1,blocks", 29, NULL));
  CHECK(!etk_dropped_marker_parse("Execute", 7, NULL));
  const char *huge = "etkit:dropped_events=99999999999999999999999";
  CHECK(etk_dropped_marker_parse(huge, strlen(huge), &m) &&
        m.events == UINT64_MAX);
}

/* A link on one Inspector event shows in the args of its slices only
 * (the other slices, written whole by the fast path, carry none). */
ETK_TEST(linked_event_args_only_on_its_slices) {
  opened_t o;
  REQUIRE(open_fixture(&o, afx_model, 1));
  size_t linked = SIZE_MAX, count = etk_inspector_event_count(o.insp);
  etk_inspector_sample_t smp;
  for (size_t e = 0; e < count && linked == SIZE_MAX; e++)
    if (etk_inspector_event_sample(o.insp, e, 0, &smp) == ETK_OK) linked = e;
  REQUIRE(linked != SIZE_MAX);
  const char *ops[1] = {"aten::mul.out"};
  etk_inspector_link_node_t node = {"mul_1", "File m.py, line 3", NULL};
  etk_inspector_event_link_t link;
  memset(&link, 0, sizeof link);
  link.num_outputs = 1;
  link.op_types = ops;
  link.op_type_count = 1;
  link.nodes = &node;
  link.node_count = 1;
  REQUIRE(etk_inspector_event_set_link(o.insp, linked, &link, NULL) == ETK_OK);
  json_t *root = export_parse(&o, NULL, NULL, NULL);
  REQUIRE(root);
  size_t with_link = 0, without = 0;
  json_t *e;
  for (size_t at = 0; (e = next_event(root, "X", NULL, &at));) {
    if (strcmp(str_of(e, "cat"), "run") == 0) continue;
    json_t *op = arg_of(e, "op_types");
    if (int_arg(e, "event") == (long long)smp.etdump_event) {
      with_link++;
      CHECK_EQ_STR(json_string_value(json_array_get(op, 0)), "aten::mul.out");
      CHECK_EQ_STR(json_string_value(json_array_get(arg_of(e, "nodes"), 0)),
                   "mul_1");
      CHECK_EQ_STR(json_string_value(arg_of(e, "stack_trace")),
                   "File m.py, line 3");
    } else {
      without++;
      CHECK(op == NULL && arg_of(e, "nodes") == NULL);
      CHECK(int_arg(e, "start_ticks") >= 0 && int_arg(e, "end_ticks") >= 0);
    }
  }
  CHECK_EQ_INT(with_link, 1);
  CHECK(without > 1);
  json_decref(root);
  close_opened(&o);
}

/* ------------------------------------------------------- the writer */

ETK_TEST(writer_misuse_is_sticky) {
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  etk_trace_writer_t w;
  etk_trace_writer_init(&w, s, NULL);
  CHECK(etk_trace_event_end(&w) == ETK_E_INVALID_STATE);
  CHECK(etk_trace_event_begin(&w, "X", "a", 1, NULL, 1, 1, 0) == NULL);
  CHECK(etk_trace_writer_finish(&w) == ETK_E_INVALID_STATE);
  etk_render_sink_free(s);
  /* an empty trace is a valid document */
  etk_render_sink_init_memory(s);
  etk_trace_writer_init(&w, s, "ms");
  CHECK(etk_trace_writer_finish(&w) == ETK_OK);
  size_t len;
  char *text = etk_render_sink_take(s, &len);
  json_t *root = json_loads(text, 0, NULL);
  CHECK(root && json_array_size(events_of(root)) == 0);
  json_decref(root);
  free(text);
  etk_render_sink_free(s);
  free(s);
}

ETK_TEST_MAIN()
