/*
 * cmd_demo.c - `etkit demo [--output-dir DIR]`: the whole developer-tools
 * loop on one small model, without Python.
 *
 *   1. builds the example model of examples/demo_model (a small CNN made
 *      in C with the program builder, part of it lowered to
 *      EtkitMicroBackend as a delegate whose ops report string debug ids);
 *   2. writes model.pte and a bundled model.bpte (one test case whose
 *      expected outputs come from the reference runtime);
 *   3. runs the model several times on the same input (as upstream's
 *      example runner does, so the runs' logged values agree) with tracing
 *      at the "intermediates" debug level, writing etdump.etdp and
 *      debug_buffer.bin;
 *   4. writes model.etrecord with the example's ETRecord writer (the graph,
 *      debug handles, the instruction -> handle map and the delegate map)
 *      so the inspector can link events to graph nodes;
 *   5. opens the ETDump with the inspector, links it with the ETRecord and
 *      prints each operator with its op type and module, the
 *      per-operator-type summary, and the commands to go further.
 *
 * The example's weights are fixed, so every run of the demo produces the
 * same model, the same outputs and (timings aside) the same files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "demo_model/demo_model.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/program.h"
#include "etkit/render.h"
#include "etkit/runtime.h"
#include "run_support.h"

#define CMD "demo"
#define RUNS 5

static const char *const usage_text =
    "usage: etkit demo [--output-dir DIR] [--runs N]\n"
    "\n"
    "Builds a small CNN (with a delegated part), runs it N times\n"
    "(default 5) with tracing and writes model.pte, model.bpte,\n"
    "model.etrecord, etdump.etdp and debug_buffer.bin into DIR (default\n"
    "./etkit-demo), then prints the operators linked with the ETRecord\n"
    "(op types, modules), a per-operator-type summary and the commands\n"
    "to go on.\n";

static void report_file(const char *path, const char *what) {
  FILE *f = fopen(path, "rb");
  long size = -1;
  if (f) {
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fclose(f);
  }
  printf("  %-40s %8ld bytes  %s\n", path, size, what);
}

/* One line per operator of the Execute block: what ran, its mean time, and
 * what the ETRecord link says it is (module, op types).  OPERATOR_CALL is
 * left out (it wraps the native call), as `etkit inspect` does. */
static int print_linked_events(etk_inspector_t *insp) {
  printf("%-5s %-40s %9s  %-7s %s\n", "inst", "event", "avg (us)", "module",
         "op_types");
  for (size_t b = 0; b < etk_inspector_block_count(insp); b++) {
    etk_inspector_block_t blk;
    if (etk_inspector_block_get(insp, b, &blk) != ETK_OK ||
        strcmp(blk.name, "Execute") != 0)
      continue;
    for (size_t e = blk.first_event; e < blk.first_event + blk.event_count;
         e++) {
      etk_inspector_event_t ev;
      etk_stats_t st;
      etk_inspector_event_link_t link;
      int rc = etk_inspector_event_get(insp, e, &ev);
      if (rc == ETK_OK &&
          (ev.sample_count == 0 || strcmp(ev.name, "OPERATOR_CALL") == 0))
        continue;
      if (rc == ETK_OK) rc = etk_inspector_event_stats(insp, e, &st);
      if (rc == ETK_OK) rc = etk_inspector_event_link(insp, e, &link);
      if (rc != ETK_OK) return rc;
      char inst[16] = "-", name[64];
      if (ev.chain_index >= 0)
        snprintf(inst, sizeof inst, "%d", (int)ev.instruction_id);
      if (link.delegate_backend_name && link.delegate_backend_name[0])
        snprintf(name, sizeof name, "%s%s [%s]", ev.is_delegated_op ? "  " : "",
                 ev.name, link.delegate_backend_name);
      else
        snprintf(name, sizeof name, "%s", ev.name);
      const etk_inspector_module_t *mods = NULL;
      size_t depth = 0;
      const char *module = "";
      if (etk_inspector_event_has_modules(insp, e) &&
          etk_inspector_event_module(insp, e, &mods, &depth) == ETK_OK)
        module = depth ? mods[depth - 1].normalized : "(root)";
      printf("%-5s %-40s %9.3f", inst, name, st.avg);
      if (module[0] || link.op_type_count) printf("  %-7s", module);
      for (size_t k = 0; k < link.op_type_count; k++)
        printf("%s%s", k ? ", " : " ", link.op_types[k]);
      printf("\n");
    }
  }
  return ETK_OK;
}

/* What `etkit inspect` would show for the files just written: the ETDump
 * (with its debug buffer) linked with the ETRecord, as an operator list and
 * the per-operator-type summary. */
static int show_linked_results(const char *p_etdp, const char *p_dbg,
                               const char *p_rec, etk_error_t *err) {
  uint8_t *debug = NULL;
  size_t debug_len = 0;
  etk_inspector_t *insp = NULL;
  etk_etrecord_t *rec = NULL;
  etk_inspector_options_t opt;
  etk_inspector_options_init(&opt);
  opt.target_time_scale = ETK_TIME_US;
  int rc = etk_read_file(p_dbg, 0, &debug, &debug_len, err);
  if (rc == ETK_OK) {
    opt.debug_buffer = debug;
    opt.debug_buffer_len = debug_len;
    rc = etk_inspector_open_path(p_etdp, &opt, &insp, err);
  }
  if (rc == ETK_OK) rc = etk_etrecord_open_file(p_rec, NULL, &rec, err);
  if (rc == ETK_OK)
    rc = etk_etrecord_inspector_link(rec, insp, "forward", 0, NULL, err);
  if (rc == ETK_OK && etk_inspector_debug_mismatch_count(insp))
    fprintf(stderr,
            "etkit demo: warning: %zu debug value(s) differ between merged "
            "runs\n",
            etk_inspector_debug_mismatch_count(insp));
  if (rc == ETK_OK) {
    printf("\noperators of one run, linked with %s (mean of all runs):\n",
           p_rec);
    rc = print_linked_events(insp);
    if (rc != ETK_OK)
      etk_error_set(err, rc, ETK_NO_OFFSET, "cannot read the events");
  }
  if (rc == ETK_OK) {
    printf("\nper-operator-type summary (etkit inspect --summary):\n");
    fflush(stdout);
    etk_inspector_render_options_t ro;
    etk_inspector_render_options_init(&ro);
    ro.view = ETK_INSPECT_VIEW_SUMMARY;
    etk_render_sink_t sink;
    etk_render_sink_init_file(&sink, stdout);
    rc = etk_inspector_render(insp, &ro, &sink, err);
    if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
  }
  etk_etrecord_close(rec);
  etk_inspector_close(insp);
  free(debug);
  return rc;
}

/* `path` as one shell word: as it is when it is made of safe characters,
 * else in single quotes (a ' inside written '\''). */
static const char *shell_word(const char *path, char *buf, size_t size) {
  if (*path && strspn(path,
                      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                      "0123456789_./+-:=,@%") == strlen(path))
    return path;
  size_t at = 0;
  buf[at++] = '\'';
  for (const char *p = path; *p && at + 5 < size; p++) {
    if (*p == '\'') {
      memcpy(buf + at, "'\\''", 4);
      at += 4;
    } else {
      buf[at++] = *p;
    }
  }
  buf[at++] = '\'';
  buf[at] = 0;
  return buf;
}

/* shell_word of DIR/NAME, always in `buf`. */
static const char *shell_path(const char *dir, const char *name, char *buf,
                              size_t size) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  const char *word = shell_word(path, buf, size);
  if (word == path) snprintf(buf, size, "%s", path);
  return buf;
}

/* What to run next: commands that can be pasted into a shell as they
 * are (paths quoted when needed, explanations as comments). */
static void print_hints(const char *etdp, const char *rec, const char *dbg,
                        const char *bpte, const char *dir) {
  static char q[7][8200];
  const char *e = shell_word(etdp, q[0], sizeof q[0]);
  const char *r = shell_word(rec, q[1], sizeof q[1]);
  const char *d = shell_word(dbg, q[2], sizeof q[2]);
  const char *b = shell_word(bpte, q[3], sizeof q[3]);
  const char *t = shell_path(dir, "trace.json", q[4], sizeof q[4]);
  const char *p = shell_path(dir, "model.pte", q[5], sizeof q[5]);
  const char *h = shell_path(dir, "report.html", q[6], sizeof q[6]);
  printf(
      "\nnext:\n"
      "  # every event with its statistics (add --by-module for time per "
      "nn.Module)\n"
      "  etkit inspect --etdump_path %s --etrecord_path %s "
      "--debug_buffer_path %s\n"
      "  # the program output against the reference output (snr, mse, "
      "cosine)\n"
      "  etkit inspect --etdump_path %s --etrecord_path %s "
      "--debug_buffer_path %s --compare_results\n"
      "  # runs the bundled test case and checks the output\n"
      "  etkit run %s --verify\n"
      "  # a timeline for ui.perfetto.dev or chrome://tracing\n"
      "  etkit trace --etdump_path %s --etrecord %s -o %s\n",
      e, r, d, e, r, d, b, e, r, t);
  printf(
      "  # the program's memory plan: buffers, peaks, lifetimes (--check "
      "verifies it)\n"
      "  etkit memory %s --etrecord %s\n",
      p, r);
  printf(
      "  # a self-contained HTML report, with the memory map of the plan\n"
      "  etkit report --etdump_path %s --etrecord_path %s --program %s -o %s\n",
      e, r, p, h);
}

typedef struct demo_cli {
  const char *dir;
  unsigned runs;
} demo_cli_t;

enum { OPT_RUNS = 1 };

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("output_dir", 0, demo_cli_t, dir),
    {"runs", 0, ETK_CLI_VALUE, OPT_RUNS, 0},
};

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  demo_cli_t *c = ctx;
  size_t n;
  switch (id) {
    case ETK_CLI_POSITIONAL:
      return etk_cli_usage(CMD, "unexpected argument '%s'", p->value);
    case OPT_RUNS:
      if (!etk_cli_parse_size(p->value, &n) || n == 0 || n > 10000)
        return etk_cli_usage(
            CMD, "--runs needs a count from 1 to 10000, not '%s'", p->value);
      c->runs = (unsigned)n;
      return 0;
  }
  return 0;
}

/* What the demo makes, and where it writes it. */
typedef struct demo {
  char pte_path[4096], bpte_path[4096], etdump_path[4096], debug_path[4096],
      etrecord_path[4096];
  uint8_t *pte;
  size_t pte_len;
  etk_program_t *prog;
  etk_method_t *m;
  cli_recorder_t rec;
  float x[ETK_DEMO_MODEL_INPUT_ELEMENTS];
  void *expected;
  uint32_t dropped;
} demo_t;

static void demo_free(demo_t *d) {
  free(d->expected);
  etk_method_free(d->m);
  cli_recorder_free(&d->rec);
  etk_program_free(d->prog);
  free(d->pte);
}

/* Step 1: builds the example model and writes model.pte. */
static int build_program(demo_t *d, etk_error_t *err) {
  return etk_demo_model_build(&d->pte, &d->pte_len, err) ||
         etk_write_file(d->pte_path, d->pte, d->pte_len, err);
}

/* Step 3: runs the model `runs` times on the same input with tracing and
 * writes the ETDump and the debug buffer. */
static int record_runs(demo_t *d, unsigned runs, etk_error_t *err) {
  if (etk_program_load(d->pte, d->pte_len, NULL, &d->prog, err)) return 1;
  const etk_program_plan_t *plan = etk_program_find_plan(d->prog, "forward");
  /* no allocation events: upstream's Inspector stops on them */
  etk_method_config_t load;
  memset(&load, 0, sizeof load);
  load.no_allocation_events = 1;
  int rc = cli_recorder_create(plan, runs, CLI_DEBUG_INTERMEDIATES,
                               CLI_PROFILE_ALL, 1, &d->rec, err);
  load.recorder = d->rec.rec;
  if (rc || etk_method_load_alloc_with(d->prog, "forward", &load, &d->m, err))
    return 1;
  /* The same input every run, as upstream's example runner does: the
   * inspector merges the runs, and their logged values must agree. */
  etk_demo_model_fill_input(d->x, ETK_DEMO_MODEL_INPUT_ELEMENTS);
  for (unsigned r = 0; r < runs; r++) {
    etk_tensor_t t = *etk_method_input(d->m, 0)->u.tensor;
    memset(t.dim_order, 0, sizeof t.dim_order);
    t.data = d->x;
    t.nbytes = sizeof d->x;
    etk_value_t in = {ETK_VALUE_TENSOR, {.tensor = &t}};
    if (etk_method_set_input(d->m, 0, &in, err) ||
        etk_method_execute(d->m, err))
      return 1;
  }
  return cli_recorder_write(&d->rec, d->etdump_path, d->debug_path, &d->dropped,
                            err);
}

/* Steps 2 and 4: the bundled program (the input and the expected output
 * from this runtime) and the ETRecord (the graph and the maps that link
 * instruction ids and the delegate's debug ids to graph nodes). */
static int write_bundle_and_etrecord(demo_t *d, etk_error_t *err) {
  int32_t s_in[ETK_MAX_DIMS], s_out[ETK_MAX_DIMS];
  etk_tensor_data_t in0, ex0;
  cli_bundled_tensor(etk_method_input(d->m, 0)->u.tensor, d->x, s_in, &in0);
  etk_bundled_case_spec_t cases[1] = {{"forward", &in0, 1, &ex0, 1}};
  uint8_t *bpte = NULL;
  size_t blen = 0;
  int rc = cli_bundled_output(d->m, 0, s_out, &d->expected, &ex0, err) ||
           etk_bundled_write(d->pte, d->pte_len, cases, 1, &bpte, &blen, err) ||
           etk_write_file(d->bpte_path, bpte, blen, err) ||
           etk_demo_model_write_etrecord(d->etrecord_path, &in0, &ex0, err);
  free(bpte);
  return rc;
}

/* What was written, and the model's output. */
static void print_written(const demo_t *d, unsigned runs) {
  printf(
      "etkit demo: built a CNN (convolution, relu, max-pool, a delegated "
      "conv+relu, permute, view, addmm),\nran it %u times on the same "
      "input with tracing and wrote:\n",
      runs);
  report_file(d->pte_path, "the program (ET12, constants in a segment)");
  report_file(d->bpte_path, "bundled program with one test case (BP08)");
  report_file(d->etrecord_path,
              "ETRecord: graph, debug handles, delegate map, refs");
  report_file(d->etdump_path, "ETDump: 1 load block + Execute blocks");
  report_file(d->debug_path, "debug buffer: intermediate and output tensors");
  if (d->dropped)
    printf("warning: the recorder dropped %u events\n", d->dropped);
  printf("output: ");
  cli_print_value(stdout, d->m, 0, 10);
  printf("\n");
  fflush(stdout);
}

int etk_cmd_demo(int argc, char **argv) {
  demo_cli_t c = {"etkit-demo", RUNS};
  int prc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options),
                          argc, argv, apply_option, &c);
  if (prc) return prc < 0 ? 0 : prc;
  etk_error_t err;
  etk_error_clear(&err);
  if (cli_make_dir(c.dir, &err)) return etk_cli_fail_error(CMD, &err);
  demo_t demo;
  memset(&demo, 0, sizeof demo);
  demo_t *d = &demo;
  snprintf(d->pte_path, sizeof d->pte_path, "%s/model.pte", c.dir);
  snprintf(d->bpte_path, sizeof d->bpte_path, "%s/model.bpte", c.dir);
  snprintf(d->etdump_path, sizeof d->etdump_path, "%s/etdump.etdp", c.dir);
  snprintf(d->debug_path, sizeof d->debug_path, "%s/debug_buffer.bin", c.dir);
  snprintf(d->etrecord_path, sizeof d->etrecord_path, "%s/model.etrecord",
           c.dir);
  int status = 0;
  if (build_program(d, &err) || record_runs(d, c.runs, &err) ||
      write_bundle_and_etrecord(d, &err)) {
    status = etk_cli_fail_error(CMD, &err);
  } else {
    print_written(d, c.runs);
    if (show_linked_results(d->etdump_path, d->debug_path, d->etrecord_path,
                            &err))
      status = etk_cli_fail_error(CMD, &err);
    else
      print_hints(d->etdump_path, d->etrecord_path, d->debug_path, d->bpte_path,
                  c.dir);
  }
  demo_free(d);
  return status;
}
