/*
 * cmd_run_args.c - the arguments of `etkit run`: its help text, its option
 * table (read by the shared parser of cli_args.c) and the checks between
 * options.  The debug level defaults to outputs when a debug buffer is
 * given, and a debug level without --debug-buffer gets a buffer next to the
 * ETDump (X.debug.bin).  Nothing here opens a file.
 */
#include "cmd_run_args.h"

#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "etkit/program.h"

static const char *const usage_text =
    "usage: etkit run PROGRAM [options]\n"
    "\n"
    "Runs a program (.pte) or the test cases of a bundled program (.bpte)\n"
    "on etkit's reference runtime.\n"
    "\n"
    "options:\n"
    "  --method NAME          method to run (default: forward, or the first)\n"
    "  --iterations N         executions (per test case for a .bpte; default "
    "1)\n"
    "  --input FILE.npy       an input, once per method input (default: ones)\n"
    "  --inputs-from ETRECORD the ETRecord's representative inputs (those\n"
    "                         `etkit numerics --gap` compares against)\n"
    "  --output-dir DIR       write the outputs as .npy files into DIR\n"
    "  --etdump FILE          trace the runs into an ETDump (.etdp)\n"
    "  --debug-buffer FILE    write logged tensor bytes to FILE (default with "
    "a\n"
    "                         debug level: next to the ETDump, X.debug.bin)\n"
    "  --debug-level L        none | outputs | intermediates | stats "
    "(default:\n"
    "                         none, or outputs when --debug-buffer is given;\n"
    "                         stats: what intermediates logs, each tensor as\n"
    "                         its 13-value STATS vector, 128 bytes whatever\n"
    "                         its size)\n"
    "  --profile-level L      method | all (default: all)\n"
    "  --no-calibrate         skip measuring the recorder's own cost (by\n"
    "                         default the ETDump carries it for `etkit\n"
    "                         inspect --compensate`)\n"
    "  --warmup N             untimed, untraced runs first (default 0)\n"
    "  --allocation-events    record allocators and allocations (default:\n"
    "                         none, as upstream; its Inspector stops on them)\n"
    "  --verify               (.bpte) a gate: exit 1 if a test case does not\n"
    "                         match, 2 on trouble (docs/exit-status.md)\n"
    "  --rtol X, --atol Y     tolerances (default 1e-05 and 1e-08)\n"
    "  --max-memory BYTES     most memory the method may take (planned\n"
    "                         buffers and arena; suffix K, M, G; default "
    "1G)\n" CLI_FLIGHT_USAGE
    "on an emulated Cortex-M board (QEMU; docs/device.md):\n"
    "  --target BOARD         run there: mps2-an385 (M3), mps2-an386 (M4F),\n"
    "                         mps3-an547 (M55); 'help' lists them; times\n"
    "                         are emulated CPU cycles\n"
    "  --timeout S            kill QEMU after S seconds (exit 2)\n"
    "  --firmware ELF         another firmware image than the installed one\n"
    "  --transport T          semihosting (default) | uart (framed dumps over\n"
    "                         the board's UART, decoded as etkit capture "
    "does)\n"
    "  --keep-log FILE        keep the raw serial bytes\n"
    "  -h, --help             this help\n";

enum {
  OPT_ITERATIONS = 1,
  OPT_WARMUP,
  OPT_INPUT,
  OPT_DEBUG_LEVEL,
  OPT_PROFILE_LEVEL,
  OPT_RTOL,
  OPT_ATOL,
  OPT_MAX_MEMORY,
};

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("method", 0, options_t, method),
    {"iterations", 0, ETK_CLI_VALUE, OPT_ITERATIONS, 0},
    {"warmup|warm_up", 0, ETK_CLI_VALUE, OPT_WARMUP, 0},
    ETK_CLI_FLAG("allocation_events", 0, options_t, allocation_events),
    {"input", 0, ETK_CLI_VALUE, OPT_INPUT, 0},
    ETK_CLI_STRING("inputs_from", 0, options_t, inputs_from),
    ETK_CLI_STRING("output_dir", 0, options_t, output_dir),
    ETK_CLI_STRING("etdump|etdump_path", 0, options_t, etdump),
    ETK_CLI_STRING("debug_buffer|debug_buffer_path", 0, options_t,
                   debug_buffer),
    {"debug_level", 0, ETK_CLI_VALUE, OPT_DEBUG_LEVEL, 0},
    {"profile_level", 0, ETK_CLI_VALUE, OPT_PROFILE_LEVEL, 0},
    ETK_CLI_FLAG("no_allocation_events", 0, options_t, no_allocation_events),
    ETK_CLI_FLAG("verify", 0, options_t, verify),
    ETK_CLI_FLAG("no_calibrate", 0, options_t, no_calibrate),
    {"rtol", 0, ETK_CLI_VALUE, OPT_RTOL, 0},
    {"atol", 0, ETK_CLI_VALUE, OPT_ATOL, 0},
    {"max_memory", 0, ETK_CLI_VALUE, OPT_MAX_MEMORY, 0},
    CLI_FLIGHT_OPTIONS,
};

/* The index of `v` in the NULL-terminated `names`, or -1. */
static int choice(const char *v, const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (strcmp(v, names[i]) == 0) return i;
  return -1;
}

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  static const char *const debug_levels[] = {"none", "outputs", "intermediates",
                                             "stats", NULL};
  static const char *const profile_levels[] = {"method", "all", NULL};
  options_t *o = ctx;
  const char *v = p->value;
  size_t n;
  if (id >= CLI_FLIGHT_OPT_MODE && id <= CLI_FLIGHT_OPT_STATS_ERROR)
    return cli_flight_option(CMD, &o->flight, id, p->arg, v);
  switch (id) {
    case ETK_CLI_POSITIONAL:
      if (o->program) return etk_cli_usage(CMD, "more than one program given");
      o->program = v;
      return 0;
    case OPT_ITERATIONS:
    case OPT_WARMUP:
      if (!etk_cli_parse_size(v, &n) || n > MAX_RUNS ||
          (n == 0 && id == OPT_ITERATIONS))
        return etk_cli_usage(CMD, "%s needs a count from %d to %d, not '%s'",
                             p->arg, id == OPT_ITERATIONS, MAX_RUNS, v);
      *(id == OPT_ITERATIONS ? &o->iterations : &o->warmup) = (unsigned long)n;
      return 0;
    case OPT_INPUT:
      if (o->input_count == MAX_INPUTS)
        return etk_cli_usage(CMD, "at most %d inputs", MAX_INPUTS);
      o->inputs[o->input_count++] = v;
      return 0;
    case OPT_DEBUG_LEVEL:
      o->debug_level = choice(v, debug_levels);
      if (o->debug_level < 0)
        return etk_cli_usage(CMD,
                             "invalid debug level '%s' (choose from none, "
                             "outputs, intermediates, stats)",
                             v);
      return 0;
    case OPT_PROFILE_LEVEL:
      o->profile_level = choice(v, profile_levels);
      if (o->profile_level < 0)
        return etk_cli_usage(
            CMD, "invalid profile level '%s' (choose from method, all)", v);
      return 0;
    case OPT_MAX_MEMORY:
      if (!cli_parse_memory_limit(v, &o->max_memory))
        return etk_cli_usage(CMD, "%s",
                             "--max-memory needs a positive byte "
                             "count (suffix K, M, G or T allowed)");
      return 0;
    case OPT_RTOL:
    case OPT_ATOL: {
      double x;
      if (!etk_cli_parse_double(v, &x) || x < 0)
        return etk_cli_usage(CMD, "%s needs a number >= 0, not '%s'", p->arg,
                             v);
      *(id == OPT_RTOL ? &o->rtol : &o->atol) = x;
      return 0;
    }
  }
  return 0;
}

int cli_run_parse_args(int argc, char **argv, options_t *o) {
  memset(o, 0, sizeof *o);
  o->iterations = 1;
  o->debug_level = -1;
  o->profile_level = CLI_PROFILE_ALL;
  o->rtol = ETK_BUNDLED_DEFAULT_RTOL;
  o->atol = ETK_BUNDLED_DEFAULT_ATOL;
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, o);
  if (rc) return rc;
  if (etk_cli_require(CMD, o->program, "PROGRAM")) return 2;
  if (o->inputs_from && o->input_count)
    return etk_cli_usage(CMD, "%s",
                         "--inputs-from and --input both give the inputs: "
                         "choose one");
  if (o->debug_level < 0)
    o->debug_level = o->debug_buffer ? CLI_DEBUG_OUTPUTS : CLI_DEBUG_NONE;
  if (o->debug_level > CLI_DEBUG_NONE && !o->etdump)
    return etk_cli_usage(CMD, "%s",
                         "--debug-level needs --etdump (the events that "
                         "describe the logged tensors)");
  if (o->debug_buffer && !o->etdump)
    return etk_cli_usage(CMD, "%s", "--debug-buffer needs --etdump");
  if (o->debug_level > CLI_DEBUG_NONE && !o->debug_buffer) {
    /* logged tensors need a buffer: one is sized for the method and
     * written next to the ETDump */
    if (cli_debug_path_for(o->etdump, o->debug_path, sizeof o->debug_path))
      return etk_cli_usage(CMD, "%s", "--etdump path too long");
    o->debug_buffer = o->debug_path;
    o->auto_debug_buffer = 1;
  }
  if ((rc = cli_flight_check(CMD, &o->flight, o->etdump != NULL))) return rc;
  if (o->flight.stats && o->profile_level == CLI_PROFILE_METHOD)
    return etk_cli_usage(CMD, "%s",
                         "--profile-mode stats keeps a sketch of every "
                         "event: --profile-level method does not apply");
  const char *outputs[] = {o->etdump, o->debug_buffer};
  for (int i = 0; i < 2; i++)
    if ((rc = etk_cli_check_output(CMD, outputs[i]))) return rc;
  return 0;
}
