/*
 * stats_cmp.c - STATS comparisons (etkit/numerics.h "STATS comparisons"):
 * a run recorded at debug level "stats" against the ETRecord graph run in
 * C (the rows of etk_gap_build, which reduce the AOT outputs) or against
 * another run (the pairing of etk_numerics_ab_build; a full tensor of
 * either side is reduced here), with upstream's
 * compare_aot_runtime_dataframe columns (aot_<field>, rt_<field>, the
 * reference as "aot") and two drift flags: NaN/Inf appearing in the run,
 * and a p99_abs shift beyond a threshold.
 *
 * The rows borrow the strings of the gap or A/B comparison they come
 * from (those must outlive the comparison); the debug-handle texts are
 * the comparison's own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/numerics.h"
#include "etkit/scalar_type.h"
#include "etkit/schema.h"
#include "etkit/tensor_stats.h"

#define NSTATS ETK_TENSOR_STATS_COUNT
#define DEFAULT_THRESHOLD 0.1

struct etk_stats_cmp {
  etk_stats_row_t *rows;
  size_t count, compared, drifting;
  double threshold;
  char **texts; /* owned debug-handle texts, one per row (or NULL) */
};

static int nonfinite(const double s[NSTATS]) {
  return s[ETK_STAT_NAN_COUNT] > 0 || s[ETK_STAT_INF_COUNT] > 0;
}

/* The flags of a row whose sides are filled. */
static void judge(etk_stats_cmp_t *c, etk_stats_row_t *r) {
  r->p99_shift = NAN;
  if (!r->has_aot || !r->has_rt) return;
  c->compared++;
  r->p99_shift = etk_stats_p99_shift(r->aot, r->rt);
  r->nan_inf_appears = nonfinite(r->rt) && !nonfinite(r->aot);
  r->drift = r->nan_inf_appears || r->p99_shift > c->threshold;
  c->drifting += r->drift != 0;
}

static int cmp_alloc(size_t n, double threshold, etk_stats_cmp_t **out,
                     etk_error_t *err) {
  etk_stats_cmp_t *c = calloc(1, sizeof *c);
  if (c) {
    c->rows = calloc(n ? n : 1, sizeof *c->rows);
    c->texts = calloc(n ? n : 1, sizeof *c->texts);
  }
  if (!c || !c->rows || !c->texts) {
    etk_stats_cmp_free(c);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  c->threshold = threshold == threshold ? threshold : DEFAULT_THRESHOLD;
  *out = c;
  return ETK_OK;
}

void etk_stats_cmp_free(etk_stats_cmp_t *c) {
  if (!c) return;
  for (size_t i = 0; c->texts && i < c->count; i++) free(c->texts[i]);
  free(c->texts);
  free(c->rows);
  free(c);
}

/* "5" or "[5, 6]" */
static char *handles_text(const int64_t *h, size_t n) {
  size_t cap = 4 + 22 * n;
  char *s = malloc(cap), *p = s;
  if (!s) return NULL;
  if (n != 1) *p++ = '[';
  for (size_t i = 0; i < n; i++)
    p += snprintf(p, cap - (size_t)(p - s), "%s%lld", i ? ", " : "",
                  (long long)h[i]);
  if (n != 1) *p++ = ']';
  *p = 0;
  return s;
}

int etk_stats_cmp_from_gap(const etk_gap_t *gap, double threshold,
                           etk_stats_cmp_t **out, etk_error_t *err) {
  size_t n = etk_gap_row_count(gap);
  const etk_gap_row_t *g = etk_gap_rows(gap);
  etk_stats_cmp_t *c = NULL;
  int rc = cmp_alloc(n, threshold, &c, err);
  if (rc != ETK_OK) return rc;
  /* upstream's row order (the gap keeps its rows worst first) */
  for (size_t i = 0; i < n; i++) {
    const etk_gap_row_t *s = &g[i];
    etk_stats_row_t *r = &c->rows[s->order < n ? s->order : i];
    memset(r, 0, sizeof *r);
    r->block = "";
    r->instruction_id = -1;
    r->list_item = -1;
    c->texts[c->count++] = handles_text(s->handles, s->handle_count);
    r->debug_handle = c->texts[c->count - 1];
    r->node_name = s->aot_ops;
    r->op_target = s->runtime_ops;
    r->note = s->stats ? "" : s->note[0] ? s->note : "not a STATS vector";
    if (!r->debug_handle) {
      etk_stats_cmp_free(c);
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    }
    if (s->stats) {
      r->has_aot = r->has_rt = 1;
      memcpy(r->aot, s->aot_stats, sizeof r->aot);
      memcpy(r->rt, s->rt_stats, sizeof r->rt);
    }
  }
  for (size_t i = 0; i < n; i++) judge(c, &c->rows[i]);
  *out = c;
  return ETK_OK;
}

/* One side's value as a STATS vector: read from a stats dump, or computed
 * from a full tensor.  1 when `out` is filled, else 0 and *note says why. */
static int side_stats(const etk_inspector_t *insp, const uint8_t *buf,
                      size_t len, uint32_t event, int32_t item,
                      double out[NSTATS], const char **note) {
  const etk_etdump_t *d = etk_inspector_etdump(insp);
  etk_numerics_value_t v;
  if (event == UINT32_MAX) {
    *note = "not logged on one side";
    return 0;
  }
  if (etk_numerics_debug_value(d, buf, len, event,
                               item < 0 ? 0u : (uint32_t)item, &v,
                               NULL) != ETK_OK) {
    *note = "value not readable";
    return 0;
  }
  if (v.kind != ETK_NUMERICS_VALUE_TENSOR) {
    *note = "not a tensor";
    return 0;
  }
  if (etk_etdump_has_tensor_stats(d) &&
      v.scalar_type == ETK_SCALAR_TYPE_DOUBLE && v.dim == 1 &&
      v.sizes[0] == NSTATS && v.nbytes == 8u * NSTATS && v.data) {
    memcpy(out, v.data, 8u * NSTATS);
    return 1;
  }
  size_t es = etk_scalar_type_size(v.scalar_type);
  /* the STATS do not depend on the elements' order: a dense strided
   * layout reads the same as its logical order */
  if (es == 0 ||
      etk_tensor_stats_compute(v.scalar_type, v.data, (size_t)(v.nbytes / es),
                               out) != ETK_OK) {
    *note = "no STATS for this dtype";
    return 0;
  }
  return 1;
}

int etk_stats_cmp_from_runs(const etk_numerics_ab_t *ab,
                            const etk_inspector_t *a, const uint8_t *a_buf,
                            size_t a_len, const etk_inspector_t *b,
                            const uint8_t *b_buf, size_t b_len,
                            double threshold, etk_stats_cmp_t **out,
                            etk_error_t *err) {
  size_t n = etk_numerics_ab_row_count(ab);
  etk_stats_cmp_t *c = NULL;
  int rc = cmp_alloc(n, threshold, &c, err);
  if (rc != ETK_OK) return rc;
  for (size_t i = 0; i < n; i++) {
    etk_numerics_row_t s;
    etk_stats_row_t *r = &c->rows[i];
    const char *note_a = "", *note_b = "";
    etk_numerics_ab_row_get(ab, i, &s);
    memset(r, 0, sizeof *r);
    c->count++;
    r->block = s.block;
    r->instruction_id = s.is_output ? -1 : s.instruction_id;
    r->is_output = s.is_output;
    r->output_index = s.output_index;
    r->list_item = s.list_item;
    r->node_name = s.name;
    r->op_target = s.op_types;
    r->has_aot =
        side_stats(a, a_buf, a_len, s.event_a, s.list_item, r->aot, &note_a);
    r->has_rt =
        side_stats(b, b_buf, b_len, s.event_b, s.list_item, r->rt, &note_b);
    r->note = s.status == ETK_NUMERICS_ARGUMENT ? "delegate argument"
              : !r->has_aot                     ? note_a
                                                : note_b;
    if (s.status == ETK_NUMERICS_ONLY_A || s.status == ETK_NUMERICS_ONLY_B)
      r->note = etk_numerics_status_name(s.status);
    /* a delegate call's inputs are not its error: shown, never judged */
    if (s.status == ETK_NUMERICS_ARGUMENT) {
      r->p99_shift = etk_stats_p99_shift(r->aot, r->rt);
      continue;
    }
    judge(c, r);
  }
  *out = c;
  return ETK_OK;
}

size_t etk_stats_cmp_row_count(const etk_stats_cmp_t *c) {
  return c ? c->count : 0;
}
const etk_stats_row_t *etk_stats_cmp_rows(const etk_stats_cmp_t *c) {
  return c ? c->rows : NULL;
}
size_t etk_stats_cmp_compared(const etk_stats_cmp_t *c) {
  return c ? c->compared : 0;
}
size_t etk_stats_cmp_drifting(const etk_stats_cmp_t *c) {
  return c ? c->drifting : 0;
}
double etk_stats_cmp_threshold(const etk_stats_cmp_t *c) {
  return c ? c->threshold : NAN;
}

/* ------------------------------------------------------------- rendering */

#define FIXED_COLS 7
#define TAIL_COLS 4
#define FULL_COLS (FIXED_COLS + 2 * NSTATS + TAIL_COLS)

/* upstream's compare_aot_runtime_dataframe columns (aot_<f>, rt_<f> per
 * field, in the STATS order) between etkit's keys and flags */
static const char *const full_headers[FULL_COLS] = {
    "event_block_name",
    "instruction",
    "debug_handle",
    "output_index",
    "node_name",
    "op_target",
    "reducer_name",
    "aot_min",
    "rt_min",
    "aot_max",
    "rt_max",
    "aot_mean",
    "rt_mean",
    "aot_abs_max",
    "rt_abs_max",
    "aot_abs_mean",
    "rt_abs_mean",
    "aot_std",
    "rt_std",
    "aot_rms",
    "rt_rms",
    "aot_l1_norm",
    "rt_l1_norm",
    "aot_l2_norm",
    "rt_l2_norm",
    "aot_nan_count",
    "rt_nan_count",
    "aot_inf_count",
    "rt_inf_count",
    "aot_zero_count",
    "rt_zero_count",
    "aot_p99_abs",
    "rt_p99_abs",
    "p99_shift",
    "nan_inf_appears",
    "drift",
    "note",
};

static void text_cell(etk_cell_t *out, const char *s) {
  if (s)
    etk_cell_set_text(out, s, strlen(s));
  else
    etk_cell_set_none(out);
}

static void instruction_cell(const etk_stats_row_t *r, etk_cell_t *out) {
  if (r->is_output)
    etk_cell_set_text(out, "output", 6);
  else if (r->instruction_id < 0)
    etk_cell_set_none(out);
  else
    etk_cell_set_int(out, r->instruction_id);
}

static int full_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                     etk_strbuf_t *scratch) {
  const etk_stats_cmp_t *c = ctx;
  const etk_stats_row_t *r = &c->rows[row];
  if (col >= FIXED_COLS && col < FIXED_COLS + 2 * NSTATS) {
    size_t k = col - FIXED_COLS;
    int rt = k % 2 != 0;
    if (rt ? r->has_rt : r->has_aot)
      etk_cell_set_float(out, rt ? r->rt[k / 2] : r->aot[k / 2]);
    else
      etk_cell_set_none(out);
    return ETK_OK;
  }
  switch (col) {
    case 0:
      text_cell(out, r->block);
      break;
    case 1:
      instruction_cell(r, out);
      break;
    case 2:
      if (r->debug_handle)
        etk_cell_set_object(out, r->debug_handle, strlen(r->debug_handle));
      else
        etk_cell_set_none(out);
      break;
    case 3:
      if (r->list_item < 0) {
        etk_cell_set_int(out, r->output_index);
      } else {
        etk_strbuf_printf(scratch, "%u[%d]", r->output_index,
                          (int)r->list_item);
        if (scratch->failed) return ETK_E_NO_MEMORY;
        etk_cell_set_object(out, scratch->data, scratch->len);
      }
      break;
    case 4:
      text_cell(out, r->node_name);
      break;
    case 5:
      text_cell(out, r->op_target);
      break;
    case 6:
      etk_cell_set_text(out, "STATS", 5);
      break;
    case FIXED_COLS + 2 * NSTATS:
      etk_cell_set_float(out, r->p99_shift);
      break;
    case FIXED_COLS + 2 * NSTATS + 1:
      etk_cell_set_bool(out, r->nan_inf_appears);
      break;
    case FIXED_COLS + 2 * NSTATS + 2:
      etk_cell_set_bool(out, r->drift);
      break;
    default:
      text_cell(out, r->note);
      break;
  }
  return ETK_OK;
}

static const char *const compact_headers[] = {
    "iid",         "node",       "rt min",    "rt max",  "rt mean", "rt std",
    "aot p99_abs", "rt p99_abs", "p99 shift", "nan/inf", "status"};
#define COMPACT_COLS (sizeof compact_headers / sizeof compact_headers[0])
#define COMPACT_NAME_MAX 24

static int compact_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                        etk_strbuf_t *scratch) {
  const etk_stats_cmp_t *c = ctx;
  const etk_stats_row_t *r = &c->rows[row];
  static const int rt_stat[] = {ETK_STAT_MIN, ETK_STAT_MAX, ETK_STAT_MEAN,
                                ETK_STAT_STD};
  switch (col) {
    case 0:
      if (r->debug_handle)
        etk_cell_set_object(out, r->debug_handle, strlen(r->debug_handle));
      else
        instruction_cell(r, out);
      return ETK_OK;
    case 1:
      etk_strbuf_appends(scratch, r->node_name ? r->node_name : "");
      etk_strbuf_cut(scratch, COMPACT_NAME_MAX);
      if (scratch->failed) return ETK_E_NO_MEMORY;
      etk_cell_set_text(out, scratch->data ? scratch->data : "", scratch->len);
      return ETK_OK;
    case 2:
    case 3:
    case 4:
    case 5:
      if (r->has_rt)
        etk_cell_set_float(out, r->rt[rt_stat[col - 2]]);
      else
        etk_cell_set_none(out);
      return ETK_OK;
    case 6:
    case 7:
      if (col == 6 ? r->has_aot : r->has_rt)
        etk_cell_set_float(out, (col == 6 ? r->aot : r->rt)[ETK_STAT_P99_ABS]);
      else
        etk_cell_set_none(out);
      return ETK_OK;
    case 8:
      etk_cell_set_float(out, r->p99_shift);
      return ETK_OK;
    case 9:
      if (!r->has_rt) {
        etk_cell_set_none(out);
        return ETK_OK;
      }
      etk_strbuf_printf(scratch, "%.0f/%.0f", r->rt[ETK_STAT_NAN_COUNT],
                        r->rt[ETK_STAT_INF_COUNT]);
      if (scratch->failed) return ETK_E_NO_MEMORY;
      etk_cell_set_object(out, scratch->data, scratch->len);
      return ETK_OK;
    default: {
      const char *s = r->nan_inf_appears ? "drift: NaN/Inf appears"
                      : r->drift         ? "drift: p99_abs shift"
                      : r->note[0]       ? r->note
                                         : "ok";
      etk_cell_set_text(out, s, strlen(s));
      return ETK_OK;
    }
  }
}

static void json_stats(etk_json_t *j, const char *key, int has,
                       const double s[NSTATS]) {
  etk_json_key(j, key);
  if (!has) {
    etk_json_null(j);
    return;
  }
  etk_json_begin_object(j);
  for (unsigned i = 0; i < NSTATS; i++) {
    etk_json_key(j, etk_tensor_stat_name(i));
    etk_json_double(j, s[i]);
  }
  etk_json_end_object(j);
}

static void json_text(etk_json_t *j, const char *key, const char *s) {
  etk_json_key(j, key);
  if (s)
    etk_json_cstring(j, s);
  else
    etk_json_null(j);
}

static int render_json(const etk_stats_cmp_t *c, int indent,
                       etk_render_sink_t *sink, etk_error_t *err) {
  etk_json_t j;
  etk_json_init(&j, sink, indent);
  etk_json_begin_object(&j);
  etk_json_key(&j, "reducer_name");
  etk_json_cstring(&j, "STATS");
  etk_json_key(&j, "threshold");
  etk_json_double(&j, c->threshold);
  etk_json_key(&j, "compared");
  etk_json_uint(&j, c->compared);
  etk_json_key(&j, "drifting");
  etk_json_uint(&j, c->drifting);
  etk_json_key(&j, "rows");
  etk_json_begin_array(&j);
  for (size_t i = 0; i < c->count; i++) {
    const etk_stats_row_t *r = &c->rows[i];
    etk_json_begin_object(&j);
    json_text(&j, "event_block_name", r->block);
    etk_json_key(&j, "instruction");
    if (r->is_output || r->instruction_id < 0)
      etk_json_null(&j);
    else
      etk_json_int(&j, r->instruction_id);
    etk_json_key(&j, "is_output");
    etk_json_bool(&j, r->is_output);
    json_text(&j, "debug_handle", r->debug_handle);
    etk_json_key(&j, "output_index");
    etk_json_uint(&j, r->output_index);
    etk_json_key(&j, "list_item");
    if (r->list_item < 0)
      etk_json_null(&j);
    else
      etk_json_int(&j, r->list_item);
    json_text(&j, "node_name", r->node_name);
    json_text(&j, "op_target", r->op_target);
    json_stats(&j, "aot", r->has_aot, r->aot);
    json_stats(&j, "rt", r->has_rt, r->rt);
    etk_json_key(&j, "p99_shift");
    etk_json_double(&j, r->p99_shift);
    etk_json_key(&j, "nan_inf_appears");
    etk_json_bool(&j, r->nan_inf_appears);
    etk_json_key(&j, "drift");
    etk_json_bool(&j, r->drift);
    json_text(&j, "note", r->note);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  return etk_json_finish_or_error(&j, err);
}

int etk_stats_cmp_render(const etk_stats_cmp_t *c, etk_inspect_format_t format,
                         int json_indent, etk_render_sink_t *sink,
                         etk_error_t *err) {
  if (!c || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  if (format == ETK_INSPECT_FORMAT_JSON)
    return render_json(c, json_indent, sink, err);
  if (format == ETK_INSPECT_FORMAT_TABLE) {
    etk_frame_t f = {c->count,     COMPACT_COLS, compact_headers,
                     compact_cell, (void *)c,    0};
    return etk_render_table(&f, sink, err);
  }
  etk_frame_t f = {c->count, FULL_COLS, full_headers, full_cell, (void *)c, 0};
  return etk_render_delimited(&f, format == ETK_INSPECT_FORMAT_TSV ? '\t' : ',',
                              sink, err);
}
