/*
 * trigger.c - the flight recorder (etkit/trigger.h): a ring of the newest
 * runs, triggers evaluated at the end of each run, and snapshots written
 * through a sink as complete ETDumps.
 *
 * PURPOSE
 *   A deployed model runs millions of times; keeping every event does not
 *   fit, and the interesting runs are the rare slow or broken ones.  This
 *   keeps the last K runs in the recorder's fixed arena and, when a run
 *   meets a trigger's condition, hands out a dump of the runs around it.
 *
 * DATA LAYOUT
 *   The recorder's records are [block][allocators][events]... in call
 *   order (recorder_internal.h).  The run that just ended is the current
 *   block: [block_record, records_end).  Evaluation reads those records
 *   only; discarding the oldest runs moves [cut, records_end) down to
 *   records_begin and charges the kept records again (rec_charge_again,
 *   ring.c), so the reservation stays exact and finish always fits.
 *
 * INVARIANTS
 *   - Nothing here runs on the recording hot path; the recorder sees the
 *     flight recorder only at finish (the note) and in etk_recorder_trigger.
 *   - A snapshot is a plain finish with the note set; the recorder's state
 *     is put back afterwards, so recording goes on as if nothing happened.
 *   - The note's output is reserved in every dump while attached
 *     (note_reserved), so the snapshot's finish never runs out of space.
 */
#include "etkit/trigger.h"

#include <string.h>

#include "etkit/sketch.h"
#include "etkit/tensor_stats.h"
#include "recorder_internal.h"

/* ------------------------------------------------------------ parsing */

/* strcmp(a, b) == 0 without the C library's strcmp (the MCU build links
 * only memcpy, memmove, memset and strlen). */
static int same_text(const char *a, const char *b) {
  size_t n = strlen(a);
  return n == strlen(b) && memcmp(a, b, n) == 0;
}

static int is_word(const char *s, size_t n, const char *w) {
  return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* A decimal number "12", "0.5", "1e3" at s[0..n): no libc strtod (the
 * recorder builds without a C library's locale).  1 on success. */
static int parse_number(const char *s, size_t n, double *out) {
  double v = 0.0, scale = 1.0;
  size_t i = 0, digits = 0;
  int exp = 0, exp_sign = 1, exp_digits = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9') {
    v = v * 10.0 + (s[i++] - '0');
    digits++;
  }
  if (i < n && s[i] == '.') {
    i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
      scale /= 10.0;
      v += (s[i++] - '0') * scale;
      digits++;
    }
  }
  if (digits == 0) return 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-'))
      exp_sign = s[i++] == '-' ? -1 : 1;
    while (i < n && s[i] >= '0' && s[i] <= '9' && exp < 400) {
      exp = exp * 10 + (s[i++] - '0');
      exp_digits++;
    }
    if (exp_digits == 0) return 0;
    while (exp-- > 0) v = exp_sign > 0 ? v * 10.0 : v / 10.0;
  }
  if (i != n) return 0;
  *out = v;
  return 1;
}

/* Nanoseconds per unit at s[0..n), or 0 for an unknown unit. */
static double unit_ns(const char *s, size_t n) {
  if (is_word(s, n, "ns")) return 1.0;
  if (is_word(s, n, "us") || is_word(s, n, "\xC2\xB5s") ||
      is_word(s, n, "\xCE\xBCs"))
    return 1e3;
  if (is_word(s, n, "ms")) return 1e6;
  if (is_word(s, n, "s")) return 1e9;
  return 0.0;
}

static int fail(const char **why, const char *text) {
  if (why) *why = text;
  return ETK_E_INVALID_ARGUMENT;
}

int etk_trigger_parse(const char *expr, etk_trigger_t *out, const char **why) {
  size_t len, gt, rest, i;
  const char *r;
  if (why) *why = NULL;
  if (expr == NULL || out == NULL) return fail(why, "no expression");
  memset(out, 0, sizeof *out);
  len = strlen(expr);
  if (len == 0) return fail(why, "empty expression");
  if (len >= ETK_TRIGGER_TEXT_BYTES) {
    if (why) *why = "expression longer than 63 bytes";
    return ETK_E_LIMIT;
  }
  memcpy(out->text, expr, len);
  if (is_word(expr, len, "nan")) {
    out->kind = ETK_TRIGGER_NAN;
    return ETK_OK;
  }
  if (is_word(expr, len, "mismatch")) {
    out->kind = ETK_TRIGGER_MISMATCH;
    return ETK_OK;
  }
  if (is_word(expr, len, "manual")) {
    out->kind = ETK_TRIGGER_MANUAL;
    return ETK_OK;
  }
  for (gt = len; gt > 0 && expr[gt - 1] != '>'; gt--) {
  }
  if (gt == 0)
    return fail(why,
                "expected NAME>DURATION, NAME>K*p99, nan, mismatch or "
                "manual");
  gt--; /* index of the last '>' */
  if (gt == 0) return fail(why, "no event name before '>'");
  out->pattern_len = (uint32_t)gt;
  for (i = 0; i < gt; i++)
    if (expr[i] == ' ') return fail(why, "spaces in the event name");
  r = expr + gt + 1;
  rest = len - gt - 1;
  if (rest == 0) return fail(why, "nothing after '>'");
  if (rest > 4 && memcmp(r + rest - 4, "*p99", 4) == 0) {
    double k;
    if (!parse_number(r, rest - 4, &k) || !(k > 0.0))
      return fail(why, "expected a positive factor before *p99, as in 3*p99");
    out->kind = ETK_TRIGGER_P99;
    out->factor = k;
    return ETK_OK;
  }
  {
    size_t num = 0;
    double v, unit;
    while (num < rest && ((r[num] >= '0' && r[num] <= '9') || r[num] == '.' ||
                          ((r[num] == 'e' || r[num] == 'E') && num + 1 < rest &&
                           (r[num + 1] == '+' || r[num + 1] == '-' ||
                            (r[num + 1] >= '0' && r[num + 1] <= '9')))))
      num += (r[num] == 'e' || r[num] == 'E') ? 2u : 1u;
    if (num > rest) num = rest;
    if (num == 0 || !parse_number(r, num, &v))
      return fail(why, "expected a duration after '>', as in 2ms or 500us");
    if (num == rest)
      return fail(why, "the duration needs a unit (ns, us, ms or s)");
    unit = unit_ns(r + num, rest - num);
    if (unit == 0.0) return fail(why, "unknown unit (use ns, us, ms or s)");
    out->kind = ETK_TRIGGER_DURATION;
    out->threshold_ns = v * unit;
    return ETK_OK;
  }
}

/* ------------------------------------------------------------ set-up */

void etk_flight_config_init(etk_flight_config_t *cfg) {
  if (cfg == NULL) return;
  memset(cfg, 0, sizeof *cfg);
  cfg->min_samples = ETK_FLIGHT_DEFAULT_MIN_SAMPLES;
  cfg->ticks_per_ns = 1.0;
}

int etk_flight_init(etk_flight_t *f, etk_recorder_t *rec,
                    const etk_flight_config_t *cfg) {
  if (f == NULL || rec == NULL) return ETK_E_INVALID_ARGUMENT;
  if (cfg != NULL && !(cfg->ticks_per_ns > 0.0)) return ETK_E_INVALID_ARGUMENT;
  if (rec->flight != NULL) return ETK_E_INVALID_STATE;
  if (rec->stats) return ETK_E_UNSUPPORTED; /* stats mode keeps no runs */
  memset(f, 0, sizeof *f);
  if (cfg != NULL)
    f->cfg = *cfg;
  else
    etk_flight_config_init(&f->cfg);
  if (!rec->note_reserved) {
    /* reserve the note in the current dump (later dumps: rec_budget_reset)
     * without latching the stop-and-count state when it does not fit */
    rec_cost_t c;
    uint8_t full = rec->full, full_names = rec->full_names;
    memset(&c, 0, sizeof c);
    c.scratch = 4u;
    c.output = rec_note_out();
    if (rec_budget_take(rec, &c) != ETK_OK) {
      rec->full = full;
      rec->full_names = full_names;
      rec_set_state(rec, rec->state);
      return ETK_E_NO_MEMORY;
    }
    rec->note_reserved = 1;
  }
  f->rec = rec;
  rec->flight = f;
  return ETK_OK;
}

int etk_flight_add_trigger(etk_flight_t *f, const etk_trigger_t *t) {
  if (f == NULL || t == NULL || t->kind < ETK_TRIGGER_DURATION ||
      t->kind > ETK_TRIGGER_MANUAL)
    return ETK_E_INVALID_ARGUMENT;
  if (f->trigger_count == ETK_FLIGHT_MAX_TRIGGERS) return ETK_E_LIMIT;
  if (t->kind == ETK_TRIGGER_P99) {
    etk_sketch_t *s;
    if (f->p99_count >= f->cfg.sketch_count || f->cfg.sketches == NULL)
      return ETK_E_LIMIT;
    s = (etk_sketch_t *)f->cfg.sketches + f->p99_count;
    if (etk_sketch_init(s, 0.0) != ETK_OK) return ETK_E_INVALID_ARGUMENT;
    f->sketch_of[f->trigger_count] = (uint8_t)f->p99_count++;
  }
  f->triggers[f->trigger_count++] = *t;
  memset(f->name_cache, 0, sizeof f->name_cache);
  return ETK_OK;
}

/* ------------------------------------------------------------ evaluation */

/* Bit i set when trigger i's pattern matches name id `name`. */
static uint16_t name_matches(etk_flight_t *f, etk_recorder_name_t name) {
  uint16_t bits = 0;
  const char *text;
  char pattern[ETK_TRIGGER_TEXT_BYTES];
  if (name < ETK_FLIGHT_NAME_CACHE && (f->name_cache[name] & 0x8000u))
    return (uint16_t)(f->name_cache[name] & 0x7FFFu);
  text = etk_recorder_name_string(f->rec, name, NULL);
  for (uint32_t i = 0; text != NULL && i < f->trigger_count; i++) {
    const etk_trigger_t *t = &f->triggers[i];
    if (t->kind != ETK_TRIGGER_DURATION && t->kind != ETK_TRIGGER_P99) continue;
    memcpy(pattern, t->text, t->pattern_len);
    pattern[t->pattern_len] = '\0';
    if (etk_glob_match(pattern, text)) bits |= (uint16_t)(1u << i);
  }
  if (name < ETK_FLIGHT_NAME_CACHE)
    f->name_cache[name] = (uint16_t)(bits | 0x8000u);
  return bits;
}

/* What fired in a run: the first trigger (by order) and its figures. */
typedef struct firing {
  int fired;
  uint32_t trigger;
  double value_ns;
  etk_recorder_name_t event;
} firing_t;

static void note_firing(firing_t *x, uint32_t trigger, double value_ns,
                        etk_recorder_name_t event) {
  if (x->fired && x->trigger <= trigger) return;
  x->fired = 1;
  x->trigger = trigger;
  x->value_ns = value_ns;
  x->event = event;
}

static int not_finite(double v) {
  return v != v || v - v != 0.0;
}

/* 1 when a FLOAT (6) or DOUBLE (7) tensor in the debug buffer holds a NaN
 * or an infinity. */
static int tensor_not_finite(const etk_recorder_t *rec, const rec_tensor_t *t,
                             const uint8_t *sizes_at) {
  uint64_t n = 1, bytes, elem;
  const uint8_t *data;
  if (t->scalar_type != 6 && t->scalar_type != 7) return 0;
  if (!rec->has_debug_buffer || t->offset < 0) return 0;
  for (uint32_t d = 0; d < t->dim; d++) {
    int64_t s;
    memcpy(&s, sizes_at + 8u * d, sizeof s);
    if (s <= 0) return 0;
    n *= (uint64_t)s;
  }
  elem = t->scalar_type == 6 ? 4u : 8u;
  bytes = n * elem;
  if ((uint64_t)t->offset > rec->debug_buffer.used ||
      bytes > rec->debug_buffer.used - (uint64_t)t->offset)
    return 0;
  data = rec->debug_buffer.buf + t->offset;
  for (uint64_t i = 0; i < n; i++) {
    if (elem == 4u) {
      float v;
      memcpy(&v, data + 4u * i, sizeof v);
      if (not_finite((double)v)) return 1;
    } else {
      double v;
      memcpy(&v, data + 8u * i, sizeof v);
      if (not_finite(v)) return 1;
    }
  }
  return 0;
}

/* 1 when the STATS vector of t (ETK_DEBUG_LEVEL_STATS: DOUBLE [13] in the
 * debug buffer) counts a NaN or an infinity.  Its own values may be NaN
 * without that (an empty tensor's min), so the counts decide. */
static int stats_not_finite(const etk_recorder_t *rec, const rec_tensor_t *t) {
  double counts[2];
  uint64_t at = (uint64_t)t->offset + 8u * ETK_STAT_NAN_COUNT;
  if (!rec->has_debug_buffer || t->offset < 0 || t->scalar_type != 7 ||
      t->dim != 1 || at + sizeof counts > rec->debug_buffer.used)
    return 0;
  memcpy(counts, rec->debug_buffer.buf + at, sizeof counts);
  return counts[0] > 0.0 || counts[1] > 0.0; /* nan_count, inf_count */
}

static int debug_not_finite(const etk_recorder_t *rec, const uint8_t *p) {
  rec_debug_t r;
  uint32_t at = (uint32_t)sizeof r;
  memcpy(&r, p, sizeof r);
  if (r.value_kind == ETK_RECORDER_VALUE_DOUBLE) return not_finite(r.value.d);
  if (r.value_kind != ETK_RECORDER_VALUE_TENSOR &&
      r.value_kind != ETK_RECORDER_VALUE_TENSOR_LIST)
    return 0;
  for (uint32_t i = 0; i < r.tensor_count; i++) {
    rec_tensor_t t;
    memcpy(&t, p + at, sizeof t);
    if ((r.flags & DEBUG_STATS) && t.offset >= 0
            ? stats_not_finite(rec, &t)
            : tensor_not_finite(rec, &t, p + at + sizeof t))
      return 1;
    at += (uint32_t)sizeof t + 16u * t.dim;
  }
  return 0;
}

static void check_duration(etk_flight_t *f, firing_t *x, uint16_t bits,
                           etk_recorder_name_t name, double ns) {
  for (uint32_t i = 0; bits != 0 && i < f->trigger_count; i++, bits >>= 1) {
    const etk_trigger_t *t = &f->triggers[i];
    if (!(bits & 1u)) continue;
    if (t->kind == ETK_TRIGGER_DURATION) {
      if (ns > t->threshold_ns) note_firing(x, i, ns, name);
    } else {
      etk_sketch_t *s = (etk_sketch_t *)f->cfg.sketches + f->sketch_of[i];
      double p99;
      if (etk_sketch_count(s) >= f->cfg.min_samples &&
          etk_sketch_quantile(s, 0.99, &p99) == ETK_OK && ns > t->factor * p99)
        note_firing(x, i, ns, name);
      (void)etk_sketch_add(s, ns);
    }
  }
}

/* Looks at the run just ended (the current block's records). */
static void evaluate(etk_flight_t *f, firing_t *x) {
  etk_recorder_t *rec = f->rec;
  const uint8_t *base = rec_base(rec);
  int want_nan = 0, want_time = 0;
  uint32_t at;
  for (uint32_t i = 0; i < f->trigger_count; i++) {
    int k = f->triggers[i].kind;
    if (k == ETK_TRIGGER_NAN) want_nan = 1;
    if (k == ETK_TRIGGER_DURATION || k == ETK_TRIGGER_P99) want_time = 1;
  }
  if (rec->block_record == 0) return; /* the run's block was dropped */
  for (at = rec->block_record; at < rec->records_end;) {
    const uint8_t *p = base + at;
    uint32_t size = rec_record_size(p);
    if (size == 0) break;
    if (want_time && (p[0] == REC_PROFILE || p[0] == REC_DELEGATE)) {
      etk_recorder_name_t name;
      uint64_t start, end;
      if (p[0] == REC_PROFILE) {
        rec_profile_t r;
        memcpy(&r, p, sizeof r);
        name = r.name;
        start = r.start;
        end = r.end;
      } else {
        rec_delegate_t r;
        memcpy(&r, p, sizeof r);
        name = (r.flags & DELEGATE_ID_STR) ? r.id : 0;
        start = r.start;
        end = r.end;
      }
      if (name != 0) {
        uint16_t bits = name_matches(f, name);
        if (bits != 0)
          check_duration(
              f, x, bits, name,
              (double)(end >= start ? end - start : 0) / f->cfg.ticks_per_ns);
      }
    } else if (want_nan && p[0] == REC_DEBUG && debug_not_finite(rec, p)) {
      for (uint32_t i = 0; i < f->trigger_count; i++)
        if (f->triggers[i].kind == ETK_TRIGGER_NAN) note_firing(x, i, 0.0, 0);
    }
    at += size;
  }
}

/* ------------------------------------------------------------ snapshots */

static size_t put_text(char *out, size_t at, const char *s, size_t n) {
  if (at >= ETK_FLIGHT_NOTE_MAX) return at;
  if (n > ETK_FLIGHT_NOTE_MAX - at) n = ETK_FLIGHT_NOTE_MAX - at;
  memcpy(out + at, s, n);
  return at + n;
}

static size_t put_u64(char *out, size_t at, uint64_t v) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0);
  for (size_t i = 0; i < n / 2; i++) {
    char c = tmp[i];
    tmp[i] = tmp[n - 1 - i];
    tmp[n - 1 - i] = c;
  }
  return put_text(out, at, tmp, n);
}

#define PUT(s) n = put_text(f->note, n, s, sizeof s - 1u)

/* The note, but for after= (written when the snapshot is taken). */
static void compose_note(etk_flight_t *f, const firing_t *x, uint64_t run) {
  size_t n = 0;
  const etk_trigger_t *t = &f->triggers[x->trigger];
  const char *text;
  size_t len = 0;
  PUT("etkit:trigger=run=");
  n = put_u64(f->note, n, run);
  PUT(",snapshot=");
  n = put_u64(f->note, n, f->snapshots);
  PUT(",value_ns=");
  n = put_u64(f->note, n, (uint64_t)(x->value_ns + 0.5));
  PUT(",event=");
  text = x->event ? etk_recorder_name_string(f->rec, x->event, &len) : NULL;
  if (text) n = put_text(f->note, n, text, len);
  PUT(",expr=");
  n = put_text(f->note, n, t->text, strlen(t->text));
  f->note_len = (uint32_t)n;
}

/* Finishes the dump with the note (after= inserted) and writes it. */
static int snapshot(etk_flight_t *f) {
  etk_recorder_t *rec = f->rec;
  char full[ETK_FLIGHT_NOTE_MAX];
  size_t n, cut;
  const uint8_t *data;
  size_t len;
  uint8_t state = rec->state;
  int status;
  /* "...,snapshot=S" then ",after=M" then the rest */
  for (cut = 0;
       cut + 7 < f->note_len && memcmp(f->note + cut, ",value_", 7) != 0;
       cut++) {
  }
  n = put_text(full, 0, f->note, cut);
  n = put_text(full, n, ",after=", 7);
  n = put_u64(full, n, f->runs - 1u - f->pending_run);
  n = put_text(full, n, f->note + cut, f->note_len - cut);
  rec->note = full;
  rec->note_len = (uint32_t)n;
  status = etk_recorder_finish(rec, &data, &len);
  rec->note = NULL;
  rec->note_len = 0;
  f->pending = 0;
  f->snapshots++;
  if (status != ETK_OK) return status;
  rec_set_state(rec, state); /* recording goes on */
  if (f->cfg.write != NULL && f->cfg.write(f->cfg.write_ctx, data, len) != 0) {
    f->write_errors++;
    return ETK_E_IO;
  }
  return ETK_OK;
}

/* ------------------------------------------------------------ the ring */

/* Discards the oldest blocks so that `keep` remain. */
static int keep_newest(etk_flight_t *f, uint32_t keep) {
  etk_recorder_t *rec = f->rec;
  uint8_t *base = rec_base(rec);
  uint32_t drop, at, seen = 0, shift, tail;
  int status;
  if (rec->block_count <= keep || rec->block_record == 0) return ETK_OK;
  drop = rec->block_count - keep;
  for (at = rec->records_begin; at < rec->records_end;) {
    uint32_t size = rec_record_size(base + at);
    if (base[at] == REC_BLOCK && seen++ == drop) break;
    if (size == 0) return ETK_E_INTERNAL;
    at += size;
  }
  if (at >= rec->records_end || at > rec->block_record) return ETK_OK;
  shift = at - rec->records_begin;
  tail = rec->records_end - at;
  memmove(base + rec->records_begin, base + at, tail);
  rec->block_record -= shift;
  status = rec_charge_again(rec, rec->records_begin + tail);
  if (status != ETK_OK) return status;
  rec_compact_debug_buffer(rec);
  rec->full = 0;
  rec->full_names = 0;
  rec->debug_full = 0;
  rec_set_state(rec, rec->state);
  return ETK_OK;
}

/* ------------------------------------------------------------ run end */

/* Keeps the newest keep_runs runs, and while a snapshot waits the runs
 * from the keep_runs - 1 before the firing one on. */
static int trim(etk_flight_t *f, uint64_t run) {
  uint64_t keep = f->cfg.keep_runs;
  if (keep == 0 || f->rec->state == REC_STATE_DONE) return ETK_OK;
  if (f->pending) keep += run - f->pending_run;
  if (keep > 0xFFFFFFFFu) keep = 0xFFFFFFFFu;
  return keep_newest(f, (uint32_t)keep);
}

static int take_firing(etk_flight_t *f, uint64_t run) {
  if (f->pending) return 0;
  if (f->cfg.trigger_limit != 0 && f->snapshots >= f->cfg.trigger_limit)
    return 0;
  if (f->fired_before && f->cfg.trigger_spacing > 1 &&
      run - f->last_fire < f->cfg.trigger_spacing)
    return 0;
  return 1;
}

int etk_flight_run_end(etk_flight_t *f) {
  firing_t x;
  uint64_t run;
  int status = ETK_OK;
  if (f == NULL || f->rec == NULL) return ETK_E_INVALID_ARGUMENT;
  run = f->runs;
  memset(&x, 0, sizeof x);
  evaluate(f, &x);
  if (f->manual) {
    for (uint32_t i = 0; i < f->trigger_count; i++)
      if ((f->triggers[i].kind == ETK_TRIGGER_MANUAL ||
           f->triggers[i].kind == ETK_TRIGGER_MISMATCH) &&
          same_text(f->triggers[i].text, f->manual_reason))
        note_firing(&x, i, 0.0, 0);
    f->manual = 0;
  }
  f->runs++;
  if (x.fired) {
    if (take_firing(f, run)) {
      f->pending = 1;
      f->pending_run = run;
      f->fired_before = 1;
      f->last_fire = run;
      compose_note(f, &x, run);
    } else {
      f->suppressed++;
    }
  }
  /* the ring first (so that a snapshot holds K runs up to the firing one
   * and the keep_after runs after it), then a snapshot that is due, then
   * the ring again without the hold */
  status = trim(f, run);
  if (status == ETK_OK && f->pending &&
      run - f->pending_run >= f->cfg.keep_after) {
    status = snapshot(f);
    if (status == ETK_OK || status == ETK_E_IO) {
      int ring = trim(f, run);
      if (status == ETK_OK) status = ring;
    }
  }
  return status;
}

int etk_flight_fire(etk_flight_t *f, const char *reason) {
  size_t n;
  if (f == NULL || reason == NULL) return ETK_E_INVALID_ARGUMENT;
  n = strlen(reason);
  for (uint32_t i = 0; i < f->trigger_count; i++) {
    const etk_trigger_t *t = &f->triggers[i];
    if ((t->kind == ETK_TRIGGER_MANUAL || t->kind == ETK_TRIGGER_MISMATCH) &&
        same_text(t->text, reason)) {
      f->manual = 1;
      memcpy(f->manual_reason, reason, n + 1u);
      return ETK_OK;
    }
  }
  return ETK_E_NOT_FOUND;
}

int etk_recorder_trigger(etk_recorder_t *rec) {
  if (rec == NULL) return ETK_E_INVALID_ARGUMENT;
  if (rec->flight == NULL) return ETK_E_INVALID_STATE;
  return etk_flight_fire(rec->flight, "manual");
}

int etk_flight_finish(etk_flight_t *f) {
  int status = ETK_OK;
  if (f == NULL || f->rec == NULL) return ETK_E_INVALID_ARGUMENT;
  if (f->pending && f->rec->state != REC_STATE_DONE) status = snapshot(f);
  f->rec->flight = NULL;
  f->rec = NULL;
  return status;
}
