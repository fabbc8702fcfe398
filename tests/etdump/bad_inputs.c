/*
 * bad_inputs.c - crafted invalid ETDumps (see bad_inputs.h).
 *
 * Each damage is applied at a byte located by walking the valid dump with
 * the FlatBuffers accessors (after verifying it), so the files stay
 * meaningful if the writer's layout changes.
 */
#include "bad_inputs.h"

#include <stdlib.h>
#include <string.h>

#include "etdump_writer.h"
#include "etkit/flatbuf.h"
#include "etkit/schema.h"

static uint8_t *copy_out(etw_t *w, size_t *len, int prefixed) {
  size_t n = 0;
  *len = 0;
  if (w == NULL) return NULL;
  const uint8_t *b =
      prefixed ? etw_finish(w, &n) : etw_finish_unprefixed(w, &n);
  uint8_t *c = b ? malloc(n) : NULL;
  if (c) memcpy(c, b, n);
  *len = c ? n : 0;
  etw_free(w);
  return c;
}

static etw_t *two_ops(void) {
  etw_t *w = etw_new(1 << 14);
  etw_run_begin(w, "Execute", -1);
  etw_profile(
      w, &(etw_profile_t){
             .name = "op_a", .iid = 0, .dint = -1, .start = 10, .end = 20});
  etw_profile(
      w, &(etw_profile_t){
             .name = "op_b", .iid = 1, .dint = -1, .start = 20, .end = 45});
  etw_run_end(w);
  return w;
}

static uint8_t *valid(size_t *len) {
  return copy_out(two_ops(), len, 1);
}

/* Positions inside a valid dump. */
typedef struct where {
  uint32_t root, runs_vec, run0, events_vec, event0, profile0, name0;
} where_t;

static void locate(const uint8_t *b, size_t len, where_t *w) {
  memset(w, 0, sizeof *w);
  etk_fb_verify_options_t o = {0};
  o.ident = ETK_ETDUMP_FILE_IDENTIFIER;
  o.size_prefixed = 1;
  if (etk_fb_verify(b, len, &etk_etdump_schema, &o, &w->root, NULL) != ETK_OK)
    return;
  etk_fb_table_t root = etk_fb_root(b, w->root);
  etk_fb_vector_t runs = etk_fb_get_vector(root, ETK_ETDUMP_RUN_DATA);
  w->runs_vec = runs.pos - 4;
  etk_fb_table_t run = etk_fb_vector_table(b, runs, 0);
  w->run0 = run.pos;
  etk_fb_vector_t evs = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
  w->events_vec = evs.pos - 4;
  etk_fb_table_t ev = etk_fb_vector_table(b, evs, 0);
  w->event0 = ev.pos;
  etk_fb_table_t pe = etk_fb_get_table(ev, ETK_ETDUMP_EVENT_PROFILE_EVENT);
  w->profile0 = pe.pos;
  etk_fb_string_t name = etk_fb_get_string(pe, ETK_ETDUMP_PROFILE_EVENT_NAME);
  w->name0 = (uint32_t)((const uint8_t *)name.data - b);
}

static void put32(uint8_t *p, uint32_t v) {
  memcpy(p, &v, 4);
}
static uint32_t get32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static uint8_t *empty_file(size_t *len) {
  *len = 0;
  return calloc(1, 1);
}

static uint8_t *truncated(size_t *len) {
  uint8_t *b = valid(len);
  if (b) *len /= 2;
  return b;
}

static uint8_t *too_short(size_t *len) {
  uint8_t *b = valid(len);
  if (b) *len = 7;
  return b;
}

static uint8_t *wrong_identifier(size_t *len) {
  uint8_t *b = valid(len);
  if (b) memcpy(b + 8, "ETRC", 4);
  return b;
}

static uint8_t *no_size_prefix(size_t *len) {
  return copy_out(two_ops(), len, 0);
}

static uint8_t *root_offset_outside(size_t *len) {
  uint8_t *b = valid(len);
  if (b) put32(b + 4, 0x7FFFFFF0u);
  return b;
}

/* A valid dump with *w located in it; NULL if it cannot be built. */
static uint8_t *valid_located(size_t *len, where_t *w) {
  uint8_t *b = valid(len);
  if (b) locate(b, *len, w);
  return b;
}

static uint8_t *absurd_vector_length(size_t *len) {
  where_t w;
  uint8_t *b = valid_located(len, &w);
  if (b) put32(b + w.events_vec, 0x3FFFFFFFu);
  return b;
}

static uint8_t *element_offset_outside(size_t *len) {
  where_t w;
  uint8_t *b = valid_located(len, &w);
  if (b) put32(b + w.runs_vec + 4, 0x40000000u);
  return b;
}

/* a vtable whose size is odd (the official verifier's alignment rule); a
 * zero-length vtable, by contrast, is valid: every field is absent */
static uint8_t *vtable_odd_size(size_t *len) {
  where_t w;
  uint8_t *b = valid_located(len, &w);
  if (b) b[(int64_t)w.profile0 - (int32_t)get32(b + w.profile0)] |= 1u;
  return b;
}

static uint8_t *invalid_utf8_name(size_t *len) {
  where_t w;
  uint8_t *b = valid_located(len, &w);
  if (b) memcpy(b + w.name0, "\xFF\xFE", 2);
  return b;
}

static uint8_t *string_not_terminated(size_t *len) {
  where_t w;
  uint8_t *b = valid_located(len, &w);
  if (b) b[w.name0 + 4] = 'X'; /* the NUL after "op_a" */
  return b;
}

static uint8_t *bad_enum(size_t *len) {
  static const int64_t sizes[] = {2};
  etw_t *w = etw_new(1 << 14);
  etw_run_begin(w, "Execute", -1);
  etw_debug_t d = etw_tensor_debug(0, ETK_SCALAR_TYPE_FLOAT, sizes, 1, 0);
  etw_debug(w, &d);
  etw_run_end(w);
  uint8_t *b = copy_out(w, len, 1);
  if (!b) return NULL;
  etk_fb_verify_options_t o = {0};
  o.ident = ETK_ETDUMP_FILE_IDENTIFIER;
  o.size_prefixed = 1;
  uint32_t root;
  if (etk_fb_verify(b, *len, &etk_etdump_schema, &o, &root, NULL) != ETK_OK)
    return b;
  etk_fb_table_t t = etk_fb_root(b, root);
  etk_fb_vector_t runs = etk_fb_get_vector(t, ETK_ETDUMP_RUN_DATA);
  t = etk_fb_vector_table(b, runs, 0);
  etk_fb_vector_t evs = etk_fb_get_vector(t, ETK_ETDUMP_RUN_DATA_EVENTS);
  t = etk_fb_vector_table(b, evs, 0);
  t = etk_fb_get_table(t, ETK_ETDUMP_EVENT_DEBUG_EVENT);
  t = etk_fb_get_table(t, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY);
  t = etk_fb_get_table(t, ETK_ETDUMP_VALUE_TENSOR);
  const uint8_t *st = etk_fb_get_struct(t, ETK_ETDUMP_TENSOR_SCALAR_TYPE);
  if (st) b[st - b] = 99;
  return b;
}

static uint8_t *event_without_member(size_t *len) {
  etw_t *w = etw_new(1 << 14);
  etw_run_begin(w, "Execute", -1);
  etw_profile(w,
              &(etw_profile_t){.name = "op_a", .iid = 0, .dint = -1, .end = 5});
  etw_empty_event(w);
  etw_run_end(w);
  return copy_out(w, len, 1);
}

static uint8_t *no_run_data(size_t *len) {
  static uint8_t mem[256] __attribute__((aligned(8)));
  etk_fb_builder_t b;
  etk_fb_builder_init(&b, mem, sizeof mem);
  etk_fb_table_start(&b);
  etk_fb_ref_t root = etk_fb_table_end(&b);
  const uint8_t *out;
  size_t n;
  if (etk_fb_finish(&b, root, ETK_ETDUMP_FILE_IDENTIFIER, ETK_FB_SIZE_PREFIXED,
                    &out, &n) != ETK_OK)
    return NULL;
  uint8_t *c = malloc(n);
  if (c) memcpy(c, out, n);
  *len = n;
  return c;
}

static uint8_t *empty_run(size_t *len) {
  etw_t *w = etw_new(1 << 14);
  etw_run_begin(w, "Execute", -1);
  etw_run_end(w);
  return copy_out(w, len, 1);
}

static uint8_t *wrap_beyond_32_bits(size_t *len) {
  etw_profile_t p = {
      .name = "op_a", .iid = 0, .dint = -1, .start = 5000000000ull, .end = 10};
  return copy_out(etw_one_profile_run(&p), len, 1);
}

const bad_input_t bad_inputs[] = {
    {"empty_file", ETK_E_TRUNCATED, empty_file},
    {"too_short", ETK_E_TRUNCATED, too_short},
    {"truncated", ETK_E_TRUNCATED, truncated},
    {"wrong_identifier", ETK_E_BAD_IDENTIFIER, wrong_identifier},
    {"no_size_prefix", ETK_E_BAD_IDENTIFIER, no_size_prefix},
    {"root_offset_outside", ETK_E_BAD_OFFSET, root_offset_outside},
    {"absurd_vector_length", ETK_E_BAD_VECTOR, absurd_vector_length},
    {"element_offset_outside", ETK_E_BAD_OFFSET, element_offset_outside},
    {"vtable_odd_size", ETK_E_BAD_VTABLE, vtable_odd_size},
    {"invalid_utf8_name", ETK_E_BAD_UTF8, invalid_utf8_name},
    {"string_not_terminated", ETK_E_BAD_STRING, string_not_terminated},
    {"bad_enum", ETK_E_BAD_ENUM, bad_enum},
    {"event_without_member", ETK_E_FORMAT, event_without_member},
    {"no_run_data", ETK_E_FORMAT, no_run_data},
    {"empty_run", ETK_OK, empty_run},
    {"wrap_beyond_32_bits", ETK_OK, wrap_beyond_32_bits},
};
const size_t bad_input_count = sizeof bad_inputs / sizeof bad_inputs[0];
