/*
 * ingest.c - etk_store_add and etk_store_add_files: ETDumps (plus the
 * ETRecord and program given with them) into the store, several dumps per
 * transaction.
 *
 * ORDER OF WORK
 *   1. Read every dump of a batch and check it: the dump through the
 *      Inspector (a damaged or wrong file fails here, before the database
 *      is touched), the ETRecord link, the program's memory plan; hash it.
 *   2. BEGIN; on PostgreSQL take an advisory lock per digest in digest
 *      order (two writers with overlapping batches then queue, never
 *      deadlock); insert each run, in file order, with ON CONFLICT
 *      (digest) DO NOTHING RETURNING id: no row back means the same bytes
 *      are already stored (idempotent add; a concurrent add of the same
 *      digest waits for the first to commit, then finds it).
 *   3. Insert the new runs' tags, blocks, operators (each with its samples
 *      packed, packed.c) and memory-plan rows table by table, all runs of
 *      the batch together, in batches of up to BATCH_ROWS rows (one COPY on
 *      PostgreSQL, one prepared INSERT stepped per row on SQLite); COMMIT.
 *      Any failure rolls the whole batch back: no reader ever sees half a
 *      run.
 *
 * DATA LAYOUT
 *   A batch_t holds its rows' bound values and the memory they point to
 *   that does not outlive an Inspector call (a delegate id's decimal name,
 *   the packed samples) until it is flushed.  A dump_t is one read dump
 *   waiting for its transaction (its Inspector, which maps a file's bytes,
 *   link, plan; `data` only when the bytes had to be read).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "etkit/etdump.h"
#include "etkit/inspector_core.h"
#include "etkit/latency_dump.h"
#include "etkit/link.h"
#include "etkit/memory_plan.h"
#include "etkit/schema.h"
#include "etkit/tensor_stats.h"
#include "store_internal.h"

/* Rows handed to the engine at once (one COPY for PostgreSQL), and the
 * packed-sample bytes after which a batch is flushed early. */
#define BATCH_ROWS 2000
#define BATCH_MAX_COLS 13
#define BATCH_MAX_BYTES (16u << 20)
/* Samples after which etk_store_add_files writes the dumps read so far. */
#define FILES_MAX_SAMPLES 200000

typedef struct batch {
  etk_store_t *st;
  const char *target; /* "table (a, b)" */
  size_t cols, rows, bytes;
  store_value_t vals[BATCH_ROWS * BATCH_MAX_COLS];
  void *owned[BATCH_ROWS * BATCH_MAX_COLS];
  size_t owned_count;
} batch_t;

/* Drops the pending rows and the copies they used. */
static void batch_discard(batch_t *b) {
  for (size_t i = 0; i < b->owned_count; i++) free(b->owned[i]);
  b->owned_count = 0;
  b->rows = 0;
  b->bytes = 0;
}

static int batch_flush(batch_t *b, etk_error_t *err) {
  int rc = ETK_OK;
  if (b->rows)
    rc = b->st->ops->insert_rows(b->st->conn, b->target, b->cols, b->vals,
                                 b->rows, err);
  batch_discard(b);
  return rc;
}

static void batch_start(batch_t *b, const char *target, size_t cols) {
  b->target = target;
  b->cols = cols;
  b->rows = 0;
}

/* Appends one row (values[0..cols)); flushes when the batch is full. */
static int batch_add(batch_t *b, const store_value_t *values,
                     etk_error_t *err) {
  memcpy(b->vals + b->rows * b->cols, values, b->cols * sizeof *values);
  if (++b->rows == BATCH_ROWS || b->bytes >= BATCH_MAX_BYTES)
    return batch_flush(b, err);
  return ETK_OK;
}

/* Memory that lives until the next flush (NULL when out of memory). */
static void *batch_alloc(batch_t *b, size_t n) {
  void *p = malloc(n ? n : 1);
  if (p) b->owned[b->owned_count++] = p;
  b->bytes += n;
  return p;
}

/* A copy of s that lives until the next flush. */
static const char *batch_keep(batch_t *b, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *copy = batch_alloc(b, n);
  if (copy) memcpy(copy, s, n);
  return copy;
}

/* One dump read and checked, waiting for its transaction. */
typedef struct dump {
  uint8_t *data; /* owned when read from a file */
  size_t len;
  const char *source;
  etk_inspector_t *insp;
  etk_etrecord_t *rec;
  etk_memory_plan_t *plan;
  uint8_t *debug; /* the debug buffer given with the dump (owned) */
  size_t debug_len;
  int64_t run_id;
  int inserted;
  size_t tags_added, tags_kept; /* a stored dump given new tags */
  size_t blocks, operators, samples;
  char digest[65];
} dump_t;

typedef struct ingest {
  etk_store_t *st;
  const etk_store_add_options_t *opt;
  batch_t *b;
  dump_t *d; /* the dump being written */
} ingest_t;

static void count_rows(dump_t *d) {
  d->blocks = etk_inspector_block_count(d->insp);
  for (size_t e = 0; e < etk_inspector_event_count(d->insp); e++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get_basic(d->insp, e, &ev) != ETK_OK ||
        ev.sample_count == 0)
      continue;
    d->operators++;
    d->samples += ev.sample_count;
  }
}

static int id_row(void *ctx, const store_row_t *row) {
  *(int64_t *)ctx = row->ops->get_int(row, 0);
  return 0;
}

/* Inserts the run row; d->inserted 0 when the digest is already there
 * (d->run_id is then the stored run's). */
static int insert_run(ingest_t *in, dump_t *d, etk_error_t *err) {
  int64_t when = in->opt->added_at ? in->opt->added_at : (int64_t)time(NULL);
  store_value_t none = {STORE_NULL, 0, 0.0, NULL};
  store_value_t p[10] = {
      store_text(d->digest),
      store_int(when),
      store_text(d->source),
      store_int((int64_t)d->len),
      store_int((int64_t)d->blocks),
      store_int((int64_t)d->operators),
      store_int((int64_t)d->samples),
      store_text(in->opt->etrecord_path),
      store_text(in->opt->program_path),
      in->opt->has_run_time ? store_int(in->opt->run_time) : none};
  d->run_id = -1;
  int rc = store_q(in->st,
                   "INSERT INTO runs (digest, added_at, source, file_size, "
                   "blocks, operators, samples, etrecord, program, run_time) "
                   "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON "
                   "CONFLICT (digest) DO NOTHING RETURNING id",
                   p, 10, id_row, &d->run_id, err);
  d->inserted = d->run_id >= 0;
  if (rc == ETK_OK && !d->inserted)
    rc = store_q(in->st, "SELECT id FROM runs WHERE digest = $1", p, 1, id_row,
                 &d->run_id, err);
  if (rc == ETK_OK && !d->inserted && in->opt->has_run_time) {
    /* a stored run without a time gets the one given now */
    store_value_t u[2] = {store_int(in->opt->run_time), store_int(d->run_id)};
    rc = store_q(in->st,
                 "UPDATE runs SET run_time = $1 WHERE id = $2 AND run_time "
                 "IS NULL",
                 u, 2, NULL, NULL, err);
  }
  return rc;
}

static int insert_tags(ingest_t *in, etk_error_t *err) {
  const etk_store_add_options_t *o = in->opt;
  for (size_t i = 0; i < o->tag_count; i++) {
    int later = 0; /* the last of equal keys wins */
    for (size_t j = i + 1; j < o->tag_count; j++)
      if (strcmp(o->tags[i].key, o->tags[j].key) == 0) later = 1;
    if (later) continue;
    store_value_t v[3] = {store_int(in->d->run_id), store_text(o->tags[i].key),
                          store_text(o->tags[i].value)};
    int rc = batch_add(in->b, v, err);
    if (rc) return rc;
  }
  return ETK_OK;
}

static int count_row(void *ctx, const store_row_t *row) {
  *(int64_t *)ctx = row->ops->get_int(row, 0);
  return 0;
}

/* A dump already stored, given again with tags: a key the run lacks is
 * added, one it has with another value stays (counted in tags_kept). */
static int add_new_tags(ingest_t *in, dump_t *d, etk_error_t *err) {
  const etk_store_add_options_t *o = in->opt;
  for (size_t i = 0; i < o->tag_count; i++) {
    int later = 0; /* the last of equal keys wins */
    for (size_t j = i + 1; j < o->tag_count; j++)
      if (strcmp(o->tags[i].key, o->tags[j].key) == 0) later = 1;
    if (later) continue;
    store_value_t v[3] = {store_int(d->run_id), store_text(o->tags[i].key),
                          store_text(o->tags[i].value)};
    int64_t any = 0;
    int rc = store_q(in->st,
                     "SELECT count(*) FROM run_tags WHERE run_id = $1 AND key "
                     "= $2",
                     v, 2, count_row, &any, err);
    int64_t same = any;
    if (rc == ETK_OK && any)
      rc = store_q(in->st,
                   "SELECT count(*) FROM run_tags WHERE run_id = $1 AND key = "
                   "$2 AND value = $3",
                   v, 3, count_row, &same, err);
    if (rc == ETK_OK && !any)
      rc = store_q(in->st,
                   "INSERT INTO run_tags (run_id, key, value) VALUES ($1, $2, "
                   "$3)",
                   v, 3, NULL, NULL, err);
    if (rc) return rc;
    if (!any)
      d->tags_added++;
    else if (!same)
      d->tags_kept++;
  }
  return ETK_OK;
}

static int insert_blocks(ingest_t *in, etk_error_t *err) {
  dump_t *d = in->d;
  for (size_t i = 0; i < d->blocks; i++) {
    etk_inspector_block_t blk;
    if (etk_inspector_block_get(d->insp, i, &blk) != ETK_OK) continue;
    const char *method =
        d->rec ? etk_etrecord_block_method(d->rec, blk.name) : NULL;
    store_value_t v[5] = {store_int(d->run_id), store_int((int64_t)i),
                          store_text(blk.name), store_text(method),
                          store_int((int64_t)blk.run_count)};
    int rc = batch_add(in->b, v, err);
    if (rc) return rc;
  }
  return ETK_OK;
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

/* The event's samples packed (packed.c) into v[0] (durations) and v[1]
 * (executions, NULL when they are 0, 1, 2, ...). */
static int pack_event(ingest_t *in, size_t e, size_t n, store_value_t *v) {
  uint8_t *d = batch_alloc(in->b, 16 * n);
  if (!d) return ETK_E_NO_MEMORY;
  uint8_t *x = d + 8 * n;
  int identity = 1;
  for (size_t k = 0; k < n; k++) {
    etk_inspector_sample_t s;
    if (etk_inspector_event_sample(in->d->insp, e, k, &s) != ETK_OK) {
      s.duration = NAN;
      s.run = (uint32_t)k;
    }
    int64_t run = s.run;
    store_pack_f64(&s.duration, 1, d + 8 * k);
    store_pack_i64(&run, 1, x + 8 * k);
    identity &= run == (int64_t)k;
  }
  v[0] = store_blob(d, 8 * n);
  v[1] = identity ? store_blob(NULL, 0) : store_blob(x, 8 * n);
  return ETK_OK;
}

static int insert_operator(ingest_t *in, size_t e, int64_t op,
                           const etk_inspector_event_t *ev, etk_error_t *err) {
  etk_inspector_t *insp = in->d->insp;
  etk_inspector_event_link_t link;
  const etk_inspector_module_t *mods = NULL;
  size_t nmods = 0;
  const etk_inspector_node_origin_t *origins = NULL;
  size_t norigins = 0;
  etk_inspector_event_link(insp, e, &link);
  etk_inspector_event_module(insp, e, &mods, &nmods);
  etk_inspector_event_origins(insp, e, &origins, &norigins);
  const char *source = NULL; /* "file:line" of the first node with one */
  for (size_t i = 0; i < norigins && !source; i++)
    if (origins[i].file) {
      char where[1024];
      snprintf(where, sizeof where, "%s:%lld", origins[i].file,
               (long long)origins[i].line);
      source = batch_keep(in->b, where);
    }
  const char *name = batch_keep(in->b, ev->name);
  store_value_t v[13] = {store_int(in->d->run_id),
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
  if (!name || pack_event(in, e, ev->sample_count, v + 11))
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  return batch_add(in->b, v, err);
}

static int insert_operators(ingest_t *in, etk_error_t *err) {
  int64_t op = 0;
  for (size_t e = 0; e < etk_inspector_event_count(in->d->insp); e++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(in->d->insp, e, &ev) != ETK_OK ||
        ev.sample_count == 0)
      continue;
    int rc = insert_operator(in, e, op++, &ev, err);
    if (rc) return rc;
  }
  return ETK_OK;
}

/* A stats-mode dump's sketches (etkit/latency_dump.h), one row per
 * operator row (the same op numbering as insert_operators) whose only
 * sample is a key's representative event. */
static int insert_latency(ingest_t *in, etk_error_t *err) {
  etk_inspector_t *insp = in->d->insp;
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  etk_latency_dump_info_t info;
  size_t events = etk_etdump_event_count(dump);
  int64_t op = 0;
  int rc = ETK_OK;
  if (!etk_latency_dump_find(dump, &info) || info.keys == 0) return ETK_OK;
  uint32_t *key_of = malloc((events ? events : 1) * sizeof *key_of);
  etk_sketch_t *sketches = malloc(info.keys * sizeof *sketches);
  if (!key_of || !sketches) {
    free(key_of);
    free(sketches);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  for (size_t i = 0; i < events; i++) key_of[i] = UINT32_MAX;
  for (size_t k = 0; k < info.keys && rc == ETK_OK; k++) {
    etk_latency_key_t key;
    rc = etk_latency_dump_key(dump, &info, k, &key, err);
    if (rc == ETK_OK) {
      key_of[key.event] = (uint32_t)k;
      sketches[k] = key.sketch;
    }
  }
  for (size_t e = 0; rc == ETK_OK && e < etk_inspector_event_count(insp); e++) {
    etk_inspector_event_t ev;
    etk_inspector_sample_t smp;
    if (etk_inspector_event_get(insp, e, &ev) != ETK_OK || ev.sample_count == 0)
      continue;
    int64_t this_op = op++;
    if (ev.sample_count != 1 ||
        etk_inspector_event_sample(insp, e, 0, &smp) != ETK_OK ||
        smp.etdump_event >= events || key_of[smp.etdump_event] == UINT32_MAX)
      continue;
    const etk_sketch_t *sk = &sketches[key_of[smp.etdump_event]];
    size_t n = etk_sketch_serialized_size(sk);
    uint8_t *bytes = batch_alloc(in->b, n);
    if (!bytes) {
      rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
      break;
    }
    (void)etk_sketch_serialize(sk, bytes, n, NULL);
    store_value_t v[5] = {store_int(in->d->run_id), store_int(this_op),
                          store_int((int64_t)etk_sketch_count(sk)),
                          store_real(etk_inspector_scale_factor(insp)),
                          store_blob(bytes, n)};
    rc = batch_add(in->b, v, err);
  }
  free(key_of);
  free(sketches);
  return rc;
}

static int insert_plan(ingest_t *in, etk_error_t *err) {
  const etk_memory_plan_t *plan = in->d->plan;
  for (size_t i = 0; plan && i < plan->buffer_count; i++) {
    const etk_memory_plan_buffer_t *buf = &plan->buffers[i];
    store_value_t v[6] = {store_int(in->d->run_id),
                          store_text(plan->method),
                          store_int(buf->mem_id),
                          store_int((int64_t)buf->size),
                          store_int((int64_t)buf->peak_bytes),
                          store_int((int64_t)buf->tensor_count)};
    int rc = batch_add(in->b, v, err);
    if (rc) return rc;
  }
  return ETK_OK;
}

/* The STATS vectors of a dump recorded at debug level "stats" (its debug
 * buffer given): one row per logged tensor of every event (the Inspector's
 * first run of each block), keyed by block name, instruction, output
 * index and list item. */
/* A STATS vector's NaN, Inf and zero counts are whole numbers from 0 to
 * 2^53: bytes of another buffer read as doubles almost never are. */
static int counts_plausible(const double *s) {
  static const int k[] = {ETK_STAT_NAN_COUNT, ETK_STAT_INF_COUNT,
                          ETK_STAT_ZERO_COUNT};
  for (size_t i = 0; i < 3; i++) {
    double c = s[k[i]];
    if (!(c >= 0 && c <= 9007199254740992.0) || c != (double)(uint64_t)c)
      return 0;
  }
  return 1;
}

static int insert_stats(ingest_t *in, etk_error_t *err) {
  etk_inspector_t *insp = in->d->insp;
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  int64_t k = 0;
  if (!in->d->debug || !etk_etdump_has_tensor_stats(dump)) return ETK_OK;
  for (size_t e = 0; e < etk_inspector_event_count(insp); e++) {
    etk_inspector_event_t ev;
    etk_inspector_block_t blk;
    etk_inspector_event_get(insp, e, &ev);
    /* the OPERATOR_CALL wrapper carries its operator's values again */
    if (ev.name && strcmp(ev.name, "OPERATOR_CALL") == 0) continue;
    etk_inspector_block_get(insp, ev.block, &blk);
    for (size_t j = 0; j < ev.debug_count; j++) {
      uint32_t de;
      etk_etdump_value_t v;
      etk_inspector_event_debug_entry(insp, e, j, &de);
      if (etk_etdump_event_value(dump, de, &v) != ETK_OK || !v.present)
        continue;
      uint32_t n = v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST ? v.tensor_count
                   : v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR    ? 1u
                                                               : 0u;
      for (uint32_t i = 0; i < n; i++) {
        etk_etdump_tensor_t t = v.tensor;
        double s[ETK_TENSOR_STATS_COUNT];
        if ((n > 1 || v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST) &&
            etk_etdump_value_tensor(dump, &v, i, &t) != ETK_OK)
          continue;
        if (!etk_etdump_tensor_is_stats(dump, &t)) continue; /* no data */
        etk_error_t terr;
        etk_error_clear(&terr);
        if (etk_etdump_tensor_stats(dump, &t, in->d->debug, in->d->debug_len, s,
                                    &terr) != ETK_OK ||
            !counts_plausible(s))
          /* never a run stored with part of its STATS, or another's */
          return etk_error_set(
              err, ETK_E_FORMAT, ETK_NO_OFFSET,
              "the debug buffer does not hold this ETDump's STATS "
              "(instruction %d: %s; another run's buffer?)",
              (int)ev.instruction_id,
              terr.message[0] ? terr.message : "its counts are not counts");
        uint8_t *blob = batch_alloc(in->b, sizeof s);
        const char *name = batch_keep(in->b, ev.name);
        const char *block = batch_keep(in->b, blk.name ? blk.name : "");
        if (!blob || !name || !block)
          return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                               "out of memory");
        store_pack_f64(s, ETK_TENSOR_STATS_COUNT, blob);
        double p99 = s[ETK_STAT_P99_ABS];
        store_value_t row[11] = {
            store_int(in->d->run_id),
            store_int(k++),
            store_text(block),
            store_text(name),
            store_int(ev.instruction_id),
            store_int((int64_t)j),
            store_int(v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST ? (int64_t)i
                                                                  : -1),
            p99 == p99 ? store_real(p99) : store_text(NULL),
            store_int((int64_t)s[ETK_STAT_NAN_COUNT]),
            store_int((int64_t)s[ETK_STAT_INF_COUNT]),
            store_blob(blob, sizeof s)};
        int rc = batch_add(in->b, row, err);
        if (rc) return rc;
      }
    }
  }
  return ETK_OK;
}

typedef int (*insert_fn)(ingest_t *in, etk_error_t *err);

/* One table's rows for every new run of the batch. */
static const struct {
  const char *target;
  size_t cols;
  insert_fn fn;
} tables[] = {
    {"run_tags (run_id, key, value)", 3, insert_tags},
    {"blocks (run_id, block, name, method, executions)", 5, insert_blocks},
    {"operators (run_id, op, block, name, op_type, instruction_id, "
     "delegate, is_delegated, module, source, samples, durations, "
     "executions)",
     13, insert_operators},
    {"memory_plan (run_id, method, mem_id, size, peak_bytes, tensors)", 6,
     insert_plan},
    {"latency_sketches (run_id, op, count, ticks_per_ms, sketch)", 5,
     insert_latency},
    {"tensor_stats (run_id, k, block, name, instruction_id, output_index, "
     "item, p99_abs, nan_count, inf_count, stats)",
     11, insert_stats},
};

static int by_digest(const void *a, const void *b) {
  const dump_t *const *x = a, *const *y = b;
  return strcmp((*x)->digest, (*y)->digest);
}

/* PostgreSQL: an advisory transaction lock per digest (its first 60
 * bits), taken in digest order before any run is inserted, so writers
 * whose batches share dumps queue instead of deadlocking on each other's
 * unique-index entries.  (SQLite's BEGIN IMMEDIATE already serialises.) */
static int lock_digests(ingest_t *in, dump_t *dumps, size_t n,
                        etk_error_t *err) {
  if (strcmp(in->st->ops->name, "postgresql") != 0) return ETK_OK;
  dump_t **order = malloc((n ? n : 1) * sizeof *order);
  if (!order)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < n; i++) order[i] = &dumps[i];
  qsort(order, n, sizeof *order, by_digest);
  int rc = ETK_OK;
  for (size_t i = 0; rc == ETK_OK && i < n; i++) {
    if (i && strcmp(order[i]->digest, order[i - 1]->digest) == 0) continue;
    char head[16];
    memcpy(head, order[i]->digest, 15);
    head[15] = '\0';
    store_value_t key = store_int((int64_t)strtoull(head, NULL, 16));
    rc = store_q(in->st, "SELECT pg_advisory_xact_lock($1)", &key, 1, NULL,
                 NULL, err);
  }
  free(order);
  return rc;
}

/* Writes dumps[0..n) in one transaction; their runs get ids in order. */
static int write_dumps(ingest_t *in, dump_t *dumps, size_t n,
                       etk_error_t *err) {
  int rc = store_begin(in->st, err);
  if (rc == ETK_OK) rc = lock_digests(in, dumps, n, err);
  for (size_t i = 0; rc == ETK_OK && i < n; i++) {
    rc = insert_run(in, &dumps[i], err);
    if (rc == ETK_OK && !dumps[i].inserted)
      rc = add_new_tags(in, &dumps[i], err);
  }
  for (size_t t = 0; rc == ETK_OK && t < sizeof tables / sizeof *tables; t++) {
    batch_start(in->b, tables[t].target, tables[t].cols);
    for (size_t i = 0; rc == ETK_OK && i < n; i++) {
      in->d = &dumps[i];
      if (dumps[i].inserted) rc = tables[t].fn(in, err);
    }
    if (rc == ETK_OK) rc = batch_flush(in->b, err);
  }
  if (rc == ETK_OK) rc = store_commit(in->st, err);
  if (rc != ETK_OK) {
    batch_discard(in->b);
    store_rollback(in->st);
  }
  return rc;
}

void etk_store_add_options_init(etk_store_add_options_t *o) {
  if (o) memset(o, 0, sizeof *o);
}

/* Reads the ETRecord and program given with the dump. */
static int open_extras(dump_t *d, const etk_store_add_options_t *o,
                       etk_error_t *err) {
  /* the dump's open may leave its name in err: an error of the ETRecord
   * or the program names that file, not the dump */
  etk_error_clear(err);
  if (o->etrecord_path) {
    if (etk_etrecord_open_file(o->etrecord_path, NULL, &d->rec, err)) {
      etk_etrecord_error_where(err, o->etrecord_path);
      return err ? err->code : ETK_E_FORMAT;
    }
    etk_link_policy_t policy;
    etk_link_policy_init(&policy);
    policy.record_name = o->etrecord_path;
    int rc = etk_etrecord_link_with_policy(d->rec, d->insp, &policy, NULL, err);
    if (rc) return rc;
  }
  if (o->program_path &&
      etk_memory_plan_open_file(o->program_path, NULL, &d->plan, err)) {
    etk_error_where(err, o->program_path);
    return err ? err->code : ETK_E_FORMAT;
  }
  if (o->debug_buffer_path &&
      etk_read_file(o->debug_buffer_path, 0, &d->debug, &d->debug_len, err)) {
    etk_error_where(err, o->debug_buffer_path);
    return err ? err->code : ETK_E_IO;
  }
  /* the store keeps a debug buffer's STATS vectors only: a buffer given
   * for a dump without them would be dropped without a word */
  if (o->debug_buffer_path &&
      !etk_etdump_has_tensor_stats(etk_inspector_etdump(d->insp)))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "--debug-buffer %s: the ETDump logs no STATS vectors "
                         "(the store keeps those of runs recorded with "
                         "--debug-level stats)",
                         o->debug_buffer_path);
  return ETK_OK;
}

static void dump_free(dump_t *d) {
  etk_memory_plan_free(d->plan);
  free(d->debug);
  etk_etrecord_close(d->rec);
  etk_inspector_close(d->insp);
  free(d->data);
  memset(d, 0, sizeof *d);
}

/* The checks of step 1 once the Inspector has the dump; data[0..d->len)
 * are the file's bytes. */
static int dump_check(dump_t *d, const void *data,
                      const etk_store_add_options_t *o, etk_error_t *err) {
  int rc = open_extras(d, o, err);
  if (rc) return rc;
  count_rows(d);
  store_sha256_hex(data, d->len, d->digest);
  return ETK_OK;
}

/* Reads and checks d->data[0..d->len) (step 1). */
static int dump_read(dump_t *d, const void *data,
                     const etk_store_add_options_t *o, etk_error_t *err) {
  etk_inspector_options_t io;
  etk_inspector_options_init(&io);
  int rc = etk_inspector_open_memory(data, d->len, &io, &d->insp, err);
  return rc ? rc : dump_check(d, data, o, err);
}

/* Reads and checks the file at `path` (step 1): the Inspector maps it,
 * and the digest is taken from the mapped bytes when they are the whole
 * file (else the file is read for it). */
static int dump_open(dump_t *d, const char *path,
                     const etk_store_add_options_t *o, etk_error_t *err) {
  etk_inspector_options_t io;
  etk_inspector_options_init(&io);
  int rc = etk_inspector_open_path(path, &io, &d->insp, err);
  if (rc) return rc;
  size_t len = 0;
  const uint8_t *bytes = etk_etdump_bytes(etk_inspector_etdump(d->insp), &len);
  struct stat sb;
  if (bytes && stat(path, &sb) == 0 && (uint64_t)sb.st_size == len) {
    d->len = len;
    return dump_check(d, bytes, o, err);
  }
  rc = etk_read_file(path, 0, &d->data, &d->len, err);
  return rc ? rc : dump_check(d, d->data, o, err);
}

static void dump_result(const dump_t *d, etk_store_add_result_t *r) {
  memset(r, 0, sizeof *r);
  r->run_id = d->run_id;
  r->existed = !d->inserted;
  r->tags_added = d->tags_added;
  r->tags_kept = d->tags_kept;
  memcpy(r->digest, d->digest, sizeof r->digest);
  if (d->inserted) {
    r->blocks = d->blocks;
    r->operators = d->operators;
    r->samples = d->samples;
  }
}

static int check_add(etk_store_t *st, const etk_store_add_options_t *o,
                     etk_error_t *err) {
  if (st->read_only)
    return etk_error_set(err, ETK_E_INVALID_STATE, ETK_NO_OFFSET,
                         "the store was opened read-only");
  for (size_t i = 0; i < o->tag_count; i++) {
    int rc = etk_store_tag_check(&o->tags[i], err);
    if (rc) return rc;
    /* --where id=/digest= select the run's own columns: a tag of that name
     * could never be selected */
    if (strcmp(o->tags[i].key, "id") == 0 ||
        strcmp(o->tags[i].key, "digest") == 0 ||
        strcmp(o->tags[i].key, "last") == 0 ||
        strcmp(o->tags[i].key, "since") == 0)
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "the tag name \"%s\" is reserved (--where %s= "
                           "is a selector: id, digest, last N, since DATE)",
                           o->tags[i].key, o->tags[i].key);
  }
  return ETK_OK;
}

static int ingest_start(ingest_t *in, etk_store_t *st,
                        const etk_store_add_options_t *o, etk_error_t *err) {
  in->st = st;
  in->opt = o;
  in->b = malloc(sizeof *in->b);
  if (!in->b)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  in->b->st = st;
  in->b->rows = in->b->bytes = in->b->owned_count = 0;
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
  int rc = check_add(st, options, err);
  if (rc) return rc;
  dump_t d;
  memset(&d, 0, sizeof d);
  d.len = len;
  d.source = options->source_name ? options->source_name : "(memory)";
  ingest_t in;
  if ((rc = dump_read(&d, data, options, err)) == ETK_OK &&
      (rc = ingest_start(&in, st, options, err)) == ETK_OK) {
    rc = write_dumps(&in, &d, 1, err);
    free(in.b);
  }
  if (rc == ETK_OK) dump_result(&d, result);
  dump_free(&d);
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

/* Writes the dumps read so far, reports them, frees them. */
static int flush_files(ingest_t *in, dump_t *dumps, size_t *n,
                       const char *const *paths, etk_store_added_fn fn,
                       void *ctx, etk_error_t *err) {
  etk_error_clear(err); /* a database error names no dump */
  int rc = *n ? write_dumps(in, dumps, *n, err) : ETK_OK;
  for (size_t i = 0; i < *n; i++) {
    if (rc == ETK_OK && fn) {
      etk_store_add_result_t r;
      dump_result(&dumps[i], &r);
      fn(ctx, paths[i], &r);
    }
    dump_free(&dumps[i]);
  }
  *n = 0;
  return rc;
}

int etk_store_add_files(etk_store_t *st, const char *const *paths, size_t n,
                        const etk_store_add_options_t *options,
                        etk_store_added_fn fn, void *ctx, etk_error_t *err) {
  etk_store_add_options_t defaults;
  if (!options) {
    etk_store_add_options_init(&defaults);
    options = &defaults;
  }
  if (!st || (!paths && n)) return ETK_E_INVALID_ARGUMENT;
  if (options->debug_buffer_path && n > 1)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "a debug buffer goes with one ETDump, not %zu", n);
  int rc = check_add(st, options, err);
  ingest_t in;
  if (rc || (rc = ingest_start(&in, st, options, err))) return rc;
  dump_t dumps[ETK_STORE_BATCH_DUMPS];
  size_t pending = 0, first = 0, samples = 0;
  for (size_t i = 0; rc == ETK_OK && i < n; i++) {
    dump_t *d = &dumps[pending];
    memset(d, 0, sizeof *d);
    d->source = paths[i];
    if ((rc = dump_open(d, paths[i], options, err))) {
      etk_error_where(err, paths[i]);
      dump_free(d);
      break;
    }
    samples += d->samples;
    if (++pending == ETK_STORE_BATCH_DUMPS || samples >= FILES_MAX_SAMPLES) {
      rc = flush_files(&in, dumps, &pending, paths + first, fn, ctx, err);
      first = i + 1;
      samples = 0;
    }
  }
  /* the dumps read before a bad file are still stored */
  etk_error_t later;
  etk_error_clear(&later);
  int frc = flush_files(&in, dumps, &pending, paths + first, fn, ctx,
                        rc ? &later : err);
  free(in.b);
  if (rc == ETK_OK) rc = frc;
  return rc;
}
