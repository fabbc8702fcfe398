/*
 * etkit/transport.h - files off a device over any byte pipe (UART, RTT,
 * a semihosting stream, a socket): the portable frame writer.
 *
 * C99, no heap, no OS, no stdio.  A firmware links src/transport/ (one .c
 * file, with src/core/) and gives it one function that moves bytes out:
 *
 *     int write(void *ctx, const void *bytes, size_t n);
 *
 * returning 0 when all n bytes went out and a negative value on failure
 * (the type is that of etk_write_fn in etkit/recorder.h, so the recorder's
 * stream sink and etk_recorder_finish_stream() write through it too).  The
 * host side, `etkit capture` and etkit/capture.h, finds the frames in the
 * received bytes, even when the firmware's own log text is mixed in.
 *
 * WIRE FORMAT (docs/transport.md gives it byte by byte)
 *   Every file is cut into chunks; each chunk is one frame:
 *
 *     0x00  0xFF 'E' 'T'  rCOBS(payload)  0x00
 *
 *   payload = version, flags (FIRST, LAST), the file's id (1..255, given
 *   by the writer), then on the first chunk the kind and the name, on the
 *   others the sequence number and the offset (LEB128), then the data,
 *   then on the last of several chunks the whole-file CRC-32 (the file's
 *   length is that chunk's offset plus its length), then the CRC-32 of
 * everything before it (little-endian).  The name goes once per file; a file of
 * one chunk needs no trailer (the frame's CRC covers it whole).  rCOBS is COBS
 * with each group's code byte after the group instead of before it, so the
 * writer needs no look-ahead buffer; the payload has no 0x00 on the wire and
 * 0x00 delimits frames.  Text lines (which never hold 0x00 or 0xFF) printed
 *   between two writer calls land between frames.
 *
 * RAM AND WIRE COST
 *   etk_tx_t is the writer's whole state: at most 256 bytes (checked at
 *   compile time; 220 on Cortex-M), ETK_TX_STAGE of them staging small
 *   streamed writes.  Code: about 2.9 KB of flash with the CRC table.
 *   A file costs 15 bytes plus its name, and each further chunk of
 *   `chunk_bytes` (default 4,096) 14 to 18; with rCOBS's 1 byte per 254
 *   non-zero bytes, the wire carries about 0.2% to 1% more than the files
 *   (bench/capture).
 *
 * SENDING A WHOLE FILE (the ETDump in RAM after etk_recorder_finish)
 *
 *     static int uart_write(void *ctx, const void *bytes, size_t n) {
 *       const uint8_t *p = bytes;
 *       (void)ctx;
 *       while (n--) board_uart_putc(*p++);   // blocking putc of the board
 *       return 0;
 *     }
 *
 *     etk_tx_t tx;
 *     etk_tx_init(&tx, uart_write, NULL);
 *     const uint8_t *dump; size_t len;
 *     etk_recorder_finish(rec, &dump, &len);
 *     etk_tx_send_file(&tx, ETK_TX_KIND_ETDUMP, "etdump.etdp", dump, len);
 *     etk_tx_send_file(&tx, ETK_TX_KIND_DEBUG_BUFFER, "debug_buffer.bin",
 *                      debug_buf, etk_recorder_debug_buffer_used(rec));
 *     etk_tx_part_t npy[2] = {{header, header_len}, {tensor, nbytes}};
 *     etk_tx_send_parts(&tx, ETK_TX_KIND_OUTPUT, "output_0.npy", npy, 2);
 *     etk_tx_end_stream(&tx);    // tells `etkit capture` to stop
 *
 * STREAMING A FILE (the debug buffer as the recorder logs tensors)
 *
 *     etk_tx_open(&tx, ETK_TX_KIND_DEBUG_BUFFER, "debug_buffer.bin");
 *     etk_stream_sink_t sink;
 *     etk_stream_sink_init(&sink, etk_tx_write, &tx);   // ctx = the writer
 *     etk_data_sink_t ds = etk_stream_sink_as_data_sink(&sink);
 *     etk_recorder_set_data_sink(rec, &ds);
 *     ... run the model; every logged tensor goes out as it is logged ...
 *     etk_tx_close(&tx);       // last chunk: the file's CRC
 *
 *   Only one file is open at a time per writer; etk_tx_send_file() needs
 *   none open.  Several writers must not share one pipe (their file ids
 *   would collide).  Every call writes whole frames (small writes wait in the
 *   staging area), so the firmware may print log lines between calls,
 *   never from inside `write`.  The name is borrowed until etk_tx_close.
 *   Many small writes cost a frame each past ETK_TX_STAGE bytes; when the
 *   pipe carries nothing else until etk_tx_close, etk_tx_set_exclusive()
 *   keeps each chunk's frame open across writes instead (full chunks).
 *
 * ERRORS
 *   ETK_E_INVALID_ARGUMENT (NULL, a bad name or kind), ETK_E_INVALID_STATE
 *   (a file already open / none open), ETK_E_LIMIT (a file past 4 GiB),
 *   ETK_E_IO (`write` failed: the writer stays failed until etk_tx_init,
 *   since the host has seen a hole; the host names the file incomplete).
 */
#ifndef ETKIT_TRANSPORT_H
#define ETKIT_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The byte pipe: write all n bytes, 0 on success, negative on failure. */
typedef int (*etk_tx_write_fn)(void *ctx, const void *bytes, size_t n);

/* What a file is (the payload's kind byte). */
typedef enum etk_tx_kind {
  ETK_TX_KIND_END_STREAM = 0, /* control frame: nothing more follows */
  ETK_TX_KIND_ETDUMP = 1,
  ETK_TX_KIND_DEBUG_BUFFER = 2,
  ETK_TX_KIND_OUTPUT = 3, /* a program output's bytes */
  ETK_TX_KIND_LOG = 4,    /* a text log kept as a file */
  ETK_TX_KIND_OTHER = 5
} etk_tx_kind_t;

enum {
  ETK_TX_VERSION = 2,
  ETK_TX_STAGE = 176,          /* bytes of staging in etk_tx_t */
  ETK_TX_NAME_MAX = 64,        /* bytes of a file name */
  ETK_TX_CHUNK_DEFAULT = 4096, /* data bytes per chunk */
  ETK_TX_CHUNK_MAX = 65535,    /* the largest chunk the format carries */
  ETK_TX_FLAG_FIRST = 1,       /* flags bit: kind and name follow the id */
  ETK_TX_FLAG_LAST = 2,        /* flags bit: the file ends with this chunk */
  /* payload bytes of every frame: version, flags, id, CRC-32 */
  ETK_TX_PAYLOAD_FIXED = 7,
  /* the most a frame adds besides those, the name and the data: kind and
   * name length, or sequence number and offset (5 + 5) and file CRC (4) */
  ETK_TX_PAYLOAD_VAR_MAX = 14,
  ETK_TX_MARKER_LEN = 3
};

/* The frame marker after the opening 0x00. */
#define ETK_TX_MARKER \
  "\xff"              \
  "ET"

typedef struct etk_tx {
  etk_tx_write_fn write;
  void *ctx;
  const char *name; /* borrowed: the open file's name */
  uint32_t seq;     /* next chunk's sequence number */
  uint32_t sent;    /* data bytes of the open file already in frames */
  uint32_t file_crc;
  uint16_t chunk_bytes; /* data bytes per chunk */
  uint16_t staged;      /* bytes waiting in stage[] */
  uint8_t kind;
  uint8_t name_len;
  uint8_t id; /* the open file's id, 1..255 */
  uint8_t open;
  uint8_t failed;
  uint8_t exclusive; /* etk_tx_set_exclusive */
  uint8_t in_frame;  /* exclusive mode: a chunk's frame is open */
  uint8_t run;       /* its rCOBS run */
  uint16_t fill;     /* its data bytes so far */
  uint32_t frame_crc;
  uint8_t stage[ETK_TX_STAGE];
} etk_tx_t;

/* Sets up a writer (chunks of ETK_TX_CHUNK_DEFAULT data bytes).  Errors:
 * ETK_E_INVALID_ARGUMENT for NULL tx or write. */
int etk_tx_init(etk_tx_t *tx, etk_tx_write_fn write, void *ctx);

/* Data bytes per chunk, 1..ETK_TX_CHUNK_MAX (larger chunks cost less wire,
 * lose more on a damaged byte; RAM is the same).  No file may be open. */
int etk_tx_set_chunk_bytes(etk_tx_t *tx, size_t bytes);

/* Exclusive mode (on != 0) for a pipe that carries nothing else while a
 * file is streamed: a chunk's frame stays open across etk_tx_write calls
 * until it holds chunk_bytes, so writes of any size cost what a whole file
 * costs (~1%) instead of a frame per write; but text printed before
 * etk_tx_close lands inside a frame and damages that chunk.  Whole files
 * (etk_tx_send_file) are the same in both modes.  No file may be open. */
int etk_tx_set_exclusive(etk_tx_t *tx, int on);

/* Whether `name` can name a file: 1..ETK_TX_NAME_MAX bytes of [A-Za-z0-9._+-],
 * not starting with '.' (a host writes it under its output folder as is). */
int etk_tx_name_ok(const char *name, size_t len);

/* Sends `len` bytes as one file: ceil(len / chunk_bytes) frames (one for an
 * empty file), the first naming it, the last of several carrying the
 * whole file's CRC. */
int etk_tx_send_file(etk_tx_t *tx, etk_tx_kind_t kind, const char *name,
                     const void *data, size_t len);

/* A piece of a file for etk_tx_send_parts. */
typedef struct etk_tx_part {
  const void *data;
  size_t len;
} etk_tx_part_t;

/* Sends the concatenation of nparts pieces as one file, as
 * etk_tx_send_file would send it whole (e.g. a .npy header and the
 * tensor's bytes, without copying them together). */
int etk_tx_send_parts(etk_tx_t *tx, etk_tx_kind_t kind, const char *name,
                      const etk_tx_part_t *parts, size_t nparts);

/* Streams a file: open, any number of writes, close. */
int etk_tx_open(etk_tx_t *tx, etk_tx_kind_t kind, const char *name);
/* Appends n bytes to the open file (`ctx` is the etk_tx_t *): an
 * etk_write_fn for etk_stream_sink_init().  Returns 0 or an ETK_E_* code. */
int etk_tx_write(void *ctx, const void *bytes, size_t n);
/* Sends what is staged as the last chunk (empty when nothing is). */
int etk_tx_close(etk_tx_t *tx);

/* Sends the end-of-stream frame (FIRST and LAST, id 0, kind 0, no name,
 * no data): a capture that
 * reads a serial line stops there.  No file may be open. */
int etk_tx_end_stream(etk_tx_t *tx);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32): start with crc = 0. */
uint32_t etk_crc32(uint32_t crc, const void *data, size_t n);

/* Frame bytes on the wire for a file of `len` bytes at most (the worst
 * case, every data byte non-zero), for sizing a log or a budget. */
uint64_t etk_tx_wire_bound(size_t len, size_t name_len, size_t chunk_bytes);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_TRANSPORT_H */
