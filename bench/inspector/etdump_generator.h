/*
 * etdump_generator.h - large synthetic ETDumps for benchmarks (see
 * etdump_generator.c for the shapes).
 */
#ifndef ETKIT_BENCH_ETDUMP_GENERATOR_H
#define ETKIT_BENCH_ETDUMP_GENERATOR_H

#include <stddef.h>
#include <stdint.h>

typedef enum etdump_shape {
  ETDUMP_SHAPE_REPEAT = 0, /* runs of 49 events: the same 24 operators */
  ETDUMP_SHAPE_WIDE        /* one run of `events` distinct events */
} etdump_shape_t;

/* Builds a size-prefixed ETDump of about `events` profile events (repeat
 * rounds down to whole 49-event runs).  On success *out is the malloc'd
 * builder memory (free it) and *bytes and *len the finished dump inside it.
 * ETK_E_NO_MEMORY, or a builder error (the dump must fit in 2 GiB). */
int etdump_generate(etdump_shape_t shape, size_t events, uint8_t **out,
                    const uint8_t **bytes, size_t *len);

#endif
