/*
 * html.c - HTML text escaping and etk_frame_t tables as HTML.
 *
 * PURPOSE
 *   `etkit report` writes one self-contained HTML page from names that come
 *   straight out of untrusted files (operator names, run names, delegate
 *   ids, ETRecord strings).  Everything that is not markup we wrote goes
 *   through etk_html_text(), which is safe in element content AND in quoted
 *   attribute values, so a name like `<script>` or `" onload="` is shown,
 *   never interpreted.
 *
 * ESCAPING RULES (one pass, no allocation)
 *   - & < > " ' become &amp; &lt; &gt; &quot; &#39;;
 *   - control characters (C0 including tab and newline, DEL, C1), the line
 *     and paragraph separators and the bidi controls (U+061C, U+200E/F,
 *     U+202A-E, U+2066-9) are shown as visible escapes (\t \n \r \x1b
 *     \u202e), the same convention as the text table, so a name cannot
 *     hide text or reorder a line;
 *   - bytes that are not valid UTF-8 (overlong forms, surrogates, code
 *     points above U+10FFFF, truncated sequences) become U+FFFD;
 *   - everything else is copied as is (the page is declared UTF-8).
 *
 * TABLES
 *   etk_render_html_table() pulls cells from the frame once each, in row
 *   order, so a large frame streams.  Numbers get class "n" (right-aligned
 *   by the page's CSS) and Python "g" formatting like the text table.
 */
#include <string.h>

#include "etkit/render.h"

static int html_is_control(uint32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
         c == 0x061C || c == 0x200E || c == 0x200F ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

/* Decodes one UTF-8 sequence at u[0..len); returns its length, or 0 when
 * the bytes are not a valid, shortest-form sequence. */
static size_t utf8_decode(const unsigned char *u, size_t len, uint32_t *cp) {
  unsigned c = u[0];
  size_t n = (c & 0xE0) == 0xC0   ? 2
             : (c & 0xF0) == 0xE0 ? 3
             : (c & 0xF8) == 0xF0 ? 4
                                  : 0;
  if (n == 0 || n > len) return 0;
  uint32_t v = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; k++) {
    if ((u[k] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (u[k] & 0x3F);
  }
  static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < min[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

void etk_html_text(etk_render_sink_t *s, const char *text, size_t len) {
  static const char hex[] = "0123456789abcdef";
  if (!s || !text) return;
  const unsigned char *u = (const unsigned char *)text;
  size_t run = 0, i = 0;
  while (i < len) {
    unsigned c = u[i];
    const char *entity = NULL;
    if (c >= 0x20 && c < 0x7F) {
      switch (c) {
        case '&':
          entity = "&amp;";
          break;
        case '<':
          entity = "&lt;";
          break;
        case '>':
          entity = "&gt;";
          break;
        case '"':
          entity = "&quot;";
          break;
        case '\'':
          entity = "&#39;";
          break;
        default:
          i++;
          continue;
      }
      etk_render_put(s, text + run, i - run);
      etk_render_puts(s, entity);
      run = ++i;
      continue;
    }
    uint32_t cp = c;
    size_t n = 1;
    if (c >= 0x80) {
      n = utf8_decode(u + i, len - i, &cp);
      if (n == 0) { /* invalid byte: U+FFFD, resynchronise on the next byte */
        etk_render_put(s, text + run, i - run);
        etk_render_puts(s, "\xEF\xBF\xBD");
        run = ++i;
        continue;
      }
    }
    if (!html_is_control(cp)) {
      i += n;
      continue;
    }
    etk_render_put(s, text + run, i - run);
    char esc[8];
    size_t e = 0;
    esc[e++] = '\\';
    if (cp == '\t')
      esc[e++] = 't';
    else if (cp == '\n')
      esc[e++] = 'n';
    else if (cp == '\r')
      esc[e++] = 'r';
    else if (cp < 0x100) {
      esc[e++] = 'x';
      esc[e++] = hex[cp >> 4];
      esc[e++] = hex[cp & 15];
    } else {
      esc[e++] = 'u';
      for (int k = 3; k >= 0; k--) esc[e++] = hex[(cp >> (4 * k)) & 15];
    }
    etk_render_put(s, esc, e);
    i += n;
    run = i;
  }
  etk_render_put(s, text + run, len - run);
}

void etk_html_texts(etk_render_sink_t *s, const char *text) {
  if (text) etk_html_text(s, text, strlen(text));
}

/* Writes one cell's content; numbers report themselves through *numeric. */
static void html_cell(etk_render_sink_t *s, const etk_cell_t *c, int *numeric) {
  char num[ETK_FORMAT_DOUBLE_MAX];
  *numeric = 0;
  switch (c->kind) {
    case ETK_CELL_NONE:
      break;
    case ETK_CELL_NAN:
      *numeric = 1;
      etk_render_puts(s, "nan");
      break;
    case ETK_CELL_FLOAT:
      *numeric = 1;
      etk_render_put(s, num, etk_format_double_g(c->f, num));
      break;
    case ETK_CELL_INT:
      *numeric = 1;
      etk_render_put(s, num, etk_format_int(c->i, num));
      break;
    case ETK_CELL_BOOL:
      etk_render_puts(s, c->i ? "True" : "False");
      break;
    default:
      etk_html_text(s, c->text ? c->text : "", c->text ? c->len : 0);
      break;
  }
}

int etk_render_html_table(const etk_frame_t *f, const char *css_class,
                          etk_render_sink_t *sink, etk_error_t *err) {
  if (!f || !sink || (f->cols && (!f->headers || !f->cell)))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "html table: NULL frame, headers or cell callback");
  etk_render_puts(sink, "<table");
  if (css_class && *css_class) {
    etk_render_puts(sink, " class=\"");
    etk_html_texts(sink, css_class);
    etk_render_putc(sink, '"');
  }
  etk_render_puts(sink, "><thead><tr>");
  if (f->show_index) etk_render_puts(sink, "<th></th>");
  for (size_t c = 0; c < f->cols; c++) {
    etk_render_puts(sink, "<th>");
    etk_html_texts(sink, f->headers[c]);
    etk_render_puts(sink, "</th>");
  }
  etk_render_puts(sink, "</tr></thead>\n<tbody>\n");
  etk_strbuf_t scratch;
  etk_strbuf_init(&scratch);
  int rc = ETK_OK;
  char num[24];
  for (size_t r = 0; r < f->rows && rc == ETK_OK; r++) {
    etk_render_puts(sink, "<tr>");
    if (f->show_index) {
      etk_render_puts(sink, "<td class=\"n\">");
      etk_render_put(sink, num, etk_format_uint(r, num));
      etk_render_puts(sink, "</td>");
    }
    for (size_t c = 0; c < f->cols; c++) {
      etk_cell_t cell;
      memset(&cell, 0, sizeof cell);
      etk_strbuf_clear(&scratch);
      rc = f->cell(f->ctx, r, c, &cell, &scratch);
      if (rc != ETK_OK) break;
      if (scratch.failed) {
        rc = ETK_E_NO_MEMORY;
        break;
      }
      /* The class attribute must precede the content: numbers are known
       * from the cell kind alone. */
      int numeric = cell.kind == ETK_CELL_FLOAT || cell.kind == ETK_CELL_INT ||
                    cell.kind == ETK_CELL_NAN;
      etk_render_puts(sink, numeric ? "<td class=\"n\">" : "<td>");
      html_cell(sink, &cell, &numeric);
      etk_render_puts(sink, "</td>");
    }
    etk_render_puts(sink, "</tr>\n");
  }
  etk_strbuf_free(&scratch);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "html table: cell (%s)",
                         etk_strerror(rc));
  etk_render_puts(sink, "</tbody></table>\n");
  if (sink->status != ETK_OK)
    return etk_error_set(err, sink->status, ETK_NO_OFFSET, "html table: %s",
                         etk_strerror(sink->status));
  return ETK_OK;
}
