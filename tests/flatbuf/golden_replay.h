/*
 * golden_replay.h - rebuilds the upstream golden ETDumps
 * (../shared/conformance/golden_*.etdp) with etkit's builder, replaying the
 * call sequence upstream's writer makes (docs etdump-recorder.md 4.3/4.5).
 *
 * Used by the byte-exactness tests and by the fuzz corpus generator.  Each
 * replay builds with the builder it is given and returns the builder status;
 * on success *out and *len give the finished size-prefixed buffer.
 */
#ifndef ETK_TEST_GOLDEN_REPLAY_H
#define ETK_TEST_GOLDEN_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/flatbuf.h"

int golden_replay_empty_block(etk_fb_builder_t *b, const uint8_t **out,
                              size_t *len);
int golden_replay_allocators(etk_fb_builder_t *b, const uint8_t **out,
                             size_t *len);
int golden_replay_delegate_events(etk_fb_builder_t *b, const uint8_t **out,
                                  size_t *len);
int golden_replay_debug_events(etk_fb_builder_t *b, const uint8_t **out,
                               size_t *len);

/* Any of the replays above. */
typedef int (*golden_replay_fn)(etk_fb_builder_t *b, const uint8_t **out,
                                size_t *len);

/* Runs `replay` on a fresh builder over mem[0..cap) and returns its status
 * (the builder's when mem cannot hold one), *out and *len as it gives them. */
int golden_replay_into(golden_replay_fn replay, void *mem, size_t cap,
                       const uint8_t **out, size_t *len);

#endif
