/*
 * test_recorder_misuse.c - the recorder used wrongly: recording calls from
 * inside a data sink's write callback, a scope ended twice (or ended with
 * another recorder), and a sink reporting an offset the ETDump cannot
 * hold.  Each has a defined result (an error code, documented in
 * recorder.h) and the finished dump always verifies and holds exactly the
 * events that were accepted.
 */
#include <stdio.h>
#include <string.h>

#include "recorder_testutil.h"

static uint64_t arena[64u * 1024u / 8u];
static uint64_t arena2[16u * 1024u / 8u];

/* What the re-entrant sink tried and got. */
typedef struct reentry {
  etk_recorder_t *rec;
  const etk_recorder_scope_t *open_scope;
  int finish, end, end_op, block, log, allocation, allocator, set_buffer;
  int delegate, end_delegate;
  etk_recorder_name_t interned;
  uint64_t offset; /* what the sink reports */
  int calls;
} reentry_t;

static int reentrant_write(void *ctx, const void *data, size_t len,
                           uint64_t *offset) {
  reentry_t *r = ctx;
  static uint8_t debug[64];
  const uint8_t *out;
  size_t out_len;
  etk_recorder_value_t v = etk_value_int(3);
  etk_recorder_scope_t d;
  (void)data;
  (void)len;
  r->calls++;
  r->finish = etk_recorder_finish(r->rec, &out, &out_len);
  r->end = etk_recorder_end(r->rec, r->open_scope);
  r->end_op = etk_recorder_end_op(r->rec, r->open_scope);
  r->block = etk_recorder_begin_block(r->rec, "inside");
  r->log = etk_recorder_log_value(r->rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  r->allocation = etk_recorder_track_allocation(r->rec, 1, 64);
  r->allocator = etk_recorder_track_allocator(r->rec, "inside", NULL);
  r->set_buffer = etk_recorder_set_debug_buffer(r->rec, debug, sizeof debug);
  r->delegate = etk_recorder_log_delegate(r->rec, NULL, 1, 1, 2, NULL, 0);
  d = etk_recorder_begin_delegate(r->rec, NULL, 4);
  r->end_delegate =
      d.kind < 0 ? d.kind : etk_recorder_end_delegate(r->rec, &d, NULL, 0);
  r->interned = etk_recorder_intern(r->rec, "a name never seen before");
  etk_recorder_set_data_sink(r->rec, NULL); /* ignored while inside */
  *offset = r->offset;
  return ETK_OK;
}

/* A FLOAT tensor of two elements, as a value to log. */
static etk_recorder_value_t two_floats(void) {
  static const float data[2] = {1, 2};
  static const int64_t n[1] = {2};
  static etk_recorder_tensor_t t;
  t = rt_tensor(ETK_SCALAR_TYPE_FLOAT, 1, n, data, sizeof data);
  return etk_value_tensor(&t);
}

/* A recorder in `arena` with the clock *c (reset) and the data sink
 * write(ctx) (none when write is NULL), inside the block "Execute".  NULL
 * on failure. */
static etk_recorder_t *make_in_execute(rt_clock_t *c,
                                       etk_data_sink_write_fn write,
                                       void *ctx) {
  etk_recorder_t *rec;
  memset(c, 0, sizeof *c);
  rec = rt_make(arena, sizeof arena, c);
  if (rec == NULL) return NULL;
  if (write != NULL) {
    etk_data_sink_t sink = {write, ctx};
    etk_recorder_set_data_sink(rec, &sink);
  }
  if (etk_recorder_begin_block(rec, "Execute") != ETK_OK) return NULL;
  return rec;
}

ETK_TEST(calls_from_inside_the_sink_are_refused) {
  rt_clock_t c;
  reentry_t r;
  etk_recorder_scope_t s;
  etk_recorder_value_t v = two_floats();
  json_t *j = NULL;
  memset(&r, 0, sizeof r);
  r.rec = make_in_execute(&c, reentrant_write, &r);
  REQUIRE(r.rec != NULL);
  s = etk_recorder_begin_named(r.rec, "outer", 0, 1);
  r.open_scope = &s;
  r.offset = 128;
  CHECK_EQ_INT(etk_recorder_log_value(r.rec, &v, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  CHECK_EQ_INT(r.calls, 1);
  CHECK_EQ_INT(r.finish, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.end, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.end_op, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.block, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.log, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.allocation, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.allocator, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.set_buffer, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.delegate, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.end_delegate, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(r.interned, 0);
  /* the refused end did not consume the scope; the sink is still set */
  CHECK_EQ_INT(etk_recorder_end(r.rec, &s), ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_value(r.rec, &v, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  CHECK_EQ_INT(r.calls, 2);
  REQUIRE(rt_finish_check(r.rec, &j));
  if (j) {
    /* exactly: the debug event, the profile event, the debug event */
    CHECK_EQ_U64(rt_json_len(j, "run_data"), 1);
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 3);
    CHECK_EQ_STR(rt_json_str(j, "run_data/0/events/1/profile_event/name"),
                 "outer");
    CHECK_EQ_INT(
        rt_json_int(j,
                    "run_data/0/events/0/debug_event/debug_entry/tensor/"
                    "offset",
                    -7),
        128);
    json_decref(j);
  }
  CHECK_EQ_INT(etk_recorder_dropped(r.rec), 0);
}

ETK_TEST(ending_a_scope_twice) {
  rt_clock_t c;
  etk_recorder_t *rec, *other;
  etk_recorder_scope_t s, copy, d, nested;
  etk_recorder_stats_t st;
  const uint8_t *out;
  size_t len;
  rec = make_in_execute(&c, NULL, NULL);
  REQUIRE(rec != NULL);
  s = etk_recorder_begin_named(rec, "op", 0, 1);
  copy = s;
  nested = etk_recorder_begin_named(rec, "inner", 0, 2);
  /* ends out of order are fine; each scope ends once */
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_end(rec, &copy), ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_end(rec, &nested), ETK_OK);
  CHECK_EQ_INT(etk_recorder_end_op(rec, &nested), ETK_E_INVALID_STATE);
  d = etk_recorder_begin_delegate(rec, NULL, 3);
  CHECK_EQ_INT(etk_recorder_end_delegate(rec, &d, NULL, 0), ETK_OK);
  CHECK_EQ_INT(etk_recorder_end_delegate(rec, &d, NULL, 0),
               ETK_E_INVALID_STATE);
  /* a scope of another recorder */
  other = rt_make(arena2, sizeof arena2, &c);
  REQUIRE(other != NULL);
  REQUIRE(etk_recorder_begin_block(other, "Other") == ETK_OK);
  s = etk_recorder_begin(other, 0);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_end(other, &s), ETK_OK);
  etk_recorder_stats(rec, &st);
  CHECK_EQ_INT(st.events, 3);
  CHECK_EQ_INT(st.dropped_events, 0);
  REQUIRE(etk_recorder_finish(rec, &out, &len) == ETK_OK);
  CHECK_EQ_INT(rt_verify(out, len, NULL), ETK_OK);
}

ETK_TEST(many_open_scopes_stay_correct) {
  /* past ETK_RECORDER_TRACKED_SCOPES open scopes, ends still record */
  rt_clock_t c;
  etk_recorder_t *rec;
  static etk_recorder_scope_t s[ETK_RECORDER_TRACKED_SCOPES + 8];
  etk_recorder_stats_t st;
  size_t n = sizeof s / sizeof s[0];
  rec = make_in_execute(&c, NULL, NULL);
  REQUIRE(rec != NULL);
  for (size_t i = 0; i < n; i++) s[i] = etk_recorder_begin(rec, 0);
  CHECK(s[n - 1].serial == 0); /* untracked */
  for (size_t i = n; i-- > 0;)
    CHECK_EQ_INT(etk_recorder_end(rec, &s[i]), ETK_OK);
  CHECK_EQ_INT(etk_recorder_end(rec, &s[0]), ETK_E_INVALID_STATE);
  etk_recorder_stats(rec, &st);
  CHECK_EQ_U64(st.events, n);
  /* tracking resumes once scopes are ended */
  s[0] = etk_recorder_begin(rec, 0);
  CHECK(s[0].serial != 0);
}

static int fixed_offset_write(void *ctx, const void *data, size_t len,
                              uint64_t *offset) {
  (void)data;
  (void)len;
  *offset = *(const uint64_t *)ctx;
  return ETK_OK;
}

ETK_TEST(offsets_the_dump_cannot_hold) {
  static const uint64_t bad[2] = {UINT64_MAX, (uint64_t)INT64_MAX + 1};
  rt_clock_t c;
  uint64_t offset;
  etk_recorder_value_t v = two_floats();
  json_t *j = NULL;
  etk_recorder_t *rec = make_in_execute(&c, fixed_offset_write, &offset);
  REQUIRE(rec != NULL);
  for (int k = 0; k < 2; k++) {
    offset = bad[k];
    CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_OVERFLOW);
  }
  CHECK_EQ_INT(etk_recorder_dropped(rec), 2);
  offset = (uint64_t)INT64_MAX; /* the largest offset that fits */
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  REQUIRE(rt_finish_check(rec, &j));
  if (j) {
    /* the kept event, then the dropped-events marker block */
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 1);
    CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"), "etkit:dropped_events=2");
    json_decref(j);
  }
}

ETK_TEST_MAIN()
