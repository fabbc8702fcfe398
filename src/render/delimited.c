/*
 * delimited.c - TSV and CSV exactly as pandas DataFrame.to_csv() writes
 * them (upstream Inspector.save_data_to_tsv uses sep="\t").
 *
 * FORMAT
 *   Header: an empty field for the unnamed index (when shown), then the
 *   column names.  Each row: the integer index, then the cells.  Python's
 *   csv module with QUOTE_MINIMAL and pandas' "\n" line terminator: a field
 *   is wrapped in double quotes, with inner quotes doubled, when it contains
 *   the separator, '"' or '\n'.  A bare '\r' is written as is, unquoted,
 *   exactly as pandas does on Python 3.8-3.12 (Python 3.13's csv module
 *   started quoting it; see docs/compatibility.md).  Floats are Python repr
 *   (shortest round trip), None and NaN are empty, booleans True/False,
 *   other objects their str().  Lines end with "\n".
 *
 * PERFORMANCE
 *   One pass, one frame callback per row when the frame has a row callback
 *   (else one per cell); each row is assembled in a line buffer (numbers
 *   formatted straight into it) and put once, and fields are scanned for
 *   the bytes that need quotes eight at a time.  This is the hot path of
 *   `etkit inspect --format tsv` on million-event dumps.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"
#include "line_buffer.h"

/* Whether the 8 bytes of w hold `sep`, '"' or '\n' (the bytes that force
 * quotes): a byte of w ^ (c * 0x01..01) is zero where w holds c, and
 * (x - 0x01..01) & ~x & 0x80..80 is non-zero exactly when some byte of x
 * is zero. */
static inline int word_needs_quotes(uint64_t w, uint64_t ms) {
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  const uint64_t mq = ones * (uint8_t)'"', mn = ones * (uint8_t)'\n';
  uint64_t a = w ^ ms, b = w ^ mq, c = w ^ mn;
  return ((((a - ones) & ~a) | ((b - ones) & ~b) | ((c - ones) & ~c)) &
          highs) != 0;
}

static inline uint32_t load32(const char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* Appends one field, quoted when needed (room reserved by the caller for
 * the worst case: 2 * n + 2 bytes).  A plain field is copied while it is
 * scanned, eight bytes at a time (the last eight, or the first and last
 * four, overlapping when n is not a multiple of 8); a field that turns out
 * to need quotes is written again from the start. */
static void put_field(etk_line_t *l, const char *s, size_t n, char sep) {
  char *out = l->p + l->len;
  const uint64_t ms = 0x0101010101010101ull * (uint8_t)sep;
  uint64_t w;
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 < n; i += 8) {
      memcpy(&w, s + i, 8);
      if (word_needs_quotes(w, ms)) goto quoted;
      memcpy(out + i, &w, 8);
    }
    memcpy(&w, s + n - 8, 8);
    if (word_needs_quotes(w, ms)) goto quoted;
    memcpy(out + n - 8, &w, 8);
  } else if (n >= 4) {
    uint32_t head = load32(s), tail = load32(s + n - 4);
    if (word_needs_quotes((uint64_t)head | (uint64_t)tail << 32, ms))
      goto quoted;
    memcpy(out, &head, 4);
    memcpy(out + n - 4, &tail, 4);
  } else {
    for (size_t i = 0; i < n; i++) {
      char c = s[i];
      if (c == sep || c == '"' || c == '\n') goto quoted;
      out[i] = c;
    }
  }
  l->len += n;
  return;
quoted:
  etk_line_putc(l, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') {
      etk_line_put(l, s + run, i + 1 - run);
      etk_line_putc(l, '"');
      run = i + 1;
    }
  }
  etk_line_put(l, s + run, n - run);
  etk_line_putc(l, '"');
}

/* A float's repr, through the memo of recent texts (etk_repr_memo_t):
 * rows often repeat a value. */
static void put_float(etk_line_t *line, double f, etk_repr_memo_t *memo) {
  size_t n;
  const char *text = etk_repr_memo_text(memo, f, &n);
  /* a fixed-size copy (no call): the cell's room holds
   * ETK_FORMAT_DOUBLE_MAX bytes, and only n of them are kept */
  memcpy(line->p + line->len, text, ETK_FORMAT_DOUBLE_MAX);
  line->len += n;
}

/* A row index as decimal text (at most 20 digits). */
typedef struct decimal {
  char text[24];
  size_t len;
} decimal_t;

static void decimal_increment(decimal_t *d) {
  size_t i = d->len;
  while (i > 0 && d->text[i - 1] == '9') d->text[--i] = '0';
  if (i > 0) {
    d->text[i - 1]++;
    return;
  }
  memmove(d->text + 1, d->text, d->len); /* 99..9 became 00..0 */
  d->text[0] = '1';
  d->len++;
}

/* Room one cell may take: the separator and the field. */
static inline size_t cell_room(const etk_cell_t *cell) {
  return 1 + (cell->kind == ETK_CELL_TEXT || cell->kind == ETK_CELL_OBJECT
                  ? 2 * cell->len + 2
                  : ETK_FORMAT_DOUBLE_MAX);
}

/* Appends the separator (unless first) and one cell, within room the
 * caller reserved (cell_room). */
static inline void put_cell(etk_line_t *line, const etk_cell_t *cell, int first,
                            char sep, etk_repr_memo_t *memo) {
  if (!first) etk_line_putc(line, sep);
  switch (cell->kind) {
    case ETK_CELL_NONE:
    case ETK_CELL_NAN:
      break;
    case ETK_CELL_FLOAT:
      put_float(line, cell->f, memo);
      break;
    case ETK_CELL_INT:
      line->len += etk_format_int(cell->i, line->p + line->len);
      break;
    case ETK_CELL_BOOL:
      if (cell->i)
        etk_line_put(line, "True", 4);
      else
        etk_line_put(line, "False", 5);
      break;
    default:
      if (cell->text) put_field(line, cell->text, cell->len, sep);
      break;
  }
}

/* The cells of row r from the frame's cell callback, one at a time. */
static int put_row_cells(const etk_frame_t *f, size_t r, char sep,
                         etk_strbuf_t *scratch, etk_line_t *line,
                         etk_repr_memo_t *memo) {
  for (size_t c = 0; c < f->cols; c++) {
    etk_cell_t cell;
    memset(&cell, 0, sizeof cell);
    etk_strbuf_clear(scratch);
    int rc = f->cell(f->ctx, r, c, &cell, scratch);
    if (rc == ETK_OK && scratch->failed) rc = ETK_E_NO_MEMORY;
    if (rc != ETK_OK) return rc;
    if (!etk_line_reserve(line, cell_room(&cell) + 1)) return ETK_E_NO_MEMORY;
    put_cell(line, &cell, c == 0 && !f->show_index, sep, memo);
  }
  return ETK_OK;
}

int etk_render_delimited(const etk_frame_t *f, char sep,
                         etk_render_sink_t *sink, etk_error_t *err) {
  return etk_render_delimited_rows(f, NULL, sep, sink, err);
}

/* An open delimited output (etk_delimited_open): the line being batched,
 * the float memo and the next index. */
struct etk_delimited_writer {
  const etk_frame_t *f;
  char sep;
  etk_render_sink_t *sink;
  etk_line_t line;
  etk_repr_memo_t memo;
  decimal_t index;
};

etk_delimited_writer_t *etk_delimited_open(const etk_frame_t *f, char sep,
                                           etk_render_sink_t *sink) {
  if (!f || !sink) return NULL;
  etk_delimited_writer_t *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->f = f;
  w->sep = sep;
  w->sink = sink;
  w->index.text[0] = '0';
  w->index.len = 1;
  for (size_t c = 0; c < f->cols; c++) {
    const char *h = f->headers && f->headers[c] ? f->headers[c] : "";
    size_t n = strlen(h);
    if (!etk_line_reserve(&w->line, 2 * n + 4)) goto oom;
    if (c > 0 || f->show_index) etk_line_putc(&w->line, sep);
    put_field(&w->line, h, n, sep);
  }
  if (!etk_line_reserve(&w->line, 1)) goto oom;
  etk_line_putc(&w->line, '\n');
  return w;
oom:
  free(w->line.p);
  free(w);
  return NULL;
}

/* The row's index (when shown), as counted up rather than formatted. */
static int put_index(etk_delimited_writer_t *w) {
  if (!etk_line_reserve(&w->line, sizeof w->index)) return ETK_E_NO_MEMORY;
  if (w->f->show_index) {
    memcpy(w->line.p + w->line.len, w->index.text, sizeof w->index.text);
    w->line.len += w->index.len;
    decimal_increment(&w->index);
  }
  return ETK_OK;
}

/* The row's end; rows are batched: a put of 4 sink buffers or more
 * bypasses the sink's buffer, saving a copy of the whole output. */
static int end_row(etk_delimited_writer_t *w) {
  if (!etk_line_reserve(&w->line, 1)) return ETK_E_NO_MEMORY;
  etk_line_putc(&w->line, '\n');
  return etk_line_drain(&w->line, w->sink, 4 * ETK_RENDER_SINK_BUFFER);
}

int etk_delimited_put_row(etk_delimited_writer_t *w, const etk_cell_t *cells) {
  if (!w || (!cells && w->f->cols)) return ETK_E_INVALID_ARGUMENT;
  int rc = put_index(w);
  if (rc != ETK_OK) return rc;
  size_t need = 1;
  for (size_t c = 0; c < w->f->cols; c++) need += cell_room(&cells[c]);
  if (!etk_line_reserve(&w->line, need)) return ETK_E_NO_MEMORY;
  for (size_t c = 0; c < w->f->cols; c++)
    put_cell(&w->line, &cells[c], c == 0 && !w->f->show_index, w->sep,
             &w->memo);
  return end_row(w);
}

int etk_delimited_close(etk_delimited_writer_t *w, int ok) {
  if (!w) return ETK_E_INVALID_ARGUMENT;
  int rc = ok ? etk_line_drain(&w->line, w->sink, 0) : ETK_OK;
  free(w->line.p);
  free(w);
  return rc;
}

int etk_render_delimited_rows(const etk_frame_t *f, etk_frame_row_fn row,
                              char sep, etk_render_sink_t *sink,
                              etk_error_t *err) {
  if (!f || !sink || (f->cols > 0 && !f->cell && !row))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_render_delimited: NULL argument");
  etk_strbuf_t scratch;
  etk_strbuf_init(&scratch);
  etk_cell_t *cells = NULL;
  int rc = ETK_OK;
  etk_delimited_writer_t *w = etk_delimited_open(f, sep, sink);
  if (!w || (row && !(cells = malloc((f->cols ? f->cols : 1) * sizeof *cells))))
    rc = ETK_E_NO_MEMORY;
  for (size_t r = 0; r < f->rows && rc == ETK_OK; r++) {
    if (row) {
      if ((rc = row(f->ctx, r, cells)) == ETK_OK)
        rc = etk_delimited_put_row(w, cells);
      continue;
    }
    if ((rc = put_index(w)) == ETK_OK)
      rc = put_row_cells(f, r, sep, &scratch, &w->line, &w->memo);
    if (rc == ETK_OK) rc = end_row(w);
  }
  if (w) {
    int crc = etk_delimited_close(w, rc == ETK_OK);
    if (rc == ETK_OK) rc = crc;
  }
  etk_strbuf_free(&scratch);
  free(cells);
  if (rc != ETK_OK && err && err->code == ETK_OK)
    etk_error_set(err, rc, ETK_NO_OFFSET, "writing the table failed: %s",
                  etk_strerror(rc));
  return rc;
}
