/*
 * commands.h - the subcommands of the `etkit` binary.
 *
 * Each subcommand lives in its own cmd_<name>.c and has the signature of
 * etk_command_fn: argv[0] is the subcommand name.  It returns the process
 * exit status: 0 success, 1 a failure reported on stderr as one line
 * ("etkit <cmd>: <what went wrong>"), 2 a usage error.  Gating commands
 * (below) follow the exit-status rule of docs/exit-status.md instead.
 */
#ifndef ETKIT_CLI_COMMANDS_H
#define ETKIT_CLI_COMMANDS_H

#include <stdio.h>

/* The exit-status rule of every gating command (`diff`, `numerics`,
 * `store compare`, `inspect --compare_results`, `run --verify`, the
 * program `diff`, and any new gate), as diff(1) and cmp(1):
 * docs/exit-status.md. */
enum {
  ETK_EXIT_OK = 0,      /* the gate holds / the inputs are identical */
  ETK_EXIT_DIFFER = 1,  /* the gate failed / the inputs differ */
  ETK_EXIT_TROUBLE = 2, /* usage, unreadable input, no matching runs,
                         * database errors: no verdict */
};

/* A gating command's exit status from the status of its work (0, or the
 * non-zero status of etk_cli_fail/etk_cli_usage: trouble) and whether
 * its gate failed: ETK_EXIT_TROUBLE, else ETK_EXIT_DIFFER, else OK. */
int etk_cli_gate_exit(int status, int gate_failed);

/* 1 for the runtime's framework events (Method::execute,
 * Program::load_method, ...): every dump of any program has them, so a gate
 * that compared only those compared nothing. */
int etk_cli_framework_event(const char *name);

typedef int (*etk_command_fn)(int argc, char **argv);

typedef struct etk_command {
  const char *name;
  etk_command_fn run;
  const char *summary;
} etk_command_t;

int etk_cmd_version(int argc, char **argv);
int etk_cmd_record_demo(int argc, char **argv);
int etk_cmd_graph(int argc, char **argv);
/* `etkit graph --html/--model-explorer/--node-data` (cmd_graph_view.c),
 * called by etk_cmd_graph(). */
int etk_cmd_graph_view(int argc, char **argv);
int etk_cmd_inspect(int argc, char **argv);
int etk_cmd_run(int argc, char **argv);
int etk_cmd_info(int argc, char **argv); /* cmd_info.c */
int etk_cmd_bundle(int argc, char **argv);
int etk_cmd_demo(int argc, char **argv);
/* Analyses (cmd_trace.c, cmd_diff.c, cmd_report.c, cmd_memory.c);
 * `etkit diff` is a gate (ETK_EXIT_*). */
int etk_cmd_trace(int argc, char **argv);
int etk_cmd_diff(int argc, char **argv);
int etk_cmd_report(int argc, char **argv);
int etk_cmd_memory(int argc, char **argv);

/* Numerical debugging (cmd_numerics.c): `etkit numerics` (A/B of the
 * values two traced runs logged; a gate: ETK_EXIT_DIFFER with --min-snr
 * when a value is below it).  `etkit inspect --compare_results` calls
 * etk_compare_results_inspector() (etkit/etrecord.h). */
int etk_cmd_numerics(int argc, char **argv);
/* `etkit numerics --gap ...` (cmd_numerics_gap.c): upstream's
 * calculate_numeric_gap from the ETRecord's graph; a gate with
 * --fail-above. */
int etk_cmd_numerics_gap(int argc, char **argv);

/* The STATS drift gate of both `etkit numerics` forms (cmd_numerics_gap.c):
 * 1 (one line: nothing compared, with `option` and `what` the pairing
 * that found nothing) when no value was compared, else 0 and *failed = 1
 * (one line counting them) when a row drifts. */
struct etk_stats_cmp;
int etk_cli_stats_gate(const struct etk_stats_cmp *rows, const char *option,
                       const char *what, int *failed);

/* Run history (cmd_store.c, cmd_store_compare.c): `etkit store ...`;
 * `compare` is a gate (ETK_EXIT_DIFFER: a significant slow-down above
 * --fail-above). */
int etk_cmd_store(int argc, char **argv);

/* `etkit capture SOURCE --output-dir DIR` (cmd_capture.c): files sent over
 * a byte pipe (etkit/capture.h); 1 when one is damaged or incomplete. */
int etk_cmd_capture(int argc, char **argv);

/* Prints "etkit <cmd>: <message>\n" to stderr; returns 1. */
int etk_cli_fail(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
