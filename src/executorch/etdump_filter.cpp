/*
 * etdump_filter.cpp - upstream's ETDumpFilter (which delegate intermediate
 * outputs ETDumpGen leaves out) with std::regex instead of RE2.
 *
 * PURPOSE
 *   set_delegation_intermediate_output_filter() takes any
 *   EventTracerFilterBase; upstream ships this one, so applications that
 *   build one must find it.  filter() answers true ("leave it out") for a
 *   name that fully matches one of the patterns (every name when there are
 *   none) and for an integer id in [range_start, range_end) (every id while
 *   the range is unset), as upstream's etdump_filter.cpp does.
 *
 * DATA LAYOUT
 *   The compiled expressions live behind a pointer (Patterns), so that the
 *   header does not pull <regex> into every file that includes it.  In its
 *   own file: an application that never builds a filter links no regex
 *   code (the archive member is not pulled in).
 *
 * INVARIANTS
 *   - A pattern that does not compile is refused (Error::InvalidArgument)
 *     and not added; where exceptions are disabled std::regex aborts
 *     instead, which docs/compatibility.md says.
 */
#include <executorch/devtools/etdump/etdump_filter.h>

#include <regex>
#include <string>

namespace executorch {
namespace etdump {

using ::executorch::runtime::DelegateDebugIntId;
using ::executorch::runtime::Error;
using ::executorch::runtime::kUnsetDelegateDebugIntId;

struct ETDumpFilter::Patterns {
  std::vector<std::regex> list;
};

ETDumpFilter::ETDumpFilter() : patterns_(new Patterns()) {}

ETDumpFilter::~ETDumpFilter() = default;

Result<bool> ETDumpFilter::add_regex(string_view pattern) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  try {
    patterns_->list.emplace_back(std::string(pattern), std::regex::ECMAScript);
  } catch (const std::regex_error &) {
    return Error::InvalidArgument;
  }
#else
  patterns_->list.emplace_back(std::string(pattern), std::regex::ECMAScript);
#endif
  return true;
}

Result<bool> ETDumpFilter::set_debug_handle_range(size_t start, size_t end) {
  if (start >= end) return Error::InvalidArgument;
  range_start_ = start;
  range_end_ = end;
  return true;
}

Result<bool> ETDumpFilter::filter(const char *name,
                                  DelegateDebugIntId delegate_debug_index) {
  if ((name == nullptr) == (delegate_debug_index == kUnsetDelegateDebugIntId))
    return Error::InvalidArgument;
  if (name != nullptr) {
    if (patterns_->list.empty()) return true;
    for (const std::regex &re : patterns_->list)
      if (std::regex_match(name, re)) return true;
    return false;
  }
  if (range_start_ == 0 && range_end_ == 0) return true;
  if (delegate_debug_index < 0) return false;
  size_t index = static_cast<size_t>(delegate_debug_index);
  return index >= range_start_ && index < range_end_;
}

size_t ETDumpFilter::get_n_regex() const {
  return patterns_->list.size();
}

}  // namespace etdump
}  // namespace executorch
