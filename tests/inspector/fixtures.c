/*
 * fixtures.c - hand-made ETDumps (see fixtures.h).  Appendices B and C
 * follow the inspector notes word for word: event order, chains (-1 for the
 * framework's Method::execute, 2^64-1 for program outputs), timestamps and
 * the debug-buffer layout.
 */
#include "fixtures.h"

#include <stdlib.h>
#include <string.h>

#include "../etdump/etdump_writer.h"
#include "etkit/schema.h"

uint8_t *fixture_appendix_b(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Default", -1);
  etw_profile_simple(w, "Method::init", -1, 0, 5, 10);
  etw_profile_simple(w, "Program::load_method", -1, 0, 1, 20);
  etw_run_end(w);
  for (int k = 1; k <= 4; k++) {
    etw_run_begin(w, "Execute", -1);
    etw_profile_simple(w, "native_call_add.out", 0, 0, 100,
                       100 + 10 * (uint64_t)k);
    etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 90, 115 + 10 * (uint64_t)k);
    if (k == 3) etw_profile_simple(w, "native_call_mul.out", 0, 1, 300, 307);
    etw_profile_simple(w, "Method::execute", -1, 0, 80, 200 + (uint64_t)k);
    etw_run_end(w);
  }
  return etw_finish_copy(w, len);
}

static const int64_t size3[] = {3}, size2[] = {2}, size1[] = {1};

/* A debug event holding a 1-D tensor whose data lies at `offset` in the
 * debug buffer; output -1 leaves the field out. */
static void debug_tensor(etw_t *w, uint64_t chain, int32_t iid, int32_t dint,
                         int8_t scalar_type, const int64_t *sizes,
                         int64_t offset, int output) {
  etw_debug_t d = {.chain = chain,
                   .iid = iid,
                   .dint = dint,
                   .kind = ETW_VALUE_TENSOR,
                   .tensor = {.scalar_type = scalar_type,
                              .sizes = sizes,
                              .dim = 1,
                              .offset = offset},
                   .output = output};
  etw_debug(w, &d);
}

uint8_t *fixture_appendix_c(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  const int32_t bii[3] = {0, 0, 1};
  for (int k = 1; k <= 3; k++) {
    etw_run_begin(w, "Execute", bii[k - 1]);
    etw_profile_simple(w, "native_call_add.out", 0, 0, 100, 110 + (uint64_t)k);
    debug_tensor(w, 0, 0, -1, ETK_SCALAR_TYPE_FLOAT, size3, 0, -1);
    etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 90, 120 + (uint64_t)k);
    char meta[4] = {'m', (char)('0' + k), 0, 0};
    etw_profile_t p = {0};
    p.iid = 1;
    p.dint = 5;
    p.meta = (const uint8_t *)meta;
    p.meta_len = 2;
    p.start = 200;
    p.end = 230 + (uint64_t)k;
    etw_profile(w, &p);
    etw_profile_delegated(w, 1, -1, "conv_fused", NULL, 0, 240, 250);
    debug_tensor(w, 0, 1, 5, ETK_SCALAR_TYPE_LONG, size2, 64, -1);
    etw_profile_simple(w, "DELEGATE_CALL", 0, 1, 190, 260 + (uint64_t)k);
    debug_tensor(w, 0, 1, -1, ETK_SCALAR_TYPE_LONG, size2, 64, -1);
    etw_debug_t d = {0};
    d.iid = 1;
    d.dint = -1;
    d.kind = ETW_VALUE_INT;
    d.int_value = 42;
    d.output = -1;
    etw_debug(w, &d);
    debug_tensor(w, UINT64_MAX, 0, -1, ETK_SCALAR_TYPE_FLOAT, size1, 128, 1);
    etw_profile_simple(w, "Method::execute", -1, 0, 80, 300 + (uint64_t)k);
    etw_run_end(w);
  }
  return etw_finish_copy(w, len);
}

uint8_t *fixture_appendix_c_buffer(size_t *len) {
  uint8_t *b = calloc(1, 136);
  if (!b) return NULL;
  const float f[3] = {1, 2, 3}, nine = 9;
  const int64_t l[2] = {7, 8};
  memcpy(b, f, sizeof f);
  memcpy(b + 64, l, sizeof l);
  memcpy(b + 128, &nine, sizeof nine);
  *len = 136;
  return b;
}

uint8_t *fixture_hostile_names(size_t *len) {
  static const char *const names[] = {"tab\there",
                                      "new\nline",
                                      "quote\"d",
                                      "comma,name",
                                      "back\\slash",
                                      "\x1b[31mred\x1b[0m",
                                      "bidi\xe2\x80\xae"
                                      "evil",
                                      "\xc3\xbc"
                                      "n\xc3\xaf"
                                      "c\xc3\xb6"
                                      "d\xc3\xa9 \xe2\x9c\x93",
                                      "42",
                                      "it's",
                                      " spaced ",
                                      "carriage\rreturn",
                                      "my_OPERATOR_CALL_x"};
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "hostile,\"run\"", -1);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    etw_profile_simple(w, names[i], 0, (int32_t)i, 1000 * i, 1000 * i + 10 + i);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

uint8_t *fixture_allocations(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Default", -1);
  etw_allocator(w, "method_allocator");
  etw_allocator(w, "planned_memory");
  etw_allocation(w, 1, 64);
  etw_allocation(w, 2, 128);
  etw_allocation(w, 1, 32);
  etw_profile_simple(w, "Method::init", -1, 0, 10, 30);
  etw_run_end(w);
  etw_run_begin(w, "Execute", -1);
  etw_allocator(w, "method_allocator");
  etw_allocation(w, 1, 16);
  etw_allocation(w, 5, 8);
  etw_profile_simple(w, "native_call_add.out", 0, 0, 100, 150);
  etw_profile_simple(w, "Method::execute", -1, 0, 90, 200);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

uint8_t *fixture_wrap(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "wrapped", 0, 0, 4294967290u, 5);
  etw_profile_simple(w, "missing_end", 0, 1, 100, 0);
  etw_profile_simple(w, "normal", 0, 2, 100, 200);
  etw_profile_t p = {0};
  p.iid = 3;
  p.dint = 7;
  p.start = 4294967000u;
  p.end = 1000;
  etw_profile(w, &p);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

uint8_t *fixture_delegates(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  for (int run = 0; run < 2; run++) {
    uint64_t o = (uint64_t)run * 10;
    etw_run_begin(w, "Execute", -1);
    etw_profile_simple(w, "native_call_add.out", 0, 0, 10, 110 + o);
    etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 0, 120 + o);
    etw_profile_t p = {0};
    p.iid = 1;
    p.dint = -1;
    p.dstr = "linear #1";
    p.start = 200;
    p.end = 300 + o;
    etw_profile(w, &p);
    p.dstr = "linear #2";
    p.start = 300;
    p.end = 380;
    etw_profile(w, &p);
    p.dstr = NULL;
    p.dint = 3;
    p.start = 380;
    p.end = 390;
    etw_profile(w, &p);
    etw_profile_simple(w, "DELEGATE_CALL", 0, 1, 190, 400);
    etw_profile_simple(w, "DELEGATE_CALL", 0, 2, 400, 500);
    etw_profile_simple(w, "Method::execute", -1, 0, 0, 600 + o);
    etw_run_end(w);
  }
  return etw_finish_copy(w, len);
}
