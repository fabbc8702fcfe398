/*
 * buffer_data_sink.h - upstream's BufferDataSink at upstream's path:
 * tensor bytes copied into a caller's buffer, each blob starting at an
 * address aligned to `alignment` (64 by default), the padding zeroed.
 * The buffer is borrowed; nothing is allocated.
 */
#ifndef ETKIT_UPSTREAM_BUFFER_DATA_SINK_H
#define ETKIT_UPSTREAM_BUFFER_DATA_SINK_H

#include <cstddef>
#include <cstdint>

#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/span.h>

namespace executorch {
namespace etdump {

class BufferDataSink : public DataSinkBase {
 public:
  /* Error::InvalidArgument unless alignment is a power of two. */
  static ::executorch::runtime::Result<BufferDataSink> create(
      ::executorch::runtime::Span<uint8_t> buffer,
      size_t alignment = 64) noexcept;
  static ::executorch::runtime::Result<BufferDataSink> create(
      void *ptr, size_t size, size_t alignment = 64) noexcept;

  /* An empty sink: every non-empty write is Error::OutOfResources. */
  BufferDataSink() = default;
  BufferDataSink(const BufferDataSink &) = delete;
  BufferDataSink &operator=(const BufferDataSink &) = delete;
  BufferDataSink(BufferDataSink &&) = default;
  BufferDataSink &operator=(BufferDataSink &&) = default;
  ~BufferDataSink() override = default;

  /* The offset of the copy from the buffer's start; length 0 writes nothing
   * and returns the bytes used; Error::OutOfResources when it does not fit
   * (nothing written). */
  ::executorch::runtime::Result<size_t> write(const void *ptr,
                                              size_t length) override;
  ::executorch::runtime::Result<size_t> get_storage_size() const;
  size_t get_used_bytes() const override;

 private:
  BufferDataSink(::executorch::runtime::Span<uint8_t> buffer, size_t alignment)
      : debug_buffer_(buffer), alignment_(alignment) {}

  ::executorch::runtime::Span<uint8_t> debug_buffer_;
  size_t offset_ = 0;
  size_t alignment_ = 64;
};

}  // namespace etdump
}  // namespace executorch

#endif  // ETKIT_UPSTREAM_BUFFER_DATA_SINK_H
