/*
 * test_cli_fit.c - etk_cli_render_fitted (src/cli/cli_term.c): a table
 * whose other columns are wide (a loaded machine's long deltas) still fits
 * its width, by cutting the name column; one that cannot fit stops at the
 * shortest name; the width sink counts code points, not bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_term.h"

static int failures;
#define CHECK(c)                                                     \
  do {                                                               \
    if (!(c)) {                                                      \
      fprintf(stderr, "%s:%d: FAILED %s\n", __FILE__, __LINE__, #c); \
      failures++;                                                    \
    }                                                                \
  } while (0)

typedef struct fixture {
  const char *figure; /* the other column's text */
  size_t last_name;   /* the name width of the last render */
  int renders;
} fixture_t;

static const char long_name[] = "native_call_max_pool2d_with_indices.out";

static int cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                etk_strbuf_t *scratch) {
  fixture_t *f = ctx;
  (void)row;
  (void)scratch;
  if (col == 0) {
    size_t n = strlen(long_name);
    size_t keep = n < f->last_name ? n : f->last_name;
    etk_cell_set_text(out, long_name + n - keep, keep);
  } else {
    etk_cell_set_text(out, f->figure, strlen(f->figure));
  }
  return ETK_OK;
}

static int table(void *ctx, size_t name_width, etk_render_sink_t *sink,
                 etk_error_t *err) {
  fixture_t *f = ctx;
  static const char *const headers[] = {"name", "95 % CI"};
  f->last_name = name_width;
  f->renders++;
  etk_frame_t fr = {3, 2, headers, cell, f, 0};
  return etk_render_table(&fr, sink, err);
}

static char *fitted(fixture_t *f, size_t limit, size_t *len) {
  etk_render_sink_t mem;
  etk_render_sink_init_memory(&mem);
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_cli_render_fitted(table, f, 30, 10, limit, &mem, &err);
  CHECK(rc == ETK_OK);
  char *text = etk_render_sink_take(&mem, len);
  etk_render_sink_free(&mem);
  return text;
}

/* The widest line of s[0..len), through the width sink. */
static size_t text_width(const char *s, size_t len) {
  etk_cli_width_t w;
  etk_render_sink_t sink;
  etk_cli_width_sink_init(&sink, &w);
  etk_render_put(&sink, s, len);
  CHECK(etk_render_sink_flush(&sink) == ETK_OK);
  return w.widest;
}

int main(void) {
  size_t len;
  /* "│" and "═" are 3 bytes and one column each */
  CHECK(text_width("\xe2\x94\x82 ab \xe2\x94\x82\nabc\n", 14) == 6);
  CHECK(text_width("abcd", 4) == 4);
  CHECK(text_width("", 0) == 0);

  /* narrow figures: the first render fits, names keep 30 */
  fixture_t a = {"[+1.0, +2.0]", 0, 0};
  char *t = fitted(&a, 80, &len);
  CHECK(t && text_width(t, len) <= 80);
  CHECK(a.renders == 1 && a.last_name == 30);
  free(t);

  /* wide figures: 30-column names would take 30 + 40 + 7 = 77 > 70, so
   * the names give up the excess and the table fits */
  fixture_t b = {"[-12345.6, +1234567.8] % with a long note", 0, 0};
  t = fitted(&b, 70, &len);
  CHECK(t && text_width(t, len) <= 70);
  CHECK(b.renders >= 2 && b.last_name < 30 && b.last_name >= 10);
  free(t);

  /* cannot fit: stops at the shortest name, still a whole table */
  fixture_t c = {"[-12345.6, +1234567.8] % with a much longer note, wider", 0,
                 0};
  t = fitted(&c, 40, &len);
  CHECK(t && c.last_name == 10 && strstr(t, "\xe2\x95\x9b") != NULL);
  free(t);

  if (failures) return 1;
  printf("cli_fit: all checks passed\n");
  return 0;
}
