/*
 * main.c - entry point of the `etkit` command: dispatches to subcommands.
 *
 * The table below is the whole list of subcommands; each one is
 * implemented in cmd_<name>.c (see commands.h for the contract).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "commands.h"
#include "etkit/common.h"

static const etk_command_t commands[] = {
    {"version", etk_cmd_version, "print the etkit version"},
    {"record-demo", etk_cmd_record_demo,
     "record a synthetic model run with the recorder and describe the ETDump"},
    {"graph", etk_cmd_graph,
     "list the edge program of an ETRecord (ops, handles, modules, sources)"},
    {"inspect", etk_cmd_inspect,
     "tabulate an ETDump like upstream's Inspector (table, TSV, CSV, JSON)"},
    {"info", etk_cmd_info,
     "what a file is; a program's methods with input/output dtypes, shapes"},
    {"run", etk_cmd_run,
     "run a .pte (or the test cases of a .bpte) on the reference runtime"},
    {"bundle", etk_cmd_bundle, "make a bundled program (.bpte) from a .pte"},
    {"demo", etk_cmd_demo,
     "build, run and trace a small CNN; write .pte/.etdp/.etrecord files"},
    {"trace", etk_cmd_trace,
     "write an ETDump timeline for Perfetto / chrome://tracing (JSON)"},
    {"diff", etk_cmd_diff,
     "compare two ETDumps per operator, or two programs (CI exit status)"},
    {"report", etk_cmd_report,
     "write a self-contained HTML report of an ETDump"},
    {"memory", etk_cmd_memory,
     "a program's memory plan (map, peak, lifetimes, overlaps) or an "
     "ETDump's allocation events"},
    {"numerics", etk_cmd_numerics,
     "compare the values two traced runs logged (MSE, SNR per instruction)"},
    {"store", etk_cmd_store,
     "keep runs in SQLite/PostgreSQL; trends and noise-aware comparisons"},
    {"capture", etk_cmd_capture,
     "recover ETDumps, debug buffers, outputs sent over a UART or in a log"},
};

int etk_cli_fail(const char *cmd, const char *fmt, ...) {
  fprintf(stderr, "etkit %s: ", cmd);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 1;
}

int etk_cli_gate_exit(int status, int gate_failed) {
  if (status) return ETK_EXIT_TROUBLE;
  return gate_failed ? ETK_EXIT_DIFFER : ETK_EXIT_OK;
}

int etk_cli_framework_event(const char *name) {
  return strncmp(name, "Method::", 8) == 0 ||
         strncmp(name, "Program::", 9) == 0;
}

static void usage(FILE *out) {
  fprintf(out, "usage: etkit <command> [options]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
  fprintf(out,
          "\n'etkit <command> --help' describes a command.  Gates (diff, "
          "numerics,\nstore compare, inspect --compare_results, run --verify) "
          "exit 0 when the\ncheck holds, 1 when it fails, 2 on trouble "
          "(docs/exit-status.md).\n");
}

int main(int argc, char **argv) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
  /* Large arrays (columns, rows, per-event flags) get their own mappings
   * and go back to the system when freed: glibc would otherwise raise its
   * threshold after the first such free and keep later ones in the heap,
   * resident after they are freed. */
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
  etk_outfile_cleanup_on_signals(); /* no NAME.tmp.<pid> left on Ctrl-C */
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "help") == 0 && argc > 2) { /* etkit help inspect */
    char help[] = "--help";
    char *args[] = {argv[2], help, NULL};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
      if (strcmp(argv[2], commands[i].name) == 0)
        return commands[i].run(2, args);
    fprintf(stderr, "etkit: unknown command '%s' (try 'etkit --help')\n",
            argv[2]);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) return etk_cmd_version(1, argv + 1);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "etkit: unknown command '%s' (try 'etkit --help')\n",
          argv[1]);
  return 2;
}
