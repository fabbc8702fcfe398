/*
 * cmd_info_program.c - what `etkit info` says about a program beyond its
 * methods: the layout (delegates per backend, segments, planned memory),
 * `--ops` (each operator of each method with the number of instructions
 * calling it and whether the reference runtime has a kernel for it,
 * etk_kernel_find), `--sizes` (upstream's size_analysis_tool figures,
 * etk_program_sizes_build) and `--selective-build FILE` (upstream's
 * selected_operators.yaml, etk_program_selective_build_yaml).  The
 * figures come from etkit/program_tools.h; this file prints them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cmd_info.h"
#include "commands.h"
#include "etkit/graph.h"
#include "etkit/program_tools.h"
#include "etkit/runtime.h"

#define CMD "info"

void cli_info_program_layout(const etk_program_t *p) {
  uint32_t delegates = 0;
  for (uint32_t k = 0; k < p->plan_count; k++)
    delegates += p->plans[k].delegate_count;
  if (delegates) {
    printf("delegates:\n");
    for (uint32_t k = 0; k < p->plan_count; k++)
      for (uint32_t d = 0; d < p->plans[k].delegate_count; d++) {
        const etk_program_delegate_t *dg = &p->plans[k].delegates[d];
        printf("  %s delegate %u: backend %s, %" PRIu64
               " bytes %s, %u "
               "compile spec%s\n",
               p->plans[k].name, d, dg->id ? dg->id : "?", dg->size,
               dg->location == 1 ? "in a segment" : "inline",
               dg->compile_spec_count, dg->compile_spec_count == 1 ? "" : "s");
      }
  }
  if (p->segment_count) {
    printf("segments: %u", p->segment_count);
    uint64_t total = 0;
    for (uint32_t s = 0; s < p->segment_count; s++)
      total += p->segments[s].size;
    printf(", %" PRIu64 " bytes (", total);
    for (uint32_t s = 0; s < p->segment_count; s++)
      printf("%s%" PRIu64, s ? ", " : "", p->segments[s].size);
    printf(")\n");
  }
  for (uint32_t k = 0; k < p->plan_count; k++) {
    const etk_program_plan_t *plan = &p->plans[k];
    if (plan->buffer_size_count <= 1) continue;
    int64_t total = 0;
    for (uint32_t b = 1; b < plan->buffer_size_count; b++)
      total += plan->buffer_sizes[b];
    printf("planned memory of %s: %" PRId64 " bytes in %u buffer%s (",
           plan->name, total, plan->buffer_size_count - 1,
           plan->buffer_size_count == 2 ? "" : "s");
    for (uint32_t b = 1; b < plan->buffer_size_count; b++)
      printf("%s%" PRId64, b > 1 ? ", " : "", plan->buffer_sizes[b]);
    printf(")\n");
  }
}

void cli_info_ops(const etk_program_t *p) {
  size_t missing = 0;
  for (uint32_t k = 0; k < p->plan_count; k++) {
    const etk_program_plan_t *plan = &p->plans[k];
    uint32_t *counts =
        calloc(plan->operator_count ? plan->operator_count : 1, sizeof *counts);
    if (!counts) return;
    uint32_t total = etk_program_op_calls(plan, counts);
    printf("method %s: %u operator%s, %u kernel call%s\n", plan->name,
           plan->operator_count, plan->operator_count == 1 ? "" : "s", total,
           total == 1 ? "" : "s");
    printf("  %-40s %6s  %s\n", "operator", "calls", "kernel");
    for (uint32_t o = 0; o < plan->operator_count; o++) {
      const char *name = plan->operators[o].full_name;
      bool have = etk_kernel_find(name) != NULL;
      if (!have) missing++;
      printf("  %-40s %6u  %s\n", name, counts[o], have ? "yes" : "no");
    }
    free(counts);
  }
  if (missing)
    printf("%zu operator%s without a kernel in etkit's runtime\n", missing,
           missing == 1 ? "" : "s");
}

static void print_shape(const etk_program_size_tensor_t *t) {
  putchar('[');
  for (uint32_t d = 0; d < t->dim; d++)
    printf("%s%d", d ? ", " : "", t->sizes[d]);
  putchar(']');
}

/* Constant bytes per module (the fully qualified names' prefixes). */
static void print_modules(const etk_program_sizes_t *s) {
  typedef struct {
    char name[256];
    uint64_t bytes;
    uint32_t tensors;
  } row_t;
  row_t *rows = calloc(s->tensor_count ? s->tensor_count : 1, sizeof *rows);
  size_t n = 0;
  if (!rows) return;
  for (size_t i = 0; i < s->tensor_count; i++) {
    const etk_program_size_tensor_t *t = &s->tensors[i];
    if (t->shared || !t->name) continue;
    char mod[256];
    etk_program_fqn_module(t->name, mod, sizeof mod);
    size_t r = 0;
    while (r < n && strcmp(rows[r].name, mod) != 0) r++;
    if (r == n) snprintf(rows[n++].name, sizeof rows->name, "%s", mod);
    rows[r].bytes += t->nbytes;
    rows[r].tensors++;
  }
  if (n) printf("constant bytes per module:\n");
  for (size_t r = 0; r < n; r++)
    printf("  %-40s %12" PRIu64 "  %u tensor%s\n",
           rows[r].name[0] ? rows[r].name : "(top)", rows[r].bytes,
           rows[r].tensors, rows[r].tensors == 1 ? "" : "s");
  free(rows);
}

int cli_info_sizes(const etk_program_t *p) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_sizes_t s;
  if (etk_program_sizes_build(p, &s, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  printf("model_size %" PRIu64 "  total_tensor_data_size %" PRIu64
         "  total_delegate_blob_data_size %" PRIu64
         "  serialization_metadata_size %" PRIu64 "\n",
         s.model_size, s.total_tensor_data_size,
         s.total_delegate_blob_data_size, s.serialization_metadata_size);
  printf("tensor_data: %zu constant tensor%s\n", s.tensor_count,
         s.tensor_count == 1 ? "" : "s");
  for (size_t i = 0; i < s.tensor_count; i++) {
    const etk_program_size_tensor_t *t = &s.tensors[i];
    printf("  %12" PRIu64 "  %-8s ", t->nbytes,
           etk_scalar_type_name(t->scalar_type));
    print_shape(t);
    printf("  %s value %u", p->plans[t->plan].name, t->value);
    if (t->name) printf("  %s", t->name);
    if (t->shared) printf("  (shares buffer %u)", t->buffer_index);
    putchar('\n');
  }
  print_modules(&s);
  if (s.delegate_count)
    printf("delegate_blob_data: %zu payload%s\n", s.delegate_count,
           s.delegate_count == 1 ? "" : "s");
  for (size_t i = 0; i < s.delegate_count; i++) {
    const etk_program_size_delegate_t *d = &s.delegates[i];
    printf("  %12" PRIu64 "  %s delegate %u  backend %s\n", d->nbytes,
           p->plans[d->plan].name, d->index,
           d->backend_id ? d->backend_id : "?");
  }
  if (s.buffer_count)
    printf("planned memory: %" PRIu64 " bytes\n", s.total_planned_bytes);
  for (size_t i = 0; i < s.buffer_count; i++) {
    const etk_program_size_buffer_t *b = &s.buffers[i];
    printf("  %12" PRIu64 "  %s buffer %u  %u tensor%s\n", b->nbytes,
           p->plans[b->plan].name, b->memory_id, b->tensors,
           b->tensors == 1 ? "" : "s");
  }
  etk_program_sizes_free(&s);
  return 0;
}

/* --sizes --etrecord: the ETRecord's constants as upstream's tool lists
 * them (each parameter, buffer and lifted constant placeholder of the edge
 * program: node name, dtype, shape, bytes, state-dict key), then bytes per
 * module by that key's prefix. */
int cli_info_etrecord_sizes(const char *path) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_etrecord_t *rec = NULL;
  etk_graph_t *g = NULL;
  if (etk_etrecord_open_file(path, NULL, &rec, &err) != ETK_OK ||
      etk_graph_load(rec, NULL, &g, &err) != ETK_OK) {
    etk_etrecord_close(rec);
    return etk_cli_fail_error(CMD, &err);
  }
  const etk_graph_graph_t *top = &etk_graph_graphs(g)[0];
  const etk_graph_value_t *values = etk_graph_values(g);
  const etk_graph_node_t *nodes = etk_graph_nodes(g);
  etk_program_sizes_t s;
  memset(&s, 0, sizeof s);
  s.tensors = calloc(top->input_spec_count ? top->input_spec_count : 1,
                     sizeof *s.tensors);
  if (!s.tensors) {
    etk_graph_free(g);
    etk_etrecord_close(rec);
    return etk_cli_fail(CMD, "out of memory");
  }
  uint64_t total = 0;
  printf("tensor_data (ETRecord %s):\n", path);
  for (size_t i = 0; i < top->input_spec_count; i++) {
    const etk_graph_input_spec_t *in = &top->input_specs[i];
    if ((in->kind != ETK_GRAPH_INPUT_PARAMETER &&
         in->kind != ETK_GRAPH_INPUT_BUFFER &&
         in->kind != ETK_GRAPH_INPUT_TENSOR_CONSTANT) ||
        in->value == ETK_GRAPH_NONE || !values[in->value].has_meta)
      continue;
    const etk_graph_tensor_meta_t *m = &values[in->value].meta;
    uint64_t bytes = m->numel * etk_scalar_type_size(m->dtype);
    total += bytes;
    etk_program_size_tensor_t *t = &s.tensors[s.tensor_count++];
    t->name = in->target;
    t->nbytes = bytes;
    printf("  %12" PRIu64 "  %-8s [", bytes, etk_scalar_type_name(m->dtype));
    for (uint32_t d = 0; d < m->dim; d++)
      printf("%s%" PRId64, d ? ", " : "", m->sizes[d]);
    printf("]  %s  %s\n",
           in->node != ETK_GRAPH_NONE ? nodes[in->node].name : "-",
           in->target ? in->target : "-");
  }
  printf("total_tensor_data_size (ETRecord) %" PRIu64 "\n", total);
  print_modules(&s);
  free(s.tensors);
  etk_graph_free(g);
  etk_etrecord_close(rec);
  return 0;
}

int cli_info_selective_build(const etk_program_t *p, const char *model_path,
                             const char *out_path) {
  etk_error_t err;
  etk_error_clear(&err);
  char *yaml = NULL;
  size_t len = 0;
  if (etk_program_selective_build_yaml(p, model_path, &yaml, &len, &err) ||
      etk_write_file(out_path, yaml, len, &err)) {
    free(yaml);
    return etk_cli_fail_error(CMD, &err);
  }
  free(yaml);
  etk_cli_say_wrote(CMD, out_path, "selected operators");
  return 0;
}
