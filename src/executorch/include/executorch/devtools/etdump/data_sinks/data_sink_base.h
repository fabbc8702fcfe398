/*
 * data_sink_base.h - upstream's DataSinkBase at upstream's path, as etkit
 * spells it: executorch::etdump::DataSinkBase is etkit::DataSink (the same
 * two pure virtual methods, write() and get_used_bytes()), so a sink
 * written for upstream's ETDumpGen plugs into etkit's unchanged.
 */
#ifndef ETKIT_UPSTREAM_DATA_SINK_BASE_H
#define ETKIT_UPSTREAM_DATA_SINK_BASE_H

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>

#include "etkit/executorch_event_tracer.hpp"

namespace executorch {
namespace etdump {

/* write(ptr, length): stores the bytes, returns the offset a reader finds
 * them at (Error::OutOfResources when full); get_used_bytes(). */
using DataSinkBase = ::etkit::DataSink;

}  // namespace etdump
}  // namespace executorch

#endif  // ETKIT_UPSTREAM_DATA_SINK_BASE_H
