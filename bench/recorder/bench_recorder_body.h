/*
 * bench_recorder_body.h - the timed part of bench_recorder, written once
 * and compiled once per recorder the binary holds: bench_recorder.c
 * includes it with REC(f) naming the current recorder's functions and, when
 * the build adds a baseline (ETKIT_BENCH_BASELINE=<commit>), again with
 * REC(f) naming the baseline copy's renamed ones (etkbase_f).  BODY(f)
 * gives each inclusion's own function names.  Both copies time the same
 * workloads with direct calls, so their figures compare one to one.
 *
 * Needs, from the includer: REC, BODY, EVENTS, ROUNDS, arena, ticks,
 * cycle_clock, have_cycles, counter_clock, now_ns, die and bench_figures_t.
 */

/* host_clock: 0 the counter clock, 1 the default (clock_gettime), 2 the
 * calibrated cycle-counter clock */
static etk_recorder_t *BODY(make)(int host_clock) {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec = NULL;
  REC(etk_recorder_config_init)(&cfg);
  if (!host_clock) {
    cfg.clock = counter_clock;
    cfg.clock_ctx = &ticks;
  } else if (host_clock == 2) {
    cfg.clock = etk_recorder_cycle_clock;
    cfg.clock_ctx = &cycle_clock;
  }
  if (REC(etk_recorder_init)(&rec, arena, sizeof arena, &cfg) != ETK_OK)
    die("init failed");
  return rec;
}

/* Best per-pair time over ROUNDS rounds of EVENTS pairs. */
static double BODY(time_pairs)(etk_recorder_t *rec, int by_name) {
  etk_recorder_name_t op = REC(etk_recorder_intern)(rec, "OPERATOR_CALL");
  double best = 1e30;
  for (int r = 0; r < ROUNDS; r++) {
    uint64_t t0, t1;
    const uint8_t *out;
    size_t len;
    if (REC(etk_recorder_begin_block)(rec, "Execute") != ETK_OK)
      die("begin_block failed");
    REC(etk_recorder_set_chain_debug_handle)(rec, 0, 3);
    t0 = now_ns();
    if (by_name) {
      for (uint32_t i = 0; i < EVENTS; i++) {
        etk_recorder_scope_t s =
            REC(etk_recorder_begin_named)(rec, "OPERATOR_CALL", -1, 0);
        REC(etk_recorder_end)(rec, &s);
      }
    } else {
      for (uint32_t i = 0; i < EVENTS; i++) {
        etk_recorder_scope_t s = REC(etk_recorder_begin)(rec, op);
        REC(etk_recorder_end)(rec, &s);
      }
    }
    t1 = now_ns();
    if (REC(etk_recorder_dropped)(rec) != 0) die("events dropped");
    REC(etk_recorder_finish)(rec, &out, &len);
    if ((double)(t1 - t0) / EVENTS < best) best = (double)(t1 - t0) / EVENTS;
  }
  return best;
}

/* A recorder holding one block of EVENTS operator events (instruction ids
 * cycling through 14, as a small model's). */
static etk_recorder_t *BODY(op_dump)(void) {
  etk_recorder_t *rec = BODY(make)(0);
  etk_recorder_name_t op = REC(etk_recorder_intern)(rec, "OPERATOR_CALL");
  REC(etk_recorder_begin_block)(rec, "Execute");
  for (uint32_t i = 0; i < EVENTS; i++) {
    etk_recorder_scope_t s;
    REC(etk_recorder_set_chain_debug_handle)(rec, 0, i % 14u);
    s = REC(etk_recorder_begin)(rec, op);
    REC(etk_recorder_end)(rec, &s);
  }
  return rec;
}

/* Best per-event time of logging a 16-float (64-byte) tensor into a debug
 * buffer. */
static double BODY(time_tensor_log)(void) {
  static uint8_t debug[EVENTS * 128u];
  static const float data[16] = {0};
  static const int64_t sizes[2] = {4, 4};
  etk_recorder_t *rec = BODY(make)(0);
  etk_recorder_tensor_t t;
  etk_recorder_value_t v;
  const uint8_t *out;
  size_t len;
  double best = 1e30;
  memset(&t, 0, sizeof t);
  t.scalar_type = 6;
  t.dim = 2;
  t.sizes = sizes;
  t.data = data;
  t.nbytes = sizeof data;
  v = etk_value_tensor(&t);
  for (int r = 0; r < 10; r++) {
    uint64_t t0;
    REC(etk_recorder_begin_block)(rec, "Execute");
    REC(etk_recorder_set_debug_buffer)(rec, debug, sizeof debug);
    t0 = now_ns();
    for (uint32_t i = 0; i < EVENTS; i++)
      REC(etk_recorder_log_value)(rec, &v, ETK_LOGGED_INTERMEDIATE_OUTPUT);
    {
      double per = (double)(now_ns() - t0) / EVENTS;
      if (per < best) best = per;
    }
    if (REC(etk_recorder_dropped)(rec) != 0) die("tensor events dropped");
    REC(etk_recorder_finish)(rec, &out, &len);
  }
  return best;
}

/* Every figure of one recorder into *f (clock_calls excepted: it does not
 * depend on the recorder). */
static void BODY(measure)(bench_figures_t *f) {
  etk_recorder_t *rec;
  etk_recorder_stats_t st0, st1;
  const uint8_t *out;
  size_t len_empty, len_full;

  rec = BODY(make)(0);
  f->pair = BODY(time_pairs)(rec, 0);
  f->pair_name = BODY(time_pairs)(rec, 1);
  rec = BODY(make)(1);
  f->pair_host = BODY(time_pairs)(rec, 0);
  f->pair_cycles = 0;
  if (have_cycles) {
    rec = BODY(make)(2);
    f->pair_cycles = BODY(time_pairs)(rec, 0);
  }

  /* memory per operator event */
  rec = BODY(make)(0);
  REC(etk_recorder_begin_block)(rec, "Execute");
  REC(etk_recorder_finish)(rec, &out, &len_empty);
  REC(etk_recorder_stats)(rec, &st0);
  rec = BODY(op_dump)();
  REC(etk_recorder_stats)(rec, &st1);
  f->ram_per_event = (double)(st1.record_bytes - st0.record_bytes) / EVENTS;
  f->arena_per_event = (double)((st1.record_bytes - st0.record_bytes) +
                                (st1.output_reserved - st0.output_reserved) +
                                (st1.scratch_bytes - st0.scratch_bytes)) /
                       EVENTS;

  /* finish per event (best of 20 finishes of the same records) and the
   * output bytes per operator event */
  f->finish = 1e30;
  for (int r = 0; r < 20; r++) {
    uint64_t t0 = now_ns();
    double per;
    REC(etk_recorder_finish)(rec, &out, &len_full);
    per = (double)(now_ns() - t0) / EVENTS;
    if (per < f->finish) f->finish = per;
  }
  f->file_bytes_per_op = (double)(len_full - len_empty) / EVENTS;

  f->tensor = BODY(time_tensor_log)();
}
