/*
 * cmd_graph_program.h - `etkit graph PROGRAM.pte|.bpte`: a program's
 * instruction graph without its ETRecord (cmd_graph_program.c), listed
 * here and drawn by cmd_graph_view.c.
 */
#ifndef ETKIT_CLI_CMD_GRAPH_PROGRAM_H
#define ETKIT_CLI_CMD_GRAPH_PROGRAM_H

#include <stdbool.h>

#include "etkit/graph.h"
#include "etkit/program.h"

/* True when `path` is a program or a bundled program (by its first
 * bytes). */
bool cli_graph_is_program(const char *path);

/* True when an argument (not an option, before a "--") is a program: the
 * command is about a program rather than an ETRecord. */
bool cli_graph_names_program(int argc, char **argv);

/* A program's graph and what it was read from. */
typedef struct cli_program_graph {
  etk_program_t *program;         /* a .pte, or NULL */
  etk_bundled_program_t *bundled; /* a .bpte, or NULL */
  etk_graph_t *graph;
} cli_program_graph_t;

/* Loads `path` (.pte or .bpte) and the graph of `method` (NULL: forward or
 * the first); `all` draws moves, frees and jumps too.  0, or 1 with the
 * error printed (nothing to free then). */
int cli_program_graph_load(const char *cmd, const char *path,
                           const char *method, bool all,
                           cli_program_graph_t *out);
void cli_program_graph_free(cli_program_graph_t *p);

/* `etkit graph PROGRAM` without --html/--model-explorer/--node-data: the
 * instruction listing.  Its exit status. */
int cli_graph_program(int argc, char **argv);

#endif
