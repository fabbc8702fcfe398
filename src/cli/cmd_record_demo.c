/*
 * cmd_record_demo.c - `etkit record-demo [--output FILE] [--debug-output
 * FILE]`: records a synthetic model run with the portable recorder, exactly
 * as a device would, and writes the .etdp (and optionally the debug buffer).
 *
 * The run mimics what the ExecuTorch runtime emits (doc etdump-recorder.md
 * section 2): a "Default" block for load/init with the method allocator and
 * its allocations, then several "Execute" blocks, each with
 * "Method::execute" around one instruction per operator of a small CNN
 * (OPERATOR_CALL around native_call_<op>.out, chain 0, instruction i), one
 * DELEGATE_CALL whose backend logs per-op delegate events with string ids
 * and metadata plus an intermediate output with an integer id, the kernels'
 * intermediate outputs and the program output (output = true).
 *
 * Time is simulated and deterministic: every clock read returns the current
 * simulated nanosecond and costs 25 ns; kernels "run" for fixed durations.
 * So two invocations write identical files.  The file is written
 * atomically (temp file + rename) by etk_write_file.
 */
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "etkit/common.h"
#include "etkit/recorder.h"

#define DEMO_RUNS 3
#define ARENA_BYTES (96u * 1024u)
#define DEBUG_BYTES (32u * 1024u)

typedef struct demo_clock {
  uint64_t now;
} demo_clock_t;

static uint64_t demo_clock_read(void *ctx) {
  demo_clock_t *c = (demo_clock_t *)ctx;
  c->now += 25; /* what a clock read costs */
  return c->now;
}

typedef struct demo_op {
  const char *kernel; /* native_call_<kernel> */
  uint32_t ns;        /* simulated run time */
  int log_output;     /* logs its output at intermediate level */
} demo_op_t;

static const demo_op_t demo_ops[] = {
    {"native_call_convolution.out", 41000, 1},
    {"native_call_relu.out", 3200, 0},
    {"native_call_max_pool2d_with_indices.out", 6100, 1},
    {"native_call_convolution.out", 52000, 1},
    {"native_call_relu.out", 2900, 0},
    {"native_call_max_pool2d_with_indices.out", 5300, 0},
    {"native_call_permute_copy.out", 1800, 0},
    {"native_call_view_copy.out", 400, 0},
    {"native_call_addmm.out", 9800, 1},
};
#define DEMO_OP_COUNT (sizeof demo_ops / sizeof demo_ops[0])

static uint64_t arena[ARENA_BYTES / 8];
/* 64-aligned so that the first tensor lands at offset 0 */
static _Alignas(64) uint8_t debug_buffer[DEBUG_BYTES];

static const char *const usage_text =
    "usage: etkit record-demo [--output FILE] [--debug-output FILE]\n"
    "  records a synthetic model run with the portable recorder and\n"
    "  writes the ETDump (default: record-demo.etdp)\n";

typedef struct record_demo_cli {
  const char *output, *debug_output;
} record_demo_cli_t;

enum { OPT_OUTPUT = 1, OPT_DEBUG_OUTPUT };

static const etk_cli_option_t options[] = {
    {"output", 'o', ETK_CLI_VALUE, OPT_OUTPUT, 0},
    {"debug_output", 0, ETK_CLI_VALUE, OPT_DEBUG_OUTPUT, 0},
};

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  record_demo_cli_t *c = ctx;
  if (id == ETK_CLI_POSITIONAL)
    return etk_cli_usage("record-demo", "unexpected argument '%s'", p->value);
  if (id == OPT_OUTPUT) c->output = p->value;
  if (id == OPT_DEBUG_OUTPUT) c->debug_output = p->value;
  return 0;
}

/* One kernel instruction: OPERATOR_CALL around native_call_<op>, with the
 * output logged inside the kernel scope as the runtime does. */
static void demo_kernel(etk_recorder_t *rec, demo_clock_t *clk, uint32_t index,
                        const demo_op_t *op, etk_recorder_name_t op_call,
                        const etk_recorder_value_t *output) {
  etk_recorder_scope_t outer, inner;
  etk_recorder_set_chain_debug_handle(rec, 0, index);
  outer = etk_recorder_begin_op(rec, op_call);
  inner = etk_recorder_begin_named(rec, op->kernel, -1, 0);
  clk->now += op->ns;
  if (op->log_output &&
      etk_recorder_should_log(rec, ETK_LOGGED_INTERMEDIATE_OUTPUT))
    etk_recorder_log_value(rec, output, ETK_LOGGED_INTERMEDIATE_OUTPUT);
  etk_recorder_end(rec, &inner);
  etk_recorder_end_op(rec, &outer);
  etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET,
                                      ETK_DEBUG_HANDLE_UNSET);
}

/* The DELEGATE_CALL instruction: the backend logs its ops after the graph
 * ran (log_profiling_delegate), with string ids "<op> #<n>". */
static void demo_delegate(etk_recorder_t *rec, demo_clock_t *clk,
                          uint32_t index, etk_recorder_name_t delegate_call,
                          const etk_recorder_value_t *output) {
  static const char *const backend_ops[] = {"Convolution #1", "Clamp #2",
                                            "FullyConnected #3"};
  static const uint32_t backend_ns[] = {21000, 700, 4300};
  etk_recorder_scope_t call;
  uint64_t t;
  etk_recorder_set_chain_debug_handle(rec, 0, index);
  call = etk_recorder_begin_op(rec, delegate_call);
  t = clk->now;
  for (unsigned i = 0; i < 3; i++) {
    char metadata[32];
    int n = snprintf(metadata, sizeof metadata, "{\"threads\":%u}", 2u + i);
    etk_recorder_log_delegate(rec, backend_ops[i], ETK_DELEGATE_ID_UNSET, t,
                              t + backend_ns[i], metadata, (size_t)n);
    t += backend_ns[i];
  }
  clk->now = t;
  etk_recorder_log_delegate_value(rec, NULL, 3, output);
  etk_recorder_end_op(rec, &call);
  etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET,
                                      ETK_DEBUG_HANDLE_UNSET);
}

static int demo_record(etk_recorder_t *rec, demo_clock_t *clk) {
  static const int64_t fmap_sizes[4] = {1, 8, 6, 6};
  static const int64_t logits_sizes[2] = {1, 10};
  static float fmap[288], logits[10];
  etk_recorder_tensor_t fmap_t, logits_t;
  etk_recorder_value_t fmap_v, logits_v, argmax_v;
  etk_recorder_name_t op_call = etk_recorder_intern(rec, "OPERATOR_CALL");
  etk_recorder_name_t delegate_call = etk_recorder_intern(rec, "DELEGATE_CALL");
  etk_recorder_scope_t load, init, exec;
  uint32_t allocator = 0;
  int status;

  for (unsigned i = 0; i < 288; i++) fmap[i] = (float)(i % 17) * 0.25f;
  for (unsigned i = 0; i < 10; i++) logits[i] = (float)i - 4.5f;
  memset(&fmap_t, 0, sizeof fmap_t);
  fmap_t.scalar_type = 6; /* FLOAT */
  fmap_t.dim = 4;
  fmap_t.sizes = fmap_sizes;
  fmap_t.data = fmap;
  fmap_t.nbytes = sizeof fmap;
  logits_t = fmap_t;
  logits_t.dim = 2;
  logits_t.sizes = logits_sizes;
  logits_t.data = logits;
  logits_t.nbytes = sizeof logits;
  fmap_v = etk_value_tensor(&fmap_t);
  logits_v = etk_value_tensor(&logits_t);
  argmax_v = etk_value_int(9);

  etk_recorder_set_debug_level(rec, ETK_DEBUG_LEVEL_INTERMEDIATE_OUTPUTS);
  status =
      etk_recorder_set_debug_buffer(rec, debug_buffer, sizeof debug_buffer);
  if (status != ETK_OK) return status;

  /* Program::load_method: the Default block */
  status = etk_recorder_begin_block(rec, "Default");
  if (status != ETK_OK) return status;
  etk_recorder_track_allocator(rec, "method_allocator", &allocator);
  etk_recorder_track_allocator(rec, "planned_memory", NULL);
  load = etk_recorder_begin_named(rec, "Program::load_method", -1, 0);
  init = etk_recorder_begin_named(rec, "Method::init", -1, 0);
  etk_recorder_track_allocation(rec, allocator, 2048);
  etk_recorder_track_allocation(rec, allocator, 512);
  etk_recorder_track_allocation(rec, 2, 18432);
  clk->now += 15000;
  etk_recorder_end(rec, &init);
  etk_recorder_end(rec, &load);

  /* Method::execute, several times */
  for (unsigned run = 0; run < DEMO_RUNS; run++) {
    etk_recorder_set_bundled_input_index(rec, (int32_t)run);
    status = etk_recorder_begin_block(rec, "Execute");
    if (status != ETK_OK && status != ETK_E_FULL) return status;
    exec = etk_recorder_begin_named(rec, "Method::execute", -1, 0);
    for (uint32_t i = 0; i < DEMO_OP_COUNT; i++) {
      demo_kernel(rec, clk, i, &demo_ops[i], op_call,
                  i + 1 == DEMO_OP_COUNT ? &logits_v : &fmap_v);
      clk->now += 150; /* the executor between instructions */
    }
    demo_delegate(rec, clk, (uint32_t)DEMO_OP_COUNT, delegate_call, &argmax_v);
    if (etk_recorder_should_log(rec, ETK_LOGGED_PROGRAM_OUTPUT))
      etk_recorder_log_value(rec, &logits_v, ETK_LOGGED_PROGRAM_OUTPUT);
    etk_recorder_end(rec, &exec);
    clk->now += 100000; /* the application between runs */
  }
  return ETK_OK;
}

int etk_cmd_record_demo(int argc, char **argv) {
  const char *output, *debug_output;
  etk_recorder_config_t cfg;
  etk_recorder_t *rec;
  etk_recorder_stats_t st;
  demo_clock_t clk;
  etk_error_t err;
  const uint8_t *data;
  size_t len;
  int status;

  record_demo_cli_t cli = {"record-demo.etdp", NULL};
  status =
      etk_cli_parse("record-demo", usage_text, options, ETK_CLI_COUNT(options),
                    argc, argv, apply_option, &cli);
  if (status) return status < 0 ? 0 : status;
  output = cli.output;
  debug_output = cli.debug_output;
  if ((status = etk_cli_check_output("record-demo", output)) ||
      (status = etk_cli_check_output("record-demo", debug_output)))
    return status;

  clk.now = 1000000;
  etk_recorder_config_init(&cfg);
  cfg.clock = demo_clock_read;
  cfg.clock_ctx = &clk;
  status = etk_recorder_init(&rec, arena, sizeof arena, &cfg);
  if (status != ETK_OK)
    return etk_cli_fail("record-demo", "cannot set up the recorder: %s",
                        etk_strerror(status));
  status = demo_record(rec, &clk);
  if (status != ETK_OK)
    return etk_cli_fail("record-demo", "recording failed: %s",
                        etk_strerror(status));
  etk_recorder_stats(rec, &st);
  status = etk_recorder_finish(rec, &data, &len);
  if (status != ETK_OK)
    return etk_cli_fail("record-demo", "finish failed: %s",
                        etk_strerror(status));

  etk_error_clear(&err);
  if (etk_write_file(output, data, len, &err) != ETK_OK) {
    char line[ETK_ERROR_LINE_SIZE];
    return etk_cli_fail("record-demo", "%s",
                        etk_error_format(&err, line, sizeof line));
  }
  if (debug_output != NULL) {
    size_t used = etk_recorder_debug_buffer_used(rec);
    etk_error_clear(&err);
    if (etk_write_file(debug_output, debug_buffer, used, &err) != ETK_OK) {
      char line[ETK_ERROR_LINE_SIZE];
      return etk_cli_fail("record-demo", "%s",
                          etk_error_format(&err, line, sizeof line));
    }
  }
  printf("wrote %s: %u blocks, %u events, %zu bytes, %u dropped\n", output,
         st.blocks, st.events, len, st.dropped_events);
  printf(
      "  recorder arena: %zu bytes of records, %zu bytes of names, "
      "finish reserved %zu bytes\n",
      st.record_bytes, st.string_bytes, st.output_reserved);
  if (debug_output != NULL)
    printf("wrote %s: %zu bytes of logged tensors\n", debug_output,
           etk_recorder_debug_buffer_used(rec));
  return 0;
}
