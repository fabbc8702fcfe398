/*
 * cmd_report.c - `etkit report`: one self-contained HTML page about an
 * ETDump (etk_report_write_html in etkit/inspector.h), optionally linked
 * to its ETRecord for operator types and delegate backends.
 *
 * Exit status: 0 success, 1 failure (one line on stderr; no output file is
 * left behind), 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "etkit/etrecord.h"

#define CMD "report"

static const char *const usage_text =
    "usage: etkit report --etdump_path FILE [--etrecord_path FILE] -o "
    "report.html\n"
    "\n"
    "Writes one self-contained HTML page (no scripts, no network): file "
    "facts,\n"
    "operator types per block, a timeline of the first run of each block,\n"
    "the events with statistics, memory per allocator, dropped events.\n"
    "\n"
    "options:\n"
    "  --etdump_path FILE          ETDump to read (required)\n"
    "  --etrecord_path FILE        ETRecord: link op types and delegate "
    "backends\n"
    "  -o, --output FILE           the HTML file (atomically; default stdout)\n"
    "  --title TEXT                page title (etkit report)\n"
    "  --source_time_scale UNIT    unit of the raw timestamps (ns)\n"
    "  --target_time_scale UNIT    unit of the reported times (ms)\n"
    "  --clock-hz HZ               convert cycles to time\n"
    "  --max-rows N                events table rows (5000)\n"
    "  --max-timeline N            slices per timeline (2000)\n"
    "  --top N                     largest allocations listed (10)\n"
    "  -h, --help                  this help\n";

typedef struct report_cli {
  const char *etdump, *etrecord, *output, *title;
  etk_inspector_options_t io;
  etk_report_options_t ro;
  etk_inspector_t *insp;
  char note[256];
} report_cli_t;

static int parse_args(int argc, char **argv, report_cli_t *c) {
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
    } else if (etk_cli_flag(a, "etrecord_path", &v)) {
      VALUE();
      c->etrecord = v;
    } else if (strcmp(a, "-o") == 0 || etk_cli_flag(a, "output", &v)) {
      VALUE();
      c->output = v;
    } else if (etk_cli_flag(a, "title", &v)) {
      VALUE();
      c->title = v;
    } else if (etk_cli_flag(a, "source_time_scale", &v) ||
               etk_cli_flag(a, "target_time_scale", &v)) {
      int src = strstr(a, "source") != NULL;
      VALUE();
      etk_time_scale_t t;
      if (etk_time_scale_parse(v, &t) != ETK_OK)
        return etk_cli_usage(
            CMD, "invalid time scale '%s' (choose from ns, us, ms, s, cycles)",
            v);
      if (src)
        c->io.source_time_scale = t;
      else
        c->io.target_time_scale = t;
    } else if (etk_cli_flag(a, "clock_hz", &v)) {
      VALUE();
      if (!etk_cli_parse_double(v, &c->io.clock_hz) || !(c->io.clock_hz > 0))
        return etk_cli_usage(CMD,
                             "--clock-hz needs a positive number, not '%s'", v);
    } else if (etk_cli_flag(a, "max_rows", &v) ||
               etk_cli_flag(a, "max_timeline", &v) ||
               etk_cli_flag(a, "top", &v)) {
      size_t *dst = strstr(a, "rows")       ? &c->ro.max_event_rows
                    : strstr(a, "timeline") ? &c->ro.max_timeline_events
                                            : &c->ro.top_allocations;
      VALUE();
      if (!etk_cli_parse_size(v, dst) || *dst == 0)
        return etk_cli_usage(CMD, "%s needs a positive integer, not '%s'", a,
                             v);
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
  report_cli_t *c = ctx;
  return etk_report_write_html(c->insp, &c->ro, sink, err);
}

int etk_cmd_report(int argc, char **argv) {
  report_cli_t c;
  memset(&c, 0, sizeof c);
  etk_inspector_options_init(&c.io);
  etk_report_options_init(&c.ro);
  int prc = parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return prc;
  etk_error_t err;
  etk_error_clear(&err);
  double factor;
  if (etk_time_scale_factor(c.io.source_time_scale, c.io.target_time_scale,
                            c.io.clock_hz, &factor, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  size_t blen = 0;
  etk_etrecord_t *rec = NULL;
  int status = 0;
  if (etk_inspector_open_path(c.etdump, &c.io, &c.insp, &err) != ETK_OK) {
    status = etk_cli_fail_error(CMD, &err);
    goto done;
  }
  etk_error_clear(&err); /* a successful open may leave err.where set */
  etk_etdump_bytes(etk_inspector_etdump(c.insp), &blen);
  if (c.etrecord) {
    etk_etrecord_link_summary_t sum;
    if (etk_etrecord_open_file(c.etrecord, NULL, &rec, &err) != ETK_OK ||
        etk_etrecord_inspector_link(rec, c.insp, NULL, 0, &sum, &err) !=
            ETK_OK) {
      etk_error_where(&err, c.etrecord);
      status = etk_cli_fail_error(CMD, &err);
      goto done;
    }
    snprintf(c.note, sizeof c.note,
             "%zu of %zu events linked to debug handles, %zu to graph nodes",
             sum.linked, sum.events, sum.with_nodes);
    c.ro.etrecord_path = c.etrecord;
    c.ro.etrecord_note = c.note;
  }
  c.ro.title = c.title;
  c.ro.etdump_path = c.etdump;
  c.ro.etdump_bytes = blen;
  c.ro.generator = "etkit " ETKIT_VERSION_STRING;
  etk_error_clear(&err);
  if (etk_cli_write_output(c.output ? c.output : "-", render, &c, &err) !=
      ETK_OK)
    status = etk_cli_fail_error(CMD, &err);
done:
  etk_inspector_close(c.insp);
  etk_etrecord_close(rec);
  return status;
}
