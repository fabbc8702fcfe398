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

enum { OPT_ETDUMP = 1, OPT_OUTPUT, OPT_FORMAT, OPT_TOP, OPT_JSON_INDENT };

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("etdump_path|etdump", 0, memory_cli_t, etdump),
    ETK_CLI_STRING("output", 'o', memory_cli_t, output),
    {"format", 0, ETK_CLI_VALUE, OPT_FORMAT, 0},
    {"top", 0, ETK_CLI_VALUE, OPT_TOP, 0},
    {"json_indent", 0, ETK_CLI_VALUE, OPT_JSON_INDENT, 0},
};

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  memory_cli_t *c = ctx;
  switch (id) {
    case ETK_CLI_POSITIONAL:
      return etk_cli_usage(CMD, "unexpected argument '%s'", p->value);
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
  if (etk_cli_require(CMD, c->etdump, "--etdump_path")) return 2;
  if (c->output && etk_cli_check_output(CMD, c->output)) return 1;
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
