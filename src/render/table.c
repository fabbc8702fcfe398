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
 *      Measuring formats nothing it can count: an int's width is its digit
 *      count, and below 10^6 its "g" text is its str() text.  A string in
 *      a column already known to be text is not parsed as a number.
 *   2. Output.  Each cell is fetched and formatted again for the column's
 *      final mode (left-aligned str(), decimal-aligned int or "g").  Every
 *      data row starts as a copy of a template: the row line and a blank
 *      row (│, each column's spaces, │, ...), whose byte offsets are known
 *      because every character of it and of a printable ASCII text takes
 *      one column and one byte.  A cell is then a single copy of its text
 *      to its place.  A row with a cell whose bytes differ from its width
 *      (non-ASCII text) is assembled piece by piece from that cell on.
 *      Rows are collected in one buffer and handed to the sink in batches.
 *   Cell texts are classified with an ASCII fast path: printable ASCII needs
 *   no escape and its width is its length.  The "g" text of a float is
 *   looked up in a small direct-mapped cache keyed by its bits before it
 *   is formatted: durations repeat (rounded values, a one-sample event's
 *   equal statistics) and each is needed in both passes.  Short texts and
 *   padding are written with fixed-size stores (a short run costs a store
 *   or two, no library call).
 *
 * DEVIATION
 *   Text cells and headers are passed through etk_pytext_escape_controls()
 *   before anything else, so control characters (which tabulate would print
 *   raw, switching to its multi-line mode for \n) appear as \n, \x1b, ...
 *   Widths count code points, as tabulate does without the optional wcwidth.
 *   The strings "True"/"False" in a float column (where tabulate raises
 *   ValueError) print as the "g" text of 1 and 0.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"
#include "line_buffer.h"
#include "pytext.h"

enum { RANK_NONE = 0, RANK_BOOL, RANK_INT, RANK_FLOAT, RANK_BYTES, RANK_TEXT };

/* How a column prints its cells (fixed after pass 1). */
enum { MODE_LEFT = 0, MODE_INT, MODE_FLOAT };

typedef struct column {
  int rank;        /* tabulate's type so far (starts at bool) */
  long float_wd;   /* as a float column: max of width - afterpoint ("g") */
  int float_after; /* as a float column: max afterpoint */
  size_t int_w;    /* as an int column: max width of str() */
  size_t text_w;   /* as another column: max stripped width of str() */
  int rescan;      /* a float's repr was not measured: text_w incomplete */
  int plain;       /* every text cell so far is printable ASCII without
                      leading or trailing spaces: pass 2 copies it as is */
  /* final layout */
  int mode;      /* MODE_*: MODE_INT and MODE_FLOAT are decimal-aligned */
  int max_after; /* decimal: afterpoint every string is padded to */
  size_t width;  /* content width */
  size_t start;  /* byte offset in a data row of the cell's leading space */
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
  char text[ETK_FORMAT_DOUBLE_MAX];
} g_entry_t;

/* Entries of the "g" cache, direct-mapped by a hash of the bits: 4096
 * (192 KB) for a long table, whose few hundred distinct durations then
 * rarely share an entry (at 1024 two hot values did, on a real dump), 256
 * for a short one. */
#define G_CACHE_BITS_LONG 12
#define G_CACHE_BITS_SHORT 8

typedef struct table_ctx {
  const etk_frame_t *f;
  etk_frame_row_fn row; /* NULL: cells come from f->cell */
  size_t first;         /* 1 when column 0 is the index, else 0 */
  size_t ready;         /* cells[0..ready) need no fetching: the index, or
                           the whole row in row mode */
  etk_cell_t *cells;    /* the displayed row's cells: the index, then the
                           frame's (row: the whole row; f->cell: the last
                           cell fetched in its place) */
  etk_strbuf_t scratch; /* for the frame callback */
  etk_strbuf_t esc;     /* escaped text */
  char num[ETK_FORMAT_DOUBLE_MAX + 8];
  int64_t int_last; /* the last int formatted, its text (int_len 0: none) */
  char int_text[24];
  size_t int_len;
  /* "g" texts of recent values: durations repeat (rounded values, a
   * one-sample event's equal statistics), and each is needed in both
   * passes */
  g_entry_t *g_cache;
  int g_shift;             /* 64 - log2 of its size */
  const g_entry_t *g_last; /* the entry of the last "g" text asked for: a
                              one-sample row's six statistics are equal */
} table_ctx_t;

/* Top bits of the bytes of w that are outside printable ASCII (0x20..0x7e),
 * or of none: a byte of 0x80 or more has its own top bit, one below 0x20
 * gets it by subtracting 0x20, 0x7f by adding 1.  A borrow or carry from
 * the byte below only comes from a byte that is flagged itself, so the
 * result is exactly 0 for a printable word. */
static inline uint64_t word_unprintable(uint64_t w) {
  const uint64_t ones = 0x0101010101010101ull;
  return (w | (w - 0x20 * ones) | (w + ones)) & 0x8080808080808080ull;
}

/* 1 if s is printable ASCII: no escape needed, width == length.  Eight
 * bytes at a time, the last word overlapping the one before; a shorter
 * text is gathered into one word padded with spaces. */
static inline int printable_ascii(const char *s, size_t n) {
  uint64_t w, bad = 0;
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      memcpy(&w, s + i, 8);
      bad |= word_unprintable(w);
    }
    memcpy(&w, s + n - 8, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, s + n - 4, 4);
    w = a | (uint64_t)b << 32;
  } else if (n > 0) {
    w = 0x2020202020000000ull | (uint64_t)(unsigned char)s[0] |
        (uint64_t)(unsigned char)s[n / 2] << 8 |
        (uint64_t)(unsigned char)s[n - 1] << 16;
  } else {
    return 1;
  }
  return !(bad | word_unprintable(w));
}

/* ASCII lower case of c. */
static char lower(char c) {
  return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* Rank of a str cell by Python's parsing; *value gets float(s) when the
 * rank is int or float, 1 or 0 for "True" or "False". */
static int text_rank(const char *s, size_t n, double *value) {
  if (n == 4 && memcmp(s, "True", 4) == 0) {
    *value = 1;
    return RANK_BOOL;
  }
  if (n == 5 && memcmp(s, "False", 5) == 0) {
    *value = 0;
    return RANK_BOOL;
  }
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

/* Cell (row, col) of the displayed table (column 0 is the index when
 * shown; in row mode the row's cells were asked for already). */
static inline int cell_at(table_ctx_t *t, size_t row, size_t col,
                          const etk_cell_t **out) {
  etk_cell_t *c = &t->cells[col];
  *out = c;
  if (col < t->ready) return ETK_OK;
  if (t->scratch.len) etk_strbuf_clear(&t->scratch);
  memset(c, 0, sizeof *c);
  int rc = t->f->cell(t->f->ctx, row, col - t->first, c, &t->scratch);
  if (rc == ETK_OK && t->scratch.failed) rc = ETK_E_NO_MEMORY;
  return rc;
}

/* Starts row `row` of a pass: the index cell, and in row mode the row's
 * cells. */
static inline int row_begin(table_ctx_t *t, size_t row) {
  t->cells[0].i = (int64_t)row; /* the index, or overwritten */
  if (!t->row || t->f->cols == 0) return ETK_OK;
  return t->row(t->f->ctx, row, t->cells + t->first);
}

/* The text of a TEXT/OBJECT cell, escaped when it needs it; *ascii tells
 * whether it is printable ASCII (width == length). */
static inline int cell_string(table_ctx_t *t, const etk_cell_t *c,
                              const char **s, size_t *n, int *ascii) {
  const char *p = c->text ? c->text : "";
  size_t len = c->text ? c->len : 0;
  *ascii = printable_ascii(p, len);
  if (!*ascii && etk_pytext_needs_escape(p, len)) {
    etk_strbuf_clear(&t->esc);
    etk_pytext_escape_controls(&t->esc, p, len);
    if (t->esc.failed) return ETK_E_NO_MEMORY;
    p = t->esc.data;
    len = t->esc.len;
  }
  *s = p;
  *n = len;
  return ETK_OK;
}

/* Characters of str(v) for an int: the sign and the digits.  The digit
 * count is about log10(2) = 1233 / 4096 times the bit length, corrected
 * by one comparison. */
static inline size_t int_width(int64_t v) {
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  unsigned bits = 64u - (unsigned)__builtin_clzll(u | 1);
  unsigned t = (bits * 1233u) >> 12; /* digits of u, or one fewer */
  return (v < 0) + t + ((u | 1) >= etk_pow10[t]);
}

/* str(v) of an int.  The last one's text is kept: a row often repeats an
 * int (the same instruction id on both sides), and an index column asks
 * for the last one plus 1: that text with its last digit below 9 raised
 * and the 9s after it zeroed. */
static inline void int_text(table_ctx_t *t, int64_t v, cell_text_t *out) {
  if (v != t->int_last || !t->int_len) {
    size_t i = t->int_len; /* v - 1 == int_last: int_last >= 0, no sign */
    int next = t->int_len && v > 0 && v - 1 == t->int_last;
    if (next)
      while (i > 0 && t->int_text[i - 1] == '9') i--;
    if (next && i > 0) {
      t->int_text[i - 1]++;
      memset(t->int_text + i, '0', t->int_len - i);
    } else {
      t->int_len = etk_format_int(v, t->int_text);
    }
    t->int_last = v;
  }
  *out = (cell_text_t){t->int_text, t->int_len, t->int_len, -1};
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

/* format(v, "g"), from the last entry, the cache or formatted into it. */
static inline void g_text(table_ctx_t *t, double v, cell_text_t *out) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  const g_entry_t *l = t->g_last;
  if (l->bits == bits && l->valid) {
    *out = (cell_text_t){l->text, l->len, l->len, l->after};
    return;
  }
  g_entry_t *g = &t->g_cache[(bits * 0x9E3779B97F4A7C15ull) >> t->g_shift];
  if (!g->valid || g->bits != bits) {
    size_t n = etk_format_double_g(v, g->text); /* < ETK_FORMAT_DOUBLE_MAX */
    g->bits = bits;
    g->valid = 1;
    g->len = (uint8_t)n;
    g->after = (int8_t)g_afterpoint(g->text, n);
  }
  t->g_last = g;
  *out = (cell_text_t){g->text, g->len, g->len, g->after};
}

/* A non-text cell as a float column shows it: format(float(v), "g"). */
static inline void number_g(table_ctx_t *t, const etk_cell_t *c,
                            cell_text_t *out) {
  switch (c->kind) {
    case ETK_CELL_NONE:
      *out = (cell_text_t){"", 0, 0, -1};
      return;
    case ETK_CELL_INT:
      /* below 10^6 "g" writes an int's digits: its str() */
      if (c->i > -1000000 && c->i < 1000000) {
        int_text(t, c->i, out);
        return;
      }
      g_text(t, (double)c->i, out);
      return;
    case ETK_CELL_BOOL:
      g_text(t, (double)c->i, out);
      return;
    default: /* FLOAT, NAN */
      g_text(t, c->f, out);
      return;
  }
}

/* A non-text cell as other columns show it: str(v). */
static inline void number_str(table_ctx_t *t, const etk_cell_t *c,
                              cell_text_t *out) {
  switch (c->kind) {
    case ETK_CELL_INT:
      int_text(t, c->i, out);
      return;
    case ETK_CELL_FLOAT: {
      size_t n = etk_format_double_repr(c->f, t->num);
      *out = (cell_text_t){t->num, n, n, -1};
      return;
    }
    case ETK_CELL_NAN:
      *out = (cell_text_t){"nan", 3, 3, -1};
      return;
    case ETK_CELL_BOOL:
      *out = c->i ? (cell_text_t){"True", 4, 4, -1}
                  : (cell_text_t){"False", 5, 5, -1};
      return;
    default: /* NONE */
      *out = (cell_text_t){"", 0, 0, -1};
      return;
  }
}

/* s[0..n) stripped of Python whitespace, for left-aligned columns. */
static inline void strip_text(const char *s, size_t n, int ascii,
                              cell_text_t *out) {
  if (ascii) { /* after escaping, the only ASCII whitespace is ' ' */
    if (n > 0 && (s[0] == ' ' || s[n - 1] == ' ')) {
      while (n > 0 && *s == ' ') {
        s++;
        n--;
      }
      while (n > 0 && s[n - 1] == ' ') n--;
    }
    *out = (cell_text_t){s, n, n, -1};
    return;
  }
  size_t a, m;
  etk_pytext_strip(s, n, &a, &m);
  *out = (cell_text_t){s + a, m, etk_pytext_width(s + a, m), -1};
}

/* The cell's text in a column printed in `mode`. */
static inline int output_text(table_ctx_t *t, int mode, const etk_cell_t *c,
                              cell_text_t *out) {
  if (c->kind != ETK_CELL_TEXT && c->kind != ETK_CELL_OBJECT) {
    if (mode == MODE_FLOAT)
      number_g(t, c, out);
    else
      number_str(t, c, out);
    return ETK_OK;
  }
  const char *s;
  size_t n;
  int ascii, rc = cell_string(t, c, &s, &n, &ascii);
  if (rc != ETK_OK) return rc;
  if (mode == MODE_LEFT) {
    strip_text(s, n, ascii, out);
  } else if (mode == MODE_INT) {
    *out = (cell_text_t){s, n, ascii ? n : etk_pytext_width(s, n), -1};
  } else {
    double v = 0;
    text_rank(s, n, &v);
    g_text(t, v, out);
  }
  return ETK_OK;
}

/* Pass 1: a float column's candidate text. */
static inline void measure_g(column_t *col, const cell_text_t *x) {
  long wd = (long)x->width - x->after;
  if (wd > col->float_wd) col->float_wd = wd;
  if (x->after > col->float_after) col->float_after = x->after;
}

/* Pass 1 for a TEXT/OBJECT cell. */
static int measure_text(table_ctx_t *t, column_t *col, const etk_cell_t *c) {
  const char *s;
  size_t n;
  int ascii, rc = cell_string(t, c, &s, &n, &ascii);
  if (rc != ETK_OK) return rc;
  cell_text_t x;
  if (col->rank < RANK_TEXT) { /* else a number would change nothing */
    double v = 0;
    int rank = c->kind == ETK_CELL_TEXT ? text_rank(s, n, &v) : RANK_TEXT;
    if (rank > col->rank) col->rank = rank;
    if (col->rank <= RANK_FLOAT) {
      g_text(t, v, &x);
      measure_g(col, &x);
    }
    if (col->rank <= RANK_INT) {
      size_t w = ascii ? n : etk_pytext_width(s, n);
      if (w > col->int_w) col->int_w = w;
    }
  }
  strip_text(s, n, ascii, &x);
  if (!ascii || x.len != n) col->plain = 0;
  if (x.width > col->text_w) col->text_w = x.width;
  return ETK_OK;
}

/* Pass 1 for one cell. */
static inline int measure(table_ctx_t *t, column_t *col, const etk_cell_t *c) {
  cell_text_t x;
  size_t w;
  switch (c->kind) {
    case ETK_CELL_INT:
      if (col->rank < RANK_INT) col->rank = RANK_INT;
      w = int_width(c->i);
      if (col->rank == RANK_INT) {
        if (w > col->int_w) col->int_w = w;
        if (c->i > -1000000 && c->i < 1000000) { /* its "g" text: str() */
          x = (cell_text_t){NULL, w, w, -1};
          measure_g(col, &x);
        } else {
          g_text(t, (double)c->i, &x);
          measure_g(col, &x);
        }
      } else if (col->rank == RANK_FLOAT) {
        number_g(t, c, &x);
        measure_g(col, &x);
      }
      break;
    case ETK_CELL_FLOAT:
    case ETK_CELL_NAN:
      if (col->rank < RANK_FLOAT) col->rank = RANK_FLOAT;
      if (col->rank == RANK_FLOAT) {
        g_text(t, c->f, &x);
        measure_g(col, &x);
        if (c->kind == ETK_CELL_FLOAT) { /* its repr matters only if the */
          col->rescan = 1;               /* column becomes text */
          return ETK_OK;
        }
      }
      number_str(t, c, &x);
      w = x.width;
      break;
    case ETK_CELL_BOOL:
    case ETK_CELL_NONE:
      if (c->kind == ETK_CELL_BOOL && col->rank < RANK_BOOL)
        col->rank = RANK_BOOL;
      if (col->rank <= RANK_FLOAT) { /* "g" of None, True, False: "", 1, 0 */
        x = (cell_text_t){NULL, c->kind == ETK_CELL_BOOL, 0, -1};
        x.width = x.len;
        measure_g(col, &x);
      }
      w = c->kind == ETK_CELL_NONE ? 0 : c->i ? 4 : 5;
      if (col->rank <= RANK_INT && w > col->int_w) col->int_w = w;
      break;
    default:
      return measure_text(t, col, c);
  }
  if (w > col->text_w) col->text_w = w;
  return ETK_OK;
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

/* A data row with every cell empty ("│", spaces and "│" per column, a
 * newline); sets each column's start. */
static int blank_row(etk_line_t *out, column_t *cols, size_t ncols) {
  size_t bytes = 4;
  for (size_t c = 0; c < ncols; c++) bytes += cols[c].width + 5;
  if (!etk_line_reserve(out, bytes)) return 0;
  size_t row = out->len;
  etk_line_put(out, BOX_V, 3);
  for (size_t c = 0; c < ncols; c++) {
    cols[c].start = out->len - row;
    etk_line_spaces(out, cols[c].width + 2);
    etk_line_put(out, BOX_V, 3);
  }
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

/* s[0..n) at p, nothing stored past it (two overlapping fixed-size copies
 * for n <= 32); returns the end. */
static inline char *put_bytes(char *p, const char *s, size_t n) {
  if (n < 4) { /* short texts first: digits, small numbers */
    if (n > 0) {
      p[0] = s[0];
      p[n / 2] = s[n / 2];
      p[n - 1] = s[n - 1];
    }
  } else if (n < 8) {
    memcpy(p, s, 4);
    memcpy(p + n - 4, s + n - 4, 4);
  } else if (n <= 16) {
    memcpy(p, s, 8);
    memcpy(p + n - 8, s + n - 8, 8);
  } else if (n <= 32) {
    memcpy(p, s, 16);
    memcpy(p + n - 16, s + n - 16, 16);
  } else {
    memcpy(p, s, n);
  }
  return p + n;
}

/* One formatted cell into the row: " text " padded to the column. */
static int put_cell(etk_line_t *l, const column_t *col, const cell_text_t *x) {
  size_t tail = 0, w = x->width;
  if (col->mode != MODE_LEFT && x->after < col->max_after) {
    /* (never above it, unless a callback's cells changed between passes) */
    tail = (size_t)(col->max_after - x->after);
    w += tail;
  }
  size_t pad = col->width > w ? col->width - w : 0;
  /* " " text " │", room for the newline that may end the row, and the
   * writers' slack */
  if (!etk_line_reserve(l, 1 + x->len + pad + tail + 4 + 1 + WRITE_SLACK))
    return 0;
  char *p = l->p + l->len;
  if (col->mode != MODE_LEFT) {
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

/* The rest of a data row from column c (whose text is *x) on, piece by
 * piece: the row in `line` from byte row_at, its template beyond column c
 * discarded. */
static int row_rest(table_ctx_t *t, etk_line_t *line, size_t row_at,
                    const column_t *cols, size_t ncols, size_t r, size_t c,
                    cell_text_t *x) {
  line->len = row_at + cols[c].start;
  for (;;) {
    if (!put_cell(line, &cols[c], x)) return ETK_E_NO_MEMORY;
    if (++c == ncols) break;
    const etk_cell_t *cell;
    int rc = cell_at(t, r, c, &cell);
    if (rc == ETK_OK) rc = output_text(t, cols[c].mode, cell, x);
    if (rc != ETK_OK) return rc;
  }
  etk_line_putc(line, '\n'); /* put_cell reserves room for it */
  return ETK_OK;
}

/* Pass 2: the text of a cell of a common kind (an int, a float in a float
 * column, a bool outside one, printable ASCII in a left-aligned column) in
 * `col`, else that of output_text(). */
static inline int cell_output(table_ctx_t *t, const column_t *col,
                              const etk_cell_t *c, cell_text_t *x) {
  switch (c->kind) {
    case ETK_CELL_FLOAT:
      if (col->mode != MODE_FLOAT) break;
      g_text(t, c->f, x);
      return ETK_OK;
    case ETK_CELL_INT:
      if (col->mode == MODE_FLOAT && (c->i <= -1000000 || c->i >= 1000000))
        break;
      int_text(t, c->i, x);
      return ETK_OK;
    case ETK_CELL_BOOL:
      if (col->mode == MODE_FLOAT) break;
      *x = c->i ? (cell_text_t){"True", 4, 4, -1}
                : (cell_text_t){"False", 5, 5, -1};
      return ETK_OK;
    case ETK_CELL_TEXT:
    case ETK_CELL_OBJECT:
      if (col->mode != MODE_LEFT || !c->text) break;
      if (col->plain) { /* as pass 1 found it */
        *x = (cell_text_t){c->text, c->len, c->len, -1};
        return ETK_OK;
      }
      if (!printable_ascii(c->text, c->len)) break;
      strip_text(c->text, c->len, 1, x);
      return ETK_OK;
    default:
      break;
  }
  return output_text(t, col->mode, c, x);
}

/* Pass 2 for row r: the template (the row line unless r is 0, a blank
 * row) copied into `line`, then each cell's text put in its place. */
static int put_row(table_ctx_t *t, etk_line_t *line, const etk_line_t *tmpl,
                   size_t blank, const column_t *cols, size_t ncols, size_t r) {
  size_t n = r ? tmpl->len : blank;
  if (!etk_line_reserve(line, n + WRITE_SLACK)) return ETK_E_NO_MEMORY;
  memcpy(line->p + line->len, tmpl->p + tmpl->len - n, n);
  char *row = line->p + line->len + n - blank;
  line->len += n;
  int rc = row_begin(t, r);
  const int whole = t->ready == ncols; /* row mode: no cell to fetch */
  for (size_t c = 0; c < ncols && rc == ETK_OK; c++) {
    const column_t *col = &cols[c];
    const etk_cell_t *cell = &t->cells[c];
    cell_text_t x;
    if (!whole && (rc = cell_at(t, r, c, &cell)) != ETK_OK) break;
    if (cell->kind == ETK_CELL_NONE) continue; /* "": the template's spaces */
    if ((rc = cell_output(t, col, cell, &x)) != ETK_OK) break;
    size_t at = col->start + 1, w = x.width;
    if (col->mode != MODE_LEFT) {
      w += (size_t)(col->max_after - x.after);
      at += col->width - w;
    }
    if (x.len != x.width || w > col->width)
      return row_rest(t, line, (size_t)(row - line->p), cols, ncols, r, c, &x);
    put_bytes(row + at, x.s, x.len);
  }
  return rc;
}

/* Pass 1 over every cell, then the rare text column whose floats came
 * before its first string measured again; then each column's layout. */
static int measure_columns(table_ctx_t *t, column_t *cols, size_t ncols) {
  const etk_frame_t *f = t->f;
  int rc = ETK_OK;
  for (size_t c = 0; c < ncols; c++) {
    cols[c].rank = RANK_BOOL;
    cols[c].float_after = -1;
    cols[c].plain = 1;
  }
  const int whole = t->ready == ncols; /* row mode: no cell to fetch */
  for (size_t r = 0; r < f->rows && rc == ETK_OK; r++) {
    rc = row_begin(t, r);
    for (size_t c = 0; c < ncols && rc == ETK_OK; c++) {
      const etk_cell_t *cell = &t->cells[c];
      if (whole || (rc = cell_at(t, r, c, &cell)) == ETK_OK)
        rc = measure(t, &cols[c], cell);
    }
  }
  for (size_t c = 0; c < ncols && rc == ETK_OK; c++) {
    if (cols[c].rank < RANK_BYTES || !cols[c].rescan) continue;
    cols[c].text_w = 0;
    for (size_t r = 0; r < f->rows && rc == ETK_OK; r++) {
      const etk_cell_t *cell;
      cell_text_t x;
      if ((rc = row_begin(t, r)) != ETK_OK ||
          (rc = cell_at(t, r, c, &cell)) != ETK_OK ||
          (rc = output_text(t, MODE_LEFT, cell, &x)) != ETK_OK)
        break;
      if (x.width > cols[c].text_w) cols[c].text_w = x.width;
    }
  }
  if (rc != ETK_OK) return rc;
  for (size_t c = 0; c < ncols; c++) {
    column_t *col = &cols[c];
    /* tabulate: no rows means no column types, every column left-aligned */
    col->mode = f->rows == 0              ? MODE_LEFT
                : col->rank == RANK_INT   ? MODE_INT
                : col->rank == RANK_FLOAT ? MODE_FLOAT
                                          : MODE_LEFT;
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
    const char *h = header_text(t, c, &hl);
    size_t minw = etk_pytext_width(h, hl) + 2;
    col->width = (w > 0 && (size_t)w > minw) ? (size_t)w : minw;
  }
  return ETK_OK;
}

/* The top border, the header row and the header's bottom border. */
static int put_header(table_ctx_t *t, etk_line_t *line, const column_t *cols,
                      size_t ncols) {
  if (!border(line, cols, ncols, "\xe2\x95\x92", "\xe2\x95\x90", "\xe2\x95\xa4",
              "\xe2\x95\x95") ||
      !etk_line_reserve(line, 3))
    return 0;
  etk_line_put(line, BOX_V, 3);
  for (size_t c = 0; c < ncols; c++) {
    size_t hl;
    const char *h = header_text(t, c, &hl);
    /* headers are padded like the column, never decimal-shifted */
    cell_text_t x = {h, hl, etk_pytext_width(h, hl), cols[c].max_after};
    if (!put_cell(line, &cols[c], &x)) return 0;
  }
  if (!etk_line_reserve(line, 1)) return 0;
  etk_line_put(line, "\n", 1);
  return border(line, cols, ncols, "\xe2\x95\x9e", "\xe2\x95\x90",
                "\xe2\x95\xaa", "\xe2\x95\xa1");
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
  t.first = (f->show_index && f->rows > 0) ? 1 : 0;
  size_t ncols = f->cols + t.first;
  t.ready = row ? ncols : t.first;
  column_t *cols = calloc(ncols ? ncols : 1, sizeof *cols);
  etk_line_t line = {0}, tmpl = {0};
  int g_bits = f->rows >= 1024 ? G_CACHE_BITS_LONG : G_CACHE_BITS_SHORT;
  t.g_shift = 64 - g_bits;
  t.g_cache = calloc((size_t)1 << g_bits, sizeof *t.g_cache);
  t.g_last = t.g_cache; /* invalid until filled */
  t.cells = calloc(ncols ? ncols : 1, sizeof *t.cells);
  if (!cols || !t.g_cache || !t.cells) {
    free(cols);
    free(t.g_cache);
    free(t.cells);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory rendering a table");
  }
  if (t.first) t.cells[0].kind = ETK_CELL_INT;
  int rc = measure_columns(&t, cols, ncols);
  if (rc != ETK_OK) goto done;

  /* pass 2: output; the template is the row line then a blank row */
  if (!put_header(&t, &line, cols, ncols) ||
      !border(&tmpl, cols, ncols, "\xe2\x94\x9c", "\xe2\x94\x80",
              "\xe2\x94\xbc", "\xe2\x94\xa4"))
    goto oom;
  size_t blank = tmpl.len;
  if (!blank_row(&tmpl, cols, ncols)) goto oom;
  blank = tmpl.len - blank;
  /* rows are batched: a put of OUTPUT_BATCH bytes or more bypasses the
   * sink's buffer, saving a copy of the whole table */
  for (size_t r = 0; r < f->rows && rc == ETK_OK; r++) {
    if ((rc = put_row(&t, &line, &tmpl, blank, cols, ncols, r)) == ETK_OK)
      rc = etk_line_drain(&line, sink, OUTPUT_BATCH);
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
  free(t.cells);
  free(line.p);
  free(tmpl.p);
  etk_strbuf_free(&t.scratch);
  etk_strbuf_free(&t.esc);
  if (rc != ETK_OK && err && err->code == ETK_OK)
    etk_error_set(err, rc, ETK_NO_OFFSET, "rendering the table failed: %s",
                  etk_strerror(rc));
  return rc;
}
