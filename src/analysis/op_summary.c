/*
 * op_summary.c - per-block operator-type summary as a data API: the
 * numbers of `etkit inspect --summary`, for the diff and the HTML report.
 *
 * RULES (the same as the summary view of inspector_render.c; a test keeps
 * the two in agreement)
 *   Per block, every event with perf data contributes its average (one
 *   value per run) to its operator type: the linked op type when the
 *   ETRecord link gives exactly one, else the event name without
 *   "native_call_" and without a " #N" instance suffix.  Wrappers are not
 *   counted, so nothing is counted twice:
 *     OPERATOR_CALL          wraps its native_call_*
 *     Method::execute        is the method time
 *     Program::load_method   is the method time of a block without execute
 *     DELEGATE_CALL          when its instruction has delegated per-op
 *                            events (else it is its own type)
 *   The first Method::execute / Program::load_method of a block gives the
 *   method time.  Closing rows: "delegate overhead" (only in a block with
 *   such wrappers) = the wrapping DELEGATE_CALLs' total minus the
 *   delegated per-op events of the same instructions (the backend's own
 *   time outside its reported ops: it is not the framework's), then
 *   "framework overhead" = method time minus the operators' total minus
 *   the delegate overhead, and the method row (100 %).  So operators +
 *   delegate overhead + framework overhead = method time.
 *
 * DATA LAYOUT
 *   One row array (block-major; inside a block operator rows sorted by
 *   total, largest first, ties in first-appearance order, then the two
 *   closing rows), one interning map keyed by (block, op type) bytes, and
 *   two per-event arrays (role, average).  Memory: 9 bytes per event plus
 *   the distinct (block, op type) pairs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "common/vec.h"

typedef struct op_row {
  uint32_t block;
  int kind;
  uint32_t key;     /* intern id (operators) */
  const char *text; /* closing rows: static text */
  uint64_t count;
  double total;
  uint32_t order; /* first appearance */
} op_row_t;

struct etk_op_summary {
  op_row_t *rows;
  size_t nrows;
  etk_op_summary_block_t *blocks;
  size_t nblocks;
  uint8_t *roles;
  int8_t *delegate_signs; /* +1 wrapper, -1 delegated op inside one, 0 */
  double *avgs;
  size_t nevents;
  ana_intern_t keys;
  size_t *row_of;      /* intern id -> row index while its block is built */
  ana_op_sums_t *sums; /* roles only: the caller's per-block sums, or NULL */
  etk_diff_metric_t metric; /* ... of this statistic */
  size_t row_of_cap;
};

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

const char *etk_op_type_from_name(const char *name, size_t len,
                                  size_t *out_len) {
  if (!name) {
    if (out_len) *out_len = 0;
    return "";
  }
  if (len > 12 && memcmp(name, "native_call_", 12) == 0) {
    name += 12;
    len -= 12;
  }
  size_t i = len;
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
  if (i < len && i >= 2 && name[i - 1] == '#' && name[i - 2] == ' ')
    len = i - 2;
  if (out_len) *out_len = len;
  return name;
}

static int cmp_rows(const void *pa, const void *pb) {
  const op_row_t *a = pa, *b = pb;
  if (a->total != b->total) {
    /* NaN totals cannot happen (only events with statistics count) */
    return a->total > b->total ? -1 : 1;
  }
  return (a->order > b->order) - (a->order < b->order);
}

/* The instructions of block `blk` whose delegated events carry timings:
 * their DELEGATE_CALL is a wrapper.  *inner is a sorted malloc'd list (the
 * ids are few per block), NULL when empty. */
static int delegate_wrappers(etk_inspector_t *insp,
                             const etk_inspector_block_t *blk, int32_t **out,
                             size_t *count) {
  int32_t *inner = NULL;
  size_t ninner = 0, inner_cap = 0;
  for (size_t i = 0; i < blk->event_count; i++) {
    etk_inspector_event_t ev;
    etk_inspector_event_get_basic(insp, blk->first_event + i, &ev);
    if (!ev.is_delegated_op || ev.instruction_id < 0 || ev.sample_count == 0)
      continue;
    if (!ETK_VEC_RESERVE(inner, inner_cap, ninner + 1)) {
      free(inner);
      return ETK_E_NO_MEMORY;
    }
    inner[ninner++] = ev.instruction_id;
  }
  if (ninner) qsort(inner, ninner, sizeof *inner, cmp_i32);
  *out = inner;
  *count = ninner;
  return ETK_OK;
}

/* Adds operator event `e` (average `avg`) of block `bi` to its operator
 * type's row, making the row on first sight. */
static int add_operator(etk_inspector_t *insp, etk_op_summary_t *s, size_t bi,
                        size_t e, const etk_inspector_event_t *ev, double avg,
                        op_row_t **rows, size_t *cap, etk_strbuf_t *key) {
  etk_op_summary_block_t *ob = &s->blocks[bi];
  const char *type;
  size_t tlen;
  etk_inspector_event_link_t link;
  etk_inspector_event_link(insp, e, &link);
  if (link.op_type_count == 1 && link.op_types[0]) {
    type = link.op_types[0];
    tlen = strlen(type);
  } else {
    type = etk_op_type_from_name(ev->name, ev->name_len, &tlen);
  }
  /* key bytes: block index then the type */
  etk_strbuf_clear(key);
  uint64_t b64 = bi;
  etk_strbuf_append(key, (const char *)&b64, sizeof b64);
  etk_strbuf_append(key, type, tlen);
  if (key->failed) return ETK_E_NO_MEMORY;
  uint32_t id;
  int is_new;
  int rc = ana_intern_put(&s->keys, key->data, key->len, &id, &is_new);
  if (rc != ETK_OK) return rc;
  ob->operators_total += avg;
  if (!is_new) { /* keys carry the block, so the row is in this block */
    op_row_t *r = &(*rows)[s->row_of[id]];
    r->total += avg;
    r->count++;
    return ETK_OK;
  }
  if (!ETK_VEC_RESERVE(s->row_of, s->row_of_cap, (size_t)id + 1) ||
      !ETK_VEC_RESERVE(*rows, *cap, s->nrows + 1))
    return ETK_E_NO_MEMORY;
  s->row_of[id] = s->nrows;
  op_row_t *r = &(*rows)[s->nrows++];
  memset(r, 0, sizeof *r);
  r->block = (uint32_t)bi;
  r->kind = ETK_OP_ROW_OPERATOR;
  r->key = id;
  r->count = 1;
  r->total = avg;
  r->order = (uint32_t)(s->nrows - ob->first_row);
  return ETK_OK;
}

/* After the roles of block `blk` are set: every delegated operator whose
 * instruction's DELEGATE_CALL is a wrapper here is inside that wrapper; its
 * time leaves the delegate overhead (ob->delegate_total, which held the
 * wrappers' total). */
static int mark_delegated_ops(etk_inspector_t *insp, etk_op_summary_t *s,
                              const etk_inspector_block_t *blk,
                              etk_op_summary_block_t *ob) {
  int32_t *wrapped = NULL;
  size_t nwrapped = 0;
  for (size_t i = 0; i < blk->event_count; i++)
    nwrapped += s->delegate_signs[blk->first_event + i] == 1;
  ob->delegate_wrappers = nwrapped;
  if (nwrapped == 0) return ETK_OK;
  wrapped = malloc(nwrapped * sizeof *wrapped);
  if (!wrapped) return ETK_E_NO_MEMORY;
  size_t n = 0;
  for (size_t i = 0; i < blk->event_count; i++) {
    size_t e = blk->first_event + i;
    if (s->delegate_signs[e] != 1) continue;
    etk_inspector_event_t ev;
    etk_inspector_event_get_basic(insp, e, &ev);
    wrapped[n++] = ev.instruction_id;
  }
  qsort(wrapped, n, sizeof *wrapped, cmp_i32);
  for (size_t i = 0; i < blk->event_count; i++) {
    size_t e = blk->first_event + i;
    if (s->roles[e] != ETK_OP_ROLE_OPERATOR) continue;
    etk_inspector_event_t ev;
    etk_inspector_event_get_basic(insp, e, &ev);
    if (!ev.is_delegated_op || ev.instruction_id < 0 ||
        !bsearch(&ev.instruction_id, wrapped, n, sizeof *wrapped, cmp_i32))
      continue;
    s->delegate_signs[e] = -1;
    if (s->avgs) ob->delegate_total -= s->avgs[e];
  }
  free(wrapped);
  return ETK_OK;
}

/* Which of the names the rules single out event `ev` bears: 1
 * OPERATOR_CALL, 2 Method::execute, 3 Program::load_method, 4
 * DELEGATE_CALL, else 0 (the length picks the one name to compare). */
static int special_name(const etk_inspector_event_t *ev) {
  switch (ev->name_len) {
    case 13:
      return ana_is_name(ev->name, 13, "OPERATOR_CALL")   ? 1
             : ana_is_name(ev->name, 13, "DELEGATE_CALL") ? 4
                                                          : 0;
    case 15:
      return ana_is_name(ev->name, 15, "Method::execute") ? 2 : 0;
    case 20:
      return ana_is_name(ev->name, 20, "Program::load_method") ? 3 : 0;
    default:
      return 0;
  }
}

/* Roles of block `bi` for ana_op_roles_build: one walk of the block (one
 * etk_inspector_event_get and one statistics per event), no operator rows
 * and no averages.  A DELEGATE_CALL wraps when the block has delegated
 * events of its instruction, which may come after it: such calls are
 * listed and settled after the walk. */
static int build_block_roles(etk_inspector_t *insp, etk_op_summary_t *s,
                             size_t bi) {
  etk_inspector_block_t blk;
  etk_inspector_block_get(insp, bi, &blk);
  etk_op_summary_block_t *ob = &s->blocks[bi];
  ob->method_time = (double)NAN;
  ob->first_row = s->nrows;
  int32_t *inner = NULL;
  size_t ninner = 0, inner_cap = 0, *calls = NULL, ncalls = 0, calls_cap = 0;
  double load_time = (double)NAN;
  ana_op_sums_t *sums = s->sums ? &s->sums[bi] : NULL;
  if (sums) memset(sums, 0, sizeof *sums);
  int rc = ETK_OK;
  for (size_t i = 0; i < blk.event_count && rc == ETK_OK; i++) {
    size_t e = blk.first_event + i;
    etk_inspector_event_t ev;
    etk_stats_t st;
    etk_inspector_event_get_basic(insp, e, &ev);
    if (ev.is_delegated_op && ev.instruction_id >= 0 && ev.sample_count) {
      if (!ETK_VEC_RESERVE(inner, inner_cap, ninner + 1)) rc = ETK_E_NO_MEMORY;
      if (rc == ETK_OK) inner[ninner++] = ev.instruction_id;
    }
    if (etk_inspector_event_stats(insp, e, &st) != ETK_OK) {
      s->roles[e] = ETK_OP_ROLE_NO_DATA;
      continue;
    }
    int name = ev.is_delegated_op ? 0 : special_name(&ev);
    s->roles[e] = name == 1   ? ETK_OP_ROLE_OPERATOR_CALL
                  : name == 2 ? ETK_OP_ROLE_METHOD
                  : name == 3 ? ETK_OP_ROLE_LOAD_METHOD
                              : ETK_OP_ROLE_OPERATOR;
    if (sums && s->roles[e] == ETK_OP_ROLE_OPERATOR) {
      sums->avg += st.avg;
      sums->p50 += st.p50;
      sums->value += ana_stats_metric(&st, s->metric);
      sums->count++;
    }
    if (name == 2 && ob->method_time != ob->method_time) {
      ob->method_time = st.avg;
      ob->method_name = "Method::execute";
    }
    if (name == 3 && load_time != load_time) load_time = st.avg;
    if (name == 4 && ev.instruction_id >= 0) {
      if (!ETK_VEC_RESERVE(calls, calls_cap, ncalls + 1)) rc = ETK_E_NO_MEMORY;
      if (rc == ETK_OK) calls[ncalls++] = e;
    }
  }
  if (ninner) qsort(inner, ninner, sizeof *inner, cmp_i32);
  for (size_t k = 0; k < ncalls && ninner && rc == ETK_OK; k++) {
    etk_inspector_event_t ev;
    etk_inspector_event_get_basic(insp, calls[k], &ev);
    if (!bsearch(&ev.instruction_id, inner, ninner, sizeof *inner, cmp_i32))
      continue;
    s->roles[calls[k]] = ETK_OP_ROLE_DELEGATE_WRAPPER;
    s->delegate_signs[calls[k]] = 1;
  }
  free(inner);
  free(calls);
  if (rc == ETK_OK) rc = mark_delegated_ops(insp, s, &blk, ob);
  /* without wrappers the walk's roles are final: its sums are exact */
  if (sums) sums->exact = ob->delegate_wrappers == 0;
  if (ob->method_time != ob->method_time && load_time == load_time) {
    ob->method_time = load_time;
    ob->method_name = "Program::load_method";
  }
  return rc;
}

static int build_block(etk_inspector_t *insp, etk_op_summary_t *s, size_t bi,
                       op_row_t **rows, size_t *cap, etk_strbuf_t *key) {
  etk_inspector_block_t blk;
  etk_inspector_block_get(insp, bi, &blk);
  etk_op_summary_block_t *ob = &s->blocks[bi];
  ob->method_time = (double)NAN;
  ob->method_name = NULL;
  ob->operators_total = 0;
  ob->delegate_total = 0;
  ob->delegate_wrappers = 0;
  ob->first_row = s->nrows;

  int32_t *inner = NULL;
  size_t ninner = 0;
  if (delegate_wrappers(insp, &blk, &inner, &ninner) != ETK_OK)
    return ETK_E_NO_MEMORY;
  double load_time = (double)NAN;
  int rc = ETK_OK;
  for (size_t i = 0; i < blk.event_count && rc == ETK_OK; i++) {
    size_t e = blk.first_event + i;
    etk_stats_t st;
    if (etk_inspector_event_stats(insp, e, &st) != ETK_OK) {
      s->roles[e] = ETK_OP_ROLE_NO_DATA;
      continue;
    }
    s->avgs[e] = st.avg;
    etk_inspector_event_t ev;
    etk_inspector_event_get_basic(insp, e, &ev);
    int name = ev.is_delegated_op ? 0 : special_name(&ev);
    if (name == 1) {
      s->roles[e] = ETK_OP_ROLE_OPERATOR_CALL;
      continue;
    }
    if (name == 2) {
      s->roles[e] = ETK_OP_ROLE_METHOD;
      if (ob->method_time != ob->method_time) {
        ob->method_time = st.avg;
        ob->method_name = "Method::execute";
      }
      continue;
    }
    if (name == 3) {
      s->roles[e] = ETK_OP_ROLE_LOAD_METHOD;
      if (load_time != load_time) load_time = st.avg;
      continue;
    }
    if (name == 4 && ev.instruction_id >= 0) {
      if (ninner &&
          bsearch(&ev.instruction_id, inner, ninner, sizeof *inner, cmp_i32)) {
        s->roles[e] = ETK_OP_ROLE_DELEGATE_WRAPPER;
        s->delegate_signs[e] = 1;
        ob->delegate_total += st.avg;
        continue;
      }
    }
    s->roles[e] = ETK_OP_ROLE_OPERATOR;
    rc = add_operator(insp, s, bi, e, &ev, st.avg, rows, cap, key);
  }
  free(inner);
  if (rc == ETK_OK) rc = mark_delegated_ops(insp, s, &blk, ob);
  if (rc != ETK_OK) return rc;
  if (ob->method_time != ob->method_time && load_time == load_time) {
    ob->method_time = load_time;
    ob->method_name = "Program::load_method";
  }
  if (s->nrows > ob->first_row)
    qsort(*rows + ob->first_row, s->nrows - ob->first_row, sizeof **rows,
          cmp_rows);
  if (ob->method_time == ob->method_time) {
    if (!ETK_VEC_RESERVE(*rows, *cap, s->nrows + 3)) return ETK_E_NO_MEMORY;
    op_row_t *r;
    if (ob->delegate_wrappers) {
      r = &(*rows)[s->nrows++];
      memset(r, 0, sizeof *r);
      r->block = (uint32_t)bi;
      r->kind = ETK_OP_ROW_DELEGATE_OVERHEAD;
      r->text = "delegate overhead";
      r->count = ob->delegate_wrappers;
      r->total = ob->delegate_total;
    }
    r = &(*rows)[s->nrows++];
    memset(r, 0, sizeof *r);
    r->block = (uint32_t)bi;
    r->kind = ETK_OP_ROW_FRAMEWORK_OVERHEAD;
    r->text = "framework overhead";
    r->total = ob->method_time - ob->operators_total - ob->delegate_total;
    r = &(*rows)[s->nrows++];
    memset(r, 0, sizeof *r);
    r->block = (uint32_t)bi;
    r->kind = ETK_OP_ROW_METHOD;
    r->text = ob->method_name;
    r->count = 1;
    r->total = ob->method_time;
  }
  ob->row_count = s->nrows - ob->first_row;
  return ETK_OK;
}

static int summary_build(etk_inspector_t *insp, int roles_only,
                         etk_diff_metric_t metric, ana_op_sums_t *sums,
                         etk_op_summary_t **out, etk_error_t *err) {
  if (!insp || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_op_summary_build: NULL argument");
  *out = NULL;
  etk_op_summary_t *s = calloc(1, sizeof *s);
  if (!s)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  ana_intern_init(&s->keys);
  s->sums = sums;
  s->metric = metric;
  s->nblocks = etk_inspector_block_count(insp);
  s->nevents = etk_inspector_event_count(insp);
  s->blocks = calloc(s->nblocks ? s->nblocks : 1, sizeof *s->blocks);
  s->roles = calloc(s->nevents ? s->nevents : 1, 1);
  s->delegate_signs = calloc(s->nevents ? s->nevents : 1, 1);
  if (!roles_only)
    s->avgs = malloc((s->nevents ? s->nevents : 1) * sizeof *s->avgs);
  int rc =
      (s->blocks && s->roles && s->delegate_signs && (roles_only || s->avgs))
          ? ETK_OK
          : ETK_E_NO_MEMORY;
  for (size_t e = 0; rc == ETK_OK && !roles_only && e < s->nevents; e++)
    s->avgs[e] = (double)NAN;
  size_t cap = 0;
  etk_strbuf_t key;
  etk_strbuf_init(&key);
  for (size_t b = 0; b < s->nblocks && rc == ETK_OK; b++)
    rc = roles_only ? build_block_roles(insp, s, b)
                    : build_block(insp, s, b, &s->rows, &cap, &key);
  etk_strbuf_free(&key);
  s->sums = NULL; /* the caller's */
  if (rc != ETK_OK) {
    etk_op_summary_free(s);
    return etk_error_set(err, rc, ETK_NO_OFFSET, "operator summary: %s",
                         etk_strerror(rc));
  }
  *out = s;
  return ETK_OK;
}

int etk_op_summary_build(etk_inspector_t *insp, etk_op_summary_t **out,
                         etk_error_t *err) {
  return summary_build(insp, 0, ETK_DIFF_METRIC_AVG, NULL, out, err);
}

int ana_op_roles_build(etk_inspector_t *insp, etk_diff_metric_t metric,
                       ana_op_sums_t *sums, etk_op_summary_t **out,
                       etk_error_t *err) {
  return summary_build(insp, 1, metric, sums, out, err);
}

void etk_op_summary_free(etk_op_summary_t *s) {
  if (!s) return;
  free(s->rows);
  free(s->blocks);
  free(s->roles);
  free(s->delegate_signs);
  free(s->avgs);
  free(s->row_of);
  ana_intern_free(&s->keys);
  free(s);
}

size_t etk_op_summary_row_count(const etk_op_summary_t *s) {
  return s ? s->nrows : 0;
}

int etk_op_summary_row_get(const etk_op_summary_t *s, size_t index,
                           etk_op_summary_row_t *out) {
  if (!s || !out || index >= s->nrows) return ETK_E_INVALID_ARGUMENT;
  const op_row_t *r = &s->rows[index];
  const etk_op_summary_block_t *b = &s->blocks[r->block];
  memset(out, 0, sizeof *out);
  out->block = r->block;
  out->kind = r->kind;
  if (r->kind == ETK_OP_ROW_OPERATOR) {
    size_t len;
    const char *k = ana_intern_key(&s->keys, r->key, &len);
    out->op_type = k + sizeof(uint64_t);
    out->op_type_len = len - sizeof(uint64_t);
  } else {
    out->op_type = r->text;
    out->op_type_len = strlen(r->text);
  }
  out->count = r->count;
  out->total = r->total;
  out->avg = (r->kind == ETK_OP_ROW_FRAMEWORK_OVERHEAD ||
              r->kind == ETK_OP_ROW_DELEGATE_OVERHEAD || r->count == 0)
                 ? (double)NAN
                 : r->total / (double)r->count;
  out->percent = (b->method_time == b->method_time && b->method_time != 0)
                     ? r->total / b->method_time * 100.0
                     : (double)NAN;
  return ETK_OK;
}

int etk_op_summary_block_get(const etk_op_summary_t *s, size_t block,
                             etk_op_summary_block_t *out) {
  if (!s || !out || block >= s->nblocks) return ETK_E_INVALID_ARGUMENT;
  *out = s->blocks[block];
  return ETK_OK;
}

int etk_op_summary_event_role(const etk_op_summary_t *s, size_t event) {
  if (!s || event >= s->nevents) return ETK_OP_ROLE_NO_DATA;
  return s->roles[event];
}

int ana_op_delegate_sign(const etk_op_summary_t *s, size_t event) {
  if (!s || event >= s->nevents) return 0;
  return s->delegate_signs[event];
}

double etk_op_summary_event_avg(const etk_op_summary_t *s, size_t event) {
  if (!s || !s->avgs || event >= s->nevents) return (double)NAN;
  return s->avgs[event];
}
