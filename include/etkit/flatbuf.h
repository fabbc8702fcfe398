/*
 * etkit/flatbuf.h - etkit's own FlatBuffers core: a no-heap builder and a
 * schema-driven verifying reader.
 *
 * Portable C99, no OS dependency, no heap: this is one of the files an MCU
 * build copies (see docs/porting.md).
 *
 * BUILDER
 *   The buffer is built back to front inside caller memory, like every
 *   FlatBuffers builder: children first, parents after, the root last.  An
 *   object is identified by an etk_fb_ref_t, its distance in bytes from the
 *   end of the buffer (never 0 for a real object; 0 means "none/failed").
 *   Errors are sticky (nanopb style): after the first failure every call is a
 *   no-op returning 0 and etk_fb_builder_status() reports the first error, so
 *   a caller may check once at the end.
 *
 *     uint8_t mem[4096];
 *     etk_fb_builder_t b;
 *     etk_fb_builder_init(&b, mem, sizeof mem);
 *     etk_fb_ref_t name = etk_fb_create_string(&b, "Default", 7);
 *     etk_fb_table_start(&b);
 *     etk_fb_add_ref(&b, 0, name);
 *     etk_fb_ref_t root = etk_fb_table_end(&b);
 *     const uint8_t *out; size_t len;
 *     etk_fb_finish(&b, root, "ED00", ETK_FB_SIZE_PREFIXED, &out, &len);
 *
 *   Only one table may be open at a time (FlatBuffers tables cannot nest
 *   while being built).  Scalars equal to their default are not written
 *   unless ETK_FB_FORCE is used.  Vtables are deduplicated against a small
 *   cache of recently emitted vtables.
 *
 * READER
 *   etk_fb_verify() walks the whole buffer once against a schema descriptor
 *   (etk_fb_table_desc_t) and checks every offset, vtable, vector length,
 *   string terminator, alignment, enum and union value, with a nesting limit
 *   and a total-object budget (so shared sub-objects cannot explode the work).
 *   Only after it returns ETK_OK may the unchecked accessors below be used on
 *   that buffer; they do no bounds checks at all.
 */
#ifndef ETKIT_FLATBUF_H
#define ETKIT_FLATBUF_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/status.h"
#include "etkit/utf8.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- config */

/* Highest field id + 1 a table under construction may use. */
#ifndef ETK_FB_MAX_FIELDS
#define ETK_FB_MAX_FIELDS 24
#endif
/* Bytes of inline field data a table under construction may hold. */
#ifndef ETK_FB_MAX_TABLE_BYTES
#define ETK_FB_MAX_TABLE_BYTES 256
#endif
/* Number of emitted vtables remembered for sharing. */
#ifndef ETK_FB_VTABLE_CACHE
#define ETK_FB_VTABLE_CACHE 32
#endif
/* Default nesting limit of the verifier. */
#ifndef ETK_FB_DEFAULT_MAX_DEPTH
#define ETK_FB_DEFAULT_MAX_DEPTH 64
#endif

/* ---------------------------------------------------------------- builder */

typedef uint32_t etk_fb_ref_t;

typedef struct etk_fb_field_slot {
  uint16_t position; /* byte position inside the table data, 0 = absent */
  uint8_t size;      /* 0 = absent */
  uint8_t is_ref;    /* offset field: patched when the table is written */
} etk_fb_field_slot_t;

/* All state lives in this struct (no interior pointers other than the
 * caller's buffer), so it can be copied before a risky sequence and restored
 * to roll back (see etk_fb_builder_mark / etk_fb_builder_rollback). */
typedef struct etk_fb_builder {
  uint8_t *buf;       /* caller memory; objects are written at its end */
  uint32_t cap;       /* capacity in bytes (at most 2^31) */
  uint32_t used;      /* bytes used from the end (the "front" distance) */
  uint32_t max_align; /* largest alignment seen, for the final header pad */
  int status;         /* first error, sticky */
  /* table under construction */
  int table_open;
  uint16_t field_count; /* highest id + 1 */
  uint16_t table_bytes; /* unpadded data bytes */
  uint16_t table_align; /* largest scalar alignment in the table */
  uint16_t write_count; /* number of fields added */
  uint8_t write_order[ETK_FB_MAX_FIELDS];
  etk_fb_field_slot_t fields[ETK_FB_MAX_FIELDS];
  uint8_t data[ETK_FB_MAX_TABLE_BYTES];
  /* vtable cache: refs of emitted vtables (ring) */
  uint32_t vtable_refs[ETK_FB_VTABLE_CACHE];
  uint32_t vtable_count;
  /* Added after the first version of this header: */
  uint8_t vtable_buckets[ETK_FB_VTABLE_CACHE]; /* hash bucket of each entry */
  int finished; /* etk_fb_finish() succeeded; only reset may follow */
} etk_fb_builder_t;

#define ETK_FB_SIZE_PREFIXED 1
#define ETK_FB_NO_SIZE_PREFIX 0

/* Initialises `b` to build into `buf[0..cap)`.  `buf` is borrowed and must
 * outlive the builder; its alignment must be at least 8 if the finished
 * buffer will be read in place.  Returns ETK_E_INVALID_ARGUMENT for NULL
 * arguments or cap > 2^31 (`b` is then still initialised, with that status
 * sticky, when `b` itself is not NULL).
 *
 * Objects are aligned relative to the END of the buffer (the header padding
 * then makes them aligned relative to the start as well), so the builder
 * trims `cap` by up to 7 bytes to make the end address a multiple of 8: the
 * finished bytes are then 8-aligned in memory whatever `buf`'s alignment.
 * Nothing is ever written outside `buf[0..cap)`. */
int etk_fb_builder_init(etk_fb_builder_t *b, void *buf, size_t cap);

/* Forget everything built so far, including a sticky error and the vtable
 * cache; keeps the buffer.  `b` must not be NULL. */
void etk_fb_builder_reset(etk_fb_builder_t *b);

/* First error, or ETK_OK.  Error meanings: ETK_E_NO_MEMORY the caller's
 * buffer is full (what was built before stays intact); ETK_E_LIMIT a
 * compile-time limit above (ETK_FB_MAX_FIELDS, ETK_FB_MAX_TABLE_BYTES) was
 * hit; ETK_E_INVALID_STATE a call out of order (field outside a table, table
 * inside a table, anything after finish); ETK_E_INVALID_ARGUMENT a bad ref,
 * size, alignment or a field id added twice. */
int etk_fb_builder_status(const etk_fb_builder_t *b);

/* Bytes used so far (from the end of the buffer). */
size_t etk_fb_builder_size(const etk_fb_builder_t *b);

/* Bytes still free in the caller's buffer (after the alignment trim). */
size_t etk_fb_builder_available(const etk_fb_builder_t *b);

/* Rollback point: a cheap snapshot of the parts of the state that grow.
 * Take it with no table open; etk_fb_builder_rollback() then discards every
 * object built after it, clears an error raised after it (typically
 * ETK_E_NO_MEMORY when a multi-object record did not fit) and closes a table
 * left open.  Refs obtained after the mark become invalid; refs obtained
 * before stay valid.  Vtables cached after the mark are forgotten. */
typedef struct etk_fb_builder_mark {
  uint32_t used;
  uint32_t max_align;
  int status;
} etk_fb_builder_mark_t;
etk_fb_builder_mark_t etk_fb_builder_mark(const etk_fb_builder_t *b);
void etk_fb_builder_rollback(etk_fb_builder_t *b, etk_fb_builder_mark_t mark);

/* Every create function returns the new object's ref, or 0 after an error
 * (sticky; see etk_fb_builder_status).  None may be called while a table is
 * open (ETK_E_INVALID_STATE): create children first, then the table.
 *
 * Strings: `n` bytes (need not be NUL-terminated; embedded NULs are copied).
 * `s` may be NULL only when n == 0.  Cost: 4 + n + 1..4 bytes. */
etk_fb_ref_t etk_fb_create_string(etk_fb_builder_t *b, const char *s, size_t n);

/* Vector of `count` little-endian scalars or structs of `elem_size` bytes,
 * aligned to max(elem_align, 4).  `elems` is copied as is (host must be
 * little-endian, which etkit requires everywhere).  NULL allowed if count 0.
 * elem_align must be a power of two <= 64 and elem_size > 0
 * (ETK_E_INVALID_ARGUMENT otherwise). */
etk_fb_ref_t etk_fb_create_vector(etk_fb_builder_t *b, const void *elems,
                                  size_t count, size_t elem_size,
                                  size_t elem_align);

/* Vector of offsets to objects already built (tables or strings).  Every
 * ref must be non-zero and name an object of this build
 * (ETK_E_INVALID_ARGUMENT otherwise; checked before anything is written).
 * `refs` may be NULL only when count == 0. */
etk_fb_ref_t etk_fb_create_offset_vector(etk_fb_builder_t *b,
                                         const etk_fb_ref_t *refs,
                                         size_t count);

/* Offset vector whose elements are produced by a callback, for callers that
 * keep refs in their own records rather than a contiguous array.
 * `get(ctx, i)` returns the ref of element i; it is called twice per
 * element (all refs are validated before anything is written), so it must
 * return the same value each time.  `get` may be NULL only when count 0. */
etk_fb_ref_t etk_fb_create_offset_vector_cb(etk_fb_builder_t *b, size_t count,
                                            etk_fb_ref_t (*get)(void *ctx,
                                                                size_t i),
                                            void *ctx);

/* Tables.  Field ids are schema slot numbers (< ETK_FB_MAX_FIELDS, else
 * ETK_E_LIMIT).  The add functions skip a value equal to `def` unless
 * `flags` has ETK_FB_FORCE (floats compare with ==, so -0.0 equals 0.0 and
 * NaN is always written).  Adding the same id twice is
 * ETK_E_INVALID_ARGUMENT.  Fields are placed in the order added, each at the
 * next multiple of its size (flatcc's layout: add the largest first for the
 * smallest table).  etk_fb_table_start returns the (sticky) status. */
#define ETK_FB_FORCE 1
int etk_fb_table_start(etk_fb_builder_t *b);
void etk_fb_add_bool(etk_fb_builder_t *b, unsigned id, int v, int def,
                     int flags);
void etk_fb_add_u8(etk_fb_builder_t *b, unsigned id, uint8_t v, uint8_t def,
                   int flags);
void etk_fb_add_i8(etk_fb_builder_t *b, unsigned id, int8_t v, int8_t def,
                   int flags);
void etk_fb_add_u16(etk_fb_builder_t *b, unsigned id, uint16_t v, uint16_t def,
                    int flags);
void etk_fb_add_i16(etk_fb_builder_t *b, unsigned id, int16_t v, int16_t def,
                    int flags);
void etk_fb_add_u32(etk_fb_builder_t *b, unsigned id, uint32_t v, uint32_t def,
                    int flags);
void etk_fb_add_i32(etk_fb_builder_t *b, unsigned id, int32_t v, int32_t def,
                    int flags);
void etk_fb_add_u64(etk_fb_builder_t *b, unsigned id, uint64_t v, uint64_t def,
                    int flags);
void etk_fb_add_i64(etk_fb_builder_t *b, unsigned id, int64_t v, int64_t def,
                    int flags);
void etk_fb_add_f32(etk_fb_builder_t *b, unsigned id, float v, float def,
                    int flags);
void etk_fb_add_f64(etk_fb_builder_t *b, unsigned id, double v, double def,
                    int flags);
/* Offset field (string, vector, table); ref 0 means "absent" and is skipped
 * (so the result of a failed create can be passed on without a test). */
void etk_fb_add_ref(etk_fb_builder_t *b, unsigned id, etk_fb_ref_t ref);
/* Inline struct of `size` (1..255) bytes with alignment `align` (power of
 * two <= 64), copied from `data` (not NULL). */
void etk_fb_add_struct(etk_fb_builder_t *b, unsigned id, const void *data,
                       size_t size, size_t align);
/* Writes vtable (shared when an identical one is cached in the same hash
 * bucket, as flatcc does) and table; returns the table's ref.  The table is
 * closed even when this fails. */
etk_fb_ref_t etk_fb_table_end(etk_fb_builder_t *b);

/* Writes the header: [u32 size if size_prefixed][u32 root][4-byte ident if
 * non-NULL], padded so the buffer start honours the largest alignment used.
 * On success *out and *len give the finished bytes (a pointer into the caller's
 * buffer).  May be called once per build; etk_fb_builder_reset() starts
 * over.  `ident` (4 bytes are copied, no NUL needed) may be NULL.  `out` and
 * `len` must not be NULL; they are set to NULL/0 on failure.  Returns the
 * sticky status. */
int etk_fb_finish(etk_fb_builder_t *b, etk_fb_ref_t root, const char *ident,
                  int size_prefixed, const uint8_t **out, size_t *len);

/* ---------------------------------------------------------------- schema */

typedef enum etk_fb_kind {
  ETK_FB_SCALAR = 1, /* size 1/2/4/8; enum_mask optional */
  ETK_FB_STRING,     /* offset to string */
  ETK_FB_TABLE,      /* offset to table `table` */
  ETK_FB_STRUCT,     /* inline struct of `size` bytes, `align` */
  ETK_FB_VEC_SCALAR, /* vector of `size`-byte scalars (enum_mask optional) */
  ETK_FB_VEC_STRUCT, /* vector of `size`-byte structs, `align` */
  ETK_FB_VEC_STRING, /* vector of strings */
  ETK_FB_VEC_TABLE,  /* vector of tables `table` */
  ETK_FB_UNION_TYPE, /* u8 union discriminator; the value field is id+1 */
  ETK_FB_UNION       /* offset to union member; union_tables[type] */
} etk_fb_kind_t;

struct etk_fb_table_desc;

typedef struct etk_fb_field_desc {
  const char *name; /* for error messages */
  uint16_t id;
  uint8_t kind;        /* etk_fb_kind_t */
  uint8_t size;        /* scalar, element or struct size */
  uint8_t align;       /* struct alignment (0 = size) */
  uint8_t required;    /* absent -> ETK_E_MISSING_FIELD */
  uint8_t union_count; /* number of union_tables entries (index = type) */
  uint64_t enum_mask; /* for 1-byte enums: bit v set = value v valid; 0 = any */
  const struct etk_fb_table_desc *table;               /* TABLE / VEC_TABLE */
  const struct etk_fb_table_desc *const *union_tables; /* UNION; [0] = NONE */
  /* Added after the first version of this header (trailing, so positional
   * initialisers written against it stay valid).  Schema default of a
   * scalar field, for readers and tests; the verifier ignores it. */
  int64_t default_int; /* integer, bool and enum scalars (ulong: bit pattern) */
  double default_real; /* float and double scalars */
  uint8_t is_signed;   /* SCALAR/VEC_SCALAR integers: 1 if signed */
  uint8_t is_real;     /* SCALAR/VEC_SCALAR: 1 for float/double */
} etk_fb_field_desc_t;

typedef struct etk_fb_table_desc {
  const char *name;
  uint16_t field_count;
  const etk_fb_field_desc_t *fields;
} etk_fb_table_desc_t;

/* ---------------------------------------------------------------- verifier */

typedef struct etk_fb_verify_options {
  unsigned max_depth;   /* 0 -> ETK_FB_DEFAULT_MAX_DEPTH */
  uint64_t max_objects; /* 0 -> 8 * buffer length + 1024 */
  const char *ident;    /* 4 chars expected at the identifier slot, or NULL */
  int size_prefixed;    /* 1: u32 size first, must be <= len - 4 */
} etk_fb_verify_options_t;

typedef struct etk_fb_verify_error {
  int code;          /* ETK_E_* */
  uint32_t offset;   /* byte offset in the buffer given to verify */
  const char *table; /* descriptor names, or NULL */
  const char *field;
} etk_fb_verify_error_t;

/* Verifies `buf[0..len)` against `root`.  On success returns ETK_OK and sets
 * *root_table (offset of the root table from `buf`, usable with the accessors
 * below).  For a size-prefixed buffer the verified region is the prefix's
 * size (trailing bytes are ignored, as readers of size-prefixed streams do).
 * Alignment is checked relative to `buf`; the accessors load byte-wise, so
 * `buf` itself may have any address.  `options` may be NULL (no prefix, no
 * identifier check, default limits); options->ident, when set, must point
 * to 4 bytes.  `root_table` and `err` may be NULL.  Reads only
 * buf[0..len); no heap; time is O(len + max_objects).
 *
 * Errors (err->code is the return value; err->offset a byte offset in buf;
 * err->table / err->field the descriptor names, field NULL for table-level
 * problems):
 *   ETK_E_INVALID_ARGUMENT  NULL buf/root, or a malformed descriptor
 *   ETK_E_LIMIT             len > 4 GiB, or max_objects exceeded (offset of
 *                           the object that went over the budget)
 *   ETK_E_TRUNCATED         shorter than the header, or a size prefix larger
 *                           than the data (offset of the header field)
 *   ETK_E_BAD_IDENTIFIER    identifier mismatch (offset of the identifier)
 *   ETK_E_BAD_OFFSET        a uoffset of 0, or whose target (plus its 4-byte
 *                           header) is outside the region (offset of the
 *                           uoffset itself)
 *   ETK_E_BAD_ALIGNMENT     table not 4-aligned, vtable not 2-aligned, field
 *                           not aligned to its size, string not 4-aligned,
 *                           vector count not 4-aligned or (when count > 0)
 *                           elements not aligned (offset of the object)
 *   ETK_E_BAD_VTABLE        vtable outside the region (offset of the table),
 *                           vtable size odd, < 4 or past the end (offset of
 *                           the vtable), table size < 4 or past the end
 *                           (vtable + 2), field entry < 4 or outside the
 *                           table (offset of the vtable entry)
 *   ETK_E_BAD_STRING        length past the end (offset of the string) or
 *                           missing NUL (offset where the NUL should be)
 *   ETK_E_BAD_VECTOR        count * element size past the end (offset of the
 *                           vector)
 *   ETK_E_BAD_ENUM          1-byte enum value not in enum_mask (offset of
 *                           the value)
 *   ETK_E_BAD_UNION         value with type NONE (offset of the value), type
 *                           without value or unknown type (offset of the
 *                           type); union members must be tables
 *   ETK_E_TOO_DEEP          more than max_depth nested tables (offset of the
 *                           first table too deep; the root is depth 1)
 *   ETK_E_MISSING_FIELD     a `required` field absent (offset of the table) */
int etk_fb_verify(const uint8_t *buf, size_t len,
                  const etk_fb_table_desc_t *root,
                  const etk_fb_verify_options_t *options, uint32_t *root_table,
                  etk_fb_verify_error_t *err);

/* --------------------------------------------- unchecked accessors (verified)
 */

/* Valid only on a buffer etk_fb_verify() accepted with a descriptor that
 * covers the fields read, and with the field read as its schema kind; no
 * bounds checks are made.  Any table argument may be "absent" (pos 0, e.g.
 * the result of etk_fb_get_table on a missing field): the getters then
 * return the default / NULL / empty, so lookups can be chained. */

/* A table is named by its byte offset from the buffer start. */
typedef struct etk_fb_table {
  const uint8_t *buf;
  uint32_t pos;
} etk_fb_table_t;

typedef struct etk_fb_vector {
  const uint8_t *data; /* first element; NULL if absent */
  uint32_t count;
  uint32_t pos; /* offset of the first element from buffer start */
} etk_fb_vector_t;

typedef struct etk_fb_string {
  const char *data; /* NUL-terminated; NULL if absent */
  uint32_t len;
} etk_fb_string_t;

etk_fb_table_t etk_fb_root(const uint8_t *buf, uint32_t root_table);
/* Whether field `id` is physically present (a scalar written even if equal
 * to its default counts as present). */
int etk_fb_has(etk_fb_table_t t, unsigned id);
uint8_t etk_fb_get_u8(etk_fb_table_t t, unsigned id, uint8_t def);
int8_t etk_fb_get_i8(etk_fb_table_t t, unsigned id, int8_t def);
uint16_t etk_fb_get_u16(etk_fb_table_t t, unsigned id, uint16_t def);
int16_t etk_fb_get_i16(etk_fb_table_t t, unsigned id, int16_t def);
uint32_t etk_fb_get_u32(etk_fb_table_t t, unsigned id, uint32_t def);
int32_t etk_fb_get_i32(etk_fb_table_t t, unsigned id, int32_t def);
uint64_t etk_fb_get_u64(etk_fb_table_t t, unsigned id, uint64_t def);
int64_t etk_fb_get_i64(etk_fb_table_t t, unsigned id, int64_t def);
float etk_fb_get_f32(etk_fb_table_t t, unsigned id, float def);
double etk_fb_get_f64(etk_fb_table_t t, unsigned id, double def);
/* Inline struct: pointer to its bytes, NULL if absent. */
const uint8_t *etk_fb_get_struct(etk_fb_table_t t, unsigned id);
/* Sub-table; .pos == 0 if absent (use etk_fb_table_present). */
etk_fb_table_t etk_fb_get_table(etk_fb_table_t t, unsigned id);
int etk_fb_table_present(etk_fb_table_t t);
/* String: .data NULL when absent; otherwise NUL-terminated, .len bytes
 * (may embed NULs; not necessarily UTF-8, see etk_fb_utf8_valid). */
etk_fb_string_t etk_fb_get_string(etk_fb_table_t t, unsigned id);
/* Vector: .data NULL when absent; present-but-empty gives .data non-NULL and
 * .count 0.  Elements are little-endian, read them with etk_fb_load_*. */
etk_fb_vector_t etk_fb_get_vector(etk_fb_table_t t, unsigned id);
/* Element i of a vector of tables / strings. */
etk_fb_table_t etk_fb_vector_table(const uint8_t *buf, etk_fb_vector_t v,
                                   uint32_t i);
etk_fb_string_t etk_fb_vector_string(const uint8_t *buf, etk_fb_vector_t v,
                                     uint32_t i);

/* Little-endian loads usable on any alignment. */
uint16_t etk_fb_load_u16(const uint8_t *p);
uint32_t etk_fb_load_u32(const uint8_t *p);
uint64_t etk_fb_load_u64(const uint8_t *p);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_FLATBUF_H */
