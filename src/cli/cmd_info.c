/*
 * cmd_info.c - `etkit info FILE`: what a file is, and for a program (.pte,
 * or the program inside a .bpte) every method with the dtype and shape of
 * each input and output, so that inputs can be made without guessing.
 * then its delegates, segments and planned memory; --ops, --sizes and
 * --selective-build FILE say what operators and bytes are in it
 * (cmd_info_program.c).  An ETDump or an ETRecord gets its summary
 * (cmd_info_files.c); any other etkit file kind one line naming it and
 * the option that takes it (etk_file_kind_* of etkit/common.h).
 * etkit.Program(path) is the method listing in Python.
 *
 * Exit status: 0 success, 1 failure (one line on stderr), 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_term.h"
#include "cmd_info.h"
#include "commands.h"
#include "etkit/program.h"
#include "etkit/runtime.h"
#include "run_support.h"

#define CMD "info"

static const char *const usage_text =
    "usage: etkit info FILE [--ops] [--sizes [--format json]] "
    "[--selective-build YAML]\n"
    "\n"
    "Says what FILE is.  For a program (.pte) or a bundled program (.bpte)\n"
    "lists every method with the dtype and shape of each input and output\n"
    "(\"at most\" before a dynamic shape's upper bound) and a scalar's "
    "traced\n"
    "value, then its delegates, segments and planned memory.  For an "
    "ETDump:\n"
    "version, runs, event blocks, events per kind, dropped events.  For an\n"
    "ETRecord: layout, programs, methods, nodes, delegates, and whether it\n"
    "holds representative inputs and reference outputs.\n"
    "\n"
    "options (programs):\n"
    "  --ops                   each operator per method: calls, and whether\n"
    "                          etkit's runtime has a kernel for it\n"
    "  --sizes                 constant tensors, bytes per module, delegate\n"
    "                          payloads, planned buffers (size_analysis_tool)\n"
    "  --etrecord FILE         with --sizes: also the ETRecord's parameters\n"
    "                          and buffers, and their bytes per module\n"
    "  --format json           with --sizes: upstream's size_analysis_tool\n"
    "                          JSON (tensor_data, delegate_blob_data,\n"
    "                          overview) on stdout\n"
    "  --selective-build YAML  write selected_operators.yaml for upstream's\n"
    "                          selective build (as gen_oplist.py "
    "--model_file_path)\n"
    "  -h, --help              this help\n";

typedef struct info_cli {
  const char *path;
  int ops, sizes;
  const char *selective_build, *etrecord, *format;
} info_cli_t;

static const etk_cli_option_t options[] = {
    ETK_CLI_FLAG("ops", 0, info_cli_t, ops),
    ETK_CLI_FLAG("sizes", 0, info_cli_t, sizes),
    ETK_CLI_STRING("selective_build", 0, info_cli_t, selective_build),
    ETK_CLI_STRING("etrecord|etrecord_path", 0, info_cli_t, etrecord),
    ETK_CLI_STRING("format", 0, info_cli_t, format),
};

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  info_cli_t *c = ctx;
  if (id != ETK_CLI_POSITIONAL) return 0;
  if (c->path) return etk_cli_usage(CMD, "unexpected argument '%s'", p->value);
  c->path = p->value;
  return 0;
}

/* "Float [1, 3, 8, 8]", "Int 4", "Bool true", "None". */
static void print_value(const etk_program_plan_t *plan, int32_t index) {
  const etk_program_value_t *v = &plan->values[index];
  switch (v->tag) {
    case ETK_VALUE_TENSOR: {
      const etk_program_tensor_t *t = v->u.tensor;
      printf("%s %s[", etk_scalar_type_name(t->scalar_type),
             t->shape_dynamism ? "at most " : "");
      for (uint32_t d = 0; d < t->dim; d++)
        printf("%s%d", d ? ", " : "", t->sizes[d]);
      printf("]");
      return;
    }
    case ETK_VALUE_INT:
      printf("Int %lld", (long long)v->u.i);
      return;
    case ETK_VALUE_DOUBLE:
      printf("Double %.17g", v->u.d);
      return;
    case ETK_VALUE_BOOL:
      printf("Bool %s", v->u.b ? "true" : "false");
      return;
    case ETK_VALUE_STRING: {
      /* the file's text, escaped: it cannot retitle or drive a terminal */
      char *raw = malloc(v->u.string.len + 1);
      if (raw) {
        memcpy(raw, v->u.string.data, v->u.string.len);
        raw[v->u.string.len] = '\0';
      }
      fputs("String \"", stdout);
      etk_cli_print_term("", raw ? raw : "?");
      putchar('"');
      free(raw);
      return;
    }
    default:
      printf("%s", etk_program_tag_name(v->tag));
  }
}

static void print_methods(const etk_program_t *p) {
  for (uint32_t k = 0; k < p->plan_count; k++) {
    const etk_program_plan_t *plan = &p->plans[k];
    printf("method %s: %u input%s, %u output%s\n", plan->name ? plan->name : "",
           plan->input_count, plan->input_count == 1 ? "" : "s",
           plan->output_count, plan->output_count == 1 ? "" : "s");
    for (uint32_t i = 0; i < plan->input_count; i++) {
      printf("  input %-3u ", i);
      print_value(plan, plan->inputs[i]);
      putchar('\n');
    }
    for (uint32_t i = 0; i < plan->output_count; i++) {
      printf("  output %-2u ", i);
      print_value(plan, plan->outputs[i]);
      putchar('\n');
    }
  }
}

int etk_cmd_info(int argc, char **argv) {
  info_cli_t c;
  memset(&c, 0, sizeof c);
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, &c);
  if (rc) return rc < 0 ? 0 : rc;
  if (etk_cli_require(CMD, c.path, "FILE")) return 2;
  etk_file_kind_t kind = etk_file_kind_of_path(c.path);
  bool program_only = c.ops || c.sizes || c.selective_build;
  if (program_only && kind != ETK_FILE_PTE && kind != ETK_FILE_BPTE &&
      kind != ETK_FILE_UNKNOWN)
    return etk_cli_usage(CMD,
                         "--ops, --sizes and --selective-build take a "
                         "program (.pte or .bpte), not %s",
                         etk_file_kind_describe(kind));
  if (c.etrecord && !c.sizes)
    return etk_cli_usage(CMD, "--etrecord goes with --sizes");
  bool json = c.format && strcmp(c.format, "json") == 0;
  if (c.format && !json && strcmp(c.format, "text") != 0)
    return etk_cli_usage(CMD, "--format takes text or json, not '%s'",
                         c.format);
  if (json && (!c.sizes || c.etrecord || c.ops || c.selective_build))
    return etk_cli_usage(CMD,
                         "--format json goes with --sizes alone (without "
                         "--etrecord, --ops or --selective-build)");
  /* nothing to describe: a failure, not a description (exit 1) */
  if (kind == ETK_FILE_EMPTY || kind == ETK_FILE_DIRECTORY)
    return etk_cli_fail(CMD, "%s: %s (%s)", c.path,
                        etk_file_kind_describe(kind), etk_file_kind_hint(kind));
  if (kind == ETK_FILE_ETDUMP) return cli_info_etdump(c.path);
  if (kind == ETK_FILE_ZIP) return cli_info_etrecord(c.path);
  if (kind != ETK_FILE_PTE && kind != ETK_FILE_BPTE &&
      kind != ETK_FILE_UNKNOWN) {
    printf("%s: %s (%s)\n", c.path, etk_file_kind_describe(kind),
           etk_file_kind_hint(kind));
    return 0;
  }
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_t *prog = NULL;
  etk_bundled_program_t *bp = NULL;
  if (cli_program_open(c.path, &prog, &bp, &err))
    return etk_cli_fail_error(CMD, &err);
  if (json) {
    int status = cli_info_sizes_json(prog);
    cli_program_close(prog, bp);
    return status;
  }
  printf("%s: %s, %u method%s", c.path, etk_file_kind_describe(kind),
         prog->plan_count, prog->plan_count == 1 ? "" : "s");
  if (bp) {
    size_t cases = 0;
    for (uint32_t s = 0; s < bp->suite_count; s++)
      cases += bp->suites[s].case_count;
    printf(", %zu test case%s", cases, cases == 1 ? "" : "s");
  }
  printf("\n");
  int status = 0;
  if (c.selective_build)
    status = cli_info_selective_build(prog, c.path, c.selective_build);
  else if (c.ops)
    cli_info_ops(prog);
  else if (c.sizes) {
    status = cli_info_sizes(prog);
    if (!status && c.etrecord) status = cli_info_etrecord_sizes(c.etrecord);
  } else {
    print_methods(prog);
    cli_info_program_layout(prog);
  }
  cli_program_close(prog, bp);
  if (status) return status;
  return fflush(stdout) == 0 ? 0 : etk_cli_fail(CMD, "error writing output");
}
