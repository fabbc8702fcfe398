/*
 * executorch_event_tracer.hpp - etkit's ETDump recorder inside upstream's
 * C++ runtime: etkit::ETDumpTracer, a drop-in for ETDumpGen.
 *
 * ExecuTorch's runtime reports what it does through the abstract
 * executorch::runtime::EventTracer (runtime/core/event_tracer.h); upstream's
 * ETDumpGen implements it by building FlatBuffer tables while the model
 * runs and aborts when its buffer is full.  ETDumpTracer implements the same
 * fifteen virtual methods over etkit's C recorder (etkit/recorder.h): it
 * appends compact records while the model runs, builds the ETDump once in
 * get_etdump_data(), never aborts (misuse returns an Error, an event that
 * does not fit is counted and the dump written so far stays valid, with an
 * "etkit:dropped_events=N" block at its end), and writes the bundled-input
 * index that ETDumpGen loses.
 *
 * Upstream's own spelling (executorch::etdump::ETDumpGen, BufferDataSink,
 * FileDataSink, ETDumpFilter, at upstream's header paths) is this class
 * with upstream's return types: src/executorch/include/executorch/devtools/
 * etdump/etdump_flatcc.h, installed with etkit-executorch.
 *
 * The swap to the native name, where a runner used ETDumpGen:
 *
 *   #include <etkit/executorch_event_tracer.hpp>   // was etdump_flatcc.h
 *   etkit::ETDumpTracer etdump_gen;                 // was ETDumpGen
 *   program->load_method(name, &memory_manager, &etdump_gen);
 *   ...
 *   etkit::ETDumpResult r = etdump_gen.get_etdump_data();   // as before
 *   fwrite(r.buf, 1, r.size, f); free(r.buf);  // heap mode: the caller's copy
 *
 * Build: C++17 with -DC10_USING_CUSTOM_GENERATED_MACROS and the ExecuTorch
 * include directories (pkg-config etkit-executorch, or CMake
 * etkit::executorch); the runtime itself is linked as usual.  The runtime calls
 * a tracer only when it is built with ET_EVENT_TRACER_ENABLED
 * (docs/porting.md).
 *
 * Memory: constructed over a caller's buffer (Span or pointer + size) the
 * tracer allocates nothing, ever; default-constructed it allocates one arena
 * (ETDumpTracerConfig::heap_arena_bytes, 8 MiB by default; on a heap
 * without that much, the largest of its halves down to 64 KiB that fits,
 * halved once more to leave room for the copy) at construction and a copy
 * of the dump in get_etdump_data() (which the caller frees, as with
 * ETDumpGen).  Either way the arena is bounded: when it is full the
 * tracer stops and counts (kStop, default) or discards its oldest events
 * and goes on (kRing: the dump then holds the newest events and the count
 * of the discarded ones).
 *
 * Long runs (docs/long-runs.md): ProfileMode::kStats keeps one latency
 * sketch per operator key instead of every event, in a fixed table inside
 * that same arena, so the dump of a million runs is the size of the dump
 * of ten; DebugLevel::kStats (upstream's setter takes it as
 * kEventTracerDebugStats) logs each tensor's 13-value STATS vector instead
 * of its bytes.  Either from the config or, on a tracer someone else made,
 * with set_profile_mode() / set_debug_level():
 *
 *   etkit::ETDumpTracerConfig cfg;
 *   cfg.profile_mode = etkit::ProfileMode::kStats;
 *   cfg.stats_error = 0.01;
 *   etkit::ETDumpTracer tracer(Span<uint8_t>(buf, size), cfg);
 *   tracer.set_debug_level(etkit::DebugLevel::kStats);   // optional
 *
 * Threads: one tracer per thread, as ETDumpGen (no locks).
 */
#ifndef ETKIT_EXECUTORCH_EVENT_TRACER_HPP
#define ETKIT_EXECUTORCH_EVENT_TRACER_HPP

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/span.h>

#include "etkit/recorder.h"
#include "etkit/recorder_calibration.h"

namespace etkit {

/* What get_etdump_data() returns (upstream's ETDumpResult). */
struct ETDumpResult {
  void *buf = nullptr;
  size_t size = 0;
};

/* A destination for tensor bytes (upstream's DataSinkBase): write() stores
 * `length` bytes and returns the offset the reader will find them at, or
 * an error (Error::OutOfResources when full: the event is dropped and
 * counted).  A sink must not call back into the tracer (such calls are
 * refused with Error::InvalidState). */
class DataSink {
 public:
  virtual ~DataSink() = default;
  virtual executorch::runtime::Result<size_t> write(const void *ptr,
                                                    size_t length) = 0;
  virtual size_t get_used_bytes() const = 0;
};

/* What to do when the arena is full. */
enum class WhenFull {
  kStop, /* keep the dump recorded so far, count every later event */
  kRing  /* discard the oldest events (an eighth at a time, counted) and go
            on: the dump holds the newest events */
};

/* Profile modes (etkit/recorder.h "STATS MODE"). */
enum class ProfileMode {
  kFull, /* every profiling event, as ETDumpGen (the default) */
  kStats /* one latency sketch per key (block, name, chain, instruction,
            delegate id): the dump's size no longer grows with the runs */
};

/* Debug levels: upstream's EventTracerDebugLogLevel and etkit's kStats,
 * with upstream's values (kStats = 3, one past upstream's last). */
enum class DebugLevel {
  kNone = 0,
  kProgramOutputs = 1,
  kIntermediateOutputs = 2,
  /* logs what kIntermediateOutputs logs (a runtime compares the level with
   * upstream's, and 3 >= kIntermediateOutputs), but every tensor with data
   * is recorded as its 13-value STATS vector (etkit/tensor_stats.h: DOUBLE,
   * sizes [13], 104 bytes in the data sink) instead of its bytes */
  kStats = 3
};

/* etkit's STATS level in upstream's enum, for a runner that only knows
 * upstream's setter: tracer.set_event_tracer_debug_level(
 * etkit::kEventTracerDebugStats) is tracer.set_debug_level(
 * DebugLevel::kStats).  Upstream's enum has a fixed underlying type, so
 * the value is well defined; upstream's runtime only compares levels with
 * >=, so it logs intermediate and program outputs at this level. */
constexpr executorch::runtime::EventTracerDebugLogLevel kEventTracerDebugStats =
    static_cast<executorch::runtime::EventTracerDebugLogLevel>(
        static_cast<int>(DebugLevel::kStats));

struct ETDumpTracerConfig {
  /* Arena of a default-constructed tracer (ignored with a caller buffer). */
  size_t heap_arena_bytes = size_t(8) << 20;
  /* Distinct names (operator names, delegate ids, block and allocator
   * names) the tracer can hold; about 24 bytes of arena each. */
  uint32_t max_strings = 1024;
  WhenFull when_full = WhenFull::kStop;
  /* Time source; nullptr: executorch::runtime::pal_current_ticks(), the
   * ticks ETDumpGen records (and log_profiling_delegate callers pass). */
  etk_recorder_clock_fn clock = nullptr;
  void *clock_ctx = nullptr;
  /* kStats: a latency sketch per key instead of every profiling event
   * (also set_profile_mode()).  The sketch table is placed in the arena
   * (the caller's buffer, or the heap arena) when the tracer is made. */
  ProfileMode profile_mode = ProfileMode::kFull;
  /* kStats: relative error of the sketches (0 = 1%; else within
   * [ETK_SKETCH_MIN_RELATIVE_ERROR, ETK_SKETCH_MAX_RELATIVE_ERROR]). */
  double stats_error = 0.0;
  /* kStats: keys the table holds (0 = one per 6 KiB of arena, 1 to 1024;
   * at most ETK_LATENCY_MAX_KEYS).  About 1 KiB of arena each, plus about
   * 2 KiB of reserved output for each key used.  The durations of a key
   * that finds no slot or no room are dropped and counted (never an
   * abort; dropped_events() and the dump's markers say how many). */
  uint32_t stats_keys = 0;
};

class ETDumpTracer : public executorch::runtime::EventTracer {
 public:
  using AllocatorID = executorch::runtime::AllocatorID;
  using ChainID = executorch::runtime::ChainID;
  using DebugHandle = executorch::runtime::DebugHandle;
  using DelegateDebugIntId = executorch::runtime::DelegateDebugIntId;
  using EventTracerEntry = executorch::runtime::EventTracerEntry;
  using Error = executorch::runtime::Error;
  template <typename T>
  using Result = executorch::runtime::Result<T>;
  using Tensor = executorch::aten::Tensor;

  /* Heap mode: one arena of config.heap_arena_bytes, allocated now. */
  ETDumpTracer();
  explicit ETDumpTracer(const ETDumpTracerConfig &config);
  /* Caller's buffer (borrowed; must outlive the tracer).  An empty span
   * selects heap mode, as ETDumpGen's default argument does. */
  explicit ETDumpTracer(
      executorch::runtime::Span<uint8_t> buffer,
      const ETDumpTracerConfig &config = ETDumpTracerConfig());
  ETDumpTracer(uint8_t *buffer, size_t size,
               const ETDumpTracerConfig &config = ETDumpTracerConfig());
  ~ETDumpTracer() override;
  ETDumpTracer(const ETDumpTracer &) = delete;
  ETDumpTracer &operator=(const ETDumpTracer &) = delete;

  /* Error::Ok, or why the tracer cannot record (buffer too small for the
   * recorder's context: Error::InvalidArgument; arena allocation failed:
   * Error::MemoryAllocationFailed).  A tracer that is not ok records
   * nothing and returns that error from every call that can. */
  Error init_error() const {
    return init_error_;
  }

  /* ---- EventTracer (event_tracer.h); names are copied, never kept ---- */
  void create_event_block(const char *name) override;
  EventTracerEntry start_profiling(
      const char *name, ChainID chain_id = executorch::runtime::kUnsetChainId,
      DebugHandle debug_handle =
          executorch::runtime::kUnsetDebugHandle) override;
  EventTracerEntry start_profiling_delegate(
      const char *name, DelegateDebugIntId delegate_debug_index) override;
  void end_profiling_delegate(EventTracerEntry event_tracer_entry,
                              const void *metadata = nullptr,
                              size_t metadata_len = 0) override;
  void log_profiling_delegate(const char *name,
                              DelegateDebugIntId delegate_debug_index,
                              et_timestamp_t start_time,
                              et_timestamp_t end_time,
                              const void *metadata = nullptr,
                              size_t metadata_len = 0) override;
  void end_profiling(EventTracerEntry prof_entry) override;
  void track_allocation(AllocatorID id, size_t size) override;
  AllocatorID track_allocator(const char *name) override;
  Result<bool> log_evalue(
      const executorch::runtime::EValue &evalue,
      executorch::runtime::LoggedEValueType evalue_type =
          executorch::runtime::LoggedEValueType::kIntermediateOutput) override;
  Result<bool> log_intermediate_output_delegate(
      const char *name, DelegateDebugIntId delegate_debug_index,
      const Tensor &output) override;
  Result<bool> log_intermediate_output_delegate(
      const char *name, DelegateDebugIntId delegate_debug_index,
      const executorch::runtime::ArrayRef<Tensor> output) override;
  Result<bool> log_intermediate_output_delegate(
      const char *name, DelegateDebugIntId delegate_debug_index,
      const int &output) override;
  Result<bool> log_intermediate_output_delegate(
      const char *name, DelegateDebugIntId delegate_debug_index,
      const bool &output) override;
  Result<bool> log_intermediate_output_delegate(
      const char *name, DelegateDebugIntId delegate_debug_index,
      const double &output) override;
  void set_delegation_intermediate_output_filter(
      executorch::runtime::EventTracerFilterBase *event_tracer_filter) override;

  /* ---- ETDumpGen's own API ---- */
  /* Tensor bytes go to `buffer` (borrowed), 64-byte aligned as upstream's
   * BufferDataSink.  Error::InvalidArgument for a null buffer with a
   * non-zero size. */
  Error set_debug_buffer(executorch::runtime::Span<uint8_t> buffer);
  /* Tensor bytes go to `sink` (borrowed; nullptr: no sink). */
  Error set_data_sink(DataSink *sink);
  DataSink *get_data_sink() const {
    return user_sink_;
  }
  /* The finished ETDump: in heap mode a malloc'd copy the caller frees; with
   * a caller buffer a pointer into it, valid until the next recording call.
   * {nullptr, 0} before the first block (as upstream) or on failure.  The
   * next create_event_block starts a fresh dump. */
  ETDumpResult get_etdump_data();
  size_t get_num_blocks() const;
  bool is_static_etdump() const {
    return heap_arena_ == nullptr;
  }
  /* Forgets everything recorded and the data sink (upstream reset()); keeps
   * the levels, the filter, the chain and the handle. */
  void reset();
  /* Upstream declares clear_builder() without defining it (a call does not
   * link there); here it is reset(). */
  void clear_builder() {
    reset();
  }

  /* ---- etkit's own ---- */
  /* Streaming sink for tensor bytes: write(ctx, data, len, &offset), for
   * instance etk_stream_sink_as_data_sink() or etk_file_sink_as_data_sink()
   * (borrowed). */
  Error set_data_sink(const etk_data_sink_t &sink);
  /* Finishes the dump and hands its bytes to write(ctx, data, len) in one
   * call, without a copy (etk_recorder_finish_stream). */
  Error write_etdump(etk_write_fn write, void *ctx);
  /* Events dropped in the current dump (also written into it). */
  uint32_t dropped_events() const;
  /* Measures the recorder's own cost on this target with its clock
   * (etk_recorder_calibrate, in the arena's free space: nothing recorded,
   * no heap) so that every later dump carries it for `etkit inspect
   * --compensate`; call it before the measured runs.  repetitions 0 = the
   * default (31).  `out` (optional) receives the figures.  The figures are
   * the C recorder's: the virtual calls into this tracer add a little on
   * top. */
  Error calibrate(uint32_t repetitions = 0,
                  etk_recorder_calibration_t *out = nullptr);
  /* Switches to profile mode `mode` (kStats: sketches of
   * `relative_error`, 0 = 1%, in a table of `keys` keys, 0 = the config
   * default) by making the recorder again in the same arena: the data
   * sink, the levels and the filter are kept, a calibration is not (call
   * calibrate() after).  Only before the first block, or after reset():
   * Error::InvalidState once something was recorded.  Error::InvalidArgument
   * for a bad mode, error or key count; Error::OutOfResources when the
   * arena has no room for the table (the mode is then unchanged).  For a
   * default-constructed tracer (upstream's docs give Module
   * std::make_unique<ETDumpGen>(), runners make one): call it before
   * load_method, whose "Default" block is the first block. */
  Error set_profile_mode(ProfileMode mode, double relative_error = 0.0,
                         uint32_t keys = 0);
  ProfileMode profile_mode() const {
    return config_.profile_mode;
  }
  /* upstream's set_event_tracer_debug_level with etkit's kStats too (the
   * two setters are one: the level lives in upstream's base class) */
  void set_debug_level(DebugLevel level) {
    set_event_tracer_debug_level(
        static_cast<executorch::runtime::EventTracerDebugLogLevel>(level));
  }
  DebugLevel debug_level() const {
    return static_cast<DebugLevel>(event_tracer_debug_level_);
  }
  /* Errors met by calls that return void (create_event_block, end_*,
   * track_*, log_profiling_delegate), and the last of them. */
  uint32_t error_count() const {
    return error_count_;
  }
  Error last_error() const {
    return last_error_;
  }
  /* The C recorder underneath (for etk_recorder_stats and the like). */
  etk_recorder_t *recorder() {
    return rec_;
  }

 private:
  void init();
  void restore_sink();
  /* Puts the recorder at ETK_DEBUG_LEVEL_STATS when upstream's level is
   * kEventTracerDebugStats, and back when it is not (a log call's first
   * step: upstream's setter is not virtual). */
  void sync_debug_level() {
    bool stats = event_tracer_debug_level_ == kEventTracerDebugStats;
    if (stats != recorder_stats_) sync_debug_level_now(stats);
  }
  void sync_debug_level_now(bool stats);
  size_t heap_mode_arena(uint8_t **out);
  /* Counts an error of a call returning void (ETK_OK and "filtered" are
   * not errors). */
  void fail(int status) {
    if (status != ETK_OK && status != ETK_RECORDER_FILTERED)
      count_error(status);
  }
  void count_error(int status);
  /* Copies the base class's chain and handle into the recorder when they
   * changed since the last copy. */
  void sync_chain() {
    if (chain_id_ != synced_chain_ || debug_handle_ != synced_handle_)
      sync_chain_now();
  }
  void sync_chain_now();
  void end_failed(const EventTracerEntry &entry, int status);
  EventTracerEntry start_profiling_slow(const char *name, ChainID chain_id,
                                        DebugHandle debug_handle);
  bool wrap_when_full(int status, int attempt, bool counted = true);
  int end_scope(const etk_recorder_scope_t &scope, bool delegate,
                const void *metadata, size_t metadata_len);
  Result<bool> log_value(const char *name, DelegateDebugIntId index,
                         const etk_recorder_value_t &value, bool delegate,
                         bool program_output);
  Result<bool> log_tensors(const char *name, DelegateDebugIntId index,
                           const Tensor *tensors, size_t count, bool list,
                           bool delegate, bool program_output);
  Result<bool> log_delegate_scalar(const char *name, DelegateDebugIntId index,
                                   const etk_recorder_value_t &value);
  static int sink_trampoline(void *ctx, const void *data, size_t len,
                             uint64_t *offset);

  /* Tensors of one log call, converted (sizes and strides as int64). */
  static constexpr size_t kMaxListTensors = 128;
  static constexpr size_t kMaxListDims = 1024;

  etk_recorder_t *rec_ = nullptr;
  uint8_t *heap_arena_ = nullptr;
  uint8_t *arena_ = nullptr;
  size_t arena_size_ = 0;
  ETDumpTracerConfig config_;
  Error init_error_ = Error::Ok;
  Error last_error_ = Error::Ok;
  uint32_t error_count_ = 0;
  DataSink *user_sink_ = nullptr;
  /* The sink last given, to give it again to a recorder made anew
   * (set_profile_mode): which kind, a C sink's struct, a debug buffer. */
  enum class SinkKind { kNone, kUser, kC, kBuffer };
  SinkKind sink_kind_ = SinkKind::kNone;
  etk_data_sink_t c_sink_ = {nullptr, nullptr};
  executorch::runtime::Span<uint8_t> debug_span_;
  bool recorder_stats_ = false; /* the recorder is at ETK_DEBUG_LEVEL_STATS */
  executorch::runtime::EventTracerFilterBase *filter_ = nullptr;
  int32_t synced_chain_ = executorch::runtime::kUnsetChainId;
  uint32_t synced_handle_ = executorch::runtime::kUnsetDebugHandle;
  /* Names start_profiling met, by address (direct-mapped): a hit whose
   * text still matches the interned one skips the recorder's hashing. */
  struct NameSlot {
    const char *key = nullptr;  /* the caller's pointer */
    const char *text = nullptr; /* the interned copy (in the arena) */
    uint32_t id = 0;
    uint32_t len = 0;
  };
  static constexpr size_t kNameSlots = 64;
  static size_t name_slot(const char *name) {
    uintptr_t p = reinterpret_cast<uintptr_t>(name);
    return (p ^ (p >> 6) ^ (p >> 12)) & (kNameSlots - 1);
  }
  NameSlot name_cache_[kNameSlots];
  etk_recorder_tensor_t tensors_[kMaxListTensors];
  int64_t dims_[2 * kMaxListDims];
};

}  // namespace etkit

#endif  // ETKIT_EXECUTORCH_EVENT_TRACER_HPP
