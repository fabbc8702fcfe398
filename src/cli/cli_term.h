/*
 * cli_term.h - text from a file made safe for a terminal (cli_term.c).
 */
#ifndef ETKIT_CLI_TERM_H
#define ETKIT_CLI_TERM_H

/* A malloc'd copy of `v` with C0 controls, DEL, C1 controls and the bidi
 * controls as visible escapes (\n, \t, \x1b, \u202e); NULL when out of
 * memory. */
char *etk_cli_term_text(const char *v);

/* Prints `sep`, then `v` escaped; "?" when out of memory. */
void etk_cli_print_term(const char *sep, const char *v);

#endif
