/*
 * etdump_flatcc.h - upstream's ETDumpGen at upstream's path and with
 * upstream's names, over etkit's recorder.
 *
 * An application written for upstream's ETDumpGen builds unchanged with
 * this header first on its include path (pkg-config etkit-executorch or
 * CMake etkit::executorch put it there) and links libetkit_executorch
 * instead of upstream's etdump library:
 *
 *   executorch::etdump::ETDumpGen etdump_gen;         // heap mode
 *   program->load_method(name, &memory_manager, &etdump_gen);
 *   ...
 *   executorch::etdump::ETDumpResult r = etdump_gen.get_etdump_data();
 *   fwrite(r.buf, 1, r.size, f); free(r.buf);          // as upstream
 *
 * ETDumpGen is etkit::ETDumpTracer (include/etkit/executorch_event_tracer.hpp,
 * the native name) with upstream's return types where they differ:
 * set_debug_buffer returns Result<bool> and writes through a BufferDataSink
 * that get_data_sink() returns, set_data_sink(DataSinkBase *) returns
 * nothing.  Differences (docs/compatibility.md): nothing aborts (a buffer
 * smaller than upstream's 128 KiB minimum records what fits; misuse is an
 * Error or is counted), heap mode records into one bounded arena (8 MiB,
 * allocated at construction; the dump copied out by get_etdump_data() is
 * malloc'd and the caller frees it), and a full arena drops and counts
 * events instead of growing.  With a caller's buffer nothing is allocated
 * and result.buf points into that buffer (not to be freed), as upstream.
 *
 * etkit-only additions (no upstream signature changes; docs/long-runs.md):
 * the stats profile mode, from a second constructor taking the native
 * config or, on a default-constructed ETDumpGen (as upstream's docs give
 * Module one), from set_profile_mode(etkit::ProfileMode::kStats, error)
 * before load_method (its "Default" block is the first); the STATS debug level
 * through upstream's own setter,
 * set_event_tracer_debug_level(etkit::kEventTracerDebugStats), or
 * set_debug_level(etkit::DebugLevel::kStats).
 */
#ifndef ETKIT_UPSTREAM_ETDUMP_FLATCC_H
#define ETKIT_UPSTREAM_ETDUMP_FLATCC_H

#include <cstddef>
#include <cstdint>

#include <executorch/devtools/etdump/data_sinks/buffer_data_sink.h>
#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/platform.h>

#include "etkit/executorch_event_tracer.hpp"

#define ETDUMP_VERSION 0

namespace executorch {
namespace etdump {

using ::executorch::runtime::DelegateDebugIntId;
using ::executorch::runtime::EventTracerFilterBase;
using ::executorch::runtime::Result;

/* { void *buf; size_t size; } */
using ETDumpResult = ::etkit::ETDumpResult;

class ETDumpGen : public ::etkit::ETDumpTracer {
 public:
  /* An empty span (the default): heap mode.  Otherwise the caller's
   * buffer (borrowed) holds everything: no allocation, ever. */
  ETDumpGen(::executorch::runtime::Span<uint8_t> buffer = {nullptr, (size_t)0});
  /* etkit's: the same, with the native tracer's config as given (its
   * profile mode, sketch error and keys, name slots, clock, ring mode;
   * max_strings is not sized to the buffer here).  An empty span: heap
   * mode with config.heap_arena_bytes. */
  ETDumpGen(::executorch::runtime::Span<uint8_t> buffer,
            const ::etkit::ETDumpTracerConfig &config);
  ~ETDumpGen() override;

  /* Tensor bytes into `buffer` through a 64-byte aligned BufferDataSink,
   * which becomes the data sink; true, or Error::InvalidArgument (null
   * buffer with a non-zero size). */
  Result<bool> set_debug_buffer(::executorch::runtime::Span<uint8_t> buffer);
  /* Tensor bytes to `data_sink` (borrowed; nullptr: none). */
  void set_data_sink(DataSinkBase *data_sink);
  /* The sink set_debug_buffer() or set_data_sink() gave (nullptr after
   * reset(), or when none). */
  DataSinkBase *get_data_sink();

  /* Inherited with upstream's names: get_etdump_data(), get_num_blocks(),
   * is_static_etdump(), reset(), clear_builder() and every EventTracer
   * method (log_evalue's type defaults to kIntermediateOutput). */

 private:
  BufferDataSink buffer_data_sink_;
  DataSinkBase *data_sink_ = nullptr; /* the tracer's, when it is still set */
};

}  // namespace etdump
}  // namespace executorch

namespace torch {
namespace executor {
/* Deprecated upstream too: the names before the ::executorch namespaces. */
using etdump_result = ::executorch::etdump::ETDumpResult;
using ::executorch::etdump::ETDumpGen;
}  // namespace executor
}  // namespace torch

#endif  // ETKIT_UPSTREAM_ETDUMP_FLATCC_H
