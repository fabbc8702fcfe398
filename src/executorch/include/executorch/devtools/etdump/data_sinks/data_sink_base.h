/*
 * data_sink_base.h - upstream's DataSinkBase at upstream's path: the class
 * every ETDumpGen data sink derives from, with upstream's two pure virtual
 * methods (write(), get_used_bytes()).  It is an etkit::DataSink too, so
 * etkit's tracer writes through it; a sink written for upstream's
 * ETDumpGen plugs in unchanged, and `class DataSinkBase;` declares it.
 */
#ifndef ETKIT_UPSTREAM_DATA_SINK_BASE_H
#define ETKIT_UPSTREAM_DATA_SINK_BASE_H

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>

#include "etkit/executorch_event_tracer.hpp"

namespace executorch {
namespace etdump {

class DataSinkBase : public ::etkit::DataSink {
 public:
  ~DataSinkBase() override = default;
  /* Stores the bytes and returns the offset a reader finds them at
   * (Error::OutOfResources when full). */
  ::executorch::runtime::Result<size_t> write(const void *ptr,
                                              size_t length) override = 0;
  size_t get_used_bytes() const override = 0;
};

}  // namespace etdump
}  // namespace executorch

#endif  // ETKIT_UPSTREAM_DATA_SINK_BASE_H
