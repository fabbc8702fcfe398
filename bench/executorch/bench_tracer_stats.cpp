/*
 * bench_tracer_stats.cpp - what an operator event costs etkit's C++ tracer
 * (etkit::ETDumpTracer through upstream's virtual EventTracer interface) in
 * the stats profile mode, against the full mode, on this host.
 *
 * An "operator event" is one start_profiling/end_profiling pair by name, as
 * upstream's Method makes it per instruction; the run cycles through 16
 * instructions x 2 names (OPERATOR_CALL and the kernel's), 32 keys, with
 * the chain and debug handle set per instruction.  The clock is a counter
 * advancing by a pseudo-random 1..64 us step, so the sketches see spread
 * durations (two decades) and the figure is the tracer's own work, not the
 * clock's.
 *
 *   bench_tracer_stats            one line per figure "<name> <value> <unit>"
 *   bench_tracer_stats callgrind stats|full N
 *                                 only N events (at most 100000) in that
 *                                 mode in measured_events, for callgrind
 *                                 --toggle-collect='*measured_events*'
 *                                 (instructions / N = per event)
 * Each timing is the best of ROUNDS rounds of EVENTS events, the modes
 * alternating round by round.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <executorch/runtime/platform/runtime.h>

#include "etkit/executorch_event_tracer.hpp"
#include "etkit/sketch.h"

using executorch::runtime::EventTracer;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::Span;

namespace {

constexpr uint32_t EVENTS = 32768; /* a multiple of the 32 keys */
constexpr int ROUNDS = 30;
constexpr uint32_t INSTRUCTIONS = 16;

uint64_t now_ticks, rng = 88172645463325252ull;
uint64_t step_clock(void *) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return now_ticks += 1000 + (rng & 63) * 1000;
}

const char *const kKernels[INSTRUCTIONS] = {
    "native_call_convolution.out",
    "native_call_relu.out",
    "native_call_max_pool2d_with_indices.out",
    "native_call_add.out",
    "native_call_mul.out",
    "native_call_sub.out",
    "native_call_addmm.out",
    "native_call_view_copy.out",
    "native_call_permute_copy.out",
    "native_call_softmax.out",
    "native_call_mean.out",
    "native_call_clone.out",
    "native_call_cat.out",
    "native_call_sigmoid.out",
    "native_call_tanh.out",
    "native_call_div.out"};

/* `events` operator events (half OPERATOR_CALL, half kernel scopes). */
__attribute__((noinline)) void measured_events(EventTracer *t,
                                               uint32_t events) {
  for (uint32_t e = 0; e < events; e += 2) {
    uint32_t i = (e / 2) % INSTRUCTIONS;
    t->set_chain_debug_handle(0, i);
    EventTracerEntry op = t->start_profiling("OPERATOR_CALL");
    EventTracerEntry k = t->start_profiling(kKernels[i]);
    t->end_profiling(k);
    t->end_profiling(op);
  }
  t->set_chain_debug_handle(-1, 0);
}

double seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

etkit::ETDumpTracerConfig config(etkit::ProfileMode mode) {
  etkit::ETDumpTracerConfig c;
  c.clock = step_clock;
  c.profile_mode = mode;
  return c;
}

/* One round: a fresh dump, a warm block, EVENTS events timed. */
double round_ns(etkit::ETDumpTracer &t) {
  t.reset();
  t.create_event_block("Execute");
  measured_events(&t, 64); /* names interned, keys made */
  double t0 = seconds();
  measured_events(&t, EVENTS);
  double t1 = seconds();
  return (t1 - t0) * 1e9 / EVENTS;
}

}  // namespace

int main(int argc, char **argv) {
  executorch::runtime::runtime_init();
  /* full mode keeps every event: 32 bytes of record and ~100 of reserved
   * output each, so its arena is sized for a round; stats mode's is not */
  static uint8_t full_arena[40u << 20], stats_arena[512u << 10];
  etkit::ETDumpTracer stats(stats_arena, sizeof stats_arena,
                            config(etkit::ProfileMode::kStats));
  if (stats.init_error() != executorch::runtime::Error::Ok) {
    std::fprintf(stderr,
                 "bench_tracer_stats: the stats tracer did not start\n");
    return 2;
  }
  etkit::ETDumpTracer full(full_arena, sizeof full_arena,
                           config(etkit::ProfileMode::kFull));
  if (argc == 4 && std::strcmp(argv[1], "callgrind") == 0) {
    etkit::ETDumpTracer &t = std::strcmp(argv[2], "full") == 0 ? full : stats;
    uint32_t n = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
    if (n > 100000) n = 100000; /* what the full arena holds */
    t.create_event_block("Execute");
    measured_events(&t, 64); /* outside the measured call: warm keys */
    measured_events(&t, n);
    std::printf("callgrind_events %u events (%s mode)\n", n,
                &t == &full ? "full" : "stats");
    return t.dropped_events() == 0 ? 0 : 2;
  }
  double best_stats = 1e30, best_full = 1e30;
  for (int r = 0; r < ROUNDS; r++) {
    double s = round_ns(stats), f = round_ns(full);
    if (s < best_stats) best_stats = s;
    if (f < best_full) best_full = f;
  }
  if (stats.dropped_events() != 0 || full.dropped_events() != 0) {
    std::fprintf(stderr, "bench_tracer_stats: events were dropped\n");
    return 2;
  }
  etkit::ETDumpResult r = stats.get_etdump_data();
  const etk_latency_table *table = etk_recorder_latency_table(stats.recorder());
  std::printf("tracer_stats_event_ns %.2f ns\n", best_stats);
  std::printf("tracer_full_event_ns %.2f ns\n", best_full);
  std::printf("tracer_stats_keys %u keys\n", table ? table->entries : 0u);
  std::printf("tracer_stats_dump_bytes %zu B\n", r.size);
  std::printf("tracer_stats_arena_bytes %zu B\n", sizeof stats_arena);
  return 0;
}
