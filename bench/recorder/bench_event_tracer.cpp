/*
 * bench_event_tracer.cpp - what etkit::ETDumpTracer costs on top of the C
 * recorder it wraps, in one run: a begin/end pair through upstream's
 * virtual EventTracer interface (by name, as the runtime calls it) against
 * the C recorder's by-name pair (and its by-id pair, the name interned
 * beforehand: its cheapest), a 64-byte tensor logged as an EValue
 * against etk_recorder_log_value, and finishing (get_etdump_data over a
 * caller buffer: no copy) against etk_recorder_finish.  Both sides use the
 * same trivial counter clock, so the difference is the adapter's own work.
 *
 * One line per figure: "<name> <value> <unit>".  Each timing is the best of
 * ROUNDS rounds of EVENTS calls, the adapter and the C recorder alternating
 * round by round (a busy machine slows both alike).
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/testing_util/tensor_factory.h>
#include <executorch/runtime/platform/runtime.h>

#include "etkit/executorch_event_tracer.hpp"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::EValue;
using executorch::runtime::EventTracer;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::LoggedEValueType;
using executorch::runtime::Span;

namespace {

constexpr uint32_t EVENTS = 20000;
constexpr int ROUNDS = 40;

/* An EventTracer that records nothing: what the virtual interface itself
 * costs (two calls, a 32-byte entry returned and passed by value). */
class NullTracer final : public EventTracer {
 public:
  using Error = executorch::runtime::Error;
  template <typename T>
  using Result = executorch::runtime::Result<T>;
  void create_event_block(const char *) override {}
  EventTracerEntry start_profiling(
      const char *, executorch::runtime::ChainID c,
      executorch::runtime::DebugHandle h) override {
    /* written as two 16-byte halves, as the adapter writes its entries
     * (field by field the caller's 16-byte copy stalls: see
     * event_tracer_pair_null_tracer_fields) */
    EventTracerEntry e;
    typedef uint64_t u64x2 __attribute__((vector_size(16)));
    u64x2 halves[2] = {
        {1, static_cast<uint32_t>(c) | static_cast<uint64_t>(h) << 32},
        {++ticks_null, 0}};
    std::memcpy(static_cast<void *>(&e), halves, sizeof halves);
    return e;
  }
  EventTracerEntry start_profiling_delegate(const char *n, int32_t) override {
    return start_profiling(n, -1, 0);
  }
  void end_profiling_delegate(EventTracerEntry, const void *, size_t) override {
  }
  void log_profiling_delegate(const char *, int32_t, et_timestamp_t,
                              et_timestamp_t, const void *, size_t) override {}
  void end_profiling(EventTracerEntry e) override {
    ticks_null += e.start_time;
  }
  void track_allocation(executorch::runtime::AllocatorID, size_t) override {}
  executorch::runtime::AllocatorID track_allocator(const char *) override {
    return 0;
  }
  Result<bool> log_evalue(const EValue &, LoggedEValueType) override {
    return false;
  }
  Result<bool> log_intermediate_output_delegate(const char *, int32_t,
                                                const Tensor &) override {
    return false;
  }
  Result<bool> log_intermediate_output_delegate(
      const char *, int32_t,
      const executorch::runtime::ArrayRef<Tensor>) override {
    return false;
  }
  Result<bool> log_intermediate_output_delegate(const char *, int32_t,
                                                const int &) override {
    return false;
  }
  Result<bool> log_intermediate_output_delegate(const char *, int32_t,
                                                const bool &) override {
    return false;
  }
  Result<bool> log_intermediate_output_delegate(const char *, int32_t,
                                                const double &) override {
    return false;
  }
  void set_delegation_intermediate_output_filter(
      executorch::runtime::EventTracerFilterBase *) override {}
  static uint64_t ticks_null;
};
uint64_t NullTracer::ticks_null;

uint64_t arena_a[8u << 17], arena_b[8u << 17]; /* 8 MiB each */
alignas(64) uint8_t debug_a[EVENTS * 128u], debug_b[EVENTS * 128u];
uint64_t ticks;

uint64_t counter_clock(void *ctx) {
  return ++*static_cast<uint64_t *>(ctx);
}

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

void die(const char *what) {
  std::fprintf(stderr, "bench_event_tracer: %s\n", what);
  std::exit(1);
}

etk_recorder_t *make_c() {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec = nullptr;
  etk_recorder_config_init(&cfg);
  cfg.clock = counter_clock;
  cfg.clock_ctx = &ticks;
  cfg.max_strings = 1024; /* as the adapter's default */
  if (etk_recorder_init(&rec, arena_b, sizeof arena_b, &cfg) != ETK_OK)
    die("recorder init failed");
  return rec;
}

struct Best {
  double v = 1e30;
  void keep(uint64_t t0, uint64_t t1) {
    double per = static_cast<double>(t1 - t0) / EVENTS;
    if (per < v) v = per;
  }
};

/* One round of EVENTS pairs through the virtual interface (the pointer is
 * volatile so the calls stay virtual). */
void pairs_virtual(etkit::ETDumpTracer &t, Best &best) {
  EventTracer *volatile vp = &t;
  EventTracer *et = vp;
  et->create_event_block("Execute");
  et->set_chain_debug_handle(0, 3);
  uint64_t t0 = now_ns();
  for (uint32_t i = 0; i < EVENTS; i++) {
    EventTracerEntry e = et->start_profiling("OPERATOR_CALL");
    et->end_profiling(e);
  }
  uint64_t t1 = now_ns();
  if (t.dropped_events() != 0 || t.error_count() != 0) die("adapter drops");
  best.keep(t0, t1);
  (void)t.get_etdump_data();
}

/* The same pairs called without virtual dispatch (qualified calls: the
 * class is not final, ETDumpGen derives from it): the adapter's own work
 * without the interface's. */
void pairs_direct(etkit::ETDumpTracer &t, Best &best) {
  t.create_event_block("Execute");
  t.set_chain_debug_handle(0, 3);
  uint64_t t0 = now_ns();
  for (uint32_t i = 0; i < EVENTS; i++) {
    EventTracerEntry e =
        t.etkit::ETDumpTracer::start_profiling("OPERATOR_CALL");
    t.etkit::ETDumpTracer::end_profiling(e);
  }
  uint64_t t1 = now_ns();
  if (t.dropped_events() != 0 || t.error_count() != 0) die("adapter drops");
  best.keep(t0, t1);
  (void)t.get_etdump_data();
}

/* Ring mode once the arena is full: every pair that does not fit makes
 * room by discarding the oldest eighth of the events (one pass over the
 * records), so this is the steady state of a ring, discards included. */
void pairs_ring_full(etkit::ETDumpTracer &t, Best &best) {
  EventTracer *volatile vp = &t;
  EventTracer *et = vp;
  et->create_event_block("Execute");
  et->set_chain_debug_handle(0, 3);
  for (uint32_t i = 0; i < EVENTS; i++) /* fill it first */
    et->end_profiling(et->start_profiling("OPERATOR_CALL"));
  uint64_t t0 = now_ns();
  for (uint32_t i = 0; i < EVENTS; i++) {
    EventTracerEntry e = et->start_profiling("OPERATOR_CALL");
    et->end_profiling(e);
  }
  uint64_t t1 = now_ns();
  if (t.dropped_events() == 0 || t.error_count() != 0) die("ring did not wrap");
  best.keep(t0, t1);
  (void)t.get_etdump_data();
}

void pairs_null(NullTracer &t, Best &best) {
  EventTracer *volatile vp = &t;
  EventTracer *et = vp;
  uint64_t t0 = now_ns();
  for (uint32_t i = 0; i < EVENTS; i++) {
    EventTracerEntry e = et->start_profiling("OPERATOR_CALL");
    et->end_profiling(e);
  }
  best.keep(t0, now_ns());
}

void pairs_c(etk_recorder_t *rec, Best &best) {
  const uint8_t *out;
  size_t len;
  etk_recorder_begin_block(rec, "Execute");
  etk_recorder_set_chain_debug_handle(rec, 0, 3);
  uint64_t t0 = now_ns();
  for (uint32_t i = 0; i < EVENTS; i++) {
    etk_recorder_scope_t s =
        etk_recorder_begin_named(rec, "OPERATOR_CALL", -1, 0);
    etk_recorder_end(rec, &s);
  }
  uint64_t t1 = now_ns();
  if (etk_recorder_dropped(rec) != 0) die("recorder drops");
  best.keep(t0, t1);
  etk_recorder_finish(rec, &out, &len);
}

/* The C recorder's cheapest pair: the name interned once, beforehand. */
void pairs_c_by_id(etk_recorder_t *rec, Best &best) {
  const uint8_t *out;
  size_t len;
  etk_recorder_name_t op = etk_recorder_intern(rec, "OPERATOR_CALL");
  etk_recorder_begin_block(rec, "Execute");
  etk_recorder_set_chain_debug_handle(rec, 0, 3);
  uint64_t t0 = now_ns();
  for (uint32_t i = 0; i < EVENTS; i++) {
    etk_recorder_scope_t s = etk_recorder_begin(rec, op);
    etk_recorder_end(rec, &s);
  }
  uint64_t t1 = now_ns();
  if (etk_recorder_dropped(rec) != 0) die("recorder drops");
  best.keep(t0, t1);
  etk_recorder_finish(rec, &out, &len);
}

void tensors_virtual(etkit::ETDumpTracer &t, const EValue &v, Best &best) {
  EventTracer *volatile vp = &t;
  EventTracer *et = vp;
  et->create_event_block("Execute");
  t.set_debug_buffer(Span<uint8_t>(debug_a, sizeof debug_a));
  uint64_t t0 = now_ns();
  for (uint32_t i = 0; i < EVENTS; i++)
    (void)et->log_evalue(v, LoggedEValueType::kIntermediateOutput);
  uint64_t t1 = now_ns();
  if (t.dropped_events() != 0) die("adapter drops tensors");
  best.keep(t0, t1);
  (void)t.get_etdump_data();
}

void tensors_c(etk_recorder_t *rec, const etk_recorder_value_t &v, Best &best) {
  const uint8_t *out;
  size_t len;
  etk_recorder_begin_block(rec, "Execute");
  etk_recorder_set_debug_buffer(rec, debug_b, sizeof debug_b);
  uint64_t t0 = now_ns();
  for (uint32_t i = 0; i < EVENTS; i++)
    etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  uint64_t t1 = now_ns();
  if (etk_recorder_dropped(rec) != 0) die("recorder drops tensors");
  best.keep(t0, t1);
  etk_recorder_finish(rec, &out, &len);
}

/* EVENTS operator events in one block, then the best of 10 finishes. */
void finish_virtual(etkit::ETDumpTracer &t, Best &best) {
  t.create_event_block("Execute");
  for (uint32_t i = 0; i < EVENTS; i++) {
    t.set_chain_debug_handle(0, i % 14u);
    t.end_profiling(t.start_profiling("OPERATOR_CALL"));
  }
  for (int r = 0; r < 10; r++) {
    uint64_t t0 = now_ns();
    etkit::ETDumpResult res = t.get_etdump_data();
    uint64_t t1 = now_ns();
    if (res.buf == nullptr) die("adapter finish failed");
    best.keep(t0, t1);
  }
}

void finish_c(etk_recorder_t *rec, Best &best) {
  const uint8_t *out;
  size_t len;
  etk_recorder_begin_block(rec, "Execute");
  for (uint32_t i = 0; i < EVENTS; i++) {
    etk_recorder_set_chain_debug_handle(rec, 0, i % 14u);
    etk_recorder_scope_t s =
        etk_recorder_begin_named(rec, "OPERATOR_CALL", -1, 0);
    etk_recorder_end(rec, &s);
  }
  for (int r = 0; r < 10; r++) {
    uint64_t t0 = now_ns();
    int status = etk_recorder_finish(rec, &out, &len);
    uint64_t t1 = now_ns();
    if (status != ETK_OK) die("recorder finish failed");
    best.keep(t0, t1);
  }
}

}  // namespace

int main() {
  executorch::runtime::runtime_init();
  etkit::ETDumpTracerConfig cfg;
  cfg.clock = counter_clock;
  cfg.clock_ctx = &ticks;
  etkit::ETDumpTracer tracer(reinterpret_cast<uint8_t *>(arena_a),
                             sizeof arena_a, cfg);
  if (tracer.init_error() != executorch::runtime::Error::Ok)
    die("adapter init failed");
  etk_recorder_t *rec = make_c();

  executorch::runtime::testing::TensorFactory<ScalarType::Float> tf;
  Tensor tensor = tf.zeros({4, 4}); /* 16 floats: 64 bytes */
  EValue value(tensor);
  int64_t dims[4] = {4, 4, 4, 1};
  etk_recorder_tensor_t ct;
  ct.scalar_type = 6;
  ct.dim = 2;
  ct.sizes = dims;
  ct.strides = dims + 2;
  ct.data = tensor.const_data_ptr();
  ct.nbytes = tensor.nbytes();
  etk_recorder_value_t cv = etk_value_tensor(&ct);

  static uint8_t ring_arena[256u << 10]; /* about 3,000 operator events */
  etkit::ETDumpTracerConfig ring_cfg = cfg;
  ring_cfg.when_full = etkit::WhenFull::kRing;
  etkit::ETDumpTracer ring(ring_arena, sizeof ring_arena, ring_cfg);
  if (ring.init_error() != executorch::runtime::Error::Ok)
    die("ring init failed");
  NullTracer null_tracer;
  Best pair_a, pair_b, pair_id, pair_null, pair_ring, pair_direct, tensor_a,
      tensor_b, finish_a, finish_b;
  for (int r = 0; r < ROUNDS; r++) {
    pairs_virtual(tracer, pair_a);
    pairs_c(rec, pair_b);
    pairs_c_by_id(rec, pair_id);
    pairs_null(null_tracer, pair_null);
    pairs_direct(tracer, pair_direct);
    if (r % 4 == 0) pairs_ring_full(ring, pair_ring);
  }
  for (int r = 0; r < ROUNDS / 4; r++) {
    tensors_virtual(tracer, value, tensor_a);
    tensors_c(rec, cv, tensor_b);
  }
  for (int r = 0; r < 3; r++) {
    finish_virtual(tracer, finish_a);
    finish_c(rec, finish_b);
  }
  std::printf("event_tracer_pair_virtual %.2f ns\n", pair_a.v);
  std::printf("recorder_pair_by_name_same_run %.2f ns\n", pair_b.v);
  std::printf("event_tracer_pair_overhead %.2f ns\n", pair_a.v - pair_b.v);
  std::printf("recorder_pair_by_id_same_run %.2f ns\n", pair_id.v);
  std::printf("event_tracer_pair_overhead_vs_by_id %.2f ns\n",
              pair_a.v - pair_id.v);
  std::printf("event_tracer_pair_null_tracer %.2f ns\n", pair_null.v);
  std::printf("event_tracer_pair_direct %.2f ns\n", pair_direct.v);
  std::printf("event_tracer_pair_ring_full %.2f ns\n", pair_ring.v);
  std::printf("event_tracer_log_tensor_64B %.2f ns\n", tensor_a.v);
  std::printf("recorder_log_tensor_64B_same_run %.2f ns\n", tensor_b.v);
  std::printf("event_tracer_finish_per_event %.2f ns\n", finish_a.v);
  std::printf("recorder_finish_per_event_same_run %.2f ns\n", finish_b.v);
  return 0;
}
