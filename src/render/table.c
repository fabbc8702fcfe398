/*
 * table.c - the "fancy_grid" text table, as Python tabulate 0.8.9 prints a
 * pandas DataFrame (upstream Inspector.print_data_tabular).
 *
 * PURPOSE
 *   Reproduce tabulate(df, headers="keys", tablefmt="fancy_grid") exactly
 *   for the cells the Inspector produces, from a streamed etk_frame_t.
 *
 * ALGORITHM (three passes over the cells, nothing materialised)
 *   1. Column types.  tabulate ranks every cell None < bool < int < float <
 *      text and takes the maximum per column (starting from bool).  Strings
 *      are ranked by Python's own parsing: "True"/"False" is a bool, "12" an
 *      int, "1e3" or "nan" a float (see pytext.c).
 *   2. Widths.  Each cell is formatted for its column type: in a float
 *      column format(float(v), "g"); elsewhere str(v) (so a float in a text
 *      column prints its repr).  int and float columns are "decimal"
 *      aligned: every string is right-padded so the characters after the
 *      decimal point (or after the 'e' of an exponent) line up, then the
 *      column is right-aligned.  Other columns are stripped of whitespace
 *      and left-aligned.  A column is at least as wide as its header + 2.
 *   3. Output.  Box lines ╒═╤═╕ / ╞═╪═╡ / ├─┼─┤ / ╘═╧═╛, │ separators, one
 *      space of padding each side, a row line between data rows.
 *
 * DEVIATION
 *   Text cells and headers are passed through etk_pytext_escape_controls()
 *   before anything else, so control characters (which tabulate would print
 *   raw, switching to its multi-line mode for \n) appear as \n, \x1b, ...
 *   Widths count code points, as tabulate does without the optional wcwidth.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"
#include "pytext.h"

enum { RANK_NONE = 0, RANK_BOOL, RANK_INT, RANK_FLOAT, RANK_BYTES, RANK_TEXT };

typedef struct column {
  int rank;
  int decimal;      /* int/float column: decimal alignment */
  long max_wd;      /* decimal: max(width - afterpoint); left: max width */
  int max_after;    /* decimal: max afterpoint */
  size_t width;     /* final content width */
} column_t;

typedef struct table_ctx {
  const etk_frame_t *f;
  etk_strbuf_t scratch; /* for the frame callback */
  etk_strbuf_t esc;     /* escaped text */
  etk_cell_t cell;
  char num[ETK_FORMAT_DOUBLE_MAX + 8];
} table_ctx_t;

/* Fetches cell (row, col) of the displayed table (column 0 is the index
 * when shown); escapes text.  On return c->text points at stable text. */
static int fetch(table_ctx_t *t, size_t row, size_t col) {
  etk_cell_t *c = &t->cell;
  if (t->f->show_index) {
    if (col == 0) {
      etk_cell_set_int(c, (int64_t)row);
      return ETK_OK;
    }
    col--;
  }
  etk_strbuf_clear(&t->scratch);
  memset(c, 0, sizeof *c);
  int rc = t->f->cell(t->f->ctx, row, col, c, &t->scratch);
  if (rc != ETK_OK) return rc;
  if (t->scratch.failed) return ETK_E_NO_MEMORY;
  if ((c->kind == ETK_CELL_TEXT || c->kind == ETK_CELL_OBJECT) &&
      etk_pytext_needs_escape(c->text, c->len)) {
    etk_strbuf_clear(&t->esc);
    etk_pytext_escape_controls(&t->esc, c->text, c->len);
    if (t->esc.failed) return ETK_E_NO_MEMORY;
    c->text = t->esc.data;
    c->len = t->esc.len;
  }
  if ((c->kind == ETK_CELL_TEXT || c->kind == ETK_CELL_OBJECT) && !c->text) {
    c->text = "";
    c->len = 0;
  }
  return ETK_OK;
}

static int cell_rank(const etk_cell_t *c) {
  switch (c->kind) {
    case ETK_CELL_NONE: return RANK_NONE;
    case ETK_CELL_BOOL: return RANK_BOOL;
    case ETK_CELL_INT: return RANK_INT;
    case ETK_CELL_FLOAT:
    case ETK_CELL_NAN: return RANK_FLOAT;
    case ETK_CELL_TEXT:
      if ((c->len == 4 && memcmp(c->text, "True", 4) == 0) ||
          (c->len == 5 && memcmp(c->text, "False", 5) == 0))
        return RANK_BOOL;
      if (etk_pytext_is_int(c->text, c->len)) return RANK_INT;
      if (etk_pytext_is_number(c->text, c->len, NULL)) return RANK_FLOAT;
      return RANK_TEXT;
    default: return RANK_TEXT;
  }
}

/* tabulate's _format(): the text of a cell in a column of rank `rank`. */
static void format_cell(table_ctx_t *t, int rank, const char **s, size_t *n) {
  const etk_cell_t *c = &t->cell;
  if (c->kind == ETK_CELL_NONE) {
    *s = "";
    *n = 0;
    return;
  }
  if (rank == RANK_FLOAT) {
    double v = 0;
    switch (c->kind) {
      case ETK_CELL_NAN:
      case ETK_CELL_FLOAT: v = c->f; break;
      case ETK_CELL_INT:
      case ETK_CELL_BOOL: v = (double)c->i; break;
      default: etk_pytext_parse_float(c->text, c->len, &v); break;
    }
    *n = etk_format_double_g(v, t->num);
    *s = t->num;
    return;
  }
  switch (c->kind) {
    case ETK_CELL_NAN: *s = "nan"; *n = 3; return;
    case ETK_CELL_FLOAT: *n = etk_format_double_repr(c->f, t->num); *s = t->num; return;
    case ETK_CELL_INT: *n = etk_format_int(c->i, t->num); *s = t->num; return;
    case ETK_CELL_BOOL:
      *s = c->i ? "True" : "False";
      *n = c->i ? 4 : 5;
      return;
    default: *s = c->text; *n = c->len; return;
  }
}

/* tabulate's _afterpoint(), in code points. */
static int afterpoint(const char *s, size_t n) {
  if (!etk_pytext_is_number(s, n, NULL)) return -1;
  if (etk_pytext_is_int(s, n)) return -1;
  const char *dot = NULL;
  for (size_t i = n; i-- > 0;)
    if (s[i] == '.') {
      dot = s + i;
      break;
    }
  if (!dot)
    for (size_t i = n; i-- > 0;)
      if (s[i] == 'e' || s[i] == 'E') {
        dot = s + i;
        break;
      }
  if (!dot) return -1;
  return (int)etk_pytext_width(dot + 1, (size_t)(s + n - dot - 1));
}

static void put_spaces(etk_render_sink_t *sink, size_t n) {
  static const char sp[] = "                                ";
  while (n > 0) {
    size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
    etk_render_put(sink, sp, k);
    n -= k;
  }
}

static void put_line(etk_render_sink_t *sink, const column_t *cols, size_t ncols,
                     const char *begin, const char *fill, const char *sep,
                     const char *end) {
  etk_render_puts(sink, begin);
  size_t fl = strlen(fill);
  for (size_t c = 0; c < ncols; c++) {
    if (c) etk_render_puts(sink, sep);
    for (size_t k = 0; k < cols[c].width + 2; k++) etk_render_put(sink, fill, fl);
  }
  etk_render_puts(sink, end);
  etk_render_putc(sink, '\n');
}

#define BOX_V "\xe2\x94\x82"

static const char *header_text(table_ctx_t *t, size_t col, size_t *len) {
  if (t->f->show_index && t->f->rows > 0) {
    if (col == 0) {
      *len = 0;
      return "";
    }
    col--;
  }
  const char *h = t->f->headers && t->f->headers[col] ? t->f->headers[col] : "";
  size_t n = strlen(h);
  if (etk_pytext_needs_escape(h, n)) {
    etk_strbuf_clear(&t->esc);
    etk_pytext_escape_controls(&t->esc, h, n);
    if (!t->esc.failed) {
      *len = t->esc.len;
      return t->esc.data;
    }
  }
  *len = n;
  return h;
}

int etk_render_table(const etk_frame_t *f, etk_render_sink_t *sink,
                     etk_error_t *err) {
  if (!f || !sink || (f->cols > 0 && !f->cell))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_render_table: NULL argument");
  table_ctx_t t;
  memset(&t, 0, sizeof t);
  t.f = f;
  size_t ncols = f->cols + ((f->show_index && f->rows > 0) ? 1 : 0);
  column_t *cols = calloc(ncols ? ncols : 1, sizeof *cols);
  if (!cols)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory rendering a table");
  int rc = ETK_OK;

  /* pass 1: column types */
  for (size_t c = 0; c < ncols; c++) cols[c].rank = RANK_BOOL;
  for (size_t r = 0; r < f->rows && rc == ETK_OK; r++)
    for (size_t c = 0; c < ncols; c++) {
      if ((rc = fetch(&t, r, c)) != ETK_OK) break;
      int k = cell_rank(&t.cell);
      if (k > cols[c].rank) cols[c].rank = k;
    }
  for (size_t c = 0; c < ncols; c++) {
    /* tabulate: no rows means no column types, every column left-aligned */
    cols[c].decimal = f->rows > 0 &&
                      (cols[c].rank == RANK_INT || cols[c].rank == RANK_FLOAT);
    cols[c].max_wd = 0;
    cols[c].max_after = -1;
  }

  /* pass 2: widths */
  for (size_t r = 0; r < f->rows && rc == ETK_OK; r++)
    for (size_t c = 0; c < ncols; c++) {
      if ((rc = fetch(&t, r, c)) != ETK_OK) break;
      const char *s;
      size_t n;
      format_cell(&t, cols[c].rank, &s, &n);
      if (cols[c].decimal) {
        int ap = afterpoint(s, n);
        long wd = (long)etk_pytext_width(s, n) - ap;
        if (wd > cols[c].max_wd) cols[c].max_wd = wd;
        if (ap > cols[c].max_after) cols[c].max_after = ap;
      } else {
        size_t a, m;
        etk_pytext_strip(s, n, &a, &m);
        long w = (long)etk_pytext_width(s + a, m);
        if (w > cols[c].max_wd) cols[c].max_wd = w;
      }
    }
  if (rc != ETK_OK) goto done;
  for (size_t c = 0; c < ncols; c++) {
    size_t hl;
    const char *h = header_text(&t, c, &hl);
    size_t minw = etk_pytext_width(h, hl) + 2;
    long w = cols[c].decimal ? cols[c].max_wd + cols[c].max_after : cols[c].max_wd;
    if (f->rows == 0) w = 0;
    cols[c].width = (w > 0 && (size_t)w > minw) ? (size_t)w : minw;
  }

  /* pass 3: output */
  put_line(sink, cols, ncols, "\xe2\x95\x92", "\xe2\x95\x90", "\xe2\x95\xa4",
           "\xe2\x95\x95");
  etk_render_puts(sink, BOX_V);
  for (size_t c = 0; c < ncols; c++) {
    size_t hl;
    const char *h = header_text(&t, c, &hl);
    size_t w = etk_pytext_width(h, hl);
    etk_render_putc(sink, ' ');
    if (cols[c].decimal) put_spaces(sink, cols[c].width - w);
    etk_render_put(sink, h, hl);
    if (!cols[c].decimal) put_spaces(sink, cols[c].width - w);
    etk_render_putc(sink, ' ');
    etk_render_puts(sink, BOX_V);
  }
  etk_render_putc(sink, '\n');
  put_line(sink, cols, ncols, "\xe2\x95\x9e", "\xe2\x95\x90", "\xe2\x95\xaa",
           "\xe2\x95\xa1");
  for (size_t r = 0; r < f->rows && rc == ETK_OK; r++) {
    if (r > 0)
      put_line(sink, cols, ncols, "\xe2\x94\x9c", "\xe2\x94\x80",
               "\xe2\x94\xbc", "\xe2\x94\xa4");
    etk_render_puts(sink, BOX_V);
    for (size_t c = 0; c < ncols; c++) {
      if ((rc = fetch(&t, r, c)) != ETK_OK) break;
      const char *s;
      size_t n;
      format_cell(&t, cols[c].rank, &s, &n);
      etk_render_putc(sink, ' ');
      if (cols[c].decimal) {
        int ap = afterpoint(s, n);
        size_t tail = (size_t)(cols[c].max_after - ap);
        size_t w = etk_pytext_width(s, n) + tail;
        put_spaces(sink, cols[c].width > w ? cols[c].width - w : 0);
        etk_render_put(sink, s, n);
        put_spaces(sink, tail);
      } else {
        size_t a, m;
        etk_pytext_strip(s, n, &a, &m);
        size_t w = etk_pytext_width(s + a, m);
        etk_render_put(sink, s + a, m);
        put_spaces(sink, cols[c].width > w ? cols[c].width - w : 0);
      }
      etk_render_putc(sink, ' ');
      etk_render_puts(sink, BOX_V);
    }
    etk_render_putc(sink, '\n');
  }
  if (rc != ETK_OK) goto done;
  put_line(sink, cols, ncols, "\xe2\x95\x98", "\xe2\x95\x90", "\xe2\x95\xa7",
           "\xe2\x95\x9b");
  if (sink->status != ETK_OK) rc = sink->status;

done:
  free(cols);
  etk_strbuf_free(&t.scratch);
  etk_strbuf_free(&t.esc);
  if (rc != ETK_OK && err && err->code == ETK_OK)
    etk_error_set(err, rc, ETK_NO_OFFSET, "rendering the table failed: %s",
                  etk_strerror(rc));
  return rc;
}
