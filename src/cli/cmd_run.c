/*
 * cmd_run.c - `etkit run PROGRAM`: runs a .pte method, or every bundled
 * test case of a .bpte, on the reference runtime, optionally tracing into
 * an ETDump with a debug buffer.
 *
 * A .pte runs --iterations times on inputs from --input FILE.npy (one per
 * method input, in order) or on tensors of ones, like upstream's
 * executor_runner.  A .bpte runs each test case of the method's suite
 * (--iterations times each) and compares the outputs with the expected
 * ones by upstream's rules; --verify turns a mismatch into exit status 1.
 * Every output file is written all-or-nothing after the runs succeeded.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_args.h"
#include "commands.h"
#include "etkit/program.h"
#include "etkit/runtime.h"
#include "run_support.h"

#define CMD "run"
#define MAX_INPUTS CLI_MAX_INPUTS
#define MAX_RUNS 1000000

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
    "  --output-dir DIR       write the outputs as .npy files into DIR\n"
    "  --etdump FILE          trace the runs into an ETDump (.etdp)\n"
    "  --debug-buffer FILE    write logged tensor bytes to FILE (default with "
    "a\n"
    "                         debug level: next to the ETDump, X.debug.bin)\n"
    "  --debug-level L        none | outputs | intermediates (default: none,\n"
    "                         or outputs when --debug-buffer is given)\n"
    "  --profile-level L      method | all (default: all)\n"
    "  --warmup N             untimed, untraced runs first (default 0)\n"
    "  --allocation-events    record allocators and allocations (default:\n"
    "                         none, as upstream; its Inspector stops on them)\n"
    "  --verify               (.bpte) exit 1 if a test case does not match\n"
    "  --rtol X, --atol Y     tolerances (default 1e-05 and 1e-08)\n"
    "  --max-memory BYTES     most memory the method may take (planned\n"
    "                         buffers and arena; suffix K, M, G; default 1G)\n"
    "  -h, --help             this help\n";

typedef struct options {
  const char *program, *method, *output_dir, *etdump, *debug_buffer;
  const char *inputs[MAX_INPUTS];
  size_t input_count;
  unsigned long iterations, warmup;
  int allocation_events; /* --allocation-events (ETK_CLI_FLAG) */
  int auto_debug_buffer; /* the debug buffer path was derived */
  char debug_path[4096]; /* the derived one */
  int debug_level, profile_level, verify, no_allocation_events;
  double rtol, atol;
  uint64_t max_memory;
} options_t;

enum {
  OPT_METHOD = 1,
  OPT_ITERATIONS,
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
    ETK_CLI_STRING("output_dir", 0, options_t, output_dir),
    ETK_CLI_STRING("etdump|etdump_path", 0, options_t, etdump),
    ETK_CLI_STRING("debug_buffer|debug_buffer_path", 0, options_t,
                   debug_buffer),
    {"debug_level", 0, ETK_CLI_VALUE, OPT_DEBUG_LEVEL, 0},
    {"profile_level", 0, ETK_CLI_VALUE, OPT_PROFILE_LEVEL, 0},
    ETK_CLI_FLAG("no_allocation_events", 0, options_t, no_allocation_events),
    ETK_CLI_FLAG("verify", 0, options_t, verify),
    {"rtol", 0, ETK_CLI_VALUE, OPT_RTOL, 0},
    {"atol", 0, ETK_CLI_VALUE, OPT_ATOL, 0},
    {"max_memory", 0, ETK_CLI_VALUE, OPT_MAX_MEMORY, 0},
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
                                             NULL};
  static const char *const profile_levels[] = {"method", "all", NULL};
  options_t *o = ctx;
  const char *v = p->value;
  size_t n;
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
                             "outputs, intermediates)",
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

/* -1 after --help, 0 to go on, else an exit status. */
static int parse_args(int argc, char **argv, options_t *o) {
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
  const char *outputs[] = {o->etdump, o->debug_buffer};
  for (int i = 0; i < 2; i++)
    if (outputs[i] && etk_cli_check_output(CMD, outputs[i])) return 1;
  return 0;
}

/* Load settings shared by .pte and .bpte runs. */
static etk_method_config_t method_options(const options_t *o,
                                          cli_recorder_t *rec) {
  etk_method_config_t load;
  memset(&load, 0, sizeof load);
  load.recorder = rec ? rec->rec : NULL;
  /* upstream's runtime records no allocation events and its Inspector
   * stops on them: none unless --allocation-events */
  load.no_allocation_events = !o->allocation_events || o->no_allocation_events;
  load.max_memory = o->max_memory;
  return load;
}

/* --warmup runs: on `m` itself, or, when it is traced, on an untraced
 * instance so that the ETDump holds the measured runs only. */
static int warm_up(const options_t *o, const etk_program_t *prog,
                   const char *method, const etk_bundled_program_t *bp,
                   etk_method_t *m, int traced, etk_error_t *err) {
  if (!o->warmup) return 0;
  etk_method_t *w = m;
  if (traced) {
    etk_method_config_t load = method_options(o, NULL);
    if (etk_method_load_alloc_with(prog, method, &load, &w, err)) return 1;
  }
  cli_run_source_t src;
  cli_run_source_init(&src, bp, 0, o->inputs, o->input_count);
  int rc = 0;
  for (unsigned long it = 0; it < o->warmup && !rc; it++)
    rc = cli_execute_once(w, &src, NULL, err);
  cli_run_source_free(&src);
  if (w != m) etk_method_free(w);
  return rc;
}

/* Runs a .pte method o->iterations times (after o->warmup warm-ups). */
static int run_program(const options_t *o, const etk_program_t *prog,
                       const char *method, cli_recorder_t *rec) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_method_t *m = NULL;
  etk_method_config_t load = method_options(o, rec);
  if (etk_method_load_alloc_with(prog, method, &load, &m, &err)) {
    etk_error_where(&err, o->program);
    return etk_cli_fail_error(CMD, &err);
  }
  size_t nin = etk_method_input_count(m), nout = etk_method_output_count(m);
  int status = 0;
  cli_run_source_t src;
  cli_run_source_init(&src, NULL, 0, o->inputs, o->input_count);
  cli_timing_t timing;
  memset(&timing, 0, sizeof timing);
  if (o->input_count && o->input_count != nin)
    status =
        etk_cli_fail(CMD, "method '%s' takes %zu inputs, %zu --input given",
                     etk_method_name(m), nin, o->input_count);
  else if (nin > MAX_INPUTS)
    status =
        etk_cli_fail(CMD, "the method has more than %d inputs", MAX_INPUTS);
  else if (cli_timing_init(&timing, o->iterations, &err) ||
           warm_up(o, prog, method, NULL, m, rec != NULL, &err))
    status = etk_cli_fail_error(CMD, &err);
  for (size_t it = 0; it < o->iterations && status == 0; it++)
    if (cli_execute_once(m, &src, &timing, &err))
      status = etk_cli_fail_error(CMD, &err);
  if (status == 0) {
    printf("method %s: %zu input%s, %zu output%s; ", etk_method_name(m), nin,
           nin == 1 ? "" : "s", nout, nout == 1 ? "" : "s");
    cli_timing_print(stdout, &timing, o->warmup);
    printf("\n");
    for (size_t k = 0; k < nout; k++) {
      printf("output %zu: ", k);
      cli_print_value(stdout, m, k, 8);
      printf("\n");
    }
    if (o->output_dir && cli_write_outputs(m, o->output_dir, NULL, &err))
      status = etk_cli_fail_error(CMD, &err);
  }
  cli_timing_free(&timing);
  cli_run_source_free(&src);
  etk_method_free(m);
  return status;
}

/* Runs every case of the method's suite; 1 if a case failed to run. */
static int run_bundled(const options_t *o, const etk_bundled_program_t *bp,
                       const char *method, cli_recorder_t *rec,
                       int *mismatches) {
  etk_error_t err;
  etk_error_clear(&err);
  const etk_bundled_suite_t *suite = etk_bundled_find_suite(bp, method);
  if (!suite)
    return etk_cli_fail(CMD,
                        "the bundled program has no test cases for "
                        "method '%s'",
                        method);
  if (etk_bundled_check(bp, &err)) return etk_cli_fail_error(CMD, &err);
  etk_method_t *m = NULL;
  etk_method_config_t load = method_options(o, rec);
  if (etk_method_load_alloc_with(bp->program, method, &load, &m, &err)) {
    etk_error_where(&err, o->program);
    return etk_cli_fail_error(CMD, &err);
  }
  printf("method %s: %u test case%s, %lu run%s each (rtol %g, atol %g)\n",
         method, suite->case_count, suite->case_count == 1 ? "" : "s",
         o->iterations, o->iterations == 1 ? "" : "s", o->rtol, o->atol);
  cli_timing_t timing;
  int status = 0;
  if (cli_timing_init(&timing, o->iterations, &err) ||
      warm_up(o, bp->program, method, bp, m, rec != NULL, &err))
    status = etk_cli_fail_error(CMD, &err);
  unsigned passed = 0, checked = 0;
  for (uint32_t c = 0; c < suite->case_count && status == 0; c++) {
    cli_run_source_t src;
    cli_run_source_init(&src, bp, c, NULL, 0);
    timing.count = 0;
    for (unsigned long it = 0; it < o->iterations && status == 0; it++)
      if (cli_execute_once(m, &src, &timing, &err))
        status = etk_cli_fail_error(CMD, &err);
    if (status) break;
    etk_bundled_result_t r;
    etk_error_t verr;
    etk_error_clear(&verr);
    int rc = etk_bundled_verify_outputs(m, bp, c, o->rtol, o->atol, &r, &verr);
    if (!r.has_expected && rc == ETK_OK) {
      printf("case %u: ran (no expected outputs)  ", c);
    } else {
      checked++;
      if (r.passed) passed++;
      printf("case %u: %s  max_abs_error %.6g  max_rel_error %.6g%s%s  ", c,
             r.passed ? "pass" : "FAIL", r.max_abs_error, r.max_rel_error,
             r.passed ? "" : "  ", r.passed ? "" : r.message);
    }
    cli_timing_print(stdout, &timing, 0);
    printf("\n");
    char prefix[32];
    snprintf(prefix, sizeof prefix, "case%u_", c);
    if (o->output_dir && cli_write_outputs(m, o->output_dir, prefix, &err))
      status = etk_cli_fail_error(CMD, &err);
  }
  if (status == 0)
    printf("%u of %u checked case%s passed\n", passed, checked,
           checked == 1 ? "" : "s");
  *mismatches = (int)(checked - passed);
  cli_timing_free(&timing);
  etk_method_free(m);
  return status;
}

int etk_cmd_run(int argc, char **argv) {
  options_t o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_t *prog = NULL;
  etk_bundled_program_t *bp = NULL;
  if (cli_program_open(o.program, &prog, &bp, &err))
    return etk_cli_fail_error(CMD, &err);
  if ((o.verify && !bp) || (bp && o.input_count)) {
    cli_program_close(prog, bp);
    return etk_cli_usage(CMD, "%s",
                         bp ? "a .bpte brings its own inputs; --input is for "
                              ".pte files"
                            : "--verify needs a bundled program (.bpte)");
  }
  const etk_program_plan_t *plan =
      etk_program_find_plan(prog, o.method ? o.method : "forward");
  if (!plan && !o.method) plan = etk_program_find_plan(prog, NULL);
  int status = 0;
  if (!plan) {
    status = etk_cli_fail(CMD, "%s: no method named '%s'", o.program,
                          o.method ? o.method : "forward");
    goto out;
  }
  cli_recorder_t rec;
  memset(&rec, 0, sizeof rec);
  if (o.etdump) {
    unsigned long runs = o.iterations;
    if (bp) {
      const etk_bundled_suite_t *s = etk_bundled_find_suite(bp, plan->name);
      runs *= s && s->case_count ? s->case_count : 1;
    }
    if (cli_recorder_create(plan, (unsigned)runs, o.debug_level,
                            o.profile_level, o.debug_buffer != NULL, &rec,
                            &err)) {
      status = etk_cli_fail_error(CMD, &err);
      goto out;
    }
  }
  int mismatches = 0;
  status =
      bp ? run_bundled(&o, bp, plan->name, o.etdump ? &rec : NULL, &mismatches)
         : run_program(&o, prog, plan->name, o.etdump ? &rec : NULL);
  if (status == 0 && o.etdump) {
    uint32_t dropped = 0;
    if (cli_recorder_write(&rec, o.etdump, o.debug_buffer, &dropped, &err))
      status = etk_cli_fail_error(CMD, &err);
    else if (o.auto_debug_buffer)
      fprintf(stderr,
              "etkit run: the logged tensors are in %s (sized for the "
              "method; --debug-buffer FILE to choose)\n",
              o.debug_buffer);
    if (status == 0 && dropped)
      fprintf(stderr,
              "etkit run: warning: the recorder dropped %u events "
              "(its arena was too small)\n",
              dropped);
  }
  cli_recorder_free(&rec);
  if (status == 0 && mismatches && o.verify)
    status = etk_cli_fail(CMD,
                          "%d test case%s did not match the expected "
                          "outputs",
                          mismatches, mismatches == 1 ? "" : "s");
out:
  cli_program_close(prog, bp);
  return status;
}
