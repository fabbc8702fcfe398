/*
 * capture_internal.h - the capture's state, shared by capture.c (the
 * stream, frames, framed files), arm_log.c (upstream's Arm runner log
 * blocks) and capture_file.c (files being assembled, problems, reporting),
 * which both parsers call.  Private to src/capture/.
 */
#ifndef ETKIT_CAPTURE_INTERNAL_H
#define ETKIT_CAPTURE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"
#include "common/vec.h"
#include "etkit/capture.h"

/* Encoded bytes of the largest frame: marker excluded, payload of the
 * largest chunk with the longest name, one code per 254 bytes, the last. */
#define CAP_PAYLOAD_MAX                                              \
  (ETK_TX_PAYLOAD_FIXED + ETK_TX_PAYLOAD_VAR_MAX + ETK_TX_NAME_MAX + \
   ETK_TX_CHUNK_MAX)
#define CAP_FRAME_MAX (CAP_PAYLOAD_MAX + CAP_PAYLOAD_MAX / 254 + 2)
#define CAP_LINE_MAX 256
#define CAP_PROBLEMS_MAX 32 /* per file; then one "... more" line */
#define CAP_OPEN_MAX 64     /* framed files assembled at once */

typedef struct cap_range {
  uint32_t lo, hi; /* missing sequence numbers lo..hi */
  bool damaged;    /* a damaged frame was seen where they should be */
} cap_range_t;

/* A file being assembled. */
typedef struct cap_file {
  char name[ETK_TX_NAME_MAX + 1];
  int kind, source;
  int id;        /* framed: the writer's file id */
  uint8_t *data; /* the good prefix */
  size_t size, cap;
  uint64_t expected;
  uint64_t stream_offset;
  uint32_t next_seq;
  bool unnamed;        /* framed: its first chunk has not arrived */
  bool hole;           /* data stopped being appended */
  bool failed;         /* a problem was named */
  bool damage_pending; /* a damaged frame came after its last good chunk */
  ETK_VEC(char *) problems;
  size_t problems_dropped;
  ETK_VEC(cap_range_t) missing;
} cap_file_t;

typedef enum cap_state {
  CAP_TEXT,  /* between frames */
  CAP_FRAME, /* after a marker, collecting up to the 0x00 */
  CAP_SKIP   /* a frame too long: drop bytes up to the next 0x00 */
} cap_state_t;

/* Upstream's Arm runner log parser (arm_log.c). */
typedef enum arm_mode {
  ARM_LINE,   /* collecting a line's first CAP_LINE_MAX bytes */
  ARM_BASE64, /* inside echo "...": decoding */
  ARM_TAIL    /* after the closing quote: the " | base64 -d >NAME" */
} arm_mode_t;

typedef struct arm_log {
  arm_mode_t mode;
  char line[CAP_LINE_MAX + 1];
  size_t line_len;
  bool line_long;
  uint64_t line_no;
  bool in_block;
  uint64_t block_line;
  char hint[ETK_TX_NAME_MAX + 1]; /* from "# Writing NAME [base64]" */
  cap_file_t *cur;                /* the echo line being decoded */
  uint32_t quad;                  /* base64 bits of the quantum so far */
  unsigned quad_n;                /* characters in it */
  unsigned pad;                   /* '=' seen */
  uint64_t chars;
  bool bad_char;
  ETK_VEC(cap_file_t *) block; /* decoded files waiting for #[END] */
  unsigned unnamed;
} arm_log_t;

struct etk_capture {
  etk_capture_callbacks_t cb;
  int stopped; /* a callback's return or ETK_E_NO_MEMORY */
  cap_state_t state;
  unsigned marker; /* marker bytes matched in CAP_TEXT */
  uint8_t *frame, *decoded;
  size_t frame_len;
  uint64_t frame_start; /* stream offset of the frame's marker */
  uint64_t damaged_since_good;
  uint64_t last_damage;
  ETK_VEC(cap_file_t *) open;    /* framed files in progress */
  etk_hash_t out_names;          /* out names given, ids index: */
  ETK_VEC(uint32_t) next_suffix; /* the next "-N" to try for a name */
  /* by file id: the name of the file that id last finished ("" none) */
  char done_name[256][ETK_TX_NAME_MAX + 1];
  etk_capture_stats_t stats;
  arm_log_t arm;
};

/* capture_file.c: the files being assembled, and the stop of a capture. */
void cap_stop(etk_capture_t *cap, int rc);
cap_file_t *cap_file_new(etk_capture_t *cap, int kind, int source,
                         const char *name, uint64_t stream_offset);
bool cap_file_append(etk_capture_t *cap, cap_file_t *f, const uint8_t *p,
                     size_t n);
/* Adds a problem line (printf format) to f and marks it failed. */
void cap_file_problem(etk_capture_t *cap, cap_file_t *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Reports f through the callback and frees it. */
void cap_file_emit(etk_capture_t *cap, cap_file_t *f);
void cap_file_free(cap_file_t *f);
void cap_problem(etk_capture_t *cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* arm_log.c: text bytes (everything outside frames) and the end. */
void cap_arm_text(etk_capture_t *cap, const uint8_t *p, size_t n);
void cap_arm_finish(etk_capture_t *cap);
void cap_arm_free(etk_capture_t *cap);

#endif /* ETKIT_CAPTURE_INTERNAL_H */
