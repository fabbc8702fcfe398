/*
 * memory_plan_fixtures.h - programs with known memory plans for the
 * memory-plan tests and fuzz corpus (see memory_plan_fixtures.c).
 */
#ifndef ETK_MEMORY_PLAN_FIXTURES_H
#define ETK_MEMORY_PLAN_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

typedef struct mpf_fixture {
  const char *name;
  int (*build)(uint8_t **out, size_t *len); /* *out malloc'd */
} mpf_fixture_t;

extern const mpf_fixture_t mpf_fixtures[];
extern const size_t mpf_fixture_count;

/* `n` ping-pong relu calls (see the .c file); for tests and the bench. */
int mpf_build_long_chain(uint32_t n, uint8_t **out, size_t *len);

#endif
