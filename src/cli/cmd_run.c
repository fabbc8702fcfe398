/*
 * cmd_run.c - `etkit run PROGRAM`: runs a .pte method, or every bundled
 * test case of a .bpte, on the reference runtime, optionally tracing into
 * an ETDump with a debug buffer.
 *
 * A .pte runs --iterations times on inputs from --input FILE.npy (one per
 * method input, in order) or on tensors of ones, like upstream's
 * executor_runner, or on an ETRecord's representative inputs with
 * --inputs-from (cmd_run_inputs.c).  A .bpte runs each test case of the
 * method's suite
 * (--iterations times each) and compares the outputs with the expected
 * ones by upstream's rules; --verify makes it a gate (docs/exit-status.md):
 * 1 when a case does not match, 2 on trouble.
 * Every output file is written all-or-nothing after the runs succeeded.
 * The help text and the option table are in cmd_run_args.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_args.h"
#include "cmd_run_args.h"
#include "commands.h"
#include "etkit/program.h"
#include "etkit/runtime.h"
#include "cmd_run_device.h"
#include "cmd_run_inputs.h"
#include "run_support.h"

/* The run's flight recorder (run_flight.h): started once the method is
 * loaded, so that runs count executions. */
static cli_flight_t flight;

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
  if (rec && cli_flight_start(&flight, &o->flight, rec->rec, &err)) {
    etk_method_free(m);
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
    if (cli_execute_once(m, &src, &timing, &err) ||
        cli_flight_run_end(&flight, &err))
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
    else if (o->output_dir)
      etk_cli_say_wrote(CMD, o->output_dir, "%zu output(s), output_K.npy",
                        nout);
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
  if (rec && cli_flight_start(&flight, &o->flight, rec->rec, &err)) {
    etk_method_free(m);
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
    /* the last run's end waits for the verdict (a mismatch trigger fires
     * at the run that produced the outputs) */
    for (unsigned long it = 0; it < o->iterations && status == 0; it++)
      if (cli_execute_once(m, &src, &timing, &err) ||
          (it + 1 < o->iterations && cli_flight_run_end(&flight, &err)))
        status = etk_cli_fail_error(CMD, &err);
    if (status) break;
    etk_bundled_result_t r;
    etk_error_t verr;
    etk_error_clear(&verr);
    int rc = etk_bundled_verify_outputs(m, bp, c, o->rtol, o->atol, &r, &verr);
    if (r.has_expected && !r.passed) cli_flight_mismatch(&flight);
    if (cli_flight_run_end(&flight, &err)) {
      status = etk_cli_fail_error(CMD, &err);
      break;
    }
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
  if (status == 0 && o->output_dir)
    etk_cli_say_wrote(CMD, o->output_dir,
                      "the outputs of %u case(s), caseC_output_K.npy",
                      (unsigned)suite->case_count);
  *mismatches = (int)(checked - passed);
  cli_timing_free(&timing);
  etk_method_free(m);
  return status;
}

/* The run after the parse: 0 or the exit status of a failure; sets
 * *failed when --verify finds a mismatch. */
static int run(options_t *op, int *failed) {
  options_t o = *op;
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_t *prog = NULL;
  etk_bundled_program_t *bp = NULL;
  if (cli_program_open(o.program, &prog, &bp, &err))
    return etk_cli_fail_error(CMD, &err);
  if ((o.verify && !bp) || (bp && (o.input_count || o.inputs_from))) {
    cli_program_close(prog, bp);
    return etk_cli_usage(CMD, "%s",
                         bp ? "a .bpte brings its own inputs; --input and "
                              "--inputs-from are for .pte files"
                            : "--verify needs a bundled program (.bpte)");
  }
  int bad_trigger =
      cli_flight_check_kinds(CMD, &o.flight, o.debug_level, bp != NULL);
  if (bad_trigger) {
    cli_program_close(prog, bp);
    return bad_trigger;
  }
  cli_run_inputs_t from;
  memset(&from, 0, sizeof from);
  if (o.inputs_from && cli_run_inputs_from(&o, &from)) {
    cli_program_close(prog, bp);
    return 2;
  }
  const etk_program_plan_t *plan =
      etk_program_find_plan(prog, o.method ? o.method : "forward");
  if (!plan && !o.method) plan = etk_program_find_plan(prog, NULL);
  int status = 0;
  if (!plan) {
    char list[160];
    etk_name_list_t names;
    etk_name_list_init(&names, list, sizeof list);
    for (uint32_t k = 0; k < prog->plan_count; k++)
      etk_name_list_add(&names, prog->plans[k].name,
                        prog->plans[k].name ? strlen(prog->plans[k].name) : 0);
    status = etk_cli_fail(CMD, "%s: no method named '%s' (methods: %s)",
                          o.program, o.method ? o.method : "forward",
                          etk_name_list_text(&names));
    goto out;
  }
  cli_recorder_t rec;
  memset(&rec, 0, sizeof rec);
  int traced = o.etdump || cli_flight_wanted(&o.flight);
  if (traced) {
    unsigned long runs = o.iterations;
    if (bp) {
      const etk_bundled_suite_t *s = etk_bundled_find_suite(bp, plan->name);
      runs *= s && s->case_count ? s->case_count : 1;
    }
    runs = cli_flight_runs(&o.flight, runs);
    if (cli_recorder_create(
            plan, (unsigned)runs, o.debug_level,
            cli_flight_profile_level(&o.flight, o.profile_level),
            o.debug_buffer != NULL, &rec, &err) ||
        (!o.no_calibrate && cli_recorder_calibrate(&rec, &err))) {
      cli_recorder_free(&rec);
      status = etk_cli_fail_error(CMD, &err);
      goto out;
    }
  }
  int mismatches = 0;
  status =
      bp ? run_bundled(&o, bp, plan->name, traced ? &rec : NULL, &mismatches)
         : run_program(&o, prog, plan->name, traced ? &rec : NULL);
  if (cli_flight_finish(&flight, &err) && status == 0)
    status = etk_cli_fail_error(CMD, &err);
  if (status == 0 && o.etdump) {
    uint32_t dropped = 0;
    if (cli_recorder_write(&rec, o.etdump, o.debug_buffer, &dropped, &err))
      status = etk_cli_fail_error(CMD, &err);
    else if (o.auto_debug_buffer)
      fprintf(stderr,
              "etkit run: wrote %s: ETDump; the logged tensors are in %s "
              "(sized for the method; --debug-buffer FILE to choose)\n",
              o.etdump, o.debug_buffer);
    else if (o.debug_buffer)
      etk_cli_say_wrote(CMD, o.etdump, "ETDump; the logged tensors in %s",
                        o.debug_buffer);
    else
      etk_cli_say_wrote(CMD, o.etdump, "ETDump");
    if (status == 0 && dropped)
      fprintf(stderr,
              "etkit run: warning: the recorder dropped %u events "
              "(its arena was too small)\n",
              dropped);
  }
  cli_recorder_free(&rec);
  if (status == 0 && mismatches && o.verify) {
    fprintf(stderr,
            "etkit run: %d test case%s did not match the expected outputs\n",
            mismatches, mismatches == 1 ? "" : "s");
    *failed = 1;
  }
out:
  cli_run_inputs_free(&from);
  cli_program_close(prog, bp);
  return status;
}

int etk_cmd_run(int argc, char **argv) {
  /* --target BOARD: on an emulated Cortex-M (cmd_run_device.c) */
  if (cli_run_wants_device(argc, argv)) return etk_cmd_run_device(argc, argv);
  options_t o;
  memset(&o, 0, sizeof o);
  int rc = cli_run_parse_args(argc, argv, &o);
  /* an output that cannot be written is trouble for the gate too */
  if (rc) return rc < 0 ? 0 : o.verify ? etk_cli_gate_exit(rc, 0) : rc;
  int failed = 0;
  int status = run(&o, &failed);
  /* --verify is a gate (docs/exit-status.md): any failure is trouble */
  return o.verify ? etk_cli_gate_exit(status, failed) : status;
}
