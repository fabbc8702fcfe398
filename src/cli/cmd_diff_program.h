/*
 * cmd_diff_program.h - the program half of `etkit diff` (cmd_diff_program.c):
 * cmd_diff.c hands its whole command line over when a file argument is a
 * program (cli_diff_is_programs).
 */
#ifndef ETKIT_CLI_CMD_DIFF_PROGRAM_H
#define ETKIT_CLI_CMD_DIFF_PROGRAM_H

/* 1 when an argument of argv[1..argc) that is not an option names a
 * program (.pte, .bpte) by its bytes and none names an ETDump (a program
 * and an ETDump both: -1, a usage error for the caller; the value of -o
 * is not looked at). */
int cli_diff_is_programs(int argc, char **argv);

/* `etkit diff A.pte B.pte [--format text|json]`; the gate's exit status:
 * 0 identical, 1 they differ, 2 trouble. */
int cli_diff_programs(int argc, char **argv);

#endif
