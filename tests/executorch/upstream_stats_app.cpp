/*
 * upstream_stats_app.cpp - an application built against upstream's runtime
 * subset (../shared/third_party/executorch-runtime) that runs a small
 * program many times with etkit's tracer in its long-run modes: the stats
 * profile mode (a latency sketch per operator key) and the STATS debug
 * level (13 values per logged tensor), through upstream's ETDumpGen and
 * through the native etkit::ETDumpTracer.
 *
 * Upstream's Program and Method are not in the subset, so MethodLike
 * makes, in upstream's order, the calls Method::execute and the generated
 * kernel wrappers make on the tracer (runtime/executor/method.cpp,
 * event_tracer_hooks.h): create_event_block("Execute"), the
 * "Method::execute" scope, per instruction the instruction scope
 * (set_chain_debug_handle), the OPERATOR_CALL scope (only above
 * kProfileMethodOnly), the kernel's "native_call_<op>" scope with the
 * kernel run inside it and its output logged at kIntermediateOutputs, then
 * the program output at kProgramOutputs; before the runs, load_method's
 * "Default" block and its "Method::init" scope.  The kernels compute real
 * tensors (mul, add, relu, gt) from an input that changes every run.
 *
 *   upstream_stats_app DIR
 * writes into DIR (check_upstream_stats.cmake reads them):
 *   gen_N.etdp      ETDumpGen default-constructed (heap, as upstream's
 *                   docs give Module one), set_profile_mode(kStats), N runs
 *   static_N.etdp   ETDumpGen over a static buffer with the native config
 *                   (kStats at 2%), N runs: nothing allocated
 *   native_N.etdp   etkit::ETDumpTracer, kStats from its config, N runs
 *   full_N.etdp     ETDumpGen in full mode, N runs (for the sizes)
 *   for N in 100 and 10000 (full: 100 only);
 *   gen_debug.etdp + gen_debug.bin   ETDumpGen, full profile, debug level
 *                   set_event_tracer_debug_level(etkit::kEventTracerDebugStats)
 *   native_debug.etdp + native_debug.bin   ETDumpTracer, kStats profile
 *                   and set_debug_level(DebugLevel::kStats)
 *   *_debug.tensors: every logged tensor's own bytes, in log order, each
 *                   after a line "dtype numel" (f4 or b1) in *_debug.txt
 * Exits 1 on a broken promise (printed), 2 on a usage error.
 */
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/testing_util/tensor_factory.h>
#include <executorch/runtime/platform/runtime.h>

#include "app_check.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::runtime::EValue;
using executorch::runtime::EventTracer;
using executorch::runtime::EventTracerDebugLogLevel;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::EventTracerProfilingLevel;
using executorch::runtime::LoggedEValueType;
using executorch::runtime::Span;
using executorch::runtime::testing::TensorFactory;

namespace {

constexpr int kRows = 8, kCols = 32, kNumel = kRows * kCols;

/* Where the logged tensors' own bytes go (the STATS runs), or nowhere. */
struct TensorLog {
  FILE *bytes = nullptr;
  FILE *index = nullptr;
  void add(const Tensor &t) {
    if (bytes == nullptr) return;
    const char *dtype = t.scalar_type() == ScalarType::Bool ? "b1" : "f4";
    std::fprintf(index, "%s %zu\n", dtype, static_cast<size_t>(t.numel()));
    std::fwrite(t.const_data_ptr(), 1, t.nbytes(), bytes);
  }
};

/* upstream's EventTracerProfileOpScope */
class OpScope {
 public:
  OpScope(EventTracer *t, const char *name) : t_(t) {
    if (t_->event_tracer_profiling_level() >
        EventTracerProfilingLevel::kProfileMethodOnly)
      e_ = t_->start_profiling(name);
  }
  ~OpScope() {
    if (t_->event_tracer_profiling_level() >
        EventTracerProfilingLevel::kProfileMethodOnly)
      t_->end_profiling(e_);
  }

 private:
  EventTracer *t_;
  EventTracerEntry e_{};
};

/* A four-instruction program: y0 = x * w, y1 = y0 + b, y2 = relu(y1),
 * y3 = y2 > 0.5 (the program's output). */
class MethodLike {
 public:
  MethodLike()
      : x_(tf_.zeros({kRows, kCols})),
        w_(tf_.zeros({kRows, kCols})),
        b_(tf_.zeros({kRows, kCols})),
        y0_(tf_.zeros({kRows, kCols})),
        y1_(tf_.zeros({kRows, kCols})),
        y2_(tf_.zeros({kRows, kCols})),
        y3_(tb_.zeros({kRows, kCols})) {
    float *w = w_.mutable_data_ptr<float>(), *b = b_.mutable_data_ptr<float>();
    for (int i = 0; i < kNumel; i++) {
      w[i] = 0.25f + static_cast<float>(i % 7) * 0.5f;
      b[i] = static_cast<float>((i * 37) % 11) * 0.125f - 0.6f;
    }
  }
  /* A different input every run: a ramp with zeros, negatives, and on
   * run 2 a NaN and an infinity. */
  void set_input(uint32_t run) {
    float *x = x_.mutable_data_ptr<float>();
    for (int i = 0; i < kNumel; i++)
      x[i] = i % 9 == 0 ? 0.0f
                        : static_cast<float>((i * 13 + run * 5) % 41) * 0.1f -
                              1.7f - static_cast<float>(run) * 0.01f;
    if (run == 2) {
      x[5] = std::nanf("");
      x[17] = -INFINITY;
    }
  }
  void execute(EventTracer *t, TensorLog *log) {
    t->create_event_block("Execute");
    EventTracerEntry method = t->start_profiling("Method::execute");
    const float *x = x_.const_data_ptr<float>();
    const float *w = w_.const_data_ptr<float>();
    const float *b = b_.const_data_ptr<float>();
    float *y0 = y0_.mutable_data_ptr<float>();
    float *y1 = y1_.mutable_data_ptr<float>();
    float *y2 = y2_.mutable_data_ptr<float>();
    bool *y3 = y3_.mutable_data_ptr<bool>();
    instruction(t, 0, "native_call_mul.out", y0_, log, [&] {
      for (int i = 0; i < kNumel; i++) y0[i] = x[i] * w[i];
    });
    instruction(t, 1, "native_call_add.out", y1_, log, [&] {
      for (int i = 0; i < kNumel; i++) y1[i] = y0[i] + b[i];
    });
    instruction(t, 2, "native_call_relu.out", y2_, log, [&] {
      for (int i = 0; i < kNumel; i++) y2[i] = y1[i] > 0.0f ? y1[i] : 0.0f;
    });
    instruction(t, 3, "native_call_gt.Scalar_out", y3_, log, [&] {
      for (int i = 0; i < kNumel; i++) y3[i] = y2[i] > 0.5f;
    });
    t->end_profiling(method);
    if (t->event_tracer_debug_level() >=
        EventTracerDebugLogLevel::kProgramOutputs) {
      t->log_evalue(EValue(y3_), LoggedEValueType::kProgramOutput);
      if (log != nullptr) log->add(y3_);
    }
  }

 private:
  template <typename Kernel>
  void instruction(EventTracer *t, uint32_t index, const char *kernel_name,
                   Tensor &out, TensorLog *log, Kernel kernel) {
    t->set_chain_debug_handle(0,
                              index); /* EventTracerProfileInstructionScope */
    {
      OpScope op(t, "OPERATOR_CALL");
      OpScope k(t, kernel_name); /* the generated wrapper's scope */
      kernel();
      if (t->event_tracer_debug_level() >=
          EventTracerDebugLogLevel::kIntermediateOutputs) {
        EValue v(out);
        t->log_evalue(v, LoggedEValueType::kIntermediateOutput);
        if (log != nullptr) log->add(out);
      }
    }
    t->set_chain_debug_handle(executorch::runtime::kUnsetChainId,
                              executorch::runtime::kUnsetDebugHandle);
  }

  TensorFactory<ScalarType::Float> tf_;
  TensorFactory<ScalarType::Bool> tb_;
  Tensor x_, w_, b_, y0_, y1_, y2_, y3_;
};

std::string path_of(const char *dir, const std::string &name) {
  return std::string(dir) + "/" + name;
}

/* Program::load_method's calls (the "Default" block, Method::init), then
 * `runs` executes. */
void run(MethodLike &m, EventTracer *t, uint32_t runs, TensorLog *log) {
  t->create_event_block("Default");
  t->end_profiling(t->start_profiling("Method::init"));
  for (uint32_t r = 0; r < runs; r++) {
    m.set_input(r);
    m.execute(t, log);
  }
}

/* The tracer ran cleanly; its dump goes to DIR/name.  *bound (optional)
 * receives what the recorder had reserved for it. */
void finish(etkit::ETDumpTracer &t, const char *dir, const std::string &name,
            bool heap, size_t *bound = nullptr) {
  EXPECT(t.init_error() == executorch::runtime::Error::Ok);
  if (bound != nullptr) *bound = etk_recorder_output_bound(t.recorder());
  EXPECT(t.error_count() == 0);
  EXPECT(t.dropped_events() == 0);
  ETDumpResult r = t.get_etdump_data();
  EXPECT(r.buf != nullptr && r.size > 0);
  if (r.buf == nullptr) return;
  EXPECT(write_file(path_of(dir, name).c_str(), r.buf, r.size));
  if (heap) std::free(r.buf);
}

uint64_t fixed_ticks = 0;
/* 1,000 ticks a read: every scope of the native runs lasts a fixed time */
uint64_t fixed_clock(void *) {
  return fixed_ticks += 1000;
}

/* The stats profile mode: ETDumpGen as a runner makes it, over a static
 * buffer with the native config, and the native tracer. */
void stats_profiles(MethodLike &m, const char *dir) {
  size_t bound[2][3]; /* reserved output: [100, 10000][gen, static, native] */
  int at = 0;
  for (uint32_t n : {100u, 10000u}) {
    size_t *b = bound[at++];
    std::string tag = std::to_string(n) + ".etdp";
    {
      ETDumpGen etdump_gen; /* as upstream's docs give Module one */
      EXPECT(etdump_gen.set_profile_mode(etkit::ProfileMode::kStats, 0.01) ==
             executorch::runtime::Error::Ok);
      EXPECT(etdump_gen.profile_mode() == etkit::ProfileMode::kStats);
      run(m, &etdump_gen, n, nullptr);
      /* Default, and one Execute continued by every run */
      EXPECT(etdump_gen.get_num_blocks() == 2);
      finish(etdump_gen, dir, "gen_" + tag, true, &b[0]);
    }
    {
      static uint8_t buffer[256 * 1024];
      etkit::ETDumpTracerConfig cfg;
      cfg.profile_mode = etkit::ProfileMode::kStats;
      cfg.stats_error = 0.02;
      ETDumpGen etdump_gen(Span<uint8_t>(buffer, sizeof buffer), cfg);
      EXPECT(etdump_gen.is_static_etdump());
      run(m, &etdump_gen, n, nullptr);
      finish(etdump_gen, dir, "static_" + tag, false, &b[1]);
    }
    {
      etkit::ETDumpTracerConfig cfg;
      cfg.profile_mode = etkit::ProfileMode::kStats;
      cfg.clock = fixed_clock;
      etkit::ETDumpTracer tracer(cfg);
      run(m, &tracer, n, nullptr);
      finish(tracer, dir, "native_" + tag, true, &b[2]);
    }
  }
  /* the arena the dump needs is the same for 100 runs and for 10000 */
  for (int k = 0; k < 3; k++) EXPECT(bound[0][k] == bound[1][k]);
  ETDumpGen full;
  run(m, &full, 100, nullptr);
  finish(full, dir, "full_100.etdp", true);
}

/* The STATS debug level, each tensor's own bytes kept for the check. */
void stats_debug(MethodLike &m, const char *dir, const char *name,
                 EventTracer *t, Span<uint8_t> debug_buffer,
                 size_t (*used)(EventTracer *)) {
  TensorLog log;
  std::string base = path_of(dir, name);
  log.bytes = std::fopen((base + "_debug.tensors").c_str(), "wb");
  log.index = std::fopen((base + "_debug.txt").c_str(), "w");
  EXPECT(log.bytes != nullptr && log.index != nullptr);
  if (log.bytes == nullptr || log.index == nullptr) return;
  run(m, t, 3, &log);
  std::fclose(log.bytes);
  std::fclose(log.index);
  auto *tracer = static_cast<etkit::ETDumpTracer *>(t);
  /* 5 tensors a run, 13 doubles each, 64-byte aligned: 128 bytes apiece
   * whatever the tensor's size (the tensors are 1 KiB and 256 B) */
  EXPECT(used(t) == 3 * 5 * 128 - (128 - 13 * 8));
  EXPECT(
      write_file((base + "_debug.bin").c_str(), debug_buffer.data(), used(t)));
  finish(*tracer, dir, std::string(name) + "_debug.etdp",
         !tracer->is_static_etdump());
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
  MethodLike m;
  stats_profiles(m, argv[1]);

  alignas(64) static uint8_t debug_a[8192], debug_b[8192];
  {
    /* upstream's setter with etkit's value; full profile mode */
    static uint8_t buffer[256 * 1024];
    ETDumpGen etdump_gen(Span<uint8_t>(buffer, sizeof buffer));
    EXPECT(etdump_gen.set_debug_buffer(Span<uint8_t>(debug_a, sizeof debug_a))
               .ok());
    etdump_gen.set_event_tracer_debug_level(etkit::kEventTracerDebugStats);
    EXPECT(etdump_gen.debug_level() == etkit::DebugLevel::kStats);
    stats_debug(
        m, argv[1], "gen", &etdump_gen, Span<uint8_t>(debug_a, sizeof debug_a),
        [](EventTracer *t) {
          return static_cast<ETDumpGen *>(t)->get_data_sink()->get_used_bytes();
        });
  }
  {
    /* the native names, both long-run modes at once; the debug buffer
     * given before the mode is switched is kept */
    etkit::ETDumpTracer tracer;
    EXPECT(tracer.set_debug_buffer(Span<uint8_t>(debug_b, sizeof debug_b)) ==
           executorch::runtime::Error::Ok);
    EXPECT(tracer.set_profile_mode(etkit::ProfileMode::kStats) ==
           executorch::runtime::Error::Ok);
    tracer.set_debug_level(etkit::DebugLevel::kStats);
    EXPECT(tracer.event_tracer_debug_level() >=
           EventTracerDebugLogLevel::kIntermediateOutputs);
    stats_debug(m, argv[1], "native", &tracer,
                Span<uint8_t>(debug_b, sizeof debug_b), [](EventTracer *t) {
                  return etk_recorder_debug_buffer_used(
                      static_cast<etkit::ETDumpTracer *>(t)->recorder());
                });
  }

  if (failures == 0) std::printf("upstream stats app: ok\n");
  return failures == 0 ? 0 : 1;
}
