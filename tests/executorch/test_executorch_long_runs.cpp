/*
 * test_executorch_long_runs.cpp - the C++ tracer's long-run modes
 * (docs/long-runs.md) through upstream's EventTracer interface:
 *   - STATS debug level: the dump and the debug buffer the adapter writes
 *     are byte for byte the C recorder's at ETK_DEBUG_LEVEL_STATS for the
 *     same tensors, and each vector equals etk_tensor_stats_compute of the
 *     tensor and a sorted reference for min, max, zero count and p99_abs;
 *     the level goes back to bytes when upstream's setter lowers it;
 *   - stats profile mode: one sketch per key with count == runs (the
 *     inspector's rows), the same bytes as the C recorder's STATS MODE,
 *     a key that finds no slot dropped and counted (stop and ring mode
 *     alike: nothing else is discarded), set_profile_mode's rules (after a
 *     block, bad arguments, no room for the table: the old mode kept, the
 *     sink kept).
 * Every dump passes etkit's verifier and flatc (required under CI=true).
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/testing_util/tensor_factory.h>
#include <executorch/runtime/platform/runtime.h>

#include "etkit/executorch_event_tracer.hpp"

extern "C" {
#include "etkit/etdump.h"
#include "etkit/inspector_core.h"
#include "etkit/latency_dump.h"
#include "etkit/tensor_stats.h"
#include "recorder_testutil.h"
}
#include "tracer_testutil.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracerDebugLogLevel;
using executorch::runtime::LoggedEValueType;
using executorch::runtime::Span;
using executorch::runtime::testing::TensorFactory;

namespace {

uint64_t ticks;
uint64_t step_clock(void *ctx) {
  return *static_cast<uint64_t *>(ctx) += 10;
}

etkit::ETDumpTracerConfig stepped(etkit::ProfileMode mode) {
  etkit::ETDumpTracerConfig c;
  c.clock = step_clock;
  c.clock_ctx = &ticks;
  c.profile_mode = mode;
  ticks = 1000;
  return c;
}

etk_recorder_t *c_recorder(void *arena, size_t size, int stats_profile) {
  etk_recorder_config_t c;
  etk_recorder_config_init(&c);
  c.clock = step_clock;
  c.clock_ctx = &ticks;
  c.max_strings = etkit::ETDumpTracerConfig().max_strings;
  if (stats_profile) {
    c.profile_mode = ETK_PROFILE_MODE_STATS;
    c.stats_keys = static_cast<uint32_t>(size / 6144); /* the adapter's */
  }
  ticks = 1000;
  etk_recorder_t *rec = nullptr;
  if (etk_recorder_init(&rec, arena, size, &c) != ETK_OK) return nullptr;
  return rec;
}

/* The tensors of the STATS tests: floats with a zero, negatives and a
 * NaN-free spread over 300 elements (p99_abs is then the 3rd largest), a
 * small int tensor and a bool tensor. */
struct Tensors {
  TensorFactory<ScalarType::Float> tf;
  TensorFactory<ScalarType::Int> ti;
  TensorFactory<ScalarType::Bool> tb;
  Tensor big, ints, bools;
  Tensors()
      : big(tf.zeros({3, 100})),
        ints(ti.make({4}, {-7, 0, 3, 9})),
        bools(tb.make({3}, {true, false, true})) {
    float *p = big.mutable_data_ptr<float>();
    for (int i = 0; i < 300; i++)
      p[i] = i == 17 ? 0.0f : static_cast<float>((i * 29) % 97) * 0.5f - 20.0f;
  }
};

/* What the adapter is driven through (upstream's calls). */
void log_all_adapter(etkit::ETDumpTracer &t, Tensors &ts) {
  t.create_event_block("Execute");
  t.set_chain_debug_handle(0, 1);
  (void)t.log_evalue(EValue(ts.big), LoggedEValueType::kIntermediateOutput);
  t.set_chain_debug_handle(0, 2);
  (void)t.log_evalue(EValue(ts.ints), LoggedEValueType::kIntermediateOutput);
  (void)t.log_intermediate_output_delegate("dsp", -1, ts.bools);
  t.set_chain_debug_handle(-1, 0);
  (void)t.log_evalue(EValue(ts.big), LoggedEValueType::kProgramOutput);
}

/* The same through the C recorder. */
void log_all_c(etk_recorder_t *rec, Tensors &ts) {
  int64_t d1[4], d2[2], d3[2];
  etk_recorder_tensor_t big = c_tensor(ts.big, d1),
                        ints = c_tensor(ts.ints, d2),
                        bools = c_tensor(ts.bools, d3);
  etk_recorder_value_t v;
  etk_recorder_begin_block(rec, "Execute");
  etk_recorder_set_chain_debug_handle(rec, 0, 1);
  v = etk_value_tensor(&big);
  etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  etk_recorder_set_chain_debug_handle(rec, 0, 2);
  v = etk_value_tensor(&ints);
  etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  v = etk_value_tensor(&bools);
  etk_recorder_log_delegate_value(rec, "dsp", -1, &v);
  etk_recorder_set_chain_debug_handle(rec, -1, 0);
  v = etk_value_tensor(&big);
  etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT);
}

uint8_t arena_a[256 * 1024], arena_b[256 * 1024];
alignas(64) uint8_t debug_a[4096], debug_b[4096];

/* The k-th largest |x| of a float tensor, by sorting (k = ceil(n/100)). */
double sorted_p99_abs(const float *p, size_t n) {
  std::vector<double> a(n);
  for (size_t i = 0; i < n; i++) a[i] = std::fabs(static_cast<double>(p[i]));
  std::sort(a.begin(), a.end());
  size_t k = n / 100 + (n % 100 != 0);
  return a[n - (k < 1 ? 1 : k)];
}

}  // namespace

ETK_TEST(stats_debug_level_is_the_c_recorders) {
  Tensors ts;
  etkit::ETDumpTracer t(arena_a, sizeof arena_a,
                        stepped(etkit::ProfileMode::kFull));
  REQUIRE(t.set_debug_buffer(Span<uint8_t>(debug_a, sizeof debug_a)) ==
          Error::Ok);
  t.set_debug_level(etkit::DebugLevel::kStats);
  CHECK(t.event_tracer_debug_level() == etkit::kEventTracerDebugStats);
  CHECK(t.debug_level() == etkit::DebugLevel::kStats);
  /* upstream's runtime logs intermediates at this level (it compares) */
  CHECK(t.event_tracer_debug_level() >=
        EventTracerDebugLogLevel::kIntermediateOutputs);
  log_all_adapter(t, ts);
  CHECK_EQ_U64(t.error_count(), 0);
  etkit::ETDumpResult a = t.get_etdump_data();
  REQUIRE(a.buf != nullptr);
  CHECK(verified(a.buf, a.size));

  etk_recorder_t *rec = c_recorder(arena_b, sizeof arena_b, 0);
  REQUIRE(rec != nullptr);
  REQUIRE(etk_recorder_set_debug_buffer(rec, debug_b, sizeof debug_b) ==
          ETK_OK);
  etk_recorder_set_debug_level(rec, ETK_DEBUG_LEVEL_STATS);
  log_all_c(rec, ts);
  const uint8_t *b = nullptr;
  size_t blen = 0;
  REQUIRE(etk_recorder_finish(rec, &b, &blen) == ETK_OK);
  CHECK_EQ_U64(a.size, blen);
  CHECK(a.size == blen && std::memcmp(a.buf, b, blen) == 0);
  size_t used = etk_recorder_debug_buffer_used(t.recorder());
  CHECK_EQ_U64(used, etk_recorder_debug_buffer_used(rec));
  CHECK(std::memcmp(debug_a, debug_b, used) == 0);
  CHECK_EQ_U64(used, 3 * 128 + 13 * 8); /* four vectors, whatever the sizes */

  /* each vector is the tensor's, read back with etkit's reader */
  etk_etdump_t *d = open_dump(a.buf, a.size);
  REQUIRE(d != nullptr);
  CHECK(etk_etdump_has_tensor_stats(d));
  const Tensor *want[4] = {&ts.big, &ts.ints, &ts.bools, &ts.big};
  size_t found = 0;
  for (size_t i = 0; i < etk_etdump_event_count(d); i++) {
    etk_etdump_value_t v;
    if (etk_etdump_event_value(d, i, &v) != ETK_OK || !v.present) continue;
    REQUIRE(found < 4);
    CHECK(etk_etdump_tensor_is_stats(d, &v.tensor));
    double got[13], ref[13];
    REQUIRE(etk_etdump_tensor_stats(d, &v.tensor, debug_a, used, got,
                                    nullptr) == ETK_OK);
    const Tensor &x = *want[found++];
    REQUIRE(etk_tensor_stats_compute(
                static_cast<int32_t>(x.scalar_type()), x.const_data_ptr(),
                static_cast<size_t>(x.numel()), ref) == ETK_OK);
    for (int k = 0; k < 13; k++) CHECK(got[k] == ref[k]);
  }
  CHECK_EQ_U64(found, 4);
  etk_etdump_close(d);
  /* an independent reference for the big tensor (300 values: k = 3) */
  const float *p = ts.big.const_data_ptr<float>();
  double mn = p[0], mx = p[0], zeros = 0;
  for (int i = 0; i < 300; i++) {
    mn = std::min(mn, static_cast<double>(p[i]));
    mx = std::max(mx, static_cast<double>(p[i]));
    zeros += p[i] == 0.0f;
  }
  double first[13];
  std::memcpy(first, debug_a, sizeof first);
  CHECK(first[ETK_STAT_MIN] == mn && first[ETK_STAT_MAX] == mx);
  CHECK(first[ETK_STAT_ZERO_COUNT] == zeros);
  CHECK(first[ETK_STAT_P99_ABS] == sorted_p99_abs(p, 300));
}

ETK_TEST(stats_debug_level_lowered_logs_bytes_again) {
  Tensors ts;
  etkit::ETDumpTracer t(arena_a, sizeof arena_a);
  REQUIRE(t.set_debug_buffer(Span<uint8_t>(debug_a, sizeof debug_a)) ==
          Error::Ok);
  t.set_event_tracer_debug_level(etkit::kEventTracerDebugStats);
  t.create_event_block("Execute");
  CHECK(t.log_evalue(EValue(ts.ints)).ok());
  /* upstream's own setter takes the level back to bytes */
  t.set_event_tracer_debug_level(
      EventTracerDebugLogLevel::kIntermediateOutputs);
  CHECK(t.debug_level() == etkit::DebugLevel::kIntermediateOutputs);
  CHECK(t.log_evalue(EValue(ts.ints)).ok());
  etkit::ETDumpResult r = t.get_etdump_data();
  REQUIRE(r.buf != nullptr);
  CHECK(verified(r.buf, r.size));
  etk_etdump_t *d = open_dump(r.buf, r.size);
  REQUIRE(d != nullptr);
  etk_etdump_value_t v0, v1;
  REQUIRE(etk_etdump_event_value(d, 0, &v0) == ETK_OK);
  REQUIRE(etk_etdump_event_value(d, 1, &v1) == ETK_OK);
  CHECK(etk_etdump_tensor_is_stats(d, &v0.tensor));
  CHECK(!etk_etdump_tensor_is_stats(d, &v1.tensor));
  CHECK_EQ_INT(v1.tensor.scalar_type, static_cast<int>(ScalarType::Int));
  CHECK_EQ_INT(v1.tensor.offset, 128);
  CHECK(std::memcmp(debug_a + 128, ts.ints.const_data_ptr(), 16) == 0);
  etk_etdump_close(d);
}

namespace {

/* Method-like runs: the Execute block, Method::execute, three operators. */
void profile_runs(executorch::runtime::EventTracer &t, int runs) {
  static const char *const ops[3] = {
      "native_call_mul.out", "native_call_add.out", "native_call_relu.out"};
  for (int r = 0; r < runs; r++) {
    t.create_event_block("Execute");
    auto m = t.start_profiling("Method::execute");
    for (uint32_t i = 0; i < 3; i++) {
      t.set_chain_debug_handle(0, i);
      auto op = t.start_profiling("OPERATOR_CALL");
      t.end_profiling(t.start_profiling(ops[i]));
      t.end_profiling(op);
    }
    t.set_chain_debug_handle(-1, 0);
    t.end_profiling(m);
  }
}

void profile_runs_c(etk_recorder_t *rec, int runs) {
  static const char *const ops[3] = {
      "native_call_mul.out", "native_call_add.out", "native_call_relu.out"};
  for (int r = 0; r < runs; r++) {
    etk_recorder_begin_block(rec, "Execute");
    etk_recorder_scope_t m =
        etk_recorder_begin_named(rec, "Method::execute", -1, 0);
    for (uint32_t i = 0; i < 3; i++) {
      etk_recorder_scope_t op =
          etk_recorder_begin_named(rec, "OPERATOR_CALL", 0, i);
      etk_recorder_scope_t k = etk_recorder_begin_named(rec, ops[i], 0, i);
      etk_recorder_end(rec, &k);
      etk_recorder_end(rec, &op);
    }
    etk_recorder_end(rec, &m);
  }
}

/* The counts of every key of a stats dump, through the inspector. */
std::vector<uint64_t> key_counts(const void *buf, size_t len,
                                 uint64_t *refused) {
  std::vector<uint64_t> counts;
  etk_inspector_t *insp = nullptr;
  if (etk_inspector_open_memory(buf, len, nullptr, &insp, nullptr) != ETK_OK)
    return counts;
  etk_latency_dump_info_t info;
  if (etk_latency_dump_find(etk_inspector_etdump(insp), &info)) {
    *refused = info.refused;
    for (size_t k = 0; k < info.keys; k++) {
      etk_inspector_latency_row_t row;
      if (etk_inspector_latency_rows(insp, &info, k, &row, nullptr) == ETK_OK)
        counts.push_back(row.count);
    }
  }
  etk_inspector_close(insp);
  return counts;
}

}  // namespace

ETK_TEST(stats_profile_is_the_c_recorders_stats_mode) {
  etkit::ETDumpTracer t(arena_a, sizeof arena_a,
                        stepped(etkit::ProfileMode::kStats));
  CHECK(t.profile_mode() == etkit::ProfileMode::kStats);
  CHECK(etk_recorder_profile_mode(t.recorder()) == ETK_PROFILE_MODE_STATS);
  profile_runs(t, 250);
  CHECK_EQ_U64(t.get_num_blocks(), 1);
  CHECK_EQ_U64(t.error_count(), 0);
  etkit::ETDumpResult a = t.get_etdump_data();
  REQUIRE(a.buf != nullptr);
  CHECK(verified(a.buf, a.size));
  uint64_t refused = 99;
  std::vector<uint64_t> counts = key_counts(a.buf, a.size, &refused);
  CHECK_EQ_U64(counts.size(), 7); /* Method::execute, 3 x (op, kernel) */
  for (uint64_t c : counts) CHECK_EQ_U64(c, 250);
  CHECK_EQ_U64(refused, 0);

  etk_recorder_t *rec = c_recorder(arena_b, sizeof arena_b, 1);
  REQUIRE(rec != nullptr);
  profile_runs_c(rec, 250);
  const uint8_t *b = nullptr;
  size_t blen = 0;
  REQUIRE(etk_recorder_finish(rec, &b, &blen) == ETK_OK);
  CHECK(a.size == blen && std::memcmp(a.buf, b, blen) == 0);
}

ETK_TEST(stats_profile_refuses_keys_without_a_slot) {
  for (etkit::WhenFull when :
       {etkit::WhenFull::kStop, etkit::WhenFull::kRing}) {
    Tensors ts;
    etkit::ETDumpTracerConfig cfg = stepped(etkit::ProfileMode::kStats);
    cfg.stats_keys = 3;
    cfg.when_full = when;
    etkit::ETDumpTracer t(arena_a, sizeof arena_a, cfg);
    REQUIRE(t.init_error() == Error::Ok);
    REQUIRE(t.set_debug_buffer(Span<uint8_t>(debug_a, sizeof debug_a)) ==
            Error::Ok);
    t.create_event_block("Execute");
    CHECK(t.log_evalue(EValue(ts.ints)).ok()); /* kept through the drops */
    profile_runs(t, 10);
    /* 3 keys of 7 fit: the other 4 keys' 10 durations each are dropped */
    CHECK_EQ_U64(t.dropped_events(), 40);
    CHECK_EQ_U64(t.error_count(), 40);
    CHECK(t.last_error() == Error::OutOfResources);
    etkit::ETDumpResult r = t.get_etdump_data();
    REQUIRE(r.buf != nullptr);
    CHECK(verified(r.buf, r.size));
    uint64_t refused = 0;
    std::vector<uint64_t> counts = key_counts(r.buf, r.size, &refused);
    CHECK_EQ_U64(counts.size(), 3);
    for (uint64_t c : counts) CHECK_EQ_U64(c, 10);
    CHECK_EQ_U64(refused, 40);
    etk_etdump_t *d = open_dump(r.buf, r.size);
    REQUIRE(d != nullptr);
    etk_etdump_value_t v;
    REQUIRE(etk_etdump_event_value(d, 0, &v) == ETK_OK);
    CHECK(v.present && v.tensor.offset == 0); /* not discarded by the ring */
    etk_etdump_close(d);
  }
}

ETK_TEST(set_profile_mode_rules) {
  etkit::ETDumpTracer t(arena_a, sizeof arena_a);
  CHECK(t.profile_mode() == etkit::ProfileMode::kFull);
  CHECK(t.set_profile_mode(etkit::ProfileMode::kStats, 0.5) ==
        Error::InvalidArgument);
  CHECK(t.set_profile_mode(etkit::ProfileMode::kStats, std::nan("")) ==
        Error::InvalidArgument);
  CHECK(t.set_profile_mode(etkit::ProfileMode::kStats, 0.0,
                           ETK_LATENCY_MAX_KEYS + 1) == Error::InvalidArgument);
  CHECK(t.set_profile_mode(static_cast<etkit::ProfileMode>(7)) ==
        Error::InvalidArgument);
  CHECK(t.profile_mode() == etkit::ProfileMode::kFull);
  /* a C sink given before the switch is the recorder's after it */
  struct Count {
    size_t bytes = 0;
    static int write(void *ctx, const void *, size_t n, uint64_t *offset) {
      *offset = static_cast<Count *>(ctx)->bytes;
      static_cast<Count *>(ctx)->bytes += n;
      return ETK_OK;
    }
  } sink;
  REQUIRE(t.set_data_sink(etk_data_sink_t{Count::write, &sink}) == Error::Ok);
  REQUIRE(t.set_profile_mode(etkit::ProfileMode::kStats, 0.05, 16) ==
          Error::Ok);
  const etk_latency_table *table = etk_recorder_latency_table(t.recorder());
  REQUIRE(table != nullptr);
  CHECK_EQ_U64(table->capacity, 16);
  CHECK(table->relative_error == 0.05);
  Tensors ts;
  t.create_event_block("Execute");
  CHECK(t.log_evalue(EValue(ts.ints)).ok());
  CHECK_EQ_U64(sink.bytes, 16);
  /* once something is recorded: refused until reset() */
  CHECK(t.set_profile_mode(etkit::ProfileMode::kFull) == Error::InvalidState);
  CHECK(t.profile_mode() == etkit::ProfileMode::kStats);
  t.reset();
  CHECK(t.set_profile_mode(etkit::ProfileMode::kFull) == Error::Ok);
  CHECK(etk_recorder_latency_table(t.recorder()) == nullptr);

  /* an arena with no room for the table: the old mode, still recording */
  static uint8_t small[24 * 1024];
  etkit::ETDumpTracerConfig cfg;
  cfg.max_strings = 64;
  etkit::ETDumpTracer s(small, sizeof small, cfg);
  REQUIRE(s.init_error() == Error::Ok);
  CHECK(s.set_profile_mode(etkit::ProfileMode::kStats, 0.0, 4096) ==
        Error::OutOfResources);
  CHECK(s.profile_mode() == etkit::ProfileMode::kFull);
  profile_runs(s, 1);
  etkit::ETDumpResult r = s.get_etdump_data();
  CHECK(r.buf != nullptr && verified(r.buf, r.size));
  /* and a config the arena cannot hold: an error, not an abort */
  cfg.profile_mode = etkit::ProfileMode::kStats;
  cfg.stats_keys = 4096;
  etkit::ETDumpTracer bad(small, sizeof small, cfg);
  CHECK(bad.init_error() == Error::InvalidArgument);
  profile_runs(bad, 1);
  CHECK(bad.get_etdump_data().buf == nullptr);
}

int main(int argc, char **argv) {
  executorch::runtime::runtime_init();
  return etk_test_main(argc, argv);
}
