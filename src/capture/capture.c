/*
 * capture.c - finds the files a device sent in a byte stream: etkit
 * transport frames among log text (and, through arm_log.c, upstream's Arm
 * runner blocks), assembled, checked and reported one by one.
 *
 * PURPOSE
 *   `etkit capture` and etkit.capture() read a serial line or a saved log
 *   and must say, for every file, whether it arrived whole.  A file is
 *   complete only when every chunk arrived once, in order, with a good
 *   CRC, and the end-of-file frame's total length and whole-file CRC agree
 *   with what was assembled; anything else is named ("chunk 3 missing",
 *   "chunk 5 duplicated", "chunk 2 arrived after chunk 4", "no end-of-file
 *   frame") and the file is incomplete.
 *
 * THE STREAM
 *   Bytes are in one of three states.  CAP_TEXT: log text, passed to the
 *   Arm log parser, watched for the marker 0xFF 'E' 'T' (a 0x00 ends any
 *   partial match; text never holds 0x00 or 0xFF).  CAP_FRAME: after the
 *   marker, bytes are kept up to the next 0x00, then decoded (rCOBS, from
 *   the end: docs/transport.md) and checked.  CAP_SKIP: a "frame" longer
 *   than any chunk can be is dropped up to the next 0x00.  So the only
 *   buffer besides the files is one frame.
 *
 * FILES
 *   A framed file is keyed by the id its writer gave it; its first chunk
 *   names it.  Its bytes are the good
 *   prefix: data stops being appended at the first hole, so memory follows
 *   the bytes that arrived, never an offset a frame claims.  Missing
 *   sequence numbers are kept as ranges, so that a late chunk is named
 *   "reordered" and an unknown one "duplicated".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

/* ------------------------------------------------------------ frames */

typedef struct frame {
  int version, kind, flags, id;
  const char *name; /* FIRST only */
  size_t name_len;
  uint32_t seq, offset;
  const uint8_t *data;
  size_t len;
  uint32_t total, file_crc; /* LAST */
} frame_t;

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* An unsigned LEB128 number of at most 32 bits from p[*at..end). */
static bool rd_var(const uint8_t *p, size_t end, size_t *at, uint32_t *v) {
  uint64_t x = 0;
  for (unsigned shift = 0; shift < 35; shift += 7) {
    if (*at >= end) return false;
    uint8_t b = p[(*at)++];
    x |= (uint64_t)(b & 0x7fu) << shift;
    if (!(b & 0x80u)) {
      *v = (uint32_t)x;
      return x <= UINT32_MAX;
    }
  }
  return false;
}

/* rCOBS from the end: enc[0..m) into out (room for m), the payload is
 * out[*start..m).  False when the code chain does not end at enc[0]. */
static bool rcobs_decode(const uint8_t *enc, size_t m, uint8_t *out,
                         size_t *start) {
  size_t pos = m, w = m;
  bool last = true;
  while (pos > 0) {
    unsigned c = enc[--pos];
    size_t len = c - 1u;
    if (c == 0 || len > pos) return false;
    if (!last && c != 0xffu) out[--w] = 0;
    w -= len;
    pos -= len;
    memmove(out + w, enc + pos, len);
    last = false;
  }
  *start = w;
  return true;
}

/* The header of a decoded payload p[0..n) (CRC unchecked): the reason
 * when it does not read as one. */
static const char *parse_header(const uint8_t *p, size_t n, frame_t *fr) {
  memset(fr, 0, sizeof *fr);
  if (n < ETK_TX_PAYLOAD_FIXED) return "shorter than a frame header";
  size_t end = n - 4, at = 3;
  fr->version = p[0];
  fr->flags = p[1];
  fr->id = p[2];
  if (fr->version != ETK_TX_VERSION) return "unknown version";
  if (fr->flags & ~(ETK_TX_FLAG_FIRST | ETK_TX_FLAG_LAST))
    return "unknown flags";
  if (fr->flags & ETK_TX_FLAG_FIRST) {
    if (end - at < 2 || p[at + 1] > end - at - 2)
      return "header longer than the frame";
    fr->kind = p[at];
    fr->name_len = p[at + 1];
    fr->name = (const char *)p + at + 2;
    at += 2 + fr->name_len;
    if (fr->kind > ETK_TX_KIND_OTHER) return "unknown kind";
    if (fr->kind == ETK_TX_KIND_END_STREAM) {
      if (fr->name_len != 0 || fr->id != 0 || at != end ||
          !(fr->flags & ETK_TX_FLAG_LAST))
        return "malformed end-of-stream";
    } else if (fr->id == 0 || !etk_tx_name_ok(fr->name, fr->name_len)) {
      return fr->id == 0 ? "file id 0" : "bad file name";
    }
  } else {
    if (fr->id == 0) return "file id 0";
    if (!rd_var(p, end, &at, &fr->seq) || !rd_var(p, end, &at, &fr->offset))
      return "header longer than the frame";
    if (fr->seq == 0) return "chunk 0 without the FIRST flag";
  }
  fr->data = p + at;
  fr->len = end - at;
  return NULL;
}

/* Checks a decoded payload; the reason when it is not a frame. */
static const char *parse_frame(const uint8_t *p, size_t n, frame_t *fr) {
  if (n < ETK_TX_PAYLOAD_FIXED) return "shorter than a frame header";
  if (etk_crc32(0, p, n - 4) != rd32(p + n - 4)) return "CRC mismatch";
  const char *why = parse_header(p, n, fr);
  if (why) return why;
  if ((fr->flags & ETK_TX_FLAG_LAST) && !(fr->flags & ETK_TX_FLAG_FIRST)) {
    /* the trailer: the whole file's CRC; its length is offset + len */
    if (fr->len < 4) return "trailer longer than the frame";
    fr->len -= 4;
    fr->file_crc = rd32(fr->data + fr->len);
    if ((uint64_t)fr->offset + fr->len > UINT32_MAX)
      return "file longer than 4 GiB";
    fr->total = fr->offset + (uint32_t)fr->len;
  } else if (fr->flags & ETK_TX_FLAG_LAST) {
    fr->total = (uint32_t)fr->len;
    fr->file_crc = etk_crc32(0, fr->data, fr->len);
  }
  return NULL;
}

static size_t find_open(const etk_capture_t *cap, int id) {
  for (size_t i = 0; i < cap->open.count; i++)
    if (cap->open.items[i]->id == id) return i;
  return SIZE_MAX;
}

static void close_open(etk_capture_t *cap, size_t i) {
  cap_file_t *f = cap->open.items[i];
  cap->open.items[i] = cap->open.items[--cap->open.count];
  if (f->unnamed)
    cap_file_problem(cap, f,
                     "its first chunk, which names it, never arrived "
                     "(file id %d)",
                     f->id);
  for (size_t k = 0; k < f->missing.count; k++) {
    const cap_range_t *r = &f->missing.items[k];
    const char *what =
        r->damaged ? "damaged or lost (a frame failed its check)" : "missing";
    if (r->lo == r->hi)
      cap_file_problem(cap, f, "chunk %u %s", (unsigned)r->lo, what);
    else
      cap_file_problem(cap, f, "chunks %u-%u %s", (unsigned)r->lo,
                       (unsigned)r->hi, what);
  }
  snprintf(cap->done_name[f->id & 0xff], sizeof cap->done_name[0], "%s",
           f->name);
  cap_file_emit(cap, f);
}

/* A new file of id fr->id: named by its first chunk, or, when that chunk
 * was lost, "unnamed-ID" (kind other) so that its loss is still reported
 * as a file. */
static cap_file_t *open_file(etk_capture_t *cap, const frame_t *fr) {
  char name[ETK_TX_NAME_MAX + 1];
  int kind = fr->kind;
  if (fr->flags & ETK_TX_FLAG_FIRST) {
    memcpy(name, fr->name, fr->name_len);
    name[fr->name_len] = '\0';
  } else {
    snprintf(name, sizeof name, "unnamed-%d", fr->id);
    kind = ETK_TX_KIND_OTHER;
  }
  if (cap->open.count >= CAP_OPEN_MAX) {
    /* the oldest goes: a stream with that many files at once is damaged */
    cap_file_problem(cap, cap->open.items[0],
                     "closed unfinished: more than "
                     "%d files were being sent at once",
                     CAP_OPEN_MAX);
    close_open(cap, 0);
  }
  cap_file_t *f =
      cap_file_new(cap, kind, ETK_CAPTURE_FRAMED, name, cap->frame_start);
  if (f == NULL) return NULL;
  f->id = fr->id;
  cap->done_name[fr->id & 0xff][0] = '\0';
  if (!ETK_VEC_PUSH(cap->open, f)) {
    cap_file_free(f);
    cap_stop(cap, ETK_E_NO_MEMORY);
    return NULL;
  }
  f->unnamed = !(fr->flags & ETK_TX_FLAG_FIRST);
  return f;
}

/* A chunk whose sequence number is below the next expected one. */
static void late_chunk(etk_capture_t *cap, cap_file_t *f, const frame_t *fr) {
  for (size_t k = 0; k < f->missing.count; k++) {
    cap_range_t *r = &f->missing.items[k];
    if (fr->seq < r->lo || fr->seq > r->hi) continue;
    cap_file_problem(cap, f, "chunk %u arrived after chunk %u (reordered)",
                     (unsigned)fr->seq, (unsigned)(f->next_seq - 1));
    if (r->lo == r->hi) {
      f->missing.items[k] = f->missing.items[--f->missing.count];
    } else if (fr->seq == r->lo) {
      r->lo++;
    } else if (fr->seq == r->hi) {
      r->hi--;
    } else {
      cap_range_t upper = {fr->seq + 1, r->hi, r->damaged};
      r->hi = fr->seq - 1;
      if (!ETK_VEC_PUSH(f->missing, upper)) cap_stop(cap, ETK_E_NO_MEMORY);
    }
    return;
  }
  cap_file_problem(cap, f, "chunk %u duplicated", (unsigned)fr->seq);
}

/* Places one good chunk in its file. */
static void take_chunk(etk_capture_t *cap, cap_file_t *f, const frame_t *fr) {
  if (fr->seq < f->next_seq) {
    late_chunk(cap, f, fr);
    return;
  }
  if (fr->seq > f->next_seq) {
    cap_range_t r = {f->next_seq, fr->seq - 1, f->damage_pending};
    if (!ETK_VEC_PUSH(f->missing, r)) cap_stop(cap, ETK_E_NO_MEMORY);
    f->failed = true;
    f->hole = true;
  }
  f->next_seq = fr->seq + 1;
  f->damage_pending = false;
  if (!f->hole && fr->offset != f->size) {
    cap_file_problem(cap, f, "chunk %u at offset %u, expected %zu",
                     (unsigned)fr->seq, (unsigned)fr->offset, f->size);
    f->hole = true;
  }
  if (!f->hole) cap_file_append(cap, f, fr->data, fr->len);
}

static void end_of_file(etk_capture_t *cap, size_t i, const frame_t *fr) {
  cap_file_t *f = cap->open.items[i];
  f->expected = fr->total;
  if (!f->failed) {
    if (f->size != fr->total)
      cap_file_problem(cap, f, "end-of-file frame says %u bytes, got %zu",
                       (unsigned)fr->total, f->size);
    else if (etk_crc32(0, f->data, f->size) != fr->file_crc)
      cap_file_problem(cap, f, "whole-file CRC mismatch");
  }
  close_open(cap, i);
}

static bool missing(const cap_file_t *f, uint32_t seq) {
  for (size_t k = 0; k < f->missing.count; k++)
    if (seq >= f->missing.items[k].lo && seq <= f->missing.items[k].hi)
      return true;
  return false;
}

static bool same_name(const cap_file_t *f, const frame_t *fr) {
  return f->kind == fr->kind && strlen(f->name) == fr->name_len &&
         memcmp(f->name, fr->name, fr->name_len) == 0;
}

static void good_frame(etk_capture_t *cap, const frame_t *fr) {
  cap->stats.frames++;
  if (fr->kind == ETK_TX_KIND_END_STREAM && (fr->flags & ETK_TX_FLAG_FIRST)) {
    cap->stats.ended = 1;
    cap->damaged_since_good = 0;
    return;
  }
  size_t i = find_open(cap, fr->id);
  cap_file_t *f = i == SIZE_MAX ? NULL : cap->open.items[i];
  if ((fr->flags & ETK_TX_FLAG_FIRST) && f != NULL && f->unnamed) {
    /* its first chunk, late: the file gets its name (chunk 0 reordered) */
    memcpy(f->name, fr->name, fr->name_len);
    f->name[fr->name_len] = '\0';
    f->kind = fr->kind;
    f->unnamed = false;
  } else if ((fr->flags & ETK_TX_FLAG_FIRST) && f != NULL) {
    bool same = same_name(f, fr) && !missing(f, 0) && !f->hole &&
                f->size >= fr->len && memcmp(f->data, fr->data, fr->len) == 0;
    if (same) {
      cap_file_problem(cap, f, "chunk 0 duplicated");
      cap->damaged_since_good = 0;
      return;
    }
    cap_file_problem(cap, f,
                     "a new file (%.*s) came before its end-of-file frame",
                     (int)fr->name_len, fr->name);
    close_open(cap, i);
    f = NULL;
  }
  if (f == NULL) {
    const char *done = cap->done_name[fr->id & 0xff];
    if (!(fr->flags & ETK_TX_FLAG_FIRST) && done[0] != '\0') {
      cap_problem(cap,
                  "chunk %u of %s arrived after its end-of-file frame "
                  "(duplicated or reordered)",
                  (unsigned)fr->seq, done);
      cap->damaged_since_good = 0;
      return;
    }
    bool damage = cap->damaged_since_good > 0;
    f = open_file(cap, fr);
    if (f == NULL) return;
    f->damage_pending = damage;
    i = cap->open.count - 1;
  }
  take_chunk(cap, f, fr);
  cap->damaged_since_good = 0;
  if (fr->flags & ETK_TX_FLAG_LAST) end_of_file(cap, i, fr);
}

/* What a frame that failed its CRC says it is, when its header still
 * reads as one (a flipped data byte leaves it whole): " (by its header,
 * chunk 3 of etdump.etdp)"; the header is not trusted beyond a message. */
static void header_guess(const etk_capture_t *cap, const uint8_t *p, size_t n,
                         char *out, size_t size) {
  frame_t fr;
  if (parse_header(p, n, &fr) != NULL) return;
  if (fr.flags & ETK_TX_FLAG_FIRST) {
    if (fr.kind != ETK_TX_KIND_END_STREAM)
      snprintf(out, size, " (by its header, chunk 0 of %.*s)", (int)fr.name_len,
               fr.name);
    return;
  }
  size_t i = find_open(cap, fr.id);
  if (i != SIZE_MAX)
    snprintf(out, size, " (by its header, chunk %u of %s)", (unsigned)fr.seq,
             cap->open.items[i]->name);
  else
    snprintf(out, size, " (by its header, chunk %u of file id %d)",
             (unsigned)fr.seq, fr.id);
}

static void end_frame(etk_capture_t *cap) {
  size_t start = 0;
  frame_t fr;
  const char *why = "bad rCOBS code chain";
  if (rcobs_decode(cap->frame, cap->frame_len, cap->decoded, &start))
    why = parse_frame(cap->decoded + start, cap->frame_len - start, &fr);
  if (why == NULL) {
    good_frame(cap, &fr);
    return;
  }
  cap->stats.bad_frames++;
  cap->damaged_since_good++;
  cap->last_damage = cap->frame_start;
  for (size_t i = 0; i < cap->open.count; i++)
    cap->open.items[i]->damage_pending = true;
  char guess[ETK_TX_NAME_MAX + 48] = "";
  if (start < cap->frame_len)
    header_guess(cap, cap->decoded + start, cap->frame_len - start, guess,
                 sizeof guess);
  cap_problem(cap, "damaged frame at stream byte %llu (%zu bytes): %s%s",
              (unsigned long long)cap->frame_start, cap->frame_len, why, guess);
}

/* ------------------------------------------------------------ the stream */

static const uint8_t marker[ETK_TX_MARKER_LEN] = {0xff, 'E', 'T'};

/* Text bytes p[0..n) of the stream; a marker match is carried over. */
static size_t text_bytes(etk_capture_t *cap, const uint8_t *p, size_t n,
                         uint64_t at) {
  size_t i = 0, from = 0;
  for (; i < n; i++) {
    uint8_t b = p[i];
    if (cap->marker > 0 && b == marker[cap->marker]) {
      if (++cap->marker < ETK_TX_MARKER_LEN) continue;
      /* the marker is complete: text ends before it */
      size_t mstart =
          i + 1 >= ETK_TX_MARKER_LEN ? i + 1 - ETK_TX_MARKER_LEN : 0;
      if (mstart > from) cap_arm_text(cap, p + from, mstart - from);
      cap->stats.text_bytes += mstart > from ? mstart - from : 0;
      cap->marker = 0;
      cap->state = CAP_FRAME;
      cap->frame_len = 0;
      cap->frame_start = at + i + 1 - ETK_TX_MARKER_LEN;
      return i + 1;
    }
    if (cap->marker > 0) {
      /* a broken match: the bytes held back (within p or before) are text */
      if (i < cap->marker) {
        cap_arm_text(cap, marker, cap->marker - i);
        cap->stats.text_bytes += cap->marker - i;
      }
      cap->marker = 0;
    }
    if (b == marker[0]) {
      cap->marker = 1;
    } else if (b == 0x00) {
      if (i > from) cap_arm_text(cap, p + from, i - from);
      cap->stats.text_bytes += i - from;
      from = i + 1;
    }
  }
  /* hold back a partial marker at the end */
  size_t end = n - (cap->marker <= n ? cap->marker : n);
  if (end > from) {
    cap_arm_text(cap, p + from, end - from);
    cap->stats.text_bytes += end - from;
  }
  return n;
}

static size_t frame_bytes(etk_capture_t *cap, const uint8_t *p, size_t n) {
  const uint8_t *z = memchr(p, 0, n);
  size_t k = z ? (size_t)(z - p) : n;
  if (cap->state == CAP_FRAME) {
    if (k > CAP_FRAME_MAX - cap->frame_len) {
      cap->stats.bad_frames++;
      cap->damaged_since_good++;
      cap_problem(cap,
                  "damaged frame at stream byte %llu: longer than any "
                  "chunk (no closing 0x00)",
                  (unsigned long long)cap->frame_start);
      cap->state = CAP_SKIP;
    } else {
      memcpy(cap->frame + cap->frame_len, p, k);
      cap->frame_len += k;
    }
  }
  if (z == NULL) return n;
  if (cap->state == CAP_FRAME) end_frame(cap);
  cap->state = CAP_TEXT;
  return k + 1;
}

int etk_capture_feed(etk_capture_t *cap, const void *bytes, size_t n) {
  if (cap == NULL || (bytes == NULL && n > 0)) return ETK_E_INVALID_ARGUMENT;
  const uint8_t *p = (const uint8_t *)bytes;
  while (n > 0 && cap->stopped == ETK_OK) {
    size_t used = cap->state == CAP_TEXT
                      ? text_bytes(cap, p, n, cap->stats.bytes)
                      : frame_bytes(cap, p, n);
    cap->stats.bytes += used;
    p += used;
    n -= used;
  }
  return cap->stopped;
}

int etk_capture_new(const etk_capture_callbacks_t *cb, etk_capture_t **out) {
  if (out) *out = NULL;
  if (cb == NULL || cb->file == NULL || out == NULL)
    return ETK_E_INVALID_ARGUMENT;
  etk_capture_t *cap = calloc(1, sizeof *cap);
  if (cap) {
    cap->frame = malloc(CAP_FRAME_MAX);
    cap->decoded = malloc(CAP_FRAME_MAX);
  }
  if (cap == NULL || cap->frame == NULL || cap->decoded == NULL) {
    etk_capture_free(cap);
    return ETK_E_NO_MEMORY;
  }
  cap->cb = *cb;
  etk_hash_init(&cap->out_names);
  *out = cap;
  return ETK_OK;
}

int etk_capture_finish(etk_capture_t *cap) {
  if (cap == NULL) return ETK_E_INVALID_ARGUMENT;
  if (cap->state == CAP_FRAME && cap->frame_len > 0) {
    cap->stats.bad_frames++;
    cap_problem(cap,
                "frame at stream byte %llu cut off by the end of the "
                "input",
                (unsigned long long)cap->frame_start);
  }
  cap->state = CAP_TEXT;
  if (cap->marker > 0) cap_arm_text(cap, marker, cap->marker);
  cap->marker = 0;
  cap_arm_finish(cap);
  while (cap->open.count > 0) {
    cap_file_t *f = cap->open.items[cap->open.count - 1];
    if (f->damage_pending)
      cap_file_problem(cap, f,
                       "chunk %u or later damaged or lost (a frame "
                       "failed its check)",
                       (unsigned)f->next_seq);
    cap_file_problem(cap, f,
                     "no end-of-file frame: the stream stopped after "
                     "%u chunks (%zu bytes kept)",
                     (unsigned)f->next_seq, f->size);
    close_open(cap, cap->open.count - 1);
  }
  return cap->stopped;
}

int etk_capture_ended(const etk_capture_t *cap) {
  return cap != NULL && cap->stats.ended;
}

void etk_capture_get_stats(const etk_capture_t *cap, etk_capture_stats_t *out) {
  if (out == NULL) return;
  if (cap == NULL)
    memset(out, 0, sizeof *out);
  else
    *out = cap->stats;
}

void etk_capture_free(etk_capture_t *cap) {
  if (cap == NULL) return;
  for (size_t i = 0; i < cap->open.count; i++)
    cap_file_free(cap->open.items[i]);
  ETK_VEC_FREE(cap->open);
  etk_hash_free(&cap->out_names);
  ETK_VEC_FREE(cap->next_suffix);
  cap_arm_free(cap);
  free(cap->frame);
  free(cap->decoded);
  free(cap);
}

int etk_capture_buffer(const void *data, size_t n,
                       const etk_capture_callbacks_t *cb,
                       etk_capture_stats_t *stats) {
  etk_capture_t *cap = NULL;
  int rc = etk_capture_new(cb, &cap);
  if (rc != ETK_OK) return rc;
  rc = etk_capture_feed(cap, data, n);
  int rc2 = etk_capture_finish(cap);
  if (rc == ETK_OK) rc = rc2;
  etk_capture_get_stats(cap, stats);
  etk_capture_free(cap);
  return rc;
}

const char *etk_capture_kind_name(int kind) {
  switch (kind) {
    case ETK_TX_KIND_END_STREAM:
      return "end_stream";
    case ETK_TX_KIND_ETDUMP:
      return "etdump";
    case ETK_TX_KIND_DEBUG_BUFFER:
      return "debug_buffer";
    case ETK_TX_KIND_OUTPUT:
      return "output";
    case ETK_TX_KIND_LOG:
      return "log";
    case ETK_TX_KIND_OTHER:
      return "other";
    default:
      return "unknown";
  }
}
