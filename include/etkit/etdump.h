/*
 * etkit/etdump.h - host reader of ETDump files (.etdp) and of the debug
 * buffer that holds the tensors an ETDump refers to.
 *
 * An ETDump is a size-prefixed FlatBuffer (identifier "ED00", schema
 * schema/etdump_schema_flatcc.fbs) holding a list of runs ("RunData": one
 * per event block the runtime opened), each with a list of events: profile
 * events (name, start/end ticks), debug events (an intermediate or output
 * value) and allocation events.
 *
 * OPENING
 *   etk_etdump_open_path() / etk_etdump_open_memory() verify the WHOLE
 *   buffer with etk_fb_verify() against etk_etdump_schema before reading a
 *   single field, then decode it once into compact column arrays (one
 *   element per event, runs in file order, events in file order within a
 *   run) and an interned string table.  Nothing is converted to JSON and no
 *   external tool is run.  Bad input never crashes: truncated files, a
 *   wrong identifier, a missing size prefix, offsets outside the buffer,
 *   absurd vector lengths, shared or looping objects beyond the verifier's
 *   budget, invalid UTF-8 in names, events with no member set, and inputs
 *   beyond the limits all yield one etk_error_t naming the problem and its
 *   byte offset.
 *
 *     etk_etdump_t *dump;
 *     etk_error_t err;
 *     if (etk_etdump_open_path("model.etdp", NULL, &dump, &err) != ETK_OK) {
 *       char line[512];
 *       fprintf(stderr, "%s\n", etk_error_format(&err, line, sizeof line));
 *       return 1;
 *     }
 *     for (size_t r = 0; r < etk_etdump_run_count(dump); r++) {
 *       etk_etdump_run_t run;
 *       etk_etdump_run_get(dump, r, &run);
 *       for (uint32_t i = 0; i < run.event_count; i++) {
 *         etk_etdump_event_t ev;
 *         etk_etdump_event_get(dump, run.first_event + i, &ev);
 *         if (ev.kind == ETK_ETDUMP_EVENT_PROFILE)
 *           printf("%s %llu\n", ev.name.data ? ev.name.data : "",
 *                  (unsigned long long)(ev.end_time - ev.start_time));
 *       }
 *     }
 *     etk_etdump_close(dump);
 *
 * MEMORY
 *   One allocation holds every column array (25 bytes per event, of
 *   which the columns that are 0 throughout, usually the delegate string
 *   ids and chain ids, stay untouched zero pages: about 17 resident); the
 *   string table grows with the number of DISTINCT strings (4 bytes each)
 *   and points into the buffer; the hash table that interns them lives
 *   only while opening.  open_path maps the file read-only (its pages are
 *   the page cache's: no copy, nothing to zero; they count in the
 *   process's resident size like the copy would) and falls back to reading
 *   it into one exact-size allocation; open_memory borrows the bytes.
 *   Start/end times, metadata and debug values are read from the verified
 *   buffer on demand, so they cost no extra memory.
 *
 *   A mapped file must stay unchanged while the dump is open: the reader
 *   trusts the bytes it verified, and a file truncated under a mapping
 *   raises SIGBUS on the next access.  Replacing the file (write a new one,
 *   rename it over the old: etkit's writers do) is safe, the mapping keeps
 *   the old bytes.  When another process may still be rewriting the file
 *   in place, set options->copy to read it into memory instead.
 *
 * THREADS
 *   A dump is immutable after opening: any number of threads may read it.
 */
#ifndef ETKIT_ETDUMP_H
#define ETKIT_ETDUMP_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etk_etdump etk_etdump_t;

/* ------------------------------------------------------------- opening */

/* FlatBuffers' buffer limit (FLATBUFFERS_MAX_BUFFER_SIZE): 2 GiB - 1.
 * Larger files are refused with ETK_E_LIMIT whatever the options say. */
#define ETK_ETDUMP_MAX_FILE_BYTES 0x7FFFFFFFull

/* Limits applied while opening (0 = the default shown). */
typedef struct etk_etdump_options {
  uint64_t max_file_bytes; /* default and most ETK_ETDUMP_MAX_FILE_BYTES */
  uint64_t max_events;     /* default 2^31 events in all runs together */
  uint64_t max_runs;       /* default 2^24 runs */
  unsigned max_depth;      /* verifier nesting limit, default 64 */
  int copy;                /* open_memory: copy the bytes instead of borrowing;
                              open_path: read the file into memory instead of
                              mapping it */
} etk_etdump_options_t;

/* Maps the file at `path` read-only (or, with options->copy, or when it
 * cannot be mapped, reads it into one exact-size allocation) and opens it
 * as with etk_etdump_open_memory(); the dump owns the mapping or the
 * allocation (see MEMORY above for the mapped file's contract).  `options`
 * may be NULL.  On failure *out is NULL and `err` (optional) says why;
 * err->where is the path.  Errors: ETK_E_IO (cannot open or read),
 * ETK_E_LIMIT (larger than max_file_bytes), ETK_E_NO_MEMORY, and those of
 * open_memory. */
int etk_etdump_open_path(const char *path, const etk_etdump_options_t *options,
                         etk_etdump_t **out, etk_error_t *err);

/* Opens `len` bytes at `data`.  The bytes are BORROWED (they must stay
 * unchanged until etk_etdump_close) unless options->copy is set or `data`
 * is not 8-aligned, in which case they are copied.  Errors (err->offset is
 * the byte offset of the problem):
 *   ETK_E_TRUNCATED      shorter than a size-prefixed header, or the size
 *                        prefix claims more bytes than there are
 *   ETK_E_BAD_IDENTIFIER not "ED00" (the message says when the bytes look
 *                        like an ETDump without its size prefix)
 *   ETK_E_BAD_OFFSET, ETK_E_BAD_ALIGNMENT, ETK_E_BAD_VTABLE, ETK_E_BAD_STRING,
 *   ETK_E_BAD_VECTOR, ETK_E_BAD_ENUM, ETK_E_TOO_DEEP, ETK_E_LIMIT
 *                        from the verifier (message names table and field)
 *   ETK_E_BAD_UTF8       a name or delegate id that is not UTF-8
 *   ETK_E_FORMAT         an Event with no member set, no run_data
 *   ETK_E_LIMIT          more events or runs than allowed
 *   ETK_E_NO_MEMORY
 * `data` may be NULL only when len is 0 (which is ETK_E_TRUNCATED). */
int etk_etdump_open_memory(const void *data, size_t len,
                           const etk_etdump_options_t *options,
                           etk_etdump_t **out, etk_error_t *err);

/* Frees the dump (NULL is a no-op).  Pointers obtained from it die. */
void etk_etdump_close(etk_etdump_t *dump);

/* The verified bytes (size prefix included) and their length. */
const uint8_t *etk_etdump_bytes(const etk_etdump_t *dump, size_t *len);

/* ETDump.version (0 when absent; upstream ignores it). */
uint32_t etk_etdump_version(const etk_etdump_t *dump);

/* ------------------------------------------------------------- strings */

/* A string of the file: `data` is NUL-terminated and points into the
 * verified buffer; NULL when the field is absent (len 0). */
typedef struct etk_etdump_str {
  const char *data;
  uint32_t len;
} etk_etdump_str_t;

/* Interned string ids: every distinct string of the file (names, delegate
 * ids, run and allocator names) gets one id, so equal strings have equal
 * ids.  Id 0 means "absent"; id 1 is always the empty string "". */
#define ETK_ETDUMP_STR_ABSENT 0u
#define ETK_ETDUMP_STR_EMPTY 1u

/* Number of ids (>= 2). */
size_t etk_etdump_string_count(const etk_etdump_t *dump);
/* The string of an id; {NULL, 0} for id 0 or an id out of range. */
etk_etdump_str_t etk_etdump_string(const etk_etdump_t *dump, uint32_t id);

/* ------------------------------------------------------------- runs */

typedef struct etk_etdump_run {
  etk_etdump_str_t name;       /* RunData.name ({NULL,0} when absent) */
  uint32_t name_id;            /* interned id of name */
  int32_t bundled_input_index; /* -1 when absent (the schema default) */
  int has_events;              /* the events vector is present (maybe empty) */
  uint32_t first_event;        /* index of its first event (column index) */
  uint32_t event_count;
  uint32_t first_allocator; /* index into the allocator list */
  uint32_t allocator_count;
  uint32_t offset; /* byte offset of the RunData table */
} etk_etdump_run_t;

size_t etk_etdump_run_count(const etk_etdump_t *dump);
/* ETK_E_INVALID_ARGUMENT for NULL or an index out of range. */
int etk_etdump_run_get(const etk_etdump_t *dump, size_t index,
                       etk_etdump_run_t *out);

/* Allocator names of all runs, concatenated in run order (see
 * etk_etdump_run_t.first_allocator).  Upstream's AllocationEvent ids are
 * 1-based into the owning run's list. */
size_t etk_etdump_allocator_count(const etk_etdump_t *dump);
etk_etdump_str_t etk_etdump_allocator_name(const etk_etdump_t *dump,
                                           size_t index);
/* Interned string id of an allocator's name (0 when absent or out of
 * range). */
uint32_t etk_etdump_allocator_name_id(const etk_etdump_t *dump, size_t index);

/* ------------------------------------------------------------- events */

typedef enum etk_etdump_event_kind {
  ETK_ETDUMP_EVENT_PROFILE = 1,
  ETK_ETDUMP_EVENT_DEBUG = 2,
  ETK_ETDUMP_EVENT_ALLOCATION = 3
} etk_etdump_event_kind_t;

/* Bits of the `flags` column. */
#define ETK_ETDUMP_KIND_MASK 0x03u      /* etk_etdump_event_kind_t */
#define ETK_ETDUMP_FLAG_OUTPUT 0x04u    /* debug: debug_entry.output is true */
#define ETK_ETDUMP_FLAG_HAS_ENTRY 0x08u /* debug: debug_entry present */
#define ETK_ETDUMP_FLAG_METADATA 0x10u  /* profile: metadata vector present */
#define ETK_ETDUMP_FLAG_BOTH_MEMBERS     \
  0x20u /* more than one member was set  \
           (the first of profile, debug, \
           allocation wins, as upstream) */
#define ETK_ETDUMP_FLAG_END_BEFORE_START \
  0x40u /* profile: end_time <           \
           start_time (a wrap-around     \
           or a missing end) */

/* One event, decoded.  An Event table has three optional members; `kind`
 * says which one was read (profile first, then debug, then allocation, as
 * upstream's find_populated_event).  Fields of other kinds are zero, except
 * the ids, which hold their schema defaults (-1). */
typedef struct etk_etdump_event {
  int kind;              /* etk_etdump_event_kind_t */
  unsigned flags;        /* ETK_ETDUMP_FLAG_* */
  uint32_t run;          /* owning run */
  uint32_t offset;       /* byte offset of the member table */
  etk_etdump_str_t name; /* ProfileEvent/DebugEvent name */
  uint32_t name_id;
  int32_t profile_chain_index;   /* ProfileEvent.chain_index (int) */
  uint64_t debug_chain_index;    /* DebugEvent.chain_index (ulong) */
  int32_t instruction_id;        /* -1 when absent */
  int32_t delegate_debug_id_int; /* -1 when absent */
  etk_etdump_str_t delegate_debug_id_str;
  uint32_t delegate_debug_id_str_id;
  uint64_t start_time, end_time; /* profile; 0 when absent */
  const uint8_t *metadata;       /* profile: delegate_debug_metadata bytes */
  uint32_t metadata_len;         /* (NULL/0 when absent, see FLAG_METADATA) */
  int32_t allocator_id;          /* allocation */
  uint64_t allocation_size;      /* allocation */
} etk_etdump_event_t;

/* Total number of events in all runs. */
size_t etk_etdump_event_count(const etk_etdump_t *dump);

/* Decodes event `index` (0 .. event_count-1).  Cost: a few field loads.
 * ETK_E_INVALID_ARGUMENT for NULL or an index out of range. */
int etk_etdump_event_get(const etk_etdump_t *dump, size_t index,
                         etk_etdump_event_t *out);

/* Start and end ticks of a profile event (0, 0 for other kinds); the
 * fastest way to read times, used per sample by the Inspector. */
void etk_etdump_event_times(const etk_etdump_t *dump, size_t index,
                            uint64_t *start_time, uint64_t *end_time);

/* Byte offset of event `index`'s member table in the file (for error
 * messages; 0 for NULL or an index out of range).  Cost: a binary search
 * over the runs and three loads. */
uint32_t etk_etdump_event_offset(const etk_etdump_t *dump, size_t index);

/* Column view of all events (index = event index), for bulk processing and
 * zero-copy bindings.  Arrays are owned by the dump.
 *   flags       ETK_ETDUMP_KIND_MASK bits and ETK_ETDUMP_FLAG_*
 *   instruction_id  as in the file (-1 when absent); for allocation
 *               events it holds allocator_id
 *   delegate_id_int_plus_one   delegate_debug_id_int + 1 (mod 2^32): 0
 *               when absent, so that the column of a dump without integer
 *               delegate ids is all zero pages (read the id with
 *               etk_etdump_delegate_id_int())
 *   name_id, delegate_id_str_id       interned string ids
 *   chain_id    index into the chain table below: equal ids <=> equal
 *               chain values as upstream compares them (a profile chain -1
 *               and a debug chain 2^64-1 are different)
 * (The byte offset of an event's member table is etk_etdump_event_offset:
 * found again from the file rather than stored, 4 bytes per event less.) */
typedef struct etk_etdump_columns {
  size_t count;
  const uint8_t *flags;
  const int32_t *instruction_id;
  const uint32_t *delegate_id_int_plus_one;
  const uint32_t *name_id;
  const uint32_t *delegate_id_str_id;
  const uint32_t *chain_id;
} etk_etdump_columns_t;

void etk_etdump_columns(const etk_etdump_t *dump, etk_etdump_columns_t *out);

/* The delegate_debug_id_int (-1 when absent) of a delegate_id_int_plus_one
 * column value. */
static inline int32_t etk_etdump_delegate_id_int(uint32_t plus_one) {
  uint32_t v = plus_one - 1u;
  return v > (uint32_t)INT32_MAX ? -(int32_t)(~v) - 1 : (int32_t)v;
}

/* Number of distinct chain values (chain ids are 0 .. count-1). */
size_t etk_etdump_chain_count(const etk_etdump_t *dump);

/* Value of a chain id as a mathematical integer: *negative is 1 and
 * *magnitude = -chain for a negative (ProfileEvent int) chain, else
 * *negative is 0 and *magnitude = chain.  So a profile -1 is (1, 1) while a
 * debug chain 2^64-1 is (0, 2^64-1).  Either output may be NULL. */
void etk_etdump_chain(const etk_etdump_t *dump, uint32_t chain_id,
                      int *negative, uint64_t *magnitude);

/* ------------------------------------------------------------- values */

/* A Tensor table.  `sizes`/`strides` point at little-endian int64 arrays
 * in the buffer (read them with etk_etdump_tensor_dim()). */
typedef struct etk_etdump_tensor {
  int scalar_type;      /* etk_scalar_type_t (etkit/schema.h), default BYTE */
  const uint8_t *sizes; /* NULL when absent */
  uint32_t dim;
  const uint8_t *strides;
  uint32_t stride_count;
  int64_t offset;        /* byte offset in the debug buffer */
  uint32_t table_offset; /* byte offset of the Tensor table in the file */
} etk_etdump_tensor_t;

/* Size i of a tensor (0 <= i < dim). */
int64_t etk_etdump_tensor_dim(const etk_etdump_tensor_t *t, uint32_t i);
/* Stride i of a tensor (0 <= i < stride_count). */
int64_t etk_etdump_tensor_stride(const etk_etdump_tensor_t *t, uint32_t i);

/* A debug event's Value ("debug_entry"). */
typedef struct etk_etdump_value {
  int present;                /* the debug event has a debug_entry */
  int type;                   /* etk_etdump_value_type_t (etkit/schema.h) */
  int member_present;         /* the member table `type` names is present */
  int64_t int_value;          /* Int */
  int bool_value;             /* Bool */
  double real_value;          /* Float (widened) or Double */
  etk_etdump_tensor_t tensor; /* Tensor */
  uint32_t tensor_count;      /* TensorList: number of tensors */
  int output_present;         /* Value.output is present */
  int output;                 /* Value.output.bool_val */
  uint32_t offset;            /* byte offset of the Value table */
} etk_etdump_value_t;

/* Decodes the debug_entry of debug event `index`.  ETK_E_INVALID_ARGUMENT
 * when the event is not a debug event or out of range; a debug event
 * without debug_entry gives present = 0. */
int etk_etdump_event_value(const etk_etdump_t *dump, size_t index,
                           etk_etdump_value_t *out);

/* Tensor i of a TensorList value.  ETK_E_INVALID_ARGUMENT when out of
 * range or not a TensorList. */
int etk_etdump_value_tensor(const etk_etdump_t *dump,
                            const etk_etdump_value_t *value, uint32_t i,
                            etk_etdump_tensor_t *out);

/* ---------------------------------------------------- debug buffer data */

/* Bytes per element as upstream's Inspector inflates tensors (BYTE, CHAR,
 * BOOL 1; SHORT, HALF, BITS16, UINT16 2; INT, FLOAT 4; LONG, DOUBLE 8);
 * 0 for every type upstream refuses (QINT8, BFLOAT16, UINT32, ...). */
size_t etk_etdump_tensor_element_size(int scalar_type);

/* numpy-style dtype name upstream gives the inflated tensor ("float32",
 * "int64", "uint8", "bool", ...); NULL when unsupported. */
const char *etk_etdump_tensor_dtype_name(int scalar_type);

/* prod(sizes) * element size, with overflow and negative-size checks.
 * ETK_E_UNSUPPORTED for a type upstream cannot inflate, ETK_E_FORMAT for a
 * negative size, ETK_E_OVERFLOW. */
int etk_etdump_tensor_nbytes(const etk_etdump_tensor_t *t, uint64_t *nbytes,
                             etk_error_t *err);

/* The tensor's bytes inside a debug buffer: buf[offset .. offset+nbytes),
 * bounds-checked (upstream reads the stored offset as an absolute byte
 * offset into the whole debug-buffer file and ignores strides).  A tensor
 * with no elements yields *data = NULL, *nbytes = 0 and ETK_OK whatever its
 * offset.  Errors: those of etk_etdump_tensor_nbytes, ETK_E_BAD_OFFSET when
 * the range leaves the buffer (err->offset = the tensor's offset). */
int etk_etdump_tensor_data(const etk_etdump_tensor_t *t, const uint8_t *buf,
                           size_t len, const uint8_t **data, uint64_t *nbytes,
                           etk_error_t *err);

/* How many tensors the debug events of `dump` log (each tensor of a list
 * counts): 0 means a debug buffer given with the dump is not used (it is
 * from another run, or the run logged nothing).  0 for NULL. */
size_t etk_etdump_logged_tensor_count(const etk_etdump_t *dump);

/* Checks that `buf` (len bytes) can serve as the dump's debug buffer, the
 * way upstream's Inspector inflates every logged tensor when it is given
 * one: each tensor of each debug event (single or in a list) must have an
 * inflatable dtype and lie wholly inside the buffer.  The first failure is
 * reported as "debug event N: ..." with its code (ETK_E_BAD_OFFSET for a
 * tensor past the end or straddling it, i.e. a truncated or mismatched
 * buffer; ETK_E_UNSUPPORTED, ETK_E_FORMAT, ETK_E_OVERFLOW as
 * etk_etdump_tensor_nbytes).  ETK_OK when every tensor fits. */
int etk_etdump_check_debug_buffer(const etk_etdump_t *dump, const uint8_t *buf,
                                  size_t len, etk_error_t *err);

/* ----------------------------------------------------- STATS debug values
 * A dump recorded at ETK_DEBUG_LEVEL_STATS (etkit/recorder.h) carries an
 * event-less RunData named ETK_TENSOR_STATS_MARKER (etkit/tensor_stats.h);
 * in it every logged tensor with data (offset >= 0) is the 13-value STATS
 * vector of the tensor the program produced: DOUBLE, sizes [13]. */

/* 1 when `dump` carries the marker (0 for NULL). */
int etk_etdump_has_tensor_stats(const etk_etdump_t *dump);

/* 1 when tensor `t` of `dump` is a STATS vector (the marker, DOUBLE, one
 * dimension of 13, an offset >= 0). */
int etk_etdump_tensor_is_stats(const etk_etdump_t *dump,
                               const etk_etdump_tensor_t *t);

/* Reads the STATS vector `t` from the debug buffer into out[13] (in
 * etk_tensor_stat_t order).  Errors: ETK_E_INVALID_ARGUMENT (not a STATS
 * vector), those of etk_etdump_tensor_data. */
int etk_etdump_tensor_stats(const etk_etdump_t *dump,
                            const etk_etdump_tensor_t *t, const uint8_t *buf,
                            size_t len, double out[13], etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_ETDUMP_H */
