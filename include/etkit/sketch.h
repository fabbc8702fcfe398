/*
 * etkit/sketch.h - a fixed-memory, mergeable latency sketch with a
 * relative-error bound (DDSketch-style logarithmic buckets).
 *
 * Portable C99, no heap, no OS, no libm: part of the recorder library, so an
 * MCU build copies src/recorder/sketch.c with the rest.
 *
 * WHAT IT GIVES
 *   Exact count, minimum, maximum and sum of the values added, and every
 *   quantile within a relative error bound: the estimate e of the true
 *   q-quantile v satisfies |e - v| <= bound * v, where bound is
 *   etk_sketch_error_bound() (the relative_error given to etk_sketch_init
 *   while the values span at most ETK_SKETCH_BUCKETS buckets: about two
 *   decades at 1%).  The "true" q-quantile is the sorted values' element of
 *   0-based rank floor(q * (count - 1)) (numpy's method="lower").
 *
 * HOW
 *   A positive value x = 2^e * (1 + s), 0 <= s < 1, maps to the key
 *   floor(multiplier * (e + P(s))), where P is a degree-5 polynomial close
 *   to log2(1 + s) with P(0) = 0 and P(1) = 1, and the multiplier is chosen
 *   so that no bucket is wider than ln((1 + a) / (1 - a)) in ln(x): one
 *   bucket's values are all within a of its representative value.  Keys
 *   come from the double's bits and a polynomial, so inserting needs no
 *   libm and gives the same key on every IEEE-754 machine (C and Python
 *   share this code).  The struct holds a window of ETK_SKETCH_BUCKETS
 *   32-bit counters that slides with the data; when the values span more
 *   keys than the window holds, the sketch halves its resolution (adjacent
 *   buckets merge, as OpenTelemetry's exponential histogram lowers its
 *   scale): no value is ever dropped or misplaced, and the bound becomes
 *   2a/(1+a^2) per halving, reported by etk_sketch_error_bound().  With the
 *   default 1%: 2 decades at 1%, 4 at 2%, 8 (1 us to 100 s) at 4%.
 *   Values <= 0 (and subnormal ones) are counted in a zero bucket.
 *
 * MERGING
 *   Two sketches with the same relative_error merge exactly: the result is
 *   bucket for bucket the sketch that adding every value of both would give
 *   (a sum's rounding aside), whatever their order.
 *
 * BYTES (little-endian, identical from C and Python)
 *    0  "ETKS"               magic
 *    4  u8  version (1)      5  u8 halvings (resolution shift)
 *    6  u16 number of bucket counts that follow (<= ETK_SKETCH_BUCKETS)
 *    8  f64 relative_error   16 u64 count       24 u64 zero-bucket count
 *   32  f64 sum              40 f64 min         48 f64 max
 *   56  i32 key of the first count               60 u32 flags (bit 0: a
 *                                                   counter saturated)
 *   64  the counts, unsigned LEB128 each
 *   At most ETK_SKETCH_MAX_BYTES.
 *
 * COST
 *   etk_sketch_add: a few multiplies and no branch that depends on the
 *   value's size while the window holds it (about 5-8 ns on a desktop
 *   host; bench/recorder/bench_sketch).  etk_sketch_add_ticks: the same
 *   on the host; on 32-bit Arm integer arithmetic only (no soft-float key,
 *   min or max; one double add for the sum).
 *
 * EXAMPLE
 *   etk_sketch_t s;
 *   etk_sketch_init(&s, 0.01);
 *   for (...) etk_sketch_add(&s, (double)ns);
 *   double p99;
 *   if (etk_sketch_quantile(&s, 0.99, &p99) == ETK_OK) ...
 *
 * Threads: a sketch is plain memory; guard it yourself when shared.
 */
#ifndef ETKIT_SKETCH_H
#define ETKIT_SKETCH_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counters in one sketch's window (fixed: sketches of every build agree). */
#define ETK_SKETCH_BUCKETS 240
/* Default relative error (1%) and the accepted range. */
#define ETK_SKETCH_DEFAULT_RELATIVE_ERROR 0.01
#define ETK_SKETCH_MIN_RELATIVE_ERROR 0.0001
#define ETK_SKETCH_MAX_RELATIVE_ERROR 0.2
/* Fixed header of the serialised form and its largest size. */
#define ETK_SKETCH_HEADER_BYTES 64
#define ETK_SKETCH_MAX_BYTES (ETK_SKETCH_HEADER_BYTES + 5 * ETK_SKETCH_BUCKETS)
/* Flags (serialised). */
#define ETK_SKETCH_FLAG_SATURATED 1u

/* The sketch: 1024 bytes, no pointers (copy it, store it, memcmp-free).
 * Fields are private; use the functions. */
typedef struct etk_sketch {
  uint64_t count;
  double sum, min, max;
  double relative_error;
  double multiplier; /* keys per unit of the log2-like index, at shift 0 */
  int32_t base;      /* key of counts[0] */
  uint16_t lo, hi;   /* occupied counters: [lo, hi] (lo > hi: none) */
  uint8_t shift;     /* halvings of the resolution so far */
  uint8_t flags;
  uint16_t reserved;
  uint32_t zero_count;
  uint32_t counts[ETK_SKETCH_BUCKETS];
} etk_sketch_t;

/* Empties `s` for the given relative error (0 selects the default).
 * ETK_E_INVALID_ARGUMENT: s NULL, or the error outside
 * [ETK_SKETCH_MIN_RELATIVE_ERROR, ETK_SKETCH_MAX_RELATIVE_ERROR]. */
etk_status_t etk_sketch_init(etk_sketch_t *s, double relative_error);

/* Adds one value.  ETK_E_INVALID_ARGUMENT: s NULL or value NaN/infinite
 * (nothing added). */
etk_status_t etk_sketch_add(etk_sketch_t *s, double value);

/* Adds an integer value (ticks, cycles, ns): the same sketch, bit for bit,
 * as etk_sketch_add(s, (double)ticks), computed with integer arithmetic
 * below 2^53 (cheap on an MCU without a double-precision FPU).
 * ETK_E_INVALID_ARGUMENT: s NULL. */
etk_status_t etk_sketch_add_ticks(etk_sketch_t *s, uint64_t ticks);

/* Empties s for model's relative error, copying its constants instead of
 * computing them (etk_sketch_init's series costs ~20 K cycles in soft
 * float); s == model empties model.  ETK_E_INVALID_ARGUMENT: NULL. */
etk_status_t etk_sketch_init_like(etk_sketch_t *s, const etk_sketch_t *model);

/* Adds every value of src to dst (src unchanged; dst == src is allowed and
 * doubles every count).  ETK_E_MISMATCH: different relative errors (dst
 * unchanged); ETK_E_INVALID_ARGUMENT: NULL. */
etk_status_t etk_sketch_merge(etk_sketch_t *dst, const etk_sketch_t *src);

/* Exact figures (0 for an empty sketch's min/max/sum). */
uint64_t etk_sketch_count(const etk_sketch_t *s);
double etk_sketch_min(const etk_sketch_t *s);
double etk_sketch_max(const etk_sketch_t *s);
double etk_sketch_sum(const etk_sketch_t *s);
/* The configured relative error, and the bound the quantiles meet now
 * (larger after halvings). */
double etk_sketch_relative_error(const etk_sketch_t *s);
double etk_sketch_error_bound(const etk_sketch_t *s);

/* The q-quantile (0 <= q <= 1) into *out, within etk_sketch_error_bound()
 * of the sorted values' element at rank floor(q * (count - 1)); q = 0 and
 * q = 1 give the exact min and max.  ETK_E_NOT_FOUND: empty;
 * ETK_E_INVALID_ARGUMENT: NULL or q outside [0, 1]. */
etk_status_t etk_sketch_quantile(const etk_sketch_t *s, double q, double *out);

/* Bytes etk_sketch_serialize writes for s (<= ETK_SKETCH_MAX_BYTES). */
size_t etk_sketch_serialized_size(const etk_sketch_t *s);
/* Writes the bytes above into out[0..cap).  ETK_E_FULL: cap too small
 * (nothing meaningful written); *written may be NULL. */
etk_status_t etk_sketch_serialize(const etk_sketch_t *s, uint8_t *out,
                                  size_t cap, size_t *written);
/* Reads bytes written by etk_sketch_serialize (untrusted: every field and
 * length is checked).  *used (may be NULL) gets the bytes read, so sketches
 * can follow one another.  ETK_E_FORMAT / ETK_E_TRUNCATED /
 * ETK_E_BAD_IDENTIFIER on bad input (s then empty at the default error). */
etk_status_t etk_sketch_deserialize(etk_sketch_t *s, const uint8_t *in,
                                    size_t len, size_t *used);

/* ------------------------------------------------------ latency table */

/* A fixed table of sketches in caller memory, one per (block, event name,
 * instruction id, delegate id): what a stats-mode recorder keeps instead of
 * every event (src/recorder/latency.c).  Names are the caller's ids (the
 * recorder's interned names); the table never grows: a key beyond the
 * capacity is refused and counted.  Entries are kept in the order their
 * keys were first added: slots[0 .. entries). */
#define ETK_LATENCY_MAX_KEYS 65536u

typedef struct etk_latency_entry {
  uint32_t block, name, instruction;
  int32_t used; /* 1 when the slot holds a key */
  int64_t delegate_id;
  etk_sketch_t sketch;
} etk_latency_entry_t;

typedef struct etk_latency_table {
  uint32_t capacity, entries;
  uint64_t refused; /* durations whose key found no free slot */
  double relative_error;
  etk_latency_entry_t *slots; /* points into the caller's memory */
  uint32_t *index;            /* hash index, after the slots */
  uint32_t index_mask;
  uint32_t reserved;
} etk_latency_table_t;

/* Bytes etk_latency_table_init needs for `capacity` keys (1 ..
 * ETK_LATENCY_MAX_KEYS; 0 outside): the entries and a hash index of
 * 2 x capacity rounded up to a power of two 32-bit slots. */
size_t etk_latency_table_size(uint32_t capacity);

/* Lays a table for `capacity` keys (> 0) in mem[0..len) (8-aligned, at
 * least etk_latency_table_size(capacity)); relative_error as
 * etk_sketch_init.  ETK_E_INVALID_ARGUMENT / ETK_E_FULL (too small). */
etk_status_t etk_latency_table_init(etk_latency_table_t *t, void *mem,
                                    size_t len, uint32_t capacity,
                                    double relative_error);

/* Forgets every key (capacity and error kept; `refused` back to 0). */
void etk_latency_table_clear(etk_latency_table_t *t);

/* Adds one duration under its key.  ETK_E_FULL: no slot left for a new
 * key (counted in t->refused); ETK_E_INVALID_ARGUMENT as etk_sketch_add. */
etk_status_t etk_latency_table_add(etk_latency_table_t *t, uint32_t block,
                                   uint32_t name, uint32_t instruction,
                                   int64_t delegate_id, double duration);

/* The entry of a key; when absent and `create` != 0 a new empty entry (a
 * sketch at the table's error), or NULL when the table is full (counted in
 * t->refused).  NULL for a NULL or uninitialised table. */
etk_latency_entry_t *etk_latency_table_key(etk_latency_table_t *t,
                                           uint32_t block, uint32_t name,
                                           uint32_t instruction,
                                           int64_t delegate_id, int create);

/* The sketch of a key, or NULL when the table has none. */
const etk_sketch_t *etk_latency_table_find(const etk_latency_table_t *t,
                                           uint32_t block, uint32_t name,
                                           uint32_t instruction,
                                           int64_t delegate_id);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_SKETCH_H */
