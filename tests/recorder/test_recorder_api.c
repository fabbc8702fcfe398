/*
 * test_recorder_api.c - the recorder's own contract: set-up errors, string
 * interning, the state machine without aborts, upstream's hook semantics
 * (levels, NULL tracer, begin_at, delegate ids at end time), validation
 * before anything is written, repeated finish, fresh dumps, streaming and
 * the hot path's record size.
 */
#include <stdio.h>
#include <string.h>

#include "recorder_testutil.h"

static uint64_t arena[64u * 1024u / 8u];
static rt_clock_t clk;

static etk_recorder_t *fresh(void) {
  memset(&clk, 0, sizeof clk);
  return rt_make(arena, sizeof arena, &clk);
}

/* fresh() inside the block "b"; NULL on failure. */
static etk_recorder_t *fresh_in_block(void) {
  etk_recorder_t *rec = fresh();
  if (rec != NULL && etk_recorder_begin_block(rec, "b") != ETK_OK) return NULL;
  return rec;
}

static json_t *finish_json(etk_recorder_t *rec) {
  json_t *j;
  return rt_finish_check(rec, &j) ? j : NULL;
}

ETK_TEST(init_errors) {
  etk_recorder_t *rec = (etk_recorder_t *)1;
  etk_recorder_config_t cfg;
  static uint8_t tiny[64];
  etk_recorder_config_init(&cfg);
  cfg.clock = rt_clock_read;
  cfg.clock_ctx = &clk;
  CHECK_EQ_INT(etk_recorder_init(NULL, arena, sizeof arena, &cfg),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_init(&rec, NULL, sizeof arena, &cfg),
               ETK_E_INVALID_ARGUMENT);
  CHECK(rec == NULL);
  CHECK_EQ_INT(etk_recorder_init(&rec, tiny, sizeof tiny, &cfg),
               ETK_E_NO_MEMORY);
  cfg.max_strings = ETK_RECORDER_MAX_STRINGS + 1;
  CHECK_EQ_INT(etk_recorder_init(&rec, arena, sizeof arena, &cfg), ETK_E_LIMIT);
  cfg.max_strings = 0;
  cfg.output = tiny;
  cfg.output_capacity = 0;
  CHECK_EQ_INT(etk_recorder_init(&rec, arena, sizeof arena, &cfg),
               ETK_E_INVALID_ARGUMENT);
  cfg.output_capacity = sizeof tiny; /* smaller than an empty dump */
  CHECK_EQ_INT(etk_recorder_init(&rec, arena, sizeof arena, &cfg),
               ETK_E_NO_MEMORY);
  /* unaligned memory is fine */
  cfg.output = NULL;
  cfg.output_capacity = 0;
  CHECK_EQ_INT(
      etk_recorder_init(&rec, (uint8_t *)arena + 3, sizeof arena - 3, &cfg),
      ETK_OK);
  CHECK(rec != NULL && ((uintptr_t)rec % 8) == 0);
#if ETK_RECORDER_HOST
  /* no clock: the host clock */
  cfg.clock = NULL;
  CHECK_EQ_INT(etk_recorder_init(&rec, arena, sizeof arena, &cfg), ETK_OK);
  {
    etk_recorder_scope_t s = etk_recorder_begin(rec, 0);
    CHECK(s.start > 0);
  }
#endif
}

ETK_TEST(interning) {
  etk_recorder_t *rec = fresh();
  etk_recorder_name_t a, b, c;
  size_t len;
  static const char bad_utf8[] = {'a', (char)0xC3, 0};
  REQUIRE(rec != NULL);
  a = etk_recorder_intern(rec, "OPERATOR_CALL");
  b = etk_recorder_intern(rec, "native_call_add.out");
  c = etk_recorder_intern_n(rec, "OPERATOR_CALL_X", 13);
  CHECK(a != 0 && b != 0 && a != b);
  CHECK_EQ_INT(c, a);
  CHECK_EQ_STR(etk_recorder_name_string(rec, b, &len), "native_call_add.out");
  CHECK_EQ_U64(len, 19);
  CHECK(etk_recorder_name_string(rec, 0, NULL) == NULL);
  CHECK(etk_recorder_name_string(rec, 999, NULL) == NULL);
  CHECK_EQ_INT(etk_recorder_intern(rec, NULL), 0);
  CHECK_EQ_INT(etk_recorder_intern(NULL, "x"), 0);
  CHECK_EQ_INT(etk_recorder_intern(rec, bad_utf8), 0);
  CHECK(etk_recorder_intern(rec, "") != 0); /* empty is a valid name */
  {
    etk_recorder_stats_t st;
    etk_recorder_stats(rec, &st);
    CHECK_EQ_INT(st.strings, 3);
    CHECK_EQ_U64(st.string_bytes, 14 + 20 + 1);
  }
}

ETK_TEST(string_table_full_is_not_a_drop) {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec;
  char name[8];
  etk_recorder_scope_t s;
  etk_recorder_config_init(&cfg);
  cfg.clock = rt_clock_read;
  cfg.clock_ctx = &clk;
  cfg.max_strings = 3;
  REQUIRE(etk_recorder_init(&rec, arena, sizeof arena, &cfg) == ETK_OK);
  for (int i = 0; i < 3; i++) {
    snprintf(name, sizeof name, "n%d", i);
    CHECK(etk_recorder_intern(rec, name) != 0);
  }
  CHECK_EQ_INT(etk_recorder_intern(rec, "n3"), 0);
  CHECK_EQ_INT(etk_recorder_intern(rec, "n1"), 2); /* known names still work */
  REQUIRE(etk_recorder_begin_block_id(rec, 1) == ETK_OK);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 0);
  /* a by-name event that needs a new slot is dropped and latches */
  s = etk_recorder_begin_named(rec, "brand_new", 0, 0);
  CHECK_EQ_INT(s.kind, ETK_E_FULL);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_E_FULL);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 1);
  s = etk_recorder_begin(rec, 2);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_E_FULL);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 2);
}

ETK_TEST(state_machine_without_aborts) {
  etk_recorder_t *rec = fresh();
  etk_recorder_scope_t s;
  etk_recorder_value_t v = etk_value_int(1);
  const uint8_t *out;
  size_t len;
  REQUIRE(rec != NULL);
  /* Init: events and allocators refused, finish has nothing to write */
  s = etk_recorder_begin(rec, 0);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, 1, 1), ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "a", NULL),
               ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_log_delegate(rec, NULL, 1, 1, 2, NULL, 0),
               ETK_E_INVALID_STATE);
  s = etk_recorder_begin_delegate(rec, NULL, 1);
  CHECK_EQ_INT(s.kind, ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_finish(rec, &out, &len), ETK_E_INVALID_STATE);
  CHECK(out == NULL && len == 0);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 0);
  /* block, finish, then events are refused until the next block */
  REQUIRE(etk_recorder_begin_block(rec, "b") == ETK_OK);
  CHECK_EQ_INT(etk_recorder_finish(rec, &out, &len), ETK_OK);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, 1, 1), ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "a", NULL),
               ETK_E_INVALID_STATE);
  /* NULLs */
  CHECK_EQ_INT(etk_recorder_begin_block(NULL, "x"), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_begin_block(rec, NULL), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_begin_block_id(rec, 0), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_begin_block_id(rec, 77), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_end(rec, NULL), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_end(NULL, &s), ETK_E_INVALID_ARGUMENT);
  s = etk_recorder_begin(NULL, 0);
  CHECK_EQ_INT(s.kind, ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_log_value(rec, NULL, 0), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_finish(NULL, &out, &len), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, NULL, NULL),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_recorder_dropped(NULL), 0);
}

ETK_TEST(unknown_name_id_is_refused) {
  etk_recorder_t *rec = fresh_in_block();
  etk_recorder_scope_t s;
  json_t *j;
  REQUIRE(rec != NULL);
  s = etk_recorder_begin(rec, 4242);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_E_INVALID_ARGUMENT);
  s = etk_recorder_begin(rec, 0); /* 0: no name */
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  j = finish_json(rec);
  REQUIRE(j != NULL || !rt_have_flatc());
  if (j) {
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 1);
    CHECK(!rt_json_has(j, "run_data/0/events/0/profile_event/name"));
    json_decref(j);
  }
}

ETK_TEST(begin_at_uses_current_ids_only_for_unset_chain) {
  etk_recorder_t *rec = fresh();
  etk_recorder_scope_t s;
  REQUIRE(rec != NULL);
  etk_recorder_set_chain_debug_handle(rec, 3, 44);
  CHECK_EQ_INT(etk_recorder_current_chain(rec), 3);
  CHECK_EQ_INT(etk_recorder_current_debug_handle(rec), 44);
  s = etk_recorder_begin_at(rec, 0, -1, 999);
  CHECK_EQ_INT(s.chain, 3);
  CHECK_EQ_INT(s.debug_handle, 44);
  s = etk_recorder_begin_at(rec, 0, 0, 7);
  CHECK_EQ_INT(s.chain, 0);
  CHECK_EQ_INT(s.debug_handle, 7);
  s = etk_recorder_begin(rec, 0);
  CHECK_EQ_INT(s.chain, 3);
  CHECK_EQ_INT(s.debug_handle, 44);
}

/* begin_mark / end_mark: etk_recorder_begin / end with the name, chain
 * and handle kept by the caller; the same event, the same checks. */
ETK_TEST(mark_scopes_are_plain_scopes) {
  etk_recorder_t *rec = fresh_in_block();
  etk_recorder_name_t op;
  etk_recorder_mark_t outer, inner, m;
  json_t *j;
  REQUIRE(rec != NULL);
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  outer = etk_recorder_begin_mark(rec);
  inner = etk_recorder_begin_mark(rec);
  CHECK(inner.start > outer.start);
  CHECK(inner.serial != 0 && inner.serial != outer.serial);
  CHECK_EQ_INT(etk_recorder_end_mark(rec, op, 4, 17, inner), ETK_OK);
  /* a second end of the same scope records nothing */
  CHECK_EQ_INT(etk_recorder_end_mark(rec, op, 4, 17, inner),
               ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_end_mark(rec, 0, 1, 2, outer), ETK_OK);
  /* an unknown name id is refused */
  m = etk_recorder_begin_mark(rec);
  CHECK_EQ_INT(etk_recorder_end_mark(rec, 999, 0, 0, m),
               ETK_E_INVALID_ARGUMENT);
  /* NULL */
  m = etk_recorder_begin_mark(NULL);
  CHECK_EQ_U64(m.start, 0);
  CHECK_EQ_INT(m.serial, 0);
  CHECK_EQ_INT(etk_recorder_end_mark(NULL, op, 0, 0, m),
               ETK_E_INVALID_ARGUMENT);
  j = finish_json(rec);
  if (j) {
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 2);
    CHECK_EQ_STR(rt_json_str(j, "run_data/0/events/0/profile_event/name"),
                 "OPERATOR_CALL");
    CHECK_EQ_INT(
        rt_json_int(j, "run_data/0/events/0/profile_event/chain_index", -9), 4);
    CHECK_EQ_INT(
        rt_json_int(j, "run_data/0/events/0/profile_event/instruction_id", -9),
        17);
    CHECK(!rt_json_has(j, "run_data/0/events/1/profile_event/name"));
    CHECK_EQ_INT(
        rt_json_int(j, "run_data/0/events/1/profile_event/instruction_id", -9),
        2);
    json_decref(j);
  }
}

ETK_TEST(delegate_events_take_ids_at_end_time) {
  etk_recorder_t *rec = fresh_in_block();
  etk_recorder_scope_t s;
  json_t *j;
  REQUIRE(rec != NULL);
  etk_recorder_set_chain_debug_handle(rec, 0, 1);
  s = etk_recorder_begin_delegate(rec, NULL, 5);
  etk_recorder_set_chain_debug_handle(rec, 2, 9);
  CHECK_EQ_INT(etk_recorder_end_delegate(rec, &s, NULL, 0), ETK_OK);
  /* a plain scope given to end_delegate is refused */
  s = etk_recorder_begin(rec, 0);
  CHECK_EQ_INT(etk_recorder_end_delegate(rec, &s, NULL, 0),
               ETK_E_INVALID_ARGUMENT);
  s = etk_recorder_begin_delegate(rec, NULL, 5);
  CHECK_EQ_INT(etk_recorder_end_delegate(rec, &s, NULL, 3),
               ETK_E_INVALID_ARGUMENT);
  {
    static uint8_t big[ETK_RECORDER_MAX_METADATA + 1];
    CHECK_EQ_INT(etk_recorder_end_delegate(rec, &s, big, sizeof big),
                 ETK_E_LIMIT);
  }
  j = finish_json(rec);
  if (j) {
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 1);
    CHECK_EQ_INT(
        rt_json_int(j, "run_data/0/events/0/profile_event/chain_index", -9), 2);
    CHECK_EQ_INT(
        rt_json_int(j, "run_data/0/events/0/profile_event/instruction_id", -9),
        9);
    json_decref(j);
  }
}

ETK_TEST(delegate_begin_opens_events_so_allocators_are_refused) {
  etk_recorder_t *rec = fresh_in_block();
  etk_recorder_scope_t s;
  REQUIRE(rec != NULL);
  s = etk_recorder_begin_delegate(rec, "op", -1);
  CHECK_EQ_INT(s.kind, ETK_SCOPE_DELEGATE_STR);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "late", NULL),
               ETK_E_INVALID_STATE);
}

ETK_TEST(levels_and_hooks) {
  etk_recorder_t *rec = fresh();
  etk_recorder_scope_t s;
  etk_recorder_name_t op;
  json_t *j;
  REQUIRE(rec != NULL);
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  /* defaults: no debug logging, all events profiled */
  CHECK_EQ_INT(etk_recorder_debug_level(rec), ETK_DEBUG_LEVEL_NONE);
  CHECK_EQ_INT(etk_recorder_profiling_level(rec), ETK_PROFILING_ALL_EVENTS);
  CHECK(!etk_recorder_should_log(rec, ETK_LOGGED_INTERMEDIATE_OUTPUT));
  CHECK(!etk_recorder_should_log(rec, ETK_LOGGED_PROGRAM_OUTPUT));
  etk_recorder_set_debug_level(rec, ETK_DEBUG_LEVEL_PROGRAM_OUTPUTS);
  CHECK(!etk_recorder_should_log(rec, ETK_LOGGED_INTERMEDIATE_OUTPUT));
  CHECK(etk_recorder_should_log(rec, ETK_LOGGED_PROGRAM_OUTPUT));
  etk_recorder_set_debug_level(rec, ETK_DEBUG_LEVEL_INTERMEDIATE_OUTPUTS);
  CHECK(etk_recorder_should_log(rec, ETK_LOGGED_INTERMEDIATE_OUTPUT));
  CHECK(etk_recorder_should_log(rec, ETK_LOGGED_PROGRAM_OUTPUT));
  CHECK(!etk_recorder_should_log(NULL, ETK_LOGGED_PROGRAM_OUTPUT));
  /* a NULL tracer is safe for the op hooks */
  s = etk_recorder_begin_op(NULL, op);
  CHECK_EQ_INT(etk_recorder_end_op(NULL, &s), ETK_OK);

  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  s = etk_recorder_begin_op(rec, op); /* recorded */
  CHECK_EQ_INT(etk_recorder_end_op(rec, &s), ETK_OK);
  etk_recorder_set_profiling_level(rec, ETK_PROFILING_METHOD_ONLY);
  s = etk_recorder_begin_op(rec, op); /* skipped at begin */
  CHECK_EQ_INT(s.kind, ETK_SCOPE_SKIPPED);
  etk_recorder_set_profiling_level(rec, ETK_PROFILING_ALL_EVENTS);
  CHECK_EQ_INT(etk_recorder_end_op(rec, &s), ETK_OK);
  s = etk_recorder_begin_op(rec, op); /* level dropped before the end */
  etk_recorder_set_profiling_level(rec, ETK_PROFILING_METHOD_ONLY);
  CHECK_EQ_INT(etk_recorder_end_op(rec, &s), ETK_OK);
  /* method scopes are always recorded */
  s = etk_recorder_begin_named(rec, "Method::execute", -1, 0);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  j = finish_json(rec);
  if (j) {
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 2);
    CHECK_EQ_STR(rt_json_str(j, "run_data/0/events/1/profile_event/name"),
                 "Method::execute");
    json_decref(j);
  }
}

ETK_TEST(validation_before_anything_is_written) {
  static uint8_t debug[2048];
  static const uint16_t half[4] = {0};
  static const int64_t s2[1] = {2};
  etk_recorder_t *rec = fresh_in_block();
  etk_recorder_tensor_t t[2];
  etk_recorder_value_t v;
  etk_recorder_stats_t st;
  REQUIRE(rec != NULL);
  REQUIRE(etk_recorder_set_debug_buffer(rec, debug, sizeof debug) == ETK_OK);
  memset(t, 0, sizeof t);
  t[0].scalar_type = ETK_SCALAR_TYPE_FLOAT;
  t[0].dim = 1;
  t[0].sizes = s2;
  t[0].data = half;
  t[0].nbytes = 8;
  t[1] = t[0];
  /* HALF and BFLOAT16 are not supported by ETDump (as upstream): the list
   * is refused whole, and its first tensor's bytes never reach the sink */
  t[1].scalar_type = ETK_SCALAR_TYPE_HALF;
  v = etk_value_tensor_list(t, 2);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
  t[1].scalar_type = ETK_SCALAR_TYPE_BFLOAT16;
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_U64(etk_recorder_debug_buffer_used(rec), 0);
  /* other malformed values */
  t[1] = t[0];
  t[1].dim = ETK_RECORDER_MAX_DIMS + 1;
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_LIMIT);
  t[1] = t[0];
  t[1].sizes = NULL;
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
  t[1] = t[0];
  t[1].data = NULL;
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
  v = etk_value_tensor(NULL);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
  v = etk_value_int(1);
  v.kind = 3; /* Float is never produced */
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
  v = etk_value_int(1);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, (etk_logged_type_t)7),
               ETK_E_INVALID_ARGUMENT);
  etk_recorder_stats(rec, &st);
  CHECK_EQ_INT(st.events, 0);
  CHECK_EQ_INT(st.dropped_events, 0);
  CHECK_EQ_U64(etk_recorder_debug_buffer_used(rec), 0);
  /* nbytes that does not match dtype x shape (0 means "no data") */
  {
    static const int64_t neg[1] = {-2}, huge[2] = {INT64_MAX, 4};
    t[1] = t[0];
    t[1].nbytes = 12;
    v = etk_value_tensor(&t[1]);
    CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
    t[1].nbytes = 4;
    CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
    t[1].scalar_type = ETK_SCALAR_TYPE_DOUBLE; /* 2 doubles: 16, not 8 */
    t[1].nbytes = 8;
    CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
    t[1] = t[0];
    t[1].sizes = neg;
    CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
    t[1].dim = 2;
    t[1].sizes = huge;
    CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_INVALID_ARGUMENT);
    etk_recorder_stats(rec, &st);
    CHECK_EQ_INT(st.events, 0);
    CHECK_EQ_U64(etk_recorder_debug_buffer_used(rec), 0);
  }
  /* every supported dtype is accepted, with its own element size */
  {
    static const int types[] = {0, 1, 2, 3, 4, 6, 7, 11, 22, 27};
    static const size_t sizes[] = {1, 1, 2, 4, 8, 4, 8, 1, 2, 2};
    static const int64_t one[1] = {1};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
      t[0].scalar_type = types[i];
      t[0].sizes = one;
      t[0].nbytes = sizes[i];
      v = etk_value_tensor(&t[0]);
      CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
    }
  }
}

ETK_TEST(empty_tensor_needs_no_sink_and_gets_offset_minus_one) {
  static const int64_t s0[2] = {0, 3};
  etk_recorder_t *rec = fresh_in_block();
  etk_recorder_tensor_t t;
  etk_recorder_value_t v;
  json_t *j;
  REQUIRE(rec != NULL);
  t = rt_tensor(ETK_SCALAR_TYPE_LONG, 2, s0, NULL, 0);
  v = etk_value_tensor(&t);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT),
               ETK_OK);
  j = finish_json(rec);
  if (j) {
    const char *p = "run_data/0/events/0/debug_event/debug_entry/tensor";
    char q[128];
    snprintf(q, sizeof q, "%s/offset", p);
    CHECK_EQ_INT(rt_json_int(j, q, 0), -1);
    snprintf(q, sizeof q, "%s/strides/0", p);
    CHECK_EQ_INT(rt_json_int(j, q, 0), 3); /* contiguous strides computed */
    snprintf(q, sizeof q, "%s/scalar_type", p);
    CHECK_EQ_STR(rt_json_str(j, q), "LONG");
    json_decref(j);
  }
}

ETK_TEST(bundled_input_index_is_written) {
  etk_recorder_t *rec = fresh();
  json_t *j;
  REQUIRE(rec != NULL);
  REQUIRE(etk_recorder_begin_block(rec, "Default") == ETK_OK);
  etk_recorder_set_bundled_input_index(rec, 4);
  CHECK_EQ_INT(etk_recorder_bundled_input_index(rec), 4);
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  etk_recorder_set_bundled_input_index(rec, ETK_BUNDLED_INPUT_INDEX_UNSET);
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  j = finish_json(rec);
  if (j) {
    CHECK_EQ_INT(rt_json_int(j, "run_data/0/bundled_input_index", 0), -1);
    CHECK_EQ_INT(rt_json_int(j, "run_data/1/bundled_input_index", 0), 4);
    CHECK_EQ_INT(rt_json_int(j, "run_data/2/bundled_input_index", 0), -1);
    json_decref(j);
  }
}

ETK_TEST(dropped_events_counted_by_a_wrapper) {
  etk_recorder_t *rec = fresh();
  const uint8_t *out;
  size_t len;
  REQUIRE(rec != NULL);
  etk_recorder_count_dropped(NULL, 3); /* no-op */
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  etk_recorder_count_dropped(rec, 5);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 5);
  etk_recorder_count_dropped(rec, UINT32_MAX); /* saturates */
  CHECK_EQ_U64(etk_recorder_dropped(rec), UINT32_MAX);
  REQUIRE(etk_recorder_finish(rec, &out, &len) == ETK_OK);
  CHECK_EQ_INT(rt_verify(out, len, NULL), ETK_OK);
  /* a fresh dump starts from 0; the marker carries the count */
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 0);
  etk_recorder_count_dropped(rec, 7);
  {
    json_t *j = finish_json(rec);
    if (j) {
      CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"), "etkit:dropped_events=7");
      json_decref(j);
    }
  }
}

ETK_TEST(repeated_finish_and_fresh_dumps) {
  etk_recorder_t *rec = fresh();
  etk_recorder_scope_t s;
  const uint8_t *a, *b;
  size_t la, lb;
  static uint8_t copy[4096];
  json_t *j;
  REQUIRE(rec != NULL);
  REQUIRE(etk_recorder_begin_block(rec, "Default") == ETK_OK);
  s = etk_recorder_begin_named(rec, "Program::load_method", -1, 0);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  REQUIRE(etk_recorder_finish(rec, &a, &la) == ETK_OK);
  REQUIRE(la <= sizeof copy);
  memcpy(copy, a, la);
  REQUIRE(etk_recorder_finish(rec, &b, &lb) == ETK_OK);
  CHECK_EQ_U64(lb, la);
  CHECK(memcmp(copy, b, lb) == 0);
  /* the next block starts a fresh dump: "Default" is not repeated and the
   * new dump is not larger for it (no stale bytes, unlike upstream B3) */
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  CHECK_EQ_INT(etk_recorder_block_count(rec), 1);
  s = etk_recorder_begin_named(rec, "Method::execute", -1, 0);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  j = finish_json(rec);
  if (j) {
    CHECK_EQ_U64(rt_json_len(j, "run_data"), 1);
    CHECK_EQ_STR(rt_json_str(j, "run_data/0/name"), "Execute");
    json_decref(j);
  }
  /* many rounds do not use memory up */
  for (int i = 0; i < 2000; i++) {
    REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
    s = etk_recorder_begin_named(rec, "Method::execute", -1, 0);
    REQUIRE(etk_recorder_end(rec, &s) == ETK_OK);
    REQUIRE(etk_recorder_finish(rec, &a, &la) == ETK_OK);
  }
  CHECK_EQ_INT(etk_recorder_dropped(rec), 0);
}

typedef struct collect {
  uint8_t bytes[4096];
  size_t len;
  int fail;
} collect_t;

static int collect_write(void *ctx, const void *data, size_t len) {
  collect_t *c = (collect_t *)ctx;
  if (c->fail || len > sizeof c->bytes - c->len) return -1;
  memcpy(c->bytes + c->len, data, len);
  c->len += len;
  return 0;
}

ETK_TEST(finish_stream) {
  static collect_t c;
  etk_recorder_t *rec = fresh_in_block();
  const uint8_t *a;
  size_t la;
  REQUIRE(rec != NULL);
  memset(&c, 0, sizeof c);
  CHECK_EQ_INT(etk_recorder_finish_stream(rec, collect_write, &c), ETK_OK);
  REQUIRE(etk_recorder_finish(rec, &a, &la) == ETK_OK);
  CHECK(c.len == la && memcmp(c.bytes, a, la) == 0);
  CHECK_EQ_INT(rt_verify(c.bytes, c.len, NULL), ETK_OK);
  c.fail = 1;
  CHECK_EQ_INT(etk_recorder_finish_stream(rec, collect_write, &c), ETK_E_IO);
  CHECK_EQ_INT(etk_recorder_finish_stream(rec, NULL, &c),
               ETK_E_INVALID_ARGUMENT);
}

ETK_TEST(hot_path_record_is_32_bytes) {
  etk_recorder_t *rec = fresh();
  etk_recorder_name_t op;
  etk_recorder_stats_t before, after;
  REQUIRE(rec != NULL);
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  etk_recorder_stats(rec, &before);
  for (uint32_t i = 0; i < 100; i++) {
    etk_recorder_scope_t s;
    etk_recorder_set_chain_debug_handle(rec, 0, i);
    s = etk_recorder_begin(rec, op);
    REQUIRE(etk_recorder_end(rec, &s) == ETK_OK);
  }
  etk_recorder_stats(rec, &after);
  CHECK_EQ_U64(after.record_bytes - before.record_bytes, 100 * 32);
  CHECK_EQ_INT(after.events, 100);
  CHECK(!after.vtables_conservative);
}

ETK_TEST(many_shapes_fall_back_to_conservative_vtables) {
  /* a dump that uses more table shapes than the builder's vtable cache
   * still finishes within its reservation */
  static uint8_t debug[16384];
  static const float f[2] = {1, 2};
  static const int64_t s2[1] = {2};
  etk_recorder_t *rec = fresh();
  etk_recorder_tensor_t t;
  etk_recorder_value_t v;
  etk_recorder_stats_t st;
  const uint8_t *out;
  size_t len;
  REQUIRE(rec != NULL);
  t = rt_tensor(ETK_SCALAR_TYPE_FLOAT, 1, s2, f, sizeof f);
  etk_recorder_set_debug_buffer(rec, debug, sizeof debug);
  for (int bundled = -1; bundled < 1; bundled++) {
    etk_recorder_set_bundled_input_index(rec, bundled);
    REQUIRE(etk_recorder_begin_block(rec, "b") == ETK_OK);
    CHECK_EQ_INT(etk_recorder_track_allocator(rec, "a", NULL), ETK_OK);
    for (int chain = 0; chain < 2; chain++) {
      etk_recorder_scope_t s;
      etk_recorder_set_chain_debug_handle(rec, chain, 1);
      s = etk_recorder_begin_named(rec, "n", -1, 0);
      CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
      s = etk_recorder_begin(rec, 0);
      CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
      CHECK_EQ_INT(etk_recorder_log_delegate(rec, NULL, 1, 1, 2, NULL, 0), 0);
      CHECK_EQ_INT(etk_recorder_log_delegate(rec, "d", -1, 1, 2, NULL, 0), 0);
      CHECK_EQ_INT(etk_recorder_track_allocation(rec, 1, 8), ETK_OK);
      for (int k = 0; k < 7; k++) {
        etk_recorder_tensor_t two[2];
        two[0] = t;
        two[1] = t;
        v = k == 0   ? etk_value_int(1)
            : k == 1 ? etk_value_double(2)
            : k == 2 ? etk_value_bool(1)
            : k <= 4 ? etk_value_tensor(&t)
                     : etk_value_tensor_list(two, 2);
        CHECK_EQ_INT(
            etk_recorder_log_value(rec, &v, (etk_logged_type_t)(k & 1)),
            ETK_OK);
        CHECK_EQ_INT(etk_recorder_log_delegate_value(rec, NULL, 3, &v), ETK_OK);
        CHECK_EQ_INT(etk_recorder_log_delegate_value(rec, "x", -1, &v), ETK_OK);
      }
    }
  }
  etk_recorder_stats(rec, &st);
  CHECK(st.vtable_shapes > 32);
  CHECK(st.vtables_conservative);
  REQUIRE(etk_recorder_finish(rec, &out, &len) == ETK_OK);
  CHECK(len <= etk_recorder_output_bound(rec));
  CHECK_EQ_INT(rt_verify(out, len, NULL), ETK_OK);
}

ETK_TEST_MAIN()
