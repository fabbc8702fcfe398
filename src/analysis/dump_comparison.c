/*
 * dump_comparison.c - sets of ETDumps compared with the noise-aware engine
 * (etkit/significance.h, "sets of dumps"): `etkit diff A... --vs B...`.
 *
 * DATA LAYOUT
 *   Every sample with a duration of every event of every dump goes into one
 *   etk_pooled_t under the key "block\x1fname\x1finstruction id" (the
 *   delegate id's text names delegated events), side 0 for A, 1 for B.
 *   Rendering splits the key back into its three columns.  op_types[id]
 *   and modules[id] (grown with the pool's ids) keep what an ETRecord link
 *   gave the key's event in the first dump that had it.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/significance.h"

/* Keeps key `id`'s op types and module from a linked event (the first
 * dump that has them wins). */
static int describe(etk_dump_comparison_t *c, size_t id,
                    const etk_inspector_t *insp, size_t e) {
  if (id >= c->described) {
    size_t n = id + 1 > 2 * c->described ? id + 1 : 2 * c->described;
    char **t = realloc(c->op_types, n * sizeof *t);
    if (t) c->op_types = t;
    char **m = t ? realloc(c->modules, n * sizeof *m) : NULL;
    if (!t || !m) return ETK_E_NO_MEMORY;
    c->modules = m;
    memset(t + c->described, 0, (n - c->described) * sizeof *t);
    memset(m + c->described, 0, (n - c->described) * sizeof *m);
    c->described = n;
  }
  etk_inspector_event_link_t link;
  const etk_inspector_module_t *mods = NULL;
  size_t nmods = 0;
  if (!c->op_types[id] && etk_inspector_event_link(insp, e, &link) == ETK_OK &&
      link.op_type_count) {
    etk_strbuf_t b = {0};
    for (size_t i = 0; i < link.op_type_count; i++)
      etk_strbuf_printf(&b, "%s%s", i ? "," : "", link.op_types[i]);
    if (b.failed) return ETK_E_NO_MEMORY;
    c->op_types[id] = b.data;
  }
  if (!c->modules[id] &&
      etk_inspector_event_module(insp, e, &mods, &nmods) == ETK_OK && nmods &&
      mods[nmods - 1].normalized &&
      !(c->modules[id] = strdup(mods[nmods - 1].normalized)))
    return ETK_E_NO_MEMORY;
  return ETK_OK;
}

static int add_dump(etk_dump_comparison_t *c, int side,
                    const etk_inspector_t *insp, etk_strbuf_t *key) {
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
    size_t id = SIZE_MAX;
    for (size_t k = 0; k < ev.sample_count; k++) {
      etk_inspector_sample_t s;
      if (etk_inspector_event_sample(insp, e, k, &s) != ETK_OK) continue;
      int rc =
          etk_pooled_add(c->pool, side, key->data, key->len, s.duration, &id);
      if (rc) return rc;
    }
    if (id != SIZE_MAX && describe(c, id, insp, e)) return ETK_E_NO_MEMORY;
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
    rc = add_dump(out, i >= na, i < na ? a[i] : b[i - na], &key);
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
  for (size_t i = 0; i < c->described; i++) {
    free(c->op_types[i]);
    free(c->modules[i]);
  }
  free(c->op_types);
  free(c->modules);
  memset(c, 0, sizeof *c);
}

int etk_dump_comparison_fails(const etk_dump_comparison_t *c, double pct) {
  for (size_t i = 0; c && i < c->count; i++)
    if (etk_change_fails(c->changes[i].significant, c->changes[i].direction,
                         c->changes[i].delta_pct, pct))
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
                                      "candidate_samples",
                                      "op_type",
                                      "module"};
#define COLS 16

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
    case 14:
    case 15: {
      char *const *texts = col == 14 ? c->op_types : c->modules;
      const char *t = ch->id < c->described ? texts[ch->id] : NULL;
      if (t)
        etk_cell_set_text(out, t, strlen(t));
      else
        etk_cell_set_none(out);
      break;
    }
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
