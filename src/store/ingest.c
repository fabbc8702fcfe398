/*
 * ingest.c - etk_store_add: one ETDump (plus its ETRecord and program when
 * given) into the store, in one transaction.
 *
 * ORDER OF WORK
 *   1. Read everything and check it: the dump through the Inspector (a
 *      damaged or wrong file fails here, before the database is touched),
 *      the ETRecord link, the program's memory plan; hash the dump.
 *   2. BEGIN; insert the run with ON CONFLICT (digest) DO NOTHING
 *      RETURNING id: no row back means the same bytes are already stored
 *      (idempotent add; under PostgreSQL a concurrent add of the same
 *      digest waits for the first to commit, then finds it), so roll back.
 *   3. Insert tags, blocks, operators, samples and memory-plan rows in
 *      multi-row INSERTs of up to BATCH_ROWS rows; COMMIT.  Any failure
 *      rolls the whole run back: no reader ever sees half a run.
 *
 * DATA LAYOUT
 *   A batch holds its rows' bound values and copies of the strings that do
 *   not outlive an Inspector call (a delegate id's decimal name); the
 *   engine inserts them its fastest way (store_engine_ops_t.insert_rows).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etkit/inspector_core.h"
#include "etkit/link.h"
#include "etkit/memory_plan.h"
#include "store_internal.h"

/* Rows handed to the engine at once (one COPY for PostgreSQL). */
#define BATCH_ROWS 2000
#define BATCH_MAX_COLS 11

typedef struct batch {
  etk_store_t *st;
  const char *target; /* "table (a, b)" */
  size_t cols, rows;
  store_value_t vals[BATCH_ROWS * BATCH_MAX_COLS];
  char *owned[BATCH_ROWS * BATCH_MAX_COLS];
  size_t owned_count;
} batch_t;

static int batch_flush(batch_t *b, etk_error_t *err) {
  int rc = ETK_OK;
  if (b->rows)
    rc = b->st->ops->insert_rows(b->st->conn, b->target, b->cols, b->vals,
                                 b->rows, err);
  for (size_t i = 0; i < b->owned_count; i++) free(b->owned[i]);
  b->owned_count = 0;
  b->rows = 0;
  return rc;
}

/* Drops the pending rows (after a failure) and the copies they used. */
static void batch_discard(batch_t *b) {
  for (size_t i = 0; i < b->owned_count; i++) free(b->owned[i]);
  b->owned_count = 0;
  b->rows = 0;
}

static void batch_start(batch_t *b, etk_store_t *st, const char *target,
                        size_t cols) {
  b->st = st;
  b->target = target;
  b->cols = cols;
  b->rows = 0;
}

/* Appends one row (values[0..cols)); flushes when the batch is full. */
static int batch_add(batch_t *b, const store_value_t *values,
                     etk_error_t *err) {
  memcpy(b->vals + b->rows * b->cols, values, b->cols * sizeof *values);
  if (++b->rows == BATCH_ROWS) return batch_flush(b, err);
  return ETK_OK;
}

/* A copy of s that lives until the next flush. */
static const char *batch_keep(batch_t *b, const char *s) {
  if (!s) return NULL;
  char *copy = strdup(s);
  if (!copy) return NULL;
  b->owned[b->owned_count++] = copy;
  return copy;
}

typedef struct ingest {
  etk_store_t *st;
  etk_inspector_t *insp;
  etk_etrecord_t *rec;
  etk_memory_plan_t *plan;
  const etk_store_add_options_t *opt;
  const char *source;
  int64_t run_id;
  batch_t *b;
  size_t blocks, operators, samples;
} ingest_t;

static void count_rows(ingest_t *in) {
  size_t nb = etk_inspector_block_count(in->insp);
  in->blocks = nb;
  for (size_t e = 0; e < etk_inspector_event_count(in->insp); e++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get_basic(in->insp, e, &ev) != ETK_OK ||
        ev.sample_count == 0)
      continue;
    in->operators++;
    in->samples += ev.sample_count;
  }
}

static int id_row(void *ctx, const store_row_t *row) {
  *(int64_t *)ctx = row->ops->get_int(row, 0);
  return 0;
}

/* Inserts the run row; *inserted 0 when the digest is already there. */
static int insert_run(ingest_t *in, const char *digest, size_t file_size,
                      int *inserted, etk_error_t *err) {
  int64_t when = in->opt->added_at ? in->opt->added_at : (int64_t)time(NULL);
  store_value_t p[10] = {store_text(digest),
                         store_int(when),
                         store_text(in->source),
                         store_int((int64_t)file_size),
                         store_int((int64_t)in->blocks),
                         store_int((int64_t)in->operators),
                         store_int((int64_t)in->samples),
                         store_text(in->opt->etrecord_path),
                         store_text(in->opt->program_path)};
  in->run_id = -1;
  int rc = store_q(in->st,
                   "INSERT INTO runs (digest, added_at, source, file_size, "
                   "blocks, operators, samples, etrecord, program) VALUES "
                   "($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT "
                   "(digest) DO NOTHING RETURNING id",
                   p, 9, id_row, &in->run_id, err);
  *inserted = in->run_id >= 0;
  return rc;
}

static int insert_tags(ingest_t *in, etk_error_t *err) {
  batch_start(in->b, in->st, "run_tags (run_id, key, value)", 3);
  const etk_store_add_options_t *o = in->opt;
  for (size_t i = 0; i < o->tag_count; i++) {
    int later = 0; /* the last of equal keys wins */
    for (size_t j = i + 1; j < o->tag_count; j++)
      if (strcmp(o->tags[i].key, o->tags[j].key) == 0) later = 1;
    if (later) continue;
    store_value_t v[3] = {store_int(in->run_id), store_text(o->tags[i].key),
                          store_text(o->tags[i].value)};
    int rc = batch_add(in->b, v, err);
    if (rc) return rc;
  }
  return batch_flush(in->b, err);
}

static int insert_blocks(ingest_t *in, etk_error_t *err) {
  batch_start(in->b, in->st, "blocks (run_id, block, name, method, executions)",
              5);
  for (size_t i = 0; i < in->blocks; i++) {
    etk_inspector_block_t blk;
    if (etk_inspector_block_get(in->insp, i, &blk) != ETK_OK) continue;
    const char *method =
        in->rec ? etk_etrecord_block_method(in->rec, blk.name) : NULL;
    store_value_t v[5] = {store_int(in->run_id), store_int((int64_t)i),
                          store_text(blk.name), store_text(method),
                          store_int((int64_t)blk.run_count)};
    int rc = batch_add(in->b, v, err);
    if (rc) return rc;
  }
  return batch_flush(in->b, err);
}

/* The event's op types joined by ',' (NULL without a link). */
static const char *op_types(batch_t *b, const etk_inspector_event_link_t *l) {
  if (l->op_type_count == 0) return NULL;
  etk_strbuf_t s = {0};
  for (size_t i = 0; i < l->op_type_count; i++)
    etk_strbuf_printf(&s, "%s%s", i ? "," : "", l->op_types[i]);
  const char *out = s.failed ? NULL : batch_keep(b, s.data);
  etk_strbuf_free(&s);
  return out;
}

static int insert_operator(ingest_t *in, size_t e, int64_t op,
                           const etk_inspector_event_t *ev, etk_error_t *err) {
  etk_inspector_event_link_t link;
  const etk_inspector_module_t *mods = NULL;
  size_t nmods = 0;
  const etk_inspector_node_origin_t *origins = NULL;
  size_t norigins = 0;
  etk_inspector_event_link(in->insp, e, &link);
  etk_inspector_event_module(in->insp, e, &mods, &nmods);
  etk_inspector_event_origins(in->insp, e, &origins, &norigins);
  const char *source = NULL; /* "file:line" of the first node with one */
  for (size_t i = 0; i < norigins && !source; i++)
    if (origins[i].file) {
      char where[1024];
      snprintf(where, sizeof where, "%s:%lld", origins[i].file,
               (long long)origins[i].line);
      source = batch_keep(in->b, where);
    }
  const char *name = batch_keep(in->b, ev->name);
  if (!name)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  store_value_t v[11] = {store_int(in->run_id),
                         store_int(op),
                         store_int((int64_t)ev->block),
                         store_text(name),
                         store_text(op_types(in->b, &link)),
                         store_int(ev->instruction_id),
                         store_text(link.delegate_backend_name),
                         store_int(ev->is_delegated_op != 0),
                         store_text(nmods ? mods[nmods - 1].normalized : NULL),
                         store_text(source),
                         store_int((int64_t)ev->sample_count)};
  return batch_add(in->b, v, err);
}

static int insert_operators(ingest_t *in, etk_error_t *err) {
  batch_start(in->b, in->st,
              "operators (run_id, op, block, name, op_type, instruction_id, "
              "delegate, is_delegated, module, source, samples)",
              11);
  int64_t op = 0;
  for (size_t e = 0; e < etk_inspector_event_count(in->insp); e++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(in->insp, e, &ev) != ETK_OK ||
        ev.sample_count == 0)
      continue;
    int rc = insert_operator(in, e, op++, &ev, err);
    if (rc) return rc;
  }
  return batch_flush(in->b, err);
}

static int insert_samples(ingest_t *in, etk_error_t *err) {
  batch_start(in->b, in->st, "samples (run_id, op, k, execution, duration)", 5);
  int64_t op = 0;
  for (size_t e = 0; e < etk_inspector_event_count(in->insp); e++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get_basic(in->insp, e, &ev) != ETK_OK ||
        ev.sample_count == 0)
      continue;
    for (size_t k = 0; k < ev.sample_count; k++) {
      etk_inspector_sample_t s;
      if (etk_inspector_event_sample(in->insp, e, k, &s) != ETK_OK) continue;
      store_value_t v[5] = {
          store_int(in->run_id), store_int(op), store_int((int64_t)k),
          store_int(s.run),
          s.duration == s.duration ? store_real(s.duration) : store_text(NULL)};
      int rc = batch_add(in->b, v, err);
      if (rc) return rc;
    }
    op++;
  }
  return batch_flush(in->b, err);
}

static int insert_plan(ingest_t *in, etk_error_t *err) {
  if (!in->plan) return ETK_OK;
  batch_start(in->b, in->st,
              "memory_plan (run_id, method, mem_id, size, peak_bytes, "
              "tensors)",
              6);
  for (size_t i = 0; i < in->plan->buffer_count; i++) {
    const etk_memory_plan_buffer_t *buf = &in->plan->buffers[i];
    store_value_t v[6] = {store_int(in->run_id),
                          store_text(in->plan->method),
                          store_int(buf->mem_id),
                          store_int((int64_t)buf->size),
                          store_int((int64_t)buf->peak_bytes),
                          store_int((int64_t)buf->tensor_count)};
    int rc = batch_add(in->b, v, err);
    if (rc) return rc;
  }
  return batch_flush(in->b, err);
}

static int write_run(ingest_t *in, const char *digest, size_t len,
                     etk_store_add_result_t *res, etk_error_t *err) {
  int inserted = 0, rc;
  if ((rc = store_begin(in->st, err))) return rc;
  rc = insert_run(in, digest, len, &inserted, err);
  if (rc == ETK_OK && !inserted) {
    store_rollback(in->st);
    store_value_t p = store_text(digest);
    res->existed = 1;
    return store_q(in->st, "SELECT id FROM runs WHERE digest = $1", &p, 1,
                   id_row, &res->run_id, err);
  }
  if (rc == ETK_OK) rc = insert_tags(in, err);
  if (rc == ETK_OK) rc = insert_blocks(in, err);
  if (rc == ETK_OK) rc = insert_operators(in, err);
  if (rc == ETK_OK) rc = insert_samples(in, err);
  if (rc == ETK_OK) rc = insert_plan(in, err);
  if (rc == ETK_OK) rc = store_commit(in->st, err);
  if (rc != ETK_OK) {
    batch_discard(in->b);
    store_rollback(in->st);
    return rc;
  }
  res->run_id = in->run_id;
  return ETK_OK;
}

void etk_store_add_options_init(etk_store_add_options_t *o) {
  if (o) memset(o, 0, sizeof *o);
}

/* Reads the ETRecord and program given with the dump. */
static int open_extras(ingest_t *in, etk_error_t *err) {
  const etk_store_add_options_t *o = in->opt;
  if (o->etrecord_path) {
    if (etk_etrecord_open_file(o->etrecord_path, NULL, &in->rec, err)) {
      etk_etrecord_error_where(err, o->etrecord_path);
      return err ? err->code : ETK_E_FORMAT;
    }
    etk_link_policy_t policy;
    etk_link_policy_init(&policy);
    policy.record_name = o->etrecord_path;
    int rc =
        etk_etrecord_link_with_policy(in->rec, in->insp, &policy, NULL, err);
    if (rc) return rc;
  }
  if (o->program_path)
    return etk_memory_plan_open_file(o->program_path, NULL, &in->plan, err);
  return ETK_OK;
}

int etk_store_add_memory(etk_store_t *st, const void *data, size_t len,
                         const etk_store_add_options_t *options,
                         etk_store_add_result_t *result, etk_error_t *err) {
  etk_store_add_options_t defaults;
  etk_store_add_result_t local;
  if (!options) {
    etk_store_add_options_init(&defaults);
    options = &defaults;
  }
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  if (!st || (!data && len)) return ETK_E_INVALID_ARGUMENT;
  if (st->read_only)
    return etk_error_set(err, ETK_E_INVALID_STATE, ETK_NO_OFFSET,
                         "the store was opened read-only");
  int rc;
  for (size_t i = 0; i < options->tag_count; i++)
    if ((rc = etk_store_tag_check(&options->tags[i], err))) return rc;
  ingest_t in;
  memset(&in, 0, sizeof in);
  in.st = st;
  in.opt = options;
  in.source = options->source_name ? options->source_name : "(memory)";
  etk_inspector_options_t io;
  etk_inspector_options_init(&io);
  if ((rc = etk_inspector_open_memory(data, len, &io, &in.insp, err)))
    return rc;
  if ((rc = open_extras(&in, err)) == ETK_OK) {
    count_rows(&in);
    store_sha256_hex(data, len, result->digest);
    in.b = malloc(sizeof *in.b);
    if (!in.b) {
      rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
    } else {
      in.b->st = st;
      in.b->rows = 0;
      in.b->owned_count = 0;
      rc = write_run(&in, result->digest, len, result, err);
      free(in.b);
    }
  }
  if (rc == ETK_OK && !result->existed) {
    result->blocks = in.blocks;
    result->operators = in.operators;
    result->samples = in.samples;
  }
  etk_memory_plan_free(in.plan);
  etk_etrecord_close(in.rec);
  etk_inspector_close(in.insp);
  return rc;
}

int etk_store_add(etk_store_t *st, const char *path,
                  const etk_store_add_options_t *options,
                  etk_store_add_result_t *result, etk_error_t *err) {
  if (!st || !path) return ETK_E_INVALID_ARGUMENT;
  uint8_t *data = NULL;
  size_t len = 0;
  int rc = etk_read_file(path, 0, &data, &len, err);
  if (rc) return rc;
  etk_store_add_options_t o;
  if (options)
    o = *options;
  else
    etk_store_add_options_init(&o);
  if (!o.source_name) o.source_name = path;
  rc = etk_store_add_memory(st, data, len, &o, result, err);
  if (rc) etk_error_where(err, path);
  free(data);
  return rc;
}
