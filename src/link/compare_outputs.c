/*
 * compare_outputs.c - upstream's compare_results between the program
 * outputs an ETDump logged and reference outputs (what `etkit inspect
 * --compare_results` prints and the Python Inspector returns as a table).
 *
 * Reference outputs come from an ETRecord's reference_outputs (a torch.save
 * archive: {method: [case outputs, ...]}) or from the test cases of a
 * bundled program (.bpte).  For every event block named "Execute" (the
 * only blocks upstream compares), the block's program outputs are inflated
 * from the debug buffer and zipped with the reference outputs of its
 * bundled input index (-1 = the last case, as upstream); the values and
 * text are those of etk_compare_results_write() (etkit/inspector.h).
 *
 * Layout: opening the references (etk_reference_outputs_open), views of
 * one case's tensors (reference_views: torch tensors as they are, bundled
 * tensors with strides from their dim order), one block's comparison
 * (compare_block) and the loop over blocks.  Notes and warnings go to the
 * caller's callback, never to a stream, so the CLI prefixes them and
 * Python turns them into warnings.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/etdump.h"
#include "etkit/etrecord.h"
#include "etkit/inspector_core.h"
#include "etkit/link.h"
#include "etkit/numerics.h"
#include "etkit/program.h"
#include "etkit/render.h"
#include "etkit/schema.h"

struct etk_reference_outputs {
  etk_torch_archive_t *archive;   /* ETRecord reference_outputs, or */
  etk_bundled_program_t *bundled; /* a .bpte's expected outputs */
  const char *source;             /* for messages */
};

int etk_reference_outputs_open(const char *bpte_path, etk_etrecord_t *rec,
                               const char *etrecord_path,
                               etk_reference_outputs_t **out,
                               etk_error_t *err) {
  *out = calloc(1, sizeof **out);
  if (!*out)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_reference_outputs_t *r = *out;
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
      /* "PATH: MEMBER", the whole path (where holds a PATH_MAX path and
       * more); only a member name past that room is cut */
      char member[sizeof err->where];
      memcpy(member, err->where, sizeof member);
      const char *parts[3] = {etrecord_path ? etrecord_path : "",
                              member[0] ? ": " : "", member};
      size_t at = 0, cap = sizeof err->where - 1;
      for (int k = 0; k < 3; k++)
        for (const char *c = parts[k]; *c && at < cap; c++)
          err->where[at++] = *c;
      err->where[at] = 0;
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
    etk_reference_outputs_free(r);
    *out = NULL;
  }
  return rc;
}

void etk_reference_outputs_free(etk_reference_outputs_t *r) {
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

static int reference_views(const etk_reference_outputs_t *r, size_t block,
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

static size_t case_count(const etk_reference_outputs_t *r) {
  if (r->bundled)
    return etk_bundled_find_suite(r->bundled, "forward")->case_count;
  const etk_pickle_value_t *m =
      etk_pickle_dict_get(etk_torch_archive_root(r->archive), "forward");
  return m && (m->kind == ETK_PICKLE_LIST || m->kind == ETK_PICKLE_TUPLE)
             ? m->count
             : 0;
}

/* Reports a note or warning through `report` (formatted, one line). */
static void report_note(const etk_compare_report_t *report, int warning,
                        const char *fmt, ...) ETK_PRINTF_LIKE(3, 4);
static void report_note(const etk_compare_report_t *report, int warning,
                        const char *fmt, ...) {
  if (!report || !report->note) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  report->note(report->ctx, warning, line);
}

/* Puts "event block B: " in front of err->message. */
static void prefix_block(etk_error_t *err, size_t b) {
  if (!err) return;
  char prefix[64];
  snprintf(prefix, sizeof prefix, "event block %zu: ", b);
  size_t p = strlen(prefix), m = strlen(err->message);
  if (m > sizeof err->message - 1 - p) m = sizeof err->message - 1 - p;
  memmove(err->message + p, err->message, m);
  memcpy(err->message, prefix, p);
  err->message[p + m] = 0;
}

/* Per-block scratch of compare_block(). */
typedef struct block_scratch {
  etk_numerics_value_t *vals;
  etk_numerics_tensor_t *runs;
  etk_compare_pair_t *pairs;
  double *values;
} block_scratch_t;

static void block_scratch_free(block_scratch_t *s) {
  free(s->vals);
  free(s->runs);
  free(s->pairs);
  free(s->values);
}

/* Pairs the program outputs of block `b` with their references and writes
 * the comparison. */
static int compare_block(const etk_reference_outputs_t *ref,
                         const etk_etdump_t *dump, size_t b,
                         const etk_inspector_block_t *blk, const uint8_t *dbuf,
                         size_t dlen, etk_render_sink_t *sink,
                         const etk_compare_report_t *report, etk_error_t *err) {
  size_t cases = case_count(ref);
  if (blk->bundled_input_index == -1 && cases > 1)
    report_note(report, 0,
                "event block %zu has no bundled_input_index; comparing with "
                "the last of %zu test cases, as upstream does",
                b, cases);
  ref_views_t rv;
  block_scratch_t s = {0};
  int rc = reference_views(ref, b, blk->bundled_input_index, &rv, err);
  if (rc == ETK_OK) {
    size_t k = blk->output_count;
    s.vals = calloc(k, sizeof *s.vals);
    s.runs = calloc(k, sizeof *s.runs);
    s.pairs = calloc(k, sizeof *s.pairs);
    s.values = calloc(3 * k, sizeof *s.values);
    if (!s.vals || !s.runs || !s.pairs || !s.values)
      rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  size_t n = rc == ETK_OK
                 ? (rv.count < blk->output_count ? rv.count : blk->output_count)
                 : 0;
  if (rc == ETK_OK && rv.count != blk->output_count)
    report_note(report, 1,
                "event block %zu logged %zu program outputs but the reference "
                "has %zu; comparing the first %zu (upstream zips them)",
                b, blk->output_count, rv.count, n);
  size_t not_tensors = 0;
  for (size_t i = 0; i < n && rc == ETK_OK; i++) {
    etk_etdump_value_t raw;
    uint32_t item = 0;
    if (etk_etdump_event_value(dump, blk->outputs[i], &raw) == ETK_OK &&
        raw.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST)
      item = ~0u;
    rc = etk_numerics_debug_value(dump, dbuf, dlen, blk->outputs[i], item,
                                  &s.vals[i], err);
    if (rc != ETK_OK) break;
    bool run_ok = s.vals[i].kind == ETK_NUMERICS_VALUE_TENSOR &&
                  etk_numerics_value_view(&s.vals[i], &s.runs[i]);
    s.pairs[i].run = run_ok ? &s.runs[i] : NULL;
    s.pairs[i].reference = rv.present[i] ? &rv.t[i] : NULL;
    if (!s.pairs[i].run || !s.pairs[i].reference) not_tensors++;
  }
  if (rc == ETK_OK && not_tensors)
    report_note(report, 1,
                "event block %zu: %zu output(s) are not tensors on both sides "
                "and print as None (upstream fails with a TypeError)",
                b, not_tensors);
  if (rc == ETK_OK) {
    rc = etk_compare_results_write(s.pairs, n, ETK_COMPARE_ALL, sink, s.values,
                                   err);
    if (rc != ETK_OK)
      prefix_block(err, b);
    else if (report && report->block)
      report->block(report->ctx, b, n, s.values);
  }
  block_scratch_free(&s);
  ref_views_free(&rv);
  return rc;
}

int etk_compare_results_inspector(const etk_reference_outputs_t *ref,
                                  const etk_inspector_t *insp,
                                  const uint8_t *dbuf, size_t dlen,
                                  etk_render_sink_t *sink,
                                  const etk_compare_report_t *report,
                                  etk_error_t *err) {
  if (!ref || !insp || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "compare_results: NULL argument");
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  size_t blocks = etk_inspector_block_count(insp), compared = 0;
  int rc = ETK_OK;
  for (size_t b = 0; b < blocks && rc == ETK_OK; b++) {
    etk_inspector_block_t blk;
    if (etk_inspector_block_get(insp, b, &blk) != ETK_OK || !blk.name_present ||
        strcmp(blk.name, "Execute") != 0)
      continue;
    compared++;
    if (blk.output_count == 0)
      return etk_error_set(err, ETK_E_NOT_FOUND, blk.offset,
                           "event block %zu (Execute) logged no program "
                           "outputs (trace with debug level 'outputs' or "
                           "'intermediates')",
                           b);
    rc = compare_block(ref, dump, b, &blk, dbuf, dlen, sink, report, err);
  }
  if (rc == ETK_OK && compared == 0)
    rc = etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "--compare_results: no event block is named "
                       "\"Execute\" (upstream compares only those)");
  return rc;
}
