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
#define MAX_INPUTS 64

static void usage(FILE *out) {
  fprintf(out,
          "usage: etkit run PROGRAM [options]\n"
          "\n"
          "Runs a program (.pte) or the test cases of a bundled program (.bpte)\n"
          "on etkit's reference runtime.\n"
          "\n"
          "options:\n"
          "  --method NAME          method to run (default: forward, or the first)\n"
          "  --iterations N         executions (per test case for a .bpte; default 1)\n"
          "  --input FILE.npy       an input, once per method input (default: ones)\n"
          "  --output-dir DIR       write the outputs as .npy files into DIR\n"
          "  --etdump FILE          trace the runs into an ETDump (.etdp)\n"
          "  --debug-buffer FILE    write logged tensor bytes to FILE\n"
          "  --debug-level L        none | outputs | intermediates (default: none,\n"
          "                         or outputs when --debug-buffer is given)\n"
          "  --profile-level L      method | all (default: all)\n"
          "  --no-allocation-events record no allocators/allocations (upstream's\n"
          "                         runtime records none; its Inspector stops on them)\n"
          "  --verify               (.bpte) exit 1 if a test case does not match\n"
          "  --rtol X, --atol Y     tolerances (default 1e-05 and 1e-08)\n"
          "  --max-memory BYTES     most memory the method may take (planned\n"
          "                         buffers and arena; suffix K, M, G; default 1G)\n");
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_double(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return end != s && *end == 0;
}

typedef struct options {
  const char *program, *method, *output_dir, *etdump, *debug_buffer;
  const char *inputs[MAX_INPUTS];
  size_t input_count;
  unsigned long iterations;
  int debug_level, profile_level, verify, no_allocation_events;
  double rtol, atol;
  uint64_t max_memory;
} options_t;

static int parse_args(int argc, char **argv, options_t *o) {
  memset(o, 0, sizeof *o);
  o->iterations = 1;
  o->debug_level = -1;
  o->profile_level = CLI_PROFILE_ALL;
  o->rtol = ETK_BUNDLED_DEFAULT_RTOL;
  o->atol = ETK_BUNDLED_DEFAULT_ATOL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                           \
  do {                                                                         \
    if (!v) {                                                                  \
      fprintf(stderr, "etkit run: %s needs a value\n", a);                     \
      return 2;                                                                \
    }                                                                          \
    i++;                                                                       \
  } while (0)
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return -1;
    } else if (strcmp(a, "--method") == 0) {
      NEED_VALUE();
      o->method = v;
    } else if (strcmp(a, "--iterations") == 0) {
      NEED_VALUE();
      char *end;
      o->iterations = strtoul(v, &end, 10);
      if (*end || o->iterations == 0 || o->iterations > 100000000ul) {
        fprintf(stderr, "etkit run: --iterations needs a positive count\n");
        return 2;
      }
    } else if (strcmp(a, "--input") == 0) {
      NEED_VALUE();
      if (o->input_count == MAX_INPUTS) {
        fprintf(stderr, "etkit run: at most %d inputs\n", MAX_INPUTS);
        return 2;
      }
      o->inputs[o->input_count++] = v;
    } else if (strcmp(a, "--output-dir") == 0) {
      NEED_VALUE();
      o->output_dir = v;
    } else if (strcmp(a, "--etdump") == 0) {
      NEED_VALUE();
      o->etdump = v;
    } else if (strcmp(a, "--debug-buffer") == 0) {
      NEED_VALUE();
      o->debug_buffer = v;
    } else if (strcmp(a, "--debug-level") == 0) {
      NEED_VALUE();
      if (strcmp(v, "none") == 0) o->debug_level = CLI_DEBUG_NONE;
      else if (strcmp(v, "outputs") == 0) o->debug_level = CLI_DEBUG_OUTPUTS;
      else if (strcmp(v, "intermediates") == 0)
        o->debug_level = CLI_DEBUG_INTERMEDIATES;
      else {
        fprintf(stderr, "etkit run: --debug-level is none, outputs or "
                        "intermediates\n");
        return 2;
      }
    } else if (strcmp(a, "--no-allocation-events") == 0) {
      o->no_allocation_events = 1;
    } else if (strcmp(a, "--profile-level") == 0) {
      NEED_VALUE();
      if (strcmp(v, "method") == 0) o->profile_level = CLI_PROFILE_METHOD;
      else if (strcmp(v, "all") == 0) o->profile_level = CLI_PROFILE_ALL;
      else {
        fprintf(stderr, "etkit run: --profile-level is method or all\n");
        return 2;
      }
    } else if (strcmp(a, "--verify") == 0) {
      o->verify = 1;
    } else if (strcmp(a, "--rtol") == 0 || strcmp(a, "--atol") == 0) {
      NEED_VALUE();
      double x;
      if (!parse_double(v, &x) || x < 0) {
        fprintf(stderr, "etkit run: %s needs a number >= 0\n", a);
        return 2;
      }
      *(a[2] == 'r' ? &o->rtol : &o->atol) = x;
    } else if (strcmp(a, "--max-memory") == 0) {
      NEED_VALUE();
      if (!cli_parse_memory_limit(v, &o->max_memory)) {
        fprintf(stderr, "etkit run: --max-memory needs a positive byte count "
                        "(suffix K, M, G or T allowed)\n");
        return 2;
      }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "etkit run: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (!o->program) {
      o->program = a;
    } else {
      fprintf(stderr, "etkit run: more than one program given\n");
      return 2;
    }
#undef NEED_VALUE
  }
  if (!o->program) {
    usage(stderr);
    return 2;
  }
  if (o->debug_level < 0)
    o->debug_level = o->debug_buffer ? CLI_DEBUG_OUTPUTS : CLI_DEBUG_NONE;
  if (o->debug_level > CLI_DEBUG_NONE && !o->etdump) {
    fprintf(stderr, "etkit run: --debug-level needs --etdump (the events "
                    "that describe the logged tensors)\n");
    return 2;
  }
  if (o->debug_buffer && !o->etdump) {
    fprintf(stderr, "etkit run: --debug-buffer needs --etdump\n");
    return 2;
  }
  return 0;
}

/* Load settings shared by .pte and .bpte runs. */
static etk_method_config_t method_options(const options_t *o,
                                          cli_recorder_t *rec) {
  etk_method_config_t load;
  memset(&load, 0, sizeof load);
  load.recorder = rec ? rec->rec : NULL;
  load.no_allocation_events = o->no_allocation_events;
  load.max_memory = o->max_memory;
  return load;
}

/* Runs a .pte method o->iterations times. */
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
  size_t nin = etk_method_input_count(m);
  if (o->input_count && o->input_count != nin) {
    int rc = etk_cli_fail(CMD, "method '%s' takes %zu inputs, %zu --input given",
                          etk_method_name(m), nin, o->input_count);
    etk_method_free(m);
    return rc;
  }
  etk_npy_t *npys[MAX_INPUTS] = {0};
  void *ones[MAX_INPUTS] = {0};
  int status = 0;
  double elapsed = 0;
  if (nin > MAX_INPUTS) {
    status = etk_cli_fail(CMD, "the method has more than %d inputs", MAX_INPUTS);
    goto done;
  }
  for (size_t it = 0; it < o->iterations && status == 0; it++) {
    for (size_t i = 0; i < nin; i++) {
      /* Inputs are set before every run: kernels may alias them. */
      if (npys[i] || ones[i]) {
        etk_npy_free(npys[i]);
        free(ones[i]);
        npys[i] = NULL;
        ones[i] = NULL;
      }
      if (cli_set_input(m, i, o->input_count ? o->inputs[i] : NULL, &npys[i],
                        &ones[i], &err)) {
        status = etk_cli_fail_error(CMD, &err);
        goto done;
      }
    }
    double t0 = now_seconds();
    if (etk_method_execute(m, &err)) {
      status = etk_cli_fail_error(CMD, &err);
      goto done;
    }
    elapsed += now_seconds() - t0;
  }
  printf("method %s: %zu input%s, %zu output%s; %lu run%s, %.3f ms per run\n",
         etk_method_name(m), nin, nin == 1 ? "" : "s",
         etk_method_output_count(m), etk_method_output_count(m) == 1 ? "" : "s",
         o->iterations, o->iterations == 1 ? "" : "s",
         elapsed * 1e3 / (double)o->iterations);
  for (size_t k = 0; k < etk_method_output_count(m); k++) {
    printf("output %zu: ", k);
    cli_print_value(stdout, m, k, 8);
    printf("\n");
  }
  if (o->output_dir) {
    if (cli_make_dir(o->output_dir, &err)) {
      status = etk_cli_fail_error(CMD, &err);
      goto done;
    }
    for (size_t k = 0; k < etk_method_output_count(m); k++)
      if (cli_write_output(m, k, o->output_dir, NULL, &err)) {
        status = etk_cli_fail_error(CMD, &err);
        goto done;
      }
  }
done:
  for (size_t i = 0; i < MAX_INPUTS; i++) {
    etk_npy_free(npys[i]);
    free(ones[i]);
  }
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
    return etk_cli_fail(CMD, "the bundled program has no test cases for "
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
  int status = 0;
  unsigned passed = 0, checked = 0;
  for (uint32_t c = 0; c < suite->case_count && status == 0; c++) {
    double elapsed = 0;
    for (unsigned long it = 0; it < o->iterations; it++) {
      if (etk_bundled_load_input(m, bp, c, &err)) {
        status = etk_cli_fail_error(CMD, &err);
        break;
      }
      double t0 = now_seconds();
      if (etk_method_execute(m, &err)) {
        status = etk_cli_fail_error(CMD, &err);
        break;
      }
      elapsed += now_seconds() - t0;
    }
    if (status) break;
    etk_bundled_result_t r;
    etk_error_t verr;
    etk_error_clear(&verr);
    int rc = etk_bundled_verify_outputs(m, bp, c, o->rtol, o->atol, &r, &verr);
    if (!r.has_expected && rc == ETK_OK) {
      printf("case %u: ran (no expected outputs)  %.3f ms\n", c,
             elapsed * 1e3 / (double)o->iterations);
    } else {
      checked++;
      if (r.passed) passed++;
      printf("case %u: %s  max_abs_error %.6g  max_rel_error %.6g  %.3f ms%s%s\n",
             c, r.passed ? "pass" : "FAIL", r.max_abs_error, r.max_rel_error,
             elapsed * 1e3 / (double)o->iterations, r.passed ? "" : "  ",
             r.passed ? "" : r.message);
    }
    if (o->output_dir) {
      char prefix[32];
      snprintf(prefix, sizeof prefix, "case%u_", c);
      if (cli_make_dir(o->output_dir, &err)) {
        status = etk_cli_fail_error(CMD, &err);
        break;
      }
      for (size_t k = 0; k < etk_method_output_count(m); k++)
        if (cli_write_output(m, k, o->output_dir, prefix, &err)) {
          status = etk_cli_fail_error(CMD, &err);
          break;
        }
    }
  }
  if (status == 0)
    printf("%u of %u checked case%s passed\n", passed, checked,
           checked == 1 ? "" : "s");
  *mismatches = (int)(checked - passed);
  etk_method_free(m);
  return status;
}

int etk_cmd_run(int argc, char **argv) {
  options_t o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  etk_error_t err;
  etk_error_clear(&err);
  uint8_t *bytes;
  size_t len;
  if (etk_read_file(o.program, 0, &bytes, &len, &err))
    return etk_cli_fail_error(CMD, &err);
  etk_file_kind_t kind = etk_file_kind_detect(bytes, len);
  etk_program_t *prog = NULL;
  etk_bundled_program_t *bp = NULL;
  if (kind == ETK_FILE_BPTE)
    rc = etk_bundled_program_load(bytes, len, NULL, &bp, &err);
  else
    rc = etk_program_load(bytes, len, NULL, &prog, &err);
  free(bytes);
  if (rc) {
    etk_error_where(&err, o.program);
    return etk_cli_fail_error(CMD, &err);
  }
  if (bp) prog = bp->program;
  if (o.verify && !bp) {
    etk_program_free(prog);
    fprintf(stderr, "etkit run: --verify needs a bundled program (.bpte)\n");
    return 2;
  }
  if (bp && o.input_count) {
    etk_bundled_program_free(bp);
    fprintf(stderr, "etkit run: a .bpte brings its own inputs; --input is "
                    "for .pte files\n");
    return 2;
  }
  const etk_program_plan_t *plan =
      o.method ? etk_program_find_plan(prog, o.method)
      : etk_program_find_plan(prog, "forward")
          ? etk_program_find_plan(prog, "forward")
          : etk_program_find_plan(prog, NULL);
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
  status = bp ? run_bundled(&o, bp, plan->name, o.etdump ? &rec : NULL,
                            &mismatches)
              : run_program(&o, prog, plan->name, o.etdump ? &rec : NULL);
  if (status == 0 && o.etdump) {
    uint32_t dropped = 0;
    if (cli_recorder_write(&rec, o.etdump, o.debug_buffer, &dropped, &err))
      status = etk_cli_fail_error(CMD, &err);
    else if (dropped)
      fprintf(stderr, "etkit run: warning: the recorder dropped %u events "
                      "(its arena was too small)\n",
              dropped);
  }
  cli_recorder_free(&rec);
  if (status == 0 && mismatches && o.verify)
    status = etk_cli_fail(CMD, "%d test case%s did not match the expected "
                               "outputs",
                          mismatches, mismatches == 1 ? "" : "s");
out:
  if (bp)
    etk_bundled_program_free(bp);
  else
    etk_program_free(prog);
  return status;
}
