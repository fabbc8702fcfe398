/*
 * cmd_numerics.c - numerical debugging in the CLI:
 *
 *   etkit numerics --etdump_path A.etdp --debug_buffer_path A.bin
 *                  --against B.etdp --against-debug-buffer B.bin
 *                  [--etrecord_path R] [--format ...]
 *     compares the values two traced runs of one program logged (float vs
 *     quantized, two backends), per instruction: MSE, SNR, max abs error,
 *     cosine, with op types from the ETRecord (etk_numerics_ab_* in
 *     etkit/inspector.h);
 *
 *   etkit numerics --gap mse|l1|snr --etdump_path D --debug_buffer_path B
 *                  --etrecord_path E
 *     upstream's calculate_numeric_gap (cmd_numerics_gap.c);
 *
 *   (upstream's compare_results for `etkit inspect --compare_results` lives
 *   in src/link/compare_outputs.c.)
 *
 * `etkit numerics` is a gate (docs/exit-status.md): 0 holds, 1 with
 * --min-snr DB when a matched value has an SNR below DB or an integer
 * value (compared exactly) differs (the table is
 * still written; one line on stderr counts them), 2 trouble (usage, an
 * unreadable file, a gate that compared nothing).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_args.h"
#include "commands.h"
#include "numerics_gates.h"
#include "run_support.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/program.h"
#include "etkit/schema.h"
#include "etkit/render.h"

/* ================================================= etkit numerics */

#define CMD "numerics"

static const char *const usage_text =
    "usage: etkit numerics [--etdump_path] A.etdp --debug_buffer_path A.bin\n"
    "                      [--against] B.etdp --against-debug-buffer B.bin "
    "[options]\n"
    "\n"
    "Compares the values two traced runs of the same program logged (e.g. "
    "a float\n"
    "and a quantized model, or two backends): blocks paired by name, "
    "values matched\n"
    "by instruction id, delegate debug id and output index; MSE, SNR (dB, "
    "A as the\n"
    "reference), max abs error and cosine per value, sorted by "
    "instruction.\n"
    "\n"
    "With --gap mse|l1|snr|stats and --etrecord_path instead of --against:\n"
    "upstream's calculate_numeric_gap, or STATS against the graph's (see\n"
    "`etkit numerics --gap mse --help`).\n"
    "\n"
    "options:\n"
    "  --etdump_path FILE          ETDump A (the reference)\n"
    "  --debug_buffer_path FILE    debug buffer of A (default: A.debug.bin\n"
    "                              beside A.etdp, when it exists)\n"
    "  --against FILE              ETDump B\n"
    "  --against-debug-buffer FILE debug buffer of B (default: B.debug.bin)\n"
    "  --etrecord_path FILE        ETRecord of the program: adds op types\n"
    "  --method NAME               ETRecord method (default: the method "
    "named like\n"
    "                              the block, else forward, else the only "
    "one)\n"
    "  --format table|tsv|csv|json output format (table)\n"
    "  -o, --output FILE           write there (atomically) instead of stdout\n"
    "  --no-outputs                leave program outputs out\n"
    "                              (a delegate call's inputs and constant "
    "weights\n"
    "                              are rows with status 'delegate "
    "argument', never\n"
    "                              gated)\n"
    "  --wide                      table: every column (delegate debug id,\n"
    "                              op types, dtype, mse) and whole names; by\n"
    "                              default the table fits 120 columns\n"
    "  --min-snr DB                exit 1 when a matched value has an SNR "
    "below DB\n"
    "                              or an integer value (compared exactly)\n"
    "                              differs\n"
    "  --max-p99-shift R           STATS: exit 1 when NaN/Inf appears in B or "
    "a\n"
    "                              p99_abs moves by more than R (relative)\n"
    "  --json-indent N             JSON indentation (2; 0 = compact)\n"
    "  -h, --help                  this help\n"
    "\n"
    "A run recorded with --debug-level stats (either side) compares STATS:\n"
    "upstream's compare_aot_runtime_dataframe columns, A as aot_, B as rt_.\n"
    "\n"
    "exit status: 0 the gate holds, 1 --min-snr or --max-p99-shift failed,\n"
    "2 trouble (usage, an unreadable file, nothing compared): "
    "docs/exit-status.md\n";

typedef struct numerics_cli {
  const char *etdump[2], *buffer[2], *etrecord, *method, *output;
  double min_snr, max_shift;
  int has_min_snr, has_max_shift, stats;
  etk_stats_cmp_t *stats_rows;
  etk_numerics_ab_options_t opt;
  etk_numerics_render_options_t ro;
  etk_numerics_ab_t *ab;
  char beside[2][4096]; /* X.debug.bin found beside X.etdp */
} numerics_cli_t;

enum {
  OPT_FORMAT = 1,
  OPT_MIN_SNR,
  OPT_JSON_INDENT,
  OPT_MAX_SHIFT,
};

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("etdump_path|etdump", 0, numerics_cli_t, etdump[0]),
    ETK_CLI_STRING("debug_buffer_path|debug_buffer", 0, numerics_cli_t,
                   buffer[0]),
    ETK_CLI_STRING("against", 0, numerics_cli_t, etdump[1]),
    ETK_CLI_STRING("against_debug_buffer", 0, numerics_cli_t, buffer[1]),
    ETK_CLI_STRING("etrecord_path|etrecord", 0, numerics_cli_t, etrecord),
    ETK_CLI_STRING("method", 0, numerics_cli_t, method),
    {"format", 0, ETK_CLI_VALUE, OPT_FORMAT, 0},
    ETK_CLI_STRING("output", 'o', numerics_cli_t, output),
    ETK_CLI_FLAG("no_outputs", 0, numerics_cli_t, opt.skip_outputs),
    ETK_CLI_FLAG("wide", 0, numerics_cli_t, ro.wide),
    {"min_snr", 0, ETK_CLI_VALUE, OPT_MIN_SNR, 0},
    {"json_indent", 0, ETK_CLI_VALUE, OPT_JSON_INDENT, 0},
    {"max_p99_shift", 0, ETK_CLI_VALUE, OPT_MAX_SHIFT, 0},
};

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  numerics_cli_t *c = ctx;
  const char *v = p->value;
  switch (id) {
    case ETK_CLI_POSITIONAL: /* A.etdp then B.etdp, as diff takes them */
      if (c->etdump[0] && c->etdump[1])
        return etk_cli_usage(CMD, "unexpected argument '%s'", v);
      c->etdump[c->etdump[0] ? 1 : 0] = v;
      return 0;
    case OPT_FORMAT:
      return etk_cli_format_value(p, &c->ro.format) ? 2 : 0;
    case OPT_MIN_SNR:
      if (!etk_cli_parse_double(v, &c->min_snr))
        return etk_cli_usage(CMD, "--min-snr needs a number of dB, not '%s'",
                             v);
      c->has_min_snr = 1;
      return 0;
    case OPT_MAX_SHIFT:
      if (!etk_cli_parse_double(v, &c->max_shift) || !(c->max_shift >= 0))
        return etk_cli_usage(
            CMD, "--max-p99-shift needs a number >= 0, not '%s'", v);
      c->has_max_shift = 1;
      return 0;
    case OPT_JSON_INDENT:
      return etk_cli_json_indent_value(p, &c->ro.json_indent) ? 2 : 0;
  }
  return 0;
}

/* -1 after --help, 0 to go on, else an exit status. */
static int parse_args(int argc, char **argv, numerics_cli_t *c) {
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, c);
  if (rc) return rc;
  if (!c->etdump[0] || !c->etdump[1])
    return etk_cli_usage(CMD, "%s",
                         "the following arguments are required: "
                         "--etdump_path, --against");
  /* a side without its debug buffer takes the one `etkit run` writes
   * beside its ETDump (X.debug.bin), and says so */
  for (int k = 0; k < 2; k++) {
    struct stat st;
    if (c->buffer[k] ||
        cli_debug_path_for(c->etdump[k], c->beside[k], sizeof c->beside[k]) ||
        stat(c->beside[k], &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    c->buffer[k] = c->beside[k];
    fprintf(stderr, "etkit numerics: debug buffer of %s: %s (beside it)\n",
            c->etdump[k], c->beside[k]);
  }
  if (!c->buffer[0] || !c->buffer[1])
    return etk_cli_usage(CMD, "%s",
                         "both debug buffers are needed "
                         "(--debug_buffer_path, "
                         "--against-debug-buffer, or X.debug.bin beside "
                         "X.etdp as `etkit run` writes it): the values "
                         "are in them");
  if (c->method && !c->etrecord)
    return etk_cli_usage(CMD, "%s", "--method needs --etrecord_path");
  if ((rc = etk_cli_check_output(CMD, c->output))) return rc;
  return 0;
}

/* op types of every row from the ETRecord (A's instruction ids). */
static int link_rows(numerics_cli_t *c, etk_etrecord_t *rec, etk_error_t *err) {
  etk_etrecord_linker_t *linker;
  int rc = etk_etrecord_linker_create(rec,
                                      ETK_ETRECORD_LINK_INSTRUCTIONS_ONLY |
                                          ETK_ETRECORD_LINK_EXACT_DELEGATE_IDS,
                                      &linker, err);
  if (rc != ETK_OK) return rc;
  etk_strbuf_t text;
  etk_strbuf_init(&text);
  size_t tried = 0, linked = 0;
  for (size_t i = 0; i < etk_numerics_ab_row_count(c->ab) && rc == ETK_OK;
       i++) {
    etk_numerics_row_t r;
    etk_numerics_ab_row_get(c->ab, i, &r);
    if (r.is_output || r.instruction_id < 0) continue;
    const char *method =
        c->method ? c->method : etk_etrecord_block_method(rec, r.block);
    if (!method) continue;
    etk_etrecord_event_ref_t ev = {method,
                                   r.name,
                                   r.chain_index < 0 ? 0 : r.chain_index,
                                   r.instruction_id,
                                   true,
                                   r.delegate_debug_id_int,
                                   r.delegate_debug_id_str};
    etk_etrecord_event_link_t link;
    tried++;
    rc = etk_etrecord_linker_resolve(linker, &ev, &link, err);
    if (rc != ETK_OK || link.node_count == 0) continue;
    linked++;
    etk_strbuf_clear(&text);
    for (size_t k = 0; k < link.node_count; k++) {
      if (k) etk_strbuf_appends(&text, ", ");
      etk_strbuf_appends(&text, link.nodes[k]->op);
    }
    if (text.failed ||
        etk_numerics_ab_set_op_types(c->ab, i, text.data) != ETK_OK)
      rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  etk_strbuf_free(&text);
  etk_etrecord_linker_destroy(linker);
  if (rc == ETK_OK && tried && !linked) /* as inspect, trace, diff warn */
    fprintf(stderr,
            "etkit numerics: warning: %s matches nothing in the ETDump: "
            "none of the %zu compared values has an instruction in the "
            "ETRecord's maps (an ETRecord of another program?); no op "
            "types\n",
            c->etrecord, tried);
  return rc;
}

/* etk_numerics_outputs_fn over the ETRecord's delegate map and
 * instruction_id_to_num_outs (no record: unknown, the library's
 * DELEGATE_CALL rule). */
typedef struct outs_ctx {
  const etk_etrecord_t *rec;
  const char *method;
} outs_ctx_t;

static int64_t delegate_outputs(void *ctx, const char *block, int32_t iid) {
  outs_ctx_t *o = ctx;
  if (!o->rec) return -1;
  const char *method =
      o->method ? o->method : etk_etrecord_block_method(o->rec, block);
  const etk_etrecord_method_maps_t *maps =
      method ? etk_etrecord_maps_find(o->rec, method) : NULL;
  if (!maps) return -1;
  if (!etk_etrecord_maps_delegate(maps, iid)) return 0;
  return etk_etrecord_maps_num_outputs(maps, iid, 1);
}

static int render(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  numerics_cli_t *c = ctx;
  if (c->stats)
    return etk_stats_cmp_render(c->stats_rows, c->ro.format, c->ro.json_indent,
                                sink, err);
  return etk_numerics_ab_render(c->ab, &c->ro, sink, err);
}

int etk_cmd_numerics(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--gap") == 0 || strncmp(argv[i], "--gap=", 6) == 0)
      return etk_cmd_numerics_gap(argc, argv);
  numerics_cli_t c;
  memset(&c, 0, sizeof c);
  etk_numerics_render_options_init(&c.ro);
  int prc = parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return ETK_EXIT_TROUBLE;
  c.ro.label_a = c.etdump[0];
  c.ro.label_b = c.etdump[1];

  etk_error_t err;
  etk_error_clear(&err);
  uint8_t *buf[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  etk_inspector_t *insp[2] = {NULL, NULL};
  etk_etrecord_t *rec = NULL;
  int status = 0, failed = 0;
  for (int s = 0; s < 2 && !status; s++) {
    etk_error_clear(&err); /* each side's error names its own file */
    etk_inspector_options_t io;
    etk_inspector_options_init(&io);
    if (etk_read_file(c.buffer[s], 0, &buf[s], &len[s], &err) != ETK_OK ||
        etk_file_kind_expect(c.buffer[s], buf[s], len[s], ETK_FILE_DEBUG_BUFFER,
                             &err) != ETK_OK ||
        etk_inspector_open_path(c.etdump[s], &io, &insp[s], &err) != ETK_OK)
      status = etk_cli_fail_error(CMD, &err);
    else
      etk_cli_warn_unused_buffer(CMD, c.buffer[s], insp[s], len[s]);
  }
  if (!status && etk_numerics_ab_build(insp[0], buf[0], len[0], insp[1], buf[1],
                                       len[1], &c.opt, &c.ab, &err) != ETK_OK) {
    /* name the file of the side that failed */
    int side = strcmp(err.where, "B") == 0;
    char where[2 * sizeof err.where + 32];
    snprintf(where, sizeof where, "%s (debug buffer %s)", c.etdump[side],
             c.buffer[side]);
    err.where[0] = 0;
    etk_error_where(&err, where);
    status = etk_cli_fail_error(CMD, &err);
  }
  if (!status && c.etrecord) {
    if (etk_etrecord_open_file(c.etrecord, NULL, &rec, &err) != ETK_OK) {
      status = etk_cli_fail_error(CMD, &err);
    } else if (c.method && !etk_etrecord_has_method(rec, c.method)) {
      status = etk_cli_fail(CMD, "%s: the ETRecord has no method \"%s\"",
                            c.etrecord, c.method);
    } else if (link_rows(&c, rec, &err) != ETK_OK) {
      status = etk_cli_fail_error(CMD, &err);
    }
  }
  if (!status) {
    /* a delegate call's inputs and constant weights are not its error */
    outs_ctx_t oc = {rec, c.method};
    etk_numerics_ab_mark_arguments(c.ab, delegate_outputs, &oc);
    c.stats = etk_etdump_has_tensor_stats(etk_inspector_etdump(insp[0])) ||
              etk_etdump_has_tensor_stats(etk_inspector_etdump(insp[1]));
    if (c.stats && c.has_min_snr)
      status = etk_cli_fail(CMD, "%s",
                            "--min-snr does not apply to STATS vectors "
                            "(--debug-level stats): use --max-p99-shift");
    else if (!c.stats && c.has_max_shift)
      status = etk_cli_fail(CMD, "%s",
                            "--max-p99-shift needs a run recorded with "
                            "--debug-level stats");
    else if (c.stats && etk_stats_cmp_from_runs(
                            c.ab, insp[0], buf[0], len[0], insp[1], buf[1],
                            len[1], c.has_max_shift ? c.max_shift : NAN,
                            &c.stats_rows, &err) != ETK_OK)
      status = etk_cli_fail_error(CMD, &err);
  }
  if (!status) {
    if (etk_numerics_ab_unpaired_blocks(c.ab, 0) ||
        etk_numerics_ab_unpaired_blocks(c.ab, 1))
      fprintf(stderr,
              "etkit numerics: warning: %zu block(s) of A and %zu of B have no "
              "partner of the same name and occurrence\n",
              etk_numerics_ab_unpaired_blocks(c.ab, 0),
              etk_numerics_ab_unpaired_blocks(c.ab, 1));
    if (etk_cli_write_output(c.output ? c.output : "-", render, &c, &err) !=
        ETK_OK)
      status = etk_cli_fail_error(CMD, &err);
    else
      etk_cli_say_wrote(CMD, c.output, "%zu compared value(s)",
                        etk_numerics_ab_row_count(c.ab));
  }
  if (!status && c.has_max_shift)
    status = etk_cli_stats_gate(c.stats_rows, "--max-p99-shift",
                                "no logged tensor of A could be paired with "
                                "one of B",
                                &failed);
  if (!status && c.has_min_snr)
    status = etk_cli_numerics_snr_gate(CMD, c.ab, c.min_snr, &failed);
  etk_stats_cmp_free(c.stats_rows);
  etk_numerics_ab_free(c.ab);
  etk_etrecord_close(rec);
  for (int s = 0; s < 2; s++) {
    etk_inspector_close(insp[s]);
    free(buf[s]);
  }
  return etk_cli_gate_exit(status, failed);
}
