/*
 * stream_edit.h - byte streams for the capture tests: a growable buffer
 * the frame writer writes into, and the damage a real line does to one
 * (a flipped byte, a lost, doubled or moved frame, a cut end, text inside
 * a frame).  Used by test_capture.c and make_streams.c.
 */
#ifndef ETK_STREAM_EDIT_H
#define ETK_STREAM_EDIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct buf {
  uint8_t *p;
  size_t len, cap;
} buf_t;

/* An etk_tx_write_fn appending to a buf_t. */
int buf_write(void *ctx, const void *bytes, size_t n);
void buf_text(buf_t *b, const char *s);

/* Frame k of the stream: its start, and in *end the byte after its
 * closing 0x00 (0 when there is no frame k). */
size_t frame_at(const buf_t *b, int k, size_t *end);
/* Replaces b[at..at+cut) by ins[0..n). */
void splice(buf_t *b, size_t at, size_t cut, const uint8_t *ins, size_t n);

/* The damage kinds, by frame number in the stream. */
void edit_flip(buf_t *b, int frame);       /* a bit of byte 300 */
void edit_lose(buf_t *b, int frame);       /* the frame is gone */
void edit_duplicate(buf_t *b, int frame);  /* sent twice */
void edit_swap_next(buf_t *b, int frame);  /* after the next one */
void edit_cut_inside(buf_t *b, int frame); /* the stream ends mid-frame */
void edit_inject(buf_t *b, int frame);     /* a log line inside it */

#endif
