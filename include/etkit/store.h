/*
 * etkit/store.h - run history: every profiled run in a database, queried
 * across runs (docs/store.md).
 *
 * A store is a SQLite file (a path, or a "file:" URI) or a PostgreSQL
 * database (a "postgresql://" or "postgres://" URI, standard libpq syntax,
 * "host=" a socket directory included).  Both hold one versioned schema:
 * runs (digest, time, tags), their event blocks, operators (name, op type,
 * instruction id, delegate, module when an ETRecord was given), every raw
 * sample, and memory-plan figures when a program was given.
 *
 * Adding a dump is one transaction (a writer killed mid-add leaves no half
 * run) and idempotent (the same bytes twice are one run, keyed by their
 * SHA-256).  Tags and every other user text reach the database as bound
 * parameters only.  Queries return an etk_store_table_t that renders as a
 * table, CSV or JSON.
 *
 * EXAMPLE
 *
 *   etk_store_t *st;
 *   etk_error_t err;
 *   if (etk_store_open("runs.db", ETK_STORE_CREATE, &st, &err) != ETK_OK) ..
 *   etk_store_tag_t tags[] = {{"model", "mv2"}, {"commit", "abc123"}};
 *   etk_store_add_options_t ao;
 *   etk_store_add_options_init(&ao);
 *   ao.tags = tags;
 *   ao.tag_count = 2;
 *   etk_store_add_result_t res;
 *   etk_store_add(st, "etdump.etdp", &ao, &res, &err);
 *   etk_store_close(st);
 *
 * THREADS
 *   One store handle per thread; any number of processes or handles may
 *   use one database at once (SQLite in WAL mode with a busy handler).
 */
#ifndef ETKIT_STORE_H
#define ETKIT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/render.h"
#include "etkit/significance.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The schema version this etkit writes (the migrations table's latest). */
#define ETK_STORE_SCHEMA_VERSION 5

/* Longest tag key and value, in bytes. */
#define ETK_STORE_TAG_KEY_MAX 64
#define ETK_STORE_TAG_VALUE_MAX 1024

typedef struct etk_store etk_store_t;

/* etk_store_open flags. */
#define ETK_STORE_CREATE 0x1u    /* create the file / schema when missing */
#define ETK_STORE_READ_ONLY 0x2u /* queries only (SQLite opens read-only) */
/* With ETK_STORE_CREATE: a SQLite file that this open creates is removed
 * again (with its -wal, -shm and -journal files) when the open fails, and
 * by etk_store_close() when no run was stored in it, so a failed first
 * add leaves nothing behind.  No effect on an existing file, a "file:"
 * URI or a PostgreSQL URI. */
#define ETK_STORE_DROP_NEW_EMPTY 0x4u

/* Copies a store's name into out[0..size) with the password of a
 * PostgreSQL connection string (user:PW@ of a URI, password=PW) replaced by
 * "***": what messages and reprs show.  Returns the length written. */
size_t etk_store_redact(const char *uri, char *out, size_t size);

/* Opens (and with ETK_STORE_CREATE creates and migrates) the store at
 * `uri`.  Without CREATE, a missing SQLite file or a database without the
 * schema is ETK_E_NOT_FOUND.  A schema newer than this etkit is
 * ETK_E_UNSUPPORTED.  A URI that does not connect is ETK_E_IO with the
 * server's message.  *out is closed with etk_store_close(). */
int etk_store_open(const char *uri, unsigned flags, etk_store_t **out,
                   etk_error_t *err);

/* Closes the store (NULL is a no-op); see ETK_STORE_DROP_NEW_EMPTY. */
void etk_store_close(etk_store_t *st);

/* "sqlite" or "postgresql". */
const char *etk_store_engine(const etk_store_t *st);

/* ------------------------------------------------------------- tags */

/* A tag or a condition: key and value, borrowed. */
typedef struct etk_store_tag {
  const char *key;
  const char *value;
} etk_store_tag_t;

/* Checks a tag: key of 1..64 bytes of [A-Za-z0-9_.-], value valid UTF-8 of
 * at most 1024 bytes without control characters.  ETK_E_INVALID_ARGUMENT
 * with the reason. */
int etk_store_tag_check(const etk_store_tag_t *tag, etk_error_t *err);

/* Splits "key=value" in place (the '=' becomes a NUL) into *out and
 * checks it.  ETK_E_INVALID_ARGUMENT for text without '=' or a bad tag. */
int etk_store_tag_parse(char *text, etk_store_tag_t *out, etk_error_t *err);

/* ------------------------------------------------------------- adding */

typedef struct etk_store_add_options {
  const etk_store_tag_t *tags; /* checked; keys unique (last wins) */
  size_t tag_count;
  const char *etrecord_path; /* link operators to graph nodes (NULL) */
  const char *program_path;  /* record the .pte's memory plan (NULL) */
  const char *source_name;   /* recorded file name (NULL = the path) */
  int64_t added_at;          /* unix seconds (0 = now) */
  /* the run's own time (when it was made), unix seconds UTC; stored only
   * when has_run_time (else NULL: an ETDump carries no wall-clock time) */
  int64_t run_time;
  int has_run_time;
  /* the debug buffer of the dump (NULL: none; only with one dump): the
   * STATS vectors of a dump recorded at debug level "stats" are stored
   * (table tensor_stats), for etk_store_drift */
  const char *debug_buffer_path;
} etk_store_add_options_t;

/* Unix seconds (UTC) of an ISO 8601 time: "YYYY-MM-DD", then optionally
 * "THH:MM[:SS[.fraction]]" (or a space for the T) and a zone "Z",
 * "+HH:MM", "+HHMM" or "+HH" (UTC when none; the fraction is dropped).
 * 1 when the text is such a time (from 1970 on), else 0. */
int etk_store_time_parse(const char *text, int64_t *out);

void etk_store_add_options_init(etk_store_add_options_t *o);

typedef struct etk_store_add_result {
  int64_t run_id;
  int existed; /* the same dump was already stored: only new tags added */
  /* existed: the tags added to the stored run (keys it had not) and those
   * left as they were (a key it has with another value) */
  size_t tags_added, tags_kept;
  size_t blocks, operators, samples;
  char digest[65]; /* SHA-256 of the dump's bytes, lower-case hex */
} etk_store_add_result_t;

/* Adds the ETDump at `path`.  The dump (and ETRecord, program) are read
 * and checked before the database is touched; then one transaction writes
 * the run.  Errors (the database is unchanged): the readers' (ETK_E_FORMAT,
 * ETK_E_TRUNCATED, ETK_E_BAD_IDENTIFIER ... naming the file),
 * ETK_E_INVALID_ARGUMENT (a bad tag), ETK_E_IO (the database refused:
 * read-only, full, gone).  `options` may be NULL. */
int etk_store_add(etk_store_t *st, const char *path,
                  const etk_store_add_options_t *options,
                  etk_store_add_result_t *result, etk_error_t *err);

/* The same from an ETDump in memory (borrowed for the call). */
int etk_store_add_memory(etk_store_t *st, const void *data, size_t len,
                         const etk_store_add_options_t *options,
                         etk_store_add_result_t *result, etk_error_t *err);

/* Called by etk_store_add_files for each file once its run is committed
 * (or found already stored), in the order of the files. */
typedef void (*etk_store_added_fn)(void *ctx, const char *path,
                                   const etk_store_add_result_t *result);

/* Adds paths[0..n) with the same options, several dumps per transaction
 * (up to ETK_STORE_BATCH_DUMPS, fewer when they hold many samples): each
 * batch's dumps are read and checked first, then written together in one
 * transaction (one COPY per table on PostgreSQL).  Same-digest dumps are
 * one run, as with etk_store_add.  Stops at the first file that cannot be
 * read or stored: the files before it are stored (and reported to `fn`,
 * which may be NULL), it and the files after it are not; `err` names it.
 * `options->source_name` is ignored (each file's path is recorded). */
int etk_store_add_files(etk_store_t *st, const char *const *paths, size_t n,
                        const etk_store_add_options_t *options,
                        etk_store_added_fn fn, void *ctx, etk_error_t *err);

/* Most dumps etk_store_add_files writes in one transaction. */
#define ETK_STORE_BATCH_DUMPS 32

/* ------------------------------------------------------------- results */

/* A query's result: rows x cols cells (render.h's cell kinds), text owned
 * by the table. */
typedef struct etk_store_table {
  size_t rows, cols;
  char **headers;    /* cols names */
  etk_cell_t *cells; /* rows * cols, row-major */
  size_t cap;        /* allocated rows */
} etk_store_table_t;

void etk_store_table_free(etk_store_table_t *t);

typedef enum etk_store_format {
  ETK_STORE_FORMAT_TABLE = 0, /* the box table of `etkit inspect` */
  ETK_STORE_FORMAT_CSV,       /* pandas' to_csv, no index */
  ETK_STORE_FORMAT_JSON       /* an array of objects, one per row */
} etk_store_format_t;

/* "table", "csv", "json" -> *out; ETK_E_INVALID_ARGUMENT otherwise. */
int etk_store_format_parse(const char *name, etk_store_format_t *out);

int etk_store_table_render(const etk_store_table_t *t, etk_store_format_t f,
                           etk_render_sink_t *sink, etk_error_t *err);

/* ------------------------------------------------------------- queries */

/* Conditions select runs: every condition must hold.  Keys: a tag key
 * present in the store, or "id" (run id), "digest" (a prefix of it).  An
 * unknown key is ETK_E_NOT_FOUND naming the keys that exist. */
typedef struct etk_store_where {
  const etk_store_tag_t *conds;
  size_t count;
} etk_store_where_t;

/* The runs (oldest first): id, added (UTC), run_time (the run's own
 * time, UTC, None when unknown), digest, model, device,
 * backend, commit, branch, tags (the other tags, "k=v; ..."), blocks,
 * operators, samples, source. */
int etk_store_runs(etk_store_t *st, const etk_store_where_t *where,
                   etk_store_table_t *out, etk_error_t *err);

/* One run's operators with statistics of their samples (ms): block,
 * operator, instruction_id, op_type, delegate, module, samples, median,
 * mean, min, max.  ETK_E_NOT_FOUND for an unknown run. */
/* `etkit store show --format json`: {"run": {the run's row of
 * etk_store_runs: id, added, digest, tags...}, "operators": [{the columns
 * of etk_store_show, "durations": [every sample, ms], "executions": [the
 * execution index of each]}]}.  Errors of etk_store_show. */
int etk_store_show_json(etk_store_t *st, int64_t run_id,
                        etk_render_sink_t *sink, etk_error_t *err);
int etk_store_show(etk_store_t *st, int64_t run_id, etk_store_table_t *out,
                   etk_error_t *err);

typedef enum etk_store_trend_kind {
  ETK_STORE_TREND_OP = 0, /* operators with this name */
  ETK_STORE_TREND_MODULE, /* operators in this module or below */
  ETK_STORE_TREND_METHOD  /* Method::execute of blocks of this name */
} etk_store_trend_kind_t;

/* One row per matching run (oldest first): run, added, commit, samples,
 * median, mean, min, max (ms, over the run's durations), per_execution
 * (their sum / the run's executions: the time the operator, module or
 * method costs per Method::execute), p90, p99, error_bound, from.
 *
 * `from` says where the row's figures come from: "samples" (a full run:
 * exact, error_bound 0; median, p90 and p99 interpolated between the
 * sorted samples at rank q (n - 1), numpy's default, so the median is the
 * middle sample or the mean of the two middle ones) or "sketch" (a stats-mode
 * run, etkit run
 * --profile-mode stats: the latency sketches of its matching operator rows
 * merged exactly; samples, min, max, mean and per_execution exact, median
 * = p50, p90 and p99 the sketch's (the element of rank floor(q (n - 1)),
 * etkit/sketch.h) within error_bound, relative; the executions are the count of
 * its block's Method::execute sketch).  Full and stats-mode runs mix in one
 * table. ETK_E_MISMATCH: one run's sketches of different tick rates or relative
 * errors (never written by etkit); ETK_E_FORMAT: a damaged row. */
int etk_store_trend(etk_store_t *st, etk_store_trend_kind_t kind,
                    const char *name, const etk_store_where_t *where,
                    etk_store_table_t *out, etk_error_t *err);

/* A trend for a terminal (`store trend`'s default table, within 120
 * columns): run, added (to the minute), commit (its first 7 characters
 * and an ellipsis when longer than 8), count (samples), median, p90, p99,
 * per exec (ms) and bound ("exact" for samples, "±E%" for a sketch's error
 * bound).
 * ETK_E_INVALID_ARGUMENT when `trend` is not etk_store_trend's table. */
int etk_store_trend_table_narrow(const etk_store_table_t *trend,
                                 etk_store_table_t *out, etk_error_t *err);

/* Stats-mode runs (etkit run --profile-mode stats): each operator's
 * latency sketches merged across the selected runs, whatever device they
 * ran on (schema version 4; exact: the sketch of every duration of every
 * run).  One row per (operator name, instruction id) in first-seen order
 * (`name` NULL: every operator): name, instruction_id, runs, count (exact),
 * min, p10, p50, p90, p99, p99.9, mean, max (ms; min, mean, max exact, the
 * quantiles within error_bound, relative).  Runs stored without sketches
 * add nothing; sketches of different tick rates or relative errors stay in
 * separate rows.  ETK_E_FORMAT for a damaged stored sketch. */
int etk_store_latency(etk_store_t *st, const char *name,
                      const etk_store_where_t *where, etk_store_table_t *out,
                      etk_error_t *err);

/* Fewest durations a side needs for a change compared from sketches to be
 * significant (the rank test of samples cannot flag fewer either). */
#define ETK_STORE_SKETCH_MIN_COUNT 4

/* One operator compared between the two sets of runs. */
typedef struct etk_store_change {
  char *method; /* event block name */
  char *name;   /* operator */
  int64_t instruction_id;
  char *op_type;     /* NULL when not linked */
  char *module;      /* NULL when not linked */
  char *source;      /* "file:line" of its node's user frame, or NULL */
  etk_shift_t shift; /* baseline/candidate medians, shift, CI, p */
  double q_value;    /* Benjamini-Hochberg */
  double delta_pct, ci_low_pct, ci_high_pct;
  int significant;
  etk_change_direction_t direction;
  /* 1: compared from latency sketches (a stats-mode run on either side):
   * shift.baseline/candidate are the p50s, the interval (ci_*) the range
   * of changes the two sides' quantile bounds allow, p and q NaN, and
   * significant only when those bounds do not overlap and |delta| is at
   * least the rule's min_pct and min_delta (docs/store.md) */
  int from_sketch;
  /* per side (0 baseline, 1 candidate): the relative error bound of its
   * quantiles (0: exact, from samples), its p90 and p99 (ms) */
  double bound[2], p90[2], p99[2];
  size_t order; /* the operator's first appearance (the last sort key) */
} etk_store_change_t;

typedef struct etk_store_comparison {
  size_t baseline_runs, candidate_runs;
  etk_store_change_t *changes; /* significant first, then by delta */
  size_t count;
  size_t only_baseline, only_candidate; /* operators on one side only */
} etk_store_comparison_t;

/* Which operators a comparison takes (a zeroed struct, or NULL: every
 * operator but the OPERATOR_CALL wrappers, as `etkit diff` shows them). */
typedef struct etk_store_ops {
  const char *name;       /* only operators of this name (NULL: all) */
  int64_t instruction_id; /* with has_instruction: only this instruction */
  int has_instruction;
  int all_rows; /* also the OPERATOR_CALL wrappers of each kernel */
} etk_store_ops_t;

/* Compares the operators `ops` selects (may be NULL) of the runs matching
 * `baseline` with those matching `candidate`, pooling each side's raw
 * samples; `rule` may be NULL (etk_change_rule_init).  ETK_E_NOT_FOUND
 * when a side matches no run. */
int etk_store_compare(etk_store_t *st, const etk_store_where_t *baseline,
                      const etk_store_where_t *candidate,
                      const etk_store_ops_t *ops, const etk_change_rule_t *rule,
                      etk_store_comparison_t *out, etk_error_t *err);

/* For the message of an --op, --module or --method (`kind`) that matches
 * nothing: the (at most 3) distinct operator names, module paths or block
 * names of the store closest to `name` by edit distance, ", "-separated
 * into buf[0..size) (empty when the store has none).  ETK_OK or the
 * database's error. */
int etk_store_closest_names(etk_store_t *st, int kind, const char *name,
                            char *buf, size_t size, etk_error_t *err);

void etk_store_comparison_free(etk_store_comparison_t *c);

/* The comparison as a table (name, instruction_id, op_type, module,
 * method, baseline, candidate, delta_pct, ci_low, ci_high, p_value,
 * q_value, significant, direction, rule ("mann-whitney" or
 * "sketch-bounds"), baseline_bound, candidate_bound, baseline_p90,
 * candidate_p90, baseline_p99, candidate_p99, baseline_samples,
 * candidate_samples). */
int etk_store_comparison_table(const etk_store_comparison_t *c,
                               etk_store_table_t *out, etk_error_t *err);

/* The comparison for a terminal (`store compare`'s default table, within
 * 120 columns): name (its last 26 characters), instr, base ms (baseline
 * median), cand ms (candidate median), delta %, 95 % CI (for a change
 * compared from sketches: the range its bounds allow), q ("sketch" for
 * those), direction; --format csv|json keep every column. */
int etk_store_comparison_table_narrow(const etk_store_comparison_t *c,
                                      etk_store_table_t *out, etk_error_t *err);

/* The comparison as JSON: {"baseline_runs", "candidate_runs", "changes":
 * [{name, instruction_id, op_type, module, baseline, candidate, delta_pct,
 * ci_low, ci_high, p_value, significant, direction, ...}]}. */
int etk_store_comparison_json(const etk_store_comparison_t *c,
                              etk_render_sink_t *sink, etk_error_t *err);

/* 1 when a significant slow-down exceeds pct percent (etk_change_fails). */
int etk_store_comparison_fails(const etk_store_comparison_t *c, double pct);

/* The first change that fails --fail-above pct (the changes are sorted
 * largest slow-down first, so the worst), or NULL; owned by `c`. */
const etk_store_change_t *etk_store_comparison_failing(
    const etk_store_comparison_t *c, double pct);

/* ------------------------------------------------------------ STATS drift */

/* The STATS vectors (debug level "stats", added with --debug-buffer) of
 * the newest run of each side that holds them, paired by block name,
 * instruction, output index and list item.  The table: block,
 * instruction, output, item, name, baseline_p99_abs, candidate_p99_abs,
 * p99_shift (relative), baseline_nan, candidate_nan, baseline_inf,
 * candidate_inf, nan_inf_appears (the candidate counts NaN or Inf, the
 * baseline none), drift (that, or a p99_shift above max_shift), status
 * ("ok", "drift: ...", "only in baseline", "only in candidate"). */
typedef struct etk_store_drift {
  int64_t baseline_run, candidate_run;
  size_t compared, drifting; /* pairs, and those that drift */
  double max_shift;          /* the threshold used */
  etk_store_table_t table;
} etk_store_drift_t;

/* max_shift: NaN = 0.1.  Errors: ETK_E_NOT_FOUND (a side with no run
 * holding STATS, a store older than schema version 5), the store's. */
int etk_store_drift(etk_store_t *st, const etk_store_where_t *baseline,
                    const etk_store_where_t *candidate, double max_shift,
                    etk_store_drift_t *out, etk_error_t *err);
void etk_store_drift_free(etk_store_drift_t *d);

/* ------------------------------------------------------------- export */

typedef enum etk_store_export_format {
  ETK_STORE_EXPORT_CSV = 0,
  ETK_STORE_EXPORT_JSON,
  ETK_STORE_EXPORT_V3 /* PyTorch benchmark database v3 records */
} etk_store_export_format_t;

/* Writes one row per (run, operator) of the matching runs: run, digest,
 * added, the five well-known tags, method, operator, instruction_id,
 * op_type, module, samples, median, mean, min, max.  v3 writes a JSON array
 * of records {benchmark, model, metric, runners} whose metric holds every
 * raw sample as benchmark_values. */
int etk_store_export(etk_store_t *st, const etk_store_where_t *where,
                     etk_store_export_format_t format, etk_render_sink_t *sink,
                     etk_error_t *err);

/* ------------------------------------------------------------- report */

typedef enum etk_store_report_format {
  ETK_STORE_REPORT_HTML = 0, /* one page, inline SVG plots, no network */
  ETK_STORE_REPORT_MARKDOWN  /* the changes and trend counts, for CI */
} etk_store_report_format_t;

/* The comparison of `baseline` with `candidate` as a report: significant
 * changes first (operator, module, source line, medians, delta with its
 * interval, q), then trend plots of each method and the top operators (a
 * point per run, one series per side), then the run series of the newest
 * candidate run.  `rule` may be NULL.  Errors of etk_store_compare. */
int etk_store_report(etk_store_t *st, const etk_store_where_t *baseline,
                     const etk_store_where_t *candidate,
                     const etk_change_rule_t *rule,
                     etk_store_report_format_t format, etk_render_sink_t *sink,
                     etk_error_t *err);

/* ------------------------------------------------------------- prune */

/* Deletes the matching runs (all their rows) in one transaction, keeping
 * the newest `keep_last` of them (0 = delete all that match).  An empty
 * `where` with keep_last 0 is refused (ETK_E_INVALID_ARGUMENT): pruning
 * everything must be asked for with a condition.  *deleted (may be NULL)
 * receives the number of runs removed. */
int etk_store_prune(etk_store_t *st, const etk_store_where_t *where,
                    size_t keep_last, size_t *deleted, etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif
