/*
 * cli_term.h - text from a file made safe for a terminal, and tables
 * fitted to its width (cli_term.c).
 */
#ifndef ETKIT_CLI_TERM_H
#define ETKIT_CLI_TERM_H

#include <stddef.h>

#include "etkit/render.h"

/* A malloc'd copy of `v` with C0 controls, DEL, C1 controls and the bidi
 * controls as visible escapes (\n, \t, \x1b, \u202e); NULL when out of
 * memory. */
char *etk_cli_term_text(const char *v);

/* Prints `sep`, then `v` escaped; "?" when out of memory. */
void etk_cli_print_term(const char *sep, const char *v);

/* A counting sink that keeps the widest line of what is rendered into it,
 * in code points (as a terminal shows the box-drawn tables): `widest`
 * after the render and etk_render_sink_flush(). */
typedef struct etk_cli_width {
  size_t line, widest;
} etk_cli_width_t;
void etk_cli_width_sink_init(etk_render_sink_t *s, etk_cli_width_t *w);

/* Renders a table whose name column is at most `name_width` code points
 * (render(ctx, name_width, sink, err)) so that it fits `limit` columns:
 * the table is made in memory, and while it is wider than `limit` (counted
 * as the width sink counts) the name column gives up the excess, down to
 * `min_name`; then it goes to `sink`.  The other columns' widths follow their
 * figures (a loaded machine's wider deltas), so a fixed name width cannot
 * promise the fit.  (Tables held as etk_store_table_t are fitted by
 * store_cli_fit.) */
typedef int (*etk_cli_named_table_fn)(void *ctx, size_t name_width,
                                      etk_render_sink_t *sink,
                                      etk_error_t *err);
int etk_cli_render_fitted(etk_cli_named_table_fn render, void *ctx,
                          size_t name_width, size_t min_name, size_t limit,
                          etk_render_sink_t *sink, etk_error_t *err);

#endif
