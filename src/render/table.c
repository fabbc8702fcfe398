/*
 * table.c - the "fancy_grid" text table, as Python tabulate 0.8.9 prints a
 * pandas DataFrame (upstream Inspector.print_data_tabular).
 *
 * PURPOSE
 *   Reproduce tabulate(df, headers="keys", tablefmt="fancy_grid") exactly
 *   for the cells the Inspector produces, from a streamed etk_frame_t, at
 *   a cost close to that of the TSV writer: million-row tables are normal.
 *
 * TABULATE'S RULES
 *   Column type: every cell is ranked None < bool < int < float < text and
 *   the column takes the maximum (starting from bool).  Strings are ranked
 *   by Python's own parsing: "True"/"False" is a bool, "12" an int, "1e3"
 *   or "nan" a float (see pytext.c).  Cell text depends on the column type:
 *   in a float column format(float(v), "g"), elsewhere str(v) (so a float
 *   in a text column prints its repr).  int and float columns are
 *   "decimal" aligned: every string is right-padded so that the characters
 *   after the decimal point (or after the 'e' of an exponent) line up, then
 *   the column is right-aligned.  Other columns are stripped of whitespace
 *   and left-aligned.  A column is at least as wide as its header + 2.  Box
 *   lines ╒═╤═╕ / ╞═╪═╡ / ├─┼─┤ / ╘═╧═╛, │ separators, one space of padding
 *   each side, a row line between data rows.
 *
 * ALGORITHM (two passes over the cells, nothing materialised)
 *   1. Measure.  Each cell is fetched once, ranked, and measured for every
 *      type its column may still end with: while the column is at most
 *      float, the width and "afterpoint" of its "g" text; while at most
 *      int, the width of its str() text (whose afterpoint is always -1:
 *      ints, bools, int-like strings and "" are not decimals); and always
 *      the stripped width of its str() text, except that a float's repr is
 *      only measured once the column is known to be text (the rare column
 *      whose floats came before its first string is measured again).
 *   2. Output.  Each cell is fetched and formatted again for the column's
 *      final type, and each row is assembled in one buffer with the
 *      precomputed border lines, then handed to the sink in one put.
 *   Cell texts are classified with an ASCII fast path: printable ASCII needs
 *   no escape and its width is its length.  The "g" text of a float is
 *   looked up in a small direct-mapped cache keyed by its bits before it
 *   is formatted: durations repeat (rounded values, a one-sample event's
 *   equal statistics) and each is needed in both passes.  Padding, cell
 *   texts and box characters are written with fixed-size stores (a short
 *   run costs a store or two, no library call).
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
#include "line_buffer.h"
#include "pytext.h"

enum { RANK_NONE = 0, RANK_BOOL, RANK_INT, RANK_FLOAT, RANK_BYTES, RANK_TEXT };

typedef struct column {
  int rank;        /* tabulate's type so far (starts at bool) */
  long float_wd;   /* as a float column: max of width - afterpoint ("g") */
  int float_after; /* as a float column: max afterpoint */
  size_t int_w;    /* as an int column: max width of str() */
  size_t text_w;   /* as another column: max stripped width of str() */
  int rescan;      /* a float's repr was not measured: text_w incomplete */
  /* final layout */
  int decimal;   /* int/float column: decimal alignment */
  int max_after; /* decimal: afterpoint every string is padded to */
  size_t width;  /* content width */
} column_t;

/* The text of one cell, formatted for some column type. */
typedef struct cell_text {
  const char *s;
  size_t len;
  size_t width; /* code points */
  int after;    /* tabulate's _afterpoint() (decimal columns only) */
} cell_text_t;

/* One remembered "g" text: the double's bits, the text and its
 * _afterpoint(). */
typedef struct g_entry {
  uint64_t bits;
  uint8_t valid, len;
  int8_t after;
  char text[21]; /* a "g" text has at most 13 bytes ("-1.23457e-308") */
} g_entry_t;

/* Entries of the "g" cache: direct-mapped by a hash of the bits (32 KB). */
#define G_CACHE_SIZE 1024u

typedef struct table_ctx {
  const etk_frame_t *f;
  etk_frame_row_fn row;  /* NULL: cells come from f->cell */
  etk_cell_t *row_cells; /* row: the cells of row row_held - 1 */
  size_t row_held;
  etk_strbuf_t scratch; /* for the frame callback */
  etk_strbuf_t esc;     /* escaped text */
  etk_cell_t cell;
  int rank;     /* the fetched cell's rank */
  double value; /* its float value when rank <= RANK_FLOAT */
  int ascii;    /* its text is printable ASCII (TEXT/OBJECT) */
  char num[ETK_FORMAT_DOUBLE_MAX + 8];
  int64_t int_last; /* the last int formatted, its text (int_len 0: none) */
  char int_text[24];
  size_t int_len;
  /* "g" texts of recent values: durations repeat (rounded values, a
   * one-sample event's equal statistics), and each is needed in both
   * passes; an uncached text is formatted into g_miss */
  g_entry_t *g_cache;
  char g_miss[ETK_FORMAT_DOUBLE_MAX + 8];
} table_ctx_t;

/* 1 if s is printable ASCII (0x20..0x7e): no escape needed, width ==
 * length.  Eight bytes at a time: a byte below 0x20 borrows into its top
 * bit (the classic "has less than" test), a byte of 0x7f or more has its
 * top bit set after adding 1 or before. */
static int printable_ascii(const char *s, size_t n) {
  const uint64_t ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    if (((w - 0x20 * ones) & ~w & tops) | ((w | (w + ones)) & tops)) return 0;
  }
  for (; i < n; i++)
    if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7F) return 0;
  return 1;
}

/* ASCII lower case of c. */
static char lower(char c) {
  return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* Rank of a str cell by Python's parsing; *value gets float(s) when the
 * rank is int or float. */
static int text_rank(const char *s, size_t n, double *value) {
  if ((n == 4 && memcmp(s, "True", 4) == 0) ||
      (n == 5 && memcmp(s, "False", 5) == 0))
    return RANK_BOOL;
  if (n == 0) return RANK_TEXT;
  /* what may start a number after Python whitespace: digits, sign, point,
   * inf / nan, or a non-ASCII space; any other first byte means text */
  unsigned char c = (unsigned char)s[0];
  if (c < 0x80 && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' &&
      c != ' ' && !(c >= 0x09 && c <= 0x0D) && !(c >= 0x1C && c <= 0x1F)) {
    /* a letter may only start inf, infinity or nan */
    if (n < 3) return RANK_TEXT;
    char a = lower(s[0]), b = lower(s[1]), d = lower(s[2]);
    if (!(a == 'i' && b == 'n' && d == 'f') &&
        !(a == 'n' && b == 'a' && d == 'n'))
      return RANK_TEXT;
  }
  if (!etk_pytext_is_number(s, n, value)) return RANK_TEXT;
  return etk_pytext_is_int(s, n) ? RANK_INT : RANK_FLOAT;
}

/* Fetches cell (row, col) of the displayed table (column 0 is the index
 * when shown), escapes text, ranks it (a text cell only when `ranked`:
 * its rank and value matter to pass 1 and to decimal columns).  On return
 * t->cell.text points at stable text for TEXT/OBJECT cells. */
static int fetch(table_ctx_t *t, size_t row, size_t col, int ranked) {
  etk_cell_t *c = &t->cell;
  if (t->f->show_index) {
    if (col == 0) {
      etk_cell_set_int(c, (int64_t)row);
      t->rank = RANK_INT;
      t->value = (double)row;
      return ETK_OK;
    }
    col--;
  }
  int rc;
  if (t->row) { /* the row's cells, asked for once per row and pass */
    if (t->row_held != row + 1) {
      if ((rc = t->row(t->f->ctx, row, t->row_cells)) != ETK_OK) return rc;
      t->row_held = row + 1;
    }
    *c = t->row_cells[col];
  } else {
    if (t->scratch.len) etk_strbuf_clear(&t->scratch);
    memset(c, 0, sizeof *c);
    if ((rc = t->f->cell(t->f->ctx, row, col, c, &t->scratch)) != ETK_OK)
      return rc;
  }
  if (t->scratch.failed) return ETK_E_NO_MEMORY;
  switch (c->kind) {
    case ETK_CELL_NONE:
      t->rank = RANK_NONE;
      return ETK_OK;
    case ETK_CELL_BOOL:
      t->rank = RANK_BOOL;
      t->value = (double)c->i;
      return ETK_OK;
    case ETK_CELL_INT:
      t->rank = RANK_INT;
      t->value = (double)c->i;
      return ETK_OK;
    case ETK_CELL_FLOAT:
    case ETK_CELL_NAN:
      t->rank = RANK_FLOAT;
      t->value = c->f;
      return ETK_OK;
    default:
      break;
  }
  if (!c->text) {
    c->text = "";
    c->len = 0;
  }
  t->ascii = printable_ascii(c->text, c->len);
  if (!t->ascii && etk_pytext_needs_escape(c->text, c->len)) {
    etk_strbuf_clear(&t->esc);
    etk_pytext_escape_controls(&t->esc, c->text, c->len);
    if (t->esc.failed) return ETK_E_NO_MEMORY;
    c->text = t->esc.data;
    c->len = t->esc.len;
  }
  t->rank = c->kind == ETK_CELL_TEXT && ranked
                ? text_rank(c->text, c->len, &t->value)
                : RANK_TEXT;
  return ETK_OK;
}

static size_t text_width(const table_ctx_t *t, const char *s, size_t n) {
  return t->ascii ? n : etk_pytext_width(s, n);
}

/* _afterpoint() of a "g" text: digits after the point, else after the
 * exponent's 'e', else -1 (integers, nan, inf). */
static int g_afterpoint(const char *s, size_t n) {
  int after = -1;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '.') return (int)(n - i - 1);
    if (s[i] == 'e') after = (int)(n - i - 1);
  }
  return after;
}

/* The cell as a float column shows it: format(float(v), "g"). */
static void g_text(table_ctx_t *t, cell_text_t *out) {
  if (t->cell.kind == ETK_CELL_NONE) {
    *out = (cell_text_t){"", 0, 0, -1};
    return;
  }
  double v = t->value;
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  g_entry_t *g = &t->g_cache[(bits * 0x9E3779B97F4A7C15ull) >> 54];
  if (g->valid && g->bits == bits) {
    *out = (cell_text_t){g->text, g->len, g->len, g->after};
    return;
  }
  size_t n = etk_format_double_g(v, t->g_miss);
  int after = g_afterpoint(t->g_miss, n);
  if (n >= sizeof g->text) { /* cannot happen; kept uncached if it did */
    *out = (cell_text_t){t->g_miss, n, n, after};
    return;
  }
  memcpy(g->text, t->g_miss, n);
  g->bits = bits;
  g->valid = 1;
  g->len = (uint8_t)n;
  g->after = (int8_t)after;
  *out = (cell_text_t){g->text, n, n, after};
}

/* The cell as other columns show it: str(v). */
static void str_text(table_ctx_t *t, cell_text_t *out) {
  const etk_cell_t *c = &t->cell;
  switch (c->kind) {
    case ETK_CELL_NONE:
      *out = (cell_text_t){"", 0, 0, -1};
      return;
    case ETK_CELL_NAN:
      *out = (cell_text_t){"nan", 3, 3, -1};
      return;
    case ETK_CELL_FLOAT: {
      size_t n = etk_format_double_repr(c->f, t->num);
      *out = (cell_text_t){t->num, n, n, -1};
      return;
    }
    case ETK_CELL_INT: {
      /* the last int's text is kept: a row often repeats an int (the
       * same instruction id on both sides), and counts are small */
      if (c->i != t->int_last || !t->int_len)
        t->int_len = etk_format_int(t->int_last = c->i, t->int_text);
      *out = (cell_text_t){t->int_text, t->int_len, t->int_len, -1};
      return;
    }
    case ETK_CELL_BOOL:
      *out = c->i ? (cell_text_t){"True", 4, 4, -1}
                  : (cell_text_t){"False", 5, 5, -1};
      return;
    default:
      *out = (cell_text_t){c->text, c->len, text_width(t, c->text, c->len), -1};
      return;
  }
}

/* str(v) stripped of Python whitespace, for left-aligned columns. */
static void stripped_text(table_ctx_t *t, cell_text_t *out) {
  str_text(t, out);
  if (t->cell.kind != ETK_CELL_TEXT && t->cell.kind != ETK_CELL_OBJECT) return;
  const char *s = out->s;
  size_t n = out->len;
  if (t->ascii) { /* after escaping, the only ASCII whitespace is ' ' */
    while (n > 0 && *s == ' ') {
      s++;
      n--;
    }
    while (n > 0 && s[n - 1] == ' ') n--;
    *out = (cell_text_t){s, n, n, -1};
    return;
  }
  size_t a, m;
  etk_pytext_strip(s, n, &a, &m);
  *out = (cell_text_t){s + a, m, etk_pytext_width(s + a, m), -1};
}

/* Pass 1 for one fetched cell. */
static void measure(table_ctx_t *t, column_t *col) {
  int rank = t->rank > col->rank ? t->rank : col->rank;
  col->rank = rank;
  cell_text_t x;
  if (rank <= RANK_FLOAT) {
    g_text(t, &x);
    long wd = (long)x.width - x.after;
    if (wd > col->float_wd) col->float_wd = wd;
    if (x.after > col->float_after) col->float_after = x.after;
  }
  int kind = t->cell.kind;
  if (kind == ETK_CELL_TEXT || kind == ETK_CELL_OBJECT) {
    if (rank <= RANK_INT) {
      str_text(t, &x);
      if (x.width > col->int_w) col->int_w = x.width;
    }
    stripped_text(t, &x);
  } else if (kind == ETK_CELL_FLOAT && rank < RANK_BYTES) {
    col->rescan = 1; /* its repr matters only if the column becomes text */
    return;
  } else {
    str_text(t, &x); /* numbers, bools, None: nothing to strip */
    if (rank <= RANK_INT && x.width > col->int_w) col->int_w = x.width;
  }
  if (x.width > col->text_w) col->text_w = x.width;
}

/* -------------------------------------------------------------- output */

#define BOX_V "\xe2\x94\x82"

/* Bytes of rows collected before they are handed to the sink (more than
 * ETK_RENDER_SINK_BUFFER, so the sink passes them straight through). */
#define OUTPUT_BATCH (4 * ETK_RENDER_SINK_BUFFER)

/* A border line: begin, (width + 2) fills per column joined by sep, end,
 * newline.  Every piece is one 3-byte box character. */
static int border(etk_line_t *out, const column_t *cols, size_t ncols,
                  const char *begin, const char *fill, const char *sep,
                  const char *end) {
  size_t chars = 2;
  for (size_t c = 0; c < ncols; c++) chars += cols[c].width + 2 + (c > 0);
  if (!etk_line_reserve(out, 3 * chars + 1)) return 0;
  etk_line_put(out, begin, 3);
  for (size_t c = 0; c < ncols; c++) {
    if (c) etk_line_put(out, sep, 3);
    for (size_t k = 0; k < cols[c].width + 2; k++) etk_line_put(out, fill, 3);
  }
  etk_line_put(out, end, 3);
  etk_line_put(out, "\n", 1);
  return 1;
}

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

/* Fixed-size stores: a short run of spaces or bytes costs a store or two
 * instead of a library call.  Writers may store up to WRITE_SLACK bytes
 * past what they append: every reservation adds that much. */
#define WRITE_SLACK 32

static const char spaces32[WRITE_SLACK] = "                                ";

/* n spaces at p; returns the end. */
static char *put_spaces(char *p, size_t n) {
  if (n <= WRITE_SLACK)
    memcpy(p, spaces32, WRITE_SLACK);
  else
    memset(p, ' ', n);
  return p + n;
}

/* s[0..n) at p (two overlapping fixed-size copies for n <= 32); returns
 * the end. */
static char *put_bytes(char *p, const char *s, size_t n) {
  if (n >= 16) {
    if (n > 32) {
      memcpy(p, s, n);
    } else {
      memcpy(p, s, 16);
      memcpy(p + n - 16, s + n - 16, 16);
    }
  } else if (n >= 8) {
    memcpy(p, s, 8);
    memcpy(p + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    memcpy(p, s, 4);
    memcpy(p + n - 4, s + n - 4, 4);
  } else if (n > 0) {
    p[0] = s[0];
    p[n / 2] = s[n / 2];
    p[n - 1] = s[n - 1];
  }
  return p + n;
}

/* One formatted cell into the row: " text " padded to the column. */
static int put_cell(etk_line_t *l, const column_t *col, const cell_text_t *x) {
  size_t tail = 0, w = x->width;
  if (col->decimal) {
    tail = (size_t)(col->max_after - x->after);
    w += tail;
  }
  size_t pad = col->width > w ? col->width - w : 0;
  /* " " text " │", room for the newline that may end the row, and the
   * writers' slack */
  if (!etk_line_reserve(l, 1 + x->len + pad + tail + 4 + 1 + WRITE_SLACK))
    return 0;
  char *p = l->p + l->len;
  if (col->decimal) {
    p = put_spaces(p, 1 + pad);
    p = put_bytes(p, x->s, x->len);
    p = put_spaces(p, tail + 1);
  } else {
    *p++ = ' ';
    p = put_bytes(p, x->s, x->len);
    p = put_spaces(p, pad + 1);
  }
  memcpy(p, BOX_V, 3);
  l->len = (size_t)(p + 3 - l->p);
  return 1;
}

int etk_render_table(const etk_frame_t *f, etk_render_sink_t *sink,
                     etk_error_t *err) {
  return etk_render_table_rows(f, NULL, sink, err);
}

int etk_render_table_rows(const etk_frame_t *f, etk_frame_row_fn row,
                          etk_render_sink_t *sink, etk_error_t *err) {
  if (!f || !sink || (f->cols > 0 && !f->cell && !row))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_render_table: NULL argument");
  table_ctx_t t;
  memset(&t, 0, sizeof t);
  t.f = f;
  t.row = row;
  size_t ncols = f->cols + ((f->show_index && f->rows > 0) ? 1 : 0);
  column_t *cols = calloc(ncols ? ncols : 1, sizeof *cols);
  etk_line_t line = {0}, sep = {0};
  t.g_cache = calloc(G_CACHE_SIZE, sizeof *t.g_cache);
  if (row) t.row_cells = calloc(f->cols ? f->cols : 1, sizeof *t.row_cells);
  if (!cols || !t.g_cache || (row && !t.row_cells)) {
    free(cols);
    free(t.g_cache);
    free(t.row_cells);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory rendering a table");
  }
  int rc = ETK_OK;

  /* pass 1: types and widths */
  for (size_t c = 0; c < ncols; c++) {
    cols[c].rank = RANK_BOOL;
    cols[c].float_after = -1;
  }
  for (size_t r = 0; r < f->rows && rc == ETK_OK; r++)
    for (size_t c = 0; c < ncols; c++) {
      if ((rc = fetch(&t, r, c, 1)) != ETK_OK) break;
      measure(&t, &cols[c]);
    }
  for (size_t c = 0; c < ncols && rc == ETK_OK; c++) {
    if (cols[c].rank < RANK_BYTES || !cols[c].rescan) continue;
    /* text column whose first floats were not measured: measure again */
    cols[c].text_w = 0;
    for (size_t r = 0; r < f->rows; r++) {
      if ((rc = fetch(&t, r, c, 1)) != ETK_OK) break;
      cell_text_t x;
      stripped_text(&t, &x);
      if (x.width > cols[c].text_w) cols[c].text_w = x.width;
    }
  }
  if (rc != ETK_OK) goto done;
  for (size_t c = 0; c < ncols; c++) {
    column_t *col = &cols[c];
    /* tabulate: no rows means no column types, every column left-aligned */
    col->decimal =
        f->rows > 0 && (col->rank == RANK_INT || col->rank == RANK_FLOAT);
    long w;
    if (col->rank == RANK_FLOAT) {
      col->max_after = col->float_after;
      w = col->float_wd + col->float_after;
    } else if (col->rank == RANK_INT) {
      col->max_after = -1;
      w = (long)col->int_w;
    } else {
      w = (long)col->text_w;
    }
    if (f->rows == 0) w = 0;
    size_t hl;
    const char *h = header_text(&t, c, &hl);
    size_t minw = etk_pytext_width(h, hl) + 2;
    col->width = (w > 0 && (size_t)w > minw) ? (size_t)w : minw;
  }

  /* pass 2: output */
  if (!border(&line, cols, ncols, "\xe2\x95\x92", "\xe2\x95\x90",
              "\xe2\x95\xa4", "\xe2\x95\x95") ||
      !etk_line_reserve(&line, 3))
    goto oom;
  etk_line_put(&line, BOX_V, 3);
  for (size_t c = 0; c < ncols; c++) {
    size_t hl;
    const char *h = header_text(&t, c, &hl);
    /* headers are padded like the column, never decimal-shifted */
    cell_text_t x = {h, hl, etk_pytext_width(h, hl), cols[c].max_after};
    if (!put_cell(&line, &cols[c], &x)) goto oom;
  }
  if (!etk_line_reserve(&line, 1)) goto oom;
  etk_line_put(&line, "\n", 1);
  if (!border(&line, cols, ncols, "\xe2\x95\x9e", "\xe2\x95\x90",
              "\xe2\x95\xaa", "\xe2\x95\xa1") ||
      !border(&sep, cols, ncols, "\xe2\x94\x9c", "\xe2\x94\x80", "\xe2\x94\xbc",
              "\xe2\x94\xa4"))
    goto oom;
  /* rows are batched: a put of OUTPUT_BATCH bytes or more bypasses the
   * sink's buffer, saving a copy of the whole table */
  for (size_t r = 0; r < f->rows && rc == ETK_OK; r++) {
    if (r > 0) {
      if (!etk_line_reserve(&line, sep.len)) goto oom;
      etk_line_put(&line, sep.p, sep.len);
    }
    if (!etk_line_reserve(&line, 4)) goto oom;
    etk_line_put(&line, BOX_V, 3);
    for (size_t c = 0; c < ncols; c++) {
      if ((rc = fetch(&t, r, c, cols[c].decimal)) != ETK_OK) break;
      cell_text_t x;
      if (!cols[c].decimal)
        stripped_text(&t, &x);
      else if (cols[c].rank == RANK_FLOAT)
        g_text(&t, &x);
      else
        str_text(&t, &x);
      if (!put_cell(&line, &cols[c], &x)) goto oom;
    }
    etk_line_put(&line, "\n", 1); /* put_cell reserves room for it */
    if (etk_line_drain(&line, sink, OUTPUT_BATCH) != ETK_OK) break;
  }
  if (rc != ETK_OK) goto done;
  if (!border(&line, cols, ncols, "\xe2\x95\x98", "\xe2\x95\x90",
              "\xe2\x95\xa7", "\xe2\x95\x9b"))
    goto oom;
  rc = etk_line_drain(&line, sink, 0);
  goto done;

oom:
  rc = ETK_E_NO_MEMORY;
done:
  free(cols);
  free(t.g_cache);
  free(t.row_cells);
  free(line.p);
  free(sep.p);
  etk_strbuf_free(&t.scratch);
  etk_strbuf_free(&t.esc);
  if (rc != ETK_OK && err && err->code == ETK_OK)
    etk_error_set(err, rc, ETK_NO_OFFSET, "rendering the table failed: %s",
                  etk_strerror(rc));
  return rc;
}
