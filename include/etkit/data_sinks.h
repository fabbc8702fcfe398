/*
 * etkit/data_sinks.h - the recorder's ready-made data sinks: in memory
 * (upstream BufferDataSink), a byte stream (UART, SEGGER RTT, the
 * transport of etkit/transport.h) and, on hosts, a file (upstream
 * FileDataSink).  Each gives an etk_data_sink_t for
 * etk_recorder_set_data_sink (etkit/recorder.h, which includes this).
 */
#ifndef ETKIT_DATA_SINKS_H
#define ETKIT_DATA_SINKS_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* In-memory sink (upstream BufferDataSink).  Each non-empty write starts at
 * the next ABSOLUTE address that is a multiple of `alignment` (so a base
 * that is not aligned gives a non-zero first offset); gap bytes are zeroed;
 * the offset is from `buf`.  A write that does not fit returns ETK_E_FULL
 * and changes nothing. */
typedef struct etk_buffer_sink {
  uint8_t *buf; /* borrowed */
  size_t capacity;
  size_t used; /* end of the last write */
  size_t alignment;
} etk_buffer_sink_t;

/* `alignment` must be a power of two (1, 2, ... 128, ...); 0 or others are
 * ETK_E_INVALID_ARGUMENT.  `buf` may be NULL only if cap == 0. */
int etk_buffer_sink_init(etk_buffer_sink_t *s, void *buf, size_t cap,
                         size_t alignment);
int etk_buffer_sink_write(etk_buffer_sink_t *s, const void *data, size_t len,
                          uint64_t *offset);
size_t etk_buffer_sink_capacity(const etk_buffer_sink_t *s);
size_t etk_buffer_sink_used(const etk_buffer_sink_t *s);
etk_data_sink_t etk_buffer_sink_as_data_sink(etk_buffer_sink_t *s);

/* Stream sink for a link such as UART or SEGGER RTT: bytes are passed to
 * `write` in order and the offset is the running byte count (what a host
 * that concatenates the stream into a file will see).  After a failed
 * write every write fails with ETK_E_IO (the stream has a hole). */
typedef struct etk_stream_sink {
  etk_write_fn write;
  void *ctx;
  uint64_t written;
  int failed;
} etk_stream_sink_t;

/* `write` must not be NULL (ETK_E_INVALID_ARGUMENT). */
int etk_stream_sink_init(etk_stream_sink_t *s, etk_write_fn write, void *ctx);
int etk_stream_sink_write(etk_stream_sink_t *s, const void *data, size_t len,
                          uint64_t *offset);
etk_data_sink_t etk_stream_sink_as_data_sink(etk_stream_sink_t *s);

/* Host file sink (upstream FileDataSink; ETK_RECORDER_HOST builds only):
 * fopen(path, "wb"), offsets are the running byte count, no alignment.
 * Errors: ETK_E_IO when the file cannot be created ("" included), on a
 * short write, or on a write after close; ETK_E_INVALID_ARGUMENT for NULL. */
typedef struct etk_file_sink {
  void *fp; /* FILE *, NULL once closed */
  uint64_t written;
} etk_file_sink_t;

int etk_file_sink_open(etk_file_sink_t *s, const char *path);
int etk_file_sink_write(etk_file_sink_t *s, const void *data, size_t len,
                        uint64_t *offset);
uint64_t etk_file_sink_used(const etk_file_sink_t *s);
/* Closes the file (idempotent); ETK_E_IO if flushing failed. */
int etk_file_sink_close(etk_file_sink_t *s);
etk_data_sink_t etk_file_sink_as_data_sink(etk_file_sink_t *s);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_DATA_SINKS_H */
