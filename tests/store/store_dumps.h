/*
 * store_dumps.h - noisy synthetic ETDumps for the store tests and benchmark:
 * `runs` executions of `ops` operators ("op_000" ... with instruction ids
 * 0..ops-1) and Method::execute, each duration log-normally spread around
 * its operator's base time, one operator optionally slowed down.
 */
#ifndef ETKIT_TESTS_STORE_DUMPS_H
#define ETKIT_TESTS_STORE_DUMPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct store_dump_spec {
  unsigned seed;      /* different seeds give different bytes */
  size_t ops, runs;   /* operators per execution, executions */
  double noise;       /* sigma of the log-normal factor (0.05 = ~5 %) */
  int slow_op;        /* operator slowed down, -1 for none */
  double slow_factor; /* its duration multiplier (1.10 = 10 % slower) */
} store_dump_spec_t;

/* A size-prefixed ETDump (malloc'd, *len bytes); NULL when out of
 * memory. */
uint8_t *store_dump_make(const store_dump_spec_t *spec, size_t *len);
/* The same with operator names "<prefix>000" ... (NULL: "op_"). */
uint8_t *store_dump_make_named(const store_dump_spec_t *spec,
                               const char *prefix, size_t *len);

/* The same run as store_dump_make (same durations for the same spec:
 * operators op_000 ..., instruction i, and Method::execute per execution)
 * recorded by the recorder library in stats mode (etkit run --profile-mode
 * stats) with a scripted nanosecond clock: one latency sketch per operator
 * at 1 % instead of every event.  When `durations` is not NULL it receives
 * the spec->runs durations of operator `op` (ns, in order).  NULL when out
 * of memory or the recorder refused. */
uint8_t *store_stats_dump_make(const store_dump_spec_t *spec, int op,
                               double *durations, size_t *len);

/* A normal deviate from a xorshift state (Box-Muller). */
double store_dump_gauss(uint64_t *state);

#endif
