/*
 * delimited.c - TSV and CSV exactly as pandas DataFrame.to_csv() writes
 * them (upstream Inspector.save_data_to_tsv uses sep="\t").
 *
 * FORMAT
 *   Header: an empty field for the unnamed index (when shown), then the
 *   column names.  Each row: the integer index, then the cells.  Python's
 *   csv module with QUOTE_MINIMAL: a field is wrapped in double quotes, with
 *   inner quotes doubled, when it contains the separator, '"', '\n' or
 *   '\r'.  Floats are Python repr (shortest round trip), None and NaN are
 *   empty, booleans True/False, other objects their str().  Lines end with
 *   "\n".
 *
 * DEVIATION
 *   Python 3.8-3.11's csv module, as pandas drives it with a "\n" line
 *   terminator, leaves a field containing only '\r' unquoted; we quote it so
 *   that no reader can mistake it for a line break.
 *
 * PERFORMANCE
 *   One pass, one frame callback per cell; this is the hot path of
 *   `etkit inspect --format tsv` on million-event dumps.
 */
#include <string.h>

#include "etkit/render.h"

static void put_field(etk_render_sink_t *sink, const char *s, size_t n,
                      char sep) {
  int quote = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == sep || c == '"' || c == '\n' || c == '\r') {
      quote = 1;
      break;
    }
  }
  if (!quote) {
    etk_render_put(sink, s, n);
    return;
  }
  etk_render_putc(sink, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') {
      etk_render_put(sink, s + run, i + 1 - run);
      etk_render_putc(sink, '"');
      run = i + 1;
    }
  }
  etk_render_put(sink, s + run, n - run);
  etk_render_putc(sink, '"');
}

int etk_render_delimited(const etk_frame_t *f, char sep,
                         etk_render_sink_t *sink, etk_error_t *err) {
  if (!f || !sink || (f->cols > 0 && !f->cell))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_render_delimited: NULL argument");
  etk_strbuf_t scratch;
  etk_strbuf_init(&scratch);
  char num[ETK_FORMAT_DOUBLE_MAX + 8];
  /* rows often repeat a value (six equal statistics of a one-sample event):
   * the last float's text is reused */
  char last[ETK_FORMAT_DOUBLE_MAX + 8];
  size_t last_len = 0;
  uint64_t last_bits = 0;
  int have_last = 0;
  int rc = ETK_OK;

  for (size_t c = 0; c < f->cols; c++) {
    if (c > 0 || f->show_index) etk_render_putc(sink, sep);
    const char *h = f->headers && f->headers[c] ? f->headers[c] : "";
    put_field(sink, h, strlen(h), sep);
  }
  etk_render_putc(sink, '\n');

  for (size_t r = 0; r < f->rows; r++) {
    if (f->show_index) {
      size_t n = etk_format_uint((uint64_t)r, num);
      etk_render_put(sink, num, n);
    }
    for (size_t c = 0; c < f->cols; c++) {
      if (c > 0 || f->show_index) etk_render_putc(sink, sep);
      etk_cell_t cell;
      memset(&cell, 0, sizeof cell);
      etk_strbuf_clear(&scratch);
      rc = f->cell(f->ctx, r, c, &cell, &scratch);
      if (rc == ETK_OK && scratch.failed) rc = ETK_E_NO_MEMORY;
      if (rc != ETK_OK) goto done;
      size_t n;
      switch (cell.kind) {
        case ETK_CELL_NONE:
        case ETK_CELL_NAN: break;
        case ETK_CELL_FLOAT: {
          uint64_t bits;
          memcpy(&bits, &cell.f, sizeof bits);
          if (!have_last || bits != last_bits) {
            last_len = etk_format_double_repr(cell.f, last);
            last_bits = bits;
            have_last = 1;
          }
          etk_render_put(sink, last, last_len);
          break;
        }
        case ETK_CELL_INT:
          n = etk_format_int(cell.i, num);
          etk_render_put(sink, num, n);
          break;
        case ETK_CELL_BOOL:
          etk_render_puts(sink, cell.i ? "True" : "False");
          break;
        default:
          if (cell.text) put_field(sink, cell.text, cell.len, sep);
          break;
      }
    }
    etk_render_putc(sink, '\n');
    if (sink->status != ETK_OK) break;
  }
  if (sink->status != ETK_OK) rc = sink->status;

done:
  etk_strbuf_free(&scratch);
  if (rc != ETK_OK && err && err->code == ETK_OK)
    etk_error_set(err, rc, ETK_NO_OFFSET, "writing the table failed: %s",
                  etk_strerror(rc));
  return rc;
}
