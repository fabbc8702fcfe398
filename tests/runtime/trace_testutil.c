/*
 * trace_testutil.c - see trace_testutil.h.
 */
#include "trace_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/common.h"
#include "etkit/flatbuf.h"
#include "etkit/schema.h"

int ttu_load_forward(const struct etk_program *p, etk_method_t **m,
                     struct etk_error *err) {
  etk_error_clear(err);
  return etk_method_load_alloc(p, "forward", NULL, m, err);
}

int ttu_set_float_input(etk_method_t *m, size_t i, float *data, size_t n,
                        etk_error_t *err) {
  etk_tensor_t t = *etk_method_input(m, i)->u.tensor;
  memset(t.dim_order, 0, sizeof t.dim_order);
  t.data = data;
  t.nbytes = n * sizeof *data;
  etk_value_t v;
  memset(&v, 0, sizeof v);
  v.tag = ETK_VALUE_TENSOR;
  v.u.tensor = &t;
  etk_error_clear(err);
  return etk_method_set_input(m, i, &v, err);
}

typedef struct owned {
  void *arena;
  void *debug;
} owned_t;

/* The arena pointer is the key: recorders live at the start of theirs. */
static owned_t owned_table[16];

etk_recorder_t *ttu_recorder_new(int debug_level, int profile_all,
                                 size_t debug_capacity) {
  size_t size = (size_t)8 << 20;
  void *arena = aligned_alloc(64, size);
  etk_recorder_config_t cfg;
  etk_recorder_config_init(&cfg);
  cfg.max_strings = 512;
  etk_recorder_t *r = NULL;
  if (!arena || etk_recorder_init(&r, arena, size, &cfg) != ETK_OK) {
    free(arena);
    return NULL;
  }
  etk_recorder_set_debug_level(r, (etk_debug_level_t)debug_level);
  etk_recorder_set_profiling_level(
      r, profile_all ? ETK_PROFILING_ALL_EVENTS : ETK_PROFILING_METHOD_ONLY);
  void *debug = NULL;
  if (debug_capacity) {
    debug = aligned_alloc(64, (debug_capacity + 63) & ~(size_t)63);
    etk_recorder_set_debug_buffer(r, debug, debug_capacity);
  }
  for (int k = 0; k < 16; k++)
    if (!owned_table[k].arena) {
      owned_table[k].arena = arena;
      owned_table[k].debug = debug;
      break;
    }
  return r;
}

void ttu_recorder_free(etk_recorder_t *r) {
  if (!r) return;
  for (int k = 0; k < 16; k++)
    if (owned_table[k].arena &&
        (uint8_t *)r >= (uint8_t *)owned_table[k].arena &&
        (uint8_t *)r < (uint8_t *)owned_table[k].arena + 64) {
      free(owned_table[k].arena);
      free(owned_table[k].debug);
      owned_table[k].arena = NULL;
      return;
    }
}

static void copy_str(char *dst, size_t cap, etk_fb_string_t s) {
  if (!s.data) {
    dst[0] = 0;
    return;
  }
  snprintf(dst, cap, "%.*s", (int)s.len, s.data);
}

/* The instruction id and delegate ids that profile and debug events share,
 * read from event table t through its own field numbers. */
static void read_event_ids(ttu_event_t *x, etk_fb_table_t t,
                           unsigned instruction_field, unsigned int_id_field,
                           unsigned str_id_field) {
  x->instruction = etk_fb_get_i32(t, instruction_field, -1);
  x->delegate_int = etk_fb_get_i32(t, int_id_field, -1);
  copy_str(x->delegate_str, sizeof x->delegate_str,
           etk_fb_get_string(t, str_id_field));
}

int ttu_recorder_finish_parse(etk_recorder_t *rec, ttu_dump_t *out) {
  const uint8_t *etdp;
  size_t len;
  int rc = etk_recorder_finish(rec, &etdp, &len);
  return rc == ETK_OK ? ttu_dump_parse(etdp, len, out) : rc;
}

/* Fills x from the Event table et. */
static void parse_event(etk_fb_table_t et, ttu_event_t *x) {
  etk_fb_table_t pe = etk_fb_get_table(et, ETK_ETDUMP_EVENT_PROFILE_EVENT);
  etk_fb_table_t ae = etk_fb_get_table(et, ETK_ETDUMP_EVENT_ALLOCATION_EVENT);
  etk_fb_table_t de = etk_fb_get_table(et, ETK_ETDUMP_EVENT_DEBUG_EVENT);
  if (etk_fb_table_present(pe)) {
    x->kind = 'P';
    copy_str(x->name, sizeof x->name,
             etk_fb_get_string(pe, ETK_ETDUMP_PROFILE_EVENT_NAME));
    x->chain = etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0);
    read_event_ids(x, pe, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID,
                   ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT,
                   ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR);
    etk_fb_vector_t md =
        etk_fb_get_vector(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA);
    x->metadata_len = md.data ? md.count : 0;
    if (md.data)
      snprintf(x->metadata, sizeof x->metadata, "%.*s", (int)md.count,
               (const char *)md.data);
    x->start = etk_fb_get_u64(pe, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 0);
    x->end = etk_fb_get_u64(pe, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 0);
  } else if (etk_fb_table_present(ae)) {
    x->kind = 'A';
    x->allocator = (uint32_t)etk_fb_get_i32(
        ae, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID, 0);
    x->size =
        etk_fb_get_u64(ae, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE, 0);
  } else if (etk_fb_table_present(de)) {
    x->kind = 'D';
    x->debug_chain =
        (int64_t)etk_fb_get_u64(de, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX, 0);
    x->chain = (int32_t)x->debug_chain;
    read_event_ids(x, de, ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID,
                   ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT,
                   ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR);
    etk_fb_table_t v = etk_fb_get_table(de, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY);
    if (etk_fb_table_present(v)) {
      x->value_kind = etk_fb_get_u8(v, ETK_ETDUMP_VALUE_VAL, 0);
      x->output =
          etk_fb_table_present(etk_fb_get_table(v, ETK_ETDUMP_VALUE_OUTPUT));
      etk_fb_table_t t = etk_fb_get_table(v, ETK_ETDUMP_VALUE_TENSOR);
      if (etk_fb_table_present(t)) {
        etk_fb_vector_t s = etk_fb_get_vector(t, ETK_ETDUMP_TENSOR_SIZES);
        x->value_dims = s.count;
        for (uint32_t k = 0; k < s.count && k < 8; k++)
          x->sizes[k] = (int64_t)etk_fb_load_u64(s.data + 8 * k);
        x->offset = etk_fb_get_i64(t, ETK_ETDUMP_TENSOR_OFFSET, 0);
      }
    }
  }
}

int ttu_dump_parse(const uint8_t *buf, size_t len, ttu_dump_t *out) {
  memset(out, 0, sizeof *out);
  etk_fb_verify_options_t opt;
  memset(&opt, 0, sizeof opt);
  opt.ident = ETK_ETDUMP_FILE_IDENTIFIER;
  opt.size_prefixed = 1;
  uint32_t root;
  int rc = etk_fb_verify(buf, len, &etk_etdump_schema, &opt, &root, NULL);
  if (rc != ETK_OK) return rc;
  etk_fb_table_t dump = etk_fb_root(buf, root);
  etk_fb_vector_t runs = etk_fb_get_vector(dump, ETK_ETDUMP_RUN_DATA);
  out->block_count = runs.count;
  out->blocks = calloc(runs.count ? runs.count : 1, sizeof *out->blocks);
  for (uint32_t r = 0; r < runs.count; r++) {
    ttu_block_t *b = &out->blocks[r];
    etk_fb_table_t run = etk_fb_vector_table(buf, runs, r);
    copy_str(b->name, sizeof b->name,
             etk_fb_get_string(run, ETK_ETDUMP_RUN_DATA_NAME));
    b->bundled_input_index =
        etk_fb_get_i32(run, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX, -1);
    etk_fb_vector_t al = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_ALLOCATORS);
    b->allocator_count = al.count;
    for (uint32_t a = 0; a < al.count && a < 8; a++)
      copy_str(b->allocators[a], sizeof b->allocators[a],
               etk_fb_get_string(etk_fb_vector_table(buf, al, a),
                                 ETK_ETDUMP_ALLOCATOR_NAME));
    etk_fb_vector_t ev = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
    b->event_count = ev.count;
    b->events = calloc(ev.count ? ev.count : 1, sizeof *b->events);
    for (uint32_t e = 0; e < ev.count; e++)
      parse_event(etk_fb_vector_table(buf, ev, e), &b->events[e]);
  }
  return ETK_OK;
}

void ttu_dump_free(ttu_dump_t *d) {
  for (uint32_t b = 0; b < d->block_count; b++) free(d->blocks[b].events);
  free(d->blocks);
  memset(d, 0, sizeof *d);
}
