/*
 * cmd_diff_program.c - `etkit diff A.pte B.pte`: what changed between two
 * programs (.pte, or the programs inside .bpte files), as upstream's
 * devtools/pte_tool/diff_pte.py reports it: per method the operators and
 * delegates only one side has, buffer sizes, value and instruction
 * counts, every differing tensor (metadata fields, and for data the
 * number of differing elements with max abs / mean abs / max rel
 * difference) and value; methods and named data only one side has;
 * segments.  etk_program_diff_build (etkit/program_tools.h) compares;
 * this file parses and prints (text, or --format json).
 *
 * cmd_diff.c hands the whole command line here when a file argument is a
 * program.  Exit status (the gate rule): 0 identical in structure and
 * constants, 1 they differ, 2 trouble (usage, unreadable or invalid file).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "cmd_diff_program.h"
#include "commands.h"
#include "etkit/program_tools.h"
#include "etkit/render.h"
#include "run_support.h"

#define CMD "diff"

static const char *const usage_text =
    "usage: etkit diff A.pte B.pte [--format text|json]\n"
    "\n"
    "Compares two programs (.pte or .bpte) as upstream's diff_pte.py: per\n"
    "method the operators and delegates only one side has, buffer sizes,\n"
    "value and instruction counts, each differing tensor (fields; data: "
    "elements\n"
    "that differ, max abs, mean abs and max rel difference) and value; "
    "methods\n"
    "and named data only one side has; segments.\n"
    "\n"
    "options:\n"
    "  --format text|json  output format (default text)\n"
    "  -h, --help          this help\n"
    "\n"
    "exit status: 0 identical in structure and constants, 1 they differ,\n"
    "2 usage error or unreadable program\n";

typedef struct pdiff_cli {
  const char *path[2];
  const char *format;
} pdiff_cli_t;

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("format", 0, pdiff_cli_t, format),
};

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  pdiff_cli_t *c = ctx;
  if (id != ETK_CLI_POSITIONAL) return 0;
  if (c->path[1])
    return etk_cli_usage(CMD, "unexpected argument '%s'", p->value);
  c->path[c->path[0] ? 1 : 0] = p->value;
  return 0;
}

static const char *const field_names[] = {
    "scalar_type",          "sizes",           "dim_order",
    "storage_offset",       "requires_grad",   "layout",
    "data_buffer_idx",      "allocation_info", "shape_dynamism",
    "fully_qualified_name", "location"};
#define FIELD_COUNT (sizeof field_names / sizeof *field_names)

static void print_list(const char *what, const char **items, size_t n) {
  if (!n) return;
  printf("  %s: ", what);
  for (size_t i = 0; i < n; i++) printf("%s%s", i ? ", " : "", items[i]);
  putchar('\n');
}

static void print_tensor(const etk_program_diff_tensor_t *t) {
  const etk_program_tensor_t *a = t->a;
  printf("    [idx=%u]  %s %s[", t->value, a->data_buffer_idx ? "CT" : "T",
         etk_scalar_type_name(a->scalar_type));
  for (uint32_t d = 0; d < a->dim; d++)
    printf("%s%d", d ? "," : "", a->sizes[d]);
  printf("]");
  if (a->fully_qualified_name) printf("  \"%s\"", a->fully_qualified_name);
  putchar('\n');
  for (size_t f = 0; f < FIELD_COUNT; f++)
    if (t->fields & (1u << f)) printf("      %s differs\n", field_names[f]);
  if (t->bytes_differ && !(t->a->data && t->b->data))
    printf("      data only in %s\n", t->a->data ? "A" : "B");
  else if (t->bytes_differ && t->differing)
    printf("      %" PRIu64 " / %" PRIu64
           " elements differ\n      max_abs_diff=%.6g  mean_abs_diff=%.6g  "
           "max_rel_diff=%.6g%s\n",
           t->differing, t->elements, t->max_abs, t->mean_abs, t->max_rel,
           t->nan ? "  (NaN on one side in some)" : "");
  else if (t->bytes_differ)
    printf("      data sizes differ: %" PRIu64 " vs %" PRIu64 " bytes\n",
           t->a->nbytes, t->b->nbytes);
}

static void print_plan(const etk_program_diff_t *d,
                       const etk_program_diff_plan_t *p) {
  printf("\nPlan %u \"%s\"", p->index, p->name_a ? p->name_a : "");
  if (p->name_differs)
    printf(" (name differs: '%s' vs '%s')", p->name_a ? p->name_a : "",
           p->name_b ? p->name_b : "");
  printf(":\n");
  print_list("Operators only in A", p->ops_only_a, p->ops_only_a_count);
  print_list("Operators only in B", p->ops_only_b, p->ops_only_b_count);
  print_list("Delegates only in A", p->delegates_only_a,
             p->delegates_only_a_count);
  print_list("Delegates only in B", p->delegates_only_b,
             p->delegates_only_b_count);
  if (p->buffers_differ) printf("  non_const_buffer_sizes differ\n");
  if (p->values_a != p->values_b)
    printf("  Value count: %u vs %u\n", p->values_a, p->values_b);
  if (p->instructions_a != p->instructions_b)
    printf("  Instruction count: %u vs %u\n", p->instructions_a,
           p->instructions_b);
  if (p->tensor_count) printf("  Differing tensors (%zu):\n", p->tensor_count);
  for (size_t i = 0; i < p->tensor_count; i++)
    print_tensor(&d->tensors[p->first_tensor + i]);
  if (p->value_count) printf("  Differing values (%zu):\n", p->value_count);
  for (size_t i = 0; i < p->value_count; i++) {
    const etk_program_diff_value_t *v = &d->values[p->first_value + i];
    printf("    [idx=%u]  %s vs %s\n", v->value, etk_program_tag_name(v->tag_a),
           etk_program_tag_name(v->tag_b));
  }
  if (p->extra_tensors_a)
    printf("  Tensors only in A: %u\n", p->extra_tensors_a);
  if (p->extra_tensors_b)
    printf("  Tensors only in B: %u\n", p->extra_tensors_b);
}

static void print_text(const etk_program_diff_t *d, const char *const *path) {
  printf("Comparing: %s (%" PRIu64 " bytes) vs %s (%" PRIu64 " bytes)\n",
         path[0], d->size_a, path[1], d->size_b);
  if (d->bitwise_equal) {
    printf("Status: bitwise equal\n");
    return;
  }
  printf("Status: NOT bitwise equal%s\n",
         d->differs ? "" : "; structure and constants identical");
  if (d->version_a != d->version_b)
    printf("Version: %u vs %u\n", d->version_a, d->version_b);
  if (d->segments_a != d->segments_b ||
      d->segment_bytes_a != d->segment_bytes_b)
    printf("Segments: %u (%" PRIu64 " bytes) vs %u (%" PRIu64 " bytes)\n",
           d->segments_a, d->segment_bytes_a, d->segments_b,
           d->segment_bytes_b);
  for (size_t k = 0; k < d->plan_count; k++) {
    const etk_program_diff_plan_t *p = &d->plans[k];
    if (p->name_differs || p->buffers_differ || p->values_a != p->values_b ||
        p->instructions_a != p->instructions_b || p->ops_only_a_count ||
        p->ops_only_b_count || p->delegates_only_a_count ||
        p->delegates_only_b_count || p->tensor_count || p->value_count)
      print_plan(d, p);
  }
  if (d->extra_plans_a_count) {
    printf("\nExtra plans in A: ");
    for (size_t i = 0; i < d->extra_plans_a_count; i++)
      printf("%s%s", i ? ", " : "", d->extra_plans_a[i]);
    putchar('\n');
  }
  if (d->extra_plans_b_count) {
    printf("\nExtra plans in B: ");
    for (size_t i = 0; i < d->extra_plans_b_count; i++)
      printf("%s%s", i ? ", " : "", d->extra_plans_b[i]);
    putchar('\n');
  }
  if (d->named_only_a_count || d->named_only_b_count)
    printf("\nNamed data differences:\n");
  for (size_t i = 0; i < d->named_only_a_count; i++)
    printf("  '%s': only in A\n", d->named_only_a[i]);
  for (size_t i = 0; i < d->named_only_b_count; i++)
    printf("  '%s': only in B\n", d->named_only_b[i]);
}

static void json_names(etk_json_t *j, const char *key, const char **items,
                       size_t n) {
  etk_json_key(j, key);
  etk_json_begin_array(j);
  for (size_t i = 0; i < n; i++) etk_json_cstring(j, items[i]);
  etk_json_end_array(j);
}

static void json_tensor(etk_json_t *j, const etk_program_diff_tensor_t *t) {
  etk_json_begin_object(j);
  etk_json_kv_uint(j, "value", t->value);
  etk_json_kv_cstring(j, "dtype", etk_scalar_type_name(t->a->scalar_type));
  etk_json_kv_cstring(j, "fqn", t->a->fully_qualified_name);
  etk_json_key(j, "fields");
  etk_json_begin_array(j);
  for (size_t f = 0; f < FIELD_COUNT; f++)
    if (t->fields & (1u << f)) etk_json_cstring(j, field_names[f]);
  etk_json_end_array(j);
  etk_json_kv_bool(j, "bytes_differ", t->bytes_differ);
  etk_json_kv_uint(j, "num_elements", t->elements);
  etk_json_kv_uint(j, "num_differing", t->differing);
  etk_json_kv_uint(j, "num_nan", t->nan);
  etk_json_kv_double(j, "max_abs_diff", t->max_abs);
  etk_json_kv_double(j, "mean_abs_diff", t->mean_abs);
  etk_json_kv_double(j, "max_rel_diff", t->max_rel);
  etk_json_end_object(j);
}

static void json_plan(etk_json_t *j, const etk_program_diff_t *d,
                      const etk_program_diff_plan_t *p) {
  etk_json_begin_object(j);
  etk_json_kv_uint(j, "plan_index", p->index);
  etk_json_kv_cstring(j, "name_a", p->name_a);
  etk_json_kv_cstring(j, "name_b", p->name_b);
  json_names(j, "operators_only_in_a", p->ops_only_a, p->ops_only_a_count);
  json_names(j, "operators_only_in_b", p->ops_only_b, p->ops_only_b_count);
  json_names(j, "delegates_only_in_a", p->delegates_only_a,
             p->delegates_only_a_count);
  json_names(j, "delegates_only_in_b", p->delegates_only_b,
             p->delegates_only_b_count);
  etk_json_kv_bool(j, "non_const_buffer_sizes_differ", p->buffers_differ);
  etk_json_kv_uint(j, "value_count_a", p->values_a);
  etk_json_kv_uint(j, "value_count_b", p->values_b);
  etk_json_kv_uint(j, "instruction_count_a", p->instructions_a);
  etk_json_kv_uint(j, "instruction_count_b", p->instructions_b);
  etk_json_key(j, "tensor_diffs");
  etk_json_begin_array(j);
  for (size_t i = 0; i < p->tensor_count; i++)
    json_tensor(j, &d->tensors[p->first_tensor + i]);
  etk_json_end_array(j);
  etk_json_key(j, "evalue_diffs");
  etk_json_begin_array(j);
  for (size_t i = 0; i < p->value_count; i++) {
    const etk_program_diff_value_t *v = &d->values[p->first_value + i];
    etk_json_begin_object(j);
    etk_json_kv_uint(j, "value", v->value);
    etk_json_kv_cstring(j, "type_a", etk_program_tag_name(v->tag_a));
    etk_json_kv_cstring(j, "type_b", etk_program_tag_name(v->tag_b));
    etk_json_end_object(j);
  }
  etk_json_end_array(j);
  etk_json_kv_uint(j, "tensors_only_in_a", p->extra_tensors_a);
  etk_json_kv_uint(j, "tensors_only_in_b", p->extra_tensors_b);
  etk_json_end_object(j);
}

static int print_json(const etk_program_diff_t *d, const char *const *path) {
  etk_render_sink_t sink;
  etk_render_sink_init_file(&sink, stdout);
  etk_json_t j;
  etk_json_init(&j, &sink, 2);
  etk_json_begin_object(&j);
  etk_json_kv_cstring(&j, "path_a", path[0]);
  etk_json_kv_cstring(&j, "path_b", path[1]);
  etk_json_kv_uint(&j, "size_a", d->size_a);
  etk_json_kv_uint(&j, "size_b", d->size_b);
  etk_json_kv_bool(&j, "bitwise_equal", d->bitwise_equal);
  etk_json_kv_bool(&j, "differ", d->differs);
  etk_json_kv_uint(&j, "version_a", d->version_a);
  etk_json_kv_uint(&j, "version_b", d->version_b);
  etk_json_kv_uint(&j, "segments_a", d->segments_a);
  etk_json_kv_uint(&j, "segments_b", d->segments_b);
  etk_json_kv_uint(&j, "constant_bytes_compared", d->constant_bytes);
  etk_json_key(&j, "plan_diffs");
  etk_json_begin_array(&j);
  for (size_t k = 0; k < d->plan_count; k++) json_plan(&j, d, &d->plans[k]);
  etk_json_end_array(&j);
  json_names(&j, "extra_plans_in_a", d->extra_plans_a, d->extra_plans_a_count);
  json_names(&j, "extra_plans_in_b", d->extra_plans_b, d->extra_plans_b_count);
  json_names(&j, "named_data_only_in_a", d->named_only_a,
             d->named_only_a_count);
  json_names(&j, "named_data_only_in_b", d->named_only_b,
             d->named_only_b_count);
  etk_json_end_object(&j);
  int rc = etk_json_finish(&j); /* ends with a newline */
  if (etk_render_sink_flush(&sink) != 0) rc = -1;
  return rc;
}

int cli_diff_is_programs(int argc, char **argv) {
  int programs = 0, dumps = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-') {
      /* -o's value is written, not compared */
      if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) i++;
      continue;
    }
    etk_file_kind_t k = etk_file_kind_of_path(argv[i]);
    programs +=
        k == ETK_FILE_PTE || k == ETK_FILE_BPTE || k == ETK_FILE_PTE_OTHER;
    dumps += k == ETK_FILE_ETDUMP || k == ETK_FILE_ETDUMP_UNPREFIXED;
  }
  if (programs > 0 && dumps > 0) return -1;
  return programs > 0;
}

int cli_diff_programs(int argc, char **argv) {
  pdiff_cli_t c;
  memset(&c, 0, sizeof c);
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, &c);
  if (rc) return rc < 0 ? 0 : rc;
  if (!c.path[1]) return etk_cli_usage(CMD, "two programs are needed");
  bool json = c.format && strcmp(c.format, "json") == 0;
  if (c.format && !json && strcmp(c.format, "text") != 0)
    return etk_cli_usage(CMD, "--format takes text or json, not '%s'",
                         c.format);
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_t *prog[2] = {NULL, NULL};
  etk_bundled_program_t *bp[2] = {NULL, NULL};
  int status = 0;
  for (int s = 0; s < 2 && !status; s++)
    if (cli_program_open(c.path[s], &prog[s], &bp[s], &err)) {
      etk_cli_fail_error(CMD, &err);
      status = 2;
    }
  etk_program_diff_t d;
  memset(&d, 0, sizeof d);
  if (!status && etk_program_diff_build(prog[0], prog[1], &d, &err)) {
    etk_cli_fail_error(CMD, &err);
    status = 2;
  }
  if (!status) {
    int werr = json ? print_json(&d, c.path) != 0
                    : (print_text(&d, c.path), fflush(stdout) != 0);
    if (werr) etk_cli_fail(CMD, "error writing output");
    status = werr ? 2 : d.differs ? 1 : 0;
  }
  etk_program_diff_free(&d);
  for (int s = 0; s < 2; s++) cli_program_close(prog[s], bp[s]);
  return status;
}
