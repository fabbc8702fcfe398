/*
 * test_etdumpgen_no_heap.cpp - ETDumpGen's memory promise, counted: over a
 * caller's buffer (with a debug buffer, every kind of event, the dump
 * taken, reset) it never touches the heap; in heap mode (the default
 * constructor, as upstream's docs use it) it allocates its arena once at
 * construction and the dump once in get_etdump_data, which the caller
 * frees; on a small heap it takes a smaller arena and still records.  The
 * long-run modes (stats profile, STATS debug level) keep those promises.
 * Linked with -Wl,--wrap for malloc, calloc, realloc, free,
 * aligned_alloc and posix_memalign (harness/heap_count.h); operator new
 * and delete are replaced here, so allocations from C++ code are counted
 * too.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/testing_util/tensor_factory.h>
#include <executorch/runtime/platform/runtime.h>

#include "heap_count.h"

/* Every replaceable form but the aligned ones (nothing here uses them). */
void *operator new(size_t n) {
  void *p = __wrap_malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void *operator new[](size_t n) {
  return operator new(n);
}
void *operator new(size_t n, const std::nothrow_t &) noexcept {
  return __wrap_malloc(n == 0 ? 1 : n);
}
void *operator new[](size_t n, const std::nothrow_t &) noexcept {
  return __wrap_malloc(n == 0 ? 1 : n);
}
void operator delete(void *p) noexcept {
  __wrap_free(p);
}
void operator delete[](void *p) noexcept {
  __wrap_free(p);
}
void operator delete(void *p, size_t) noexcept {
  __wrap_free(p);
}
void operator delete[](void *p, size_t) noexcept {
  __wrap_free(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept {
  __wrap_free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept {
  __wrap_free(p);
}

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::EValue;
using executorch::runtime::EventTracer;
using executorch::runtime::Span;

static int failures = 0;
#define EXPECT_EQ(a, b)                                                    \
  do {                                                                     \
    unsigned long x_ = (a), y_ = (b);                                      \
    if (x_ != y_) {                                                        \
      std::printf("FAILED line %d: %s = %lu, not %lu\n", __LINE__, #a, x_, \
                  y_);                                                     \
      failures++;                                                          \
    }                                                                      \
  } while (0)

static void record(EventTracer *t, const Tensor &out) {
  t->create_event_block("Execute");
  for (uint32_t i = 0; i < 100; i++) {
    t->set_chain_debug_handle(0, i);
    t->end_profiling(t->start_profiling("OPERATOR_CALL"));
    t->log_evalue(EValue(out),
                  executorch::runtime::LoggedEValueType::kIntermediateOutput);
  }
  t->end_profiling_delegate(t->start_profiling_delegate("dsp", -1), nullptr, 0);
  t->log_profiling_delegate(nullptr, 7, 1, 2, nullptr, 0);
  (void)t->log_intermediate_output_delegate("dsp_out", -1, out);
  t->track_allocation(t->track_allocator("planned"), 64);
}

int main() {
  executorch::runtime::runtime_init();
  executorch::runtime::testing::TensorFactory<ScalarType::Float> tf;
  Tensor out = tf.make({2, 2}, {1, 2, 3, 4});
  static uint8_t buffer[256 * 1024];
  alignas(64) static uint8_t debug[64 * 1024];

  etk_heap_calls = 0;
  {
    executorch::etdump::ETDumpGen gen(Span<uint8_t>(buffer, sizeof buffer));
    (void)gen.set_debug_buffer(Span<uint8_t>(debug, sizeof debug));
    record(&gen, out);
    executorch::etdump::ETDumpResult r = gen.get_etdump_data();
    EXPECT_EQ(r.buf != nullptr, 1);
    gen.reset();
    record(&gen, out);
    (void)gen.get_etdump_data();
  }
  EXPECT_EQ(etk_heap_calls, 0); /* a caller's buffer: the heap never */

  /* The long-run modes over a caller's buffer: the sketch table comes from
   * it, so still no heap, whatever the number of runs (set_profile_mode,
   * the config constructor, the STATS debug level). */
  etk_heap_calls = 0;
  {
    executorch::etdump::ETDumpGen gen(Span<uint8_t>(buffer, sizeof buffer));
    (void)gen.set_debug_buffer(Span<uint8_t>(debug, sizeof debug));
    EXPECT_EQ(gen.set_profile_mode(etkit::ProfileMode::kStats, 0.02) ==
                  executorch::runtime::Error::Ok,
              1);
    gen.set_event_tracer_debug_level(etkit::kEventTracerDebugStats);
    /* 101 keys for a 42-key table, 5,050 STATS vectors for a 64 KiB
     * debug buffer: what does not fit is dropped and counted */
    for (int run = 0; run < 50; run++) record(&gen, out);
    EXPECT_EQ(gen.get_num_blocks(), 1);
    EXPECT_EQ(gen.dropped_events() > 0, 1);
    EXPECT_EQ(gen.get_etdump_data().buf != nullptr, 1);
    etkit::ETDumpTracerConfig cfg;
    cfg.profile_mode = etkit::ProfileMode::kStats;
    cfg.stats_keys = 8; /* fewer than the 100 instructions: counted drops */
    executorch::etdump::ETDumpGen small(Span<uint8_t>(buffer, sizeof buffer),
                                        cfg);
    for (int run = 0; run < 3; run++) record(&small, out);
    EXPECT_EQ(small.dropped_events() > 0, 1);
    EXPECT_EQ(small.get_etdump_data().buf != nullptr, 1);
  }
  EXPECT_EQ(etk_heap_calls, 0);
  /* heap mode's stats table is in the one arena it allocates */
  etk_heap_calls = 0;
  {
    executorch::etdump::ETDumpGen gen;
    EXPECT_EQ(gen.set_profile_mode(etkit::ProfileMode::kStats) ==
                  executorch::runtime::Error::Ok,
              1);
    for (int run = 0; run < 50; run++) record(&gen, out);
    EXPECT_EQ(etk_heap_calls, 1); /* the arena, at construction */
    std::free(gen.get_etdump_data().buf);
  }
  EXPECT_EQ(etk_heap_calls, 4);

  etk_heap_calls = 0;
  {
    executorch::etdump::ETDumpGen gen; /* heap mode */
    EXPECT_EQ(etk_heap_calls, 1);      /* the arena */
    record(&gen, out);
    EXPECT_EQ(etk_heap_calls, 1);
    executorch::etdump::ETDumpResult r = gen.get_etdump_data();
    EXPECT_EQ(etk_heap_calls, 2); /* the caller's copy */
    std::free(r.buf);
  }
  EXPECT_EQ(etk_heap_calls, 4); /* the copy and the arena freed */

  /* A board's heap (upstream's Arm runner default-constructs ETDumpGen):
   * no 8 MiB block, yet the dump is recorded, in a halved arena that
   * leaves room for the copy. */
  etk_heap_limit = size_t(1) << 20;
  etk_heap_calls = 0;
  {
    executorch::etdump::ETDumpGen gen;
    /* 8, 4 and 2 MiB refused, 1 MiB taken, shrunk to 512 KiB */
    EXPECT_EQ(etk_heap_calls, 5);
    EXPECT_EQ(gen.is_static_etdump(), 0);
    record(&gen, out);
    EXPECT_EQ(gen.dropped_events(), 0);
    executorch::etdump::ETDumpResult r = gen.get_etdump_data();
    EXPECT_EQ(r.buf != nullptr && r.size > 16, 1);
    if (r.buf != nullptr && r.size > 16)
      EXPECT_EQ(std::memcmp(static_cast<uint8_t *>(r.buf) + 8, "ED00", 4), 0);
    EXPECT_EQ(gen.get_num_blocks(), 1);
    std::free(r.buf);
  }
  /* a heap without even 64 KiB: nothing recorded, nothing aborts */
  etk_heap_limit = size_t(32) << 10;
  etk_heap_calls = 0;
  {
    executorch::etdump::ETDumpGen gen;
    EXPECT_EQ(etk_heap_calls, 8); /* 8 MiB down to 64 KiB, all refused */
    record(&gen, out);
    executorch::etdump::ETDumpResult r = gen.get_etdump_data();
    EXPECT_EQ(r.buf == nullptr && r.size == 0, 1);
  }
  etk_heap_limit = 0;

  if (failures == 0) std::printf("ETDumpGen heap use: ok\n");
  return failures == 0 ? 0 : 1;
}
