/*
 * file_data_sink.h - upstream's FileDataSink at upstream's path: tensor
 * bytes appended to a file opened by create(), offsets counted from the
 * file's start, closed by close() or the destructor.
 */
#ifndef ETKIT_UPSTREAM_FILE_DATA_SINK_H
#define ETKIT_UPSTREAM_FILE_DATA_SINK_H

#include <cstddef>
#include <cstdio>

#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

namespace executorch {
namespace etdump {

class FileDataSink : public DataSinkBase {
 public:
  /* Creates (truncates) file_path; Error::AccessFailed when it cannot. */
  static ::executorch::runtime::Result<FileDataSink> create(
      const char *file_path);

  ~FileDataSink() override;
  FileDataSink(const FileDataSink &) = delete;
  FileDataSink &operator=(const FileDataSink &) = delete;
  FileDataSink(FileDataSink &&other) noexcept;
  /* Closes this sink's file and takes the other's (upstream's defaulted
   * one would close the same FILE twice). */
  FileDataSink &operator=(FileDataSink &&other) noexcept;

  /* The offset of the bytes in the file; Error::AccessFailed after
   * close(), Error::Internal when fwrite wrote less. */
  ::executorch::runtime::Result<size_t> write(const void *ptr,
                                              size_t size) override;
  size_t get_used_bytes() const override;
  void close();

 private:
  explicit FileDataSink(FILE *file) : file_(file) {}

  FILE *file_ = nullptr;
  size_t total_written_bytes_ = 0;
};

}  // namespace etdump
}  // namespace executorch

#endif  // ETKIT_UPSTREAM_FILE_DATA_SINK_H
