/*
 * ring.c - discarding the oldest events of a dump, so that a recorder used
 * as a ring keeps the newest ones (etk_recorder_discard_oldest).
 *
 * PURPOSE
 *   The recorder stops and counts when its arena is full.  A wrapper that
 *   prefers the newest events (the C++ adapter's WhenFull::kRing) calls
 *   this when a call fails with ETK_E_FULL, then repeats the call: the
 *   dump stays one valid ETDump holding the newest events, with the
 *   discarded ones counted in its "etkit:dropped_events=N" marker.
 *
 * DATA LAYOUT
 *   Records sit in call order in [records_begin, records_end): a block
 *   record, its allocator records (always before its first event), its
 *   events; then the next block.  Discarding the n oldest events keeps
 *
 *     [block B + its allocators][records from the first kept event on]
 *
 *   where B is the block of the first kept event (the current block when
 *   every event goes).  Both pieces move down with memmove (destination
 *   never above source), then every kept record is charged again from the
 *   start (rec_budget_reset, the same cost helpers as the append
 *   functions, their sum taken from the budget at once), which also
 *   recounts blocks, events, allocators and the finish scratch.
 *
 * INVARIANTS
 *   - The reservation after the call is exactly what recording the kept
 *     records would have reserved, so finish still always fits; a charge
 *     that does not fit (impossible: the kept records fitted before) is
 *     ETK_E_INTERNAL and leaves an empty dump rather than a wrong one.
 *   - Interned names are never freed (ids stay valid for the recorder's
 *     life); only record bytes and their output reservation are.
 *   - Open scopes (serials) are unaffected: a scope begun before the
 *     discard ends normally.
 *   - A latch set by a full name table (full_names) discards nothing:
 *     names_full clears it and answers ETK_E_LIMIT, so a ring never holds
 *     fewer events than a stopped recorder.
 */
#include <string.h>

#include "recorder_internal.h"

static int is_event(uint8_t kind) {
  return kind == REC_PROFILE || kind == REC_DELEGATE ||
         kind == REC_ALLOCATION || kind == REC_DEBUG;
}

/* Where the kept records start: *first (offset of the (n+1)-th event, or
 * records_end) and *block (offset of the block record it belongs to). */
static void find_cut(const etk_recorder_t *rec, uint32_t n, uint32_t *first,
                     uint32_t *block) {
  const uint8_t *base = rec_base(rec);
  uint32_t at = rec->records_begin, seen = 0;
  *block = rec->block_record;
  while (at < rec->records_end) {
    uint8_t kind = base[at];
    if (kind == REC_BLOCK) *block = at;
    if (is_event(kind) && seen++ == n) break;
    at += rec_record_size(base + at);
  }
  *first = at;
  /* every event goes: keep the current block (or, when the current block
   * was dropped, the last one recorded) */
  if (at == rec->records_end && rec->block_record != 0)
    *block = rec->block_record;
}

/* Offset of the last block record in [records_begin, end). */
static uint32_t last_block(const etk_recorder_t *rec, uint32_t end) {
  const uint8_t *base = rec_base(rec);
  uint32_t at = rec->records_begin, last = rec->records_begin;
  while (at < end) {
    uint32_t size = rec_record_size(base + at);
    if (base[at] == REC_BLOCK) last = at;
    if (size == 0) break;
    at += size;
  }
  return last;
}

/* Tensors and dimensions of a debug record at p (its headers follow it). */
static void debug_dims(const uint8_t *p, uint32_t count, uint64_t *dims) {
  uint32_t at = (uint32_t)sizeof(rec_debug_t);
  *dims = 0;
  for (uint32_t i = 0; i < count; i++) {
    rec_tensor_t t;
    memcpy(&t, p + at, sizeof t);
    *dims += t.dim;
    at += (uint32_t)sizeof t + 16u * t.dim;
  }
}

/* The cost of the event record at p (rec's counters as recording had them
 * just before it); 0 if it cannot be charged. */
static int event_cost(const etk_recorder_t *rec, const uint8_t *p,
                      rec_cost_t *c) {
  switch (p[0]) {
    case REC_PROFILE: {
      rec_profile_t r;
      memcpy(&r, p, sizeof r);
      rec_profile_cost(rec, r.name, r.chain, c);
      return 1;
    }
    case REC_DELEGATE: {
      rec_delegate_t r;
      memcpy(&r, p, sizeof r);
      rec_delegate_cost(rec, (r.flags & DELEGATE_ID_STR) != 0, r.id, r.chain,
                        r.metadata_len, c);
      return 1;
    }
    case REC_ALLOCATION:
      rec_allocation_cost(rec, c);
      return 1;
    default: {
      rec_debug_t r;
      uint64_t dims;
      unsigned id_kind;
      int is_output;
      memcpy(&r, p, sizeof r);
      id_kind = (r.flags & DEBUG_DELEGATE_STR)   ? 2u
                : (r.flags & DEBUG_DELEGATE_INT) ? 1u
                                                 : 0u;
      is_output = (r.flags & DEBUG_OUTPUT) != 0;
      debug_dims(p, r.tensor_count, &dims);
      memset(c, 0, sizeof *c);
      if (!rec_debug_cost(rec, r.value_kind, r.tensor_count, dims,
                          rec_debug_shape(r.chain, id_kind), &is_output, c))
        return 0;
      c->scratch += rec_item_scratch(rec, rec->block_events);
      c->names[0] = id_kind == 2u ? r.delegate_id : 0;
      return 1;
    }
  }
}

/* The costs of many records, summed: what budget_check would add up one
 * record at a time, taken from the budget once.  Names are charged on
 * their first use here (and marked used in this generation at once). */
typedef struct cost_sum {
  uint64_t records, scratch, output, vtables, shapes;
} cost_sum_t;

static int cost_add(etk_recorder_t *rec, const rec_cost_t *c, cost_sum_t *sum) {
  sum->records += c->records;
  sum->scratch += c->scratch;
  sum->output += c->output;
  sum->vtables += c->vtables;
  sum->shapes |= c->shapes;
  for (int i = 0; i < 2; i++) {
    etk_recorder_name_t id = c->names[i];
    if (id == 0) continue;
    if (id > rec->string_count) return 0;
    if (rec_string(rec, id)->gen != rec->gen) {
      sum->output += rec_string_bound(rec_string(rec, id)->len);
      rec_string(rec, id)->gen = rec->gen;
    }
  }
  return 1;
}

/* Charges every record in [records_begin, end) again, in order, and
 * recounts blocks, items and lists.  ETK_OK or ETK_E_INTERNAL. */
int rec_charge_again(etk_recorder_t *rec, uint32_t end) {
  const uint8_t *base = rec_base(rec);
  uint32_t at = rec->records_begin;
  cost_sum_t sum;
  rec_cost_t total;
  memset(&sum, 0, sizeof sum);
  rec_budget_reset(rec);
  while (at < end) {
    const uint8_t *p = base + at;
    uint32_t size = rec_record_size(p);
    rec_cost_t c;
    if (p[0] == REC_BLOCK) {
      rec_block_t b;
      memcpy(&b, p, sizeof b);
      rec_block_cost(b.flags, b.allocators, b.name, &c);
    } else if (p[0] == REC_ALLOCATOR) {
      rec_allocator_t a;
      memcpy(&a, p, sizeof a);
      rec_allocator_cost(rec, a.name, &c);
    } else if (!event_cost(rec, p, &c)) {
      return ETK_E_INTERNAL;
    } else if (p[0] == REC_DEBUG && (p[2] & DEBUG_STATS)) {
      rec_stats_marker_cost(rec, &c); /* with the first STATS record */
      rec->stats_marker = 1;
    }
    if (size == 0 || c.records != size || !cost_add(rec, &c, &sum))
      return ETK_E_INTERNAL;
    if (p[0] == REC_BLOCK) {
      rec->block_count++;
      rec->block_events = 0;
      rec->block_allocators = 0;
    } else if (p[0] == REC_ALLOCATOR) {
      rec->allocator_count++;
      if (++rec->block_allocators > rec->max_items)
        rec->max_items = rec->block_allocators;
    } else {
      rec->event_count++;
      if (++rec->block_events > rec->max_items)
        rec->max_items = rec->block_events;
      if (p[0] == REC_DEBUG && p[1] == ETK_RECORDER_VALUE_TENSOR_LIST) {
        rec_debug_t r;
        memcpy(&r, p, sizeof r);
        if (r.tensor_count > rec->max_list) rec->max_list = r.tensor_count;
      }
    }
    at += size;
  }
  if (sum.records > 0x7FFFFFFFu || sum.scratch > 0x7FFFFFFFu ||
      sum.output > 0x7FFFFFFFu || sum.vtables > 0x7FFFFFFFu)
    return ETK_E_INTERNAL;
  memset(&total, 0, sizeof total);
  total.records = (uint32_t)sum.records;
  total.scratch = (uint32_t)sum.scratch;
  total.output = (uint32_t)sum.output;
  total.vtables = (uint32_t)sum.vtables;
  total.shapes = sum.shapes;
  if (rec_budget_take(rec, &total) != ETK_OK) return ETK_E_INTERNAL;
  return rec->stats ? rec_stats_charge_again(rec) : ETK_OK;
}

/* Makes the last block record in [records_begin, end) current again with
 * its events open (the block being begun was dropped), so that the state
 * machine never sees a block it cannot write to; allocators are refused
 * until a block is begun. */
static void reopen_last_block(etk_recorder_t *rec, uint32_t end) {
  uint8_t *base = rec_base(rec);
  rec_block_t b;
  rec->block_record = last_block(rec, end);
  memcpy(&b, base + rec->block_record, sizeof b);
  b.flags |= BLOCK_EVENTS_OPEN;
  memcpy(base + rec->block_record, &b, sizeof b);
}

/* The latch was set by a name the table had no room for.  Names are never
 * freed, so discarding events cannot make room for that call: nothing is
 * discarded, the failed call stays dropped and counted, and the latch is
 * cleared so that later calls whose names are known (or need no name) are
 * recorded.  Were events discarded instead, every later failing call
 * would discard more and a ring would end with less than a stopped
 * recorder keeps.  ETK_E_LIMIT tells the caller not to repeat the call. */
static int names_full(etk_recorder_t *rec) {
  if (rec->block_record == 0) {
    if (rec->block_count == 0) return ETK_E_LIMIT; /* nowhere to record */
    reopen_last_block(rec, rec->records_end);
    rec_set_state(rec, REC_STATE_EVENTS);
  }
  rec->full = 0;
  rec->full_names = 0;
  rec_set_state(rec, rec->state); /* re-armed through the slow path */
  return ETK_E_LIMIT;
}

/* Moves the kept runs' tensor bytes to the front of the recorder's debug
 * buffer and rewrites their offsets, so that a ring with a debug level
 * reclaims the discarded runs' bytes as it does their records.  Only the
 * recorder's own buffer sink (etk_recorder_set_debug_buffer) can be moved;
 * bytes given to another data sink are gone.  Every write starts at an
 * aligned address, so moving by a multiple of the alignment keeps them
 * aligned. */
void rec_compact_debug_buffer(etk_recorder_t *rec) {
  etk_buffer_sink_t *s = &rec->debug_buffer;
  const uint8_t *base = rec_base(rec);
  size_t align = s->alignment ? s->alignment : 1u;
  size_t start = (size_t)(((uintptr_t)s->buf) % align);
  uint64_t lo = s->used, shift = 0;
  uint32_t at;
  if (!rec->has_debug_buffer || s->buf == NULL) return;
  start = start ? align - start : 0u; /* the first aligned offset */
  for (int pass = 0; pass < 2; pass++) {
    for (at = rec->records_begin; at < rec->records_end;) {
      uint8_t *p = (uint8_t *)base + at;
      uint32_t size = rec_record_size(p);
      if (size == 0) return;
      if (p[0] == REC_DEBUG) {
        rec_debug_t r;
        uint32_t t_at = (uint32_t)sizeof r;
        memcpy(&r, p, sizeof r);
        for (uint32_t i = 0; i < r.tensor_count; i++) {
          rec_tensor_t t;
          memcpy(&t, p + t_at, sizeof t);
          if (t.offset >= 0 && pass == 0 && (uint64_t)t.offset < lo)
            lo = (uint64_t)t.offset;
          if (t.offset >= 0 && pass == 1) {
            t.offset -= (int64_t)shift;
            memcpy(p + t_at, &t, sizeof t);
          }
          t_at += (uint32_t)sizeof t + 16u * t.dim;
        }
      }
      at += size;
    }
    if (pass == 0) {
      if (lo <= start || lo > s->used) return;
      shift = lo - start;
      memmove(s->buf + start, s->buf + lo, (size_t)(s->used - lo));
      s->used -= (size_t)shift;
    }
  }
}

int etk_recorder_discard_oldest(etk_recorder_t *rec, uint32_t events,
                                int refund) {
  uint32_t first, block, head, tail, shift, n;
  uint8_t *base;
  int status, dropped_current;
  if (rec == NULL) return ETK_E_INVALID_ARGUMENT;
  if (rec->state != REC_STATE_BLOCK && rec->state != REC_STATE_ALLOCATORS &&
      rec->state != REC_STATE_EVENTS)
    return ETK_E_INVALID_STATE; /* IN_SINK, no block, finished */
  /* stats mode: keys refer to blocks by name; a ring has nothing to gain */
  if (rec->stats) return ETK_E_INVALID_STATE;
  /* only a full recorder has anything to make room for (a data sink that
   * is full is not helped by discarding records) */
  if (!rec->full && !rec->debug_full) return ETK_E_INVALID_STATE;
  if (rec->full_names) return names_full(rec);
  if (rec->event_count == 0) return ETK_E_INVALID_STATE;
  dropped_current = rec->block_record == 0;
  n = events == 0 ? 1u : events;
  if (n > rec->event_count) n = rec->event_count;
  find_cut(rec, n, &first, &block);
  base = rec_base(rec);
  {
    rec_block_t b;
    memcpy(&b, base + block, sizeof b);
    head =
        (uint32_t)sizeof b + b.allocators * (uint32_t)sizeof(rec_allocator_t);
  }
  tail = rec->records_end - first;
  memmove(base + rec->records_begin, base + block, head);
  memmove(base + rec->records_begin + head, base + first, tail);
  shift = first - (rec->records_begin + head);
  /* the current block is the kept head or moved with the tail */
  if (dropped_current) {
    /* the current block was dropped (nothing after it could be recorded):
     * the last kept block is current again, with its events open, so that
     * the state machine never sees a block it cannot write to; allocators
     * are refused until a block is begun */
    reopen_last_block(rec, rec->records_begin + head + tail);
  } else if (rec->block_record == block) {
    rec->block_record = rec->records_begin;
  } else {
    rec->block_record -= shift;
  }
  status = rec_charge_again(rec, rec->records_begin + head + tail);
  if (status != ETK_OK) {
    /* cannot happen (the kept records fitted before); never a wrong dump */
    rec_budget_reset(rec);
    rec->block_record = 0;
    rec_set_state(rec, REC_STATE_INIT);
    return ETK_E_INTERNAL;
  }
  rec_compact_debug_buffer(rec); /* the discarded tensors' bytes too */
  rec->full = 0;
  rec->debug_full = 0;
  /* the next append re-arms the hot path through the slow path */
  rec_set_state(rec, dropped_current ? REC_STATE_EVENTS : rec->state);
  if (refund != 0) {
    /* the call being repeated began a block (the dropped current block)
     * or logged an event */
    if (dropped_current && rec->dropped_blocks != 0)
      rec->dropped_blocks--;
    else if (rec->dropped_events != 0)
      rec->dropped_events--;
  }
  etk_recorder_count_dropped(rec, n);
  return ETK_OK;
}
