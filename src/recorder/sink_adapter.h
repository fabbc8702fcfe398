/*
 * sink_adapter.h - the etk_data_sink_t adapter every recorder sink shares.
 *
 * Each concrete sink (buffer, stream, FILE*) has a typed write function
 * `PREFIX_write(TYPE *, const void *, size_t, uint64_t *)`; the recorder
 * calls sinks through the untyped etk_data_sink_t.  ETK_DEFINE_SINK_ADAPTER
 * writes the two pieces that bridge them: a static callback that casts the
 * context back to TYPE, and the public `PREFIX_as_data_sink(TYPE *)` that
 * pairs that callback with the sink.  Private to src/recorder.
 */
#ifndef ETKIT_RECORDER_SINK_ADAPTER_H
#define ETKIT_RECORDER_SINK_ADAPTER_H

#include "etkit/recorder.h"

#define ETK_DEFINE_SINK_ADAPTER(PREFIX, TYPE)                                 \
  static int PREFIX##_write_callback(void *ctx, const void *data, size_t len, \
                                     uint64_t *offset) {                      \
    return PREFIX##_write((TYPE *)ctx, data, len, offset);                    \
  }                                                                           \
  etk_data_sink_t PREFIX##_as_data_sink(TYPE *s) {                            \
    etk_data_sink_t d;                                                        \
    d.write = PREFIX##_write_callback;                                        \
    d.ctx = s;                                                                \
    return d;                                                                 \
  }

#endif
