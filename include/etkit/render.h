/*
 * etkit/render.h - output formats shared by the etkit tools: buffered
 * output sinks, the upstream-compatible text table (tabulate "fancy_grid"),
 * pandas-compatible TSV/CSV, a streaming JSON writer, and the number and
 * Python-repr formatting those formats need.
 *
 * Host only (stdio, heap).  The library knows nothing about ETDump or the
 * Inspector: callers describe a table as an etk_frame_t (a row/column cell
 * callback, so a million-row table is never materialised), and the
 * renderers pull cells from it.  The Inspector (etkit/inspector.h) builds
 * its frames on top of this.
 *
 * Compatibility targets (see docs/compatibility.md, "Renderers"):
 *   - etk_render_table() prints what Python tabulate 0.8.9 prints for
 *     tabulate(df, headers="keys", tablefmt="fancy_grid") of a pandas
 *     DataFrame with the same cells, except that control characters are
 *     escaped (a deliberate deviation, for terminal safety).
 *   - etk_render_delimited() writes what DataFrame.to_csv(sep=...) writes
 *     (pandas 1.5, minimal quoting, "\n" line ends, index first).
 *   - etk_format_double_repr() is Python's repr(float) (shortest round-trip
 *     digits), etk_format_double_g() is Python's format(x, "g").
 *
 * Example: print a two-column frame as a fancy grid on stdout.
 *
 *   static int cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
 *                   etk_strbuf_t *scratch) {
 *     (void)ctx; (void)scratch;
 *     if (col == 0) etk_cell_set_text(out, "add", 3);
 *     else etk_cell_set_float(out, 0.5 * (double)row);
 *     return ETK_OK;
 *   }
 *   ...
 *   static const char *const headers[] = {"name", "avg (ms)"};
 *   etk_frame_t f = {2, 2, headers, cell, NULL, 1};
 *   etk_render_sink_t sink;
 *   etk_render_sink_init_file(&sink, stdout);
 *   int rc = etk_render_table(&f, &sink, NULL);
 *   if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
 */
#ifndef ETKIT_RENDER_H
#define ETKIT_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "etkit/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ sink */

/* Receives rendered bytes.  Returns 0 on success, non-zero on failure (the
 * sink then records ETK_E_IO and drops everything after). */
typedef int (*etk_render_write_fn)(void *ctx, const char *data, size_t len);

#define ETK_RENDER_SINK_BUFFER 16384

/* A buffered output.  Caller-allocated, no interior pointers except the
 * callback context; all state is plain data.  Errors are sticky: after the
 * first failed write every put is a no-op and etk_render_sink_flush()
 * returns the error.  Not thread-safe. */
typedef struct etk_render_sink {
  etk_render_write_fn write; /* NULL: counting sink (bytes counted, dropped) */
  void *ctx;
  int status;     /* first error (ETK_E_IO, ETK_E_NO_MEMORY) or ETK_OK */
  uint64_t bytes; /* bytes accepted so far (buffered ones included) */
  size_t len;     /* bytes waiting in buf */
  /* memory sinks (etk_render_sink_init_memory): buf drains into this */
  char *mem;
  size_t mem_len, mem_cap;
  char buf[ETK_RENDER_SINK_BUFFER];
} etk_render_sink_t;

/* Sink that calls `write(ctx, ...)` with chunks of up to
 * ETK_RENDER_SINK_BUFFER bytes.  `write` may be NULL for a counting sink. */
void etk_render_sink_init(etk_render_sink_t *s, etk_render_write_fn write,
                          void *ctx);

/* Sink writing to `fp` (borrowed; not closed).  A short fwrite is ETK_E_IO. */
void etk_render_sink_init_file(etk_render_sink_t *s, FILE *fp);

/* Sink collecting everything in a growing malloc'd buffer.  Take the result
 * with etk_render_sink_take(); free it with etk_render_sink_free() if not
 * taken.  Allocation failure is sticky ETK_E_NO_MEMORY. */
void etk_render_sink_init_memory(etk_render_sink_t *s);

/* Memory sinks: hands the collected bytes (NUL-terminated, length in *len)
 * to the caller, who frees them with free(); the sink is emptied.  Returns
 * NULL (and *len = 0) after an error or for other sink kinds. */
char *etk_render_sink_take(etk_render_sink_t *s, size_t *len);

/* Releases a memory sink's buffer (no-op for other kinds). */
void etk_render_sink_free(etk_render_sink_t *s);

/* Appends bytes (buffered). */
void etk_render_put(etk_render_sink_t *s, const char *data, size_t len);
/* Appends a NUL-terminated string. */
void etk_render_puts(etk_render_sink_t *s, const char *str);
/* Appends one byte. */
void etk_render_putc(etk_render_sink_t *s, char c);
/* Appends printf-formatted text (at most 4095 bytes per call). */
void etk_render_printf(etk_render_sink_t *s, const char *fmt, ...)
    ETK_PRINTF_LIKE(2, 3);

/* Writes out buffered bytes; returns the sticky status. */
int etk_render_sink_flush(etk_render_sink_t *s);

/* The writers' fast path: a pointer to room for `n` bytes (n <=
 * ETK_RENDER_SINK_BUFFER) at the end of the sink's buffer, draining it
 * first when it is too full, or NULL after an error.  Write at most `n`
 * bytes there, then etk_render_commit() the number written.  Every sink
 * kind (file, callback, memory, counting) buffers the same way, so a
 * writer that formats straight into the room makes no call per piece. */
char *etk_render_room_slow(etk_render_sink_t *s, size_t n);
static inline char *etk_render_room(etk_render_sink_t *s, size_t n) {
  if (n <= sizeof s->buf - s->len && s->status == ETK_OK)
    return s->buf + s->len;
  return etk_render_room_slow(s, n);
}
/* Accepts `n` bytes written into the room etk_render_room() returned. */
static inline void etk_render_commit(etk_render_sink_t *s, size_t n) {
  s->len += n;
  s->bytes += n;
}

/* ------------------------------------------------------------- strbuf */

/* A growing byte buffer (always NUL-terminated once non-empty).  Errors are
 * sticky: after an allocation failure `failed` is set and appends are
 * no-ops.  Zero-initialise ({0}) or call etk_strbuf_init(). */
typedef struct etk_strbuf {
  char *data;
  size_t len, cap;
  int failed;
} etk_strbuf_t;

void etk_strbuf_init(etk_strbuf_t *b);
void etk_strbuf_free(etk_strbuf_t *b);
/* Empties the buffer, keeping its memory. */
void etk_strbuf_clear(etk_strbuf_t *b);
void etk_strbuf_append(etk_strbuf_t *b, const char *data, size_t len);
void etk_strbuf_appends(etk_strbuf_t *b, const char *str);
void etk_strbuf_appendc(etk_strbuf_t *b, char c);
void etk_strbuf_printf(etk_strbuf_t *b, const char *fmt, ...)
    ETK_PRINTF_LIKE(2, 3);
/* Cuts the UTF-8 text to max_points code points (>= 1), the last one an
 * ellipsis, when it has more; compact tables use it for long names. */
void etk_strbuf_cut(etk_strbuf_t *b, size_t max_points);

/* ------------------------------------------------------ number formatting */

/* Longest output of the formatters below, NUL included. */
#define ETK_FORMAT_DOUBLE_MAX 32

/* Python repr(float): the shortest decimal that reads back as exactly `x`
 * (the nearest one when several are as short), written positionally when
 * 1e-4 <= |x| < 1e16 ("0.0001", "1000000000000000.0", "0.036000000000000004")
 * and as d.ddde±XX otherwise ("1e-05", "1.5e+16"); "nan", "inf", "-inf",
 * "0.0", "-0.0".  Writes a NUL-terminated string to `out` (at least
 * ETK_FORMAT_DOUBLE_MAX bytes) and returns its length.  Cost: a few
 * multiplications for values with at most 15 significant digits (the usual
 * case for durations), a few long double operations for 16-17 digits
 * (where long double has a 64-bit significand), snprintf/strtod for
 * subnormals, far exponents and the rare too-close-to-call value. */
size_t etk_format_double_repr(double x, char *out);

/* Texts of recent doubles' repr, by their bits: rows of a million events
 * repeat a few hundred durations (six equal statistics of a one-sample
 * event, the same few ticks), whose text is then copied instead of
 * formatted again.  Direct-mapped (ETK_REPR_MEMO_SLOTS slots, 10 KB), the
 * last slot used checked first.  Zero-fill before use (memset, calloc);
 * etk_repr_memo_text() returns v's repr text (not NUL-terminated, but
 * ETK_FORMAT_DOUBLE_MAX bytes readable) and stores its length in *len. */
#define ETK_REPR_MEMO_SLOTS 256
typedef struct etk_repr_memo {
  struct {
    uint64_t bits;
    uint32_t len; /* 0: empty slot (a double's text is never empty) */
    char text[ETK_FORMAT_DOUBLE_MAX + 4];
  } slot[ETK_REPR_MEMO_SLOTS];
  size_t last; /* slot of the last double asked for */
} etk_repr_memo_t;

static inline const char *etk_repr_memo_text(etk_repr_memo_t *m, double v,
                                             size_t *len) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  size_t k = m->last;
  if (m->slot[k].bits != bits || m->slot[k].len == 0) {
    /* the bits mixed before their top byte is taken: durations in
     * microseconds share many of their low and high bits */
    uint64_t h = bits ^ (bits >> 32);
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    k = (size_t)(h >> 56);
    if (m->slot[k].len == 0 || m->slot[k].bits != bits) {
      m->slot[k].len = (uint32_t)etk_format_double_repr(v, m->slot[k].text);
      m->slot[k].bits = bits;
    }
    m->last = k;
  }
  *len = m->slot[k].len;
  return m->slot[k].text;
}

/* What etk_format_double_repr() writes for the double nearest to
 * v / 10^k, formatted from the integers (no floating point): "1.256",
 * "0.0", "1256.0", "0.253".  Returns 0, writing nothing useful, when
 * that is not known to be so: k outside 0..15, v >= 10^15 (more than 15
 * significant digits), or a value below 0.0001 (the exponent form).  `out`
 * holds ETK_FORMAT_DOUBLE_MAX bytes. */
size_t etk_format_decimal_repr(uint64_t v, int k, char *out);

/* Python format(x, "g") (6 significant digits, trailing zeros dropped,
 * exponent form when the exponent is < -4 or >= 6): "0.022484", "1e-06",
 * "123457", "nan", "inf".  Same contract as etk_format_double_repr().
 * Cost: a multiplication and a rounding for 1e-17 <= |x| < 1e27 (a fused
 * multiply-add more on a near tie), snprintf outside that range. */
size_t etk_format_double_g(double x, char *out);

/* Readable durations for etkit's own views (not the upstream-compatible
 * tables): a unit chosen for a column, values with few digits.
 * etk_duration_unit() picks the largest of s, ms, µs, ns in which
 * `seconds` (typically a column's largest magnitude) is at least 1 (ns
 * below 1 ns and for 0 / NaN), returns its name ("ms", "µs" in UTF-8) and
 * stores in *per_second how many units make one second. */
const char *etk_duration_unit(double seconds, double *per_second);

/* Writes `seconds` in the unit of `per_second` with 3 significant digits
 * and no exponent ("12.3", "0.512", "0.0096", "1234", "-4.50" stays
 * "-4.5"; a non-zero value is never "0" or "-0", only magnitudes below
 * 1e-15 take an exponent); "nan", "inf" as etk_format_double_g.  `out` holds
 * ETK_FORMAT_DOUBLE_MAX bytes; returns the length. */
size_t etk_format_duration_in(double seconds, double per_second, char *out);

/* `v` rounded to 3 significant digits (the integer part kept; -0 becomes
 * 0): what etk_format_duration_in() prints, as a number for cells. */
double etk_duration_round(double v);

/* Seconds in one "ns", "us", "ms" or "s"; 0 for anything else (cycles). */
double etk_seconds_per_unit(const char *unit);

/* "12.3 ms": etk_format_duration_in() in the unit etk_duration_unit()
 * picks for the value itself. */
size_t etk_format_duration(double seconds, char *out);

/* Decimal text of an integer; returns the length (at most 20). */
size_t etk_format_int(int64_t v, char *out);
size_t etk_format_uint(uint64_t v, char *out);

/* ------------------------------------------------- Python repr of values */

/* Appends Python's repr() of a str given as UTF-8 bytes: single quotes unless
 * the text contains ' and no ", backslash and the quote escaped, \t \n \r,
 * other control and non-printable characters as \xNN, \uNNNN, \UNNNNNNNN.
 * (Non-printable means: C0/C1 controls, DEL, Unicode separators and format
 * characters, private use and noncharacters; unassigned code points are not
 * known to etkit and are printed as they are.)  Invalid UTF-8 bytes are
 * written as \xNN escapes. */
void etk_pyrepr_str(etk_strbuf_t *b, const char *s, size_t len);

/* Appends Python's repr() of a bytes object: b'...' with the same quote
 * rule, \\ \t \n \r, and \xNN for bytes outside 0x20..0x7e. */
void etk_pyrepr_bytes(etk_strbuf_t *b, const uint8_t *s, size_t len);

/* ------------------------------------------------------------- frames */

/* Cell kinds, named after the Python value a DataFrame cell would hold.
 * They matter for the table (tabulate infers column types from them) and
 * for TSV/CSV (None/NaN become empty fields). */
typedef enum etk_cell_kind {
  ETK_CELL_NONE = 0, /* Python None: empty in every format */
  ETK_CELL_NAN,      /* float NaN: "nan" in the table, empty in TSV/CSV */
  ETK_CELL_FLOAT,    /* a float (`f`) */
  ETK_CELL_INT,      /* an int (`i`) */
  ETK_CELL_BOOL,     /* True/False (`i` != 0) */
  ETK_CELL_TEXT,  /* a str (`text`, `len`): the table treats "12" as a number,
                     like tabulate */
  ETK_CELL_OBJECT /* str() of another object, e.g. a list repr: never a number
                   */
} etk_cell_kind_t;

typedef struct etk_cell {
  int kind; /* etk_cell_kind_t */
  double f;
  int64_t i;
  const char *text; /* TEXT/OBJECT; valid until the next cell call */
  size_t len;
} etk_cell_t;

static inline void etk_cell_set_none(etk_cell_t *c) {
  c->kind = ETK_CELL_NONE;
}
static inline void etk_cell_set_float(etk_cell_t *c, double f) {
  c->kind = (f != f) ? ETK_CELL_NAN : ETK_CELL_FLOAT;
  c->f = f;
}
static inline void etk_cell_set_int(etk_cell_t *c, int64_t i) {
  c->kind = ETK_CELL_INT;
  c->i = i;
}
static inline void etk_cell_set_bool(etk_cell_t *c, int b) {
  c->kind = ETK_CELL_BOOL;
  c->i = b != 0;
}
static inline void etk_cell_set_text(etk_cell_t *c, const char *t, size_t len) {
  c->kind = ETK_CELL_TEXT;
  c->text = t;
  c->len = len;
}
static inline void etk_cell_set_object(etk_cell_t *c, const char *t,
                                       size_t len) {
  c->kind = ETK_CELL_OBJECT;
  c->text = t;
  c->len = len;
}

/* Fills `out` with the cell at (row, col).  `scratch` is a buffer the
 * callback may use for text it builds (cleared by the renderer before each
 * call); text may also point to the caller's own stable memory.  Return
 * ETK_OK or an error code (rendering stops and returns it). */
typedef int (*etk_frame_cell_fn)(void *ctx, size_t row, size_t col,
                                 etk_cell_t *out, etk_strbuf_t *scratch);

/* A companion of a frame's etk_frame_cell_fn (etk_render_delimited_rows,
 * etk_render_table_rows):
 * fills cells[0..cols) with row `row` at once, exactly the cells the frame's
 * `cell` would give one by one.  Every cell must be set (the renderer does
 * not clear them between rows).
 * Text may point into the callback's own memory, valid until the next row
 * call (no scratch buffer is passed).  Return ETK_OK or an error code. */
typedef int (*etk_frame_row_fn)(void *ctx, size_t row, etk_cell_t *cells);

/* A table: `rows` x `cols` cells produced on demand, `headers[cols]` the
 * column names (UTF-8), `show_index` adds pandas' row index (0..rows-1) as
 * an unnamed first column.  Renderers may call `cell` several times per
 * cell (the table makes two passes, and a third over the rare text column
 * whose first floats came before its first string), in row-major order
 * within a pass. */
typedef struct etk_frame {
  size_t rows;
  size_t cols;
  const char *const *headers;
  etk_frame_cell_fn cell;
  void *ctx;
  int show_index;
} etk_frame_t;

/* Prints the frame like tabulate(df, headers="keys", tablefmt="fancy_grid")
 * followed by "\n" (Python's print).  Column types, number formats ("g"),
 * decimal alignment, widths and box characters follow tabulate 0.8.9; cell
 * width counts code points.  Control characters (C0, DEL, C1) and bidi
 * controls inside text are written as escapes (\n, \t, \x1b, \u202e) so a
 * hostile name cannot move the cursor or reorder the line.  A frame with no
 * rows prints the header box only (and no index column), as tabulate does. */
int etk_render_table(const etk_frame_t *f, etk_render_sink_t *sink,
                     etk_error_t *err);

/* etk_render_table() asking `row` for each row's cells in one call per row
 * and pass (f->cell is not called; NULL `row` falls back to it): the same
 * bytes, without a callback per cell. */
int etk_render_table_rows(const etk_frame_t *f, etk_frame_row_fn row,
                          etk_render_sink_t *sink, etk_error_t *err);

/* Writes the frame like DataFrame.to_csv(sep=sep): header line (an empty
 * index name first when show_index), one line per row, "\n" line ends,
 * floats as Python repr, None/NaN empty, booleans True/False, and a field
 * quoted with "" doubling when it contains `sep`, '"', '\n' or '\r'.
 * `sep` is '\t' for TSV (save_data_to_tsv) or ',' for CSV. */
int etk_render_delimited(const etk_frame_t *f, char sep,
                         etk_render_sink_t *sink, etk_error_t *err);

/* etk_render_delimited() asking `row` for each row's cells in one call
 * (f->cell is not called; NULL `row` falls back to it): the same bytes,
 * without a callback per cell. */
int etk_render_delimited_rows(const etk_frame_t *f, etk_frame_row_fn row,
                              char sep, etk_render_sink_t *sink,
                              etk_error_t *err);

/* etk_render_delimited() driven by the caller, one row at a time, for a
 * caller that computes the rows for another output too (the Inspector's
 * table and TSV from one computation).  etk_delimited_open() writes the
 * header of `f` (f->rows, f->cell and f->ctx are not used; `f` must stay
 * valid until the close) and returns NULL when out of memory;
 * etk_delimited_put_row() appends the next row (cells[0..f->cols), the
 * index counted from 0 when f->show_index); etk_delimited_close() writes
 * what is left when `ok` (else discards it), frees the writer and returns
 * ETK_OK or the sink's error.  The bytes are those etk_render_delimited()
 * writes for the same cells. */
typedef struct etk_delimited_writer etk_delimited_writer_t;
etk_delimited_writer_t *etk_delimited_open(const etk_frame_t *f, char sep,
                                           etk_render_sink_t *sink);
int etk_delimited_put_row(etk_delimited_writer_t *w, const etk_cell_t *cells);
int etk_delimited_close(etk_delimited_writer_t *w, int ok);

/* ------------------------------------------------------------- JSON */

#define ETK_JSON_MAX_DEPTH 32

/* Streaming JSON writer: commas, nesting and escaping are handled; the
 * caller emits keys and values in order.  Output is compact unless
 * `indent` > 0 (spaces per level).  Misuse (a value where a key is due,
 * nesting deeper than ETK_JSON_MAX_DEPTH, closing what is not open) sets a
 * sticky ETK_E_INVALID_STATE in `status`. */
typedef struct etk_json {
  etk_render_sink_t *sink;
  int indent;
  int depth;
  int status;
  uint8_t is_object[ETK_JSON_MAX_DEPTH]; /* per level: object (1) or array */
  uint8_t count_nonzero[ETK_JSON_MAX_DEPTH]; /* per level: a member written */
  int key_pending;                           /* a key was written, value due */
  /* the last double written and its text (columns of statistics often
   * repeat one value: it is formatted once) */
  int have_last;
  uint64_t last_bits;
  uint8_t last_len;
  char last_text[ETK_FORMAT_DOUBLE_MAX];
} etk_json_t;

void etk_json_init(etk_json_t *j, etk_render_sink_t *sink, int indent);
void etk_json_begin_object(etk_json_t *j);
void etk_json_end_object(etk_json_t *j);
void etk_json_begin_array(etk_json_t *j);
void etk_json_end_array(etk_json_t *j);
/* Object key (UTF-8, escaped like strings). */
void etk_json_key(etk_json_t *j, const char *key);
void etk_json_key_n(etk_json_t *j, const char *key, size_t len);

/* A key checked, quoted and escaped once, for keys written many times
 * (the columns of a million events): etk_json_key_prepared() then costs
 * one copy.  `key` must stay valid while the prepared key is used; a key
 * too long for `text` is written through etk_json_key_n() instead.  A
 * prepared key does not depend on the writer, so one may be a constant:
 * ETK_JSON_KEY_LITERAL("dur") for a string literal of printable ASCII
 * without '"' or '\\' (at most 60 bytes). */
#define ETK_JSON_PREPARED_MAX 64
typedef struct etk_json_prepared_key {
  const char *key;
  size_t key_len;
  size_t len;                       /* bytes of text; 0: not prepared */
  char text[ETK_JSON_PREPARED_MAX]; /* "key": (the escaped key, quoted) */
} etk_json_prepared_key_t;

#define ETK_JSON_KEY_LITERAL(lit) \
  { lit, sizeof(lit) - 1, sizeof(lit) + 2, "\"" lit "\":" }

/* Prepares `key` (NUL-terminated); `j` is not used (may be NULL). */
void etk_json_key_prepare(const etk_json_t *j, const char *key,
                          etk_json_prepared_key_t *out);
/* Same as etk_json_key(j, k->key). */
void etk_json_key_prepared(etk_json_t *j, const etk_json_prepared_key_t *k);
/* String value: " \\ and control characters escaped (\n \t \uXXXX), and
 * U+2028/U+2029 escaped so the output is also valid JavaScript; invalid
 * UTF-8 bytes become U+FFFD. */
void etk_json_string(etk_json_t *j, const char *s, size_t len);
void etk_json_cstring(etk_json_t *j, const char *s); /* NULL -> null */
/* Number in Python repr digits; NaN and infinities become null. */
void etk_json_double(etk_json_t *j, double v);
void etk_json_int(etk_json_t *j, int64_t v);
void etk_json_uint(etk_json_t *j, uint64_t v);
void etk_json_bool(etk_json_t *j, int v);
void etk_json_null(etk_json_t *j);
/* Pieces for writers that format many values straight into the sink's
 * buffer (one event object of a million at a time):
 * etk_json_value_room() checks the state and writes what precedes a value
 * (the comma and indentation in an array), then returns etk_render_room(
 * j->sink, n) (NULL after an error); the caller writes one complete JSON
 * value there, consistent with the writer's indentation, and commits it
 * with etk_render_commit(j->sink, written). */
char *etk_json_value_room(etk_json_t *j, size_t n);
/* Python repr digits of the finite `v` into `out` (room for
 * ETK_FORMAT_DOUBLE_MAX bytes), through the writer's memory of the last
 * double (a repeated value is copied); returns the length. */
size_t etk_json_format_double(etk_json_t *j, double v, char *out);
/* Length of the leading part of s that a JSON string holds as it is
 * (printable ASCII other than '"' and '\\'): len when s needs no escaping. */
size_t etk_json_plain_length(const char *s, size_t len);
/* A frame cell as a JSON value: TEXT and OBJECT as strings, INT, BOOL,
 * FLOAT as numbers and booleans, NONE and NAN as null. */
void etk_json_cell(etk_json_t *j, const etk_cell_t *cell);

/* Key and value in one call: etk_json_kv_uint(j, "count", n) writes what
 * etk_json_key(j, "count") then etk_json_uint(j, n) write, with one
 * reservation of the sink's buffer when the key and a string value need
 * no escaping.  The value rules are those of the single calls (a NULL
 * string is null for kv_cstring and "" for kv_string, NaN is null). */
void etk_json_kv_string(etk_json_t *j, const char *key, const char *s,
                        size_t len);
void etk_json_kv_cstring(etk_json_t *j, const char *key, const char *s);
void etk_json_kv_double(etk_json_t *j, const char *key, double v);
void etk_json_kv_int(etk_json_t *j, const char *key, int64_t v);
void etk_json_kv_uint(etk_json_t *j, const char *key, uint64_t v);
void etk_json_kv_bool(etk_json_t *j, const char *key, int v);
void etk_json_kv_null(etk_json_t *j, const char *key);
/* Ends the document (a final newline); returns the sticky status, or
 * ETK_E_INVALID_STATE when containers are still open. */
int etk_json_finish(etk_json_t *j);
/* etk_json_finish, and on failure `err` set to "writing JSON failed: "
 * and the status's text; returns the status. */
int etk_json_finish_or_error(etk_json_t *j, etk_error_t *err);

/* ====================================================================
 * Analysis output formats: HTML and the Chrome Trace Event Format.
 * Used by `etkit report` and `etkit trace` (etkit/inspector.h, section
 * "Analyses"); like the rest of this library they know nothing about
 * ETDumps.
 * ==================================================================== */

/* ------------------------------------------------------------- HTML */

/* Appends `len` bytes of UTF-8 text escaped for HTML element content AND
 * quoted attribute values: & < > " ' as entities; control characters
 * (C0 with tab and newline, DEL, C1), U+2028/9 and bidi controls as
 * visible escapes (\n, \t, \x1b, \u202e); invalid UTF-8 bytes as U+FFFD.
 * NULL `s` or `text` is a no-op.  Cost: one pass, no allocation. */
void etk_html_text(etk_render_sink_t *s, const char *text, size_t len);
/* Same for a NUL-terminated string (NULL is a no-op). */
void etk_html_texts(etk_render_sink_t *s, const char *text);

/* Writes the frame as <table class="css_class"> with a <thead> of the
 * headers and one <tr> per row; cells are escaped with etk_html_text(),
 * numbers (INT, FLOAT, NAN cells) get class="n" and Python "g" formatting,
 * None is an empty cell.  `css_class` may be NULL.  Each cell is requested
 * once, row by row.  Errors: ETK_E_INVALID_ARGUMENT, the cell callback's
 * code, the sink's ETK_E_IO / ETK_E_NO_MEMORY. */
int etk_render_html_table(const etk_frame_t *f, const char *css_class,
                          etk_render_sink_t *sink, etk_error_t *err);

/* ------------------------------------------------- Chrome trace events */

/* Streaming writer of a Chrome Trace Event Format document (loads in
 * Perfetto UI, chrome://tracing and trace_processor):
 *
 *   {"displayTimeUnit":"ns","traceEvents":[
 *   {"name":..,"cat":..,"ph":"X","ts":..,"pid":..,"tid":..,"dur":..,"args":{..}},
 *   ...
 *   ],
 *   "otherData":{...}}
 *
 * one event per line.  Names and values are escaped by the JSON writer.
 * Caller-allocated, no heap; errors are sticky in `status` (misuse is
 * ETK_E_INVALID_STATE, sink failures ETK_E_IO / ETK_E_NO_MEMORY).
 *
 *   etk_trace_writer_t w;
 *   etk_trace_writer_init(&w, &sink, "ns");
 *   etk_trace_metadata(&w, "thread_name", 1, 2, "main", 4);
 *   etk_json_t *j = etk_trace_event_begin(&w, "X", "add", 3, "op", 1, 2, 10.5);
 *   etk_json_key(j, "dur");
 *   etk_json_double(j, 2.0);
 *   etk_trace_event_end(&w);
 *   int rc = etk_trace_writer_finish(&w);   // then flush the sink
 */
typedef struct etk_trace_writer {
  etk_render_sink_t *sink;
  etk_json_t json; /* the open event (or otherData) */
  uint64_t events; /* events written so far */
  int state;       /* private */
  int status;      /* sticky first error, ETK_OK */
} etk_trace_writer_t;

/* Starts the document; `display_time_unit` ("ms" or "ns", NULL = omit)
 * is only a viewer hint: "ts" and "dur" are always microseconds. */
void etk_trace_writer_init(etk_trace_writer_t *w, etk_render_sink_t *sink,
                           const char *display_time_unit);

/* Opens one event with its common keys: name (`name_len` bytes, NULL =
 * ""), cat (omitted when NULL), ph, ts (microseconds; omitted when NaN or
 * infinite, as metadata events have none), pid, tid.  Returns the JSON
 * writer positioned inside the event object, so the caller adds "dur",
 * "args", "s", "id", "bp" ... with etk_json_key() and values, then calls
 * etk_trace_event_end().  NULL after an error (nothing to add then). */
etk_json_t *etk_trace_event_begin(etk_trace_writer_t *w, const char *ph,
                                  const char *name, size_t name_len,
                                  const char *cat, uint32_t pid, uint32_t tid,
                                  double ts);
/* An event written whole by the caller, for exporters of millions of
 * events: etk_trace_event_room() writes the separator before the event
 * and returns room for `n` bytes (n <= ETK_RENDER_SINK_BUFFER - 2) in the
 * sink's buffer, or NULL after an error; the caller writes one complete
 * event object there (what etk_trace_event_begin() ... _end() would write,
 * numbers through etk_json_format_double(&w->json, ...)) and passes its
 * length to etk_trace_event_commit(). */
char *etk_trace_event_room(etk_trace_writer_t *w, size_t n);
void etk_trace_event_commit(etk_trace_writer_t *w, size_t n);
/* Closes the open event; returns the sticky status. */
int etk_trace_event_end(etk_trace_writer_t *w);

/* A metadata event {"ph":"M","name":what,"args":{"name":value}}:
 * `what` is "process_name" or "thread_name". */
void etk_trace_metadata(etk_trace_writer_t *w, const char *what, uint32_t pid,
                        uint32_t tid, const char *value, size_t len);
/* {"ph":"M","name":what,"args":{"sort_index":index}}: `what` is
 * "process_sort_index" or "thread_sort_index". */
void etk_trace_sort_index(etk_trace_writer_t *w, const char *what, uint32_t pid,
                          uint32_t tid, int64_t index);

/* Closes traceEvents and starts "otherData": the caller writes exactly one
 * value (normally an object) with the returned writer, then calls
 * etk_trace_writer_finish().  NULL after an error or out of order. */
etk_json_t *etk_trace_other_data_begin(etk_trace_writer_t *w);

/* Ends the document (newline-terminated); returns the sticky status.  The
 * sink is not flushed. */
int etk_trace_writer_finish(etk_trace_writer_t *w);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_RENDER_H */
