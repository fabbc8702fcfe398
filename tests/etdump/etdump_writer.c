/*
 * etdump_writer.c - test-side ETDump writer (see etdump_writer.h).
 *
 * Children are built before parents, as FlatBuffers requires: every event's
 * tables are finished when the event is added (its Event ref is kept in the
 * run's list), the events/allocators vectors and the RunData table when the
 * run ends, and the run_data vector, root table and header at finish.
 */
#include "etdump_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/flatbuf.h"
#include "etkit/schema.h"

typedef struct refs {
  etk_fb_ref_t *v;
  size_t n, cap;
} refs_t;

struct etw {
  etk_fb_builder_t b;
  uint8_t *mem;
  refs_t runs, events, allocators;
  etk_fb_ref_t run_name;
  int32_t run_bii;
  int run_open, run_no_events;
  int failed;
};

static void push(etw_t *w, refs_t *r, etk_fb_ref_t ref) {
  if (!ref) {
    w->failed = 1;
    return;
  }
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 64;
    etk_fb_ref_t *p = realloc(r->v, cap * sizeof *p);
    if (!p) {
      w->failed = 1;
      return;
    }
    r->v = p;
    r->cap = cap;
  }
  r->v[r->n++] = ref;
}

etw_t *etw_new(size_t cap) {
  etw_t *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->mem = malloc(cap);
  if (!w->mem || etk_fb_builder_init(&w->b, w->mem, cap) != ETK_OK) {
    free(w->mem);
    free(w);
    return NULL;
  }
  return w;
}

void etw_free(etw_t *w) {
  if (!w) return;
  free(w->runs.v);
  free(w->events.v);
  free(w->allocators.v);
  free(w->mem);
  free(w);
}

static etk_fb_ref_t str(etw_t *w, const char *s) {
  return s ? etk_fb_create_string(&w->b, s, strlen(s)) : 0;
}

void etw_run_begin(etw_t *w, const char *name, int32_t bii) {
  w->run_open = 1;
  w->run_no_events = 0;
  w->events.n = 0;
  w->allocators.n = 0;
  w->run_name = str(w, name);
  w->run_bii = bii;
}

void etw_run_without_events(etw_t *w) {
  w->run_no_events = 1;
}

void etw_allocator(etw_t *w, const char *name) {
  etk_fb_ref_t n = str(w, name);
  etk_fb_table_start(&w->b);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_ALLOCATOR_NAME, n);
  push(w, &w->allocators, etk_fb_table_end(&w->b));
}

static void add_event(etw_t *w, unsigned member, etk_fb_ref_t table) {
  etk_fb_table_start(&w->b);
  etk_fb_add_ref(&w->b, member, table);
  push(w, &w->events, etk_fb_table_end(&w->b));
}

void etw_profile(etw_t *w, const etw_profile_t *p) {
  etk_fb_ref_t dstr = str(w, p->dstr);
  etk_fb_ref_t meta = 0;
  if (p->meta || p->meta_present)
    meta = etk_fb_create_vector(&w->b, p->meta, p->meta_len, 1, 1);
  etk_fb_ref_t name = str(w, p->name);
  etk_fb_table_start(&w->b);
  etk_fb_add_u64(&w->b, ETK_ETDUMP_PROFILE_EVENT_START_TIME, p->start, 0, 0);
  etk_fb_add_u64(&w->b, ETK_ETDUMP_PROFILE_EVENT_END_TIME, p->end, 0, 0);
  etk_fb_add_i32(&w->b, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, p->chain, 0, 0);
  etk_fb_add_i32(&w->b, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, p->iid, -1, 0);
  etk_fb_add_i32(&w->b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, p->dint,
                 -1, 0);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR, dstr);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_METADATA, meta);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_PROFILE_EVENT_NAME, name);
  add_event(w, ETK_ETDUMP_EVENT_PROFILE_EVENT, etk_fb_table_end(&w->b));
}

static etk_fb_ref_t tensor(etw_t *w, const etw_tensor_t *t) {
  int64_t strides[16];
  const int64_t *st = t->strides;
  if (!st && t->dim <= 16) {
    int64_t acc = 1;
    for (uint32_t i = t->dim; i-- > 0;) {
      strides[i] = acc;
      acc *= t->sizes[i];
    }
    st = strides;
  }
  etk_fb_ref_t sizes = etk_fb_create_vector(&w->b, t->sizes, t->dim, 8, 8);
  etk_fb_ref_t strv = etk_fb_create_vector(&w->b, st, st ? t->dim : 0, 8, 8);
  etk_fb_table_start(&w->b);
  etk_fb_add_i8(&w->b, ETK_ETDUMP_TENSOR_SCALAR_TYPE, t->scalar_type, 0, 0);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_TENSOR_SIZES, sizes);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_TENSOR_STRIDES, strv);
  etk_fb_add_i64(&w->b, ETK_ETDUMP_TENSOR_OFFSET, t->offset, 0, 0);
  return etk_fb_table_end(&w->b);
}

static etk_fb_ref_t bool_table(etw_t *w, int v) {
  etk_fb_table_start(&w->b);
  etk_fb_add_bool(&w->b, ETK_ETDUMP_BOOL_BOOL_VAL, v, 0, 0);
  return etk_fb_table_end(&w->b);
}

void etw_debug(etw_t *w, const etw_debug_t *d) {
  etk_fb_ref_t value = 0;
  if (d->kind != ETW_VALUE_NONE) {
    etk_fb_ref_t member = 0, output = 0;
    unsigned member_id = 0;
    switch (d->kind) {
      case ETW_VALUE_INT:
        etk_fb_table_start(&w->b);
        etk_fb_add_i64(&w->b, ETK_ETDUMP_INT_INT_VAL, d->int_value, 0, 0);
        member = etk_fb_table_end(&w->b);
        member_id = ETK_ETDUMP_VALUE_INT_VALUE;
        break;
      case ETW_VALUE_BOOL:
        member = bool_table(w, d->bool_value);
        member_id = ETK_ETDUMP_VALUE_BOOL_VALUE;
        break;
      case ETW_VALUE_FLOAT:
        etk_fb_table_start(&w->b);
        etk_fb_add_f32(&w->b, ETK_ETDUMP_FLOAT_FLOAT_VAL, (float)d->real_value,
                       0, 0);
        member = etk_fb_table_end(&w->b);
        member_id = ETK_ETDUMP_VALUE_FLOAT_VALUE;
        break;
      case ETW_VALUE_DOUBLE:
        etk_fb_table_start(&w->b);
        etk_fb_add_f64(&w->b, ETK_ETDUMP_DOUBLE_DOUBLE_VAL, d->real_value, 0,
                       0);
        member = etk_fb_table_end(&w->b);
        member_id = ETK_ETDUMP_VALUE_DOUBLE_VALUE;
        break;
      case ETW_VALUE_TENSOR:
        member = tensor(w, &d->tensor);
        member_id = ETK_ETDUMP_VALUE_TENSOR;
        break;
      case ETW_VALUE_TENSOR_LIST: {
        etk_fb_ref_t refs[32];
        uint32_t n = d->tensor_count < 32 ? d->tensor_count : 32;
        for (uint32_t i = 0; i < n; i++) refs[i] = tensor(w, &d->tensors[i]);
        etk_fb_ref_t vec = etk_fb_create_offset_vector(&w->b, refs, n);
        etk_fb_table_start(&w->b);
        etk_fb_add_ref(&w->b, ETK_ETDUMP_TENSOR_LIST_TENSORS, vec);
        member = etk_fb_table_end(&w->b);
        member_id = ETK_ETDUMP_VALUE_TENSOR_LIST;
        break;
      }
      default:
        break;
    }
    if (d->output >= 0) output = bool_table(w, d->output);
    etk_fb_table_start(&w->b);
    etk_fb_add_i8(&w->b, ETK_ETDUMP_VALUE_VAL, (int8_t)d->kind, 0, 0);
    if (member && !d->omit_member) etk_fb_add_ref(&w->b, member_id, member);
    etk_fb_add_ref(&w->b, ETK_ETDUMP_VALUE_OUTPUT, output);
    value = etk_fb_table_end(&w->b);
  }
  etk_fb_ref_t dstr = str(w, d->dstr);
  etk_fb_ref_t name = str(w, d->name);
  etk_fb_table_start(&w->b);
  etk_fb_add_u64(&w->b, ETK_ETDUMP_DEBUG_EVENT_CHAIN_INDEX, d->chain, 0, 0);
  etk_fb_add_i32(&w->b, ETK_ETDUMP_DEBUG_EVENT_INSTRUCTION_ID, d->iid, -1, 0);
  etk_fb_add_i32(&w->b, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT, d->dint,
                 -1, 0);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR, dstr);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_DEBUG_EVENT_NAME, name);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_DEBUG_EVENT_DEBUG_ENTRY, value);
  add_event(w, ETK_ETDUMP_EVENT_DEBUG_EVENT, etk_fb_table_end(&w->b));
}

etw_t *etw_one_profile_run(const etw_profile_t *p) {
  etw_t *w = etw_new(1 << 14);
  if (w == NULL) return NULL;
  etw_run_begin(w, "Execute", -1);
  etw_profile(w, p);
  etw_run_end(w);
  return w;
}

etw_debug_t etw_tensor_debug(int32_t iid, int8_t scalar_type,
                             const int64_t *sizes, uint32_t dim,
                             int64_t offset) {
  etw_debug_t d = {.iid = iid, .dint = ETW_NO_ID, .kind = ETW_VALUE_TENSOR};
  d.tensor = (etw_tensor_t){scalar_type, sizes, dim, NULL, offset};
  d.output = -1;
  return d;
}

void etw_allocation(etw_t *w, int32_t allocator_id, uint64_t size) {
  etk_fb_table_start(&w->b);
  etk_fb_add_u64(&w->b, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATION_SIZE, size, 0,
                 0);
  etk_fb_add_i32(&w->b, ETK_ETDUMP_ALLOCATION_EVENT_ALLOCATOR_ID, allocator_id,
                 0, 0);
  add_event(w, ETK_ETDUMP_EVENT_ALLOCATION_EVENT, etk_fb_table_end(&w->b));
}

void etw_empty_event(etw_t *w) {
  etk_fb_table_start(&w->b);
  push(w, &w->events, etk_fb_table_end(&w->b));
}

void etw_run_end(etw_t *w) {
  etk_fb_ref_t events = 0, allocators = 0;
  if (!w->run_no_events)
    events = etk_fb_create_offset_vector(&w->b, w->events.v, w->events.n);
  if (w->allocators.n)
    allocators =
        etk_fb_create_offset_vector(&w->b, w->allocators.v, w->allocators.n);
  etk_fb_table_start(&w->b);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_RUN_DATA_NAME, w->run_name);
  etk_fb_add_i32(&w->b, ETK_ETDUMP_RUN_DATA_BUNDLED_INPUT_INDEX, w->run_bii, -1,
                 0);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_RUN_DATA_ALLOCATORS, allocators);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_RUN_DATA_EVENTS, events);
  push(w, &w->runs, etk_fb_table_end(&w->b));
  w->run_open = 0;
}

static const uint8_t *finish(etw_t *w, size_t *len, int prefixed) {
  etk_fb_ref_t runs = etk_fb_create_offset_vector(&w->b, w->runs.v, w->runs.n);
  etk_fb_table_start(&w->b);
  etk_fb_add_ref(&w->b, ETK_ETDUMP_RUN_DATA, runs);
  etk_fb_ref_t root = etk_fb_table_end(&w->b);
  const uint8_t *out = NULL;
  if (w->failed ||
      etk_fb_finish(&w->b, root, ETK_ETDUMP_FILE_IDENTIFIER,
                    prefixed ? ETK_FB_SIZE_PREFIXED : ETK_FB_NO_SIZE_PREFIX,
                    &out, len) != ETK_OK)
    return NULL;
  return out;
}

const uint8_t *etw_finish(etw_t *w, size_t *len) {
  return finish(w, len, 1);
}
const uint8_t *etw_finish_unprefixed(etw_t *w, size_t *len) {
  return finish(w, len, 0);
}

uint8_t *etw_finish_copy(etw_t *w, size_t *len) {
  size_t n = 0;
  const uint8_t *b = etw_finish(w, &n);
  uint8_t *copy = b ? malloc(n) : NULL;
  if (copy) memcpy(copy, b, n);
  *len = copy ? n : 0;
  etw_free(w);
  return copy;
}

void etw_profile_simple(etw_t *w, const char *name, int32_t chain, int32_t iid,
                        uint64_t start, uint64_t end) {
  etw_profile_t p = {.name = name,
                     .chain = chain,
                     .iid = iid,
                     .dint = ETW_NO_ID,
                     .start = start,
                     .end = end};
  etw_profile(w, &p);
}

void etw_profile_delegated(etw_t *w, int32_t iid, int32_t dint,
                           const char *dstr, const uint8_t *meta,
                           uint32_t meta_len, uint64_t start, uint64_t end) {
  etw_profile_t p = {0};
  p.iid = iid;
  p.dint = dstr ? ETW_NO_ID : dint;
  p.dstr = dstr;
  p.meta = meta;
  p.meta_len = meta_len;
  p.meta_present = 1;
  p.start = start;
  p.end = end;
  etw_profile(w, &p);
}

int etw_write_file(const char *path, const uint8_t *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  int bad = fwrite(data, 1, len, f) != len;
  if (fclose(f) != 0) bad = 1;
  return bad;
}
