/*
 * ab_render.c - the A/B rows of `etkit numerics` (compare.c builds them) as
 * a table, TSV/CSV or JSON, through the public row accessors only: the
 * columns of etk_numerics_ab_render() in etkit/numerics.h.  An exact
 * (integer) row shows a mismatch count instead of MSE/SNR/cosine; a
 * delegate argument shows its metrics with its own status.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "etkit/numerics.h"

/* ------------------------------------------------------------- rendering */

void etk_numerics_render_options_init(etk_numerics_render_options_t *o) {
  memset(o, 0, sizeof *o);
  o->format = ETK_INSPECT_FORMAT_TABLE;
  o->json_indent = 2;
}

static const char *const kHeaders[] = {"event_block_name",
                                       "instruction",
                                       "delegate_debug_id",
                                       "output",
                                       "event_name",
                                       "op_types",
                                       "dtype",
                                       "shape",
                                       "mse",
                                       "snr (dB)",
                                       "max_abs_error",
                                       "cosine",
                                       "status"};
#define NCOLS (sizeof kHeaders / sizeof kHeaders[0])

/* "x" or "x | y" (NULL sides as "-") */
static void both(etk_strbuf_t *s, const char *x, const char *y) {
  if (x && y && strcmp(x, y) == 0) {
    etk_strbuf_appends(s, x);
    return;
  }
  etk_strbuf_appends(s, x ? x : "-");
  etk_strbuf_appends(s, " | ");
  etk_strbuf_appends(s, y ? y : "-");
}

static int ab_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                   etk_strbuf_t *scratch);

/* The compact table (not wide): its kHeaders columns, headers, name cut. */
static const size_t kCompactColumns[] = {0, 1, 3, 4, 7, 9, 10, 11, 12};
static const char *const kCompactHeaders[] = {"block",   "iid",    "out",
                                              "event",   "shape",  "snr (dB)",
                                              "max abs", "cosine", "status"};
#define NCOMPACT (sizeof kCompactColumns / sizeof kCompactColumns[0])
#define COMPACT_NAME_MAX 20

static int ab_compact_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                           etk_strbuf_t *scratch) {
  const etk_numerics_ab_t *ab = ctx;
  size_t full = kCompactColumns[col];
  etk_numerics_row_t r;
  if (etk_numerics_ab_row_get(ab, row, &r) != ETK_OK) return ETK_E_INTERNAL;
  if (full == 12 && r.status == ETK_NUMERICS_MATCHED && r.exact) {
    etk_strbuf_printf(scratch, "%llu/%llu differ",
                      (unsigned long long)r.mismatches,
                      (unsigned long long)r.numel);
    if (scratch->failed) return ETK_E_NO_MEMORY;
    etk_cell_set_text(out, scratch->data, scratch->len);
    return ETK_OK;
  }
  if (full == 12 && r.status == ETK_NUMERICS_ARGUMENT) {
    etk_cell_set_text(out, "argument", 8); /* the wide table's "delegate
                                              argument", shortened */
    return ETK_OK;
  }
  if (full != 4) return ab_cell(ctx, row, full, out, scratch);
  etk_strbuf_appends(scratch, r.name);
  etk_strbuf_cut(scratch, COMPACT_NAME_MAX);
  if (scratch->failed) return ETK_E_NO_MEMORY;
  etk_cell_set_text(out, scratch->data ? scratch->data : "", scratch->len);
  return ETK_OK;
}

static int ab_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                   etk_strbuf_t *scratch) {
  const etk_numerics_ab_t *ab = ctx;
  etk_numerics_row_t r;
  if (etk_numerics_ab_row_get(ab, row, &r) != ETK_OK) return ETK_E_INTERNAL;
  bool matched =
      r.status == ETK_NUMERICS_MATCHED || r.status == ETK_NUMERICS_ARGUMENT;
  switch (col) {
    case 0:
      etk_cell_set_text(out, r.block, strlen(r.block));
      break;
    case 1:
      if (r.is_output)
        etk_cell_set_text(out, "output", 6);
      else if (r.instruction_id < 0)
        etk_cell_set_none(out);
      else
        etk_cell_set_int(out, r.instruction_id);
      break;
    case 2:
      if (r.delegate_debug_id_int >= 0)
        etk_cell_set_int(out, r.delegate_debug_id_int);
      else if (r.delegate_debug_id_str)
        etk_cell_set_text(out, r.delegate_debug_id_str,
                          strlen(r.delegate_debug_id_str));
      else
        etk_cell_set_none(out);
      break;
    case 3:
      if (r.list_item < 0) {
        etk_cell_set_int(out, r.output_index);
      } else {
        etk_strbuf_printf(scratch, "%u[%d]", r.output_index, (int)r.list_item);
        etk_cell_set_object(out, scratch->data, scratch->len);
      }
      break;
    case 4:
      etk_cell_set_text(out, r.name, strlen(r.name));
      break;
    case 5:
      if (r.op_types)
        etk_cell_set_object(out, r.op_types, strlen(r.op_types));
      else
        etk_cell_set_none(out);
      break;
    case 6:
    case 7:
      both(scratch, col == 6 ? r.dtype_a : r.shape_a,
           col == 6 ? r.dtype_b : r.shape_b);
      if (scratch->failed) return ETK_E_NO_MEMORY;
      etk_cell_set_object(out, scratch->data ? scratch->data : "",
                          scratch->len);
      break;
    case 8:
    case 9:
    case 10:
    case 11: {
      double v = col == 8    ? r.mse
                 : col == 9  ? r.snr
                 : col == 10 ? r.max_abs
                             : r.cosine;
      if (matched && (!r.exact || col == 10))
        etk_cell_set_float(out, v);
      else
        etk_cell_set_none(out);
    } break;
    default: {
      if (r.status == ETK_NUMERICS_MATCHED && r.exact) {
        etk_strbuf_printf(scratch, "exact: %llu of %llu differ",
                          (unsigned long long)r.mismatches,
                          (unsigned long long)r.numel);
        if (scratch->failed) return ETK_E_NO_MEMORY;
        etk_cell_set_text(out, scratch->data, scratch->len);
        break;
      }
      const char *s = etk_numerics_status_name(r.status);
      etk_cell_set_text(out, s, strlen(s));
    }
  }
  return ETK_OK;
}

static void json_number(etk_json_t *j, const char *key, double v, bool on) {
  etk_json_key(j, key);
  if (on)
    etk_json_double(j, v);
  else
    etk_json_null(j);
}

int etk_numerics_ab_render(const etk_numerics_ab_t *ab,
                           const etk_numerics_render_options_t *o,
                           etk_render_sink_t *sink, etk_error_t *err) {
  if (!ab || !sink)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  etk_numerics_render_options_t def;
  if (!o) {
    etk_numerics_render_options_init(&def);
    o = &def;
  }
  if (o->format != ETK_INSPECT_FORMAT_JSON) {
    etk_frame_t f = {
        etk_numerics_ab_row_count(ab), NCOLS, kHeaders, ab_cell, (void *)ab, 0};
    if (o->format == ETK_INSPECT_FORMAT_TABLE && !o->wide) {
      etk_frame_t c = {etk_numerics_ab_row_count(ab),
                       NCOMPACT,
                       kCompactHeaders,
                       ab_compact_cell,
                       (void *)ab,
                       0};
      return etk_render_table(&c, sink, err);
    }
    if (o->format == ETK_INSPECT_FORMAT_TABLE)
      return etk_render_table(&f, sink, err);
    return etk_render_delimited(
        &f, o->format == ETK_INSPECT_FORMAT_TSV ? '\t' : ',', sink, err);
  }
  etk_json_t j;
  etk_json_init(&j, sink, o->json_indent);
  etk_json_begin_object(&j);
  etk_json_key(&j, "a");
  etk_json_cstring(&j, o->label_a ? o->label_a : "A");
  etk_json_key(&j, "b");
  etk_json_cstring(&j, o->label_b ? o->label_b : "B");
  etk_json_key(&j, "unpaired_blocks_a");
  etk_json_uint(&j, etk_numerics_ab_unpaired_blocks(ab, 0));
  etk_json_key(&j, "unpaired_blocks_b");
  etk_json_uint(&j, etk_numerics_ab_unpaired_blocks(ab, 1));
  etk_json_key(&j, "rows");
  etk_json_begin_array(&j);
  for (size_t i = 0; i < etk_numerics_ab_row_count(ab); i++) {
    etk_numerics_row_t r;
    etk_numerics_ab_row_get(ab, i, &r);
    bool m =
        r.status == ETK_NUMERICS_MATCHED || r.status == ETK_NUMERICS_ARGUMENT;
    etk_json_begin_object(&j);
    etk_json_key(&j, "event_block_name");
    etk_json_cstring(&j, r.block);
    etk_json_key(&j, "block_occurrence");
    etk_json_uint(&j, r.block_occurrence);
    etk_json_key(&j, "is_output");
    etk_json_bool(&j, r.is_output);
    etk_json_key(&j, "instruction");
    if (r.is_output || r.instruction_id < 0)
      etk_json_null(&j); /* absent: null, never a sentinel */
    else
      etk_json_int(&j, r.instruction_id);
    etk_json_key(&j, "chain_index");
    if (r.chain_index < 0)
      etk_json_null(&j);
    else
      etk_json_int(&j, r.chain_index);
    etk_json_key(&j, "delegate_debug_id");
    if (r.delegate_debug_id_int >= 0)
      etk_json_int(&j, r.delegate_debug_id_int);
    else
      etk_json_cstring(&j, r.delegate_debug_id_str);
    etk_json_key(&j, "output_index");
    etk_json_uint(&j, r.output_index);
    etk_json_key(&j, "list_item");
    if (r.list_item < 0)
      etk_json_null(&j);
    else
      etk_json_int(&j, r.list_item);
    etk_json_key(&j, "event_name");
    etk_json_cstring(&j, r.name);
    etk_json_key(&j, "op_types");
    etk_json_cstring(&j, r.op_types);
    etk_json_key(&j, "status");
    etk_json_cstring(&j, etk_numerics_status_name(r.status));
    etk_json_key(&j, "dtype_a");
    etk_json_cstring(&j, r.dtype_a);
    etk_json_key(&j, "dtype_b");
    etk_json_cstring(&j, r.dtype_b);
    etk_json_key(&j, "shape_a");
    etk_json_cstring(&j, r.shape_a);
    etk_json_key(&j, "shape_b");
    etk_json_cstring(&j, r.shape_b);
    etk_json_key(&j, "numel");
    etk_json_uint(&j, r.numel);
    json_number(&j, "mse", r.mse, m && !r.exact);
    json_number(&j, "snr", r.snr, m && !r.exact);
    json_number(&j, "max_abs_error", r.max_abs, m);
    json_number(&j, "cosine", r.cosine, m && !r.exact);
    etk_json_key(&j, "exact");
    etk_json_bool(&j, m && r.exact);
    etk_json_key(&j, "mismatches");
    if (m && r.exact)
      etk_json_uint(&j, r.mismatches);
    else
      etk_json_null(&j);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  return etk_json_finish_or_error(&j, err);
}
