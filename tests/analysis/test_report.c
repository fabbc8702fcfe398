/*
 * test_report.c - the HTML report: structure (every element closed in
 * order, attributes quoted, entities well formed), self-containment (no
 * script, no external resource, no event handler), escaping of hostile
 * names, the sections and their numbers; and the HTML escaping and table
 * primitives of the render library.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_fixtures.h"
#include "etk_test.h"
#include "etkit/inspector.h"
#include "render_capture.h"

/* ------------------------------------------------------- a strict checker */

static int is_void(const char *tag, size_t n) {
  static const char *const v[] = {"meta", "br", "img", "input", "link", "hr"};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (strlen(v[i]) == n && memcmp(v[i], tag, n) == 0) return 1;
  return 0;
}

/* Returns the number of problems found (printed as TAP comments). */
static int check_html(const char *h) {
  int problems = 0;
  const char *stack[128];
  size_t lens[128], sn = 0;
  const char *p = h;
  if (strncmp(p, "<!DOCTYPE html>", 15) != 0) {
    printf("# no doctype\n");
    return 1;
  }
  p += 15;
  while (*p) {
    if (*p == '&') {
      const char *q = p + 1;
      if (*q == '#') q++;
      while (isalnum((unsigned char)*q)) q++;
      if (*q != ';' || q == p + 1) {
        printf("# bare '&' at %ld\n", (long)(p - h));
        problems++;
      }
      p++;
      continue;
    }
    if (*p == '>') {
      printf("# bare '>' at %ld\n", (long)(p - h));
      problems++;
      p++;
      continue;
    }
    if (*p != '<') {
      p++;
      continue;
    }
    int closing = p[1] == '/';
    const char *name = p + 1 + closing;
    size_t n = 0;
    while (isalnum((unsigned char)name[n])) n++;
    if (n == 0) {
      printf("# '<' not starting a tag at %ld\n", (long)(p - h));
      problems++;
      p++;
      continue;
    }
    /* attributes: name="value" only, values without '<' or '"' */
    const char *q = name + n;
    int self_closing = 0;
    while (*q && *q != '>') {
      if (*q == '/' && q[1] == '>') {
        self_closing = 1;
        q++;
        break;
      }
      if (*q == ' ') {
        q++;
        continue;
      }
      const char *an = q;
      while (isalnum((unsigned char)*q) || *q == '-' || *q == ':') q++;
      if (q == an || *q != '=' || q[1] != '"') {
        printf("# malformed attribute at %ld\n", (long)(q - h));
        problems++;
        break;
      }
      if (q - an > 2 && (an[0] == 'o' && an[1] == 'n')) {
        printf("# event handler attribute at %ld\n", (long)(an - h));
        problems++;
      }
      /* nothing is loaded: no src, links only to anchors of the page */
      if ((q - an == 3 && memcmp(an, "src", 3) == 0) ||
          (q - an == 4 && memcmp(an, "href", 4) == 0 && q[2] != '#')) {
        printf("# external reference at %ld\n", (long)(an - h));
        problems++;
      }
      q += 2;
      while (*q && *q != '"') {
        if (*q == '<') {
          printf("# '<' inside an attribute at %ld\n", (long)(q - h));
          problems++;
        }
        q++;
      }
      if (*q == '"') q++;
    }
    if (*q != '>') {
      printf("# unterminated tag at %ld\n", (long)(p - h));
      return problems + 1;
    }
    if (closing) {
      if (sn == 0 || lens[sn - 1] != n || memcmp(stack[sn - 1], name, n) != 0) {
        printf("# </%.*s> closes <%.*s> at %ld\n", (int)n, name,
               sn ? (int)lens[sn - 1] : 0, sn ? stack[sn - 1] : "",
               (long)(p - h));
        problems++;
      } else {
        sn--;
      }
    } else if (!self_closing && !is_void(name, n)) {
      if (sn == 128) return problems + 1;
      stack[sn] = name;
      lens[sn++] = n;
    }
    p = q + 1;
  }
  if (sn) {
    printf("# %zu element(s) left open, first <%.*s>\n", sn, (int)lens[0],
           stack[0]);
    problems++;
  }
  return problems;
}

static size_t count(const char *h, const char *needle) {
  size_t n = 0;
  for (const char *p = h; (p = strstr(p, needle)) != NULL; p++) n++;
  return n;
}

/* Things a self-contained, script-free page must not contain. */
static void check_self_contained(const char *h) {
  CHECK(strstr(h, "<script") == NULL);
  CHECK(strstr(h, "javascript:") == NULL);
  CHECK(strstr(h, "url(") == NULL);
  CHECK(strstr(h, "@import") == NULL);
  CHECK(strstr(h, "<link") == NULL);
  CHECK(strstr(h, "<img") == NULL);
  /* the only URL is the SVG namespace name, which is never fetched */
  CHECK_EQ_INT(count(h, "http"),
               count(h, "xmlns=\"http://www.w3.org/2000/svg\""));
}

static char *report(uint8_t *bytes, size_t len, const char *path,
                    const etk_report_options_t *ro, etk_inspector_t **keep) {
  etk_inspector_options_t o;
  etk_inspector_options_init(&o);
  etk_inspector_t *insp = NULL;
  int ok;
  if (bytes) {
    o.etdump.copy = 1;
    ok = etk_inspector_open_memory(bytes, len, &o, &insp, NULL) == ETK_OK;
    free(bytes);
  } else {
    ok = etk_inspector_open_path(path, &o, &insp, NULL) == ETK_OK;
  }
  if (!ok) return NULL;
  etk_render_sink_t *s = etk_test_capture_new();
  char *out =
      etk_test_capture_finish(s, etk_report_write_html(insp, ro, s, NULL));
  if (keep)
    *keep = insp;
  else
    etk_inspector_close(insp);
  return out;
}

/* The report of a fixture (analysis_fixtures.h), NULL on failure. */
static char *report_fixture(uint8_t *(*make)(size_t *len),
                            const etk_report_options_t *ro) {
  size_t len = 0;
  uint8_t *bytes = make(&len);
  return bytes ? report(bytes, len, NULL, ro, NULL) : NULL;
}

ETK_TEST(tutorial_report_structure) {
  ETK_CONFORMANCE_PATH(path, "etdump_tutorial.etdp");
  etk_report_options_t ro;
  etk_report_options_init(&ro);
  ro.etdump_path = "etdump_tutorial.etdp";
  ro.etdump_bytes = 2320;
  ro.generator = "etkit test";
  char *h = report(NULL, 0, path, &ro, NULL);
  REQUIRE(h);
  CHECK_EQ_INT(check_html(h), 0);
  check_self_contained(h);
  static const char *const ids[] = {"id=\"file\"", "id=\"summary\"",
                                    "id=\"timeline\"", "id=\"events\"",
                                    "id=\"memory\""};
  for (size_t i = 0; i < 5; i++) CHECK_EQ_INT(count(h, ids[i]), 1);
  CHECK_EQ_INT(count(h, "<svg"), 2);
  CHECK(strstr(h,
               "<th>size (bytes)</th><td class=\"n\" "
               "style=\"text-align:left\">2320</td>") != NULL);
  CHECK(strstr(h,
               "<th>profile events</th><td class=\"n\" "
               "style=\"text-align:left\">31</td>") != NULL);
  CHECK(strstr(h,
               "<h3>block 1: Execute <span class=\"note\">(1 run, 29 "
               "events)</span></h3>") != NULL);
  /* events table: header + 31 rows */
  const char *ev = strstr(h, "<table class=\"events\">");
  REQUIRE(ev);
  const char *ev_end = strstr(ev, "</table>");
  size_t rows = 0;
  for (const char *p = ev; (p = strstr(p, "<tr>")) && p < ev_end; p++) rows++;
  CHECK_EQ_INT(rows, 32);
  /* summary: the operator types of the tutorial model with their share */
  /* with the colour of its type, the same as in the timeline legend */
  const char *conv =
      strstr(h, "</span>convolution.out</td><td class=\"n\">2</td>");
  CHECK(conv != NULL);
  CHECK(strstr(h, "</span>convolution<span") != NULL ||
        strstr(h, "</span>convolution<") != NULL);
  /* readable units, few digits: no number cell with a fraction shows more
   * than 3 significant digits (0.0096 is fine, 0.00961 and 1.234 are not) */
  CHECK(strstr(h, "<th>total (ms)</th>") != NULL);
  size_t long_numbers = 0;
  for (const char *p = h; (p = strstr(p, "<td class=\"n\">")) != NULL; p++) {
    const char *q = p + 14, *end = strchr(q, '<');
    const char *dot = strchr(q, '.');
    if (!end || !dot || dot > end) continue;
    size_t digits = 0;
    int leading = 1;
    for (const char *c = q; c < end; c++) {
      if (*c < '0' || *c > '9') continue;
      if (leading && *c == '0') continue;
      leading = 0;
      digits++;
    }
    if (digits > 3 && end - dot > 1) long_numbers++;
  }
  CHECK_EQ_INT(long_numbers, 0);
  CHECK_CONTAINS(h, "<tr><td><i>framework overhead</i></td>",
                 "No allocation events");
  CHECK(strstr(h, "Incomplete recording") == NULL);
  CHECK(strstr(h, "generated by etkit test") != NULL);
  free(h);

  /* a cap on the timeline keeps the longest slices and says so */
  ro.max_timeline_events = 5;
  ro.max_event_rows = 10;
  h = report(NULL, 0, path, &ro, NULL);
  REQUIRE(h);
  CHECK_CONTAINS(h, "5 slices drawn (the 5 longest of 29)",
                 "first 10 of 31 events shown");
  CHECK_EQ_INT(check_html(h), 0);
  free(h);
}

ETK_TEST(hostile_names_are_escaped) {
  etk_report_options_t ro;
  etk_report_options_init(&ro);
  ro.etdump_path = "<evil path>.etdp";
  ro.title = "title </title><script>x</script>";
  char *h = report_fixture(afx_hostile, &ro);
  REQUIRE(h);
  CHECK_EQ_INT(check_html(h), 0);
  check_self_contained(h);
  CHECK_CONTAINS(h, "&lt;script&gt;alert(1)&lt;/script&gt;",
                 "a&quot;b&#39;c&amp;d&lt;e&gt;",
                 "&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;", "new\\nline",
                 "tab\\tx", "\\x1b[31mred", "bidi\\u202eevil");
  CHECK(strstr(h, "\xe2\x80\xae") == NULL);
  CHECK(strstr(h, "\x1b") == NULL);
  CHECK_CONTAINS(h, "&lt;img src=x onerror=alert(1)&gt;",
                 "&lt;b&gt;run&lt;/b&gt; &amp; &quot;co&quot;");
  CHECK(strstr(h,
               "<title>title "
               "&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title>") != NULL);
  CHECK(strstr(h, "&lt;evil path&gt;.etdp") != NULL);
  free(h);
}

ETK_TEST(model_report_delegates_and_memory) {
  char *h = report_fixture(afx_model, NULL);
  REQUIRE(h);
  CHECK_EQ_INT(check_html(h), 0);
  check_self_contained(h);
  /* every run is drawn: one load run and two execute runs */
  CHECK_EQ_INT(count(h, "<svg"), 3);
  CHECK_CONTAINS(h, "delegated events in the lower lanes",
                 "<td>wrapper (DELEGATE_CALL)</td>");
  /* memory: temp_allocator peak 48 per run, 4 allocations in 2 runs */
  CHECK(
      strstr(h,
             "<tr><td>Execute</td><td>temp_allocator</td><td class=\"n\">1</td>"
             "<td class=\"n\">2 / 2</td><td class=\"n\">4</td><td "
             "class=\"n\">96</td>"
             "<td class=\"n\">48</td><td class=\"n\">32</td>") != NULL);
  CHECK(strstr(h, "<b>cumulative</b>") != NULL);
  CHECK(
      strstr(
          h,
          "<tr><td class=\"n\">4096</td><td>Default</td><td class=\"n\">0</td>"
          "<td>planned_memory</td><td "
          "class=\"n\">0</td><td>Method::init</td></tr>") != NULL);
  free(h);
}

ETK_TEST(dropped_events_warning) {
  char *h = report_fixture(afx_dropped, NULL);
  REQUIRE(h);
  CHECK_EQ_INT(check_html(h), 0);
  CHECK(strstr(h,
               "Incomplete recording.</b> The recorder's buffer filled: 17 "
               "event(s), "
               "2 block(s) were dropped (marker run 1).") != NULL);
  free(h);
}

ETK_TEST(wrap_fixture_timeline_notes) {
  char *h = report_fixture(afx_wrap, NULL);
  REQUIRE(h);
  CHECK_EQ_INT(check_html(h), 0);
  CHECK(strstr(h, "4 slices drawn; 1 event without an end time not drawn") !=
        NULL);
  CHECK(strstr(h, "32-bit tick wrap") != NULL);
  free(h);
}

/* ------------------------------------------------------- html primitives */

static char *escape(const char *s, size_t n) {
  etk_render_sink_t *k = etk_test_capture_new();
  etk_html_text(k, s, n);
  char *out = etk_test_capture_finish(k, ETK_OK);
  return out ? out : calloc(1, 1);
}

ETK_TEST(html_text_escaping) {
  char *e = escape("<a href='x'>&\"</a>", 18);
  CHECK_EQ_STR(e, "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  free(e);
  e = escape("\xc3\xbc\xe2\x9c\x93 ok", 8);
  CHECK_EQ_STR(e, "\xc3\xbc\xe2\x9c\x93 ok");
  free(e);
  /* invalid UTF-8: a lone continuation, an overlong '/', a surrogate, a
   * truncated sequence */
  e = escape(
      "a\x80"
      "b\xc0\xaf"
      "c\xed\xa0\x80"
      "d\xe2\x9c",
      12);
  CHECK_EQ_STR(e,
               "a\xef\xbf\xbd"
               "b\xef\xbf\xbd\xef\xbf\xbd"
               "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
               "d\xef\xbf\xbd\xef\xbf\xbd");
  free(e);
  e = escape("x\0y\x7f\xc2\x85z\xe2\x80\xa8", 10);
  CHECK_EQ_STR(e, "x\\x00y\\x7f\\x85z\\u2028");
  free(e);
}

static int cell3(void *ctx, size_t row, size_t col, etk_cell_t *out,
                 etk_strbuf_t *b) {
  (void)ctx;
  (void)b;
  if (col == 0)
    etk_cell_set_text(out, row ? "<x>" : "a&b", 3);
  else if (col == 1)
    etk_cell_set_float(out, row ? 0.5 : 1234567.0);
  else if (row)
    etk_cell_set_none(out);
  else
    etk_cell_set_int(out, -3);
  return ETK_OK;
}

ETK_TEST(html_table) {
  static const char *const headers[] = {"name", "t <ms>", "n"};
  etk_frame_t f = {2, 3, headers, cell3, NULL, 1};
  etk_render_sink_t *k = etk_test_capture_new();
  char *h =
      etk_test_capture_finish(k, etk_render_html_table(&f, "c\"x", k, NULL));
  CHECK(h != NULL);
  CHECK_EQ_STR(
      h,
      "<table class=\"c&quot;x\"><thead><tr><th></th><th>name</th>"
      "<th>t &lt;ms&gt;</th><th>n</th></tr></thead>\n<tbody>\n"
      "<tr><td class=\"n\">0</td><td>a&amp;b</td><td "
      "class=\"n\">1.23457e+06</td>"
      "<td class=\"n\">-3</td></tr>\n"
      "<tr><td class=\"n\">1</td><td>&lt;x&gt;</td><td class=\"n\">0.5</td>"
      "<td></td></tr>\n</tbody></table>\n");
  free(h);
}

ETK_TEST_MAIN()
