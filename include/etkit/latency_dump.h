/*
 * etkit/latency_dump.h - reading the latency sketches of a stats-mode
 * ETDump (etkit/recorder.h "STATS MODE").
 *
 * A stats-mode dump carries one RunData named
 * "etkit:latency_sketches=version=1,keys=K,refused=N" with no events; each
 * of its allocators is one key's sketch, named "r=R,e=E,s=BASE64": R the
 * RunData index of the key's block, E the index of the key's
 * representative ProfileEvent in that RunData, BASE64 (RFC 4648, padded)
 * the sketch's bytes (etk_sketch_serialize).  Every field is checked: a
 * reference to a run or event that does not exist or is not a profile
 * event, bad base64 or bad sketch bytes are ETK_E_FORMAT.
 */
#ifndef ETKIT_LATENCY_DUMP_H
#define ETKIT_LATENCY_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/etdump.h"
#include "etkit/sketch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Name prefix of the sketches RunData. */
#define ETK_LATENCY_SKETCHES_PREFIX "etkit:latency_sketches="

typedef struct etk_latency_dump_info {
  size_t run;       /* index of the sketches RunData */
  size_t keys;      /* its allocators: one sketch each */
  uint64_t refused; /* durations the recorder refused ("refused=N") */
} etk_latency_dump_info_t;

/* 1 and *info when the dump has a sketches RunData (the first one if
 * several), else 0.  `info` may be NULL. */
int etk_latency_dump_find(const etk_etdump_t *dump,
                          etk_latency_dump_info_t *info);

typedef struct etk_latency_key {
  uint32_t run;   /* RunData index of the key's block */
  uint32_t event; /* global event index of its representative event */
  etk_sketch_t sketch;
} etk_latency_key_t;

/* Decodes key `index` (< info->keys).  ETK_E_FORMAT (err says which key
 * and why), ETK_E_INVALID_ARGUMENT. */
int etk_latency_dump_key(const etk_etdump_t *dump,
                         const etk_latency_dump_info_t *info, size_t index,
                         etk_latency_key_t *out, etk_error_t *err);

/* The key whose representative is global event `event`, or -1. */
long etk_latency_dump_key_of_event(const etk_etdump_t *dump,
                                   const etk_latency_dump_info_t *info,
                                   size_t event);

/* RFC 4648 base64 (padding optional at the end, no whitespace) of
 * text[0..len) into out[0..cap): ETK_OK and *n, ETK_E_FORMAT for a bad
 * character or length, ETK_E_FULL when cap is too small. */
int etk_base64_decode(const char *text, size_t len, uint8_t *out, size_t cap,
                      size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_LATENCY_DUMP_H */
