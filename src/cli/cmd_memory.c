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
    "An ETDump: summarises allocation events per event block and allocator: allocations,\n"
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

static int parse_args(int argc, char **argv, memory_cli_t *c) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
#define VALUE()                                                  \
  do {                                                           \
    if (!v) {                                                    \
      if (i + 1 >= argc)                                         \
        return etk_cli_usage(CMD, "option %s needs a value", a); \
      v = argv[++i];                                             \
    }                                                            \
  } while (0)
    if (strcmp(a, "-h") == 0 || etk_cli_flag(a, "help", &v)) {
      fputs(usage_text, stdout);
      return -1;
    } else if (etk_cli_flag(a, "etdump_path", &v) ||
               etk_cli_flag(a, "etdump", &v)) {
      VALUE();
      c->etdump = v;
    } else if (etk_cli_flag(a, "method", &v)) {
      VALUE();
      c->method = v;
    } else if (etk_cli_flag(a, "etrecord", &v)) {
      VALUE();
      c->etrecord = v;
    } else if (etk_cli_flag(a, "trace", &v)) {
      VALUE();
      c->trace = v;
    } else if (etk_cli_flag(a, "html", &v)) {
      VALUE();
      c->html = v;
    } else if (etk_cli_flag(a, "offsets", &v) && !v) {
      c->offsets = 1;
    } else if (etk_cli_flag(a, "check", &v) && !v) {
      c->check = 1;
    } else if (a[0] != '-' && !c->file) {
      c->file = a;
    } else if (strcmp(a, "-o") == 0 || etk_cli_flag(a, "output", &v)) {
      VALUE();
      c->output = v;
    } else if (etk_cli_flag(a, "format", &v)) {
      VALUE();
      c->format_name = v;
      if (!etk_cli_parse_format(v, &c->format))
        return etk_cli_usage(
            CMD, "invalid format '%s' (choose from table, tsv, csv, json)", v);
    } else if (etk_cli_flag(a, "top", &v)) {
      VALUE();
      if (!etk_cli_parse_size(v, &c->top) || c->top == 0)
        return etk_cli_usage(CMD, "--top needs a positive integer, not '%s'",
                             v);
    } else if (etk_cli_flag(a, "json_indent", &v)) {
      VALUE();
      size_t n;
      if (!etk_cli_parse_size(v, &n) || n > 16)
        return etk_cli_usage(
            CMD, "--json-indent needs an integer from 0 to 16, not '%s'", v);
      c->json_indent = (int)n;
    } else {
      return etk_cli_usage(CMD, "unknown argument '%s'", a);
    }
#undef VALUE
  }
  if (!c->etdump && !c->file)
    return etk_cli_usage(CMD, "%s",
                         "give a program (.pte) or --etdump_path FILE");
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
    }
    etk_inspector_close(insp);
  }
  if (rc == ETK_OK && c->trace)
    rc = etk_cli_write_output(c->trace, render_trace, c, err);
  if (rc == ETK_OK && c->html)
    rc = etk_cli_write_output(c->html, render_html, c, err);
  if (rc != ETK_OK || !c->check)
    return rc == ETK_OK ? etk_cli_write_output(c->output ? c->output : "-",
                                               render_plan, c, err)
                        : rc;
  etk_render_sink_t sink;
  etk_render_sink_init_file(&sink, stdout);
  c->problems = etk_memory_plan_render_problems(c->plan, &sink);
  rc = etk_render_sink_flush(&sink);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "writing to stdout failed");
  if (!c->problems)
    fprintf(stderr, "etkit memory: the plan of '%s' is valid (%zu planned "
            "tensors, %zu buffers)\n", c->plan->method, c->plan->tensor_count,
            c->plan->buffer_count);
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
      return etk_cli_usage(CMD, "%s", "a program's plan is shown as table, "
                                      "json or csv");
    if (run_status(run_program(&c, &err), &err, &status) && c.problems)
      status = 3;
    etk_memory_plan_free(c.plan);
    return status;
  }
  if (c.file && c.etdump)
    return etk_cli_usage(CMD, "'%s' is not a program; give one ETDump", c.file);
  if (c.method || c.etrecord || c.trace || c.html || c.offsets || c.check)
    return etk_cli_usage(CMD, "%s", "--method, --etrecord, --trace, --html, "
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
  if (rc != ETK_OK) status = etk_cli_fail_error(CMD, &err);
  etk_memory_report_free(c.report);
  etk_inspector_close(insp);
  return status;
}
