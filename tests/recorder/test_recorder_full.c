/*
 * test_recorder_full.c - what happens when memory runs out.
 *
 * A fixed, varied "model run" (blocks, allocators, allocations, named and
 * unnamed profile events, delegate events with metadata, debug tensors,
 * lists and scalars, delegate outputs) is recorded into arenas of every
 * size from the smallest that initialises up to one that holds everything,
 * in 8-byte steps, and again with a separate output buffer of every size.
 * For each size:
 *   - nothing aborts; once a call reports ETK_E_FULL every later recording
 *     call does too (stop and count);
 *   - etk_recorder_dropped() equals the number of events refused;
 *   - finish succeeds, the dump passes the verifier and fits the bound;
 *   - the dump holds EXACTLY the first K events of the unlimited run (same
 *     blocks, names, ids, times, tensor offsets), K = the events accepted,
 *     followed by the "etkit:dropped_events=N" block iff something was
 *     dropped.
 * Finally etk_recorder_estimate_size() of the run's workload is enough.
 */
#include <stdio.h>
#include <string.h>

#include "recorder_testutil.h"

#define MAX_ARENA 32768u
static uint64_t arena[MAX_ARENA / 8];
static uint8_t output[16384];
static uint8_t debug[16384];

typedef struct outcome {
  int status[512];
  int is_event[512];
  int is_block[512];
  int n;
} outcome_t;

static void note(outcome_t *o, int status, int is_event, int is_block) {
  o->status[o->n] = status;
  o->is_event[o->n] = is_event;
  o->is_block[o->n] = is_block;
  o->n++;
}

/* The model run.  Every recording call's status is noted. */
static void run_model(etk_recorder_t *rec, outcome_t *o) {
  static const float data[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  static const int64_t s34[2] = {3, 4}, s6[1] = {6};
  static const char *ops[] = {
      "native_call_convolution.out", "native_call_relu.out",
      "native_call_max_pool2d_with_indices.out", "native_call_addmm.out"};
  etk_recorder_name_t op_call = etk_recorder_intern(rec, "OPERATOR_CALL");
  etk_recorder_tensor_t t, list[2];
  etk_recorder_value_t v;
  etk_recorder_scope_t outer, inner;
  uint32_t alloc = 0;
  o->n = 0;
  etk_recorder_set_debug_buffer(rec, debug, sizeof debug);
  t = rt_tensor(ETK_SCALAR_TYPE_FLOAT, 2, s34, data, sizeof data);
  list[0] = t;
  list[1] = t;
  list[1].dim = 1;
  list[1].sizes = s6;
  list[1].nbytes = 24;

  note(o, etk_recorder_begin_block(rec, "Default"), 0, 1);
  note(o, etk_recorder_track_allocator(rec, "method_allocator", &alloc), 0, 0);
  note(o, etk_recorder_track_allocator(rec, "planned_memory", NULL), 0, 0);
  outer = etk_recorder_begin_named(rec, "Program::load_method", -1, 0);
  inner = etk_recorder_begin_named(rec, "Method::init", -1, 0);
  note(o, etk_recorder_track_allocation(rec, 1, 4096), 1, 0);
  note(o, etk_recorder_end(rec, &inner), 1, 0);
  note(o, etk_recorder_end(rec, &outer), 1, 0);
  for (int run = 0; run < 3; run++) {
    etk_recorder_set_bundled_input_index(rec, run == 2 ? 1 : -1);
    note(o, etk_recorder_begin_block(rec, "Execute"), 0, 1);
    outer = etk_recorder_begin_named(rec, "Method::execute", -1, 0);
    for (uint32_t i = 0; i < 8; i++) {
      etk_recorder_scope_t a, b;
      etk_recorder_set_chain_debug_handle(rec, 0, i);
      a = etk_recorder_begin(rec, op_call);
      b = etk_recorder_begin_named(rec, ops[i % 4], -1, 0);
      if (i % 3 == 0) {
        v = etk_value_tensor(&t);
        note(o, etk_recorder_log_value(rec, &v, 0), 1, 0);
      }
      if (i == 4) {
        v = etk_value_tensor_list(list, 2);
        note(o, etk_recorder_log_value(rec, &v, 0), 1, 0);
      }
      note(o, etk_recorder_end(rec, &b), 1, 0);
      note(o, etk_recorder_end(rec, &a), 1, 0);
      if (i == 5) {
        static const char md[] = "xnn:meta";
        etk_recorder_scope_t d =
            etk_recorder_begin_delegate(rec, "conv #1", -1);
        note(o, etk_recorder_log_delegate(rec, NULL, 7, 10, 20, md, sizeof md),
             1, 0);
        note(o, etk_recorder_end_delegate(rec, &d, md, 3), 1, 0);
        v = etk_value_int(42 + run);
        note(o, etk_recorder_log_delegate_value(rec, NULL, 11, &v), 1, 0);
        v = etk_value_double(0.25);
        note(o, etk_recorder_log_delegate_value(rec, "dbg_out", -1, &v), 1, 0);
      }
      etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET, 0);
    }
    v = etk_value_tensor(&t);
    note(o, etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT), 1, 0);
    v = etk_value_bool(run & 1);
    note(o, etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT), 1, 0);
    note(o, etk_recorder_end(rec, &outer), 1, 0);
  }
}

/* One line per block and per event, read back with etkit's accessors. */
typedef struct tokens {
  char line[512][160];
  int is_event[512];
  int n;
  int marker; /* index of the dropped marker, -1 if none */
} tokens_t;

static void add(tokens_t *t, int is_event, const char *text) {
  if (t->n < 512) {
    snprintf(t->line[t->n], sizeof t->line[0], "%s", text);
    t->is_event[t->n] = is_event;
    t->n++;
  }
}

/* Writes the line of the Event table ev into s[0..size). */
static void event_line(etk_fb_table_t ev, char *s, size_t size) {
  etk_fb_table_t pe = etk_fb_get_table(ev, ETK_ETDUMP_EVENT_PROFILE_EVENT);
  etk_fb_table_t ae = etk_fb_get_table(ev, ETK_ETDUMP_EVENT_ALLOCATION_EVENT);
  etk_fb_table_t de = etk_fb_get_table(ev, ETK_ETDUMP_EVENT_DEBUG_EVENT);
  if (etk_fb_table_present(pe)) {
    etk_fb_string_t n = etk_fb_get_string(pe, ETK_ETDUMP_PROFILE_EVENT_NAME);
    etk_fb_string_t ids =
        etk_fb_get_string(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR);
    snprintf(
        s, size, "P %s c=%d i=%d d=%d/%s m=%u t=%llu-%llu",
        n.data ? n.data : "-",
        etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0),
        etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, -1),
        etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, -1),
        ids.data ? ids.data : "-",
        etk_fb_get_vector(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA)
            .count,
        (unsigned long long)etk_fb_get_u64(
            pe, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 0),
        (unsigned long long)etk_fb_get_u64(
            pe, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 0));
  } else if (etk_fb_table_present(ae)) {
    snprintf(s, size, "A %d %llu",
             etk_fb_get_i32(ae, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID, 0),
             (unsigned long long)etk_fb_get_u64(
                 ae, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE, 0));
  } else {
    etk_fb_table_t val =
        etk_fb_get_table(de, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY);
    etk_fb_table_t ten = etk_fb_get_table(val, ETK_ETDUMP_VALUE_TENSOR);
    etk_fb_string_t ids =
        etk_fb_get_string(de, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR);
    snprintf(
        s, size, "D v=%d c=%llu i=%d d=%d/%s off=%lld out=%d",
        etk_fb_get_i8(val, ETK_ETDUMP_VALUE_VAL, 0),
        (unsigned long long)etk_fb_get_u64(
            de, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX, 0),
        etk_fb_get_i32(de, ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID, -1),
        etk_fb_get_i32(de, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT, -1),
        ids.data ? ids.data : "-",
        etk_fb_table_present(ten)
            ? (long long)etk_fb_get_i64(ten, ETK_ETDUMP_TENSOR_OFFSET, 0)
            : -2,
        etk_fb_has(val, ETK_ETDUMP_VALUE_OUTPUT));
  }
}

static void extract(const uint8_t *buf, uint32_t root, tokens_t *t) {
  etk_fb_table_t dump = etk_fb_root(buf, root);
  etk_fb_vector_t runs = etk_fb_get_vector(dump, ETK_ETDUMP_RUN_DATA);
  char s[160];
  t->n = 0;
  t->marker = -1;
  for (uint32_t r = 0; r < runs.count; r++) {
    etk_fb_table_t run = etk_fb_vector_table(buf, runs, r);
    etk_fb_string_t name = etk_fb_get_string(run, ETK_ETDUMP_RUN_DATA_NAME);
    etk_fb_vector_t allocs =
        etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_ALLOCATORS);
    etk_fb_vector_t events = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
    if (name.data && strncmp(name.data, "etkit:dropped_events=", 21) == 0)
      t->marker = t->n;
    snprintf(s, sizeof s, "B %s bundled=%d", name.data ? name.data : "-",
             etk_fb_get_i32(run, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX, -1));
    add(t, 0, s);
    for (uint32_t a = 0; a < allocs.count; a++) {
      etk_fb_table_t al = etk_fb_vector_table(buf, allocs, a);
      snprintf(s, sizeof s, "L %s",
               etk_fb_get_string(al, ETK_ETDUMP_ALLOCATOR_NAME).data);
      add(t, 0, s);
    }
    for (uint32_t e = 0; e < events.count; e++) {
      event_line(etk_fb_vector_table(buf, events, e), s, sizeof s);
      add(t, 1, s);
    }
  }
}

static etk_recorder_t *make(size_t arena_size, size_t out_cap, rt_clock_t *c) {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec = NULL;
  memset(c, 0, sizeof *c);
  c->now = 1000;
  etk_recorder_config_init(&cfg);
  cfg.clock = rt_clock_read;
  cfg.clock_ctx = c;
  cfg.max_strings = 16;
  if (out_cap) {
    cfg.output = output;
    cfg.output_capacity = out_cap;
  }
  if (etk_recorder_init(&rec, arena, arena_size, &cfg) != ETK_OK) return NULL;
  return rec;
}

static tokens_t reference, got;
static outcome_t ref_outcome, outcome;

/* Records the model at one size and checks everything; returns the number
 * of events accepted, or -1 if the recorder could not even be set up. */
static int check_size(size_t arena_size, size_t out_cap, int use_flatc) {
  rt_clock_t c;
  etk_recorder_t *rec = make(arena_size, out_cap, &c);
  etk_recorder_stats_t st;
  const uint8_t *buf;
  size_t len;
  uint32_t root;
  int accepted = 0, refused = 0, blocks_refused = 0, latched = 0, ok = 1;
  if (rec == NULL) return -1;
  run_model(rec, &outcome);
  for (int i = 0; i < outcome.n; i++) {
    int s = outcome.status[i];
    if (s != ETK_OK && s != ETK_E_FULL) {
      printf("# size %zu/%zu: call %d returned %s\n", arena_size, out_cap, i,
             etk_status_name(s));
      ok = 0;
    }
    if (latched && s != ETK_E_FULL) {
      printf("# size %zu/%zu: call %d accepted after the latch\n", arena_size,
             out_cap, i);
      ok = 0;
    }
    if (s == ETK_E_FULL) latched = 1;
    if (outcome.is_event[i]) {
      if (s == ETK_OK)
        accepted++;
      else
        refused++;
    }
    if (outcome.is_block[i] && s == ETK_E_FULL) blocks_refused++;
  }
  etk_recorder_stats(rec, &st);
  CHECK_EQ_INT(etk_recorder_dropped(rec), refused);
  CHECK_EQ_INT(st.dropped_blocks, blocks_refused);
  CHECK_EQ_INT(st.events, accepted);
  if (etk_recorder_finish(rec, &buf, &len) != ETK_OK) {
    printf("# size %zu/%zu: finish failed\n", arena_size, out_cap);
    CHECK(0);
    return accepted;
  }
  CHECK(len <= etk_recorder_output_bound(rec));
  if (rt_verify(buf, len, &root) != ETK_OK) {
    CHECK(0);
    return accepted;
  }
  extract(buf, root, &got);
  {
    int events = 0, n = got.marker >= 0 ? got.marker : got.n;
    if (latched != (got.marker >= 0)) ok = 0;
    if (got.marker >= 0 && got.marker != got.n - 1) ok = 0;
    for (int i = 0; i < n; i++) {
      if (i >= reference.n || strcmp(got.line[i], reference.line[i]) != 0) {
        printf("# size %zu/%zu: line %d is '%s', expected '%s'\n", arena_size,
               out_cap, i, got.line[i],
               i < reference.n ? reference.line[i] : "");
        ok = 0;
        break;
      }
      events += got.is_event[i];
    }
    if (events != accepted) {
      printf("# size %zu/%zu: %d events in the dump, %d accepted\n", arena_size,
             out_cap, events, accepted);
      ok = 0;
    }
    if (got.marker >= 0) {
      char name[96], want[128];
      int at = snprintf(name, sizeof name, "etkit:dropped_events=%d", refused);
      if (blocks_refused)
        at += snprintf(name + at, sizeof name - (size_t)at, ",blocks=%d",
                       blocks_refused);
      if (st.dropped_allocators)
        snprintf(name + at, sizeof name - (size_t)at, ",allocators=%u",
                 st.dropped_allocators);
      snprintf(want, sizeof want, "B %s bundled=-1", name);
      if (strcmp(got.line[got.marker], want) != 0) {
        printf("# marker '%s', expected '%s'\n", got.line[got.marker], want);
        ok = 0;
      }
    }
  }
  if (use_flatc && rt_have_flatc()) {
    json_t *j = rt_flatc_decode(buf, len);
    CHECK(j != NULL);
    if (j != NULL && got.marker >= 0) {
      /* the marker block has no events: upstream's Inspector skips it */
      json_t *runs = json_object_get(j, "run_data");
      json_t *last = json_array_get(runs, json_array_size(runs) - 1);
      CHECK(json_object_get(last, "events") == NULL);
    }
    json_decref(j);
  }
  CHECK(ok);
  return accepted;
}

/* Records the model with each arena size (no output buffer), or with each
 * output capacity (vary_output, full arena), from 64 bytes up to `limit` in
 * steps of 8, until all `total` events fit; more memory never records fewer
 * events.  Returns how many sizes worked; *first is the smallest of them,
 * *all the first where every event fits (0 if none). */
static int sweep_sizes(int vary_output, size_t limit, int total, size_t *first,
                       size_t *all) {
  int last = -1, sizes = 0;
  *first = 0;
  *all = 0;
  for (size_t size = 64; size <= limit; size += 8) {
    int accepted = vary_output ? check_size(MAX_ARENA, size, size % 1024 == 0)
                               : check_size(size, 0, size % 1024 == 0);
    if (accepted < 0) continue;
    if (*first == 0) *first = size;
    sizes++;
    CHECK(accepted >= last);
    last = accepted;
    if (accepted == total) {
      *all = size;
      break;
    }
  }
  return sizes;
}

ETK_TEST(every_arena_size) {
  rt_clock_t c;
  etk_recorder_t *rec = make(MAX_ARENA, 0, &c);
  const uint8_t *buf;
  size_t len, smallest, full_size;
  uint32_t root;
  int sizes, total;
  REQUIRE(rec != NULL);
  run_model(rec, &ref_outcome);
  REQUIRE(etk_recorder_dropped(rec) == 0);
  REQUIRE(etk_recorder_finish(rec, &buf, &len) == ETK_OK);
  REQUIRE(rt_verify(buf, len, &root) == ETK_OK);
  extract(buf, root, &reference);
  REQUIRE(reference.marker == -1);
  total = 0;
  for (int i = 0; i < reference.n; i++) total += reference.is_event[i];
  sizes = sweep_sizes(0, MAX_ARENA, total, &smallest, &full_size);
  printf("# %d arena sizes from %zu to %zu bytes; %d events\n", sizes, smallest,
         full_size, total);
  CHECK(full_size != 0);
  CHECK(sizes > 100);
}

ETK_TEST(every_output_size) {
  int sizes, total = 0;
  size_t smallest, full_size;
  for (int i = 0; i < reference.n; i++) total += reference.is_event[i];
  REQUIRE(total > 0); /* filled by every_arena_size */
  sizes = sweep_sizes(1, sizeof output, total, &smallest, &full_size);
  printf("# %d output sizes, all events fit from %zu bytes\n", sizes,
         full_size);
  CHECK(full_size != 0);
}

ETK_TEST(estimate_size_is_enough) {
  etk_recorder_config_t cfg;
  etk_recorder_workload_t w;
  size_t need, actual_free;
  rt_clock_t c;
  etk_recorder_t *rec;
  etk_recorder_stats_t st;
  const uint8_t *buf;
  size_t len;
  memset(&w, 0, sizeof w);
  /* the model run, counted by hand */
  w.blocks = 4;
  w.max_block_events = 40;
  w.profile_events = 2 + 3 * (1 + 16);
  w.delegate_events = 3 * 2;
  w.delegate_metadata_bytes = 3 * (9 + 3);
  w.allocators = 2;
  w.allocation_events = 1;
  w.debug_scalars = 3 * 3;
  w.debug_tensors = 3 * (3 + 1);
  w.debug_tensor_lists = 3;
  w.list_tensors = 3 * 2;
  w.tensor_dims = 3 * (4 * 2) + 3 * (2 + 1);
  w.strings = 12;
  w.string_bytes = 200;
  etk_recorder_config_init(&cfg);
  cfg.max_strings = 16;
  need = etk_recorder_estimate_size(&cfg, &w);
  REQUIRE(need > 0 && need <= MAX_ARENA);
  rec = make(need, 0, &c);
  REQUIRE(rec != NULL);
  run_model(rec, &outcome);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 0);
  etk_recorder_stats(rec, &st);
  CHECK_EQ_INT(st.dropped_blocks, 0);
  actual_free = st.arena_free;
  REQUIRE(etk_recorder_finish(rec, &buf, &len) == ETK_OK);
  CHECK_EQ_INT(rt_verify(buf, len, NULL), ETK_OK);
  printf("# estimate %zu bytes, %zu left unused, dump %zu bytes\n", need,
         actual_free, len);
  /* an estimate, not a gross over-allocation */
  CHECK(actual_free < need / 2);
  /* and the output estimate is enough for a separate buffer */
  CHECK(etk_recorder_estimate_output_size(&w) >= len);
}

ETK_TEST(sink_full_drops_only_that_event) {
  static const float data[64] = {0};
  static const int64_t s64[1] = {64};
  static uint8_t small_debug[300];
  rt_clock_t c;
  etk_recorder_t *rec = make(MAX_ARENA, 0, &c);
  etk_recorder_tensor_t t;
  etk_recorder_value_t v;
  etk_recorder_scope_t s;
  json_t *j;
  REQUIRE(rec != NULL);
  /* 256 bytes: one fits in 300, two do not */
  t = rt_tensor(ETK_SCALAR_TYPE_FLOAT, 1, s64, data, sizeof data);
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  CHECK_EQ_INT(
      etk_recorder_set_debug_buffer(rec, small_debug, sizeof small_debug),
      ETK_OK);
  v = etk_value_tensor(&t);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_OK);
  CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_FULL);
  CHECK_EQ_INT(etk_recorder_dropped(rec), 1);
  /* a list whose second tensor does not fit leaves the buffer as it was */
  {
    etk_recorder_tensor_t two[2];
    size_t used = etk_recorder_debug_buffer_used(rec);
    static const int64_t s2[1] = {2};
    two[0] = t;
    two[0].sizes = s2;
    two[0].nbytes = 8;
    two[1] = t;
    v = etk_value_tensor_list(two, 2);
    CHECK_EQ_INT(etk_recorder_log_value(rec, &v, 0), ETK_E_FULL);
    CHECK_EQ_U64(etk_recorder_debug_buffer_used(rec), used);
    CHECK_EQ_INT(etk_recorder_dropped(rec), 2);
  }
  /* not latched: profiling goes on */
  s = etk_recorder_begin_named(rec, "OPERATOR_CALL", 0, 1);
  CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  REQUIRE(rt_finish_check(rec, &j));
  if (j != NULL) {
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 2);
    CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"), "etkit:dropped_events=2");
    json_decref(j);
  }
}

ETK_TEST(tiny_arena_still_gives_a_valid_dump) {
  /* so small that even the first block does not fit: the dump is just the
   * marker, and it is valid */
  rt_clock_t c;
  etk_recorder_t *rec = NULL;
  size_t size;
  json_t *j;
  for (size = 64; size < MAX_ARENA; size += 8) {
    rec = make(size, 0, &c);
    if (rec != NULL) break;
  }
  REQUIRE(rec != NULL);
  CHECK_EQ_INT(etk_recorder_begin_block(rec, "a_block_name_that_is_long"),
               ETK_E_FULL);
  CHECK_EQ_INT(etk_recorder_track_allocation(rec, 1, 2), ETK_E_FULL);
  REQUIRE(rt_finish_check(rec, &j));
  if (j != NULL) {
    CHECK_EQ_U64(rt_json_len(j, "run_data"), 1);
    CHECK_EQ_STR(rt_json_str(j, "run_data/0/name"),
                 "etkit:dropped_events=1,blocks=1");
    json_decref(j);
  }
  printf("# smallest arena: %zu bytes\n", size);
}

/* A ring over the recorder: every call that reports ETK_E_FULL is
 * repeated after discarding the oldest eighth of the events (the C++
 * adapter's WhenFull::kRing).  Event i is a profile event with instruction
 * id i, or, every 7th, a tensor debug event, every 5th a delegate event
 * with metadata, every 11th an allocation: whatever the arena size, the
 * dump is valid, its events are exactly the newest ones in order, and the
 * marker counts the others. */
static int ring_call(etk_recorder_t *rec, int status, int *discards) {
  etk_recorder_stats_t st;
  if (status != ETK_E_FULL) return 0;
  etk_recorder_stats(rec, &st);
  if (etk_recorder_discard_oldest(rec, st.events / 8u, 1) != ETK_OK) return 0;
  (*discards)++;
  return 1;
}

static int ring_event(etk_recorder_t *rec, uint32_t i) {
  static const float data[4] = {1, 2, 3, 4};
  static const int64_t s4[1] = {4};
  static const uint8_t meta[5] = {1, 2, 3, 4, 5};
  etk_recorder_set_chain_debug_handle(rec, 0, i);
  if (i % 7 == 3) {
    etk_recorder_tensor_t t =
        rt_tensor(ETK_SCALAR_TYPE_FLOAT, 1, s4, data, sizeof data);
    etk_recorder_value_t v = etk_value_tensor(&t);
    return etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  }
  if (i % 5 == 1)
    return etk_recorder_log_delegate(rec, "dsp", -1, i, i + 1, meta,
                                     sizeof meta);
  if (i % 11 == 2) return etk_recorder_track_allocation(rec, 1, i);
  {
    etk_recorder_scope_t s = etk_recorder_begin_named(
        rec, i % 2 ? "OPERATOR_CALL" : "native_call_add.out", -1, 0);
    if (s.kind == ETK_E_FULL) return ETK_E_FULL;
    return etk_recorder_end(rec, &s);
  }
}

ETK_TEST(ring_keeps_exactly_the_newest_events) {
  const uint32_t n = 600;
  size_t size;
  int sizes = 0, wrapped = 0;
  for (size = 6144; size <= MAX_ARENA; size += 1032) {
    rt_clock_t c;
    etk_recorder_t *rec = make(size, 0, &c);
    uint32_t alloc = 0, taken = 0;
    int discards = 0, status;
    json_t *j = NULL;
    REQUIRE(rec != NULL);
    etk_recorder_set_debug_buffer(rec, debug, sizeof debug);
    REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
    REQUIRE(etk_recorder_track_allocator(rec, "planned", &alloc) == ETK_OK);
    for (uint32_t i = 0; i < n; i++) {
      int tries = 0;
      status = ring_event(rec, i);
      while (tries++ < 4 && ring_call(rec, status, &discards))
        status = ring_event(rec, i);
      taken += status == ETK_OK;
      if (status != ETK_OK) break;
    }
    CHECK_EQ_INT(taken, n); /* nothing refused for good */
    /* not full: nothing to discard */
    CHECK_EQ_INT(etk_recorder_discard_oldest(rec, 1, 0), ETK_E_INVALID_STATE);
    REQUIRE(rt_finish_check(rec, &j));
    sizes++;
    if (discards > 0) wrapped++;
    if (j != NULL) {
      size_t kept = rt_json_len(j, "run_data/0/events");
      char path[96], marker[64];
      int in_order = 1;
      for (size_t e = 0; e < kept; e++) {
        json_t *ev;
        long long id;
        snprintf(path, sizeof path, "run_data/0/events/%zu", e);
        ev = rt_json(j, path);
        id = rt_json_int(ev, "profile_event/instruction_id", -1);
        if (id < 0) id = rt_json_int(ev, "debug_event/instruction_id", -1);
        if (id < 0)
          id = rt_json_int(ev, "allocation_event/allocation_size", -1);
        if (id != (long long)(n - kept + e)) in_order = 0;
      }
      CHECK(in_order);
      CHECK_EQ_STR(rt_json_str(j, "run_data/0/name"), "Execute");
      CHECK_EQ_U64(rt_json_len(j, "run_data/0/allocators"), 1);
      if (kept < n) {
        snprintf(marker, sizeof marker, "etkit:dropped_events=%u",
                 (unsigned)(n - kept));
        CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"), marker);
      } else {
        CHECK_EQ_U64(rt_json_len(j, "run_data"), 1);
      }
      json_decref(j);
    }
  }
  CHECK(sizes > 10 && wrapped > 10);
  /* misuse */
  CHECK_EQ_INT(etk_recorder_discard_oldest(NULL, 1, 0), ETK_E_INVALID_ARGUMENT);
}

/* A ring whose own debug buffer fills before its records do: the discard
 * frees the oldest tensors' bytes too (the buffer is compacted with the
 * records and the kept offsets rewritten), so the newest events keep
 * their tensors.  Before, the discard was refused (the records were not
 * full) and every tensor after the buffer filled was dropped. */
static int log_run_value(etk_recorder_t *rec, uint32_t i) {
  float data[16];
  static const int64_t s16[1] = {16};
  for (int k = 0; k < 16; k++) data[k] = (float)i + (float)k / 16.0f;
  etk_recorder_tensor_t t =
      rt_tensor(ETK_SCALAR_TYPE_FLOAT, 1, s16, data, sizeof data);
  etk_recorder_value_t v = etk_value_tensor(&t);
  etk_recorder_set_chain_debug_handle(rec, 0, i);
  return etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
}

ETK_TEST(ring_reclaims_the_debug_buffer) {
  static uint8_t small[1024];
  const uint32_t n = 200;
  rt_clock_t c;
  etk_recorder_t *rec = make(MAX_ARENA, 0, &c);
  int discards = 0;
  json_t *j = NULL;
  REQUIRE(rec != NULL);
  REQUIRE(etk_recorder_set_debug_buffer(rec, small, sizeof small) == ETK_OK);
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  for (uint32_t i = 0; i < n; i++) {
    int tries = 0, status = log_run_value(rec, i);
    while (tries++ < 4 && ring_call(rec, status, &discards))
      status = log_run_value(rec, i);
    CHECK_EQ_INT(status, ETK_OK);
  }
  CHECK(discards > 10);
  REQUIRE(rt_finish_check(rec, &j));
  if (j) {
    size_t events = rt_json_len(j, "run_data/0/events");
    CHECK(events >= 8 && events < n);
    for (size_t e = 0; e < events; e++) {
      char q[160];
      snprintf(q, sizeof q,
               "run_data/0/events/%zu/debug_event/debug_entry/tensor/offset",
               e);
      long long off = rt_json_int(j, q, -1);
      snprintf(q, sizeof q, "run_data/0/events/%zu/debug_event/instruction_id",
               e);
      long long id = rt_json_int(j, q, -1);
      /* the newest events, in order, each with its own bytes */
      CHECK_EQ_INT(id, (long long)(n - events + e));
      REQUIRE(off >= 0 && (size_t)off + 64u <= sizeof small);
      float first, last;
      memcpy(&first, small + off, sizeof first);
      memcpy(&last, small + off + 60, sizeof last);
      CHECK(first == (float)id && last == (float)id + 15.0f / 16.0f);
    }
    json_decref(j);
  }
}

/* The block being begun is what did not fit: after the discard the last
 * kept block is current again (allocators refused, nothing written out of
 * place), and repeating the block works; the marker counts events only. */
ETK_TEST(ring_when_the_block_itself_did_not_fit) {
  rt_clock_t c;
  etk_recorder_t *rec = make(8192, 0, &c);
  etk_recorder_name_t op;
  uint32_t events = 0, alloc = 0;
  int status = ETK_OK;
  json_t *j = NULL;
  char marker[64];
  REQUIRE(rec != NULL);
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  /* fill the arena to the last event that fits */
  while (status == ETK_OK) {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    status = etk_recorder_end(rec, &s);
    events += status == ETK_OK;
  }
  REQUIRE(events > 8);
  REQUIRE(etk_recorder_discard_oldest(rec, 1, 1) == ETK_OK);
  {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    REQUIRE(etk_recorder_end(rec, &s) == ETK_OK);
  }
  /* a block with a long new name does not fit now */
  status = etk_recorder_begin_block(
      rec,
      "a_block_name_long_enough_not_to_fit_in_the_room_left_by_one_event_"
      "and_then_some_more_characters");
  REQUIRE(status == ETK_E_FULL);
  REQUIRE(etk_recorder_discard_oldest(rec, events / 2u, 1) == ETK_OK);
  /* not repeated yet: the last block is current, allocators are refused */
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "late", &alloc),
               ETK_E_INVALID_STATE);
  CHECK_EQ_INT(etk_recorder_begin_block(rec, "Second"), ETK_OK);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "planned", &alloc), ETK_OK);
  {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  }
  REQUIRE(rt_finish_check(rec, &j));
  if (j != NULL) {
    /* Execute keeps the newest events, Second holds its one event */
    CHECK_EQ_STR(rt_json_str(j, "run_data/0/name"), "Execute");
    CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"), "Second");
    CHECK_EQ_U64(rt_json_len(j, "run_data/1/events"), 1);
    CHECK_EQ_U64(rt_json_len(j, "run_data/1/allocators"), 1);
    snprintf(marker, sizeof marker, "etkit:dropped_events=%u",
             (unsigned)(events + 1u - rt_json_len(j, "run_data/0/events")));
    CHECK_EQ_STR(rt_json_str(j, "run_data/2/name"), marker);
    json_decref(j);
  }
}

/* Issue 28: a full name table is not helped by discarding events (names
 * are never freed).  A ring used to discard an eighth of its events for
 * every later call and ended with an empty dump; now the discard answers
 * ETK_E_LIMIT, discards nothing and clears the latch, so a ring keeps what
 * a stopped recorder keeps plus the later events whose names it knows. */
static size_t names_run_out(int ring, int *limit_seen) {
  rt_clock_t c;
  etk_recorder_t *rec = make(MAX_ARENA, 0, &c); /* 16 names */
  etk_recorder_name_t op;
  json_t *j = NULL;
  size_t kept = 0;
  if (rec == NULL) return 0;
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  if (etk_recorder_begin_block(rec, "Execute") != ETK_OK) return 0;
  for (uint32_t i = 0; i < 100; i++) {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    etk_recorder_end(rec, &s);
  }
  for (uint32_t i = 0; i < 200; i++) {
    char name[32];
    int status, tries = 0;
    snprintf(name, sizeof name, "delegate_%u", (unsigned)i);
    status = etk_recorder_log_delegate(rec, name, -1, i, i + 1, NULL, 0);
    while (ring && status == ETK_E_FULL && tries++ < 4) {
      etk_recorder_stats_t st;
      etk_recorder_stats(rec, &st);
      status = etk_recorder_discard_oldest(rec, st.events / 8u, 1);
      if (status == ETK_E_LIMIT) (*limit_seen)++;
      if (status != ETK_OK) break;
      status = etk_recorder_log_delegate(rec, name, -1, i, i + 1, NULL, 0);
    }
  }
  for (uint32_t i = 0; i < 5; i++) { /* a known name */
    etk_recorder_scope_t s;
    etk_recorder_set_chain_debug_handle(rec, 0, 7000 + i);
    s = etk_recorder_begin(rec, op);
    etk_recorder_end(rec, &s);
  }
  if (!rt_finish_check(rec, &j) || j == NULL) return 0;
  kept = rt_json_len(j, "run_data/0/events");
  if (ring && kept > 0) {
    char path[64];
    snprintf(path, sizeof path, "run_data/0/events/%zu", kept - 1);
    if (rt_json_int(rt_json(j, path), "profile_event/instruction_id", -1) !=
        7004)
      kept = 0;
  }
  json_decref(j);
  return kept;
}

ETK_TEST(ring_keeps_what_stop_keeps_when_names_run_out) {
  int limits = 0, unused = 0;
  size_t stop = names_run_out(0, &unused);
  size_t ring = names_run_out(1, &limits);
  CHECK_EQ_U64(stop, 100 + 14); /* 16 names: OPERATOR_CALL, Execute, 14 */
  CHECK(ring >= stop);
  CHECK_EQ_U64(ring, stop + 5);
  CHECK_EQ_INT(limits, 200 - 14); /* each new name: nothing to discard */
}

/* The same when the name that does not fit is a new block's: nothing is
 * discarded, the last kept block is current again (events go into it,
 * allocators are refused until a block begins) and the dump stays valid. */
ETK_TEST(ring_when_a_block_name_does_not_fit) {
  rt_clock_t c;
  etk_recorder_t *rec = make(MAX_ARENA, 0, &c); /* 16 names */
  etk_recorder_name_t op;
  uint32_t alloc = 0;
  json_t *j = NULL;
  REQUIRE(rec != NULL);
  op = etk_recorder_intern(rec, "OPERATOR_CALL");
  REQUIRE(etk_recorder_begin_block(rec, "Execute") == ETK_OK);
  for (uint32_t i = 0; i < 14; i++) {
    char name[32];
    snprintf(name, sizeof name, "delegate_%u", (unsigned)i);
    REQUIRE(etk_recorder_log_delegate(rec, name, -1, i, i + 1, NULL, 0) ==
            ETK_OK);
  }
  CHECK_EQ_INT(etk_recorder_begin_block(rec, "Second"), ETK_E_FULL);
  CHECK_EQ_INT(etk_recorder_discard_oldest(rec, 1, 1), ETK_E_LIMIT);
  CHECK_EQ_INT(etk_recorder_track_allocator(rec, "late", &alloc),
               ETK_E_INVALID_STATE);
  {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    CHECK_EQ_INT(etk_recorder_end(rec, &s), ETK_OK);
  }
  REQUIRE(rt_finish_check(rec, &j));
  if (j != NULL) {
    CHECK_EQ_STR(rt_json_str(j, "run_data/0/name"), "Execute");
    CHECK_EQ_U64(rt_json_len(j, "run_data/0/events"), 15);
    CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"),
                 "etkit:dropped_events=0,blocks=1");
    json_decref(j);
  }
}

ETK_TEST_MAIN()
