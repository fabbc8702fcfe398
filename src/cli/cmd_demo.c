/*
 * cmd_demo.c - `etkit demo [--output-dir DIR]`: the whole developer-tools
 * loop on one small model, without Python.
 *
 *   1. builds a small convolutional network in C with the program builder
 *      (the tutorial model's operators: convolution, relu, max-pool,
 *      permute, view, addmm), part of it (a second convolution + relu)
 *      lowered to EtkitMicroBackend as a delegate whose ops report string
 *      debug ids "<op> #<n>", as upstream's XNNPACK delegate does;
 *   2. writes model.pte and a bundled model.bpte (one test case whose
 *      expected outputs come from the reference runtime);
 *   3. runs the model several times on the same input (as upstream's
 *      example runner does, so the runs' logged values agree) with tracing
 *      at the "intermediates" debug level, writing etdump.etdp and
 *      debug_buffer.bin;
 *   4. writes model.etrecord (the graph, debug handles, the instruction ->
 *      handle map and the delegate map of the delegate's debug ids) so the
 *      inspector can link events to graph nodes;
 *   5. opens the ETDump with the inspector, links it with the ETRecord and
 *      prints each operator with its op type and module, the
 *      per-operator-type summary, and the commands to go further.
 *
 * Weights are a fixed pseudo-random sequence, so every run of the demo
 * produces the same model, the same outputs and (timings aside) the same
 * files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
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

static uint32_t lcg_state = 12345u;
static float next_weight(float scale) {
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return ((float)(lcg_state >> 8) / 16777216.0f - 0.5f) * scale;
}

static float *weights(size_t n, float scale) {
  float *w = malloc(n * sizeof *w);
  if (w)
    for (size_t k = 0; k < n; k++) w[k] = next_weight(scale);
  return w;
}

/* The delegated part: conv(in, w, b) -> relu -> out, as an
 * EtkitMicroBackend payload.  DelegateCall args: [in, w, b, out].  The ops'
 * debug ids are the keys of the ETRecord's delegate map (write_etrecord). */
#define DELEGATE_ID_CONV "convolution #0"
#define DELEGATE_ID_RELU "relu #1"

static int build_payload(uint8_t *buf, size_t cap, size_t *len) {
  etk_micro_graph_t g;
  etk_micro_graph_init(&g, buf, cap);
  int in = etk_micro_graph_arg(&g, 0), w = etk_micro_graph_arg(&g, 1);
  int b = etk_micro_graph_arg(&g, 2), out = etk_micro_graph_arg(&g, 3);
  int one = etk_micro_graph_int(&g, 1), zero = etk_micro_graph_int(&g, 0);
  uint16_t ones[2] = {(uint16_t)one, (uint16_t)one};
  uint16_t zeros[2] = {(uint16_t)zero, (uint16_t)zero};
  int stride = etk_micro_graph_int_list(&g, ones, 2);
  int pad = etk_micro_graph_int_list(&g, ones, 2);
  int dil = etk_micro_graph_int_list(&g, ones, 2);
  int opad = etk_micro_graph_int_list(&g, zeros, 2);
  int transposed = etk_micro_graph_bool(&g, false);
  int32_t tsz[4] = {1, 8, 4, 4};
  int tmp = etk_micro_graph_tensor(&g, ETK_FLOAT, 4, tsz);
  uint16_t conv_args[11] = {(uint16_t)in,         (uint16_t)w,    (uint16_t)b,
                            (uint16_t)stride,     (uint16_t)pad,  (uint16_t)dil,
                            (uint16_t)transposed, (uint16_t)opad, (uint16_t)one,
                            (uint16_t)tmp,        (uint16_t)tmp};
  static const char meta[] = "conv2d 3x3 pad 1";
  etk_micro_graph_op(&g, "aten::convolution.out", DELEGATE_ID_CONV, -1, meta,
                     (uint16_t)(sizeof meta - 1), conv_args, 11, 1);
  uint16_t relu_args[3] = {(uint16_t)tmp, (uint16_t)out, (uint16_t)out};
  etk_micro_graph_op(&g, "aten::relu.out", DELEGATE_ID_RELU, -1, NULL, 0,
                     relu_args, 3, 1);
  return etk_micro_graph_finish(&g, len);
}

/* Builds the program; returns the .pte bytes (malloc'd). */
static int build_model(uint8_t **pte, size_t *len, etk_error_t *err) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  if (!b)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  float *w1 = weights(4 * 1 * 3 * 3, 0.8f), *b1 = weights(4, 0.2f);
  float *w2 = weights(8 * 4 * 3 * 3, 0.4f), *b2 = weights(8, 0.2f);
  float *w3 = weights(32 * 10, 0.3f), *b3 = weights(10, 0.1f);
  int rc = ETK_E_NO_MEMORY;
  uint8_t payload[1024];
  size_t payload_len = 0;
  if (!w1 || !b1 || !w2 || !b2 || !w3 || !b3) goto out;
  rc = build_payload(payload, sizeof payload, &payload_len);
  if (rc != ETK_OK) {
    etk_error_set(err, rc, ETK_NO_OFFSET, "cannot build the delegate payload");
    goto out;
  }
  const int32_t s_in[4] = {1, 1, 8, 8}, s_w1[4] = {4, 1, 3, 3}, s_b1[1] = {4};
  const int32_t s_c1[4] = {1, 4, 8, 8}, s_p1[4] = {1, 4, 4, 4};
  const int32_t s_w2[4] = {8, 4, 3, 3}, s_b2[1] = {8}, s_d[4] = {1, 8, 4, 4};
  const int32_t s_p2[4] = {1, 8, 2, 2}, s_t[4] = {1, 2, 2, 8};
  const int32_t s_v[2] = {1, 32}, s_w3[2] = {32, 10}, s_b3[1] = {10};
  const int32_t s_o[2] = {1, 10};
  int x = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, s_in, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int cw1 = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, s_w1, NULL,
                                           ETK_BUILDER_CONSTANT, w1);
  int cb1 = etk_program_builder_add_tensor(b, ETK_FLOAT, 1, s_b1, NULL,
                                           ETK_BUILDER_CONSTANT, b1);
  const int64_t one2[2] = {1, 1}, zero2[2] = {0, 0}, two2[2] = {2, 2};
  int stride = etk_program_builder_add_int_list(b, one2, 2);
  int pad = etk_program_builder_add_int_list(b, one2, 2);
  int dil = etk_program_builder_add_int_list(b, one2, 2);
  int opad = etk_program_builder_add_int_list(b, zero2, 2);
  int transposed = etk_program_builder_add_bool(b, false);
  int groups = etk_program_builder_add_int(b, 1);
  int c1 = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, s_c1, NULL,
                                          ETK_BUILDER_PLANNED, NULL);
  int r1 = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, s_c1, NULL,
                                          ETK_BUILDER_PLANNED, NULL);
  int kernel = etk_program_builder_add_int_list(b, two2, 2);
  int pstride = etk_program_builder_add_int_list(b, two2, 2);
  int ppad = etk_program_builder_add_int_list(b, zero2, 2);
  int pdil = etk_program_builder_add_int_list(b, one2, 2);
  int ceil = etk_program_builder_add_bool(b, false);
  int p1 = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, s_p1, NULL,
                                          ETK_BUILDER_PLANNED, NULL);
  int i1 = etk_program_builder_add_tensor(b, ETK_LONG, 4, s_p1, NULL,
                                          ETK_BUILDER_PLANNED, NULL);
  int cw2 = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, s_w2, NULL,
                                           ETK_BUILDER_CONSTANT, w2);
  int cb2 = etk_program_builder_add_tensor(b, ETK_FLOAT, 1, s_b2, NULL,
                                           ETK_BUILDER_CONSTANT, b2);
  int d = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, s_d, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int p2 = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, s_p2, NULL,
                                          ETK_BUILDER_PLANNED, NULL);
  int i2 = etk_program_builder_add_tensor(b, ETK_LONG, 4, s_p2, NULL,
                                          ETK_BUILDER_PLANNED, NULL);
  const int64_t perm[4] = {0, 2, 3, 1}, view[2] = {1, 32};
  int dims = etk_program_builder_add_int_list(b, perm, 4);
  int t = etk_program_builder_add_tensor(b, ETK_FLOAT, 4, s_t, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int size = etk_program_builder_add_int_list(b, view, 2);
  int v = etk_program_builder_add_tensor(b, ETK_FLOAT, 2, s_v, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int cw3 = etk_program_builder_add_tensor(b, ETK_FLOAT, 2, s_w3, NULL,
                                           ETK_BUILDER_CONSTANT, w3);
  int cb3 = etk_program_builder_add_tensor(b, ETK_FLOAT, 1, s_b3, NULL,
                                           ETK_BUILDER_CONSTANT, b3);
  int beta = etk_program_builder_add_int(b, 1), alpha = beta;
  int out = etk_program_builder_add_tensor(b, ETK_FLOAT, 2, s_o, NULL,
                                           ETK_BUILDER_PLANNED, NULL);
  int op_conv = etk_program_builder_add_operator(b, "aten::convolution", "out");
  int op_relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  int op_pool = etk_program_builder_add_operator(
      b, "aten::max_pool2d_with_indices", "out");
  int op_perm =
      etk_program_builder_add_operator(b, "aten::permute_copy", "out");
  int op_view = etk_program_builder_add_operator(b, "aten::view_copy", "out");
  int op_addmm = etk_program_builder_add_operator(b, "aten::addmm", "out");
  const char *spec_keys[1] = {"origin"};
  const uint8_t spec_value[] = "etkit demo";
  const uint8_t *spec_values[1] = {spec_value};
  const uint32_t spec_lens[1] = {sizeof spec_value - 1};
  int del = etk_program_builder_add_delegate(b, ETK_MICRO_BACKEND_ID, payload,
                                             payload_len, spec_keys,
                                             spec_values, spec_lens, 1);
  int32_t a0[] = {x,          cw1,  cb1,    stride, pad, dil,
                  transposed, opad, groups, c1,     c1};
  etk_program_builder_kernel_call(b, op_conv, a0, 11);
  int32_t a1[] = {c1, r1, r1};
  etk_program_builder_kernel_call(b, op_relu, a1, 3);
  int32_t a2[] = {r1, kernel, pstride, ppad, pdil, ceil, p1, i1, p1, i1};
  etk_program_builder_kernel_call(b, op_pool, a2, 10);
  int32_t a3[] = {p1, cw2, cb2, d};
  etk_program_builder_delegate_call(b, del, a3, 4);
  int32_t a4[] = {d, kernel, pstride, ppad, pdil, ceil, p2, i2, p2, i2};
  etk_program_builder_kernel_call(b, op_pool, a4, 10);
  int32_t a5[] = {p2, dims, t, t};
  etk_program_builder_kernel_call(b, op_perm, a5, 4);
  int32_t a6[] = {t, size, v, v};
  etk_program_builder_kernel_call(b, op_view, a6, 4);
  int32_t a7[] = {cb3, v, cw3, beta, alpha, out, out};
  etk_program_builder_kernel_call(b, op_addmm, a7, 7);
  int32_t inputs[] = {x}, outputs[] = {out};
  etk_program_builder_set_inputs(b, inputs, 1);
  etk_program_builder_set_outputs(b, outputs, 1);
  rc = etk_program_builder_finish(b, pte, len, err);
out:
  if (rc == ETK_E_NO_MEMORY && !*pte)
    etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  free(w1);
  free(b1);
  free(w2);
  free(b2);
  free(w3);
  free(b3);
  etk_program_builder_free(b);
  return rc;
}

/* Describes a bundled tensor for the ETRecord writer (sizes into `dims`). */
static etk_torch_tensor_desc_t torch_desc(const etk_tensor_data_t *t,
                                          int64_t *dims) {
  for (uint32_t k = 0; k < t->dim; k++) dims[k] = t->sizes[k];
  etk_torch_tensor_desc_t d = {t->scalar_type, t->dim, dims, t->data,
                               t->nbytes};
  return d;
}

/* The ETRecord: one node per graph operator with its debug handle, the
 * instruction -> handle map and the delegate map of instruction 3, and the
 * bundled test case's input and expected output as representative_inputs
 * and reference_outputs (so `etkit inspect --compare_results` works). */
static int write_etrecord(const char *path, const etk_tensor_data_t *input,
                          const etk_tensor_data_t *expected, etk_error_t *err) {
  static const char *const names[] = {"aten_convolution_default",
                                      "aten_relu_default",
                                      "aten_max_pool2d_with_indices_default",
                                      "aten_convolution_default_1",
                                      "aten_relu_default_1",
                                      "aten_max_pool2d_with_indices_default_1",
                                      "aten_permute_copy_default",
                                      "aten_view_copy_default",
                                      "aten_addmm_default"};
  static const char *const ops[] = {
      "aten::convolution",  "aten::relu",      "aten::max_pool2d_with_indices",
      "aten::convolution",  "aten::relu",      "aten::max_pool2d_with_indices",
      "aten::permute_copy", "aten::view_copy", "aten::addmm"};
  static const char *const modules[][3] = {
      {"L__self___conv1", "conv1", "torch.nn.modules.conv.Conv2d"},
      {"L__self___relu1", "relu1", "torch.nn.modules.activation.ReLU"},
      {"L__self___pool1", "pool1", "torch.nn.modules.pooling.MaxPool2d"},
      {"L__self___conv2", "conv2", "torch.nn.modules.conv.Conv2d"},
      {"L__self___relu2", "relu2", "torch.nn.modules.activation.ReLU"},
      {"L__self___pool2", "pool2", "torch.nn.modules.pooling.MaxPool2d"},
      {"", "", ""},
      {"", "", ""},
      {"L__self___fc", "fc", "torch.nn.modules.linear.Linear"}};
  enum { N = 9 };
  char targets[N][128];
  char traces[N][160];
  etk_etrecord_node_desc_t nodes[N];
  etk_etrecord_input_desc_t inputs[N];
  etk_etrecord_module_desc_t stacks[N][2];
  const char *outs[N][1];
  memset(nodes, 0, sizeof nodes);
  for (int k = 0; k < N; k++) {
    char op[96];
    snprintf(op, sizeof op, "%s.default", ops[k]);
    etk_etrecord_edge_target(op, targets[k], sizeof targets[k]);
    snprintf(traces[k], sizeof traces[k],
             "  File \"demo_model.py\", line %d, in forward\n    x = "
             "self.layer%d(x)\n",
             20 + k, k);
    inputs[k].arg = k == 8 ? "mat1" : "self";
    inputs[k].tensor = k == 0 ? "x" : names[k - 1];
    stacks[k][0] = (etk_etrecord_module_desc_t){"L__self__", "", "demo.Model"};
    stacks[k][1] = (etk_etrecord_module_desc_t){modules[k][0], modules[k][1],
                                                modules[k][2]};
    outs[k][0] = names[k];
    nodes[k].name = names[k];
    nodes[k].target = targets[k];
    nodes[k].debug_handle = k + 1;
    nodes[k].stack_trace = traces[k];
    nodes[k].module_stack = stacks[k];
    nodes[k].module_stack_count = modules[k][0][0] ? 2 : 1;
    nodes[k].inputs = &inputs[k];
    nodes[k].input_count = 1;
    nodes[k].outputs = outs[k];
    nodes[k].output_count = 1;
  }
  /* instruction -> handles (instruction 3 is the delegate call) */
  static const int64_t h[N] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  etk_etrecord_handle_desc_t handles[] = {
      {0, &h[0], 1, false}, {1, &h[1], 1, false}, {2, &h[2], 1, false},
      {3, &h[3], 2, true},  {4, &h[5], 1, false}, {5, &h[6], 1, false},
      {6, &h[7], 1, false}, {7, &h[8], 1, false}};
  etk_etrecord_delegate_id_desc_t ids[] = {{DELEGATE_ID_CONV, &h[3], 1},
                                           {DELEGATE_ID_RELU, &h[4], 1}};
  etk_etrecord_delegate_desc_t delegates[] = {
      {3, ETK_MICRO_BACKEND_ID, ids, 2, 1}};
  const char *graph_in[] = {"x"};
  const char *graph_out[] = {names[N - 1]};
  etk_etrecord_method_desc_t m;
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.nodes = nodes;
  m.node_count = N;
  m.graph_inputs = graph_in;
  m.graph_input_count = 1;
  m.graph_outputs = graph_out;
  m.graph_output_count = 1;
  m.handles = handles;
  m.handle_count = sizeof handles / sizeof handles[0];
  m.delegates = delegates;
  m.delegate_count = 1;
  int64_t in_dims[ETK_MAX_DIMS], out_dims[ETK_MAX_DIMS];
  etk_torch_tensor_desc_t in_desc = torch_desc(input, in_dims);
  etk_torch_tensor_desc_t out_desc = torch_desc(expected, out_dims);
  etk_etrecord_case_desc_t case0 = {&out_desc, 1};
  etk_etrecord_reference_desc_t ref = {"forward", &case0, 1};
  etk_etrecord_references_desc_t refs = {&ref, 1, &in_desc, 1};
  etk_etrecord_desc_t desc;
  memset(&desc, 0, sizeof desc);
  desc.methods = &m;
  desc.method_count = 1;
  desc.references = &refs;
  return etk_etrecord_write_file(&desc, path, err);
}

static void fill_input(float *x, size_t n) {
  for (size_t k = 0; k < n; k++) x[k] = (float)((int)((k * 7) % 17) - 8) / 8.0f;
}

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

/* What to run next: commands that can be pasted into a shell as they
 * are (paths quoted when needed, explanations as comments). */
static void print_hints(const char *etdp, const char *rec, const char *dbg,
                        const char *bpte, const char *dir) {
  static char q[6][8200];
  const char *e = shell_word(etdp, q[0], sizeof q[0]);
  const char *r = shell_word(rec, q[1], sizeof q[1]);
  const char *d = shell_word(dbg, q[2], sizeof q[2]);
  const char *b = shell_word(bpte, q[3], sizeof q[3]);
  char out[4200];
  snprintf(out, sizeof out, "%s/trace.json", dir);
  const char *t = shell_word(out, q[4], sizeof q[4]);
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
  char pte[4200];
  snprintf(pte, sizeof pte, "%s/model.pte", dir);
  const char *p = shell_word(pte, q[5], sizeof q[5]);
  printf(
      "  # the program's memory plan: buffers, peaks, lifetimes (--check "
      "verifies it)\n"
      "  etkit memory %s --etrecord %s\n",
      p, r);
  snprintf(out, sizeof out, "%s/report.html", dir);
  printf(
      "  # a self-contained HTML report, with the memory map of the plan\n"
      "  etkit report --etdump_path %s --etrecord_path %s --program %s -o %s\n",
      e, r, p, shell_word(out, q[4], sizeof q[4]));
}

typedef struct demo_cli {
  const char *dir;
  unsigned runs;
} demo_cli_t;

enum { OPT_OUTPUT_DIR = 1, OPT_RUNS };

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

int etk_cmd_demo(int argc, char **argv) {
  demo_cli_t c = {"etkit-demo", RUNS};
  int prc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options),
                          argc, argv, apply_option, &c);
  if (prc) return prc < 0 ? 0 : prc;
  const char *dir = c.dir;
  unsigned runs = c.runs;
  etk_error_t err;
  etk_error_clear(&err);
  if (cli_make_dir(dir, &err)) return etk_cli_fail_error(CMD, &err);
  char p_pte[4096], p_bpte[4096], p_etdp[4096], p_dbg[4096], p_rec[4096];
  snprintf(p_pte, sizeof p_pte, "%s/model.pte", dir);
  snprintf(p_bpte, sizeof p_bpte, "%s/model.bpte", dir);
  snprintf(p_etdp, sizeof p_etdp, "%s/etdump.etdp", dir);
  snprintf(p_dbg, sizeof p_dbg, "%s/debug_buffer.bin", dir);
  snprintf(p_rec, sizeof p_rec, "%s/model.etrecord", dir);

  uint8_t *pte = NULL;
  size_t pte_len = 0;
  if (build_model(&pte, &pte_len, &err) ||
      etk_write_file(p_pte, pte, pte_len, &err)) {
    free(pte);
    return etk_cli_fail_error(CMD, &err);
  }
  etk_program_t *prog = NULL;
  int status = 0;
  etk_method_t *m = NULL;
  cli_recorder_t rec;
  memset(&rec, 0, sizeof rec);
  float x[64];
  void *expected = NULL;
  if (etk_program_load(pte, pte_len, NULL, &prog, &err)) {
    status = etk_cli_fail_error(CMD, &err);
    goto out;
  }
  const etk_program_plan_t *plan = etk_program_find_plan(prog, "forward");
  /* no allocation events: upstream's Inspector stops on them */
  etk_method_config_t load;
  memset(&load, 0, sizeof load);
  load.no_allocation_events = 1;
  int rc = cli_recorder_create(plan, runs, CLI_DEBUG_INTERMEDIATES,
                               CLI_PROFILE_ALL, 1, &rec, &err);
  load.recorder = rec.rec;
  if (rc || etk_method_load_alloc_with(prog, "forward", &load, &m, &err)) {
    status = etk_cli_fail_error(CMD, &err);
    goto out;
  }
  /* The same input every run, as upstream's example runner does: the
   * inspector merges the runs, and their logged values must agree. */
  fill_input(x, 64);
  for (unsigned r = 0; r < runs; r++) {
    etk_tensor_t t = *etk_method_input(m, 0)->u.tensor;
    memset(t.dim_order, 0, sizeof t.dim_order);
    t.data = x;
    t.nbytes = sizeof x;
    etk_value_t in = {ETK_VALUE_TENSOR, {.tensor = &t}};
    if (etk_method_set_input(m, 0, &in, &err) || etk_method_execute(m, &err)) {
      status = etk_cli_fail_error(CMD, &err);
      goto out;
    }
  }
  uint32_t dropped = 0;
  if (cli_recorder_write(&rec, p_etdp, p_dbg, &dropped, &err)) {
    status = etk_cli_fail_error(CMD, &err);
    goto out;
  }

  /* A bundled program: the input and the expected output from this
   * runtime. */
  int32_t s_in[ETK_MAX_DIMS], s_out[ETK_MAX_DIMS];
  etk_tensor_data_t in0, ex0;
  {
    cli_bundled_tensor(etk_method_input(m, 0)->u.tensor, x, s_in, &in0);
    etk_bundled_case_spec_t cases[1] = {{"forward", &in0, 1, &ex0, 1}};
    uint8_t *bpte = NULL;
    size_t blen = 0;
    if (cli_bundled_output(m, 0, s_out, &expected, &ex0, &err) ||
        etk_bundled_write(pte, pte_len, cases, 1, &bpte, &blen, &err) ||
        etk_write_file(p_bpte, bpte, blen, &err)) {
      free(bpte);
      status = etk_cli_fail_error(CMD, &err);
      goto out;
    }
    free(bpte);
  }
  /* ETRecord: the graph and the maps that link instruction ids (and the
   * delegate's debug ids) to graph nodes. */
  if (write_etrecord(p_rec, &in0, &ex0, &err)) {
    status = etk_cli_fail_error(CMD, &err);
    goto out;
  }
  printf(
      "etkit demo: built a CNN (convolution, relu, max-pool, a delegated "
      "conv+relu, permute, view, addmm),\nran it %u times on the same "
      "input with tracing and wrote:\n",
      runs);
  report_file(p_pte, "the program (ET12, constants in a segment)");
  report_file(p_bpte, "bundled program with one test case (BP08)");
  report_file(p_rec, "ETRecord: graph, debug handles, delegate map, refs");
  report_file(p_etdp, "ETDump: 1 load block + Execute blocks");
  report_file(p_dbg, "debug buffer: intermediate and output tensors");
  if (dropped) printf("warning: the recorder dropped %u events\n", dropped);
  printf("output: ");
  cli_print_value(stdout, m, 0, 10);
  printf("\n");
  fflush(stdout);
  if (show_linked_results(p_etdp, p_dbg, p_rec, &err)) {
    status = etk_cli_fail_error(CMD, &err);
    goto out;
  }
  print_hints(p_etdp, p_rec, p_dbg, p_bpte, dir);
out:
  free(expected);
  etk_method_free(m);
  cli_recorder_free(&rec);
  etk_program_free(prog);
  free(pte);
  return status;
}
