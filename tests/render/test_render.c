/*
 * test_render.c - the render library: Python-compatible number and repr
 * formatting, the tabulate fancy_grid table, pandas TSV/CSV quoting, and
 * the JSON writer.
 *
 * Expected strings were produced independently by CPython 3 (repr(x) and
 * format(x, "g") for the double with the given bit pattern, repr() of str
 * and bytes) and by reading tabulate 0.8.9's source for the table rules;
 * they are hard-coded so the test needs no Python.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/render.h"

static double from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

static const struct {
  uint64_t bits;
  const char *repr, *g;
} doubles[] = {
    {0x0000000000000000ull, "0.0", "0"},
    {0x8000000000000000ull, "-0.0", "-0"},
    {0x3ff0000000000000ull, "1.0", "1"},
    {0x3fb999999999999aull, "0.1", "0.1"},
    {0x3fa26e978d4fdf3cull, "0.036000000000000004", "0.036"},
    {0x3ee711947cfa26a2ull, "1.1e-05", "1.1e-05"},
    {0x3f0040bfe3b03e20ull, "3.0999999999999995e-05", "3.1e-05"},
    {0x3f1a36e2eb1c432dull, "0.0001", "0.0001"},
    {0x3ee4f8b588e368f1ull, "1e-05", "1e-05"},
    {0x4341c37937e08000ull, "1e+16", "1e+16"},
    {0x430c6bf526340000ull, "1000000000000000.0", "1e+15"},
    {0x42dc12218377de66ull, "123456789012345.6", "1.23457e+14"},
    {0x434aa535d3d0c000ull, "1.5e+16", "1.5e+16"},
    {0x0000000000000001ull, "5e-324", "4.94066e-324"},
    {0x0010000000000000ull, "2.2250738585072014e-308", "2.22507e-308"},
    {0x7fefffffffffffffull, "1.7976931348623157e+308", "1.79769e+308"},
    {0x0028000000000000ull, "6.675221575521604e-308", "6.67522e-308"},
    {0x3fe0000000000000ull, "0.5", "0.5"},
    {0x3fd5555555555555ull, "0.3333333333333333", "0.333333"},
    {0x3fe5555555555555ull, "0.6666666666666666", "0.666667"},
    {0x4480f0cf064dd592ull, "1e+22", "1e+22"},
    {0x44b52d02c7e14af6ull, "1e+23", "1e+23"},
    {0x4340000000000000ull, "9007199254740992.0", "9.0072e+15"},
    {0x3f97060bb2bba98full, "0.022484", "0.022484"},
    {0x3ff081ebc83a96d5ull, "1.031719", "1.03172"},
    {0x41f0000000000000ull, "4294967296.0", "4.29497e+09"},
    {0x7ff0000000000000ull, "inf", "inf"},
    {0xfff0000000000000ull, "-inf", "-inf"},
    {0x43b0000000000000ull, "1.152921504606847e+18", "1.15292e+18"},
    {0x3eb0000000000000ull, "9.5367431640625e-07", "9.53674e-07"},
    {0x40fe240c9fbe76c9ull, "123456.789", "123457"},
    {0x3eb0c6f7a0b5ed8dull, "1e-06", "1e-06"},
    {0x54b249ad2594c37dull, "1e+100", "1e+100"},
};

ETK_TEST(double_repr_and_g_match_python) {
  char out[ETK_FORMAT_DOUBLE_MAX];
  for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
    double x = from_bits(doubles[i].bits);
    etk_format_double_repr(x, out);
    CHECK_EQ_STR(out, doubles[i].repr);
    etk_format_double_g(x, out);
    CHECK_EQ_STR(out, doubles[i].g);
  }
  etk_format_double_repr((double)NAN, out);
  CHECK_EQ_STR(out, "nan");
  etk_format_double_g((double)NAN, out);
  CHECK_EQ_STR(out, "nan");
}

ETK_TEST(double_repr_round_trips_on_many_values) {
  /* Shortest repr must read back exactly; durations k / 1e6 must print k's
   * digits (the fast path). */
  char out[ETK_FORMAT_DOUBLE_MAX];
  uint64_t s = 88172645463325252ull;
  for (int i = 0; i < 20000; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    double x = from_bits(s);
    if (x != x || isinf(x)) continue;
    etk_format_double_repr(x, out);
    CHECK(strtod(out, NULL) == x);
  }
  etk_format_double_repr(544783.0 / 1e6, out);
  CHECK_EQ_STR(out, "0.544783");
  etk_format_double_repr(151.0 / 1e6, out);
  CHECK_EQ_STR(out, "0.000151");
}

ETK_TEST(ints_format) {
  char out[24];
  etk_format_int(INT64_MIN, out);
  CHECK_EQ_STR(out, "-9223372036854775808");
  etk_format_uint(UINT64_MAX, out);
  CHECK_EQ_STR(out, "18446744073709551615");
  etk_format_int(0, out);
  CHECK_EQ_STR(out, "0");
  /* every digit count, on both sides of each power of ten */
  char want[32];
  int bad = 0;
  for (uint64_t p = 1;; p *= 10) {
    for (int d = -2; d <= 2; d++) {
      uint64_t v = p + (uint64_t)(int64_t)d;
      if (d < 0 && p < 3) continue;
      snprintf(want, sizeof want, "%llu", (unsigned long long)v);
      size_t n = etk_format_uint(v, out);
      bad += strcmp(out, want) != 0 || n != strlen(want);
      snprintf(want, sizeof want, "%lld", -(long long)(v >> 1));
      n = etk_format_int(-(int64_t)(v >> 1), out);
      bad += strcmp(out, want) != 0 || n != strlen(want);
    }
    if (p > UINT64_MAX / 10) break;
  }
  CHECK_EQ_INT(bad, 0);
}

/* Python's repr() of a str or (is_bytes) bytes object, as CPython prints
 * it: the quote it picks, its escapes, what it counts as printable. */
static const struct {
  const char *value;
  size_t length;
  int is_bytes;
  const char *repr;
} pyrepr_cases[] = {
    {"aten.add.Tensor", 15, 0, "'aten.add.Tensor'"},
    {"it's", 4, 0, "\"it's\""},
    {"a'b\"c", 5, 0, "'a\\'b\"c'"},
    {"t\tn\nr\r\\\x1b\x7f", 9, 0, "'t\\tn\\nr\\r\\\\\\x1b\\x7f'"},
    /* é printable; NBSP, U+200B, U+202E not (CPython: '\xa0', '\u200b',
     * '\u202e') */
    {"\xc3\xa9\xc2\xa0\xe2\x80\x8b\xe2\x80\xae", 10, 0,
     "'\xc3\xa9\\xa0\\u200b\\u202e'"},
    {"m1", 2, 1, "b'm1'"},
    {"\x00\xff'\\", 4, 1, "b\"\\x00\\xff'\\\\\""},
    /* both quotes: single quotes, the single one escaped (Python's rule) */
    {"'\"\t\n\r", 5, 1, "b'\\'\"\\t\\n\\r'"},
};

ETK_TEST(python_repr_of_str_and_bytes) {
  etk_strbuf_t b;
  etk_strbuf_init(&b);
  for (size_t i = 0; i < sizeof pyrepr_cases / sizeof *pyrepr_cases; i++) {
    etk_strbuf_clear(&b);
    if (pyrepr_cases[i].is_bytes)
      etk_pyrepr_bytes(&b, (const uint8_t *)pyrepr_cases[i].value,
                       pyrepr_cases[i].length);
    else
      etk_pyrepr_str(&b, pyrepr_cases[i].value, pyrepr_cases[i].length);
    CHECK_EQ_STR(b.data, pyrepr_cases[i].repr);
  }
  etk_strbuf_free(&b);
}

/* ------------------------------------------------------------ frames */

typedef struct demo {
  const etk_cell_t *cells;
  size_t cols;
} demo_t;

static int demo_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                     etk_strbuf_t *scratch) {
  (void)scratch;
  const demo_t *d = ctx;
  *out = d->cells[row * d->cols + col];
  return ETK_OK;
}

static int demo_row(void *ctx, size_t row, etk_cell_t *cells) {
  const demo_t *d = ctx;
  memcpy(cells, d->cells + row * d->cols, d->cols * sizeof *cells);
  return ETK_OK;
}

/* The frame rendered as a table (table 1: cell by cell, 2: row by row with
 * etk_render_table_rows) or with separator `sep` (table 0). */
static char *render(const etk_frame_t *f, int table, char sep) {
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  int rc = table == 2   ? etk_render_table_rows(f, demo_row, s, NULL)
           : table == 1 ? etk_render_table(f, s, NULL)
                        : etk_render_delimited(f, sep, s, NULL);
  size_t len;
  char *out = rc == ETK_OK ? etk_render_sink_take(s, &len) : NULL;
  etk_render_sink_free(s);
  free(s);
  return out;
}

#define TXT(s) \
  { ETK_CELL_TEXT, 0, 0, s, sizeof(s) - 1 }
#define OBJ(s) \
  { ETK_CELL_OBJECT, 0, 0, s, sizeof(s) - 1 }
#define FLT(x) \
  { ETK_CELL_FLOAT, x, 0, NULL, 0 }
#define INT(x) \
  { ETK_CELL_INT, 0, x, NULL, 0 }
#define BOOLC(x) \
  { ETK_CELL_BOOL, 0, x, NULL, 0 }
#define NONE_ \
  { ETK_CELL_NONE, 0, 0, NULL, 0 }
#define NAN_ \
  { ETK_CELL_NAN, NAN, 0, NULL, 0 }

ETK_TEST(table_follows_tabulate_rules) {
  /* Hand-derived from tabulate 0.8.9: numbers decimal-aligned (1e-06 has 3
   * characters after its 'e'), NaN prints nan, None empty, the all-None
   * column is a left-aligned "bool" column, a numeric-looking name makes
   * an int column (right-aligned), bools left-aligned, index column right. */
  static const etk_cell_t cells[] = {
      TXT("5"),  FLT(0.022484), NONE_, BOOLC(0), OBJ("[1, 2]"),
      TXT("12"), FLT(1e-06),    NONE_, BOOLC(1), OBJ("[]"),
      TXT("7"),  NAN_,          NONE_, BOOLC(0), NONE_,
  };
  static const char *const headers[] = {"name", "avg (ms)", "backend", "flag",
                                        "list"};
  demo_t d = {cells, 5};
  etk_frame_t f = {3, 5, headers, demo_cell, &d, 1};
  char *out = render(&f, 1, 0);
  const char *expect =
      "\xe2\x95\x92\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\xa4"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\xa4"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\xa4"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\xa4"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\xa4"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\x90\xe2\x95\x90\xe2\x95\x95\n";
  REQUIRE(out != NULL);
  CHECK(strncmp(out, expect, strlen(expect)) == 0);
  /* the lines after the top border, ASCII-checked through their content */
  CHECK(strstr(out,
               "\xe2\x94\x82    \xe2\x94\x82   name \xe2\x94\x82   avg (ms) "
               "\xe2\x94\x82 backend   \xe2\x94\x82 flag   \xe2\x94\x82 list   "
               "\xe2\x94\x82\n") != NULL);
  CHECK(strstr(out,
               "\xe2\x94\x82  0 \xe2\x94\x82      5 \xe2\x94\x82   0.022484 "
               "\xe2\x94\x82           \xe2\x94\x82 False  \xe2\x94\x82 [1, 2] "
               "\xe2\x94\x82\n") != NULL);
  CHECK(strstr(out,
               "\xe2\x94\x82  1 \xe2\x94\x82     12 \xe2\x94\x82   1e-06    "
               "\xe2\x94\x82           \xe2\x94\x82 True   \xe2\x94\x82 []     "
               "\xe2\x94\x82\n") != NULL);
  CHECK(strstr(out,
               "\xe2\x94\x82  2 \xe2\x94\x82      7 \xe2\x94\x82 nan        "
               "\xe2\x94\x82           \xe2\x94\x82 False  \xe2\x94\x82        "
               "\xe2\x94\x82\n") != NULL);
  free(out);
}

ETK_TEST(table_escapes_control_characters_and_strips_text) {
  static const etk_cell_t cells[] = {TXT("a\tb\x1b[31m"), TXT("  pad  ")};
  static const char *const headers[] = {"x", "y"};
  demo_t d = {cells, 2};
  etk_frame_t f = {1, 2, headers, demo_cell, &d, 0};
  char *out = render(&f, 1, 0);
  REQUIRE(out != NULL);
  CHECK(strstr(out, "a\\tb\\x1b[31m") != NULL);
  CHECK(strchr(out, '\t') == NULL);
  CHECK(strchr(out, '\x1b') == NULL);
  CHECK(strstr(out, "\xe2\x94\x82 pad \xe2\x94\x82") != NULL); /* stripped */
  free(out);
}

ETK_TEST(empty_table_prints_header_box_without_index) {
  static const char *const headers[] = {"a", "bb"};
  demo_t d = {NULL, 2};
  etk_frame_t f = {0, 2, headers, demo_cell, &d, 1};
  char *out = render(&f, 1, 0);
  REQUIRE(out != NULL);
  const char *expect =
      "\xe2\x95\x92\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\xa4\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\x90\xe2\x95\x95\n"
      "\xe2\x94\x82 a   \xe2\x94\x82 bb   \xe2\x94\x82\n"
      "\xe2\x95\x9e\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\xaa\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\x90\xe2\x95\xa1\n"
      "\xe2\x95\x98\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\xa7\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
      "\xe2\x95\x90\xe2\x95\x9b\n";
  CHECK_EQ_STR(out, expect);
  free(out);
}

/* One frame rendered with a separator, compared whole: asked cell by cell
 * and row by row (etk_render_delimited_rows), the same bytes. */
static void check_delimited(const etk_frame_t *f, char separator,
                            const char *expected) {
  char *text = render(f, 0, separator);
  REQUIRE(text != NULL);
  CHECK_EQ_STR(text, expected);
  free(text);
  etk_render_sink_t *s = malloc(sizeof *s);
  REQUIRE(s != NULL);
  etk_render_sink_init_memory(s);
  CHECK_EQ_INT(etk_render_delimited_rows(f, demo_row, separator, s, NULL),
               ETK_OK);
  text = etk_render_sink_take(s, NULL);
  etk_render_sink_free(s);
  free(s);
  REQUIRE(text != NULL);
  CHECK_EQ_STR(text, expected);
  free(text);
}

ETK_TEST(delimited_quotes_like_pandas) {
  static const etk_cell_t cells[] = {
      TXT("tab\there"),
      TXT("q\"x"),
      TXT("a,b"),
      FLT(0.036000000000000004),
      NAN_,
      NONE_,
      BOOLC(1),
      INT(-3),
  };
  static const char *const headers[] = {"n", "q", "c", "f"};
  demo_t d = {cells, 4};
  etk_frame_t f = {2, 4, headers, demo_cell, &d, 1};
  check_delimited(&f, '\t',
                  "\tn\tq\tc\tf\n"
                  "0\t\"tab\there\"\t\"q\"\"x\"\ta,b\t0.036000000000000004\n"
                  "1\t\t\tTrue\t-3\n");
  check_delimited(&f, ',',
                  ",n,q,c,f\n"
                  "0,tab\there,\"q\"\"x\",\"a,b\",0.036000000000000004\n"
                  "1,,,True,-3\n");
}

/* pandas' quoting of one field, written out plainly (the reference for
 * the word-at-a-time scan). */
static void quote_reference(char *out, const char *s, size_t n, char sep) {
  int quote = memchr(s, sep, n) || memchr(s, '"', n) || memchr(s, '\n', n);
  size_t o = 0;
  if (quote) out[o++] = '"';
  for (size_t i = 0; i < n; i++) {
    out[o++] = s[i];
    if (s[i] == '"') out[o++] = '"';
  }
  if (quote) out[o++] = '"';
  out[o] = 0;
}

ETK_TEST(delimited_quotes_every_length_and_position) {
  static const char specials[] = {'\t', ',', '"', '\n'};
  static const char *const headers[] = {"x"};
  char field[24], expected[80], want[96];
  etk_cell_t cell = {ETK_CELL_TEXT, 0, 0, field, 0};
  demo_t d = {&cell, 1};
  etk_frame_t f = {1, 1, headers, demo_cell, &d, 0};
  for (size_t n = 1; n <= 20; n++) {
    for (size_t k = 0; k <= n; k++) { /* k == n: no special byte */
      for (size_t c = 0; c < 4; c++) {
        memset(field, 'a' + (int)(n % 7), n);
        if (k < n) field[k] = specials[c];
        cell.len = n;
        for (int comma = 0; comma <= 1; comma++) {
          char sep = comma ? ',' : '\t';
          quote_reference(expected, field, n, sep);
          snprintf(want, sizeof want, "x\n%s\n", expected);
          check_delimited(&f, sep, want);
        }
      }
    }
  }
}

ETK_TEST(delimited_finds_quotes_anywhere_in_long_fields) {
  /* the bytes that force quotes at each position of a 17-byte field (the
   * scan reads 8 bytes at a time, then the tail), and long plain fields */
  static const etk_cell_t cells[] = {
      TXT("\"abcdefghijklmnop"),  TXT("abcdefg\"hijklmnop"),
      TXT("abcdefgh\thijklmnop"), TXT("abcdefghijklmnop\n"),
      TXT("abcdefghijklmnopq"),   OBJ("[1, 2, 3, 4, 5, 6, 7]"),
  };
  static const char *const headers[] = {"a", "b", "c"};
  demo_t d = {cells, 3};
  etk_frame_t f = {2, 3, headers, demo_cell, &d, 0};
  check_delimited(&f, '\t',
                  "a\tb\tc\n"
                  "\"\"\"abcdefghijklmnop\"\t\"abcdefg\"\"hijklmnop\"\t"
                  "\"abcdefgh\thijklmnop\"\n"
                  "\"abcdefghijklmnop\n\"\tabcdefghijklmnopq\t"
                  "[1, 2, 3, 4, 5, 6, 7]\n");
  check_delimited(&f, ',',
                  "a,b,c\n"
                  "\"\"\"abcdefghijklmnop\",\"abcdefg\"\"hijklmnop\","
                  "abcdefgh\thijklmnop\n"
                  "\"abcdefghijklmnop\n\",abcdefghijklmnopq,"
                  "\"[1, 2, 3, 4, 5, 6, 7]\"\n");
}

/* Frames whose expected text was printed by the real libraries (tabulate
 * 0.8.9, pandas 1.5; tests/oracle checks many more): golden/<name>. */
static void check_golden(const etk_frame_t *f, int table, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/render/golden/%s", ETKIT_SOURCE_DIR,
           name);
  size_t len = 0;
  unsigned char *want = etk_test_read_file(path, &len);
  REQUIRE(want != NULL);
  /* a table is also asked for row by row: the same bytes */
  for (int mode = table; mode <= 2 * table; mode++) {
    char *got = render(f, mode, '\t');
    REQUIRE(got != NULL);
    CHECK(strlen(got) == len && memcmp(got, want, len) == 0);
    if (strlen(got) != len || memcmp(got, want, len) != 0)
      fprintf(stderr, "  %s (mode %d): got\n%s", name, mode, got);
    free(got);
  }
  free(want);
}

ETK_TEST(table_pads_every_length) {
  /* The row writer stores short runs with fixed-size copies: every text
   * length from 0 to 47 (left-aligned, padded to 47) and every int width
   * under a header wider than the copies (right-aligned, up to 40 spaces
   * of padding), checked line by line against plain formatting. */
  enum { ROWS = 48 };
  static char texts[ROWS][ROWS];
  etk_cell_t cells[2 * ROWS];
  int64_t value = 0;
  for (int r = 0; r < ROWS; r++) {
    memset(texts[r], 'a' + r % 26, (size_t)r);
    cells[2 * r] = (etk_cell_t){ETK_CELL_TEXT, 0, 0, texts[r], (size_t)r};
    cells[2 * r + 1] = (etk_cell_t){ETK_CELL_INT, 0, value, NULL, 0};
    value = value * 10 + 7 > 999999999 ? 3 : value * 10 + 7;
  }
  static const char *const headers[] = {
      "t", "a header wider than the fixed-size copies of the row"};
  demo_t d = {cells, 2};
  etk_frame_t f = {ROWS, 2, headers, demo_cell, &d, 0};
  for (int mode = 1; mode <= 2; mode++) {
    char *out = render(&f, mode, 0);
    REQUIRE(out != NULL);
    size_t width = strlen(headers[1]) + 2;
    char line[256], number[32];
    for (int r = 0; r < ROWS; r++) {
      snprintf(number, sizeof number, "%lld", (long long)cells[2 * r + 1].i);
      snprintf(line, sizeof line,
               "\n\xe2\x94\x82 %-47.*s \xe2\x94\x82 %*s \xe2\x94\x82\n", r,
               texts[r], (int)width, number);
      CHECK(strstr(out, line) != NULL);
    }
    free(out);
  }
}

ETK_TEST(table_counts_an_index_past_every_power_of_ten) {
  /* The index column's text is the last one incremented in place, through
   * 9 -> 10, 99 -> 100 and 999 -> 1000; a second int column breaks the
   * sequence on some rows (v: the index, or 7 on every third row). */
  enum { ROWS = 1200 };
  etk_cell_t *cells = malloc(ROWS * sizeof *cells);
  REQUIRE(cells != NULL);
  for (int r = 0; r < ROWS; r++)
    cells[r] = (etk_cell_t){ETK_CELL_INT, 0, r % 3 ? r + 1 : 7, NULL, 0};
  static const char *const headers[] = {"v"};
  demo_t d = {cells, 1};
  etk_frame_t f = {ROWS, 1, headers, demo_cell, &d, 1};
  for (int mode = 1; mode <= 2; mode++) {
    char *out = render(&f, mode, 0);
    REQUIRE(out != NULL);
    char line[64];
    for (int r = 0; r < ROWS; r++) {
      snprintf(line, sizeof line,
               "\n\xe2\x94\x82 %4d \xe2\x94\x82 %4lld "
               "\xe2\x94\x82\n",
               r, (long long)cells[r].i);
      CHECK(strstr(out, line) != NULL);
    }
    free(out);
  }
  free(cells);
}

ETK_TEST(table_types_text_cells_like_tabulate) {
  /* Python's int()/float() decide a str column's type: "1_5.2_5" is 15.25
   * in a float column, " 3 " keeps its spaces in an int column, "True"
   * makes a bool column, "1e" and "0x10" are text. */
  static const etk_cell_t cells[] = {
      TXT("1"),       TXT("007"),   TXT("True"),  TXT("12"),
      TXT("2.5"),     TXT("-12"),   TXT("False"), TXT("text"),
      TXT("1e3"),     TXT("1_000"), NONE_,        TXT("  pad  "),
      TXT("-7"),      TXT(" 3 "),   TXT("True"),  TXT("1e"),
      TXT("nan"),     TXT("+5"),    TXT("False"), TXT("0x10"),
      TXT("1_5.2_5"), TXT("0"),     TXT("True"),  TXT("NaN"),
      TXT(" 3.25 "),  TXT("42"),    TXT("True"),  TXT("\xc3\xa9t\xc3\xa9"),
      TXT("inf"),     NONE_,        TXT("False"), NONE_,
  };
  static const char *const headers[] = {"floaty", "inty", "booly", "mixed"};
  demo_t d = {cells, 4};
  etk_frame_t f = {8, 4, headers, demo_cell, &d, 1};
  check_golden(&f, 1, "text_types.table");
}

ETK_TEST(table_and_tsv_format_floats_like_python) {
  /* "g" ties: 1234565.0 is exact (half to even: 1.23456e+06), 2.345675 is
   * below its decimal (2.34567), 999999.5 rounds to the next decade. */
  static const etk_cell_t cells[] = {
      FLT(0.000253),
      TXT("a"),
      NAN_,
      TXT(""),
      FLT(1234565.0),
      TXT("b"),
      FLT(2.345675),
      TXT("c"),
      FLT(999999.5),
      TXT("d"),
      FLT(1e16),
      TXT("e"),
      FLT(12345678901234567.0),
      TXT("f"),
      FLT(0.30000000000000004),
      TXT("g"),
  };
  static const char *const headers[] = {"p10 (ms)", "name"};
  demo_t d = {cells, 2};
  etk_frame_t f = {8, 2, headers, demo_cell, &d, 1};
  check_golden(&f, 1, "float_formats.table");
  check_golden(&f, 0, "float_formats.tsv");
}

/* Values for the memo tests: runs of one value (a one-sample event's six
 * statistics), values alternating, and more distinct values than any memo
 * or cache has slots (so slots are taken over by others). */
static double memo_value(size_t i) {
  size_t k = i % 7 < 3 ? i / 7 : (i * 2654435761u) % 1500;
  return (double)(200 + k % 97) / 1e6 + (double)(k / 97) * 0.25;
}

ETK_TEST(repr_memo_gives_each_value_its_own_text) {
  etk_repr_memo_t *m = calloc(1, sizeof *m);
  char want[ETK_FORMAT_DOUBLE_MAX];
  int bad = 0;
  for (size_t i = 0; i < 20000; i++) {
    double v = i % 11 == 5 ? from_bits(doubles[i % 33].bits) : memo_value(i);
    size_t n, wn = etk_format_double_repr(v, want);
    const char *got = etk_repr_memo_text(m, v, &n);
    bad += n != wn || memcmp(got, want, n) != 0;
  }
  CHECK_EQ_INT(bad, 0);
  free(m);
}

/* Every row's float cell in the table holds format(v, "g") and in the TSV
 * repr(v), whatever the values before it (the texts are remembered). */
ETK_TEST(table_and_tsv_texts_of_repeated_floats) {
  enum { ROWS = 3000 };
  etk_cell_t *cells = calloc(2 * ROWS, sizeof *cells);
  for (size_t r = 0; r < ROWS; r++) {
    cells[2 * r] = (etk_cell_t)FLT(memo_value(r));
    cells[2 * r + 1] = (etk_cell_t)FLT(memo_value(r + 1));
  }
  static const char *const headers[] = {"a", "b"};
  demo_t d = {cells, 2};
  etk_frame_t f = {ROWS, 2, headers, demo_cell, &d, 0};
  int bad = 0;
  for (int table = 0; table <= 2; table++) {
    char *out = render(&f, table, '\t');
    CHECK(out != NULL);
    if (!out) break;
    /* the table's data rows start with U+2502 after the header's bottom
     * border (U+255E), the TSV's after its header line */
    char *line = table ? strstr(out, "\xe2\x95\x9e") : out;
    if (!line) line = out;
    line = strchr(line, '\n') + 1;
    size_t r = 0;
    for (char *next; *line && r < ROWS; line = next) {
      next = strchr(line, '\n');
      next = next ? next + 1 : line + strlen(line);
      if (table && strncmp(line, "\xe2\x94\x82", 3) != 0) continue;
      char want[2][ETK_FORMAT_DOUBLE_MAX], got[2][64];
      for (int c = 0; c < 2; c++) {
        if (table)
          etk_format_double_g(memo_value(r + (size_t)c), want[c]);
        else
          etk_format_double_repr(memo_value(r + (size_t)c), want[c]);
      }
      int n = table ? sscanf(line, "\xe2\x94\x82 %63s \xe2\x94\x82 %63s",
                             got[0], got[1])
                    : sscanf(line, "%63s\t%63s", got[0], got[1]);
      bad += n != 2 || strcmp(got[0], want[0]) != 0 ||
             strcmp(got[1], want[1]) != 0;
      r++;
    }
    bad += r != ROWS;
    free(out);
  }
  CHECK_EQ_INT(bad, 0);
  free(cells);
}

ETK_TEST(table_measures_floats_seen_before_text) {
  /* Column v turns text at its third cell: its floats print their repr and
   * must count in its width.  Column w mixes bools, ints and a float: a
   * float column ("g" of True is 1). */
  static const etk_cell_t cells[] = {
      FLT(1.5), BOOLC(1),   FLT(0.30000000000000004),
      INT(1),   TXT("abc"), FLT(2.5),
      NONE_,    NONE_,      FLT(1e16),
      BOOLC(0), NAN_,       INT(3),
  };
  static const char *const headers[] = {"v", "w"};
  demo_t d = {cells, 2};
  etk_frame_t f = {6, 2, headers, demo_cell, &d, 1};
  check_golden(&f, 1, "floats_then_text.table");
}

/* Copy of s with every '|' replaced by the box character U+2502 (test
 * tables are written with '|' for readability). */
static char *boxed(const char *s) {
  char *out = malloc(3 * strlen(s) + 1), *p = out;
  for (; *s; s++) {
    if (*s == '|') {
      memcpy(p, "\xe2\x94\x82", 3);
      p += 3;
    } else {
      *p++ = *s;
    }
  }
  *p = 0;
  return out;
}

/* The lines of a rendered table that start with U+2502: the header and
 * data rows, without the border lines. */
static char *table_rows(const char *out) {
  char *rows = malloc(strlen(out) + 1), *q = rows;
  for (const char *line = out; *line;) {
    const char *end = strchr(line, '\n');
    if (!end) end = line + strlen(line) - 1;
    if (strncmp(line, "\xe2\x94\x82", 3) == 0) {
      memcpy(q, line, (size_t)(end - line) + 1);
      q += end - line + 1;
    }
    line = end + 1;
  }
  *q = 0;
  return rows;
}

ETK_TEST(table_types_columns_that_change_late) {
  /* Each column's type is settled by its last cell (hand-derived from
   * tabulate 0.8.9): a: ints then a float (float column: 1234567 prints
   * "g", 1.23457e+06, whose 9 characters after the point set the decimal
   * padding); b: bools and None then an int (int column, bools printed
   * True/False right-aligned); c: ints then a string (text: left-aligned
   * str()); d: floats then an object (text: the floats' repr, measured
   * again); e: numeric strings (float: "1e3" is 1000); f: an int string
   * led by a no-break space, int() accepts it, printed as is (3 code
   * points, 4 bytes). */
  static const etk_cell_t cells[] = {
      INT(1),
      BOOLC(1),
      INT(5),
      FLT(0.1),
      TXT("1e3"),
      TXT("\xc2\xa0"
          "12"),
      INT(22),
      NONE_,
      INT(-12),
      FLT(2.5),
      TXT(" 2 "),
      INT(5),
      INT(1234567),
      BOOLC(0),
      INT(300),
      NAN_,
      TXT("inf"),
      NONE_,
      FLT(0.5),
      INT(7),
      TXT("x y"),
      OBJ("[]"),
      NONE_,
      TXT("-3"),
  };
  static const char *const headers[] = {"a", "b", "c", "d", "e", "f"};
  demo_t d = {cells, 6};
  etk_frame_t f = {4, 6, headers, demo_cell, &d, 0};
  char *want = boxed(
      "|            a |     b | c   | d   |    e |   f |\n"
      "|  1           |  True | 5   | 0.1 | 1000 | \xc2\xa0"
      "12 |\n"
      "| 22           |       | -12 | 2.5 |    2 |   5 |\n"
      "|  1.23457e+06 | False | 300 | nan |  inf |     |\n"
      "|  0.5         |     7 | x y | []  |      |  -3 |\n");
  for (int mode = 1; mode <= 2; mode++) {
    char *out = render(&f, mode, 0);
    REQUIRE(out != NULL);
    /* the box lines around, then the rows without them */
    const char *nl = strchr(out, '\n');
    REQUIRE(nl != NULL);
    CHECK(strncmp(out, "\xe2\x95\x92", 3) == 0);
    CHECK((size_t)(nl - out) == 3 * (2 + 14 + 7 + 5 + 5 + 6 + 5 + 5));
    char *rows = table_rows(out);
    CHECK_EQ_STR(rows, want);
    free(rows);
    free(out);
  }
  free(want);
}

ETK_TEST(table_prints_bool_strings_of_a_float_column) {
  /* tabulate raises ValueError on float("True") in a float column; etkit
   * prints the "g" text of 1 and 0 (docs/compatibility.md). */
  static const etk_cell_t cells[] = {TXT("True"), FLT(2.5), TXT("False")};
  static const char *const headers[] = {"v"};
  demo_t d = {cells, 1};
  etk_frame_t f = {3, 1, headers, demo_cell, &d, 0};
  char *want = boxed("|   v |\n| 1   |\n| 2.5 |\n| 0   |\n");
  for (int mode = 1; mode <= 2; mode++) {
    char *out = render(&f, mode, 0);
    REQUIRE(out != NULL);
    char *rows = table_rows(out);
    CHECK_EQ_STR(rows, want);
    free(rows);
    free(out);
  }
  free(want);
}

/* s with every '~' replaced by `with`. */
static char *replace_tilde(const char *s, const char *with) {
  size_t n = strlen(with);
  char *out = malloc(n * strlen(s) + 1), *p = out;
  for (; *s; s++) {
    if (*s == '~') {
      memcpy(p, with, n);
      p += n;
    } else {
      *p++ = *s;
    }
  }
  *p = 0;
  return out;
}

ETK_TEST(table_places_non_ascii_text_like_ascii) {
  /* A row of printable ASCII is laid out at fixed byte offsets; a cell with
   * more bytes than characters switches the rest of its row to a piece by
   * piece layout.  The frame with "é" (or a 3-byte "€") where another has
   * '~' must print that table with '~' replaced: markers in the first, a
   * middle and the last column, alone or together, in stripped text, in a
   * header, in rows between all-ASCII rows. */
  enum { ROWS = 6 };
  static const char *const first[ROWS] = {"plain", "~", "ab", "c", "~~", "d"};
  static const char *const middle[ROWS] = {
      "x", "  y~ ", "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
      "z", "",      "no marker"};
  static const char *const last[ROWS] = {"[]", "[~]",    "[1]",
                                         "~",  "[~, ~]", "[]"};
  const char *const *texts[3] = {first, middle, last};
  static const int64_t ints[ROWS] = {1, 22, 333, 4, -5, 1234567};
  static const double floats[ROWS] = {0.5, 1.25, 1e-7, 2.0, NAN, 3};
  const char *const marks[] = {"~", "\xc3\xa9", "\xe2\x82\xac"};
  char *outs[3][2];
  for (int m = 0; m < 3; m++) {
    char *owned[ROWS][3], *header = replace_tilde("n~me", marks[m]);
    etk_cell_t cells[ROWS * 5];
    for (int r = 0; r < ROWS; r++) {
      for (int k = 0; k < 3; k++)
        owned[r][k] = replace_tilde(texts[k][r], marks[m]);
      etk_cell_set_text(&cells[5 * r], owned[r][0], strlen(owned[r][0]));
      etk_cell_set_int(&cells[5 * r + 1], ints[r]);
      etk_cell_set_text(&cells[5 * r + 2], owned[r][1], strlen(owned[r][1]));
      etk_cell_set_float(&cells[5 * r + 3], floats[r]);
      etk_cell_set_object(&cells[5 * r + 4], owned[r][2], strlen(owned[r][2]));
    }
    const char *headers[] = {header, "int", "t", "float (ms)", "obj"};
    demo_t d = {cells, 5};
    etk_frame_t f = {ROWS, 5, headers, demo_cell, &d, 1};
    for (int mode = 1; mode <= 2; mode++) {
      outs[m][mode - 1] = render(&f, mode, 0);
      REQUIRE(outs[m][mode - 1] != NULL);
    }
    for (int r = 0; r < ROWS; r++)
      for (int k = 0; k < 3; k++) free(owned[r][k]);
    free(header);
  }
  CHECK(strstr(outs[0][0], "\xe2\x94\x82 ~~ ") != NULL);
  CHECK(strstr(outs[0][0], "\xe2\x94\x82 y~ ") != NULL); /* stripped */
  for (int m = 1; m < 3; m++) {
    char *want = replace_tilde(outs[0][0], marks[m]);
    CHECK_EQ_STR(outs[m][0], want);
    CHECK_EQ_STR(outs[m][1], want);
    free(want);
  }
  CHECK_EQ_STR(outs[0][1], outs[0][0]);
  for (int m = 0; m < 3; m++) {
    free(outs[m][0]);
    free(outs[m][1]);
  }
}

ETK_TEST(json_writer_escapes_and_checks_nesting) {
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  etk_json_t j;
  etk_json_init(&j, s, 0);
  etk_json_begin_object(&j);
  etk_json_key(&j, "name\n");
  etk_json_string(&j, "q\"\\\x01\xe2\x80\xa8\xff", 8);
  etk_json_key(&j, "v");
  etk_json_begin_array(&j);
  etk_json_double(&j, 0.1);
  etk_json_double(&j, (double)NAN);
  etk_json_int(&j, -5);
  etk_json_bool(&j, 1);
  etk_json_null(&j);
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  CHECK_EQ_INT(etk_json_finish(&j), ETK_OK);
  size_t len;
  char *out = etk_render_sink_take(s, &len);
  CHECK_EQ_STR(out,
               "{\"name\\n\":\"q\\\"\\\\\\u0001\\u2028\\ufffd\","
               "\"v\":[0.1,null,-5,true,null]}\n");
  free(out);
  /* misuse: a value where a key is due */
  etk_json_init(&j, s, 0);
  etk_json_begin_object(&j);
  etk_json_int(&j, 1);
  CHECK_EQ_INT(etk_json_finish(&j), ETK_E_INVALID_STATE);
  etk_render_sink_free(s);
  free(s);
}

/* Opens a memory-backed document {"outer": { ... for finish_document(). */
static etk_render_sink_t *start_document(etk_json_t *j, int indent) {
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  etk_json_init(j, s, indent);
  etk_json_begin_object(j);
  etk_json_key(j, "outer");
  etk_json_begin_object(j);
  return s;
}

/* Closes the two objects of a test document, checks the writer and
 * returns the text (the sink is released). */
static char *finish_document(etk_json_t *j, etk_render_sink_t *s) {
  etk_json_end_object(j);
  etk_json_end_object(j);
  CHECK_EQ_INT(etk_json_finish(j), ETK_OK);
  size_t len;
  char *out = etk_render_sink_take(s, &len);
  free(s);
  return out;
}

/* Checks that two documents are equal, then frees them. */
static void check_same_documents(char *a, char *b) {
  CHECK(a != NULL && b != NULL);
  if (a && b) CHECK_EQ_STR(b, a);
  free(a);
  free(b);
}

/* Checks that `write` (a key, or a key and value) inside an array is the
 * sticky state error. */
static void check_member_in_array_fails(void (*write)(etk_json_t *)) {
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  etk_json_t j;
  etk_json_init(&j, s, 0);
  etk_json_begin_array(&j);
  write(&j);
  CHECK_EQ_INT(etk_json_finish(&j), ETK_E_INVALID_STATE);
  etk_render_sink_free(s);
  free(s);
}

static void write_prepared_key(etk_json_t *j) {
  etk_json_prepared_key_t k;
  etk_json_key_prepare(j, "x", &k);
  etk_json_key_prepared(j, &k);
}

static void write_key_value(etk_json_t *j) {
  etk_json_kv_uint(j, "x", 1);
}

/* Writes an object of keys, plain or prepared, and returns the text. */
static char *keys_document(int indent, int prepared, const char *const *keys,
                           size_t n) {
  etk_json_t j;
  etk_render_sink_t *s = start_document(&j, indent);
  for (size_t i = 0; i < n; i++) {
    etk_json_prepared_key_t k;
    etk_json_key_prepare(&j, keys[i], &k);
    if (prepared)
      etk_json_key_prepared(&j, &k);
    else
      etk_json_key(&j, keys[i]);
    etk_json_int(&j, (int64_t)i);
  }
  return finish_document(&j, s);
}

ETK_TEST(json_prepared_keys_write_what_plain_keys_write) {
  static const char *const keys[] = {
      "p50 (ms)", "", "q\"uote\\", "ctl\x01", "bad\xff", "\xe2\x80\xa8",
      /* longer than a prepared key holds: written the plain way */
      ("a key of more than sixty-four bytes, which is kept as it is and "
       "escaped on every use")};
  for (int indent = 0; indent <= 3; indent += 3) {
    check_same_documents(
        keys_document(indent, 0, keys, sizeof keys / sizeof keys[0]),
        keys_document(indent, 1, keys, sizeof keys / sizeof keys[0]));
  }
  char *c = keys_document(0, 1, keys, 3);
  CHECK_EQ_STR(c, "{\"outer\":{\"p50 (ms)\":0,\"\":1,\"q\\\"uote\\\\\":2}}\n");
  free(c);
  /* a prepared key where a value is due: the sticky state error */
  check_member_in_array_fails(write_prepared_key);
}

/* One object holding each kind of member, written either with the
 * etk_json_kv_*() calls or with etk_json_key() and the value call. */
static char *members_document(int indent, int fused, const char *key) {
  etk_json_t j;
  etk_render_sink_t *s = start_document(&j, indent);
  static const char *const strings[] = {"plain", "q\"\n\xff", NULL};
  for (int i = 0; i < 3; i++) {
    if (fused) {
      etk_json_kv_string(&j, key, strings[i],
                         strings[i] ? strlen(strings[i]) : 0);
      etk_json_kv_cstring(&j, key, strings[i]);
    } else {
      etk_json_key(&j, key);
      etk_json_string(&j, strings[i], strings[i] ? strlen(strings[i]) : 0);
      etk_json_key(&j, key);
      etk_json_cstring(&j, strings[i]);
    }
  }
  static const double values[] = {0.1, 0.1, -2.5e-7, (double)NAN, 1e300};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    if (fused) {
      etk_json_kv_double(&j, key, values[i]);
      etk_json_kv_int(&j, key, -(int64_t)i * 1000000007);
      etk_json_kv_uint(&j, key, UINT64_MAX - i);
      etk_json_kv_bool(&j, key, (int)i & 1);
    } else {
      etk_json_key(&j, key);
      etk_json_double(&j, values[i]);
      etk_json_key(&j, key);
      etk_json_int(&j, -(int64_t)i * 1000000007);
      etk_json_key(&j, key);
      etk_json_uint(&j, UINT64_MAX - i);
      etk_json_key(&j, key);
      etk_json_bool(&j, (int)i & 1);
    }
  }
  if (fused) {
    etk_json_kv_null(&j, key);
  } else {
    etk_json_key(&j, key);
    etk_json_null(&j);
  }
  return finish_document(&j, s);
}

ETK_TEST(json_key_value_calls_write_what_key_then_value_writes) {
  static const char *const keys[] = {"count", "", "q\"uote", "bad\xff"};
  for (int indent = 0; indent <= 2; indent += 2) {
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
      check_same_documents(members_document(indent, 0, keys[k]),
                           members_document(indent, 1, keys[k]));
    }
  }
  char *c = members_document(0, 1, "k");
  CHECK(c != NULL && strncmp(c,
                             "{\"outer\":{\"k\":\"plain\",\"k\":\"plain\","
                             "\"k\":\"q\\\"\\n\\ufffd\"",
                             48) == 0);
  free(c);
  /* a member where a value is due: the sticky state error */
  check_member_in_array_fails(write_key_value);
}

ETK_TEST(json_literal_keys_match_prepared_keys) {
  static const etk_json_prepared_key_t lit = ETK_JSON_KEY_LITERAL("p50 (ms)");
  etk_json_prepared_key_t k;
  etk_json_key_prepare(NULL, "p50 (ms)", &k);
  CHECK_EQ_INT((int)lit.len, (int)k.len);
  CHECK_EQ_INT((int)lit.key_len, (int)k.key_len);
  CHECK(memcmp(lit.text, k.text, sizeof k.text) == 0);
}

/* A document of three numbers: written by the writer, or (`raw`) the
 * middle one formatted by the caller into etk_json_value_room(). */
static char *numbers_document(int indent, int raw) {
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  etk_json_t j;
  etk_json_init(&j, s, indent);
  etk_json_begin_object(&j);
  etk_json_key(&j, "outer");
  etk_json_begin_object(&j);
  etk_json_key(&j, "v");
  etk_json_begin_array(&j);
  etk_json_double(&j, 0.25);
  if (raw) {
    char *p = etk_json_value_room(&j, ETK_FORMAT_DOUBLE_MAX);
    if (p) etk_render_commit(s, etk_json_format_double(&j, 1e-7, p));
  } else {
    etk_json_double(&j, 1e-7);
  }
  etk_json_double(&j, 1e-7);
  etk_json_end_array(&j);
  return finish_document(&j, s);
}

ETK_TEST(json_value_room_writes_what_the_writer_writes) {
  for (int indent = 0; indent <= 2; indent += 2)
    check_same_documents(numbers_document(indent, 0),
                         numbers_document(indent, 1));
  char *c = numbers_document(0, 1);
  CHECK_EQ_STR(c, "{\"outer\":{\"v\":[0.25,1e-07,1e-07]}}\n");
  free(c);
  /* a value where a key is due: the sticky state error, no room */
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  etk_json_t j;
  etk_json_init(&j, s, 0);
  etk_json_begin_object(&j);
  CHECK(etk_json_value_room(&j, 8) == NULL);
  CHECK_EQ_INT(j.status, ETK_E_INVALID_STATE);
  etk_render_sink_free(s);
  free(s);
}

ETK_TEST(json_plain_length_stops_at_what_needs_escaping) {
  CHECK_EQ_U64(etk_json_plain_length("abc", 3), 3);
  CHECK_EQ_U64(etk_json_plain_length("", 0), 0);
  CHECK_EQ_U64(etk_json_plain_length("a\"b", 3), 1);
  CHECK_EQ_U64(etk_json_plain_length("ab\\", 3), 2);
  CHECK_EQ_U64(etk_json_plain_length("ab\x01", 3), 2);
  CHECK_EQ_U64(etk_json_plain_length("\xc3\xa9", 2), 0);
  const char *longer = "native_call_op_000001.out and then \n";
  CHECK_EQ_U64(etk_json_plain_length(longer, strlen(longer)),
               strlen(longer) - 1);
  CHECK_EQ_U64(etk_json_plain_length(longer, 20), 20);
  /* the tail after whole words, bad or not at every position */
  for (size_t n = 9; n < 16; n++) {
    char text[16];
    memset(text, 'a', sizeof text);
    CHECK_EQ_U64(etk_json_plain_length(text, n), n);
    for (size_t bad = 0; bad < n; bad++) {
      text[bad] = bad & 1 ? '"' : (char)0x80;
      CHECK_EQ_U64(etk_json_plain_length(text, n), bad);
      text[bad] = 'a';
    }
  }
}

/* Two trace events, the second written whole by the caller when `raw`. */
static char *trace_document(int raw) {
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  etk_trace_writer_t w;
  etk_trace_writer_init(&w, s, NULL);
  for (int k = 0; k < 2; k++) {
    if (raw && k == 1) {
      static const char text[] =
          "{\"name\":\"b\",\"ph\":\"X\",\"ts\":0.5,"
          "\"pid\":1,\"tid\":2}";
      char *p = etk_trace_event_room(&w, sizeof text);
      if (p) {
        memcpy(p, text, sizeof text - 1);
        etk_trace_event_commit(&w, sizeof text - 1);
      }
      continue;
    }
    etk_trace_event_begin(&w, "X", k ? "b" : "a", 1, NULL, 1, 2, 0.5);
    etk_trace_event_end(&w);
  }
  CHECK_EQ_INT(etk_trace_writer_finish(&w), ETK_OK);
  size_t len;
  char *text = etk_render_sink_take(s, &len);
  free(s);
  return text;
}

ETK_TEST(trace_event_room_writes_what_begin_and_end_write) {
  check_same_documents(trace_document(0), trace_document(1));
  char *c = trace_document(1);
  CHECK(c != NULL && strstr(c, "}},\n{\"name\":\"b\"") == NULL &&
        strstr(c, "},\n{\"name\":\"b\",\"ph\":\"X\"") != NULL);
  free(c);
  /* out of order: the sticky state error */
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init_memory(s);
  etk_trace_writer_t w;
  etk_trace_writer_init(&w, s, NULL);
  etk_trace_event_begin(&w, "X", "a", 1, NULL, 1, 2, 0.5);
  CHECK(etk_trace_event_room(&w, 16) == NULL);
  CHECK_EQ_INT(w.status, ETK_E_INVALID_STATE);
  etk_render_sink_free(s);
  free(s);
}

static int failing_write(void *ctx, const char *d, size_t n) {
  (void)ctx;
  (void)d;
  (void)n;
  return 1;
}

ETK_TEST(sink_errors_are_sticky) {
  etk_render_sink_t *s = malloc(sizeof *s);
  etk_render_sink_init(s, failing_write, NULL);
  etk_render_puts(s, "x");
  CHECK_EQ_INT(etk_render_sink_flush(s), ETK_E_IO);
  etk_render_puts(s, "y");
  CHECK_EQ_INT(etk_render_sink_flush(s), ETK_E_IO);
  etk_render_sink_init(s, NULL, NULL); /* counting sink */
  etk_render_printf(s, "%d", 12345);
  CHECK_EQ_U64(s->bytes, 5);
  free(s);
}

ETK_TEST_MAIN()
