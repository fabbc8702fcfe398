/*
 * cmd_trace.c - `etkit trace`: ETDumps as a Chrome Trace Event Format
 * timeline for Perfetto UI (ui.perfetto.dev) or chrome://tracing.
 *
 * Each --etdump_path (repeatable, or given as plain arguments) becomes one
 * process; its event blocks become tracks.  The work is
 * etk_trace_write_json_files() (etkit/analysis.h); this file parses options,
 * groups runs into blocks with the Inspector when it can, and writes the
 * document atomically.
 *
 * Exit status: 0 success, 1 failure (one line on stderr), 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_link.h"
#include "commands.h"
#include "etkit/latency_dump.h"

#define CMD "trace"
#define MAX_INPUTS 64

static const char *const usage_text =
    "usage: etkit trace --etdump_path FILE [--etdump_path FILE ...] [options]\n"
    "\n"
    "Writes a timeline in Chrome Trace Event Format (JSON) for Perfetto UI or\n"
    "chrome://tracing: one process per ETDump, one track per event block,\n"
    "nested slices (ts/dur in microseconds from the raw ticks), delegated\n"
    "events on their own track, allocations as memory counters.\n"
    "\n"
    "options:\n"
    "  --etdump_path FILE          ETDump to read (repeatable; plain arguments "
    "too)\n"
    "  -o, --output FILE           write there (atomically) instead of stdout\n"
    "  --etrecord FILE             link the events with this ETRecord: op "
    "types,\n"
    "                              graph nodes, module, source line and stack\n"
    "                              trace in each slice's args\n"
    "  --reference-graph NAME      the ETRecord graph those come from (as\n"
    "                              inspect)\n"
    "  --source_time_scale UNIT    unit of the raw ticks: ns|us|ms|s|cycles "
    "(ns)\n"
    "  --clock-hz HZ               cycles per second (with cycles)\n"
    "  --raw-ticks                 cycles without a clock: write ticks as they "
    "are\n"
    "                              (otherData says so; they are NOT "
    "microseconds)\n"
    "  --blocks LIST               only these event blocks: indices or names,\n"
    "                              comma separated (repeatable)\n"
    "  --block INDEX|NAME          one block (repeatable; names may contain "
    "commas)\n"
    "  --layout auto|raw|sequential  raw ticks, or runs back to back each on "
    "its\n"
    "                              own time base (auto: raw when runs do not "
    "overlap)\n"
    "  --tracks block|run          one track per event block (default) or per "
    "run\n"
    "  --no-args                   leave out per-event args (smaller file)\n"
    "  --no-flows                  no DELEGATE_CALL -> delegate arrows\n"
    "  -q, --quiet                 no summary line on stderr\n"
    "  -h, --help                  this help\n";

typedef struct trace_cli {
  etk_trace_input_t in[MAX_INPUTS]; /* dump and insp owned here */
  etk_etdump_t *dump[MAX_INPUTS];
  etk_inspector_t *insp[MAX_INPUTS];
  etk_etrecord_t *rec[MAX_INPUTS];
  size_t n;
  const char *output, *etrecord, *reference_graph;
  int quiet;
  etk_trace_options_t opt;
  char *block_lists[MAX_INPUTS]; /* strdup'd --blocks values */
  size_t nlists;
} trace_cli_t;

/* --block INDEX|NAME */
static int add_selection(trace_cli_t *c, const char *v) {
  return etk_cli_add_block(CMD, v, c->opt.select_index,
                           &c->opt.select_index_count, c->opt.select_name,
                           &c->opt.select_name_count);
}

enum {
  OPT_ETDUMP = 1,
  OPT_BLOCKS,
  OPT_BLOCK,
  OPT_LAYOUT,
  OPT_TRACKS,
};

static const etk_cli_option_t options[] = {
    {"etdump_path|etdump", 0, ETK_CLI_VALUE, OPT_ETDUMP, 0},
    ETK_CLI_STRING("output", 'o', trace_cli_t, output),
    ETK_CLI_STRING("etrecord|etrecord_path", 0, trace_cli_t, etrecord),
    ETK_CLI_STRING("reference_graph", 0, trace_cli_t, reference_graph),
    ETK_CLI_SOURCE_TIME_OPTION,
    ETK_CLI_CLOCK_OPTION,
    ETK_CLI_FLAG("raw_ticks", 0, trace_cli_t, opt.raw_ticks),
    {"blocks", 0, ETK_CLI_VALUE, OPT_BLOCKS, 0},
    {"block", 0, ETK_CLI_VALUE, OPT_BLOCK, 0},
    {"layout", 0, ETK_CLI_VALUE, OPT_LAYOUT, 0},
    {"tracks", 0, ETK_CLI_VALUE, OPT_TRACKS, 0},
    ETK_CLI_FLAG("no_args", 0, trace_cli_t, opt.no_args),
    ETK_CLI_FLAG("no_flows", 0, trace_cli_t, opt.no_flows),
    ETK_CLI_FLAG("quiet", 'q', trace_cli_t, quiet),
};

/* Splits a --blocks list (kept in c->block_lists) into selections. */
static int add_block_list(trace_cli_t *c, const char *v) {
  if (c->nlists == MAX_INPUTS)
    return etk_cli_usage(CMD, "too many --blocks options");
  size_t len = strlen(v);
  char *copy = malloc(len + 1);
  if (!copy) return etk_cli_fail(CMD, "out of memory");
  memcpy(copy, v, len + 1);
  c->block_lists[c->nlists++] = copy;
  for (char *tok = copy;;) {
    char *comma = strchr(tok, ',');
    if (comma) *comma = 0;
    if (!*tok) return etk_cli_usage(CMD, "empty entry in --blocks '%s'", v);
    int rc = add_selection(c, tok);
    if (rc) return rc;
    if (!comma) break;
    tok = comma + 1;
  }
  return 0;
}

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  trace_cli_t *c = ctx;
  const char *v = p->value;
  int t = etk_cli_time_option(p, id, &c->opt.source_time_scale, NULL,
                              &c->opt.clock_hz);
  if (t) return t < 0 ? 2 : 0;
  switch (id) {
    case ETK_CLI_POSITIONAL:
    case OPT_ETDUMP:
      if (c->n == MAX_INPUTS)
        return etk_cli_usage(CMD, "too many ETDumps (at most %d)", MAX_INPUTS);
      c->in[c->n++].path = v;
      return 0;
    case OPT_BLOCKS:
      return add_block_list(c, v);
    case OPT_BLOCK:
      return add_selection(c, v);
    case OPT_LAYOUT:
      if (strcmp(v, "auto") == 0)
        c->opt.layout = ETK_TRACE_LAYOUT_AUTO;
      else if (strcmp(v, "raw") == 0)
        c->opt.layout = ETK_TRACE_LAYOUT_RAW;
      else if (strcmp(v, "sequential") == 0)
        c->opt.layout = ETK_TRACE_LAYOUT_SEQUENTIAL;
      else
        return etk_cli_usage(
            CMD, "invalid layout '%s' (choose from auto, raw, sequential)", v);
      return 0;
    case OPT_TRACKS:
      if (strcmp(v, "block") == 0)
        c->opt.tracks = ETK_TRACE_TRACKS_BLOCK;
      else if (strcmp(v, "run") == 0)
        c->opt.tracks = ETK_TRACE_TRACKS_RUN;
      else
        return etk_cli_usage(CMD,
                             "invalid tracks '%s' (choose from block, run)", v);
      return 0;
  }
  return 0;
}

/* -1 after --help, 0 to go on, else an exit status. */
static int parse_args(int argc, char **argv, trace_cli_t *c) {
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, c);
  if (rc) return rc;
  if (etk_cli_require(CMD, c->n ? c : NULL, "--etdump_path")) return 2;
  if (c->opt.source_time_scale == ETK_TIME_CYCLES && !(c->opt.clock_hz > 0) &&
      !c->opt.raw_ticks)
    return etk_cli_usage(
        CMD, "%s",
        "timestamps in cycles need --clock-hz HZ (or --raw-ticks "
        "to write raw ticks, clearly labelled)");
  if (c->reference_graph && !c->etrecord)
    return etk_cli_usage(CMD, "%s", "--reference-graph needs --etrecord");
  if ((rc = etk_cli_check_output(CMD, c->output))) return rc;
  return 0;
}

static int render(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  trace_cli_t *c = ctx;
  int rc = etk_trace_write_json_files(c->in, c->n, &c->opt, sink, err);
  /* a dump without event blocks fails as `etkit inspect` (and upstream's
   * Inspector) fail on it, never an empty timeline with exit 0 */
  for (size_t i = 0; rc == ETK_OK && i < c->n; i++)
    if (c->in[i].stats.runs == 0)
      rc = etk_error_set_where(err, c->in[i].path, ETK_E_NOT_FOUND, "%s",
                               "the ETDump has no event blocks (no run has "
                               "an events vector): nothing to draw");
  return rc;
}

int etk_cmd_trace(int argc, char **argv) {
  trace_cli_t *c = calloc(1, sizeof *c);
  if (!c) return etk_cli_fail(CMD, "out of memory");
  etk_trace_options_init(&c->opt);
  int rc = parse_args(argc, argv, c);
  int status = 0;
  if (rc < 0)
    status = 0;
  else if (rc > 0)
    status = rc;
  etk_error_t err;
  etk_error_clear(&err);
  for (size_t i = 0; rc == 0 && i < c->n; i++) {
    etk_error_clear(&err);
    if (etk_etdump_open_path(c->in[i].path, NULL, &c->dump[i], &err) !=
        ETK_OK) {
      status = etk_cli_fail_error(CMD, &err);
      rc = 1;
      break;
    }
    if (etk_latency_dump_find(c->dump[i], NULL)) {
      /* its events are medians at time 0: a timeline would be fiction */
      status = etk_cli_fail(CMD,
                            "%s is a stats-mode dump (--profile-mode stats): "
                            "it keeps latency sketches, not a timeline "
                            "(etkit inspect shows them)",
                            c->in[i].path);
      rc = 1;
      break;
    }
    /* blocks come from the Inspector; a dump it refuses is still drawn,
     * with tracks per run name */
    etk_inspector_options_t io;
    etk_inspector_options_init(&io);
    io.source_time_scale = io.target_time_scale = c->opt.source_time_scale;
    etk_error_t ierr;
    etk_error_clear(&ierr);
    c->in[i].dump = c->dump[i];
    if (etk_inspector_open(c->dump[i], &io, &c->insp[i], &ierr) != ETK_OK) {
      char line[ETK_ERROR_LINE_SIZE];
      fprintf(stderr,
              "etkit trace: warning: %s: cannot group runs into event blocks "
              "(%s); tracks follow run names\n",
              c->in[i].path, etk_error_format(&ierr, line, sizeof line));
      c->insp[i] = NULL;
    } else if (c->etrecord &&
               cli_link_etrecord_graph(CMD, c->etrecord, c->reference_graph,
                                       c->insp[i], &c->rec[i], NULL, &err)) {
      status = etk_cli_fail_error(CMD, &err);
      rc = 1;
      break;
    }
    c->in[i].insp = c->insp[i];
  }
  if (rc == 0) {
    const char *out = c->output ? c->output : "-";
    etk_error_clear(&err); /* a successful open may leave err.where set */
    if (etk_cli_write_output(out, render, c, &err) != ETK_OK) {
      status = etk_cli_fail_error(CMD, &err);
    } else if (!c->quiet && c->output) {
      uint64_t slices = 0, runs = 0, instants = 0, overl = 0;
      for (size_t i = 0; i < c->n; i++) {
        slices += c->in[i].stats.slices;
        runs += c->in[i].stats.runs;
        instants += c->in[i].stats.instants;
        overl += c->in[i].stats.overlapping;
      }
      fprintf(
          stderr,
          "etkit trace: wrote %s: %zu process(es), %llu run(s), %llu slice(s)",
          c->output, c->n, (unsigned long long)runs,
          (unsigned long long)slices);
      if (instants)
        fprintf(stderr, ", %llu event(s) without an end time as instants",
                (unsigned long long)instants);
      if (overl)
        fprintf(stderr, ", %llu non-nesting slice(s) on 'overlapping' tracks",
                (unsigned long long)overl);
      fputc('\n', stderr);
    }
  }
  for (size_t i = 0; i < c->n; i++) {
    etk_inspector_close(c->insp[i]);
    etk_etrecord_close(c->rec[i]);
    etk_etdump_close(c->dump[i]);
  }
  for (size_t i = 0; i < c->nlists; i++) free(c->block_lists[i]);
  free(c);
  return status;
}
