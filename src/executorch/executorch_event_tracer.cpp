/*
 * executorch_event_tracer.cpp - etkit::ETDumpTracer: upstream's
 * EventTracer interface over etkit's C recorder.
 *
 * PURPOSE
 *   Let ExecuTorch's own C++ runtime record with etkit's recorder (no
 *   FlatBuffers work while the model runs, no aborts, counted drops) by
 *   swapping one class for ETDumpGen.  Every virtual method of
 *   runtime/core/event_tracer.h maps to one recorder call; this file only
 *   converts arguments (EValues and Tensors to etk_recorder_value_t,
 *   EventTracerEntry to and from etk_recorder_scope_t) and errors.
 *
 * DATA LAYOUT
 *   One arena (the caller's buffer, or one malloc in heap mode) holds the
 *   whole recorder (etkit/recorder.h).  An EventTracerEntry carries a
 *   recorder scope: start_time = scope.start, chain_id/debug_handle as the
 *   scope's, and event_id = (serial << 32) | id, where id is the interned
 *   name (plain and string-id delegate scopes) or the integer delegate id;
 *   the serial lets the recorder refuse a second end of the same scope.  A
 *   begin that failed stores its (negative, small) recorder status in
 *   event_id instead, and the end returns it (a full recorder counts the
 *   event as dropped).  The tensors of one log call are converted into the
 *   tracer's own arrays (tensors_, dims_: sizes then strides as int64).
 *   name_cache_ maps the addresses of names start_profiling met to their
 *   ids and interned text (64 slots, direct-mapped, cleared with the
 *   recorder); a slot is used only when the text at the address still
 *   equals the interned text.
 *
 * HOT PATH
 *   A plain begin/end pair is two recorder calls: start_profiling resolves
 *   the name (cache), then etk_recorder_begin_mark tracks the scope and
 *   reads the clock; end_profiling passes the entry's fields to
 *   etk_recorder_end_mark (etk_recorder_end without a scope in memory).
 *   Everything else (a cache miss, an error entry, a failed end, ring
 *   mode's discarding) is out of line.
 *
 * RING MODE
 *   A call that fails with ETK_E_FULL discards the oldest events
 *   (etk_recorder_discard_oldest: an eighth, then a quarter, a half, all)
 *   and is repeated, its own drop taken back: the dump keeps the newest
 *   events and counts the others.  A call that failed on a full name table
 *   is not repeated (the recorder discards nothing then and answers
 *   ETK_E_LIMIT), so a ring keeps at least what stop mode keeps.
 *
 * LONG RUNS
 *   ProfileMode::kStats is the recorder's STATS MODE (etkit/recorder.h),
 *   its table in the same arena (stats_keys, or a key per 6 KiB of it):
 *   the profiling calls are the same, the recorder's checked end adds the
 *   duration to its key's sketch, a key that finds no room is dropped and
 *   counted (ETK_E_FULL without latching, so ring mode discards nothing for
 *   it).  set_profile_mode makes the recorder again in the arena and gives
 *   it the caller's sink again (sink_kind_).  DebugLevel::kStats is a value
 *   of upstream's own level (kEventTracerDebugStats, 3): every log call
 *   first puts the recorder at ETK_DEBUG_LEVEL_STATS when the base class
 *   holds it and back to NONE when not (sync_debug_level; the recorder's
 *   level is otherwise never consulted by its log calls).
 *
 * INVARIANTS
 *   - Nothing here aborts: misuse returns Error::InvalidArgument or
 *     Error::InvalidState (void methods count it in error_count() and keep
 *     it in last_error()); a full arena drops and counts the event.
 *   - The chain and debug handle live in the base class (its setters are
 *     not virtual); plain profiling passes them to the recorder with each
 *     event, every other call that records the current values copies them
 *     into the recorder first (sync_chain).
 *   - A valid entry's event_id is never in [-64, -1] (a serial of 2^32 - 1
 *     is stored as 0, "untracked"), so errors and entries cannot be mixed.
 */
#include "etkit/executorch_event_tracer.hpp"

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <executorch/runtime/platform/platform.h>

#include "etkit/sketch.h"

namespace etkit {

namespace {

using executorch::runtime::DelegateDebugIdType;
using executorch::runtime::Error;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::kUnsetChainId;
using executorch::runtime::kUnsetDelegateDebugIntId;

constexpr int64_t kEntryErrorFloor = -64;

Error to_error(int status) {
  switch (status) {
    case ETK_OK:
      return Error::Ok;
    case ETK_E_INVALID_ARGUMENT:
    case ETK_E_LIMIT:
    case ETK_E_BAD_UTF8:
    case ETK_E_OVERFLOW:
      return Error::InvalidArgument;
    case ETK_E_INVALID_STATE:
      return Error::InvalidState;
    case ETK_E_FULL:
    case ETK_E_NO_MEMORY:
      return Error::OutOfResources;
    default:
      return Error::Internal;
  }
}

uint64_t pal_clock(void *) {
  return executorch::runtime::pal_current_ticks();
}

bool ids_valid(const char *name, int32_t index) {
  return (name == nullptr) != (index == kUnsetDelegateDebugIntId);
}

int64_t pack(uint32_t serial, uint32_t id) {
  if (serial == UINT32_MAX) serial = 0; /* keeps [-64, -1] for errors */
  return static_cast<int64_t>((static_cast<uint64_t>(serial) << 32) | id);
}

/* The scope an entry carries (see DATA LAYOUT). */
etk_recorder_scope_t unpack(const EventTracerEntry &e) {
  etk_recorder_scope_t s;
  uint64_t bits = static_cast<uint64_t>(e.event_id);
  uint32_t id = static_cast<uint32_t>(bits);
  s.start = e.start_time;
  s.chain = e.chain_id;
  s.debug_handle = e.debug_handle;
  s.serial = static_cast<uint32_t>(bits >> 32);
  s.name = 0;
  s.delegate_index = kUnsetDelegateDebugIntId;
  if (e.event_id < 0 && e.event_id >= kEntryErrorFloor) {
    s.kind = static_cast<int32_t>(e.event_id);
    s.serial = 0;
  } else if (e.delegate_event_id_type == DelegateDebugIdType::kInt) {
    s.kind = ETK_SCOPE_DELEGATE_INT;
    s.delegate_index = static_cast<int32_t>(id);
  } else if (e.delegate_event_id_type == DelegateDebugIdType::kStr) {
    s.kind = ETK_SCOPE_DELEGATE_STR;
    s.name = id;
  } else {
    s.kind = ETK_SCOPE_PLAIN;
    s.name = id;
  }
  return s;
}

/* An entry from its fields (see DATA LAYOUT). */
inline EventTracerEntry make_entry(int64_t id, int32_t chain,
                                   uint32_t debug_handle, uint64_t start,
                                   DelegateDebugIdType type) {
  EventTracerEntry e;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
  /* The caller copies the returned entry with 16-byte loads to pass it by
   * value to end_profiling; written field by field (4- and 8-byte stores)
   * those loads cannot be forwarded and stall (~10 ns a pair).  So the
   * entry is written as two 16-byte halves (layout checked below). */
  typedef uint64_t u64x2 __attribute__((vector_size(16)));
  static_assert(sizeof(EventTracerEntry) == 32 &&
                    offsetof(EventTracerEntry, chain_id) == 8 &&
                    offsetof(EventTracerEntry, debug_handle) == 12 &&
                    offsetof(EventTracerEntry, start_time) == 16 &&
                    offsetof(EventTracerEntry, delegate_event_id_type) == 24,
                "EventTracerEntry layout");
  u64x2 halves[2] = {{static_cast<uint64_t>(id),
                      static_cast<uint32_t>(chain) |
                          static_cast<uint64_t>(debug_handle) << 32},
                     {start, static_cast<uint32_t>(type)}};
  std::memcpy(static_cast<void *>(&e), halves, sizeof halves);
#else
  e.event_id = id;
  e.chain_id = chain;
  e.debug_handle = debug_handle;
  e.start_time = start;
  e.delegate_event_id_type = type;
#endif
  return e;
}

EventTracerEntry entry_of(const etk_recorder_scope_t &s,
                          DelegateDebugIdType type) {
  int64_t id;
  if (s.kind < 0)
    id = s.kind;
  else if (type == DelegateDebugIdType::kInt)
    id = pack(s.serial, static_cast<uint32_t>(s.delegate_index));
  else
    id = pack(s.serial, s.name);
  return make_entry(id, s.chain, s.debug_handle, s.start, type);
}

/* t.nbytes() without its out-of-line call for the dtypes ETDump holds
 * (numel is inline); other dtypes ask the tensor (the recorder refuses
 * them anyway). */
size_t tensor_nbytes(const executorch::aten::Tensor &t) {
  size_t element;
  switch (t.scalar_type()) {
    case executorch::aten::ScalarType::Byte:
    case executorch::aten::ScalarType::Char:
    case executorch::aten::ScalarType::Bool:
      element = 1;
      break;
    case executorch::aten::ScalarType::Short:
    case executorch::aten::ScalarType::Bits16:
    case executorch::aten::ScalarType::UInt16:
      element = 2;
      break;
    case executorch::aten::ScalarType::Int:
    case executorch::aten::ScalarType::Float:
      element = 4;
      break;
    case executorch::aten::ScalarType::Long:
    case executorch::aten::ScalarType::Double:
      element = 8;
      break;
    default:
      return t.nbytes();
  }
  return static_cast<size_t>(t.numel()) * element;
}

/* Whether the NUL-terminated `s` is the interned `text` (len bytes and a
 * NUL, no NUL before).  Byte by byte: it stops at the first difference,
 * so it never reads past the end of `s`. */
inline bool same_text(const char *s, const char *text, uint32_t len) {
  for (uint32_t i = 0; i <= len; i++)
    if (s[i] != text[i]) return false;
  return true;
}

/* Stats mode's default table: a key per 6 KiB of arena (its sketch,
 * about 1 KiB, and the output reserved once it is used, about 2 KiB,
 * leave half the arena to names and records), 1 to 1024 keys. */
uint32_t default_stats_keys(size_t arena) {
  size_t keys = arena / 6144;
  return static_cast<uint32_t>(keys < 1 ? 1 : keys > 1024 ? 1024 : keys);
}

bool valid_profile(ProfileMode mode, double error, uint32_t keys) {
  if (mode != ProfileMode::kFull && mode != ProfileMode::kStats) return false;
  if (error != 0.0 && !(error >= ETK_SKETCH_MIN_RELATIVE_ERROR &&
                        error <= ETK_SKETCH_MAX_RELATIVE_ERROR))
    return false; /* NaN too */
  return keys <= ETK_LATENCY_MAX_KEYS;
}

}  // namespace

/* ------------------------------------------------------------ set-up */

ETDumpTracer::ETDumpTracer() : ETDumpTracer(ETDumpTracerConfig()) {}

ETDumpTracer::ETDumpTracer(const ETDumpTracerConfig &config)
    : ETDumpTracer(nullptr, 0, config) {}

ETDumpTracer::ETDumpTracer(executorch::runtime::Span<uint8_t> buffer,
                           const ETDumpTracerConfig &config)
    : ETDumpTracer(buffer.data(), buffer.size(), config) {}

ETDumpTracer::ETDumpTracer(uint8_t *buffer, size_t size,
                           const ETDumpTracerConfig &config)
    : config_(config) {
  if (buffer == nullptr || size == 0) {
    size = heap_mode_arena(&heap_arena_);
    if (heap_arena_ == nullptr) {
      init_error_ = Error::MemoryAllocationFailed;
      return;
    }
    buffer = heap_arena_;
  }
  arena_ = buffer;
  arena_size_ = size;
  init();
}

/* Heap mode's arena: config_.heap_arena_bytes, or on a heap that has not
 * that much (a board's, where upstream's Arm runner default-constructs
 * ETDumpGen) half as much at a time down to kMinHeapArena.  A reduced arena
 * is halved once more, so the heap keeps room for get_etdump_data()'s copy,
 * and the name table shrinks with it (a name per 128 bytes, as ETDumpGen
 * sizes it for a caller's buffer).  *out is nullptr when even the minimum
 * fails. */
size_t ETDumpTracer::heap_mode_arena(uint8_t **out) {
  static const size_t kMinHeapArena = size_t(64) << 10;
  size_t want = config_.heap_arena_bytes == 0 ? 1 : config_.heap_arena_bytes;
  size_t size = want;
  void *p = std::malloc(size);
  while (p == nullptr && size > kMinHeapArena) {
    size = size / 2 < kMinHeapArena ? kMinHeapArena : size / 2;
    p = std::malloc(size);
  }
  if (p != nullptr && size < want) {
    if (size / 2 >= kMinHeapArena) {
      void *smaller = std::realloc(p, size / 2);
      if (smaller != nullptr) {
        p = smaller;
        size /= 2;
      }
    }
    size_t names = size / 128;
    if (names < config_.max_strings)
      config_.max_strings = static_cast<uint32_t>(names < 16 ? 16 : names);
  }
  *out = static_cast<uint8_t *>(p);
  return size;
}

ETDumpTracer::~ETDumpTracer() {
  std::free(heap_arena_);
}

void ETDumpTracer::init() {
  etk_recorder_config_t c;
  etk_recorder_config_init(&c);
  c.clock = config_.clock != nullptr ? config_.clock : pal_clock;
  c.clock_ctx = config_.clock != nullptr ? config_.clock_ctx : nullptr;
  c.max_strings = config_.max_strings;
  if (config_.profile_mode == ProfileMode::kStats) {
    c.profile_mode = ETK_PROFILE_MODE_STATS;
    c.stats_error = config_.stats_error;
    c.stats_keys = config_.stats_keys != 0 ? config_.stats_keys
                                           : default_stats_keys(arena_size_);
  }
  rec_ = nullptr;
  recorder_stats_ = false; /* a new recorder starts at ETK_DEBUG_LEVEL_NONE */
  int status = etk_recorder_init(&rec_, arena_, arena_size_, &c);
  if (status != ETK_OK) {
    rec_ = nullptr;
    init_error_ = Error::InvalidArgument; /* buffer or max_strings */
    return;
  }
  init_error_ = Error::Ok;
  synced_chain_ = kUnsetChainId;
  synced_handle_ = executorch::runtime::kUnsetDebugHandle;
  for (NameSlot &e : name_cache_) e = NameSlot(); /* ids of the old one */
}

void ETDumpTracer::reset() {
  user_sink_ = nullptr;
  sink_kind_ = SinkKind::kNone;
  if (arena_ != nullptr) init();
}

/* The sink the caller gave, to a recorder made anew. */
void ETDumpTracer::restore_sink() {
  etk_data_sink_t s = {sink_trampoline, this};
  switch (sink_kind_) {
    case SinkKind::kUser:
      etk_recorder_set_data_sink(rec_, &s);
      break;
    case SinkKind::kC:
      etk_recorder_set_data_sink(rec_, &c_sink_);
      break;
    case SinkKind::kBuffer:
      etk_recorder_set_debug_buffer(rec_, debug_span_.data(),
                                    debug_span_.size());
      break;
    case SinkKind::kNone:
      break;
  }
}

ETDumpTracer::Error ETDumpTracer::set_profile_mode(ProfileMode mode,
                                                   double relative_error,
                                                   uint32_t keys) {
  if (arena_ == nullptr) return init_error_; /* no arena to make it in */
  if (!valid_profile(mode, relative_error, keys)) return Error::InvalidArgument;
  if (rec_ != nullptr &&
      (etk_recorder_block_count(rec_) != 0 || etk_recorder_dropped(rec_) != 0))
    return Error::InvalidState; /* it would lose what was recorded */
  ETDumpTracerConfig before = config_;
  config_.profile_mode = mode;
  config_.stats_error = relative_error;
  config_.stats_keys = keys;
  init();
  Error status = Error::Ok;
  if (rec_ == nullptr) { /* no room for the table: the old mode again */
    config_ = before;
    init();
    status = Error::OutOfResources;
  }
  restore_sink();
  return status;
}

void ETDumpTracer::sync_debug_level_now(bool stats) {
  etk_recorder_set_debug_level(
      rec_, stats ? ETK_DEBUG_LEVEL_STATS : ETK_DEBUG_LEVEL_NONE);
  recorder_stats_ = stats;
}

void ETDumpTracer::count_error(int status) {
  if (error_count_ != UINT32_MAX) error_count_++;
  last_error_ = to_error(status);
}

void ETDumpTracer::sync_chain_now() {
  etk_recorder_set_chain_debug_handle(rec_, chain_id_, debug_handle_);
  synced_chain_ = chain_id_;
  synced_handle_ = debug_handle_;
}

/* Ring mode: a call that failed for lack of space makes room by discarding
 * the oldest events (an eighth of them on the first attempt, then a
 * quarter, a half, all) and is repeated; true when the caller should
 * repeat it.  When the call failed because the name table is full,
 * discarding cannot help: the recorder discards nothing, clears its latch
 * and answers ETK_E_LIMIT (no repeat; the event stays dropped).
 * `counted`: the failed call counted its drop (ends and logs do; a begin
 * that could not intern its name counts nothing until its end), which the
 * repeat takes back. */
bool ETDumpTracer::wrap_when_full(int status, int attempt, bool counted) {
  etk_recorder_stats_t st;
  if (status != ETK_E_FULL || config_.when_full != WhenFull::kRing ||
      attempt >= 4)
    return false;
  etk_recorder_stats(rec_, &st);
  uint32_t n = attempt == 3 ? st.events : st.events >> (3 - attempt);
  return etk_recorder_discard_oldest(rec_, n != 0 ? n : 1u, counted ? 1 : 0) ==
         ETK_OK;
}

/* ------------------------------------------------------------ blocks */

void ETDumpTracer::create_event_block(const char *name) {
  if (rec_ == nullptr) return fail(ETK_E_INVALID_STATE);
  if (name == nullptr) return fail(ETK_E_INVALID_ARGUMENT);
  etk_recorder_set_bundled_input_index(rec_, bundled_input_index_);
  int status = etk_recorder_begin_block(rec_, name);
  for (int a = 0; wrap_when_full(status, a); a++)
    status = etk_recorder_begin_block(rec_, name);
  fail(status);
}

size_t ETDumpTracer::get_num_blocks() const {
  return etk_recorder_block_count(rec_);
}

/* ------------------------------------------------------------ profiling */

EventTracerEntry ETDumpTracer::start_profiling(const char *name,
                                               ChainID chain_id,
                                               DebugHandle debug_handle) {
  if (chain_id == kUnsetChainId) {
    /* upstream: the current chain AND handle */
    chain_id = chain_id_;
    debug_handle = debug_handle_;
  }
  if (rec_ != nullptr) {
    uint32_t id = 0;
    if (name != nullptr) {
      const NameSlot &e = name_cache_[name_slot(name)];
      if (e.key != name || !same_text(name, e.text, e.len))
        return start_profiling_slow(name, chain_id, debug_handle);
      id = e.id;
    }
    /* the usual case: a cached name, then one call (scope tracked for the
     * second-end check, clock read); nothing else lives across it */
    etk_recorder_mark_t m = etk_recorder_begin_mark(rec_);
    return make_entry(pack(m.serial, id), chain_id, debug_handle, m.start,
                      DelegateDebugIdType::kNone);
  }
  return make_entry(ETK_E_INVALID_STATE, chain_id, debug_handle, 0,
                    DelegateDebugIdType::kNone);
}

/* start_profiling of a name not in the cache: interned by the recorder
 * (errors carried in the entry, a full arena wrapped in ring mode), then
 * cached. */
EventTracerEntry ETDumpTracer::start_profiling_slow(const char *name,
                                                    ChainID chain_id,
                                                    DebugHandle debug_handle) {
  etk_recorder_scope_t s =
      etk_recorder_begin_named(rec_, name, chain_id, debug_handle);
  for (int a = 0; s.kind == ETK_E_FULL && wrap_when_full(ETK_E_FULL, a, false);
       a++)
    s = etk_recorder_begin_named(rec_, name, chain_id, debug_handle);
  if (s.kind > 0 && s.name != 0) {
    size_t len = 0;
    const char *text = etk_recorder_name_string(rec_, s.name, &len);
    NameSlot &e = name_cache_[name_slot(name)];
    e.key = name;
    e.text = text;
    e.id = s.name;
    e.len = static_cast<uint32_t>(len);
  }
  return entry_of(s, DelegateDebugIdType::kNone);
}

int ETDumpTracer::end_scope(const etk_recorder_scope_t &scope, bool delegate,
                            const void *metadata, size_t metadata_len) {
  int status =
      delegate ? etk_recorder_end_delegate(rec_, &scope, metadata, metadata_len)
               : etk_recorder_end(rec_, &scope);
  if (scope.kind > 0) {
    /* the failed end closed the scope: end it again untracked */
    etk_recorder_scope_t again = scope;
    again.serial = 0;
    for (int a = 0; status == ETK_E_FULL && wrap_when_full(status, a); a++)
      status = delegate ? etk_recorder_end_delegate(rec_, &again, metadata,
                                                    metadata_len)
                        : etk_recorder_end(rec_, &again);
  }
  return status;
}

void ETDumpTracer::end_profiling(EventTracerEntry prof_entry) {
  if (rec_ == nullptr) return fail(ETK_E_INVALID_STATE);
  /* upstream aborts on a delegate entry */
  if (prof_entry.delegate_event_id_type != DelegateDebugIdType::kNone)
    return fail(ETK_E_INVALID_ARGUMENT);
  if (prof_entry.event_id < 0 && prof_entry.event_id >= kEntryErrorFloor)
    return end_failed(prof_entry, ETK_OK); /* the begin failed */
  /* the usual case in one call, with the entry's fields in registers */
  uint64_t bits = static_cast<uint64_t>(prof_entry.event_id);
  etk_recorder_mark_t m;
  m.start = prof_entry.start_time;
  m.serial = static_cast<uint32_t>(bits >> 32);
  int status =
      etk_recorder_end_mark(rec_, static_cast<uint32_t>(bits),
                            prof_entry.chain_id, prof_entry.debug_handle, m);
  if (status != ETK_OK) end_failed(prof_entry, status);
}

/* end_profiling off the hot path: an entry carrying its begin's error
 * (status ETK_OK: not tried yet), or an end that failed (a full arena is
 * wrapped in ring mode). */
void ETDumpTracer::end_failed(const EventTracerEntry &entry, int status) {
  etk_recorder_scope_t s = unpack(entry);
  if (s.kind < 0) {
    fail(etk_recorder_end(rec_, &s)); /* counts a drop for ETK_E_FULL */
    return;
  }
  s.serial = 0; /* the failed end closed the scope */
  for (int a = 0; status == ETK_E_FULL && wrap_when_full(status, a); a++)
    status = etk_recorder_end(rec_, &s);
  fail(status);
}

EventTracerEntry ETDumpTracer::start_profiling_delegate(
    const char *name, DelegateDebugIntId delegate_debug_index) {
  etk_recorder_scope_t s;
  DelegateDebugIdType type =
      name != nullptr ? DelegateDebugIdType::kStr : DelegateDebugIdType::kInt;
  if (rec_ == nullptr) {
    s.kind = ETK_E_INVALID_STATE;
  } else {
    sync_chain();
    s = etk_recorder_begin_delegate(rec_, name, delegate_debug_index);
    for (int a = 0;
         s.kind == ETK_E_FULL && wrap_when_full(ETK_E_FULL, a, false); a++)
      s = etk_recorder_begin_delegate(rec_, name, delegate_debug_index);
  }
  if (s.kind < 0) {
    /* upstream aborts on a broken id rule; the entry carries the error */
    s.chain = chain_id_;
    s.debug_handle = debug_handle_;
    s.start = 0;
    if (s.kind != ETK_E_FULL) fail(s.kind);
  }
  return entry_of(s, type);
}

void ETDumpTracer::end_profiling_delegate(EventTracerEntry event_tracer_entry,
                                          const void *metadata,
                                          size_t metadata_len) {
  etk_recorder_scope_t s;
  if (rec_ == nullptr) return fail(ETK_E_INVALID_STATE);
  /* upstream would write a kNone entry's name as a string id */
  if (event_tracer_entry.delegate_event_id_type == DelegateDebugIdType::kNone)
    return fail(ETK_E_INVALID_ARGUMENT);
  s = unpack(event_tracer_entry);
  if (s.kind < 0 && s.kind != ETK_E_FULL) return; /* counted at start */
  sync_chain(); /* the chain and handle at END time, as upstream */
  fail(end_scope(s, true, metadata, metadata_len));
}

void ETDumpTracer::log_profiling_delegate(
    const char *name, DelegateDebugIntId delegate_debug_index,
    et_timestamp_t start_time, et_timestamp_t end_time, const void *metadata,
    size_t metadata_len) {
  int status;
  if (rec_ == nullptr) return fail(ETK_E_INVALID_STATE);
  sync_chain();
  status =
      etk_recorder_log_delegate(rec_, name, delegate_debug_index, start_time,
                                end_time, metadata, metadata_len);
  for (int a = 0; wrap_when_full(status, a); a++)
    status =
        etk_recorder_log_delegate(rec_, name, delegate_debug_index, start_time,
                                  end_time, metadata, metadata_len);
  fail(status);
}

/* ------------------------------------------------------------ memory */

void ETDumpTracer::track_allocation(AllocatorID id, size_t size) {
  int status;
  if (rec_ == nullptr) return fail(ETK_E_INVALID_STATE);
  status = etk_recorder_track_allocation(rec_, id, size);
  for (int a = 0; wrap_when_full(status, a); a++)
    status = etk_recorder_track_allocation(rec_, id, size);
  fail(status);
}

ETDumpTracer::AllocatorID ETDumpTracer::track_allocator(const char *name) {
  uint32_t id = 0;
  if (rec_ == nullptr) {
    fail(ETK_E_INVALID_STATE);
    return 0;
  }
  fail(etk_recorder_track_allocator(rec_, name, &id));
  return id;
}

/* ------------------------------------------------------------ values */

ETDumpTracer::Result<bool> ETDumpTracer::log_value(
    const char *name, DelegateDebugIntId index,
    const etk_recorder_value_t &value, bool delegate, bool program_output) {
  etk_logged_type_t type = program_output ? ETK_LOGGED_PROGRAM_OUTPUT
                                          : ETK_LOGGED_INTERMEDIATE_OUTPUT;
  int status;
  if (rec_ == nullptr) return init_error_;
  sync_chain();
  sync_debug_level();
  status = delegate ? etk_recorder_log_delegate_value(rec_, name, index, &value)
                    : etk_recorder_log_value(rec_, &value, type);
  for (int a = 0; wrap_when_full(status, a); a++)
    status = delegate
                 ? etk_recorder_log_delegate_value(rec_, name, index, &value)
                 : etk_recorder_log_value(rec_, &value, type);
  if (status == ETK_OK) return true;
  if (status == ETK_RECORDER_FILTERED) return false;
  return to_error(status);
}

ETDumpTracer::Result<bool> ETDumpTracer::log_tensors(
    const char *name, DelegateDebugIntId index, const Tensor *tensors,
    size_t count, bool list, bool delegate, bool program_output) {
  size_t used = 0;
  etk_recorder_value_t value;
  if (count > kMaxListTensors) return Error::NotSupported;
  for (size_t i = 0; i < count; i++) {
    const Tensor &t = tensors[i];
    size_t dim = static_cast<size_t>(t.dim());
    etk_recorder_tensor_t *out = &tensors_[i];
    if (t.dim() < 0 || dim > ETK_RECORDER_MAX_DIMS || t.strides().size() != dim)
      return Error::InvalidArgument;
    if (dim > kMaxListDims - used) return Error::NotSupported;
    for (size_t d = 0; d < dim; d++) {
      dims_[2 * used + d] = t.sizes()[d];
      dims_[2 * used + dim + d] = t.strides()[d];
    }
    out->scalar_type = static_cast<int32_t>(t.scalar_type());
    out->dim = static_cast<uint32_t>(dim);
    out->sizes = &dims_[2 * used];
    out->strides = &dims_[2 * used + dim];
    out->data = t.const_data_ptr();
    out->nbytes = tensor_nbytes(t);
    used += dim;
  }
  value = list ? etk_value_tensor_list(tensors_, count)
               : etk_value_tensor(&tensors_[0]);
  return log_value(name, index, value, delegate, program_output);
}

ETDumpTracer::Result<bool> ETDumpTracer::log_evalue(
    const executorch::runtime::EValue &evalue,
    executorch::runtime::LoggedEValueType evalue_type) {
  using executorch::runtime::LoggedEValueType;
  using executorch::runtime::Tag;
  bool output = evalue_type == LoggedEValueType::kProgramOutput;
  if (evalue_type != LoggedEValueType::kProgramOutput &&
      evalue_type != LoggedEValueType::kIntermediateOutput)
    return Error::InvalidArgument;
  switch (evalue.tag) {
    case Tag::Tensor: {
      /* the tag is checked: a reference, no Result copy */
      const Tensor &t = evalue.toTensor();
      return log_tensors(nullptr, kUnsetDelegateDebugIntId, &t, 1, false, false,
                         output);
    }
    case Tag::ListTensor: {
      auto list = evalue.tryToTensorList();
      if (!list.ok()) return list.error();
      return log_tensors(nullptr, kUnsetDelegateDebugIntId, list->data(),
                         list->size(), true, false, output);
    }
    case Tag::Int:
      return log_value(nullptr, kUnsetDelegateDebugIntId,
                       etk_value_int(evalue.toInt()), false, output);
    case Tag::Double:
      return log_value(nullptr, kUnsetDelegateDebugIntId,
                       etk_value_double(evalue.toDouble()), false, output);
    case Tag::Bool:
      return log_value(nullptr, kUnsetDelegateDebugIntId,
                       etk_value_bool(evalue.toBool() ? 1 : 0), false, output);
    default:
      return Error::InvalidArgument; /* upstream aborts */
  }
}

/* The checks every delegate output overload makes first, as upstream: the
 * id rule, then the filter (true = drop). */
#define ETKIT_DELEGATE_OUTPUT_CHECKS(name, index)               \
  do {                                                          \
    if (!ids_valid(name, index)) return Error::InvalidArgument; \
    if (filter_ != nullptr) {                                   \
      Result<bool> drop = filter_->filter(name, index);         \
      if (!drop.ok()) return drop.error();                      \
      if (drop.get()) return false;                             \
    }                                                           \
  } while (0)

ETDumpTracer::Result<bool> ETDumpTracer::log_intermediate_output_delegate(
    const char *name, DelegateDebugIntId delegate_debug_index,
    const Tensor &output) {
  ETKIT_DELEGATE_OUTPUT_CHECKS(name, delegate_debug_index);
  return log_tensors(name, delegate_debug_index, &output, 1, false, true,
                     false);
}

ETDumpTracer::Result<bool> ETDumpTracer::log_intermediate_output_delegate(
    const char *name, DelegateDebugIntId delegate_debug_index,
    const executorch::runtime::ArrayRef<Tensor> output) {
  ETKIT_DELEGATE_OUTPUT_CHECKS(name, delegate_debug_index);
  return log_tensors(name, delegate_debug_index, output.data(), output.size(),
                     true, true, false);
}

ETDumpTracer::Result<bool> ETDumpTracer::log_delegate_scalar(
    const char *name, DelegateDebugIntId index,
    const etk_recorder_value_t &value) {
  ETKIT_DELEGATE_OUTPUT_CHECKS(name, index);
  return log_value(name, index, value, true, false);
}

#undef ETKIT_DELEGATE_OUTPUT_CHECKS

ETDumpTracer::Result<bool> ETDumpTracer::log_intermediate_output_delegate(
    const char *name, DelegateDebugIntId delegate_debug_index,
    const int &output) {
  return log_delegate_scalar(name, delegate_debug_index, etk_value_int(output));
}

ETDumpTracer::Result<bool> ETDumpTracer::log_intermediate_output_delegate(
    const char *name, DelegateDebugIntId delegate_debug_index,
    const bool &output) {
  return log_delegate_scalar(name, delegate_debug_index,
                             etk_value_bool(output ? 1 : 0));
}

ETDumpTracer::Result<bool> ETDumpTracer::log_intermediate_output_delegate(
    const char *name, DelegateDebugIntId delegate_debug_index,
    const double &output) {
  return log_delegate_scalar(name, delegate_debug_index,
                             etk_value_double(output));
}

void ETDumpTracer::set_delegation_intermediate_output_filter(
    executorch::runtime::EventTracerFilterBase *event_tracer_filter) {
  filter_ = event_tracer_filter;
}

/* ------------------------------------------------------------ sinks */

int ETDumpTracer::sink_trampoline(void *ctx, const void *data, size_t len,
                                  uint64_t *offset) {
  DataSink *sink = static_cast<ETDumpTracer *>(ctx)->user_sink_;
  if (sink == nullptr) return ETK_E_INVALID_STATE;
  Result<size_t> r = sink->write(data, len);
  if (!r.ok())
    return r.error() == Error::OutOfResources ||
                   r.error() == Error::MemoryAllocationFailed
               ? ETK_E_FULL
               : ETK_E_IO;
  *offset = r.get();
  return ETK_OK;
}

ETDumpTracer::Error ETDumpTracer::set_debug_buffer(
    executorch::runtime::Span<uint8_t> buffer) {
  if (rec_ == nullptr) return init_error_;
  int status =
      etk_recorder_set_debug_buffer(rec_, buffer.data(), buffer.size());
  if (status == ETK_OK) {
    user_sink_ = nullptr;
    sink_kind_ = SinkKind::kBuffer;
    debug_span_ = buffer;
  }
  return to_error(status);
}

ETDumpTracer::Error ETDumpTracer::set_data_sink(DataSink *sink) {
  etk_data_sink_t s = {sink_trampoline, this};
  if (rec_ == nullptr) return init_error_;
  user_sink_ = sink;
  sink_kind_ = sink != nullptr ? SinkKind::kUser : SinkKind::kNone;
  etk_recorder_set_data_sink(rec_, sink != nullptr ? &s : nullptr);
  return Error::Ok;
}

ETDumpTracer::Error ETDumpTracer::set_data_sink(const etk_data_sink_t &sink) {
  if (rec_ == nullptr) return init_error_;
  if (sink.write == nullptr) return Error::InvalidArgument;
  user_sink_ = nullptr;
  sink_kind_ = SinkKind::kC;
  c_sink_ = sink;
  etk_recorder_set_data_sink(rec_, &sink);
  return Error::Ok;
}

/* ------------------------------------------------------------ output */

ETDumpResult ETDumpTracer::get_etdump_data() {
  ETDumpResult result;
  const uint8_t *data = nullptr;
  size_t len = 0;
  if (rec_ == nullptr) return result;
  int status = etk_recorder_finish(rec_, &data, &len);
  if (status != ETK_OK) {
    if (status != ETK_E_INVALID_STATE) fail(status); /* no block: {0, 0} */
    return result;
  }
  if (heap_arena_ != nullptr) {
    void *copy = std::malloc(len);
    if (copy == nullptr) {
      fail(ETK_E_NO_MEMORY);
      return result;
    }
    std::memcpy(copy, data, len);
    result.buf = copy;
  } else {
    result.buf = const_cast<uint8_t *>(data);
  }
  result.size = len;
  return result;
}

ETDumpTracer::Error ETDumpTracer::write_etdump(etk_write_fn write, void *ctx) {
  if (rec_ == nullptr) return init_error_;
  if (write == nullptr) return Error::InvalidArgument;
  int status = etk_recorder_finish_stream(rec_, write, ctx);
  return status == ETK_E_IO ? Error::AccessFailed : to_error(status);
}

uint32_t ETDumpTracer::dropped_events() const {
  return etk_recorder_dropped(rec_);
}

ETDumpTracer::Error ETDumpTracer::calibrate(uint32_t repetitions,
                                            etk_recorder_calibration_t *out) {
  if (rec_ == nullptr) return init_error_;
  return to_error(etk_recorder_calibrate(rec_, nullptr, 0, repetitions, out));
}

}  // namespace etkit
