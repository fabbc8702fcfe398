/*
 * cmd_memory.c - `etkit memory`: allocation events per block and
 * allocator (etk_memory_report_* in etkit/inspector.h).  Independent of
 * `etkit inspect --allocations`, which sums per run name; this view is per
 * event block, with per-run peaks and the largest single allocations.
 *
 * Exit status: 0 success, 1 failure, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"

#define CMD "memory"

static const char *const usage_text =
    "usage: etkit memory --etdump_path FILE [options]\n"
    "\n"
    "Summarises allocation events per event block and allocator: allocations,\n"
    "total bytes, peak bytes per run (bytes are cumulative within a run: the\n"
    "events have no free), largest single allocations and where they "
    "happened.\n"
    "\n"
    "options:\n"
    "  --etdump_path FILE          ETDump to read (required)\n"
    "  --format table|tsv|csv|json output format (table)\n"
    "  -o, --output FILE           write there (atomically) instead of stdout\n"
    "  --top N                     largest allocations listed (10)\n"
    "  --json-indent N             JSON indentation (2; 0 = compact)\n"
    "  -h, --help                  this help\n";

typedef struct memory_cli {
  const char *etdump, *output;
  etk_inspect_format_t format;
  size_t top;
  int json_indent;
  etk_memory_report_t *report;
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
    } else if (etk_cli_flag(a, "etdump_path", &v)) {
      VALUE();
      c->etdump = v;
    } else if (strcmp(a, "-o") == 0 || etk_cli_flag(a, "output", &v)) {
      VALUE();
      c->output = v;
    } else if (etk_cli_flag(a, "format", &v)) {
      VALUE();
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
  if (!c->etdump)
    return etk_cli_usage(CMD, "%s",
                         "the following argument is required: --etdump_path");
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
  etk_inspector_t *insp = NULL;
  int status = 0;
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
