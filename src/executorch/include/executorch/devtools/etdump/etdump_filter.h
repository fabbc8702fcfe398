/*
 * etdump_filter.h - upstream's ETDumpFilter at upstream's path: which
 * delegate intermediate outputs ETDumpGen leaves out.  filter() is true
 * ("leave it out") for a name that fully matches one of the regular
 * expressions (all names when there are none), or for an integer id
 * inside [start, end) of set_debug_handle_range (all ids when no range
 * is set).  Upstream compiles the patterns with RE2; etkit uses
 * std::regex (ECMAScript grammar), which agrees on the common syntax
 * (docs/compatibility.md).  An invalid pattern is Error::InvalidArgument
 * (in a build without exceptions std::regex aborts on one instead).
 */
#ifndef ETKIT_UPSTREAM_ETDUMP_FILTER_H
#define ETKIT_UPSTREAM_ETDUMP_FILTER_H

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace etdump {

using ::executorch::runtime::Result;
using std::string_view;

class ETDumpFilter : public ::executorch::runtime::EventTracerFilterBase {
 public:
  ETDumpFilter();
  ~ETDumpFilter() override;

  /* true, or Error::InvalidArgument for a pattern that does not compile. */
  Result<bool> add_regex(string_view pattern);
  /* true, or Error::InvalidArgument when start >= end. */
  Result<bool> set_debug_handle_range(size_t start, size_t end);
  /* Exactly one of name and delegate_debug_index must be set
   * (Error::InvalidArgument otherwise). */
  Result<bool> filter(
      const char *name,
      ::executorch::runtime::DelegateDebugIntId delegate_debug_index) override;
  size_t get_n_regex() const;

 private:
  struct Patterns; /* the compiled expressions (etdump_filter.cpp) */
  std::unique_ptr<Patterns> patterns_;
  size_t range_start_ = 0;
  size_t range_end_ = 0;
};

}  // namespace etdump
}  // namespace executorch

#endif  // ETKIT_UPSTREAM_ETDUMP_FILTER_H
