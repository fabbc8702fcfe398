/*
 * cmd_memory.c - `etkit memory`, two views chosen by the file's identifier:
 *   - a program (.pte): its memory plan (etkit/memory_plan.h): buffers,
 *     peaks, tensors, plan problems, Chrome trace, HTML memory map;
 *   - an ETDump (positional or --etdump_path): allocation events per block
 *     and allocator (etk_memory_report_* in etkit/inspector.h).
 *
 * Exit status: 0 success, 1 failure, 2 usage error, 3 `--check` found plan
 * problems.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "etkit/link.h"
#include "etkit/memory_plan.h"
#include "etkit/program.h"

#define CMD "memory"

static const char *const usage_text =
    "usage: etkit memory PROGRAM.pte [--method NAME] [--etrecord FILE]\n"
    "                    [--etdump FILE] [--format table|json|csv]\n"
    "                    [--trace OUT.json [--offsets]] [--html OUT.html]\n"
    "                    [--check] [-o FILE] [--top N]\n"
    "       etkit memory DUMP.etdp | --etdump_path FILE [options]\n"
    "\n"
    "A program: its memory plan read from the file alone (planned buffers,\n"
    "peaks, tensors and lifetimes, unsafe overlaps, tensors past their\n"
    "buffer).  --trace writes upstream's generate_memory_trace Chrome trace\n"
    "(--offsets: ts = offset), --html a memory map, --check prints one line\n"
    "per plan problem and exits 3 when there is any.  --etrecord names the\n"
    "tensors, --etdump adds the runtime's allocation events.\n"
    "\n"
    "An ETDump: summarises allocation events per event block and allocator: "
    "allocations,\n"
    "total bytes, peak bytes per run (bytes are cumulative within a run: the\n"
    "events have no free), largest single allocations and where they "
    "happened.\n"
    "\n"
    "options:\n"
    "  --etdump_path FILE          ETDump to read (dump view)\n"
    "  --format table|tsv|csv|json output format (table)\n"
    "  -o, --output FILE           write there (atomically) instead of stdout\n"
    "  --top N                     largest allocations listed (10)\n"
    "  --json-indent N             JSON indentation (2; 0 = compact)\n"
    "  -h, --help                  this help\n";

typedef struct memory_cli {
  const char *etdump, *output, *file, *method, *etrecord, *trace, *html;
  const char *format_name;
  int offsets, check;
  etk_inspect_format_t format;
  size_t top;
  int json_indent;
  etk_memory_report_t *report;
  etk_memory_plan_t *plan;
  uint64_t problems;
} memory_cli_t;

enum { OPT_FORMAT = 1, OPT_TOP, OPT_JSON_INDENT };

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("etdump_path|etdump", 0, memory_cli_t, etdump),
    ETK_CLI_STRING("output", 'o', memory_cli_t, output),
    ETK_CLI_STRING("method", 0, memory_cli_t, method),
    ETK_CLI_STRING("etrecord|etrecord_path", 0, memory_cli_t, etrecord),
    ETK_CLI_STRING("trace", 0, memory_cli_t, trace),
    ETK_CLI_STRING("html", 0, memory_cli_t, html),
    ETK_CLI_FLAG("offsets", 0, memory_cli_t, offsets),
    ETK_CLI_FLAG("check", 0, memory_cli_t, check),
    {"format", 0, ETK_CLI_VALUE, OPT_FORMAT, 0},
    {"top", 0, ETK_CLI_VALUE, OPT_TOP, 0},
    {"json_indent", 0, ETK_CLI_VALUE, OPT_JSON_INDENT, 0},
};

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  memory_cli_t *c = ctx;
  switch (id) {
    case ETK_CLI_POSITIONAL:
      if (c->file)
        return etk_cli_usage(CMD, "unexpected argument '%s'", p->value);
      c->file = p->value;
      return 0;
    case OPT_FORMAT:
      return etk_cli_format_value(p, &c->format) ? 2 : 0;
    case OPT_TOP:
      return etk_cli_positive_size_value(p, &c->top) ? 2 : 0;
    case OPT_JSON_INDENT:
      return etk_cli_json_indent_value(p, &c->json_indent) ? 2 : 0;
  }
  return 0;
}

/* -1 after --help, 0 to go on, else an exit status. */
static int parse_args(int argc, char **argv, memory_cli_t *c) {
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, c);
  if (rc) return rc;
  if (!c->etdump && !c->file)
    return etk_cli_usage(CMD, "%s",
                         "give a program (.pte) or --etdump_path FILE");
  if ((rc = etk_cli_check_output(CMD, c->output))) return rc;
  if ((rc = etk_cli_check_output(CMD, c->trace))) return rc;
  if ((rc = etk_cli_check_output(CMD, c->html))) return rc;
  return 0;
}

/* ------------------------------------------------------ program view */

static int render_plan(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  memory_cli_t *c = ctx;
  etk_memory_plan_format_t f = ETK_MEMORY_PLAN_TABLE;
  if (c->format == ETK_INSPECT_FORMAT_JSON) f = ETK_MEMORY_PLAN_JSON;
  if (c->format == ETK_INSPECT_FORMAT_CSV) f = ETK_MEMORY_PLAN_CSV;
  return etk_memory_plan_render(c->plan, f, c->top, sink, err);
}

static int render_trace(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  memory_cli_t *c = ctx;
  return etk_memory_plan_render_trace(c->plan, c->offsets, sink, err);
}

static int render_html(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  return etk_memory_plan_render_html(((memory_cli_t *)ctx)->plan, sink, err);
}

/* An ETRecord without the plan's method is a note on stderr. */
static void name_note(void *ctx, int is_warning, const char *line) {
  (void)ctx;
  (void)is_warning;
  fprintf(stderr, "etkit memory: note: %s; tensors keep value names\n", line);
}

/* Plan, annotations, then the outputs asked for. */
static int run_program(memory_cli_t *c, etk_error_t *err) {
  int rc = etk_memory_plan_open_file(c->file, c->method, &c->plan, err);
  if (rc == ETK_OK && c->etrecord) {
    etk_etrecord_t *rec = NULL;
    rc = etk_etrecord_open_file(c->etrecord, NULL, &rec, err);
    if (rc == ETK_OK)
      rc = etk_memory_plan_name_from_etrecord(c->plan, rec, name_note, NULL,
                                              err);
    etk_etrecord_close(rec);
  }
  if (rc == ETK_OK && c->etdump) {
    etk_inspector_t *insp = NULL;
    rc = etk_inspector_open_path(c->etdump, NULL, &insp, err);
    if (rc == ETK_OK) {
      etk_error_clear(err);
      rc = etk_memory_plan_attach_etdump(c->plan, insp, err);
      int32_t largest;
      size_t foreign = etk_memory_plan_foreign_events(c->plan, insp, &largest);
      if (rc == ETK_OK && foreign)
        fprintf(stderr,
                "etkit memory: warning: %s is not the program of %s? %zu "
                "operator event(s) name instructions up to %d, but method "
                "%s has %llu\n",
                c->file, c->etdump, foreign, largest, c->plan->method,
                (unsigned long long)c->plan->num_instructions);
    }
    etk_inspector_close(insp);
  }
  if (rc == ETK_OK && c->trace) {
    rc = etk_cli_write_output(c->trace, render_trace, c, err);
    if (rc == ETK_OK)
      etk_cli_say_wrote(CMD, c->trace, "memory-plan trace (Perfetto JSON)");
  }
  if (rc == ETK_OK && c->html) {
    rc = etk_cli_write_output(c->html, render_html, c, err);
    if (rc == ETK_OK) etk_cli_say_wrote(CMD, c->html, "memory map page");
  }
  if (rc != ETK_OK || !c->check) {
    if (rc == ETK_OK)
      rc = etk_cli_write_output(c->output ? c->output : "-", render_plan, c,
                                err);
    if (rc == ETK_OK) etk_cli_say_wrote(CMD, c->output, NULL);
    return rc;
  }
  etk_render_sink_t sink;
  etk_render_sink_init_file(&sink, stdout);
  c->problems = etk_memory_plan_render_problems(c->plan, &sink);
  rc = etk_render_sink_flush(&sink);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "writing to stdout failed");
  if (!c->problems)
    fprintf(stderr,
            "etkit memory: the plan of '%s' is valid (%zu planned "
            "tensors, %zu buffers)\n",
            c->plan->method, c->plan->tensor_count, c->plan->buffer_count);
  return ETK_OK;
}

/* 1 when `path` starts like a program, 0 otherwise (errors are left to
 * the readers). */
static int is_program(const char *path) {
  uint8_t head[12] = {0};
  FILE *fp = fopen(path, "rb");
  if (!fp) return 0;
  size_t n = fread(head, 1, sizeof head, fp);
  fclose(fp);
  etk_file_kind_t k = etk_file_kind_detect(head, n);
  return k == ETK_FILE_PTE || k == ETK_FILE_PTE_OTHER;
}

/* 1 when rc is ETK_OK; otherwise prints the error and sets *status. */
static int run_status(int rc, const etk_error_t *err, int *status) {
  if (rc == ETK_OK) return 1;
  *status = etk_cli_fail_error(CMD, err);
  return 0;
}

static int render(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  memory_cli_t *c = ctx;
  return etk_memory_report_render(c->report, c->format, c->json_indent, sink,
                                  err);
}

int etk_cmd_memory(int argc, char **argv) {
  memory_cli_t c;
  memset(&c, 0, sizeof c);
  c.json_indent = 2;
  int prc = parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return prc;
  etk_error_t err;
  etk_error_clear(&err);
  int program = c.file && is_program(c.file);
  int status = 0;
  if (program) {
    if (c.format == ETK_INSPECT_FORMAT_TSV)
      return etk_cli_usage(CMD, "%s",
                           "a program's plan is shown as table, "
                           "json or csv");
    if (run_status(run_program(&c, &err), &err, &status) && c.problems)
      status = 3;
    etk_memory_plan_free(c.plan);
    return status;
  }
  if (c.file && c.etdump)
    return etk_cli_usage(CMD, "'%s' is not a program; give one ETDump", c.file);
  if (c.method || c.etrecord || c.trace || c.html || c.offsets || c.check)
    return etk_cli_usage(CMD, "%s",
                         "--method, --etrecord, --trace, --html, "
                         "--offsets and --check need a program");
  if (!c.etdump) c.etdump = c.file;
  etk_inspector_t *insp = NULL;
  int rc = etk_inspector_open_path(c.etdump, NULL, &insp, &err);
  if (rc == ETK_OK) {
    etk_error_clear(&err); /* a successful open may leave err.where set */
    rc = etk_memory_report_build(insp, c.top, &c.report, &err);
  }
  if (rc == ETK_OK)
    rc = etk_cli_write_output(c.output ? c.output : "-", render, &c, &err);
  if (rc != ETK_OK)
    status = etk_cli_fail_error(CMD, &err);
  else
    etk_cli_say_wrote(CMD, c.output, NULL);
  etk_memory_report_free(c.report);
  etk_inspector_close(insp);
  return status;
}
