/*
 * dump_comparison.c - sets of ETDumps compared with the noise-aware engine
 * (etkit/significance.h, "sets of dumps"): `etkit diff A... --vs B...`.
 *
 * DATA LAYOUT
 *   Every sample with a duration of every event of every dump goes into one
 *   etk_pooled_t under the key "block\x1fname\x1finstruction id" (the
 *   delegate id's text names delegated events), side 0 for A, 1 for B.
 *   Rendering splits the key back into its three columns.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/significance.h"

static int add_dump(etk_pooled_t *pool, int side, const etk_inspector_t *insp,
                    etk_strbuf_t *key) {
  for (size_t e = 0; e < etk_inspector_event_count(insp); e++) {
    etk_inspector_event_t ev;
    etk_inspector_block_t blk;
    if (etk_inspector_event_get_basic(insp, e, &ev) != ETK_OK ||
        ev.sample_count == 0 ||
        etk_inspector_block_get(insp, ev.block, &blk) != ETK_OK)
      continue;
    etk_strbuf_clear(key);
    etk_strbuf_printf(key, "%s\x1f%s\x1f%d", blk.name, ev.name,
                      (int)ev.instruction_id);
    if (key->failed) return ETK_E_NO_MEMORY;
    for (size_t k = 0; k < ev.sample_count; k++) {
      etk_inspector_sample_t s;
      if (etk_inspector_event_sample(insp, e, k, &s) != ETK_OK) continue;
      int rc =
          etk_pooled_add(pool, side, key->data, key->len, s.duration, NULL);
      if (rc) return rc;
    }
  }
  return ETK_OK;
}

int etk_dump_comparison_build(etk_inspector_t *const *a, size_t na,
                              etk_inspector_t *const *b, size_t nb,
                              const etk_change_rule_t *rule,
                              etk_dump_comparison_t *out, etk_error_t *err) {
  if (!out) return ETK_E_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (!a || !b || !na || !nb)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "each side needs at least one ETDump");
  out->pool = etk_pooled_new();
  etk_strbuf_t key = {0};
  int rc = out->pool ? ETK_OK : ETK_E_NO_MEMORY;
  for (size_t i = 0; rc == ETK_OK && i < na + nb; i++)
    rc = add_dump(out->pool, i >= na, i < na ? a[i] : b[i - na], &key);
  etk_strbuf_free(&key);
  if (rc == ETK_OK)
    rc = etk_pooled_compare(out->pool, rule, &out->changes, &out->count);
  if (rc != ETK_OK) {
    etk_dump_comparison_free(out);
    return etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  }
  return ETK_OK;
}

void etk_dump_comparison_free(etk_dump_comparison_t *c) {
  if (!c) return;
  etk_pooled_free(c->pool);
  free(c->changes);
  memset(c, 0, sizeof *c);
}

int etk_dump_comparison_fails(const etk_dump_comparison_t *c, double pct) {
  for (size_t i = 0; c && i < c->count; i++)
    if (c->changes[i].significant &&
        c->changes[i].direction == ETK_CHANGE_SLOWER &&
        c->changes[i].delta_pct > pct)
      return 1;
  return 0;
}

static const char *const headers[] = {"block",
                                      "name",
                                      "instruction_id",
                                      "baseline",
                                      "candidate",
                                      "delta_pct",
                                      "ci_low",
                                      "ci_high",
                                      "p_value",
                                      "q_value",
                                      "significant",
                                      "direction",
                                      "baseline_samples",
                                      "candidate_samples"};
#define COLS 14

/* Part `i` (0..2) of a key "block\x1fname\x1fid". */
static const char *key_part(const char *key, int i, size_t *len) {
  for (int k = 0; k < i; k++) {
    const char *sep = strchr(key, '\x1f');
    key = sep ? sep + 1 : key + strlen(key);
  }
  const char *end = strchr(key, '\x1f');
  *len = end ? (size_t)(end - key) : strlen(key);
  return key;
}

static int cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                etk_strbuf_t *scratch) {
  const etk_dump_comparison_t *c = ctx;
  const etk_pooled_change_t *ch = &c->changes[row];
  const char *key = etk_pooled_key(c->pool, ch->id, NULL);
  size_t len = 0;
  const char *dir = etk_change_direction_name(ch->direction);
  (void)scratch;
  double v[] = {ch->shift.baseline, ch->shift.candidate, ch->delta_pct,
                ch->ci_low_pct,     ch->ci_high_pct,     ch->shift.p_value,
                ch->q_value};
  switch (col) {
    case 0:
    case 1: {
      const char *part = key_part(key, (int)col, &len);
      etk_cell_set_text(out, part, len);
      break;
    }
    case 2:
      etk_cell_set_int(out, strtoll(key_part(key, 2, &len), NULL, 10));
      break;
    case 10:
      etk_cell_set_bool(out, ch->significant);
      break;
    case 11:
      etk_cell_set_text(out, dir, strlen(dir));
      break;
    case 12:
    case 13:
      etk_cell_set_int(
          out, (int64_t)etk_pooled_samples(c->pool, ch->id, (int)col - 12));
      break;
    default:
      if (isnan(v[col - 3]))
        etk_cell_set_none(out);
      else
        etk_cell_set_float(out, v[col - 3]);
  }
  return ETK_OK;
}

int etk_dump_comparison_render(const etk_dump_comparison_t *c,
                               etk_inspect_format_t format,
                               etk_render_sink_t *sink, etk_error_t *err) {
  if (!c || !sink) return ETK_E_INVALID_ARGUMENT;
  etk_frame_t f = {c->count, COLS, headers, cell, (void *)c, 0};
  if (format == ETK_INSPECT_FORMAT_TABLE)
    return etk_render_table(&f, sink, err);
  if (format != ETK_INSPECT_FORMAT_JSON)
    return etk_render_delimited(
        &f, format == ETK_INSPECT_FORMAT_TSV ? '\t' : ',', sink, err);
  etk_json_t j;
  etk_strbuf_t scratch = {0};
  etk_json_init(&j, sink, 2);
  etk_json_begin_object(&j);
  etk_json_key(&j, "changes");
  etk_json_begin_array(&j);
  for (size_t r = 0; r < c->count; r++) {
    etk_json_begin_object(&j);
    for (size_t k = 0; k < COLS; k++) {
      etk_cell_t v;
      cell((void *)c, r, k, &v, &scratch);
      etk_json_key(&j, headers[k]);
      if (v.kind == ETK_CELL_TEXT)
        etk_json_string(&j, v.text, v.len);
      else if (v.kind == ETK_CELL_INT)
        etk_json_int(&j, v.i);
      else if (v.kind == ETK_CELL_BOOL)
        etk_json_bool(&j, (int)v.i);
      else if (v.kind == ETK_CELL_FLOAT)
        etk_json_double(&j, v.f);
      else
        etk_json_cstring(&j, NULL);
    }
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  etk_render_putc(sink, '\n');
  etk_strbuf_free(&scratch);
  return ETK_OK;
}
