/*
 * trace_session.c - a host recorder sized for a program, so that a traced
 * run drops nothing: what `etkit run`, `etkit demo` and Python's
 * etkit.run() trace into.
 *
 * The recorder is sized from the program so that nothing is dropped.  The
 * workload (etk_recorder_workload_t) is counted from the plan: per execute,
 * two operator events per KernelCall, one per other instruction, the method
 * event, the delegate events of EtkitMicroBackend payloads (one per op,
 * read from the payload header) or a generous guess for other backends;
 * with debug logging, the tensors each instruction logs.  The debug buffer
 * is sized the same way from the tensors' planned byte sizes plus the
 * 64-byte alignment of each write.  Should an estimate still be short, the
 * recorder drops and counts (never corrupts), and the caller reports the
 * count.  The arena and debug buffer are the caller's memory
 * (etk_trace_session_start: the firmware's static buffers) or heap blocks
 * owned by the session (etk_trace_session_create, host/trace_alloc.c).
 */
#include <string.h>

#include "etkit/program.h"
#include "etkit/recorder.h"
#include "etkit/tensor_stats.h"
#include "etkit/sketch.h"
#include "etkit/method.h"
#include "runtime_internal.h"

/* Debug-buffer bytes of one logged tensor of `nbytes`: its bytes, or its
 * STATS vector at ETK_TRACE_DEBUG_STATS (`stats`), plus the alignment. */
static uint64_t logged_bytes(uint64_t nbytes, int stats) {
  return (stats ? 8u * ETK_TENSOR_STATS_COUNT : nbytes) + 64;
}

/* Bytes and tensor count value v would log. */
static void value_cost(const etk_program_plan_t *plan, int32_t v, int stats,
                       uint64_t *bytes, uint64_t *tensors, uint64_t *scalars) {
  const etk_program_value_t *pv = &plan->values[v];
  if (pv->tag == ETK_VALUE_TENSOR) {
    *bytes += logged_bytes(pv->u.tensor->nbytes, stats);
    *tensors += 1;
  } else if (pv->tag == ETK_VALUE_TENSOR_LIST) {
    for (uint32_t k = 0; k < pv->u.tensor_list.count; k++) {
      int32_t item = pv->u.tensor_list.items[k];
      *bytes += logged_bytes(plan->values[item].u.tensor->nbytes, stats);
      *tensors += 1;
    }
  } else {
    *scalars += 1;
  }
}

/* The recorder configuration, arena size and debug-buffer size for `runs`
 * executions of `plan`. */
static int session_plan(const etk_program_plan_t *plan, unsigned runs,
                        int debug_level, int profile_level,
                        etk_recorder_config_t *cfg_out, size_t *arena_size,
                        size_t *debug_size, etk_error_t *err) {
  if (runs == 0) runs = 1;
  int stats = debug_level == ETK_TRACE_DEBUG_STATS;
  uint64_t prof = 1, deleg = 0, dbg_t = 0, dbg_s = 0, dbg_bytes = 0;
  uint64_t strings = 32, string_bytes = 512;
  for (uint32_t i = 0; i < plan->operator_count; i++) {
    strings++;
    string_bytes += strlen(plan->operators[i].event_name) + 8;
  }
  for (uint32_t c = 0; c < plan->chain_count; c++)
    for (uint32_t i = 0; i < plan->chains[c].instruction_count; i++) {
      const etk_program_instruction_t *x = &plan->chains[c].instructions[i];
      if (x->kind == ETK_INSTR_KERNEL_CALL) {
        prof += 2;
        if (debug_level >= ETK_TRACE_DEBUG_INTERMEDIATES) {
          uint32_t first, count;
          etk_program_call_outputs(x->args, x->arg_count, &first, &count);
          for (uint32_t k = 0; k < count; k++)
            value_cost(plan, x->args[first + k], stats, &dbg_bytes, &dbg_t,
                       &dbg_s);
        }
      } else if (x->kind == ETK_INSTR_DELEGATE_CALL) {
        prof += 1;
        const etk_program_delegate_t *d = &plan->delegates[x->index];
        uint64_t ops = 64;
        if (d->size >= 8 && memcmp(d->data, "EMB1", 4) == 0)
          ops = (uint64_t)d->data[6] | (uint64_t)d->data[7] << 8;
        deleg += ops;
        strings += ops;
        string_bytes += ops * 48;
        if (debug_level >= ETK_TRACE_DEBUG_INTERMEDIATES) {
          for (uint32_t k = 0; k < x->arg_count; k++)
            value_cost(plan, x->args[k], stats, &dbg_bytes, &dbg_t, &dbg_s);
          /* delegate intermediate outputs: bounded by the payload's
           * scratch plus the outputs, counted generously */
          dbg_t += ops;
          dbg_bytes += ops * logged_bytes(0, stats);
          if (!stats && d->size >= 12 && memcmp(d->data, "EMB1", 4) == 0)
            dbg_bytes += (uint64_t)d->data[8] | (uint64_t)d->data[9] << 8 |
                         (uint64_t)d->data[10] << 16 |
                         (uint64_t)d->data[11] << 24;
        }
      } else {
        prof += 1;
      }
    }
  if (debug_level >= ETK_TRACE_DEBUG_OUTPUTS)
    for (uint32_t k = 0; k < plan->output_count; k++)
      value_cost(plan, plan->outputs[k], stats, &dbg_bytes, &dbg_t, &dbg_s);
  if (profile_level == ETK_TRACE_PROFILE_METHOD) prof = 1;
  int sketch = (profile_level & 0xFF) == ETK_TRACE_PROFILE_STATS;
  /* stats mode: one key per timed event of a run (and the load's), no
   * profile record at all, whatever the number of runs */
  uint64_t keys = prof + deleg + 8;

  etk_recorder_workload_t w;
  memset(&w, 0, sizeof w);
  uint64_t r = runs;
  uint64_t nplanned = plan->buffer_size_count ? plan->buffer_size_count - 1 : 0;
#define CLAMP(x) ((x) > 0x3FFFFFFFu ? 0x3FFFFFFFu : (uint32_t)(x))
  w.blocks = CLAMP(sketch ? 2 : r + 1);
  w.profile_events = CLAMP(sketch ? 0 : prof * r + 2);
  w.delegate_events = CLAMP(sketch ? 0 : deleg * r);
  w.delegate_metadata_bytes = CLAMP(sketch ? 0 : deleg * r * 32);
  w.allocators = CLAMP(1 + nplanned);
  w.allocation_events = CLAMP(64 + nplanned);
  w.debug_scalars = CLAMP(dbg_s * r);
  w.debug_tensors = CLAMP(dbg_t * r);
  w.tensor_dims = CLAMP(dbg_t * r * 8);
  w.tensor_stats = (uint32_t)stats;
  w.strings = CLAMP(strings + nplanned);
  w.string_bytes = CLAMP(string_bytes + nplanned * 24);
  etk_recorder_config_t cfg;
  etk_recorder_config_init(&cfg);
  cfg.max_strings = w.strings + 16 > ETK_RECORDER_MAX_STRINGS
                        ? ETK_RECORDER_MAX_STRINGS
                        : w.strings + 16;
  if (sketch) {
    cfg.profile_mode = ETK_PROFILE_MODE_STATS;
    cfg.stats_keys =
        keys > ETK_LATENCY_MAX_KEYS ? ETK_LATENCY_MAX_KEYS : (uint32_t)keys;
    cfg.stats_error = (double)((unsigned)profile_level >> 8) / 1e6;
    if (cfg.stats_error != 0.0 &&
        (cfg.stats_error < ETK_SKETCH_MIN_RELATIVE_ERROR ||
         cfg.stats_error > ETK_SKETCH_MAX_RELATIVE_ERROR))
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "stats error %g outside [%g, %g]", cfg.stats_error,
                           ETK_SKETCH_MIN_RELATIVE_ERROR,
                           ETK_SKETCH_MAX_RELATIVE_ERROR);
  }
  size_t size = etk_recorder_estimate_size(&cfg, &w);
  if (size == 0 || size > ((size_t)1 << 30) - 4096)
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "the trace of %u runs would need more than 1 GiB; "
                         "use fewer iterations",
                         runs);
  size += size / 4 + 4096;
  uint64_t cap = dbg_bytes * r + 4096;
  *cfg_out = cfg;
  *arena_size = (size + 63) & ~(size_t)63;
  /* SIZE_MAX: more than 2 GiB, an error only for a caller that wants it */
  *debug_size = cap > ((uint64_t)1 << 31) ? SIZE_MAX : (size_t)cap;
  return ETK_OK;
}

int etk_trace_debug_too_big(unsigned runs, etk_error_t *err) {
  return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                       "the debug buffer of %u runs would exceed 2 GiB; use "
                       "fewer iterations",
                       runs ? runs : 1);
}

int etk_trace_session_size(const etk_program_plan_t *plan, unsigned runs,
                           int debug_level, int profile_level,
                           size_t *arena_size, size_t *debug_size,
                           etk_error_t *err) {
  etk_recorder_config_t cfg;
  size_t a = 0, d = 0;
  int rc =
      session_plan(plan, runs, debug_level, profile_level, &cfg, &a, &d, err);
  if (arena_size) *arena_size = a;
  if (debug_size) *debug_size = d;
  return rc;
}

int etk_trace_session_start(const etk_program_plan_t *plan, unsigned runs,
                            int debug_level, int profile_level, void *arena,
                            size_t arena_size, uint8_t *debug_buffer,
                            size_t debug_size, etk_recorder_clock_fn clock,
                            void *clock_ctx, etk_trace_session_t *out,
                            etk_error_t *err) {
  memset(out, 0, sizeof *out);
  etk_recorder_config_t cfg;
  size_t need = 0, need_debug = 0;
  int rc = session_plan(plan, runs, debug_level, profile_level, &cfg, &need,
                        &need_debug, err);
  if (rc != ETK_OK) return rc;
  if (!arena || arena_size < need)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "the recorder needs %zu bytes for %u run(s), the "
                         "arena has %zu",
                         need, runs ? runs : 1, arena ? arena_size : 0);
  if (debug_buffer && need_debug == SIZE_MAX)
    return etk_trace_debug_too_big(runs, err);
  if (debug_buffer && debug_size < need_debug)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "the debug buffer needs %zu bytes for %u run(s), it "
                         "has %zu",
                         need_debug, runs ? runs : 1, debug_size);
  out->arena = arena;
  cfg.clock = clock;
  cfg.clock_ctx = clock_ctx;
  rc = etk_recorder_init(&out->rec, arena, arena_size, &cfg);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "cannot start the recorder: %s", etk_strerror(rc));
  etk_recorder_set_debug_level(
      out->rec, debug_level == ETK_TRACE_DEBUG_NONE ? ETK_DEBUG_LEVEL_NONE
                : debug_level == ETK_TRACE_DEBUG_OUTPUTS
                    ? ETK_DEBUG_LEVEL_PROGRAM_OUTPUTS
                : debug_level == ETK_TRACE_DEBUG_STATS
                    ? ETK_DEBUG_LEVEL_STATS
                    : ETK_DEBUG_LEVEL_INTERMEDIATE_OUTPUTS);
  etk_recorder_set_profiling_level(out->rec,
                                   profile_level == ETK_TRACE_PROFILE_METHOD
                                       ? ETK_PROFILING_METHOD_ONLY
                                       : ETK_PROFILING_ALL_EVENTS);
  if (debug_buffer) {
    out->debug_buffer = debug_buffer;
    out->debug_capacity = debug_size;
    etk_recorder_set_debug_buffer(out->rec, debug_buffer, debug_size);
  }
  return ETK_OK;
}

int etk_trace_session_finish(etk_trace_session_t *s, const uint8_t **etdump,
                             size_t *etdump_len, const uint8_t **debug,
                             size_t *debug_len, uint32_t *dropped,
                             etk_error_t *err) {
  const uint8_t *data;
  size_t len;
  int rc = etk_recorder_finish(s->rec, &data, &len);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "cannot finish the ETDump: %s",
                         etk_strerror(rc));
  if (etdump) *etdump = data;
  if (etdump_len) *etdump_len = len;
  if (dropped) *dropped = etk_recorder_dropped(s->rec);
  if (debug) *debug = s->debug_buffer;
  if (debug_len)
    *debug_len = s->debug_buffer ? etk_recorder_debug_buffer_used(s->rec) : 0;
  return ETK_OK;
}
