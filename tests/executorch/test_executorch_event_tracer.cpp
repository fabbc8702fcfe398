/*
 * test_executorch_event_tracer.cpp - etkit::ETDumpTracer driven through
 * upstream's EventTracer interface (linked with the eleven upstream runtime
 * sources, read in place from ../shared/third_party/executorch-runtime).
 *
 * Every dump is verified (etkit's verifier, and flatc where it is
 * installed) and read back with etkit's ETDump reader and Inspector: block
 * names and counts, empty blocks, allocators, tensor debug events (dtype,
 * sizes, offsets, output flag), delegate ids, metadata bytes, the filter,
 * misuse (errors, never aborts), a full buffer (a valid truncated dump with
 * its drop count), ring mode, a new dump after get_etdump_data, and the
 * same scenario through the adapter and through the C recorder giving the
 * same bytes and the same Inspector tables.
 */
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/testing_util/tensor_factory.h>
#include <executorch/runtime/platform/runtime.h>

#include "etkit/executorch_event_tracer.hpp"

extern "C" {
#include "etkit/etdump.h"
#include "etkit/inspector_core.h"
#include "etkit/render.h"
#include "recorder_testutil.h"
}
#include "tracer_testutil.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::ArrayRef;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::DelegateDebugIdType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::EventTracerFilterBase;
using executorch::runtime::LoggedEValueType;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::testing::TensorFactory;

namespace {

uint64_t ticks_a, ticks_b;
uint64_t count_clock(void *ctx) {
  return ++*static_cast<uint64_t *>(ctx);
}

etkit::ETDumpTracerConfig counted(uint64_t *ticks) {
  etkit::ETDumpTracerConfig c;
  c.clock = count_clock;
  c.clock_ctx = ticks;
  *ticks = 1000;
  return c;
}

std::string run_name(const etk_etdump_t *d, size_t i) {
  etk_etdump_run_t r;
  if (etk_etdump_run_get(d, i, &r) != ETK_OK || r.name.data == nullptr)
    return "";
  return std::string(r.name.data, r.name.len);
}

/* One Inspector view of a dump as TSV (every row, empty blocks skipped). */
std::string inspector_tsv(const void *buf, size_t len,
                          etk_inspect_view_t view) {
  etk_inspector_t *insp = nullptr;
  etk_inspector_render_options_t ro;
  etk_render_sink_t sink;
  std::string out;
  if (etk_inspector_open_memory(buf, len, nullptr, &insp, nullptr) != ETK_OK)
    return "(open failed)";
  etk_inspector_render_options_init(&ro);
  ro.format = ETK_INSPECT_FORMAT_TSV;
  ro.view = view;
  ro.all_rows = 1;
  ro.allow_empty = 1;
  ro.include_delegate_debug_data = 1;
  etk_render_sink_init_memory(&sink);
  if (etk_inspector_render(insp, &ro, &sink, nullptr) == ETK_OK &&
      etk_render_sink_flush(&sink) == ETK_OK) {
    size_t n = 0;
    char *text = etk_render_sink_take(&sink, &n);
    if (text != nullptr) out.assign(text, n);
    std::free(text);
  } else {
    out = "(render failed)";
    etk_render_sink_free(&sink);
  }
  etk_inspector_close(insp);
  return out;
}

/* A filter dropping names that start with "drop" and ids from 10 on, and
 * failing for the name "bad". */
class TestFilter : public EventTracerFilterBase {
 public:
  Result<bool> filter(const char *name, int32_t index) override {
    if (name != nullptr && std::strcmp(name, "bad") == 0)
      return Error::NotSupported;
    if (name != nullptr) return std::strncmp(name, "drop", 4) == 0;
    return index >= 10;
  }
};

/* A sink that keeps the bytes in a vector. */
class VectorSink : public etkit::DataSink {
 public:
  std::vector<uint8_t> bytes;
  size_t limit = SIZE_MAX;
  Result<size_t> write(const void *ptr, size_t length) override {
    size_t at = bytes.size();
    if (length > limit - at) return Error::OutOfResources;
    const uint8_t *p = static_cast<const uint8_t *>(ptr);
    bytes.insert(bytes.end(), p, p + length);
    return at;
  }
  size_t get_used_bytes() const override {
    return bytes.size();
  }
};

const uint8_t kMetadata[3] = {7, 8, 9};

/* Result<bool> is not assignable: its outcome as 1 (true), 0 (false) or
 * the error, so checks read as one comparison. */
bool logged(const Result<bool> &r) {
  return r.ok() && r.get();
}
bool skipped(const Result<bool> &r) {
  return r.ok() && !r.get();
}
Error error_of(const Result<bool> &r) {
  return r.ok() ? Error::Ok : r.error();
}

/* The shared scenario through upstream's interface. */
void scenario_tracer(etkit::ETDumpTracer &t,
                     TensorFactory<ScalarType::Float> &tf,
                     TensorFactory<ScalarType::Int> &ti) {
  Tensor a = tf.make({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = ti.make({4}, {1, 2, 3, 4});
  t.create_event_block("Default");
  t.track_allocator("planned");
  t.track_allocator("constants");
  t.track_allocation(1, 1024);
  t.track_allocation(2, 64);
  EventTracerEntry e = t.start_profiling("Method::init");
  t.end_profiling(e);
  t.set_bundled_input_index(3);
  t.create_event_block("Execute");
  for (uint32_t i = 0; i < 3; i++) {
    t.set_chain_debug_handle(0, i);
    EventTracerEntry op = t.start_profiling("OPERATOR_CALL");
    t.end_profiling(op);
    t.log_evalue(EValue(a), LoggedEValueType::kIntermediateOutput);
  }
  t.set_chain_debug_handle(0, 5);
  EventTracerEntry d1 = t.start_profiling_delegate("conv #1", -1);
  t.end_profiling_delegate(d1, kMetadata, sizeof kMetadata);
  EventTracerEntry d2 = t.start_profiling_delegate(nullptr, 7);
  t.end_profiling_delegate(d2);
  t.log_profiling_delegate("relu #2", -1, 100, 250, kMetadata, 2);
  t.log_intermediate_output_delegate(nullptr, 4, b);
  t.log_intermediate_output_delegate("x", -1, 42);
  t.log_intermediate_output_delegate("x", -1, true);
  t.log_intermediate_output_delegate(nullptr, 6, 2.5);
  Tensor pair[2] = {a, b};
  t.log_intermediate_output_delegate("pair", -1, ArrayRef<Tensor>(pair, 2));
  t.set_chain_debug_handle(-1, 0);
  t.log_evalue(EValue(a), LoggedEValueType::kProgramOutput);
  t.log_evalue(EValue(int64_t(-3)), LoggedEValueType::kProgramOutput);
  t.log_evalue(EValue(0.5), LoggedEValueType::kIntermediateOutput);
  t.log_evalue(EValue(false), LoggedEValueType::kIntermediateOutput);
  EventTracerEntry m = t.start_profiling("Method::execute");
  t.end_profiling(m);
  t.set_bundled_input_index(-1);
  t.create_event_block("Empty");
}

/* The same scenario through the C recorder. */
void scenario_c(etk_recorder_t *rec, TensorFactory<ScalarType::Float> &tf,
                TensorFactory<ScalarType::Int> &ti) {
  Tensor a = tf.make({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = ti.make({4}, {1, 2, 3, 4});
  int64_t da[4], db[2];
  etk_recorder_tensor_t ta = c_tensor(a, da), tb = c_tensor(b, db);
  etk_recorder_tensor_t both[2] = {ta, tb};
  etk_recorder_value_t v;
  etk_recorder_scope_t s;
  etk_recorder_begin_block(rec, "Default");
  etk_recorder_track_allocator(rec, "planned", nullptr);
  etk_recorder_track_allocator(rec, "constants", nullptr);
  etk_recorder_track_allocation(rec, 1, 1024);
  etk_recorder_track_allocation(rec, 2, 64);
  s = etk_recorder_begin_named(rec, "Method::init", -1, 0);
  etk_recorder_end(rec, &s);
  etk_recorder_set_bundled_input_index(rec, 3);
  etk_recorder_begin_block(rec, "Execute");
  for (uint32_t i = 0; i < 3; i++) {
    etk_recorder_set_chain_debug_handle(rec, 0, i);
    s = etk_recorder_begin_named(rec, "OPERATOR_CALL", -1, 0);
    etk_recorder_end(rec, &s);
    v = etk_value_tensor(&ta);
    etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  }
  etk_recorder_set_chain_debug_handle(rec, 0, 5);
  s = etk_recorder_begin_delegate(rec, "conv #1", -1);
  etk_recorder_end_delegate(rec, &s, kMetadata, sizeof kMetadata);
  s = etk_recorder_begin_delegate(rec, nullptr, 7);
  etk_recorder_end_delegate(rec, &s, nullptr, 0);
  etk_recorder_log_delegate(rec, "relu #2", -1, 100, 250, kMetadata, 2);
  v = etk_value_tensor(&tb);
  etk_recorder_log_delegate_value(rec, nullptr, 4, &v);
  v = etk_value_int(42);
  etk_recorder_log_delegate_value(rec, "x", -1, &v);
  v = etk_value_bool(1);
  etk_recorder_log_delegate_value(rec, "x", -1, &v);
  v = etk_value_double(2.5);
  etk_recorder_log_delegate_value(rec, nullptr, 6, &v);
  v = etk_value_tensor_list(both, 2);
  etk_recorder_log_delegate_value(rec, "pair", -1, &v);
  etk_recorder_set_chain_debug_handle(rec, -1, 0);
  v = etk_value_tensor(&ta);
  etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT);
  v = etk_value_int(-3);
  etk_recorder_log_value(rec, &v, ETK_LOGGED_PROGRAM_OUTPUT);
  v = etk_value_double(0.5);
  etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  v = etk_value_bool(0);
  etk_recorder_log_value(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  s = etk_recorder_begin_named(rec, "Method::execute", -1, 0);
  etk_recorder_end(rec, &s);
  etk_recorder_set_bundled_input_index(rec, -1);
  etk_recorder_begin_block(rec, "Empty");
}

uint8_t arena_a[256 * 1024], arena_b[256 * 1024];
alignas(64) uint8_t debug_a[4096];
alignas(64) uint8_t debug_b[4096];

/* Finds the first debug event of run `run` at or after event `from`. */
size_t next_debug(const etk_etdump_t *d, size_t from) {
  etk_etdump_event_t ev;
  for (size_t i = from; i < etk_etdump_event_count(d); i++)
    if (etk_etdump_event_get(d, i, &ev) == ETK_OK &&
        ev.kind == ETK_ETDUMP_EVENT_DEBUG)
      return i;
  return SIZE_MAX;
}

}  // namespace

ETK_TEST(same_scenario_adapter_and_c_recorder) {
  TensorFactory<ScalarType::Float> tf;
  TensorFactory<ScalarType::Int> ti;
  etkit::ETDumpTracer t(arena_a, sizeof arena_a, counted(&ticks_a));
  REQUIRE(t.init_error() == Error::Ok);
  REQUIRE(t.is_static_etdump());
  REQUIRE(t.set_debug_buffer(Span<uint8_t>(debug_a, sizeof debug_a)) ==
          Error::Ok);
  scenario_tracer(t, tf, ti);
  CHECK_EQ_INT(t.error_count(), 0);
  CHECK_EQ_U64(t.get_num_blocks(), 3);
  etkit::ETDumpResult r = t.get_etdump_data();
  REQUIRE(r.buf != nullptr && r.size > 0);

  etk_recorder_config_t cfg;
  etk_recorder_t *rec = nullptr;
  etk_recorder_config_init(&cfg);
  cfg.clock = count_clock;
  cfg.clock_ctx = &ticks_b;
  cfg.max_strings = 1024;
  ticks_b = 1000;
  REQUIRE(etk_recorder_init(&rec, arena_b, sizeof arena_b, &cfg) == ETK_OK);
  REQUIRE(etk_recorder_set_debug_buffer(rec, debug_b, sizeof debug_b) ==
          ETK_OK);
  scenario_c(rec, tf, ti);
  const uint8_t *c_out = nullptr;
  size_t c_len = 0;
  REQUIRE(etk_recorder_finish(rec, &c_out, &c_len) == ETK_OK);

  /* same bytes, same debug data, same tables */
  CHECK_EQ_U64(r.size, c_len);
  CHECK(r.size == c_len && std::memcmp(r.buf, c_out, c_len) == 0);
  CHECK(std::memcmp(debug_a, debug_b, sizeof debug_a) == 0);
  std::string ev_a = inspector_tsv(r.buf, r.size, ETK_INSPECT_VIEW_EVENTS);
  std::string ev_b = inspector_tsv(c_out, c_len, ETK_INSPECT_VIEW_EVENTS);
  CHECK(ev_a == ev_b);
  CHECK(ev_a.find("OPERATOR_CALL") != std::string::npos);
  CHECK(ev_a.find("Method::execute") != std::string::npos);
  std::string al_a = inspector_tsv(r.buf, r.size, ETK_INSPECT_VIEW_ALLOCATIONS);
  CHECK(al_a == inspector_tsv(c_out, c_len, ETK_INSPECT_VIEW_ALLOCATIONS));
  CHECK(al_a.find("planned") != std::string::npos);
  json_t *j = nullptr;
  CHECK(rt_check_dump(static_cast<const uint8_t *>(r.buf), r.size, &j));
  if (j != nullptr) {
    CHECK_EQ_STR(rt_json_str(j, "run_data/1/name"), "Execute");
    CHECK_EQ_INT(rt_json_int(j, "run_data/1/bundled_input_index", 0), 3);
    json_decref(j);
  }
}

ETK_TEST(dump_contents) {
  TensorFactory<ScalarType::Float> tf;
  TensorFactory<ScalarType::Int> ti;
  etkit::ETDumpTracer t(arena_a, sizeof arena_a, counted(&ticks_a));
  std::memset(debug_a, 0, sizeof debug_a);
  REQUIRE(t.set_debug_buffer(Span<uint8_t>(debug_a, sizeof debug_a)) ==
          Error::Ok);
  scenario_tracer(t, tf, ti);
  etkit::ETDumpResult r = t.get_etdump_data();
  etk_etdump_t *d = open_dump(r.buf, r.size);
  REQUIRE(d != nullptr);
  /* blocks: names, counts, the empty one, the bundled index */
  REQUIRE(etk_etdump_run_count(d) == 3);
  CHECK(run_name(d, 0) == "Default");
  CHECK(run_name(d, 1) == "Execute");
  CHECK(run_name(d, 2) == "Empty");
  etk_etdump_run_t run;
  REQUIRE(etk_etdump_run_get(d, 0, &run) == ETK_OK);
  CHECK_EQ_INT(run.event_count, 3);
  CHECK_EQ_INT(run.bundled_input_index, -1);
  CHECK_EQ_INT(run.allocator_count, 2);
  REQUIRE(etk_etdump_run_get(d, 1, &run) == ETK_OK);
  CHECK_EQ_INT(run.event_count, 3 * 2 + 3 + 5 + 5);
  CHECK_EQ_INT(run.bundled_input_index, 3);
  REQUIRE(etk_etdump_run_get(d, 2, &run) == ETK_OK);
  CHECK_EQ_INT(run.event_count, 0);
  /* allocators and allocations: 1-based ids, sizes */
  etk_etdump_str_t an = etk_etdump_allocator_name(d, 1);
  CHECK(an.data != nullptr && std::strcmp(an.data, "constants") == 0);
  etk_etdump_event_t ev;
  REQUIRE(etk_etdump_event_get(d, 0, &ev) == ETK_OK);
  CHECK_EQ_INT(ev.kind, ETK_ETDUMP_EVENT_ALLOCATION);
  CHECK_EQ_INT(ev.allocator_id, 1);
  CHECK_EQ_U64(ev.allocation_size, 1024);
  REQUIRE(etk_etdump_event_get(d, 1, &ev) == ETK_OK);
  CHECK_EQ_INT(ev.allocator_id, 2);
  CHECK_EQ_U64(ev.allocation_size, 64);
  /* the first tensor debug event: FLOAT [2, 3], strides [3, 1], offset 0,
   * instruction 0, chain 0, not an output; its bytes in the buffer */
  size_t i = next_debug(d, 0);
  REQUIRE(i != SIZE_MAX);
  REQUIRE(etk_etdump_event_get(d, i, &ev) == ETK_OK);
  CHECK_EQ_INT(ev.instruction_id, 0);
  CHECK_EQ_U64(ev.debug_chain_index, 0);
  etk_etdump_value_t v;
  REQUIRE(etk_etdump_event_value(d, i, &v) == ETK_OK);
  CHECK_EQ_INT(v.type, ETK_ETDUMP_VALUE_TYPE_TENSOR);
  CHECK_EQ_INT(v.tensor.scalar_type, 6);
  CHECK_EQ_INT(v.tensor.dim, 2);
  CHECK_EQ_INT(etk_etdump_tensor_dim(&v.tensor, 0), 2);
  CHECK_EQ_INT(etk_etdump_tensor_dim(&v.tensor, 1), 3);
  CHECK_EQ_INT(etk_etdump_tensor_stride(&v.tensor, 0), 3);
  CHECK_EQ_INT(v.tensor.offset, 0);
  CHECK(!v.output_present || !v.output);
  float first[6];
  std::memcpy(first, debug_a, sizeof first);
  CHECK(first[0] == 1.0f && first[5] == 6.0f);
  /* second tensor: the next 64-byte slot */
  i = next_debug(d, i + 1);
  REQUIRE(etk_etdump_event_value(d, i, &v) == ETK_OK);
  CHECK_EQ_INT(v.tensor.offset, 64);
  /* delegate profile events: string id with metadata, int id */
  size_t found_str = 0, found_int = 0, found_post = 0;
  for (size_t k = 0; k < etk_etdump_event_count(d); k++) {
    REQUIRE(etk_etdump_event_get(d, k, &ev) == ETK_OK);
    if (ev.kind != ETK_ETDUMP_EVENT_PROFILE) continue;
    if (ev.delegate_debug_id_str.data != nullptr &&
        std::strcmp(ev.delegate_debug_id_str.data, "conv #1") == 0) {
      found_str++;
      CHECK_EQ_INT(ev.delegate_debug_id_int, -1);
      CHECK_EQ_INT(ev.metadata_len, 3);
      CHECK(ev.metadata != nullptr &&
            std::memcmp(ev.metadata, kMetadata, 3) == 0);
      CHECK_EQ_INT(ev.instruction_id, 5);
    }
    if (ev.delegate_debug_id_int == 7) {
      found_int++;
      CHECK(ev.delegate_debug_id_str.data == nullptr);
      CHECK_EQ_INT(ev.metadata_len, 0);
      CHECK(ev.flags & ETK_ETDUMP_FLAG_METADATA); /* present, even empty */
    }
    if (ev.delegate_debug_id_str.data != nullptr &&
        std::strcmp(ev.delegate_debug_id_str.data, "relu #2") == 0) {
      found_post++;
      CHECK_EQ_U64(ev.start_time, 100);
      CHECK_EQ_U64(ev.end_time, 250);
      CHECK_EQ_INT(ev.metadata_len, 2);
    }
  }
  CHECK_EQ_INT(found_str, 1);
  CHECK_EQ_INT(found_int, 1);
  CHECK_EQ_INT(found_post, 1);
  /* delegate debug events and the program outputs */
  size_t int_ids = 0, outputs = 0, lists = 0, unset_chain = 0;
  for (i = next_debug(d, 0); i != SIZE_MAX; i = next_debug(d, i + 1)) {
    REQUIRE(etk_etdump_event_get(d, i, &ev) == ETK_OK);
    REQUIRE(etk_etdump_event_value(d, i, &v) == ETK_OK);
    if (ev.delegate_debug_id_int == 4) {
      int_ids++;
      CHECK_EQ_INT(v.tensor.scalar_type, 3);
    }
    if (v.output_present && v.output) outputs++;
    if (v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST) {
      lists++;
      CHECK_EQ_INT(v.tensor_count, 2);
      etk_etdump_tensor_t t1;
      REQUIRE(etk_etdump_value_tensor(d, &v, 1, &t1) == ETK_OK);
      CHECK_EQ_INT(t1.scalar_type, 3); /* mixed dtypes kept per tensor */
    }
    if (ev.debug_chain_index == UINT64_MAX) unset_chain++;
    if (v.type == ETK_ETDUMP_VALUE_TYPE_INT && ev.delegate_debug_id_str.data)
      CHECK_EQ_INT(v.int_value, 42);
  }
  CHECK_EQ_INT(int_ids, 1);
  CHECK_EQ_INT(outputs, 1); /* the tensor; scalars are never flagged */
  CHECK_EQ_INT(lists, 1);
  CHECK_EQ_INT(unset_chain, 4); /* logged with chain -1: 2^64-1 */
  etk_etdump_close(d);
}

ETK_TEST(filter_results) {
  TensorFactory<ScalarType::Float> tf;
  Tensor a = tf.make({2}, {1, 2});
  TestFilter filter;
  VectorSink sink;
  etkit::ETDumpTracer t(arena_a, sizeof arena_a, counted(&ticks_a));
  REQUIRE(t.set_data_sink(&sink) == Error::Ok);
  CHECK(t.get_data_sink() == &sink);
  t.set_delegation_intermediate_output_filter(&filter);
  t.create_event_block("Execute");
  CHECK(logged(t.log_intermediate_output_delegate("keep", -1, a)));
  CHECK(skipped(t.log_intermediate_output_delegate("drop_me", -1, a)));
  CHECK(skipped(t.log_intermediate_output_delegate(nullptr, 12, 3)));
  CHECK(logged(t.log_intermediate_output_delegate(nullptr, 2, 3)));
  CHECK(error_of(t.log_intermediate_output_delegate("bad", -1, 1.0)) ==
        Error::NotSupported);
  CHECK_EQ_U64(sink.bytes.size(), 8); /* only the kept tensor */
  etkit::ETDumpResult out = t.get_etdump_data();
  etk_etdump_t *d = open_dump(out.buf, out.size);
  REQUIRE(d != nullptr);
  CHECK_EQ_U64(etk_etdump_event_count(d), 2);
  etk_etdump_close(d);
}

ETK_TEST(misuse_returns_errors) {
  TensorFactory<ScalarType::Float> tf;
  TensorFactory<ScalarType::Half> th;
  Tensor a = tf.make({2}, {1, 2});
  etkit::ETDumpTracer t(arena_a, sizeof arena_a, counted(&ticks_a));
  /* before any block */
  etkit::ETDumpResult none = t.get_etdump_data();
  CHECK(none.buf == nullptr && none.size == 0);
  CHECK(error_of(t.log_evalue(EValue(int64_t(1)),
                              LoggedEValueType::kIntermediateOutput)) ==
        Error::InvalidState);
  t.create_event_block(nullptr);
  CHECK(t.last_error() == Error::InvalidArgument);
  t.create_event_block("Execute");
  /* both ids, or neither */
  CHECK(error_of(t.log_intermediate_output_delegate("x", 3, 1)) ==
        Error::InvalidArgument);
  CHECK(error_of(t.log_intermediate_output_delegate(nullptr, -1, a)) ==
        Error::InvalidArgument);
  uint32_t errors = t.error_count();
  EventTracerEntry e = t.start_profiling_delegate("x", 3);
  CHECK_EQ_INT(t.error_count(), errors + 1);
  CHECK(t.last_error() == Error::InvalidArgument);
  t.end_profiling_delegate(e); /* nothing recorded, counted once */
  CHECK_EQ_INT(t.error_count(), errors + 1);
  t.log_profiling_delegate(nullptr, -1, 1, 2);
  CHECK(t.last_error() == Error::InvalidArgument);
  /* a plain entry given to the delegate end and the other way round */
  EventTracerEntry p = t.start_profiling("op");
  t.end_profiling_delegate(p);
  CHECK(t.last_error() == Error::InvalidArgument);
  EventTracerEntry dl = t.start_profiling_delegate(nullptr, 1);
  t.end_profiling(dl);
  CHECK(t.last_error() == Error::InvalidArgument);
  t.end_profiling_delegate(dl);
  /* a scope ends once */
  t.end_profiling(p);
  errors = t.error_count();
  t.end_profiling(p);
  CHECK_EQ_INT(t.error_count(), errors + 1);
  CHECK(t.last_error() == Error::InvalidState);
  /* allocators only right after a block */
  CHECK_EQ_INT(t.track_allocator("late"), 0);
  CHECK(t.last_error() == Error::InvalidState);
  /* tags ETDump cannot hold, dtypes it cannot hold, no sink */
  CHECK(
      error_of(t.log_evalue(EValue(), LoggedEValueType::kIntermediateOutput)) ==
      Error::InvalidArgument);
  Tensor h = th.make({2}, {1, 2});
  uint8_t debug[256];
  REQUIRE(t.set_debug_buffer(Span<uint8_t>(debug, sizeof debug)) == Error::Ok);
  CHECK(error_of(
            t.log_evalue(EValue(h), LoggedEValueType::kIntermediateOutput)) ==
        Error::InvalidArgument);
  REQUIRE(t.set_data_sink(nullptr) == Error::Ok);
  CHECK(error_of(
            t.log_evalue(EValue(a), LoggedEValueType::kIntermediateOutput)) ==
        Error::InvalidState);
  CHECK(error_of(t.log_evalue(EValue(a), static_cast<LoggedEValueType>(7))) ==
        Error::InvalidArgument);
  /* what was accepted: the op and the delegate entry ended by the proper
   * end; the dump is valid */
  etkit::ETDumpResult out = t.get_etdump_data();
  REQUIRE(verified(out.buf, out.size));
  etk_etdump_t *d = open_dump(out.buf, out.size);
  REQUIRE(d != nullptr);
  CHECK_EQ_U64(etk_etdump_event_count(d), 2);
  etk_etdump_close(d);
}

ETK_TEST(bad_input) {
  TensorFactory<ScalarType::Float> tf;
  TensorFactory<ScalarType::Long> tl;
  Tensor big = tf.make({128}, std::vector<float>(128, 1.0f));
  Tensor small = tf.make({2}, {1, 2});
  etkit::ETDumpTracer t(arena_a, sizeof arena_a, counted(&ticks_a));
  alignas(64) uint8_t debug[256];
  t.create_event_block("Execute");
  REQUIRE(t.set_debug_buffer(Span<uint8_t>(debug, sizeof debug)) == Error::Ok);
  /* a debug buffer too small: a counted drop */
  CHECK(error_of(
            t.log_evalue(EValue(big), LoggedEValueType::kIntermediateOutput)) ==
        Error::OutOfResources);
  CHECK_EQ_INT(t.dropped_events(), 1);
  CHECK(logged(
      t.log_evalue(EValue(small), LoggedEValueType::kIntermediateOutput)));
  /* a huge tensor (2^40 elements over a small storage): refused by the sink
   * before any byte is read */
  float storage[4] = {0};
  executorch::aten::SizesType sizes[2] = {1 << 20, 1 << 20};
  executorch::aten::DimOrderType order[2] = {0, 1};
  executorch::aten::StridesType strides[2] = {1 << 20, 1};
  executorch::aten::TensorImpl impl(ScalarType::Float, 2, sizes, storage, order,
                                    strides);
  CHECK(error_of(t.log_evalue(EValue(Tensor(&impl)),
                              LoggedEValueType::kIntermediateOutput)) ==
        Error::OutOfResources);
  CHECK_EQ_INT(t.dropped_events(), 2);
  /* a tensor list with mixed dtypes is kept, each with its own dtype */
  Tensor l = tl.make({1}, {9});
  Tensor mixed[2] = {small, l};
  CHECK(logged(
      t.log_intermediate_output_delegate("m", -1, ArrayRef<Tensor>(mixed, 2))));
  /* null names: no name (profiling), refused (blocks, allocators) */
  EventTracerEntry e = t.start_profiling(nullptr);
  t.end_profiling(e);
  CHECK_EQ_INT(t.track_allocator(nullptr), 0);
  /* unset chain with a handle given explicitly is replaced by the current */
  t.set_chain_debug_handle(2, 9);
  EventTracerEntry u = t.start_profiling("u", -1, 77);
  CHECK_EQ_INT(u.chain_id, 2);
  CHECK_EQ_INT(u.debug_handle, 9);
  t.end_profiling(u);
  etkit::ETDumpResult out = t.get_etdump_data();
  REQUIRE(verified(out.buf, out.size));
  etk_etdump_t *d = open_dump(out.buf, out.size);
  REQUIRE(d != nullptr);
  CHECK(run_name(d, 1) == "etkit:dropped_events=2");
  etk_etdump_close(d);
}

/* calibrate(): the counting clock gives the figures the C recorder's test
 * derives (a clock read 1 tick, a pair 2); the dump carries the marker
 * after the blocks, and the events recorded are only the run's. */
ETK_TEST(calibrate_writes_the_marker) {
  etkit::ETDumpTracer t(arena_a, sizeof arena_a, counted(&ticks_a));
  etk_recorder_calibration_t cal;
  CHECK(t.calibrate(0, &cal) == etkit::ETDumpTracer::Error::Ok);
  CHECK_EQ_U64(cal.clock_mt, 1000);
  CHECK_EQ_U64(cal.pair_mt, 2000);
  t.create_event_block("Execute");
  EventTracerEntry e = t.start_profiling("op", 0, 1);
  t.end_profiling(e);
  etkit::ETDumpResult out = t.get_etdump_data();
  REQUIRE(verified(out.buf, out.size));
  etk_etdump_t *d = open_dump(out.buf, out.size);
  REQUIRE(d != nullptr);
  CHECK_EQ_U64(etk_etdump_run_count(d), 2);
  CHECK_EQ_U64(etk_etdump_event_count(d), 1);
  CHECK(run_name(d, 1).rfind("etkit:calibration=pair=2.000,", 0) == 0);
  etk_etdump_close(d);
}

ETK_TEST(full_buffer_gives_a_valid_truncated_dump) {
  static uint8_t small[24 * 1024];
  etkit::ETDumpTracerConfig c = counted(&ticks_a);
  c.max_strings = 16;
  etkit::ETDumpTracer t(Span<uint8_t>(small, sizeof small), c);
  REQUIRE(t.init_error() == Error::Ok);
  t.create_event_block("Execute");
  const uint32_t n = 2000;
  for (uint32_t i = 0; i < n; i++) {
    t.set_chain_debug_handle(0, i);
    t.end_profiling(t.start_profiling("OPERATOR_CALL"));
  }
  uint32_t dropped = t.dropped_events();
  CHECK(dropped > 0 && dropped < n);
  etkit::ETDumpResult out = t.get_etdump_data();
  REQUIRE(out.buf != nullptr);
  json_t *j = nullptr;
  REQUIRE(rt_check_dump(static_cast<const uint8_t *>(out.buf), out.size, &j));
  if (j != nullptr) json_decref(j);
  etk_etdump_t *d = open_dump(out.buf, out.size);
  REQUIRE(d != nullptr);
  REQUIRE(etk_etdump_run_count(d) == 2);
  etk_etdump_run_t run;
  REQUIRE(etk_etdump_run_get(d, 0, &run) == ETK_OK);
  CHECK_EQ_U64(run.event_count + dropped, n); /* the prefix that fitted */
  CHECK(run_name(d, 1) == "etkit:dropped_events=" + std::to_string(dropped));
  etk_etdump_close(d);
  CHECK(inspector_tsv(out.buf, out.size, ETK_INSPECT_VIEW_EVENTS)
            .find("OPERATOR_CALL") != std::string::npos);
}

/* Instruction ids of the profile events of run `r`, in order. */
std::vector<int32_t> run_instructions(const etk_etdump_t *d, size_t r) {
  std::vector<int32_t> ids;
  etk_etdump_run_t run;
  if (etk_etdump_run_get(d, r, &run) != ETK_OK) return ids;
  for (uint32_t i = 0; i < run.event_count; i++) {
    etk_etdump_event_t ev;
    if (etk_etdump_event_get(d, run.first_event + i, &ev) != ETK_OK) break;
    ids.push_back(ev.instruction_id);
  }
  return ids;
}

ETK_TEST(ring_keeps_the_newest_events) {
  static uint8_t small[24 * 1024];
  etkit::ETDumpTracerConfig c = counted(&ticks_a);
  c.max_strings = 16;
  /* what the arena holds when it stops (the same arena, stop mode) */
  uint32_t capacity;
  {
    etkit::ETDumpTracer stop(Span<uint8_t>(small, sizeof small), c);
    stop.create_event_block("Execute");
    for (uint32_t i = 0; i < 2000; i++)
      stop.end_profiling(stop.start_profiling("OPERATOR_CALL"));
    capacity = 2000 - stop.dropped_events();
  }
  c.when_full = etkit::WhenFull::kRing;
  etkit::ETDumpTracer t(Span<uint8_t>(small, sizeof small), c);
  t.create_event_block("Execute");
  const uint32_t n = 2000;
  for (uint32_t i = 0; i < n; i++) {
    t.set_chain_debug_handle(0, i);
    t.end_profiling(t.start_profiling("OPERATOR_CALL"));
  }
  /* names first met when the arena is full: the begin makes room (and
   * counts nothing itself); each one's event is the newest */
  std::vector<std::string> late;
  for (uint32_t i = 0; i < 10; i++) { /* 12 of the 16 names */
    late.push_back("late_operator_name_number_" + std::to_string(i));
    t.set_chain_debug_handle(0, n + i);
    t.end_profiling(t.start_profiling(late.back().c_str()));
  }
  CHECK_EQ_INT(t.error_count(), 0); /* every event was taken */
  etkit::ETDumpResult out = t.get_etdump_data();
  REQUIRE(verified(out.buf, out.size));
  etk_etdump_t *d = open_dump(out.buf, out.size);
  REQUIRE(d != nullptr);
  REQUIRE(etk_etdump_run_count(d) == 2);
  CHECK(run_name(d, 0) == "Execute");
  {
    etk_etdump_event_t ev;
    REQUIRE(etk_etdump_event_get(d, etk_etdump_event_count(d) - 1, &ev) ==
            ETK_OK);
    CHECK(std::string(ev.name.data, ev.name.len) == late.back());
  }
  /* exactly the newest events, in order, and the count of the others; a
   * ring discards an eighth at a time, so it holds at least 7/8 of what
   * the arena holds */
  std::vector<int32_t> ids = run_instructions(d, 0);
  const uint32_t total = n + 10;
  REQUIRE(!ids.empty());
  CHECK(ids.size() >= capacity * 3 / 4 && ids.size() <= capacity);
  bool consecutive = true;
  for (size_t i = 0; i < ids.size(); i++)
    if (ids[i] != static_cast<int32_t>(total - ids.size() + i))
      consecutive = false;
  CHECK(consecutive);
  CHECK(run_name(d, 1) ==
        "etkit:dropped_events=" + std::to_string(total - ids.size()));
  etk_etdump_close(d);
}

ETK_TEST(ring_across_blocks_and_values) {
  static uint8_t small[32 * 1024];
  alignas(64) static uint8_t debug[64 * 1024];
  TensorFactory<ScalarType::Float> tf;
  Tensor a = tf.make({2, 2}, {1, 2, 3, 4});
  etkit::ETDumpTracerConfig c = counted(&ticks_a);
  c.max_strings = 16;
  c.when_full = etkit::WhenFull::kRing;
  etkit::ETDumpTracer t(Span<uint8_t>(small, sizeof small), c);
  REQUIRE(t.set_debug_buffer(Span<uint8_t>(debug, sizeof debug)) == Error::Ok);
  uint32_t logged_events = 0;
  for (uint32_t b = 0; b < 6; b++) {
    t.create_event_block(b % 2 == 0 ? "Method::init" : "Method::execute");
    for (uint32_t i = 0; i < 150; i++) {
      t.set_chain_debug_handle(0, b * 1000 + i);
      t.end_profiling(t.start_profiling("OPERATOR_CALL"));
      logged_events++;
      if (i % 10 == 0 && b >= 3) {
        CHECK(logged(
            t.log_evalue(EValue(a), LoggedEValueType::kIntermediateOutput)));
        logged_events++;
      }
    }
  }
  CHECK_EQ_INT(t.error_count(), 0);
  etkit::ETDumpResult out = t.get_etdump_data();
  REQUIRE(verified(out.buf, out.size));
  json_t *j = nullptr;
  REQUIRE(rt_check_dump(static_cast<const uint8_t *>(out.buf), out.size, &j));
  if (j != nullptr) json_decref(j);
  etk_etdump_t *d = open_dump(out.buf, out.size);
  REQUIRE(d != nullptr);
  size_t runs = etk_etdump_run_count(d);
  REQUIRE(runs >= 2);
  /* the last block is whole and last; the marker counts every other event */
  CHECK(run_name(d, runs - 2) == "Method::execute");
  size_t kept = etk_etdump_event_count(d);
  CHECK(kept > 0 && kept < logged_events); /* it did wrap */
  CHECK(runs < 7);                         /* whole old blocks went */
  CHECK(run_name(d, runs - 1) ==
        "etkit:dropped_events=" + std::to_string(logged_events - kept));
  std::vector<int32_t> last = run_instructions(d, runs - 2);
  REQUIRE(!last.empty());
  CHECK_EQ_INT(last.back(), 5149);
  /* the first kept event is the oldest kept: every later one is newer */
  etk_etdump_event_t first;
  REQUIRE(etk_etdump_event_get(d, 0, &first) == ETK_OK);
  CHECK(first.instruction_id >= 0);
  CHECK(inspector_tsv(out.buf, out.size, ETK_INSPECT_VIEW_EVENTS)
            .find("OPERATOR_CALL") != std::string::npos);
  etk_etdump_close(d);
}

/* Issue 28: when the name table is full, a ring discarded an eighth of its
 * events for every call with a new name (discarding frees no name), so
 * 1,000 events and 2,000 delegate names left an empty dump where a stopped
 * recorder keeps 2,022 events.  A ring keeps at least what stop keeps, and
 * goes on recording events whose names it knows. */
static size_t names_run_out(etkit::WhenFull when_full, std::string *last) {
  etkit::ETDumpTracerConfig c = counted(&ticks_a);
  c.when_full = when_full; /* 8 MiB heap arena, 1,024 names */
  etkit::ETDumpTracer t(c);
  t.create_event_block("Execute");
  for (uint32_t i = 0; i < 1000; i++)
    t.end_profiling(t.start_profiling("OPERATOR_CALL"));
  for (uint32_t i = 0; i < 2000; i++) {
    std::string name = "delegate_" + std::to_string(i);
    t.log_profiling_delegate(name.c_str(), -1, i, i + 1);
  }
  for (uint32_t i = 0; i < 5; i++) { /* a known name: recorded by a ring */
    t.set_chain_debug_handle(0, 7000 + i);
    t.end_profiling(t.start_profiling("OPERATOR_CALL"));
  }
  etkit::ETDumpResult out = t.get_etdump_data();
  if (out.buf == nullptr || !verified(out.buf, out.size)) {
    std::free(out.buf);
    return 0;
  }
  etk_etdump_t *d = open_dump(out.buf, out.size);
  size_t kept = 0;
  if (d != nullptr) {
    etk_etdump_event_t ev;
    kept = etk_etdump_event_count(d);
    if (kept > 0 && etk_etdump_event_get(d, kept - 1, &ev) == ETK_OK)
      *last = std::string(ev.name.data, ev.name.len) + "@" +
              std::to_string(ev.instruction_id);
    etk_etdump_close(d);
  }
  std::free(out.buf);
  return kept;
}

ETK_TEST(ring_keeps_what_stop_keeps_when_names_run_out) {
  std::string stop_last, ring_last;
  size_t stop = names_run_out(etkit::WhenFull::kStop, &stop_last);
  size_t ring = names_run_out(etkit::WhenFull::kRing, &ring_last);
  CHECK_EQ_INT(stop, 2022); /* 1,000 + the 1,022 names that fit */
  CHECK(ring >= stop);
  CHECK_EQ_INT(ring, stop + 5);
  CHECK(ring_last == "OPERATOR_CALL@7004");
}

/* start_profiling caches names by address: a buffer reused with another
 * text (longer, shorter, same prefix) still records the text it holds. */
ETK_TEST(names_by_address_are_checked) {
  etkit::ETDumpTracer t(arena_a, sizeof arena_a, counted(&ticks_a));
  t.create_event_block("Execute");
  char name[32];
  const char *texts[] = {"conv", "relu", "conv_longer", "con", "conv", ""};
  for (const char *text : texts) {
    std::strcpy(name, text);
    t.end_profiling(t.start_profiling(name));
    t.end_profiling(t.start_profiling("conv")); /* another address */
  }
  CHECK_EQ_INT(t.error_count(), 0);
  etkit::ETDumpResult out = t.get_etdump_data();
  etk_etdump_t *d = open_dump(out.buf, out.size);
  REQUIRE(d != nullptr);
  REQUIRE(etk_etdump_event_count(d) == 12);
  for (size_t i = 0; i < 12; i++) {
    etk_etdump_event_t ev;
    REQUIRE(etk_etdump_event_get(d, i, &ev) == ETK_OK);
    std::string got =
        ev.name.data ? std::string(ev.name.data, ev.name.len) : std::string();
    CHECK(got == (i % 2 ? std::string("conv") : std::string(texts[i / 2])));
  }
  etk_etdump_close(d);
}

ETK_TEST(new_dump_after_get_and_heap_mode) {
  etkit::ETDumpTracer t; /* heap mode, as ETDumpGen's default */
  REQUIRE(t.init_error() == Error::Ok);
  CHECK(!t.is_static_etdump());
  t.create_event_block("Default");
  t.end_profiling(t.start_profiling("Method::init"));
  etkit::ETDumpResult first = t.get_etdump_data();
  REQUIRE(first.buf != nullptr);
  t.create_event_block("Execute");
  t.end_profiling(t.start_profiling("Method::execute"));
  CHECK_EQ_U64(t.get_num_blocks(), 1); /* a fresh dump */
  etkit::ETDumpResult second = t.get_etdump_data();
  REQUIRE(second.buf != nullptr);
  CHECK(first.buf != second.buf); /* each a copy the caller frees */
  etk_etdump_t *d = open_dump(second.buf, second.size);
  REQUIRE(d != nullptr);
  CHECK_EQ_U64(etk_etdump_run_count(d), 1);
  CHECK(run_name(d, 0) == "Execute");
  etk_etdump_close(d);
  d = open_dump(first.buf, first.size);
  REQUIRE(d != nullptr);
  CHECK(run_name(d, 0) == "Default");
  etk_etdump_close(d);
  std::free(first.buf);
  std::free(second.buf);
  /* reset forgets everything */
  t.create_event_block("X");
  t.reset();
  etkit::ETDumpResult none = t.get_etdump_data();
  CHECK(none.buf == nullptr);
  /* a caller buffer too small for the recorder: an error, not an abort */
  uint8_t tiny[64];
  etkit::ETDumpTracer bad(tiny, sizeof tiny);
  CHECK(bad.init_error() == Error::InvalidArgument);
  bad.create_event_block("Execute");
  bad.end_profiling(bad.start_profiling("x"));
  CHECK(bad.get_etdump_data().buf == nullptr);
  CHECK(bad.error_count() > 0);
}

ETK_TEST(streaming_sink_and_writer) {
  TensorFactory<ScalarType::Float> tf;
  Tensor a = tf.make({3}, {1, 2, 3});
  etkit::ETDumpTracer t(arena_a, sizeof arena_a, counted(&ticks_a));
  struct Out {
    std::vector<uint8_t> data;
    static int write(void *ctx, const void *p, size_t n) {
      const uint8_t *b = static_cast<const uint8_t *>(p);
      static_cast<Out *>(ctx)->data.insert(static_cast<Out *>(ctx)->data.end(),
                                           b, b + n);
      return ETK_OK;
    }
    static int sink(void *ctx, const void *p, size_t n, uint64_t *offset) {
      *offset = static_cast<Out *>(ctx)->data.size();
      return write(ctx, p, n);
    }
  } tensors, dump;
  etk_data_sink_t s = {Out::sink, &tensors};
  REQUIRE(t.set_data_sink(s) == Error::Ok);
  CHECK(t.get_data_sink() == nullptr);
  t.create_event_block("Execute");
  CHECK(t.log_evalue(EValue(a), LoggedEValueType::kIntermediateOutput).ok());
  CHECK(t.log_evalue(EValue(a), LoggedEValueType::kIntermediateOutput).ok());
  CHECK_EQ_U64(tensors.data.size(), 24); /* no alignment padding */
  REQUIRE(t.write_etdump(Out::write, &dump) == Error::Ok);
  etk_etdump_t *d = open_dump(dump.data.data(), dump.data.size());
  REQUIRE(d != nullptr);
  etk_etdump_value_t v;
  REQUIRE(etk_etdump_event_value(d, 1, &v) == ETK_OK);
  CHECK_EQ_INT(v.tensor.offset, 12);
  etk_etdump_close(d);
}

int main(int argc, char **argv) {
  executorch::runtime::runtime_init();
  return etk_test_main(argc, argv);
}
