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
 *   etkit inspect --compare_results (the etk_cli_reference_* and
 *     etk_cli_compare_results functions below, called by cmd_inspect.c):
 *     upstream's compare_results for every block named "Execute", between
 *     the program outputs in the debug buffer and the reference outputs of
 *     the ETRecord, or of a bundled program's test cases (--reference).
 *
 * Exit status of `etkit numerics`: 0 success, 1 failure, 2 usage error, 3
 * with --min-snr DB when a matched value has an SNR below DB (the table is
 * still written; one line on stderr counts them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/program.h"
#include "etkit/schema.h"
#include "etkit/render.h"

/* ================================================= compare_results */

struct etk_cli_reference {
  etk_torch_archive_t *archive;   /* ETRecord reference_outputs, or */
  etk_bundled_program_t *bundled; /* a .bpte's expected outputs */
  const char *source;             /* for messages */
};

int etk_cli_reference_open(const char *bpte_path, etk_etrecord_t *rec,
                           const char *etrecord_path, etk_cli_reference_t **out,
                           etk_error_t *err) {
  *out = calloc(1, sizeof **out);
  if (!*out)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_cli_reference_t *r = *out;
  int rc;
  if (bpte_path) {
    r->source = bpte_path;
    rc = etk_bundled_program_load_file(bpte_path, NULL, &r->bundled, err);
    if (rc == ETK_OK && !etk_bundled_find_suite(r->bundled, "forward")) {
      etk_error_where(err, bpte_path);
      rc = etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "--compare_results: the bundled program has no test "
                         "cases for method 'forward'");
    }
  } else if (rec) {
    r->source = etrecord_path;
    rc = etk_etrecord_reference_outputs_open(rec, NULL, &r->archive, err);
    if (rc != ETK_OK && err) {
      char where[2 * sizeof err->where + 4];
      snprintf(where, sizeof where, "%s: %s", etrecord_path, err->where);
      err->where[0] = 0;
      etk_error_where(err, where);
      if (rc == ETK_E_NOT_FOUND) {
        /* say what to do instead */
        size_t n = strlen(err->message);
        snprintf(err->message + n, sizeof err->message - n,
                 " (--compare_results needs it; or pass --reference "
                 "FILE.bpte)");
      }
    }
  } else {
    rc = etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                       "--compare_results needs reference outputs: "
                       "--etrecord_path (with reference_outputs) or "
                       "--reference FILE.bpte");
  }
  if (rc != ETK_OK) {
    etk_cli_reference_free(r);
    *out = NULL;
  }
  return rc;
}

void etk_cli_reference_free(etk_cli_reference_t *r) {
  if (!r) return;
  etk_torch_archive_close(r->archive);
  etk_bundled_program_free(r->bundled);
  free(r);
}

/* Views of the reference outputs of one block; arrays owned by `v`. */
typedef struct ref_views {
  etk_numerics_tensor_t *t;
  bool *present;
  int64_t *dims; /* sizes and strides of bundled tensors */
  size_t count;
} ref_views_t;

static void ref_views_free(ref_views_t *v) {
  free(v->t);
  free(v->present);
  free(v->dims);
}

static int ref_views_alloc(ref_views_t *v, size_t n, size_t dims,
                           etk_error_t *err) {
  v->t = calloc(n ? n : 1, sizeof *v->t);
  v->present = calloc(n ? n : 1, sizeof *v->present);
  v->dims = calloc(dims ? dims : 1, sizeof *v->dims);
  v->count = n;
  if (!v->t || !v->present || !v->dims)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  return ETK_OK;
}

static int case_of_index(size_t cases, int32_t index, size_t *out) {
  if (index == -1 && cases) { /* upstream: reference_outputs[m][-1] */
    *out = cases - 1;
    return 1;
  }
  if (index < 0 || (size_t)index >= cases) return 0;
  *out = (size_t)index;
  return 1;
}

static int reference_views(const etk_cli_reference_t *r, size_t block,
                           int32_t index, ref_views_t *v, etk_error_t *err) {
  memset(v, 0, sizeof *v);
  if (r->archive) {
    const etk_pickle_value_t *c;
    int rc = etk_etrecord_reference_select(etk_torch_archive_root(r->archive),
                                           "forward", index, &c, err);
    if (rc != ETK_OK) {
      etk_error_where(err, r->source);
      return rc;
    }
    bool bare = c->kind == ETK_PICKLE_TENSOR;
    size_t n = bare ? 1
               : (c->kind == ETK_PICKLE_LIST || c->kind == ETK_PICKLE_TUPLE)
                   ? c->count
                   : 0;
    if (!bare && c->kind != ETK_PICKLE_LIST && c->kind != ETK_PICKLE_TUPLE) {
      etk_error_where(err, r->source);
      return etk_error_set(err, ETK_E_FORMAT, ETK_NO_OFFSET,
                           "reference outputs of test case %d are a %s, not "
                           "a list of outputs",
                           (int)index, etk_pickle_kind_name(c->kind));
    }
    if ((rc = ref_views_alloc(v, n, 0, err)) != ETK_OK) return rc;
    for (size_t i = 0; i < n; i++) {
      const etk_pickle_value_t *x = bare ? c : c->items[i];
      if (x->kind != ETK_PICKLE_TENSOR) continue; /* upstream: None */
      const etk_torch_tensor_t *t = x->tensor;
      v->t[i] = (etk_numerics_tensor_t){
          t->dtype,          t->dim,     t->sizes,         t->strides,
          t->storage_offset, t->storage, t->storage_nbytes};
      v->present[i] = true;
    }
    return ETK_OK;
  }
  const etk_bundled_suite_t *s = etk_bundled_find_suite(r->bundled, "forward");
  size_t ci;
  if (!case_of_index(s->case_count, index, &ci)) {
    etk_error_where(err, r->source);
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "event block %zu has bundled_input_index %d but the "
                         "bundled program has %u test cases",
                         block, (int)index, s->case_count);
  }
  const etk_bundled_case_t *c = &s->cases[ci];
  if (c->expected_count == 0) {
    etk_error_where(err, r->source);
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "test case %zu has no expected outputs", ci);
  }
  size_t dims = 0;
  for (uint32_t i = 0; i < c->expected_count; i++)
    dims += 2 * c->expected[i].dim;
  int rc = ref_views_alloc(v, c->expected_count, dims, err);
  if (rc != ETK_OK) return rc;
  int64_t *d = v->dims;
  for (uint32_t i = 0; i < c->expected_count; i++) {
    const etk_bundled_value_t *e = &c->expected[i];
    if (e->tag != ETK_BUNDLED_TENSOR) continue;
    int64_t *sizes = d, *strides = d + e->dim;
    d += 2 * e->dim;
    /* data is laid out in dim_order (outermost first) */
    int64_t stride = 1;
    for (uint32_t k = 0; k < e->dim; k++) sizes[k] = e->sizes[k];
    for (uint32_t k = e->dim; k-- > 0;) {
      uint32_t axis = e->dim_order ? e->dim_order[k] : k;
      if (axis >= e->dim) axis = k;
      strides[axis] = stride;
      stride *= sizes[axis] ? sizes[axis] : 1;
    }
    v->t[i] = (etk_numerics_tensor_t){
        e->scalar_type, e->dim, sizes, strides, 0, e->data, e->nbytes};
    v->present[i] = true;
  }
  return ETK_OK;
}

static size_t case_count(const etk_cli_reference_t *r) {
  if (r->bundled)
    return etk_bundled_find_suite(r->bundled, "forward")->case_count;
  const etk_pickle_value_t *m =
      etk_pickle_dict_get(etk_torch_archive_root(r->archive), "forward");
  return m && (m->kind == ETK_PICKLE_LIST || m->kind == ETK_PICKLE_TUPLE)
             ? m->count
             : 0;
}

int etk_cli_compare_results(const etk_cli_reference_t *ref,
                            const etk_inspector_t *insp, const uint8_t *dbuf,
                            size_t dlen, FILE *out, etk_error_t *err) {
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  size_t blocks = etk_inspector_block_count(insp), compared = 0;
  etk_render_sink_t *sink = malloc(sizeof *sink);
  if (!sink)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_render_sink_init_file(sink, out);
  int rc = ETK_OK;
  for (size_t b = 0; b < blocks && rc == ETK_OK; b++) {
    etk_inspector_block_t blk;
    if (etk_inspector_block_get(insp, b, &blk) != ETK_OK || !blk.name_present ||
        strcmp(blk.name, "Execute") != 0)
      continue;
    compared++;
    if (blk.output_count == 0) {
      rc = etk_error_set(err, ETK_E_NOT_FOUND, blk.offset,
                         "event block %zu (Execute) logged no program outputs "
                         "(trace with debug level 'outputs' or "
                         "'intermediates')",
                         b);
      break;
    }
    size_t cases = case_count(ref);
    if (blk.bundled_input_index == -1 && cases > 1)
      fprintf(stderr,
              "etkit inspect: note: event block %zu has no bundled_input_index;"
              " comparing with the last of %zu test cases, as upstream does\n",
              b, cases);
    ref_views_t rv;
    rc = reference_views(ref, b, blk.bundled_input_index, &rv, err);
    etk_numerics_value_t *vals =
        rc == ETK_OK ? calloc(blk.output_count, sizeof *vals) : NULL;
    etk_numerics_tensor_t *runs =
        rc == ETK_OK ? calloc(blk.output_count, sizeof *runs) : NULL;
    etk_compare_pair_t *pairs =
        rc == ETK_OK ? calloc(blk.output_count, sizeof *pairs) : NULL;
    if (rc == ETK_OK && (!vals || !runs || !pairs))
      rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
    size_t n = rc == ETK_OK
                   ? (rv.count < blk.output_count ? rv.count : blk.output_count)
                   : 0;
    if (rc == ETK_OK && rv.count != blk.output_count)
      fprintf(stderr,
              "etkit inspect: warning: event block %zu logged %zu program "
              "outputs but the reference has %zu; comparing the first %zu "
              "(upstream zips them)\n",
              b, blk.output_count, rv.count, n);
    size_t not_tensors = 0;
    for (size_t i = 0; i < n && rc == ETK_OK; i++) {
      etk_etdump_value_t raw;
      uint32_t item = 0;
      if (etk_etdump_event_value(dump, blk.outputs[i], &raw) == ETK_OK &&
          raw.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST)
        item = ~0u;
      rc = etk_numerics_debug_value(dump, dbuf, dlen, blk.outputs[i], item,
                                    &vals[i], err);
      if (rc != ETK_OK) break;
      bool run_ok = vals[i].kind == ETK_NUMERICS_VALUE_TENSOR &&
                    etk_numerics_value_view(&vals[i], &runs[i]);
      pairs[i].run = run_ok ? &runs[i] : NULL;
      pairs[i].reference = rv.present[i] ? &rv.t[i] : NULL;
      if (!pairs[i].run || !pairs[i].reference) not_tensors++;
    }
    if (rc == ETK_OK && not_tensors)
      fprintf(stderr,
              "etkit inspect: warning: event block %zu: %zu output(s) are not "
              "tensors on both sides and print as None (upstream fails with "
              "a TypeError)\n",
              b, not_tensors);
    if (rc == ETK_OK) {
      rc =
          etk_compare_results_write(pairs, n, ETK_COMPARE_ALL, sink, NULL, err);
      if (rc != ETK_OK && err) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "event block %zu: ", b);
        size_t p = strlen(prefix), m = strlen(err->message);
        if (m > sizeof err->message - 1 - p) m = sizeof err->message - 1 - p;
        memmove(err->message + p, err->message, m);
        memcpy(err->message, prefix, p);
        err->message[p + m] = 0;
      }
    }
    free(vals);
    free(runs);
    free(pairs);
    ref_views_free(&rv);
  }
  int frc = etk_render_sink_flush(sink);
  free(sink);
  if (rc == ETK_OK && frc != ETK_OK)
    rc = etk_error_set(err, frc, ETK_NO_OFFSET, "writing to stdout failed");
  if (rc == ETK_OK && compared == 0)
    rc = etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "--compare_results: no event block is named "
                       "\"Execute\" (upstream compares only those)");
  return rc;
}

/* ================================================= etkit numerics */

#define CMD "numerics"

static const char *const usage_text =
    "usage: etkit numerics --etdump_path A.etdp --debug_buffer_path A.bin\n"
    "                      --against B.etdp --against-debug-buffer B.bin "
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
    "options:\n"
    "  --etdump_path FILE          ETDump A (the reference)\n"
    "  --debug_buffer_path FILE    debug buffer of A\n"
    "  --against FILE              ETDump B\n"
    "  --against-debug-buffer FILE debug buffer of B\n"
    "  --etrecord_path FILE        ETRecord of the program: adds op types\n"
    "  --method NAME               ETRecord method (default: the method "
    "named like\n"
    "                              the block, else forward, else the only "
    "one)\n"
    "  --format table|tsv|csv|json output format (table)\n"
    "  -o, --output FILE           write there (atomically) instead of stdout\n"
    "  --no-outputs                leave program outputs out\n"
    "  --min-snr DB                exit 3 when a matched value has an SNR "
    "below DB\n"
    "  --json-indent N             JSON indentation (2; 0 = compact)\n"
    "  -h, --help                  this help\n";

typedef struct numerics_cli {
  const char *etdump[2], *buffer[2], *etrecord, *method, *output;
  double min_snr;
  int has_min_snr;
  etk_numerics_ab_options_t opt;
  etk_numerics_render_options_t ro;
  etk_numerics_ab_t *ab;
} numerics_cli_t;

static int parse_args(int argc, char **argv, numerics_cli_t *c) {
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
      c->etdump[0] = v;
    } else if (etk_cli_flag(a, "debug_buffer_path", &v)) {
      VALUE();
      c->buffer[0] = v;
    } else if (etk_cli_flag(a, "against", &v)) {
      VALUE();
      c->etdump[1] = v;
    } else if (etk_cli_flag(a, "against_debug_buffer", &v)) {
      VALUE();
      c->buffer[1] = v;
    } else if (etk_cli_flag(a, "etrecord_path", &v)) {
      VALUE();
      c->etrecord = v;
    } else if (etk_cli_flag(a, "method", &v)) {
      VALUE();
      c->method = v;
    } else if (etk_cli_flag(a, "format", &v)) {
      VALUE();
      if (!etk_cli_parse_format(v, &c->ro.format))
        return etk_cli_usage(CMD,
                             "invalid format '%s' (choose from table, tsv, "
                             "csv, json)",
                             v);
    } else if (etk_cli_flag(a, "output", &v) || strcmp(a, "-o") == 0) {
      VALUE();
      c->output = v;
    } else if (etk_cli_flag(a, "no_outputs", &v) && !v) {
      c->opt.skip_outputs = 1;
    } else if (etk_cli_flag(a, "min_snr", &v)) {
      VALUE();
      if (!etk_cli_parse_double(v, &c->min_snr))
        return etk_cli_usage(CMD, "--min-snr needs a number of dB, not '%s'",
                             v);
      c->has_min_snr = 1;
    } else if (etk_cli_flag(a, "json_indent", &v)) {
      VALUE();
      size_t n;
      if (!etk_cli_parse_size(v, &n) || n > 16)
        return etk_cli_usage(CMD,
                             "--json-indent needs an integer from 0 to "
                             "16, not '%s'",
                             v);
      c->ro.json_indent = (int)n;
    } else {
      return etk_cli_usage(CMD, "unknown argument '%s'", a);
    }
#undef VALUE
  }
  if (!c->etdump[0] || !c->etdump[1])
    return etk_cli_usage(CMD, "%s",
                         "the following arguments are required: "
                         "--etdump_path, --against");
  if (!c->buffer[0] || !c->buffer[1])
    return etk_cli_usage(CMD, "%s",
                         "both debug buffers are needed "
                         "(--debug_buffer_path, "
                         "--against-debug-buffer): the values are "
                         "in them");
  if (c->method && !c->etrecord)
    return etk_cli_usage(CMD, "%s", "--method needs --etrecord_path");
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
    rc = etk_etrecord_linker_resolve(linker, &ev, &link, err);
    if (rc != ETK_OK || link.node_count == 0) continue;
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
  return rc;
}

static int render(void *ctx, etk_render_sink_t *sink, etk_error_t *err) {
  numerics_cli_t *c = ctx;
  return etk_numerics_ab_render(c->ab, &c->ro, sink, err);
}

int etk_cmd_numerics(int argc, char **argv) {
  numerics_cli_t c;
  memset(&c, 0, sizeof c);
  etk_numerics_render_options_init(&c.ro);
  int prc = parse_args(argc, argv, &c);
  if (prc < 0) return 0;
  if (prc > 0) return prc;
  c.ro.label_a = c.etdump[0];
  c.ro.label_b = c.etdump[1];

  etk_error_t err;
  etk_error_clear(&err);
  uint8_t *buf[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  etk_inspector_t *insp[2] = {NULL, NULL};
  etk_etrecord_t *rec = NULL;
  int status = 0;
  for (int s = 0; s < 2 && !status; s++) {
    etk_inspector_options_t io;
    etk_inspector_options_init(&io);
    if (etk_read_file(c.buffer[s], 0, &buf[s], &len[s], &err) != ETK_OK ||
        etk_inspector_open_path(c.etdump[s], &io, &insp[s], &err) != ETK_OK)
      status = etk_cli_fail_error(CMD, &err);
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
  }
  if (!status && c.has_min_snr) {
    size_t below = 0;
    for (size_t i = 0; i < etk_numerics_ab_row_count(c.ab); i++) {
      etk_numerics_row_t r;
      etk_numerics_ab_row_get(c.ab, i, &r);
      if (r.status == ETK_NUMERICS_MATCHED && r.snr < c.min_snr) below++;
    }
    if (below) {
      fprintf(stderr, "etkit numerics: %zu value(s) have an SNR below %g dB\n",
              below, c.min_snr);
      status = 3;
    }
  }
  etk_numerics_ab_free(c.ab);
  etk_etrecord_close(rec);
  for (int s = 0; s < 2; s++) {
    etk_inspector_close(insp[s]);
    free(buf[s]);
  }
  return status;
}
