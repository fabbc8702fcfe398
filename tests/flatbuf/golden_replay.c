/*
 * golden_replay.c - see golden_replay.h.  The order of calls below is the
 * point: strings when an event starts, children before parents, vectors
 * when their block closes, fields added in upstream's write order.  Any
 * change of order changes bytes (not meaning), and the byte-exact tests
 * would tell.
 */
#include "golden_replay.h"

#include <string.h>

#include "etkit/schema.h"

static etk_fb_ref_t make_string(etk_fb_builder_t *b, const char *s) {
  return etk_fb_create_string(b, s, strlen(s));
}

/* Event{member} wrapper table. */
static etk_fb_ref_t make_event(etk_fb_builder_t *b, unsigned member,
                               etk_fb_ref_t payload) {
  etk_fb_table_start(b);
  etk_fb_add_ref(b, member, payload);
  return etk_fb_table_end(b);
}

/* RunData vector + ETDump root + size-prefixed header. */
static int finish_dump(etk_fb_builder_t *b, const etk_fb_ref_t *runs,
                       size_t run_count, const uint8_t **out, size_t *len) {
  etk_fb_ref_t run_vector = etk_fb_create_offset_vector(b, runs, run_count);
  etk_fb_table_start(b);
  etk_fb_add_u32(b, ETK_ETDUMP_VERSION, 0, ETK_ETDUMP_VERSION_DEFAULT, 0);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA, run_vector);
  etk_fb_ref_t root = etk_fb_table_end(b);
  return etk_fb_finish(b, root, ETK_ETDUMP_FILE_IDENTIFIER,
                       ETK_FB_SIZE_PREFIXED, out, len);
}

static etk_fb_ref_t make_run(etk_fb_builder_t *b, etk_fb_ref_t name,
                             etk_fb_ref_t allocators, etk_fb_ref_t events) {
  etk_fb_table_start(b);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_NAME, name);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_ALLOCATORS, allocators);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_EVENTS, events);
  return etk_fb_table_end(b);
}

int golden_replay_empty_block(etk_fb_builder_t *b, const uint8_t **out,
                              size_t *len) {
  etk_fb_ref_t name = make_string(b, "test_block");
  etk_fb_ref_t run = make_run(b, name, 0, 0);
  return finish_dump(b, &run, 1, out, len);
}

int golden_replay_allocators(etk_fb_builder_t *b, const uint8_t **out,
                             size_t *len) {
  etk_fb_ref_t name = make_string(b, "test_block");
  etk_fb_ref_t allocator[2], events[3];
  for (int i = 0; i < 2; i++) {
    etk_fb_ref_t s =
        make_string(b, i == 0 ? "test_allocator_0" : "test_allocator_1");
    etk_fb_table_start(b);
    etk_fb_add_ref(b, ETK_ETDUMP_ALLOCATOR_NAME, s);
    allocator[i] = etk_fb_table_end(b);
  }
  /* the first event closes the allocators vector */
  etk_fb_ref_t allocators = etk_fb_create_offset_vector(b, allocator, 2);
  for (int i = 0; i < 2; i++) {
    etk_fb_table_start(b); /* write order: size, then id */
    etk_fb_add_u64(b, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE,
                   i == 0 ? 64u : 128u, 0, 0);
    etk_fb_add_i32(b, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID, i + 1, 0, 0);
    events[i] =
        make_event(b, ETK_ETDUMP_EVENT_ALLOCATION_EVENT, etk_fb_table_end(b));
  }
  etk_fb_ref_t event_name = make_string(b, "test_event");
  etk_fb_table_start(
      b); /* end_profiling: start, end, chain, instruction, name */
  etk_fb_add_u64(b, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 1000, 0, 0);
  etk_fb_add_u64(b, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 1010, 0, 0);
  etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0, 0, 0);
  etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, 1, -1, 0);
  etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_NAME, event_name);
  events[2] =
      make_event(b, ETK_ETDUMP_EVENT_PROFILE_EVENT, etk_fb_table_end(b));
  etk_fb_ref_t event_vector = etk_fb_create_offset_vector(b, events, 3);
  etk_fb_ref_t run = make_run(b, name, allocators, event_vector);
  return finish_dump(b, &run, 1, out, len);
}

/* A delegate ProfileEvent: start, end, chain, instruction, id, metadata. */
static etk_fb_ref_t delegate_event(etk_fb_builder_t *b, int32_t id_int,
                                   etk_fb_ref_t id_str, const char *metadata,
                                   size_t metadata_len) {
  etk_fb_ref_t meta = etk_fb_create_vector(b, metadata, metadata_len, 1, 1);
  etk_fb_table_start(b);
  etk_fb_add_u64(b, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 1, 0, 0);
  etk_fb_add_u64(b, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 2, 0, 0);
  etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0, 0, 0);
  etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, 7, -1, 0);
  if (id_str)
    etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR, id_str);
  else
    etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, id_int,
                   -1, 0);
  etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA, meta);
  return make_event(b, ETK_ETDUMP_EVENT_PROFILE_EVENT, etk_fb_table_end(b));
}

int golden_replay_delegate_events(etk_fb_builder_t *b, const uint8_t **out,
                                  size_t *len) {
  etk_fb_ref_t name = make_string(b, "test_block");
  etk_fb_ref_t events[3];
  events[0] = delegate_event(b, 276, 0, NULL, 0);
  events[1] = delegate_event(b, 278, 0, "test_metadata", 14);
  events[2] = delegate_event(b, -1, make_string(b, "test_event"), NULL, 0);
  etk_fb_ref_t event_vector = etk_fb_create_offset_vector(b, events, 3);
  etk_fb_ref_t run = make_run(b, name, 0, event_vector);
  return finish_dump(b, &run, 1, out, len);
}

/* Tensor [3, 2] FLOAT at `offset`, optionally a program output. */
static etk_fb_ref_t tensor_event(etk_fb_builder_t *b, uint64_t chain,
                                 int32_t instruction, int64_t offset,
                                 int output) {
  static const int64_t sizes[2] = {3, 2}, strides[2] = {2, 1};
  etk_fb_ref_t size_vector = etk_fb_create_vector(b, sizes, 2, 8, 8);
  etk_fb_ref_t stride_vector = etk_fb_create_vector(b, strides, 2, 8, 8);
  etk_fb_table_start(b);
  etk_fb_add_i8(b, ETK_ETDUMP_TENSOR_SCALAR_TYPE, ETK_SCALAR_TYPE_FLOAT, 0, 0);
  etk_fb_add_ref(b, ETK_ETDUMP_TENSOR_SIZES, size_vector);
  etk_fb_add_ref(b, ETK_ETDUMP_TENSOR_STRIDES, stride_vector);
  etk_fb_add_i64(b, ETK_ETDUMP_TENSOR_OFFSET, offset, 0, 0);
  etk_fb_ref_t tensor = etk_fb_table_end(b);
  etk_fb_ref_t out_flag = 0;
  if (output) {
    etk_fb_table_start(b);
    etk_fb_add_bool(b, ETK_ETDUMP_BOOL_BOOL_VAL, 1, 0, 0);
    out_flag = etk_fb_table_end(b);
  }
  etk_fb_table_start(b);
  etk_fb_add_i8(b, ETK_ETDUMP_VALUE_VAL, ETK_ETDUMP_VALUE_TYPE_TENSOR, 0, 0);
  etk_fb_add_ref(b, ETK_ETDUMP_VALUE_TENSOR, tensor);
  etk_fb_add_ref(b, ETK_ETDUMP_VALUE_OUTPUT, out_flag);
  etk_fb_ref_t value = etk_fb_table_end(b);
  etk_fb_table_start(b);
  etk_fb_add_u64(b, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX, chain, 0, 0);
  etk_fb_add_i32(b, ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID, instruction, -1, 0);
  etk_fb_add_ref(b, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY, value);
  return make_event(b, ETK_ETDUMP_EVENT_DEBUG_EVENT, etk_fb_table_end(b));
}

int golden_replay_debug_events(etk_fb_builder_t *b, const uint8_t **out,
                               size_t *len) {
  etk_fb_ref_t name = make_string(b, "Execute");
  etk_fb_ref_t events[4];
  events[0] = tensor_event(b, 0, 4, 0, 0);
  etk_fb_table_start(b);
  etk_fb_add_i64(b, ETK_ETDUMP_INT_INT_VAL, 5, 0, 0);
  etk_fb_ref_t int_value = etk_fb_table_end(b);
  etk_fb_table_start(b);
  etk_fb_add_i8(b, ETK_ETDUMP_VALUE_VAL, ETK_ETDUMP_VALUE_TYPE_INT, 0, 0);
  etk_fb_add_ref(b, ETK_ETDUMP_VALUE_INT_VALUE, int_value);
  etk_fb_ref_t value = etk_fb_table_end(b);
  etk_fb_table_start(b);
  etk_fb_add_u64(b, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX, 0, 0, 0);
  etk_fb_add_i32(b, ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID, 4, -1, 0);
  etk_fb_add_ref(b, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY, value);
  events[1] = make_event(b, ETK_ETDUMP_EVENT_DEBUG_EVENT, etk_fb_table_end(b));
  events[2] = tensor_event(b, UINT64_MAX, 0, 64, 1);
  events[3] = tensor_event(b, UINT64_MAX, 0, 128, 1);
  etk_fb_ref_t event_vector = etk_fb_create_offset_vector(b, events, 4);
  etk_fb_ref_t run = make_run(b, name, 0, event_vector);
  return finish_dump(b, &run, 1, out, len);
}

int golden_replay_into(golden_replay_fn replay, void *mem, size_t cap,
                       const uint8_t **out, size_t *len) {
  etk_fb_builder_t b;
  int rc = etk_fb_builder_init(&b, mem, cap);
  return rc != ETK_OK ? rc : replay(&b, out, len);
}
