/*
 * cmd_graph_delegation.h - `etkit graph ETRECORD --delegation`
 * (cmd_graph_delegation.c), reached from cmd_graph.c.
 */
#ifndef ETKIT_CLI_CMD_GRAPH_DELEGATION_H
#define ETKIT_CLI_CMD_GRAPH_DELEGATION_H

/* True when argv holds --delegation (before a "--"). */
int cli_graph_wants_delegation(int argc, char **argv);

/* The command; its exit status. */
int cli_graph_delegation(int argc, char **argv);

#endif
