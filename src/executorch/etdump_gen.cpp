/*
 * etdump_gen.cpp - upstream's ETDumpGen, BufferDataSink and FileDataSink
 * (devtools/etdump/... as upstream spells them) over etkit::ETDumpTracer.
 *
 * PURPOSE
 *   An application written for upstream's ETDumpGen builds and runs with
 *   etkit without an edit: the headers in include/executorch/devtools/etdump
 *   (this folder) declare upstream's classes, and this file gives the few
 *   members whose return types differ from the native tracer's.  All the
 *   recording is ETDumpTracer's (executorch_event_tracer.cpp).
 *
 * DATA LAYOUT
 *   ETDumpGen adds one BufferDataSink to the tracer: set_debug_buffer
 *   points it at the caller's buffer and makes it the data sink, so
 *   get_data_sink() returns it and its get_used_bytes() counts what was
 *   written, as upstream's.  BufferDataSink keeps (span, offset,
 *   alignment); FileDataSink keeps (FILE *, bytes written).
 *
 * INVARIANTS
 *   - Nothing aborts (upstream aborts on a static buffer under 128 KiB and
 *     on misuse): the tracer reports errors instead.
 *   - BufferDataSink never writes outside its span: the aligned start and
 *     the end are computed as offsets and compared with the size before
 *     any byte is copied.
 */
#include <executorch/devtools/etdump/data_sinks/buffer_data_sink.h>
#include <executorch/devtools/etdump/data_sinks/file_data_sink.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>

#include <cstdint>
#include <cstring>

namespace executorch {
namespace etdump {

using ::executorch::runtime::Error;
using ::executorch::runtime::Span;

/* ------------------------------------------------------------ ETDumpGen */

namespace {

/* The name table sized to a caller's buffer: 1,024 names (about 24 KiB)
 * from 128 KiB, upstream's minimum, and fewer below it (at least 16), so
 * that a small buffer still records instead of refusing. */
::etkit::ETDumpTracerConfig config_for(Span<uint8_t> buffer) {
  ::etkit::ETDumpTracerConfig c;
  if (buffer.data() != nullptr && buffer.size() != 0) {
    size_t names = buffer.size() / 128;
    c.max_strings =
        static_cast<uint32_t>(names < 16              ? 16
                              : names > c.max_strings ? c.max_strings
                                                      : names);
  }
  return c;
}

}  // namespace

ETDumpGen::ETDumpGen(Span<uint8_t> buffer)
    : ETDumpTracer(buffer, config_for(buffer)) {}

ETDumpGen::ETDumpGen(Span<uint8_t> buffer,
                     const ::etkit::ETDumpTracerConfig &config)
    : ETDumpTracer(buffer, config) {}

ETDumpGen::~ETDumpGen() = default;

Result<bool> ETDumpGen::set_debug_buffer(Span<uint8_t> buffer) {
  if (buffer.data() == nullptr && buffer.size() != 0)
    return Error::InvalidArgument;
  Result<BufferDataSink> sink = BufferDataSink::create(buffer);
  if (!sink.ok()) return Error::InvalidArgument;
  buffer_data_sink_ = std::move(sink.get());
  Error status = ETDumpTracer::set_data_sink(&buffer_data_sink_);
  if (status != Error::Ok) return status;
  data_sink_ = &buffer_data_sink_;
  return true;
}

void ETDumpGen::set_data_sink(DataSinkBase *data_sink) {
  /* counted when not ready */
  if (ETDumpTracer::set_data_sink(data_sink) == Error::Ok)
    data_sink_ = data_sink;
}

DataSinkBase *ETDumpGen::get_data_sink() {
  /* nullptr once the tracer forgot it (reset) or took another sink through
   * etkit's own overloads */
  ::etkit::DataSink *current = ETDumpTracer::get_data_sink();
  return current != nullptr && current == data_sink_ ? data_sink_ : nullptr;
}

/* ------------------------------------------------------- BufferDataSink */

Result<BufferDataSink> BufferDataSink::create(Span<uint8_t> buffer,
                                              size_t alignment) noexcept {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return Error::InvalidArgument;
  return BufferDataSink(buffer, alignment);
}

Result<BufferDataSink> BufferDataSink::create(void *ptr, size_t size,
                                              size_t alignment) noexcept {
  return create(Span<uint8_t>(static_cast<uint8_t *>(ptr), size), alignment);
}

Result<size_t> BufferDataSink::write(const void *ptr, size_t length) {
  if (length == 0) return offset_;
  if (ptr == nullptr || debug_buffer_.data() == nullptr)
    return Error::OutOfResources;
  uintptr_t base = reinterpret_cast<uintptr_t>(debug_buffer_.data());
  uintptr_t end = base + offset_;
  size_t pad =
      static_cast<size_t>((alignment_ - end % alignment_) % alignment_);
  size_t size = debug_buffer_.size();
  if (pad > size - offset_ || length > size - offset_ - pad)
    return Error::OutOfResources;
  size_t start = offset_ + pad;
  std::memset(debug_buffer_.data() + offset_, 0, pad);
  std::memcpy(debug_buffer_.data() + start, ptr, length);
  offset_ = start + length;
  return start;
}

Result<size_t> BufferDataSink::get_storage_size() const {
  return debug_buffer_.size();
}

size_t BufferDataSink::get_used_bytes() const {
  return offset_;
}

/* --------------------------------------------------------- FileDataSink */

Result<FileDataSink> FileDataSink::create(const char *file_path) {
  if (file_path == nullptr) return Error::InvalidArgument;
  FILE *file = std::fopen(file_path, "wb");
  if (file == nullptr) return Error::AccessFailed;
  return FileDataSink(file);
}

FileDataSink::~FileDataSink() {
  close();
}

FileDataSink::FileDataSink(FileDataSink &&other) noexcept
    : file_(other.file_), total_written_bytes_(other.total_written_bytes_) {
  other.file_ = nullptr;
}

FileDataSink &FileDataSink::operator=(FileDataSink &&other) noexcept {
  if (this != &other) {
    close();
    file_ = other.file_;
    total_written_bytes_ = other.total_written_bytes_;
    other.file_ = nullptr;
  }
  return *this;
}

Result<size_t> FileDataSink::write(const void *ptr, size_t size) {
  if (file_ == nullptr) return Error::AccessFailed;
  size_t offset = total_written_bytes_;
  if (size == 0) return offset;
  if (ptr == nullptr) return Error::InvalidArgument;
  size_t written = std::fwrite(ptr, 1, size, file_);
  total_written_bytes_ += written;
  if (written != size) return Error::Internal;
  return offset;
}

size_t FileDataSink::get_used_bytes() const {
  return total_written_bytes_;
}

void FileDataSink::close() {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
}

}  // namespace etdump
}  // namespace executorch
