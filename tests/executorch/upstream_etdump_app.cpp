/*
 * upstream_etdump_app.cpp - an application written for upstream's
 * ETDumpGen, as upstream's docs/source/etdump.md shows it ("Using the
 * Low-Level Runtime API" and the Module API's unique_ptr + dynamic_cast),
 * built against etkit's executorch/devtools/etdump headers without an
 * edit.
 *
 * Upstream's Program and Method are not in the runtime subset the tests
 * build with (../shared/third_party/executorch-runtime), so
 * execute_like_method() stands in for load_method + execute: it makes the
 * calls a Method makes on the EventTracer it was given (a block per
 * execute, one OPERATOR_CALL per instruction with its chain and debug
 * handle around the kernel's own event, the program's output logged as an
 * EValue, a delegate's events).  Everything else is the documented application
 * code.
 *
 *   upstream_etdump_app ETDUMP DEBUG_BIN FILE_SINK_BIN
 * writes the heap-mode dump to ETDUMP, a static-buffer dump with its debug
 * buffer to ETDUMP.static and DEBUG_BIN, a dump whose tensors went through
 * a FileDataSink to ETDUMP.file and FILE_SINK_BIN; exits 1 on a broken
 * promise of upstream's API (printed).
 */
/* An application may name the sink class before including anything, as
 * upstream's DataSinkBase is a class of its own. */
namespace executorch {
namespace etdump {
class DataSinkBase;
}  // namespace etdump
}  // namespace executorch
static executorch::etdump::DataSinkBase *g_sink_seen = nullptr;

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <executorch/devtools/etdump/data_sinks/buffer_data_sink.h>
#include <executorch/devtools/etdump/data_sinks/file_data_sink.h>
#include <executorch/devtools/etdump/etdump_filter.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/testing_util/tensor_factory.h>
#include <executorch/runtime/platform/runtime.h>

#include "app_check.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::etdump::BufferDataSink;
using executorch::etdump::ETDumpFilter;
using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::etdump::FileDataSink;
using executorch::runtime::EValue;
using executorch::runtime::EventTracer;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::testing::TensorFactory;
using torch::executor::etdump_result;

/* What Method::execute does with the tracer load_method was given. */
static void execute_like_method(EventTracer *tracer, const Tensor &out) {
  tracer->create_event_block("Execute");
  for (uint32_t i = 0; i < 4; i++) {
    tracer->set_chain_debug_handle(0, i);
    auto entry = tracer->start_profiling("OPERATOR_CALL");
    auto kernel = tracer->start_profiling("native_call_add.out");
    tracer->end_profiling(kernel);
    tracer->end_profiling(entry);
  }
  auto d = tracer->start_profiling_delegate("conv_block", -1);
  tracer->end_profiling_delegate(d, nullptr, 0);
  tracer->log_evalue(EValue(out),
                     executorch::runtime::LoggedEValueType::kProgramOutput);
}

/* 4-5. Sinks an application writes or makes itself, and a buffer too small
 * for upstream. */
static void sinks_of_their_own(Tensor &out) {
  /* 4. A sink of the application's own, derived from DataSinkBase. */
  {
    struct CountingSink : public executorch::etdump::DataSinkBase {
      size_t used = 0;
      Result<size_t> write(const void *ptr, size_t length) override {
        if (ptr == nullptr && length != 0)
          return executorch::runtime::Error::InvalidArgument;
        size_t at = used;
        used += length;
        return at;
      }
      size_t get_used_bytes() const override {
        return used;
      }
    } counting;
    ETDumpGen etdump_gen;
    etdump_gen.set_data_sink(&counting);
    g_sink_seen = etdump_gen.get_data_sink();
    EXPECT(g_sink_seen == &counting);
    execute_like_method(&etdump_gen, out); /* logs the 2x2 float output */
    EXPECT(counting.get_used_bytes() == 16);
    etdump_gen.reset(); /* upstream's reset() forgets the sink */
    EXPECT(etdump_gen.get_data_sink() == nullptr);
    free(etdump_gen.get_etdump_data().buf);
  }

  /* 4. BufferDataSink on its own: alignment, padding, refusal when full */
  {
    alignas(64) static uint8_t buf[200];
    EXPECT(!BufferDataSink::create(buf, sizeof buf, 3).ok());
    Result<BufferDataSink> s = BufferDataSink::create(buf, sizeof buf);
    EXPECT(s.ok());
    const char bytes[10] = "abcdefghi";
    Result<size_t> a = s.get().write(bytes, 10);
    Result<size_t> b = s.get().write(bytes, 10);
    EXPECT(a.ok() && a.get() == 0 && b.ok() && b.get() == 64);
    EXPECT(s.get().get_used_bytes() == 74);
    EXPECT(s.get().write(bytes, 100).error() ==
           executorch::runtime::Error::OutOfResources);
    EXPECT(s.get().get_storage_size().get() == sizeof buf);
  }

  /* 5. Where upstream aborts, etkit goes on: a tiny static buffer. */
  {
    static uint8_t tiny[4096];
    ETDumpGen etdump_gen(Span<uint8_t>(tiny, sizeof tiny));
    execute_like_method(&etdump_gen, out);
    ETDumpResult r = etdump_gen.get_etdump_data();
    EXPECT(r.buf != nullptr && r.size > 0); /* a valid, truncated dump */
  }
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s ETDUMP DEBUG_BIN FILE_SINK_BIN\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
  TensorFactory<ScalarType::Float> tf;
  Tensor out = tf.make({2, 2}, {1.5f, 2.5f, 3.5f, 4.5f});
  std::string static_path = std::string(argv[1]) + ".static";
  std::string file_path = std::string(argv[1]) + ".file";

  /* 1. docs/source/etdump.md, word for word: the default constructor,
   *    load_method(..., &etdump_gen), get_etdump_data, fwrite, free. */
  {
    executorch::etdump::ETDumpGen etdump_gen;
    execute_like_method(&etdump_gen, out);
    EXPECT(!etdump_gen.is_static_etdump());
    EXPECT(etdump_gen.get_num_blocks() == 1);
    etdump_result result = etdump_gen.get_etdump_data();
    EXPECT(result.buf != nullptr && result.size > 0);
    if (result.buf != nullptr && result.size > 0) {
      // On a device with a file system users can just write it out
      // to the file-system.
      FILE *f = fopen(argv[1], "w+");
      fwrite((uint8_t *)result.buf, 1, result.size, f);
      fclose(f);
      free(result.buf);
    }
  }

  /* 1b. The Module API's way (etdump.md): owned as a unique_ptr, found
   *     again with dynamic_cast, the dump freed by a guard. */
  {
    std::unique_ptr<EventTracer> tracer = std::make_unique<ETDumpGen>();
    execute_like_method(tracer.get(), out);
    if (auto *etdump = dynamic_cast<ETDumpGen *>(tracer.get())) {
      const auto trace = etdump->get_etdump_data();
      EXPECT(trace.buf && trace.size > 0);
      if (trace.buf && trace.size > 0) {
        std::unique_ptr<void, decltype(&free)> guard(trace.buf, free);
        EXPECT(std::memcmp(static_cast<const uint8_t *>(trace.buf) + 8, "ED00",
                           4) == 0);
      }
    } else {
      EXPECT(false);
    }
  }

  /* 2. A static buffer and a debug buffer (upstream's runners): nothing
   *    allocated, result.buf inside the buffer, set_debug_buffer's
   *    Result<bool>, the BufferDataSink it installs. */
  {
    static uint8_t etdump_buffer[64 * 1024]; /* upstream aborts under 128 KiB */
    alignas(64) static uint8_t debug_buffer[16 * 1024];
    torch::executor::ETDumpGen etdump_gen(
        Span<uint8_t>(etdump_buffer, sizeof etdump_buffer));
    Result<bool> set = etdump_gen.set_debug_buffer(
        Span<uint8_t>(debug_buffer, sizeof debug_buffer));
    EXPECT(set.ok() && set.get());
    EXPECT(etdump_gen.is_static_etdump());
    EXPECT(etdump_gen.get_data_sink() != nullptr);
    execute_like_method(&etdump_gen, out);
    /* log_evalue's default: an intermediate output */
    EXPECT(etdump_gen.log_evalue(EValue(out)).ok());
    EXPECT(etdump_gen.get_data_sink()->get_used_bytes() >= 64 + 16);
    ETDumpResult result = etdump_gen.get_etdump_data();
    const uint8_t *p = static_cast<const uint8_t *>(result.buf);
    EXPECT(p >= etdump_buffer &&
           p + result.size <= etdump_buffer + sizeof etdump_buffer);
    EXPECT(write_file(static_path.c_str(), result.buf, result.size));
    EXPECT(write_file(argv[2], debug_buffer,
                      etdump_gen.get_data_sink()->get_used_bytes()));
    /* reset(): nothing recorded, no sink; clear_builder() the same */
    etdump_gen.reset();
    EXPECT(etdump_gen.get_num_blocks() == 0);
    EXPECT(etdump_gen.get_data_sink() == nullptr);
    EXPECT(etdump_gen.get_etdump_data().buf == nullptr);
    etdump_gen.create_event_block("Execute");
    etdump_gen.clear_builder();
    EXPECT(etdump_gen.get_num_blocks() == 0);
  }

  /* 3. FileDataSink and ETDumpFilter through set_data_sink and
   *    set_delegation_intermediate_output_filter. */
  {
    Result<FileDataSink> sink = FileDataSink::create(argv[3]);
    EXPECT(sink.ok());
    EXPECT(!FileDataSink::create("/nonexistent-dir/x.bin").ok());
    ETDumpFilter filter;
    EXPECT(filter.add_regex("skip_.*").ok());
    EXPECT(!filter.add_regex("(unclosed").ok());
    EXPECT(filter.get_n_regex() == 1);
    EXPECT(!filter.set_debug_handle_range(5, 5).ok());
    EXPECT(filter.set_debug_handle_range(10, 20).ok());
    ETDumpGen etdump_gen;
    etdump_gen.set_data_sink(&sink.get());
    EXPECT(etdump_gen.get_data_sink() == &sink.get());
    etdump_gen.set_delegation_intermediate_output_filter(&filter);
    execute_like_method(&etdump_gen, out);
    /* filtered out (true means "leave it out", as upstream): not logged */
    Result<bool> skipped =
        etdump_gen.log_intermediate_output_delegate("skip_me", -1, out);
    EXPECT(skipped.ok() && !skipped.get());
    Result<bool> kept =
        etdump_gen.log_intermediate_output_delegate("keep_me", -1, out);
    EXPECT(kept.ok() && kept.get());
    Result<bool> by_index =
        etdump_gen.log_intermediate_output_delegate(nullptr, 12, 7);
    EXPECT(by_index.ok() && !by_index.get());
    EXPECT(sink.get().get_used_bytes() == 2 * 16);
    ETDumpResult result = etdump_gen.get_etdump_data();
    EXPECT(result.buf != nullptr);
    EXPECT(write_file(file_path.c_str(), result.buf, result.size));
    free(result.buf);
    sink.get().close();
  }

  sinks_of_their_own(out);

  if (failures == 0) std::printf("upstream ETDumpGen app: ok\n");
  return failures == 0 ? 0 : 1;
}
