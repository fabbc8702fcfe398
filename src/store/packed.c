/*
 * packed.c - an operator's raw samples as two packed columns, and the
 * migration that packed the samples of a version-1 store.
 *
 * DATA LAYOUT (schema version 2; docs/store.md, "Packed samples")
 *   operators.durations   BLOB (SQLite) / bytea (PostgreSQL): the
 *                         operator's samples in ETDump order, each an IEEE
 *                         754 binary64 in milliseconds, little-endian, 8
 *                         bytes each (NaN where the dump had no duration);
 *   operators.executions  the same count of little-endian int64: the
 *                         Method::execute run index of each sample, or
 *                         NULL when they are 0, 1, 2, ... (one sample per
 *                         execution, the usual case).
 *   operators.samples     the count, so length(durations) = 8 * samples.
 *   One row per (run, operator) instead of one per sample: an add writes a
 *   thousand times fewer rows for a 1000-execution dump, and a trend
 *   reads one row per run.
 *
 * MIGRATION FROM VERSION 1
 *   Version 1 kept one `samples` row per sample (run_id, op, k, execution,
 *   duration).  store_migrate_pack fills the new columns run by run (one
 *   run's rows in memory at a time) inside the migration's transaction;
 *   the migration then drops `samples`.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

void store_pack_f64(const double *v, size_t n, uint8_t *out) {
  for (size_t i = 0; i < n; i++) {
    uint64_t bits;
    memcpy(&bits, &v[i], 8);
    for (int b = 0; b < 8; b++)
      out[8 * i + (size_t)b] = (uint8_t)(bits >> (8 * b));
  }
}

void store_pack_i64(const int64_t *v, size_t n, uint8_t *out) {
  for (size_t i = 0; i < n; i++) {
    uint64_t bits = (uint64_t)v[i];
    for (int b = 0; b < 8; b++)
      out[8 * i + (size_t)b] = (uint8_t)(bits >> (8 * b));
  }
}

static uint64_t load_le64(const uint8_t *p) {
  uint64_t bits = 0;
  for (int b = 7; b >= 0; b--) bits = bits << 8 | p[b];
  return bits;
}

static bool samples_reserve(store_samples_t *s, size_t n) {
  if (n <= s->cap) return true;
  double *d = realloc(s->durations, n * sizeof *d);
  if (d) s->durations = d;
  int64_t *e = d ? realloc(s->executions, n * sizeof *e) : NULL;
  if (!e) return false;
  s->executions = e;
  s->cap = n;
  return true;
}

int store_read_samples(const store_row_t *row, int col, store_samples_t *s) {
  const store_engine_ops_t *o = row->ops;
  s->count = 0;
  int rc = o->get_blob(row, col, &s->raw);
  if (rc) return rc;
  size_t n = s->raw.len / 8;
  if (s->raw.len % 8) return ETK_E_FORMAT;
  if (!samples_reserve(s, n)) return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < n; i++) {
    uint64_t bits = load_le64(s->raw.data + 8 * i);
    memcpy(&s->durations[i], &bits, 8);
  }
  if ((rc = o->get_blob(row, col + 1, &s->raw))) return rc;
  if (s->raw.len == 0) {
    for (size_t i = 0; i < n; i++) s->executions[i] = (int64_t)i;
  } else if (s->raw.len != 8 * n) {
    return ETK_E_FORMAT;
  } else {
    for (size_t i = 0; i < n; i++)
      s->executions[i] = (int64_t)load_le64(s->raw.data + 8 * i);
  }
  s->count = n;
  return ETK_OK;
}

bool store_samples_append(const store_samples_t *s, store_doubles_t *v) {
  for (size_t i = 0; i < s->count; i++)
    if (!isnan(s->durations[i]) && !store_doubles_push(v, s->durations[i]))
      return false;
  return true;
}

void store_samples_free(store_samples_t *s) {
  free(s->durations);
  free(s->executions);
  free(s->raw.data);
  memset(s, 0, sizeof *s);
}

int store_samples_error(int rc, etk_error_t *err) {
  return rc == ETK_E_NO_MEMORY
             ? etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory")
             : etk_error_set(err, rc, ETK_NO_OFFSET,
                             "damaged samples in the store (durations and "
                             "executions of different lengths)");
}

/* ------------------------------------------------ migration 1 -> 2 */

typedef struct pack_ctx {
  etk_store_t *st;
  etk_error_t *err;
  int64_t run, op;
  store_samples_t s;
  int rc;
} pack_ctx_t;

/* Writes the operator gathered so far. */
static int pack_flush(pack_ctx_t *c) {
  if (c->op < 0 || c->rc) return c->rc;
  size_t n = c->s.count;
  int identity = 1;
  for (size_t i = 0; i < n; i++) identity &= c->s.executions[i] == (int64_t)i;
  uint8_t *d = malloc(16 * (n ? n : 1));
  if (!d) return c->rc = ETK_E_NO_MEMORY;
  store_pack_f64(c->s.durations, n, d);
  store_pack_i64(c->s.executions, n, d + 8 * n);
  store_value_t p[5] = {
      store_blob(d, 8 * n),
      identity ? store_blob(NULL, 0) : store_blob(d + 8 * n, 8 * n),
      store_int((int64_t)n), store_int(c->run), store_int(c->op)};
  c->rc = store_q(c->st,
                  "UPDATE operators SET durations = $1, executions = $2, "
                  "samples = $3 WHERE run_id = $4 AND op = $5",
                  p, 5, NULL, NULL, c->err);
  free(d);
  c->s.count = 0;
  return c->rc;
}

static int pack_row(void *ctx, const store_row_t *row) {
  pack_ctx_t *c = ctx;
  const store_engine_ops_t *o = row->ops;
  int64_t op = o->get_int(row, 0);
  if (op != c->op) {
    if (pack_flush(c)) return c->rc;
    c->op = op;
  }
  if (!samples_reserve(&c->s, c->s.count + 1)) return c->rc = ETK_E_NO_MEMORY;
  c->s.executions[c->s.count] = o->get_int(row, 1);
  c->s.durations[c->s.count++] = o->is_null(row, 2) ? NAN : o->get_real(row, 2);
  return 0;
}

int store_migrate_pack(etk_store_t *st, etk_error_t *err) {
  store_ids_t ids = {0};
  int rc = store_q(st, "SELECT id FROM runs ORDER BY id", NULL, 0,
                   store_ids_row, &ids, err);
  if (rc == ETK_E_NO_MEMORY)
    rc = etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  pack_ctx_t c;
  memset(&c, 0, sizeof c);
  c.st = st;
  c.err = err;
  for (size_t i = 0; rc == ETK_OK && i < ids.count; i++) {
    store_value_t id = store_int(ids.items[i]);
    c.run = ids.items[i];
    c.op = -1;
    c.s.count = 0;
    rc = store_q(st,
                 "SELECT op, execution, duration FROM samples WHERE run_id = "
                 "$1 ORDER BY op, k",
                 &id, 1, pack_row, &c, err);
    if (rc == ETK_OK) rc = pack_flush(&c);
    if (rc == ETK_E_NO_MEMORY && c.rc == ETK_E_NO_MEMORY)
      rc = etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory");
  }
  store_samples_free(&c.s);
  free(ids.items);
  return rc;
}
