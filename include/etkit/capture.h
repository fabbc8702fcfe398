/*
 * etkit/capture.h - the host side of the transport: every file a device
 * sent, found in a byte stream or a text log.
 *
 * A capture is fed bytes in pieces of any size (a serial line, a pipe, a
 * log file) and finds two kinds of files in them:
 *   - frames of the etkit transport (etkit/transport.h, docs/transport.md):
 *     each chunk checked by its CRC-32, its sequence number and offset,
 *     each file by its end-of-file frame (total length, whole-file CRC);
 *   - blocks of upstream's Arm runner log: "#[RUN THIS]", then for each
 *     file `echo "<base64>" | base64 -d >NAME`, then "#[END]" (LF or CRLF
 *     line ends).  Those carry no check, so a decoded ETDump must verify as
 *     a size-prefixed ETDump and a debug buffer must hold every tensor the
 *     block's ETDump logged.
 * Everything else is log text and is skipped.
 *
 * Each file is handed to the `file` callback once, complete or not: a
 * damaged, missing, duplicated or reordered chunk, a missing end-of-file
 * frame, a cut base64 line or a file that does not verify makes it
 * incomplete, with one line per problem.  The bytes of an incomplete file
 * are its good prefix (what arrived in order before the first hole).  The
 * library opens nothing; the caller writes the files (`etkit capture`
 * writes incomplete ones as NAME.partial only).
 *
 * MEMORY
 *   Bounded whatever the input's size: one frame (at most ~66 KB) and one
 *   256-byte line, plus the files being assembled, which grow with the
 *   bytes that really arrived (never with a length a frame claims).
 */
#ifndef ETKIT_CAPTURE_H
#define ETKIT_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/etdump.h"
#include "etkit/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etk_capture_source {
  ETK_CAPTURE_FRAMED = 1, /* etkit transport frames */
  ETK_CAPTURE_ARM_LOG = 2 /* an upstream Arm runner block (base64) */
} etk_capture_source_t;

typedef struct etk_capture_file {
  const char *name;     /* as sent, e.g. "etdump.etdp" */
  const char *out_name; /* unique within the capture: a second
                           "etdump.bin" is "etdump-2.bin" */
  etk_tx_kind_t kind;   /* etdump, debug buffer, output, log, other */
  etk_capture_source_t source;
  const uint8_t *data; /* the file, or an incomplete file's good prefix */
  size_t size;
  uint64_t expected;           /* total length announced, 0 when unknown */
  int complete;                /* 1: whole and checked */
  size_t problem_count;        /* > 0 exactly when !complete */
  const char *const *problems; /* one line each, e.g. "chunk 3 missing" */
  uint64_t stream_offset;      /* where in the stream the file began */
} etk_capture_file_t;

/* Called once per file.  Everything it points at dies when it returns.  A
 * non-zero return stops the capture: etk_capture_feed/finish return it. */
typedef int (*etk_capture_file_fn)(void *ctx, const etk_capture_file_t *file);
/* A problem of the stream that belongs to no file ("damaged frame at byte
 * 1234", "Arm log block at line 7 has no #[END]"). */
typedef void (*etk_capture_problem_fn)(void *ctx, const char *message);

typedef struct etk_capture_callbacks {
  etk_capture_file_fn file;       /* required */
  etk_capture_problem_fn problem; /* optional */
  void *ctx;
} etk_capture_callbacks_t;

typedef struct etk_capture_stats {
  uint64_t bytes;      /* fed so far */
  uint64_t text_bytes; /* bytes outside frames */
  uint64_t frames;     /* good frames */
  uint64_t bad_frames; /* frames that failed their checks */
  uint64_t files, complete, incomplete;
  uint64_t problems; /* stream problems, each file's included */
  int ended;         /* an end-of-stream frame was seen */
} etk_capture_stats_t;

typedef struct etk_capture etk_capture_t;

/* A new capture.  Errors: ETK_E_INVALID_ARGUMENT (no file callback),
 * ETK_E_NO_MEMORY. */
int etk_capture_new(const etk_capture_callbacks_t *cb, etk_capture_t **out);

/* Feeds n bytes.  Returns ETK_OK, ETK_E_NO_MEMORY, or a callback's
 * non-zero return (the capture is then stopped: later calls return it). */
int etk_capture_feed(etk_capture_t *cap, const void *bytes, size_t n);

/* The input ended: every file still open is reported incomplete ("no
 * end-of-file frame"), an open Arm block too.  Call once; then free. */
int etk_capture_finish(etk_capture_t *cap);

/* 1 once an end-of-stream frame (etk_tx_end_stream) or, in an Arm log, an
 * "#[END]" line was seen: a reader of a serial line may stop there. */
int etk_capture_ended(const etk_capture_t *cap);

void etk_capture_get_stats(const etk_capture_t *cap, etk_capture_stats_t *out);

void etk_capture_free(etk_capture_t *cap);

/* new + feed(all of data) + finish + free, for a stream held in memory. */
int etk_capture_buffer(const void *data, size_t n,
                       const etk_capture_callbacks_t *cb,
                       etk_capture_stats_t *stats);

/* The kind's name: "etdump", "debug_buffer", "output", "log", "other",
 * "end_stream" ("unknown" otherwise). */
const char *etk_capture_kind_name(int kind);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_CAPTURE_H */
