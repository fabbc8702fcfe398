/*
 * cli_term.c - text from a file made safe for a terminal.  Names in
 * ETRecords and ETDumps are the file's bytes: a node named with an escape
 * sequence would otherwise set the window title or move the cursor when
 * `etkit graph` lists it.  Control and bidi characters are printed as
 * visible escapes instead, as the tables of etkit/render.h do.  Also the
 * one line on stderr that names a file a command wrote, and the fit of a
 * narrow table to the terminal's 120 columns (etk_cli_render_fitted).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_term.h"

/* A copy of `v` safe to print on a terminal: C0 controls, DEL, C1
 * controls and the bidi controls (U+202A..U+202E, U+2066..U+2069) as
 * visible escapes (\n, \t, \x1b, \u202e), so a node name cannot set the
 * window title, move the cursor or reorder the line; malloc'd. */
char *etk_cli_term_text(const char *v) {
  size_t n = strlen(v);
  char *out = malloc(6 * n + 1), *o = out;
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)v[i];
    unsigned char c1 = i + 1 < n ? (unsigned char)v[i + 1] : 0;
    unsigned char c2 = i + 2 < n ? (unsigned char)v[i + 2] : 0;
    if (c == '\n' || c == '\t' || c == '\r') {
      *o++ = '\\';
      *o++ = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
    } else if (c < 0x20 || c == 0x7f) {
      o += sprintf(o, "\\x%02x", c);
    } else if (c == 0xc2 && c1 >= 0x80 && c1 <= 0x9f) { /* C1 */
      o += sprintf(o, "\\x%02x", c1);
      i++;
    } else if (c == 0xe2 && ((c1 == 0x80 && c2 >= 0xaa && c2 <= 0xae) ||
                             (c1 == 0x81 && c2 >= 0xa6 && c2 <= 0xa9))) {
      o += sprintf(o, "\\u%04x", 0x2000 + ((c1 & 0x3f) << 6) + (c2 & 0x3f));
      i += 2;
    } else {
      *o++ = (char)c;
    }
  }
  *o = 0;
  return out;
}

/* Prints `sep` and `v` escaped (etk_cli_term_text). */
void etk_cli_print_term(const char *sep, const char *v) {
  char *t = etk_cli_term_text(v ? v : "");
  printf("%s%s", sep, t ? t : "?");
  free(t);
}

void etk_cli_say_wrote(const char *cmd, const char *path, const char *fmt,
                       ...) {
  if (!path || strcmp(path, "-") == 0) return;
  fprintf(stderr, "etkit %s: wrote %s", cmd, path);
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    fputs(": ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
  }
  fputc('\n', stderr);
}

static int count_width(void *ctx, const char *data, size_t len) {
  etk_cli_width_t *w = ctx;
  for (size_t i = 0; i < len; i++) {
    if (data[i] == '\n') {
      w->line = 0;
    } else if (((unsigned char)data[i] & 0xc0u) != 0x80u &&
               ++w->line > w->widest) {
      w->widest = w->line;
    }
  }
  return 0;
}

void etk_cli_width_sink_init(etk_render_sink_t *s, etk_cli_width_t *w) {
  w->line = w->widest = 0;
  etk_render_sink_init(s, count_width, w);
}

int etk_cli_render_fitted(etk_cli_named_table_fn render, void *ctx,
                          size_t name_width, size_t min_name, size_t limit,
                          etk_render_sink_t *sink, etk_error_t *err) {
  for (;;) { /* each try in memory, so the one that fits is rendered once */
    etk_render_sink_t mem;
    etk_render_sink_init_memory(&mem);
    int rc = render(ctx, name_width, &mem, err);
    size_t len = 0;
    char *text = rc == ETK_OK ? etk_render_sink_take(&mem, &len) : NULL;
    etk_render_sink_free(&mem);
    if (rc != ETK_OK) return rc;
    if (!text)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory rendering a table");
    etk_cli_width_t w = {0, 0};
    (void)count_width(&w, text, len);
    if (w.widest > limit && name_width > min_name) {
      size_t cut = w.widest - limit;
      name_width = name_width - min_name > cut ? name_width - cut : min_name;
      free(text);
      continue;
    }
    etk_render_put(sink, text, len);
    free(text);
    return sink->status;
  }
}
