/* consumer_executorch.cpp - a program outside the etkit tree that uses the
 * installed adapter (etkit::ETDumpTracer) through upstream's EventTracer
 * interface, linked with an ExecuTorch runtime: it records one block with
 * an operator event and a delegate event, finishes the dump and checks its
 * framing ("ED00" after the size prefix); then the same with upstream's
 * spelling (executorch::etdump::ETDumpGen from the installed
 * executorch/devtools/etdump/etdump_flatcc.h, heap mode, result.buf
 * freed by the caller).  Prints "blocks 1", "etdump ok" and "etdumpgen
 * ok". */
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <executorch/runtime/platform/runtime.h>

#include <executorch/devtools/etdump/etdump_flatcc.h>

#include <cstdlib>

#include <etkit/executorch_event_tracer.hpp>

int main() {
  executorch::runtime::runtime_init();
  static uint8_t arena[256 * 1024];
  etkit::ETDumpTracer tracer(
      executorch::runtime::Span<uint8_t>(arena, sizeof arena));
  executorch::runtime::EventTracer *et = &tracer;
  et->create_event_block("Execute");
  et->set_chain_debug_handle(0, 1);
  et->end_profiling(et->start_profiling("OPERATOR_CALL"));
  et->end_profiling_delegate(et->start_profiling_delegate(nullptr, 3));
  std::printf("blocks %zu\n", tracer.get_num_blocks());
  etkit::ETDumpResult r = tracer.get_etdump_data();
  if (r.buf == nullptr || r.size < 12 || tracer.error_count() != 0 ||
      std::memcmp(static_cast<const uint8_t *>(r.buf) + 8, "ED00", 4) != 0) {
    std::printf("etdump bad\n");
    return 1;
  }
  std::printf("etdump ok\n");
  executorch::etdump::ETDumpGen etdump_gen;
  et = &etdump_gen;
  et->create_event_block("Execute");
  et->end_profiling(et->start_profiling("OPERATOR_CALL"));
  executorch::etdump::ETDumpResult g = etdump_gen.get_etdump_data();
  if (g.buf == nullptr || g.size < 12 ||
      std::memcmp(static_cast<const uint8_t *>(g.buf) + 8, "ED00", 4) != 0) {
    std::printf("etdumpgen bad\n");
    return 1;
  }
  std::free(g.buf);
  std::printf("etdumpgen ok\n");
  return 0;
}
