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
 *   One pass, one frame callback per cell; each row is assembled in a line
 *   buffer (numbers formatted straight into it) and put once.  This is the
 *   hot path of `etkit inspect --format tsv` on million-event dumps.
 */
#include <string.h>

#include "etkit/render.h"
#include "line_buffer.h"

/* Appends one field, quoted when needed (room reserved by the caller for
 * the worst case: 2 * n + 2 bytes). */
static void put_field(etk_line_t *l, const char *s, size_t n, char sep) {
  size_t i = 0;
  for (; i < n; i++) {
    char c = s[i];
    if (c == sep || c == '"' || c == '\n') break;
  }
  if (i == n) {
    etk_line_put(l, s, n);
    return;
  }
  etk_line_putc(l, '"');
  size_t run = 0;
  for (i = 0; i < n; i++) {
    if (s[i] == '"') {
      etk_line_put(l, s + run, i + 1 - run);
      etk_line_putc(l, '"');
      run = i + 1;
    }
  }
  etk_line_put(l, s + run, n - run);
  etk_line_putc(l, '"');
}

int etk_render_delimited(const etk_frame_t *f, char sep,
                         etk_render_sink_t *sink, etk_error_t *err) {
  if (!f || !sink || (f->cols > 0 && !f->cell))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_render_delimited: NULL argument");
  etk_strbuf_t scratch;
  etk_strbuf_init(&scratch);
  etk_line_t line = {0};
  /* rows often repeat a value (six equal statistics of a one-sample event):
   * the last float's text is reused */
  char last[ETK_FORMAT_DOUBLE_MAX + 8];
  size_t last_len = 0;
  uint64_t last_bits = 0;
  int have_last = 0;
  int rc = ETK_OK;

  for (size_t c = 0; c < f->cols; c++) {
    const char *h = f->headers && f->headers[c] ? f->headers[c] : "";
    size_t n = strlen(h);
    if (!etk_line_reserve(&line, 2 * n + 4)) goto oom;
    if (c > 0 || f->show_index) etk_line_putc(&line, sep);
    put_field(&line, h, n, sep);
  }
  if (!etk_line_reserve(&line, 1)) goto oom;
  etk_line_putc(&line, '\n');

  /* rows are batched: a put of 4 sink buffers or more bypasses the sink's
   * buffer, saving a copy of the whole output */
  for (size_t r = 0; r < f->rows; r++) {
    if (!etk_line_reserve(&line, 24)) goto oom;
    if (f->show_index)
      line.len += etk_format_uint((uint64_t)r, line.p + line.len);
    for (size_t c = 0; c < f->cols; c++) {
      etk_cell_t cell;
      memset(&cell, 0, sizeof cell);
      etk_strbuf_clear(&scratch);
      rc = f->cell(f->ctx, r, c, &cell, &scratch);
      if (rc == ETK_OK && scratch.failed) rc = ETK_E_NO_MEMORY;
      if (rc != ETK_OK) goto done;
      size_t need = cell.kind == ETK_CELL_TEXT || cell.kind == ETK_CELL_OBJECT
                        ? 2 * cell.len + 2
                        : ETK_FORMAT_DOUBLE_MAX;
      /* separator, field, and the newline ending the row */
      if (!etk_line_reserve(&line, 1 + need + 1)) goto oom;
      if (c > 0 || f->show_index) etk_line_putc(&line, sep);
      switch (cell.kind) {
        case ETK_CELL_NONE:
        case ETK_CELL_NAN:
          break;
        case ETK_CELL_FLOAT: {
          uint64_t bits;
          memcpy(&bits, &cell.f, sizeof bits);
          if (!have_last || bits != last_bits) {
            last_len = etk_format_double_repr(cell.f, last);
            last_bits = bits;
            have_last = 1;
          }
          etk_line_put(&line, last, last_len);
          break;
        }
        case ETK_CELL_INT:
          line.len += etk_format_int(cell.i, line.p + line.len);
          break;
        case ETK_CELL_BOOL:
          if (cell.i)
            etk_line_put(&line, "True", 4);
          else
            etk_line_put(&line, "False", 5);
          break;
        default:
          if (cell.text) put_field(&line, cell.text, cell.len, sep);
          break;
      }
    }
    if (!etk_line_reserve(&line, 1)) goto oom;
    etk_line_putc(&line, '\n');
    if (etk_line_drain(&line, sink, 4 * ETK_RENDER_SINK_BUFFER) != ETK_OK)
      break;
  }
  rc = etk_line_drain(&line, sink, 0);
  goto done;

oom:
  rc = ETK_E_NO_MEMORY;
done:
  etk_strbuf_free(&scratch);
  free(line.p);
  if (rc != ETK_OK && err && err->code == ETK_OK)
    etk_error_set(err, rc, ETK_NO_OFFSET, "writing the table failed: %s",
                  etk_strerror(rc));
  return rc;
}
