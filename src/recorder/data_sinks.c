/*
 * data_sinks.c - portable destinations for logged tensor bytes: an
 * in-memory buffer (upstream BufferDataSink) and a byte stream for links
 * such as UART or SEGGER RTT.
 *
 * PURPOSE
 *   The ETDump itself stores only a tensor's dtype, sizes, strides and the
 *   OFFSET at which its bytes can be found in a separate "debug buffer".
 *   A sink decides where those bytes go and what the offset means.
 *
 * DATA LAYOUT
 *   Buffer sink: buf[0..used) holds the data written so far; each write
 *   starts at the next absolute address that is a multiple of `alignment`
 *   (upstream aligns addresses, not offsets, so an unaligned base gives a
 *   non-zero first offset); the gap is zeroed.
 *   Stream sink: no storage; the offset is the number of bytes handed to
 *   the writer so far, which is where a host that appends the stream to a
 *   file finds them.
 *
 * INVARIANTS
 *   - used <= capacity; a write that does not fit changes nothing and
 *     returns ETK_E_FULL (upstream: OutOfResources).
 *   - A zero-length write writes nothing and reports the current offset.
 *   - Range checks are written `start <= cap && len <= cap - start`.
 */
#include <string.h>

#include "etkit/recorder.h"
#include "sink_adapter.h"

int etk_buffer_sink_init(etk_buffer_sink_t *s, void *buf, size_t cap,
                         size_t alignment) {
  if (s == NULL) return ETK_E_INVALID_ARGUMENT;
  if (alignment == 0 || (alignment & (alignment - 1u)) != 0)
    return ETK_E_INVALID_ARGUMENT;
  if (buf == NULL && cap != 0) return ETK_E_INVALID_ARGUMENT;
  s->buf = (uint8_t *)buf;
  s->capacity = cap;
  s->used = 0;
  s->alignment = alignment;
  return ETK_OK;
}

int etk_buffer_sink_write(etk_buffer_sink_t *s, const void *data, size_t len,
                          uint64_t *offset) {
  size_t start;
  if (s == NULL || offset == NULL || (data == NULL && len != 0))
    return ETK_E_INVALID_ARGUMENT;
  if (len == 0) {
    *offset = s->used;
    return ETK_OK;
  }
  {
    uintptr_t at = (uintptr_t)s->buf + s->used;
    size_t gap = (size_t)((0u - at) & (uintptr_t)(s->alignment - 1u));
    if (gap > s->capacity - s->used) return ETK_E_FULL;
    start = s->used + gap;
  }
  if (len > s->capacity - start) return ETK_E_FULL;
  memset(s->buf + s->used, 0, start - s->used);
  memcpy(s->buf + start, data, len);
  s->used = start + len;
  *offset = start;
  return ETK_OK;
}

size_t etk_buffer_sink_capacity(const etk_buffer_sink_t *s) {
  return s != NULL ? s->capacity : 0;
}

size_t etk_buffer_sink_used(const etk_buffer_sink_t *s) {
  return s != NULL ? s->used : 0;
}

ETK_DEFINE_SINK_ADAPTER(etk_buffer_sink, etk_buffer_sink_t)

int etk_stream_sink_init(etk_stream_sink_t *s, etk_write_fn write, void *ctx) {
  if (s == NULL || write == NULL) return ETK_E_INVALID_ARGUMENT;
  s->write = write;
  s->ctx = ctx;
  s->written = 0;
  s->failed = 0;
  return ETK_OK;
}

int etk_stream_sink_write(etk_stream_sink_t *s, const void *data, size_t len,
                          uint64_t *offset) {
  if (s == NULL || offset == NULL || (data == NULL && len != 0))
    return ETK_E_INVALID_ARGUMENT;
  if (s->failed) return ETK_E_IO;
  if (len != 0 && s->write(s->ctx, data, len) != 0) {
    s->failed = 1;
    return ETK_E_IO;
  }
  *offset = s->written;
  s->written += len;
  return ETK_OK;
}

ETK_DEFINE_SINK_ADAPTER(etk_stream_sink, etk_stream_sink_t)
